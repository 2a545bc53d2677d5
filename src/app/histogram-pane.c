/* The histograms pane: see histogram-pane.h. The pane owns its state (the profile set, the
 * selection, the filters); the drawing is render/'s (histogram-view.c, heatmap-view.c). */
#include "app/histogram-pane.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LISTED_PROFILES = 5000, MAX_LISTED_INSTANCES = 2000 };
enum { PCOL_CLASS, PCOL_PROCESS, PCOL_OPS, PCOL_TOTAL, PCOL_INDEX };
enum { ICOL_TASK, ICOL_START, ICOL_DURATION, ICOL_CAUSE, ICOL_T0, ICOL_T1 };

/* A build of the profile set in the worker thread. */
typedef struct job {
  rsp_histogram_pane *pane;
  const rsp_model *model;
  rsp_profile_options options;
  bool measure_times;
  GThread *thread;
  /* results */
  rsp_profile_set *set;
  rsp_characteristic_times times;
  GError *error;
  gint64 started, ended; /* monotonic us */
} job;

struct rsp_histogram_pane {
  rsp_histogram_pane_hooks hooks;
  GtkBuilder *builder;
  GtkWidget *top, *profiles_view, *histogram_area, *heatmap_area, *plot_stack, *plot_title, *filter_label;
  GtkWidget *clear_button, *instances_view, *instances_label, *slice_entry, *resolution_combo;
  GtkListStore *profiles_store, *instances_store;
  const rsp_model *model;
  unsigned resolution;
  uint64_t slice_ns;
  char *first_class;
  bool first_heatmap, first_done;
  int32_t first_pid;
  int32_t pid;
  uint64_t t0, t1;
  job *job; /* in flight, or NULL */
  rsp_profile_set *set;
  rsp_characteristic_times times;
  bool have_times;
  const rsp_profile *selected;
  rsp_profile_timeline *timeline; /* the selected profile's, at slice_ns */
  int32_t bucket;                  /* the bucket clicked (INT32_MIN: none) */
  int64_t slice;                   /* the heat-map slice clicked (-1: the whole bucket) */
  uint32_t n_highlighted;          /* what was last handed to the highlight hook */
  double build_ms;                 /* the last build's time */
};

static GtkWidget *obj(rsp_histogram_pane *p, const char *id)
{
  return GTK_WIDGET(gtk_builder_get_object(p->builder, id));
}

/* ---- The worker ------------------------------------------------------------------------------ */

static gpointer job_work(gpointer data)
{
  job *j = data;
  j->started = g_get_monotonic_time();
  j->set = rsp_profile_set_build(j->model, &j->options, &j->error);
  if (j->measure_times)
    rsp_characteristic_times_measure(j->model, &j->times);
  j->ended = g_get_monotonic_time();
  return NULL;
}

static void job_free(job *j)
{
  if (!j)
    return;
  rsp_profile_set_free(j->set);
  g_clear_error(&j->error);
  g_free(j);
}

static void install(rsp_histogram_pane *p, job *j);

static gboolean job_finish(gpointer data)
{
  job *j = data;
  rsp_histogram_pane *p = j->pane;
  g_thread_join(j->thread);
  j->thread = NULL;
  if (p->job == j) {
    p->job = NULL;
    install(p, j);
  }
  job_free(j);
  return G_SOURCE_REMOVE;
}

static gpointer job_thread(gpointer data)
{
  job_work(data);
  g_idle_add(job_finish, data);
  return NULL;
}

/* Waits for the job in flight and drops it (its result is stale). */
static void abandon_job(rsp_histogram_pane *p)
{
  job *j = p->job;
  if (!j)
    return;
  p->job = NULL;
  g_thread_join(j->thread);
  j->thread = NULL;
  while (g_source_remove_by_user_data(j))
    ;
  job_free(j);
}

static void set_filter_text(rsp_histogram_pane *p, const char *extra)
{
  GString *s = g_string_new(NULL);
  if (p->pid >= 0)
    g_string_append_printf(s, _("Process %d"), p->pid);
  else
    g_string_append(s, _("All processes"));
  if (p->t1 > p->t0 && p->model) {
    char a[48], b[48];
    uint64_t origin = rsp_model_time_first(p->model);
    g_string_append_printf(s, _(", %s to %s"), rsp_format_duration(p->t0 - origin, a, sizeof a),
                           rsp_format_duration(p->t1 - origin, b, sizeof b));
  }
  if (extra)
    g_string_append_printf(s, " — %s", extra);
  gtk_label_set_text(GTK_LABEL(p->filter_label), s->str);
  gtk_widget_set_tooltip_text(p->filter_label, s->str);
  gtk_widget_set_sensitive(p->clear_button, p->pid >= 0 || p->t1 > p->t0);
  g_string_free(s, true);
}

static void clear_selection(rsp_histogram_pane *p);

