/* rsp analyses: model -> control paths and pseudo-stacks, categories, latency profiles.
 *
 * The one public header of src/analysis/. Views and tools include this and model/model.h.
 * Nothing here knows about GTK or drawing.
 */
#pragma once

#include "model/model.h"

G_BEGIN_DECLS

/* ---- Control paths and pseudo-stacks --------------------------------------------------------
 * Paper, "Pseudo-stacks and Control Paths" and "Recursive Stack Making": starting from the runs of
 * the process of interest (all its threads and exec generations), the thing that woke each sleep
 * becomes a child of that sleep when it fits inside it (within the tolerance), recursively; what
 * does not fit starts another control path. A pseudo-stack is the chain of sleeps from a path's
 * root down to one run: only its top element is a run.
 *
 * Stored flat: elements in an array; each element has its parent (the sleep it is a child of, or
 * none for a path's root level), its depth in the pseudo-stack (0 = the root level) and its path. */
typedef uint32_t rsp_path_id;
typedef uint32_t rsp_elem_id;

typedef enum {
  RSP_ELEM_RUN,   /* a run (id: rsp_run_id) */
  RSP_ELEM_SLEEP, /* a sleep, or several merged polls (id: the first rsp_sleep_id, n_merged) */
  RSP_ELEM_DISK,  /* a disk request a sleep waited on (id: rsp_disk_op_id), child of that sleep */
  RSP_ELEM_NET,   /* a network operation a sleep waited on (id: rsp_net_op_id) */
} rsp_elem_kind;

enum {
  RSP_ELEM_CUT = 1 << 0,        /* a triangle cut its start (start > the object's own start) */
  RSP_ELEM_MERGED_POLLS = 1 << 1,/* a sleep whose de facto start is an earlier timed-out poll */
};

typedef struct rsp_path_elem {
  uint64_t start, end;   /* as drawn and counted: after the de facto start and triangle cuts */
  uint32_t id;           /* rsp_run_id / rsp_sleep_id / rsp_disk_op_id / rsp_net_op_id by kind */
  rsp_task_id task;      /* the task it belongs to (the issuing task for DISK/NET) */
  rsp_path_id path;
  rsp_elem_id parent;    /* RSP_NO_ID at depth 0 */
  uint16_t depth;
  uint8_t kind;          /* rsp_elem_kind */
  uint8_t flags;         /* RSP_ELEM_* */
  uint32_t n_merged;     /* SLEEP: how many consecutive sleeps it stands for (1 usually) */
} rsp_path_elem;

typedef struct rsp_path {
  uint64_t start, end;   /* span of its depth-0 elements */
  rsp_path_id parent_path; /* the path whose element spawned this one, or RSP_NO_ID for the base */
  uint32_t n_elems;      /* elements are first_elem_ .. + n_elems - 1 via rsp_paths_path_elem() */
  uint32_t first_elem_;  /* private */
} rsp_path;

/* PATH's span (0 for a path without depth-0 elements, whose start stays after its end). */
static inline uint64_t rsp_path_length(const rsp_path *path)
{
  return path->end > path->start ? path->end - path->start : 0;
}

typedef struct rsp_paths_options {
  uint64_t tolerance_ns;      /* with tolerance_set (0: a child may not overflow its sleep at all),
                                 else RSP_PARENT_CHILD_TOLERANCE_NS */
  uint64_t poll_merge_gap_ns; /* with poll_merge_gap_set (0: no poll merging), else RSP_POLL_MERGE_GAP_NS */
  bool tolerance_set, poll_merge_gap_set;
  uint64_t range_start, range_end; /* both 0: the whole recording; else clip to [start, end) */
} rsp_paths_options;

typedef struct rsp_paths rsp_paths;

/* ---- The process of interest (process-choice.c) ---------------------------------------------------- */
typedef struct rsp_process_other {
  int32_t pid;
  uint64_t runtime_ns;
} rsp_process_other;

typedef struct rsp_process_choice {
  int32_t pid;
  const char *source; /* the rule, for machines: "pid", "thread", "comm", "metadata", "perf-exec", ... */
  char *reason;       /* one line, for people */
  GArray *others;     /* by COMM: the other processes of that name (rsp_process_other), longest first */
} rsp_process_choice;

/* PID (>= 0; a thread id names its process), else COMM (non-NULL: the longest-running process with a task of
 * that name, now or before an exec), else the recording's workload. False with ERROR set ("PATH: no process
 * with pid N", ...) when there is none; clear C either way. */
bool rsp_process_choose(const rsp_model *model, const char *path, int32_t pid, const char *comm,
                        rsp_process_choice *c, GError **error);
void rsp_process_choice_clear(rsp_process_choice *c);

/* Control paths of the process PID (every task whose pid is PID, all generations). NULL with ERROR
 * set when PID has no task in MODEL ("no process with pid N in FILE"). */
rsp_paths *rsp_paths_build(const rsp_model *model, int32_t pid, const rsp_paths_options *options,
                           GError **error);
void rsp_paths_free(rsp_paths *paths);

const rsp_model *rsp_paths_model(const rsp_paths *paths);
int32_t rsp_paths_pid(const rsp_paths *paths);
uint32_t rsp_paths_n_paths(const rsp_paths *paths);
const rsp_path *rsp_paths_path(const rsp_paths *paths, rsp_path_id id); /* 0 is the base path */
uint32_t rsp_paths_n_elems(const rsp_paths *paths);
const rsp_path_elem *rsp_paths_elem(const rsp_paths *paths, rsp_elem_id id);
/* The I-th element of PATH, in (depth, start) order. */
rsp_elem_id rsp_paths_path_elem(const rsp_paths *paths, rsp_path_id path, uint32_t i);
/* The children of ELEM (elements whose parent it is), in start order; *N set. */
const rsp_elem_id *rsp_paths_children(const rsp_paths *paths, rsp_elem_id elem, uint32_t *n);
/* The tasks on the paths (each once), and how many distinct processes (pids) they are. */
uint32_t rsp_paths_n_tasks(const rsp_paths *paths);
rsp_task_id rsp_paths_task(const rsp_paths *paths, uint32_t i);
uint32_t rsp_paths_n_processes(const rsp_paths *paths);
/* Whether RUN / SLEEP is an element of some path (for highlighting the wait chain). */
bool rsp_paths_has_run(const rsp_paths *paths, rsp_run_id run);
bool rsp_paths_has_sleep(const rsp_paths *paths, rsp_sleep_id sleep);
/* The element that draws RUN on the paths (the run's own, or the merged poll sleep it is folded into), else
 * RSP_NO_ID. */
