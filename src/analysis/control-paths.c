/* Control paths and pseudo-stacks (paper, "Recursive Stack Making", "Triangles").
 *
 * Every task's runs and sleeps are first laid out as one timeline, with poll loops merged into one
 * sleep (the de facto start). The base path holds the timelines of the process of interest. Then,
 * breadth first, each sleep on a path gets as its child the thing that ended it:
 *   - a disk request (DISK element) or a network operation (NET element), when the model says so;
 *   - else the run that woke it, with the waker's timeline before that run back to the sleep's de
 *     facto start: the part of the waker that worked "on behalf of" the sleeper. An element of that
 *     chain begun before the de facto start (the waker's own wait, or the run of a triangle's third
 *     party) is cut there (RSP_ELEM_CUT) and ends the chain. The cut waker's work before the start
 *     is a control path of its own (parallelism, counted) when the paths started it: it descends
 *     from the process of interest, or the wait it did it after was ended by the paths (a query
 *     handed to a server while the client went on with other work).
 * The chain is the sleep's child when it ends at most TOLERANCE after the sleep does (its start is
 * within the sleep by the cut); else it becomes the root of a new control path. A waker already on
 * a path stays there (the sleep waited on that path). Every chain's sleeps are then treated alike.
 * Last, the work the paths asked of the servers on them that no wait took as its child (answers read
 * without waiting) becomes control paths of their own (add_requested_work). Kernel threads' work for
 * the paths is not drawn so: the kernel-work frame charges it (pkprof). */
#include "analysis/analysis.h"
#include "reader/zeroed.h"
#include "paths-private.h"
#include "reader/natural-merge-sort.h"

#include <gio/gio.h>
#include <string.h>

/* One item of a task's timeline: a run, or a sleep standing for N_MERGED consecutive polls. */
typedef struct tl_item { /* 32 bytes: one per run and sleep of the recording (2.7M on deep3m) */
  uint64_t start, end;
  uint32_t id; /* run id, or the first merged sleep's id */
  uint32_t last_sleep; /* SLEEP: the last merged sleep (whose end cause ends it) */
  uint32_t n_merged : 30;
  uint32_t kind : 2; /* RSP_ELEM_RUN or RSP_ELEM_SLEEP */
  uint32_t first_task_sleep; /* SLEEP: index of the first merged sleep among its task's sleeps */
} tl_item;
G_STATIC_ASSERT(sizeof(tl_item) == 32);

typedef struct timeline {
  tl_item *items;
  uint32_t n;
} timeline;

struct rsp_paths {
  rsp_paths_head head; /* first (paths-private.h) */
  const rsp_model *model;
  int32_t pid;
  uint64_t tolerance, poll_gap, lo, hi;
  GArray *elems;      /* rsp_path_elem, in creation order */
  GArray *paths;      /* rsp_path */
  uint32_t *order;    /* element ids sorted by (path, depth, start) */
  uint32_t *child_first, *child_n, *children; /* children of each elem (CSR) */
  rsp_elem_id *run_elem, *sleep_elem;         /* claim of each run / sleep, or RSP_NO_ID */
  timeline *timelines;                        /* per task (freed once the paths are built) */
  uint32_t *run_item;                         /* run id -> index in its task's timeline (freed too) */
  uint32_t *sleep_item;                       /* sleep id -> index of the item holding it (freed too) */
  GArray *elem_sleep_index;                   /* per element (uint32_t): a sleep's first merged sleep's index
                                                 among its task's sleeps */
  GHashTable *net_enders;                     /* sleep element ended by loopback data -> the run that ended it */
  uint32_t *disk_by_task, n_disk_by_task;     /* disk op ids by (issuing task, completion) */
  uint32_t *disk_first;                       /* by task: the first of its ops in disk_by_task (n_tasks + 1) */
  uint8_t *task_on_path;                      /* per task: 1 once an element of it is on a path */
  GHashTable *socket_owner;                   /* loopback socket (sport << 16 | dport) -> its task + 1 */
  GHashTable *task_sends;                     /* task -> GArray of its net ops with ports, in start order */
  GArray *tasks;                              /* rsp_task_id, each once */
  uint32_t n_processes;
  struct chain_link *chain;                   /* process_sleep's scratch */
  uint32_t chain_cap;
};

static bool blocked(const rsp_sleep *s)
{
  return !s->preempted && s->end_cause != RSP_SLEEP_END_PREEMPTED;
}

/* Paper, "Recursive Stack Making": consecutive sleeps with the same stack, separated by runs shorter
 * than the gap, all but the last ended by a timeout, are one sleep (while (!done) { poll(timeout);
 * trivial_timeout_processing(); }). Both ends are waits the task chose: a preemption (runnable all
 * along) is no poll, even where its stack looks the same; but a preemption inside the trivial
 * processing does not end the loop (it is folded in, keeping its own cause). On a loaded machine the
 * processing between timeouts takes longer than the paper's 100 us (curl's 0.2-0.4 ms between 1 s
 * polls): a stretch that woke nobody and ran for at most 1/RSP_POLL_MERGE_RATIO of the timed-out
 * sleep before it is trivial too. Returns how many of TASK's sleeps after index SI (whose sleep A
 * timed out) fold into A's poll loop, the last a blocked one, else 0. */
static uint32_t poll_continues(const rsp_paths *p, rsp_task_id task, uint32_t si, const rsp_sleep *a)
{
  const rsp_model *m = p->model;
  const rsp_task *t = rsp_model_task(m, task);
  if (!p->poll_gap || a->stack == RSP_NO_ID || !blocked(a) || a->end_cause != RSP_SLEEP_END_TIMEOUT)
    return 0;
  uint64_t limit = MAX(p->poll_gap, (a->end - a->start) / RSP_POLL_MERGE_RATIO);
  uint64_t cpu = 0;
  bool silent = true;
  uint64_t from = a->end;
  for (uint32_t k = si; k < t->n_sleeps; k++) {
    const rsp_sleep *b = rsp_model_sleep(m, rsp_model_task_sleep(m, task, k));
    if (b->start < from)
      return 0;
    /* the runs between FROM and B */
    for (rsp_run_id r = rsp_model_run_at(m, task, from); r != RSP_NO_ID && rsp_model_run(m, r)->start < b->start;
         r = rsp_model_run_at(m, task, rsp_model_run(m, r)->end)) {
      const rsp_run *run = rsp_model_run(m, r);
      uint32_t n_out;
      const rsp_link_id *outs = rsp_model_run_links_out(m, r, &n_out);
      for (uint32_t q = 0; q < n_out; q++) { /* woke, forked or fed another task (an interrupt's link
                                              * from its run before to its run after is its own) */
        const rsp_link *l = rsp_model_link(m, outs[q]);
        if (l->kind != RSP_LINK_INTERRUPT && (l->to_run == RSP_NO_ID || rsp_model_run(m, l->to_run)->task != task))
          silent = false;
      }
      cpu += MIN(run->end, b->start) - MAX(run->start, from);
      if (run->end >= b->start)
        break;
    }
    if (cpu >= limit || (!silent && cpu >= p->poll_gap))
      return 0;
    if (blocked(b))
      return b->stack == a->stack ? k - si + 1 : 0;
    from = b->end; /* preempted during the processing: go on to the next sleep */
  }
  return 0;
}

typedef struct timeline_range {
  rsp_paths *p;
  rsp_task_id first, end;
  const uint32_t *run_base, *sleep_base; /* per task: where its runs' (sleeps') items go in run_pos (sleep_pos) */
  uint32_t *run_pos, *sleep_pos;         /* the item of each task's runs (sleeps), in task order */
} timeline_range;

/* How many runs (sleeps) ahead build_timeline_range asks for their records: a task's runs lie spread among all runs,
 * so each read of one is a cache miss the walk would wait for */
#define TIMELINE_AHEAD 8

