/* Links, sleep end causes, stacks, samples, disk and network operations from fabricated event
 * streams (trace-builder.c). Each scenario's truth (which run caused which, why each sleep ended)
 * is written by hand from the stream's construction and asserted exactly. Runs come from the
 * sched_switch tracepoint, with every switch written out (idle -> task ones too). */
#include "checks.h"

enum { IDLE = 0, A = 100, B = 200, C = 300, P = 400, CH = 500, CH2 = 600 };

static void sw(tb *t, uint64_t us, int32_t cpu, int32_t prev, const char *state, int32_t next)
{
  tb_sched_switch(t, us * US, cpu, prev, state, next);
}

/* The single link that ends at the run of TASK starting at START_US, of KIND, from the run of
 * FROM_TASK (RSP_NO_ID: from no run) covering FROM_US. */
static void check_link_in(const rsp_model *m, rsp_task_id task, uint64_t start_us, rsp_link_kind kind,
                          rsp_task_id from_task, uint64_t from_us, bool inferred, int line)
{
  rsp_run_id to = rsp_model_run_at(m, task, start_us * US);
  if (to == RSP_NO_ID || rsp_model_run(m, to)->start != start_us * US) {
    fprintf(stderr, "line %d: no run of task %u starts at %llu us\n", line, task, (unsigned long long)start_us);
    failures++;
    return;
  }
  uint32_t n;
  rsp_link_id first = rsp_model_run_links_in(m, to, &n);
  for (uint32_t i = 0; i < n; i++) {
    const rsp_link *l = rsp_model_link(m, first + i);
    if (l->kind != kind)
      continue;
    rsp_run_id from = from_task == RSP_NO_ID ? RSP_NO_ID : rsp_model_run_at(m, from_task, from_us * US);
    if (l->from_run != from) {
      fprintf(stderr, "line %d: link kind %d from run %u, expected %u\n", line, kind, l->from_run, from);
      failures++;
    }
    if (!!(l->flags & RSP_LINK_INFERRED) != inferred) {
      fprintf(stderr, "line %d: link kind %d inferred %d\n", line, kind, l->flags & RSP_LINK_INFERRED);
      failures++;
    }
    CHECK_EQ(l->to_run, to);
    /* it is among FROM's outgoing links */
    if (from != RSP_NO_ID) {
      uint32_t k;
      const rsp_link_id *out = rsp_model_run_links_out(m, from, &k);
      bool found = false;
      for (uint32_t j = 0; j < k; j++)
        found |= out[j] == first + i;
      if (!found) {
        fprintf(stderr, "line %d: link not in its from_run's outgoing links\n", line);
        failures++;
      }
    }
    return;
  }
  fprintf(stderr, "line %d: no link of kind %d into task %u's run at %llu us (%u links in)\n", line, kind, task,
          (unsigned long long)start_us, n);
  failures++;
}
#define LINK_IN(m, task, s, kind, from, fus, inf) check_link_in(m, task, s, kind, from, fus, inf, __LINE__)

static const rsp_sleep *sleep_at_us(const rsp_model *m, rsp_task_id task, uint64_t us)
{
  rsp_sleep_id id = rsp_model_sleep_at(m, task, us * US);
  if (id == RSP_NO_ID) {
    fprintf(stderr, "no sleep of task %u at %llu us\n", task, (unsigned long long)us);
    failures++;
    static const rsp_sleep none = { .wake_link = RSP_NO_ID, .disk_op = RSP_NO_ID, .net_op = RSP_NO_ID };
    return &none;
  }
  return rsp_model_sleep(m, id);
}

static uint32_t count_kind(const rsp_model *m, rsp_link_kind kind)
{
  uint32_t n = 0;
  for (uint32_t i = 0; i < rsp_model_n_links(m); i++)
    n += rsp_model_link(m, i)->kind == kind;
  return n;
}

/* B wakes A through a pipe (waking and wakeup both recorded: one link), then by a signal; C
 * preempts A. Stacks label sleeps and travel with samples. */
static void test_wakeup_signal_preempt(void)
{
  tb *t = tb_new(false);
  sw(t, 100, 0, IDLE, "R", A);
  sw(t, 100, 1, IDLE, "R", B);
  tb_next_stack(t, "__schedule,schedule,pipe_read,vfs_read|__libc_read,main");
  tb_sample(t, 150 * US, 0, A);
  tb_next_stack(t, "__schedule,schedule,pipe_read,vfs_read|__libc_read,main");
  tb_sample(t, 160 * US, 0, A); /* the same chain again: the same stack */
  tb_next_stack(t, "schedule,pipe_read,vfs_read,ksys_read|__libc_read,main");
  sw(t, 200, 0, A, "S", IDLE);
  tb_next_stack(t, "try_to_wake_up,autoremove_wake_function,pipe_write|__libc_write,main");
  tb_waking(t, 300 * US, 1, B, A, 0);
  tb_wakeup(t, 302 * US, 1, B, A, 0);
  sw(t, 310, 0, IDLE, "R", A);
  tb_next_stack(t, "schedule,do_sigtimedwait|sigwait");
  sw(t, 400, 0, A, "S", IDLE);
  tb_next_stack(t, "try_to_wake_up,signal_wake_up_state,complete_signal,__send_signal_locked,do_send_sig_info,"
                   "kill_pid_info,__x64_sys_kill|kill");
  tb_waking(t, 450 * US, 1, B, A, 0);
  sw(t, 460, 0, IDLE, "R", A);
  sw(t, 500, 0, A, "R+", C);
  sw(t, 600, 0, C, "S", A);
  sw(t, 700, 0, A, "S", IDLE);
  tb_wakeup(t, 800 * US, 1, B, A, 0);
  sw(t, 800, 0, IDLE, "R", A);
  sw(t, 900, 1, B, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0), b = find_task(m, B, 0), c = find_task(m, C, 0);

  const rsp_sleep *s1 = sleep_at_us(m, a, 250);
  CHECK_EQ(s1->end_cause, RSP_SLEEP_END_WOKEN);
  CHECK(!s1->end_inferred);
  LINK_IN(m, a, 310, RSP_LINK_WAKEUP, b, 300, false);
  CHECK(s1->wake_link != RSP_NO_ID);
  CHECK_EQ(rsp_model_link(m, s1->wake_link)->kind, RSP_LINK_WAKEUP);
  CHECK_EQ(rsp_model_link(m, s1->wake_link)->time, 300 * US); /* the waking, in the waker's context */
  const rsp_model_frame *label = rsp_model_stack_label(m, s1->stack);
  CHECK_STR(label ? label->function : NULL, "__libc_read");
  CHECK(rsp_model_stack_has(m, s1->stack, "pipe_read"));
  CHECK(!rsp_model_stack_has(m, s1->stack, "pipe_write"));

  const rsp_sleep *s2 = sleep_at_us(m, a, 420);
  CHECK_EQ(s2->end_cause, RSP_SLEEP_END_SIGNAL);
  LINK_IN(m, a, 460, RSP_LINK_WAKEUP, b, 450, false);
  const rsp_sleep *s3 = sleep_at_us(m, a, 550);
  CHECK_EQ(s3->end_cause, RSP_SLEEP_END_PREEMPTED);
  CHECK_EQ(s3->wake_link, RSP_NO_ID);
  /* no stack recorded for the last one: woken by B, plain */
  const rsp_sleep *s4 = sleep_at_us(m, a, 750);
  CHECK_EQ(s4->end_cause, RSP_SLEEP_END_WOKEN);
  CHECK_EQ(s4->stack, RSP_NO_ID);
  LINK_IN(m, a, 800, RSP_LINK_WAKEUP, b, 800, false);

  /* exactly one link per ended sleep: 3 wakeups, nothing for the preemption */
  CHECK_EQ(rsp_model_n_links(m), 3);
  CHECK_EQ(count_kind(m, RSP_LINK_WAKEUP), 3);
  (void)c;
  /* the sample and its stack, in A's first run */
  rsp_run_id r0 = rsp_model_task_run(m, a, 0);
  CHECK_EQ(rsp_model_run(m, r0)->n_samples, 2);
  CHECK_EQ(rsp_model_n_samples(m), 2);
  CHECK_EQ(rsp_model_sample(m, 1)->stack, rsp_model_sample(m, 0)->stack);
  CHECK_EQ(rsp_model_sample(m, 1)->time, 160 * US);
  const rsp_sample *smp = rsp_model_sample(m, rsp_model_run(m, r0)->first_sample);
  CHECK_EQ(smp->run, r0);
  CHECK_EQ(smp->time, 150 * US);
  rsp_stack_frames f = rsp_model_stack(m, smp->stack);
  CHECK_EQ(f.n, 6);
  CHECK_STR(rsp_frame_at(f, 0)->function, "__schedule");
  CHECK(rsp_frame_at(f, 0)->kernel);
  CHECK_STR(rsp_frame_at(f, 4)->function, "__libc_read");
  CHECK(!rsp_frame_at(f, 4)->kernel);
  /* five distinct chains (the sample, two sleeps, two wakings) */
  CHECK_EQ(rsp_model_n_stacks(m), 5);
  /* run_at / sleep_at at the edges */
  CHECK_EQ(rsp_model_run_at(m, a, 199 * US), r0);
  CHECK_EQ(rsp_model_run_at(m, a, 200 * US), RSP_NO_ID);
  CHECK_EQ(rsp_model_sleep_at(m, a, 99 * US), RSP_NO_ID);
  CHECK_EQ(rsp_model_run_at(m, a, 50 * US), RSP_NO_ID);
  rsp_model_free(m);
}

