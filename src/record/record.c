/* rsp-record's collector: see record.h.
 *
 * One recording:
 *   preflight   perf, root, tracefs, the lock, stale leftovers of a killed rsp-record, the probe
 *               set, which events exist, the command
 *   setup       kprobes/uprobes, the ftrace instance, perf stat (the loss check) and perf record,
 *               both started with their events off (-D -1) and switched on through their
 *               control pipes: stat first, then record, so stat counts over the whole window
 *   run         the workload (fork/exec), or -p PID, or -a --duration; signals forwarded
 *   stop        record off, stat off (acks), SIGINT both and wait for them to write their files,
 *               ftrace off and drained
 *   cleanup     probes, instance, tracefs mount, lock: on every path, errors and Ctrl-C included
 *   after       FILE.kallsyms.zst, the loss check, FILE.meta
 */
#include "record/record-private.h"

#include "reader/reader.h"
#include "record/perf-count.h"
#include "record/probes.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

G_DEFINE_QUARK(rsp-record-error-quark, rsp_record_error)

/* ---- cleanup ------------------------------------------------------------------------------- */

/* Undoes everything made on the system; safe to call twice. */
static void cleanup(recorder *r)
{
  child *perfs[] = {&r->record, &r->stat};
  for (size_t i = 0; i < G_N_ELEMENTS(perfs); i++)
    if (perfs[i]->running)
      kill(perfs[i]->pid, SIGINT);
  rec_wait_children(r, perfs, G_N_ELEMENTS(perfs), 60000);
  if (r->ftrace) {
    GError *e = NULL;
    rsp_ftrace_capture_stop(r->ftrace, NULL);
    if (!rsp_ftrace_capture_remove(r->ftrace, &e)) {
      rec_error_msg("%s", e->message);
      g_error_free(e);
    }
  }
  for (guint i = r->dyn ? r->dyn->len : 0; i > 0; i--) {
    dyn_probe *d = r->dyn->pdata[i - 1];
    GError *e = NULL;
    if (d->removed)
      continue;
    if (!rsp_tracefs_probe_remove(r->tracefs, d->file, d->group, d->name, &e)) {
      rec_error_msg("removing probe %s: %s", d->event, e->message);
      g_error_free(e);
    }
    d->removed = true; /* tried once; a leftover is removed by the next rsp-record */
  }
  if (r->mounted_tracefs) {
    if (umount(r->tracefs) == 0)
      r->mounted_tracefs = false;
  }
  if (r->lock_fd >= 0) {
    close(r->lock_fd);
    r->lock_fd = -1;
  }
}

static void dyn_free(gpointer p)
{
  dyn_probe *d = p;
  g_free(d->group);
  g_free(d->name);
  g_free(d->event);
  g_free(d->definition);
  g_free(d);
}

static void recorder_free(recorder *r)
{
  g_free(r->perf);
  g_free(r->perf_version);
  g_free(r->tracefs);
  rsp_probe_set_free(r->set);
  g_ptr_array_unref(r->events);
  g_ptr_array_unref(r->skipped);
  g_ptr_array_unref(r->ftrace_events);
  g_ptr_array_unref(r->dyn);
  g_hash_table_unref(r->nostack);
  g_free(r->sampling);
  g_free(r->output);
  g_free(r->instance_name);
  rsp_ftrace_capture_free(r->ftrace);
  g_free(r->command_path);
  g_free(r->record.log);
  g_free(r->stat.log);
  if (r->record_argv)
    g_ptr_array_unref(r->record_argv);
  rec_close_control(&r->record);
  rec_close_control(&r->stat);
  if (r->target_pidfd >= 0)
    close(r->target_pidfd);
  if (r->timer_fd >= 0)
    close(r->timer_fd);
  if (r->sfd >= 0)
    close(r->sfd);
  if (r->start_time)
    g_date_time_unref(r->start_time);
}
/* ---- start and stop ------------------------------------------------------------------------ */

static unsigned online_cpus(void)
{
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (unsigned)n : 1;
}

