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

typedef struct rsp_paths_options {
  uint64_t tolerance_ns;      /* 0: RSP_PARENT_CHILD_TOLERANCE_NS */
  uint64_t poll_merge_gap_ns; /* 0: RSP_POLL_MERGE_GAP_NS */
  uint64_t range_start, range_end; /* both 0: the whole recording; else clip to [start, end) */
} rsp_paths_options;

typedef struct rsp_paths rsp_paths;

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

/* ---- Categories -----------------------------------------------------------------------------
 * Paper, "Categories": where the time of the paths went, best understood first. Every nanosecond
 * of the paths' total time is in exactly one category or in "unaccounted". */
typedef enum {
  RSP_CAT_UNDERSTOOD,   /* running, with samples (stacks) */
  RSP_CAT_BLOCKING_IO,  /* a disk request it waited on was at the device */
  RSP_CAT_UNSAMPLED,    /* running, no sample inside */
  RSP_CAT_IO_QUEUE,     /* a request it waited on was queued, none at the device */
  RSP_CAT_SCHEDULER,    /* woken (or its child finished) but not yet running */
  RSP_CAT_HARDWARE,     /* sleeps ended by an interrupt nothing else explains */
  RSP_CAT_INVOLUNTARY,  /* preempted, or interrupted */
  RSP_CAT_MISC_KERNEL,  /* blocked in the kernel on nothing traced */
  RSP_CAT_TIMED_OUT,    /* sleeps that ended by a timeout */
  RSP_CAT_OTHER_PATH,   /* waiting on another control path */
  RSP_CAT_NETWORK,      /* waiting on a network peer outside the recording (not in the paper's table:
                           the paper's peers were all on the host) */
  RSP_CAT_UNACCOUNTED,
  RSP_N_CATEGORIES
} rsp_category;

/* Stable machine name ("understood", "blocking_io", ...) and the paper's row label. */
const char *rsp_category_key(rsp_category cat);
const char *rsp_category_label(rsp_category cat);

typedef struct rsp_categories {
  uint64_t wall_ns;   /* first to last activity of the process of interest */
  uint64_t total_ns;  /* summed over control paths, parallelism included */
  uint64_t ns[RSP_N_CATEGORIES];
  uint64_t accounted_ns; /* total - unaccounted */
  uint32_t n_paths, n_processes;
} rsp_categories;

void rsp_categories_compute(const rsp_paths *paths, rsp_categories *out);
/* The category of one sleep of the model on its own (no path context): used by latency profiles
 * to say what each instance waited for. */
rsp_category rsp_category_of_sleep(const rsp_model *model, rsp_sleep_id sleep);

/* ---- Latency profiles (issue 7) ------------------------------------------------------------ */

G_END_DECLS
