/* Runs and sleeps (paper, "Runs and Sleeps"): contiguous on-CPU time of a task, the off-CPU time
 * between two of its runs, and the samples attached to them. */
#include "model/model-private.h"
#include "reader/natural-merge-sort.h"

#include <stdlib.h>
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

static void end_run(rsp_model_builder *b, rsp_task_id task, uint64_t time, bool preempt, bool sleeps);

/* The task CPU holds in our view, if its run there is still open. */
static rsp_task_id cpu_holder(rsp_model_builder *b, const rsp_cpu_state *c, int32_t cpu)
{
  if (!c || c->kind != CPU_TASK)
    return RSP_NO_ID;
  rsp_task_state *s = rsp_tstate_at(b, c->task);
  if (s->open_run == RSP_NO_ID || run_at(b->m, s->open_run)->cpu != cpu)
    return RSP_NO_ID;
  return c->task;
}

/* TASK's switch-out was not recorded, and something at TIME shows it is over (another task on its
 * cpu, or the task on another cpu). With the tracepoint alone that happens when the tracepoints
 * were not on yet (perf enables them after its tracking event): the task ran until its last event.
 * Switch records are complete but at the edges (perf disables the cpus one by one at the end) and
 * after LOST records: the task ran until the cpu's stream shows it over. */
static void end_run_implicitly(rsp_model_builder *b, rsp_task_id task, uint64_t time)
{
  rsp_task_state *s = rsp_tstate_at(b, task);
  b->m->loss.implicit_switch_outs++;
  if (!b->use_switch_records && s->last_seen < time)
    time = s->last_seen;
  end_run(b, task, time, false, true);
}

/* PREV_TID: the task the switch record says left the cpu (-1: unknown), whose end is then exact. */
static void begin_run(rsp_model_builder *b, rsp_task_id task, int32_t cpu, uint64_t time, uint32_t flags,
                      int32_t prev_tid)
{
  rsp_model *m = b->m;
  rsp_task_state *s = rsp_tstate_at(b, task);
  if (s->open_run != RSP_NO_ID) {
    if (run_at(m, s->open_run)->cpu == cpu)
      return;
    /* Seen running on another cpu: its switch-out there was not recorded. */
    end_run_implicitly(b, task, time);
  }
  rsp_cpu_state *c = rsp_runs_cpu(b, cpu);
  rsp_task_id holder = cpu_holder(b, c, cpu);
  if (holder != RSP_NO_ID && holder != task) {
    if (prev_tid > 0 && prev_tid == rsp_task_at(m, holder)->tid) {
      m->loss.implicit_switch_outs++; /* its OUT record was lost; the IN record names it */
      end_run(b, holder, time, false, true);
    } else {
      end_run_implicitly(b, holder, time);
    }
  }
  if (s->open_sleep != RSP_NO_ID) {
    rsp_sleep *sl = sleep_at(m, s->open_sleep);
    sl->end = time >= sl->start ? time : sl->start;
    s->open_sleep = RSP_NO_ID;
  }
  rsp_run r = { .start = time, .end = time, .task = task, .cpu = cpu, .flags = flags,
                .first_link_in = RSP_NO_ID };
  g_array_append_val(m->runs, r);
  s->open_run = m->runs->len - 1;
  s->woken = false;
  s->last_seen = time;
  if (flags & RSP_RUN_START_INFERRED)
    m->loss.inferred_switch_ins++;
  if (flags & RSP_RUN_OPEN_AT_START)
    m->loss.runs_open_at_start++;
  if (c) {
    c->kind = CPU_TASK;
    c->task = task;
  }
}

/* SL begins: its task's open sleep, with no facts of its wakeup yet. */
static void append_sleep(rsp_model_builder *b, const rsp_sleep *sl)
{
  g_array_append_val(b->m->sleeps, *sl);
  rsp_tstate_at(b, sl->task)->open_sleep = b->m->sleeps->len - 1;
  rsp_sleep_facts facts = { .wake = { .waker = RSP_NO_ID, .waker_run = RSP_NO_ID, .stack = RSP_NO_ID } };
  g_array_append_val(b->sleep_facts, facts);
}

