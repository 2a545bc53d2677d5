/* rsp-diff: what changed between two recordings. OSprof's automated selection (reference/osprof-
 * latency-analysis.txt, 3.2) over the complete sets of latency profiles of both, then the cause
 * breakdown of both side by side. */
#include "analysis/analysis.h"
#include "export/export.h"
#include "render/render.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rsp_model *load(const char *path, bool no_switch)
{
  GError *error = NULL;
  rsp_model_options o = { .no_switch_records = no_switch };
  rsp_model *m = rsp_model_load(path, &o, &error);
  if (!m) {
    fprintf(stderr, "rsp-diff: %s\n", error->message);
    g_error_free(error);
    return NULL;
  }
  if (rsp_model_runs_source(m) == RSP_RUNS_FROM_NOTHING) {
    fprintf(stderr, "rsp-diff: %s: no scheduler events (neither PERF_RECORD_SWITCH records nor "
                    "sched:sched_switch samples): no profiles to compare\n", path);
    rsp_model_free(m);
    return NULL;
  }
  return m;
}

/* One recording's model and profile set, built in a thread of its own: the two recordings are
 * independent, so on a machine with two cores rsp-diff takes the time of one. */
typedef struct side {
  const char *path;
  bool no_switch;
  rsp_profile_options po;
  rsp_model *m;
  rsp_profile_set *set;
  GError *error;
} side;

static gpointer build_side(gpointer data)
{
  side *s = data;
  if ((s->m = load(s->path, s->no_switch)))
    s->set = rsp_profile_set_build(s->m, &s->po, &s->error);
  return NULL;
}

/* --gate SPEC: "total:+5%,blocking_io:+10%,profile:fsync:+20%,wall:+3ms". Each bound names a value of
 * both recordings (the recorded command's paths total or wall time, a category by key, or the summed
 * totals of the profiles whose class contains a text) and how much B may exceed A: a percentage of A,
 * or milliseconds. */
typedef struct gate_bound {
  char *key;     /* "total", "wall", a category key, or "profile:TEXT" */
  double limit;  /* percent, or ms when in_ms */
  bool in_ms;
} gate_bound;

static void gate_free(GArray *g)
{
  for (guint i = 0; g && i < g->len; i++)
    g_free(g_array_index(g, gate_bound, i).key);
  if (g)
    g_array_free(g, TRUE);
}

static bool category_by_key(const char *key, rsp_category *out)
{
  for (int c = 0; c < RSP_N_CATEGORIES; c++)
    if (strcmp(rsp_category_key((rsp_category)c), key) == 0) {
      *out = (rsp_category)c;
      return true;
    }
  return false;
}

static GArray *gate_parse(const char *spec)
{
  GArray *g = g_array_new(FALSE, TRUE, sizeof(gate_bound));
  char **items = g_strsplit(spec, ",", -1);
  bool ok = items[0] != NULL;
  for (char **it = items; ok && *it; it++) {
    char *item = g_strstrip(*it);
    char *colon = strrchr(item, ':');
    char *end = NULL;
    gate_bound b = { 0 };
    if (!colon || colon == item || colon[1] != '+') {
      ok = false;
    } else {
      b.limit = g_ascii_strtod(colon + 2, &end);
      if (end && end != colon + 2 && strcmp(end, "%") == 0)
        b.in_ms = false;
      else if (end && end != colon + 2 && strcmp(end, "ms") == 0)
        b.in_ms = true;
      else
        ok = false;
      b.key = g_strndup(item, (gsize)(colon - item));
    }
    rsp_category cat;
    if (ok && !(b.limit >= 0) )
      ok = false;
    if (ok && strcmp(b.key, "total") != 0 && strcmp(b.key, "wall") != 0 && !g_str_has_prefix(b.key, "profile:") &&
        !category_by_key(b.key, &cat))
      ok = false;
    if (ok && g_str_has_prefix(b.key, "profile:") && !b.key[8])
      ok = false;
    if (!ok) {
      fprintf(stderr, "rsp-diff: --gate: '%s' is no bound: write KEY:+N%% or KEY:+Nms, KEY being total, wall, a "
                      "category key (blocking_io, understood, ...) or profile:TEXT\n", item);
      g_free(b.key);
      break;
    }
    g_array_append_val(g, b);
  }
  if (!items[0])
    fprintf(stderr, "rsp-diff: --gate: no bound given (e.g. --gate 'total:+5%%,blocking_io:+10%%')\n");
  g_strfreev(items);
  if (!ok) {
    gate_free(g);
    return NULL;
  }
  return g;
}

