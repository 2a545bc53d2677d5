/* Pixel test of the Flame View on a synthetic trace whose stacks are written here by hand:
 * A (the process of interest) runs 100-200 us with two cpu-clock samples, main->work at 120 us and
 * main->crunch at 170 us (so work is drawn 100-150 and crunch 150-200: a run's time is divided
 * equally between its samples); it sleeps 200-400 in read() with the wait stack
 * main->__libc_read->vfs_read->pipe_read->schedule until B, running 250-300 us (sample main->produce
 * at 270 us) inside that sleep, wakes it; A runs 400-500 (no sample: it borrows the user part of the
 * stack it goes to sleep in, main->__libc_read) and sleeps in read() again 500-700 while B runs
 * 550-600 (main->produce); A runs 700-800 (sample main->work).
 * By construction, in path 0's band (rows counted from its bottom): row 0 is A's process (grey),
 * row 1 A's main, one frame 100-800 us that is in runs and in sleeps (purple), row 2 work (red,
 * 100-150) and crunch (red, 150-200) then __libc_read (in both: purple, 200-700), row 3 vfs_read
 * (blue, 200-400 and 500-700, apart at this zoom), row 5 schedule (blue). B's layer stands on top
 * of the sleep's stack (6 rows: process + 5 frames): row 6 beta's process (grey), row 7 B's main
 * and row 8 produce, red, 250-300 us. x = label column + t/us.
 * Consolidated: the two read() sleeps merge into one frame of 400 us, first (the longest), A's
 * three runs into one of 300 us after it, B's two runs into one of 100 us above the sleeps. */
#include "../model/checks.h"
#include "render/render.h"

#include <math.h>
#include <stdlib.h>

enum { IDLE = 0, A = 100, B = 200 };

static void sw(tb *t, uint64_t us, int32_t cpu, int32_t prev, const char *state, int32_t next)
{
  tb_sched_switch(t, us * US, cpu, prev, state, next);
}

static rsp_rgb pixel(cairo_surface_t *s, int x, int y)
{
  cairo_surface_flush(s);
  const unsigned char *data = cairo_image_surface_get_data(s);
  uint32_t v = *(const uint32_t *)(data + y * cairo_image_surface_get_stride(s) + x * 4);
  return (rsp_rgb){ ((v >> 16) & 255) / 255.0, ((v >> 8) & 255) / 255.0, (v & 255) / 255.0 };
}

static double dist(rsp_rgb a, rsp_rgb b)
{
  return fabs(a.r - b.r) + fabs(a.g - b.g) + fabs(a.b - b.b);
}

