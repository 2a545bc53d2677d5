/* Internals shared by control-paths.c and categories.c. */
#pragma once

#include "analysis/analysis.h"

/* For a sleep the network ended: the run of a peer inside the recording whose send woke it (on
 * loopback the sender's own run fires the wakeup; the model keeps that wakeup link beside the
 * network one), else RSP_NO_ID: the peer is outside. */
rsp_run_id rsp_paths_loopback_peer_run(const rsp_model *model, const rsp_sleep *sleep);
