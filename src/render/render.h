/* rsp render: analysis + viewport -> cairo drawing, one file per view. Used by the app, by --export
 * and by the pixel tests; nothing here knows about GTK.
 *
 * The one public header of src/render/. */
#pragma once

#include "analysis/analysis.h"

#include <cairo.h>

G_BEGIN_DECLS

/* ---- Histograms (issue 7) --------------------------------------------------------------------
 * A latency profile as OSprof draws it: log2 buckets along x (labelled in time units), a log y
 * axis, each bar stacked by the causes of its instances, the peaks labelled, and the
 * characteristic times of the recording as vertical markers. */
typedef struct rsp_histogram_style {
  double font_size;        /* 0: 10 */
  bool linear_y;           /* a linear y axis instead of log10(1 + count) */
} rsp_histogram_style;

/* The plot area inside WIDTH x HEIGHT (axes and labels outside it). */
void rsp_histogram_view_plot_area(double width, double height, const rsp_histogram_style *style, double *x,
                                  double *y, double *w, double *h);
/* Draws P into the rectangle (0, 0, WIDTH, HEIGHT) of CR. TIMES may be NULL. STYLE NULL: defaults. */
void rsp_histogram_view_draw(cairo_t *cr, double width, double height, const rsp_profile *p,
                             const rsp_characteristic_times *times, const rsp_histogram_style *style);
/* The bucket index drawn at X (for clicks), or INT32_MIN outside the bars. */
int32_t rsp_histogram_view_bucket_at(const rsp_profile *p, double width, double height,
                                     const rsp_histogram_style *style, double x);
/* The colour of a cause (stable, shared with the legend). */
void rsp_histogram_cause_color(rsp_category cat, double *r, double *g, double *b);

/* Time-sampled profile as a heat map: time down, buckets across, darker for more instances (log). */
void rsp_heat_map_draw(cairo_t *cr, double width, double height, const rsp_profile_timeline *t,
                       unsigned resolution, const rsp_histogram_style *style);

G_END_DECLS
