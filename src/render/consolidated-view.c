/* The Consolidated Flame View (paper, "Consolidated Flame View"): all matching pseudo-stacks of the
 * control paths gathered together and sorted by duration, level by level. Each layer is drawn as
 * its stack, as in the flame view: its process (grey), then the functions of its runs' samples and
 * of its sleeps' wait stacks; what a sleep waited on stands on the sleep's innermost frame. Frames
 * are merged when they are the same thing (the same process name, the same function) on top of the
 * same merged frame, their durations summed, and each level's frames sorted longest first. x is
 * accumulated duration, not time. A frame in runs and in sleeps is purple. Children may be longer
 * than their parent (they may overlap it in time); the lower frames are then spaced apart to make
 * room, as the paper does. Drawing walks the tree and stops at subtrees out of view or narrower than
 * a pixel, so its cost follows what is visible. */
#include "render/render-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct node {
  const char *label; /* interned: a function, or a process name */
  uint32_t parent;   /* node index, UINT32_MAX for the roots */
  uint16_t depth;
  uint8_t kinds;     /* RSP_FRAME_* of everything merged into it */
  uint64_t duration; /* summed over the merged frames */
  uint64_t x, slot;  /* placement: start and room taken (>= duration, >= the children's slots) */
  uint32_t n_merged;
  GArray *children;  /* uint32_t node indexes, sorted by duration (NULL: none) */
} node;

struct rsp_consolidated_view {
  const rsp_paths *paths;
  const rsp_model *model;
  GArray *nodes;     /* node */
  GArray *roots;     /* uint32_t */
  GHashTable *index; /* (parent, label, process?) -> node index + 1 */
  GStringChunk *labels;
  uint64_t total;
  uint16_t max_depth;
  char *search;      /* folded, or NULL */
  uint64_t t0, t1;   /* only the parts of the frames inside [t0, t1) are gathered */
};

typedef struct node_key {
  uint32_t parent;
  bool process;
  const char *label;
} node_key;

static guint key_hash(gconstpointer p)
{
  const node_key *k = p;
  return (guint)(k->parent * 2654435761u) ^ g_direct_hash(k->label) ^ (k->process ? 0x5bd1e995u : 0);
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
  const node_key *x = a, *y = b;
  return x->parent == y->parent && x->label == y->label && x->process == y->process;
}

/* The child of PARENT (UINT32_MAX: a root) for LABEL, made when new. */
static uint32_t child(rsp_consolidated_view *v, uint32_t parent, const char *label, bool process)
{
  node_key k = { parent, process, label };
  gpointer found = g_hash_table_lookup(v->index, &k);
  if (found)
    return GPOINTER_TO_UINT(found) - 1;
  uint32_t idx = v->nodes->len;
  uint16_t depth = parent == UINT32_MAX ? 0 : (uint16_t)(g_array_index(v->nodes, node, parent).depth + 1);
  node n = { .label = label, .parent = parent, .depth = depth };
  g_array_append_val(v->nodes, n);
  if (depth > v->max_depth)
    v->max_depth = depth;
  GArray *siblings = parent == UINT32_MAX ? v->roots : g_array_index(v->nodes, node, parent).children;
  if (!siblings) {
    siblings = g_array_new(false, false, sizeof(uint32_t));
    g_array_index(v->nodes, node, parent).children = siblings;
  }
  g_array_append_val(siblings, idx);
  node_key *nk = g_new(node_key, 1);
  *nk = k;
  g_hash_table_insert(v->index, nk, GUINT_TO_POINTER(idx + 1));
  return idx;
}

typedef struct column_walk {
  rsp_consolidated_view *v;
  uint32_t base; /* the layer's process node */
  uint32_t top;  /* the innermost frame's node of the last column */
  unsigned kinds;
} column_walk;

static void add_column(uint64_t start, uint64_t end, const rsp_model_frame *frames, uint32_t n, void *data)
{
  column_walk *w = data;
  if (start < w->v->t0)
    start = w->v->t0;
  if (end > w->v->t1)
    end = w->v->t1;
  if (end <= start)
    return;
  uint32_t at = w->base;
  for (uint32_t i = 0; i < n; i++) {
    const rsp_model_frame *f = &frames[n - 1 - i];
    at = child(w->v, at, f->function ? f->function : "?", false);
    node *nd = &g_array_index(w->v->nodes, node, at);
    nd->duration += end - start;
    nd->n_merged++;
    nd->kinds |= (uint8_t)w->kinds;
  }
  w->top = at;
}

