/* The process picker: the toolbar's "Process…" button opens a popover listing every process that
 * ran (name, pid, CPU time, wall time: first run to last, and LTT's accounting of its threads' lives:
 * user and kernel running, I/O wait, waiting for others, runnable, and the kernel work others did for
 * it, pkprof), searchable, sortable by each column, busiest first; choosing one opens the window on
 * its story (app_open_process). */
#include "app/app-private.h"

#include <glib/gi18n.h>
#include <string.h>

/* The columns of durations: each a uint64_t (ns, to sort by) and its text. */
enum { DUR_CPU, DUR_WALL, DUR_USER, DUR_KERNEL, DUR_IO_WAIT, DUR_WAITING, DUR_RUNNABLE, DUR_KWORK, N_DURS };
enum { COL_NAME, COL_PID, COL_SEARCH, COL_DUR0, COL_TEXT0 = COL_DUR0 + N_DURS, N_COLS = COL_TEXT0 + N_DURS };

static void fill(win *w)
{
  gtk_list_store_clear(w->picker_store);
  if (!w->model)
    return;
  const rsp_model *m = w->model;
  g_autoptr(GHashTable) procs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  typedef struct {
    uint64_t cpu, first, last;
  } acc;
  for (uint32_t i = 0; i < rsp_model_n_tasks(m); i++) {
    const rsp_task *t = rsp_model_task(m, i);
    if (!t->n_runs || (t->pid <= 0 && t->tid <= 0))
      continue;
    int32_t pid = t->pid >= 0 ? t->pid : t->tid;
    acc *a = g_hash_table_lookup(procs, GINT_TO_POINTER(pid));
    if (!a) {
      a = g_new0(acc, 1);
      a->first = UINT64_MAX;
      g_hash_table_insert(procs, GINT_TO_POINTER(pid), a);
    }
    for (uint32_t r = 0; r < t->n_runs; r++) {
      const rsp_run *run = rsp_model_run(m, rsp_model_task_run(m, i, r));
      a->cpu += run->end - run->start;
      a->first = MIN(a->first, run->start);
      a->last = MAX(a->last, run->end);
    }
  }
  /* LTT's columns, by pid */
  uint32_t n_rows = 0;
  g_autofree rsp_accounting_row *rows = rsp_accounting_compute_kwork(m, app_kernel_work(w), &n_rows);
  g_autoptr(GHashTable) row_of = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (uint32_t i = 0; i < n_rows; i++)
    g_hash_table_insert(row_of, GINT_TO_POINTER(rows[i].pid), &rows[i]);
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, procs);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    const acc *a = value;
    int32_t pid = GPOINTER_TO_INT(key);
    const rsp_accounting_row *r = g_hash_table_lookup(row_of, GINT_TO_POINTER(pid));
    uint64_t d[N_DURS] = { [DUR_CPU] = a->cpu, [DUR_WALL] = a->last - a->first };
    if (r) {
      d[DUR_USER] = r->ns[RSP_ACCT_USER];
      d[DUR_KERNEL] = r->ns[RSP_ACCT_KERNEL];
      d[DUR_IO_WAIT] = r->ns[RSP_ACCT_IO_WAIT];
      d[DUR_WAITING] = r->ns[RSP_ACCT_WAITING];
      d[DUR_RUNNABLE] = r->ns[RSP_ACCT_RUNNABLE];
      d[DUR_KWORK] = r->kernel_work_ns;
    }
    const char *name = app_process_name(m, pid);
    g_autofree char *search = g_strdup_printf("%s %d", name, pid);
    GtkTreeIter row;
    gtk_list_store_insert_with_values(w->picker_store, &row, -1, COL_NAME, name, COL_PID, pid, COL_SEARCH, search, -1);
    for (int k = 0; k < N_DURS; k++) {
      char text[48];
      gtk_list_store_set(w->picker_store, &row, COL_DUR0 + k, d[k], COL_TEXT0 + k,
                         rsp_format_duration(d[k], text, sizeof text), -1);
    }
  }
}

