/* Pixel tests of the Process Running View on a synthetic trace whose truth is written by hand:
 * runs, sleeps, links and the level-of-detail merge are drawn in the paper's colours exactly
 * where the construction puts them. The viewport maps 1 us to 1 pixel: x = label column + t/us. */
#include "../model/checks.h"
#include "render/render.h"

#include <glib/gstdio.h>
#include <math.h>


enum { IDLE = 0, A = 100, B = 200, C = 300 };
#define DEV ((8u << 20) | 0u)

static void sw(tb *t, uint64_t us, int32_t cpu, int32_t prev, const char *state, int32_t next)
{
  tb_sched_switch(t, us * US, cpu, prev, state, next);
}

/* A runs 100-200 us, sleeps in read() until B (running 100-700 on cpu 1) wakes it at 300; A runs
 * again 400-600. B issues a disk read at 650 us, sleeps in state D 700-800 until its completion at
 * 780 us, runs 800-900. C runs 200 times for 0.2 us,
 * once per microsecond, from 100 us: each run is a fifth of a pixel wide. */
static rsp_model *build(void)
{
  tb *t = tb_new(false);
  tb_comm(t, 0, 0, A, "alpha", false);
  tb_comm(t, 0, 1, B, "beta", false);
  tb_comm(t, 0, 2, C, "gamma", false);
  sw(t, 100, 0, IDLE, "R", A);
  sw(t, 100, 1, IDLE, "R", B);
  for (int i = 0; i < 200; i++) { /* in time order, A's switch-out at 200 us among them */
    if (i == 100) {
      tb_next_stack(t, "schedule,pipe_read,vfs_read|__libc_read,main");
      sw(t, 200, 0, A, "S", IDLE);
    }
    tb_sched_switch(t, (100 + i) * US, 2, IDLE, "R", C);
    tb_sched_switch(t, (100 + i) * US + 200, 2, C, "S", IDLE);
  }
  tb_waking(t, 300 * US, 1, B, A, 0);
  tb_wakeup(t, 302 * US, 1, B, A, 0);
  sw(t, 400, 0, IDLE, "R", A);
  sw(t, 600, 0, A, "S", IDLE);
  tb_block(t, TB_INSERT, 650 * US, 1, B, DEV, 1000, 4096);
  tb_block(t, TB_ISSUE, 651 * US, 1, B, DEV, 1000, 4096);
  sw(t, 700, 1, B, "D", IDLE);
  tb_block(t, TB_COMPLETE, 780 * US, 0, IDLE, DEV, 1000, 4096);
  tb_wakeup(t, 781 * US, 0, IDLE, B, 1);
  sw(t, 800, 1, IDLE, "R", B);
  sw(t, 900, 1, B, "S", IDLE);
  return tb_finish(t);
}

static const rsp_style *st;

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
    rsp_rgb got_ = pixel(surface, x, y);                                                        \
    char g_[8], w_[8];                                                                          \
    if (dist(got_, want) > 0.03) {                                                              \
      fprintf(stderr, "%s:%d: pixel (%d, %d) is %s, expected %s (%s)\n", __FILE__, __LINE__,    \
              (int)(x), (int)(y), rsp_rgb_to_hex(got_, g_), rsp_rgb_to_hex(want, w_), #want);    \
      failures++;                                                                               \
    }                                                                                           \
  } while (0)

/* Whether some pixel within 1 px of (X, Y) has colour WANT (links are antialiased lines). */
static bool near_colour(cairo_surface_t *s, int x, int y, rsp_rgb want)
{
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      if (dist(pixel(s, x + dx, y + dy), want) < 0.25)
        return true;
  return false;
}

static int X(int us)
{
  return st->label_width + us;
}

/* Issue 17: a sleep ended by data on loopback is woken by the sender's run (its sched_waking), not
 * by the sleeper, whose own recv began the network operation. Beta waits in recv on SK; alpha
 * sends, and its softirq wakes beta. */
