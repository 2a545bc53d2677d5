/* The trace builder: rsp_events as the reader would deliver them, fed to the model builder. */
#include "trace-builder.h"

#include <stdio.h>
#include <string.h>

/* The kernel's layouts (/sys/kernel/tracing/events/sched/{sched_switch,sched_wakeup}/format). */
static const rsp_field switch_fields[] = {
  { .name = "common_type", .kind = RSP_FIELD_UNSIGNED, .offset = 0, .size = 2, .common = true },
  { .name = "common_pid", .kind = RSP_FIELD_SIGNED, .offset = 4, .size = 4, .common = true },
  { .name = "prev_comm", .kind = RSP_FIELD_STRING, .offset = 8, .size = 16, .elem_size = 1 },
  { .name = "prev_pid", .kind = RSP_FIELD_SIGNED, .offset = 24, .size = 4 },
  { .name = "prev_prio", .kind = RSP_FIELD_SIGNED, .offset = 28, .size = 4 },
  { .name = "prev_state", .kind = RSP_FIELD_SIGNED, .offset = 32, .size = 8 },
  { .name = "next_comm", .kind = RSP_FIELD_STRING, .offset = 40, .size = 16, .elem_size = 1 },
  { .name = "next_pid", .kind = RSP_FIELD_SIGNED, .offset = 56, .size = 4 },
  { .name = "next_prio", .kind = RSP_FIELD_SIGNED, .offset = 60, .size = 4 },
};
static const rsp_field wake_fields[] = {
  { .name = "common_type", .kind = RSP_FIELD_UNSIGNED, .offset = 0, .size = 2, .common = true },
  { .name = "common_pid", .kind = RSP_FIELD_SIGNED, .offset = 4, .size = 4, .common = true },
  { .name = "comm", .kind = RSP_FIELD_STRING, .offset = 8, .size = 16, .elem_size = 1 },
  { .name = "pid", .kind = RSP_FIELD_SIGNED, .offset = 24, .size = 4 },
  { .name = "prio", .kind = RSP_FIELD_SIGNED, .offset = 28, .size = 4 },
  { .name = "target_cpu", .kind = RSP_FIELD_SIGNED, .offset = 32, .size = 4 },
};
static const rsp_field syscall_fields[] = {
  { .name = "common_type", .kind = RSP_FIELD_UNSIGNED, .offset = 0, .size = 2, .common = true },
  { .name = "common_pid", .kind = RSP_FIELD_SIGNED, .offset = 4, .size = 4, .common = true },
  { .name = "fd", .kind = RSP_FIELD_UNSIGNED, .offset = 16, .size = 8 },
};

/* block/block_rq_{insert,issue,complete}, sock/{sock_send_length,sock_recv_length,sk_data_ready,
 * inet_sock_set_state} as /work/shared/platform/tracepoints.txt gives them. */
