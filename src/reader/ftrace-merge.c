/* Merging the ftrace side stream (FILE.ftrace/, read by ftrace-source.c) into perf's events by timestamp. Most of
 * the capture's events are twins of perf's (the same tracepoint hit, which perf recorded too): those are dropped,
 * the others are delivered in time order between perf's.
 *
 * The twins are found as perf's records are read, before they are ordered: a tracepoint sample of cpu C stamped T
 * marks as its twin the event of C's capture nearest in time that is the same hit (the same tracepoint and field
 * values, same_hit), has a time from T - RSP_FTRACE_MATCH_AFTER_NS to T + RSP_FTRACE_MATCH_BEFORE_NS and is no
 * other's twin. Each cpu's events of both streams come in time order (perf empties each cpu's ring buffer in order;
 * ftrace has a file per cpu), so the twin is mostly the last one looked at before T. An event of the capture is delivered once
 * perf's events ordered so far reach past its time by RSP_FTRACE_MATCH_AFTER_NS (or perf's end): none read later
 * can be its twin.
 * perf's events themselves go from the ordering buffer to the caller as they do without a capture. (Before, every
 * perf event passed through a lookahead where the capture's events looked for their twins at delivery: that was
 * 0.8 s of the reader thread's 2.0 s on deep3m. Then both sides' fields were hashed into keys: 10% of the
 * reader's time, where comparing the payloads of the one or two candidates costs a quarter of that.) */
#include "reader/reader-private.h"

#include <string.h>
#include <traceevent/event-parse.h>

/* How far apart perf and ftrace may stamp the same tracepoint hit. Measured here: perf's copy is
 * 0.4 to 30 us later (median 0.7 us) on a cold-cache grep; the margin covers a loaded machine. */
#define RSP_FTRACE_MATCH_AFTER_NS 200000u
#define RSP_FTRACE_MATCH_BEFORE_NS 5000u

/* Every this many bytes of a cpu's capture delivered, the pages behind are given back: what stays resident is up to
 * this much per cpu (8 MB would be 512 MB on a 64-cpu machine). */
#define RELEASE_STEP (1u << 20)

enum { FT_OPEN, FT_TWIN, FT_OUTSIDE };

/* An event of the capture read and not delivered yet. */
typedef struct ft_entry {
  uint64_t time;
  const uint8_t *data; /* in the capture's mapping */
  uint64_t offset;
  uint32_t size;
  uint16_t type_id;
  uint8_t state;       /* FT_OPEN; FT_TWIN: perf has it (dropped); FT_OUTSIDE: outside perf's recording */
  bool twinnable;      /* perf recorded its tracepoint: it may have a twin */
} ft_entry;

/* A cpu's events read from the capture: a ring of CAP (a power of two) holding those numbered FIRST (the next to
 * deliver) to END; those before SCAN can be no twin of a perf event read later. */
typedef struct ft_queue {
  ft_entry *ring;
  size_t cap, first, end, scan;
  unsigned index; /* the capture's cpu (rsp_ftrace_cpu_next) */
  bool done;      /* the capture has no more of this cpu */
  uint64_t next_release;
} ft_queue;

struct rsp_ftrace_merge {
  ft_queue *queues;
  unsigned n_queues;
  int32_t *queue_of_cpu; /* by cpu number (N_CPU_SLOTS): its queue, or -1 */
  int head;              /* the queue whose front is the oldest, -1: not known */
  rsp_evsel **evsels_by_id; /* by tracepoint id (65536): perf's, or one made for ftrace; NULL: not looked up yet */
  uint8_t *perf_has_id;  /* by tracepoint id: perf recorded that tracepoint (its events may have twins) */
  GPtrArray *key_plans;  /* by evsel index: the fields same_hit reads (key_plan_of) */
  GByteArray *perf_twinnable; /* by perf evsel index: 1 its tracepoint may have twins in the capture, 2 not,
                                 0 not looked at yet */
  bool past_window;      /* the capture's events still to come are after the time window */
  bool fast;             /* perf's next events up to FAST_UNTIL go out at once (rsp_ftrace_merge_next): the capture's
                            oldest open event is later and no perf event read later can be its twin; cleared by
                            whatever changes the capture's queues (a read, a pop, a twin) */
  uint64_t fast_until;
  rsp_event scratch;     /* a perf sample decoded for its fields when they cannot be found in place */
  uint8_t *copy;         /* the payload handed out */
  size_t copy_cap;
};

