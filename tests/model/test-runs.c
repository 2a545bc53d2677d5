/* Runs and sleeps from fabricated event streams (trace-builder.c) fed to the model's internal
 * entry point. Every run and sleep of each scenario is written out by hand, from the stream's
 * construction, and asserted exactly. */
#include "checks.h"

enum { IDLE = 0, A = 100, B = 200, C = 300, D = 400, E = 500, F = 600 };

/* With perf's switch records, on two cpus: A and B ping-pong through a pipe, A is preempted by C,
 * B was running when the recording began, B's IN record is lost (the OUT before it names B). */
static void test_switch_records(void)
{
  tb *t = tb_new(true);
  tb_switch_in(t, 1000 * US, 0, A, IDLE);                     /* the first event: time_first */
  tb_sample(t, 1200 * US, 1, B);                              /* cpu 1 has had no record yet */
  tb_sample(t, 1500 * US, 0, A);
  uint64_t a_sleeps = tb_sched_switch(t, 1999 * US, 0, A, "S", IDLE);
  tb_switch_out(t, 2000 * US, 0, A, IDLE, false);
  tb_switch_in(t, 2001 * US, 0, IDLE, A);
  tb_waking(t, 2500 * US, 1, B, A, 0);                        /* B wakes A ... */
  tb_wakeup(t, 2502 * US, 0, IDLE, A, 0);                     /* ... enqueued by the IPI on idle cpu 0 */
  tb_switch_out(t, 2510 * US, 0, IDLE, A, false);
  tb_switch_in(t, 2511 * US, 0, A, IDLE);
  uint64_t b_sleeps = tb_sched_switch(t, 2600 * US, 1, B, "S", IDLE);
  tb_switch_out(t, 2601 * US, 1, B, IDLE, false);
  tb_switch_in(t, 2602 * US, 1, IDLE, B);
  tb_sample(t, 3000 * US, 0, A);
  uint64_t a_preempted = tb_sched_switch(t, 3499 * US, 0, A, "R+", C);
  tb_switch_out(t, 3500 * US, 0, A, C, true);
  tb_switch_in(t, 3501 * US, 0, C, A);
  tb_sched_switch(t, 3999 * US, 0, C, "D", A);
  tb_switch_out(t, 4000 * US, 0, C, A, false);
  tb_switch_in(t, 4001 * US, 0, A, C);
  tb_sample(t, 4010 * US, 0, C);                              /* 10 us after C's run: attaches to it */
  tb_sample(t, 4100 * US, 1, B);                              /* B asleep for 1.5 ms: orphan */
  tb_sample(t, 4500 * US, 0, A);
  tb_sched_switch(t, 4999 * US, 0, A, "S", IDLE);
  tb_switch_out(t, 5000 * US, 0, A, IDLE, false);
  tb_switch_in(t, 5001 * US, 0, IDLE, A);
  tb_switch_out(t, 5100 * US, 1, IDLE, B, false);             /* names B; B's IN record is lost */
  tb_sched_switch(t, 5399 * US, 1, B, "S", IDLE);
  tb_switch_out(t, 5400 * US, 1, B, IDLE, false);
  tb_switch_in(t, 5401 * US, 1, IDLE, B);
  tb_sample(t, 6000 * US, 0, IDLE);                           /* the last event */
  rsp_model *m = tb_finish(t);

  CHECK_EQ(rsp_model_runs_source(m), RSP_RUNS_FROM_SWITCH_RECORDS);
  CHECK_EQ(rsp_model_time_first(m), 1000 * US);
  CHECK_EQ(rsp_model_time_last(m), 6000 * US);
  rsp_task_id a = find_task(m, A, 0), b = find_task(m, B, 0), c = find_task(m, C, 0);
  CHECK_EQ(rsp_model_task(m, a)->n_runs, 3);
  RUN(m, a, 0, 1000, 2000, 0, 1, 0);
  RUN(m, a, 1, 2511, 3500, 0, 1, 0);
  RUN(m, a, 2, 4001, 5000, 0, 1, 0);
  CHECK_EQ(rsp_model_task(m, a)->n_sleeps, 2); /* the time after A's last run is no sleep */
  SLEEP(m, a, 0, 2000, 2511, 'S', false, 2502, RSP_WAKE_WAKEUP, a_sleeps);
  SLEEP(m, a, 1, 3500, 4001, 'R', true, 0, RSP_WAKE_NONE, a_preempted);
  CHECK_EQ(rsp_model_task(m, b)->n_runs, 2);
  RUN(m, b, 0, 1000, 2601, 1, 1, RSP_RUN_OPEN_AT_START);
  RUN(m, b, 1, 5100, 5400, 1, 0, RSP_RUN_START_INFERRED);
  CHECK_EQ(rsp_model_task(m, b)->n_sleeps, 1);
  SLEEP(m, b, 0, 2601, 5100, 'S', false, 0, RSP_WAKE_NONE, b_sleeps);
  CHECK_EQ(rsp_model_task(m, c)->n_runs, 1);
  RUN(m, c, 0, 3501, 4000, 0, 1, 0);
  CHECK_EQ(rsp_model_task(m, c)->n_sleeps, 0);
  ORDER(m);

  rsp_task_totals ta;
  rsp_model_task_totals(m, a, &ta);
  CHECK_EQ(ta.runtime, (1000 + 989 + 999) * US);
  CHECK_EQ(ta.sleep, (511 + 501) * US);
  CHECK_EQ(ta.sleep_s, 511 * US);
  CHECK_EQ(ta.sleep_d, 0);
  CHECK_EQ(ta.sleep_other, 501 * US);
  CHECK_EQ(ta.preempt_delay, 501 * US);
  CHECK_EQ(ta.sched_delay, 9 * US); /* runnable from the sched_wakeup at 2502, ran at 2511 */
  CHECK_EQ(ta.samples, 3);
  CHECK_EQ(ta.runs, 3);
  CHECK_EQ(ta.sleeps_without_wakeup, 0);
  rsp_task_totals tbb;
  rsp_model_task_totals(m, b, &tbb);
  CHECK_EQ(tbb.runtime, (1601 + 300) * US);
  CHECK_EQ(tbb.inferred_starts, 1);
  CHECK_EQ(tbb.sleeps_without_wakeup, 1);

  const rsp_model_loss *l = rsp_model_loss_get(m);
  CHECK_EQ(l->inferred_switch_ins, 1);
  CHECK_EQ(l->orphan_samples, 1);
  CHECK_EQ(l->unmatched_switch_outs, 0);
  CHECK_EQ(l->implicit_switch_outs, 0);
  CHECK_EQ(l->runs_open_at_start, 1);
  CHECK_EQ(l->runs_open_at_end, 0);
  CHECK_EQ(l->sleeps_without_wakeup, 1);
  CHECK_EQ(l->idle_samples, 1);
  rsp_model_free(m);
}

