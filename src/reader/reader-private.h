/* Internals of the reader shared by its files; nothing outside src/reader/ includes this. */
#pragma once

#include "reader/reader.h"

#include <stdio.h>

struct tep_handle;

/* ---- byte-source.c: buffered sequential reads over a file or a pipe -------------------- */
typedef struct rsp_source {
  const char *path; /* for messages */
  int fd;
  bool owns_fd;
  bool seekable;
  uint8_t *buf;
  size_t cap;
  size_t start, end; /* valid bytes are buf[start, end) */
  uint64_t pos;      /* stream offset of buf[start] */
  uint64_t limit;    /* stream offset where reading stops (end of the data section) */
  bool eof;
  /* Regular files are mapped instead of read (no copy through the kernel): map[0, map_len) holds the file
   * from map_off on (page aligned). Whole (the usual case): the file's every byte, mapped until the source is
   * closed, pages given back below released; else a window at a time, the windows behind unmapped. */
  uint64_t file_size;
  uint8_t *map;
  size_t map_len;
  uint64_t map_off;
  bool whole;
  uint64_t released;     /* whole: the pages below this offset were given back */
  uint64_t next_release; /* whole: rsp_source_release_due once the position reaches this */
  uint64_t prefetched;   /* whole: the bytes up to this offset were asked into the cache */
} rsp_source;

bool rsp_source_open(rsp_source *src, const char *path, GError **error);
void rsp_source_close(rsp_source *src);
/* Exact positioned read (file mode only). */
bool rsp_source_pread(rsp_source *src, void *dst, size_t len, uint64_t offset, const char *what,
                      GError **error);
/* Makes N bytes available from the current position; returns NULL with *AVAILABLE set to what
 * is left when the stream ends first, or NULL with ERROR set on an I/O error. */
const uint8_t *rsp_source_peek_any(rsp_source *src, size_t n, size_t *available, GError **error);
static inline const uint8_t *rsp_source_peek(rsp_source *src, size_t n, size_t *available, GError **error)
{
  /* the usual case, twice per record, inline: a whole mapping (map_off 0) with the N bytes inside it */
  if (src->whole && src->pos + n <= src->limit && src->pos + n <= src->map_len)
    return src->map + src->pos;
  return rsp_source_peek_any(src, n, available, error);
}
void rsp_source_consume(rsp_source *src, size_t n);
/* Positions the sequential stream at OFFSET (file mode) and stops it at LIMIT. */
bool rsp_source_seek(rsp_source *src, uint64_t offset, uint64_t limit, GError **error);
/* Whether P (from a peek) stays valid until the source is closed: it lies in a whole mapping. */
static inline bool rsp_source_lasting(const rsp_source *src, const void *p)
{
  return src->whole && (const uint8_t *)p >= src->map && (const uint8_t *)p < src->map + src->map_len;
}
/* Whether the position has moved far enough since the last release for another to be worth a look. */
bool rsp_source_release_due(const rsp_source *src);
/* The bytes below offset BELOW (and below the position) are no longer needed: their pages are given back (a
 * later touch maps them again, from the page cache or the file: wrong bounds cost time, never bytes). */
void rsp_source_release(rsp_source *src, uint64_t below);

/* ---- errors ------------------------------------------------------------------------------ */
void rsp_set_error(GError **error, RspReaderErrorCode code, const char *path, uint64_t offset,
                   const char *fmt, ...) G_GNUC_PRINTF(5, 6);

/* ---- ordered-events.c: global time order across CPUs ------------------------------------- */
typedef struct rsp_queued {
  uint64_t time;
  uint64_t seq;    /* file order, breaks ties */
  uint64_t offset; /* file offset of the record */
  uint8_t *record;
  uint32_t chunk;  /* the chunk holding its copy, or UINT32_MAX: held in place */
  uint32_t evsel; /* index, or UINT32_MAX */
} rsp_queued;

typedef struct rsp_ordered_events {
  rsp_queued *q; /* queued and not yet deliverable, in arrival order */
  size_t n, cap;
  rsp_queued *rq; /* deliverable, sorted: rq[head..rn) */
  size_t rn, rcap;
  size_t head;   /* the next to deliver */
  uint64_t next_flush; /* events at or before this time may go at the next round */
  uint64_t max_time;
  uint64_t last_delivered_time;
  uint64_t seq;
  /* record storage: chunks with live counts, recycled when empty */
  GPtrArray *chunks;
  GArray *chunk_used; /* size_t used bytes per chunk */
  GArray *chunk_live; /* size_t live records per chunk */
  GArray *free_chunks;
  uint32_t cur_chunk;
  size_t bytes_buffered;
  size_t max_bytes;
  uint64_t out_of_order;
  uint64_t max_buffered;
  rsp_queued *tmp; /* merge buffer: trades places with rq when a sort ends there */
  size_t tmp_cap;
} rsp_ordered_events;

