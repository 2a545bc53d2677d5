/* Record decoding: SAMPLE with every sample_type bit, the sample_id_all trailer of other
 * records, and the per-type bodies of the kernel's records. Every read is bounds-checked. */
#include "reader/reader-private.h"

#include <string.h>

typedef struct cursor {
  const uint8_t *p, *end;
  const uint8_t *base;
} cursor;

static inline bool take_u64(cursor *c, uint64_t *v)
{
  if ((size_t)(c->end - c->p) < 8)
    return false;
  memcpy(v, c->p, 8);
  c->p += 8;
  return true;
}

static inline bool take_u32x2(cursor *c, uint32_t *a, uint32_t *b)
{
  if ((size_t)(c->end - c->p) < 8)
    return false;
  memcpy(a, c->p, 4);
  memcpy(b, c->p + 4, 4);
  c->p += 8;
  return true;
}

static inline bool take_bytes(cursor *c, uint64_t n, const uint8_t **out)
{
  if ((uint64_t)(c->end - c->p) < n)
    return false;
  *out = c->p;
  c->p += n;
  return true;
}

#define FAIL(what)                                                                             \
  do {                                                                                         \
    rsp_set_error(error, RSP_READER_ERROR_FORMAT, path, offset + (uint64_t)(c.p - c.base),     \
                  "%s record (size %zu): %s runs past the record's end",                       \
                  rsp_record_type_name(ev->type) ? rsp_record_type_name(ev->type) : "unknown",  \
                  size, what);                                                                 \
    return false;                                                                              \
  } while (0)

static bool read_words(cursor *c, const struct perf_event_attr *attr, rsp_event *ev)
{
  uint64_t rf = attr->read_format;
  uint64_t words;
  const uint8_t *start = c->p;
  if (rf & PERF_FORMAT_GROUP) {
    uint64_t nr;
    if (!take_u64(c, &nr) || nr > 65536)
      return false;
    uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
    words = 1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING) +
            nr * per;
    c->p = start;
  } else {
    words = 1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING) +
            !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
  }
  const uint8_t *b;
  if (!take_bytes(c, words * 8, &b))
    return false;
  ev->read_values = (const uint64_t *)b;
  ev->read_words = (uint32_t)words;
  return true;
}