enum { N_CPU_SLOTS = 4096 };

static ft_entry *q_at(const ft_queue *q, size_t i)
{
  return &q->ring[i & (q->cap - 1)];
}

void rsp_ftrace_merge_open(rsp_reader *r)
{
  if (r->opts.no_ftrace)
    return;
  char *dir = r->opts.ftrace_dir ? g_strdup(r->opts.ftrace_dir)
                                 : g_strconcat(r->path, ".ftrace", NULL);
  if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
    g_free(dir);
    return;
  }
  const rsp_evsel *first = r->evsels->len ? g_ptr_array_index(r->evsels, 0) : NULL;
  if (!first || !first->attr.use_clockid || first->attr.clockid != 1 /* CLOCK_MONOTONIC */) {
    r->stats.ftrace_note = "not merged: perf did not record on CLOCK_MONOTONIC (perf record -k mono)";
  } else {
    GError *e = NULL;
    r->ftrace = rsp_ftrace_open(dir, &e);
    if (!r->ftrace) {
      char *note = g_strdup_printf("not merged: %s", e->message);
      r->stats.ftrace_note = g_string_chunk_insert_const(r->strings, note);
      g_free(note);
      g_clear_error(&e);
    } else {
      r->stats.ftrace_merged = true;
      rsp_ftrace_merge *m = g_new0(rsp_ftrace_merge, 1);
      r->fmerge = m;
      m->evsels_by_id = g_new0(rsp_evsel *, 1u << 16);
      m->perf_has_id = g_new0(uint8_t, 1u << 16);
      m->key_plans = g_ptr_array_new_with_free_func(g_free);
      m->perf_twinnable = g_byte_array_new();
      m->head = -1;
      m->n_queues = rsp_ftrace_n_cpus(r->ftrace);
      m->queues = g_new0(ft_queue, m->n_queues ? m->n_queues : 1);
      m->queue_of_cpu = g_new(int32_t, N_CPU_SLOTS);
      for (unsigned i = 0; i < N_CPU_SLOTS; i++)
        m->queue_of_cpu[i] = -1;
      for (unsigned i = 0; i < m->n_queues; i++) {
        ft_queue *q = &m->queues[i];
        q->cap = 1024;
        q->ring = g_new(ft_entry, q->cap);
        q->index = i;
        q->next_release = RELEASE_STEP;
        int cpu = rsp_ftrace_cpu_number(r->ftrace, i);
        if (cpu >= 0 && cpu < N_CPU_SLOTS)
          m->queue_of_cpu[cpu] = (int32_t)i;
      }
    }
  }
  g_free(dir);
}

/* Marks an id looked up without an evsel found. */
#define NO_EVSEL ((rsp_evsel *)&ftrace_no_evsel)
static const char ftrace_no_evsel;

/* Whether E is perf's evsel of the capture's tracepoint TE: by its name, "system:name". */
static bool names_tracepoint(const rsp_evsel *e, const struct tep_event *te)
{
  if (e->attr.type != PERF_TYPE_TRACEPOINT || !e->name)
    return false;
  size_t ls = strlen(te->system);
  return strncmp(e->name, te->system, ls) == 0 && e->name[ls] == ':' && strcmp(e->name + ls + 1, te->name) == 0;
}

/* The evsel of an ftrace event: perf's own for the same tracepoint (noted in perf_has_id), or one made for it. Found
 * once per id, then read from a table indexed by the id (a hash table lookup, twice per ftrace event, was 77 M
 * instructions on deep3m). */
