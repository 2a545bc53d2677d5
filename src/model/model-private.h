/* The model's internals: its storage and the builder that turns events into it. */
#pragma once

#include "model/id-table.h"
#include "model/model.h"

#include <pthread.h>

struct rsp_model {
  GThread *releasing;    /* frees what building it needed and it does not (joined by rsp_model_free) */
  pthread_mutex_t cpu_runs_lock; /* cpu-runs.c (plain pthreads, which ThreadSanitizer follows; GLib's g_once it
                                  * does not): guards the two below */
  rsp_cpu_runs *cpu_runs;   /* built when first asked for (NULL until then) */
  GThread *cpu_runs_thread; /* ...or ahead, on this thread (joined by rsp_model_free) */
  GStringChunk *strings; /* interned strings: comms, evsel names */
  GStringChunk *frame_strings; /* the frames' (stacks.c: interned on the stacks' thread while the model's interns in
                                * STRINGS) */
  GArray *tasks;         /* rsp_task */
  GArray *runs;          /* rsp_run, in start order */
  GArray *sleeps;        /* rsp_sleep, in start order */
  GArray *comms;         /* rsp_comm_change, in time order */
  GArray *task_runs;     /* rsp_run_id grouped by task (rsp_task.first_run_, n_runs) */
  GArray *task_sleeps;   /* rsp_sleep_id grouped by task */
  /* The start of each run of task_runs and of each sleep of task_sleeps, beside them: the searches by time
   * (rsp_model_run_at and its kind, a million per analysis of a 2.3M-event recording) read one flat array
   * instead of two arrays and the run */
  GArray *task_run_starts, *task_sleep_starts; /* uint64_t */
  GArray *task_comms;    /* uint32_t comm change index grouped by task */
  rsp_model_loss loss;
  rsp_runs_source source;
  uint64_t n_switch_events;
  uint64_t n_events;
  uint64_t time_first, time_last;
  bool windowed;          /* a time window's model: time_first is the window's first event, origin the */
  uint64_t origin;        /* recording's start (rsp_model_time_first) */
  uint64_t window_lo, window_hi;
  /* stacks.c */
  GArray *frames;       /* rsp_model_frame, by frame id */
  GArray *stack_frames; /* uint32_t frame ids of every stack, concatenated */
  GArray *stacks;       /* rsp_stack_span, by stack id */
  GArray *samples;      /* rsp_sample, grouped by run */
  /* links.c */
  GArray *links;        /* rsp_link, grouped by to_run (run order), by time within */
  GArray *run_out_first;/* uint32_t per run + 1: offsets into run_out */
  GArray *run_out;      /* rsp_link_id grouped by from_run */
  /* disk-io.c, network.c */
  GArray *disk_ops;     /* rsp_disk_op, in insert (first seen) order */
  GArray *net_ops;      /* rsp_net_op, in start order */
  GArray *sock_owners;  /* rsp_sock_owner by (sk, time) */
  GArray *irq_spans;    /* interrupts.c: rsp_irq_span, in start order after finish */
  GArray *irq_served;   /* rsp_irq_served, in time order */
  int32_t workload_pid; /* workload.c: -1 when unknown */
  uint8_t workload_source; /* rsp_workload_source */
  const char *workload_command; /* interned; NULL when perf's header does not say */
  /* sample-source.c */
  const char *sample_event;       /* interned name of the sampling event runs' samples come from */
  GPtrArray *other_sample_events; /* interned names of the other sampling events (not used) */
  char **reader_warnings;         /* what the reader tolerated (a bad optional feature, a junk tail...) */
  /* dso-status.c */
  GHashTable *dso_status; /* dso of an unresolved user frame -> rsp_dso_status + 1; NULL: none known */
};

typedef struct rsp_sock_owner {
  uint64_t sk, time;
  rsp_task_id task;
} rsp_sock_owner;

typedef struct rsp_stack_span {
  uint32_t first, n; /* into stack_frames */
  uint32_t classes;  /* RSP_FRAMES_* of its frames */
} rsp_stack_span;

