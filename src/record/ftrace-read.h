/* A small decoder and checker of rsp-record's ftrace capture (FILE.ftrace/), with libtraceevent's
 * kbuffer API: proves the capture decodable and counts its events. The reader proper (merging the
 * capture into the perf stream) lives in src/reader/. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

G_BEGIN_DECLS

struct tep_handle;
struct tep_event;

#define RSP_FTRACE_DECODE_ERROR (rsp_ftrace_decode_error_quark())
GQuark rsp_ftrace_decode_error_quark(void);

typedef struct rsp_ftrace_counts {
  GHashTable *events;   /* "group:name" -> uint64_t* : events inside [from, to] */
  uint64_t total;       /* every event of the capture */
  uint64_t in_window;   /* of those, inside [from, to] */
  uint64_t pages;       /* ring-buffer pages read */
  uint64_t missed;      /* events the ring buffer reported lost (a page flag; -1 counts 1) */
  uint64_t unknown;     /* events of a type without a format file */
  uint64_t disorder;    /* events older than the one before on the same CPU (should be 0) */
  uint64_t first_time, last_time; /* CLOCK_MONOTONIC ns of the first and last event */
  unsigned cpus;
} rsp_ftrace_counts;

/* Called for each event, CPU by CPU, each CPU in time order. Return false to stop. */
typedef bool (*rsp_ftrace_event_fn)(uint64_t time, int cpu, struct tep_event *event,
                                    const void *data, int size, void *user);

/* Decodes every cpuN.raw of DIR; TEP (optional) receives the parsed formats. */
bool rsp_ftrace_decode(const char *dir, rsp_ftrace_event_fn fn, void *user, rsp_ftrace_counts *counts,
                       uint64_t from, uint64_t to, GError **error);

/* Counts the events of DIR per event name, those inside [from, to] (0, UINT64_MAX: all). */
rsp_ftrace_counts *rsp_ftrace_count(const char *dir, uint64_t from, uint64_t to, GError **error);
void rsp_ftrace_counts_free(rsp_ftrace_counts *counts);
uint64_t rsp_ftrace_counts_get(const rsp_ftrace_counts *counts, const char *event);

G_END_DECLS