rsp_elem_id rsp_paths_run_elem(const rsp_paths *paths, rsp_run_id run);
/* The I-th (0 .. n_merged - 1, in time order) of the sleeps SLEEP element ELEM stands for (merged
 * polls: each keeps its own end cause; the task's runs between them are folded into the element),
 * else RSP_NO_ID. */
rsp_sleep_id rsp_paths_elem_sleep(const rsp_paths *paths, rsp_elem_id elem, uint32_t i);
/* The run of another task that ended sleep element ELEM (its waker's; on loopback the sending peer's),
 * else RSP_NO_ID. When that run is on the paths but not under ELEM, the sleep waited on another path. */
rsp_run_id rsp_paths_elem_ender(const rsp_paths *paths, rsp_elem_id elem);

/* ---- Layer stacks, consolidated stacks and their difference ---------------------------------- */
/* What a frame of a flame view stands for, as bits so that merged frames keep all of them: a frame
 * that is in a run's stack and in a sleep's (a function that calls both) is drawn purple. */
enum {
  RSP_FRAME_PROCESS = 1 << 0, /* the process-name row at the base of a layer (grey) */
  RSP_FRAME_RUN = 1 << 1,     /* a function of a run's (sampled) stack (red) */
  RSP_FRAME_SLEEP = 1 << 2,   /* a function of a sleep's wait stack (blue) */
  RSP_FRAME_IO = 1 << 3,      /* a function of a blocking-I/O sleep's stack, or a disk request (green) */
  RSP_FRAME_NET = 1 << 4,     /* a network operation a sleep waited on */
  RSP_FRAME_KWORK = 1 << 5,   /* kernel work done for a process by others ("kernel work for X", its doers) */
};

/* One layer of a pseudo-stack as its stack (paper, "Flame View"): a column is a time range of the
 * layer and the functions on its stack over it, outermost first. A run with samples has one column
 * per sample, its time divided equally; a run without samples borrows the user-space part of the
 * stack it went to sleep in (else of the one it woke up in): those functions were on its stack when
 * it ended (began); a sleep has its wait stack, kernel and user frames; a disk or network element
 * has no stack. FRAMES are the model's, innermost first: column frame I (0 = outermost) is
 * rsp_frame_at(FRAMES, FRAMES.n - 1 - I); FRAMES.ids is the same pointer for the same stack. */
typedef void (*rsp_layer_column_fn)(uint64_t start, uint64_t end, rsp_stack_frames frames, void *data);
/* Calls FN for each column of E, in time order; returns the most frames a column has. KINDS: the
 * RSP_FRAME_* bit of E's functions. */
uint32_t rsp_layer_columns(const rsp_model *model, const rsp_path_elem *e, rsp_layer_column_fn fn, void *data,
                           unsigned *kinds);

/* The consolidated stacks of control paths (paper, "Consolidated Flame View"), without drawing:
 * each layer of the paths as its stack (its process, then the functions of its runs' samples or of
 * its sleep's wait stack; a disk or network element as "disk" / "network"), what a sleep waited on
 * standing on the sleep's innermost frame; frames merged when they are the same thing (the same
 * process name, the same function) on the same merged frame below, their durations summed; each
 * level's nodes sorted longest first (then by label). */
typedef struct rsp_stack_node {
  const char *label;  /* a function (the model's: valid while it is), a process name, "disk" or
                         "network" (the tree's) */
  uint32_t parent;    /* node id, RSP_NO_ID for a root */
  uint32_t depth;     /* 0 for a root (a tree of a deep relay is deeper than 65,535) */
  uint8_t kinds;      /* RSP_FRAME_* of everything merged into it; RSP_FRAME_PROCESS for a process */
  uint64_t ns;        /* summed over the merged frames */
  uint32_t n_merged;
} rsp_stack_node;
typedef struct rsp_stack_tree rsp_stack_tree;
/* The consolidated stacks of PATHS, only what happened in [T0, T1) (recording time; each frame
 * clipped to it; 0, UINT64_MAX: everything). */
rsp_stack_tree *rsp_stack_tree_build(const rsp_paths *paths, uint64_t t0, uint64_t t1);
/* The same with FLAGS: RSP_STACK_TREE_USER_WAITS keeps of a sleep's wait stack its user-space frames only (the
 * wait site: recv, epoll_wait, fsync), not the dozen kernel frames under them that every sleep shares
 * (schedule, do_syscall_64...), so a chain of processes stays a few rows per process; a sleep with no user
 * frame (a kernel thread's) keeps its kernel frames. */
#define RSP_STACK_TREE_USER_WAITS 1u
rsp_stack_tree *rsp_stack_tree_build_flags(const rsp_paths *paths, uint64_t t0, uint64_t t1, unsigned flags);
/* The same with the kernel work KW (of the paths' model; NULL: none) charged to each process on the paths: a root
 * "kernel work for COMM" beside the process's own frames, its children the doers ("softirq BLOCK", "kworker",
 * "jbd2/loop0-8"), as wide as the work done in [T0, T1) that no frame of the paths already shows
 * (rsp_kernel_work_paths_parts). A root, not a frame on the process's: the process's frames are its own time, and
 * the work was done beside it, by others. */
typedef struct rsp_kernel_work rsp_kernel_work;
rsp_stack_tree *rsp_stack_tree_build_kwork(const rsp_paths *paths, const rsp_kernel_work *kw, uint64_t t0,
                                           uint64_t t1, unsigned flags);
void rsp_stack_tree_free(rsp_stack_tree *tree);
uint32_t rsp_stack_tree_n_nodes(const rsp_stack_tree *tree);
const rsp_stack_node *rsp_stack_tree_node(const rsp_stack_tree *tree, uint32_t id);
/* The children of node ID (RSP_NO_ID: the roots), longest first; *N set. */
const uint32_t *rsp_stack_tree_children(const rsp_stack_tree *tree, uint32_t id, uint32_t *n);
uint32_t rsp_stack_tree_max_depth(const rsp_stack_tree *tree);
/* Every node in pre-order (a node before its children, siblings in order), walked with a stack of its own (a
 * relay of 10,000 wakeups is a tree that deep); *COUNT set; g_free() it. */
uint32_t *rsp_stack_tree_preorder(const rsp_stack_tree *tree, uint32_t *count);
/* Where a node is drawn along x (ns): its start and the room it takes (its duration, or its children's slots if
 * longer). */
typedef struct rsp_stack_place {
  uint64_t x, slot;
} rsp_stack_place;
/* Lays TREE out (ORDER: its N nodes in pre-order) into AT (one per node): the room of each node, children before
 * parents, then each node's x, children side by side from their parent's. Returns the total width. */
