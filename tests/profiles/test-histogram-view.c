/* The histogram and heat-map drawing, checked by pixels: where each bar must stand and how tall,
 * worked out here from the plot area and the counts. */
#include "render/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;

#define CHECK(cond)                                                                           \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
      failures++;                                                                             \
    }                                                                                         \
  } while (0)

static bool is_white(cairo_surface_t *s, int x, int y)
{
  const unsigned char *d = cairo_image_surface_get_data(s);
  uint32_t px = *(const uint32_t *)(const void *)(d + y * cairo_image_surface_get_stride(s) + x * 4);
  return (px & 0xffffff) == 0xffffff;
}

static uint32_t pixel(cairo_surface_t *s, int x, int y)
{
  const unsigned char *d = cairo_image_surface_get_data(s);
  return *(const uint32_t *)(const void *)(d + y * cairo_image_surface_get_stride(s) + x * 4) & 0xffffff;
}

/* The topmost row of column X from Y0 down to Y1 where the colour COLOR starts a run down to Y1
 * (the bar, not the peak label above it), or -1. */
static int top_of(cairo_surface_t *s, int x, int y0, int y1, uint32_t color)
{
  int top = -1;
  for (int y = y1; y >= y0 && pixel(s, x, y) == color; y--)
    top = y;
  return top;
}

static bool near_color(uint32_t a, uint32_t b)
{
  for (int sh = 0; sh < 24; sh += 8)
    if (abs((int)((a >> sh) & 0xff) - (int)((b >> sh) & 0xff)) > 1)
      return false;
  return true;
}

int main(void)
{
  enum { W = 400, H = 240 };
  /* buckets 10, 11, 12: 1, 0 and 99 instances (log10(1 + 99) = 2 x log10(1 + 9)...) */
  uint64_t counts[] = { 9, 0, 99 };
  rsp_profile *p = rsp_profile_from_counts(1, 10, counts, 3);
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
  cairo_t *cr = cairo_create(s);
  rsp_histogram_view_draw(cr, W, H, p, NULL, NULL);
  cairo_surface_flush(s);
  double px, py, pw, ph;
  rsp_histogram_view_plot_area(W, H, NULL, &px, &py, &pw, &ph);
  double bw = pw / 3;
  int bottom = (int)(py + ph) - 2;
  int x10 = (int)(px + 0.5 * bw), x11 = (int)(px + 1.5 * bw), x12 = (int)(px + 2.5 * bw);
  CHECK(!is_white(s, x10, bottom));
  CHECK(is_white(s, x11, bottom));       /* the empty bucket has no bar */
  CHECK(!is_white(s, x12, bottom));
  /* log y: bucket 12 (99) fills the height; bucket 10 (9) half of it: log10(10) / log10(100) */
  uint32_t bar = pixel(s, x12, bottom);
  int t10 = top_of(s, x10, (int)py, bottom, bar), t12 = top_of(s, x12, (int)py, bottom, bar);
  double h10 = py + ph - t10, h12 = py + ph - t12;
  CHECK(fabs(h12 - ph) <= 2);
  CHECK(fabs(h10 - ph / 2) <= 2);
  /* the bars are the colour of their cause (from_counts: unaccounted) */
  double r, g, b;
  rsp_histogram_cause_color(RSP_CAT_UNACCOUNTED, &r, &g, &b);
  uint32_t want = (uint32_t)lround(r * 255) << 16 | (uint32_t)lround(g * 255) << 8 | (uint32_t)lround(b * 255);
  CHECK(near_color(bar, want));
  CHECK(pixel(s, x10, bottom) == bar);
  /* clicks map back to buckets */
  CHECK(rsp_histogram_view_bucket_at(p, W, H, NULL, x10) == 10);
  CHECK(rsp_histogram_view_bucket_at(p, W, H, NULL, x12) == 12);
  CHECK(rsp_histogram_view_bucket_at(p, W, H, NULL, px - 5) == INT32_MIN);
  /* a marker at 2048 ns (bucket 11's lower bound) is a dashed grey line at bucket 11's left edge */
  rsp_characteristic_times ct = { .context_switch_ns = 2048 };
  rsp_histogram_view_draw(cr, W, H, p, &ct, NULL);
  cairo_surface_flush(s);
  int xm = (int)floor(px + bw);
  int grey = 0;
  for (int y = (int)py + 30; y < bottom; y++)
    grey += !is_white(s, xm, y);
  CHECK(grey > 10 && grey < bottom - (int)py - 30); /* drawn, and dashed */

  /* heat map: two slices, the first with bucket 0 only, the second with bucket 2 only */
  uint64_t cells[] = { 5, 0, 0, 0, 0, 5 };
  rsp_profile_timeline t = { .start_ns = 0, .slice_ns = 1000000000, .n_slices = 2, .min_index = 10,
                             .n_buckets = 3, .counts = cells, .max_count = 5 };
  rsp_heat_map_draw(cr, W, H, &t, 1, NULL);
  cairo_surface_flush(s);
  int row0 = (int)(py + ph / 4), row1 = (int)(py + 3 * ph / 4);
  CHECK(!is_white(s, x10, row0));
  CHECK(is_white(s, x12, row0));
  CHECK(is_white(s, x10, row1));
  CHECK(!is_white(s, x12, row1));
  CHECK(is_white(s, x11, row0) && is_white(s, x11, row1));

  if (g_getenv("RSP_TEST_PNG"))
    cairo_surface_write_to_png(s, g_getenv("RSP_TEST_PNG"));
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  rsp_profile_free(p);
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("histogram view: all checks passed\n");
  return 0;
}
