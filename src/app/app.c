/* The GtkApplication and its window: widgets from window.ui, the panes (running-pane.c, flame-pane.c,
 * consolidated-pane.c, histogram-pane.c) attached to it, what they share (time navigation, range
 * selection, search, the details text), the loading thread with progress and cancel, the lost-event
 * warning. The app owns state, not geometry. */
#include "app/app-private.h"
#include "app/compare-window.h"

#include <glib/gi18n.h>
#include <gtk/gtk.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* from the GResource bundle compiled in (ui/rsp-view.gresource.xml) */
GResource *rsp_view_get_resource(void);

void app_set_details(win *w, const char *text)
{
  GtkTextBuffer *b = gtk_text_view_get_buffer(GTK_TEXT_VIEW(w->details_view));
  gtk_text_buffer_set_text(b, text ? text : "", -1);
}

static void update_status(win *w)
{
  if (!w->model) {
    gtk_label_set_text(GTK_LABEL(w->status_label), "");
    return;
  }
  char span[48], at[48];
  rsp_format_duration(w->vp.t1 - w->vp.t0, span, sizeof span);
  rsp_format_duration(w->vp.t0 - w->lo, at, sizeof at);
  g_autofree char *s = g_strdup_printf(_("%s: %u tasks, %u runs, %u sleeps, %u links; showing %s from %s; %u rows"),
                                       w->path, rsp_model_n_tasks(w->model), rsp_model_n_runs(w->model),
                                       rsp_model_n_sleeps(w->model), rsp_model_n_links(w->model), span, at,
                                       rsp_running_view_n_rows(w->view));
  gtk_label_set_text(GTK_LABEL(w->status_label), s);
}

void app_redraw(win *w)
{
  gtk_widget_queue_draw(w->area);
  gtk_widget_queue_draw(w->flame_area);
  gtk_widget_queue_draw(w->consolidated_area);
  update_status(w);
}

void app_zoom(win *w, double factor, double x)
{
  if (!w->view)
    return;
  rsp_viewport_zoom(&w->vp, style(), factor, x, w->lo, w->hi);
  app_redraw(w);
}

void app_zoom_fit(win *w)
{
  w->vp.t0 = w->lo;
  w->vp.t1 = w->hi;
  if (w->histograms) /* the whole recording again: no time range filter */
    rsp_histogram_pane_set_range(w->histograms, 0, 0);
  if (w->range_t1) { /* and the consolidated view gathers all of it again */
    w->range_t0 = w->range_t1 = 0;
    consolidated_pane_rebuild(w);
  }
  app_redraw(w);
}

/* A time range selected in one view filters the others: the running and flame views show it (they
 * share the viewport), the histograms count only it, the consolidated view gathers only it. */
void app_select_range(win *w, uint64_t t0, uint64_t t1)
{
  w->vp.t0 = t0;
  w->vp.t1 = t1;
  w->range_t0 = t0;
  w->range_t1 = t1;
  if (w->histograms) /* the histograms follow the time range selected */
    rsp_histogram_pane_set_range(w->histograms, t0, t1);
  consolidated_pane_rebuild(w);
  app_redraw(w);
}

void app_pan(win *w, double dx)
{
  if (!w->view)
    return;
  rsp_viewport_pan(&w->vp, style(), dx, w->lo, w->hi);
  app_redraw(w);
}

double app_plot_center(win *w)
{
  return style()->label_width + (w->vp.width - style()->label_width) / 2.0;
}

void app_draw_drag_selection(win *w, cairo_t *cr, int height)
{
  if (!w->selecting)
    return;
  rsp_rgb c = style()->selection;
  cairo_set_source_rgba(cr, c.r, c.g, c.b, 0.25);
  double x0 = MIN(w->press_x, w->sel_x), x1 = MAX(w->press_x, w->sel_x);
  cairo_rectangle(cr, x0, style()->ruler_height, x1 - x0, height);
  cairo_fill(cr);
}

/* A button pressed in one of the views: the start of a pan (left button) or of a range selection
 * (right, or Shift+left); false for the second and third clicks of a double or triple click. */
