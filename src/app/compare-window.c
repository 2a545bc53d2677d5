/* The compare window: see compare-window.h. */
#include "app/compare-window.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { COL_RANK, COL_DISTANCE, COL_CLASS, COL_PROCESS, COL_A, COL_B, COL_WHY, COL_INDEX };

struct rsp_compare_window {
  GtkBuilder *builder;
  GtkWidget *window, *files_label, *progress_box, *progress_bar, *error_label, *pairs_view, *overlay_area;
  GtkWidget *overlay_title, *reason_label, *normalized_check, *status_label;
  GtkListStore *pairs_store;
  char *file_a, *file_b, *name_a, *name_b, *first_class;
  unsigned resolution;
  rsp_self_check_fn check;
  void *check_data;
  /* the worker */
  GThread *thread;
  gint permille; /* atomic: 0..1000 over both files */
  gint cancelled;
  int loading;   /* 0: A, 1: B (worker-side) */
  guint progress_timer;
  double seconds;
  /* results */
  rsp_model *ma, *mb;
  rsp_profile_set *sa, *sb;
  rsp_profile_diff *diff;
  int32_t wa, wb;
  GError *error;
  const rsp_profile_pair *selected;
};

static GtkWidget *obj(rsp_compare_window *c, const char *id)
{
  return GTK_WIDGET(gtk_builder_get_object(c->builder, id));
}

/* ---- Worker ---------------------------------------------------------------------------------- */

static bool on_progress(uint64_t offset, uint64_t size, void *data)
{
  rsp_compare_window *c = data;
  gint per_file = size ? (gint)(offset * 500 / size) : 0;
  g_atomic_int_set(&c->permille, c->loading * 500 + per_file);
  return !g_atomic_int_get(&c->cancelled);
}

static gboolean finish(gpointer data);

static gpointer work(gpointer data)
{
  rsp_compare_window *c = data;
  gint64 t0 = g_get_monotonic_time();
  rsp_model_options o = { .progress = on_progress, .progress_data = c };
  c->loading = 0;
  c->ma = rsp_model_load(c->file_a, &o, &c->error);
  if (c->ma) {
    c->loading = 1;
    c->mb = rsp_model_load(c->file_b, &o, &c->error);
  }
  if (c->ma && c->mb && !g_atomic_int_get(&c->cancelled)) {
    c->wa = rsp_metadata_workload_pid_of(c->file_a);
    c->wb = rsp_metadata_workload_pid_of(c->file_b);
    bool scoped = c->wa >= 0 && c->wb >= 0;
    rsp_profile_options po = { .resolution = c->resolution, .pid = -1, .system_wide = !scoped, .by_command = true,
                               .workload_only = scoped, .workload_pid = c->wa };
    c->sa = rsp_profile_set_build(c->ma, &po, &c->error);
    po.workload_pid = c->wb;
    if (c->sa)
      c->sb = rsp_profile_set_build(c->mb, &po, &c->error);
    if (c->sa && c->sb)
      c->diff = rsp_profile_diff_compute(c->sa, c->sb, NULL);
  }
  if (!c->error && g_atomic_int_get(&c->cancelled))
    g_set_error(&c->error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "loading cancelled");
  c->seconds = (double)(g_get_monotonic_time() - t0) / 1e6;
  g_idle_add(finish, c);
  return NULL;
}

static void free_results(rsp_compare_window *c)
{
  rsp_profile_diff_free(c->diff);
  rsp_profile_set_free(c->sa);
  rsp_profile_set_free(c->sb);
  rsp_model_free(c->ma);
  rsp_model_free(c->mb);
  c->diff = NULL;
  c->sa = c->sb = NULL;
  c->ma = c->mb = NULL;
  g_clear_error(&c->error);
}

/* ---- Selection and drawing ---------------------------------------------------------------------- */

