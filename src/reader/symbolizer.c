/* The symbolizer: follows each process's maps from the event stream and sends every callchain
 * address to the right resolver (kallsyms for the kernel; the ELF file of the map, then the
 * JIT map, for user space). */
#include "reader/symbolizer-private.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

typedef struct umap {
  uint64_t start, end, pgoff;
  const char *path; /* interned */
  rsp_elf *elf;     /* NULL for anonymous and special maps */
} umap;

typedef struct process_maps {
  GArray *maps; /* umap, sorted by start, not overlapping */
  rsp_perfmap *perfmap;
  bool perfmap_tried;
  int32_t pid;
} process_maps;

struct rsp_symbolizer {
  GStringChunk *strings;
  rsp_kallsyms *kallsyms;
  GHashTable *processes; /* pid -> process_maps* */
  GHashTable *elfs;      /* interned path -> rsp_elf* */
  GHashTable *build_ids; /* interned path -> const rsp_build_id* (BUILD_ID feature) */
  rsp_symbolizer_stats stats;
  bool host_files;       /* the recording was made on this host: its files can be read */
  char *vdso_path;       /* this process's vdso, written out: the recorded one when on this host */
  bool vdso_tried;
};

static void process_maps_free(gpointer p)
{
  process_maps *pm = p;
  g_array_unref(pm->maps);
  rsp_perfmap_free(pm->perfmap);
  g_free(pm);
}

static rsp_kallsyms *find_kallsyms(rsp_symbolizer *s, const rsp_reader *reader,
                                   const rsp_symbolizer_options *o, GError **error)
{
  const rsp_header_info *h = rsp_reader_header(reader);
  if (o && o->kallsyms_path) {
    rsp_kallsyms *k = rsp_kallsyms_load(o->kallsyms_path, s->strings, error);
    if (k)
      s->stats.kallsyms_source = g_string_chunk_insert_const(s->strings, o->kallsyms_path);
    return k;
  }
  const char *path = rsp_reader_path(reader);
  if (strcmp(path, "-") != 0) {
    const char *suffix[] = {".kallsyms", ".kallsyms.zst"};
    for (unsigned i = 0; i < G_N_ELEMENTS(suffix); i++) {
      char *p = g_strconcat(path, suffix[i], NULL);
      if (g_file_test(p, G_FILE_TEST_EXISTS)) {
        rsp_kallsyms *k = rsp_kallsyms_load(p, s->strings, error);
        if (k)
          s->stats.kallsyms_source = g_string_chunk_insert_const(s->strings, p);
        g_free(p);
        return k; /* a snapshot that cannot be read is an error, not a silent fallback */
      }
      g_free(p);
    }
  }
  if (h->tracing_kallsyms && h->tracing_kallsyms_size) {
    rsp_kallsyms *k = rsp_kallsyms_parse(h->tracing_kallsyms, h->tracing_kallsyms_size, s->strings);
    if (k) {
      s->stats.kallsyms_source = "tracing data";
      return k;
    }
  }
  if (s->host_files && !(o && o->no_host_fallback)) {
    rsp_kallsyms *k = rsp_kallsyms_load("/proc/kallsyms", s->strings, NULL);
    if (k) {
      s->stats.kallsyms_source = "/proc/kallsyms";
      return k;
    }
  }
  s->stats.kallsyms_source = "none";
  return NULL;
}

rsp_symbolizer *rsp_symbolizer_new(const rsp_reader *reader, const rsp_symbolizer_options *options,
                                   GError **error)
{
  rsp_symbolizer *s = g_new0(rsp_symbolizer, 1);
  s->strings = g_string_chunk_new(1 << 16);
  s->processes = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, process_maps_free);
  s->elfs = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)rsp_elf_free);
  s->build_ids = g_hash_table_new(g_str_hash, g_str_equal);
  const rsp_header_info *h = rsp_reader_header(reader);
  struct utsname u;
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  s->host_files = uname(&u) == 0 && h->osrelease && strcmp(h->osrelease, u.release) == 0 &&
                  (!h->hostname || strcmp(h->hostname, host) == 0);
  if (options && options->no_host_fallback)
    s->host_files = false;
  for (unsigned i = 0; i < h->n_build_ids; i++)
    g_hash_table_insert(s->build_ids, (gpointer)h->build_ids[i].filename, (gpointer)&h->build_ids[i]);
  GError *e = NULL;
  s->kallsyms = find_kallsyms(s, reader, options, &e);
  if (e) {
    g_propagate_error(error, e);
    rsp_symbolizer_free(s);
    return NULL;
  }
  return s;
}

