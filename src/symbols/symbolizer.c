/* The symbolizer: follows each process's maps from the event stream and sends every callchain
 * address to the right resolver (kallsyms for the kernel; the ELF file of the map, then the
 * JIT map, for user space). Every (dso, address) that reaches a resolver is answered once: the
 * answer goes into one flat open-addressing table, so a frame seen before costs a pid lookup, a
 * bisection of that process's maps and one probe, without allocation. */
#include "symbols/symbolizer-private.h"
#include "reader/zeroed.h"

#include <libelf.h>
#include <limits.h>
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

/* A kernel module's map (an MMAP of pid -1 other than the kernel's own), named as perf names it. */
typedef struct kmod_map {
  uint64_t start, end;
  const char *name; /* interned "[ext4]" */
} kmod_map;

typedef struct process_maps {
  GArray *maps; /* umap, sorted by start, not overlapping */
  rsp_perfmap *perfmap;
  const char *perfmap_path; /* interned, when the perf map was read */
  bool perfmap_tried;
  int32_t pid;
  rsp_unwinder *unwinder; /* -g dwarf samples: built on the first, again after the maps change */
  bool unwinder_stale;
} process_maps;

/* One answered frame. OWNER is the rsp_elf of a user frame, or an odd tag for kernel frames
 * (KERNEL_TAG of the kallsyms generation: KSYMBOL records change the kernel's answers). */
typedef struct frame_slot {
  const void *owner; /* NULL: empty slot */
  uint64_t key;      /* kernel address, or file offset in OWNER */
  const char *sym;   /* NULL: unresolved */
  const char *dso;   /* kernel frames: the module */
  uint64_t start;    /* symbol start, in KEY's space */
  const char **inlined; /* user frames: the functions inlined there, innermost first (in s->inline_chains) */
  uint32_t n_inlined;
  uint32_t note;        /* the caller's word (rsp_frame.note) */
} frame_slot;

typedef struct frame_cache {
  frame_slot *slots;
  size_t mask; /* capacity - 1, capacity a power of two */
  size_t used;
} frame_cache;

struct rsp_symbolizer {
  GStringChunk *strings;
  bool unwind_x86_64;     /* the recording's arch is x86_64: -g dwarf user stacks can be unwound */
  rsp_kallsyms *kallsyms;
  GArray *kmods;              /* kmod_map, sorted by start: the dso of module frames kallsyms cannot name */
  uint64_t kernel_generation; /* bumped by every KSYMBOL record and module map */
  /* The kernel's answers apart from the user's: a build's 2.3M kernel frames of new chains are a few thousand
   * addresses, whose slots then stay in the cpu's caches instead of spread over the user frames' 15 MB */
  frame_cache cache, kcache;
  uint64_t cache_moves;   /* how many times the cache's slots moved (their notes with them) */
  GHashTable *mismatched; /* rsp_elf* already counted in build_id_mismatches */
  bool no_host_files;     /* options->no_host_fallback: read no file of this host */
  GHashTable *processes;  /* pid -> process_maps* (never removed: pointers stay valid) */
  process_maps *last;     /* the process of the last lookup */
  GHashTable *elfs;       /* interned path (and build id) -> rsp_elf* */
  GHashTable *build_ids;  /* path -> rsp_build_id* (BUILD_ID feature), copied from the header */
  rsp_build_id *build_id_copy;
  unsigned n_build_id_copy;
  rsp_symbolizer_stats stats;
  bool host_files;        /* the recording was made on this host: its files can be read */
  char *vdso_path;        /* this process's vdso, written out: the recorded one when on this host */
  bool vdso_tried;
  bool no_inline;         /* options->no_inline: no frames for inlined functions */
  GPtrArray *inline_chains; /* the frame slots' inlined arrays */
  rsp_elf_shared elf_shared;  /* the ELF files' names, and the lock while they are opened ahead */
  GPtrArray *ahead;           /* rsp_elf*: the files opened ahead, on the thread OPENER */
  GThread *opener[2];         /* the threads opening them (two when the machine has two cores or more) */
  int stop_opener;            /* atomic */
};

#define CACHE_MIN_SLOTS 4096