/* Starts building the profiles of the model under the filters (the previous build abandoned). */
static void rebuild(rsp_histogram_pane *p)
{
  abandon_job(p);
  /* the set goes first: clearing the list may move the cursor, which would select from it */
  rsp_profile_set *old = p->set;
  p->set = NULL;
  gtk_list_store_clear(p->profiles_store);
  clear_selection(p);
  rsp_profile_set_free(old);
  if (!p->model) {
    set_filter_text(p, NULL);
    return;
  }
  job *j = g_new0(job, 1);
  j->pane = p;
  j->model = p->model;
  j->options = (rsp_profile_options){ .resolution = p->resolution, .pid = p->pid, .range_start = p->t0,
                                      .range_end = p->t1 };
  j->measure_times = !p->have_times;
  p->job = j;
  set_filter_text(p, _("building…"));
  j->thread = g_thread_new("rsp-profiles", job_thread, j);
}

static void select_row(rsp_histogram_pane *p, uint32_t row)
{
  GtkTreePath *path = gtk_tree_path_new_from_indices((gint)row, -1);
  gtk_tree_view_set_cursor(GTK_TREE_VIEW(p->profiles_view), path, NULL, FALSE);
  gtk_tree_path_free(path);
}

static void install(rsp_histogram_pane *p, job *j)
{
  if (j->measure_times) {
    p->times = j->times;
    p->have_times = true;
  }
  p->build_ms = (double)(j->ended - j->started) / 1000.0;
  if (!j->set) {
    set_filter_text(p, j->error ? j->error->message : _("no profiles"));
    return;
  }
  p->set = j->set;
  j->set = NULL;
  uint32_t n = rsp_profile_set_n(p->set), shown = MIN(n, MAX_LISTED_PROFILES);
  for (uint32_t i = 0; i < shown; i++) {
    const rsp_profile *pr = rsp_profile_set_get(p->set, i);
    char total[32];
    g_autofree char *process = pr->pid >= 0 ? g_strdup_printf("%s [%d]", pr->process, pr->pid)
                                            : g_strdup(strcmp(pr->process, "*") ? pr->process : _("system-wide"));
    gtk_list_store_insert_with_values(p->profiles_store, NULL, -1, PCOL_CLASS, pr->name, PCOL_PROCESS, process,
                                      PCOL_OPS, (guint64)pr->count, PCOL_TOTAL,
                                      rsp_profile_format_ns(pr->total_ns, total, sizeof total), PCOL_INDEX, i, -1);
  }
  g_autofree char *extra = shown < n ? g_strdup_printf(_("%u profiles, the largest %u listed"), n, shown)
                                     : g_strdup_printf(g_dngettext(NULL, "%u profile", "%u profiles", n), n);
  set_filter_text(p, extra);
  if (!n)
    return;
  uint32_t row = 0;
  if (!p->first_done && p->first_class) {
    for (uint32_t i = 0; i < shown; i++)
      if (!strcmp(rsp_profile_set_get(p->set, i)->name, p->first_class)) {
        row = i;
        break;
      }
    if (p->first_heatmap)
      gtk_stack_set_visible_child_name(GTK_STACK(p->plot_stack), "heatmap");
  }
  p->first_done = true;
  select_row(p, row);
}

/* ---- Selection, instances, highlights ---------------------------------------------------------- */

/* The task and time span of instance IN of profile PR. */
static rsp_task_id instance_span(const rsp_model *m, const rsp_profile *pr, const rsp_profile_instance *in,
                                 uint64_t *t0, uint64_t *t1)
{
  *t0 = rsp_profile_instance_time(m, pr, in);
  *t1 = *t0 + in->ns;
  switch (pr->instance_kind) {
  case RSP_INSTANCE_RUN:
    return in->id < rsp_model_n_runs(m) ? rsp_model_run(m, in->id)->task : RSP_NO_ID;
  case RSP_INSTANCE_SLEEP:
    return in->id < rsp_model_n_sleeps(m) ? rsp_model_sleep(m, in->id)->task : RSP_NO_ID;
  case RSP_INSTANCE_DISK:
    return in->id < rsp_model_n_disk_ops(m) ? rsp_model_disk_op(m, in->id)->task : RSP_NO_ID;
  case RSP_INSTANCE_NET:
    return in->id < rsp_model_n_net_ops(m) ? rsp_model_net_op(m, in->id)->task : RSP_NO_ID;
  }
  return RSP_NO_ID;
}

static void task_name(const rsp_model *m, rsp_task_id task, uint64_t at, char *buf, size_t size)
{
  if (task == RSP_NO_ID || task >= rsp_model_n_tasks(m)) {
    snprintf(buf, size, "?");
    return;
  }
  const char *comm = rsp_model_task_comm_at(m, task, at);
  snprintf(buf, size, "%s %d", comm && *comm ? comm : "?", rsp_model_task(m, task)->tid);
}

static void highlight(rsp_histogram_pane *p, const rsp_highlight *items, uint32_t n)
{
  p->n_highlighted = n;
  if (p->hooks.highlight)
    p->hooks.highlight(items, n, p->hooks.data);
}

static void clear_selection(rsp_histogram_pane *p)
{
  p->selected = NULL;
  rsp_profile_timeline_free(p->timeline);
  p->timeline = NULL;
  p->bucket = INT32_MIN;
  p->slice = -1;
  gtk_list_store_clear(p->instances_store);
  gtk_label_set_text(GTK_LABEL(p->instances_label), _("Click a bar to list its instances"));
  gtk_label_set_text(GTK_LABEL(p->plot_title), "");
  if (p->n_highlighted)
    highlight(p, NULL, 0);
  gtk_widget_queue_draw(p->histogram_area);
  gtk_widget_queue_draw(p->heatmap_area);
}

