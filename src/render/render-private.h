/* Internals shared by the flame views of src/render/ (not part of the public render.h). */
#pragma once

#include "render/render.h"

G_BEGIN_DECLS

/* What a frame of a flame view stands for, as bits so that merged frames keep all of them: a frame
 * that is in a run's stack and in a sleep's (a function that calls both) is drawn purple. */
enum {
  RSP_FRAME_PROCESS = 1 << 0, /* the process-name row at the base of a layer (grey) */
  RSP_FRAME_RUN = 1 << 1,     /* a function of a run's (sampled) stack (red) */
  RSP_FRAME_SLEEP = 1 << 2,   /* a function of a sleep's wait stack (blue) */
  RSP_FRAME_IO = 1 << 3,      /* a function of a blocking-I/O sleep's stack, or a disk request (green) */
  RSP_FRAME_NET = 1 << 4,     /* a network operation a sleep waited on */
};

/* The fill of a frame of KINDS (RSP_FRAME_* bits) in STYLE. */
rsp_rgb rsp_frame_colour(unsigned kinds, const rsp_style *style);

/* One layer of a pseudo-stack drawn as its stack (paper, "Flame View"): a column is a time range of
 * the layer and the functions on its stack over it, outermost first. A run with samples has one
 * column per sample, its time divided equally; a run without samples borrows the user-space part of
 * the stack it went to sleep in (else of the one it woke up in): those functions were on its stack
 * when it ended (began); a sleep has its wait stack, kernel and user frames; a disk or network
 * element has no stack. FRAMES are the model's, innermost first: column frame I (0 = outermost) is
 * FRAMES[N - 1 - I]. */
typedef void (*rsp_layer_column_fn)(uint64_t start, uint64_t end, const rsp_model_frame *frames, uint32_t n,
                                    void *data);
/* Calls FN for each column of E, in time order; returns the most frames a column has. KINDS: the
 * RSP_FRAME_* bit of E's functions. */
uint32_t rsp_layer_columns(const rsp_model *model, const rsp_path_elem *e, rsp_layer_column_fn fn, void *data,
                           unsigned *kinds);
/* The text of E's base row: the process ("comm tid") for runs and sleeps, "disk" / "network". */
const char *rsp_layer_base_label(const rsp_model *model, const rsp_path_elem *e, char *buf, size_t size);

/* Whether LABEL contains the search text NEEDLE, ignoring case (NEEDLE already folded to lower case). */
bool rsp_label_matches(const char *label, const char *needle);

G_END_DECLS
