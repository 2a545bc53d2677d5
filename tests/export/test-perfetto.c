/* rsp_export_perfetto on fabricated event streams (the model tests' trace builder), its output read back
 * with a small protobuf reader here and replayed as trace_processor does (by time, then by place in the
 * file; per track, slices nested; a flow's start before its end):
 *   - a wakeup: A wakes B; one flow, from an instant on A's track at the waking to B's Running slice,
 *     the sleep named by its state and wait site, then Runnable from the wakeup to the switch-in;
 *   - a wakeup relay 1,500 tasks deep: its critical path is written down to trace_processor's 512 levels
 *     (deeper slices it would drop), every track balanced. */
#include "../model/checks.h"

#include "analysis/analysis.h"
#include "export/export.h"

#include <stdlib.h>

int failures;

enum { IDLE = 0, A = 100, B = 200 };

static void sw(tb *t, uint64_t us, int32_t cpu, int32_t prev, const char *state, int32_t next)
{
  tb_sched_switch(t, us * US, cpu, prev, state, next);
}

/* ---- Reading protobuf ----------------------------------------------------------------------------------- */
typedef struct pbr {
  const uint8_t *p, *end;
} pbr;

static bool rd_varint(pbr *r, uint64_t *v)
{
  *v = 0;
  for (unsigned shift = 0; r->p < r->end && shift < 64; shift += 7) {
    uint8_t b = *r->p++;
    *v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80))
      return true;
  }
  return false;
}

/* The next field of R: its number, its varint or fixed64 value, or its bytes (SUB). */
static bool rd_field(pbr *r, uint32_t *field, uint64_t *v, pbr *sub)
{
  uint64_t tag;
  if (r->p >= r->end || !rd_varint(r, &tag))
    return false;
  *field = (uint32_t)(tag >> 3);
  switch (tag & 7) {
  case 0:
    return rd_varint(r, v);
  case 1:
    if (r->end - r->p < 8)
      return false;
    *v = 0;
    for (unsigned i = 0; i < 8; i++)
      *v |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
    return true;
  case 2:
    if (!rd_varint(r, v) || (uint64_t)(r->end - r->p) < *v)
      return false;
    sub->p = r->p;
    sub->end = r->p + *v;
    r->p += *v;
    return true;
  default:
    return false;
  }
}

typedef struct event {
  uint64_t ts, track;
  uint32_t index, type;
  char name[64];
  uint64_t flow, terminating; /* the first of each, 0: none */
} event;

typedef struct trace {
  GArray *events;       /* event */
  GHashTable *names;    /* named track uuid -> its name (g_strdup) */
  GHashTable *threads;  /* thread track uuid -> tid */
  bool malformed;
} trace;

static void copy_str(char *dst, size_t size, const pbr *s)
{
  size_t n = MIN((size_t)(s->end - s->p), size - 1);
  memcpy(dst, s->p, n);
  dst[n] = 0;
}

static void read_descriptor(trace *tr, pbr d)
{
  uint32_t f;
  uint64_t v, uuid = 0, tid = 0;
  pbr s;
  char name[128] = "";
  bool thread = false;
  while (rd_field(&d, &f, &v, &s)) {
    if (f == 1)
      uuid = v;
    else if (f == 2)
      copy_str(name, sizeof name, &s);
    else if (f == 4) {
      thread = true;
      uint32_t g;
      pbr t;
      while (rd_field(&s, &g, &v, &t))
        if (g == 2)
          tid = v;
    }
  }
  if (thread)
    g_hash_table_insert(tr->threads, g_memdup2(&uuid, sizeof uuid), GSIZE_TO_POINTER(tid));
  else if (*name)
    g_hash_table_insert(tr->names, g_memdup2(&uuid, sizeof uuid), g_strdup(name));
}

static trace read_trace(const uint8_t *data, size_t size)
{
  trace tr = {
    g_array_new(FALSE, TRUE, sizeof(event)),
    g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free),
    g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL),
    false,
  };
  pbr r = { data, data + size }, pkt;
  uint32_t f, index = 0;
  uint64_t v;
  while (r.p < r.end) {
    if (!rd_field(&r, &f, &v, &pkt) || f != 1) {
      tr.malformed = true;
      break;
    }
    event e = { .index = index++ };
    bool is_event = false;
    pbr s;
    while (rd_field(&pkt, &f, &v, &s)) {
      if (f == 8)
        e.ts = v;
      else if (f == 60)
        read_descriptor(&tr, s);
      else if (f == 11) {
        is_event = true;
        uint32_t g;
        pbr t;
        while (rd_field(&s, &g, &v, &t)) {
          if (g == 9)
            e.type = (uint32_t)v;
          else if (g == 11)
            e.track = v;
          else if (g == 23)
            copy_str(e.name, sizeof e.name, &t);
          else if (g == 47 && !e.flow)
            e.flow = v;
          else if (g == 48 && !e.terminating)
            e.terminating = v;
        }
      }
    }
    if (pkt.p != pkt.end)
      tr.malformed = true;
    if (is_event)
      g_array_append_val(tr.events, e);
  }
  return tr;
}

static void trace_free(trace *tr)
{
  g_array_free(tr->events, TRUE);
  g_hash_table_destroy(tr->names);
  g_hash_table_destroy(tr->threads);
}