static void no_column(uint64_t start, uint64_t end, const rsp_model_frame *frames, uint32_t n, void *data)
{
  (void)start, (void)end, (void)frames, (void)n, (void)data;
}

/* Merges element ID as a layer standing on node PARENT (UINT32_MAX: the bottom), then what it waited on. */
static void add_layer(rsp_consolidated_view *v, rsp_elem_id id, uint32_t parent)
{
  const rsp_path_elem *e = rsp_paths_elem(v->paths, id);
  uint64_t start = MAX(e->start, v->t0), end = MIN(e->end, v->t1);
  if (end <= start && !(e->end == e->start && e->start >= v->t0 && e->start < v->t1))
    return; /* outside the range: and what it waited on lies within it */
  unsigned kinds = 0;
  rsp_layer_columns(v->model, e, no_column, NULL, &kinds);
  const char *name = e->kind == RSP_ELEM_DISK   ? "disk"
                     : e->kind == RSP_ELEM_NET ? "network"
                                               : rsp_model_task(v->model, e->task)->comm;
  bool process = e->kind == RSP_ELEM_RUN || e->kind == RSP_ELEM_SLEEP;
  uint32_t base = child(v, parent, g_string_chunk_insert_const(v->labels, name), process);
  node *b = &g_array_index(v->nodes, node, base);
  b->duration += end > start ? end - start : 0;
  b->n_merged++;
  b->kinds |= process ? RSP_FRAME_PROCESS : kinds;
  column_walk w = { v, base, base, kinds };
  rsp_layer_columns(v->model, e, add_column, &w, &kinds);
  uint32_t nc = 0;
  const rsp_elem_id *children = rsp_paths_children(v->paths, id, &nc);
  for (uint32_t i = 0; i < nc; i++)
    add_layer(v, children[i], w.top);
}

static int by_duration_desc(const void *a, const void *b, void *data)
{
  GArray *nodes = data;
  const node *x = &g_array_index(nodes, node, *(const uint32_t *)a);
  const node *y = &g_array_index(nodes, node, *(const uint32_t *)b);
  if (x->duration != y->duration)
    return x->duration < y->duration ? 1 : -1;
  return strcmp(x->label, y->label);
}

/* Sorts each level longest first and measures the room each node takes: its duration or its
 * children's, whichever is longer. */
static uint64_t measure(rsp_consolidated_view *v, uint32_t idx)
{
  uint64_t kids = 0;
  GArray *children = g_array_index(v->nodes, node, idx).children;
  if (children) {
    g_array_sort_with_data(children, by_duration_desc, v->nodes);
    for (guint i = 0; i < children->len; i++)
      kids += measure(v, g_array_index(children, uint32_t, i));
  }
  node *n = &g_array_index(v->nodes, node, idx);
  n->slot = n->duration > kids ? n->duration : kids;
  return n->slot;
}

static void place(rsp_consolidated_view *v, uint32_t idx, uint64_t x)
{
  node *n = &g_array_index(v->nodes, node, idx);
  n->x = x;
  GArray *children = n->children;
  if (!children)
    return;
  for (guint i = 0; i < children->len; i++) {
    uint32_t c = g_array_index(children, uint32_t, i);
    place(v, c, x);
    x += g_array_index(v->nodes, node, c).slot;
  }
}

rsp_consolidated_view *rsp_consolidated_view_new(const rsp_paths *paths)
{
  return rsp_consolidated_view_new_range(paths, 0, UINT64_MAX);
}

