/* Kernel work charged to whom it served (analysis/kernel-work.c) and the model's interrupt spans
 * (model/interrupts.c), from fabricated event streams (the model tests' trace builder); each truth is
 * written by hand from the stream's construction. */
#include "../model/checks.h"

#include "analysis/analysis.h"



enum { IDLE = 0, A = 100, B = 200, C = 300, D = 400, E = 500, K = 600, J = 700 };

static void sw(tb *t, uint64_t us, int32_t cpu, int32_t prev, const char *state, int32_t next)
{
  tb_sched_switch(t, us * US, cpu, prev, state, next);
}

static uint64_t row_ns(const rsp_kernel_work *kw, int32_t pid, rsp_kernel_work_kind kind)
{
  const rsp_kernel_work_row *r = rsp_kernel_work_for_pid(kw, pid);
  return r ? r->ns[kind] : 0;
}

static rsp_model *build(void)
{
  tb *t = tb_new(false);
  tb_comm(t, 0, 0, K, "kworker/1:1", false);
  tb_comm(t, 0, 0, J, "jbd2/sda-8", false);
  /* a kworker's two episodes: woken by A, it wakes B (for B); woken by B, it wakes nobody (for B, its requester) */
  sw(t, 0, 1, IDLE, "R", K); /* the kworker waits for work */
  sw(t, 1, 1, K, "I", IDLE);
  sw(t, 0, 0, IDLE, "R", B);
  sw(t, 5, 0, B, "S", A);
  tb_waking(t, 10 * US, 0, A, K, 1);
  sw(t, 11, 1, IDLE, "R", K);
  tb_waking(t, 25 * US, 1, K, B, 0);
  sw(t, 30, 1, K, "I", IDLE);
  sw(t, 40, 0, A, "S", B);
  tb_waking(t, 45 * US, 0, B, K, 1);
  sw(t, 46, 1, IDLE, "R", K);
  sw(t, 56, 1, K, "I", IDLE);
  sw(t, 60, 0, B, "S", IDLE);
  /* jbd2 woken by C's fsync: runs, waits for its I/O (D), runs again and wakes C: both runs for C. C's own
   * request completes in a hardware interrupt on the idle cpu 1: 4 us for C. */
  sw(t, 90, 1, IDLE, "R", J); /* jbd2 waits for work */
  sw(t, 91, 1, J, "S", IDLE);
  sw(t, 100, 0, IDLE, "R", C);
  tb_block(t, TB_INSERT, 104 * US, 0, C, 8, 1000, 4096);
  tb_block(t, TB_ISSUE, 104 * US, 0, C, 8, 1000, 4096);
  tb_waking(t, 105 * US, 0, C, J, 1);
  sw(t, 106, 1, IDLE, "R", J);
  sw(t, 110, 0, C, "D", IDLE);
  sw(t, 120, 1, J, "D", IDLE);
  tb_irq(t, TB_IRQ_ENTRY, 125 * US, 1, 0, 11);
  tb_block(t, TB_COMPLETE, 126 * US, 1, 0, 8, 1000, 4096);
  tb_irq(t, TB_IRQ_EXIT, 129 * US, 1, 0, 11);
  tb_waking(t, 130 * US, 1, 0, J, 1);
  sw(t, 131, 1, IDLE, "R", J);
  tb_next_stack(t, "try_to_wake_up,__wake_up,jbd2_journal_commit_transaction,kjournald2");
  tb_waking(t, 140 * US, 1, J, C, 0);
  sw(t, 141, 0, IDLE, "R", C);
  sw(t, 145, 1, J, "S", IDLE);
  sw(t, 150, 0, C, "S", IDLE);
  /* loopback: E's send runs the softirq itself (211-219), a hardware interrupt nested in it (213-214, serving
   * nothing), which queues data on D's socket and wakes D: 7 us for D */
  sw(t, 200, 0, IDLE, "R", D);
  tb_sock(t, TB_RECV, 201 * US, 0, D, 0xabc);
  sw(t, 205, 0, D, "S", E);
  tb_sock(t, TB_SEND, 210 * US, 0, E, 0xdef);
  tb_irq(t, TB_SOFTIRQ_ENTRY, 211 * US, 0, E, RSP_SOFTIRQ_NET_RX);
  tb_irq(t, TB_IRQ_ENTRY, 213 * US, 0, E, 5);
  tb_irq(t, TB_IRQ_EXIT, 214 * US, 0, E, 5);
  tb_sock(t, TB_DATA_READY, 215 * US, 0, E, 0xabc);
  tb_waking(t, 216 * US, 0, E, D, 0);
  tb_irq(t, TB_SOFTIRQ_EXIT, 219 * US, 0, E, RSP_SOFTIRQ_NET_RX);
  sw(t, 220, 0, E, "S", D);
  sw(t, 230, 0, D, "S", IDLE);
  /* a softirq whose exit was lost (another entry on its cpu), then one serving nothing */
  tb_irq(t, TB_SOFTIRQ_ENTRY, 240 * US, 1, 0, RSP_SOFTIRQ_TIMER);
  tb_irq(t, TB_SOFTIRQ_ENTRY, 250 * US, 1, 0, RSP_SOFTIRQ_RCU);
  tb_irq(t, TB_SOFTIRQ_EXIT, 252 * US, 1, 0, RSP_SOFTIRQ_RCU);
  /* a handler whose exit was lost (another handler's entry on its cpu: handlers do not nest), the next one 1 us, and
   * much later an exit whose entry was lost: it closes nothing */
  tb_irq(t, TB_IRQ_ENTRY, 260 * US, 1, 0, 11);
  tb_irq(t, TB_IRQ_ENTRY, 262 * US, 1, 0, 11);
  tb_irq(t, TB_IRQ_EXIT, 263 * US, 1, 0, 11);
  tb_irq(t, TB_IRQ_EXIT, 290 * US, 1, 0, 11);
  sw(t, 300, 0, IDLE, "R", A);
  sw(t, 310, 0, A, "S", IDLE);
  return tb_finish(t);
}

