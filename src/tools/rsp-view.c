/* rsp-view: the views of a recording. Opens the GTK window (when built with GTK), or, with
 * --export, draws a view to PNG/SVG with no display; --bench times the drawing. */
#include "render/render.h"
#include "view-profiles.h"
#ifdef RSP_HAVE_GTK
#include "app/app.h"
#endif

#include <glib/gi18n.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *opt_export, *opt_range, *opt_filter, *opt_search, *opt_sort;
static int opt_flame = -1, opt_focus = -1, opt_width = 0, opt_height = 0;
static gboolean opt_consolidated, opt_no_sleeps, opt_no_links, opt_bench, opt_self_test, opt_version;
/* issue 7: latency profiles */
static char *opt_histogram, *opt_heatmap, *opt_slice;
static int opt_pid = -1, opt_resolution = 1;
static gboolean opt_diff, opt_normalized;

static const GOptionEntry entries[] = {
  { "export", 'o', 0, G_OPTION_ARG_FILENAME, &opt_export, N_("Draw the view into OUT.png or OUT.svg (no display needed)"), "OUT" },
  { "flame", 'f', 0, G_OPTION_ARG_INT, &opt_flame, N_("The flame view of process PID (with --export)"), "PID" },
  { "consolidated", 'c', 0, G_OPTION_ARG_NONE, &opt_consolidated, N_("The consolidated flame view (with --flame)"), NULL },
  { "range", 'r', 0, G_OPTION_ARG_STRING, &opt_range, N_("Time range from the recording's start, e.g. 1.5ms:3ms (with --export only that part of the file is read)"), "T0:T1" },
  { "width", 'W', 0, G_OPTION_ARG_INT, &opt_width, N_("Export width in pixels (default 1600; 1000 for histograms)"), "PX" },
  { "height", 'H', 0, G_OPTION_ARG_INT, &opt_height, N_("Export height in pixels (default: all rows)"), "PX" },
  { "filter", 0, 0, G_OPTION_ARG_STRING, &opt_filter, N_("Only processes with a thread whose name contains TEXT"), "TEXT" },
  { "search", 's', 0, G_OPTION_ARG_STRING, &opt_search, N_("Highlight tasks, sleeps and flame frames matching TEXT"), "TEXT" },
  { "sort", 0, 0, G_OPTION_ARG_STRING, &opt_sort, N_("Process order: pid, name or runtime"), "ORDER" },
  { "focus", 0, 0, G_OPTION_ARG_INT, &opt_focus, N_("Highlight process PID and the tasks that woke it"), "PID" },
  { "no-sleeps", 0, 0, G_OPTION_ARG_NONE, &opt_no_sleeps, N_("Do not draw sleeps"), NULL },
  { "no-links", 0, 0, G_OPTION_ARG_NONE, &opt_no_links, N_("Do not draw links"), NULL },
  { "bench", 0, 0, G_OPTION_ARG_NONE, &opt_bench, N_("Print load, first-paint and redraw times"), NULL },
  { "histogram", 0, 0, G_OPTION_ARG_STRING, &opt_histogram, N_("The latency histogram of class CLASS (with --export; with --diff: that pair)"), "CLASS" },
  { "heatmap", 0, 0, G_OPTION_ARG_STRING, &opt_heatmap, N_("The time-sampled profile of class CLASS as a heat map (with --export)"), "CLASS" },
  { "pid", 'p', 0, G_OPTION_ARG_INT, &opt_pid, N_("Histograms of process PID only"), "PID" },
  { "slice", 0, 0, G_OPTION_ARG_STRING, &opt_slice, N_("Time slice of the heat map (default 2.5s)"), "DURATION" },
  { "resolution", 0, 0, G_OPTION_ARG_INT, &opt_resolution, N_("Histogram buckets per octave: 1, 2 or 4"), "R" },
  { "diff", 'd', 0, G_OPTION_ARG_NONE, &opt_diff, N_("Compare two recordings A B: the compare window, or with --export the top pair"), NULL },
  { "normalized", 0, 0, G_OPTION_ARG_NONE, &opt_normalized, N_("With --diff: bars as shares of each profile's count"), NULL },
  { "self-test", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &opt_self_test, "GUI test mode", NULL },
  { "version", 'V', 0, G_OPTION_ARG_NONE, &opt_version, N_("Print the version"), NULL },
  { NULL },
};

