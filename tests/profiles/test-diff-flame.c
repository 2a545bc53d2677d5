/* The differential consolidated flame graph (rsp-diff --flame-out) of two synthetic recordings whose
 * stacks are written here by hand. In both, process alpha runs, sleeps in nap() (wait stack
 * main -> nap -> schedule) from an interrupt's wakeup, and runs again:
 *
 *   A: run 100-300 us (samples main->work at 150, main->crunch at 250: 100 us each), sleep 300-650,
 *      run 650-850 (main->crunch at 750: 200 us)
 *   B: run 100-400 us (main->work at 150 and 250, main->crunch at 350: 100 us each), sleep 400-750,
 *      run 750-900 (main->crunch at 800: 150 us)
 *
 * So by construction: work grew by 100 us (100 -> 200), crunch shrank by 50 (300 -> 250), nap and
 * schedule are unchanged (350), alpha grew by 50 (750 -> 800), main too. Alpha's pid is 100 in A and
 * 200 in B: frames match by name, not pid. Drawn with widths
 * max(A, B): above main, nap (350 us), crunch (300), work (200): 850 us in all, more than alpha's
 * 800 (the children overhang), so at 850 px the scale is one pixel per microsecond. */
#include "../model/checks.h"
#include "render/render.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>

int failures;

enum { IDLE = 0 };

static int32_t alpha_pid; /* alpha's pid in the recording being built: 100 in A, 200 in B (pids differ) */
#define ALPHA alpha_pid

static void sw(tb *t, uint64_t us, int32_t prev, const char *state, int32_t next)
{
  tb_sched_switch(t, us * US, 0, prev, state, next);
}

static void sample(tb *t, uint64_t us, const char *stack)
{
  tb_next_stack(t, stack);
  tb_sample(t, us * US, 0, ALPHA);
}

/* Alpha runs [100, run_end) with SAMPLES (N of them at the given times), sleeps in nap() until
 * wake, runs [wake, end) with one crunch sample at LAST. */
static rsp_model *recording(int32_t pid, const uint64_t *work_at, int n_work, uint64_t crunch_at, uint64_t run_end,
                            uint64_t wake, uint64_t last, uint64_t end)
{
  alpha_pid = pid;
  tb *t = tb_new(false);
  tb_comm(t, 0, 0, ALPHA, "alpha", false);
  sw(t, 100, IDLE, "R", ALPHA);
  for (int i = 0; i < n_work; i++)
    sample(t, work_at[i], "|work,main");
  sample(t, crunch_at, "|crunch,main");
  tb_next_stack(t, "schedule|nap,main");
  sw(t, run_end, ALPHA, "S", IDLE);
  tb_waking(t, (wake - 2) * US, 0, IDLE, ALPHA, 0);
  tb_wakeup(t, (wake - 1) * US, 0, IDLE, ALPHA, 0);
  sw(t, wake, IDLE, "R", ALPHA);
  sample(t, last, "|crunch,main");
  sw(t, end, ALPHA, "S", IDLE);
  return tb_finish(t);
}

static rsp_stack_tree *stacks(const rsp_model *m, int32_t pid)
{
  GError *error = NULL;
  rsp_paths *paths = rsp_paths_build(m, pid, NULL, &error);
  if (!paths) {
    fprintf(stderr, "no paths: %s\n", error->message);
    exit(1);
  }
  rsp_stack_tree *t = rsp_stack_tree_build(paths, 0, UINT64_MAX);
  rsp_paths_free(paths);
  return t;
}

static const rsp_stack_diff_node *find(const rsp_stack_diff *d, const char *a, const char *b, const char *c,
                                       const char *e)
{
  const char *labels[4] = { a, b, c, e };
  uint32_t n = e ? 4 : c ? 3 : b ? 2 : 1;
  uint32_t id = rsp_stack_diff_find(d, labels, n);
  if (id == RSP_NO_ID) {
    fprintf(stderr, "no frame %s;%s;%s;%s\n", a, b ? b : "", c ? c : "", e ? e : "");
    failures++;
    static const rsp_stack_diff_node none;
    return &none;
  }
  return rsp_stack_diff_get(d, id);
}