uint64_t rsp_stack_tree_layout(const rsp_stack_tree *tree, const uint32_t *order, uint32_t n, rsp_stack_place *at);
/* The sum of the roots' durations. */
uint64_t rsp_stack_tree_total(const rsp_stack_tree *tree);

/* Two consolidated stacks compared (a differential flame graph's data): nodes matched by their path
 * of (label, process or not) from the root, so that two recordings (other pids, other symbols'
 * addresses) compare. Every node of either tree is in it once; one missing from a side has 0 ns
 * there. Each level is sorted by the larger of the two durations, longest first (then by label). */
typedef struct rsp_stack_diff_node {
  const char *label;  /* owned by the diff */
  uint32_t parent;    /* RSP_NO_ID for a root */
  uint32_t depth;
  uint8_t kinds;      /* RSP_FRAME_* of both sides */
  uint64_t a_ns, b_ns;
  int64_t delta_ns;   /* b_ns - a_ns */
} rsp_stack_diff_node;
typedef struct rsp_stack_diff rsp_stack_diff;
rsp_stack_diff *rsp_stack_diff_compute(const rsp_stack_tree *a, const rsp_stack_tree *b);
void rsp_stack_diff_free(rsp_stack_diff *diff);
uint32_t rsp_stack_diff_n_nodes(const rsp_stack_diff *diff);
const rsp_stack_diff_node *rsp_stack_diff_get(const rsp_stack_diff *diff, uint32_t id);
const uint32_t *rsp_stack_diff_children(const rsp_stack_diff *diff, uint32_t id, uint32_t *n);
uint32_t rsp_stack_diff_max_depth(const rsp_stack_diff *diff);
/* The node at the end of the path of labels LABELS[0] (a root) .. LABELS[N - 1], else RSP_NO_ID
 * (a label matches a process or a function of that name; the process first). */
uint32_t rsp_stack_diff_find(const rsp_stack_diff *diff, const char *const *labels, uint32_t n);
/* The labels from the root down to node ID joined by SEP, newly allocated. */
char *rsp_stack_diff_path(const rsp_stack_diff *diff, uint32_t id, const char *sep);
/* How much node N changed relative to its size: delta / max(a, b), in [-1, 1]. */
double rsp_stack_diff_relative(const rsp_stack_diff_node *n);

/* ---- Categories -----------------------------------------------------------------------------
 * Paper, "Categories": where the time of the paths went, best understood first. Every nanosecond
 * of the paths' total time is in exactly one category or in "unaccounted". Some of it is in a
 * category on a guess (the sleep's end or waker was inferred, the wakeup lost, its link inferred):
 * that part is counted again in guessed_ns, and is not "accounted". */
typedef enum {
  RSP_CAT_UNDERSTOOD,   /* running, with samples whose stacks name a function */
  RSP_CAT_BLOCKING_IO,  /* a disk request it waited on was at the device */
  RSP_CAT_UNSAMPLED,    /* running, no sample inside */
  RSP_CAT_IO_QUEUE,     /* a request it waited on was queued, none at the device */
  RSP_CAT_SCHEDULER,    /* woken (or its child finished) but not yet running */
  RSP_CAT_HARDWARE,     /* sleeps ended by an interrupt nothing else explains */
  RSP_CAT_INVOLUNTARY,  /* preempted, and no other task's run seen on its cpu meanwhile (the cpu
                           idle, or the runs not recorded): the remainder of the two below. For a
                           single sleep (rsp_category_of_sleep, profiles): any preemption */
  RSP_CAT_MISC_KERNEL,  /* blocked in the kernel on nothing traced */
  RSP_CAT_TIMED_OUT,    /* sleeps that ended by a timeout */
  RSP_CAT_OTHER_PATH,   /* waiting on another control path */
  RSP_CAT_NETWORK,      /* waiting on a network peer outside the recording (not in the paper's table:
                           the paper's peers were all on the host) */
  RSP_CAT_PREEMPTED_BY_PATH, /* preempted, a task of a process on the paths (the process itself, one
                           it woke or that woke it) running on the cpu it was switched out from */
  RSP_CAT_CONTENTION,   /* preempted, a task of a process not on the paths running on that cpu */
  RSP_CAT_UNKNOWN_STACK,/* running, its samples' stacks name no function (see rsp_unknown_stack_reason) */
  RSP_CAT_UNACCOUNTED,
  RSP_N_CATEGORIES
} rsp_category;

/* Stable machine name ("understood", "blocking_io", ...) and the paper's row label. */
const char *rsp_category_key(rsp_category cat);
const char *rsp_category_label(rsp_category cat);
/* The categories in the order of the table, best understood first, "unaccounted" last; *N set. */
const rsp_category *rsp_category_table_order(uint32_t *n);

/* Why a sample's stack names no function (src/analysis/unknown-stacks.c). */
typedef enum {
  RSP_UNKNOWN_STACK_NONE,     /* a function is named: not unknown */
  RSP_UNKNOWN_STACK_NO_MAP,   /* user addresses in no file: anonymous memory (a JIT without a perf
                                 map) or no mapping recorded (a lost MMAP record) */
  RSP_UNKNOWN_STACK_NO_SYMBOL,/* user addresses in a mapped file that gave no symbol although read
                                 with its symbol table, or not read (files of another host) */
  RSP_UNKNOWN_STACK_BINARY_MISSING,   /* ... in a file not found where it was looked for */
  RSP_UNKNOWN_STACK_STRIPPED,         /* ... in a stripped file (its exported symbols at most) */
  RSP_UNKNOWN_STACK_BUILD_ID_MISMATCH,/* ... in a file that is another build than the one recorded */
  RSP_UNKNOWN_STACK_KERNEL,   /* kernel addresses only, none in the kallsyms used */
  RSP_UNKNOWN_STACK_LOOP,     /* a chain that loops on itself (the unwinder went round a cycle to
                                 the depth limit) */
  RSP_N_UNKNOWN_STACK_REASONS
} rsp_unknown_stack_reason;

/* Whether STACK names no function, and why (RSP_UNKNOWN_STACK_NONE when it names one, or is
 * RSP_NO_ID: a sample without a callchain is not judged). */
rsp_unknown_stack_reason rsp_unknown_stack_classify(const rsp_model *model, rsp_stack_id stack);
/* "no_map", "no_symbol", "binary_missing", "stripped", "build_id_mismatch", "kernel", "loop" ("none");
 * and a few words for the table. */
const char *rsp_unknown_stack_reason_key(rsp_unknown_stack_reason reason);
const char *rsp_unknown_stack_reason_label(rsp_unknown_stack_reason reason);

