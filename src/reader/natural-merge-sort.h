/* A stable natural merge sort, written once for rsp's nearly sorted arrays (symbols and runs by start,
 * links by the run they end at): each pass merges neighbouring ascending stretches, so an array
 * that is almost in order takes few passes. Instantiated per element type, so that elements are
 * moved by assignment and compared without a call through a pointer.
 *
 *   RSP_DEFINE_NATURAL_MERGE_SORT(NAME, TYPE, BEFORE)
 *
 * defines `static void NAME(TYPE *a, size_t n)`, sorting A by BEFORE(const TYPE *x, const TYPE *y)
 * (true when X must come strictly before Y); equal elements keep their order. */
#ifndef RSP_READER_NATURAL_MERGE_SORT_H
#define RSP_READER_NATURAL_MERGE_SORT_H

#include <glib.h>
#include <string.h>

#define RSP_DEFINE_NATURAL_MERGE_SORT(NAME, TYPE, BEFORE)                                          \
  static void NAME(TYPE *a, size_t n)                                                              \
  {                                                                                                \
    size_t sorted = 1; /* in order already (often, whole): no buffer (new pages) and no copies */   \
    while (sorted < n && !BEFORE(&a[sorted], &a[sorted - 1]))                                      \
      sorted++;                                                                                    \
    if (sorted >= n)                                                                               \
      return;                                                                                      \
    TYPE *tmp = g_new(TYPE, n);                                                                    \
    TYPE *src = a, *dst = tmp;                                                                     \
    for (;;) {                                                                                     \
      size_t stretches = 0, i = 0;                                                                 \
      while (i < n) {                                                                              \
        size_t lo = i, mid = i + 1;                                                                \
        while (mid < n && !BEFORE(&src[mid], &src[mid - 1]))                                       \
          mid++;                                                                                   \
        size_t hi = mid;                                                                           \
        if (mid < n) {                                                                             \
          hi = mid + 1;                                                                            \
          while (hi < n && !BEFORE(&src[hi], &src[hi - 1]))                                        \
            hi++;                                                                                  \
        }                                                                                          \
        size_t x = lo, y = mid, k = lo;                                                            \
        while (x < mid && y < hi)                                                                  \
          dst[k++] = BEFORE(&src[y], &src[x]) ? src[y++] : src[x++];                               \
        while (x < mid)                                                                            \
          dst[k++] = src[x++];                                                                     \
        while (y < hi)                                                                             \
          dst[k++] = src[y++];                                                                     \
        stretches++;                                                                               \
        i = hi;                                                                                    \
      }                                                                                            \
      TYPE *t = src;                                                                               \
      src = dst;                                                                                   \
      dst = t;                                                                                     \
      if (stretches <= 1)                                                                          \
        break;                                                                                     \
    }                                                                                              \
    if (src != a)                                                                                  \
      memcpy(a, src, n * sizeof *a);                                                               \
    g_free(tmp);                                                                                   \
  }

#endif