/* The sched:sched_switch tracepoint alone, as this kernel writes it: the switches from idle back
 * to a task are missing and are inferred from the task's next event on that cpu (a sample, a
 * syscall tracepoint, its own switch-out), or from its sched_wakeup onto that idle cpu. */
static void test_sched_switch_inferred(void)
{
  tb *t = tb_new(false);
  tb_comm(t, 200 * US, 0, F, "f", false); /* before any sample: perf had not enabled the tracepoints */
  tb_sample(t, 500 * US, 0, A);           /* A was running before the first switch */
  uint64_t a_sleeps = tb_sched_switch(t, 1000 * US, 0, A, "S", B);
  uint64_t b_sleeps = tb_sched_switch(t, 2000 * US, 0, B, "D", IDLE);
  tb_waking(t, 2500 * US, 0, IDLE, A, 0);          /* from an interrupt on the idle cpu */
  tb_sample(t, 3000 * US, 0, A);                   /* the idle -> A switch was not traced */
  uint64_t a_preempted = tb_sched_switch(t, 3500 * US, 0, A, "R+", B);
  tb_sched_switch(t, 4000 * US, 0, B, "S", A);
  tb_sched_switch(t, 4100 * US, 1, D, "S", IDLE);  /* D's switch-out is its only event */
  tb_sample(t, 4200 * US, 0, A);
  tb_wakeup(t, 4300 * US, 0, A, C, 1);             /* A wakes C onto idle cpu 1 ... */
  tb_tracepoint(t, 4400 * US, 1, C);               /* ... C's first event there */
  tb_sched_switch(t, 4600 * US, 1, C, "S", IDLE);
  tb_sample(t, 4700 * US, 0, A);
  tb_tracepoint(t, 4800 * US, 1, E);               /* E on cpu 1, switched in untraced */
  tb_sample(t, 4900 * US, 1, E);
  tb_sched_switch(t, 5200 * US, 1, F, "S", IDLE);  /* F, not E, leaves cpu 1: E's switch-out was lost, and
                                                      F's switch-in (its own switch-out shows it there) */
  rsp_model *m = tb_finish(t);

  CHECK_EQ(rsp_model_runs_source(m), RSP_RUNS_FROM_SCHED_SWITCH);
  rsp_task_id a = find_task(m, A, 0), b = find_task(m, B, 0), c = find_task(m, C, 0);
  rsp_task_id d = find_task(m, D, 0), e = find_task(m, E, 0), f = find_task(m, F, 0);
  CHECK_EQ(rsp_model_task(m, a)->n_runs, 3);
  RUN(m, a, 0, 500, 1000, 0, 1, RSP_RUN_START_INFERRED);
  RUN(m, a, 1, 3000, 3500, 0, 1, RSP_RUN_START_INFERRED);
  RUN(m, a, 2, 4000, 5200, 0, 2, RSP_RUN_OPEN_AT_END);
  CHECK_EQ(rsp_model_task(m, a)->n_sleeps, 2);
  SLEEP(m, a, 0, 1000, 3000, 'S', false, 2500, RSP_WAKE_WAKING, a_sleeps);
  SLEEP(m, a, 1, 3500, 4000, 'R', true, 0, RSP_WAKE_NONE, a_preempted);
  CHECK_EQ(rsp_model_task(m, b)->n_runs, 2);
  RUN(m, b, 0, 1000, 2000, 0, 0, 0);
  RUN(m, b, 1, 3500, 4000, 0, 0, 0);
  CHECK_EQ(rsp_model_task(m, b)->n_sleeps, 1);
  SLEEP(m, b, 0, 2000, 3500, 'D', false, 0, RSP_WAKE_NONE, b_sleeps);
  CHECK_EQ(rsp_model_task(m, c)->n_runs, 1);
  RUN(m, c, 0, 4300, 4600, 1, 0, RSP_RUN_START_INFERRED | RSP_RUN_START_AT_WAKEUP);
  CHECK_EQ(rsp_model_task(m, d)->n_runs, 1);
  RUN(m, d, 0, 4100, 4100, 1, 0, RSP_RUN_START_INFERRED);
  CHECK_EQ(rsp_model_task(m, e)->n_runs, 1);
  RUN(m, e, 0, 4800, 4900, 1, 1, RSP_RUN_START_INFERRED); /* ended at its last event */
  CHECK_EQ(rsp_model_task(m, f)->n_runs, 1);
  RUN(m, f, 0, 5200, 5200, 1, 0, RSP_RUN_START_INFERRED);
  CHECK_STR(rsp_model_task(m, b)->comm, "t200"); /* named from the tracepoint's comm field */
  CHECK_STR(rsp_model_task(m, f)->comm, "f");
  ORDER(m);

  const rsp_model_loss *l = rsp_model_loss_get(m);
  CHECK_EQ(l->inferred_switch_ins, 6); /* A twice, C, D, E, F */
  CHECK_EQ(l->orphan_samples, 0);
  CHECK_EQ(l->unmatched_switch_outs, 0);
  CHECK_EQ(l->implicit_switch_outs, 1);  /* E's */
  CHECK_EQ(l->runs_open_at_end, 1);
  CHECK_EQ(l->sleeps_without_wakeup, 1); /* B's D sleep */
  rsp_task_totals ta;
  rsp_model_task_totals(m, a, &ta);
  CHECK_EQ(ta.runtime, (500 + 500 + 1200) * US);
  CHECK_EQ(ta.sleep_s, 2000 * US);
  CHECK_EQ(ta.sched_delay, 500 * US);
  CHECK_EQ(ta.preempt_delay, 500 * US);
  CHECK_EQ(ta.inferred_starts, 2);
  rsp_model_free(m);
}

