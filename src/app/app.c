/* The GtkApplication and its window: widgets from window.ui, the running view drawn by render/,
 * interaction (zoom, pan, range select, tooltips, details, search, filter, sort), the loading
 * thread with progress and cancel, the lost-event warning. The app owns state, not geometry. */
#include "app/app.h"
#include "app/loader.h"
#include "app/compare-window.h"
#include "app/histogram-pane.h"

#include <glib/gi18n.h>
#include <gtk/gtk.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* from the GResource bundle compiled in (ui/rsp-view.gresource.xml) */
GResource *rsp_view_get_resource(void);

typedef struct win {
  GtkApplication *app;
  const rsp_app_options *options;
  GtkBuilder *builder;
  GtkWidget *window, *area, *progress_box, *progress_bar, *error_label, *loss_bar, *loss_label, *status_label;
  GtkWidget *details_view, *view_stack, *filter_entry, *search_entry, *sort_combo, *sleeps_check, *links_check;
  GtkAdjustment *vadj;
  rsp_loader *loader;
  guint progress_timer;
  char *path;
  rsp_model *model;
  rsp_running_view *view;
  rsp_paths *paths;       /* the flame view's process: its control paths */
  rsp_flame_view *flame;
  rsp_consolidated_view *consolidated;
  GtkWidget *flame_area, *flame_label, *consolidated_area;
  int flame_scroll;          /* pixels of the flame view above its top edge; -1: show path 0's base */
  rsp_viewport cvp;          /* the consolidated view's own (x is accumulated duration); scroll_y -1: bottom */
  uint64_t range_t0, range_t1; /* the time range selected (0, 0: none): the consolidated view gathers it */
  uint32_t flame_matches, consolidated_matches; /* the search's matches in the flame views */
  rsp_viewport vp;
  uint64_t lo, hi;
  /* pointer state */
  bool panning, selecting;
  double press_x, press_y, last_x, sel_x;
  bool moved;
  int exit_status;
  int self_test_step;
  rsp_histogram_pane *histograms; /* issue 7: the histograms pane below the views */
  uint64_t shown_t0, shown_t1;    /* the instance last double-clicked in it */
} win;

static const rsp_style *style(void)
{
  return rsp_style_default();
}

static GtkWidget *obj(win *w, const char *id)
{
  return GTK_WIDGET(gtk_builder_get_object(w->builder, id));
}

static void set_details(win *w, const char *text)
{
  GtkTextBuffer *b = gtk_text_view_get_buffer(GTK_TEXT_VIEW(w->details_view));
  gtk_text_buffer_set_text(b, text ? text : "", -1);
}