bool app_begin_drag(win *w, GtkWidget *area, const GdkEventButton *ev)
{
  gtk_widget_grab_focus(area);
  if (ev->type != GDK_BUTTON_PRESS)
    return false;
  w->press_x = w->last_x = w->sel_x = ev->x;
  w->press_y = ev->y;
  w->moved = false;
  if (ev->button == 3 || (ev->button == 1 && (ev->state & GDK_SHIFT_MASK)))
    w->selecting = true;
  else if (ev->button == 1)
    w->panning = true;
  return true;
}

bool app_step_match(win *w, int dir)
{
  const char *page = gtk_stack_get_visible_child_name(GTK_STACK(w->view_stack));
  return page && !strcmp(page, "flame") ? flame_pane_step_match(w, dir) : running_pane_step_match(w, dir);
}

static void on_search_activate(GtkEntry *entry, gpointer data)
{
  app_step_match(data, 1);
}

void app_on_search(GtkSearchEntry *entry, gpointer data)
{
  win *w = data;
  w->match_index = -1;
  if (!w->view)
    return;
  const char *text = gtk_entry_get_text(GTK_ENTRY(entry));
  uint32_t n = rsp_running_view_set_search(w->view, text);
  w->flame_matches = w->flame ? rsp_flame_view_set_search(w->flame, text) : 0;
  w->consolidated_matches = w->consolidated ? rsp_consolidated_view_set_search(w->consolidated, text) : 0;
  if (*text) {
    g_autofree char *s = g_strdup_printf(_("%u matches for \"%s\" (tasks, and sleeps whose label matches); Enter or F3 steps through them"), n, text);
    g_autofree char *f = w->flame ? g_strdup_printf(_("%s\nFlame view: %u functions or processes match; consolidated flame view: %u frames"),
                                                    s, w->flame_matches, w->consolidated_matches)
                                  : NULL;
    app_set_details(w, f ? f : s);
  }
  app_redraw(w);
}

static void apply_widgets(win *w)
{
  running_pane_on_toggle(NULL, w);
  running_pane_on_sort(GTK_COMBO_BOX(w->sort_combo), w);
  running_pane_on_filter(GTK_SEARCH_ENTRY(w->filter_entry), w);
  app_on_search(GTK_SEARCH_ENTRY(w->search_entry), w);
}

static gboolean on_progress_tick(gpointer data)
{
  win *w = data;
  if (!w->loader) {
    w->progress_timer = 0;
    return G_SOURCE_REMOVE;
  }
  double f = rsp_loader_fraction(w->loader);
  if (f < 0)
    gtk_progress_bar_pulse(GTK_PROGRESS_BAR(w->progress_bar));
  else
    gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(w->progress_bar), f);
  return G_SOURCE_CONTINUE;
}