static rsp_evsel *ftrace_evsel(rsp_reader *r, uint16_t id)
{
  rsp_evsel *hit = r->fmerge->evsels_by_id[id];
  if (hit)
    return hit == NO_EVSEL ? NULL : hit;
  rsp_evsel *found = NULL;
  bool perf_own = false;
  struct tep_event *te = tep_find_event(rsp_ftrace_tep(r->ftrace), id);
  if (te) {
    for (unsigned i = 0; i < r->evsels->len && !found; i++) {
      rsp_evsel *e = g_ptr_array_index(r->evsels, i);
      if (names_tracepoint(e, te))
        found = e;
    }
    perf_own = found != NULL;
    if (!found) {
      struct perf_event_attr attr = {.type = PERF_TYPE_TRACEPOINT, .config = id,
                                     .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                                    PERF_SAMPLE_CPU | PERF_SAMPLE_RAW,
                                     .sample_period = 1};
      found = rsp_reader_add_evsel(r, &attr, sizeof attr, NULL, 0);
      char *name = g_strdup_printf("%s:%s", te->system, te->name);
      found->name = g_string_chunk_insert_const(r->strings, name);
      g_free(name);
      rsp_evsel_bind_tracepoint(found, rsp_ftrace_tep(r->ftrace), r->strings);
    }
  }
  r->fmerge->evsels_by_id[id] = found ? found : NO_EVSEL;
  r->fmerge->perf_has_id[id] = perf_own;
  return found;
}

/* What same_hit reads of an evsel: its fields but the common ones, in format order, worked out once per evsel
 * (going through every field and skipping the common ones per event was a quarter of the instructions, when twins
 * were found by a hash of the fields). */
typedef struct key_field {
  uint32_t offset, size;
  bool number, string, dynamic, relative;
} key_field;

typedef struct key_plan {
  const rsp_evsel *evsel;
  unsigned n;
  bool dynamic; /* a field is found through a location word */
  key_field f[];
} key_plan;

static const key_plan *key_plan_of(rsp_reader *r, const rsp_evsel *e)
{
  if (e->index >= r->fmerge->key_plans->len)
    g_ptr_array_set_size(r->fmerge->key_plans, (guint)e->index + 1);
  key_plan *kp = g_ptr_array_index(r->fmerge->key_plans, e->index);
  if (kp && kp->evsel == e)
    return kp;
  g_free(kp);
  kp = g_malloc0(sizeof *kp + sizeof(key_field) * (e->n_fields ? e->n_fields : 1));
  kp->evsel = e;
  for (unsigned i = 0; i < e->n_fields; i++) {
    const rsp_field *fd = &e->fields[i];
    if (fd->common)
      continue;
    kp->f[kp->n++] = (key_field){ fd->offset, fd->size, fd->kind != RSP_FIELD_STRING && fd->kind != RSP_FIELD_ARRAY,
                                  fd->kind == RSP_FIELD_STRING, fd->dynamic, fd->relative };
    kp->dynamic |= fd->dynamic;
  }
  g_ptr_array_index(r->fmerge->key_plans, e->index) = kp;
  return kp;
}

/* Where field FD of a payload of SIZE bytes lies, as rsp_event_field_bytes and rsp_event_field_u64 find it (written
 * out here: two calls per field were a tenth of the decode); false when it does not lie inside. */
static inline bool field_at(const key_field *fd, const uint8_t *raw, uint32_t size, uint32_t *off, uint32_t *len)
{
  *off = fd->offset;
  *len = fd->size;
  if ((uint64_t)fd->offset + fd->size > size)
    return false;
  if (!fd->dynamic)
    return true;
  uint32_t loc;
  memcpy(&loc, raw + fd->offset, 4);
  *off = (loc & 0xffff) + (fd->relative ? fd->offset + fd->size : 0);
  *len = loc >> 16;
  return (uint64_t)*off + *len <= size;
}

