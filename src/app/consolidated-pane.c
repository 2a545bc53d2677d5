/* The consolidated flame view pane: the flame view's paths gathered by stack
 * (render/consolidated-view.c), zoomed along accumulated duration. */
#include "app/app-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

/* The consolidated view's total (x is accumulated duration, not time), at least 1 us. */
uint64_t consolidated_pane_total(win *w)
{
  uint64_t total = w->consolidated ? rsp_consolidated_view_total(w->consolidated) : 0;
  return total > 1000 ? total : 1000;
}

/* The consolidated view's own viewport: zoomed and panned along accumulated duration, scrolled
 * vertically (at first to its bottom, where the process of interest is). */
rsp_viewport consolidated_pane_viewport(win *w)
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
    vp.t0 = 0, vp.t1 = consolidated_pane_total(w);
  return vp;
}

/* The consolidated view of the flame view's paths, of the selected time range if there is one; each sleep by
 * its user-space wait site (recv, epoll_wait, fsync) without the kernel frames every sleep shares, so the
 * chain of processes fits on screen (the flame view and the details pane keep the whole stacks). */
void consolidated_pane_rebuild(win *w)
{
  rsp_consolidated_view_free(w->consolidated);
  w->consolidated = NULL;
  if (!w->paths)
    return;
  w->consolidated = rsp_consolidated_view_new_kwork(w->paths, app_kernel_work(w),
                                                    w->range_t1 > w->range_t0 ? w->range_t0 : 0,
                                                    w->range_t1 > w->range_t0 ? w->range_t1 : UINT64_MAX,
                                                    RSP_STACK_TREE_USER_WAITS);
  w->cvp = (rsp_viewport){ .t0 = 0, .t1 = consolidated_pane_total(w), .scroll_y = -1 };
  /* say so when it gathers a part of the recording only (issue 17: it kept the range silently) */
  GtkWidget *note = obj(w, "consolidated_label");
  if (w->range_t1 > w->range_t0) {
    char a[48], b[48];
    g_autofree char *text = g_strdup_printf(_("Gathered over %s to %s of the recording only (the time range selected); "
                                              "Fit gathers all of it."),
                                            rsp_format_duration(w->range_t0 - w->lo, a, sizeof a),
                                            rsp_format_duration(w->range_t1 - w->lo, b, sizeof b));
    gtk_label_set_text(GTK_LABEL(note), text);
    gtk_widget_show(note);
  } else {
    gtk_widget_hide(note);
  }
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
  rsp_viewport vp = consolidated_pane_viewport(w);
  w->cvp.scroll_y = vp.scroll_y;
  rsp_consolidated_view_draw(w->consolidated, cr, &vp, style());
  app_draw_drag_selection(w, cr, vp.height);
  return TRUE;
}

static gboolean on_consolidated_tooltip(GtkWidget *area, gint x, gint y, gboolean kbd, GtkTooltip *tip,
                                        gpointer data)
{
  win *w = data;
  if (kbd || !w->consolidated)
    return FALSE;
  rsp_viewport vp = consolidated_pane_viewport(w);
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
  rsp_viewport vp = consolidated_pane_viewport(w);
  if (ev->state & GDK_CONTROL_MASK)
    rsp_viewport_zoom(&vp, style(), pow(APP_WHEEL_ZOOM, dy), ev->x, 0, consolidated_pane_total(w));
  else if ((ev->state & GDK_SHIFT_MASK) || dx != 0)
    rsp_viewport_pan(&vp, style(), (dx != 0 ? dx : dy) * 60, 0, consolidated_pane_total(w));
  else
    vp.scroll_y += (int)(dy * 3 * style()->row_height);
  w->cvp.t0 = vp.t0, w->cvp.t1 = vp.t1, w->cvp.scroll_y = vp.scroll_y;
  gtk_widget_queue_draw(area);
  return TRUE;
}

gboolean consolidated_pane_key(GtkWidget *area, GdkEventKey *ev, gpointer data)
{
  win *w = data;
  if (!w->consolidated)
    return FALSE;
  rsp_viewport vp = consolidated_pane_viewport(w);
  double centre = style()->label_width + (vp.width - style()->label_width) / 2.0;
  double step = (vp.width - style()->label_width) * 0.1;
  uint64_t total = consolidated_pane_total(w);
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


static gboolean on_consolidated_press(GtkWidget *area, GdkEventButton *ev, gpointer data)
{
  app_begin_drag(data, area, ev);
  return TRUE;
}

/* Dragging: pans along accumulated duration and rows, or selects a span of it. */
static gboolean on_consolidated_motion(GtkWidget *area, GdkEventMotion *ev, gpointer data)
{
  win *w = data;
  if (fabs(ev->x - w->press_x) > 3 || fabs(ev->y - w->press_y) > 3)
    w->moved = true;
  if (w->panning && w->moved) {
    rsp_viewport vp = consolidated_pane_viewport(w);
    rsp_viewport_pan(&vp, style(), w->last_x - ev->x, 0, consolidated_pane_total(w));
    w->cvp.t0 = vp.t0, w->cvp.t1 = vp.t1;
    w->cvp.scroll_y = vp.scroll_y + (int)(w->press_y - ev->y);
    w->press_y = ev->y;
    w->last_x = ev->x;
  } else if (w->selecting) {
    w->sel_x = ev->x;
  }
  gtk_widget_queue_draw(area);
  return TRUE;
}

/* A span of accumulated duration selected: zoomed to it. */
static gboolean on_consolidated_release(GtkWidget *area, GdkEventButton *ev, gpointer data)
{
  win *w = data;
  rsp_viewport vp = consolidated_pane_viewport(w);
  if (w->selecting && fabs(w->sel_x - w->press_x) > 3 && w->consolidated) {
    double x0 = MAX(MIN(w->press_x, w->sel_x), style()->label_width), x1 = MAX(w->press_x, w->sel_x);
    uint64_t t0 = rsp_viewport_time(&vp, style(), x0), t1 = rsp_viewport_time(&vp, style(), x1);
    if (t1 > t0) {
      w->cvp.t0 = t0;
      w->cvp.t1 = t1;
    }
  }
  w->selecting = w->panning = false;
  gtk_widget_queue_draw(area);
  return TRUE;
}

void consolidated_pane_attach(win *w)
{
  w->consolidated_area = obj(w, "consolidated_area");
  g_signal_connect(w->consolidated_area, "draw", G_CALLBACK(on_consolidated_draw), w);
  g_signal_connect(w->consolidated_area, "query-tooltip", G_CALLBACK(on_consolidated_tooltip), w);
  gtk_widget_add_events(w->consolidated_area, GDK_SCROLL_MASK | GDK_SMOOTH_SCROLL_MASK | GDK_BUTTON_PRESS_MASK |
                                                  GDK_BUTTON_RELEASE_MASK | GDK_POINTER_MOTION_MASK |
                                                  GDK_KEY_PRESS_MASK);
  gtk_widget_set_can_focus(w->consolidated_area, TRUE);
  g_signal_connect(w->consolidated_area, "scroll-event", G_CALLBACK(on_consolidated_scroll), w);
  g_signal_connect(w->consolidated_area, "button-press-event", G_CALLBACK(on_consolidated_press), w);
  g_signal_connect(w->consolidated_area, "motion-notify-event", G_CALLBACK(on_consolidated_motion), w);
  g_signal_connect(w->consolidated_area, "button-release-event", G_CALLBACK(on_consolidated_release), w);
  g_signal_connect(w->consolidated_area, "key-press-event", G_CALLBACK(consolidated_pane_key), w);
}