static void on_pair_selected(GtkTreeSelection *sel, gpointer data)
{
  rsp_compare_window *c = data;
  GtkTreeModel *model;
  GtkTreeIter it;
  if (!c->diff || !gtk_tree_selection_get_selected(sel, &model, &it))
    return;
  guint index;
  gtk_tree_model_get(model, &it, COL_INDEX, &index, -1);
  c->selected = &c->diff->pairs[index];
  const rsp_profile *any = c->selected->a ? c->selected->a : c->selected->b;
  g_autofree char *title = g_strdup_printf(_("#%u %s (%s), distance %.3f"), index + 1, any->name,
                                           strcmp(any->process, "*") ? any->process : _("system-wide"),
                                           c->selected->distance);
  gtk_label_set_text(GTK_LABEL(c->overlay_title), title);
  gtk_label_set_text(GTK_LABEL(c->reason_label), c->selected->reason ? c->selected->reason : "");
  gtk_widget_queue_draw(c->overlay_area);
}

static gboolean on_overlay_draw(GtkWidget *area, cairo_t *cr, gpointer data)
{
  rsp_compare_window *c = data;
  double w = gtk_widget_get_allocated_width(area), h = gtk_widget_get_allocated_height(area);
  if (!c->selected) {
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_font_size(cr, 12);
    cairo_move_to(cr, 12, 24);
    cairo_show_text(cr, c->thread ? _("Loading both recordings…")
                        : c->diff ? (c->diff->n_pairs ? _("Select a pair in the list.")
                                                      : _("No pair of profiles differs enough to rank."))
                                  : "");
    return TRUE;
  }
  rsp_histogram_compare_draw(cr, w, h, c->selected->a, c->selected->b, c->name_a, c->name_b,
                             gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(c->normalized_check)), NULL);
  return TRUE;
}

static uint64_t count_at(const rsp_profile *p, int32_t index)
{
  if (!p || index < p->min_index || index >= p->min_index + (int32_t)p->n_buckets)
    return 0;
  return p->buckets[index - p->min_index].count;
}

static gboolean on_overlay_tooltip(GtkWidget *area, gint x, gint y, gboolean kbd, GtkTooltip *tip, gpointer data)
{
  rsp_compare_window *c = data;
  if (kbd || !c->selected)
    return FALSE;
  int32_t b = rsp_histogram_compare_bucket_at(c->selected->a, c->selected->b, gtk_widget_get_allocated_width(area),
                                              gtk_widget_get_allocated_height(area), NULL, x);
  if (b == INT32_MIN)
    return FALSE;
  unsigned r = c->selected->a ? c->selected->a->resolution : c->selected->b->resolution;
  char lo[32], hi[32];
  g_autofree char *text = g_strdup_printf(_("%s to %s\nA %s: %llu\nB %s: %llu"),
                                          rsp_profile_format_ns(rsp_profile_bucket_lo(b, r), lo, sizeof lo),
                                          rsp_profile_format_ns(rsp_profile_bucket_lo(b + 1, r), hi, sizeof hi),
                                          c->name_a, (unsigned long long)count_at(c->selected->a, b), c->name_b,
                                          (unsigned long long)count_at(c->selected->b, b));
  gtk_tooltip_set_text(tip, text);
  return TRUE;
}

static void on_normalized(GtkToggleButton *b, gpointer data)
{
  gtk_widget_queue_draw(((rsp_compare_window *)data)->overlay_area);
}

static void select_row(rsp_compare_window *c, uint32_t row)
{
  GtkTreePath *path = gtk_tree_path_new_from_indices((gint)row, -1);
  gtk_tree_view_set_cursor(GTK_TREE_VIEW(c->pairs_view), path, NULL, FALSE);
  gtk_tree_path_free(path);
}

/* ---- Self-test ------------------------------------------------------------------------------------ */

static void pump(void)
{
  while (gtk_events_pending())
    gtk_main_iteration();
}

