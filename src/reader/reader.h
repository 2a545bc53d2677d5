/* rsp reader: perf.data bytes -> time-ordered events.
 *
 * The one public header of src/reader/. Upper layers (model, analyses, tools) include only this.
 * A reader streams a perf.data file (file mode) or a perf pipe stream (perf record -o -), decodes
 * every record perf 6.x writes, and hands out events one at a time in global time order.
 * Nothing here aborts on bad input: errors come back as GError whose message names the file,
 * the byte offset and the record type.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

G_BEGIN_DECLS

#define RSP_READER_ERROR (rsp_reader_error_quark())
GQuark rsp_reader_error_quark(void);

typedef enum {
  RSP_READER_ERROR_IO,          /* open/read failed */
  RSP_READER_ERROR_FORMAT,      /* bytes that are not a valid perf.data */
  RSP_READER_ERROR_TRUNCATED,   /* the file ends inside a structure */
  RSP_READER_ERROR_UNSUPPORTED, /* valid, but something we do not read (big-endian, v1 files) */
} RspReaderErrorCode;

/* perf's user-space record types (tools/perf/util/event.h); the kernel's are in perf_event.h. */
enum {
  RSP_RECORD_HEADER_ATTR = 64,
  RSP_RECORD_HEADER_EVENT_TYPE = 65,
  RSP_RECORD_HEADER_TRACING_DATA = 66,
  RSP_RECORD_HEADER_BUILD_ID = 67,
  RSP_RECORD_FINISHED_ROUND = 68,
  RSP_RECORD_ID_INDEX = 69,
  RSP_RECORD_AUXTRACE_INFO = 70,
  RSP_RECORD_AUXTRACE = 71,
  RSP_RECORD_AUXTRACE_ERROR = 72,
  RSP_RECORD_THREAD_MAP = 73,
  RSP_RECORD_CPU_MAP = 74,
  RSP_RECORD_STAT_CONFIG = 75,
  RSP_RECORD_STAT = 76,
  RSP_RECORD_STAT_ROUND = 77,
  RSP_RECORD_EVENT_UPDATE = 78,
  RSP_RECORD_TIME_CONV = 79,
  RSP_RECORD_HEADER_FEATURE = 80,
  RSP_RECORD_COMPRESSED = 81,
  RSP_RECORD_FINISHED_INIT = 82,
  RSP_RECORD_COMPRESSED2 = 83, /* perf >= 6.16: u64 data_size, then the data padded to 8 */
  RSP_RECORD_TYPE_MAX = 128, /* counters are kept for types below this; others go to "unknown" */
};

/* Name of a record type ("SAMPLE", "COMM", "FINISHED_ROUND"...), or NULL when unknown. */
const char *rsp_record_type_name(uint32_t type);

/* A tracepoint field, resolved once from the file's own format description. */
typedef enum {
  RSP_FIELD_SIGNED,   /* integer, sign-extended */
  RSP_FIELD_UNSIGNED, /* integer */
  RSP_FIELD_STRING,   /* char[N] or __data_loc char[] */
  RSP_FIELD_ARRAY,    /* any other array or dynamic blob: bytes */
} RspFieldKind;

typedef struct rsp_field {
  const char *name;
  RspFieldKind kind;
  uint32_t offset;    /* in the RAW payload */
  uint32_t size;      /* of the field itself (4 for __data_loc) */
  uint32_t elem_size; /* element size for arrays */
  bool dynamic;       /* __data_loc / __rel_loc: offset and length are stored in the field */
  bool relative;      /* __rel_loc */
  bool common;        /* common_* header fields */
} rsp_field;

/* One perf_event_attr of the recording with what perf calls an evsel around it. */
typedef struct rsp_evsel {
  unsigned index;
  struct perf_event_attr attr; /* zero-extended to the header's size */
  const char *name;            /* as perf names it: "sched:sched_switch", "cpu-clock/freq=997/" */
  const char *tp_system;       /* tracepoints only, else NULL */
  const char *tp_name;
  const rsp_field *fields;     /* tracepoints only: every field including common_*, in format order */
  unsigned n_fields;
  const uint64_t *ids;
  unsigned n_ids;
  bool sampled_tracepoint;     /* a tracepoint in frequency mode or with period > 1: events were dropped */
  bool name_is_fallback;       /* named "tracepoint:ID": the file had no tracing data (yet) */
  bool name_is_generic;        /* named by perf's rule from the attr alone ("cycles:HG", "raw 0x1a"):
                                  the file names it nowhere (old pipe streams, simpleperf) */
  uint64_t n_samples;          /* samples delivered so far */
} rsp_evsel;

