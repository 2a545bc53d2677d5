/* rsp model: time-ordered events -> tasks, runs and sleeps, with loss accounting.
 *
 * The one public header of src/model/. Tools and upper layers include only this (and the reader's).
 * Everything is stored flat: tasks, runs, sleeps and comm changes in arrays indexed by integer
 * ids, strings interned once in the model's arena, all released at once by rsp_model_free().
 * Times are the recording's (CLOCK_MONOTONIC with perf record -k mono), in nanoseconds.
 */
#pragma once

#include "reader/reader.h"
#include "symbols/symbols.h"

G_BEGIN_DECLS

#include "model/constants.h"

typedef struct rsp_model rsp_model;

/* ---- Ids ---------------------------------------------------------------------------------- */
typedef uint32_t rsp_task_id;
typedef uint32_t rsp_run_id;
typedef uint32_t rsp_sleep_id;
typedef uint32_t rsp_stack_id;   /* an interned, symbolized callchain */
typedef uint32_t rsp_sample_id;  /* a sample (cpu-clock, cycles...) attached to a run */
typedef uint32_t rsp_link_id;
typedef uint32_t rsp_disk_op_id;
typedef uint32_t rsp_net_op_id;
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
  uint32_t n_samples; /* samples of the sample source inside (or at most the attach window after) */
  uint32_t flags;     /* RSP_RUN_* */
  rsp_sample_id first_sample; /* its samples are first_sample .. first_sample + n_samples - 1 */
  rsp_link_id first_link_in;  /* the links that end at this run: rsp_model_run_links_in() */
} rsp_run;

/* A sample of the sample source (rsp_model_sample_event: cpu-clock, cycles...), attached to a run
 * (paper, "Runs and Sleeps"). */
typedef struct rsp_sample {
  uint64_t time;
  rsp_run_id run;
  rsp_stack_id stack; /* RSP_NO_ID when the sample had no callchain */
} rsp_sample;

enum {
  RSP_WAKE_NONE = 0,
  RSP_WAKE_WAKING = 1, /* sched:sched_waking (try_to_wake_up began) */
  RSP_WAKE_WAKEUP = 2, /* sched:sched_wakeup or sched_wakeup_new (the task is runnable) */
};

/* Off-CPU time between two runs of one task. The time before a task's first run and after its
 * last one is no sleep, but for a task that existed before the recording and is first seen woken
 * (switch records only): it slept from the recording's start (before_start). */
/* How a sleep ended, as far as the trace tells (paper, "Categories"). */
typedef enum {
  RSP_SLEEP_END_UNKNOWN = 0,  /* no wakeup recorded, nothing else explains the end (also every sleep
                                 whose end was not classified: see rsp_model_loss.sleeps_end_unknown) */
  RSP_SLEEP_END_WOKEN,        /* woken by a run of another task (wake_link: a wakeup/exit link; an
                                 exit->wait guessed from a wait stack and a child's EXIT inside the sleep
                                 when the wakeup was lost) */
  RSP_SLEEP_END_DISK,         /* woken by the completion of a disk request (disk_op) */
  RSP_SLEEP_END_NETWORK,      /* woken by data or a connection on a socket (net_op) */
  RSP_SLEEP_END_INTERRUPT,    /* woken from an interrupt that no disk/network event explains:
                                 a wait "for" hardware */
  RSP_SLEEP_END_TIMEOUT,      /* woken by a timer (hrtimer/timer softirq, schedule_timeout, nanosleep
                                 expiring on its own): a wait that timed out. With the wakeup lost, a
                                 nanosleep-family sleep stack gives this guess (end_inferred) */
  RSP_SLEEP_END_PREEMPTED,    /* it never blocked: preempted (runnable all along) */
  RSP_SLEEP_END_SIGNAL,       /* woken by a signal (the waker ran kill/tgkill...) */
} rsp_sleep_end;
#define RSP_N_SLEEP_ENDS (RSP_SLEEP_END_SIGNAL + 1)
/* The end cause's key in every output ("unknown", "woken", "disk", "network", "interrupt", "timeout",
 * "preempted", "signal"); "?" for another value. */
