/* Copying an event out of the reader's buffers: the copy's pointers all point into storage the
 * caller owns, so it outlives the next rsp_reader_next() (another thread may read it later).
 * The record is copied whole and every pointer into it moved along; a pointer elsewhere (the
 * RAW payload of an ftrace event, which has no record) gets its bytes copied after it. */
#include "reader/reader.h"

#include <string.h>

typedef struct copier {
  uintptr_t rec;    /* the source record, or 0 */
  size_t rec_size;
  uint8_t *dst;     /* NULL while sizing */
  size_t used;      /* bytes of storage taken */
} copier;

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Where P (LEN bytes) lives in the copy. */
static const void *move(copier *c, const void *p, size_t len)
{
  if (!p)
    return NULL;
  uintptr_t a = (uintptr_t)p;
  if (c->rec && a >= c->rec && a - c->rec <= c->rec_size && len <= c->rec_size - (a - c->rec))
    return c->dst ? c->dst + (a - c->rec) : p;
  void *to = c->dst ? c->dst + c->used : NULL;
  if (c->dst && len)
    memcpy(to, p, len);
  c->used += align8(len ? len : 1);
  return c->dst ? to : p;
}

static const char *move_str(copier *c, const char *s)
{
  return s ? move(c, s, strlen(s) + 1) : NULL;
}

/* Every pointer of EV, moved by C (into DST when C has storage). */
static void move_all(copier *c, const rsp_event *ev, rsp_event *dst)
{
  if (c->rec) {
    if (c->dst)
      memcpy(c->dst, (const void *)c->rec, c->rec_size);
    c->used = align8(c->rec_size);
  }
  dst->record = c->rec ? (c->dst ? c->dst : ev->record) : NULL;
  dst->callchain = move(c, ev->callchain, (size_t)ev->callchain_nr * sizeof *ev->callchain);
  dst->raw = move(c, ev->raw, ev->raw_size);
  dst->branches = move(c, ev->branches, (size_t)ev->branch_nr * sizeof *ev->branches);
  dst->read_values = move(c, ev->read_values, (size_t)ev->read_words * sizeof *ev->read_values);
  dst->regs_user = move(c, ev->regs_user, (size_t)ev->regs_user_nr * sizeof *ev->regs_user);
  dst->regs_intr = move(c, ev->regs_intr, (size_t)ev->regs_intr_nr * sizeof *ev->regs_intr);
  dst->stack_user = move(c, ev->stack_user, (size_t)ev->stack_user_size);
  dst->aux = move(c, ev->aux, (size_t)ev->aux_size);
  /* the union: only the member the record type filled */
  switch (ev->type) {
  case PERF_RECORD_COMM:
    dst->u.comm.comm = move_str(c, ev->u.comm.comm);
    break;
  case PERF_RECORD_MMAP:
  case PERF_RECORD_MMAP2:
    dst->u.mmap.build_id = move(c, ev->u.mmap.build_id, ev->u.mmap.build_id_size);
    dst->u.mmap.filename = move_str(c, ev->u.mmap.filename);
    break;
  case PERF_RECORD_KSYMBOL:
    dst->u.ksymbol.name = move_str(c, ev->u.ksymbol.name);
    break;
  case PERF_RECORD_CGROUP:
    dst->u.cgroup.path = move_str(c, ev->u.cgroup.path);
    break;
  case PERF_RECORD_TEXT_POKE:
    dst->u.text_poke.bytes = move(c, ev->u.text_poke.bytes,
                                  (size_t)ev->u.text_poke.old_len + ev->u.text_poke.new_len);
    break;
  default:
    break;
  }
}

static copier copier_for(const rsp_event *ev, void *storage)
{
  copier c = {.rec = (uintptr_t)ev->record, .dst = storage};
  if (ev->record)
    c.rec_size = ((const struct perf_event_header *)ev->record)->size;
  return c;
}

/* A perf event decodes from its record only: all its pointers lie inside the record. */
static bool inside_record(const rsp_event *ev)
{
  return ev->record && ev->source == RSP_SOURCE_PERF;
}

#define SHIFT(field) \
  do { if (src->field) dst->field = (const void *)((const uint8_t *)src->field + delta); } while (0)

/* The common case, kept cheap: copy the record, shift every pointer by the same distance. */
static void copy_perf(rsp_event *dst, const rsp_event *src, uint8_t *storage)
{
  size_t size = ((const struct perf_event_header *)src->record)->size;
  memcpy(storage, src->record, size);
  ptrdiff_t delta = storage - (const uint8_t *)src->record;
  dst->record = storage;
  SHIFT(callchain);
  SHIFT(raw);
  SHIFT(branches);
  SHIFT(read_values);
  SHIFT(regs_user);
  SHIFT(regs_intr);
  SHIFT(stack_user);
  SHIFT(aux);
  switch (src->type) {
  case PERF_RECORD_COMM:
    SHIFT(u.comm.comm);
    break;
  case PERF_RECORD_MMAP:
  case PERF_RECORD_MMAP2:
    SHIFT(u.mmap.build_id);
    SHIFT(u.mmap.filename);
    break;
  case PERF_RECORD_KSYMBOL:
    SHIFT(u.ksymbol.name);
    break;
  case PERF_RECORD_CGROUP:
    SHIFT(u.cgroup.path);
    break;
  case PERF_RECORD_TEXT_POKE:
    SHIFT(u.text_poke.bytes);
    break;
  default:
    break;
  }
}

size_t rsp_event_copy_size(const rsp_event *ev)
{
  if (inside_record(ev))
    return align8(((const struct perf_event_header *)ev->record)->size);
  copier c = copier_for(ev, NULL);
  rsp_event scratch = *ev;
  move_all(&c, ev, &scratch);
  return c.used;
}

void rsp_event_copy(rsp_event *dst, const rsp_event *src, void *storage)
{
  if (dst != src)
    *dst = *src;
  if (inside_record(src)) {
    copy_perf(dst, src, storage);
    return;
  }
  copier c = copier_for(src, storage);
  move_all(&c, src, dst);
}
