/* Control paths, pseudo-stacks and categories from fabricated event streams (the model tests'
 * trace builder). Each scenario's truth (which element is whose child, where each microsecond of
 * the paths goes) is worked out by hand from the stream's construction, in the comments, and
 * asserted exactly. Runs come from sched_switch, every switch written out. */
#include "../model/checks.h"

#include "analysis/analysis.h"

enum { IDLE = 0, A = 100, B = 200, C = 300 };

static void sw(tb *t, uint64_t us, int32_t cpu, int32_t prev, const char *state, int32_t next)
{
  tb_sched_switch(t, us * US, cpu, prev, state, next);
}

static const char *const TIMER_WAKE = "try_to_wake_up,hrtimer_wakeup,__hrtimer_run_queues,hrtimer_interrupt,"
                                      "__sysvec_apic_timer_interrupt,asm_sysvec_apic_timer_interrupt,default_idle";

/* The element of PATHS of KIND with START/END in us, of TID; asserts it exists once. */
static rsp_elem_id find_elem(const rsp_paths *p, rsp_elem_kind kind, int32_t tid, uint64_t start_us,
                             uint64_t end_us, int line)
{
  const rsp_model *m = rsp_paths_model(p);
  rsp_elem_id found = RSP_NO_ID;
  for (rsp_elem_id i = 0; i < rsp_paths_n_elems(p); i++) {
    const rsp_path_elem *e = rsp_paths_elem(p, i);
    if (e->kind == kind && rsp_model_task(m, e->task)->tid == tid && e->start == start_us * US &&
        e->end == end_us * US) {
      if (found != RSP_NO_ID) {
        fprintf(stderr, "line %d: two elements kind %d tid %d %llu-%llu\n", line, kind, tid,
                (unsigned long long)start_us, (unsigned long long)end_us);
        failures++;
      }
      found = i;
    }
  }
  if (found == RSP_NO_ID) {
    fprintf(stderr, "line %d: no element kind %d tid %d %llu-%llu us; have:\n", line, kind, tid,
            (unsigned long long)start_us, (unsigned long long)end_us);
    for (rsp_elem_id i = 0; i < rsp_paths_n_elems(p); i++) {
      const rsp_path_elem *e = rsp_paths_elem(p, i);
      fprintf(stderr, "  #%u kind %d tid %d %.3f-%.3f us path %u depth %u parent %d flags %u\n", i, e->kind,
              rsp_model_task(m, e->task)->tid, e->start / 1e3, e->end / 1e3, e->path, e->depth, (int)e->parent,
              e->flags);
    }
    failures++;
  }
  return found;
}
#define ELEM(p, k, tid, s, e) find_elem(p, k, tid, s, e, __LINE__)

static const rsp_path_elem *el(const rsp_paths *p, rsp_elem_id id)
{
  static const rsp_path_elem none = { .parent = RSP_NO_ID, .path = RSP_NO_ID };
  return id == RSP_NO_ID ? &none : rsp_paths_elem(p, id);
}

static void check_sum(const rsp_categories *c)
{
  uint64_t sum = 0;
  for (int k = 0; k < RSP_N_CATEGORIES; k++)
    sum += c->ns[k];
  CHECK_EQ(sum, c->total_ns);
  uint64_t guessed = 0, unknown = 0;
  for (int k = 0; k < RSP_N_CATEGORIES; k++) {
    CHECK(c->guessed_ns[k] <= c->ns[k]);
    guessed += c->guessed_ns[k];
  }
  for (int r = 0; r < RSP_N_UNKNOWN_STACK_REASONS; r++)
    unknown += c->unknown_stack_ns[r];
  CHECK_EQ(guessed, c->guessed_total_ns);
  CHECK_EQ(unknown, c->ns[RSP_CAT_UNKNOWN_STACK]);
  CHECK_EQ(c->guessed_ns[RSP_CAT_UNACCOUNTED] + c->guessed_ns[RSP_CAT_UNKNOWN_STACK], 0);
  CHECK_EQ(c->accounted_ns,
           c->total_ns - c->ns[RSP_CAT_UNACCOUNTED] - c->ns[RSP_CAT_UNKNOWN_STACK] - c->guessed_total_ns);
}

/* A kernel worker K, idle in worker_thread from 20 us on cpu 1. */
static void idle_worker(tb *t, int32_t k)
{
  sw(t, 10, 1, IDLE, "R", k);
  tb_next_stack(t, "schedule,worker_thread,kthread,ret_from_fork");
  sw(t, 20, 1, k, "I", IDLE);
}

/* At US, a disk interrupt on cpu 2 queues work that wakes the worker K (no bio_endio on the stack). */
static void irq_wakes_worker(tb *t, uint64_t us, int32_t k)
{
  tb_next_stack(t, "try_to_wake_up,kick_pool,__queue_work,queue_work_on,handle_irq_event,common_interrupt,"
                   "asm_common_interrupt,default_idle");
  tb_waking(t, us * US, 2, IDLE, k, 1);
}

/* At US, A sleeps (STATE) in fsync, waiting for its writeback. */
static void fsync_sleep(tb *t, uint64_t us, const char *state)
{
  tb_next_stack(t, "schedule,io_schedule,folio_wait_bit_common,folio_wait_writeback|fsync");
  sw(t, us, 0, A, state, IDLE);
}

/* The wait site of LABEL in SITES, else NULL. */
static const rsp_wait_site *find_site(const rsp_wait_sites *sites, const char *label)
{
  for (uint32_t i = 0; i < rsp_wait_sites_n(sites); i++)
    if (strcmp(rsp_wait_sites_get(sites, i)->label, label) == 0)
      return rsp_wait_sites_get(sites, i);
  return NULL;
}

/* A writes to a pipe B reads (waking B at 190), sleeps in read at 200; B works 195-400 (a sample
 * at 300) and wakes A at 390; A runs again at 410. B's run is the child of A's sleep (it starts
 * 5 us before the sleep, within the tolerance, and ends before A's sleep does); B's wait before
 * ended before A's sleep began, so it is not part of the chain. */
static void test_pipe_child(void)
{
  tb *t = tb_new(false);
  sw(t, 100, 1, IDLE, "R", B);
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 110, 1, B, "S", IDLE);
  sw(t, 100, 0, IDLE, "R", A);
  tb_sample(t, 150 * US, 0, A);
  tb_waking(t, 190 * US, 0, A, B, 1);
  sw(t, 195, 1, IDLE, "R", B);
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 200, 0, A, "S", IDLE);
  tb_sample(t, 300 * US, 1, B);
  tb_waking(t, 390 * US, 1, B, A, 0);
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 400, 1, B, "S", IDLE);
  sw(t, 410, 0, IDLE, "R", A);
  sw(t, 500, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);

  GError *error = NULL;
  rsp_paths *p = rsp_paths_build(m, A, NULL, &error);
  CHECK(p != NULL);
  CHECK_EQ(rsp_paths_n_paths(p), 1);
  CHECK_EQ(rsp_paths_n_elems(p), 4);
  rsp_elem_id a0 = ELEM(p, RSP_ELEM_RUN, A, 100, 200);
  rsp_elem_id as = ELEM(p, RSP_ELEM_SLEEP, A, 200, 410);
  rsp_elem_id a1 = ELEM(p, RSP_ELEM_RUN, A, 410, 500);
  rsp_elem_id b = ELEM(p, RSP_ELEM_RUN, B, 195, 400);
  CHECK_EQ(el(p, a0)->depth, 0);
  CHECK_EQ(el(p, a1)->depth, 0);
  CHECK_EQ(el(p, as)->parent, RSP_NO_ID);
  CHECK_EQ(el(p, b)->parent, as);
  CHECK_EQ(el(p, b)->depth, 1);
  CHECK_EQ(el(p, b)->path, 0);
  CHECK_EQ(el(p, b)->flags, 0);
  uint32_t n;
  const rsp_elem_id *kids = rsp_paths_children(p, as, &n);
  CHECK_EQ(n, 1);
  CHECK_EQ(n ? kids[0] : RSP_NO_ID, b);
  /* path order: depth then start */
  CHECK_EQ(rsp_paths_path_elem(p, 0, 0), a0);
  CHECK_EQ(rsp_paths_path_elem(p, 0, 1), as);
  CHECK_EQ(rsp_paths_path_elem(p, 0, 2), a1);
  CHECK_EQ(rsp_paths_path_elem(p, 0, 3), b);
  CHECK_EQ(rsp_paths_path(p, 0)->start, 100 * US);
  CHECK_EQ(rsp_paths_path(p, 0)->end, 500 * US);
  CHECK_EQ(rsp_paths_n_tasks(p), 2);
  CHECK_EQ(rsp_paths_n_processes(p), 2);
  rsp_task_id tb_ = find_task(m, B, 0);
  CHECK(rsp_paths_has_run(p, rsp_model_task_run(m, tb_, 1)));
  CHECK(!rsp_paths_has_run(p, rsp_model_task_run(m, tb_, 0)));
  CHECK(!rsp_paths_has_sleep(p, rsp_model_task_sleep(m, tb_, 0)));

  /* A's run with a sample: understood 100; A's sleep: B's run inside it [200, 400) understood
   * (clipped to the sleep), then [400, 410) A runnable: scheduler; A's last run: unsampled 90. */
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.wall_ns, 400 * US);
  CHECK_EQ(c.total_ns, 400 * US);
  CHECK_EQ(c.ns[RSP_CAT_UNDERSTOOD], 300 * US);
  CHECK_EQ(c.ns[RSP_CAT_UNSAMPLED], 90 * US);
  CHECK_EQ(c.ns[RSP_CAT_SCHEDULER], 10 * US);
  CHECK_EQ(c.ns[RSP_CAT_UNACCOUNTED], 0);
  CHECK_EQ(c.n_paths, 1);
  CHECK_EQ(c.n_processes, 2);
  check_sum(&c);
  rsp_paths_free(p);

  /* B as the process of interest: A's run (100-200) woke B's sleep 110-195; it starts 10 us before
   * the sleep (within the tolerance: uncut) and ends 5 us after (within it too): a child. */
  p = rsp_paths_build(m, B, NULL, &error);
  CHECK(p != NULL);
  rsp_elem_id bs = ELEM(p, RSP_ELEM_SLEEP, B, 110, 195);
  rsp_elem_id ar = ELEM(p, RSP_ELEM_RUN, A, 100, 200);
  CHECK_EQ(el(p, ar)->parent, bs);
  CHECK_EQ(el(p, ar)->flags, 0);
  rsp_paths_free(p);
  /* a tolerance of 0 set explicitly is zero, not the default: A's run, begun 10 us before B's sleep,
   * is cut at the sleep's start (110) and, ending 5 us after the sleep, does not fit: a path of its
   * own. Left unset (0 without tolerance_set), the paper's 100 us. */
  rsp_paths_options zero = { .tolerance_ns = 0, .tolerance_set = true };
  p = rsp_paths_build(m, B, &zero, &error);
  CHECK(p != NULL);
  CHECK_EQ(rsp_paths_n_paths(p), 2);
  ar = ELEM(p, RSP_ELEM_RUN, A, 110, 200);
  CHECK_EQ(el(p, ar)->parent, RSP_NO_ID);
  CHECK_EQ(el(p, ar)->path, 1);
  CHECK_EQ(el(p, ar)->flags, RSP_ELEM_CUT);
  rsp_paths_free(p);
  rsp_paths_options unset = { .tolerance_ns = 0 };
  p = rsp_paths_build(m, B, &unset, &error);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_RUN, A, 100, 200))->parent, ELEM(p, RSP_ELEM_SLEEP, B, 110, 195));
  rsp_paths_free(p);

  /* no such process */
  p = rsp_paths_build(m, 4242, NULL, &error);
  CHECK(p == NULL);
  CHECK(error && strstr(error->message, "no process with pid 4242"));
  g_clear_error(&error);
  rsp_model_free(m);
}

/* The same, but B keeps running until 1000, long after A woke at 410: B's run does not fit in A's
 * sleep and starts a second control path; A's sleep waited on it (other path until the wakeup). */
static void test_child_does_not_fit(void)
{
  tb *t = tb_new(false);
  sw(t, 100, 1, IDLE, "R", B);
  sw(t, 110, 1, B, "S", IDLE);
  sw(t, 100, 0, IDLE, "R", A);
  tb_waking(t, 190 * US, 0, A, B, 1);
  sw(t, 195, 1, IDLE, "R", B);
  sw(t, 200, 0, A, "S", IDLE);
  tb_waking(t, 390 * US, 1, B, A, 0);
  sw(t, 410, 0, IDLE, "R", A);
  sw(t, 500, 0, A, "S", IDLE);
  sw(t, 1000, 1, B, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  CHECK_EQ(rsp_paths_n_paths(p), 2);
  rsp_elem_id as = ELEM(p, RSP_ELEM_SLEEP, A, 200, 410);
  rsp_elem_id b = ELEM(p, RSP_ELEM_RUN, B, 195, 1000);
  CHECK_EQ(el(p, b)->path, 1);
  CHECK_EQ(el(p, b)->depth, 0);
  CHECK_EQ(el(p, b)->parent, RSP_NO_ID);
  CHECK_EQ(rsp_paths_path(p, 1)->parent_path, 0);
  CHECK_EQ(rsp_paths_path(p, 1)->start, 195 * US);
  uint32_t n;
  rsp_paths_children(p, as, &n);
  CHECK_EQ(n, 0);
  /* a wider tolerance lets it fit */
  rsp_paths_options o = { .tolerance_ns = 700 * US, .tolerance_set = true };
  rsp_paths *wide = rsp_paths_build(m, A, &o, NULL);
  CHECK_EQ(rsp_paths_n_paths(wide), 1);
  CHECK_EQ(el(wide, ELEM(wide, RSP_ELEM_RUN, B, 195, 1000))->parent, ELEM(wide, RSP_ELEM_SLEEP, A, 200, 410));
  rsp_paths_free(wide);

  /* base: 100 + 210 + 90 unsampled/other; path 1: B's 805 us unsampled. A's sleep: other path
   * [200, 390), scheduler [390, 410). */
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.wall_ns, 400 * US);
  CHECK_EQ(c.total_ns, (400 + 805) * US);
  CHECK_EQ(c.ns[RSP_CAT_OTHER_PATH], 190 * US);
  CHECK_EQ(c.ns[RSP_CAT_SCHEDULER], 20 * US);
  CHECK_EQ(c.ns[RSP_CAT_UNSAMPLED], (100 + 90 + 805) * US);
  CHECK_EQ(c.n_paths, 2);
  check_sum(&c);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* A poll loop: three polls on the same stack, the first two timed out, separated by 10 us runs:
 * one sleep from its de facto start 110 to 400. Then two timed-out polls 150 us apart (more than
 * the gap: separate), and a sleep on another stack right after a timed-out poll (separate). */
static void test_poll_merge(void)
{
  static const char *const POLL = "schedule,schedule_hrtimeout_range,do_poll|poll";
  tb *t = tb_new(false);
  uint64_t s[][2] = { { 110, 200 }, { 210, 300 }, { 310, 400 }, { 500, 700 }, { 850, 900 } };
  sw(t, 100, 0, IDLE, "R", A);
  for (unsigned i = 0; i < 5; i++) {
    tb_next_stack(t, POLL);
    sw(t, s[i][0], 0, A, "S", IDLE);
    tb_next_stack(t, TIMER_WAKE);
    tb_waking(t, (s[i][1] - 5) * US, 0, IDLE, A, 0);
    sw(t, s[i][1], 0, IDLE, "R", A);
  }
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 950, 0, A, "S", IDLE);
  tb_next_stack(t, TIMER_WAKE);
  tb_waking(t, 990 * US, 0, IDLE, A, 0);
  sw(t, 1000, 0, IDLE, "R", A);
  sw(t, 1100, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_elem_id merged = ELEM(p, RSP_ELEM_SLEEP, A, 110, 400);
  CHECK_EQ(el(p, merged)->n_merged, 3);
  CHECK_EQ(el(p, merged)->flags, RSP_ELEM_MERGED_POLLS);
  rsp_task_id a = find_task(m, A, 0);
  CHECK_EQ(el(p, merged)->id, rsp_model_task_sleep(m, a, 0));
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_SLEEP, A, 500, 700))->n_merged, 1);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_SLEEP, A, 850, 900))->n_merged, 1);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_SLEEP, A, 950, 1000))->n_merged, 1);
  /* the runs folded into the merged sleep are no elements, but are on the path */
  CHECK_EQ(rsp_paths_n_elems(p), 1 + 1 + 2 + 2 + 2 + 1);
  CHECK(rsp_paths_has_run(p, rsp_model_task_run(m, a, 1)));
  CHECK(rsp_paths_has_sleep(p, rsp_model_task_sleep(m, a, 2)));
  /* timed out: each merged poll up to its own timer wakeup (110-195, 210-295, 310-395), 500-695,
   * 850-895, 950-990 (the read woken by a timer); scheduler 5 after each wakeup, 10 after the read's;
   * the runs folded into the merged sleep (200-210, 300-310) are running time, like every other run
   * of A: 10 + 10 + 10 + 100 + 150 + 50 + 100 */
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.ns[RSP_CAT_TIMED_OUT], (3 * 85 + 195 + 45 + 40) * US);
  CHECK_EQ(c.ns[RSP_CAT_SCHEDULER], (5 * 5 + 10) * US);
  CHECK_EQ(c.ns[RSP_CAT_UNSAMPLED], (10 + 10 + 10 + 100 + 150 + 50 + 100) * US);
  /* the merged element stands for A's first three sleeps, in order */
  for (uint32_t i = 0; i < 3; i++)
    CHECK_EQ(rsp_paths_elem_sleep(p, merged, i), rsp_model_task_sleep(m, a, i));
  CHECK_EQ(rsp_paths_elem_sleep(p, merged, 3), RSP_NO_ID);
  /* the poll site: 110-400, 500-700, 850-900, five polls, all timed out; its own time by piece as
   * above (the folded runs as running time); the read's site apart */
  rsp_wait_sites *ws = rsp_wait_sites_compute(p);
  CHECK_EQ(rsp_wait_sites_n(ws), 2);
  const rsp_wait_site *w = find_site(ws, "poll ([unknown])");
  CHECK(w != NULL);
  if (w) {
    CHECK_EQ(w->count, 5);
    CHECK_EQ(w->total_ns, (290 + 200 + 50) * US);
    CHECK_EQ(w->by_end[RSP_SLEEP_END_TIMEOUT], (290 + 200 + 50) * US);
    CHECK_EQ(w->by_cat[RSP_CAT_TIMED_OUT], (3 * 85 + 195 + 45) * US);
    CHECK_EQ(w->by_cat[RSP_CAT_SCHEDULER], 5 * 5 * US);
    CHECK_EQ(w->by_cat[RSP_CAT_UNSAMPLED], 20 * US);
  }
  CHECK(rsp_wait_sites_get(ws, 0) == w); /* the longest first */
  rsp_wait_sites_free(ws);
  CHECK_EQ(c.total_ns, 1000 * US);
  check_sum(&c);
  rsp_paths_free(p);
  /* a gap of 5 us: no merging */
  rsp_paths_options o = { .poll_merge_gap_ns = 5 * US, .poll_merge_gap_set = true };
  p = rsp_paths_build(m, A, &o, NULL);
  ELEM(p, RSP_ELEM_SLEEP, A, 110, 200);
  ELEM(p, RSP_ELEM_SLEEP, A, 310, 400);
  rsp_paths_free(p);
  /* a gap of 0 set explicitly: no merging at all (not the default's 100 us) */
  rsp_paths_options none = { .poll_merge_gap_ns = 0, .poll_merge_gap_set = true };
  p = rsp_paths_build(m, A, &none, NULL);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_SLEEP, A, 110, 200))->n_merged, 1);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_SLEEP, A, 210, 300))->n_merged, 1);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_SLEEP, A, 310, 400))->n_merged, 1);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* A triangle: A wakes B (190) and sleeps 200-1000; B wakes C (880); C wakes A (940). C's wait began
 * at 50, long before A called B: only its part from A's sleep on is on A's behalf (cut at 200);
 * B's wait before its run is cut at 200 too. Base T = 1000 us. */