static bool parse_range(const char *text, uint64_t origin, uint64_t *t0, uint64_t *t1)
{
  uint64_t x, y;
  if (!rsp_parse_range(text, &x, &y))
    return false;
  *t0 = origin + x;
  *t1 = origin + y;
  return true;
}

static bool configure(rsp_running_view *view)
{
  if (opt_sort) {
    if (!strcmp(opt_sort, "pid"))
      rsp_running_view_set_sort(view, RSP_SORT_BY_PID);
    else if (!strcmp(opt_sort, "name"))
      rsp_running_view_set_sort(view, RSP_SORT_BY_NAME);
    else if (!strcmp(opt_sort, "runtime"))
      rsp_running_view_set_sort(view, RSP_SORT_BY_RUNTIME);
    else {
      fprintf(stderr, "rsp-view: --sort must be pid, name or runtime, not '%s'\n", opt_sort);
      return false;
    }
  }
  rsp_running_view_set_filter(view, opt_filter);
  rsp_running_view_set_search(view, opt_search);
  rsp_running_view_set_show_sleeps(view, !opt_no_sleeps);
  rsp_running_view_set_show_links(view, !opt_no_links);
  rsp_running_view_set_focus_pid(view, opt_focus);
  return true;
}

static double draw_ms(rsp_running_view *view, const rsp_viewport *vp, int repeat)
{
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, vp->width, vp->height);
  cairo_t *cr = cairo_create(s);
  double best = 1e300;
  for (int i = 0; i < repeat; i++) {
    gint64 a = g_get_monotonic_time();
    rsp_running_view_draw(view, cr, vp, rsp_style_default());
    cairo_surface_flush(s);
    double ms = (double)(g_get_monotonic_time() - a) / 1000.0;
    if (ms < best)
      best = ms;
  }
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  return best;
}

/* This process's resident memory now, and at its peak so far (MB; 0 where /proc is not readable). */
static void resident_mb(double *now, double *peak)
{
  *now = *peak = 0;
  g_autofree char *status = NULL;
  if (!g_file_get_contents("/proc/self/status", &status, NULL, NULL))
    return;
  const char *r = strstr(status, "VmRSS:"), *h = strstr(status, "VmHWM:");
  if (r)
    *now = g_ascii_strtod(r + 6, NULL) / 1024.0;
  if (h)
    *peak = g_ascii_strtod(h + 6, NULL) / 1024.0;
}

/* The histograms pane's work: every process's profiles (as the pane builds them in its worker),
 * then the largest profile's histogram and heat map drawn at 700 x 300. */