/* Interrupts and timers: a nanosleep ended by hrtimer_wakeup from idle, a select ended from an
 * interrupt that hit B, a nanosleep whose wakeup was lost (guessed: timeout), a pipe read whose
 * wakeup was lost (unknown). */
static void test_interrupt_timeout_lost(void)
{
  tb *t = tb_new(false);
  sw(t, 100, 0, IDLE, "R", A);
  sw(t, 100, 1, IDLE, "R", B);
  tb_next_stack(t, "schedule,do_nanosleep,hrtimer_nanosleep,__x64_sys_clock_nanosleep|clock_nanosleep");
  sw(t, 200, 0, A, "S", IDLE);
  tb_next_stack(t, "try_to_wake_up,hrtimer_wakeup,__hrtimer_run_queues,hrtimer_interrupt,"
                   "__sysvec_apic_timer_interrupt,asm_sysvec_apic_timer_interrupt,default_idle");
  tb_waking(t, 300 * US, 0, IDLE, A, 0);
  sw(t, 305, 0, IDLE, "R", A);
  tb_next_stack(t, "schedule,schedule_hrtimeout_range,do_select|select");
  sw(t, 400, 0, A, "S", IDLE);
  tb_next_stack(t, "try_to_wake_up,pollwake,__wake_up_common,handle_irq_event,handle_edge_irq,common_interrupt,"
                   "asm_common_interrupt|compute");
  tb_waking(t, 450 * US, 1, B, A, 0);
  sw(t, 460, 0, IDLE, "R", A);
  tb_next_stack(t, "schedule,do_nanosleep,hrtimer_nanosleep|nanosleep");
  sw(t, 500, 0, A, "S", IDLE);
  sw(t, 600, 0, IDLE, "R", A); /* no wakeup recorded */
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 700, 0, A, "S", IDLE);
  sw(t, 800, 0, IDLE, "R", A); /* no wakeup recorded */
  /* B is killed in an interrupt's return and, exiting in its own context, wakes A (not its parent):
   * the interrupt entry is further out than the exit path, so this is no interrupt. */
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 820, 0, A, "S", IDLE);
  tb_next_stack(t, "try_to_wake_up,__wake_up_common,pipe_release,__fput,task_work_run,do_exit,do_group_exit,"
                   "get_signal,arch_do_signal_or_restart,irqentry_exit_to_user_mode,asm_sysvec_apic_timer_interrupt");
  tb_waking(t, 850 * US, 1, B, A, 0);
  sw(t, 860, 0, IDLE, "R", A);
  sw(t, 900, 1, B, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0);
  CHECK_EQ(sleep_at_us(m, a, 830)->end_cause, RSP_SLEEP_END_WOKEN);
  LINK_IN(m, a, 860, RSP_LINK_WAKEUP, find_task(m, B, 0), 850, false);

  CHECK_EQ(sleep_at_us(m, a, 250)->end_cause, RSP_SLEEP_END_TIMEOUT);
  CHECK(!sleep_at_us(m, a, 250)->end_inferred);
  LINK_IN(m, a, 305, RSP_LINK_INTERRUPT, a, 150, false); /* horizontal: A's run before -> after */
  CHECK_EQ(sleep_at_us(m, a, 420)->end_cause, RSP_SLEEP_END_INTERRUPT);
  LINK_IN(m, a, 460, RSP_LINK_INTERRUPT, a, 350, false); /* not from B: the interrupt only hit it */
  CHECK_EQ(sleep_at_us(m, a, 550)->end_cause, RSP_SLEEP_END_TIMEOUT);
  CHECK(sleep_at_us(m, a, 550)->end_inferred);
  LINK_IN(m, a, 600, RSP_LINK_INTERRUPT, a, 480, true);
  CHECK_EQ(sleep_at_us(m, a, 750)->end_cause, RSP_SLEEP_END_UNKNOWN);
  CHECK_EQ(sleep_at_us(m, a, 750)->wake_link, RSP_NO_ID);
  CHECK_EQ(rsp_model_n_links(m), 4);
  CHECK_EQ(count_kind(m, RSP_LINK_WAKEUP), 1);
  const rsp_model_loss *l = rsp_model_loss_get(m);
  CHECK_EQ(l->sleeps_end_inferred, 1);
  CHECK_EQ(l->sleeps_end_unknown, 1);
  CHECK_EQ(l->sleeps_without_wakeup, 2);
  rsp_model_free(m);
}

