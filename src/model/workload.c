/* The workload: the process a recording was made for, and why that one.
 *
 * rsp-record names it in FILE.meta. Without it, perf's own header says what was recorded
 * (HEADER_CMDLINE: "perf record [options] [--] COMMAND ARGS" or "-p PID"), and the stream shows the
 * child perf forked for COMMAND: perf names it "perf-exec" until it execs COMMAND. A system-wide
 * recording with no workload (rsp-record -a; perf record -a with no command, or with "sleep N", the
 * idiom that only times it) is about what the machine did: the process that ran the most is the guess.
 * The first exec of the recording, the old guess, is only the last resort: on a busy machine it is any
 * process. */
#include "model/model-private.h"

#include <stdlib.h>
#include <string.h>

typedef struct exec_seen {
  int32_t pid;
  const char *comm; /* interned */
  uint64_t time;
} exec_seen;

struct rsp_workload_builder {
  GArray *perf_exec; /* int32_t pids that were named "perf-exec", in order */
  GArray *execs;     /* exec_seen, in order */
  char **cmdline;    /* perf's, or NULL */
  bool system_wide;  /* FILE.meta: rsp-record -a */
};

void rsp_workload_init(rsp_model_builder *b)
{
  b->workload = g_new0(rsp_workload_builder, 1);
  b->workload->perf_exec = g_array_new(FALSE, FALSE, sizeof(int32_t));
  b->workload->execs = g_array_new(FALSE, FALSE, sizeof(exec_seen));
}

void rsp_workload_set_cmdline(rsp_model_builder *b, const char *const *cmdline)
{
  g_strfreev(b->workload->cmdline);
  b->workload->cmdline = cmdline ? g_strdupv((char **)cmdline) : NULL;
}

void rsp_workload_set_metadata(rsp_model_builder *b, int32_t pid, const char *command)
{
  b->m->workload_pid = pid;
  b->m->workload_source = RSP_WORKLOAD_METADATA;
  if (command && *command) /* (perf's own command line has none: rsp-record starts the workload itself) */
    b->m->workload_command = rsp_model_intern(b->m, command);
}

void rsp_workload_set_system_wide(rsp_model_builder *b)
{
  b->workload->system_wide = true;
}

void rsp_workload_comm(rsp_model_builder *b, const rsp_event *ev)
{
  const char *comm = ev->u.comm.comm;
  if (!comm)
    return;
  if (strcmp(comm, "perf-exec") == 0) {
    int32_t pid = ev->u.comm.pid;
    for (guint i = 0; i < b->workload->perf_exec->len; i++)
      if (g_array_index(b->workload->perf_exec, int32_t, i) == pid)
        return;
    g_array_append_val(b->workload->perf_exec, pid);
  } else if (ev->u.comm.exec && ev->time && ev->time != UINT64_MAX) {
    exec_seen e = { ev->u.comm.pid, rsp_model_intern(b->m, comm), ev->time };
    g_array_append_val(b->workload->execs, e);
  }
}

/* perf record's options that take their value as the next word (tools/perf/builtin-record.c). */
static bool takes_value(const char *opt)
{
  static const char *const with_value[] = {
    "-e", "--event", "--filter", "--exclude-perf", "-p", "--pid", "-t", "--tid", "-r", "--realtime", "-C", "--cpu",
    "-c", "--count", "-o", "--output", "-F", "--freq", "-m", "--mmap-pages", "--call-graph", "-G", "--cgroup",
    "-u", "--uid", "-b", "-j", "--branch-filter", "-k", "--clockid", "-D", "--delay", "--switch-output-event",
    "--max-size", "--affinity", "--mmap-flush", "-I", "--intr-regs", "--user-regs", "--user-callchains",
    "--switch-max-files", "--synth", "--threads", "--control", "--debuginfod", "--off-cpu-thresh",
    "--buildid-mmap", "--setup-filter", "-S", "--snapshot", "--aux-sample", "--proc-map-timeout", "--num-thread-synthesize",
    NULL,
  };
  for (const char *const *o = with_value; *o; o++)
    if (strcmp(opt, *o) == 0)
      return true;
  return false;
}