/* Ends TASK's open run at TIME; a sleep begins when SLEEPS (not at an exec). */
static void end_run(rsp_model_builder *b, rsp_task_id task, uint64_t time, bool preempt, bool sleeps)
{
  rsp_model *m = b->m;
  rsp_task_state *s = rsp_tstate_at(b, task);
  rsp_run *r = run_at(m, s->open_run);
  r->end = time >= r->start ? time : r->start;
  rsp_cpu_state *c = rsp_runs_cpu(b, r->cpu);
  if (c && c->kind == CPU_TASK && c->task == task) {
    c->kind = CPU_IDLE;
    c->idle_since = r->end;
  }
  s->last_run = s->open_run;
  s->woken = false;
  s->open_run = RSP_NO_ID;
  if (!sleeps)
    return;
  rsp_sleep sl = { .start = r->end, .end = r->end, .task = task, .preempted = preempt,
                   .switch_event = RSP_NO_EVENT, .stack = RSP_NO_ID, .wake_link = RSP_NO_ID,
                   .disk_op = RSP_NO_ID, .net_op = RSP_NO_ID };
  /* The sched_switch tracepoint fires before perf's switch-out record: just before, or, when the
   * stopper thread migrates the task, up to a millisecond before; any one inside the run counts. */
  if (s->pending_state && s->pending_state_time >= r->start) {
    sl.state = s->pending_state;
    sl.switch_event = s->pending_state_event;
    sl.stack = s->pending_state_stack;
  }
  s->pending_state = 0;
  if (sl.state == 'R')
    sl.preempted = true;
  append_sleep(b, &sl);
}

void rsp_runs_switch_in(rsp_model_builder *b, rsp_task_id task, int32_t cpu, uint64_t time, int32_t prev_tid)
{
  rsp_cpu_state *c = rsp_runs_cpu(b, cpu);
  if (c)
    c->next_tid = 0;
  begin_run(b, task, cpu, time, 0, prev_tid);
}

void rsp_runs_idle_in(rsp_model_builder *b, int32_t cpu, uint64_t time)
{
  rsp_cpu_state *c = rsp_runs_cpu(b, cpu);
  if (!c)
    return;
  /* A task still on this cpu in our view left it without a switch-out we saw. */
  rsp_task_id holder = cpu_holder(b, c, cpu);
  if (holder != RSP_NO_ID)
    end_run_implicitly(b, holder, time);
  if (c->kind != CPU_IDLE)
    c->idle_since = time;
  c->kind = CPU_IDLE;
  c->next_tid = 0;
}

void rsp_runs_switch_out(rsp_model_builder *b, rsp_task_id task, int32_t cpu, uint64_t time, bool preempt,
                         int32_t next_tid)
{
  rsp_model *m = b->m;
  rsp_task_state *s = rsp_tstate_at(b, task);
  rsp_cpu_state *c = rsp_runs_cpu(b, cpu);
  if (s->open_run == RSP_NO_ID && b->use_switch_records && c) {
    if (c->kind == CPU_UNKNOWN && s->last_run == RSP_NO_ID) {
      /* The first switch record of its cpu: the task was running when the recording began. */
      begin_run(b, task, cpu, m->time_first, RSP_RUN_OPEN_AT_START, -1);
    } else if (c->next_tid > 0 && c->next_tid == rsp_task_at(m, task)->tid) {
      /* Its IN record was lost (LOST), but the previous OUT on this cpu named it as next. */
      begin_run(b, task, cpu, c->next_time, RSP_RUN_START_INFERRED, -1);
    }
  }
  if (s->open_run == RSP_NO_ID) {
    m->loss.unmatched_switch_outs++;
  } else {
    end_run(b, task, time, preempt, true);
  }
  if (c) {
    if (c->kind == CPU_UNKNOWN) {
      c->kind = CPU_IDLE;
      c->idle_since = time;
    }
    c->next_tid = next_tid > 0 ? next_tid : 0;
    c->next_time = time;
  }
}

void rsp_runs_exec(rsp_model_builder *b, rsp_task_id old_task, rsp_task_id new_task, int32_t cpu, uint64_t time)
{
  rsp_task_state *s = rsp_tstate_at(b, old_task);
  if (s->open_run != RSP_NO_ID) {
    cpu = run_at(b->m, s->open_run)->cpu;
    end_run(b, old_task, time, false, false);
    begin_run(b, new_task, cpu, time, RSP_RUN_STARTED_BY_EXEC, -1);
  } else {
    /* The exec is an event of the new generation in its own context. */
    rsp_runs_evidence(b, new_task, cpu, time);
    /* The old generation's last sleep (execve reading the binary, its switch-in untraced) ends where
     * the new generation's run begins: no gap in the process's time. */
    s = rsp_tstate_at(b, old_task);
    const rsp_task_state *ns = rsp_tstate_at(b, new_task);
    if (s->open_sleep != RSP_NO_ID && ns->open_run != RSP_NO_ID) {
      rsp_sleep *sl = sleep_at(b->m, s->open_sleep);
      uint64_t start = run_at(b->m, ns->open_run)->start;
      sl->end = start >= sl->start ? start : sl->start;
      s->open_sleep = RSP_NO_ID;
    }
  }
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
      sl->switch_event = b->event;
      sl->stack = b->cur_stack;
      if (state == 'R')
        sl->preempted = true;
      return;
    }
  }
  s->pending_state = state;
  s->pending_state_time = time;
  s->pending_state_event = b->event;
  s->pending_state_stack = b->cur_stack;
}

