/* rsp-view's main window, shared by its panes: the window's state (one struct, owned by app.c) and
 * what each pane offers the others. One file per pane: running-pane.c (the process running view),
 * flame-pane.c (a process's control paths), consolidated-pane.c (their consolidated flame view),
 * explanation-pane.c (the text beside it), histogram-pane.c; self-test.c drives them all. The app
 * owns state and interaction; geometry and drawing are render/'s. */
#pragma once

#include "app/app.h"
#include "app/histogram-pane.h"
#include "app/loader.h"
#include "render/render.h"

#include <gtk/gtk.h>

/* The zoom of one wheel notch (Ctrl+wheel): 2 s to 4 ms in 9 notches (at 1.25 it took 28). */
#define APP_WHEEL_ZOOM 2.0

typedef struct win {
  GtkApplication *app;
  const rsp_app_options *options;
  GtkBuilder *builder;
  GtkWidget *window, *area, *progress_box, *progress_bar, *error_label, *loss_bar, *loss_label, *status_label;
  GtkWidget *details_view, *view_stack, *filter_entry, *search_entry, *sort_combo, *sleeps_check, *links_check;
  GtkAdjustment *vadj;
  rsp_loader *loader;
  guint progress_timer;
  bool first_window_shown;  /* the model shown is a big recording's first window; the whole is loading */
  uint64_t first_window_events; /* (for the self-test: the whole must have more) */
  char *path;
  rsp_model *model;
  rsp_running_view *view;
  rsp_paths *paths;       /* the flame view's process: its control paths */
  rsp_kernel_work *kwork; /* the model's kernel work charged to whom it served (app_kernel_work), NULL until asked */
  rsp_flame_view *flame;
  rsp_consolidated_view *consolidated;
  GtkWidget *flame_area, *flame_label, *consolidated_area, *explanation_view;
  GtkWidget *loss_expander, *loss_details_label;
  GtkWidget *picker_button, *picker_popover, *picker_entry, *picker_list; /* process-picker.c */
  GtkListStore *picker_store;
  GtkTreeModel *picker_filter;
  GtkWidget *histograms_split; /* the views above, the histograms below */
  GtkWidget *help_overlay;     /* F1 or ?: the keys */
  GtkWidget *path_combo;       /* the flame view's path picker */
  uint32_t *listed_paths;      /* the paths it lists (entry K + 1: listed_paths[K]), n_listed_paths of them */
  uint32_t n_listed_paths;
  int match_index;             /* the search match stepped to last (-1: none yet) */
  int flame_match;             /* the flame view's row of that match (for the self-test) */
  struct rsp_compare_window *compare; /* the last "Compare with…" window (it frees itself when closed) */
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

static inline const rsp_style *style(void)
{
  return rsp_style_default();
}

static inline GtkWidget *obj(win *w, const char *id)
{
  return GTK_WIDGET(gtk_builder_get_object(w->builder, id));
}

/* ---- app.c: the window ---------------------------------------------------------------------- */
void app_set_details(win *w, const char *text);
void app_redraw(win *w);
/* Time navigation shared by the running and flame views (they share w->vp). */
void app_zoom(win *w, double factor, double x);
void app_zoom_fit(win *w);
void app_pan(win *w, double dx);
double app_plot_center(win *w);
/* A time range selected in one view filters the others. */
void app_select_range(win *w, uint64_t t0, uint64_t t1);
/* Pointer drags shared by the views: a pan (left button) or a range selection (right, Shift+left). */
bool app_begin_drag(win *w, GtkWidget *area, const GdkEventButton *ev);
void app_draw_drag_selection(win *w, cairo_t *cr, int height);
/* Accessible names of window.ui's widgets, for screen readers and the GUI tests. */
typedef struct app_accessible_name {
  const char *id, *name;
} app_accessible_name;
extern const app_accessible_name app_accessible_names[];
extern const unsigned app_n_accessible_names;
/* The compare window of this recording and OTHER (the toolbar's "Compare with…"). */
void app_compare_with(win *w, const char *other);
/* Loads PATH in the loading thread (the window shows it when done). */
void app_load(win *w, const char *path);
/* The window's story of process PID: its flame and consolidated views, the explanation beside the
 * latter (shown), and in the running view the processes on its paths first, the others folded. */
bool app_open_process(win *w, int32_t pid);
/* PID's name: its main thread's after the last exec ("?" when none). */
const char *app_process_name(const rsp_model *model, int32_t pid);
/* The process the window opens on: --flame PID, else the recorded command's (-1: none known). */
int32_t app_first_process(win *w);
/* The model's kernel work charged to whom it served (w->kwork), made at the first call for the model shown: the flame
 * and consolidated views, the explanation and the process picker share it (each made its own, a build's 90 ms). */
const rsp_kernel_work *app_kernel_work(win *w);
/* F3, Shift+F3, Enter in Search: the next or previous match of the page shown (flame or running). */
bool app_step_match(win *w, int dir);
/* The search entry changed: every view's matches. */
void app_on_search(GtkSearchEntry *entry, gpointer data);

/* ---- running-pane.c ------------------------------------------------------------------------- */
void running_pane_attach(win *w);
void running_pane_update_scroll(win *w);
gboolean running_pane_scroll_event(GtkWidget *area, GdkEventScroll *ev, gpointer data);
gboolean running_pane_key(GtkWidget *area, GdkEventKey *ev, gpointer data);
void running_pane_scroll_to_task(win *w, rsp_task_id task);
void running_pane_show_hit(win *w, double x, double y);
void running_pane_on_filter(GtkSearchEntry *entry, gpointer data);
void running_pane_on_sort(GtkComboBox *combo, gpointer data);
void running_pane_on_toggle(GtkToggleButton *b, gpointer data);
/* F3 / Shift+F3, Enter in Search: the next (DIR 1) or previous (-1) match shown in the running
 * view, outlined, in the middle; false when there is none. */
bool running_pane_step_match(win *w, int dir);

/* ---- flame-pane.c --------------------------------------------------------------------------- */
void flame_pane_attach(win *w);
/* The flame view of process PID (its control paths), and the consolidated view of them. */
bool flame_pane_open(win *w, int32_t pid);
void flame_pane_drop(win *w);
bool flame_pane_hit(win *w, double x, double y, rsp_hit *hit);
bool flame_pane_click(win *w, double x, double y);
/* Control path P shown: the flame view over its time, its base row at the bottom edge. */
bool flame_pane_show_path(win *w, rsp_path_id p);
/* The paths of PATHS the path picker lists, in path order (*N of them, a new array): all when there are at most CAP,
 * else path 0 and the CAP - 1 longest others. */
uint32_t *flame_pane_listed_paths(const rsp_paths *paths, uint32_t cap, uint32_t *n);
/* F3 / Shift+F3 on the Flame page: the next (DIR 1) or previous (-1) matching frame in the middle. */
bool flame_pane_step_match(win *w, int dir);

/* ---- consolidated-pane.c -------------------------------------------------------------------- */
void consolidated_pane_attach(win *w);
void consolidated_pane_rebuild(win *w);
uint64_t consolidated_pane_total(win *w);
rsp_viewport consolidated_pane_viewport(win *w);
gboolean consolidated_pane_key(GtkWidget *area, GdkEventKey *ev, gpointer data);

/* ---- explanation-pane.c -------------------------------------------------------------------- */
void explanation_pane_attach(win *w);
/* The flame view's process changed (or none): the text shown again. */
void explanation_pane_update(win *w);
/* The text it shows (free with g_free). */
char *explanation_pane_summary(win *w);

/* ---- process-picker.c ---------------------------------------------------------------------- */
void process_picker_attach(win *w);
/* A recording loaded (or none): the list filled again. */
void process_picker_model_changed(win *w);
void process_picker_free(win *w);
/* For the self-test: the rows shown, and SEARCH typed then Enter (false: no row matched). */
uint32_t process_picker_n_shown(win *w);
bool process_picker_choose_first(win *w, const char *search);

/* ---- settings.c: remembered between runs ($XDG_CONFIG_HOME/rsp/rsp-view.ini) ------------------ */
char *settings_path(void);
void settings_restore_window(win *w); /* size, pane positions, the Recent menu */
void settings_save_window(win *w);
void settings_add_recent(win *w, const char *file);
char **settings_recent(void); /* newest first; free with g_strfreev */
void settings_update_recent_menu(win *w);

/* ---- self-test.c (rsp-view --self-test FILE) ------------------------------------------------ */
bool app_check(win *w, bool ok, const char *what);
gboolean app_self_test_step(gpointer data);
