/* Time <-> pixel mapping of the views, zoom and pan. The name column takes the left
 * style->label_width pixels; time runs over the rest. */
#include "render/render.h"

#include <math.h>

static double plot_width(const rsp_viewport *vp, const rsp_style *style)
{
  double w = vp->width - style->label_width;
  return w < 1 ? 1 : w;
}

double rsp_viewport_x(const rsp_viewport *vp, const rsp_style *style, uint64_t t)
{
  double span = (double)(vp->t1 - vp->t0);
  return style->label_width + ((double)t - (double)vp->t0) * plot_width(vp, style) / span;
}

uint64_t rsp_viewport_time(const rsp_viewport *vp, const rsp_style *style, double x)
{
  double span = (double)(vp->t1 - vp->t0);
  double t = (double)vp->t0 + (x - style->label_width) * span / plot_width(vp, style);
  if (t < 0)
    return 0;
  return (uint64_t)t;
}

static void clamp(rsp_viewport *vp, uint64_t lo, uint64_t hi)
{
  uint64_t span = vp->t1 - vp->t0;
  if (hi > lo && span > hi - lo) {
    vp->t0 = lo;
    vp->t1 = hi;
    return;
  }
  if (vp->t0 < lo) {
    vp->t0 = lo;
    vp->t1 = lo + span;
  }
  if (vp->t1 > hi && hi > lo) {
    vp->t1 = hi;
    vp->t0 = hi - span;
  }
}

void rsp_viewport_zoom(rsp_viewport *vp, const rsp_style *style, double factor, double x, uint64_t lo,
                       uint64_t hi)
{
  if (x < style->label_width)
    x = style->label_width;
  double at = (double)rsp_viewport_time(vp, style, x);
  double span = (double)(vp->t1 - vp->t0) * factor;
  if (span < 1000)
    span = 1000;
  double frac = (x - style->label_width) / plot_width(vp, style);
  double t0 = at - frac * span;
  if (t0 < 0)
    t0 = 0;
  vp->t0 = (uint64_t)t0;
  vp->t1 = vp->t0 + (uint64_t)span;
  clamp(vp, lo, hi);
}

void rsp_viewport_pan(rsp_viewport *vp, const rsp_style *style, double dx, uint64_t lo, uint64_t hi)
{
  double dt = dx * (double)(vp->t1 - vp->t0) / plot_width(vp, style);
  uint64_t span = vp->t1 - vp->t0;
  double t0 = (double)vp->t0 + dt;
  if (t0 < (double)lo)
    t0 = (double)lo;
  vp->t0 = (uint64_t)t0;
  vp->t1 = vp->t0 + span;
  clamp(vp, lo, hi);
}
