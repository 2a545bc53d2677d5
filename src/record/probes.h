/* Event sets of rsp-record: the probes/ data files ("rsp-probes 1" line format).
 *
 * A set names the events rsp-record records: tracepoints, kprobes, uprobes and CPU sampling.
 * Sets include other sets; the loaded set is flat, deduplicated, in file order.
 * The format is documented in probes/README and at the top of every file in probes/. */
#pragma once

#include <glib.h>
#include <stdbool.h>

G_BEGIN_DECLS

#define RSP_PROBES_ERROR (rsp_probes_error_quark())
GQuark rsp_probes_error_quark(void);

typedef enum {
  RSP_PROBES_ERROR_NOT_FOUND, /* no set of that name, unreadable file */
  RSP_PROBES_ERROR_SYNTAX,    /* a line we do not understand: FILE:LINE: message */
} RspProbesErrorCode;

#define RSP_PROBES_FORMAT_VERSION 1

typedef enum {
  RSP_PROBE_TRACEPOINT,
  RSP_PROBE_KPROBE,
  RSP_PROBE_UPROBE,
} rsp_probe_kind;

typedef struct rsp_probe {
  rsp_probe_kind kind;
  char *event;      /* "group:name" as perf -e and tracefs events/ name it */
  char *group;      /* the part before ':' */
  char *name;       /* the part after ':' */
  char *target;     /* kprobe: "FUNCTION [FETCHARGS...]"; uprobe: the function */
  char *library;    /* uprobe: "libc" (the libc rsp-record runs on) or an absolute path */
  bool ftrace;      /* also captured by the ftrace instance (perf may drop it, perf-loss.md) */
  bool fallback;    /* only where kprobes are missing (the network tracepoints) */
  bool nostack;     /* recorded without a call stack (the stack says nothing rsp uses) */
  char *origin;     /* "FILE:LINE" */
} rsp_probe;

typedef struct rsp_probe_set {
  char *name;        /* the set asked for: its name, or the path given */
  char *path;        /* the file it was read from */
  int version;       /* the "version N" line of the top file */
  char *description;
  GPtrArray *probes; /* rsp_probe*, deduplicated by event (first wins, flags or-ed) */
  GPtrArray *files;  /* "NAME VERSION" of every file read, the top one first */
  bool sampling;     /* a "sampling" line was seen */
  char *sampling_event; /* "sampling EVENT": NULL for automatic (cycles if there is a PMU, else cpu-clock) */
  unsigned sampling_freq; /* "sampling [EVENT] freq=N": 0 for the default */
} rsp_probe_set;

/* Loads a set by name ("default", "sched", ...: NAME.probes in the search path) or by path
 * (anything holding a '/' or ending in ".probes"). */
rsp_probe_set *rsp_probe_set_load(const char *name_or_path, GError **error);
/* Parses a set from memory; includes are looked up beside base_dir, then in the search path. */
rsp_probe_set *rsp_probe_set_parse(const char *name, const char *path, const char *text,
                                   GError **error);
void rsp_probe_set_free(rsp_probe_set *set);

/* The directories searched for NAME.probes: $RSP_PROBES_PATH (colon-separated), then the
 * source tree's probes/ when running from a build tree, then the installed one. */
GPtrArray *rsp_probe_search_path(void);
/* The sets found in the search path: "NAME\tVERSION\tDESCRIPTION\tPATH" strings, sorted. */
GPtrArray *rsp_probe_list_sets(void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rsp_probe_set, rsp_probe_set_free)

G_END_DECLS
