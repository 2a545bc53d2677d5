/* Global time order across CPUs, the way perf's ordered-events does it: records are held until
 * a FINISHED_ROUND says that everything older than the previous round's newest record has been
 * written, then released sorted by (time, file order). Memory is bounded: past the budget the
 * oldest half goes without waiting for a round. A record that stays where it is (the file's mapping) is
 * held by its address, as perf holds it; others (unpacked from COMPRESSED records, read from a pipe) are
 * copied into chunks. Both count against the budget. The records not yet deliverable and the deliverable ones
 * are two arrays: a round moves each entry once, from the first to the second (one array, compacted, partitioned
 * through a scratch copy and sorted back into place, copied the waiting entries three times a round: 313 M
 * instructions of memcpy on deep3m, 2.5 % of rsp-summary --categories). */
#include "reader/reader-private.h"

#include <string.h>

#define CHUNK_SIZE (1u << 20)
#define NO_CHUNK UINT32_MAX /* a record held in place */

void rsp_oe_init(rsp_ordered_events *oe, size_t max_bytes)
{
  memset(oe, 0, sizeof *oe);
  oe->chunks = g_ptr_array_new_with_free_func(g_free);
  oe->chunk_used = g_array_new(FALSE, TRUE, sizeof(size_t));
  oe->chunk_live = g_array_new(FALSE, TRUE, sizeof(size_t));
  oe->free_chunks = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  oe->cur_chunk = UINT32_MAX;
  oe->max_bytes = max_bytes;
  oe->head = 0;
}

void rsp_oe_free(rsp_ordered_events *oe)
{
  g_free(oe->q);
  g_free(oe->rq);
  g_free(oe->tmp);
  g_ptr_array_unref(oe->chunks);
  g_array_unref(oe->chunk_used);
  g_array_unref(oe->chunk_live);
  g_array_unref(oe->free_chunks);
  memset(oe, 0, sizeof *oe);
}

static uint32_t new_chunk(rsp_ordered_events *oe)
{
  uint32_t c;
  if (oe->free_chunks->len) {
    c = g_array_index(oe->free_chunks, uint32_t, oe->free_chunks->len - 1);
    g_array_set_size(oe->free_chunks, oe->free_chunks->len - 1);
  } else {
    c = oe->chunks->len;
    g_ptr_array_add(oe->chunks, g_malloc(CHUNK_SIZE));
    g_array_set_size(oe->chunk_used, c + 1);
    g_array_set_size(oe->chunk_live, c + 1);
  }
  g_array_index(oe->chunk_used, size_t, c) = 0;
  g_array_index(oe->chunk_live, size_t, c) = 0;
  return c;
}

static void push(rsp_ordered_events *oe, uint64_t time, uint64_t offset, uint8_t *record, uint32_t chunk,
                 uint32_t evsel)
{
  if (oe->n == oe->cap) {
    oe->cap = oe->cap ? oe->cap * 2 : 4096;
    oe->q = g_renew(rsp_queued, oe->q, oe->cap);
  }
  if (time < oe->last_delivered_time)
    oe->out_of_order++;
  oe->q[oe->n++] = (rsp_queued){.time = time, .seq = oe->seq++, .offset = offset,
                                .record = record, .chunk = chunk, .evsel = evsel};
  if (time > oe->max_time)
    oe->max_time = time;
  size_t held = oe->n + (oe->rn - oe->head);
  if (held > oe->max_buffered)
    oe->max_buffered = held;
}

static void release(rsp_ordered_events *oe, uint32_t c, size_t size)
{
  if (c == NO_CHUNK) { /* held in place */
    oe->bytes_buffered -= size;
    return;
  }
  size_t *live = &g_array_index(oe->chunk_live, size_t, c);
  (*live)--;
  oe->bytes_buffered -= size;
  if (*live == 0 && c != oe->cur_chunk)
    g_array_append_val(oe->free_chunks, c);
}