static void on_loaded(rsp_model *model, rsp_running_view *view, const GError *error, bool partial, void *data)
{
  win *w = data;
  if (!model && w->first_window_shown) {
    /* cancelled (or failed) after the first window was drawn: keep drawing it, and say so */
    g_autofree char *msg = g_strdup_printf(_("Showing the first seconds of %s only: %s"), w->path,
                                           error && error->message ? error->message : _("unknown error"));
    rsp_loader_free(w->loader);
    w->loader = NULL;
    w->first_window_shown = false;
    gtk_widget_hide(w->progress_box);
    gtk_label_set_text(GTK_LABEL(w->error_label), msg);
    gtk_widget_show(w->error_label);
    return;
  }
  /* the whole after its first window: the zoom and the process the user chose stay (the zoom only when
   * the user changed it: the first window's whole span becomes the whole recording's) */
  bool keep = !partial && w->first_window_shown && w->model;
  rsp_viewport kept_vp = w->vp;
  bool zoomed = keep && (w->vp.t0 != w->lo || w->vp.t1 != w->hi);
  int32_t kept_pid = keep && w->paths ? rsp_paths_pid(w->paths) : -1;
  if (partial) {
    uint64_t lo = 0, hi = 0;
    rsp_model_window(model, &lo, &hi);
    g_autofree char *text = g_strdup_printf(_("Showing the first %.1f s; loading the rest of %s…"),
                                            (double)(hi - rsp_model_time_first(model)) / 1e9, w->path);
    gtk_progress_bar_set_text(GTK_PROGRESS_BAR(w->progress_bar), text);
    w->first_window_events = rsp_model_n_events(model);
  } else {
    gtk_widget_hide(w->progress_box);
  }
  if (!model) {
    /* ERROR belongs to the loader: the message is taken before the loader goes */
    g_autofree char *msg = g_strdup_printf(_("Could not load %s: %s"), w->path,
                                           error && error->message ? error->message : _("unknown error"));
    rsp_loader_free(w->loader);
    w->loader = NULL;
    gtk_label_set_text(GTK_LABEL(w->error_label), msg);
    gtk_widget_show(w->error_label);
    g_printerr("rsp-view: %s\n", msg);
    if (w->options->self_test) {
      w->exit_status = 1;
      g_application_quit(G_APPLICATION(w->app));
    }
    return;
  }
  if (!partial) {
    rsp_loader_free(w->loader);
    w->loader = NULL;
  }
  gtk_widget_hide(w->error_label);
  settings_add_recent(w, w->path);
  app_set_details(w, _("Click a run, a sleep or a link to see its details here: times, durations, full stacks, who "
                   "woke it."));
  flame_pane_drop(w);
  rsp_histogram_pane_set_model(w->histograms, NULL); /* before the old model goes */
  gtk_label_set_text(GTK_LABEL(w->flame_label), _("Click a task's name in the Running view to see its process's flame view."));
  if (w->view)
    rsp_running_view_free(w->view);
  rsp_kernel_work_free(w->kwork); /* the old model's */
  w->kwork = NULL;
  if (w->model)
    rsp_model_free(w->model);
  w->model = model;
  w->view = view;
  w->lo = rsp_model_time_first(model);
  w->hi = rsp_model_time_last(model);
  if (w->hi <= w->lo)
    w->hi = w->lo + 1000;
  w->vp.t0 = w->lo;
  w->vp.t1 = w->hi;
  rsp_running_view_set_focus_pid(view, w->options->focus_pid);
  rsp_histogram_pane_set_model_pid(w->histograms, model, keep ? kept_pid : app_first_process(w));
  process_picker_model_changed(w);
  char **warnings = rsp_model_loss_warnings(model);
  if (warnings && warnings[0]) {
    /* one line; the notes themselves on demand (the expander) */
    g_autofree char *text = g_strjoinv("\n", warnings);
    guint n = g_strv_length(warnings);
    g_autofree char *line = g_strdup_printf(ngettext("Some events were lost or inferred (%u note): details",
                                                     "Some events were lost or inferred (%u notes): details", n), n);
    gtk_label_set_text(GTK_LABEL(w->loss_label), line);
    gtk_label_set_text(GTK_LABEL(w->loss_details_label), text);
    gtk_expander_set_expanded(GTK_EXPANDER(w->loss_expander), FALSE);
    gtk_widget_set_tooltip_text(w->loss_label, text);
    gtk_widget_show(w->loss_bar);
  } else {
    gtk_widget_hide(w->loss_bar);
  }
  g_strfreev(warnings);
  g_autofree char *title = g_strdup_printf("rsp-view — %s", w->path);
  gtk_window_set_title(GTK_WINDOW(w->window), title);
  apply_widgets(w);
  running_pane_update_scroll(w);
  app_redraw(w);
  bool was_partial = w->first_window_shown;
  w->first_window_shown = partial;
  if (keep) {
    /* the user's zoom, inside the whole recording's span */
    if (zoomed && kept_vp.t0 >= w->lo && kept_vp.t1 <= w->hi && kept_vp.t1 > kept_vp.t0) {
      w->vp.t0 = kept_vp.t0;
      w->vp.t1 = kept_vp.t1;
    }
    if (kept_pid >= 0) {
      /* the page the user was on (the flame view of --flame PID) stays, not the consolidated view an opening shows */
      g_autofree char *page = g_strdup(gtk_stack_get_visible_child_name(GTK_STACK(w->view_stack)));
      if (app_open_process(w, kept_pid) && page)
        gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), page);
    }
    app_redraw(w);
  } else {
    /* the story of the process of interest at once: --flame PID's flame view, else the recorded
     * command's consolidated view beside its explanation */
    int32_t pid = app_first_process(w);
    bool opened = pid >= 0 && app_open_process(w, pid);
    if (opened && w->options->flame_pid >= 0)
      gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "flame");
    else if (!opened && pid >= 0 && rsp_histogram_pane_pid(w->histograms) == pid)
      rsp_histogram_pane_set_pid(w->histograms, -1); /* every process's, as no process is open */
  }
  if (w->options->self_test && was_partial && !partial) {
    g_autofree char *what = g_strdup_printf("the first window (%" G_GUINT64_FORMAT " events) was drawn before "
                                            "the whole (%" G_GUINT64_FORMAT " events)",
                                            w->first_window_events, rsp_model_n_events(model));
    app_check(w, rsp_model_n_events(model) > w->first_window_events, what);
    app_check(w, w->vp.t0 == w->lo && w->vp.t1 == w->hi, "then the whole recording's span is shown, not the first window's");
  }
  if (w->options->self_test && !partial)
    g_timeout_add(200, app_self_test_step, w);
}

