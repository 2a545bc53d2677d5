/* The flame view pane: the control paths of one process along time (render/flame-view.c), its
 * frames clicked for details and selected in the running view. */
#include "app/app-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

static void fill_paths(win *w);
static void on_path_chosen(GtkComboBox *combo, gpointer data);

void flame_pane_drop(win *w)
{
  if (w->view)
    rsp_running_view_set_wait_chain(w->view, NULL);
  rsp_consolidated_view_free(w->consolidated);
  w->consolidated = NULL;
  rsp_flame_view_free(w->flame);
  w->flame = NULL;
  rsp_paths_free(w->paths);
  w->paths = NULL;
  g_clear_pointer(&w->listed_paths, g_free);
  w->n_listed_paths = 0;
  fill_paths(w);
  explanation_pane_update(w);
}


/* A zoomed-in window of the flame view cut by its worker: drawn on the main loop (the widget kept until then). */
static gboolean redraw_flame(gpointer data)
{
  gtk_widget_queue_draw(data);
  g_object_unref(data);
  return G_SOURCE_REMOVE;
}

static void on_flame_cut(void *data)
{
  g_idle_add(redraw_flame, g_object_ref(data));
}

/* The flame view of process PID: its control paths, shown on the Flame page. */
bool flame_pane_open(win *w, int32_t pid)
{
  if (!w->model)
    return false;
  flame_pane_drop(w);
  g_autoptr(GError) error = NULL;
  w->paths = rsp_paths_build(w->model, pid, NULL, &error);
  if (!w->paths) {
    g_autofree char *msg = g_strdup_printf(_("No flame view: %s"), error ? error->message : "?");
    gtk_label_set_text(GTK_LABEL(w->flame_label), msg);
    return false;
  }
  w->flame = rsp_flame_view_new_kwork(w->paths, app_kernel_work(w));
  rsp_flame_view_set_ready_hook(w->flame, on_flame_cut, w->flame_area); /* zoomed in, the window stays responsive */
  rsp_flame_view_set_show_links(w->flame, gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(w->links_check)));
  w->flame_scroll = -1;
  consolidated_pane_rebuild(w);
  /* the process of interest's wait chain highlighted in the running view */
  rsp_running_view_set_wait_chain(w->view, w->paths);
  rsp_running_view_set_focus_pid(w->view, pid);
  const char *search = gtk_entry_get_text(GTK_ENTRY(w->search_entry));
  w->flame_matches = rsp_flame_view_set_search(w->flame, search);
  g_autofree char *msg = g_strdup_printf(_("Flame view of process %d: %u control paths, %u tasks in %u processes"),
                                         pid, rsp_paths_n_paths(w->paths), rsp_paths_n_tasks(w->paths),
                                         rsp_paths_n_processes(w->paths));
  gtk_label_set_text(GTK_LABEL(w->flame_label), msg);
  fill_paths(w);
  explanation_pane_update(w);
  /* the process selected: the histograms show its profiles */
  rsp_histogram_pane_set_pid(w->histograms, pid);
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "flame");
  app_redraw(w);
  return true;
}

/* The Flame or Consolidated page shown before any flame view was opened: the flame view of the
 * command the recording ran (rsp-record's notes, perf record's child), when the file names one. */
static void on_view_page(GObject *stack, GParamSpec *pspec, gpointer data)
{
  win *w = data;
  const char *name = gtk_stack_get_visible_child_name(GTK_STACK(stack));
  if (!w->model || w->paths || !name || !strcmp(name, "running"))
    return;
  int32_t pid = rsp_model_workload_pid(w->model);
  if (pid < 0)
    return;
  g_autofree char *want = g_strdup(name);
  if (flame_pane_open(w, pid))
    gtk_stack_set_visible_child_name(GTK_STACK(stack), want);
}

/* The flame view's scroll offset clamped to its content; -1: the base of path 0 (the process of
 * interest's own frames) at the bottom edge. */
static int flame_scroll_clamp(win *w, int scroll)
{
  int page = gtk_widget_get_allocated_height(w->flame_area) - style()->ruler_height;
  int content = w->flame ? rsp_flame_view_content_height(w->flame, style()) : 0;
  if (scroll < 0 && w->flame)
    scroll = (rsp_flame_view_path_row(w->flame, 0) + 2) * style()->row_height - page;
  return CLAMP(scroll, 0, MAX(0, content - page));
}

