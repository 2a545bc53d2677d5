/* rsp-view --self-test FILE (run by tests/gui under Xvfb): drives the window's panes in-process and
 * prints one line per check; the exit status is 1 when one failed. */
#include "app/app-private.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>

/* ---- Self-test (rsp-view --self-test FILE, run by tests/gui under Xvfb) ---------------------- */
bool app_check(win *w, bool ok, const char *what)
{
  printf("self-test: %s: %s\n", ok ? "ok" : "FAILED", what);
  fflush(stdout);
  if (!ok)
    w->exit_status = 1;
  return ok;
}

static void pump(void)
{
  while (gtk_events_pending())
    gtk_main_iteration();
}

static bool self_check(bool ok, const char *what, void *data)
{
  return app_check(data, ok, what);
}

/* The histograms pane's own checks, then the bucket's instances seen highlighted in the running view. */
static void histograms_self_test(win *w)
{
  app_check(w, gtk_widget_get_mapped(rsp_histogram_pane_widget(w->histograms)), "the histograms pane is on screen");
  /* the task name clicked above selected its process: the histograms followed */
  rsp_hit hit;
  rsp_running_view_hit(w->view, &w->vp, style(), 20, style()->ruler_height + style()->row_height * 1.5, &hit);
  g_autofree char *what = g_strdup_printf("selecting process %d in the running view filters the histograms (%d)",
                                          hit.pid, rsp_histogram_pane_pid(w->histograms));
  app_check(w, hit.pid >= 0 && rsp_histogram_pane_pid(w->histograms) == hit.pid, what);
  rsp_histogram_pane_self_test(w->histograms, self_check, w);
  uint32_t n = rsp_histogram_pane_n_highlighted(w->histograms);
  g_autofree char *hl = g_strdup_printf("the clicked bucket's %u instances are highlighted in the running view (%u)", n,
                                        rsp_running_view_n_highlights(w->view));
  app_check(w, n > 0 && rsp_running_view_n_highlights(w->view) == n, hl);
  g_autofree char *shown = g_strdup_printf("double-clicking an instance shows it in the running view (%" G_GUINT64_FORMAT
                                           "..%" G_GUINT64_FORMAT " in %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ")",
                                           w->shown_t0, w->shown_t1, w->vp.t0, w->vp.t1);
  app_check(w, w->shown_t1 > w->shown_t0 && w->vp.t0 <= w->shown_t0 && w->shown_t1 <= w->vp.t1 &&
               w->vp.t1 - w->vp.t0 < w->hi - w->lo &&
               !strcmp(gtk_stack_get_visible_child_name(GTK_STACK(w->view_stack)), "running"),
        shown);
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "running");
  pump();
}

/* Events handled until WIDGET has its size (a stack page just shown), at most a second. */
static void settle(GtkWidget *widget)
{
  for (int i = 0; i < 100; i++) {
    pump();
    if (gtk_widget_get_mapped(widget) && gtk_widget_get_allocated_height(widget) > 50 &&
        gtk_widget_get_allocated_width(widget) > 300)
      break;
    g_usleep(10000);
  }
  pump();
}

static void send_key(win *w, GtkWidget *area, guint keyval, gboolean (*handler)(GtkWidget *, GdkEventKey *, gpointer))
{
  GdkEvent *key = gdk_event_new(GDK_KEY_PRESS);
  key->key.keyval = keyval;
  key->key.window = g_object_ref(gtk_widget_get_window(area));
  handler(area, &key->key, w);
  gdk_event_free(key);
}

/* The flame views in the app: scrolled to the process of interest, search, a frame clicked selected
 * in the running view, the consolidated view zoomed, a time range filtering the others. */
