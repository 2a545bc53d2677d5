/* Symbolizer pieces against truths the test knows: a kallsyms text written here (plain and
 * zstd-compressed), a perf map written here, and functions of this executable and of a small
 * shared library built beside it, found through their own addresses and /proc/self/maps. */
#include "symbols/symbolizer-private.h"
#include "symtest-lib.h"
#include "symtest-util.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

static const char kallsyms_text[] =
  "0000000000000000 T zeroed_by_kptr_restrict\n"
  "ffffffff81000000 T _stext\n"
  "ffffffff81000100 t local_fn\n"
  "ffffffff81000100 T global_fn\n"         /* alias: the global one names the frame */
  "ffffffff81000200 d some_data\n"         /* data: not a function */
  "ffffffff81000300 T __ia32_sys_vfork\n"
  "ffffffff81000300 T __x64_sys_vfork\n"   /* equal rank: perf names it by the last listed */
  "ffffffff81000400 W weak_fn\n"
  "ffffffff81000400 t strong_local\n"
  "ffffffff81000500 T _etext\n"            /* the kernel's last: ends with the next page */
  "ffffffffc0000000 t mod_fn\t[virtio_blk]\n"
  "ffffffffc0000080 t mod_fn2\t[virtio_blk]\n" /* ends where the next module begins */
  "ffffffffc0001000 t other_fn\t[other]\n" /* the last one: ends with the next page */
  "ffffffff80ffff00 T before_text\n"       /* unsorted input */
  "garbage line\n"
  "ffffffff81000600\n";

static void assert_ksym(rsp_kallsyms *k, uint64_t addr, const char *name, uint64_t start,
                        const char *dso)
{
  rsp_sym sym = {0};
  const char *d = NULL;
  bool found = rsp_kallsyms_lookup(k, addr, &sym, &d);
  if (!name) {
    if (found)
      g_error("%#" G_GINT64_MODIFIER "x: expected nothing, got %s", addr, sym.name);
    return;
  }
  if (!found)
    g_error("%#" G_GINT64_MODIFIER "x: expected %s, got nothing", addr, name);
  g_assert_cmpstr(sym.name, ==, name);
  g_assert_cmphex(sym.start, ==, start);
  g_assert_cmpstr(d, ==, dso);
}

static void check_kallsyms(rsp_kallsyms *k)
{
  const char *kern = "[kernel.kallsyms]";
  g_assert_cmpuint(rsp_kallsyms_count(k), ==, 9); /* 12 functions, three aliases merged */
  assert_ksym(k, 0xffffffff81000000, "_stext", 0xffffffff81000000, kern);
  assert_ksym(k, 0xffffffff810000ff, "_stext", 0xffffffff81000000, kern);
  assert_ksym(k, 0xffffffff81000150, "global_fn", 0xffffffff81000100, kern);
  /* some_data is not a function: the address still belongs to global_fn */
  assert_ksym(k, 0xffffffff81000210, "global_fn", 0xffffffff81000100, kern);
  assert_ksym(k, 0xffffffff81000300, "__x64_sys_vfork", 0xffffffff81000300, kern);
  assert_ksym(k, 0xffffffff81000400, "strong_local", 0xffffffff81000400, kern);
  assert_ksym(k, 0xffffffff81001fff, "_etext", 0xffffffff81000500, kern);
  assert_ksym(k, 0xffffffff81002000, NULL, 0, NULL); /* the gap before the modules */
  assert_ksym(k, 0xffffffffbfffffff, NULL, 0, NULL);
  assert_ksym(k, 0xffffffffc0000004, "mod_fn", 0xffffffffc0000000, "[virtio_blk]");
  assert_ksym(k, 0xffffffffc0000fff, "mod_fn2", 0xffffffffc0000080, "[virtio_blk]");
  assert_ksym(k, 0xffffffffc0001000, "other_fn", 0xffffffffc0001000, "[other]");
  assert_ksym(k, 0xffffffffc0001fff, "other_fn", 0xffffffffc0001000, "[other]");
  assert_ksym(k, 0xffffffffc0002000, NULL, 0, NULL); /* past the last symbol */
  assert_ksym(k, 0xffffffff80ffff08, "before_text", 0xffffffff80ffff00, kern);
  assert_ksym(k, 0x1000, NULL, 0, NULL); /* below everything (and zero addresses skipped) */
  assert_ksym(k, 0, NULL, 0, NULL);
}

