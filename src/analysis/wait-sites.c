/* Wait sites: the waits on the control paths grouped by where they waited (the label of the sleep's
 * stack), each site's time the union of its waits' intervals on the paths.
 *
 * A wait nested in a wait of the same site (make's wait4 under its parent make's wait4), or one
 * interval standing on several depths, is time the paths spent once: summing the elements would
 * count it once per level (222 s of wait4 in a 46 s make). Each instant of the union is told by
 * the wait that covered it first (the outermost): the end cause of that piece of it (merged polls
 * keep each piece's own), and its own category as categories.c splits a sleep without children. */
#include "analysis/analysis.h"

#include <string.h>

typedef struct segment {
  uint64_t start, end;
  uint16_t depth;
  uint8_t end_cause;  /* rsp_sleep_end, preempted as RSP_SLEEP_END_PREEMPTED */
  uint8_t cat;        /* rsp_category */
  bool inferred;
} segment;

typedef struct site {
  rsp_wait_site pub;
  GArray *segments;
} site;

struct rsp_wait_sites {
  GStringChunk *strings;
  GPtrArray *sites; /* site *, longest first */
};

static void seg(GArray *a, uint64_t start, uint64_t end, uint16_t depth, unsigned cause, rsp_category cat,
                bool inferred)
{
  if (end <= start)
    return;
  segment s = { start, end, depth, (uint8_t)(cause < RSP_N_SLEEP_ENDS ? cause : 0), (uint8_t)cat, inferred };
  g_array_append_val(a, s);
}

static unsigned end_of(const rsp_sleep *s)
{
  return s->preempted ? RSP_SLEEP_END_PREEMPTED : s->end_cause;
}

/* The pieces of sleep element ID (E) as segments of SEGS: each merged sleep before it could run by
 * its own cause and category, then scheduler overhead; the runs folded between them as running
 * time, told by the cause of the poll before them. */
static void element_segments(const rsp_paths *p, rsp_elem_id id, const rsp_path_elem *e, GArray *segs)
{
  const rsp_model *m = rsp_paths_model(p);
  uint64_t t = e->start;
  unsigned prev_cause = RSP_SLEEP_END_UNKNOWN;
  bool prev_inferred = false;
  for (uint32_t i = 0; i < e->n_merged && t < e->end; i++) {
    rsp_sleep_id sid = rsp_paths_elem_sleep(p, id, i);
    if (sid == RSP_NO_ID)
      break;
    const rsp_sleep *s = rsp_model_sleep(m, sid);
    bool last = i + 1 == e->n_merged;
    uint64_t s0 = CLAMP(s->start, t, e->end), s1 = last ? e->end : CLAMP(s->end, t, e->end);
    while (t < s0) { /* folded runs */
      rsp_run_id r = rsp_model_run_at(m, e->task, t);
      uint64_t y = r == RSP_NO_ID ? s0 : MIN(rsp_model_run(m, r)->end, s0);
      rsp_category cat = r == RSP_NO_ID ? RSP_CAT_UNACCOUNTED
                         : rsp_model_run(m, r)->n_samples ? RSP_CAT_UNDERSTOOD : RSP_CAT_UNSAMPLED;
      seg(segs, t, y, e->depth, prev_cause, cat, prev_inferred);
      t = y;
    }
    rsp_category own = rsp_category_of_sleep(m, sid);
    uint64_t ready = own == RSP_CAT_INVOLUNTARY || !s->wake_time ? s1 : CLAMP(s->wake_time, s0, s1);
    prev_cause = end_of(s);
    prev_inferred = s->end_inferred;
    seg(segs, s0, ready, e->depth, prev_cause, own, prev_inferred);
    seg(segs, ready, s1, e->depth, prev_cause, RSP_CAT_SCHEDULER, prev_inferred);
    t = MAX(t, s1);
  }
}

static int by_start_depth(const void *a, const void *b)
{
  const segment *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->depth != y->depth)
    return x->depth < y->depth ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

/* The union of W's segments, each instant told by the first segment (by start, then depth) to
 * cover it. */