static gboolean visible(GtkTreeModel *model, GtkTreeIter *iter, gpointer data)
{
  win *w = data;
  const char *text = gtk_entry_get_text(GTK_ENTRY(w->picker_entry));
  if (!text || !*text)
    return TRUE;
  g_autofree char *hay = NULL;
  gtk_tree_model_get(model, iter, COL_SEARCH, &hay, -1);
  g_autofree char *h = g_utf8_casefold(hay ? hay : "", -1), *n = g_utf8_casefold(text, -1);
  return strstr(h, n) != NULL;
}

static void on_picker_search(GtkSearchEntry *entry, gpointer data)
{
  win *w = data;
  gtk_tree_model_filter_refilter(GTK_TREE_MODEL_FILTER(w->picker_filter));
  GtkTreeIter first;
  GtkTreeModel *shown = gtk_tree_view_get_model(GTK_TREE_VIEW(w->picker_list));
  if (gtk_tree_model_get_iter_first(shown, &first))
    gtk_tree_selection_select_iter(gtk_tree_view_get_selection(GTK_TREE_VIEW(w->picker_list)), &first);
}

/* The process of row PATH chosen. */
static void on_row_activated(GtkTreeView *view, GtkTreePath *path, GtkTreeViewColumn *col, gpointer data)
{
  win *w = data;
  GtkTreeIter iter;
  GtkTreeModel *model = gtk_tree_view_get_model(view);
  if (!gtk_tree_model_get_iter(model, &iter, path))
    return;
  gint pid = -1;
  gtk_tree_model_get(model, &iter, COL_PID, &pid, -1);
  gtk_popover_popdown(GTK_POPOVER(w->picker_popover));
  if (pid >= 0)
    app_open_process(w, pid);
}

/* Enter in the search entry: the first (selected) row. */
static void on_picker_activate(GtkEntry *entry, gpointer data)
{
  win *w = data;
  GtkTreeModel *model;
  GtkTreeIter iter;
  if (!gtk_tree_selection_get_selected(gtk_tree_view_get_selection(GTK_TREE_VIEW(w->picker_list)), &model, &iter))
    return;
  g_autoptr(GtkTreePath) path = gtk_tree_model_get_path(model, &iter);
  on_row_activated(GTK_TREE_VIEW(w->picker_list), path, NULL, w);
}

static void add_column(win *w, const char *title, int text_col, int sort_col, float xalign)
{
  GtkCellRenderer *r = gtk_cell_renderer_text_new();
  g_object_set(r, "xalign", xalign, NULL);
  GtkTreeViewColumn *c = gtk_tree_view_column_new_with_attributes(title, r, "text", text_col, NULL);
  gtk_tree_view_column_set_sort_column_id(c, sort_col);
  gtk_tree_view_column_set_resizable(c, TRUE);
  gtk_tree_view_append_column(GTK_TREE_VIEW(w->picker_list), c);
}

void process_picker_model_changed(win *w)
{
  fill(w);
}

uint32_t process_picker_n_shown(win *w)
{
  return (uint32_t)gtk_tree_model_iter_n_children(gtk_tree_view_get_model(GTK_TREE_VIEW(w->picker_list)), NULL);
}

bool process_picker_choose_first(win *w, const char *search)
{
  gtk_entry_set_text(GTK_ENTRY(w->picker_entry), search);
  on_picker_search(GTK_SEARCH_ENTRY(w->picker_entry), w);
  GtkTreeModel *model;
  GtkTreeIter iter;
  if (!gtk_tree_selection_get_selected(gtk_tree_view_get_selection(GTK_TREE_VIEW(w->picker_list)), &model, &iter))
    return false;
  on_picker_activate(GTK_ENTRY(w->picker_entry), w);
  return true;
}

