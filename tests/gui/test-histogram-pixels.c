/* Pixel tests of issue 7's drawings on a synthetic trace whose truth is written here by hand: the
 * heat map of a time-sampled profile (one cell per slice and bucket, shaded where and only where
 * the construction put instances, darker for more), the running view's highlight set (the
 * instances of one bucket outlined in their task's row, the others not), and two profiles
 * overlaid (A's bars on the left of each bucket, B's on the right). */
#include "../model/checks.h"
#include "render/render.h"

#include <math.h>
#include <stdlib.h>

int failures;

enum { IDLE = 0, W = 100, H = 200 };
#define SLICE (10000 * US)

/* W sleeps in three phases, each sleep ended by a wakeup from H: 20 sleeps of 1 ms, then 10 of
 * 8 ms, then 20 of 1 ms. Each run of W lasts 50 us. The first timed event is at 1000 us.
 * STARTS/LENS receive each sleep's start and length (the truth). */
enum { N_SLEEPS = 50 };
static rsp_model *build(uint64_t *starts, uint64_t *lens)
{
  tb *t = tb_new(true);
  tb_comm(t, 0, 0, W, "waiter", false);
  tb_comm(t, 0, 1, H, "holder", false);
  uint64_t cursor = 1000 * US;
  tb_switch_in(t, cursor, 0, W, IDLE);
  for (int i = 0; i < N_SLEEPS; i++) {
    uint64_t d = i >= 20 && i < 30 ? 8000 * US : 1000 * US, run_end = cursor + 50 * US;
    tb_sched_switch(t, run_end - 1 * US, 0, W, "S", IDLE);
    tb_switch_out(t, run_end, 0, W, IDLE, false);
    tb_switch_in(t, run_end + 1 * US, 0, IDLE, W);
    uint64_t wake = run_end + d - 20 * US;
    tb_switch_in(t, wake - 10 * US, 1, H, IDLE);
    tb_waking(t, wake - 1 * US, 1, H, W, 0);
    tb_wakeup(t, wake, 1, H, W, 0);
    tb_sched_switch(t, wake + 5 * US, 1, H, "S", IDLE);
    tb_switch_out(t, wake + 6 * US, 1, H, IDLE, false);
    tb_switch_in(t, wake + 7 * US, 1, IDLE, H);
    tb_switch_out(t, run_end + d - 1 * US, 0, IDLE, W, false);
    tb_switch_in(t, run_end + d, 0, W, IDLE);
    starts[i] = run_end;
    lens[i] = d;
    cursor = run_end + d;
  }
  tb_sample(t, cursor + 100 * US, 0, W);
  return tb_finish(t);
}

static uint32_t pixel(cairo_surface_t *s, int x, int y)
{
  const unsigned char *d = cairo_image_surface_get_data(s);
  return *(const uint32_t *)(const void *)(d + y * cairo_image_surface_get_stride(s) + x * 4) & 0xffffff;
}

static uint32_t rgb_of(double r, double g, double b)
{
  return (uint32_t)lround(r * 255) << 16 | (uint32_t)lround(g * 255) << 8 | (uint32_t)lround(b * 255);
}

static bool near(uint32_t a, uint32_t b)
{
  for (int sh = 0; sh < 24; sh += 8)
    if (abs((int)((a >> sh) & 0xff) - (int)((b >> sh) & 0xff)) > 2)
      return false;
  return true;
}

/* Whether colour C appears in the columns X0..X1 of row Y. */
static bool color_in(cairo_surface_t *s, int x0, int x1, int y, uint32_t c)
{
  for (int x = MAX(x0, 0); x <= x1 && x < cairo_image_surface_get_width(s); x++)
    if (near(pixel(s, x, y), c))
      return true;
  return false;
}

