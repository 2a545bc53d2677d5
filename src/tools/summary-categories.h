/* rsp-summary --categories and --waits: the paper's categories table for the control paths of a
 * process, and the top waits on those paths by wait site. */
#pragma once

#include "analysis/analysis.h"

#include <stdio.h>

typedef struct summary_categories_options {
  int32_t pid;          /* -1: COMM, else the recording's workload */
  const char *comm;     /* NULL: none */
  uint64_t tolerance_ns, poll_gap_ns; /* when *_set (0 is zero), else the paper's */
  bool tolerance_set, poll_gap_set;
  bool categories, waits, paths, explain, json;
  bool timings;         /* RSP_TIMINGS: the wall time of each step on stderr */
} summary_categories_options;

/* Prints to OUT; the exit status (errors on stderr, naming PATH). */
int summary_categories_print(const rsp_model *model, const char *path, const summary_categories_options *o,
                             FILE *out);