/* A shell P forks CH, which execs and exits; P waits for it (the exiting child wakes it). Then CH2,
 * whose exit's wakeup was lost: the wait's stack and CH2's exit inside the sleep give the link. */
static void test_fork_exec_exit(void)
{
  tb *t = tb_new(false);
  tb_comm(t, 0, 0, P, "sh", false);
  sw(t, 100, 0, IDLE, "R", P);
  tb_fork(t, 150 * US, 0, P, CH);
  tb_wakeup(t, 151 * US, 0, P, CH, 1);
  sw(t, 170, 1, IDLE, "R", CH);
  tb_comm(t, 180 * US, 1, CH, "ls", true);
  tb_next_stack(t, "schedule,do_wait,kernel_wait4,__do_sys_wait4|wait4");
  sw(t, 190, 0, P, "S", IDLE);
  tb_exit(t, 300 * US, 1, CH);
  tb_next_stack(t, "try_to_wake_up,__wake_up_parent,do_notify_parent,exit_notify,do_exit");
  tb_waking(t, 301 * US, 1, CH, P, 0);
  sw(t, 302, 1, CH, "X", IDLE);
  sw(t, 310, 0, IDLE, "R", P);
  tb_fork(t, 400 * US, 0, P, CH2);
  sw(t, 410, 1, IDLE, "R", CH2);
  tb_next_stack(t, "schedule,do_wait,kernel_wait4|waitpid");
  sw(t, 420, 0, P, "S", IDLE);
  tb_exit(t, 450 * US, 1, CH2);
  sw(t, 452, 1, CH2, "X", IDLE);
  sw(t, 500, 0, IDLE, "R", P); /* its wakeup was lost */
  sw(t, 600, 0, P, "S", IDLE);
  sw(t, 700, 0, IDLE, "R", P);
  rsp_model *m = tb_finish(t);
  rsp_task_id p = find_task(m, P, 0), ch0 = find_task(m, CH, 0), ch1 = find_task(m, CH, 1);
  rsp_task_id ch2 = find_task(m, CH2, 0);
  CHECK(ch1 != RSP_NO_ID);

  LINK_IN(m, ch0, 170, RSP_LINK_FORK, p, 150, false);
  LINK_IN(m, ch1, 180, RSP_LINK_EXEC, ch0, 175, false);
  LINK_IN(m, p, 310, RSP_LINK_EXIT_WAIT, ch1, 301, false);
  CHECK_EQ(sleep_at_us(m, p, 200)->end_cause, RSP_SLEEP_END_WOKEN);
  LINK_IN(m, ch2, 410, RSP_LINK_FORK, p, 400, false);
  LINK_IN(m, p, 500, RSP_LINK_EXIT_WAIT, ch2, 451, true);
  CHECK_EQ(sleep_at_us(m, p, 430)->end_cause, RSP_SLEEP_END_WOKEN);
  CHECK(sleep_at_us(m, p, 430)->end_inferred);
  /* a sleep with no stack and no wakeup: nothing to say */
  CHECK_EQ(sleep_at_us(m, p, 650)->end_cause, RSP_SLEEP_END_UNKNOWN);
  CHECK_EQ(count_kind(m, RSP_LINK_FORK), 2);
  CHECK_EQ(count_kind(m, RSP_LINK_EXEC), 1);
  CHECK_EQ(count_kind(m, RSP_LINK_EXIT_WAIT), 2);
  CHECK_EQ(rsp_model_n_links(m), 5);
  /* the first exec after the recording began */
  CHECK_EQ(rsp_model_workload_pid(m), CH);
  /* links are grouped by to_run, each group's ids consecutive */
  for (uint32_t i = 1; i < rsp_model_n_links(m); i++)
    CHECK(rsp_model_link(m, i - 1)->to_run <= rsp_model_link(m, i)->to_run);
  rsp_model_free(m);
}

/* A child whose main thread exits before its other thread (rust-lld under collect2): the last thread wakes the
 * parent's wait4 from release_task, past the point where its pid is detached, so perf records the waking with pid and
 * tid -1. P forks CH (main thread) with thread CH+1; P waits in wait4 from 190; CH exits at 300 (its switch-out at
 * 302); CH+1 runs on cpu 1 from 305, exits at 400 and wakes P at 450 (pid/tid -1), switching out at 452;
 * P runs at 460. The waker is cpu 1's current task, CH+1: an exit -> wait link from its run. */