static int cmp_event(const void *a, const void *b)
{
  const event *x = a, *y = b;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Replays TR's events in trace_processor's order: the deepest nesting of any track whose name starts with
 * PREFIX (NULL: any), whether every track balances. */
static uint32_t replay(trace *tr, const char *prefix, bool *balanced)
{
  g_array_sort(tr->events, cmp_event);
  GHashTable *depth = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  uint32_t deepest = 0;
  *balanced = true;
  for (guint i = 0; i < tr->events->len; i++) {
    const event *e = &g_array_index(tr->events, event, i);
    gsize d = GPOINTER_TO_SIZE(g_hash_table_lookup(depth, &e->track));
    if (e->type == 1)
      d++;
    else if (e->type == 2) {
      if (!d)
        *balanced = false;
      else
        d--;
    }
    const char *name = g_hash_table_lookup(tr->names, &e->track);
    if ((!prefix || (name && g_str_has_prefix(name, prefix))) && d > deepest)
      deepest = (uint32_t)d;
    g_hash_table_insert(depth, g_memdup2(&e->track, sizeof e->track), GSIZE_TO_POINTER(d));
  }
  GHashTableIter it;
  gpointer k, d;
  g_hash_table_iter_init(&it, depth);
  while (g_hash_table_iter_next(&it, &k, &d))
    if (d)
      *balanced = false;
  g_hash_table_destroy(depth);
  return deepest;
}

static trace export(const rsp_model *m, const rsp_paths *p)
{
  char *buf = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&buf, &size);
  GError *error = NULL;
  CHECK(rsp_export_perfetto(m, p, NULL, out, &error));
  CHECK(error == NULL);
  g_clear_error(&error);
  fclose(out);
  trace tr = read_trace((const uint8_t *)buf, size);
  CHECK(!tr.malformed);
  free(buf);
  return tr;
}

/* A wakes B at 30 us on cpu 0; B, asleep in read since 10 us, runs on cpu 1 at 35 us. */
static void test_wakeup(void)
{
  tb *t = tb_new(false);
  sw(t, 1, 1, IDLE, "R", B);
  tb_next_stack(t, "schedule,pipe_read|read");
  sw(t, 10, 1, B, "S", IDLE);
  sw(t, 20, 0, IDLE, "R", A);
  tb_waking(t, 30 * US, 0, A, B, 1);
  sw(t, 35, 1, IDLE, "R", B);
  sw(t, 40, 0, A, "S", IDLE);
  sw(t, 50, 1, B, "S", IDLE);
  rsp_model *m = tb_finish(t);
  trace tr = export(m, NULL);
  bool balanced;
  replay(&tr, NULL, &balanced);
  CHECK(balanced);
  const event *source = NULL, *end = NULL;
  bool sleep_named = false, runnable = false;
  for (guint i = 0; i < tr.events->len; i++) {
    const event *e = &g_array_index(tr.events, event, i);
    uint64_t tid = GPOINTER_TO_SIZE(g_hash_table_lookup(tr.threads, &e->track));
    if (e->flow)
      source = e;
    if (e->terminating)
      end = e;
    if (tid == B && e->type == 1 && strcmp(e->name, "S read") == 0)
      sleep_named = e->ts == 10 * US;
    if (tid == B && e->type == 1 && strcmp(e->name, "Runnable") == 0)
      runnable = e->ts == 30 * US;
  }
  CHECK(sleep_named);
  CHECK(runnable);
  CHECK(source && end);
  if (source && end) {
    CHECK_EQ(source->flow, end->terminating);
    CHECK_EQ(source->type, 3);
    CHECK_EQ(source->ts, 30 * US);
    CHECK_STR(source->name, "wakeup");
    CHECK_EQ(GPOINTER_TO_SIZE(g_hash_table_lookup(tr.threads, &source->track)), A);
    CHECK_EQ(GPOINTER_TO_SIZE(g_hash_table_lookup(tr.threads, &end->track)), B);
    CHECK_STR(end->name, "Running");
    CHECK_EQ(end->ts, 35 * US);
  }
  trace_free(&tr);
  rsp_model_free(m);
}

/* test-paths.c's relay, shorter: task BASE wakes BASE + 1, which wakes BASE + 2 ...; the last is the process
 * of interest, its sleep nests the whole relay. */
static void test_deep_relay(void)
{
  enum { N = 1500, BASE = 1000 };
  const uint64_t t0 = 200000;
  tb *t = tb_new(false);
  for (int32_t k = 1; k < N; k++) {
    sw(t, 2 * (uint64_t)k, 1, IDLE, "R", BASE + k);
    tb_next_stack(t, "schedule,pipe_read|read");
    sw(t, 2 * (uint64_t)k + 1, 1, BASE + k, "S", IDLE);
  }
  sw(t, t0, 0, IDLE, "R", BASE);
  for (int32_t k = 1; k < N; k++) {
    tb_waking(t, (t0 + 2 * (uint64_t)k) * US, 0, BASE + k - 1, BASE + k, 0);
    tb_next_stack(t, "schedule,pipe_read|read");
    sw(t, t0 + 2 * (uint64_t)k + 1, 0, BASE + k - 1, "S", BASE + k);
  }
  const uint64_t end = t0 + 2 * (uint64_t)N + 100;
  sw(t, end, 0, BASE + N - 1, "S", IDLE);
  rsp_model *m = tb_finish(t);
  GError *error = NULL;
  rsp_paths *p = rsp_paths_build(m, BASE + N - 1, NULL, &error);
  CHECK(p != NULL);
  if (p) {
    uint32_t deepest = 0;
    for (rsp_elem_id i = 0; i < rsp_paths_n_elems(p); i++)
      deepest = MAX(deepest, rsp_paths_elem(p, i)->depth);
    CHECK(deepest > 512);
    trace tr = export(m, p);
    bool balanced;
    CHECK_EQ(replay(&tr, "path ", &balanced), 512);
    CHECK(balanced);
    trace_free(&tr);
    rsp_paths_free(p);
  }
  g_clear_error(&error);
  rsp_model_free(m);
}

int main(void)
{
  test_wakeup();
  test_deep_relay();
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  return failures ? 1 : 0;
}
