/* Sleep ends (paper, "Categories"): why each sleep ended, and the link from the run that caused
 * its end to the run after it. Disk and network ends were found by disk-io.c and network.c; the
 * rest is read from the wakeup: who fired it (the waker's run, an interrupt on an idle cpu) and
 * the callchain it fired with (timer, interrupt, signal, exit frames). A lost wakeup leaves the
 * end to a guess from the sleep's own stack, marked end_inferred. */
#include "model/model-private.h"

#include <string.h>

static const char *const timer_frames[] = {
  "hrtimer_wakeup", "process_timeout", "it_real_fn", "call_timer_fn", "timerfd_tmrproc", "posix_timer_fn",
  NULL,
};
static const char *const irq_frames[] = {
  "do_IRQ", "common_interrupt", "asm_common_interrupt", "asm_sysvec_apic_timer_interrupt",
  "__sysvec_apic_timer_interrupt", "sysvec_apic_timer_interrupt", "irq_exit", "irq_exit_rcu", "__irq_exit_rcu",
  "handle_softirqs", "__do_softirq", "do_softirq", "handle_irq_event", "handle_edge_irq", "handle_fasteoi_irq",
  "asm_sysvec_call_function_single", "sysvec_call_function_single", "__sysvec_call_function_single",
  "flush_smp_call_function_queue", "sched_ttwu_pending", "vring_interrupt", "blk_done_softirq",
  NULL,
};
static const char *const signal_frames[] = {
  "kill_pid_info", "kill_pid_info_type", "__x64_sys_kill", "__x64_sys_tgkill", "__x64_sys_tkill", "do_tkill",
  "do_send_sig_info", "send_signal_locked", "__send_signal_locked", "signal_wake_up_state", "complete_signal",
  "kill_something_info", "group_send_sig_info", "__kill_pgrp_info", "do_send_specific",
  NULL,
};
static const char *const timed_sleep_frames[] = {
  "do_nanosleep", "hrtimer_nanosleep", "__x64_sys_nanosleep", "__x64_sys_clock_nanosleep", "common_nsleep",
  "nanosleep", "clock_nanosleep", "__clock_nanosleep", "usleep", "sleep", "__nanosleep",
  NULL,
};
static const char *const wait_frames[] = {
  "do_wait", "kernel_wait4", "__do_sys_wait4", "__x64_sys_wait4", "kernel_waitid", "__do_sys_waitid",
  "__x64_sys_waitid", "wait4", "waitpid", "__waitpid", "waitid",
  NULL,
};

static bool stack_has(const rsp_model *m, rsp_stack_id s, const char *const *names)
{
  return s != RSP_NO_ID && rsp_stack_has_any(m, s, names);
}

static bool is_child_of(const rsp_model *m, rsp_task_id child, rsp_task_id parent)
{
  const rsp_task *c = &g_array_index(m->tasks, rsp_task, child);
  const rsp_task *p = &g_array_index(m->tasks, rsp_task, parent);
  /* forked by the sleeper or by a thread of its process (or an earlier generation of it) */
  if (c->parent == RSP_NO_ID)
    return false;
  const rsp_task *f = &g_array_index(m->tasks, rsp_task, c->parent);
  return c->parent == parent || (f->pid > 0 && f->pid == p->pid);
}

static rsp_run_id last_run(const rsp_model *m, rsp_task_id task)
{
  const rsp_task *t = &g_array_index(m->tasks, rsp_task, task);
  return t->n_runs ? g_array_index(m->task_runs, uint32_t, t->first_run_ + t->n_runs - 1) : RSP_NO_ID;
}

static void add(rsp_model *m, uint64_t time, rsp_run_id from, rsp_run_id to, rsp_sleep_id sleep, uint32_t op,
                rsp_link_kind kind, bool inferred, bool ends)
{
  rsp_link l = { .time = time, .from_run = from, .to_run = to, .sleep = sleep, .op = op, .kind = (uint8_t)kind,
                 .flags = (uint8_t)((inferred ? RSP_LINK_INFERRED : 0) | (ends ? RSP_LINK_ENDS_SLEEP_ : 0)) };
  rsp_links_add(m, &l);
}

/* A child of the sleeper that exited inside the sleep (a wait whose wakeup was lost). */
static rsp_task_id exited_child(const rsp_model *m, const rsp_sleep *sl)
{
  rsp_task_id best = RSP_NO_ID;
  for (guint i = 0; i < m->tasks->len; i++) {
    const rsp_task *t = &g_array_index(m->tasks, rsp_task, i);
    if (t->exit_time && t->exit_time >= sl->start && t->exit_time <= sl->end && is_child_of(m, i, sl->task) &&
        (best == RSP_NO_ID || t->exit_time > g_array_index(m->tasks, rsp_task, best).exit_time))
      best = i;
  }
  return best;
}

