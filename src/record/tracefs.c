/* tracefs, dynamic probes and the ftrace capture of rsp-record: see tracefs.h. */
#include "record/tracefs.h"
#include "reader/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif

G_DEFINE_QUARK(rsp-tracefs-error-quark, rsp_tracefs_error)

static bool is_tracefs(const char *path)
{
  struct statfs st;
  char *events = g_build_filename(path, "events", NULL);
  bool ok = statfs(path, &st) == 0 && (unsigned long)st.f_type == TRACEFS_MAGIC &&
            g_file_test(events, G_FILE_TEST_IS_DIR);
  g_free(events);
  return ok;
}

char *rsp_tracefs_find(void)
{
  static const char *const where[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
  /* RSP_TRACEFS: another root (a directory with events/), for tests of the probe paths that this
   * kernel lacks (kprobes): a plain directory with kprobe_events/uprobe_events files. */
  const char *env = g_getenv("RSP_TRACEFS");
  if (env && *env) {
    char *events = g_build_filename(env, "events", NULL);
    bool ok = g_file_test(events, G_FILE_TEST_IS_DIR);
    g_free(events);
    return ok ? g_strdup(env) : NULL;
  }
  for (size_t i = 0; i < G_N_ELEMENTS(where); i++)
    if (is_tracefs(where[i]))
      return g_strdup(where[i]);
  return NULL;
}

bool rsp_tracefs_mount(const char *where, GError **error)
{
  if (mount("nodev", where, "tracefs", 0, NULL) != 0) {
    int e = errno;
    g_set_error(error, RSP_TRACEFS_ERROR, 0, "mount -t tracefs nodev %s: %s", where, g_strerror(e));
    return false;
  }
  return true;
}

static char *event_dir(const char *root, const char *event)
{
  const char *colon = strchr(event, ':');
  if (!colon)
    return NULL;
  char *group = g_strndup(event, (gsize)(colon - event));
  char *dir = g_build_filename(root, "events", group, colon + 1, NULL);
  g_free(group);
  return dir;
}

bool rsp_tracefs_event_exists(const char *root, const char *event)
{
  char *dir = event_dir(root, event);
  if (!dir)
    return false;
  char *id = g_build_filename(dir, "id", NULL);
  bool ok = g_file_test(id, G_FILE_TEST_EXISTS);
  g_free(id);
  g_free(dir);
  return ok;
}

bool rsp_tracefs_write(const char *path, const char *text, bool append, GError **error)
{
  int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
  if (fd < 0) {
    int e = errno;
    g_set_error(error, RSP_TRACEFS_ERROR, 0, "%s: %s", path, g_strerror(e));
    return false;
  }
  size_t len = strlen(text);
  ssize_t n = write(fd, text, len);
  int e = errno;
  close(fd);
  if (n != (ssize_t)len) {
    g_set_error(error, RSP_TRACEFS_ERROR, 0, "writing \"%.*s\" to %s: %s",
                (int)(len && text[len - 1] == '\n' ? len - 1 : len), text, path,
                n < 0 ? g_strerror(e) : "short write");
    return false;
  }
  return true;
}

bool rsp_tracefs_probe_add(const char *root, const char *file, const char *group, const char *name,
                           const char *target, GError **error)
{
  char *path = g_build_filename(root, file, NULL);
  /* one line, as echo writes it: the kernel takes a command a line; a plain file (a fake root in
   * the tests) reads back as one probe a line */
  char *def = g_strdup_printf("p:%s/%s %s\n", group, name, target);
  GError *e = NULL;
  bool ok = rsp_tracefs_write(path, def, true, &e);
  if (!ok) {
    /* the kernel says why in error_log; keep the message short */
    g_set_error(error, RSP_TRACEFS_ERROR, 0, "%s", e->message);
    g_error_free(e);
  }
  g_free(def);
  g_free(path);
  return ok;
}

bool rsp_tracefs_probe_remove(const char *root, const char *file, const char *group,
                              const char *name, GError **error)
{
  char *path = g_build_filename(root, file, NULL);
  char *def = g_strdup_printf("-:%s/%s\n", group, name);
  bool ok = rsp_tracefs_write(path, def, true, error);
  g_free(def);
  g_free(path);
  return ok;
}

unsigned rsp_tracefs_probes_remove_prefix(const char *root, const char *file, const char *prefix,
                                          unsigned *left)
{
  char *path = g_build_filename(root, file, NULL);
  char *text = NULL;
  unsigned removed = 0, failed = 0;
  if (g_file_get_contents(path, &text, NULL, NULL)) {
    char **lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l; l++) {
      /* "p:GROUP/NAME TARGET" or "r:..." or "p:GROUP/NAME /path:0x..." */
      const char *colon = strchr(*l, ':');
      if (!colon)
        continue;
      const char *slash = strchr(colon, '/');
      const char *space = strchr(colon, ' ');
      if (!slash || (space && space < slash))
        continue;
      char *group = g_strndup(colon + 1, (gsize)(slash - colon - 1));
      char *name = g_strndup(slash + 1, space ? (gsize)(space - slash - 1) : strlen(slash + 1));
      if (g_str_has_prefix(group, prefix)) {
        if (rsp_tracefs_probe_remove(root, file, group, name, NULL))
          removed++;
        else
          failed++;
      }
      g_free(group);
      g_free(name);
    }
    g_strfreev(lines);
  }
  g_free(text);
  g_free(path);
  if (left)
    *left = failed;
  return removed;
}

