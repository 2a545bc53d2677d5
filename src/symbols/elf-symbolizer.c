/* User-space symbols of one ELF file through libdwfl: .symtab, else .dynsym, else the
 * MiniDebugInfo in .gnu_debugdata, and separate debuginfo found by build id or debuglink. The file
 * is opened on first use and checked against the build id perf recorded. Its functions are copied
 * once into a flat sorted array (perf's choice among aliases, C++ names demangled, NAME@plt for
 * PLT entries); a lookup is a walk of the PT_LOAD headers and a bisection, without allocation. A name is
 * demangled and interned when a lookup first returns its symbol (or better() compares it with an alias): doing it
 * for every symbol of every file at load, for the few ever looked up, made open_elf 715 M instructions on deep3m
 * (234 M so). */
#include "symbols/symbolizer-private.h"
#include "reader/natural-merge-sort.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { ELF_NOT_OPENED, ELF_OPENING, ELF_OPENED }; /* rsp_elf.state */

struct rsp_elf {
  char *path;
  uint8_t expected[20];
  uint8_t expected_size;
  int state;            /* ELF_*, atomic: the fields below are the opener's until it is ELF_OPENED */
  bool used;            /* a lookup asked for it (the lookups' thread's own) */
  bool tried, usable, mismatch;
  bool missing;         /* not readable where looked for */
  bool full_symtab;     /* a .symtab in the file, or separate debug info found */
  bool no_dwarf;        /* no debug info: no inlined frames to look for */
  Dwfl *dwfl;
  Dwfl_Module *mod;
  GElf_Addr bias;
  GArray *loads;        /* load_seg: the PT_LOAD headers */
  GArray *syms;         /* esym sorted by start: functions of the best symbol table found */
  rsp_elf_shared *shared;
  rsp_dwarf_inlines *inlines; /* per compile unit, made on the first lookup of inlined frames */
};

typedef struct load_seg {
  uint64_t offset, filesz, vaddr;
} load_seg;

typedef struct esym {
  uint64_t start, end;
  const char *name; /* interned, the final name; or, not FINAL yet, the symbol table's own string */
  uint8_t binding;
  bool final;
} esym;

static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = rsp_debug_cache_find_debuginfo,
  .section_address = dwfl_offline_section_address,
  .debuginfo_path = &debuginfo_path,
};

rsp_elf *rsp_elf_new(const char *path, const uint8_t *expected_build_id, uint8_t build_id_size,
                     rsp_elf_shared *shared)
{
  rsp_elf *e = g_new0(rsp_elf, 1);
  e->path = g_strdup(path);
  if (expected_build_id && build_id_size) {
    e->expected_size = MIN(build_id_size, 20);
    memcpy(e->expected, expected_build_id, e->expected_size);
  }
  e->shared = shared;
  return e;
}

/* STR interned in the chunk all the files share */
static const char *intern(rsp_elf *e, const char *str)
{
  rsp_elf_shared *sh = e->shared;
  if (!sh->threaded)
    return g_string_chunk_insert_const(sh->strings, str);
  pthread_mutex_lock(&sh->lock);
  const char *r = g_string_chunk_insert_const(sh->strings, str);
  pthread_mutex_unlock(&sh->lock);
  return r;
}

void rsp_elf_free(rsp_elf *e)
{
  if (!e)
    return;
  if (e->dwfl)
    dwfl_end(e->dwfl);
  if (e->loads)
    g_array_unref(e->loads);
  if (e->syms)
    g_array_unref(e->syms);
  rsp_dwarf_inlines_free(e->inlines);
  g_free(e->path);
  g_free(e);
}

/* The name a symbol is shown by: C++ names demangled without their parameters, as perf shows them. Made once,
 * then kept in the symbol. */
static const char *sym_name(rsp_elf *e, esym *s)
{
  if (s->final)
    return s->name;
  const char *name = s->name;
  char *demangled = name[0] == '_' && name[1] == 'Z' ? cplus_demangle(name, DMGL_NO_OPTS) : NULL;
  s->name = intern(e, demangled ? demangled : name);
  s->final = true;
  free(demangled);
  return s->name;
}