static void bench_profiles(const rsp_model *model, rsp_running_view *view)
{
  gint64 a = g_get_monotonic_time();
  rsp_profile_options o = { .resolution = (unsigned)opt_resolution, .pid = -1 };
  rsp_profile_set *set = rsp_profile_set_build(model, &o, NULL);
  rsp_characteristic_times times;
  rsp_characteristic_times_measure(model, &times);
  double build = (double)(g_get_monotonic_time() - a) / 1000.0;
  double rss, peak;
  resident_mb(&rss, &peak);
  printf("histograms' profiles built: resident memory %.0f MB, peak %.0f MB\n", rss, peak);
  if (!set || !rsp_profile_set_n(set)) {
    printf("histograms: no profiles (%.1f ms)\n", build);
    rsp_profile_set_free(set);
    return;
  }
  uint64_t instances = 0;
  const rsp_profile *busiest = rsp_profile_set_get(set, 0);
  for (uint32_t i = 0; i < rsp_profile_set_n(set); i++) {
    instances += rsp_profile_set_get(set, i)->count;
    if (rsp_profile_set_get(set, i)->count > busiest->count)
      busiest = rsp_profile_set_get(set, i);
  }
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 700, 300);
  cairo_t *cr = cairo_create(s);
  double hist = 1e300, heat = 1e300, tl_ms = 0;
  for (int i = 0; i < 5; i++) {
    gint64 b = g_get_monotonic_time();
    rsp_histogram_view_draw(cr, 700, 300, busiest, &times, NULL);
    cairo_surface_flush(s);
    gint64 c = g_get_monotonic_time();
    rsp_profile_timeline *tl = rsp_profile_timeline_build(model, busiest, 2500000000ull);
    gint64 d = g_get_monotonic_time();
    rsp_heat_map_draw(cr, 700, 300, tl, busiest->resolution, NULL);
    cairo_surface_flush(s);
    gint64 e = g_get_monotonic_time();
    rsp_profile_timeline_free(tl);
    hist = MIN(hist, (double)(c - b) / 1000.0);
    tl_ms = i ? MIN(tl_ms, (double)(d - c) / 1000.0) : (double)(d - c) / 1000.0;
    heat = MIN(heat, (double)(e - d) / 1000.0);
  }
  printf("histograms: %u profiles of %" G_GUINT64_FORMAT " instances built in %.1f ms (with the characteristic "
         "times); the busiest (%s, %" G_GUINT64_FORMAT " instances): histogram drawn in %.2f ms, 2.5 s slices in "
         "%.2f ms, heat map drawn in %.2f ms\n",
         rsp_profile_set_n(set), instances, build, busiest->name, busiest->count, hist, tl_ms, heat);
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  /* the fullest bucket's instances highlighted in the running view (a click in the pane) */
  const rsp_profile_bucket *full = &busiest->buckets[0];
  for (uint32_t i = 0; i < busiest->n_buckets; i++)
    if (busiest->buckets[i].count > full->count)
      full = &busiest->buckets[i];
  rsp_highlight *hl = g_new(rsp_highlight, full->n_instances);
  uint32_t n = 0;
  for (uint32_t k = 0; k < full->n_instances; k++) {
    const rsp_profile_instance *in = &busiest->instances[full->first_instance + k];
    if (busiest->instance_kind == RSP_INSTANCE_RUN) {
      const rsp_run *r = rsp_model_run(model, in->id);
      hl[n++] = (rsp_highlight){ r->task, r->start, r->end };
    } else if (busiest->instance_kind == RSP_INSTANCE_SLEEP) {
      const rsp_sleep *sl = rsp_model_sleep(model, in->id);
      hl[n++] = (rsp_highlight){ sl->task, sl->start, sl->end };
    }
  }
  rsp_running_view_set_highlights(view, hl, n);
  g_free(hl);
  uint64_t lo = rsp_model_time_first(model), hi = rsp_model_time_last(model);
  rsp_viewport vp = { .t0 = lo, .t1 = hi > lo ? hi : lo + 1000, .width = 1600, .height = 900 };
  double with = draw_ms(view, &vp, 5);
  rsp_running_view_set_highlights(view, NULL, 0);
  double without = draw_ms(view, &vp, 5);
  printf("running view 1600x900, full zoom-out, with the %u instances of the busiest profile's fullest bucket "
         "highlighted: %.2f ms (%.2f ms without)\n", n, with, without);
  rsp_profile_set_free(set);
}

/* Times, on FILE: the model's build, the view's precomputation and its first paint (what a user
 * waits for), then the best redraw of 5 at full zoom-out and at a 1 ms window in the middle. */
