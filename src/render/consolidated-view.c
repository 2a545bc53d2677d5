/* The Consolidated Flame View (paper, "Consolidated Flame View"): all matching pseudo-stacks of the
 * control paths gathered together and sorted by duration, level by level. Each layer is drawn as
 * its stack, as in the flame view: its process (grey), then the functions of its runs' samples and
 * of its sleeps' wait stacks; what a sleep waited on stands on the sleep's innermost frame. Frames
 * are merged when they are the same thing (the same process name, the same function) on top of the
 * same merged frame, their durations summed, and each level's frames sorted longest first. x is
 * accumulated duration, not time. A frame in runs and in sleeps is purple. Children may be longer
 * than their parent (they may overlap it in time); the lower frames are then spaced apart to make
 * room, as the paper does. The kernel work done for the paths' processes by interrupts and kernel threads
 * stands beside them as roots "kernel work for X" (amber), its doers above. Drawing walks the tree and stops at subtrees out of view or narrower than
 * a pixel, so its cost follows what is visible. */
#include "render/render-private.h"

#include <math.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Where a node of the tree is drawn (rsp_stack_tree_layout). */
typedef rsp_stack_place placement;

struct rsp_consolidated_view {
  const rsp_paths *paths;
  rsp_stack_tree *tree;
  placement *at;     /* by node id */
  uint64_t total;
  uint32_t max_depth;
  char *search;      /* folded, or NULL */
};

/* Each node's place along x (rsp_stack_tree_layout), the total width returned. */
static uint64_t measure_and_place(rsp_consolidated_view *v)
{
  uint32_t n = 0;
  uint32_t *order = rsp_stack_tree_preorder(v->tree, &n);
  uint64_t total = rsp_stack_tree_layout(v->tree, order, n, v->at);
  g_free(order);
  return total;
}

rsp_consolidated_view *rsp_consolidated_view_new(const rsp_paths *paths)
{
  return rsp_consolidated_view_new_range(paths, 0, UINT64_MAX);
}

rsp_consolidated_view *rsp_consolidated_view_new_range(const rsp_paths *paths, uint64_t t0, uint64_t t1)
{
  return rsp_consolidated_view_new_flags(paths, t0, t1, 0);
}

rsp_consolidated_view *rsp_consolidated_view_new_flags(const rsp_paths *paths, uint64_t t0, uint64_t t1,
                                                       unsigned flags)
{
  return rsp_consolidated_view_new_kwork(paths, NULL, t0, t1, flags);
}

rsp_consolidated_view *rsp_consolidated_view_new_kwork(const rsp_paths *paths, const rsp_kernel_work *kw, uint64_t t0,
                                                       uint64_t t1, unsigned flags)
{
  rsp_consolidated_view *v = g_new0(rsp_consolidated_view, 1);
  v->paths = paths;
  v->tree = rsp_stack_tree_build_kwork(paths, kw, t0, t1, flags);
  v->max_depth = rsp_stack_tree_max_depth(v->tree);
  v->at = g_new0(placement, rsp_stack_tree_n_nodes(v->tree));
  v->total = measure_and_place(v);
  return v;
}

void rsp_consolidated_view_free(rsp_consolidated_view *v)
{
  if (!v)
    return;
  rsp_stack_tree_free(v->tree);
  g_free(v->at);
  g_free(v->search);
  g_free(v);
}

uint64_t rsp_consolidated_view_total(const rsp_consolidated_view *v)
{
  return v->total;
}

int rsp_consolidated_view_content_height(const rsp_consolidated_view *v, const rsp_style *style)
{
  return (int)MIN(v->max_depth + 1u, (uint32_t)(INT_MAX / 64)) * style->row_height;
}

uint32_t rsp_consolidated_view_set_search(rsp_consolidated_view *v, const char *text)
{
  g_free(v->search);
  v->search = text && *text ? g_utf8_casefold(text, -1) : NULL;
  if (!v->search)
    return 0;
  uint32_t n = 0;
  for (uint32_t i = 0; i < rsp_stack_tree_n_nodes(v->tree); i++)
    n += rsp_label_matches(rsp_stack_tree_node(v->tree, i)->label, v->search);
  return n;
}

static int node_y(const rsp_consolidated_view *v, const rsp_viewport *vp, const rsp_style *style,
                  const rsp_stack_node *n)
{
  return style->ruler_height + (int)(v->max_depth - n->depth) * style->row_height - vp->scroll_y;
}

