/* Kernel symbols from a kallsyms text: functions only (t, T, w, W, as perf keeps them), sorted,
 * each ending where the next begins; aliases at one address resolved the way perf chooses. */
#include "reader/symbolizer-private.h"

#include <string.h>
#include <zstd.h>

typedef struct ksym {
  uint64_t addr;
  const char *name;
  const char *dso;
  char type;
} ksym;

struct rsp_kallsyms {
  GArray *syms; /* ksym, sorted by addr */
  bool sorted;
  GStringChunk *strings;
};

static int cmp_ksym(const void *a, const void *b)
{
  const ksym *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Which of two kernel symbols at one address perf names a frame with: global over local over
 * weak, and among equals the one listed last (measured against perf script: __x64_sys_vfork,
 * not __ia32_sys_vfork listed before it). Returns true when B, listed after A, wins. */
static int rank(char type)
{
  return type == 'T' ? 2 : type == 't' ? 1 : 0;
}

static bool better(const ksym *a, const ksym *b)
{
  return rank(b->type) >= rank(a->type);
}

static void finish(rsp_kallsyms *k)
{
  if (k->sorted)
    return;
  GArray *s = k->syms;
  g_array_sort(s, cmp_ksym); /* stable: at equal rank perf keeps the first one listed */
  /* keep one symbol per address */
  guint out = 0;
  for (guint i = 0; i < s->len; i++) {
    ksym *cur = &g_array_index(s, ksym, i);
    if (out > 0 && g_array_index(s, ksym, out - 1).addr == cur->addr) {
      if (better(&g_array_index(s, ksym, out - 1), cur))
        g_array_index(s, ksym, out - 1) = *cur;
      continue;
    }
    g_array_index(s, ksym, out++) = *cur;
  }
  g_array_set_size(s, out);
  k->sorted = true;
}

rsp_kallsyms *rsp_kallsyms_parse(const char *text, size_t len, GStringChunk *strings)
{
  rsp_kallsyms *k = g_new0(rsp_kallsyms, 1);
  k->syms = g_array_sized_new(FALSE, FALSE, sizeof(ksym), 1 << 17);
  k->strings = strings;
  const char *kernel = g_string_chunk_insert_const(strings, "[kernel.kallsyms]");
  const char *p = text, *end = text + len;
  char name[512], module[256];
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    /* ADDR TYPE NAME [\t[MODULE]] */
    char *after;
    uint64_t addr = g_ascii_strtoull(p, &after, 16);
    if (after != p && after + 3 <= le && after[0] == ' ' && after[2] == ' ') {
      char type = after[1];
      if (addr != 0 && (type == 't' || type == 'T' || type == 'w' || type == 'W')) {
        const char *ns = after + 3;
        const char *ne = ns;
        while (ne < le && *ne != '\t' && *ne != ' ')
          ne++;
        size_t nlen = MIN((size_t)(ne - ns), sizeof name - 1);
        memcpy(name, ns, nlen);
        name[nlen] = 0;
        const char *dso = kernel;
        const char *ms = memchr(ne, '[', (size_t)(le - ne));
        if (ms) {
          const char *me = memchr(ms, ']', (size_t)(le - ms));
          if (me) {
            size_t mlen = MIN((size_t)(me - ms + 1), sizeof module - 1);
            memcpy(module, ms, mlen);
            module[mlen] = 0;
            dso = g_string_chunk_insert_const(strings, module);
          }
        }
        if (nlen) {
          ksym s = {addr, g_string_chunk_insert_const(strings, name), dso, type};
          g_array_append_val(k->syms, s);
        }
      }
    }
    p = nl ? nl + 1 : end;
  }
  if (k->syms->len == 0) {
    rsp_kallsyms_free(k);
    return NULL;
  }
  finish(k);
  return k;
}

rsp_kallsyms *rsp_kallsyms_load(const char *path, GStringChunk *strings, GError **error)
{
  gchar *data = NULL;
  gsize len = 0;
  if (!g_file_get_contents(path, &data, &len, error))
    return NULL;
  if (len >= 4 && (uint8_t)data[0] == 0x28 && (uint8_t)data[1] == 0xb5 && (uint8_t)data[2] == 0x2f &&
      (uint8_t)data[3] == 0xfd) {
    ZSTD_DStream *ds = ZSTD_createDStream();
    ZSTD_initDStream(ds);
    GByteArray *outb = g_byte_array_new();
    uint8_t buf[1 << 16];
    ZSTD_inBuffer in = {data, len, 0};
    bool ok = true;
    while (in.pos < in.size) {
      ZSTD_outBuffer out = {buf, sizeof buf, 0};
      size_t r = ZSTD_decompressStream(ds, &out, &in);
      if (ZSTD_isError(r)) {
        g_set_error(error, RSP_READER_ERROR, RSP_READER_ERROR_FORMAT, "%s: zstd: %s", path,
                    ZSTD_getErrorName(r));
        ok = false;
        break;
      }
      g_byte_array_append(outb, buf, (guint)out.pos);
      if (out.pos == 0 && r == 0)
        break;
    }
    ZSTD_freeDStream(ds);
    g_free(data);
    if (!ok) {
      g_byte_array_unref(outb);
      return NULL;
    }
    len = outb->len;
    data = (gchar *)g_byte_array_free(outb, FALSE);
  }
  rsp_kallsyms *k = rsp_kallsyms_parse(data, len, strings);
  g_free(data);
  if (!k)
    g_set_error(error, RSP_READER_ERROR, RSP_READER_ERROR_FORMAT,
                "%s: no kernel function symbols (all addresses zero? read it as root)", path);
  return k;
}

void rsp_kallsyms_free(rsp_kallsyms *k)
{
  if (!k)
    return;
  g_array_unref(k->syms);
  g_free(k);
}

void rsp_kallsyms_add(rsp_kallsyms *k, uint64_t addr, uint32_t len, const char *name)
{
  ksym s = {addr, g_string_chunk_insert_const(k->strings, name),
            g_string_chunk_insert_const(k->strings, "[bpf]"), 't'};
  g_array_append_val(k->syms, s);
  if (len) {
    ksym e = {addr + len, g_string_chunk_insert_const(k->strings, ""), s.dso, 't'};
    g_array_append_val(k->syms, e); /* marks the end: lookups past it resolve to nothing */
  }
  k->sorted = false;
}

bool rsp_kallsyms_lookup(rsp_kallsyms *k, uint64_t addr, rsp_sym *sym, const char **dso)
{
  finish(k);
  GArray *s = k->syms;
  long i = rsp_last_at_or_before(s->data, s->len, sizeof(ksym), addr);
  if (i < 0)
    return false;
  const ksym *f = &g_array_index(s, ksym, i);
  if (!f->name[0])
    return false;
  /* past the last symbol: only trust a small distance (the end of the text is unknown) */
  if ((guint)i + 1 == s->len && addr - f->addr > (1u << 20))
    return false;
  sym->name = f->name;
  sym->start = f->addr;
  *dso = f->dso;
  return true;
}

size_t rsp_kallsyms_count(const rsp_kallsyms *k)
{
  return k->syms->len;
}