const char *rsp_sleep_end_key(unsigned end);

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
  uint8_t end_cause;     /* rsp_sleep_end */
  bool end_inferred;     /* end_cause is a guess (the wakeup was lost; see rsp_model_loss) */
  bool before_start;     /* begun before the recording: start is the recording's start, and state,
                            stack and switch_event are unknown */
  rsp_stack_id stack;    /* the stack of the sched_switch that began it (RSP_NO_ID: none) */
  rsp_link_id wake_link; /* the link that ended it (wakeup, exit->wait, disk, network, interrupt), or
                            RSP_NO_ID */
  rsp_disk_op_id disk_op;/* the disk request whose completion ended it, or RSP_NO_ID */
  rsp_net_op_id net_op;  /* the network operation that ended it, or RSP_NO_ID */
} rsp_sleep;

/* ---- Stacks ---------------------------------------------------------------------------------
 * Callchains of samples and of the sched_switch that began each sleep, symbolized while the model
 * is built (the symbolizer follows the maps as they stream) and interned: equal chains share an id.
 * Frames are innermost first, context markers dropped, kernel frames then user frames. A frame is
 * interned by (function, dso) when resolved (addr is then the first address seen in it), by
 * (address, dso) when not; a user address in no recorded mapping (a frame-pointer walk through code built
 * without them reads stack words) is the one frame "[unknown]" in "[unknown]", as perf names it. */
typedef struct rsp_model_frame {
  const char *function; /* interned; "[unknown]" style "0x7f12..." text when unresolved */
  const char *dso;      /* interned; "[kernel.kallsyms]", a path, or "[unknown]" */
  const char *label;    /* interned; what a view draws: the function, or for an address no symbol names
                           "[unknown in BINARY]" (the dso's file name; "[unknown]" without one), so the
                           unnamed code of one binary is one frame, not a frame per address */
  uint64_t addr;
  bool kernel;
} rsp_model_frame;

uint32_t rsp_model_n_stacks(const rsp_model *model);
/* A stack's frames: N ids into the model's frame table, innermost first; rsp_frame_at reads the I-th.
 * (A stack holds ids, not copies: a recorded build's 1.3M stack frames took 53 MB as copies.) */
typedef struct rsp_stack_frames {
  const rsp_model_frame *table; /* the model's frames, by id */
  const uint32_t *ids;
  uint32_t n;
} rsp_stack_frames;
static inline const rsp_model_frame *rsp_frame_at(rsp_stack_frames s, uint32_t i)
{
  return &s.table[s.ids[i]];
}
/* The frames of STACK, innermost first (n 0 for RSP_NO_ID or an id the model does not hold). */
rsp_stack_frames rsp_model_stack(const rsp_model *model, rsp_stack_id stack);
/* The innermost frame of STACK (where a sample ran), NULL when it has none. */
const rsp_model_frame *rsp_model_stack_top(const rsp_model *model, rsp_stack_id stack);
/* The innermost user-space frame of STACK (the paper's label for a sleep), else its innermost
 * kernel frame that is not scheduler machinery (schedule, __schedule...), else NULL. */
const rsp_model_frame *rsp_model_stack_label(const rsp_model *model, rsp_stack_id stack);
/* The innermost kernel frame of STACK that is not scheduler machinery, else NULL. */
const rsp_model_frame *rsp_model_stack_kernel_site(const rsp_model *model, rsp_stack_id stack);
/* Where a sleep of STACK waited, in words: its label's function; for a user frame no symbol names (a
 * stripped go binary's runtime.futex: 0x46a160), the kernel function it waited in and the binary that
 * called it ("futex_do_wait (called from go, no symbols)"), which says more. WITH_DSO: a named function
 * is followed by its binary ("__poll (/usr/lib/x86_64-linux-gnu/libc.so.6)"), and a binary is named
 * by its path. The model's interned text or BUF (SIZE bytes); NULL when STACK names no frame. */
const char *rsp_model_wait_site(const rsp_model *model, rsp_stack_id stack, bool with_dso, char *buf, size_t size);
/* What the symbolizer found of the file DSO (a frame's dso) when one of its addresses in a stack
 * named no function: missing, stripped, another build... (RSP_DSO_NOT_READ when not known). */
rsp_dso_status rsp_model_dso_status(const rsp_model *model, const char *dso);
/* Whether DSO (a frame's) is no file: no mapping recorded ("[unknown]"), or anonymous memory, where a JIT puts the
 * code it generates ("//anon", "[anon:...]", "/memfd:...", "/anon_hugepage"): no file can name its functions, only
 * a perf map the program writes (/tmp/perf-PID.map). */
