/* What rsp-view remembers between runs, in $XDG_CONFIG_HOME/rsp/rsp-view.ini (GKeyFile): the
 * window's size, the positions of its panes, the recordings opened last (the Recent menu beside
 * Open). Read when the window opens, written when it closes and when a recording loads. */
#include "app/app-private.h"

#include <glib/gi18n.h>
#include <string.h>

#define MAX_RECENT 10

char *settings_path(void)
{
  return g_build_filename(g_get_user_config_dir(), "rsp", "rsp-view.ini", NULL);
}

static GKeyFile *load(void)
{
  GKeyFile *k = g_key_file_new();
  g_autofree char *path = settings_path();
  g_key_file_load_from_file(k, path, G_KEY_FILE_KEEP_COMMENTS, NULL);
  return k;
}

static void save(GKeyFile *k)
{
  g_autofree char *path = settings_path();
  g_autofree char *dir = g_path_get_dirname(path);
  g_mkdir_with_parents(dir, 0700);
  g_autoptr(GError) error = NULL;
  if (!g_key_file_save_to_file(k, path, &error))
    g_printerr("rsp-view: %s\n", error->message);
}

static int get_int(GKeyFile *k, const char *group, const char *key, int fallback)
{
  g_autoptr(GError) error = NULL;
  int v = g_key_file_get_integer(k, group, key, &error);
  return error ? fallback : v;
}

/* The panes whose positions are kept, by key. */
static GtkWidget *pane(win *w, const char *key)
{
  if (!strcmp(key, "details"))
    return obj(w, "paned");
  if (!strcmp(key, "histograms"))
    return w->histograms_split;
  if (!strcmp(key, "explanation"))
    return obj(w, "consolidated_paned");
  return NULL;
}

static const char *const pane_keys[] = { "details", "histograms", "explanation" };

void settings_restore_window(win *w)
{
  g_autoptr(GKeyFile) k = load();
  int width = get_int(k, "window", "width", 0), height = get_int(k, "window", "height", 0);
  if (width > 200 && height > 200)
    gtk_window_set_default_size(GTK_WINDOW(w->window), width, height);
  if (get_int(k, "window", "maximized", 0))
    gtk_window_maximize(GTK_WINDOW(w->window));
  for (unsigned i = 0; i < G_N_ELEMENTS(pane_keys); i++) {
    int pos = get_int(k, "panes", pane_keys[i], -1);
    GtkWidget *p = pane(w, pane_keys[i]);
    if (pos > 50 && p)
      gtk_paned_set_position(GTK_PANED(p), pos);
  }
  settings_update_recent_menu(w);
}

void settings_save_window(win *w)
{
  if (!w->window)
    return;
  g_autoptr(GKeyFile) k = load();
  int width, height;
  gtk_window_get_size(GTK_WINDOW(w->window), &width, &height);
  bool maximized = gtk_window_is_maximized(GTK_WINDOW(w->window));
  g_key_file_set_integer(k, "window", "maximized", maximized);
  if (!maximized) {
    g_key_file_set_integer(k, "window", "width", width);
    g_key_file_set_integer(k, "window", "height", height);
  }
  for (unsigned i = 0; i < G_N_ELEMENTS(pane_keys); i++) {
    GtkWidget *p = pane(w, pane_keys[i]);
    if (p)
      g_key_file_set_integer(k, "panes", pane_keys[i], gtk_paned_get_position(GTK_PANED(p)));
  }
  save(k);
}

char **settings_recent(void)
{
  g_autoptr(GKeyFile) k = load();
  char **files = g_key_file_get_string_list(k, "recent", "files", NULL, NULL);
  return files ? files : g_new0(char *, 1);
}

void settings_add_recent(win *w, const char *file)
{
  g_autofree char *abs = g_canonicalize_filename(file, NULL);
  g_autoptr(GKeyFile) k = load();
  g_auto(GStrv) old = g_key_file_get_string_list(k, "recent", "files", NULL, NULL);
  GPtrArray *files = g_ptr_array_new();
  g_ptr_array_add(files, abs);
  for (guint i = 0; old && old[i] && files->len < MAX_RECENT; i++)
    if (strcmp(old[i], abs))
      g_ptr_array_add(files, old[i]);
  g_key_file_set_string_list(k, "recent", "files", (const char *const *)files->pdata, files->len);
  g_ptr_array_free(files, TRUE);
  save(k);
  settings_update_recent_menu(w);
}

static void on_recent(GtkMenuItem *item, gpointer data)
{
  win *w = data;
  app_load(w, g_object_get_data(G_OBJECT(item), "rsp-file"));
}

void settings_update_recent_menu(win *w)
{
  GtkWidget *button = obj(w, "recent_button");
  GtkWidget *menu = gtk_menu_new();
  g_auto(GStrv) files = settings_recent();
  for (guint i = 0; files[i]; i++) {
    GtkWidget *item = gtk_menu_item_new_with_label(files[i]);
    g_object_set_data_full(G_OBJECT(item), "rsp-file", g_strdup(files[i]), g_free);
    g_signal_connect(item, "activate", G_CALLBACK(on_recent), w);
    gtk_menu_shell_append(GTK_MENU_SHELL(menu), item);
  }
  if (!files[0]) {
    GtkWidget *item = gtk_menu_item_new_with_label(_("No recording opened yet"));
    gtk_widget_set_sensitive(item, FALSE);
    gtk_menu_shell_append(GTK_MENU_SHELL(menu), item);
  }
  gtk_widget_show_all(menu);
  gtk_menu_button_set_popup(GTK_MENU_BUTTON(button), menu);
}
