/* A time window of the recording: which records a windowed read keeps, and where it stops.
 * SAMPLE and SWITCH records are per event and the bulk of a file: those outside the window (its margins
 * included) are dropped as they are read, from their timestamp alone, before they are queued for
 * ordering or decoded. Every other record is kept (the model needs the names and maps of before the
 * window). The recording's start is tracked on the way, so that a window counted from it means the
 * same as without a window. */
#include "reader/reader-private.h"

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t sat_sub(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

void rsp_window_resolve(rsp_reader *r)
{
  rsp_reader_stats *s = &r->stats;
  uint64_t base = r->opts.window_relative ? s->recording_start : 0;
  s->window_lo = sat_sub(sat_add(base, r->opts.window_from), r->opts.window_margin_ns);
  s->window_hi = sat_add(sat_add(base, r->opts.window_to), r->opts.window_margin_ns);
  r->window_stop = sat_add(s->window_hi, RSP_WINDOW_STOP_AFTER_NS);
  s->window_resolved = true;
}

bool rsp_window_per_event(uint32_t type)
{
  return type == PERF_RECORD_SAMPLE || type == PERF_RECORD_SWITCH || type == PERF_RECORD_SWITCH_CPU_WIDE;
}

bool rsp_window_keep(rsp_reader *r, uint32_t type, uint64_t t)
{
  if (t == 0 || t == UINT64_MAX) /* perf's synthesized records: no time */
    return true;
  rsp_reader_stats *s = &r->stats;
  bool per_event = rsp_window_per_event(type);
  if (!s->time_first_seen || t < s->time_first_seen)
    s->time_first_seen = t;
  if (per_event && (!s->sample_time_first_seen || t < s->sample_time_first_seen))
    s->sample_time_first_seen = t;
  if (!s->window_resolved) {
    /* The header's sample_time counts PERF_RECORD_SAMPLEs only: the switch records and perf's COMM and
     * FORK of the workload come before, by 50 to 250 ms on the fixtures. The first timestamp of the file
     * is within microseconds of the earliest (perf flushes its rounds in time order). */
    if (!s->recording_start || t < s->recording_start)
      s->recording_start = t;
    rsp_window_resolve(r);
  }
  if (t > r->window_max_seen)
    r->window_max_seen = t;
  if (per_event && (t < s->window_lo || t > s->window_hi)) {
    s->window_dropped++;
    return false;
  }
  return true;
}

bool rsp_window_outside(const rsp_reader *r, uint64_t t)
{
  const rsp_reader_stats *s = &r->stats;
  return r->opts.window && s->window_resolved && t && t != UINT64_MAX && (t < s->window_lo || t > s->window_hi);
}

/* A FINISHED_ROUND: perf writes one when every ring buffer has been emptied once more, so the records after the
 * next one are all later than any before this one (perf's ordered events flush on that promise). When the records
 * before the previous round already reach past the window's end (and RSP_WINDOW_STOP_AFTER_NS more, for safety),
 * what is left of the file is after the window. A timestamp alone would not do: a buffer emptied late (a cpu
 * perf's thread reaches seconds later) writes old records after much newer ones, 2.2 s on a recording of
 * bench/real. A file without rounds (simpleperf, one ring buffer) is read to its end. */
void rsp_window_round(rsp_reader *r)
{
  if (!r->stats.window_resolved)
    return;
  if (r->window_rounds && r->window_max_before_prev_round > r->window_stop)
    r->window_past = true;
  r->window_max_before_prev_round = r->window_max_seen;
  r->window_rounds++;
}
