/* Building the model from the reader's events: which event feeds which concept. */
#include "model/model-private.h"

#include <string.h>

typedef enum { EV_OTHER, EV_SCHED_SWITCH, EV_WAKE, EV_CPU_CLOCK } evsel_kind;

typedef struct evsel_info {
  const rsp_evsel *evsel;
  evsel_kind kind;
  uint8_t wake_kind;                                 /* RSP_WAKE_* */
  const rsp_field *prev_pid, *next_pid, *prev_state; /* sched_switch */
  const rsp_field *prev_comm, *next_comm;
  const rsp_field *pid, *target_cpu, *comm;          /* sched_waking / sched_wakeup(_new) */
} evsel_info;

static evsel_info *classify(rsp_model_builder *b, const rsp_evsel *evsel)
{
  if (evsel->index < b->evsels->len) {
    evsel_info *hit = g_ptr_array_index(b->evsels, evsel->index);
    if (hit && hit->evsel == evsel)
      return hit;
  } else {
    g_ptr_array_set_size(b->evsels, evsel->index + 1);
  }
  evsel_info *info = g_new0(evsel_info, 1);
  info->evsel = evsel;
  if (evsel->tp_system && strcmp(evsel->tp_system, "sched") == 0 && evsel->tp_name) {
    if (strcmp(evsel->tp_name, "sched_switch") == 0) {
      info->prev_pid = rsp_evsel_field(evsel, "prev_pid");
      info->next_pid = rsp_evsel_field(evsel, "next_pid");
      info->prev_state = rsp_evsel_field(evsel, "prev_state");
      info->prev_comm = rsp_evsel_field(evsel, "prev_comm");
      info->next_comm = rsp_evsel_field(evsel, "next_comm");
      if (info->prev_pid && info->next_pid)
        info->kind = EV_SCHED_SWITCH;
    } else if (strcmp(evsel->tp_name, "sched_waking") == 0 || strcmp(evsel->tp_name, "sched_wakeup") == 0 ||
               strcmp(evsel->tp_name, "sched_wakeup_new") == 0) {
      info->pid = rsp_evsel_field(evsel, "pid");
      info->target_cpu = rsp_evsel_field(evsel, "target_cpu");
      info->comm = rsp_evsel_field(evsel, "comm");
      info->wake_kind = strcmp(evsel->tp_name, "sched_waking") == 0 ? RSP_WAKE_WAKING : RSP_WAKE_WAKEUP;
      if (info->pid)
        info->kind = EV_WAKE;
    }
  } else if (evsel->attr.type == PERF_TYPE_SOFTWARE && evsel->attr.config == PERF_COUNT_SW_CPU_CLOCK) {
    info->kind = EV_CPU_CLOCK;
  }
  rsp_loss_note_evsel(b, evsel);
  g_free(g_ptr_array_index(b->evsels, evsel->index)); /* another evsel with this index (tests) */
  g_ptr_array_index(b->evsels, evsel->index) = info;
  return info;
}

/* prev_state as the kernel reports it (TASK_REPORT bits; TASK_REPORT_MAX, 0x100, = preempted). */
static char state_char(uint64_t v)
{
  static const char bits[] = "SDTtXZPI";
  v &= 0xff;
  if (v == 0)
    return 'R';
  for (unsigned i = 0; i < 8; i++)
    if (v & (1u << i))
      return bits[i];
  return '?';
}