static inline bool starts_before(const esym *x, const esym *y)
{
  return x->start < y->start;
}

/* sort_by_start(a, n): symbols by start, stably: aliases stay in symbol table order, as g_array_sort kept them
 * (through its comparison callback, sort_unique was 194 M instructions on deep3m; with this typed natural merge
 * sort, 98 M of which a quarter demangles aliases for better()). */
RSP_DEFINE_NATURAL_MERGE_SORT(sort_by_start, esym, starts_before)

static unsigned underscores(const char *s)
{
  unsigned n = 0;
  while (s[n] == '_')
    n++;
  return n;
}

/* perf's choose_best_symbol for symbols at one address, so both name a frame alike: sized over
 * zero-sized, then non-weak, then global, then fewer leading underscores, then the longer name.
 * True when B is the better one. */
static bool better(rsp_elf *e, esym *a, esym *b)
{
  bool az = a->end == a->start, bz = b->end == b->start;
  if (az != bz)
    return az;
  bool aw = a->binding == STB_WEAK, bw = b->binding == STB_WEAK;
  if (aw != bw)
    return aw;
  bool ag = a->binding == STB_GLOBAL, bg = b->binding == STB_GLOBAL;
  if (ag != bg)
    return bg;
  const char *an = sym_name(e, a), *bn = sym_name(e, b);
  unsigned ua = underscores(an), ub = underscores(bn);
  if (ua != ub)
    return ub < ua;
  return strlen(bn) > strlen(an);
}

/* Sorts E->syms and keeps one symbol per address (perf's choice). */
static void sort_unique(rsp_elf *e)
{
  sort_by_start((esym *)(void *)e->syms->data, e->syms->len);
  guint out = 0;
  for (guint i = 0; i < e->syms->len; i++) {
    esym *cur = &g_array_index(e->syms, esym, i);
    if (out > 0 && g_array_index(e->syms, esym, out - 1).start == cur->start) {
      if (better(e, &g_array_index(e->syms, esym, out - 1), cur))
        g_array_index(e->syms, esym, out - 1) = *cur;
      continue;
    }
    g_array_index(e->syms, esym, out++) = *cur;
  }
  g_array_set_size(e->syms, out);
}

static void add_plt_symbols(rsp_elf *e, Elf *elf);

/* The functions of the module's symbol table (libdwfl picks the debug file's .symtab, else the
 * file's own, else .gnu_debugdata, else .dynsym), one per address, as perf keeps them, then the
 * PLT entries. */
static void load_symbols(rsp_elf *e, Elf *elf)
{
  e->syms = g_array_new(FALSE, FALSE, sizeof(esym));
  int n = dwfl_module_getsymtab(e->mod);
  for (int i = 1; i < n; i++) {
    GElf_Sym sym;
    GElf_Addr addr;
    GElf_Word shndx = 0;
    Elf *selt = NULL;
    const char *name = dwfl_module_getsym_info(e->mod, i, &sym, &addr, &shndx, &selt, NULL);
    if (!name || !name[0] || addr == 0 || shndx == SHN_UNDEF || shndx == SHN_ABS)
      continue;
    int type = GELF_ST_TYPE(sym.st_info);
    if (type != STT_FUNC && type != STT_GNU_IFUNC) {
      /* assembly labels (_start, _dl_start_user): zero-sized, untyped, in executable code */
      GElf_Shdr sh;
      Elf_Scn *scn = type == STT_NOTYPE && sym.st_size == 0 && selt ? elf_getscn(selt, shndx) : NULL;
      if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
        continue;
    }
    /* the name as it is (in the symbol table, which lives as long as e->dwfl): sym_name makes it */
    esym es = {addr - e->bias, addr - e->bias + sym.st_size, name, GELF_ST_BIND(sym.st_info), false};
    g_array_append_val(e->syms, es);
  }
  sort_unique(e);
  /* zero-sized symbols end where the next begins; the last one with the next page (perf's
   * symbols__fixup_end: a noreturn call ending .text returns to _fini's first byte) */
  for (guint i = 0; i < e->syms->len; i++) {
    esym *cur = &g_array_index(e->syms, esym, i);
    if (cur->end == cur->start)
      cur->end = i + 1 < e->syms->len ? g_array_index(e->syms, esym, i + 1).start
                                      : ((cur->start + 4095) & ~(uint64_t)4095) + 4096;
  }
  guint before = e->syms->len;
  add_plt_symbols(e, elf);
  if (e->syms->len != before)
    sort_unique(e);
}

