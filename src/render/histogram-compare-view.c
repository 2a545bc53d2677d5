/* Two latency profiles of one class overlaid (OSprof 3.2: the profiles of two runs compared
 * bucket by bucket): one log2 axis over both, in each bucket A's bar on the left half and B's on
 * the right, each profile's peaks marked with a triangle of its colour, and a legend with their
 * counts and total latencies. */
#include "render/render-private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const rsp_rgb color_a = { 0.20, 0.40, 0.80 }, color_b = { 0.90, 0.45, 0.05 };

void rsp_histogram_compare_colors(rsp_rgb *a, rsp_rgb *b)
{
  *a = color_a;
  *b = color_b;
}

/* The bucket range covering both (either may be NULL or empty); false when both are empty. */
static bool range_of(const rsp_profile *a, const rsp_profile *b, int32_t *lo, int32_t *hi)
{
  bool any = false;
  const rsp_profile *ps[2] = { a, b };
  for (int k = 0; k < 2; k++) {
    if (!ps[k] || !ps[k]->n_buckets)
      continue;
    int32_t l = ps[k]->min_index, h = ps[k]->min_index + (int32_t)ps[k]->n_buckets - 1;
    *lo = any ? MIN(*lo, l) : l;
    *hi = any ? MAX(*hi, h) : h;
    any = true;
  }
  return any;
}

static uint64_t count_at(const rsp_profile *p, int32_t index)
{
  if (!p || index < p->min_index || index >= p->min_index + (int32_t)p->n_buckets)
    return 0;
  return p->buckets[index - p->min_index].count;
}

/* Bar height in 0..1: log10(1 + count) over the largest, or the share of the profile's count. */
static double height_of(const rsp_profile *p, int32_t index, double max_log, double max_share, bool normalized)
{
  uint64_t c = count_at(p, index);
  if (!c)
    return 0;
  if (normalized)
    return max_share > 0 ? ((double)c / (double)p->count) / max_share : 0;
  return max_log > 0 ? log10(1 + (double)c) / max_log : 0;
}

int32_t rsp_histogram_compare_bucket_at(const rsp_profile *a, const rsp_profile *b, double width, double height,
                                        const rsp_histogram_style *style, double x)
{
  int32_t lo, hi;
  if (!range_of(a, b, &lo, &hi))
    return INT32_MIN;
  double px, py, pw, ph;
  rsp_histogram_view_plot_area(width, height, style, &px, &py, &pw, &ph);
  if (x < px || x >= px + pw)
    return INT32_MIN;
  return lo + (int32_t)((x - px) / (pw / (hi - lo + 1)));
}