/* The command perf record ran (its words from the first one after the options), and the pid of
 * "-p PID" (the first of a list), and whether it recorded all cpus (-a), from perf's CMDLINE. */
static void parse_cmdline(char **argv, char ***command, int32_t *pid, bool *all_cpus)
{
  *command = NULL;
  *pid = -1;
  *all_cpus = false;
  if (!argv)
    return;
  guint n = g_strv_length(argv), i = 0;
  while (i < n && strcmp(argv[i], "record") != 0)
    i++;
  if (i == n)
    return;
  for (i++; i < n; i++) {
    const char *w = argv[i];
    if (strcmp(w, "--") == 0) {
      i++;
      break;
    }
    if (w[0] != '-')
      break;
    const char *value = NULL;
    if (strcmp(w, "-p") == 0 || strcmp(w, "--pid") == 0)
      value = i + 1 < n ? argv[i + 1] : NULL;
    else if (g_str_has_prefix(w, "--pid="))
      value = w + 6;
    else if (g_str_has_prefix(w, "-p") && w[2] >= '0' && w[2] <= '9')
      value = w + 2;
    /* -a, --all-cpus, or -a among short flags (-ag) */
    if (strcmp(w, "--all-cpus") == 0 || (w[1] != '-' && !takes_value(w) && strchr(w + 1, 'a') &&
                                         strspn(w + 1, "agNnqvTdsRPWBi") == strlen(w + 1)))
      *all_cpus = true;
    if (value && *pid < 0)
      *pid = (int32_t)strtol(value, NULL, 10) > 0 ? (int32_t)strtol(value, NULL, 10) : -1;
    if (takes_value(w))
      i++;
  }
  if (i < n)
    *command = g_strdupv(argv + i);
}

/* The comm an exec of PATH gets: its basename, cut to TASK_COMM_LEN - 1 bytes. */
static char *comm_of(const char *path)
{
  char *base = g_path_get_basename(path);
  if (strlen(base) > 15)
    base[15] = 0;
  return base;
}

static bool pid_has_task(const rsp_model *m, int32_t pid)
{
  for (guint t = 0; t < m->tasks->len; t++)
    if (g_array_index(m->tasks, rsp_task, t).pid == pid)
      return true;
  return false;
}

/* Whether TASK's process is the recorder's own: perf, rsp-record and their helpers. */
static bool recorder(const rsp_task *task)
{
  static const char *const names[] = { "perf", "perf-exec", "rsp-record" };
  for (unsigned i = 0; i < G_N_ELEMENTS(names); i++)
    if (task->comm && strcmp(task->comm, names[i]) == 0)
      return true;
  return false;
}

/* The process whose tasks ran the most (their runtime in rsp_model_task_totals, the measure --comm takes the
 * longest-running process of a name by), kernel threads and the recorder left out; -1: none. */
static int32_t busiest_process(const rsp_model *m)
{
  GHashTable *ns = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  for (rsp_task_id t = 0; t < m->tasks->len; t++) {
    int32_t pid = g_array_index(m->tasks, rsp_task, t).pid;
    if (pid <= 0)
      continue;
    rsp_task_totals tot;
    rsp_model_task_totals(m, t, &tot);
    uint64_t *sum = g_hash_table_lookup(ns, GINT_TO_POINTER(pid));
    if (!sum) {
      sum = g_new0(uint64_t, 1);
      g_hash_table_insert(ns, GINT_TO_POINTER(pid), sum);
    }
    *sum += tot.runtime;
  }
  const rsp_task *tasks = (const rsp_task *)(const void *)m->tasks->data;
  int32_t best = -1;
  uint64_t best_ns = 0;
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, ns);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    int32_t pid = GPOINTER_TO_INT(key);
    uint64_t v = *(const uint64_t *)value;
    if (!v || v < best_ns || (v == best_ns && pid > best))
      continue;
    const rsp_task *named = rsp_model_process_task(m, pid);
    if (!named || recorder(named) || rsp_task_is_kernel_thread(m, (rsp_task_id)(named - tasks)))
      continue;
    best = pid;
    best_ns = v;
  }
  g_hash_table_destroy(ns);
  return best;
}