static void update_scroll_range(win *w)
{
  int h = gtk_widget_get_allocated_height(w->area);
  double content = w->view ? rsp_running_view_content_height(w->view, style()) : 0;
  double page = h - style()->ruler_height;
  if (page < 1)
    page = 1;
  gtk_adjustment_configure(w->vadj, MIN(gtk_adjustment_get_value(w->vadj), MAX(0, content - page)), 0,
                           MAX(content, page), style()->row_height, page * 0.9, page);
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

static void redraw(win *w)
{
  gtk_widget_queue_draw(w->area);
  gtk_widget_queue_draw(w->flame_area);
  gtk_widget_queue_draw(w->consolidated_area);
  update_status(w);
}

static gboolean on_draw(GtkWidget *area, cairo_t *cr, gpointer data)
{
  win *w = data;
  w->vp.width = gtk_widget_get_allocated_width(area);
  w->vp.height = gtk_widget_get_allocated_height(area);
  if (!w->view) {
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    return TRUE;
  }
  w->vp.scroll_y = (int)gtk_adjustment_get_value(w->vadj);
  rsp_running_view_draw(w->view, cr, &w->vp, style());
  if (w->selecting) {
    rsp_rgb c = style()->selection;
    cairo_set_source_rgba(cr, c.r, c.g, c.b, 0.25);
    double x0 = MIN(w->press_x, w->sel_x), x1 = MAX(w->press_x, w->sel_x);
    cairo_rectangle(cr, x0, style()->ruler_height, x1 - x0, w->vp.height);
    cairo_fill(cr);
  }
  return TRUE;
}

static void zoom(win *w, double factor, double x)
{
  if (!w->view)
    return;
  rsp_viewport_zoom(&w->vp, style(), factor, x, w->lo, w->hi);
  redraw(w);
}

static void rebuild_consolidated(win *w);

static void zoom_fit(win *w)
{
  w->vp.t0 = w->lo;
  w->vp.t1 = w->hi;
  if (w->histograms) /* the whole recording again: no time range filter */
    rsp_histogram_pane_set_range(w->histograms, 0, 0);
  if (w->range_t1) { /* and the consolidated view gathers all of it again */
    w->range_t0 = w->range_t1 = 0;
    rebuild_consolidated(w);
  }
  redraw(w);
}

/* A time range selected in one view filters the others: the running and flame views show it (they
 * share the viewport), the histograms count only it, the consolidated view gathers only it. */
static void select_range(win *w, uint64_t t0, uint64_t t1)
{
  w->vp.t0 = t0;
  w->vp.t1 = t1;
  w->range_t0 = t0;
  w->range_t1 = t1;
  if (w->histograms) /* the histograms follow the time range selected */
    rsp_histogram_pane_set_range(w->histograms, t0, t1);
  rebuild_consolidated(w);
  redraw(w);
}

static void pan(win *w, double dx)
{
  if (!w->view)
    return;
  rsp_viewport_pan(&w->vp, style(), dx, w->lo, w->hi);
  redraw(w);
}

static double plot_center(win *w)
{
  return style()->label_width + (w->vp.width - style()->label_width) / 2.0;
}

static gboolean on_scroll(GtkWidget *area, GdkEventScroll *ev, gpointer data)
{
  win *w = data;
  double dy = 0, dx = 0;
  if (ev->direction == GDK_SCROLL_UP)
    dy = -1;
  else if (ev->direction == GDK_SCROLL_DOWN)
    dy = 1;
  else if (ev->direction == GDK_SCROLL_LEFT)
    dx = -1;
  else if (ev->direction == GDK_SCROLL_RIGHT)
    dx = 1;
  else if (ev->direction == GDK_SCROLL_SMOOTH)
    gdk_event_get_scroll_deltas((GdkEvent *)ev, &dx, &dy);
  if (ev->state & GDK_CONTROL_MASK)
    zoom(w, pow(1.25, dy), ev->x);
  else if (ev->state & GDK_SHIFT_MASK || dx != 0)
    pan(w, (dx != 0 ? dx : dy) * 60);
  else {
    gtk_adjustment_set_value(w->vadj, gtk_adjustment_get_value(w->vadj) + dy * 3 * style()->row_height);
  }
  return TRUE;
}

static void drop_flame(win *w)
{
  if (w->view)
    rsp_running_view_set_wait_chain(w->view, NULL);
  rsp_consolidated_view_free(w->consolidated);
  w->consolidated = NULL;
  rsp_flame_view_free(w->flame);
  w->flame = NULL;
  rsp_paths_free(w->paths);
  w->paths = NULL;
}

/* The flame view of process PID: its control paths, shown on the Flame page. */
static bool open_flame(win *w, int32_t pid)
{
  if (!w->model)
    return false;
  drop_flame(w);
  g_autoptr(GError) error = NULL;
  w->paths = rsp_paths_build(w->model, pid, NULL, &error);
  if (!w->paths) {
    g_autofree char *msg = g_strdup_printf(_("No flame view: %s"), error ? error->message : "?");
    gtk_label_set_text(GTK_LABEL(w->flame_label), msg);
    return false;
  }
  w->flame = rsp_flame_view_new(w->paths);
  w->flame_scroll = -1;
  rebuild_consolidated(w);
  /* the process of interest's wait chain highlighted in the running view */
  rsp_running_view_set_wait_chain(w->view, w->paths);
  rsp_running_view_set_focus_pid(w->view, pid);
  const char *search = gtk_entry_get_text(GTK_ENTRY(w->search_entry));
  w->flame_matches = rsp_flame_view_set_search(w->flame, search);
  g_autofree char *msg = g_strdup_printf(_("Flame view of process %d: %u control paths, %u tasks in %u processes"),
                                         pid, rsp_paths_n_paths(w->paths), rsp_paths_n_tasks(w->paths),
                                         rsp_paths_n_processes(w->paths));
  gtk_label_set_text(GTK_LABEL(w->flame_label), msg);
  /* the process selected: the histograms show its profiles */
  rsp_histogram_pane_set_pid(w->histograms, pid);
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "flame");
  redraw(w);
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
  if (open_flame(w, pid))
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

static void draw_drag_selection(win *w, cairo_t *cr, int height)
{
  if (!w->selecting)
    return;
  rsp_rgb c = style()->selection;
  cairo_set_source_rgba(cr, c.r, c.g, c.b, 0.25);
  double x0 = MIN(w->press_x, w->sel_x), x1 = MAX(w->press_x, w->sel_x);
  cairo_rectangle(cr, x0, style()->ruler_height, x1 - x0, height);
  cairo_fill(cr);
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
  draw_drag_selection(w, cr, vp.height);
  return TRUE;
}

/* The consolidated view's total (x is accumulated duration, not time), at least 1 us. */
static uint64_t consolidated_total(win *w)
{
  uint64_t total = w->consolidated ? rsp_consolidated_view_total(w->consolidated) : 0;
  return total > 1000 ? total : 1000;
}

/* The consolidated view's own viewport: zoomed and panned along accumulated duration, scrolled
 * vertically (at first to its bottom, where the process of interest is). */
static rsp_viewport consolidated_viewport(win *w)
{
  rsp_viewport vp = w->cvp;
  vp.width = gtk_widget_get_allocated_width(w->consolidated_area);
  vp.height = gtk_widget_get_allocated_height(w->consolidated_area);
  int page = vp.height - style()->ruler_height;
  int content = w->consolidated ? rsp_consolidated_view_content_height(w->consolidated, style()) : 0;
  if (vp.scroll_y < 0)
    vp.scroll_y = content - page;
  vp.scroll_y = CLAMP(vp.scroll_y, 0, MAX(0, content - page));
  if (vp.t1 <= vp.t0)
    vp.t0 = 0, vp.t1 = consolidated_total(w);
  return vp;
}

/* The consolidated view of the flame view's paths, of the selected time range if there is one. */
static void rebuild_consolidated(win *w)
{
  rsp_consolidated_view_free(w->consolidated);
  w->consolidated = NULL;
  if (!w->paths)
    return;
  w->consolidated = w->range_t1 > w->range_t0
                        ? rsp_consolidated_view_new_range(w->paths, w->range_t0, w->range_t1)
                        : rsp_consolidated_view_new(w->paths);
  w->cvp = (rsp_viewport){ .t0 = 0, .t1 = consolidated_total(w), .scroll_y = -1 };
  w->consolidated_matches = rsp_consolidated_view_set_search(w->consolidated,
                                                             gtk_entry_get_text(GTK_ENTRY(w->search_entry)));
}

static gboolean on_consolidated_draw(GtkWidget *area, cairo_t *cr, gpointer data)
{
  win *w = data;
  if (!w->consolidated) {
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_move_to(cr, 10, 30);
    cairo_show_text(cr, _("Click a task's name in the Running view to see its process's consolidated flame view."));
    return TRUE;
  }
  rsp_viewport vp = consolidated_viewport(w);
  w->cvp.scroll_y = vp.scroll_y;
  rsp_consolidated_view_draw(w->consolidated, cr, &vp, style());
  draw_drag_selection(w, cr, vp.height);
  return TRUE;
}

static gboolean on_consolidated_tooltip(GtkWidget *area, gint x, gint y, gboolean kbd, GtkTooltip *tip,
                                        gpointer data)
{
  win *w = data;
  if (kbd || !w->consolidated)
    return FALSE;
  rsp_viewport vp = consolidated_viewport(w);
  const char *label;
  uint64_t dur;
  uint32_t n;
  if (!rsp_consolidated_view_node_at(w->consolidated, &vp, style(), x, y, &label, &dur, &n))
    return FALSE;
  char d[48];
  g_autofree char *text = g_strdup_printf(_("%s\n%s in %u frames"), label, rsp_format_duration(dur, d, sizeof d), n);
  gtk_tooltip_set_text(tip, text);
  return TRUE;
}

/* The element under (X, Y) of the flame view as a running-view hit, for the shared descriptions. */
static bool flame_hit(win *w, double x, double y, rsp_hit *hit)
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
  if (kbd || !flame_hit(w, x, y, &hit))
    return FALSE;
  g_autofree char *text = rsp_running_view_describe(w->view, &hit);
  gtk_tooltip_set_text(tip, text);
  return TRUE;
}

