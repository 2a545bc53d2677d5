/* The process running view pane: tasks in rows along time (render/running-view.c), scrolled,
 * zoomed and panned, clicked for details, filtered, sorted, its sleeps and links toggled. */
#include "app/app-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

void running_pane_update_scroll(win *w)
{
  int h = gtk_widget_get_allocated_height(w->area);
  double content = w->view ? rsp_running_view_content_height(w->view, style()) : 0;
  double page = h - style()->ruler_height;
  if (page < 1)
    page = 1;
  gtk_adjustment_configure(w->vadj, MIN(gtk_adjustment_get_value(w->vadj), MAX(0, content - page)), 0,
                           MAX(content, page), style()->row_height, page * 0.9, page);
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

gboolean running_pane_scroll_event(GtkWidget *area, GdkEventScroll *ev, gpointer data)
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
    app_zoom(w, pow(APP_WHEEL_ZOOM, dy), ev->x);
  else if (ev->state & GDK_SHIFT_MASK || dx != 0)
    app_pan(w, (dx != 0 ? dx : dy) * 60);
  else {
    gtk_adjustment_set_value(w->vadj, gtk_adjustment_get_value(w->vadj) + dy * 3 * style()->row_height);
  }
  return TRUE;
}

/* TASK's row in the running view scrolled into sight. */
void running_pane_scroll_to_task(win *w, rsp_task_id task)
{
  int y = rsp_running_view_task_y(w->view, &w->vp, style(), task);
  int h = gtk_widget_get_allocated_height(w->area);
  if (y >= 0 && (y < style()->ruler_height || y > h - 2 * style()->row_height))
    gtk_adjustment_set_value(w->vadj, gtk_adjustment_get_value(w->vadj) + y - style()->ruler_height -
                                          2 * style()->row_height);
}

void running_pane_show_hit(win *w, double x, double y)
{
  if (!w->view)
    return;
  rsp_hit hit;
  w->vp.scroll_y = (int)gtk_adjustment_get_value(w->vadj); /* as drawn next, even before a draw */
  rsp_running_view_hit(w->view, &w->vp, style(), x, y, &hit);
  if (hit.kind == RSP_HIT_FOLD) { /* the other processes shown, or folded away again */
    rsp_running_view_set_others_folded(w->view, !rsp_running_view_others_folded(w->view));
    running_pane_update_scroll(w);
    app_redraw(w);
    return;
  }
  g_autofree char *text = rsp_running_view_describe(w->view, &hit);
  app_set_details(w, text);
  if (hit.kind == RSP_HIT_TASK || hit.kind == RSP_HIT_PROCESS) {
    /* a name: its process and the tasks that woke it are highlighted; on the name column it also
     * launches the flame view of that process */
    rsp_running_view_set_focus_pid(w->view, hit.pid);
    if (w->histograms) /* the histograms follow the process selected */
      rsp_histogram_pane_set_pid(w->histograms, hit.pid);
    if (x < style()->label_width)
      flame_pane_open(w, hit.pid);
    app_redraw(w);
  }
}

static gboolean on_press(GtkWidget *area, GdkEventButton *ev, gpointer data)
{
  return app_begin_drag(data, area, ev);
}

static gboolean on_motion(GtkWidget *area, GdkEventMotion *ev, gpointer data)
{
  win *w = data;
  if (fabs(ev->x - w->press_x) > 3 || fabs(ev->y - w->press_y) > 3)
    w->moved = true;
  if (w->panning && w->moved) {
    app_pan(w, w->last_x - ev->x);
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
      app_select_range(w, t0, t1);
  } else if (!w->moved) {
    running_pane_show_hit(w, ev->x, ev->y);
  }
  w->selecting = w->panning = false;
  app_redraw(w);
  return TRUE;
}

gboolean running_pane_key(GtkWidget *area, GdkEventKey *ev, gpointer data)
{
  win *w = data;
  double step = (w->vp.width - style()->label_width) * 0.1;
  switch (ev->keyval) {
  case GDK_KEY_plus:
  case GDK_KEY_equal:
  case GDK_KEY_KP_Add:
    app_zoom(w, 0.5, app_plot_center(w));
    return TRUE;
  case GDK_KEY_minus:
  case GDK_KEY_KP_Subtract:
    app_zoom(w, 2.0, app_plot_center(w));
    return TRUE;
  case GDK_KEY_Left:
    app_pan(w, -step);
    return TRUE;
  case GDK_KEY_Right:
    app_pan(w, step);
    return TRUE;
  case GDK_KEY_Up:
    gtk_adjustment_set_value(w->vadj, gtk_adjustment_get_value(w->vadj) - style()->row_height);
    return TRUE;
  case GDK_KEY_Down:
    gtk_adjustment_set_value(w->vadj, gtk_adjustment_get_value(w->vadj) + style()->row_height);
    return TRUE;
  case GDK_KEY_Home:
  case GDK_KEY_0:
    app_zoom_fit(w);
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
  running_pane_update_scroll(data);
}

void running_pane_on_filter(GtkSearchEntry *entry, gpointer data)
{
  win *w = data;
  if (!w->view)
    return;
  rsp_running_view_set_filter(w->view, gtk_entry_get_text(GTK_ENTRY(entry)));
  gtk_adjustment_set_value(w->vadj, 0);
  running_pane_update_scroll(w);
  app_redraw(w);
}

void running_pane_on_sort(GtkComboBox *combo, gpointer data)
{
  win *w = data;
  if (!w->view)
    return;
  const char *id = gtk_combo_box_get_active_id(combo);
  rsp_running_view_set_sort(w->view, !g_strcmp0(id, "name")      ? RSP_SORT_BY_NAME
                                     : !g_strcmp0(id, "runtime") ? RSP_SORT_BY_RUNTIME
                                                                 : RSP_SORT_BY_PID);
  app_redraw(w);
}

void running_pane_on_toggle(GtkToggleButton *b, gpointer data)
{
  win *w = data;
  if (!w->view)
    return;
  rsp_running_view_set_show_sleeps(w->view, gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(w->sleeps_check)));
  rsp_running_view_set_show_links(w->view, gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(w->links_check)));
  if (w->flame) /* the flame view's links too */
    rsp_flame_view_set_show_links(w->flame, gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(w->links_check)));
  app_redraw(w);
}