bool rsp_dso_is_anonymous(const char *dso);
/* Whether STACK's raw callchain looped on itself (a frame pointer pointing at itself: the same return
 * address to the chain's end) and was cut after the first repeat: its callers are unknown. */
bool rsp_model_stack_looped(const rsp_model *model, rsp_stack_id stack);
/* Whether some frame of STACK is the function NAME. */
bool rsp_model_stack_has(const rsp_model *model, rsp_stack_id stack, const char *name);

/* ---- Links ----------------------------------------------------------------------------------
 * "A link marks one run causing another" (paper, "Recursive Systemic Profiler"). */
typedef enum {
  RSP_LINK_WAKEUP,     /* sched_waking/sched_wakeup in the waker's run -> the wakee's next run */
  RSP_LINK_FORK,       /* the forking run -> the child's first run */
  RSP_LINK_EXEC,       /* the run that exec'd -> the new generation's first run (no sleep between) */
  RSP_LINK_EXIT_WAIT,  /* the exiting task's last run -> the parent's run that returned from wait */
  RSP_LINK_INTERRUPT,  /* "horizontal": the run before -> the run after an interrupt-caused wake of
                          the same task (from_run and to_run are the same task's); also made for
                          sleeps that ended by a TIMEOUT (a timer interrupt) */
  RSP_LINK_DISK,       /* the issuing run -> the run after the sleep the completion ended */
  RSP_LINK_NETWORK,    /* the sending run -> the run the reply woke (net_op) */
} rsp_link_kind;

enum {
  RSP_LINK_INFERRED = 1 << 0, /* no event shows it directly (e.g. wakeup lost, matched by stack) */
};

typedef struct rsp_link {
  uint64_t time;      /* the waking/fork/exec/exit/completion event's time */
  rsp_run_id from_run;/* RSP_NO_ID when the cause ran in no known run (interrupt on an idle cpu) */
  rsp_run_id to_run;  /* the run it caused (RSP_NO_ID when the recording ended first) */
  rsp_sleep_id sleep; /* the sleep of to_run's task it ended, or RSP_NO_ID (fork, exec) */
  uint32_t op;        /* rsp_disk_op_id or rsp_net_op_id for DISK / NETWORK, else RSP_NO_ID */
  uint8_t kind;       /* rsp_link_kind */
  uint8_t flags;      /* RSP_LINK_* */
} rsp_link;

uint32_t rsp_model_n_links(const rsp_model *model);
/* Links are grouped by the run they end at, in run (start) order, by time within a run; links
 * whose to_run is RSP_NO_ID come last. (Strict time order and consecutive ids per run cannot both
 * hold; since a link precedes the run it causes, this is close to time order.) A sleep ended by
 * the network on loopback has two incoming links: NETWORK (its wake_link) and the WAKEUP from the
 * sender's run that fired it. */
const rsp_link *rsp_model_link(const rsp_model *model, rsp_link_id id);
/* The links that end at RUN (usually 0 or 1); *N set. Ids are consecutive. */
rsp_link_id rsp_model_run_links_in(const rsp_model *model, rsp_run_id run, uint32_t *n);
/* The links that leave RUN; *N set. */
const rsp_link_id *rsp_model_run_links_out(const rsp_model *model, rsp_run_id run, uint32_t *n);
/* The run of TASK covering TIME (start <= TIME < end), else RSP_NO_ID. */
rsp_run_id rsp_model_run_at(const rsp_model *model, rsp_task_id task, uint64_t time);
/* The sleep of TASK covering TIME, else RSP_NO_ID. */
rsp_sleep_id rsp_model_sleep_at(const rsp_model *model, rsp_task_id task, uint64_t time);

/* The runs of each cpu, in start order (a cpu's runs do not overlap), for searches by time (cpu-runs.c). Cpus are
 * numbered by index: cpus[i] is the cpu of index i (ascending); its runs are runs[first[i] .. first[i + 1]), their
 * starts beside them. */
typedef struct rsp_cpu_runs {
  uint32_t n_cpus;
  const int32_t *cpus;
  const uint32_t *first;
  const rsp_run_id *runs;
  const uint64_t *starts;
} rsp_cpu_runs;

