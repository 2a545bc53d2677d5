/* A latency profile drawn as OSprof draws it (reference/osprof-latency-analysis.txt, figure 1), bars
 * stacked by cause. The time-sampled profile's heat map (figure 9) is heatmap-view.c. */
#include "render/render-private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { MARGIN_LEFT = 48, MARGIN_RIGHT = 12, MARGIN_TOP = 28, MARGIN_BOTTOM = 34 };

double rsp_histogram_font_size(const rsp_histogram_style *s)
{
  return s && s->font_size > 0 ? s->font_size : 10;
}

void rsp_histogram_begin(cairo_t *cr, double width, double height, double font_size)
{
  cairo_save(cr);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_rectangle(cr, 0, 0, width, height);
  cairo_fill(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, font_size);
}

void rsp_histogram_view_plot_area(double width, double height, const rsp_histogram_style *style, double *x,
                                  double *y, double *w, double *h)
{
  double f = rsp_histogram_font_size(style) / 10;
  *x = MARGIN_LEFT * f;
  *y = MARGIN_TOP * f;
  *w = MAX(width - (MARGIN_LEFT + MARGIN_RIGHT) * f, 1);
  *h = MAX(height - (MARGIN_TOP + MARGIN_BOTTOM) * f, 1);
}

void rsp_histogram_cause_color(rsp_category cat, double *r, double *g, double *b)
{
  /* the summary's categories: running in greens, I/O in blues, waiting in warm colours */
  static const double colors[RSP_N_CATEGORIES][3] = {
    [RSP_CAT_UNDERSTOOD] = { 0.20, 0.63, 0.17 },  [RSP_CAT_BLOCKING_IO] = { 0.12, 0.47, 0.71 },
    [RSP_CAT_UNSAMPLED] = { 0.70, 0.87, 0.54 },   [RSP_CAT_IO_QUEUE] = { 0.65, 0.81, 0.89 },
    [RSP_CAT_SCHEDULER] = { 0.99, 0.75, 0.44 },   [RSP_CAT_HARDWARE] = { 0.42, 0.24, 0.60 },
    [RSP_CAT_INVOLUNTARY] = { 1.00, 0.50, 0.00 }, [RSP_CAT_MISC_KERNEL] = { 0.60, 0.60, 0.60 },
    [RSP_CAT_TIMED_OUT] = { 0.79, 0.70, 0.84 },   [RSP_CAT_OTHER_PATH] = { 0.89, 0.10, 0.11 },
    [RSP_CAT_NETWORK] = { 0.00, 0.55, 0.55 },     [RSP_CAT_UNACCOUNTED] = { 0.30, 0.30, 0.30 },
    [RSP_CAT_PREEMPTED_BY_PATH] = { 1.00, 0.60, 0.20 }, [RSP_CAT_CONTENTION] = { 0.55, 0.27, 0.07 },
    [RSP_CAT_UNKNOWN_STACK] = { 0.45, 0.55, 0.40 },
  };
  unsigned c = (unsigned)cat < RSP_N_CATEGORIES ? (unsigned)cat : RSP_CAT_UNACCOUNTED;
  *r = colors[c][0];
  *g = colors[c][1];
  *b = colors[c][2];
}

static double y_of(uint64_t count, uint64_t max, double h, const rsp_histogram_style *s)
{
  if (max == 0)
    return 0;
  if (s && s->linear_y)
    return h * (double)count / (double)max;
  return h * log10(1 + (double)count) / log10(1 + (double)max);
}

int32_t rsp_histogram_view_bucket_at(const rsp_profile *p, double width, double height,
                                     const rsp_histogram_style *style, double x)
{
  double px, py, pw, ph;
  rsp_histogram_view_plot_area(width, height, style, &px, &py, &pw, &ph);
  if (p->n_buckets == 0 || x < px || x >= px + pw)
    return INT32_MIN;
  return p->min_index + (int32_t)((x - px) / (pw / p->n_buckets));
}

