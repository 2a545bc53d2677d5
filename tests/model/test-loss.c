/* Loss accounting from fabricated events (trace-builder.c): LOST records, sampled tracepoints,
 * a recording with no switch events, and the warnings the user is given. */
#include "checks.h"

enum { IDLE = 0, A = 100 };

static bool has_warning(char **w, const char *needle)
{
  for (; *w; w++)
    if (strstr(*w, needle))
      return true;
  return false;
}

static void test_lost(void)
{
  tb *t = tb_new(true);
  tb_switch_in(t, 100 * US, 0, A, IDLE);
  tb_lost(t, 150 * US, 5);
  tb_lost(t, 160 * US, 7);
  tb_lost_samples(t, 170 * US, 3);
  tb_switch_out(t, 200 * US, 0, A, IDLE, false);
  rsp_model *m = tb_finish(t);
  const rsp_model_loss *l = rsp_model_loss_get(m);
  CHECK_EQ(l->lost_records, 2);
  CHECK_EQ(l->lost_events, 12);
  CHECK_EQ(l->lost_samples_records, 1);
  CHECK_EQ(l->lost_samples, 3);
  CHECK(!l->sampled_tracepoints);
  char **w = rsp_model_loss_warnings(m);
  CHECK(has_warning(w, "perf lost 12 events (2 LOST records)"));
  CHECK(has_warning(w, "perf lost 3 samples"));
  CHECK(!has_warning(w, "was sampled")); /* no tracepoint was sampled */
  CHECK(has_warning(w, "no sampling event")); /* and the trace has no cpu-clock or cycles samples */
  g_strfreev(w);
  rsp_model_free(m);
}

static void test_sampled_tracepoint(void)
{
  tb *t = tb_new(false);
  tb_sample_tracepoints(t);
  tb_sched_switch(t, 100 * US, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  const rsp_model_loss *l = rsp_model_loss_get(m);
  CHECK(l->sampled_tracepoints);
  CHECK_STR(l->sampled_tracepoint, "sched:sched_switch");
  char **w = rsp_model_loss_warnings(m);
  CHECK(w[0] && strstr(w[0], "sched:sched_switch was sampled") && strstr(w[0], "WRONG")); /* the first */
  CHECK(has_warning(w, "inferred"));
  g_strfreev(w);
  rsp_model_free(m);
}

static void test_no_switch_events(void)
{
  tb *t = tb_new(false);
  tb_sample(t, 100 * US, 0, A);
  tb_sample(t, 200 * US, 0, A);
  rsp_model *m = tb_finish(t);
  CHECK_EQ(rsp_model_runs_source(m), RSP_RUNS_FROM_NOTHING);
  CHECK_EQ(rsp_model_n_switch_events(m), 0);
  CHECK_EQ(rsp_model_n_events(m), 2);
  rsp_model_free(m);

  t = tb_new(true); /* switch records announced but none written */
  tb_sample(t, 100 * US, 0, A);
  m = tb_finish(t);
  CHECK_EQ(rsp_model_runs_source(m), RSP_RUNS_FROM_NOTHING);
  rsp_model_free(m);
}

static void test_clean(void)
{
  tb *t = tb_new(true);
  tb_switch_in(t, 100 * US, 0, A, IDLE);
  tb_sample(t, 150 * US, 0, A);
  tb_switch_out(t, 200 * US, 0, A, IDLE, false);
  tb_switch_in(t, 200 * US, 0, IDLE, A);
  rsp_model *m = tb_finish(t);
  char **w = rsp_model_loss_warnings(m);
  CHECK(w[0] == NULL);
  g_strfreev(w);
  rsp_model_free(m);
}

int main(void)
{
  test_lost();
  test_sampled_tracepoint();
  test_no_switch_events();
  test_clean();
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("model loss accounting: all checks passed\n");
  return 0;
}
