/* The report as one HTML document: the page, its style and its small script, the explanation, the
 * categories table and the loss notes; the views' SVG come from the other files of src/report/. The
 * page asks for nothing from anywhere (its Content-Security-Policy forbids it): the style and the
 * script are inline, the drawings inline SVG, the fonts the reader's own. */
#include "report/report-private.h"

#include "render/render.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

static double ms(uint64_t ns)
{
  return (double)ns / 1e6;
}

static const char style_css[] =
  "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;color:#1a1a1a;"
  "margin:0;background:#fafafa}\n"
  "header{background:#263238;color:#eceff1;padding:14px 24px;position:sticky;top:0;z-index:2}\n"
  "header h1{font-size:20px;margin:0 0 2px}header p{margin:2px 0}header .file{font-family:monospace;color:#b0bec5}\n"
  "header input{font:inherit;padding:3px 8px;width:22em;border-radius:4px;border:1px solid #90a4ae}\n"
  "header nav a{color:#80cbc4;margin-right:12px;text-decoration:none}\n"
  "main{padding:8px 24px 40px;max-width:1300px}\n"
  "details{background:#fff;border:1px solid #dde;border-radius:6px;margin:14px 0;padding:6px 14px}\n"
  "summary{cursor:pointer}summary h2{display:inline;font-size:17px;margin:0}\n"
  "p.help{color:#555;font-size:13px;margin:4px 0 8px}\n"
  "#explanation{font-size:15px;max-width:75em}\n"
  "table{border-collapse:collapse;font-variant-numeric:tabular-nums}\n"
  "td,th{padding:2px 10px;text-align:left;border-bottom:1px solid #eee}td.num{text-align:right}\n"
  "tr.sum td{font-weight:600}tr.cat td:first-child{padding-left:26px}\n"
  "td .bar{display:inline-block;height:10px;background:#5c6bc0;vertical-align:middle}\n"
  ".scroll{overflow:auto;max-height:720px;border:1px solid #e0e0e0}\n"
  "svg.view text{font:11px sans-serif;fill:#1a1a1a}svg.view text.light{fill:#fff}\n"
  "svg.view .ruler line{stroke:#777}svg.view .ruler text{font-size:10px;fill:#333}\n"
  "svg.view .labels{fill:#eee}svg.view .alt{fill:#f4f4f8}svg.view text.rowlabel{font-size:11px}\n"
  "svg.view text.poi{font-weight:bold}svg.view text.note{fill:#a33}\n"
  "svg.view .axis{stroke:#555}svg.view text.htitle{font-size:12px;font-weight:600}svg.view text.hsub{fill:#555}\n"
  "svg.view text.count,svg.view text.tick{font-size:10px;fill:#333}\n"
  ".f:hover rect{stroke:#000;stroke-width:1}\n"
  ".f.match rect{stroke:#f9a825;stroke-width:3}.row.match text{fill:#e65100;font-weight:bold}\n"
  ".hists{display:flex;flex-wrap:wrap;gap:10px}figure.histogram{margin:0;border:1px solid #eee;padding:4px}\n"
  "figcaption{font-size:12px;max-width:590px}figcaption .peak{display:block}\n"
  ".legend{white-space:nowrap;margin-right:8px}.legend i{display:inline-block;width:10px;height:10px;margin-right:3px}\n"
  "#loss-notes li{margin:3px 0}.mono{font-family:monospace;font-size:12px}\n";

/* The search: frames (and rows) whose text contains what is typed are outlined; nothing else. */
static const char script_js[] =
  "(function(){var q=document.getElementById('search'),n=document.getElementById('search-count');\n"
  "q.addEventListener('input',function(){var t=q.value.toLowerCase(),c=0;\n"
  "document.querySelectorAll('.f').forEach(function(g){var m=!!t&&g.textContent.toLowerCase().indexOf(t)>=0;\n"
  "g.classList.toggle('match',m);if(m)c++;});n.textContent=t?c+' match'+(c==1?'':'es'):'';});\n"
  /* flame graphs grow upwards: show their roots first */
  "document.querySelectorAll('.scroll.bottom').forEach(function(e){e.scrollTop=e.scrollHeight;});})();\n";

static void cat_row(FILE *out, const char *cls, const char *key, const char *label, uint64_t ns, uint64_t total)
{
  double pct = total ? 100.0 * (double)ns / (double)total : 0;
  fprintf(out, "<tr class=\"%s\" data-key=\"%s\" data-ms=\"%.6f\"><td>", cls, key, ms(ns));
  rsp_html_escape(out, label);
  fprintf(out, "</td><td class=\"num\">%.3f ms</td><td class=\"num\">%.1f%%</td><td><span class=\"bar\" "
               "style=\"width:%.1fpx\"></span></td></tr>\n",
          ms(ns), pct, 3.0 * pct);
}