static inline size_t slot_hash(const void *owner, uint64_t key)
{
  uint64_t h = (key ^ ((uint64_t)(uintptr_t)owner * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
  return (size_t)(h ^ (h >> 32));
}

static inline const void *kernel_tag(const rsp_symbolizer *s)
{
  return (const void *)(uintptr_t)(2 * s->kernel_generation + 1); /* odd: never a pointer */
}

/* The slot of (OWNER, KEY): the answer when its owner is set, else where to put it. */
static inline frame_slot *cache_slot(frame_cache *c, const void *owner, uint64_t key)
{
  size_t i = slot_hash(owner, key) & c->mask;
  for (;;) {
    frame_slot *sl = &c->slots[i];
    if (!sl->owner || (sl->owner == owner && sl->key == key))
      return sl;
    i = (i + 1) & c->mask;
  }
}

/* Keeps C's load under 5/8; drops the kernel answers of past generations on the way. */
static void cache_reserve(rsp_symbolizer *s, frame_cache *c)
{
  if (c->slots && (c->used + 1) * 8 <= (c->mask + 1) * 5)
    return;
  frame_cache old = *c;
  s->cache_moves++;
  const void *ktag = kernel_tag(s);
  size_t live = 0;
  for (size_t i = 0; old.slots && i <= old.mask; i++) {
    const void *o = old.slots[i].owner;
    live += o && (!((uintptr_t)o & 1) || o == ktag);
  }
  size_t cap = CACHE_MIN_SLOTS;
  while ((live + 1) * 2 > cap)
    cap *= 2;
  c->slots = rsp_new_zeroed(frame_slot, cap); /* (probed before written) */
  c->mask = cap - 1;
  c->used = 0;
  for (size_t i = 0; old.slots && i <= old.mask; i++) {
    const frame_slot *sl = &old.slots[i];
    if (sl->owner && (!((uintptr_t)sl->owner & 1) || sl->owner == ktag)) {
      *cache_slot(c, sl->owner, sl->key) = *sl;
      c->used++;
    }
  }
  g_free(old.slots);
}

static void process_maps_free(gpointer p)
{
  process_maps *pm = p;
  rsp_unwinder_free(pm->unwinder);
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
  if (path && strcmp(path, "-") != 0) {
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
  if (s->host_files) {
    rsp_kallsyms *k = rsp_kallsyms_load("/proc/kallsyms", s->strings, NULL);
    if (k) {
      s->stats.kallsyms_source = "/proc/kallsyms";
      return k;
    }
  }
  s->stats.kallsyms_source = "none";
  return NULL;
}

static rsp_elf *elf_for(rsp_symbolizer *s, const char *path, const uint8_t *bid, uint8_t bid_size);
static bool resolvable_path(const char *p);

/* Each opener takes the files in list order that no other thread has taken (rsp_elf_open_ahead claims a file). */
static gpointer opener_main(gpointer data)
{
  rsp_symbolizer *s = data;
  for (guint i = 0; i < s->ahead->len && !__atomic_load_n(&s->stop_opener, __ATOMIC_RELAXED); i++)
    rsp_elf_open_ahead(g_ptr_array_index(s->ahead, i), !s->no_inline);
  return NULL;
}

/* Opens the user-space files of the recording's build-id list (perf lists those its samples hit) on a thread of
 * their own, with their debug info, while this one parses the kallsyms and the model's first events wait for
 * them: on deep3m this was 0.5 G instructions of ELF reading and DWARF decompression at the start, on the model's
 * thread, while the reader's thread stood with its batches full. */
static void open_ahead(rsp_symbolizer *s)
{
  s->ahead = g_ptr_array_new();
  GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (unsigned i = 0; i < s->n_build_id_copy; i++) {
    const rsp_build_id *b = &s->build_id_copy[i];
    if (!b->filename || !b->size || !resolvable_path(b->filename) || g_str_has_prefix(b->filename, "/lib/modules/") ||
        g_str_has_suffix(b->filename, ".ko"))
      continue;
    rsp_elf *e = elf_for(s, b->filename, b->id, b->size);
    if (e && g_hash_table_add(seen, e))
      g_ptr_array_add(s->ahead, e);
  }
  g_hash_table_destroy(seen);
  if (!s->ahead->len)
    return;
  elf_version(EV_CURRENT); /* libelf's global, set before two threads use it */
  pthread_mutex_init(&s->elf_shared.lock, NULL);
  pthread_cond_init(&s->elf_shared.opened, NULL);
  s->elf_shared.threaded = true;
  s->opener[0] = g_thread_new("rsp-elf-open", opener_main, s);
  /* a second one beside it: inflating libc6-dbg's compressed DWARF is most of the first 0.25 s, during which the
   * model's thread waits for libc and the reader's, its batches full, for the model */
  if (s->ahead->len > 1 && g_get_num_processors() > 1)
    s->opener[1] = g_thread_new("rsp-elf-open", opener_main, s);
}

rsp_symbolizer *rsp_symbolizer_new(const rsp_reader *reader, const rsp_symbolizer_options *options,
                                   GError **error)
{
  rsp_symbolizer *s = g_new0(rsp_symbolizer, 1);
  s->strings = g_string_chunk_new(1 << 16);
  s->processes = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, process_maps_free);
  s->elfs = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)rsp_elf_free);
  s->build_ids = g_hash_table_new(g_str_hash, g_str_equal);
  s->mismatched = g_hash_table_new(g_direct_hash, g_direct_equal);
  s->kmods = g_array_new(FALSE, FALSE, sizeof(kmod_map));
  s->no_host_files = options && options->no_host_fallback;
  s->no_inline = options && options->no_inline;
  s->inline_chains = g_ptr_array_new_with_free_func(g_free);
  const rsp_header_info *h = rsp_reader_header(reader);
  /* the register mapping is x86_64's; a file without the arch feature was most likely recorded there too */
  s->unwind_x86_64 = !h->arch || strcmp(h->arch, "x86_64") == 0;
  struct utsname u;
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  s->host_files = !s->no_host_files && uname(&u) == 0 && h->osrelease &&
                  strcmp(h->osrelease, u.release) == 0 && (!h->hostname || strcmp(h->hostname, host) == 0);
  /* a copy: the reader's array may grow later (pipe mode) and move */
  s->build_id_copy = g_new0(rsp_build_id, h->n_build_ids ? h->n_build_ids : 1);
  s->n_build_id_copy = h->n_build_ids;
  for (unsigned i = 0; i < h->n_build_ids; i++) {
    rsp_build_id *b = &s->build_id_copy[i];
    *b = h->build_ids[i];
    if (!b->filename || !b->size)
      continue;
    b->filename = g_string_chunk_insert_const(s->strings, b->filename);
    g_hash_table_insert(s->build_ids, (gpointer)b->filename, b);
  }
  cache_reserve(s, &s->cache);
  cache_reserve(s, &s->kcache);
  s->elf_shared.strings = g_string_chunk_new(1 << 16);
  if (options && options->open_ahead && !s->no_host_files)
    open_ahead(s);
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
  __atomic_store_n(&s->stop_opener, 1, __ATOMIC_RELAXED);
  for (int i = 0; i < 2; i++)
    if (s->opener[i])
      g_thread_join(s->opener[i]);
  if (s->ahead)
    g_ptr_array_unref(s->ahead);
  g_hash_table_unref(s->processes);
  g_hash_table_unref(s->elfs);
  g_hash_table_unref(s->build_ids);
  g_free(s->build_id_copy);
  g_hash_table_unref(s->mismatched);
  g_array_unref(s->kmods);
  g_free(s->cache.slots);
  g_free(s->kcache.slots);
  g_ptr_array_unref(s->inline_chains);
  rsp_kallsyms_free(s->kallsyms);
  g_string_chunk_free(s->strings);
  g_string_chunk_free(s->elf_shared.strings);
  if (s->elf_shared.threaded) {
    pthread_mutex_destroy(&s->elf_shared.lock);
    pthread_cond_destroy(&s->elf_shared.opened);
  }
  if (s->vdso_path) {
    remove(s->vdso_path);
    g_free(s->vdso_path);
  }
  g_free(s);
}