static int bench(const char *file)
{
#ifdef RSP_HAVE_GTK
  /* the window on a big recording: its first seconds drawn while the whole loads (the app's loader) */
  {
    gint64 a = g_get_monotonic_time();
    uint64_t first_ns;
    rsp_model *fm = rsp_app_load_first_window(file, &first_ns);
    if (fm) {
      rsp_running_view *fv = rsp_running_view_new(fm);
      if (configure(fv)) {
        uint64_t flo = rsp_model_time_first(fm), fhi = rsp_model_time_last(fm);
        rsp_viewport fvp = { .t0 = flo, .t1 = fhi > flo ? fhi : flo + 1000, .width = 1600, .height = 900 };
        draw_ms(fv, &fvp, 1);
        printf("first window (the recording's first %.2f s, %" G_GUINT64_FORMAT " events): painted %.1f ms after "
               "the start, while the whole loads\n",
               (double)first_ns / 1e9, rsp_model_n_events(fm), (double)(g_get_monotonic_time() - a) / 1000.0);
      }
      rsp_running_view_free(fv);
      rsp_model_free(fm);
    }
  }
#endif
  gint64 t_start = g_get_monotonic_time();
  g_autoptr(GError) error = NULL;
  rsp_model *model = rsp_model_load(file, NULL, &error);
  if (!model) {
    fprintf(stderr, "rsp-view: %s\n", error->message);
    return 1;
  }
  gint64 t_model = g_get_monotonic_time();
  rsp_running_view *view = rsp_running_view_new(model);
  gint64 t_view = g_get_monotonic_time();
  if (!configure(view)) {
    rsp_running_view_free(view);
    rsp_model_free(model);
    return 2;
  }
  uint64_t lo = rsp_model_time_first(model), hi = rsp_model_time_last(model);
  if (hi <= lo)
    hi = lo + 1000;
  rsp_viewport vp = { .t0 = lo, .t1 = hi, .width = 1600, .height = 900 };
  double first = draw_ms(view, &vp, 1);
  printf("file %s: %" G_GUINT64_FORMAT " events, %u tasks, %u runs, %u sleeps, %u links\n", file,
         rsp_model_n_events(model), rsp_model_n_tasks(model), rsp_model_n_runs(model), rsp_model_n_sleeps(model),
         rsp_model_n_links(model));
  printf("model build %.1f ms, view precompute %.1f ms, first paint %.2f ms: time to first paint %.1f ms\n",
         (double)(t_model - t_start) / 1000.0, (double)(t_view - t_model) / 1000.0, first,
         (double)(t_view - t_start) / 1000.0 + first);
  double full = draw_ms(view, &vp, 5);
  printf("redraw 1600x900, full zoom-out (%.3f s): %.2f ms\n", (double)(hi - lo) / 1e9, full);
  /* the most crowded view: every row filled; the rows a 900 px window shows are the first ~60 */
  vp.t0 = lo + (hi - lo) / 2;
  vp.t1 = vp.t0 + 1000000;
  double ms1 = draw_ms(view, &vp, 5);
  printf("redraw 1600x900, 1 ms window: %.2f ms\n", ms1);
  vp.t0 = lo;
  vp.t1 = hi;
  vp.height = 20 + rsp_running_view_content_height(view, rsp_style_default()) + 24;
  if (vp.height > 16000)
    vp.height = 16000;
  double tall = draw_ms(view, &vp, 3);
  printf("redraw 1600x%d (all %u rows), full zoom-out: %.2f ms\n", vp.height, rsp_running_view_n_rows(view), tall);
  if (opt_flame >= 0) {
    double rss0, peak0, rss1, peak1, rss2, peak2, rss3, peak3;
    resident_mb(&rss0, &peak0);
    gint64 a = g_get_monotonic_time();
    g_autoptr(GError) perr = NULL;
    rsp_paths *paths = rsp_paths_build(model, opt_flame, NULL, &perr);
    if (!paths) {
      fprintf(stderr, "rsp-view: %s\n", perr->message);
    } else {
      resident_mb(&rss1, &peak1);
      rsp_flame_view *fv = rsp_flame_view_new(paths);
      resident_mb(&rss2, &peak2);
      rsp_consolidated_view *cv = rsp_consolidated_view_new(paths);
      double build = (double)(g_get_monotonic_time() - a) / 1000.0;
      resident_mb(&rss3, &peak3);
      /* and what the app builds beside them: the kernel work, the explanation (categories, story) */
      rsp_kernel_work *kw = rsp_kernel_work_compute(model);
      double rss4, peak4, rss5, peak5;
      resident_mb(&rss4, &peak4);
      rsp_categories cats;
      rsp_categories_compute(paths, &cats);
      rsp_explanation_free(rsp_explain_kwork(paths, &cats, kw));
      resident_mb(&rss5, &peak5);
      rsp_kernel_work_free(kw);
      printf("resident memory (MB, now/peak): model %.0f/%.0f, + paths %.0f/%.0f, + flame view %.0f/%.0f, "
             "+ consolidated view %.0f/%.0f, + kernel work %.0f/%.0f, + explanation %.0f/%.0f\n", rss0, peak0, rss1,
             peak1, rss2, peak2, rss3, peak3, rss4, peak4, rss5, peak5);
      vp.height = 900;
      vp.t0 = lo;
      vp.t1 = hi;
      cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, vp.width, vp.height);
      cairo_t *cr = cairo_create(s);
      double best_full = 1e300, best_1ms = 1e300, best_cons = 1e300, first_1ms = 0;
      rsp_viewport v1 = vp, vc = vp;
      v1.t0 = lo + (hi - lo) / 2;
      v1.t1 = v1.t0 + 1000000;
      vc.t0 = 0;
      vc.t1 = rsp_consolidated_view_total(cv) ? rsp_consolidated_view_total(cv) : 1;
      for (int i = 0; i < 5; i++) {
        gint64 b = g_get_monotonic_time();
        rsp_flame_view_draw(fv, cr, &vp, rsp_style_default());
        cairo_surface_flush(s);
        gint64 c = g_get_monotonic_time();
        rsp_flame_view_draw(fv, cr, &v1, rsp_style_default());
        cairo_surface_flush(s);
        gint64 d = g_get_monotonic_time();
        rsp_consolidated_view_draw(cv, cr, &vc, rsp_style_default());
        cairo_surface_flush(s);
        gint64 e = g_get_monotonic_time();
        if (!i)
          first_1ms = (double)(d - c) / 1000.0;
        best_full = MIN(best_full, (double)(c - b) / 1000.0);
        best_1ms = MIN(best_1ms, (double)(d - c) / 1000.0);
        best_cons = MIN(best_cons, (double)(e - d) / 1000.0);
      }
      /* zoomed in to a tenth: finer than the whole's grid, its window (three tenths) cut when first drawn */
      rsp_viewport v5 = vp;
      v5.t0 = lo + (hi - lo) * 9 / 20;
      v5.t1 = lo + (hi - lo) * 11 / 20;
      gint64 f0 = g_get_monotonic_time();
      rsp_flame_view_draw(fv, cr, &v5, rsp_style_default());
      cairo_surface_flush(s);
      printf("flame view zoomed in to the middle tenth: first drawn in %.1f ms (with its window's cut)\n",
             (double)(g_get_monotonic_time() - f0) / 1000.0);
      printf("flame view of pid %d: %u paths, %u elements; paths + views built in %.1f ms\n", opt_flame,
             rsp_paths_n_paths(paths), rsp_paths_n_elems(paths), build);
      printf("redraw 1600x900 flame, full zoom-out: %.2f ms; 1 ms window: %.2f ms (the first, with the window's "
             "cut: %.2f ms); consolidated: %.2f ms\n", best_full, best_1ms, first_1ms, best_cons);
      cairo_destroy(cr);
      cairo_surface_destroy(s);
      rsp_consolidated_view_free(cv);
      rsp_flame_view_free(fv);
      rsp_paths_free(paths);
    }
  }
  bench_profiles(model, view);
  printf("target: redraw < 16 ms\n");
  rsp_running_view_free(view);
  rsp_model_free(model);
  return 0;
}

