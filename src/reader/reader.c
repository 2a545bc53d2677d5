/* The reader: opens a perf.data (file or pipe mode), reads its header, attrs and features,
 * then streams the data section record by record through the ordering buffer. */
#include "reader/reader-private.h"

#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>

#define PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" */
#define PERF_MAGIC1 0x454c494646524550ULL /* "PERFFILE" */
#define ORDERING_BUDGET (256u << 20)
#define MAX_EVSELS 4096
#define MAX_IDS (1u << 20)
#define ID_FLAT_MAX (1u << 16) /* the span of ids looked up in a flat table (reader-private.h, id_flat) */

G_DEFINE_QUARK(rsp-reader-error-quark, rsp_reader_error)

void rsp_set_error(GError **error, RspReaderErrorCode code, const char *path, uint64_t offset,
                   const char *fmt, ...)
{
  if (!error)
    return;
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, RSP_READER_ERROR, code, "%s: at byte offset %" G_GUINT64_FORMAT " (0x%" G_GINT64_MODIFIER "x): %s",
              path, offset, offset, msg);
  g_free(msg);
}

void rsp_reader_warn(rsp_reader *r, uint64_t offset, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  if (r->warnings->len < 64) /* a file can be wrong in many places: the first ones say enough */
    g_ptr_array_add(r->warnings, g_strdup_printf("%s: at byte offset %" G_GUINT64_FORMAT " (0x%"
                                                 G_GINT64_MODIFIER "x): %s", r->path, offset,
                                                 offset, msg));
  g_free(msg);
}