static process_maps *process(rsp_symbolizer *s, int32_t pid, bool create)
{
  if (s->last && s->last->pid == pid)
    return s->last;
  process_maps *pm = g_hash_table_lookup(s->processes, GINT_TO_POINTER(pid));
  if (!pm && create) {
    pm = g_new0(process_maps, 1);
    pm->pid = pid;
    pm->maps = g_array_new(FALSE, FALSE, sizeof(umap));
    g_hash_table_insert(s->processes, GINT_TO_POINTER(pid), pm);
  }
  if (pm)
    s->last = pm;
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

/* A file we may open: not anonymous memory, a memfd, a deleted file or a [special] map. */
static bool resolvable_path(const char *p)
{
  return p[0] == '/' && !g_str_has_prefix(p, "/memfd:") && !g_str_has_prefix(p, "//anon") &&
         !g_str_has_prefix(p, "/dev/zero") && !g_str_has_prefix(p, "/anon_hugepage") &&
         !g_str_has_suffix(p, " (deleted)");
}

/* Anonymous memory, where a JIT's perf-PID.map names the code (perf's is_anon_memory). */
static bool anon_path(const char *p)
{
  return g_str_has_prefix(p, "//anon") || g_str_has_prefix(p, "/dev/zero") ||
         g_str_has_prefix(p, "/anon_hugepage") || g_str_has_prefix(p, "[anon");
}

/* One rsp_elf per (path, build id): a file rebuilt during the recording is two dsos. */
static rsp_elf *elf_for(rsp_symbolizer *s, const char *path, const uint8_t *bid, uint8_t bid_size)
{
  if (!bid_size) {
    const rsp_build_id *b = g_hash_table_lookup(s->build_ids, path);
    if (b) {
      bid = b->id;
      bid_size = b->size;
    }
  }
  bid_size = MIN(bid_size, 20);
  /* the key written out by hand: a g_snprintf per byte of the build id was 85 M instructions for the 7,570 mmaps
   * of deep3m */
  char key[PATH_MAX + 48];
  size_t n = strlen(path);
  if (n + 2 + 2 * (size_t)bid_size >= sizeof key)
    return NULL;
  memcpy(key, path, n);
  if (bid_size) {
    static const char hex[] = "0123456789abcdef";
    key[n++] = '\n'; /* never in a path perf records */
    for (unsigned i = 0; i < bid_size; i++) {
      key[n++] = hex[bid[i] >> 4];
      key[n++] = hex[bid[i] & 15];
    }
  }
  key[n] = 0;
  rsp_elf *e = g_hash_table_lookup(s->elfs, key);
  if (e)
    return e;
  e = rsp_elf_new(path, bid, bid_size, &s->elf_shared);
  g_hash_table_insert(s->elfs, (gpointer)g_string_chunk_insert_const(s->strings, key), e);
  return e;
}

/* Inserts a map, cutting away what it overlaps (a new mmap replaces the old pages). The maps are sorted and do not
 * overlap, so those it meets are one run found by bisection, replaced in place by what is left of its ends and the
 * new map: copying the array and sorting it again per mmap was 8,324 g_array_sorts on deep3m. */
static void add_map(process_maps *pm, const umap *m)
{
  GArray *a = pm->maps;
  umap *v = (umap *)(void *)a->data;
  /* [lo, hi): the maps it overlaps (their ends ascend too) */
  guint lo = 0, hi = a->len;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (v[mid].end <= m->start)
      lo = mid + 1;
    else
      hi = mid;
  }
  hi = lo;
  while (hi < a->len && v[hi].start < m->end)
    hi++;
  umap put[3];
  guint n = 0;
  if (lo < hi && v[lo].start < m->start) {
    put[n] = v[lo];
    put[n++].end = m->start;
  }
  put[n++] = *m;
  if (lo < hi && v[hi - 1].end > m->end) {
    umap r = v[hi - 1];
    r.pgoff += m->end - r.start;
    r.start = m->end;
    put[n++] = r;
  }
  guint old = hi - lo;
  if (n > old)
    g_array_insert_vals(a, hi, put, n - old); /* room: the first OLD of PUT are written over below */
  else if (n < old)
    g_array_remove_range(a, lo + n, old - n);
  memcpy(&g_array_index(a, umap, lo), put, n * sizeof *put);
}