static const rsp_field block_fields[] = {
  { .name = "common_type", .kind = RSP_FIELD_UNSIGNED, .offset = 0, .size = 2, .common = true },
  { .name = "common_pid", .kind = RSP_FIELD_SIGNED, .offset = 4, .size = 4, .common = true },
  { .name = "dev", .kind = RSP_FIELD_UNSIGNED, .offset = 8, .size = 4 },
  { .name = "sector", .kind = RSP_FIELD_UNSIGNED, .offset = 16, .size = 8 },
  { .name = "nr_sector", .kind = RSP_FIELD_UNSIGNED, .offset = 24, .size = 4 },
  { .name = "bytes", .kind = RSP_FIELD_UNSIGNED, .offset = 28, .size = 4 },
  { .name = "rwbs", .kind = RSP_FIELD_STRING, .offset = 34, .size = 10, .elem_size = 1 },
};
static const rsp_field complete_fields[] = {
  { .name = "common_type", .kind = RSP_FIELD_UNSIGNED, .offset = 0, .size = 2, .common = true },
  { .name = "common_pid", .kind = RSP_FIELD_SIGNED, .offset = 4, .size = 4, .common = true },
  { .name = "dev", .kind = RSP_FIELD_UNSIGNED, .offset = 8, .size = 4 },
  { .name = "sector", .kind = RSP_FIELD_UNSIGNED, .offset = 16, .size = 8 },
  { .name = "nr_sector", .kind = RSP_FIELD_UNSIGNED, .offset = 24, .size = 4 },
  { .name = "error", .kind = RSP_FIELD_SIGNED, .offset = 28, .size = 4 },
  { .name = "rwbs", .kind = RSP_FIELD_STRING, .offset = 34, .size = 10, .elem_size = 1 },
};
static const rsp_field sock_len_fields[] = {
  { .name = "common_type", .kind = RSP_FIELD_UNSIGNED, .offset = 0, .size = 2, .common = true },
  { .name = "common_pid", .kind = RSP_FIELD_SIGNED, .offset = 4, .size = 4, .common = true },
  { .name = "sk", .kind = RSP_FIELD_UNSIGNED, .offset = 8, .size = 8 },
  { .name = "family", .kind = RSP_FIELD_UNSIGNED, .offset = 16, .size = 2 },
  { .name = "protocol", .kind = RSP_FIELD_UNSIGNED, .offset = 18, .size = 2 },
  { .name = "ret", .kind = RSP_FIELD_SIGNED, .offset = 20, .size = 4 },
};
static const rsp_field ready_fields[] = {
  { .name = "common_type", .kind = RSP_FIELD_UNSIGNED, .offset = 0, .size = 2, .common = true },
  { .name = "common_pid", .kind = RSP_FIELD_SIGNED, .offset = 4, .size = 4, .common = true },
  { .name = "skaddr", .kind = RSP_FIELD_UNSIGNED, .offset = 8, .size = 8 },
  { .name = "family", .kind = RSP_FIELD_UNSIGNED, .offset = 16, .size = 2 },
  { .name = "protocol", .kind = RSP_FIELD_UNSIGNED, .offset = 18, .size = 2 },
};
static const rsp_field state_fields[] = {
  { .name = "common_type", .kind = RSP_FIELD_UNSIGNED, .offset = 0, .size = 2, .common = true },
  { .name = "common_pid", .kind = RSP_FIELD_SIGNED, .offset = 4, .size = 4, .common = true },
  { .name = "skaddr", .kind = RSP_FIELD_UNSIGNED, .offset = 8, .size = 8 },
  { .name = "oldstate", .kind = RSP_FIELD_SIGNED, .offset = 16, .size = 4 },
  { .name = "newstate", .kind = RSP_FIELD_SIGNED, .offset = 20, .size = 4 },
  { .name = "sport", .kind = RSP_FIELD_UNSIGNED, .offset = 24, .size = 2 },
  { .name = "dport", .kind = RSP_FIELD_UNSIGNED, .offset = 26, .size = 2 },
  { .name = "family", .kind = RSP_FIELD_UNSIGNED, .offset = 28, .size = 2 },
  { .name = "protocol", .kind = RSP_FIELD_UNSIGNED, .offset = 30, .size = 2 },
  { .name = "saddr", .kind = RSP_FIELD_ARRAY, .offset = 32, .size = 4, .elem_size = 1 },
  { .name = "daddr", .kind = RSP_FIELD_ARRAY, .offset = 36, .size = 4, .elem_size = 1 },
};

/* rsp-record's kprobes (probes/net.probes): __probe_ip, then sk. */
static const rsp_field kprobe_fields[] = {
  { .name = "common_type", .kind = RSP_FIELD_UNSIGNED, .offset = 0, .size = 2, .common = true },
  { .name = "common_pid", .kind = RSP_FIELD_SIGNED, .offset = 4, .size = 4, .common = true },
  { .name = "__probe_ip", .kind = RSP_FIELD_UNSIGNED, .offset = 8, .size = 8 },
  { .name = "sk", .kind = RSP_FIELD_UNSIGNED, .offset = 16, .size = 8 },
};

/* irq/{irq_handler_entry,irq_handler_exit,softirq_entry,softirq_exit}: irq or vec after the common fields */
static const rsp_field irq_fields[] = {
  { .name = "common_type", .kind = RSP_FIELD_UNSIGNED, .offset = 0, .size = 2, .common = true },
  { .name = "common_pid", .kind = RSP_FIELD_SIGNED, .offset = 4, .size = 4, .common = true },
  { .name = "vec", .kind = RSP_FIELD_UNSIGNED, .offset = 8, .size = 4 },
};