/* Kinds of frames that tell why a task woke or what it slept in (stacks.c has the names). */
enum {
  RSP_FRAMES_TIMER = 1 << 0,       /* hrtimer_wakeup, process_timeout, it_real_fn... */
  RSP_FRAMES_IRQ = 1 << 1,         /* interrupt or softirq entry: common_interrupt, __do_softirq... */
  RSP_FRAMES_SIGNAL = 1 << 2,      /* kill, tgkill, signal_wake_up_state... */
  RSP_FRAMES_TIMED_SLEEP = 1 << 3, /* nanosleep, clock_nanosleep... */
  RSP_FRAMES_WAIT = 1 << 4,        /* wait4, waitid, do_wait... */
  RSP_FRAMES_DISK_WAKE = 1 << 5,   /* bio_endio, blk_mq_end_request... */
  RSP_FRAMES_TASK_PATH = 1 << 6,   /* back in task context after an interrupt: exit_to_user_mode_loop,
                                      get_signal, do_exit... */
  RSP_FRAMES_IN_IRQ = 1 << 7,      /* a stack's innermost IRQ frame comes before (inside) any TASK_PATH
                                      one: its top runs in interrupt context (per stack, not per frame) */
  RSP_FRAMES_HARDIRQ = 1 << 8,     /* a hardware interrupt's entry or exit: common_interrupt, sysvec_* */
  RSP_FRAMES_BH_ENABLE = 1 << 9,   /* a task ran pending softirqs itself: __local_bh_enable_ip, do_softirq */
  RSP_FRAMES_LOOP_CUT = 1 << 11,   /* the raw chain looped on itself and was cut (per stack) */
  RSP_FRAMES_FUTEX_WAIT = 1 << 12, /* a futex wait (pthread_cond_wait, sem_wait...): futex_wait, futex_do_wait... */
  RSP_FRAMES_IN_TASK_SOFTIRQ = 1 << 10, /* IN_IRQ, but the softirq runs in the task's own context, reached from
                                      its syscall when it re-enabled bottom halves (no hardware interrupt
                                      on the stack): on loopback, the sender delivering its own packet */
};

/* Interrupt context of an event, from irq:irq_handler_entry/exit and irq:softirq_entry/exit on its
 * cpu: for wake events that carry no callchain (the ftrace capture's, perf record without -g). */
enum {
  RSP_IRQ_CTX_NONE = 0,      /* no interrupt tracepoint open on the cpu (or none recorded) */
  RSP_IRQ_CTX_HARDIRQ = 1,   /* inside irq_handler_entry .. exit */
  RSP_IRQ_CTX_SOFTIRQ = 2,   /* inside a softirq run at the end of a hardware interrupt */
  RSP_IRQ_CTX_TASK_SOFTIRQ = 3, /* inside a softirq the running task ran itself (no hardirq just before) */
};

/* The context of a wake event (sched_waking or sched_wakeup) of a sleep. */
typedef struct rsp_wake_ctx {
  uint64_t time;          /* 0: none */
  rsp_task_id waker;      /* the task in whose context it fired, RSP_NO_ID: the idle task */
  rsp_run_id waker_run;   /* that task's open run then (builder ids before finish: remapped) */
  rsp_stack_id stack;     /* its callchain */
  uint8_t irq;            /* RSP_IRQ_CTX_* per the interrupt tracepoints of its cpu */
} rsp_wake_ctx;

/* Builder-side facts about a sleep, parallel to model->sleeps (before trailing sleeps are dropped):
 * the wake event that tells most about who woke it. A sched_waking fires in the waker's context;
 * sched_wakeup may fire on the target cpu (an IPI on idle). Preferred: a waking with a callchain,
 * then a wakeup with one, then a waking, then a wakeup; the first of equals. */
typedef struct rsp_sleep_facts {
  rsp_wake_ctx wake;
  uint8_t score; /* (callchain ? 2 : 0) + (waking ? 1 : 0) + 1; 0: none yet */
} rsp_sleep_facts;

/* A raw socket event, kept for the network pass. */
typedef enum { NET_SEND, NET_RECV, NET_DATA_READY, NET_STATE } rsp_net_kind;
typedef struct rsp_net_event {
  uint64_t time;
  uint64_t sk;
  rsp_task_id task;  /* the context task (RSP_NO_ID: idle/irq) */
  uint8_t kind;      /* rsp_net_kind */
  uint16_t protocol, sport, dport;
  uint16_t family;   /* AF_* of the socket, 0 when the event did not say */
  const char *remote; /* NET_STATE: interned "addr:port" */
} rsp_net_event;

