/* rsp-export: rsp's analysis in the formats other tools read: speedscope, pprof and the Firefox Profiler's
 * Gecko format (src/export/), and here Brendan Gregg's folded
 * ("collapsed") stacks, one "frame;frame;frame VALUE" line per distinct stack, which flamegraph.pl,
 * speedscope, inferno and the Firefox Profiler import:
 *   consolidated  the process of interest's control paths as cross-process pseudo-stacks (paper,
 *                 "Consolidated Flame View"): chain-client;__libc_recv;chain-server;read;chain-worker;
 *                 compute_digest, each stack's own time in microseconds; beside them, the kernel work done
 *                 for each of its processes by others (kernel-work.c): "kernel work for chain-worker;jbd2/sda1-8",
 *                 what the paths do not already show (as rsp-view's consolidated view draws it);
 *   on-cpu        its processes' samples, one count per sample, "comm;outermost;...;innermost";
 *   off-cpu       its processes' sleeps by wait stack, in microseconds.
 * The other formats are written by src/export/ (perfetto: a protobuf trace for ui.perfetto.dev). */
#include "analysis/analysis.h"
#include "render/render.h" /* rsp_parse_range, as rsp-view parses --range */
#include "export/export.h"

#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A folded frame: ';' separates frames and ' ' ends the stack, so neither may appear inside one. */
static void put_frame(GString *line, const char *name)
{
  if (line->len)
    g_string_append_c(line, ';');
  for (const char *c = name && *name ? name : "[unknown]"; *c; c++)
    g_string_append_c(line, *c == ';' ? ':' : (*c == ' ' || *c == '\n' || *c == '\t') ? '_' : *c);
}

/* The stack of a model stack, outermost first, after PREFIX. */
static void put_stack(GString *line, const rsp_model *m, rsp_stack_id stack)
{
  rsp_stack_frames f = rsp_model_stack(m, stack);
  if (!f.n) {
    put_frame(line, "[no stack]");
    return;
  }
  for (uint32_t i = f.n; i-- > 0;)
    put_frame(line, rsp_frame_at(f, i)->function);
}