const rsp_field *rsp_evsel_field(const rsp_evsel *evsel, const char *name);

typedef struct rsp_branch_entry {
  uint64_t from, to, flags;
} rsp_branch_entry;

/* One decoded record. Pointers point into the reader's buffers and stay valid until the next
 * call to rsp_reader_next(). Fields that the record does not carry are 0 (pid/tid/cpu: -1). */
typedef struct rsp_event {
  uint32_t type; /* PERF_RECORD_* */
  uint16_t misc;
  uint16_t size;
  uint64_t offset; /* byte offset of the record in the file; for records inside a COMPRESSED
                      record, the offset of that COMPRESSED record */
  const rsp_evsel *evsel; /* for samples (and sample_id_all trailers), else NULL */
  const void *record;     /* the whole record, header included (NULL for ftrace events) */
  uint8_t source;         /* RSP_SOURCE_PERF, or RSP_SOURCE_FTRACE for the merged side stream */
  bool outside_window;    /* a record kept for its names and maps though its time is outside the time
                             window the reader was asked for (rsp_reader_options.window) */
  bool decode_deferred;   /* rsp_reader_defer_decoding: only type, misc, size, offset, evsel, record and
                             source are set; rsp_reader_decode_deferred decodes the rest */
  uint8_t dirty;          /* the parts that may hold a value (RSP_EVENT_DIRTY_*): a decode into this event
                             clears only those (an event's storage starts zeroed, or is a copy of a whole event) */

  /* Sample fields, and the sample_id_all trailer of other records. */
  uint64_t present; /* PERF_SAMPLE_* bits actually decoded for this event */
  uint64_t time;
  int32_t cpu;
  int32_t pid, tid;
  uint32_t callchain_nr; /* (the fields a model reads of every sample first, in few cache lines) */
  const uint64_t *callchain; /* includes PERF_CONTEXT_* markers */
  const uint8_t *raw;
  uint32_t raw_size;
  uint64_t id, stream_id, ip, addr, period;
  uint64_t weight, data_src, transaction, phys_addr, cgroup, data_page_size, code_page_size;
  const rsp_branch_entry *branches;
  uint32_t branch_nr;
  uint64_t branch_hw_idx;
  const uint64_t *read_values; /* the READ area as perf_read_format describes it */
  uint32_t read_words;
  uint64_t regs_user_abi; /* PERF_SAMPLE_REGS_USER: kept for DWARF unwinding */
  const uint64_t *regs_user;
  uint32_t regs_user_nr;
  uint64_t regs_intr_abi;
  const uint64_t *regs_intr;
  uint32_t regs_intr_nr;
  const uint8_t *stack_user; /* PERF_SAMPLE_STACK_USER */
  uint64_t stack_user_size, stack_user_dyn_size;
  const uint8_t *aux;
  uint64_t aux_size;

  /* Per record type. */
  union {
    struct { int32_t pid, tid; const char *comm; bool exec; } comm;
    struct { int32_t pid, ppid, tid, ptid; uint64_t time; } fork; /* FORK and EXIT */
    struct {
      int32_t pid, tid;
      uint64_t start, len, pgoff;
      uint32_t maj, min; uint64_t ino, ino_generation; /* MMAP2 without build id */
      uint32_t prot, flags;
      const uint8_t *build_id; uint8_t build_id_size;    /* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
      const char *filename;
    } mmap; /* MMAP and MMAP2 */
    struct { uint64_t id, lost; } lost;
    struct { uint64_t lost; } lost_samples;
    struct { uint64_t time, id, stream_id; } throttle; /* THROTTLE and UNTHROTTLE */
    struct { bool out, preempt; int32_t next_prev_pid, next_prev_tid; } cswitch; /* SWITCH(_CPU_WIDE) */
    struct { uint64_t addr; uint32_t len; uint16_t ksym_type, flags; const char *name; } ksymbol;
    struct { uint16_t type, flags; uint32_t id; } bpf;
    struct { uint64_t id; const char *path; } cgroup;
    struct { uint64_t addr; uint16_t old_len, new_len; const uint8_t *bytes; } text_poke;
    struct { uint64_t offset, size, flags; } aux;
    struct { int32_t pid, tid; } itrace_start;
  } u;
} rsp_event;

enum { RSP_SOURCE_PERF = 0, RSP_SOURCE_FTRACE = 1 };
/* rsp_event.dirty: the sample fields from weight to aux_size, the per-type union */
enum { RSP_EVENT_DIRTY_RARE = 1, RSP_EVENT_DIRTY_UNION = 2 };

/* The recording's header and feature sections. Strings are NULL when the feature is absent. */
typedef struct rsp_build_id {
  int32_t pid;
  uint8_t id[20];
  uint8_t size;
  const char *filename;
} rsp_build_id;

typedef struct rsp_header_info {
  bool pipe_mode;
  uint64_t file_size;     /* 0 in pipe mode */
  uint64_t data_offset, data_size;
  uint64_t features[4];   /* bitmap of HEADER_* features present */
  const char *hostname, *osrelease, *perf_version, *arch, *cpudesc, *cpuid;
  char **cmdline;         /* NULL-terminated */
  uint32_t nr_cpus_avail, nr_cpus_online;
  uint64_t total_mem_kb;
  bool has_clockid;
  uint64_t clockid_res_ns;
  bool has_clock_data;
  uint32_t clock_data_clockid;
  uint64_t clock_data_tod_ns, clock_data_clockid_ns;
  bool compressed;
  uint32_t comp_type, comp_level, comp_ratio, comp_mmap_len;
  uint64_t sample_time_first, sample_time_last; /* HEADER_SAMPLE_TIME */
  const rsp_build_id *build_ids;
  unsigned n_build_ids;
  bool has_tracing_data;
  const char *tracing_kallsyms; /* the kallsyms text perf stored in the tracing data, if any */
  size_t tracing_kallsyms_size;
} rsp_header_info;

/* perf's feature numbers (tools/perf/util/header.h). */
enum {
  RSP_FEAT_TRACING_DATA = 1, RSP_FEAT_BUILD_ID = 2, RSP_FEAT_HOSTNAME = 3, RSP_FEAT_OSRELEASE = 4,
  RSP_FEAT_VERSION = 5, RSP_FEAT_ARCH = 6, RSP_FEAT_NRCPUS = 7, RSP_FEAT_CPUDESC = 8,
  RSP_FEAT_CPUID = 9, RSP_FEAT_TOTAL_MEM = 10, RSP_FEAT_CMDLINE = 11, RSP_FEAT_EVENT_DESC = 12,
  RSP_FEAT_CPU_TOPOLOGY = 13, RSP_FEAT_NUMA_TOPOLOGY = 14, RSP_FEAT_BRANCH_STACK = 15,
  RSP_FEAT_PMU_MAPPINGS = 16, RSP_FEAT_GROUP_DESC = 17, RSP_FEAT_AUXTRACE = 18, RSP_FEAT_STAT = 19,
  RSP_FEAT_CACHE = 20, RSP_FEAT_SAMPLE_TIME = 21, RSP_FEAT_MEM_TOPOLOGY = 22, RSP_FEAT_CLOCKID = 23,
  RSP_FEAT_DIR_FORMAT = 24, RSP_FEAT_BPF_PROG_INFO = 25, RSP_FEAT_BPF_BTF = 26,
  RSP_FEAT_COMPRESSED = 27, RSP_FEAT_CPU_PMU_CAPS = 28, RSP_FEAT_CLOCK_DATA = 29,
  RSP_FEAT_HYBRID_TOPOLOGY = 30, RSP_FEAT_PMU_CAPS = 31,
  RSP_FEAT_SIMPLEPERF_META_INFO = 129, /* simpleperf's: key/value strings, event_type_info among them */
};

typedef struct rsp_reader_stats {
  uint64_t records[RSP_RECORD_TYPE_MAX]; /* every record read, by type (inside COMPRESSED too) */
  uint64_t unknown_records;              /* types we do not know: counted and skipped */
  uint64_t lost;                         /* sum of LOST records' counts */
  uint64_t lost_samples;                 /* sum of LOST_SAMPLES records' counts */
  uint64_t events;                       /* events delivered */
  uint64_t unknown_id_samples;           /* samples whose id matches no attr */
  uint64_t out_of_order;                 /* events that arrived after their round was flushed */
  uint64_t bytes_decompressed;
  uint64_t max_buffered;                 /* the most events held for ordering at once */
  /* the ftrace side stream (FILE.ftrace/ written by rsp-record), merged by timestamp */
  bool ftrace_merged;
  const char *ftrace_note;               /* why it was not merged, when it exists but was not */
  uint64_t ftrace_read;                  /* events read from it */
  uint64_t ftrace_duplicates;            /* of those, already in perf's stream: dropped */
  uint64_t ftrace_added;                 /* of those, missing from perf's stream: delivered */
  uint64_t ftrace_outside;               /* of those, before or after perf's recording: dropped */
  uint64_t ftrace_missed;                /* events the ftrace ring buffer itself lost */
  /* the recording's start, known even when a time window skips it: the first timestamp read, or the
   * header's sample_time when earlier (kept only when a time window was asked for) */
  uint64_t recording_start;
  uint64_t time_first_seen;              /* the earliest timestamp of any record read, delivered or not */
  uint64_t sample_time_first_seen;       /* ...of a SAMPLE or SWITCH record */
  /* a time window (rsp_reader_options.window): its absolute bounds, margins included, once known */
  bool window_resolved;
  uint64_t window_lo, window_hi;
  uint64_t window_dropped;               /* SAMPLE, SWITCH records and ftrace events outside it: dropped */
  bool window_stopped;                   /* reading stopped past its end (the rest of the file unread) */
  bool index_used;                       /* FILE.rsp-index let the reading skip to the window */
  bool index_written;                    /* ...was written by this reader */
} rsp_reader_stats;

typedef struct rsp_reader rsp_reader;

typedef struct rsp_reader_options {
  bool unordered;        /* deliver in file order (no reordering buffer) */
  bool no_ftrace;        /* do not merge FILE.ftrace/ even when present */
  const char *ftrace_dir; /* merge this ftrace capture instead of FILE.ftrace/ */
  /* A time window [window_from, window_to] (perf clock ns; with window_relative, ns from the recording's
   * start, rsp_reader_stats.recording_start): SAMPLE and SWITCH records (and ftrace events) further than
   * window_margin_ns outside it are dropped unread, and reading stops a little after its end; the other
   * records (COMM, MMAP, FORK, EXIT...) are all delivered, those outside marked outside_window, since
   * names and maps come from before it. With a valid FILE.rsp-index (written beside FILE by the first
   * windowed read when the directory allows), the reading skips to the window's first round. */
  bool window;
  bool window_relative;
  uint64_t window_from, window_to;
  uint64_t window_margin_ns;
  bool no_index;          /* a windowed read neither uses nor writes FILE.rsp-index */
} rsp_reader_options;

/* How far past the window's end (margin included) the records before the previous FINISHED_ROUND must reach
 * before a windowed read stops (time-window.c): perf's promise that the records after a round are later than
 * those before the one before, and this much more for a writer that kept it loosely. */
#define RSP_WINDOW_STOP_AFTER_NS 1000000000ull

/* Opens PATH ("-" reads standard input as a pipe-mode stream) and reads its header, attrs and
 * feature sections. Returns NULL with ERROR set when the file is not a readable perf.data. */
rsp_reader *rsp_reader_open(const char *path, const rsp_reader_options *options, GError **error);

/* The next event in time order; NULL at the end (ERROR unset) or on error (ERROR set). A record
 * stream that breaks off (a cut file, junk after a pipe stream's last record) first delivers every
 * event read before the break, then the error naming where it broke. */
const rsp_event *rsp_reader_next(rsp_reader *reader, GError **error);

/* The same, decoded into OUT instead of the reader's own event (OUT's pointers still point into
 * the reader's buffers: rsp_event_copy(OUT, OUT, storage) moves them out). OUT is zeroed storage or holds an event
 * (its dirty parts are what a decode clears). */
const rsp_event *rsp_reader_next_to(rsp_reader *reader, rsp_event *out, GError **error);

void rsp_reader_close(rsp_reader *reader);

/* For a reader on a thread of its own: the plain samples and switch records that lie in the file's mapping are
 * handed out undecoded (decode_deferred), for the thread that takes them to decode with
 * rsp_reader_decode_deferred; the reader's counts are kept as for decoded ones. Not with a time window. */
void rsp_reader_defer_decoding(rsp_reader *reader, bool defer);
/* Decodes EV, handed out with decode_deferred, in place (on any thread: it reads only EV's record, its evsel and
 * the reader's path); false with ERROR set, the reader's error for that record, when it does not decode. */
bool rsp_reader_decode_deferred(const rsp_reader *reader, rsp_event *ev, GError **error);

/* Whether EV, just handed out, stays valid as it is after the next call, without rsp_event_copy: a perf
 * record in the file's mapping, which lasts until the reader is closed. Then *FILE_OFFSET is the record's
 * offset, to be passed to rsp_reader_keep_from while the caller still uses EV (else its pages may be given
 * back to the kernel, and read again when touched: slower, still right). */
bool rsp_reader_event_lasting(const rsp_reader *reader, const rsp_event *ev, uint64_t *file_offset);
/* The caller keeps using events whose records lie at or after FILE_OFFSET in the file (UINT64_MAX: none):
 * the reader keeps their pages mapped. */
void rsp_reader_keep_from(rsp_reader *reader, uint64_t file_offset);
/* For a caller done with the events: the pages of the file and of the ftrace capture read so far are given back to
 * the kernel now rather than at rsp_reader_close (a later touch reads them again: it costs time, never bytes). */
void rsp_reader_release_pages(rsp_reader *reader);

/* An event that outlives the next rsp_reader_next() (e.g. handed to another thread): the bytes of
 * storage its copy needs (a multiple of 8), and the copy, whose pointers (record, callchain, raw,
 * comm, filename...) all point into STORAGE (8-aligned, at least rsp_event_copy_size(SRC) bytes).
 * DST may be SRC itself. */
size_t rsp_event_copy_size(const rsp_event *ev);
void rsp_event_copy(rsp_event *dst, const rsp_event *src, void *storage);

const char *rsp_reader_path(const rsp_reader *reader);
const rsp_header_info *rsp_reader_header(const rsp_reader *reader);
const rsp_reader_stats *rsp_reader_stats_get(const rsp_reader *reader);
unsigned rsp_reader_n_evsels(const rsp_reader *reader);
const rsp_evsel *rsp_reader_evsel(const rsp_reader *reader, unsigned index);
const rsp_evsel *rsp_reader_find_evsel(const rsp_reader *reader, const char *name);
/* What was wrong in the file but did not stop the reading (a malformed optional feature section),
 * one message a line, each naming the file and byte offset as errors do; NULL-terminated, owned by
 * the reader (valid until the next rsp_reader_next() or close). */
const char *const *rsp_reader_warnings(const rsp_reader *reader);

/* What rsp-record wrote beside the recording (FILE.meta, a GKeyFile: [recording] command, event
 * set, skipped events; [loss] EVENT=recorded;occurred), or NULL when there is none. The reader
 * keeps the one of the file it opened. */
GKeyFile *rsp_metadata_load(const char *data_path);

/* rsp-record's loss check beside DATA_PATH (FILE.meta [loss] EVENT=recorded;occurred as perf stat counted it,
 * [ftrace] EVENT=what its ftrace capture holds, which the reader merges), per tracepoint and in all. */
typedef struct rsp_loss_check_row {
  const char *event;
  uint64_t recorded, occurred;
  int64_t ftrace; /* -1: no count from the capture */
  uint64_t best;  /* what the merged stream holds at most: the larger of the two, at most what occurred */
} rsp_loss_check_row;

typedef struct rsp_loss_check {
  rsp_loss_check_row *rows;
  unsigned n_rows;
  uint64_t recorded, occurred, best; /* summed over the rows */
  bool any_ftrace;
  char **events_; /* private: the rows' names */
} rsp_loss_check;

/* False (C empty) when DATA_PATH has no FILE.meta; clear C either way. */
bool rsp_loss_check_load(const char *data_path, rsp_loss_check *c);
void rsp_loss_check_clear(rsp_loss_check *c);
GKeyFile *rsp_reader_metadata(const rsp_reader *reader);
/* The process rsp-record ran ([recording] workload_pid of META, which may be NULL), or -1. */
int32_t rsp_metadata_workload_pid(GKeyFile *meta);
/* The same read from DATA_PATH's FILE.meta, for a caller that has not opened the recording yet. */
int32_t rsp_metadata_workload_pid_of(const char *data_path);

/* Tracepoint field access on a sample of a tracepoint evsel. Out-of-bounds fields read as 0/"". A number field:
 * 1, 2, 4 or 8 bytes (a dynamic field or another size reads as 0). Inline: the model reads five fields of every
 * scheduler event (0.38 G instructions of calls on deep3m). */
static inline uint64_t rsp_event_field_u64(const rsp_event *ev, const rsp_field *field)
{
  if (!field || field->dynamic || !ev->raw || (uint64_t)field->offset + field->size > ev->raw_size)
    return 0;
  const uint8_t *p = ev->raw + field->offset;
  switch (field->size) {
  case 1: return p[0];
  case 2: { uint16_t v; __builtin_memcpy(&v, p, 2); return v; }
  case 4: { uint32_t v; __builtin_memcpy(&v, p, 4); return v; }
  case 8: { uint64_t v; __builtin_memcpy(&v, p, 8); return v; }
  default: return 0;
  }
}

/* The same, sign-extended from the field's size. */
static inline int64_t rsp_event_field_s64(const rsp_event *ev, const rsp_field *field)
{
  uint64_t v = rsp_event_field_u64(ev, field);
  if (!field)
    return 0;
  switch (field->size) {
  case 1: return (int8_t)v;
  case 2: return (int16_t)v;
  case 4: return (int32_t)v;
  default: return (int64_t)v;
  }
}
/* A string field (without trailing NULs), or the bytes of an array field. */
const char *rsp_event_field_bytes(const rsp_event *ev, const rsp_field *field, size_t *len);

/* Callchain context markers (PERF_CONTEXT_KERNEL ...) are addresses >= PERF_CONTEXT_MAX. */
static inline bool rsp_is_context_marker(uint64_t addr) { return addr >= (uint64_t)PERF_CONTEXT_MAX; }

/* ---- an ftrace capture (FILE.ftrace/ of rsp-record) on its own: what it holds ------------- */
typedef struct rsp_ftrace_tally {
  GHashTable *events;   /* "group:name" -> uint64_t* : events inside [from, to] */
  uint64_t total;       /* every event of the capture */
  uint64_t in_window;   /* of those, inside [from, to] */
  uint64_t pages;       /* ring-buffer pages read */
  uint64_t missed;      /* events the ring buffer reported lost (a page flag without a count: 1) */
  uint64_t unknown;     /* events of a type without a format file */
  uint64_t disorder;    /* events older than the one before on the same CPU (should be 0) */
  uint64_t first_time, last_time; /* CLOCK_MONOTONIC ns of the first and last event */
  unsigned cpus;
} rsp_ftrace_tally;

/* The ring-buffer page size a header_page format describes (offset + size of its data field);
 * 0 when the text does not say. */
size_t rsp_ftrace_page_size(const char *header_page);
/* Reads every event of the capture DIR and counts them per event name, those inside [from, to]
 * (0, UINT64_MAX: all). NULL and ERROR when it does not decode. */
rsp_ftrace_tally *rsp_ftrace_tally_dir(const char *dir, uint64_t from, uint64_t to, GError **error);
uint64_t rsp_ftrace_tally_get(const rsp_ftrace_tally *tally, const char *event);
void rsp_ftrace_tally_free(rsp_ftrace_tally *tally);

G_END_DECLS