void rsp_oe_init(rsp_ordered_events *oe, size_t max_bytes);
void rsp_oe_free(rsp_ordered_events *oe);
/* Queues RECORD: by its address when LASTING (it stays valid until delivered: the file's mapping), else a copy. */
void rsp_oe_queue(rsp_ordered_events *oe, const void *record, size_t size, uint64_t time,
                  uint64_t offset, uint32_t evsel, bool lasting);
/* The lowest file offset of a record held in place and not yet delivered; UINT64_MAX when none is. */
uint64_t rsp_oe_min_lasting_offset(const rsp_ordered_events *oe);
/* FINISHED_ROUND: what came before the previous round's maximum may now go. */
void rsp_oe_round(rsp_ordered_events *oe);
/* End of input: everything may go. */
void rsp_oe_flush_all(rsp_ordered_events *oe);
/* The next deliverable entry, or NULL; the previous one's storage is released. */
const rsp_queued *rsp_oe_pop(rsp_ordered_events *oe);
/* The next deliverable entry without taking it, or NULL. */
const rsp_queued *rsp_oe_peek(const rsp_ordered_events *oe);
/* The deliverable entry K after the next one, or NULL. */
const rsp_queued *rsp_oe_peek_at(const rsp_ordered_events *oe, size_t k);
bool rsp_oe_over_budget(const rsp_ordered_events *oe);
/* Over budget without a FINISHED_ROUND: let the oldest half go. */
void rsp_oe_flush_half(rsp_ordered_events *oe);

/* ---- sample.c: record decoding ----------------------------------------------------------- */
typedef struct rsp_id_layout {
  bool have_identifier;  /* every attr has PERF_SAMPLE_IDENTIFIER */
  int sample_id_pos;     /* u64 index of the id in a sample, or -1 */
  int trailer_id_pos;    /* u64 index of the id counted from the end of a trailer, or -1 */
} rsp_id_layout;

/* Zeroes EV, an event's storage (zeroed or holding an event): of the parts rarely set, those its dirty says. */
void rsp_event_clear(rsp_event *ev);
/* Decodes REC (SIZE bytes) into EV. EVSEL is the attr the record belongs to (NULL when the
 * recording has none usable). Returns false with ERROR naming OFFSET when the record is
 * inconsistent with its attr. */
bool rsp_decode_record(const uint8_t *rec, size_t size, const rsp_evsel *evsel, uint64_t offset,
                       const char *path, rsp_event *ev, GError **error);
/* Where the RAW field of a SAMPLE record of ATTR should be, to prefetch it (not checked as decoding checks:
 * only to be looked at by rsp_decode_record); NULL when the layout does not say. */
const uint8_t *rsp_sample_raw_guess(const uint8_t *rec, size_t size, const struct perf_event_attr *attr);
/* The cpu (-1 when the sample has none) and the RAW field (NULL, 0 when it has none) of a SAMPLE record of ATTR, found
 * without decoding the rest, where rsp_decode_record finds them; false when a field before them does not fit the
 * record or the layout does not say (PERF_SAMPLE_READ): decode it then. */
bool rsp_sample_cpu_raw(const uint8_t *rec, size_t size, const struct perf_event_attr *attr, int32_t *cpu,
                        const uint8_t **raw, uint32_t *raw_size);
/* Reads only the id of a record (to find its evsel). Returns false if it has none. */
bool rsp_record_id(const uint8_t *rec, size_t size, const rsp_id_layout *layout,
                   const struct perf_event_attr *attr0, uint64_t *id);
/* Reads only the time of a record; false if it carries none. */
bool rsp_record_time(const uint8_t *rec, size_t size, const struct perf_event_attr *attr,
                     uint64_t *time);
void rsp_compute_id_layout(rsp_id_layout *layout, const rsp_evsel *const *evsels, unsigned n);