/* Builder-only state of a task, parallel to model->tasks. */
typedef struct rsp_task_state {
  rsp_run_id open_run;     /* the run in progress, or RSP_NO_ID */
  rsp_run_id last_run;     /* the last run ended, or RSP_NO_ID */
  rsp_sleep_id open_sleep; /* the sleep since last_run ended, or RSP_NO_ID */
  /* a sched_switch with prev = this task not yet given to a sleep */
  uint64_t pending_state_time;
  uint64_t pending_state_event;
  rsp_stack_id pending_state_stack;
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
  /* Interrupt tracepoints (model.c): nesting of hardirq handlers, the softirq running */
  uint8_t hardirq_depth;
  bool in_softirq;
  uint8_t softirq_ctx;        /* RSP_IRQ_CTX_SOFTIRQ or _TASK_SOFTIRQ while in_softirq */
  uint64_t last_hardirq_exit;
  /* interrupts.c: the spans open on the cpu (builder indexes into irq_spans), innermost last */
  uint32_t irq_open[8];
  uint8_t n_irq_open;
} rsp_cpu_state;

typedef struct rsp_model_builder {
  rsp_model *m;
  rsp_model_options opts;
  bool use_switch_records;
  bool sampling;         /* a sample was fed: perf enabled the sampled events (tracepoints too) */
  uint64_t first_sampled;/* the first sample or switch record's time (model.c, note_start); 0: none */
  uint64_t event;        /* ordinal of the event being fed (rsp_sleep.switch_event) */
  GArray *tstate;        /* rsp_task_state, by task id */
  GHashTable *tid_task;  /* tid -> current generation's task id + 1 */
  uint32_t *tid_task_flat; /* the same for 0 <= tid < tid_task_flat_n, looked up without hashing */
  uint32_t tid_task_flat_n;
  GArray *cpus;          /* rsp_cpu_state, by cpu */
  GPtrArray *evsels;     /* evsel info (model.c), by rsp_evsel.index */
  /* The context of the event being fed (model.c sets them before dispatching a sample). */
  rsp_task_id cur_task;  /* the task in whose context it fired, RSP_NO_ID: idle */
  rsp_stack_id cur_stack;/* its interned callchain, RSP_NO_ID: none or not wanted */
  uint8_t cur_irq;       /* RSP_IRQ_CTX_* of its cpu */
  /* stacks.c */
  struct rsp_symbolizer *sym; /* not owned; NULL: no symbolization (tests may set fake_symbol) */
  const char *(*fake_symbol)(uint64_t addr, void *data); /* tests: names an address */
  void *fake_symbol_data;
  rsp_id_table frame_ids; /* frame ids by their keys (frame_keys) */
  GArray *frame_keys;     /* struct frame_key by frame id (stacks.c) */
  rsp_id_table stack_ids; /* stack ids by their frame-id sequences (in the model's stack_frames) */
  GHashTable *chain_ids; /* (pid, raw callchain) -> stack id + 1 (a ticket + 1 with a stack thread) */
  struct rsp_last_chain *last_chains; /* each thread's last chain per evsel found in chain_ids (stacks.c) */
  struct rsp_key_block *keys;           /* chain_ids' keys, freed with it (stacks.c) */
  /* stack-thread.c: symbolizing and interning new chains on a thread of their own. While it runs, the stack ids
   * the model keeps (cur_stack, and what it goes to) are tickets, one per new raw chain, turned into stack ids by
   * rsp_stack_thread_settle at the model's end. NULL: stacks are interned as the events come. */
  struct rsp_stack_thread *stack_thread;
  uint32_t n_tickets;
  GArray *frame_classes; /* uint32_t RSP_FRAMES_* by frame id */
  const char *unknown_dso, *unknown_label; /* frame_id's last "[unknown in X]" label (interned) and its dso */
  uint32_t nowhere_id;                      /* the frame of a user address in no mapping, + 1 (0: none yet) */
  /* runs.c */
  GArray *sleep_facts;   /* rsp_sleep_facts by builder sleep id */
  GArray *run_remap;     /* uint32_t builder run id -> final run id (after finish) */
  GArray *sleep_remap;   /* uint32_t builder sleep id -> final sleep id or RSP_NO_ID */
  /* disk-io.c */
  /* disk-io.c: (dev, sector) -> the last op not completed, open-addressed (a GBytes key per block event was a
   * malloc, a copy and a free each) */
  struct rsp_disk_slot *disk_pending;
  uint32_t disk_pending_mask, disk_pending_n;
  /* network.c */
  GArray *net_events;    /* rsp_net_event */
  /* workload.c */
  struct rsp_workload_builder *workload;
  /* sample-source.c */
  GPtrArray *sample_candidates;   /* const rsp_evsel * that sample running code */
  const rsp_evsel *sample_source; /* the one whose samples go to runs, chosen at the first sample */
} rsp_model_builder;
typedef struct rsp_workload_builder rsp_workload_builder;

/* model.c: the internal entry point, also used by the unit tests with fabricated events: feed
 * every event of a recording in order, then finish. USE_SWITCH_RECORDS says where runs come from:
 * PERF_RECORD_SWITCH* records, or sched:sched_switch with the missing switch-ins inferred. */