/* The summed total of SET's profiles whose class contains TEXT. */
static uint64_t profiles_total(const rsp_profile_set *set, const char *text)
{
  uint64_t ns = 0;
  for (uint32_t i = 0; i < rsp_profile_set_n(set); i++) {
    const rsp_profile *p = rsp_profile_set_get(set, i);
    if (strstr(p->name, text))
      ns += p->total_ns;
  }
  return ns;
}

/* Checks every bound; prints one line per bound to OUT; returns how many were crossed, or -1 when a
 * bound needs what the recordings lack (paths of a recorded command). */
static int gate_check(const GArray *g, const rsp_categories *a, const rsp_categories *b, const uint64_t *ca,
                      const uint64_t *cb, const rsp_profile_set *sa, const rsp_profile_set *sb,
                      const rsp_profile_diff *diff, FILE *out)
{
  int crossed = 0;
  for (guint i = 0; i < g->len; i++) {
    const gate_bound *bd = &g_array_index(g, gate_bound, i);
    uint64_t va, vb;
    rsp_category cat;
    if (g_str_has_prefix(bd->key, "profile:")) {
      va = profiles_total(sa, bd->key + 8);
      vb = profiles_total(sb, bd->key + 8);
    } else if (category_by_key(bd->key, &cat)) {
      va = a ? a->ns[cat] : ca[cat];
      vb = b ? b->ns[cat] : cb[cat];
    } else if (!a || !b) {
      fprintf(stderr, "rsp-diff: --gate %s: needs the recorded command's control paths (record with rsp-record, "
                      "without --all)\n", bd->key);
      return -1;
    } else {
      bool total = strcmp(bd->key, "total") == 0;
      va = total ? a->total_ns : a->wall_ns;
      vb = total ? b->total_ns : b->wall_ns;
    }
    double ma = (double)va / 1e6, mb = (double)vb / 1e6, grew_ms = mb - ma;
    double pct = va ? 100.0 * grew_ms / ma : (vb ? INFINITY : 0.0);
    bool over = bd->in_ms ? grew_ms > bd->limit : pct > bd->limit;
    crossed += over;
    fprintf(out, "gate: %s %s: %.3f -> %.3f ms (%+.3f ms, %+.1f%%), bound +%g%s", over ? "CROSSED" : "ok", bd->key,
            ma, mb, grew_ms, pct, bd->limit, bd->in_ms ? " ms" : "%");
    if (over && diff && diff->n_pairs) {
      const rsp_profile_pair *p = &diff->pairs[0];
      const rsp_profile *any = p->a ? p->a : p->b;
      fprintf(out, "; the most changed profile: %s (%s)", any->name,
              strcmp(any->process, "*") ? any->process : "system-wide");
    }
    fputc('\n', out);
  }
  return crossed;
}

static void json_side(rsp_json_writer *json, const rsp_profile *p)
{
  if (!p) {
    rsp_json_null(json);
    return;
  }
  rsp_json_begin_object(json);
  rsp_json_key(json, "count");
  rsp_json_u64(json, p->count);
  rsp_json_key(json, "total_ns");
  rsp_json_u64(json, p->total_ns);
  rsp_json_key(json, "peaks");
  rsp_json_u64(json, p->n_peaks);
  rsp_json_end_object(json);
}

/* Latency of the per-command profiles by cause: where the time of each recording went, as far
 * as the profiles tell (waits, runs, preemptions and scheduler delay). */
