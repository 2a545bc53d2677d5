/* Pixel test of the Flame View on a synthetic trace: A (the process of interest) runs 100-200 us,
 * sleeps in read() until B, running 250-300 us inside that sleep, wakes it; A runs 400-500 us.
 * Then the same again: A sleeps in read() 500-700 us, B runs 550-600 us and wakes it, A runs 700-800.
 * By construction B's runs are the sleeps' children: depth 1, drawn above A's sleeps, in the run
 * colour, at x = label column + t/us; A's runs and sleeps at depth 0 in red and blue.
 * Consolidated: the two read() sleeps merge into one frame of 400 us, first (the longest), A's
 * three runs into one of 300 us after it, B's two runs into one of 100 us above the sleeps. */
#include "../model/checks.h"
#include "render/render.h"

#include <math.h>

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
  tb_next_stack(t, "schedule,pipe_read,vfs_read|__libc_read,main");
  sw(t, 200, 0, A, "S", IDLE);
  sw(t, 250, 1, IDLE, "R", B);
  tb_waking(t, 290 * US, 1, B, A, 0);
  tb_wakeup(t, 291 * US, 1, B, A, 0);
  sw(t, 300, 1, B, "S", IDLE);
  sw(t, 400, 0, IDLE, "R", A);
  tb_next_stack(t, "schedule,pipe_read,vfs_read|__libc_read,main");
  sw(t, 500, 0, A, "S", IDLE);
  sw(t, 550, 1, IDLE, "R", B);
  tb_waking(t, 590 * US, 1, B, A, 0);
  tb_wakeup(t, 591 * US, 1, B, A, 0);
  sw(t, 600, 1, B, "S", IDLE);
  sw(t, 700, 0, IDLE, "R", A);
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
  rsp_viewport vp = { .t0 = 0, .t1 = 1000 * US, .width = st->label_width + 1000, .height = 120 };
  int rh = st->row_height, mid = rh / 2;
  /* path 0's band: depth 1 on the first row, depth 0 below it */
  int y1 = st->ruler_height, y0 = st->ruler_height + rh;
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, vp.width, vp.height);
  cairo_t *cr = cairo_create(s);
  rsp_flame_view_draw(v, cr, &vp, st);
#define X(us) (st->label_width + (us))
  CHECK_COLOUR(s, X(150), y0 + mid, st->run);    /* A's first run */
  CHECK_COLOUR(s, X(390), y0 + 2, st->sleep);    /* A's sleep */
  CHECK_COLOUR(s, X(450), y0 + mid, st->run);    /* A's second run */
  CHECK_COLOUR(s, X(275), y1 + 2, st->run);      /* B's run, what the sleep waited on, above it */
  CHECK_COLOUR(s, X(350), y1 + mid, st->background); /* nothing above the sleep after B's run */
  CHECK_COLOUR(s, X(150), y1 + mid, st->background); /* nothing above A's run */
  CHECK_COLOUR(s, X(600), y0 + 2, st->sleep);
  CHECK_COLOUR(s, X(575), y1 + 2, st->run);
  CHECK_COLOUR(s, X(850), y0 + mid, st->background);
  /* the wakeup link from B's run (290 us, depth 1) to A's run at 400 us (depth 0), through its midpoint */
  {
    int lx = (X(290) + X(400)) / 2, ly = ((y1 + mid) + (y0 + mid)) / 2;
    bool found = false;
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        rsp_rgb p = pixel(s, lx + dx, ly + dy);
        if (fabs(p.r - st->link_wakeup.r) + fabs(p.g - st->link_wakeup.g) + fabs(p.b - st->link_wakeup.b) < 0.25)
          found = true;
      }
    CHECK(found);
  }
  rsp_elem_id e;
  CHECK(rsp_flame_view_hit(v, &vp, st, X(275), y1 + mid, &e));
  CHECK(e != RSP_NO_ID && rsp_paths_elem(paths, e)->kind == RSP_ELEM_RUN &&
        rsp_paths_elem(paths, e)->task == find_task(m, B, 0));
  CHECK(!rsp_flame_view_hit(v, &vp, st, X(350), y1 + mid, &e));

  rsp_consolidated_view *cv = rsp_consolidated_view_new(paths);
  CHECK_EQ(rsp_consolidated_view_total(cv), 700 * US);
  const char *label = NULL;
  uint64_t dur = 0;
  uint32_t merged = 0;
  rsp_flame_view_draw(v, cr, &vp, st); /* fill the surface with something else first */
  rsp_consolidated_view_draw(cv, cr, &vp, st);
  CHECK_COLOUR(s, X(300), y0 + 2, st->sleep);  /* the merged read() sleeps: 0-400 */
  CHECK_COLOUR(s, X(395), y0 + 2, st->sleep);
  CHECK_COLOUR(s, X(600), y0 + mid, st->run);  /* A's merged runs: 400-700 */
  CHECK_COLOUR(s, X(695), y0 + mid, st->run);
  CHECK_COLOUR(s, X(705), y0 + mid, st->background);
  CHECK_COLOUR(s, X(50), y1 + mid, st->run);   /* B's merged runs above the sleeps: 0-100 */
  /* beside it, shorter: B's sleep before its second run, cut at the start of A's second sleep
   * (500-550 us: the paper's triangle cut), a child of that sleep too */
  CHECK(rsp_consolidated_view_node_at(cv, &vp, st, X(125), y1 + mid, &label, &dur, &merged));
  CHECK_EQ(dur, 50 * US);
  CHECK_COLOUR(s, X(125), y1 + 2, st->sleep);
  CHECK_COLOUR(s, X(155), y1 + mid, st->background);
  CHECK(rsp_consolidated_view_node_at(cv, &vp, st, X(200), y0 + mid, &label, &dur, &merged));
  CHECK_STR(label, "__libc_read");
  CHECK_EQ(dur, 400 * US);
  CHECK_EQ(merged, 2);
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
