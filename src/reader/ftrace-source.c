/* The ftrace side stream rsp-record saves beside a recording (FILE.ftrace/): per-CPU ring
 * buffer pages read from a tracefs instance on the mono clock (cpuN.raw), with the format files
 * and header_page of the recording machine. perf record loses interrupt-context events on idle
 * CPUs; ftrace keeps them, and on CLOCK_MONOTONIC both streams share one time base, so the
 * reader merges them by timestamp. This file only reads the side stream, in time order. */
#include "reader/reader-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

/* A ring-buffer page (the kernel's buffer_data_page, as header_page describes it on a 64-bit kernel): the time of
 * its first event, then a long whose low 27 bits are the bytes of events that follow (commit) and whose bits 31 and
 * 30 say that events were lost before the page and that their number is stored after the events. Each event
 * begins with a 32-bit word: its type_len (5 bits) and the time since the event before (27 bits). type_len 1-28:
 * a payload of type_len * 4 bytes follows; 0: a 32-bit length (the payload's + 4) then the payload; 29: padding
 * (its length in the next word); 30: the next word extends the time delta (its bits 27 and up); 31: an absolute
 * time (the next word its bits 27 and up, the top five bits those of the time before). Read here instead of through
 * libtraceevent's kbuffer, whose calls through function pointers for each word were a third of the ftrace side's
 * decode (kbuffer_next_event 0.55 G of deep3m's 21.5 G instructions), with the same results on well-formed pages;
 * on others, the rest of the page is dropped and counted as lost (bad_page), never read past. */
#define PAGE_HEADER 16u
#define COMMIT_MASK ((1u << 27) - 1)
#define MISSED_EVENTS (1ull << 31)
#define MISSED_STORED (1ull << 30)
#define TS_SHIFT 27
#define TS_MSB (0xf8ull << 56)
enum { TYPE_PADDING = 29, TYPE_TIME_EXTEND = 30, TYPE_TIME_STAMP = 31 };

typedef struct ftrace_cpu {
  char *path;
  int cpu;
  /* the file, mapped whole (the merge keeps events of it until their delivery, a round or two of perf's after they
   * were read: their payloads stay where they are); the pages below RELEASED given back */
  uint8_t *map;
  uint64_t map_len;
  uint64_t read_at;  /* the next page's offset */
  uint64_t released;
  uint8_t *page;     /* the loaded page, in the mapping */
  bool loaded;     /* a page is loaded and DATA is its current event */
  bool done;
  const uint8_t *data; /* the current event's payload */
  uint32_t size;   /* its bytes */
  uint64_t ts;     /* its time */
  uint32_t commit; /* the loaded page's bytes of events (from PAGE_HEADER) */
  uint32_t curr;   /* where the current event's header begins (from PAGE_HEADER) */
  uint32_t next;   /* where the event after it begins */
  uint64_t page_offset; /* file offset of the loaded page */
} ftrace_cpu;

struct rsp_ftrace {
  char *dir;
  struct tep_handle *tep;
  size_t page_size;
  ftrace_cpu *cpus;
  unsigned n_cpus;
  uint64_t missed;
  uint64_t events;
  uint64_t pages;
  /* the oldest event, worked out once per pop: the merge peeks about five times per event it pops (2.9 M peeks,
   * 259 M instructions on deep3m) */
  bool head_known;
  ftrace_cpu *head_cpu; /* NULL: none left */
  rsp_ftrace_event head;
};

size_t rsp_ftrace_page_size(const char *text)
{
  /* "field: char data;\toffset:16;\tsize:4080;" : the page is offset + size */
  const char *p = strstr(text, "char data;");
  unsigned off = 0, size = 0;
  if (!p)
    return 0;
  const char *o = strstr(p, "offset:");
  const char *s = strstr(p, "size:");
  if (!o || !s || sscanf(o, "offset:%u", &off) != 1 || sscanf(s, "size:%u", &size) != 1)
    return 0;
  return (size_t)off + size;
}

static bool load_formats(rsp_ftrace *ft, GError **error)
{
  char *events = g_build_filename(ft->dir, "events", NULL);
  GDir *sysdir = g_dir_open(events, 0, NULL);
  unsigned loaded = 0;
  if (sysdir) {
    const char *sys;
    while ((sys = g_dir_read_name(sysdir))) {
      char *sp = g_build_filename(events, sys, NULL);
      GDir *evdir = g_dir_open(sp, 0, NULL);
      if (evdir) {
        const char *name;
        while ((name = g_dir_read_name(evdir))) {
          char *fp = g_build_filename(sp, name, "format", NULL);
          char *text = NULL;
          gsize len = 0;
          if (g_file_get_contents(fp, &text, &len, NULL)) {
            if (rsp_tep_parse_format(ft->tep, text, len, sys) == 0)
              loaded++;
            g_free(text);
          }
          g_free(fp);
        }
        g_dir_close(evdir);
      }
      g_free(sp);
    }
    g_dir_close(sysdir);
  }
  g_free(events);
  if (loaded == 0) {
    g_set_error(error, RSP_READER_ERROR, RSP_READER_ERROR_FORMAT,
                "%s: no event format files under events/: cannot decode the ftrace stream", ft->dir);
    return false;
  }
  return true;
}

