/* Comparing latency profiles: distances between two histograms and OSprof's three-phase selection
 * over two complete sets of profiles (reference/osprof-latency-analysis.txt, 3.2 and 5.3). */
#include "analysis/analysis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- Distances -------------------------------------------------------------------------------- */

static uint64_t sum_of(const uint64_t *h, uint32_t n)
{
  uint64_t s = 0;
  for (uint32_t i = 0; i < n; i++)
    s += h[i];
  return s;
}

/* In one dimension the least work to turn one normalized histogram into the other is the sum of
 * the differences of their cumulative sums, in units of mass x buckets. */
double rsp_histogram_emd(const uint64_t *a, const uint64_t *b, uint32_t n)
{
  uint64_t sa = sum_of(a, n), sb = sum_of(b, n);
  if (sa == 0 && sb == 0)
    return 0;
  if (sa == 0 || sb == 0)
    return INFINITY;
  double ca = 0, cb = 0, work = 0;
  for (uint32_t i = 0; i < n; i++) {
    ca += (double)a[i] / (double)sa;
    cb += (double)b[i] / (double)sb;
    work += fabs(ca - cb);
  }
  return work;
}

double rsp_histogram_chi2(const uint64_t *a, const uint64_t *b, uint32_t n)
{
  uint64_t sa = sum_of(a, n), sb = sum_of(b, n);
  if (sa == 0 && sb == 0)
    return 0;
  if (sa == 0 || sb == 0)
    return INFINITY;
  double d = 0;
  for (uint32_t i = 0; i < n; i++) {
    double p = (double)a[i] / (double)sa, q = (double)b[i] / (double)sb;
    if (p + q > 0)
      d += (p - q) * (p - q) / (p + q);
  }
  return d;
}

static double relative_difference(uint64_t x, uint64_t y)
{
  uint64_t m = MAX(x, y);
  return m ? fabs((double)x - (double)y) / (double)m : 0;
}

double rsp_profile_distance(const rsp_profile *a, const rsp_profile *b, rsp_distance_method method)
{
  uint64_t ca = a ? a->count : 0, cb = b ? b->count : 0;
  switch (method) {
  case RSP_DISTANCE_OPS:
    return relative_difference(ca, cb);
  case RSP_DISTANCE_LATENCY:
    return relative_difference(a ? a->total_ns : 0, b ? b->total_ns : 0);
  case RSP_DISTANCE_EMD:
  case RSP_DISTANCE_CHI2:
    break;
  }
  if (ca == 0 && cb == 0)
    return 0;
  if (ca == 0 || cb == 0)
    return INFINITY;
  int32_t lo = MIN(a->min_index, b->min_index);
  int32_t hi = MAX(a->min_index + (int32_t)a->n_buckets, b->min_index + (int32_t)b->n_buckets);
  uint32_t n = (uint32_t)(hi - lo);
  g_autofree uint64_t *ha = g_new0(uint64_t, n), *hb = g_new0(uint64_t, n);
  for (uint32_t i = 0; i < a->n_buckets; i++)
    ha[a->min_index - lo + (int32_t)i] = a->buckets[i].count;
  for (uint32_t i = 0; i < b->n_buckets; i++)
    hb[b->min_index - lo + (int32_t)i] = b->buckets[i].count;
  return method == RSP_DISTANCE_EMD ? rsp_histogram_emd(ha, hb, n) : rsp_histogram_chi2(ha, hb, n);
}

static const char *const method_names[] = {
  [RSP_DISTANCE_EMD] = "emd", [RSP_DISTANCE_CHI2] = "chi2",
  [RSP_DISTANCE_OPS] = "ops", [RSP_DISTANCE_LATENCY] = "latency",
};

bool rsp_distance_method_parse(const char *name, rsp_distance_method *out)
{
  for (unsigned i = 0; i < G_N_ELEMENTS(method_names); i++)
    if (name && strcmp(name, method_names[i]) == 0) {
      *out = (rsp_distance_method)i;
      return true;
    }
  return false;
}