static void categories_table(FILE *out, const rsp_model *m, const rsp_categories *c)
{
  double pct = c->total_ns ? 100.0 * (double)c->accounted_ns / (double)c->total_ns : 0.0;
  fprintf(out, "<table id=\"categories\">\n<tr><th>Category</th><th>Time</th><th>Of the total</th><th></th></tr>\n");
  fprintf(out, "<tr class=\"sum\" data-key=\"n_processes\" data-value=\"%u\"><td>Processes</td><td class=\"num\">%u"
               "</td><td></td><td></td></tr>\n", c->n_processes, c->n_processes);
  fprintf(out, "<tr class=\"sum\" data-key=\"paths\" data-value=\"%u\"><td>Control paths</td><td class=\"num\">%u"
               "</td><td></td><td></td></tr>\n", c->n_paths, c->n_paths);
  fprintf(out, "<tr class=\"sum\" data-key=\"wall\" data-ms=\"%.6f\"><td>Wall time</td><td class=\"num\">%.3f ms"
               "</td><td></td><td></td></tr>\n", ms(c->wall_ns), ms(c->wall_ns));
  cat_row(out, "sum", "total", "Total time", c->total_ns, c->total_ns);
  uint32_t n_order;
  const rsp_category *order = rsp_category_table_order(&n_order);
  for (uint32_t k = 0; k < n_order; k++)
    if (order[k] != RSP_CAT_UNACCOUNTED)
      cat_row(out, "cat", rsp_category_key(order[k]), rsp_category_label(order[k]), c->ns[order[k]], c->total_ns);
  cat_row(out, "sum", "guessed", "Guessed (in the rows above)", c->guessed_total_ns, c->total_ns);
  cat_row(out, "sum", "accounted", "Total accounted", c->accounted_ns, c->total_ns);
  cat_row(out, "sum", "unaccounted", "Unaccounted", c->ns[RSP_CAT_UNACCOUNTED], c->total_ns);
  fprintf(out, "<tr class=\"sum\" data-key=\"percent_accounted\" data-value=\"%.3f\"><td>Percent accounted</td>"
               "<td class=\"num\">%.1f %%</td><td></td><td></td></tr>\n", pct, pct);
  fprintf(out, "<tr data-key=\"sample_event\"><td>Run samples from</td><td colspan=\"3\">");
  rsp_html_escape(out, rsp_model_sample_event(m) ? rsp_model_sample_event(m) : "(no sampling event)");
  fprintf(out, "</td></tr>\n</table>\n");
  if (c->n_preemptors) {
    fprintf(out, "<p>Top preemptors (ms of the paths' preempted time; * on the paths):</p>\n<table id=\"preemptors\">\n");
    for (uint32_t i = 0; i < c->n_preemptors && i < RSP_TOP_PREEMPTORS; i++) {
      const rsp_preemptor *pr = &c->top_preemptors[i];
      const rsp_task *t = rsp_model_task(m, pr->task);
      if (t->pid > 0 && t->tid != t->pid)
        fprintf(out, "<tr><td>%s</td><td class=\"num\">%" PRId32 "/%" PRId32 "</td><td>", pr->on_path ? "*" : "",
                t->pid, t->tid);
      else
        fprintf(out, "<tr><td>%s</td><td class=\"num\">%" PRId32 "</td><td>", pr->on_path ? "*" : "", t->pid);
      rsp_html_escape(out, *t->comm ? t->comm : "?");
      fprintf(out, "</td><td class=\"num\">%.3f ms</td></tr>\n", ms(pr->ns));
    }
    fprintf(out, "</table>\n");
    if (c->n_preemptors > RSP_TOP_PREEMPTORS)
      fprintf(out, "<p>(%u more)</p>\n", c->n_preemptors - RSP_TOP_PREEMPTORS);
  }
  for (int r = 1; r < RSP_N_UNKNOWN_STACK_REASONS; r++)
    if (c->unknown_stack_ns[r])
      fprintf(out, "<p class=\"unknown-stack\">Unknown stacks, %s: %.3f ms</p>\n",
              rsp_unknown_stack_reason_label((rsp_unknown_stack_reason)r), ms(c->unknown_stack_ns[r]));
}