/* perf's kernel map, "[kernel.kallsyms]_text" with _text's address at recording time as pgoff:
 * kallsyms where _text sits elsewhere come from another boot (KASLR) and would name every kernel
 * frame wrongly, so they are dropped. */
static void check_kernel_map(rsp_symbolizer *s, const rsp_event *ev)
{
  const char *prefix = "[kernel.kallsyms]";
  const char *f = ev->u.mmap.filename;
  if (!s->kallsyms || !f || !g_str_has_prefix(f, prefix) || !f[strlen(prefix)])
    return;
  const char *ref = f + strlen(prefix);
  uint64_t want = ev->u.mmap.pgoff, have = rsp_kallsyms_reference(s->kallsyms, ref);
  if (!want || !have || want == have)
    return;
  s->stats.kallsyms_source = g_string_chunk_insert_const(
    s->strings, "none (the kallsyms found are from another boot: _text moved)");
  rsp_kallsyms_free(s->kallsyms);
  s->kallsyms = NULL;
  s->kernel_generation++;
}

/* perf's name of a module from its map (kmod_path__parse_name): "[ext4]" for ".../ext4.ko.zst",
 * dashes made underscores as the kernel names modules; a name in brackets already is kept. */
static const char *module_name(rsp_symbolizer *s, const char *f)
{
  if (f[0] == '[')
    return g_string_chunk_insert_const(s->strings, f);
  const char *base = strrchr(f, '/');
  base = base ? base + 1 : f;
  const char *ko = strstr(base, ".ko");
  if (!ko || (ko[3] && ko[3] != '.'))
    return NULL; /* not a module file: no module map */
  GString *n = g_string_new("[");
  for (const char *c = base; c < ko; c++)
    g_string_append_c(n, *c == '-' ? '_' : *c);
  g_string_append_c(n, ']');
  const char *k = g_string_chunk_insert_const(s->strings, n->str);
  g_string_free(n, TRUE);
  return k;
}