/* The pixels the export's loss-warning banner takes at the bottom. */
static int banner_height(const rsp_model *model)
{
  char **warnings = rsp_model_loss_warnings(model);
  int banner = (int)g_strv_length(warnings) * (int)(rsp_style_default()->font_size + 4) + 4;
  g_strfreev(warnings);
  return banner;
}

static bool range_and_size(const rsp_model *model, int content, rsp_viewport *vp)
{
  uint64_t lo = rsp_model_time_first(model), hi = rsp_model_time_last(model);
  if (hi <= lo)
    hi = lo + 1000;
  *vp = (rsp_viewport){ .t0 = lo, .t1 = hi, .width = opt_width };
  if (opt_range && !parse_range(opt_range, lo, &vp->t0, &vp->t1)) {
    fprintf(stderr, "rsp-view: --range must be T0:T1 with T0 < T1 (e.g. 1.5ms:3ms), not '%s'\n", opt_range);
    return false;
  }
  const rsp_style *style = rsp_style_default();
  int banner = banner_height(model);
  vp->height = opt_height > 0 ? opt_height : style->ruler_height + content + banner;
  if (vp->height > 32000)
    vp->height = 32000;
  if (vp->width < style->label_width + 10 || vp->width > 32000) {
    fprintf(stderr, "rsp-view: --width must be between %d and 32000\n", style->label_width + 10);
    return false;
  }
  return true;
}