static void sweep(site *w)
{
  g_array_sort(w->segments, by_start_depth);
  uint64_t frontier = 0;
  for (guint i = 0; i < w->segments->len; i++) {
    const segment *s = &g_array_index(w->segments, segment, i);
    uint64_t a = MAX(s->start, frontier);
    if (s->end <= a)
      continue;
    uint64_t ns = s->end - a;
    w->pub.total_ns += ns;
    w->pub.by_end[s->end_cause] += ns;
    w->pub.by_cat[s->cat] += ns;
    if (s->inferred)
      w->pub.inferred_ns += ns;
    frontier = s->end;
  }
  g_array_free(w->segments, TRUE);
  w->segments = NULL;
}

static int by_total(const void *a, const void *b)
{
  const site *x = *(site *const *)a, *y = *(site *const *)b;
  if (x->pub.total_ns != y->pub.total_ns)
    return x->pub.total_ns < y->pub.total_ns ? 1 : -1;
  return strcmp(x->pub.label, y->pub.label);
}

static void site_free(gpointer data)
{
  site *w = data;
  if (w->segments)
    g_array_free(w->segments, TRUE);
  g_free(w);
}

rsp_wait_sites *rsp_wait_sites_compute(const rsp_paths *p)
{
  const rsp_model *m = rsp_paths_model(p);
  rsp_wait_sites *ws = g_new0(rsp_wait_sites, 1);
  ws->strings = g_string_chunk_new(4096);
  ws->sites = g_ptr_array_new_with_free_func(site_free);
  GHashTable *by_label = g_hash_table_new(g_str_hash, g_str_equal);
  uint32_t n_sleeps = rsp_model_n_sleeps(m);
  bool *counted = g_new0(bool, n_sleeps ? n_sleeps : 1);
  for (rsp_elem_id i = 0; i < rsp_paths_n_elems(p); i++) {
    const rsp_path_elem *e = rsp_paths_elem(p, i);
    if (e->kind != RSP_ELEM_SLEEP)
      continue;
    const rsp_sleep *s = rsp_model_sleep(m, e->id);
    const rsp_model_frame *f = s->stack != RSP_NO_ID ? rsp_model_stack_label(m, s->stack) : NULL;
    char buf[512];
    if (f)
      g_snprintf(buf, sizeof buf, "%s (%s)", f->function, f->dso);
    const char *label = g_string_chunk_insert_const(ws->strings, f ? buf : "[no stack]");
    site *w = g_hash_table_lookup(by_label, label);
    if (!w) {
      w = g_new0(site, 1);
      w->pub.label = label;
      w->segments = g_array_new(FALSE, FALSE, sizeof(segment));
      g_hash_table_insert(by_label, (gpointer)label, w);
      g_ptr_array_add(ws->sites, w);
    }
    for (uint32_t k = 0; k < e->n_merged; k++) { /* each sleep once, on however many elements */
      rsp_sleep_id sid = rsp_paths_elem_sleep(p, i, k);
      if (sid != RSP_NO_ID && !counted[sid]) {
        counted[sid] = true;
        w->pub.count++;
      }
    }
    element_segments(p, i, e, w->segments);
  }
  for (guint i = 0; i < ws->sites->len; i++)
    sweep(g_ptr_array_index(ws->sites, i));
  g_ptr_array_sort(ws->sites, by_total);
  g_free(counted);
  g_hash_table_destroy(by_label);
  return ws;
}

void rsp_wait_sites_free(rsp_wait_sites *ws)
{
  if (!ws)
    return;
  g_ptr_array_free(ws->sites, TRUE);
  g_string_chunk_free(ws->strings);
  g_free(ws);
}

uint32_t rsp_wait_sites_n(const rsp_wait_sites *ws) { return ws->sites->len; }

const rsp_wait_site *rsp_wait_sites_get(const rsp_wait_sites *ws, uint32_t i)
{
  return i < ws->sites->len ? &((const site *)g_ptr_array_index(ws->sites, i))->pub : NULL;
}