static void cause_totals(const rsp_profile_set *s, uint64_t *out)
{
  memset(out, 0, sizeof(uint64_t) * RSP_N_CATEGORIES);
  for (uint32_t i = 0; i < rsp_profile_set_n(s); i++) {
    const rsp_profile *p = rsp_profile_set_get(s, i);
    if (strcmp(p->process, "*") == 0)
      continue;
    if (p->kind != RSP_PROFILE_WAIT && p->kind != RSP_PROFILE_RUN && p->kind != RSP_PROFILE_PREEMPTION &&
        p->kind != RSP_PROFILE_SCHED_DELAY)
      continue;
    for (uint32_t k = 0; k < p->n_instances; k++) {
      const rsp_profile_instance *in = &p->instances[k];
      out[in->cause < RSP_N_CATEGORIES ? in->cause : RSP_CAT_UNACCOUNTED] += in->ns;
    }
  }
}

/* The categories of PID's control paths in M; false (and a note) when they cannot be built. */
static bool categories_of(const rsp_model *m, int32_t pid, const char *path, rsp_categories *out)
{
  GError *error = NULL;
  rsp_paths *paths = rsp_paths_build(m, pid, NULL, &error);
  if (!paths) {
    fprintf(stderr, "rsp-diff: %s: no control paths: %s\n", path, error->message);
    g_error_free(error);
    return false;
  }
  rsp_categories_compute(paths, out);
  rsp_paths_free(paths);
  return true;
}

static void json_split(const char *name, const uint64_t *a, const uint64_t *b)
{
  rsp_json_writer json = rsp_json_writer_file(stdout, RSP_JSON_SHORT_ESCAPES | RSP_JSON_SPACED);
  printf(",\n  ");
  rsp_json_key(&json, name);
  rsp_json_begin_object(&json);
  for (int c = 0; c < RSP_N_CATEGORIES; c++)
    if (a[c] || b[c]) {
      rsp_json_key(&json, rsp_category_key((rsp_category)c));
      rsp_json_begin_object(&json);
      rsp_json_key(&json, "a_ns");
      rsp_json_u64(&json, a[c]);
      rsp_json_key(&json, "b_ns");
      rsp_json_u64(&json, b[c]);
      rsp_json_end_object(&json);
    }
  rsp_json_end_object(&json);
}

/* The report as one JSON object: both recordings, phase 1's counts, the ranked pairs (at most TOP),
 * the categories of the recorded command's control paths (CAT_A/CAT_B, when built) and the causes
 * of the compared profiles (CA/CB). */
static void print_json(char **argv, const rsp_profile_set *sa, const rsp_profile_set *sb, int32_t wa, int32_t wb,
                       const rsp_profile_diff *diff, rsp_distance_method method, int top,
                       const rsp_categories *cat_a, const rsp_categories *cat_b, const uint64_t *ca,
                       const uint64_t *cb)
{
  rsp_json_writer json = rsp_json_writer_file(stdout, RSP_JSON_SHORT_ESCAPES | RSP_JSON_SPACED);
  printf("{\n  \"a\": {\"path\": ");
  rsp_json_string(&json, argv[1]);
  printf(", \"workload_pid\": %d, \"profiles\": %u},\n  \"b\": {\"path\": ", wa, rsp_profile_set_n(sa));
  rsp_json_string(&json, argv[2]);
  printf(", \"workload_pid\": %d, \"profiles\": %u},\n", wb, rsp_profile_set_n(sb));
  printf("  \"method\": \"%s\",\n  \"dropped\": {\"similar\": %u, \"few\": %u, \"negligible\": %u},\n",
         rsp_distance_method_name(method), diff->n_similar, diff->n_few, diff->n_negligible);
  printf("  \"pairs\": [");
  for (uint32_t i = 0; i < diff->n_pairs && (top <= 0 || i < (uint32_t)top); i++) {
    const rsp_profile_pair *p = &diff->pairs[i];
    const rsp_profile *any = p->a ? p->a : p->b;
    printf("%s\n    {\"rank\": %u, \"distance\": ", i ? "," : "", i + 1);
    if (isinf(p->distance) || isnan(p->distance))
      printf("null");
    else
      printf("%.6g", p->distance);
    printf(", \"class\": ");
    rsp_json_string(&json, any->name);
    printf(", \"site\": ");
    rsp_json_string(&json, any->site);
    printf(", \"process\": ");
    rsp_json_string(&json, any->process);
    printf(", \"peaks_changed\": %s, \"a\": ", p->peaks_changed ? "true" : "false");
    json_side(&json, p->a);
    printf(", \"b\": ");
    json_side(&json, p->b);
    printf(", \"why\": ");
    rsp_json_string(&json, p->reason);
    printf("}");
  }
  printf("%s]", diff->n_pairs ? "\n  " : "");
  if (cat_a && cat_b) {
    json_split("categories", cat_a->ns, cat_b->ns);
    printf(",\n  \"categories_total\": {\"a_ns\": %" PRIu64 ", \"b_ns\": %" PRIu64 "}", cat_a->total_ns,
           cat_b->total_ns);
  }
  json_split("causes", ca, cb);
  printf("\n}\n");
}

