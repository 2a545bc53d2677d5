/* The model's internals: its storage and the builder that turns events into it. */
#pragma once

#include "model/model.h"

struct rsp_model {
  GStringChunk *strings; /* interned strings: comms, evsel names */
  GArray *tasks;         /* rsp_task */
  GArray *runs;          /* rsp_run, in start order */
  GArray *sleeps;        /* rsp_sleep, in start order */
  GArray *comms;         /* rsp_comm_change, in time order */
  GArray *task_runs;     /* rsp_run_id grouped by task (rsp_task.first_run_, n_runs) */
  GArray *task_sleeps;   /* rsp_sleep_id grouped by task */
  GArray *task_comms;    /* uint32_t comm change index grouped by task */
  rsp_model_loss loss;
  rsp_runs_source source;
  uint64_t n_switch_events;
  uint64_t n_events;
  uint64_t time_first, time_last;
};

/* Builder-only state of a task, parallel to model->tasks. */
typedef struct rsp_task_state {
  rsp_run_id open_run;     /* the run in progress, or RSP_NO_ID */
  rsp_run_id last_run;     /* the last run ended, or RSP_NO_ID */
  rsp_sleep_id open_sleep; /* the sleep since last_run ended, or RSP_NO_ID */
  /* a sched_switch with prev = this task not yet given to a sleep */
  uint64_t pending_state_time;
  uint64_t pending_state_event;
  char pending_state;
  /* the first sched_wakeup(_new) since the last run ended (or ever), for inferring switch-ins */
  bool woken;
  int32_t wake_cpu;
  uint64_t wake_time;
  uint64_t last_seen; /* the open run's start or the task's last event on its cpu since */
} rsp_task_state;

typedef enum { CPU_UNKNOWN, CPU_IDLE, CPU_TASK } rsp_cpu_kind;

typedef struct rsp_cpu_state {
  rsp_cpu_kind kind; /* CPU_UNKNOWN until the first switch (or task event) on this cpu */
  rsp_task_id task;  /* when kind == CPU_TASK */
  uint64_t idle_since; /* when kind == CPU_IDLE: when the last task left it (0: unknown) */
  /* Switch records: the task an OUT record named as next, not switched in yet (0: none) */
  int32_t next_tid;
  uint64_t next_time;
} rsp_cpu_state;

typedef struct rsp_model_builder {
  rsp_model *m;
  rsp_model_options opts;
  bool use_switch_records;
  bool sampling;         /* a sample was fed: perf enabled the sampled events (tracepoints too) */
  uint64_t event;        /* ordinal of the event being fed (rsp_sleep.switch_event) */
  GArray *tstate;        /* rsp_task_state, by task id */
  GHashTable *tid_task;  /* tid -> current generation's task id + 1 */
  GArray *cpus;          /* rsp_cpu_state, by cpu */
  GPtrArray *evsels;     /* evsel info (model.c), by rsp_evsel.index */
} rsp_model_builder;

/* model.c: the internal entry point, also used by the unit tests with fabricated events: feed
 * every event of a recording in order, then finish. USE_SWITCH_RECORDS says where runs come from:
 * PERF_RECORD_SWITCH* records, or sched:sched_switch with the missing switch-ins inferred. */
rsp_model_builder *rsp_model_builder_new(const rsp_model_options *options, bool use_switch_records);
void rsp_model_builder_feed(rsp_model_builder *b, const rsp_event *ev);
rsp_model *rsp_model_builder_finish(rsp_model_builder *b); /* frees B */

/* tasks.c */
const char *rsp_model_intern(rsp_model *m, const char *s);
/* The current generation of TID, created when unknown (PID may be -1: unknown). */
rsp_task_id rsp_tasks_for_tid(rsp_model_builder *b, int32_t pid, int32_t tid);
rsp_task_id rsp_tasks_lookup(const rsp_model_builder *b, int32_t tid); /* RSP_NO_ID when unknown */
void rsp_tasks_fork(rsp_model_builder *b, const rsp_event *ev);
/* A COMM record. On an exec, returns the new generation and stores the old one in OLD_TASK (the
 * caller moves the run); else RSP_NO_ID. */