void rsp_ftrace_close(rsp_ftrace *ft)
{
  if (!ft)
    return;
  for (unsigned i = 0; i < ft->n_cpus; i++) {
    if (ft->cpus[i].map)
      munmap(ft->cpus[i].map, (size_t)ft->cpus[i].map_len);
    g_free(ft->cpus[i].path);
  }
  g_free(ft->cpus);
  if (ft->tep)
    tep_free(ft->tep);
  g_free(ft->dir);
  g_free(ft);
}

static uint32_t get4(const uint8_t *p)
{
  uint32_t v;
  memcpy(&v, p, 4);
  return GUINT32_FROM_LE(v);
}

static uint64_t get8(const uint8_t *p)
{
  uint64_t v;
  memcpy(&v, p, 8);
  return GUINT64_FROM_LE(v);
}

/* A malformed event (its length or header past the page's events): the rest of the page is dropped and counted as
 * lost, as a page cut by the end of the capture is. */
static bool bad_page(rsp_ftrace *ft, ftrace_cpu *c)
{
  ft->missed++;
  c->curr = c->next = c->commit;
  return false;
}

/* Moves C to the next event of its page with a payload: true with DATA, SIZE and TS set; false at the page's end. */
static bool next_in_page(rsp_ftrace *ft, ftrace_cpu *c)
{
  const uint8_t *ev = c->page + PAGE_HEADER;
  for (;;) {
    c->curr = c->next;
    if (c->next >= c->commit)
      return false;
    if (c->curr + 4 > c->commit)
      return bad_page(ft, c);
    uint32_t w = get4(ev + c->curr);
    unsigned type_len = w & 31;
    uint64_t delta = w >> 5;
    uint32_t at = c->curr + 4; /* the payload (or the type's next word) */
    uint64_t length;
    if (type_len >= TYPE_PADDING || type_len == 0) {
      if (at + 4 > c->commit)
        return bad_page(ft, c);
      uint32_t word = get4(ev + at);
      if (type_len == TYPE_PADDING) {
        length = word;
      } else if (type_len == 0) {
        if (word < 4)
          return bad_page(ft, c);
        length = ((uint64_t)word - 4 + 3) & ~(uint64_t)3;
        at += 4;
      } else {
        length = 0;
        at += 4;
        uint64_t t = ((uint64_t)word << TS_SHIFT) + delta;
        if (type_len == TYPE_TIME_STAMP) {
          c->ts = t | (c->ts & TS_MSB);
          delta = 0;
        } else {
          delta = t;
        }
      }
    } else {
      length = (uint64_t)type_len * 4;
    }
    c->ts += delta;
    c->next = at + length > UINT32_MAX ? UINT32_MAX : (uint32_t)(at + length);
    if (type_len < TYPE_PADDING) {
      if (at + length > c->commit)
        return bad_page(ft, c);
      c->data = ev + at;
      c->size = (uint32_t)length;
      return true;
    }
  }
}

/* Loads pages until one holds an event; false at the end of this CPU's file. */
static bool cpu_advance_page(rsp_ftrace *ft, ftrace_cpu *c)
{
  for (;;) {
    uint64_t pos = c->read_at;
    if (pos >= c->map_len) {
      c->done = true;
      return false;
    }
    if (c->map_len - pos < ft->page_size) {
      /* a capture cut mid-page (Ctrl-C): the partial page is dropped, counted as missed */
      ft->missed++;
      c->done = true;
      return false;
    }
    c->page = c->map + pos;
    c->read_at = pos + ft->page_size;
    c->page_offset = pos;
    ft->pages++;
    c->ts = get8(c->page);
    uint64_t flags = get8(c->page + 8);
    c->commit = (uint32_t)(flags & COMMIT_MASK);
    c->curr = c->next = 0;
    bool found = false;
    if (c->commit > ft->page_size - PAGE_HEADER)
      ft->missed++; /* not a page's header: dropped */
    else
      found = next_in_page(ft, c);
    /* events lost before the page, counted as kbuffer_missed_events does: when its first event with a payload is
     * its first event (-1, their number not stored: one) */
    if ((flags & MISSED_EVENTS) && c->curr == 0) {
      uint64_t missed = 1;
      if ((flags & MISSED_STORED) && PAGE_HEADER + (size_t)c->commit + 8 <= ft->page_size) {
        int lost = (int)get8(c->page + PAGE_HEADER + c->commit); /* (an int, as kbuffer returns it) */
        missed = lost > 0 ? (uint64_t)lost : lost == 0 ? 0 : 1;
      }
      ft->missed += missed;
    }
    if (found) {
      c->loaded = true;
      return true;
    }
  }
}