static void test_heat_map(const rsp_model *m, const rsp_profile *wait, const uint64_t *starts, const uint64_t *lens)
{
  enum { WIDTH = 600, HEIGHT = 400 };
  /* 1 ms = 2^19.93 ns: bucket 19; 8 ms = 2^22.93: bucket 22 (resolution 1) */
  CHECK_EQ(wait->min_index, 19);
  CHECK_EQ(wait->n_buckets, 4);
  rsp_profile_timeline *tl = rsp_profile_timeline_build(m, wait, SLICE);
  uint64_t first = 1000 * US;
  CHECK_EQ(tl->start_ns, first);
  uint64_t expected[32][4] = { { 0 } }, max = 0;
  for (int i = 0; i < N_SLEEPS; i++) {
    uint64_t c = ++expected[(starts[i] - first) / SLICE][lens[i] == 8000 * US ? 3 : 0];
    max = MAX(max, c);
  }
  uint64_t end = starts[N_SLEEPS - 1] + lens[N_SLEEPS - 1] + 100 * US;
  CHECK_EQ(tl->n_slices, (end - first) / SLICE + 1);
  CHECK_EQ(tl->max_count, max);
  if (tl->n_slices > 32 || tl->n_buckets != 4) {
    rsp_profile_timeline_free(tl);
    return;
  }
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create(s);
  rsp_heat_map_draw(cr, WIDTH, HEIGHT, tl, 1, NULL);
  cairo_surface_flush(s);
  double px, py, pw, ph;
  rsp_histogram_view_plot_area(WIDTH, HEIGHT, NULL, &px, &py, &pw, &ph);
  double cw = pw / 4, chh = ph / tl->n_slices;
  int shaded = 0;
  for (uint32_t sl = 0; sl < tl->n_slices; sl++)
    for (uint32_t b = 0; b < 4; b++) {
      int x = (int)(px + (b + 0.5) * cw), y = (int)(py + (sl + 0.5) * chh);
      uint32_t got = pixel(s, x, y);
      if (!expected[sl][b]) {
        if (got != 0xffffff)
          fprintf(stderr, "slice %u bucket %u: expected white, got #%06x\n", sl, b, got);
        CHECK(got == 0xffffff);
      } else {
        shaded++;
        CHECK(got != 0xffffff);
        double r, g, bl;
        rsp_heat_map_color(expected[sl][b], max, &r, &g, &bl);
        CHECK(near(got, rgb_of(r, g, bl)));
        /* darker (less red) for more instances than any cell with fewer */
        for (uint32_t s2 = 0; s2 < tl->n_slices; s2++)
          for (uint32_t b2 = 0; b2 < 4; b2++)
            if (expected[s2][b2] && expected[s2][b2] < expected[sl][b]) {
              uint32_t other = pixel(s, (int)(px + (b2 + 0.5) * cw), (int)(py + (s2 + 0.5) * chh));
              CHECK(((got >> 16) & 0xff) < ((other >> 16) & 0xff));
            }
      }
      uint32_t hs;
      int32_t hb;
      CHECK(rsp_heat_map_cell_at(tl, WIDTH, HEIGHT, NULL, x, y, &hs, &hb));
      CHECK_EQ(hs, sl);
      CHECK_EQ(hb, 19 + (int32_t)b);
    }
  CHECK(shaded >= 4); /* phases 1 and 3 in bucket 19, phase 2 in bucket 22, over several slices */
  /* the empty buckets 20 and 21 are white from top to bottom */
  for (int y = (int)py + 1; y < (int)(py + ph) - 1; y++)
    CHECK(pixel(s, (int)(px + 1.5 * cw), y) == 0xffffff && pixel(s, (int)(px + 2.5 * cw), y) == 0xffffff);
  uint32_t hs;
  int32_t hb;
  CHECK(!rsp_heat_map_cell_at(tl, WIDTH, HEIGHT, NULL, px - 3, py + 5, &hs, &hb));
  if (g_getenv("RSP_TEST_PNG"))
    cairo_surface_write_to_png(s, g_getenv("RSP_TEST_PNG"));
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  rsp_profile_timeline_free(tl);
}

