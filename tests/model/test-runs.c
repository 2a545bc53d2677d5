/* Runs and sleeps from fabricated events fed to the model's internal entry point: every run and
 * sleep of the scenarios below is written out by hand and asserted exactly. */
#include "model/model-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                          \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);              \
      failures++;                                                                            \
    }                                                                                        \
  } while (0)

#define CHECK_EQ(a, b)                                                                       \
  do {                                                                                       \
    unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);           \
    if (a_ != b_) {                                                                          \
      fprintf(stderr, "%s:%d: %s == %llu, expected %s == %llu\n", __FILE__, __LINE__, #a, a_, \
              #b, b_);                                                                       \
      failures++;                                                                            \
    }                                                                                        \
  } while (0)

enum { A = 100, B = 200, C = 300 };

/* Times in the scenarios are in microseconds; the model counts nanoseconds. */
#define US 1000ull

/* sched:sched_switch payload: prev_pid @0 (s32), prev_state @8 (u64), next_pid @16 (s32). */
static const rsp_field switch_fields[] = {
  { .name = "prev_pid", .kind = RSP_FIELD_SIGNED, .offset = 0, .size = 4 },
  { .name = "prev_state", .kind = RSP_FIELD_UNSIGNED, .offset = 8, .size = 8 },
  { .name = "next_pid", .kind = RSP_FIELD_SIGNED, .offset = 16, .size = 4 },
};
static const rsp_field wakeup_fields[] = {
  { .name = "pid", .kind = RSP_FIELD_SIGNED, .offset = 0, .size = 4 },
};
static rsp_evsel ev_switch = { .index = 0, .name = "sched:sched_switch", .tp_system = "sched",
                               .tp_name = "sched_switch", .fields = switch_fields, .n_fields = 3 };
static rsp_evsel ev_wakeup = { .index = 1, .name = "sched:sched_wakeup", .tp_system = "sched",
                               .tp_name = "sched_wakeup", .fields = wakeup_fields, .n_fields = 1 };
static rsp_evsel ev_clock = { .index = 2, .name = "cpu-clock" };

typedef struct { uint8_t bytes[24]; } raw24;

static void feed_switch_tp(rsp_model_builder *b, uint64_t t, int32_t prev, uint64_t state, int32_t next)
{
  raw24 raw;
  memset(&raw, 0, sizeof raw);
  memcpy(raw.bytes + 0, &prev, 4);
  memcpy(raw.bytes + 8, &state, 8);
  memcpy(raw.bytes + 16, &next, 4);
  rsp_event ev = { .type = PERF_RECORD_SAMPLE, .time = t * US, .cpu = 0, .pid = prev, .tid = prev,
                   .evsel = &ev_switch, .raw = raw.bytes, .raw_size = sizeof raw };
  rsp_model_builder_feed(b, &ev);
}

static void feed_wakeup(rsp_model_builder *b, uint64_t t, int32_t waker, int32_t target)
{
  raw24 raw;
  memset(&raw, 0, sizeof raw);
  memcpy(raw.bytes, &target, 4);
  rsp_event ev = { .type = PERF_RECORD_SAMPLE, .time = t * US, .cpu = 0, .pid = waker, .tid = waker,
                   .evsel = &ev_wakeup, .raw = raw.bytes, .raw_size = 4 };
  rsp_model_builder_feed(b, &ev);
}

static void feed_sample(rsp_model_builder *b, uint64_t t, int32_t tid)
{
  rsp_event ev = { .type = PERF_RECORD_SAMPLE, .time = t * US, .cpu = 0, .pid = tid, .tid = tid,
                   .evsel = &ev_clock, .period = 1000000 };
  rsp_model_builder_feed(b, &ev);
}

/* A PERF_RECORD_SWITCH_CPU_WIDE on cpu 0; TID is the task switching in or out. */
static void feed_rec(rsp_model_builder *b, uint64_t t, int32_t tid, bool out, bool preempt)
{
  rsp_event ev = { .type = PERF_RECORD_SWITCH_CPU_WIDE, .time = t * US, .cpu = 0, .pid = tid, .tid = tid };
  ev.misc = (out ? PERF_RECORD_MISC_SWITCH_OUT : 0) | (preempt ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0);
  ev.u.cswitch.out = out;
  ev.u.cswitch.preempt = preempt;
  rsp_model_builder_feed(b, &ev);
}