void rsp_symbolizer_free(rsp_symbolizer *s)
{
  if (!s)
    return;
  g_hash_table_unref(s->processes);
  g_hash_table_unref(s->elfs);
  g_hash_table_unref(s->build_ids);
  rsp_kallsyms_free(s->kallsyms);
  g_string_chunk_free(s->strings);
  if (s->vdso_path) {
    remove(s->vdso_path);
    g_free(s->vdso_path);
  }
  g_free(s);
}

static process_maps *process(rsp_symbolizer *s, int32_t pid, bool create)
{
  process_maps *pm = g_hash_table_lookup(s->processes, GINT_TO_POINTER(pid));
  if (!pm && create) {
    pm = g_new0(process_maps, 1);
    pm->pid = pid;
    pm->maps = g_array_new(FALSE, FALSE, sizeof(umap));
    g_hash_table_insert(s->processes, GINT_TO_POINTER(pid), pm);
  }
  return pm;
}

/* The kernel's vdso is the same for every process of one kernel: on the recording host, this
 * process's copy (written to a temporary file, as perf does) names [vdso] frames. */
static const char *host_vdso(rsp_symbolizer *s)
{
  if (s->vdso_tried)
    return s->vdso_path;
  s->vdso_tried = true;
  if (!s->host_files)
    return NULL;
  gchar *maps = NULL;
  if (!g_file_get_contents("/proc/self/maps", &maps, NULL, NULL))
    return NULL;
  unsigned long start = 0, end = 0;
  for (char *line = maps; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = 0;
    if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &start, &end) == 2)
      break;
    start = end = 0;
    line = nl ? nl + 1 : NULL;
  }
  g_free(maps);
  if (!start || end <= start || end - start > (1u << 20))
    return NULL;
  char *path = NULL;
  int fd = g_file_open_tmp("rsp-vdso-XXXXXX.so", &path, NULL);
  if (fd < 0)
    return NULL;
  bool ok = write(fd, (const void *)start, end - start) == (ssize_t)(end - start);
  close(fd);
  if (!ok) {
    remove(path);
    g_free(path);
    return NULL;
  }
  s->vdso_path = path;
  return path;
}

static bool resolvable_path(const char *p)
{
  return p[0] == '/' && !g_str_has_prefix(p, "/memfd:") && !g_str_has_prefix(p, "//anon") &&
         !g_str_has_prefix(p, "/dev/zero") && !g_str_has_suffix(p, " (deleted)");
}

static rsp_elf *elf_for(rsp_symbolizer *s, const char *path, const uint8_t *bid, uint8_t bid_size)
{
  rsp_elf *e = g_hash_table_lookup(s->elfs, path);
  if (e)
    return e;
  if (!bid_size) {
    const rsp_build_id *b = g_hash_table_lookup(s->build_ids, path);
    if (b) {
      bid = b->id;
      bid_size = b->size;
    }
  }
  e = rsp_elf_new(path, bid, bid_size, s->strings);
  g_hash_table_insert(s->elfs, (gpointer)path, e);
  return e;
}