/* The attach window of "Runs and Sleeps": a sample at most 20 us after its task's run on that cpu
 * belongs to it; later, or on another cpu, it is dropped and counted. */
static void test_attach_window(void)
{
  for (int wide = 0; wide < 2; wide++) {
    rsp_model_options o = { .sample_window_ns = wide ? 50 * US : 0 };
    tb *t = tb_new_with(&o, true);
    tb_switch_in(t, 1000 * US, 0, A, IDLE);
    tb_sample(t, 1500 * US, 1, A);          /* A runs on cpu 0 */
    tb_switch_out(t, 2000 * US, 0, A, IDLE, false);
    tb_switch_in(t, 2000 * US, 0, IDLE, A);
    tb_sample(t, 2000 * US + RSP_SAMPLE_ATTACH_WINDOW_NS, 0, A);
    tb_sample(t, 2000 * US + RSP_SAMPLE_ATTACH_WINDOW_NS + 1, 0, A);
    tb_sample(t, 2040 * US, 0, A);
    rsp_model *m = tb_finish(t);
    rsp_task_id a = find_task(m, A, 0);
    RUN(m, a, 0, 1000, 2000, 0, wide ? 3 : 1, 0);
    CHECK_EQ(rsp_model_loss_get(m)->orphan_samples, wide ? 1 : 3);
    rsp_model_free(m);
  }
}

