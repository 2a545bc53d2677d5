/* perf's tracing data (the TRACING_DATA feature, or HEADER_TRACING_DATA in a pipe): the
 * tracepoint format files of the recording machine, parsed into libtraceevent, so payloads
 * are decoded with the recording's own layouts and never with this host's. */
#include "reader/reader-private.h"

#include <string.h>
#include <traceevent/event-parse.h>

typedef struct blob {
  const uint8_t *p, *end, *base;
  bool swap;
} blob;

static bool need(blob *b, size_t n)
{
  return (size_t)(b->end - b->p) >= n;
}

static bool rd4(blob *b, uint32_t *v)
{
  if (!need(b, 4))
    return false;
  memcpy(v, b->p, 4);
  if (b->swap)
    *v = GUINT32_SWAP_LE_BE(*v);
  b->p += 4;
  return true;
}

static bool rd8(blob *b, uint64_t *v)
{
  if (!need(b, 8))
    return false;
  memcpy(v, b->p, 8);
  if (b->swap)
    *v = GUINT64_SWAP_LE_BE(*v);
  b->p += 8;
  return true;
}

static const char *rdstr(blob *b)
{
  const uint8_t *z = memchr(b->p, 0, (size_t)(b->end - b->p));
  if (!z)
    return NULL;
  const char *s = (const char *)b->p;
  b->p = z + 1;
  return s;
}

static bool rdbuf(blob *b, uint64_t n, const uint8_t **out)
{
  if ((uint64_t)(b->end - b->p) < n)
    return false;
  *out = b->p;
  b->p += n;
  return true;
}

static bool all_of(const char *p, const char *end, const char *allowed)
{
  if (p >= end)
    return false;
  for (; p < end; p++)
    if (!g_ascii_isalnum(*p) && !strchr(allowed, *p))
      return false;
  return true;
}

/* "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" */
static bool field_line_ok(const char *l, const char *end)
{
  if (!g_str_has_prefix(l, "\tfield:"))
    return false;
  const char *p = l + 7;
  const char *semi = memchr(p, ';', (size_t)(end - p));
  if (!semi || !all_of(p, semi, "_ *[]:") || !memchr(p, ' ', (size_t)(semi - p)))
    return false;
  p = semi + 1;
  static const char *const keys[] = {"\toffset:", "\tsize:", "\tsigned:"};
  for (unsigned k = 0; k < 3; k++) {
    size_t kl = strlen(keys[k]);
    if ((size_t)(end - p) < kl || memcmp(p, keys[k], kl) != 0)
      return false;
    p += kl;
    semi = memchr(p, ';', (size_t)(end - p));
    if (!semi || !all_of(p, semi, "") || semi - p > 9)
      return false;
    p = semi + 1;
  }
  return true;
}

/* The text before "print fmt:" is a tracepoint format as the kernel writes it, line by line. */
static bool format_ok(const char *text, size_t len)
{
  const char *p = text, *end = text + len;
  unsigned line = 0;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    bool ok;
    if (line == 0)
      ok = g_str_has_prefix(p, "name: ") && all_of(p + 6, le, "_");
    else if (line == 1)
      ok = g_str_has_prefix(p, "ID: ") && all_of(p + 4, le, "");
    else if (line == 2)
      ok = le - p == 7 && memcmp(p, "format:", 7) == 0;
    else
      ok = le == p || field_line_ok(p, le);
    if (!ok)
      return false;
    line++;
    p = nl ? nl + 1 : end;
  }
  return line >= 3;
}

int rsp_tep_parse_format(struct tep_handle *tep, const char *text, size_t len, const char *sys)
{
  /* libtraceevent's parser crashes on malformed format text (found by fuzzing): it only ever
   * sees text of the kernel's own grammar, and never a print format, which rsp does not use. */
  const char *pf = g_strstr_len(text, (gssize)len, "\nprint fmt:");
  size_t keep = pf ? (size_t)(pf - text) + 1 : len;
  if (!format_ok(text, keep ? keep - (pf ? 1 : 0) : 0) || !all_of(sys, sys + strlen(sys), "_-"))
    return -1;
  char *copy = g_malloc(keep + 16);
  memcpy(copy, text, keep);
  memcpy(copy + keep, "print fmt: \"\"\n", 15);
  copy[keep + 15] = 0;
  int ret = tep_parse_event(tep, copy, keep + 15, sys);
  g_free(copy);
  return ret;
}

