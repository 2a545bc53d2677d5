/* The Flame View of a big recording (issue 18: a 2.8 GB recording's flame view took 9.7 GB as one cell per frame):
 * cut on a grid, it holds a small part of the cells and draws what the exact cut draws, within a pixel at the
 * edges; zoomed in, it is cut again around the viewport (on a finer grid, then exactly), and what is under the
 * pointer is the exact frame whatever is drawn.
 * The truth, built here: A (the process of interest) runs 10 us then sleeps 10 us in read(), N times; each run has
 * one sample whose stack is 60 frames deep, f0 (outermost) .. f58, then w0, w1 or w2 (cycle K: w<K % 3>); each
 * sleep's wait stack is schedule, pipe_read, vfs_read above __libc_read, f58 .. f0; B runs 5 us inside each sleep
 * (main->produce) and wakes A. Before all that, A sleeps a second (so that a cycle is narrower than the grid's
 * step). The exact cut is the same view with no grid (tests/gui/test-flame-pixels checks it
 * against a drawing made by hand). */
#include "../model/checks.h"
#include "render/render-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { IDLE = 0, A = 100, B = 200, N = 4000, DEPTH = 60 };
#define T0 (1000000 * US) /* after a second asleep: the grid of the whole is 66 us, 3 cycles */
#define CYCLE (20 * US)

/* The share of the plot's blocks (a row's height by 8 pixels) whose mean colours in A and B are alike: frames
 * narrower than a pixel make stripes whose phase a grid moves by a pixel, not their colours. */
static double same_share(cairo_surface_t *a, cairo_surface_t *b, int x0, int y0, int rh)
{
  cairo_surface_flush(a);
  cairo_surface_flush(b);
  int w = cairo_image_surface_get_width(a), h = cairo_image_surface_get_height(a);
  const unsigned char *da = cairo_image_surface_get_data(a), *db = cairo_image_surface_get_data(b);
  int stride = cairo_image_surface_get_stride(a);
  uint64_t same = 0, all = 0;
  for (int by = y0; by + rh <= h; by += rh)
    for (int bx = x0; bx + 8 <= w; bx += 8) {
      double d = 0;
      for (int ch = 0; ch < 3; ch++) {
        double sa = 0, sb = 0;
        for (int y = by; y < by + rh; y++)
          for (int x = bx; x < bx + 8; x++) {
            sa += da[y * stride + x * 4 + ch];
            sb += db[y * stride + x * 4 + ch];
          }
        d += fabs(sa - sb) / (8.0 * rh * 255.0);
      }
      all++;
      same += d < 0.15;
    }
  return all ? (double)same / (double)all : 1;
}

/* The ready hook: a count the test waits on (atomic; polled, so that ThreadSanitizer sees every access). */
static void on_ready(void *data)
{
  g_atomic_int_inc((gint *)data);
}

/* Waits (up to 60 s) until the hook has been called N times. */
static bool wait_ready(gint *count, int n)
{
  for (int i = 0; i < 6000 && g_atomic_int_get(count) < n; i++)
    g_usleep(10000);
  return g_atomic_int_get(count) >= n;
}

static bool same_pixels(cairo_surface_t *a, cairo_surface_t *b)
{
  cairo_surface_flush(a);
  cairo_surface_flush(b);
  int stride = cairo_image_surface_get_stride(a), h = cairo_image_surface_get_height(a);
  return !memcmp(cairo_image_surface_get_data(a), cairo_image_surface_get_data(b), (size_t)stride * (size_t)h);
}

