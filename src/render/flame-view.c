/* The Flame View (paper, "Visualizations"): the process of interest and everything it waited on,
 * as control paths of pseudo-stacks; x = time, y = stack depth (depth 0 at the bottom of each
 * path's band, what a sleep waited on above it). Frames coloured as the paper does: runs red,
 * sleeps blue, blocking I/O (disk requests, and sleeps that waited on them) green, network teal;
 * the path bands are labelled in grey with the process names.
 *
 * Each (path, depth) lane is copied once into a start-sorted array with the running maximum of
 * ends, so a frame's visible range is found by binary search; frames narrower than a pixel whose
 * column is already filled are skipped. */
#include "render/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lane {
  rsp_path_id path;
  uint16_t depth;
  uint32_t first, n; /* into view->frames */
  int row;           /* row index from the top of the drawing */
} lane;

typedef struct frame {
  uint64_t start, end, max_end; /* max_end: the largest end of this and the lane's earlier frames */
  rsp_elem_id elem;
} frame;

struct rsp_flame_view {
  const rsp_paths *paths;
  const rsp_model *model;
  frame *frames;
  lane *lanes;
  uint32_t n_lanes;
  int n_rows;
  int *path_label_row; /* per path: the row its label goes on (its top lane) */
  int32_t *run_row;    /* per model run: the row of its frame, -1 when not on the paths */
  GArray *segments;    /* per frame: the links' lines (x0, y0, x1, y1 as floats) */
};

static int cmp_frame(const void *a, const void *b)
{
  const frame *x = a, *y = b;
  return (x->start > y->start) - (x->start < y->start);
}

rsp_flame_view *rsp_flame_view_new(const rsp_paths *paths)
{
  rsp_flame_view *v = g_new0(rsp_flame_view, 1);
  v->paths = paths;
  v->model = rsp_paths_model(paths);
  uint32_t n_paths = rsp_paths_n_paths(paths);
  v->frames = g_new(frame, rsp_paths_n_elems(paths) + 1);
  GArray *lanes = g_array_new(false, false, sizeof(lane));
  v->path_label_row = g_new0(int, n_paths + 1);
  uint32_t nf = 0;
  int row = 0;
  for (rsp_path_id p = 0; p < n_paths; p++) {
    const rsp_path *path = rsp_paths_path(paths, p);
    uint32_t max_depth = 0;
    for (uint32_t i = 0; i < path->n_elems; i++) {
      const rsp_path_elem *e = rsp_paths_elem(paths, rsp_paths_path_elem(paths, p, i));
      if (e->depth > max_depth)
        max_depth = e->depth;
    }
    if (!path->n_elems)
      continue;
    uint32_t lane0 = lanes->len;
    for (uint32_t d = 0; d <= max_depth; d++) {
      /* deepest at the top: the band's rows are max_depth .. 0 */
      lane l = { .path = p, .depth = (uint16_t)d, .row = row + (int)(max_depth - d) };
      g_array_append_val(lanes, l);
    }
    /* elements come in (depth, start) order */
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(paths, p, i);
      const rsp_path_elem *e = rsp_paths_elem(paths, id);
      lane *l = &g_array_index(lanes, lane, lane0 + e->depth);
      if (!l->n)
        l->first = nf;
      l->n++;
      v->frames[nf++] = (frame){ e->start, e->end > e->start ? e->end : e->start + 1, 0, id };
    }
    v->path_label_row[p] = row;
    row += (int)max_depth + 2; /* a blank row between paths */
  }
  v->n_rows = row;
  v->n_lanes = lanes->len;
  v->lanes = (lane *)g_array_free(lanes, false);
  uint32_t n_runs = rsp_model_n_runs(v->model);
  v->run_row = g_new(int32_t, n_runs + 1);
  for (uint32_t i = 0; i < n_runs; i++)
    v->run_row[i] = -1;
  for (uint32_t li = 0; li < v->n_lanes; li++)
    for (uint32_t k = 0; k < v->lanes[li].n; k++) {
      const rsp_path_elem *e = rsp_paths_elem(paths, v->frames[v->lanes[li].first + k].elem);
      if (e->kind == RSP_ELEM_RUN && e->id < n_runs)
        v->run_row[e->id] = v->lanes[li].row;
    }
  v->segments = g_array_new(false, false, sizeof(float) * 4);
  for (uint32_t i = 0; i < v->n_lanes; i++) {
    lane *l = &v->lanes[i];
    qsort(v->frames + l->first, l->n, sizeof(frame), cmp_frame);
    uint64_t m = 0;
    for (uint32_t k = 0; k < l->n; k++) {
      frame *f = &v->frames[l->first + k];
      if (f->end > m)
        m = f->end;
      f->max_end = m;
    }
  }
  return v;
}

