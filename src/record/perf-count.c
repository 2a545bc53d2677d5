/* Counting a perf.data: see perf-count.h. */
#include "record/perf-count.h"

#include <linux/perf_event.h>
#include <string.h>

G_DEFINE_QUARK(rsp-perf-count-error-quark, rsp_perf_count_error)

#define FAIL(...) g_set_error(error, RSP_PERF_COUNT_ERROR, 0, __VA_ARGS__)

enum {
  HEADER_SIZE = 104,     /* struct perf_file_header */
  FEAT_EVENT_DESC = 12,  /* HEADER_EVENT_DESC */
  FEAT_BITS = 256,
  REC_COMPRESSED = 81,   /* PERF_RECORD_COMPRESSED */
  REC_COMPRESSED2 = 83,  /* PERF_RECORD_COMPRESSED2 */
};

typedef struct bytes {
  const uint8_t *p;
  size_t len;
} bytes;

static bool get64(bytes b, size_t off, uint64_t *v)
{
  if (off > b.len || b.len - off < 8)
    return false;
  memcpy(v, b.p + off, 8);
  return true;
}

static bool get32(bytes b, size_t off, uint32_t *v)
{
  if (off > b.len || b.len - off < 4)
    return false;
  memcpy(v, b.p + off, 4);
  return true;
}

static void event_free(gpointer p)
{
  rsp_perf_event_count *e = p;
  g_free(e->name);
  g_free(e);
}

void rsp_perf_counts_free(rsp_perf_counts *counts)
{
  if (!counts)
    return;
  if (counts->events)
    g_ptr_array_unref(counts->events);
  g_free(counts);
}

int64_t rsp_perf_counts_get(const rsp_perf_counts *counts, const char *name)
{
  int64_t n = -1;
  for (guint i = 0; i < counts->events->len; i++) {
    const rsp_perf_event_count *e = counts->events->pdata[i];
    if (e->name && strcmp(e->name, name) == 0)
      n = (n < 0 ? 0 : n) + (int64_t)e->samples;
  }
  return n;
}

/* Names from HEADER_EVENT_DESC, matched to the attrs by their first id. */
static void read_event_desc(bytes f, uint64_t off, uint64_t size, GHashTable *ids,
                            rsp_perf_counts *c)
{
  if (off > f.len || size > f.len - off)
    return;
  bytes s = {f.p + off, (size_t)size};
  uint32_t nre, sz;
  if (!get32(s, 0, &nre) || !get32(s, 4, &sz) || sz < 16)
    return;
  size_t pos = 8;
  for (uint32_t i = 0; i < nre; i++) {
    uint32_t nr_ids, len;
    size_t attr_pos = pos;
    pos += sz;
    if (!get32(s, pos, &nr_ids) || !get32(s, pos + 4, &len) || len > s.len - pos - 8)
      return;
    char *name = g_strndup((const char *)s.p + pos + 8, len);
    pos += 8 + len;
    uint64_t id0 = 0;
    bool have_id = nr_ids > 0 && get64(s, pos, &id0);
    pos += (size_t)nr_ids * 8;
    rsp_perf_event_count *e = NULL;
    if (have_id)
      e = g_hash_table_lookup(ids, &id0);
    if (!e && i < c->events->len) {
      /* no ids (one event): match by position and type */
      uint32_t type;
      rsp_perf_event_count *cand = c->events->pdata[i];
      if (get32(s, attr_pos, &type) && type == cand->type)
        e = cand;
    }
    if (e && !e->name)
      e->name = name;
    else
      g_free(name);
  }
}

static char *fallback_name(const rsp_perf_event_count *e)
{
  if (e->type == PERF_TYPE_SOFTWARE && e->config == PERF_COUNT_SW_CPU_CLOCK)
    return g_strdup("cpu-clock");
  if (e->type == PERF_TYPE_HARDWARE && e->config == PERF_COUNT_HW_CPU_CYCLES)
    return g_strdup("cycles");
  return g_strdup_printf("type%u:config%" G_GUINT64_FORMAT, e->type, e->config);
}

