/* The Consolidated Flame View (paper, "Consolidated Flame View"): all matching pseudo-stacks of the
 * control paths gathered together and sorted by duration, level by level: the bottom frames (depth
 * 0) merged by what they are (a run of process P, a sleep in function F, a disk request, a network
 * operation) and sorted longest first, then, for each, the frames above it merged and sorted the
 * same way. x is accumulated duration, not time. Children may be longer than their parent (they
 * may overlap it in time); the lower frames are then spaced apart to make room, as the paper does. */
#include "render/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct node {
  char *key;         /* "kind:label" */
  const char *label; /* points into key */
  uint8_t kind;      /* rsp_elem_kind */
  uint16_t depth;
  uint64_t duration; /* summed over the merged frames */
  uint64_t x, slot;  /* placement: start and room taken (>= duration, >= the children's slots) */
  uint32_t n_merged;
  GArray *children;  /* uint32_t node indexes, sorted by duration */
} node;

struct rsp_consolidated_view {
  const rsp_paths *paths;
  const rsp_model *model;
  GArray *nodes; /* node */
  GArray *roots; /* uint32_t */
  uint64_t total;
  uint16_t max_depth;
};

static char *elem_key(const rsp_model *m, const rsp_path_elem *e)
{
  switch (e->kind) {
  case RSP_ELEM_RUN:
    return g_strdup_printf("0:%s", rsp_model_task(m, e->task)->comm);
  case RSP_ELEM_DISK:
    return g_strdup("2:disk");
  case RSP_ELEM_NET:
    return g_strdup("3:network");
  default: {
    const rsp_sleep *s = rsp_model_sleep(m, e->id);
    const rsp_model_frame *f = s->stack != RSP_NO_ID ? rsp_model_stack_label(m, s->stack) : NULL;
    if (f && f->function)
      return g_strdup_printf("1:%s", f->function);
    return g_strdup_printf("1:sleep (state %c)", s->state ? s->state : '?');
  }
  }
}

static GArray *uint_array(void)
{
  return g_array_new(false, false, sizeof(uint32_t));
}

static int by_duration_desc(const void *a, const void *b, void *data)
{
  GArray *nodes = data;
  const node *x = &g_array_index(nodes, node, *(const uint32_t *)a);
  const node *y = &g_array_index(nodes, node, *(const uint32_t *)b);
  if (x->duration != y->duration)
    return x->duration < y->duration ? 1 : -1;
  return strcmp(x->key, y->key);
}

/* Merges ELEMS (elem ids at one depth, under one merged parent) into nodes; appends their indexes to
 * OUT and recurses into their children. */
static void merge(rsp_consolidated_view *v, GArray *elems, uint16_t depth, GArray *out)
{
  uint32_t first = v->nodes->len; /* the nodes made here are first, first + 1, ... */
  GHashTable *by_key = g_hash_table_new(g_str_hash, g_str_equal);
  GPtrArray *members = g_ptr_array_new(); /* per new node: GArray of its elems' children */
  for (guint i = 0; i < elems->len; i++) {
    rsp_elem_id id = g_array_index(elems, uint32_t, i);
    const rsp_path_elem *e = rsp_paths_elem(v->paths, id);
    char *key = elem_key(v->model, e);
    gpointer found;
    uint32_t idx;
    if (g_hash_table_lookup_extended(by_key, key, NULL, &found)) {
      idx = GPOINTER_TO_UINT(found);
      g_free(key);
    } else {
      node n = { .key = key, .label = key + 2, .kind = e->kind, .depth = depth };
      idx = v->nodes->len;
      g_array_append_val(v->nodes, n);
      g_hash_table_insert(by_key, key, GUINT_TO_POINTER(idx));
      g_array_append_val(out, idx);
      g_ptr_array_add(members, uint_array());
    }
    node *n = &g_array_index(v->nodes, node, idx);
    n->duration += e->end - e->start;
    n->n_merged++;
    uint32_t nc = 0;
    const rsp_elem_id *children = rsp_paths_children(v->paths, id, &nc);
    GArray *kids = g_ptr_array_index(members, idx - first);
    if (nc)
      g_array_append_vals(kids, children, nc);
  }
  if (depth > v->max_depth)
    v->max_depth = depth;
  /* recurse after this level is complete (nodes may move when the array grows: use indexes) */
  for (guint k = 0; k < members->len; k++) {
    uint32_t idx = first + k;
    GArray *kids = g_ptr_array_index(members, k);
    GArray *child_nodes = uint_array();
    if (kids->len)
      merge(v, kids, (uint16_t)(depth + 1), child_nodes);
    g_array_sort_with_data(child_nodes, by_duration_desc, v->nodes);
    g_array_index(v->nodes, node, idx).children = child_nodes;
    g_array_free(kids, true);
  }
  g_ptr_array_free(members, true);
  g_hash_table_destroy(by_key);
}

