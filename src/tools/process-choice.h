/* The process of interest of a tool (rsp-summary --categories, rsp-report): --pid (a thread id: its
 * process), --comm (the longest-running process of that name), else the recording's workload; and
 * why it was chosen, in words. */
#pragma once

#include "model/model.h"

#include <stdbool.h>

typedef struct poi_other {
  int32_t pid;
  uint64_t runtime_ns;
} poi_other;

typedef struct poi_choice {
  int32_t pid;
  const char *source; /* machine name of the rule */
  char *reason;       /* one line */
  GArray *others;     /* --comm: the other processes of that name (poi_other), longest first */
} poi_choice;

/* PID >= 0: that process; else COMM (NULL: none), else the workload. False with the error printed on
 * stderr, after "PROG: PATH: ", when there is none; poi_clear() C either way. */
bool poi_choose(const rsp_model *m, const char *prog, const char *path, int32_t pid, const char *comm,
                poi_choice *c);
void poi_clear(poi_choice *c);