#define BAD(what)                                                                              \
  do {                                                                                         \
    rsp_set_error(error, RSP_READER_ERROR_FORMAT, path, offset + (uint64_t)(b.p - b.base),     \
                  "tracing data: %s", what);                                                   \
    return false;                                                                              \
  } while (0)

bool rsp_parse_tracing_data(struct tep_handle *tep, const uint8_t *data, size_t size,
                            const char *path, uint64_t offset, char **kallsyms,
                            size_t *kallsyms_size, GError **error)
{
  blob b = {data, data + size, data, false};
  const uint8_t *x;
  uint32_t n4;
  uint64_t n8;

  *kallsyms = NULL;
  *kallsyms_size = 0;
  if (!rdbuf(&b, 10, &x) || memcmp(x, "\027\010\104tracing", 10) != 0)
    BAD("bad magic");
  const char *version = rdstr(&b);
  if (!version)
    BAD("no version string");
  if (!rdbuf(&b, 2, &x))
    BAD("truncated endianness/long size");
  bool file_big = x[0] != 0;
  int long_size = x[1];
  b.swap = file_big != (G_BYTE_ORDER == G_BIG_ENDIAN);
  if (long_size != 4 && long_size != 8)
    BAD("long size is neither 4 nor 8");
  if (!rd4(&b, &n4))
    BAD("truncated page size");
  tep_set_file_bigendian(tep, file_big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_local_bigendian(tep, G_BYTE_ORDER == G_BIG_ENDIAN ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_long_size(tep, long_size);
  tep_set_page_size(tep, (int)n4);

  if (!rdbuf(&b, 12, &x) || memcmp(x, "header_page", 12) != 0)
    BAD("no header_page");
  if (!rd8(&b, &n8) || !rdbuf(&b, n8, &x))
    BAD("truncated header_page");
  {
    char *hp = g_malloc(n8 + 1);
    memcpy(hp, x, n8);
    hp[n8] = 0;
    if (tep_parse_header_page(tep, hp, (unsigned long)n8, long_size) == 0) {
      /* the commit field is a kernel long: trust it over the declared size, as perf does */
      int hps = tep_get_header_page_size(tep);
      if (hps == 4 || hps == 8)
        tep_set_long_size(tep, hps);
    }
    g_free(hp);
  }
  if (!rdbuf(&b, 13, &x) || memcmp(x, "header_event", 13) != 0)
    BAD("no header_event");
  if (!rd8(&b, &n8) || !rdbuf(&b, n8, &x))
    BAD("truncated header_event");

  /* ftrace's own events */
  if (!rd4(&b, &n4))
    BAD("truncated ftrace event count");
  for (uint32_t i = 0; i < n4; i++) {
    if (!rd8(&b, &n8) || !rdbuf(&b, n8, &x))
      BAD("truncated ftrace event format");
    rsp_tep_parse_format(tep, (const char *)x, (size_t)n8, "ftrace");
  }
  /* the recorded systems' events */
  uint32_t systems;
  if (!rd4(&b, &systems))
    BAD("truncated system count");
  for (uint32_t s = 0; s < systems; s++) {
    const char *sys = rdstr(&b);
    uint32_t count;
    if (!sys || !rd4(&b, &count))
      BAD("truncated system");
    for (uint32_t i = 0; i < count; i++) {
      if (!rd8(&b, &n8) || !rdbuf(&b, n8, &x))
        BAD("truncated event format");
      /* a format libtraceevent cannot parse leaves that event undecoded, not the file */
      rsp_tep_parse_format(tep, (const char *)x, (size_t)n8, sys);
    }
  }
  /* kallsyms (old perf wrote it, perf 6 writes size 0) */
  if (!rd4(&b, &n4) || !rdbuf(&b, n4, &x))
    BAD("truncated kallsyms");
  if (n4) {
    *kallsyms = g_malloc(n4 + 1);
    memcpy(*kallsyms, x, n4);
    (*kallsyms)[n4] = 0;
    *kallsyms_size = n4;
  }
  /* printk formats and saved cmdlines: skipped, not parsed. rsp prints no bprintk events and
   * takes task names from COMM records; and libtraceevent's parsers of these two read past the
   * end of malformed input (found by fuzzing), so they never see the file's bytes. */
  if (!rd4(&b, &n4) || !rdbuf(&b, n4, &x))
    BAD("truncated printk formats");
  if (g_ascii_strtod(version, NULL) >= 0.6 && b.p < b.end) {
    if (!rd8(&b, &n8) || !rdbuf(&b, n8, &x))
      BAD("truncated saved cmdlines");
  }
  return true;
}

void rsp_evsel_bind_tracepoint(rsp_evsel *evsel, struct tep_handle *tep, GStringChunk *strings)
{
  struct tep_event *e = tep_find_event(tep, (int)evsel->attr.config);
  if (!e)
    return;
  evsel->tp_system = g_string_chunk_insert_const(strings, e->system);
  evsel->tp_name = g_string_chunk_insert_const(strings, e->name);
  unsigned n = (unsigned)(e->format.nr_common + e->format.nr_fields);
  rsp_field *fields = g_new0(rsp_field, n ? n : 1);
  unsigned k = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (struct tep_format_field *f = pass ? e->format.fields : e->format.common_fields; f && k < n;
         f = f->next) {
      rsp_field *r = &fields[k++];
      r->name = g_string_chunk_insert_const(strings, f->name);
      r->offset = (uint32_t)f->offset;
      r->size = (uint32_t)f->size;
      r->elem_size = (uint32_t)f->elementsize;
      r->dynamic = (f->flags & TEP_FIELD_IS_DYNAMIC) != 0;
      r->relative = (f->flags & TEP_FIELD_IS_RELATIVE) != 0;
      r->common = pass == 0;
      /* libtraceevent calls u8 arrays strings too; an address in __u8 saddr[4] is not text */
      if ((f->flags & TEP_FIELD_IS_STRING) && strstr(f->type, "char"))
        r->kind = RSP_FIELD_STRING;
      else if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC))
        r->kind = RSP_FIELD_ARRAY;
      else if (f->flags & TEP_FIELD_IS_SIGNED)
        r->kind = RSP_FIELD_SIGNED;
      else
        r->kind = RSP_FIELD_UNSIGNED;
      if (r->kind != RSP_FIELD_STRING && r->kind != RSP_FIELD_ARRAY && r->size != 1 &&
          r->size != 2 && r->size != 4 && r->size != 8)
        r->kind = RSP_FIELD_ARRAY;
    }
  }
  evsel->fields = fields;
  evsel->n_fields = k;
}