/* ---- tracing-data.c: perf's tracing data blob -> libtraceevent --------------------------- */
/* Parses the blob (file feature TRACING_DATA or pipe HEADER_TRACING_DATA) into TEP. Returns
 * false with ERROR naming OFFSET on a malformed blob. KALLSYMS/KALLSYMS_SIZE receive a copy of
 * the kallsyms text the blob may hold. */
bool rsp_parse_tracing_data(struct tep_handle *tep, const uint8_t *data, size_t size,
                            const char *path, uint64_t offset, char **kallsyms,
                            size_t *kallsyms_size, GError **error);
/* tep_parse_event on untrusted format text: the fields only, never its print format. */
int rsp_tep_parse_format(struct tep_handle *tep, const char *text, size_t len, const char *sys);
/* Builds the rsp_field list of a tracepoint evsel from TEP. */
void rsp_evsel_bind_tracepoint(rsp_evsel *evsel, struct tep_handle *tep, GStringChunk *strings);

/* ---- header.c: feature sections ---------------------------------------------------------- */
typedef struct rsp_event_desc {
  struct perf_event_attr attr;
  char *name;
  uint64_t *ids;
  unsigned n_ids;
} rsp_event_desc;

typedef struct rsp_reader rsp_reader;
/* Parses one feature section. False with ERROR naming OFFSET when it is malformed; the caller
 * decides whether that rejects the file (rsp_feature_required) or is a warning. */
bool rsp_parse_feature(rsp_reader *r, unsigned feat, const uint8_t *data, size_t size,
                       uint64_t offset, GError **error);

/* Whether a malformed section of feature FEAT rejects the file: only what decoding needs
 * (the tracing data's event formats). The others are described in a warning and skipped. */
bool rsp_feature_required(unsigned feat);

/* ---- evsel-name.c: names of attrs the file does not name ---------------------------------- */
typedef struct rsp_event_type {
  uint64_t id;      /* the attr's config */
  uint32_t type;    /* the attr's type, when the source says it (simpleperf), else UINT32_MAX */
  const char *name; /* interned */
} rsp_event_type;

/* perf's generic name of an attr (evsel__name): "cycles:HG", "cpu-clock", "raw 0x1234"... */
char *rsp_evsel_generic_name(const struct perf_event_attr *attr);
/* A HEADER_EVENT_TYPE record or an entry of the old event_types header section (TYPE UINT32_MAX),
 * or a line of simpleperf's event_type_info (TYPE known). */
void rsp_reader_add_event_type(rsp_reader *r, uint32_t type, uint64_t id, const uint8_t *name,
                               size_t len);
/* The event type naming E: one of simpleperf's for its (type, config) when perf's own name would
 * be a number (tracepoints, raw and PMU events); else the one entry of its config when exactly
 * one entry and one attr have that config; else NULL. */
const char *rsp_reader_event_type_name(const rsp_reader *r, const rsp_evsel *e);

/* ---- decompress.c: PERF_RECORD_COMPRESSED (zstd) ------------------------------------------ */
typedef struct rsp_decompressor rsp_decompressor;
rsp_decompressor *rsp_decompressor_new(void);
void rsp_decompressor_free(rsp_decompressor *d);
/* Appends the records of one COMPRESSED payload to the pending output. */
bool rsp_decompressor_feed(rsp_decompressor *d, const uint8_t *data, size_t size,
                           const char *path, uint64_t offset, GError **error);
/* The next complete record, or NULL when none is complete (the rest waits for more input). */
const uint8_t *rsp_decompressor_next(rsp_decompressor *d, size_t *size, const char *path,
                                     uint64_t offset, GError **error);
size_t rsp_decompressor_pending(const rsp_decompressor *d);
uint64_t rsp_decompressor_total_out(const rsp_decompressor *d);

/* ---- ftrace-source.c: the ftrace side stream (FILE.ftrace/) ------------------------------- */
typedef struct rsp_ftrace rsp_ftrace;
typedef struct rsp_ftrace_event {
  uint64_t time;
  int32_t cpu;
  uint16_t type_id;   /* common_type: the tracepoint id */
  const void *data;   /* the trace entry, laid out as perf's RAW payload */
  uint32_t size;
  uint64_t offset;    /* in its cpu's file */
} rsp_ftrace_event;