/* TASK's row in the running view scrolled into sight. */
static void scroll_to_task(win *w, rsp_task_id task)
{
  int y = rsp_running_view_task_y(w->view, &w->vp, style(), task);
  int h = gtk_widget_get_allocated_height(w->area);
  if (y >= 0 && (y < style()->ruler_height || y > h - 2 * style()->row_height))
    gtk_adjustment_set_value(w->vadj, gtk_adjustment_get_value(w->vadj) + y - style()->ruler_height -
                                          2 * style()->row_height);
}

/* A frame clicked in the flame view: its details, and its run or sleep (or its task's part of the
 * path) selected in the running view: outlined there, its row scrolled into sight. Its process
 * (the frame may be of a waker's, in the wait chain) is selected: the histograms follow it, as they
 * follow a process selected in the running view. */
static bool flame_click(win *w, double x, double y)
{
  rsp_hit hit;
  if (!flame_hit(w, x, y, &hit))
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
  set_details(w, full);
  const rsp_path_elem *e = rsp_paths_elem(w->paths, id);
  rsp_highlight hl = { e->task, e->start, e->end > e->start ? e->end : e->start + 1 };
  rsp_running_view_set_highlights(w->view, &hl, 1);
  scroll_to_task(w, e->task);
  if (w->histograms && e->task < rsp_model_n_tasks(w->model)) {
    const rsp_task *task = rsp_model_task(w->model, e->task);
    rsp_histogram_pane_set_pid(w->histograms, task->pid >= 0 ? task->pid : task->tid);
  }
  redraw(w);
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
    return on_scroll(area, ev, data); /* zoom and pan along time, shared with the running view */
  flame_scroll_by(w, (int)(dy * 3 * style()->row_height));
  return TRUE;
}

/* A button pressed in one of the views: the start of a pan (left button) or of a range selection
 * (right, or Shift+left); false for the second and third clicks of a double or triple click. */
static bool begin_drag(win *w, GtkWidget *area, const GdkEventButton *ev)
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

static gboolean on_flame_press(GtkWidget *area, GdkEventButton *ev, gpointer data)
{
  begin_drag(data, area, ev);
  return TRUE;
}

/* Dragging in the flame or consolidated view: pans (along x, and rows), or selects a range. */
static gboolean on_flame_motion(GtkWidget *area, GdkEventMotion *ev, gpointer data)
{
  win *w = data;
  if (fabs(ev->x - w->press_x) > 3 || fabs(ev->y - w->press_y) > 3)
    w->moved = true;
  if (w->panning && w->moved) {
    if (area == w->flame_area) {
      pan(w, w->last_x - ev->x);
      flame_scroll_by(w, (int)(w->press_y - ev->y));
    } else {
      rsp_viewport vp = consolidated_viewport(w);
      rsp_viewport_pan(&vp, style(), w->last_x - ev->x, 0, consolidated_total(w));
      w->cvp.t0 = vp.t0, w->cvp.t1 = vp.t1;
      w->cvp.scroll_y = vp.scroll_y + (int)(w->press_y - ev->y);
    }
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
  bool consolidated = area == w->consolidated_area;
  rsp_viewport vp = consolidated ? consolidated_viewport(w) : w->vp;
  if (!consolidated)
    vp.width = gtk_widget_get_allocated_width(area);
  if (w->selecting && fabs(w->sel_x - w->press_x) > 3 && (consolidated ? w->consolidated != NULL : w->flame != NULL)) {
    double x0 = MAX(MIN(w->press_x, w->sel_x), style()->label_width), x1 = MAX(w->press_x, w->sel_x);
    uint64_t t0 = rsp_viewport_time(&vp, style(), x0), t1 = rsp_viewport_time(&vp, style(), x1);
    if (consolidated && t1 > t0) { /* a span of accumulated duration: zoom to it */
      w->cvp.t0 = t0;
      w->cvp.t1 = t1;
    } else if (!consolidated && t1 > t0 + 1000) {
      w->selecting = false;
      select_range(w, t0, t1);
    }
  } else if (!w->moved && !consolidated) {
    flame_click(w, ev->x, ev->y);
  }
  w->selecting = w->panning = false;
  gtk_widget_queue_draw(area);
  return TRUE;
}

static gboolean on_key(GtkWidget *area, GdkEventKey *ev, gpointer data);

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
    return on_key(area, ev, data); /* zoom and pan along time, shared with the running view */
  }
}

/* The consolidated view: Ctrl+wheel zooms, Shift+wheel pans, the wheel scrolls its rows. */
static gboolean on_consolidated_scroll(GtkWidget *area, GdkEventScroll *ev, gpointer data)
{
  win *w = data;
  if (!w->consolidated)
    return TRUE;
  double dx = 0, dy = 0;
  if (ev->direction == GDK_SCROLL_UP || ev->direction == GDK_SCROLL_DOWN)
    dy = ev->direction == GDK_SCROLL_UP ? -1 : 1;
  else if (ev->direction == GDK_SCROLL_LEFT || ev->direction == GDK_SCROLL_RIGHT)
    dx = ev->direction == GDK_SCROLL_LEFT ? -1 : 1;
  else if (ev->direction == GDK_SCROLL_SMOOTH)
    gdk_event_get_scroll_deltas((GdkEvent *)ev, &dx, &dy);
  rsp_viewport vp = consolidated_viewport(w);
  if (ev->state & GDK_CONTROL_MASK)
    rsp_viewport_zoom(&vp, style(), pow(1.25, dy), ev->x, 0, consolidated_total(w));
  else if ((ev->state & GDK_SHIFT_MASK) || dx != 0)
    rsp_viewport_pan(&vp, style(), (dx != 0 ? dx : dy) * 60, 0, consolidated_total(w));
  else
    vp.scroll_y += (int)(dy * 3 * style()->row_height);
  w->cvp.t0 = vp.t0, w->cvp.t1 = vp.t1, w->cvp.scroll_y = vp.scroll_y;
  gtk_widget_queue_draw(area);
  return TRUE;
}