const rsp_kernel_work *app_kernel_work(win *w)
{
  if (!w->kwork && w->model)
    w->kwork = rsp_kernel_work_compute(w->model);
  return w->kwork;
}

const char *app_process_name(const rsp_model *m, int32_t pid)
{
  /* its main thread's name after its last exec: rsp-record's child is "rsp-record" until it execs
   * the command, and each exec is a new generation of the task */
  const rsp_task *best = rsp_model_process_task(m, pid);
  return best && best->comm && *best->comm ? best->comm : "?";
}

int32_t app_first_process(win *w)
{
  if (!w->model)
    return -1;
  return w->options->flame_pid >= 0 ? w->options->flame_pid : rsp_model_workload_pid(w->model);
}

/* The pids of the processes on the flame view's paths, the process of interest first. */
static GArray *paths_pids(win *w)
{
  GArray *pids = g_array_new(FALSE, FALSE, sizeof(int32_t));
  int32_t poi = rsp_paths_pid(w->paths);
  g_array_append_val(pids, poi);
  for (uint32_t i = 0; i < rsp_paths_n_tasks(w->paths); i++) {
    const rsp_task *t = rsp_model_task(w->model, rsp_paths_task(w->paths, i));
    int32_t pid = t->pid >= 0 ? t->pid : t->tid;
    bool seen = false;
    for (guint k = 0; k < pids->len && !seen; k++)
      seen = g_array_index(pids, int32_t, k) == pid;
    if (!seen)
      g_array_append_val(pids, pid);
  }
  return pids;
}

bool app_open_process(win *w, int32_t pid)
{
  if (!flame_pane_open(w, pid))
    return false;
  g_autoptr(GArray) pids = paths_pids(w);
  rsp_running_view_set_first(w->view, (const int32_t *)(void *)pids->data, pids->len, true);
  gtk_adjustment_set_value(w->vadj, 0);
  running_pane_update_scroll(w);
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "consolidated");
  app_redraw(w);
  return true;
}

void app_load(win *w, const char *path)
{
  if (w->loader)
    rsp_loader_abandon(w->loader);
  g_free(w->path);
  w->path = g_strdup(path);
  gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(w->progress_bar), 0);
  g_autofree char *text = g_strdup_printf(_("Loading %s…"), path);
  gtk_progress_bar_set_text(GTK_PROGRESS_BAR(w->progress_bar), text);
  gtk_widget_show(w->progress_box);
  gtk_widget_hide(w->error_label);
  w->loader = rsp_loader_start(path, on_loaded, w);
  if (!w->progress_timer)
    w->progress_timer = g_timeout_add(50, on_progress_tick, w);
}

static void on_cancel(GtkButton *b, gpointer data)
{
  win *w = data;
  if (w->loader)
    rsp_loader_cancel(w->loader);
}

