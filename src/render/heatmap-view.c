/* A time-sampled latency profile (OSprof, reference/osprof-latency-analysis.txt section 3.3 and
 * figure 9) as a heat map: one row per time slice (time runs down), one column per log2 bucket
 * (the histogram's x axis), each cell shaded by how many instances of that bucket began in that
 * slice, on a log scale so that a slice with a handful of slow operations still shows beside one
 * with thousands of fast ones. */
#include "render/render-private.h"

#include <math.h>
#include <stdio.h>

void rsp_heat_map_color(uint64_t count, uint64_t max, double *r, double *g, double *b)
{
  if (!count || !max) {
    *r = *g = *b = 1;
    return;
  }
  /* 0 < v <= 1; even one instance is visibly tinted (v >= log 2 / log(1 + max) > 0) */
  double v = log1p((double)count) / log1p((double)max);
  if (v > 1)
    v = 1;
  *r = 1 - 0.9 * v;
  *g = 1 - 0.75 * v;
  *b = 1 - 0.4 * v;
}

bool rsp_heat_map_cell_at(const rsp_profile_timeline *t, double width, double height,
                          const rsp_histogram_style *style, double x, double y, uint32_t *slice, int32_t *bucket)
{
  double px, py, pw, ph;
  rsp_histogram_view_plot_area(width, height, style, &px, &py, &pw, &ph);
  if (!t || !t->n_buckets || !t->n_slices || x < px || x >= px + pw || y < py || y >= py + ph)
    return false;
  uint32_t b = (uint32_t)((x - px) / (pw / t->n_buckets)), s = (uint32_t)((y - py) / (ph / t->n_slices));
  *bucket = t->min_index + (int32_t)MIN(b, t->n_buckets - 1);
  *slice = MIN(s, t->n_slices - 1);
  return true;
}

/* The time of a slice's start, relative to the timeline's start, in a unit that suits the slice. */
static void slice_label(const rsp_profile_timeline *t, uint32_t s, char *buf, size_t size)
{
  double at = (double)s * (double)t->slice_ns;
  if (t->slice_ns >= 100000000)
    snprintf(buf, size, "%.4g s", at / 1e9);
  else if (t->slice_ns >= 100000)
    snprintf(buf, size, "%.4g ms", at / 1e6);
  else
    snprintf(buf, size, "%.4g us", at / 1e3);
}

void rsp_heat_map_draw(cairo_t *cr, double width, double height, const rsp_profile_timeline *t,
                       unsigned resolution, const rsp_histogram_style *style)
{
  double px, py, pw, ph, fs = rsp_histogram_font_size(style);
  rsp_histogram_view_plot_area(width, height, style, &px, &py, &pw, &ph);
  rsp_histogram_begin(cr, width, height, fs);
  cairo_text_extents_t ext;
  if (t && t->n_buckets && t->n_slices) {
    double cw = pw / t->n_buckets, chh = ph / t->n_slices;
    /* cells: edges rounded to whole pixels so neighbours neither overlap nor leave seams */
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    for (uint32_t s = 0; s < t->n_slices; s++) {
      double y0 = round(py + s * chh), y1 = round(py + (s + 1) * chh);
      for (uint32_t b = 0; b < t->n_buckets; b++) {
        uint64_t c = t->counts[(size_t)s * t->n_buckets + b];
        if (!c)
          continue;
        double r, g, bl, x0 = round(px + b * cw), x1 = round(px + (b + 1) * cw);
        rsp_heat_map_color(c, t->max_count, &r, &g, &bl);
        cairo_set_source_rgb(cr, r, g, bl);
        cairo_rectangle(cr, x0, y0, MAX(x1 - x0, 1), MAX(y1 - y0, 1));
        cairo_fill(cr);
      }
    }
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
    /* x: the buckets' lower bounds, as many as fit */
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_text_extents(cr, "000 us", &ext);
    uint32_t every = MAX(1, (uint32_t)ceil((ext.width + fs) / MAX(cw, 1)));
    for (uint32_t b = 0; b < t->n_buckets; b += every) {
      char label[32];
      rsp_profile_format_ns(rsp_profile_bucket_lo(t->min_index + (int32_t)b, resolution), label, sizeof label);
      cairo_move_to(cr, px + b * cw, py + ph + 1.3 * fs);
      cairo_show_text(cr, label);
    }
    /* y: the slices' start times, as many as fit */
    uint32_t every_row = MAX(1, (uint32_t)ceil(1.5 * fs / MAX(chh, 1)));
    for (uint32_t s = 0; s < t->n_slices; s += every_row) {
      char label[32];
      slice_label(t, s, label, sizeof label);
      cairo_text_extents(cr, label, &ext);
      cairo_move_to(cr, MAX(px - ext.width - 4, 1), py + s * chh + MIN(chh, 1.5 * fs) / 2 + ext.height / 2);
      cairo_show_text(cr, label);
    }
    /* the scale: white to the darkest cell, right-aligned in the top margin */
    char hi[32], slice[32];
    snprintf(hi, sizeof hi, "%" G_GUINT64_FORMAT, t->max_count);
    rsp_profile_format_ns(t->slice_ns, slice, sizeof slice);
    g_autofree char *head = g_strdup_printf("%s slices; instances per cell: 1", slice);
    double bar_w = 80, x = width - 4;
    cairo_text_extents(cr, hi, &ext);
    x -= ext.x_advance;
    cairo_move_to(cr, x, fs * 1.3);
    cairo_show_text(cr, hi);
    x -= bar_w + 4;
    for (int i = 0; i < 40; i++) {
      double r, g, bl;
      uint64_t c = (uint64_t)llround(exp(log1p((double)t->max_count) * (i + 1) / 40.0) - 1);
      rsp_heat_map_color(MAX(c, 1), t->max_count, &r, &g, &bl);
      cairo_set_source_rgb(cr, r, g, bl);
      cairo_rectangle(cr, x + i * bar_w / 40, fs * 0.3, bar_w / 40 + 0.5, fs * 1.1);
      cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_text_extents(cr, head, &ext);
    cairo_move_to(cr, x - ext.x_advance - 4, fs * 1.3);
    cairo_show_text(cr, head);
  } else {
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_move_to(cr, px + 4, py + 2 * fs);
    cairo_show_text(cr, "no instances");
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, px - 0.5, py - 0.5, pw + 1, ph + 1);
  cairo_stroke(cr);
  cairo_restore(cr);
}