static void test_triangle(void)
{
  enum { T = 1000 };
  tb *t = tb_new(false);
  sw(t, T + 0, 0, IDLE, "R", C);
  sw(t, T + 50, 0, C, "S", IDLE);
  sw(t, T + 0, 1, IDLE, "R", B);
  sw(t, T + 40, 1, B, "S", IDLE);
  sw(t, T + 100, 0, IDLE, "R", A);
  tb_sample(t, (T + 150) * US, 0, A);
  tb_waking(t, (T + 190) * US, 0, A, B, 1);
  sw(t, T + 200, 0, A, "S", IDLE);
  sw(t, T + 210, 1, IDLE, "R", B);
  tb_sample(t, (T + 500) * US, 1, B);
  tb_waking(t, (T + 880) * US, 1, B, C, 1);
  sw(t, T + 890, 1, B, "S", IDLE);
  sw(t, T + 900, 1, IDLE, "R", C);
  tb_waking(t, (T + 940) * US, 1, C, A, 0);
  sw(t, T + 950, 1, C, "S", IDLE);
  sw(t, T + 1000, 0, IDLE, "R", A);
  sw(t, T + 1100, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  CHECK_EQ(rsp_paths_n_paths(p), 1);
  rsp_elem_id as = ELEM(p, RSP_ELEM_SLEEP, A, T + 200, T + 1000);
  rsp_elem_id cs = ELEM(p, RSP_ELEM_SLEEP, C, T + 200, T + 900);
  rsp_elem_id cr = ELEM(p, RSP_ELEM_RUN, C, T + 900, T + 950);
  rsp_elem_id bs = ELEM(p, RSP_ELEM_SLEEP, B, T + 200, T + 210);
  rsp_elem_id br = ELEM(p, RSP_ELEM_RUN, B, T + 210, T + 890);
  CHECK_EQ(el(p, cs)->parent, as);
  CHECK_EQ(el(p, cr)->parent, as);
  CHECK_EQ(el(p, cs)->flags, RSP_ELEM_CUT);
  CHECK_EQ(el(p, cr)->flags, 0);
  CHECK_EQ(el(p, bs)->parent, cs);
  CHECK_EQ(el(p, br)->parent, cs);
  CHECK_EQ(el(p, bs)->flags, RSP_ELEM_CUT);
  CHECK_EQ(el(p, br)->depth, 2);
  CHECK_EQ(rsp_paths_n_elems(p), 3 + 2 + 2);
  CHECK_EQ(rsp_paths_n_processes(p), 3);
  /* understood: A 100 + B 680; unsampled: A 100 + C 50; scheduler: B [200,210) woken at 190,
   * C [890,900) after B's run, A [950,1000) after C's run. Nothing of C before 200 counts. */
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.total_ns, 1000 * US);
  CHECK_EQ(c.ns[RSP_CAT_UNDERSTOOD], 780 * US);
  CHECK_EQ(c.ns[RSP_CAT_UNSAMPLED], 150 * US);
  CHECK_EQ(c.ns[RSP_CAT_SCHEDULER], 70 * US);
  check_sum(&c);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* One task through every kind of sleep; B runs on cpu 1 (an interrupt hits it), C preempts A,
 * interrupts on idle come on cpu 2. */
static void test_categories(void)
{
  enum { DEV = 8 << 20 };
  tb *t = tb_new(false);
  sw(t, 50, 1, IDLE, "R", B);
  sw(t, 50, 0, IDLE, "R", A);
  tb_sample(t, 60 * US, 0, A); /* understood 50-102 */
  /* disk: queued 102-150 (inserted at 100, before the sleep), at the device 150-300, woken at 302 */
  tb_block(t, TB_INSERT, 100 * US, 0, A, DEV, 1000, 4096);
  tb_next_stack(t, "schedule,io_schedule,folio_wait_bit_common,filemap_read|read");
  sw(t, 102, 0, A, "D", IDLE);
  tb_block(t, TB_ISSUE, 150 * US, 2, IDLE, DEV, 1000, 4096);
  tb_block(t, TB_COMPLETE, 300 * US, 2, IDLE, DEV, 1000, 4096);
  tb_next_stack(t, "try_to_wake_up,wake_page_function,__wake_up_common,folio_wake_bit,filemap_end_read,"
                   "mpage_read_end_io,bio_endio,blk_update_request,blk_mq_end_request,virtblk_done,vring_interrupt");
  tb_waking(t, 302 * US, 2, IDLE, A, 0);
  sw(t, 310, 0, IDLE, "R", A);
  /* hardware: a select woken from an interrupt that hit B at 450 */
  tb_next_stack(t, "schedule,schedule_hrtimeout_range,do_select|select");
  sw(t, 400, 0, A, "S", IDLE);
  tb_next_stack(t, "try_to_wake_up,pollwake,__wake_up_common,handle_irq_event,handle_edge_irq,common_interrupt,"
                   "asm_common_interrupt|compute");
  tb_waking(t, 450 * US, 1, B, A, 0);
  sw(t, 460, 0, IDLE, "R", A);
  /* preempted by C 500-600: C is on no path of A's, contention */
  sw(t, 500, 0, A, "R+", C);
  sw(t, 600, 0, C, "S", A);
  /* misc kernel: a D sleep with nothing recorded 700-800 (its wakeup lost: guessed) */
  tb_next_stack(t, "schedule,rwsem_down_write_slowpath|mkdir");
  sw(t, 700, 0, A, "D", IDLE);
  sw(t, 800, 0, IDLE, "R", A);
  /* unaccounted: an S sleep with nothing recorded 850-900 */
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 850, 0, A, "S", IDLE);
  sw(t, 900, 0, IDLE, "R", A);
  /* timed out: nanosleep 950-1050, runnable until 1060 */
  tb_next_stack(t, "schedule,do_nanosleep,hrtimer_nanosleep|clock_nanosleep");
  sw(t, 950, 0, A, "S", IDLE);
  tb_next_stack(t, TIMER_WAKE);
  tb_waking(t, 1050 * US, 0, IDLE, A, 0);
  sw(t, 1060, 0, IDLE, "R", A);
  sw(t, 1100, 0, A, "S", IDLE);
  sw(t, 1100, 1, B, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0);
  const rsp_category want[] = { RSP_CAT_BLOCKING_IO, RSP_CAT_HARDWARE, RSP_CAT_INVOLUNTARY, RSP_CAT_MISC_KERNEL,
                                RSP_CAT_UNACCOUNTED, RSP_CAT_TIMED_OUT };
  CHECK_EQ(rsp_model_task(m, a)->n_sleeps, 6);
  for (uint32_t i = 0; i < 6 && i < rsp_model_task(m, a)->n_sleeps; i++)
    CHECK_EQ(rsp_category_of_sleep(m, rsp_model_task_sleep(m, a, i)), want[i]);

  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_elem_id ds = ELEM(p, RSP_ELEM_SLEEP, A, 102, 310);
  rsp_elem_id d = ELEM(p, RSP_ELEM_DISK, A, 102, 300);
  CHECK_EQ(el(p, d)->parent, ds);
  CHECK_EQ(el(p, d)->id, 0);
  CHECK_EQ(rsp_paths_n_paths(p), 1);
  CHECK_EQ(rsp_paths_n_processes(p), 1);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.wall_ns, 1050 * US);
  CHECK_EQ(c.total_ns, 1050 * US);
  CHECK_EQ(c.ns[RSP_CAT_UNDERSTOOD], 52 * US);
  CHECK_EQ(c.ns[RSP_CAT_IO_QUEUE], 48 * US);
  CHECK_EQ(c.ns[RSP_CAT_BLOCKING_IO], 152 * US); /* device 150-300, then 300-302 until the wakeup */
  CHECK_EQ(c.ns[RSP_CAT_SCHEDULER], (8 + 10 + 10) * US);
  CHECK_EQ(c.ns[RSP_CAT_HARDWARE], 50 * US);
  CHECK_EQ(c.ns[RSP_CAT_INVOLUNTARY], 0);
  CHECK_EQ(c.ns[RSP_CAT_CONTENTION], 100 * US);
  CHECK_EQ(c.ns[RSP_CAT_PREEMPTED_BY_PATH], 0);
  CHECK_EQ(c.n_preemptors, 1);
  CHECK_EQ(c.top_preemptors[0].task, find_task(m, C, 0));
  CHECK_EQ(c.top_preemptors[0].ns, 100 * US);
  CHECK(!c.top_preemptors[0].on_path);
  CHECK_EQ(c.ns[RSP_CAT_MISC_KERNEL], 100 * US);
  /* the D sleep's wakeup was lost: its misc kernel time is a guess; the S sleep's is unaccounted */
  CHECK_EQ(c.guessed_ns[RSP_CAT_MISC_KERNEL], 100 * US);
  CHECK_EQ(c.guessed_total_ns, 100 * US);
  CHECK_EQ(c.accounted_ns, (1050 - 50 - 100) * US);
  CHECK_EQ(c.ns[RSP_CAT_UNACCOUNTED], 50 * US);
  CHECK_EQ(c.ns[RSP_CAT_TIMED_OUT], 100 * US);
  CHECK_EQ(c.ns[RSP_CAT_UNSAMPLED], (90 + 40 + 100 + 50 + 50 + 40) * US);
  CHECK_EQ(c.ns[RSP_CAT_OTHER_PATH], 0);
  CHECK_EQ(c.ns[RSP_CAT_NETWORK], 0);
  check_sum(&c);
  /* a range: [300, 500) */
  rsp_paths_options o = { .range_start = 300 * US, .range_end = 500 * US };
  rsp_paths *r = rsp_paths_build(m, A, &o, NULL);
  rsp_categories_compute(r, &c);
  CHECK_EQ(c.total_ns, 200 * US);
  CHECK_EQ(c.ns[RSP_CAT_BLOCKING_IO], 2 * US);
  CHECK_EQ(c.ns[RSP_CAT_HARDWARE], 50 * US);
  check_sum(&c);
  rsp_paths_free(r);
  for (int k = 0; k < RSP_N_CATEGORIES; k++)
    CHECK(rsp_category_key(k) && *rsp_category_label(k));
  CHECK_STR(rsp_category_key(RSP_CAT_BLOCKING_IO), "blocking_io");
  rsp_paths_free(p);
  rsp_model_free(m);
}


/* The same fsync with the worker going on past A's wake (dd conv=fsync: the writeback kworker runs on for ms): K runs
 * 305-900 and wakes A at 690; A runs 705-800. K's chain does not fit A's wait, so it is a path of its own, starting
 * with K's work at 305: its idle wait in worker_thread before (200-305, ended by the interrupt) did nothing for A,
 * whose own request explains its wait. Total = A 50-800 (750) + K 305-900 (595); no hardware wait. */
static void test_worker_beyond_wait(void)
{
  enum { DEV = 8 << 20, K = 400 };
  tb *t = tb_new(false);
  tb_comm(t, 0, 0, K, "kworker/u8:3", false);
  idle_worker(t, K);
  sw(t, 50, 0, IDLE, "R", A);
  tb_block(t, TB_INSERT, 100 * US, 0, A, DEV, 1000, 4096);
  tb_block(t, TB_ISSUE, 150 * US, 0, A, DEV, 1000, 4096);
  fsync_sleep(t, 200, "D");
  tb_block(t, TB_COMPLETE, 300 * US, 2, IDLE, DEV, 1000, 4096);
  irq_wakes_worker(t, 301, K);
  sw(t, 305, 1, IDLE, "R", K);
  tb_waking(t, 690 * US, 1, K, A, 0);
  sw(t, 705, 0, IDLE, "R", A);
  sw(t, 800, 0, A, "S", IDLE);
  sw(t, 900, 1, K, "I", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_elem_id as = ELEM(p, RSP_ELEM_SLEEP, A, 200, 705);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_DISK, A, 200, 300))->parent, as);
  rsp_elem_id kr = ELEM(p, RSP_ELEM_RUN, K, 305, 900);
  CHECK_EQ(el(p, kr)->depth, 0);
  CHECK(el(p, kr)->path != el(p, as)->path);
  bool k_sleep = false;
  for (rsp_elem_id i = 0; i < rsp_paths_n_elems(p); i++)
    k_sleep |= el(p, i)->kind == RSP_ELEM_SLEEP && rsp_model_task(m, el(p, i)->task)->tid == K;
  CHECK(!k_sleep);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.total_ns, (750 + 595) * US);
  CHECK_EQ(c.ns[RSP_CAT_HARDWARE], 0);
  CHECK_EQ(c.ns[RSP_CAT_BLOCKING_IO], 100 * US);
  check_sum(&c);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* fsync: A writes (its own request, inserted 100, issued 150) and sleeps in D at 200; the request
 * completes at 300 and the interrupt wakes a worker K (at 301: no bio_endio on the stack, the model
 * links nothing), which runs 305-700 and wakes A (690, too long after the completion for the model to
 * take it as the cause); A runs at 705. A's own request is its sleep's
 * child beside K's chain, and explains 200-300 (blocking I/O) though K's sleep covers it too. */