/* TASK existed before the recording and is first seen woken: it slept since the recording began
 * (the switch records show every run from their start), so the waking has a sleep to end. But for
 * perf's workload child before its exec ("perf-exec"): its wait is for perf's signal to start, after
 * perf's own setup, and is none of the workload's time. */
static void begin_sleep_before_start(rsp_model_builder *b, rsp_task_id task)
{
  rsp_model *m = b->m;
  const char *comm = rsp_task_at(m, task)->comm;
  if (comm && strcmp(comm, "perf-exec") == 0)
    return;
  rsp_sleep sl = { .start = m->time_first, .end = m->time_first, .task = task, .before_start = true,
                   .switch_event = RSP_NO_EVENT, .stack = RSP_NO_ID, .wake_link = RSP_NO_ID,
                   .disk_op = RSP_NO_ID, .net_op = RSP_NO_ID };
  append_sleep(b, &sl);
}

void rsp_runs_wakeup(rsp_model_builder *b, rsp_task_id task, uint64_t time, uint8_t kind, int32_t target_cpu)
{
  rsp_task_state *s = rsp_tstate_at(b, task);
  /* A wakeup of a running task (woken before it could sleep) delays nothing. */
  if (s->open_run != RSP_NO_ID)
    return;
  /* sched_wakeup's target_cpu is the runqueue the task was put on (sched_waking's is only its
   * previous cpu, before select_task_rq). */
  if (kind == RSP_WAKE_WAKEUP && !s->woken) {
    s->woken = true;
    s->wake_cpu = target_cpu;
    s->wake_time = time;
  }
  if (s->open_sleep == RSP_NO_ID && s->last_run == RSP_NO_ID && b->use_switch_records &&
      rsp_task_at(b->m, task)->start == 0)
    begin_sleep_before_start(b, task);
  if (s->open_sleep == RSP_NO_ID)
    return;
  rsp_sleep *sl = sleep_at(b->m, s->open_sleep);
  rsp_sleep_facts *facts = &g_array_index(b->sleep_facts, rsp_sleep_facts, s->open_sleep);
  /* A sleep begun before the recording woken again before it ran: the task ran and slept again
   * where its cpu's switch records had not begun yet; the last waking is the one that counts. */
  if (sl->before_start && sl->wake_kind != RSP_WAKE_NONE &&
      (kind == RSP_WAKE_WAKING || sl->wake_kind == RSP_WAKE_WAKEUP)) {
    facts->score = 0;
    sl->wake_kind = RSP_WAKE_NONE;
    sl->wake_time = 0;
  }
  /* The first waking and the first wakeup, with the context they fired in (the waker). */
  uint8_t score = (uint8_t)((b->cur_stack != RSP_NO_ID ? 2 : 0) + (kind == RSP_WAKE_WAKING ? 1 : 0) + 1);
  if (score > facts->score) {
    facts->score = score;
    facts->wake.time = time;
    facts->wake.waker = b->cur_task;
    facts->wake.waker_run = b->cur_task != RSP_NO_ID ? rsp_tstate_at(b, b->cur_task)->open_run : RSP_NO_ID;
    facts->wake.stack = b->cur_stack;
    facts->wake.irq = b->cur_irq;
  }
  /* Runnable from the first sched_wakeup; a sched_waking (try_to_wake_up began) stands in for it
   * when it was not recorded. */
  if (sl->wake_kind == RSP_WAKE_NONE || (kind == RSP_WAKE_WAKEUP && sl->wake_kind == RSP_WAKE_WAKING)) {
    sl->wake_time = time;
    sl->wake_kind = kind;
  }
}