static const char *const record_names[] = {
  [PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST", [PERF_RECORD_COMM] = "COMM",
  [PERF_RECORD_EXIT] = "EXIT", [PERF_RECORD_THROTTLE] = "THROTTLE",
  [PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE", [PERF_RECORD_FORK] = "FORK",
  [PERF_RECORD_READ] = "READ", [PERF_RECORD_SAMPLE] = "SAMPLE", [PERF_RECORD_MMAP2] = "MMAP2",
  [PERF_RECORD_AUX] = "AUX", [PERF_RECORD_ITRACE_START] = "ITRACE_START",
  [PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES", [PERF_RECORD_SWITCH] = "SWITCH",
  [PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE", [PERF_RECORD_NAMESPACES] = "NAMESPACES",
  [PERF_RECORD_KSYMBOL] = "KSYMBOL", [PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
  [PERF_RECORD_CGROUP] = "CGROUP", [PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
  [PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
  [RSP_RECORD_HEADER_ATTR] = "HEADER_ATTR", [RSP_RECORD_HEADER_EVENT_TYPE] = "HEADER_EVENT_TYPE",
  [RSP_RECORD_HEADER_TRACING_DATA] = "HEADER_TRACING_DATA",
  [RSP_RECORD_HEADER_BUILD_ID] = "HEADER_BUILD_ID", [RSP_RECORD_FINISHED_ROUND] = "FINISHED_ROUND",
  [RSP_RECORD_ID_INDEX] = "ID_INDEX", [RSP_RECORD_AUXTRACE_INFO] = "AUXTRACE_INFO",
  [RSP_RECORD_AUXTRACE] = "AUXTRACE", [RSP_RECORD_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
  [RSP_RECORD_THREAD_MAP] = "THREAD_MAP", [RSP_RECORD_CPU_MAP] = "CPU_MAP",
  [RSP_RECORD_STAT_CONFIG] = "STAT_CONFIG", [RSP_RECORD_STAT] = "STAT",
  [RSP_RECORD_STAT_ROUND] = "STAT_ROUND", [RSP_RECORD_EVENT_UPDATE] = "EVENT_UPDATE",
  [RSP_RECORD_TIME_CONV] = "TIME_CONV", [RSP_RECORD_HEADER_FEATURE] = "HEADER_FEATURE",
  [RSP_RECORD_COMPRESSED] = "COMPRESSED", [RSP_RECORD_FINISHED_INIT] = "FINISHED_INIT",
  [RSP_RECORD_COMPRESSED2] = "COMPRESSED2",
};

const char *rsp_record_type_name(uint32_t type)
{
  return type < G_N_ELEMENTS(record_names) ? record_names[type] : NULL;
}

/* ---- evsels ------------------------------------------------------------------------------- */

static void evsel_free(gpointer p)
{
  rsp_evsel *e = p;
  g_free((gpointer)e->fields);
  g_free((gpointer)e->ids);
  g_aligned_free(e);
}

static void event_desc_free(gpointer p)
{
  rsp_event_desc *d = p;
  g_free(d->name);
  g_free(d->ids);
  g_free(d);
}

rsp_evsel *rsp_reader_add_evsel(rsp_reader *r, const struct perf_event_attr *attr, size_t attr_size,
                                const uint64_t *ids, unsigned n_ids)
{
  /* on whole cache lines of its own: the reader's thread counts its samples (n_samples, the last line) while the
   * model's reads its attr per event, and two evsels side by side in the heap shared a line */
  rsp_evsel *e = g_aligned_alloc0(1, (sizeof(rsp_evsel) + 63) / 64 * 64, 64);
  memcpy(&e->attr, attr, MIN(attr_size, sizeof e->attr));
  e->attr.size = (uint32_t)MIN(attr_size, sizeof e->attr);
  e->index = r->evsels->len;
  e->ids = g_memdup2(ids, (gsize)n_ids * 8 + 8);
  e->n_ids = n_ids;
  e->sampled_tracepoint = attr->type == PERF_TYPE_TRACEPOINT && (attr->freq || attr->sample_period > 1);
  g_ptr_array_add(r->evsels, e);
  r->evsels_dirty = true;
  return e;
}

static void add_ids(rsp_reader *r, rsp_evsel *e, const uint64_t *ids, unsigned n)
{
  uint64_t *all = g_new(uint64_t, e->n_ids + n + 1);
  memcpy(all, e->ids, (size_t)e->n_ids * 8);
  memcpy(all + e->n_ids, ids, (size_t)n * 8);
  g_free((gpointer)e->ids);
  e->ids = all;
  e->n_ids += n;
  r->evsels_dirty = true;
}

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The name the file gives E: its EVENT_DESC entry (by id, else by position), its tracepoint's
 * system:name from the tracing data, or what a HEADER_EVENT_TYPE record called it; NULL if none. */
static const char *file_name(rsp_reader *r, rsp_evsel *e)
{
  for (unsigned d = 0; d < r->event_descs->len; d++) {
    rsp_event_desc *desc = g_ptr_array_index(r->event_descs, d);
    if (!desc->name)
      continue; /* a malformed EVENT_DESC stops halfway */
    for (unsigned a = 0; a < desc->n_ids; a++)
      for (unsigned b = 0; b < e->n_ids; b++)
        if (desc->ids[a] == e->ids[b])
          return g_string_chunk_insert_const(r->strings, desc->name);
  }
  if (r->event_descs->len == r->evsels->len) {
    rsp_event_desc *desc = g_ptr_array_index(r->event_descs, e->index);
    if (desc->name && desc->attr.type == e->attr.type && desc->attr.config == e->attr.config)
      return g_string_chunk_insert_const(r->strings, desc->name);
  }
  if (e->tp_system) {
    char *n = g_strdup_printf("%s:%s", e->tp_system, e->tp_name);
    const char *k = g_string_chunk_insert_const(r->strings, n);
    g_free(n);
    return k;
  }
  return rsp_reader_event_type_name(r, e);
}

/* Names, tracepoint fields and the id index, once attrs or names have changed. A generic name
 * (perf's evsel__name, or "tracepoint:ID" before the tracing data) gives way to one the file
 * brings later (pipe mode: features and tracing data may follow the first records). */
void rsp_reader_finish_evsels(rsp_reader *r)
{
  if (!r->evsels_dirty)
    return;
  r->evsels_dirty = false;
  for (unsigned i = 0; i < r->evsels->len; i++) {
    rsp_evsel *e = g_ptr_array_index(r->evsels, i);
    if (e->attr.type == PERF_TYPE_TRACEPOINT && !e->fields && r->have_tracing_data)
      rsp_evsel_bind_tracepoint(e, r->tep, r->strings);
    if (e->name && !e->name_is_generic)
      continue;
    const char *n = file_name(r, e);
    if (n) {
      e->name = n;
      e->name_is_generic = e->name_is_fallback = false;
    } else if (!e->name) {
      char *g = rsp_evsel_generic_name(&e->attr);
      e->name = g_string_chunk_insert_const(r->strings, g);
      g_free(g);
      e->name_is_generic = true;
      e->name_is_fallback = e->attr.type == PERF_TYPE_TRACEPOINT;
    }
  }
  /* the sorted id index */
  size_t n = 0;
  for (unsigned i = 0; i < r->evsels->len; i++)
    n += ((rsp_evsel *)g_ptr_array_index(r->evsels, i))->n_ids;
  g_free(r->id_keys);
  g_free(r->id_vals);
  r->id_keys = g_new(uint64_t, n * 2 + 2);
  r->id_vals = g_new(rsp_evsel *, n + 1);
  uint64_t *pairs = r->id_keys; /* (id, index) pairs, sorted, then split */
  size_t k = 0;
  for (unsigned i = 0; i < r->evsels->len; i++) {
    rsp_evsel *e = g_ptr_array_index(r->evsels, i);
    for (unsigned j = 0; j < e->n_ids; j++) {
      pairs[2 * k] = e->ids[j];
      pairs[2 * k + 1] = i;
      k++;
    }
  }
  qsort(pairs, k, 16, cmp_u64);
  for (size_t i = 0; i < k; i++) {
    r->id_vals[i] = g_ptr_array_index(r->evsels, (guint)pairs[2 * i + 1]);
    pairs[i] = pairs[2 * i];
  }
  r->n_id = k;
  g_free(r->id_flat);
  r->id_flat = NULL;
  if (k && r->id_keys[k - 1] - r->id_keys[0] < ID_FLAT_MAX) {
    r->id_base = r->id_keys[0];
    r->id_span = r->id_keys[k - 1] - r->id_keys[0] + 1;
    r->id_flat = g_new0(rsp_evsel *, r->id_span);
    for (size_t i = k; i-- > 0;) /* an id held twice: the first, as the bisection finds it */
      r->id_flat[r->id_keys[i] - r->id_base] = r->id_vals[i];
  }
  rsp_compute_id_layout(&r->layout, (const rsp_evsel *const *)r->evsels->pdata, r->evsels->len);
}

static rsp_evsel *evsel_for_id(const rsp_reader *r, uint64_t id)
{
  if (r->id_flat)
    return id - r->id_base < r->id_span ? r->id_flat[id - r->id_base] : NULL;
  size_t lo = 0, hi = r->n_id;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (r->id_keys[mid] < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < r->n_id && r->id_keys[lo] == id ? r->id_vals[lo] : NULL;
}

/* The evsel a record belongs to; NULL when it names an unknown id. */
static rsp_evsel *evsel_of(rsp_reader *r, const uint8_t *rec, size_t size, bool *known)
{
  *known = true;
  if (r->evsels->len == 0)
    return NULL;
  rsp_evsel *first = g_ptr_array_index(r->evsels, 0);
  if (r->evsels->len == 1)
    return first;
  uint64_t id;
  if (!rsp_record_id(rec, size, &r->layout, &first->attr, &id))
    return first; /* no id in this record: perf uses the first evsel too */
  if (id == 0)
    return first; /* synthesized records (COMM, MMAP of running processes) carry id 0 */
  rsp_evsel *e = evsel_for_id(r, id);
  if (!e)
    *known = false;
  return e;
}

/* ---- the file header ---------------------------------------------------------------------- */

/* A feature section: a malformed one rejects the file only when decoding needs it (perf too
 * reads on without a feature it cannot parse); the others become a warning. */
static bool parse_feature(rsp_reader *r, unsigned feat, const uint8_t *data, size_t size,
                          uint64_t offset, GError **error)
{
  GError *e = NULL;
  if (rsp_parse_feature(r, feat, data, size, offset, &e))
    return true;
  if (rsp_feature_required(feat)) {
    g_propagate_error(error, e);
    return false;
  }
  /* the message is "PATH: at byte offset N (0xN): WHAT"; the warning repeats it with a tail */
  if (r->warnings->len < 64)
    g_ptr_array_add(r->warnings, g_strdup_printf("%s; feature ignored", e->message));
  g_error_free(e);
  return true;
}

struct file_section {
  uint64_t offset, size;
};

struct file_header {
  uint64_t magic, size, attr_size;
  struct file_section attrs, data, event_types;
  uint64_t features[4];
};

/* The event_types section of perf <= 3.x headers: {u64 id; char name[64]} per attr config. */
static void read_event_types(rsp_reader *r, const struct file_section *s)
{
  uint64_t fs = r->info.file_size;
  if (s->size == 0)
    return;
  if (s->offset > fs || s->size > fs - s->offset || s->size > 4096 * 72) {
    rsp_reader_warn(r, 56, "event_types section [%" G_GUINT64_FORMAT ", +%" G_GUINT64_FORMAT
                    ") lies outside the file; ignored", s->offset, s->size);
    return;
  }
  uint8_t *buf = g_malloc(s->size);
  if (rsp_source_pread(&r->src, buf, s->size, s->offset, "the event_types section", NULL))
    for (uint64_t i = 0; i + 72 <= s->size; i += 72) {
      uint64_t id;
      memcpy(&id, buf + i, 8);
      rsp_reader_add_event_type(r, UINT32_MAX, id, buf + i + 8, 64);
    }
  g_free(buf);
}

static bool section_ok(rsp_reader *r, const struct file_section *s, const char *what,
                       uint64_t at, GError **error)
{
  uint64_t fs = r->info.file_size;
  if (s->offset > fs || s->size > fs - s->offset) {
    rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, at,
                  "%s section [%" G_GUINT64_FORMAT ", +%" G_GUINT64_FORMAT
                  ") lies outside the file (%" G_GUINT64_FORMAT " bytes)",
                  what, s->offset, s->size, fs);
    return false;
  }
  return true;
}

static bool read_file_header(rsp_reader *r, GError **error)
{
  struct file_header h;
  if (!rsp_source_pread(&r->src, &h, sizeof h, 0, "the perf.data header", error))
    return false;
  if (h.size != sizeof h) { /* perf accepts no other size either */
    rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, 8, "header size %" G_GUINT64_FORMAT
                  " is not perf's %zu", h.size, sizeof h);
    return false;
  }
  if (h.attr_size < PERF_ATTR_SIZE_VER0 + 16 || h.attr_size > 4096 + 16) {
    rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, 16,
                  "attr size %" G_GUINT64_FORMAT " is not a perf_file_attr size", h.attr_size);
    return false;
  }
  if (!section_ok(r, &h.attrs, "attrs", 24, error) || !section_ok(r, &h.data, "data", 40, error))
    return false;
  r->info.data_offset = h.data.offset;
  r->info.data_size = h.data.size;
  if (h.data.size == 0) /* perf was killed before it wrote the header back: read to the end */
    r->info.data_size = r->info.file_size - h.data.offset;

  /* attrs and their ids */
  if (h.attrs.size % h.attr_size != 0) {
    rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, 32,
                  "attrs section of %" G_GUINT64_FORMAT " bytes is no whole number of %" G_GUINT64_FORMAT
                  "-byte attrs", h.attrs.size, h.attr_size);
    return false;
  }
  uint64_t n_attrs = h.attrs.size / h.attr_size;
  if (n_attrs > MAX_EVSELS) {
    rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, h.attrs.offset,
                  "%" G_GUINT64_FORMAT " attrs: more than %d", n_attrs, MAX_EVSELS);
    return false;
  }
  uint8_t *abuf = g_malloc(h.attr_size);
  for (uint64_t i = 0; i < n_attrs; i++) {
    uint64_t at = h.attrs.offset + i * h.attr_size;
    if (!rsp_source_pread(&r->src, abuf, h.attr_size, at, "an attr", error)) {
      g_free(abuf);
      return false;
    }
    struct perf_event_attr attr = {0};
    size_t asz = h.attr_size - 16;
    memcpy(&attr, abuf, MIN(asz, sizeof attr));
    struct file_section ids;
    memcpy(&ids, abuf + asz, sizeof ids);
    if (!section_ok(r, &ids, "attr ids", at + asz, error) || ids.size / 8 > MAX_IDS) {
      if (error && !*error)
        rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, at + asz, "too many attr ids");
      g_free(abuf);
      return false;
    }
    uint64_t *idv = g_new(uint64_t, ids.size / 8 + 1);
    if (ids.size && !rsp_source_pread(&r->src, idv, ids.size / 8 * 8, ids.offset, "attr ids", error)) {
      g_free(idv);
      g_free(abuf);
      return false;
    }
    rsp_reader_add_evsel(r, &attr, asz, idv, (unsigned)(ids.size / 8));
    g_free(idv);
  }
  g_free(abuf);
  read_event_types(r, &h.event_types);

  /* feature sections follow the data section */
  memcpy(r->info.features, h.features, sizeof h.features);
  uint64_t table = h.data.offset + h.data.size;
  unsigned nfeat = 0;
  for (unsigned f = 0; f < 256; f++)
    if (h.features[f / 64] & (1ull << (f % 64)))
      nfeat++;
  memset(r->info.features, 0, sizeof r->info.features);
  unsigned idx = 0;
  for (unsigned f = 0; f < 256; f++) {
    if (!(h.features[f / 64] & (1ull << (f % 64))))
      continue;
    struct file_section s;
    uint64_t at = table + (uint64_t)idx * sizeof s;
    idx++;
    if (h.data.size == 0)
      break; /* an unfinished file has no feature table */
    if (!rsp_source_pread(&r->src, &s, sizeof s, at, "the feature table", error))
      return false;
    if (!section_ok(r, &s, "feature", at, error))
      return false;
    uint8_t *buf = g_malloc(s.size + 1);
    bool ok = rsp_source_pread(&r->src, buf, s.size, s.offset, "a feature section", error) &&
              parse_feature(r, f, buf, s.size, s.offset, error);
    g_free(buf);
    if (!ok)
      return false;
  }
  (void)nfeat;
  return rsp_source_seek(&r->src, r->info.data_offset, r->info.data_offset + r->info.data_size,
                         error);
}

/* ---- records ------------------------------------------------------------------------------ */

static void queue_immediate(rsp_reader *r, const uint8_t *rec, size_t size, uint64_t offset,
                            rsp_evsel *e)
{
  g_ptr_array_add(r->immediates, g_memdup2(rec, size));
  g_array_append_val(r->immediate_offsets, offset);
  uint32_t idx = e ? e->index : UINT32_MAX;
  g_array_append_val(r->immediate_evsels, idx);
}

static bool is_kernel_type_known(uint32_t type)
{
  return type >= PERF_RECORD_MMAP && type <= PERF_RECORD_AUX_OUTPUT_HW_ID;
}

static bool process_user_record(rsp_reader *r, const uint8_t *rec, size_t size, uint64_t offset,
                                GError **error);

/* One record of the stream (from the file or from inside a COMPRESSED record). */
static bool process_record(rsp_reader *r, const uint8_t *rec, size_t size, uint64_t offset,
                           GError **error)
{
  const struct perf_event_header *h = (const struct perf_event_header *)rec;
  if (h->type < RSP_RECORD_TYPE_MAX)
    r->stats.records[h->type]++;
  if (h->type >= 64)
    return process_user_record(r, rec, size, offset, error);
  if (!is_kernel_type_known(h->type)) {
    r->stats.unknown_records++;
    return true;
  }
  if (r->evsels_dirty)
    rsp_reader_finish_evsels(r);
  bool known;
  rsp_evsel *e = evsel_of(r, rec, size, &known);
  if (!known) {
    if (h->type == PERF_RECORD_SAMPLE)
      r->stats.unknown_id_samples++;
    return true;
  }
  if (h->type == PERF_RECORD_SAMPLE && !e) {
    rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, offset,
                  "SAMPLE record before any attr was declared");
    return false;
  }
  uint64_t t;
  bool timed = rsp_record_time(rec, size, e ? &e->attr : NULL, &t);
  if (timed && r->opts.window && !rsp_window_keep(r, h->type, t))
    return true; /* outside the window: dropped before ordering and decoding */
  if (!r->opts.unordered && timed) {
    if (r->fmerge && h->type == PERF_RECORD_SAMPLE && e->attr.type == PERF_TYPE_TRACEPOINT)
      rsp_ftrace_merge_queued(r, e, rec, size, t);
    rsp_oe_queue(&r->oe, rec, size, t, offset, e ? e->index : UINT32_MAX, rsp_source_lasting(&r->src, rec));
    if (rsp_oe_over_budget(&r->oe))
      rsp_oe_flush_half(&r->oe);
  } else {
    queue_immediate(r, rec, size, offset, e);
  }
  return true;
}

bool rsp_reader_process_record(rsp_reader *r, const uint8_t *rec, size_t size, uint64_t offset, GError **error)
{
  return process_record(r, rec, size, offset, error);
}

bool rsp_reader_record_time(rsp_reader *r, const uint8_t *rec, size_t size, uint64_t *time)
{
  if (r->evsels_dirty)
    rsp_reader_finish_evsels(r);
  bool known;
  rsp_evsel *e = evsel_of(r, rec, size, &known);
  return known && rsp_record_time(rec, size, e ? &e->attr : NULL, time);
}

static bool process_user_record(rsp_reader *r, const uint8_t *rec, size_t size, uint64_t offset,
                                GError **error)
{
  const struct perf_event_header *h = (const struct perf_event_header *)rec;
  switch (h->type) {
  case RSP_RECORD_FINISHED_ROUND:
    if (r->opts.window)
      rsp_window_round(r);
    if (!r->opts.unordered)
      rsp_oe_round(&r->oe);
    return true;
  case RSP_RECORD_COMPRESSED:
  case RSP_RECORD_COMPRESSED2: {
    const uint8_t *payload = rec + 8;
    size_t plen = size - 8;
    if (h->type == RSP_RECORD_COMPRESSED2) {
      uint64_t dsz;
      if (size < 16 || (memcpy(&dsz, rec + 8, 8), dsz > size - 16)) {
        rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, offset,
                      "COMPRESSED2 record's data size does not fit its record (%zu bytes)", size);
        return false;
      }
      payload = rec + 16;
      plen = (size_t)dsz;
    }
    if (!r->decomp)
      r->decomp = rsp_decompressor_new();
    if (!rsp_decompressor_feed(r->decomp, payload, plen, r->path, offset, error))
      return false;
    const uint8_t *inner;
    size_t isz;
    GError *e2 = NULL;
    while ((inner = rsp_decompressor_next(r->decomp, &isz, r->path, offset, &e2))) {
      uint32_t itype = ((const struct perf_event_header *)inner)->type;
      if (itype == RSP_RECORD_COMPRESSED || itype == RSP_RECORD_COMPRESSED2) {
        rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, offset,
                      "COMPRESSED record nested in COMPRESSED data");
        return false;
      }
      if (!process_record(r, inner, isz, offset, error))
        return false;
    }
    if (e2) {
      g_propagate_error(error, e2);
      return false;
    }
    r->stats.bytes_decompressed = rsp_decompressor_total_out(r->decomp);
    return true;
  }
  case RSP_RECORD_HEADER_ATTR: {
    if (size < 8 + PERF_ATTR_SIZE_VER0) {
      rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, offset, "HEADER_ATTR too small");
      return false;
    }
    uint32_t asz;
    memcpy(&asz, rec + 8 + 4, 4);
    if (asz == 0)
      asz = PERF_ATTR_SIZE_VER0;
    if (asz < PERF_ATTR_SIZE_VER0 || asz > size - 8) {
      rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, offset,
                    "HEADER_ATTR: attr size %u does not fit the record (%zu)", asz, size);
      return false;
    }
    if (r->evsels->len >= MAX_EVSELS) {
      rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, offset, "too many attrs");
      return false;
    }
    struct perf_event_attr attr = {0};
    memcpy(&attr, rec + 8, MIN(asz, sizeof attr));
    size_t nid = (size - 8 - asz) / 8;
    uint64_t *ids = g_new(uint64_t, nid + 1);
    memcpy(ids, rec + 8 + asz, nid * 8);
    rsp_reader_add_evsel(r, &attr, asz, ids, (unsigned)nid);
    g_free(ids);
    return true;
  }
  case RSP_RECORD_HEADER_FEATURE: {
    if (size < 16) {
      rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, offset, "HEADER_FEATURE too small");
      return false;
    }
    uint64_t feat;
    memcpy(&feat, rec + 8, 8);
    if (feat >= 256)
      return true;
    if (!parse_feature(r, (unsigned)feat, rec + 16, size - 16, offset + 16, error))
      return false;
    r->evsels_dirty = true;
    return true;
  }
  case RSP_RECORD_HEADER_BUILD_ID:
    return parse_feature(r, RSP_FEAT_BUILD_ID, rec, size, offset, error);
  case RSP_RECORD_HEADER_EVENT_TYPE: /* perf <= 3.x pipe mode: struct perf_trace_event_type */
    if (size >= 16) {
      uint64_t id;
      memcpy(&id, rec + 8, 8);
      rsp_reader_add_event_type(r, UINT32_MAX, id, rec + 16, size - 16);
    }
    return true;
  case RSP_RECORD_EVENT_UPDATE: {
    if (size < 24)
      return true;
    uint64_t type, id;
    memcpy(&type, rec + 8, 8);
    memcpy(&id, rec + 16, 8);
    if (type == 2 /* PERF_EVENT_UPDATE__NAME */) {
      rsp_reader_finish_evsels(r);
      rsp_evsel *e = evsel_for_id(r, id);
      const uint8_t *name = rec + 24;
      if (e && memchr(name, 0, size - 24)) {
        e->name = g_string_chunk_insert_const(r->strings, (const char *)name);
        e->name_is_generic = e->name_is_fallback = false;
        r->evsels_dirty = true;
      }
    }
    return true;
  }
  case RSP_RECORD_ID_INDEX: {
    if (size < 16)
      return true;
    uint64_t nr;
    memcpy(&nr, rec + 8, 8);
    if (nr > (size - 16) / 32)
      nr = (size - 16) / 32;
    rsp_reader_finish_evsels(r);
    for (uint64_t i = 0; i < nr; i++) {
      uint64_t ent[2];
      memcpy(ent, rec + 16 + i * 32, 16);
      if (ent[1] < r->evsels->len && !evsel_for_id(r, ent[0]))
        add_ids(r, g_ptr_array_index(r->evsels, (guint)ent[1]), &ent[0], 1);
    }
    return true;
  }
  default:
    if (h->type >= RSP_RECORD_TYPE_MAX || !rsp_record_type_name(h->type))
      r->stats.unknown_records++;
    return true; /* TIME_CONV, THREAD_MAP, CPU_MAP, STAT*, FINISHED_INIT, AUXTRACE_INFO...: counted */
  }
}