static void flame_self_test(win *w, int32_t pid)
{
  settle(w->flame_area);
  int rh = style()->row_height, h = gtk_widget_get_allocated_height(w->flame_area);
  int base_y = style()->ruler_height + rsp_flame_view_path_row(w->flame, 0) * rh - w->flame_scroll;
  g_autofree char *base = g_strdup_printf("the flame view shows the process of interest's base row (y %d of %d)", base_y, h);
  app_check(w, base_y >= style()->ruler_height && base_y + rh <= h, base);
  /* the path picker: the last control path shown, over its time, its base row on screen */
  uint32_t n_paths = rsp_paths_n_paths(w->paths);
  int scroll = w->flame_scroll;
  gtk_combo_box_set_active(GTK_COMBO_BOX(w->path_combo), (int)n_paths); /* entry 0 is "all" */
  pump();
  const rsp_path *last = rsp_paths_path(w->paths, n_paths - 1);
  int last_y = style()->ruler_height + rsp_flame_view_path_row(w->flame, n_paths - 1) * rh - w->flame_scroll;
  g_autofree char *picked = g_strdup_printf("the path picker shows path %u: its time (%" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT
                                            " in %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT "), its base row (y %d of %d)",
                                            n_paths - 1, last->start, last->end, w->vp.t0, w->vp.t1, last_y, h);
  app_check(w, w->vp.t0 <= last->start && last->end <= w->vp.t1 && last_y >= style()->ruler_height && last_y + rh <= h,
            picked);
  /* more paths than the picker lists: the process's own and the longest others, against every path's length */
  if (n_paths >= 3) {
    uint32_t cap = MAX(2, n_paths / 2), n = 0;
    g_autofree uint32_t *ids = flame_pane_listed_paths(w->paths, cap, &n);
    bool *listed = g_new0(bool, n_paths);
    bool ok = n == cap && ids[0] == 0;
    uint64_t shortest = UINT64_MAX;
    for (uint32_t k = 0; k < n && ok; k++) {
      ok = ids[k] < n_paths && !listed[ids[k]] && (k == 0 || ids[k] > ids[k - 1]);
      listed[ids[k]] = true;
      if (k > 0)
        shortest = MIN(shortest, rsp_path_length(rsp_paths_path(w->paths, ids[k])));
    }
    for (uint32_t p = 1; p < n_paths && ok; p++)
      ok = listed[p] || rsp_path_length(rsp_paths_path(w->paths, p)) <= shortest;
    g_free(listed);
    g_autofree char *capped = g_strdup_printf("with %u of %u paths listed, the picker lists path 0 and the longest others, "
                                              "in path order", cap, n_paths);
    app_check(w, ok, capped);
  }
  app_zoom_fit(w);
  w->flame_scroll = scroll; /* path 0's base again, as at first */
  gtk_widget_queue_draw(w->flame_area);
  pump();
  /* search: the process's own name is on its frames in both flame views */
  const rsp_task *t = rsp_model_task(w->model, rsp_paths_task(w->paths, 0));
  gtk_entry_set_text(GTK_ENTRY(w->search_entry), t->comm);
  app_on_search(GTK_SEARCH_ENTRY(w->search_entry), w);
  g_autofree char *found = g_strdup_printf("searching \"%s\" finds it in the flame view (%u) and the consolidated view (%u)",
                                           t->comm, w->flame_matches, w->consolidated_matches);
  app_check(w, w->flame_matches > 0 && w->consolidated_matches > 0, found);
  /* and steps through them: on the Flame page its frames (issue 17: it only counted them) */
  {
    uint64_t f0 = w->vp.t0, f1 = w->vp.t1;
    int fscroll = w->flame_scroll;
    bool fstep = app_step_match(w, 1);
    uint64_t m0s = 0, m0e = 0;
    int mrow = -1;
    rsp_flame_view_match_item(w->flame, 0, &m0s, &m0e, &mrow);
    int my = style()->ruler_height + mrow * rh - w->flame_scroll;
    g_autofree char *fwhat = g_strdup_printf("F3 on the Flame page steps to the first of %u matching frames (row y %d of %d)",
                                             rsp_flame_view_n_match_items(w->flame), my, h);
    app_check(w, fstep && w->match_index == 0 && w->vp.t0 <= m0s && m0e <= w->vp.t1 && my >= style()->ruler_height &&
                     my + rh <= h,
              fwhat);
    w->vp.t0 = f0, w->vp.t1 = f1, w->flame_scroll = fscroll, w->match_index = -1;
  }
  /* and in the running view, its tasks and sleeps */
  uint32_t items = rsp_running_view_n_match_items(w->view);
  uint64_t span = w->vp.t1 - w->vp.t0;
  bool stepped = running_pane_step_match(w, 1);
  rsp_highlight m0 = { 0 };
  rsp_running_view_match_item(w->view, 0, &m0);
  g_autofree char *step = g_strdup_printf("Enter/F3 steps to the first of %u matches, outlined and in sight", items);
  app_check(w, stepped && w->match_index == 0 && rsp_running_view_n_highlights(w->view) == 1 &&
                   w->vp.t0 <= m0.start && m0.end <= w->vp.t1 && m0.task < rsp_model_n_tasks(w->model) &&
                   rsp_running_view_task_y(w->view, &w->vp, style(), m0.task) >= 0,
            step);
  if (items > 1) {
    running_pane_step_match(w, 1);
    running_pane_step_match(w, -1);
    running_pane_step_match(w, -1);
    app_check(w, w->match_index == (int)items - 1, "Shift+F3 steps back, round to the last match");
  }
  w->vp.t0 = w->lo, w->vp.t1 = w->lo + span; /* as it was, rows scrolled back to the top */
  gtk_adjustment_set_value(w->vadj, 0);
  w->vp.scroll_y = 0;
  rsp_running_view_set_highlights(w->view, NULL, 0);
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "flame");
  settle(w->flame_area);
  gtk_entry_set_text(GTK_ENTRY(w->search_entry), "");
  app_on_search(GTK_SEARCH_ENTRY(w->search_entry), w);
  app_check(w, w->flame_matches == 0, "clearing the search clears the flame view's matches");
  /* a frame clicked: its run or sleep outlined in the running view, its process filtering the histograms
   * (cleared first: the click must set it) */
  if (w->histograms)
    rsp_histogram_pane_set_pid(w->histograms, -1);
  bool clicked = false;
  double x = style()->label_width + (gtk_widget_get_allocated_width(w->flame_area) - style()->label_width) / 2.0,
         cx = 0, cy = 0;
  for (int y = h - rh / 2; y > style()->ruler_height && !clicked; y -= rh)
    for (double dx = 0; dx < 600 && !clicked; dx += 7)
      if ((clicked = flame_pane_click(w, x + dx - 300, y)))
        cx = x + dx - 300, cy = y;
  app_check(w, clicked && rsp_running_view_n_highlights(w->view) == 1,
        "a frame clicked in the flame view is selected in the running view");
  rsp_hit under;
  if (clicked && w->histograms && flame_pane_hit(w, cx, cy, &under)) {
    const rsp_task *ct = rsp_model_task(w->model, under.task);
    int32_t cpid = ct->pid >= 0 ? ct->pid : ct->tid;
    g_autofree char *filtered = g_strdup_printf("the clicked frame's process %d (%s) filters the histograms (%d)", cpid,
                                                ct->comm, rsp_histogram_pane_pid(w->histograms));
    app_check(w, cpid >= 0 && rsp_histogram_pane_pid(w->histograms) == cpid, filtered);
  }
  pump();
  /* the consolidated view zooms and pans on its own */
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "consolidated");
  settle(w->consolidated_area);
  uint64_t total = consolidated_pane_total(w);
  send_key(w, w->consolidated_area, GDK_KEY_plus, consolidated_pane_key);
  send_key(w, w->consolidated_area, GDK_KEY_Right, consolidated_pane_key);
  g_autofree char *zoomed = g_strdup_printf("+ and Right zoom and pan the consolidated view (%" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT ")",
                                            w->cvp.t0, w->cvp.t1, total);
  app_check(w, w->cvp.t1 - w->cvp.t0 < total * 3 / 4 && w->cvp.t0 > 0, zoomed);
  pump();
  send_key(w, w->consolidated_area, GDK_KEY_Home, consolidated_pane_key);
  app_check(w, w->cvp.t0 == 0 && w->cvp.t1 == total, "Home shows all of the consolidated view");
  /* a time range selected: the flame view shows it, the consolidated view gathers only it */
  uint64_t a = w->lo + (w->hi - w->lo) / 4, b = w->lo + (w->hi - w->lo) / 2;
  app_select_range(w, a, b);
  pump();
  g_autofree char *ranged = g_strdup_printf("a time range selected filters the consolidated view (%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT ")",
                                            rsp_consolidated_view_total(w->consolidated), total);
  app_check(w, w->vp.t0 == a && w->vp.t1 == b && rsp_consolidated_view_total(w->consolidated) < total, ranged);
  GtkWidget *note = obj(w, "consolidated_label");
  char from[48];
  rsp_format_duration(a - w->lo, from, sizeof from);
  app_check(w, gtk_widget_get_visible(note) && strstr(gtk_label_get_text(GTK_LABEL(note)), from),
            "the consolidated view says it gathers the selected range only");
  app_zoom_fit(w);
  app_check(w, consolidated_pane_total(w) == total, "Fit gathers the whole recording in the consolidated view again");
  app_check(w, !gtk_widget_get_visible(note), "and the note of the range goes");
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "flame");
  pump();
}

