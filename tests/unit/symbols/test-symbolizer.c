/* The whole symbolizer through the reader: a perf.data written here, with MMAP2, FORK, COMM,
 * KSYMBOL and SAMPLE records whose addresses are this process's own functions (truth: their
 * addresses and /proc/self/maps), a kallsyms snapshot beside it (FILE.kallsyms.zst), a perf map
 * in /tmp and the recorded build ids. Every frame's symbol, offset and dso is checked. */
#include "reader/reader.h"
#include "symbols/symbols.h"
#include "symtest-lib.h"
#include "symtest-util.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zstd.h>

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN | \
                     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

static const char kallsyms_text[] =
  "ffffffff81000000 T _stext\n"
  "ffffffff81000000 T _text\n"
  "ffffffff81000100 T k_one\n"
  "ffffffff81000200 T k_two\n"
  "ffffffff81000300 T _etext\n"
  "ffffffffc0001000 t mod_fn\t[mymod]\n";

#define BPF_ADDR UINT64_C(0xffffffffc0100000)
#define ANON_START UINT64_C(0x7f0000000000)
#define DATA_START UINT64_C(0x7e0000000000)

/* ---- a perf.data writer ------------------------------------------------------------------ */
typedef struct writer {
  GByteArray *b;
  guint rec;     /* offset of the record being written */
  uint64_t time; /* of the next record */
} writer;

static void put(writer *w, const void *p, size_t n)
{
  g_byte_array_append(w->b, p, (guint)n);
}
static void put32(writer *w, uint32_t v) { put(w, &v, 4); }
static void put64(writer *w, uint64_t v) { put(w, &v, 8); }
static void put_padded(writer *w, const char *s, size_t align)
{
  size_t n = strlen(s) + 1, padded = (n + align - 1) / align * align;
  put(w, s, n);
  for (; n < padded; n++)
    g_byte_array_append(w->b, (const guint8 *)"", 1);
}

static void begin(writer *w, uint32_t type, uint16_t misc)
{
  w->rec = w->b->len;
  struct perf_event_header h = {type, misc, 0};
  put(w, &h, sizeof h);
}

/* The sample_id_all trailer (TID, TIME, CPU), then the record's size. */
static void end(writer *w, int32_t pid, int32_t tid, bool trailer)
{
  if (trailer) {
    put32(w, (uint32_t)pid);
    put32(w, (uint32_t)tid);
    put64(w, w->time);
    put32(w, 0);
    put32(w, 0);
  }
  uint16_t size = (uint16_t)(w->b->len - w->rec);
  g_assert_cmpuint(size % 8, ==, 0);
  memcpy(w->b->data + w->rec + 6, &size, 2);
  w->time += 1000;
}