/* The consolidated stacks of PID's control paths in M (PATH for messages). */
static rsp_stack_tree *stacks_of(const rsp_model *m, int32_t pid, const char *path)
{
  GError *error = NULL;
  rsp_paths *paths = rsp_paths_build(m, pid, NULL, &error);
  if (!paths) {
    fprintf(stderr, "rsp-diff: --flame-out: %s: no control paths for pid %d: %s\n", path, pid, error->message);
    g_error_free(error);
    return NULL;
  }
  rsp_stack_tree *t = rsp_stack_tree_build(paths, 0, UINT64_MAX);
  rsp_paths_free(paths);
  return t;
}

static int by_abs_delta(const void *a, const void *b, void *data)
{
  const rsp_stack_diff *d = data;
  const rsp_stack_diff_node *x = rsp_stack_diff_get(d, *(const uint32_t *)a);
  const rsp_stack_diff_node *y = rsp_stack_diff_get(d, *(const uint32_t *)b);
  uint64_t ax = (uint64_t)llabs(x->delta_ns), ay = (uint64_t)llabs(y->delta_ns);
  if (ax != ay)
    return ax < ay ? 1 : -1;
  return x->depth != y->depth ? (x->depth < y->depth ? 1 : -1) : 0; /* the innermost frame of a chain first */
}

/* Writes the differential consolidated flame graph of the processes of interest PA (in MA, from
 * PATH_A) and PB to OUT, and prints the frames that changed most. */
