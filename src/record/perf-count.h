/* Cheap counting of what a perf.data (file mode, as rsp-record writes it) holds: samples per
 * event and the loss records. Used by rsp-record's loss check; knows nothing of sample contents
 * beyond the id that names the event. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

G_BEGIN_DECLS

#define RSP_PERF_COUNT_ERROR (rsp_perf_count_error_quark())
GQuark rsp_perf_count_error_quark(void);

typedef struct rsp_perf_event_count {
  char *name;        /* as perf names it (HEADER_EVENT_DESC), e.g. "sched:sched_switch" */
  uint32_t type;     /* perf_event_attr.type */
  uint64_t config;
  bool freq;         /* frequency mode: a tracepoint in it keeps a sample of its events only */
  uint64_t period;   /* sample_period, or sample_freq when freq */
  uint64_t samples;
} rsp_perf_event_count;

typedef struct rsp_perf_counts {
  GPtrArray *events;       /* rsp_perf_event_count*, in attr order */
  uint64_t records;        /* every record of the data section */
  uint64_t samples;
  uint64_t unattributed;   /* samples whose id names no event */
  uint64_t lost_records;   /* PERF_RECORD_LOST */
  uint64_t lost;           /* events they say were lost */
  uint64_t lost_samples;   /* PERF_RECORD_LOST_SAMPLES: their sum */
  uint64_t switches;       /* PERF_RECORD_SWITCH and SWITCH_CPU_WIDE */
  uint64_t compressed;     /* PERF_RECORD_COMPRESSED: samples inside are not counted */
  bool unfinished;         /* the header says no data size: perf did not finish the file */
} rsp_perf_counts;

rsp_perf_counts *rsp_perf_count(const char *path, GError **error);
void rsp_perf_counts_free(rsp_perf_counts *counts);
/* The samples of the event NAME, or -1 when the file has no such event. */
int64_t rsp_perf_counts_get(const rsp_perf_counts *counts, const char *name);

G_END_DECLS