/* The last bytes of the stream do not hold the record their header announces, and its type is
 * none perf writes: not a cut record but something else appended, such as the "[ perf record: ...]"
 * lines of perf's stderr sent into the same file. Says so, with the text when it is text. */
static void junk_error(rsp_reader *r, uint64_t off, size_t avail, GError **error)
{
  size_t n = 0;
  const uint8_t *p = rsp_source_peek(&r->src, avail, &n, NULL);
  size_t len = p ? MIN(avail, 60) : 0, text = 0;
  while (text < len && p[text] >= 0x20 && p[text] < 0x7f && p[text] != '"')
    text++;
  struct perf_event_header h = {0};
  if (p && avail >= sizeof h)
    memcpy(&h, p, sizeof h);
  if (text >= 8)
    rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, off,
                  "%zu bytes after the last record are no perf record but text: \"%.*s\"", avail,
                  (int)text, (const char *)p);
  else
    rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, off,
                  "%zu bytes after the last record are no perf record (type %u, size %u)", avail,
                  h.type, h.size);
}

/* The lowest file offset of a record in the file's mapping that may still be rsp_reader_delivered or read: held in the
 * ordering buffer, or handed out to a caller that keeps events (rsp_reader_keep_from). */
static uint64_t needed_from(const rsp_reader *r)
{
  return MIN(r->keep_from, rsp_oe_min_lasting_offset(&r->oe));
}