static void test_spans(const rsp_model *m)
{
  CHECK_EQ(rsp_model_n_irq_spans(m), 7);
  if (rsp_model_n_irq_spans(m) != 7)
    return;
  const rsp_irq_span *disk = rsp_model_irq_span(m, 0), *net = rsp_model_irq_span(m, 1),
                     *nested = rsp_model_irq_span(m, 2), *lost = rsp_model_irq_span(m, 3),
                     *rcu = rsp_model_irq_span(m, 4);
  CHECK_EQ(disk->kind, RSP_IRQ_HARDIRQ);
  CHECK_EQ(disk->self_ns, 4 * US);
  CHECK_EQ(disk->task, RSP_NO_ID);
  CHECK_EQ(net->kind, RSP_IRQ_SOFTIRQ);
  CHECK_STR(net->name, "NET_RX");
  CHECK_EQ(net->end - net->start, 8 * US);
  CHECK_EQ(net->self_ns, 7 * US);
  CHECK(net->flags & RSP_IRQ_IN_TASK);
  CHECK_EQ(nested->self_ns, 1 * US);
  CHECK(lost->flags & RSP_IRQ_END_LOST);
  CHECK_EQ(lost->self_ns, 0);
  CHECK_STR(rcu->name, "RCU");
  CHECK_EQ(rcu->self_ns, 2 * US);
  const rsp_irq_span *lost_hard = rsp_model_irq_span(m, 5), *next_hard = rsp_model_irq_span(m, 6);
  CHECK(lost_hard->flags & RSP_IRQ_END_LOST);
  CHECK_EQ(lost_hard->self_ns, 0);
  CHECK_EQ(next_hard->kind, RSP_IRQ_HARDIRQ);
  CHECK_EQ(next_hard->self_ns, 1 * US);
  CHECK(!(next_hard->flags & RSP_IRQ_END_LOST));
  /* what they served: the disk completion in the first; data on 0xabc and D's wakeup in the softirq */
  uint32_t disk_items = 0, sock_items = 0, wake_items = 0;
  for (uint32_t i = 0; i < rsp_model_n_irq_served(m); i++) {
    const rsp_irq_served *s = rsp_model_irq_served(m, i);
    disk_items += s->kind == RSP_IRQ_SERVED_DISK && s->span == 0;
    sock_items += s->kind == RSP_IRQ_SERVED_SOCKET && s->span == 1 && s->sk == 0xabc;
    wake_items += s->kind == RSP_IRQ_SERVED_WAKEUP && s->span == 1;
  }
  CHECK_EQ(disk_items, 1);
  CHECK_EQ(sock_items, 1);
  CHECK_EQ(wake_items, 1);
  CHECK_EQ(rsp_model_disk_op(m, 0)->issue_task, find_task_nth(m, C, 0, 0));
}

