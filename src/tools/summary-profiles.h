/* rsp-summary --profiles: latency profiles as text histograms or JSON. */
#pragma once

#include "analysis/analysis.h"

#include <stdio.h>

/* The options --profiles, --resolution R and --pid PID, as a group rsp-summary adds to its context. */
GOptionGroup *summary_profiles_option_group(void);
/* Whether --profiles was given. */
bool summary_profiles_requested(void);
/* Prints the profiles of MODEL (read from PATH) to OUT; the exit status (errors on stderr). */
int summary_profiles_print(const rsp_model *model, const char *path, bool json, FILE *out);
/* --pid, or -1. */
int32_t summary_profiles_pid(void);