enum { EV_SWITCH, EV_WAKING, EV_WAKEUP, EV_CLOCK, EV_SYSCALL, EV_DUMMY, EV_INSERT, EV_ISSUE, EV_COMPLETE,
       EV_SEND, EV_RECV, EV_READY, EV_STATE, EV_KP_TX, EV_KP_RX, EV_IRQ_IN, EV_IRQ_OUT, EV_SOFTIRQ_IN,
       EV_SOFTIRQ_OUT, N_EVSELS };

#define SYM_BASE 0xffffffff81000000ull
#define USER_BASE 0x400000ull

struct tb {
  rsp_model_builder *b;
  rsp_evsel evsels[N_EVSELS];
  GHashTable *pids; /* tid -> pid, for threads */
  uint64_t fed;
  uint8_t raw[96];
  GPtrArray *names;        /* function names; name i is at address SYM_BASE + 16 * i */
  uint64_t next_chain[256]; /* tb_next_stack's callchain for the next sample */
  uint32_t next_chain_nr;
};

static const char *fake_symbol(uint64_t addr, void *data)
{
  tb *t = data;
  uint64_t base = addr >= SYM_BASE ? SYM_BASE : USER_BASE;
  uint64_t i = (addr - base) / 16;
  const char *name = i < t->names->len ? g_ptr_array_index(t->names, i) : NULL;
  return name && name[0] == '?' ? NULL : name; /* "?x": an address no symbol holds */
}

/* The index of function NAME in the builder's names (its address is BASE + 16 * index), added when new. */
static guint name_index(tb *t, const char *name)
{
  guint i;
  for (i = 0; i < t->names->len; i++)
    if (strcmp(g_ptr_array_index(t->names, i), name) == 0)
      return i;
  g_ptr_array_add(t->names, g_strdup(name));
  return i;
}

void tb_next_stack(tb *t, const char *frames)
{
  char **halves = g_strsplit(frames, "|", 2);
  t->next_chain_nr = 0;
  for (int h = 0; halves[h] && h < 2; h++) {
    t->next_chain[t->next_chain_nr++] = (uint64_t)(h ? PERF_CONTEXT_USER : PERF_CONTEXT_KERNEL);
    char **parts = g_strsplit(halves[h], ",", -1);
    for (char **p = parts; *p && t->next_chain_nr < 250; p++)
      t->next_chain[t->next_chain_nr++] = (h ? USER_BASE : SYM_BASE) + 16 * name_index(t, *p) + 4;
    g_strfreev(parts);
  }
  g_strfreev(halves);
}

tb *tb_new(bool switch_records)
{
  return tb_new_with(NULL, switch_records);
}