/* The room each node takes: its duration or its children's, whichever is longer. */
static uint64_t measure(rsp_consolidated_view *v, uint32_t idx)
{
  uint64_t kids = 0;
  GArray *children = g_array_index(v->nodes, node, idx).children;
  for (guint i = 0; i < children->len; i++)
    kids += measure(v, g_array_index(children, uint32_t, i));
  node *n = &g_array_index(v->nodes, node, idx);
  n->slot = n->duration > kids ? n->duration : kids;
  return n->slot;
}

static void place(rsp_consolidated_view *v, uint32_t idx, uint64_t x)
{
  node *n = &g_array_index(v->nodes, node, idx);
  n->x = x;
  GArray *children = n->children;
  for (guint i = 0; i < children->len; i++) {
    uint32_t c = g_array_index(children, uint32_t, i);
    place(v, c, x);
    x += g_array_index(v->nodes, node, c).slot;
  }
}

rsp_consolidated_view *rsp_consolidated_view_new(const rsp_paths *paths)
{
  rsp_consolidated_view *v = g_new0(rsp_consolidated_view, 1);
  v->paths = paths;
  v->model = rsp_paths_model(paths);
  v->nodes = g_array_new(false, false, sizeof(node));
  v->roots = uint_array();
  GArray *bottom = uint_array();
  for (rsp_path_id p = 0; p < rsp_paths_n_paths(paths); p++) {
    const rsp_path *path = rsp_paths_path(paths, p);
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(paths, p, i);
      if (rsp_paths_elem(paths, id)->depth == 0)
        g_array_append_val(bottom, id);
    }
  }
  if (bottom->len)
    merge(v, bottom, 0, v->roots);
  g_array_free(bottom, true);
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
    g_free(n->key);
    if (n->children)
      g_array_free(n->children, true);
  }
  g_array_free(v->nodes, true);
  g_array_free(v->roots, true);
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

static int node_y(const rsp_consolidated_view *v, const rsp_style *style, const node *n)
{
  return style->ruler_height + (v->max_depth - n->depth) * style->row_height;
}

void rsp_consolidated_view_draw(rsp_consolidated_view *v, cairo_t *cr, const rsp_viewport *vp,
                                const rsp_style *style)
{
  cairo_save(cr);
  cairo_set_source_rgb(cr, style->background.r, style->background.g, style->background.b);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, style->font_size);
  int rh = style->row_height;
  for (guint i = 0; i < v->nodes->len; i++) {
    const node *n = &g_array_index(v->nodes, node, i);
    if (n->x >= vp->t1 || n->x + n->duration <= vp->t0)
      continue;
    double x0 = rsp_viewport_x(vp, style, n->x > vp->t0 ? n->x : vp->t0);
    double x1 = rsp_viewport_x(vp, style, n->x + n->duration < vp->t1 ? n->x + n->duration : vp->t1);
    if (x1 - x0 < 1)
      x1 = x0 + 1;
    int y = node_y(v, style, n);
    rsp_rgb c = n->kind == RSP_ELEM_RUN ? style->run : n->kind == RSP_ELEM_DISK ? style->io
                : n->kind == RSP_ELEM_NET ? style->net : style->sleep;
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
    cairo_rectangle(cr, x0, y + 1, x1 - x0, rh - 2);
    cairo_fill(cr);
    if (x1 - x0 > 40) {
      char dur[48], buf[160];
      snprintf(buf, sizeof buf, "%s (%s)", n->label, rsp_format_duration(n->duration, dur, sizeof dur));
      cairo_save(cr);
      cairo_rectangle(cr, x0 + 1, y, x1 - x0 - 2, rh);
      cairo_clip(cr);
      if (n->kind == RSP_ELEM_RUN)
        cairo_set_source_rgb(cr, 1, 1, 1);
      else
        cairo_set_source_rgb(cr, style->text.r, style->text.g, style->text.b);
      cairo_move_to(cr, x0 + 2, y + rh - 3);
      cairo_show_text(cr, buf);
      cairo_restore(cr);
    }
  }
  cairo_set_source_rgb(cr, style->label_bg.r, style->label_bg.g, style->label_bg.b);
  cairo_rectangle(cr, 0, style->ruler_height, style->label_width, vp->height);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, style->process_text.r, style->process_text.g, style->process_text.b);
  char buf[96];
  snprintf(buf, sizeof buf, "consolidated, pid %d", rsp_paths_pid(v->paths));
  cairo_move_to(cr, 4, style->ruler_height + rh - 3);
  cairo_show_text(cr, buf);
  rsp_time_ruler_draw(cr, vp, style, 0); /* x is accumulated duration from 0 */
  cairo_restore(cr);
}

bool rsp_consolidated_view_node_at(const rsp_consolidated_view *v, const rsp_viewport *vp, const rsp_style *style,
                                   double x, double y, const char **label, uint64_t *duration, uint32_t *n_merged)
{
  uint64_t t = rsp_viewport_time(vp, style, x);
  for (guint i = 0; i < v->nodes->len; i++) {
    const node *n = &g_array_index(v->nodes, node, i);
    int ny = node_y(v, style, n);
    if (y >= ny && y < ny + style->row_height && t >= n->x && t < n->x + n->duration) {
      *label = n->label;
      *duration = n->duration;
      *n_merged = n->n_merged;
      return true;
    }
  }
  return false;
}