/* Reads one record from the source. Returns 1, 0 at the end, -1 on error. */
static int read_one(rsp_reader *r, GError **error)
{
  size_t avail = 0;
  uint64_t off = r->src.pos;
  const uint8_t *p = rsp_source_peek(&r->src, sizeof(struct perf_event_header), &avail, error);
  if (!p) {
    if (error && *error)
      return -1;
    if (avail == 0)
      return 0;
    rsp_set_error(error, RSP_READER_ERROR_TRUNCATED, r->path, off,
                  "the data ends inside a record header (%zu of 8 bytes)", avail);
    return -1;
  }
  struct perf_event_header h;
  memcpy(&h, p, sizeof h);
  if (h.size < sizeof h || h.type == 0) {
    const char *tname = rsp_record_type_name(h.type);
    rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, off,
                  "record of type %u (%s) with size %u: not a perf record", h.type,
                  tname ? tname : "unknown", h.size);
    return -1;
  }
  p = rsp_source_peek(&r->src, h.size, &avail, error);
  if (!p) {
    if (error && *error)
      return -1;
    const char *tname = rsp_record_type_name(h.type);
    if (!tname && !is_kernel_type_known(h.type)) {
      junk_error(r, off, avail, error);
      return -1;
    }
    rsp_set_error(error, RSP_READER_ERROR_TRUNCATED, r->path, off,
                  "%s record of %u bytes cut short: only %zu bytes left", tname ? tname : "unknown",
                  h.size, avail);
    return -1;
  }
  /* Records followed by a payload that their size does not include. */
  uint64_t extra = 0;
  if (h.type == RSP_RECORD_HEADER_TRACING_DATA && h.size >= 12) {
    uint32_t ts;
    memcpy(&ts, p + 8, 4);
    extra = ts;
  } else if (h.type == RSP_RECORD_AUXTRACE && h.size >= 16) {
    memcpy(&extra, p + 8, 8);
  }
  if (h.type == RSP_RECORD_HEADER_TRACING_DATA) {
    r->stats.records[h.type]++;
    /* simpleperf puts the data inside the record (its size counts them, padded to 64); perf after it */
    bool inside = h.size >= 12 + 8 && extra > 0 && extra <= (uint64_t)h.size - 12;
    const uint8_t *td = NULL;
    uint64_t td_off = off + h.size;
    if (inside) {
      td = p + 12;
      td_off = off + 12;
    } else {
      rsp_source_consume(&r->src, h.size);
      if (extra > (1ull << 30)) {
        rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, off,
                      "HEADER_TRACING_DATA announces %" G_GUINT64_FORMAT " bytes", extra);
        return -1;
      }
      td = rsp_source_peek(&r->src, (size_t)extra, &avail, error);
    }
    if (!td) {
      if (!(error && *error))
        rsp_set_error(error, RSP_READER_ERROR_TRUNCATED, r->path, off + h.size,
                      "tracing data cut short: %zu of %" G_GUINT64_FORMAT " bytes", avail, extra);
      return -1;
    }
    g_free(r->tracing_kallsyms);
    r->tracing_kallsyms = NULL;
    if (!rsp_parse_tracing_data(r->tep, td, (size_t)extra, r->path, td_off,
                                &r->tracing_kallsyms, &r->tracing_kallsyms_size, error))
      return -1;
    r->have_tracing_data = r->info.has_tracing_data = true;
    r->info.tracing_kallsyms = r->tracing_kallsyms;
    r->info.tracing_kallsyms_size = r->tracing_kallsyms_size;
    r->evsels_dirty = true;
    rsp_source_consume(&r->src, inside ? h.size : (size_t)extra);
    return 1;
  }
  if ((uintptr_t)p & 7) { /* after a COMPRESSED record perf leaves the stream unaligned */
    if (r->scratch_cap < h.size) {
      g_free(r->scratch);
      r->scratch_cap = 65536;
      r->scratch = g_malloc(r->scratch_cap);
    }
    memcpy(r->scratch, p, h.size);
    p = r->scratch;
  }
  if (!process_record(r, p, h.size, off, error))
    return -1;
  rsp_source_consume(&r->src, h.size);
  if (rsp_source_release_due(&r->src))
    rsp_source_release(&r->src, needed_from(r));
  while (extra > 0) { /* AUXTRACE payload: skipped in pieces */
    size_t step = extra > (1u << 20) ? (1u << 20) : (size_t)extra;
    if (!rsp_source_peek(&r->src, step, &avail, error)) {
      if (!(error && *error))
        rsp_set_error(error, RSP_READER_ERROR_TRUNCATED, r->path, r->src.pos,
                      "AUXTRACE payload cut short");
      return -1;
    }
    rsp_source_consume(&r->src, step);
    extra -= step;
  }
  return 1;
}