static void test_charges(const rsp_model *m)
{
  rsp_kernel_work *kw = rsp_kernel_work_compute(m);
  CHECK(rsp_task_is_kernel_thread(m, find_task_nth(m, K, 0, 0)));
  CHECK(!rsp_task_is_kernel_thread(m, find_task_nth(m, A, 0, 0)));
  /* the kworker: 19 us it woke B in, 10 us B woke it for */
  CHECK_EQ(row_ns(kw, B, RSP_KWORK_KTHREAD), 29 * US);
  /* its first 1 us run and jbd2's first, before anyone asked: nobody's */
  CHECK_EQ(row_ns(kw, A, RSP_KWORK_KTHREAD), 0);
  /* jbd2: 14 + 14 us, and the completion's 4 us */
  CHECK_EQ(row_ns(kw, C, RSP_KWORK_KTHREAD), 28 * US);
  CHECK_EQ(row_ns(kw, C, RSP_KWORK_HARDIRQ), 4 * US);
  /* the loopback softirq: for the reader, not the sender whose context ran it */
  CHECK_EQ(row_ns(kw, D, RSP_KWORK_SOFTIRQ), 7 * US);
  CHECK(rsp_kernel_work_for_pid(kw, E) == NULL);
  /* the nested handler's 1 us, and the 1 us handler after the one whose exit was lost (which counts nothing; taken as
   * nested, it was charged until the stray exit at 290 us: 29 us) */
  CHECK_EQ(rsp_kernel_work_unattributed_ns(kw, RSP_KWORK_HARDIRQ), 2 * US);
  CHECK_EQ(rsp_kernel_work_unattributed_ns(kw, RSP_KWORK_SOFTIRQ), 2 * US);
  CHECK_EQ(rsp_kernel_work_unattributed_ns(kw, RSP_KWORK_KTHREAD), 2 * US);
  CHECK_EQ(rsp_kernel_work_total_ns(kw, RSP_KWORK_KTHREAD), 59 * US);
  CHECK_EQ(rsp_kernel_work_task_ns(kw, find_task_nth(m, C, 0, 0)), 32 * US);
  /* by whom: C's line names jbd2 and the hardirq */
  uint32_t n;
  const rsp_kernel_work_source *src = rsp_kernel_work_sources(kw, &n);
  bool jbd2 = false, irq = false;
  for (uint32_t i = 0; i < n; i++) {
    jbd2 |= src[i].pid == C && strcmp(src[i].doer, "jbd2/sda-8") == 0 && src[i].ns == 28 * US && src[i].count == 1;
    irq |= src[i].pid == C && g_str_has_prefix(src[i].doer, "hardirq ") && src[i].ns == 4 * US;
  }
  CHECK(jbd2);
  CHECK(irq);
  /* the accounting table carries it beside its columns */
  uint32_t nrows;
  rsp_accounting_row *rows = rsp_accounting_compute(m, &nrows);
  for (uint32_t i = 0; i < nrows; i++)
    if (rows[i].pid == C)
      CHECK_EQ(rows[i].kernel_work_ns, 32 * US);
  g_free(rows);
  rsp_kernel_work_free(kw);
}

/* The "kernel work for X" root of PID's consolidated stacks over [T0, T1): its ns (0: none), and the ns of its
 * child DOER (a prefix) in *DOER_NS. */
