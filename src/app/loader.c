/* The loading worker: rsp_model_load in a thread, progress as an atomic, done back on the main
 * loop through g_idle_add. A big recording is loaded twice: its first seconds alone (a time window,
 * read without FILE.rsp-index so that nothing past it is read), handed over at once to be drawn, then
 * the whole (issue 18: a 3.8 GB recording's first picture after 0.5 s instead of 21 s). */
#include "app/loader.h"
#include "app/app.h"

#include <gio/gio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

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
  rsp_model *first;          /* the first window's model, on its way to the main thread */
  rsp_running_view *first_view;
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
#ifdef __GLIBC__
  /* the loading thread's arena keeps the pages its temporaries freed (6 MB on a 1.1 GB recording): give them back
   * before the views of the process are built */
  malloc_trim(0);
#endif
  rsp_model *m = l->model;
  rsp_running_view *v = l->view;
  l->model = NULL;
  l->view = NULL;
  l->done(m, v, l->error, false, l->data);
  return G_SOURCE_REMOVE;
}

static gboolean hand_over_first(gpointer data)
{
  rsp_loader *l = data;
  rsp_model *m = l->first;
  rsp_running_view *v = l->first_view;
  l->first = NULL;
  l->first_view = NULL;
  if (m)
    l->done(m, v, NULL, true, l->data);
  return G_SOURCE_REMOVE;
}

static uint64_t progressive_bytes(void)
{
  const char *e = getenv("RSP_VIEW_PROGRESSIVE_BYTES");
  return e && *e ? g_ascii_strtoull(e, NULL, 10) : RSP_LOADER_PROGRESSIVE_BYTES;
}

/* The first window's length (ns from the recording's start) for a big regular file, else 0: the span
 * in which the recording wrote about RSP_LOADER_FIRST_WINDOW_BYTES (at most a quarter of it), by its
 * header's first and last sample times (one second when it has none), at least 100 ms, and shorter
 * than the recording. */
static uint64_t first_window_ns(const char *path)
{
  GError *error = NULL;
  rsp_reader *r = rsp_reader_open(path, NULL, &error);
  if (!r) {
    g_clear_error(&error);
    return 0;
  }
  const rsp_header_info *h = rsp_reader_header(r);
  uint64_t size = h->file_size, span = h->sample_time_last > h->sample_time_first
                                           ? h->sample_time_last - h->sample_time_first : 0;
  rsp_reader_close(r);
  uint64_t limit = progressive_bytes();
  if (!size || size <= limit)
    return 0;
  uint64_t want = MIN(RSP_LOADER_FIRST_WINDOW_BYTES, size / 4);
  uint64_t w = span ? (uint64_t)((double)span * (double)want / (double)size) : 1000000000ull;
  w = MAX(w, 100000000ull);
  return span && w >= span ? 0 : w; /* a window as long as the recording: load it once */
}

rsp_model *rsp_app_load_first_window(const char *path, uint64_t *length)
{
  *length = first_window_ns(path);
  if (!*length)
    return NULL;
  rsp_model_options fo = { .window = true, .window_t0 = 0, .window_t1 = *length, .window_no_index = true };
  GError *error = NULL;
  rsp_model *m = rsp_model_load(path, &fo, &error);
  g_clear_error(&error); /* the whole load says what is wrong, if anything is */
  return m;
}

static gpointer work(gpointer data)
{
  rsp_loader *l = data;
  uint64_t length;
  if (!g_atomic_int_get(&l->cancelled)) {
    rsp_model *fm = rsp_app_load_first_window(l->path, &length);
    if (fm) {
      l->first_view = rsp_running_view_new(fm);
      l->first = fm;
      g_idle_add(hand_over_first, l);
    }
  }
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
  if (l->first_view)
    rsp_running_view_free(l->first_view);
  if (l->first)
    rsp_model_free(l->first);
  rsp_loader_free(l);
}