/* A number field's value (0 when it is not inside, or dynamic). */
static inline uint64_t field_number(const uint8_t *raw, bool in, uint32_t off, uint32_t len)
{
  uint64_t v = 0;
  if (in) {
    switch (len) {
    case 1: v = raw[off]; break;
    case 2: { uint16_t x; memcpy(&x, raw + off, 2); v = x; break; }
    case 4: { uint32_t x; memcpy(&x, raw + off, 4); v = x; break; }
    case 8: memcpy(&v, raw + off, 8); break;
    default: break;
    }
  }
  return v;
}

/* Whether payloads A (of evsel A_E) and B (of evsel B_E) are the same tracepoint hit, as far as both streams can
 * tell: the same tracepoint and field values (not the raw bytes: padding and the tails of char arrays differ
 * between copies; a string is its bytes up to its NUL, an array all of its bytes). */
static bool same_hit(rsp_reader *r, const rsp_evsel *a_e, const uint8_t *a, uint32_t a_size, const rsp_evsel *b_e,
                     const uint8_t *b, uint32_t b_size)
{
  if (a_e->attr.config != b_e->attr.config)
    return false;
  const key_plan *ka = key_plan_of(r, a_e), *kb = a_e == b_e ? ka : key_plan_of(r, b_e);
  if (ka->n != kb->n)
    return false;
  for (unsigned f = 0; f < ka->n; f++) {
    const key_field *fa = &ka->f[f], *fb = &kb->f[f];
    if (fa->number != fb->number || fa->string != fb->string)
      return false;
    uint32_t ao, al, bo, bl;
    bool ain = field_at(fa, a, a_size, &ao, &al), bin = field_at(fb, b, b_size, &bo, &bl);
    if (fa->number) {
      if (field_number(a, ain && !fa->dynamic, ao, al) != field_number(b, bin && !fb->dynamic, bo, bl))
        return false;
      continue;
    }
    size_t an = ain ? al : 0, bn = bin ? bl : 0;
    if (fa->string) {
      const uint8_t *z = an ? memchr(a + ao, 0, an) : NULL;
      an = z ? (size_t)(z - (a + ao)) : an;
      z = bn ? memchr(b + bo, 0, bn) : NULL;
      bn = z ? (size_t)(z - (b + bo)) : bn;
    }
    if (an != bn || (an && memcmp(a + ao, b + bo, an) != 0))
      return false;
  }
  return true;
}

/* Whether perf's events of evsel E may have a twin in the capture: its tracepoint is one of the capture's (by id or
 * by name, as ftrace_evsel finds perf's evsel of an ftrace event). Most are not (sched_switch, the socket
 * tracepoints): hashing their events for nothing was half of the key's cost on deep3m, when twins were found by
 * a hash of the fields. */
static bool note_twinnable(rsp_reader *r, const rsp_evsel *e)
{
  GByteArray *tw = r->fmerge->perf_twinnable;
  if (e->index >= tw->len) {
    unsigned old = tw->len;
    g_byte_array_set_size(tw, e->index + 1);
    memset(tw->data + old, 0, e->index + 1 - old);
  }
  struct tep_handle *tep = rsp_ftrace_tep(r->ftrace);
  bool found = false;
  for (int i = 0; i < tep_get_events_count(tep) && !found; i++) {
    const struct tep_event *te = tep_get_event(tep, i);
    found = (uint64_t)te->id == e->attr.config || names_tracepoint(e, te);
  }
  tw->data[e->index] = found ? 1 : 2;
  return found;
}

static bool twinnable(rsp_reader *r, const rsp_evsel *e)
{
  const GByteArray *tw = r->fmerge->perf_twinnable;
  if (e->index < tw->len && tw->data[e->index])
    return tw->data[e->index] == 1;
  return note_twinnable(r, e);
}

