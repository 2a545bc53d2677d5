/* rsp-report: the analysis of a recording's process of interest as one self-contained HTML file to
 * share (src/report/): the explanation, the categories, the three views and the top latency
 * histograms as inline SVG with text labels, and the loss notes. */
#include "report/report.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
  setlocale(LC_ALL, "");
  gint pid = -1, width = 0;
  char *comm = NULL, *output = NULL;
  GOptionEntry entries[] = {
    { "pid", 0, 0, G_OPTION_ARG_INT, &pid, "The process of interest (a thread id: its process); default: the recorded workload", "PID" },
    { "comm", 0, 0, G_OPTION_ARG_STRING, &comm, "The process of interest: the longest-running process named NAME", "NAME" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the report to FILE (required; '-': standard output)", "FILE" },
    { "width", 0, 0, G_OPTION_ARG_INT, &width, "Pixels of the views' drawings (default 1200)", "PX" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  GError *error = NULL;
  GOptionContext *ctx = g_option_context_new("FILE - write a recording's analysis as one self-contained HTML file");
  g_option_context_set_summary(ctx,
      "The report of one process (--pid, --comm, else the recorded workload): the answer in words\n"
      "(rsp-summary --explain), where its control paths' time went (--categories), the consolidated\n"
      "flame view, the flame view and the running view as SVG with text labels, its largest latency\n"
      "histograms and what the recording lost. Nothing in it is fetched from anywhere: open it in any\n"
      "browser, mail it, attach it to a bug.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  int status = 2;
  rsp_model *m = NULL;
  rsp_paths *p = NULL;
  rsp_process_choice choice = { .pid = -1 };
  FILE *out = NULL;
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    fprintf(stderr, "rsp-report: %s\n", error->message);
    g_clear_error(&error);
    goto done;
  }
  if (argc != 2) {
    fprintf(stderr, "rsp-report: expected one FILE (see --help)\n");
    goto done;
  }
  if (!output) {
    fprintf(stderr, "rsp-report: give -o FILE (the report to write)\n");
    goto done;
  }
  if (width < 0 || (width && width < 400)) {
    fprintf(stderr, "rsp-report: --width must be at least 400\n");
    goto done;
  }
  status = 1;
  m = rsp_model_load(argv[1], NULL, &error);
  if (!m) {
    fprintf(stderr, "rsp-report: %s\n", error->message);
    g_clear_error(&error);
    goto done;
  }
  if (rsp_model_runs_source(m) == RSP_RUNS_FROM_NOTHING) {
    fprintf(stderr, "rsp-report: %s: no scheduler events (neither PERF_RECORD_SWITCH records nor sched:sched_switch "
                    "samples): cannot build runs; record with --switch-events and -e sched:sched_switch\n", argv[1]);
    goto done;
  }
  if (!rsp_process_choose(m, argv[1], pid, comm, &choice, &error)) {
    fprintf(stderr, "rsp-report: %s\n", error->message);
    g_clear_error(&error);
    goto done;
  }
  p = rsp_paths_build(m, choice.pid, NULL, &error);
  if (!p) {
    fprintf(stderr, "rsp-report: %s: %s\n", argv[1], error ? error->message : "no control paths");
    g_clear_error(&error);
    goto done;
  }
  bool to_stdout = strcmp(output, "-") == 0;
  out = to_stdout ? stdout : fopen(output, "w");
  if (!out) {
    fprintf(stderr, "rsp-report: %s: %s\n", output, g_strerror(errno));
    goto done;
  }
  rsp_report_options ro = { .file = argv[1], .poi_reason = choice.reason, .width = width };
  bool ok = rsp_report_write_html(p, &ro, out, &error);
  if (!to_stdout && fclose(out) != 0)
    ok = false;
  else if (to_stdout && fflush(out) != 0)
    ok = false;
  out = NULL;
  if (!ok) {
    fprintf(stderr, "rsp-report: %s: %s\n", output, error ? error->message : "write error");
    g_clear_error(&error);
    goto done;
  }
  status = 0;
done:
  if (out && out != stdout)
    fclose(out);
  rsp_process_choice_clear(&choice);
  if (p)
    rsp_paths_free(p);
  if (m)
    rsp_model_free(m);
  g_option_context_free(ctx);
  g_free(comm);
  g_free(output);
  return status;
}
