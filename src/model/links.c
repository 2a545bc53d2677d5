/* Links: "a link marks one run causing another" (paper, "Recursive Systemic Profiler"). Their
 * storage and indexes, the run/sleep of a task at a time, and the fork and exec links; the links
 * that end sleeps are made by sleep-ends.c. */
#include "model/model-private.h"
#include "reader/zeroed.h"
#include "reader/natural-merge-sort.h"

#include <string.h>

rsp_link_id rsp_links_add(rsp_model *m, const rsp_link *link)
{
  g_array_append_val(m->links, *link);
  return m->links->len - 1;
}

/* How many of the N times of TIMES from FIRST on are at or before TIME (STRICT: before it). */
static uint32_t count_up_to(const GArray *times, uint32_t first, uint32_t n, uint64_t time, bool strict)
{
  if (!n)
    return 0;
  return (uint32_t)rsp_count_before(&g_array_index(times, uint64_t, first), n, sizeof(uint64_t), time, !strict);
}

/* The number of TASK's runs starting at or before TIME. */
static uint32_t runs_started_by(const rsp_model *m, const rsp_task *t, uint64_t time)
{
  return count_up_to(m->task_run_starts, t->first_run_, t->n_runs, time, false);
}

rsp_run_id rsp_links_run_from(const rsp_model *m, rsp_task_id task, uint64_t time)
{
  if (task >= m->tasks->len)
    return RSP_NO_ID;
  const rsp_task *t = &g_array_index(m->tasks, rsp_task, task);
  /* first run with start >= time */
  uint32_t lo = count_up_to(m->task_run_starts, t->first_run_, t->n_runs, time, true);
  return lo < t->n_runs ? g_array_index(m->task_runs, uint32_t, t->first_run_ + lo) : RSP_NO_ID;
}

rsp_run_id rsp_links_run_before(const rsp_model *m, rsp_task_id task, uint64_t time)
{
  if (task >= m->tasks->len)
    return RSP_NO_ID;
  const rsp_task *t = &g_array_index(m->tasks, rsp_task, task);
  uint32_t n = runs_started_by(m, t, time);
  return n ? g_array_index(m->task_runs, uint32_t, t->first_run_ + n - 1) : RSP_NO_ID;
}

rsp_run_id rsp_model_run_at(const rsp_model *m, rsp_task_id task, uint64_t time)
{
  rsp_run_id id = rsp_links_run_before(m, task, time);
  if (id == RSP_NO_ID)
    return RSP_NO_ID;
  const rsp_run *r = &g_array_index(m->runs, rsp_run, id);
  return time < r->end || (time == r->start && r->start == r->end) ? id : RSP_NO_ID;
}

rsp_sleep_id rsp_model_sleep_at(const rsp_model *m, rsp_task_id task, uint64_t time)
{
  if (task >= m->tasks->len)
    return RSP_NO_ID;
  const rsp_task *t = &g_array_index(m->tasks, rsp_task, task);
  uint32_t lo = count_up_to(m->task_sleep_starts, t->first_sleep_, t->n_sleeps, time, false);
  if (!lo)
    return RSP_NO_ID;
  rsp_sleep_id id = g_array_index(m->task_sleeps, uint32_t, t->first_sleep_ + lo - 1);
  return time < g_array_index(m->sleeps, rsp_sleep, id).end ? id : RSP_NO_ID;
}

/* Fork: the forking run -> the child's first run. Exec: the old generation's last run -> the new
 * generation's first run. */
static void fork_and_exec_links(rsp_model *m)
{
  for (guint i = 0; i < m->tasks->len; i++) {
    const rsp_task *t = &g_array_index(m->tasks, rsp_task, i);
    if (!t->start || !t->n_runs)
      continue;
    rsp_run_id first = g_array_index(m->task_runs, uint32_t, t->first_run_);
    if (t->prev_generation != RSP_NO_ID) {
      const rsp_task *old = &g_array_index(m->tasks, rsp_task, t->prev_generation);
      rsp_link l = { .time = t->start, .from_run = RSP_NO_ID, .to_run = first, .sleep = RSP_NO_ID,
                     .op = RSP_NO_ID, .kind = RSP_LINK_EXEC };
      if (old->n_runs)
        l.from_run = g_array_index(m->task_runs, uint32_t, old->first_run_ + old->n_runs - 1);
      rsp_links_add(m, &l);
    } else if (t->parent != RSP_NO_ID) {
      /* The FORK record is written in the parent's context, inside its run (or just after it). */
      rsp_link l = { .time = t->start, .from_run = rsp_links_run_before(m, t->parent, t->start),
                     .to_run = first, .sleep = RSP_NO_ID, .op = RSP_NO_ID, .kind = RSP_LINK_FORK };
      rsp_links_add(m, &l);
    }
  }
}

