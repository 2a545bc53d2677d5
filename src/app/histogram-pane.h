/* The histograms pane of rsp-view's window (issue 7): the latency profiles of the loaded
 * recording (class and process, sorted by total latency), the selected one drawn as a histogram
 * (render/histogram-view.c) or as a heat map of buckets x time slices (render/heatmap-view.c), and
 * the instances of the bucket clicked, which the window highlights in its running view. The
 * profiles are built in a worker thread; a process or a time range selected in the views filters
 * them. Widgets from ui/histogram-pane.ui. */
#pragma once

#include "render/render.h"

#include <gtk/gtk.h>

typedef struct rsp_histogram_pane rsp_histogram_pane;

typedef struct rsp_histogram_pane_hooks {
  /* The instances of the bucket (or heat-map cell) clicked; N 0: none. */
  void (*highlight)(const rsp_highlight *items, uint32_t n, void *data);
  /* An instance double-clicked: show [T0, T1] (recording time) in the views. */
  void (*show_time)(uint64_t t0, uint64_t t1, void *data);
  void *data;
} rsp_histogram_pane_hooks;

typedef struct rsp_histogram_pane_options {
  unsigned resolution;     /* 0: 1 */
  uint64_t slice_ns;       /* 0: 2.5 s */
  const char *first_class; /* selected once the profiles are built (NULL: the largest) */
  bool heatmap;            /* show the heat map first */
  int32_t pid;             /* the first model's profiles filtered to this process (-1: every process) */
} rsp_histogram_pane_options;

rsp_histogram_pane *rsp_histogram_pane_new(const rsp_histogram_pane_hooks *hooks,
                                           const rsp_histogram_pane_options *options);
/* The pane's top widget (owned by the pane until packed). */
GtkWidget *rsp_histogram_pane_widget(rsp_histogram_pane *pane);
/* The profiles of MODEL (NULL: none). Waits for the worker still building the previous model's,
 * so the caller may free that model afterwards. MODEL must outlive the pane or be unset first. */
void rsp_histogram_pane_set_model(rsp_histogram_pane *pane, const rsp_model *model);
/* The same, the profiles of process PID only (-1: all) unless the options chose one: the process the app opens
 * next, whose profiles are then built once (not every process's first, beside the flame view's build). */
void rsp_histogram_pane_set_model_pid(rsp_histogram_pane *pane, const rsp_model *model, int32_t pid);
/* Filters: the profiles of process PID only (-1: every process), of the instances that begin in
 * [T0, T1) (both 0: the whole recording). Each rebuilds the profiles. */
void rsp_histogram_pane_set_pid(rsp_histogram_pane *pane, int32_t pid);
void rsp_histogram_pane_set_range(rsp_histogram_pane *pane, uint64_t t0, uint64_t t1);
/* The process filter (-1: none). */
int32_t rsp_histogram_pane_pid(const rsp_histogram_pane *pane);
/* Whether the worker is building profiles. */
bool rsp_histogram_pane_busy(const rsp_histogram_pane *pane);
void rsp_histogram_pane_free(rsp_histogram_pane *pane);

/* For rsp-view --self-test: CHECK(ok, what, data) for each check; exercises the list, a bucket
 * click, the heat map and the filters. Pumps the main loop; call with the pane on screen. */
typedef bool (*rsp_self_check_fn)(bool ok, const char *what, void *data);
/* How many instances the pane last handed to the highlight hook. */
uint32_t rsp_histogram_pane_n_highlighted(const rsp_histogram_pane *pane);
void rsp_histogram_pane_self_test(rsp_histogram_pane *pane, rsp_self_check_fn check, void *data);
