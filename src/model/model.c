/* Building the model from the reader's events: which event feeds which concept. */
#include "model/model-private.h"

#include <gio/gio.h>
#include <malloc.h>
#include <pthread.h>
#include <string.h>

typedef enum {
  EV_OTHER, EV_SCHED_SWITCH, EV_WAKE, EV_SAMPLE, /* EV_SAMPLE: a sampling event (cpu-clock, cycles...) */
  EV_DISK_INSERT, EV_DISK_ISSUE, EV_DISK_COMPLETE,
  EV_NET_SEND, EV_NET_RECV, EV_NET_DATA_READY, EV_NET_STATE,
  EV_IRQ_ENTRY, EV_IRQ_EXIT, EV_SOFTIRQ_ENTRY, EV_SOFTIRQ_EXIT,
} evsel_kind;

typedef struct evsel_info {
  const rsp_evsel *evsel;
  evsel_kind kind;
  uint8_t wake_kind;                                 /* RSP_WAKE_* */
  const rsp_field *prev_pid, *next_pid, *prev_state; /* sched_switch */
  const rsp_field *prev_comm, *next_comm;
  const rsp_field *pid, *target_cpu, *comm;          /* sched_waking / sched_wakeup(_new) */
  const rsp_field *dev, *sector, *bytes, *nr_sector, *rwbs; /* block_rq_* */
  const rsp_field *sk, *protocol, *sport, *dport, *family, *daddr, *daddr_v6, *newstate; /* sock */
  uint16_t default_protocol;                         /* kprobes: from the probed function */
  const rsp_field *irq, *irq_name, *vec;             /* irq:irq_handler_entry, irq:softirq_entry */
} evsel_info;

static bool is_tp(const rsp_evsel *evsel, const char *system, const char *name)
{
  return evsel->tp_system && evsel->tp_name && strcmp(evsel->tp_system, system) == 0 &&
         strcmp(evsel->tp_name, name) == 0;
}