/* perf record's buffer per CPU: 4 MiB up to 16 CPUs, then 64 MiB in all (a power of 2 pages) */
static unsigned default_mmap_pages(void)
{
  unsigned n = online_cpus();
  if (n <= 16)
    return DEFAULT_MMAP_PAGES;
  unsigned pages = 16384 / n, p2 = 128;
  while (p2 * 2 <= pages)
    p2 *= 2;
  return p2;
}

/* The ftrace ring buffer per CPU: 4 MiB up to 16 CPUs, then 64 MiB in all, at least 1 MiB */
static unsigned default_ftrace_kb(void)
{
  unsigned n = online_cpus();
  return n <= 16 ? DEFAULT_FTRACE_KB : MAX(1024u, 65536u / n);
}

/* "a,b,c"; with NOSTACK, those events get "/call-graph=no/" (perf record only) */
static char *join_events(GPtrArray *events, GHashTable *nostack)
{
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < events->len; i++) {
    if (i)
      g_string_append_c(s, ',');
    g_string_append(s, events->pdata[i]);
    if (nostack && g_hash_table_contains(nostack, events->pdata[i]))
      g_string_append(s, "/call-graph=no/");
  }
  return g_string_free(s, FALSE);
}

static GPtrArray *record_argv(recorder *r)
{
  GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(a, g_strdup("perf"));
  g_ptr_array_add(a, g_strdup("record"));
  g_ptr_array_add(a, g_strdup("-a"));
  g_ptr_array_add(a, g_strdup("-k"));
  g_ptr_array_add(a, g_strdup("CLOCK_MONOTONIC"));
  g_ptr_array_add(a, g_strdup("--switch-events"));
  g_ptr_array_add(a, g_strdup("-N")); /* build ids in the header, binaries not copied to ~/.debug */
  switch (r->o->call_graph) {
  case RSP_CALL_GRAPH_FP:
    g_ptr_array_add(a, g_strdup("--call-graph=fp"));
    break;
  case RSP_CALL_GRAPH_DWARF:
    g_ptr_array_add(a, g_strdup("--call-graph=dwarf"));
    break;
  case RSP_CALL_GRAPH_NONE:
    break;
  }
  g_ptr_array_add(a, g_strdup_printf("--mmap-pages=%u", r->o->mmap_pages ? r->o->mmap_pages : default_mmap_pages()));
  if (r->events->len) {
    g_ptr_array_add(a, g_strdup("-e"));
    g_ptr_array_add(a, join_events(r->events, r->o->call_graph == RSP_CALL_GRAPH_NONE ? NULL : r->nostack));
  }
  if (r->sampling) {
    g_ptr_array_add(a, g_strdup("-e"));
    g_ptr_array_add(a, g_strdup(r->sampling));
  }
  g_ptr_array_add(a, g_strdup("-o"));
  g_ptr_array_add(a, g_strdup(r->output));
  g_ptr_array_add(a, g_strdup("-D"));
  g_ptr_array_add(a, g_strdup("-1")); /* events off until the control pipe says enable */
  return a;
}

static GPtrArray *stat_argv(recorder *r, const char *out)
{
  GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(a, g_strdup("perf"));
  g_ptr_array_add(a, g_strdup("stat"));
  g_ptr_array_add(a, g_strdup("-a"));
  g_ptr_array_add(a, g_strdup("-x"));
  g_ptr_array_add(a, g_strdup(","));
  g_ptr_array_add(a, g_strdup("-o"));
  g_ptr_array_add(a, g_strdup(out));
  g_ptr_array_add(a, g_strdup("-e"));
  g_ptr_array_add(a, join_events(r->events, NULL));
  g_ptr_array_add(a, g_strdup("-D"));
  g_ptr_array_add(a, g_strdup("-1"));
  return a;
}

