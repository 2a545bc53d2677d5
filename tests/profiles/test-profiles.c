/* Latency profiles: the bucket function, the distances and the peaks against values worked out by
 * hand here; profiles and the three-phase selection of synthetic traces (the model's trace
 * builder) whose every wait was written by hand. */
#include "checks.h"

#include "analysis/analysis.h"

#include <math.h>

#define CHECK_NEAR(a, b)                                                                      \
  do {                                                                                        \
    double a_ = (a), b_ = (b);                                                                \
    if (!(fabs(a_ - b_) < 1e-9 || (isinf(a_) && isinf(b_)))) {                                \
      fprintf(stderr, "%s:%d: %s == %.12g, expected %.12g\n", __FILE__, __LINE__, #a, a_, b_); \
      failures++;                                                                             \
    }                                                                                         \
  } while (0)

static void test_bucket_function(void)
{
  /* r = 1: floor(log2(ns)) */
  CHECK_EQ(rsp_profile_bucket_of(1, 1), 0);
  CHECK_EQ(rsp_profile_bucket_of(0, 1), 0); /* 0 ns counts as 1 ns */
  CHECK_EQ(rsp_profile_bucket_of(2, 1), 1);
  CHECK_EQ(rsp_profile_bucket_of(3, 1), 1);
  CHECK_EQ(rsp_profile_bucket_of(1023, 1), 9);
  CHECK_EQ(rsp_profile_bucket_of(1024, 1), 10);
  CHECK_EQ(rsp_profile_bucket_of(1000000, 1), 19);   /* log2(1e6) = 19.93 */
  CHECK_EQ(rsp_profile_bucket_of(8000000, 1), 22);   /* log2(8e6) = 22.93 */
  CHECK_EQ(rsp_profile_bucket_of(UINT64_MAX, 1), 63);
  /* r = 2: floor(2 log2(ns)); 2^10.5 = 1448.15 */
  CHECK_EQ(rsp_profile_bucket_of(2, 2), 2);
  CHECK_EQ(rsp_profile_bucket_of(3, 2), 3);          /* 2 x 1.585 = 3.17 */
  CHECK_EQ(rsp_profile_bucket_of(1448, 2), 20);
  CHECK_EQ(rsp_profile_bucket_of(1449, 2), 21);
  CHECK_EQ(rsp_profile_bucket_of(1000000, 2), 39);   /* 39.86 */
  /* r = 4: 2^9.75 = 861.08 */
  CHECK_EQ(rsp_profile_bucket_of(861, 4), 38);
  CHECK_EQ(rsp_profile_bucket_of(862, 4), 39);
  CHECK_EQ(rsp_profile_bucket_of(1000, 4), 39);      /* 4 x 9.966 = 39.86 */
  CHECK_EQ(rsp_profile_bucket_of(1024, 4), 40);
  CHECK_EQ(rsp_profile_bucket_lo(21, 2), 1449);
  CHECK_EQ(rsp_profile_bucket_lo(39, 4), 862);
  CHECK_EQ(rsp_profile_bucket_lo(20, 1), 1048576);
  CHECK_EQ(rsp_profile_bucket_lo(0, 4), 1);
}

static void test_distances(void)
{
  /* normalized: a = (.5, .5), b = (1, 0): cumulative differences .5 then 0 */
  uint64_t a[] = { 2, 2 }, b[] = { 4, 0 };
  CHECK_NEAR(rsp_histogram_emd(a, b, 2), 0.5);
  /* (.5 - 1)^2 / 1.5 + (.5 - 0)^2 / .5 = 1/6 + 1/2 */
  CHECK_NEAR(rsp_histogram_chi2(a, b, 2), 2.0 / 3.0);
  /* all the mass moves two buckets */
  uint64_t c[] = { 1, 0, 0 }, d[] = { 0, 0, 5 };
  CHECK_NEAR(rsp_histogram_emd(c, d, 3), 2.0);
  CHECK_NEAR(rsp_histogram_chi2(c, d, 3), 2.0);
  /* half moves two buckets, half moves two: (.5, .5, 0, 0) -> (0, 0, .5, .5): .5 + 1 + .5 */
  uint64_t e[] = { 1, 1, 0, 0 }, f[] = { 0, 0, 3, 3 };
  CHECK_NEAR(rsp_histogram_emd(e, f, 4), 2.0);
  CHECK_NEAR(rsp_histogram_chi2(e, f, 4), 2.0);
  /* single bucket, unequal totals: the same shape */
  uint64_t g[] = { 3 }, h[] = { 7 };
  CHECK_NEAR(rsp_histogram_emd(g, h, 1), 0);
  CHECK_NEAR(rsp_histogram_chi2(g, h, 1), 0);
  /* unequal totals: (.25, .75) vs (.75, .25): |.25 - .75| = .5; chi2 2 x .25 / 1 = .5 */
  uint64_t i[] = { 1, 3 }, j[] = { 30, 10 };
  CHECK_NEAR(rsp_histogram_emd(i, j, 2), 0.5);
  CHECK_NEAR(rsp_histogram_chi2(i, j, 2), 0.5);
  /* empty */
  uint64_t z[] = { 0, 0 };
  CHECK_NEAR(rsp_histogram_emd(z, z, 2), 0);
  CHECK_NEAR(rsp_histogram_chi2(z, z, 2), 0);
  CHECK(isinf(rsp_histogram_emd(z, a, 2)));
  CHECK(isinf(rsp_histogram_chi2(a, z, 2)));
  CHECK_NEAR(rsp_histogram_emd(z, z, 0), 0);

  /* profiles are aligned by bucket index: one instance in bucket 10 against one in bucket 12 */
  uint64_t one[] = { 1 }, four[] = { 4 };
  rsp_profile *p10 = rsp_profile_from_counts(1, 10, one, 1), *p12 = rsp_profile_from_counts(1, 12, four, 1);
  CHECK_EQ(p10->count, 1);
  CHECK_EQ(p10->total_ns, 1024);
  CHECK_EQ(p12->total_ns, 4 * 4096);
  CHECK_NEAR(rsp_profile_distance(p10, p12, RSP_DISTANCE_EMD), 2.0);
  CHECK_NEAR(rsp_profile_distance(p12, p10, RSP_DISTANCE_EMD), 2.0);
  CHECK_NEAR(rsp_profile_distance(p10, p12, RSP_DISTANCE_CHI2), 2.0);
  CHECK_NEAR(rsp_profile_distance(p10, p12, RSP_DISTANCE_OPS), 0.75);           /* |1 - 4| / 4 */
  CHECK_NEAR(rsp_profile_distance(p10, p12, RSP_DISTANCE_LATENCY), 15360.0 / 16384.0);
  CHECK(isinf(rsp_profile_distance(p10, NULL, RSP_DISTANCE_EMD)));
  CHECK_NEAR(rsp_profile_distance(NULL, p10, RSP_DISTANCE_OPS), 1.0);
  CHECK_NEAR(rsp_profile_distance(NULL, NULL, RSP_DISTANCE_EMD), 0);
  /* overlapping ranges: (1, 1) at 10..11 against (2) at 11: .5 of the mass moves one bucket */
  uint64_t two_one[] = { 1, 1 }, two[] = { 2 };
  rsp_profile *q10 = rsp_profile_from_counts(2, 10, two_one, 2), *q11 = rsp_profile_from_counts(2, 11, two, 1);
  CHECK_NEAR(rsp_profile_distance(q10, q11, RSP_DISTANCE_EMD), 0.5);
  CHECK_EQ(q10->n_buckets, 2);
  CHECK_EQ(q10->buckets[1].index, 11);
  CHECK_EQ(q10->buckets[1].lo_ns, 46); /* ceil(2^5.5) = ceil(45.25) */
  rsp_profile_free(p10);
  rsp_profile_free(p12);
  rsp_profile_free(q10);
  rsp_profile_free(q11);

  rsp_distance_method m;
  CHECK(rsp_distance_method_parse("chi2", &m) && m == RSP_DISTANCE_CHI2);
  CHECK(!rsp_distance_method_parse("cosine", &m));
}

static void test_peaks(void)
{
  uint32_t first[8], top[8], last[8];
  /* two hills with empty buckets between */
  uint64_t a[] = { 1, 5, 1, 0, 0, 3, 8, 2 };
  CHECK_EQ(rsp_profile_find_peaks(a, 8, first, top, last, 8), 2);
  CHECK_EQ(first[0], 0); CHECK_EQ(top[0], 1); CHECK_EQ(last[0], 2);
  CHECK_EQ(first[1], 5); CHECK_EQ(top[1], 6); CHECK_EQ(last[1], 7);
  /* a shallow dip (4 under 5) is no valley: one peak, the first maximum */
  uint64_t b[] = { 5, 4, 5 };
  CHECK_EQ(rsp_profile_find_peaks(b, 3, first, top, last, 8), 1);
  CHECK_EQ(top[0], 0); CHECK_EQ(first[0], 0); CHECK_EQ(last[0], 2);
  /* a plateau is one maximum; an empty bucket separates */
  uint64_t c[] = { 2, 2, 0, 3 };
  CHECK_EQ(rsp_profile_find_peaks(c, 4, first, top, last, 8), 2);
  CHECK_EQ(top[0], 0); CHECK_EQ(last[0], 1); CHECK_EQ(top[1], 3); CHECK_EQ(first[1], 3);
  /* a shoulder (7 after a valley of 6 under 10) is no peak */
  uint64_t d[] = { 10, 6, 7, 3 };
  CHECK_EQ(rsp_profile_find_peaks(d, 4, first, top, last, 8), 1);
  CHECK_EQ(top[0], 0); CHECK_EQ(last[0], 3);
  /* a valley at half the lower peak separates: 8 and 4 with 2 between */
  uint64_t e[] = { 8, 2, 4 };
  CHECK_EQ(rsp_profile_find_peaks(e, 3, first, top, last, 8), 2);
  CHECK_EQ(last[0], 1); CHECK_EQ(first[1], 2);
  uint64_t z[] = { 0, 0 };
  CHECK_EQ(rsp_profile_find_peaks(z, 2, first, top, last, 8), 0);
  CHECK_EQ(rsp_profile_find_peaks(z, 0, first, top, last, 8), 0);
  uint64_t s[] = { 4 };
  CHECK_EQ(rsp_profile_find_peaks(s, 1, first, top, last, 8), 1);
}

enum { IDLE = 0, W = 100, H = 200 };

/* W waits on a lock 40 times: 30 waits of 1 ms and 10 (every fourth) of SLOW, each ended by a
 * wakeup 20 us before W runs again, from H's run on cpu 1 (WITH_HOLDER) or from an interrupt on the
 * idle cpu 1. Between waits W runs 50 us on cpu 0, with a cpu-clock sample in every other run. */
static rsp_model *lock_scenario(uint64_t slow, bool with_holder)
{
  tb *t = tb_new(true);
  tb_comm(t, 0, 0, W, "waiter", false);
  tb_comm(t, 0, 1, H, "holder", false);
  uint64_t cursor = 1000 * US;
  tb_switch_in(t, cursor, 0, W, IDLE);
  for (int i = 0; i < 40; i++) {
    uint64_t d = i % 4 == 3 ? slow : 1000 * US, run_end = cursor + 50 * US;
    if (i % 2 == 0)
      tb_sample(t, cursor + 10 * US, 0, W);
    tb_sched_switch(t, run_end - 1 * US, 0, W, "S", IDLE);
    tb_switch_out(t, run_end, 0, W, IDLE, false);
    tb_switch_in(t, run_end + 1 * US, 0, IDLE, W);
    uint64_t wake = run_end + d - 20 * US;
    if (with_holder) {
      tb_switch_in(t, wake - 10 * US, 1, H, IDLE);
      tb_waking(t, wake - 1 * US, 1, H, W, 0);
      tb_wakeup(t, wake, 1, H, W, 0);
      tb_sched_switch(t, wake + 5 * US, 1, H, "S", IDLE);
      tb_switch_out(t, wake + 6 * US, 1, H, IDLE, false);
      tb_switch_in(t, wake + 7 * US, 1, IDLE, H);
    } else {
      tb_waking(t, wake - 1 * US, 1, IDLE, W, 0);
      tb_wakeup(t, wake, 1, IDLE, W, 0);
    }
    tb_switch_out(t, run_end + d - 1 * US, 0, IDLE, W, false);
    tb_switch_in(t, run_end + d, 0, W, IDLE);
    cursor = run_end + d;
  }
  tb_sample(t, cursor + 100 * US, 0, W); /* the last event: W's last run is open at the end */
  return tb_finish(t);
}

static void test_two_peaks(void)
{
  rsp_model *m = lock_scenario(8000 * US, true);
  rsp_profile_options o = { .resolution = 1, .pid = W, .system_wide = false };
  GError *error = NULL;
  rsp_profile_set *set = rsp_profile_set_build(m, &o, &error);
  CHECK(set != NULL);
  if (!set)
    return;
  const rsp_profile *wait = rsp_profile_set_find(set, "wait [state S]", "waiter", W);
  CHECK(wait != NULL);
  if (wait) {
    CHECK_EQ(wait->count, 40);
    CHECK_EQ(wait->total_ns, 30 * 1000 * US + 10 * 8000 * US);
    CHECK_EQ(wait->min_index, 19);
    CHECK_EQ(wait->n_buckets, 4);            /* 19 .. 22, two empty between */
    CHECK_EQ(wait->buckets[0].count, 30);
    CHECK_EQ(wait->buckets[3].count, 10);
    CHECK_EQ(wait->buckets[1].count + wait->buckets[2].count, 0);
    CHECK_EQ(wait->buckets[0].causes[RSP_CAT_OTHER_PATH], 30); /* woken by H */
    CHECK_EQ(wait->buckets[3].causes[RSP_CAT_OTHER_PATH], 10);
    CHECK_EQ(wait->n_peaks, 2);
    if (wait->n_peaks == 2) {
      CHECK_EQ(wait->peaks[0].index, 19);
      CHECK_EQ(wait->peaks[0].count, 30);
      CHECK_EQ(wait->peaks[0].avg_ns, 1000 * US);
      CHECK_EQ(wait->peaks[0].cause, RSP_CAT_OTHER_PATH);
      CHECK_EQ(wait->peaks[1].index, 22);
      CHECK_EQ(wait->peaks[1].count, 10);
      CHECK_EQ(wait->peaks[1].avg_ns, 8000 * US);
      CHECK_EQ(wait->peaks[1].cause, RSP_CAT_OTHER_PATH);
      if (rsp_model_n_links(m) > 0) { /* once the model links wakeups to their wakers */
        CHECK_EQ(wait->peaks[0].waker, find_task(m, H, 0));
        CHECK_EQ(wait->peaks[1].waker, find_task(m, H, 0));
      }
    }
    /* each bucket keeps its instances: the sleeps of that length */
    const rsp_profile_bucket *b = &wait->buckets[3];
    for (uint32_t k = 0; k < b->n_instances; k++) {
      const rsp_profile_instance *in = &wait->instances[b->first_instance + k];
      const rsp_sleep *s = rsp_model_sleep(m, in->id);
      CHECK_EQ(s->end - s->start, 8000 * US);
      CHECK_EQ(in->ns, 8000 * US);
    }
  }
  /* time-sampled in slices of 15 ms: the sleeps' start times, rebuilt here from the scenario */
  if (wait) {
    rsp_profile_timeline *tl = rsp_profile_timeline_build(m, wait, 15000 * US);
    uint64_t first = rsp_model_time_first(m);
    CHECK_EQ(tl->start_ns, first);
    CHECK_EQ(tl->n_buckets, 4);
    uint64_t expected[64][4] = { { 0 } }, cursor = 1000 * US;
    for (int i = 0; i < 40; i++) {
      uint64_t d = i % 4 == 3 ? 8000 * US : 1000 * US, start = cursor + 50 * US;
      expected[(start - first) / (15000 * US)][i % 4 == 3 ? 3 : 0]++;
      cursor = start + d;
    }
    uint32_t n_slices = (uint32_t)((cursor + 100 * US - first) / (15000 * US) + 1);
    CHECK_EQ(tl->n_slices, n_slices);
    for (uint32_t i = 0; i < tl->n_slices && i < 64; i++)
      for (uint32_t b = 0; b < 4; b++)
        CHECK_EQ(tl->counts[i * 4 + b], expected[i][b]);
    rsp_profile_timeline_free(tl);
  }
  const rsp_profile *delay = rsp_profile_set_find(set, "sched-delay", "waiter", W);
  CHECK(delay != NULL);
  if (delay) {
    CHECK_EQ(delay->count, 40);
    CHECK_EQ(delay->total_ns, 40 * 20 * US);
    CHECK_EQ(delay->n_buckets, 1);
    CHECK_EQ(delay->min_index, 14);          /* log2(20000) = 14.29 */
    CHECK_EQ(delay->buckets[0].causes[RSP_CAT_SCHEDULER], 40);
  }
  const rsp_profile *run = rsp_profile_set_find(set, "run", "waiter", W);
  CHECK(run != NULL);
  if (run) {
    CHECK_EQ(run->count, 40);                /* the 41st is cut by the recording's end */
    CHECK_EQ(run->min_index, 15);            /* log2(50000) = 15.61 */
    CHECK_EQ(run->buckets[0].causes[RSP_CAT_UNDERSTOOD], 20);
    CHECK_EQ(run->buckets[0].causes[RSP_CAT_UNSAMPLED], 20);
  }
  CHECK(rsp_profile_set_find(set, "run", "holder", -1) == NULL); /* --pid keeps W's only */
  /* sorted by total latency: the waits first */
  CHECK(rsp_profile_set_get(set, 0) == wait);
  rsp_profile_set_free(set);

  /* resolution 2: 1 ms in 39, 8 ms in 45 */
  o.resolution = 2;
  set = rsp_profile_set_build(m, &o, &error);
  wait = set ? rsp_profile_set_find(set, "wait [state S]", "waiter", W) : NULL;
  CHECK(wait != NULL);
  if (wait && wait->n_peaks == 2) {
    CHECK_EQ(wait->peaks[0].index, 39);
    CHECK_EQ(wait->peaks[1].index, 45);
  }
  rsp_profile_set_free(set);

  /* bad options are refused */
  o.resolution = 3;
  CHECK(rsp_profile_set_build(m, &o, &error) == NULL && error);
  g_clear_error(&error);
  o.resolution = 1;
  o.pid = 4242;
  CHECK(rsp_profile_set_build(m, &o, &error) == NULL && error);
  g_clear_error(&error);
  rsp_model_free(m);
}

static void test_selection(void)
{
  /* the same but the slow waits take 32 ms: only W's waits change */
  rsp_model *ma = lock_scenario(8000 * US, false), *mb = lock_scenario(32000 * US, false);
  rsp_profile_options o = { .resolution = 1, .pid = -1, .system_wide = true, .by_command = true };
  rsp_profile_set *a = rsp_profile_set_build(ma, &o, NULL), *b = rsp_profile_set_build(mb, &o, NULL);
  rsp_profile_diff *diff = rsp_profile_diff_compute(a, b, NULL);
  /* W's runs and scheduler delays are the same: dropped in phase 1; the waits of W and of the
   * system (W alone) remain, EMD = 1/4 of the mass moved two buckets (22 -> 24) */
  CHECK_EQ(diff->n_pairs, 2);
  for (uint32_t i = 0; i < diff->n_pairs; i++) {
    CHECK_STR(diff->pairs[i].a->name, "wait [state S]");
    CHECK_NEAR(diff->pairs[i].distance, 0.5);
    CHECK(diff->pairs[i].peaks_changed);
  }
  CHECK_EQ(diff->n_similar, 4);
  rsp_profile_diff_free(diff);
  /* ranked by total operations: the waits stay (their latency changed) at distance 0 */
  rsp_profile_diff_options opt = { .method = RSP_DISTANCE_OPS };
  diff = rsp_profile_diff_compute(a, b, &opt);
  CHECK_EQ(diff->n_pairs, 2);
  CHECK_NEAR(diff->pairs[0].distance, 0);
  rsp_profile_diff_free(diff);
  rsp_profile_set_free(a);
  rsp_profile_set_free(b);
  rsp_model_free(ma);
  rsp_model_free(mb);

  /* issue 17: the holder's profiles exist in B only (an infinite distance): ranked after the
   * waits, whose change is real, not above them */
  ma = lock_scenario(8000 * US, false);
  mb = lock_scenario(32000 * US, true);
  a = rsp_profile_set_build(ma, &o, NULL);
  b = rsp_profile_set_build(mb, &o, NULL);
  diff = rsp_profile_diff_compute(a, b, NULL);
  bool one_sided = false, finite_after = false;
  for (uint32_t i = 0; i < diff->n_pairs; i++) {
    if (isinf(diff->pairs[i].distance))
      one_sided = true;
    else if (one_sided)
      finite_after = true;
  }
  CHECK(one_sided);
  CHECK(!finite_after);
  CHECK(diff->n_pairs > 0 && !isinf(diff->pairs[0].distance));
  rsp_profile_diff_free(diff);
  rsp_profile_set_free(a);
  rsp_profile_set_free(b);
  rsp_model_free(ma);
  rsp_model_free(mb);
}

enum { X = 300, Y = 400, K = 500 };

/* Two cpu hogs X and Y share cpu 0, each preempted after 3 ms for the other, which is switched in
 * 2 us later; kernel thread K on cpu 1 sleeps idle ('I') and is woken by the timer on a 4 ms lattice
 * (offset 123 us), but for three wakeups off it. */
static void test_characteristic_times(void)
{
  tb *t = tb_new(true);
  tb_switch_in(t, 1000 * US, 0, X, IDLE);
  int32_t cur = X, other = Y;
  uint64_t k_wakes[15];
  for (int i = 0; i < 15; i++)
    k_wakes[i] = i == 4 ? 18777 * US : i == 8 ? 35001 * US : i == 12 ? 51555 * US : (4000 * (uint64_t)(i + 1) + 123) * US; /* in time order, as a recording is */
  int next_k = 0;
  tb_switch_in(t, 1001 * US, 1, K, IDLE);
  tb_sched_switch(t, 1010 * US, 1, K, "I", IDLE);
  tb_switch_out(t, 1011 * US, 1, K, IDLE, false);
  for (int k = 0; k < 20; k++) {
    uint64_t end = (1000 + 3000 * (uint64_t)(k + 1)) * US;
    while (next_k < 15 && k_wakes[next_k] + 20 * US < end) { /* K's wakeups that come first */
      uint64_t w = k_wakes[next_k++];
      tb_wakeup(t, w, 1, IDLE, K, 1);
      tb_switch_out(t, w + 4 * US, 1, IDLE, K, false);
      tb_switch_in(t, w + 5 * US, 1, K, IDLE);
      tb_sched_switch(t, w + 14 * US, 1, K, "I", IDLE);
      tb_switch_out(t, w + 15 * US, 1, K, IDLE, false);
      tb_switch_in(t, w + 16 * US, 1, IDLE, K);
    }
    tb_sched_switch(t, end - 1 * US, 0, cur, "R+", other);
    tb_switch_out(t, end, 0, cur, other, true);
    tb_switch_in(t, end + 2 * US, 0, other, cur);
    int32_t swap = cur;
    cur = other;
    other = swap;
  }
  tb_sample(t, 70000 * US, 0, cur);
  rsp_model *m = tb_finish(t);
  rsp_characteristic_times ct;
  rsp_characteristic_times_measure(m, &ct);
  /* the first switch to Y is not counted (Y had not run: no sleep says it was runnable) */
  CHECK_EQ(ct.n_context_switches, 19);
  CHECK_EQ(ct.context_switch_ns, 2 * US);
  CHECK_EQ(ct.slice_ns, 3000 * US);
  CHECK_EQ(ct.timer_tick_ns, 4000 * US);
  CHECK_EQ(ct.n_tick_wakeups, 12);          /* the three off the lattice are not on it */
  CHECK_EQ(ct.disk_service_ns, 0);          /* no disk request, no network: not seen */
  CHECK_EQ(ct.loopback_rtt_ns, 0);
  rsp_model_free(m);
}

/* T's model (after PID's last sample at AT), PID's profiles and control paths in it; false (all freed) when either
 * cannot be built. */
static bool profiles_and_paths(tb *t, uint64_t at, int32_t pid, rsp_model **model, rsp_profile_set **set,
                               rsp_paths **paths)
{
  tb_sample(t, at, 0, pid);
  rsp_model *m = *model = tb_finish(t);
  rsp_profile_options o = { .resolution = 1, .pid = pid };
  GError *error = NULL;
  *set = rsp_profile_set_build(m, &o, &error);
  *paths = rsp_paths_build(m, pid, NULL, &error);
  CHECK(*set != NULL && *paths != NULL);
  if (*set && *paths)
    return true;
  rsp_profile_set_free(*set);
  if (*paths)
    rsp_paths_free(*paths);
  rsp_model_free(m);
  g_clear_error(&error);
  return false;
}

/* A wait's cause is the category the categories table gives the same sleep. One process P on cpu 0 sleeps
 * five times each way, written here: ended by a timer (the waking's callchain is hrtimer_wakeup), by an
 * interrupt on the idle cpu (no callchain), and with no wakeup recorded at all, in state S and in state D.
 * The truth: 5 instances of each cause (timed_out, hardware, unaccounted, misc_kernel); the categories table
 * splits a sleep at its wakeup (own category before, scheduler overhead after, 19 us here), so for each cause
 * the waits' latency less their scheduler delays (the sched-delay profile's instances of the same sleeps) is
 * that category's time in rsp_categories_compute over P's control paths, and the scheduler delays sum to its
 * scheduler overhead. */
static void test_causes_are_categories(void)
{
  enum { P = 600, N = 5 };
  enum { TIMER, IRQ, UNKNOWN_S, UNKNOWN_D, N_KINDS };
  static const rsp_category truth[N_KINDS] = { RSP_CAT_TIMED_OUT, RSP_CAT_HARDWARE, RSP_CAT_UNACCOUNTED,
                                               RSP_CAT_MISC_KERNEL };
  tb *t = tb_new(true);
  tb_comm(t, 0, 0, P, "causes", false);
  uint64_t cursor = 1000 * US, own[N_KINDS] = { 0 }, sched = 0;
  tb_switch_in(t, cursor, 0, P, IDLE);
  for (int i = 0; i < N * N_KINDS; i++) {
    int kind = i % N_KINDS;
    uint64_t d = (300 + 100 * (uint64_t)kind + 7 * (uint64_t)i) * US, run_end = cursor + 50 * US, end = run_end + d;
    tb_sched_switch(t, run_end - 1 * US, 0, P, kind == UNKNOWN_D ? "D" : "S", IDLE);
    tb_switch_out(t, run_end, 0, P, IDLE, false);
    tb_switch_in(t, run_end + 1 * US, 0, IDLE, P);
    if (kind == TIMER || kind == IRQ) {
      if (kind == TIMER)
        tb_next_stack(t, "hrtimer_wakeup,__hrtimer_run_queues");
      tb_waking(t, end - 20 * US, 0, IDLE, P, 0);
      tb_wakeup(t, end - 19 * US, 0, IDLE, P, 0);
      own[kind] += d - 19 * US;
      sched += 19 * US;
    } else {
      own[kind] += d;
    }
    tb_switch_out(t, end - 1 * US, 0, IDLE, P, false);
    tb_switch_in(t, end, 0, P, IDLE);
    cursor = end;
  }
  rsp_model *m;
  rsp_profile_set *set;
  rsp_paths *paths;
  if (!profiles_and_paths(t, cursor + 100 * US, P, &m, &set, &paths))
    return;
  rsp_categories cat;
  rsp_categories_compute(paths, &cat);
  const rsp_profile *delay = rsp_profile_set_find(set, "sched-delay", "causes", P);
  CHECK(delay != NULL);
  uint64_t count[RSP_N_CATEGORIES] = { 0 }, ns[RSP_N_CATEGORIES] = { 0 };
  for (uint32_t i = 0; i < rsp_profile_set_n(set); i++) {
    const rsp_profile *p = rsp_profile_set_get(set, i);
    if (p->kind != RSP_PROFILE_WAIT)
      continue;
    for (uint32_t k = 0; k < p->n_instances; k++) {
      const rsp_profile_instance *in = &p->instances[k];
      uint64_t after_wakeup = 0; /* the sched-delay instance of the same sleep */
      for (uint32_t j = 0; delay && j < delay->n_instances; j++)
        if (delay->instances[j].id == in->id)
          after_wakeup = delay->instances[j].ns;
      CHECK(in->cause < RSP_N_CATEGORIES);
      if (in->cause < RSP_N_CATEGORIES) {
        count[in->cause]++;
        ns[in->cause] += in->ns - after_wakeup;
      }
    }
  }
  for (int kind = 0; kind < N_KINDS; kind++) {
    rsp_category c = truth[kind];
    CHECK_EQ(count[c], N);
    CHECK_EQ(ns[c], own[kind]);        /* the profiles against the scenario */
    CHECK_EQ(cat.ns[c], own[kind]);    /* the categories table against the scenario */
    CHECK_EQ(ns[c], cat.ns[c]);        /* and so against each other */
  }
  CHECK_EQ(count[RSP_CAT_OTHER_PATH] + count[RSP_CAT_INVOLUNTARY], 0);
  CHECK(delay == NULL || delay->total_ns == sched);
  CHECK_EQ(cat.ns[RSP_CAT_SCHEDULER], sched);
  /* the JSON and text keys of the causes are the categories' keys */
  for (int c = 0; c < RSP_N_CATEGORIES; c++)
    CHECK_STR(rsp_profile_cause_key((rsp_category)c), rsp_category_key((rsp_category)c));
  rsp_paths_free(paths);
  rsp_profile_set_free(set);
  rsp_model_free(m);
}

/* PREV leaves cpu 0 for NEXT at AT (its sched_switch with STATE 1 us before, when STATE is not NULL). */
static void switch_on_cpu0(tb *t, uint64_t at, int32_t prev, const char *state, int32_t next, bool preempt)
{
  if (state)
    tb_sched_switch(t, at - 1 * US, 0, prev, state, next);
  tb_switch_out(t, at, 0, prev, next, preempt);
  tb_switch_in(t, at, 0, next, prev);
}

/* An interrupt on the idle cpu 1 wakes TARGET onto cpu 0 at AT. */
static void interrupt_wakes(tb *t, uint64_t at, int32_t target)
{
  tb_waking(t, at - 1 * US, 1, IDLE, target, 0);
  tb_wakeup(t, at, 1, IDLE, target, 0);
}

/* A task's time runnable off the cpu has the cause the categories table gives it: behind another task's run on that
 * cpu it is contention, on a cpu where nothing else ran it is scheduler overhead (a wakeup's delay) or a preemption
 * with no other task seen. P and Q (another process, which never wakes P: interrupts on cpu 1 wake both) share cpu 0;
 * written here: P woken while Q runs (Q goes on for 100 us), P woken on the idle cpu (60 us to its switch-in), P
 * preempted by Q for 200 us, P preempted with nothing seen for 150 us. */
static void test_runnable_causes(void)
{
  enum { P = 700, Q = 800 };
  tb *t = tb_new(true);
  tb_comm(t, 0, 0, P, "runnable", false);
  tb_comm(t, 0, 0, Q, "other", false);
  uint64_t c = 1000 * US;
  tb_switch_in(t, c, 0, P, IDLE);
  /* 1: P sleeps, Q runs; P's wakeup comes 50 us later, Q runs 100 us more */
  c += 50 * US;
  switch_on_cpu0(t, c, P, "S", Q, false);
  uint64_t woken1 = c + 50 * US;
  interrupt_wakes(t, woken1, P);
  c = woken1 + 100 * US;
  switch_on_cpu0(t, c, Q, "S", P, false);
  uint64_t delay1 = c - woken1;
  /* 2: P sleeps on the idle cpu, woken 300 us later, in 60 us later */
  c += 50 * US;
  switch_on_cpu0(t, c, P, "S", IDLE, false);
  uint64_t woken2 = c + 300 * US;
  interrupt_wakes(t, woken2, P);
  c = woken2 + 60 * US;
  switch_on_cpu0(t, c, IDLE, NULL, P, false);
  uint64_t delay2 = c - woken2;
  /* 3: Q woken, P preempted by it for 200 us */
  c += 50 * US;
  interrupt_wakes(t, c - 9 * US, Q);
  switch_on_cpu0(t, c, P, "R", Q, true);
  c += 200 * US;
  switch_on_cpu0(t, c, Q, "S", P, false);
  /* 4: P preempted, no other task seen for 150 us */
  c += 50 * US;
  switch_on_cpu0(t, c, P, "R", IDLE, true);
  c += 150 * US;
  switch_on_cpu0(t, c, IDLE, NULL, P, false);
  rsp_model *m;
  rsp_profile_set *set;
  rsp_paths *paths;
  if (!profiles_and_paths(t, c + 100 * US, P, &m, &set, &paths))
    return;
  uint64_t ns[RSP_N_CATEGORIES] = { 0 }, count[RSP_N_CATEGORIES] = { 0 };
  const char *names[] = { "sched-delay", "preemption" };
  for (unsigned k = 0; k < G_N_ELEMENTS(names); k++) {
    const rsp_profile *pr = rsp_profile_set_find(set, names[k], "runnable", P);
    CHECK(pr != NULL);
    for (uint32_t i = 0; pr && i < pr->n_instances; i++)
      if (pr->instances[i].cause < RSP_N_CATEGORIES) {
        ns[pr->instances[i].cause] += pr->instances[i].ns;
        count[pr->instances[i].cause]++;
      }
  }
  CHECK_EQ(count[RSP_CAT_CONTENTION], 2);
  CHECK_EQ(ns[RSP_CAT_CONTENTION], delay1 + 200 * US);
  CHECK_EQ(count[RSP_CAT_SCHEDULER], 1);
  CHECK_EQ(ns[RSP_CAT_SCHEDULER], delay2);
  CHECK_EQ(count[RSP_CAT_INVOLUNTARY], 1);
  CHECK_EQ(ns[RSP_CAT_INVOLUNTARY], 150 * US);
  /* the table over P's control paths says the same of the same time */
  rsp_categories cat;
  rsp_categories_compute(paths, &cat);
  CHECK_EQ(cat.ns[RSP_CAT_CONTENTION], delay1 + 200 * US);
  CHECK_EQ(cat.ns[RSP_CAT_SCHEDULER], delay2);
  CHECK_EQ(cat.ns[RSP_CAT_INVOLUNTARY], 150 * US);
  CHECK_EQ(cat.ns[RSP_CAT_PREEMPTED_BY_PATH], 0);
  rsp_paths_free(paths);
  rsp_profile_set_free(set);
  rsp_model_free(m);
}

int main(void)
{
  test_bucket_function();
  test_distances();
  test_peaks();
  test_two_peaks();
  test_selection();
  test_characteristic_times();
  test_causes_are_categories();
  test_runnable_causes();
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("latency profiles: all checks passed\n");
  return 0;
}
