/* pprof's profile.proto (github.com/google/pprof, proto/profile.proto), gzipped as pprof reads it.
 *
 * Two sample types: samples/count, the cpu-clock (or other sampling event's) samples of the processes on the
 * control paths, and off-cpu/nanoseconds, their sleeps by the stack they went to sleep in (what rsp-export
 * --to folded writes as on-cpu and off-cpu). Samples are summed per thread and stack, each stack rooted at the
 * thread's comm (as folded stacks are) and labelled with its pid, tid and comm. Functions are interned per
 * (name, binary), one location each; a mapping per binary. The protobuf is written by hand: a few varints and
 * length-delimited fields (https://protobuf.dev/programming-guides/encoding/). */
#include "export/export-private.h"

#include <gio/gio.h>
#include <string.h>

/* Profile's fields */
enum {
  PROFILE_SAMPLE_TYPE = 1,
  PROFILE_SAMPLE = 2,
  PROFILE_MAPPING = 3,
  PROFILE_LOCATION = 4,
  PROFILE_FUNCTION = 5,
  PROFILE_STRING_TABLE = 6,
  PROFILE_DURATION_NANOS = 10,
  PROFILE_PERIOD_TYPE = 11,
  PROFILE_PERIOD = 12,
  PROFILE_COMMENT = 13,
  PROFILE_DEFAULT_SAMPLE_TYPE = 14,
};
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2 };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3 };
enum { LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3 };
enum { MAPPING_ID = 1, MAPPING_FILENAME = 5, MAPPING_HAS_FUNCTIONS = 7 };
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_LINE = 4 };
enum { LINE_FUNCTION_ID = 1 };
enum { FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4 };
enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static void put_varint(GByteArray *b, uint64_t v)
{
  while (v >= 0x80) {
    guint8 c = (guint8)(v | 0x80);
    g_byte_array_append(b, &c, 1);
    v >>= 7;
  }
  guint8 c = (guint8)v;
  g_byte_array_append(b, &c, 1);
}

static void put_tag(GByteArray *b, unsigned field, unsigned wire)
{
  put_varint(b, (uint64_t)field << 3 | wire);
}

/* A varint field; proto3 leaves zero out. */
static void put_uint(GByteArray *b, unsigned field, uint64_t v)
{
  if (!v)
    return;
  put_tag(b, field, WIRE_VARINT);
  put_varint(b, v);
}

static void put_bytes(GByteArray *b, unsigned field, const void *data, size_t len)
{
  put_tag(b, field, WIRE_LEN);
  put_varint(b, len);
  g_byte_array_append(b, data, (guint)len);
}

/* A nested message MSG as field FIELD of B; MSG emptied for the next one. */
static void put_message(GByteArray *b, unsigned field, GByteArray *msg)
{
  put_bytes(b, field, msg->data, msg->len);
  g_byte_array_set_size(msg, 0);
}

/* N values as one packed field. */
static void put_packed(GByteArray *b, unsigned field, const uint64_t *v, size_t n, GByteArray *scratch)
{
  if (!n)
    return;
  for (size_t i = 0; i < n; i++)
    put_varint(scratch, v[i]);
  put_message(b, field, scratch);
}

typedef struct writer {
  const rsp_model *m;
  GHashTable *strings;   /* string -> index + 1 */
  GPtrArray *string_list;
  GHashTable *functions; /* "name\x1fdso" -> function id (= its location id) */
  GHashTable *seen;      /* (name, dso) pointers -> function id + 1: no allocation for one seen before */
  GArray *function_name, *function_dso; /* by id - 1: string indexes */
  GHashTable *mappings;  /* dso string index -> mapping id */
  GArray *mapping_file;  /* by id - 1 */
  GHashTable *samples;   /* key (task, stack, off-cpu) -> struct sample */
} writer;

typedef struct sample_key {
  rsp_task_id task;
  rsp_stack_id stack;
  uint32_t off_cpu;
} sample_key;

typedef struct sample {
  sample_key key;
  uint64_t count, ns;
  uint64_t order; /* first seen, for a stable output */
} sample;

static guint key_hash(gconstpointer p)
{
  const sample_key *k = p;
  return k->task * 2654435761u ^ k->stack * 40503u ^ k->off_cpu;
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
  return memcmp(a, b, sizeof(sample_key)) == 0;
}