/* Lists and highlights the instances of bucket INDEX of the selected profile (those that begin in
 * heat-map slice SLICE only, when SLICE >= 0). */
static void show_bucket(rsp_histogram_pane *p, int32_t index, int64_t slice)
{
  const rsp_profile *pr = p->selected;
  if (!pr || index < pr->min_index || index >= pr->min_index + (int32_t)pr->n_buckets)
    return;
  p->bucket = index;
  p->slice = slice;
  const rsp_profile_bucket *b = &pr->buckets[index - pr->min_index];
  uint64_t s0 = 0, s1 = UINT64_MAX, origin = rsp_model_time_first(p->model);
  if (slice >= 0 && p->timeline) {
    s0 = p->timeline->start_ns + (uint64_t)slice * p->timeline->slice_ns;
    s1 = s0 + p->timeline->slice_ns;
  }
  gtk_list_store_clear(p->instances_store);
  GArray *hl = g_array_new(false, false, sizeof(rsp_highlight));
  uint32_t listed = 0;
  for (uint32_t k = 0; k < b->n_instances; k++) {
    const rsp_profile_instance *in = &pr->instances[b->first_instance + k];
    uint64_t t0, t1;
    rsp_task_id task = instance_span(p->model, pr, in, &t0, &t1);
    if (t0 < s0 || t0 >= s1)
      continue;
    if (task != RSP_NO_ID) {
      rsp_highlight h = { task, t0, t1 };
      g_array_append_val(hl, h);
    }
    if (listed++ >= MAX_LISTED_INSTANCES)
      continue;
    char name[96], start[48], dur[48];
    task_name(p->model, task, t0, name, sizeof name);
    rsp_format_duration(t0 >= origin ? t0 - origin : 0, start, sizeof start);
    rsp_format_duration(in->ns, dur, sizeof dur);
    g_autofree char *cause = NULL;
    if (in->waker != RSP_NO_ID) {
      char waker[96];
      task_name(p->model, in->waker, t1, waker, sizeof waker);
      cause = g_strdup_printf(_("%s (woken by %s)"), rsp_profile_cause_key((rsp_category)in->cause), waker);
    } else {
      cause = g_strdup(rsp_profile_cause_key((rsp_category)in->cause));
    }
    gtk_list_store_insert_with_values(p->instances_store, NULL, -1, ICOL_TASK, name, ICOL_START, start, ICOL_DURATION,
                                      dur, ICOL_CAUSE, cause, ICOL_T0, (guint64)t0, ICOL_T1, (guint64)t1, -1);
  }
  char lo[32], hi[32];
  rsp_profile_format_ns(b->lo_ns, lo, sizeof lo);
  rsp_profile_format_ns(b->hi_ns, hi, sizeof hi);
  g_autofree char *head = NULL;
  if (slice >= 0) {
    char a[48], c[48];
    head = g_strdup_printf(_("%s–%s, slice %s–%s: %u instances"), lo, hi, rsp_format_duration(s0 - origin, a, sizeof a),
                           rsp_format_duration(s1 - origin, c, sizeof c), listed);
  } else {
    head = g_strdup_printf(_("%s–%s: %u instances"), lo, hi, listed);
  }
  if (listed > MAX_LISTED_INSTANCES) {
    g_autofree char *more = g_strdup_printf(_("%s (the first %u listed)"), head, (unsigned)MAX_LISTED_INSTANCES);
    gtk_label_set_text(GTK_LABEL(p->instances_label), more);
  } else {
    gtk_label_set_text(GTK_LABEL(p->instances_label), head);
  }
  highlight(p, (const rsp_highlight *)(void *)hl->data, hl->len);
  g_array_free(hl, true);
  gtk_widget_queue_draw(p->histogram_area);
  gtk_widget_queue_draw(p->heatmap_area);
}

static void rebuild_timeline(rsp_histogram_pane *p)
{
  rsp_profile_timeline_free(p->timeline);
  p->timeline = p->selected ? rsp_profile_timeline_build(p->model, p->selected, p->slice_ns) : NULL;
  gtk_widget_queue_draw(p->heatmap_area);
}

static void on_profile_selected(GtkTreeSelection *sel, gpointer data)
{
  rsp_histogram_pane *p = data;
  GtkTreeModel *model;
  GtkTreeIter it;
  if (!p->set || !gtk_tree_selection_get_selected(sel, &model, &it))
    return;
  guint index;
  gtk_tree_model_get(model, &it, PCOL_INDEX, &index, -1);
  if (index >= rsp_profile_set_n(p->set))
    return;
  clear_selection(p);
  p->selected = rsp_profile_set_get(p->set, index);
  rebuild_timeline(p);
  const rsp_profile *pr = p->selected;
  char total[32];
  g_autofree char *title =
      pr->pid >= 0 ? g_strdup_printf(_("%s — %s [%d]: %llu ops, %s"), pr->name, pr->process, pr->pid,
                                     (unsigned long long)pr->count, rsp_profile_format_ns(pr->total_ns, total, sizeof total))
                   : g_strdup_printf(_("%s — %s: %llu ops, %s"), pr->name, pr->process, (unsigned long long)pr->count,
                                     rsp_profile_format_ns(pr->total_ns, total, sizeof total));
  gtk_label_set_text(GTK_LABEL(p->plot_title), title);
  gtk_widget_set_tooltip_text(p->plot_title, title);
}