static void feed_comm(rsp_model_builder *b, uint64_t t, int32_t tid, const char *comm, bool exec)
{
  rsp_event ev = { .type = PERF_RECORD_COMM, .time = t * US, .cpu = 0, .pid = tid, .tid = tid };
  ev.u.comm.pid = tid;
  ev.u.comm.tid = tid;
  ev.u.comm.comm = comm;
  ev.u.comm.exec = exec;
  rsp_model_builder_feed(b, &ev);
}

static rsp_task_id find_task(const rsp_model *m, int32_t tid, uint32_t generation)
{
  for (rsp_task_id i = 0; i < rsp_model_n_tasks(m); i++) {
    const rsp_task *t = rsp_model_task(m, i);
    if (t->tid == tid && t->generation == generation)
      return i;
  }
  return RSP_NO_ID;
}

static void check_run(const rsp_model *m, rsp_task_id task, uint32_t i, uint64_t start, uint64_t end,
                      uint32_t samples, uint32_t flags, int line)
{
  start *= US;
  end *= US;
  const rsp_task *t = rsp_model_task(m, task);
  if (i >= t->n_runs) {
    fprintf(stderr, "line %d: tid %d has %u runs, wanted run %u\n", line, t->tid, t->n_runs, i);
    failures++;
    return;
  }
  const rsp_run *r = rsp_model_run(m, rsp_model_task_run(m, task, i));
  if (r->start != start || r->end != end || r->n_samples != samples || r->flags != flags || r->cpu != 0) {
    fprintf(stderr,
            "line %d: tid %d run %u: [%llu, %llu] samples %u flags %u cpu %d; expected [%llu, %llu] "
            "samples %u flags %u cpu 0\n",
            line, t->tid, i, (unsigned long long)r->start, (unsigned long long)r->end, r->n_samples,
            r->flags, r->cpu, (unsigned long long)start, (unsigned long long)end, samples, flags);
    failures++;
  }
}

static void check_sleep(const rsp_model *m, rsp_task_id task, uint32_t i, uint64_t start, uint64_t end,
                        char state, bool preempted, uint64_t wake, int line)
{
  start *= US;
  end *= US;
  wake *= US;
  const rsp_task *t = rsp_model_task(m, task);
  if (i >= t->n_sleeps) {
    fprintf(stderr, "line %d: tid %d has %u sleeps, wanted sleep %u\n", line, t->tid, t->n_sleeps, i);
    failures++;
    return;
  }
  const rsp_sleep *s = rsp_model_sleep(m, rsp_model_task_sleep(m, task, i));
  if (s->start != start || s->end != end || s->state != state || s->preempted != preempted ||
      s->wake_time != wake) {
    fprintf(stderr,
            "line %d: tid %d sleep %u: [%llu, %llu] state %d preempted %d wake %llu; expected [%llu, %llu] "
            "state %d preempted %d wake %llu\n",
            line, t->tid, i, (unsigned long long)s->start, (unsigned long long)s->end, s->state,
            s->preempted, (unsigned long long)s->wake_time, (unsigned long long)start,
            (unsigned long long)end, state, preempted, (unsigned long long)wake);
    failures++;
  }
}

#define RUN(m, task, i, s, e, n, f) check_run(m, task, i, s, e, n, f, __LINE__)
#define SLEEP(m, task, i, s, e, st, p, w) check_sleep(m, task, i, s, e, st, p, w, __LINE__)