static rsp_rgb pixel(cairo_surface_t *s, int x, int y)
{
  const unsigned char *data = cairo_image_surface_get_data(s);
  uint32_t v = *(const uint32_t *)(data + y * cairo_image_surface_get_stride(s) + x * 4);
  return (rsp_rgb){ ((v >> 16) & 255) / 255.0, ((v >> 8) & 255) / 255.0, (v & 255) / 255.0 };
}

/* Red clearly above green and blue: a "grew" shade. */
static bool reddish(rsp_rgb c)
{
  return c.r > c.g + 0.15 && c.r > c.b + 0.15;
}

static bool bluish(rsp_rgb c)
{
  return c.b > c.r + 0.15 && c.b > c.g + 0.1;
}

static bool grey(rsp_rgb c)
{
  return fabs(c.r - c.g) < 0.02 && fabs(c.g - c.b) < 0.02 && c.r > 0.3 && c.r < 0.95;
}

#define CHECK_PIXEL(s, x, y, pred)                                                                     \
  do {                                                                                                 \
    rsp_rgb p_ = pixel(s, x, y);                                                                       \
    char h_[8];                                                                                        \
    if (!pred(p_)) {                                                                                   \
      fprintf(stderr, "%s:%d: pixel (%d, %d) is %s, not %s\n", __FILE__, __LINE__, (int)(x), (int)(y),  \
              rsp_rgb_to_hex(p_, h_), #pred);                                                          \
      failures++;                                                                                      \
    }                                                                                                  \
  } while (0)

int main(void)
{
  const uint64_t work_a[] = { 150 }, work_b[] = { 150, 250 };
  rsp_model *ma = recording(100, work_a, 1, 250, 300, 650, 750, 850);
  rsp_model *mb = recording(200, work_b, 2, 350, 400, 750, 800, 900);
  rsp_stack_tree *ta = stacks(ma, 100), *tb_ = stacks(mb, 200);
  CHECK_EQ(rsp_stack_tree_total(ta), 750 * US);
  CHECK_EQ(rsp_stack_tree_total(tb_), 800 * US);
  rsp_stack_diff *d = rsp_stack_diff_compute(ta, tb_);

  const rsp_stack_diff_node *work = find(d, "alpha", "main", "work", NULL);
  CHECK_EQ(work->a_ns, 100 * US);
  CHECK_EQ(work->b_ns, 200 * US);
  CHECK_EQ(work->delta_ns, 100 * US);
  const rsp_stack_diff_node *crunch = find(d, "alpha", "main", "crunch", NULL);
  CHECK_EQ(crunch->a_ns, 300 * US);
  CHECK_EQ(crunch->delta_ns, (uint64_t)(-50 * (int64_t)US));
  CHECK(crunch->delta_ns == -50 * (int64_t)US);
  const rsp_stack_diff_node *nap = find(d, "alpha", "main", "nap", NULL);
  CHECK_EQ(nap->a_ns, 350 * US);
  CHECK_EQ(nap->delta_ns, 0);
  CHECK_EQ(find(d, "alpha", "main", "nap", "schedule")->b_ns, 350 * US);
  const rsp_stack_diff_node *alpha = find(d, "alpha", NULL, NULL, NULL);
  CHECK_EQ(alpha->delta_ns, 50 * US);
  CHECK(alpha->kinds & RSP_FRAME_PROCESS);
  CHECK_EQ(rsp_stack_diff_max_depth(d), 3);
  /* a frame only in B is matched with nothing: 0 in A */
  CHECK_EQ(rsp_stack_diff_find(d, (const char *const[]){ "alpha", "work" }, 2), RSP_NO_ID);
  char *path = rsp_stack_diff_path(d, rsp_stack_diff_find(d, (const char *const[]){ "alpha", "main", "work" }, 3), ";");
  CHECK_STR(path, "alpha;main;work");
  g_free(path);
  CHECK_EQ(rsp_diff_flame_total(d), 850 * US);
  {
    /* the other way round: the same frames, deltas negated */
    rsp_stack_diff *r = rsp_stack_diff_compute(tb_, ta);
    CHECK_EQ(rsp_stack_diff_n_nodes(r), rsp_stack_diff_n_nodes(d));
    CHECK(find(r, "alpha", "main", "work", NULL)->delta_ns == -100 * (int64_t)US);
    CHECK(find(r, "alpha", "main", "crunch", NULL)->delta_ns == 50 * (int64_t)US);
    rsp_stack_diff_free(r);
  }

  /* the drawing, through the PNG export */
  char *png = g_build_filename(g_get_tmp_dir(), "rsp-test-diff-flame-XXXXXX.png", NULL);
  int fd = g_mkstemp(png);
  CHECK(fd >= 0);
  if (fd >= 0)
    close(fd);
  GError *error = NULL;
  CHECK(rsp_export_diff_flame(d, 850, "test", NULL, png, &error));
  cairo_surface_t *s = cairo_image_surface_create_from_png(png);
  CHECK(cairo_surface_status(s) == CAIRO_STATUS_SUCCESS);
  const rsp_style *st = rsp_style_default();
  CHECK_EQ(cairo_image_surface_get_width(s), 850);
  CHECK_EQ(cairo_image_surface_get_height(s), rsp_diff_flame_height(d, st, NULL));
  if (getenv("RSP_TEST_PNG"))
    cairo_surface_write_to_png(s, getenv("RSP_TEST_PNG"));
  cairo_surface_flush(s);
  /* depth D's row (render.h): max depth 3 at the top; 2 px below its top edge, clear of labels */
#define Y(depth) (st->ruler_height + (3 - (depth)) * st->row_height + 2)
  /* above main, widest first: nap 0-350, crunch 350-650, work 650-850; samples at the right ends */
  CHECK_PIXEL(s, 845, Y(2), reddish); /* work grew by 100 us of 200: rel 0.5 */
  CHECK_PIXEL(s, 640, Y(2), bluish);  /* crunch shrank by 50 of 300 */
  CHECK_PIXEL(s, 340, Y(2), grey);    /* nap the same */
  CHECK_PIXEL(s, 340, Y(3), grey);    /* schedule the same */
  CHECK_PIXEL(s, 790, Y(0), reddish); /* alpha grew by 50 of 800 */
  CHECK_PIXEL(s, 790, Y(1), reddish); /* main too */
  CHECK_PIXEL(s, 820, Y(1), !reddish); /* main is 800 us wide: nothing drawn right of it at its depth */
  CHECK_PIXEL(s, 400, Y(3), !grey);   /* nothing above crunch */
  {
    /* the stronger the change, the deeper the shade: work (rel 0.5) redder than alpha (0.06) */
    rsp_rgb w = pixel(s, 845, Y(2)), a = pixel(s, 790, Y(0));
    CHECK(w.r - w.g > a.r - a.g + 0.1);
  }
  cairo_surface_destroy(s);
  g_unlink(png);
  g_free(png);

  /* colours by relative change */
  CHECK(grey(rsp_diff_flame_colour(0)));
  CHECK(grey(rsp_diff_flame_colour(0.04)));
  CHECK(reddish(rsp_diff_flame_colour(0.2)));
  CHECK(bluish(rsp_diff_flame_colour(-0.2)));
  CHECK(reddish(rsp_diff_flame_colour(1)));

  /* an unwritable path is an error, not a crash */
  CHECK(!rsp_export_diff_flame(d, 850, "test", NULL, "/nonexistent-dir/x.png", &error));
  CHECK(error != NULL);
  g_clear_error(&error);

  rsp_stack_diff_free(d);
  rsp_stack_tree_free(ta);
  rsp_stack_tree_free(tb_);
  rsp_model_free(ma);
  rsp_model_free(mb);
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  return failures ? 1 : 0;
}