static void on_instance_activated(GtkTreeView *view, GtkTreePath *path, GtkTreeViewColumn *col, gpointer data)
{
  rsp_histogram_pane *p = data;
  GtkTreeIter it;
  if (!gtk_tree_model_get_iter(GTK_TREE_MODEL(p->instances_store), &it, path))
    return;
  guint64 t0, t1;
  gtk_tree_model_get(GTK_TREE_MODEL(p->instances_store), &it, ICOL_T0, &t0, ICOL_T1, &t1, -1);
  if (p->hooks.show_time)
    p->hooks.show_time(t0, t1, p->hooks.data);
}

/* ---- Drawing and pointer ------------------------------------------------------------------------ */

static void draw_message(cairo_t *cr, const char *text)
{
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, 12);
  cairo_move_to(cr, 12, 24);
  cairo_show_text(cr, text);
}

static const char *empty_message(rsp_histogram_pane *p)
{
  if (!p->model)
    return _("No recording loaded.");
  if (p->job)
    return _("Building the latency profiles…");
  return _("Select a profile in the list.");
}

static gboolean on_histogram_draw(GtkWidget *area, cairo_t *cr, gpointer data)
{
  rsp_histogram_pane *p = data;
  double w = gtk_widget_get_allocated_width(area), h = gtk_widget_get_allocated_height(area);
  if (!p->selected) {
    draw_message(cr, empty_message(p));
    return TRUE;
  }
  rsp_histogram_view_draw(cr, w, h, p->selected, p->have_times ? &p->times : NULL, NULL);
  if (p->bucket != INT32_MIN) { /* the bucket clicked, outlined */
    double px, py, pw, ph;
    rsp_histogram_view_plot_area(w, h, NULL, &px, &py, &pw, &ph);
    double bw = pw / p->selected->n_buckets;
    rsp_rgb c = rsp_running_view_highlight_color();
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
    cairo_set_line_width(cr, 2);
    cairo_rectangle(cr, px + (p->bucket - p->selected->min_index) * bw + 1, py, bw - 2, ph);
    cairo_stroke(cr);
  }
  return TRUE;
}

static gboolean on_heatmap_draw(GtkWidget *area, cairo_t *cr, gpointer data)
{
  rsp_histogram_pane *p = data;
  double w = gtk_widget_get_allocated_width(area), h = gtk_widget_get_allocated_height(area);
  if (!p->selected || !p->timeline) {
    draw_message(cr, empty_message(p));
    return TRUE;
  }
  rsp_heat_map_draw(cr, w, h, p->timeline, p->selected->resolution, NULL);
  if (p->bucket != INT32_MIN) {
    double px, py, pw, ph;
    rsp_histogram_view_plot_area(w, h, NULL, &px, &py, &pw, &ph);
    double cw = pw / p->timeline->n_buckets, ch = ph / p->timeline->n_slices;
    double x = px + (p->bucket - p->timeline->min_index) * cw;
    rsp_rgb c = rsp_running_view_highlight_color();
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
    cairo_set_line_width(cr, 2);
    if (p->slice >= 0)
      cairo_rectangle(cr, x + 1, py + (double)p->slice * ch + 1, cw - 2, MAX(ch - 2, 2));
    else
      cairo_rectangle(cr, x + 1, py, cw - 2, ph);
    cairo_stroke(cr);
  }
  return TRUE;
}

static gboolean on_histogram_press(GtkWidget *area, GdkEventButton *ev, gpointer data)
{
  rsp_histogram_pane *p = data;
  gtk_widget_grab_focus(area);
  if (!p->selected || ev->type != GDK_BUTTON_PRESS || ev->button != 1)
    return FALSE;
  int32_t b = rsp_histogram_view_bucket_at(p->selected, gtk_widget_get_allocated_width(area),
                                           gtk_widget_get_allocated_height(area), NULL, ev->x);
  if (b != INT32_MIN)
    show_bucket(p, b, -1);
  return TRUE;
}

static gboolean on_heatmap_press(GtkWidget *area, GdkEventButton *ev, gpointer data)
{
  rsp_histogram_pane *p = data;
  gtk_widget_grab_focus(area);
  uint32_t slice;
  int32_t b;
  if (!p->timeline || ev->type != GDK_BUTTON_PRESS || ev->button != 1)
    return FALSE;
  if (rsp_heat_map_cell_at(p->timeline, gtk_widget_get_allocated_width(area), gtk_widget_get_allocated_height(area),
                           NULL, ev->x, ev->y, &slice, &b))
    show_bucket(p, b, slice);
  return TRUE;
}