static void test_exit_wakeup_detached_pid(void)
{
  enum { T2 = CH + 1 };
  tb *t = tb_new(false);
  tb_comm(t, 0, 0, P, "collect2", false);
  tb_thread(t, CH, T2);
  sw(t, 100, 0, IDLE, "R", P);
  tb_fork(t, 150 * US, 0, P, CH);
  sw(t, 170, 1, IDLE, "R", CH);
  tb_fork(t, 180 * US, 1, CH, T2);
  tb_next_stack(t, "schedule,do_wait,kernel_wait4,__do_sys_wait4|wait4");
  sw(t, 190, 0, P, "S", IDLE);
  tb_exit(t, 300 * US, 1, CH);
  sw(t, 302, 1, CH, "X", IDLE);
  sw(t, 305, 1, IDLE, "R", T2);
  tb_exit(t, 400 * US, 1, T2);
  tb_next_stack(t, "try_to_wake_up,__wake_up_sync_key,do_notify_parent,release_task,do_exit");
  tb_waking(t, 450 * US, 1, -1, P, 0);
  sw(t, 452, 1, T2, "X", IDLE);
  sw(t, 460, 0, IDLE, "R", P);
  sw(t, 500, 0, P, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id p = find_task(m, P, 0), t2 = find_task(m, T2, 0);
  CHECK(t2 != RSP_NO_ID);
  CHECK_EQ(sleep_at_us(m, p, 200)->end_cause, RSP_SLEEP_END_WOKEN);
  CHECK(!sleep_at_us(m, p, 200)->end_inferred);
  LINK_IN(m, p, 460, RSP_LINK_EXIT_WAIT, t2, 440, false);
  rsp_model_free(m);
}

#define DEV ((8u << 20) | 0u)

/* Disk: a read with every event and the completion path on the wakeup's stack; one with no
 * issue; one with no insert whose wakeup was lost; one whose completion was lost; a completion of
 * nothing we saw; a request never completed. */
static void test_disk(void)
{
  tb *t = tb_new(false);
  sw(t, 50, 0, IDLE, "R", A);
  tb_block(t, TB_INSERT, 100 * US, 0, A, DEV, 1000, 4096);
  tb_block(t, TB_ISSUE, 101 * US, 0, A, DEV, 1000, 4096);
  tb_next_stack(t, "schedule,io_schedule,folio_wait_bit_common,filemap_read|read");
  sw(t, 102, 0, A, "D", IDLE);
  tb_block(t, TB_COMPLETE, 300 * US, 1, IDLE, DEV, 1000, 4096);
  tb_next_stack(t, "try_to_wake_up,wake_page_function,__wake_up_common,folio_wake_bit,filemap_end_read,"
                   "mpage_read_end_io,bio_endio,blk_update_request,blk_mq_end_request,virtblk_done,vring_interrupt");
  tb_waking(t, 302 * US, 1, IDLE, A, 0);
  sw(t, 310, 0, IDLE, "R", A);
  /* no issue */
  tb_block(t, TB_INSERT, 400 * US, 0, A, DEV, 2000, 8192);
  sw(t, 402, 0, A, "D", IDLE);
  tb_block(t, TB_COMPLETE, 600 * US, 1, IDLE, DEV, 2000, 8192);
  tb_wakeup(t, 602 * US, 1, IDLE, A, 0);
  sw(t, 605, 0, IDLE, "R", A);
  /* no insert (direct issue), wakeup lost */
  tb_block(t, TB_ISSUE, 700 * US, 0, A, DEV, 3000, 4096);
  sw(t, 702, 0, A, "D", IDLE);
  tb_block(t, TB_COMPLETE, 900 * US, 1, IDLE, DEV, 3000, 4096);
  sw(t, 920, 0, IDLE, "R", A);
  /* completion lost: the wakeup's stack says the disk ended it */
  tb_block(t, TB_INSERT, 1000 * US, 0, A, DEV, 4000, 4096);
  tb_block(t, TB_ISSUE, 1001 * US, 0, A, DEV, 4000, 4096);
  sw(t, 1002, 0, A, "D", IDLE);
  tb_next_stack(t, "try_to_wake_up,wake_page_function,bio_endio,blk_mq_end_request,virtblk_done");
  tb_waking(t, 1200 * US, 1, IDLE, A, 0);
  sw(t, 1210, 0, IDLE, "R", A);
  /* a completion of a request issued before the recording */
  tb_block(t, TB_COMPLETE, 1300 * US, 1, IDLE, DEV, 5000, 4096);
  /* never completed */
  tb_block(t, TB_INSERT, 1400 * US, 0, A, DEV, 6000, 4096);
  tb_block(t, TB_ISSUE, 1401 * US, 0, A, DEV, 6000, 4096);
  /* a D sleep with a completion far from its end (beyond the window): not the disk */
  tb_block(t, TB_ISSUE, 1500 * US, 0, A, DEV, 7000, 4096);
  sw(t, 1502, 0, A, "D", IDLE);
  tb_block(t, TB_COMPLETE, 1600 * US, 1, IDLE, DEV, 7000, 4096);
  sw(t, 2000, 0, IDLE, "R", A);
  sw(t, 2100, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0);

  CHECK_EQ(rsp_model_n_disk_ops(m), 7);
  const rsp_disk_op *d0 = rsp_model_disk_op(m, 0);
  CHECK_EQ(d0->insert_time, 100 * US);
  CHECK_EQ(d0->issue_time, 101 * US);
  CHECK_EQ(d0->complete_time, 300 * US);
  CHECK_EQ(d0->flags, 0);
  CHECK_EQ(d0->bytes, 4096);
  CHECK_STR(d0->rwbs, "R");
  CHECK_EQ(d0->task, a);
  CHECK_EQ(d0->sleep, rsp_model_sleep_at(m, a, 200 * US));
  const rsp_sleep *s0 = sleep_at_us(m, a, 200);
  CHECK_EQ(s0->end_cause, RSP_SLEEP_END_DISK);
  CHECK(!s0->end_inferred);
  CHECK_EQ(s0->disk_op, 0);
  LINK_IN(m, a, 310, RSP_LINK_DISK, a, 100, false);
  CHECK_EQ(rsp_model_link(m, s0->wake_link)->op, 0);

  const rsp_disk_op *d1 = rsp_model_disk_op(m, 1);
  CHECK_EQ(d1->flags, RSP_DISK_ISSUE_INFERRED);
  CHECK_EQ(d1->issue_time, 400 * US); /* right after the insert */
  CHECK_EQ(sleep_at_us(m, a, 500)->end_cause, RSP_SLEEP_END_DISK);
  CHECK(!sleep_at_us(m, a, 500)->end_inferred); /* its own request, woken from an interrupt */

  const rsp_disk_op *d2 = rsp_model_disk_op(m, 2);
  CHECK_EQ(d2->flags, RSP_DISK_NO_INSERT);
  CHECK_EQ(d2->insert_time, 700 * US);
  CHECK_EQ(sleep_at_us(m, a, 800)->end_cause, RSP_SLEEP_END_DISK);
  CHECK(sleep_at_us(m, a, 800)->end_inferred);
  LINK_IN(m, a, 920, RSP_LINK_DISK, a, 650, true);

  const rsp_disk_op *d3 = rsp_model_disk_op(m, 3);
  CHECK_EQ(d3->flags, RSP_DISK_COMPLETE_INFERRED);
  CHECK_EQ(d3->complete_time, 1200 * US);
  CHECK_EQ(sleep_at_us(m, a, 1100)->end_cause, RSP_SLEEP_END_DISK);
  CHECK_EQ(sleep_at_us(m, a, 1100)->disk_op, 3);

  const rsp_disk_op *d4 = rsp_model_disk_op(m, 4);
  CHECK_EQ(d4->flags, RSP_DISK_NO_INSERT | RSP_DISK_ISSUE_INFERRED);
  CHECK_EQ(d4->task, RSP_NO_ID);
  CHECK_EQ(d4->sleep, RSP_NO_ID);
  const rsp_disk_op *d5 = rsp_model_disk_op(m, 5);
  CHECK_EQ(d5->flags, RSP_DISK_NO_COMPLETE);
  CHECK_EQ(d5->complete_time, 0);
  const rsp_disk_op *d6 = rsp_model_disk_op(m, 6);
  CHECK_EQ(d6->sleep, RSP_NO_ID);
  CHECK_EQ(sleep_at_us(m, a, 1700)->end_cause, RSP_SLEEP_END_UNKNOWN);

  const rsp_model_loss *l = rsp_model_loss_get(m);
  CHECK_EQ(l->disk_no_insert, 3);
  CHECK_EQ(l->disk_issue_inferred, 2);
  CHECK_EQ(l->disk_no_complete, 1);
  CHECK_EQ(l->disk_complete_inferred, 1);
  CHECK_EQ(l->sleeps_end_inferred, 1);
  CHECK_EQ(count_kind(m, RSP_LINK_DISK), 4);
  rsp_model_free(m);
}

#define SK1 0xffff888001000000ull
#define SK2 0xffff888002000000ull

/* Network: A sends a request on SK1 and sleeps until the reply's data-ready (from an interrupt on
 * an idle cpu); server B, blocked in recv on SK2, is woken on loopback from A's own softirq. */
static void test_network(void)
{
  tb *t = tb_new(false);
  static const uint8_t addr[4] = { 10, 0, 0, 2 };
  sw(t, 40, 0, IDLE, "R", A);
  sw(t, 40, 1, IDLE, "R", B);
  tb_sock(t, TB_RECV, 50 * US, 1, B, SK2);
  sw(t, 60, 1, B, "S", IDLE);
  tb_sock_state(t, 100 * US, 0, A, SK1, 40000, 8080, addr);
  tb_sock(t, TB_SEND, 105 * US, 0, A, SK1);
  tb_sock(t, TB_SEND, 110 * US, 0, A, SK1);
  tb_next_stack(t, "schedule,schedule_timeout,sk_wait_data,tcp_recvmsg|recv");
  sw(t, 120, 0, A, "S", IDLE);
  tb_sock(t, TB_DATA_READY, 300 * US, 0, IDLE, SK1);
  tb_next_stack(t, "try_to_wake_up,sock_def_readable,tcp_data_queue,tcp_rcv_established,net_rx_action,"
                   "handle_softirqs,irq_exit_rcu,common_interrupt");
  tb_waking(t, 301 * US, 0, IDLE, A, 0);
  sw(t, 310, 0, IDLE, "R", A);
  tb_sock(t, TB_RECV, 311 * US, 0, A, SK1);
  tb_sock(t, TB_SEND, 400 * US, 0, A, SK1); /* a new request: a new operation */
  tb_sock(t, TB_DATA_READY, 401 * US, 0, A, SK2);
  tb_next_stack(t, "try_to_wake_up,sock_def_readable,tcp_data_queue,net_rx_action,handle_softirqs,do_softirq,"
                   "__local_bh_enable_ip,__dev_queue_xmit,tcp_sendmsg|send");
  tb_waking(t, 402 * US, 0, A, B, 1);
  sw(t, 420, 1, IDLE, "R", B);
  tb_sock(t, TB_RECV, 421 * US, 1, B, SK2);
  sw(t, 500, 0, A, "S", IDLE);
  sw(t, 600, 0, IDLE, "R", A);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0), b = find_task(m, B, 0);

  CHECK_EQ(rsp_model_n_net_ops(m), 3);
  const rsp_net_op *o0 = rsp_model_net_op(m, 0);
  CHECK_EQ(o0->start, 110 * US); /* the last send before the reply */
  CHECK_EQ(o0->end, 301 * US);   /* the wakeup of the reply */
  CHECK_EQ(o0->skaddr, SK1);
  CHECK_EQ(o0->task, a);
  CHECK_EQ(o0->n_wakeups, 1);
  CHECK_EQ(o0->protocol, 6);
  CHECK_EQ(o0->sport, 40000);
  CHECK_EQ(o0->dport, 8080);
  CHECK_STR(o0->remote, "10.0.0.2:8080");
  const rsp_sleep *sa = sleep_at_us(m, a, 200);
  CHECK_EQ(sa->end_cause, RSP_SLEEP_END_NETWORK);
  CHECK_EQ(sa->net_op, 0);
  LINK_IN(m, a, 310, RSP_LINK_NETWORK, a, 110, false);
  CHECK_EQ(rsp_model_link(m, sa->wake_link)->kind, RSP_LINK_NETWORK);

  /* start order: A's second request (400), B's data (401) */
  const rsp_net_op *o1 = rsp_model_net_op(m, 1), *o2 = rsp_model_net_op(m, 2);
  CHECK_EQ(o1->start, 400 * US);
  CHECK_EQ(o1->task, a);
  CHECK_EQ(o1->n_wakeups, 0);
  CHECK_EQ(o2->task, b);
  CHECK_EQ(o2->flags, RSP_NET_NO_SEND);
  CHECK_EQ(o2->n_wakeups, 1);
  const rsp_sleep *sb = sleep_at_us(m, b, 200);
  CHECK_EQ(sb->end_cause, RSP_SLEEP_END_NETWORK);
  CHECK_EQ(sb->net_op, 2);
  LINK_IN(m, b, 420, RSP_LINK_NETWORK, b, 50, false);
  LINK_IN(m, b, 420, RSP_LINK_WAKEUP, a, 402, false); /* loopback: A's run fired it */
  CHECK_EQ(rsp_model_link(m, sb->wake_link)->kind, RSP_LINK_NETWORK);
  /* A's last sleep: no data, no wakeup */
  CHECK_EQ(sleep_at_us(m, a, 550)->end_cause, RSP_SLEEP_END_UNKNOWN);
  rsp_model_free(m);
}

