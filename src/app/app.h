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
} rsp_app_options;

/* Runs the application; returns the process exit status. */
int rsp_app_run(const rsp_app_options *options);
