/* Reading ahead on a second thread: a reader thread calls rsp_reader_next() and hands the events
 * over in batches. A plain sample or switch record in the file's mapping goes over as a reference to its record (the
 * reader keeps the pages of the batches not yet given back mapped: rsp_reader_keep_from), for the model's thread to
 * decode as it takes it (rsp_reader_defer_decoding), into an event of its own; any other event is copied whole into
 * its batch's storage, with what it points to outside the file's mapping (unpacked from a COMPRESSED record, merged
 * from the ftrace capture: rsp_event_copy), since the reader reuses its buffers at the next call. A few batches
 * circulate between the two threads: the reader fills a free one, the model takes it, and gives it back when it
 * takes the next. The reader's error (or end) travels in the last batch, after the events that came before it. */
#include "model/model-private.h"

#include <pthread.h>
#include <string.h>

/* A reference is 32 bytes where an event is 408. The reader runs ahead by up to 4 batches of 8192 events, and of
 * 1 MB of the file's records (where the events point to: the pages stay mapped, and count in the process's RSS, until
 * the batch comes back): 4 MB, 12,000 events of a recording with deep stacks on every scheduler event, 1.5 ms of
 * the reader. (64 batches and no byte bound held 221 MB of a 1.1 GB recording resident, 57% of rsp-summary's peak;
 * 2 MB batches held 32 MB, which put rsp-summary's peak over 0.3x of a 546 MB file; the model's first events wait
 * 37 ms for libc's debug info, opened on another thread: the reader stands still for a while then, once. The model's
 * pace over the whole file was the same with 1 MB batches as with 2, and with 4 batches as with 16: the model is the
 * slower, and 16 batches kept 17 MB of a recorded build's pages resident at its peak, to no use.) */
enum {
  BATCH_EVENTS = 8192,
  BATCH_RECORD_BYTES = 1024 * 1024,
  BATCH_STORAGE = 512 * 1024, /* grows for a batch whose first event needs more */
  N_BATCHES = 4,
};

/* How many events ahead rsp_event_pipeline_next asks for a deferred record's lines (its head twice as far). */
#define DECODE_AHEAD 6

/* One event of a batch: a whole event in the batch's storage, or the record of one to decode. */
typedef struct event_ref {
  const rsp_event *full; /* NULL: decode RECORD */
  const void *record;
  const rsp_evsel *evsel;
  uint64_t offset;
} event_ref;

/* Each on cache lines of its own (aligned and padded to 64 bytes): the reader counts the events into the batch it
 * fills while the model reads the count of the one it takes, and two batches allocated side by side shared a line. */
typedef struct event_batch {
  _Alignas(64) event_ref *refs;
  unsigned n;
  uint8_t *storage;
  size_t used, cap;
  size_t record_bytes; /* of the file's records its events point into */
  bool last;     /* the reader's last batch: its end or its error */
  GError *error; /* the reader's error, when it stopped on one */
  uint64_t keep_from; /* the lowest file offset of a record its events point into (UINT64_MAX: none) */
  bool out;      /* handed to the model and not given back yet (the reader thread's own view) */
} event_batch;

/* A queue of batches between the two threads (plain pthreads, which ThreadSanitizer follows;
 * GLib's futex-based locks it does not). */
typedef struct batch_queue {
  event_batch *items[N_BATCHES];
  unsigned head, n;
  pthread_cond_t nonempty;
} batch_queue;

/* What one thread writes per event and the other reads sit on cache lines of their own: the model's place in its
 * batch (written per event) shared a line with the stop flag (read by the reader per event), and the line went back
 * and forth between the cores at every event (rsp_event_pipeline_next was 4% of rsp-summary on deep3m, two thirds of
 * it that load). */
struct rsp_event_pipeline {
  rsp_reader *reader;
  GThread *thread;
  pthread_mutex_t lock;      /* guards both queues */
  batch_queue free_batches;  /* model -> reader */
  batch_queue full_batches;  /* reader -> model */
  event_batch *all[N_BATCHES];
  _Alignas(64) int stop;     /* set by the model: read no further (atomic) */
  _Alignas(64) event_batch *cur; /* the batch the model is taking events from (to the end of the struct, whose
                                  * size the alignment rounds up to whole lines) */
  unsigned next;             /* its next event */
  rsp_event decoded;         /* the last event decoded from a reference (the model's thread's) */
  _Alignas(64) rsp_event read; /* where the reader's thread reads an event into */
};

/* An event in a batch's storage, before what it points to outside the file's mapping (8-byte aligned). */
#define EVENT_HEAD ((sizeof(rsp_event) + 7) & ~(size_t)7)