/* read_one() for the data section: a record stream that breaks off (cut, corrupt, junk after a
 * pipe stream's last record) ends there; the error waits until the events read before it are
 * rsp_reader_delivered (perf too shows what it read). 1: a record was read; 0: the stream is over. */
static int read_stream(rsp_reader *r)
{
  if (r->deferred)
    return 0;
  if (r->window_past) { /* past the window's end (time-window.c, rsp_window_round): so is the rest of the file */
    r->stats.window_stopped = true;
    return 0;
  }
  return read_one(r, &r->deferred) > 0;
}

bool rsp_reader_read_on(rsp_reader *r)
{
  if (!r->input_done) {
    if (read_stream(r) == 0)
      r->input_done = true;
    return true;
  }
  if (!r->flushed_all) {
    r->flushed_all = true;
    rsp_oe_flush_all(&r->oe);
    return true;
  }
  return false;
}

/* The end of the events: NULL, with the error that ended the stream early, if one did. */
const rsp_event *rsp_reader_end_of_stream(rsp_reader *r, GError **error)
{
  if (r->deferred)
    g_propagate_error(error, g_steal_pointer(&r->deferred));
  return NULL;
}

static bool is_header_record(uint32_t type)
{
  switch (type) {
  case RSP_RECORD_HEADER_ATTR:
  case RSP_RECORD_HEADER_EVENT_TYPE:
  case RSP_RECORD_HEADER_TRACING_DATA:
  case RSP_RECORD_HEADER_BUILD_ID:
  case RSP_RECORD_HEADER_FEATURE:
  case RSP_RECORD_EVENT_UPDATE:
  case RSP_RECORD_ID_INDEX:
  case RSP_RECORD_THREAD_MAP:
  case RSP_RECORD_CPU_MAP:
  case RSP_RECORD_TIME_CONV:
  case RSP_RECORD_STAT_CONFIG:
  case RSP_RECORD_AUXTRACE_INFO:
    return true;
  default:
    return false;
  }
}

