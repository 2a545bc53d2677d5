/* The process of interest: the one a tool explains when the user names none (the recorded command), or the
 * one named by pid (a thread id: its process) or by comm (the longest-running process of that name), and a
 * line saying why it was chosen. Shared by rsp-summary, rsp-export, rsp-report and the app. */
#include "analysis/analysis.h"

#include <gio/gio.h>
#include <inttypes.h>
#include <string.h>

static bool task_named(const rsp_model *m, rsp_task_id t, const char *comm)
{
  const rsp_task *task = rsp_model_task(m, t);
  if (strcmp(task->comm, comm) == 0)
    return true;
  for (uint32_t i = 0; i < task->n_comms; i++)
    if (strcmp(rsp_model_task_comm(m, t, i)->comm, comm) == 0)
      return true;
  return false;
}

static int by_runtime_desc(const void *a, const void *b)
{
  const rsp_process_other *x = a, *y = b;
  if (x->runtime_ns != y->runtime_ns)
    return x->runtime_ns < y->runtime_ns ? 1 : -1;
  return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The processes with a task named COMM (its comm, or any earlier name) by the runtime of all their
 * tasks, longest first. */
static GArray *processes_named(const rsp_model *m, const char *comm)
{
  GHashTable *named = g_hash_table_new(g_direct_hash, g_direct_equal); /* pid -> index + 1 */
  GArray *procs = g_array_new(FALSE, FALSE, sizeof(rsp_process_other));
  for (rsp_task_id t = 0; t < rsp_model_n_tasks(m); t++) {
    int32_t pid = rsp_model_task(m, t)->pid;
    if (pid >= 0 && !g_hash_table_contains(named, GINT_TO_POINTER(pid)) && task_named(m, t, comm)) {
      rsp_process_other o = { pid, 0 };
      g_array_append_val(procs, o);
      g_hash_table_insert(named, GINT_TO_POINTER(pid), GUINT_TO_POINTER(procs->len));
    }
  }
  for (rsp_task_id t = 0; t < rsp_model_n_tasks(m) && procs->len; t++) {
    guint i = GPOINTER_TO_UINT(g_hash_table_lookup(named, GINT_TO_POINTER(rsp_model_task(m, t)->pid)));
    if (!i)
      continue;
    rsp_task_totals tot;
    rsp_model_task_totals(m, t, &tot);
    g_array_index(procs, rsp_process_other, i - 1).runtime_ns += tot.runtime;
  }
  g_hash_table_destroy(named);
  g_array_sort(procs, by_runtime_desc);
  return procs;
}

static bool pid_exists(const rsp_model *m, int32_t pid)
{
  for (rsp_task_id t = 0; t < rsp_model_n_tasks(m); t++)
    if (rsp_model_task(m, t)->pid == pid)
      return true;
  return false;
}

/* The process of interest: --pid (a thread id: its process), --comm (the longest-running process
 * of that name), else the recording's workload; false with the error printed when there is none. */
bool rsp_process_choose(const rsp_model *m, const char *path, int32_t pid, const char *comm,
                        rsp_process_choice *c, GError **error)
{
  memset(c, 0, sizeof *c);
  c->pid = -1;
  if (pid >= 0) {
    if (pid_exists(m, pid)) {
      c->pid = pid;
      c->source = "pid";
      c->reason = g_strdup_printf("--pid %" PRId32, pid);
      return true;
    }
    for (rsp_task_id t = 0; t < rsp_model_n_tasks(m); t++) {
      const rsp_task *task = rsp_model_task(m, t);
      if (task->tid == pid && task->pid >= 0) {
        c->pid = task->pid;
        c->source = "thread";
        c->reason = g_strdup_printf("--pid %" PRId32 " is a thread of process %" PRId32, pid, task->pid);
        return true;
      }
    }
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s: no process with pid %" PRId32, path, pid);
    return false;
  }
  if (comm) {
    GArray *procs = processes_named(m, comm);
    if (procs->len == 0) {
      g_array_free(procs, TRUE);
      g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s: no process named '%s'", path, comm);
      return false;
    }
    rsp_process_other best = g_array_index(procs, rsp_process_other, 0);
    g_array_remove_index(procs, 0);
    c->pid = best.pid;
    c->source = "comm";
    c->others = procs;
    if (procs->len == 0) {
      c->reason = g_strdup_printf("--comm %s, the only process of that name", comm);
    } else {
      GString *r = g_string_new(NULL);
      g_string_printf(r, "--comm %s, the longest-running (%.3f ms) of %u processes of that name; the others:",
                      comm, (double)best.runtime_ns / 1e6, procs->len + 1);
      for (guint i = 0; i < procs->len; i++) {
        const rsp_process_other *x = &g_array_index(procs, rsp_process_other, i);
        if (i == 10) {
          g_string_append_printf(r, " and %u more", procs->len - 10);
          break;
        }
        g_string_append_printf(r, "%s %" PRId32 " (%.3f ms)", i ? "," : "", x->pid, (double)x->runtime_ns / 1e6);
      }
      c->reason = g_string_free(r, FALSE);
    }
    return true;
  }
  c->pid = rsp_model_workload_pid(m);
  const char *cmd = rsp_model_workload_command(m);
  switch (rsp_model_workload_source(m)) {
  case RSP_WORKLOAD_METADATA:
    c->source = "metadata";
    c->reason = g_strdup_printf("the workload rsp-record ran (%s.meta)", path);
    break;
  case RSP_WORKLOAD_PERF_EXEC:
    c->source = "perf-exec";
    c->reason = cmd ? g_strdup_printf("the child perf record forked (\"perf-exec\") to run its command: %s", cmd)
                    : g_strdup("the child perf record forked (\"perf-exec\") to run its command");
    break;
  case RSP_WORKLOAD_RECORD_PID:
    c->source = "record-pid";
    c->reason = g_strdup_printf("the process perf record followed (-p %" PRId32 ")", c->pid);
    break;
  case RSP_WORKLOAD_COMMAND_EXEC:
    c->source = "command-exec";
    c->reason = g_strdup_printf("the first exec of perf record's command: %s", cmd ? cmd : "?");
    break;
  case RSP_WORKLOAD_BUSIEST:
    c->source = "busiest";
    c->reason = g_strdup("a guess: the process that ran the most in a system-wide recording with no workload (rsp-record "
                         "-a, or perf record -a with no command or sleep as its timer); give --pid PID or --comm NAME");
    break;
  case RSP_WORKLOAD_FIRST_EXEC:
    c->source = "first-exec";
    c->reason = g_strdup("a guess: the first exec of the recording (no FILE.meta, no command in perf's header); "
                         "give --pid PID or --comm NAME");
    break;
  default:
    break;
  }
  if (c->pid < 0) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                "%s: no workload process recorded; give --pid PID or --comm NAME", path);
    return false;
  }
  return true;
}

void rsp_process_choice_clear(rsp_process_choice *c)
{
  g_free(c->reason);
  if (c->others)
    g_array_free(c->others, TRUE);
}

