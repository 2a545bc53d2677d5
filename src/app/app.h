/* rsp-view's GTK 3 application: the window hosting the render/ views, the loading thread. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct rsp_app_options {
  const char *file;   /* opened at once (may be NULL: the window opens empty) */
  bool self_test;     /* load, exercise the widgets, check accessible names, quit: exit 0 when all passed */
  int32_t focus_pid;  /* -1: none */
  int32_t flame_pid;  /* -1: none */
  const char *filter, *search;
  /* issue 7: latency profiles */
  const char *diff_a, *diff_b;  /* both set: the compare window of these two recordings, no main window */
  const char *histogram_class;  /* the class selected first in the histograms pane (NULL: the largest) */
  bool heatmap;                 /* show the heat map of that class rather than its histogram */
  int32_t histogram_pid;        /* the histograms of this process only at first (-1: every process) */
  uint64_t slice_ns;            /* time slice of the heat map (0: 2.5 s) */
  unsigned resolution;          /* buckets per octave (0: 1) */
} rsp_app_options;

/* A big recording's first window, the model the window draws while the whole loads (its length in ns from
 * the recording's start in *LENGTH); NULL when PATH is loaded whole at once (not big, or a pipe) or the window
 * cannot be read (the whole load then says why). */
struct rsp_model;
struct rsp_model *rsp_app_load_first_window(const char *path, uint64_t *length);

/* Runs the application; returns the process exit status. */
int rsp_app_run(const rsp_app_options *options);