void rsp_runs_evidence(rsp_model_builder *b, rsp_task_id task, int32_t cpu, uint64_t time)
{
  rsp_task_state *s = rsp_tstate_at(b, task);
  if (s->open_run != RSP_NO_ID) {
    if (time > s->last_seen && run_at(b->m, s->open_run)->cpu == cpu)
      s->last_seen = time;
    return;
  }
  rsp_cpu_state *c = rsp_runs_cpu(b, cpu);
  if (!c)
    return;
  if (b->use_switch_records) {
    /* Switch records are complete from the start: a task seen on a cpu before the cpu's first
     * record was running when the recording began. */
    if (c->kind == CPU_UNKNOWN && s->last_run == RSP_NO_ID)
      begin_run(b, task, cpu, b->m->time_first, RSP_RUN_OPEN_AT_START, -1);
    return;
  }
  /* perf enables its tracking event (COMM, FORK, MMAP... records) before the sampled events, the
   * tracepoints among them: a task seen before the first sample can leave its cpu untraced. */
  if (!b->sampling)
    return;
  /* A late sample of a run that just ended is no sign of a new run. */
  if (s->last_run != RSP_NO_ID) {
    const rsp_run *last = run_at(b->m, s->last_run);
    if (last->cpu == cpu && time <= last->end + b->opts.sample_window_ns)
      return;
  }
  if (c->kind == CPU_TASK) {
    /* Another task holds that cpu in our view: a skewed event, not a switch-in, when the holder
     * began or showed itself there within the sample window. Later, the holder's switch-out was
     * lost: task-to-task switches go untraced too, if rarely (tests/model/data/wl-make.data: the
     * switch from tokio-rt-worker back to cc1 at 24261.836315, and cc1's 5 ms of samples after
     * it). The holder then ran until its last event (begin_run ends it). */
    rsp_task_id holder = cpu_holder(b, c, cpu);
    if (holder == RSP_NO_ID)
      return;
    const rsp_task_state *hs = rsp_tstate_at(b, holder);
    uint64_t shown = run_at(b->m, hs->open_run)->start;
    if (hs->last_seen > shown)
      shown = hs->last_seen;
    if (time <= shown + b->opts.sample_window_ns)
      return;
  }
  /* Only the switches from idle go untraced (task-to-task ones are), so the cpu was idle. A task
   * woken onto an idle cpu runs as soon as the cpu leaves idle: from the wakeup, not from its first
   * event, which can come a whole sampling period later. */
  uint32_t flags = RSP_RUN_START_INFERRED;
  uint64_t start = time;
  if (s->woken && s->wake_cpu == cpu && c->kind == CPU_IDLE && s->wake_time <= time) {
    start = s->wake_time > c->idle_since ? s->wake_time : c->idle_since;
    flags |= RSP_RUN_START_AT_WAKEUP;
  }
  begin_run(b, task, cpu, start, flags, -1);
}

static void add_sample(rsp_model_builder *b, rsp_run_id run, uint64_t time)
{
  rsp_sample smp = { .time = time, .run = run, .stack = b->cur_stack };
  g_array_append_val(b->m->samples, smp);
}

void rsp_runs_sample(rsp_model_builder *b, rsp_task_id task, int32_t cpu, uint64_t time)
{
  rsp_model *m = b->m;
  rsp_task_state *s = rsp_tstate_at(b, task);
  if (s->open_run != RSP_NO_ID) {
    rsp_run *r = run_at(m, s->open_run);
    if (r->cpu == cpu || cpu < 0) {
      r->n_samples++;
      add_sample(b, s->open_run, time);
      return;
    }
  } else if (s->last_run != RSP_NO_ID) {
    rsp_run *last = run_at(m, s->last_run);
    if ((last->cpu == cpu || cpu < 0) && time <= last->end + b->opts.sample_window_ns) {
      last->n_samples++;
      add_sample(b, s->last_run, time);
      return;
    }
  }
  m->loss.orphan_samples++;
}

/* Groups the ids of ARRAY's elements (whose task is at TASK_OFFSET) by task into INDEX, in
 * element order, and stores each task's first offset and count through the given members. */
typedef struct group_job {
  rsp_model *m;
  GArray *array;
  size_t elem_size, task_offset;
  GArray *index;
  size_t first_member, count_member;
  GArray *starts;
} group_job;

/* The ids of ARRAY's elements grouped by their task into INDEX (a counting sort: in id order within a task), each
 * task's first and count written to the task's members FIRST_MEMBER and COUNT_MEMBER, and the elements' starts
 * (their first member) beside INDEX into STARTS when not NULL. The counts are kept in an array of their own, not in
 * the tasks: the runs and the sleeps are grouped at once on two threads, and their counts in the same tasks' cache
 * lines went back and forth between the cores. */