static void observe_kernel_mmap(rsp_symbolizer *s, const rsp_event *ev)
{
  const char *f = ev->u.mmap.filename;
  if (!f || g_str_has_prefix(f, "[kernel.kallsyms]") || g_str_has_prefix(f, "[guest.kernel.kallsyms]") ||
      ev->u.mmap.len == 0 || ev->u.mmap.start + ev->u.mmap.len < ev->u.mmap.start)
    return;
  const char *name = module_name(s, f);
  if (!name || s->kmods->len >= 65536)
    return;
  kmod_map m = {ev->u.mmap.start, ev->u.mmap.start + ev->u.mmap.len, name};
  /* after those starting at or before it: where appending and a stable sort put it */
  long at = rsp_last_at_or_before(s->kmods->data, s->kmods->len, sizeof(kmod_map), m.start);
  g_array_insert_val(s->kmods, (guint)(at + 1), m);
  s->kernel_generation++; /* kernel answers cached so far may now have a module */
}

static void observe_mmap(rsp_symbolizer *s, const rsp_event *ev)
{
  if (ev->u.mmap.pid == -1) {
    check_kernel_map(s, ev);
    observe_kernel_mmap(s, ev);
  }
  if (!(ev->u.mmap.prot & PROT_EXEC) || ev->u.mmap.pid == -1 || ev->u.mmap.len == 0 ||
      ev->u.mmap.start + ev->u.mmap.len < ev->u.mmap.start)
    return; /* data maps; pid -1 is the kernel's own map */
  const char *path = g_string_chunk_insert_const(s->strings, ev->u.mmap.filename ? ev->u.mmap.filename : "");
  umap m = {ev->u.mmap.start, ev->u.mmap.start + ev->u.mmap.len, ev->u.mmap.pgoff, path, NULL};
  if (s->no_host_files) {
    /* nothing of this host is read */
  } else if (resolvable_path(path)) {
    m.elf = elf_for(s, path, ev->u.mmap.build_id, ev->u.mmap.build_id_size);
  } else if (strcmp(path, "[vdso]") == 0 && host_vdso(s)) {
    m.elf = elf_for(s, s->vdso_path, NULL, 0);
  }
  process_maps *pm = process(s, ev->u.mmap.pid, true);
  add_map(pm, &m);
  pm->unwinder_stale = true;
}

bool rsp_symbolizer_follows(uint32_t type)
{
  return type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2 || type == PERF_RECORD_FORK ||
         type == PERF_RECORD_KSYMBOL;
}

void rsp_symbolizer_observe(rsp_symbolizer *s, const rsp_event *ev)
{
  switch (ev->type) {
  case PERF_RECORD_MMAP:
  case PERF_RECORD_MMAP2:
    observe_mmap(s, ev);
    return;
  /* COMM with the exec flag keeps the maps, as perf does: samples taken inside execve after the
   * new mm is in place still carry the old image's user ip, and the new image's mmaps replace
   * what they overlap. EXIT keeps them too: other threads may outlive the main one, and a pid
   * reused later gets its maps from its FORK. Threads (pid == ppid) share their process's maps. */
  case PERF_RECORD_FORK:
    if (ev->u.fork.pid != ev->u.fork.ppid) {
      process_maps *parent = process(s, ev->u.fork.ppid, false);
      process_maps *child = process(s, ev->u.fork.pid, true);
      if (child != parent) {
        g_array_set_size(child->maps, 0);
        if (parent)
          g_array_append_vals(child->maps, parent->maps->data, parent->maps->len);
        child->unwinder_stale = true;
        rsp_perfmap_free(child->perfmap);
        child->perfmap = NULL;
        child->perfmap_tried = false;
      }
    }
    return;
  case PERF_RECORD_KSYMBOL:
    if (!ev->u.ksymbol.name || !ev->u.ksymbol.addr)
      return;
    if (!s->kallsyms)
      s->kallsyms = rsp_kallsyms_new(s->strings);
    if (ev->u.ksymbol.flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER)
      rsp_kallsyms_remove(s->kallsyms, ev->u.ksymbol.addr);
    else
      rsp_kallsyms_add(s->kallsyms, ev->u.ksymbol.addr, ev->u.ksymbol.len, ev->u.ksymbol.name,
                       ev->u.ksymbol.ksym_type == PERF_RECORD_KSYMBOL_TYPE_BPF ? "[bpf]"
                                                                               : "[kernel.kallsyms]");
    s->kernel_generation++; /* the kernel answers cached so far may have changed */
    return;
  default:
    return;
  }
}