static gboolean on_histogram_tooltip(GtkWidget *area, gint x, gint y, gboolean kbd, GtkTooltip *tip, gpointer data)
{
  rsp_histogram_pane *p = data;
  if (kbd || !p->selected)
    return FALSE;
  int32_t index = rsp_histogram_view_bucket_at(p->selected, gtk_widget_get_allocated_width(area),
                                               gtk_widget_get_allocated_height(area), NULL, x);
  if (index == INT32_MIN)
    return FALSE;
  const rsp_profile_bucket *b = &p->selected->buckets[index - p->selected->min_index];
  char lo[32], hi[32], avg[32];
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, _("%s to %s: %llu instances"), rsp_profile_format_ns(b->lo_ns, lo, sizeof lo),
                         rsp_profile_format_ns(b->hi_ns, hi, sizeof hi), (unsigned long long)b->count);
  if (b->count)
    g_string_append_printf(s, _(", mean %s"), rsp_profile_format_ns(b->total_ns / b->count, avg, sizeof avg));
  for (int c = 0; c < RSP_N_CATEGORIES; c++)
    if (b->causes[c])
      g_string_append_printf(s, "\n  %s: %" G_GUINT64_FORMAT, rsp_profile_cause_key((rsp_category)c), b->causes[c]);
  gtk_tooltip_set_text(tip, s->str);
  g_string_free(s, true);
  return TRUE;
}

static gboolean on_heatmap_tooltip(GtkWidget *area, gint x, gint y, gboolean kbd, GtkTooltip *tip, gpointer data)
{
  rsp_histogram_pane *p = data;
  uint32_t slice;
  int32_t b;
  if (kbd || !p->timeline ||
      !rsp_heat_map_cell_at(p->timeline, gtk_widget_get_allocated_width(area), gtk_widget_get_allocated_height(area),
                            NULL, x, y, &slice, &b))
    return FALSE;
  const rsp_profile_timeline *t = p->timeline;
  uint64_t n = t->counts[(size_t)slice * t->n_buckets + (uint32_t)(b - t->min_index)];
  uint64_t origin = rsp_model_time_first(p->model), s0 = t->start_ns + slice * t->slice_ns;
  char a[48], c[48], lo[32], hi[32];
  g_autofree char *text = g_strdup_printf(
      _("%s to %s, latency %s to %s: %llu instances"), rsp_format_duration(s0 - origin, a, sizeof a),
      rsp_format_duration(s0 + t->slice_ns - origin, c, sizeof c),
      rsp_profile_format_ns(rsp_profile_bucket_lo(b, p->selected->resolution), lo, sizeof lo),
      rsp_profile_format_ns(rsp_profile_bucket_lo(b + 1, p->selected->resolution), hi, sizeof hi), (unsigned long long)n);
  gtk_tooltip_set_text(tip, text);
  return TRUE;
}

/* ---- Options widgets ----------------------------------------------------------------------------- */

static void on_slice_activate(GtkEntry *entry, gpointer data)
{
  rsp_histogram_pane *p = data;
  uint64_t ns;
  if (!rsp_parse_duration(gtk_entry_get_text(entry), &ns) || ns < 1000) {
    gtk_widget_set_tooltip_text(GTK_WIDGET(entry), _("Not a duration of at least 1us: e.g. 2.5s, 100ms"));
    gtk_widget_error_bell(GTK_WIDGET(entry));
    return;
  }
  gtk_widget_set_tooltip_text(GTK_WIDGET(entry), _("Time slice of the heat map (e.g. 2.5s, 100ms); Enter applies"));
  p->slice_ns = ns;
  int32_t b = p->bucket;
  rebuild_timeline(p);
  if (b != INT32_MIN)
    show_bucket(p, b, -1);
}

static void on_resolution_changed(GtkComboBox *combo, gpointer data)
{
  rsp_histogram_pane *p = data;
  const char *id = gtk_combo_box_get_active_id(combo);
  unsigned r = id ? (unsigned)atoi(id) : 1;
  if (r == p->resolution)
    return;
  p->resolution = r;
  rebuild(p);
}

static void on_clear_filter(GtkButton *b, gpointer data)
{
  rsp_histogram_pane *p = data;
  p->pid = -1;
  p->t0 = p->t1 = 0;
  rebuild(p);
}

/* ---- Public ---------------------------------------------------------------------------------------- */

static const struct {
  const char *id, *name;
} accessible_names[] = {
  { "profiles_view", N_("Latency profiles") },
  { "histogram_area", N_("Latency histogram") },
  { "heatmap_area", N_("Latency heat map") },
  { "instances_view", N_("Instances of the bucket") },
  { "instances_label", N_("Bucket summary") },
  { "hist_filter_label", N_("Histogram filter") },
  { "hist_clear_button", N_("Show all profiles") },
  { "slice_entry", N_("Heat map time slice") },
  { "resolution_combo", N_("Buckets per octave") },
  { "plot_switcher", N_("Histogram or heat map") },
  { "plot_title", N_("Selected profile") },
};

/* The window is going: no build may land in widgets being destroyed. */
static void on_top_destroy(GtkWidget *top, gpointer data)
{
  rsp_histogram_pane *p = data;
  abandon_job(p);
  p->model = NULL;
}