rsp_model_builder *rsp_model_builder_new(const rsp_model_options *options, bool use_switch_records)
{
  rsp_model_builder *b = g_new0(rsp_model_builder, 1);
  if (options)
    b->opts = *options;
  if (!b->opts.sample_window_ns)
    b->opts.sample_window_ns = RSP_SAMPLE_ATTACH_WINDOW_NS;
  b->use_switch_records = use_switch_records;
  rsp_model *m = g_new0(rsp_model, 1);
  m->strings = g_string_chunk_new(4096);
  m->tasks = g_array_new(FALSE, TRUE, sizeof(rsp_task));
  m->runs = g_array_new(FALSE, TRUE, sizeof(rsp_run));
  m->sleeps = g_array_new(FALSE, TRUE, sizeof(rsp_sleep));
  m->comms = g_array_new(FALSE, TRUE, sizeof(rsp_comm_change));
  m->task_runs = g_array_new(FALSE, TRUE, sizeof(uint32_t));
  m->task_sleeps = g_array_new(FALSE, TRUE, sizeof(uint32_t));
  m->task_comms = g_array_new(FALSE, TRUE, sizeof(uint32_t));
  m->source = use_switch_records ? RSP_RUNS_FROM_SWITCH_RECORDS : RSP_RUNS_FROM_SCHED_SWITCH;
  b->m = m;
  b->tstate = g_array_new(FALSE, TRUE, sizeof(rsp_task_state));
  b->tid_task = g_hash_table_new(g_direct_hash, g_direct_equal);
  b->cpus = g_array_new(FALSE, TRUE, sizeof(rsp_cpu_state));
  b->evsels = g_ptr_array_new_with_free_func(g_free);
  return b;
}

static void feed_switch_record(rsp_model_builder *b, const rsp_event *ev)
{
  bool out = ev->misc & PERF_RECORD_MISC_SWITCH_OUT;
  b->m->n_switch_events++;
  /* Only CPU_WIDE records name the other task (next for OUT, prev for IN); SWITCH records do not. */
  int32_t next = ev->type == PERF_RECORD_SWITCH_CPU_WIDE ? ev->u.cswitch.next_prev_tid : -1;
  rsp_task_id task;
  if (ev->tid < 0 && out) {
    /* The last switch-out of an exited task carries pid/tid -1: it is the cpu's current task. */
    const rsp_cpu_state *c = rsp_runs_cpu(b, ev->cpu);
    if (!c || c->kind != CPU_TASK) {
      b->m->loss.unmatched_switch_outs++;
      return;
    }
    task = c->task;
  } else if (ev->tid <= 0) { /* the idle task */
    rsp_cpu_state *c = rsp_runs_cpu(b, ev->cpu);
    if (!out) {
      rsp_runs_idle_in(b, ev->cpu, ev->time);
    } else if (c) {
      if (c->kind == CPU_UNKNOWN)
        c->kind = CPU_IDLE;
      c->next_tid = next > 0 ? next : 0;
      c->next_time = ev->time;
    }
    return;
  } else {
    task = rsp_tasks_for_tid(b, ev->pid, ev->tid);
  }
  if (out)
    rsp_runs_switch_out(b, task, ev->cpu, ev->time, ev->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, next);
  else
    rsp_runs_switch_in(b, task, ev->cpu, ev->time, next);
}

/* A tid seen only in a tracepoint has no COMM record: name it from the tracepoint's comm field. */
static void name_from_field(rsp_model_builder *b, rsp_task_id task, const rsp_event *ev, const rsp_field *f)
{
  if (!f || *rsp_task_at(b->m, task)->comm)
    return;
  size_t len;
  const char *s = rsp_event_field_bytes(ev, f, &len);
  char name[64];
  if (len >= sizeof name)
    len = sizeof name - 1;
  memcpy(name, s, len);
  name[len] = 0;
  if (*name)
    rsp_tasks_name(b, task, ev->time, name);
}

static void feed_sched_switch(rsp_model_builder *b, const rsp_event *ev, const evsel_info *info)
{
  int32_t prev = (int32_t)rsp_event_field_s64(ev, info->prev_pid);
  int32_t next = (int32_t)rsp_event_field_s64(ev, info->next_pid);
  char state = info->prev_state ? state_char(rsp_event_field_u64(ev, info->prev_state)) : 0;
  if (prev > 0) {
    rsp_task_id task = rsp_tasks_for_tid(b, ev->tid == prev ? ev->pid : -1, prev);
    name_from_field(b, task, ev, info->prev_comm);
    if (state)
      rsp_runs_switch_state(b, task, ev->time, state);
    if (!b->use_switch_records) {
      /* Its own switch-out is the first event of a task whose switch-in was not traced. */
      rsp_runs_evidence(b, task, ev->cpu, ev->time);
      rsp_runs_switch_out(b, task, ev->cpu, ev->time, state == 'R', -1);
    }
  }
  if (b->use_switch_records)
    return;
  b->m->n_switch_events++;
  if (next > 0) {
    rsp_task_id task = rsp_tasks_for_tid(b, -1, next);
    name_from_field(b, task, ev, info->next_comm);
    rsp_runs_switch_in(b, task, ev->cpu, ev->time, prev);
  } else {
    rsp_runs_idle_in(b, ev->cpu, ev->time);
  }
}