/* An exec ends one generation's run and begins the next one's, same tid, no sleep between. */
static void test_exec(void)
{
  tb *t = tb_new(true);
  tb_comm(t, 0, 0, A, "sh", false); /* synthesized */
  tb_switch_in(t, 100 * US, 0, A, IDLE);
  tb_comm(t, 150 * US, 0, A, "true", true);
  tb_switch_out(t, 300 * US, 0, A, IDLE, false);
  tb_sample(t, 310 * US, 0, IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id g0 = find_task(m, A, 0), g1 = find_task(m, A, 1);
  if (g0 == RSP_NO_ID || g1 == RSP_NO_ID)
    return;
  CHECK_STR(rsp_model_task(m, g0)->comm, "sh");
  CHECK_STR(rsp_model_task(m, g1)->comm, "true");
  CHECK_EQ(rsp_model_task(m, g1)->prev_generation, g0);
  CHECK_EQ(rsp_model_task(m, g1)->start, 150 * US);
  CHECK_EQ(rsp_model_task(m, g0)->n_runs, 1);
  RUN(m, g0, 0, 100, 150, 0, 0, 0);
  CHECK_EQ(rsp_model_task(m, g0)->n_sleeps, 0);
  CHECK_EQ(rsp_model_task(m, g1)->n_runs, 1);
  RUN(m, g1, 0, 150, 300, 0, 0, RSP_RUN_STARTED_BY_EXEC);
  CHECK_EQ(rsp_model_task(m, g1)->n_sleeps, 0);
  CHECK_EQ(rsp_model_loss_get(m)->idle_samples, 1);
  rsp_model_free(m);
}

/* perf writes the last switch-out of an exited task with pid/tid -1: it ends the cpu's current run. */
static void test_exit_switch_out(void)
{
  tb *t = tb_new(true);
  tb_switch_in(t, 100 * US, 0, A, IDLE);
  tb_exit(t, 180 * US, 0, A);
  tb_sched_switch(t, 190 * US, 0, A, "Z", IDLE);
  tb_switch_out(t, 200 * US, 0, -1, IDLE, false);
  tb_switch_in(t, 200 * US, 0, IDLE, -1);
  tb_sample(t, 300 * US, 0, IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0);
  CHECK_EQ(rsp_model_task(m, a)->n_runs, 1);
  RUN(m, a, 0, 100, 200, 0, 0, 0);
  CHECK_EQ(rsp_model_task(m, a)->n_sleeps, 0);
  CHECK_EQ(rsp_model_task(m, a)->exit_time, 180 * US);
  CHECK_EQ(rsp_model_loss_get(m)->unmatched_switch_outs, 0);
  CHECK_EQ(rsp_model_loss_get(m)->runs_open_at_end, 0);
  rsp_model_free(m);
}

/* The tracepoint's switch-in after an exec whose tracepoints were not yet on, then a task that
 * exits with its last switch-out untraced: its run ends at its last event, not at the next switch. */
static void test_tracepoint_exit_untraced(void)
{
  tb *t = tb_new(false);
  tb_sample(t, 100 * US, 0, IDLE);
  tb_comm(t, 200 * US, 1, A, "a", true);    /* the exec is A's event on cpu 1: its run began by then */
  tb_exit(t, 300 * US, 1, A);
  tb_sched_switch(t, 900 * US, 1, B, "S", IDLE); /* B, unknown till now, leaves cpu 1 */
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0);
  CHECK_EQ(rsp_model_task(m, a)->n_runs, 1);
  RUN(m, a, 0, 200, 300, 1, 0, RSP_RUN_START_INFERRED);
  CHECK_EQ(rsp_model_loss_get(m)->implicit_switch_outs, 1);
  rsp_model_free(m);
}