static int cmp_umap(const void *a, const void *b)
{
  const umap *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Inserts a map, cutting away what it overlaps (a new mmap replaces the old pages). */
static void add_map(process_maps *pm, const umap *m)
{
  GArray *a = pm->maps;
  GArray *out = g_array_sized_new(FALSE, FALSE, sizeof(umap), a->len + 2);
  for (guint i = 0; i < a->len; i++) {
    umap o = g_array_index(a, umap, i);
    if (o.end <= m->start || o.start >= m->end) {
      g_array_append_val(out, o);
      continue;
    }
    if (o.start < m->start) {
      umap l = o;
      l.end = m->start;
      g_array_append_val(out, l);
    }
    if (o.end > m->end) {
      umap r = o;
      r.pgoff += m->end - o.start;
      r.start = m->end;
      g_array_append_val(out, r);
    }
  }
  g_array_append_val(out, *m);
  g_array_sort(out, cmp_umap);
  g_array_unref(pm->maps);
  pm->maps = out;
}

void rsp_symbolizer_observe(rsp_symbolizer *s, const rsp_event *ev)
{
  switch (ev->type) {
  case PERF_RECORD_MMAP:
  case PERF_RECORD_MMAP2: {
    if (!(ev->u.mmap.prot & PROT_EXEC) || ev->u.mmap.pid == -1 || ev->u.mmap.len == 0)
      return; /* data maps; pid -1 is the kernel's own map */
    const char *path = g_string_chunk_insert_const(s->strings, ev->u.mmap.filename);
    umap m = {ev->u.mmap.start, ev->u.mmap.start + ev->u.mmap.len, ev->u.mmap.pgoff, path, NULL};
    if (resolvable_path(path)) {
      m.elf = elf_for(s, path, ev->u.mmap.build_id, ev->u.mmap.build_id_size);
    } else if (strcmp(path, "[vdso]") == 0 && host_vdso(s)) {
      const char *vp = g_string_chunk_insert_const(s->strings, s->vdso_path);
      m.elf = elf_for(s, vp, NULL, 0);
    }
    add_map(process(s, ev->u.mmap.pid, true), &m);
    return;
  }
  /* COMM with the exec flag keeps the maps, as perf does: samples taken inside execve still
   * show the old image, and the new image's mmaps replace what they overlap. */
  case PERF_RECORD_FORK:
    if (ev->u.fork.pid != ev->u.fork.ppid) {
      process_maps *parent = process(s, ev->u.fork.ppid, false);
      process_maps *child = process(s, ev->u.fork.pid, true);
      g_array_set_size(child->maps, 0);
      if (parent)
        g_array_append_vals(child->maps, parent->maps->data, parent->maps->len);
    }
    return;
  case PERF_RECORD_KSYMBOL:
    if (s->kallsyms && !(ev->u.ksymbol.flags & 1 /* UNREGISTER */))
      rsp_kallsyms_add(s->kallsyms, ev->u.ksymbol.addr, ev->u.ksymbol.len, ev->u.ksymbol.name);
    return;
  default:
    return;
  }
}

static const umap *find_map(process_maps *pm, uint64_t addr)
{
  long i = rsp_last_at_or_before(pm->maps->data, pm->maps->len, sizeof(umap), addr);
  const umap *m = i < 0 ? NULL : &g_array_index(pm->maps, umap, i);
  return m && addr < m->end ? m : NULL;
}

void rsp_symbolizer_resolve(rsp_symbolizer *s, int32_t pid, uint64_t addr, bool kernel,
                            rsp_frame *out)
{
  memset(out, 0, sizeof *out);
  out->addr = addr;
  out->kernel = kernel;
  rsp_sym sym;
  if (kernel) {
    s->stats.kernel_frames++;
    const char *dso;
    if (s->kallsyms && rsp_kallsyms_lookup(s->kallsyms, addr, &sym, &dso)) {
      out->sym = sym.name;
      out->sym_offset = addr - sym.start;
      out->dso = dso;
      s->stats.kernel_resolved++;
    } else {
      out->dso = "[kernel.kallsyms]";
    }
    return;
  }
  s->stats.user_frames++;
  process_maps *pm = process(s, pid, false);
  const umap *m = pm ? find_map(pm, addr) : NULL;
  if (m) {
    out->dso = m->path;
    if (m->elf) {
      uint64_t off = addr - m->start + m->pgoff;
      if (rsp_elf_lookup(m->elf, off, &sym)) {
        out->sym = sym.name;
        out->sym_offset = off - sym.start;
        s->stats.user_resolved++;
      } else if (rsp_elf_build_id_mismatch(m->elf)) {
        s->stats.build_id_mismatches++;
      }
      return;
    }
  }
  /* anonymous executable memory or no map: a JIT may have described it */
  if (pm && !pm->perfmap_tried) {
    pm->perfmap_tried = true;
    char *p = g_strdup_printf("/tmp/perf-%d.map", pid);
    if (s->host_files)
      pm->perfmap = rsp_perfmap_load(p, s->strings);
    g_free(p);
  }
  if (pm && pm->perfmap && rsp_perfmap_lookup(pm->perfmap, addr, &sym)) {
    out->sym = sym.name;
    out->sym_offset = addr - sym.start;
    if (!out->dso)
      out->dso = g_string_chunk_insert_const(s->strings, "[JIT]");
    s->stats.user_resolved++;
  }
}

unsigned rsp_symbolizer_callchain(rsp_symbolizer *s, const rsp_event *ev, rsp_frame *out,
                                  unsigned max)
{
  uint16_t cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
  bool kernel = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
  unsigned n = 0;
  for (uint32_t i = 0; i < ev->callchain_nr && n < max; i++) {
    uint64_t a = ev->callchain[i];
    if (rsp_is_context_marker(a)) {
      kernel = a == (uint64_t)PERF_CONTEXT_KERNEL || a == (uint64_t)PERF_CONTEXT_GUEST_KERNEL;
      continue;
    }
    rsp_symbolizer_resolve(s, ev->pid, a, kernel, &out[n++]);
  }
  return n;
}

const rsp_symbolizer_stats *rsp_symbolizer_stats_get(const rsp_symbolizer *s)
{
  return &s->stats;
}