static gboolean on_consolidated_key(GtkWidget *area, GdkEventKey *ev, gpointer data)
{
  win *w = data;
  if (!w->consolidated)
    return FALSE;
  rsp_viewport vp = consolidated_viewport(w);
  double centre = style()->label_width + (vp.width - style()->label_width) / 2.0;
  double step = (vp.width - style()->label_width) * 0.1;
  uint64_t total = consolidated_total(w);
  switch (ev->keyval) {
  case GDK_KEY_plus:
  case GDK_KEY_equal:
  case GDK_KEY_KP_Add:
    rsp_viewport_zoom(&vp, style(), 0.5, centre, 0, total);
    break;
  case GDK_KEY_minus:
  case GDK_KEY_KP_Subtract:
    rsp_viewport_zoom(&vp, style(), 2.0, centre, 0, total);
    break;
  case GDK_KEY_Left:
    rsp_viewport_pan(&vp, style(), -step, 0, total);
    break;
  case GDK_KEY_Right:
    rsp_viewport_pan(&vp, style(), step, 0, total);
    break;
  case GDK_KEY_Up:
    vp.scroll_y -= style()->row_height;
    break;
  case GDK_KEY_Down:
    vp.scroll_y += style()->row_height;
    break;
  case GDK_KEY_Home:
  case GDK_KEY_0:
    vp.t0 = 0;
    vp.t1 = total;
    break;
  default:
    return FALSE;
  }
  w->cvp.t0 = vp.t0, w->cvp.t1 = vp.t1, w->cvp.scroll_y = vp.scroll_y;
  gtk_widget_queue_draw(area);
  return TRUE;
}

static void show_hit(win *w, double x, double y)
{
  if (!w->view)
    return;
  rsp_hit hit;
  rsp_running_view_hit(w->view, &w->vp, style(), x, y, &hit);
  g_autofree char *text = rsp_running_view_describe(w->view, &hit);
  set_details(w, text);
  if (hit.kind == RSP_HIT_TASK || hit.kind == RSP_HIT_PROCESS) {
    /* a name: its process and the tasks that woke it are highlighted; on the name column it also
     * launches the flame view of that process */
    rsp_running_view_set_focus_pid(w->view, hit.pid);
    if (w->histograms) /* the histograms follow the process selected */
      rsp_histogram_pane_set_pid(w->histograms, hit.pid);
    if (x < style()->label_width)
      open_flame(w, hit.pid);
    redraw(w);
  }
}

static gboolean on_press(GtkWidget *area, GdkEventButton *ev, gpointer data)
{
  return begin_drag(data, area, ev);
}

static gboolean on_motion(GtkWidget *area, GdkEventMotion *ev, gpointer data)
{
  win *w = data;
  if (fabs(ev->x - w->press_x) > 3 || fabs(ev->y - w->press_y) > 3)
    w->moved = true;
  if (w->panning && w->moved) {
    pan(w, w->last_x - ev->x);
    w->last_x = ev->x;
  } else if (w->selecting) {
    w->sel_x = ev->x;
    gtk_widget_queue_draw(area);
  }
  return TRUE;
}

static gboolean on_release(GtkWidget *area, GdkEventButton *ev, gpointer data)
{
  win *w = data;
  if (w->selecting && fabs(w->sel_x - w->press_x) > 3 && w->view) {
    double x0 = MAX(MIN(w->press_x, w->sel_x), style()->label_width), x1 = MAX(w->press_x, w->sel_x);
    uint64_t t0 = rsp_viewport_time(&w->vp, style(), x0), t1 = rsp_viewport_time(&w->vp, style(), x1);
    if (t1 > t0 + 1000)
      select_range(w, t0, t1);
  } else if (!w->moved) {
    show_hit(w, ev->x, ev->y);
  }
  w->selecting = w->panning = false;
  redraw(w);
  return TRUE;
}

static gboolean on_key(GtkWidget *area, GdkEventKey *ev, gpointer data)
{
  win *w = data;
  double step = (w->vp.width - style()->label_width) * 0.1;
  switch (ev->keyval) {
  case GDK_KEY_plus:
  case GDK_KEY_equal:
  case GDK_KEY_KP_Add:
    zoom(w, 0.5, plot_center(w));
    return TRUE;
  case GDK_KEY_minus:
  case GDK_KEY_KP_Subtract:
    zoom(w, 2.0, plot_center(w));
    return TRUE;
  case GDK_KEY_Left:
    pan(w, -step);
    return TRUE;
  case GDK_KEY_Right:
    pan(w, step);
    return TRUE;
  case GDK_KEY_Up:
    gtk_adjustment_set_value(w->vadj, gtk_adjustment_get_value(w->vadj) - style()->row_height);
    return TRUE;
  case GDK_KEY_Down:
    gtk_adjustment_set_value(w->vadj, gtk_adjustment_get_value(w->vadj) + style()->row_height);
    return TRUE;
  case GDK_KEY_Home:
  case GDK_KEY_0:
    zoom_fit(w);
    return TRUE;
  default:
    return FALSE;
  }
}