tb *tb_new_with(const rsp_model_options *options, bool switch_records)
{
  tb *t = g_new0(tb, 1);
  t->b = rsp_model_builder_new(options, switch_records);
  t->pids = g_hash_table_new(g_direct_hash, g_direct_equal);
  t->evsels[EV_SWITCH] = (rsp_evsel){ .name = "sched:sched_switch", .tp_system = "sched",
                                      .tp_name = "sched_switch", .fields = switch_fields,
                                      .n_fields = G_N_ELEMENTS(switch_fields) };
  t->evsels[EV_WAKING] = (rsp_evsel){ .name = "sched:sched_waking", .tp_system = "sched",
                                      .tp_name = "sched_waking", .fields = wake_fields,
                                      .n_fields = G_N_ELEMENTS(wake_fields) };
  t->evsels[EV_WAKEUP] = (rsp_evsel){ .name = "sched:sched_wakeup", .tp_system = "sched",
                                      .tp_name = "sched_wakeup", .fields = wake_fields,
                                      .n_fields = G_N_ELEMENTS(wake_fields) };
  t->evsels[EV_CLOCK] = (rsp_evsel){ .name = "cpu-clock/freq=997/" };
  t->evsels[EV_CLOCK].attr.type = PERF_TYPE_SOFTWARE;
  t->evsels[EV_CLOCK].attr.config = PERF_COUNT_SW_CPU_CLOCK;
  t->evsels[EV_SYSCALL] = (rsp_evsel){ .name = "syscalls:sys_enter_read", .tp_system = "syscalls",
                                       .tp_name = "sys_enter_read", .fields = syscall_fields,
                                       .n_fields = G_N_ELEMENTS(syscall_fields) };
  t->evsels[EV_DUMMY] = (rsp_evsel){ .name = "dummy:HG" };
  t->evsels[EV_DUMMY].attr.type = PERF_TYPE_SOFTWARE;
  t->evsels[EV_DUMMY].attr.config = PERF_COUNT_SW_DUMMY;
  t->evsels[EV_DUMMY].attr.context_switch = switch_records;
  static const struct { unsigned ev; const char *sys, *name; const rsp_field *fields; unsigned n; } tps[] = {
    { EV_INSERT, "block", "block_rq_insert", block_fields, G_N_ELEMENTS(block_fields) },
    { EV_ISSUE, "block", "block_rq_issue", block_fields, G_N_ELEMENTS(block_fields) },
    { EV_COMPLETE, "block", "block_rq_complete", complete_fields, G_N_ELEMENTS(complete_fields) },
    { EV_SEND, "sock", "sock_send_length", sock_len_fields, G_N_ELEMENTS(sock_len_fields) },
    { EV_RECV, "sock", "sock_recv_length", sock_len_fields, G_N_ELEMENTS(sock_len_fields) },
    { EV_READY, "sock", "sk_data_ready", ready_fields, G_N_ELEMENTS(ready_fields) },
    { EV_STATE, "sock", "inet_sock_set_state", state_fields, G_N_ELEMENTS(state_fields) },
    { EV_KP_TX, "rsp_net", "tcp_data_tx", kprobe_fields, G_N_ELEMENTS(kprobe_fields) },
    { EV_KP_RX, "rsp_net", "tcp_data_rx", kprobe_fields, G_N_ELEMENTS(kprobe_fields) },
    { EV_IRQ_IN, "irq", "irq_handler_entry", irq_fields, G_N_ELEMENTS(irq_fields) },
    { EV_IRQ_OUT, "irq", "irq_handler_exit", irq_fields, G_N_ELEMENTS(irq_fields) },
    { EV_SOFTIRQ_IN, "irq", "softirq_entry", irq_fields, G_N_ELEMENTS(irq_fields) },
    { EV_SOFTIRQ_OUT, "irq", "softirq_exit", irq_fields, G_N_ELEMENTS(irq_fields) },
  };
  for (unsigned i = 0; i < G_N_ELEMENTS(tps); i++)
    t->evsels[tps[i].ev] = (rsp_evsel){ .name = tps[i].name, .tp_system = tps[i].sys, .tp_name = tps[i].name,
                                        .fields = tps[i].fields, .n_fields = tps[i].n };
  t->names = g_ptr_array_new_with_free_func(g_free);
  t->b->fake_symbol = fake_symbol;
  t->b->fake_symbol_data = t;
  for (unsigned i = 0; i < N_EVSELS; i++) {
    t->evsels[i].index = i;
    if (t->evsels[i].tp_system)
      t->evsels[i].attr.type = PERF_TYPE_TRACEPOINT;
    t->evsels[i].attr.sample_period = 1;
  }
  t->evsels[EV_CLOCK].attr.freq = 1;
  t->evsels[EV_CLOCK].attr.sample_freq = 997;
  return t;
}

rsp_model *tb_finish(tb *t)
{
  rsp_model *m = rsp_model_builder_finish(t->b);
  g_hash_table_destroy(t->pids);
  g_ptr_array_free(t->names, TRUE);
  g_free(t);
  return m;
}

uint64_t tb_next_event(const tb *t) { return t->fed; }

void tb_thread(tb *t, int32_t pid, int32_t tid)
{
  g_hash_table_insert(t->pids, GINT_TO_POINTER(tid), GINT_TO_POINTER(pid));
}

void tb_cmdline(tb *t, const char *const *argv)
{
  rsp_workload_set_cmdline(t->b, argv);
}

void tb_sample_tracepoints(tb *t)
{
  rsp_evsel *e = &t->evsels[EV_SWITCH];
  e->attr.freq = 1;
  e->attr.sample_freq = 997;
  e->sampled_tracepoint = true;
}