static void test_kallsyms(void)
{
  GStringChunk *s = g_string_chunk_new(256);
  rsp_kallsyms *k = rsp_kallsyms_parse(kallsyms_text, sizeof kallsyms_text - 1, s);
  g_assert_nonnull(k);
  check_kallsyms(k);

  /* a bpf program announced by KSYMBOL, with its end */
  rsp_kallsyms_add(k, 0xffffffffc0004000, 0x100, "bpf_prog_abc", "[bpf]");
  assert_ksym(k, 0xffffffffc0004010, "bpf_prog_abc", 0xffffffffc0004000, "[bpf]");
  assert_ksym(k, 0xffffffffc00040ff, "bpf_prog_abc", 0xffffffffc0004000, "[bpf]");
  assert_ksym(k, 0xffffffffc0004100, NULL, 0, NULL);
  /* one inside the snapshot's text hides what it overlaps, and only that */
  rsp_kallsyms_add(k, 0xffffffff81000180, 0x10, "trampoline", "[kernel.kallsyms]");
  assert_ksym(k, 0xffffffff81000188, "trampoline", 0xffffffff81000180, "[kernel.kallsyms]");
  assert_ksym(k, 0xffffffff81000190, "global_fn", 0xffffffff81000100, "[kernel.kallsyms]");
  assert_ksym(k, 0xffffffff8100017f, "global_fn", 0xffffffff81000100, "[kernel.kallsyms]");
  g_assert_cmpuint(rsp_kallsyms_count(k), ==, 11);
  /* unregistered: gone */
  rsp_kallsyms_remove(k, 0xffffffff81000180);
  rsp_kallsyms_remove(k, 0xffffffff81000000); /* not a KSYMBOL one: nothing happens */
  assert_ksym(k, 0xffffffff81000188, "global_fn", 0xffffffff81000100, "[kernel.kallsyms]");
  assert_ksym(k, 0xffffffff81000000, "_stext", 0xffffffff81000000, "[kernel.kallsyms]");
  rsp_kallsyms_remove(k, 0xffffffffc0004000);
  assert_ksym(k, 0xffffffffc0004010, NULL, 0, NULL);
  g_assert_cmpuint(rsp_kallsyms_count(k), ==, 9);
  rsp_kallsyms_free(k);

  /* an empty table takes KSYMBOL symbols */
  k = rsp_kallsyms_new(s);
  assert_ksym(k, 0xffffffffc0004010, NULL, 0, NULL);
  rsp_kallsyms_add(k, 0xffffffffc0004000, 0x100, "bpf_prog_abc", "[bpf]");
  assert_ksym(k, 0xffffffffc0004010, "bpf_prog_abc", 0xffffffffc0004000, "[bpf]");
  rsp_kallsyms_free(k);

  /* nothing usable: kptr_restrict zeroed every address, or no text at all */
  g_assert_null(rsp_kallsyms_parse("0000000000000000 T a\n0000000000000000 t b\n", 42, s));
  g_assert_null(rsp_kallsyms_parse("", 0, s));
  g_assert_null(rsp_kallsyms_parse("ffffffff81000000 D data_only\n", 29, s));
  g_string_chunk_free(s);
}

static char *write_temp(const char *name, const void *data, size_t len)
{
  char *path = g_strdup_printf("%s/rsp-test-symbols-%d-%s", g_get_tmp_dir(), (int)getpid(), name);
  g_assert_true(g_file_set_contents(path, data, (gssize)len, NULL));
  return path;
}