#define CHECK_COLOUR(surface, x, y, want)                                                        \
  do {                                                                                          \
    rsp_rgb got_ = pixel(surface, x, y), want_ = (want);                                        \
    char g_[8], w_[8];                                                                          \
    if (fabs(got_.r - want_.r) + fabs(got_.g - want_.g) + fabs(got_.b - want_.b) > 0.03) {      \
      fprintf(stderr, "%s:%d: pixel (%d, %d) is %s, expected %s (%s)\n", __FILE__, __LINE__,    \
              (int)(x), (int)(y), rsp_rgb_to_hex(got_, g_), rsp_rgb_to_hex(want_, w_), #want);   \
      failures++;                                                                               \
    }                                                                                           \
  } while (0)

int main(void)
{
  const rsp_style *st = rsp_style_default();
  tb *t = tb_new(false);
  tb_comm(t, 0, 0, A, "alpha", false);
  tb_comm(t, 0, 1, B, "beta", false);
  sw(t, 100, 0, IDLE, "R", A);
  tb_next_stack(t, "|work,main");
  tb_sample(t, 120 * US, 0, A);
  tb_next_stack(t, "|crunch,main");
  tb_sample(t, 170 * US, 0, A);
  tb_next_stack(t, "schedule,pipe_read,vfs_read|__libc_read,main");
  sw(t, 200, 0, A, "S", IDLE);
  sw(t, 250, 1, IDLE, "R", B);
  tb_next_stack(t, "|produce,main");
  tb_sample(t, 270 * US, 1, B);
  tb_waking(t, 290 * US, 1, B, A, 0);
  tb_wakeup(t, 291 * US, 1, B, A, 0);
  sw(t, 300, 1, B, "S", IDLE);
  sw(t, 400, 0, IDLE, "R", A);
  tb_next_stack(t, "schedule,pipe_read,vfs_read|__libc_read,main");
  sw(t, 500, 0, A, "S", IDLE);
  sw(t, 550, 1, IDLE, "R", B);
  tb_next_stack(t, "|produce,main");
  tb_sample(t, 570 * US, 1, B);
  tb_waking(t, 590 * US, 1, B, A, 0);
  tb_wakeup(t, 591 * US, 1, B, A, 0);
  sw(t, 600, 1, B, "S", IDLE);
  sw(t, 700, 0, IDLE, "R", A);
  tb_next_stack(t, "|work,main");
  tb_sample(t, 750 * US, 0, A);
  sw(t, 800, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  GError *error = NULL;
  rsp_paths *paths = rsp_paths_build(m, A, NULL, &error);
  CHECK(paths != NULL);
  if (!paths) {
    fprintf(stderr, "%s\n", error ? error->message : "?");
    return 1;
  }
  rsp_flame_view *v = rsp_flame_view_new(paths);
  const int band = 9;
  CHECK_EQ(rsp_flame_view_content_height(v, st), (band + 1) * st->row_height);
  rsp_viewport vp = { .t0 = 0, .t1 = 1000 * US, .width = st->label_width + 1000, .height = st->ruler_height + band * st->row_height + 20 };
  int rh = st->row_height, mid = rh / 2;
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, vp.width, vp.height);
  cairo_t *cr = cairo_create(s);
  rsp_flame_view_draw(v, cr, &vp, st);
  if (getenv("RSP_TEST_PNG")) /* to look at it */
    cairo_surface_write_to_png(s, getenv("RSP_TEST_PNG"));
#define X(us) (st->label_width + (us))
#define Y(r) (st->ruler_height + (band - 1 - (r)) * rh) /* top of the band's row R (0: bottom) */
  CHECK_COLOUR(s, X(150), Y(0) + 2, st->process_bg); /* A's process row under its run */
  CHECK_COLOUR(s, X(300), Y(0) + 2, st->process_bg); /* and under its sleep */
  CHECK_COLOUR(s, X(850), Y(0) + 2, st->background); /* A is gone */
  CHECK_COLOUR(s, X(110), Y(1) + 2, st->both);       /* main: runs and sleeps, one frame */
  CHECK_COLOUR(s, X(300), Y(1) + 2, st->both);
  CHECK_COLOUR(s, X(450), Y(1) + 2, st->both);
  CHECK_COLOUR(s, X(790), Y(1) + 2, st->both);
  CHECK_COLOUR(s, X(125), Y(2) + 2, st->run);        /* work, the first sample's half */
  CHECK_COLOUR(s, X(175), Y(2) + 2, st->run);        /* crunch, the second's */
  CHECK_COLOUR(s, X(750), Y(2) + 2, st->run);        /* work in the last run */
  CHECK_COLOUR(s, X(300), Y(2) + 2, st->both);       /* __libc_read: slept in and ran in */
  CHECK_COLOUR(s, X(300), Y(3) + 2, st->sleep);      /* vfs_read: slept in only */
  CHECK_COLOUR(s, X(600), Y(3) + 2, st->sleep);
  CHECK_COLOUR(s, X(450), Y(3) + 2, st->background); /* a visible gap between the two reads */
  CHECK_COLOUR(s, X(150), Y(3) + 2, st->background); /* nothing that deep in the run */
  CHECK_COLOUR(s, X(220), Y(5) + 2, st->sleep);        /* schedule, the innermost frame */
  CHECK_COLOUR(s, X(300), Y(6) + 2, st->background); /* nothing on the sleep after B's run */
  CHECK_COLOUR(s, X(275), Y(6) + 2, st->process_bg); /* B's process on top of the wait stack */
  CHECK_COLOUR(s, X(275), Y(7) + 2, st->run);        /* B's main */
  CHECK_COLOUR(s, X(275), Y(8) + 2, st->run);        /* produce */
  CHECK_COLOUR(s, X(575), Y(8) + 2, st->run);
  CHECK_COLOUR(s, X(240), Y(8) + 2, st->background); /* B had not run yet */
  CHECK_COLOUR(s, X(150), Y(6) + 2, st->background); /* nothing above A's run */
  /* the wakeup link from B's run (290 us, row 6) to A's run at 400 us (row 0), through its midpoint */
  {
    int lx = (X(290) + X(400)) / 2, ly = ((Y(6) + mid) + (Y(0) + mid)) / 2;
    bool found = false;
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        rsp_rgb p = pixel(s, lx + dx, ly + dy);
        if (fabs(p.r - st->link_wakeup.r) + fabs(p.g - st->link_wakeup.g) + fabs(p.b - st->link_wakeup.b) < 0.25)
          found = true;
      }
    CHECK(found);
    /* issue 17: the Links toggle applies to the flame view too */
    rsp_flame_view_set_show_links(v, false);
    rsp_flame_view_draw(v, cr, &vp, st);
    found = false;
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++)
        found |= dist(pixel(s, lx + dx, ly + dy), st->link_wakeup) < 0.25;
    CHECK(!found);
    rsp_flame_view_set_show_links(v, true);
    rsp_flame_view_draw(v, cr, &vp, st);
  }
  rsp_elem_id e;
  const char *label = NULL;
  CHECK(rsp_flame_view_frame_at(v, &vp, st, X(275), Y(8) + mid, &e, &label));
  CHECK(e != RSP_NO_ID && rsp_paths_elem(paths, e)->kind == RSP_ELEM_RUN &&
        rsp_paths_elem(paths, e)->task == find_task(m, B, 0));
  CHECK_STR(label, "produce");
  CHECK(rsp_flame_view_frame_at(v, &vp, st, X(300), Y(4) + mid, &e, &label));
  CHECK_STR(label, "pipe_read");
  CHECK(rsp_paths_elem(paths, e)->kind == RSP_ELEM_SLEEP && rsp_paths_elem(paths, e)->task == find_task(m, A, 0));
  CHECK(rsp_flame_view_frame_at(v, &vp, st, X(175), Y(2) + mid, &e, &label));
  CHECK_STR(label, "crunch");
  CHECK(rsp_flame_view_hit(v, &vp, st, X(275), Y(6) + mid, &e));
  CHECK(!rsp_flame_view_hit(v, &vp, st, X(350), Y(6) + mid, &e));

  /* search: crunch outlined in the match colour, work not */
  CHECK_EQ(rsp_flame_view_set_search(v, "CRUNCH"), 1);
  rsp_flame_view_draw(v, cr, &vp, st);
  CHECK_COLOUR(s, X(150) + 1, Y(2) + mid, st->match);
  CHECK_COLOUR(s, X(175), Y(2) + 2, st->match);
  CHECK_COLOUR(s, X(100) + 1, Y(2) + 2, st->run);
  CHECK_EQ(rsp_flame_view_set_search(v, "read"), 3); /* __libc_read, vfs_read, pipe_read */
  /* issue 17: the matches one by one, by time, each frame's adjacent pieces as one */
  {
    uint32_t n = rsp_flame_view_n_match_items(v);
    CHECK(n >= 3);
    uint64_t prev = 0, t0, t1;
    int row;
    for (uint32_t i = 0; i < n; i++) {
      CHECK(rsp_flame_view_match_item(v, i, &t0, &t1, &row));
      CHECK(t0 >= prev && t1 > t0 && row >= 0);
      prev = t0;
    }
    CHECK(!rsp_flame_view_match_item(v, n, &t0, &t1, &row));
  }
  CHECK_EQ(rsp_flame_view_set_search(v, NULL), 0);

  /* zoomed out to 200 us a pixel, nothing visible separates the two vfs_read frames: one frame */
  {
    rsp_viewport far = vp;
    far.t1 = 200000 * US;
    rsp_flame_view_draw(v, cr, &far, st);
    CHECK_COLOUR(s, st->label_width + 2, Y(3) + mid, st->sleep); /* 400-600 us, the gap, covered */
    CHECK_COLOUR(s, st->label_width + 5, Y(3) + mid, st->background);
  }
  /* scrolled far down and started after the first wakeup: the links' ends fall left of and above the plot
   * (negative pixels, which the links' de-duplication once shifted: UBSan's report in the app) */
  for (int sy = -4; sy <= 4; sy += 2)
    for (uint64_t t0 = 300; t0 <= 650; t0 += 50) {
      rsp_viewport off = vp;
      off.t0 = t0 * US;
      off.t1 = off.t0 + 300 * US;
      off.scroll_y = sy * rh;
      rsp_flame_view_draw(v, cr, &off, st);
      CHECK(cairo_status(cr) == CAIRO_STATUS_SUCCESS);
    }
  /* a time range selected elsewhere is shaded */
  rsp_flame_view_set_selection(v, 900 * US, 950 * US);
  rsp_flame_view_draw(v, cr, &vp, st);
  {
    rsp_rgb p = pixel(s, X(925), Y(0) + mid);
    CHECK(p.b > p.r + 0.02);
  }
  rsp_flame_view_set_selection(v, 0, 0);

  rsp_consolidated_view *cv = rsp_consolidated_view_new(paths);
  CHECK_EQ(rsp_consolidated_view_total(cv), 700 * US);
  uint64_t dur = 0;
  uint32_t merged = 0;
  rsp_flame_view_draw(v, cr, &vp, st); /* fill the surface with something else first */
  rsp_consolidated_view_draw(cv, cr, &vp, st);
  if (getenv("RSP_TEST_PNG_CONSOLIDATED"))
    cairo_surface_write_to_png(s, getenv("RSP_TEST_PNG_CONSOLIDATED"));
  /* depth D's row: the deepest (8: produce) at the top */