/* The symbol starting exactly at VADDR among the first N of E->syms (sorted), or NULL. */
static esym *sym_at(const rsp_elf *e, guint n, uint64_t vaddr)
{
  long i = rsp_last_at_or_before(e->syms->data, n, sizeof(esym), vaddr);
  esym *f = i < 0 ? NULL : &g_array_index(e->syms, esym, i);
  return f && f->start == vaddr ? f : NULL;
}

/* NAME@plt for the PLT entries, as perf synthesizes them: entry i of .rela.plt is at
 * .plt.sec + i * entsize when there is a .plt.sec (IBT), else at .plt + (i + 1) * entsize.
 * Entries without a symbol (R_X86_64_IRELATIVE: a library calling its own ifuncs) are named by
 * the ifunc resolver at the relocation's addend, else offset_ADDR@plt, as newer perf does
 * (perf 6.1 names them all "@plt"). */
static void add_plt_symbols(rsp_elf *e, Elf *elf)
{
  size_t shstrndx;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0)
    return;
  Elf_Scn *scn = NULL, *rela = NULL, *plt = NULL, *plt_sec = NULL;
  GElf_Shdr rela_sh = {0}, plt_sh = {0}, sec_sh = {0}, sh;
  while ((scn = elf_nextscn(elf, scn))) {
    if (!gelf_getshdr(scn, &sh))
      continue;
    const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (!name)
      continue;
    if (strcmp(name, ".rela.plt") == 0 && sh.sh_type == SHT_RELA) {
      rela = scn;
      rela_sh = sh;
    } else if (strcmp(name, ".plt") == 0) {
      plt = scn;
      plt_sh = sh;
    } else if (strcmp(name, ".plt.sec") == 0) {
      plt_sec = scn;
      sec_sh = sh;
    }
  }
  if (!rela || !plt || !rela_sh.sh_entsize)
    return;
  Elf_Scn *dynsym = elf_getscn(elf, rela_sh.sh_link);
  GElf_Shdr dyn_sh;
  Elf_Data *rdata = elf_getdata(rela, NULL);
  Elf_Data *sdata = dynsym ? elf_getdata(dynsym, NULL) : NULL;
  if (!rdata || !sdata || !gelf_getshdr(dynsym, &dyn_sh))
    return;
  uint64_t base = plt_sec ? sec_sh.sh_addr : plt_sh.sh_addr;
  uint64_t step = plt_sec ? (sec_sh.sh_entsize ? sec_sh.sh_entsize : 16)
                          : (plt_sh.sh_entsize ? plt_sh.sh_entsize : 16);
  uint64_t first = plt_sec ? 0 : 1;
  size_t n = rela_sh.sh_size / rela_sh.sh_entsize;
  guint n_funcs = e->syms->len;
  for (size_t i = 0; i < n; i++) {
    GElf_Rela r;
    GElf_Sym sym;
    if (!gelf_getrela(rdata, (int)i, &r))
      continue;
    const char *name = NULL;
    if (GELF_R_SYM(r.r_info) && gelf_getsym(sdata, (int)GELF_R_SYM(r.r_info), &sym))
      name = elf_strptr(elf, dyn_sh.sh_link, sym.st_name);
    uint64_t at = base + (first + i) * step;
    char *plt_name;
    if (name && name[0]) {
      plt_name = g_strconcat(name, "@plt", NULL);
    } else {
      esym *target = r.r_addend > 0 ? sym_at(e, n_funcs, (uint64_t)r.r_addend) : NULL;
      const char *tn = target ? sym_name(e, target) : NULL;
      if (tn) /* without its version: memcpy@plt, not memcpy@@GLIBC_2.14@plt */
        plt_name = g_strdup_printf("%.*s@plt", (int)strcspn(tn, "@"), tn);
      else
        plt_name = g_strdup_printf("offset_%#" G_GINT64_MODIFIER "x@plt", at);
    }
    esym es = {at, at + step, intern(e, plt_name), STB_GLOBAL, true};
    g_free(plt_name);
    g_array_append_val(e->syms, es);
  }
}