static void test_highlights(const rsp_model *m, const rsp_profile *wait, const uint64_t *starts, const uint64_t *lens)
{
  const rsp_style *st = rsp_style_default();
  rsp_running_view *v = rsp_running_view_new(m);
  rsp_running_view_set_show_links(v, false);
  /* the instances of bucket 22 (the 8 ms sleeps), as the histograms pane highlights them */
  const rsp_profile_bucket *b = &wait->buckets[3];
  CHECK_EQ(b->count, 10);
  rsp_highlight hl[16];
  uint32_t n = 0;
  for (uint32_t k = 0; k < b->n_instances && n < 16; k++) {
    const rsp_sleep *sl = rsp_model_sleep(m, wait->instances[b->first_instance + k].id);
    hl[n++] = (rsp_highlight){ sl->task, sl->start, sl->end };
  }
  rsp_running_view_set_highlights(v, hl, n);
  CHECK_EQ(rsp_running_view_n_highlights(v), 10);
  uint64_t lo = rsp_model_time_first(m), hi = rsp_model_time_last(m);
  rsp_viewport vp = { .t0 = lo, .t1 = hi, .width = st->label_width + 1300, .height = 200 };
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, vp.width, vp.height);
  cairo_t *cr = cairo_create(s);
  rsp_running_view_draw(v, cr, &vp, st);
  cairo_surface_flush(s);
  rsp_rgb c = rsp_running_view_highlight_color();
  uint32_t magenta = rgb_of(c.r, c.g, c.b);
  rsp_task_id wt = RSP_NO_ID;
  for (uint32_t i = 0; i < rsp_model_n_tasks(m); i++)
    if (rsp_model_task(m, i)->tid == W)
      wt = i;
  int y = rsp_running_view_task_y(v, &vp, st, wt);
  CHECK(y >= 0);
  if (y >= 0) {
    int mid = y + st->row_height / 2;
    /* the ten 8 ms sleeps are consecutive, 50 us (half a pixel) apart: their outlines touch and
     * merge into one box from the first one's start to the last one's end. Its top edge runs over
     * every 8 ms sleep; no outline passes over a 1 ms sleep away from them. */
    for (int i = 0; i < N_SLEEPS; i++) {
      int x0 = (int)floor(rsp_viewport_x(&vp, st, starts[i])), x1 = (int)floor(rsp_viewport_x(&vp, st, starts[i] + lens[i]));
      if (lens[i] == 8000 * US)
        CHECK(near(pixel(s, (x0 + x1) / 2, y + 1), magenta));
      else if (i != 19 && i != 30) /* not next to an 8 ms one */
        CHECK(!color_in(s, x0 - 1, x1 + 1, mid, magenta) && !color_in(s, x0 - 1, x1 + 1, y + 1, magenta));
    }
    int left = (int)floor(rsp_viewport_x(&vp, st, starts[20])), right = (int)floor(rsp_viewport_x(&vp, st, starts[29] + lens[29]));
    CHECK(color_in(s, left - 1, left + 3, mid, magenta));   /* the box's left edge */
    CHECK(color_in(s, right - 3, right + 1, mid, magenta)); /* and its right edge */
    CHECK(!color_in(s, left + 4, right - 4, mid, magenta)); /* one box, not ten */
    CHECK(near(pixel(s, 2, mid), magenta)); /* the task's name is marked */
    /* zoomed in on sleeps 19..22 (13 us a pixel): the 50 us runs between them are 4 px, so each
     * 8 ms sleep has its own box, and the 1 ms sleep 19 none */
    rsp_viewport zv = vp;
    zv.t0 = starts[19] - 100 * US;
    zv.t1 = starts[22] + 1000 * US;
    rsp_running_view_draw(v, cr, &zv, st);
    cairo_surface_flush(s);
    int zy = rsp_running_view_task_y(v, &zv, st, wt) + st->row_height / 2;
    for (int i = 20; i <= 21; i++) {
      int x0 = (int)floor(rsp_viewport_x(&zv, st, starts[i])), x1 = (int)floor(rsp_viewport_x(&zv, st, starts[i] + lens[i]));
      CHECK(color_in(s, x0 - 1, x0 + 3, zy, magenta));
      CHECK(color_in(s, x1 - 3, x1 + 1, zy, magenta));
      CHECK(!color_in(s, x0 + 4, x1 - 4, zy, magenta));
    }
    int z0 = (int)floor(rsp_viewport_x(&zv, st, starts[19])) + 3, z1 = (int)floor(rsp_viewport_x(&zv, st, starts[20])) - 3;
    CHECK(!color_in(s, z0, z1, zy, magenta) && !color_in(s, z0, z1, zy - st->row_height / 2 + 1, magenta));
  }
  /* cleared: no magenta left in W's row */
  rsp_running_view_set_highlights(v, NULL, 0);
  CHECK_EQ(rsp_running_view_n_highlights(v), 0);
  rsp_running_view_draw(v, cr, &vp, st);
  cairo_surface_flush(s);
  if (y >= 0)
    CHECK(!color_in(s, 0, vp.width - 1, y + st->row_height / 2, magenta));
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  rsp_running_view_free(v);
}