/* The size of EV whole in a batch's storage: the event, and what it points to outside the file's mapping (none when
 * LASTING). */
static size_t whole_size(const rsp_event *ev, bool lasting)
{
  return EVENT_HEAD + (lasting ? 0 : rsp_event_copy_size(ev));
}

/* Copies EV (NEED bytes: whole_size) into B; false when B has events and no room for it. */
static bool batch_add(event_batch *b, const rsp_event *ev, bool lasting, size_t need)
{
  if (b->used + need > b->cap) {
    if (b->n)
      return false;
    g_free(b->storage);
    b->cap = need;
    b->storage = g_malloc(b->cap);
  }
  rsp_event *dst = (rsp_event *)(void *)(b->storage + b->used);
  if (lasting)
    *dst = *ev; /* its pointers point into the file's mapping */
  else
    rsp_event_copy(dst, ev, b->storage + b->used + EVENT_HEAD);
  b->used += need;
  b->refs[b->n++] = (event_ref){ .full = dst };
  return true;
}

static void queue_push(rsp_event_pipeline *p, batch_queue *q, event_batch *b)
{
  pthread_mutex_lock(&p->lock);
  q->items[(q->head + q->n++) % N_BATCHES] = b;
  pthread_cond_signal(&q->nonempty);
  pthread_mutex_unlock(&p->lock);
}

/* The oldest batch of Q; waits for one unless TRY (then NULL when there is none). */
static event_batch *queue_pop(rsp_event_pipeline *p, batch_queue *q, bool try)
{
  pthread_mutex_lock(&p->lock);
  while (!q->n && !try)
    pthread_cond_wait(&q->nonempty, &p->lock);
  event_batch *b = NULL;
  if (q->n) {
    b = q->items[q->head];
    q->head = (q->head + 1) % N_BATCHES;
    q->n--;
  }
  pthread_mutex_unlock(&p->lock);
  return b;
}

/* The lowest file offset the batches with the model (all but B, being filled) still point into. */
static uint64_t kept_by_others(const rsp_event_pipeline *p, const event_batch *b)
{
  uint64_t min = UINT64_MAX;
  for (int i = 0; i < N_BATCHES; i++)
    if (p->all[i] != b && p->all[i]->out)
      min = MIN(min, p->all[i]->keep_from);
  return min;
}

static gpointer read_ahead(gpointer data)
{
  rsp_event_pipeline *p = data;
  bool holding = false; /* p->read was read, but did not fit the batch before: its pointers are still valid */
  bool held_lasting = false;
  size_t held_need = 0;
  uint64_t held_at = UINT64_MAX;
  for (;;) {
    event_batch *b = queue_pop(p, &p->free_batches, false);
    b->out = false;
    b->n = 0;
    b->used = 0;
    b->record_bytes = 0;
    b->last = false;
    b->keep_from = UINT64_MAX;
    uint64_t others = kept_by_others(p, b);
    rsp_reader_keep_from(p->reader, others);
    if (holding) {
      batch_add(b, &p->read, held_lasting, held_need);
      if (held_lasting) {
        b->keep_from = held_at;
        rsp_reader_keep_from(p->reader, MIN(others, held_at));
      }
      holding = false;
    }
    while (b->n < BATCH_EVENTS && b->record_bytes < BATCH_RECORD_BYTES) {
      if (__atomic_load_n(&p->stop, __ATOMIC_RELAXED)) {
        b->last = true;
        break;
      }
      GError *error = NULL;
      const rsp_event *ev = rsp_reader_next_to(p->reader, &p->read, &error);
      if (!ev) {
        b->last = true;
        b->error = error;
        break;
      }
      uint64_t at = UINT64_MAX;
      bool lasting = rsp_reader_event_lasting(p->reader, ev, &at);
      if (lasting) {
        b->record_bytes += ((const struct perf_event_header *)ev->record)->size;
        if (at < b->keep_from) {
          b->keep_from = at;
          rsp_reader_keep_from(p->reader, MIN(others, at));
        }
      }
      if (ev->decode_deferred) { /* (only a record in the file's mapping is) */
        b->refs[b->n++] = (event_ref){ .record = ev->record, .evsel = ev->evsel, .offset = ev->offset };
        continue;
      }
      size_t need = whole_size(ev, lasting);
      if (!batch_add(b, ev, lasting, need)) {
        if (ev != &p->read)
          p->read = *ev;
        holding = true;
        held_lasting = lasting;
        held_at = at;
        held_need = need;
        break;
      }
    }
    bool last = b->last;
    b->out = true;
    queue_push(p, &p->full_batches, b);
    if (last)
      return NULL;
  }
}