bool rsp_elf_function_offset(const char *path, const char *function, uint64_t *offset,
                             GError **error)
{
  if (elf_version(EV_CURRENT) == EV_NONE) {
    g_set_error(error, RSP_TRACEFS_ERROR, 0, "libelf: %s", elf_errmsg(-1));
    return false;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    g_set_error(error, RSP_TRACEFS_ERROR, 0, "%s: %s", path, g_strerror(e));
    return false;
  }
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  bool found = false;
  uint64_t vaddr = 0;
  Elf_Scn *scn = NULL;
  /* .symtab when the file has one (more complete), else .dynsym */
  for (int pass = 0; elf && pass < 2 && !found; pass++) {
    scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) && !found) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh))
        continue;
      if (sh.sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) || sh.sh_entsize == 0)
        continue;
      Elf_Data *data = elf_getdata(scn, NULL);
      size_t n = sh.sh_size / sh.sh_entsize;
      for (size_t i = 0; data && i < n; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(data, (int)i, &sym))
          continue;
        if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_value == 0 ||
            sym.st_shndx == SHN_UNDEF)
          continue;
        const char *nm = elf_strptr(elf, sh.sh_link, sym.st_name);
        if (nm && strcmp(nm, function) == 0) {
          vaddr = sym.st_value;
          found = true;
          break;
        }
      }
    }
  }
  bool ok = false;
  if (!elf) {
    g_set_error(error, RSP_TRACEFS_ERROR, 0, "%s: not an ELF file", path);
  } else if (!found) {
    g_set_error(error, RSP_TRACEFS_ERROR, 0, "%s: no function %s", path, function);
  } else {
    size_t nph = 0;
    elf_getphdrnum(elf, &nph);
    for (size_t i = 0; i < nph; i++) {
      GElf_Phdr ph;
      if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
        continue;
      if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz) {
        *offset = vaddr - ph.p_vaddr + ph.p_offset;
        ok = true;
        break;
      }
    }
    if (!ok)
      g_set_error(error, RSP_TRACEFS_ERROR, 0, "%s: %s is not in an executable segment", path,
                  function);
  }
  if (elf)
    elf_end(elf);
  close(fd);
  return ok;
}

static int find_libc_cb(struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  char **out = data;
  const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
  if (base && g_str_has_prefix(base + 1, "libc.so")) {
    *out = realpath(info->dlpi_name, NULL);
    return 1;
  }
  return 0;
}

char *rsp_find_libc(void)
{
  char *found = NULL;
  dl_iterate_phdr(find_libc_cb, &found);
  if (!found)
    return NULL;
  char *copy = g_strdup(found);
  free(found);
  return copy;
}

unsigned rsp_tracefs_remove_stale_instances(const char *root)
{
  char *dir = g_build_filename(root, "instances", NULL);
  GDir *d = g_dir_open(dir, 0, NULL);
  unsigned removed = 0;
  if (d) {
    const char *n;
    GPtrArray *stale = g_ptr_array_new_with_free_func(g_free);
    while ((n = g_dir_read_name(d))) {
      if (!g_str_has_prefix(n, "rsp-"))
        continue;
      char *end = NULL;
      long pid = strtol(n + 4, &end, 10);
      if (!end || *end || pid <= 0 || end == n + 4)
        continue;
      if (kill((pid_t)pid, 0) == 0 || errno == EPERM)
        continue; /* its rsp-record is alive */
      g_ptr_array_add(stale, g_build_filename(dir, n, NULL));
    }
    g_dir_close(d);
    for (guint i = 0; i < stale->len; i++)
      if (rmdir(stale->pdata[i]) == 0)
        removed++;
    g_ptr_array_unref(stale);
  }
  g_free(dir);
  return removed;
}