static void test_compare(void)
{
  enum { WIDTH = 500, HEIGHT = 260 };
  /* A: 99 in bucket 10, 9 in bucket 11; B: 9 in bucket 11, 99 in bucket 12 */
  uint64_t ca[] = { 99, 9 }, cb[] = { 9, 99 };
  rsp_profile *a = rsp_profile_from_counts(1, 10, ca, 2), *b = rsp_profile_from_counts(1, 11, cb, 2);
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create(s);
  rsp_histogram_compare_draw(cr, WIDTH, HEIGHT, a, b, "A", "B", false, NULL);
  cairo_surface_flush(s);
  double px, py, pw, ph;
  rsp_histogram_view_plot_area(WIDTH, HEIGHT, NULL, &px, &py, &pw, &ph);
  double bw = pw / 3; /* buckets 10, 11, 12 */
  rsp_rgb ra, rb;
  rsp_histogram_compare_colors(&ra, &rb);
  uint32_t col_a = rgb_of(ra.r, ra.g, ra.b), col_b = rgb_of(rb.r, rb.g, rb.b);
  int bottom = (int)(py + ph) - 2;
  CHECK(near(pixel(s, (int)(px + 0.25 * bw), bottom), col_a));  /* A in bucket 10 */
  CHECK(pixel(s, (int)(px + 0.75 * bw), bottom) == 0xffffff);   /* no B there */
  CHECK(near(pixel(s, (int)(px + 1.25 * bw), bottom), col_a));
  CHECK(near(pixel(s, (int)(px + 1.75 * bw), bottom), col_b));
  CHECK(pixel(s, (int)(px + 2.25 * bw), bottom) == 0xffffff);
  CHECK(near(pixel(s, (int)(px + 2.75 * bw), bottom), col_b));
  /* log y: 99 fills the bars' height, 9 half of it (log10 10 / log10 100); the bars' height is the
   * plot's less two lines of the default 10 px font, left for the peaks' labels */
  py += 20;
  ph -= 20;
  int x = (int)(px + 1.25 * bw), top = bottom;
  while (top > 0 && near(pixel(s, x, top - 1), col_a))
    top--;
  CHECK(fabs((py + ph - top) - ph / 2) <= 2);
  x = (int)(px + 0.25 * bw);
  top = bottom;
  while (top > 0 && near(pixel(s, x, top - 1), col_a))
    top--;
  CHECK(fabs((py + ph - top) - ph) <= 2);
  CHECK_EQ(rsp_histogram_compare_bucket_at(a, b, WIDTH, HEIGHT, NULL, px + 2.5 * bw), 12);
  CHECK_EQ(rsp_histogram_compare_bucket_at(a, b, WIDTH, HEIGHT, NULL, px + 0.1 * bw), 10);
  CHECK(rsp_histogram_compare_bucket_at(a, b, WIDTH, HEIGHT, NULL, px - 2) == INT32_MIN);
  /* normalized: each bar the share of its own profile; A's 99/108 and B's 99/108 equally tall */
  rsp_histogram_compare_draw(cr, WIDTH, HEIGHT, a, NULL, "A", "B", true, NULL);
  cairo_surface_flush(s);
  CHECK(pixel(s, (int)(px + 2.75 * bw), bottom) == 0xffffff); /* B absent */
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  rsp_profile_free(a);
  rsp_profile_free(b);
}

int main(void)
{
  uint64_t starts[N_SLEEPS], lens[N_SLEEPS];
  rsp_model *m = build(starts, lens);
  CHECK_EQ(rsp_model_time_first(m), 1000 * US);
  rsp_profile_options o = { .resolution = 1, .pid = W };
  GError *error = NULL;
  rsp_profile_set *set = rsp_profile_set_build(m, &o, &error);
  CHECK(set != NULL);
  const rsp_profile *wait = set ? rsp_profile_set_find(set, "wait [state S]", "waiter", W) : NULL;
  CHECK(wait != NULL);
  if (wait) {
    CHECK_EQ(wait->count, N_SLEEPS);
    test_heat_map(m, wait, starts, lens);
    test_highlights(m, wait, starts, lens);
  }
  test_compare();
  rsp_profile_set_free(set);
  rsp_model_free(m);
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("histogram pixels: all checks passed\n");
  return 0;
}