static const struct {
  const char *id, *name;
} accessible_names[] = {
  { "pairs_view", N_("Ranked pairs of profiles") },
  { "overlay_area", N_("Both profiles overlaid") },
  { "overlay_title", N_("Selected pair") },
  { "reason_label", N_("What changed") },
  { "normalized_check", N_("Shares of each count") },
  { "compare_progress_bar", N_("Loading progress") },
  { "compare_cancel_button", N_("Cancel loading") },
  { "compare_files_label", N_("Recordings compared") },
  { "compare_status_label", N_("Status") },
  { "compare_error_label", N_("Load error") },
};

static gboolean self_test(gpointer data)
{
  rsp_compare_window *c = data;
  char what[256];
  for (unsigned i = 0; i < G_N_ELEMENTS(accessible_names); i++) {
    const char *name = atk_object_get_name(gtk_widget_get_accessible(obj(c, accessible_names[i].id)));
    snprintf(what, sizeof what, "accessible name of %s is \"%s\"", accessible_names[i].id, name ? name : "(null)");
    c->check(name && !strcmp(name, _(accessible_names[i].name)), what, c->check_data);
  }
  snprintf(what, sizeof what, "both recordings loaded and compared in the worker (%.2f s)", c->seconds);
  c->check(c->diff != NULL, what, c->check_data);
  uint32_t rows = (uint32_t)gtk_tree_model_iter_n_children(GTK_TREE_MODEL(c->pairs_store), NULL);
  snprintf(what, sizeof what, "the compare window lists the %u ranked pairs (%u rows)", c->diff ? c->diff->n_pairs : 0,
           rows);
  c->check(c->diff && c->diff->n_pairs > 0 && rows == c->diff->n_pairs, what, c->check_data);
  bool ranked = true;
  for (uint32_t i = 1; c->diff && i < c->diff->n_pairs; i++) {
    double x = c->diff->pairs[i - 1].distance, y = c->diff->pairs[i].distance;
    ranked &= isinf(y) || (!isinf(x) && x >= y); /* finite ones largest first, then one-sided ones */
  }
  c->check(ranked, "the pairs are ranked by distance, largest first, those in one recording only last",
           c->check_data);
  if (c->diff && c->diff->n_pairs) {
    for (uint32_t i = 0; i < rows; i++) {
      select_row(c, i);
      pump();
      if (c->selected != &c->diff->pairs[i])
        break;
    }
    c->check(c->selected == &c->diff->pairs[rows - 1], "selecting each row selects its pair", c->check_data);
    select_row(c, 0);
    gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(c->normalized_check), TRUE);
    gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(c->normalized_check), FALSE);
    pump();
    c->check(gtk_widget_get_mapped(c->overlay_area) && c->selected == &c->diff->pairs[0],
             "the top pair is drawn overlaid, on screen", c->check_data);
    const char *reason = gtk_label_get_text(GTK_LABEL(c->reason_label));
    c->check(reason && c->diff->pairs[0].reason && !strcmp(reason, c->diff->pairs[0].reason),
             "the reason of the selected pair is shown", c->check_data);
    /* for the test's oracle (the recordings' known change): the top pair, its counts per bucket */
    const rsp_profile_pair *top = &c->diff->pairs[0];
    const rsp_profile *any = top->a ? top->a : top->b;
    printf("self-test: top pair: %s (%s)\n", any->name, any->process);
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (int k = 0; k < 2; k++) {
      const rsp_profile *p = k ? top->b : top->a;
      if (p && p->n_buckets) {
        lo = MIN(lo, p->min_index);
        hi = MAX(hi, p->min_index + (int32_t)p->n_buckets - 1);
      }
    }
    for (int32_t b = lo; b <= hi; b++)
      printf("self-test: bucket %d: A %" G_GUINT64_FORMAT " B %" G_GUINT64_FORMAT "\n", b, count_at(top->a, b),
             count_at(top->b, b));
  }
  printf("self-test: compare window done, closing\n");
  fflush(stdout);
  gtk_widget_destroy(c->window);
  return G_SOURCE_REMOVE;
}