/* Reads the next event of Q's cpu from the capture to the end of Q; false when there is none. */
static bool q_read(rsp_reader *r, ft_queue *q)
{
  rsp_ftrace_merge *m = r->fmerge;
  rsp_ftrace_event fe;
  if (q->done || !rsp_ftrace_cpu_next(r->ftrace, q->index, &fe)) {
    q->done = true;
    return false;
  }
  if (q->end - q->first == q->cap) { /* twice the room, the entries keeping their numbers */
    size_t cap = q->cap * 2;
    ft_entry *ring = g_new(ft_entry, cap);
    for (size_t k = q->first; k < q->end; k++)
      ring[k & (cap - 1)] = *q_at(q, k);
    g_free(q->ring);
    q->ring = ring;
    q->cap = cap;
  }
  if (q->first == q->end) {
    m->head = -1; /* a front where there was none: it may be the oldest */
    m->fast = false;
  }
  ft_entry *x = q_at(q, q->end++);
  x->time = fe.time;
  x->data = fe.data;
  x->offset = fe.offset;
  x->size = fe.size;
  x->type_id = fe.type_id;
  /* the capture runs a little longer than perf on both sides: only what falls inside perf's recording (its first and
   * last sample) is kept */
  uint64_t first = r->info.sample_time_first, last = r->info.sample_time_last;
  x->state = fe.time < first || (last && fe.time > last) ? FT_OUTSIDE : FT_OPEN;
  x->twinnable = false;
  if (x->state == FT_OPEN && fe.size >= 8) {
    rsp_evsel *e = ftrace_evsel(r, fe.type_id);
    x->twinnable = e && m->perf_has_id[fe.type_id];
  }
  return true;
}

void rsp_ftrace_merge_queued(rsp_reader *r, const rsp_evsel *e, const uint8_t *rec, size_t size, uint64_t time)
{
  rsp_ftrace_merge *m = r->fmerge;
  if (!twinnable(r, e))
    return;
  int32_t cpu;
  const uint8_t *raw;
  uint32_t raw_size;
  if (!rsp_sample_cpu_raw(rec, size, &e->attr, &cpu, &raw, &raw_size)) {
    if (!rsp_decode_record(rec, size, e, 0, r->path, &m->scratch, NULL))
      return;
    cpu = m->scratch.cpu;
    raw = m->scratch.raw;
    raw_size = m->scratch.raw_size;
  }
  if (!raw || cpu < 0 || cpu >= N_CPU_SLOTS || m->queue_of_cpu[cpu] < 0)
    return;
  ft_queue *q = &m->queues[m->queue_of_cpu[cpu]];
  /* the cpu's capture read past the latest time a twin may have */
  uint64_t until = time + RSP_FTRACE_MATCH_BEFORE_NS;
  while (!q->done && (q->end == q->first || q_at(q, q->end - 1)->time <= until))
    q_read(r, q);
  /* the events ended before this one's window, or taken, can be no twin of a later one either */
  while (q->scan < q->end) {
    const ft_entry *x = q_at(q, q->scan);
    if (x->state == FT_OPEN && x->time + RSP_FTRACE_MATCH_AFTER_NS >= time)
      break;
    q->scan++;
  }
  /* The twin is the nearest same hit, not the first: a tracepoint's hits often carry the same fields (irq 36's
   * handler, over and over), and when perf lost one, the first open one in the window was that lost hit's copy, 100 us
   * earlier, taken as the twin of the next: the next's own copy then came twice, and a handler's entry twice looked
   * like one interrupt nested in another that lasted seconds (a cold tar | gzip: 348 of 17,504 handler events). From
   * the last candidate back, as far as one nearer than the best so far may lie. */
  size_t hi = q->scan;
  while (hi < q->end && q_at(q, hi)->time <= until)
    hi++;
  const key_plan *kp = NULL;
  ft_entry *best = NULL;
  uint64_t best_gap = UINT64_MAX;
  for (size_t i = hi; i-- > q->scan;) {
    ft_entry *x = q_at(q, i);
    uint64_t gap = x->time > time ? x->time - time : time - x->time;
    if ((x->time < time && gap >= best_gap) || x->time + RSP_FTRACE_MATCH_AFTER_NS < time)
      break; /* (the earlier ones lie further away) */
    if (x->state != FT_OPEN || !x->twinnable || rsp_window_outside(r, x->time) || gap >= best_gap)
      continue;
    /* a payload the same byte for byte past the common fields (which differ: flags, preempt count) is the same
     * hit when its fields lie where the format says (no location word to follow): most twins, compared at once */
    const rsp_evsel *xe = m->evsels_by_id[x->type_id];
    bool same_bytes = false;
    if (xe == e && x->size == raw_size) {
      kp = kp ? kp : key_plan_of(r, e);
      same_bytes = !kp->dynamic && memcmp(x->data + 8, raw + 8, raw_size - 8) == 0;
    }
    if (same_bytes || same_hit(r, e, raw, raw_size, xe, x->data, x->size)) {
      best = x;
      best_gap = gap;
    }
  }
  if (best) {
    best->state = FT_TWIN;
    m->fast = false;
  }
}

