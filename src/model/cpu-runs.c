/* The runs of each cpu, in start order: what ran on a cpu over a span of time (who preempted a task, what a cpu
 * did while a task waited on it). Built once, when first asked for, or ahead on a thread of its own while the
 * caller does other work (rsp-summary starts it as the control paths are built: on deep3m its three passes over
 * 1.9M runs were 40-50 ms of the categories' serial start). */
#include "model/model-private.h"

#include <string.h>

static int cmp_i32(const void *a, const void *b)
{
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return x < y ? -1 : x > y;
}

static long index_of(const rsp_cpu_runs *cr, int32_t cpu)
{
  uint32_t lo = 0, hi = cr->n_cpus;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (cr->cpus[mid] < cpu)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < cr->n_cpus && cr->cpus[lo] == cpu ? (long)lo : -1;
}

long rsp_model_cpu_index(const rsp_cpu_runs *cr, int32_t cpu)
{
  return cpu < 0 ? -1 : index_of(cr, cpu);
}

static rsp_cpu_runs *build(const rsp_model *m)
{
  rsp_cpu_runs *cr = g_new0(rsp_cpu_runs, 1);
  uint32_t n_runs = m->runs->len;
  const rsp_run *runs = (const rsp_run *)(const void *)m->runs->data;
  /* cpus by index, not by number: a recording can say cpu 0x7fffffff (issue 21); the usual small numbers are
   * looked up directly, not hashed (a million runs) */
  enum { DIRECT_CPUS = 4096 };
  uint8_t *seen = g_new0(uint8_t, DIRECT_CPUS);
  GHashTable *seen_big = g_hash_table_new(g_direct_hash, g_direct_equal);
  GArray *cpus = g_array_new(FALSE, FALSE, sizeof(int32_t));
  for (uint32_t r = 0; r < n_runs; r++) {
    int32_t c = runs[r].cpu;
    if (c < 0)
      continue;
    bool added = c < DIRECT_CPUS ? !seen[c] && (seen[c] = 1) : g_hash_table_add(seen_big, GINT_TO_POINTER(c));
    if (added)
      g_array_append_val(cpus, c);
  }
  g_free(seen);
  g_hash_table_destroy(seen_big);
  g_array_sort(cpus, cmp_i32);
  cr->n_cpus = cpus->len;
  int32_t *cpu_list = (int32_t *)(void *)g_array_free(cpus, FALSE);
  cr->cpus = cpu_list;
  uint32_t *first = g_new0(uint32_t, (size_t)cr->n_cpus + 1);
  uint32_t *by_cpu = g_new(uint32_t, n_runs ? n_runs : 1);
  uint64_t *starts = g_new(uint64_t, n_runs ? n_runs : 1);
  uint32_t *run_cpu = g_new(uint32_t, n_runs ? n_runs : 1);
  for (uint32_t r = 0; r < n_runs; r++) {
    long ci = rsp_model_cpu_index(cr, runs[r].cpu);
    run_cpu[r] = ci >= 0 ? (uint32_t)ci : UINT32_MAX;
    if (ci >= 0)
      first[ci + 1]++;
  }
  for (uint32_t c = 0; c < cr->n_cpus; c++)
    first[c + 1] += first[c];
  uint32_t *fill = g_memdup2(first, sizeof(uint32_t) * ((size_t)cr->n_cpus + 1));
  for (uint32_t r = 0; r < n_runs; r++) /* runs are in start order: so is each cpu's list */
    if (run_cpu[r] != UINT32_MAX) {
      starts[fill[run_cpu[r]]] = runs[r].start;
      by_cpu[fill[run_cpu[r]]++] = r;
    }
  g_free(run_cpu);
  g_free(fill);
  cr->first = first;
  cr->runs = by_cpu;
  cr->starts = starts;
  return cr;
}

const rsp_cpu_runs *rsp_model_cpu_runs(const rsp_model *model)
{
  rsp_model *m = (rsp_model *)model; /* a cache, built once (a second caller waits for the first) */
  pthread_mutex_lock(&m->cpu_runs_lock);
  if (!m->cpu_runs)
    m->cpu_runs = build(m);
  const rsp_cpu_runs *cr = m->cpu_runs;
  pthread_mutex_unlock(&m->cpu_runs_lock);
  return cr;
}

static gpointer ahead_main(gpointer data)
{
  rsp_model_cpu_runs(data);
  return NULL;
}

void rsp_model_cpu_runs_ahead(const rsp_model *model)
{
  rsp_model *m = (rsp_model *)model;
  if (rsp_threads_wanted() < 2)
    return;
  pthread_mutex_lock(&m->cpu_runs_lock);
  if (!m->cpu_runs && !m->cpu_runs_thread) /* (once, whoever asks first) */
    m->cpu_runs_thread = g_thread_new("rsp-cpu-runs", ahead_main, m);
  pthread_mutex_unlock(&m->cpu_runs_lock);
}

void rsp_model_cpu_runs_free(rsp_model *m)
{
  if (m->cpu_runs_thread) /* (no other thread asks any more) */
    g_thread_join(m->cpu_runs_thread);
  m->cpu_runs_thread = NULL;
  if (!m->cpu_runs)
    return;
  g_free((gpointer)m->cpu_runs->cpus);
  g_free((gpointer)m->cpu_runs->first);
  g_free((gpointer)m->cpu_runs->runs);
  g_free((gpointer)m->cpu_runs->starts);
  g_free(m->cpu_runs);
  m->cpu_runs = NULL;
}