rsp_histogram_pane *rsp_histogram_pane_new(const rsp_histogram_pane_hooks *hooks,
                                           const rsp_histogram_pane_options *options)
{
  rsp_histogram_pane *p = g_new0(rsp_histogram_pane, 1);
  if (hooks)
    p->hooks = *hooks;
  p->resolution = options && options->resolution ? options->resolution : 1;
  p->slice_ns = options && options->slice_ns ? options->slice_ns : 2500000000ull;
  p->first_class = options ? g_strdup(options->first_class) : NULL;
  p->first_heatmap = options && options->heatmap;
  p->first_pid = options ? options->pid : -1;
  p->pid = -1;
  p->bucket = INT32_MIN;
  p->slice = -1;
  p->builder = gtk_builder_new_from_resource("/org/rsp/view/histogram-pane.ui");
  p->top = g_object_ref_sink(obj(p, "histogram_pane"));
  p->profiles_view = obj(p, "profiles_view");
  p->histogram_area = obj(p, "histogram_area");
  p->heatmap_area = obj(p, "heatmap_area");
  p->plot_stack = obj(p, "plot_stack");
  p->plot_title = obj(p, "plot_title");
  p->filter_label = obj(p, "hist_filter_label");
  p->clear_button = obj(p, "hist_clear_button");
  p->instances_view = obj(p, "instances_view");
  p->instances_label = obj(p, "instances_label");
  p->slice_entry = obj(p, "slice_entry");
  p->resolution_combo = obj(p, "resolution_combo");
  p->profiles_store = GTK_LIST_STORE(gtk_builder_get_object(p->builder, "profiles_store"));
  p->instances_store = GTK_LIST_STORE(gtk_builder_get_object(p->builder, "instances_store"));
  for (unsigned i = 0; i < G_N_ELEMENTS(accessible_names); i++)
    atk_object_set_name(gtk_widget_get_accessible(obj(p, accessible_names[i].id)), _(accessible_names[i].name));
  char slice[48];
  rsp_format_duration(p->slice_ns, slice, sizeof slice);
  gtk_entry_set_text(GTK_ENTRY(p->slice_entry), slice);
  char res[4];
  snprintf(res, sizeof res, "%u", p->resolution);
  gtk_combo_box_set_active_id(GTK_COMBO_BOX(p->resolution_combo), res);
  gtk_widget_add_events(p->histogram_area, GDK_BUTTON_PRESS_MASK);
  gtk_widget_add_events(p->heatmap_area, GDK_BUTTON_PRESS_MASK);
  g_signal_connect(p->histogram_area, "draw", G_CALLBACK(on_histogram_draw), p);
  g_signal_connect(p->heatmap_area, "draw", G_CALLBACK(on_heatmap_draw), p);
  g_signal_connect(p->histogram_area, "button-press-event", G_CALLBACK(on_histogram_press), p);
  g_signal_connect(p->heatmap_area, "button-press-event", G_CALLBACK(on_heatmap_press), p);
  g_signal_connect(p->histogram_area, "query-tooltip", G_CALLBACK(on_histogram_tooltip), p);
  g_signal_connect(p->heatmap_area, "query-tooltip", G_CALLBACK(on_heatmap_tooltip), p);
  g_signal_connect(gtk_tree_view_get_selection(GTK_TREE_VIEW(p->profiles_view)), "changed",
                   G_CALLBACK(on_profile_selected), p);
  g_signal_connect(p->instances_view, "row-activated", G_CALLBACK(on_instance_activated), p);
  g_signal_connect(p->slice_entry, "activate", G_CALLBACK(on_slice_activate), p);
  g_signal_connect(p->resolution_combo, "changed", G_CALLBACK(on_resolution_changed), p);
  g_signal_connect(p->clear_button, "clicked", G_CALLBACK(on_clear_filter), p);
  g_signal_connect(p->top, "destroy", G_CALLBACK(on_top_destroy), p);
  return p;
}

GtkWidget *rsp_histogram_pane_widget(rsp_histogram_pane *p)
{
  return p->top;
}

void rsp_histogram_pane_set_model(rsp_histogram_pane *p, const rsp_model *model)
{
  rsp_histogram_pane_set_model_pid(p, model, -1);
}

void rsp_histogram_pane_set_model_pid(rsp_histogram_pane *p, const rsp_model *model, int32_t pid)
{
  abandon_job(p);
  clear_selection(p);
  p->model = model;
  p->have_times = false;
  p->pid = !model ? -1 : !p->first_done && p->first_pid >= 0 ? p->first_pid : pid;
  p->t0 = p->t1 = 0;
  rebuild(p);
}

void rsp_histogram_pane_set_pid(rsp_histogram_pane *p, int32_t pid)
{
  if (pid == p->pid)
    return;
  p->pid = pid;
  rebuild(p);
}

void rsp_histogram_pane_set_range(rsp_histogram_pane *p, uint64_t t0, uint64_t t1)
{
  if (t1 <= t0)
    t0 = t1 = 0;
  if (t0 == p->t0 && t1 == p->t1)
    return;
  p->t0 = t0;
  p->t1 = t1;
  rebuild(p);
}

int32_t rsp_histogram_pane_pid(const rsp_histogram_pane *p)
{
  return p->pid;
}

bool rsp_histogram_pane_busy(const rsp_histogram_pane *p)
{
  return p->job != NULL;
}

