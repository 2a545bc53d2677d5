/* PERF_RECORD_COMPRESSED: perf record -z writes its ring-buffer data as one zstd stream cut
 * into COMPRESSED records; a decompressed record may straddle two of them, so the remainder
 * is kept until the next one arrives. */
#include "reader/reader-private.h"

#include <string.h>
#include <zstd.h>

struct rsp_decompressor {
  ZSTD_DStream *ds;
  uint8_t *buf;
  size_t cap, start, end;
  uint64_t total_out;
};

rsp_decompressor *rsp_decompressor_new(void)
{
  rsp_decompressor *d = g_new0(rsp_decompressor, 1);
  d->ds = ZSTD_createDStream();
  ZSTD_initDStream(d->ds);
  d->cap = 1 << 20;
  d->buf = g_malloc(d->cap);
  return d;
}

void rsp_decompressor_free(rsp_decompressor *d)
{
  if (!d)
    return;
  ZSTD_freeDStream(d->ds);
  g_free(d->buf);
  g_free(d);
}

bool rsp_decompressor_feed(rsp_decompressor *d, const uint8_t *data, size_t size,
                           const char *path, uint64_t offset, GError **error)
{
  /* keep what is left of the previous payload at the front */
  if (d->start > 0) {
    memmove(d->buf, d->buf + d->start, d->end - d->start);
    d->end -= d->start;
    d->start = 0;
  }
  ZSTD_inBuffer in = {data, size, 0};
  while (in.pos < in.size) {
    if (d->cap - d->end < (1 << 16)) {
      if (d->cap >= (256u << 20)) {
        rsp_set_error(error, RSP_READER_ERROR_FORMAT, path, offset,
                      "COMPRESSED record expands past 256 MiB without a complete record");
        return false;
      }
      d->cap *= 2;
      d->buf = g_realloc(d->buf, d->cap);
    }
    ZSTD_outBuffer out = {d->buf + d->end, d->cap - d->end, 0};
    size_t ret = ZSTD_decompressStream(d->ds, &out, &in);
    if (ZSTD_isError(ret)) {
      rsp_set_error(error, RSP_READER_ERROR_FORMAT, path, offset,
                    "COMPRESSED record: zstd: %s", ZSTD_getErrorName(ret));
      ZSTD_initDStream(d->ds);
      return false;
    }
    d->end += out.pos;
    d->total_out += out.pos;
    if (out.pos == 0 && in.pos < in.size && ret != 0 && out.size > 0)
      continue;
  }
  return true;
}

const uint8_t *rsp_decompressor_next(rsp_decompressor *d, size_t *size, const char *path,
                                     uint64_t offset, GError **error)
{
  size_t have = d->end - d->start;
  if (have < sizeof(struct perf_event_header))
    return NULL;
  if (d->start & 7) { /* a damaged record size left the next one unaligned: realign */
    memmove(d->buf, d->buf + d->start, have);
    d->start = 0;
    d->end = have;
  }
  struct perf_event_header h;
  memcpy(&h, d->buf + d->start, sizeof h);
  if (h.size < sizeof h) {
    rsp_set_error(error, RSP_READER_ERROR_FORMAT, path, offset,
                  "record of size %u inside COMPRESSED data", h.size);
    d->start = d->end;
    return NULL;
  }
  if (have < h.size)
    return NULL;
  const uint8_t *rec = d->buf + d->start;
  d->start += h.size;
  *size = h.size;
  return rec;
}

size_t rsp_decompressor_pending(const rsp_decompressor *d)
{
  return d->end - d->start;
}

uint64_t rsp_decompressor_total_out(const rsp_decompressor *d)
{
  return d->total_out;
}