void rsp_sleep_ends_finish(rsp_model_builder *b)
{
  rsp_model *m = b->m;
  for (guint i = 0; i < m->sleeps->len; i++) {
    rsp_sleep *sl = &g_array_index(m->sleeps, rsp_sleep, i);
    const rsp_sleep_facts *f = &g_array_index(b->sleep_facts, rsp_sleep_facts, i);
    rsp_run_id to = rsp_links_run_from(m, sl->task, sl->end);
    rsp_run_id before = rsp_links_run_before(m, sl->task, sl->start);
    /* the waking fires in the waker's context, with its stack; the wakeup may fire on the target
     * cpu (an IPI on idle) */
    const rsp_wake_ctx *ctx = f->waking.time ? &f->waking : f->wakeup.time ? &f->wakeup : NULL;
    if (ctx && ctx->stack == RSP_NO_ID && f->wakeup.time && f->wakeup.stack != RSP_NO_ID)
      ctx = &f->wakeup;
    if (sl->preempted) {
      sl->end_cause = RSP_SLEEP_END_PREEMPTED;
      continue;
    }
    if (sl->disk_op != RSP_NO_ID) {
      const rsp_disk_op *op = &g_array_index(m->disk_ops, rsp_disk_op, sl->disk_op);
      rsp_run_id from = op->task != RSP_NO_ID ? rsp_links_run_before(m, op->task, op->insert_time) : RSP_NO_ID;
      add(m, op->complete_time, from, to, i, sl->disk_op, RSP_LINK_DISK,
          sl->end_inferred || (op->flags & RSP_DISK_COMPLETE_INFERRED), true);
      if (sl->end_inferred)
        m->loss.sleeps_end_inferred++;
      continue;
    }
    if (sl->net_op != RSP_NO_ID) {
      const rsp_net_op *op = &g_array_index(m->net_ops, rsp_net_op, sl->net_op);
      add(m, ctx ? ctx->time : sl->end, rsp_links_run_before(m, op->task, op->start), to, i, sl->net_op,
          RSP_LINK_NETWORK, sl->end_inferred, true);
      /* On loopback the sender's own run fired the wakeup: keep that link too. */
      if (ctx && ctx->waker_run != RSP_NO_ID && ctx->waker != sl->task)
        add(m, ctx->time, ctx->waker_run, to, i, RSP_NO_ID, RSP_LINK_WAKEUP, false, false);
      if (sl->end_inferred)
        m->loss.sleeps_end_inferred++;
      continue;
    }
    if (!ctx) {
      /* No wakeup recorded. */
      sl->end_cause = RSP_SLEEP_END_UNKNOWN;
      if (!rsp_sleep_expects_wakeup(sl))
        continue;
      rsp_task_id child = stack_has(m, sl->stack, wait_frames) ? exited_child(m, sl) : RSP_NO_ID;
      if (child != RSP_NO_ID) {
        sl->end_cause = RSP_SLEEP_END_WOKEN;
        sl->end_inferred = true;
        add(m, g_array_index(m->tasks, rsp_task, child).exit_time, last_run(m, child), to, i, RSP_NO_ID,
            RSP_LINK_EXIT_WAIT, true, true);
      } else if (stack_has(m, sl->stack, timed_sleep_frames)) {
        sl->end_cause = RSP_SLEEP_END_TIMEOUT;
        sl->end_inferred = true;
        add(m, sl->end, before, to, i, RSP_NO_ID, RSP_LINK_INTERRUPT, true, true);
      }
      if (sl->end_inferred)
        m->loss.sleeps_end_inferred++;
      else
        m->loss.sleeps_end_unknown++;
      continue;
    }
    rsp_stack_id ws = ctx->stack;
    rsp_task_id waker = ctx->waker;
    bool in_irq = stack_has(m, ws, irq_frames);
    if (waker != RSP_NO_ID && waker != sl->task && !in_irq &&
        g_array_index(m->tasks, rsp_task, waker).exit_time && is_child_of(m, waker, sl->task)) {
      /* The exiting child notified its parent (do_notify_parent): exit -> wait. */
      sl->end_cause = RSP_SLEEP_END_WOKEN;
      rsp_run_id from = ctx->waker_run != RSP_NO_ID ? ctx->waker_run : last_run(m, waker);
      add(m, ctx->time, from, to, i, RSP_NO_ID, RSP_LINK_EXIT_WAIT, ctx->waker_run == RSP_NO_ID, true);
      continue;
    }
    if (stack_has(m, ws, timer_frames)) {
      sl->end_cause = RSP_SLEEP_END_TIMEOUT;
      add(m, ctx->time, before, to, i, RSP_NO_ID, RSP_LINK_INTERRUPT, false, true);
      continue;
    }
    if (in_irq || waker == RSP_NO_ID || ctx->waker_run == RSP_NO_ID || waker == sl->task) {
      if (waker != RSP_NO_ID && ctx->waker_run == RSP_NO_ID && !in_irq)
        m->loss.wakeups_without_run++;
      /* Fired from an interrupt (or on an idle cpu): a wait for hardware, or for a timer when the
       * sleep was a timed one and no callchain says otherwise. */
      if (ws == RSP_NO_ID && waker == RSP_NO_ID && stack_has(m, sl->stack, timed_sleep_frames)) {
        sl->end_cause = RSP_SLEEP_END_TIMEOUT;
        sl->end_inferred = true;
        m->loss.sleeps_end_inferred++;
      } else {
        sl->end_cause = RSP_SLEEP_END_INTERRUPT;
      }
      add(m, ctx->time, before, to, i, RSP_NO_ID, RSP_LINK_INTERRUPT, sl->end_inferred, true);
      continue;
    }
    sl->end_cause = stack_has(m, ws, signal_frames) ? RSP_SLEEP_END_SIGNAL : RSP_SLEEP_END_WOKEN;
    add(m, ctx->time, ctx->waker_run, to, i, RSP_NO_ID, RSP_LINK_WAKEUP, false, true);
  }
}