void rsp_histogram_pane_free(rsp_histogram_pane *p)
{
  if (!p)
    return;
  abandon_job(p);
  rsp_profile_timeline_free(p->timeline);
  rsp_profile_set_free(p->set);
  g_object_unref(p->top);
  g_object_unref(p->builder);
  g_free(p->first_class);
  g_free(p);
}

/* ---- Self-test ------------------------------------------------------------------------------------ */

static void pump(void)
{
  while (gtk_events_pending())
    gtk_main_iteration();
}

static bool wait_built(rsp_histogram_pane *p)
{
  for (int i = 0; i < 6000 && p->job; i++) {
    pump();
    g_usleep(10000);
  }
  pump();
  return !p->job;
}

/* Clicks (as the pointer would) at (X, Y) of AREA. */
static void click(GtkWidget *area, double x, double y)
{
  GdkEvent *ev = gdk_event_new(GDK_BUTTON_PRESS);
  ev->button.window = g_object_ref(gtk_widget_get_window(area));
  ev->button.button = 1;
  ev->button.x = x;
  ev->button.y = y;
  gboolean handled;
  g_signal_emit_by_name(area, "button-press-event", ev, &handled);
  gdk_event_free(ev);
}

static uint32_t n_rows(GtkListStore *s)
{
  return (uint32_t)gtk_tree_model_iter_n_children(GTK_TREE_MODEL(s), NULL);
}

/* The listed row whose profile has the most instances (the richest bucket test). */
static uint32_t busiest_row(rsp_histogram_pane *p)
{
  uint32_t best = 0, n = MIN(rsp_profile_set_n(p->set), MAX_LISTED_PROFILES);
  for (uint32_t i = 1; i < n; i++)
    if (rsp_profile_set_get(p->set, i)->count > rsp_profile_set_get(p->set, best)->count)
      best = i;
  return best;
}

/* Clicks the middle of the selected profile's fullest bar; returns its bucket. */
static const rsp_profile_bucket *click_fullest(rsp_histogram_pane *p)
{
  const rsp_profile *pr = p->selected;
  uint32_t fullest = 0;
  for (uint32_t i = 0; i < pr->n_buckets; i++)
    if (pr->buckets[i].count > pr->buckets[fullest].count)
      fullest = i;
  double w = gtk_widget_get_allocated_width(p->histogram_area), h = gtk_widget_get_allocated_height(p->histogram_area);
  double px, py, pw, ph;
  rsp_histogram_view_plot_area(w, h, NULL, &px, &py, &pw, &ph);
  click(p->histogram_area, px + (fullest + 0.5) * pw / pr->n_buckets, py + ph / 2);
  pump();
  return &pr->buckets[fullest];
}

uint32_t rsp_histogram_pane_n_highlighted(const rsp_histogram_pane *p)
{
  return p->n_highlighted;
}

