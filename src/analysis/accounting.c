/* Per-process accounting, as the Linux Trace Toolkit's (reference/ltt-linux-trace-toolkit.txt): every
 * nanosecond of each task's life, from its first run's start to its last run's end, in one column:
 * running in user mode or in kernel mode (the task's running time split by its samples' modes: the innermost
 * frame's), running with no sample to tell the mode, waiting for I/O (a D sleep until its wakeup), waiting for
 * other processes (any other blocked sleep until its wakeup), runnable (preempted, or woken and not
 * yet on a cpu), and what the trace does not cover (gaps between runs and sleeps). A process's row sums
 * its tasks (each exec generation and thread). Beside the columns, not in them: the kernel work other
 * contexts did for it (interrupts, kernel threads: kernel-work.c). */
#include "analysis.h"

#include <string.h>

/* A task's running time and its samples' modes, gathered over its runs. */
typedef struct running {
  uint64_t ns;
  uint64_t user, kernel, samples;
} running;

static void add_run(const rsp_model *m, const rsp_run *run, uint64_t a, uint64_t b, running *r)
{
  r->ns += b - a;
  r->samples += run->n_samples;
  for (uint32_t k = 0; k < run->n_samples; k++) {
    const rsp_sample *s = rsp_model_sample(m, run->first_sample + k);
    const rsp_model_frame *top = rsp_model_stack_top(m, s->stack);
    if (top && top->kernel)
      r->kernel++;
    else if (top)
      r->user++;
  }
}

/* The task's running time split by its samples' modes, as perf report's shares of its samples: a sample stands for a
 * sampling period of cpu time, not for the run it fell in (a run of 0.3 ms holds a 1 kHz sample one time in three, and
 * then is all of it, the others none: splitting run by run counts tar's 4 s of short runs between disk reads as 2.6 s
 * unsampled beside 3,600 samples). A task with no sample (or none with a stack) is running unsampled. */
static void add_running(const running *run, rsp_accounting_row *r)
{
  r->user_samples += run->user;
  r->kernel_samples += run->kernel;
  uint64_t u = run->samples ? (uint64_t)((unsigned __int128)run->ns * run->user / run->samples) : 0;
  uint64_t k = run->samples ? (uint64_t)((unsigned __int128)run->ns * run->kernel / run->samples) : 0;
  r->ns[RSP_ACCT_USER] += u;
  r->ns[RSP_ACCT_KERNEL] += k;
  r->ns[RSP_ACCT_RUNNING_UNSAMPLED] += run->ns - u - k;
}

static void add_sleep(const rsp_sleep *s, uint64_t a, uint64_t b, rsp_accounting_row *r)
{
  if (s->preempted || s->end_cause == RSP_SLEEP_END_PREEMPTED) {
    r->ns[RSP_ACCT_RUNNABLE] += b - a;
    return;
  }
  uint64_t wake = s->wake_time ? CLAMP(s->wake_time, a, b) : b;
  r->ns[s->state == 'D' ? RSP_ACCT_IO_WAIT : RSP_ACCT_WAITING] += wake - a;
  r->ns[RSP_ACCT_RUNNABLE] += b - wake;
}

/* The task's runs and sleeps in time order, each from where the one before ended (an inconsistent
 * recording can make them overlap: no nanosecond is counted twice), up to its last run's end. */