rsp_perf_counts *rsp_perf_count(const char *path, GError **error)
{
  GError *e = NULL;
  GMappedFile *mf = g_mapped_file_new(path, FALSE, &e);
  if (!mf) {
    FAIL("%s", e->message);
    g_error_free(e);
    return NULL;
  }
  bytes f = {(const uint8_t *)g_mapped_file_get_contents(mf), g_mapped_file_get_length(mf)};
  rsp_perf_counts *c = g_new0(rsp_perf_counts, 1);
  c->events = g_ptr_array_new_with_free_func(event_free);
  GHashTable *ids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL); /* id -> event */
  bool ok = false;
  uint64_t hsize = 0, attr_size = 0, attrs_off = 0, attrs_size = 0, data_off = 0, data_size = 0;
  if (f.len < HEADER_SIZE || memcmp(f.p, "PERFILE2", 8) != 0) {
    FAIL("%s: not a perf.data file in file mode (no PERFILE2 header)", path);
    goto out;
  }
  get64(f, 8, &hsize);
  get64(f, 16, &attr_size);
  get64(f, 24, &attrs_off);
  get64(f, 32, &attrs_size);
  get64(f, 40, &data_off);
  get64(f, 48, &data_size);
  if (attr_size < 16 + 64 || attr_size > 4096 || attrs_off > f.len || attrs_size > f.len - attrs_off) {
    FAIL("%s: bad attr section", path);
    goto out;
  }
  uint64_t sample_type0 = 0;
  bool all_identifier = true, all_id = true;
  for (uint64_t a = 0; a + attr_size <= attrs_size; a += attr_size) {
    size_t at = (size_t)(attrs_off + a);
    rsp_perf_event_count *ev = g_new0(rsp_perf_event_count, 1);
    uint64_t config = 0, period = 0, sample_type = 0, flags = 0, ids_off = 0, ids_size = 0;
    get32(f, at, &ev->type);
    get64(f, at + 8, &config);
    get64(f, at + 16, &period);
    get64(f, at + 24, &sample_type);
    get64(f, at + 40, &flags);
    ev->config = config;
    ev->period = period;
    ev->freq = (flags >> 10) & 1;
    g_ptr_array_add(c->events, ev);
    if (a == 0)
      sample_type0 = sample_type;
    all_identifier &= (sample_type & PERF_SAMPLE_IDENTIFIER) != 0;
    all_id &= (sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) != 0;
    get64(f, at + attr_size - 16, &ids_off);
    get64(f, at + attr_size - 8, &ids_size);
    if (ids_off <= f.len && ids_size <= f.len - ids_off)
      for (uint64_t k = 0; k + 8 <= ids_size; k += 8)
        g_hash_table_insert(ids, g_memdup2(f.p + ids_off + k, 8), ev);
  }
  if (c->events->len == 0) {
    FAIL("%s: no events", path);
    goto out;
  }
  (void)hsize;

  /* names: the feature sections follow the data section, one per feature bit set */
  if (data_size > 0 && data_off <= f.len && data_size <= f.len - data_off) {
    size_t feat_pos = (size_t)(data_off + data_size);
    for (unsigned bit = 0; bit < FEAT_BITS; bit++) {
      uint64_t word = 0;
      get64(f, 72 + (bit / 64) * 8, &word);
      if (!((word >> (bit % 64)) & 1))
        continue;
      uint64_t so = 0, ss = 0;
      if (!get64(f, feat_pos, &so) || !get64(f, feat_pos + 8, &ss))
        break;
      if (bit == FEAT_EVENT_DESC)
        read_event_desc(f, so, ss, ids, c);
      feat_pos += 16;
    }
  }
  for (guint i = 0; i < c->events->len; i++) {
    rsp_perf_event_count *ev = c->events->pdata[i];
    if (!ev->name)
      ev->name = fallback_name(ev);
  }

  /* the records */
  if (data_off > f.len) {
    FAIL("%s: data section beyond the end of the file", path);
    goto out;
  }
  uint64_t end = data_off + data_size;
  if (data_size == 0 || end > f.len) {
    c->unfinished = true; /* perf was stopped before writing its header: read to the end */
    end = f.len;
  }
  size_t id_pos = 0;
  bool use_id = c->events->len > 1 && all_id;
  if (use_id && !all_identifier) {
    id_pos = 8 * (size_t)__builtin_popcountll(sample_type0 & (PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                                              PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR));
  }
  for (uint64_t pos = data_off; pos + 8 <= end;) {
    uint32_t type = 0;
    uint16_t size;
    get32(f, (size_t)pos, &type);
    memcpy(&size, f.p + pos + 6, 2);
    if (size < 8 || pos + size > end) {
      if (c->unfinished)
        break; /* the torn tail of an unfinished file */
      FAIL("%s: bad record at byte offset %" G_GUINT64_FORMAT, path, pos);
      goto out;
    }
    bytes r = {f.p + pos + 8, size - 8u};
    c->records++;
    switch (type) {
    case PERF_RECORD_SAMPLE: {
      c->samples++;
      rsp_perf_event_count *ev = NULL;
      uint64_t id;
      if (!use_id)
        ev = c->events->len == 1 ? c->events->pdata[0] : NULL;
      else if (get64(r, id_pos, &id))
        ev = g_hash_table_lookup(ids, &id);
      if (ev)
        ev->samples++;
      else
        c->unattributed++;
      break;
    }
    case PERF_RECORD_LOST: {
      uint64_t lost;
      c->lost_records++;
      if (get64(r, 8, &lost))
        c->lost += lost;
      break;
    }
    case PERF_RECORD_LOST_SAMPLES: {
      uint64_t lost;
      if (get64(r, 0, &lost))
        c->lost_samples += lost;
      break;
    }
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
      c->switches++;
      break;
    case REC_COMPRESSED:
    case REC_COMPRESSED2:
      c->compressed++;
      break;
    default:
      break;
    }
    pos += size;
  }
  ok = true;
out:
  g_hash_table_unref(ids);
  g_mapped_file_unref(mf);
  if (!ok) {
    rsp_perf_counts_free(c);
    return NULL;
  }
  return c;
}