static uint64_t kwork_frame(const rsp_model *m, const rsp_kernel_work *kw, int32_t pid, uint64_t t0, uint64_t t1,
                            const char *doer, uint64_t *doer_ns)
{
  /* no tolerance: a waker's run begun before the sleep is cut at its start (the fixture's times are microseconds) */
  rsp_paths_options o = { .tolerance_set = true };
  rsp_paths *p = rsp_paths_build(m, pid, &o, NULL);
  CHECK(p != NULL);
  if (!p)
    return 0;
  rsp_stack_tree *tree = rsp_stack_tree_build_kwork(p, kw, t0, t1, 0);
  uint64_t ns = 0;
  *doer_ns = 0;
  uint32_t nr;
  const uint32_t *roots = rsp_stack_tree_children(tree, RSP_NO_ID, &nr);
  for (uint32_t i = 0; i < nr; i++) {
    const rsp_stack_node *n = rsp_stack_tree_node(tree, roots[i]);
    if (!g_str_has_prefix(n->label, "kernel work for"))
      continue;
    CHECK(n->kinds == RSP_FRAME_KWORK);
    ns += n->ns;
    uint32_t nc;
    const uint32_t *kids = rsp_stack_tree_children(tree, roots[i], &nc);
    for (uint32_t k = 0; k < nc; k++)
      if (g_str_has_prefix(rsp_stack_tree_node(tree, kids[k])->label, doer))
        *doer_ns += rsp_stack_tree_node(tree, kids[k])->ns;
  }
  rsp_stack_tree_free(tree);
  rsp_paths_free(p);
  return ns;
}

typedef struct part_sum {
  int32_t pid;
  double ns, on_path_ns;
} part_sum;

static void sum_part(const rsp_kernel_work_part *part, void *data)
{
  part_sum *s = data;
  if (part->pid == s->pid) {
    s->ns += part->ns;
    s->on_path_ns += part->on_path_ns;
  }
}

/* The flame views' "kernel work for X" frame: the work charged to X less what X's paths already draw. */
static void test_frames(const rsp_model *m)
{
  rsp_kernel_work *kw = rsp_kernel_work_compute(m);
  uint64_t doer = 0;
  /* C: jbd2's second run (131-145) woke its fsync and is on its path, its first (106-120) from the sleep's start
   * (110): 24 of jbd2's 28 us drawn there, 4 left (106-110, while C still ran); the completion's 4 us on the idle
   * cpu are drawn nowhere: 8 us, jbd2's 4 */
  CHECK_EQ(kwork_frame(m, kw, C, 0, 0, "jbd2/", &doer), 8 * US);
  CHECK_EQ(doer, 4 * US);
  kwork_frame(m, kw, C, 0, 0, "hardirq ", &doer);
  CHECK_EQ(doer, 4 * US);
  /* only [0, 108 us): jbd2's 106-108 */
  CHECK_EQ(kwork_frame(m, kw, C, 0, 108 * US, "jbd2/", &doer), 2 * US);
  /* D: the loopback softirq ran inside E's run, the waker on D's path: all 7 us drawn there, no frame */
  CHECK_EQ(kwork_frame(m, kw, D, 0, 0, "softirq", &doer), 0);
  /* B: the kworker's first episode woke it (on its path, 19 us), the second ran while B ran: 10 us */
  CHECK_EQ(kwork_frame(m, kw, B, 0, 0, "kworker", &doer), 10 * US);
  CHECK_EQ(doer, 10 * US);
  /* E: nothing was done for it */
  CHECK_EQ(kwork_frame(m, kw, E, 0, 0, "", &doer), 0);
  /* what is drawn and what the paths draw add up to the rows' totals */
  const int32_t pids[] = { B, C, D };
  const uint64_t totals[] = { 29 * US, 32 * US, 7 * US };
  for (unsigned i = 0; i < G_N_ELEMENTS(pids); i++) {
    rsp_paths *p = rsp_paths_build(m, pids[i], NULL, NULL);
    part_sum s = { pids[i], 0, 0 };
    rsp_kernel_work_paths_parts(kw, p, 0, 0, sum_part, &s);
    CHECK_EQ((uint64_t)(s.ns + s.on_path_ns + 0.5), totals[i]);
    rsp_paths_free(p);
  }
  rsp_kernel_work_free(kw);
}

int main(void)
{
  rsp_model *m = build();
  test_spans(m);
  test_charges(m);
  test_frames(m);
  rsp_model_free(m);
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  return failures ? 1 : 0;
}