/* A task-to-task switch can go untraced too (tests/model/data/wl-make.data: tokio-rt-worker back to
 * cc1). A's samples on the cpu B holds in our view, more than the attach window after B last showed
 * itself there, mean B's switch-out was lost: B ran until its last event and A is back from its
 * first sample. An event of A within the window of B's switch-in is skew, not a switch. */
static void test_task_switch_untraced(void)
{
  tb *t = tb_new(false);
  tb_sample(t, 100 * US, 0, A);
  uint64_t a_preempted = tb_sched_switch(t, 1000 * US, 0, A, "R+", B);
  tb_tracepoint(t, 1010 * US, 0, A);       /* skewed: inside B's first 20 us, no switch */
  tb_tracepoint(t, 1100 * US, 0, B);       /* B's last event */
  /* B -> A not traced */
  tb_sample(t, 1500 * US, 0, A);
  tb_sample(t, 2500 * US, 0, A);
  tb_sched_switch(t, 3000 * US, 0, A, "S", C);
  tb_sample(t, 3500 * US, 0, C);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0), b = find_task(m, B, 0);
  CHECK_EQ(rsp_model_task(m, a)->n_runs, 2);
  RUN(m, a, 0, 100, 1000, 0, 1, RSP_RUN_START_INFERRED);
  RUN(m, a, 1, 1500, 3000, 0, 2, RSP_RUN_START_INFERRED);
  CHECK_EQ(rsp_model_task(m, a)->n_sleeps, 1); /* the last, open at the end, is no sleep */
  SLEEP(m, a, 0, 1000, 1500, 'R', true, 0, RSP_WAKE_NONE, a_preempted);
  CHECK_EQ(rsp_model_task(m, b)->n_runs, 1);
  RUN(m, b, 0, 1000, 1100, 0, 0, 0);
  const rsp_model_loss *l = rsp_model_loss_get(m);
  CHECK_EQ(l->implicit_switch_outs, 1); /* B's */
  CHECK_EQ(l->unmatched_switch_outs, 0);
  CHECK_EQ(l->orphan_samples, 0);
  rsp_task_totals ta;
  rsp_model_task_totals(m, a, &ta);
  CHECK_EQ(ta.runtime, (900 + 1500) * US);
  rsp_model_free(m);
}

/* An exec whose task's switch-in was not traced (the execve slept in D reading the binary, woken on
 * an idle cpu): the old generation's sleep ends where the new generation's run begins, so the
 * process's time has no gap (tests/model/data/wl-grep-noswitch.data, re-recorded: 0.23 ms). */
