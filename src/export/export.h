/* rsp in other tools' formats: a layer above src/analysis that writes a recording's control paths, runs,
 * sleeps and samples as the files other profilers read. One file per format; each writer takes the paths of
 * the process of interest (rsp_paths_build), writes to OUT and returns false with ERROR set when it cannot.
 *
 * The one public header of src/export/. */
#pragma once

#include "analysis/analysis.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

G_BEGIN_DECLS

/* JSON out (json-writer.c): the one writer of JSON strings, numbers, objects and arrays, to a FILE or a GString,
 * that the JSON exports below and the tools (rsp-summary, rsp-diff, rsp-dump) share. Strings: quotes,
 * backslashes, control characters and DEL escaped, valid UTF-8 written as it is, a byte that is not UTF-8 as
 * \u00XX. Inside an object or array it began, the writer puts the commas; a value right after a key takes
 * none. What a caller writes beside it (rsp_json_raw, or straight to the FILE) it does not see. */
typedef enum rsp_json_flags {
  RSP_JSON_SHORT_ESCAPES = 1 << 0, /* newline and tab as \n and \t (the tools), not \u000a and \u0009 (the exports) */
  RSP_JSON_SPACED = 1 << 1,        /* ", " between items and ": " after a key, not "," and ":" */
} rsp_json_flags;

typedef struct rsp_json_writer {
  FILE *file;      /* where it writes: FILE, else STRING */
  GString *string;
  unsigned flags;  /* rsp_json_flags */
  unsigned depth;  /* the objects and arrays open */
  uint64_t items;  /* bit d (up to 63): the container open at depth d holds an item */
  bool after_key;  /* the next value is a member's: no comma */
} rsp_json_writer;

rsp_json_writer rsp_json_writer_file(FILE *out, unsigned flags);
rsp_json_writer rsp_json_writer_string(GString *out, unsigned flags);
void rsp_json_begin_object(rsp_json_writer *w);
void rsp_json_end_object(rsp_json_writer *w);
void rsp_json_begin_array(rsp_json_writer *w);
void rsp_json_end_array(rsp_json_writer *w);
/* A member's key (escaped as a string), then ':'. */
void rsp_json_key(rsp_json_writer *w, const char *key);
/* S as a JSON string; NULL: null. */
void rsp_json_string(rsp_json_writer *w, const char *s);
/* LEN bytes, which may hold NULs (written as \u0000), as a JSON string. */
void rsp_json_string_len(rsp_json_writer *w, const char *s, size_t len);
void rsp_json_u64(rsp_json_writer *w, uint64_t v);
void rsp_json_i64(rsp_json_writer *w, int64_t v);
/* V with DECIMALS digits after the point ("%.*f"); null when not finite. */
void rsp_json_double(rsp_json_writer *w, int decimals, double v);
void rsp_json_bool(rsp_json_writer *w, bool v);
void rsp_json_null(rsp_json_writer *w);
/* TEXT as it is (layout, or JSON written elsewhere), no comma. */
void rsp_json_raw(rsp_json_writer *w, const char *text);

/* What an export covers (rsp-export --range): the time window [start, end), recording time; NULL (or both 0): the
 * whole recording. The control paths' time is clipped to it (each pseudo-stack's share inside it), samples are
 * those inside it, sleeps and operations are those that meet it (a timeline shows them whole; pprof counts their
 * time inside it). */
typedef struct rsp_export_window {
  uint64_t start, end;
} rsp_export_window;

/* Perfetto (perfetto.c): a protobuf Trace (a stream of TracePackets, field numbers of google/perfetto's
 * protos/perfetto/trace/) that ui.perfetto.dev and trace_processor open: a track per process and thread
 * with its states (Running, Runnable, the sleeps by state and wait site), its wakeups, forks and other links
 * as flows from the waker's instant to the wakee's run, disk requests and network operations on tracks of
 * their own, the samples as PerfSamples with interned call stacks and, when PATHS is given, its process of
 * interest's control paths under a "critical path" track. Times are the recording's (CLOCK_MONOTONIC), in ns.
 * OUT is written in binary; false with ERROR set when writing fails. */
bool rsp_export_perfetto(const rsp_model *model, const rsp_paths *paths, const rsp_export_window *window, FILE *out,
                         GError **error);

/* speedscope's JSON file format (https://www.speedscope.app/file-format-schema.json): one evented profile per
 * thread on PATHS (its layers as cross-process pseudo-stacks, in nanoseconds), then one sampled profile per
 * process on them (its samples, rooted at the thread's comm). */
bool rsp_export_speedscope(const rsp_paths *paths, const rsp_export_window *window, FILE *out, GError **error);

/* pprof's profile.proto, gzipped: sample types samples/count (on-cpu) and off-cpu/nanoseconds (sleeps by their
 * wait stack) of the processes on PATHS, stacks rooted at the thread's comm, labels pid and tid. */
bool rsp_export_pprof(const rsp_paths *paths, const rsp_export_window *window, FILE *out, GError **error);

/* The Firefox Profiler's Gecko profile (as `perf script report gecko` writes it): a thread per task of the
 * processes on PATHS with its samples, and markers for its sleeps (state, why they ended, who woke them) and
 * for the disk and network operations it waited on. */
bool rsp_export_firefox(const rsp_paths *paths, const rsp_export_window *window, FILE *out, GError **error);

G_END_DECLS
