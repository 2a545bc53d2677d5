/* Internals shared by the parts of the HTML report (not part of the public report.h). */
#pragma once

#include "report/report.h"

G_BEGIN_DECLS

/* S escaped for HTML text and attribute values (& < > " '). */
void rsp_html_escape(FILE *out, const char *s);
/* The fill of a frame of KINDS (RSP_FRAME_* bits) as "#rrggbb", the views' colours. */
const char *rsp_report_frame_fill(unsigned kinds, char buf[8]);
/* A time axis: ticks with labels (<text>) across WIDTH pixels from X0 for SPAN_NS, 20 pixels from Y down;
 * BELOW: under a drawing (the ticks at the top), else over it. */
void rsp_report_svg_ruler(FILE *out, uint64_t span_ns, double x0, double width, double y, bool below);

/* The views, each one <svg> element. The consolidated view returns how many frames deeper than the
 * rows it draws it left out. */
uint32_t rsp_report_consolidated_svg(FILE *out, const rsp_paths *paths, const rsp_kernel_work *kw, int width);
void rsp_report_flame_svg(FILE *out, const rsp_paths *paths, const rsp_kernel_work *kw, int width);
void rsp_report_running_svg(FILE *out, const rsp_paths *paths, int width);
/* The MAX largest latency profiles of process PID, each an <svg> of bars with text labels; how many. */
uint32_t rsp_report_histograms(FILE *out, const rsp_model *model, int32_t pid, uint32_t max, int width);

G_END_DECLS
