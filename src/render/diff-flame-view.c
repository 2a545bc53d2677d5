/* The differential consolidated flame graph (rsp-diff --flame-out): two recordings' consolidated
 * stacks matched by path, drawn as one flame graph coloured by how much each frame grew (red) or
 * shrank (blue). Widths are max(A, B) so that what shrank stays visible (render.h says why and
 * gives the geometry). */
#include "render/render-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static rsp_rgb mix(rsp_rgb a, rsp_rgb b, double s)
{
  return (rsp_rgb){ a.r + (b.r - a.r) * s, a.g + (b.g - a.g) * s, a.b + (b.b - a.b) * s };
}

rsp_rgb rsp_diff_flame_colour(double rel)
{
  double s = fabs(rel);
  if (!(s >= RSP_DIFF_FLAME_NEUTRAL))
    return (rsp_rgb){ 0.80, 0.80, 0.80 };
  if (s > 1)
    s = 1;
  /* from a pale shade just past the neutral threshold to a full one for a frame new or gone */
  s = (s - RSP_DIFF_FLAME_NEUTRAL) / (1 - RSP_DIFF_FLAME_NEUTRAL);
  if (rel > 0)
    return mix((rsp_rgb){ 0.98, 0.74, 0.70 }, (rsp_rgb){ 0.80, 0.06, 0.04 }, s);
  return mix((rsp_rgb){ 0.72, 0.80, 0.98 }, (rsp_rgb){ 0.08, 0.24, 0.80 }, s);
}

static uint64_t larger(const rsp_stack_diff_node *n)
{
  return n->a_ns > n->b_ns ? n->a_ns : n->b_ns;
}

/* The room of node ID (RSP_NO_ID: all roots): its width or its children's, whichever is larger;
 * each node's into ROOMS (by id) when not NULL. */
static uint64_t room(const rsp_stack_diff *d, uint32_t id, uint64_t *rooms)
{
  uint64_t kids = 0;
  uint32_t n = 0;
  const uint32_t *children = rsp_stack_diff_children(d, id, &n);
  for (uint32_t i = 0; i < n; i++)
    kids += room(d, children[i], rooms);
  if (id == RSP_NO_ID)
    return kids;
  uint64_t own = larger(rsp_stack_diff_get(d, id));
  if (rooms)
    rooms[id] = own > kids ? own : kids;
  return own > kids ? own : kids;
}

uint64_t rsp_diff_flame_total(const rsp_stack_diff *d)
{
  return room(d, RSP_NO_ID, NULL);
}

static int n_notes(char **notes)
{
  int n = 0;
  for (char **p = notes; p && *p; p++)
    n++;
  return n;
}

int rsp_diff_flame_height(const rsp_stack_diff *d, const rsp_style *style, char **notes)
{
  int rows = rsp_stack_diff_n_nodes(d) ? rsp_stack_diff_max_depth(d) + 1 : 1;
  return style->ruler_height + rows * style->row_height + n_notes(notes) * (int)(style->font_size + 4) + 4;
}

static void signed_duration(int64_t ns, char *buf, size_t size)
{
  char t[40];
  rsp_format_duration((uint64_t)(ns < 0 ? -ns : ns), t, sizeof t);
  snprintf(buf, size, "%s%s", ns < 0 ? "-" : "+", t);
}

typedef struct frame_walk {
  const rsp_stack_diff *d;
  cairo_t *cr;
  const rsp_style *style;
  double scale; /* pixels per ns */
  const uint64_t *rooms; /* by node id */
} frame_walk;

/* Draws node ID at accumulated x X (ns) and its subtree, but for a subtree within a pixel, whose
 * bottom frame stands for it (so the SVG of a large tree stays small). */
