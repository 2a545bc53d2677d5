/* Characteristic times of the machine, measured from the recording itself (OSprof 3.1, "prior
 * knowledge-based analysis": peaks near these times are probably caused by them). */
#include "analysis/analysis.h"

#include <math.h>
#include <string.h>

/* The element of rank len / 2 (Hoare's selection: no full sort of a million gaps). */
static uint64_t median(GArray *v)
{
  if (v->len == 0)
    return 0;
  uint64_t *a = (uint64_t *)(void *)v->data;
  size_t lo = 0, hi = v->len - 1, k = v->len / 2;
  while (lo < hi) {
    uint64_t pivot = a[lo + (hi - lo) / 2];
    size_t i = lo, j = hi;
    while (i <= j) {
      while (a[i] < pivot)
        i++;
      while (a[j] > pivot)
        j--;
      if (i <= j) {
        uint64_t t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        if (j == 0)
          break;
        j--;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      break;
  }
  return a[k];
}

/* The sleep just before each run of its task (RSP_NO_ID for a first run), and into AFTER the one
 * just after it. */
static rsp_sleep_id *sleeps_around_runs(const rsp_model *m, rsp_sleep_id **after_out)
{
  uint32_t n = rsp_model_n_runs(m);
  rsp_sleep_id *before = g_new(rsp_sleep_id, MAX(n, 1)), *after = g_new(rsp_sleep_id, MAX(n, 1));
  for (uint32_t i = 0; i < n; i++)
    before[i] = after[i] = RSP_NO_ID;
  for (rsp_task_id t = 0; t < rsp_model_n_tasks(m); t++) {
    const rsp_task *task = rsp_model_task(m, t);
    for (uint32_t i = 1; i < task->n_runs && i - 1 < task->n_sleeps; i++) {
      rsp_run_id r = rsp_model_task_run(m, t, i);
      rsp_sleep_id s = rsp_model_task_sleep(m, t, i - 1);
      if (rsp_model_sleep(m, s)->end == rsp_model_run(m, r)->start)
        before[r] = s;
      rsp_run_id r0 = rsp_model_task_run(m, t, i - 1);
      if (rsp_model_sleep(m, s)->start == rsp_model_run(m, r0)->end)
        after[r0] = s;
    }
  }
  *after_out = after;
  return before;
}

/* Jiffy timeouts (schedule_timeout, the timer wheel) expire on ticks, and the ticks of all cpus
 * are aligned: the wakeups of such sleeps lie on a lattice of period HZ^-1. Of the kernel's possible
 * ticks (HZ 100, 250, 300, 1000), the largest whose lattice holds at least half of WAKES within 5%
 * of the period (random times would put 10% there) is the tick. */
static uint64_t fit_tick(GArray *wakes, uint32_t *n_fit)
{
  static const uint64_t ticks[] = { 10000000, 4000000, 3333333, 1000000 };
  *n_fit = 0;
  if (wakes->len < 10)
    return 0;
  for (size_t k = 0; k < G_N_ELEMENTS(ticks); k++) {
    /* the lattice's phase: the circular mean of the phases */
    double sx = 0, sy = 0;
    for (guint i = 0; i < wakes->len; i++) {
      double a = 2 * G_PI * (double)(g_array_index(wakes, uint64_t, i) % ticks[k]) / (double)ticks[k];
      sx += cos(a);
      sy += sin(a);
    }
    double mean = atan2(sy, sx);
    uint32_t fit = 0;
    for (guint i = 0; i < wakes->len; i++) {
      double a = 2 * G_PI * (double)(g_array_index(wakes, uint64_t, i) % ticks[k]) / (double)ticks[k];
      double d = fabs(remainder(a - mean, 2 * G_PI));
      if (d <= 2 * G_PI * 0.05)
        fit++;
    }
    if (fit * 2 >= wakes->len) {
      *n_fit = fit;
      return ticks[k];
    }
  }
  return 0;
}

void rsp_characteristic_times_measure(const rsp_model *m, rsp_characteristic_times *out)
{
  memset(out, 0, sizeof *out);
  uint32_t n_runs = rsp_model_n_runs(m);
  g_autofree rsp_sleep_id *after = NULL;
  g_autofree rsp_sleep_id *before = sleeps_around_runs(m, &after);
  GHashTable *last_on_cpu = g_hash_table_new(NULL, NULL);  /* cpu + 1 -> run id + 1 */
  GHashTable *last_tick = g_hash_table_new_full(NULL, NULL, NULL, g_free); /* cpu + 1 -> uint64_t */
  GArray *switches = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  GArray *spacings = g_array_new(FALSE, FALSE, sizeof(uint64_t));

  for (rsp_run_id r = 0; r < n_runs; r++) { /* runs are in start order */
    const rsp_run *run = rsp_model_run(m, r);
    gpointer cpu_key = (gpointer)((uintptr_t)(uint32_t)run->cpu + 1); /* any int, even INT_MAX: no overflow */
    guint prev_plus = GPOINTER_TO_UINT(g_hash_table_lookup(last_on_cpu, cpu_key));
    g_hash_table_insert(last_on_cpu, cpu_key, GUINT_TO_POINTER(r + 1));
    if (!prev_plus || before[r] == RSP_NO_ID || (run->flags & RSP_RUN_START_INFERRED))
      continue;
    const rsp_run *prev = rsp_model_run(m, prev_plus - 1);
    const rsp_sleep *s = rsp_model_sleep(m, before[r]);
    if (prev->task == run->task || run->start < prev->end)
      continue;
    /* the cpu did not go idle when this task was already runnable at the previous one's end */
    bool runnable = s->preempted || (s->wake_time && s->wake_time <= prev->end);
    if (runnable && run->start - prev->end < 1000000) {
      uint64_t gap = run->start - prev->end;
      g_array_append_val(switches, gap);
    }
    /* a preemption not caused by the wakeup of the task that replaced it is the tick's */
    rsp_run_id prev_id = prev_plus - 1;
    const rsp_sleep *ps = after[prev_id] != RSP_NO_ID ? rsp_model_sleep(m, after[prev_id]) : NULL;
    bool by_wakeup = !s->preempted && s->wake_time && prev->end - MIN(prev->end, s->wake_time) < 20000;
    if (ps && ps->preempted && !by_wakeup) {
      uint64_t *last = g_hash_table_lookup(last_tick, cpu_key);
      if (last) {
        uint64_t d = prev->end - *last;
        if (d < 1000000000)
          g_array_append_val(spacings, d);
        *last = prev->end;
      } else {
        last = g_new(uint64_t, 1);
        *last = prev->end;
        g_hash_table_insert(last_tick, cpu_key, last);
      }
    }
  }
  out->n_context_switches = switches->len;
  out->context_switch_ns = median(switches);
  out->n_preemptions = spacings->len;
  out->slice_ns = median(spacings);

  /* the wakeups of kernel threads' idle waits ('I'): mostly jiffy timeouts */
  GArray *wakes = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  for (rsp_sleep_id i = 0; i < rsp_model_n_sleeps(m); i++) {
    const rsp_sleep *sl = rsp_model_sleep(m, i);
    /* a timer's wakeup comes from an interrupt: a timeout, or one no event explains */
    bool timed_out = sl->end_cause == RSP_SLEEP_END_TIMEOUT || sl->end_cause == RSP_SLEEP_END_INTERRUPT ||
                     sl->end_cause == RSP_SLEEP_END_UNKNOWN;
    if (sl->state == 'I' && timed_out && sl->wake_time)
      g_array_append_val(wakes, sl->wake_time);
  }
  out->timer_tick_ns = fit_tick(wakes, &out->n_tick_wakeups);
  g_array_free(wakes, TRUE);

  GArray *disk = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  for (rsp_disk_op_id d = 0; d < rsp_model_n_disk_ops(m); d++) {
    const rsp_disk_op *op = rsp_model_disk_op(m, d);
    if (op && !(op->flags & (RSP_DISK_ISSUE_INFERRED | RSP_DISK_NO_COMPLETE | RSP_DISK_COMPLETE_INFERRED)) &&
        op->complete_time >= op->issue_time) {
      uint64_t v = op->complete_time - op->issue_time;
      g_array_append_val(disk, v);
    }
  }
  out->n_disk_ops = disk->len;
  out->disk_service_ns = median(disk);

  GArray *loop = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  for (rsp_net_op_id n = 0; n < rsp_model_n_net_ops(m); n++) {
    const rsp_net_op *op = rsp_model_net_op(m, n);
    if (op && op->remote && op->end >= op->start &&
        (g_str_has_prefix(op->remote, "127.") || g_str_has_prefix(op->remote, "::1") ||
         g_str_has_prefix(op->remote, "[::1]"))) {
      uint64_t v = op->end - op->start;
      g_array_append_val(loop, v);
    }
  }
  out->n_loopback_ops = loop->len;
  out->loopback_rtt_ns = median(loop);

  g_array_free(loop, TRUE);
  g_array_free(disk, TRUE);
  g_array_free(spacings, TRUE);
  g_array_free(switches, TRUE);
  g_hash_table_destroy(last_tick);
  g_hash_table_destroy(last_on_cpu);
}