static bool write_flame(const rsp_model *ma, const rsp_model *mb, const char *path_a, const char *path_b, int32_t pa,
                        int32_t pb, const char *out, int width, int top, bool print_table)
{
  rsp_stack_tree *ta = stacks_of(ma, pa, path_a);
  rsp_stack_tree *tb = ta ? stacks_of(mb, pb, path_b) : NULL;
  if (!tb) {
    rsp_stack_tree_free(ta);
    return false;
  }
  rsp_stack_diff *d = rsp_stack_diff_compute(ta, tb);
  char *title = g_strdup_printf("A: %s (pid %d) -> B: %s (pid %d)", path_a, pa, path_b, pb);
  GPtrArray *notes = g_ptr_array_new_with_free_func(g_free);
  const rsp_model *models[2] = { ma, mb };
  for (int i = 0; i < 2; i++) {
    char **w = rsp_model_loss_warnings(models[i]);
    for (char **p = w; p && *p; p++)
      g_ptr_array_add(notes, g_strdup_printf("%s: %s", i ? "B" : "A", *p));
    g_strfreev(w);
  }
  g_ptr_array_add(notes, NULL);
  GError *error = NULL;
  bool ok = rsp_export_diff_flame(d, width, title, (char **)notes->pdata, out, &error);
  if (!ok) {
    fprintf(stderr, "rsp-diff: --flame-out: cannot write the differential flame graph: %s\n", error->message);
    g_error_free(error);
  } else if (print_table) {
    /* a frame whose whole change is one child's is left to that child (the innermost says more) */
    uint32_t n = 0, all = rsp_stack_diff_n_nodes(d);
    uint32_t *order = g_new(uint32_t, all ? all : 1);
    for (uint32_t i = 0; i < all; i++) {
      uint32_t nc = 0;
      const uint32_t *children = rsp_stack_diff_children(d, i, &nc);
      bool passed_up = false;
      for (uint32_t k = 0; k < nc; k++)
        passed_up |= rsp_stack_diff_get(d, children[k])->delta_ns == rsp_stack_diff_get(d, i)->delta_ns;
      if (!passed_up && rsp_stack_diff_get(d, i)->delta_ns)
        order[n++] = i;
    }
    g_qsort_with_data(order, (gint)n, sizeof *order, by_abs_delta, d);
    printf("\ndifferential consolidated flame graph of pid %d (A) and pid %d (B) written to %s; the frames that "
           "changed most (a frame whose change is all one child's left to that child):\n", pa, pb, out);
    printf("%14s %14s %14s  %s\n", "A ms", "B ms", "DELTA ms", "FRAME (process;outermost;...;innermost)");
    for (uint32_t i = 0; i < n && (top <= 0 || i < (uint32_t)top); i++) {
      const rsp_stack_diff_node *nd = rsp_stack_diff_get(d, order[i]);
      char *path = rsp_stack_diff_path(d, order[i], ";");
      printf("%14.3f %14.3f %+14.3f  %s\n", (double)nd->a_ns / 1e6, (double)nd->b_ns / 1e6,
             (double)nd->delta_ns / 1e6, path);
      g_free(path);
    }
    if (!n)
      printf("%14s %14s %14s  (none)\n", "", "", "");
    g_free(order);
  }
  g_ptr_array_free(notes, true);
  g_free(title);
  rsp_stack_diff_free(d);
  rsp_stack_tree_free(ta);
  rsp_stack_tree_free(tb);
  return ok;
}