void rsp_histogram_pane_self_test(rsp_histogram_pane *p, rsp_self_check_fn check, void *data)
{
  for (unsigned i = 0; i < G_N_ELEMENTS(accessible_names); i++) {
    const char *name = atk_object_get_name(gtk_widget_get_accessible(obj(p, accessible_names[i].id)));
    g_autofree char *what = g_strdup_printf("accessible name of %s is \"%s\"", accessible_names[i].id,
                                            name ? name : "(null)");
    check(name && !strcmp(name, _(accessible_names[i].name)), what, data);
  }
  check(wait_built(p), "the latency profiles were built in the worker", data);
  if (p->pid >= 0 || p->t1 > p->t0) { /* the whole recording's */
    gtk_button_clicked(GTK_BUTTON(p->clear_button));
    wait_built(p);
  }
  char what[256];
  snprintf(what, sizeof what, "the histograms pane lists the profiles (%u, built in %.1f ms)",
           p->set ? rsp_profile_set_n(p->set) : 0, p->build_ms);
  check(p->set && rsp_profile_set_n(p->set) > 0 && n_rows(p->profiles_store) > 0, what, data);
  if (!p->set || !rsp_profile_set_n(p->set))
    return;
  bool sorted = true;
  for (uint32_t i = 1; i < rsp_profile_set_n(p->set); i++)
    sorted &= rsp_profile_set_get(p->set, i - 1)->total_ns >= rsp_profile_set_get(p->set, i)->total_ns;
  check(sorted, "the profiles are sorted by total latency", data);
  gtk_stack_set_visible_child_name(GTK_STACK(p->plot_stack), "histogram");
  select_row(p, 0);
  pump();
  check(p->selected == rsp_profile_set_get(p->set, 0), "the first row selects the largest profile", data);
  uint32_t row = busiest_row(p);
  select_row(p, row);
  pump();
  check(p->selected == rsp_profile_set_get(p->set, row), "selecting a row selects its profile", data);
  check(gtk_widget_get_mapped(p->histogram_area), "the histogram is on screen", data);
  /* a click on the fullest bucket lists its instances, each of that bucket's length */
  const rsp_profile *pr = p->selected;
  const rsp_profile_bucket *b = click_fullest(p);
  double w, h, px, py, pw, ph;
  snprintf(what, sizeof what, "clicking bucket %d lists its %" G_GUINT64_FORMAT " instances (listed %u)",
           b->index, b->count, n_rows(p->instances_store));
  check(p->bucket == b->index && n_rows(p->instances_store) == MIN(b->count, (uint64_t)MAX_LISTED_INSTANCES), what,
        data);
  snprintf(what, sizeof what, "and hands them to the running view to highlight (%u)", p->n_highlighted);
  check(p->n_highlighted == b->count, what, data);
  bool lengths = true;
  GtkTreeIter it;
  for (gboolean ok = gtk_tree_model_get_iter_first(GTK_TREE_MODEL(p->instances_store), &it); ok;
       ok = gtk_tree_model_iter_next(GTK_TREE_MODEL(p->instances_store), &it)) {
    guint64 t0, t1;
    gtk_tree_model_get(GTK_TREE_MODEL(p->instances_store), &it, ICOL_T0, &t0, ICOL_T1, &t1, -1);
    lengths &= t1 - t0 >= b->lo_ns && t1 - t0 < b->hi_ns;
  }
  check(lengths, "every instance listed lasts within the bucket's range", data);
  /* the heat map: the same buckets; a click on a cell lists the instances that began in its slice */
  gtk_stack_set_visible_child_name(GTK_STACK(p->plot_stack), "heatmap");
  pump();
  check(gtk_widget_get_mapped(p->heatmap_area) && p->timeline && p->timeline->n_buckets == pr->n_buckets,
        "the heat map is on screen, with the profile's buckets", data);
  if (p->timeline && p->timeline->n_slices) {
    const rsp_profile_timeline *t = p->timeline;
    uint64_t total = 0;
    for (size_t i = 0; i < (size_t)t->n_slices * t->n_buckets; i++)
      total += t->counts[i];
    check(total == pr->count, "the heat map's cells add up to the profile's count", data);
    uint32_t cs = 0, cb = 0;
    for (uint32_t s = 0; s < t->n_slices; s++)
      for (uint32_t k = 0; k < t->n_buckets; k++)
        if (t->counts[(size_t)s * t->n_buckets + k] > t->counts[(size_t)cs * t->n_buckets + cb])
          cs = s, cb = k;
    w = gtk_widget_get_allocated_width(p->heatmap_area);
    h = gtk_widget_get_allocated_height(p->heatmap_area);
    rsp_histogram_view_plot_area(w, h, NULL, &px, &py, &pw, &ph);
    click(p->heatmap_area, px + (cb + 0.5) * pw / t->n_buckets, py + (cs + 0.5) * ph / t->n_slices);
    pump();
    uint64_t want = t->counts[(size_t)cs * t->n_buckets + cb];
    snprintf(what, sizeof what, "clicking the fullest heat-map cell lists its %" G_GUINT64_FORMAT " instances (%u)",
             want, p->n_highlighted);
    check(p->slice == (int64_t)cs && p->n_highlighted == want, what, data);
  }
  gtk_stack_set_visible_child_name(GTK_STACK(p->plot_stack), "histogram");
  /* filters: one process, then half the recording */
  int32_t pid = -1;
  for (uint32_t i = 0; i < rsp_profile_set_n(p->set) && pid < 0; i++)
    pid = rsp_profile_set_get(p->set, i)->pid;
  rsp_histogram_pane_set_pid(p, pid);
  check(wait_built(p) && p->set, "filtering by a process rebuilds the profiles", data);
  bool only = p->set && rsp_profile_set_n(p->set) > 0;
  for (uint32_t i = 0; p->set && i < rsp_profile_set_n(p->set); i++)
    only &= rsp_profile_set_get(p->set, i)->pid == pid;
  snprintf(what, sizeof what, "with process %d selected, every profile listed is of that process", pid);
  check(only, what, data);
  uint64_t lo = rsp_model_time_first(p->model), hi = rsp_model_time_last(p->model), mid = lo + (hi - lo) / 2;
  rsp_histogram_pane_set_pid(p, -1);
  rsp_histogram_pane_set_range(p, lo, mid);
  check(wait_built(p) && p->set, "filtering by a time range rebuilds the profiles", data);
  bool inside = true;
  for (uint32_t i = 0; p->set && i < rsp_profile_set_n(p->set); i++) {
    const rsp_profile *q = rsp_profile_set_get(p->set, i);
    for (uint32_t k = 0; k < q->n_instances; k++) {
      uint64_t t = rsp_profile_instance_time(p->model, q, &q->instances[k]);
      inside &= t >= lo && t < mid;
    }
  }
  check(inside, "with the first half of the recording selected, every instance begins in it", data);
  gtk_button_clicked(GTK_BUTTON(p->clear_button));
  check(wait_built(p) && p->pid < 0 && p->t1 == 0 && p->set, "All clears the filters", data);
  /* left with the busiest profile's fullest bucket clicked: its instances highlighted */
  if (p->set && n_rows(p->profiles_store)) {
    select_row(p, busiest_row(p));
    pump();
    click_fullest(p);
    /* and its first instance double-clicked: the window shows it */
    GtkTreePath *first = gtk_tree_path_new_first();
    gtk_tree_view_row_activated(GTK_TREE_VIEW(p->instances_view), first,
                                gtk_tree_view_get_column(GTK_TREE_VIEW(p->instances_view), 0));
    gtk_tree_path_free(first);
    pump();
  }
}