/* The timelines of tasks [FIRST, END): each writes its own, and the items of its own runs and sleeps in task order
 * (not by run and sleep id: a ping-pong's two threads, one on each side of the split, have alternate ids, and the
 * two threads wrote the same cache lines). */
static gpointer build_timeline_range(gpointer data)
{
  const timeline_range *range = data;
  rsp_paths *p = range->p;
  const rsp_model *m = p->model;
  for (rsp_task_id t = range->first; t < range->end; t++) {
    const rsp_run_id *run_ids;
    const rsp_sleep_id *sleep_ids;
    const uint64_t *run_starts, *sleep_starts;
    uint32_t n_runs = rsp_model_task_runs(m, t, &run_ids, &run_starts);
    uint32_t n_sleeps = rsp_model_task_sleeps(m, t, &sleep_ids, &sleep_starts);
    timeline *tl = &p->timelines[t];
    uint32_t *run_pos = range->run_pos + range->run_base[t], *sleep_pos = range->sleep_pos + range->sleep_base[t];
    tl->items = g_new(tl_item, (size_t)n_runs + n_sleeps + 1);
    uint32_t ri = 0, si = 0;
    while (ri < n_runs || si < n_sleeps) {
      bool take_run = si == n_sleeps || (ri < n_runs && run_starts[ri] <= sleep_starts[si]);
      tl_item *it = &tl->items[tl->n];
      if (take_run) {
        if (ri + TIMELINE_AHEAD < n_runs)
          __builtin_prefetch(rsp_model_run(m, run_ids[ri + TIMELINE_AHEAD]));
        rsp_run_id r = run_ids[ri];
        const rsp_run *run = rsp_model_run(m, r);
        *it = (tl_item){ run->start, run->end, r, RSP_NO_ID, 1, RSP_ELEM_RUN, 0 };
        run_pos[ri] = tl->n++;
        ri++;
        continue;
      }
      if (si + TIMELINE_AHEAD < n_sleeps)
        __builtin_prefetch(rsp_model_sleep(m, sleep_ids[si + TIMELINE_AHEAD]));
      rsp_sleep_id s = sleep_ids[si];
      const rsp_sleep *sl = rsp_model_sleep(m, s);
      *it = (tl_item){ sl->start, sl->end, s, s, 1, RSP_ELEM_SLEEP, si };
      sleep_pos[si] = tl->n;
      si++;
      /* a poll loop: the next sleeps with the same stack, after short runs, the earlier ones timed out */
      for (uint32_t fold; (fold = poll_continues(p, t, si, rsp_model_sleep(m, it->last_sleep))) > 0;) {
        for (; fold > 0; fold--, si++) {
          rsp_sleep_id nx = sleep_ids[si];
          /* the runs in between are folded into the merged sleep */
          while (ri < n_runs && run_starts[ri] < sleep_starts[si])
            run_pos[ri++] = tl->n;
          it->last_sleep = nx;
          it->end = rsp_model_sleep(m, nx)->end;
          it->n_merged++;
          sleep_pos[si] = tl->n;
        }
      }
      tl->n++;
    }
  }
  return NULL;
}

/* Whether COUNT runs and sleeps (or elements) are worth a second thread: 65536 (fewer: a second costs more than it
 * saves), or RSP_PATHS_THREAD_ITEMS, which tests lower so that small recordings are split too. */
static bool two_threads_for(uint64_t count)
{
  const char *bar = g_getenv("RSP_PATHS_THREAD_ITEMS");
  uint64_t min = bar && *bar ? g_ascii_strtoull(bar, NULL, 10) : 65536;
  return count >= MAX(min, 2) && rsp_threads_wanted() > 1;
}

static void build_timelines(rsp_paths *p)
{
  const rsp_model *m = p->model;
  uint32_t nt = rsp_model_n_tasks(m);
  uint32_t nr = rsp_model_n_runs(m), ns = rsp_model_n_sleeps(m);
  p->timelines = g_new0(timeline, nt ? nt : 1);
  p->run_item = g_new(uint32_t, nr ? nr : 1);
  p->sleep_item = g_new(uint32_t, ns ? ns : 1);
  uint32_t *run_base = g_new(uint32_t, (size_t)nt + 1), *sleep_base = g_new(uint32_t, (size_t)nt + 1);
  run_base[0] = sleep_base[0] = 0;
  for (rsp_task_id t = 0; t < nt; t++) {
    run_base[t + 1] = run_base[t] + rsp_model_task(m, t)->n_runs;
    sleep_base[t + 1] = sleep_base[t] + rsp_model_task(m, t)->n_sleeps;
  }
  uint32_t *run_pos = g_new(uint32_t, run_base[nt] ? run_base[nt] : 1);
  uint32_t *sleep_pos = g_new(uint32_t, sleep_base[nt] ? sleep_base[nt] : 1);
  uint64_t items = (uint64_t)nr + ns;
  timeline_range all = { p, 0, nt, run_base, sleep_base, run_pos, sleep_pos };
  if (!two_threads_for(items)) {
    build_timeline_range(&all);
  } else {
    /* two halves of the items, split between tasks: before the task that crosses the middle, or after it,
     * whichever is nearer (a ping-pong's two threads may hold most of them) */
    rsp_task_id split = 0;
    uint64_t before = 0;
    for (; split < nt; split++) {
      uint64_t after = before + rsp_model_task(m, split)->n_runs + rsp_model_task(m, split)->n_sleeps;
      if (after * 2 >= items) {
        if (after * 2 - items < items - before * 2)
          split++;
        break;
      }
      before = after;
    }
    timeline_range second = all;
    second.first = split;
    GThread *thread = g_thread_new("rsp-timelines", build_timeline_range, &second);
    all.end = split;
    build_timeline_range(&all);
    g_thread_join(thread);
  }
  /* by id, on one thread */
  for (rsp_task_id t = 0; t < nt; t++) {
    const rsp_task *task = rsp_model_task(m, t);
    for (uint32_t ri = 0; ri < task->n_runs; ri++)
      p->run_item[rsp_model_task_run(m, t, ri)] = run_pos[run_base[t] + ri];
    for (uint32_t si = 0; si < task->n_sleeps; si++)
      p->sleep_item[rsp_model_task_sleep(m, t, si)] = sleep_pos[sleep_base[t] + si];
  }
  g_free(run_pos);
  g_free(sleep_pos);
  g_free(run_base);
  g_free(sleep_base);
}

static rsp_run_id ender_run(const rsp_paths *p, const tl_item *it, rsp_task_id task);

static rsp_elem_id add_elem(rsp_paths *p, const tl_item *it, uint64_t start, uint64_t end, rsp_task_id task,
                            rsp_path_id path, rsp_elem_id parent, uint16_t depth)
{
  rsp_path_elem e = { .start = start, .end = end, .id = it->id, .task = task, .path = path,
                      .parent = parent, .depth = depth, .kind = it->kind, .n_merged = it->n_merged };
  if (start > it->start)
    e.flags |= RSP_ELEM_CUT;
  if (it->kind == RSP_ELEM_SLEEP && it->n_merged > 1)
    e.flags |= RSP_ELEM_MERGED_POLLS;
  rsp_elem_id id = p->elems->len;
  g_array_set_size(p->elems, id + 1); /* cheaper than g_array_append_val's copy through a call */
  g_array_index(p->elems, rsp_path_elem, id) = e;
  /* what rsp_paths_elem_sleep and rsp_paths_elem_ender need of the item, kept past the timelines */
  g_array_set_size(p->elem_sleep_index, id + 1);
  g_array_index(p->elem_sleep_index, uint32_t, id) = it->kind == RSP_ELEM_SLEEP ? it->first_task_sleep : 0;
  if (it->kind == RSP_ELEM_SLEEP && rsp_model_sleep(p->model, it->last_sleep)->end_cause == RSP_SLEEP_END_NETWORK)
    g_hash_table_insert(p->net_enders, GUINT_TO_POINTER(id), GUINT_TO_POINTER(ender_run(p, it, task)));
  p->task_on_path[task] = 1;
  if (it->kind == RSP_ELEM_RUN) {
    p->run_elem[it->id] = id;
  } else if (it->kind == RSP_ELEM_SLEEP) {
    /* every sleep it stands for */
    for (rsp_sleep_id s = it->id; s <= it->last_sleep; s++)
      if (rsp_model_sleep(p->model, s)->task == task && p->sleep_item[s] == p->sleep_item[it->id])
        p->sleep_elem[s] = id;
  }
  return id;
}