rsp_consolidated_view *rsp_consolidated_view_new_range(const rsp_paths *paths, uint64_t t0, uint64_t t1)
{
  rsp_consolidated_view *v = g_new0(rsp_consolidated_view, 1);
  v->t0 = t0;
  v->t1 = t1 > t0 ? t1 : UINT64_MAX;
  v->paths = paths;
  v->model = rsp_paths_model(paths);
  v->nodes = g_array_new(false, false, sizeof(node));
  v->roots = g_array_new(false, false, sizeof(uint32_t));
  v->index = g_hash_table_new_full(key_hash, key_equal, g_free, NULL);
  v->labels = g_string_chunk_new(1024);
  for (rsp_path_id p = 0; p < rsp_paths_n_paths(paths); p++) {
    const rsp_path *path = rsp_paths_path(paths, p);
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(paths, p, i);
      if (rsp_paths_elem(paths, id)->depth == 0)
        add_layer(v, id, UINT32_MAX);
    }
  }
  g_hash_table_destroy(v->index);
  v->index = NULL;
  g_array_sort_with_data(v->roots, by_duration_desc, v->nodes);
  uint64_t x = 0;
  for (guint i = 0; i < v->roots->len; i++) {
    uint32_t r = g_array_index(v->roots, uint32_t, i);
    measure(v, r);
    place(v, r, x);
    x += g_array_index(v->nodes, node, r).slot;
  }
  v->total = x;
  return v;
}

void rsp_consolidated_view_free(rsp_consolidated_view *v)
{
  if (!v)
    return;
  for (guint i = 0; i < v->nodes->len; i++) {
    node *n = &g_array_index(v->nodes, node, i);
    if (n->children)
      g_array_free(n->children, true);
  }
  g_array_free(v->nodes, true);
  g_array_free(v->roots, true);
  g_string_chunk_free(v->labels);
  g_free(v->search);
  g_free(v);
}

uint64_t rsp_consolidated_view_total(const rsp_consolidated_view *v)
{
  return v->total;
}

int rsp_consolidated_view_content_height(const rsp_consolidated_view *v, const rsp_style *style)
{
  return (v->max_depth + 1) * style->row_height;
}

uint32_t rsp_consolidated_view_set_search(rsp_consolidated_view *v, const char *text)
{
  g_free(v->search);
  v->search = text && *text ? g_utf8_casefold(text, -1) : NULL;
  if (!v->search)
    return 0;
  uint32_t n = 0;
  for (guint i = 0; i < v->nodes->len; i++)
    n += rsp_label_matches(g_array_index(v->nodes, node, i).label, v->search);
  return n;
}

static int node_y(const rsp_consolidated_view *v, const rsp_viewport *vp, const rsp_style *style, const node *n)
{
  return style->ruler_height + (v->max_depth - n->depth) * style->row_height - vp->scroll_y;
}

static void draw_node(rsp_consolidated_view *v, cairo_t *cr, const rsp_viewport *vp, const rsp_style *style,
                      uint32_t idx)
{
  const node *n = &g_array_index(v->nodes, node, idx);
  if (n->x >= vp->t1 || n->x + n->slot <= vp->t0)
    return; /* neither it nor anything above it is in view */
  int rh = style->row_height;
  double sx0 = rsp_viewport_x(vp, style, n->x > vp->t0 ? n->x : vp->t0);
  double sx1 = rsp_viewport_x(vp, style, n->x + n->slot < vp->t1 ? n->x + n->slot : vp->t1);
  bool tiny = sx1 - sx0 < 1; /* the whole subtree within a pixel: its bottom frame stands for it */
  if (n->x < vp->t1 && n->x + n->duration > vp->t0) {
    double x0 = rsp_viewport_x(vp, style, n->x > vp->t0 ? n->x : vp->t0);
    double x1 = rsp_viewport_x(vp, style, n->x + n->duration < vp->t1 ? n->x + n->duration : vp->t1);
    if (x1 - x0 < 1)
      x1 = x0 + 1;
    int y = node_y(v, vp, style, n);
    if (y + rh > style->ruler_height && y < vp->height) {
      rsp_rgb c = rsp_frame_colour(n->kinds, style);
      cairo_set_source_rgb(cr, c.r, c.g, c.b);
      cairo_rectangle(cr, x0, y + 1, x1 - x0, rh - 2);
      cairo_fill(cr);
      if (v->search && rsp_label_matches(n->label, v->search)) {
        cairo_set_source_rgb(cr, style->match.r, style->match.g, style->match.b);
        cairo_set_line_width(cr, 2);
        cairo_rectangle(cr, x0 + 1, y + 2, (x1 - x0 > 2 ? x1 - x0 : 2) - 2, rh - 4);
        cairo_stroke(cr);
      }
      if (x1 - x0 > 40) {
        char dur[48], buf[200];
        snprintf(buf, sizeof buf, "%s (%s)", n->label, rsp_format_duration(n->duration, dur, sizeof dur));
        cairo_save(cr);
        cairo_rectangle(cr, x0 + 1, y, x1 - x0 - 2, rh);
        cairo_clip(cr);
        if ((n->kinds & RSP_FRAME_RUN) && !(n->kinds & RSP_FRAME_PROCESS))
          cairo_set_source_rgb(cr, 1, 1, 1);
        else
          cairo_set_source_rgb(cr, style->text.r, style->text.g, style->text.b);
        cairo_move_to(cr, (x0 > style->label_width ? x0 : style->label_width) + 2, y + rh - 3);
        cairo_show_text(cr, buf);
        cairo_restore(cr);
      }
    }
  }
  if (tiny || !n->children)
    return;
  for (guint i = 0; i < n->children->len; i++)
    draw_node(v, cr, vp, style, g_array_index(n->children, uint32_t, i));
}