/* rsp-record's kprobes instead of the sock tracepoints: the same operation, TCP from the probed function. */
static void test_network_kprobes(void)
{
  tb *t = tb_new(false);
  sw(t, 40, 0, IDLE, "R", A);
  tb_sock(t, TB_KPROBE_TX, 110 * US, 0, A, SK1);
  sw(t, 120, 0, A, "S", IDLE);
  tb_sock(t, TB_KPROBE_RX, 300 * US, 0, IDLE, SK1);
  tb_wakeup(t, 305 * US, 0, IDLE, A, 0);
  sw(t, 310, 0, IDLE, "R", A);
  sw(t, 400, 0, A, "S", IDLE);
  tb_sock(t, TB_KPROBE_RX, 450 * US, 1, IDLE, SK1); /* more of the reply; its wakeup was lost */
  sw(t, 500, 0, IDLE, "R", A);
  sw(t, 600, 0, A, "S", IDLE);
  sw(t, 900, 0, IDLE, "R", A); /* nothing arrived within the window before: not the network */
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0);
  CHECK_EQ(rsp_model_n_net_ops(m), 1);
  const rsp_net_op *o = rsp_model_net_op(m, 0);
  CHECK_EQ(o->start, 110 * US);
  CHECK_EQ(o->end, 500 * US); /* the last wakeup of the reply (the inferred one: the switch-in) */
  CHECK_EQ(o->n_wakeups, 2);
  CHECK_EQ(o->protocol, 6);
  CHECK_EQ(o->remote, NULL);
  CHECK_EQ(sleep_at_us(m, a, 200)->end_cause, RSP_SLEEP_END_NETWORK);
  CHECK(!sleep_at_us(m, a, 200)->end_inferred);
  LINK_IN(m, a, 310, RSP_LINK_NETWORK, a, 110, false);
  CHECK_EQ(sleep_at_us(m, a, 450)->end_cause, RSP_SLEEP_END_NETWORK);
  CHECK(sleep_at_us(m, a, 450)->end_inferred);
  LINK_IN(m, a, 500, RSP_LINK_NETWORK, a, 110, true);
  CHECK_EQ(sleep_at_us(m, a, 700)->end_cause, RSP_SLEEP_END_UNKNOWN);
  CHECK_EQ(rsp_model_loss_get(m)->sleeps_end_inferred, 1);
  rsp_model_free(m);
}