void rsp_oe_queue(rsp_ordered_events *oe, const void *record, size_t size, uint64_t time,
                  uint64_t offset, uint32_t evsel, bool lasting)
{
  size_t aligned = (size + 7) & ~(size_t)7;
  if (lasting) {
    oe->bytes_buffered += aligned;
    push(oe, time, offset, (uint8_t *)record, NO_CHUNK, evsel);
    return;
  }
  if (oe->cur_chunk == UINT32_MAX ||
      g_array_index(oe->chunk_used, size_t, oe->cur_chunk) + aligned > CHUNK_SIZE) {
    uint32_t old = oe->cur_chunk;
    oe->cur_chunk = new_chunk(oe);
    if (old != UINT32_MAX && g_array_index(oe->chunk_live, size_t, old) == 0)
      g_array_append_val(oe->free_chunks, old);
  }
  size_t *used = &g_array_index(oe->chunk_used, size_t, oe->cur_chunk);
  uint8_t *dst = (uint8_t *)g_ptr_array_index(oe->chunks, oe->cur_chunk) + *used;
  memcpy(dst, record, size);
  *used += aligned;
  g_array_index(oe->chunk_live, size_t, oe->cur_chunk)++;
  oe->bytes_buffered += aligned;
  push(oe, time, offset, dst, oe->cur_chunk, evsel);
}

uint64_t rsp_oe_min_lasting_offset(const rsp_ordered_events *oe)
{
  uint64_t min = UINT64_MAX;
  for (size_t i = oe->head; i < oe->rn; i++)
    if (oe->rq[i].chunk == NO_CHUNK && oe->rq[i].offset < min)
      min = oe->rq[i].offset;
  for (size_t i = 0; i < oe->n; i++)
    if (oe->q[i].chunk == NO_CHUNK && oe->q[i].offset < min)
      min = oe->q[i].offset;
  return min;
}

/* The last entry handed out stays valid until the next pop; then its storage goes back. */
static void release_delivered(rsp_ordered_events *oe)
{
  if (oe->head == 0)
    return;
  rsp_queued *prev = &oe->rq[oe->head - 1];
  if (prev->record) {
    uint16_t sz;
    memcpy(&sz, prev->record + 6, sizeof sz);
    release(oe, prev->chunk, ((size_t)sz + 7) & ~(size_t)7);
    prev->record = NULL;
  }
}

