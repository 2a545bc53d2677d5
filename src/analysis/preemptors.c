/* Who took the cpu from a preempted sleep (issue 15, item 3). A preempted task is runnable: its
 * time off the cpu is spent behind whatever ran on the cpu it was switched out from, until it runs
 * again (on that cpu or another). Over that stretch, the runs of other tasks on that cpu are the
 * preemptors: tasks of the processes on the process of interest's paths (a hand-off: it had just woken
 * them, or they are its own threads) give RSP_CAT_PREEMPTED_BY_PATH, the others RSP_CAT_CONTENTION. What no run
 * covers (the cpu idle while it waited elsewhere, or runs the trace did not record) stays
 * RSP_CAT_INVOLUNTARY. A woken task waits the same way between its wakeup and its switch-in, behind what
 * runs on the cpu it then runs on: the same attribution, the rest (an idle cpu coming out of idle, the
 * switch itself) scheduler overhead. */
#include "categories-private.h"

#include <string.h>

void rsp_preemptors_init(rsp_categories_work *w, const rsp_paths *p)
{
  const rsp_model *m = rsp_paths_model(p);
  uint32_t n_tasks = rsp_model_n_tasks(m);
  w->cpu_runs = rsp_model_cpu_runs(m);
  /* on the paths: a task of a process that has a task on them (the generation before a child's exec,
   * a thread that woke no one, are that process too) */
  w->on_path = g_new0(uint8_t, n_tasks ? n_tasks : 1);
  GHashTable *pids = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (uint32_t i = 0; i < rsp_paths_n_tasks(p); i++) {
    rsp_task_id t = rsp_paths_task(p, i);
    w->on_path[t] = 1;
    if (rsp_model_task(m, t)->pid >= 0)
      g_hash_table_add(pids, GINT_TO_POINTER(rsp_model_task(m, t)->pid));
  }
  for (rsp_task_id t = 0; t < n_tasks; t++) {
    int32_t pid = rsp_model_task(m, t)->pid;
    if (pid >= 0 && g_hash_table_contains(pids, GINT_TO_POINTER(pid)))
      w->on_path[t] = 1;
  }
  g_hash_table_destroy(pids);
  w->preempt_ns = g_new0(uint64_t, n_tasks ? n_tasks : 1);
  w->off_path_spans = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  w->cpu_hint = g_new0(uint32_t, w->cpu_runs->n_cpus ? w->cpu_runs->n_cpus : 1);
  w->task_hint = g_new0(uint32_t, n_tasks ? n_tasks : 1);
}

void rsp_preemptors_init_share(rsp_categories_work *w, const rsp_categories_work *from)
{
  *w = *from;
  uint32_t n_tasks = rsp_model_n_tasks(rsp_paths_model(from->paths));
  w->preempt_ns = g_new0(uint64_t, n_tasks ? n_tasks : 1);
  w->off_path_spans = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  w->cpu_hint = g_new0(uint32_t, w->cpu_runs->n_cpus ? w->cpu_runs->n_cpus : 1);
  w->task_hint = g_new0(uint32_t, n_tasks ? n_tasks : 1);
  w->stack_reason = NULL;
  w->guessing = 0;
}

/* The run RUN (on no path) ran over [X, Y) of a preempted task of the paths: its span over such time
 * grows to cover it (the pieces of one run nearly always touch: a span, not a set). */
static void note_off_path(rsp_categories_work *w, rsp_run_id run, uint64_t x, uint64_t y)
{
  uint64_t *span = g_hash_table_lookup(w->off_path_spans, GUINT_TO_POINTER(run));
  if (!span) {
    span = g_new(uint64_t, 2);
    span[0] = x;
    span[1] = y;
    g_hash_table_insert(w->off_path_spans, GUINT_TO_POINTER(run), span);
    return;
  }
  span[0] = MIN(span[0], x);
  span[1] = MAX(span[1], y);
}

/* [A, B) of TASK's time off the cpu, runnable, behind what ran on CPU: each other task's run there to
 * the paths' or to contention, the rest (the cpu idle, or runs not recorded) to UNCOVERED. */
static void attribute_on_cpu(rsp_categories *out, rsp_task_id task, int32_t cpu, uint64_t a, uint64_t b,
                             rsp_category uncovered)
{
  rsp_categories_work *w = out->work_;
  const rsp_model *m = rsp_paths_model(w->paths);
  const rsp_cpu_runs *cr = w->cpu_runs;
  long ci = rsp_model_cpu_index(cr, cpu);
  if (ci < 0) {
    rsp_categories_add_ns(out, uncovered, b - a);
    return;
  }
  uint64_t covered = 0, cursor = a;
  for (uint32_t k = rsp_cpu_runs_from(m, cr, ci, a, &w->cpu_hint[ci]); k < cr->first[ci + 1]; k++) {
    rsp_run_id id = cr->runs[k];
    const rsp_run *r = rsp_model_run(m, id);
    if (r->start >= b)
      break;
    if (r->task == task)
      continue;
    uint64_t x = MAX(r->start, cursor), y = MIN(r->end, b);
    if (y <= x)
      continue;
    cursor = y; /* each nanosecond once, should two runs of a cpu overlap */
    covered += y - x;
    w->preempt_ns[r->task] += y - x;
    if (!rsp_paths_has_run(w->paths, id))
      note_off_path(w, id, x, y);
    rsp_categories_add_ns(out, w->on_path[r->task] ? RSP_CAT_PREEMPTED_BY_PATH : RSP_CAT_CONTENTION, y - x);
  }
  rsp_categories_add_ns(out, uncovered, (b - a) - covered);
}