/* Built when first asked for (thread-safe: a second caller waits for the first). */
const rsp_cpu_runs *rsp_model_cpu_runs(const rsp_model *model);
/* Starts building it on a thread of its own (when there are two), for a caller that will ask for it later. */
void rsp_model_cpu_runs_ahead(const rsp_model *model);
/* The index of CPU, or -1 when no run was on it. */
long rsp_model_cpu_index(const rsp_cpu_runs *cpu_runs, int32_t cpu);

/* ---- Disk I/O ------------------------------------------------------------------------------
 * From block_rq_insert / block_rq_issue / block_rq_complete matched by (dev, sector) (paper,
 * "Disk IO"). Missing events are inferred and marked. */
enum {
  RSP_DISK_NO_INSERT = 1 << 0,      /* no insert seen: insert_time = issue_time */
  RSP_DISK_ISSUE_INFERRED = 1 << 1, /* no issue seen: issued right after the insert (paper) */
  RSP_DISK_NO_COMPLETE = 1 << 2,    /* no completion seen (lost, or after the recording) */
  RSP_DISK_COMPLETE_INFERRED = 1 << 3, /* completion time taken from the wakeup of the sleep it ended */
};

typedef struct rsp_disk_op {
  uint64_t insert_time, issue_time, complete_time; /* queue = issue - insert; service = complete - issue */
  uint64_t sector;
  uint32_t dev;          /* the tracepoint's dev_t (MAJOR << 20 | MINOR) */
  uint32_t bytes;
  char rwbs[8];          /* "R", "WS", "RA"... */
  rsp_task_id task;      /* the task that issued it (the insert's, else the issue's context), or RSP_NO_ID */
  rsp_task_id issue_task;/* the context of its issue (a kworker dispatching the queue...), RSP_NO_ID: idle,
                            interrupt, or not seen */
  rsp_sleep_id sleep;    /* the sleep its completion ended, or RSP_NO_ID */
  uint32_t flags;        /* RSP_DISK_* */
} rsp_disk_op;

uint32_t rsp_model_n_disk_ops(const rsp_model *model);
const rsp_disk_op *rsp_model_disk_op(const rsp_model *model, rsp_disk_op_id id); /* in insert order */

/* ---- Network -------------------------------------------------------------------------------
 * Events: sock:sock_send_length (a send), sock:sock_recv_length (a receive: names the socket's
 * reader), sock:sk_data_ready (data queued for the reader), sock:inet_sock_set_state (ports, remote
 * address); rsp-record's kprobes rsp_net:tcp_data_tx/udp_data_tx (sends) and tcp_data_rx/udp_data_rx
 * (data in), and the paper's probe:tcp_sendmsg/udp_sendmsg/tcp_recvmsg... count the same way. A
 * socket belongs to the last task that sent or received on it; a sleep of that task ends by the
 * network when data became ready on it during the sleep, at most net_wake_window_ns before the
 * wakeup (or, the wakeup lost, the switch-in: end_inferred). On loopback the sender's own softirq
 * fires the wakeup: the sleep then has a NETWORK link (its wake_link) and a WAKEUP link.
 * An operation runs from the last send on a socket to the last receive-side wakeup that follows
 * it (paper, "Network"), matched by socket (the kernel's struct sock address). */
typedef struct rsp_net_op {
  uint64_t start, end;   /* last send before the reply; last wakeup of the reply */
  uint64_t skaddr;       /* the socket's kernel address */
  rsp_task_id task;      /* the task that sent (and was woken) */
  uint32_t n_wakeups;
  uint16_t protocol;     /* IPPROTO_TCP, IPPROTO_UDP, or 0 when unknown */
  uint16_t sport, dport; /* host order; 0 when the trace did not say */
  uint16_t family;       /* AF_UNIX (1), AF_INET (2), AF_INET6 (10), AF_NETLINK (16)..., or 0 when the trace did not say */
  const char *remote;    /* interned "addr:port" when the trace gave it (inet_sock_set_state), else NULL */
  uint32_t flags;        /* RSP_NET_* */
} rsp_net_op;

enum {
  RSP_NET_NO_SEND = 1 << 0, /* data arrived with no send seen on the socket: start = its arrival */
};