/* Takes the front of queue QI off it. */
static void q_pop(rsp_reader *r, unsigned qi)
{
  rsp_ftrace_merge *m = r->fmerge;
  ft_queue *q = &m->queues[qi];
  q->first++;
  if (q->scan < q->first)
    q->scan = q->first;
  m->head = -1;
  m->fast = false;
  if (q->first < q->end && q_at(q, q->first)->offset >= q->next_release) {
    rsp_ftrace_cpu_release(r->ftrace, q->index, q_at(q, q->first)->offset);
    q->next_release = q_at(q, q->first)->offset + RELEASE_STEP;
  }
}

/* The oldest event of the capture still to deliver (its queue in *QI), the twins and the events outside perf's
 * recording before it dropped; NULL when none is left. */
static ft_entry *ftrace_head(rsp_reader *r, unsigned *qi)
{
  rsp_ftrace_merge *m = r->fmerge;
  for (;;) {
    if (m->head < 0) {
      ft_entry *best = NULL;
      int at = -1;
      for (unsigned i = 0; i < m->n_queues; i++) {
        ft_queue *q = &m->queues[i];
        if (q->first == q->end && !q_read(r, q))
          continue;
        ft_entry *x = q_at(q, q->first);
        if (!best || x->time < best->time) {
          best = x;
          at = (int)i;
        }
      }
      if (!best)
        return NULL;
      m->head = at;
    }
    ft_queue *q = &m->queues[m->head];
    ft_entry *x = q_at(q, q->first);
    if (x->state == FT_OPEN) {
      *qi = (unsigned)m->head;
      return x;
    }
    r->stats.ftrace_read++;
    if (x->state == FT_TWIN)
      r->stats.ftrace_duplicates++;
    else
      r->stats.ftrace_outside++;
    q_pop(r, (unsigned)m->head);
  }
}

static const rsp_event *deliver_ftrace(rsp_reader *r, unsigned qi, const ft_entry *x)
{
  rsp_ftrace_merge *m = r->fmerge;
  rsp_evsel *e = ftrace_evsel(r, x->type_id);
  if (m->copy_cap < x->size) {
    g_free(m->copy);
    m->copy_cap = MAX(x->size, 4096u);
    m->copy = g_malloc(m->copy_cap);
  }
  memcpy(m->copy, x->data, x->size);
  rsp_event *ev = r->out;
  rsp_event_clear(ev);
  ev->type = PERF_RECORD_SAMPLE;
  ev->source = RSP_SOURCE_FTRACE;
  ev->evsel = e;
  ev->offset = x->offset;
  ev->present = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
  ev->time = x->time;
  ev->cpu = rsp_ftrace_cpu_number(r->ftrace, m->queues[qi].index);
  int32_t pid = -1;
  if (x->size >= 8)
    memcpy(&pid, m->copy + 4, 4); /* common_pid */
  ev->pid = ev->tid = pid;
  ev->period = 1;
  ev->raw = m->copy;
  ev->raw_size = x->size;
  q_pop(r, qi);
  if (e)
    e->n_samples++;
  r->stats.ftrace_read++;
  r->stats.ftrace_added++;
  r->stats.events++;
  return ev;
}

