/* The paper's constants, in one place.
 *
 * Each is named after what it bounds, with the section of reference/rsp-recursive-systemic-
 * profiler.tex it comes from. The defaults are the paper's; every tool lets the user override them
 * (rsp_model_options, rsp_paths_options), so none is used directly where an option exists.
 */
#pragma once

#include <stdint.h>

/* "Runs and Sleeps": a cpu-clock sample attaches to its task's run when the task is running or
 * its last run (on the sample's cpu) ended at most this long before the sample; else it is
 * dropped and counted (rsp_model_loss.orphan_samples). */
#define RSP_SAMPLE_ATTACH_WINDOW_NS ((uint64_t)20000)

/* "Recursive Stack Making": the thing that woke a sleep becomes its child when it starts at most
 * this long before the sleep's de facto start and ends at most this long after the sleep ends. */
#define RSP_PARENT_CHILD_TOLERANCE_NS ((uint64_t)100000)

/* "Recursive Stack Making": consecutive sleeps with the same stack, separated by runs shorter
 * than this, all but the last ended by a timeout, are one sleep (poll loops). */
#define RSP_POLL_MERGE_GAP_NS ((uint64_t)100000)
/* Not in the paper (its machine was idle): processing between timed-out polls that woke nobody is
 * still trivial while it ran for at most this fraction (1/N) of the timed-out sleep before it. */
#define RSP_POLL_MERGE_RATIO 100

/* "Disk IO": a wakeup with bio_endio (or blk_mq_end_request...) on its stack is matched to the
 * woken task's most recently completed request; a completion is taken as the cause of a sleep's
 * end when it happened at most this long before the wakeup (or the switch-in, when the wakeup was
 * lost). Not in the paper (its traces had every wakeup); chosen above this machine's observed
 * completion-to-wakeup delay of a few microseconds, below a disk's service time. */
#define RSP_DISK_WAKE_WINDOW_NS ((uint64_t)200000)

/* "Disk IO": a D sleep woken from interrupt context with no callchain (the ftrace capture's wakeups
 * have none) and no completion of its own request before it is taken as ended by another issuer's
 * completion at most this long before the wakeup: the flush of an fsync, which the kblockd worker
 * issues on the sleeper's behalf (tests/model/data/wl-sqlite.data: 2 to 12 us from the FF request's
 * completion to the wakeup). Not in the paper; tight, so that an unrelated completion rarely falls in. */
#define RSP_DISK_IRQ_WAKE_WINDOW_NS ((uint64_t)20000)

/* "Network": network wakeups are matched to scheduler wakeups "by occurring close in time, in the
 * same process". The paper gives no figure; this is the window used. */
#define RSP_NET_WAKE_WINDOW_NS ((uint64_t)200000)

/* Not in the paper: a model of a time window (rsp_model_options.window) reads this much more on each side,
 * so that its tasks' states (running, asleep, on which cpu) are settled when the window begins. */
#define RSP_WINDOW_MARGIN_NS ((uint64_t)100000000)
