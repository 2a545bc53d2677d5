/* Tasks from fabricated records (trace-builder.c): pids and tids, parents from FORK, comm history
 * from COMM, a new generation at each exec, a new task when a tid is reused after an exit. */
#include "checks.h"

enum { IDLE = 0, BASH = 10, WORKER = 11, CHILD = 20, STRANGER = 30 };

static void test_tasks(void)
{
  tb *t = tb_new(true);
  tb_thread(t, BASH, WORKER);
  /* perf's synthesized view of what existed before the recording: no time */
  tb_comm(t, 0, 0, BASH, "bash", false);
  tb_fork(t, 0, 0, BASH, WORKER);
  tb_comm(t, 0, 0, WORKER, "bash-worker", false);
  tb_switch_in(t, 900 * US, 0, BASH, IDLE);
  tb_fork(t, 1000 * US, 0, BASH, CHILD);                 /* bash forks a child ... */
  tb_switch_out(t, 1100 * US, 0, BASH, CHILD, false);
  tb_switch_in(t, 1100 * US, 0, CHILD, BASH);
  tb_comm(t, 1500 * US, 0, CHILD, "ls", true);           /* ... which execs ls ... */
  tb_comm(t, 1600 * US, 0, CHILD, "ls-renamed", false);  /* ... renames itself (prctl) ... */
  tb_exit(t, 2000 * US, 0, CHILD);                       /* ... and exits */
  tb_switch_out(t, 2010 * US, 0, -1, BASH, false);
  tb_switch_in(t, 2010 * US, 0, BASH, -1);
  tb_fork(t, 3000 * US, 0, BASH, CHILD);                 /* the tid, reused */
  tb_waking(t, 3500 * US, 0, BASH, STRANGER, 1);          /* a tid known only from a tracepoint */
  tb_switch_out(t, 4000 * US, 0, BASH, IDLE, false);
  rsp_model *m = tb_finish(t);

  CHECK_EQ(rsp_model_n_tasks(m), 6);
  rsp_task_id bash = find_task(m, BASH, 0), worker = find_task(m, WORKER, 0);
  rsp_task_id child = find_task(m, CHILD, 0), ls = find_task(m, CHILD, 1);
  rsp_task_id reused = find_task_nth(m, CHILD, 0, 1), stranger = find_task(m, STRANGER, 0);
  if (bash == RSP_NO_ID || worker == RSP_NO_ID || child == RSP_NO_ID || ls == RSP_NO_ID ||
      reused == RSP_NO_ID || stranger == RSP_NO_ID)
    return;
  const rsp_task *tb_ = rsp_model_task(m, bash), *tw = rsp_model_task(m, worker);
  const rsp_task *tc = rsp_model_task(m, child), *tl = rsp_model_task(m, ls);
  const rsp_task *tr = rsp_model_task(m, reused), *ts = rsp_model_task(m, stranger);

  CHECK_EQ(tb_->pid, BASH);
  CHECK_EQ(tb_->start, 0);
  CHECK_EQ(tb_->parent, RSP_NO_ID);
  CHECK_STR(tb_->comm, "bash");
  CHECK_EQ(tw->pid, BASH);
  CHECK_EQ(tw->tid, WORKER);
  CHECK_EQ(tw->parent, bash);
  CHECK_STR(tw->comm, "bash-worker");

  CHECK_EQ(tc->pid, CHILD);
  CHECK_EQ(tc->parent, bash);
  CHECK_EQ(tc->start, 1000 * US);
  CHECK_STR(tc->comm, "bash"); /* inherited at the fork */
  CHECK_EQ(tc->n_comms, 1);
  CHECK_EQ(tc->exit_time, 0);  /* the exit is the last generation's */
  RUN(m, child, 0, 1100, 1500, 0, 0, 0);

  CHECK_EQ(tl->generation, 1);
  CHECK_EQ(tl->prev_generation, child);
  CHECK_EQ(tl->parent, bash);
  CHECK_EQ(tl->start, 1500 * US);
  CHECK_EQ(tl->exit_time, 2000 * US);
  CHECK_STR(tl->comm, "ls-renamed");
  CHECK_EQ(tl->n_comms, 2);
  CHECK_STR(rsp_model_task_comm(m, ls, 0)->comm, "ls");
  CHECK_EQ(rsp_model_task_comm(m, ls, 1)->time, 1600 * US);
  CHECK_STR(rsp_model_task_comm_at(m, ls, 0), "ls");
  CHECK_STR(rsp_model_task_comm_at(m, ls, 1599 * US), "ls");
  CHECK_STR(rsp_model_task_comm_at(m, ls, 1600 * US), "ls-renamed");
  RUN(m, ls, 0, 1500, 2010, 0, 0, RSP_RUN_STARTED_BY_EXEC);

  CHECK_EQ(tr->generation, 0);
  CHECK_EQ(tr->prev_generation, RSP_NO_ID);
  CHECK_EQ(tr->parent, bash);
  CHECK_EQ(tr->start, 3000 * US);
  CHECK_STR(tr->comm, "bash");
  CHECK_EQ(tr->n_runs, 0);

  CHECK_EQ(ts->pid, -1);        /* no record said */
  CHECK_STR(ts->comm, "t30");   /* the tracepoint's comm field */
  CHECK_EQ(ts->parent, RSP_NO_ID);

  CHECK_EQ(tb_->n_runs, 2);
  RUN(m, bash, 0, 900, 1100, 0, 0, 0);
  RUN(m, bash, 1, 2010, 4000, 0, 0, 0);
  rsp_model_free(m);
}