static void set_rgb(cairo_t *cr, rsp_rgb c)
{
  cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

void rsp_histogram_compare_draw(cairo_t *cr, double width, double height, const rsp_profile *a,
                                const rsp_profile *b, const char *label_a, const char *label_b, bool normalized,
                                const rsp_histogram_style *style)
{
  double px, py, pw, ph, fs = rsp_histogram_font_size(style);
  rsp_histogram_view_plot_area(width, height, style, &px, &py, &pw, &ph);
  /* the bars stop 2 lines below the plot's top: room for the peaks' marks and labels */
  double head = MIN(2 * fs, ph / 3);
  double top_y = py + head;
  rsp_histogram_begin(cr, width, height, fs);
  cairo_text_extents_t ext;
  py = top_y;
  ph -= head;
  int32_t lo = 0, hi = -1;
  bool any = range_of(a, b, &lo, &hi);
  unsigned resolution = a ? a->resolution : b ? b->resolution : 1;
  uint32_t n = any ? (uint32_t)(hi - lo + 1) : 0;
  double bw = n ? pw / n : pw;
  uint64_t max = 0;
  double max_share = 0;
  const rsp_profile *ps[2] = { a, b };
  for (int k = 0; k < 2; k++)
    for (uint32_t i = 0; ps[k] && i < ps[k]->n_buckets; i++) {
      max = MAX(max, ps[k]->buckets[i].count);
      if (ps[k]->count)
        max_share = MAX(max_share, (double)ps[k]->buckets[i].count / (double)ps[k]->count);
    }
  double max_log = log10(1 + (double)max);
  /* bars: A on the left half of its bucket, B on the right */
  cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
  for (uint32_t i = 0; i < n; i++)
    for (int k = 0; k < 2; k++) {
      double f = height_of(ps[k], lo + (int32_t)i, max_log, max_share, normalized);
      if (f <= 0)
        continue;
      double half = bw / 2, x0 = round(px + i * bw + k * half + (k ? 0 : 1)), x1 = round(px + i * bw + (k + 1) * half - (k ? 1 : 0));
      double h = MAX(round(f * ph), 1);
      set_rgb(cr, k ? color_b : color_a);
      cairo_rectangle(cr, x0, round(py + ph) - h, MAX(x1 - x0, 1), h);
      cairo_fill(cr);
    }
  cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
  /* axes */
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_move_to(cr, px - 0.5, py);
  cairo_line_to(cr, px - 0.5, py + ph + 0.5);
  cairo_line_to(cr, px + pw, py + ph + 0.5);
  cairo_stroke(cr);
  cairo_text_extents(cr, "000 us", &ext);
  uint32_t every = MAX(1, (uint32_t)ceil((ext.width + fs) / MAX(bw, 1)));
  for (uint32_t i = 0; i < n; i += every) {
    char label[32];
    rsp_profile_format_ns(rsp_profile_bucket_lo(lo + (int32_t)i, resolution), label, sizeof label);
    cairo_move_to(cr, px + i * bw, py + ph + 1.3 * fs);
    cairo_show_text(cr, label);
  }
  if (normalized) {
    for (int pct = 0; pct <= 100; pct += 25) {
      double v = pct / 100.0 * max_share;
      char label[16];
      snprintf(label, sizeof label, "%.0f%%", v * 100);
      cairo_text_extents(cr, label, &ext);
      cairo_move_to(cr, px - ext.width - 4, py + ph - pct / 100.0 * ph + ext.height / 2);
      cairo_show_text(cr, label);
    }
  } else {
    for (uint64_t v = 1; max && v <= max; v *= 10) {
      char label[32];
      snprintf(label, sizeof label, "%" G_GUINT64_FORMAT, v);
      cairo_text_extents(cr, label, &ext);
      cairo_move_to(cr, px - ext.width - 4, py + ph - log10(1 + (double)v) / max_log * ph + ext.height / 2);
      cairo_show_text(cr, label);
    }
  }
  /* peaks: a triangle of the profile's colour above the peak's bar, and its mean latency */
  for (int k = 0; k < 2; k++) {
    const rsp_profile *p = ps[k];
    for (uint32_t j = 0; p && j < p->n_peaks; j++) {
      const rsp_profile_peak *pk = &p->peaks[j];
      uint32_t i = (uint32_t)(pk->index - lo);
      double f = height_of(p, pk->index, max_log, max_share, normalized);
      double cx = px + i * bw + (k + 0.5) * bw / 2, top = py + ph - f * ph - 3;
      set_rgb(cr, k ? color_b : color_a);
      cairo_move_to(cr, cx, top);
      cairo_line_to(cr, cx - 4, top - 6);
      cairo_line_to(cr, cx + 4, top - 6);
      cairo_close_path(cr);
      cairo_fill(cr);
      char avg[32];
      rsp_profile_format_ns(pk->avg_ns, avg, sizeof avg);
      cairo_text_extents(cr, avg, &ext);
      cairo_move_to(cr, CLAMP(cx - ext.width / 2, px + 2, MAX(width - ext.width - 2, px + 2)), top - 8);
      cairo_show_text(cr, avg);
    }
  }
  /* legend: A and B with their counts and totals, left of the top margin */
  double lx = px;
  for (int k = 0; k < 2; k++) {
    const rsp_profile *p = ps[k];
    char total[32];
    g_autofree char *text =
        p ? g_strdup_printf("%s: %" G_GUINT64_FORMAT " ops, %s", k ? (label_b ? label_b : "B") : (label_a ? label_a : "A"),
                            p->count, rsp_profile_format_ns(p->total_ns, total, sizeof total))
          : g_strdup_printf("%s: none", k ? (label_b ? label_b : "B") : (label_a ? label_a : "A"));
    set_rgb(cr, k ? color_b : color_a);
    cairo_rectangle(cr, lx, fs * 0.3, fs, fs);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_move_to(cr, lx + fs + 4, fs * 1.2);
    cairo_show_text(cr, text);
    cairo_text_extents(cr, text, &ext);
    lx += fs + 4 + ext.x_advance + 2 * fs;
  }
  if (!any) {
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_move_to(cr, px + 4, py + 2 * fs);
    cairo_show_text(cr, "no instances");
  }
  cairo_restore(cr);
}

void rsp_profile_diff_table_draw(cairo_t *cr, double width, double height, const rsp_profile_diff *diff,
                                 uint32_t first, int32_t selected, const rsp_histogram_style *style)
{
  double fs = rsp_histogram_font_size(style), lh = fs * 1.5;
  /* columns: rank, distance, class, process, A, B, why (the rest of the width) */
  static const double col[] = { 4, 44, 110, 380, 510, 640, 770 };
  static const char *const head[] = { "rank", "distance", "class", "process", "A ops / total", "B ops / total",
                                      "why" };
  cairo_save(cr);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_rectangle(cr, 0, 0, width, height);
  cairo_fill(cr);
  cairo_rectangle(cr, 0, 0, width, height);
  cairo_clip(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size(cr, fs);
  cairo_set_source_rgb(cr, 0, 0, 0);
  double scale = width < 1000 ? width / 1000 : 1;
  for (size_t c = 0; c < G_N_ELEMENTS(head); c++) {
    cairo_move_to(cr, col[c] * scale, lh - fs * 0.4);
    cairo_show_text(cr, head[c]);
  }
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  double y = lh;
  for (uint32_t i = first; diff && i < diff->n_pairs && y + lh <= height; i++, y += lh) {
    const rsp_profile_pair *p = &diff->pairs[i];
    const rsp_profile *any = p->a ? p->a : p->b;
    if ((int32_t)i == selected) {
      cairo_set_source_rgb(cr, 0.85, 0.90, 1.0);
      cairo_rectangle(cr, 0, y, width, lh);
      cairo_fill(cr);
    }
    char cells[7][160];
    snprintf(cells[0], sizeof cells[0], "%u", i + 1);
    if (isinf(p->distance))
      snprintf(cells[1], sizeof cells[1], "inf");
    else
      snprintf(cells[1], sizeof cells[1], "%.3f", p->distance);
    snprintf(cells[2], sizeof cells[2], "%s", any->name);
    snprintf(cells[3], sizeof cells[3], "%s", strcmp(any->process, "*") ? any->process : "system-wide");
    rsp_profile_format_ops_total(p->a, "-", cells[4], sizeof cells[4]);
    rsp_profile_format_ops_total(p->b, "-", cells[5], sizeof cells[5]);
    snprintf(cells[6], sizeof cells[6], "%s", p->reason ? p->reason : "");
    cairo_set_source_rgb(cr, 0, 0, 0);
    for (int c = 0; c < 7; c++) {
      double x0 = col[c] * scale, x1 = c + 1 < 7 ? col[c + 1] * scale - 4 : width;
      cairo_save(cr);
      cairo_rectangle(cr, x0, y, x1 - x0, lh);
      cairo_clip(cr);
      cairo_move_to(cr, x0, y + lh - fs * 0.4);
      cairo_show_text(cr, cells[c]);
      cairo_restore(cr);
    }
  }
  if (!diff || !diff->n_pairs) {
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_move_to(cr, 4, 2 * lh);
    cairo_show_text(cr, "no pair of profiles differs enough to rank");
  }
  cairo_restore(cr);
}