static gboolean on_query_tooltip(GtkWidget *area, gint x, gint y, gboolean kbd, GtkTooltip *tip, gpointer data)
{
  win *w = data;
  if (!w->view || kbd)
    return FALSE;
  rsp_hit hit;
  rsp_running_view_hit(w->view, &w->vp, style(), x, y, &hit);
  if (hit.kind == RSP_HIT_NOTHING)
    return FALSE;
  g_autofree char *text = rsp_running_view_describe(w->view, &hit);
  /* the tooltip keeps the head; the details pane (click) has the whole stack */
  char **lines = g_strsplit(text, "\n", 9);
  if (g_strv_length(lines) == 9)
    g_free(lines[8]), lines[8] = NULL;
  g_autofree char *head = g_strjoinv("\n", lines);
  g_strfreev(lines);
  gtk_tooltip_set_text(tip, head);
  return TRUE;
}

static void on_vadj_changed(GtkAdjustment *adj, gpointer data)
{
  gtk_widget_queue_draw(((win *)data)->area);
}

static void on_size_allocate(GtkWidget *area, GdkRectangle *alloc, gpointer data)
{
  update_scroll_range(data);
}

static void on_filter(GtkSearchEntry *entry, gpointer data)
{
  win *w = data;
  if (!w->view)
    return;
  rsp_running_view_set_filter(w->view, gtk_entry_get_text(GTK_ENTRY(entry)));
  gtk_adjustment_set_value(w->vadj, 0);
  update_scroll_range(w);
  redraw(w);
}

static void on_search(GtkSearchEntry *entry, gpointer data)
{
  win *w = data;
  if (!w->view)
    return;
  const char *text = gtk_entry_get_text(GTK_ENTRY(entry));
  uint32_t n = rsp_running_view_set_search(w->view, text);
  w->flame_matches = w->flame ? rsp_flame_view_set_search(w->flame, text) : 0;
  w->consolidated_matches = w->consolidated ? rsp_consolidated_view_set_search(w->consolidated, text) : 0;
  if (*text) {
    g_autofree char *s = g_strdup_printf(_("%u matches for \"%s\" (tasks, and sleeps whose label matches)"), n, text);
    g_autofree char *f = w->flame ? g_strdup_printf(_("%s\nFlame view: %u functions or processes match; consolidated flame view: %u frames"),
                                                    s, w->flame_matches, w->consolidated_matches)
                                  : NULL;
    set_details(w, f ? f : s);
  }
  redraw(w);
}

static void on_sort(GtkComboBox *combo, gpointer data)
{
  win *w = data;
  if (!w->view)
    return;
  const char *id = gtk_combo_box_get_active_id(combo);
  rsp_running_view_set_sort(w->view, !g_strcmp0(id, "name")      ? RSP_SORT_BY_NAME
                                     : !g_strcmp0(id, "runtime") ? RSP_SORT_BY_RUNTIME
                                                                 : RSP_SORT_BY_PID);
  redraw(w);
}

static void on_toggle(GtkToggleButton *b, gpointer data)
{
  win *w = data;
  if (!w->view)
    return;
  rsp_running_view_set_show_sleeps(w->view, gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(w->sleeps_check)));
  rsp_running_view_set_show_links(w->view, gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(w->links_check)));
  redraw(w);
}

static void apply_widgets(win *w)
{
  on_toggle(NULL, w);
  on_sort(GTK_COMBO_BOX(w->sort_combo), w);
  on_filter(GTK_SEARCH_ENTRY(w->filter_entry), w);
  on_search(GTK_SEARCH_ENTRY(w->search_entry), w);
}

static gboolean self_test_step(gpointer data);

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

static void on_loaded(rsp_model *model, rsp_running_view *view, const GError *error, void *data)
{
  win *w = data;
  rsp_loader_free(w->loader);
  w->loader = NULL;
  gtk_widget_hide(w->progress_box);
  if (!model) {
    g_autofree char *msg = g_strdup_printf(_("Could not load %s: %s"), w->path, error ? error->message : "?");
    gtk_label_set_text(GTK_LABEL(w->error_label), msg);
    gtk_widget_show(w->error_label);
    g_printerr("rsp-view: %s\n", msg);
    if (w->options->self_test) {
      w->exit_status = 1;
      g_application_quit(G_APPLICATION(w->app));
    }
    return;
  }
  gtk_widget_hide(w->error_label);
  set_details(w, _("Click a run, a sleep or a link to see its details here: times, durations, full stacks, who "
                   "woke it."));
  drop_flame(w);
  rsp_histogram_pane_set_model(w->histograms, NULL); /* before the old model goes */
  gtk_label_set_text(GTK_LABEL(w->flame_label), _("Click a task's name in the Running view to see its process's flame view."));
  if (w->view)
    rsp_running_view_free(w->view);
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
  rsp_histogram_pane_set_model(w->histograms, model);
  char **warnings = rsp_model_loss_warnings(model);
  if (warnings && warnings[0]) {
    g_autofree char *text = g_strjoinv("\n", warnings);
    gtk_label_set_text(GTK_LABEL(w->loss_label), text);
    gtk_widget_show(w->loss_bar);
  } else {
    gtk_widget_hide(w->loss_bar);
  }
  g_strfreev(warnings);
  g_autofree char *title = g_strdup_printf("rsp-view — %s", w->path);
  gtk_window_set_title(GTK_WINDOW(w->window), title);
  apply_widgets(w);
  update_scroll_range(w);
  redraw(w);
  if (w->options->flame_pid >= 0)
    open_flame(w, w->options->flame_pid);
  if (w->options->self_test)
    g_timeout_add(200, self_test_step, w);
}

static void start_load(win *w, const char *path)
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
      start_load(w, file);
  }
  gtk_widget_destroy(dlg);
}

/* Accessible names, for screen readers and for the GUI tests (which find widgets by them). */
static const struct {
  const char *id, *name;
} accessible_names[] = {
  { "open_button", N_("Open recording") },
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
};

static void set_accessible_names(win *w)
{
  for (unsigned i = 0; i < G_N_ELEMENTS(accessible_names); i++) {
    AtkObject *a = gtk_widget_get_accessible(obj(w, accessible_names[i].id));
    atk_object_set_name(a, _(accessible_names[i].name));
  }
}

/* ---- Self-test (rsp-view --self-test FILE, run by tests/gui under Xvfb) ---------------------- */
static bool check(win *w, bool ok, const char *what)
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
  return check(data, ok, what);
}