/* What carried OP: "tcp", "udp", "unix" (an AF_UNIX socket), "netlink", else NULL (the trace did not say). */
const char *rsp_net_op_protocol(const rsp_net_op *op);
/* Whether OP was on an AF_UNIX socket (a socketpair, X11, PostgreSQL's local socket): not the network. */
bool rsp_net_op_is_unix(const rsp_net_op *op);
/* What OP talked to, as the histograms and the explanation name it: "tcp 10.0.0.2:8080" (its protocol and remote
 * address), "udp port 53" (the port alone when the trace gave no address), "socket" (neither); in BUF (SIZE bytes). */
const char *rsp_net_op_peer(const rsp_net_op *op, char *buf, size_t size);
uint32_t rsp_model_n_net_ops(const rsp_model *model);
const rsp_net_op *rsp_model_net_op(const rsp_model *model, rsp_net_op_id id); /* in start order */

/* ---- Interrupts ----------------------------------------------------------------------------
 * From irq:irq_handler_entry/exit and irq:softirq_entry/exit: the time each hardware interrupt
 * handler and each softirq ran on a cpu, and what it served (the block completions, socket
 * deliveries and wakeups that fired inside it), for charging kernel work to whom it served
 * (pkprof, analysis/kernel-work.c). A span whose exit was lost is closed at its start. */
typedef uint32_t rsp_irq_span_id;
typedef enum { RSP_IRQ_HARDIRQ, RSP_IRQ_SOFTIRQ } rsp_irq_kind;
enum {
  RSP_IRQ_IN_TASK = 1 << 0,  /* a softirq the running task ran itself (local_bh_enable: loopback) */
  RSP_IRQ_END_LOST = 1 << 1, /* no exit seen (lost, or after the recording): end = start */
};
/* Softirq vectors (include/linux/interrupt.h). */
enum { RSP_SOFTIRQ_HI, RSP_SOFTIRQ_TIMER, RSP_SOFTIRQ_NET_TX, RSP_SOFTIRQ_NET_RX, RSP_SOFTIRQ_BLOCK,
       RSP_SOFTIRQ_IRQ_POLL, RSP_SOFTIRQ_TASKLET, RSP_SOFTIRQ_SCHED, RSP_SOFTIRQ_HRTIMER, RSP_SOFTIRQ_RCU };

typedef struct rsp_irq_span {
  uint64_t start, end;
  uint64_t self_ns;     /* end - start less the interrupts nested inside it */
  rsp_task_id task;     /* the task it interrupted (or that ran the softirq), RSP_NO_ID: idle */
  int32_t cpu;
  uint32_t vec;         /* hardirq: the irq number; softirq: the vector (RSP_SOFTIRQ_*) */
  const char *name;     /* interned: the handler's name ("virtio2-req.0") or the softirq's ("NET_RX") */
  uint8_t kind;         /* rsp_irq_kind */
  uint8_t flags;        /* RSP_IRQ_* */
} rsp_irq_span;

typedef enum {
  RSP_IRQ_SERVED_DISK,   /* a block request completed: id = rsp_disk_op_id */
  RSP_IRQ_SERVED_SOCKET, /* data queued on a socket: sk */
  RSP_IRQ_SERVED_WAKEUP, /* a task woken: id = rsp_task_id */
} rsp_irq_served_kind;

typedef struct rsp_irq_served {
  uint64_t time;
  uint64_t sk;          /* RSP_IRQ_SERVED_SOCKET: the socket's kernel address */
  rsp_irq_span_id span; /* the innermost span open on the event's cpu */
  uint32_t id;
  uint8_t kind;         /* rsp_irq_served_kind */
} rsp_irq_served;

uint32_t rsp_model_n_irq_spans(const rsp_model *model);
const rsp_irq_span *rsp_model_irq_span(const rsp_model *model, rsp_irq_span_id id); /* in start order */
uint32_t rsp_model_n_irq_served(const rsp_model *model);
const rsp_irq_served *rsp_model_irq_served(const rsp_model *model, uint32_t i); /* in time order */
/* The owner of socket SK at TIME: the last task that sent or received on it before (else after), as
 * the network pass saw it; RSP_NO_ID when none. */
rsp_task_id rsp_model_socket_owner(const rsp_model *model, uint64_t sk, uint64_t time);

typedef enum {
  RSP_RUNS_FROM_NOTHING,        /* neither switch records nor sched:sched_switch: no runs */
  RSP_RUNS_FROM_SWITCH_RECORDS, /* PERF_RECORD_SWITCH(_CPU_WIDE) (perf record --switch-events) */
  RSP_RUNS_FROM_SCHED_SWITCH,   /* the sched:sched_switch tracepoint, missing switch-ins inferred */
} rsp_runs_source;