static gboolean on_flame_draw(GtkWidget *area, cairo_t *cr, gpointer data)
{
  win *w = data;
  rsp_viewport vp = w->vp;
  vp.width = gtk_widget_get_allocated_width(area);
  vp.height = gtk_widget_get_allocated_height(area);
  if (!w->flame || vp.t1 <= vp.t0) {
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    return TRUE;
  }
  vp.scroll_y = w->flame_scroll = flame_scroll_clamp(w, w->flame_scroll);
  rsp_flame_view_draw(w->flame, cr, &vp, style());
  app_draw_drag_selection(w, cr, vp.height);
  return TRUE;
}

/* The element under (X, Y) of the flame view as a running-view hit, for the shared descriptions. */
bool flame_pane_hit(win *w, double x, double y, rsp_hit *hit)
{
  if (!w->flame)
    return false;
  rsp_viewport vp = w->vp;
  vp.width = gtk_widget_get_allocated_width(w->flame_area);
  vp.height = gtk_widget_get_allocated_height(w->flame_area);
  vp.scroll_y = w->flame_scroll;
  rsp_elem_id id;
  if (!rsp_flame_view_hit(w->flame, &vp, style(), x, y, &id))
    return false;
  const rsp_path_elem *e = rsp_paths_elem(w->paths, id);
  *hit = (rsp_hit){ .kind = RSP_HIT_TASK, .pid = -1, .task = e->task, .run = RSP_NO_ID, .sleep = RSP_NO_ID };
  if (e->kind == RSP_ELEM_RUN) {
    hit->kind = RSP_HIT_RUN;
    hit->run = e->id;
  } else if (e->kind == RSP_ELEM_SLEEP) {
    hit->kind = RSP_HIT_SLEEP;
    hit->sleep = e->id;
  }
  return true;
}

static gboolean on_flame_tooltip(GtkWidget *area, gint x, gint y, gboolean kbd, GtkTooltip *tip, gpointer data)
{
  win *w = data;
  rsp_hit hit;
  if (kbd || !w->flame)
    return FALSE;
  if (!flame_pane_hit(w, x, y, &hit)) { /* a frame of kernel work: its name ("kernel work for X", the doer) */
    rsp_viewport vp = w->vp;
    vp.width = gtk_widget_get_allocated_width(area);
    vp.height = gtk_widget_get_allocated_height(area);
    vp.scroll_y = w->flame_scroll;
    rsp_elem_id id;
    const char *label = NULL;
    if (!rsp_flame_view_frame_at(w->flame, &vp, style(), x, y, &id, &label) || !label)
      return FALSE;
    gtk_tooltip_set_text(tip, label);
    return TRUE;
  }
  g_autofree char *text = rsp_running_view_describe(w->view, &hit);
  gtk_tooltip_set_text(tip, text);
  return TRUE;
}

/* A frame clicked in the flame view: its details, and its run or sleep (or its task's part of the
 * path) selected in the running view: outlined there, its row scrolled into sight. Its process
 * (the frame may be of a waker's, in the wait chain) is selected: the histograms follow it, as they
 * follow a process selected in the running view. */
bool flame_pane_click(win *w, double x, double y)
{
  rsp_hit hit;
  if (!flame_pane_hit(w, x, y, &hit))
    return false;
  g_autofree char *text = rsp_running_view_describe(w->view, &hit);
  rsp_viewport vp = w->vp;
  vp.width = gtk_widget_get_allocated_width(w->flame_area);
  vp.height = gtk_widget_get_allocated_height(w->flame_area);
  vp.scroll_y = w->flame_scroll;
  rsp_elem_id id;
  const char *label = NULL;
  rsp_flame_view_frame_at(w->flame, &vp, style(), x, y, &id, &label);
  g_autofree char *full = g_strdup_printf(_("Frame: %s\n%s"), label ? label : "?", text);
  app_set_details(w, full);
  const rsp_path_elem *e = rsp_paths_elem(w->paths, id);
  rsp_highlight hl = { e->task, e->start, e->end > e->start ? e->end : e->start + 1 };
  rsp_running_view_set_highlights(w->view, &hl, 1);
  running_pane_scroll_to_task(w, e->task);
  if (w->histograms && e->task < rsp_model_n_tasks(w->model)) {
    const rsp_task *task = rsp_model_task(w->model, e->task);
    rsp_histogram_pane_set_pid(w->histograms, task->pid >= 0 ? task->pid : task->tid);
  }
  app_redraw(w);
  return true;
}

