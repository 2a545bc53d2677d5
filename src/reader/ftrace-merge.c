/* Merging the ftrace side stream (FILE.ftrace/, read by ftrace-source.c) into perf's events by timestamp: perf's
 * events are pulled ahead of their delivery into a lookahead, where an ftrace event looks for its twin (the same
 * tracepoint hit, which perf recorded too: dropped) among those close to it in time; the others are delivered
 * in time order between perf's. */
#include "reader/reader-private.h"

#include <string.h>
#include <traceevent/event-parse.h>

/* Buckets of the keyed entries' index (a power of two): the lookahead holds a few hundred entries. */
#define RSP_LA_BUCKETS 4096u

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
      r->ftrace_evsels = g_new0(rsp_evsel *, 1u << 16);
      r->perf_twinnable = g_byte_array_new();
      r->la_cap = 1024;
      r->lookahead = g_new(rsp_lookahead, r->la_cap);
      r->la_keyed = g_new0(uint64_t, 2 * RSP_LA_BUCKETS);
      r->key_plans = g_ptr_array_new_with_free_func(g_free);
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

/* The evsel of an ftrace event: perf's own for the same tracepoint, or one made for it. Found once per id, then
 * read from a table indexed by the id (a hash table lookup, twice per ftrace event, was 77 M instructions on
 * deep3m). */
static rsp_evsel *ftrace_evsel(rsp_reader *r, uint16_t id)
{
  rsp_evsel *hit = r->ftrace_evsels[id];
  if (hit)
    return hit == NO_EVSEL ? NULL : hit;
  rsp_evsel *found = NULL;
  struct tep_event *te = tep_find_event(rsp_ftrace_tep(r->ftrace), id);
  if (te) {
    for (unsigned i = 0; i < r->evsels->len && !found; i++) {
      rsp_evsel *e = g_ptr_array_index(r->evsels, i);
      if (names_tracepoint(e, te))
        found = e;
    }
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
  r->ftrace_evsels[id] = found ? found : NO_EVSEL;
  return found;
}

/* How far apart perf and ftrace may stamp the same tracepoint hit. Measured here: perf's copy is
 * 0.4 to 30 us later (median 0.7 us) on a cold-cache grep; the margin covers a loaded machine. */
#define RSP_FTRACE_MATCH_AFTER_NS 200000u
#define RSP_FTRACE_MATCH_BEFORE_NS 5000u

/* What tracepoint_key reads of an evsel: its fields but the common ones, in format order, worked out once per evsel
 * (going through every field and skipping the common ones per event was a quarter of the key's instructions). */
typedef struct key_field {
  uint32_t offset, size;
  bool number, string, dynamic, relative;
} key_field;

typedef struct key_plan {
  const rsp_evsel *evsel;
  unsigned n;
  key_field f[];
} key_plan;

static const key_plan *key_plan_of(rsp_reader *r, const rsp_evsel *e)
{
  if (e->index >= r->key_plans->len)
    g_ptr_array_set_size(r->key_plans, (guint)e->index + 1);
  key_plan *kp = g_ptr_array_index(r->key_plans, e->index);
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
  }
  g_ptr_array_index(r->key_plans, e->index) = kp;
  return kp;
}

/* A hash of what identifies one tracepoint hit in both streams: the tracepoint, the cpu and the
 * field values (not the raw bytes: padding and the tails of char arrays differ between copies). */