/* ---- Loss accounting ------------------------------------------------------------------------
 * What the model could not see, or had to infer, counted. */
typedef struct rsp_model_loss {
  uint64_t inferred_switch_ins;   /* runs whose start was inferred (RSP_RUN_START_INFERRED) */
  uint64_t orphan_samples;        /* samples in no run (nor within the attach window) */
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
  uint64_t wakeups_without_run;   /* wakeup links whose waker ran in no known run */
  uint64_t disk_no_insert, disk_issue_inferred, disk_no_complete, disk_complete_inferred;
  uint64_t sleeps_end_inferred;   /* sleeps whose end cause was guessed (rsp_sleep.end_inferred) */
  uint64_t sleeps_end_unknown;    /* blocked sleeps with no wakeup and nothing to guess from */
  uint64_t overlaps_cut;          /* runs or sleeps that went past the start of the task's next one
                                     (records out of order, stray timestamps) and were cut there */
  uint64_t events_before_start;   /* runs and sleeps begun more than a second before the first sample
                                     or switch (a stray timestamp: cut to begin there), and execs
                                     stamped 0 amid the recording (no run starts at 0) */
  uint64_t idle_samples;          /* samples of the idle task (not a loss; for totals) */
  bool sampled_tracepoints;       /* some tracepoint was in frequency mode or period > 1: the
                                     kernel kept only some of its events, runs and sleeps are wrong */
  const char *sampled_tracepoint; /* the first such evsel's name, interned */
} rsp_model_loss;

/* ---- Building ------------------------------------------------------------------------------ */
typedef struct rsp_model_options {
  bool no_switch_records;     /* ignore PERF_RECORD_SWITCH*: build runs from sched:sched_switch */
  uint64_t sample_window_ns;  /* 0: RSP_SAMPLE_ATTACH_WINDOW_NS */
  uint64_t disk_wake_window_ns; /* 0: RSP_DISK_WAKE_WINDOW_NS */
  uint64_t net_wake_window_ns;  /* 0: RSP_NET_WAKE_WINDOW_NS */
  bool no_stacks;               /* do not symbolize (faster; stacks are all RSP_NO_ID) */
  const rsp_symbolizer_options *symbolizer; /* NULL: the defaults */
  /* Called now and then while building (at most ~100 times a second) with the byte offset reached
   * in the file and its size (0 when unknown, e.g. a pipe); return false to cancel: the build
   * then fails with G_IO_ERROR_CANCELLED. NULL: none. */
  bool (*progress)(uint64_t offset, uint64_t size, void *user_data);
  void *progress_data;
  /* rsp_model_load: read only the time window [window_t0, window_t1], ns from the recording's start (the
   * tools' --range T0:T1), and RSP_WINDOW_MARGIN_NS on each side (rsp_reader_options.window): on a big
   * recording, seconds instead of minutes. The window's start is taken like a recording's start (tasks
   * already running or asleep there); what happened before it is not in the model, but the names and maps
   * are, and rsp_model_time_first still reports the recording's start, so that times from it mean the same. */
  bool window;
  uint64_t window_t0, window_t1;
  bool window_no_index; /* ...without FILE.rsp-index (neither used nor written) */
} rsp_model_options;


/* How many threads rsp may use: RSP_THREADS when set (1: everything on the calling thread), else the
 * machine's processors. */
unsigned rsp_threads_wanted(void);

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
/* A model of a time window (rsp_model_options.window): true, with the span read ([*LO, *HI], margins
 * included, absolute); its events lie there, while rsp_model_time_first is the recording's start. */
bool rsp_model_window(const rsp_model *model, uint64_t *lo, uint64_t *hi);

const rsp_model_loss *rsp_model_loss_get(const rsp_model *model);
/* The sampling event whose samples are attached to runs ("cpu-clock/freq=997/", "cycles"...), NULL
 * when the recording sampled nothing. When several events sampled running code, one is used (a
 * clock, else cycles, else another hardware event, else a raw/PMU event; see sample-source.c) and
 * the others are listed here. */