static void flame_scroll_by(win *w, int dy)
{
  w->flame_scroll = flame_scroll_clamp(w, flame_scroll_clamp(w, w->flame_scroll) + dy);
  gtk_widget_queue_draw(w->flame_area);
}

static gboolean on_flame_scroll(GtkWidget *area, GdkEventScroll *ev, gpointer data)
{
  win *w = data;
  double dx = 0, dy = 0;
  if (ev->direction == GDK_SCROLL_UP || ev->direction == GDK_SCROLL_DOWN)
    dy = ev->direction == GDK_SCROLL_UP ? -1 : 1;
  else if (ev->direction == GDK_SCROLL_SMOOTH)
    gdk_event_get_scroll_deltas((GdkEvent *)ev, &dx, &dy);
  if ((ev->state & (GDK_CONTROL_MASK | GDK_SHIFT_MASK)) || dx != 0 || ev->direction == GDK_SCROLL_LEFT ||
      ev->direction == GDK_SCROLL_RIGHT)
    return running_pane_scroll_event(area, ev, data); /* zoom and pan along time, shared with the running view */
  flame_scroll_by(w, (int)(dy * 3 * style()->row_height));
  return TRUE;
}

static gboolean on_flame_press(GtkWidget *area, GdkEventButton *ev, gpointer data)
{
  app_begin_drag(data, area, ev);
  return TRUE;
}

/* Dragging in the flame view: pans (along time, and rows), or selects a range. */
static gboolean on_flame_motion(GtkWidget *area, GdkEventMotion *ev, gpointer data)
{
  win *w = data;
  if (fabs(ev->x - w->press_x) > 3 || fabs(ev->y - w->press_y) > 3)
    w->moved = true;
  if (w->panning && w->moved) {
    app_pan(w, w->last_x - ev->x);
    flame_scroll_by(w, (int)(w->press_y - ev->y));
    w->press_y = ev->y;
    w->last_x = ev->x;
  } else if (w->selecting) {
    w->sel_x = ev->x;
  }
  gtk_widget_queue_draw(area);
  return TRUE;
}

static gboolean on_flame_release(GtkWidget *area, GdkEventButton *ev, gpointer data)
{
  win *w = data;
  rsp_viewport vp = w->vp;
  vp.width = gtk_widget_get_allocated_width(area);
  if (w->selecting && fabs(w->sel_x - w->press_x) > 3 && w->flame) {
    double x0 = MAX(MIN(w->press_x, w->sel_x), style()->label_width), x1 = MAX(w->press_x, w->sel_x);
    uint64_t t0 = rsp_viewport_time(&vp, style(), x0), t1 = rsp_viewport_time(&vp, style(), x1);
    if (t1 > t0 + 1000) {
      w->selecting = false;
      app_select_range(w, t0, t1);
    }
  } else if (!w->moved) {
    flame_pane_click(w, ev->x, ev->y);
  }
  w->selecting = w->panning = false;
  gtk_widget_queue_draw(area);
  return TRUE;
}

static gboolean on_flame_key(GtkWidget *area, GdkEventKey *ev, gpointer data)
{
  win *w = data;
  int page = gtk_widget_get_allocated_height(area) - style()->ruler_height;
  switch (ev->keyval) {
  case GDK_KEY_Up:
    flame_scroll_by(w, -style()->row_height);
    return TRUE;
  case GDK_KEY_Down:
    flame_scroll_by(w, style()->row_height);
    return TRUE;
  case GDK_KEY_Page_Up:
    flame_scroll_by(w, -page * 9 / 10);
    return TRUE;
  case GDK_KEY_Page_Down:
    flame_scroll_by(w, page * 9 / 10);
    return TRUE;
  default:
    return running_pane_key(area, ev, data); /* zoom and pan along time, shared with the running view */
  }
}


/* The control paths, one entry each, for the path picker. */
/* The most control paths the picker lists: a process of a long recording can have 82,000 of them, which the combo box
 * took minutes to take in, one by one, and would make a menu of when opened. Then it lists the process's own path and
 * the longest others, in path order; the shorter ones are picked in the flame view. */
#define MAX_LISTED_PATHS 1000