static void group_by_task(void *data)
{
  const group_job *g = data;
  rsp_model *m = g->m;
  GArray *array = g->array;
  guint n_tasks = m->tasks->len;
  uint32_t *fill = g_new0(uint32_t, (size_t)n_tasks + 1);
  for (guint i = 0; i < array->len; i++) {
    rsp_task_id t;
    memcpy(&t, array->data + i * g->elem_size + g->task_offset, sizeof t);
    fill[t]++;
  }
  uint32_t offset = 0;
  for (guint t = 0; t < n_tasks; t++) {
    char *task = (char *)rsp_task_at(m, t);
    *(uint32_t *)(task + g->first_member) = offset;
    *(uint32_t *)(task + g->count_member) = fill[t];
    uint32_t n = fill[t];
    fill[t] = offset;
    offset += n;
  }
  g_array_set_size(g->index, array->len);
  if (g->starts)
    g_array_set_size(g->starts, array->len);
  for (guint i = 0; i < array->len; i++) {
    rsp_task_id t;
    memcpy(&t, array->data + i * g->elem_size + g->task_offset, sizeof t);
    uint32_t at = fill[t]++;
    g_array_index(g->index, uint32_t, at) = i;
    /* STARTS beside INDEX, read here in array order: gathered afterwards through INDEX, they were a cache miss
     * each (runs and sleeps begin with their start) */
    if (g->starts)
      memcpy(&g_array_index(g->starts, uint64_t, at), array->data + i * g->elem_size, sizeof(uint64_t));
  }
  g_free(fill);
}

/* The sleeps, then the comm changes, grouped by task (beside the runs). */
static void group_sleeps_and_comms(void *data)
{
  const group_job *g = data;
  group_by_task((void *)&g[0]);
  group_by_task((void *)&g[1]);
}

typedef struct start_id {
  uint64_t start;
  uint32_t id;
} start_id;

static bool start_id_before(const start_id *x, const start_id *y)
{
  return x->start < y->start || (x->start == y->start && x->id < y->id);
}

/* By (start, id): the runs come nearly in start order. */
RSP_DEFINE_NATURAL_MERGE_SORT(sort_start_ids, start_id, start_id_before)

static int sample_by_run_time(const void *a, const void *b)
{
  const rsp_sample *x = a, *y = b;
  if (x->run != y->run)
    return x->run < y->run ? -1 : 1;
  return x->time < y->time ? -1 : x->time > y->time;
}

static uint32_t remap_run(const rsp_model_builder *b, rsp_run_id id)
{
  return id == RSP_NO_ID || id >= b->run_remap->len ? RSP_NO_ID : g_array_index(b->run_remap, uint32_t, id);
}

/* Builder run ids -> final ones in the sleeps' wake facts. */
static void remap_facts(void *data)
{
  rsp_model_builder *b = data;
  for (guint i = 0; i < b->sleep_facts->len; i++) {
    rsp_sleep_facts *f = &g_array_index(b->sleep_facts, rsp_sleep_facts, i);
    f->wake.waker_run = remap_run(b, f->wake.waker_run);
  }
}

/* Builder run ids -> final ones in the samples; the samples grouped by run. */
static void remap_samples(void *data)
{
  rsp_model_builder *b = data;
  rsp_model *m = b->m;
  bool grouped = true;
  for (guint i = 0; i < m->samples->len; i++) {
    rsp_sample *smp = &g_array_index(m->samples, rsp_sample, i);
    smp->run = remap_run(b, smp->run);
    if (i && sample_by_run_time(smp - 1, smp) > 0)
      grouped = false;
  }
  if (!grouped)
    g_array_sort(m->samples, sample_by_run_time);
  for (guint i = 0; i < m->runs->len; i++)
    run_at(m, i)->first_sample = RSP_NO_ID;
  for (guint i = m->samples->len; i-- > 0;)
    run_at(m, g_array_index(m->samples, rsp_sample, i).run)->first_sample = i;
  for (guint i = 0; i < m->runs->len; i++)
    if (run_at(m, i)->first_sample == RSP_NO_ID)
      run_at(m, i)->first_sample = m->samples->len;
}

/* A task is in one place at a time: its runs and sleeps, in start order, each end by the next one's
 * start. Records stamped out of order or with a stray time (a switch-in moved seconds early) would
 * otherwise make a sleep that spans the task's later runs and sleeps, counted twice: cut it there,
 * and count it. */
typedef struct clip_part {
  rsp_model *m;
  guint from, to; /* tasks */
  uint64_t cut;
} clip_part;