/* Pipe mode: the attrs and features come as records; read them before handing out events. */
static bool read_pipe_headers(rsp_reader *r, GError **error)
{
  for (;;) {
    size_t avail;
    const uint8_t *p = rsp_source_peek(&r->src, sizeof(struct perf_event_header), &avail, error);
    if (!p)
      return !(error && *error);
    uint32_t type;
    memcpy(&type, p, sizeof type); /* the stream may be unaligned here */
    if (!is_header_record(type))
      return true;
    if (read_one(r, error) < 0)
      return false;
  }
}

rsp_reader *rsp_reader_open(const char *path, const rsp_reader_options *options, GError **error)
{
  rsp_reader *r = g_new0(rsp_reader, 1);
  r->path = g_strdup(path);
  if (options)
    r->opts = *options;
  r->evsels = g_ptr_array_new_with_free_func(evsel_free);
  r->event_descs = g_ptr_array_new_with_free_func(event_desc_free);
  r->event_types = g_array_new(FALSE, FALSE, sizeof(rsp_event_type));
  r->warnings = g_ptr_array_new_with_free_func(g_free);
  r->strings = g_string_chunk_new(4096);
  r->build_ids = g_array_new(FALSE, TRUE, sizeof(rsp_build_id));
  r->immediates = g_ptr_array_new_with_free_func(g_free);
  r->immediate_offsets = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  r->immediate_evsels = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  r->tep = tep_alloc();
  r->keep_from = UINT64_MAX;
  rsp_oe_init(&r->oe, ORDERING_BUDGET);
  tep_set_loglevel(TEP_LOG_NONE);

  if (!rsp_source_open(&r->src, r->path, error)) {
    rsp_reader_close(r);
    return NULL;
  }
  r->src.path = r->path;
  if (r->src.seekable) {
    struct stat st;
    if (fstat(r->src.fd, &st) == 0)
      r->info.file_size = (uint64_t)st.st_size;
  }
  size_t avail = 0;
  const uint8_t *p = rsp_source_peek(&r->src, 16, &avail, error);
  if (!p) {
    if (!(error && *error))
      rsp_set_error(error, RSP_READER_ERROR_TRUNCATED, r->path, avail,
                    "file too short for a perf.data header (%zu bytes)", avail);
    rsp_reader_close(r);
    return NULL;
  }
  uint64_t magic, hsize;
  memcpy(&magic, p, 8);
  memcpy(&hsize, p + 8, 8);
  if (magic != PERF_MAGIC2) {
    if (GUINT64_SWAP_LE_BE(magic) == PERF_MAGIC2)
      rsp_set_error(error, RSP_READER_ERROR_UNSUPPORTED, r->path, 0,
                    "big-endian perf.data (recorded on another architecture) is not supported");
    else if (magic == PERF_MAGIC1)
      rsp_set_error(error, RSP_READER_ERROR_UNSUPPORTED, r->path, 0,
                    "version 1 perf.data (PERFFILE) is not supported; re-record with perf >= 3.x");
    else
      rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, 0,
                    "not a perf.data file (no PERFILE2 magic)");
    rsp_reader_close(r);
    return NULL;
  }
  bool ok;
  if (hsize == 16) {
    r->info.pipe_mode = true;
    rsp_source_consume(&r->src, 16);
    ok = read_pipe_headers(r, error);
  } else {
    ok = r->src.seekable;
    if (!ok)
      rsp_set_error(error, RSP_READER_ERROR_UNSUPPORTED, r->path, 8,
                    "a file-mode perf.data cannot be read from a pipe; pass it as a file");
    ok = ok && read_file_header(r, error);
  }
  if (!ok) {
    rsp_reader_close(r);
    return NULL;
  }
  rsp_reader_finish_evsels(r);
  if (r->opts.window) {
    r->stats.recording_start = r->info.sample_time_first; /* or earlier: the first timestamp (time-window.c) */
    if (!r->opts.window_relative)
      rsp_window_resolve(r);
    if (!rsp_index_apply(r, error)) {
      rsp_reader_close(r);
      return NULL;
    }
  }
  rsp_ftrace_merge_open(r);
  r->metadata = rsp_metadata_load(r->path);
  return r;
}

GKeyFile *rsp_metadata_load(const char *data_path)
{
  if (strcmp(data_path, "-") == 0)
    return NULL;
  char *p = g_strconcat(data_path, ".meta", NULL);
  GKeyFile *k = g_key_file_new();
  if (!g_key_file_load_from_file(k, p, G_KEY_FILE_NONE, NULL)) {
    g_key_file_unref(k);
    k = NULL;
  }
  g_free(p);
  return k;
}

bool rsp_loss_check_load(const char *data_path, rsp_loss_check *c)
{
  memset(c, 0, sizeof *c);
  GKeyFile *meta = data_path && *data_path ? rsp_metadata_load(data_path) : NULL;
  if (!meta)
    return false;
  c->events_ = g_key_file_get_keys(meta, "loss", NULL, NULL);
  c->rows = g_new0(rsp_loss_check_row, c->events_ ? g_strv_length(c->events_) + 1 : 1);
  for (unsigned i = 0; c->events_ && c->events_[i]; i++) {
    g_autofree gchar *v = g_key_file_get_value(meta, "loss", c->events_[i], NULL);
    unsigned long long rec, occ;
    if (!v || sscanf(v, "%llu;%llu", &rec, &occ) != 2)
      continue;
    GError *e = NULL;
    gint64 ft = g_key_file_get_int64(meta, "ftrace", c->events_[i], &e);
    if (e) {
      g_error_free(e);
      ft = -1;
    }
    rsp_loss_check_row *r = &c->rows[c->n_rows++];
    *r = (rsp_loss_check_row){ c->events_[i], rec, occ, ft, rec };
    if (ft >= 0 && (uint64_t)ft > r->best)
      r->best = (uint64_t)ft < occ ? (uint64_t)ft : occ;
    c->any_ftrace |= ft >= 0;
    c->recorded += rec;
    c->occurred += occ;
    c->best += r->best;
  }
  g_key_file_unref(meta);
  return true;
}

void rsp_loss_check_clear(rsp_loss_check *c)
{
  g_free(c->rows);
  g_strfreev(c->events_);
  memset(c, 0, sizeof *c);
}

GKeyFile *rsp_reader_metadata(const rsp_reader *r)
{
  return r->metadata;
}

int32_t rsp_metadata_workload_pid(GKeyFile *meta)
{
  if (!meta)
    return -1;
  GError *error = NULL;
  gint pid = g_key_file_get_integer(meta, "recording", "workload_pid", &error);
  if (error) {
    g_error_free(error);
    return -1;
  }
  return pid > 0 ? pid : -1;
}

int32_t rsp_metadata_workload_pid_of(const char *data_path)
{
  GKeyFile *meta = rsp_metadata_load(data_path);
  int32_t pid = rsp_metadata_workload_pid(meta);
  if (meta)
    g_key_file_unref(meta);
  return pid;
}


/* Records leave the ordering buffer in time order, far apart in the file and long after they were read: what
 * decoding looks at is fetched ahead, the header a few records before, the RAW field (after the call chain,
 * where the header says) a few records later. */