static int link_order(const void *a, const void *b)
{
  const rsp_link *x = a, *y = b;
  if (x->to_run != y->to_run)
    return x->to_run < y->to_run ? -1 : 1; /* RSP_NO_ID (the recording ended first) last */
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static bool link_before(const rsp_link *x, const rsp_link *y)
{
  return link_order(x, y) < 0;
}

/* By link_order, for the few links of one run (and those of no run). */
RSP_DEFINE_NATURAL_MERGE_SORT(sort_links, rsp_link, link_before)

/* One half of sort_links_by_run's buckets (runs), [LO, HI): both halves read every link, each writes its own. */
typedef struct link_sort_half {
  rsp_link *a;
  guint n, n_runs;
  uint32_t lo, hi;
  uint32_t *first;  /* by bucket: its count (at bucket + 1), then its start */
  rsp_link *sorted;
} link_sort_half;

static void count_links_half(void *data)
{
  link_sort_half *h = data;
  for (guint i = 0; i < h->n; i++) {
    uint32_t r = MIN(h->a[i].to_run, h->n_runs);
    if (r >= h->lo && r < h->hi)
      h->first[r + 1]++;
  }
}

static void place_links_half(void *data)
{
  link_sort_half *h = data;
  const rsp_link *a = h->a;
  uint32_t *first = h->first;
  uint32_t *fill = g_memdup2(first + h->lo, sizeof(uint32_t) * (h->hi - h->lo));
  for (guint i = 0; i < h->n; i++) {
    uint32_t r = MIN(a[i].to_run, h->n_runs);
    if (r >= h->lo && r < h->hi)
      h->sorted[fill[r - h->lo]++] = a[i];
  }
  g_free(fill);
  for (uint32_t r = h->lo; r < h->hi; r++) {
    rsp_link *g = h->sorted + first[r];
    uint32_t k = first[r + 1] - first[r];
    if (k > 8) {
      sort_links(g, k);
      continue;
    }
    for (uint32_t i = 1; i < k; i++) { /* stable insertion */
      rsp_link v = g[i];
      uint32_t j = i;
      for (; j > 0 && link_before(&v, &g[j - 1]); j--)
        g[j] = g[j - 1];
      g[j] = v;
    }
  }
}

/* Back into the links, once both halves are placed (the other half reads them all till then). */
static void copy_links_half(void *data)
{
  link_sort_half *h = data;
  const uint32_t *first = h->first;
  memcpy(h->a + first[h->lo], h->sorted + first[h->lo], (size_t)(first[h->hi] - first[h->lo]) * sizeof *h->a);
}

/* M's links by link_order, stably: counted out by the run they end at (one pass each way), then each run's few
 * by time. The merge sort alone took most of rsp_links_finish: the links come by sleep, each task's in order,
 * which makes as many stretches as there are wakeups across tasks. Two halves of the runs, each on a thread, read
 * all the links and place their own (47 ms on one thread on deep3m's 1.9M links). */
static void sort_links_by_run(rsp_model *m)
{
  guint n = m->links->len, n_runs = m->runs->len;
  if (n < 2)
    return;
  rsp_link *a = (rsp_link *)(void *)m->links->data;
  /* bucket n_runs: RSP_NO_ID and any run id past the runs, last, as link_order puts them */
  uint32_t *first = rsp_new_zeroed(uint32_t, (size_t)n_runs + 2);
  rsp_link *sorted = g_new(rsp_link, n);
  uint32_t mid = (n_runs + 1) / 2;
  link_sort_half halves[2] = { { a, n, n_runs, 0, mid, first, sorted }, { a, n, n_runs, mid, n_runs + 1, first, sorted } };
  rsp_model_in_parallel(count_links_half, &halves[0], count_links_half, &halves[1]);
  for (guint r = 0; r <= n_runs; r++)
    first[r + 1] += first[r];
  rsp_model_in_parallel(place_links_half, &halves[0], place_links_half, &halves[1]);
  rsp_model_in_parallel(copy_links_half, &halves[0], copy_links_half, &halves[1]);
  g_free(sorted);
  g_free(first);
}

/* Each run's first incoming link, and each sleep's link that ended it. */
static void links_in(void *data)
{
  rsp_model *m = data;
  for (guint i = 0; i < m->runs->len; i++)
    g_array_index(m->runs, rsp_run, i).first_link_in = RSP_NO_ID;
  for (guint i = m->links->len; i-- > 0;) {
    const rsp_link *l = &g_array_index(m->links, rsp_link, i);
    if (l->to_run != RSP_NO_ID)
      g_array_index(m->runs, rsp_run, l->to_run).first_link_in = i;
  }
  /* Sleeps point at the link that ended them (marked RSP_LINK_ENDS_SLEEP_ by sleep-ends.c). */
  for (guint i = 0; i < m->links->len; i++) {
    rsp_link *l = &g_array_index(m->links, rsp_link, i);
    if (l->flags & RSP_LINK_ENDS_SLEEP_) {
      l->flags &= (uint8_t)~RSP_LINK_ENDS_SLEEP_;
      if (l->sleep != RSP_NO_ID)
        g_array_index(m->sleeps, rsp_sleep, l->sleep).wake_link = i;
    }
  }
}

/* Each run's outgoing links (beside links_in: it reads the links' from_run, which links_in does not write). */
static void links_out(void *data)
{
  rsp_model *m = data;
  /* Outgoing: counting sort by from_run. */
  g_array_set_size(m->run_out_first, m->runs->len + 1);
  memset(m->run_out_first->data, 0, (m->runs->len + 1) * sizeof(uint32_t));
  uint32_t *first = (uint32_t *)(void *)m->run_out_first->data;
  for (guint i = 0; i < m->links->len; i++) {
    const rsp_link *l = &g_array_index(m->links, rsp_link, i);
    if (l->from_run != RSP_NO_ID)
      first[l->from_run + 1]++;
  }
  for (guint i = 0; i < m->runs->len; i++)
    first[i + 1] += first[i];
  g_array_set_size(m->run_out, first[m->runs->len]);
  uint32_t *fill = rsp_new_zeroed(uint32_t, m->runs->len + 1);
  for (guint i = 0; i < m->links->len; i++) {
    const rsp_link *l = &g_array_index(m->links, rsp_link, i);
    if (l->from_run != RSP_NO_ID)
      g_array_index(m->run_out, uint32_t, first[l->from_run] + fill[l->from_run]++) = i;
  }
  g_free(fill);
}

void rsp_links_finish(rsp_model_builder *b)
{
  rsp_model *m = b->m;
  fork_and_exec_links(m);
  /* Grouped by the run they end at (runs are in start order, and a link precedes its run: close
   * to time order), so that each run's incoming links have consecutive ids. */
  sort_links_by_run(m);
  rsp_model_in_parallel(links_in, m, links_out, m);
}

uint32_t rsp_model_n_links(const rsp_model *m)
{
  return m->links->len;
}

const rsp_link *rsp_model_link(const rsp_model *m, rsp_link_id id)
{
  g_return_val_if_fail(id < m->links->len, NULL);
  return &g_array_index(m->links, rsp_link, id);
}

rsp_link_id rsp_model_run_links_in(const rsp_model *m, rsp_run_id run, uint32_t *n)
{
  *n = 0;
  g_return_val_if_fail(run < m->runs->len, RSP_NO_ID);
  rsp_link_id first = g_array_index(m->runs, rsp_run, run).first_link_in;
  if (first == RSP_NO_ID)
    return RSP_NO_ID;
  uint32_t k = 0;
  while (first + k < m->links->len && g_array_index(m->links, rsp_link, first + k).to_run == run)
    k++;
  *n = k;
  return first;
}

const rsp_link_id *rsp_model_run_links_out(const rsp_model *m, rsp_run_id run, uint32_t *n)
{
  *n = 0;
  g_return_val_if_fail(run < m->runs->len, NULL);
  const uint32_t *first = (const uint32_t *)(const void *)m->run_out_first->data;
  *n = first[run + 1] - first[run];
  return *n ? &g_array_index(m->run_out, uint32_t, first[run]) : NULL;
}
