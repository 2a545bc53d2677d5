/* Feature sections (file mode) and HEADER_FEATURE records (pipe mode): the same payloads. */
#include "reader/reader-private.h"

#include <string.h>
#include <traceevent/event-parse.h>

typedef struct fcur {
  const uint8_t *p, *end, *base;
} fcur;

static bool f4(fcur *c, uint32_t *v)
{
  if ((size_t)(c->end - c->p) < 4)
    return false;
  memcpy(v, c->p, 4);
  c->p += 4;
  return true;
}

static bool f8(fcur *c, uint64_t *v)
{
  if ((size_t)(c->end - c->p) < 8)
    return false;
  memcpy(v, c->p, 8);
  c->p += 8;
  return true;
}

/* perf's do_write_string: u32 len (padded), then len bytes holding a NUL-terminated string. */
static const char *fstr(fcur *c, GStringChunk *strings)
{
  uint32_t len;
  if (!f4(c, &len) || len > (size_t)(c->end - c->p))
    return NULL;
  const char *s = (const char *)c->p;
  c->p += len;
  char *copy = g_strndup(s, len);
  const char *r = g_string_chunk_insert_const(strings, copy);
  g_free(copy);
  return r;
}

#define BAD(what)                                                                              \
  do {                                                                                         \
    rsp_set_error(error, RSP_READER_ERROR_FORMAT, r->path, offset + (uint64_t)(c.p - c.base),  \
                  "feature section %u: %s", feat, what);                                       \
    return false;                                                                              \
  } while (0)

bool rsp_feature_required(unsigned feat)
{
  return feat == RSP_FEAT_TRACING_DATA;
}