static int by_length_then_id(const void *a, const void *b, void *data)
{
  const rsp_paths *paths = data;
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  uint64_t lx = rsp_path_length(rsp_paths_path(paths, x)), ly = rsp_path_length(rsp_paths_path(paths, y));
  if (lx != ly)
    return lx > ly ? -1 : 1;
  return x < y ? -1 : x > y;
}

static int by_id(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* The paths of PATHS the picker lists, in path order (*N of them): all, or path 0 and the CAP - 1 longest others. */
uint32_t *flame_pane_listed_paths(const rsp_paths *paths, uint32_t cap, uint32_t *n)
{
  uint32_t n_paths = paths ? rsp_paths_n_paths(paths) : 0;
  uint32_t *ids = g_new(uint32_t, n_paths + 1);
  for (uint32_t p = 0; p < n_paths; p++)
    ids[p] = p;
  *n = n_paths;
  if (n_paths > cap) {
    g_qsort_with_data(ids + 1, (gint)(n_paths - 1), sizeof(uint32_t), by_length_then_id, (gpointer)paths);
    *n = cap;
    qsort(ids + 1, cap - 1, sizeof(uint32_t), by_id);
  }
  return ids;
}

static void fill_paths(win *w)
{
  if (!w->path_combo) /* the window is gone */
    return;
  GtkComboBox *combo = GTK_COMBO_BOX(w->path_combo);
  g_signal_handlers_block_by_func(combo, on_path_chosen, w);
  /* a new model filled before the combo box sees it (its columns: text, id, as GtkComboBoxText's) */
  GtkListStore *store = gtk_list_store_new(2, G_TYPE_STRING, G_TYPE_STRING);
  if (w->paths)
    gtk_list_store_insert_with_values(store, NULL, -1, 0, _("All control paths (choose one to show it)"), -1);
  uint32_t n_paths = w->paths ? rsp_paths_n_paths(w->paths) : 0, listed = 0;
  g_free(w->listed_paths);
  w->listed_paths = flame_pane_listed_paths(w->paths, MAX_LISTED_PATHS, &listed);
  w->n_listed_paths = listed;
  for (uint32_t k = 0; k < listed; k++) {
    uint32_t p = w->listed_paths[k];
    const rsp_path *path = rsp_paths_path(w->paths, p);
    /* named as the flame view names it (after an exec, by the new name: not "rsp-record" for the command it ran) */
    rsp_task_id task = w->flame ? rsp_flame_view_path_task(w->flame, p) : RSP_NO_ID;
    if (task == RSP_NO_ID) {
      rsp_elem_id first = rsp_paths_path_elem(w->paths, p, 0);
      task = first != RSP_NO_ID ? rsp_paths_elem(w->paths, first)->task : RSP_NO_ID;
    }
    const rsp_task *t = task < rsp_model_n_tasks(w->model) ? rsp_model_task(w->model, task) : NULL;
    char at[48], len[48];
    g_autofree char *text = g_strdup_printf(p ? _("Path %u: %s %d, at %s for %s") : _("Path %u (the process's own): %s %d, at %s for %s"),
                                            p, t && t->comm ? t->comm : "?", t ? t->tid : -1,
                                            rsp_format_duration(path->start - w->lo, at, sizeof at),
                                            rsp_format_duration(path->end - path->start, len, sizeof len));
    gtk_list_store_insert_with_values(store, NULL, -1, 0, text, -1);
  }
  if (listed < n_paths) {
    g_autofree char *more = g_strdup_printf(_("%u shorter paths: click them in the flame view"), n_paths - listed);
    gtk_list_store_insert_with_values(store, NULL, -1, 0, more, -1);
  }
  gtk_combo_box_set_model(combo, GTK_TREE_MODEL(store));
  g_object_unref(store);
  gtk_combo_box_set_active(combo, w->paths ? 0 : -1);
  gtk_widget_set_sensitive(w->path_combo, w->paths != NULL);
  g_signal_handlers_unblock_by_func(combo, on_path_chosen, w);
}

bool flame_pane_show_path(win *w, rsp_path_id p)
{
  if (!w->paths || p >= rsp_paths_n_paths(w->paths))
    return false;
  const rsp_path *path = rsp_paths_path(w->paths, p);
  uint64_t span = MAX(path->end - path->start, 1000), margin = span / 20;
  w->vp.t0 = path->start > w->lo + margin ? path->start - margin : w->lo;
  w->vp.t1 = MIN(path->end + margin, w->hi);
  if (w->vp.t1 <= w->vp.t0)
    w->vp.t1 = w->vp.t0 + 1000;
  /* its base row at the view's bottom edge, as path 0's is at first */
  int page = gtk_widget_get_allocated_height(w->flame_area) - style()->ruler_height;
  w->flame_scroll = flame_scroll_clamp(w, (rsp_flame_view_path_row(w->flame, p) + 2) * style()->row_height - page);
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "flame");
  app_redraw(w);
  return true;
}

