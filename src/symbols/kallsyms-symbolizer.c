/* Kernel symbols from a kallsyms text: functions only (t, T, w, W; zero addresses, as kptr_restrict
 * prints them, skipped), in one flat sorted array searched by bisection, each symbol ending where
 * the next begins (within its module); aliases at one address resolved the way perf chooses.
 * Symbols announced by KSYMBOL records (bpf programs) live in a second, small sorted array. */
#include "symbols/symbolizer-private.h"

#include <string.h>
#include <zstd.h>

typedef struct ksym {
  uint64_t addr, end;
  const char *name;
  const char *dso;
  char type;
} ksym;

struct rsp_kallsyms {
  GArray *syms;    /* ksym, sorted by addr, one per address, ends filled in */
  GArray *dynamic; /* ksym from KSYMBOL records (bpf programs, trampolines), sorted, sized */
  GStringChunk *strings;
  uint64_t text, stext; /* _text and _stext, the relocation references perf records */
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

static uint64_t page_roundup(uint64_t x)
{
  return (x + 4095) & ~(uint64_t)4095;
}

/* Sorts, keeps one symbol per address and sets each symbol's end as perf's symbols__fixup_end
 * does for kallsyms: where the next symbol starts, except at the boundary between the kernel and
 * a module or between two modules (and after the last symbol), where it ends with the next page:
 * the gap up to the next module is nobody's. */
static void finish(rsp_kallsyms *k)
{
  GArray *s = k->syms;
  /* /proc/kallsyms is in address order already: then the (stable) sort would change nothing */
  bool sorted = true;
  for (guint i = 1; i < s->len && sorted; i++)
    sorted = g_array_index(s, ksym, i - 1).addr <= g_array_index(s, ksym, i).addr;
  if (!sorted)
    g_array_sort(s, cmp_ksym); /* stable */
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
  for (guint i = 0; i < out; i++) {
    ksym *cur = &g_array_index(s, ksym, i);
    if (i + 1 == out) {
      cur->end = page_roundup(cur->addr) + 4096;
      break;
    }
    const ksym *next = cur + 1;
    /* dso strings are interned: equal names are equal pointers */
    cur->end = next->dso == cur->dso ? next->addr : MIN(next->addr, page_roundup(cur->addr + 4096));
  }
}

static rsp_kallsyms *new_sized(GStringChunk *strings, guint reserve)
{
  rsp_kallsyms *k = g_new0(rsp_kallsyms, 1);
  k->syms = g_array_sized_new(FALSE, FALSE, sizeof(ksym), reserve);
  k->dynamic = g_array_new(FALSE, FALSE, sizeof(ksym));
  k->strings = strings;
  return k;
}

rsp_kallsyms *rsp_kallsyms_new(GStringChunk *strings)
{
  return new_sized(strings, 0);
}

/* The value of each hex digit; 0xff for any other byte. */
static uint8_t hex_digit[256];

static void init_hex_digits(void)
{
  static gsize done;
  if (g_once_init_enter(&done)) {
    memset(hex_digit, 0xff, sizeof hex_digit);
    for (int c = 0; c < 10; c++)
      hex_digit['0' + c] = (uint8_t)c;
    for (int c = 0; c < 6; c++)
      hex_digit['a' + c] = hex_digit['A' + c] = (uint8_t)(10 + c);
    g_once_init_leave(&done, 1);
  }
}

/* Whether any byte of W is B (the classic test for a zero byte, on W ^ B in every byte). */
static inline uint64_t has_byte(uint64_t w, uint64_t b)
{
  uint64_t x = w ^ (b * 0x0101010101010101ull);
  return (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
}

/* The end of the name starting at NS: its first tab or space, or LE. Eight bytes a step while they lie
 * before LE: a byte-by-byte scan of 120,000 names was a sixth of loading a kallsyms file. */
static const char *name_end(const char *ns, const char *le)
{
  const char *ne = ns;
  while (ne + 8 <= le) {
    uint64_t w;
    memcpy(&w, ne, 8);
    if (has_byte(w, '\t') | has_byte(w, ' '))
      break;
    ne += 8;
  }
  while (ne < le && *ne != '\t' && *ne != ' ')
    ne++;
  return ne;
}

rsp_kallsyms *rsp_kallsyms_parse(const char *text, size_t len, GStringChunk *strings)
{
  init_hex_digits();
  /* ~44 bytes a line: the array is sized once and cut to what was read (appending one by one was a tenth of
   * the parse) */
  guint cap = (guint)MIN(len / 40 + 16, 1u << 22);
  rsp_kallsyms *k = new_sized(strings, cap);
  g_array_set_size(k->syms, cap);
  guint n = 0;
  const char *kernel = g_string_chunk_insert_const(strings, "[kernel.kallsyms]");
  const char *p = text, *end = text + len;
  char module[256];
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    /* ADDR TYPE NAME [\t[MODULE]]; the text need not end with a NUL */
    uint64_t addr = 0;
    const char *after = p;
    const char *digits_end = le - p > 16 ? p + 16 : le;
    for (; after < digits_end; after++) {
      uint8_t v = hex_digit[(uint8_t)*after];
      if (v == 0xff)
        break;
      addr = addr << 4 | v;
    }
    if (after != p && after + 3 <= le && after[0] == ' ' && after[2] == ' ') {
      char type = after[1];
      if (addr != 0 && (type == 't' || type == 'T' || type == 'w' || type == 'W')) {
        const char *ns = after + 3;
        const char *ne = name_end(ns, le);
        size_t nlen = MIN((size_t)(ne - ns), 1024);
        const char *dso = kernel;
        const char *ms = ne < le ? memchr(ne, '[', (size_t)(le - ne)) : NULL;
        if (ms) {
          const char *me = memchr(ms, ']', (size_t)(le - ms));
          if (me) {
            size_t mlen = MIN((size_t)(me - ms + 1), sizeof module - 1);
            memcpy(module, ms, mlen);
            module[mlen] = 0;
            dso = g_string_chunk_insert_const(strings, module);
          }
        }
        if (nlen == 5 && memcmp(ns, "_text", 5) == 0)
          k->text = addr;
        if (nlen == 6 && memcmp(ns, "_stext", 6) == 0)
          k->stext = addr;
        if (nlen) {
          if (n == cap) {
            cap *= 2;
            g_array_set_size(k->syms, cap);
          }
          g_array_index(k->syms, ksym, n++) =
            (ksym){addr, addr, g_string_chunk_insert_len(strings, ns, (gssize)nlen), dso, type};
        }
      }
    }
    p = nl ? nl + 1 : end;
  }
  g_array_set_size(k->syms, n);
  if (k->syms->len == 0) {
    rsp_kallsyms_free(k);
    return NULL;
  }
  finish(k);
  return k;
}

/* The symbols of PATH's TEXT (LEN bytes), which it frees. */
static rsp_kallsyms *parse_text(const char *path, gchar *text, size_t len, GStringChunk *strings, GError **error)
{
  rsp_kallsyms *k = rsp_kallsyms_parse(text, len, strings);
  g_free(text);
  if (!k)
    g_set_error(error, RSP_READER_ERROR, RSP_READER_ERROR_FORMAT,
                "%s: no kernel function symbols (all addresses zero? read it as root)", path);
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
    /* in one call into a buffer of the frame's size, when it says it (zstd's tool writes it): through the
     * streaming decoder's 64 KiB window and a growing array took twice as long. Any error goes the streaming
     * way below, for its message. */
    unsigned long long whole = ZSTD_getFrameContentSize(data, len); /* the first frame's: more fail below */
    if (whole != ZSTD_CONTENTSIZE_ERROR && whole != ZSTD_CONTENTSIZE_UNKNOWN && whole < (1ull << 31)) {
      gchar *text = g_malloc(whole ? (size_t)whole : 1);
      size_t r = ZSTD_decompress(text, (size_t)whole, data, len);
      if (!ZSTD_isError(r) && r == whole) {
        g_free(data);
        return parse_text(path, text, r, strings, error);
      }
      g_free(text);
    }
    ZSTD_DStream *ds = ZSTD_createDStream();
    ZSTD_initDStream(ds);
    GByteArray *outb = g_byte_array_new();
    uint8_t buf[1 << 16];
    ZSTD_inBuffer in = {data, len, 0};
    size_t r = 0;
    while (in.pos < in.size) {
      ZSTD_outBuffer out = {buf, sizeof buf, 0};
      r = ZSTD_decompressStream(ds, &out, &in);
      if (ZSTD_isError(r))
        break;
      g_byte_array_append(outb, buf, (guint)out.pos);
    }
    /* r == 0: the last frame was complete; flush what the decoder still holds */
    while (!ZSTD_isError(r) && r != 0) {
      ZSTD_outBuffer out = {buf, sizeof buf, 0};
      r = ZSTD_decompressStream(ds, &out, &in);
      if (!ZSTD_isError(r) && out.pos == 0)
        break; /* no input left and nothing more comes out: truncated */
      if (!ZSTD_isError(r))
        g_byte_array_append(outb, buf, (guint)out.pos);
    }
    bool ok = !ZSTD_isError(r) && r == 0;
    if (!ok)
      g_set_error(error, RSP_READER_ERROR, RSP_READER_ERROR_FORMAT, "%s: zstd: %s", path,
                  ZSTD_isError(r) ? ZSTD_getErrorName(r) : "truncated");
    ZSTD_freeDStream(ds);
    g_free(data);
    if (!ok) {
      g_byte_array_unref(outb);
      return NULL;
    }
    len = outb->len;
    data = (gchar *)g_byte_array_free(outb, FALSE);
  }
  return parse_text(path, data, len, strings, error);
}