static bool decode_sample(const uint8_t *rec, size_t size, const rsp_evsel *evsel, uint64_t offset,
                          const char *path, rsp_event *ev, GError **error)
{
  const struct perf_event_attr *attr = &evsel->attr;
  uint64_t t = attr->sample_type;
  cursor c = {rec + sizeof(struct perf_event_header), rec + size, rec};
  uint64_t v;
  uint32_t a, b;
  const uint8_t *bytes = NULL;

  ev->present = t;
  if (t & PERF_SAMPLE_IDENTIFIER) {
    if (!take_u64(&c, &ev->id))
      FAIL("IDENTIFIER");
  }
  if (t & PERF_SAMPLE_IP) {
    if (!take_u64(&c, &ev->ip))
      FAIL("IP");
  }
  if (t & PERF_SAMPLE_TID) {
    if (!take_u32x2(&c, &a, &b))
      FAIL("TID");
    ev->pid = (int32_t)a;
    ev->tid = (int32_t)b;
  }
  if (t & PERF_SAMPLE_TIME) {
    if (!take_u64(&c, &ev->time))
      FAIL("TIME");
  }
  if (t & PERF_SAMPLE_ADDR) {
    if (!take_u64(&c, &ev->addr))
      FAIL("ADDR");
  }
  if (t & PERF_SAMPLE_ID) {
    if (!take_u64(&c, &ev->id))
      FAIL("ID");
  }
  if (t & PERF_SAMPLE_STREAM_ID) {
    if (!take_u64(&c, &ev->stream_id))
      FAIL("STREAM_ID");
  }
  if (t & PERF_SAMPLE_CPU) {
    if (!take_u32x2(&c, &a, &b))
      FAIL("CPU");
    ev->cpu = (int32_t)a;
  }
  if (t & PERF_SAMPLE_PERIOD) {
    if (!take_u64(&c, &ev->period))
      FAIL("PERIOD");
  } else if (!attr->freq) {
    ev->period = attr->sample_period; /* a fixed period (perf record -c N) is not in the sample */
  }
  if (t & PERF_SAMPLE_READ) {
    if (!read_words(&c, attr, ev))
      FAIL("READ");
  }
  if (t & PERF_SAMPLE_CALLCHAIN) {
    if (!take_u64(&c, &v) || v > (uint64_t)(c.end - c.p) / 8)
      FAIL("CALLCHAIN");
    take_bytes(&c, v * 8, &bytes);
    ev->callchain = (const uint64_t *)bytes;
    ev->callchain_nr = (uint32_t)v;
  }
  if (t & PERF_SAMPLE_RAW) {
    uint32_t rs;
    if ((size_t)(c.end - c.p) < 4)
      FAIL("RAW size");
    memcpy(&rs, c.p, 4);
    c.p += 4;
    if (!take_bytes(&c, rs, &bytes))
      FAIL("RAW");
    ev->raw = bytes;
    ev->raw_size = rs;
    /* the u32 size and the data are padded together to 8 bytes */
    size_t pad = (8 - ((4 + (size_t)rs) & 7)) & 7;
    if ((size_t)(c.end - c.p) < pad)
      FAIL("RAW padding");
    c.p += pad;
  }
  if (t & PERF_SAMPLE_BRANCH_STACK) {
    if (!take_u64(&c, &v) || v > (uint64_t)(c.end - c.p) / 24)
      FAIL("BRANCH_STACK");
    ev->branch_nr = (uint32_t)v;
    if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
      if (!take_u64(&c, &ev->branch_hw_idx))
        FAIL("BRANCH_STACK hw_idx");
    }
    if (!take_bytes(&c, v * 24, &bytes))
      FAIL("BRANCH_STACK entries");
    ev->branches = (const rsp_branch_entry *)bytes;
  }
  if (t & PERF_SAMPLE_REGS_USER) {
    if (!take_u64(&c, &ev->regs_user_abi))
      FAIL("REGS_USER abi");
    if (ev->regs_user_abi) {
      unsigned n = (unsigned)__builtin_popcountll(attr->sample_regs_user);
      if (!take_bytes(&c, (uint64_t)n * 8, &bytes))
        FAIL("REGS_USER");
      ev->regs_user = (const uint64_t *)bytes;
      ev->regs_user_nr = n;
    }
  }
  if (t & PERF_SAMPLE_STACK_USER) {
    if (!take_u64(&c, &ev->stack_user_size))
      FAIL("STACK_USER size");
    if (ev->stack_user_size) {
      if (!take_bytes(&c, ev->stack_user_size, &ev->stack_user))
        FAIL("STACK_USER");
      if (!take_u64(&c, &ev->stack_user_dyn_size))
        FAIL("STACK_USER dyn_size");
    }
  }
  if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
    if (!take_u64(&c, &ev->weight))
      FAIL("WEIGHT");
  }
  if (t & PERF_SAMPLE_DATA_SRC) {
    if (!take_u64(&c, &ev->data_src))
      FAIL("DATA_SRC");
  }
  if (t & PERF_SAMPLE_TRANSACTION) {
    if (!take_u64(&c, &ev->transaction))
      FAIL("TRANSACTION");
  }
  if (t & PERF_SAMPLE_REGS_INTR) {
    if (!take_u64(&c, &ev->regs_intr_abi))
      FAIL("REGS_INTR abi");
    if (ev->regs_intr_abi) {
      unsigned n = (unsigned)__builtin_popcountll(attr->sample_regs_intr);
      if (!take_bytes(&c, (uint64_t)n * 8, &bytes))
        FAIL("REGS_INTR");
      ev->regs_intr = (const uint64_t *)bytes;
      ev->regs_intr_nr = n;
    }
  }
  if (t & PERF_SAMPLE_PHYS_ADDR) {
    if (!take_u64(&c, &ev->phys_addr))
      FAIL("PHYS_ADDR");
  }
  if (t & PERF_SAMPLE_CGROUP) {
    if (!take_u64(&c, &ev->cgroup))
      FAIL("CGROUP");
  }
  if (t & PERF_SAMPLE_DATA_PAGE_SIZE) {
    if (!take_u64(&c, &ev->data_page_size))
      FAIL("DATA_PAGE_SIZE");
  }
  if (t & PERF_SAMPLE_CODE_PAGE_SIZE) {
    if (!take_u64(&c, &ev->code_page_size))
      FAIL("CODE_PAGE_SIZE");
  }
  if (t & PERF_SAMPLE_AUX) {
    if (!take_u64(&c, &ev->aux_size) || !take_bytes(&c, ev->aux_size, &ev->aux))
      FAIL("AUX");
  }
  return true;
}