/* Entry 0: all of them (the whole recording); entry K + 1: the K-th path listed (the entry after them says how many
 * more there are). */
static void on_path_chosen(GtkComboBox *combo, gpointer data)
{
  win *w = data;
  int p = gtk_combo_box_get_active(combo);
  if (p > (int)w->n_listed_paths)
    return;
  if (p > 0) {
    flame_pane_show_path(w, (rsp_path_id)w->listed_paths[p - 1]);
  } else if (p == 0 && w->paths) {
    app_zoom_fit(w);
    w->flame_scroll = -1;
    gtk_widget_queue_draw(w->flame_area);
  }
}

void flame_pane_attach(win *w)
{
  w->path_combo = obj(w, "path_combo");
  g_signal_connect(w->path_combo, "changed", G_CALLBACK(on_path_chosen), w);
  fill_paths(w);
  w->flame_area = obj(w, "flame_area");
  w->flame_label = obj(w, "flame_label");
  g_signal_connect(w->view_stack, "notify::visible-child-name", G_CALLBACK(on_view_page), w);
  gtk_widget_add_events(w->flame_area, GDK_SCROLL_MASK | GDK_SMOOTH_SCROLL_MASK | GDK_BUTTON_PRESS_MASK |
                                           GDK_BUTTON_RELEASE_MASK | GDK_POINTER_MOTION_MASK | GDK_KEY_PRESS_MASK);
  g_signal_connect(w->flame_area, "draw", G_CALLBACK(on_flame_draw), w);
  g_signal_connect(w->flame_area, "motion-notify-event", G_CALLBACK(on_flame_motion), w);
  g_signal_connect(w->flame_area, "button-release-event", G_CALLBACK(on_flame_release), w);
  g_signal_connect(w->flame_area, "query-tooltip", G_CALLBACK(on_flame_tooltip), w);
  g_signal_connect(w->flame_area, "button-press-event", G_CALLBACK(on_flame_press), w);
  g_signal_connect(w->flame_area, "scroll-event", G_CALLBACK(on_flame_scroll), w);
  g_signal_connect(w->flame_area, "key-press-event", G_CALLBACK(on_flame_key), w);
}

bool flame_pane_step_match(win *w, int dir)
{
  uint32_t n = w->flame ? rsp_flame_view_n_match_items(w->flame) : 0;
  if (!n) {
    gtk_label_set_text(GTK_LABEL(w->status_label), _("No match to step to: type in Search first"));
    return false;
  }
  w->match_index = w->match_index < 0 ? (dir > 0 ? 0 : (int)n - 1) : (int)((w->match_index + (int)n + dir) % (int)n);
  uint64_t t0, t1;
  int row;
  rsp_flame_view_match_item(w->flame, (uint32_t)w->match_index, &t0, &t1, &row);
  /* the frame in the middle, at the zoom shown unless it is longer than that; its row in sight */
  uint64_t span = w->vp.t1 - w->vp.t0, len = t1 > t0 ? t1 - t0 : 1;
  if (len * 10 > span * 8)
    span = len + len / 4;
  uint64_t mid = t0 + len / 2, a = mid > w->lo + span / 2 ? mid - span / 2 : w->lo;
  w->vp.t0 = a;
  w->vp.t1 = MIN(a + span, w->hi);
  int page = gtk_widget_get_allocated_height(w->flame_area) - style()->ruler_height;
  w->flame_scroll = flame_scroll_clamp(w, row * style()->row_height - page / 2);
  w->flame_match = (int)row;
  g_autofree char *what = g_strdup_printf(_("Match %d of %u (F3: next, Shift+F3: previous)"), w->match_index + 1, n);
  gtk_label_set_text(GTK_LABEL(w->status_label), what);
  gtk_widget_queue_draw(w->flame_area);
  gtk_widget_queue_draw(w->area);
  return true;
}