/* ---- the capture ------------------------------------------------------------------------- */

typedef struct capture_cpu {
  int cpu;
  int in;  /* trace_pipe_raw, O_NONBLOCK */
  int out; /* cpuN.raw */
} capture_cpu;

struct rsp_ftrace_capture {
  char *root, *name, *instance, *outdir;
  GPtrArray *events;
  size_t page_size;
  GArray *cpus;  /* capture_cpu */
  GArray *stats; /* rsp_ftrace_cpu_stats */
  GKeyFile *info;
  GThread *thread;
  GMutex lock;
  GCond cond;
  bool stop;
  bool started;
  bool removed;
  GError *copy_error; /* first failure of the copying thread */
  uint8_t *page;
};

static bool copy_file(const char *from, const char *to, GError **error)
{
  char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents(from, &text, &len, error))
    return false;
  bool ok = g_file_set_contents(to, text, (gssize)len, error);
  g_free(text);
  return ok;
}

static void save_info(rsp_ftrace_capture *cap)
{
  char *path = g_build_filename(cap->outdir, "info", NULL);
  g_key_file_save_to_file(cap->info, path, NULL);
  g_free(path);
}

void rsp_ftrace_capture_note(rsp_ftrace_capture *cap, const char *key, const char *value)
{
  g_key_file_set_string(cap->info, "capture", key, value);
  save_info(cap);
}

const char *rsp_ftrace_capture_instance(rsp_ftrace_capture *cap) { return cap->instance; }

const rsp_ftrace_cpu_stats *rsp_ftrace_capture_stats(rsp_ftrace_capture *cap, unsigned *n)
{
  *n = cap->stats->len;
  return (const rsp_ftrace_cpu_stats *)(void *)cap->stats->data;
}

static bool instance_write(rsp_ftrace_capture *cap, const char *file, const char *text,
                           GError **error)
{
  char *p = g_build_filename(cap->instance, file, NULL);
  bool ok = rsp_tracefs_write(p, text, false, error);
  g_free(p);
  return ok;
}

static void close_cpus(rsp_ftrace_capture *cap)
{
  for (guint i = 0; i < cap->cpus->len; i++) {
    capture_cpu *c = &g_array_index(cap->cpus, capture_cpu, i);
    if (c->in >= 0)
      close(c->in);
    if (c->out >= 0)
      close(c->out);
    c->in = c->out = -1;
  }
}

bool rsp_ftrace_capture_remove(rsp_ftrace_capture *cap, GError **error)
{
  if (cap->removed)
    return true;
  if (cap->thread) {
    /* never remove under a running copy */
    GError *e = NULL;
    rsp_ftrace_capture_stop(cap, &e);
    g_clear_error(&e);
  }
  close_cpus(cap);
  /* events off first: rmdir refuses while anything holds the instance */
  instance_write(cap, "tracing_on", "0", NULL);
  for (int tries = 0;; tries++) {
    if (rmdir(cap->instance) == 0 || errno == ENOENT) {
      cap->removed = true;
      return true;
    }
    if (errno != EBUSY || tries >= 50) {
      int e = errno;
      g_set_error(error, RSP_TRACEFS_ERROR, 0, "rmdir %s: %s", cap->instance, g_strerror(e));
      return false;
    }
    g_usleep(20000); /* a perf still closing its events of the instance */
  }
}

void rsp_ftrace_capture_free(rsp_ftrace_capture *cap)
{
  if (!cap)
    return;
  rsp_ftrace_capture_remove(cap, NULL);
  g_free(cap->root);
  g_free(cap->name);
  g_free(cap->instance);
  g_free(cap->outdir);
  g_ptr_array_unref(cap->events);
  g_array_unref(cap->cpus);
  g_array_unref(cap->stats);
  g_key_file_free(cap->info);
  g_clear_error(&cap->copy_error);
  g_mutex_clear(&cap->lock);
  g_cond_clear(&cap->cond);
  g_free(cap->page);
  g_free(cap);
}

