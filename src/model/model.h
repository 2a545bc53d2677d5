/* rsp model: time-ordered events -> tasks, runs and sleeps, with loss accounting.
 *
 * The one public header of src/model/. Tools and upper layers include only this (and the reader's).
 * Everything is stored flat: tasks, runs, sleeps and comm changes in arrays indexed by integer
 * ids, strings interned once in the model's arena, all released at once by rsp_model_free().
 * Times are the recording's (CLOCK_MONOTONIC with perf record -k mono), in nanoseconds.
 */
#pragma once

#include "reader/reader.h"

G_BEGIN_DECLS

/* ---- The paper's constants ---------------------------------------------------------------
 * Each named after what it bounds, with the section of the paper (reference/rsp-recursive-
 * systemic-profiler.tex) it comes from; tools let the user override them (rsp_model_options). */

/* "Runs and Sleeps": a cpu-clock sample attaches to its task's run when the task is running or
 * its last run (on the sample's cpu) ended at most this long before the sample; else it is dropped
 * and counted (rsp_model_loss.orphan_samples). */
#define RSP_SAMPLE_ATTACH_WINDOW_NS ((uint64_t)20000)

/* ---- Ids ---------------------------------------------------------------------------------- */
typedef uint32_t rsp_task_id;
typedef uint32_t rsp_run_id;
typedef uint32_t rsp_sleep_id;
#define RSP_NO_ID UINT32_MAX
#define RSP_NO_EVENT UINT64_MAX

/* ---- Tasks -------------------------------------------------------------------------------
 * One thread generation: a tid from its fork (or first sighting) to its exec or exit. An exec
 * starts a new generation with the same pid and tid, tracked separately (paper, "Runs and
 * Sleeps"); a tid reused after an exit is a new task too. The idle task (tid 0) is not a task. */
typedef struct rsp_task {
  int32_t pid, tid;             /* pid is -1 while unknown (a tid seen only in a tracepoint) */
  uint32_t generation;          /* 0, then +1 at each exec of this tid */
  rsp_task_id parent;           /* the forking thread's task (FORK ptid), else RSP_NO_ID */
  rsp_task_id prev_generation;  /* the generation this exec replaced, else RSP_NO_ID */
  const char *comm;             /* interned; the last comm ("" when never named) */
  uint64_t start;               /* fork or exec time; 0 when it existed before the recording */
  uint64_t exit_time;           /* EXIT time, or 0 */
  uint32_t n_runs, n_sleeps, n_comms; /* see rsp_model_task_run/sleep/comm */
  uint32_t first_run_, first_sleep_, first_comm_; /* private: offsets into the model's indexes */
} rsp_task;

/* A name of a task: TASK was named COMM from TIME on (COMM record, fork from a named parent, or,
 * for a tid with no COMM record, the comm field of a sched tracepoint). */
typedef struct rsp_comm_change {
  uint64_t time;
  rsp_task_id task;
  const char *comm; /* interned */
} rsp_comm_change;

/* ---- Runs and sleeps ---------------------------------------------------------------------- */
enum {
  RSP_RUN_START_INFERRED = 1 << 0, /* the switch-in was not recorded: start = the task's first event
                                      on that cpu (or, with switch records, the switch-out naming it) */
  RSP_RUN_START_AT_WAKEUP = 1 << 4,/* with START_INFERRED: the task was woken onto that cpu while it
                                      was idle, so start = that wakeup (or when the cpu went idle,
                                      if later) rather than its first event */
  RSP_RUN_OPEN_AT_END = 1 << 1,    /* still running when the recording ended: end = last event */
  RSP_RUN_STARTED_BY_EXEC = 1 << 2,/* the first run of an exec'd generation, begun at the exec */
  RSP_RUN_OPEN_AT_START = 1 << 3,  /* running when the recording began: the first switch event of
                                      its cpu switched it out; start = the recording's first event */
};

/* Contiguous on-CPU time of one task. */
typedef struct rsp_run {
  uint64_t start, end;
  rsp_task_id task;
  int32_t cpu;
  uint32_t n_samples; /* cpu-clock samples inside (or at most the attach window after) */
  uint32_t flags;     /* RSP_RUN_* */
} rsp_run;

enum {
  RSP_WAKE_NONE = 0,
  RSP_WAKE_WAKING = 1, /* sched:sched_waking (try_to_wake_up began) */
  RSP_WAKE_WAKEUP = 2, /* sched:sched_wakeup or sched_wakeup_new (the task is runnable) */
};

/* Off-CPU time between two runs of one task. The time before a task's first run and after its
 * last one is no sleep. */
typedef struct rsp_sleep {
  uint64_t start, end;
  uint64_t wake_time;    /* when it became runnable: the first sched_wakeup of the task inside the
                            sleep, else its first sched_waking; 0 when none was recorded */
  uint64_t switch_event; /* the sched:sched_switch sample that began it, as its ordinal in the
                            reader's event stream (0 = the first event rsp_reader_next returned):
                            a later pass finds its stack there; RSP_NO_EVENT when none */
  rsp_task_id task;
  char state;            /* prev_state of that sched_switch: 'R' 'S' 'D' 'T' 't' 'X' 'Z' 'P' 'I',
                            or 0 when no tracepoint said */
  bool preempted;        /* PERF_RECORD_MISC_SWITCH_OUT_PREEMPT on the OUT record, or state 'R' */
  uint8_t wake_kind;     /* RSP_WAKE_* of wake_time */
} rsp_sleep;

