/* The running view's index of sorted times (src/render/time-index.c) against a search of the whole array: for
 * random sorted times (runs of equal ones, gaps, times near 2^64), every time asked for, the number of times
 * before it and at or before it lie in the range the index gives; times out of order get no index. */
#include "../model/checks.h"
#include "render/render-private.h"

static int shown;

static uint32_t count_before(const uint64_t *t, uint32_t n, uint64_t x, bool or_at)
{
  uint32_t c = 0;
  for (uint32_t i = 0; i < n; i++)
    c += or_at ? t[i] <= x : t[i] < x;
  return c;
}

static void check_array(const uint64_t *t, uint32_t n, GRand *r)
{
  rsp_time_index ix;
  rsp_time_index_build(&ix, t, sizeof *t, n);
  CHECK(ix.n == n);
  CHECK(n < RSP_TIME_INDEX_MIN ? ix.below == NULL : ix.below != NULL);
  for (int q = 0; q < 400; q++) {
    uint64_t x;
    switch (q % 4) {
    case 0: x = t[g_rand_int_range(r, 0, (gint32)n)]; break;                   /* a time of the array */
    case 1: x = t[g_rand_int_range(r, 0, (gint32)n)] + 1; break;               /* just after one */
    case 2: x = t[g_rand_int_range(r, 0, (gint32)n)] - 1; break;               /* just before one */
    default: x = (uint64_t)g_rand_int(r) << 32 | g_rand_int(r); break;         /* anywhere */
    }
    if (q == 5)
      x = 0;
    if (q == 6)
      x = UINT64_MAX;
    uint32_t lo, hi;
    rsp_time_index_range(&ix, x, &lo, &hi);
    uint32_t before = count_before(t, n, x, false), at = count_before(t, n, x, true);
    CHECK(lo <= hi && hi <= n);
    CHECK(lo <= before && before <= hi);
    if (!(lo <= before && before <= hi) && ++shown < 4)
      fprintf(stderr, "n %u x %llu lo %u hi %u before %u first %llu shift %u nb %u\n", n, (unsigned long long)x, lo,
              hi, before, (unsigned long long)ix.first, ix.shift, ix.nb);
    CHECK(lo <= at && at <= hi);
  }
  rsp_time_index_clear(&ix);
}

int main(void)
{
  GRand *r = g_rand_new_with_seed(18);
  enum { MAX = 5000 };
  uint64_t *t = g_new(uint64_t, MAX);
  for (int round = 0; round < 200; round++) {
    uint32_t n = (uint32_t)g_rand_int_range(r, 1, MAX);
    uint64_t base = round % 5 == 0 ? UINT64_MAX - (uint64_t)n * 1000000 : (uint64_t)g_rand_int(r) * 1000;
    uint64_t now = base;
    for (uint32_t i = 0; i < n; i++) {
      switch (g_rand_int_range(r, 0, 4)) {
      case 0: break;                                                            /* the same time again */
      case 1: now += (uint64_t)g_rand_int_range(r, 1, 1000); break;
      case 2: now += (uint64_t)g_rand_int_range(r, 1, 1000) * 1000; break;
      default: if (round % 5 != 0) now += (uint64_t)g_rand_int_range(r, 1, 1000) * 1000000000ull; break;
      }
      t[i] = now;
    }
    check_array(t, n, r);
  }
  /* all times equal; the span of all of time */
  for (uint32_t i = 0; i < 1000; i++)
    t[i] = 77;
  check_array(t, 1000, r);
  for (uint32_t i = 0; i < 1000; i++)
    t[i] = i == 999 ? UINT64_MAX : (uint64_t)i;
  check_array(t, 1000, r);
  /* out of order: no index, the whole array to search */
  for (uint32_t i = 0; i < 1000; i++)
    t[i] = i;
  t[500] = 3;
  rsp_time_index ix;
  rsp_time_index_build(&ix, t, sizeof *t, 1000);
  CHECK(ix.below == NULL);
  uint32_t lo, hi;
  rsp_time_index_range(&ix, 600, &lo, &hi);
  CHECK(lo == 0 && hi == 1000);
  rsp_time_index_clear(&ix);
  g_free(t);
  g_rand_free(r);
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  return failures ? 1 : 0;
}
