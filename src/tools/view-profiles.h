/* rsp-view --export of issue 7's drawings: a latency histogram (--histogram CLASS), a time-sampled
 * profile as a heat map (--heatmap CLASS), and two recordings compared (--diff A B). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct view_profile_args {
  const char *histogram, *heatmap; /* class names, or NULL */
  int32_t pid;                     /* -1: every process's */
  unsigned resolution;
  uint64_t slice_ns;
  bool normalized;
  int width, height;               /* 0: defaults */
  const char *out;
} view_profile_args;

/* Each returns the exit status, the errors said on stderr with the file's name. */
int view_export_profile(const char *file, const view_profile_args *args);
int view_export_diff(const char *file_a, const char *file_b, const view_profile_args *args);