rsp_ftrace_capture *rsp_ftrace_capture_create(const char *root, const char *name,
                                              const char *outdir, GPtrArray *events,
                                              unsigned buffer_kb, GError **error)
{
  rsp_ftrace_capture *cap = g_new0(rsp_ftrace_capture, 1);
  cap->root = g_strdup(root);
  cap->name = g_strdup(name);
  cap->instance = g_build_filename(root, "instances", name, NULL);
  cap->outdir = g_strdup(outdir);
  cap->events = g_ptr_array_new_with_free_func(g_free);
  cap->cpus = g_array_new(FALSE, TRUE, sizeof(capture_cpu));
  cap->stats = g_array_new(FALSE, TRUE, sizeof(rsp_ftrace_cpu_stats));
  cap->info = g_key_file_new();
  g_mutex_init(&cap->lock);
  g_cond_init(&cap->cond);
  cap->removed = true; /* nothing to remove yet */

  char *hp_src = g_build_filename(root, "events", "header_page", NULL);
  char *hp_text = NULL;
  if (!g_file_get_contents(hp_src, &hp_text, NULL, error) ||
      (cap->page_size = rsp_ftrace_page_size(hp_text)) < 64) {
    if (error && !*error)
      g_set_error(error, RSP_TRACEFS_ERROR, 0, "%s: no page layout", hp_src);
    g_free(hp_src);
    g_free(hp_text);
    rsp_ftrace_capture_free(cap);
    return NULL;
  }
  g_free(hp_src);
  cap->page = g_malloc(cap->page_size);

  if (mkdir(cap->instance, 0755) != 0) {
    int e = errno;
    g_set_error(error, RSP_TRACEFS_ERROR, 0, "mkdir %s: %s", cap->instance, g_strerror(e));
    g_free(hp_text);
    rsp_ftrace_capture_free(cap);
    return NULL;
  }
  cap->removed = false;
  char buf[64];
  g_snprintf(buf, sizeof buf, "%u", buffer_kb);
  bool ok = instance_write(cap, "tracing_on", "0", error) &&
            instance_write(cap, "trace_clock", "mono", error) &&
            instance_write(cap, "buffer_size_kb", buf, error);
  /* with overwrite off a full buffer drops new events (counted in "dropped events") instead
   * of silently overwriting old ones */
  ok = ok && instance_write(cap, "options/overwrite", "0", error);

  for (guint i = 0; ok && i < events->len; i++) {
    const char *ev = events->pdata[i];
    const char *colon = strchr(ev, ':');
    if (!colon)
      continue;
    char *group = g_strndup(ev, (gsize)(colon - ev));
    char *en = g_build_filename("events", group, colon + 1, "enable", NULL);
    ok = instance_write(cap, en, "1", error);
    g_free(en);
    g_free(group);
    if (ok)
      g_ptr_array_add(cap->events, g_strdup(ev));
  }

  /* OUTDIR: header_page (top level and events/, as in tracefs), the formats, info */
  if (ok && g_mkdir_with_parents(outdir, 0755) != 0) {
    int e = errno;
    g_set_error(error, RSP_TRACEFS_ERROR, 0, "mkdir %s: %s", outdir, g_strerror(e));
    ok = false;
  }
  if (ok) {
    char *ev_dir = g_build_filename(outdir, "events", NULL);
    g_mkdir_with_parents(ev_dir, 0755);
    char *p1 = g_build_filename(outdir, "header_page", NULL);
    char *p2 = g_build_filename(ev_dir, "header_page", NULL);
    ok = g_file_set_contents(p1, hp_text, -1, error) && g_file_set_contents(p2, hp_text, -1, error);
    g_free(p1);
    g_free(p2);
    char *he_src = g_build_filename(root, "events", "header_event", NULL);
    char *he_dst = g_build_filename(ev_dir, "header_event", NULL);
    if (ok && g_file_test(he_src, G_FILE_TEST_EXISTS))
      ok = copy_file(he_src, he_dst, error);
    g_free(he_src);
    g_free(he_dst);
    for (guint i = 0; ok && i < cap->events->len; i++) {
      const char *ev = cap->events->pdata[i];
      const char *colon = strchr(ev, ':');
      char *group = g_strndup(ev, (gsize)(colon - ev));
      char *dst_dir = g_build_filename(ev_dir, group, colon + 1, NULL);
      char *src = g_build_filename(root, "events", group, colon + 1, "format", NULL);
      char *dst = g_build_filename(dst_dir, "format", NULL);
      g_mkdir_with_parents(dst_dir, 0755);
      ok = copy_file(src, dst, error);
      g_free(group);
      g_free(dst_dir);
      g_free(src);
      g_free(dst);
    }
    g_free(ev_dir);
  }
  g_free(hp_text);

  /* the CPUs: every per_cpu/cpuN of the instance */
  char *per_cpu = g_build_filename(cap->instance, "per_cpu", NULL);
  GDir *d = ok ? g_dir_open(per_cpu, 0, error) : NULL;
  if (ok && !d)
    ok = false;
  if (d) {
    const char *n;
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(int));
    while ((n = g_dir_read_name(d))) {
      if (g_str_has_prefix(n, "cpu") && g_ascii_isdigit(n[3])) {
        int id = atoi(n + 3);
        g_array_append_val(ids, id);
      }
    }
    g_dir_close(d);
    for (guint i = 0; i < ids->len; i++) /* in CPU order */
      for (guint j = i + 1; j < ids->len; j++)
        if (g_array_index(ids, int, j) < g_array_index(ids, int, i)) {
          int t = g_array_index(ids, int, i);
          g_array_index(ids, int, i) = g_array_index(ids, int, j);
          g_array_index(ids, int, j) = t;
        }
    for (guint i = 0; ok && i < ids->len; i++) {
      capture_cpu c = {g_array_index(ids, int, i), -1, -1};
      char cpudir[32], rawname[32];
      g_snprintf(cpudir, sizeof cpudir, "cpu%d", c.cpu);
      g_snprintf(rawname, sizeof rawname, "cpu%d.raw", c.cpu);
      char *in = g_build_filename(per_cpu, cpudir, "trace_pipe_raw", NULL);
      char *out = g_build_filename(outdir, rawname, NULL);
      c.in = open(in, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
      if (c.in < 0) {
        int e = errno;
        g_set_error(error, RSP_TRACEFS_ERROR, 0, "%s: %s", in, g_strerror(e));
        ok = false;
      } else {
        c.out = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (c.out < 0) {
          int e = errno;
          g_set_error(error, RSP_TRACEFS_ERROR, 0, "%s: %s", out, g_strerror(e));
          ok = false;
        }
      }
      g_array_append_val(cap->cpus, c);
      rsp_ftrace_cpu_stats s = {.cpu = c.cpu};
      g_array_append_val(cap->stats, s);
      g_free(in);
      g_free(out);
    }
    g_array_unref(ids);
  }
  g_free(per_cpu);

  if (ok) {
    g_key_file_set_integer(cap->info, "ftrace", "version", 1);
    g_key_file_set_string(cap->info, "ftrace", "instance", cap->instance);
    g_key_file_set_string(cap->info, "ftrace", "clock", "mono");
    g_key_file_set_uint64(cap->info, "ftrace", "page_size", cap->page_size);
    g_key_file_set_integer(cap->info, "ftrace", "long_size", (int)sizeof(long));
    g_key_file_set_string(cap->info, "ftrace", "endian",
                          G_BYTE_ORDER == G_LITTLE_ENDIAN ? "little" : "big");
    g_key_file_set_integer(cap->info, "ftrace", "cpus", (int)cap->cpus->len);
    g_key_file_set_uint64(cap->info, "ftrace", "buffer_size_kb", buffer_kb);
    g_key_file_set_string_list(cap->info, "ftrace", "events",
                               (const char *const *)cap->events->pdata, cap->events->len);
    g_key_file_set_comment(cap->info, NULL, NULL,
                           " rsp-record's ftrace capture: cpuN.raw are the ring-buffer pages of CPU N "
                           "(page_size bytes each,\n"
                           " read from trace_pipe_raw), events/SYS/NAME/format and header_page "
                           "decode them (libtraceevent kbuffer).\n"
                           " Timestamps are CLOCK_MONOTONIC nanoseconds (trace_clock mono), "
                           "as perf record -k CLOCK_MONOTONIC.",
                           NULL);
    save_info(cap);
  }
  if (!ok) {
    rsp_ftrace_capture_free(cap);
    return NULL;
  }
  return cap;
}

