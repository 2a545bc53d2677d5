/* rsp in other tools' formats: a layer above src/analysis that writes a recording's control paths, runs,
 * sleeps and samples as the files other profilers read. One file per format; each writer takes the paths of
 * the process of interest (rsp_paths_build), writes to OUT and returns false with ERROR set when it cannot.
 *
 * The one public header of src/export/. */
#pragma once

#include "analysis/analysis.h"

#include <stdio.h>

G_BEGIN_DECLS

/* What an export covers (rsp-export --range): the time window [start, end), recording time; NULL (or both 0): the
 * whole recording. The control paths' time is clipped to it (each pseudo-stack's share inside it), samples are
 * those inside it, sleeps and operations are those that meet it (a timeline shows them whole; pprof counts their
 * time inside it). */
typedef struct rsp_export_window {
  uint64_t start, end;
} rsp_export_window;

/* Perfetto (perfetto.c): a protobuf Trace (a stream of TracePackets, field numbers of google/perfetto's
 * protos/perfetto/trace/) that ui.perfetto.dev and trace_processor open: a track per process and thread
 * with its states (Running, Runnable, the sleeps by state and wait site), its wakeups, forks and other links
 * as flows from the waker's instant to the wakee's run, disk requests and network operations on tracks of
 * their own, the samples as PerfSamples with interned call stacks and, when PATHS is given, its process of
 * interest's control paths under a "critical path" track. Times are the recording's (CLOCK_MONOTONIC), in ns.
 * OUT is written in binary; false with ERROR set when writing fails. */
bool rsp_export_perfetto(const rsp_model *model, const rsp_paths *paths, const rsp_export_window *window, FILE *out,
                         GError **error);

/* speedscope's JSON file format (https://www.speedscope.app/file-format-schema.json): one evented profile per
 * thread on PATHS (its layers as cross-process pseudo-stacks, in nanoseconds), then one sampled profile per
 * process on them (its samples, rooted at the thread's comm). */
bool rsp_export_speedscope(const rsp_paths *paths, const rsp_export_window *window, FILE *out, GError **error);

/* pprof's profile.proto, gzipped: sample types samples/count (on-cpu) and off-cpu/nanoseconds (sleeps by their
 * wait stack) of the processes on PATHS, stacks rooted at the thread's comm, labels pid and tid. */
bool rsp_export_pprof(const rsp_paths *paths, const rsp_export_window *window, FILE *out, GError **error);

/* The Firefox Profiler's Gecko profile (as `perf script report gecko` writes it): a thread per task of the
 * processes on PATHS with its samples, and markers for its sleeps (state, why they ended, who woke them) and
 * for the disk and network operations it waited on. */
bool rsp_export_firefox(const rsp_paths *paths, const rsp_export_window *window, FILE *out, GError **error);

G_END_DECLS
