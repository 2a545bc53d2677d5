/* rsp-summary --profiles: every latency profile of a recording, by total latency, as text
 * histograms (one line per bucket) or JSON. */
#include "summary-profiles.h"
#include "export/export.h"

#ifdef RSP_HAVE_RENDER
#include "render/render.h"

#include <cairo-svg.h>
#endif

#include <inttypes.h>
#include <math.h>
#include <string.h>

static gboolean opt_profiles;
static gint opt_resolution = 1;
static gint opt_pid = -1;
static gdouble opt_slices = 0;
static gchar *opt_export = NULL, *opt_class = NULL;

GOptionGroup *summary_profiles_option_group(void)
{
  static GOptionEntry entries[] = {
    { "profiles", 0, 0, G_OPTION_ARG_NONE, &opt_profiles,
      "Latency profiles (OSprof): log2 histograms of waits by site, disk I/O, network operations, "
      "scheduler delay, run lengths and preemptions, per process and system-wide, with the cause of each bucket",
      NULL },
    { "resolution", 0, 0, G_OPTION_ARG_INT, &opt_resolution,
      "With --profiles: buckets per octave, 1 (default), 2 or 4", "R" },
    { "pid", 0, 0, G_OPTION_ARG_INT, &opt_pid, "With --profiles: only the profiles of process PID; with --categories: the process of interest (a thread id: its process)", "PID" },
    { "time-slices", 0, 0, G_OPTION_ARG_DOUBLE, &opt_slices,
      "With --profiles: also each profile per time slice of SECONDS (OSprof's time-sampled profiles; a heat map "
      "of bucket x time)", "SECONDS" },
    { "export", 0, 0, G_OPTION_ARG_FILENAME, &opt_export,
      "With --profiles: draw the largest profile (or --class), and its heat map with --time-slices, to FILE.png "
      "or FILE.svg", "FILE" },
    { "class", 0, 0, G_OPTION_ARG_STRING, &opt_class,
      "With --profiles: only the profiles of this class (\"run\", \"wait clock_nanosleep\"...)", "CLASS" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  GOptionGroup *g = g_option_group_new("profiles", "Latency profiles", "Show latency profile options", NULL, NULL);
  g_option_group_add_entries(g, entries);
  return g;
}

bool summary_profiles_requested(void)
{
  return opt_profiles;
}

static uint64_t slice_ns(void)
{
  return (uint64_t)(opt_slices * 1e9) ? (uint64_t)(opt_slices * 1e9) : 1;
}

static rsp_category dominant(const uint64_t *causes)
{
  int best = RSP_CAT_UNACCOUNTED;
  uint64_t n = 0;
  for (int c = 0; c < RSP_N_CATEGORIES; c++)
    if (causes[c] > n) {
      n = causes[c];
      best = c;
    }
  return (rsp_category)best;
}

static const char *waker_comm(const rsp_model *m, rsp_task_id t)
{
  if (t == RSP_NO_ID || t >= rsp_model_n_tasks(m))
    return NULL;
  return rsp_model_task(m, t)->comm;
}

static void print_json(const rsp_model *m, const rsp_profile_set *set, FILE *out)
{
  rsp_json_writer json = rsp_json_writer_file(out, RSP_JSON_SHORT_ESCAPES | RSP_JSON_SPACED);
  fprintf(out, "[");
  bool first_out = true;
  for (uint32_t i = 0; i < rsp_profile_set_n(set); i++) {
    const rsp_profile *p = rsp_profile_set_get(set, i);
    if (opt_class && strcmp(p->name, opt_class) != 0)
      continue;
    fprintf(out, "%s\n  {\"class\": ", first_out ? "" : ",");
    first_out = false;
    rsp_json_string(&json, p->name);
    fprintf(out, ", \"process\": ");
    rsp_json_string(&json, p->process);
    fprintf(out, ", \"pid\": %" PRId32 ", \"resolution\": %u, \"count\": %" PRIu64 ", \"total_ns\": %" PRIu64
                 ", \"buckets\": [",
            p->pid, p->resolution, p->count, p->total_ns);
    bool first = true;
    for (uint32_t b = 0; b < p->n_buckets; b++) {
      const rsp_profile_bucket *bk = &p->buckets[b];
      if (!bk->count)
        continue;
      fprintf(out, "%s{\"index\": %" PRId32 ", \"lo_ns\": %" PRIu64 ", \"hi_ns\": %" PRIu64 ", \"count\": %" PRIu64
                   ", \"total_ns\": %" PRIu64 ", \"causes\": ",
              first ? "" : ", ", bk->index, bk->lo_ns, bk->hi_ns, bk->count, bk->total_ns);
      first = false;
      rsp_json_begin_object(&json);
      for (int c = 0; c < RSP_N_CATEGORIES; c++)
        if (bk->causes[c]) {
          rsp_json_key(&json, rsp_profile_cause_key((rsp_category)c));
          rsp_json_u64(&json, bk->causes[c]);
        }
      rsp_json_end_object(&json);
      const char *w = waker_comm(m, rsp_profile_bucket_waker(p, bk));
      if (w) {
        fprintf(out, ", \"waker\": ");
        rsp_json_string(&json, w);
      }
      fprintf(out, "}");
    }
    fprintf(out, "]");
    if (opt_slices > 0) {
      rsp_profile_timeline *t = rsp_profile_timeline_build(m, p, slice_ns());
      fprintf(out, ", \"timeline\": {\"start_ns\": %" PRIu64 ", \"slice_ns\": %" PRIu64 ", \"min_index\": %" PRId32
                   ", \"counts\": ", t->start_ns, t->slice_ns, t->min_index);
      rsp_json_begin_array(&json);
      for (uint32_t r = 0; r < t->n_slices; r++) {
        rsp_json_begin_array(&json);
        for (uint32_t b = 0; b < t->n_buckets; b++)
          rsp_json_u64(&json, t->counts[(size_t)r * t->n_buckets + b]);
        rsp_json_end_array(&json);
      }
      rsp_json_end_array(&json);
      fprintf(out, "}");
      rsp_profile_timeline_free(t);
    }
    fprintf(out, ", \"peaks\": [");
    for (uint32_t k = 0; k < p->n_peaks; k++) {
      const rsp_profile_peak *pk = &p->peaks[k];
      fprintf(out, "%s{\"index\": %" PRId32 ", \"lo_ns\": %" PRIu64 ", \"hi_ns\": %" PRIu64 ", \"count\": %" PRIu64
                   ", \"avg_ns\": %" PRIu64 ", \"cause\": \"%s\", \"cause_count\": %" PRIu64,
              k ? ", " : "", pk->index, pk->lo_ns, pk->hi_ns, pk->count, pk->avg_ns,
              rsp_profile_cause_key((rsp_category)pk->cause), pk->cause_count);
      const char *w = waker_comm(m, pk->waker);
      if (w) {
        fprintf(out, ", \"waker\": ");
        rsp_json_string(&json, w);
      }
      fprintf(out, "}");
    }
    fprintf(out, "]}");
  }
  fprintf(out, "%s]\n", first_out ? "" : "\n");
}

static void print_times(const rsp_characteristic_times *t, FILE *out)
{
  char a[32], b[32], c[32], d[32], e[32];
  fprintf(out, "characteristic times (measured from this recording; - = not seen): context switch %s (median of %u), "
               "timer tick %s (%u wakeups on its lattice), time slice %s (median of %u preemptions), "
               "disk service %s (median of %u), loopback round trip %s (median of %u)\n\n",
          t->context_switch_ns ? rsp_profile_format_ns(t->context_switch_ns, a, sizeof a) : "-", t->n_context_switches,
          t->timer_tick_ns ? rsp_profile_format_ns(t->timer_tick_ns, b, sizeof b) : "-", t->n_tick_wakeups,
          t->slice_ns ? rsp_profile_format_ns(t->slice_ns, e, sizeof e) : "-", t->n_preemptions,
          t->disk_service_ns ? rsp_profile_format_ns(t->disk_service_ns, c, sizeof c) : "-", t->n_disk_ops,
          t->loopback_rtt_ns ? rsp_profile_format_ns(t->loopback_rtt_ns, d, sizeof d) : "-", t->n_loopback_ops);
}

/* Which characteristic time falls in [lo, hi), as a marker. */
static const char *marker(const rsp_characteristic_times *t, uint64_t lo, uint64_t hi)
{
  if (t->context_switch_ns >= lo && t->context_switch_ns < hi)
    return " <- context switch";
  if (t->timer_tick_ns >= lo && t->timer_tick_ns < hi)
    return " <- timer tick";
  if (t->slice_ns >= lo && t->slice_ns < hi)
    return " <- time slice";
  if (t->disk_service_ns >= lo && t->disk_service_ns < hi)
    return " <- disk service";
  if (t->loopback_rtt_ns >= lo && t->loopback_rtt_ns < hi)
    return " <- loopback RTT";
  return "";
}

/* One row per time slice, one character per bucket, darker for more instances (log scale). */
static void print_heat_map(const rsp_model *m, const rsp_profile *p, FILE *out)
{
  static const char shades[] = " .:-=+*#%@";
  rsp_profile_timeline *t = rsp_profile_timeline_build(m, p, slice_ns());
  fprintf(out, "  per %g s slice, buckets %" PRId32 "..%" PRId32 " left to right (log shades of up to %" PRIu64 "):\n",
          opt_slices, t->min_index, t->min_index + (int32_t)t->n_buckets - 1, t->max_count);
  for (uint32_t i = 0; i < t->n_slices; i++) {
    fprintf(out, "  %9.3f s |", (double)i * (double)t->slice_ns / 1e9);
    for (uint32_t b = 0; b < t->n_buckets; b++) {
      uint64_t c = t->counts[(size_t)i * t->n_buckets + b];
      int shade = c ? 1 + (int)lround((double)(sizeof shades - 3) * log1p((double)c) / log1p((double)t->max_count)) : 0;
      putc(shades[shade], out);
    }
    fprintf(out, "|\n");
  }
  rsp_profile_timeline_free(t);
}

static void print_text(const rsp_model *m, const rsp_profile_set *set, const rsp_characteristic_times *t, FILE *out)
{
  enum { BAR = 40 };
  print_times(t, out);
  for (uint32_t i = 0; i < rsp_profile_set_n(set); i++) {
    const rsp_profile *p = rsp_profile_set_get(set, i);
    if (opt_class && strcmp(p->name, opt_class) != 0)
      continue;
    char total[32];
    if (p->pid >= 0)
      fprintf(out, "%s  [%s, pid %" PRId32 "]", p->name, p->process, p->pid);
    else
      fprintf(out, "%s  [%s]", p->name, strcmp(p->process, "*") ? p->process : "system-wide");
    fprintf(out, "  %" PRIu64 " ops, total %s\n", p->count, rsp_profile_format_ns(p->total_ns, total, sizeof total));
    uint64_t max = 1;
    for (uint32_t b = 0; b < p->n_buckets; b++)
      max = MAX(max, p->buckets[b].count);
    for (uint32_t b = 0; b < p->n_buckets; b++) {
      const rsp_profile_bucket *bk = &p->buckets[b];
      char lo[32], hi[32], bar[BAR + 1];
      uint32_t empty = 0;
      while (b + empty < p->n_buckets && p->buckets[b + empty].count == 0)
        empty++;
      if (empty >= 3) { /* a long gap: one line */
        fprintf(out, "  %4s [%9s, %9s) (%u empty buckets)\n", "..", rsp_profile_format_ns(bk->lo_ns, lo, sizeof lo),
                rsp_profile_format_ns(p->buckets[b + empty - 1].hi_ns, hi, sizeof hi), empty);
        b += empty - 1;
        continue;
      }
      /* bars on a log scale, as OSprof draws its y axis */
      int len = bk->count ? (int)lround(BAR * log1p((double)bk->count) / log1p((double)max)) : 0;
      len = MAX(len, bk->count ? 1 : 0);
      memset(bar, '#', (size_t)len);
      bar[len] = 0;
      rsp_category cause = dominant(bk->causes);
      const char *w = cause == RSP_CAT_OTHER_PATH ? waker_comm(m, rsp_profile_bucket_waker(p, bk)) : NULL;
      fprintf(out, "  %4" PRId32 " [%9s, %9s) %-*s %8" PRIu64 "  %s%s%s%s", bk->index,
              rsp_profile_format_ns(bk->lo_ns, lo, sizeof lo), rsp_profile_format_ns(bk->hi_ns, hi, sizeof hi), BAR, bar,
              bk->count, bk->count ? rsp_profile_cause_key(cause) : "", w ? " (" : "", w ? w : "", w ? ")" : "");
      fputs(marker(t, bk->lo_ns, bk->hi_ns), out);
      putc('\n', out);
    }
    if (opt_slices > 0)
      print_heat_map(m, p, out);
    for (uint32_t k = 0; k < p->n_peaks; k++) {
      const rsp_profile_peak *pk = &p->peaks[k];
      char lo[32], hi[32], avg[32];
      const char *w = waker_comm(m, pk->waker);
      fprintf(out, "  peak %u: %s-%s, %" PRIu64 " ops, average %s, mostly %s (%" PRIu64 ")%s%s\n", k + 1,
              rsp_profile_format_ns(pk->lo_ns, lo, sizeof lo), rsp_profile_format_ns(pk->hi_ns, hi, sizeof hi), pk->count,
              rsp_profile_format_ns(pk->avg_ns, avg, sizeof avg), rsp_profile_cause_key((rsp_category)pk->cause),
              pk->cause_count, w ? ", woken by " : "", w ? w : "");
    }
    fprintf(out, "\n");
  }
}

#ifdef RSP_HAVE_RENDER
static int export_profile(const rsp_model *m, const rsp_profile *p, const rsp_characteristic_times *t, const char *file)
{
  enum { W = 800, H = 320 };
  rsp_profile_timeline *tl = opt_slices > 0 ? rsp_profile_timeline_build(m, p, slice_ns()) : NULL;
  double height = tl ? 2 * H : H;
  bool svg = g_str_has_suffix(file, ".svg");
  cairo_surface_t *s = svg ? cairo_svg_surface_create(file, W, height)
                           : cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, (int)height);
  cairo_t *cr = cairo_create(s);
  rsp_histogram_view_draw(cr, W, H, p, t, NULL);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_font_size(cr, 12);
  cairo_move_to(cr, 8, 14);
  g_autofree char *title = g_strdup_printf("%s [%s%s%.0d]", p->name, p->process, p->pid >= 0 ? ", pid " : "",
                                           p->pid >= 0 ? p->pid : 0);
  cairo_show_text(cr, title);
  if (tl) {
    cairo_translate(cr, 0, H);
    rsp_heat_map_draw(cr, W, H, tl, p->resolution, NULL);
  }
  cairo_destroy(cr);
  cairo_status_t st = svg ? CAIRO_STATUS_SUCCESS : cairo_surface_write_to_png(s, file);
  cairo_surface_finish(s);
  if (st == CAIRO_STATUS_SUCCESS)
    st = cairo_surface_status(s);
  cairo_surface_destroy(s);
  rsp_profile_timeline_free(tl);
  if (st != CAIRO_STATUS_SUCCESS) {
    fprintf(stderr, "rsp-summary: --export %s: %s\n", file, cairo_status_to_string(st));
    return 1;
  }
  return 0;
}
#endif

int summary_profiles_print(const rsp_model *model, const char *path, bool json, FILE *out)
{
  rsp_profile_options o = { .resolution = (unsigned)MAX(opt_resolution, 0), .pid = opt_pid,
                            .system_wide = opt_pid < 0 };
  if (opt_slices < 0 || (opt_slices > 0 && opt_slices < 1e-6)) {
    fprintf(stderr, "rsp-summary: --time-slices %g: must be at least a microsecond\n", opt_slices);
    return 2;
  }
  if (opt_resolution != 1 && opt_resolution != 2 && opt_resolution != 4) {
    fprintf(stderr, "rsp-summary: --resolution %d: must be 1, 2 or 4\n", opt_resolution);
    return 2;
  }
  GError *error = NULL;
  rsp_profile_set *set = rsp_profile_set_build(model, &o, &error);
  if (!set) {
    fprintf(stderr, "rsp-summary: %s: %s\n", path, error->message);
    g_error_free(error);
    return 1;
  }
  int status = 0;
  rsp_characteristic_times t;
  rsp_characteristic_times_measure(model, &t);
  if (opt_class) { /* keep the profiles of that class (the set stays sorted) */
    bool any = false;
    for (uint32_t i = 0; i < rsp_profile_set_n(set); i++)
      any |= strcmp(rsp_profile_set_get(set, i)->name, opt_class) == 0;
    if (!any) {
      fprintf(stderr, "rsp-summary: %s: no profile of class '%s'\n", path, opt_class);
      rsp_profile_set_free(set);
      return 1;
    }
  }
  if (opt_export) {
#ifdef RSP_HAVE_RENDER
    const rsp_profile *first = NULL;
    for (uint32_t i = 0; i < rsp_profile_set_n(set) && !first; i++)
      if (!opt_class || strcmp(rsp_profile_set_get(set, i)->name, opt_class) == 0)
        first = rsp_profile_set_get(set, i);
    status = first ? export_profile(model, first, &t, opt_export) : 1;
    if (!first)
      fprintf(stderr, "rsp-summary: %s: no profile to export\n", path);
#else
    fprintf(stderr, "rsp-summary: --export: this build has no cairo\n");
    status = 2;
#endif
  }
  if (json)
    print_json(model, set, out);
  else
    print_text(model, set, &t, out);
  rsp_profile_set_free(set);
  return status;
}

int32_t summary_profiles_pid(void)
{
  return opt_pid;
}
