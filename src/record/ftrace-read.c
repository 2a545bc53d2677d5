/* The ftrace capture decoder/checker: see ftrace-read.h. */
#include "record/ftrace-read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

G_DEFINE_QUARK(rsp-ftrace-decode-error-quark, rsp_ftrace_decode_error)

#define FAIL(...) g_set_error(error, RSP_FTRACE_DECODE_ERROR, 0, __VA_ARGS__)

static size_t page_size_of(const char *header_page)
{
  const char *p = strstr(header_page, "char data;");
  unsigned off = 0, size = 0;
  if (!p)
    return 0;
  const char *o = strstr(p, "offset:");
  const char *s = strstr(p, "size:");
  if (!o || !s || sscanf(o, "offset:%u", &off) != 1 || sscanf(s, "size:%u", &size) != 1)
    return 0;
  return (size_t)off + size;
}

static unsigned load_formats(struct tep_handle *tep, const char *dir)
{
  char *events = g_build_filename(dir, "events", NULL);
  GDir *sysdir = g_dir_open(events, 0, NULL);
  unsigned loaded = 0;
  if (sysdir) {
    const char *sys;
    while ((sys = g_dir_read_name(sysdir))) {
      char *sp = g_build_filename(events, sys, NULL);
      GDir *evdir = g_dir_open(sp, 0, NULL); /* NULL for header_page, header_event */
      const char *name;
      while (evdir && (name = g_dir_read_name(evdir))) {
        char *fp = g_build_filename(sp, name, "format", NULL);
        char *text = NULL;
        gsize len = 0;
        if (g_file_get_contents(fp, &text, &len, NULL) &&
            tep_parse_event(tep, text, len, sys) == TEP_ERRNO__SUCCESS)
          loaded++;
        g_free(text);
        g_free(fp);
      }
      if (evdir)
        g_dir_close(evdir);
      g_free(sp);
    }
    g_dir_close(sysdir);
  }
  g_free(events);
  return loaded;
}

static gint cmp_int(gconstpointer a, gconstpointer b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return x < y ? -1 : x > y;
}