/* The histograms pane's own checks, then the bucket's instances seen highlighted in the running view. */
static void histograms_self_test(win *w)
{
  check(w, gtk_widget_get_mapped(rsp_histogram_pane_widget(w->histograms)), "the histograms pane is on screen");
  /* the task name clicked above selected its process: the histograms followed */
  rsp_hit hit;
  rsp_running_view_hit(w->view, &w->vp, style(), 20, style()->ruler_height + style()->row_height * 1.5, &hit);
  g_autofree char *what = g_strdup_printf("selecting process %d in the running view filters the histograms (%d)",
                                          hit.pid, rsp_histogram_pane_pid(w->histograms));
  check(w, hit.pid >= 0 && rsp_histogram_pane_pid(w->histograms) == hit.pid, what);
  rsp_histogram_pane_self_test(w->histograms, self_check, w);
  uint32_t n = rsp_histogram_pane_n_highlighted(w->histograms);
  g_autofree char *hl = g_strdup_printf("the clicked bucket's %u instances are highlighted in the running view (%u)", n,
                                        rsp_running_view_n_highlights(w->view));
  check(w, n > 0 && rsp_running_view_n_highlights(w->view) == n, hl);
  g_autofree char *shown = g_strdup_printf("double-clicking an instance shows it in the running view (%" G_GUINT64_FORMAT
                                           "..%" G_GUINT64_FORMAT " in %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ")",
                                           w->shown_t0, w->shown_t1, w->vp.t0, w->vp.t1);
  check(w, w->shown_t1 > w->shown_t0 && w->vp.t0 <= w->shown_t0 && w->shown_t1 <= w->vp.t1 &&
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
  check(w, base_y >= style()->ruler_height && base_y + rh <= h, base);
  /* search: the process's own name is on its frames in both flame views */
  const rsp_task *t = rsp_model_task(w->model, rsp_paths_task(w->paths, 0));
  gtk_entry_set_text(GTK_ENTRY(w->search_entry), t->comm);
  on_search(GTK_SEARCH_ENTRY(w->search_entry), w);
  g_autofree char *found = g_strdup_printf("searching \"%s\" finds it in the flame view (%u) and the consolidated view (%u)",
                                           t->comm, w->flame_matches, w->consolidated_matches);
  check(w, w->flame_matches > 0 && w->consolidated_matches > 0, found);
  gtk_entry_set_text(GTK_ENTRY(w->search_entry), "");
  on_search(GTK_SEARCH_ENTRY(w->search_entry), w);
  check(w, w->flame_matches == 0, "clearing the search clears the flame view's matches");
  /* a frame clicked: its run or sleep outlined in the running view, its process filtering the histograms
   * (cleared first: the click must set it) */
  if (w->histograms)
    rsp_histogram_pane_set_pid(w->histograms, -1);
  bool clicked = false;
  double x = style()->label_width + (gtk_widget_get_allocated_width(w->flame_area) - style()->label_width) / 2.0,
         cx = 0, cy = 0;
  for (int y = h - rh / 2; y > style()->ruler_height && !clicked; y -= rh)
    for (double dx = 0; dx < 600 && !clicked; dx += 7)
      if ((clicked = flame_click(w, x + dx - 300, y)))
        cx = x + dx - 300, cy = y;
  check(w, clicked && rsp_running_view_n_highlights(w->view) == 1,
        "a frame clicked in the flame view is selected in the running view");
  rsp_hit under;
  if (clicked && w->histograms && flame_hit(w, cx, cy, &under)) {
    const rsp_task *ct = rsp_model_task(w->model, under.task);
    int32_t cpid = ct->pid >= 0 ? ct->pid : ct->tid;
    g_autofree char *filtered = g_strdup_printf("the clicked frame's process %d (%s) filters the histograms (%d)", cpid,
                                                ct->comm, rsp_histogram_pane_pid(w->histograms));
    check(w, cpid >= 0 && rsp_histogram_pane_pid(w->histograms) == cpid, filtered);
  }
  pump();
  /* the consolidated view zooms and pans on its own */
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "consolidated");
  settle(w->consolidated_area);
  uint64_t total = consolidated_total(w);
  send_key(w, w->consolidated_area, GDK_KEY_plus, on_consolidated_key);
  send_key(w, w->consolidated_area, GDK_KEY_Right, on_consolidated_key);
  g_autofree char *zoomed = g_strdup_printf("+ and Right zoom and pan the consolidated view (%" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT ")",
                                            w->cvp.t0, w->cvp.t1, total);
  check(w, w->cvp.t1 - w->cvp.t0 < total * 3 / 4 && w->cvp.t0 > 0, zoomed);
  pump();
  send_key(w, w->consolidated_area, GDK_KEY_Home, on_consolidated_key);
  check(w, w->cvp.t0 == 0 && w->cvp.t1 == total, "Home shows all of the consolidated view");
  /* a time range selected: the flame view shows it, the consolidated view gathers only it */
  uint64_t a = w->lo + (w->hi - w->lo) / 4, b = w->lo + (w->hi - w->lo) / 2;
  select_range(w, a, b);
  pump();
  g_autofree char *ranged = g_strdup_printf("a time range selected filters the consolidated view (%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT ")",
                                            rsp_consolidated_view_total(w->consolidated), total);
  check(w, w->vp.t0 == a && w->vp.t1 == b && rsp_consolidated_view_total(w->consolidated) < total, ranged);
  zoom_fit(w);
  check(w, consolidated_total(w) == total, "Fit gathers the whole recording in the consolidated view again");
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "flame");
  pump();
}