/* What the window shows before any click (issue 17): the recorded command's consolidated view
 * beside its explanation; in the running view the processes of its paths first, the others folded
 * under one row that one click unfolds; the loss warning on one line. */
static void first_open_self_test(win *w)
{
  /* what the last run remembered (tests/gui runs several recordings with one settings file) */
  g_autofree char *ini = settings_path();
  g_autoptr(GKeyFile) k = g_key_file_new();
  if (g_key_file_load_from_file(k, ini, G_KEY_FILE_NONE, NULL) && g_key_file_has_key(k, "panes", "details", NULL)) {
    int want = g_key_file_get_integer(k, "panes", "details", NULL);
    int got = gtk_paned_get_position(GTK_PANED(obj(w, "paned")));
    g_autofree char *kept = g_strdup_printf("the details pane is where it was left (%d, remembered %d)", got, want);
    app_check(w, got == want, kept);
    g_auto(GStrv) recent = settings_recent();
    app_check(w, recent[0] != NULL, "the recordings opened before are in the Recent menu");
  }
  const char *loss = gtk_label_get_text(GTK_LABEL(w->loss_label));
  g_autofree char *one = g_strdup_printf("the loss warning is one line (\"%s\")", loss);
  app_check(w, !gtk_widget_get_visible(w->loss_bar) || (*loss && !strchr(loss, '\n')), one);
  if (gtk_widget_get_visible(w->loss_bar)) {
    const char *details = gtk_label_get_text(GTK_LABEL(w->loss_details_label));
    app_check(w, !gtk_expander_get_expanded(GTK_EXPANDER(w->loss_expander)) && *details,
              "the loss notes are folded, there on demand");
  }
  int32_t pid = app_first_process(w);
  if (pid < 0) {
    app_check(w, !w->paths, "no process of interest known: nothing opened");
    return;
  }
  settle(w->consolidated_area);
  g_autofree char *opened = g_strdup_printf("opens on the consolidated view of the process of interest %d (%s, %d)",
                                            pid, gtk_stack_get_visible_child_name(GTK_STACK(w->view_stack)),
                                            w->paths ? rsp_paths_pid(w->paths) : -1);
  app_check(w, w->paths && rsp_paths_pid(w->paths) == pid && w->consolidated &&
                   !strcmp(gtk_stack_get_visible_child_name(GTK_STACK(w->view_stack)), "consolidated") &&
                   gtk_widget_get_mapped(w->consolidated_area),
            opened);
  g_autofree char *text = explanation_pane_summary(w);
  g_autofree char *pidtext = g_strdup_printf("[%d]", pid);
  app_check(w, gtk_widget_get_mapped(w->explanation_view) && strstr(text, pidtext),
            "the explanation beside it names the process");
  /* issue 17: hex frames and no word why; running time in code without symbols is said, with why */
  rsp_categories cats;
  rsp_categories_compute(w->paths, &cats);
  if (cats.ns[RSP_CAT_UNKNOWN_STACK]) {
    char missing[48];
    rsp_format_duration(cats.ns[RSP_CAT_UNKNOWN_STACK], missing, sizeof missing);
    g_autofree char *said = g_strdup_printf(_("\nSymbols missing: %s of running time is in code without symbols:\n"), missing);
    app_check(w, strstr(text, said) != NULL, "the explanation says where symbols are missing, and why");
  }
  app_check(w, rsp_histogram_pane_pid(w->histograms) == pid, "the histograms show the process of interest's");
  rsp_hit hit;
  rsp_running_view_hit(w->view, &w->vp, style(), 20, style()->ruler_height + 1, &hit);
  app_check(w, hit.kind == RSP_HIT_PROCESS && hit.pid == pid, "the running view lists the process of interest first");
  uint32_t rows = rsp_running_view_n_rows(w->view), others = rsp_running_view_n_others(w->view);
  g_autofree char *folded = g_strdup_printf("the other %u processes are folded under one row (%u rows)", others, rows);
  app_check(w, others > 0 && rsp_running_view_others_folded(w->view), folded);
  /* the fold row is the last: one click on it shows them */
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "running");
  settle(w->area);
  gtk_adjustment_set_value(w->vadj, 0);
  double y = style()->ruler_height + (rows - 1 + 0.5) * style()->row_height;
  rsp_running_view_hit(w->view, &w->vp, style(), 20, y, &hit);
  if (hit.kind == RSP_HIT_FOLD)
    running_pane_show_hit(w, 20, y);
  g_autofree char *unfolded = g_strdup_printf("one click on 'other processes' shows them (%u rows)",
                                              rsp_running_view_n_rows(w->view));
  app_check(w, hit.kind == RSP_HIT_FOLD && !rsp_running_view_others_folded(w->view) &&
                   rsp_running_view_n_rows(w->view) > rows,
            unfolded);
  /* the process picker: every process that ran, searchable; choosing one opens its story */
  uint32_t listed = process_picker_n_shown(w);
  rsp_hit last;
  rsp_running_view_hit(w->view, &w->vp, style(), 20,
                       style()->ruler_height + (rsp_running_view_n_rows(w->view) - 0.5) * style()->row_height, &last);
  int32_t other = last.pid;
  g_autofree char *search = g_strdup_printf("%s %d", app_process_name(w->model, other), other);
  bool chosen = other >= 0 && other != pid && process_picker_choose_first(w, search);
  g_autofree char *picked = g_strdup_printf("the process picker (%u processes) opens \"%s\" (%d)", listed, search,
                                            w->paths ? rsp_paths_pid(w->paths) : -1);
  app_check(w, listed > 1 && chosen && w->paths && rsp_paths_pid(w->paths) == other &&
                   !strcmp(gtk_stack_get_visible_child_name(GTK_STACK(w->view_stack)), "consolidated"),
            picked);
  g_autofree char *back = g_strdup_printf("%s %d", app_process_name(w->model, pid), pid);
  app_check(w, process_picker_choose_first(w, back) && w->paths && rsp_paths_pid(w->paths) == pid,
            "and back to the process of interest");
  gtk_entry_set_text(GTK_ENTRY(w->picker_entry), "");
  /* ? (not typed into an entry) shows the help overlay */
  gtk_widget_grab_focus(w->consolidated_area);
  GdkEvent *key = gdk_event_new(GDK_KEY_PRESS);
  key->key.keyval = GDK_KEY_question;
  key->key.window = g_object_ref(gtk_widget_get_window(w->window));
  gtk_widget_event(w->window, key);
  gdk_event_free(key);
  settle(w->help_overlay);
  app_check(w, w->help_overlay && gtk_widget_get_visible(w->help_overlay), "? shows the help overlay with the keys");
  if (w->help_overlay)
    gtk_widget_hide(w->help_overlay);
  /* the recording is the first of the recent ones */
  g_auto(GStrv) recent = settings_recent();
  g_autofree char *abs = g_canonicalize_filename(w->path, NULL);
  app_check(w, recent[0] && !strcmp(recent[0], abs), "the recording is remembered first among the recent ones");
}