/* no_stacks: nothing is symbolized, the rest is the same. */
static void test_no_stacks(void)
{
  rsp_model_options o = { .no_stacks = true };
  tb *t = tb_new_with(&o, false);
  sw(t, 100, 0, IDLE, "R", A);
  sw(t, 100, 1, IDLE, "R", B);
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 200, 0, A, "S", IDLE);
  tb_next_stack(t, "try_to_wake_up,hrtimer_wakeup");
  tb_waking(t, 300 * US, 1, B, A, 0);
  sw(t, 310, 0, IDLE, "R", A);
  sw(t, 400, 1, B, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0), b = find_task(m, B, 0);
  CHECK_EQ(rsp_model_n_stacks(m), 0);
  CHECK_EQ(sleep_at_us(m, a, 250)->stack, RSP_NO_ID);
  CHECK_EQ(sleep_at_us(m, a, 250)->end_cause, RSP_SLEEP_END_WOKEN); /* no timer frame seen */
  LINK_IN(m, a, 310, RSP_LINK_WAKEUP, b, 300, false);
  rsp_model_free(m);
}

/* An fsync's flush: the kblockd worker (C) issues it on the sleeper's behalf, its completion's
 * interrupt wakes the sleeper, and the wakeup has no call stack (rsp-record's ftrace capture):
 * the disk ended the sleep when the completion is at most RSP_DISK_IRQ_WAKE_WINDOW_NS before the
 * wakeup (tests/model/data/wl-sqlite.data), not when it is further, nor when a task woke it. */
/* A (at US) sleeps in D on the flush the worker C issues 10 us later; C then sleeps. */
static void flush_by_worker(tb *t, uint64_t us)
{
  sw(t, us, 0, A, "D", C);
  tb_block(t, TB_ISSUE, (us + 10) * US, 0, C, DEV, 0, 0); /* the flush, by the worker */
  sw(t, us + 20, 0, C, "S", IDLE);
}

static void test_disk_flush_other_issuer(void)
{
  tb *t = tb_new(false);
  sw(t, 50, 0, IDLE, "R", A);
  flush_by_worker(t, 100);
  tb_block(t, TB_COMPLETE, 300 * US, 1, IDLE, DEV, 0, 0);
  tb_wakeup(t, 303 * US, 1, IDLE, A, 0);                            /* 3 us later, from the interrupt */
  sw(t, 310, 0, IDLE, "R", A);
  /* the same, the wakeup 50 us after the completion: an interrupt of something else */
  flush_by_worker(t, 400);
  tb_block(t, TB_COMPLETE, 600 * US, 1, IDLE, DEV, 0, 0);
  tb_wakeup(t, 650 * US, 1, IDLE, A, 0);
  sw(t, 660, 0, IDLE, "R", A);
  /* woken by a running task 5 us after the completion: that task, not the disk */
  flush_by_worker(t, 700);
  sw(t, 800, 1, IDLE, "R", B);
  tb_block(t, TB_COMPLETE, 900 * US, 1, B, DEV, 0, 0);
  tb_wakeup(t, 905 * US, 1, B, A, 0);
  sw(t, 910, 0, IDLE, "R", A);
  /* the completion and the waking in one softirq of the cpu's irq tracepoints: the completion path woke it, as a
   * callchain through it would say (a cold sqlite's 520 fdatasyncs were called guesses for want of one) */
  flush_by_worker(t, 1000);
  tb_irq(t, TB_SOFTIRQ_ENTRY, 1199 * US, 1, IDLE, RSP_SOFTIRQ_BLOCK);
  tb_block(t, TB_COMPLETE, 1200 * US, 1, IDLE, DEV, 0, 0);
  tb_waking(t, 1203 * US, 1, IDLE, A, 0);
  tb_irq(t, TB_SOFTIRQ_EXIT, 1204 * US, 1, IDLE, RSP_SOFTIRQ_BLOCK);
  sw(t, 1210, 0, IDLE, "R", A);
  /* ... and not when the waking came in a later softirq than the completion's */
  flush_by_worker(t, 1300);
  tb_irq(t, TB_SOFTIRQ_ENTRY, 1499 * US, 1, IDLE, RSP_SOFTIRQ_BLOCK);
  tb_block(t, TB_COMPLETE, 1500 * US, 1, IDLE, DEV, 0, 0);
  tb_irq(t, TB_SOFTIRQ_EXIT, 1501 * US, 1, IDLE, RSP_SOFTIRQ_BLOCK);
  tb_irq(t, TB_SOFTIRQ_ENTRY, 1502 * US, 1, IDLE, RSP_SOFTIRQ_TIMER);
  tb_waking(t, 1503 * US, 1, IDLE, A, 0);
  tb_irq(t, TB_SOFTIRQ_EXIT, 1504 * US, 1, IDLE, RSP_SOFTIRQ_TIMER);
  sw(t, 1510, 0, IDLE, "R", A);
  sw(t, 1600, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0), c = find_task(m, C, 0);
  CHECK_EQ(sleep_at_us(m, a, 1100)->end_cause, RSP_SLEEP_END_DISK);
  CHECK_EQ(sleep_at_us(m, a, 1100)->disk_op, 3);
  CHECK(!sleep_at_us(m, a, 1100)->end_inferred);
  CHECK_EQ(sleep_at_us(m, a, 1400)->end_cause, RSP_SLEEP_END_DISK);
  CHECK(sleep_at_us(m, a, 1400)->end_inferred);
  CHECK_EQ(rsp_model_n_disk_ops(m), 5);
  CHECK_EQ(rsp_model_disk_op(m, 0)->task, c);
  const rsp_sleep *s0 = sleep_at_us(m, a, 200);
  CHECK_EQ(s0->end_cause, RSP_SLEEP_END_DISK);
  CHECK(s0->end_inferred);
  CHECK_EQ(s0->disk_op, 0);
  CHECK_EQ(rsp_model_disk_op(m, 0)->sleep, rsp_model_sleep_at(m, a, 200 * US));
  CHECK_EQ(sleep_at_us(m, a, 500)->end_cause, RSP_SLEEP_END_INTERRUPT);
  CHECK_EQ(sleep_at_us(m, a, 500)->disk_op, RSP_NO_ID);
  CHECK_EQ(sleep_at_us(m, a, 800)->end_cause, RSP_SLEEP_END_WOKEN);
  CHECK_EQ(sleep_at_us(m, a, 800)->disk_op, RSP_NO_ID);
  rsp_model_free(m);
}

/* Plain perf record on an idle cpu loses both the completion and the wakeup of a read: the task's
 * last request, issued just before its D sleep and never seen completing, ended the sleep (inferred,
 * completed at the switch-in); not one issued longer than the window before, nor in an S sleep. */
