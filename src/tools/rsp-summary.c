/* rsp-summary: per-task totals of a recording (runtime, sleeps by state, scheduler delay, I/O wait). */
#include "analysis/analysis.h"
#include "export/export.h"
#include "model/model.h"
#include "summary-categories.h"
#include "summary-profiles.h"
#ifdef RSP_HAVE_RENDER
#include "render/render.h" /* rsp_parse_range, as rsp-view parses --range */
#endif

#include <inttypes.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct row {
  rsp_task_id id;
  const rsp_task *task;
  rsp_task_totals totals;
} row;

static int by_runtime(const void *a, const void *b)
{
  const row *x = a, *y = b;
  if (x->totals.runtime != y->totals.runtime)
    return x->totals.runtime < y->totals.runtime ? 1 : -1;
  if (x->task->tid != y->task->tid)
    return x->task->tid < y->task->tid ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

static double ms(uint64_t ns)
{
  return (double)ns / 1e6;
}

static void print_loss(const rsp_model *model, FILE *out)
{
  const rsp_model_loss *l = rsp_model_loss_get(model);
  const char *src = rsp_model_runs_source(model) == RSP_RUNS_FROM_SWITCH_RECORDS
                        ? "PERF_RECORD_SWITCH records"
                        : "sched:sched_switch (switch-ins from idle inferred)";
  fprintf(out, "runs from %s: %u runs, %u sleeps, %" PRIu64 " switch events, %" PRIu64 " events\n", src,
          rsp_model_n_runs(model), rsp_model_n_sleeps(model), rsp_model_n_switch_events(model),
          rsp_model_n_events(model));
  fprintf(out, "loss: %" PRIu64 " inferred switch-ins, %" PRIu64 " orphan samples, %" PRIu64
          " switch-outs without a switch-in, %" PRIu64 " implicit switch-outs, %" PRIu64
          " runs open at the start, %" PRIu64 " at the end, %" PRIu64 " sleeps without a wakeup, %" PRIu64
          " LOST records (%" PRIu64 " events), %" PRIu64 " LOST_SAMPLES (%" PRIu64 " samples)\n",
          l->inferred_switch_ins, l->orphan_samples, l->unmatched_switch_outs, l->implicit_switch_outs,
          l->runs_open_at_start, l->runs_open_at_end, l->sleeps_without_wakeup, l->lost_records,
          l->lost_events, l->lost_samples_records, l->lost_samples);
  char **warnings = rsp_model_loss_warnings(model);
  for (char **w = warnings; *w; w++)
    if (!l->sampled_tracepoints || w != warnings) /* that one was printed loudly already */
      fprintf(out, "note: %s\n", *w);
  g_strfreev(warnings);
}

/* The loss check rsp-record wrote beside the recording (FILE.meta [loss]: recorded;occurred), with
 * what its ftrace capture ([ftrace]: events the capture holds) gives back, which the reader merges. */
static void print_loss_check(const char *path, FILE *out)
{
  rsp_loss_check c;
  if (!rsp_loss_check_load(path, &c))
    return;
  for (unsigned i = 0; i < c.n_rows; i++) {
    const rsp_loss_check_row *r = &c.rows[i];
    if (r->recorded >= r->occurred)
      continue;
    fprintf(out, "loss check: %s: perf record kept %" PRIu64 " of %" PRIu64 " (%.1f%%)", r->event, r->recorded,
            r->occurred, 100.0 * (double)r->recorded / (double)r->occurred);
    if (r->ftrace >= 0)
      fprintf(out, "; with the ftrace capture (%" PRId64 " there) %.1f%%", r->ftrace,
              100.0 * (double)r->best / (double)r->occurred);
    fputc('\n', out);
  }
  if (c.occurred) {
    fprintf(out, "loss check: perf record kept %" PRIu64 " of %" PRIu64 " tracepoint events that occurred (%.1f%%)",
            c.recorded, c.occurred, 100.0 * (double)c.recorded / (double)c.occurred);
    if (c.any_ftrace)
      fprintf(out, "; with the events only the ftrace capture holds (the reader merges them) %.1f%%",
              100.0 * (double)c.best / (double)c.occurred);
    fprintf(out, "; see %s.meta\n", path);
  }
  rsp_loss_check_clear(&c);
}

/* A progress line on stderr for long loads (perf and hotspot show one): after the first second, when
 * stderr is a terminal, "reading FILE: 45% (120 of 270 MB, 80 MB/s, 2 s left)", erased when done. */
typedef struct progress_state {
  const char *path;
  gint64 start;
  bool shown;
} progress_state;

static bool show_progress(uint64_t offset, uint64_t size, void *data)
{
  progress_state *p = data;
  gint64 now = g_get_monotonic_time();
  if (!p->start)
    p->start = now;
  double secs = (double)(now - p->start) / 1e6;
  if (secs < 1.0 || !size)
    return true;
  double rate = (double)offset / secs;
  double left = rate > 0 ? (double)(size - MIN(offset, size)) / rate : 0;
  fprintf(stderr, "\rrsp-summary: reading %s: %3.0f%% (%.0f of %.0f MB, %.0f MB/s, %.0f s left)  ", p->path,
          100.0 * (double)offset / (double)size, (double)offset / 1e6, (double)size / 1e6, rate / 1e6, left);
  p->shown = true;
  return true;
}

/* --range: the task's run and sleep time inside [T0, T1] (absolute), its samples there. */
static void clip_totals(const rsp_model *model, rsp_task_id id, uint64_t t0, uint64_t t1, rsp_task_totals *t)
{
  const rsp_task *task = rsp_model_task(model, id);
  t->runtime = t->sleep = 0;
  t->samples = 0;
  for (uint32_t i = 0; i < task->n_runs; i++) {
    const rsp_run *r = rsp_model_run(model, rsp_model_task_run(model, id, i));
    uint64_t a = MAX(r->start, t0), b = MIN(r->end, t1);
    if (b > a)
      t->runtime += b - a;
    for (uint32_t k = 0; k < r->n_samples; k++) {
      uint64_t st = rsp_model_sample(model, r->first_sample + k)->time;
      t->samples += st >= t0 && st <= t1;
    }
  }
  for (uint32_t i = 0; i < task->n_sleeps; i++) {
    const rsp_sleep *sl = rsp_model_sleep(model, rsp_model_task_sleep(model, id, i));
    uint64_t a = MAX(sl->start, t0), b = MIN(sl->end, t1);
    if (b > a)
      t->sleep += b - a;
  }
}

static void print_kernel_work_sources(const rsp_kernel_work *kw, int32_t pid, bool json, FILE *out)
{
  rsp_json_writer jw = rsp_json_writer_file(out, RSP_JSON_SHORT_ESCAPES | RSP_JSON_SPACED);
  uint32_t n;
  const rsp_kernel_work_source *src = rsp_kernel_work_sources(kw, &n);
  bool first = true;
  for (uint32_t i = 0; i < n; i++) {
    if (src[i].pid != pid)
      continue;
    if (json) {
      fprintf(out, "%s{\"doer\": ", first ? "" : ", ");
      rsp_json_string(&jw, src[i].doer);
      fprintf(out, ", \"kind\": \"%s\", \"ms\": %.6f, \"count\": %.3f}",
              rsp_kernel_work_key((rsp_kernel_work_kind)src[i].kind), ms(src[i].ns), src[i].count);
    } else {
      fprintf(out, "%s%s %.3f ms (%.1f)", first ? "" : ", ", src[i].doer, ms(src[i].ns), src[i].count);
    }
    first = false;
  }
}

static void print_accounting(const rsp_model *model, bool json, FILE *out)
{
  rsp_json_writer jw = rsp_json_writer_file(out, RSP_JSON_SHORT_ESCAPES | RSP_JSON_SPACED);
  uint32_t n;
  rsp_kernel_work *kw = rsp_kernel_work_compute(model);
  rsp_accounting_row *rows = rsp_accounting_compute_kwork(model, kw, &n);
  if (json) {
    fprintf(out, "[");
    for (uint32_t i = 0; i < n; i++) {
      const rsp_accounting_row *r = &rows[i];
      fprintf(out, "%s\n  {\"pid\": %" PRId32 ", \"comm\": ", i ? "," : "", r->pid);
      rsp_json_string(&jw, r->comm);
      fprintf(out, ", \"tasks\": %" PRIu32 ", \"life_ms\": %.6f", r->n_tasks, ms(r->life_ns));
      for (int c = 0; c < RSP_N_ACCT; c++)
        fprintf(out, ", \"%s_ms\": %.6f", rsp_accounting_key((rsp_accounting_column)c), ms(r->ns[c]));
      fprintf(out, ", \"user_samples\": %" PRIu64 ", \"kernel_samples\": %" PRIu64, r->user_samples,
              r->kernel_samples);
      /* done for it by interrupts and kernel threads: beside the columns, not one of them */
      const rsp_kernel_work_row *k = rsp_kernel_work_for_pid(kw, r->pid);
      fprintf(out, ", \"kernel_work_ms\": %.6f, \"kernel_work\": {", ms(r->kernel_work_ns));
      for (int c = 0; c < RSP_N_KWORK; c++)
        fprintf(out, "\"%s_ms\": %.6f, ", rsp_kernel_work_key((rsp_kernel_work_kind)c), k ? ms(k->ns[c]) : 0.0);
      fprintf(out, "\"interrupts\": %.3f, \"episodes\": %.3f, \"by\": [", k ? k->n_irqs : 0.0,
              k ? k->n_episodes : 0.0);
      print_kernel_work_sources(kw, r->pid, true, out);
      fprintf(out, "]}}");
    }
    fprintf(out, "%s]\n", n ? "\n" : "");
  } else {
    fprintf(out, "%8s %-16s %5s %11s %11s %11s %11s %11s %11s %11s %11s | %11s\n", "PID", "COMM", "TASKS",
            "LIFE ms", "USER ms", "KERNEL ms", "UNSAMPL ms", "IO ms", "WAIT ms", "RUNNABLE ms", "UNTRACED ms",
            "KWORK ms");
    for (uint32_t i = 0; i < n; i++) {
      const rsp_accounting_row *r = &rows[i];
      fprintf(out, "%8" PRId32 " %-16s %5" PRIu32 " %11.3f", r->pid, r->comm && *r->comm ? r->comm : "?",
              r->n_tasks, ms(r->life_ns));
      for (int c = 0; c < RSP_N_ACCT; c++)
        fprintf(out, " %11.3f", ms(r->ns[c]));
      fprintf(out, " | %11.3f\n", ms(r->kernel_work_ns));
    }
    fprintf(out, "\nKWORK: kernel work done for the process by interrupts and kernel threads (beside the columns,"
                 " which add up to LIFE; not in them)\n");
    uint32_t nk;
    const rsp_kernel_work_row *krows = rsp_kernel_work_rows(kw, &nk);
    for (uint32_t i = 0; i < nk; i++) {
      fprintf(out, "kernel work for %s (%" PRId32 "): %.3f ms: ", krows[i].comm && *krows[i].comm ? krows[i].comm : "?",
              krows[i].pid, ms(krows[i].total_ns));
      print_kernel_work_sources(kw, krows[i].pid, false, out);
      fputc('\n', out);
    }
    fprintf(out, "kernel work for nobody known: hardirq %.3f ms, softirq %.3f ms, kernel threads %.3f ms\n",
            ms(rsp_kernel_work_unattributed_ns(kw, RSP_KWORK_HARDIRQ)),
            ms(rsp_kernel_work_unattributed_ns(kw, RSP_KWORK_SOFTIRQ)),
            ms(rsp_kernel_work_unattributed_ns(kw, RSP_KWORK_KTHREAD)));
  }
  rsp_kernel_work_free(kw);
  g_free(rows);
}

int main(int argc, char **argv)
{
  setlocale(LC_ALL, "");
  gboolean tasks = FALSE, no_switch = FALSE;
  char *format = NULL;
  gint64 window_ns = 0;
  char *range = NULL;
  gboolean load_all = FALSE, no_index = FALSE;
  gboolean categories = FALSE, waits = FALSE, paths = FALSE, accounting = FALSE, explain = FALSE;
  g_autofree char *comm = NULL;
  gint64 tolerance_us = INT64_MIN, poll_gap_us = INT64_MIN; /* INT64_MIN: not given (0 means zero) */
  GOptionEntry entries[] = {
    { "tasks", 0, 0, G_OPTION_ARG_NONE, &tasks, "Per-task totals (the default)", NULL },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, "Output format: text (default) or json", "FORMAT" },
    { "no-switch-records", 0, 0, G_OPTION_ARG_NONE, &no_switch,
      "Ignore PERF_RECORD_SWITCH records: build runs from sched:sched_switch", NULL },
    { "sample-window-ns", 0, 0, G_OPTION_ARG_INT64, &window_ns,
      "Attach a sample to a run that ended at most this long before (default 20000, paper \"Runs and Sleeps\")",
      "NS" },
    { "categories", 0, 0, G_OPTION_ARG_NONE, &categories,
      "Where the control paths of the process of interest (--pid PID, --comm NAME, else the recorded workload) spent their time (paper, \"Categories\")", NULL },
    { "waits", 0, 0, G_OPTION_ARG_NONE, &waits, "The top waits on those control paths, by wait site (time on the paths: nested waits count once)", NULL },
    { "paths", 0, 0, G_OPTION_ARG_NONE, &paths, "The control paths' pseudo-stacks as indented trees (text)", NULL },
    { "explain", 0, 0, G_OPTION_ARG_NONE, &explain,
      "The answer in words: the process of interest's wall time told along its control paths, largest first", NULL },
    { "accounting", 0, 0, G_OPTION_ARG_NONE, &accounting,
      "Per process, every ms of its tasks' lives: running in user or kernel mode (by the samples), running unsampled, "
      "waiting for I/O, waiting for others, runnable, untraced (the Linux Trace Toolkit's table); beside them, the "
      "kernel work interrupts and kernel threads did for it, and by whom (pkprof)", NULL },
    { "comm", 0, 0, G_OPTION_ARG_STRING, &comm,
      "With --categories/--waits/--paths: the longest-running process named NAME (the others are listed)", "NAME" },
    { "tolerance-us", 0, 0, G_OPTION_ARG_INT64, &tolerance_us,
      "How far a child may overflow its parent sleep (default 100, paper \"Recursive Stack Making\"; 0: not at all)",
      "US" },
    { "poll-gap-us", 0, 0, G_OPTION_ARG_INT64, &poll_gap_us,
      "Merge timed-out polls separated by runs shorter than this, or by up to 1% of the poll when those runs woke nobody (default 100; 0: no merging)", "US" },
    { "range", 'r', 0, G_OPTION_ARG_STRING, &range,
      "Only the time range T0:T1 from the recording's start (e.g. 2s:2.5s): only it is read (with 100 ms on each "
      "side), and the per-task table counts the run and sleep time and the samples inside it", "T0:T1" },
    { "load-all", 0, 0, G_OPTION_ARG_NONE, &load_all,
      "With --range: read the whole recording, then cut (slower; the same figures)", NULL },
    { "no-index", 0, 0, G_OPTION_ARG_NONE, &no_index, "With --range: neither use nor write FILE.rsp-index", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  GError *error = NULL;
  GOptionContext *ctx = g_option_context_new("FILE - summarize a perf.data recording");
  g_option_context_set_summary(ctx,
      "Per task (pid, tid, comm; each exec a separate task): runtime, sleep time by state (S, D,\n"
      "other), scheduler delay (from the task's sched_wakeup, else sched_waking, to its switch-in),\n"
      "time runnable after preemption, I/O wait (D sleeps) and cpu-clock samples, busiest first.\n"
      "Runs come from perf's switch records (perf record --switch-events) when the file has them,\n"
      "else from the sched:sched_switch tracepoint, with the switch-ins it misses inferred.\n"
      "What perf lost and what was inferred is counted after the table (on stderr with --format=json);\n"
      "a recording whose tracepoints were sampled is reported as wrong.\n"
      "--categories: the paper's table of where the control paths of one process spent their time;\n"
      "--waits: their top waits by wait site; --paths: their pseudo-stacks. See rsp-summary(1).\n"
      "--range T0:T1 reads only that part of the recording (FILE.rsp-index, written beside FILE when the\n"
      "directory allows, makes the next reading of a window start there).");
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_option_context_add_group(ctx, summary_profiles_option_group());
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    fprintf(stderr, "rsp-summary: %s\n", error->message);
    g_error_free(error);
    g_option_context_free(ctx);
    return 2;
  }
  g_option_context_free(ctx);
  bool json = format && strcmp(format, "json") == 0;
  if (format && !json && strcmp(format, "text") != 0) {
    fprintf(stderr, "rsp-summary: unknown format '%s' (text or json)\n", format);
    g_free(format);
    return 2;
  }
  g_free(format);
  if (argc != 2) {
    fprintf(stderr, "rsp-summary: expected one FILE (see --help)\n");
    return 2;
  }
  (void)tasks; /* the only summary so far */
  bool tolerance_set = tolerance_us != INT64_MIN, poll_gap_set = poll_gap_us != INT64_MIN;
  if (window_ns < 0 || (tolerance_set && tolerance_us < 0) || (poll_gap_set && poll_gap_us < 0)) {
    fprintf(stderr, "rsp-summary: --sample-window-ns, --tolerance-us and --poll-gap-us must be >= 0\n");
    return 2;
  }
  if (window_ns < 0) {
    fprintf(stderr, "rsp-summary: --sample-window-ns must be >= 0\n");
    return 2;
  }

  uint64_t range_t0 = 0, range_t1 = 0;
  bool has_range = range != NULL;
  if (has_range) {
#ifdef RSP_HAVE_RENDER
    bool range_ok = rsp_parse_range(range, &range_t0, &range_t1);
#else
    bool range_ok = false;
#endif
    if (!range_ok) {
      fprintf(stderr, "rsp-summary: --range must be T0:T1 with T0 < T1 (e.g. 1.5ms:300ms), not '%s'\n", range);
      g_free(range);
      return 2;
    }
    g_free(range);
  }
  rsp_model_options opts = { .no_switch_records = no_switch, .sample_window_ns = (uint64_t)window_ns,
                             .window = has_range && !load_all, .window_t0 = range_t0, .window_t1 = range_t1,
                             .window_no_index = no_index };
  progress_state progress = { .path = argv[1] };
  if (isatty(STDERR_FILENO)) {
    opts.progress = show_progress;
    opts.progress_data = &progress;
  }
  bool timings = g_getenv("RSP_TIMINGS") != NULL;
  int64_t load_start = g_get_monotonic_time();
  rsp_model *model = rsp_model_load(argv[1], &opts, &error);
  if (progress.shown)
    fprintf(stderr, "\r\033[K");
  if (timings)
    fprintf(stderr, "rsp-summary: timings: model %.3f s\n", (double)(g_get_monotonic_time() - load_start) / 1e6);
  if (!model) {
    fprintf(stderr, "rsp-summary: %s\n", error->message);
    g_error_free(error);
    return 1;
  }
  const rsp_model_loss *loss = rsp_model_loss_get(model);
  if (loss->sampled_tracepoints) {
    char **warnings = rsp_model_loss_warnings(model); /* the first is this one */
    fprintf(stderr, "rsp-summary: WARNING: %s: %s\n", argv[1], warnings[0]);
    g_strfreev(warnings);
  }
  if (rsp_model_runs_source(model) == RSP_RUNS_FROM_NOTHING) {
    fprintf(stderr,
            "rsp-summary: %s: no scheduler events (neither PERF_RECORD_SWITCH records nor "
            "sched:sched_switch samples%s): cannot build runs; record with --switch-events and "
            "-e sched:sched_switch\n",
            argv[1], no_switch ? ", switch records ignored by --no-switch-records" : "");
    rsp_model_free(model);
    return 1;
  }

  if (categories || waits || paths || explain) {
    summary_categories_options co = { .pid = summary_profiles_pid(), .comm = comm,
                                      .tolerance_ns = tolerance_set ? (uint64_t)tolerance_us * 1000 : 0,
                                      .poll_gap_ns = poll_gap_set ? (uint64_t)poll_gap_us * 1000 : 0,
                                      .tolerance_set = tolerance_set, .poll_gap_set = poll_gap_set,
                                      .categories = categories, .waits = waits, .paths = paths,
                                      .explain = explain, .json = json, .timings = timings };
    int status = summary_categories_print(model, argv[1], &co, stdout);
    if (status == 0 && !json && categories)
      print_loss_check(argv[1], stdout); /* after the lost-event notes: what rsp-record counted */
    rsp_model_free(model);
    return status;
  }
  if (accounting) {
    print_accounting(model, json, stdout);
    rsp_model_free(model);
    return 0;
  }
  if (summary_profiles_requested()) {
    int status = summary_profiles_print(model, argv[1], json, stdout);
    rsp_model_free(model);
    return status;
  }

  uint64_t origin = rsp_model_time_first(model); /* the recording's start, with a window too */
  uint32_t n = rsp_model_n_tasks(model);
  row *rows = g_new0(row, n ? n : 1);
  uint32_t n_rows = 0;
  for (rsp_task_id i = 0; i < n; i++) {
    row *r = &rows[n_rows];
    r->id = i;
    r->task = rsp_model_task(model, i);
    rsp_model_task_totals(model, i, &r->totals);
    if (has_range)
      clip_totals(model, i, origin + range_t0, origin + range_t1, &r->totals);
    if (r->totals.runs || r->totals.samples)
      n_rows++;
  }
  qsort(rows, n_rows, sizeof *rows, by_runtime);
  rsp_kernel_work *kw = rsp_kernel_work_compute(model);

  if (json) {
    rsp_json_writer jw = rsp_json_writer_file(stdout, RSP_JSON_SHORT_ESCAPES | RSP_JSON_SPACED);
    printf("[");
    for (uint32_t i = 0; i < n_rows; i++) {
      const row *r = &rows[i];
      const rsp_task_totals *t = &r->totals;
      printf("%s\n  {\"pid\": %" PRId32 ", \"tid\": %" PRId32 ", \"comm\": ", i ? "," : "", r->task->pid,
             r->task->tid);
      rsp_json_string(&jw, r->task->comm);
      printf(", \"comms\": ");
      rsp_json_begin_array(&jw);
      for (uint32_t c = 0; c < r->task->n_comms; c++)
        rsp_json_string(&jw, rsp_model_task_comm(model, r->id, c)->comm);
      rsp_json_end_array(&jw);
      const rsp_task *parent = r->task->parent != RSP_NO_ID ? rsp_model_task(model, r->task->parent) : NULL;
      printf(", \"generation\": %" PRIu32 ", \"parent_pid\": %" PRId32 ", \"parent_tid\": %" PRId32
             ", \"runtime_ms\": %.6f, \"sleep_ms\": %.6f, \"sleep_s_ms\": %.6f, \"sleep_other_ms\": %.6f"
             ", \"sched_delay_ms\": %.6f, \"iowait_ms\": %.6f, \"preempted_ms\": %.6f"
             ", \"samples\": %" PRIu64 ", \"runs\": %" PRIu32 ", \"sleeps\": %" PRIu32
             ", \"inferred_starts\": %" PRIu32 ", \"sleeps_without_wakeup\": %" PRIu32,
             r->task->generation, parent ? parent->pid : -1, parent ? parent->tid : -1, ms(t->runtime),
             ms(t->sleep), ms(t->sleep_s), ms(t->sleep_other), ms(t->sched_delay), ms(t->sleep_d),
             ms(t->preempt_delay), t->samples, t->runs, t->sleeps, t->inferred_starts,
             t->sleeps_without_wakeup);
      /* how its sleeps ended (rsp_sleep_end), added by the model's sleep-end pass */
      printf(", \"sleep_ends\": {");
      for (unsigned c = 0; c < RSP_N_SLEEP_ENDS; c++)
        printf("%s\"%s\": %" PRIu32, c ? ", " : "", rsp_sleep_end_key(c), t->sleep_ends[c]);
      printf("}, \"sleeps_end_inferred\": %" PRIu32 ", \"kernel_work_ms\": %.6f}", t->sleeps_end_inferred,
             ms(rsp_kernel_work_task_ns(kw, r->id)));
    }
    printf("%s]\n", n_rows ? "\n" : "");
    print_loss(model, stderr);
    print_loss_check(argv[1], stderr);
  } else {
    printf("%8s %8s %-16s %11s %11s %11s %11s %11s %11s %11s %8s %6s %11s\n", "PID", "TID", "COMM", "RUN ms",
           "SLEEP ms", "S ms", "D(IO) ms", "OTHER ms", "SCHED ms", "PREEMPT ms", "SAMPLES", "RUNS", "KWORK ms");
    for (uint32_t i = 0; i < n_rows; i++) {
      const row *r = &rows[i];
      const rsp_task_totals *t = &r->totals;
      printf("%8" PRId32 " %8" PRId32 " %-16s %11.3f %11.3f %11.3f %11.3f %11.3f %11.3f %11.3f %8" PRIu64
             " %6" PRIu32 " %11.3f\n",
             r->task->pid, r->task->tid, *r->task->comm ? r->task->comm : "?", ms(t->runtime),
             ms(t->sleep), ms(t->sleep_s), ms(t->sleep_d), ms(t->sleep_other), ms(t->sched_delay),
             ms(t->preempt_delay), t->samples, t->runs, ms(rsp_kernel_work_task_ns(kw, r->id)));
    }
    printf("\nKWORK: kernel work done for the task by interrupts and kernel threads (rsp-summary --accounting "
           "says by whom)\n");
    print_loss(model, stdout);
    print_loss_check(argv[1], stdout);
  }
  rsp_kernel_work_free(kw);
  g_free(rows);
  rsp_model_free(model);
  return 0;
}