static void test_exec_after_untraced_switch_in(void)
{
  tb *t = tb_new(false);
  tb_sample(t, 50 * US, 0, A);
  uint64_t d_sleep = tb_sched_switch(t, 100 * US, 0, A, "D", IDLE);
  /* idle -> A not traced */
  tb_comm(t, 300 * US, 0, A, "grep", true);
  tb_sample(t, 400 * US, 0, A);
  tb_sched_switch(t, 500 * US, 0, A, "S", IDLE);
  tb_sample(t, 600 * US, 1, B);
  rsp_model *m = tb_finish(t);
  rsp_task_id g0 = find_task(m, A, 0), g1 = find_task(m, A, 1);
  if (g0 == RSP_NO_ID || g1 == RSP_NO_ID) {
    CHECK(false);
    return;
  }
  CHECK_EQ(rsp_model_task(m, g0)->n_sleeps, 1);
  SLEEP(m, g0, 0, 100, 300, 'D', false, 0, RSP_WAKE_NONE, d_sleep);
  RUN(m, g1, 0, 300, 500, 0, 1, RSP_RUN_START_INFERRED);
  rsp_model_free(m);
}

/* Tasks that existed before the recording and are first seen woken (switch records): each slept
 * from the recording's start, and the waking ends that sleep (a waker asleep since before the
 * recording: /tmp/nw/pg2.data, a postgres backend in pg_sleep holding the row lock psql waits
 * for). Woken twice before it ran (the first waking fell where its cpu's records had not begun
 * yet), the last waking is the one that made it runnable. perf's workload child before its exec
 * ("perf-exec") waits for perf to start it: no sleep. A task forked in the recording: no sleep
 * before its first run either. Nor a task woken while it ran when the recording began, on a cpu
 * with no switch record yet (its first record there is its switch-out). */
static void test_sleep_before_start(void)
{
  tb *t = tb_new(true);
  tb_comm(t, 0, 0, E, "perf-exec", false);                    /* perf's synthesized COMM */
  tb_switch_in(t, 1000 * US, 0, A, IDLE);                     /* the first event: time_first */
  tb_waking(t, 1200 * US, 0, A, B, 0);
  tb_wakeup(t, 1201 * US, 0, A, B, 0);
  tb_waking(t, 1250 * US, 0, A, C, 0);                        /* C: a first waking ... */
  tb_sched_switch(t, 1299 * US, 0, A, "S", B);
  tb_switch_out(t, 1300 * US, 0, A, B, false);
  tb_switch_in(t, 1301 * US, 0, B, A);
  tb_waking(t, 1350 * US, 0, B, C, 0);                        /* ... and the one that counts */
  tb_wakeup(t, 1351 * US, 0, B, C, 0);
  tb_waking(t, 1360 * US, 0, B, E, 0);
  tb_wakeup(t, 1361 * US, 0, B, E, 0);
  tb_fork(t, 1370 * US, 0, B, D);
  tb_wakeup(t, 1371 * US, 0, B, D, 0);
  tb_sched_switch(t, 1399 * US, 0, B, "S", C);
  tb_switch_out(t, 1400 * US, 0, B, C, false);
  tb_switch_in(t, 1401 * US, 0, C, B);
  tb_switch_out(t, 1450 * US, 0, C, E, true);
  tb_switch_in(t, 1451 * US, 0, E, C);
  tb_comm(t, 1460 * US, 0, E, "make", true);
  tb_switch_out(t, 1500 * US, 0, E, D, true);
  tb_switch_in(t, 1501 * US, 0, D, E);
  tb_waking(t, 1600 * US, 0, D, F, 1);                        /* F runs on cpu 1, which has no record yet */
  tb_switch_out(t, 1700 * US, 1, F, IDLE, false);
  tb_switch_in(t, 1701 * US, 1, IDLE, F);
  tb_sample(t, 2000 * US, 0, D);                              /* the last event */
  rsp_model *m = tb_finish(t);
  rsp_task_id f = find_task(m, F, 0);
  CHECK_EQ(rsp_model_task(m, f)->n_sleeps, 0);
  RUN(m, f, 0, 1000, 1700, 1, 0, RSP_RUN_OPEN_AT_START);

  rsp_task_id a = find_task(m, A, 0), b = find_task(m, B, 0), c = find_task(m, C, 0), d = find_task(m, D, 0),
              e0 = find_task(m, E, 0);
  CHECK_EQ(rsp_model_task(m, b)->n_sleeps, 1); /* the time after its last run is no sleep */
  SLEEP(m, b, 0, 1000, 1301, 0, false, 1201, RSP_WAKE_WAKEUP, NO_EV);
  const rsp_sleep *sb = rsp_model_sleep(m, rsp_model_task_sleep(m, b, 0));
  CHECK(sb->before_start);
  CHECK_EQ(sb->end_cause, RSP_SLEEP_END_WOKEN);
  CHECK(sb->wake_link != RSP_NO_ID &&
        rsp_model_link(m, sb->wake_link)->from_run == rsp_model_task_run(m, a, 0));
  CHECK_EQ(rsp_model_task(m, c)->n_sleeps, 1);
  SLEEP(m, c, 0, 1000, 1401, 0, false, 1351, RSP_WAKE_WAKEUP, NO_EV);
  const rsp_sleep *sc = rsp_model_sleep(m, rsp_model_task_sleep(m, c, 0));
  CHECK(sc->wake_link != RSP_NO_ID &&
        rsp_model_link(m, sc->wake_link)->from_run == rsp_model_task_run(m, b, 0));
  rsp_task_totals tc;
  rsp_model_task_totals(m, c, &tc);
  CHECK_EQ(tc.sched_delay, 50 * US); /* runnable from 1351, ran at 1401 */
  CHECK_EQ(rsp_model_task(m, e0)->n_sleeps, 0);
  RUN(m, e0, 0, 1451, 1460, 0, 0, 0);
  CHECK_EQ(rsp_model_task(m, d)->n_sleeps, 0);
  CHECK_EQ(rsp_model_task(m, a)->n_sleeps, 0);
  ORDER(m);
  rsp_model_free(m);
}