gboolean app_self_test_step(gpointer data)
{
  win *w = data;
  for (unsigned i = 0; i < app_n_accessible_names; i++) {
    AtkObject *a = gtk_widget_get_accessible(obj(w, app_accessible_names[i].id));
    const char *name = atk_object_get_name(a);
    g_autofree char *what = g_strdup_printf("accessible name of %s is \"%s\"", app_accessible_names[i].id,
                                            name ? name : "(null)");
    app_check(w, name && !strcmp(name, _(app_accessible_names[i].name)), what);
  }
  app_check(w, w->model && rsp_model_n_runs(w->model) > 0, "the recording loaded, with runs");
  first_open_self_test(w);
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "running");
  settle(w->area);
  app_check(w, gtk_widget_get_mapped(w->area), "the running view is on screen");
  /* zoom with the keyboard: the visible span halves */
  uint64_t span = w->vp.t1 - w->vp.t0;
  GdkEvent *key = gdk_event_new(GDK_KEY_PRESS);
  key->key.keyval = GDK_KEY_plus;
  key->key.window = g_object_ref(gtk_widget_get_window(w->area));
  running_pane_key(w->area, &key->key, w);
  gdk_event_free(key);
  app_check(w, w->vp.t1 - w->vp.t0 < span * 3 / 4, "+ zooms in");
  /* one wheel notch with Ctrl zooms as much as + does (issue 17: it took 28 notches from 2 s to 4 ms) */
  span = w->vp.t1 - w->vp.t0;
  GdkEvent *wheel = gdk_event_new(GDK_SCROLL);
  wheel->scroll.direction = GDK_SCROLL_UP;
  wheel->scroll.state = GDK_CONTROL_MASK;
  wheel->scroll.x = app_plot_center(w);
  wheel->scroll.window = g_object_ref(gtk_widget_get_window(w->area));
  running_pane_scroll_event(w->area, &wheel->scroll, w);
  gdk_event_free(wheel);
  g_autofree char *notch = g_strdup_printf("a Ctrl+wheel notch halves the span (%" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT ")",
                                           span, w->vp.t1 - w->vp.t0);
  app_check(w, (w->vp.t1 - w->vp.t0) * 2 <= span + 2, notch);
  gtk_button_clicked(GTK_BUTTON(obj(w, "zoom_fit_button")));
  app_check(w, w->vp.t0 == w->lo && w->vp.t1 == w->hi, "Fit shows the whole recording");
  gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(w->sleeps_check), FALSE);
  gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(w->sleeps_check), TRUE);
  uint32_t rows = rsp_running_view_n_rows(w->view);
  gtk_entry_set_text(GTK_ENTRY(w->filter_entry), "no-such-task-name-xyz");
  running_pane_on_filter(GTK_SEARCH_ENTRY(w->filter_entry), w);
  app_check(w, rsp_running_view_n_rows(w->view) == 0, "a filter that matches nothing leaves no rows");
  gtk_entry_set_text(GTK_ENTRY(w->filter_entry), "");
  running_pane_on_filter(GTK_SEARCH_ENTRY(w->filter_entry), w);
  app_check(w, rsp_running_view_n_rows(w->view) == rows, "clearing the filter brings the rows back");
  gtk_combo_box_set_active_id(GTK_COMBO_BOX(w->sort_combo), "runtime");
  /* the flame view of the recording's workload (else of the busiest process), launched as a
   * click on its name does */
  int32_t pid = rsp_model_workload_pid(w->model);
  if (pid >= 0 && !w->paths) {
    gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "consolidated");
    pump();
    app_check(w, w->paths && !strcmp(gtk_stack_get_visible_child_name(GTK_STACK(w->view_stack)), "consolidated"),
          "the Consolidated page, shown first, opens on the recorded command's process");
    app_check(w, rsp_histogram_pane_pid(w->histograms) == pid, "the histograms show the flame view's process");
    gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "running");
    pump();
  }
  if (pid < 0) {
    rsp_hit first;
    rsp_running_view_hit(w->view, &w->vp, style(), 20, style()->ruler_height + 1, &first);
    pid = first.pid;
  }
  app_check(w, flame_pane_open(w, pid), "the flame view of the workload opens");
  pump();
  app_check(w, !strcmp(gtk_stack_get_visible_child_name(GTK_STACK(w->view_stack)), "flame"), "switched to the flame page");
  app_check(w, gtk_widget_get_mapped(w->flame_area), "the flame view is on screen");
  app_check(w, w->paths && rsp_paths_n_paths(w->paths) > 0, "the flame view has control paths");
  flame_self_test(w, pid);
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "consolidated");
  pump();
  app_check(w, gtk_widget_get_mapped(w->consolidated_area) && w->consolidated &&
               rsp_consolidated_view_total(w->consolidated) > 0,
        "the consolidated flame view is on screen, with frames");
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "running");
  pump();
  app_check(w, gtk_widget_get_mapped(w->area), "switched back to the running view");
  /* a click on a task row fills the details pane */
  running_pane_show_hit(w, 20, style()->ruler_height + style()->row_height * 1.5);
  GtkTextBuffer *b = gtk_text_view_get_buffer(GTK_TEXT_VIEW(w->details_view));
  GtkTextIter s, e;
  gtk_text_buffer_get_bounds(b, &s, &e);
  g_autofree char *details = gtk_text_buffer_get_text(b, &s, &e, FALSE);
  app_check(w, details && strstr(details, "runtime"), "clicking a task name shows its totals in the details pane");
  gtk_widget_queue_draw(w->area);
  pump();
  histograms_self_test(w);
  /* "Compare with…" opens the compare window from the app (it was reachable with --diff only) */
  guint windows = g_list_length(gtk_application_get_windows(w->app));
  app_compare_with(w, w->path);
  pump();
  GtkWidget *compare = NULL;
  for (GList *l = gtk_application_get_windows(w->app); l; l = l->next)
    if (GTK_WIDGET(l->data) != w->window)
      compare = l->data;
  app_check(w, compare && g_list_length(gtk_application_get_windows(w->app)) == windows + 1,
            "Compare with… opens the compare window");
  if (compare)
    gtk_widget_destroy(compare); /* cancels its loading */
  pump();
  printf("self-test: done, closing\n");
  fflush(stdout);
  gtk_widget_destroy(w->window);
  return G_SOURCE_REMOVE;
}

