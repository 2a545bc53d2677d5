/* The loading worker: rsp_model_load in a thread, progress as an atomic, done back on the main
 * loop through g_idle_add. */
#include "app/loader.h"

#include <gio/gio.h>

struct rsp_loader {
  char *path;
  rsp_loader_done done;
  void *data;
  GThread *thread;
  gint permille;  /* atomic: -1 unknown, else 0..1000 */
  gint cancelled; /* atomic */
  rsp_model *model;
  rsp_running_view *view;
  GError *error;
};

static bool on_progress(uint64_t offset, uint64_t size, void *user_data)
{
  rsp_loader *l = user_data;
  g_atomic_int_set(&l->permille, size ? (gint)(offset * 1000 / size) : -1);
  return !g_atomic_int_get(&l->cancelled);
}

static gboolean finish(gpointer data)
{
  rsp_loader *l = data;
  g_thread_join(l->thread);
  l->thread = NULL;
  rsp_model *m = l->model;
  rsp_running_view *v = l->view;
  l->model = NULL;
  l->view = NULL;
  l->done(m, v, l->error, l->data);
  return G_SOURCE_REMOVE;
}

static gpointer work(gpointer data)
{
  rsp_loader *l = data;
  rsp_model_options o = { .progress = on_progress, .progress_data = l };
  l->model = rsp_model_load(l->path, &o, &l->error);
  if (l->model && g_atomic_int_get(&l->cancelled)) {
    rsp_model_free(l->model);
    l->model = NULL;
    g_set_error(&l->error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s: loading cancelled", l->path);
  }
  if (l->model)
    l->view = rsp_running_view_new(l->model);
  g_idle_add(finish, l);
  return NULL;
}

rsp_loader *rsp_loader_start(const char *path, rsp_loader_done done, void *data)
{
  rsp_loader *l = g_new0(rsp_loader, 1);
  l->path = g_strdup(path);
  l->done = done;
  l->data = data;
  l->thread = g_thread_new("rsp-load", work, l);
  return l;
}

double rsp_loader_fraction(const rsp_loader *l)
{
  gint p = g_atomic_int_get(&((rsp_loader *)l)->permille);
  return p < 0 ? -1 : p / 1000.0;
}

void rsp_loader_cancel(rsp_loader *l)
{
  g_atomic_int_set(&l->cancelled, 1);
}

void rsp_loader_free(rsp_loader *l)
{
  if (!l)
    return;
  g_clear_error(&l->error);
  g_free(l->path);
  g_free(l);
}

void rsp_loader_abandon(rsp_loader *l)
{
  if (!l)
    return;
  rsp_loader_cancel(l);
  if (l->thread) {
    g_thread_join(l->thread);
    l->thread = NULL;
    while (g_source_remove_by_user_data(l))
      ;
  }
  if (l->view)
    rsp_running_view_free(l->view);
  if (l->model)
    rsp_model_free(l->model);
  rsp_loader_free(l);
}