void running_pane_attach(win *w)
{
  w->area = obj(w, "running_area");
  w->vadj = GTK_ADJUSTMENT(gtk_builder_get_object(w->builder, "vadjustment"));
  w->filter_entry = obj(w, "filter_entry");
  w->sort_combo = obj(w, "sort_combo");
  w->sleeps_check = obj(w, "sleeps_check");
  w->links_check = obj(w, "links_check");
  gtk_widget_add_events(w->area, GDK_SCROLL_MASK | GDK_SMOOTH_SCROLL_MASK | GDK_BUTTON_PRESS_MASK |
                                     GDK_BUTTON_RELEASE_MASK | GDK_POINTER_MOTION_MASK | GDK_KEY_PRESS_MASK);
  g_signal_connect(w->area, "draw", G_CALLBACK(on_draw), w);
  g_signal_connect(w->area, "scroll-event", G_CALLBACK(running_pane_scroll_event), w);
  g_signal_connect(w->area, "button-press-event", G_CALLBACK(on_press), w);
  g_signal_connect(w->area, "motion-notify-event", G_CALLBACK(on_motion), w);
  g_signal_connect(w->area, "button-release-event", G_CALLBACK(on_release), w);
  g_signal_connect(w->area, "key-press-event", G_CALLBACK(running_pane_key), w);
  g_signal_connect(w->area, "query-tooltip", G_CALLBACK(on_query_tooltip), w);
  g_signal_connect(w->area, "size-allocate", G_CALLBACK(on_size_allocate), w);
  g_signal_connect(w->vadj, "value-changed", G_CALLBACK(on_vadj_changed), w);
  g_signal_connect(w->filter_entry, "search-changed", G_CALLBACK(running_pane_on_filter), w);
  g_signal_connect(w->sort_combo, "changed", G_CALLBACK(running_pane_on_sort), w);
  g_signal_connect(w->sleeps_check, "toggled", G_CALLBACK(running_pane_on_toggle), w);
  g_signal_connect(w->links_check, "toggled", G_CALLBACK(running_pane_on_toggle), w);
}

bool running_pane_step_match(win *w, int dir)
{
  if (!w->view)
    return false;
  uint32_t n = rsp_running_view_n_match_items(w->view);
  if (!n) {
    gtk_label_set_text(GTK_LABEL(w->status_label), _("No match to step to: type in Search first"));
    return false;
  }
  w->match_index = w->match_index < 0 ? (dir > 0 ? 0 : (int)n - 1) : (int)((w->match_index + (int)n + dir) % (int)n);
  rsp_highlight m;
  rsp_running_view_match_item(w->view, (uint32_t)w->match_index, &m);
  gtk_stack_set_visible_child_name(GTK_STACK(w->view_stack), "running");
  if (rsp_running_view_task_y(w->view, &w->vp, style(), m.task) < 0 && rsp_running_view_others_folded(w->view)) {
    rsp_running_view_set_others_folded(w->view, false); /* under 'other processes': shown */
    running_pane_update_scroll(w);
  }
  /* the match in the middle, at the zoom shown unless it is longer than that */
  uint64_t span = w->vp.t1 - w->vp.t0, len = m.end > m.start ? m.end - m.start : 1;
  if (len * 10 > span * 8)
    span = len + len / 4;
  uint64_t mid = m.start + len / 2, t0 = mid > w->lo + span / 2 ? mid - span / 2 : w->lo;
  w->vp.t0 = t0;
  w->vp.t1 = MIN(t0 + span, w->hi);
  rsp_running_view_set_highlights(w->view, &m, 1);
  running_pane_scroll_to_task(w, m.task);
  g_autofree char *what = g_strdup_printf(_("Match %d of %u (F3: next, Shift+F3: previous)"), w->match_index + 1, n);
  app_set_details(w, what);
  app_redraw(w);
  return true;
}