/* The sample_id_all trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER, read from the end. */
static bool decode_trailer(const uint8_t *body, const uint8_t *end, const struct perf_event_attr *attr,
                           rsp_event *ev)
{
  if (!attr || !attr->sample_id_all)
    return true;
  uint64_t t = attr->sample_type;
  const uint8_t *p = end;
  uint32_t a, b;
#define BACK(dst)                                                                              \
  do {                                                                                         \
    if (p - body < 8)                                                                          \
      return false;                                                                            \
    p -= 8;                                                                                    \
    memcpy(dst, p, 8);                                                                         \
  } while (0)
  if (t & PERF_SAMPLE_IDENTIFIER)
    BACK(&ev->id);
  if (t & PERF_SAMPLE_CPU) {
    if (p - body < 8)
      return false;
    p -= 8;
    memcpy(&a, p, 4);
    ev->cpu = (int32_t)a;
  }
  if (t & PERF_SAMPLE_STREAM_ID)
    BACK(&ev->stream_id);
  if (t & PERF_SAMPLE_ID)
    BACK(&ev->id);
  if (t & PERF_SAMPLE_TIME)
    BACK(&ev->time);
  if (t & PERF_SAMPLE_TID) {
    if (p - body < 8)
      return false;
    p -= 8;
    memcpy(&a, p, 4);
    memcpy(&b, p + 4, 4);
    ev->pid = (int32_t)a;
    ev->tid = (int32_t)b;
  }
#undef BACK
  ev->present = t & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID |
                     PERF_SAMPLE_ID | PERF_SAMPLE_TIME | PERF_SAMPLE_TID);
  return true;
}

static size_t trailer_size(const struct perf_event_attr *attr)
{
  if (!attr || !attr->sample_id_all)
    return 0;
  uint64_t t = attr->sample_type;
  return 8 * (size_t)(!!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ID) +
                      !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU) +
                      !!(t & PERF_SAMPLE_IDENTIFIER));
}

/* A NUL-terminated string inside [p, end), or NULL. */
static const char *cstr(const uint8_t *p, const uint8_t *end)
{
  if (p >= end || !memchr(p, 0, (size_t)(end - p)))
    return NULL;
  return (const char *)p;
}

/* An MMAP2 record of the first MMAP2 layout (Red Hat's 3.10 kernels): no prot and flags, the file
 * name right after ino_generation. Where prot would be, its first bytes are then text, which no
 * prot value is (PROT_READ|WRITE|EXEC|SEM, GROWSDOWN, GROWSUP), and the name ends inside the record. */