void rsp_flame_view_free(rsp_flame_view *v)
{
  if (!v)
    return;
  g_free(v->frames);
  g_free(v->lanes);
  g_free(v->path_label_row);
  g_free(v->run_row);
  g_array_free(v->segments, true);
  g_free(v);
}

int rsp_flame_view_content_height(const rsp_flame_view *v, const rsp_style *style)
{
  return v->n_rows * style->row_height;
}

static rsp_rgb frame_colour(const rsp_flame_view *v, const rsp_path_elem *e, const rsp_style *style)
{
  switch (e->kind) {
  case RSP_ELEM_RUN:
    return style->run;
  case RSP_ELEM_DISK:
    return style->io;
  case RSP_ELEM_NET:
    return style->net;
  default: {
    const rsp_sleep *s = rsp_model_sleep(v->model, e->id);
    return s->end_cause == RSP_SLEEP_END_DISK || s->state == 'D' ? style->io : style->sleep;
  }
  }
}

static const char *frame_label(const rsp_flame_view *v, const rsp_path_elem *e, char *buf, size_t size)
{
  const rsp_task *t = rsp_model_task(v->model, e->task);
  switch (e->kind) {
  case RSP_ELEM_RUN:
    snprintf(buf, size, "%s %d", t->comm, t->tid);
    return buf;
  case RSP_ELEM_DISK:
    return "disk";
  case RSP_ELEM_NET:
    return "network";
  default: {
    const rsp_sleep *s = rsp_model_sleep(v->model, e->id);
    const rsp_model_frame *f = s->stack != RSP_NO_ID ? rsp_model_stack_label(v->model, s->stack) : NULL;
    snprintf(buf, size, "%s", f && f->function ? f->function : "sleep");
    return buf;
  }
  }
}

/* What makes two frames "equal": a run of the same task, a sleep with the same label function. */
static uintptr_t frame_key(const rsp_flame_view *v, const rsp_path_elem *e)
{
  if (e->kind == RSP_ELEM_RUN)
    return (uintptr_t)e->task + 1;
  if (e->kind == RSP_ELEM_SLEEP) {
    const rsp_sleep *s = rsp_model_sleep(v->model, e->id);
    const rsp_model_frame *f = s->stack != RSP_NO_ID ? rsp_model_stack_label(v->model, s->stack) : NULL;
    return f && f->function ? (uintptr_t)f->function : (uintptr_t)(unsigned char)s->state;
  }
  return 0;
}

static void paint_frame(cairo_t *cr, const rsp_flame_view *v, const rsp_path_elem *e, double x0, double x1, int y,
                        const rsp_style *style)
{
  int rh = style->row_height;
  rsp_rgb c = frame_colour(v, e, style);
  cairo_set_source_rgb(cr, c.r, c.g, c.b);
  cairo_rectangle(cr, x0, y + 1, x1 - x0, rh - 2);
  cairo_fill(cr);
  if (x1 - x0 > 40) {
    char buf[96];
    cairo_save(cr);
    cairo_rectangle(cr, x0 + 1, y, x1 - x0 - 2, rh);
    cairo_clip(cr);
    if (e->kind == RSP_ELEM_RUN)
      cairo_set_source_rgb(cr, 1, 1, 1);
    else
      cairo_set_source_rgb(cr, style->text.r, style->text.g, style->text.b);
    cairo_move_to(cr, (x0 > style->label_width ? x0 : style->label_width) + 2, y + rh - 3);
    cairo_show_text(cr, frame_label(v, e, buf, sizeof buf));
    cairo_restore(cr);
  }
}