rsp_model_builder *rsp_model_builder_new(const rsp_model_options *options, bool use_switch_records);
void rsp_model_builder_feed(rsp_model_builder *b, const rsp_event *ev);
rsp_model *rsp_model_builder_finish(rsp_model_builder *b); /* frees B */

/* sample-source.c: -1 when EVSEL's samples say nothing of running code (tracepoints, dummy...),
 * else its rank as a source of run samples (0 best: cpu-clock). */
int rsp_sample_source_rank(const rsp_evsel *evsel);
void rsp_sample_source_note(rsp_model_builder *b, const rsp_evsel *evsel); /* at classify time */
/* Whether a sample of EVSEL (a sampling event) goes to runs; chooses the source at the first. */
bool rsp_sample_source_is_chosen(rsp_model_builder *b, const rsp_evsel *evsel);
void rsp_sample_source_finish(rsp_model_builder *b); /* names them in the model */
/* workload.c: which process the recording was made for. */
void rsp_workload_init(rsp_model_builder *b);
/* perf's HEADER_CMDLINE (NULL-terminated words; NULL: none). */
void rsp_workload_set_cmdline(rsp_model_builder *b, const char *const *cmdline);
/* FILE.meta named PID. */
void rsp_workload_set_metadata(rsp_model_builder *b, int32_t pid, const char *command);
/* FILE.meta says the recording is system-wide with no workload (rsp-record -a, mode=all). */
void rsp_workload_set_system_wide(rsp_model_builder *b);
/* A COMM record (perf-exec's name, execs). */
void rsp_workload_comm(rsp_model_builder *b, const rsp_event *ev);
void rsp_workload_finish(rsp_model_builder *b);

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
/* In COUNT elements of STRIDE bytes sorted by the uint64_t each begins with (a time), how many begin before KEY
 * (OR_EQUAL: at or before it): the index of the first one after. */