void rsp_kallsyms_free(rsp_kallsyms *k)
{
  if (!k)
    return;
  g_array_unref(k->syms);
  g_array_unref(k->dynamic);
  g_free(k);
}

static long last_at_or_below(const GArray *a, uint64_t addr)
{
  return rsp_last_at_or_before(a->data, a->len, sizeof(ksym), addr);
}

void rsp_kallsyms_add(rsp_kallsyms *k, uint64_t addr, uint32_t len, const char *name,
                      const char *dso)
{
  ksym s = {addr, addr + (len ? len : 1), g_string_chunk_insert_const(k->strings, name),
            g_string_chunk_insert_const(k->strings, dso), 't'};
  long i = last_at_or_below(k->dynamic, addr);
  if (i >= 0 && g_array_index(k->dynamic, ksym, i).addr == addr)
    g_array_index(k->dynamic, ksym, i) = s; /* re-registered: the newer one */
  else
    g_array_insert_val(k->dynamic, (guint)(i + 1), s);
}

void rsp_kallsyms_remove(rsp_kallsyms *k, uint64_t addr)
{
  long i = last_at_or_below(k->dynamic, addr);
  if (i >= 0 && g_array_index(k->dynamic, ksym, i).addr == addr)
    g_array_remove_index(k->dynamic, (guint)i);
}

bool rsp_kallsyms_lookup(const rsp_kallsyms *k, uint64_t addr, rsp_sym *sym, const char **dso)
{
  /* programs announced by KSYMBOL first: they may have come after the snapshot */
  const ksym *f = NULL;
  long i = last_at_or_below(k->dynamic, addr);
  if (i >= 0 && addr < g_array_index(k->dynamic, ksym, i).end)
    f = &g_array_index(k->dynamic, ksym, i);
  if (!f) {
    i = last_at_or_below(k->syms, addr);
    if (i < 0 || addr >= g_array_index(k->syms, ksym, i).end)
      return false;
    f = &g_array_index(k->syms, ksym, i);
  }
  sym->name = f->name;
  sym->start = f->addr;
  *dso = f->dso;
  return true;
}

uint64_t rsp_kallsyms_reference(const rsp_kallsyms *k, const char *name)
{
  return strcmp(name, "_text") == 0 ? k->text : strcmp(name, "_stext") == 0 ? k->stext : 0;
}

size_t rsp_kallsyms_count(const rsp_kallsyms *k)
{
  return k->syms->len + k->dynamic->len;
}
