/* What the format writers share: the processes on the paths, write errors. */
#include "export/export-private.h"

#include <errno.h>
#include <string.h>

GHashTable *rsp_export_path_pids(const rsp_paths *paths)
{
  const rsp_model *m = rsp_paths_model(paths);
  GHashTable *pids = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (uint32_t i = 0; i < rsp_paths_n_tasks(paths); i++)
    g_hash_table_add(pids, GINT_TO_POINTER(rsp_model_task(m, rsp_paths_task(paths, i))->pid));
  return pids;
}

bool rsp_export_write_failed(FILE *out, const char *format, GError **error)
{
  if (!ferror(out) && fflush(out) == 0)
    return false;
  int err = errno;
  g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(err), "%s: write error: %s", format, g_strerror(err));
  return true;
}

static guint pair_hash(gconstpointer p)
{
  const rsp_export_pair *k = p;
  return g_direct_hash(k->a) * 31u ^ g_direct_hash(k->b);
}

static gboolean pair_equal(gconstpointer x, gconstpointer y)
{
  const rsp_export_pair *a = x, *b = y;
  return a->a == b->a && a->b == b->b;
}

GHashTable *rsp_export_pair_table_new(void)
{
  return g_hash_table_new_full(pair_hash, pair_equal, g_free, NULL);
}

guint rsp_export_pair_lookup(GHashTable *table, const void *a, const void *b)
{
  rsp_export_pair k = { a, b };
  return GPOINTER_TO_UINT(g_hash_table_lookup(table, &k));
}

void rsp_export_pair_insert(GHashTable *table, const void *a, const void *b, guint value)
{
  rsp_export_pair *k = g_new(rsp_export_pair, 1);
  k->a = a;
  k->b = b;
  g_hash_table_insert(table, k, GUINT_TO_POINTER(value + 1));
}

uint64_t rsp_export_sample_period_ns(const rsp_model *model)
{
  const char *event = rsp_model_sample_event(model);
  if (!event || (strncmp(event, "cpu-clock", 9) != 0 && strncmp(event, "task-clock", 10) != 0))
    return 0;
  const char *freq = strstr(event, "freq="), *period = strstr(event, "period=");
  uint64_t v = freq ? g_ascii_strtoull(freq + 5, NULL, 10) : period ? g_ascii_strtoull(period + 7, NULL, 10) : 0;
  if (!v)
    return 0;
  return freq ? (1000000000 + v / 2) / v : v; /* a clock's period is in ns */
}

bool rsp_export_clip(const rsp_export_window *window, uint64_t *start, uint64_t *end)
{
  if (!window || (!window->start && !window->end))
    return true;
  uint64_t lo = window->start, hi = window->end ? window->end : UINT64_MAX;
  if (*end < *start)
    *end = *start;
  if (*start >= hi || *end < lo || (*end == lo && *start < *end))
    return false;
  if (*start < lo)
    *start = lo;
  if (*end > hi)
    *end = hi;
  return true;
}
