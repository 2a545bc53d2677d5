/* A search in an ascending array of times that starts where the last one ended: the analyses' walks go from one
 * element to a neighbour in time, and a bisection of a task's or a cpu's millions of runs each time was a cache miss
 * a step. */
#pragma once

#include "model/model.h"

#include <stdint.h>

/* How many of the N ascending STARTS are <= KEY: galloped to from HINT (where the last search ended), then
 * bisected. */
static inline uint32_t rsp_count_le_from(const uint64_t *starts, uint32_t n, uint64_t key, uint32_t hint)
{
  uint32_t lo = 0, hi = n, h = hint < n ? hint : n;
  if (h < n && starts[h] <= key) {
    uint32_t step = 1;
    lo = h + 1;
    while (lo + step <= n && starts[lo + step - 1] <= key) {
      lo += step;
      step *= 2;
    }
    hi = lo + step <= n ? lo + step - 1 : n;
  } else if (h > 0) {
    uint32_t step = 1;
    hi = h;
    while (hi >= step && starts[hi - step] > key) {
      hi -= step;
      step *= 2;
    }
    lo = hi >= step ? hi - step + 1 : 0;
  }
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (starts[mid] <= key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Where [A, ...) begins among cpu CI's runs in CR: the index (into CR's arrays) of the first run that ends after A.
 * A cpu's runs do not overlap, so their ends are in order too, but a run may start before A and still cover it: the
 * count of starts <= A, searched from *HINT (where the last search of that cpu's runs ended, updated), then a step
 * back. */
static inline uint32_t rsp_cpu_runs_from(const rsp_model *m, const rsp_cpu_runs *cr, long ci, uint64_t a,
                                         uint32_t *hint)
{
  uint32_t first = cr->first[ci], n = cr->first[ci + 1] - first;
  uint32_t i = rsp_count_le_from(cr->starts + first, n, a, *hint);
  *hint = i;
  while (i > 0 && rsp_model_run(m, cr->runs[first + i - 1])->end > a)
    i--;
  return first + i;
}