void rsp_consolidated_view_draw(rsp_consolidated_view *v, cairo_t *cr, const rsp_viewport *vp,
                                const rsp_style *style)
{
  cairo_save(cr);
  cairo_set_source_rgb(cr, style->background.r, style->background.g, style->background.b);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, style->font_size);
  cairo_save(cr);
  cairo_rectangle(cr, style->label_width, style->ruler_height, vp->width - style->label_width, vp->height);
  cairo_clip(cr);
  for (guint i = 0; i < v->roots->len; i++)
    draw_node(v, cr, vp, style, g_array_index(v->roots, uint32_t, i));
  cairo_restore(cr);
  int rh = style->row_height;
  cairo_set_source_rgb(cr, style->label_bg.r, style->label_bg.g, style->label_bg.b);
  cairo_rectangle(cr, 0, style->ruler_height, style->label_width, vp->height);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, style->process_text.r, style->process_text.g, style->process_text.b);
  char buf[96];
  snprintf(buf, sizeof buf, "consolidated, pid %d", rsp_paths_pid(v->paths));
  cairo_move_to(cr, 4, style->ruler_height + (v->max_depth + 1) * rh - vp->scroll_y - 3);
  cairo_show_text(cr, buf);
  rsp_time_ruler_draw(cr, vp, style, 0); /* x is accumulated duration from 0 */
  cairo_restore(cr);
}

static bool find_node(const rsp_consolidated_view *v, const rsp_viewport *vp, const rsp_style *style, GArray *level,
                      uint64_t t, int depth, uint32_t *out)
{
  if (!level)
    return false;
  for (guint i = 0; i < level->len; i++) {
    uint32_t idx = g_array_index(level, uint32_t, i);
    const node *n = &g_array_index(v->nodes, node, idx);
    if (t < n->x || t >= n->x + n->slot)
      continue;
    if (n->depth == depth) {
      if (t < n->x + n->duration) {
        *out = idx;
        return true;
      }
      continue;
    }
    if (n->depth < depth && find_node(v, vp, style, n->children, t, depth, out))
      return true;
  }
  return false;
}

bool rsp_consolidated_view_node_at(const rsp_consolidated_view *v, const rsp_viewport *vp, const rsp_style *style,
                                   double x, double y, const char **label, uint64_t *duration, uint32_t *n_merged)
{
  if (x < style->label_width || y < style->ruler_height)
    return false;
  int row = (int)floor((y - style->ruler_height + vp->scroll_y) / style->row_height);
  int depth = v->max_depth - row;
  if (depth < 0)
    return false;
  uint32_t idx = 0;
  if (!find_node(v, vp, style, v->roots, rsp_viewport_time(vp, style, x), depth, &idx))
    return false;
  const node *n = &g_array_index(v->nodes, node, idx);
  *label = n->label;
  *duration = n->duration;
  *n_merged = n->n_merged;
  return true;
}