static rsp_path_id new_path(rsp_paths *p, rsp_path_id parent)
{
  rsp_path np = { .start = UINT64_MAX, .end = 0, .parent_path = parent };
  g_array_append_val(p->paths, np);
  return p->paths->len - 1;
}

/* How many of TL's items start at or before TIME. */
static uint32_t items_up_to(const timeline *tl, uint64_t time)
{
  uint32_t lo = 0, hi = tl->n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (tl->items[mid].start <= time)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static bool claimed(const rsp_paths *p, const tl_item *it)
{
  return it->kind == RSP_ELEM_RUN ? p->run_elem[it->id] != RSP_NO_ID : p->sleep_elem[it->id] != RSP_NO_ID;
}

/* The run that woke sleep item IT (of TASK), when another task's run did. */
static rsp_run_id waker_run(const rsp_paths *p, rsp_sleep_id last_sleep, rsp_task_id task)
{
  const rsp_sleep *s = rsp_model_sleep(p->model, last_sleep);
  if (s->wake_link == RSP_NO_ID || s->wake_link >= rsp_model_n_links(p->model))
    return RSP_NO_ID;
  const rsp_link *l = rsp_model_link(p->model, s->wake_link);
  if (l->kind != RSP_LINK_WAKEUP && l->kind != RSP_LINK_EXIT_WAIT)
    return RSP_NO_ID;
  if (l->from_run == RSP_NO_ID || l->from_run >= rsp_model_n_runs(p->model))
    return RSP_NO_ID;
  if (rsp_model_run(p->model, l->from_run)->task == task)
    return RSP_NO_ID;
  return l->from_run;
}

rsp_run_id rsp_paths_loopback_peer_run(const rsp_model *model, const rsp_sleep *s)
{
  if (s->wake_link == RSP_NO_ID || s->wake_link >= rsp_model_n_links(model))
    return RSP_NO_ID;
  rsp_run_id to = rsp_model_link(model, s->wake_link)->to_run;
  if (to == RSP_NO_ID || to >= rsp_model_n_runs(model))
    return RSP_NO_ID;
  uint32_t n;
  rsp_link_id first = rsp_model_run_links_in(model, to, &n);
  for (uint32_t i = 0; i < n; i++) {
    const rsp_link *l = rsp_model_link(model, first + i);
    if (l->kind == RSP_LINK_WAKEUP && l->from_run != RSP_NO_ID && l->from_run < rsp_model_n_runs(model) &&
        rsp_model_run(model, l->from_run)->task != s->task)
      return l->from_run;
  }
  return RSP_NO_ID;
}

static int by_task_complete(const void *a, const void *b, void *data)
{
  const rsp_model *model = data;
  const rsp_disk_op *x = rsp_model_disk_op(model, *(const uint32_t *)a);
  const rsp_disk_op *y = rsp_model_disk_op(model, *(const uint32_t *)b);
  if (x->task != y->task)
    return x->task < y->task ? -1 : 1;
  if (x->complete_time != y->complete_time)
    return x->complete_time < y->complete_time ? -1 : 1;
  return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void index_disk_ops(rsp_paths *p)
{
  uint32_t n = rsp_model_n_disk_ops(p->model);
  p->disk_by_task = g_new(uint32_t, n ? n : 1);
  for (uint32_t i = 0; i < n; i++) {
    const rsp_disk_op *d = rsp_model_disk_op(p->model, i);
    if (d->task != RSP_NO_ID && d->complete_time && !(d->flags & RSP_DISK_NO_COMPLETE))
      p->disk_by_task[p->n_disk_by_task++] = i;
  }
  g_qsort_with_data(p->disk_by_task, (gint)p->n_disk_by_task, sizeof(uint32_t), by_task_complete,
                    (gpointer)p->model);
  /* each task's range, so that a sleep of a task with no disk request (most of them) looks for none: a binary
   * search of all of them per sleep was a quarter of the walk's instructions on deep3m */
  uint32_t nt = rsp_model_n_tasks(p->model);
  p->disk_first = g_new0(uint32_t, (size_t)nt + 1);
  for (uint32_t i = 0; i < p->n_disk_by_task; i++) {
    rsp_task_id t = rsp_model_disk_op(p->model, p->disk_by_task[i])->task;
    if (t < nt)
      p->disk_first[t + 1]++;
  }
  for (uint32_t t = 0; t < nt; t++)
    p->disk_first[t + 1] += p->disk_first[t];
}

static void add_disk_child(rsp_paths *p, rsp_elem_id sid, const rsp_path_elem *se, rsp_disk_op_id op)
{
  const rsp_disk_op *d = rsp_model_disk_op(p->model, op);
  uint64_t a = MAX(d->insert_time, se->start), b = d->complete_time ? MIN(d->complete_time, se->end) : se->end;
  if (b > a) {
    tl_item it = { d->insert_time, b, op, RSP_NO_ID, 1, RSP_ELEM_DISK, 0 };
    add_elem(p, &it, a, b, se->task, se->path, sid, se->depth + 1);
  }
}

/* The sleeper's own requests that completed during the sleep and ended no other sleep: what an
 * fsync (say) waited on, though the wakeup came through a worker thread. */
static void add_own_disk_ops(rsp_paths *p, rsp_elem_id sid, const rsp_path_elem *se, rsp_disk_op_id linked)
{
  uint32_t lo = p->disk_first[se->task], end = p->disk_first[se->task + 1], hi = end;
  while (lo < hi) { /* the first of the task completing after the sleep's start */
    uint32_t mid = lo + (hi - lo) / 2;
    if (rsp_model_disk_op(p->model, p->disk_by_task[mid])->complete_time <= se->start)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (uint32_t i = lo; i < end; i++) {
    rsp_disk_op_id op = p->disk_by_task[i];
    const rsp_disk_op *d = rsp_model_disk_op(p->model, op);
    if (d->complete_time > se->end)
      break;
    if (op == linked || (d->sleep != RSP_NO_ID && d->sleep < rsp_model_n_sleeps(p->model) &&
                         p->sleep_elem[d->sleep] != sid))
      continue;
    add_disk_child(p, sid, se, op);
  }
}

/* Whether TASK descends (fork or exec) from the process of interest: its work before a sleep of
 * the paths was started by the paths themselves, so it is parallelism to count, not a triangle's
 * third party whose earlier life is someone else's business. */
static bool descends_from_interest(const rsp_paths *p, rsp_task_id task)
{
  const rsp_model *m = p->model;
  for (unsigned hops = 0; task != RSP_NO_ID && task < rsp_model_n_tasks(m) && hops < 256; hops++) {
    const rsp_task *t = rsp_model_task(m, task);
    if (t->pid == p->pid)
      return true;
    task = t->prev_generation != RSP_NO_ID ? t->prev_generation : t->parent;
  }
  return false;
}

/* The part of a waker's timeline before CUT (item IDX of TASK, cut at time CUT) that no path holds:
 * when it holds a run, it ran in parallel with the sleeper's path and becomes a control path of its
 * own (paper, "Recursive Stack Making": "If the child does not fit, we declare it to be of a
 * different control path"; "Total time": parallelism counted). When the cut item is a sleep, its
 * part before CUT is left out: what it waited on is followed from its part after CUT (and that
 * waker's own earlier part becomes a path by this same rule), so no path merely waits on another. */
static void add_earlier_part(rsp_paths *p, rsp_path_id parent_path, rsp_task_id task, uint32_t idx, uint32_t floor,
                             uint64_t cut, GArray *queue)
{
  const timeline *tl = &p->timelines[task];
  uint32_t first = idx;
  while (first > floor && !claimed(p, &tl->items[first - 1]) && tl->items[first - 1].end > p->lo)
    first--;
  uint32_t last = tl->items[idx].kind == RSP_ELEM_RUN ? idx + 1 : idx; /* one past the last item taken */
  bool work = false;
  for (uint32_t i = first; i < last; i++)
    work |= tl->items[i].kind == RSP_ELEM_RUN && tl->items[i].start < cut;
  if (!work)
    return;
  rsp_path_id path = new_path(p, parent_path);
  for (uint32_t i = first; i < last; i++) {
    const tl_item *it = &tl->items[i];
    uint64_t a = MAX(it->start, p->lo), b = MIN(MIN(it->end, cut), p->hi);
    if (b <= a)
      continue;
    rsp_elem_id e = add_elem(p, it, a, b, task, path, RSP_NO_ID, 0);
    if (it->kind == RSP_ELEM_SLEEP)
      g_array_append_val(queue, e);
  }
}


static bool loopback_remote(const char *remote)
{
  return !remote || g_str_has_prefix(remote, "127.") || g_str_has_prefix(remote, "[::1]") ||
         g_str_has_prefix(remote, "::1") || g_str_has_prefix(remote, "[::ffff:127.");
}

/* Which task owns each end of the loopback connections the trace gave the ports of: the last task
 * to send or receive on a socket with those ports. */
static void index_sockets(rsp_paths *p)
{
  p->socket_owner = g_hash_table_new(g_direct_hash, g_direct_equal);
  p->task_sends = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_array_unref);
  for (rsp_net_op_id i = 0; i < rsp_model_n_net_ops(p->model); i++) {
    const rsp_net_op *op = rsp_model_net_op(p->model, i);
    if (!op->sport || !op->dport || op->task == RSP_NO_ID || !loopback_remote(op->remote))
      continue;
    g_hash_table_insert(p->socket_owner, GUINT_TO_POINTER((guint)op->sport << 16 | op->dport),
                        GUINT_TO_POINTER(op->task + 1));
    GArray *sends = g_hash_table_lookup(p->task_sends, GUINT_TO_POINTER(op->task));
    if (!sends) {
      sends = g_array_new(FALSE, FALSE, sizeof(rsp_net_op_id));
      g_hash_table_insert(p->task_sends, GUINT_TO_POINTER(op->task), sends);
    }
    g_array_append_val(sends, i);
  }
}

/* The task at the other end of loopback net op OP, by the ports, else RSP_NO_ID. */
static rsp_task_id socket_peer(const rsp_paths *p, const rsp_net_op *op)
{
  guint t = GPOINTER_TO_UINT(
    g_hash_table_lookup(p->socket_owner, GUINT_TO_POINTER((guint)op->dport << 16 | op->sport)));
  return t == 0 || t - 1 == op->task ? RSP_NO_ID : t - 1;
}

static bool for_paths(const rsp_paths *p, rsp_task_id task)
{
  return task != RSP_NO_ID && (rsp_model_task(p->model, task)->pid == p->pid || p->task_on_path[task]);
}

/* Whether TASK's work from START to END answered the paths: one of its runs in it woke a task of the
 * process of interest or of the paths, or it sent on a loopback connection whose other end is one
 * (the reply a thread that did not wait for it reads later). Work that answered nobody (a kworker's
 * second errand, a client's own processing after a server's reply woke it) was not asked for. */
static bool answers_paths(const rsp_paths *p, rsp_task_id task, const tl_item *items, uint32_t first,
                          uint32_t last)
{
  const rsp_model *m = p->model;
  for (uint32_t j = first; j < last; j++) {
    if (items[j].kind != RSP_ELEM_RUN)
      continue;
    uint32_t n;
    const rsp_link_id *out = rsp_model_run_links_out(m, items[j].id, &n);
    for (uint32_t k = 0; k < n; k++) {
      const rsp_link *l = rsp_model_link(m, out[k]);
      if (l->to_run != RSP_NO_ID && l->to_run < rsp_model_n_runs(m) && rsp_model_run(m, l->to_run)->task != task &&
          for_paths(p, rsp_model_run(m, l->to_run)->task))
        return true;
    }
  }
  GArray *sends = g_hash_table_lookup(p->task_sends, GUINT_TO_POINTER(task));
  if (!sends)
    return false;
  uint64_t start = items[first].start, end = items[last - 1].end;
  uint32_t lo = 0, hi = sends->len; /* the first op starting at or after START */
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (rsp_model_net_op(m, g_array_index(sends, rsp_net_op_id, mid))->start < start)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (uint32_t k = lo; k < sends->len; k++) {
    const rsp_net_op *op = rsp_model_net_op(m, g_array_index(sends, rsp_net_op_id, k));
    if (op->start > end)
      break;
    if (for_paths(p, socket_peer(p, op)))
      return true;
  }
  return false;
}

/* For a sleep the network ended with no sender's run to name (the data was delivered by a softirq
 * the sleeper ran itself): the task at the other end of its loopback connection, by the ports. */
static rsp_task_id loopback_peer_task(const rsp_paths *p, const rsp_sleep *s)
{
  if (s->net_op == RSP_NO_ID || s->net_op >= rsp_model_n_net_ops(p->model))
    return RSP_NO_ID;
  const rsp_net_op *op = rsp_model_net_op(p->model, s->net_op);
  if (!op->sport || !op->dport || !loopback_remote(op->remote))
    return RSP_NO_ID;
  rsp_task_id peer = socket_peer(p, op);
  return peer == s->task ? RSP_NO_ID : peer;
}

/* The run of TASK at TIME, else its last run before it. */
static rsp_run_id run_at_or_before(const rsp_paths *p, rsp_task_id task, uint64_t time)
{
  const timeline *tl = &p->timelines[task];
  for (uint32_t i = items_up_to(tl, time); i-- > 0;)
    if (tl->items[i].kind == RSP_ELEM_RUN)
      return tl->items[i].id;
  return RSP_NO_ID;
}

/* The run that ended sleep item IT of TASK: its waker's, or on loopback the sending peer's: the run
 * whose send fired the wakeup, else (the data delivered by a softirq the sleeper or a third task ran)
 * the last run up to the wakeup of the task at the connection's other end, by the ports. */
static rsp_run_id ender_run(const rsp_paths *p, const tl_item *it, rsp_task_id task)
{
  const rsp_sleep *last = rsp_model_sleep(p->model, it->last_sleep);
  if (last->end_cause != RSP_SLEEP_END_NETWORK)
    return waker_run(p, it->last_sleep, task);
  rsp_run_id r = rsp_paths_loopback_peer_run(p->model, last);
  if (r != RSP_NO_ID)
    return r;
  rsp_task_id peer = loopback_peer_task(p, last);
  return peer == RSP_NO_ID ? RSP_NO_ID : run_at_or_before(p, peer, last->wake_time ? last->wake_time : last->end);
}


/* Whether sleep item IT of TASK is a wait for another party (a server back in its poll for the next
 * request): a blocked wait ended by the process of interest, a run on the paths, a task off the paths,
 * data from outside, a timer or a device. Waits on its own disk I/O, on a kernel thread's errand (jbd2
 * ending an fsync), or on another server of the paths (a postgres backend woken by the one that flushed
 * the WAL for it, php-fpm by PostgreSQL's answer) are part of its work. */
typedef enum { PART_OF_WORK, REQUEST_OF_PATHS, REQUEST_OF_OTHERS } wait_kind;
static wait_kind classify_wait(const rsp_paths *p, const tl_item *it, rsp_task_id task)
{
  if (it->kind != RSP_ELEM_SLEEP)
    return PART_OF_WORK;
  const rsp_sleep *last = rsp_model_sleep(p->model, it->last_sleep);
  if (!blocked(last) || last->end_cause == RSP_SLEEP_END_DISK)
    return PART_OF_WORK;
  rsp_run_id r = ender_run(p, it, task);
  rsp_task_id by = r != RSP_NO_ID ? rsp_model_run(p->model, r)->task
                   : last->end_cause == RSP_SLEEP_END_NETWORK ? loopback_peer_task(p, last) : RSP_NO_ID;
  if (by == RSP_NO_ID)
    return REQUEST_OF_OTHERS; /* data from outside, a timer (an idle server's housekeeping), a device, an end not recorded */
  if (rsp_model_task(p->model, by)->pid == p->pid || (r != RSP_NO_ID && p->run_elem[r] != RSP_NO_ID))
    return REQUEST_OF_PATHS;
  return !p->task_on_path[by] && !rsp_task_is_kernel_thread(p->model, by) ? REQUEST_OF_OTHERS : PART_OF_WORK;
}

static bool waits_for_another(const rsp_paths *p, const tl_item *it, rsp_task_id task)
{
  return classify_wait(p, it, task) != PART_OF_WORK;
}

/* Whether a third party's work before the cut (item IDX of TASK) was asked for by the paths: walking
 * back over its unclaimed items, the first wait for another party it made (waits_for_another) was ended
 * by the process of interest or by a run already on a path (a postgres backend handed a query by one
 * pgbench thread, working while that thread waits on another connection; php-fpm given a request by
 * nginx); on loopback with no sender's run to name, the connection's other end is theirs. Its work
 * since then ran in parallel with the paths for them; *FLOOR is the first item after that wait. A
 * server's work for anybody else began with somebody else's wakeup, or with data from outside. Work
 * that goes on from a run on the paths with no such wait between is that run's rest (CONTINUES_PATH). */
/* Whether RUN woke a task of the process of interest. */
static bool woke_interest(const rsp_paths *p, rsp_run_id run)
{
  const rsp_model *m = p->model;
  uint32_t n;
  const rsp_link_id *out = rsp_model_run_links_out(m, run, &n);
  for (uint32_t k = 0; k < n; k++) {
    const rsp_link *l = rsp_model_link(m, out[k]);
    if (l->kind == RSP_LINK_WAKEUP && l->to_run != RSP_NO_ID && l->to_run < rsp_model_n_runs(m) &&
        rsp_model_task(m, rsp_model_run(m, l->to_run)->task)->pid == p->pid)
      return true;
  }
  return false;
}

typedef enum { NOT_REQUESTED, REQUESTED, CONTINUES_PATH } request_kind;
/* How many items back a request is looked for: a task that never blocks (a cpu hog preempted 100,000
 * times) is nobody's server, and is not walked over again for every run. */
#define RSP_REQUEST_LOOKBACK 512u
static request_kind requested_by_paths(const rsp_paths *p, rsp_task_id task, uint32_t idx, uint32_t *floor)
{
  const timeline *tl = &p->timelines[task];
  for (uint32_t i = idx; i-- > 0;) {
    const tl_item *it = &tl->items[i];
    if (it->end <= p->lo || idx - i > RSP_REQUEST_LOOKBACK)
      return NOT_REQUESTED;
    if (claimed(p, it)) {
      /* the rest of a run on the paths that woke the process of interest, which took its cpu at once
       * (a backend's reply: pgbench preempts it in its send) */
      if (it->kind != RSP_ELEM_RUN || i + 2 != idx || !woke_interest(p, it->id))
        return NOT_REQUESTED;
      *floor = i + 1;
      return CONTINUES_PATH;
    }
    wait_kind w = classify_wait(p, it, task);
    if (w == PART_OF_WORK)
      continue;
    if (w == REQUEST_OF_PATHS)
      *floor = i + 1;
    return w == REQUEST_OF_PATHS ? REQUESTED : NOT_REQUESTED;
  }
  return NOT_REQUESTED;
}

/* The work the paths asked of the servers on them that no wait of theirs took as its child: a
 * backend's query for one connection of a pgbench thread, answered while that thread waited on its
 * other connection, or handled while it still ran and was never waited for. Each stretch of a
 * server's unclaimed items, from the wait the paths ended (requested_by_paths) to its next wait for
 * another task, is a control path of its own (paper, "Total time": parallelism counted). Only
 * processes already on the paths: this adds their work, never a process. */
static void add_requested_work(rsp_paths *p, GArray *queue)
{
  const rsp_model *m = p->model;
  uint32_t nt = rsp_model_n_tasks(m);
  typedef struct stretch { rsp_task_id task; uint32_t first, last; } stretch;
  GArray *stretches = g_array_new(FALSE, FALSE, sizeof(stretch));
  GArray *servers = g_array_new(FALSE, FALSE, sizeof(rsp_task_id));
  for (rsp_task_id t = 0; t < nt; t++)
    if (p->task_on_path[t] && rsp_model_task(m, t)->pid != p->pid && !rsp_task_is_kernel_thread(m, t))
      g_array_append_val(servers, t);
  for (guint k = 0; k < servers->len; k++) {
    rsp_task_id t = g_array_index(servers, rsp_task_id, k);
    const timeline *tl = &p->timelines[t];
    for (uint32_t i = 0; i < tl->n; i++) {
      const tl_item *it = &tl->items[i];
      uint32_t floor;
      if (it->kind != RSP_ELEM_RUN || claimed(p, it) || it->end <= p->lo || it->start >= p->hi)
        continue;
      request_kind how = requested_by_paths(p, t, i, &floor);
      if (how == NOT_REQUESTED) {
        /* the runs up to the next wait for another party, or the next item on the paths, would look
         * back to the same wait: not asked for either */
        while (i + 1 < tl->n && !claimed(p, &tl->items[i + 1]) && !waits_for_another(p, &tl->items[i + 1], t))
          i++;
        continue;
      }
      uint32_t last = i + 1; /* one past the stretch (the rest of a run on the paths: that run alone) */
      while (how == REQUESTED && last < tl->n && !claimed(p, &tl->items[last]) &&
             !waits_for_another(p, &tl->items[last], t) && tl->items[last].start < p->hi)
        last++;
      while (tl->items[last - 1].kind != RSP_ELEM_RUN) /* it ends with work, not a wait nobody ended */
        last--;
      /* work that leads into a run on the paths (the start of a request whose answer is on them) */
      bool leads_on = last < tl->n && tl->items[last].kind == RSP_ELEM_RUN && claimed(p, &tl->items[last]);
      if (how != CONTINUES_PATH && !leads_on && !answers_paths(p, t, tl->items, floor, last)) {
        i = last - 1;
        continue;
      }
      stretch st = { t, floor, last };
      g_array_append_val(stretches, st);
      i = last - 1;
    }
  }
  /* added once all are found: each is judged by the claims of the waits alone (a stretch taken here is
   * no run on the paths for the next one to go on from) */
  for (guint k = 0; k < stretches->len; k++) {
    const stretch *st = &g_array_index(stretches, stretch, k);
    const timeline *tl = &p->timelines[st->task];
    rsp_path_id path = new_path(p, 0);
    for (uint32_t j = st->first; j < st->last; j++) {
      const tl_item *x = &tl->items[j];
      uint64_t a = MAX(x->start, p->lo), b = MIN(x->end, p->hi);
      if (b <= a)
        continue;
      rsp_elem_id e = add_elem(p, x, a, b, st->task, path, RSP_NO_ID, 0);
      if (x->kind == RSP_ELEM_SLEEP)
        g_array_append_val(queue, e);
    }
  }
  g_array_free(stretches, TRUE);
  g_array_free(servers, TRUE);
}

/* A waker that did not exist when the sleep began was created during it, and what made the wakeup
 * possible began in its creator: the item of its parent's timeline that forked it (*CLIP: the fork's
 * time, where that item's part on the chain ends), so that the chain goes on back from there (the
 * dovecot master forking imap after imap-login, woken by auth, told it the login was good). */
static bool creator_item(const rsp_paths *p, rsp_task_id task, uint64_t s0, rsp_task_id *parent, uint32_t *idx,
                         uint64_t *clip)
{
  const rsp_model *m = p->model;
  const rsp_task *t = rsp_model_task(m, task);
  if (t->parent == RSP_NO_ID || t->parent >= rsp_model_n_tasks(m) || t->prev_generation != RSP_NO_ID ||
      !t->start || t->start <= s0)
    return false;
  uint32_t lo = items_up_to(&p->timelines[t->parent], t->start); /* the last starts at or before the fork */
  if (lo == 0)
    return false;
  *parent = t->parent;
  *idx = lo - 1;
  *clip = t->start;
  return true;
}

/* A piece of a waker's chain, back from the waking run (process_sleep). */
typedef struct chain_link {
  rsp_task_id task;
  uint32_t idx;
  uint64_t start, end;
} chain_link;

/* Appends L to P's chain scratch, of *N links so far. */
static void push_link(rsp_paths *p, uint32_t *n, chain_link l)
{
  if (*n == p->chain_cap) {
    p->chain_cap = p->chain_cap ? 2 * p->chain_cap : 64;
    p->chain = g_renew(chain_link, p->chain, p->chain_cap);
  }
  p->chain[(*n)++] = l;
}

static void process_sleep(rsp_paths *p, rsp_elem_id sid, GArray *queue)
{
  rsp_path_elem se = g_array_index(p->elems, rsp_path_elem, sid);
  const tl_item *sit = &p->timelines[se.task].items[p->sleep_item[se.id]];
  const rsp_sleep *last = rsp_model_sleep(p->model, sit->last_sleep);
  uint64_t s0 = se.start, s1 = se.end;
  if (last->preempted || last->end_cause == RSP_SLEEP_END_PREEMPTED)
    return; /* it never blocked */

  rsp_disk_op_id linked = RSP_NO_ID;
  if (last->end_cause == RSP_SLEEP_END_DISK && last->disk_op != RSP_NO_ID &&
      last->disk_op < rsp_model_n_disk_ops(p->model)) {
    linked = last->disk_op;
    add_disk_child(p, sid, &se, linked);
  }
  add_own_disk_ops(p, sid, &se, linked);
  if (linked != RSP_NO_ID)
    return;
  rsp_run_id r = ender_run(p, sit, se.task);
  if (r == RSP_NO_ID && last->end_cause == RSP_SLEEP_END_NETWORK && last->net_op != RSP_NO_ID &&
      last->net_op < rsp_model_n_net_ops(p->model)) {
    const rsp_net_op *n = rsp_model_net_op(p->model, last->net_op);
    uint64_t a = MAX(n->start, s0), b = MIN(n->end, s1);
    if (b > a) {
      tl_item it = { n->start, b, last->net_op, RSP_NO_ID, 1, RSP_ELEM_NET, 0 };
      add_elem(p, &it, a, b, se.task, se.path, sid, se.depth + 1);
    }
    return;
  }
  if (r == RSP_NO_ID || p->run_elem[r] != RSP_NO_ID)
    return; /* nothing traced, or the waker is on a path already */
  const rsp_run *run = rsp_model_run(p->model, r);
  if (run->end <= s0 || run->start >= s1 + p->tolerance)
    return;
  rsp_task_id wt = run->task;
  uint32_t k = p->run_item[r];
  if (p->timelines[wt].items[k].kind != RSP_ELEM_RUN)
    return; /* folded into a poll loop */
  /* the chain: back from the waking run to the de facto start, cut there; through execs into the
   * generation before (an exec'd process's work began before its exec) */
  uint32_t n_chain = 0;
  rsp_task_id ct = wt;
  uint32_t idx = k;
  uint64_t clip = UINT64_MAX; /* the item's part after this is not on the chain (its creator's, after the fork) */
  rsp_task_id cut_task = RSP_NO_ID;
  uint32_t cut_idx = 0;
  for (;;) {
    const tl_item *it = &p->timelines[ct].items[idx];
    if (it->start + p->tolerance < s0 || it->start < p->lo) {
      chain_link l = { ct, idx, MAX(s0, p->lo), clip };
      if (MIN(it->end, clip) > l.start)
        push_link(p, &n_chain, l);
      if (it->start < s0 && s0 > p->lo) {
        cut_task = ct;
        cut_idx = idx;
      }
      break;
    }
    chain_link l = { ct, idx, it->start, clip };
    push_link(p, &n_chain, l);
    clip = UINT64_MAX;
    rsp_task_id nt = ct;
    uint32_t ni;
    if (idx > 0) {
      ni = idx - 1;
    } else {
      nt = rsp_model_task(p->model, ct)->prev_generation;
      if (nt != RSP_NO_ID && nt < rsp_model_n_tasks(p->model) && p->timelines[nt].n > 0) {
        ni = p->timelines[nt].n - 1;
      } else if (!creator_item(p, ct, s0, &nt, &ni, &clip)) {
        break;
      }
    }
    const tl_item *prev = &p->timelines[nt].items[ni];
    if (claimed(p, prev) || prev->end <= s0)
      break;
    ct = nt;
    idx = ni;
  }
  if (n_chain == 0)
    return;
  uint64_t chain_end = MIN(p->timelines[wt].items[k].end, p->hi);
  /* a child that fits, unless the pseudo-stack is as deep as a depth can say (a relay of 65,535 wakeups):
   * deeper chains start paths of their own */
  bool fits = chain_end <= s1 + p->tolerance && se.depth < UINT16_MAX - 1;
  rsp_path_id path = se.path;
  rsp_elem_id parent = sid;
  uint16_t depth = se.depth + 1;
  if (!fits) {
    path = new_path(p, se.path);
    parent = RSP_NO_ID;
    depth = 0;
  }
  /* a kernel thread's chain on a path of its own starts with its work: its idle wait before (a writeback kworker in
   * worker_thread until the interrupt that gave it work, 98 ms under dd's fsync) did nothing for the sleeper, whose
   * own wait its disk requests already explain */
  uint32_t top = n_chain;
  if (!fits && rsp_task_is_kernel_thread(p->model, wt))
    while (top > 1 && p->timelines[p->chain[top - 1].task].items[p->chain[top - 1].idx].kind == RSP_ELEM_SLEEP)
      top--;
  for (uint32_t i = top; i-- > 0;) {
    const chain_link *l = &p->chain[i];
    const tl_item *it = &p->timelines[l->task].items[l->idx];
    uint64_t b = MIN(MIN(it->end, l->end), p->hi);
    if (b <= l->start)
      continue;
    rsp_elem_id e = add_elem(p, it, l->start, b, l->task, path, parent, depth);
    if (it->kind == RSP_ELEM_SLEEP)
      g_array_append_val(queue, e);
  }
  uint32_t floor = 0;
  if (cut_task != RSP_NO_ID &&
      (descends_from_interest(p, cut_task) ||
       (!rsp_task_is_kernel_thread(p->model, cut_task) &&
        requested_by_paths(p, cut_task, cut_idx, &floor) != NOT_REQUESTED)))
    add_earlier_part(p, path, cut_task, cut_idx, floor, s0, queue);
}


/* Sort keys beside the element ids, so that sorting compares neighbouring memory and calls no
 * function: the indirect qsort of ids took 0.59 G instructions of the 1.34 G of building the paths of a
 * 2.3M-event recording (deep3m). Both orders are total (the id breaks ties), so any sort gives the same.
 * Each path's keys are sorted in a stretch of their own, so the path is not in them (16 bytes, not 24: the
 * 16 MB of deep3m's are touched for the first time, at a few microseconds a page fault). */
typedef struct order_key {
  uint32_t depth;
  uint32_t id;
  uint64_t start;
} order_key;

static inline bool order_before(const order_key *x, const order_key *y)
{
  if (x->depth != y->depth)
    return x->depth < y->depth;
  if (x->start != y->start)
    return x->start < y->start;
  return x->id < y->id;
}

RSP_DEFINE_NATURAL_MERGE_SORT(sort_order_keys, order_key, order_before)

typedef struct start_key {
  uint64_t start;
  uint32_t id;
} start_key;

static inline bool start_before(const start_key *x, const start_key *y)
{
  return x->start != y->start ? x->start < y->start : x->id < y->id;
}

RSP_DEFINE_NATURAL_MERGE_SORT(sort_start_keys, start_key, start_before)

/* ELEMS' ids IDS (N) by (start, id): most elements have one child or a few, in start order already. */
static void sort_by_start(const GArray *elems, uint32_t *ids, uint32_t n, GArray *scratch)
{
  if (n <= 16) {
    for (uint32_t i = 1; i < n; i++) {
      uint32_t v = ids[i];
      start_key kv = { g_array_index(elems, rsp_path_elem, v).start, v };
      uint32_t j = i;
      for (; j > 0; j--) {
        start_key kj = { g_array_index(elems, rsp_path_elem, ids[j - 1]).start, ids[j - 1] };
        if (!start_before(&kv, &kj))
          break;
        ids[j] = ids[j - 1];
      }
      ids[j] = v;
    }
    return;
  }
  g_array_set_size(scratch, n);
  start_key *keys = (start_key *)(void *)scratch->data;
  for (uint32_t i = 0; i < n; i++)
    keys[i] = (start_key){ g_array_index(elems, rsp_path_elem, ids[i]).start, ids[i] };
  sort_start_keys(keys, n);
  for (uint32_t i = 0; i < n; i++)
    ids[i] = keys[i].id;
}

/* Each element's children, by start. */
static gpointer index_children(gpointer data)
{
  rsp_paths *p = data;
  uint32_t n = p->elems->len;
  p->child_first = rsp_new_zeroed(uint32_t, n + 1);
  p->child_n = rsp_new_zeroed(uint32_t, n);
  for (uint32_t i = 0; i < n; i++) {
    const rsp_path_elem *e = &g_array_index(p->elems, rsp_path_elem, i);
    if (e->parent != RSP_NO_ID)
      p->child_n[e->parent]++;
  }
  for (uint32_t i = 0; i < n; i++)
    p->child_first[i + 1] = p->child_first[i] + p->child_n[i];
  p->children = g_new(uint32_t, p->child_first[n] ? p->child_first[n] : 1);
  memset(p->child_n, 0, sizeof(uint32_t) * n); /* counted again as they are placed */
  for (uint32_t i = 0; i < n; i++) {
    const rsp_path_elem *e = &g_array_index(p->elems, rsp_path_elem, i);
    if (e->parent != RSP_NO_ID)
      p->children[p->child_first[e->parent] + p->child_n[e->parent]++] = i;
  }
  GArray *scratch = g_array_new(FALSE, FALSE, sizeof(start_key));
  for (uint32_t i = 0; i < n; i++)
    if (p->child_n[i] > 1)
      sort_by_start(p->elems, p->children + p->child_first[i], p->child_n[i], scratch);
  g_array_free(scratch, TRUE);
  return NULL;
}

/* The elements in path order (by path, depth, start), and each one's children by start: two independent indexes,
 * the children's on a second thread when there are many (deep3m: 1M elements, 60 ms on one thread). */
static void index_elems(rsp_paths *p)
{
  uint32_t n = p->elems->len;
  GThread *children = two_threads_for(n) ? g_thread_new("rsp-children", index_children, p) : NULL;
  p->order = g_new(uint32_t, n ? n : 1);
  /* by path first (counting), then each path's own: its elements come breadth first, in (depth, start)
   * order but for a few stretches, which the natural merge sort takes in one or two passes */
  uint32_t n_paths = p->paths->len;
  uint32_t *path_first = g_new0(uint32_t, (size_t)n_paths + 1);
  for (uint32_t i = 0; i < n; i++)
    path_first[g_array_index(p->elems, rsp_path_elem, i).path + 1]++;
  for (uint32_t i = 0; i < n_paths; i++)
    path_first[i + 1] += path_first[i];
  order_key *keys = g_new(order_key, n ? n : 1);
  uint32_t *fill_path = g_memdup2(path_first, sizeof(uint32_t) * ((size_t)n_paths + 1));
  for (uint32_t i = 0; i < n; i++) {
    const rsp_path_elem *e = &g_array_index(p->elems, rsp_path_elem, i);
    keys[fill_path[e->path]++] = (order_key){ e->depth, i, e->start };
  }
  g_free(fill_path);
  for (uint32_t i = 0; i < n_paths; i++)
    sort_order_keys(keys + path_first[i], path_first[i + 1] - path_first[i]);
  g_free(path_first);
  for (uint32_t i = 0; i < n; i++)
    p->order[i] = keys[i].id;
  g_free(keys);
  for (uint32_t i = 0; i < n; i++) {
    const rsp_path_elem *e = &g_array_index(p->elems, rsp_path_elem, p->order[i]);
    rsp_path *path = &g_array_index(p->paths, rsp_path, e->path);
    if (path->n_elems++ == 0)
      path->first_elem_ = i;
    if (e->depth == 0) {
      path->start = MIN(path->start, e->start);
      path->end = MAX(path->end, e->end);
    }
  }
  if (children)
    g_thread_join(children);
  else
    index_children(p);
}

static void collect_tasks(rsp_paths *p)
{
  uint32_t nt = rsp_model_n_tasks(p->model);
  bool *seen = g_new0(bool, nt ? nt : 1);
  GHashTable *pids = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (uint32_t i = 0; i < p->elems->len; i++) {
    const rsp_path_elem *e = &g_array_index(p->elems, rsp_path_elem, i);
    if (e->task < nt && !seen[e->task]) {
      seen[e->task] = true;
      g_array_append_val(p->tasks, e->task);
      g_hash_table_add(pids, GINT_TO_POINTER(rsp_model_task(p->model, e->task)->pid));
    }
  }
  p->n_processes = g_hash_table_size(pids);
  g_hash_table_destroy(pids);
  g_free(seen);
}

rsp_paths *rsp_paths_build(const rsp_model *model, int32_t pid, const rsp_paths_options *options,
                           GError **error)
{
  uint32_t nt = rsp_model_n_tasks(model);
  bool any = false;
  for (rsp_task_id t = 0; t < nt && !any; t++)
    any = rsp_model_task(model, t)->pid == pid;
  if (!any) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "no process with pid %" G_GINT32_FORMAT, pid);
    return NULL;
  }
  rsp_paths *p = g_new0(rsp_paths, 1);
  p->model = model;
  p->pid = pid;
  p->tolerance = options && options->tolerance_set ? options->tolerance_ns : RSP_PARENT_CHILD_TOLERANCE_NS;
  p->poll_gap = options && options->poll_merge_gap_set ? options->poll_merge_gap_ns : RSP_POLL_MERGE_GAP_NS;
  p->lo = 0;
  p->hi = UINT64_MAX;
  if (options && (options->range_start || options->range_end)) {
    p->lo = options->range_start;
    p->hi = options->range_end ? options->range_end : UINT64_MAX;
  }
  p->elems = g_array_new(FALSE, FALSE, sizeof(rsp_path_elem));
  p->paths = g_array_new(FALSE, FALSE, sizeof(rsp_path));
  p->tasks = g_array_new(FALSE, FALSE, sizeof(rsp_task_id));
  p->elem_sleep_index = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  p->net_enders = g_hash_table_new(g_direct_hash, g_direct_equal);
  uint32_t nr = rsp_model_n_runs(model), ns = rsp_model_n_sleeps(model);
  p->run_elem = g_new(rsp_elem_id, nr ? nr : 1);
  p->sleep_elem = g_new(rsp_elem_id, ns ? ns : 1);
  memset(p->run_elem, 0xff, sizeof(rsp_elem_id) * (nr ? nr : 1));
  memset(p->sleep_elem, 0xff, sizeof(rsp_elem_id) * (ns ? ns : 1));
  p->task_on_path = g_new0(uint8_t, nt ? nt : 1);
  build_timelines(p);
  /* the walk below is serial: the model's runs by cpu, which the categories read next (who preempted a sleep),
   * are built beside it (40-50 ms of deep3m's 1.9M runs) */
  rsp_model_cpu_runs_ahead(model);
  index_disk_ops(p);
  index_sockets(p);

  GArray *queue = g_array_new(FALSE, FALSE, sizeof(rsp_elem_id));
  new_path(p, RSP_NO_ID);
  for (rsp_task_id t = 0; t < nt; t++) {
    if (rsp_model_task(model, t)->pid != pid)
      continue;
    const timeline *tl = &p->timelines[t];
    for (uint32_t i = 0; i < tl->n; i++) {
      const tl_item *it = &tl->items[i];
      uint64_t a = MAX(it->start, p->lo), b = MIN(it->end, p->hi);
      if (b <= a)
        continue;
      rsp_elem_id e = add_elem(p, it, a, b, t, 0, RSP_NO_ID, 0);
      if (it->kind == RSP_ELEM_SLEEP)
        g_array_append_val(queue, e);
    }
  }
  for (uint32_t q = 0; q < queue->len; q++)
    process_sleep(p, g_array_index(queue, rsp_elem_id, q), queue);
  uint32_t done = queue->len;
  add_requested_work(p, queue);
  for (uint32_t q = done; q < queue->len; q++)
    process_sleep(p, g_array_index(queue, rsp_elem_id, q), queue);
  g_array_free(queue, TRUE);
  g_free(p->chain);
  p->chain = NULL;

  /* the folded runs of merged polls belong to their sleep's element */
  for (rsp_run_id r = 0; r < nr; r++) {
    if (p->run_elem[r] != RSP_NO_ID)
      continue;
    const rsp_run *run = rsp_model_run(model, r);
    const tl_item *it = &p->timelines[run->task].items[p->run_item[r]];
    if (it->kind == RSP_ELEM_SLEEP)
      p->run_elem[r] = p->sleep_elem[it->id];
  }
  /* the timelines hold every run and sleep of the recording (48 MB of the view's 84 MB of paths on a 1.1 GB
   * recording): what is asked of an element later was kept as it was made (add_elem). Freed before the elements
   * are indexed, whose sort keys would come on top of them (the paths' peak) */
  for (rsp_task_id t = 0; t < nt; t++)
    g_free(p->timelines[t].items);
  g_clear_pointer(&p->timelines, g_free);
  g_clear_pointer(&p->run_item, g_free);
  g_clear_pointer(&p->sleep_item, g_free);
  index_elems(p);
  collect_tasks(p);
  p->head = (rsp_paths_head){(const rsp_path_elem *)(const void *)p->elems->data, p->elems->len};
  return p;
}

