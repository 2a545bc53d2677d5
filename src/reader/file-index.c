/* FILE.rsp-index: where a windowed read of FILE may start. Written beside FILE by the first windowed read (a
 * scan of the record headers and timestamps, no decoding), it holds FILE's size and mtime (a changed file makes
 * it stale), and per round (the records up to each FINISHED_ROUND) its first byte and the earliest and latest
 * timestamps in it, and the offsets of every record that is not a SAMPLE, SWITCH or FINISHED_ROUND. A windowed
 * read then reads those records before the window by offset (names and maps) and starts scanning at the first
 * round that reaches the window. Anything about the index that looks wrong: it is ignored and the file scanned.
 * Not for pipe-mode streams (no seeking) nor files with COMPRESSED or AUXTRACE records (their records are not at
 * offsets of their own; such files are scanned from the start). A directory that cannot be written gets no index. */
#include "reader/reader-private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INDEX_MAGIC "RSPIDX01"

typedef struct index_round {
  uint64_t offset;   /* its first record */
  uint64_t min, max; /* timestamps of its records (min UINT64_MAX, max 0: none) */
} index_round;

typedef struct index_head {
  char magic[8];
  uint64_t file_size, mtime_ns, data_offset, data_size;
  uint64_t first_timestamp, time_first, sample_time_first;
  uint64_t n_rounds, n_others;
} index_head;

static char *index_path(const rsp_reader *r) { return g_strconcat(r->path, ".rsp-index", NULL); }

static uint64_t mtime_ns(const struct stat *st)
{
  return (uint64_t)st->st_mtim.tv_sec * 1000000000ull + (uint64_t)st->st_mtim.tv_nsec;
}

/* The scan: false when the file has records the index cannot place (or cannot be read). */
static bool build(rsp_reader *r, index_head *h, GArray *rounds, GArray *others)
{
  uint64_t pos = r->info.data_offset, end = r->info.data_offset + r->info.data_size;
  if (end > r->info.file_size)
    end = r->info.file_size;
  /* a second sequential view of the file, beside the reader's own (the records as mapped windows) */
  rsp_source src;
  if (!rsp_source_open(&src, r->path, NULL))
    return false;
  bool ok = rsp_source_seek(&src, pos, end, NULL);
  index_round cur = { pos, UINT64_MAX, 0 };
  uint8_t *scratch = NULL;
  size_t scratch_cap = 0;
  while (ok && pos + 8 <= end) {
    size_t avail;
    const uint8_t *rec = rsp_source_peek(&src, 8, &avail, NULL);
    struct perf_event_header eh;
    if (rec)
      memcpy(&eh, rec, 8);
    if (!rec || eh.size < 8 || pos + eh.size > end || eh.type == RSP_RECORD_COMPRESSED ||
        eh.type == RSP_RECORD_COMPRESSED2 || eh.type == RSP_RECORD_AUXTRACE ||
        eh.type == RSP_RECORD_HEADER_TRACING_DATA || !(rec = rsp_source_peek(&src, eh.size, &avail, NULL))) {
      ok = false;
      break;
    }
    if (eh.type == RSP_RECORD_FINISHED_ROUND) {
      g_array_append_val(rounds, cur);
      cur = (index_round){ pos + eh.size, UINT64_MAX, 0 };
    } else {
      uint64_t t;
      bool per_event = rsp_window_per_event(eh.type);
      if (!per_event)
        g_array_append_val(others, pos);
      bool aligned = (pos - r->info.data_offset) % 8 == 0;
      if (aligned && (uintptr_t)rec % 8) { /* a data section not at a multiple of 8 in the file */
        if (scratch_cap < eh.size)
          scratch = g_realloc(scratch, scratch_cap = 65536);
        memcpy(scratch, rec, eh.size);
        rec = scratch;
      }
      if (eh.type < 64 && aligned && rsp_reader_record_time(r, rec, eh.size, &t) && t && t != UINT64_MAX) {
        if (!h->first_timestamp)
          h->first_timestamp = t;
        if (!h->time_first || t < h->time_first)
          h->time_first = t;
        if (per_event && (!h->sample_time_first || t < h->sample_time_first))
          h->sample_time_first = t;
        cur.min = MIN(cur.min, t);
        cur.max = MAX(cur.max, t);
      } else if (!aligned) {
        ok = false; /* records perf leaves unaligned only after COMPRESSED ones */
      }
    }
    rsp_source_consume(&src, eh.size);
    pos += eh.size;
    if (rsp_source_release_due(&src))
      rsp_source_release(&src, pos); /* a scan: nothing behind is looked at again */
  }
  g_array_append_val(rounds, cur);
  g_free(scratch);
  rsp_source_close(&src);
  return ok && pos == end;
}