static void classify_io(evsel_info *info, const rsp_evsel *evsel)
{
  if (is_tp(evsel, "block", "block_rq_insert") || is_tp(evsel, "block", "block_rq_issue") ||
      is_tp(evsel, "block", "block_rq_complete")) {
    info->dev = rsp_evsel_field(evsel, "dev");
    info->sector = rsp_evsel_field(evsel, "sector");
    info->bytes = rsp_evsel_field(evsel, "bytes");
    info->nr_sector = rsp_evsel_field(evsel, "nr_sector");
    info->rwbs = rsp_evsel_field(evsel, "rwbs");
    if (info->dev && info->sector)
      info->kind = strcmp(evsel->tp_name, "block_rq_insert") == 0 ? EV_DISK_INSERT
                   : strcmp(evsel->tp_name, "block_rq_issue") == 0 ? EV_DISK_ISSUE : EV_DISK_COMPLETE;
    return;
  }
  /* sock:* tracepoints (this kernel has no kprobes); rsp-record's kprobes (probes/net.probes:
   * rsp_net:tcp_data_tx...) and the paper's probe:tcp_sendmsg... when a recording has them. */
  evsel_kind k = EV_OTHER;
  uint16_t protocol = 0;
  if (is_tp(evsel, "sock", "sock_send_length") || is_tp(evsel, "probe", "tcp_sendmsg") ||
      is_tp(evsel, "rsp_net", "tcp_data_tx"))
    k = EV_NET_SEND, protocol = 6;
  else if (is_tp(evsel, "probe", "udp_sendmsg") || is_tp(evsel, "rsp_net", "udp_data_tx") ||
           is_tp(evsel, "rsp_net", "udp6_data_tx"))
    k = EV_NET_SEND, protocol = 17;
  else if (is_tp(evsel, "sock", "sock_recv_length") || is_tp(evsel, "probe", "tcp_recvmsg"))
    k = EV_NET_RECV, protocol = 6;
  else if (is_tp(evsel, "probe", "udp_recvmsg"))
    k = EV_NET_RECV, protocol = 17;
  else if (is_tp(evsel, "sock", "sk_data_ready") || is_tp(evsel, "rsp_net", "tcp_data_rx") ||
           is_tp(evsel, "probe", "tcp_rcv_established"))
    k = EV_NET_DATA_READY, protocol = 6;
  else if (is_tp(evsel, "rsp_net", "udp_data_rx") || is_tp(evsel, "probe", "__udp_enqueue_schedule_skb"))
    k = EV_NET_DATA_READY, protocol = 17;
  else if (is_tp(evsel, "sock", "inet_sock_set_state"))
    k = EV_NET_STATE;
  if (k == EV_OTHER)
    return;
  info->sk = rsp_evsel_field(evsel, "skaddr");
  if (!info->sk)
    info->sk = rsp_evsel_field(evsel, "sk");
  info->protocol = rsp_evsel_field(evsel, "protocol");
  info->sport = rsp_evsel_field(evsel, "sport");
  info->dport = rsp_evsel_field(evsel, "dport");
  info->family = rsp_evsel_field(evsel, "family");
  info->daddr = rsp_evsel_field(evsel, "daddr");
  info->daddr_v6 = rsp_evsel_field(evsel, "daddr_v6");
  info->newstate = rsp_evsel_field(evsel, "newstate");
  info->default_protocol = is_tp(evsel, "sock", "sock_send_length") || is_tp(evsel, "sock", "sock_recv_length") ||
                                   is_tp(evsel, "sock", "sk_data_ready") ? 0 : protocol;
  if (info->sk)
    info->kind = k;
}

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
  } else if (evsel->tp_system && strcmp(evsel->tp_system, "irq") == 0 && evsel->tp_name) {
    const char *n = evsel->tp_name;
    info->kind = strcmp(n, "irq_handler_entry") == 0 ? EV_IRQ_ENTRY
                 : strcmp(n, "irq_handler_exit") == 0 ? EV_IRQ_EXIT
                 : strcmp(n, "softirq_entry") == 0 ? EV_SOFTIRQ_ENTRY
                 : strcmp(n, "softirq_exit") == 0 ? EV_SOFTIRQ_EXIT : EV_OTHER;
    info->irq = rsp_evsel_field(evsel, "irq");
    info->irq_name = rsp_evsel_field(evsel, "name");
    info->vec = rsp_evsel_field(evsel, "vec");
  } else if (rsp_sample_source_rank(evsel) >= 0) {
    info->kind = EV_SAMPLE;
    rsp_sample_source_note(b, evsel);
  } else {
    classify_io(info, evsel);
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
  pthread_mutex_init(&m->cpu_runs_lock, NULL);
  m->strings = g_string_chunk_new(4096);
  m->frame_strings = g_string_chunk_new(4096);
  m->tasks = g_array_new(FALSE, TRUE, sizeof(rsp_task));
  m->runs = g_array_new(FALSE, TRUE, sizeof(rsp_run));
  m->sleeps = g_array_new(FALSE, TRUE, sizeof(rsp_sleep));
  m->comms = g_array_new(FALSE, TRUE, sizeof(rsp_comm_change));
  m->task_runs = g_array_new(FALSE, TRUE, sizeof(uint32_t));
  m->task_sleeps = g_array_new(FALSE, TRUE, sizeof(uint32_t));
  m->task_run_starts = g_array_new(FALSE, TRUE, sizeof(uint64_t));
  m->task_sleep_starts = g_array_new(FALSE, TRUE, sizeof(uint64_t));
  m->task_comms = g_array_new(FALSE, TRUE, sizeof(uint32_t));
  m->source = use_switch_records ? RSP_RUNS_FROM_SWITCH_RECORDS : RSP_RUNS_FROM_SCHED_SWITCH;
  b->m = m;
  b->tstate = g_array_new(FALSE, TRUE, sizeof(rsp_task_state));
  b->tid_task = g_hash_table_new(g_direct_hash, g_direct_equal);
  b->cpus = g_array_new(FALSE, TRUE, sizeof(rsp_cpu_state));
  b->evsels = g_ptr_array_new_with_free_func(g_free);
  b->cur_task = RSP_NO_ID;
  b->cur_stack = RSP_NO_ID;
  m->samples = g_array_new(FALSE, FALSE, sizeof(rsp_sample));
  m->links = g_array_new(FALSE, FALSE, sizeof(rsp_link));
  m->run_out_first = g_array_new(FALSE, TRUE, sizeof(uint32_t));
  m->run_out = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  m->disk_ops = g_array_new(FALSE, TRUE, sizeof(rsp_disk_op));
  m->net_ops = g_array_new(FALSE, TRUE, sizeof(rsp_net_op));
  rsp_irq_init(m);
  m->workload_pid = -1;
  rsp_stacks_init(b);
  b->sleep_facts = g_array_new(FALSE, TRUE, sizeof(rsp_sleep_facts));
  b->run_remap = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  b->sleep_remap = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  b->net_events = g_array_new(FALSE, FALSE, sizeof(rsp_net_event));
  rsp_workload_init(b);
  b->sample_candidates = g_ptr_array_new();
  m->other_sample_events = g_ptr_array_new();
  return b;
}

/* The task of an event recorded with pid/tid -1, after its pid was detached in its exit (release_task): the cpu's
 * current task; RSP_NO_ID when the cpu holds none in our view. */