const char *rsp_distance_method_name(rsp_distance_method method)
{
  return (unsigned)method < G_N_ELEMENTS(method_names) ? method_names[method] : "?";
}

/* ---- OSprof's three phases ---------------------------------------------------------------------- */

static uint64_t set_weight(const rsp_profile_set *s)
{
  /* the sum over the per-process (or per-command) profiles: system-wide ones repeat them */
  uint64_t total = 0;
  for (uint32_t i = 0; i < rsp_profile_set_n(s); i++) {
    const rsp_profile *p = rsp_profile_set_get(s, i);
    if (strcmp(p->process, "*") != 0)
      total += p->total_ns;
  }
  return total;
}

static const rsp_profile *find_partner(const rsp_profile_set *s, const rsp_profile *p)
{
  /* by class and command; with pids (one recording against itself) by pid too */
  return rsp_profile_set_find(s, p->name, p->process, p->pid);
}

/* Phase 2: the peaks, as a sentence into OUT; whether they differ. */
static bool compare_peaks(const rsp_profile *a, const rsp_profile *b, GString *out)
{
  unsigned r = a->resolution;
  if (a->n_peaks != b->n_peaks) {
    g_string_append_printf(out, "peaks %u -> %u", a->n_peaks, b->n_peaks);
    /* name the peaks of B that have no peak of A within one octave */
    for (uint32_t j = 0; j < b->n_peaks; j++) {
      bool matched = false;
      for (uint32_t i = 0; i < a->n_peaks; i++)
        if (abs(a->peaks[i].index - b->peaks[j].index) <= (int)r)
          matched = true;
      if (!matched) {
        char lo[32], hi[32];
        g_string_append_printf(out, ", new peak %s-%s (%" G_GUINT64_FORMAT ", %s)",
                               rsp_profile_format_ns(b->peaks[j].lo_ns, lo, sizeof lo),
                               rsp_profile_format_ns(b->peaks[j].hi_ns, hi, sizeof hi), b->peaks[j].count,
                               rsp_profile_cause_key(b->peaks[j].cause));
      }
    }
    for (uint32_t i = 0; i < a->n_peaks; i++) {
      bool matched = false;
      for (uint32_t j = 0; j < b->n_peaks; j++)
        if (abs(a->peaks[i].index - b->peaks[j].index) <= (int)r)
          matched = true;
      if (!matched) {
        char lo[32], hi[32];
        g_string_append_printf(out, ", peak %s-%s gone", rsp_profile_format_ns(a->peaks[i].lo_ns, lo, sizeof lo),
                               rsp_profile_format_ns(a->peaks[i].hi_ns, hi, sizeof hi));
      }
    }
    return true;
  }
  bool moved = false;
  for (uint32_t i = 0; i < a->n_peaks; i++)
    if (abs(a->peaks[i].index - b->peaks[i].index) >= (int)r) {
      char x[32], y[32];
      g_string_append_printf(out, "%speak moved %s -> %s", moved ? ", " : "",
                             rsp_profile_format_ns(a->peaks[i].avg_ns, x, sizeof x),
                             rsp_profile_format_ns(b->peaks[i].avg_ns, y, sizeof y));
      moved = true;
    }
  return moved;
}

static int by_distance(const void *x, const void *y)
{
  const rsp_profile_pair *p = x, *q = y;
  /* a class in one recording only has an infinite distance: after every real change, not above
   * them (issue 17), ordered among themselves by the latency that came or went */
  if (isinf(p->distance) != isinf(q->distance))
    return isinf(p->distance) ? 1 : -1;
  if (p->distance != q->distance)
    return p->distance < q->distance ? 1 : -1;
  uint64_t dp = (uint64_t)fabs((double)(p->a ? p->a->total_ns : 0) - (double)(p->b ? p->b->total_ns : 0));
  uint64_t dq = (uint64_t)fabs((double)(q->a ? q->a->total_ns : 0) - (double)(q->b ? q->b->total_ns : 0));
  if (dp != dq)
    return dp < dq ? 1 : -1;
  const rsp_profile *pp = p->a ? p->a : p->b, *qq = q->a ? q->a : q->b;
  int c = strcmp(pp->name, qq->name);
  return c ? c : strcmp(pp->process, qq->process);
}