/* N of a file named cpuN.raw, N in 0..4095 written without leading zeros; -1 for any other name. */
static int cpu_of_name(const char *name)
{
  if (strncmp(name, "cpu", 3) != 0)
    return -1;
  const char *p = name + 3;
  int cpu = 0, digits = 0;
  for (; *p >= '0' && *p <= '9' && digits < 5; p++, digits++)
    cpu = cpu * 10 + (*p - '0');
  if (digits == 0 || (digits > 1 && name[3] == '0') || cpu >= 4096 || strcmp(p, ".raw") != 0)
    return -1;
  return cpu;
}

static gint cmp_int(gconstpointer a, gconstpointer b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return x < y ? -1 : x > y;
}

rsp_ftrace *rsp_ftrace_open(const char *dir, GError **error)
{
  rsp_ftrace *ft = g_new0(rsp_ftrace, 1);
  ft->dir = g_strdup(dir);
  ft->tep = tep_alloc();
  char *hp = g_build_filename(dir, "header_page", NULL);
  char *text = NULL;
  if (!g_file_get_contents(hp, &text, NULL, NULL) || !(ft->page_size = rsp_ftrace_page_size(text)) ||
      ft->page_size < 64 || ft->page_size > (1u << 24)) {
    g_set_error(error, RSP_READER_ERROR, RSP_READER_ERROR_FORMAT,
                "%s: missing or unreadable header_page: cannot decode the ftrace stream", hp);
    g_free(hp);
    g_free(text);
    rsp_ftrace_close(ft);
    return NULL;
  }
  tep_parse_header_page(ft->tep, text, (unsigned long)strlen(text), 8);
  g_free(text);
  g_free(hp);
  if (!load_formats(ft, error)) {
    rsp_ftrace_close(ft);
    return NULL;
  }
  GArray *cpus = g_array_new(FALSE, TRUE, sizeof(ftrace_cpu));
  /* the cpuN.raw files the directory holds, N in 0..4095 written as "%d" does, in cpu order: trying every N was
   * 4096 failed opens, 10-15 ms before the first event */
  GArray *numbers = g_array_new(FALSE, FALSE, sizeof(int));
  GDir *d = g_dir_open(dir, 0, NULL);
  for (const char *entry; d && (entry = g_dir_read_name(d));) {
    int cpu = cpu_of_name(entry);
    if (cpu >= 0)
      g_array_append_val(numbers, cpu);
  }
  if (d)
    g_dir_close(d);
  g_array_sort(numbers, cmp_int);
  for (guint i = 0; i < numbers->len; i++) {
    int cpu = g_array_index(numbers, int, i);
    char name[32];
    g_snprintf(name, sizeof name, "cpu%d.raw", cpu);
    char *path = g_build_filename(dir, name, NULL);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      if (fd >= 0)
        close(fd);
      g_free(path);
      continue;
    }
    ftrace_cpu c = {.path = path, .cpu = cpu};
    if (st.st_size > 0) {
      void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (m == MAP_FAILED) {
        g_set_error(error, RSP_READER_ERROR, RSP_READER_ERROR_IO, "%s: cannot map the ftrace capture: %s", path,
                    g_strerror(errno));
        close(fd);
        g_free(path);
        g_array_unref(numbers);
        g_array_unref(cpus);
        rsp_ftrace_close(ft);
        return NULL;
      }
      madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
      c.map = m;
      c.map_len = (uint64_t)st.st_size;
    }
    close(fd);
    g_array_append_val(cpus, c);
  }
  g_array_unref(numbers);
  ft->n_cpus = cpus->len;
  ft->cpus = (ftrace_cpu *)g_array_free(cpus, FALSE);
  for (unsigned i = 0; i < ft->n_cpus; i++)
    cpu_advance_page(ft, &ft->cpus[i]);
  return ft;
}

/* The CPU whose next event is the oldest, or NULL when every stream is done. */
static ftrace_cpu *oldest(rsp_ftrace *ft)
{
  ftrace_cpu *best = NULL;
  for (unsigned i = 0; i < ft->n_cpus; i++) {
    ftrace_cpu *c = &ft->cpus[i];
    if (c->loaded && (!best || c->ts < best->ts))
      best = c;
  }
  return best;
}

/* The current event of C, as an rsp_ftrace_event. */
static void current_event(const ftrace_cpu *c, rsp_ftrace_event *out)
{
  out->time = c->ts;
  out->cpu = c->cpu;
  out->data = c->data;
  out->size = c->size;
  out->offset = c->page_offset + PAGE_HEADER + c->curr;
  uint16_t type = 0;
  if (out->size >= 2)
    memcpy(&type, c->data, 2);
  out->type_id = type;
}