char *rec_argv_string(GPtrArray *a)
{
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < a->len && a->pdata[i]; i++) {
    const char *w = a->pdata[i];
    bool plain = *w != '\0';
    for (const char *c = w; *c && plain; c++)
      plain = g_ascii_isalnum(*c) || strchr("-_=:,./+%@", *c);
    char *q = plain ? g_strdup(w) : g_shell_quote(w);
    g_string_append_printf(s, "%s%s", i ? " " : "", q);
    g_free(q);
  }
  return g_string_free(s, FALSE);
}

static bool start_workload(recorder *r, GError **error)
{
  int errpipe[2];
  if (pipe2(errpipe, O_CLOEXEC) != 0) {
    int e = errno;
    g_set_error(error, RSP_RECORD_ERROR, 0, "pipe: %s", g_strerror(e));
    return false;
  }
  pid_t pid = fork();
  if (pid == 0) {
    /* async-signal-safe calls only. rsp-record installs no signal handlers (a signalfd):
     * the command gets the dispositions rsp-record got (ignored stays ignored), and its mask. */
    close(errpipe[0]);
    sigprocmask(SIG_SETMASK, &r->saved_mask, NULL);
    execve(r->command_path, r->o->command, environ);
    int e = errno;
    ssize_t w = write(errpipe[1], &e, sizeof e);
    (void)w;
    _exit(e == ENOENT ? RSP_RECORD_EXIT_NOTFOUND : RSP_RECORD_EXIT_NOEXEC);
  }
  int fork_errno = errno;
  close(errpipe[1]);
  if (pid < 0) {
    close(errpipe[0]);
    g_set_error(error, RSP_RECORD_ERROR, 0, "fork: %s", g_strerror(fork_errno));
    return false;
  }
  r->work.pid = pid;
  r->work.running = true;
  int e = 0;
  ssize_t n;
  do
    n = read(errpipe[0], &e, sizeof e);
  while (n < 0 && errno == EINTR);
  close(errpipe[0]);
  if (n == (ssize_t)sizeof e) {
    g_set_error(error, RSP_RECORD_ERROR, 0, "%s: %s", r->o->command[0], g_strerror(e));
    r->exit_status = e == ENOENT ? RSP_RECORD_EXIT_NOTFOUND : RSP_RECORD_EXIT_NOEXEC;
    r->have_exit_status = true;
    return false;
  }
  return true;
}

static void arm_timer(recorder *r, double seconds)
{
  if (r->timer_fd < 0)
    r->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
  struct itimerspec its;
  memset(&its, 0, sizeof its);
  its.it_value.tv_sec = (time_t)seconds;
  its.it_value.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9);
  if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
    its.it_value.tv_nsec = 1;
  timerfd_settime(r->timer_fd, 0, &its, NULL);
}

