/* Internals shared by the flame views of src/render/ (not part of the public render.h). */
#pragma once

#include "render/render.h"

G_BEGIN_DECLS

/* The fill of a frame of KINDS (RSP_FRAME_* bits) in STYLE. */
rsp_rgb rsp_frame_colour(unsigned kinds, const rsp_style *style);

/* The text of E's base row: the process ("comm tid") for runs and sleeps, "disk" / "network". */
const char *rsp_layer_base_label(const rsp_model *model, const rsp_path_elem *e, char *buf, size_t size);

/* Whether LABEL contains the search text NEEDLE, ignoring case (NEEDLE already folded to lower case). */
bool rsp_label_matches(const char *label, const char *needle);

G_END_DECLS