static int32_t pid_of(const tb *t, int32_t tid)
{
  gpointer v;
  if (tid > 0 && g_hash_table_lookup_extended(t->pids, GINT_TO_POINTER(tid), NULL, &v))
    return GPOINTER_TO_INT(v);
  return tid;
}

static rsp_event base(const tb *t, uint32_t type, uint64_t ns, int32_t cpu, int32_t tid)
{
  rsp_event ev = { .type = type, .time = ns, .cpu = cpu, .pid = pid_of(t, tid), .tid = tid,
                   .present = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU };
  return ev;
}

static void feed(tb *t, const rsp_event *ev)
{
  if (t->next_chain_nr && ev->type == PERF_RECORD_SAMPLE) {
    rsp_event copy = *ev;
    copy.present |= PERF_SAMPLE_CALLCHAIN;
    copy.callchain = t->next_chain;
    copy.callchain_nr = t->next_chain_nr;
    rsp_model_builder_feed(t->b, &copy);
    t->next_chain_nr = 0;
    t->fed++;
    return;
  }
  rsp_model_builder_feed(t->b, ev);
  t->fed++;
}

void tb_switch_in(tb *t, uint64_t ns, int32_t cpu, int32_t tid, int32_t prev_tid)
{
  rsp_event ev = base(t, PERF_RECORD_SWITCH_CPU_WIDE, ns, cpu, tid);
  if (tid == 0)
    ev.pid = 0;
  ev.u.cswitch.out = false;
  ev.u.cswitch.next_prev_pid = pid_of(t, prev_tid);
  ev.u.cswitch.next_prev_tid = prev_tid;
  feed(t, &ev);
}

void tb_switch_out(tb *t, uint64_t ns, int32_t cpu, int32_t tid, int32_t next_tid, bool preempt)
{
  rsp_event ev = base(t, PERF_RECORD_SWITCH_CPU_WIDE, ns, cpu, tid);
  ev.misc = PERF_RECORD_MISC_SWITCH_OUT | (preempt ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0);
  ev.u.cswitch.out = true;
  ev.u.cswitch.preempt = preempt;
  ev.u.cswitch.next_prev_pid = pid_of(t, next_tid);
  ev.u.cswitch.next_prev_tid = next_tid;
  feed(t, &ev);
}

static void put_comm(uint8_t *at, int32_t tid)
{
  char name[16];
  if (tid == 0)
    snprintf(name, sizeof name, "swapper");
  else
    snprintf(name, sizeof name, "t%d", (int)tid);
  memcpy(at, name, strlen(name)); /* the rest stays 0 */
}

static int64_t state_bits(const char *state)
{
  /* TASK_REPORT bits as sched_switch reports them; "R+" is TASK_REPORT_MAX (preempted). */
  static const char letters[] = "SDTtXZPI";
  if (strcmp(state, "R+") == 0)
    return 0x100;
  const char *p = strchr(letters, state[0]);
  return state[0] == 'R' || !p ? 0 : (int64_t)1 << (p - letters);
}

uint64_t tb_sched_switch(tb *t, uint64_t ns, int32_t cpu, int32_t prev, const char *state, int32_t next)
{
  memset(t->raw, 0, sizeof t->raw);
  uint16_t type = 316;
  int64_t bits = state_bits(state);
  memcpy(t->raw + 0, &type, 2);
  memcpy(t->raw + 4, &prev, 4);
  put_comm(t->raw + 8, prev);
  memcpy(t->raw + 24, &prev, 4);
  memcpy(t->raw + 32, &bits, 8);
  put_comm(t->raw + 40, next);
  memcpy(t->raw + 56, &next, 4);
  rsp_event ev = base(t, PERF_RECORD_SAMPLE, ns, cpu, prev);
  ev.present |= PERF_SAMPLE_RAW;
  ev.evsel = &t->evsels[EV_SWITCH];
  ev.raw = t->raw;
  ev.raw_size = 64;
  ev.period = 1;
  uint64_t ordinal = t->fed;
  feed(t, &ev);
  return ordinal;
}