static void test_own_disk_through_worker(void)
{
  enum { DEV = 8 << 20, K = 400 };
  tb *t = tb_new(false);
  idle_worker(t, K);
  sw(t, 50, 0, IDLE, "R", A);
  tb_block(t, TB_INSERT, 100 * US, 0, A, DEV, 1000, 4096);
  tb_block(t, TB_ISSUE, 150 * US, 0, A, DEV, 1000, 4096);
  fsync_sleep(t, 200, "D");
  tb_block(t, TB_COMPLETE, 300 * US, 2, IDLE, DEV, 1000, 4096);
  irq_wakes_worker(t, 301, K);
  sw(t, 305, 1, IDLE, "R", K);
  tb_waking(t, 690 * US, 1, K, A, 0);
  sw(t, 700, 1, K, "I", IDLE);
  sw(t, 705, 0, IDLE, "R", A);
  sw(t, 800, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0);
  const rsp_sleep *as_ = rsp_model_sleep(m, rsp_model_task_sleep(m, a, 0));
  CHECK_EQ(as_->end_cause, RSP_SLEEP_END_WOKEN);
  CHECK_EQ(as_->disk_op, RSP_NO_ID);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_elem_id as = ELEM(p, RSP_ELEM_SLEEP, A, 200, 705);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_DISK, A, 200, 300))->parent, as);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_SLEEP, K, 200, 305))->parent, as);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_RUN, K, 305, 700))->parent, as);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.total_ns, 750 * US);
  CHECK_EQ(c.ns[RSP_CAT_BLOCKING_IO], 100 * US);
  CHECK_EQ(c.ns[RSP_CAT_HARDWARE], 1 * US);     /* K's wait, 300-301 */
  CHECK_EQ(c.ns[RSP_CAT_SCHEDULER], (4 + 5) * US); /* K 301-305, A 700-705 */
  CHECK_EQ(c.ns[RSP_CAT_UNSAMPLED], (150 + 395 + 95) * US);
  check_sum(&c);
  rsp_wait_sites *ws = rsp_wait_sites_compute(p);
  const rsp_wait_site *w = find_site(ws, "fsync ([unknown])");
  CHECK(w != NULL);
  if (w) { /* the fsync's site: none of its own time is the disk's, but its child, 200-300, is */
    CHECK_EQ(w->by_cat[RSP_CAT_BLOCKING_IO] + w->by_cat[RSP_CAT_IO_QUEUE], 0);
    CHECK_EQ(w->disk_ns, 100 * US);
  }
  rsp_wait_sites_free(ws);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* The same fsync waiting on two of its own requests (100-300 and 110-350, issued 150 and 160), woken by the worker
 * K at 400: the wait site's disk time is their union inside the sleep, 200-350, what the categories count as blocking
 * I/O (the explanation names the site where the process waited longest for the disk by it). */
static void test_wait_site_disk_children(void)
{
  enum { DEV = 8 << 20, K = 400 };
  tb *t = tb_new(false);
  idle_worker(t, K);
  sw(t, 50, 0, IDLE, "R", A);
  tb_block(t, TB_INSERT, 100 * US, 0, A, DEV, 1000, 4096);
  tb_block(t, TB_INSERT, 110 * US, 0, A, DEV, 2000, 4096);
  tb_block(t, TB_ISSUE, 150 * US, 0, A, DEV, 1000, 4096);
  tb_block(t, TB_ISSUE, 160 * US, 0, A, DEV, 2000, 4096);
  fsync_sleep(t, 200, "S");
  tb_block(t, TB_COMPLETE, 300 * US, 2, IDLE, DEV, 1000, 4096);
  tb_block(t, TB_COMPLETE, 350 * US, 2, IDLE, DEV, 2000, 4096);
  irq_wakes_worker(t, 351, K);
  sw(t, 355, 1, IDLE, "R", K);
  tb_waking(t, 390 * US, 1, K, A, 0);
  sw(t, 395, 1, K, "I", IDLE);
  sw(t, 400, 0, IDLE, "R", A);
  sw(t, 500, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_elem_id as = ELEM(p, RSP_ELEM_SLEEP, A, 200, 400);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_DISK, A, 200, 300))->parent, as);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_DISK, A, 200, 350))->parent, as);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.ns[RSP_CAT_BLOCKING_IO] + c.ns[RSP_CAT_IO_QUEUE], 150 * US);
  rsp_wait_sites *ws = rsp_wait_sites_compute(p);
  const rsp_wait_site *w = find_site(ws, "fsync ([unknown])");
  CHECK(w != NULL);
  if (w) {
    CHECK_EQ(w->count, 1);
    CHECK_EQ(w->by_cat[RSP_CAT_BLOCKING_IO] + w->by_cat[RSP_CAT_IO_QUEUE], 0);
    CHECK_EQ(w->disk_ns, 150 * US);
    CHECK_EQ(w->disk_task, find_task(m, A, 0));
  }
  rsp_wait_sites_free(ws);
  rsp_paths_free(p);
  rsp_model_free(m);
}

#define SK1 0xffff888001000000ull
#define SK2 0xffff888002000000ull

/* Network: A sends a request on SK1 (110) and sleeps 120-310 until the reply's data from an
 * interrupt (301): a peer outside the recording, the NET operation [110, 301] is the sleep's child.
 * Then A sends to B over loopback (320): B, blocked in recv on SK2 since 60, is woken from A's own
 * run (322): for B the peer is inside the recording, and A's work is the child of B's sleep. */
static void test_network(void)
{
  tb *t = tb_new(false);
  static const uint8_t addr[4] = { 10, 0, 0, 2 };
  sw(t, 40, 0, IDLE, "R", A);
  sw(t, 40, 1, IDLE, "R", B);
  tb_sock(t, TB_RECV, 50 * US, 1, B, SK2);
  tb_next_stack(t, "schedule,schedule_timeout,sk_wait_data,tcp_recvmsg|recv");
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
  tb_sock(t, TB_SEND, 320 * US, 0, A, SK1);
  tb_sock(t, TB_DATA_READY, 321 * US, 0, A, SK2);
  tb_next_stack(t, "try_to_wake_up,sock_def_readable,tcp_data_queue,net_rx_action,handle_softirqs,do_softirq,"
                   "__local_bh_enable_ip,__dev_queue_xmit,tcp_sendmsg|send");
  tb_waking(t, 322 * US, 0, A, B, 1);
  sw(t, 330, 1, IDLE, "R", B);
  tb_sock(t, TB_RECV, 331 * US, 1, B, SK2);
  sw(t, 340, 1, B, "S", IDLE);
  sw(t, 350, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0), b = find_task(m, B, 0);
  CHECK_EQ(rsp_model_sleep(m, rsp_model_task_sleep(m, a, 0))->end_cause, RSP_SLEEP_END_NETWORK);
  CHECK_EQ(rsp_model_sleep(m, rsp_model_task_sleep(m, b, 0))->end_cause, RSP_SLEEP_END_NETWORK);
  CHECK_EQ(rsp_category_of_sleep(m, rsp_model_task_sleep(m, a, 0)), RSP_CAT_NETWORK);   /* peer outside */
  CHECK_EQ(rsp_category_of_sleep(m, rsp_model_task_sleep(m, b, 0)), RSP_CAT_OTHER_PATH); /* peer: A */

  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_elem_id as = ELEM(p, RSP_ELEM_SLEEP, A, 120, 310);
  rsp_elem_id net = ELEM(p, RSP_ELEM_NET, A, 120, 301);
  CHECK_EQ(el(p, net)->parent, as);
  CHECK_EQ(rsp_paths_n_elems(p), 4);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.total_ns, 310 * US);
  CHECK_EQ(c.ns[RSP_CAT_NETWORK], 181 * US);
  CHECK_EQ(c.ns[RSP_CAT_SCHEDULER], 9 * US);
  CHECK_EQ(c.ns[RSP_CAT_UNSAMPLED], (80 + 40) * US);
  check_sum(&c);
  rsp_paths_free(p);

  /* B: A's timeline from its run at 40 (within the tolerance of B's sleep at 60) to its run that
   * woke B, with A's own network wait inside */
  p = rsp_paths_build(m, B, NULL, NULL);
  rsp_elem_id bs = ELEM(p, RSP_ELEM_SLEEP, B, 60, 330);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_RUN, A, 40, 120))->parent, bs);
  rsp_elem_id as2 = ELEM(p, RSP_ELEM_SLEEP, A, 120, 310);
  CHECK_EQ(el(p, as2)->parent, bs);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_RUN, A, 310, 350))->parent, bs);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_NET, A, 120, 301))->parent, as2);
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.total_ns, 300 * US);
  CHECK_EQ(c.ns[RSP_CAT_NETWORK], 181 * US);
  CHECK_EQ(c.ns[RSP_CAT_SCHEDULER], 9 * US);
  CHECK_EQ(c.ns[RSP_CAT_UNSAMPLED], (20 + 60 + 20 + 10) * US);
  check_sum(&c);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* Parallel children (make -j2): A forks B at 105 and C at 110 and waits. B runs on cpu 1 from 106
 * to its exit at 500; C on cpu 0 from 125 to its exit at 300. C wakes A's first wait (120-305): C's
 * run fits, it is that sleep's child. B wakes A's second wait (320-510): B's run began 214 us before
 * that wait, so its part from 320 is the child and its part before, 106-320, ran in parallel with
 * A's path: a control path of its own (paper, "Total time": parallelism counted), not dropped as a
 * triangle's earlier part would be. Total = wall 420 + 214. */
static void test_parallel_children(void)
{
  tb *t = tb_new(false);
  sw(t, 100, 0, IDLE, "R", A);
  tb_fork(t, 105 * US, 0, A, B);
  sw(t, 106, 1, IDLE, "R", B);
  tb_fork(t, 110 * US, 0, A, C);
  sw(t, 120, 0, A, "S", IDLE);
  sw(t, 125, 0, IDLE, "R", C);
  tb_waking(t, 300 * US, 0, C, A, 0);
  tb_exit(t, 300 * US, 0, C);
  sw(t, 300, 0, C, "X", IDLE);
  sw(t, 305, 0, IDLE, "R", A);
  sw(t, 320, 0, A, "S", IDLE);
  tb_waking(t, 500 * US, 1, B, A, 0);
  tb_exit(t, 500 * US, 1, B);
  sw(t, 500, 1, B, "X", IDLE);
  sw(t, 510, 0, IDLE, "R", A);
  sw(t, 520, 0, A, "X", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  CHECK_EQ(rsp_paths_n_paths(p), 2);
  rsp_elem_id s1 = ELEM(p, RSP_ELEM_SLEEP, A, 120, 305);
  rsp_elem_id s2 = ELEM(p, RSP_ELEM_SLEEP, A, 320, 510);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_RUN, C, 125, 300))->parent, s1);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_RUN, B, 320, 500))->parent, s2);
  rsp_elem_id early = ELEM(p, RSP_ELEM_RUN, B, 106, 320);
  CHECK_EQ(el(p, early)->path, 1);
  CHECK_EQ(el(p, early)->depth, 0);
  CHECK_EQ(rsp_paths_path(p, 1)->parent_path, 0);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.wall_ns, 420 * US);
  CHECK_EQ(c.total_ns, (420 + 214) * US);
  CHECK_EQ(c.n_paths, 2);
  check_sum(&c);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* A server's work the process of interest asked for, done while it still ran (pgbench's thread handing
 * a query to a backend, then handling another connection): A wakes server B at 110 and runs on to
 * 200, then waits; B computes 115-400 and wakes A at 390. B's part from 200 is the child of A's
 * wait; its part 115-200 was asked for by A and ran beside A's path: a control path of its own,
 * as a forked child's would be. Total = wall 400 + 85. The same stream with the server woken at
 * 110 by an unrelated task U instead: its work before A's wait is U's business, on no path. */
static void test_requested_in_parallel(void)
{
  for (int by_interest = 1; by_interest >= 0; by_interest--) {
    const int32_t U = C;
    tb *t = tb_new(false);
    sw(t, 0, 1, IDLE, "R", B);
    sw(t, 40, 1, B, "S", IDLE);
    sw(t, 50, 2, IDLE, "R", U);
    sw(t, 100, 0, IDLE, "R", A);
    if (by_interest)
      tb_waking(t, 110 * US, 0, A, B, 1);
    else
      tb_waking(t, 110 * US, 2, U, B, 1);
    sw(t, 115, 1, IDLE, "R", B);
    sw(t, 150, 2, U, "S", IDLE);
    sw(t, 200, 0, A, "S", IDLE);
    tb_waking(t, 390 * US, 1, B, A, 0);
    sw(t, 400, 1, B, "S", IDLE);
    sw(t, 410, 0, IDLE, "R", A);
    sw(t, 500, 0, A, "S", IDLE);
    rsp_model *m = tb_finish(t);
    rsp_paths_options o = { .tolerance_set = true }; /* no tolerance: B's run begun 85 us early is cut */
    rsp_paths *p = rsp_paths_build(m, A, &o, NULL);
    rsp_elem_id as = ELEM(p, RSP_ELEM_SLEEP, A, 200, 410);
    rsp_elem_id br = ELEM(p, RSP_ELEM_RUN, B, 200, 400);
    CHECK_EQ(el(p, br)->parent, as);
    CHECK_EQ(el(p, br)->flags, RSP_ELEM_CUT);
    rsp_categories c;
    rsp_categories_compute(p, &c);
    CHECK_EQ(c.wall_ns, 400 * US);
    if (by_interest) {
      CHECK_EQ(rsp_paths_n_paths(p), 2);
      rsp_elem_id early = ELEM(p, RSP_ELEM_RUN, B, 115, 200);
      CHECK_EQ(el(p, early)->path, 1);
      CHECK_EQ(el(p, early)->depth, 0);
      CHECK_EQ(rsp_paths_path(p, 1)->parent_path, 0);
      CHECK_EQ(c.total_ns, (400 + 85) * US);
    } else {
      CHECK_EQ(rsp_paths_n_paths(p), 1);
      CHECK_EQ(c.total_ns, 400 * US);
      CHECK_EQ(rsp_paths_n_elems(p), 3 + 1); /* A's run, wait and run; B's cut run */
    }
    check_sum(&c);
    rsp_paths_free(p);
    rsp_model_free(m);
  }
}

/* Work the paths asked of a server on them that nobody waited for (a backend answering one connection
 * of a pgbench thread while the thread handles the other, the answer read later without a wait). A and B
 * talk over loopback TCP (A's SKA 40000 -> 5432, B's SKB 5432 -> 40000). A sends B a request at 28 and
 * waits 40-60; B runs 35-55 and its reply wakes A: B's run is on A's path, its part 35-40 on a parallel
 * one (requested_in_parallel). A sends again at 108 and runs on to 200 without waiting; B computes
 * 115-150 and replies at 145 (A reads it at 160): that stretch is a control path of its own. Total =
 * wall 190 + 5 + 35. A's third request (180) B handles 185-190 without replying: not asked-for work
 * that answered anybody, on no path; nor is 115-150 when B does not reply at 145. */
