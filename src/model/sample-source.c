/* Which sampling event's samples are attached to runs.
 *
 * A recording may sample on cpu-clock (no PMU, as on a VM), cycles (every machine with a PMU, and
 * perf record's default), instructions, task-clock, a raw or named PMU event, at a frequency or a
 * fixed period, and sometimes on several at once. Each of them says "this task was running this
 * code at this time", which is what a run's samples are for (paper, "Runs and Sleeps"). Attaching
 * two events' samples to the same runs would count the same instants twice, so one is chosen:
 * the first by rank below (time-based clocks, then cycles, then the other hardware events, then raw
 * and PMU events, then software events that fire at a point of the code), the lowest evsel index
 * among equals. The others are named (rsp_model_other_sample_event) and left out. */
#include "model/model-private.h"

#include <string.h>

int rsp_sample_source_rank(const rsp_evsel *evsel)
{
  const struct perf_event_attr *a = &evsel->attr;
  if (evsel->tp_system || a->type == PERF_TYPE_TRACEPOINT || a->type == PERF_TYPE_BREAKPOINT)
    return -1;
  /* A group member read through its leader's samples (perf record -e '{cycles,instructions}:S')
   * has no period of its own and delivers no sample of its own. */
  if (!a->freq && a->sample_period == 0)
    return -1;
  /* Hybrid CPUs put the PMU type in config's upper 32 bits (PERF_TYPE_HARDWARE, cpu_core/cycles/). */
  uint64_t hw = a->config & 0xffffffffu;
  switch (a->type) {
  case PERF_TYPE_SOFTWARE:
    switch (a->config) {
    case PERF_COUNT_SW_CPU_CLOCK: return 0;
    case PERF_COUNT_SW_TASK_CLOCK: return 1;
    case PERF_COUNT_SW_PAGE_FAULTS:
    case PERF_COUNT_SW_PAGE_FAULTS_MIN:
    case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
    case PERF_COUNT_SW_ALIGNMENT_FAULTS:
    case PERF_COUNT_SW_EMULATION_FAULTS: return 6;
    default: return -1; /* dummy, bpf-output, context-switches, cpu-migrations: no running code */
    }
  case PERF_TYPE_HARDWARE:
    return hw == PERF_COUNT_HW_CPU_CYCLES ? 2 : hw == PERF_COUNT_HW_REF_CPU_CYCLES ? 3 : 4;
  case PERF_TYPE_HW_CACHE:
  case PERF_TYPE_RAW:
    return 5;
  default:
    /* dynamic PMUs (cpu/event=.../, cpu_core/..., intel_pt's synthesized samples) */
    return a->type >= PERF_TYPE_MAX ? 5 : -1;
  }
}

void rsp_sample_source_note(rsp_model_builder *b, const rsp_evsel *evsel)
{
  int rank = rsp_sample_source_rank(evsel);
  if (rank < 0)
    return;
  for (unsigned i = 0; i < b->sample_candidates->len; i++)
    if (g_ptr_array_index(b->sample_candidates, i) == evsel)
      return;
  g_ptr_array_add(b->sample_candidates, (gpointer)evsel);
}

/* The first sample of some sampling event: choose among the candidates known now (every evsel of
 * a file; in a pipe, the attrs that came before it, which perf writes first). */
static const rsp_evsel *choose(rsp_model_builder *b)
{
  const rsp_evsel *best = NULL;
  int best_rank = 0;
  for (unsigned i = 0; i < b->sample_candidates->len; i++) {
    const rsp_evsel *e = g_ptr_array_index(b->sample_candidates, i);
    int r = rsp_sample_source_rank(e);
    if (!best || r < best_rank || (r == best_rank && e->index < best->index)) {
      best = e;
      best_rank = r;
    }
  }
  return best;
}

bool rsp_sample_source_is_chosen(rsp_model_builder *b, const rsp_evsel *evsel)
{
  if (!b->sample_source) {
    b->sample_source = choose(b);
    if (!b->sample_source)
      b->sample_source = evsel;
  }
  return evsel == b->sample_source;
}

void rsp_sample_source_finish(rsp_model_builder *b)
{
  rsp_model *m = b->m;
  const rsp_evsel *chosen = b->sample_source ? b->sample_source : choose(b);
  m->sample_event = chosen ? rsp_model_intern(m, chosen->name ? chosen->name : "?") : NULL;
  for (unsigned i = 0; i < b->sample_candidates->len; i++) {
    const rsp_evsel *e = g_ptr_array_index(b->sample_candidates, i);
    if (e == chosen)
      continue;
    const char *name = rsp_model_intern(m, e->name ? e->name : "?");
    g_ptr_array_add(m->other_sample_events, (gpointer)name);
  }
}

const char *rsp_model_sample_event(const rsp_model *m)
{
  return m->sample_event;
}

uint32_t rsp_model_n_other_sample_events(const rsp_model *m)
{
  return m->other_sample_events->len;
}

const char *rsp_model_other_sample_event(const rsp_model *m, uint32_t i)
{
  return i < m->other_sample_events->len ? g_ptr_array_index(m->other_sample_events, i) : NULL;
}