static void on_open(GtkButton *b, gpointer data)
{
  win *w = data;
  GtkWidget *dlg = gtk_file_chooser_dialog_new(_("Open a recording"), GTK_WINDOW(w->window),
                                               GTK_FILE_CHOOSER_ACTION_OPEN, _("_Cancel"), GTK_RESPONSE_CANCEL,
                                               _("_Open"), GTK_RESPONSE_ACCEPT, NULL);
  if (gtk_dialog_run(GTK_DIALOG(dlg)) == GTK_RESPONSE_ACCEPT) {
    g_autofree char *file = gtk_file_chooser_get_filename(GTK_FILE_CHOOSER(dlg));
    if (file)
      app_load(w, file);
  }
  gtk_widget_destroy(dlg);
}

/* "Compare with…": the compare window (as rsp-view --diff opens it) of this recording and another. */
void app_compare_with(win *w, const char *other)
{
  rsp_compare_options co = { .file_a = w->path, .file_b = other, .resolution = w->options->resolution,
                             .first_class = w->options->histogram_class };
  w->compare = rsp_compare_window_open(w->app, &co);
}

static void on_compare(GtkButton *b, gpointer data)
{
  win *w = data;
  if (!w->path)
    return;
  GtkWidget *dlg = gtk_file_chooser_dialog_new(_("Compare with a recording"), GTK_WINDOW(w->window),
                                               GTK_FILE_CHOOSER_ACTION_OPEN, _("_Cancel"), GTK_RESPONSE_CANCEL,
                                               _("_Compare"), GTK_RESPONSE_ACCEPT, NULL);
  if (gtk_dialog_run(GTK_DIALOG(dlg)) == GTK_RESPONSE_ACCEPT) {
    g_autofree char *file = gtk_file_chooser_get_filename(GTK_FILE_CHOOSER(dlg));
    if (file)
      app_compare_with(w, file);
  }
  gtk_widget_destroy(dlg);
}

/* Accessible names, for screen readers and for the GUI tests (which find widgets by them). */
const app_accessible_name app_accessible_names[] = {
  { "open_button", N_("Open recording") },
  { "recent_button", N_("Recent recordings") },
  { "compare_button", N_("Compare with another recording") },
  { "legend_label", N_("Colour legend") },
  { "process_button", N_("Choose process") },
  { "view_switcher", N_("View") },
  { "filter_entry", N_("Filter processes") },
  { "search_entry", N_("Search") },
  { "sort_combo", N_("Sort processes") },
  { "sleeps_check", N_("Show sleeps") },
  { "links_check", N_("Show links") },
  { "zoom_in_button", N_("Zoom in") },
  { "zoom_out_button", N_("Zoom out") },
  { "zoom_fit_button", N_("Zoom to fit") },
  { "progress_bar", N_("Loading progress") },
  { "cancel_button", N_("Cancel loading") },
  { "running_area", N_("Process running view") },
  { "flame_area", N_("Flame view") },
  { "flame_label", N_("Flame view status") },
  { "consolidated_area", N_("Consolidated flame view") },
  { "vscroll", N_("Scroll tasks") },
  { "details_view", N_("Details") },
  { "status_label", N_("Status") },
  { "loss_label", N_("Lost events warning") },
  { "error_label", N_("Load error") },
  { "loss_expander", N_("Lost events details") },
  { "explanation_view", N_("Explanation") },
};
const unsigned app_n_accessible_names = G_N_ELEMENTS(app_accessible_names);

static void set_accessible_names(win *w)
{
  for (unsigned i = 0; i < app_n_accessible_names; i++) {
    AtkObject *a = gtk_widget_get_accessible(obj(w, app_accessible_names[i].id));
    atk_object_set_name(a, _(app_accessible_names[i].name));
  }
}

static void zoom_in_clicked(GtkButton *b, gpointer data)
{
  win *w = data;
  app_zoom(w, 0.5, app_plot_center(w));
}

static void zoom_out_clicked(GtkButton *b, gpointer data)
{
  win *w = data;
  app_zoom(w, 2.0, app_plot_center(w));
}

static void zoom_fit_clicked(GtkButton *b, gpointer data)
{
  app_zoom_fit(data);
}