static void write_index(rsp_reader *r, const index_head *h, GArray *rounds, GArray *others)
{
  char *path = index_path(r);
  char *tmp = g_strdup_printf("%s.%d.tmp", path, (int)getpid());
  FILE *f = fopen(tmp, "wb");
  bool ok = f && fwrite(h, sizeof *h, 1, f) == 1 &&
            fwrite(rounds->data, sizeof(index_round), rounds->len, f) == rounds->len &&
            fwrite(others->data, sizeof(uint64_t), others->len, f) == others->len;
  if (f && fclose(f) != 0)
    ok = false;
  if (ok && rename(tmp, path) == 0)
    r->stats.index_written = true;
  else if (f)
    unlink(tmp); /* a read-only directory, a full disk: no index, nothing else changes */
  g_free(tmp);
  g_free(path);
}

static bool read_index(rsp_reader *r, const struct stat *st, index_head *h, GArray *rounds, GArray *others)
{
  char *path = index_path(r);
  gchar *data = NULL;
  gsize len = 0;
  bool ok = g_file_get_contents(path, &data, &len, NULL);
  g_free(path);
  ok = ok && len >= sizeof *h;
  if (ok)
    memcpy(h, data, sizeof *h);
  ok = ok && memcmp(h->magic, INDEX_MAGIC, 8) == 0 && h->file_size == (uint64_t)st->st_size &&
       h->mtime_ns == mtime_ns(st) && h->data_offset == r->info.data_offset && h->data_size == r->info.data_size &&
       h->n_rounds >= 1 && h->n_rounds < len / sizeof(index_round) + 1 && h->n_others < len / 8 + 1 &&
       len == sizeof *h + h->n_rounds * sizeof(index_round) + h->n_others * 8;
  if (ok) {
    g_array_append_vals(rounds, data + sizeof *h, (guint)h->n_rounds);
    g_array_append_vals(others, data + sizeof *h + h->n_rounds * sizeof(index_round), (guint)h->n_others);
    uint64_t end = h->data_offset + h->data_size, prev = h->data_offset;
    for (guint i = 0; ok && i < rounds->len; i++) {
      uint64_t o = g_array_index(rounds, index_round, i).offset;
      ok = o >= prev && o <= end && (i > 0 || o == h->data_offset);
      prev = o;
    }
    prev = h->data_offset;
    for (guint i = 0; ok && i < others->len; i++) {
      uint64_t o = g_array_index(others, uint64_t, i);
      ok = o >= prev && o + 8 <= end && (i == 0 || o > prev);
      prev = o;
    }
  }
  g_free(data);
  return ok;
}