static void loss_notes(FILE *out, const rsp_model *m)
{
  const rsp_model_loss *l = rsp_model_loss_get(m);
  const char *src = rsp_model_runs_source(m) == RSP_RUNS_FROM_SWITCH_RECORDS
                        ? "PERF_RECORD_SWITCH records"
                        : "sched:sched_switch (switch-ins from idle inferred)";
  fprintf(out, "<p id=\"loss-counts\">Runs from %s: %u runs, %u sleeps, %" PRIu64 " switch events, %" PRIu64
               " events. Lost or inferred: %" PRIu64 " inferred switch-ins, %" PRIu64 " orphan samples, %" PRIu64
               " switch-outs without a switch-in, %" PRIu64 " implicit switch-outs, %" PRIu64
               " runs open at the start, %" PRIu64 " at the end, %" PRIu64 " sleeps without a wakeup, %" PRIu64
               " LOST records (%" PRIu64 " events), %" PRIu64 " LOST_SAMPLES (%" PRIu64 " samples).</p>\n",
          src, rsp_model_n_runs(m), rsp_model_n_sleeps(m), rsp_model_n_switch_events(m), rsp_model_n_events(m),
          l->inferred_switch_ins, l->orphan_samples, l->unmatched_switch_outs, l->implicit_switch_outs,
          l->runs_open_at_start, l->runs_open_at_end, l->sleeps_without_wakeup, l->lost_records, l->lost_events,
          l->lost_samples_records, l->lost_samples);
  char **warnings = rsp_model_loss_warnings(m);
  fprintf(out, "<ul id=\"loss-notes\">\n");
  for (char **w = warnings; *w; w++) {
    fprintf(out, "<li class=\"note%s\">", l->sampled_tracepoints && w == warnings ? " warning" : "");
    rsp_html_escape(out, *w);
    fprintf(out, "</li>\n");
  }
  if (!warnings[0])
    fprintf(out, "<li class=\"none\">Nothing lost that changes the analysis.</li>\n");
  fprintf(out, "</ul>\n");
  g_strfreev(warnings);
}

/* The loss check rsp-record wrote beside the recording (FILE.meta [loss]: recorded;occurred, with what
 * its ftrace capture [ftrace] holds, which the reader merges), said as rsp-summary --categories says it:
 * the events perf record dropped, per tracepoint and in all. */
static void loss_check(FILE *out, const char *path)
{
  rsp_loss_check c;
  if (!rsp_loss_check_load(path, &c))
    return;
  fprintf(out, "<ul id=\"loss-check\">\n");
  for (unsigned i = 0; i < c.n_rows; i++) {
    const rsp_loss_check_row *r = &c.rows[i];
    if (r->recorded >= r->occurred)
      continue;
    fprintf(out, "<li class=\"loss-check\">");
    rsp_html_escape(out, r->event);
    fprintf(out, ": perf record kept %" PRIu64 " of %" PRIu64 " (%.1f%%)", r->recorded, r->occurred,
            100.0 * (double)r->recorded / (double)r->occurred);
    if (r->ftrace >= 0)
      fprintf(out, "; with the ftrace capture (%" PRId64 " there) %.1f%%", r->ftrace,
              100.0 * (double)r->best / (double)r->occurred);
    fprintf(out, "</li>\n");
  }
  if (c.occurred) {
    fprintf(out, "<li class=\"loss-check\">perf record kept %" PRIu64 " of %" PRIu64 " tracepoint events that "
                 "occurred (%.1f%%)", c.recorded, c.occurred, 100.0 * (double)c.recorded / (double)c.occurred);
    if (c.any_ftrace)
      fprintf(out, "; with the events only the ftrace capture holds (the reader merges them) %.1f%%",
              100.0 * (double)c.best / (double)c.occurred);
    fprintf(out, " (rsp-record's count, in the recording's .meta file)</li>\n");
  }
  fprintf(out, "</ul>\n");
  rsp_loss_check_clear(&c);
}

static void section_open(FILE *out, const char *id, const char *title, const char *help)
{
  fprintf(out, "<details open id=\"%s\"><summary><h2>%s</h2></summary>\n", id, title);
  if (help)
    fprintf(out, "<p class=\"help\">%s</p>\n", help);
}