static void clip_tasks_overlaps(void *data)
{
  clip_part *p = data;
  rsp_model *m = p->m;
  for (guint t = p->from; t < p->to; t++) {
    const rsp_task *task = &g_array_index(m->tasks, rsp_task, t);
    uint32_t ri = 0, si = 0;
    uint64_t *prev_end = NULL; /* the end of the item before, to cut */
    uint64_t *prev_wake = NULL;
    while (ri < task->n_runs || si < task->n_sleeps) {
      rsp_run *r = ri < task->n_runs ? run_at(m, g_array_index(m->task_runs, uint32_t, task->first_run_ + ri)) : NULL;
      rsp_sleep *sl = si < task->n_sleeps
                          ? sleep_at(m, g_array_index(m->task_sleeps, uint32_t, task->first_sleep_ + si)) : NULL;
      bool take_run = r && (!sl || r->start <= sl->start);
      uint64_t start = take_run ? r->start : sl->start;
      if (prev_end && *prev_end > start) {
        *prev_end = start;
        if (prev_wake && *prev_wake > start)
          *prev_wake = start;
        p->cut++;
      }
      if (take_run) {
        prev_end = &r->end;
        prev_wake = NULL;
        ri++;
      } else {
        prev_end = &sl->end;
        prev_wake = &sl->wake_time;
        si++;
      }
    }
  }
}

static void clip_overlaps(rsp_model *m)
{
  guint split = rsp_model_tasks_half(m, true, true);
  clip_part parts[2] = { { m, 0, split, 0 }, { m, split, m->tasks->len, 0 } };
  rsp_model_in_parallel(clip_tasks_overlaps, &parts[0], clip_tasks_overlaps, &parts[1]);
  m->loss.overlaps_cut += parts[0].cut + parts[1].cut;
}

/* How long before the first sample or switch record a record may be stamped and still be the
 * recording's (perf writes the workload's FORK and COMM as it starts it, a few ms before). */
#define STRAY_BEFORE_START_NS 1000000000ull

/* Runs and sleeps that began long before the first sample or switch record began with a stray
 * timestamp (a synthesized COMM stamped at boot): they begin at the recording's start instead. */
static void clip_to_start(rsp_model_builder *b)
{
  rsp_model *m = b->m;
  uint64_t first = b->first_sampled;
  if (!first || first <= STRAY_BEFORE_START_NS || m->time_first >= first - STRAY_BEFORE_START_NS)
    return;
  for (guint i = 0; i < m->runs->len; i++) {
    rsp_run *r = run_at(m, i);
    if (r->start < first - STRAY_BEFORE_START_NS) {
      r->start = first;
      if (r->end < first)
        r->end = first;
      r->flags |= RSP_RUN_OPEN_AT_START;
      m->loss.events_before_start++;
    }
  }
  for (guint i = 0; i < m->sleeps->len; i++) {
    rsp_sleep *sl = sleep_at(m, i);
    if (sl->start < first - STRAY_BEFORE_START_NS) {
      sl->start = first;
      if (sl->end < first)
        sl->end = first;
      if (sl->wake_time && sl->wake_time < first)
        sl->wake_time = first;
      m->loss.events_before_start++;
    }
  }
  m->time_first = first;
}

uint64_t rsp_runs_recording_start(uint64_t time_first, uint64_t first_sampled)
{
  if (first_sampled && first_sampled > STRAY_BEFORE_START_NS && time_first < first_sampled - STRAY_BEFORE_START_NS)
    return first_sampled; /* as clip_to_start decides */
  return time_first;
}

/* A sleep's wakeup within it, after its start or end was moved (as clip_to_start keeps it). */
static void keep_wake_within(rsp_sleep *sl)
{
  if (sl->wake_time && sl->wake_time < sl->start)
    sl->wake_time = sl->start;
  if (sl->wake_time > sl->end)
    sl->wake_time = sl->end;
}

/* A sleep after a task's last run is not between two runs: drop it. So is a sleep begun before the recording that its
 * task's first switch-out showed was a run (the task ran when the recording began, on a cpu with no record yet: its
 * waking found it before it slept). */