void rsp_workload_finish(rsp_model_builder *b)
{
  rsp_workload_builder *w = b->workload;
  rsp_model *m = b->m;
  char **command;
  int32_t record_pid;
  bool all_cpus;
  parse_cmdline(w->cmdline, &command, &record_pid, &all_cpus);
  if (command && !m->workload_command) {
    char *joined = g_strjoinv(" ", command);
    m->workload_command = rsp_model_intern(m, joined);
    g_free(joined);
  }
  char *want = command && command[0] ? comm_of(command[0]) : NULL;
  if (m->workload_source == RSP_WORKLOAD_NONE) {
    /* the perf-exec child that exec'd the command (by its name when perf says it), else the first
     * perf-exec child that exec'd at all, else the first one */
    int32_t any_exec = -1;
    for (guint i = 0; i < w->perf_exec->len && m->workload_source == RSP_WORKLOAD_NONE; i++) {
      int32_t pid = g_array_index(w->perf_exec, int32_t, i);
      for (guint k = 0; k < w->execs->len; k++) {
        const exec_seen *e = &g_array_index(w->execs, exec_seen, k);
        if (e->pid != pid)
          continue;
        if (any_exec < 0)
          any_exec = pid;
        if (want && strcmp(e->comm, want) == 0) {
          m->workload_pid = pid;
          m->workload_source = RSP_WORKLOAD_PERF_EXEC;
        }
        break; /* its first exec is perf's */
      }
    }
    if (m->workload_source == RSP_WORKLOAD_NONE && w->perf_exec->len) {
      m->workload_pid = any_exec >= 0 ? any_exec : g_array_index(w->perf_exec, int32_t, 0);
      m->workload_source = RSP_WORKLOAD_PERF_EXEC;
    }
  }
  if (m->workload_source == RSP_WORKLOAD_NONE && record_pid > 0 && pid_has_task(m, record_pid)) {
    m->workload_pid = record_pid;
    m->workload_source = RSP_WORKLOAD_RECORD_PID;
  }
  if (m->workload_source == RSP_WORKLOAD_NONE && want) {
    for (guint k = 0; k < w->execs->len; k++) {
      const exec_seen *e = &g_array_index(w->execs, exec_seen, k);
      if (strcmp(e->comm, want) == 0) {
        m->workload_pid = e->pid;
        m->workload_source = RSP_WORKLOAD_COMMAND_EXEC;
        break;
      }
    }
  }
  /* system-wide with no workload, or only a timer for one ("perf record -a -- sleep 5") */
  bool timer = want && strcmp(want, "sleep") == 0;
  if ((w->system_wide && m->workload_source == RSP_WORKLOAD_NONE) ||
      (all_cpus && (!command || timer) &&
       (m->workload_source == RSP_WORKLOAD_NONE || m->workload_source == RSP_WORKLOAD_PERF_EXEC ||
        m->workload_source == RSP_WORKLOAD_COMMAND_EXEC))) {
    int32_t pid = busiest_process(m);
    if (pid > 0) {
      m->workload_pid = pid;
      m->workload_source = RSP_WORKLOAD_BUSIEST;
    }
  }
  if (m->workload_source == RSP_WORKLOAD_NONE && w->execs->len) {
    m->workload_pid = g_array_index(w->execs, exec_seen, 0).pid;
    m->workload_source = RSP_WORKLOAD_FIRST_EXEC;
  }
  g_free(want);
  g_strfreev(command);
  g_array_free(w->perf_exec, TRUE);
  g_array_free(w->execs, TRUE);
  g_strfreev(w->cmdline);
  g_free(w);
  b->workload = NULL;
}

rsp_workload_source rsp_model_workload_source(const rsp_model *m) { return (rsp_workload_source)m->workload_source; }
const char *rsp_model_workload_command(const rsp_model *m) { return m->workload_command; }