static const umap *find_map(const process_maps *pm, uint64_t addr)
{
  long i = rsp_last_at_or_before(pm->maps->data, pm->maps->len, sizeof(umap), addr);
  const umap *m = i < 0 ? NULL : &g_array_index(pm->maps, umap, i);
  return m && addr < m->end ? m : NULL;
}

/* The module whose map holds ADDR, or "[kernel.kallsyms]". */
static const char *kernel_dso(const rsp_symbolizer *s, uint64_t addr)
{
  long i = rsp_last_at_or_before(s->kmods->data, s->kmods->len, sizeof(kmod_map), addr);
  if (i >= 0 && addr < g_array_index(s->kmods, kmod_map, i).end)
    return g_array_index(s->kmods, kmod_map, i).name;
  return "[kernel.kallsyms]";
}

static void resolve_kernel(rsp_symbolizer *s, uint64_t addr, rsp_frame *out)
{
  s->stats.kernel_frames++;
  out->dso = s->kmods->len ? kernel_dso(s, addr) : "[kernel.kallsyms]";
  if (!s->kallsyms)
    return;
  const void *tag = kernel_tag(s);
  frame_slot *sl = cache_slot(&s->kcache, tag, addr);
  if (sl->owner) {
    s->stats.cache_hits++;
  } else {
    s->stats.cache_misses++;
    cache_reserve(s, &s->kcache);
    sl = cache_slot(&s->kcache, tag, addr);
    rsp_sym sym;
    const char *dso;
    *sl = (frame_slot){tag, addr, NULL, out->dso, 0, NULL, 0, 0};
    if (rsp_kallsyms_lookup(s->kallsyms, addr, &sym, &dso))
      *sl = (frame_slot){tag, addr, sym.name, dso, sym.start, NULL, 0, 0};
    s->kcache.used++;
  }
  if (sl->sym) {
    out->sym = sl->sym;
    out->sym_offset = addr - sl->start;
    out->dso = sl->dso;
    out->note = &sl->note;
    s->stats.kernel_resolved++;
  }
}

/* Symbols of JIT code from /tmp/perf-PID.map, read once per process on the recording host. */
static bool resolve_jit(rsp_symbolizer *s, process_maps *pm, uint64_t addr, rsp_frame *out)
{
  if (!pm->perfmap_tried) {
    pm->perfmap_tried = true;
    if (s->host_files) {
      char p[64];
      g_snprintf(p, sizeof p, "/tmp/perf-%d.map", pm->pid);
      pm->perfmap = rsp_perfmap_load(p, s->strings);
      if (pm->perfmap)
        pm->perfmap_path = g_string_chunk_insert_const(s->strings, p);
    }
  }
  rsp_sym sym;
  if (!pm->perfmap || !rsp_perfmap_lookup(pm->perfmap, addr, &sym))
    return false;
  out->sym = sym.name;
  out->sym_offset = addr - sym.start;
  if (!out->dso || anon_path(out->dso))
    out->dso = pm->perfmap_path; /* as perf names the dso of anonymous code */
  return true;
}

/* The frame slot of user address OFF in M's file; CALLER: a return address, whose inlined functions
 * are those of the call before it (OFF - 1), so it has a slot of its own (bit 63: file offsets never
 * reach it). */
static frame_slot *user_slot(rsp_symbolizer *s, const umap *m, uint64_t off, bool caller)
{
  uint64_t key = caller ? off | (1ull << 63) : off;
  frame_slot *sl = cache_slot(&s->cache, m->elf, key);
  if (sl->owner) {
    s->stats.cache_hits++;
    return sl;
  }
  s->stats.cache_misses++;
  cache_reserve(s, &s->cache);
  sl = cache_slot(&s->cache, m->elf, key);
  rsp_sym sym;
  *sl = (frame_slot){m->elf, key, NULL, NULL, 0, NULL, 0, 0};
  if (rsp_elf_lookup(m->elf, off, &sym)) {
    sl->sym = sym.name;
    sl->start = sym.start;
    const char *names[RSP_MAX_INLINED];
    unsigned n = s->no_inline ? 0 : rsp_elf_inlines(m->elf, caller && off ? off - 1 : off, names, RSP_MAX_INLINED);
    if (n) {
      sl->inlined = g_memdup2(names, n * sizeof *names);
      sl->n_inlined = n;
      g_ptr_array_add(s->inline_chains, sl->inlined);
    }
  } else if (rsp_elf_build_id_mismatch(m->elf) && g_hash_table_add(s->mismatched, m->elf)) {
    s->stats.build_id_mismatches++;
  }
  s->cache.used++;
  return sl;
}

