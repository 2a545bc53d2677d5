/* The model's internals: the model's storage and the builder that turns events into it. */
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
  uint64_t time_first, time_last;
};

/* Builder-only state of a task, parallel to model->tasks. */
typedef struct rsp_task_state {
  rsp_run_id open_run;     /* the run in progress, or RSP_NO_ID */
  rsp_run_id last_run;     /* the last run ended */
  rsp_sleep_id open_sleep; /* the sleep since last_run ended, or RSP_NO_ID */
  uint64_t pending_state_time; /* a sched_switch (prev = this task) not yet matched to a sleep */
  char pending_state;
} rsp_task_state;

typedef enum { CPU_UNKNOWN, CPU_IDLE, CPU_TASK } rsp_cpu_kind;

typedef struct rsp_cpu_state {
  rsp_cpu_kind kind;
  rsp_task_id task; /* when kind == CPU_TASK */
} rsp_cpu_state;

typedef struct rsp_model_builder {
  rsp_model *m;
  rsp_model_options opts;
  bool use_switch_records;
  GArray *tstate;        /* rsp_task_state */
  GHashTable *tid_task;  /* tid -> current generation's task id + 1 */
  GArray *cpus;          /* rsp_cpu_state by cpu */
  GHashTable *evsels;    /* const rsp_evsel * -> evsel info (model.c) */
} rsp_model_builder;

/* model.c: the internal entry point, also used by the unit tests with fabricated events.
 * USE_SWITCH_RECORDS says where runs come from: PERF_RECORD_SWITCH* or sched:sched_switch. */
rsp_model_builder *rsp_model_builder_new(const rsp_model_options *options, bool use_switch_records);
void rsp_model_builder_feed(rsp_model_builder *b, const rsp_event *ev);
rsp_model *rsp_model_builder_finish(rsp_model_builder *b); /* frees B */

/* tasks.c */
const char *rsp_model_intern(rsp_model *m, const char *s);
/* The current generation of TID, created when unknown (PID may be -1: unknown). */
rsp_task_id rsp_tasks_for_tid(rsp_model_builder *b, int32_t pid, int32_t tid);
rsp_task_id rsp_tasks_lookup(const rsp_model_builder *b, int32_t tid); /* RSP_NO_ID when unknown */
void rsp_tasks_fork(rsp_model_builder *b, const rsp_event *ev);
/* Returns the new generation on exec (RSP_NO_ID otherwise); the caller moves its run. */
rsp_task_id rsp_tasks_comm(rsp_model_builder *b, const rsp_event *ev, rsp_task_id *old_task);
void rsp_tasks_exit(rsp_model_builder *b, const rsp_event *ev);
/* TASK is named COMM from TIME on (a COMM record, or a tracepoint's comm field). */
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
void rsp_runs_begin(rsp_model_builder *b, rsp_task_id task, int32_t cpu, uint64_t time, uint32_t flags);
/* Ends TASK's run; a sleep starts unless BY_EXEC, with the state of a sched_switch seen inside the
 * run (rsp_runs_switch_state) and PREEMPT from the switch record. */
void rsp_runs_end(rsp_model_builder *b, rsp_task_id task, uint64_t time, bool preempt, bool by_exec);
void rsp_runs_set_idle(rsp_model_builder *b, int32_t cpu, uint64_t time);
/* A sched_switch tracepoint with prev = TASK and STATE at TIME. */
void rsp_runs_switch_state(rsp_model_builder *b, rsp_task_id task, uint64_t time, char state);
void rsp_runs_wakeup(rsp_model_builder *b, rsp_task_id task, uint64_t time);
/* An event of TASK in its own context on CPU (tracepoint mode): infers a missing switch-in. */
void rsp_runs_evidence(rsp_model_builder *b, rsp_task_id task, int32_t cpu, uint64_t time);
void rsp_runs_sample(rsp_model_builder *b, rsp_task_id task, int32_t cpu, uint64_t time);
/* Closes open runs at the last event, drops trailing sleeps, builds the per-task indexes. */
void rsp_runs_finish(rsp_model_builder *b);
