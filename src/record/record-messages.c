/* rsp-record's messages on stderr, its phase times (RSP_RECORD_DEBUG=1) and small file helpers. */
#include "record/record-private.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- messages ------------------------------------------------------------------------------ */

bool rec_quiet;

void G_GNUC_PRINTF(1, 2) rec_note(const char *fmt, ...)
{
  if (rec_quiet)
    return;
  va_list ap;
  va_start(ap, fmt);
  fputs("rsp-record: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void G_GNUC_PRINTF(1, 2) rec_error_msg(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("rsp-record: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

uint64_t rec_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* RSP_RECORD_DEBUG=1: the time of each phase on stderr */
void rec_phase(const char *what)
{
  static int on = -1;
  static uint64_t t0;
  if (on < 0) {
    on = g_getenv("RSP_RECORD_DEBUG") != NULL;
    t0 = rec_now_ns();
  }
  if (on)
    fprintf(stderr, "rsp-record: [%8.3f ms] %s\n", (double)(rec_now_ns() - t0) / 1e6, what);
}

/* ---- small helpers ------------------------------------------------------------------------- */

void rec_rm_rf(const char *path)
{
  struct stat st;
  if (lstat(path, &st) != 0)
    return;
  if (S_ISDIR(st.st_mode)) {
    GDir *d = g_dir_open(path, 0, NULL);
    if (d) {
      const char *n;
      while ((n = g_dir_read_name(d))) {
        char *p = g_build_filename(path, n, NULL);
        rec_rm_rf(p);
        g_free(p);
      }
      g_dir_close(d);
    }
    rmdir(path);
  } else {
    unlink(path);
  }
}

char *rec_read_trimmed(const char *path)
{
  char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL))
    return NULL;
  return g_strstrip(text);
}

void rec_print_log(const char *what, const char *log)
{
  char *text = NULL;
  if (!log || !g_file_get_contents(log, &text, NULL, NULL) || !*g_strstrip(text)) {
    g_free(text);
    return;
  }
  fprintf(stderr, "rsp-record: %s said:\n", what);
  char **lines = g_strsplit(text, "\n", -1);
  for (char **l = lines; *l; l++)
    fprintf(stderr, "  | %s\n", *l);
  g_strfreev(lines);
  g_free(text);
}
