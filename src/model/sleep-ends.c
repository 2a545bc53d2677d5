/* Sleep ends (paper, "Categories"): why each sleep ended, and the link from the run that caused
 * its end to the run after it. Disk and network ends were found by disk-io.c and network.c; the
 * rest is read from the wakeup: who fired it (the waker's run, an interrupt on an idle cpu) and
 * the callchain it fired with (timer, interrupt, signal, exit frames). A lost wakeup leaves the
 * end to a guess from the sleep's own stack, marked end_inferred. */
#include "model/model-private.h"

#include <string.h>

static bool stack_has(const rsp_model *m, rsp_stack_id s, uint32_t classes)
{
  return (rsp_stack_classes(m, s) & classes) != 0;
}

static bool is_child_of(const rsp_model *m, rsp_task_id child, rsp_task_id parent)
{
  const rsp_task *c = &g_array_index(m->tasks, rsp_task, child);
  const rsp_task *p = &g_array_index(m->tasks, rsp_task, parent);
  /* forked by the sleeper or by a thread of its process (or an earlier generation of it); a thread of the child (the
   * last to exit notifies the parent when the main thread exited first): by its process's creator */
  rsp_task_id up = c->parent;
  for (uint32_t hops = 0; up != RSP_NO_ID && c->pid > 0 && hops < 64; hops++) {
    const rsp_task *u = &g_array_index(m->tasks, rsp_task, up);
    if (u->pid != c->pid)
      break;
    up = u->parent;
  }
  if (up == RSP_NO_ID)
    return false;
  const rsp_task *f = &g_array_index(m->tasks, rsp_task, up);
  return up == parent || (f->pid > 0 && f->pid == p->pid);
}

static rsp_run_id last_run(const rsp_model *m, rsp_task_id task)
{
  const rsp_task *t = &g_array_index(m->tasks, rsp_task, task);
  return t->n_runs ? g_array_index(m->task_runs, uint32_t, t->first_run_ + t->n_runs - 1) : RSP_NO_ID;
}

/* Ending the sleeps FROM to TO (not included): their links, in sleep order, and the counts of the guesses among
 * them (rsp_model_loss), kept apart so that two parts can be worked out at once. */
typedef struct ends_part {
  rsp_model *m;
  const GArray *facts; /* rsp_sleep_facts, by sleep */
  const rsp_run_id *around; /* runs_around_sleeps */
  guint from, to;
  GArray *links;
  uint64_t end_inferred, end_unknown, without_run;
} ends_part;