static inline bool before(const rsp_queued *a, const rsp_queued *b)
{
  return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

/* Natural merge sort of rq[0, n): per-CPU buffers arrive as long sorted runs, so this is near linear. (time, seq)
 * is a total order: the result does not depend on the order the entries come in. */
static void sort_ready(rsp_ordered_events *oe, size_t n)
{
  if (n < 2)
    return;
  if (oe->tmp_cap < n) {
    g_free(oe->tmp);
    oe->tmp_cap = n;
    oe->tmp = g_new(rsp_queued, n);
  }
  rsp_queued *src = oe->rq, *dst = oe->tmp;
  for (;;) {
    size_t runs = 0, i = 0;
    while (i < n) {
      size_t lo = i, mid = i + 1;
      while (mid < n && !before(&src[mid], &src[mid - 1]))
        mid++;
      size_t hi = mid;
      if (mid < n) {
        hi = mid + 1;
        while (hi < n && !before(&src[hi], &src[hi - 1]))
          hi++;
      }
      /* merge src[lo,mid) and src[mid,hi) into dst[lo,hi) */
      size_t x = lo, y = mid, k = lo;
      while (x < mid && y < hi)
        dst[k++] = before(&src[y], &src[x]) ? src[y++] : src[x++];
      while (x < mid)
        dst[k++] = src[x++];
      while (y < hi)
        dst[k++] = src[y++];
      runs++;
      i = hi;
    }
    rsp_queued *t = src;
    src = dst;
    dst = t;
    if (runs <= 1)
      break;
  }
  if (src != oe->rq) { /* sorted into the scratch buffer: the two trade places */
    size_t cap = oe->rcap;
    oe->rq = oe->tmp;
    oe->rcap = oe->tmp_cap;
    oe->tmp = dst;
    oe->tmp_cap = cap;
  }
}

/* Moves the queued entries with time <= LIMIT (all of them with ALL) to the deliverable ones, sorted. */
static void make_ready(rsp_ordered_events *oe, uint64_t limit, bool all)
{
  release_delivered(oe);
  /* the deliverable entries not yet delivered to the front */
  size_t left = oe->rn - oe->head;
  if (oe->head > 0 && left)
    memmove(oe->rq, oe->rq + oe->head, left * sizeof *oe->rq);
  oe->rn = left;
  oe->head = 0;
  if (oe->rcap < oe->rn + oe->n) {
    oe->rcap = MAX(oe->rn + oe->n, oe->rcap * 2);
    oe->rq = g_renew(rsp_queued, oe->rq, oe->rcap);
  }
  if (all) {
    if (oe->n) /* q is NULL before the first event: memcpy(NULL, NULL, 0) is UB */
      memcpy(oe->rq + oe->rn, oe->q, oe->n * sizeof *oe->q);
    oe->rn += oe->n;
    oe->n = 0;
  } else {
    /* those up to LIMIT go; the others stay, in arrival order */
    size_t stay = 0;
    for (size_t i = 0; i < oe->n; i++) {
      if (oe->q[i].time <= limit)
        oe->rq[oe->rn++] = oe->q[i];
      else
        oe->q[stay++] = oe->q[i];
    }
    oe->n = stay;
  }
  /* The entries already deliverable are sorted; the natural merge takes them as one run. */
  sort_ready(oe, oe->rn);
}

void rsp_oe_round(rsp_ordered_events *oe)
{
  make_ready(oe, oe->next_flush, false);
  oe->next_flush = oe->max_time;
}

void rsp_oe_flush_all(rsp_ordered_events *oe)
{
  make_ready(oe, UINT64_MAX, true);
}

bool rsp_oe_over_budget(const rsp_ordered_events *oe)
{
  return oe->bytes_buffered > oe->max_bytes;
}

void rsp_oe_flush_half(rsp_ordered_events *oe)
{
  /* the median time of what is queued: release everything up to it */
  size_t n = oe->n;
  if (n == 0)
    return;
  uint64_t *times = g_new(uint64_t, n);
  for (size_t i = 0; i < n; i++)
    times[i] = oe->q[i].time;
  /* nth element by sorting a copy: rare path */
  for (size_t gap = n / 2; gap > 0; gap /= 2)
    for (size_t i = gap; i < n; i++)
      for (size_t j = i; j >= gap && times[j - gap] > times[j]; j -= gap) {
        uint64_t t = times[j];
        times[j] = times[j - gap];
        times[j - gap] = t;
      }
  uint64_t mid = times[n / 2];
  g_free(times);
  make_ready(oe, mid, false);
  if (oe->next_flush < mid)
    oe->next_flush = mid;
}

const rsp_queued *rsp_oe_pop(rsp_ordered_events *oe)
{
  release_delivered(oe);
  if (oe->head >= oe->rn)
    return NULL;
  const rsp_queued *e = &oe->rq[oe->head++];
  if (e->time > oe->last_delivered_time)
    oe->last_delivered_time = e->time;
  return e;
}

const rsp_queued *rsp_oe_peek(const rsp_ordered_events *oe)
{
  return oe->head < oe->rn ? &oe->rq[oe->head] : NULL;
}

const rsp_queued *rsp_oe_peek_at(const rsp_ordered_events *oe, size_t k)
{
  return oe->head + k < oe->rn ? &oe->rq[oe->head + k] : NULL;
}
