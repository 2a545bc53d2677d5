/* rsp-view --diff A.data B.data (issue 7): both recordings loaded in a worker thread with progress
 * and cancel, their latency profiles compared as rsp-diff compares them (OSprof's three phases,
 * src/analysis/profile-compare.c), the ranked pairs listed, the selected pair's two profiles
 * overlaid (render/histogram-compare-view.c). Widgets from ui/compare-window.ui. */
#pragma once

#include "app/histogram-pane.h"

#include <gtk/gtk.h>

typedef struct rsp_compare_window rsp_compare_window;

typedef struct rsp_compare_options {
  const char *file_a, *file_b;
  unsigned resolution;     /* 0: 1 */
  const char *first_class; /* the pair selected first (NULL: the top-ranked) */
  /* --self-test: once loaded, run the checks through CHECK, then close the window */
  rsp_self_check_fn check;
  void *check_data;
} rsp_compare_options;

/* Opens the window (on APP) and starts loading; the window frees itself when closed. */
rsp_compare_window *rsp_compare_window_open(GtkApplication *app, const rsp_compare_options *options);