bool rsp_parse_feature(rsp_reader *r, unsigned feat, const uint8_t *data, size_t size,
                       uint64_t offset, GError **error)
{
  fcur c = {data, data + size, data};
  rsp_header_info *info = &r->info;
  uint32_t n4, m4;
  uint64_t n8;

  if (feat < 256)
    info->features[feat / 64] |= 1ull << (feat % 64);

  switch (feat) {
  case RSP_FEAT_TRACING_DATA: {
    g_free(r->tracing_kallsyms);
    r->tracing_kallsyms = NULL;
    if (!rsp_parse_tracing_data(r->tep, data, size, r->path, offset, &r->tracing_kallsyms,
                                &r->tracing_kallsyms_size, error))
      return false;
    r->have_tracing_data = true;
    info->has_tracing_data = true;
    info->tracing_kallsyms = r->tracing_kallsyms;
    info->tracing_kallsyms_size = r->tracing_kallsyms_size;
    return true;
  }
  case RSP_FEAT_HOSTNAME:
    if (!(info->hostname = fstr(&c, r->strings)))
      BAD("truncated hostname");
    return true;
  case RSP_FEAT_OSRELEASE:
    if (!(info->osrelease = fstr(&c, r->strings)))
      BAD("truncated osrelease");
    return true;
  case RSP_FEAT_VERSION:
    if (!(info->perf_version = fstr(&c, r->strings)))
      BAD("truncated version");
    return true;
  case RSP_FEAT_ARCH:
    if (!(info->arch = fstr(&c, r->strings)))
      BAD("truncated arch");
    return true;
  case RSP_FEAT_CPUDESC:
    if (!(info->cpudesc = fstr(&c, r->strings)))
      BAD("truncated cpudesc");
    return true;
  case RSP_FEAT_CPUID:
    if (!(info->cpuid = fstr(&c, r->strings)))
      BAD("truncated cpuid");
    return true;
  case RSP_FEAT_NRCPUS:
    if (!f4(&c, &info->nr_cpus_avail) || !f4(&c, &info->nr_cpus_online))
      BAD("truncated nrcpus");
    return true;
  case RSP_FEAT_TOTAL_MEM:
    if (!f8(&c, &info->total_mem_kb))
      BAD("truncated total_mem");
    return true;
  case RSP_FEAT_CMDLINE: {
    if (!f4(&c, &n4) || n4 > size / 4)
      BAD("bad cmdline count");
    g_strfreev(info->cmdline);
    info->cmdline = g_new0(char *, n4 + 1);
    for (uint32_t i = 0; i < n4; i++) {
      const char *s = fstr(&c, r->strings);
      if (!s)
        BAD("truncated cmdline");
      info->cmdline[i] = g_strdup(s);
    }
    return true;
  }
  case RSP_FEAT_EVENT_DESC: {
    if (!f4(&c, &n4) || !f4(&c, &m4))
      BAD("truncated event_desc header");
    if (m4 < PERF_ATTR_SIZE_VER0 || m4 > 4096 || (uint64_t)n4 * m4 > size)
      BAD("bad event_desc sizes");
    for (uint32_t i = 0; i < n4; i++) {
      rsp_event_desc *d = g_new0(rsp_event_desc, 1);
      g_ptr_array_add(r->event_descs, d);
      if ((size_t)(c.end - c.p) < m4)
        BAD("truncated event_desc attr");
      memcpy(&d->attr, c.p, MIN(m4, sizeof d->attr));
      c.p += m4;
      uint32_t nr;
      if (!f4(&c, &nr))
        BAD("truncated event_desc ids count");
      const char *name = fstr(&c, r->strings);
      if (!name)
        BAD("truncated event_desc name");
      d->name = g_strdup(name);
      if ((uint64_t)nr * 8 > (uint64_t)(c.end - c.p))
        BAD("truncated event_desc ids");
      d->ids = g_new(uint64_t, nr ? nr : 1);
      memcpy(d->ids, c.p, (size_t)nr * 8);
      d->n_ids = nr;
      c.p += (size_t)nr * 8;
    }
    return true;
  }
  case RSP_FEAT_BUILD_ID: {
    while ((size_t)(c.end - c.p) >= sizeof(struct perf_event_header)) {
      struct perf_event_header h;
      memcpy(&h, c.p, sizeof h);
      if (h.size < sizeof h + 4 + 24 || h.size > (size_t)(c.end - c.p))
        BAD("bad build_id record size");
      rsp_build_id bid = {0};
      memcpy(&bid.pid, c.p + 8, 4);
      memcpy(bid.id, c.p + 12, 20);
      /* PERF_RECORD_MISC_BUILD_ID_SIZE: byte 20 of the 24 holds the size */
      bid.size = (h.misc & (1 << 15)) ? MIN(c.p[32], 20) : 20;
      const uint8_t *name = c.p + 12 + 24;
      size_t nlen = h.size - (size_t)(name - c.p);
      char *fn = g_strndup((const char *)name, nlen);
      bid.filename = g_string_chunk_insert_const(r->strings, fn);
      g_free(fn);
      g_array_append_val(r->build_ids, bid);
      c.p += h.size;
    }
    info->build_ids = (const rsp_build_id *)r->build_ids->data;
    info->n_build_ids = r->build_ids->len;
    return true;
  }
  case RSP_FEAT_SAMPLE_TIME:
    if (!f8(&c, &info->sample_time_first) || !f8(&c, &info->sample_time_last))
      BAD("truncated sample_time");
    return true;
  case RSP_FEAT_CLOCKID:
    if (!f8(&c, &info->clockid_res_ns))
      BAD("truncated clockid");
    info->has_clockid = true;
    return true;
  case RSP_FEAT_CLOCK_DATA:
    if (!f4(&c, &n4) || !f4(&c, &info->clock_data_clockid) || !f8(&c, &info->clock_data_tod_ns) ||
        !f8(&c, &info->clock_data_clockid_ns))
      BAD("truncated clock_data");
    info->has_clock_data = true;
    return true;
  case RSP_FEAT_COMPRESSED:
    if (!f4(&c, &n4) || !f4(&c, &info->comp_type) || !f4(&c, &info->comp_level) ||
        !f4(&c, &info->comp_ratio) || !f4(&c, &info->comp_mmap_len))
      BAD("truncated compressed");
    info->compressed = true;
    (void)n8;
    return true;
  case RSP_FEAT_SIMPLEPERF_META_INFO: {
    /* NUL-separated key, value pairs; event_type_info holds "name,type,config" lines */
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
      const char *k = p, *ke = memchr(k, 0, (size_t)(end - k));
      if (!ke || ke + 1 >= end)
        break;
      const char *v = ke + 1, *ve = memchr(v, 0, (size_t)(end - v));
      if (!ve)
        break;
      if (strcmp(k, "event_type_info") == 0) {
        char **lines = g_strsplit(v, "\n", 0);
        for (char **l = lines; *l; l++) {
          char **f = g_strsplit(*l, ",", 0);
          if (g_strv_length(f) == 3 && f[0][0])
            rsp_reader_add_event_type(r, (uint32_t)g_ascii_strtoull(f[1], NULL, 10),
                                      g_ascii_strtoull(f[2], NULL, 10), (const uint8_t *)f[0],
                                      strlen(f[0]));
          g_strfreev(f);
        }
        g_strfreev(lines);
      }
      p = ve + 1;
    }
    return true;
  }
  default:
    return true; /* topology, caches, pmu mappings...: not needed, present bit kept */
  }
}