/* A switch-out stamped 2^64 - 1 handed out among the others (a broken file: robustness/view-hang-walk.data), so the
 * task's time goes backwards. The sleep begun at it (ended there too: a sleep does not end before it begins) comes
 * before the task's next one: it is shrunk to the next one's start, the run before it is cut at the next switch-in,
 * the sleeps stay in order and count their true time, and the cuts are said. */
static void test_time_backwards(void)
{
  tb *t = tb_new(true);
  tb_switch_in(t, 1000 * US, 0, A, IDLE);                     /* the first event */
  tb_switch_out(t, 2000 * US, 0, A, IDLE, false);
  tb_switch_in(t, 2001 * US, 0, IDLE, A);
  tb_switch_out(t, 2500 * US, 0, IDLE, A, false);
  tb_switch_in(t, 2501 * US, 0, A, IDLE);
  tb_switch_out(t, UINT64_MAX, 0, A, IDLE, false);            /* the stray time */
  tb_switch_out(t, 3000 * US, 0, IDLE, A, false);
  tb_switch_in(t, 3001 * US, 0, A, IDLE);
  tb_switch_out(t, 3500 * US, 0, A, IDLE, false);
  tb_switch_in(t, 3501 * US, 0, IDLE, A);
  tb_switch_out(t, 4000 * US, 0, IDLE, A, false);
  tb_switch_in(t, 4001 * US, 0, A, IDLE);
  tb_sample(t, 5000 * US, 0, A);                              /* the last event */
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0);
  CHECK_EQ(rsp_model_task(m, a)->n_sleeps, 3);
  SLEEP(m, a, 0, 2000, 2501, 0, false, 0, RSP_WAKE_NONE, NO_EV);
  SLEEP(m, a, 1, 3500, 3500, 0, false, 0, RSP_WAKE_NONE, NO_EV); /* [2^64 - 1, 2^64 - 1] */
  SLEEP(m, a, 2, 3500, 4001, 0, false, 0, RSP_WAKE_NONE, NO_EV);
  rsp_task_totals ta;
  rsp_model_task_totals(m, a, &ta);
  CHECK_EQ(ta.sleep, (501 + 501) * US);
  CHECK(rsp_model_loss_get(m)->overlaps_cut >= 1);
  ORDER(m);
  rsp_model_free(m);
}

int main(void)
{
  test_switch_records();
  test_sched_switch_inferred();
  test_attach_window();
  test_exec();
  test_exit_switch_out();
  test_tracepoint_exit_untraced();
  test_task_switch_untraced();
  test_exec_after_untraced_switch_in();
  test_sleep_before_start();
  test_time_backwards();
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("model runs and sleeps: all checks passed\n");
  return 0;
}