/* The workload of a plain `perf record -a -- COMMAND` (no FILE.meta): the child perf forked, named
 * perf-exec until its exec (here synthesized, as when perf enables after the fork), not the first
 * exec of some other process on a busy machine. */
static void test_perf_exec_workload(void)
{
  tb *t = tb_new(true);
  tb_comm(t, 0, 0, CHILD, "perf-exec", false);
  tb_switch_in(t, 100 * US, 0, STRANGER, IDLE);
  tb_comm(t, 200 * US, 0, STRANGER, "pyenv-which", true); /* the first exec of the recording */
  tb_switch_out(t, 300 * US, 0, STRANGER, CHILD, false);
  tb_switch_in(t, 300 * US, 0, CHILD, STRANGER);
  tb_comm(t, 400 * US, 0, CHILD, "bash", true);
  tb_switch_out(t, 500 * US, 0, CHILD, IDLE, false);
  rsp_model *m = tb_finish(t);
  CHECK_EQ(rsp_model_workload_pid(m), CHILD);
  CHECK_EQ(rsp_model_workload_source(m), RSP_WORKLOAD_PERF_EXEC);
  rsp_model_free(m);
  /* without perf-exec, the first exec stays the guess */
  t = tb_new(true);
  tb_switch_in(t, 100 * US, 0, STRANGER, IDLE);
  tb_comm(t, 200 * US, 0, STRANGER, "pyenv-which", true);
  tb_switch_out(t, 300 * US, 0, STRANGER, IDLE, false);
  m = tb_finish(t);
  CHECK_EQ(rsp_model_workload_pid(m), STRANGER);
  CHECK_EQ(rsp_model_workload_source(m), RSP_WORKLOAD_FIRST_EXEC);
  CHECK(rsp_model_workload_command(m) == NULL);
  rsp_model_free(m);
}

/* Without FILE.meta, perf's own command line (HEADER_CMDLINE) says what was recorded; the process
 * of interest follows from it, and the model says which rule chose it. */
static void test_workload_from_cmdline(void)
{
  enum { OTHER = 40, MAKE = 50 };
  /* two perf-exec children (another perf ran beside; its child execs sleep first): the one that
   * exec'd the recorded command is the workload */
  tb *t = tb_new(true);
  tb_cmdline(t, (const char *const[]){ "/usr/bin/perf", "record", "-e", "sched:sched_switch", "-o", "x.data",
                                       "-F", "997", "-g", "-a", "--", "make", "-j2", NULL });
  tb_comm(t, 0, 0, OTHER, "perf-exec", false);
  tb_comm(t, 0, 0, MAKE, "perf-exec", false);
  tb_switch_in(t, 100 * US, 0, OTHER, IDLE);
  tb_comm(t, 150 * US, 0, OTHER, "sleep", true);
  tb_switch_out(t, 200 * US, 0, OTHER, MAKE, false);
  tb_switch_in(t, 200 * US, 0, MAKE, OTHER);
  tb_comm(t, 250 * US, 0, MAKE, "make", true);
  tb_switch_out(t, 300 * US, 0, MAKE, IDLE, false);
  rsp_model *m = tb_finish(t);
  CHECK_EQ(rsp_model_workload_pid(m), MAKE);
  CHECK_EQ(rsp_model_workload_source(m), RSP_WORKLOAD_PERF_EXEC);
  CHECK_STR(rsp_model_workload_command(m), "make -j2");
  rsp_model_free(m);

  /* no perf-exec in the stream (no "--" either: the command is the first word after the options,
   * whose values are skipped): the first exec of the command's name, not the first exec */
  t = tb_new(true);
  tb_cmdline(t, (const char *const[]){ "perf", "record", "-e", "sched:sched_switch", "--call-graph", "fp", "-a",
                                       "./run-all-tests-with-a-long-name.sh", "--fast", NULL });
  tb_switch_in(t, 100 * US, 0, STRANGER, IDLE);
  tb_comm(t, 150 * US, 0, STRANGER, "pyenv-which", true);
  tb_switch_out(t, 200 * US, 0, STRANGER, MAKE, false);
  tb_switch_in(t, 200 * US, 0, MAKE, STRANGER);
  tb_comm(t, 250 * US, 0, MAKE, "run-all-tests-w", true); /* the kernel keeps 15 bytes of the name */
  tb_switch_out(t, 300 * US, 0, MAKE, IDLE, false);
  m = tb_finish(t);
  CHECK_EQ(rsp_model_workload_pid(m), MAKE);
  CHECK_EQ(rsp_model_workload_source(m), RSP_WORKLOAD_COMMAND_EXEC);
  CHECK_STR(rsp_model_workload_command(m), "./run-all-tests-with-a-long-name.sh --fast");
  rsp_model_free(m);

  /* perf record -p PID: that process, though another one exec'd */
  t = tb_new(true);
  tb_cmdline(t, (const char *const[]){ "perf", "record", "-a", "-p", "50", NULL });
  tb_switch_in(t, 100 * US, 0, STRANGER, IDLE);
  tb_comm(t, 150 * US, 0, STRANGER, "pyenv-which", true);
  tb_switch_out(t, 200 * US, 0, STRANGER, MAKE, false);
  tb_switch_in(t, 200 * US, 0, MAKE, STRANGER);
  tb_switch_out(t, 300 * US, 0, MAKE, IDLE, false);
  m = tb_finish(t);
  CHECK_EQ(rsp_model_workload_pid(m), MAKE);
  CHECK_EQ(rsp_model_workload_source(m), RSP_WORKLOAD_RECORD_PID);
  CHECK(rsp_model_workload_command(m) == NULL);
  rsp_model_free(m);
}