enum { PREFETCH_HEADER = 16, PREFETCH_RAW = 8 };

static void prefetch_queued(rsp_reader *r)
{
  const rsp_queued *far = rsp_oe_peek_at(&r->oe, PREFETCH_HEADER);
  if (far)
    __builtin_prefetch(far->record);
  const rsp_queued *near = rsp_oe_peek_at(&r->oe, PREFETCH_RAW);
  if (!near || near->evsel >= r->evsels->len)
    return;
  const struct perf_event_header *h = (const struct perf_event_header *)near->record;
  if (h->type != PERF_RECORD_SAMPLE)
    return;
  const rsp_evsel *e = g_ptr_array_index(r->evsels, near->evsel);
  /* decoded on the model's thread (rsp_reader_defer_decoding): its RAW field is not read here (finding the field of
   * every sample was 0.4 G instructions of the reader's 10.7 G on deep3m) */
  if (r->defer_decoding)
    return;
  const uint8_t *raw = rsp_sample_raw_guess(near->record, h->size, &e->attr);
  if (raw) {
    __builtin_prefetch(raw);
    __builtin_prefetch(raw + 64);
  }
}

const rsp_event *rsp_reader_deliver_queued(rsp_reader *r, GError **error)
{
  prefetch_queued(r);
  const rsp_queued *q = rsp_oe_pop(&r->oe);
  return rsp_reader_deliver(r, q->record, q->offset, q->evsel, error);
}

const rsp_event *rsp_reader_deliver(rsp_reader *r, const uint8_t *rec, uint64_t offset, uint32_t evsel,
                                GError **error)
{
  const struct perf_event_header *h = (const struct perf_event_header *)rec;
  rsp_evsel *e = evsel < r->evsels->len ? g_ptr_array_index(r->evsels, evsel) : NULL;
  rsp_event *ev = r->out;
  /* the decode left to the taker (rsp_reader_defer_decoding): what rsp_reader_delivered and the group reads look
   * at is the header and the evsel, except for LOST records and group reads, which are decoded here */
  if (r->defer_decoding && rsp_source_lasting(&r->src, rec) &&
      ((h->type == PERF_RECORD_SAMPLE && e && !(e->attr.sample_type & PERF_SAMPLE_READ)) ||
       h->type == PERF_RECORD_SWITCH || h->type == PERF_RECORD_SWITCH_CPU_WIDE)) {
    ev->type = h->type;
    ev->misc = h->misc;
    ev->size = h->size;
    ev->offset = offset;
    ev->evsel = e;
    ev->record = rec;
    ev->source = RSP_SOURCE_PERF;
    ev->decode_deferred = true;
    ev->read_values = NULL;
    return rsp_reader_delivered(r, ev);
  }
  if (!rsp_decode_record(rec, h->size, e, offset, r->path, ev, error))
    return NULL;
  return rsp_reader_delivered(r, ev);
}

void rsp_reader_defer_decoding(rsp_reader *r, bool defer)
{
  r->defer_decoding = defer && !r->opts.window; /* a window's events are decoded here (rsp_reader_delivered) */
}

bool rsp_reader_decode_deferred(const rsp_reader *r, rsp_event *ev, GError **error)
{
  const uint8_t *rec = ev->record;
  const rsp_evsel *e = ev->evsel;
  uint64_t offset = ev->offset;
  const struct perf_event_header *h = (const struct perf_event_header *)rec;
  return rsp_decode_record(rec, h->size, e, offset, r->path, ev, error);
}

/* The counts of a decoded event handed out. */
const rsp_event *rsp_reader_delivered(rsp_reader *r, rsp_event *ev)
{
  const struct perf_event_header *h = (const struct perf_event_header *)ev->record;
  rsp_evsel *e = (rsp_evsel *)ev->evsel;
  ev->outside_window = r->opts.window && rsp_window_outside(r, ev->time);
  if (h->type == PERF_RECORD_SAMPLE && e)
    e->n_samples++;
  else if (h->type == PERF_RECORD_LOST)
    r->stats.lost += ev->u.lost.lost;
  else if (h->type == PERF_RECORD_LOST_SAMPLES)
    r->stats.lost_samples += ev->u.lost_samples.lost;
  r->stats.events++;
  return ev;
}

const rsp_event *rsp_reader_deliver_immediate(rsp_reader *r, GError **error)
{
  size_t i = r->immediate_next++;
  return rsp_reader_deliver(r, g_ptr_array_index(r->immediates, i),
                 g_array_index(r->immediate_offsets, uint64_t, i),
                 g_array_index(r->immediate_evsels, uint32_t, i), error);
}

void rsp_reader_clear_immediates(rsp_reader *r)
{
  g_ptr_array_set_size(r->immediates, 0);
  g_array_set_size(r->immediate_offsets, 0);
  g_array_set_size(r->immediate_evsels, 0);
  r->immediate_next = 0;
}

static const rsp_event *next_event(rsp_reader *r, GError **error);

const rsp_event *rsp_reader_next(rsp_reader *r, GError **error)
{
  r->out = &r->ev;
  return next_event(r, error);
}

const rsp_event *rsp_reader_next_to(rsp_reader *r, rsp_event *out, GError **error)
{
  r->out = out;
  const rsp_event *ev = next_event(r, error);
  r->out = &r->ev;
  return ev;
}

bool rsp_reader_event_lasting(const rsp_reader *r, const rsp_event *ev, uint64_t *file_offset)
{
  /* a perf event's pointers all point into its record (event-copy.c): the record's place says it all */
  if (!ev->record || ev->source != RSP_SOURCE_PERF || !rsp_source_lasting(&r->src, ev->record))
    return false;
  *file_offset = (uint64_t)((const uint8_t *)ev->record - r->src.map) + r->src.map_off;
  return true;
}

void rsp_reader_keep_from(rsp_reader *r, uint64_t file_offset)
{
  r->keep_from = file_offset;
}

void rsp_reader_release_pages(rsp_reader *r)
{
  rsp_source_release(&r->src, UINT64_MAX);
  for (unsigned i = 0; r->ftrace && i < rsp_ftrace_n_cpus(r->ftrace); i++)
    rsp_ftrace_cpu_release(r->ftrace, i, UINT64_MAX);
}

/* ---- group reads ---------------------------------------------------------------------------
 * perf record -e '{cycles,instructions}:S': the leader samples and each of its samples carries
 * every member's count (PERF_SAMPLE_READ with PERF_FORMAT_GROUP); the members sample nothing
 * themselves. perf hands such a sample out once per member whose count moved since that id's last
 * sample, with the member's evsel and the count's difference as the period (session.c,
 * deliver_sample_group). So does the reader: the record is kept and decoded again per member. */
static bool group_read(const rsp_event *ev, uint64_t *nr, uint32_t *first, uint32_t *stride)
{
  if (ev->type != PERF_RECORD_SAMPLE || !ev->evsel || !ev->read_values ||
      !(ev->present & PERF_SAMPLE_READ))
    return false;
  uint64_t rf = ev->evsel->attr.read_format;
  if (!(rf & PERF_FORMAT_GROUP) || !(rf & PERF_FORMAT_ID) || ev->read_words < 1)
    return false;
  *nr = ev->read_values[0];
  *first = 1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
  *stride = 2 + !!(rf & PERF_FORMAT_LOST);
  return *first + *nr * *stride <= ev->read_words;
}

