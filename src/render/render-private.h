/* Internals shared by the views of src/render/ (not part of the public render.h). */
#pragma once

#include "render/render.h"

G_BEGIN_DECLS

/* The fill of a frame of KINDS (RSP_FRAME_* bits) in STYLE. */
rsp_rgb rsp_frame_colour(unsigned kinds, const rsp_style *style);

/* The text of E's base row: the process ("comm tid") for runs and sleeps, "disk" / "network". */
const char *rsp_layer_base_label(const rsp_model *model, const rsp_path_elem *e, char *buf, size_t size);

/* Whether LABEL contains the search text NEEDLE, ignoring case (NEEDLE already folded to lower case). */
bool rsp_label_matches(const char *label, const char *needle);

/* The flame view (rsp_flame_view_new_kwork) with paths of at most EXACT_FRAMES frames in all their columns cut
 * exactly, else on a grid of 1/16384 of their span and cut again, finer, when zoomed in; and the cells its whole
 * holds (the tests: what the grid draws against what the exact cut draws). */
rsp_flame_view *rsp_flame_view_new_cut(const rsp_paths *paths, const rsp_kernel_work *kw, uint64_t exact_frames);
uint32_t rsp_flame_view_n_cells(const rsp_flame_view *view);

/* The histogram views' font size: STYLE's, else 10. */
double rsp_histogram_font_size(const rsp_histogram_style *style);
/* A histogram view's drawing begins: cairo_save, a white WIDTH x HEIGHT background, the sans-serif
 * font at FONT_SIZE (the caller ends with cairo_restore). */
void rsp_histogram_begin(cairo_t *cr, double width, double height, double font_size);

/* The baseline of a line of text in a box of HEIGHT pixels, from the box's top: the text from its
 * capitals' top to its underscores' bottom centred in it (issue 17: a baseline 3 px above the
 * bottom put the underscores of "__libc_recv" on the box's edge, clipped). With CR's font. */
double rsp_text_baseline(cairo_t *cr, double height);

/* A coarse index of N sorted times (time-index.c): where a search for a time needs to look. */
typedef struct rsp_time_index {
  uint64_t first;  /* the first time */
  uint32_t *below; /* nb + 1: how many times lie before each bucket's start; NULL: no index (few or out of order) */
  uint32_t n, nb;
  unsigned shift;  /* a bucket spans 2^shift ns */
} rsp_time_index;
/* Fewer times than this get no index (a binary search of them touches a few cache lines anyway). */
#define RSP_TIME_INDEX_MIN 64u
/* Indexes the N times at TIMES, STRIDE bytes apart (each the first 8 bytes of its item, native order). */
void rsp_time_index_build(rsp_time_index *ix, const void *times, size_t stride, uint32_t n);
void rsp_time_index_clear(rsp_time_index *ix);
/* [*LO, *HI]: where both the number of IX's times before T and the number at or before T lie. */
void rsp_time_index_range(const rsp_time_index *ix, uint64_t t, uint32_t *lo, uint32_t *hi);

G_END_DECLS