#define YC(d) (st->ruler_height + (8 - (d)) * rh)
  CHECK_EQ(rsp_consolidated_view_content_height(cv, st), 9 * rh);
  CHECK_COLOUR(s, X(350), YC(0) + 2, st->process_bg); /* alpha: its runs and sleeps, 700 us */
  CHECK_COLOUR(s, X(695), YC(0) + 2, st->process_bg);
  CHECK_COLOUR(s, X(705), YC(0) + 2, st->background);
  CHECK_COLOUR(s, X(350), YC(1) + 2, st->both);       /* main, run and slept in */
  /* above main, longest first: __libc_read (the two sleeps' 400 us and the borrowed run's 100),
   * then work (50 + 100 us), then crunch (50 us) */
  CHECK_COLOUR(s, X(250), YC(2) + 2, st->both);
  CHECK_COLOUR(s, X(575), YC(2) + 2, st->run);
  CHECK_COLOUR(s, X(675), YC(2) + 2, st->run);
  CHECK(rsp_consolidated_view_node_at(cv, &vp, st, X(250), YC(2) + mid, &label, &dur, &merged));
  CHECK_STR(label, "__libc_read");
  CHECK_EQ(dur, 500 * US);
  CHECK_EQ(merged, 3);
  /* issue 17: "__libc_recv" read "libc recv": the label's underscores fell on the white line under
   * the box, white on white. Its leading "__" is inked inside the box (rows YC + 1 .. YC + rh - 2). */
  {
    bool inked = false;
    for (int x = X(0) + 3; x < X(0) + 12; x++)
      for (int y = YC(2) + 1; y <= YC(2) + rh - 2; y++)
        inked |= dist(pixel(s, x, y), st->both) > 0.6;
    CHECK(inked);
  }
  CHECK(rsp_consolidated_view_node_at(cv, &vp, st, X(575), YC(2) + mid, &label, &dur, &merged));
  CHECK_STR(label, "work");
  CHECK_EQ(dur, 150 * US);
  CHECK(rsp_consolidated_view_node_at(cv, &vp, st, X(675), YC(2) + mid, &label, &dur, &merged));
  CHECK_STR(label, "crunch");
  CHECK_EQ(dur, 50 * US);
  CHECK_COLOUR(s, X(200), YC(3) + 2, st->sleep);      /* vfs_read: the two sleeps, 0-400 */
  CHECK_COLOUR(s, X(450), YC(3) + 2, st->background);
  CHECK_COLOUR(s, X(200), YC(5) + 2, st->sleep);      /* schedule */
  /* what the sleeps waited on, on schedule: beta (two runs and the cut sleep between them: the
   * paper's triangle cut keeps only its 500-550 us), its main and produce (the runs' 100 us) */
  CHECK(rsp_consolidated_view_node_at(cv, &vp, st, X(100), YC(6) + mid, &label, &dur, &merged));
  CHECK_STR(label, "beta");
  CHECK_EQ(dur, 150 * US);
  CHECK_COLOUR(s, X(100), YC(6) + 2, st->process_bg);
  CHECK_COLOUR(s, X(155), YC(6) + 2, st->background);
  CHECK_COLOUR(s, X(50), YC(7) + rh - 2, st->run); /* below the label (white on red) */
  CHECK_COLOUR(s, X(50), YC(8) + rh - 2, st->run);
  CHECK_COLOUR(s, X(120), YC(8) + 2, st->background);
  CHECK(rsp_consolidated_view_node_at(cv, &vp, st, X(50), YC(8) + mid, &label, &dur, &merged));
  CHECK_STR(label, "produce");
  CHECK_EQ(dur, 100 * US);
  CHECK_EQ(merged, 2);
  /* zoomed to 0-100 us (10 px a us) and panned: produce fills it; search outlines it */
  {
    rsp_viewport z = vp;
    z.t0 = 0;
    z.t1 = 100 * US;
    CHECK_EQ(rsp_consolidated_view_set_search(cv, "produce"), 1);
    rsp_consolidated_view_draw(cv, cr, &z, st);
    CHECK_COLOUR(s, X(500), YC(8) + 2, st->match);
    CHECK_COLOUR(s, X(500), YC(8) + mid, st->run);
    CHECK_COLOUR(s, X(500), YC(3) + 2, st->sleep);
    rsp_consolidated_view_set_search(cv, NULL);
    z.t0 = 600 * US;
    z.t1 = 700 * US;
    rsp_consolidated_view_draw(cv, cr, &z, st);
    CHECK_COLOUR(s, X(750), YC(2) + 2, st->run);   /* crunch, 650-700 us, on the right half */
    CHECK_COLOUR(s, X(250), YC(2) + 2, st->run);   /* work, up to 650 us, on the left half */
    CHECK(rsp_consolidated_view_node_at(cv, &z, st, X(750), YC(2) + mid, &label, &dur, &merged));
    CHECK_STR(label, "crunch");
  }
  rsp_consolidated_view_free(cv);
  /* only 150-350 us: A's first run's second half (crunch, 50 us), the first sleep's 150 us and B's
   * first run (50 us) */
  cv = rsp_consolidated_view_new_range(paths, 150 * US, 350 * US);
  CHECK_EQ(rsp_consolidated_view_total(cv), 200 * US);
  rsp_consolidated_view_draw(cv, cr, &vp, st);
  CHECK(rsp_consolidated_view_node_at(cv, &vp, st, X(50), YC(2) + mid, &label, &dur, &merged));
  CHECK_STR(label, "__libc_read");
  CHECK_EQ(dur, 150 * US);
  CHECK(rsp_consolidated_view_node_at(cv, &vp, st, X(175), YC(2) + mid, &label, &dur, &merged));
  CHECK_STR(label, "crunch");
  CHECK_EQ(dur, 50 * US);
  CHECK(!rsp_consolidated_view_node_at(cv, &vp, st, X(175), YC(3) + mid, &label, &dur, &merged));
  CHECK(rsp_consolidated_view_node_at(cv, &vp, st, X(25), YC(8) + mid, &label, &dur, &merged));
  CHECK_STR(label, "produce");
  CHECK_EQ(dur, 50 * US);
  rsp_consolidated_view_free(cv);

  cairo_destroy(cr);
  cairo_surface_destroy(s);
  rsp_flame_view_free(v);
  rsp_paths_free(paths);
  rsp_model_free(m);
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  return failures ? 1 : 0;
}
