/* What the format writers of src/export/ share. */
#pragma once

#include "export/export.h"

/* The pids of the processes on PATHS (a set of GINT_TO_POINTER(pid)). */
GHashTable *rsp_export_path_pids(const rsp_paths *paths);
/* An error for OUT having failed to be written, FORMAT naming the writer. */
bool rsp_export_write_failed(FILE *out, const char *format, GError **error);
/* Two interned pointers (a function and its binary, as the model interns them) as a hash table key, so that a
 * frame seen again costs a lookup and no allocation; the table frees its keys with g_free. */
typedef struct rsp_export_pair {
  const void *a, *b;
} rsp_export_pair;
GHashTable *rsp_export_pair_table_new(void);
/* The value stored for (A, B) + 1, or 0 when none. */
guint rsp_export_pair_lookup(GHashTable *table, const void *a, const void *b);
void rsp_export_pair_insert(GHashTable *table, const void *a, const void *b, guint value);
/* The time between two samples in ns when the sampling event is a clock (cpu-clock, task-clock) at a known
 * frequency ("cpu-clock/freq=997/") or period; else 0. */
uint64_t rsp_export_sample_period_ns(const rsp_model *model);
/* Whether [*START, *END) (an instant when equal) meets WINDOW (rsp-export --range; NULL: everything does), and
 * if so clips it to the window. Every writer keeps only what meets the window. */
bool rsp_export_clip(const rsp_export_window *window, uint64_t *start, uint64_t *end);

/* The decimal digits of V written backwards from END (a buffer of RSP_U64_DIGITS bytes ends there); returns where
 * they start. What rsp_json_u64 writes, without printf's parsing of a format (speedscope's millions of events). */
enum { RSP_U64_DIGITS = 20 };
char *rsp_u64_digits(char *end, uint64_t v);