static gboolean self_test_step(gpointer data)
{
  win *w = data;
  for (unsigned i = 0; i < G_N_ELEMENTS(accessible_names); i++) {
    AtkObject *a = gtk_widget_get_accessible(obj(w, accessible_names[i].id));
    const char *name = atk_object_get_name(a);
    g_autofree char *what = g_strdup_printf("accessible name of %s is \"%s\"", accessible_names[i].id,
                                            name ? name : "(null)");
    check(w, name && !strcmp(name, _(accessible_names[i].name)), what);
  }
  check(w, w->model && rsp_model_n_runs(w->model) > 0, "the recording loaded, with runs");
  check(w, gtk_widget_get_mapped(w->area), "the running view is on screen");
  /* zoom with the keyboard: the visible span halves */
  uint64_t span = w->vp.t1 - w->vp.t0;
  GdkEvent *key = gdk_event_new(GDK_KEY_PRESS);
  key->key.keyval = GDK_KEY_plus;
  key->key.window = g_object_ref(gtk_widget_get_window(w->area));
  on_key(w->area, &key->key, w);
  gdk_event_free(key);
  check(w, w->vp.t1 - w->vp.t0 < span * 3 / 4, "+ zooms in");
  gtk_button_clicked(GTK_BUTTON(obj(w, "zoom_fit_button")));
  check(w, w->vp.t0 == w->lo && w->vp.t1 == w->hi, "Fit shows the whole recording");
  gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(w->sleeps_check), FALSE);
  gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(w->sleeps_check), TRUE);
  uint32_t rows = rsp_running_view_n_rows(w->view);
  gtk_entry_set_text(GTK_ENTRY(w->filter_entry), "no-such-task-name-xyz");
  on_filter(GTK_SEARCH_ENTRY(w->filter_entry), w);
  check(w, rsp_running_view_n_rows(w->view) == 0, "a filter that matches nothing leaves no rows");
  gtk_entry_set_text(GTK_ENTRY(w->filter_entry), "");
  on_filter(GTK_SEARCH_ENTRY(w->filter_entry), w);
  check(w, rsp_running_view_n_rows(w->view) == rows, "clearing the filter brings the rows back");
  gtk_combo_box_set_active_id(GTK_COMBO_BOX(w->sort_combo), "runtime");
  /* the flame view of the recording's workload (else of the busiest process), launched as a
   * click on its name does */
  int32_t pid = rsp_model_workload_pid(w->model);
  if (pid >= 0 && !w->paths) {
    gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "consolidated");
    pump();
    check(w, w->paths && !strcmp(gtk_stack_get_visible_child_name(GTK_STACK(w->view_stack)), "consolidated"),
          "the Consolidated page, shown first, opens on the recorded command's process");
    check(w, rsp_histogram_pane_pid(w->histograms) == pid, "the histograms show the flame view's process");
    gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "running");
    pump();
  }
  if (pid < 0) {
    rsp_hit first;
    rsp_running_view_hit(w->view, &w->vp, style(), 20, style()->ruler_height + 1, &first);
    pid = first.pid;
  }
  check(w, open_flame(w, pid), "the flame view of the workload opens");
  pump();
  check(w, !strcmp(gtk_stack_get_visible_child_name(GTK_STACK(w->view_stack)), "flame"), "switched to the flame page");
  check(w, gtk_widget_get_mapped(w->flame_area), "the flame view is on screen");
  check(w, w->paths && rsp_paths_n_paths(w->paths) > 0, "the flame view has control paths");
  flame_self_test(w, pid);
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "consolidated");
  pump();
  check(w, gtk_widget_get_mapped(w->consolidated_area) && w->consolidated &&
               rsp_consolidated_view_total(w->consolidated) > 0,
        "the consolidated flame view is on screen, with frames");
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "running");
  pump();
  check(w, gtk_widget_get_mapped(w->area), "switched back to the running view");
  /* a click on a task row fills the details pane */
  show_hit(w, 20, style()->ruler_height + style()->row_height * 1.5);
  GtkTextBuffer *b = gtk_text_view_get_buffer(GTK_TEXT_VIEW(w->details_view));
  GtkTextIter s, e;
  gtk_text_buffer_get_bounds(b, &s, &e);
  g_autofree char *details = gtk_text_buffer_get_text(b, &s, &e, FALSE);
  check(w, details && strstr(details, "runtime"), "clicking a task name shows its totals in the details pane");
  gtk_widget_queue_draw(w->area);
  pump();
  histograms_self_test(w);
  printf("self-test: done, closing\n");
  fflush(stdout);
  gtk_widget_destroy(w->window);
  return G_SOURCE_REMOVE;
}

static void zoom_in_clicked(GtkButton *b, gpointer data)
{
  win *w = data;
  zoom(w, 0.5, plot_center(w));
}

static void zoom_out_clicked(GtkButton *b, gpointer data)
{
  win *w = data;
  zoom(w, 2.0, plot_center(w));
}

static void zoom_fit_clicked(GtkButton *b, gpointer data)
{
  zoom_fit(data);
}

