/* Buffered sequential input over a perf.data file or a pipe. A regular file is mapped whole, once (the records are
 * decoded in place, without read()'s copy, and may be pointed at until the source is closed: the ordering buffer
 * and the reader thread's batches keep pointers instead of copies); what its owner says it no longer needs is
 * given back to the kernel as it goes (madvise), so a 4 GB file does not become resident. Should the whole
 * mapping fail (a 32-bit address space), the file is mapped a window at a time. A pipe is read into a buffer. */
#include "reader/reader-private.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SOURCE_WINDOW (4u << 20)
/* How much of a whole mapping is read on between two looks at what may be given back (each look one madvise, a few
 * hundred on a 1 GB file): up to that much of the pages already read stays resident. 32 MB was a seventh of
 * rsp-summary's peak on a 1.1 GB recording; 8 MB still a tenth of it on a 546 MB one (bench/deep-stacks.sh). */
#define RELEASE_STEP (2u << 20)

static uint64_t page_size(void)
{
  static uint64_t page;
  if (!page)
    page = (uint64_t)sysconf(_SC_PAGESIZE);
  return page;
}

/* The whole file in one mapping; false (and nothing mapped) when the address space has no room for it. */
static bool map_whole(rsp_source *src)
{
  if (src->file_size == 0 || src->file_size > SIZE_MAX)
    return false;
  void *map = mmap(NULL, (size_t)src->file_size, PROT_READ, MAP_PRIVATE, src->fd, 0);
  if (map == MAP_FAILED)
    return false;
  madvise(map, (size_t)src->file_size, MADV_SEQUENTIAL);
  src->map = map;
  src->map_len = (size_t)src->file_size;
  src->map_off = 0;
  src->whole = true;
  return true;
}

bool rsp_source_open(rsp_source *src, const char *path, GError **error)
{
  memset(src, 0, sizeof *src);
  src->path = path;
  if (strcmp(path, "-") == 0) {
    src->fd = STDIN_FILENO;
    src->owns_fd = false;
  } else {
    src->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (src->fd < 0) {
      g_set_error(error, RSP_READER_ERROR, RSP_READER_ERROR_IO, "%s: cannot open: %s", path,
                  g_strerror(errno));
      return false;
    }
    src->owns_fd = true;
  }
  struct stat st;
  src->seekable = fstat(src->fd, &st) == 0 && S_ISREG(st.st_mode);
  if (src->seekable) {
    posix_fadvise(src->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    src->file_size = (uint64_t)st.st_size;
    map_whole(src);
  } else {
    src->cap = SOURCE_WINDOW;
    src->buf = g_malloc(src->cap);
  }
  src->limit = UINT64_MAX;
  return true;
}

void rsp_source_close(rsp_source *src)
{
  if (src->owns_fd && src->fd >= 0)
    close(src->fd);
  src->fd = -1;
  if (src->map)
    munmap(src->map, src->map_len);
  src->map = NULL;
  g_free(src->buf);
  src->buf = NULL;
}

bool rsp_source_pread(rsp_source *src, void *dst, size_t len, uint64_t offset, const char *what,
                      GError **error)
{
  size_t done = 0;
  while (done < len) {
    ssize_t n = pread(src->fd, (uint8_t *)dst + done, len - done, (off_t)(offset + done));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      rsp_set_error(error, RSP_READER_ERROR_IO, src->path, offset + done, "reading %s: %s", what,
                    g_strerror(errno));
      return false;
    }
    if (n == 0) {
      rsp_set_error(error, RSP_READER_ERROR_TRUNCATED, src->path, offset + done,
                    "file ends inside %s (%zu of %zu bytes)", what, done, len);
      return false;
    }
    done += (size_t)n;
  }
  return true;
}

bool rsp_source_seek(rsp_source *src, uint64_t offset, uint64_t limit, GError **error)
{
  if (lseek(src->fd, (off_t)offset, SEEK_SET) < 0) {
    rsp_set_error(error, RSP_READER_ERROR_IO, src->path, offset, "seek: %s", g_strerror(errno));
    return false;
  }
  src->start = src->end = 0;
  src->pos = offset;
  src->limit = limit;
  src->eof = false;
  if (src->whole) {
    src->released = MIN(src->released, offset / page_size() * page_size());
    src->next_release = offset + RELEASE_STEP;
  }
  return true;
}

