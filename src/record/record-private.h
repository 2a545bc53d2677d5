/* rsp-record's collector, inside: the state of one recording and the pieces record.c puts together
 * (record-messages.c: messages and small helpers; perf-child.c: perf and the workload as children;
 * preflight.c: what is checked and decided before anything starts; record-meta.c: the side files and
 * the loss check after). */
#pragma once

#include "record/record.h"

#include "record/probes.h"
#include "record/tracefs.h"

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#define RSP_RECORD_ERROR (rsp_record_error_quark())
GQuark rsp_record_error_quark(void);

#define DEFAULT_FREQ 997
#define DEFAULT_FTRACE_KB 4096
#define DEFAULT_MMAP_PAGES 1024
#define ACK_TIMEOUT_MS 60000
#define GRACE_MS 2000          /* after Ctrl-C, how long the workload has to exit */
#define PERF_EXIT_TIMEOUT_MS (10 * 60 * 1000)

typedef struct child {
  const char *what; /* "perf record", "perf stat", the command */
  pid_t pid;
  bool running;
  int status;     /* wait status once it ended */
  int ctl_w;      /* perf --control: commands to it */
  int ack_r;      /* and its acks */
  char *log;      /* its stdout+stderr */
} child;

typedef struct dyn_probe {
  const char *file; /* kprobe_events, uprobe_events */
  char *group, *name, *event, *definition;
  bool removed;
} dyn_probe;

typedef struct recorder {
  const rsp_record_options *o;
  int sfd;                  /* signalfd: INT TERM HUP QUIT CHLD */
  sigset_t blocked, saved_mask;
  char *perf;               /* perf's path */
  char *perf_version;
  char *tracefs;
  bool mounted_tracefs;
  int lock_fd;
  rsp_probe_set *set;
  GPtrArray *events;        /* char*: the events recorded (tracepoints and probes) */
  GPtrArray *skipped;       /* char*: "event (why)" */
  GPtrArray *ftrace_events; /* char*: the subset the ftrace instance captures too */
  GHashTable *nostack;      /* events recorded without a call stack */
  GPtrArray *dyn;           /* dyn_probe*: created, to remove */
  char *sampling;           /* "cpu-clock/freq=997/" or NULL */
  bool has_kprobes, has_uprobes;
  char *workdir;            /* temporary: perf logs, perf stat output */
  char *output;             /* absolute path of FILE */
  char *instance_name;
  rsp_ftrace_capture *ftrace;
  char *command_path;       /* the workload's executable */
  child record, stat, work;
  GPtrArray *record_argv;
  int target_pidfd;         /* -p */
  int timer_fd;
  /* CLOCK_MONOTONIC ns */
  /* the recording window: perf's events went on inside [on_sent, on_acked] and off inside
   * [off_sent, off_acked] */
  uint64_t t_on_sent, t_on_acked, t_off_sent, t_off_acked;
  GDateTime *start_time;
  int signals;              /* SIGINT/SIGTERM/SIGHUP received */
  bool interrupted;
  bool stopping;
  bool failed;
  int exit_status;          /* the workload's */
  bool have_exit_status;
  bool ftrace_ok;
} recorder;

extern bool rec_quiet; /* --quiet: notes are not printed */

/* record-messages.c */
void G_GNUC_PRINTF(1, 2) rec_note(const char *fmt, ...);
void G_GNUC_PRINTF(1, 2) rec_error_msg(const char *fmt, ...);
uint64_t rec_now_ns(void);
void rec_phase(const char *what);
void rec_rm_rf(const char *path);
char *rec_read_trimmed(const char *path);
void rec_print_log(const char *what, const char *log);

/* perf-child.c */
void rec_reap(recorder *r);
int rec_status_code(int st);
bool rec_spawn_perf(recorder *r, child *c, GPtrArray *argv, GError **error);
bool rec_perf_wait_ready(recorder *r, child *c, GError **error);
bool rec_perf_send(child *c, const char *cmd, GError **error);
bool rec_perf_wait_ack(recorder *r, child *c, const char *cmd, GError **error);
void rec_wait_children(recorder *r, child **cs, size_t n, int timeout_ms);
void rec_close_control(child *c);
bool rec_pending_stop_signal(recorder *r);

/* preflight.c */
bool rec_check_root(void);
bool rec_find_perf(recorder *r);
bool rec_find_tracefs(recorder *r);
bool rec_take_lock(recorder *r);
void rec_remove_leftovers(recorder *r);
bool rec_resolve_events(recorder *r);
bool rec_resolve_command(recorder *r);
bool rec_rotate_output(recorder *r);

/* record.c */
char *rec_argv_string(GPtrArray *a);

/* record-meta.c */
void rec_loss_check_and_meta(recorder *r, const char *stat_out);