static void add(ends_part *p, uint64_t time, rsp_run_id from, rsp_run_id to, rsp_sleep_id sleep, uint32_t op,
                rsp_link_kind kind, bool inferred, bool ends)
{
  rsp_link l = { .time = time, .from_run = from, .to_run = to, .sleep = sleep, .op = op, .kind = (uint8_t)kind,
                 .flags = (uint8_t)((inferred ? RSP_LINK_INFERRED : 0) | (ends ? RSP_LINK_ENDS_SLEEP_ : 0)) };
  g_array_append_val(p->links, l);
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

/* The runs before and after each sleep: a task's K-th sleep lies between its K-th and K+1-th
 * runs (every run but the last ends in a sleep, trailing sleeps are dropped); checked, with a
 * search by time where that does not hold. */
typedef struct around_part {
  const rsp_model *m;
  rsp_run_id *around;
  guint from, to; /* tasks */
} around_part;

static void runs_around_tasks_sleeps(void *data)
{
  const around_part *p = data;
  const rsp_model *m = p->m;
  rsp_run_id *around = p->around;
  for (guint t = p->from; t < p->to; t++) {
    const rsp_task *task = &g_array_index(m->tasks, rsp_task, t);
    for (uint32_t k = 0; k < task->n_sleeps; k++) {
      rsp_sleep_id sid = g_array_index(m->task_sleeps, uint32_t, task->first_sleep_ + k);
      const rsp_sleep *sl = &g_array_index(m->sleeps, rsp_sleep, sid);
      rsp_run_id before = RSP_NO_ID, after = RSP_NO_ID;
      if (k + 1 < task->n_runs) {
        before = g_array_index(m->task_runs, uint32_t, task->first_run_ + k);
        after = g_array_index(m->task_runs, uint32_t, task->first_run_ + k + 1);
      }
      if (before == RSP_NO_ID || g_array_index(m->runs, rsp_run, before).end != sl->start ||
          g_array_index(m->runs, rsp_run, after).start != sl->end) {
        before = rsp_links_run_before(m, t, sl->start);
        after = rsp_links_run_from(m, t, sl->end);
      }
      around[2 * sid] = before;
      around[2 * sid + 1] = after;
    }
  }
}

static rsp_run_id *runs_around_sleeps(const rsp_model *m)
{
  rsp_run_id *around = g_new(rsp_run_id, 2 * (size_t)m->sleeps->len + 2);
  guint split = rsp_model_tasks_half(m, false, true);
  around_part parts[2] = { { m, around, 0, split }, { m, around, split, m->tasks->len } };
  rsp_model_in_parallel(runs_around_tasks_sleeps, &parts[0], runs_around_tasks_sleeps, &parts[1]);
  return around;
}

static void end_sleeps(void *data)
{
  ends_part *p = data;
  rsp_model *m = p->m;
  const rsp_run_id *around = p->around;
  for (guint i = p->from; i < p->to; i++) {
    rsp_sleep *sl = &g_array_index(m->sleeps, rsp_sleep, i);
    const rsp_sleep_facts *f = &g_array_index(p->facts, rsp_sleep_facts, i);
    rsp_run_id to = around[2 * i + 1];
    rsp_run_id before = around[2 * i];
    /* the waking fires in the waker's context, with its stack; the wakeup may fire on the target
     * cpu (an IPI on idle) */
    const rsp_wake_ctx *ctx = f->score ? &f->wake : NULL;
    if (sl->preempted) {
      sl->end_cause = RSP_SLEEP_END_PREEMPTED;
      continue;
    }
    if (sl->disk_op != RSP_NO_ID) {
      const rsp_disk_op *op = &g_array_index(m->disk_ops, rsp_disk_op, sl->disk_op);
      rsp_run_id from = op->task != RSP_NO_ID ? rsp_links_run_before(m, op->task, op->insert_time) : RSP_NO_ID;
      add(p, op->complete_time, from, to, i, sl->disk_op, RSP_LINK_DISK,
          sl->end_inferred || (op->flags & RSP_DISK_COMPLETE_INFERRED), true);
      if (sl->end_inferred)
        p->end_inferred++;
      continue;
    }
    if (sl->net_op != RSP_NO_ID) {
      const rsp_net_op *op = &g_array_index(m->net_ops, rsp_net_op, sl->net_op);
      add(p, ctx ? ctx->time : sl->end, rsp_links_run_before(m, op->task, op->start), to, i, sl->net_op,
          RSP_LINK_NETWORK, sl->end_inferred, true);
      /* On loopback the sender's own run fired the wakeup: keep that link too. */
      if (ctx && ctx->waker_run != RSP_NO_ID && ctx->waker != sl->task)
        add(p, ctx->time, ctx->waker_run, to, i, RSP_NO_ID, RSP_LINK_WAKEUP, false, false);
      if (sl->end_inferred)
        p->end_inferred++;
      continue;
    }
    if (!ctx) {
      /* No wakeup recorded. */
      sl->end_cause = RSP_SLEEP_END_UNKNOWN;
      if (!rsp_sleep_expects_wakeup(sl))
        continue;
      rsp_task_id child = stack_has(m, sl->stack, RSP_FRAMES_WAIT) ? exited_child(m, sl) : RSP_NO_ID;
      if (child != RSP_NO_ID) {
        sl->end_cause = RSP_SLEEP_END_WOKEN;
        sl->end_inferred = true;
        add(p, g_array_index(m->tasks, rsp_task, child).exit_time, last_run(m, child), to, i, RSP_NO_ID,
            RSP_LINK_EXIT_WAIT, true, true);
      } else if (stack_has(m, sl->stack, RSP_FRAMES_TIMED_SLEEP)) {
        sl->end_cause = RSP_SLEEP_END_TIMEOUT;
        sl->end_inferred = true;
        add(p, sl->end, before, to, i, RSP_NO_ID, RSP_LINK_INTERRUPT, true, true);
      }
      if (sl->end_inferred)
        p->end_inferred++;
      else
        p->end_unknown++;
      continue;
    }
    rsp_stack_id ws = ctx->stack;
    rsp_task_id waker = ctx->waker;
    /* Fired inside an interrupt: a device's (or a timer's) doing, never the interrupted task's. The
     * callchain says so when there is one; else the interrupt tracepoints of its cpu. A softirq the
     * task ran itself when it re-enabled bottom halves is the task's doing (loopback: the sender). */
    bool in_irq = ws != RSP_NO_ID ? stack_has(m, ws, RSP_FRAMES_IN_IRQ) && !stack_has(m, ws, RSP_FRAMES_IN_TASK_SOFTIRQ)
                                  : ctx->irq == RSP_IRQ_CTX_HARDIRQ || ctx->irq == RSP_IRQ_CTX_SOFTIRQ;
    uint64_t waker_exit = waker != RSP_NO_ID ? g_array_index(m->tasks, rsp_task, waker).exit_time : 0;
    if (waker != RSP_NO_ID && waker != sl->task && !in_irq && waker_exit && ctx->time >= waker_exit &&
        is_child_of(m, waker, sl->task)) {
      /* The exiting child notified its parent (do_notify_parent): exit -> wait. */
      sl->end_cause = RSP_SLEEP_END_WOKEN;
      rsp_run_id from = ctx->waker_run != RSP_NO_ID ? ctx->waker_run : last_run(m, waker);
      add(p, ctx->time, from, to, i, RSP_NO_ID, RSP_LINK_EXIT_WAIT, ctx->waker_run == RSP_NO_ID, true);
      continue;
    }
    if (stack_has(m, ws, RSP_FRAMES_TIMER)) {
      sl->end_cause = RSP_SLEEP_END_TIMEOUT;
      add(p, ctx->time, before, to, i, RSP_NO_ID, RSP_LINK_INTERRUPT, false, true);
      continue;
    }
    if (ws == RSP_NO_ID && stack_has(m, sl->stack, RSP_FRAMES_TIMED_SLEEP) && ctx->irq != RSP_IRQ_CTX_TASK_SOFTIRQ) {
      /* A nanosleep ends by its timer or by a signal. With no callchain on the wakeup, the task that
       * happened to run when the timer interrupt fired is no waker (a loaded machine): a timeout,
       * guessed. */
      sl->end_cause = RSP_SLEEP_END_TIMEOUT;
      sl->end_inferred = true;
      p->end_inferred++;
      add(p, ctx->time, before, to, i, RSP_NO_ID, RSP_LINK_INTERRUPT, true, true);
      continue;
    }
    if (!in_irq && waker != RSP_NO_ID && waker != sl->task && ctx->waker_run == RSP_NO_ID &&
        (ws != RSP_NO_ID || ctx->irq == RSP_IRQ_CTX_NONE)) {
      /* A task woke it, not an interrupt (its callchain, or its cpu's interrupt tracepoints, say so),
       * but the run it did it in was lost (perf dropped its switch-in): woken by that task, from its last
       * run before, and said to be a guess, not filed as a wait for hardware. */
      p->without_run++;
      sl->end_cause = stack_has(m, ws, RSP_FRAMES_SIGNAL) ? RSP_SLEEP_END_SIGNAL : RSP_SLEEP_END_WOKEN;
      add(p, ctx->time, rsp_links_run_before(m, waker, ctx->time), to, i, RSP_NO_ID, RSP_LINK_WAKEUP, true, true);
      continue;
    }
    if (in_irq || waker == RSP_NO_ID || ctx->waker_run == RSP_NO_ID || waker == sl->task) {
      if (waker != RSP_NO_ID && ctx->waker_run == RSP_NO_ID && !in_irq)
        p->without_run++;
      /* Fired from an interrupt (or on an idle cpu): a wait for hardware, or for a timer when the
       * sleep was a timed one and no callchain says otherwise. A futex wait ends by a task's futex_wake
       * (in task context, with its callchain), by its timeout or by a signal, never by a device: from
       * an interrupt with no callchain, its timer (xz -T2's main thread wakes every 300 ms so). */
      bool timed = stack_has(m, sl->stack, RSP_FRAMES_TIMED_SLEEP) && waker == RSP_NO_ID;
      bool futex = stack_has(m, sl->stack, RSP_FRAMES_FUTEX_WAIT) && (waker == RSP_NO_ID || in_irq);
      if (ws == RSP_NO_ID && (timed || futex)) {
        sl->end_cause = RSP_SLEEP_END_TIMEOUT;
        sl->end_inferred = true;
        p->end_inferred++;
      } else {
        sl->end_cause = RSP_SLEEP_END_INTERRUPT;
      }
      add(p, ctx->time, before, to, i, RSP_NO_ID, RSP_LINK_INTERRUPT, sl->end_inferred, true);
      continue;
    }
    sl->end_cause = stack_has(m, ws, RSP_FRAMES_SIGNAL) ? RSP_SLEEP_END_SIGNAL : RSP_SLEEP_END_WOKEN;
    add(p, ctx->time, ctx->waker_run, to, i, RSP_NO_ID, RSP_LINK_WAKEUP, false, true);
  }
}

void rsp_sleep_ends_finish(rsp_model_builder *b)
{
  rsp_model *m = b->m;
  rsp_run_id *around = runs_around_sleeps(m);
  /* the sleeps in two halves, the second's links after the first's: as one pass would add them */
  guint n = m->sleeps->len;
  ends_part parts[2] = { { .m = m, .facts = b->sleep_facts, .around = around, .from = 0, .to = n / 2, .links = m->links },
                         { .m = m, .facts = b->sleep_facts, .around = around, .from = n / 2, .to = n,
                           .links = g_array_new(FALSE, FALSE, sizeof(rsp_link)) } };
  rsp_model_in_parallel(end_sleeps, &parts[0], end_sleeps, &parts[1]);
  g_array_append_vals(m->links, parts[1].links->data, parts[1].links->len);
  g_array_free(parts[1].links, TRUE);
  for (int k = 0; k < 2; k++) {
    m->loss.sleeps_end_inferred += parts[k].end_inferred;
    m->loss.sleeps_end_unknown += parts[k].end_unknown;
    m->loss.wakeups_without_run += parts[k].without_run;
  }
  g_free(around);
}



const char *rsp_sleep_end_key(unsigned end)
{
  static const char *const keys[] = {
    [RSP_SLEEP_END_UNKNOWN] = "unknown",     [RSP_SLEEP_END_WOKEN] = "woken",
    [RSP_SLEEP_END_DISK] = "disk",           [RSP_SLEEP_END_NETWORK] = "network",
    [RSP_SLEEP_END_INTERRUPT] = "interrupt", [RSP_SLEEP_END_TIMEOUT] = "timeout",
    [RSP_SLEEP_END_PREEMPTED] = "preempted", [RSP_SLEEP_END_SIGNAL] = "signal",
  };
  _Static_assert(sizeof keys / sizeof keys[0] == RSP_N_SLEEP_ENDS, "a key for each end cause");
  return end < RSP_N_SLEEP_ENDS ? keys[end] : "?";
}