static uint64_t string(writer *w, const char *s)
{
  gpointer found = g_hash_table_lookup(w->strings, s);
  if (found)
    return GPOINTER_TO_UINT(found) - 1;
  uint64_t id = w->string_list->len;
  char *copy = g_strdup(s);
  g_ptr_array_add(w->string_list, copy);
  g_hash_table_insert(w->strings, copy, GUINT_TO_POINTER(id + 1));
  return id;
}

/* The mapping of the binary whose name is string D, made when new. */
static void mapping(writer *w, uint64_t d)
{
  if (g_hash_table_contains(w->mappings, GUINT_TO_POINTER(d)))
    return;
  g_array_append_val(w->mapping_file, d);
  g_hash_table_insert(w->mappings, GUINT_TO_POINTER(d), GUINT_TO_POINTER(w->mapping_file->len));
}

/* pprof takes mapping[0] for the main binary: among the binaries in the process of interest's samples, the one
 * named as the process (comm: its first 15 bytes), else the outermost user frame's of its first sample. */
static void main_binary_first(writer *w, int32_t pid)
{
  const rsp_model *m = w->m;
  const char *outermost = NULL;
  for (rsp_sample_id s = 0; s < rsp_model_n_samples(m); s++) {
    const rsp_sample *sm = rsp_model_sample(m, s);
    const rsp_task *t = rsp_model_task(m, rsp_model_run(m, sm->run)->task);
    if (sm->stack == RSP_NO_ID || t->pid != pid || !*t->comm)
      continue;
    rsp_stack_frames f = rsp_model_stack(m, sm->stack);
    for (uint32_t i = f.n; i-- > 0;) {
      const rsp_model_frame *fi = rsp_frame_at(f, i);
      if (fi->kernel || !fi->dso || fi->dso[0] != '/')
        continue;
      const char *base = strrchr(fi->dso, '/') + 1;
      if (strncmp(base, t->comm, 15) == 0) {
        mapping(w, string(w, fi->dso));
        return;
      }
      if (!outermost)
        outermost = fi->dso;
    }
  }
  if (outermost)
    mapping(w, string(w, outermost));
}

/* The location (and function) of NAME in DSO (NULL: a process, no binary). */
static uint64_t location_by_text(writer *w, const char *name, const char *dso)
{
  char *key = g_strdup_printf("%s\x1f%s", name, dso ? dso : "");
  gpointer found = g_hash_table_lookup(w->functions, key);
  if (found) {
    g_free(key);
    return GPOINTER_TO_UINT(found);
  }
  uint64_t n = string(w, name), d = dso ? string(w, dso) : 0;
  g_array_append_val(w->function_name, n);
  g_array_append_val(w->function_dso, d);
  uint64_t id = w->function_name->len;
  g_hash_table_insert(w->functions, key, GUINT_TO_POINTER(id));
  if (dso)
    mapping(w, d);
  return id;
}

static uint64_t location(writer *w, const char *name, const char *dso)
{
  guint seen = rsp_export_pair_lookup(w->seen, name, dso);
  if (seen)
    return seen - 1;
  uint64_t id = location_by_text(w, name, dso);
  rsp_export_pair_insert(w->seen, name, dso, (guint)id);
  return id;
}

static void add(writer *w, rsp_task_id task, rsp_stack_id stack, bool off_cpu, uint64_t count, uint64_t ns)
{
  sample_key k = { task, stack, off_cpu };
  sample *s = g_hash_table_lookup(w->samples, &k);
  if (!s) {
    s = g_new0(sample, 1);
    s->key = k;
    s->order = g_hash_table_size(w->samples);
    g_hash_table_insert(w->samples, &s->key, s);
  }
  s->count += count;
  s->ns += ns;
}

static int by_order(const void *a, const void *b)
{
  const sample *x = *(const sample *const *)a, *y = *(const sample *const *)b;
  return x->order < y->order ? -1 : x->order > y->order;
}

static void put_value_type(writer *w, GByteArray *b, unsigned field, const char *type, const char *unit,
                           GByteArray *msg)
{
  put_uint(msg, VALUE_TYPE_TYPE, string(w, type));
  put_uint(msg, VALUE_TYPE_UNIT, string(w, unit));
  put_message(b, field, msg);
}

static void put_label(writer *w, GByteArray *b, const char *key, const char *str, int64_t num, GByteArray *msg)
{
  put_uint(msg, LABEL_KEY, string(w, key));
  if (str)
    put_uint(msg, LABEL_STR, string(w, str));
  else
    put_uint(msg, LABEL_NUM, (uint64_t)num);
  put_message(b, SAMPLE_LABEL, msg);
}