/* File mode: [pos, pos + n) from a mapped window, mapping the next window when needed. */
static const uint8_t *peek_mapped(rsp_source *src, size_t n, size_t *available, GError **error)
{
  uint64_t end = src->limit < src->file_size ? src->limit : src->file_size;
  uint64_t have = end > src->pos ? end - src->pos : 0;
  if (have < n) {
    src->eof = true;
    *available = (size_t)have;
    return NULL;
  }
  if (src->map && src->pos >= src->map_off && src->pos + n <= src->map_off + src->map_len)
    return src->map + (src->pos - src->map_off);
  g_assert(!src->whole); /* a whole mapping holds every byte below file_size */
  if (src->map)
    munmap(src->map, src->map_len);
  src->map = NULL;
  uint64_t page = page_size();
  uint64_t off = src->pos / page * page;
  uint64_t len = (src->pos - off) + n;
  if (len < SOURCE_WINDOW)
    len = SOURCE_WINDOW;
  if (len > src->file_size - off)
    len = src->file_size - off;
  void *map = mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, src->fd, (off_t)off);
  if (map == MAP_FAILED) {
    rsp_set_error(error, RSP_READER_ERROR_IO, src->path, src->pos, "mmap: %s", g_strerror(errno));
    return NULL;
  }
  madvise(map, (size_t)len, MADV_SEQUENTIAL);
  src->map = map;
  src->map_len = (size_t)len;
  src->map_off = off;
  return src->map + (src->pos - src->map_off);
}

const uint8_t *rsp_source_peek_any(rsp_source *src, size_t n, size_t *available, GError **error)
{
  if (src->seekable)
    return peek_mapped(src, n, available, error);
  size_t have = src->end - src->start;
  if (have >= n)
    return src->buf + src->start;
  if (n > src->cap) {
    size_t cap = src->cap;
    while (cap < n)
      cap *= 2;
    uint8_t *nb = g_malloc(cap);
    memcpy(nb, src->buf + src->start, have);
    g_free(src->buf);
    src->buf = nb;
    src->cap = cap;
    src->start = 0;
    src->end = have;
  } else if (src->start > 0) {
    memmove(src->buf, src->buf + src->start, have);
    src->start = 0;
    src->end = have;
  }
  while (src->end - src->start < n && !src->eof) {
    uint64_t stream_end = src->pos + (src->end - src->start);
    size_t want = src->cap - src->end;
    if (src->limit != UINT64_MAX) {
      uint64_t left = src->limit > stream_end ? src->limit - stream_end : 0;
      if (left < want)
        want = (size_t)left;
    }
    if (want == 0) {
      src->eof = true;
      break;
    }
    ssize_t got = read(src->fd, src->buf + src->end, want);
    if (got < 0) {
      if (errno == EINTR)
        continue;
      rsp_set_error(error, RSP_READER_ERROR_IO, src->path, stream_end, "read: %s",
                    g_strerror(errno));
      return NULL;
    }
    if (got == 0)
      src->eof = true;
    src->end += (size_t)got;
  }
  have = src->end - src->start;
  if (have >= n)
    return src->buf + src->start;
  *available = have;
  return NULL;
}

/* How far ahead of the position a whole mapping's bytes are fetched into the cache: the records are read
 * a few words each (header, id, time), far apart, which the processor's own prefetch does not foresee. */
#define PREFETCH_AHEAD (16u << 10)

void rsp_source_consume(rsp_source *src, size_t n)
{
  if (src->seekable) {
    src->pos += n;
    if (src->whole) {
      uint64_t to = MIN(src->pos + PREFETCH_AHEAD, (uint64_t)src->map_len);
      uint64_t at = MAX(src->prefetched, src->pos);
      for (; at < to; at += 64)
        __builtin_prefetch(src->map + at);
      src->prefetched = at;
    }
    return;
  }
  g_assert(n <= src->end - src->start);
  src->start += n;
  src->pos += n;
}

bool rsp_source_release_due(const rsp_source *src)
{
  return src->whole && src->pos >= src->next_release;
}

void rsp_source_release(rsp_source *src, uint64_t below)
{
  if (!src->whole)
    return;
  src->next_release = src->pos + RELEASE_STEP;
  uint64_t page = page_size();
  uint64_t upto = MIN(below, src->pos) / page * page;
  if (upto <= src->released)
    return;
  /* MAP_PRIVATE and never written: the pages go back to the page cache, and a later touch reads them again */
  madvise(src->map + src->released, (size_t)(upto - src->released), MADV_DONTNEED);
  src->released = upto;
}