static bool mmap2_without_prot(uint16_t misc, const uint8_t *body, const uint8_t *end)
{
  if (end - body < 57 || (misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
    return false;
  uint32_t prot;
  memcpy(&prot, body + 56, 4);
  return (prot & ~(uint32_t)0x0300000f) != 0 && body[56] >= 0x20 && body[56] < 0x7f &&
         cstr(body + 56, end) != NULL;
}

/* The bits set in X, inline: __builtin_popcountll is a call into libgcc on the baseline x86-64 this is built for
 * (79 M instructions of deep3m's decode, twice per tracepoint event) */
static inline unsigned bits_set(uint64_t x)
{
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

/* The offset of a SAMPLE record's RAW field (its u32 size) for sample type T: past the fixed fields before it and the
 * callchain, whose length must fit the record; false when the layout does not say (PERF_SAMPLE_READ) or it does not
 * fit. What rsp_sample_raw_guess and rsp_sample_cpu_raw share (it reads no byte of the RAW field itself). */
static bool raw_offset(const uint8_t *rec, size_t size, uint64_t t, size_t *offset)
{
  if (t & PERF_SAMPLE_READ)
    return false;
  const uint64_t before = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                          PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
                          PERF_SAMPLE_PERIOD;
  size_t at = sizeof(struct perf_event_header) + 8 * (size_t)bits_set(t & before);
  if (t & PERF_SAMPLE_CALLCHAIN) {
    uint64_t nr;
    if (at + 8 > size)
      return false;
    memcpy(&nr, rec + at, 8);
    at += 8;
    if (at > size || nr > (size - at) / 8)
      return false;
    at += (size_t)nr * 8;
  }
  *offset = at;
  return true;
}

const uint8_t *rsp_sample_raw_guess(const uint8_t *rec, size_t size, const struct perf_event_attr *attr)
{
  size_t at;
  if (!(attr->sample_type & PERF_SAMPLE_RAW) || !raw_offset(rec, size, attr->sample_type, &at))
    return NULL;
  return at < size ? rec + at : NULL;
}

bool rsp_sample_cpu_raw(const uint8_t *rec, size_t size, const struct perf_event_attr *attr, int32_t *cpu,
                        const uint8_t **raw, uint32_t *raw_size)
{
  uint64_t t = attr->sample_type;
  size_t at;
  if (!raw_offset(rec, size, t, &at))
    return false;
  *cpu = -1;
  if (t & PERF_SAMPLE_CPU) {
    const uint64_t before_cpu = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID;
    size_t cpu_at = sizeof(struct perf_event_header) + 8 * (size_t)bits_set(t & before_cpu);
    if (cpu_at + 8 > size)
      return false;
    uint32_t a;
    memcpy(&a, rec + cpu_at, 4);
    *cpu = (int32_t)a;
  }
  *raw = NULL;
  *raw_size = 0;
  if (t & PERF_SAMPLE_RAW) {
    uint32_t rs;
    if (at + 4 > size)
      return false;
    memcpy(&rs, rec + at, 4);
    at += 4;
    if (rs > size - at)
      return false;
    *raw = rec + at;
    *raw_size = rs;
  }
  return true;
}

/* Zeroes N bytes (a constant, a multiple of 8) with 16-byte stores, which GCC otherwise makes a `rep stos` (also
 * from memsets of 64 bytes, merged again at link time): for the 136 bytes every record may set, the rep's start-up
 * was 7-8% of rsp-dump --stats. The empty asm after each store keeps the stores from being recognized as one memset. */
typedef uint64_t rsp_u64x2 __attribute__((vector_size(16), aligned(8), may_alias));
static inline __attribute__((always_inline)) void zero_by_stores(void *p, size_t n)
{
  char *c = p;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    *(rsp_u64x2 *)(void *)(c + i) = (rsp_u64x2){ 0, 0 };
    __asm__("" : : : "memory");
  }
  if (i < n)
    memset(c + i, 0, n - i);
}

void rsp_event_clear(rsp_event *ev)
{
  /* the fields every record may set, and of the others (408 bytes in all) those an earlier decode into the same
   * event may have set (the whole event's two memsets were a third of the decode's instructions) */
  uint8_t dirty = ev->dirty;
  zero_by_stores(ev, offsetof(rsp_event, weight));
  if (dirty & RSP_EVENT_DIRTY_RARE)
    memset(&ev->weight, 0, offsetof(rsp_event, u) - offsetof(rsp_event, weight));
  if (dirty & RSP_EVENT_DIRTY_UNION)
    zero_by_stores(&ev->u, sizeof ev->u);
}

bool rsp_decode_record(const uint8_t *rec, size_t size, const rsp_evsel *evsel, uint64_t offset,
                       const char *path, rsp_event *ev, GError **error)
{
  const struct perf_event_header *h = (const struct perf_event_header *)rec;
  rsp_event_clear(ev);
  ev->type = h->type;
  ev->misc = h->misc;
  ev->size = h->size;
  ev->offset = offset;
  ev->record = rec;
  ev->cpu = -1;
  ev->pid = ev->tid = -1;

  if (h->type == PERF_RECORD_SAMPLE) {
    ev->evsel = evsel;
    if (!evsel) {
      rsp_set_error(error, RSP_READER_ERROR_FORMAT, path, offset,
                    "SAMPLE record with no attr to decode it");
      return false;
    }
    /* the sample fields past period */
    const uint64_t common = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                            PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
                            PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
    if (evsel->attr.sample_type & ~common)
      ev->dirty = RSP_EVENT_DIRTY_RARE;
    return decode_sample(rec, size, evsel, offset, path, ev, error);
  }
  ev->dirty = RSP_EVENT_DIRTY_UNION;

  const struct perf_event_attr *attr = evsel ? &evsel->attr : NULL;
  ev->evsel = evsel;
  const uint8_t *body = rec + sizeof *h;
  size_t ts = trailer_size(attr);
  const uint8_t *end = rec + size;
  if (h->type < 64 && ts) {
    if ((size_t)(end - body) < ts) {
      rsp_set_error(error, RSP_READER_ERROR_FORMAT, path, offset,
                    "%s record (size %zu) too small for its sample_id trailer",
                    rsp_record_type_name(h->type) ? rsp_record_type_name(h->type) : "unknown",
                    size);
      return false;
    }
    decode_trailer(body, end, attr, ev);
    end -= ts;
  }
  size_t blen = (size_t)(end - body);
  cursor c = {body, end, rec};
  uint32_t a, b;
  uint64_t v;

  switch (h->type) {
  case PERF_RECORD_COMM:
    if (!take_u32x2(&c, &a, &b))
      FAIL("COMM pid/tid");
    ev->u.comm.pid = (int32_t)a;
    ev->u.comm.tid = (int32_t)b;
    ev->u.comm.comm = cstr(c.p, end);
    if (!ev->u.comm.comm)
      FAIL("COMM name");
    ev->u.comm.exec = (h->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
    if (ev->pid < 0) {
      ev->pid = ev->u.comm.pid;
      ev->tid = ev->u.comm.tid;
    }
    break;
  case PERF_RECORD_FORK:
  case PERF_RECORD_EXIT:
    if (blen < 24)
      FAIL("FORK/EXIT body");
    memcpy(&a, body, 4); ev->u.fork.pid = (int32_t)a;
    memcpy(&a, body + 4, 4); ev->u.fork.ppid = (int32_t)a;
    memcpy(&a, body + 8, 4); ev->u.fork.tid = (int32_t)a;
    memcpy(&a, body + 12, 4); ev->u.fork.ptid = (int32_t)a;
    memcpy(&ev->u.fork.time, body + 16, 8);
    if (!(ev->present & PERF_SAMPLE_TIME))
      ev->time = ev->u.fork.time;
    if (ev->pid < 0) {
      ev->pid = ev->u.fork.pid;
      ev->tid = ev->u.fork.tid;
    }
    break;
  case PERF_RECORD_MMAP:
    if (blen < 32)
      FAIL("MMAP body");
    memcpy(&a, body, 4); ev->u.mmap.pid = (int32_t)a;
    memcpy(&a, body + 4, 4); ev->u.mmap.tid = (int32_t)a;
    memcpy(&ev->u.mmap.start, body + 8, 8);
    memcpy(&ev->u.mmap.len, body + 16, 8);
    memcpy(&ev->u.mmap.pgoff, body + 24, 8);
    ev->u.mmap.filename = cstr(body + 32, end);
    if (!ev->u.mmap.filename)
      FAIL("MMAP filename");
    ev->u.mmap.prot = (h->misc & PERF_RECORD_MISC_MMAP_DATA) ? 1 : 5; /* PROT_READ|EXEC */
    break;
  case PERF_RECORD_MMAP2:
    if (mmap2_without_prot(h->misc, body, end)) {
      /* RHEL 7's kernel 3.10 wrote MMAP2 before prot and flags existed: the name follows ino_generation */
      memcpy(&a, body, 4); ev->u.mmap.pid = (int32_t)a;
      memcpy(&a, body + 4, 4); ev->u.mmap.tid = (int32_t)a;
      memcpy(&ev->u.mmap.start, body + 8, 8);
      memcpy(&ev->u.mmap.len, body + 16, 8);
      memcpy(&ev->u.mmap.pgoff, body + 24, 8);
      memcpy(&ev->u.mmap.maj, body + 32, 4);
      memcpy(&ev->u.mmap.min, body + 36, 4);
      memcpy(&ev->u.mmap.ino, body + 40, 8);
      memcpy(&ev->u.mmap.ino_generation, body + 48, 8);
      ev->u.mmap.prot = (h->misc & PERF_RECORD_MISC_MMAP_DATA) ? 1 : 5; /* as for MMAP */
      ev->u.mmap.filename = (const char *)body + 56;
      break;
    }
    if (blen < 64)
      FAIL("MMAP2 body");
    memcpy(&a, body, 4); ev->u.mmap.pid = (int32_t)a;
    memcpy(&a, body + 4, 4); ev->u.mmap.tid = (int32_t)a;
    memcpy(&ev->u.mmap.start, body + 8, 8);
    memcpy(&ev->u.mmap.len, body + 16, 8);
    memcpy(&ev->u.mmap.pgoff, body + 24, 8);
    if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
      uint8_t bsz = body[32];
      ev->u.mmap.build_id_size = bsz > 20 ? 20 : bsz;
      ev->u.mmap.build_id = body + 36;
    } else {
      memcpy(&ev->u.mmap.maj, body + 32, 4);
      memcpy(&ev->u.mmap.min, body + 36, 4);
      memcpy(&ev->u.mmap.ino, body + 40, 8);
      memcpy(&ev->u.mmap.ino_generation, body + 48, 8);
    }
    memcpy(&ev->u.mmap.prot, body + 56, 4);
    memcpy(&ev->u.mmap.flags, body + 60, 4);
    ev->u.mmap.filename = cstr(body + 64, end);
    if (!ev->u.mmap.filename)
      FAIL("MMAP2 filename");
    break;
  case PERF_RECORD_LOST:
    if (!take_u64(&c, &ev->u.lost.id) || !take_u64(&c, &ev->u.lost.lost))
      FAIL("LOST body");
    break;
  case PERF_RECORD_LOST_SAMPLES:
    if (!take_u64(&c, &ev->u.lost_samples.lost))
      FAIL("LOST_SAMPLES body");
    break;
  case PERF_RECORD_THROTTLE:
  case PERF_RECORD_UNTHROTTLE:
    if (!take_u64(&c, &ev->u.throttle.time) || !take_u64(&c, &ev->u.throttle.id) ||
        !take_u64(&c, &ev->u.throttle.stream_id))
      FAIL("THROTTLE body");
    break;
  case PERF_RECORD_SWITCH:
    ev->u.cswitch.out = (h->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
    ev->u.cswitch.preempt = (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
    ev->u.cswitch.next_prev_pid = ev->u.cswitch.next_prev_tid = -1;
    break;
  case PERF_RECORD_SWITCH_CPU_WIDE:
    ev->u.cswitch.out = (h->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
    ev->u.cswitch.preempt = (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
    if (!take_u32x2(&c, &a, &b))
      FAIL("SWITCH_CPU_WIDE body");
    ev->u.cswitch.next_prev_pid = (int32_t)a;
    ev->u.cswitch.next_prev_tid = (int32_t)b;
    break;
  case PERF_RECORD_KSYMBOL:
    if (blen < 16)
      FAIL("KSYMBOL body");
    memcpy(&ev->u.ksymbol.addr, body, 8);
    memcpy(&ev->u.ksymbol.len, body + 8, 4);
    memcpy(&ev->u.ksymbol.ksym_type, body + 12, 2);
    memcpy(&ev->u.ksymbol.flags, body + 14, 2);
    ev->u.ksymbol.name = cstr(body + 16, end);
    if (!ev->u.ksymbol.name)
      FAIL("KSYMBOL name");
    break;
  case PERF_RECORD_BPF_EVENT:
    if (blen < 8)
      FAIL("BPF_EVENT body");
    memcpy(&ev->u.bpf.type, body, 2);
    memcpy(&ev->u.bpf.flags, body + 2, 2);
    memcpy(&ev->u.bpf.id, body + 4, 4);
    break;
  case PERF_RECORD_CGROUP:
    if (!take_u64(&c, &ev->u.cgroup.id))
      FAIL("CGROUP body");
    ev->u.cgroup.path = cstr(c.p, end);
    if (!ev->u.cgroup.path)
      FAIL("CGROUP path");
    break;
  case PERF_RECORD_TEXT_POKE:
    if (blen < 12)
      FAIL("TEXT_POKE body");
    memcpy(&ev->u.text_poke.addr, body, 8);
    memcpy(&ev->u.text_poke.old_len, body + 8, 2);
    memcpy(&ev->u.text_poke.new_len, body + 10, 2);
    if ((size_t)ev->u.text_poke.old_len + ev->u.text_poke.new_len > blen - 12)
      FAIL("TEXT_POKE bytes");
    ev->u.text_poke.bytes = body + 12;
    break;
  case PERF_RECORD_AUX:
    if (!take_u64(&c, &ev->u.aux.offset) || !take_u64(&c, &ev->u.aux.size) ||
        !take_u64(&c, &ev->u.aux.flags))
      FAIL("AUX body");
    break;
  case PERF_RECORD_ITRACE_START:
    if (!take_u32x2(&c, &a, &b))
      FAIL("ITRACE_START body");
    ev->u.itrace_start.pid = (int32_t)a;
    ev->u.itrace_start.tid = (int32_t)b;
    break;
  case PERF_RECORD_READ:
    if (!take_u32x2(&c, &a, &b))
      FAIL("READ body");
    ev->pid = (int32_t)a;
    ev->tid = (int32_t)b;
    (void)v;
    break;
  default:
    break; /* NAMESPACES, AUX_OUTPUT_HW_ID and newer: trailer only */
  }
  return true;
}

void rsp_compute_id_layout(rsp_id_layout *layout, const rsp_evsel *const *evsels, unsigned n)
{
  layout->have_identifier = n > 0;
  layout->sample_id_pos = -1;
  layout->trailer_id_pos = -1;
  for (unsigned i = 0; i < n; i++)
    if (!(evsels[i]->attr.sample_type & PERF_SAMPLE_IDENTIFIER))
      layout->have_identifier = false;
  if (n == 0)
    return;
  uint64_t t = evsels[0]->attr.sample_type;
  if (t & PERF_SAMPLE_ID) {
    int pos = 0;
    if (t & PERF_SAMPLE_IDENTIFIER) pos++;
    if (t & PERF_SAMPLE_IP) pos++;
    if (t & PERF_SAMPLE_TID) pos++;
    if (t & PERF_SAMPLE_TIME) pos++;
    if (t & PERF_SAMPLE_ADDR) pos++;
    layout->sample_id_pos = pos;
    int back = 1;
    if (t & PERF_SAMPLE_IDENTIFIER) back++;
    if (t & PERF_SAMPLE_CPU) back++;
    if (t & PERF_SAMPLE_STREAM_ID) back++;
    layout->trailer_id_pos = back;
  }
}

bool rsp_record_id(const uint8_t *rec, size_t size, const rsp_id_layout *layout,
                   const struct perf_event_attr *attr0, uint64_t *id)
{
  const struct perf_event_header *h = (const struct perf_event_header *)rec;
  size_t body = size - sizeof *h;
  if (h->type == PERF_RECORD_SAMPLE) {
    int pos = layout->have_identifier ? 0 : layout->sample_id_pos;
    if (pos < 0 || body < (size_t)(pos + 1) * 8)
      return false;
    memcpy(id, rec + sizeof *h + (size_t)pos * 8, 8);
    return true;
  }
  if (!attr0 || !attr0->sample_id_all)
    return false;
  int back = layout->have_identifier ? 1 : layout->trailer_id_pos;
  if (back < 0 || body < (size_t)back * 8)
    return false;
  memcpy(id, rec + size - (size_t)back * 8, 8);
  return true;
}

bool rsp_record_time(const uint8_t *rec, size_t size, const struct perf_event_attr *attr,
                     uint64_t *time)
{
  if (!attr || !(attr->sample_type & PERF_SAMPLE_TIME))
    return false;
  const struct perf_event_header *h = (const struct perf_event_header *)rec;
  uint64_t t = attr->sample_type;
  size_t body = size - sizeof *h;
  if (h->type == PERF_RECORD_SAMPLE) {
    size_t pos = (size_t)(!!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_IP) +
                          !!(t & PERF_SAMPLE_TID));
    if (body < (pos + 1) * 8)
      return false;
    memcpy(time, rec + sizeof *h + pos * 8, 8);
    return true;
  }
  if (!attr->sample_id_all || h->type >= 64)
    return false;
  size_t back = 1 + (size_t)(!!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID) +
                             !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER));
  if (body < back * 8)
    return false;
  memcpy(time, rec + size - back * 8, 8);
  return true;
}