void rsp_paths_free(rsp_paths *p)
{
  if (!p)
    return;
  uint32_t nt = rsp_model_n_tasks(p->model);
  for (uint32_t t = 0; p->timelines && t < nt; t++)
    g_free(p->timelines[t].items);
  g_free(p->timelines);
  g_free(p->run_item);
  g_array_free(p->elem_sleep_index, TRUE);
  g_hash_table_destroy(p->net_enders);
  g_free(p->disk_by_task);
  g_free(p->disk_first);
  g_free(p->sleep_item);
  g_free(p->run_elem);
  g_free(p->sleep_elem);
  g_free(p->order);
  g_free(p->child_first);
  g_free(p->child_n);
  g_free(p->children);
  g_free(p->task_on_path);
  if (p->socket_owner)
    g_hash_table_destroy(p->socket_owner);
  if (p->task_sends)
    g_hash_table_destroy(p->task_sends);
  g_array_free(p->elems, TRUE);
  g_array_free(p->paths, TRUE);
  g_array_free(p->tasks, TRUE);
  g_free(p);
}

const rsp_model *rsp_paths_model(const rsp_paths *p) { return p->model; }
int32_t rsp_paths_pid(const rsp_paths *p) { return p->pid; }
uint32_t rsp_paths_n_paths(const rsp_paths *p) { return p->paths->len; }