static void feed_sample(rsp_model_builder *b, const rsp_event *ev)
{
  if (!ev->evsel)
    return;
  const evsel_info *info = classify(b, ev->evsel);
  if (info->kind == EV_SCHED_SWITCH) {
    feed_sched_switch(b, ev, info);
    return;
  }
  rsp_task_id self = RSP_NO_ID;
  if (ev->tid > 0) {
    /* An event in the context of task TID (or of an interrupt while it ran) on its cpu. */
    self = rsp_tasks_for_tid(b, ev->pid, ev->tid);
    rsp_runs_evidence(b, self, ev->cpu, ev->time);
  }
  if (info->kind == EV_WAKE) {
    int32_t target = (int32_t)rsp_event_field_s64(ev, info->pid);
    int32_t target_cpu = info->target_cpu ? (int32_t)rsp_event_field_s64(ev, info->target_cpu) : -1;
    if (target > 0) {
      rsp_task_id task = rsp_tasks_for_tid(b, -1, target);
      name_from_field(b, task, ev, info->comm);
      rsp_runs_wakeup(b, task, ev->time, info->wake_kind, target_cpu);
    }
  } else if (info->kind == EV_CPU_CLOCK) {
    if (self == RSP_NO_ID)
      b->m->loss.idle_samples++;
    else
      rsp_runs_sample(b, self, ev->cpu, ev->time);
  }
}

/* COMM, FORK, EXIT and MMAP records are written in the context of the task that execs, forks,
 * exits or maps (their sample_id_all trailer names it): evidence that it runs on that cpu.
 * perf's synthesized records, for what existed before the recording, have no time. */
static void record_context(rsp_model_builder *b, const rsp_event *ev)
{
  if (ev->time && ev->time != UINT64_MAX && ev->tid > 0 && ev->cpu >= 0 && (ev->present & PERF_SAMPLE_TID))
    rsp_runs_evidence(b, rsp_tasks_for_tid(b, ev->pid, ev->tid), ev->cpu, ev->time);
}

void rsp_model_builder_feed(rsp_model_builder *b, const rsp_event *ev)
{
  rsp_model *m = b->m;
  b->event = m->n_events++;
  /* Synthesized records (perf's view of the threads that existed) carry no time. */
  if (ev->time && ev->time != UINT64_MAX) {
    if (!m->time_first || ev->time < m->time_first)
      m->time_first = ev->time;
    if (ev->time > m->time_last)
      m->time_last = ev->time;
  }
  switch (ev->type) {
  case PERF_RECORD_SAMPLE:
    b->sampling = true;
    feed_sample(b, ev);
    break;
  case PERF_RECORD_SWITCH:
  case PERF_RECORD_SWITCH_CPU_WIDE:
    if (b->use_switch_records)
      feed_switch_record(b, ev);
    break;
  case PERF_RECORD_COMM: {
    rsp_task_id old;
    rsp_task_id nid = rsp_tasks_comm(b, ev, &old);
    if (nid != RSP_NO_ID)
      rsp_runs_exec(b, old, nid, ev->cpu, ev->time);
    else
      record_context(b, ev);
    break;
  }
  case PERF_RECORD_FORK:
    record_context(b, ev); /* the parent's */
    rsp_tasks_fork(b, ev);
    break;
  case PERF_RECORD_EXIT:
    record_context(b, ev);
    rsp_tasks_exit(b, ev);
    break;
  case PERF_RECORD_MMAP:
  case PERF_RECORD_MMAP2:
    record_context(b, ev);
    break;
  case PERF_RECORD_LOST:
  case PERF_RECORD_LOST_SAMPLES:
    rsp_loss_record(b, ev);
    break;
  default:
    break;
  }
}