void process_picker_attach(win *w)
{
  w->picker_button = obj(w, "process_button");
  GType types[N_COLS] = { [COL_NAME] = G_TYPE_STRING, [COL_PID] = G_TYPE_INT, [COL_SEARCH] = G_TYPE_STRING };
  for (int k = 0; k < N_DURS; k++) {
    types[COL_DUR0 + k] = G_TYPE_UINT64;
    types[COL_TEXT0 + k] = G_TYPE_STRING;
  }
  w->picker_store = gtk_list_store_newv(N_COLS, types);
  w->picker_filter = gtk_tree_model_filter_new(GTK_TREE_MODEL(w->picker_store), NULL);
  gtk_tree_model_filter_set_visible_func(GTK_TREE_MODEL_FILTER(w->picker_filter), visible, w, NULL);
  GtkTreeModel *sorted = gtk_tree_model_sort_new_with_model(w->picker_filter);
  gtk_tree_sortable_set_sort_column_id(GTK_TREE_SORTABLE(sorted), COL_DUR0 + DUR_CPU, GTK_SORT_DESCENDING);
  w->picker_list = gtk_tree_view_new_with_model(sorted);
  g_object_unref(sorted);
  gtk_tree_view_set_enable_search(GTK_TREE_VIEW(w->picker_list), FALSE);
  add_column(w, _("Process"), COL_NAME, COL_NAME, 0);
  add_column(w, _("Pid"), COL_PID, COL_PID, 1);
  static const char *const titles[N_DURS] = {
    [DUR_CPU] = N_("CPU"), [DUR_WALL] = N_("Wall"), [DUR_USER] = N_("User"), [DUR_KERNEL] = N_("Kernel"),
    [DUR_IO_WAIT] = N_("I/O wait"), [DUR_WAITING] = N_("Waiting"), [DUR_RUNNABLE] = N_("Runnable"),
    [DUR_KWORK] = N_("Kernel work for it"),
  };
  for (int k = 0; k < N_DURS; k++)
    add_column(w, _(titles[k]), COL_TEXT0 + k, COL_DUR0 + k, 1);
  w->picker_entry = gtk_search_entry_new();
  gtk_entry_set_placeholder_text(GTK_ENTRY(w->picker_entry), _("Name or pid"));
  GtkWidget *scroll = gtk_scrolled_window_new(NULL, NULL);
  gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroll), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_size_request(scroll, 900, 360);
  gtk_container_add(GTK_CONTAINER(scroll), w->picker_list);
  GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
  gtk_container_set_border_width(GTK_CONTAINER(box), 6);
  GtkWidget *hint = gtk_label_new(_("Choose the process whose story to show (double-click or Enter)"));
  gtk_label_set_xalign(GTK_LABEL(hint), 0);
  gtk_box_pack_start(GTK_BOX(box), hint, FALSE, FALSE, 0);
  gtk_box_pack_start(GTK_BOX(box), w->picker_entry, FALSE, FALSE, 0);
  gtk_box_pack_start(GTK_BOX(box), scroll, TRUE, TRUE, 0);
  gtk_widget_show_all(box);
  w->picker_popover = gtk_popover_new(w->picker_button);
  gtk_container_add(GTK_CONTAINER(w->picker_popover), box);
  gtk_menu_button_set_popover(GTK_MENU_BUTTON(w->picker_button), w->picker_popover);
  atk_object_set_name(gtk_widget_get_accessible(w->picker_entry), _("Search processes"));
  atk_object_set_name(gtk_widget_get_accessible(w->picker_list), _("Processes"));
  g_signal_connect(w->picker_entry, "search-changed", G_CALLBACK(on_picker_search), w);
  g_signal_connect(w->picker_entry, "activate", G_CALLBACK(on_picker_activate), w);
  g_signal_connect(w->picker_list, "row-activated", G_CALLBACK(on_row_activated), w);
}

void process_picker_free(win *w)
{
  g_clear_object(&w->picker_filter);
  g_clear_object(&w->picker_store);
}