/* Resolves user address ADDR of PM into OUT[*N]; with MAX > 1, the functions inlined there first
 * (innermost first, each its own frame marked inlined), as addr2line -i and perf --inline show them.
 * Advances *N by the frames written (at most MAX). */
static void resolve_user_frames(rsp_symbolizer *s, process_maps *pm, uint64_t addr, bool caller, rsp_frame *out,
                                unsigned *n, unsigned max)
{
  rsp_frame *f = &out[*n];
  *f = (rsp_frame){.addr = addr, .kernel = false};
  s->stats.user_frames++;
  const umap *m = pm ? find_map(pm, addr) : NULL;
  if (!m) {
    if (pm && resolve_jit(s, pm, addr, f))
      s->stats.user_resolved++;
    (*n)++;
    return;
  }
  f->dso = m->path;
  if (!m->elf) {
    /* anonymous executable memory, a memfd, a deleted file: a JIT may have described it */
    if (resolve_jit(s, pm, addr, f))
      s->stats.user_resolved++;
    (*n)++;
    return;
  }
  uint64_t off = addr - m->start + m->pgoff;
  frame_slot *sl = user_slot(s, m, off, caller);
  if (!sl->sym) {
    (*n)++;
    return;
  }
  s->stats.user_resolved++;
  for (uint32_t i = 0; i < sl->n_inlined && *n + 1 < max; i++)
    out[(*n)++] = (rsp_frame){.addr = addr, .sym = sl->inlined[i], .dso = m->path, .inlined = true};
  f = &out[*n];
  *f = (rsp_frame){.addr = addr, .sym = sl->sym, .sym_offset = off - sl->start, .dso = m->path,
                   .note = &sl->note};
  (*n)++;
}

static void resolve_user(rsp_symbolizer *s, process_maps *pm, uint64_t addr, rsp_frame *out)
{
  unsigned n = 0;
  resolve_user_frames(s, pm, addr, false, out, &n, 1);
}

void rsp_symbolizer_resolve(rsp_symbolizer *s, int32_t pid, uint64_t addr, bool kernel,
                            rsp_frame *out)
{
  *out = (rsp_frame){.addr = addr, .kernel = kernel};
  if (kernel)
    resolve_kernel(s, addr, out);
  else
    resolve_user(s, process(s, pid, false), addr, out);
}

static unsigned symbolize_chain(rsp_symbolizer *s, const rsp_event *ev, rsp_frame *out, unsigned max);

/* The unwinder of PM over its maps' readable ELF files (each once, at its load bias). */
static rsp_unwinder *unwinder_of(process_maps *pm)
{
  if (pm->unwinder && !pm->unwinder_stale)
    return pm->unwinder;
  rsp_unwinder_free(pm->unwinder);
  GPtrArray *paths = g_ptr_array_new();
  GArray *bases = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (guint i = 0; i < pm->maps->len; i++) {
    const umap *m = &g_array_index(pm->maps, umap, i);
    if (!m->elf || m->start < m->pgoff || rsp_elf_build_id_mismatch(m->elf) ||
        rsp_elf_status(m->elf) >= RSP_DSO_UNREADABLE || !g_hash_table_add(seen, (gpointer)m->elf))
      continue;
    uint64_t base = m->start - m->pgoff;
    g_ptr_array_add(paths, (gpointer)rsp_elf_path(m->elf));
    g_array_append_val(bases, base);
  }
  pm->unwinder = rsp_unwinder_new(pm->pid, (const char *const *)paths->pdata, (const uint64_t *)(void *)bases->data,
                                  paths->len);
  pm->unwinder_stale = false;
  g_hash_table_destroy(seen);
  g_ptr_array_free(paths, TRUE);
  g_array_free(bases, TRUE);
  return pm->unwinder;
}

/* Whether EV carries a user stack to unwind (perf record --call-graph dwarf, x86_64 registers). */
static bool has_dwarf_stack(const rsp_symbolizer *s, const rsp_event *ev)
{
  return s->unwind_x86_64 && !s->no_host_files && ev->regs_user && ev->regs_user_abi == 2 /* 64-bit */ &&
         ev->stack_user && ev->stack_user_dyn_size >= 8 && ev->evsel && ev->pid > 0;
}