static void test_kallsyms_files(void)
{
  GStringChunk *s = g_string_chunk_new(256);
  GError *error = NULL;
  /* plain */
  char *plain = write_temp("kallsyms", kallsyms_text, sizeof kallsyms_text - 1);
  rsp_kallsyms *k = rsp_kallsyms_load(plain, s, &error);
  g_assert_no_error(error);
  check_kallsyms(k);
  rsp_kallsyms_free(k);
  /* zstd, recognized by its magic whatever the name */
  size_t cap = ZSTD_compressBound(sizeof kallsyms_text);
  void *z = g_malloc(cap);
  size_t zlen = ZSTD_compress(z, cap, kallsyms_text, sizeof kallsyms_text - 1, 3);
  g_assert_false(ZSTD_isError(zlen));
  char *zpath = write_temp("kallsyms.zst", z, zlen);
  k = rsp_kallsyms_load(zpath, s, &error);
  g_assert_no_error(error);
  check_kallsyms(k);
  rsp_kallsyms_free(k);
  /* a truncated zstd stream is an error, not a shorter table */
  char *tpath = write_temp("kallsyms-truncated.zst", z, zlen - 4);
  g_assert_null(rsp_kallsyms_load(tpath, s, &error));
  g_assert_error(error, RSP_READER_ERROR, RSP_READER_ERROR_FORMAT);
  g_assert_nonnull(strstr(error->message, "zstd"));
  g_clear_error(&error);
  /* zeroed addresses: an error that says why */
  char *zero = write_temp("kallsyms-zero", "0000000000000000 T a\n", 21);
  g_assert_null(rsp_kallsyms_load(zero, s, &error));
  g_assert_error(error, RSP_READER_ERROR, RSP_READER_ERROR_FORMAT);
  g_clear_error(&error);
  g_assert_null(rsp_kallsyms_load("/nonexistent/kallsyms", s, &error));
  g_assert_nonnull(error);
  g_clear_error(&error);
  for (char **p = (char *[]){plain, zpath, tpath, zero, NULL}; *p; p++) {
    remove(*p);
    g_free(*p);
  }
  g_free(z);
  g_string_chunk_free(s);
}

/* Names of every length up to 40, ended by a newline, a tab and a module, a space and more, or the text's end
 * (the name is read eight bytes a step while they lie in the line); and a compressed file in two frames, or
 * with no size in its frame header, read the streaming way. */
static void test_kallsyms_names(void)
{
  GStringChunk *s = g_string_chunk_new(256);
  GString *text = g_string_new(NULL);
  const char *ends[] = {"\n", "\t[mod_a]\n", " trailing words\n", "\t[mod_b] x\n"};
  unsigned n = 0;
  for (unsigned len = 1; len <= 40; len++)
    for (unsigned e = 0; e < G_N_ELEMENTS(ends); e++, n++) {
      g_string_append_printf(text, "%016" G_GINT64_MODIFIER "x t ", (guint64)(0xffffffff81000000ull + 0x100 * n));
      for (unsigned i = 0; i < len; i++)
        g_string_append_c(text, (char)('a' + (i + n) % 26));
      g_string_append(text, ends[e]);
    }
  g_string_append(text, "ffffffff8200ff00 T name_at_the_very_end_of_the_text"); /* no newline */
  for (int pass = 0; pass < 3; pass++) {
    rsp_kallsyms *k = NULL;
    char *path = NULL;
    GError *error = NULL;
    if (pass == 0) {
      k = rsp_kallsyms_parse(text->str, text->len, s);
    } else {
      /* pass 1: two frames (the first's size is not the whole); pass 2: one frame that does not say its size */
      size_t cap = ZSTD_compressBound(text->len) + 64;
      uint8_t *z = g_malloc(cap);
      size_t zlen;
      if (pass == 1) {
        size_t half = text->len / 2;
        size_t a = ZSTD_compress(z, cap, text->str, half, 3);
        g_assert_false(ZSTD_isError(a));
        size_t b = ZSTD_compress(z + a, cap - a, text->str + half, text->len - half, 3);
        g_assert_false(ZSTD_isError(b));
        zlen = a + b;
      } else {
        ZSTD_CCtx *c = ZSTD_createCCtx();
        g_assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0)));
        ZSTD_outBuffer out = {z, cap, 0};
        ZSTD_inBuffer in = {text->str, text->len, 0};
        g_assert_cmpuint(ZSTD_compressStream2(c, &out, &in, ZSTD_e_end), ==, 0);
        ZSTD_freeCCtx(c);
        zlen = out.pos;
        g_assert_true(ZSTD_getFrameContentSize(z, zlen) == ZSTD_CONTENTSIZE_UNKNOWN);
      }
      path = write_temp(pass == 1 ? "kallsyms-frames.zst" : "kallsyms-nosize.zst", z, zlen);
      g_free(z);
      k = rsp_kallsyms_load(path, s, &error);
      g_assert_no_error(error);
    }
    g_assert_nonnull(k);
    g_assert_cmpuint(rsp_kallsyms_count(k), ==, n + 1);
    n = 0;
    for (unsigned len = 1; len <= 40; len++)
      for (unsigned e = 0; e < G_N_ELEMENTS(ends); e++, n++) {
        char name[41];
        for (unsigned i = 0; i < len; i++)
          name[i] = (char)('a' + (i + n) % 26);
        name[len] = 0;
        const char *dso = e == 1 ? "[mod_a]" : e == 3 ? "[mod_b]" : "[kernel.kallsyms]";
        uint64_t at = 0xffffffff81000000ull + 0x100 * n;
        assert_ksym(k, at + 0x10, name, at, dso);
      }
    assert_ksym(k, 0xffffffff8200ff10, "name_at_the_very_end_of_the_text", 0xffffffff8200ff00, "[kernel.kallsyms]");
    rsp_kallsyms_free(k);
    if (path) {
      remove(path);
      g_free(path);
    }
  }
  g_string_free(text, TRUE);
  g_string_chunk_free(s);
}