/* A task that ran on the cpu of a preempted sleep of the paths (src/analysis/preemptors.c). */
typedef struct rsp_preemptor {
  rsp_task_id task;
  uint64_t ns;   /* of the paths' preempted time it ran over */
  uint64_t off_paths_ns; /* of its runs over that time, the part of those on no path, each ns once (two tasks
                          * of the paths preempted by one run count it once): its running for the paths
                          * beside its runs on them */
  bool on_path;  /* its process is on the paths (its time is in RSP_CAT_PREEMPTED_BY_PATH, else CONTENTION) */
} rsp_preemptor;
#define RSP_TOP_PREEMPTORS 10

typedef struct rsp_categories_work rsp_categories_work; /* private: only while computing */

typedef struct rsp_categories {
  uint64_t wall_ns;   /* first to last activity of the process of interest */
  uint64_t total_ns;  /* summed over control paths, parallelism included */
  uint64_t ns[RSP_N_CATEGORIES];
  /* of ns[c], the part whose cause was guessed: a sleep whose end cause was inferred (end_inferred),
   * whose wakeup was lost (a blocked sleep with no wakeup), woken by an unknown waker, ended by an
   * inferred link or at an inferred switch-in, and whatever its children take while it is guessed.
   * Never in unaccounted or unknown_stack (those are not accounted anyway). */
  uint64_t guessed_ns[RSP_N_CATEGORIES];
  uint64_t guessed_total_ns;
  uint64_t unknown_stack_ns[RSP_N_UNKNOWN_STACK_REASONS]; /* ns[RSP_CAT_UNKNOWN_STACK] by reason */
  /* accounted: understood, neither unaccounted, nor unknown_stack, nor guessed:
   * total - unaccounted - unknown_stack - guessed_total */
  uint64_t accounted_ns;
  uint32_t n_paths, n_processes;
  /* the tasks that ran during the paths' preempted time, the most first */
  uint32_t n_preemptors;  /* all of them; the first min(n, RSP_TOP_PREEMPTORS) are in top_preemptors */
  rsp_preemptor top_preemptors[RSP_TOP_PREEMPTORS];
  rsp_categories_work *work_; /* private; NULL outside rsp_categories_compute */
} rsp_categories;

void rsp_categories_compute(const rsp_paths *paths, rsp_categories *out);
/* The category of one sleep of the model on its own (no path context): used by latency profiles
 * to say what each instance waited for. */
rsp_category rsp_category_of_sleep(const rsp_model *model, rsp_sleep_id sleep);

/* ---- Wait sites -----------------------------------------------------------------------------
 * The waits (sleep elements) on control paths grouped by wait site: the label of the sleep's stack,
 * "function (dso)" (rsp_model_stack_label), "[no stack]" without one. A site's time is the union of
 * its waits' intervals on the paths: a wait nested in another of the same site, or one interval on
 * several depths, counts once, so no site has more time than the paths. Each instant of it is told
 * by the deepest wait covering it (what the outer ones waited on, as the categories hand time down a
 * pseudo-stack; then the earliest begun), by the end cause of that wait's piece (merged polls keep
 * their own). By category, the site's sleeps are summed instead, as the categories' total sums the
 * paths: each sleep's own time before it could run by how it ended (each merged poll by its own),
 * after that scheduler overhead, the runs folded into merged polls as running time, children not
 * taken out: a bound of what the site gave each category, comparable with rsp_categories. */

typedef struct rsp_wait_site {
  const char *label;
  uint64_t count;                   /* sleeps (each merged poll one), each once */
  uint64_t total_ns;                /* the union of their intervals on the paths */
  uint64_t by_end[RSP_N_SLEEP_ENDS];/* total_ns by end cause (rsp_sleep_end; preempted sleeps as
                                       RSP_SLEEP_END_PREEMPTED; folded runs: the poll's before them) */
  uint64_t by_cat[RSP_N_CATEGORIES];/* its sleeps' own time by category, summed (see above) */
  uint64_t disk_ns;                 /* its waits' time on the disk, summed: each wait's blocking I/O and I/O queue
                                       time, or the union of the disk requests it waited on (its disk children)
                                       when longer (an fsync woken by a kworker waited on its requests all the
                                       same) */
  rsp_task_id disk_task;            /* the task whose waits there had the most of disk_ns (RSP_NO_ID: none) */
  rsp_task_id timed_out_task;       /* the task whose waits there had the most of by_cat[RSP_CAT_TIMED_OUT] (RSP_NO_ID:
                                       none) */
  rsp_task_id hardware_task;        /* the same of by_cat[RSP_CAT_HARDWARE] */
  bool no_code;                     /* its stacks name no user code: none recorded, or kernel frames only */
  uint64_t inferred_ns;             /* of it, told by a sleep whose end cause was guessed */
} rsp_wait_site;

typedef struct rsp_wait_sites rsp_wait_sites;

rsp_wait_sites *rsp_wait_sites_compute(const rsp_paths *paths);
void rsp_wait_sites_free(rsp_wait_sites *sites);
uint32_t rsp_wait_sites_n(const rsp_wait_sites *sites);
/* The I-th site, longest total first (then by label); NULL past the end. */
const rsp_wait_site *rsp_wait_sites_get(const rsp_wait_sites *sites, uint32_t i);

/* ---- Latency profiles (issue 7) ------------------------------------------------------------ */
/* OSprof (reference/osprof-latency-analysis.txt, section 3): the latencies of one class of
 * operations counted in logarithmic buckets, bucket b = floor(r * log2(latency_ns)) at resolution
 * r = 1, 2 or 4 buckets per octave. Every instance keeps its id and what it waited for (an
 * rsp_category), so each bucket and each peak can say why it is there. */
typedef enum {
  RSP_PROFILE_WAIT,         /* blocking sleeps, by wait site (innermost user function, else the
                               kernel function it blocked in; "state S" etc. without a stack) */
  RSP_PROFILE_DISK_QUEUE,   /* insert -> issue, by device and read/write */
  RSP_PROFILE_DISK_SERVICE, /* issue -> complete */
  RSP_PROFILE_DISK_TOTAL,   /* insert -> complete */
  RSP_PROFILE_NETWORK,      /* network operations, by protocol and peer */
  RSP_PROFILE_SCHED_DELAY,  /* wakeup -> switch-in of a blocked sleep */
  RSP_PROFILE_RUN,          /* run lengths (runs cut by the recording's ends left out) */
  RSP_PROFILE_PREEMPTION,   /* preempted sleeps: runnable, waiting for a cpu */
  RSP_N_PROFILE_KINDS
} rsp_profile_kind;