/* The records before the round START (by offset), every one checked before any is processed. */
static bool read_before(rsp_reader *r, GArray *others, uint64_t start, GError **error)
{
  GByteArray *recs = g_byte_array_new();
  GArray *offs = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  bool ok = true;
  for (guint i = 0; ok && i < others->len; i++) {
    uint64_t o = g_array_index(others, uint64_t, i);
    if (o >= start)
      break;
    struct perf_event_header eh;
    ok = pread(r->src.fd, &eh, 8, (off_t)o) == 8 && eh.size >= 8 && o + eh.size <= start &&
         !rsp_window_per_event(eh.type) && eh.type != RSP_RECORD_FINISHED_ROUND && eh.type != RSP_RECORD_COMPRESSED &&
         eh.type != RSP_RECORD_COMPRESSED2 && eh.type != RSP_RECORD_AUXTRACE &&
         eh.type != RSP_RECORD_HEADER_TRACING_DATA && eh.type != 0;
    if (!ok)
      break;
    guint at = recs->len;
    g_byte_array_set_size(recs, at + eh.size);
    ok = pread(r->src.fd, recs->data + at, eh.size, (off_t)o) == (ssize_t)eh.size;
    g_array_append_val(offs, o);
  }
  if (ok) {
    /* GByteArray data is malloc'd (16-aligned) and records are multiples of 8: each stays 8-aligned */
    size_t at = 0;
    for (guint i = 0; ok && i < offs->len; i++) {
      const struct perf_event_header *eh = (const struct perf_event_header *)(recs->data + at);
      ok = rsp_reader_process_record(r, recs->data + at, eh->size, g_array_index(offs, uint64_t, i), error);
      at += eh->size;
    }
  }
  g_byte_array_unref(recs);
  g_array_unref(offs);
  return ok;
}

bool rsp_index_apply(rsp_reader *r, GError **error)
{
  struct stat st;
  if (r->info.pipe_mode || !r->src.seekable || r->opts.no_index || fstat(r->src.fd, &st) != 0)
    return true;
  index_head h = { .magic = INDEX_MAGIC };
  GArray *rounds = g_array_new(FALSE, FALSE, sizeof(index_round));
  GArray *others = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  bool ok = read_index(r, &st, &h, rounds, others);
  if (!ok) {
    g_array_set_size(rounds, 0);
    g_array_set_size(others, 0);
    memset(&h, 0, sizeof h);
    memcpy(h.magic, INDEX_MAGIC, 8);
    h.file_size = (uint64_t)st.st_size;
    h.mtime_ns = mtime_ns(&st);
    h.data_offset = r->info.data_offset;
    h.data_size = r->info.data_size;
    ok = build(r, &h, rounds, others);
    h.n_rounds = rounds->len;
    h.n_others = others->len;
    if (ok)
      write_index(r, &h, rounds, others);
  }
  bool result = true;
  if (ok && h.first_timestamp) {
    rsp_reader_stats *s = &r->stats;
    /* what the scan from the start would have found (time-window.c) */
    if (!s->recording_start || h.first_timestamp < s->recording_start)
      s->recording_start = h.first_timestamp;
    s->time_first_seen = h.time_first;
    s->sample_time_first_seen = h.sample_time_first;
    rsp_window_resolve(r);
    guint j = 0; /* the first round that reaches the window */
    while (j < rounds->len && g_array_index(rounds, index_round, j).max < s->window_lo)
      j++;
    uint64_t data_end = h.data_offset + h.data_size;
    uint64_t start = j < rounds->len ? g_array_index(rounds, index_round, j).offset : data_end;
    /* ...and the first from which on every round begins after the window (and RSP_WINDOW_STOP_AFTER_NS more:
     * the records after it, names and maps included, are the scan's after its stop too) */
    guint k = rounds->len;
    while (k > j && g_array_index(rounds, index_round, k - 1).min > r->window_stop)
      k--;
    uint64_t end = k < rounds->len ? g_array_index(rounds, index_round, k).offset : data_end;
    if (start > h.data_offset || end < data_end) {
      result = start <= h.data_offset || read_before(r, others, start, error);
      if (result)
        result = rsp_source_seek(&r->src, start, MAX(start, end), error);
      s->index_used = result;
      s->window_stopped = result && end < data_end;
    }
  }
  g_array_unref(rounds);
  g_array_unref(others);
  return result;
}
