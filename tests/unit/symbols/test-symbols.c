/* Symbolizer pieces against truths the test knows: a kallsyms text written here, a perf map
 * written here, and the test binary's own functions found through /proc/self/maps. */
#include "reader/symbolizer-private.h"

#include <stdio.h>
#include <string.h>

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
  "ffffffffc0000000 t mod_fn\t[virtio_blk]\n"
  "ffffffff80ffff00 T before_text\n";      /* unsorted input */

static void test_kallsyms(void)
{
  GStringChunk *s = g_string_chunk_new(256);
  rsp_kallsyms *k = rsp_kallsyms_parse(kallsyms_text, sizeof kallsyms_text - 1, s);
  g_assert_nonnull(k);
  rsp_sym sym;
  const char *dso;
  g_assert_true(rsp_kallsyms_lookup(k, 0xffffffff81000010, &sym, &dso));
  g_assert_cmpstr(sym.name, ==, "_stext");
  g_assert_cmpstr(dso, ==, "[kernel.kallsyms]");
  g_assert_true(rsp_kallsyms_lookup(k, 0xffffffff81000150, &sym, &dso));
  g_assert_cmpstr(sym.name, ==, "global_fn");
  g_assert_cmpuint(sym.start, ==, 0xffffffff81000100);
  /* some_data is not a function: the address still belongs to global_fn */
  g_assert_true(rsp_kallsyms_lookup(k, 0xffffffff81000210, &sym, &dso));
  g_assert_cmpstr(sym.name, ==, "global_fn");
  g_assert_true(rsp_kallsyms_lookup(k, 0xffffffff81000300, &sym, &dso));
  g_assert_cmpstr(sym.name, ==, "__x64_sys_vfork");
  g_assert_true(rsp_kallsyms_lookup(k, 0xffffffff81000400, &sym, &dso));
  g_assert_cmpstr(sym.name, ==, "strong_local");
  g_assert_true(rsp_kallsyms_lookup(k, 0xffffffffc0000004, &sym, &dso));
  g_assert_cmpstr(sym.name, ==, "mod_fn");
  g_assert_cmpstr(dso, ==, "[virtio_blk]");
  g_assert_true(rsp_kallsyms_lookup(k, 0xffffffff80ffff08, &sym, &dso));
  g_assert_cmpstr(sym.name, ==, "before_text");
  g_assert_false(rsp_kallsyms_lookup(k, 0x1000, &sym, &dso));            /* below everything */
  g_assert_false(rsp_kallsyms_lookup(k, 0xffffffffc8000000, &sym, &dso)); /* far past the end */
  /* a bpf program announced by KSYMBOL, with its end */
  rsp_kallsyms_add(k, 0xffffffffa0000000, 0x100, "bpf_prog_abc");
  g_assert_true(rsp_kallsyms_lookup(k, 0xffffffffa0000010, &sym, &dso));
  g_assert_cmpstr(sym.name, ==, "bpf_prog_abc");
  g_assert_false(rsp_kallsyms_lookup(k, 0xffffffffa0000100, &sym, &dso));
  rsp_kallsyms_free(k);
  g_assert_null(rsp_kallsyms_parse("0000000000000000 T a\n", 21, s));
  g_string_chunk_free(s);
}

static void test_perfmap(void)
{
  char *path = g_strdup_printf("%s/perf-test-%d.map", g_get_tmp_dir(), (int)getpid());
  g_assert_true(g_file_set_contents(path, "7f0000001000 40 jit_one\n7f0000000000 100 LazyCompile:*foo bar.js:1\nbad line\n", -1, NULL));
  GStringChunk *s = g_string_chunk_new(256);
  rsp_perfmap *m = rsp_perfmap_load(path, s);
  g_assert_nonnull(m);
  rsp_sym sym;
  g_assert_true(rsp_perfmap_lookup(m, 0x7f0000000010, &sym));
  g_assert_cmpstr(sym.name, ==, "LazyCompile:*foo bar.js:1");
  g_assert_true(rsp_perfmap_lookup(m, 0x7f000000103f, &sym));
  g_assert_cmpstr(sym.name, ==, "jit_one");
  g_assert_false(rsp_perfmap_lookup(m, 0x7f0000001040, &sym));
  g_assert_false(rsp_perfmap_lookup(m, 0x7f0000000100, &sym));
  rsp_perfmap_free(m);
  g_string_chunk_free(s);
  remove(path);
  g_free(path);
}

/* Non-static and not inlined, so the ELF symbol table has them. */
int rsp_test_target_alpha(int x);
int rsp_test_target_beta(int x);
__attribute__((noinline)) int rsp_test_target_alpha(int x) { return x * 3 + 1; }
__attribute__((noinline)) int rsp_test_target_beta(int x) { return x * 5 + 2; }

/* Finds the map holding ADDR in /proc/self/maps: the file and the file offset of ADDR. */
static char *file_offset_of(uintptr_t addr, uint64_t *offset)
{
  FILE *f = fopen("/proc/self/maps", "r");
  char line[4096];
  char *path = NULL;
  while (f && fgets(line, sizeof line, f)) {
    unsigned long start, end, off;
    char perms[8], file[4000] = "";
    if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %3999s", &start, &end, perms, &off, file) >= 4 &&
        addr >= start && addr < end) {
      *offset = addr - start + off;
      path = g_strdup(file);
      break;
    }
  }
  if (f)
    fclose(f);
  return path;
}

static void test_elf_self(void)
{
  GStringChunk *s = g_string_chunk_new(256);
  int (*fns[])(int) = {rsp_test_target_alpha, rsp_test_target_beta};
  const char *names[] = {"rsp_test_target_alpha", "rsp_test_target_beta"};
  for (unsigned i = 0; i < 2; i++) {
    uint64_t off;
    char *path = file_offset_of((uintptr_t)fns[i] + 2, &off);
    g_assert_nonnull(path);
    rsp_elf *e = rsp_elf_new(path, NULL, 0, s);
    rsp_sym sym;
    g_assert_true(rsp_elf_lookup(e, off, &sym));
    g_assert_cmpstr(sym.name, ==, names[i]);
    g_assert_cmpuint(off - sym.start, ==, 2);
    g_assert_true(rsp_elf_lookup(e, off, &sym)); /* from the cache */
    g_assert_cmpstr(sym.name, ==, names[i]);
    rsp_elf_free(e);
    /* a wrong recorded build id: nothing is resolved from that file */
    uint8_t wrong[20] = {1, 2, 3};
    e = rsp_elf_new(path, wrong, 20, s);
    g_assert_false(rsp_elf_lookup(e, off, &sym));
    g_assert_true(rsp_elf_build_id_mismatch(e));
    rsp_elf_free(e);
    g_free(path);
  }
  g_assert_cmpint(rsp_test_target_alpha(1) + rsp_test_target_beta(1), ==, 11);
  g_string_chunk_free(s);
}

int main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/symbols/kallsyms", test_kallsyms);
  g_test_add_func("/symbols/perfmap", test_perfmap);
  g_test_add_func("/symbols/elf-self", test_elf_self);
  return g_test_run();
}