rsp_task_id rsp_tasks_comm(rsp_model_builder *b, const rsp_event *ev, rsp_task_id *old_task);
void rsp_tasks_exit(rsp_model_builder *b, const rsp_event *ev);
/* TASK is named COMM from TIME on. */
void rsp_tasks_name(rsp_model_builder *b, rsp_task_id task, uint64_t time, const char *comm);
static inline rsp_task *rsp_task_at(rsp_model *m, rsp_task_id id)
{
  return &g_array_index(m->tasks, rsp_task, id);
}
static inline rsp_task_state *rsp_tstate_at(rsp_model_builder *b, rsp_task_id id)
{
  return &g_array_index(b->tstate, rsp_task_state, id);
}

/* runs.c */
rsp_cpu_state *rsp_runs_cpu(rsp_model_builder *b, int32_t cpu); /* NULL for cpu < 0 */
/* TASK switched in on CPU at TIME (a switch record, or sched_switch's next); PREV_TID is the task
 * the IN record says left the cpu (-1: unknown). */
void rsp_runs_switch_in(rsp_model_builder *b, rsp_task_id task, int32_t cpu, uint64_t time, int32_t prev_tid);
/* The idle task switched in on CPU. */
void rsp_runs_idle_in(rsp_model_builder *b, int32_t cpu, uint64_t time);
/* TASK switched out of CPU at TIME; a sleep begins, with the state of the sched_switch seen for it
 * (rsp_runs_switch_state) and PREEMPT. NEXT_TID is the task the OUT record names as next (switch
 * records; 0 for idle, -1 when unknown). */
void rsp_runs_switch_out(rsp_model_builder *b, rsp_task_id task, int32_t cpu, uint64_t time, bool preempt,
                         int32_t next_tid);
/* An exec at TIME: OLD's run ends and NEW's begins on the same cpu, with no sleep between. */
void rsp_runs_exec(rsp_model_builder *b, rsp_task_id old_task, rsp_task_id new_task, int32_t cpu, uint64_t time);
/* A sched_switch tracepoint (the current event) with prev = TASK and STATE at TIME. */
void rsp_runs_switch_state(rsp_model_builder *b, rsp_task_id task, uint64_t time, char state);
/* A sched_waking (RSP_WAKE_WAKING) or sched_wakeup(_new) (RSP_WAKE_WAKEUP) of TASK onto
 * TARGET_CPU (-1: unknown). */
void rsp_runs_wakeup(rsp_model_builder *b, rsp_task_id task, uint64_t time, uint8_t kind, int32_t target_cpu);
/* An event of TASK in its own context on CPU at TIME: with the tracepoint alone, infers a missing
 * switch-in; with switch records, a task seen on a cpu before its first switch record was
 * running when the recording began. */
void rsp_runs_evidence(rsp_model_builder *b, rsp_task_id task, int32_t cpu, uint64_t time);
/* A cpu-clock sample of TASK on CPU at TIME. */
void rsp_runs_sample(rsp_model_builder *b, rsp_task_id task, int32_t cpu, uint64_t time);
/* Closes open runs at the last event, drops trailing sleeps, builds the per-task indexes. */
void rsp_runs_finish(rsp_model_builder *b);

/* loss.c */
/* A recording's evsel: notes tracepoints that were sampled (frequency mode or period > 1). */
void rsp_loss_note_evsel(rsp_model_builder *b, const rsp_evsel *evsel);
/* PERF_RECORD_LOST and PERF_RECORD_LOST_SAMPLES. */
void rsp_loss_record(rsp_model_builder *b, const rsp_event *ev);
/* After the last event: the counters derived from the finished runs and sleeps. */
void rsp_loss_finish(rsp_model *m);
/* What the reader counted (out-of-order events). */
void rsp_loss_from_reader(rsp_model *m, const rsp_reader_stats *stats);
/* A sleep that should have ended with a wakeup (blocked, not preempted, not dead). */
bool rsp_sleep_expects_wakeup(const rsp_sleep *sleep);