rsp_run_id rsp_categories_run_at(rsp_categories_work *w, rsp_task_id task, uint64_t time)
{
  const rsp_model *m = rsp_paths_model(w->paths);
  const rsp_run_id *ids;
  const uint64_t *starts;
  uint32_t n = task < rsp_model_n_tasks(m) ? rsp_model_task_runs(m, task, &ids, &starts) : 0;
  if (!n)
    return RSP_NO_ID;
  uint32_t k = rsp_count_le_from(starts, n, time, w->task_hint[task]);
  w->task_hint[task] = k;
  if (!k)
    return RSP_NO_ID;
  const rsp_run *r = rsp_model_run(m, ids[k - 1]);
  return time < r->end || (time == r->start && r->start == r->end) ? ids[k - 1] : RSP_NO_ID;
}

void rsp_preemptors_attribute(rsp_categories *out, const rsp_sleep *s, uint64_t a, uint64_t b)
{
  const rsp_model *m = rsp_paths_model(out->work_->paths);
  if (b <= a)
    return;
  /* the cpu it was switched out from: its run that ended where the sleep began */
  rsp_run_id before = s->start ? rsp_categories_run_at(out->work_, s->task, s->start - 1) : RSP_NO_ID;
  int32_t cpu = before != RSP_NO_ID ? rsp_model_run(m, before)->cpu : -1;
  attribute_on_cpu(out, s->task, cpu, a, b, RSP_CAT_INVOLUNTARY);
}

void rsp_preemptors_attribute_ready(rsp_categories *out, const rsp_sleep *s, uint64_t a, uint64_t b)
{
  const rsp_model *m = rsp_paths_model(out->work_->paths);
  if (b <= a)
    return;
  /* the cpu it ran on at the end: its run that began where the sleep ended */
  rsp_run_id after = rsp_categories_run_at(out->work_, s->task, s->end);
  int32_t cpu = after != RSP_NO_ID ? rsp_model_run(m, after)->cpu : -1;
  attribute_on_cpu(out, s->task, cpu, a, b, RSP_CAT_SCHEDULER);
}

void rsp_preemptors_merge(rsp_categories_work *w, rsp_categories_work *from)
{
  uint32_t n_tasks = rsp_model_n_tasks(rsp_paths_model(w->paths));
  for (uint32_t t = 0; t < n_tasks; t++)
    w->preempt_ns[t] += from->preempt_ns[t];
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, from->off_path_spans);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    const uint64_t *span = value;
    note_off_path(w, GPOINTER_TO_UINT(key), span[0], span[1]);
  }
  g_free(from->preempt_ns);
  g_free(from->cpu_hint);
  from->cpu_hint = NULL;
  g_clear_pointer(&from->task_hint, g_free);
  g_hash_table_destroy(from->off_path_spans);
  from->preempt_ns = NULL;
  from->off_path_spans = NULL;
}

void rsp_preemptors_finish(rsp_categories *out)
{
  rsp_categories_work *w = out->work_;
  const rsp_model *m = rsp_paths_model(w->paths);
  out->n_preemptors = 0;
  uint32_t n_top = 0;
  uint64_t *off_paths = g_new0(uint64_t, rsp_model_n_tasks(m) ? rsp_model_n_tasks(m) : 1);
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, w->off_path_spans);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    const uint64_t *span = value;
    off_paths[rsp_model_run(m, GPOINTER_TO_UINT(key))->task] += span[1] - span[0];
  }
  for (rsp_task_id t = 0; t < rsp_model_n_tasks(m); t++) {
    if (!w->preempt_ns[t])
      continue;
    out->n_preemptors++;
    rsp_preemptor cand = { .task = t, .ns = w->preempt_ns[t], .off_paths_ns = off_paths[t],
                           .on_path = w->on_path[t] != 0 };
    /* insert into the top list, the most first (ties: the lower task id first) */
    uint32_t j = n_top < RSP_TOP_PREEMPTORS ? n_top++ : RSP_TOP_PREEMPTORS;
    if (j == RSP_TOP_PREEMPTORS) {
      if (out->top_preemptors[j - 1].ns >= cand.ns)
        continue;
      j--;
    }
    for (; j > 0 && out->top_preemptors[j - 1].ns < cand.ns; j--)
      out->top_preemptors[j] = out->top_preemptors[j - 1];
    out->top_preemptors[j] = cand;
  }
  w->cpu_runs = NULL;
  g_free(w->cpu_hint);
  w->cpu_hint = NULL;
  g_clear_pointer(&w->task_hint, g_free);
  g_free(w->on_path);
  g_free(w->preempt_ns);
  g_free(off_paths);
  g_hash_table_destroy(w->off_path_spans);
  w->off_path_spans = NULL;
  w->on_path = NULL;
  w->preempt_ns = NULL;
}