rsp_ftrace *rsp_ftrace_open(const char *dir, GError **error);
void rsp_ftrace_close(rsp_ftrace *ft);
/* The oldest event not yet popped, across CPUs (valid until the next peek); NULL when none is left. */
const rsp_ftrace_event *rsp_ftrace_peek(rsp_ftrace *ft);
void rsp_ftrace_pop(rsp_ftrace *ft);
/* The capture's CPUs one at a time: their number, and the next event of the I-th (false when it has no more). An
 * event's DATA stays valid until the pages under it are released (rsp_ftrace_cpu_release) or the capture closed. */
unsigned rsp_ftrace_n_cpus(const rsp_ftrace *ft);
int rsp_ftrace_cpu_number(const rsp_ftrace *ft, unsigned i);
bool rsp_ftrace_cpu_next(rsp_ftrace *ft, unsigned i, rsp_ftrace_event *out);
/* The I-th CPU's events below file offset BELOW are no longer needed: their pages are given back. */
void rsp_ftrace_cpu_release(rsp_ftrace *ft, unsigned i, uint64_t below);
struct tep_handle *rsp_ftrace_tep(rsp_ftrace *ft);
uint64_t rsp_ftrace_missed(const rsp_ftrace *ft);

/* The merge's state (ftrace-merge.c). */
typedef struct rsp_ftrace_merge rsp_ftrace_merge;

/* ---- reader.c ------------------------------------------------------------------------------- */
struct rsp_reader {
  char *path;
  rsp_source src;
  rsp_reader_options opts;
  rsp_header_info info;
  rsp_reader_stats stats;

  GPtrArray *evsels;      /* rsp_evsel* */
  GHashTable *id_to_evsel; /* uint64 id -> rsp_evsel* */
  rsp_id_layout layout;
  GPtrArray *event_descs; /* rsp_event_desc* from EVENT_DESC */
  GArray *event_types;    /* rsp_event_type: HEADER_EVENT_TYPE records, old event_types section */
  GPtrArray *warnings;    /* char*: what was wrong but skipped (a malformed optional feature) */
  GError *deferred;       /* a read error held back until the events read before it are out */
  GStringChunk *strings;
  GArray *build_ids;      /* rsp_build_id */
  struct tep_handle *tep;
  char *tracing_kallsyms;
  size_t tracing_kallsyms_size;
  bool have_tracing_data;

  rsp_ordered_events oe;
  uint64_t keep_from;     /* the caller still uses the events whose records lie from this file offset on */
  rsp_decompressor *decomp;
  uint64_t decomp_offset; /* offset of the COMPRESSED record being unpacked */
  bool input_done;
  bool names_resolved;
  rsp_event ev;            /* the event handed out */
  rsp_event *out;          /* where the event being read is decoded: &ev, or rsp_reader_next_to's */
  GPtrArray *immediates;   /* records without a timestamp, delivered as they come (as perf does) */
  GArray *immediate_offsets;
  GArray *immediate_evsels;
  size_t immediate_next;
  uint64_t *id_keys;       /* sorted ids and their evsels, for the per-record lookup */
  rsp_evsel **id_vals;
  size_t n_id;
  bool defer_decoding;     /* rsp_reader_defer_decoding, and no time window */
  rsp_evsel **id_flat;     /* the same by id - id_base when the ids span less than ID_FLAT_MAX (perf numbers them
                              in a row): a lookup per record without a bisection; NULL otherwise */
  uint64_t id_base, id_span;
  bool evsels_dirty;
  rsp_ftrace *ftrace;        /* the side stream, when merged */
  rsp_ftrace_merge *fmerge;  /* ...and the merge's state */
  uint8_t *scratch;        /* aligned copy of a record that sits unaligned in the stream */
  size_t scratch_cap;
  bool flushed_all;
  GKeyFile *metadata;      /* FILE.meta, when rsp-record wrote one */
  /* A group read being split into one sample per member (reader.c, next_group_member) */
  uint8_t *group_rec;      /* a copy of the leader's sample record */
  size_t group_rec_cap;
  uint64_t group_offset;
  uint32_t group_evsel;    /* the leader's evsel index */
  uint32_t group_next;     /* the member to deliver next; 0: no split in progress */
  GHashTable *group_counts;/* id -> the member's last count (uint64 in a pointer-sized box) */
  /* a time window (time-window.c) */
  uint64_t window_stop;    /* records all stamped after this end the reading */
  bool window_past;        /* ...the rest of the file is */
  uint64_t window_max_seen; /* the latest timestamp read */
  uint64_t window_max_before_prev_round; /* ...before the last FINISHED_ROUND */
  uint64_t window_rounds;   /* FINISHED_ROUNDs read */
};