static esym *find_sym(const rsp_elf *e, uint64_t vaddr)
{
  long i = rsp_last_at_or_before(e->syms->data, e->syms->len, sizeof(esym), vaddr);
  esym *f = i < 0 ? NULL : &g_array_index(e->syms, esym, i);
  return f && vaddr < f->end ? f : NULL;
}

static bool open_elf(rsp_elf *e)
{
  e->tried = true;
  if (access(e->path, R_OK) != 0) {
    e->missing = true;
    return false;
  }
  e->dwfl = dwfl_begin(&offline_callbacks);
  if (!e->dwfl)
    return false;
  dwfl_report_begin(e->dwfl);
  e->mod = dwfl_report_elf(e->dwfl, e->path, e->path, -1, 0, false);
  dwfl_report_end(e->dwfl, NULL, NULL);
  if (!e->mod)
    return false;
  if (e->expected_size) {
    const unsigned char *bits;
    GElf_Addr vaddr;
    int n = dwfl_module_build_id(e->mod, &bits, &vaddr);
    if (n > 0 && (n < e->expected_size || memcmp(bits, e->expected, e->expected_size) != 0)) {
      e->mismatch = true;
      return false;
    }
  }
  Elf *elf = dwfl_module_getelf(e->mod, &e->bias);
  if (!elf)
    return false;
  size_t phnum;
  if (elf_getphdrnum(elf, &phnum) != 0)
    return false;
  e->loads = g_array_new(FALSE, FALSE, sizeof(load_seg));
  for (size_t i = 0; i < phnum; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
      load_seg seg = {ph.p_offset, ph.p_filesz, ph.p_vaddr};
      g_array_append_val(e->loads, seg);
    }
  }
  load_symbols(e, elf);
  const char *debugfile = NULL;
  dwfl_module_info(e->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
  e->full_symtab = debugfile != NULL;
  for (Elf_Scn *scn = NULL; !e->full_symtab && (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    e->full_symtab = gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB;
  }
  return true;
}

/* Marks E opened (or failed) for the threads waiting for it. */
static void publish(rsp_elf *e)
{
  rsp_elf_shared *sh = e->shared;
  if (!sh->threaded) {
    e->state = ELF_OPENED;
    return;
  }
  pthread_mutex_lock(&sh->lock);
  __atomic_store_n(&e->state, ELF_OPENED, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&sh->opened);
  pthread_mutex_unlock(&sh->lock);
}

/* Takes the opening of E on this thread: true when it is this thread's to do, false when it is done (by another
 * thread, which this one waited for when it was at it). */
static bool claim(rsp_elf *e, bool wait)
{
  rsp_elf_shared *sh = e->shared;
  if (!sh->threaded) {
    if (e->state != ELF_NOT_OPENED)
      return false;
    e->state = ELF_OPENING;
    return true;
  }
  pthread_mutex_lock(&sh->lock);
  while (wait && __atomic_load_n(&e->state, __ATOMIC_RELAXED) == ELF_OPENING)
    pthread_cond_wait(&sh->opened, &sh->lock);
  bool mine = __atomic_load_n(&e->state, __ATOMIC_RELAXED) == ELF_NOT_OPENED;
  if (mine)
    __atomic_store_n(&e->state, ELF_OPENING, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&sh->lock);
  return mine;
}

/* E opened for a lookup: whether it is usable. */
static bool ensure_open(rsp_elf *e)
{
  e->used = true;
  if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) != ELF_OPENED && claim(e, true)) {
    e->usable = open_elf(e);
    publish(e);
  }
  return e->usable;
}