/* The flame view's scroll offset for a picture shorter than the view: path 0's base (the process of
 * interest's own frames) at the bottom edge, as the app opens it. */
static int flame_scroll(const rsp_flame_view *view, const rsp_model *model, const rsp_viewport *vp,
                        const rsp_style *style)
{
  int page = vp->height - style->ruler_height - banner_height(model), content = rsp_flame_view_content_height(view, style);
  int want = (rsp_flame_view_path_row(view, 0) + 2) * style->row_height - page;
  return content > page ? CLAMP(want, 0, content - page) : 0;
}

/* --export --flame PID: the control paths of PID. Frees MODEL. */
static int export_flame(const char *file, rsp_model *model)
{
  g_autoptr(GError) error = NULL;
  rsp_paths *paths = rsp_paths_build(model, opt_flame, NULL, &error);
  if (!paths) {
    fprintf(stderr, "rsp-view: %s: %s\n", file, error->message);
    rsp_model_free(model);
    return 1;
  }
  const rsp_style *style = rsp_style_default();
  rsp_viewport vp;
  int rc = 0;
  /* the kernel work done for the paths' processes, drawn beside them as the app draws it */
  rsp_kernel_work *kw = rsp_kernel_work_compute(model);
  if (opt_consolidated) {
    rsp_consolidated_view *cv = rsp_consolidated_view_new_kwork(paths, kw, 0, UINT64_MAX, 0);
    rsp_kernel_work_free(kw);
    rsp_consolidated_view_set_search(cv, opt_search);
    if (!range_and_size(model, rsp_consolidated_view_content_height(cv, style), &vp))
      rc = 2;
    else {
      if (!opt_range) { /* x is accumulated duration here, not time */
        vp.t0 = 0;
        vp.t1 = rsp_consolidated_view_total(cv) ? rsp_consolidated_view_total(cv) : 1000;
      } else {
        vp.t0 -= rsp_model_time_first(model);
        vp.t1 -= rsp_model_time_first(model);
      }
      /* taller than the picture: its bottom (the process of interest) shown */
      int page = vp.height - style->ruler_height - banner_height(model);
      int content = rsp_consolidated_view_content_height(cv, style);
      vp.scroll_y = content > page ? content - page : 0;
      if (!rsp_export_consolidated_view(cv, model, &vp, style, opt_export, &error)) {
        fprintf(stderr, "rsp-view: %s\n", error->message);
        rc = 1;
      }
    }
    rsp_consolidated_view_free(cv);
    rsp_paths_free(paths);
    rsp_model_free(model);
    return rc;
  }
  rsp_flame_view *view = rsp_flame_view_new_kwork(paths, kw);
  rsp_kernel_work_free(kw);
  rsp_flame_view_set_search(view, opt_search);
  if (!range_and_size(model, rsp_flame_view_content_height(view, style), &vp))
    rc = 2;
  else if (vp.scroll_y = flame_scroll(view, model, &vp, style), !rsp_export_flame_view(view, model, &vp, style, opt_export, &error)) {
    fprintf(stderr, "rsp-view: %s\n", error->message);
    rc = 1;
  }
  rsp_flame_view_free(view);
  rsp_paths_free(paths);
  rsp_model_free(model);
  return rc;
}