static unsigned callchain_frames(rsp_symbolizer *s, const rsp_event *ev, rsp_frame *out, unsigned max);

unsigned rsp_symbolizer_callchain(rsp_symbolizer *s, const rsp_event *ev, rsp_frame *out,
                                  unsigned max)
{
  uint64_t moves = s->cache_moves;
  unsigned n = callchain_frames(s, ev, out, max);
  if (s->cache_moves != moves) /* the slots of the frames answered before the move are elsewhere */
    for (unsigned i = 0; i < n; i++)
      out[i].note = NULL;
  return n;
}

static unsigned callchain_frames(rsp_symbolizer *s, const rsp_event *ev, rsp_frame *out, unsigned max)
{
  if (has_dwarf_stack(s, ev)) {
    /* the kernel part of the chain as recorded, then the user part unwound (perf wrote the user ip
     * only: its frame-pointer walk stops there without -g fp) */
    unsigned n = 0;
    bool kernel = false;
    for (uint32_t i = 0; i < ev->callchain_nr && n < max; i++) {
      uint64_t a = ev->callchain[i];
      if (rsp_is_context_marker(a)) {
        kernel = a == (uint64_t)PERF_CONTEXT_KERNEL || a == (uint64_t)PERF_CONTEXT_GUEST_KERNEL;
        continue;
      }
      if (!kernel)
        break;
      out[n] = (rsp_frame){ .addr = a, .kernel = true };
      resolve_kernel(s, a, &out[n++]);
    }
    process_maps *pm = process(s, ev->pid, false);
    uint64_t pcs[128];
    unsigned got = pm ? rsp_unwinder_unwind(unwinder_of(pm), ev->tid, ev->regs_user, ev->regs_user_nr,
                                            ev->evsel->attr.sample_regs_user, ev->stack_user,
                                            ev->stack_user_dyn_size, pcs, G_N_ELEMENTS(pcs))
                      : 0;
    if (got) {
      for (unsigned i = 0; i < got && n < max; i++)
        resolve_user_frames(s, pm, pcs[i], i > 0, out, &n, max);
      return n;
    }
  }
  return symbolize_chain(s, ev, out, max);
}

static unsigned symbolize_chain(rsp_symbolizer *s, const rsp_event *ev, rsp_frame *out, unsigned max)
{
  uint16_t cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
  bool kernel = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
  process_maps *pm = NULL;
  bool pm_found = false;
  unsigned n = 0, user_frames = 0;
  if (ev->callchain_nr == 0) {
    /* no call chain recorded: the sample's own ip is its one frame, as perf script prints it */
    if (!(ev->present & PERF_SAMPLE_IP) || max == 0 || ev->type != PERF_RECORD_SAMPLE)
      return 0;
    rsp_symbolizer_resolve(s, ev->pid, ev->ip, kernel, &out[0]);
    return 1;
  }
  /* Return addresses are resolved as they are, not minus one: perf script names a caller frame
   * by the symbol holding its return address (measured: 100% of frames agree this way). */
  for (uint32_t i = 0; i < ev->callchain_nr && n < max; i++) {
    uint64_t a = ev->callchain[i];
    if (rsp_is_context_marker(a)) {
      kernel = a == (uint64_t)PERF_CONTEXT_KERNEL || a == (uint64_t)PERF_CONTEXT_GUEST_KERNEL;
      continue;
    }
    if (kernel) {
      rsp_frame *f = &out[n++];
      *f = (rsp_frame){.addr = a, .kernel = true};
      resolve_kernel(s, a, f);
    } else {
      if (!pm_found) {
        pm = process(s, ev->pid, false);
        pm_found = true;
      }
      resolve_user_frames(s, pm, a, user_frames++ > 0, out, &n, max);
    }
  }
  return n;
}

const rsp_symbolizer_stats *rsp_symbolizer_stats_get(const rsp_symbolizer *s)
{
  return &s->stats;
}

rsp_dso_status rsp_symbolizer_dso_status(const rsp_symbolizer *s, const char *path)
{
  /* the worst of its builds: the statuses are in order of gravity */
  rsp_dso_status worst = RSP_DSO_NOT_READ;
  if (!path)
    return worst;
  const char *file = strcmp(path, "[vdso]") == 0 ? s->vdso_path : path;
  if (!file)
    return worst;
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init(&it, s->elfs);
  while (g_hash_table_iter_next(&it, NULL, &v)) {
    const rsp_elf *e = v;
    if (strcmp(rsp_elf_path(e), file) == 0)
      worst = MAX(worst, rsp_elf_status(e));
  }
  return worst;
}