typedef enum {
  RSP_INSTANCE_RUN,   /* id: rsp_run_id */
  RSP_INSTANCE_SLEEP, /* id: rsp_sleep_id */
  RSP_INSTANCE_DISK,  /* id: rsp_disk_op_id */
  RSP_INSTANCE_NET,   /* id: rsp_net_op_id */
} rsp_instance_kind;

typedef struct rsp_profile_instance {
  uint64_t ns;     /* its latency */
  uint32_t id;     /* by the profile's instance_kind */
  uint8_t cause;   /* rsp_category */
  rsp_task_id waker; /* for a sleep woken by another task (RSP_CAT_OTHER_PATH): that task, else RSP_NO_ID */
} rsp_profile_instance;

typedef struct rsp_profile_bucket {
  int32_t index;              /* b */
  uint64_t lo_ns, hi_ns;      /* the latencies it holds: lo_ns <= ns < hi_ns */
  uint64_t count, total_ns;
  uint64_t causes[RSP_N_CATEGORIES]; /* instances by cause; they sum to count */
  uint32_t first_instance, n_instances; /* its instances in the profile's array */
} rsp_profile_bucket;

/* A local maximum of the counts, separated from the next peak by a valley. */
typedef struct rsp_profile_peak {
  int32_t index;              /* bucket of the maximum */
  int32_t first_index, last_index; /* the buckets it spans, valley to valley */
  uint64_t lo_ns, hi_ns;      /* their latency range */
  uint64_t count, avg_ns;     /* instances under it and their mean latency */
  uint8_t cause;              /* the dominant cause of those instances (rsp_category) */
  uint64_t cause_count;
  rsp_task_id waker;          /* for OTHER_PATH: the task that woke most of them, else RSP_NO_ID */
} rsp_profile_peak;

typedef struct rsp_profile {
  rsp_profile_kind kind;
  rsp_instance_kind instance_kind;
  const char *name;     /* the class, e.g. "wait clock_nanosleep", "disk-service 8:0 R", "run" */
  const char *site;     /* the part after the kind ("" for none) */
  int32_t pid;          /* the process, -1 when system-wide or grouped by command */
  const char *process;  /* its command, "*" system-wide */
  unsigned resolution;
  uint64_t count, total_ns;
  int32_t min_index;    /* buckets are dense from min_index (empty ones between included) */
  uint32_t n_buckets;
  rsp_profile_bucket *buckets;
  uint32_t n_instances;
  rsp_profile_instance *instances; /* grouped by bucket, in time order inside one */
  uint32_t n_peaks;
  rsp_profile_peak *peaks;         /* in latency order */
} rsp_profile;

typedef struct rsp_profile_options {
  unsigned resolution;  /* 1, 2 or 4; 0: 1 */
  int32_t pid;          /* >= 0: that process's profiles only; < 0: every process's */
  bool system_wide;     /* also the classes over all processes (process "*") */
  bool by_command;      /* group processes by command, not pid (to compare two recordings) */
  bool workload_only;   /* only process WORKLOAD_PID and the processes it started (forks, their forks) */
  int32_t workload_pid;
  uint64_t range_start, range_end; /* both 0: everything; else instances that start in [start, end) */
} rsp_profile_options;

typedef struct rsp_profile_set rsp_profile_set;

/* Every profile of MODEL under OPTIONS, sorted by total latency, largest first (OSprof 3.2 step 1).
 * NULL with ERROR set for a bad resolution or a pid with no task. */
rsp_profile_set *rsp_profile_set_build(const rsp_model *model, const rsp_profile_options *options,
                                       GError **error);
void rsp_profile_set_free(rsp_profile_set *set);
uint32_t rsp_profile_set_n(const rsp_profile_set *set);
const rsp_profile *rsp_profile_set_get(const rsp_profile_set *set, uint32_t i);
/* The profile of class NAME for PROCESS (a command, or "*"), with PID (-1: any); NULL if none. */
const rsp_profile *rsp_profile_set_find(const rsp_profile_set *set, const char *name,
                                        const char *process, int32_t pid);
const rsp_model *rsp_profile_set_model(const rsp_profile_set *set);

/* The task that woke most of the instances of bucket B of P (sleeps ended by another task), else
 * RSP_NO_ID. */
rsp_task_id rsp_profile_bucket_waker(const rsp_profile *p, const rsp_profile_bucket *b);

/* When instance IN of P began (a run's or sleep's start, the wakeup for a scheduler delay, a disk
 * request's insert or issue, a network operation's send). */
uint64_t rsp_profile_instance_time(const rsp_model *model, const rsp_profile *p, const rsp_profile_instance *in);

/* Time-sampled profiles (OSprof figure 9): P's instances counted per time slice and bucket. */
typedef struct rsp_profile_timeline {
  uint64_t start_ns, slice_ns; /* slice i covers [start + i slice, start + (i + 1) slice) */
  uint32_t n_slices;
  int32_t min_index;           /* buckets as P's: min_index .. + n_buckets - 1 */
  uint32_t n_buckets;
  uint64_t *counts;            /* n_slices rows of n_buckets */
  uint64_t max_count;          /* the largest cell */
} rsp_profile_timeline;

/* From the recording's first event to its last, in slices of SLICE_NS (0: 2.5 s). */
rsp_profile_timeline *rsp_profile_timeline_build(const rsp_model *model, const rsp_profile *p, uint64_t slice_ns);
void rsp_profile_timeline_free(rsp_profile_timeline *t);

/* floor(r * log2(ns)), exactly (ns 0 counts as 1 ns); and the smallest ns of bucket B. */
int32_t rsp_profile_bucket_of(uint64_t ns, unsigned resolution);
uint64_t rsp_profile_bucket_lo(int32_t bucket, unsigned resolution);
/* "1.0 ms", "512 us", "3.2 s": NS in human units into BUF. */
const char *rsp_profile_format_ns(uint64_t ns, char *buf, size_t size);
/* "COUNT / TOTAL" of profile P ("1200 / 3.20 ms") into BUF, or MISSING when P is NULL (a class that
 * one of two compared recordings does not have). */
const char *rsp_profile_format_ops_total(const rsp_profile *p, const char *missing, char *buf, size_t size);
/* The machine name of a cause: the same as rsp_category_key(). */
const char *rsp_profile_cause_key(rsp_category cat);
/* A profile built from bare counts (COUNTS[i] instances of bucket MIN_INDEX + i, each at the
 * bucket's lower bound, cause RSP_CAT_UNACCOUNTED), for tests and tools; free with rsp_profile_free. */
rsp_profile *rsp_profile_from_counts(unsigned resolution, int32_t min_index, const uint64_t *counts,
                                     uint32_t n);