static inline size_t rsp_count_before(const void *base, size_t count, size_t stride, uint64_t key, bool or_equal)
{
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    uint64_t t = *(const uint64_t *)(const void *)((const char *)base + mid * stride);
    if (t < key || (or_equal && t == key))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

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
/* A sample of the sample source (cpu-clock, cycles...) of TASK on CPU at TIME. */
void rsp_runs_sample(rsp_model_builder *b, rsp_task_id task, int32_t cpu, uint64_t time);
/* Closes open runs at the last event, drops trailing sleeps, builds the per-task indexes; cuts what
 * began long before the first sample or switch (a stray timestamp) to begin there. */
void rsp_runs_finish(rsp_model_builder *b);
/* The recording's start as rsp_runs_finish decides it from the earliest timestamp and the earliest sample or
 * switch record's (a windowed model, which read neither, gets them from the reader). */
uint64_t rsp_runs_recording_start(uint64_t time_first, uint64_t first_sampled);

/* runs.c: a sample's stack is b->cur_stack. */

/* stacks.c */
void rsp_stacks_init(rsp_model_builder *b);
void rsp_stacks_free_builder(rsp_model_builder *b);
/* The interned stack of EV's callchain (context task PID), or RSP_NO_ID. */
rsp_stack_id rsp_stacks_of_event(rsp_model_builder *b, const rsp_event *ev);
/* The stack of EV's callchain of NR words (cut_self_loop'ed; RAW_NR before the cut), symbolized and interned. */
rsp_stack_id rsp_stacks_resolve(rsp_model_builder *b, const rsp_event *ev, uint32_t nr, uint32_t raw_nr,
                                bool *nowhere);
const char *rsp_model_intern_frame(rsp_model *m, const char *s);

/* stack-thread.c */
/* Starts B's stacks' thread, which opens B->sym on READER with OPTIONS (copied) first (events fed from here on). */
void rsp_stack_thread_start(rsp_model_builder *b, rsp_reader *reader, const rsp_symbolizer_options *options);
/* Hands it EV to observe (the symbolizer follows the maps in the events' order). */
void rsp_stack_thread_observe(rsp_model_builder *b, const rsp_event *ev);
/* Hands it the new chain of EV, NR words (RAW_NR before cut_self_loop), as ticket B->n_tickets++ (returned). */
uint32_t rsp_stack_thread_chain(rsp_model_builder *b, const rsp_event *ev, uint32_t nr, uint32_t raw_nr);
/* Waits for it, and turns every ticket the model holds into its stack id. */
void rsp_stack_thread_settle(rsp_model_builder *b);
/* The RSP_FRAMES_* classes of STACK's frames (0 for RSP_NO_ID). */
uint32_t rsp_stack_classes(const rsp_model *m, rsp_stack_id stack);

/* dso-status.c: keeps what SYM found of the files of the model's unresolved user frames (SYM may be
 * NULL: nothing kept). */
void rsp_dso_status_collect(rsp_model *m, const rsp_symbolizer *sym);
void rsp_dso_status_free(rsp_model *m);
/* Appends to OUT one note per binary whose samples name no function: how many, why, what to do. */
void rsp_dso_symbol_notes(const rsp_model *m, GPtrArray *out);

/* disk-io.c */
typedef enum { DISK_INSERT, DISK_ISSUE, DISK_COMPLETE } rsp_disk_kind;
/* Returns the operation's id (RSP_NO_ID: none). */
uint32_t rsp_disk_event(rsp_model_builder *b, rsp_disk_kind kind, uint64_t time, uint32_t dev, uint64_t sector,
                        uint32_t bytes, const char *rwbs);
/* After runs and sleeps are final: completes inferred, sleep ends by disk. */
void rsp_disk_finish(rsp_model_builder *b);

/* interrupts.c: the spans of interrupt handlers and softirqs, and what they served */
void rsp_irq_init(rsp_model *m);
void rsp_irq_free(rsp_model *m);
/* An irq_handler_entry (KIND hardirq, VEC the irq, NAME the handler) or softirq_entry on CPU. */
void rsp_irq_enter(rsp_model_builder *b, int32_t cpu, uint64_t time, rsp_irq_kind kind, uint32_t vec,
                   const char *name, bool in_task);
void rsp_irq_exit(rsp_model_builder *b, int32_t cpu, uint64_t time, rsp_irq_kind kind);
/* Something the innermost span open on CPU served (nothing when none is open). */
void rsp_irq_served_add(rsp_model_builder *b, int32_t cpu, uint64_t time, rsp_irq_served_kind kind, uint32_t id,
                        uint64_t sk);
void rsp_irq_finish(rsp_model_builder *b);

/* network.c */
void rsp_net_event_add(rsp_model_builder *b, const rsp_net_event *ev);
void rsp_net_finish(rsp_model_builder *b);

/* links.c */
#define RSP_LINK_ENDS_SLEEP_ (1u << 7) /* builder only: this link is its sleep's wake_link */
rsp_link_id rsp_links_add(rsp_model *m, const rsp_link *link);

/* Runs A(DATA_A) and B(DATA_B), B on a thread of its own when two threads are wanted (else after A): both are done
 * on return. For the halves of the model's last steps, which touch disjoint data. (A thread costs about what 10k
 * elements do; it is started for small models too, so that every test goes the way big models go.) */
void rsp_model_cpu_runs_free(rsp_model *m);

void rsp_model_in_parallel(void (*a)(void *), void *data_a, void (*b)(void *), void *data_b);
/* Where to split the tasks in two parts of about as many of their runs (RUNS) and sleeps (SLEEPS), for
 * rsp_model_in_parallel: the first task of the second part. */
guint rsp_model_tasks_half(const rsp_model *m, bool runs, bool sleeps);
/* The first run of TASK starting at or after TIME, else RSP_NO_ID; the last run starting at or before. */
rsp_run_id rsp_links_run_from(const rsp_model *m, rsp_task_id task, uint64_t time);
rsp_run_id rsp_links_run_before(const rsp_model *m, rsp_task_id task, uint64_t time);
/* Builds every link and sleep end cause (after runs_finish), then the link indexes. */
void rsp_links_finish(rsp_model_builder *b);

/* sleep-ends.c */
void rsp_sleep_ends_finish(rsp_model_builder *b);

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

/* event-pipeline.c: the reader on a thread of its own, handing events over in batches. */
typedef struct rsp_event_pipeline rsp_event_pipeline;
/* Whether to read on a second thread: not for a pipe-mode stream, not on one cpu, not when the
 * environment says RSP_THREADS=1 (RSP_THREADS=2 forces it). */
bool rsp_event_pipeline_wanted(const rsp_reader *reader);
rsp_event_pipeline *rsp_event_pipeline_start(rsp_reader *reader);
/* The next event, valid until the next call; NULL at the end, or on the reader's error (ERROR set,
 * after every event that came before it). */
const rsp_event *rsp_event_pipeline_next(rsp_event_pipeline *pipeline, GError **error);
/* Stops the reader thread (reading no further when the end was not reached) and frees. */
void rsp_event_pipeline_finish(rsp_event_pipeline *pipeline);