static int pidfd_open_(pid_t pid)
{
#ifdef SYS_pidfd_open
  return (int)syscall(SYS_pidfd_open, pid, 0);
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

/* The main loop: until the workload ends, the duration passes, or the user stops us. */
static void run(recorder *r)
{
  bool grace = false;
  for (;;) {
    rec_reap(r);
    if (!r->record.running) {
      rec_error_msg("perf record exited (status %d) during the recording", rec_status_code(r->record.status));
      r->failed = true;
      return;
    }
    if (r->o->command && !r->work.running) {
      r->exit_status = rec_status_code(r->work.status);
      r->have_exit_status = true;
      return;
    }
    struct pollfd p[3];
    int n = 0;
    p[n++] = (struct pollfd){r->sfd, POLLIN, 0};
    int timer_i = -1, target_i = -1;
    if (r->timer_fd >= 0) {
      timer_i = n;
      p[n++] = (struct pollfd){r->timer_fd, POLLIN, 0};
    }
    if (r->target_pidfd >= 0) {
      target_i = n;
      p[n++] = (struct pollfd){r->target_pidfd, POLLIN, 0};
    }
    int got = poll(p, (nfds_t)n, r->o->pid > 0 && r->target_pidfd < 0 ? 100 : 1000);
    if (got < 0 && errno != EINTR)
      return;
    if (r->o->pid > 0 && r->target_pidfd < 0 && kill(r->o->pid, 0) != 0 && errno == ESRCH) {
      rec_note("process %d ended", r->o->pid);
      return;
    }
    if (got <= 0)
      continue;
    if (target_i >= 0 && (p[target_i].revents & POLLIN)) {
      rec_note("process %d ended", r->o->pid);
      return;
    }
    if (timer_i >= 0 && (p[timer_i].revents & POLLIN)) {
      uint64_t ticks;
      if (read(r->timer_fd, &ticks, sizeof ticks) < 0)
        (void)0;
      if (grace)
        rec_note("the command is still running %d s after the signal: stopping the recording", GRACE_MS / 1000);
      return; /* the duration, or the grace after a signal */
    }
    if (p[0].revents & POLLIN) {
      struct signalfd_siginfo si;
      while (read(r->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGCHLD)
          continue;
        r->signals++;
        r->interrupted = true;
        if (!r->o->command || !r->work.running || r->signals > 1)
          return; /* -a, -p: a signal ends the recording; a second one always does */
        /* The terminal sent it to the workload too (same process group, si_code SI_KERNEL);
         * a kill(1) reached us alone: pass it on. */
        if (si.ssi_code != SI_KERNEL)
          kill(r->work.pid, (int)si.ssi_signo);
        rec_note("%s: stopping when the command exits (at most %d s; again to stop now)",
             strsignal((int)si.ssi_signo), GRACE_MS / 1000);
        grace = true;
        arm_timer(r, GRACE_MS / 1000.0);
      }
    }
  }
}

static void stop(recorder *r)
{
  GError *e = NULL;
  r->t_off_sent = rec_now_ns();
  bool rec_sent = r->record.running && rec_perf_send(&r->record, "disable", &e);
  g_clear_error(&e);
  bool stat_sent = r->stat.running && rec_perf_send(&r->stat, "disable", &e);
  g_clear_error(&e);
  if (rec_sent && !rec_perf_wait_ack(r, &r->record, "disable", &e)) {
    rec_error_msg("%s", e->message);
    g_clear_error(&e);
  }
  if (stat_sent && !rec_perf_wait_ack(r, &r->stat, "disable", &e)) {
    rec_error_msg("%s", e->message);
    g_clear_error(&e);
  }
  r->t_off_acked = rec_now_ns();
  if (r->ftrace) {
    if (!rsp_ftrace_capture_stop(r->ftrace, &e)) {
      rec_error_msg("ftrace capture: %s", e->message);
      g_clear_error(&e);
      r->ftrace_ok = false;
    }
  }
  child *perfs[] = {&r->record, &r->stat};
  for (size_t i = 0; i < G_N_ELEMENTS(perfs); i++)
    if (perfs[i]->running)
      kill(perfs[i]->pid, SIGINT);
  /* The workload: after a signal it had its grace; perf record does the same (SIGTERM). */
  if (r->work.running) {
    rec_note("terminating the command (pid %d)", (int)r->work.pid);
    kill(r->work.pid, SIGTERM);
  }
  if (!rec_quiet)
    rec_note("waiting for perf to write %s", r->output);
  rec_wait_children(r, perfs, G_N_ELEMENTS(perfs), PERF_EXIT_TIMEOUT_MS);
  if (r->work.running) {
    child *w[] = {&r->work};
    rec_wait_children(r, w, 1, 2000);
    if (r->work.running)
      rec_note("the command (pid %d) is still running", (int)r->work.pid);
  }
  if (!r->work.running && r->work.pid > 0 && !r->have_exit_status) {
    r->exit_status = rec_status_code(r->work.status);
    r->have_exit_status = true;
  }
  int rs = r->record.status;
  if ((WIFEXITED(rs) && WEXITSTATUS(rs) == 0) ||
      (WIFSIGNALED(rs) && (WTERMSIG(rs) == SIGINT || WTERMSIG(rs) == SIGTERM))) {
    /* perf record writes its file on SIGINT, then re-raises it */
  } else if (r->record.pid > 0) {
    rec_error_msg("perf record ended with status %d", rec_status_code(r->record.status));
    rec_print_log("perf record", r->record.log);
    r->failed = true;
  }
}

/* ---- the whole ----------------------------------------------------------------------------- */

static void ensure_std_fds(void)
{
  for (int fd = 0; fd < 3; fd++)
    if (fcntl(fd, F_GETFD) < 0)
      open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
}

int rsp_record_run(const rsp_record_options *o)
{
  rec_quiet = o->quiet;
  ensure_std_fds();
  recorder rr;
  recorder *r = &rr;
  memset(r, 0, sizeof *r);
  r->o = o;
  r->lock_fd = r->target_pidfd = r->timer_fd = -1;
  r->record.ctl_w = r->record.ack_r = r->stat.ctl_w = r->stat.ack_r = -1;
  r->record.what = "perf record";
  r->stat.what = "perf stat";
  r->work.what = o->command ? o->command[0] : "the command";
  r->events = g_ptr_array_new_with_free_func(g_free);
  r->skipped = g_ptr_array_new_with_free_func(g_free);
  r->ftrace_events = g_ptr_array_new_with_free_func(g_free);
  r->dyn = g_ptr_array_new_with_free_func(dyn_free);
  r->nostack = g_hash_table_new(g_str_hash, g_str_equal); /* keys owned by the probe set */
  r->exit_status = RSP_RECORD_EXIT_FAILURE;
  r->ftrace_ok = true;

  sigemptyset(&r->blocked);
  sigaddset(&r->blocked, SIGINT);
  sigaddset(&r->blocked, SIGTERM);
  sigaddset(&r->blocked, SIGHUP);
  sigaddset(&r->blocked, SIGQUIT);
  sigaddset(&r->blocked, SIGCHLD);
  sigprocmask(SIG_BLOCK, &r->blocked, &r->saved_mask);
  r->sfd = signalfd(-1, &r->blocked, SFD_CLOEXEC | SFD_NONBLOCK);
  int status = RSP_RECORD_EXIT_FAILURE;
  GError *e = NULL;
  char *stat_out = NULL;

  /* preflight: nothing on the system is changed before the probe set and command are known */
  rec_phase("start");
  if (!rec_find_perf(r) || !rec_check_root())
    goto out;
  if (o->command && !rec_resolve_command(r)) {
    status = r->exit_status;
    goto out;
  }
  if (o->pid > 0 && kill(o->pid, 0) != 0 && errno == ESRCH) {
    rec_error_msg("no process %d", o->pid);
    goto out;
  }
  r->set = rsp_probe_set_load(o->probes ? o->probes : "default", &e);
  if (!r->set) {
    rec_error_msg("%s", e->message);
    g_clear_error(&e);
    goto out;
  }
  {
    char *abs = g_canonicalize_filename(o->output ? o->output : "perf.data", NULL);
    r->output = abs;
    char *dir = g_path_get_dirname(abs);
    bool dir_ok = g_file_test(dir, G_FILE_TEST_IS_DIR) && access(dir, W_OK) == 0;
    if (!dir_ok)
      rec_error_msg("cannot write in %s: %s", dir, g_strerror(errno ? errno : ENOENT));
    g_free(dir);
    if (!dir_ok)
      goto out;
  }
  if (!rec_find_tracefs(r) || (!o->dry_run && !rec_take_lock(r)))
    goto out;
  {
    char *kp = g_build_filename(r->tracefs, "kprobe_events", NULL);
    char *up = g_build_filename(r->tracefs, "uprobe_events", NULL);
    r->has_kprobes = g_file_test(kp, G_FILE_TEST_EXISTS);
    r->has_uprobes = g_file_test(up, G_FILE_TEST_EXISTS);
    g_free(kp);
    g_free(up);
  }
  if (!o->dry_run)
    rec_remove_leftovers(r);
  if (rec_pending_stop_signal(r))
    goto interrupted_early;
  if (o->libc_probes && !r->has_uprobes)
    rec_note("--libc-probes: this kernel has no uprobes (no %s/uprobe_events): recording without them", r->tracefs);
  if (!rec_resolve_events(r))
    goto out;
  if (r->skipped->len && !rec_quiet) {
    /* grouped by reason: "event (why)" */
    rec_note("skipped %u event(s) of probe set %s:", r->skipped->len, r->set->name);
    GPtrArray *reasons = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *lists = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < r->skipped->len; i++) {
      const char *sk = r->skipped->pdata[i];
      const char *paren = strstr(sk, " (");
      char *ev = paren ? g_strndup(sk, (gsize)(paren - sk)) : g_strdup(sk);
      const char *why = paren ? paren + 2 : "";
      guint j = 0;
      while (j < reasons->len && strcmp(reasons->pdata[j], why) != 0)
        j++;
      if (j == reasons->len) {
        g_ptr_array_add(reasons, g_strdup(why));
        g_ptr_array_add(lists, g_strdup(ev));
      } else {
        char *l = g_strconcat(lists->pdata[j], ", ", ev, NULL);
        g_free(lists->pdata[j]);
        lists->pdata[j] = l;
      }
      g_free(ev);
    }
    for (guint j = 0; j < reasons->len; j++) {
      char *why = reasons->pdata[j];
      if (g_str_has_suffix(why, ")"))
        why[strlen(why) - 1] = '\0';
      fprintf(stderr, "  %s: %s\n", why, (char *)lists->pdata[j]);
    }
    g_ptr_array_unref(reasons);
    g_ptr_array_unref(lists);
  }
  if (o->dry_run) {
    r->record_argv = record_argv(r);
    char *cmd = rec_argv_string(r->record_argv);
    printf("probe set: %s (version %d, %s)\n", r->set->name, r->set->version, r->set->path);
    for (guint i = 0; i < r->events->len; i++) {
      bool ft = false;
      for (guint j = 0; j < r->ftrace_events->len; j++)
        ft |= strcmp(r->ftrace_events->pdata[j], r->events->pdata[i]) == 0;
      printf("record  %s%s%s\n", (char *)r->events->pdata[i], ft ? "  (+ftrace)" : "",
             g_hash_table_contains(r->nostack, r->events->pdata[i]) ? "  (no stack)" : "");
    }
    if (r->sampling)
      printf("sample  %s\n", r->sampling);
    for (guint i = 0; i < r->skipped->len; i++)
      printf("skip    %s\n", (char *)r->skipped->pdata[i]);
    printf("perf command: %s\n", cmd);
    g_free(cmd);
    status = 0;
    goto out;
  }
  if (!rec_rotate_output(r))
    goto out;
  char *tmpl = g_strdup_printf("rsp-record-%d-XXXXXX", (int)getpid());
  r->workdir = g_dir_make_tmp(tmpl, &e);
  g_free(tmpl);
  if (!r->workdir) {
    rec_error_msg("%s", e->message);
    g_clear_error(&e);
    goto out;
  }
  r->record.log = g_build_filename(r->workdir, "perf-record.log", NULL);
  r->stat.log = g_build_filename(r->workdir, "perf-stat.log", NULL);

  /* setup */
  rec_phase("preflight done");
  if (r->ftrace_events->len) {
    char *dir = g_strconcat(r->output, ".ftrace", NULL);
    r->instance_name = g_strdup_printf("rsp-%d", (int)getpid());
    r->ftrace = rsp_ftrace_capture_create(r->tracefs, r->instance_name, dir, r->ftrace_events,
                                          o->ftrace_buffer_kb ? o->ftrace_buffer_kb : default_ftrace_kb(), &e);
    g_free(dir);
    if (!r->ftrace) {
      rec_error_msg("ftrace instance: %s", e->message);
      g_clear_error(&e);
      goto out;
    }
  }
  if (!o->no_loss_check && r->events->len) {
    stat_out = g_build_filename(r->workdir, "perf-stat.csv", NULL);
    GPtrArray *a = stat_argv(r, stat_out);
    bool ok = rec_spawn_perf(r, &r->stat, a, &e);
    g_ptr_array_unref(a);
    if (!ok) {
      rec_error_msg("%s", e->message);
      g_clear_error(&e);
      goto out;
    }
  }
  r->record_argv = record_argv(r);
  if (!rec_spawn_perf(r, &r->record, r->record_argv, &e)) {
    rec_error_msg("%s", e->message);
    g_clear_error(&e);
    goto out;
  }
  if (!rec_quiet) {
    char *s = rec_argv_string(r->record_argv);
    rec_note("%s", s);
    g_free(s);
  }
  /* on: stat first, then record (stat's window holds record's) */
  rec_phase("perf started");
  if ((r->stat.pid > 0 && !rec_perf_wait_ready(r, &r->stat, &e)) || !rec_perf_wait_ready(r, &r->record, &e)) {
    if (r->signals) {
      rec_note("%s", e->message);
      g_clear_error(&e);
      status = 130;
      goto out;
    }
    rec_error_msg("%s", e->message);
    rec_print_log(r->stat.running ? "perf record" : "perf stat", r->stat.running ? r->record.log : r->stat.log);
    g_clear_error(&e);
    goto out;
  }
  rec_phase("perf ready");
  if (r->ftrace && !rsp_ftrace_capture_start(r->ftrace, &e)) {
    rec_error_msg("ftrace instance: %s", e->message);
    g_clear_error(&e);
    goto out;
  }
  /* on: both commands back to back, then both acks: the two windows differ only by the time
   * the two perf processes take to wake up (the loss check compares them) */
  r->t_on_sent = rec_now_ns();
  if ((r->stat.pid > 0 && !rec_perf_send(&r->stat, "enable", &e)) ||
      !rec_perf_send(&r->record, "enable", &e) ||
      (r->stat.pid > 0 && !rec_perf_wait_ack(r, &r->stat, "enable", &e)) ||
      !rec_perf_wait_ack(r, &r->record, "enable", &e)) {
    rec_error_msg("%s", e->message);
    rec_print_log("perf record", r->record.log);
    if (r->stat.pid > 0)
      rec_print_log("perf stat", r->stat.log);
    g_clear_error(&e);
    goto out;
  }
  r->t_on_acked = rec_now_ns();
  rec_phase("perf record on");
  r->start_time = g_date_time_new_now_local();
  if (r->ftrace) {
    char v[32];
    g_snprintf(v, sizeof v, "%" PRIu64 ";%" PRIu64, r->t_on_sent, r->t_on_acked);
    rsp_ftrace_capture_note(r->ftrace, "perf_on_monotonic_ns", v);
  }
  bool started = true;
  if (rec_pending_stop_signal(r)) {
    started = false;
  } else if (o->command) {
    if (!start_workload(r, &e)) {
      /* exec failed (126, 127): a short recording of that, with its status */
      rec_error_msg("%s", e->message);
      g_clear_error(&e);
      started = false;
    }
  } else if (o->pid > 0) {
    r->target_pidfd = pidfd_open_(o->pid);
  }
  if (o->duration > 0)
    arm_timer(r, o->duration);
  if (started) {
    if (!rec_quiet) {
      if (o->command)
        rec_note("recording the whole system while %s runs (pid %d)", o->command[0], (int)r->work.pid);
      else if (o->pid > 0)
        rec_note("recording the whole system until process %d ends%s", o->pid,
             o->duration > 0 ? " or the duration passes" : " (Ctrl-C to stop)");
      else if (o->duration > 0)
        rec_note("recording the whole system for %g s", o->duration);
      else
        rec_note("recording the whole system: Ctrl-C to stop");
    }
    run(r);
  }
  rec_phase("stopping");
  stop(r);
  rec_phase("perf done");
  if (r->ftrace) {
    char v[32];
    g_snprintf(v, sizeof v, "%" PRIu64 ";%" PRIu64, r->t_off_sent, r->t_off_acked);
    rsp_ftrace_capture_note(r->ftrace, "perf_off_monotonic_ns", v);
  }
  cleanup(r); /* the system as it was, before the (slower) loss check */
  rec_phase("cleaned up");
  if (!r->failed) {
    if (g_file_test(r->output, G_FILE_TEST_EXISTS))
      rec_loss_check_and_meta(r, stat_out);
    rec_phase("loss check and meta written");
    if (o->command)
      status = r->have_exit_status ? r->exit_status : r->interrupted ? 130 : RSP_RECORD_EXIT_FAILURE;
    else
      status = 0;
  }
  goto out;

interrupted_early:
  rec_note("interrupted before the recording started");
  status = 130;
out:
  cleanup(r);
  if (r->ftrace && !g_file_test(r->output, G_FILE_TEST_EXISTS)) {
    /* no recording: its ftrace side is no use */
    char *dir = g_strconcat(r->output, ".ftrace", NULL);
    rec_rm_rf(dir);
    g_free(dir);
  }
  if (r->workdir) {
    rec_rm_rf(r->workdir);
    g_clear_pointer(&r->workdir, g_free);
  }
  g_free(stat_out);
  recorder_free(r);
  sigprocmask(SIG_SETMASK, &r->saved_mask, NULL);
  return status;
}