static void mmap2(writer *w, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, uint32_t prot,
                  const char *file, const uint8_t *build_id)
{
  begin(w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | (build_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
  put32(w, (uint32_t)pid);
  put32(w, (uint32_t)pid);
  put64(w, start);
  put64(w, len);
  put64(w, pgoff);
  uint8_t u[24] = {0};
  if (build_id) {
    u[0] = 20;
    memcpy(u + 4, build_id, 20);
  }
  put(w, u, sizeof u);
  put32(w, prot);
  put32(w, MAP_PRIVATE);
  put_padded(w, file, 8);
  end(w, pid, pid, true);
}

/* The executable map of this process holding FN, as the kernel would have reported it. */
static void mmap2_of(writer *w, int32_t pid, uintptr_t fn, const uint8_t *build_id, symtest_map *m)
{
  g_assert_true(symtest_map_of(fn, m));
  mmap2(w, pid, m->start, m->end - m->start, m->pgoff, PROT_READ | PROT_EXEC, m->path, build_id);
}

/* perf's kernel map: pid -1, named after its relocation reference, whose address is PGOFF */
static void kernel_mmap(writer *w, uint64_t ref_addr)
{
  begin(w, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
  put32(w, UINT32_MAX);
  put32(w, 0);
  put64(w, 0xffffffff81000000);
  put64(w, 0x1000000);
  put64(w, ref_addr);
  put_padded(w, "[kernel.kallsyms]_text", 8);
  end(w, -1, 0, true);
}

static void fork_rec(writer *w, uint32_t type, int32_t pid, int32_t ppid, int32_t tid, int32_t ptid)
{
  begin(w, type, 0);
  put32(w, (uint32_t)pid);
  put32(w, (uint32_t)ppid);
  put32(w, (uint32_t)tid);
  put32(w, (uint32_t)ptid);
  put64(w, w->time);
  end(w, pid, tid, true);
}

static void comm(writer *w, int32_t pid, const char *name, bool exec)
{
  begin(w, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
  put32(w, (uint32_t)pid);
  put32(w, (uint32_t)pid);
  put_padded(w, name, 8);
  end(w, pid, pid, true);
}

static void ksymbol(writer *w, uint64_t addr, uint32_t len, bool unregister, const char *name)
{
  begin(w, PERF_RECORD_KSYMBOL, PERF_RECORD_MISC_KERNEL);
  put64(w, addr);
  put32(w, len);
  uint16_t type = PERF_RECORD_KSYMBOL_TYPE_BPF, flags = unregister ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0;
  put(w, &type, 2);
  put(w, &flags, 2);
  put_padded(w, name, 8);
  end(w, -1, -1, true);
}

static void sample(writer *w, int32_t pid, int32_t tid, uint16_t cpumode, const uint64_t *chain,
                   unsigned n)
{
  begin(w, PERF_RECORD_SAMPLE, cpumode);
  uint64_t ip = 0;
  for (unsigned i = 0; i < n && !ip; i++)
    if (chain[i] < (uint64_t)PERF_CONTEXT_MAX)
      ip = chain[i];
  put64(w, ip);
  put32(w, (uint32_t)pid);
  put32(w, (uint32_t)tid);
  put64(w, w->time);
  put32(w, 0);
  put32(w, 0);
  put64(w, 1);
  put64(w, n);
  put(w, chain, n * 8);
  end(w, pid, tid, false);
}

static void perf_string(GByteArray *b, const char *s)
{
  writer w = {b, 0, 0};
  size_t n = strlen(s) + 1;
  put32(&w, (uint32_t)((n + 63) / 64 * 64));
  put_padded(&w, s, 64);
}

/* HEADER_BUILD_ID feature: one build_id_event per file. */
static void build_id_feature(GByteArray *b, int32_t pid, const uint8_t id[20], const char *file)
{
  writer w = {b, 0, 0};
  begin(&w, 0, PERF_RECORD_MISC_USER | (1 << 15) /* PERF_RECORD_MISC_BUILD_ID_SIZE */);
  put32(&w, (uint32_t)pid);
  uint8_t u[24] = {0};
  memcpy(u, id, 20);
  u[20] = 20;
  put(&w, u, sizeof u);
  put_padded(&w, file, 64);
  uint16_t size = (uint16_t)(w.b->len - w.rec);
  memcpy(w.b->data + w.rec + 6, &size, 2);
}

/* header, one attr with its id, the data, the feature sections (ascending feature numbers). */
static GByteArray *perf_file(GByteArray *data, GByteArray **features, const unsigned *feat_ids,
                             unsigned n_features)
{
  GByteArray *f = g_byte_array_new();
  writer w = {f, 0, 0};
  const uint64_t header_size = 104, attr_size = 128 + 16;
  const uint64_t ids_off = header_size, attrs_off = ids_off + 8, data_off = attrs_off + attr_size;
  put64(&w, 0x32454c4946524550ull); /* PERFILE2 */
  put64(&w, header_size);
  put64(&w, attr_size);
  put64(&w, attrs_off);
  put64(&w, attr_size);
  put64(&w, data_off);
  put64(&w, data->len);
  put64(&w, 0);
  put64(&w, 0);
  uint64_t bitmap[4] = {0};
  for (unsigned i = 0; i < n_features; i++)
    bitmap[feat_ids[i] / 64] |= UINT64_C(1) << (feat_ids[i] % 64);
  put(&w, bitmap, sizeof bitmap);
  g_assert_cmpuint(f->len, ==, header_size);
  put64(&w, 42); /* the attr's one id */
  uint8_t attr_bytes[128] = {0};
  struct perf_event_attr attr = {0};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.size = 128;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = 1;
  attr.sample_type = SAMPLE_TYPE;
  attr.sample_id_all = 1;
  attr.mmap = attr.mmap2 = attr.comm = attr.comm_exec = attr.task = attr.ksymbol = 1;
  memcpy(attr_bytes, &attr, MIN(sizeof attr, sizeof attr_bytes));
  put(&w, attr_bytes, sizeof attr_bytes);
  put64(&w, ids_off);
  put64(&w, 8);
  g_assert_cmpuint(f->len, ==, data_off);
  g_byte_array_append(f, data->data, data->len);
  uint64_t payload = f->len + 16ull * n_features;
  for (unsigned i = 0; i < n_features; i++) {
    put64(&w, payload);
    put64(&w, features[i]->len);
    payload += features[i]->len;
  }
  for (unsigned i = 0; i < n_features; i++)
    g_byte_array_append(f, features[i]->data, features[i]->len);
  return f;
}

/* ---- the test ---------------------------------------------------------------------------- */
int rsp_test_target_alpha(int x);
__attribute__((noinline)) int rsp_test_target_alpha(int x) { return x * 3 + 1; }

typedef struct expect {
  uint64_t addr;
  const char *sym; /* NULL: unresolved */
  uint64_t offset;
  const char *dso; /* NULL: no map; "*" ends with the test's name; else equal or a suffix */
  bool kernel;
} expect;

static void check_frames(const rsp_frame *f, unsigned n, const expect *e, unsigned ne)
{
  g_assert_cmpuint(n, ==, ne);
  for (unsigned i = 0; i < n; i++) {
    g_test_message("frame %u: %#" G_GINT64_MODIFIER "x %s+%#" G_GINT64_MODIFIER "x (%s)", i,
                   f[i].addr, f[i].sym ? f[i].sym : "?", f[i].sym_offset, f[i].dso ? f[i].dso : "-");
    g_assert_cmphex(f[i].addr, ==, e[i].addr);
    g_assert_cmpint(f[i].kernel, ==, e[i].kernel);
    g_assert_cmpstr(f[i].sym, ==, e[i].sym);
    if (e[i].sym)
      g_assert_cmphex(f[i].sym_offset, ==, e[i].offset);
    if (!e[i].dso)
      g_assert_null(f[i].dso);
    else if (!(f[i].dso && g_str_has_suffix(f[i].dso, e[i].dso)))
      g_error("frame %u: dso %s, expected ...%s", i, f[i].dso ? f[i].dso : "NULL", e[i].dso);
  }
}

static void test_symbolizer(void)
{
  const int32_t P = (int32_t)getpid(); /* so that /tmp/perf-P.map is ours */
  const int32_t C = 0x7ffffff0;        /* a forked child */
  const int32_t T = 0x7ffffff1;        /* a thread of P */
  char *dir = g_dir_make_tmp("rsp-test-symbolizer-XXXXXX", NULL);
  g_assert_nonnull(dir);
  char *data_path = g_build_filename(dir, "perf.data", NULL);
  char *ks_path = g_strconcat(data_path, ".kallsyms.zst", NULL);
  char *map_path = g_strdup_printf("/tmp/perf-%d.map", P);
  if (g_file_test(map_path, G_FILE_TEST_EXISTS)) {
    g_test_skip("a perf map of this pid exists already");
    goto out;
  }

  /* the kallsyms snapshot beside the recording, compressed */
  size_t cap = ZSTD_compressBound(sizeof kallsyms_text);
  void *z = g_malloc(cap);
  size_t zlen = ZSTD_compress(z, cap, kallsyms_text, sizeof kallsyms_text - 1, 3);
  g_assert_true(g_file_set_contents(ks_path, z, (gssize)zlen, NULL));
  g_free(z);
  g_assert_true(g_file_set_contents(map_path, "7f0000000100 80 jitted_fn\n", -1, NULL));

  uintptr_t alpha = (uintptr_t)rsp_test_target_alpha;
  uintptr_t lib_global = (uintptr_t)symtest_lib_global;
  uintptr_t lib_local = (uintptr_t)symtest_lib_local_ptr();
  uint8_t exe_id[20], lib_id[20], wrong_id[20];
  g_assert_cmpuint(symtest_build_id_of(alpha, exe_id), ==, 20);
  g_assert_cmpuint(symtest_build_id_of(lib_global, lib_id), ==, 20);
  memcpy(wrong_id, lib_id, 20);
  wrong_id[19] ^= 0x5a;

  writer w = {g_byte_array_new(), 0, 1000000};
  kernel_mmap(&w, 0xffffffff81000000); /* the snapshot is of this boot */
  symtest_map exe_map, lib_map;
  mmap2_of(&w, P, alpha, exe_id, &exe_map);   /* build id in the record */
  mmap2_of(&w, P, lib_global, NULL, &lib_map); /* build id from the header's feature */
  g_assert_true(lib_local >= lib_map.start && lib_local < lib_map.end);
  mmap2(&w, P, ANON_START, 0x10000, 0, PROT_READ | PROT_EXEC, "//anon", NULL);
  mmap2(&w, P, DATA_START, 0x10000, 0, PROT_READ | PROT_WRITE, "/some/data", NULL); /* not code */
  ksymbol(&w, BPF_ADDR, 0x200, false, "bpf_prog_1234_handler");
  const uint64_t KCTX = (uint64_t)PERF_CONTEXT_KERNEL, UCTX = (uint64_t)PERF_CONTEXT_USER;
  const uint64_t chain1[] = {KCTX, 0xffffffff81000104, 0xffffffffc0001010, BPF_ADDR + 0x10,
                             0xffffffff81000400 /* the last kernel symbol holds its next page */,
                             0xffffffff81002000 /* in the gap */,
                             UCTX, alpha + 2, lib_global + 3, lib_local + 1, ANON_START + 0x110,
                             ANON_START + 0x200, DATA_START + 8, 0x1000};
  sample(&w, P, P, PERF_RECORD_MISC_KERNEL, chain1, G_N_ELEMENTS(chain1));
  fork_rec(&w, PERF_RECORD_FORK, C, P, C, P);
  fork_rec(&w, PERF_RECORD_FORK, P, P, T, P);                       /* a thread: shares */
  mmap2(&w, C, lib_map.start, lib_map.end - lib_map.start, lib_map.pgoff, PROT_READ | PROT_EXEC,
        lib_map.path, wrong_id); /* C maps a different build of the library at the same place */
  const uint64_t chain2[] = {UCTX, alpha + 2, lib_global + 3, lib_local + 1};
  sample(&w, C, C, PERF_RECORD_MISC_USER, chain2, G_N_ELEMENTS(chain2));
  ksymbol(&w, BPF_ADDR, 0x200, true, "bpf_prog_1234_handler");
  const uint64_t chain3[] = {BPF_ADDR + 0x10, 0xffffffff81000200, UCTX, lib_global};
  sample(&w, P, T, PERF_RECORD_MISC_KERNEL, chain3, G_N_ELEMENTS(chain3)); /* no leading marker */
  comm(&w, P, "exec'd", true);
  const uint64_t chain4[] = {UCTX, alpha + 2};
  sample(&w, P, P, PERF_RECORD_MISC_USER, chain4, G_N_ELEMENTS(chain4));
  sample(&w, P, P, PERF_RECORD_MISC_USER, chain4, G_N_ELEMENTS(chain4));
  fork_rec(&w, PERF_RECORD_EXIT, P, P, P, P);
  sample(&w, P, T, PERF_RECORD_MISC_USER, chain4, G_N_ELEMENTS(chain4)); /* a thread outlives it */

  /* features: build ids (the library's, right), hostname and osrelease of this host */
  struct utsname u;
  g_assert_cmpint(uname(&u), ==, 0);
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  GByteArray *feats[3] = {g_byte_array_new(), g_byte_array_new(), g_byte_array_new()};
  const unsigned feat_ids[3] = {RSP_FEAT_BUILD_ID, RSP_FEAT_HOSTNAME, RSP_FEAT_OSRELEASE};
  build_id_feature(feats[0], P, lib_id, lib_map.path);
  perf_string(feats[1], host);
  perf_string(feats[2], u.release);
  GByteArray *file = perf_file(w.b, feats, feat_ids, 3);
  g_assert_true(g_file_set_contents(data_path, (const char *)file->data, file->len, NULL));
  g_byte_array_unref(file);
  g_byte_array_unref(w.b);
  for (unsigned i = 0; i < 3; i++)
    g_byte_array_unref(feats[i]);

  GError *error = NULL;
  rsp_reader *r = rsp_reader_open(data_path, NULL, &error);
  g_assert_no_error(error);
  rsp_symbolizer *s = rsp_symbolizer_new(r, NULL, &error);
  g_assert_no_error(error);
  g_assert_cmpstr(rsp_symbolizer_stats_get(s)->kallsyms_source, ==, ks_path);

  const char *exe = "/test-symbolizer", *lib = "/librsp-symtest.so", *kern = "[kernel.kallsyms]";
  char *perf_map_dso = g_strdup_printf("/tmp/perf-%d.map", P);
  const expect e1[] = {
    {0xffffffff81000104, "k_one", 4, kern, true},
    {0xffffffffc0001010, "mod_fn", 0x10, "[mymod]", true},
    {BPF_ADDR + 0x10, "bpf_prog_1234_handler", 0x10, "[bpf]", true},
    {0xffffffff81000400, "_etext", 0x100, kern, true},
    {0xffffffff81002000, NULL, 0, kern, true},
    {alpha + 2, "rsp_test_target_alpha", 2, exe, false},
    {lib_global + 3, "symtest_lib_global", 3, lib, false},
    {lib_local + 1, "symtest_lib_local", 1, lib, false},
    {ANON_START + 0x110, "jitted_fn", 0x10, perf_map_dso, false},
    {ANON_START + 0x200, NULL, 0, "//anon", false},
    {DATA_START + 8, NULL, 0, NULL, false},
    {0x1000, NULL, 0, NULL, false},
  };
  const expect e2[] = {
    {alpha + 2, "rsp_test_target_alpha", 2, exe, false}, /* inherited from P */
    {lib_global + 3, NULL, 0, lib, false},                /* another build than the file's */
    {lib_local + 1, NULL, 0, lib, false},
  };
  const expect e3[] = {
    {BPF_ADDR + 0x10, NULL, 0, kern, true}, /* unregistered */
    {0xffffffff81000200, "k_two", 0, kern, true},
    {lib_global, "symtest_lib_global", 0, lib, false}, /* thread T uses P's maps */
  };
  const expect e4[] = {{alpha + 2, "rsp_test_target_alpha", 2, exe, false}};
  const expect *want[] = {e1, e2, e3, e4, e4, e4};
  const unsigned n_want[] = {G_N_ELEMENTS(e1), G_N_ELEMENTS(e2), G_N_ELEMENTS(e3), 1, 1, 1};
  unsigned n_samples = 0;
  rsp_frame frames[32];
  const rsp_event *ev;
  while ((ev = rsp_reader_next(r, &error))) {
    rsp_symbolizer_observe(s, ev);
    if (ev->type != PERF_RECORD_SAMPLE)
      continue;
    g_assert_cmpuint(n_samples, <, G_N_ELEMENTS(want));
    g_test_message("sample %u", n_samples);
    unsigned n = rsp_symbolizer_callchain(s, ev, frames, G_N_ELEMENTS(frames));
    check_frames(frames, n, want[n_samples], n_want[n_samples]);
    /* MAX bounds the frames written */
    g_assert_cmpuint(rsp_symbolizer_callchain(s, ev, frames, 1), ==, 1);
    check_frames(frames, 1, want[n_samples], 1);
    n_samples++;
  }
  g_assert_no_error(error);
  g_assert_cmpuint(n_samples, ==, G_N_ELEMENTS(want));

  /* one address at a time */
  rsp_frame f;
  rsp_symbolizer_resolve(s, P, lib_global + 5, false, &f);
  check_frames(&f, 1, (expect[]){{lib_global + 5, "symtest_lib_global", 5, lib, false}}, 1);
  rsp_symbolizer_resolve(s, 12345678, alpha, false, &f); /* a process we never saw */
  check_frames(&f, 1, (expect[]){{alpha, NULL, 0, NULL, false}}, 1);
  rsp_symbolizer_resolve(s, P, 0xffffffff81000000, true, &f);
  check_frames(&f, 1, (expect[]){{0xffffffff81000000, "_text", 0, kern, true}} /* alias: the last listed */, 1);

  const rsp_symbolizer_stats *st = rsp_symbolizer_stats_get(s);
  g_assert_cmpuint(st->build_id_mismatches, ==, 1); /* one dso, however many frames */
  /* frames: e1 12 (+1 for MAX=1), e2 3+1, e3 3+1, e4 3*(1+1), then 3 single resolutions */
  g_assert_cmpuint(st->kernel_frames, ==, 5 + 1 + 2 + 1 + 1);
  g_assert_cmpuint(st->kernel_resolved, ==, 4 + 1 + 1 + 0 + 1);
  g_assert_cmpuint(st->user_frames, ==, 7 + 3 + 1 + 1 + 6 + 2);
  g_assert_cmpuint(st->user_resolved, ==, 4 + 1 + 1 + 1 + 6 + 1);
  /* every (dso, address) asked of a resolver once: the rest came from the cache */
  g_assert_cmpuint(st->cache_misses, ==, 5 + 3 /* sample 0 */ + 2 /* C's other library build */ +
                                         2 /* kernel answers after the KSYMBOL unregister */ +
                                         1 /* lib_global */ + 1 /* lib_global+5 */ + 1 /* _stext */);
  /* frames outside any ELF file (anon twice, data, unmapped, unknown pid) are not cached */
  g_assert_cmpuint(st->cache_hits + st->cache_misses, ==, st->kernel_frames + st->user_frames - 5);

  /* what became of each file, the worst of its builds */
  g_assert_cmpint(rsp_symbolizer_dso_status(s, lib_map.path), ==, RSP_DSO_BUILD_ID_MISMATCH); /* C's build */
  g_assert_cmpint(rsp_symbolizer_dso_status(s, exe_map.path), ==, RSP_DSO_SYMBOLS);
  g_assert_cmpint(rsp_symbolizer_dso_status(s, "//anon"), ==, RSP_DSO_NOT_READ);
  g_assert_cmpint(rsp_symbolizer_dso_status(s, "/some/data"), ==, RSP_DSO_NOT_READ);
  /* P maps a file that is not there and a stripped one; an address of each looked up */
  const char *gone = "/nonexistent/rsp-test/librsp-gone.so";
  const char *const files[2] = {gone, STRIPPED_LIB};
  for (unsigned i = 0; i < 2; i++) {
    rsp_event mm = {.type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER, .pid = P, .tid = P};
    mm.u.mmap.pid = mm.u.mmap.tid = P;
    mm.u.mmap.start = 0x7e0000000000 + 0x100000 * (uint64_t)i;
    mm.u.mmap.len = 0x4000;
    mm.u.mmap.prot = PROT_READ | PROT_EXEC;
    mm.u.mmap.flags = MAP_PRIVATE;
    mm.u.mmap.filename = files[i];
    g_assert_cmpint(rsp_symbolizer_dso_status(s, files[i]), ==, RSP_DSO_NOT_READ);
    rsp_symbolizer_observe(s, &mm);
    rsp_symbolizer_resolve(s, P, mm.u.mmap.start + 0x1010, false, &f);
    g_assert_cmpstr(f.dso, ==, files[i]);
  }
  /* aliases at one address, one a C++ name: perf's choice by the demangled names (symtest-lib.c) */
  rsp_symbolizer_resolve(s, P, (uintptr_t)twin_c + 1, false, &f);
  check_frames(&f, 1, (expect[]){{(uintptr_t)twin_c + 1, "symtest::twin", 1, lib, false}}, 1);
  g_assert_cmpint(rsp_symbolizer_dso_status(s, gone), ==, RSP_DSO_MISSING);
  g_assert_cmpint(rsp_symbolizer_dso_status(s, STRIPPED_LIB), ==, RSP_DSO_STRIPPED);
  rsp_symbolizer_free(s);
  rsp_reader_close(r);
  g_free(perf_map_dso);

out:
  remove(map_path);
  remove(ks_path);
  remove(data_path);
  rmdir(dir);
  g_free(map_path);
  g_free(ks_path);
  g_free(data_path);
  g_free(dir);
}

/* A kallsyms snapshot whose _text is not where the recording's kernel map says: from another
 * boot (KASLR). Better no kernel symbols than wrong ones. */
static void test_other_boot(void)
{
  char *dir = g_dir_make_tmp("rsp-test-symbolizer-XXXXXX", NULL);
  char *data_path = g_build_filename(dir, "perf.data", NULL);
  char *ks_path = g_strconcat(data_path, ".kallsyms", NULL);
  g_assert_true(g_file_set_contents(ks_path, kallsyms_text, sizeof kallsyms_text - 1, NULL));
  writer w = {g_byte_array_new(), 0, 1000000};
  const uint64_t chain[] = {(uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000104};
  sample(&w, 1, 1, PERF_RECORD_MISC_KERNEL, chain, 2); /* before the map: resolved */
  kernel_mmap(&w, 0xffffffff9a000000);
  sample(&w, 1, 1, PERF_RECORD_MISC_KERNEL, chain, 2);
  GByteArray *file = perf_file(w.b, NULL, NULL, 0);
  g_assert_true(g_file_set_contents(data_path, (const char *)file->data, file->len, NULL));
  g_byte_array_unref(file);
  g_byte_array_unref(w.b);

  GError *error = NULL;
  rsp_reader *r = rsp_reader_open(data_path, NULL, &error);
  g_assert_no_error(error);
  rsp_symbolizer *s = rsp_symbolizer_new(r, NULL, &error);
  g_assert_no_error(error);
  g_assert_cmpstr(rsp_symbolizer_stats_get(s)->kallsyms_source, ==, ks_path);
  const rsp_event *ev;
  rsp_frame f[4];
  unsigned n_samples = 0;
  while ((ev = rsp_reader_next(r, &error))) {
    rsp_symbolizer_observe(s, ev);
    if (ev->type != PERF_RECORD_SAMPLE)
      continue;
    g_assert_cmpuint(rsp_symbolizer_callchain(s, ev, f, 4), ==, 1);
    if (n_samples++ == 0)
      check_frames(f, 1, (expect[]){{0xffffffff81000104, "k_one", 4, "[kernel.kallsyms]", true}}, 1);
    else
      check_frames(f, 1, (expect[]){{0xffffffff81000104, NULL, 0, "[kernel.kallsyms]", true}}, 1);
  }
  g_assert_no_error(error);
  g_assert_cmpuint(n_samples, ==, 2);
  g_assert_true(g_str_has_prefix(rsp_symbolizer_stats_get(s)->kallsyms_source, "none"));
  rsp_symbolizer_free(s);
  rsp_reader_close(r);
  remove(ks_path);
  remove(data_path);
  rmdir(dir);
  g_free(ks_path);
  g_free(data_path);
  g_free(dir);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/symbolizer/perf-data", test_symbolizer);
  g_test_add_func("/symbolizer/kallsyms-other-boot", test_other_boot);
  return g_test_run();
}
