/* Wait sites: the waits on the control paths grouped by where they waited (the label of the sleep's
 * stack), each site's time the union of its waits' intervals on the paths.
 *
 * A wait nested in a wait of the same site (make's wait4 under its parent make's wait4), or one
 * interval standing on several depths, is time the paths spent once: summing the elements would
 * count it once per level (222 s of wait4 in a 46 s make). Each instant of the union is told by
 * the deepest wait covering it (the one the outer waits waited on, as the categories hand time down
 * a pseudo-stack), then the earliest begun: the end cause of that piece of it (merged polls keep
 * each piece's own). Its categories are another matter: summed over its sleeps like the categories'
 * total (parallel paths each count), each sleep's own time split as categories.c splits a sleep
 * without children, so that they bound what the site's sleeps gave each category. */
#include "analysis/analysis.h"

#include <string.h>

typedef struct segment {
  uint64_t start, end;
  uint16_t depth;
  uint8_t end_cause;  /* rsp_sleep_end, preempted as RSP_SLEEP_END_PREEMPTED */
  uint8_t cat;        /* rsp_category */
  bool inferred;
} segment;

/* Whose waits at a site had the most of some time (its disk time, its timed-out time): each task's sum, the leader. */
typedef struct task_lead {
  GHashTable *by_task; /* task -> its waits' time there (NULL until some) */
  uint64_t ns;         /* the leader's */
} task_lead;

/* Adds NS of TASK's waits to L; *LEADER follows the task with the most (the lower id on a tie). */
static void lead_add(task_lead *l, rsp_task_id *leader, rsp_task_id task, uint64_t ns)
{
  if (!ns)
    return;
  if (!l->by_task)
    l->by_task = g_hash_table_new(g_direct_hash, g_direct_equal);
  gpointer key = GUINT_TO_POINTER(task);
  uint64_t of_task = GPOINTER_TO_SIZE(g_hash_table_lookup(l->by_task, key)) + ns;
  g_hash_table_insert(l->by_task, key, GSIZE_TO_POINTER(of_task));
  if (of_task > l->ns || (of_task == l->ns && task < *leader)) {
    *leader = task;
    l->ns = of_task;
  }
}

static void lead_clear(task_lead *l)
{
  if (l->by_task)
    g_hash_table_destroy(l->by_task);
}

