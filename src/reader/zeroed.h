/* Zeroed arrays that are read before they are written (counters of a counting sort, open-addressed tables probed
 * before a slot is filled): calloc hands out fresh pages untouched, the first read of each maps the shared zero
 * page, and the first write then copies it, a second fault with a TLB shootdown to the cpus running the process's
 * other threads (a recorded build: 5% of rsp-summary's cpu time, in the symbolizer's frame cache and the stacks'
 * tables). Zeroing them by writing takes one fault a page.
 *
 *   rsp_new_zeroed(TYPE, N)   as g_new0(TYPE, N), its memory written */
#ifndef RSP_READER_ZEROED_H
#define RSP_READER_ZEROED_H

#include <glib.h>
#include <string.h>

static inline void *rsp_alloc_zeroed(size_t n, size_t size)
{
  void *p = g_malloc_n(n ? n : 1, size);
  memset(p, 0, (n ? n : 1) * size);
  return p;
}

#define rsp_new_zeroed(TYPE, N) ((TYPE *)rsp_alloc_zeroed((N), sizeof(TYPE)))

#endif