void rsp_profile_free(rsp_profile *profile);
/* The peaks of N counts: local maxima whose prominence is at least half their height, split at
 * the lowest bucket between neighbours. Writes at most MAX (first, top, last) triples; returns how
 * many peaks there are. */
uint32_t rsp_profile_find_peaks(const uint64_t *counts, uint32_t n, uint32_t *first, uint32_t *top,
                                uint32_t *last, uint32_t max);

/* ---- Comparing profiles (OSprof 3.2) ----------------------------------------------------------- */
typedef enum {
  RSP_DISTANCE_EMD,     /* Earth Mover's Distance of the normalized histograms, in buckets */
  RSP_DISTANCE_CHI2,    /* sum (p - q)^2 / (p + q) over the normalized histograms, 0..2 */
  RSP_DISTANCE_OPS,     /* |count A - count B| / max */
  RSP_DISTANCE_LATENCY, /* |total A - total B| / max */
} rsp_distance_method;

/* Distances of two histograms given as counts over the same N buckets. Both empty: 0; one empty:
 * INFINITY (EMD, chi-square) or 1 (ops). */
double rsp_histogram_emd(const uint64_t *a, const uint64_t *b, uint32_t n);
double rsp_histogram_chi2(const uint64_t *a, const uint64_t *b, uint32_t n);
/* Of two profiles of the same resolution (aligned by bucket index); NULL is an empty profile. */
double rsp_profile_distance(const rsp_profile *a, const rsp_profile *b, rsp_distance_method method);
bool rsp_distance_method_parse(const char *name, rsp_distance_method *out);
const char *rsp_distance_method_name(rsp_distance_method method);

typedef struct rsp_profile_pair {
  const rsp_profile *a, *b;  /* either may be NULL: the class exists in one recording only */
  double distance;
  bool peaks_changed;        /* number of peaks or a peak's location differs */
  char *reason;              /* what changed, one line */
} rsp_profile_pair;

typedef struct rsp_profile_diff_options {
  rsp_distance_method method;
  double similar_threshold; /* phase 1: |A - B| / max below this for both total latency and count
                               drops a pair; 0: 0.1 */
  double weight_threshold;  /* phase 1: a pair whose larger total latency is below this share of
                               its recording's total is dropped; 0: 0.001 */
  uint64_t min_ops;         /* phase 1: a pair with fewer instances than this in both is dropped: too
                               few to have a shape; 0: 10 */
} rsp_profile_diff_options;

typedef struct rsp_profile_diff {
  uint32_t n_pairs;          /* kept, ranked by distance (largest first), the pairs of a class in
                                one recording only (infinite distance) after the others */
  rsp_profile_pair *pairs;
  uint32_t n_similar, n_negligible, n_few; /* dropped in phase 1 */
} rsp_profile_diff;

/* OSprof's three phases over two complete sets of profiles (the same resolution), paired by
 * (class, process command). */
rsp_profile_diff *rsp_profile_diff_compute(const rsp_profile_set *a, const rsp_profile_set *b,
                                           const rsp_profile_diff_options *options);
void rsp_profile_diff_free(rsp_profile_diff *diff);

/* ---- Characteristic times ---------------------------------------------------------------------
 * Measured from the recording itself (OSprof 3.1, "prior knowledge"); 0 when it does not show. */
typedef struct rsp_characteristic_times {
  uint64_t context_switch_ns; /* median gap between one task's switch-out and the next's switch-in
                                 on a cpu that did not go idle (0 with sched_switch alone: one event) */
  uint64_t timer_tick_ns;     /* the kernel tick: the period (of HZ 100, 250, 300, 1000) on whose
                                 lattice the wakeups of kernel threads' timed-out idle waits lie */
  uint64_t slice_ns;          /* median spacing of the preemptions on a cpu not caused by a wakeup:
                                 the time slice the scheduler enforces */
  uint64_t disk_service_ns;   /* median issue -> complete of disk requests */
  uint64_t loopback_rtt_ns;   /* median network operation with a loopback peer */
  uint32_t n_context_switches, n_tick_wakeups, n_preemptions, n_disk_ops, n_loopback_ops; /* what each
                                 came from */
} rsp_characteristic_times;

void rsp_characteristic_times_measure(const rsp_model *model, rsp_characteristic_times *out);


/* ---- Per-process accounting (LTT; accounting.c) ----------------------------------------------- */
typedef enum rsp_accounting_column {
  RSP_ACCT_USER,              /* running, the samples in user mode (the task's running time by their share) */
  RSP_ACCT_KERNEL,            /* running, the samples in kernel mode */
  RSP_ACCT_RUNNING_UNSAMPLED, /* running, no sample (or none with a stack) of the task to tell the mode */
  RSP_ACCT_IO_WAIT,           /* a D sleep until its wakeup */
  RSP_ACCT_WAITING,           /* any other blocked sleep until its wakeup: waiting for other processes */
  RSP_ACCT_RUNNABLE,          /* preempted, or woken and not yet on a cpu */
  RSP_ACCT_UNTRACED,          /* between a task's first and last run, covered by no run or sleep */
  RSP_N_ACCT
} rsp_accounting_column;

typedef struct rsp_accounting_row {
  int32_t pid;
  const char *comm;   /* the main thread's latest name (the model's) */
  uint32_t n_tasks;   /* threads and exec generations */
  uint64_t life_ns;   /* its tasks' lives (first run start to last run end) summed: the columns' sum */
  uint64_t ns[RSP_N_ACCT];
  uint64_t user_samples, kernel_samples;
  uint64_t kernel_work_ns; /* kernel work done for it by others (kernel-work.c): beside the columns, not in them */
} rsp_accounting_row;

/* Every process of MODEL with a run, the longest-lived first; *N_ROWS set; g_free() the array. */
rsp_accounting_row *rsp_accounting_compute(const rsp_model *model, uint32_t *n_rows);
/* The same with the model's kernel work KW (rsp_kernel_work_compute(MODEL)) made already: what the kernel did for each
 * process is read there instead of worked out again (NULL: worked out here). */
rsp_accounting_row *rsp_accounting_compute_kwork(const rsp_model *model, const rsp_kernel_work *kw,
                                                 uint32_t *n_rows);
const char *rsp_accounting_key(rsp_accounting_column column);