/* Two tasks ping-ponging on cpu 0 with perf's switch records, the tracepoint giving prev_state. */
static void test_switch_records(void)
{
  rsp_model_builder *b = rsp_model_builder_new(NULL, true);
  feed_rec(b, 1000, A, false, false);          /* A in */
  feed_sample(b, 1500, A);
  feed_switch_tp(b, 2000, A, 1 /* S */, B);
  feed_rec(b, 2000, A, true, false);           /* A out (sleeps S) */
  feed_rec(b, 2000, B, false, false);          /* B in */
  feed_sample(b, 2100, B);
  feed_wakeup(b, 2500, B, A);                  /* B wakes A */
  feed_rec(b, 3000, B, true, true);            /* B preempted */
  feed_rec(b, 3000, A, false, false);
  feed_sample(b, 3010, B);                     /* B, 10 us after its run: attaches to it */
  feed_switch_tp(b, 4000, A, 2 /* D */, B);
  feed_rec(b, 4000, A, true, false);
  feed_rec(b, 4000, B, false, false);
  feed_sample(b, 4500, A);                     /* A, 500 us after its run: orphan */
  feed_rec(b, 5000, B, true, false);
  feed_rec(b, 5000, A, false, false);
  feed_rec(b, 6000, A, true, false);           /* no tracepoint: state unknown */
  feed_rec(b, 6500, C, true, false);           /* C never switched in */
  feed_rec(b, 7000, B, false, false);
  feed_sample(b, 7500, B);                     /* the last event: B still running */
  rsp_model *m = rsp_model_builder_finish(b);

  CHECK_EQ(rsp_model_runs_source(m), RSP_RUNS_FROM_SWITCH_RECORDS);
  rsp_task_id a = find_task(m, A, 0), bt = find_task(m, B, 0);
  CHECK(a != RSP_NO_ID && bt != RSP_NO_ID);
  if (a == RSP_NO_ID || bt == RSP_NO_ID)
    return;
  CHECK_EQ(rsp_model_task(m, a)->n_runs, 3);
  RUN(m, a, 0, 1000, 2000, 1, 0);
  RUN(m, a, 1, 3000, 4000, 0, 0);
  RUN(m, a, 2, 5000, 6000, 0, 0);
  CHECK_EQ(rsp_model_task(m, a)->n_sleeps, 2); /* the time after A's last run is no sleep */
  SLEEP(m, a, 0, 2000, 3000, 'S', false, 2500);
  SLEEP(m, a, 1, 4000, 5000, 'D', false, 0);
  CHECK_EQ(rsp_model_task(m, bt)->n_runs, 3);
  RUN(m, bt, 0, 2000, 3000, 2, 0);
  RUN(m, bt, 1, 4000, 5000, 0, 0);
  RUN(m, bt, 2, 7000, 7500, 1, RSP_RUN_OPEN_AT_END);
  CHECK_EQ(rsp_model_task(m, bt)->n_sleeps, 2);
  SLEEP(m, bt, 0, 3000, 4000, 0, true, 0);
  SLEEP(m, bt, 1, 5000, 7000, 0, false, 0);

  rsp_task_totals ta;
  rsp_model_task_totals(m, a, &ta);
  CHECK_EQ(ta.runtime, 3000 * US);
  CHECK_EQ(ta.sleep, 2000 * US);
  CHECK_EQ(ta.sleep_s, 1000 * US);
  CHECK_EQ(ta.sleep_d, 1000 * US);
  CHECK_EQ(ta.sleep_other, 0);
  CHECK_EQ(ta.sched_delay, 500 * US);
  CHECK_EQ(ta.samples, 1);

  const rsp_model_loss *l = rsp_model_loss_get(m);
  CHECK_EQ(l->orphan_samples, 1);
  CHECK_EQ(l->unmatched_switch_outs, 1);
  CHECK_EQ(l->runs_open_at_end, 1);
  CHECK_EQ(l->inferred_switch_ins, 0);
  rsp_model_free(m);
}

/* The tracepoint alone, as this kernel writes it: the switches from idle back to a task are
 * missing and are inferred from the task's next event on that cpu. */
static void test_sched_switch_inferred(void)
{
  rsp_model_builder *b = rsp_model_builder_new(NULL, false);
  feed_sample(b, 500, A);                      /* A was running before the first switch */
  feed_switch_tp(b, 1000, A, 1 /* S */, B);
  feed_switch_tp(b, 2000, B, 2 /* D */, 0);    /* B to idle */
  feed_wakeup(b, 2500, 0, A);                  /* woken from interrupt context on the idle cpu */
  feed_sample(b, 3000, A);                     /* the idle -> A switch was not traced */
  feed_switch_tp(b, 3500, A, 0x100 /* R+ */, B); /* A preempted by B */
  feed_switch_tp(b, 4000, B, 1 /* S */, A);
  feed_sample(b, 4200, A);
  rsp_model *m = rsp_model_builder_finish(b);

  CHECK_EQ(rsp_model_runs_source(m), RSP_RUNS_FROM_SCHED_SWITCH);
  rsp_task_id a = find_task(m, A, 0), bt = find_task(m, B, 0);
  CHECK(a != RSP_NO_ID && bt != RSP_NO_ID);
  if (a == RSP_NO_ID || bt == RSP_NO_ID)
    return;
  CHECK_EQ(rsp_model_task(m, a)->n_runs, 3);
  RUN(m, a, 0, 500, 1000, 1, RSP_RUN_START_INFERRED);
  RUN(m, a, 1, 3000, 3500, 1, RSP_RUN_START_INFERRED);
  RUN(m, a, 2, 4000, 4200, 1, RSP_RUN_OPEN_AT_END);
  CHECK_EQ(rsp_model_task(m, a)->n_sleeps, 2);
  SLEEP(m, a, 0, 1000, 3000, 'S', false, 2500);
  SLEEP(m, a, 1, 3500, 4000, 'R', true, 0);
  CHECK_EQ(rsp_model_task(m, bt)->n_runs, 2);
  RUN(m, bt, 0, 1000, 2000, 0, 0);
  RUN(m, bt, 1, 3500, 4000, 0, 0);
  CHECK_EQ(rsp_model_task(m, bt)->n_sleeps, 1);
  SLEEP(m, bt, 0, 2000, 3500, 'D', false, 0);

  const rsp_model_loss *l = rsp_model_loss_get(m);
  CHECK_EQ(l->inferred_switch_ins, 2);
  CHECK_EQ(l->orphan_samples, 0);
  CHECK_EQ(l->unmatched_switch_outs, 0);
  rsp_task_totals ta;
  rsp_model_task_totals(m, a, &ta);
  CHECK_EQ(ta.runtime, (500 + 500 + 200) * US);
  CHECK_EQ(ta.sched_delay, 500 * US);
  CHECK_EQ(ta.inferred_starts, 2);
  rsp_model_free(m);
}