static void on_destroy(GtkWidget *widget, gpointer data)
{
  win *w = data;
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
    scroll_to_task(w, items[0].task);
  redraw(w);
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
  redraw(w);
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
  GtkWidget *split = gtk_paned_new(GTK_ORIENTATION_VERTICAL);
  g_object_ref(w->view_stack);
  gtk_container_remove(GTK_CONTAINER(paned), w->view_stack);
  gtk_paned_pack1(GTK_PANED(split), w->view_stack, TRUE, FALSE);
  gtk_paned_pack2(GTK_PANED(split), rsp_histogram_pane_widget(w->histograms), TRUE, TRUE);
  g_object_unref(w->view_stack);
  gtk_paned_set_position(GTK_PANED(split), 380);
  gtk_paned_pack1(GTK_PANED(paned), split, TRUE, TRUE);
  gtk_widget_show(split);
  atk_object_set_name(gtk_widget_get_accessible(split), _("Views and histograms"));
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
  return check(data, ok, what);
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
  w->area = obj(w, "running_area");
  w->progress_box = obj(w, "progress_box");
  w->progress_bar = obj(w, "progress_bar");
  w->error_label = obj(w, "error_label");
  w->loss_bar = obj(w, "loss_bar");
  w->loss_label = obj(w, "loss_label");
  w->status_label = obj(w, "status_label");
  w->details_view = obj(w, "details_view");
  w->view_stack = obj(w, "view_stack");
  g_signal_connect(w->view_stack, "notify::visible-child-name", G_CALLBACK(on_view_page), w);
  w->filter_entry = obj(w, "filter_entry");
  w->search_entry = obj(w, "search_entry");
  w->sort_combo = obj(w, "sort_combo");
  w->sleeps_check = obj(w, "sleeps_check");
  w->links_check = obj(w, "links_check");
  w->vadj = GTK_ADJUSTMENT(gtk_builder_get_object(w->builder, "vadjustment"));
  w->flame_area = obj(w, "flame_area");
  w->flame_label = obj(w, "flame_label");
  gtk_widget_add_events(w->flame_area, GDK_SCROLL_MASK | GDK_SMOOTH_SCROLL_MASK | GDK_BUTTON_PRESS_MASK |
                                           GDK_BUTTON_RELEASE_MASK | GDK_POINTER_MOTION_MASK | GDK_KEY_PRESS_MASK);
  g_signal_connect(w->flame_area, "draw", G_CALLBACK(on_flame_draw), w);
  w->consolidated_area = obj(w, "consolidated_area");
  g_signal_connect(w->consolidated_area, "draw", G_CALLBACK(on_consolidated_draw), w);
  g_signal_connect(w->consolidated_area, "query-tooltip", G_CALLBACK(on_consolidated_tooltip), w);
  gtk_widget_add_events(w->consolidated_area, GDK_SCROLL_MASK | GDK_SMOOTH_SCROLL_MASK | GDK_BUTTON_PRESS_MASK |
                                                  GDK_BUTTON_RELEASE_MASK | GDK_POINTER_MOTION_MASK |
                                                  GDK_KEY_PRESS_MASK);
  gtk_widget_set_can_focus(w->consolidated_area, TRUE);
  g_signal_connect(w->consolidated_area, "scroll-event", G_CALLBACK(on_consolidated_scroll), w);
  g_signal_connect(w->consolidated_area, "button-press-event", G_CALLBACK(on_flame_press), w);
  g_signal_connect(w->consolidated_area, "motion-notify-event", G_CALLBACK(on_flame_motion), w);
  g_signal_connect(w->consolidated_area, "button-release-event", G_CALLBACK(on_flame_release), w);
  g_signal_connect(w->consolidated_area, "key-press-event", G_CALLBACK(on_consolidated_key), w);
  g_signal_connect(w->flame_area, "motion-notify-event", G_CALLBACK(on_flame_motion), w);
  g_signal_connect(w->flame_area, "button-release-event", G_CALLBACK(on_flame_release), w);
  g_signal_connect(w->flame_area, "query-tooltip", G_CALLBACK(on_flame_tooltip), w);
  g_signal_connect(w->flame_area, "button-press-event", G_CALLBACK(on_flame_press), w);
  g_signal_connect(w->flame_area, "scroll-event", G_CALLBACK(on_flame_scroll), w);
  g_signal_connect(w->flame_area, "key-press-event", G_CALLBACK(on_flame_key), w);
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

  gtk_widget_add_events(w->area, GDK_SCROLL_MASK | GDK_SMOOTH_SCROLL_MASK | GDK_BUTTON_PRESS_MASK |
                                     GDK_BUTTON_RELEASE_MASK | GDK_POINTER_MOTION_MASK | GDK_KEY_PRESS_MASK);
  g_signal_connect(w->area, "draw", G_CALLBACK(on_draw), w);
  g_signal_connect(w->area, "scroll-event", G_CALLBACK(on_scroll), w);
  g_signal_connect(w->area, "button-press-event", G_CALLBACK(on_press), w);
  g_signal_connect(w->area, "motion-notify-event", G_CALLBACK(on_motion), w);
  g_signal_connect(w->area, "button-release-event", G_CALLBACK(on_release), w);
  g_signal_connect(w->area, "key-press-event", G_CALLBACK(on_key), w);
  g_signal_connect(w->area, "query-tooltip", G_CALLBACK(on_query_tooltip), w);
  g_signal_connect(w->area, "size-allocate", G_CALLBACK(on_size_allocate), w);
  g_signal_connect(w->vadj, "value-changed", G_CALLBACK(on_vadj_changed), w);
  g_signal_connect(w->filter_entry, "search-changed", G_CALLBACK(on_filter), w);
  g_signal_connect(w->search_entry, "search-changed", G_CALLBACK(on_search), w);
  g_signal_connect(w->sort_combo, "changed", G_CALLBACK(on_sort), w);
  g_signal_connect(w->sleeps_check, "toggled", G_CALLBACK(on_toggle), w);
  g_signal_connect(w->links_check, "toggled", G_CALLBACK(on_toggle), w);
  g_signal_connect(obj(w, "zoom_in_button"), "clicked", G_CALLBACK(zoom_in_clicked), w);
  g_signal_connect(obj(w, "zoom_out_button"), "clicked", G_CALLBACK(zoom_out_clicked), w);
  g_signal_connect(obj(w, "zoom_fit_button"), "clicked", G_CALLBACK(zoom_fit_clicked), w);
  g_signal_connect(obj(w, "cancel_button"), "clicked", G_CALLBACK(on_cancel), w);
  g_signal_connect(obj(w, "open_button"), "clicked", G_CALLBACK(on_open), w);
  g_signal_connect(w->window, "destroy", G_CALLBACK(on_destroy), w);
  gtk_widget_show(w->window);
  if (w->options->file)
    start_load(w, w->options->file);
  else
    set_details(w, _("Open a recording (perf.data) with the Open button."));
}

int rsp_app_run(const rsp_app_options *options)
{
  win *w = g_new0(win, 1);
  w->options = options;
  w->app = gtk_application_new("org.rsp.View", G_APPLICATION_NON_UNIQUE);
  g_signal_connect(w->app, "activate", G_CALLBACK(on_activate), w);
  char *argv[] = { (char *)"rsp-view", NULL };
  int status = g_application_run(G_APPLICATION(w->app), 1, argv);
  if (w->progress_timer)
    g_source_remove(w->progress_timer);
  drop_flame(w);
  rsp_histogram_pane_free(w->histograms); /* waits for its worker: before the model goes */
  if (w->view)
    rsp_running_view_free(w->view);
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