/* A system-wide recording with no workload: "perf record -a -g -- sleep 5" only times it (perf-exec execs sleep),
 * and "perf record -ag" names no command. The process that ran the most is the guess: BUSY's two threads ran
 * 150 + 200 us; a kworker ran 500, perf itself 600 (left out); OTHER 300. Without -a, sleep is the workload. */
static void test_workload_system_wide(void)
{
  enum { SLEEPER = 60, BUSY = 70, BUSY2 = 71, OTHER = 80, KW = 90, PERF = 95 };
  const char *const timed[] = { "perf", "record", "-a", "-g", "--", "sleep", "5", NULL };
  const char *const untimed[] = { "perf", "record", "-ag", "-o", "x.data", NULL };
  const char *const not_all[] = { "perf", "record", "-g", "--", "sleep", "5", NULL };
  const char *const *lines[] = { timed, untimed, not_all };
  for (int k = 0; k < 3; k++) {
    tb *t = tb_new(true);
    tb_cmdline(t, lines[k]);
    tb_thread(t, BUSY, BUSY2);
    tb_comm(t, 0, 0, SLEEPER, "perf-exec", false);
    tb_comm(t, 0, 0, BUSY, "busy", false);
    tb_comm(t, 0, 0, BUSY2, "busy", false);
    tb_comm(t, 0, 0, OTHER, "other", false);
    tb_comm(t, 0, 0, KW, "kworker/0:1", false);
    tb_comm(t, 0, 0, PERF, "perf", false);
    tb_switch_in(t, 100 * US, 0, SLEEPER, IDLE);
    tb_comm(t, 110 * US, 0, SLEEPER, "sleep", true);
    tb_switch_out(t, 120 * US, 0, SLEEPER, BUSY, false);
    tb_switch_in(t, 120 * US, 0, BUSY, SLEEPER);
    tb_switch_out(t, 270 * US, 0, BUSY, OTHER, false);
    tb_switch_in(t, 270 * US, 0, OTHER, BUSY);
    tb_switch_out(t, 570 * US, 0, OTHER, KW, false);
    tb_switch_in(t, 570 * US, 0, KW, OTHER);
    tb_switch_out(t, 1070 * US, 0, KW, PERF, false);
    tb_switch_in(t, 1070 * US, 0, PERF, KW);
    tb_switch_out(t, 1670 * US, 0, PERF, IDLE, false);
    tb_switch_in(t, 100 * US, 1, BUSY2, IDLE);
    tb_switch_out(t, 300 * US, 1, BUSY2, IDLE, false);
    rsp_model *m = tb_finish(t);
    if (k < 2) {
      CHECK_EQ(rsp_model_workload_pid(m), BUSY);
      CHECK_EQ(rsp_model_workload_source(m), RSP_WORKLOAD_BUSIEST);
    } else {
      CHECK_EQ(rsp_model_workload_pid(m), SLEEPER);
      CHECK_EQ(rsp_model_workload_source(m), RSP_WORKLOAD_PERF_EXEC);
    }
    rsp_model_free(m);
  }
}

int main(void)
{
  test_tasks();
  test_workload_system_wide();
  test_perf_exec_workload();
  test_workload_from_cmdline();
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("model tasks: all checks passed\n");
  return 0;
}
