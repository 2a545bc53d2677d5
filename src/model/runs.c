/* Runs and sleeps (paper, "Runs and Sleeps"): contiguous on-CPU time of a task, the off-CPU time
 * between two of its runs, and the samples attached to them. */
#include "model/model-private.h"

#include <string.h>

static rsp_run *run_at(rsp_model *m, rsp_run_id id)
{
  return &g_array_index(m->runs, rsp_run, id);
}

static rsp_sleep *sleep_at(rsp_model *m, rsp_sleep_id id)
{
  return &g_array_index(m->sleeps, rsp_sleep, id);
}

rsp_cpu_state *rsp_runs_cpu(rsp_model_builder *b, int32_t cpu)
{
  if (cpu < 0 || cpu > 65535)
    return NULL;
  if ((guint)cpu >= b->cpus->len)
    g_array_set_size(b->cpus, (guint)cpu + 1); /* zeroed: CPU_UNKNOWN */
  return &g_array_index(b->cpus, rsp_cpu_state, cpu);
}

void rsp_runs_set_idle(rsp_model_builder *b, int32_t cpu, uint64_t time)
{
  rsp_cpu_state *c = rsp_runs_cpu(b, cpu);
  if (!c)
    return;
  /* A task still on this cpu in our view left it without a switch-out we saw. */
  if (c->kind == CPU_TASK) {
    rsp_task_state *s = rsp_tstate_at(b, c->task);
    if (s->open_run != RSP_NO_ID && run_at(b->m, s->open_run)->cpu == cpu) {
      b->m->loss.implicit_switch_outs++;
      rsp_runs_end(b, c->task, time, false, false);
    }
  }
  c->kind = CPU_IDLE;
}

void rsp_runs_begin(rsp_model_builder *b, rsp_task_id task, int32_t cpu, uint64_t time, uint32_t flags)
{
  rsp_model *m = b->m;
  rsp_task_state *s = rsp_tstate_at(b, task);
  if (s->open_run != RSP_NO_ID) {
    if (run_at(m, s->open_run)->cpu == cpu)
      return;
    /* Seen running on another cpu: its switch-out there was missed. */
    m->loss.implicit_switch_outs++;
    rsp_runs_end(b, task, time, false, false);
  }
  rsp_cpu_state *c = rsp_runs_cpu(b, cpu);
  if (c && c->kind == CPU_TASK && c->task != task) {
    rsp_task_state *other = rsp_tstate_at(b, c->task);
    if (other->open_run != RSP_NO_ID && run_at(m, other->open_run)->cpu == cpu) {
      m->loss.implicit_switch_outs++;
      rsp_runs_end(b, c->task, time, false, false);
    }
  }
  if (s->open_sleep != RSP_NO_ID) {
    rsp_sleep *sl = sleep_at(m, s->open_sleep);
    sl->end = time;
    s->open_sleep = RSP_NO_ID;
  }
  rsp_run r = { .start = time, .end = time, .task = task, .cpu = cpu, .flags = flags };
  g_array_append_val(m->runs, r);
  s->open_run = m->runs->len - 1;
  if (flags & RSP_RUN_START_INFERRED)
    m->loss.inferred_switch_ins++;
  if (c) {
    c->kind = CPU_TASK;
    c->task = task;
  }
}

void rsp_runs_end(rsp_model_builder *b, rsp_task_id task, uint64_t time, bool preempt, bool by_exec)
{
  rsp_model *m = b->m;
  rsp_task_state *s = rsp_tstate_at(b, task);
  if (s->open_run == RSP_NO_ID) {
    m->loss.unmatched_switch_outs++;
    return;
  }
  rsp_run *r = run_at(m, s->open_run);
  r->end = time >= r->start ? time : r->start;
  rsp_cpu_state *c = rsp_runs_cpu(b, r->cpu);
  if (c && c->kind == CPU_TASK && c->task == task)
    c->kind = CPU_IDLE;
  s->last_run = s->open_run;
  s->open_run = RSP_NO_ID;
  if (by_exec)
    return;
  rsp_sleep sl = { .start = r->end, .end = r->end, .task = task, .preempted = preempt };
  /* The sched_switch tracepoint fires before perf's switch-out record: just before, or, when the
   * stopper thread migrates the task, up to a millisecond before; any one inside the run counts. */
  if (s->pending_state && s->pending_state_time >= r->start) {
    sl.state = s->pending_state;
    s->pending_state = 0;
  }
  if (sl.state == 'R')
    sl.preempted = true;
  g_array_append_val(m->sleeps, sl);
  s->open_sleep = m->sleeps->len - 1;
}

