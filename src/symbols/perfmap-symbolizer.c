/* JIT symbols from /tmp/perf-PID.map ("START SIZE NAME", hex), as perf reads them. */
#include "symbols/symbolizer-private.h"

#include <string.h>

typedef struct pm_entry {
  uint64_t start, size;
  const char *name;
} pm_entry;

struct rsp_perfmap {
  GArray *entries; /* sorted by start */
};

static int cmp_entry(const void *a, const void *b)
{
  const pm_entry *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

rsp_perfmap *rsp_perfmap_load(const char *path, GStringChunk *strings)
{
  gchar *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents(path, &text, &len, NULL))
    return NULL;
  rsp_perfmap *m = g_new0(rsp_perfmap, 1);
  m->entries = g_array_new(FALSE, FALSE, sizeof(pm_entry));
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *a, *b;
    uint64_t start = g_ascii_strtoull(line, &a, 16);
    if (a == line || *a != ' ')
      continue;
    uint64_t size = g_ascii_strtoull(a + 1, &b, 16);
    if (b == a + 1 || *b != ' ' || !b[1])
      continue;
    pm_entry e = {start, size, g_string_chunk_insert_const(strings, g_strchomp(b + 1))};
    g_array_append_val(m->entries, e);
  }
  g_free(text);
  g_array_sort(m->entries, cmp_entry); /* stable: of two entries at one address, the later wins */
  return m;
}

void rsp_perfmap_free(rsp_perfmap *m)
{
  if (!m)
    return;
  g_array_unref(m->entries);
  g_free(m);
}

bool rsp_perfmap_lookup(rsp_perfmap *m, uint64_t addr, rsp_sym *sym)
{
  long i = rsp_last_at_or_before(m->entries->data, m->entries->len, sizeof(pm_entry), addr);
  if (i < 0)
    return false;
  const pm_entry *e = &g_array_index(m->entries, pm_entry, i);
  if (addr >= e->start + e->size)
    return false;
  sym->name = e->name;
  sym->start = e->start;
  return true;
}