/* Makes EV the sample of the next member from r->group_next on whose count moved; false when none
 * is left (the split is over). */
static bool next_group_member(rsp_reader *r, rsp_event *ev)
{
  uint64_t nr;
  uint32_t first, stride;
  if (!group_read(ev, &nr, &first, &stride))
    return false;
  while (r->group_next < nr) {
    const uint64_t *v = ev->read_values + first + (size_t)r->group_next * stride;
    r->group_next++;
    rsp_evsel *member = evsel_for_id(r, v[1]);
    if (!member)
      continue; /* perf counts it as an unknown id and delivers nothing */
    if (!r->group_counts)
      r->group_counts = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    uint64_t *last = g_hash_table_lookup(r->group_counts, &v[1]);
    uint64_t delta = v[0] - (last ? *last : 0);
    if (last) {
      *last = v[0];
    } else {
      uint64_t *key = g_new(uint64_t, 1), *val = g_new(uint64_t, 1);
      *key = v[1];
      *val = v[0];
      g_hash_table_insert(r->group_counts, key, val);
    }
    if (!delta)
      continue;
    if (member != ev->evsel) {
      ((rsp_evsel *)ev->evsel)->n_samples--;
      member->n_samples++;
    }
    ev->evsel = member;
    ev->id = v[1];
    ev->period = delta;
    ev->present |= PERF_SAMPLE_PERIOD;
    return true;
  }
  return false;
}

static const rsp_event *next_event_of_file(rsp_reader *r, GError **error);

static const rsp_event *next_event(rsp_reader *r, GError **error)
{
  while (r->group_next) { /* the rest of a group read */
    rsp_event *ev = r->out;
    rsp_evsel *leader = g_ptr_array_index(r->evsels, r->group_evsel);
    const struct perf_event_header *h = (const struct perf_event_header *)r->group_rec;
    if (!rsp_decode_record(r->group_rec, h->size, leader, r->group_offset, r->path, ev, error))
      return NULL;
    leader->n_samples++; /* moved to the member by next_group_member */
    if (next_group_member(r, ev)) {
      r->stats.events++;
      return ev;
    }
    leader->n_samples--;
    r->group_next = 0;
  }
  for (;;) {
    const rsp_event *got = next_event_of_file(r, error);
    uint64_t nr;
    uint32_t first, stride;
    if (!got || !group_read(got, &nr, &first, &stride) || nr < 1)
      return got;
    rsp_event *ev = (rsp_event *)got;
    const struct perf_event_header *h = (const struct perf_event_header *)ev->record;
    if (!h)
      return got;
    if (r->group_rec_cap < h->size) {
      g_free(r->group_rec);
      r->group_rec_cap = MAX((size_t)h->size, 256u);
      r->group_rec = g_malloc(r->group_rec_cap);
    }
    memcpy(r->group_rec, ev->record, h->size);
    r->group_offset = ev->offset;
    r->group_evsel = ev->evsel->index;
    r->group_next = 0;
    if (next_group_member(r, ev)) {
      if (r->group_next >= nr)
        r->group_next = 0; /* that was the last member */
      return ev;
    }
    r->group_next = 0;
    /* no member's count moved: perf delivers nothing for this sample */
    ((rsp_evsel *)ev->evsel)->n_samples--;
    r->stats.events--;
  }
}

static const rsp_event *next_event_of_file(rsp_reader *r, GError **error)
{
  if (r->ftrace)
    return rsp_ftrace_merge_next(r, error);
  for (;;) {
    if (r->immediate_next < r->immediates->len)
      return rsp_reader_deliver_immediate(r, error);
    rsp_reader_reset_immediates(r);
    if (rsp_oe_peek(&r->oe))
      return rsp_reader_deliver_queued(r, error);
    if (!rsp_reader_read_on(r))
      break;
    while (!r->flushed_all && r->immediates->len == 0 && !rsp_oe_peek(&r->oe))
      rsp_reader_read_on(r); /* until something is deliverable (at the end, the ordering buffer's rest is) */
  }
  r->stats.out_of_order = r->oe.out_of_order;
  r->stats.max_buffered = r->oe.max_buffered;
  return rsp_reader_end_of_stream(r, error);
}

void rsp_reader_close(rsp_reader *r)
{
  if (!r)
    return;
  rsp_source_close(&r->src);
  rsp_oe_free(&r->oe);
  rsp_decompressor_free(r->decomp);
  if (r->tep)
    tep_free(r->tep);
  g_ptr_array_unref(r->evsels);
  g_ptr_array_unref(r->event_descs);
  g_array_unref(r->event_types);
  g_ptr_array_unref(r->warnings);
  g_clear_error(&r->deferred);
  g_ptr_array_unref(r->immediates);
  g_array_unref(r->immediate_offsets);
  g_array_unref(r->immediate_evsels);
  g_array_unref(r->build_ids);
  g_string_chunk_free(r->strings);
  g_strfreev(r->info.cmdline);
  g_free(r->tracing_kallsyms);
  g_free(r->id_keys);
  g_free(r->id_vals);
  g_free(r->id_flat);
  g_free(r->group_rec);
  if (r->group_counts)
    g_hash_table_destroy(r->group_counts);
  g_free(r->scratch);
  if (r->metadata)
    g_key_file_unref(r->metadata);
  rsp_ftrace_merge_close(r);
  g_free(r->path);
  g_free(r);
}

const char *rsp_reader_path(const rsp_reader *r) { return r->path; }
const rsp_header_info *rsp_reader_header(const rsp_reader *r) { return &r->info; }

const rsp_reader_stats *rsp_reader_stats_get(const rsp_reader *r)
{
  ((rsp_reader *)r)->stats.out_of_order = r->oe.out_of_order;
  ((rsp_reader *)r)->stats.max_buffered = r->oe.max_buffered;
  return &r->stats;
}

unsigned rsp_reader_n_evsels(const rsp_reader *r) { return r->evsels->len; }

const rsp_evsel *rsp_reader_evsel(const rsp_reader *r, unsigned index)
{
  return index < r->evsels->len ? g_ptr_array_index(r->evsels, index) : NULL;
}

const char *const *rsp_reader_warnings(const rsp_reader *r)
{
  /* kept NULL-terminated: a NULL is appended and dropped again around each look */
  GPtrArray *w = r->warnings;
  g_ptr_array_add(w, NULL);
  g_ptr_array_set_size(w, w->len - 1);
  return (const char *const *)w->pdata;
}

const rsp_evsel *rsp_reader_find_evsel(const rsp_reader *r, const char *name)
{
  for (unsigned i = 0; i < r->evsels->len; i++) {
    const rsp_evsel *e = g_ptr_array_index(r->evsels, i);
    if (e->name && strcmp(e->name, name) == 0)
      return e;
  }
  return NULL;
}