static void on_destroy(GtkWidget *widget, gpointer data)
{
  win *w = data;
  settings_save_window(w);
  w->explanation_view = w->path_combo = NULL; /* gone with the window: not updated when the flame view is dropped */
  if (w->loader) {
    rsp_loader_abandon(w->loader);
    w->loader = NULL;
  }
}

/* ---- The histograms pane (issue 7) ---------------------------------------------------------- */
static void on_histogram_highlight(const rsp_highlight *items, uint32_t n, void *data)
{
  win *w = data;
  if (!w->view)
    return;
  rsp_running_view_set_highlights(w->view, items, n);
  if (n) /* the first one's row scrolled into sight */
    running_pane_scroll_to_task(w, items[0].task);
  app_redraw(w);
}

/* An instance double-clicked: its span in the middle of the running view, with as much again either side. */
static void on_histogram_show_time(uint64_t t0, uint64_t t1, void *data)
{
  win *w = data;
  if (!w->view)
    return;
  w->shown_t0 = t0;
  w->shown_t1 = t1;
  uint64_t span = MAX(t1 - t0, 1000), a = t0 > w->lo + span ? t0 - span : w->lo;
  w->vp.t0 = a;
  w->vp.t1 = MIN(t1 + span, w->hi);
  if (w->vp.t1 <= w->vp.t0)
    w->vp.t1 = w->vp.t0 + 1000;
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "running");
  app_redraw(w);
}

/* The pane goes below the views, in a vertical split with them (dragged down, it folds away). */
static void attach_histograms(win *w)
{
  rsp_histogram_pane_hooks hooks = { on_histogram_highlight, on_histogram_show_time, w };
  rsp_histogram_pane_options o = { .resolution = w->options->resolution, .slice_ns = w->options->slice_ns,
                                   .first_class = w->options->histogram_class, .heatmap = w->options->heatmap,
                                   .pid = w->options->histogram_pid };
  w->histograms = rsp_histogram_pane_new(&hooks, &o);
  GtkWidget *paned = gtk_widget_get_parent(w->view_stack);
  GtkWidget *split = w->histograms_split = gtk_paned_new(GTK_ORIENTATION_VERTICAL);
  g_object_ref(w->view_stack);
  gtk_container_remove(GTK_CONTAINER(paned), w->view_stack);
  gtk_paned_pack1(GTK_PANED(split), w->view_stack, TRUE, FALSE);
  gtk_paned_pack2(GTK_PANED(split), rsp_histogram_pane_widget(w->histograms), TRUE, TRUE);
  g_object_unref(w->view_stack);
  gtk_paned_set_position(GTK_PANED(split), 500); /* the views first: the histograms a strip below */
  gtk_paned_pack1(GTK_PANED(paned), split, TRUE, TRUE);
  gtk_widget_show(split);
  atk_object_set_name(gtk_widget_get_accessible(split), _("Views and histograms"));
}

/* The colours of the views, named: the legend at the right of the status line. */
static void fill_legend(win *w)
{
  const rsp_style *s = style();
  const struct {
    rsp_rgb c;
    const char *what;
  } items[] = {
    { s->run, N_("running") },       { s->sleep, N_("sleeping") },        { s->both, N_("both (flame)") },
    { s->io, N_("I/O wait") },       { s->disk, N_("disk request") },     { s->net, N_("network") },
    { s->kwork, N_("kernel work") }, { s->link_wakeup, N_("wakeup") },   { s->selection, N_("wait chain") },
  };
  GString *m = g_string_new(NULL);
  for (unsigned i = 0; i < G_N_ELEMENTS(items); i++) {
    char hex[8];
    g_autofree char *what = g_markup_escape_text(_(items[i].what), -1);
    g_string_append_printf(m, "%s<span foreground=\"%s\">\u25A0</span> %s", i ? "  " : "",
                           rsp_rgb_to_hex(items[i].c, hex), what);
  }
  gtk_label_set_markup(GTK_LABEL(obj(w, "legend_label")), m->str);
  gtk_widget_set_tooltip_text(obj(w, "legend_label"),
                              _("The views' colours. A link is a line from the task that woke (or sent) to the one "
                                "that ran next; the wait chain marks what the process of interest waited for."));
  g_string_free(m, TRUE);
}