const rsp_path *rsp_paths_path(const rsp_paths *p, rsp_path_id id)
{
  return id < p->paths->len ? &g_array_index(p->paths, rsp_path, id) : NULL;
}

uint32_t rsp_paths_n_elems(const rsp_paths *p) { return p->elems->len; }

const rsp_path_elem *rsp_paths_elem(const rsp_paths *p, rsp_elem_id id)
{
  return id < p->elems->len ? &g_array_index(p->elems, rsp_path_elem, id) : NULL;
}

rsp_elem_id rsp_paths_path_elem(const rsp_paths *p, rsp_path_id path, uint32_t i)
{
  const rsp_path *pa = rsp_paths_path(p, path);
  if (!pa || i >= pa->n_elems)
    return RSP_NO_ID;
  return p->order[pa->first_elem_ + i];
}

const rsp_elem_id *rsp_paths_children(const rsp_paths *p, rsp_elem_id elem, uint32_t *n)
{
  if (elem >= p->elems->len) {
    *n = 0;
    return NULL;
  }
  *n = p->child_n[elem];
  return p->children + p->child_first[elem];
}

uint32_t rsp_paths_n_tasks(const rsp_paths *p) { return p->tasks->len; }

rsp_task_id rsp_paths_task(const rsp_paths *p, uint32_t i)
{
  return i < p->tasks->len ? g_array_index(p->tasks, rsp_task_id, i) : RSP_NO_ID;
}

