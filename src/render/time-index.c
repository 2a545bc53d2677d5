/* A coarse index of a sorted array of times, so that a search for a time touches a few neighbouring entries of it
 * instead of a binary search's probes across the whole (at full zoom-out the running view searches each dense
 * row's runs and sleeps once per pixel column, and most of those probes missed the cache: issue 18, a 4.3 GB
 * recording's redraw).
 *
 * The times' span is cut into buckets of 2^shift ns, about one per RSP_TIME_INDEX_PER_BUCKET times; below[b] counts
 * the times before the start of bucket b. A time T in bucket b has every time before bucket b before it and every
 * time from bucket b + 1 on after it, so the number of times before T, and the number at or before T, both lie
 * within [below[b], below[b + 1]]: a search there gives what a search of the whole gives, the same index. Times
 * out of order have no index (a search of the whole then goes as before). */
#include "render/render-private.h"

#include <string.h>

enum { RSP_TIME_INDEX_PER_BUCKET = 8 };

static inline uint64_t time_at(const void *times, size_t stride, uint32_t i)
{
  uint64_t t;
  memcpy(&t, (const char *)times + (size_t)i * stride, sizeof t);
  return t;
}

void rsp_time_index_build(rsp_time_index *ix, const void *times, size_t stride, uint32_t n)
{
  *ix = (rsp_time_index){ .n = n };
  if (n < RSP_TIME_INDEX_MIN)
    return;
  for (uint32_t i = 1; i < n; i++)
    if (time_at(times, stride, i) < time_at(times, stride, i - 1))
      return; /* out of order: no index */
  uint64_t first = time_at(times, stride, 0), span = time_at(times, stride, n - 1) - first;
  uint64_t target = n / RSP_TIME_INDEX_PER_BUCKET;
  unsigned shift = 0;
  while (shift < 63 && (span >> shift) >= target) /* (span + 1 would wrap for a span of all of time) */
    shift++;
  uint64_t nb = (span >> shift) + 1; /* the last bucket holds the last time: (nb << shift) > span */
  ix->below = g_new(uint32_t, nb + 1);
  ix->first = first;
  ix->shift = shift;
  ix->nb = (uint32_t)nb;
  uint32_t j = 0;
  ix->below[0] = 0;
  for (uint64_t b = 1; b < nb; b++) {
    uint64_t edge = first + (b << shift); /* (b << shift) <= span: no overflow */
    while (j < n && time_at(times, stride, j) < edge)
      j++;
    ix->below[b] = j;
  }
  ix->below[nb] = n;
}

void rsp_time_index_clear(rsp_time_index *ix)
{
  g_free(ix->below);
  *ix = (rsp_time_index){ 0 };
}

void rsp_time_index_range(const rsp_time_index *ix, uint64_t t, uint32_t *lo, uint32_t *hi)
{
  if (!ix->below) {
    *lo = 0;
    *hi = ix->n;
    return;
  }
  if (t < ix->first) {
    *lo = *hi = 0;
    return;
  }
  uint64_t b = (t - ix->first) >> ix->shift;
  if (b >= ix->nb) {
    *lo = *hi = ix->n; /* after the last time */
    return;
  }
  *lo = ix->below[b];
  *hi = ix->below[b + 1];
}