/* Sums VALUE under the stack LINE in TOTALS (stack text -> uint64_t *). */
static void add_line(GHashTable *totals, const GString *line, uint64_t value)
{
  uint64_t *v = g_hash_table_lookup(totals, line->str);
  if (!v) {
    v = g_new0(uint64_t, 1);
    g_hash_table_insert(totals, g_strdup(line->str), v);
  }
  *v += value;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Writes TOTALS sorted by stack (as stackcollapse scripts do); values divided by DIVISOR, rounded. */
static bool write_totals(GHashTable *totals, uint64_t divisor, FILE *out)
{
  guint n = 0;
  gpointer *keys = g_hash_table_get_keys_as_array(totals, &n);
  qsort(keys, n, sizeof *keys, cmp_str);
  for (guint i = 0; i < n; i++) {
    uint64_t v = *(uint64_t *)g_hash_table_lookup(totals, keys[i]);
    uint64_t shown = (v + divisor / 2) / divisor;
    if (shown)
      fprintf(out, "%s %" PRIu64 "\n", (const char *)keys[i], shown);
  }
  g_free(keys);
  return !ferror(out);
}

/* Perfetto's writer takes the model too (every thread's states, not only the paths'). */
static bool write_perfetto(const rsp_paths *p, const rsp_export_window *window, FILE *out, GError **error)
{
  return rsp_export_perfetto(rsp_paths_model(p), p, window, out, error);
}

/* The consolidated tree's nodes with their own time (theirs less their children's). */
/* Frames of a folded line at most: a relay thousands of processes deep would make each of its lines that long
 * (quadratic output no flame graph tool draws); what lies deeper is summed under its ancestor at this depth, as
 * one "[deeper]" frame. */
#define FOLDED_MAX_DEPTH 2048

/* The stack of tree node ID, outermost first, into LINE. */
static void node_line(const rsp_stack_tree *tree, uint32_t id, GPtrArray *chain, GString *line)
{
  g_ptr_array_set_size(chain, 0);
  for (uint32_t x = id; x != RSP_NO_ID; x = rsp_stack_tree_node(tree, x)->parent)
    g_ptr_array_add(chain, (gpointer)rsp_stack_tree_node(tree, x)->label);
  g_string_truncate(line, 0);
  for (guint k = chain->len; k-- > 0;)
    put_frame(line, g_ptr_array_index(chain, k));
}

static void consolidated(const rsp_paths *p, uint64_t lo, uint64_t hi, GHashTable *totals)
{
  rsp_kernel_work *kw = rsp_kernel_work_compute(rsp_paths_model(p));
  rsp_stack_tree *tree = rsp_stack_tree_build_kwork(p, kw, lo, hi, 0);
  rsp_kernel_work_free(kw);
  uint32_t n = rsp_stack_tree_n_nodes(tree);
  GString *line = g_string_new(NULL);
  GPtrArray *chain = g_ptr_array_new();
  /* per node: its ancestor at FOLDED_MAX_DEPTH (itself when not deeper), and the time summed there from below */
  uint32_t *anchor = g_new(uint32_t, n ? n : 1);
  uint64_t *deeper = g_new0(uint64_t, n ? n : 1);
  for (uint32_t id = 0; id < n; id++) {
    const rsp_stack_node *node = rsp_stack_tree_node(tree, id);
    if (node->depth <= FOLDED_MAX_DEPTH || node->parent == RSP_NO_ID) {
      anchor[id] = id;
    } else if (node->parent < id) { /* a parent is made before its children */
      anchor[id] = anchor[node->parent];
    } else {
      uint32_t x = id;
      while (rsp_stack_tree_node(tree, x)->depth > FOLDED_MAX_DEPTH)
        x = rsp_stack_tree_node(tree, x)->parent;
      anchor[id] = x;
    }
  }
  for (uint32_t id = 0; id < n; id++) {
    const rsp_stack_node *node = rsp_stack_tree_node(tree, id);
    uint32_t nk;
    const uint32_t *kids = rsp_stack_tree_children(tree, id, &nk);
    uint64_t below = 0;
    for (uint32_t k = 0; k < nk; k++)
      below += rsp_stack_tree_node(tree, kids[k])->ns;
    if (node->ns <= below)
      continue;
    if (anchor[id] != id) {
      deeper[anchor[id]] += node->ns - below;
      continue;
    }
    node_line(tree, id, chain, line);
    add_line(totals, line, node->ns - below);
  }
  for (uint32_t id = 0; id < n; id++) {
    if (!deeper[id])
      continue;
    node_line(tree, id, chain, line);
    put_frame(line, "[deeper]");
    add_line(totals, line, deeper[id]);
  }
  g_free(anchor);
  g_free(deeper);
  g_ptr_array_free(chain, TRUE);
  g_string_free(line, TRUE);
  rsp_stack_tree_free(tree);
}

/* Whether task T belongs to one of the processes in PIDS. */
static bool wanted(const rsp_model *m, rsp_task_id t, GHashTable *pids)
{
  return g_hash_table_contains(pids, GINT_TO_POINTER(rsp_model_task(m, t)->pid));
}

static void on_cpu(const rsp_model *m, GHashTable *pids, uint64_t lo, uint64_t hi, GHashTable *totals)
{
  GString *line = g_string_new(NULL);
  for (rsp_sample_id s = 0; s < rsp_model_n_samples(m); s++) {
    const rsp_sample *sm = rsp_model_sample(m, s);
    rsp_task_id t = rsp_model_run(m, sm->run)->task;
    if (!wanted(m, t, pids) || sm->time < lo || sm->time >= hi)
      continue;
    g_string_truncate(line, 0);
    put_frame(line, rsp_model_task(m, t)->comm);
    put_stack(line, m, sm->stack);
    add_line(totals, line, 1);
  }
  g_string_free(line, TRUE);
}

static void off_cpu(const rsp_model *m, GHashTable *pids, uint64_t lo, uint64_t hi, GHashTable *totals)
{
  GString *line = g_string_new(NULL);
  for (rsp_sleep_id s = 0; s < rsp_model_n_sleeps(m); s++) {
    const rsp_sleep *sl = rsp_model_sleep(m, s);
    uint64_t a = MAX(sl->start, lo), b = MIN(sl->end, hi);
    if (!wanted(m, sl->task, pids) || b <= a)
      continue;
    g_string_truncate(line, 0);
    put_frame(line, rsp_model_task(m, sl->task)->comm);
    put_stack(line, m, sl->stack);
    add_line(totals, line, b - a);
  }
  g_string_free(line, TRUE);
}

int main(int argc, char **argv)
{
  setlocale(LC_ALL, "");
  gboolean load_all = FALSE;
  char *to = NULL, *stacks = NULL, *output = NULL, *comm = NULL, *range = NULL;
  gint pid = -1;
  GOptionEntry entries[] = {
    { "to", 0, 0, G_OPTION_ARG_STRING, &to,
      "Output format: folded (collapsed stacks), perfetto (a protobuf trace), speedscope (JSON), pprof (gzipped "
      "profile.proto), firefox (Gecko profile JSON)", "FORMAT" },
    { "stacks", 0, 0, G_OPTION_ARG_STRING, &stacks,
      "Which stacks: consolidated (the control paths' cross-process pseudo-stacks, us; default), on-cpu (samples, "
      "counts) or off-cpu (sleeps by wait stack, us)", "KIND" },
    { "pid", 0, 0, G_OPTION_ARG_INT, &pid, "The process of interest (default: the command rsp-record ran)", "PID" },
    { "comm", 0, 0, G_OPTION_ARG_STRING, &comm, "The process of interest by name (the longest-running of that name)",
      "NAME" },
    { "range", 0, 0, G_OPTION_ARG_STRING, &range,
      "Only [T0, T1) from the recording's start (e.g. 1.5ms:300ms; units ns, us, ms, s, none: s): the control paths clipped "
      "to it, the samples in it, the sleeps and operations that meet it; only that part of the file is read, with 100 ms "
      "on each side", "T0:T1" },
    { "load-all", 0, 0, G_OPTION_ARG_NONE, &load_all,
      "With --range: read the whole recording and cut its control paths (the consolidated stacks of [0, X) and "
      "[X, end) then add up to the whole; slower)", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE (default: standard output)", "FILE" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  GError *error = NULL;
  GOptionContext *ctx = g_option_context_new("FILE - write rsp's analysis of a perf.data in another tool's format");
  g_option_context_set_summary(ctx,
      "--to folded: Brendan Gregg's collapsed stacks (flamegraph.pl, speedscope, inferno), one\n"
      "'frame;frame;frame VALUE' line per stack. --stacks consolidated: the process of interest's control\n"
      "paths as cross-process pseudo-stacks (a process name, the functions it waited or ran in, the\n"
      "process that woke it, ...), each stack's own time in microseconds, and the kernel work done for\n"
      "its processes by interrupts and kernel threads ('kernel work for NAME;softirq BLOCK'); on-cpu: the samples of the\n"
      "processes on those paths, one count each; off-cpu: their sleeps by wait stack, in microseconds.\n"
      "--to perfetto: a Perfetto trace (ui.perfetto.dev): thread states, wakeups as flows, disk and network\n"
      "operations, samples with their stacks and the control paths as a critical-path track.\n"
      "--to speedscope: an evented profile per thread of the paths, a sampled one per process. --to pprof:\n"
      "gzipped profile.proto, samples and off-cpu nanoseconds. --to firefox: the Gecko profile of perf script\n"
      "report gecko, with markers for sleeps, disk requests and network operations.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  int status = 2;
  rsp_model *m = NULL;
  rsp_paths *p = NULL;
  GHashTable *totals = NULL, *pids = NULL;
  FILE *out = stdout;
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    fprintf(stderr, "rsp-export: %s\n", error->message);
    g_clear_error(&error);
    goto done;
  }
  /* the formats of src/export/: each writes the paths' analysis itself */
  static const struct {
    const char *name;
    bool (*write)(const rsp_paths *, const rsp_export_window *, FILE *, GError **);
    bool binary;
  } formats[] = {
    { "perfetto", write_perfetto, true },
    { "speedscope", rsp_export_speedscope, false },
    { "pprof", rsp_export_pprof, true },
    { "firefox", rsp_export_firefox, false },
  };
  bool (*write_format)(const rsp_paths *, const rsp_export_window *, FILE *, GError **) = NULL;
  bool binary = false;
  for (size_t i = 0; to && i < G_N_ELEMENTS(formats); i++)
    if (strcmp(to, formats[i].name) == 0) {
      write_format = formats[i].write;
      binary = formats[i].binary;
    }
  if (!to || (strcmp(to, "folded") != 0 && !write_format)) {
    fprintf(stderr, "rsp-export: --to %s: the formats are: folded", to ? to : "(missing)");
    for (size_t i = 0; i < G_N_ELEMENTS(formats); i++)
      fprintf(stderr, ", %s", formats[i].name);
    fputc('\n', stderr);
    goto done;
  }
  if (binary && !output && isatty(STDOUT_FILENO)) {
    fprintf(stderr, "rsp-export: --to %s writes binary: give -o FILE or redirect the output\n", to);
    goto done;
  }
  const char *kind = stacks ? stacks : "consolidated";
  if (strcmp(kind, "consolidated") && strcmp(kind, "on-cpu") && strcmp(kind, "off-cpu")) {
    fprintf(stderr, "rsp-export: --stacks %s: consolidated, on-cpu or off-cpu\n", kind);
    goto done;
  }
  if (argc != 2) {
    fprintf(stderr, "rsp-export: expected one FILE (see --help)\n");
    goto done;
  }
  /* --range: only that window of the recording is read (with margins), times still from its start */
  rsp_model_options mo = { 0 };
  if (range && !load_all && !(mo.window = rsp_parse_range(range, &mo.window_t0, &mo.window_t1))) {
    fprintf(stderr, "rsp-export: --range must be T0:T1 with T0 < T1 (e.g. 1.5ms:300ms), not '%s'\n", range);
    status = 2;
    goto done;
  }
  status = 1;
  m = rsp_model_load(argv[1], &mo, &error);
  if (!m) {
    fprintf(stderr, "rsp-export: %s\n", error->message);
    g_clear_error(&error);
    goto done;
  }
  rsp_process_choice choice;
  if (!rsp_process_choose(m, argv[1], pid, comm, &choice, &error)) {
    fprintf(stderr, "rsp-export: %s\n", error->message);
    g_clear_error(&error);
    rsp_process_choice_clear(&choice);
    goto done;
  }
  int32_t poi = choice.pid;
  rsp_process_choice_clear(&choice);
  /* the paths over the window read (the range and its margins), then the range applied to what is written (as
   * the app's consolidated view of a selected range does: each pseudo-stack's time inside it) */
  rsp_export_window window = { 0, UINT64_MAX };
  if (range) {
    uint64_t first = rsp_model_time_first(m), a = 0, b = 0;
    if (!rsp_parse_range(range, &a, &b)) {
      fprintf(stderr, "rsp-export: --range must be T0:T1 with T0 < T1 (e.g. 1.5ms:300ms), not '%s'\n", range);
      status = 2;
      goto done;
    }
    window.start = first + a;
    window.end = b > UINT64_MAX - first ? UINT64_MAX : first + b;
  }
  p = rsp_paths_build(m, poi, NULL, &error);
  if (!p) {
    fprintf(stderr, "rsp-export: %s: %s\n", argv[1], error ? error->message : "no control paths");
    g_clear_error(&error);
    goto done;
  }
  if (write_format) {
    if (output && !(out = fopen(output, "wb"))) {
      fprintf(stderr, "rsp-export: %s: %s\n", output, g_strerror(errno));
      out = stdout;
      goto done;
    }
    bool ok = write_format(p, range ? &window : NULL, out, &error);
    if (output && fclose(out) != 0)
      ok = false;
    out = stdout;
    if (!ok) {
      fprintf(stderr, "rsp-export: %s: %s\n", output ? output : "standard output",
              error ? error->message : "write error");
      g_clear_error(&error);
      goto done;
    }
    status = 0;
    goto done;
  }
  totals = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  pids = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (uint32_t i = 0; i < rsp_paths_n_tasks(p); i++)
    g_hash_table_add(pids, GINT_TO_POINTER(rsp_model_task(m, rsp_paths_task(p, i))->pid));
  uint64_t divisor = 1000, lo = window.start, hi = window.end;
  if (strcmp(kind, "consolidated") == 0) {
    consolidated(p, lo, hi, totals);
  } else if (strcmp(kind, "on-cpu") == 0) {
    on_cpu(m, pids, lo, hi, totals);
    divisor = 1;
  } else {
    off_cpu(m, pids, lo, hi, totals);
  }
  if (output && !(out = fopen(output, "w"))) {
    fprintf(stderr, "rsp-export: %s: %s\n", output, g_strerror(errno));
    out = stdout;
    goto done;
  }
  if (!write_totals(totals, divisor, out) || (output && fclose(out) != 0)) {
    fprintf(stderr, "rsp-export: %s: write error\n", output ? output : "standard output");
    out = stdout;
    goto done;
  }
  out = stdout;
  status = 0;
done:
  if (out != stdout)
    fclose(out);
  if (totals)
    g_hash_table_destroy(totals);
  if (pids)
    g_hash_table_destroy(pids);
  if (p)
    rsp_paths_free(p);
  if (m)
    rsp_model_free(m);
  g_option_context_free(ctx);
  g_free(to);
  g_free(stacks);
  g_free(output);
  g_free(comm);
  g_free(range);
  return status;
}