static void wake(tb *t, unsigned evsel, uint64_t ns, int32_t cpu, int32_t waker, int32_t target, int32_t target_cpu)
{
  memset(t->raw, 0, sizeof t->raw);
  memcpy(t->raw + 4, &waker, 4);
  put_comm(t->raw + 8, target);
  memcpy(t->raw + 24, &target, 4);
  memcpy(t->raw + 32, &target_cpu, 4);
  rsp_event ev = base(t, PERF_RECORD_SAMPLE, ns, cpu, waker);
  ev.present |= PERF_SAMPLE_RAW;
  ev.evsel = &t->evsels[evsel];
  ev.raw = t->raw;
  ev.raw_size = 40;
  ev.period = 1;
  feed(t, &ev);
}

void tb_waking(tb *t, uint64_t ns, int32_t cpu, int32_t waker, int32_t target, int32_t target_cpu)
{
  wake(t, EV_WAKING, ns, cpu, waker, target, target_cpu);
}

void tb_wakeup(tb *t, uint64_t ns, int32_t cpu, int32_t waker, int32_t target, int32_t target_cpu)
{
  wake(t, EV_WAKEUP, ns, cpu, waker, target, target_cpu);
}

void tb_sample(tb *t, uint64_t ns, int32_t cpu, int32_t tid)
{
  rsp_event ev = base(t, PERF_RECORD_SAMPLE, ns, cpu, tid);
  ev.present |= PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
  ev.evsel = &t->evsels[EV_CLOCK];
  /* a sample without a callchain is its ip as one frame (as perf prints it): a named function */
  ev.ip = tid ? USER_BASE + 16 * name_index(t, "sampled_code") + 4 : SYM_BASE + 16 * name_index(t, "default_idle") + 4;
  if (!tid)
    ev.misc = PERF_RECORD_MISC_KERNEL;
  ev.period = 1003009;
  feed(t, &ev);
}

void tb_tracepoint(tb *t, uint64_t ns, int32_t cpu, int32_t tid)
{
  memset(t->raw, 0, sizeof t->raw);
  memcpy(t->raw + 4, &tid, 4);
  rsp_event ev = base(t, PERF_RECORD_SAMPLE, ns, cpu, tid);
  ev.present |= PERF_SAMPLE_RAW;
  ev.evsel = &t->evsels[EV_SYSCALL];
  ev.raw = t->raw;
  ev.raw_size = 24;
  ev.period = 1;
  feed(t, &ev);
}

/* perf's synthesized records (NS 0) carry a zero trailer. */
static rsp_event record(const tb *t, uint32_t type, uint64_t ns, int32_t cpu, int32_t tid)
{
  rsp_event ev = base(t, type, ns, cpu, tid);
  if (!ns) {
    ev.cpu = 0;
    ev.pid = ev.tid = 0;
  }
  return ev;
}

void tb_comm(tb *t, uint64_t ns, int32_t cpu, int32_t tid, const char *comm, bool exec)
{
  rsp_event ev = record(t, PERF_RECORD_COMM, ns, cpu, tid);
  if (exec)
    ev.misc = PERF_RECORD_MISC_COMM_EXEC;
  ev.u.comm.pid = pid_of(t, tid);
  ev.u.comm.tid = tid;
  ev.u.comm.comm = comm;
  ev.u.comm.exec = exec;
  feed(t, &ev);
}

void tb_fork(tb *t, uint64_t ns, int32_t cpu, int32_t ptid, int32_t tid)
{
  rsp_event ev = record(t, PERF_RECORD_FORK, ns, cpu, ptid);
  ev.u.fork.pid = pid_of(t, tid);
  ev.u.fork.tid = tid;
  ev.u.fork.ppid = pid_of(t, ptid);
  ev.u.fork.ptid = ptid;
  ev.u.fork.time = ns;
  feed(t, &ev);
}

void tb_exit(tb *t, uint64_t ns, int32_t cpu, int32_t tid)
{
  rsp_event ev = record(t, PERF_RECORD_EXIT, ns, cpu, tid);
  ev.u.fork.pid = pid_of(t, tid);
  ev.u.fork.tid = tid;
  ev.u.fork.ppid = ev.u.fork.ptid = 1;
  ev.u.fork.time = ns;
  feed(t, &ev);
}