/* Whether every perf event up to time T has been read and ordered: one after it is ready to go, or all are. */
static bool perf_covers(const rsp_reader *r, uint64_t t)
{
  const rsp_ordered_events *oe = &r->oe;
  if (r->input_done && r->flushed_all)
    return true;
  return oe->head < oe->rn && oe->rq[oe->rn - 1].time > t;
}

/* Merging: perf's events and the capture's (but the twins) by time. */
const rsp_event *rsp_ftrace_merge_next(rsp_reader *r, GError **error)
{
  rsp_ftrace_merge *m = r->fmerge;
  /* most calls: perf's next event is older than the capture's next, as the last call found (its work for each of
   * deep3m's 8M events was 14% of the reader's time) */
  if (m->fast && r->immediate_next >= r->immediates->len) {
    const rsp_queued *p = rsp_oe_peek(&r->oe);
    if (p && p->time <= m->fast_until)
      return rsp_reader_deliver_queued(r, error);
  }
  m->fast = false;
  for (;;) {
    if (r->immediate_next < r->immediates->len)
      return rsp_reader_deliver_immediate(r, error);
    rsp_reader_reset_immediates(r);
    unsigned qi = 0;
    ft_entry *fe = m->past_window ? NULL : ftrace_head(r, &qi);
    const rsp_queued *p = rsp_oe_peek(&r->oe);
    bool perf_done = !p && r->input_done && r->flushed_all;
    if (fe && perf_done && !r->info.sample_time_last && fe->time > r->oe.max_time) {
      fe->state = FT_OUTSIDE; /* after perf's last event, when the header does not say when that was */
      continue;
    }
    /* a time window: the capture's events outside it go too (the capture is read through, not sought) */
    if (fe && r->opts.window) {
      if (!r->stats.window_resolved && !perf_done) {
        rsp_reader_read_on(r); /* the window's origin is the first perf timestamp */
        continue;
      }
      if (rsp_window_outside(r, fe->time)) {
        if (fe->time > r->stats.window_hi) {
          m->past_window = true;
        } else {
          r->stats.ftrace_read++;
          r->stats.window_dropped++;
          q_pop(r, qi);
        }
        continue;
      }
    }
    /* perf's events read until none read later can be the twin of the capture's oldest */
    if (fe && !perf_covers(r, fe->time + RSP_FTRACE_MATCH_AFTER_NS)) {
      rsp_reader_read_on(r);
      continue;
    }
    if (fe && (!p || fe->time < p->time))
      return deliver_ftrace(r, qi, fe);
    if (p) {
      m->fast = true; /* until the capture's queues change: perf's events up to FE go first */
      m->fast_until = fe ? fe->time : UINT64_MAX;
      return rsp_reader_deliver_queued(r, error);
    }
    if (rsp_reader_read_on(r))
      continue;
    r->stats.ftrace_missed = rsp_ftrace_missed(r->ftrace);
    return rsp_reader_end_of_stream(r, error);
  }
}

void rsp_ftrace_merge_close(rsp_reader *r)
{
  rsp_ftrace_close(r->ftrace);
  rsp_ftrace_merge *m = r->fmerge;
  if (!m)
    return;
  for (unsigned i = 0; i < m->n_queues; i++)
    g_free(m->queues[i].ring);
  g_free(m->queues);
  g_free(m->queue_of_cpu);
  g_free(m->evsels_by_id);
  g_free(m->perf_has_id);
  g_ptr_array_unref(m->key_plans);
  g_byte_array_unref(m->perf_twinnable);
  g_free(m->copy);
  g_free(m);
}