static rsp_task_id detached_task(rsp_model_builder *b, int32_t cpu)
{
  const rsp_cpu_state *c = rsp_runs_cpu(b, cpu);
  return c && c->kind == CPU_TASK ? c->task : RSP_NO_ID;
}

static void feed_switch_record(rsp_model_builder *b, const rsp_event *ev)
{
  bool out = ev->misc & PERF_RECORD_MISC_SWITCH_OUT;
  b->m->n_switch_events++;
  /* Only CPU_WIDE records name the other task (next for OUT, prev for IN); SWITCH records do not. */
  int32_t next = ev->type == PERF_RECORD_SWITCH_CPU_WIDE ? ev->u.cswitch.next_prev_tid : -1;
  rsp_task_id task;
  if (ev->tid < 0 && out) {
    /* The last switch-out of an exited task carries pid/tid -1. */
    task = detached_task(b, ev->cpu);
    if (task == RSP_NO_ID) {
      b->m->loss.unmatched_switch_outs++;
      return;
    }
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
  /* The callchain is prev's (the tracepoint fires in its context, in __schedule). */
  b->cur_stack = prev > 0 && ev->tid == prev ? rsp_stacks_of_event(b, ev) : RSP_NO_ID;
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

static void feed_net(rsp_model_builder *b, const rsp_event *ev, const evsel_info *info, rsp_task_id self)
{
  rsp_net_event ne = {
    .time = ev->time, .sk = rsp_event_field_u64(ev, info->sk), .task = self,
    .kind = info->kind == EV_NET_SEND ? NET_SEND : info->kind == EV_NET_RECV ? NET_RECV
            : info->kind == EV_NET_DATA_READY ? NET_DATA_READY : NET_STATE,
    .protocol = info->protocol ? (uint16_t)rsp_event_field_u64(ev, info->protocol) : info->default_protocol,
    .family = info->family ? (uint16_t)rsp_event_field_u64(ev, info->family) : 0,
  };
  if (info->kind == EV_NET_STATE) {
    ne.sport = info->sport ? (uint16_t)rsp_event_field_u64(ev, info->sport) : 0;
    ne.dport = info->dport ? (uint16_t)rsp_event_field_u64(ev, info->dport) : 0;
    uint16_t family = ne.family;
    char text[80] = "";
    size_t len = 0;
    if (family == 2 /* AF_INET */ && info->daddr) {
      const uint8_t *a = (const uint8_t *)rsp_event_field_bytes(ev, info->daddr, &len);
      if (len >= 4)
        g_snprintf(text, sizeof text, "%u.%u.%u.%u:%u", a[0], a[1], a[2], a[3], ne.dport);
    } else if (family == 10 /* AF_INET6 */ && info->daddr_v6) {
      const uint8_t *a = (const uint8_t *)rsp_event_field_bytes(ev, info->daddr_v6, &len);
      if (len >= 16) {
        GString *g = g_string_new("[");
        for (int i = 0; i < 16; i += 2)
          g_string_append_printf(g, "%s%x", i ? ":" : "", (unsigned)(a[i] << 8 | a[i + 1]));
        g_string_append_printf(g, "]:%u", ne.dport);
        g_strlcpy(text, g->str, sizeof text);
        g_string_free(g, TRUE);
      }
    }
    if (*text && ne.dport) /* a listening socket has no remote end */
      ne.remote = rsp_model_intern(b->m, text);
  }
  if (ne.sk)
    rsp_net_event_add(b, &ne);
}

/* How long after a hardware interrupt's handler returned a softirq still counts as run at that
 * interrupt's exit (irq_exit -> invoke_softirq follows the handler at once). */
#define SOFTIRQ_AFTER_HARDIRQ_NS 20000u

/* Interrupt tracepoints: which context the cpu is in, for wake events without a callchain. A softirq
 * entered right after a hardware interrupt is that device's; one entered with none before is run
 * by the task itself when it re-enabled bottom halves (on loopback: the sender's own packet). */
static bool in_ksoftirqd(rsp_model_builder *b, const rsp_event *ev)
{
  rsp_task_id t = rsp_tasks_lookup(b, ev->tid);
  /* ksoftirqd runs the softirqs the interrupts left over: theirs, not its own */
  return t != RSP_NO_ID && g_str_has_prefix(rsp_task_at(b->m, t)->comm, "ksoftirqd/");
}

static void feed_irq(rsp_model_builder *b, const rsp_event *ev, const evsel_info *info)
{
  rsp_cpu_state *c = rsp_runs_cpu(b, ev->cpu);
  if (!c)
    return;
  switch (info->kind) {
  case EV_IRQ_ENTRY: {
    if (c->hardirq_depth < UINT8_MAX)
      c->hardirq_depth++;
    char name[64] = "";
    if (info->irq_name) {
      size_t len;
      const char *s = rsp_event_field_bytes(ev, info->irq_name, &len);
      len = s ? MIN(len, sizeof name - 1) : 0;
      memcpy(name, s, len);
      name[len] = 0;
    }
    rsp_irq_enter(b, ev->cpu, ev->time, RSP_IRQ_HARDIRQ, info->irq ? (uint32_t)rsp_event_field_u64(ev, info->irq) : 0,
                  *name ? name : "irq", false);
    break;
  }
  case EV_IRQ_EXIT:
    if (c->hardirq_depth)
      c->hardirq_depth--;
    c->last_hardirq_exit = ev->time;
    rsp_irq_exit(b, ev->cpu, ev->time, RSP_IRQ_HARDIRQ);
    break;
  case EV_SOFTIRQ_ENTRY:
    c->in_softirq = true;
    c->softirq_ctx = c->hardirq_depth || (c->last_hardirq_exit && ev->time - c->last_hardirq_exit <=
                                                                      SOFTIRQ_AFTER_HARDIRQ_NS) ||
                             ev->tid <= 0 || in_ksoftirqd(b, ev)
                         ? RSP_IRQ_CTX_SOFTIRQ : RSP_IRQ_CTX_TASK_SOFTIRQ;
    rsp_irq_enter(b, ev->cpu, ev->time, RSP_IRQ_SOFTIRQ, info->vec ? (uint32_t)rsp_event_field_u64(ev, info->vec) : 0,
                  NULL, c->softirq_ctx == RSP_IRQ_CTX_TASK_SOFTIRQ);
    break;
  default:
    c->in_softirq = false;
    rsp_irq_exit(b, ev->cpu, ev->time, RSP_IRQ_SOFTIRQ);
    break;
  }
}

static uint8_t irq_context(rsp_model_builder *b, int32_t cpu)
{
  rsp_cpu_state *c = rsp_runs_cpu(b, cpu);
  if (!c)
    return RSP_IRQ_CTX_NONE;
  if (c->hardirq_depth)
    return RSP_IRQ_CTX_HARDIRQ;
  return c->in_softirq ? c->softirq_ctx : RSP_IRQ_CTX_NONE;
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
  } else if (ev->tid < 0 && (ev->present & PERF_SAMPLE_TID)) {
    /* pid/tid -1, as for an exited task's last switch-out (the last thread of a process whose main thread exited
     * first wakes the parent's wait4 from release_task: rust-lld under collect2) */
    self = detached_task(b, ev->cpu);
  }
  b->cur_task = self;
  if (info->kind >= EV_IRQ_ENTRY && info->kind <= EV_SOFTIRQ_EXIT) {
    feed_irq(b, ev, info);
    return;
  }
  b->cur_irq = info->kind == EV_WAKE ? irq_context(b, ev->cpu) : RSP_IRQ_CTX_NONE;
  if (info->kind == EV_SAMPLE && !rsp_sample_source_is_chosen(b, ev->evsel))
    return; /* another sampling event's: the same instants would count twice */
  b->cur_stack = info->kind == EV_WAKE || info->kind == EV_SAMPLE ? rsp_stacks_of_event(b, ev) : RSP_NO_ID;
  if (info->kind >= EV_DISK_INSERT && info->kind <= EV_DISK_COMPLETE) {
    char rwbs[8] = "";
    if (info->rwbs) {
      size_t len;
      const char *r = rsp_event_field_bytes(ev, info->rwbs, &len);
      if (len >= sizeof rwbs)
        len = sizeof rwbs - 1;
      memcpy(rwbs, r, len);
      rwbs[len] = 0;
    }
    uint32_t bytes = info->bytes ? (uint32_t)rsp_event_field_u64(ev, info->bytes)
                     : info->nr_sector ? (uint32_t)rsp_event_field_u64(ev, info->nr_sector) * 512u : 0;
    if (info->kind == EV_DISK_COMPLETE && info->nr_sector)
      bytes = (uint32_t)rsp_event_field_u64(ev, info->nr_sector) * 512u;
    rsp_disk_kind k = info->kind == EV_DISK_INSERT ? DISK_INSERT
                      : info->kind == EV_DISK_ISSUE ? DISK_ISSUE : DISK_COMPLETE;
    uint32_t op = rsp_disk_event(b, k, ev->time, (uint32_t)rsp_event_field_u64(ev, info->dev),
                                 rsp_event_field_u64(ev, info->sector), bytes, rwbs);
    if (k == DISK_COMPLETE && op != RSP_NO_ID)
      rsp_irq_served_add(b, ev->cpu, ev->time, RSP_IRQ_SERVED_DISK, op, 0);
    return;
  }
  if (info->kind >= EV_NET_SEND && info->kind <= EV_NET_STATE) {
    feed_net(b, ev, info, self);
    if (info->kind == EV_NET_DATA_READY)
      rsp_irq_served_add(b, ev->cpu, ev->time, RSP_IRQ_SERVED_SOCKET, RSP_NO_ID, rsp_event_field_u64(ev, info->sk));
    return;
  }
  if (info->kind == EV_WAKE) {
    int32_t target = (int32_t)rsp_event_field_s64(ev, info->pid);
    int32_t target_cpu = info->target_cpu ? (int32_t)rsp_event_field_s64(ev, info->target_cpu) : -1;
    if (target > 0) {
      rsp_task_id task = rsp_tasks_for_tid(b, -1, target);
      name_from_field(b, task, ev, info->comm);
      rsp_runs_wakeup(b, task, ev->time, info->wake_kind, target_cpu);
      if (b->cur_irq != RSP_IRQ_CTX_NONE && info->wake_kind == RSP_WAKE_WAKING)
        rsp_irq_served_add(b, ev->cpu, ev->time, RSP_IRQ_SERVED_WAKEUP, task, 0);
    }
  } else if (info->kind == EV_SAMPLE) {
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

/* The recording starts at its first sample or switch record: perf enables its events, then writes
 * what it sees. A record stamped long before that (a synthesized COMM with a stray time) must not
 * stretch the recording's span nor begin a run hours early (rsp_runs_clip_to_start). */
static void note_start(rsp_model_builder *b, const rsp_event *ev)
{
  if ((ev->type == PERF_RECORD_SAMPLE || ev->type == PERF_RECORD_SWITCH || ev->type == PERF_RECORD_SWITCH_CPU_WIDE) &&
      ev->time && ev->time != UINT64_MAX && (!b->first_sampled || ev->time < b->first_sampled))
    b->first_sampled = ev->time;
}

/* A record a windowed reader kept though it lies outside the window (COMM, FORK, EXIT, MMAP... of before it):
 * its names, parents and maps, but no runs, no evidence, no span. */
static void feed_outside_window(rsp_model_builder *b, const rsp_event *ev)
{
  switch (ev->type) {
  case PERF_RECORD_COMM: {
    rsp_task_id old;
    rsp_workload_comm(b, ev);
    rsp_tasks_comm(b, ev, &old);
    break;
  }
  case PERF_RECORD_FORK:
    rsp_tasks_fork(b, ev);
    break;
  case PERF_RECORD_EXIT:
    rsp_tasks_exit(b, ev);
    break;
  default:
    break;
  }
}

void rsp_model_builder_feed(rsp_model_builder *b, const rsp_event *ev)
{
  rsp_model *m = b->m;
  b->event = m->n_events++;
  b->cur_task = RSP_NO_ID;
  b->cur_stack = RSP_NO_ID;
  /* (the maps change at the records that are not samples or switches: a call per event was 0.2 G instructions of
   * deep3m's model) */
  if (ev->type != PERF_RECORD_SAMPLE && ev->type != PERF_RECORD_SWITCH_CPU_WIDE) {
    if (b->stack_thread)
      rsp_stack_thread_observe(b, ev);
    else if (b->sym)
      rsp_symbolizer_observe(b->sym, ev);
  }
  if (ev->outside_window) {
    feed_outside_window(b, ev);
    return;
  }
  note_start(b, ev);
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
    rsp_task_id nid;
    rsp_workload_comm(b, ev);
    nid = rsp_tasks_comm(b, ev, &old);
    if (nid != RSP_NO_ID && !ev->time) {
      m->loss.events_before_start++; /* an exec stamped 0 (perf synthesizes no exec): no run starts at 0 */
    } else if (nid != RSP_NO_ID) {
      rsp_runs_exec(b, old, nid, ev->cpu, ev->time);
    } else {
      record_context(b, ev);
    }
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

/* The model's last steps, once every event is in. */
static rsp_model *finish_model(rsp_model_builder *b)
{
  rsp_stack_thread_settle(b);
  rsp_runs_finish(b);
  rsp_irq_finish(b);
  rsp_model *m = b->m;
  rsp_disk_finish(b);
  rsp_net_finish(b);
  rsp_sleep_ends_finish(b);
  rsp_links_finish(b);
  rsp_workload_finish(b);
  rsp_sample_source_finish(b);
  if (!m->n_switch_events)
    m->source = RSP_RUNS_FROM_NOTHING;
  rsp_loss_finish(m);
  return m;
}

/* Frees B (not its model): what it kept while the events came. */
static void release_builder(rsp_model_builder *b)
{
  g_ptr_array_free(b->sample_candidates, TRUE);
  rsp_stacks_free_builder(b);
  g_array_free(b->sleep_facts, TRUE);
  g_array_free(b->run_remap, TRUE);
  g_array_free(b->sleep_remap, TRUE);
  g_free(b->disk_pending);
  g_array_free(b->net_events, TRUE);
  g_array_free(b->tstate, TRUE);
  g_hash_table_destroy(b->tid_task);
  g_free(b->tid_task_flat);
  g_array_free(b->cpus, TRUE);
  g_ptr_array_free(b->evsels, TRUE);
  g_free(b);
}

rsp_model *rsp_model_builder_finish(rsp_model_builder *b)
{
  rsp_model *m = finish_model(b);
  release_builder(b);
  return m;
}

typedef struct release_job {
  rsp_model_builder *builder; /* NULL: the symbolizer's job */
  rsp_symbolizer *symbolizer;
  GThread *before;            /* a job to join first */
} release_job;

static gpointer release_main(gpointer data)
{
  release_job *job = data;
  if (job->before)
    g_thread_join(job->before);
  if (job->builder)
    release_builder(job->builder);
  rsp_symbolizer_free(job->symbolizer);
  g_free(job);
  return NULL;
}

/* Runs JOB on a thread when there are two (returned, to be joined), else now (NULL). */
static GThread *release(release_job *job)
{
  if (rsp_threads_wanted() > 1)
    return g_thread_new("rsp-release", release_main, job);
  release_main(job);
  return NULL;
}

/* The model's arrays (runs, sleeps, links, stacks) grow by doubling, as GArray does, to tens of MB.
 * glibc's malloc raises its mmap threshold each time a big block is freed (up to 32 MB), after which
 * such arrays live in the heap: each doubling copies them into fresh pages, and the unused half of
 * each is resident. With the threshold fixed, they stay mmapped: realloc moves them with mremap, and
 * untouched capacity costs nothing. Peak RSS of rsp-summary --categories on an 878 MB recording:
 * 271 -> 233 MB; 180 -> 167 MB on a 184 MB one. */
static void keep_big_arrays_mmapped(void)
{
  static gsize done;
  if (g_once_init_enter(&done)) {
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    g_once_init_leave(&done, 1);
  }
}

/* Whether READER's samples may carry copies of user stacks (-g dwarf): the symbolizer unwinds them on the model's
 * thread, from the event's own copy (stack-thread.c takes the chains alone). */
static bool user_stacks(rsp_reader *reader)
{
  for (unsigned i = 0; i < rsp_reader_n_evsels(reader); i++)
    if (rsp_reader_evsel(reader, i)->attr.sample_type & PERF_SAMPLE_STACK_USER)
      return true;
  return false;
}

rsp_model *rsp_model_build(rsp_reader *reader, const rsp_model_options *options, GError **error)
{
  keep_big_arrays_mmapped();
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
  rsp_symbolizer_options so = b->opts.symbolizer ? *b->opts.symbolizer : (rsp_symbolizer_options){ 0 };
  so.open_ahead = rsp_threads_wanted() > 1;
  /* The reader runs on a thread of its own, up to 4 batches ahead of the model (event-pipeline.c); the new stacks
   * on another (stack-thread.c), which opens the symbolizer itself (reading the kernel's symbols took the first 30 ms
   * of a recording with deep stacks before the reader began). */
  bool pipelined = rsp_event_pipeline_wanted(reader);
  bool stack_thread = pipelined && !b->opts.no_stacks && !user_stacks(reader);
  if (!b->opts.no_stacks && !stack_thread) {
    GError *serr = NULL;
    b->sym = rsp_symbolizer_new(reader, &so, &serr);
    if (!b->sym) {
      /* No symbols: stacks stay unresolved rather than failing the model. */
      g_clear_error(&serr);
    }
  }
  GKeyFile *meta = rsp_reader_metadata(reader);
  int32_t workload = rsp_metadata_workload_pid(meta);
  if (workload > 0) {
    char *command = g_key_file_get_string(meta, "recording", "command", NULL);
    rsp_workload_set_metadata(b, workload, command);
    g_free(command);
  } else if (meta) {
    char *mode = g_key_file_get_string(meta, "recording", "mode", NULL);
    if (mode && strcmp(mode, "all") == 0)
      rsp_workload_set_system_wide(b);
    g_free(mode);
  }
  rsp_workload_set_cmdline(b, (const char *const *)rsp_reader_header(reader)->cmdline);
  uint64_t size = rsp_reader_header(reader)->file_size;
  int64_t last_progress = 0; /* the first check reports at once */
  bool cancelled = false;
  const rsp_event *ev;
  GError *local = NULL;
  uint64_t reached = 0; /* events come in time order, not file order: the furthest offset read */
  rsp_event_pipeline *pipeline = pipelined ? rsp_event_pipeline_start(reader) : NULL;
  if (stack_thread)
    rsp_stack_thread_start(b, reader, &so);
  while ((ev = pipeline ? rsp_event_pipeline_next(pipeline, &local) : rsp_reader_next(reader, &local))) {
    rsp_model_builder_feed(b, ev);
    if (ev->offset > reached && ev->source == RSP_SOURCE_PERF)
      reached = ev->offset;
    if (b->opts.progress && (b->m->n_events & 1023) == 0) {
      int64_t now = g_get_monotonic_time();
      if (now - last_progress >= 10000) {
        last_progress = now;
        if (!b->opts.progress(size && reached > size ? size : reached, size, b->opts.progress_data)) {
          cancelled = true;
          break;
        }
      }
    }
  }
  rsp_event_pipeline_finish(pipeline);
  /* what the reader still holds of the file (the pages of the last batches: 30 MB of a 546 MB recording with deep
   * stacks) is not kept through the model's last steps, rsp-view's peak */
  rsp_reader_release_pages(reader);
  /* The stacks are all made now: the symbolizer (its files, libdw's debug info, the frame cache: 70 MB of a recorded
   * build's) and the stacks' tables are freed before the model's last steps allocate theirs, the peak, and the
   * builder's tables after them; both beside what comes next (deep3m: 35 ms of hash tables, arrays and libdw's debug
   * info), on a thread when there are two. */
  rsp_stack_thread_settle(b);
  rsp_symbolizer *sym = b->sym; /* (the stacks' thread's, joined) */
  b->sym = NULL;
  rsp_dso_status_collect(b->m, sym);
  rsp_stacks_free_builder(b);
  release_job *first = g_new(release_job, 1);
  *first = (release_job){ NULL, sym, NULL };
  GThread *freeing_symbolizer = release(first);
  rsp_model *m = finish_model(b);
  release_job *job = g_new(release_job, 1);
  *job = (release_job){ b, NULL, freeing_symbolizer };
  m->releasing = release(job);
  if (cancelled && !local)
    local = g_error_new(G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s: building the model was cancelled",
                        rsp_reader_path(reader));
  if (local) {
    g_propagate_error(error, local);
    rsp_model_free(m);
    return NULL;
  }
  const rsp_reader_stats *st = rsp_reader_stats_get(reader);
  rsp_loss_from_reader(m, st);
  if (st->window_resolved) {
    m->windowed = true;
    m->window_lo = st->window_lo;
    m->window_hi = st->window_hi;
    m->origin = rsp_runs_recording_start(st->time_first_seen, st->sample_time_first_seen);
    if (!m->origin || (m->time_first && m->time_first < m->origin))
      m->origin = m->time_first;
  }
  m->reader_warnings = g_strdupv((char **)rsp_reader_warnings(reader));
  return m;
}

typedef struct parallel_part {
  void (*fn)(void *);
  void *data;
} parallel_part;

static gpointer parallel_main(gpointer data)
{
  parallel_part *part = data;
  part->fn(part->data);
  return NULL;
}

void rsp_model_in_parallel(void (*a)(void *), void *data_a, void (*b)(void *), void *data_b)
{
  if (rsp_threads_wanted() < 2) {
    a(data_a);
    b(data_b);
    return;
  }
  parallel_part second = { b, data_b };
  GThread *thread = g_thread_new("rsp-model-end", parallel_main, &second);
  a(data_a);
  g_thread_join(thread);
}

guint rsp_model_tasks_half(const rsp_model *m, bool runs, bool sleeps)
{
  uint64_t all = (runs ? (uint64_t)m->runs->len : 0) + (sleeps ? m->sleeps->len : 0), seen = 0;
  guint split = 0;
  for (; split < m->tasks->len && seen * 2 < all; split++) {
    const rsp_task *t = &g_array_index(m->tasks, rsp_task, split);
    seen += (runs ? (uint64_t)t->n_runs : 0) + (sleeps ? t->n_sleeps : 0);
  }
  return split;
}

unsigned rsp_threads_wanted(void)
{
  const char *env = g_getenv("RSP_THREADS");
  if (env && *env) {
    int n = atoi(env);
    return n > 1 ? (unsigned)n : 1;
  }
  return g_get_num_processors();
}

/* Opens PATH with the reader's options RO (NULL: the defaults) and builds its model. */
static rsp_model *load_with(const char *path, const rsp_reader_options *ro, const rsp_model_options *options,
                            GError **error)
{
  rsp_reader *reader = rsp_reader_open(path, ro, error);
  if (!reader)
    return NULL;
  rsp_model *m = rsp_model_build(reader, options, error);
  rsp_reader_close(reader);
  return m;
}

static rsp_model *load_window(const char *path, const rsp_model_options *options, bool relative, uint64_t from,
                              uint64_t to, GError **error)
{
  rsp_reader_options ro = { .window = true, .window_relative = relative, .window_from = from, .window_to = to,
                            .window_margin_ns = RSP_WINDOW_MARGIN_NS, .no_index = options->window_no_index };
  return load_with(path, &ro, options, error);
}

rsp_model *rsp_model_load(const char *path, const rsp_model_options *options, GError **error)
{
  if (options && options->window) {
    /* The reader counts the window from its idea of the start (the header's first sample, else the first
     * timestamp), the model from the earliest event (rsp_runs_recording_start): they differ by the records
     * perf wrote before its first sample, usually far less than the margin. When not, read again from the
     * model's start, now known. */
    rsp_model *m = load_window(path, options, true, options->window_t0, options->window_t1, error);
    if (!m || !m->windowed || m->window_lo == 0)
      return m;
    uint64_t want_lo = m->origin + options->window_t0;
    want_lo = want_lo > RSP_WINDOW_MARGIN_NS / 2 ? want_lo - RSP_WINDOW_MARGIN_NS / 2 : 0;
    if (m->window_lo <= want_lo)
      return m;
    uint64_t origin = m->origin;
    rsp_model_free(m);
    m = load_window(path, options, false, origin + options->window_t0,
                    options->window_t1 > UINT64_MAX - origin ? UINT64_MAX : origin + options->window_t1, error);
    if (m && m->windowed)
      m->origin = origin; /* the reader's origin was not used: keep the one found */
    return m;
  }
  return load_with(path, NULL, options, error);
}

void rsp_model_free(rsp_model *m)
{
  if (!m)
    return;
  if (m->releasing)
    g_thread_join(m->releasing);
  rsp_model_cpu_runs_free(m);
  pthread_mutex_destroy(&m->cpu_runs_lock);
  g_string_chunk_free(m->strings);
  g_string_chunk_free(m->frame_strings);
  g_array_free(m->tasks, TRUE);
  g_array_free(m->runs, TRUE);
  g_array_free(m->sleeps, TRUE);
  g_array_free(m->comms, TRUE);
  g_array_free(m->task_runs, TRUE);
  g_array_free(m->task_sleeps, TRUE);
  g_array_free(m->task_run_starts, TRUE);
  g_array_free(m->task_sleep_starts, TRUE);
  g_array_free(m->task_comms, TRUE);
  g_array_free(m->frames, TRUE);
  rsp_dso_status_free(m);
  g_array_free(m->stack_frames, TRUE);
  g_array_free(m->stacks, TRUE);
  g_array_free(m->samples, TRUE);
  g_array_free(m->links, TRUE);
  g_array_free(m->run_out_first, TRUE);
  g_array_free(m->run_out, TRUE);
  g_array_free(m->disk_ops, TRUE);
  g_array_free(m->net_ops, TRUE);
  rsp_irq_free(m);
  g_ptr_array_free(m->other_sample_events, TRUE);
  g_strfreev(m->reader_warnings);
  g_free(m);
}

rsp_runs_source rsp_model_runs_source(const rsp_model *m) { return m->source; }
uint64_t rsp_model_n_switch_events(const rsp_model *m) { return m->n_switch_events; }
uint64_t rsp_model_n_events(const rsp_model *m) { return m->n_events; }
uint64_t rsp_model_time_first(const rsp_model *m) { return m->windowed ? m->origin : m->time_first; }

bool rsp_model_window(const rsp_model *m, uint64_t *lo, uint64_t *hi)
{
  if (lo)
    *lo = m->window_lo;
  if (hi)
    *hi = m->window_hi;
  return m->windowed;
}
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

uint32_t rsp_model_n_samples(const rsp_model *m) { return m->samples->len; }
int32_t rsp_model_workload_pid(const rsp_model *m) { return m->workload_pid; }

const rsp_sample *rsp_model_sample(const rsp_model *m, rsp_sample_id id)
{
  g_return_val_if_fail(id < m->samples->len, NULL);
  return &g_array_index(m->samples, rsp_sample, id);
}