void rsp_elf_open_ahead(rsp_elf *e, bool dwarf)
{
  if (!claim(e, false))
    return;
  e->usable = open_elf(e);
  if (e->usable && dwarf) {
    Dwarf_Addr bias;
    dwfl_module_getdwarf(e->mod, &bias); /* found and decompressed now; libdw keeps it, or that it has none */
  }
  publish(e);
}

rsp_dso_status rsp_elf_status(const rsp_elf *e)
{
  if (!e->used || !e->tried)
    return RSP_DSO_NOT_READ;
  if (e->mismatch)
    return RSP_DSO_BUILD_ID_MISMATCH;
  if (e->missing)
    return RSP_DSO_MISSING;
  if (!e->usable)
    return RSP_DSO_UNREADABLE;
  return e->full_symtab ? RSP_DSO_SYMBOLS : RSP_DSO_STRIPPED;
}

const char *rsp_elf_path(const rsp_elf *e)
{
  return e->path;
}

bool rsp_elf_build_id_mismatch(const rsp_elf *e)
{
  return e->used && e->mismatch;
}

bool rsp_elf_lookup(rsp_elf *e, uint64_t file_offset, rsp_sym *sym)
{
  if (!ensure_open(e))
    return false;
  for (guint i = 0; i < e->loads->len; i++) {
    const load_seg *seg = &g_array_index(e->loads, load_seg, i);
    if (file_offset >= seg->offset && file_offset - seg->offset < seg->filesz) {
      uint64_t vaddr = file_offset - seg->offset + seg->vaddr;
      esym *f = find_sym(e, vaddr);
      if (!f)
        return false;
      sym->name = sym_name(e, f);
      sym->start = file_offset - (vaddr - f->start);
      return true;
    }
  }
  return false;
}

/* The name of an inlined subroutine's function: its abstract origin's linkage name demangled (C++),
 * else its name, as addr2line -f -i -C names it. */
static const char *inline_name(rsp_elf *e, Dwarf_Die *die)
{
  Dwarf_Attribute attr;
  const char *linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
  if (!linkage)
    linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
  if (linkage && linkage[0] == '_' && linkage[1] == 'Z') {
    char *demangled = cplus_demangle(linkage, DMGL_NO_OPTS);
    if (demangled) {
      const char *name = intern(e, demangled);
      free(demangled);
      return name;
    }
  }
  const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
  return name ? intern(e, name) : NULL;
}

static const char *inline_name_of(void *data, Dwarf_Die *die)
{
  return inline_name(data, die);
}

unsigned rsp_elf_inlines(rsp_elf *e, uint64_t file_offset, const char **names, unsigned max)
{
  if (!ensure_open(e) || e->no_dwarf)
    return 0;
  uint64_t vaddr = 0;
  bool mapped = false;
  for (guint i = 0; i < e->loads->len && !mapped; i++) {
    const load_seg *seg = &g_array_index(e->loads, load_seg, i);
    if (file_offset >= seg->offset && file_offset - seg->offset < seg->filesz) {
      vaddr = file_offset - seg->offset + seg->vaddr;
      mapped = true;
    }
  }
  if (!mapped)
    return 0;
  Dwarf_Addr cu_bias = 0;
  Dwarf_Die *cu = dwfl_module_addrdie(e->mod, vaddr + e->bias, &cu_bias);
  if (!cu) {
    /* no DWARF at all (the common case of a distribution binary without -dbgsym): ask once */
    e->no_dwarf = dwfl_module_getdwarf(e->mod, &cu_bias) == NULL;
    return 0;
  }
  if (!e->inlines)
    e->inlines = rsp_dwarf_inlines_new();
  return rsp_dwarf_inlines_at(e->inlines, cu, vaddr + e->bias - cu_bias, inline_name_of, e, names, max);
}