#define SKA 0xffff888003000000ull
#define SKB 0xffff888004000000ull
static void test_requested_not_waited(void)
{
  static const uint8_t lo[4] = { 127, 0, 0, 1 };
  for (int reply = 1; reply >= 0; reply--) {
    tb *t = tb_new(false);
    sw(t, 0, 1, IDLE, "R", B);
    tb_sock_state(t, 1 * US, 1, B, SKB, 5432, 40000, lo);
    tb_sock(t, TB_RECV, 2 * US, 1, B, SKB);
    sw(t, 5, 1, B, "S", IDLE);
    sw(t, 10, 0, IDLE, "R", A);
    tb_sock_state(t, 11 * US, 0, A, SKA, 40000, 5432, lo);
    tb_sock(t, TB_SEND, 28 * US, 0, A, SKA);
    tb_sock(t, TB_DATA_READY, 29 * US, 0, A, SKB);
    tb_waking(t, 30 * US, 0, A, B, 1);
    sw(t, 35, 1, IDLE, "R", B);
    tb_sock(t, TB_RECV, 36 * US, 1, B, SKB);
    sw(t, 40, 0, A, "S", IDLE);
    tb_sock(t, TB_SEND, 48 * US, 1, B, SKB);
    tb_sock(t, TB_DATA_READY, 49 * US, 1, B, SKA);
    tb_waking(t, 50 * US, 1, B, A, 0);
    sw(t, 55, 1, B, "S", IDLE);
    sw(t, 60, 0, IDLE, "R", A);
    tb_sock(t, TB_RECV, 61 * US, 0, A, SKA);
    tb_sock(t, TB_SEND, 108 * US, 0, A, SKA);
    tb_sock(t, TB_DATA_READY, 109 * US, 0, A, SKB);
    tb_waking(t, 110 * US, 0, A, B, 1);
    sw(t, 115, 1, IDLE, "R", B);
    tb_sock(t, TB_RECV, 116 * US, 1, B, SKB);
    if (reply) {
      tb_sock(t, TB_SEND, 145 * US, 1, B, SKB);
      tb_sock(t, TB_DATA_READY, 146 * US, 1, B, SKA);
    }
    sw(t, 150, 1, B, "S", IDLE);
    tb_sock(t, TB_RECV, 160 * US, 0, A, SKA);
    tb_sock(t, TB_SEND, 180 * US, 0, A, SKA);
    tb_sock(t, TB_DATA_READY, 181 * US, 0, A, SKB);
    tb_waking(t, 182 * US, 0, A, B, 1);
    sw(t, 185, 1, IDLE, "R", B);
    tb_sock(t, TB_RECV, 186 * US, 1, B, SKB);
    sw(t, 190, 1, B, "S", IDLE);
    sw(t, 200, 0, A, "S", IDLE);
    rsp_model *m = tb_finish(t);
    rsp_paths_options o = { .tolerance_set = true };
    rsp_paths *p = rsp_paths_build(m, A, &o, NULL);
    CHECK_EQ(rsp_paths_n_paths(p), reply ? 3 : 2);
    CHECK_EQ(el(p, ELEM(p, RSP_ELEM_RUN, B, 40, 55))->parent, ELEM(p, RSP_ELEM_SLEEP, A, 40, 60));
    const rsp_path_elem *early = el(p, ELEM(p, RSP_ELEM_RUN, B, 35, 40));
    CHECK_EQ(early->depth, 0);
    if (reply) {
      const rsp_path_elem *later = el(p, ELEM(p, RSP_ELEM_RUN, B, 115, 150));
      CHECK(early->path != later->path);
      CHECK_EQ(later->depth, 0);
      CHECK_EQ(rsp_paths_path(p, later->path)->parent_path, 0);
    }
    /* A's run, wait, run; B's runs 35-40, 40-55 (and 115-150) */
    CHECK_EQ(rsp_paths_n_elems(p), 3 + 2 + (reply ? 1 : 0));
    rsp_categories c;
    rsp_categories_compute(p, &c);
    CHECK_EQ(c.wall_ns, 190 * US);
    CHECK_EQ(c.total_ns, (190 + 5 + (reply ? 35 : 0)) * US);
    check_sum(&c);
    rsp_paths_free(p);
    rsp_model_free(m);
  }
}

/* The waker did not exist when the sleep began (issue: dovecot's IMAP login). Client K polls from 100;
 * auth W computes 150-600 and wakes imap-login L; L wakes the master M; M forks imap I at 690; I wakes K
 * at 899. The chain goes from I back through the fork into M (its forking run up to the fork), and
 * from M's wait to L and from L's to W: auth's computing is on the client's path. */
static void test_waker_forked_during_wait(void)
{
  enum { K = 100, W = 300, L = 400, M = 500, I = 600 };
  tb *t = tb_new(false);
  sw(t, 300, 3, IDLE, "R", M);
  sw(t, 400, 1, IDLE, "R", W);
  sw(t, 400, 2, IDLE, "R", L);
  sw(t, 500, 0, IDLE, "R", K);
  sw(t, 500, 1, W, "S", IDLE);
  sw(t, 500, 2, L, "S", IDLE);
  sw(t, 500, 3, M, "S", IDLE);
  tb_next_stack(t, "schedule,do_sys_poll|poll");
  sw(t, 1000, 0, K, "S", IDLE);
  tb_waking(t, 1450 * US, 1, IDLE, W, 1); /* an interrupt */
  sw(t, 1500, 1, IDLE, "R", W);
  tb_waking(t, 5990 * US, 1, W, L, 2);
  sw(t, 6000, 1, W, "S", IDLE);
  sw(t, 6100, 2, IDLE, "R", L);
  tb_waking(t, 6450 * US, 2, L, M, 2);
  sw(t, 6500, 2, L, "S", IDLE);
  sw(t, 6600, 2, IDLE, "R", M);
  tb_fork(t, 6900 * US, 2, M, I);
  sw(t, 7000, 2, M, "S", IDLE);
  sw(t, 7000, 3, IDLE, "R", I);
  tb_waking(t, 8990 * US, 3, I, K, 0);
  tb_exit(t, 9000 * US, 3, I);
  sw(t, 9000, 3, I, "X", IDLE);
  sw(t, 9100, 0, IDLE, "R", K);
  sw(t, 10000, 0, K, "X", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, K, NULL, NULL);
  rsp_elem_id ks = ELEM(p, RSP_ELEM_SLEEP, K, 1000, 9100);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_RUN, I, 7000, 9000))->parent, ks);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_RUN, M, 6600, 6900))->parent, ks); /* up to the fork */
  rsp_elem_id ms = ELEM(p, RSP_ELEM_SLEEP, M, 1000, 6600);
  CHECK_EQ(el(p, ms)->parent, ks);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_RUN, L, 6100, 6500))->parent, ms);
  rsp_elem_id ls = ELEM(p, RSP_ELEM_SLEEP, L, 1000, 6100);
  CHECK_EQ(el(p, ls)->parent, ms);
  rsp_elem_id wr = ELEM(p, RSP_ELEM_RUN, W, 1500, 6000);
  CHECK_EQ(el(p, wr)->parent, ls);
  CHECK_EQ(el(p, wr)->depth, 3);
  CHECK_EQ(el(p, wr)->path, 0);
  CHECK_EQ(rsp_paths_n_processes(p), 5);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* The issue's case: a 200 ms nanosleep ended by its timer, a 10 us run, then a 54 us preemption in
 * the same syscall (the same stack). A preemption is no timed-out poll: two sleeps, not one ended
 * "involuntarily". A runs 100-110, sleeps 110-200110 (timer at 200110, switch-in at 200115), runs
 * to 200125, is preempted by B until 200179, runs to 200300. */
static void test_sleep_then_preemption(void)
{
  static const char *const NANO = "schedule,do_nanosleep,hrtimer_nanosleep|clock_nanosleep";
  tb *t = tb_new(false);
  sw(t, 100, 0, IDLE, "R", A);
  tb_next_stack(t, NANO);
  sw(t, 110, 0, A, "S", IDLE);
  tb_next_stack(t, TIMER_WAKE);
  tb_waking(t, 200110 * US, 0, IDLE, A, 0);
  sw(t, 200115, 0, IDLE, "R", A);
  tb_next_stack(t, NANO);
  sw(t, 200125, 0, A, "R", B);
  sw(t, 200179, 0, B, "S", A);
  sw(t, 200300, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_elem_id nano = ELEM(p, RSP_ELEM_SLEEP, A, 110, 200115);
  rsp_elem_id pre = ELEM(p, RSP_ELEM_SLEEP, A, 200125, 200179);
  CHECK_EQ(el(p, nano)->n_merged, 1);
  CHECK_EQ(el(p, pre)->n_merged, 1);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.total_ns, 200200 * US);
  CHECK_EQ(c.ns[RSP_CAT_TIMED_OUT], 200000 * US);
  CHECK_EQ(c.ns[RSP_CAT_SCHEDULER], 5 * US);
  /* B (not on A's paths) ran on A's cpu all 54 us of the preemption */
  CHECK_EQ(c.ns[RSP_CAT_CONTENTION], 54 * US);
  CHECK_EQ(c.ns[RSP_CAT_INVOLUNTARY], 0);
  CHECK_EQ(c.ns[RSP_CAT_UNSAMPLED], (10 + 10 + 121) * US);
  check_sum(&c);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* Issue 15, item 3: who ran on the cpu while A was preempted. cpu 0: A runs 100-200 (a sample at
 * 150), wakes B onto cpu 0 at 190 and is preempted by it at 200 (R+); B runs 200-260 and sleeps;
 * C (another process, never on A's paths) runs 260-300 and sleeps; the cpu is idle 300-320; A runs
 * 320-400 and sleeps in read. cpu 1: an interrupt wakes B at 445; B runs 450-490, wakes A at 480
 * (so B's run is the child of A's read, and B is on A's paths) and sleeps; A runs 500-600.
 * Truth: A's preempted sleep [200, 320): 60 us behind B (on the paths), 40 us behind C (contention),
 * 20 us with nothing else on cpu 0 (involuntary). A's read [400, 500): B's wait, cut to 400-450, is
 * its waker's part (the chain): waiting for the interrupt until 445 (hardware), runnable 445-450
 * (scheduler); B's run 450-490 (unsampled), A runnable 490-500 (scheduler). A's runs: 100 us
 * understood, 80 + 100 unsampled. Nothing is guessed. */
static void test_preemptors(void)
{
  tb *t = tb_new(false);
  sw(t, 100, 0, IDLE, "R", A);
  tb_sample(t, 150 * US, 0, A);
  tb_waking(t, 190 * US, 0, A, B, 0);
  sw(t, 200, 0, A, "R+", B);
  sw(t, 260, 0, B, "S", C);
  sw(t, 300, 0, C, "S", IDLE);
  sw(t, 320, 0, IDLE, "R", A);
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 400, 0, A, "S", IDLE);
  tb_waking(t, 445 * US, 1, IDLE, B, 1);
  sw(t, 450, 1, IDLE, "R", B);
  tb_waking(t, 480 * US, 1, B, A, 0);
  sw(t, 490, 1, B, "S", IDLE);
  sw(t, 500, 0, IDLE, "R", A);
  sw(t, 600, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  CHECK(p != NULL);
  rsp_elem_id rd = ELEM(p, RSP_ELEM_SLEEP, A, 400, 500);
  rsp_elem_id br = ELEM(p, RSP_ELEM_RUN, B, 450, 490);
  CHECK_EQ(el(p, br)->parent, rd);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.total_ns, 500 * US);
  CHECK_EQ(c.ns[RSP_CAT_PREEMPTED_BY_PATH], 60 * US);
  CHECK_EQ(c.ns[RSP_CAT_CONTENTION], 40 * US);
  CHECK_EQ(c.ns[RSP_CAT_INVOLUNTARY], 20 * US);
  CHECK_EQ(c.ns[RSP_CAT_UNDERSTOOD], 100 * US);
  CHECK_EQ(c.ns[RSP_CAT_UNSAMPLED], (80 + 100 + 40) * US);
  CHECK_EQ(c.ns[RSP_CAT_HARDWARE], 45 * US);
  CHECK_EQ(c.ns[RSP_CAT_SCHEDULER], (5 + 10) * US);
  CHECK_EQ(c.guessed_total_ns, 0);
  CHECK_EQ(c.accounted_ns, 500 * US);
  CHECK_EQ(c.n_preemptors, 2);
  CHECK_EQ(c.top_preemptors[0].task, find_task(m, B, 0));
  CHECK_EQ(c.top_preemptors[0].ns, 60 * US);
  CHECK(c.top_preemptors[0].on_path);
  CHECK_EQ(c.top_preemptors[1].task, find_task(m, C, 0));
  CHECK_EQ(c.top_preemptors[1].ns, 40 * US);
  CHECK(!c.top_preemptors[1].on_path);
  check_sum(&c);
  CHECK_STR(rsp_category_key(RSP_CAT_PREEMPTED_BY_PATH), "preempted_by_path");
  CHECK_STR(rsp_category_key(RSP_CAT_CONTENTION), "contention");
  CHECK_STR(rsp_category_key(RSP_CAT_UNKNOWN_STACK), "unknown_stack");
  uint32_t n_order;
  const rsp_category *order = rsp_category_table_order(&n_order);
  CHECK_EQ(n_order, RSP_N_CATEGORIES);
  unsigned seen = 0;
  for (uint32_t i = 0; i < n_order; i++)
    seen |= 1u << order[i];
  CHECK_EQ(seen, (1u << RSP_N_CATEGORIES) - 1);
  CHECK_EQ(order[n_order - 1], RSP_CAT_UNACCOUNTED);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* A woken task that cannot run at once waits behind what runs on the cpu it then runs on: A sleeps in
 * read 200-400 on cpu 0; C (no process of the paths) runs on cpu 0 250-380; B, on cpu 1, runs 280-320 and
 * wakes A at 300 (target cpu 0). Truth: A's read [200, 400): B not yet running 200-280 (scheduler), B's run
 * 280-320 (its child: unsampled), A runnable 320-400: behind C until 380 (contention, 60), then cpu 0 idle
 * until A's switch-in (scheduler, 20). C, not B, is the preemptor named, with 60 us. Before, all of 320-400
 * was scheduler overhead. A second read 500-700: A's own thread A2 runs on cpu 0 550-690, B runs 580-620
 * and wakes A at 600: 620-690 behind A2 (preempted by the paths, 70), 690-700 scheduler. */
static void test_wakeup_delay_behind_others(void)
{
  tb *t = tb_new(false);
  tb_thread(t, A, A + 1);
  sw(t, 100, 0, IDLE, "R", A);
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 200, 0, A, "S", IDLE);
  sw(t, 250, 0, IDLE, "R", C);
  sw(t, 280, 1, IDLE, "R", B);
  tb_waking(t, 300 * US, 1, B, A, 0);
  sw(t, 320, 1, B, "S", IDLE);
  sw(t, 380, 0, C, "S", IDLE);
  sw(t, 400, 0, IDLE, "R", A);
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 500, 0, A, "S", IDLE);
  sw(t, 550, 0, IDLE, "R", A + 1);
  sw(t, 580, 1, IDLE, "R", B);
  tb_waking(t, 600 * US, 1, B, A, 0);
  sw(t, 620, 1, B, "S", IDLE);
  sw(t, 690, 0, A + 1, "S", IDLE);
  sw(t, 700, 0, IDLE, "R", A);
  sw(t, 750, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  CHECK(p != NULL);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.total_ns, (650 + 140) * US); /* A2's run is the process's too */
  CHECK_EQ(c.ns[RSP_CAT_UNACCOUNTED], 80 * US); /* B's sleep 320-580 under the second read: no wakeup */
  CHECK_EQ(c.ns[RSP_CAT_CONTENTION], 60 * US);
  CHECK_EQ(c.ns[RSP_CAT_PREEMPTED_BY_PATH], 70 * US);
  CHECK_EQ(c.ns[RSP_CAT_SCHEDULER], (80 + 20 + 10) * US);
  CHECK_EQ(c.ns[RSP_CAT_UNSAMPLED], (100 + 40 + 100 + 40 + 50 + 140) * US);
  CHECK_EQ(c.n_preemptors, 2);
  CHECK_EQ(c.top_preemptors[0].task, find_task(m, A + 1, 0));
  CHECK_EQ(c.top_preemptors[0].ns, 70 * US);
  CHECK(c.top_preemptors[0].on_path);
  CHECK_EQ(c.top_preemptors[1].task, find_task(m, C, 0));
  CHECK_EQ(c.top_preemptors[1].ns, 60 * US);
  CHECK(!c.top_preemptors[1].on_path);
  check_sum(&c);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* Issue 15, item 6: time whose cause was guessed. A sleeps in nanosleep 200-300 and its wakeup is not
 * recorded (the timer fired on an idle cpu): the model guesses a timeout from the stack
 * (end_inferred). Then A sleeps in read 400-500, woken by B's run 420-470 on cpu 1 (B woken from an
 * interrupt at 415). Truth: the nanosleep's 100 us are timed out, all guessed; the read's 20 us before B
 * runs are scheduler, B's run 50 us unsampled, 30 us scheduler, none guessed. */
static void test_guessed(void)
{
  tb *t = tb_new(false);
  sw(t, 100, 0, IDLE, "R", A);
  tb_next_stack(t, "schedule,do_nanosleep,hrtimer_nanosleep|clock_nanosleep");
  sw(t, 200, 0, A, "S", IDLE);
  sw(t, 300, 0, IDLE, "R", A);
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 400, 0, A, "S", IDLE);
  tb_waking(t, 415 * US, 1, IDLE, B, 1);
  sw(t, 420, 1, IDLE, "R", B);
  tb_waking(t, 460 * US, 1, B, A, 0);
  sw(t, 470, 1, B, "S", IDLE);
  sw(t, 500, 0, IDLE, "R", A);
  sw(t, 550, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0);
  const rsp_sleep *ns = rsp_model_sleep(m, rsp_model_task_sleep(m, a, 0));
  CHECK(ns->end_inferred);
  CHECK_EQ(ns->end_cause, RSP_SLEEP_END_TIMEOUT);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.total_ns, 450 * US);
  CHECK_EQ(c.ns[RSP_CAT_TIMED_OUT], 100 * US);
  CHECK_EQ(c.guessed_ns[RSP_CAT_TIMED_OUT], 100 * US);
  CHECK_EQ(c.ns[RSP_CAT_SCHEDULER], (20 + 30) * US);
  CHECK_EQ(c.guessed_ns[RSP_CAT_SCHEDULER], 0);
  CHECK_EQ(c.ns[RSP_CAT_UNSAMPLED], (100 + 100 + 50 + 50) * US);
  CHECK_EQ(c.guessed_total_ns, 100 * US);
  CHECK_EQ(c.accounted_ns, 350 * US);
  check_sum(&c);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* wait4's stack, and the start the tests of a parent waiting for its children share: A (cpu 0) and B (cpu 1) run from
 * 100 us, and A waits in wait4 from 110. */
