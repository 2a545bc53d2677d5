/* Event names for attrs the file does not name (no EVENT_DESC, no EVENT_UPDATE): old pipe-mode
 * streams and every simpleperf file. Two sources, as perf has them: the HEADER_EVENT_TYPE records
 * (and the event_types section of old file-mode headers) that perf up to 3.x wrote, and perf's
 * own generic names built from the attr (tools/perf/util/evsel.c, evsel__name() of perf 6.1:
 * "cycles:HG", "cpu-clock", "L1-dcache-load-misses", "raw 0x1234", "mem:0x1000:rw"). */
#include "reader/reader-private.h"

#include <string.h>

static const char *const hw_names[] = {
  "cycles", "instructions", "cache-references", "cache-misses", "branches", "branch-misses",
  "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles",
};

static const char *const sw_names[] = {
  "cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations", "minor-faults",
  "major-faults", "alignment-faults", "emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

static const char *const cache_names[] = {"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch",
                                          "node"};
/* [op][0] with a result, [op][1] without (perf's alias tables, first two columns) */
static const char *const cache_ops[][2] = {{"load", "loads"}, {"store", "stores"},
                                           {"prefetch", "prefetches"}};
static const char *const cache_results[] = {"refs", "misses"};
/* the ops each cache type has (perf's evsel__hw_cache_stat): bit 0 read, 1 write, 2 prefetch */
static const unsigned cache_valid_ops[] = {7, 5, 7, 7, 1, 1, 7};

/* perf 6.1's evsel__add_modifiers: ":u", ":k", ":ppp", ":HG"... */
static void add_modifiers(GString *s, const struct perf_event_attr *a)
{
  size_t colon = 0;
  bool exclude_guest_default = false;
#define MOD(flag, c)                                                                           \
  do {                                                                                         \
    if (!(flag)) {                                                                             \
      if (!colon) {                                                                            \
        g_string_append_c(s, ':');                                                             \
        colon = s->len;                                                                        \
      }                                                                                        \
      g_string_append_c(s, c);                                                                 \
    }                                                                                          \
  } while (0)
  if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
    MOD(a->exclude_kernel, 'k');
    MOD(a->exclude_user, 'u');
    MOD(a->exclude_hv, 'h');
    exclude_guest_default = true;
  }
  if (a->precise_ip) {
    if (!colon) {
      g_string_append_c(s, ':');
      colon = s->len;
    }
    g_string_append_len(s, "ppp", MIN(a->precise_ip, 3u));
    exclude_guest_default = true;
  }
  if (a->exclude_host || (bool)a->exclude_guest == exclude_guest_default) {
    MOD(a->exclude_host, 'H');
    MOD(a->exclude_guest, 'G');
  }
#undef MOD
}

static void cache_name(GString *s, uint64_t config)
{
  unsigned type = config & 0xff, op = (config >> 8) & 0xff, result = (config >> 16) & 0xff;
  if (type >= G_N_ELEMENTS(cache_names))
    g_string_append(s, "unknown-ext-hardware-cache-type");
  else if (op >= G_N_ELEMENTS(cache_ops))
    g_string_append(s, "unknown-ext-hardware-cache-op");
  else if (result >= G_N_ELEMENTS(cache_results))
    g_string_append(s, "unknown-ext-hardware-cache-result");
  else if (!(cache_valid_ops[type] & (1u << op)))
    g_string_append(s, "invalid-cache");
  else if (result)
    g_string_append_printf(s, "%s-%s-%s", cache_names[type], cache_ops[op][0], cache_results[result]);
  else
    g_string_append_printf(s, "%s-%s", cache_names[type], cache_ops[op][1]);
}

char *rsp_evsel_generic_name(const struct perf_event_attr *a)
{
  GString *s = g_string_new(NULL);
  switch (a->type) {
  case PERF_TYPE_HARDWARE:
    g_string_append(s, a->config < G_N_ELEMENTS(hw_names) ? hw_names[a->config] : "unknown-hardware");
    add_modifiers(s, a);
    break;
  case PERF_TYPE_SOFTWARE:
    g_string_append(s, a->config < G_N_ELEMENTS(sw_names) ? sw_names[a->config] : "unknown-software");
    add_modifiers(s, a);
    break;
  case PERF_TYPE_HW_CACHE:
    cache_name(s, a->config);
    add_modifiers(s, a);
    break;
  case PERF_TYPE_RAW:
    g_string_append_printf(s, "raw 0x%" G_GINT64_MODIFIER "x", (guint64)a->config);
    add_modifiers(s, a);
    break;
  case PERF_TYPE_BREAKPOINT:
    g_string_append_printf(s, "mem:0x%" G_GINT64_MODIFIER "x:%s%s%s", (guint64)a->bp_addr,
                           (a->bp_type & 1) ? "r" : "", (a->bp_type & 2) ? "w" : "",
                           (a->bp_type & 4) ? "x" : "");
    add_modifiers(s, a);
    break;
  case PERF_TYPE_TRACEPOINT: /* no tracing data to name it: its id */
    g_string_append_printf(s, "tracepoint:%" G_GUINT64_FORMAT, (guint64)a->config);
    break;
  default:
    g_string_append_printf(s, "unknown attr type: %u", a->type);
    break;
  }
  return g_string_free(s, FALSE);
}

void rsp_reader_add_event_type(rsp_reader *r, uint32_t type, uint64_t id, const uint8_t *name,
                               size_t len)
{
  const uint8_t *nul = memchr(name, 0, len);
  size_t n = nul ? (size_t)(nul - name) : len;
  if (n == 0 || r->event_types->len >= 4096)
    return;
  rsp_event_type t = {id, type, NULL};
  char *copy = g_strndup((const char *)name, n);
  t.name = g_string_chunk_insert_const(r->strings, copy);
  g_free(copy);
  g_array_append_val(r->event_types, t);
  r->evsels_dirty = true;
}

const char *rsp_reader_event_type_name(const rsp_reader *r, const rsp_evsel *e)
{
  /* event_id is the attr's config, which does not say the type: one answer only when exactly one
   * entry and exactly one attr have it */
  const char *found = NULL;
  bool numbered = e->attr.type == PERF_TYPE_TRACEPOINT || e->attr.type == PERF_TYPE_RAW ||
                  e->attr.type > PERF_TYPE_BREAKPOINT;
  for (guint i = 0; numbered && i < r->event_types->len; i++) {
    const rsp_event_type *t = &g_array_index(r->event_types, rsp_event_type, i);
    if (t->type == e->attr.type && t->id == e->attr.config)
      return t->name;
  }
  for (guint i = 0; i < r->event_types->len; i++) {
    const rsp_event_type *t = &g_array_index(r->event_types, rsp_event_type, i);
    if (t->id != e->attr.config || t->type != UINT32_MAX)
      continue;
    if (found)
      return NULL;
    found = t->name;
  }
  if (!found)
    return NULL;
  for (guint i = 0; i < r->evsels->len; i++) {
    const rsp_evsel *o = g_ptr_array_index(r->evsels, i);
    if (o != e && o->attr.config == e->attr.config)
      return NULL;
  }
  return found;
}
