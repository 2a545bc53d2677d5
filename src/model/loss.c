/* Loss accounting: what perf did not record, what the model had to infer, and what to tell the
 * user about it (/work/shared/platform/perf-loss.md has the measurements behind each case). */
#include "model/model-private.h"

#include <inttypes.h>

void rsp_loss_note_evsel(rsp_model_builder *b, const rsp_evsel *evsel)
{
  if (!evsel->sampled_tracepoint || b->m->loss.sampled_tracepoints)
    return;
  b->m->loss.sampled_tracepoints = true;
  b->m->loss.sampled_tracepoint = rsp_model_intern(b->m, evsel->name ? evsel->name : "?");
}

void rsp_loss_record(rsp_model_builder *b, const rsp_event *ev)
{
  rsp_model_loss *l = &b->m->loss;
  if (ev->type == PERF_RECORD_LOST) {
    l->lost_records++;
    l->lost_events += ev->u.lost.lost;
  } else if (ev->type == PERF_RECORD_LOST_SAMPLES) {
    l->lost_samples_records++;
    l->lost_samples += ev->u.lost_samples.lost;
  }
}

bool rsp_sleep_expects_wakeup(const rsp_sleep *sl)
{
  /* Preempted tasks stay runnable; dead ones never wake; with no state we cannot tell. */
  return !sl->preempted && sl->state && sl->state != 'R' && sl->state != 'X' && sl->state != 'Z';
}

void rsp_loss_finish(rsp_model *m)
{
  m->loss.sleeps_without_wakeup = 0;
  for (guint i = 0; i < m->sleeps->len; i++) {
    const rsp_sleep *sl = &g_array_index(m->sleeps, rsp_sleep, i);
    if (sl->wake_kind == RSP_WAKE_NONE && rsp_sleep_expects_wakeup(sl))
      m->loss.sleeps_without_wakeup++;
  }
}

void rsp_loss_from_reader(rsp_model *m, const rsp_reader_stats *stats)
{
  m->loss.out_of_order_events = stats->out_of_order;
}

const rsp_model_loss *rsp_model_loss_get(const rsp_model *m)
{
  return &m->loss;
}

char **rsp_model_loss_warnings(const rsp_model *m)
{
  const rsp_model_loss *l = &m->loss;
  GPtrArray *w = g_ptr_array_new();
  if (l->sampled_tracepoints)
    g_ptr_array_add(w, g_strdup_printf(
        "tracepoint %s was sampled (frequency mode or period > 1): the kernel kept only some of its "
        "events, so runs and sleeps are WRONG; record tracepoints at period 1 and put the frequency on "
        "the sampling event only (-e cpu-clock/freq=997/)", l->sampled_tracepoint));
  if (l->lost_records)
    g_ptr_array_add(w, g_strdup_printf(
        "perf lost %" PRIu64 " events (%" PRIu64 " LOST records): runs and sleeps around them may be "
        "wrong; record with a larger buffer (-m)", l->lost_events, l->lost_records));
  if (l->lost_samples_records)
    g_ptr_array_add(w, g_strdup_printf("perf lost %" PRIu64 " samples (%" PRIu64 " LOST_SAMPLES records)",
                                       l->lost_samples, l->lost_samples_records));
  if (!m->sample_event && m->runs->len)
    g_ptr_array_add(w, g_strdup(
        "the recording has no sampling event (cpu-clock, cycles...): no run has a stack, every run is "
        "\"running but not sampled\"; record with -e cycles or -e cpu-clock and -g"));
  if (m->sample_event && m->other_sample_events->len) {
    GString *others = g_string_new(NULL);
    for (unsigned i = 0; i < m->other_sample_events->len; i++)
      g_string_append_printf(others, "%s%s", i ? ", " : "", (const char *)g_ptr_array_index(m->other_sample_events, i));
    g_ptr_array_add(w, g_strdup_printf("runs are sampled by %s; the other sampling events (%s) are not used "
                                       "for runs and categories", m->sample_event, others->str));
    g_string_free(others, TRUE);
  }
  rsp_dso_symbol_notes(m, w);
  for (char **r = m->reader_warnings; r && *r; r++)
    g_ptr_array_add(w, g_strdup_printf("reading the file: %s", *r));
  if (l->overlaps_cut)
    g_ptr_array_add(w, g_strdup_printf(
        "%" PRIu64 " runs or sleeps went past the start of their task's next one (records out of order or "
        "with a stray timestamp) and were cut there", l->overlaps_cut));
  if (l->events_before_start)
    g_ptr_array_add(w, g_strdup_printf(
        "%" PRIu64 " runs, sleeps or execs had a stray timestamp (long before the first sample or switch, or an "
        "exec at time 0): they were cut to begin with the recording", l->events_before_start));
  if (l->out_of_order_events)
    g_ptr_array_add(w, g_strdup_printf(
        "%" PRIu64 " events arrived after later ones had been handed out: the model saw them out of "
        "time order", l->out_of_order_events));
  if (m->source == RSP_RUNS_FROM_SCHED_SWITCH && l->inferred_switch_ins)
    g_ptr_array_add(w, g_strdup_printf(
        "runs come from sched:sched_switch without perf's switch records (perf record --switch-events): "
        "%" PRIu64 " switch-ins were not traced and were inferred from the task's next event, so those "
        "runs start late and runtimes are low", l->inferred_switch_ins));
  else if (l->inferred_switch_ins)
    g_ptr_array_add(w, g_strdup_printf("%" PRIu64 " switch-ins were missing and inferred",
                                       l->inferred_switch_ins));
  uint64_t inconsistent = l->unmatched_switch_outs + l->implicit_switch_outs;
  if (inconsistent)
    g_ptr_array_add(w, g_strdup_printf(
        "%" PRIu64 " switch-outs without a switch-in and %" PRIu64 " switch-outs that were not recorded",
        l->unmatched_switch_outs, l->implicit_switch_outs));
  if (l->orphan_samples)
    g_ptr_array_add(w, g_strdup_printf(
        "%" PRIu64 " samples fell in no run of their task (nor within the attach window) "
        "and were dropped", l->orphan_samples));
  if (l->sleeps_without_wakeup)
    g_ptr_array_add(w, g_strdup_printf(
        "%" PRIu64 " sleeps ended with no wakeup recorded (perf drops the ones fired in interrupt "
        "context on an idle cpu): their scheduler delay is unknown and counted as 0",
        l->sleeps_without_wakeup));
  if (l->sleeps_end_inferred)
    g_ptr_array_add(w, g_strdup_printf(
        "%" PRIu64 " sleeps had their end cause guessed (a disk completion or network data just before the "
        "wakeup or switch-in, the timer of a timed sleep or of a futex wait, a child's exit) because their wakeup "
        "was not recorded or had no call stack",
        l->sleeps_end_inferred));
  if (l->wakeups_without_run)
    g_ptr_array_add(w, g_strdup_printf(
        "%" PRIu64 " wakeups came from a task whose run at the time was not recorded (a lost switch-in): the "
        "links start at its run before, a guess",
        l->wakeups_without_run));
  if (l->disk_issue_inferred || l->disk_no_complete || l->disk_complete_inferred)
    g_ptr_array_add(w, g_strdup_printf(
        "disk requests: %" PRIu64 " without insert, %" PRIu64 " with the issue inferred, %" PRIu64
        " never seen completing, %" PRIu64 " with the completion inferred from a wakeup",
        l->disk_no_insert, l->disk_issue_inferred, l->disk_no_complete, l->disk_complete_inferred));
  g_ptr_array_add(w, NULL);
  return (char **)g_ptr_array_free(w, FALSE);
}
