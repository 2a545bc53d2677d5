/* Loading a recording off the main thread: the model's build and the views' precomputation run in
 * a worker; progress and cancel go through the model's progress callback. */
#pragma once

#include "render/render.h"

typedef struct rsp_loader rsp_loader;

/* Called on the main thread when the load ends: MODEL and VIEW (owned by the callee from then on)
 * or ERROR (G_IO_ERROR_CANCELLED when cancelled). On a big recording it is called first with PARTIAL
 * set: the model of the recording's first seconds (rsp_model_window), drawn while the whole loads;
 * the loader goes on, and calls it again at the end. */
typedef void (*rsp_loader_done)(rsp_model *model, rsp_running_view *view, const GError *error, bool partial,
                                void *data);

/* Recordings larger than this (bytes) are shown a first window while the whole loads; the environment's
 * RSP_VIEW_PROGRESSIVE_BYTES overrides it (the tests set it low). */
#define RSP_LOADER_PROGRESSIVE_BYTES (512ull << 20)
/* About how much of the file the first window reads (bytes, by the recording's average rate). */
#define RSP_LOADER_FIRST_WINDOW_BYTES (64ull << 20)

rsp_loader *rsp_loader_start(const char *path, rsp_loader_done done, void *data);
/* 0..1 of the file read so far (-1 when the size is unknown). */
double rsp_loader_fraction(const rsp_loader *loader);
void rsp_loader_cancel(rsp_loader *loader);
/* Frees LOADER after DONE ran (call from DONE or later). */
void rsp_loader_free(rsp_loader *loader);
/* Cancels a load still under way, waits for its thread and frees everything (DONE is not called). */
void rsp_loader_abandon(rsp_loader *loader);