/* ---- Kernel work charged to whom it served (pkprof; kernel-work.c) ------------------------------
 * Reference/pkprof-process-labeled-kernel-profiling.txt: kernel work done asynchronously is charged to
 * the process that benefits from it. Interrupt time (a hardirq handler's or a softirq's own time) goes
 * to the issuers of the block requests it completed and to the tasks it delivered socket data to (the
 * tasks it woke, else the socket's owner). A kernel thread's work (kworker, jbd2...) is cut into
 * episodes: its runs from a wait for work (S, I) to the next, across its waits for I/O (D). An episode
 * goes to the user tasks it woke or whose requests it issued (jbd2's commit wakes the fsync waiting on
 * it), else to the task that woke it; a kernel thread served by another passes its share on to whom that
 * one served. Shares are split evenly among the tasks served. Nothing is taken from anyone's own time:
 * this is extra information beside the accounting table, whose columns still add up to each life. */
typedef enum rsp_kernel_work_kind {
  RSP_KWORK_HARDIRQ,   /* hardware interrupt handlers */
  RSP_KWORK_SOFTIRQ,   /* softirqs (NET_RX, BLOCK...), also those a task ran itself */
  RSP_KWORK_KTHREAD,   /* kernel threads' runs */
  RSP_N_KWORK
} rsp_kernel_work_kind;

typedef struct rsp_kernel_work_row {
  int32_t pid;         /* the process served */
  const char *comm;
  uint64_t ns[RSP_N_KWORK];
  uint64_t total_ns;
  double n_irqs;       /* interrupt spans charged (shares of spans split between tasks are fractions) */
  double n_episodes;   /* kernel-thread episodes charged */
} rsp_kernel_work_row;

/* Who did the work for whom: one line per (process served, doer), the doer being a kernel thread's
 * comm with its number stripped ("kworker/u4:2" -> "kworker"), "hardirq NAME" or "softirq NAME". */
typedef struct rsp_kernel_work_source {
  int32_t pid;
  const char *doer;    /* interned in the result */
  uint8_t kind;        /* rsp_kernel_work_kind */
  uint64_t ns;
  double count;
} rsp_kernel_work_source;

typedef struct rsp_kernel_work rsp_kernel_work;
rsp_kernel_work *rsp_kernel_work_compute(const rsp_model *model);
void rsp_kernel_work_free(rsp_kernel_work *kw);
/* The processes served, the most served first; *N set. */
const rsp_kernel_work_row *rsp_kernel_work_rows(const rsp_kernel_work *kw, uint32_t *n);
const rsp_kernel_work_row *rsp_kernel_work_for_pid(const rsp_kernel_work *kw, int32_t pid); /* NULL: none */
/* The kernel work charged to the processes on PATHS, each once. */
uint64_t rsp_kernel_work_paths_ns(const rsp_kernel_work *kw, const rsp_paths *paths);
/* The kernel work charged to one task (thread generation) of the model, ns. */
uint64_t rsp_kernel_work_task_ns(const rsp_kernel_work *kw, rsp_task_id task);
const rsp_kernel_work_source *rsp_kernel_work_sources(const rsp_kernel_work *kw, uint32_t *n);
/* Kernel work of the recording charged to nobody (timers, RCU, writeback nobody waited for...), and all of it. */
uint64_t rsp_kernel_work_unattributed_ns(const rsp_kernel_work *kw, rsp_kernel_work_kind kind);
uint64_t rsp_kernel_work_total_ns(const rsp_kernel_work *kw, rsp_kernel_work_kind kind);
const char *rsp_kernel_work_key(rsp_kernel_work_kind kind); /* "hardirq", "softirq", "kthread" */
/* The kernel work charged to the processes on PATHS (each process once, as rsp_kernel_work_paths_ns), piece by
 * piece where it ran: a kernel thread's run of an episode, an interrupt span; only what ran in [T0, T1) (0, 0:
 * all), the pieces cut to it. For the flame views' "kernel work for X" frames. The part of a piece that ran in a
 * run the paths already draw (a kworker or jbd2 run that woke the process is on its path, with its frames) is
 * ON_PATH_NS and not in NS: drawn once. Over the whole recording, NS + ON_PATH_NS summed per process is its
 * row's total_ns (but for rounding). */
typedef struct rsp_kernel_work_part {
  int32_t pid;          /* the process served */
  const char *comm;     /* its name (the row's) */
  const char *doer;     /* as rsp_kernel_work_source's: "jbd2/loop0-8", "kworker", "softirq BLOCK"... */
  uint8_t kind;         /* rsp_kernel_work_kind */
  uint64_t start, end;  /* when its doer ran it, cut to [T0, T1) */
  double ns;            /* the share charged to PID, less what the paths draw */
  double on_path_ns;    /* the share charged to PID that ran inside a run the paths draw */
} rsp_kernel_work_part;
typedef void (*rsp_kernel_work_part_fn)(const rsp_kernel_work_part *part, void *data);
void rsp_kernel_work_paths_parts(const rsp_kernel_work *kw, const rsp_paths *paths, uint64_t t0, uint64_t t1,
                                 rsp_kernel_work_part_fn fn, void *data);

/* ---- The answer in words (explain.c) ------------------------------------------------------------ */
#define RSP_EXPLAIN_MAX_CHAIN 16
#define RSP_EXPLAIN_MAX_WORK 8
#define RSP_EXPLAIN_MAX_THREADS 4
/* A process's running time on the paths, and the function most of its samples there name. */
typedef struct rsp_explain_work {
  int32_t pid;
  int32_t tid; /* 0: the process; a waker of a hop's waits: a thread of the hop's own process (pid/tid) */
  const char *comm;
  uint64_t run_ns;
  const char *function;
  uint64_t function_ns;
} rsp_explain_work;
/* Processes of one name that ran on the paths, three or more, none of them half of their running: a shell script's
 * helpers, pyenv's shims, make's compilers. The text names them together. */
typedef struct rsp_explain_group {
  const char *comm;
  uint32_t n_processes;
  uint64_t run_ns;  /* all of them */
  int32_t top_pid;  /* the one that ran the most, and how long */
  uint64_t top_ns;
} rsp_explain_group;
/* A hop of the chain under the process of interest's longest wait: a process and where it waited (SITE,
 * NULL when it was running), or the disk (DEV) or network that ended the chain. */