static const char *const WAIT4 = "schedule,do_wait,kernel_wait4|wait4";

static tb *a_waits_in_wait4(void)
{
  tb *t = tb_new(false);
  sw(t, 100, 0, IDLE, "R", A);
  sw(t, 100, 1, IDLE, "R", B);
  tb_next_stack(t, WAIT4);
  sw(t, 110, 0, A, "S", IDLE);
  return t;
}

/* make under make: A waits in wait4 110-1000 for B, which itself waits in wait4 120-900 for C (C runs
 * 130-895, wakes B at 890; B runs 900-995, wakes A at 990). B's chain is the child of A's sleep and C's
 * run the child of B's: the two wait4 sleeps are on the paths at depths 0 and 1, B's inside A's. The
 * site's time is the paths' time in wait4, [110, 1000) = 890 us, not 890 + 780; both sleeps count; both
 * were woken by another task. By category the sleeps' own times are summed, as the categories' total
 * sums paths: A's 110-990 and B's 120-890 waits on another path, 990-1000 and 890-900 scheduler. */
static void test_nested_waits(void)
{
  tb *t = a_waits_in_wait4();
  tb_next_stack(t, WAIT4);
  sw(t, 120, 1, B, "S", IDLE);
  sw(t, 130, 2, IDLE, "R", C);
  tb_waking(t, 890 * US, 2, C, B, 1);
  sw(t, 895, 2, C, "S", IDLE);
  sw(t, 900, 1, IDLE, "R", B);
  tb_waking(t, 990 * US, 1, B, A, 0);
  sw(t, 995, 1, B, "S", IDLE);
  sw(t, 1000, 0, IDLE, "R", A);
  sw(t, 1100, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_elem_id as = ELEM(p, RSP_ELEM_SLEEP, A, 110, 1000);
  rsp_elem_id bs = ELEM(p, RSP_ELEM_SLEEP, B, 120, 900);
  CHECK_EQ(el(p, bs)->parent, as);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_RUN, C, 130, 895))->parent, bs);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.total_ns, 1000 * US);
  rsp_wait_sites *ws = rsp_wait_sites_compute(p);
  CHECK_EQ(rsp_wait_sites_n(ws), 1);
  const rsp_wait_site *w = find_site(ws, "wait4 ([unknown])");
  CHECK(w != NULL);
  if (w) {
    CHECK_EQ(w->count, 2);
    CHECK_EQ(w->total_ns, 890 * US);
    CHECK(w->total_ns <= c.total_ns);
    CHECK_EQ(w->by_end[RSP_SLEEP_END_WOKEN], 890 * US);
    CHECK_EQ(w->by_cat[RSP_CAT_OTHER_PATH], (880 + 770) * US);
    CHECK_EQ(w->by_cat[RSP_CAT_SCHEDULER], (10 + 10) * US);
  }
  rsp_wait_sites_free(ws);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* The consolidated tree with RSP_STACK_TREE_USER_WAITS (the app's): the nested waits above keep their user wait
 * site (wait4) and lose the kernel frames under it; the same time everywhere, a shallower tree. */
static void test_user_waits(void)
{
  tb *t = a_waits_in_wait4();
  tb_next_stack(t, WAIT4);
  sw(t, 120, 1, B, "S", IDLE);
  sw(t, 130, 2, IDLE, "R", C);
  tb_waking(t, 890 * US, 2, C, B, 1);
  sw(t, 895, 2, C, "S", IDLE);
  sw(t, 900, 1, IDLE, "R", B);
  tb_waking(t, 990 * US, 1, B, A, 0);
  sw(t, 995, 1, B, "S", IDLE);
  sw(t, 1000, 0, IDLE, "R", A);
  sw(t, 1100, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_stack_tree *full = rsp_stack_tree_build(p, 0, UINT64_MAX);
  rsp_stack_tree *user = rsp_stack_tree_build_flags(p, 0, UINT64_MAX, RSP_STACK_TREE_USER_WAITS);
  unsigned kernel_full = 0, kernel_user = 0, wait4_user = 0;
  uint64_t roots_full = 0, roots_user = 0;
  for (uint32_t i = 0; i < rsp_stack_tree_n_nodes(full); i++) {
    const rsp_stack_node *n = rsp_stack_tree_node(full, i);
    kernel_full += !strcmp(n->label, "schedule") || !strcmp(n->label, "kernel_wait4");
    roots_full += n->parent == RSP_NO_ID ? n->ns : 0;
  }
  for (uint32_t i = 0; i < rsp_stack_tree_n_nodes(user); i++) {
    const rsp_stack_node *n = rsp_stack_tree_node(user, i);
    kernel_user += !strcmp(n->label, "schedule") || !strcmp(n->label, "kernel_wait4");
    wait4_user += !strcmp(n->label, "wait4");
    roots_user += n->parent == RSP_NO_ID ? n->ns : 0;
    /* a process waited on stands right on the wait site */
    if (n->parent != RSP_NO_ID && (n->kinds & RSP_FRAME_PROCESS) && rsp_stack_tree_node(user, n->parent)->parent != RSP_NO_ID)
      CHECK(!strcmp(rsp_stack_tree_node(user, n->parent)->label, "wait4"));
  }
  CHECK(kernel_full >= 4);
  CHECK_EQ(kernel_user, 0);
  CHECK_EQ(wait4_user, 2);
  CHECK_EQ(roots_user, roots_full);
  CHECK(rsp_stack_tree_max_depth(user) + 6 <= rsp_stack_tree_max_depth(full));
  rsp_stack_tree_free(full);
  rsp_stack_tree_free(user);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* Issue 15, item 6: a guessed end is not a guessed cause. A sleeps in read at 200 (C takes cpu 0 until
 * 280); B, woken from an interrupt on cpu 1 at 215, runs 220-260 and wakes A at 250; A's switch-in is
 * not recorded: its first event on cpu 0 is at 300, where the model starts its run (inferred). Truth:
 * the read [200, 300): B not yet running 200-220 (scheduler), B's run 220-260 (unsampled), A runnable
 * 260-300, behind C on cpu 0 until 280 (contention), then cpu 0 idle (scheduler): only this last part
 * hangs on the inferred switch-in, so 40 us are guessed; the wakeup and B's run are recorded, not
 * guessed. */
static void test_guessed_own_time(void)
{
  tb *t = tb_new(false);
  sw(t, 100, 0, IDLE, "R", A);
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 200, 0, A, "S", C);
  tb_waking(t, 215 * US, 1, IDLE, B, 1);
  sw(t, 220, 1, IDLE, "R", B);
  tb_waking(t, 250 * US, 1, B, A, 0);
  sw(t, 260, 1, B, "S", IDLE);
  sw(t, 280, 0, C, "S", IDLE);
  tb_tracepoint(t, 300 * US, 0, A);
  sw(t, 350, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0);
  CHECK_EQ(rsp_model_task(m, a)->n_runs, 2);
  const rsp_run *r1 = rsp_model_run(m, rsp_model_task_run(m, a, 1));
  CHECK_EQ(r1->start, 300 * US);
  CHECK(r1->flags & RSP_RUN_START_INFERRED);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.total_ns, 250 * US);
  CHECK_EQ(c.ns[RSP_CAT_SCHEDULER], (20 + 20) * US);
  CHECK_EQ(c.ns[RSP_CAT_CONTENTION], 20 * US);
  CHECK_EQ(c.ns[RSP_CAT_UNSAMPLED], (100 + 40 + 50) * US);
  CHECK_EQ(c.guessed_ns[RSP_CAT_SCHEDULER], 20 * US);
  CHECK_EQ(c.guessed_ns[RSP_CAT_CONTENTION], 20 * US);
  CHECK_EQ(c.guessed_total_ns, 40 * US);
  CHECK_EQ(c.accounted_ns, 210 * US);
  check_sum(&c);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* Issue 15, item 6: running time whose samples' stacks name no function. A runs 100-200 with four
 * samples: two in user code at an address no mapping holds ("?"), one in the kernel at an address
 * kallsyms does not hold, one in main; then 300-400 with one sample whose user chain loops (f, then
 * the same unresolved address 20 times, as a broken unwinder gives). Truth: the first run's 100 us
 * shared by its samples: 50 unknown (no map), 25 unknown (kernel), 25 understood; the second run's
 * 100 us unknown (loop). */
static void test_unknown_stacks(void)
{
  tb *t = tb_new(false);
  sw(t, 100, 0, IDLE, "R", A);
  tb_next_stack(t, "|?u1,?u2");
  tb_sample(t, 110 * US, 0, A);
  tb_next_stack(t, "|?u1");
  tb_sample(t, 130 * US, 0, A);
  tb_next_stack(t, "?k1,?k2");
  tb_sample(t, 150 * US, 0, A);
  tb_next_stack(t, "do_syscall_64|main");
  tb_sample(t, 170 * US, 0, A);
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 200, 0, A, "S", IDLE);
  tb_waking(t, 290 * US, 0, IDLE, A, 0);
  sw(t, 300, 0, IDLE, "R", A);
  tb_next_stack(t, "|f,?x,?x,?x,?x,?x,?x,?x,?x,?x,?x,?x,?x,?x,?x,?x,?x,?x,?x,?x,?x");
  tb_sample(t, 350 * US, 0, A);
  sw(t, 400, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.total_ns, 300 * US);
  CHECK_EQ(c.ns[RSP_CAT_UNKNOWN_STACK], (50 + 25 + 100) * US);
  CHECK_EQ(c.unknown_stack_ns[RSP_UNKNOWN_STACK_NO_MAP], 50 * US);
  CHECK_EQ(c.unknown_stack_ns[RSP_UNKNOWN_STACK_KERNEL], 25 * US);
  CHECK_EQ(c.unknown_stack_ns[RSP_UNKNOWN_STACK_LOOP], 100 * US);
  CHECK_EQ(c.unknown_stack_ns[RSP_UNKNOWN_STACK_NO_SYMBOL], 0);
  CHECK_EQ(c.ns[RSP_CAT_UNDERSTOOD], 25 * US);
  CHECK_EQ(c.accounted_ns, 125 * US); /* 25 understood + 100 of the read (90 hardware, 10 scheduler) */
  check_sum(&c);
  /* one stack of each kind, classified on its own */
  rsp_task_id a = find_task(m, A, 0);
  const rsp_run *r0 = rsp_model_run(m, rsp_model_task_run(m, a, 0));
  CHECK_EQ(r0->n_samples, 4);
  if (r0->n_samples == 4) {
    CHECK_EQ(rsp_unknown_stack_classify(m, rsp_model_sample(m, r0->first_sample)->stack), RSP_UNKNOWN_STACK_NO_MAP);
    CHECK_EQ(rsp_unknown_stack_classify(m, rsp_model_sample(m, r0->first_sample + 2)->stack),
             RSP_UNKNOWN_STACK_KERNEL);
    CHECK_EQ(rsp_unknown_stack_classify(m, rsp_model_sample(m, r0->first_sample + 3)->stack),
             RSP_UNKNOWN_STACK_NONE);
  }
  CHECK_EQ(rsp_unknown_stack_classify(m, RSP_NO_ID), RSP_UNKNOWN_STACK_NONE);
  CHECK_STR(rsp_unknown_stack_reason_key(RSP_UNKNOWN_STACK_LOOP), "loop");
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* A wakeup relay 70,000 tasks deep (../shared/robustness/README.md, issue 21): tasks 1..N-1 fall
 * asleep on cpu 1, then on cpu 0 task 0 wakes task 1 and hands it the cpu, which wakes task 2, and so
 * on; the last task is the process of interest. Its sleep nests the whole relay (the depth is bounded
 * at 65,534 levels); categorizing it must not recurse per level, and every nanosecond of its wall time
 * is in one category: sampled runs understood, the relay's unsampled 2 us runs unsampled. */
static void test_deep_relay(void)
{
  enum { N = 70000, BASE = 1000 };
  const uint64_t t0 = 200000;
  tb *t = tb_new(false);
  for (int32_t k = 1; k < N; k++) {
    sw(t, 2 * (uint64_t)k, 1, IDLE, "R", BASE + k);
    tb_next_stack(t, "schedule,pipe_read|read");
    sw(t, 2 * (uint64_t)k + 1, 1, BASE + k, "S", IDLE);
  }
  sw(t, t0, 0, IDLE, "R", BASE);
  for (int32_t k = 1; k < N; k++) {
    tb_waking(t, (t0 + 2 * (uint64_t)k) * US, 0, BASE + k - 1, BASE + k, 0);
    tb_next_stack(t, "schedule,pipe_read|read");
    sw(t, t0 + 2 * (uint64_t)k + 1, 0, BASE + k - 1, "S", BASE + k);
  }
  const uint64_t end = t0 + 2 * (uint64_t)N + 100;
  tb_sample(t, (end - 50) * US, 0, BASE + N - 1);
  sw(t, end, 0, BASE + N - 1, "S", IDLE);
  rsp_model *m = tb_finish(t);

  GError *error = NULL;
  rsp_paths *p = rsp_paths_build(m, BASE + N - 1, NULL, &error);
  CHECK(p != NULL);
  if (p) {
    uint32_t deepest = 0;
    for (rsp_elem_id i = 0; i < rsp_paths_n_elems(p); i++)
      deepest = MAX(deepest, rsp_paths_elem(p, i)->depth);
    CHECK(deepest >= 60000);
    rsp_categories c;
    rsp_categories_compute(p, &c);
    check_sum(&c);
    /* the last task's life (its run on cpu 1, its sleep, its run from its wakeup to END) is the first
     * path; what lies beyond the depth bound is followed as paths of their own */
    const rsp_path *first = rsp_paths_path(p, 0);
    CHECK_EQ(first->start, 2 * (uint64_t)(N - 1) * US);
    CHECK_EQ(first->end, end * US);
    CHECK(c.total_ns >= first->end - first->start);
    CHECK_EQ(c.ns[RSP_CAT_UNDERSTOOD], (end - (t0 + 2 * (uint64_t)(N - 1) + 1)) * US);
    rsp_paths_free(p);
  }
  g_clear_error(&error);
  rsp_model_free(m);
}

/* Poll loops on a loaded machine: between 100 ms timed-out polls A's processing takes 300 us (more
 * than the paper's 100 us gap) and is once preempted by C; it wakes nobody, so the polls are one wait,
 * ended by B's wakeup, with B's run under it (curl polling with a 1 s timeout while php-fpm computes).
 * A later loop whose processing wakes C (not trivial) is not merged. */
static void test_poll_merge_loaded(void)
{
  static const char *const POLL = "schedule,schedule_hrtimeout_range,do_poll|poll";
  tb *t = tb_new(false);
  sw(t, 50, 0, IDLE, "R", A);
  tb_next_stack(t, POLL);
  sw(t, 100, 0, A, "S", IDLE);
  tb_next_stack(t, TIMER_WAKE);
  tb_waking(t, 100095 * US, 0, IDLE, A, 0);
  sw(t, 100100, 0, IDLE, "R", A);
  tb_next_stack(t, POLL);
  sw(t, 100400, 0, A, "S", IDLE);
  tb_next_stack(t, TIMER_WAKE);
  tb_waking(t, 200395 * US, 0, IDLE, A, 0);
  sw(t, 200400, 0, IDLE, "R", A);
  sw(t, 200550, 0, A, "R+", C); /* preempted inside the processing */
  sw(t, 200600, 0, C, "S", A);
  tb_next_stack(t, POLL);
  sw(t, 200700, 0, A, "S", IDLE);
  sw(t, 250000, 1, IDLE, "R", B);
  tb_waking(t, 299990 * US, 1, B, A, 0);
  sw(t, 299995, 1, B, "S", IDLE);
  sw(t, 300000, 0, IDLE, "R", A);
  /* the second loop: its processing wakes C */
  tb_next_stack(t, POLL);
  sw(t, 400000, 0, A, "S", IDLE);
  tb_next_stack(t, TIMER_WAKE);
  tb_waking(t, 499995 * US, 0, IDLE, A, 0);
  sw(t, 500000, 0, IDLE, "R", A);
  tb_waking(t, 500100 * US, 0, A, C, 1);
  tb_next_stack(t, POLL);
  sw(t, 500300, 0, A, "S", IDLE);
  sw(t, 500310, 1, IDLE, "R", C);
  sw(t, 500400, 1, C, "S", IDLE);
  tb_next_stack(t, TIMER_WAKE);
  tb_waking(t, 599995 * US, 0, IDLE, A, 0);
  sw(t, 600000, 0, IDLE, "R", A);
  sw(t, 600100, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_elem_id merged = ELEM(p, RSP_ELEM_SLEEP, A, 100, 300000);
  CHECK_EQ(el(p, merged)->n_merged, 4); /* poll, poll, the preemption, poll */
  CHECK(el(p, merged)->flags & RSP_ELEM_MERGED_POLLS);
  rsp_elem_id b = ELEM(p, RSP_ELEM_RUN, B, 250000, 299995);
  CHECK_EQ(el(p, b)->parent, merged);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_SLEEP, A, 400000, 500000))->n_merged, 1);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_SLEEP, A, 500300, 600000))->n_merged, 1);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  check_sum(&c);
  /* each piece keeps its cause: the two polls timed out (up to their timer wakeups), the preemption
   * 200550-200600 is C's (whichever of the preemption categories C falls in); the second loop's two
   * polls time out too (400000-499995, 500300-599995) */
  CHECK_EQ(c.ns[RSP_CAT_TIMED_OUT], (3 * 99995 + 99695) * US);
  CHECK_EQ(c.ns[RSP_CAT_PREEMPTED_BY_PATH] + c.ns[RSP_CAT_CONTENTION] + c.ns[RSP_CAT_INVOLUNTARY], 50 * US);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* Whether one of X's sentences holds A (and B, when not NULL); when none does, the sentences on stderr. */