static void keep_sleeps(void *data)
{
  rsp_model_builder *b = data;
  rsp_model *m = b->m;
  guint kept = 0;
  g_array_set_size(b->sleep_remap, m->sleeps->len);
  for (guint i = 0; i < m->sleeps->len; i++) {
    rsp_sleep *sl = sleep_at(m, i);
    if (rsp_tstate_at(b, sl->task)->open_sleep == i || (sl->before_start && sl->end == sl->start)) {
      g_array_index(b->sleep_remap, uint32_t, i) = RSP_NO_ID;
      continue;
    }
    g_array_index(b->sleep_remap, uint32_t, i) = kept;
    if (kept != i) {
      *sleep_at(m, kept) = *sl;
      g_array_index(b->sleep_facts, rsp_sleep_facts, kept) = g_array_index(b->sleep_facts, rsp_sleep_facts, i);
    }
    kept++;
  }
  g_array_set_size(m->sleeps, kept);
  g_array_set_size(b->sleep_facts, kept);
  /* A task's sleeps, in the order they came, are kept in time order and apart, as the sums and the views take them,
   * also where its time went backwards (a broken file): clip_overlaps, which takes each task's sleeps in start
   * order, would cut a sleep's end before its start. One stray time is mended where it is: a sleep that would end
   * before it began begins at its end (a switch stamped 2^64 - 1 began it); one that began before the task's last
   * ended begins then if it ends after it (its switch-out stamped early), else the last one ends where it begins
   * (the last one's switch-in stamped late). A last pass keeps each after the one before, whatever came. */
  uint32_t *last = g_new(uint32_t, m->tasks->len);
  for (guint t = 0; t < m->tasks->len; t++)
    last[t] = RSP_NO_ID;
  uint64_t cut = 0;
  for (guint i = 0; i < kept; i++) {
    rsp_sleep *sl = sleep_at(m, i);
    bool moved = sl->end < sl->start;
    if (moved)
      sl->start = sl->end;
    rsp_sleep *prev = last[sl->task] != RSP_NO_ID ? sleep_at(m, last[sl->task]) : NULL;
    if (prev && sl->start < prev->end) {
      if (sl->end >= prev->end) {
        sl->start = prev->end;
        moved = true;
      } else {
        prev->end = sl->start;
        if (prev->start > prev->end)
          prev->start = prev->end;
        keep_wake_within(prev);
        cut++;
      }
    }
    if (moved) {
      keep_wake_within(sl);
      cut++;
    }
    last[sl->task] = i;
  }
  g_free(last);
  uint64_t *last_end = g_new0(uint64_t, m->tasks->len);
  for (guint i = 0; i < kept; i++) {
    rsp_sleep *sl = sleep_at(m, i);
    if (sl->start < last_end[sl->task]) {
      sl->start = last_end[sl->task];
      if (sl->end < sl->start)
        sl->end = sl->start;
      keep_wake_within(sl);
      cut++;
    }
    last_end[sl->task] = sl->end;
  }
  g_free(last_end);
  m->loss.overlaps_cut += cut; /* (said with the cuts of clip_overlaps, later) */
}

/* Runs are appended at their switch-in, so in start order, except the ones begun at the recording's start when their
 * cpu's first event came: a stable sort puts them first. Nothing refers to a run by id yet (the builder's state is
 * done with), so reordering is safe. */