int main(int argc, char **argv)
{
  setlocale(LC_ALL, "");
  char *method_name = NULL, *flame_out = NULL, *format = NULL, *gate_spec = NULL;
  GArray *gate = NULL;
  double threshold = 0.1, min_weight = 0.001;
  gint resolution = 1, top = 20, min_ops = 10, pid_a = -1, pid_b = -1, flame_width = 1200;
  gboolean no_switch = FALSE, all = FALSE;
  GOptionEntry entries[] = {
    { "method", 0, 0, G_OPTION_ARG_STRING, &method_name,
      "How pairs are ranked: emd (Earth Mover's Distance, default), chi2, ops (total operations), latency "
      "(total latency)", "METHOD" },
    { "threshold", 0, 0, G_OPTION_ARG_DOUBLE, &threshold,
      "Drop pairs whose total latency and operation count both differ by less than this fraction (default 0.1)",
      "X" },
    { "min-weight", 0, 0, G_OPTION_ARG_DOUBLE, &min_weight,
      "Drop pairs whose total latency is below this fraction of their recording's in both (default 0.001)", "W" },
    { "min-ops", 0, 0, G_OPTION_ARG_INT, &min_ops,
      "Drop pairs with fewer operations than this in both recordings (default 10)", "N" },
    { "resolution", 0, 0, G_OPTION_ARG_INT, &resolution, "Buckets per octave: 1 (default), 2 or 4", "R" },
    { "top", 0, 0, G_OPTION_ARG_INT, &top, "Print at most N ranked pairs (default 20; 0: all)", "N" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format,
      "Output format: text (default) or json (the ranked pairs, an infinite distance as null, and the "
      "categories or causes of both, in ns, by the keys of rsp-summary --categories --format=json)", "FORMAT" },
    { "flame-out", 0, 0, G_OPTION_ARG_FILENAME, &flame_out,
      "Write a differential consolidated flame graph of the process of interest's control paths to FILE "
      "(.svg or .png): frames matched by their stack of names, width max(A, B), red grew in B, blue shrank",
      "FILE" },
    { "pid-a", 0, 0, G_OPTION_ARG_INT, &pid_a,
      "Process of interest in A for --flame-out (default: the command rsp-record ran)", "PID" },
    { "pid-b", 0, 0, G_OPTION_ARG_INT, &pid_b,
      "Process of interest in B for --flame-out (default: the command rsp-record ran)", "PID" },
    { "flame-width", 0, 0, G_OPTION_ARG_INT, &flame_width, "Width of the --flame-out drawing in pixels (default 1200)",
      "PX" },
    { "all", 0, 0, G_OPTION_ARG_NONE, &all,
      "Compare every process's profiles and the system-wide ones, not only the recorded command's process tree",
      NULL },
    { "gate", 0, 0, G_OPTION_ARG_STRING, &gate_spec,
      "Exit 1 when B grew past a bound: KEY:+N% or KEY:+Nms, comma-separated; KEY is total (the recorded command's "
      "paths), wall, a category key or profile:TEXT (the profiles whose class contains TEXT)", "SPEC" },
    { "no-switch-records", 0, 0, G_OPTION_ARG_NONE, &no_switch,
      "Ignore PERF_RECORD_SWITCH records: build runs from sched:sched_switch", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  GError *error = NULL;
  GOptionContext *ctx = g_option_context_new("A.data B.data - what changed between two recordings");
  g_option_context_set_summary(ctx,
      "Builds the latency profiles of both recordings (waits by site, disk I/O, network, scheduler\n"
      "delay, run lengths, preemptions; per command and system-wide) and selects the pairs that\n"
      "changed, as OSprof does: pairs with similar totals or negligible weight are dropped, the\n"
      "peaks of the rest compared, and the rest ranked by a distance, largest first.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    fprintf(stderr, "rsp-diff: %s\n", error->message);
    g_error_free(error);
    g_option_context_free(ctx);
    return 2;
  }
  g_option_context_free(ctx);
  int status = 2;
  bool flame_created = false; /* by the writability check: removed if nothing is written */
  rsp_model *ma = NULL, *mb = NULL;
  rsp_profile_set *sa = NULL, *sb = NULL;
  rsp_profile_diff *diff = NULL;
  rsp_distance_method method = RSP_DISTANCE_EMD;
  if (method_name && !rsp_distance_method_parse(method_name, &method)) {
    fprintf(stderr, "rsp-diff: unknown method '%s' (emd, chi2, ops or latency)\n", method_name);
    goto out;
  }
  bool json = format && strcmp(format, "json") == 0;
  if (format && !json && strcmp(format, "text") != 0) {
    fprintf(stderr, "rsp-diff: unknown format '%s' (text or json)\n", format);
    goto out;
  }
  if (argc != 3) {
    fprintf(stderr, "rsp-diff: expected two files, A.data B.data (see --help)\n");
    goto out;
  }
  if (gate_spec && !(gate = gate_parse(gate_spec)))
    goto out;
  if (!(threshold >= 0 && threshold <= 1) || !(min_weight >= 0 && min_weight <= 1)) {
    fprintf(stderr, "rsp-diff: --threshold and --min-weight are fractions between 0 and 1\n");
    goto out;
  }
  if (resolution != 1 && resolution != 2 && resolution != 4) {
    fprintf(stderr, "rsp-diff: --resolution %d: must be 1, 2 or 4\n", resolution);
    goto out;
  }
  if (flame_out && !g_str_has_suffix(flame_out, ".svg") && !g_str_has_suffix(flame_out, ".SVG") &&
      !g_str_has_suffix(flame_out, ".png") && !g_str_has_suffix(flame_out, ".PNG")) {
    fprintf(stderr, "rsp-diff: --flame-out %s: the name must end in .svg or .png\n", flame_out);
    goto out;
  }
  /* an unwritable --flame-out is said before the (long) loading, not after */
  if (flame_out) {
    flame_created = !g_file_test(flame_out, G_FILE_TEST_EXISTS);
    FILE *probe = fopen(flame_out, "ab");
    if (!probe) {
      flame_created = false;
      fprintf(stderr, "rsp-diff: --flame-out %s: cannot write: %s\n", flame_out, g_strerror(errno));
      status = 1;
      goto out;
    }
    fclose(probe);
  }
  if (flame_width < 100 || flame_width > 20000) {
    fprintf(stderr, "rsp-diff: --flame-width %d: must be between 100 and 20000\n", flame_width);
    goto out;
  }
  status = 1;
  /* OSprof's complete set is the profiled workload's: with rsp-record's notes, the command it ran
   * and the processes that command started; else (or with --all) everything, system-wide too */
  int32_t wa = all ? -1 : rsp_metadata_workload_pid_of(argv[1]), wb = all ? -1 : rsp_metadata_workload_pid_of(argv[2]);
  bool scoped = wa >= 0 && wb >= 0;
  rsp_profile_options po = { .resolution = (unsigned)resolution, .pid = -1, .system_wide = !scoped,
                             .by_command = true, .workload_only = scoped, .workload_pid = wa };
  side sides[2] = { { .path = argv[1], .no_switch = no_switch, .po = po },
                    { .path = argv[2], .no_switch = no_switch, .po = po } };
  sides[1].po.workload_pid = wb;
  GThread *second = g_thread_new("rsp-diff B", build_side, &sides[1]);
  build_side(&sides[0]);
  g_thread_join(second);
  ma = sides[0].m, mb = sides[1].m, sa = sides[0].set, sb = sides[1].set;
  bool built = true;
  for (int i = 0; i < 2; i++) {
    if (sides[i].m && !sides[i].set) {
      fprintf(stderr, "rsp-diff: %s\n", sides[i].error->message);
      g_error_free(sides[i].error);
    }
    if (!sides[i].set)
      built = false;
  }
  if (!built)
    goto out;
  /* 0 means "the default" to the library; an explicit 0 here means "drop nothing" */
  rsp_profile_diff_options dopt = { .method = method, .similar_threshold = threshold > 0 ? threshold : 1e-300,
                                    .weight_threshold = min_weight > 0 ? min_weight : 1e-300,
                                    .min_ops = min_ops > 0 ? (uint64_t)min_ops : 1 };
  diff = rsp_profile_diff_compute(sa, sb, &dopt);

  rsp_categories cat_a, cat_b;
  bool have_categories = scoped && categories_of(ma, wa, argv[1], &cat_a) && categories_of(mb, wb, argv[2], &cat_b);
  uint64_t ca[RSP_N_CATEGORIES], cb[RSP_N_CATEGORIES];
  cause_totals(sa, ca);
  cause_totals(sb, cb);
  if (json) {
    print_json(argv, sa, sb, scoped ? wa : -1, scoped ? wb : -1, diff, method, top,
               have_categories ? &cat_a : NULL, have_categories ? &cat_b : NULL, ca, cb);
  } else {
    if (scoped)
      printf("A: %s (%u profiles of the recorded command, pid %d, and its children)\n"
             "B: %s (%u profiles of the recorded command, pid %d, and its children)\n",
             argv[1], rsp_profile_set_n(sa), wa, argv[2], rsp_profile_set_n(sb), wb);
    else
      printf("A: %s (%u profiles, every process and system-wide)\nB: %s (%u profiles, every process and "
             "system-wide)\n", argv[1], rsp_profile_set_n(sa), argv[2], rsp_profile_set_n(sb));
    printf("phase 1: dropped %u pairs with similar totals, %u with fewer than %d operations, %u of negligible "
           "weight; %u ranked by %s\n\n",
           diff->n_similar, diff->n_few, min_ops, diff->n_negligible, diff->n_pairs, rsp_distance_method_name(method));
    printf("%4s %9s  %-36s %-16s %20s %20s  %s\n", "RANK", "DISTANCE", "CLASS", "PROCESS", "A ops / total",
           "B ops / total", "WHY");
    for (uint32_t i = 0; i < diff->n_pairs && (top <= 0 || i < (uint32_t)top); i++) {
      const rsp_profile_pair *p = &diff->pairs[i];
      const rsp_profile *any = p->a ? p->a : p->b;
      char a[48], b[48], d[32];
      rsp_profile_format_ops_total(p->a, "-", a, sizeof a);
      rsp_profile_format_ops_total(p->b, "-", b, sizeof b);
      if (isinf(p->distance))
        snprintf(d, sizeof d, "inf");
      else
        snprintf(d, sizeof d, "%.3f", p->distance);
      printf("%4u %9s  %-36s %-16s %20s %20s  %s\n", i + 1, d, any->name,
             strcmp(any->process, "*") ? any->process : "system-wide", a, b, p->reason);
    }

    /* The paper's categories of both recordings' control paths (the recorded command's), side by
     * side; without a workload pid (no rsp-record notes, or --all), the profiles' own causes. */
    if (have_categories) {
      printf("\ncategories of the recorded command's control paths (paper, \"Categories\"):\n");
      printf("%-34s %14s %14s %14s\n", "CATEGORY", "A ms", "B ms", "DELTA ms");
      for (int c = 0; c < RSP_N_CATEGORIES; c++)
        if (cat_a.ns[c] || cat_b.ns[c])
          printf("%-34s %14.3f %14.3f %+14.3f\n", rsp_category_label((rsp_category)c), (double)cat_a.ns[c] / 1e6,
                 (double)cat_b.ns[c] / 1e6, ((double)cat_b.ns[c] - (double)cat_a.ns[c]) / 1e6);
      printf("%-34s %14.3f %14.3f %+14.3f\n", "total (over control paths)", (double)cat_a.total_ns / 1e6,
             (double)cat_b.total_ns / 1e6, ((double)cat_b.total_ns - (double)cat_a.total_ns) / 1e6);
      printf("%-34s %14.3f %14.3f %+14.3f\n", "wall", (double)cat_a.wall_ns / 1e6, (double)cat_b.wall_ns / 1e6,
             ((double)cat_b.wall_ns - (double)cat_a.wall_ns) / 1e6);
    } else {
      printf("\nlatency by cause of the compared processes' waits, runs, preemptions and scheduler delays "
             "(no recorded command to build control paths for):\n");
      printf("%-14s %14s %14s %14s\n", "CAUSE", "A ms", "B ms", "DELTA ms");
      for (int c = 0; c < RSP_N_CATEGORIES; c++)
        if (ca[c] || cb[c])
          printf("%-14s %14.3f %14.3f %+14.3f\n", rsp_profile_cause_key((rsp_category)c), (double)ca[c] / 1e6,
                 (double)cb[c] / 1e6, ((double)cb[c] - (double)ca[c]) / 1e6);
    }
  }
  status = 0;
  if (gate) {
    /* after the report; with --format=json on stderr, so stdout stays one JSON object */
    FILE *gout = json ? stderr : stdout;
    if (!json)
      fputc('\n', gout);
    int crossed = gate_check(gate, have_categories ? &cat_a : NULL, have_categories ? &cat_b : NULL, ca, cb, sa, sb,
                             diff, gout);
    if (crossed < 0)
      status = 2;
    else if (crossed > 0)
      status = 1;
  }
  if (flame_out) {
    /* the process of interest as for the categories above: the command rsp-record ran */
    int32_t fa = pid_a >= 0 ? pid_a : rsp_model_workload_pid(ma), fb = pid_b >= 0 ? pid_b : rsp_model_workload_pid(mb);
    if (fa < 0 || fb < 0) {
      fprintf(stderr, "rsp-diff: --flame-out: %s: no recorded command (no rsp-record notes); give --pid-%s PID\n",
              fa < 0 ? argv[1] : argv[2], fa < 0 ? "a" : "b");
      status = 1;
    } else if (!write_flame(ma, mb, argv[1], argv[2], fa, fb, flame_out, flame_width, top, !json)) {
      status = 1;
    }
  }
out:
  if (flame_created && status != 0)
    g_unlink(flame_out); /* made empty by the check above */
  rsp_profile_diff_free(diff);
  rsp_profile_set_free(sa);
  rsp_profile_set_free(sb);
  if (ma)
    rsp_model_free(ma);
  if (mb)
    rsp_model_free(mb);
  gate_free(gate);
  g_free(gate_spec);
  g_free(method_name);
  g_free(flame_out);
  g_free(format);
  return status;
}
