/* rsp_model_build's progress callback and cancelling, on a real recording (tests/model/data/). */
#include "checks.h"

#include <gio/gio.h>
#include <sys/stat.h>

typedef struct progress_log {
  unsigned calls;
  uint64_t last_offset, size;
  bool monotonic;
  unsigned cancel_at; /* return false at this call (0: never) */
} progress_log;

static bool on_progress(uint64_t offset, uint64_t size, void *data)
{
  progress_log *p = data;
  p->calls++;
  if (offset < p->last_offset)
    p->monotonic = false;
  p->last_offset = offset;
  p->size = size;
  return p->cancel_at == 0 || p->calls < p->cancel_at;
}

int main(void)
{
  const char *src = g_getenv("RSP_SOURCE_ROOT");
  char *path = g_build_filename(src ? src : ".", "tests", "model", "data", "grep-pingpong.data", NULL);
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "%s: missing\n", path);
    return 77;
  }
  /* Both ways of reading: on one thread, and the reader on a second thread (event-pipeline.c). */
  uint64_t n_events[2] = {0, 0};
  for (int threads = 1; threads <= 2; threads++) {
    g_setenv("RSP_THREADS", threads == 1 ? "1" : "2", TRUE);
    progress_log p = { .monotonic = true };
    rsp_model_options o = { .progress = on_progress, .progress_data = &p, .no_stacks = true };
    GError *e = NULL;
    rsp_model *m = rsp_model_load(path, &o, &e);
    CHECK(m != NULL);
    CHECK(p.calls >= 1);
    CHECK(p.monotonic);
    CHECK_EQ(p.size, (uint64_t)st.st_size);
    CHECK(p.last_offset <= p.size);
    n_events[threads - 1] = m ? rsp_model_n_events(m) : 0;
    rsp_model_free(m);

    progress_log c = { .monotonic = true, .cancel_at = 1 };
    o.progress_data = &c;
    m = rsp_model_load(path, &o, &e);
    CHECK(m == NULL);
    CHECK(e && g_error_matches(e, G_IO_ERROR, G_IO_ERROR_CANCELLED));
    CHECK_EQ(c.calls, 1);
    if (e)
      CHECK(strstr(e->message, "grep-pingpong.data") != NULL);
    g_clear_error(&e);

    /* cancelled with stacks: on two threads the stacks' thread (stack-thread.c) is stopped and joined */
    progress_log c2 = { .monotonic = true, .cancel_at = 1 };
    rsp_model_options with_stacks = { .progress = on_progress, .progress_data = &c2 };
    m = rsp_model_load(path, &with_stacks, &e);
    CHECK(m == NULL);
    CHECK(e && g_error_matches(e, G_IO_ERROR, G_IO_ERROR_CANCELLED));
    g_clear_error(&e);
  }
  CHECK(n_events[0] > 0);
  CHECK_EQ(n_events[0], n_events[1]);
  g_free(path);
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  return failures ? 1 : 0;
}