bool rsp_report_write_html(const rsp_paths *paths, const rsp_report_options *o, FILE *out, GError **error)
{
  const rsp_model *m = rsp_paths_model(paths);
  int width = o && o->width > 0 ? o->width : 1200;
  uint32_t max_hist = o && o->max_histograms ? o->max_histograms : 6;
  const char *file = o && o->file ? o->file : "";
  int32_t pid = rsp_paths_pid(paths);
  const rsp_task *poi = NULL;
  for (uint32_t i = 0; i < rsp_paths_n_tasks(paths); i++) {
    const rsp_task *t = rsp_model_task(m, rsp_paths_task(paths, i));
    if (t->pid == pid && (!poi || t->start > poi->start))
      poi = t;
  }
  const char *comm = poi && *poi->comm ? poi->comm : "?";
  rsp_categories c;
  rsp_categories_compute(paths, &c);
  /* the kernel work done for the processes, once for the story, the consolidated view and the flame view */
  rsp_kernel_work *kw = rsp_kernel_work_compute(m);
  rsp_explanation *story = rsp_explain_kwork(paths, &c, kw);

  fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
               "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>rsp report: ");
  rsp_html_escape(out, comm);
  fprintf(out, " %" PRId32 " in ", pid);
  rsp_html_escape(out, file);
  fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>rsp report: ", style_css);
  rsp_html_escape(out, comm);
  fprintf(out, " (pid %" PRId32 ")</h1>\n<p class=\"file\">", pid);
  rsp_html_escape(out, file);
  char dur[48];
  fprintf(out, ", %s recorded", rsp_format_duration(rsp_model_time_last(m) - rsp_model_time_first(m), dur, sizeof dur));
  if (rsp_model_workload_command(m)) {
    fprintf(out, ", command: ");
    rsp_html_escape(out, rsp_model_workload_command(m));
  }
  fprintf(out, "</p>\n<p id=\"poi\">Process of interest: pid %" PRId32 " (", pid);
  rsp_html_escape(out, comm);
  fprintf(out, ")");
  if (o && o->poi_reason) {
    fprintf(out, ": ");
    rsp_html_escape(out, o->poi_reason);
  }
  fprintf(out, "</p>\n<p><input id=\"search\" type=\"search\" placeholder=\"Search functions and processes\" "
               "aria-label=\"Search\"> <span id=\"search-count\"></span></p>\n<nav><a href=\"#answer\">Answer</a>"
               "<a href=\"#where\">Categories</a><a href=\"#consolidated\">Consolidated</a><a href=\"#flame\">Flame</a>"
               "<a href=\"#running\">Running</a><a href=\"#histograms\">Latencies</a><a href=\"#loss\">Loss</a></nav>\n"
               "</header>\n<main>\n");

  section_open(out, "answer", "The answer", NULL);
  fprintf(out, "<p id=\"explanation\">");
  for (char **line = story->sentences; *line; line++) {
    fprintf(out, "%s<span class=\"sentence\">", line == story->sentences ? "" : " ");
    rsp_html_escape(out, *line);
    fprintf(out, "</span>");
  }
  fprintf(out, "</p>\n</details>\n");

  section_open(out, "where", "Where the time went",
               "The control paths' time by category (paper, &ldquo;Categories&rdquo;), best understood first; "
               "the total counts parallel paths each.");
  categories_table(out, m, &c);
  fprintf(out, "</details>\n");

  section_open(out, "consolidated", "Consolidated flame view",
               "The control paths' pseudo-stacks merged and sorted longest first: each layer is a process (grey) "
               "with the functions it ran in (red) or waited in (blue; green: blocking I/O; purple: both), and "
               "what it waited on stands on top; beside them, in amber, the kernel work interrupts and kernel threads "
               "did for those processes that the paths do not already show. Width is duration. Hover a frame for its "
               "time.");
  fprintf(out, "<div class=\"scroll bottom\">\n");
  uint32_t deep = rsp_report_consolidated_svg(out, paths, kw, width);
  fprintf(out, "</div>\n");
  if (deep)
    fprintf(out, "<p class=\"help\">%u frames deeper than the rows drawn are left out.</p>\n", deep);
  fprintf(out, "</details>\n");

  section_open(out, "flame", "Flame view",
               "The same pseudo-stacks in time: each control path a band, x is time; under them, in amber, the kernel "
               "work done for their processes where it ran.");
  fprintf(out, "<div class=\"scroll bottom\">\n");
  rsp_report_flame_svg(out, paths, kw, width);
  fprintf(out, "</div>\n</details>\n");

  section_open(out, "running", "Process running view",
               "The threads of the processes on the control paths over the paths' span: runs red, sleeps blue, "
               "I/O sleeps green; the strip along a row's top marks what is on the control paths.");
  fprintf(out, "<div class=\"scroll\">\n");
  rsp_report_running_svg(out, paths, width);
  fprintf(out, "</div>\n</details>\n");

  section_open(out, "histograms", "Latency histograms",
               "The process's largest latency profiles by total latency (OSprof): log2 buckets, each bar split "
               "by what its instances waited for.");
  fprintf(out, "<div class=\"hists\">\n");
  if (!rsp_report_histograms(out, m, pid, max_hist, (width - 20) / 2))
    fprintf(out, "<p>No latency profile for this process.</p>\n");
  fprintf(out, "</div>\n</details>\n");

  section_open(out, "loss", "What was lost or guessed", NULL);
  loss_notes(out, m);
  loss_check(out, file);
  fprintf(out, "</details>\n");

  fprintf(out, "</main>\n<script>\n%s</script>\n</body>\n</html>\n", script_js);
  rsp_explanation_free(story);
  rsp_kernel_work_free(kw);
  if (ferror(out)) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_IO, "write error");
    return false;
  }
  return true;
}