static int export_view(const char *file)
{
  if (opt_consolidated && opt_flame < 0) {
    fprintf(stderr, "rsp-view: --consolidated needs --flame PID\n");
    return 2;
  }
  g_autoptr(GError) error = NULL;
  /* --range: only that window of the recording is read (with margins), times still from its start */
  rsp_model_options mo = { 0 };
  /* (the consolidated view's x is accumulated duration, not time: the whole recording is read) */
  if (opt_range && !(opt_consolidated && opt_flame >= 0) &&
      !(mo.window = rsp_parse_range(opt_range, &mo.window_t0, &mo.window_t1))) {
    fprintf(stderr, "rsp-view: --range must be T0:T1 with T0 < T1 (e.g. 1.5ms:3ms), not '%s'\n", opt_range);
    return 2;
  }
  rsp_model *model = rsp_model_load(file, &mo, &error);
  if (!model) {
    fprintf(stderr, "rsp-view: %s\n", error->message);
    return 1;
  }
  if (opt_flame >= 0)
    return export_flame(file, model);
  rsp_running_view *view = rsp_running_view_new(model);
  int rc = 0;
  if (!configure(view)) {
    rc = 2;
    goto out;
  }
  uint64_t lo = rsp_model_time_first(model), hi = rsp_model_time_last(model);
  if (hi <= lo)
    hi = lo + 1000;
  rsp_viewport vp = { .t0 = lo, .t1 = hi, .width = opt_width };
  if (opt_range && !parse_range(opt_range, lo, &vp.t0, &vp.t1)) {
    fprintf(stderr, "rsp-view: --range must be T0:T1 with T0 < T1 (e.g. 1.5ms:3ms), not '%s'\n", opt_range);
    rc = 2;
    goto out;
  }
  const rsp_style *style = rsp_style_default();
  char **warnings = rsp_model_loss_warnings(model);
  int banner = (int)g_strv_length(warnings) * (int)(style->font_size + 4) + 4;
  g_strfreev(warnings);
  vp.height = opt_height > 0 ? opt_height
                             : style->ruler_height + rsp_running_view_content_height(view, style) + banner;
  if (vp.height > 32000)
    vp.height = 32000;
  if (vp.width < style->label_width + 10 || vp.width > 32000) {
    fprintf(stderr, "rsp-view: --width must be between %d and 32000\n", style->label_width + 10);
    rc = 2;
    goto out;
  }
  if (!rsp_export_running_view(view, &vp, style, opt_export, &error)) {
    fprintf(stderr, "rsp-view: %s\n", error->message);
    rc = 1;
  }
out:
  rsp_running_view_free(view);
  rsp_model_free(model);
  return rc;
}