static void add_task(const rsp_model *m, rsp_task_id t, rsp_accounting_row *r)
{
  const rsp_task *task = rsp_model_task(m, t);
  if (!task->n_runs)
    return;
  uint64_t first = rsp_model_run(m, rsp_model_task_run(m, t, 0))->start, last = first;
  for (uint32_t i = 0; i < task->n_runs; i++)
    last = MAX(last, rsp_model_run(m, rsp_model_task_run(m, t, i))->end);
  if (last <= first)
    return;
  r->n_tasks++;
  r->life_ns += last - first;
  uint64_t cursor = first, covered = 0;
  uint32_t ri = 0, si = 0;
  running on_cpu = { 0 };
  while (ri < task->n_runs || si < task->n_sleeps) {
    const rsp_run *run = ri < task->n_runs ? rsp_model_run(m, rsp_model_task_run(m, t, ri)) : NULL;
    const rsp_sleep *sl = si < task->n_sleeps ? rsp_model_sleep(m, rsp_model_task_sleep(m, t, si)) : NULL;
    bool take_run = run && (!sl || run->start <= sl->start);
    uint64_t start = take_run ? run->start : sl->start, end = take_run ? run->end : sl->end;
    uint64_t a = MAX(start, cursor), b = MIN(end, last);
    if (b > a) {
      if (take_run)
        add_run(m, run, a, b, &on_cpu);
      else
        add_sleep(sl, a, b, r);
      covered += b - a;
      cursor = b;
    }
    if (take_run)
      ri++;
    else
      si++;
  }
  add_running(&on_cpu, r);
  r->ns[RSP_ACCT_UNTRACED] += last - first - covered;
}

static int by_life(const void *a, const void *b)
{
  const rsp_accounting_row *x = a, *y = b;
  if (x->life_ns != y->life_ns)
    return x->life_ns < y->life_ns ? 1 : -1;
  return (x->pid > y->pid) - (x->pid < y->pid);
}

rsp_accounting_row *rsp_accounting_compute(const rsp_model *m, uint32_t *n_rows)
{
  return rsp_accounting_compute_kwork(m, NULL, n_rows);
}

rsp_accounting_row *rsp_accounting_compute_kwork(const rsp_model *m, const rsp_kernel_work *given, uint32_t *n_rows)
{
  GHashTable *index = g_hash_table_new(g_direct_hash, g_direct_equal);
  GArray *rows = g_array_new(FALSE, TRUE, sizeof(rsp_accounting_row));
  for (rsp_task_id t = 0; t < rsp_model_n_tasks(m); t++) {
    const rsp_task *task = rsp_model_task(m, t);
    if (!task->n_runs)
      continue;
    /* a tid never seen with its pid is a process of its own */
    int32_t pid = task->pid >= 0 ? task->pid : task->tid;
    gpointer found;
    guint i;
    if (g_hash_table_lookup_extended(index, GINT_TO_POINTER(pid), NULL, &found)) {
      i = GPOINTER_TO_UINT(found);
    } else {
      i = rows->len;
      rsp_accounting_row r = { .pid = pid, .comm = task->comm };
      g_array_append_val(rows, r);
      g_hash_table_insert(index, GINT_TO_POINTER(pid), GUINT_TO_POINTER(i));
    }
    rsp_accounting_row *r = &g_array_index(rows, rsp_accounting_row, i);
    /* named by its main thread's latest generation */
    if (task->tid == pid && task->comm && *task->comm)
      r->comm = task->comm;
    add_task(m, t, r);
  }
  g_hash_table_destroy(index);
  rsp_kernel_work *own = given ? NULL : rsp_kernel_work_compute(m);
  const rsp_kernel_work *kw = given ? given : own;
  for (guint i = 0; i < rows->len; i++) {
    rsp_accounting_row *r = &g_array_index(rows, rsp_accounting_row, i);
    const rsp_kernel_work_row *k = rsp_kernel_work_for_pid(kw, r->pid);
    r->kernel_work_ns = k ? k->total_ns : 0;
  }
  rsp_kernel_work_free(own);
  if (rows->len) /* an empty GArray's data is NULL */
    qsort(rows->data, rows->len, sizeof(rsp_accounting_row), by_life);
  *n_rows = rows->len;
  return (rsp_accounting_row *)(void *)g_array_free(rows, FALSE);
}

const char *rsp_accounting_key(rsp_accounting_column c)
{
  static const char *const keys[RSP_N_ACCT] = { "user", "kernel", "running_unsampled", "io_wait", "waiting",
                                                "runnable", "untraced" };
  return (unsigned)c < RSP_N_ACCT ? keys[c] : "?";
}