static void test_perfmap(void)
{
  static const char text[] = "7f0000001000 40 jit_one\n"
                             "7f0000000000 100 LazyCompile:*foo bar.js:1\n"
                             "bad line\n"
                             "7f0000002000 zz not_hex_size\n"
                             "7f0000003000 10 \n"
                             "7f0000005000 10 recompiled_old\n"
                             "7f0000005000 10 recompiled_new\n"
                             "7f0000004000 8 last_without_newline";
  char *path = write_temp("perf.map", text, sizeof text - 1);
  GStringChunk *s = g_string_chunk_new(256);
  rsp_perfmap *m = rsp_perfmap_load(path, s);
  g_assert_nonnull(m);
  rsp_sym sym;
  g_assert_true(rsp_perfmap_lookup(m, 0x7f0000000010, &sym));
  g_assert_cmpstr(sym.name, ==, "LazyCompile:*foo bar.js:1"); /* names may hold spaces */
  g_assert_cmphex(sym.start, ==, 0x7f0000000000);
  g_assert_true(rsp_perfmap_lookup(m, 0x7f000000103f, &sym));
  g_assert_cmpstr(sym.name, ==, "jit_one");
  g_assert_cmphex(sym.start, ==, 0x7f0000001000);
  g_assert_false(rsp_perfmap_lookup(m, 0x7f0000001040, &sym)); /* past its size */
  g_assert_false(rsp_perfmap_lookup(m, 0x7f0000000100, &sym));
  g_assert_false(rsp_perfmap_lookup(m, 0x7effffffffff, &sym));
  g_assert_false(rsp_perfmap_lookup(m, 0x7f0000002000, &sym)); /* malformed lines skipped */
  g_assert_false(rsp_perfmap_lookup(m, 0x7f0000003000, &sym));
  g_assert_true(rsp_perfmap_lookup(m, 0x7f0000004007, &sym));
  g_assert_cmpstr(sym.name, ==, "last_without_newline");
  g_assert_true(rsp_perfmap_lookup(m, 0x7f0000005004, &sym)); /* the later entry wins */
  g_assert_cmpstr(sym.name, ==, "recompiled_new");
  rsp_perfmap_free(m);
  g_assert_null(rsp_perfmap_load("/nonexistent/perf-1.map", s));
  g_string_chunk_free(s);
  remove(path);
  g_free(path);
}