static uint32_t first_reaching(const frame *f, uint32_t n, uint64_t t)
{
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (f[mid].max_end > t)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

void rsp_flame_view_draw(rsp_flame_view *v, cairo_t *cr, const rsp_viewport *vp, const rsp_style *style)
{
  cairo_save(cr);
  cairo_set_source_rgb(cr, style->background.r, style->background.g, style->background.b);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, style->font_size);
  int rh = style->row_height;
  g_array_set_size(v->segments, 0);
  for (uint32_t li = 0; li < v->n_lanes; li++) {
    const lane *l = &v->lanes[li];
    int y = style->ruler_height + l->row * rh - vp->scroll_y;
    if (y + rh <= style->ruler_height || y >= vp->height)
      continue;
    const frame *f = v->frames + l->first;
    double filled = -1; /* the last pixel column a narrow frame filled */
    const rsp_path_elem *pend = NULL; /* the frame being extended */
    uintptr_t pend_key = 0;
    double pend_x0 = 0, pend_x1 = 0;
    for (uint32_t i = first_reaching(f, l->n, vp->t0); i < l->n && f[i].start < vp->t1; i++) {
      if (f[i].end <= vp->t0)
        continue;
      double x0 = rsp_viewport_x(vp, style, f[i].start > vp->t0 ? f[i].start : vp->t0);
      double x1 = rsp_viewport_x(vp, style, f[i].end < vp->t1 ? f[i].end : vp->t1);
      x0 = floor(x0);
      x1 = ceil(x1);
      if (x1 - x0 <= 1) {
        if (x0 <= filled)
          continue;
        filled = x0;
        x1 = x0 + 1;
      }
      const rsp_path_elem *e = rsp_paths_elem(v->paths, f[i].elem);
      if (e->kind == RSP_ELEM_RUN && x1 - x0 > 1) {
        /* the links into this run from runs on the paths ("links still drawn") */
        uint32_t nl = 0;
        rsp_link_id first = rsp_model_run_links_in(v->model, e->id, &nl);
        for (uint32_t k = 0; k < nl; k++) {
          const rsp_link *lk = rsp_model_link(v->model, first + k);
          if (lk->from_run == RSP_NO_ID || v->run_row[lk->from_run] < 0)
            continue;
          float q[4] = { (float)rsp_viewport_x(vp, style, lk->time),
                         (float)(style->ruler_height + v->run_row[lk->from_run] * rh - vp->scroll_y + rh / 2.0),
                         (float)rsp_viewport_x(vp, style, rsp_model_run(v->model, e->id)->start),
                         (float)(y + rh / 2.0) };
          g_array_append_val(v->segments, q);
        }
      }
      /* adjacent equal frames are drawn as one unless a visible gap separates them */
      uintptr_t key = frame_key(v, e);
      if (pend && pend->kind == e->kind && pend_key == key && x0 <= pend_x1) {
        if (x1 > pend_x1)
          pend_x1 = x1;
        continue;
      }
      if (pend)
        paint_frame(cr, v, pend, pend_x0, pend_x1, y, style);
      pend = e;
      pend_key = key;
      pend_x0 = x0;
      pend_x1 = x1;
    }
    if (pend)
      paint_frame(cr, v, pend, pend_x0, pend_x1, y, style);
  }
  if (v->segments->len) {
    cairo_save(cr);
    cairo_rectangle(cr, style->label_width, style->ruler_height, vp->width - style->label_width, vp->height);
    cairo_clip(cr);
    for (guint i = 0; i < v->segments->len; i++) {
      const float *q = &g_array_index(v->segments, float, i * 4);
      cairo_move_to(cr, q[0], q[1]);
      cairo_line_to(cr, q[2], q[3]);
    }
    cairo_set_line_width(cr, 1.5);
    cairo_set_source_rgb(cr, style->link_wakeup.r, style->link_wakeup.g, style->link_wakeup.b);
    cairo_stroke(cr);
    cairo_restore(cr);
  }
  /* the name column: each path's band labelled in grey with its first element's process */
  cairo_set_source_rgb(cr, style->label_bg.r, style->label_bg.g, style->label_bg.b);
  cairo_rectangle(cr, 0, style->ruler_height, style->label_width, vp->height);
  cairo_fill(cr);
  uint32_t n_paths = rsp_paths_n_paths(v->paths);
  for (rsp_path_id p = 0; p < n_paths; p++) {
    const rsp_path *path = rsp_paths_path(v->paths, p);
    if (!path->n_elems)
      continue;
    int y = style->ruler_height + v->path_label_row[p] * rh - vp->scroll_y;
    if (y + rh <= style->ruler_height || y >= vp->height)
      continue;
    const rsp_path_elem *e = rsp_paths_elem(v->paths, rsp_paths_path_elem(v->paths, p, 0));
    const rsp_task *t = rsp_model_task(v->model, e->task);
    char buf[96];
    snprintf(buf, sizeof buf, "path %u: %s [%d]", p, t->comm, t->pid);
    cairo_set_source_rgb(cr, style->process_text.r, style->process_text.g, style->process_text.b);
    cairo_move_to(cr, 4, y + rh - 3);
    cairo_show_text(cr, buf);
  }
  rsp_time_ruler_draw(cr, vp, style, rsp_model_time_first(v->model));
  cairo_restore(cr);
}

bool rsp_flame_view_hit(const rsp_flame_view *v, const rsp_viewport *vp, const rsp_style *style, double x, double y,
                        rsp_elem_id *out)
{
  *out = RSP_NO_ID;
  if (x < style->label_width || y < style->ruler_height)
    return false;
  int row = (int)floor((y - style->ruler_height + vp->scroll_y) / style->row_height);
  uint64_t t = rsp_viewport_time(vp, style, x);
  for (uint32_t li = 0; li < v->n_lanes; li++) {
    const lane *l = &v->lanes[li];
    if (l->row != row)
      continue;
    const frame *f = v->frames + l->first;
    for (uint32_t i = first_reaching(f, l->n, t); i < l->n && f[i].start <= t; i++)
      if (f[i].end > t) {
        *out = f[i].elem;
        return true;
      }
  }
  return false;
}