/* ---- time-window.c: a windowed read (rsp_reader_options.window) ---------------------------- */
/* Sets the window's absolute bounds once its origin (stats.recording_start) is known. */
void rsp_window_resolve(rsp_reader *r);
/* SAMPLE, SWITCH, SWITCH_CPU_WIDE: the records a window drops. */
bool rsp_window_per_event(uint32_t type);
/* Whether a record of TYPE stamped T is kept (the earliest times seen are noted on the way). */
bool rsp_window_keep(rsp_reader *r, uint32_t type, uint64_t t);
/* A FINISHED_ROUND was read: decides whether the rest of the file is past the window. */
void rsp_window_round(rsp_reader *r);
/* Whether a kept record stamped T lies outside the window. */
bool rsp_window_outside(const rsp_reader *r, uint64_t t);

/* ---- file-index.c: FILE.rsp-index -------------------------------------------------------------- */
/* A windowed read of a file: reads (or writes) the index and, when it is valid, processes the records before the
 * window's first round and positions the source there. False with ERROR only on a read error. */
bool rsp_index_apply(rsp_reader *r, GError **error);
/* reader.c: the timestamp of a record (its attr found by its id); process_record of one record */
bool rsp_reader_record_time(rsp_reader *r, const uint8_t *rec, size_t size, uint64_t *time);
bool rsp_reader_process_record(rsp_reader *r, const uint8_t *rec, size_t size, uint64_t offset, GError **error);

/* reader.c, for the merge: reading on (the next record of the file, an error waiting in r->deferred, or at the
 * stream's end the ordering buffer's rest made deliverable, once; false when both are done), the end of the events
 * (NULL, with that error), delivering a record (decoded into r->out) or an event already decoded there (its counts),
 * the records without a timestamp, prefetching what the next deliveries from the ordering buffer read */
bool rsp_reader_read_on(rsp_reader *r);
const rsp_event *rsp_reader_end_of_stream(rsp_reader *r, GError **error);
const rsp_event *rsp_reader_deliver(rsp_reader *r, const uint8_t *rec, uint64_t offset, uint32_t evsel,
                                    GError **error);
const rsp_event *rsp_reader_delivered(rsp_reader *r, rsp_event *ev);
const rsp_event *rsp_reader_deliver_immediate(rsp_reader *r, GError **error);
void rsp_reader_clear_immediates(rsp_reader *r);
/* Forgets the immediates once all are handed out (inline: the merge asks before every event). */
static inline void rsp_reader_reset_immediates(rsp_reader *r)
{
  if (r->immediates->len && r->immediate_next >= r->immediates->len)
    rsp_reader_clear_immediates(r);
}
/* The ordering buffer's next entry delivered (it must have one), what the deliveries after it read fetched ahead. */
const rsp_event *rsp_reader_deliver_queued(rsp_reader *r, GError **error);

/* ---- ftrace-merge.c: the ftrace side stream merged into perf's events ------------------------- */
/* Opens FILE.ftrace/ (or the options' ftrace_dir) when there is one and perf recorded on CLOCK_MONOTONIC;
 * else notes why not (stats.ftrace_note). */
void rsp_ftrace_merge_open(rsp_reader *r);
/* The next event of the merged streams (rsp_reader_next's, when r->ftrace is open). */
const rsp_event *rsp_ftrace_merge_next(rsp_reader *r, GError **error);
void rsp_ftrace_merge_close(rsp_reader *r);
/* A SAMPLE record of tracepoint evsel E stamped TIME, read from the file and queued for ordering: when the capture
 * holds its tracepoint, the capture's copy of the same hit (its twin) is looked for and marked, to be dropped. */
void rsp_ftrace_merge_queued(rsp_reader *r, const rsp_evsel *e, const uint8_t *rec, size_t size, uint64_t time);

/* Records a warning ("FILE: at byte offset N (0xN): ..."), as rsp_set_error words an error. */
void rsp_reader_warn(rsp_reader *r, uint64_t offset, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

/* Called once the attrs (and names) are known: binds names, tracepoints, id layout. */
void rsp_reader_finish_evsels(rsp_reader *r);
rsp_evsel *rsp_reader_add_evsel(rsp_reader *r, const struct perf_event_attr *attr, size_t attr_size,
                                const uint64_t *ids, unsigned n_ids);