void rsp_runs_switch_state(rsp_model_builder *b, rsp_task_id task, uint64_t time, char state)
{
  rsp_task_state *s = rsp_tstate_at(b, task);
  if (s->open_run == RSP_NO_ID && s->open_sleep != RSP_NO_ID) {
    /* The switch-out record came first (same time): give its sleep the state now. */
    rsp_sleep *sl = sleep_at(b->m, s->open_sleep);
    if (!sl->state && sl->start <= time + b->opts.sample_window_ns &&
        time <= sl->start + b->opts.sample_window_ns) {
      sl->state = state;
      if (state == 'R')
        sl->preempted = true;
      return;
    }
  }
  s->pending_state = state;
  s->pending_state_time = time;
}

void rsp_runs_wakeup(rsp_model_builder *b, rsp_task_id task, uint64_t time)
{
  rsp_task_state *s = rsp_tstate_at(b, task);
  /* A wakeup of a running task (woken before it could sleep) delays nothing. */
  if (s->open_run == RSP_NO_ID && s->open_sleep != RSP_NO_ID)
    sleep_at(b->m, s->open_sleep)->wake_time = time;
}

void rsp_runs_evidence(rsp_model_builder *b, rsp_task_id task, int32_t cpu, uint64_t time)
{
  rsp_task_state *s = rsp_tstate_at(b, task);
  if (s->open_run != RSP_NO_ID)
    return;
  /* A late sample of a run that just ended is no sign of a new run. */
  if (s->last_run != RSP_NO_ID) {
    const rsp_run *last = run_at(b->m, s->last_run);
    if (last->cpu == cpu && last->end + b->opts.sample_window_ns >= time)
      return;
  }
  rsp_cpu_state *c = rsp_runs_cpu(b, cpu);
  if (!c || c->kind == CPU_TASK)
    return; /* another task holds that cpu in our view: a skewed event, not a switch-in */
  rsp_runs_begin(b, task, cpu, time, RSP_RUN_START_INFERRED);
}

void rsp_runs_sample(rsp_model_builder *b, rsp_task_id task, int32_t cpu, uint64_t time)
{
  rsp_model *m = b->m;
  rsp_task_state *s = rsp_tstate_at(b, task);
  if (s->open_run != RSP_NO_ID) {
    run_at(m, s->open_run)->n_samples++;
    return;
  }
  if (s->last_run != RSP_NO_ID) {
    rsp_run *last = run_at(m, s->last_run);
    if (last->end + b->opts.sample_window_ns >= time) {
      last->n_samples++;
      return;
    }
  }
  m->loss.orphan_samples++;
}

/* Groups the ids of ARRAY's elements (whose task is at TASK_OFFSET) by task into INDEX, in
 * element order, and stores each task's first offset and count through the given members. */
static void group_by_task(rsp_model *m, GArray *array, size_t elem_size, size_t task_offset,
                          GArray *index, size_t first_member, size_t count_member)
{
  guint n_tasks = m->tasks->len;
  for (guint t = 0; t < n_tasks; t++) {
    char *task = (char *)rsp_task_at(m, t);
    *(uint32_t *)(task + count_member) = 0;
  }
  for (guint i = 0; i < array->len; i++) {
    rsp_task_id t;
    memcpy(&t, array->data + i * elem_size + task_offset, sizeof t);
    (*(uint32_t *)((char *)rsp_task_at(m, t) + count_member))++;
  }
  uint32_t offset = 0;
  for (guint t = 0; t < n_tasks; t++) {
    char *task = (char *)rsp_task_at(m, t);
    *(uint32_t *)(task + first_member) = offset;
    offset += *(uint32_t *)(task + count_member);
    *(uint32_t *)(task + count_member) = 0;
  }
  g_array_set_size(index, array->len);
  for (guint i = 0; i < array->len; i++) {
    rsp_task_id t;
    memcpy(&t, array->data + i * elem_size + task_offset, sizeof t);
    char *task = (char *)rsp_task_at(m, t);
    uint32_t *count = (uint32_t *)(task + count_member);
    g_array_index(index, uint32_t, *(uint32_t *)(task + first_member) + *count) = i;
    (*count)++;
  }
}