rsp_model *rsp_model_builder_finish(rsp_model_builder *b)
{
  rsp_runs_finish(b);
  rsp_model *m = b->m;
  if (!m->n_switch_events)
    m->source = RSP_RUNS_FROM_NOTHING;
  rsp_loss_finish(m);
  g_array_free(b->tstate, TRUE);
  g_hash_table_destroy(b->tid_task);
  g_array_free(b->cpus, TRUE);
  g_ptr_array_free(b->evsels, TRUE);
  g_free(b);
  return m;
}

rsp_model *rsp_model_build(rsp_reader *reader, const rsp_model_options *options, GError **error)
{
  bool switch_records = false;
  if (!(options && options->no_switch_records)) {
    for (unsigned i = 0; i < rsp_reader_n_evsels(reader); i++)
      if (rsp_reader_evsel(reader, i)->attr.context_switch)
        switch_records = true;
  }
  rsp_model_builder *b = rsp_model_builder_new(options, switch_records);
  /* Warn about sampled tracepoints even when none of their events survived. */
  for (unsigned i = 0; i < rsp_reader_n_evsels(reader); i++)
    classify(b, rsp_reader_evsel(reader, i));
  const rsp_event *ev;
  GError *local = NULL;
  while ((ev = rsp_reader_next(reader, &local)))
    rsp_model_builder_feed(b, ev);
  rsp_model *m = rsp_model_builder_finish(b);
  if (local) {
    g_propagate_error(error, local);
    rsp_model_free(m);
    return NULL;
  }
  rsp_loss_from_reader(m, rsp_reader_stats_get(reader));
  return m;
}

rsp_model *rsp_model_load(const char *path, const rsp_model_options *options, GError **error)
{
  rsp_reader *reader = rsp_reader_open(path, NULL, error);
  if (!reader)
    return NULL;
  rsp_model *m = rsp_model_build(reader, options, error);
  rsp_reader_close(reader);
  return m;
}

void rsp_model_free(rsp_model *m)
{
  if (!m)
    return;
  g_string_chunk_free(m->strings);
  g_array_free(m->tasks, TRUE);
  g_array_free(m->runs, TRUE);
  g_array_free(m->sleeps, TRUE);
  g_array_free(m->comms, TRUE);
  g_array_free(m->task_runs, TRUE);
  g_array_free(m->task_sleeps, TRUE);
  g_array_free(m->task_comms, TRUE);
  g_free(m);
}

rsp_runs_source rsp_model_runs_source(const rsp_model *m) { return m->source; }
uint64_t rsp_model_n_switch_events(const rsp_model *m) { return m->n_switch_events; }
uint64_t rsp_model_n_events(const rsp_model *m) { return m->n_events; }
uint64_t rsp_model_time_first(const rsp_model *m) { return m->time_first; }
uint64_t rsp_model_time_last(const rsp_model *m) { return m->time_last; }
uint32_t rsp_model_n_tasks(const rsp_model *m) { return m->tasks->len; }
uint32_t rsp_model_n_runs(const rsp_model *m) { return m->runs->len; }
uint32_t rsp_model_n_sleeps(const rsp_model *m) { return m->sleeps->len; }

const rsp_task *rsp_model_task(const rsp_model *m, rsp_task_id id)
{
  g_return_val_if_fail(id < m->tasks->len, NULL);
  return &g_array_index(m->tasks, rsp_task, id);
}

const rsp_run *rsp_model_run(const rsp_model *m, rsp_run_id id)
{
  g_return_val_if_fail(id < m->runs->len, NULL);
  return &g_array_index(m->runs, rsp_run, id);
}

const rsp_sleep *rsp_model_sleep(const rsp_model *m, rsp_sleep_id id)
{
  g_return_val_if_fail(id < m->sleeps->len, NULL);
  return &g_array_index(m->sleeps, rsp_sleep, id);
}