/* Moves C past its current event. */
static void cpu_step(rsp_ftrace *ft, ftrace_cpu *c)
{
  ft->events++;
  if (!next_in_page(ft, c)) {
    c->loaded = false;
    cpu_advance_page(ft, c);
  }
}

static bool peek_oldest(rsp_ftrace *ft, rsp_ftrace_event *out)
{
  ftrace_cpu *c = oldest(ft);
  ft->head_cpu = c;
  if (!c)
    return false;
  current_event(c, out);
  return true;
}

const rsp_ftrace_event *rsp_ftrace_peek(rsp_ftrace *ft)
{
  if (!ft->head_known) {
    peek_oldest(ft, &ft->head);
    ft->head_known = true;
  }
  return ft->head_cpu ? &ft->head : NULL;
}

void rsp_ftrace_pop(rsp_ftrace *ft)
{
  ftrace_cpu *c = ft->head_known ? ft->head_cpu : oldest(ft);
  ft->head_known = false;
  if (c)
    cpu_step(ft, c);
}

unsigned rsp_ftrace_n_cpus(const rsp_ftrace *ft) { return ft->n_cpus; }
int rsp_ftrace_cpu_number(const rsp_ftrace *ft, unsigned i) { return ft->cpus[i].cpu; }

bool rsp_ftrace_cpu_next(rsp_ftrace *ft, unsigned i, rsp_ftrace_event *out)
{
  ftrace_cpu *c = &ft->cpus[i];
  ft->head_known = false;
  if (!c->loaded)
    return false;
  current_event(c, out);
  cpu_step(ft, c);
  return true;
}

void rsp_ftrace_cpu_release(rsp_ftrace *ft, unsigned i, uint64_t below)
{
  ftrace_cpu *c = &ft->cpus[i];
  uint64_t page_mask = ~(uint64_t)(sysconf(_SC_PAGESIZE) - 1);
  uint64_t upto = MIN(below, c->page_offset) & page_mask; /* (the loaded page stays) */
  if (upto <= c->released)
    return;
  madvise(c->map + c->released, (size_t)(upto - c->released), MADV_DONTNEED);
  c->released = upto;
}

struct tep_handle *rsp_ftrace_tep(rsp_ftrace *ft) { return ft->tep; }
uint64_t rsp_ftrace_missed(const rsp_ftrace *ft) { return ft->missed; }

rsp_ftrace_tally *rsp_ftrace_tally_dir(const char *dir, uint64_t from, uint64_t to, GError **error)
{
  rsp_ftrace *ft = rsp_ftrace_open(dir, error);
  if (!ft)
    return NULL;
  rsp_ftrace_tally *t = g_new0(rsp_ftrace_tally, 1);
  t->events = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  t->cpus = ft->n_cpus;
  GHashTable *last = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  for (const rsp_ftrace_event *head; (head = rsp_ftrace_peek(ft));) {
    rsp_ftrace_event ev = *head;
    if (!t->total)
      t->first_time = ev.time;
    t->last_time = ev.time;
    t->total++;
    uint64_t *prev = g_hash_table_lookup(last, GINT_TO_POINTER(ev.cpu + 1));
    if (!prev) {
      prev = g_new0(uint64_t, 1);
      g_hash_table_insert(last, GINT_TO_POINTER(ev.cpu + 1), prev);
    } else if (ev.time < *prev) {
      t->disorder++;
    }
    *prev = ev.time;
    struct tep_event *te = ev.size >= 2 ? tep_find_event(ft->tep, ev.type_id) : NULL;
    if (!te) {
      t->unknown++;
    } else if (ev.time >= from && ev.time <= to) {
      t->in_window++;
      char *name = g_strdup_printf("%s:%s", te->system, te->name);
      uint64_t *n = g_hash_table_lookup(t->events, name);
      if (!n) {
        n = g_new0(uint64_t, 1);
        g_hash_table_insert(t->events, name, n);
      } else {
        g_free(name);
      }
      (*n)++;
    }
    rsp_ftrace_pop(ft);
  }
  t->pages = ft->pages;
  t->missed = ft->missed;
  g_hash_table_unref(last);
  rsp_ftrace_close(ft);
  return t;
}

uint64_t rsp_ftrace_tally_get(const rsp_ftrace_tally *tally, const char *event)
{
  const uint64_t *n = tally ? g_hash_table_lookup(tally->events, event) : NULL;
  return n ? *n : 0;
}

void rsp_ftrace_tally_free(rsp_ftrace_tally *tally)
{
  if (!tally)
    return;
  g_hash_table_unref(tally->events);
  g_free(tally);
}
