/* Internals of the symbolizers. Each resolver answers "which function holds this address" with
 * an rsp_sym from a flat sorted array, in its own address space (kernel address, file offset,
 * process address); symbolizer.c chains them (kernel: KSYMBOL symbols, then the kallsyms
 * snapshot; user: the map's ELF file through libdwfl, then perf-PID.map for JIT code, else none)
 * and caches every answer per (dso, address). */
#pragma once

#include "symbols/symbols.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <pthread.h>

/* A resolved symbol: the interned name and its start address (in the resolver's space). */
typedef struct rsp_sym {
  const char *name;
  uint64_t start;
} rsp_sym;

/* In an array of COUNT elements of STRIDE bytes, each starting with a uint64_t start address and
 * sorted by it, the index of the last element starting at or before ADDR, or -1. */
static inline long rsp_last_at_or_before(const void *base, size_t count, size_t stride, uint64_t addr)
{
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (*(const uint64_t *)((const char *)base + mid * stride) <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (long)lo - 1;
}

/* ---- kallsyms-symbolizer.c ---------------------------------------------------------------- */
typedef struct rsp_kallsyms rsp_kallsyms;
/* An empty table (for KSYMBOL symbols when the recording has no kallsyms). */
rsp_kallsyms *rsp_kallsyms_new(GStringChunk *strings);
/* Parses kallsyms text (as /proc/kallsyms prints it). Returns NULL when it holds no function. */
rsp_kallsyms *rsp_kallsyms_parse(const char *text, size_t len, GStringChunk *strings);
/* Reads PATH, plain or zstd-compressed (by content). */
rsp_kallsyms *rsp_kallsyms_load(const char *path, GStringChunk *strings, GError **error);
void rsp_kallsyms_free(rsp_kallsyms *k);
/* Adds one symbol of LEN bytes (a KSYMBOL record: bpf programs, trampolines) to the dso DSO;
 * it hides the snapshot's symbols it overlaps. */
void rsp_kallsyms_add(rsp_kallsyms *k, uint64_t addr, uint32_t len, const char *name,
                      const char *dso);
/* Drops the KSYMBOL symbol starting at ADDR (KSYMBOL unregister). */
void rsp_kallsyms_remove(rsp_kallsyms *k, uint64_t addr);
/* The function containing ADDR and its dso ("[kernel.kallsyms]" or "[module]"). */
bool rsp_kallsyms_lookup(const rsp_kallsyms *k, uint64_t addr, rsp_sym *sym, const char **dso);
size_t rsp_kallsyms_count(const rsp_kallsyms *k);
/* The address of NAME when it is "_text" or "_stext" (what perf's kernel MMAP record names as
 * its relocation reference), else 0. */
uint64_t rsp_kallsyms_reference(const rsp_kallsyms *k, const char *name);

/* ---- elf-symbolizer.c --------------------------------------------------------------------- */
typedef struct rsp_elf rsp_elf;
/* What all the ELF files share: the chunk their functions' names are interned in and, when some are opened ahead on a
 * thread of their own (rsp_elf_open_ahead), the lock that guards the chunk and their opening. Plain pthreads, which
 * ThreadSanitizer follows. */
typedef struct rsp_elf_shared {
  GStringChunk *strings;
  bool threaded; /* set before a second thread starts and kept until it is joined: lock */
  pthread_mutex_t lock;
  pthread_cond_t opened; /* a file opened ahead is ready */
} rsp_elf_shared;
/* libdwfl's find_debuginfo callback (debug-cache.c): dwfl_standard_find_debuginfo's file, or a copy of it with its
 * compressed sections inflated, kept by build id in the user's cache. */
int rsp_debug_cache_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
                                   const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                                   char **debuginfo_file_name);
/* Opens PATH lazily; EXPECTED_BUILD_ID (may be NULL) must match the file's. */
rsp_elf *rsp_elf_new(const char *path, const uint8_t *expected_build_id, uint8_t build_id_size,
                     rsp_elf_shared *shared);
void rsp_elf_free(rsp_elf *e);
/* Opens the file, and with DWARF its debug info (libdw decompresses it then), unless it is open or being opened.
 * Called on another thread than the lookups (SHARED->threaded): a lookup of a file being opened waits for it. What
 * it finds counts (rsp_elf_status) only once a lookup has asked for the file, as without the opening ahead. */
void rsp_elf_open_ahead(rsp_elf *e, bool dwarf);
/* Resolves FILE_OFFSET (ip - map start + pgoff) to a symbol; SYM->start is a file offset too.
 * Opens the file on first use. No cache here: the symbolizer caches every frame. */
bool rsp_elf_lookup(rsp_elf *e, uint64_t file_offset, rsp_sym *sym);
/* The functions inlined at FILE_OFFSET (from the DWARF debug info, the file's or a separate one),
 * innermost first, not counting the function the symbol table names there; at most MAX. */
unsigned rsp_elf_inlines(rsp_elf *e, uint64_t file_offset, const char **names, unsigned max);
/* The file on disk is not the one recorded (known once a lookup has opened it). */
bool rsp_elf_build_id_mismatch(const rsp_elf *e);
/* What opening it found (RSP_DSO_NOT_READ before the first lookup); its path. */
rsp_dso_status rsp_elf_status(const rsp_elf *e);
const char *rsp_elf_path(const rsp_elf *e);

/* ---- dwarf-inlines.c ----------------------------------------------------------------------- */
typedef struct rsp_dwarf_inlines rsp_dwarf_inlines;
rsp_dwarf_inlines *rsp_dwarf_inlines_new(void);
void rsp_dwarf_inlines_free(rsp_dwarf_inlines *d);
/* The functions inlined at ADDR (in UNIT's address space), innermost first, up to the subprogram
 * holding them, named by NAME_OF (NULL: skipped); at most MAX. Indexes UNIT on its first lookup. */
unsigned rsp_dwarf_inlines_at(rsp_dwarf_inlines *d, Dwarf_Die *unit, uint64_t addr,
                              const char *(*name_of)(void *data, Dwarf_Die *die), void *data,
                              const char **names, unsigned max);

/* ---- perfmap-symbolizer.c ------------------------------------------------------------------- */
typedef struct rsp_perfmap rsp_perfmap;
/* /tmp/perf-PID.map written by JITs; NULL when there is none. */
rsp_perfmap *rsp_perfmap_load(const char *path, GStringChunk *strings);
void rsp_perfmap_free(rsp_perfmap *m);
bool rsp_perfmap_lookup(rsp_perfmap *m, uint64_t addr, rsp_sym *sym);

/* ---- dwarf-unwind.c ------------------------------------------------------------------------- */
typedef struct rsp_unwinder rsp_unwinder;
/* A process's unwinder over its N mapped ELF files PATHS, loaded at BASES (map start - file offset). */
rsp_unwinder *rsp_unwinder_new(int32_t pid, const char *const *paths, const uint64_t *bases, unsigned n);
void rsp_unwinder_free(rsp_unwinder *u);
/* Unwinds thread TID from its user registers (N_REGS values of the perf registers in MASK, x86_64) and
 * the copy of its stack from the stack pointer on; writes at most MAX pcs, innermost (the ip) first;
 * returns how many (0: could not). */
unsigned rsp_unwinder_unwind(rsp_unwinder *u, int32_t tid, const uint64_t *regs, unsigned n_regs, uint64_t mask,
                             const uint8_t *stack, uint64_t stack_size, uint64_t *pcs, unsigned max);