static uint64_t tracepoint_key(rsp_reader *r, const rsp_evsel *e, int32_t cpu, const uint8_t *raw, uint32_t size)
{
  const key_plan *kp = key_plan_of(r, e);
  uint64_t h = 1469598103934665603ull ^ (e->attr.config * 0x9e3779b97f4a7c15ull) ^ (uint64_t)(uint32_t)cpu;
  h *= 1099511628211ull;
  for (unsigned f = 0; f < kp->n; f++) {
    const key_field *fd = &kp->f[f];
    /* the field's bytes as rsp_event_field_bytes and rsp_event_field_u64 read them, written out here: two calls
     * per field were a tenth of the decode */
    uint32_t off = fd->offset, flen = fd->size;
    bool in = raw && (uint64_t)fd->offset + fd->size <= size;
    if (in && fd->dynamic) {
      uint32_t loc;
      memcpy(&loc, raw + fd->offset, 4);
      off = loc & 0xffff;
      flen = loc >> 16;
      if (fd->relative)
        off += fd->offset + fd->size;
      in = (uint64_t)off + flen <= size;
    }
    if (fd->number) {
      uint64_t v = 0;
      if (in && !fd->dynamic) {
        switch (flen) {
        case 1: v = raw[off]; break;
        case 2: { uint16_t x; memcpy(&x, raw + off, 2); v = x; break; }
        case 4: { uint32_t x; memcpy(&x, raw + off, 4); v = x; break; }
        case 8: memcpy(&v, raw + off, 8); break;
        default: break;
        }
      }
      /* a value hashes as its eight bytes */
      h = (h ^ v) * 0xff51afd7ed558ccdull;
      h ^= h >> 29;
      h = (h ^ 0xff) * 1099511628211ull; /* field separator */
      continue;
    }
    const uint8_t *p = in ? raw + off : (const uint8_t *)"";
    size_t len = in ? flen : 0;
    /* eight bytes a step; a string up to its NUL, found in the word that holds it (a memchr and a memcpy call per
     * string were a fifth of the key) */
    bool str = fd->string;
    size_t i = 0;
    for (; i < len; i += 8) {
      size_t n = len - i < 8 ? len - i : 8;
      uint64_t w = 0;
      if (n == 8) {
        memcpy(&w, p + i, 8);
        w = GUINT64_FROM_LE(w); /* byte k at bits 8k, as below */
      } else
        for (size_t k = 0; k < n; k++)
          w |= (uint64_t)p[i + k] << (8 * k);
      if (str) {
        uint64_t z = (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull; /* its lowest bit: the first NUL */
        if (n < 8)
          z &= (1ull << (8 * n)) - 1;
        if (z) {
          unsigned k = (unsigned)__builtin_ctzll(z) / 8;
          w = k ? w & (~0ull >> (64 - 8 * k)) : 0;
          h = (h ^ w) * 0xff51afd7ed558ccdull;
          h ^= h >> 29;
          i += k;
          break;
        }
      }
      h = (h ^ w) * 0xff51afd7ed558ccdull;
      h ^= h >> 29;
    }
    if (i > len)
      i = len;
    h = (h ^ i ^ 0xff00) * 1099511628211ull; /* the length, and a field separator */
  }
  return h | 1; /* never 0: 0 marks events that cannot be twins */
}

/* Whether perf's events of evsel E may have a twin in the capture: its tracepoint is one of the capture's (by id or
 * by name, as ftrace_evsel finds perf's evsel of an ftrace event). Most are not (sched_switch, the socket
 * tracepoints): hashing their events for nothing was half of tracepoint_key's cost on deep3m. */
bool rsp_ftrace_note_twinnable(rsp_reader *r, const rsp_evsel *e)
{
  if (e->index >= r->perf_twinnable->len) {
    unsigned old = r->perf_twinnable->len;
    g_byte_array_set_size(r->perf_twinnable, e->index + 1);
    memset(r->perf_twinnable->data + old, 0, e->index + 1 - old);
  }
  struct tep_handle *tep = rsp_ftrace_tep(r->ftrace);
  bool found = false;
  for (int i = 0; i < tep_get_events_count(tep) && !found; i++) {
    const struct tep_event *te = tep_get_event(tep, i);
    found = (uint64_t)te->id == e->attr.config || names_tracepoint(e, te);
  }
  r->perf_twinnable->data[e->index] = found ? 1 : 2;
  return found;
}

/* Takes entry number AT, whose successor in its bucket is NEXT, off the front of its bucket of la_keyed, if it is
 * there: it is dropped from the lookahead, or can be no twin any more. */
static void unchain_first(rsp_reader *r, uint64_t key, size_t at, uint64_t next)
{
  uint64_t *first = &r->la_keyed[key & (RSP_LA_BUCKETS - 1)];
  if (*first != at + 1)
    return;
  *first = next;
  if (!next)
    first[RSP_LA_BUCKETS] = 0;
}

static void lookahead_prune(rsp_reader *r, uint64_t horizon)
{
  /* the horizon only moves forward: count on from where the last call stopped */
  size_t drop = r->la_droppable;
  while (drop < r->la_next) {
    const rsp_lookahead *l = rsp_la_at(r, drop);
    if (l->time + RSP_FTRACE_MATCH_AFTER_NS >= horizon)
      break;
    drop++;
  }
  r->la_droppable = drop;
  /* dropped once they are half of it, not one by one: when the next ftrace event lies far ahead, the
   * lookahead holds every perf event until then, and moving it per rsp_reader_delivered event was quadratic (7 s for a
   * 180 MB recording whose perf side alone decodes in 0.25 s). A ring: the entries that stay are not moved
   * (moving them was 186 M instructions of g_array_remove_range on deep3m) */
  size_t n = drop - r->la_first;
  if (n == 0 || n * 2 < r->la_end - r->la_first)
    return;
  for (size_t i = r->la_first; i < drop; i++) {
    const rsp_lookahead *l = rsp_la_at(r, i);
    if (l->key)
      unchain_first(r, l->key, i, l->next_same);
    if (!l->owned)
      continue;
    if (l->record != r->la_current)
      g_free(l->record);
    else
      r->la_current_orphan = true; /* still handed out: freed when the next one is */
  }
  r->la_first = drop;
  if (r->la_scan < drop)
    r->la_scan = drop;
}

/* A new entry at the end of the lookahead, twice the room when it is full (the entries keep their numbers). Filled
 * in place: an entry built on the stack and copied in stalled on store forwarding (its byte-wide fields stored, then
 * loaded 16 bytes at a time: a third of lookahead_pull's time on deep3m). */
static rsp_lookahead *lookahead_append(rsp_reader *r)
{
  if (r->la_end - r->la_first == r->la_cap) {
    size_t cap = r->la_cap * 2;
    rsp_lookahead *ring = g_new(rsp_lookahead, cap);
    for (size_t k = r->la_first; k < r->la_end; k++)
      ring[k & (cap - 1)] = *rsp_la_at(r, k);
    g_free(r->lookahead);
    r->lookahead = ring;
    r->la_cap = cap;
  }
  return rsp_la_at(r, r->la_end++);
}

/* The decoded events of the lookahead's tracepoints are kept in a ring, in pull order (they are dropped from
 * the lookahead in that order): the slots from la_ring_tail (the oldest still in the lookahead) to la_ring_head. */
static rsp_event *la_slot(const rsp_reader *r, uint64_t slot)
{
  return &r->la_ring[slot & (r->la_ring_cap - 1)];
}

static uint64_t la_slot_new(rsp_reader *r)
{
  if (r->la_ring_head - r->la_ring_tail < r->la_ring_cap)
    return r->la_ring_head++; /* (the tail noted is at or before the true one) */
  /* the oldest slot in use: that of the lookahead's first decoded entry */
  r->la_ring_tail = r->la_ring_head;
  for (size_t i = r->la_first; i < r->la_end; i++)
    if (rsp_la_at(r, i)->decoded) {
      r->la_ring_tail = rsp_la_at(r, i)->slot;
      break;
    }
  /* over half full: twice the room (so that the look for the tail above comes at most once per half a ring),
   * the slots kept in place */
  if (r->la_ring_head - r->la_ring_tail >= r->la_ring_cap / 2) {
    size_t cap = r->la_ring_cap ? r->la_ring_cap * 2 : 1024;
    rsp_event *ring = g_new0(rsp_event, cap); /* zeroed: rsp_event.dirty */
    for (uint64_t k = r->la_ring_tail; k < r->la_ring_head; k++)
      ring[k & (cap - 1)] = *la_slot(r, k);
    g_free(r->la_ring);
    r->la_ring = ring;
    r->la_ring_cap = cap;
  }
  return r->la_ring_head++;
}

/* Enters the last entry pulled, L, in the index of keys (when it has one), at the end of its bucket's chain. */
static void index_key(rsp_reader *r, rsp_lookahead *l)
{
  if (!l->key)
    return;
  uint64_t *first = &r->la_keyed[l->key & (RSP_LA_BUCKETS - 1)], *last = first + RSP_LA_BUCKETS;
  l->next_same = 0;
  /* the chain's entries are dropped from its front (lookahead_prune): a last one still there has a place for the
   * link, else the chain is empty */
  if (*first)
    rsp_la_at(r, *last - 1)->next_same = r->la_end;
  else
    *first = r->la_end; /* 1 + its number */
  *last = r->la_end;
}

/* The lookahead's twin of an ftrace event of KEY at time T: the first entry from la_scan on, up to the first whose
 * time is past T's window, that is not matched yet and has KEY and a time in the window. Found through the index of
 * keys when the entries from la_scan on are in time order (the first past the window is then the first of a later
 * time), else by a scan. A scan was a third of the merge's instructions (17 entries per ftrace event on deep3m:
 * those of the other cpu and perf's untwinnable events between them). The chains run oldest first: the entries at a
 * chain's front that are matched or before la_scan can be no later event's twin (the ftrace events come in time
 * order) and are taken off it, so the twin is mostly the first one looked at (walking chains newest first, through
 * the same task's wakeups of the whole window, was a third of the merge's own time). */
static rsp_lookahead *find_twin(rsp_reader *r, uint64_t key, uint64_t t)
{
  if (!key)
    return NULL;
  if (r->la_unsorted <= r->la_scan) {
    for (uint64_t at = r->la_keyed[key & (RSP_LA_BUCKETS - 1)]; at;) {
      rsp_lookahead *l = rsp_la_at(r, at - 1);
      uint64_t next = l->next_same;
      if (l->matched || at - 1 < r->la_scan) {
        unchain_first(r, l->key, at - 1, next);
      } else {
        if (l->time > t + RSP_FTRACE_MATCH_AFTER_NS)
          return NULL;
        if (l->key == key && l->time + RSP_FTRACE_MATCH_BEFORE_NS >= t)
          return l;
      }
      at = next;
    }
    return NULL;
  }
  for (size_t i = r->la_scan; i < r->la_end; i++) {
    rsp_lookahead *l = rsp_la_at(r, i);
    if (l->time + RSP_FTRACE_MATCH_BEFORE_NS < t)
      continue;
    if (l->time > t + RSP_FTRACE_MATCH_AFTER_NS)
      break;
    if (!l->matched && l->key == key)
      return l;
  }
  return NULL;
}

/* Moves the next perf event out of the ordering buffer into the lookahead; false at the end. */
static bool lookahead_pull(rsp_reader *r, GError **error)
{
  for (;;) {
    const rsp_queued *q = rsp_oe_peek(&r->oe);
    if (q) {
      rsp_reader_prefetch_queued(r);
      q = rsp_oe_pop(&r->oe);
      const struct perf_event_header *h = (const struct perf_event_header *)q->record;
      /* a record in the file's mapping stays there; one in the ordering buffer's chunks goes at the next pop */
      bool lasting = rsp_source_lasting(&r->src, q->record);
      rsp_lookahead *l = lookahead_append(r);
      l->time = q->time;
      l->key = 0;
      l->matched = false;
      l->owned = !lasting;
      l->decoded = false;
      l->evsel = q->evsel;
      l->record = lasting ? q->record : g_memdup2(q->record, h->size);
      l->offset = q->offset;
      l->slot = 0;
      l->next_same = 0;
      if (l->time < r->la_latest)
        r->la_unsorted = r->la_end - 1;
      else
        r->la_latest = l->time;
      rsp_evsel *e = q->evsel < r->evsels->len ? g_ptr_array_index(r->evsels, q->evsel) : NULL;
      if (h->type == PERF_RECORD_SAMPLE && e && e->attr.type == PERF_TYPE_TRACEPOINT && rsp_ftrace_twinnable(r, e)) {
        int32_t cpu;
        const uint8_t *raw;
        uint32_t raw_size;
        if (r->defer_decoding && lasting &&
            rsp_sample_cpu_raw(l->record, h->size, &e->attr, &cpu, &raw, &raw_size)) {
          /* its key from the payload found in place, and the decode left to the model's thread as for the other
           * samples (rsp_reader_deliver): the reader's thread is the slower of the two (the model's waited for it
           * 0.4-0.6 s of 2.0 on deep3m), and decoding here and copying the event out at delivery were a fifth of
           * the merge's time */
          if (raw)
            l->key = tracepoint_key(r, e, cpu, raw, raw_size);
          index_key(r, l);
          return true;
        }
        /* decoded once, for its key and its delivery (where a record that does not decode is decoded again,
         * for the error). A tracepoint the capture does not hold (sched_switch: half of them) has no twin and
         * no key: it is decoded at its delivery, or on the model's thread (rsp_reader_defer_decoding). */
        l->slot = la_slot_new(r);
        rsp_event *tmp = la_slot(r, l->slot);
        l->decoded = rsp_decode_record(l->record, h->size, e, q->offset, r->path, tmp, NULL);
        if (l->decoded && tmp->raw)
          l->key = tracepoint_key(r, e, tmp->cpu, tmp->raw, tmp->raw_size);
        index_key(r, l);
      }
      return true;
    }
    if (r->immediate_next < r->immediates->len)
      return false; /* let the caller hand those out first */
    if (!r->input_done) {
      if (rsp_reader_read_stream(r) == 0)
        r->input_done = true;
      continue;
    }
    if (!r->flushed_all) {
      r->flushed_all = true;
      rsp_oe_flush_all(&r->oe);
      continue;
    }
    r->perf_exhausted = true;
    return false;
  }
}

static const rsp_event *deliver_ftrace(rsp_reader *r, const rsp_ftrace_event *fe, GError **error)
{
  rsp_evsel *e = ftrace_evsel(r, fe->type_id);
  if (r->ftrace_copy_cap < fe->size) {
    g_free(r->ftrace_copy);
    r->ftrace_copy_cap = MAX(fe->size, 4096u);
    r->ftrace_copy = g_malloc(r->ftrace_copy_cap);
  }
  memcpy(r->ftrace_copy, fe->data, fe->size);
  rsp_event *ev = r->out;
  rsp_event_clear(ev);
  ev->type = PERF_RECORD_SAMPLE;
  ev->source = RSP_SOURCE_FTRACE;
  ev->evsel = e;
  ev->offset = fe->offset;
  ev->present = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
  ev->time = fe->time;
  ev->cpu = fe->cpu;
  int32_t pid = -1;
  if (fe->size >= 8)
    memcpy(&pid, r->ftrace_copy + 4, 4); /* common_pid */
  ev->pid = ev->tid = pid;
  ev->period = 1;
  ev->raw = r->ftrace_copy;
  ev->raw_size = fe->size;
  if (!rsp_ftrace_pop(r->ftrace, error))
    return NULL;
  if (e)
    e->n_samples++;
  r->stats.ftrace_read++;
  r->stats.ftrace_added++;
  r->stats.events++;
  return ev;
}

/* Merging: perf's events and the ftrace side stream by time, ftrace's twins of perf events dropped. */
const rsp_event *rsp_ftrace_merge_next(rsp_reader *r, GError **error)
{
  for (;;) {
    if (r->immediate_next < r->immediates->len)
      return rsp_reader_deliver_immediate(r, error);
    rsp_reader_reset_immediates(r);
    const rsp_ftrace_event *fe = rsp_ftrace_peek(r->ftrace);
    bool have_fe = fe != NULL;
    uint64_t fe_time = have_fe ? fe->time : 0; /* (fe is the capture's head: read before it is popped) */
    /* the ftrace instance runs a little longer than perf on both sides: keep only what falls
     * inside perf's recording (its first and last sample) */
    uint64_t first = r->info.sample_time_first, last = r->info.sample_time_last;
    if (have_fe && (fe_time < first || (last && fe_time > last) ||
                    (r->perf_exhausted && !last && fe_time > r->oe.max_time))) {
      r->stats.ftrace_read++;
      r->stats.ftrace_outside++;
      if (!rsp_ftrace_pop(r->ftrace, error))
        return NULL;
      continue;
    }
    /* a time window: the ftrace events outside it go too (the capture is read through, not sought) */
    if (have_fe && r->opts.window) {
      while (!r->stats.window_resolved && !r->perf_exhausted && r->immediate_next >= r->immediates->len)
        if (!lookahead_pull(r, error) && error && *error)
          return NULL; /* the window's origin is the first perf timestamp */
      if (r->ftrace_past_window || rsp_window_outside(r, fe_time)) {
        if (r->ftrace_past_window || fe_time > r->stats.window_hi) {
          r->ftrace_past_window = true;
          have_fe = false;
        } else {
          r->stats.ftrace_read++;
          r->stats.window_dropped++;
          if (!rsp_ftrace_pop(r->ftrace, error))
            return NULL;
          continue;
        }
      }
    }
    /* pull perf events until the ftrace head's window is covered */
    while (!r->perf_exhausted) {
      size_t n = r->la_end;
      if (n > r->la_next && (!have_fe || rsp_la_at(r, n - 1)->time > fe_time + RSP_FTRACE_MATCH_AFTER_NS))
        break;
      if (!lookahead_pull(r, error)) {
        if (error && *error)
          return NULL;
        if (!r->perf_exhausted)
          break; /* immediates arrived */
      }
    }
    if (r->immediate_next < r->immediates->len)
      continue;
    /* a head already looked for with its window complete is no twin: while it waits for the perf events
     * before it to be rsp_reader_delivered, searching again per delivery was quadratic */
    bool checked = have_fe && r->fe_checked && r->fe_checked_path == fe->path && r->fe_checked_offset == fe->offset;
    if (have_fe && !checked) {
      rsp_evsel *fe_evsel = ftrace_evsel(r, fe->type_id);
      uint64_t key = fe_evsel && fe->size >= 8 ? tracepoint_key(r, fe_evsel, fe->cpu, fe->data, fe->size) : 0;
      /* from the first that may still match: the ftrace events come in time order, and perf's twins of the
       * ones before this were looked for there (the ftrace side may run far ahead of perf's deliveries,
       * over the twins it drops: from the start of the lookahead each time was quadratic) */
      while (r->la_scan < r->la_end && rsp_la_at(r, r->la_scan)->time + RSP_FTRACE_MATCH_BEFORE_NS < fe_time)
        r->la_scan++;
      rsp_lookahead *twin = find_twin(r, key, fe_time);
      if (twin) {
        twin->matched = true;
        r->stats.ftrace_read++;
        r->stats.ftrace_duplicates++;
        if (!rsp_ftrace_pop(r->ftrace, error))
          return NULL;
        continue;
      }
      size_t n = r->la_end;
      if (r->perf_exhausted || (n > r->la_first && rsp_la_at(r, n - 1)->time > fe_time + RSP_FTRACE_MATCH_AFTER_NS)) {
        r->fe_checked = true;
        r->fe_checked_path = fe->path;
        r->fe_checked_offset = fe->offset;
      }
    }
    rsp_lookahead *p = r->la_next < r->la_end ? rsp_la_at(r, r->la_next) : NULL;
    const rsp_event *ev;
    if (have_fe && (!p || fe_time < p->time)) {
      ev = deliver_ftrace(r, fe, error);
    } else if (p) {
      r->la_next++;
      if (r->la_current_orphan)
        g_free(r->la_current);
      r->la_current_orphan = false;
      r->la_current = p->owned ? p->record : NULL;
      if (p->decoded) {
        rsp_event *out = r->out;
        *out = *la_slot(r, p->slot);
        ev = rsp_reader_delivered(r, out);
      } else {
        ev = rsp_reader_deliver(r, p->record, p->offset, p->evsel, error);
      }
    } else {
      r->stats.ftrace_missed = rsp_ftrace_missed(r->ftrace);
      return rsp_reader_end_of_stream(r, error);
    }
    lookahead_prune(r, have_fe ? fe_time : UINT64_MAX);
    return ev;
  }
}

void rsp_ftrace_merge_close(rsp_reader *r)
{
  rsp_ftrace_close(r->ftrace);
  if (r->la_current_orphan)
    g_free(r->la_current);
  if (r->lookahead) {
    for (size_t i = r->la_first; i < r->la_end; i++)
      if (rsp_la_at(r, i)->owned)
        g_free(rsp_la_at(r, i)->record);
    g_free(r->lookahead);
    g_free(r->la_ring);
    g_free(r->la_keyed);
  }
  g_free(r->ftrace_evsels);
  if (r->key_plans)
    g_ptr_array_unref(r->key_plans);
  if (r->perf_twinnable)
    g_byte_array_unref(r->perf_twinnable);
  g_free(r->ftrace_copy);
}