const char *rsp_model_sample_event(const rsp_model *model);
uint32_t rsp_model_n_other_sample_events(const rsp_model *model);
const char *rsp_model_other_sample_event(const rsp_model *model, uint32_t i);
/* What the user must be told about this recording, one sentence each, the gravest first (sampled
 * tracepoints, LOST records, inferred runs...); NULL-terminated, free with g_strfreev(). */
char **rsp_model_loss_warnings(const rsp_model *model);

uint32_t rsp_model_n_tasks(const rsp_model *model);
const rsp_task *rsp_model_task(const rsp_model *model, rsp_task_id id);
/* The task that names process PID: its main thread (tid PID) after its last exec (the latest started; at equal
 * starts the later generation), else the latest started of its tasks (a JVM's latest is "GC Thread#1"); NULL when
 * PID has none. */
const rsp_task *rsp_model_process_task(const rsp_model *model, int32_t pid);
/* The rule of rsp_model_process_task for two tasks of one process, for a choice among some of them (those on
 * control paths): whether T names it better than BEST (NULL: yes). */
bool rsp_task_names_process_better(const rsp_task *t, const rsp_task *best);
/* Whether TASK is a kernel thread (kworker/, jbd2/, ksoftirqd/... by name, or a child of kthreadd). */
bool rsp_task_is_kernel_thread(const rsp_model *model, rsp_task_id task);
uint32_t rsp_model_n_runs(const rsp_model *model);
const rsp_run *rsp_model_run(const rsp_model *model, rsp_run_id id);   /* in start order */
uint32_t rsp_model_n_sleeps(const rsp_model *model);
const rsp_sleep *rsp_model_sleep(const rsp_model *model, rsp_sleep_id id); /* in start order */
uint32_t rsp_model_n_samples(const rsp_model *model);
const rsp_sample *rsp_model_sample(const rsp_model *model, rsp_sample_id id); /* grouped by run */
/* The process (pid) the recording was made for, and why that one (the first that applies):
 * rsp-record's metadata (FILE.meta [recording] workload_pid); the child perf record forked for its
 * command, named "perf-exec" until it exec'd that command (perf's HEADER_CMDLINE names it); the
 * process of "perf record -p PID"; the first exec of the command's name; in a system-wide recording
 * with no workload (rsp-record -a, perf record -a with no command or "sleep N" as its timer), the
 * process that ran the most (a guess: no kernel thread, not the recorder); else, nothing telling, the
 * first exec of the recording (a guess). -1 when none is known. */
typedef enum {
  RSP_WORKLOAD_NONE,
  RSP_WORKLOAD_METADATA,
  RSP_WORKLOAD_PERF_EXEC,
  RSP_WORKLOAD_RECORD_PID,
  RSP_WORKLOAD_COMMAND_EXEC,
  RSP_WORKLOAD_FIRST_EXEC,
  RSP_WORKLOAD_BUSIEST,
} rsp_workload_source;
int32_t rsp_model_workload_pid(const rsp_model *model);
rsp_workload_source rsp_model_workload_source(const rsp_model *model);
/* The command perf record ran, from its HEADER_CMDLINE (the words after its options, joined by
 * spaces), else NULL. */
const char *rsp_model_workload_command(const rsp_model *model);

/* The I-th run / sleep / comm change of TASK in time order (I < task->n_runs ...). */
rsp_run_id rsp_model_task_run(const rsp_model *model, rsp_task_id task, uint32_t i);
rsp_sleep_id rsp_model_task_sleep(const rsp_model *model, rsp_task_id task, uint32_t i);
/* All the runs / sleeps of TASK in time order at once: their ids (*IDS) and their starts (*STARTS), the model's own
 * arrays; returns how many (task->n_runs ...; 0 and NULLs for none). They do not overlap: each ends by the next
 * one's start. */
uint32_t rsp_model_task_runs(const rsp_model *model, rsp_task_id task, const rsp_run_id **ids, const uint64_t **starts);
uint32_t rsp_model_task_sleeps(const rsp_model *model, rsp_task_id task, const rsp_sleep_id **ids,
                               const uint64_t **starts);
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
  uint32_t sleep_ends[RSP_N_SLEEP_ENDS]; /* sleeps by end cause (rsp_sleep_end) */
  uint32_t sleeps_end_inferred;
} rsp_task_totals;

void rsp_model_task_totals(const rsp_model *model, rsp_task_id task, rsp_task_totals *out);

G_END_DECLS