static bool says(const rsp_explanation *x, const char *a, const char *b)
{
  for (char **sn = x->sentences; sn && *sn; sn++)
    if (strstr(*sn, a) && (!b || strstr(*sn, b)))
      return true;
  for (char **sn = x->sentences; sn && *sn; sn++)
    fprintf(stderr, "  %s\n", *sn);
  return false;
}

/* The explanation of A's paths in T's trace (finished here, its model freed: the sentences and the names the story
 * made stay), with their categories in *C. */
static rsp_explanation *explain_a(tb *t, rsp_categories *c)
{
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_categories_compute(p, c);
  rsp_explanation *x = rsp_explain(p, c);
  rsp_paths_free(p);
  rsp_model_free(m);
  return x;
}

/* Whether the explanation of A's paths in T's trace (finished here) says TEXT in one sentence. */
static bool explains_a(tb *t, const char *text)
{
  rsp_categories c;
  rsp_explanation *x = explain_a(t, &c);
  bool said = says(x, text, NULL);
  rsp_explanation_free(x);
  return said;
}

/* xz -T2's main thread: futex waits with a timeout (pthread_cond_timedwait) until a worker thread wakes it. A (main
 * thread) waits 110-200, 210-300 and 310-400 on one futex stack; the first two wakeups come from an idle cpu with no
 * call stack (the timer fired: the model guesses a timeout, end_inferred); the third is B's futex_wake (B, a thread
 * of A's process, on cpu 1 from 305). One merged element 110-400. Truth: the two timed-out pieces' 90 us each
 * (85 timed out, then 5 scheduler) are guesses, whatever ended the last piece; the last piece's cause is recorded.
 * The explanation's longest wait counts 3 sleeps, 2 timeouts, both guessed, and names B as the waker. */