const rsp_field *rsp_evsel_field(const rsp_evsel *evsel, const char *name)
{
  for (unsigned i = 0; i < evsel->n_fields; i++)
    if (strcmp(evsel->fields[i].name, name) == 0)
      return &evsel->fields[i];
  return NULL;
}

static bool field_span(const rsp_event *ev, const rsp_field *f, uint32_t *off, uint32_t *len)
{
  if (!ev->raw || (uint64_t)f->offset + f->size > ev->raw_size)
    return false;
  if (f->dynamic) {
    uint32_t loc;
    memcpy(&loc, ev->raw + f->offset, 4);
    *off = loc & 0xffff;
    *len = loc >> 16;
    if (f->relative)
      *off += f->offset + f->size;
    if ((uint64_t)*off + *len > ev->raw_size)
      return false;
  } else {
    *off = f->offset;
    *len = f->size;
  }
  return true;
}

const char *rsp_event_field_bytes(const rsp_event *ev, const rsp_field *f, size_t *len)
{
  uint32_t off, l;
  if (!f || !field_span(ev, f, &off, &l)) {
    *len = 0;
    return "";
  }
  const char *p = (const char *)ev->raw + off;
  if (f->kind == RSP_FIELD_STRING) {
    const char *z = memchr(p, 0, l);
    if (z)
      l = (uint32_t)(z - p);
  }
  *len = l;
  return p;
}