static event_batch *batch_new(void)
{
  event_batch *b = g_aligned_alloc0(1, sizeof(event_batch), 64);
  b->refs = g_new(event_ref, BATCH_EVENTS);
  b->cap = BATCH_STORAGE;
  b->storage = g_malloc(b->cap);
  return b;
}

static void batch_free(event_batch *b)
{
  if (b->error)
    g_error_free(b->error);
  g_free(b->refs);
  g_free(b->storage);
  g_aligned_free(b);
}

bool rsp_event_pipeline_wanted(const rsp_reader *reader)
{
  /* A pipe-mode stream changes its attrs and header as it goes: read it on one thread. */
  if (rsp_reader_header(reader)->pipe_mode)
    return false;
  return rsp_threads_wanted() > 1;
}

rsp_event_pipeline *rsp_event_pipeline_start(rsp_reader *reader)
{
  rsp_event_pipeline *p = g_aligned_alloc0(1, sizeof(rsp_event_pipeline), 64);
  p->reader = reader;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->free_batches.nonempty, NULL);
  pthread_cond_init(&p->full_batches.nonempty, NULL);
  for (int i = 0; i < N_BATCHES; i++) {
    p->all[i] = batch_new();
    queue_push(p, &p->free_batches, p->all[i]);
  }
  /* the plain samples and switch records are decoded on the model's thread, as it takes them: the reader's thread
   * is the slower of the two when the ftrace capture is merged (deep3m: 4.1 G instructions against 2.4 G) */
  rsp_reader_defer_decoding(reader, true);
  p->thread = g_thread_new("rsp-read", read_ahead, p);
  return p;
}

const rsp_event *rsp_event_pipeline_next(rsp_event_pipeline *p, GError **error)
{
  for (;;) {
    event_batch *b = p->cur;
    if (b && p->next < b->n) {
      /* the lines of a record a few ahead, asked for now (the reader read only its head): the decode's first read
       * of a tracepoint's payload past a deep stack's chain was half of its time on deep3m, and the stacks' first
       * compare of the chain most of memcmp's; its size is read from its head, asked for as many events before */
      if (p->next + 2 * DECODE_AHEAD < b->n && !b->refs[p->next + 2 * DECODE_AHEAD].full)
        __builtin_prefetch(b->refs[p->next + 2 * DECODE_AHEAD].record);
      if (p->next + DECODE_AHEAD < b->n && !b->refs[p->next + DECODE_AHEAD].full) {
        const uint8_t *ahead = b->refs[p->next + DECODE_AHEAD].record;
        uint16_t size;
        memcpy(&size, ahead + 6, sizeof size);
        for (uint32_t at = 64; at < size; at += 64)
          __builtin_prefetch(ahead + at);
        __builtin_prefetch(ahead + size - 1);
      }
      const event_ref *ref = &b->refs[p->next++];
      if (ref->full)
        return ref->full;
      /* decoded into an event of this thread's, in its cache (decoding into the batch's slot of 408 bytes, last
       * written by the reader's thread, fetched its lines from the other core or memory) */
      p->decoded.record = ref->record;
      p->decoded.evsel = ref->evsel;
      p->decoded.offset = ref->offset;
      if (!rsp_reader_decode_deferred(p->reader, &p->decoded, error))
        return NULL;
      return &p->decoded;
    }
    if (b && b->last) {
      if (b->error) {
        g_propagate_error(error, b->error);
        b->error = NULL;
      }
      return NULL;
    }
    if (b)
      queue_push(p, &p->free_batches, b);
    p->cur = queue_pop(p, &p->full_batches, false);
    p->next = 0;
  }
}

void rsp_event_pipeline_finish(rsp_event_pipeline *p)
{
  if (!p)
    return;
  __atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
  /* let the reader thread come to its last batch */
  while (!(p->cur && p->cur->last)) {
    if (p->cur)
      queue_push(p, &p->free_batches, p->cur);
    p->cur = queue_pop(p, &p->full_batches, false);
  }
  g_thread_join(p->thread);
  batch_free(p->cur);
  event_batch *b;
  while ((b = queue_pop(p, &p->free_batches, true)))
    batch_free(b);
  pthread_cond_destroy(&p->free_batches.nonempty);
  pthread_cond_destroy(&p->full_batches.nonempty);
  pthread_mutex_destroy(&p->lock);
  g_aligned_free(p);
}
