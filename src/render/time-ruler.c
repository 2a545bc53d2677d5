/* The time ruler: ticks at 1-2-5 steps with units, times relative to the recording's start. */
#include "render/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rsp_format_duration(uint64_t ns, char *buf, size_t size)
{
  if (ns >= 1000000000ull)
    snprintf(buf, size, "%.3f s", (double)ns / 1e9);
  else if (ns >= 1000000ull)
    snprintf(buf, size, "%.3f ms", (double)ns / 1e6);
  else if (ns >= 1000ull)
    snprintf(buf, size, "%.2f us", (double)ns / 1e3);
  else
    snprintf(buf, size, "%" G_GUINT64_FORMAT " ns", ns);
  return buf;
}

bool rsp_parse_duration(const char *text, uint64_t *ns)
{
  char *end;
  double v = g_ascii_strtod(text, &end);
  if (end == text || v < 0 || !isfinite(v))
    return false;
  while (*end == ' ')
    end++;
  double unit = 1e9;
  if (!strcmp(end, "ns"))
    unit = 1;
  else if (!strcmp(end, "us"))
    unit = 1e3;
  else if (!strcmp(end, "ms"))
    unit = 1e6;
  else if (!strcmp(end, "s") || !*end)
    unit = 1e9;
  else
    return false;
  *ns = (uint64_t)llround(v * unit);
  return true;
}

bool rsp_parse_range(const char *text, uint64_t *t0, uint64_t *t1)
{
  const char *colon = strchr(text, ':');
  if (!colon)
    return false;
  char *a = g_strndup(text, (gsize)(colon - text));
  uint64_t x, y;
  bool ok = rsp_parse_duration(a, &x) && rsp_parse_duration(colon + 1, &y) && y > x;
  g_free(a);
  if (ok) {
    *t0 = x;
    *t1 = y;
  }
  return ok;
}

/* A tick label for T (ns from the origin) at tick STEP, on a ruler whose last tick is at MAX: in the
 * step's unit unless the ruler's numbers would reach 5 digits, then in a larger one ("1061.5 ms" at
 * 500 us steps, not "1061500 us"), with as many decimals as the step needs. */
const char *rsp_format_tick(uint64_t t, uint64_t step, uint64_t max, char *buf, size_t size)
{
  static const char *const units[] = { "ns", "us", "ms", "s" };
  static const double divs[] = { 1, 1e3, 1e6, 1e9 };
  int u = step < 1000 ? 0 : step < 1000000 ? 1 : step < 1000000000 ? 2 : 3;
  uint64_t top = MAX(max, t);
  while (u < 3 && (double)top / divs[u] >= 10000)
    u++;
  int decimals = 0;
  for (double s = (double)(step ? step : 1) / divs[u]; fabs(s - round(s)) > 1e-6 * MAX(s, 1) && decimals < 9; s *= 10)
    decimals++;
  snprintf(buf, size, "%.*f %s", decimals, (double)t / divs[u], units[u]);
  return buf;
}

void rsp_time_ruler_draw(cairo_t *cr, const rsp_viewport *vp, const rsp_style *style, uint64_t origin)
{
  double h = style->ruler_height;
  cairo_save(cr);
  cairo_set_source_rgb(cr, style->ruler_bg.r, style->ruler_bg.g, style->ruler_bg.b);
  cairo_rectangle(cr, 0, 0, vp->width, h);
  cairo_fill(cr);

  /* ~1 labelled tick per 100 px */
  double plot = vp->width - style->label_width;
  if (plot < 10) {
    cairo_restore(cr);
    return;
  }
  double want = (double)(vp->t1 - vp->t0) * 100.0 / plot;
  double mag = pow(10, floor(log10(want > 1 ? want : 1)));
  double step = mag;
  if (step < want)
    step = 2 * mag;
  if (step < want)
    step = 5 * mag;
  if (step < want)
    step = 10 * mag;
  uint64_t ustep = step < 1 ? 1 : (uint64_t)step;
  uint64_t rel0 = vp->t0 > origin ? vp->t0 - origin : 0;
  uint64_t first = (rel0 / ustep) * ustep;

  cairo_set_font_size(cr, style->font_size);
  cairo_set_line_width(cr, 1);
  /* The ticks from FIRST to T1 counted up front, so that times near 2^64 (a stray timestamp) never
   * wrap a sum; at most more ticks than a screen holds. */
  uint64_t n_ticks = vp->t1 >= origin && vp->t1 - origin >= first ? (vp->t1 - origin - first) / ustep + 1 : 0;
  for (uint64_t k = 0; k < n_ticks && k < 10000; k++) {
    uint64_t rel = first + k * ustep; /* <= t1 - origin */
    double x = floor(rsp_viewport_x(vp, style, origin + rel)) + 0.5;
    if (x < style->label_width)
      continue;
    cairo_set_source_rgb(cr, style->ruler_text.r, style->ruler_text.g, style->ruler_text.b);
    cairo_move_to(cr, x, h - 6);
    cairo_line_to(cr, x, h);
    cairo_stroke(cr);
    char buf[48];
    rsp_format_tick(rel, ustep, vp->t1 > origin ? vp->t1 - origin : 0, buf, sizeof buf);
    cairo_move_to(cr, x + 2, h - 9);
    cairo_show_text(cr, buf);
    /* minor ticks */
    for (int i = 1; i < 5; i++) {
      uint64_t minor = ustep / 5 * (uint64_t)i;
      if (minor > UINT64_MAX - origin - rel)
        break;
      double mx = floor(rsp_viewport_x(vp, style, origin + rel + minor)) + 0.5;
      if (mx < style->label_width)
        continue;
      cairo_move_to(cr, mx, h - 3);
      cairo_line_to(cr, mx, h);
      cairo_stroke(cr);
    }
  }
  cairo_set_source_rgb(cr, style->label_bg.r, style->label_bg.g, style->label_bg.b);
  cairo_rectangle(cr, 0, 0, style->label_width, h);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, style->ruler_text.r, style->ruler_text.g, style->ruler_text.b);
  char span[48], label[64];
  rsp_format_duration(vp->t1 - vp->t0, span, sizeof span);
  snprintf(label, sizeof label, "span %s", span);
  cairo_move_to(cr, 4, h - 9);
  cairo_show_text(cr, label);
  cairo_restore(cr);
}