/* Non-static and not inlined, so the ELF symbol table has them. */
int rsp_test_target_alpha(int x);
int rsp_test_target_beta(int x);
__attribute__((noinline)) int rsp_test_target_alpha(int x) { return x * 3 + 1; }
__attribute__((noinline)) int rsp_test_target_beta(int x) { return x * 5 + 2; }

/* FN's file and file offset from /proc/self/maps; resolves FN + DELTA and checks the name. */
static void check_elf(uintptr_t fn, unsigned delta, const char *name, const char *path_suffix)
{
  symtest_map map;
  g_assert_true(symtest_map_of(fn + delta, &map));
  g_assert_true(g_str_has_suffix(map.path, path_suffix));
  uint64_t off = fn + delta - map.start + map.pgoff;
  rsp_elf_shared shared = { .strings = g_string_chunk_new(256) }, *s = &shared;
  rsp_sym sym;

  rsp_elf *e = rsp_elf_new(map.path, NULL, 0, s);
  g_assert_true(rsp_elf_lookup(e, off, &sym));
  g_assert_cmpstr(sym.name, ==, name);
  g_assert_cmpuint(off - sym.start, ==, delta);
  g_assert_false(rsp_elf_build_id_mismatch(e));
  g_assert_false(rsp_elf_lookup(e, UINT64_C(1) << 40, &sym)); /* in no PT_LOAD */
  rsp_elf_free(e);

  /* the right build id, read from the object's note in memory */
  uint8_t id[20];
  unsigned n = symtest_build_id_of(fn, id);
  g_assert_cmpuint(n, ==, 20);
  e = rsp_elf_new(map.path, id, (uint8_t)n, s);
  g_assert_true(rsp_elf_lookup(e, off, &sym));
  g_assert_cmpstr(sym.name, ==, name);
  g_assert_false(rsp_elf_build_id_mismatch(e));
  rsp_elf_free(e);

  /* a wrong recorded build id: nothing is resolved from that file */
  id[0] ^= 0xff;
  e = rsp_elf_new(map.path, id, (uint8_t)n, s);
  g_assert_false(rsp_elf_lookup(e, off, &sym));
  g_assert_true(rsp_elf_build_id_mismatch(e));
  rsp_elf_free(e);
  g_string_chunk_free(shared.strings);
}

typedef struct ahead_job {
  rsp_elf *elfs[3];
} ahead_job;

static gpointer open_ahead_main(gpointer data)
{
  ahead_job *j = data;
  for (int i = 0; i < 3; i++)
    rsp_elf_open_ahead(j->elfs[i], true);
  return NULL;
}

/* Files opened ahead on another thread, while lookups run on this one: the same answers as opened by the lookups;
 * a file opened ahead counts (its status, a build-id mismatch) only once a lookup asked for it. */
static void test_elf_open_ahead(void)
{
  uintptr_t fn = (uintptr_t)rsp_test_target_beta;
  symtest_map map;
  g_assert_true(symtest_map_of(fn + 3, &map));
  uint64_t off = fn + 3 - map.start + map.pgoff;
  uint8_t id[20], wrong[20];
  g_assert_cmpuint(symtest_build_id_of(fn, id), ==, 20);
  memcpy(wrong, id, 20);
  wrong[0] ^= 0xff;
  for (int round = 0; round < 20; round++) {
    rsp_elf_shared shared = { .strings = g_string_chunk_new(256), .threaded = true };
    pthread_mutex_init(&shared.lock, NULL);
    pthread_cond_init(&shared.opened, NULL);
    ahead_job j = { { rsp_elf_new(map.path, id, 20, &shared), rsp_elf_new(map.path, wrong, 20, &shared),
                      rsp_elf_new("/nonexistent/libgone.so", NULL, 0, &shared) } };
    GThread *t = g_thread_new("open-ahead", open_ahead_main, &j);
    rsp_sym sym;
    if (round % 2) { /* the lookups first, or the opening ahead first */
      g_thread_join(t);
      t = NULL;
      g_assert_cmpint(rsp_elf_status(j.elfs[1]), ==, RSP_DSO_NOT_READ);
      g_assert_false(rsp_elf_build_id_mismatch(j.elfs[1]));
      g_assert_cmpint(rsp_elf_status(j.elfs[2]), ==, RSP_DSO_NOT_READ);
    }
    g_assert_true(rsp_elf_lookup(j.elfs[0], off, &sym));
    g_assert_cmpstr(sym.name, ==, "rsp_test_target_beta");
    g_assert_cmpuint(off - sym.start, ==, 3);
    g_assert_false(rsp_elf_lookup(j.elfs[1], off, &sym));
    g_assert_true(rsp_elf_build_id_mismatch(j.elfs[1]));
    g_assert_cmpint(rsp_elf_status(j.elfs[1]), ==, RSP_DSO_BUILD_ID_MISMATCH);
    g_assert_false(rsp_elf_lookup(j.elfs[2], 0x1000, &sym));
    g_assert_cmpint(rsp_elf_status(j.elfs[2]), ==, RSP_DSO_MISSING);
    if (t)
      g_thread_join(t);
    for (int i = 0; i < 3; i++)
      rsp_elf_free(j.elfs[i]);
    pthread_mutex_destroy(&shared.lock);
    pthread_cond_destroy(&shared.opened);
    g_string_chunk_free(shared.strings);
  }
}

