/* Loading a recording off the main thread: the model's build and the views' precomputation run in
 * a worker; progress and cancel go through the model's progress callback. */
#pragma once

#include "render/render.h"

typedef struct rsp_loader rsp_loader;

/* Called on the main thread when the load ends: MODEL and VIEW (owned by the callee from then on)
 * or ERROR (G_IO_ERROR_CANCELLED when cancelled). */
typedef void (*rsp_loader_done)(rsp_model *model, rsp_running_view *view, const GError *error, void *data);

rsp_loader *rsp_loader_start(const char *path, rsp_loader_done done, void *data);
/* 0..1 of the file read so far (-1 when the size is unknown). */
double rsp_loader_fraction(const rsp_loader *loader);
void rsp_loader_cancel(rsp_loader *loader);
/* Frees LOADER after DONE ran (call from DONE or later). */
void rsp_loader_free(rsp_loader *loader);
/* Cancels a load still under way, waits for its thread and frees everything (DONE is not called). */
void rsp_loader_abandon(rsp_loader *loader);