static void order_runs(void *data)
{
  rsp_model_builder *b = data;
  rsp_model *m = b->m;
  bool sorted = true;
  for (guint i = 1; i < m->runs->len && sorted; i++)
    sorted = run_at(m, i - 1)->start <= run_at(m, i)->start;
  g_array_set_size(b->run_remap, m->runs->len);
  for (guint i = 0; i < m->runs->len; i++)
    g_array_index(b->run_remap, uint32_t, i) = i;
  if (!sorted) {
    /* Sort the ids (by start, then id: stable), then apply the permutation in place. The runs are
     * in order but for a few at the front, so a natural merge sort is near linear. */
    guint n = m->runs->len;
    start_id *order = g_new(start_id, n);
    for (guint i = 0; i < n; i++)
      order[i] = (start_id){ run_at(m, i)->start, i };
    sort_start_ids(order, n);
    for (guint i = 0; i < n; i++)
      g_array_index(b->run_remap, uint32_t, order[i].id) = i;
    /* The new position i takes the old run order[i].id: follow each cycle once. */
    for (guint i = 0; i < n; i++) {
      if (order[i].id == i)
        continue;
      rsp_run held = *run_at(m, i);
      guint j = i;
      for (;;) {
        guint k = order[j].id;
        order[j].id = j;
        if (k == i) {
          *run_at(m, j) = held;
          break;
        }
        *run_at(m, j) = *run_at(m, k);
        j = k;
      }
    }
    g_free(order);
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
  clip_to_start(b);
  /* the sleeps kept beside the runs in order, then the run ids remapped in the facts beside the samples (each pair
   * touches disjoint arrays: 41 ms one after the other on deep3m) */
  rsp_model_in_parallel(keep_sleeps, b, order_runs, b);
  rsp_model_in_parallel(remap_facts, b, remap_samples, b);
  G_STATIC_ASSERT(G_STRUCT_OFFSET(rsp_run, start) == 0 && G_STRUCT_OFFSET(rsp_sleep, start) == 0);
  group_job runs = { m, m->runs, sizeof(rsp_run), G_STRUCT_OFFSET(rsp_run, task), m->task_runs,
                     G_STRUCT_OFFSET(rsp_task, first_run_), G_STRUCT_OFFSET(rsp_task, n_runs), m->task_run_starts };
  group_job others[2] = {
    { m, m->sleeps, sizeof(rsp_sleep), G_STRUCT_OFFSET(rsp_sleep, task), m->task_sleeps,
      G_STRUCT_OFFSET(rsp_task, first_sleep_), G_STRUCT_OFFSET(rsp_task, n_sleeps), m->task_sleep_starts },
    { m, m->comms, sizeof(rsp_comm_change), G_STRUCT_OFFSET(rsp_comm_change, task), m->task_comms,
      G_STRUCT_OFFSET(rsp_task, first_comm_), G_STRUCT_OFFSET(rsp_task, n_comms), NULL },
  };
  rsp_model_in_parallel(group_by_task, &runs, group_sleeps_and_comms, others);
  clip_overlaps(m); /* moves ends, not starts */
}

rsp_run_id rsp_model_task_run(const rsp_model *model, rsp_task_id task, uint32_t i)
{
  g_return_val_if_fail(task < model->tasks->len, RSP_NO_ID);
  const rsp_task *t = &g_array_index(model->tasks, rsp_task, task);
  g_return_val_if_fail(i < t->n_runs, RSP_NO_ID);
  return g_array_index(model->task_runs, uint32_t, t->first_run_ + i);
}

rsp_sleep_id rsp_model_task_sleep(const rsp_model *model, rsp_task_id task, uint32_t i)
{
  g_return_val_if_fail(task < model->tasks->len, RSP_NO_ID);
  const rsp_task *t = &g_array_index(model->tasks, rsp_task, task);
  g_return_val_if_fail(i < t->n_sleeps, RSP_NO_ID);
  return g_array_index(model->task_sleeps, uint32_t, t->first_sleep_ + i);
}

/* The N items of a task from FIRST in IDS and STARTS (grouped by task). */
static uint32_t task_items(const GArray *ids, const GArray *starts, uint32_t first, uint32_t n, const uint32_t **out_ids,
                           const uint64_t **out_starts)
{
  if (n) {
    *out_ids = &g_array_index(ids, uint32_t, first);
    *out_starts = &g_array_index(starts, uint64_t, first);
  }
  return n;
}

uint32_t rsp_model_task_runs(const rsp_model *model, rsp_task_id task, const rsp_run_id **ids, const uint64_t **starts)
{
  *ids = NULL;
  *starts = NULL;
  g_return_val_if_fail(task < model->tasks->len, 0);
  const rsp_task *t = &g_array_index(model->tasks, rsp_task, task);
  return task_items(model->task_runs, model->task_run_starts, t->first_run_, t->n_runs, ids, starts);
}

uint32_t rsp_model_task_sleeps(const rsp_model *model, rsp_task_id task, const rsp_sleep_id **ids,
                               const uint64_t **starts)
{
  *ids = NULL;
  *starts = NULL;
  g_return_val_if_fail(task < model->tasks->len, 0);
  const rsp_task *t = &g_array_index(model->tasks, rsp_task, task);
  return task_items(model->task_sleeps, model->task_sleep_starts, t->first_sleep_, t->n_sleeps, ids, starts);
}

void rsp_model_task_totals(const rsp_model *model, rsp_task_id task, rsp_task_totals *out)
{
  memset(out, 0, sizeof *out);
  g_return_if_fail(task < model->tasks->len);
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
    if (sl->preempted)
      out->preempt_delay += d;
    if (sl->wake_kind != RSP_WAKE_NONE && sl->wake_time <= sl->end)
      out->sched_delay += sl->end - (sl->wake_time > sl->start ? sl->wake_time : sl->start);
    else if (rsp_sleep_expects_wakeup(sl))
      out->sleeps_without_wakeup++;
    out->sleeps++;
    if (sl->end_cause < G_N_ELEMENTS(out->sleep_ends))
      out->sleep_ends[sl->end_cause]++;
    out->sleeps_end_inferred += sl->end_inferred;
  }
}
