/* Internals shared by the latency-profile files of src/analysis/. */
#pragma once

#include "analysis/analysis.h"

/* Sorts P's instances by bucket and fills its buckets, totals and peaks. */
void rsp_profile_finish(rsp_profile *p);
