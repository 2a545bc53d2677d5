/* rsp-record's collector: preflight, probes, perf record + perf stat + the ftrace capture,
 * the workload, signals, cleanup, the side files and the loss check. */
#pragma once

#include <glib.h>
#include <stdbool.h>

G_BEGIN_DECLS

/* Exit statuses of rsp-record itself (the workload's own status is returned otherwise). */
enum {
  RSP_RECORD_EXIT_USAGE = 2,      /* bad options */
  RSP_RECORD_EXIT_FAILURE = 125,  /* preflight or recording failed */
  RSP_RECORD_EXIT_NOEXEC = 126,   /* the command exists but cannot be executed */
  RSP_RECORD_EXIT_NOTFOUND = 127, /* the command was not found */
};

typedef enum { RSP_CALL_GRAPH_FP, RSP_CALL_GRAPH_DWARF, RSP_CALL_GRAPH_NONE } rsp_call_graph;

typedef struct rsp_record_options {
  const char *output;       /* perf.data */
  rsp_call_graph call_graph;
  unsigned freq;            /* 0: the set's, else 997 Hz */
  const char *probes;       /* set name or path: "default" */
  bool all;                 /* -a: no command */
  double duration;          /* seconds; 0: until the command/PID ends or Ctrl-C */
  int pid;                  /* -p: record until PID exits */
  char **command;           /* argv of the workload, or NULL */
  bool libc_probes;         /* the paper's libc uprobes that repair broken user stacks */
  bool no_ftrace;
  bool no_loss_check;
  bool quiet;
  bool dry_run;              /* preflight, print the events and the perf command, record nothing */
  unsigned ftrace_buffer_kb; /* per CPU; 0: 4096 */
  unsigned mmap_pages;       /* perf record -m; 0: 1024 (4 MiB a CPU) */
} rsp_record_options;

/* Records; returns the exit status rsp-record should exit with. */
int rsp_record_run(const rsp_record_options *opts);

/* Decodes FILE.ftrace (or DIR) and prints the events per name: the capture's checker. */
int rsp_record_ftrace_stats(const char *path);

/* Lists the probe sets found. */
int rsp_record_list_probes(void);

G_END_DECLS