int main(int argc, char **argv)
{
  /* No OpenGL: the views draw with cairo on images. Under X11, GDK loads the GL driver at start to choose its
   * visuals (Mesa's with LLVM: 54 MB resident, a sixth of the app's memory on a 1 GB recording); a user's GDK_GL
   * stays as set. */
  g_setenv("GDK_GL", "disable", FALSE);
  setlocale(LC_ALL, "");
#ifdef RSP_LOCALEDIR
  /* RSP_LOCALEDIR in the environment: the translations of a build tree (build/po), not the installed ones */
  const char *localedir = g_getenv("RSP_LOCALEDIR");
  bindtextdomain("rsp", localedir && *localedir ? localedir : RSP_LOCALEDIR);
  bind_textdomain_codeset("rsp", "UTF-8");
  textdomain("rsp");
#endif
  GOptionContext *ctx = g_option_context_new(_("[FILE] - the views of an rsp recording"));
  g_option_context_add_main_entries(ctx, entries, "rsp");
  g_autoptr(GError) error = NULL;
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    fprintf(stderr, "rsp-view: %s\n", error->message);
    g_option_context_free(ctx);
    return 2;
  }
  g_option_context_free(ctx);
  if (opt_version) {
    printf("rsp-view %s\n", RSP_VERSION);
    return 0;
  }
  const char *file = argc > 1 ? argv[1] : NULL;
  uint64_t slice_ns = 2500000000ull; /* OSprof's figure 9 */
  if (opt_slice && (!rsp_parse_duration(opt_slice, &slice_ns) || slice_ns < 1000)) {
    fprintf(stderr, "rsp-view: --slice must be a duration of at least 1us (e.g. 2.5s, 100ms), not '%s'\n", opt_slice);
    return 2;
  }
  if (opt_resolution != 1 && opt_resolution != 2 && opt_resolution != 4) {
    fprintf(stderr, "rsp-view: --resolution %d: must be 1, 2 or 4\n", opt_resolution);
    return 2;
  }
  if (opt_histogram && opt_heatmap) {
    fprintf(stderr, "rsp-view: --histogram and --heatmap: one at a time\n");
    return 2;
  }
  if (opt_diff && argc != 3) {
    fprintf(stderr, "rsp-view: --diff needs two recordings: rsp-view --diff A.data B.data\n");
    return 2;
  }
  view_profile_args pa = { .histogram = opt_histogram, .heatmap = opt_heatmap, .pid = opt_pid,
                           .resolution = (unsigned)opt_resolution, .slice_ns = slice_ns,
                           .normalized = opt_normalized, .width = opt_width, .height = opt_height,
                           .out = opt_export };
  if (opt_export && opt_diff)
    return view_export_diff(argv[1], argv[2], &pa);
  if (opt_export && file && (opt_histogram || opt_heatmap))
    return view_export_profile(file, &pa);
  if (!opt_width)
    opt_width = 1600;
  if ((opt_export || opt_bench) && !file) {
    fprintf(stderr, "rsp-view: --export and --bench need a FILE\n");
    return 2;
  }
  if (opt_bench)
    return bench(file);
  if (opt_export)
    return export_view(file);
#ifdef RSP_HAVE_GTK
  rsp_app_options o = { .file = opt_diff ? NULL : file, .self_test = opt_self_test, .focus_pid = opt_focus,
                        .filter = opt_filter, .search = opt_search, .flame_pid = opt_flame,
                        .diff_a = opt_diff ? argv[1] : NULL, .diff_b = opt_diff ? argv[2] : NULL,
                        .histogram_class = opt_histogram ? opt_histogram : opt_heatmap,
                        .heatmap = opt_heatmap != NULL, .slice_ns = slice_ns, .histogram_pid = opt_pid,
                        .resolution = (unsigned)opt_resolution };
  return rsp_app_run(&o);
#else
  fprintf(stderr, "rsp-view: built without GTK: only --export and --bench are available\n");
  return 2;
#endif
}