uint32_t rsp_paths_n_processes(const rsp_paths *p) { return p->n_processes; }

bool rsp_paths_has_run(const rsp_paths *p, rsp_run_id run)
{
  return run < rsp_model_n_runs(p->model) && p->run_elem[run] != RSP_NO_ID;
}

rsp_elem_id rsp_paths_run_elem(const rsp_paths *p, rsp_run_id run)
{
  return run < rsp_model_n_runs(p->model) ? p->run_elem[run] : RSP_NO_ID;
}

rsp_sleep_id rsp_paths_elem_sleep(const rsp_paths *p, rsp_elem_id elem, uint32_t i)
{
  const rsp_path_elem *e = rsp_paths_elem(p, elem);
  if (!e || e->kind != RSP_ELEM_SLEEP || i >= e->n_merged)
    return RSP_NO_ID;
  return rsp_model_task_sleep(p->model, e->task, g_array_index(p->elem_sleep_index, uint32_t, elem) + i);
}

rsp_run_id rsp_paths_elem_ender(const rsp_paths *p, rsp_elem_id elem)
{
  if (elem >= p->elems->len)
    return RSP_NO_ID;
  const rsp_path_elem *e = &g_array_index(p->elems, rsp_path_elem, elem);
  if (e->kind != RSP_ELEM_SLEEP)
    return RSP_NO_ID;
  rsp_sleep_id last = rsp_paths_elem_sleep(p, elem, e->n_merged ? e->n_merged - 1 : 0);
  if (last == RSP_NO_ID)
    return RSP_NO_ID;
  if (rsp_model_sleep(p->model, last)->end_cause != RSP_SLEEP_END_NETWORK)
    return waker_run(p, last, e->task);
  /* the sleep elements ended by loopback data had their enders found as they were made */
  gpointer run;
  return g_hash_table_lookup_extended(p->net_enders, GUINT_TO_POINTER(elem), NULL, &run) ? GPOINTER_TO_UINT(run)
                                                                                         : RSP_NO_ID;
}

bool rsp_paths_has_sleep(const rsp_paths *p, rsp_sleep_id sleep)
{
  return sleep < rsp_model_n_sleeps(p->model) && p->sleep_elem[sleep] != RSP_NO_ID;
}