void _fini(void); /* crti's, zero-sized, the last function of the executable */

static void test_elf_executable(void)
{
  check_elf((uintptr_t)rsp_test_target_alpha, 2, "rsp_test_target_alpha", "/test-symbols");
  check_elf((uintptr_t)rsp_test_target_beta, 0, "rsp_test_target_beta", "/test-symbols");
  check_elf((uintptr_t)rsp_test_target_beta, 3, "rsp_test_target_beta", "/test-symbols");
  /* a zero-sized last symbol holds the rest of its page, as perf has it (a noreturn call at the
   * end of .text returns to _fini's first byte) */
  check_elf((uintptr_t)_fini, 0, "_fini", "/test-symbols");
  check_elf((uintptr_t)_fini, 4, "_fini", "/test-symbols");
  g_assert_cmpint(rsp_test_target_alpha(1) + rsp_test_target_beta(1), ==, 11);
}

static void test_elf_library(void)
{
  const char *lib = "/librsp-symtest.so";
  check_elf((uintptr_t)symtest_lib_global, 1, "symtest_lib_global", lib);
  check_elf((uintptr_t)symtest_lib_local_ptr(), 4, "symtest_lib_local", lib); /* .symtab only */
  check_elf((uintptr_t)symtest_lib_local_ptr, 0, "symtest_lib_local_ptr", lib);
  g_assert_cmpint(symtest_lib_global(1), ==, 24);
}

static void test_elf_missing(void)
{
  rsp_elf_shared shared = { .strings = g_string_chunk_new(256) }, *s = &shared;
  rsp_sym sym;
  rsp_elf *e = rsp_elf_new("/nonexistent/libgone.so", NULL, 0, s);
  g_assert_false(rsp_elf_lookup(e, 0x1000, &sym));
  g_assert_false(rsp_elf_build_id_mismatch(e));
  rsp_elf_free(e);
  /* not an ELF file at all */
  char *path = write_temp("not-elf", "hello", 5);
  e = rsp_elf_new(path, NULL, 0, s);
  g_assert_false(rsp_elf_lookup(e, 0, &sym));
  rsp_elf_free(e);
  remove(path);
  g_free(path);
  g_string_chunk_free(shared.strings);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/symbols/kallsyms", test_kallsyms);
  g_test_add_func("/symbols/kallsyms-files", test_kallsyms_files);
  g_test_add_func("/symbols/kallsyms-names", test_kallsyms_names);
  g_test_add_func("/symbols/perfmap", test_perfmap);
  g_test_add_func("/symbols/elf-executable", test_elf_executable);
  g_test_add_func("/symbols/elf-library", test_elf_library);
  g_test_add_func("/symbols/elf-missing", test_elf_missing);
  g_test_add_func("/symbols/elf-open-ahead", test_elf_open_ahead);
  return g_test_run();
}