int main(void)
{
  const rsp_style *st = rsp_style_default();
  tb *t = tb_new(false);
  tb_comm(t, 0, 0, A, "alpha", false);
  tb_comm(t, 0, 1, B, "beta", false);
  GString *outer = g_string_new(NULL);
  for (int k = DEPTH - 2; k >= 0; k--)
    g_string_append_printf(outer, ",f%d", k);
  char *run_stack[3], *sleep_stack = g_strdup_printf("schedule,pipe_read,vfs_read|__libc_read%s", outer->str);
  for (int k = 0; k < 3; k++)
    run_stack[k] = g_strdup_printf("|w%d%s", k, outer->str);
  tb_sched_switch(t, 0, 0, IDLE, "R", A);
  tb_next_stack(t, run_stack[0]);
  tb_sample(t, 5 * US, 0, A);
  tb_next_stack(t, sleep_stack);
  tb_sched_switch(t, 10 * US, 0, A, "S", IDLE);
  tb_sched_switch(t, T0 - 10 * US, 1, IDLE, "R", B);
  tb_next_stack(t, "|produce,main");
  tb_sample(t, T0 - 8 * US, 1, B);
  tb_waking(t, T0 - 5 * US, 1, B, A, 0);
  tb_wakeup(t, T0 - 5 * US + 500, 1, B, A, 0);
  tb_sched_switch(t, T0 - 4 * US, 1, B, "S", IDLE);
  for (int c = 0; c < N; c++) {
    uint64_t at = T0 + (uint64_t)c * CYCLE;
    tb_sched_switch(t, at, 0, IDLE, "R", A);
    tb_next_stack(t, run_stack[c % 3]);
    tb_sample(t, at + 5 * US, 0, A);
    tb_next_stack(t, sleep_stack);
    tb_sched_switch(t, at + 10 * US, 0, A, "S", IDLE);
    tb_sched_switch(t, at + 12 * US, 1, IDLE, "R", B);
    tb_next_stack(t, "|produce,main");
    tb_sample(t, at + 14 * US, 1, B);
    tb_waking(t, at + 16 * US, 1, B, A, 0);
    tb_wakeup(t, at + 16 * US + 500, 1, B, A, 0);
    tb_sched_switch(t, at + 17 * US, 1, B, "S", IDLE);
  }
  rsp_model *m = tb_finish(t);
  GError *error = NULL;
  rsp_paths *paths = rsp_paths_build(m, A, NULL, &error);
  CHECK(paths != NULL);
  if (!paths) {
    fprintf(stderr, "%s\n", error ? error->message : "?");
    return 1;
  }
  /* about 2 x 60 frames a cycle: 480,000; exactly up to 100,000 (windows up to 50,000) */
  rsp_flame_view *v = rsp_flame_view_new_cut(paths, NULL, 100000);
  rsp_flame_view *exact = rsp_flame_view_new_cut(paths, NULL, UINT64_MAX);
  uint32_t n_grid = rsp_flame_view_n_cells(v), n_exact = rsp_flame_view_n_cells(exact);
  fprintf(stderr, "cells: %u on the grid, %u exact\n", n_grid, n_exact);
  CHECK(n_exact >= 2u * N * (DEPTH - 1));
  CHECK(n_grid * 3 < n_exact);
  CHECK_EQ(rsp_flame_view_content_height(v, st), rsp_flame_view_content_height(exact, st));

  /* the wakeup links are drawn from runs wider than a pixel: those a grid moves by a pixel onto two, or off */
  rsp_flame_view_set_show_links(v, false);
  rsp_flame_view_set_show_links(exact, false);
  int plot = 1200, rows = rsp_flame_view_content_height(v, st) / st->row_height;
  rsp_viewport vp = { .t0 = 0, .t1 = T0 + N * CYCLE + 1000 * US, .width = st->label_width + plot,
                      .height = st->ruler_height + rows * st->row_height };
  cairo_surface_t *sa = cairo_image_surface_create(CAIRO_FORMAT_RGB24, vp.width, vp.height);
  cairo_surface_t *sb = cairo_image_surface_create(CAIRO_FORMAT_RGB24, vp.width, vp.height);
  cairo_t *ca = cairo_create(sa), *cb = cairo_create(sb);
  struct {
    const char *what;
    uint64_t t0, span;
    double at_least; /* the share of the plot's blocks drawn alike */
  } zooms[] = {
    { "the whole recording (the whole's grid)", 0, vp.t1, 0.98 },
    { "the cycles (a window on a finer grid)", T0 - 2000 * US, N * CYCLE * 3 / 4, 0.98 },
    { "a 1/16 of them (a window on a finer grid)", T0 + N / 3 * CYCLE, N * CYCLE / 16, 0.98 },
    { "200 us (a window cut exactly)", T0 + N / 2 * CYCLE + 3 * US, 200 * US, 1.0 },
    { "back to the cycles", T0 + N / 5 * CYCLE, N * CYCLE * 3 / 4, 0.98 },
  };
  for (size_t z = 0; z < G_N_ELEMENTS(zooms); z++) {
    vp.t0 = zooms[z].t0;
    vp.t1 = zooms[z].t0 + zooms[z].span;
    rsp_flame_view_draw(v, ca, &vp, st);
    rsp_flame_view_draw(exact, cb, &vp, st);
    double share = same_share(sa, sb, st->label_width, st->ruler_height, st->row_height);
    fprintf(stderr, "%s: %.4f of the blocks alike\n", zooms[z].what, share);
    if (share < zooms[z].at_least) {
      fprintf(stderr, "  expected at least %.2f\n", zooms[z].at_least);
      failures++;
      if (getenv("RSP_TEST_PNG")) {
        cairo_surface_write_to_png(sa, "lod-grid.png");
        cairo_surface_write_to_png(sb, "lod-exact.png");
      }
    }
    /* under the pointer: the exact frame at every zoom. Row 0 is the band's top; A's process row is the bottom
     * (rows - 2: a blank row follows the path); its innermost run frame is DEPTH rows above it. */
    int base = rsp_flame_view_path_row(v, 0);
    for (int px = 7; px < plot; px += 97) {
      double x = st->label_width + px + 0.5;
      uint64_t at = rsp_viewport_time(&vp, st, x);
      if (at < T0 || at >= T0 + N * CYCLE)
        continue;
      uint64_t c = (at - T0) / CYCLE, phase = (at - T0) % CYCLE;
      rsp_elem_id e = RSP_NO_ID;
      const char *label = NULL;
      double y = st->ruler_height + (base - DEPTH) * st->row_height - vp.scroll_y + st->row_height / 2.0;
      bool hit = rsp_flame_view_frame_at(v, &vp, st, x, y, &e, &label);
      if (phase < 10 * US) { /* A's run: w<c % 3> */
        char want[8];
        g_snprintf(want, sizeof want, "w%d", (int)(c % 3));
        CHECK(hit && label && !strcmp(label, want) && rsp_paths_elem(paths, e)->kind == RSP_ELEM_RUN);
      } else { /* A's sleep: __libc_read on that row, and f0 on the row above the process */
        CHECK(hit && label && !strcmp(label, "__libc_read") && rsp_paths_elem(paths, e)->kind == RSP_ELEM_SLEEP);
        CHECK(rsp_flame_view_frame_at(v, &vp, st, x, y + (DEPTH - 1) * st->row_height, &e, &label));
        CHECK_STR(label, "f0");
      }
    }
  }
  /* the zoomed-in window cut in a worker (the app's way): the draw comes back at once with the whole's cells, the
   * hook says when the window is ready, and the next draw is the synchronous view's, pixel for pixel; a view freed
   * while its worker cuts waits for it */
  {
    rsp_flame_view *async = rsp_flame_view_new_cut(paths, NULL, 100000);
    rsp_flame_view_set_show_links(async, false);
    gint ready = 0;
    rsp_flame_view_set_ready_hook(async, on_ready, &ready);
    vp.t0 = T0 + N / 3 * CYCLE;
    vp.t1 = vp.t0 + N * CYCLE / 16;
    rsp_flame_view_draw(v, cb, &vp, st); /* the synchronous view's */
    rsp_flame_view_draw(async, ca, &vp, st);
    CHECK(wait_ready(&ready, 1));
    rsp_flame_view_draw(async, ca, &vp, st);
    CHECK(same_pixels(sa, sb));
    /* panned within the window: no new cut */
    vp.t0 += N * CYCLE / 64;
    vp.t1 += N * CYCLE / 64;
    rsp_flame_view_draw(v, cb, &vp, st);
    rsp_flame_view_draw(async, ca, &vp, st);
    CHECK(same_pixels(sa, sb));
    /* panned far: a new cut, abandoned at once */
    vp.t0 += N * CYCLE / 4;
    vp.t1 += N * CYCLE / 4;
    rsp_flame_view_draw(async, ca, &vp, st);
    rsp_flame_view_free(async);
  }

  /* the search counts the functions drawn anywhere, whatever the grid hides */
  CHECK_EQ(rsp_flame_view_set_search(v, "w2"), 1);
  CHECK_EQ(rsp_flame_view_set_search(v, "produce"), 1);
  CHECK_EQ(rsp_flame_view_set_search(v, "f5"), rsp_flame_view_set_search(exact, "f5"));
  CHECK(rsp_flame_view_n_match_items(v) > 0);

  cairo_destroy(ca);
  cairo_destroy(cb);
  cairo_surface_destroy(sa);
  cairo_surface_destroy(sb);
  rsp_flame_view_free(v);
  rsp_flame_view_free(exact);
  rsp_paths_free(paths);
  rsp_model_free(m);
  for (int k = 0; k < 3; k++)
    g_free(run_stack[k]);
  g_free(sleep_stack);
  g_string_free(outer, TRUE);
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  return failures ? 1 : 0;
}
