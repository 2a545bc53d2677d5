/* The explanation pane, beside the consolidated flame view: what the window opened on and why (the
 * process of interest, the command), the answer in words (rsp_explain, as rsp-summary --explain prints
 * it), then where its time went, its longest waits and running time in code without symbols. */
#include "app/app-private.h"

#include <glib/gi18n.h>
#include <string.h>

/* Why the window opened on the workload; a new string or NULL. PATH: the recording's. */
static char *why_chosen(const rsp_model *m, const char *path)
{
  switch (rsp_model_workload_source(m)) {
  case RSP_WORKLOAD_METADATA: {
    char *base = path ? g_path_get_basename(path) : g_strdup("FILE");
    char *why = g_strdup_printf(_("the workload rsp-record ran (%s.meta)"), base);
    g_free(base);
    return why;
  }
  case RSP_WORKLOAD_PERF_EXEC:
    return g_strdup(_("the command perf record ran (its header's cmdline)"));
  case RSP_WORKLOAD_RECORD_PID:
    return g_strdup(_("the process perf record followed (-p)"));
  case RSP_WORKLOAD_COMMAND_EXEC:
    return g_strdup(_("the first exec of perf record's command"));
  case RSP_WORKLOAD_FIRST_EXEC:
    return g_strdup(_("a guess: the first exec of the recording"));
  case RSP_WORKLOAD_BUSIEST:
    return g_strdup(_("a guess: the process that ran the most in a system-wide recording"));
  default:
    return NULL;
  }
}

static void append_share(GString *s, const char *what, uint64_t ns, uint64_t total)
{
  char d[48];
  g_string_append_printf(s, "  %3.0f%%  %s (%s)\n", total ? 100.0 * (double)ns / (double)total : 0.0, what,
                         rsp_format_duration(ns, d, sizeof d));
}

/* "function (dso)" with the dso's directory left out. */
static char *short_site(const char *label)
{
  const char *open = strrchr(label, '(');
  const char *slash = open ? strrchr(open, '/') : NULL;
  if (!slash)
    return g_strdup(label);
  return g_strdup_printf("%.*s(%s", (int)(open - label), label, slash + 1);
}

char *explanation_pane_summary(win *w)
{
  if (!w->paths)
    return g_strdup(_("Choose a process (Process… in the toolbar, or click a name in the Running view) to see "
                      "what it waited for."));
  const rsp_model *m = w->model;
  int32_t pid = rsp_paths_pid(w->paths);
  const char *comm = app_process_name(m, pid);
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, _("%s [%d]"), comm && *comm ? comm : "?", pid);
  if (pid == rsp_model_workload_pid(m) && rsp_model_workload_source(m) == RSP_WORKLOAD_BUSIEST) {
    /* no command was recorded: the guess alone */
    char *why = why_chosen(m, w->path);
    g_string_append_printf(s, _(", the process of interest (%s)."), why);
    g_free(why);
  } else if (pid == rsp_model_workload_pid(m)) {
    char *why = why_chosen(m, w->path);
    const char *cmd = rsp_model_workload_command(m);
    g_string_append_printf(s, _(", the recorded command%s%s%s"), cmd ? ": " : "", cmd ? cmd : "",
                           why ? "" : ".");
    if (why)
      g_string_append_printf(s, _(" (%s)."), why);
    g_free(why);
  } else {
    g_string_append(s, ".");
  }
  uint64_t wlo, whi;
  if (rsp_model_window(m, &wlo, &whi))
    /* a big recording's first seconds, drawn while the whole loads: the story is of them only */
    g_string_append_printf(s, _("\n\nOnly the recording's first %.1f s are loaded yet: what follows tells them, "
                                "not the whole, and changes when the rest has loaded."),
                           (double)(whi - rsp_model_time_first(m)) / 1e9);
  rsp_categories c;
  rsp_categories_compute(w->paths, &c);
  rsp_wait_sites *sites = rsp_wait_sites_compute(w->paths); /* (the story's and the longest waits below) */
  /* the answer in words (the analysis layer's, as rsp-summary --explain prints it) */
  rsp_explanation *story = rsp_explain_sites(w->paths, &c, app_kernel_work(w), sites);
  g_string_append(s, "\n\n");
  for (char **line = story->sentences; *line; line++)
    g_string_append_printf(s, "%s%s", line == story->sentences ? "" : " ", *line);
  g_string_append(s, "\n");
  rsp_explanation_free(story);
  /* the largest categories, largest first */
  uint32_t n;
  const rsp_category *order = rsp_category_table_order(&n);
  rsp_category top[RSP_N_CATEGORIES];
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++)
    if (c.ns[order[i]] * 50 >= c.total_ns && c.ns[order[i]] > 0)
      top[k++] = order[i];
  for (uint32_t i = 1; i < k; i++)
    for (uint32_t j = i; j > 0 && c.ns[top[j]] > c.ns[top[j - 1]]; j--) {
      rsp_category x = top[j];
      top[j] = top[j - 1];
      top[j - 1] = x;
    }
  if (k) {
    g_string_append(s, _("\nWhere the time went:\n"));
    for (uint32_t i = 0; i < k && i < 6; i++)
      append_share(s, rsp_category_label(top[i]), c.ns[top[i]], c.total_ns);
  }
  if (c.guessed_total_ns * 20 >= c.total_ns && c.guessed_total_ns) {
    char g[48];
    g_string_append_printf(s, _("  (of which %s on a guess: events lost or inferred)\n"),
                           rsp_format_duration(c.guessed_total_ns, g, sizeof g));
  }
  /* the longest waits by wait site */
  if (sites && rsp_wait_sites_n(sites)) {
    g_string_append(s, _("\nLongest waits:\n"));
    for (uint32_t i = 0; i < 4 && i < rsp_wait_sites_n(sites); i++) {
      const rsp_wait_site *ws = rsp_wait_sites_get(sites, i);
      char d[48];
      g_autofree char *site = short_site(ws->label);
      g_string_append_printf(s, "  %s: %s in %" G_GUINT64_FORMAT "\n", site,
                             rsp_format_duration(ws->total_ns, d, sizeof d), ws->count);
    }
  }
  rsp_wait_sites_free(sites);
  /* symbols: say so when running time falls in code without them (hex frames in the views) */
  if (c.ns[RSP_CAT_UNKNOWN_STACK]) {
    char d[48];
    g_string_append_printf(s, _("\nSymbols missing: %s of running time is in code without symbols:\n"),
                           rsp_format_duration(c.ns[RSP_CAT_UNKNOWN_STACK], d, sizeof d));
    for (int r = 1; r < RSP_N_UNKNOWN_STACK_REASONS; r++)
      if (c.unknown_stack_ns[r])
        g_string_append_printf(s, "  %s: %s\n", rsp_unknown_stack_reason_label(r),
                               rsp_format_duration(c.unknown_stack_ns[r], d, sizeof d));
  }
  g_string_append(s, _("\nThe flame view beside shows where the time went, gathered by stack: the process at the "
                       "bottom, what it waited for above it. Hover a frame for its time; the Flame tab shows it "
                       "along time."));
  return g_string_free(s, FALSE);
}

void explanation_pane_update(win *w)
{
  if (!w->explanation_view)
    return;
  g_autofree char *text = explanation_pane_summary(w);
  gtk_text_buffer_set_text(gtk_text_view_get_buffer(GTK_TEXT_VIEW(w->explanation_view)), text, -1);
}

void explanation_pane_attach(win *w)
{
  w->explanation_view = obj(w, "explanation_view");
  explanation_pane_update(w);
}