/* X of latency NS on the bucket axis (inside its bucket, by log position). */
static double x_of_ns(const rsp_profile *p, uint64_t ns, double px, double bw)
{
  int32_t b = rsp_profile_bucket_of(ns, p->resolution);
  double lo = (double)rsp_profile_bucket_lo(b, p->resolution), hi = (double)rsp_profile_bucket_lo(b + 1, p->resolution);
  double frac = hi > lo && lo > 0 ? log((double)ns / lo) / log(hi / lo) : 0;
  return px + ((double)(b - p->min_index) + frac) * bw;
}

void rsp_histogram_view_draw(cairo_t *cr, double width, double height, const rsp_profile *p,
                             const rsp_characteristic_times *times, const rsp_histogram_style *style)
{
  double px, py, pw, ph, fs = rsp_histogram_font_size(style);
  rsp_histogram_view_plot_area(width, height, style, &px, &py, &pw, &ph);
  rsp_histogram_begin(cr, width, height, fs);

  uint64_t max = 0;
  for (uint32_t i = 0; i < p->n_buckets; i++)
    max = MAX(max, p->buckets[i].count);
  double bw = p->n_buckets ? pw / p->n_buckets : pw;

  /* bars, stacked by cause in the categories' order */
  for (uint32_t i = 0; i < p->n_buckets; i++) {
    const rsp_profile_bucket *b = &p->buckets[i];
    if (!b->count)
      continue;
    double total_h = y_of(b->count, max, ph, style), y = py + ph;
    for (int c = 0; c < RSP_N_CATEGORIES; c++) {
      if (!b->causes[c])
        continue;
      double seg = total_h * (double)b->causes[c] / (double)b->count, r, g, bl;
      rsp_histogram_cause_color((rsp_category)c, &r, &g, &bl);
      cairo_set_source_rgb(cr, r, g, bl);
      cairo_rectangle(cr, px + i * bw + 1, y - seg, MAX(bw - 2, 1), seg);
      cairo_fill(cr);
      y -= seg;
    }
  }

  /* axes */
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_move_to(cr, px - 0.5, py);
  cairo_line_to(cr, px - 0.5, py + ph + 0.5);
  cairo_line_to(cr, px + pw, py + ph + 0.5);
  cairo_stroke(cr);
  /* x labels: the lower bound of every k-th bucket, as many as fit */
  cairo_text_extents_t ext;
  cairo_text_extents(cr, "000 us", &ext);
  uint32_t every = MAX(1, (uint32_t)ceil((ext.width + fs) / MAX(bw, 1)));
  for (uint32_t i = 0; i < p->n_buckets; i += every) {
    char label[32];
    rsp_profile_format_ns(p->buckets[i].lo_ns, label, sizeof label);
    cairo_text_extents(cr, label, &ext);
    cairo_move_to(cr, px + i * bw, py + ph + 1.3 * fs);
    cairo_show_text(cr, label);
  }
  /* y labels: powers of ten */
  for (uint64_t v = 1; max && v <= max; v *= 10) {
    char label[32];
    snprintf(label, sizeof label, "%" G_GUINT64_FORMAT, v);
    cairo_text_extents(cr, label, &ext);
    double y = py + ph - y_of(v, max, ph, style);
    cairo_move_to(cr, px - ext.width - 4, y + ext.height / 2);
    cairo_show_text(cr, label);
    if (style && style->linear_y)
      break;
  }
  /* characteristic times: dashed verticals with their names */
  if (times && p->n_buckets) {
    const struct { uint64_t ns; const char *name; } marks[] = {
      { times->context_switch_ns, "context switch" }, { times->timer_tick_ns, "tick" },
      { times->slice_ns, "slice" }, { times->disk_service_ns, "disk" }, { times->loopback_rtt_ns, "loopback" },
    };
    double dash = 3;
    cairo_set_dash(cr, &dash, 1, 0);
    for (size_t k = 0; k < G_N_ELEMENTS(marks); k++) {
      if (!marks[k].ns)
        continue;
      double x = x_of_ns(p, marks[k].ns, px, bw);
      if (x < px || x > px + pw)
        continue;
      cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
      cairo_move_to(cr, floor(x) + 0.5, py);
      cairo_line_to(cr, floor(x) + 0.5, py + ph);
      cairo_stroke(cr);
      cairo_text_extents(cr, marks[k].name, &ext);
      double ty = py + fs * (1.2 * (double)k + 1);
      cairo_set_source_rgba(cr, 1, 1, 1, 0.85); /* readable over the bars */
      cairo_rectangle(cr, x + 1, ty - fs, ext.x_advance + 2, fs * 1.2);
      cairo_fill(cr);
      cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
      cairo_move_to(cr, x + 2, ty);
      cairo_show_text(cr, marks[k].name);
    }
    cairo_set_dash(cr, NULL, 0, 0);
  }
  /* peaks: average latency and dominant cause above each; the largest peaks placed first, a label
   * that would cover one already placed moves up a line (twice at most) or is left out, with a
   * white backing so it stays readable over the taller bars beside it */
  uint32_t order[64], n_order = MIN(p->n_peaks, 64);
  for (uint32_t k = 0; k < n_order; k++)
    order[k] = k;
  for (uint32_t a = 1; a < n_order; a++) /* insertion sort by count, largest first */
    for (uint32_t b = a; b > 0 && p->peaks[order[b]].count > p->peaks[order[b - 1]].count; b--) {
      uint32_t t = order[b];
      order[b] = order[b - 1];
      order[b - 1] = t;
    }
  double placed[64][4];
  uint32_t n_placed = 0;
  for (uint32_t o = 0; o < n_order; o++) {
    const rsp_profile_peak *pk = &p->peaks[order[o]];
    char avg[32], label[96];
    snprintf(label, sizeof label, "%s %s", rsp_profile_format_ns(pk->avg_ns, avg, sizeof avg),
             rsp_profile_cause_key((rsp_category)pk->cause));
    uint32_t i = (uint32_t)(pk->index - p->min_index);
    double top = py + ph - y_of(p->buckets[i].count, max, ph, style);
    cairo_text_extents(cr, label, &ext);
    double x = CLAMP(px + (i + 0.5) * bw - ext.x_advance / 2, px + 2, MAX(width - ext.x_advance - 2, px + 2));
    double base = MAX(top - 4, 2.2 * fs);
    bool ok = false;
    for (int tries = 0; tries < 3 && !ok; tries++, base -= 1.2 * fs) {
      if (base < fs)
        break;
      double box[4] = { x - 1, base - fs, x + ext.x_advance + 1, base + 0.3 * fs };
      ok = true;
      for (uint32_t k = 0; k < n_placed && ok; k++)
        ok = box[2] < placed[k][0] || box[0] > placed[k][2] || box[3] < placed[k][1] || box[1] > placed[k][3];
      if (ok) {
        memcpy(placed[n_placed++], box, sizeof box);
        cairo_set_source_rgba(cr, 1, 1, 1, 0.8);
        cairo_rectangle(cr, box[0], box[1], box[2] - box[0], box[3] - box[1]);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_move_to(cr, x, base);
        cairo_show_text(cr, label);
      }
    }
  }
  /* legend: the causes present, right-aligned in the top margin */
  uint64_t present[RSP_N_CATEGORIES] = { 0 };
  for (uint32_t i = 0; i < p->n_buckets; i++)
    for (int c = 0; c < RSP_N_CATEGORIES; c++)
      present[c] += p->buckets[i].causes[c];
  double lx = width - 4;
  for (int c = RSP_N_CATEGORIES - 1; c >= 0; c--) {
    if (!present[c])
      continue;
    const char *key = rsp_profile_cause_key((rsp_category)c);
    cairo_text_extents(cr, key, &ext);
    lx -= ext.x_advance;
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_move_to(cr, lx, fs * 1.2);
    cairo_show_text(cr, key);
    double r, g, b;
    rsp_histogram_cause_color((rsp_category)c, &r, &g, &b);
    cairo_set_source_rgb(cr, r, g, b);
    cairo_rectangle(cr, lx - fs - 2, fs * 0.3, fs, fs);
    cairo_fill(cr);
    lx -= 2 * fs + 6;
  }
  cairo_restore(cr);
}