void rsp_runs_finish(rsp_model_builder *b)
{
  rsp_model *m = b->m;
  for (guint t = 0; t < b->tstate->len; t++) {
    rsp_task_state *s = rsp_tstate_at(b, t);
    if (s->open_run != RSP_NO_ID) {
      rsp_run *r = run_at(m, s->open_run);
      r->end = m->time_last > r->start ? m->time_last : r->start;
      r->flags |= RSP_RUN_OPEN_AT_END;
      m->loss.runs_open_at_end++;
      s->open_run = RSP_NO_ID;
    }
  }
  /* A sleep after a task's last run is not between two runs: drop it. */
  guint kept = 0;
  for (guint i = 0; i < m->sleeps->len; i++) {
    rsp_sleep *sl = sleep_at(m, i);
    if (rsp_tstate_at(b, sl->task)->open_sleep == i)
      continue;
    if (kept != i)
      *sleep_at(m, kept) = *sl;
    kept++;
  }
  g_array_set_size(m->sleeps, kept);
  group_by_task(m, m->runs, sizeof(rsp_run), G_STRUCT_OFFSET(rsp_run, task), m->task_runs,
                G_STRUCT_OFFSET(rsp_task, first_run_), G_STRUCT_OFFSET(rsp_task, n_runs));
  group_by_task(m, m->sleeps, sizeof(rsp_sleep), G_STRUCT_OFFSET(rsp_sleep, task), m->task_sleeps,
                G_STRUCT_OFFSET(rsp_task, first_sleep_), G_STRUCT_OFFSET(rsp_task, n_sleeps));
  group_by_task(m, m->comms, sizeof(rsp_comm_change), G_STRUCT_OFFSET(rsp_comm_change, task),
                m->task_comms, G_STRUCT_OFFSET(rsp_task, first_comm_),
                G_STRUCT_OFFSET(rsp_task, n_comms));
}

rsp_run_id rsp_model_task_run(const rsp_model *model, rsp_task_id task, uint32_t i)
{
  const rsp_task *t = &g_array_index(model->tasks, rsp_task, task);
  g_return_val_if_fail(i < t->n_runs, RSP_NO_ID);
  return g_array_index(model->task_runs, uint32_t, t->first_run_ + i);
}

rsp_sleep_id rsp_model_task_sleep(const rsp_model *model, rsp_task_id task, uint32_t i)
{
  const rsp_task *t = &g_array_index(model->tasks, rsp_task, task);
  g_return_val_if_fail(i < t->n_sleeps, RSP_NO_ID);
  return g_array_index(model->task_sleeps, uint32_t, t->first_sleep_ + i);
}

void rsp_model_task_totals(const rsp_model *model, rsp_task_id task, rsp_task_totals *out)
{
  memset(out, 0, sizeof *out);
  const rsp_task *t = &g_array_index(model->tasks, rsp_task, task);
  for (uint32_t i = 0; i < t->n_runs; i++) {
    const rsp_run *r = rsp_model_run(model, rsp_model_task_run(model, task, i));
    out->runtime += r->end - r->start;
    out->samples += r->n_samples;
    out->runs++;
    if (r->flags & RSP_RUN_START_INFERRED)
      out->inferred_starts++;
  }
  for (uint32_t i = 0; i < t->n_sleeps; i++) {
    const rsp_sleep *sl = rsp_model_sleep(model, rsp_model_task_sleep(model, task, i));
    uint64_t d = sl->end - sl->start;
    out->sleep += d;
    if (sl->state == 'S')
      out->sleep_s += d;
    else if (sl->state == 'D')
      out->sleep_d += d;
    else
      out->sleep_other += d;
    if (sl->wake_time && sl->wake_time <= sl->end)
      out->sched_delay += sl->end - sl->wake_time;
    out->sleeps++;
  }
}