/* Keys of the whole window: ? shows the help (unless typed into an entry), Ctrl+P the process
 * picker, Ctrl+F the search, Ctrl+O the Open dialog. */
static gboolean on_window_key(GtkWidget *window, GdkEventKey *ev, gpointer data)
{
  win *w = data;
  GtkWidget *focus = gtk_window_get_focus(GTK_WINDOW(window));
  bool typing = focus && GTK_IS_EDITABLE(focus);
  bool ctrl = ev->state & GDK_CONTROL_MASK;
  if (ev->keyval == GDK_KEY_F3) {
    app_step_match(w, (ev->state & GDK_SHIFT_MASK) ? -1 : 1);
    return TRUE;
  }
  if (ev->keyval == GDK_KEY_question && !typing && !ctrl) {
    g_action_group_activate_action(G_ACTION_GROUP(window), "show-help-overlay", NULL);
    return TRUE;
  }
  if (ctrl && (ev->keyval == GDK_KEY_p || ev->keyval == GDK_KEY_P)) {
    gtk_widget_show(w->picker_popover);
    gtk_widget_grab_focus(w->picker_entry);
    return TRUE;
  }
  if (ctrl && (ev->keyval == GDK_KEY_f || ev->keyval == GDK_KEY_F)) {
    gtk_widget_grab_focus(w->search_entry);
    return TRUE;
  }
  if (ctrl && (ev->keyval == GDK_KEY_o || ev->keyval == GDK_KEY_O)) {
    gtk_button_clicked(GTK_BUTTON(obj(w, "open_button")));
    return TRUE;
  }
  return FALSE;
}

static void attach_help(win *w)
{
  GtkBuilder *b = gtk_builder_new_from_resource("/org/rsp/view/help-overlay.ui");
  w->help_overlay = GTK_WIDGET(gtk_builder_get_object(b, "help_overlay"));
  gtk_application_window_set_help_overlay(GTK_APPLICATION_WINDOW(w->window), GTK_SHORTCUTS_WINDOW(w->help_overlay));
  g_object_unref(b);
  const char *help_keys[] = { "F1", NULL };
  gtk_application_set_accels_for_action(w->app, "win.show-help-overlay", help_keys);
  g_signal_connect(w->window, "key-press-event", G_CALLBACK(on_window_key), w);
  fill_legend(w);
}

/* Ctrl+Q: the window closed, as its close button would. */
static void on_quit_action(GSimpleAction *action, GVariant *param, gpointer data)
{
  win *w = data;
  if (w->window)
    gtk_widget_destroy(w->window);
}

static bool compare_check(bool ok, const char *what, void *data)
{
  return app_check(data, ok, what);
}