bool rsp_ftrace_decode(const char *dir, rsp_ftrace_event_fn fn, void *user, rsp_ftrace_counts *counts,
                       uint64_t from, uint64_t to, GError **error)
{
  rsp_ftrace_counts local = {0};
  rsp_ftrace_counts *c = counts ? counts : &local;
  bool ok = false;
  struct tep_handle *tep = NULL;
  struct kbuffer *kbuf = NULL;
  uint8_t *page = NULL;
  GArray *cpus = NULL;
  char *text = NULL;
  GKeyFile *info = g_key_file_new();
  char *info_path = g_build_filename(dir, "info", NULL);
  int long_size = 8;
  bool big = G_BYTE_ORDER == G_BIG_ENDIAN;
  if (g_key_file_load_from_file(info, info_path, G_KEY_FILE_NONE, NULL)) {
    int ls = g_key_file_get_integer(info, "ftrace", "long_size", NULL);
    if (ls == 4 || ls == 8)
      long_size = ls;
    char *endian = g_key_file_get_string(info, "ftrace", "endian", NULL);
    if (endian)
      big = strcmp(endian, "big") == 0;
    g_free(endian);
  }

  char *hp = g_build_filename(dir, "header_page", NULL);
  if (!g_file_test(hp, G_FILE_TEST_EXISTS)) {
    g_free(hp);
    hp = g_build_filename(dir, "events", "header_page", NULL);
  }
  size_t page_size = 0;
  if (!g_file_get_contents(hp, &text, NULL, NULL) || (page_size = page_size_of(text)) < 64 ||
      page_size > (1u << 24)) {
    FAIL("%s: missing or unreadable: cannot decode the ftrace capture", hp);
    g_free(hp);
    goto out;
  }
  g_free(hp);
  tep = tep_alloc();
  tep_set_long_size(tep, long_size);
  tep_set_page_size(tep, (int)page_size);
  tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_parse_header_page(tep, text, (unsigned long)strlen(text), long_size);
  if (load_formats(tep, dir) == 0) {
    FAIL("%s: no event format files under events/: cannot decode the ftrace capture", dir);
    goto out;
  }
  kbuf = kbuffer_alloc(long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
                       big ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
  if (!kbuf) {
    FAIL("kbuffer_alloc failed");
    goto out;
  }
  page = g_malloc(page_size);

  cpus = g_array_new(FALSE, FALSE, sizeof(int));
  GDir *d = g_dir_open(dir, 0, error);
  if (!d)
    goto out;
  const char *n;
  while ((n = g_dir_read_name(d))) {
    size_t len = strlen(n);
    if (!g_str_has_prefix(n, "cpu") || !g_str_has_suffix(n, ".raw") || len <= 7 || len > 12)
      continue;
    bool digits = true;
    for (size_t k = 3; k < len - 4; k++)
      digits = digits && g_ascii_isdigit(n[k]);
    if (digits) {
      int cpu = atoi(n + 3);
      g_array_append_val(cpus, cpu);
    }
  }
  g_dir_close(d);
  if (cpus->len == 0) {
    FAIL("%s: no cpuN.raw files", dir);
    goto out;
  }
  g_array_sort(cpus, cmp_int);
  c->cpus = cpus->len;
  c->first_time = UINT64_MAX;

  bool stopped = false;
  for (guint i = 0; i < cpus->len && !stopped; i++) {
    int cpu = g_array_index(cpus, int, i);
    char name[32];
    g_snprintf(name, sizeof name, "cpu%d.raw", cpu);
    char *path = g_build_filename(dir, name, NULL);
    FILE *f = fopen(path, "rb");
    if (!f) {
      int e = errno;
      FAIL("%s: %s", path, g_strerror(e));
      g_free(path);
      goto out;
    }
    uint64_t last = 0;
    uint64_t offset = 0;
    size_t got;
    while (!stopped && (got = fread(page, 1, page_size, f)) > 0) {
      if (got < page_size) {
        FAIL("%s: ends inside a page (at byte offset %" G_GUINT64_FORMAT ")", path, offset);
        fclose(f);
        g_free(path);
        goto out;
      }
      if (kbuffer_load_subbuffer(kbuf, page) < 0) {
        FAIL("%s: at byte offset %" G_GUINT64_FORMAT ": not a ring-buffer page", path, offset);
        fclose(f);
        g_free(path);
        goto out;
      }
      c->pages++;
      int missed = kbuffer_missed_events(kbuf);
      if (missed != 0)
        c->missed += missed > 0 ? (uint64_t)missed : 1;
      unsigned long long ts = 0;
      for (void *data = kbuffer_read_event(kbuf, &ts); data; data = kbuffer_next_event(kbuf, &ts)) {
        int size = kbuffer_event_size(kbuf);
        c->total++;
        if (ts < last)
          c->disorder++;
        last = ts;
        if (ts < c->first_time)
          c->first_time = ts;
        if (ts > c->last_time)
          c->last_time = ts;
        uint16_t type = 0;
        if (size >= 2)
          memcpy(&type, data, 2);
        struct tep_event *ev = tep_find_event(tep, type);
        if (!ev) {
          c->unknown++;
          continue;
        }
        if (ts < from || ts > to)
          continue;
        c->in_window++;
        if (c->events) {
          char *key = g_strdup_printf("%s:%s", ev->system, ev->name);
          uint64_t *v = g_hash_table_lookup(c->events, key);
          if (!v) {
            v = g_new0(uint64_t, 1);
            g_hash_table_insert(c->events, key, v);
          } else {
            g_free(key);
          }
          (*v)++;
        }
        if (fn && !fn(ts, cpu, ev, data, size, user)) {
          stopped = true;
          break;
        }
      }
      offset += page_size;
    }
    fclose(f);
    g_free(path);
  }
  if (c->first_time == UINT64_MAX)
    c->first_time = 0;
  ok = true;
out:
  g_free(text);
  g_free(info_path);
  g_key_file_free(info);
  g_free(page);
  if (cpus)
    g_array_unref(cpus);
  if (kbuf)
    kbuffer_free(kbuf);
  if (tep)
    tep_free(tep);
  return ok;
}

rsp_ftrace_counts *rsp_ftrace_count(const char *dir, uint64_t from, uint64_t to, GError **error)
{
  rsp_ftrace_counts *c = g_new0(rsp_ftrace_counts, 1);
  c->events = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  if (!rsp_ftrace_decode(dir, NULL, NULL, c, from, to, error)) {
    rsp_ftrace_counts_free(c);
    return NULL;
  }
  return c;
}

void rsp_ftrace_counts_free(rsp_ftrace_counts *counts)
{
  if (!counts)
    return;
  if (counts->events)
    g_hash_table_unref(counts->events);
  g_free(counts);
}

uint64_t rsp_ftrace_counts_get(const rsp_ftrace_counts *counts, const char *event)
{
  const uint64_t *v = counts && counts->events ? g_hash_table_lookup(counts->events, event) : NULL;
  return v ? *v : 0;
}