static void test_disk_all_lost(void)
{
  tb *t = tb_new(false);
  sw(t, 50, 0, IDLE, "R", A);
  tb_block(t, TB_INSERT, 100 * US, 0, A, DEV, 1000, 4096);
  tb_block(t, TB_ISSUE, 101 * US, 0, A, DEV, 1000, 4096);
  sw(t, 105, 0, A, "D", IDLE);
  sw(t, 400, 0, IDLE, "R", A);                                      /* nothing but the switch-in */
  tb_block(t, TB_ISSUE, 500 * US, 0, A, DEV, 2000, 4096);
  sw(t, 500 + 1000, 0, A, "D", IDLE);                               /* 1 ms later: not that one */
  sw(t, 1800, 0, IDLE, "R", A);
  tb_block(t, TB_ISSUE, 1900 * US, 0, A, DEV, 3000, 4096);
  sw(t, 1905, 0, A, "S", IDLE);                                     /* not an I/O wait */
  sw(t, 2200, 0, IDLE, "R", A);
  sw(t, 2300, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0);
  const rsp_sleep *s0 = sleep_at_us(m, a, 200);
  CHECK_EQ(s0->end_cause, RSP_SLEEP_END_DISK);
  CHECK(s0->end_inferred);
  CHECK_EQ(s0->disk_op, 0);
  const rsp_disk_op *d0 = rsp_model_disk_op(m, 0);
  CHECK_EQ(d0->complete_time, 400 * US);
  CHECK(d0->flags & RSP_DISK_COMPLETE_INFERRED);
  CHECK_EQ(sleep_at_us(m, a, 1600)->disk_op, RSP_NO_ID);
  CHECK_EQ(sleep_at_us(m, a, 2000)->disk_op, RSP_NO_ID);
  CHECK_EQ(rsp_model_loss_get(m)->disk_complete_inferred, 1);
  rsp_model_free(m);
}

/* The same among other requests: the sleeper's own last one issued before its sleep is the one, not another task's
 * issued later, nor one of its own that another task issued after the sleep began (the requests are searched by task
 * and issue time, no longer by scanning every request back from the last). */
static void test_disk_all_lost_own_request(void)
{
  tb *t = tb_new(false);
  sw(t, 50, 0, IDLE, "R", A);
  sw(t, 50, 1, IDLE, "R", B);
  tb_block(t, TB_INSERT, 100 * US, 0, A, DEV, 1000, 4096); /* 0: A's, issued at once */
  tb_block(t, TB_ISSUE, 101 * US, 0, A, DEV, 1000, 4096);
  tb_block(t, TB_INSERT, 102 * US, 1, B, DEV, 5000, 4096); /* 1: B's, issued after A's */
  tb_block(t, TB_ISSUE, 103 * US, 1, B, DEV, 5000, 4096);
  tb_block(t, TB_INSERT, 104 * US, 0, A, DEV, 2000, 4096); /* 2: A's, issued by B once A sleeps */
  sw(t, 105, 0, A, "D", IDLE);
  tb_block(t, TB_ISSUE, 200 * US, 1, B, DEV, 2000, 4096);
  sw(t, 400, 0, IDLE, "R", A); /* nothing but the switch-in */
  sw(t, 500, 0, A, "S", IDLE);
  sw(t, 600, 1, B, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0), b = find_task(m, B, 0);
  CHECK_EQ(rsp_model_n_disk_ops(m), 3);
  CHECK_EQ(rsp_model_disk_op(m, 1)->task, b);
  CHECK_EQ(rsp_model_disk_op(m, 2)->task, a);
  CHECK_EQ(rsp_model_disk_op(m, 2)->issue_time, 200 * US);
  const rsp_sleep *s0 = sleep_at_us(m, a, 200);
  CHECK_EQ(s0->end_cause, RSP_SLEEP_END_DISK);
  CHECK(s0->end_inferred);
  CHECK_EQ(s0->disk_op, 0);
  CHECK_EQ(rsp_model_disk_op(m, 0)->complete_time, 400 * US);
  CHECK(rsp_model_disk_op(m, 0)->flags & RSP_DISK_COMPLETE_INFERRED);
  CHECK(!(rsp_model_disk_op(m, 1)->flags & RSP_DISK_COMPLETE_INFERRED));
  CHECK(!(rsp_model_disk_op(m, 2)->flags & RSP_DISK_COMPLETE_INFERRED));
  CHECK_EQ(rsp_model_loss_get(m)->disk_complete_inferred, 1);
  rsp_model_free(m);
}

/* Wakeups fired in interrupt context belong to the device (or timer), never to the task the interrupt
 * happened to hit; a softirq a task runs itself (loopback: its own packet, its own FIN) is that task's.
 * A runs on cpu 0 and sleeps; U (unrelated) and S (a sender) run on cpu 1. */