/* Copies every page CPU C has now; false on a write error. */
static bool drain_cpu(rsp_ftrace_capture *cap, guint i, GError **error)
{
  capture_cpu *c = &g_array_index(cap->cpus, capture_cpu, i);
  rsp_ftrace_cpu_stats *s = &g_array_index(cap->stats, rsp_ftrace_cpu_stats, i);
  for (;;) {
    ssize_t n = read(c->in, cap->page, cap->page_size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return true; /* EAGAIN: nothing more now */
    if ((size_t)n < cap->page_size) /* keep whole pages: the reader walks the file by pages */
      memset(cap->page + n, 0, cap->page_size - (size_t)n);
    size_t done = 0;
    while (done < cap->page_size) {
      ssize_t w = write(c->out, cap->page + done, cap->page_size - done);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0) {
        int e = errno;
        g_set_error(error, RSP_TRACEFS_ERROR, 0, "writing the ftrace capture of cpu%d: %s", c->cpu,
                    w < 0 ? g_strerror(e) : "short write");
        return false;
      }
      done += (size_t)w;
    }
    s->bytes += cap->page_size;
  }
}

#define POLL_INTERVAL_US (100 * 1000)

static gpointer copy_thread(gpointer data)
{
  rsp_ftrace_capture *cap = data;
  g_mutex_lock(&cap->lock);
  for (;;) {
    bool stop = cap->stop;
    g_mutex_unlock(&cap->lock);
    GError *e = NULL;
    for (guint i = 0; i < cap->cpus->len && !e; i++)
      drain_cpu(cap, i, &e);
    g_mutex_lock(&cap->lock);
    if (e) {
      if (!cap->copy_error)
        cap->copy_error = e;
      else
        g_error_free(e);
      break;
    }
    if (stop) /* this round ran after tracing_on 0: everything is out */
      break;
    if (!cap->stop) {
      gint64 until = g_get_monotonic_time() + POLL_INTERVAL_US;
      while (!cap->stop && g_cond_wait_until(&cap->cond, &cap->lock, until))
        ;
    }
  }
  g_mutex_unlock(&cap->lock);
  return NULL;
}

