/* rsp report: the analysis of one process of interest as one self-contained HTML file to share
 * (issue 19): the explanation, the categories table, the running, flame and consolidated views and
 * the top latency histograms as inline SVG whose labels are <text> (searchable, selectable), and the
 * loss notes. No network: no external scripts, fonts, style sheets or images.
 *
 * The one public header of src/report/. It reads the analysis and writes text; it draws nothing with
 * cairo (render/ gives it the colours only).
 */
#pragma once

#include <stdio.h>

#include "analysis/analysis.h"

G_BEGIN_DECLS

typedef struct rsp_report_options {
  const char *file;        /* the recording's path, as named in the title */
  const char *poi_reason;  /* why this process of interest, one line (NULL: none said) */
  int width;               /* pixels of the views' plots; 0: 1200 */
  uint32_t max_histograms; /* the largest latency profiles of the process shown; 0: 6 */
} rsp_report_options;

/* Writes the report of PATHS (the control paths of the process of interest) to OUT; false with
 * ERROR set when OUT failed. */
bool rsp_report_write_html(const rsp_paths *paths, const rsp_report_options *options, FILE *out,
                           GError **error);

G_END_DECLS