/* Draws node IDX; true when its children are to be drawn too. */
static bool draw_node(rsp_consolidated_view *v, cairo_t *cr, const rsp_viewport *vp, const rsp_style *style,
                      uint32_t idx)
{
  const rsp_stack_node *n = rsp_stack_tree_node(v->tree, idx);
  const placement *p = &v->at[idx];
  if (p->x >= vp->t1 || p->x + p->slot <= vp->t0)
    return false; /* neither it nor anything above it is in view */
  int rh = style->row_height;
  double sx0 = rsp_viewport_x(vp, style, p->x > vp->t0 ? p->x : vp->t0);
  double sx1 = rsp_viewport_x(vp, style, p->x + p->slot < vp->t1 ? p->x + p->slot : vp->t1);
  bool tiny = sx1 - sx0 < 1; /* the whole subtree within a pixel: its bottom frame stands for it */
  if (p->x < vp->t1 && p->x + n->ns > vp->t0) {
    double x0 = rsp_viewport_x(vp, style, p->x > vp->t0 ? p->x : vp->t0);
    double x1 = rsp_viewport_x(vp, style, p->x + n->ns < vp->t1 ? p->x + n->ns : vp->t1);
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
        snprintf(buf, sizeof buf, "%s (%s)", n->label, rsp_format_duration(n->ns, dur, sizeof dur));
        cairo_save(cr);
        cairo_rectangle(cr, x0 + 1, y, x1 - x0 - 2, rh);
        cairo_clip(cr);
        if ((n->kinds & RSP_FRAME_RUN) && !(n->kinds & RSP_FRAME_PROCESS))
          cairo_set_source_rgb(cr, 1, 1, 1);
        else
          cairo_set_source_rgb(cr, style->text.r, style->text.g, style->text.b);
        cairo_move_to(cr, (x0 > style->label_width ? x0 : style->label_width) + 2, y + 1 + rsp_text_baseline(cr, rh - 2));
        cairo_show_text(cr, buf);
        cairo_restore(cr);
      }
    }
  }
  return !tiny;
}

/* The whole tree, depth first with a stack of our own: a relay of 10,000 wakeups is 10,000 levels. */
static void draw_tree(rsp_consolidated_view *v, cairo_t *cr, const rsp_viewport *vp, const rsp_style *style)
{
  GArray *todo = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  uint32_t nr = 0;
  const uint32_t *roots = rsp_stack_tree_children(v->tree, RSP_NO_ID, &nr);
  for (uint32_t i = nr; i-- > 0;)
    g_array_append_val(todo, roots[i]);
  while (todo->len) {
    uint32_t idx = g_array_index(todo, uint32_t, todo->len - 1);
    g_array_set_size(todo, todo->len - 1);
    if (!draw_node(v, cr, vp, style, idx))
      continue;
    uint32_t nc = 0;
    const uint32_t *children = rsp_stack_tree_children(v->tree, idx, &nc);
    for (uint32_t i = nc; i-- > 0;)
      g_array_append_val(todo, children[i]);
  }
  g_array_free(todo, TRUE);
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
  draw_tree(v, cr, vp, style);
  cairo_restore(cr);
  int rh = style->row_height;
  cairo_set_source_rgb(cr, style->label_bg.r, style->label_bg.g, style->label_bg.b);
  cairo_rectangle(cr, 0, style->ruler_height, style->label_width, vp->height);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, style->process_text.r, style->process_text.g, style->process_text.b);
  char buf[96];
  snprintf(buf, sizeof buf, "consolidated, pid %d", rsp_paths_pid(v->paths));
  cairo_move_to(cr, 4, style->ruler_height + (double)(v->max_depth + 1) * rh - vp->scroll_y - 3);
  cairo_show_text(cr, buf);
  rsp_time_ruler_draw(cr, vp, style, 0); /* x is accumulated duration from 0 */
  cairo_restore(cr);
}

/* The node at DEPTH covering T among the subtrees of node LEVEL (RSP_NO_ID: the roots). Siblings'
 * slots do not overlap, so at most one child leads on: a walk down, not a recursion. */
static bool find_node(const rsp_consolidated_view *v, uint32_t level, uint64_t t, int depth, uint32_t *out)
{
  for (;;) {
    uint32_t n = 0, next = RSP_NO_ID;
    const uint32_t *ids = rsp_stack_tree_children(v->tree, level, &n);
    for (uint32_t i = 0; i < n && next == RSP_NO_ID; i++) {
      uint32_t id = ids[i];
      const rsp_stack_node *nd = rsp_stack_tree_node(v->tree, id);
      const placement *p = &v->at[id];
      if (t < p->x || t >= p->x + p->slot)
        continue;
      if ((int64_t)nd->depth == depth) {
        if (t < p->x + nd->ns) {
          *out = id;
          return true;
        }
        continue;
      }
      if ((int64_t)nd->depth < depth)
        next = id;
    }
    if (next == RSP_NO_ID)
      return false;
    level = next;
  }
}

bool rsp_consolidated_view_node_at(const rsp_consolidated_view *v, const rsp_viewport *vp, const rsp_style *style,
                                   double x, double y, const char **label, uint64_t *duration, uint32_t *n_merged)
{
  if (x < style->label_width || y < style->ruler_height)
    return false;
  int row = (int)floor((y - style->ruler_height + vp->scroll_y) / style->row_height);
  int depth = (int)v->max_depth - row;
  if (depth < 0)
    return false;
  uint32_t idx = 0;
  if (!find_node(v, RSP_NO_ID, rsp_viewport_time(vp, style, x), depth, &idx))
    return false;
  const rsp_stack_node *n = rsp_stack_tree_node(v->tree, idx);
  *label = n->label;
  *duration = n->ns;
  *n_merged = n->n_merged;
  return true;
}
