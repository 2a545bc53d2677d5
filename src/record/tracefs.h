/* tracefs for rsp-record: where it is, which events exist, dynamic probes, and the ftrace
 * instance that captures what perf drops (/work/shared/platform/perf-loss.md, section 2). */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

G_BEGIN_DECLS

#define RSP_TRACEFS_ERROR (rsp_tracefs_error_quark())
GQuark rsp_tracefs_error_quark(void);

/* The tracefs mount: /sys/kernel/tracing, else /sys/kernel/debug/tracing; NULL if neither is
 * a mounted tracefs. */
char *rsp_tracefs_find(void);
/* Mounts tracefs on /sys/kernel/tracing. */
bool rsp_tracefs_mount(const char *where, GError **error);

/* "group:name" exists under ROOT/events/. */
bool rsp_tracefs_event_exists(const char *root, const char *event);
/* Writes TEXT to PATH (O_WRONLY|O_TRUNC, or O_APPEND). The error names the file and the text. */
bool rsp_tracefs_write(const char *path, const char *text, bool append, GError **error);

/* Dynamic probes: "p:GROUP/NAME TARGET" appended to ROOT/FILE (kprobe_events, uprobe_events);
 * removal writes "-:GROUP/NAME". */
bool rsp_tracefs_probe_add(const char *root, const char *file, const char *group, const char *name,
                           const char *target, GError **error);
bool rsp_tracefs_probe_remove(const char *root, const char *file, const char *group,
                              const char *name, GError **error);
/* Removes every probe of FILE whose group starts with PREFIX; returns how many. *LEFT (optional)
 * gets how many could not be removed (busy: a perf still has them open). */
unsigned rsp_tracefs_probes_remove_prefix(const char *root, const char *file, const char *prefix,
                                          unsigned *left);

/* The file offset of FUNCTION in the ELF file PATH, for a uprobe. */
bool rsp_elf_function_offset(const char *path, const char *function, uint64_t *offset,
                             GError **error);
/* The libc this process runs on (its real path), or NULL. */
char *rsp_find_libc(void);

/* Stale instances (instances/rsp-PID whose PID is gone): removes them, returns how many. */
unsigned rsp_tracefs_remove_stale_instances(const char *root);

/* ---- the ftrace capture ----------------------------------------------------------------- */

typedef struct rsp_ftrace_capture rsp_ftrace_capture;

typedef struct rsp_ftrace_cpu_stats {
  int cpu;
  uint64_t bytes;    /* written to cpuN.raw */
  uint64_t overrun;  /* from per_cpu/cpuN/stats: events overwritten before we read them */
  uint64_t dropped;  /* events dropped because the buffer was full */
} rsp_ftrace_cpu_stats;

/* Creates instance ROOT/instances/NAME (trace_clock mono, BUFFER_KB per CPU, tracing off) with
 * EVENTS ("group:name") enabled, creates OUTDIR with the format files, header_page and an info
 * file, and opens every CPU's trace_pipe_raw. Nothing is recorded before _start(). On error,
 * whatever was made is undone. */
rsp_ftrace_capture *rsp_ftrace_capture_create(const char *root, const char *name,
                                              const char *outdir, GPtrArray *events,
                                              unsigned buffer_kb, GError **error);
/* tracing_on 1, and a thread copies every CPU's pages into OUTDIR/cpuN.raw as they come. */
bool rsp_ftrace_capture_start(rsp_ftrace_capture *cap, GError **error);
/* tracing_on 0, then the thread drains what is left and ends; the stats are final then.
 * Returns false (and sets error) if the copy failed on the way. */
bool rsp_ftrace_capture_stop(rsp_ftrace_capture *cap, GError **error);
/* Removes the instance (idempotent); true when it is gone. */
bool rsp_ftrace_capture_remove(rsp_ftrace_capture *cap, GError **error);
/* Appends KEY=VALUE lines to OUTDIR/info's [capture] group (the recording window, ...). */
void rsp_ftrace_capture_note(rsp_ftrace_capture *cap, const char *key, const char *value);
const rsp_ftrace_cpu_stats *rsp_ftrace_capture_stats(rsp_ftrace_capture *cap, unsigned *n);
const char *rsp_ftrace_capture_instance(rsp_ftrace_capture *cap);
void rsp_ftrace_capture_free(rsp_ftrace_capture *cap); /* removes the instance too */

G_END_DECLS