void tb_lost(tb *t, uint64_t ns, uint64_t lost)
{
  rsp_event ev = record(t, PERF_RECORD_LOST, ns, 0, -1);
  ev.u.lost.lost = lost;
  feed(t, &ev);
}

void tb_lost_samples(tb *t, uint64_t ns, uint64_t lost)
{
  rsp_event ev = record(t, PERF_RECORD_LOST_SAMPLES, ns, 0, -1);
  ev.u.lost_samples.lost = lost;
  feed(t, &ev);
}

static void tp_sample(tb *t, unsigned evsel, uint64_t ns, int32_t cpu, int32_t tid)
{
  memcpy(t->raw + 4, &tid, 4);
  rsp_event ev = base(t, PERF_RECORD_SAMPLE, ns, cpu, tid);
  if (tid == 0)
    ev.pid = 0;
  ev.present |= PERF_SAMPLE_RAW;
  ev.evsel = &t->evsels[evsel];
  ev.raw = t->raw;
  ev.raw_size = sizeof t->raw;
  ev.period = 1;
  feed(t, &ev);
}

void tb_block(tb *t, tb_block_kind kind, uint64_t ns, int32_t cpu, int32_t tid, uint32_t dev, uint64_t sector,
              uint32_t bytes)
{
  memset(t->raw, 0, sizeof t->raw);
  uint32_t nr = bytes / 512;
  memcpy(t->raw + 8, &dev, 4);
  memcpy(t->raw + 16, &sector, 8);
  memcpy(t->raw + 24, &nr, 4);
  if (kind != TB_COMPLETE)
    memcpy(t->raw + 28, &bytes, 4);
  memcpy(t->raw + 34, "R", 1);
  tp_sample(t, kind == TB_INSERT ? EV_INSERT : kind == TB_ISSUE ? EV_ISSUE : EV_COMPLETE, ns, cpu, tid);
}

void tb_sock(tb *t, tb_sock_kind kind, uint64_t ns, int32_t cpu, int32_t tid, uint64_t sk)
{
  memset(t->raw, 0, sizeof t->raw);
  if (kind == TB_KPROBE_TX || kind == TB_KPROBE_RX) {
    memcpy(t->raw + 16, &sk, 8);
    tp_sample(t, kind == TB_KPROBE_TX ? EV_KP_TX : EV_KP_RX, ns, cpu, tid);
    return;
  }
  uint16_t family = 2, protocol = 6;
  memcpy(t->raw + 8, &sk, 8);
  memcpy(t->raw + 16, &family, 2);
  memcpy(t->raw + 18, &protocol, 2);
  tp_sample(t, kind == TB_SEND ? EV_SEND : kind == TB_RECV ? EV_RECV : EV_READY, ns, cpu, tid);
}

void tb_irq(tb *t, tb_irq_kind kind, uint64_t ns, int32_t cpu, int32_t tid, uint32_t vec)
{
  memset(t->raw, 0, sizeof t->raw);
  memcpy(t->raw + 8, &vec, 4);
  tp_sample(t, kind == TB_IRQ_ENTRY ? EV_IRQ_IN : kind == TB_IRQ_EXIT ? EV_IRQ_OUT
               : kind == TB_SOFTIRQ_ENTRY ? EV_SOFTIRQ_IN : EV_SOFTIRQ_OUT, ns, cpu, tid);
}

void tb_sock_state(tb *t, uint64_t ns, int32_t cpu, int32_t tid, uint64_t sk, uint16_t sport, uint16_t dport,
                   const uint8_t daddr[4])
{
  memset(t->raw, 0, sizeof t->raw);
  int32_t oldstate = 2 /* SYN_SENT */, newstate = 1 /* ESTABLISHED */;
  uint16_t family = 2, protocol = 6;
  memcpy(t->raw + 8, &sk, 8);
  memcpy(t->raw + 16, &oldstate, 4);
  memcpy(t->raw + 20, &newstate, 4);
  memcpy(t->raw + 24, &sport, 2);
  memcpy(t->raw + 26, &dport, 2);
  memcpy(t->raw + 28, &family, 2);
  memcpy(t->raw + 30, &protocol, 2);
  memcpy(t->raw + 36, daddr, 4);
  tp_sample(t, EV_STATE, ns, cpu, tid);
}