/* ---- Load completion ------------------------------------------------------------------------------ */

static gboolean finish(gpointer data)
{
  rsp_compare_window *c = data;
  g_thread_join(c->thread);
  c->thread = NULL;
  if (c->progress_timer) {
    g_source_remove(c->progress_timer);
    c->progress_timer = 0;
  }
  gtk_widget_hide(c->progress_box);
  if (!c->diff) {
    g_autofree char *msg = g_strdup_printf(_("Could not compare %s and %s: %s"), c->file_a, c->file_b,
                                           c->error ? c->error->message : "?");
    gtk_label_set_text(GTK_LABEL(c->error_label), msg);
    gtk_widget_show(c->error_label);
    g_printerr("rsp-view: %s\n", msg);
    if (c->check) {
      c->check(false, msg, c->check_data);
      gtk_widget_destroy(c->window);
    }
    return G_SOURCE_REMOVE;
  }
  uint32_t first = 0;
  for (uint32_t i = 0; i < c->diff->n_pairs; i++) {
    const rsp_profile_pair *p = &c->diff->pairs[i];
    const rsp_profile *any = p->a ? p->a : p->b;
    char d[32], a[64], b[64];
    if (isinf(p->distance)) /* in one recording only: ranked after the real changes */
      snprintf(d, sizeof d, "%s", p->a ? _("gone") : _("new"));
    else
      snprintf(d, sizeof d, "%.3f", p->distance);
    rsp_profile_format_ops_total(p->a, "—", a, sizeof a);
    rsp_profile_format_ops_total(p->b, "—", b, sizeof b);
    gtk_list_store_insert_with_values(c->pairs_store, NULL, -1, COL_RANK, i + 1, COL_DISTANCE, d, COL_CLASS, any->name,
                                      COL_PROCESS, strcmp(any->process, "*") ? any->process : _("system-wide"), COL_A,
                                      a, COL_B, b, COL_WHY, p->reason ? p->reason : "", COL_INDEX, i, -1);
    if (c->first_class && !first && !strcmp(any->name, c->first_class))
      first = i;
  }
  g_autofree char *status = g_strdup_printf(
      _("%u pairs ranked by EMD; dropped: %u similar, %u negligible, %u with too few operations. A: %u profiles%s, "
        "B: %u profiles%s. Loaded and compared in %.2f s."),
      c->diff->n_pairs, c->diff->n_similar, c->diff->n_negligible, c->diff->n_few, rsp_profile_set_n(c->sa),
      c->wa >= 0 && c->wb >= 0 ? _(" of the recorded command") : "", rsp_profile_set_n(c->sb),
      c->wa >= 0 && c->wb >= 0 ? _(" of the recorded command") : "", c->seconds);
  gtk_label_set_text(GTK_LABEL(c->status_label), status);
  if (c->diff->n_pairs)
    select_row(c, first);
  gtk_widget_queue_draw(c->overlay_area);
  if (c->check)
    g_timeout_add(200, self_test, c);
  return G_SOURCE_REMOVE;
}

static gboolean on_progress_tick(gpointer data)
{
  rsp_compare_window *c = data;
  gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(c->progress_bar), g_atomic_int_get(&c->permille) / 1000.0);
  return G_SOURCE_CONTINUE;
}

static void on_cancel(GtkButton *b, gpointer data)
{
  g_atomic_int_set(&((rsp_compare_window *)data)->cancelled, 1);
}

/* Ctrl+W and Escape close the window (as other comparison windows do). */
static gboolean on_key(GtkWidget *window, GdkEventKey *ev, gpointer data)
{
  if (ev->keyval == GDK_KEY_Escape || ((ev->state & GDK_CONTROL_MASK) && (ev->keyval == GDK_KEY_w || ev->keyval == GDK_KEY_W))) {
    gtk_widget_destroy(window);
    return TRUE;
  }
  return FALSE;
}