/* ---- the checker of the ftrace capture, the list of sets ----------------------------------- */

static gint cmp_key(gconstpointer a, gconstpointer b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int rsp_record_ftrace_stats(const char *path)
{
  char *dir = g_str_has_suffix(path, ".ftrace") || g_file_test(path, G_FILE_TEST_IS_DIR)
                  ? g_strdup(path)
                  : g_strconcat(path, ".ftrace", NULL);
  GError *e = NULL;
  rsp_ftrace_tally *c = rsp_ftrace_tally_dir(dir, 0, UINT64_MAX, &e);
  if (!c) {
    fprintf(stderr, "rsp-record: %s\n", e->message);
    g_error_free(e);
    g_free(dir);
    return 1;
  }
  GPtrArray *keys = g_ptr_array_new();
  GHashTableIter it;
  gpointer key, val;
  g_hash_table_iter_init(&it, c->events);
  while (g_hash_table_iter_next(&it, &key, &val))
    g_ptr_array_add(keys, key);
  g_ptr_array_sort(keys, cmp_key);
  printf("# %s: %u CPUs, %" PRIu64 " pages, %" PRIu64 " events", dir, c->cpus, c->pages, c->total);
  if (c->total)
    printf(", %.6f .. %.6f s (CLOCK_MONOTONIC)", (double)c->first_time / 1e9, (double)c->last_time / 1e9);
  printf("\n");
  for (guint i = 0; i < keys->len; i++)
    printf("%-40s %12" PRIu64 "\n", (char *)keys->pdata[i],
           *(uint64_t *)g_hash_table_lookup(c->events, keys->pdata[i]));
  printf("%-40s %12" PRIu64 "\n", "missed", c->missed);
  printf("%-40s %12" PRIu64 "\n", "unknown", c->unknown);
  printf("%-40s %12" PRIu64 "\n", "out-of-order", c->disorder);
  int status = c->unknown || c->disorder ? 1 : 0;
  g_ptr_array_unref(keys);
  rsp_ftrace_tally_free(c);
  g_free(dir);
  return status;
}

int rsp_record_list_probes(void)
{
  GPtrArray *sets = rsp_probe_list_sets();
  if (sets->len == 0) {
    GPtrArray *dirs = rsp_probe_search_path();
    fprintf(stderr, "rsp-record: no probe sets found in:\n");
    for (guint i = 0; i < dirs->len; i++)
      fprintf(stderr, "  %s\n", (char *)dirs->pdata[i]);
    g_ptr_array_unref(dirs);
    g_ptr_array_unref(sets);
    return 1;
  }
  for (guint i = 0; i < sets->len; i++) {
    char **f = g_strsplit(sets->pdata[i], "\t", 4);
    printf("%-10s v%-3s %s\n           %s\n", f[0], f[1], f[2], f[3]);
    g_strfreev(f);
  }
  g_ptr_array_unref(sets);
  return 0;
}