/* An exec ends one generation's run and begins the next one's, same tid, no sleep between. */
static void test_exec(void)
{
  rsp_model_builder *b = rsp_model_builder_new(NULL, true);
  feed_comm(b, 50, A, "sh", false);
  feed_rec(b, 100, A, false, false);
  feed_comm(b, 150, A, "true", true);
  feed_rec(b, 300, A, true, false);
  feed_sample(b, 310, 0); /* idle, ends the recording */
  rsp_model *m = rsp_model_builder_finish(b);
  rsp_task_id g0 = find_task(m, A, 0), g1 = find_task(m, A, 1);
  CHECK(g0 != RSP_NO_ID && g1 != RSP_NO_ID);
  if (g0 == RSP_NO_ID || g1 == RSP_NO_ID)
    return;
  CHECK(strcmp(rsp_model_task(m, g0)->comm, "sh") == 0);
  CHECK(strcmp(rsp_model_task(m, g1)->comm, "true") == 0);
  CHECK_EQ(rsp_model_task(m, g1)->prev_generation, g0);
  CHECK_EQ(rsp_model_task(m, g0)->n_runs, 1);
  RUN(m, g0, 0, 100, 150, 0, 0);
  CHECK_EQ(rsp_model_task(m, g0)->n_sleeps, 0);
  CHECK_EQ(rsp_model_task(m, g1)->n_runs, 1);
  RUN(m, g1, 0, 150, 300, 0, RSP_RUN_STARTED_BY_EXEC);
  CHECK_EQ(rsp_model_task(m, g1)->n_sleeps, 0);
  CHECK(strcmp(rsp_model_task_comm_at(m, g0, 120 * US), "sh") == 0);
  CHECK_EQ(rsp_model_loss_get(m)->idle_samples, 1);
  rsp_model_free(m);
}

/* perf writes the last switch-out of an exited task with pid/tid -1: it ends the cpu's current run. */
static void test_exit_switch_out(void)
{
  rsp_model_builder *b = rsp_model_builder_new(NULL, true);
  feed_rec(b, 100, A, false, false);
  feed_switch_tp(b, 190, A, 0x20 /* Z */, 0);
  feed_rec(b, 200, -1, true, false);
  feed_rec(b, 200, 0, false, false);     /* idle in */
  feed_sample(b, 300, 0);
  rsp_model *m = rsp_model_builder_finish(b);
  rsp_task_id a = find_task(m, A, 0);
  CHECK(a != RSP_NO_ID);
  if (a == RSP_NO_ID)
    return;
  CHECK_EQ(rsp_model_task(m, a)->n_runs, 1);
  RUN(m, a, 0, 100, 200, 0, 0);
  CHECK_EQ(rsp_model_task(m, a)->n_sleeps, 0);
  CHECK_EQ(rsp_model_loss_get(m)->unmatched_switch_outs, 0);
  CHECK_EQ(rsp_model_loss_get(m)->runs_open_at_end, 0);
  rsp_model_free(m);
}

int main(void)
{
  ev_clock.attr.type = PERF_TYPE_SOFTWARE;
  ev_clock.attr.config = PERF_COUNT_SW_CPU_CLOCK;
  test_switch_records();
  test_sched_switch_inferred();
  test_exec();
  test_exit_switch_out();
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("model runs and sleeps: all checks passed\n");
  return 0;
}