static void percent(GString *out, const char *what, uint64_t x, uint64_t y, bool ns)
{
  char a[32], b[32];
  if (ns) {
    rsp_profile_format_ns(x, a, sizeof a);
    rsp_profile_format_ns(y, b, sizeof b);
  } else {
    snprintf(a, sizeof a, "%" G_GUINT64_FORMAT, x);
    snprintf(b, sizeof b, "%" G_GUINT64_FORMAT, y);
  }
  if (x)
    g_string_append_printf(out, "%s %+.0f%% (%s -> %s)", what, 100.0 * ((double)y - (double)x) / (double)x, a, b);
  else
    g_string_append_printf(out, "%s %s -> %s", what, a, b);
}

rsp_profile_diff *rsp_profile_diff_compute(const rsp_profile_set *sa, const rsp_profile_set *sb,
                                           const rsp_profile_diff_options *options)
{
  rsp_profile_diff_options o = options ? *options : (rsp_profile_diff_options){ 0 };
  if (o.similar_threshold <= 0)
    o.similar_threshold = 0.1;
  if (o.weight_threshold <= 0)
    o.weight_threshold = 0.001;
  if (o.min_ops == 0)
    o.min_ops = 10;
  rsp_profile_diff *diff = g_new0(rsp_profile_diff, 1);
  GArray *pairs = g_array_new(FALSE, TRUE, sizeof(rsp_profile_pair));
  double wa = (double)MAX(set_weight(sa), 1), wb = (double)MAX(set_weight(sb), 1);

  for (int side = 0; side < 2; side++) {
    const rsp_profile_set *from = side ? sb : sa, *other = side ? sa : sb;
    for (uint32_t i = 0; i < rsp_profile_set_n(from); i++) {
      const rsp_profile *p = rsp_profile_set_get(from, i), *q = find_partner(other, p);
      if (side == 1 && q)
        continue; /* paired already from A's side */
      const rsp_profile *a = side ? q : p, *b = side ? p : q;
      uint64_t la = a ? a->total_ns : 0, lb = b ? b->total_ns : 0;
      uint64_t ca = a ? a->count : 0, cb = b ? b->count : 0;
      /* phase 1: similar totals, or too light to matter */
      if (relative_difference(la, lb) < o.similar_threshold && relative_difference(ca, cb) < o.similar_threshold) {
        diff->n_similar++;
        continue;
      }
      if (ca < o.min_ops && cb < o.min_ops) {
        diff->n_few++;
        continue;
      }
      if ((double)la / wa < o.weight_threshold && (double)lb / wb < o.weight_threshold) {
        diff->n_negligible++;
        continue;
      }
      rsp_profile_pair pair = { .a = a, .b = b };
      GString *why = g_string_new(NULL);
      if (!a)
        g_string_append(why, "only in B");
      else if (!b)
        g_string_append(why, "only in A");
      else {
        /* phase 2: the peaks */
        pair.peaks_changed = compare_peaks(a, b, why);
        if (why->len)
          g_string_append(why, "; ");
        percent(why, "latency", la, lb, true);
        g_string_append(why, ", ");
        percent(why, "ops", ca, cb, false);
      }
      /* phase 3: the distance */
      pair.distance = rsp_profile_distance(a, b, o.method);
      pair.reason = g_string_free(why, FALSE);
      g_array_append_val(pairs, pair);
    }
  }
  if (pairs->len > 1) /* qsort of no elements still wants a pointer */
    qsort(pairs->data, pairs->len, sizeof(rsp_profile_pair), by_distance);
  diff->n_pairs = pairs->len;
  diff->pairs = (rsp_profile_pair *)(void *)g_array_free(pairs, FALSE);
  return diff;
}

void rsp_profile_diff_free(rsp_profile_diff *diff)
{
  if (!diff)
    return;
  for (uint32_t i = 0; i < diff->n_pairs; i++)
    g_free(diff->pairs[i].reason);
  g_free(diff->pairs);
  g_free(diff);
}
