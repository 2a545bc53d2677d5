/* rsp's symbols: addresses of a recording -> (function, dso). Its own layer above the reader
 * (which turns bytes into events and knows nothing of ELF, DWARF or kallsyms) and below the model,
 * which asks it for every stack as the events stream. The symbolizers behind it (kallsyms,
 * ELF/DWARF through libdwfl with debuginfod when DEBUGINFOD_URLS is set, perf-PID.map for JITs)
 * are chained in symbolizer.c, as sysprof's multi-symbolizer chains its own. */
#pragma once

#include "reader/reader.h"

/* ---- Symbols ---------------------------------------------------------------------------
 * A symbolizer turns callchain addresses into (symbol, dso). Kernel frames come from a kallsyms
 * snapshot saved beside the recording (FILE.kallsyms, written by rsp-record), else the kallsyms perf
 * stored in the tracing data, else /proc/kallsyms when the recording was made on this host and
 * kernel. User frames come from the MMAP/MMAP2 maps of the sample's process, resolved through
 * libdwfl (ELF .symtab/.dynsym, separate debuginfo), checked against the recorded build id;
 * a user frame's address inside inlined code gets a frame per inlined function first (DWARF debug info);
 * JIT frames from /tmp/perf-PID.map. Each (dso, address) is resolved once and cached.
 * Feed it every event in order with rsp_symbolizer_observe() so it can follow the maps. */
typedef struct rsp_frame {
  uint64_t addr;
  const char *sym;     /* interned; NULL when unresolved */
  uint64_t sym_offset; /* addr - symbol start */
  const char *dso;     /* "[kernel.kallsyms]", "[virtio_blk]", a path; NULL when no map covers addr */
  bool kernel;
  bool inlined;        /* a function inlined at ADDR into the next frame's (same ADDR): no frame of its own
                          on the machine stack, named from the DWARF debug info */
  uint32_t *note;      /* a resolved frame that is no inlined one: the caller's word for this answer (0 at first),
                          found again each time the same code is answered (the model keeps its frame id there);
                          valid until the next call into the symbolizer. NULL otherwise */
} rsp_frame;

/* At most this many inlined functions are shown at one address (innermost first). */
#define RSP_MAX_INLINED 16

typedef struct rsp_symbolizer rsp_symbolizer;

typedef struct rsp_symbolizer_options {
  const char *kallsyms_path; /* overrides the search for a kallsyms snapshot */
  bool no_host_fallback;     /* never use this host's /proc/kallsyms or files */
  bool no_inline;            /* no frames for inlined functions (perf script --no-inline) */
  bool open_ahead;           /* open the files of the build-id list on a thread of their own (same answers) */
} rsp_symbolizer_options;

typedef struct rsp_symbolizer_stats {
  uint64_t kernel_frames, kernel_resolved;
  uint64_t user_frames, user_resolved;
  uint64_t build_id_mismatches; /* dsos skipped because the file on disk is not the one recorded */
  uint64_t cache_hits, cache_misses;
  const char *kallsyms_source;  /* path or "tracing data" or "none" */
} rsp_symbolizer_stats;

/* What the symbolizer found of a file that maps code, the worst of its builds (why its addresses
 * have no symbol, when they have none). */
typedef enum {
  RSP_DSO_NOT_READ,          /* no address of it was looked up in the file (or files of this host
                                are not read: another host's recording, no_host_fallback) */
  RSP_DSO_SYMBOLS,           /* read, with a full symbol table (.symtab, or separate debug info) */
  RSP_DSO_STRIPPED,          /* read, stripped: its dynamic (exported) symbols at most */
  RSP_DSO_UNREADABLE,        /* there, but not an ELF file libdwfl could read */
  RSP_DSO_MISSING,           /* not found where it was looked for */
  RSP_DSO_BUILD_ID_MISMATCH, /* the file found is another build than the one recorded */
} rsp_dso_status;

/* READER gives the header (hostname, osrelease, build ids, tracing kallsyms) and the data path. */
rsp_symbolizer *rsp_symbolizer_new(const rsp_reader *reader, const rsp_symbolizer_options *options,
                                   GError **error);
void rsp_symbolizer_free(rsp_symbolizer *symbolizer);
/* Follows MMAP, MMAP2, FORK and KSYMBOL records; ignores the rest. */
void rsp_symbolizer_observe(rsp_symbolizer *symbolizer, const rsp_event *ev);
/* Whether rsp_symbolizer_observe follows records of TYPE (PERF_RECORD_*): what a caller that hands it events
 * later (a copy each) need hand it. */
bool rsp_symbolizer_follows(uint32_t type);
/* Resolves EV's callchain into OUT (context markers dropped, innermost first); returns the
 * number of frames written (at most MAX). A sample without a callchain has its IP as its one
 * frame (in the kernel or not by the sample's cpumode), as perf script prints it. */
unsigned rsp_symbolizer_callchain(rsp_symbolizer *symbolizer, const rsp_event *ev, rsp_frame *out,
                                  unsigned max);
/* Resolves one address of process PID. */
void rsp_symbolizer_resolve(rsp_symbolizer *symbolizer, int32_t pid, uint64_t addr, bool kernel,
                            rsp_frame *out);
const rsp_symbolizer_stats *rsp_symbolizer_stats_get(const rsp_symbolizer *symbolizer);
/* What became of the file PATH (a map's path, as frames name their dso). */
rsp_dso_status rsp_symbolizer_dso_status(const rsp_symbolizer *symbolizer, const char *path);