typedef enum {
  RSP_RUNS_FROM_NOTHING,        /* neither switch records nor sched:sched_switch: no runs */
  RSP_RUNS_FROM_SWITCH_RECORDS, /* PERF_RECORD_SWITCH(_CPU_WIDE) (perf record --switch-events) */
  RSP_RUNS_FROM_SCHED_SWITCH,   /* the sched:sched_switch tracepoint, missing switch-ins inferred */
} rsp_runs_source;

/* ---- Loss accounting ------------------------------------------------------------------------
 * What the model could not see, or had to infer, counted. */
typedef struct rsp_model_loss {
  uint64_t inferred_switch_ins;   /* runs whose start was inferred (RSP_RUN_START_INFERRED) */
  uint64_t orphan_samples;        /* cpu-clock samples in no run (nor within the attach window) */
  uint64_t unmatched_switch_outs; /* switch-outs of a task with no run open (no switch-in seen),
                                     other than the first switch-out of each cpu */
  uint64_t implicit_switch_outs;  /* runs ended because another task was seen on their cpu, or
                                     the task on another cpu: a switch-out was not recorded */
  uint64_t runs_open_at_start;    /* runs begun before the recording (RSP_RUN_OPEN_AT_START) */
  uint64_t runs_open_at_end;      /* runs closed at the recording's last event */
  uint64_t sleeps_without_wakeup; /* blocked sleeps (S, D, I, T...: not preempted, not dead) ended
                                     with no wakeup recorded (perf drops the ones fired in interrupt
                                     context on an idle cpu): their scheduler delay is counted as 0 */
  uint64_t lost_records, lost_events;    /* PERF_RECORD_LOST: records and the events they count */
  uint64_t lost_samples_records, lost_samples; /* PERF_RECORD_LOST_SAMPLES */
  uint64_t out_of_order_events;   /* events the reader delivered after later ones (its stats) */
  uint64_t idle_samples;          /* cpu-clock samples of the idle task (not a loss; for totals) */
  bool sampled_tracepoints;       /* some tracepoint was in frequency mode or period > 1: the
                                     kernel kept only some of its events, runs and sleeps are wrong */
  const char *sampled_tracepoint; /* the first such evsel's name, interned */
} rsp_model_loss;

/* ---- Building ------------------------------------------------------------------------------ */
typedef struct rsp_model_options {
  bool no_switch_records;     /* ignore PERF_RECORD_SWITCH*: build runs from sched:sched_switch */
  uint64_t sample_window_ns;  /* 0: RSP_SAMPLE_ATTACH_WINDOW_NS */
} rsp_model_options;

typedef struct rsp_model rsp_model;

/* Reads every event of READER (already opened) and builds the model. NULL with ERROR set when
 * the reader fails. */
rsp_model *rsp_model_build(rsp_reader *reader, const rsp_model_options *options, GError **error);
/* Opens PATH with the reader's default options and builds its model. */
rsp_model *rsp_model_load(const char *path, const rsp_model_options *options, GError **error);
void rsp_model_free(rsp_model *model);

/* ---- Reading -------------------------------------------------------------------------------- */
rsp_runs_source rsp_model_runs_source(const rsp_model *model);
/* Switch events the runs were built from (switch records or sched_switch samples). */
uint64_t rsp_model_n_switch_events(const rsp_model *model);
uint64_t rsp_model_n_events(const rsp_model *model);   /* events read */
uint64_t rsp_model_time_first(const rsp_model *model); /* first and last event times seen */
uint64_t rsp_model_time_last(const rsp_model *model);

const rsp_model_loss *rsp_model_loss_get(const rsp_model *model);
/* What the user must be told about this recording, one sentence each, the gravest first (sampled
 * tracepoints, LOST records, inferred runs...); NULL-terminated, free with g_strfreev(). */
char **rsp_model_loss_warnings(const rsp_model *model);

uint32_t rsp_model_n_tasks(const rsp_model *model);
const rsp_task *rsp_model_task(const rsp_model *model, rsp_task_id id);
uint32_t rsp_model_n_runs(const rsp_model *model);
const rsp_run *rsp_model_run(const rsp_model *model, rsp_run_id id);   /* in start order */
uint32_t rsp_model_n_sleeps(const rsp_model *model);
const rsp_sleep *rsp_model_sleep(const rsp_model *model, rsp_sleep_id id); /* in start order */

/* The I-th run / sleep / comm change of TASK in time order (I < task->n_runs ...). */
rsp_run_id rsp_model_task_run(const rsp_model *model, rsp_task_id task, uint32_t i);
rsp_sleep_id rsp_model_task_sleep(const rsp_model *model, rsp_task_id task, uint32_t i);
const rsp_comm_change *rsp_model_task_comm(const rsp_model *model, rsp_task_id task, uint32_t i);
/* TASK's comm at TIME (its first known comm before the first change). */
const char *rsp_model_task_comm_at(const rsp_model *model, rsp_task_id task, uint64_t time);

/* Per-task totals, nanoseconds. */
typedef struct rsp_task_totals {
  uint64_t runtime;
  uint64_t sleep, sleep_s, sleep_d, sleep_other; /* sleep = s + d + other; d is the I/O wait */
  uint64_t sched_delay;   /* sum over sleeps with a wakeup of (switch-in - wake_time) */
  uint64_t preempt_delay; /* sum of preempted sleeps (runnable, waiting for a cpu; part of other) */
  uint64_t samples;
  uint32_t runs, sleeps, inferred_starts, sleeps_without_wakeup;
} rsp_task_totals;

void rsp_model_task_totals(const rsp_model *model, rsp_task_id task, rsp_task_totals *out);

G_END_DECLS