bool rsp_ftrace_capture_start(rsp_ftrace_capture *cap, GError **error)
{
  if (!instance_write(cap, "tracing_on", "1", error))
    return false;
  cap->started = true;
  cap->thread = g_thread_try_new("rsp-ftrace", copy_thread, cap, error);
  return cap->thread != NULL;
}

static uint64_t stat_value(const char *text, const char *key)
{
  const char *p = strstr(text, key);
  if (!p)
    return 0;
  p += strlen(key);
  while (*p == ' ' || *p == ':' || *p == '\t')
    p++;
  return g_ascii_strtoull(p, NULL, 10);
}

bool rsp_ftrace_capture_stop(rsp_ftrace_capture *cap, GError **error)
{
  if (!cap->started)
    return true;
  instance_write(cap, "tracing_on", "0", NULL);
  if (cap->thread) {
    g_mutex_lock(&cap->lock);
    cap->stop = true;
    g_cond_signal(&cap->cond);
    g_mutex_unlock(&cap->lock);
    g_thread_join(cap->thread);
    cap->thread = NULL;
  }
  cap->started = false;
  for (guint i = 0; i < cap->cpus->len; i++) {
    capture_cpu *c = &g_array_index(cap->cpus, capture_cpu, i);
    rsp_ftrace_cpu_stats *s = &g_array_index(cap->stats, rsp_ftrace_cpu_stats, i);
    char cpudir[32];
    g_snprintf(cpudir, sizeof cpudir, "cpu%d", c->cpu);
    char *p = g_build_filename(cap->instance, "per_cpu", cpudir, "stats", NULL);
    char *text = NULL;
    if (g_file_get_contents(p, &text, NULL, NULL)) {
      s->overrun = stat_value(text, "\noverrun");
      s->dropped = stat_value(text, "dropped events");
    }
    g_free(text);
    g_free(p);
    char key[64];
    g_snprintf(key, sizeof key, "cpu%d", c->cpu);
    char val[128];
    g_snprintf(val, sizeof val, "bytes=%" G_GUINT64_FORMAT " overrun=%" G_GUINT64_FORMAT
               " dropped=%" G_GUINT64_FORMAT, s->bytes, s->overrun, s->dropped);
    g_key_file_set_string(cap->info, "stats", key, val);
    if (c->out >= 0) {
      fsync(c->out);
      close(c->out);
      c->out = -1;
    }
  }
  save_info(cap);
  if (cap->copy_error) {
    g_propagate_error(error, cap->copy_error);
    cap->copy_error = NULL;
    return false;
  }
  return true;
}