typedef struct site {
  rsp_wait_site pub;
  GArray *segments;
  task_lead disk, timed_out, hardware; /* pub.disk_task's, pub.timed_out_task's, pub.hardware_task's */
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

typedef struct span {
  uint64_t start, end;
} span;

/* The union of the disk requests sleep element ID (E) waited on (its disk children), inside it. */
static uint64_t disk_children_ns(const rsp_paths *p, rsp_elem_id id, const rsp_path_elem *e)
{
  uint32_t n = 0;
  const rsp_elem_id *kids = rsp_paths_children(p, id, &n);
  uint64_t ns = 0, frontier = e->start; /* kids come in start order */
  for (uint32_t k = 0; k < n; k++) {
    const rsp_path_elem *c = rsp_paths_elem(p, kids[k]);
    if (c->kind != RSP_ELEM_DISK)
      continue;
    uint64_t a = MAX(c->start, frontier), b = MIN(c->end, e->end);
    if (b > a) {
      ns += b - a;
      frontier = b;
    }
  }
  return ns;
}

static int by_depth_desc_start(const void *a, const void *b)
{
  const segment *x = a, *y = b;
  if (x->depth != y->depth)
    return x->depth > y->depth ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

static void credit(site *w, const segment *s, uint64_t a, uint64_t b)
{
  if (b <= a)
    return;
  uint64_t ns = b - a;
  w->pub.total_ns += ns;
  w->pub.by_end[s->end_cause] += ns;
  if (s->inferred)
    w->pub.inferred_ns += ns;
}

/* Sorted disjoint spans A and B into one sorted disjoint list (touching spans joined). */
static GArray *merge_spans(GArray *a, GArray *b)
{
  GArray *out = g_array_sized_new(FALSE, FALSE, sizeof(span), a->len + b->len);
  guint i = 0, j = 0;
  while (i < a->len || j < b->len) {
    span x;
    if (j == b->len || (i < a->len && g_array_index(a, span, i).start <= g_array_index(b, span, j).start))
      x = g_array_index(a, span, i++);
    else
      x = g_array_index(b, span, j++);
    span *last = out->len ? &g_array_index(out, span, out->len - 1) : NULL;
    if (last && x.start <= last->end)
      last->end = MAX(last->end, x.end);
    else
      g_array_append_val(out, x);
  }
  g_array_free(a, TRUE);
  return out;
}

/* The union of W's segments. Each instant is told by the deepest segment covering it (as the
 * categories hand a sleep's time down to what it waited on), then by the earliest begun. Depth by
 * depth, deepest first, each level takes what the deeper ones left. */
static void sweep(site *w)
{
  GArray *segs = w->segments;
  g_array_sort(segs, by_depth_desc_start);
  GArray *covered = g_array_new(FALSE, FALSE, sizeof(span)); /* by deeper levels, sorted, disjoint */
  GArray *level = g_array_new(FALSE, FALSE, sizeof(span));
  for (guint i = 0; i < segs->len;) {
    uint16_t depth = g_array_index(segs, segment, i).depth;
    uint64_t frontier = 0; /* this level's own cover so far */
    guint c = 0;
    g_array_set_size(level, 0);
    for (; i < segs->len && g_array_index(segs, segment, i).depth == depth; i++) {
      const segment *s = &g_array_index(segs, segment, i);
      uint64_t t = MAX(s->start, frontier); /* never decreases: starts are sorted */
      while (c < covered->len && g_array_index(covered, span, c).end <= t)
        c++;
      for (guint k = c; t < s->end;) {
        const span *cv = k < covered->len ? &g_array_index(covered, span, k) : NULL;
        if (cv && cv->start <= t) {
          t = MAX(t, cv->end);
          k++;
          continue;
        }
        uint64_t y = cv ? MIN(cv->start, s->end) : s->end;
        credit(w, s, t, y);
        t = y;
      }
      frontier = MAX(frontier, s->end);
      span *last = level->len ? &g_array_index(level, span, level->len - 1) : NULL;
      if (last && s->start <= last->end)
        last->end = MAX(last->end, s->end);
      else
        g_array_append_val(level, ((span){ s->start, s->end }));
    }
    covered = merge_spans(covered, level); /* level is emptied for the next depth */
  }
  g_array_free(covered, TRUE);
  g_array_free(level, TRUE);
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
  lead_clear(&w->disk);
  lead_clear(&w->timed_out);
  lead_clear(&w->hardware);
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
    char buf[512];
    const char *text = rsp_model_wait_site(m, s->stack, true, buf, sizeof buf);
    const char *label = g_string_chunk_insert_const(ws->strings, text ? text : "[no stack]");
    site *w = g_hash_table_lookup(by_label, label);
    if (!w) {
      w = g_new0(site, 1);
      w->pub.label = label;
      const rsp_model_frame *f = rsp_model_stack_label(m, s->stack);
      w->pub.no_code = !f || f->kernel;
      w->pub.disk_task = w->pub.timed_out_task = w->pub.hardware_task = RSP_NO_ID;
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
    guint from = w->segments->len;
    element_segments(p, i, e, w->segments);
    uint64_t own_disk = 0, timed_out = 0, hardware = 0;
    for (guint k = from; k < w->segments->len; k++) { /* summed, as the categories' total is */
      const segment *sg = &g_array_index(w->segments, segment, k);
      w->pub.by_cat[sg->cat] += sg->end - sg->start;
      if (sg->cat == RSP_CAT_BLOCKING_IO || sg->cat == RSP_CAT_IO_QUEUE)
        own_disk += sg->end - sg->start;
      else if (sg->cat == RSP_CAT_TIMED_OUT)
        timed_out += sg->end - sg->start;
      else if (sg->cat == RSP_CAT_HARDWARE)
        hardware += sg->end - sg->start;
    }
    uint64_t disk = MAX(own_disk, disk_children_ns(p, i, e));
    w->pub.disk_ns += disk;
    lead_add(&w->disk, &w->pub.disk_task, e->task, disk);
    lead_add(&w->timed_out, &w->pub.timed_out_task, e->task, timed_out);
    lead_add(&w->hardware, &w->pub.hardware_task, e->task, hardware);
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