/* The profile message, strings last since the samples and functions intern them. */
static GByteArray *encode(writer *w, const rsp_paths *paths)
{
  const rsp_model *m = w->m;
  GByteArray *b = g_byte_array_new(), *msg = g_byte_array_new(), *inner = g_byte_array_new();
  string(w, "");
  put_value_type(w, b, PROFILE_SAMPLE_TYPE, "samples", "count", msg);
  put_value_type(w, b, PROFILE_SAMPLE_TYPE, "off-cpu", "nanoseconds", msg);
  main_binary_first(w, rsp_paths_pid(paths));

  guint n = g_hash_table_size(w->samples);
  gpointer *all = g_new(gpointer, n ? n : 1);
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, w->samples);
  for (guint i = 0; g_hash_table_iter_next(&it, NULL, &value); i++)
    all[i] = value;
  qsort(all, n, sizeof *all, by_order);
  GArray *locs = g_array_new(false, false, sizeof(uint64_t));
  for (guint i = 0; i < n; i++) {
    const sample *s = all[i];
    const rsp_task *t = rsp_model_task(m, s->key.task);
    g_array_set_size(locs, 0);
    rsp_stack_frames f = rsp_model_stack(m, s->key.stack);
    for (uint32_t k = 0; k < f.n; k++) { /* the model's frames are innermost first, as pprof's */
      const rsp_model_frame *fk = rsp_frame_at(f, k);
      uint64_t l = location(w, fk->function ? fk->function : "?", fk->dso ? fk->dso : "[unknown]");
      g_array_append_val(locs, l);
    }
    if (!f.n) {
      uint64_t l = location(w, "[no stack]", NULL);
      g_array_append_val(locs, l);
    }
    uint64_t root = location(w, *t->comm ? t->comm : "?", NULL);
    g_array_append_val(locs, root);
    put_packed(msg, SAMPLE_LOCATION_ID, (const uint64_t *)(void *)locs->data, locs->len, inner);
    uint64_t values[2] = { s->count, s->ns };
    put_packed(msg, SAMPLE_VALUE, values, 2, inner);
    put_label(w, msg, "pid", NULL, t->pid, inner);
    put_label(w, msg, "tid", NULL, t->tid, inner);
    put_label(w, msg, "comm", *t->comm ? t->comm : "?", 0, inner);
    put_message(b, PROFILE_SAMPLE, msg);
  }
  g_array_free(locs, true);
  g_free(all);

  for (guint i = 0; i < w->mapping_file->len; i++) {
    put_uint(msg, MAPPING_ID, i + 1);
    put_uint(msg, MAPPING_FILENAME, g_array_index(w->mapping_file, uint64_t, i));
    put_uint(msg, MAPPING_HAS_FUNCTIONS, 1);
    put_message(b, PROFILE_MAPPING, msg);
  }
  for (guint i = 0; i < w->function_name->len; i++) {
    uint64_t dso = g_array_index(w->function_dso, uint64_t, i);
    put_uint(msg, LOCATION_ID, i + 1);
    if (dso)
      put_uint(msg, LOCATION_MAPPING_ID, GPOINTER_TO_UINT(g_hash_table_lookup(w->mappings, GUINT_TO_POINTER(dso))));
    put_uint(inner, LINE_FUNCTION_ID, i + 1);
    put_message(msg, LOCATION_LINE, inner);
    put_message(b, PROFILE_LOCATION, msg);
  }
  for (guint i = 0; i < w->function_name->len; i++) {
    uint64_t name = g_array_index(w->function_name, uint64_t, i);
    put_uint(msg, FUNCTION_ID, i + 1);
    put_uint(msg, FUNCTION_NAME, name);
    put_uint(msg, FUNCTION_SYSTEM_NAME, name);
    put_uint(msg, FUNCTION_FILENAME, g_array_index(w->function_dso, uint64_t, i));
    put_message(b, PROFILE_FUNCTION, msg);
  }
  uint64_t t0 = rsp_model_time_first(m), t1 = rsp_model_time_last(m);
  put_uint(b, PROFILE_DURATION_NANOS, t1 > t0 ? t1 - t0 : 0);
  const char *event = rsp_model_sample_event(m);
  uint64_t period = rsp_export_sample_period_ns(m);
  if (period) { /* a clock: each sample stands for its period of cpu time */
    put_value_type(w, b, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds", msg);
    put_uint(b, PROFILE_PERIOD, period);
  } else {
    put_value_type(w, b, PROFILE_PERIOD_TYPE, event && *event ? event : "samples", "count", msg);
  }
  char *comment = g_strdup_printf("rsp-export: the processes on the control paths of pid %d", rsp_paths_pid(paths));
  put_uint(b, PROFILE_COMMENT, string(w, comment));
  g_free(comment);
  put_uint(b, PROFILE_DEFAULT_SAMPLE_TYPE, string(w, "samples"));
  for (guint i = 0; i < w->string_list->len; i++) {
    const char *s = g_ptr_array_index(w->string_list, i);
    put_bytes(b, PROFILE_STRING_TABLE, s, strlen(s));
  }
  g_byte_array_free(msg, true);
  g_byte_array_free(inner, true);
  return b;
}