static void test_loopback_waker(void)
{
  enum { SK = 0x10000 };
  tb *t = tb_new(false);
  tb_comm(t, 0, 0, A, "alpha", false);
  tb_comm(t, 0, 1, B, "beta", false);
  sw(t, 40, 0, IDLE, "R", A);
  sw(t, 40, 1, IDLE, "R", B);
  tb_sock(t, TB_RECV, 50 * US, 1, B, SK);
  sw(t, 60, 1, B, "S", IDLE);
  tb_sock(t, TB_SEND, 400 * US, 0, A, SK + 1);
  tb_sock(t, TB_DATA_READY, 401 * US, 0, A, SK);
  tb_next_stack(t, "try_to_wake_up,sock_def_readable,tcp_data_queue,net_rx_action,handle_softirqs,do_softirq,"
                   "__local_bh_enable_ip,__dev_queue_xmit,tcp_sendmsg|send");
  tb_waking(t, 402 * US, 0, A, B, 1);
  sw(t, 420, 1, IDLE, "R", B);
  tb_sock(t, TB_RECV, 421 * US, 1, B, SK);
  sw(t, 500, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id b = find_task(m, B, 0);
  rsp_sleep_id id = rsp_model_task_sleep(m, b, 0);
  CHECK_EQ(rsp_model_sleep(m, id)->end_cause, RSP_SLEEP_END_NETWORK);
  rsp_running_view *v = rsp_running_view_new(m);
  rsp_hit hit = { .kind = RSP_HIT_SLEEP, .pid = B, .task = b, .run = RSP_NO_ID, .sleep = id };
  char *text = rsp_running_view_describe(v, &hit);
  if (!strstr(text, "woken (network) by alpha"))
    fprintf(stderr, "the loopback sleep's description names the wrong waker:\n%s\n", text);
  CHECK(strstr(text, "woken (network) by alpha") != NULL);
  g_free(text);
  rsp_running_view_free(v);
  rsp_model_free(m);
}

/* Issue 17: one thread shown as two rows after exec. Alpha runs 100-200 us, execs "omega" at
 * 150 us, runs again 300-400: one row, each generation's runs on it, hit as its own. */
static void test_exec_one_row(void)
{
  tb *t = tb_new(false);
  tb_comm(t, 0, 0, A, "alpha", false);
  sw(t, 100, 0, IDLE, "R", A);
  tb_comm(t, 150 * US, 0, A, "omega", true);
  sw(t, 200, 0, A, "S", IDLE);
  sw(t, 300, 0, IDLE, "R", A);
  sw(t, 400, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id g0 = find_task(m, A, 0), g1 = find_task(m, A, 1);
  CHECK(g0 != RSP_NO_ID && g1 != RSP_NO_ID && g0 != g1);
  rsp_running_view *v = rsp_running_view_new(m);
  rsp_viewport vp = { .t0 = 0, .t1 = 1000 * US, .width = st->label_width + 1000, .height = 100 };
  CHECK_EQ(rsp_running_view_n_rows(v), 2); /* the process, its one thread */
  int y = st->ruler_height + st->row_height;
  CHECK_EQ(rsp_running_view_task_y(v, &vp, st, g0), y);
  CHECK_EQ(rsp_running_view_task_y(v, &vp, st, g1), y);
  rsp_hit hit;
  rsp_running_view_hit(v, &vp, st, X(120), y + st->row_height / 2, &hit);
  CHECK_EQ(hit.kind, RSP_HIT_RUN);
  rsp_running_view_hit(v, &vp, st, X(350), y + st->row_height / 2, &hit);
  CHECK_EQ(hit.kind, RSP_HIT_RUN);
  CHECK(hit.run != RSP_NO_ID && rsp_model_run(m, hit.run)->start == 300 * US);
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, vp.width, vp.height);
  cairo_t *cr = cairo_create(s);
  rsp_running_view_draw(v, cr, &vp, st);
  CHECK_COLOUR(s, X(120), y + st->row_height / 2, st->run);
  CHECK_COLOUR(s, X(350), y + st->row_height / 2, st->run);
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  rsp_running_view_free(v);
  rsp_model_free(m);
}

int main(void)
{
  st = rsp_style_default();
  test_loopback_waker();
  test_exec_one_row();
  rsp_model *m = build();
  rsp_running_view *v = rsp_running_view_new(m);
  rsp_viewport vp = { .t0 = 0, .t1 = 1000 * US, .width = st->label_width + 1000, .height = 200 };
  int rh = st->row_height;
  /* rows by pid: header alpha, alpha, header beta, beta, header gamma, gamma */
  CHECK_EQ(rsp_running_view_n_rows(v), 6);
  rsp_task_id a = find_task(m, A, 0), b = find_task(m, B, 0), c = find_task(m, C, 0);
  int ya = st->ruler_height + 1 * rh, yb = st->ruler_height + 3 * rh, yc = st->ruler_height + 5 * rh;
  CHECK_EQ(rsp_running_view_task_y(v, &vp, st, a), ya);
  CHECK_EQ(rsp_running_view_task_y(v, &vp, st, b), yb);
  CHECK_EQ(rsp_running_view_task_y(v, &vp, st, c), yc);

  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, vp.width, vp.height);
  cairo_t *cr = cairo_create(s);
  rsp_running_view_draw(v, cr, &vp, st);
  int mid = rh / 2;
  /* A's runs red, its sleep blue, nothing after its last run */
  CHECK_COLOUR(s, X(150), ya + mid, st->run);
  CHECK_COLOUR(s, X(500), ya + mid, st->run);
  CHECK_COLOUR(s, X(390), ya + 2, st->sleep);
  CHECK_COLOUR(s, X(60), ya + mid, st->row_alt);  /* before the recording's first run */
  CHECK_COLOUR(s, X(650), ya + mid, st->row_alt); /* after A's last run: no sleep drawn */
  /* B: running until 700, then a disk sleep (state D) in green */
  CHECK_COLOUR(s, X(650), yb + mid, st->run);
  CHECK_COLOUR(s, X(790), yb + 2, st->io);
  CHECK_COLOUR(s, X(850), yb + mid, st->run);
  /* the disk request in flight (650-780 us): a strip along the bottom of B's row */
  CHECK_COLOUR(s, X(660), yb + rh - 2, st->disk);
  CHECK_COLOUR(s, X(770), yb + rh - 2, st->disk);
  CHECK_COLOUR(s, X(600), yb + rh - 2, st->row_alt);
  CHECK_COLOUR(s, X(850), yb + rh - 2, st->row_alt);
  {
    rsp_sleep_id bs = rsp_model_sleep_at(m, b, 750 * US);
    CHECK(bs != RSP_NO_ID && rsp_model_sleep(m, bs)->end_cause == RSP_SLEEP_END_DISK);
  }
  /* C: 200 runs a fifth of a pixel wide each, merged per pixel column: every column red */
  for (int us = 100; us < 299; us++)
    CHECK_COLOUR(s, X(us), yc + mid, st->run);
  CHECK_COLOUR(s, X(310), yc + 2, st->row_alt); /* after C's last run */
  /* and its 199 sleeps between them (in S: not I/O), a pixel column each, along the row's top above the runs */
  for (int us = 101; us < 298; us += 7)
    CHECK_COLOUR(s, X(us), yc + 1, st->sleep);
  /* the wakeup link: from B's run at 300 us to A's run starting at 400 us, through the midpoint */
  int lx = (X(300) + X(400)) / 2, ly = ((yb + mid) + (ya + mid)) / 2;
  CHECK(near_colour(s, lx, ly, st->link_wakeup));
  CHECK(near_colour(s, X(325), (yb + mid) + ((ya + mid) - (yb + mid)) / 4, st->link_wakeup));

  /* without links the midpoint is the process header's grey */
  rsp_running_view_set_show_links(v, false);
  rsp_running_view_draw(v, cr, &vp, st);
  CHECK(!near_colour(s, lx, ly, st->link_wakeup));
  /* without sleeps, A's sleep is background */
  rsp_running_view_set_show_sleeps(v, false);
  rsp_running_view_draw(v, cr, &vp, st);
  CHECK_COLOUR(s, X(390), ya + 2, st->row_alt);
  rsp_running_view_set_show_sleeps(v, true);
  /* search by the sleep's label function: the sleep turns to the match colour */
  CHECK(rsp_running_view_set_search(v, "libc_read") >= 1);
  rsp_running_view_draw(v, cr, &vp, st);
  CHECK_COLOUR(s, X(390), ya + 2, st->match);
  rsp_running_view_set_search(v, NULL);

  /* zoomed in on 380-420 us (1 us = 25 px): A's run begins at x of 400 us */
  rsp_viewport z = vp;
  z.t0 = 380 * US;
  z.t1 = 420 * US;
  rsp_running_view_draw(v, cr, &z, st);
  CHECK_COLOUR(s, X(500 + 10), ya + mid, st->run);
  CHECK_COLOUR(s, X(500 - 10), ya + 2, st->sleep);

  /* the wait chain of A: A's runs get the chain strip along their row's top */
  CHECK_COLOUR(s, X(150), ya, st->row_alt);
  rsp_paths *paths = rsp_paths_build(m, A, NULL, NULL);
  CHECK(paths != NULL);
  rsp_running_view_set_wait_chain(v, paths);
  rsp_running_view_draw(v, cr, &vp, st);
  CHECK_COLOUR(s, X(150), ya, st->selection);
  CHECK_COLOUR(s, X(150), ya + mid, st->run);
  CHECK_COLOUR(s, X(150), yc, st->row_alt); /* C has nothing to do with A */
  rsp_running_view_set_wait_chain(v, NULL);
  rsp_paths_free(paths);

  /* hit testing and the description */
  rsp_hit hit;
  rsp_running_view_hit(v, &vp, st, X(150), ya + mid, &hit);
  CHECK_EQ(hit.kind, RSP_HIT_RUN);
  CHECK_EQ(hit.task, a);
  CHECK_EQ(hit.run != RSP_NO_ID ? rsp_model_run(m, hit.run)->start : 0, 100 * US);
  rsp_running_view_hit(v, &vp, st, X(250), ya + mid, &hit);
  CHECK_EQ(hit.kind, RSP_HIT_SLEEP);
  char *text = rsp_running_view_describe(v, &hit);
  CHECK(strstr(text, "alpha") && strstr(text, "__libc_read") && strstr(text, "beta"));
  g_free(text);
  rsp_running_view_hit(v, &vp, st, X(750), yb + mid, &hit);
  CHECK_EQ(hit.kind, RSP_HIT_SLEEP);
  text = rsp_running_view_describe(v, &hit);
  CHECK(strstr(text, "disk request R, 4096 bytes at sector 1000"));
  g_free(text);
  rsp_running_view_hit(v, &vp, st, 20, yb + mid, &hit);
  CHECK_EQ(hit.kind, RSP_HIT_TASK);
  CHECK_EQ(hit.task, b);

  /* issue 17: the processes of the paths first (beta, then alpha), the rest (gamma) folded under one
   * row, which unfolds; the pixels of that row are the process header's */
  {
    int32_t first[] = { B, A };
    rsp_running_view_set_first(v, first, 2, true);
    CHECK_EQ(rsp_running_view_n_rows(v), 5); /* beta, b, alpha, a, the fold row */
    CHECK_EQ(rsp_running_view_n_others(v), 1);
    CHECK_EQ(rsp_running_view_task_y(v, &vp, st, b), st->ruler_height + 1 * rh);
    CHECK_EQ(rsp_running_view_task_y(v, &vp, st, a), st->ruler_height + 3 * rh);
    CHECK_EQ(rsp_running_view_task_y(v, &vp, st, c), -1);
    int yf = st->ruler_height + 4 * rh;
    rsp_running_view_hit(v, &vp, st, 20, yf + mid, &hit);
    CHECK_EQ(hit.kind, RSP_HIT_FOLD);
    rsp_running_view_draw(v, cr, &vp, st);
    CHECK_COLOUR(s, X(500), yf + 1, st->process_bg);
    char *fold = rsp_running_view_describe(v, &hit);
    CHECK(strstr(fold, "1 other processes"));
    g_free(fold);
    rsp_running_view_set_others_folded(v, false);
    CHECK_EQ(rsp_running_view_n_rows(v), 7);
    CHECK_EQ(rsp_running_view_task_y(v, &vp, st, c), st->ruler_height + 6 * rh);
    rsp_running_view_set_first(v, NULL, 0, false);
    CHECK_EQ(rsp_running_view_n_rows(v), 6);
    CHECK_EQ(rsp_running_view_n_others(v), 0);
  }

  /* issue 17: the ruler read "1061000 us" zoomed in a second into a recording */
  {
    char tick[48];
    CHECK(!strcmp(rsp_format_tick(1061500000ull, 500000, 1063000000ull, tick, sizeof tick), "1061.5 ms"));
    CHECK(!strcmp(rsp_format_tick(1061000000ull, 100000000, 1200000000ull, tick, sizeof tick), "1061 ms"));
    CHECK(!strcmp(rsp_format_tick(200000000ull, 100000000, 500000000ull, tick, sizeof tick), "200 ms"));
    CHECK(!strcmp(rsp_format_tick(12500, 2500, 20000, tick, sizeof tick), "12.5 us"));
    CHECK(!strcmp(rsp_format_tick(30000000000ull, 1000000, 30005000000ull, tick, sizeof tick), "30.000 s"));
  }

  /* the filter keeps only matching processes */
  rsp_running_view_set_filter(v, "BET");
  CHECK_EQ(rsp_running_view_n_rows(v), 2);
  CHECK_EQ(rsp_running_view_task_y(v, &vp, st, a), -1);
  rsp_running_view_set_filter(v, NULL);
  rsp_running_view_set_sort(v, RSP_SORT_BY_RUNTIME); /* B ran most: first */
  CHECK_EQ(rsp_running_view_task_y(v, &vp, st, b), st->ruler_height + rh);

  /* the export writes the same drawing to PNG; SVG too */
  rsp_running_view_set_sort(v, RSP_SORT_BY_PID);
  g_autofree char *dir = g_dir_make_tmp("rsp-gui-XXXXXX", NULL);
  g_autofree char *png = g_build_filename(dir, "view.png", NULL);
  g_autofree char *svg = g_build_filename(dir, "view.svg", NULL);
  GError *error = NULL;
  CHECK(rsp_export_running_view(v, &vp, st, png, &error));
  CHECK(rsp_export_running_view(v, &vp, st, svg, &error));
  CHECK(!rsp_export_running_view(v, &vp, st, "/nonexistent-dir/x.png", &error) && error);
  g_clear_error(&error);
  CHECK(!rsp_export_running_view(v, &vp, st, "x.jpg", &error) && error);
  g_clear_error(&error);
  cairo_surface_t *back = cairo_image_surface_create_from_png(png);
  CHECK_EQ(cairo_surface_status(back), CAIRO_STATUS_SUCCESS);
  if (cairo_surface_status(back) == CAIRO_STATUS_SUCCESS) {
    CHECK_COLOUR(back, X(150), ya + mid, st->run);
    CHECK_COLOUR(back, X(790), yb + 2, st->io);
  }
  cairo_surface_destroy(back);
  gchar *svg_text = NULL;
  CHECK(g_file_get_contents(svg, &svg_text, NULL, NULL) && strstr(svg_text, "<svg"));
  g_free(svg_text);
  g_unlink(png);
  g_unlink(svg);
  g_rmdir(dir);

  cairo_destroy(cr);
  cairo_surface_destroy(s);
  rsp_running_view_free(v);
  rsp_model_free(m);
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  return failures ? 1 : 0;
}