typedef struct rsp_explain_hop {
  int32_t pid;
  const char *comm;
  const char *site;
  uint8_t kind;   /* rsp_elem_kind of the element that stood for it */
  uint32_t dev;   /* RSP_ELEM_DISK: the device (MAJOR << 20 | MINOR) */
  uint64_t ns;    /* the hop's wait (or run, disk, network) element's length; a running hop: its runs */
  uint64_t preempted_ns; /* a running hop: its preemptions among them */
  /* the first hop when the chain ends with it (nothing under the wait: a thread of the process itself, or a timer,
   * ended it): the task whose run woke its last sleep (tid 0: none), and how many of its merged sleeps timed out */
  int32_t woken_by_pid, woken_by_tid;
  const char *woken_by_comm;
  bool woken_over_network; /* that task sent the network data that ended it (no wakeup of its own) */
  bool unix_socket;        /* that data (a network hop: its operation) was on a unix socket, not the network */
  bool signalled;          /* that task ended it with a signal (kill: timeout's child) */
  /* the second hop, when the first wait was ended by another thread of the process or by another process (its work on
   * a path of its own): that thread (tid), or that process, running or waiting over the first wait, the chain going
   * on from its longest wait there */
  bool via_waker;
  int32_t tid;       /* 0: the waker was another process, all its threads taken together */
  uint32_t n_threads; /* that process's threads that ran over the wait (0: a thread, or no process) */
  uint32_t timeouts;
  uint32_t timeouts_guessed; /* of those, timeouts guessed (the wakeup had no call stack: end_inferred) */
  bool ended_by_timeout; /* its last sleep timed out */
  /* a running hop that also waited, in many waits none of which stands for the rest (tar's 28,000 disk reads under
   * its shell's wait4): its blocked waits there, how many, and the wait site with the most of that time */
  uint64_t waited_ns;
  uint32_t n_waits;
  const char *wait_site;
  uint64_t wait_site_ns;
  uint32_t wait_site_waits;
  /* what those waits had under them (disk requests, network operations), and the other processes that woke the most
   * of the rest, the most first (pid: the process, run_ns: the time of the waits it ended) */
  uint64_t waits_disk_ns, waits_net_ns;
  uint32_t n_wakers; /* all of them; the first min(n, 2) in wakers */
  rsp_explain_work wakers[2];
  uint64_t start, end; /* a wait hop: when it began and ended (perf clock, ns) */
  uint32_t elem_; /* private: a wait hop's element (rsp_elem_id) */
} rsp_explain_hop;
/* A category of waits as the biggest lever (rsp_explanation's timed_out and hardware): its time on the paths (NS; 0:
 * not the biggest lever), the wait site with the most of it (its label, that time; NULL: none known) and the task
 * whose waits there had the most of it (TOP: pid its process, tid the thread when not the main one, else 0; comm) */
typedef struct rsp_explain_wait_lever {
  uint64_t ns, site_ns;
  const char *site;
  rsp_explain_work top;
} rsp_explain_wait_lever;
typedef struct rsp_explanation {
  int32_t pid;
  const char *comm;
  uint64_t wall_ns, total_ns;
  uint32_t n_chain;
  rsp_explain_hop chain[RSP_EXPLAIN_MAX_CHAIN];
  uint32_t n_work;                      /* the processes with the most running time, the most first */
  rsp_explain_work work[RSP_EXPLAIN_MAX_WORK];
  rsp_explain_work lever;               /* the function with the most time on the paths (function NULL: none), in one
                                           process or summed over processes of one name (lever_processes of them; pid:
                                           the one with the most of it) */
  uint32_t lever_processes;
  const char *disk_lever_site;          /* the wait site with the most disk time on the paths (--waits' label, its
                                           time disk_lever_site_ns), when the paths' disk time (blocking I/O and I/O
                                           queue), disk_lever_ns, is more than the lever's: the bigger lever (an
                                           fsync-bound workload, a cold grep -r); NULL: none */
  uint64_t disk_lever_ns, disk_lever_site_ns;
  /* the paths' time runnable behind processes off them (RSP_CAT_CONTENTION), when more than the function's and the
   * disk's: other work on the machine is the bigger lever (a build beside the test run); 0: not the biggest. Its top
   * preemptor off the paths (pid: its process, run_ns: its time over the paths' runnable time) */
  uint64_t contention_lever_ns;
  rsp_explain_work contention_top;
  /* the paths' waits that ended by a timeout (RSP_CAT_TIMED_OUT: a sleep on purpose, a poll or a lock that waited out
   * its timer), when more than the function's, the disk's and the other work's: the timer is the bigger lever (a
   * server's time.sleep under each request); ns 0: not the biggest */
  rsp_explain_wait_lever timed_out;
  /* the paths' waits that a device's interrupt ended with nothing else to explain them (RSP_CAT_HARDWARE: a sound card,
   * a GPU, a terminal's line), when more than all of the above: the device's pace is the bigger lever; ns 0: not */
  rsp_explain_wait_lever hardware;
  /* the paths' waits on peers outside the recording (RSP_CAT_NETWORK), when more than all of the above (but the
   * hardware's): the network is the bigger lever (a download from a slow server); 0: not the biggest. The peer whose
   * waits on the paths took the longest, as the histograms name it ("tcp 10.0.0.2:8080"; NULL: none known) */
  uint64_t network_lever_ns;
  const char *network_peer;
  uint32_t n_groups;                    /* the most running first (rsp_explain_group), the process of interest in none */
  rsp_explain_group groups[RSP_EXPLAIN_MAX_WORK];
  /* its own threads' running time on the paths, the most first (pid: the tid), when more than one of them ran */
  uint32_t n_threads;                   /* all of them; the first min(n, RSP_EXPLAIN_MAX_THREADS) in threads */
  rsp_explain_work threads[RSP_EXPLAIN_MAX_THREADS];
  /* the first hop's thread: all its waits beside the longest (blocked, at depth 0), how long and how many */
  uint64_t first_thread_waits_ns;
  uint32_t first_thread_n_waits;
  char **sentences;                     /* the answer, NULL-terminated, largest first */
  GStringChunk *names_;                 /* private: the names made here */
} rsp_explanation;
/* PATHS' story, with C = rsp_categories_compute(PATHS) for its numbers. */
rsp_explanation *rsp_explain(const rsp_paths *paths, const rsp_categories *c);
/* The same with the model's kernel work KW made already (rsp_kernel_work_compute of PATHS' model; NULL: made here):
 * working it out again is the most of a story on a recording with many interrupts (a build's: 90 ms). */
rsp_explanation *rsp_explain_kwork(const rsp_paths *paths, const rsp_categories *c, const rsp_kernel_work *kw);
/* The same with PATHS' wait sites SITES made already too (rsp_wait_sites_compute(PATHS); NULL: made here when the
 * story needs them), for a caller that shows them beside it (rsp-view's explanation: 0.3 s of deep20's paths). */
rsp_explanation *rsp_explain_sites(const rsp_paths *paths, const rsp_categories *c, const rsp_kernel_work *kw,
                                   const rsp_wait_sites *sites);
void rsp_explanation_free(rsp_explanation *x);

G_END_DECLS