static void test_interrupt_context(void)
{
  enum { U = C, S = B };
  tb *t = tb_new(false);
  sw(t, 100, 0, IDLE, "R", A);
  sw(t, 100, 1, IDLE, "R", U);
  /* 1. a device interrupt hits U and wakes A; the wakeup has no callchain (the ftrace capture's) */
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 200, 0, A, "S", IDLE);
  tb_irq(t, TB_IRQ_ENTRY, 250 * US, 1, U, 11);
  tb_waking(t, 252 * US, 1, U, A, 0);
  tb_irq(t, TB_IRQ_EXIT, 255 * US, 1, U, 11);
  sw(t, 260, 0, IDLE, "R", A);
  /* 2. the softirq at that interrupt's exit wakes A (no callchain) */
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 300, 0, A, "S", IDLE);
  tb_irq(t, TB_IRQ_ENTRY, 330 * US, 1, U, 11);
  tb_irq(t, TB_IRQ_EXIT, 340 * US, 1, U, 11);
  tb_irq(t, TB_SOFTIRQ_ENTRY, 342 * US, 1, U, 3);
  tb_waking(t, 345 * US, 1, U, A, 0);
  tb_irq(t, TB_SOFTIRQ_EXIT, 348 * US, 1, U, 3);
  sw(t, 360, 0, IDLE, "R", A);
  /* 3. S sends on loopback: NET_RX runs in S's own context (no interrupt before it) and wakes A */
  sw(t, 400, 1, U, "R", S);
  tb_next_stack(t, "schedule,sk_wait_data,tcp_recvmsg|recv");
  sw(t, 410, 0, A, "S", IDLE);
  tb_irq(t, TB_SOFTIRQ_ENTRY, 600 * US, 1, S, 3);
  tb_waking(t, 602 * US, 1, S, A, 0);
  tb_irq(t, TB_SOFTIRQ_EXIT, 605 * US, 1, S, 3);
  sw(t, 610, 0, IDLE, "R", A);
  /* 4. S closes the connection: its FIN is delivered in its softirq, from its close() (callchain) */
  tb_next_stack(t, "schedule,sk_wait_data,tcp_recvmsg|recv");
  sw(t, 700, 0, A, "S", IDLE);
  tb_next_stack(t, "try_to_wake_up,__wake_up_common,sock_def_wakeup,tcp_fin,tcp_rcv_established,tcp_v4_rcv,"
                   "ip_local_deliver,__netif_receive_skb,process_backlog,net_rx_action,handle_softirqs,do_softirq,"
                   "__local_bh_enable_ip,__dev_queue_xmit,ip_finish_output2,__tcp_transmit_skb,tcp_send_fin,"
                   "tcp_close,__fput,task_work_run,syscall_exit_to_user_mode|close");
  tb_waking(t, 750 * US, 1, S, A, 0);
  sw(t, 760, 0, IDLE, "R", A);
  /* 5. the same delivery from a network card's interrupt, while S happened to run */
  tb_next_stack(t, "schedule,sk_wait_data,tcp_recvmsg|recv");
  sw(t, 800, 0, A, "S", IDLE);
  tb_next_stack(t, "try_to_wake_up,__wake_up_common,sock_def_readable,tcp_rcv_established,tcp_v4_rcv,"
                   "ip_local_deliver,__netif_receive_skb,napi_poll,net_rx_action,handle_softirqs,irq_exit_rcu,"
                   "common_interrupt,asm_common_interrupt|compute");
  tb_waking(t, 850 * US, 1, S, A, 0);
  sw(t, 860, 0, IDLE, "R", A);
  /* 6. a nanosleep ends while S runs on the other cpu; the wakeup has no callchain and no interrupt
   * tracepoint (the local timer interrupt has none): its timer, not S */
  tb_next_stack(t, "schedule,do_nanosleep,hrtimer_nanosleep|nanosleep");
  sw(t, 900, 0, A, "S", IDLE);
  tb_waking(t, 1000 * US, 1, S, A, 0);
  sw(t, 1010, 0, IDLE, "R", A);
  sw(t, 1100, 0, A, "S", IDLE);
  sw(t, 1100, 1, S, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0), s = find_task(m, S, 0);
  CHECK_EQ(sleep_at_us(m, a, 230)->end_cause, RSP_SLEEP_END_INTERRUPT);
  LINK_IN(m, a, 260, RSP_LINK_INTERRUPT, a, 150, false); /* horizontal, not from U */
  CHECK_EQ(sleep_at_us(m, a, 320)->end_cause, RSP_SLEEP_END_INTERRUPT);
  LINK_IN(m, a, 360, RSP_LINK_INTERRUPT, a, 280, false);
  CHECK_EQ(sleep_at_us(m, a, 500)->end_cause, RSP_SLEEP_END_WOKEN);
  LINK_IN(m, a, 610, RSP_LINK_WAKEUP, s, 602, false);
  CHECK_EQ(sleep_at_us(m, a, 720)->end_cause, RSP_SLEEP_END_WOKEN);
  LINK_IN(m, a, 760, RSP_LINK_WAKEUP, s, 750, false);
  CHECK_EQ(sleep_at_us(m, a, 820)->end_cause, RSP_SLEEP_END_INTERRUPT);
  LINK_IN(m, a, 860, RSP_LINK_INTERRUPT, a, 780, false);
  CHECK_EQ(sleep_at_us(m, a, 950)->end_cause, RSP_SLEEP_END_TIMEOUT);
  CHECK(sleep_at_us(m, a, 950)->end_inferred); /* no callchain said so: a guess, and marked */
  LINK_IN(m, a, 1010, RSP_LINK_INTERRUPT, a, 880, true);
  CHECK_EQ(count_kind(m, RSP_LINK_WAKEUP), 2); /* S twice; U never */
  rsp_model_free(m);
}

/* Futex waits (pthread_cond_timedwait): they end by another task's futex_wake, which fires in task context with its
 * callchain, by their timer, or by a signal, never by a device. A wakeup with no callchain (the ftrace capture's,
 * which perf lost in interrupt context on an idle cpu) from idle, or inside a device's interrupt per the irq
 * tracepoints, is their timer: a guessed timeout (xz -T2's main thread wakes so every 300 ms: strace saw 45
 * ETIMEDOUT and 2 wakes where this said 43 waits for hardware). A pipe read woken so stays a wait for hardware. */
static void test_futex_timeout(void)
{
  tb *t = tb_new(false);
  const char *futex = "schedule,futex_do_wait,__futex_wait,futex_wait,do_futex,__x64_sys_futex|"
                      "__futex_abstimed_wait_common";
  sw(t, 100, 0, IDLE, "R", A);
  sw(t, 100, 1, IDLE, "R", B);
  /* 1. woken from idle, no callchain */
  tb_next_stack(t, futex);
  sw(t, 200, 0, A, "S", IDLE);
  tb_waking(t, 500 * US, 0, IDLE, A, 0);
  sw(t, 505, 0, IDLE, "R", A);
  /* 2. B signals the condition variable: woken by B */
  tb_next_stack(t, futex);
  sw(t, 600, 0, A, "S", IDLE);
  tb_next_stack(t, "try_to_wake_up,wake_up_q,futex_wake,do_futex,__x64_sys_futex|pthread_cond_signal");
  tb_waking(t, 650 * US, 1, B, A, 0);
  sw(t, 655, 0, IDLE, "R", A);
  /* 3. woken inside a device's interrupt that hit B, no callchain: its timer all the same */
  tb_next_stack(t, futex);
  sw(t, 700, 0, A, "S", IDLE);
  tb_irq(t, TB_IRQ_ENTRY, 750 * US, 1, B, 11);
  tb_waking(t, 752 * US, 1, B, A, 0);
  tb_irq(t, TB_IRQ_EXIT, 755 * US, 1, B, 11);
  sw(t, 760, 0, IDLE, "R", A);
  /* 4. a pipe read woken from idle with no callchain: a wait for hardware, as before */
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 800, 0, A, "S", IDLE);
  tb_waking(t, 900 * US, 0, IDLE, A, 0);
  sw(t, 905, 0, IDLE, "R", A);
  sw(t, 1000, 0, A, "S", IDLE);
  sw(t, 1000, 1, B, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0), b = find_task(m, B, 0);
  CHECK_EQ(sleep_at_us(m, a, 300)->end_cause, RSP_SLEEP_END_TIMEOUT);
  CHECK(sleep_at_us(m, a, 300)->end_inferred);
  LINK_IN(m, a, 505, RSP_LINK_INTERRUPT, a, 150, true);
  CHECK_EQ(sleep_at_us(m, a, 620)->end_cause, RSP_SLEEP_END_WOKEN);
  CHECK(!sleep_at_us(m, a, 620)->end_inferred);
  LINK_IN(m, a, 655, RSP_LINK_WAKEUP, b, 650, false);
  CHECK_EQ(sleep_at_us(m, a, 720)->end_cause, RSP_SLEEP_END_TIMEOUT);
  CHECK(sleep_at_us(m, a, 720)->end_inferred);
  CHECK_EQ(sleep_at_us(m, a, 850)->end_cause, RSP_SLEEP_END_INTERRUPT);
  CHECK(!sleep_at_us(m, a, 850)->end_inferred);
  CHECK_EQ(rsp_model_loss_get(m)->sleeps_end_inferred, 2);
  rsp_model_free(m);
}

int main(void)
{
  test_wakeup_signal_preempt();
  test_interrupt_timeout_lost();
  test_interrupt_context();
  test_futex_timeout();
  test_fork_exec_exit();
  test_exit_wakeup_detached_pid();
  test_disk();
  test_disk_flush_other_issuer();
  test_disk_all_lost();
  test_disk_all_lost_own_request();
  test_network();
  test_network_kprobes();
  test_no_stacks();
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  return failures ? 1 : 0;
}
