/* rsp exports: the analysis written in other tools' formats (issue 19).
 *
 * The one public header of src/export/, a layer above src/analysis/: it reads the model and the control
 * paths and writes files other viewers load. It draws nothing and knows no window.
 */
#pragma once

#include "analysis/analysis.h"

#include <stdio.h>

G_BEGIN_DECLS

/* Perfetto (perfetto.c): a protobuf Trace (a stream of TracePackets, field numbers of google/perfetto's
 * protos/perfetto/trace/) that ui.perfetto.dev and trace_processor open: a track per process and thread
 * with its states (Running, Runnable, the sleeps by state and wait site), its wakeups, forks and other links
 * as flows from the waker's instant to the wakee's run, disk requests and network operations on tracks of
 * their own, the samples as PerfSamples with interned call stacks and, when PATHS is given, its process of
 * interest's control paths under a "critical path" track. Times are the recording's (CLOCK_MONOTONIC), in ns.
 * OUT is written in binary; false with ERROR set when writing fails. */
bool rsp_export_perfetto(const rsp_model *model, const rsp_paths *paths, FILE *out, GError **error);

G_END_DECLS