static void draw_frame(const frame_walk *w, uint32_t id, uint64_t x)
{
  const rsp_stack_diff_node *n = rsp_stack_diff_get(w->d, id);
  const rsp_style *st = w->style;
  if ((double)w->rooms[id] * w->scale >= 1) {
    uint64_t kids = 0;
    uint32_t nc = 0;
    const uint32_t *children = rsp_stack_diff_children(w->d, id, &nc);
    for (uint32_t i = 0; i < nc; i++) {
      draw_frame(w, children[i], x + kids);
      kids += w->rooms[children[i]];
    }
  }
  double x0 = (double)x * w->scale, x1 = (double)(x + larger(n)) * w->scale;
  if (x1 - x0 < 1)
    x1 = x0 + 1;
  int y = st->ruler_height + (int)(rsp_stack_diff_max_depth(w->d) - n->depth) * st->row_height;
  double rel = rsp_stack_diff_relative(n);
  rsp_rgb c = rsp_diff_flame_colour(rel);
  cairo_t *cr = w->cr;
  cairo_set_source_rgb(cr, c.r, c.g, c.b);
  cairo_rectangle(cr, x0, y + 1, x1 - x0, st->row_height - 2);
  cairo_fill(cr);
  if (x1 - x0 > 30) {
    char buf[320], dur[48], delta[64];
    rsp_format_duration(n->b_ns, dur, sizeof dur);
    if (!n->a_ns) {
      snprintf(buf, sizeof buf, "%s %s (new in B)", n->label, dur);
    } else if (!n->b_ns) {
      rsp_format_duration(n->a_ns, dur, sizeof dur);
      snprintf(buf, sizeof buf, "%s (gone in B, was %s)", n->label, dur);
    } else if (fabs(rel) >= RSP_DIFF_FLAME_NEUTRAL) {
      signed_duration(n->delta_ns, delta, sizeof delta);
      snprintf(buf, sizeof buf, "%s %s (%s, %+.0f%%)", n->label, dur, delta,
               100.0 * (double)n->delta_ns / (double)n->a_ns);
    } else {
      snprintf(buf, sizeof buf, "%s %s", n->label, dur);
    }
    cairo_save(cr);
    cairo_rectangle(cr, x0 + 1, y, x1 - x0 - 2, st->row_height);
    cairo_clip(cr);
    bool dark = fabs(rel) > 0.6;
    cairo_set_source_rgb(cr, dark ? 1 : 0, dark ? 1 : 0, dark ? 1 : 0);
    cairo_move_to(cr, x0 + 3, y + st->row_height - 4);
    cairo_show_text(cr, buf);
    cairo_restore(cr);
  }
}

void rsp_diff_flame_draw(const rsp_stack_diff *d, cairo_t *cr, int width, int height, const rsp_style *style,
                         const char *title, char **notes)
{
  cairo_save(cr);
  cairo_set_source_rgb(cr, style->background.r, style->background.g, style->background.b);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, style->font_size);
  cairo_set_source_rgb(cr, style->text.r, style->text.g, style->text.b);
  char legend[400];
  snprintf(legend, sizeof legend,
           "%s%swidth max(A, B); red: grew in B, blue: shrank, grey: changed by less than %.0f%%",
           title ? title : "", title ? "; " : "", 100 * RSP_DIFF_FLAME_NEUTRAL);
  cairo_move_to(cr, 4, style->font_size + 6);
  cairo_show_text(cr, legend);
  uint64_t *rooms = g_new0(uint64_t, rsp_stack_diff_n_nodes(d) + 1);
  uint64_t total = room(d, RSP_NO_ID, rooms);
  if (total) {
    frame_walk w = { d, cr, style, (double)width / (double)total, rooms };
    uint32_t nr = 0;
    const uint32_t *roots = rsp_stack_diff_children(d, RSP_NO_ID, &nr);
    uint64_t x = 0;
    for (uint32_t i = 0; i < nr; i++) {
      draw_frame(&w, roots[i], x);
      x += rooms[roots[i]];
    }
  } else {
    cairo_move_to(cr, 4, style->ruler_height + style->row_height - 3);
    cairo_show_text(cr, "(no control paths in either recording)");
  }
  int rows = rsp_stack_diff_n_nodes(d) ? rsp_stack_diff_max_depth(d) + 1 : 1;
  double lh = style->font_size + 4, y = style->ruler_height + rows * style->row_height;
  cairo_set_source_rgb(cr, 0.45, 0.25, 0.0);
  for (int i = 0; i < n_notes(notes); i++) {
    cairo_move_to(cr, 4, y + (i + 1) * lh);
    cairo_show_text(cr, notes[i]);
  }
  g_free(rooms);
  cairo_restore(cr);
}

typedef struct diff_drawing {
  const rsp_stack_diff *d;
  const char *title;
  char **notes;
} diff_drawing;

static void draw_diff(cairo_t *cr, int width, int height, void *data)
{
  diff_drawing *dd = data;
  rsp_diff_flame_draw(dd->d, cr, width, height, rsp_style_default(), dd->title, dd->notes);
}

bool rsp_export_diff_flame(const rsp_stack_diff *d, int width, const char *title, char **notes, const char *path,
                           GError **error)
{
  diff_drawing dd = { d, title, notes };
  return rsp_export_drawing(width, rsp_diff_flame_height(d, rsp_style_default(), notes), draw_diff, &dd, NULL, path,
                            error);
}