/* DATA gzipped to OUT. */
static bool write_gzip(const guint8 *data, size_t len, FILE *out, GError **error)
{
  GZlibCompressor *z = g_zlib_compressor_new(G_ZLIB_COMPRESSOR_FORMAT_GZIP, -1);
  guint8 buf[65536];
  bool ok = true;
  for (;;) {
    gsize read = 0, written = 0;
    GConverterResult r = g_converter_convert(G_CONVERTER(z), data, len, buf, sizeof buf, G_CONVERTER_INPUT_AT_END,
                                             &read, &written, error);
    if (r == G_CONVERTER_ERROR) {
      ok = false;
      break;
    }
    data += read;
    len -= read;
    if (written && fwrite(buf, 1, written, out) != written) {
      ok = false;
      break;
    }
    if (r == G_CONVERTER_FINISHED)
      break;
  }
  g_object_unref(z);
  return ok;
}

bool rsp_export_pprof(const rsp_paths *paths, const rsp_export_window *window, FILE *out, GError **error)
{
  const rsp_model *m = rsp_paths_model(paths);
  writer w = {
    .m = m,
    .strings = g_hash_table_new(g_str_hash, g_str_equal),
    .string_list = g_ptr_array_new_with_free_func(g_free),
    .functions = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
    .seen = rsp_export_pair_table_new(),
    .function_name = g_array_new(false, false, sizeof(uint64_t)),
    .function_dso = g_array_new(false, false, sizeof(uint64_t)),
    .mappings = g_hash_table_new(g_direct_hash, g_direct_equal),
    .mapping_file = g_array_new(false, false, sizeof(uint64_t)),
    .samples = g_hash_table_new_full(key_hash, key_equal, NULL, g_free),
  };
  GHashTable *pids = rsp_export_path_pids(paths);
  for (rsp_sample_id s = 0; s < rsp_model_n_samples(m); s++) {
    const rsp_sample *sm = rsp_model_sample(m, s);
    rsp_task_id t = rsp_model_run(m, sm->run)->task;
    uint64_t at = sm->time, until = sm->time;
    if (g_hash_table_contains(pids, GINT_TO_POINTER(rsp_model_task(m, t)->pid)) && rsp_export_clip(window, &at, &until))
      add(&w, t, sm->stack, false, 1, 0);
  }
  for (rsp_sleep_id s = 0; s < rsp_model_n_sleeps(m); s++) {
    const rsp_sleep *sl = rsp_model_sleep(m, s);
    uint64_t a = sl->start, b = sl->end;
    if (sl->end > sl->start && g_hash_table_contains(pids, GINT_TO_POINTER(rsp_model_task(m, sl->task)->pid)) &&
        rsp_export_clip(window, &a, &b) && b > a)
      add(&w, sl->task, sl->stack, true, 0, b - a);
  }
  g_hash_table_destroy(pids);
  GByteArray *proto = encode(&w, paths);
  bool ok = write_gzip(proto->data, proto->len, out, error);
  g_byte_array_free(proto, true);
  g_hash_table_destroy(w.strings);
  g_ptr_array_free(w.string_list, true);
  g_hash_table_destroy(w.functions);
  g_hash_table_destroy(w.seen);
  g_array_free(w.function_name, true);
  g_array_free(w.function_dso, true);
  g_hash_table_destroy(w.mappings);
  g_array_free(w.mapping_file, true);
  g_hash_table_destroy(w.samples);
  if (!ok) {
    if (error && !*error)
      rsp_export_write_failed(out, "pprof", error);
    return false;
  }
  return !rsp_export_write_failed(out, "pprof", error);
}