static void test_guessed_merged_polls(void)
{
  static const char *const FUTEX = "schedule,futex_wait_queue,__futex_wait,futex_wait,do_futex,__x64_sys_futex|"
                                   "__futex_abstimed_wait_common64,pthread_cond_timedwait";
  tb *t = tb_new(false);
  tb_thread(t, A, B);
  sw(t, 100, 0, IDLE, "R", A);
  for (unsigned i = 0; i < 2; i++) {
    tb_next_stack(t, FUTEX);
    sw(t, 110 + 100 * i, 0, A, "S", IDLE);
    tb_waking(t, (195 + 100 * i) * US, 0, IDLE, A, 0);
    sw(t, 200 + 100 * i, 0, IDLE, "R", A);
  }
  tb_next_stack(t, FUTEX);
  sw(t, 310, 0, A, "S", IDLE);
  sw(t, 305, 1, IDLE, "R", B);
  tb_next_stack(t, "try_to_wake_up,wake_up_q,futex_wake,do_futex,__x64_sys_futex|pthread_cond_signal");
  tb_waking(t, 395 * US, 1, B, A, 0);
  sw(t, 400, 0, IDLE, "R", A);
  sw(t, 450, 1, B, "S", IDLE);
  sw(t, 500, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0);
  for (uint32_t i = 0; i < 2; i++) {
    const rsp_sleep *s = rsp_model_sleep(m, rsp_model_task_sleep(m, a, i));
    CHECK_EQ(s->end_cause, RSP_SLEEP_END_TIMEOUT);
    CHECK(s->end_inferred);
  }
  CHECK_EQ(rsp_model_sleep(m, rsp_model_task_sleep(m, a, 2))->end_cause, RSP_SLEEP_END_WOKEN);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_elem_id merged = ELEM(p, RSP_ELEM_SLEEP, A, 110, 400);
  CHECK_EQ(el(p, merged)->n_merged, 3);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  CHECK_EQ(c.guessed_ns[RSP_CAT_TIMED_OUT], 2 * 85 * US);
  CHECK_EQ(c.guessed_ns[RSP_CAT_SCHEDULER], 2 * 5 * US);
  CHECK_EQ(c.guessed_total_ns, 2 * 90 * US);
  check_sum(&c);
  rsp_explanation *x = rsp_explain(p, &c);
  CHECK(x->n_chain >= 1);
  /* nothing under the wait; B, the thread that ended it, ran 305-400 of it: the chain goes on through B */
  CHECK_EQ(x->n_chain, 2);
  if (x->n_chain == 2) {
    CHECK(x->chain[1].via_waker);
    CHECK_EQ(x->chain[1].tid, B);
    CHECK_EQ(x->chain[1].kind, RSP_ELEM_RUN);
    CHECK_EQ(x->chain[1].ns, 95 * US);
  }
  if (x->n_chain >= 1) {
    CHECK_EQ(x->chain[0].ns, 290 * US);
    CHECK_EQ(x->chain[0].timeouts, 2);
    CHECK_EQ(x->chain[0].timeouts_guessed, 2);
    CHECK_EQ(x->chain[0].woken_by_tid, B);
  }
  /* its own threads' running on the paths: B 305-450, A 100-110 and 400-500 (its runs between the merged polls are
   * folded into the wait, no elements) */
  CHECK_EQ(x->n_threads, 2);
  CHECK_EQ(x->threads[0].pid, B);
  CHECK_EQ(x->threads[0].run_ns, 145 * US);
  CHECK_EQ(x->threads[1].pid, A);
  CHECK_EQ(x->threads[1].run_ns, 110 * US);
  CHECK(says(x, "2 waits in a row that timed out (a guess", "woke it, which ran 0.1 ms of it"));
  rsp_explanation_free(x);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* tar under its shell's wait4: the process it waited for ran, and waited in many short waits, none of which stands
 * for the rest. A waits in wait4 110-1000; B runs 100-200, then waits 60 us eight times (200-260, 300-360...: reads
 * woken from an idle cpu, a device's doing, or, every other one, by C, the last by D) with 40 us runs between, and
 * wakes A at 990. B's elements under A's wait: runs of 100 + 7 x 40 + 35 = 415 us, waits of 480 us; its longest wait
 * (60 us) is an eighth of those: the chain ends with B, running and waiting (180 us of it until C woke it, 60 until
 * D did), not with one of its 60 us waits named as the cause. */
static void test_explain_scattered_waits(void)
{
  static const char *const READ = "schedule,pipe_read|read";
  tb *t = a_waits_in_wait4();
  for (unsigned i = 0; i < 8; i++) {
    tb_next_stack(t, READ);
    sw(t, 200 + 100 * i, 1, B, "S", IDLE);
    if (i % 2) { /* C (cpu 2, 250-257) wakes it, the last time D */
      int32_t waker = i == 7 ? 400 : C;
      sw(t, 250 + 100 * i, 2, IDLE, "R", waker);
      tb_waking(t, (256 + 100 * i) * US, 2, waker, B, 1);
      sw(t, 257 + 100 * i, 2, waker, "S", IDLE);
    } else {
      tb_waking(t, (258 + 100 * i) * US, 1, IDLE, B, 1);
    }
    sw(t, 260 + 100 * i, 1, IDLE, "R", B);
  }
  tb_waking(t, 990 * US, 1, B, A, 0);
  sw(t, 995, 1, B, "S", IDLE);
  sw(t, 1000, 0, IDLE, "R", A);
  sw(t, 1100, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_elem_id as = ELEM(p, RSP_ELEM_SLEEP, A, 110, 1000);
  CHECK_EQ(el(p, ELEM(p, RSP_ELEM_SLEEP, B, 200, 260))->parent, as);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  rsp_explanation *x = rsp_explain(p, &c);
  CHECK_EQ(x->n_chain, 2);
  if (x->n_chain == 2) {
    const rsp_explain_hop *h = &x->chain[1];
    CHECK_EQ(h->pid, B);
    CHECK_EQ(h->kind, RSP_ELEM_RUN);
    CHECK_EQ(h->ns, 415 * US);
    CHECK_EQ(h->waited_ns, 480 * US);
    CHECK_EQ(h->n_waits, 8);
    CHECK_EQ(h->wait_site_waits, 8);
    CHECK(h->wait_site && strcmp(h->wait_site, "read") == 0);
    /* the three C woke, the one D woke, no disk or network under them */
    CHECK_EQ(h->n_wakers, 2);
    CHECK_EQ(h->wakers[0].pid, C);
    CHECK_EQ(h->wakers[0].run_ns, 3 * 60 * US);
    CHECK_EQ(h->wakers[1].pid, 400);
    CHECK_EQ(h->wakers[1].run_ns, 60 * US);
    CHECK_EQ(h->waits_disk_ns + h->waits_net_ns, 0);
  }
  rsp_explanation_free(x);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* git clone's read of index-pack's answer: another process ended the longest wait, and its work is on another path.
 * A (main thread) reads 110-1000; D, a thread of A, waits 100-400. B (another process, on cpu 2) runs 100-995 in one
 * run: it wakes D at 395 and A at 990. Its run goes on far past D's wait, so it roots a control path of its own, and
 * it is there when A's wait looks for its waker: nothing is under A's wait. E, a thread of B, runs 200-700 on cpu 3.
 * Truth over A's wait (110-1000): B ran 885 us (110-995), E 500: 1385 us in 2 threads. The chain goes on through B,
 * its threads together, from the model (not only what the paths hold). */
static void test_explain_waker_process(void)
{
  static const char *const READ = "schedule,pipe_read|read";
  enum { D = 101, E = 201 };
  tb *t = tb_new(false);
  tb_thread(t, A, D);
  tb_thread(t, B, E);
  sw(t, 90, 1, IDLE, "R", D);
  sw(t, 100, 0, IDLE, "R", A);
  sw(t, 100, 2, IDLE, "R", B);
  tb_next_stack(t, "schedule,futex_wait_queue,__futex_wait,futex_wait,do_futex,__x64_sys_futex|pthread_cond_wait");
  sw(t, 100, 1, D, "S", IDLE);
  tb_next_stack(t, READ);
  sw(t, 110, 0, A, "S", IDLE);
  sw(t, 200, 3, IDLE, "R", E);
  tb_waking(t, 395 * US, 2, B, D, 1);
  sw(t, 400, 1, IDLE, "R", D);
  tb_next_stack(t, "schedule,futex_wait_queue,__futex_wait,futex_wait,do_futex,__x64_sys_futex|pthread_cond_wait");
  sw(t, 410, 1, D, "S", IDLE);
  sw(t, 700, 3, E, "S", IDLE);
  tb_waking(t, 990 * US, 2, B, A, 0);
  sw(t, 995, 2, B, "S", IDLE);
  sw(t, 1000, 0, IDLE, "R", A);
  sw(t, 1100, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_elem_id as = ELEM(p, RSP_ELEM_SLEEP, A, 110, 1000);
  uint32_t n_kids;
  rsp_paths_children(p, as, &n_kids);
  CHECK_EQ(n_kids, 0); /* (the scenario: B's run is on a path of its own) */
  rsp_categories c;
  rsp_categories_compute(p, &c);
  rsp_explanation *x = rsp_explain(p, &c);
  CHECK_EQ(x->n_chain, 2);
  if (x->n_chain >= 1) {
    CHECK_EQ(x->chain[0].ns, 890 * US);
    CHECK_EQ(x->chain[0].woken_by_pid, B);
  }
  if (x->n_chain == 2) {
    const rsp_explain_hop *h = &x->chain[1];
    CHECK(h->via_waker);
    CHECK_EQ(h->pid, B);
    CHECK_EQ(h->tid, 0);
    CHECK_EQ(h->kind, RSP_ELEM_RUN);
    CHECK_EQ(h->ns, 1385 * US);
    CHECK_EQ(h->n_threads, 2);
  }
  CHECK(says(x, "until t200 [200] woke it, which ran 1.4 ms over it in 2 threads", NULL));
  rsp_explanation_free(x);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* A site that names no code (a wait recorded without a stack, the ftrace capture's) is told in the disk sentence by
 * whose waits they were: A reads (its request 100-300, issued 150) in D 200-305 with no stack, woken by the disk. */
static void test_explain_disk_site_owner(void)
{
  enum { DEV = 8 << 20 };
  tb *t = tb_new(false);
  sw(t, 50, 0, IDLE, "R", A);
  tb_block(t, TB_INSERT, 100 * US, 0, A, DEV, 1000, 4096);
  tb_block(t, TB_ISSUE, 150 * US, 0, A, DEV, 1000, 4096);
  sw(t, 200, 0, A, "D", IDLE);
  tb_block(t, TB_COMPLETE, 300 * US, 2, IDLE, DEV, 1000, 4096);
  tb_next_stack(t, "try_to_wake_up,bio_endio,blk_update_request,blk_mq_end_request,virtblk_done,vring_interrupt");
  tb_waking(t, 301 * US, 2, IDLE, A, 0);
  sw(t, 305, 0, IDLE, "R", A);
  sw(t, 400, 0, A, "S", IDLE);
  CHECK(explains_a(t, "most in [no stack] of t100 (0.1 ms in 1 wait)"));
}

/* A waits in wait4 110-1000 for its child B, forked as a shell (a pyenv shim's bash) that waits 120-300 in nanosleep,
 * runs, execs python3 at 310 and then runs to 990 in 40 us runs, each preempted 10 us by C. The chain's hop names B as
 * the work list does, by its latest exec generation there (python3), not by the generation with the longest element
 * there (the shell's 180 us wait; a user's recording said 'for bash [5517], which ran 450.8 ms' and, a line later,
 * 'python3 [5517] 450.8 ms'). */
static void test_explain_exec_name(void)
{
  tb *t = tb_new(false);
  tb_comm(t, 0, 0, A, "sh", false);
  sw(t, 100, 0, IDLE, "R", A);
  tb_fork(t, 105 * US, 0, A, B);
  tb_comm(t, 105 * US, 0, B, "bash", false);
  tb_next_stack(t, "schedule,do_wait,kernel_wait4|wait4");
  sw(t, 110, 0, A, "S", IDLE);
  sw(t, 112, 1, IDLE, "R", B);
  tb_next_stack(t, "schedule,do_nanosleep,hrtimer_nanosleep|nanosleep");
  sw(t, 120, 1, B, "S", IDLE);
  tb_next_stack(t, TIMER_WAKE);
  tb_waking(t, 299 * US, 1, IDLE, B, 1);
  sw(t, 300, 1, IDLE, "R", B);
  tb_comm(t, 310 * US, 1, B, "python3", true);
  for (uint64_t us = 350; us < 990; us += 50) {
    sw(t, us, 1, B, "R", C);
    sw(t, us + 10, 1, C, "R", B);
  }
  tb_waking(t, 990 * US, 1, B, A, 0);
  tb_exit(t, 990 * US, 1, B);
  sw(t, 990, 1, B, "X", IDLE);
  sw(t, 1000, 0, IDLE, "R", A);
  sw(t, 1100, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  ELEM(p, RSP_ELEM_SLEEP, A, 110, 1000);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  rsp_explanation *x = rsp_explain(p, &c);
  CHECK_EQ(x->n_chain, 2);
  if (x->n_chain == 2) {
    CHECK_EQ(x->chain[1].pid, B);
    CHECK_EQ(x->chain[1].kind, RSP_ELEM_RUN);
    CHECK_STR(x->chain[1].comm, "python3");
  }
  CHECK(says(x, "for python3 [200]", NULL));
  rsp_explanation_free(x);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* Two threads taking turns on a lock while the main thread joins them. A (main) waits 110-1000 in a futex; D and E,
 * threads of A, alternate: from T = 150 + 100k (k = 0..4) D wakes E and waits on the lock until E wakes it at T + 49
 * (E runs T to T + 50); D then runs to the next T, and after the last, to 995, waking A at 990. Truth over A's wait:
 * D ran 40 + 4 x 50 + 395 = 635 us and waited 5 x 50 = 250 us, each wait ended by E. Its waits are short and a
 * quarter of the wait or more: said, with E as their waker (a thread of the same process, named as one). */
static void test_explain_lock_turns(void)
{
  static const char *const FUTEX = "schedule,futex_wait_queue,__futex_wait,futex_wait,do_futex,__x64_sys_futex|"
                                   "futex_wait";
  static const char *const WAKE = "try_to_wake_up,wake_up_q,futex_wake,do_futex,__x64_sys_futex|pthread_mutex_unlock";
  enum { D = 101, E = 102 };
  tb *t = tb_new(false);
  tb_thread(t, A, D);
  tb_thread(t, A, E);
  sw(t, 100, 0, IDLE, "R", A);
  sw(t, 100, 1, IDLE, "R", D);
  sw(t, 100, 2, IDLE, "R", E);
  tb_next_stack(t, FUTEX);
  sw(t, 105, 2, E, "S", IDLE);
  tb_next_stack(t, "schedule,futex_wait_queue,__futex_wait,futex_wait,do_futex,__x64_sys_futex|"
                   "__futex_abstimed_wait_common64,pthread_join");
  sw(t, 110, 0, A, "S", IDLE);
  for (unsigned k = 0; k < 5; k++) {
    uint64_t T = 150 + 100 * k;
    tb_next_stack(t, WAKE);
    tb_waking(t, (T - 1) * US, 1, D, E, 2);
    tb_next_stack(t, FUTEX);
    sw(t, T, 1, D, "S", IDLE);
    sw(t, T, 2, IDLE, "R", E);
    tb_next_stack(t, WAKE);
    tb_waking(t, (T + 49) * US, 2, E, D, 1);
    tb_next_stack(t, FUTEX);
    sw(t, T + 50, 2, E, "S", IDLE);
    sw(t, T + 50, 1, IDLE, "R", D);
  }
  tb_next_stack(t, WAKE);
  tb_waking(t, 990 * US, 1, D, A, 0);
  sw(t, 995, 1, D, "S", IDLE);
  sw(t, 1000, 0, IDLE, "R", A);
  sw(t, 1100, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  rsp_explanation *x = rsp_explain(p, &c);
  CHECK_EQ(x->n_chain, 2);
  if (x->n_chain >= 1) {
    CHECK_EQ(x->chain[0].ns, 890 * US);
    CHECK_EQ(x->chain[0].woken_by_tid, D);
  }
  if (x->n_chain == 2) {
    const rsp_explain_hop *h = &x->chain[1];
    CHECK(h->via_waker);
    CHECK_EQ(h->tid, D);
    CHECK_EQ(h->ns, 635 * US);
    CHECK_EQ(h->waited_ns, 250 * US);
    CHECK_EQ(h->n_waits, 5);
    CHECK_EQ(h->n_wakers, 1);
    CHECK_EQ(h->wakers[0].pid, A);
    CHECK_EQ(h->wakers[0].tid, E);
    CHECK_EQ(h->wakers[0].run_ns, 250 * US);
  }
  CHECK(says(x, "waited 0.2 ms in 5 waits, none long", "until its thread t102 [100/102] woke it"));
  rsp_explanation_free(x);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* A main thread waiting for its pool, one wait per finished job, beside a helper thread idle until the exit wakes it
 * (node: the libuv pool's threads wake the main thread's epoll_pwait; V8's platform threads sleep throughout). A
 * waits 110-500 (D wakes it at 499), 510-700 (E, at 699) and 710-1000 (D, at 999), 870 us in 3 waits; H waits
 * 105-1090, woken by A. The longest wait said is A's, not H's longer one, with A's waits in all beside it. */
static void test_explain_main_thread_waits(void)
{
  static const char *const EPOLL = "schedule,schedule_hrtimeout_range,do_epoll_wait,__x64_sys_epoll_pwait|epoll_pwait";
  static const char *const WAKE = "try_to_wake_up,ep_poll_callback,eventfd_write|uv_async_send";
  enum { D = 101, E = 102, H = 103 };
  tb *t = tb_new(false);
  tb_thread(t, A, D);
  tb_thread(t, A, E);
  tb_thread(t, A, H);
  sw(t, 100, 0, IDLE, "R", A);
  sw(t, 100, 1, IDLE, "R", D);
  sw(t, 100, 2, IDLE, "R", E);
  sw(t, 100, 3, IDLE, "R", H);
  tb_next_stack(t, EPOLL);
  sw(t, 105, 3, H, "S", IDLE);
  const struct { uint64_t from, waker_at; int32_t waker; unsigned cpu; } waits[] = {
    { 110, 499, D, 1 }, { 510, 699, E, 2 }, { 710, 999, D, 1 },
  };
  for (unsigned k = 0; k < G_N_ELEMENTS(waits); k++) {
    tb_next_stack(t, EPOLL);
    sw(t, waits[k].from, 0, A, "S", IDLE);
    tb_next_stack(t, WAKE);
    tb_waking(t, waits[k].waker_at * US, waits[k].cpu, waits[k].waker, A, 0);
    sw(t, waits[k].waker_at + 1, 0, IDLE, "R", A);
  }
  tb_next_stack(t, EPOLL);
  sw(t, 700, 2, E, "S", IDLE);
  tb_next_stack(t, WAKE);
  tb_waking(t, 1090 * US, 0, A, H, 3);
  sw(t, 1090, 3, IDLE, "R", H);
  sw(t, 1095, 3, H, "S", IDLE);
  sw(t, 1100, 0, A, "S", IDLE);
  sw(t, 1100, 1, D, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  rsp_explanation *x = rsp_explain(p, &c);
  CHECK(x->n_chain >= 1);
  if (x->n_chain >= 1) {
    CHECK_EQ(x->chain[0].tid, A);
    CHECK_EQ(x->chain[0].ns, 390 * US);
    CHECK_EQ(x->chain[0].woken_by_tid, D);
  }
  CHECK_EQ(x->first_thread_n_waits, 3);
  CHECK_EQ(x->first_thread_waits_ns, 870 * US);
  CHECK(says(x, "Its longest wait, 0.4 ms", "its main thread waited 0.9 ms in 3 waits"));
  CHECK(says(x, "Its longest wait, 0.4 ms", "until its thread t101 [100/101] woke it"));
  rsp_explanation_free(x);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* The waker's last wait, not its longest, is what the chain goes on from (python's pool: the result thread read three
 * results, the first the longest; the main thread's wait ended after the last, from the slowest worker). A waits
 * 110-1000 (J wakes it at 999); J waits 200-600 (P wakes it at 599), runs 600-610, waits 610-900 (Q wakes it at 899);
 * P runs 100-600, Q 100-900. The chain: J's wait 610-900, then Q's running. */
static void test_explain_waker_last_wait(void)
{
  static const char *const FUTEX = "schedule,futex_wait_queue,__futex_wait,futex_wait,do_futex,__x64_sys_futex|"
                                   "futex_wait";
  static const char *const READ = "schedule,pipe_read|read";
  static const char *const WAKE = "try_to_wake_up,wake_up_q,futex_wake,do_futex,__x64_sys_futex|futex_wake";
  enum { J = 101, P = 102, Q = 103 };
  tb *t = tb_new(false);
  tb_thread(t, A, J);
  tb_thread(t, A, P);
  tb_thread(t, A, Q);
  sw(t, 100, 0, IDLE, "R", A);
  sw(t, 100, 1, IDLE, "R", J);
  sw(t, 100, 2, IDLE, "R", P);
  sw(t, 100, 3, IDLE, "R", Q);
  tb_next_stack(t, FUTEX);
  sw(t, 110, 0, A, "S", IDLE);
  tb_next_stack(t, READ);
  sw(t, 200, 1, J, "S", IDLE);
  tb_waking(t, 599 * US, 2, P, J, 1);
  sw(t, 600, 1, IDLE, "R", J);
  tb_next_stack(t, FUTEX);
  sw(t, 600, 2, P, "S", IDLE);
  tb_next_stack(t, READ);
  sw(t, 610, 1, J, "S", IDLE);
  tb_waking(t, 899 * US, 3, Q, J, 1);
  sw(t, 900, 1, IDLE, "R", J);
  tb_next_stack(t, FUTEX);
  sw(t, 900, 3, Q, "S", IDLE);
  tb_next_stack(t, WAKE);
  tb_waking(t, 999 * US, 1, J, A, 0);
  sw(t, 1000, 0, IDLE, "R", A);
  tb_next_stack(t, FUTEX);
  sw(t, 1000, 1, J, "S", IDLE);
  sw(t, 1100, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  rsp_explanation *x = rsp_explain(p, &c);
  CHECK_EQ(x->n_chain, 3);
  if (x->n_chain == 3) {
    CHECK_EQ(x->chain[1].kind, RSP_ELEM_SLEEP);
    CHECK_EQ(x->chain[1].tid, J);
    CHECK_EQ(x->chain[1].ns, 290 * US);
    CHECK_EQ(x->chain[1].woken_by_tid, Q);
    CHECK_EQ(x->chain[2].kind, RSP_ELEM_RUN);
    CHECK_EQ(x->chain[2].tid, Q);
  }
  CHECK(says(x, "which waited 0.3 ms in read, until its thread t103 [100/103] woke it", NULL));
  rsp_explanation_free(x);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* A wait ended by a thread that itself waited, nothing under either (the JVM: the launcher joins the Java main
 * thread, which waits in Future.get until a pool thread wakes it). A waits 110-1000 (J wakes it at 999); J runs
 * 100-200, waits 200-900 (P wakes it at 899), runs 900-1000; P runs 100-900. The chain goes through both wakers. */
static void test_explain_waker_of_waker(void)
{
  static const char *const FUTEX = "schedule,futex_wait_queue,__futex_wait,futex_wait,do_futex,__x64_sys_futex|"
                                   "futex_wait";
  static const char *const WAKE = "try_to_wake_up,wake_up_q,futex_wake,do_futex,__x64_sys_futex|futex_wake";
  enum { J = 101, P = 102 };
  tb *t = tb_new(false);
  tb_thread(t, A, J);
  tb_thread(t, A, P);
  sw(t, 100, 0, IDLE, "R", A);
  sw(t, 100, 1, IDLE, "R", J);
  sw(t, 100, 2, IDLE, "R", P);
  tb_next_stack(t, FUTEX);
  sw(t, 110, 0, A, "S", IDLE);
  tb_next_stack(t, FUTEX);
  sw(t, 200, 1, J, "S", IDLE);
  tb_next_stack(t, WAKE);
  tb_waking(t, 899 * US, 2, P, J, 1);
  sw(t, 900, 1, IDLE, "R", J);
  tb_next_stack(t, FUTEX);
  sw(t, 900, 2, P, "S", IDLE);
  tb_next_stack(t, WAKE);
  tb_waking(t, 999 * US, 1, J, A, 0);
  sw(t, 1000, 0, IDLE, "R", A);
  tb_next_stack(t, FUTEX);
  sw(t, 1000, 1, J, "S", IDLE);
  sw(t, 1100, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  rsp_explanation *x = rsp_explain(p, &c);
  CHECK_EQ(x->n_chain, 3);
  if (x->n_chain == 3) {
    CHECK_EQ(x->chain[0].ns, 890 * US);
    CHECK_EQ(x->chain[0].woken_by_tid, J);
    CHECK(x->chain[1].via_waker);
    CHECK_EQ(x->chain[1].kind, RSP_ELEM_SLEEP);
    CHECK_EQ(x->chain[1].tid, J);
    CHECK_EQ(x->chain[1].ns, 700 * US);
    CHECK_EQ(x->chain[1].woken_by_tid, P);
    CHECK(x->chain[2].via_waker);
    CHECK_EQ(x->chain[2].kind, RSP_ELEM_RUN);
    CHECK_EQ(x->chain[2].tid, P);
    CHECK_EQ(x->chain[2].ns, 700 * US);
  }
  CHECK(says(x, "which waited 0.7 ms in futex_wait, until its thread t102 [100/102] woke it, which ran 0.7 ms of it",
             NULL));
  rsp_explanation_free(x);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* A child of two threads ends the chain running (collect2 waiting for rust-lld): its running over the wait is both
 * threads', from the model, not only the runs on the paths. A forks B at 105 and waits in wait4 110-1000; B runs on
 * cpu 1 106-500 and exits, having made thread B2 at 120, which runs on cpu 2 125-995 and wakes A at 990 as it exits.
 * Over A's wait (110-1000): B 390 us, B2 870 us, 2 threads. */
static void test_explain_child_threads(void)
{
  enum { B2 = B + 1 };
  static const char *const WAIT = "schedule,do_wait,kernel_wait4|wait4";
  tb *t = tb_new(false);
  tb_thread(t, B, B2);
  sw(t, 100, 0, IDLE, "R", A);
  tb_fork(t, 105 * US, 0, A, B);
  sw(t, 106, 1, IDLE, "R", B);
  tb_next_stack(t, WAIT);
  sw(t, 110, 0, A, "S", IDLE);
  tb_fork(t, 120 * US, 1, B, B2);
  sw(t, 125, 2, IDLE, "R", B2);
  tb_exit(t, 500 * US, 1, B);
  sw(t, 500, 1, B, "X", IDLE);
  tb_exit(t, 985 * US, 2, B2);
  tb_next_stack(t, "try_to_wake_up,__wake_up_sync_key,do_notify_parent,release_task,do_exit");
  tb_waking(t, 990 * US, 2, B2, A, 0);
  sw(t, 995, 2, B2, "X", IDLE);
  sw(t, 1000, 0, IDLE, "R", A);
  sw(t, 1100, 0, A, "X", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  rsp_explanation *x = rsp_explain(p, &c);
  CHECK_EQ(x->n_chain, 2);
  if (x->n_chain == 2) {
    const rsp_explain_hop *h = &x->chain[1];
    CHECK_EQ(h->pid, B);
    CHECK_EQ(h->kind, RSP_ELEM_RUN);
    CHECK_EQ(h->n_threads, 2);
    CHECK_EQ(h->ns, (390 + 870) * US);
  }
  CHECK(says(x, "which ran 1.3 ms over it in 2 threads", NULL));
  rsp_explanation_free(x);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* A process of several threads under a wait, busy as a whole while the thread on the wait's path waited more than it
 * ran (go build waiting for link: link's threads take turns). A waits 110-1000 (B wakes it at 985). B forks B2 at 125;
 * B runs 120-200, waits 200-900 (B2 wakes it at 899), runs 900-990; B2 runs 130-900. Some thread of B runs all of
 * 120-990: the chain ends with B running over the wait in 2 threads (170 + 770 us), not with B's wait. */
static void test_explain_busy_threads(void)
{
  enum { B2 = B + 1 };
  static const char *const EPOLL = "schedule,schedule_hrtimeout_range,do_epoll_wait|epoll_wait";
  static const char *const FUTEX = "schedule,futex_wait_queue,__futex_wait,futex_wait|futex_wait";
  tb *t = tb_new(false);
  tb_thread(t, B, B2);
  sw(t, 100, 0, IDLE, "R", A);
  tb_fork(t, 105 * US, 0, A, B);
  tb_next_stack(t, EPOLL);
  sw(t, 110, 0, A, "S", IDLE);
  sw(t, 120, 0, IDLE, "R", B);
  tb_fork(t, 125 * US, 0, B, B2);
  sw(t, 130, 1, IDLE, "R", B2);
  tb_next_stack(t, FUTEX);
  sw(t, 200, 0, B, "S", IDLE);
  tb_next_stack(t, "try_to_wake_up,wake_up_q,futex_wake|futex_wake");
  tb_waking(t, 899 * US, 1, B2, B, 0);
  tb_next_stack(t, FUTEX);
  sw(t, 900, 1, B2, "S", IDLE);
  sw(t, 900, 0, IDLE, "R", B);
  tb_next_stack(t, "try_to_wake_up,ep_poll_callback,pipe_write|write");
  tb_waking(t, 985 * US, 0, B, A, 2);
  sw(t, 990, 0, B, "S", IDLE);
  sw(t, 1000, 2, IDLE, "R", A);
  sw(t, 1100, 2, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  rsp_explanation *x = rsp_explain(p, &c);
  CHECK_EQ(x->n_chain, 2);
  if (x->n_chain == 2) {
    const rsp_explain_hop *h = &x->chain[1];
    CHECK_EQ(h->pid, B);
    CHECK_EQ(h->kind, RSP_ELEM_RUN);
    CHECK_EQ(h->n_threads, 2);
    CHECK_EQ(h->ns, (170 + 770) * US);
  }
  CHECK(says(x, "which ran 0.9 ms over it in 2 threads", NULL));
  rsp_explanation_free(x);
  rsp_paths_free(p);
  rsp_model_free(m);
}

/* A sends a request (110) to 10.0.0.2:8080 and sleeps from 120 until an interrupt's data wakes it at WAKE us: a peer
 * outside the recording, network time WAKE - 119 us (the categories' own figure); then it runs 31 + PARSE us, in
 * parse when PARSE (one sample). The network wait of 181 us is the biggest lever with nothing longer running, and is
 * told beside parse's 331 us; one of 21 us is not told: a curl on loopback was told 'It waited on the network
 * 0.0 ms.' */
static rsp_explanation *explain_network_wait(unsigned wake, unsigned parse, uint64_t *network_ns)
{
  tb *t = tb_new(false);
  sw(t, 40, 0, IDLE, "R", A);
  tb_sock_state(t, 100 * US, 0, A, SK1, 40000, 8080, (const uint8_t[4]){ 10, 0, 0, 2 });
  tb_sock(t, TB_SEND, 110 * US, 0, A, SK1);
  tb_next_stack(t, "schedule,schedule_timeout,sk_wait_data,tcp_recvmsg|recv");
  sw(t, 120, 0, A, "S", IDLE);
  tb_sock(t, TB_DATA_READY, (wake - 1) * US, 0, IDLE, SK1);
  tb_next_stack(t, "try_to_wake_up,sock_def_readable,tcp_data_queue,tcp_rcv_established,net_rx_action,"
                   "handle_softirqs,irq_exit_rcu,common_interrupt");
  tb_waking(t, wake * US, 0, IDLE, A, 0);
  sw(t, wake + 9, 0, IDLE, "R", A);
  if (parse) {
    tb_next_stack(t, "|parse,main");
    tb_sample(t, (wake + 20) * US, 0, A);
  }
  sw(t, wake + 40 + parse, 0, A, "S", IDLE);
  rsp_categories c;
  rsp_explanation *x = explain_a(t, &c);
  *network_ns = c.ns[RSP_CAT_NETWORK];
  return x;
}

static void test_explain_network_said(void)
{
  uint64_t ns;
  rsp_explanation *x = explain_network_wait(301, 0, &ns);
  CHECK_EQ(ns, 181 * US);
  CHECK(says(x, "The biggest lever: the network, 0.2 ms of waits on peers outside the recording", "the most on tcp "
                "10.0.0.2:8080."));
  CHECK_EQ(x->network_lever_ns, 181 * US);
  CHECK_STR(x->network_peer, "tcp 10.0.0.2:8080");
  rsp_explanation_free(x);
  x = explain_network_wait(301, 300, &ns); /* parse's 331 us are the bigger lever */
  CHECK_EQ(ns, 181 * US);
  CHECK(says(x, "It waited on the network 0.2 ms.", NULL));
  CHECK(says(x, "The biggest lever: ", "'s parse, 0.3 ms"));
  CHECK_EQ(x->network_lever_ns, 0);
  rsp_explanation_free(x);
  x = explain_network_wait(141, 0, &ns);
  CHECK_EQ(ns, 21 * US);
  for (char **sn = x->sentences; sn && *sn; sn++)
    CHECK(!strstr(*sn, "It waited on the network") && !strstr(*sn, "the network,"));
  rsp_explanation_free(x);
}

/* A waits for a device: it runs 40-100 (one sample, in play), then waits in a select (100-400) that an interrupt's
 * handler ends at 395 (woken on the idle cpu 1 from handle_irq_event: no disk or network event under it), then runs
 * until 420 and exits. The device's 295 us (100 to the wakeup) are the biggest lever, more than play's 60 + 25 us,
 * named at its site with its task. */
static void test_explain_hardware_lever(void)
{
  tb *t = tb_new(false);
  tb_comm(t, 0, 0, A, "player", false);
  sw(t, 40, 0, IDLE, "R", A);
  tb_next_stack(t, "|play,main");
  tb_sample(t, 60 * US, 0, A);
  tb_next_stack(t, "schedule,schedule_hrtimeout_range,do_select|select");
  sw(t, 100, 0, A, "S", IDLE);
  tb_next_stack(t, "try_to_wake_up,pollwake,__wake_up_common,handle_irq_event,handle_edge_irq,common_interrupt,"
                   "asm_common_interrupt,default_idle");
  tb_waking(t, 395 * US, 1, IDLE, A, 0);
  sw(t, 400, 0, IDLE, "R", A);
  sw(t, 420, 0, A, "S", IDLE);
  rsp_categories c;
  rsp_explanation *x = explain_a(t, &c);
  CHECK_EQ(c.ns[RSP_CAT_HARDWARE], 295 * US);
  CHECK_EQ(x->hardware.ns, 295 * US);
  CHECK_STR(x->hardware.site, "select ([unknown])"); /* (the test symbolizer names no file) */
  CHECK_EQ(x->hardware.site_ns, 295 * US);
  CHECK_EQ(x->hardware.top.pid, A);
  CHECK_EQ(x->timed_out.ns, 0);
  CHECK(says(x, "The biggest lever: waits a device's interrupt ended (hardware), 0.3 ms (", "the most player [100]'s in "
                "select ([unknown]) (0.3 ms): the pace of a device"));
  CHECK(says(x, "Of the running, the most was player [100]'s play", NULL));
  rsp_explanation_free(x);
}

/* A thread's sleep as the lever is told by the thread: A (100) joins its thread D (101), which sleeps 100-400 in
 * nanosleep (its timer ends it) and wakes A when it ends at 410. */
static void test_explain_thread_timed_out_lever(void)
{
  enum { D = 101 };
  tb *t = tb_new(false);
  tb_thread(t, A, D);
  sw(t, 40, 0, IDLE, "R", A);
  sw(t, 40, 1, IDLE, "R", D);
  tb_next_stack(t, "schedule,futex_wait_queue,futex_wait|pthread_join");
  sw(t, 50, 0, A, "S", IDLE);
  tb_next_stack(t, "schedule,do_nanosleep,hrtimer_nanosleep,__x64_sys_clock_nanosleep|clock_nanosleep");
  sw(t, 100, 1, D, "S", IDLE);
  tb_next_stack(t, TIMER_WAKE);
  tb_waking(t, 400 * US, 1, IDLE, D, 1);
  sw(t, 401, 1, IDLE, "R", D);
  tb_next_stack(t, "try_to_wake_up,wake_up_q,futex_wake,do_futex|__GI___pthread_exit");
  tb_waking(t, 409 * US, 1, D, A, 0);
  tb_exit(t, 410 * US, 1, D);
  sw(t, 410, 1, D, "X", IDLE);
  sw(t, 412, 0, IDLE, "R", A);
  sw(t, 420, 0, A, "S", IDLE);
  rsp_categories c;
  rsp_explanation *x = explain_a(t, &c);
  CHECK_EQ(x->timed_out.ns, c.ns[RSP_CAT_TIMED_OUT]);
  CHECK(x->timed_out.ns >= 290 * US);
  CHECK_EQ(x->timed_out.top.pid, A);
  CHECK_EQ(x->timed_out.top.tid, D);
  CHECK(says(x, "The biggest lever: waits that timed out", "[100/101]'s in clock_nanosleep"));
  rsp_explanation_free(x);
}

/* A process running in runs shorter than the sampling period (a pipeline's reader hashing each 64 KB: python3's 2449
 * runs of 150 us had 368 samples, perf script put 264 of them in libcrypto, and the lever said 'libcrypto 49.7 ms, 11%
 * of the wall time' instead of ~265 ms). A waits in wait4 110-6100; B runs 100 us every 300 us from 100 (20 runs,
 * 2 ms), sampled in 5 of them: 4 samples in crunch, 1 in parse; it wakes A at 5890. Each function's share of B's
 * 2 ms on the paths is its share of the samples: crunch 1.6 ms, parse 0.4 (a run's time split among its own samples
 * said 0.4 ms in crunch). */
static void test_explain_unsampled_runs(void)
{
  tb *t = a_waits_in_wait4();
  for (unsigned i = 0; i < 20; i++) {
    unsigned start = 100 + 300 * i;
    if (i) {
      tb_waking(t, (start - 5) * US, 1, IDLE, B, 1);
      sw(t, start, 1, IDLE, "R", B);
    }
    if (i % 4 == 0) {
      tb_next_stack(t, i == 16 ? "|parse,main" : "|crunch,main");
      tb_sample(t, (start + 50) * US, 1, B);
    }
    if (i == 19)
      tb_waking(t, (start + 90) * US, 1, B, A, 0);
    tb_next_stack(t, "schedule,pipe_read|read");
    sw(t, start + 100, 1, B, "S", IDLE);
  }
  sw(t, 6000, 0, IDLE, "R", A);
  sw(t, 6100, 0, A, "S", IDLE);
  CHECK(explains_a(t, "2.0 ms (1.6 ms in crunch)"));
}

/* A process that ran more than it waited under the longest wait, its waits short and a quarter of the wait or more
 * (make -j2: a cc1's page faults on pages the other cc1 was reading in). A waits in wait4 110-1000; B runs 100-200,
 * then waits 50 us five times (200-250, 350-400...: C, on cpu 2, wakes it at 248, 398...) with 100 us runs between,
 * and runs 850-995, waking A at 990. B under A's wait: runs 100 (its first run whole, as in the scattered waits' test)
 * + 4 x 100 + 145 = 645 us, waits 250 us, all ended by C. The chain ends with B running, its waits said. */
static void test_explain_short_waits(void)
{
  static const char *const FAULT = "schedule,io_schedule,folio_wait_bit_common,filemap_fault|memset";
  tb *t = a_waits_in_wait4();
  for (unsigned i = 0; i < 5; i++) {
    uint64_t T = 200 + 150 * i;
    tb_next_stack(t, FAULT);
    sw(t, T, 1, B, "D", IDLE);
    sw(t, T + 45, 2, IDLE, "R", C);
    tb_waking(t, (T + 48) * US, 2, C, B, 1);
    sw(t, T + 49, 2, C, "S", IDLE);
    sw(t, T + 50, 1, IDLE, "R", B);
  }
  tb_waking(t, 990 * US, 1, B, A, 0);
  sw(t, 995, 1, B, "S", IDLE);
  sw(t, 1000, 0, IDLE, "R", A);
  sw(t, 1100, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_paths *p = rsp_paths_build(m, A, NULL, NULL);
  rsp_categories c;
  rsp_categories_compute(p, &c);
  rsp_explanation *x = rsp_explain(p, &c);
  CHECK_EQ(x->n_chain, 2);
  if (x->n_chain == 2) {
    const rsp_explain_hop *h = &x->chain[1];
    CHECK_EQ(h->pid, B);
    CHECK_EQ(h->kind, RSP_ELEM_RUN);
    CHECK_EQ(h->ns, 645 * US);
    CHECK_EQ(h->waited_ns, 250 * US);
    CHECK_EQ(h->n_waits, 5);
    CHECK_EQ(h->n_wakers, 1);
    CHECK_EQ(h->wakers[0].pid, C);
    CHECK_EQ(h->wakers[0].run_ns, 250 * US);
  }
  rsp_explanation_free(x);
  rsp_paths_free(p);
  rsp_model_free(m);
}

int main(void)
{
  test_explain_short_waits();
  test_explain_network_said();
  test_explain_hardware_lever();
  test_explain_thread_timed_out_lever();
  test_explain_unsampled_runs();
  test_explain_lock_turns();
  test_explain_main_thread_waits();
  test_explain_waker_of_waker();
  test_explain_waker_last_wait();
  test_explain_exec_name();
  test_explain_child_threads();
  test_explain_busy_threads();
  test_explain_waker_process();
  test_explain_scattered_waits();
  test_guessed_merged_polls();
  test_poll_merge_loaded();
  test_deep_relay();
  test_waker_forked_during_wait();
  test_network();
  test_own_disk_through_worker();
  test_wait_site_disk_children();
  test_explain_disk_site_owner();
  test_worker_beyond_wait();
  test_pipe_child();
  test_child_does_not_fit();
  test_poll_merge();
  test_sleep_then_preemption();
  test_nested_waits();
  test_triangle();
  test_categories();
  test_parallel_children();
  test_requested_in_parallel();
  test_requested_not_waited();
  test_preemptors();
  test_wakeup_delay_behind_others();
  test_guessed();
  test_user_waits();
  test_guessed_own_time();
  test_unknown_stacks();
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  return failures ? 1 : 0;
}