static void on_destroy(GtkWidget *w, gpointer data)
{
  rsp_compare_window *c = data;
  if (c->progress_timer)
    g_source_remove(c->progress_timer);
  c->progress_timer = 0;
  if (c->thread) { /* cancel the load, wait for it, drop its result */
    g_atomic_int_set(&c->cancelled, 1);
    g_thread_join(c->thread);
    c->thread = NULL;
  }
  while (g_source_remove_by_user_data(c)) /* its completion, or the self-test's timeout */
    ;
  free_results(c);
  g_object_unref(c->builder);
  g_free(c->file_a);
  g_free(c->file_b);
  g_free(c->name_a);
  g_free(c->name_b);
  g_free(c->first_class);
  g_free(c);
}

rsp_compare_window *rsp_compare_window_open(GtkApplication *app, const rsp_compare_options *o)
{
  rsp_compare_window *c = g_new0(rsp_compare_window, 1);
  c->file_a = g_strdup(o->file_a);
  c->file_b = g_strdup(o->file_b);
  c->name_a = g_path_get_basename(o->file_a);
  c->name_b = g_path_get_basename(o->file_b);
  c->first_class = g_strdup(o->first_class);
  c->resolution = o->resolution ? o->resolution : 1;
  c->check = o->check;
  c->check_data = o->check_data;
  c->builder = gtk_builder_new_from_resource("/org/rsp/view/compare-window.ui");
  c->window = obj(c, "compare_window");
  c->files_label = obj(c, "compare_files_label");
  c->progress_box = obj(c, "compare_progress_box");
  c->progress_bar = obj(c, "compare_progress_bar");
  c->error_label = obj(c, "compare_error_label");
  c->pairs_view = obj(c, "pairs_view");
  c->overlay_area = obj(c, "overlay_area");
  c->overlay_title = obj(c, "overlay_title");
  c->reason_label = obj(c, "reason_label");
  c->normalized_check = obj(c, "normalized_check");
  c->status_label = obj(c, "compare_status_label");
  c->pairs_store = GTK_LIST_STORE(gtk_builder_get_object(c->builder, "pairs_store"));
  for (unsigned i = 0; i < G_N_ELEMENTS(accessible_names); i++)
    atk_object_set_name(gtk_widget_get_accessible(obj(c, accessible_names[i].id)), _(accessible_names[i].name));
  if (app)
    gtk_window_set_application(GTK_WINDOW(c->window), app);
  g_autofree char *files = g_strdup_printf(_("A: %s    B: %s"), c->file_a, c->file_b);
  gtk_label_set_text(GTK_LABEL(c->files_label), files);
  g_autofree char *title = g_strdup_printf(_("rsp-view — %s vs %s"), c->name_a, c->name_b);
  gtk_window_set_title(GTK_WINDOW(c->window), title);
  g_autofree char *loading = g_strdup_printf(_("Loading %s and %s…"), c->name_a, c->name_b);
  gtk_progress_bar_set_text(GTK_PROGRESS_BAR(c->progress_bar), loading);
  g_signal_connect(gtk_tree_view_get_selection(GTK_TREE_VIEW(c->pairs_view)), "changed",
                   G_CALLBACK(on_pair_selected), c);
  g_signal_connect(c->overlay_area, "draw", G_CALLBACK(on_overlay_draw), c);
  g_signal_connect(c->overlay_area, "query-tooltip", G_CALLBACK(on_overlay_tooltip), c);
  g_signal_connect(c->normalized_check, "toggled", G_CALLBACK(on_normalized), c);
  g_signal_connect(obj(c, "compare_cancel_button"), "clicked", G_CALLBACK(on_cancel), c);
  g_signal_connect(c->window, "destroy", G_CALLBACK(on_destroy), c);
  g_signal_connect(c->window, "key-press-event", G_CALLBACK(on_key), c);
  gtk_widget_show(c->window);
  c->progress_timer = g_timeout_add(50, on_progress_tick, c);
  c->thread = g_thread_new("rsp-compare", work, c);
  return c;
}