static void on_activate(GtkApplication *app, gpointer data)
{
  win *w = data;
  if (w->window) {
    gtk_window_present(GTK_WINDOW(w->window));
    return;
  }
  /* a static library's constructor may be dropped by the linker: register explicitly */
  if (!g_resources_get_info("/org/rsp/view/window.ui", G_RESOURCE_LOOKUP_FLAGS_NONE, NULL, NULL, NULL))
    g_resources_register(rsp_view_get_resource());
  GtkCssProvider *css = gtk_css_provider_new();
  gtk_css_provider_load_from_resource(css, "/org/rsp/view/style.css");
  gtk_style_context_add_provider_for_screen(gdk_screen_get_default(), GTK_STYLE_PROVIDER(css),
                                            GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_unref(css);
  if (w->options->diff_a && w->options->diff_b) { /* rsp-view --diff A B: the compare window alone */
    rsp_compare_options co = { .file_a = w->options->diff_a, .file_b = w->options->diff_b,
                               .resolution = w->options->resolution, .first_class = w->options->histogram_class,
                               .check = w->options->self_test ? compare_check : NULL, .check_data = w };
    rsp_compare_window_open(app, &co);
    w->window = GTK_WIDGET(gtk_application_get_windows(app)->data);
    return;
  }
  w->builder = gtk_builder_new_from_resource("/org/rsp/view/window.ui");
  w->window = obj(w, "window");
  gtk_window_set_application(GTK_WINDOW(w->window), app);
  w->progress_box = obj(w, "progress_box");
  w->progress_bar = obj(w, "progress_bar");
  w->error_label = obj(w, "error_label");
  w->loss_bar = obj(w, "loss_bar");
  w->loss_label = obj(w, "loss_label");
  w->loss_expander = obj(w, "loss_expander");
  w->loss_details_label = obj(w, "loss_details_label");
  w->status_label = obj(w, "status_label");
  w->details_view = obj(w, "details_view");
  w->view_stack = obj(w, "view_stack");
  w->search_entry = obj(w, "search_entry");
  /* the switcher's buttons as wide as their labels, so the toolbar fits 1280 pixels */
  gtk_box_set_homogeneous(GTK_BOX(obj(w, "view_switcher")), FALSE);
  running_pane_attach(w);
  flame_pane_attach(w);
  consolidated_pane_attach(w);
  explanation_pane_attach(w);
  process_picker_attach(w);
  set_accessible_names(w);
  attach_histograms(w);
  GSimpleAction *quit = g_simple_action_new("quit", NULL);
  g_signal_connect(quit, "activate", G_CALLBACK(on_quit_action), w);
  g_action_map_add_action(G_ACTION_MAP(app), G_ACTION(quit));
  g_object_unref(quit);
  const char *quit_keys[] = { "<Control>q", NULL };
  gtk_application_set_accels_for_action(app, "app.quit", quit_keys);
  if (w->options->filter)
    gtk_entry_set_text(GTK_ENTRY(w->filter_entry), w->options->filter);
  if (w->options->search)
    gtk_entry_set_text(GTK_ENTRY(w->search_entry), w->options->search);

  g_signal_connect(w->search_entry, "search-changed", G_CALLBACK(app_on_search), w);
  g_signal_connect(w->search_entry, "activate", G_CALLBACK(on_search_activate), w);
  g_signal_connect(obj(w, "zoom_in_button"), "clicked", G_CALLBACK(zoom_in_clicked), w);
  g_signal_connect(obj(w, "zoom_out_button"), "clicked", G_CALLBACK(zoom_out_clicked), w);
  g_signal_connect(obj(w, "zoom_fit_button"), "clicked", G_CALLBACK(zoom_fit_clicked), w);
  g_signal_connect(obj(w, "cancel_button"), "clicked", G_CALLBACK(on_cancel), w);
  g_signal_connect(obj(w, "open_button"), "clicked", G_CALLBACK(on_open), w);
  g_signal_connect(obj(w, "compare_button"), "clicked", G_CALLBACK(on_compare), w);
  g_signal_connect(w->window, "destroy", G_CALLBACK(on_destroy), w);
  attach_help(w);
  settings_restore_window(w);
  gtk_widget_show(w->window);
  if (w->options->file)
    app_load(w, w->options->file);
  else
    app_set_details(w, _("Open a recording (perf.data) with the Open button."));
}

int rsp_app_run(const rsp_app_options *options)
{
  win *w = g_new0(win, 1);
  w->options = options;
  w->match_index = -1;
  w->app = gtk_application_new("org.rsp.View", G_APPLICATION_NON_UNIQUE);
  g_signal_connect(w->app, "activate", G_CALLBACK(on_activate), w);
  char *argv[] = { (char *)"rsp-view", NULL };
  int status = g_application_run(G_APPLICATION(w->app), 1, argv);
  if (w->progress_timer)
    g_source_remove(w->progress_timer);
  flame_pane_drop(w);
  process_picker_free(w);
  rsp_histogram_pane_free(w->histograms); /* waits for its worker: before the model goes */
  if (w->view)
    rsp_running_view_free(w->view);
  rsp_kernel_work_free(w->kwork); /* the old model's */
  w->kwork = NULL;
  if (w->model)
    rsp_model_free(w->model);
  if (w->builder)
    g_object_unref(w->builder);
  g_free(w->path);
  g_object_unref(w->app);
  int rc = status ? status : w->exit_status;
  g_free(w);
  return rc;
}

