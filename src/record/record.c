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
#include "record/record.h"

#include "reader/reader.h"
#include "record/perf-count.h"
#include "record/probes.h"
#include "record/tracefs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

extern char **environ;

#define RSP_RECORD_ERROR (rsp_record_error_quark())
static GQuark rsp_record_error_quark(void);
G_DEFINE_QUARK(rsp-record-error-quark, rsp_record_error)

#define DEFAULT_FREQ 997
#define DEFAULT_FTRACE_KB 4096
#define DEFAULT_MMAP_PAGES 1024
#define ACK_TIMEOUT_MS 60000
#define GRACE_MS 2000          /* after Ctrl-C, how long the workload has to exit */
#define PERF_EXIT_TIMEOUT_MS (10 * 60 * 1000)

typedef struct child {
  const char *what; /* "perf record", "perf stat", the command */
  pid_t pid;
  bool running;
  int status;     /* wait status once it ended */
  int ctl_w;      /* perf --control: commands to it */
  int ack_r;      /* and its acks */
  char *log;      /* its stdout+stderr */
} child;

typedef struct dyn_probe {
  const char *file; /* kprobe_events, uprobe_events */
  char *group, *name, *event, *definition;
  bool removed;
} dyn_probe;

typedef struct recorder {
  const rsp_record_options *o;
  int sfd;                  /* signalfd: INT TERM HUP QUIT CHLD */
  sigset_t blocked, saved_mask;
  char *perf;               /* perf's path */
  char *perf_version;
  char *tracefs;
  bool mounted_tracefs;
  int lock_fd;
  rsp_probe_set *set;
  GPtrArray *events;        /* char*: the events recorded (tracepoints and probes) */
  GPtrArray *skipped;       /* char*: "event (why)" */
  GPtrArray *ftrace_events; /* char*: the subset the ftrace instance captures too */
  GHashTable *nostack;      /* events recorded without a call stack */
  GPtrArray *dyn;           /* dyn_probe*: created, to remove */
  char *sampling;           /* "cpu-clock/freq=997/" or NULL */
  bool has_kprobes, has_uprobes;
  char *workdir;            /* temporary: perf logs, perf stat output */
  char *output;             /* absolute path of FILE */
  char *instance_name;
  rsp_ftrace_capture *ftrace;
  char *command_path;       /* the workload's executable */
  child record, stat, work;
  GPtrArray *record_argv;
  int target_pidfd;         /* -p */
  int timer_fd;
  /* CLOCK_MONOTONIC ns */
  /* the recording window: perf's events went on inside [on_sent, on_acked] and off inside
   * [off_sent, off_acked] */
  uint64_t t_on_sent, t_on_acked, t_off_sent, t_off_acked;
  GDateTime *start_time;
  int signals;              /* SIGINT/SIGTERM/SIGHUP received */
  bool interrupted;
  bool stopping;
  bool failed;
  int exit_status;          /* the workload's */
  bool have_exit_status;
  bool ftrace_ok;
} recorder;

/* ---- messages ------------------------------------------------------------------------------ */

static bool quiet;

static void G_GNUC_PRINTF(1, 2) note(const char *fmt, ...)
{
  if (quiet)
    return;
  va_list ap;
  va_start(ap, fmt);
  fputs("rsp-record: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static void G_GNUC_PRINTF(1, 2) error_msg(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("rsp-record: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* RSP_RECORD_DEBUG=1: the time of each phase on stderr */
static void phase(const char *what)
{
  static int on = -1;
  static uint64_t t0;
  if (on < 0) {
    on = g_getenv("RSP_RECORD_DEBUG") != NULL;
    t0 = now_ns();
  }
  if (on)
    fprintf(stderr, "rsp-record: [%8.3f ms] %s\n", (double)(now_ns() - t0) / 1e6, what);
}

/* ---- small helpers ------------------------------------------------------------------------- */

static void rm_rf(const char *path)
{
  struct stat st;
  if (lstat(path, &st) != 0)
    return;
  if (S_ISDIR(st.st_mode)) {
    GDir *d = g_dir_open(path, 0, NULL);
    if (d) {
      const char *n;
      while ((n = g_dir_read_name(d))) {
        char *p = g_build_filename(path, n, NULL);
        rm_rf(p);
        g_free(p);
      }
      g_dir_close(d);
    }
    rmdir(path);
  } else {
    unlink(path);
  }
}

static char *read_trimmed(const char *path)
{
  char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL))
    return NULL;
  return g_strstrip(text);
}

static void print_log(const char *what, const char *log)
{
  char *text = NULL;
  if (!log || !g_file_get_contents(log, &text, NULL, NULL) || !*g_strstrip(text)) {
    g_free(text);
    return;
  }
  fprintf(stderr, "rsp-record: %s said:\n", what);
  char **lines = g_strsplit(text, "\n", -1);
  for (char **l = lines; *l; l++)
    fprintf(stderr, "  | %s\n", *l);
  g_strfreev(lines);
  g_free(text);
}

static bool has_pmu(void)
{
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.disabled = 1;
  long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0)
    return false;
  close((int)fd);
  return true;
}

/* ---- children ------------------------------------------------------------------------------ */

static void reap(recorder *r)
{
  child *cs[] = {&r->record, &r->stat, &r->work};
  for (size_t i = 0; i < G_N_ELEMENTS(cs); i++) {
    child *c = cs[i];
    if (!c->running)
      continue;
    int st;
    pid_t p = waitpid(c->pid, &st, WNOHANG);
    if (p == c->pid) {
      c->running = false;
      c->status = st;
    }
  }
}

static int status_code(int st)
{
  if (WIFEXITED(st))
    return WEXITSTATUS(st);
  if (WIFSIGNALED(st))
    return 128 + WTERMSIG(st);
  return RSP_RECORD_EXIT_FAILURE;
}

/* Forks perf with ARGV; its control pipes come as --control fd:R,W. */
static bool spawn_perf(recorder *r, child *c, GPtrArray *argv, GError **error)
{
  int ctl[2], ack[2];
  if (pipe2(ctl, O_CLOEXEC) != 0)
    goto pipe_fail;
  if (pipe2(ack, O_CLOEXEC) != 0) {
    close(ctl[0]);
    close(ctl[1]);
    goto pipe_fail;
  }
  char *control = g_strdup_printf("fd:%d,%d", ctl[0], ack[1]);
  g_ptr_array_add(argv, g_strdup("--control"));
  g_ptr_array_add(argv, control);
  g_ptr_array_add(argv, NULL);
  int logfd = open(c->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  pid_t parent = getpid();
  pid_t pid = logfd >= 0 && devnull >= 0 ? fork() : -1;
  if (pid == 0) {
    /* async-signal-safe calls only: the ftrace thread may run in the parent */
    sigprocmask(SIG_SETMASK, &r->saved_mask, NULL);
    setpgid(0, 0); /* the terminal's Ctrl-C is for the workload and rsp-record, not perf */
    /* if rsp-record dies, perf's ack on the control pipe must not kill it before it writes */
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* rsp-record killed: perf still writes its file */
    if (getppid() != parent)
      _exit(127);
    dup2(devnull, 0);
    dup2(logfd, 1);
    dup2(logfd, 2);
    fcntl(ctl[0], F_SETFD, 0);
    fcntl(ack[1], F_SETFD, 0);
    /* perf holds the write end of its control pipe too: if rsp-record dies, perf must not see
     * the pipe hang up (perf 6.1 then stops with "Thread and evlist pollfd index mismatch"
     * without writing its header) but get its SIGTERM and finish the file */
    fcntl(ctl[1], F_SETFD, 0);
    execv(r->perf, (char **)argv->pdata);
    _exit(127);
  }
  int fork_errno = errno;
  g_ptr_array_remove_index(argv, argv->len - 1); /* the NULL */
  if (logfd >= 0)
    close(logfd);
  if (devnull >= 0)
    close(devnull);
  close(ctl[0]);
  close(ack[1]);
  if (pid < 0) {
    close(ctl[1]);
    close(ack[0]);
    g_set_error(error, RSP_RECORD_ERROR, 0, "starting %s: %s", c->what, g_strerror(fork_errno));
    return false;
  }
  c->pid = pid;
  c->running = true;
  c->ctl_w = ctl[1];
  c->ack_r = ack[0];
  return true;
pipe_fail:;
  int e = errno;
  g_set_error(error, RSP_RECORD_ERROR, 0, "pipe: %s", g_strerror(e));
  return false;
}

static bool pending_stop_signal(recorder *r);

/* Waits until perf says "Events disabled" (-D -1): it has opened and mapped everything and is
 * about to poll its control pipe. A command sent earlier works too, but this way the time to
 * start perf is not spent with rsp-record's own window open. */
static bool perf_wait_ready(recorder *r, child *c, GError **error)
{
  uint64_t deadline = now_ns() + (uint64_t)ACK_TIMEOUT_MS * 1000000u;
  while (now_ns() < deadline) {
    char *text = NULL;
    if (g_file_get_contents(c->log, &text, NULL, NULL) && strstr(text, "Events disabled")) {
      g_free(text);
      return true;
    }
    g_free(text);
    reap(r);
    if (!c->running) {
      g_set_error(error, RSP_RECORD_ERROR, 0, "%s exited (status %d) while starting", c->what,
                  status_code(c->status));
      return false;
    }
    if (pending_stop_signal(r)) {
      g_set_error(error, RSP_RECORD_ERROR, 0, "interrupted while %s was starting", c->what);
      return false;
    }
    g_usleep(5000);
  }
  g_set_error(error, RSP_RECORD_ERROR, 0, "%s did not start in %d s", c->what, ACK_TIMEOUT_MS / 1000);
  return false;
}

/* Sends "enable"/"disable" through perf's control pipe and waits for its ack. */
static bool perf_send(child *c, const char *cmd, GError **error)
{
  if (!c->running) {
    g_set_error(error, RSP_RECORD_ERROR, 0, "%s exited early", c->what);
    return false;
  }
  char line[32];
  g_snprintf(line, sizeof line, "%s\n", cmd);
  if (write(c->ctl_w, line, strlen(line)) != (ssize_t)strlen(line)) {
    int e = errno;
    g_set_error(error, RSP_RECORD_ERROR, 0, "%s: control pipe: %s", c->what, g_strerror(e));
    return false;
  }
  return true;
}

static bool perf_wait_ack(recorder *r, child *c, const char *cmd, GError **error)
{
  char buf[64];
  size_t have = 0;
  uint64_t deadline = now_ns() + (uint64_t)ACK_TIMEOUT_MS * 1000000u;
  while (now_ns() < deadline) {
    struct pollfd p = {c->ack_r, POLLIN, 0};
    int n = poll(&p, 1, 100);
    if (n > 0) {
      ssize_t got = read(c->ack_r, buf + have, sizeof buf - 1 - have);
      if (got > 0) {
        have += (size_t)got;
        buf[have] = '\0';
        if (strstr(buf, "ack"))
          return true;
        if (have >= sizeof buf - 1)
          have = 0;
      } else if (got == 0) {
        break; /* perf closed its end: it is exiting */
      }
    }
    reap(r);
    if (!c->running)
      break;
  }
  reap(r);
  if (!c->running)
    g_set_error(error, RSP_RECORD_ERROR, 0, "%s exited (status %d) before switching its events %s",
                c->what, status_code(c->status), strcmp(cmd, "enable") == 0 ? "on" : "off");
  else
    g_set_error(error, RSP_RECORD_ERROR, 0, "%s did not answer \"%s\" in %d s", c->what, cmd,
                ACK_TIMEOUT_MS / 1000);
  return false;
}


/* Waits for the children in CS to end; a further signal is counted; after TIMEOUT_MS, SIGKILL. */
static void wait_children(recorder *r, child **cs, size_t n, int timeout_ms)
{
  uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000u;
  bool killed = false;
  for (;;) {
    reap(r);
    bool any = false;
    for (size_t i = 0; i < n; i++)
      any |= cs[i]->running;
    if (!any)
      return;
    if (!killed && now_ns() > deadline) {
      for (size_t i = 0; i < n; i++)
        if (cs[i]->running) {
          error_msg("%s did not exit in %d s: killing it", cs[i]->what, timeout_ms / 1000);
          kill(cs[i]->pid, SIGKILL);
        }
      killed = true;
    }
    struct pollfd p = {r->sfd, POLLIN, 0};
    if (poll(&p, 1, 100) > 0) {
      struct signalfd_siginfo si;
      while (read(r->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGCHLD)
          continue;
        r->signals++;
        if (r->signals == 2)
          note("waiting for perf to write its files (Ctrl-C twice more to kill it)");
        if (r->signals >= 4 && !killed) {
          for (size_t i = 0; i < n; i++)
            if (cs[i]->running)
              kill(cs[i]->pid, SIGKILL);
          killed = true;
        }
      }
    }
  }
}

static void close_control(child *c)
{
  if (c->ctl_w > 0)
    close(c->ctl_w);
  if (c->ack_r > 0)
    close(c->ack_r);
  c->ctl_w = c->ack_r = -1;
}

/* ---- cleanup ------------------------------------------------------------------------------- */

/* Undoes everything made on the system; safe to call twice. */
static void cleanup(recorder *r)
{
  child *perfs[] = {&r->record, &r->stat};
  for (size_t i = 0; i < G_N_ELEMENTS(perfs); i++)
    if (perfs[i]->running)
      kill(perfs[i]->pid, SIGINT);
  wait_children(r, perfs, G_N_ELEMENTS(perfs), 60000);
  if (r->ftrace) {
    GError *e = NULL;
    rsp_ftrace_capture_stop(r->ftrace, NULL);
    if (!rsp_ftrace_capture_remove(r->ftrace, &e)) {
      error_msg("%s", e->message);
      g_error_free(e);
    }
  }
  for (guint i = r->dyn ? r->dyn->len : 0; i > 0; i--) {
    dyn_probe *d = r->dyn->pdata[i - 1];
    GError *e = NULL;
    if (d->removed)
      continue;
    if (!rsp_tracefs_probe_remove(r->tracefs, d->file, d->group, d->name, &e)) {
      error_msg("removing probe %s: %s", d->event, e->message);
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
  close_control(&r->record);
  close_control(&r->stat);
  if (r->target_pidfd >= 0)
    close(r->target_pidfd);
  if (r->timer_fd >= 0)
    close(r->timer_fd);
  if (r->sfd >= 0)
    close(r->sfd);
  if (r->start_time)
    g_date_time_unref(r->start_time);
}

/* A signal waiting in the signalfd (not SIGCHLD): the user wants out. */
static bool pending_stop_signal(recorder *r)
{
  struct signalfd_siginfo si;
  while (read(r->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
    if (si.ssi_signo != SIGCHLD) {
      r->signals++;
      r->interrupted = true;
    }
  }
  return r->signals > 0;
}

/* ---- preflight ----------------------------------------------------------------------------- */

static bool check_root(void)
{
  if (geteuid() == 0)
    return true;
  char *paranoid = read_trimmed("/proc/sys/kernel/perf_event_paranoid");
  error_msg("rsp-record needs root.\n"
            "  It records every CPU of the system (scheduler, block, irq and network tracepoints,\n"
            "  with call stacks, and CPU samples): perf lets other users record system-wide\n"
            "  tracepoints only when kernel.perf_event_paranoid is -1 (it is %s here), and the\n"
            "  ftrace instance and probes it creates in /sys/kernel/tracing are root's alone.\n"
            "  Run it as root: sudo rsp-record -- COMMAND",
            paranoid ? paranoid : "unknown");
  g_free(paranoid);
  return false;
}

static bool find_perf(recorder *r)
{
  r->perf = g_find_program_in_path("perf");
  if (!r->perf) {
    error_msg("perf is not installed (or not in PATH): rsp-record records with it.\n"
              "  Debian/Ubuntu: apt install linux-perf (or linux-tools-$(uname -r)); Fedora: dnf install perf");
    return false;
  }
  char *out = NULL, *err = NULL;
  int st = 0;
  char *argv[] = {r->perf, "--version", NULL};
  if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &st, NULL) ||
      !g_spawn_check_wait_status(st, NULL)) {
    error_msg("%s --version fails: perf is not usable here%s%s", r->perf, err && *err ? ":\n  " : "",
              err ? g_strstrip(err) : "");
    g_free(out);
    g_free(err);
    return false;
  }
  r->perf_version = g_strdup(g_strstrip(out));
  g_free(out);
  g_free(err);
  return true;
}

static bool find_tracefs(recorder *r)
{
  r->tracefs = rsp_tracefs_find();
  if (r->tracefs)
    return true;
  const char *env = g_getenv("RSP_TRACEFS");
  if (env && *env) {
    error_msg("RSP_TRACEFS=%s: not a tracefs root (no events/ directory in it)", env);
    return false;
  }
  GError *e = NULL;
  if (rsp_tracefs_mount("/sys/kernel/tracing", &e)) {
    note("tracefs was not mounted: mounted it on /sys/kernel/tracing (unmounted at the end)");
    r->tracefs = g_strdup("/sys/kernel/tracing");
    r->mounted_tracefs = true;
    return true;
  }
  error_msg("tracefs is not mounted, and mounting it failed (%s).\n"
            "  perf and rsp-record need it to name tracepoints: mount -t tracefs nodev /sys/kernel/tracing",
            e->message);
  g_error_free(e);
  return false;
}

static bool take_lock(recorder *r)
{
  const char *dir = g_file_test("/run/lock", G_FILE_TEST_IS_DIR) ? "/run/lock" : g_get_tmp_dir();
  char *path = g_build_filename(dir, "rsp-record.lock", NULL);
  r->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (r->lock_fd < 0) {
    int e = errno;
    error_msg("%s: %s", path, g_strerror(e));
    g_free(path);
    return false;
  }
  bool told = false;
  while (flock(r->lock_fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      int e = errno;
      error_msg("locking %s: %s", path, g_strerror(e));
      g_free(path);
      return false;
    }
    if (!told) {
      char holder[32] = "";
      ssize_t n = pread(r->lock_fd, holder, sizeof holder - 1, 0);
      holder[n > 0 ? n : 0] = '\0';
      note("another rsp-record (pid %s) is recording: waiting for it to finish (recordings are "
           "system-wide, one at a time)", *g_strstrip(holder) ? holder : "?");
      told = true;
    }
    struct pollfd p = {r->sfd, POLLIN, 0};
    if (poll(&p, 1, 200) > 0 && pending_stop_signal(r)) {
      g_free(path);
      return false;
    }
  }
  char pid[32];
  int n = g_snprintf(pid, sizeof pid, "%d\n", (int)getpid());
  if (ftruncate(r->lock_fd, 0) == 0 && pwrite(r->lock_fd, pid, (size_t)n, 0) < 0)
    note("could not write %s", path);
  g_free(path);
  return true;
}

static void remove_leftovers(recorder *r)
{
  /* We hold the lock: any rsp_* probe or dead rsp-PID instance is a killed rsp-record's. */
  unsigned n = rsp_tracefs_remove_stale_instances(r->tracefs);
  /* A killed rsp-record's perf got SIGTERM (PR_SET_PDEATHSIG) and may still be writing its file,
   * its probes open: give it a few seconds. */
  for (int tries = 0; tries < 50; tries++) {
    unsigned left_k = 0, left_u = 0;
    if (r->has_kprobes)
      n += rsp_tracefs_probes_remove_prefix(r->tracefs, "kprobe_events", "rsp_", &left_k);
    if (r->has_uprobes)
      n += rsp_tracefs_probes_remove_prefix(r->tracefs, "uprobe_events", "rsp_", &left_u);
    if (left_k + left_u == 0)
      break;
    if (tries == 0)
      note("waiting for the perf of a killed rsp-record to release its probes");
    if (tries == 49)
      note("%u leftover probe(s) are still busy: not removed", left_k + left_u);
    g_usleep(100000);
  }
  n += rsp_tracefs_remove_stale_instances(r->tracefs);
  /* and its work directory (perf's logs): TMPDIR/rsp-record-PID-XXXXXX */
  GDir *d = g_dir_open(g_get_tmp_dir(), 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name(d))) {
    char *end = NULL;
    long pid = g_str_has_prefix(name, "rsp-record-") ? strtol(name + 11, &end, 10) : 0;
    if (pid > 0 && end && *end == '-' && strlen(end) == 7 && kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
      char *p = g_build_filename(g_get_tmp_dir(), name, NULL);
      rm_rf(p);
      g_free(p);
    }
  }
  if (d)
    g_dir_close(d);
  if (n)
    note("removed %u leftover(s) of an earlier rsp-record that was killed (ftrace instances, probes)", n);
}

static void skip(recorder *r, const char *event, const char *why)
{
  g_ptr_array_add(r->skipped, g_strdup_printf("%s (%s)", event, why));
}

static bool add_dyn_probe(recorder *r, const rsp_probe *p, const char *file, const char *target)
{
  GError *e = NULL;
  if (!rsp_tracefs_probe_add(r->tracefs, file, p->group, p->name, target, &e)) {
    char *why = g_strdup_printf("could not create it: %s", e->message);
    skip(r, p->event, why);
    g_free(why);
    g_error_free(e);
    return false;
  }
  dyn_probe *d = g_new0(dyn_probe, 1);
  d->file = file;
  d->group = g_strdup(p->group);
  d->name = g_strdup(p->name);
  d->event = g_strdup(p->event);
  d->definition = g_strdup_printf("p:%s/%s %s", p->group, p->name, target);
  g_ptr_array_add(r->dyn, d);
  return true;
}

/* Decides the events: what exists, creates the probes, the fallbacks. */
static bool resolve_events(recorder *r)
{
  GPtrArray *probes = r->set->probes;
  bool kprobes_complete = r->has_kprobes;
  char *libc = NULL;
  /* kprobes and uprobes first: whether every kprobe was made decides the fallbacks */
  for (guint i = 0; i < probes->len; i++) {
    rsp_probe *p = probes->pdata[i];
    if (p->kind == RSP_PROBE_KPROBE) {
      if (!r->has_kprobes) {
        skip(r, p->event, "no kprobes on this kernel: the fallback tracepoints are used");
        continue;
      }
      if (r->o->dry_run)
        g_ptr_array_add(r->events, g_strdup(p->event));
      else if (add_dyn_probe(r, p, "kprobe_events", p->target))
        g_ptr_array_add(r->events, g_strdup(p->event));
      else
        kprobes_complete = false;
    } else if (p->kind == RSP_PROBE_UPROBE) {
      if (!r->o->libc_probes)
        continue; /* off unless --libc-probes */
      if (!r->has_uprobes) {
        skip(r, p->event, "no uprobes on this kernel");
        continue;
      }
      const char *lib = p->library;
      if (strcmp(lib, "libc") == 0) {
        if (!libc)
          libc = rsp_find_libc();
        lib = libc;
      }
      uint64_t off = 0;
      GError *e = NULL;
      if (!lib || !rsp_elf_function_offset(lib, p->target, &off, &e)) {
        char *why = g_strdup_printf("%s", e ? e->message : "libc not found");
        skip(r, p->event, why);
        g_free(why);
        g_clear_error(&e);
        continue;
      }
      char *target = g_strdup_printf("%s:0x%" PRIx64, lib, off);
      if (r->o->dry_run)
        g_ptr_array_add(r->events, g_strdup(p->event));
      else if (add_dyn_probe(r, p, "uprobe_events", target))
        g_ptr_array_add(r->events, g_strdup(p->event));
      g_free(target);
    }
  }
  g_free(libc);
  for (guint i = 0; i < probes->len; i++) {
    rsp_probe *p = probes->pdata[i];
    if (p->kind != RSP_PROBE_TRACEPOINT)
      continue;
    if (p->fallback && kprobes_complete)
      continue; /* the kprobes say it better */
    if (!rsp_tracefs_event_exists(r->tracefs, p->event)) {
      skip(r, p->event, "no such tracepoint on this kernel");
      continue;
    }
    g_ptr_array_add(r->events, g_strdup(p->event));
  }
  for (guint i = 0; i < probes->len; i++) {
    rsp_probe *p = probes->pdata[i];
    if (p->nostack)
      g_hash_table_add(r->nostack, p->event);
  }
  /* the ftrace subset, in the order of the events */
  for (guint i = 0; i < probes->len; i++) {
    rsp_probe *p = probes->pdata[i];
    if (!p->ftrace || r->o->no_ftrace)
      continue;
    for (guint j = 0; j < r->events->len; j++)
      if (strcmp(r->events->pdata[j], p->event) == 0)
        g_ptr_array_add(r->ftrace_events, g_strdup(p->event));
  }
  if (r->set->sampling) {
    const char *ev = r->set->sampling_event;
    if (!ev)
      ev = has_pmu() ? "cycles" : "cpu-clock";
    unsigned freq = r->o->freq ? r->o->freq : r->set->sampling_freq ? r->set->sampling_freq : DEFAULT_FREQ;
    /* the frequency on the sampling event alone: a global -F would put the tracepoints in
     * frequency mode and perf would keep a sample of them (perf-loss.md, section 1) */
    r->sampling = g_strdup_printf("%s/freq=%u/", ev, freq);
  }
  if (r->events->len == 0 && !r->sampling) {
    error_msg("none of the events of probe set %s exists on this kernel", r->set->name);
    return false;
  }
  return true;
}

static bool resolve_command(recorder *r)
{
  const char *cmd = r->o->command[0];
  if (strchr(cmd, '/')) {
    if (access(cmd, F_OK) != 0) {
      error_msg("%s: %s", cmd, g_strerror(errno));
      r->exit_status = RSP_RECORD_EXIT_NOTFOUND;
      return false;
    }
    if (access(cmd, X_OK) != 0 || g_file_test(cmd, G_FILE_TEST_IS_DIR)) {
      error_msg("%s: cannot execute: %s", cmd,
                g_file_test(cmd, G_FILE_TEST_IS_DIR) ? "is a directory" : g_strerror(errno));
      r->exit_status = RSP_RECORD_EXIT_NOEXEC;
      return false;
    }
    r->command_path = g_strdup(cmd);
    return true;
  }
  r->command_path = g_find_program_in_path(cmd);
  if (!r->command_path) {
    error_msg("%s: command not found", cmd);
    r->exit_status = RSP_RECORD_EXIT_NOTFOUND;
    return false;
  }
  return true;
}

/* FILE and its side files move to FILE.old and FILE.old.SIDE, as perf does with FILE. */
static const char *const side_suffixes[] = {"", ".kallsyms.zst", ".kallsyms", ".meta", ".ftrace"};

static bool rotate_output(recorder *r)
{
  char *old = g_strconcat(r->output, ".old", NULL);
  bool any = false;
  for (size_t i = 0; i < G_N_ELEMENTS(side_suffixes); i++) {
    char *p = g_strconcat(r->output, side_suffixes[i], NULL);
    any |= g_file_test(p, G_FILE_TEST_EXISTS);
    g_free(p);
  }
  bool ok = true;
  if (any) {
    for (size_t i = 0; i < G_N_ELEMENTS(side_suffixes); i++) {
      char *p = g_strconcat(old, side_suffixes[i], NULL);
      rm_rf(p);
      g_free(p);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(side_suffixes) && ok; i++) {
      char *from = g_strconcat(r->output, side_suffixes[i], NULL);
      char *to = g_strconcat(old, side_suffixes[i], NULL);
      if (g_file_test(from, G_FILE_TEST_EXISTS) && rename(from, to) != 0) {
        error_msg("renaming %s to %s: %s", from, to, g_strerror(errno));
        ok = false;
      }
      g_free(from);
      g_free(to);
    }
  }
  g_free(old);
  return ok;
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

static char *argv_string(GPtrArray *a)
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
    reap(r);
    if (!r->record.running) {
      error_msg("perf record exited (status %d) during the recording", status_code(r->record.status));
      r->failed = true;
      return;
    }
    if (r->o->command && !r->work.running) {
      r->exit_status = status_code(r->work.status);
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
      note("process %d ended", r->o->pid);
      return;
    }
    if (got <= 0)
      continue;
    if (target_i >= 0 && (p[target_i].revents & POLLIN)) {
      note("process %d ended", r->o->pid);
      return;
    }
    if (timer_i >= 0 && (p[timer_i].revents & POLLIN)) {
      uint64_t ticks;
      if (read(r->timer_fd, &ticks, sizeof ticks) < 0)
        (void)0;
      if (grace)
        note("the command is still running %d s after the signal: stopping the recording", GRACE_MS / 1000);
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
        note("%s: stopping when the command exits (at most %d s; again to stop now)",
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
  r->t_off_sent = now_ns();
  bool rec_sent = r->record.running && perf_send(&r->record, "disable", &e);
  g_clear_error(&e);
  bool stat_sent = r->stat.running && perf_send(&r->stat, "disable", &e);
  g_clear_error(&e);
  if (rec_sent && !perf_wait_ack(r, &r->record, "disable", &e)) {
    error_msg("%s", e->message);
    g_clear_error(&e);
  }
  if (stat_sent && !perf_wait_ack(r, &r->stat, "disable", &e)) {
    error_msg("%s", e->message);
    g_clear_error(&e);
  }
  r->t_off_acked = now_ns();
  if (r->ftrace) {
    if (!rsp_ftrace_capture_stop(r->ftrace, &e)) {
      error_msg("ftrace capture: %s", e->message);
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
    note("terminating the command (pid %d)", (int)r->work.pid);
    kill(r->work.pid, SIGTERM);
  }
  if (!quiet)
    note("waiting for perf to write %s", r->output);
  wait_children(r, perfs, G_N_ELEMENTS(perfs), PERF_EXIT_TIMEOUT_MS);
  if (r->work.running) {
    child *w[] = {&r->work};
    wait_children(r, w, 1, 2000);
    if (r->work.running)
      note("the command (pid %d) is still running", (int)r->work.pid);
  }
  if (!r->work.running && r->work.pid > 0 && !r->have_exit_status) {
    r->exit_status = status_code(r->work.status);
    r->have_exit_status = true;
  }
  int rs = r->record.status;
  if ((WIFEXITED(rs) && WEXITSTATUS(rs) == 0) ||
      (WIFSIGNALED(rs) && (WTERMSIG(rs) == SIGINT || WTERMSIG(rs) == SIGTERM))) {
    /* perf record writes its file on SIGINT, then re-raises it */
  } else if (r->record.pid > 0) {
    error_msg("perf record ended with status %d", status_code(r->record.status));
    print_log("perf record", r->record.log);
    r->failed = true;
  }
}

/* ---- after: kallsyms, loss check, meta ----------------------------------------------------- */

static bool save_kallsyms(const char *path, GError **error)
{
  char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents("/proc/kallsyms", &text, &len, error))
    return false;
  if (len > 16 && strncmp(text, "0000000000000000", 16) == 0)
    note("/proc/kallsyms hides the kernel addresses (kernel.kptr_restrict): kernel stacks will not be symbolized");
  size_t cap = ZSTD_compressBound(len);
  void *buf = g_malloc(cap);
  size_t n = ZSTD_compress(buf, cap, text, len, 6);
  bool ok = false;
  if (ZSTD_isError(n))
    g_set_error(error, RSP_RECORD_ERROR, 0, "zstd: %s", ZSTD_getErrorName(n));
  else
    ok = g_file_set_contents(path, buf, (gssize)n, error);
  g_free(buf);
  g_free(text);
  return ok;
}

/* perf stat -x, lines: "COUNT,UNIT,EVENT,RUNTIME,PCT,,": EVENT -> count (or -1: not counted) */
static GHashTable *parse_stat(const char *path)
{
  GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL))
    return t;
  char **lines = g_strsplit(text, "\n", -1);
  for (char **l = lines; *l; l++) {
    if (!**l || **l == '#')
      continue;
    char **f = g_strsplit(*l, ",", -1);
    if (g_strv_length(f) >= 3 && *f[2]) {
      int64_t *v = g_new(int64_t, 1);
      char *end = NULL;
      unsigned long long x = g_ascii_strtoull(f[0], &end, 10);
      *v = end && end != f[0] ? (int64_t)x : -1;
      g_hash_table_replace(t, g_strdup(f[2]), v);
    }
    g_strfreev(f);
  }
  g_strfreev(lines);
  g_free(text);
  return t;
}

static char *boot_id(void) { return read_trimmed("/proc/sys/kernel/random/boot_id"); }

static void set_list(GKeyFile *k, const char *group, const char *key, GPtrArray *a)
{
  g_key_file_set_string_list(k, group, key, (const char *const *)a->pdata, a->len);
}

/* Fewer kept than counted, beyond what the two windows' edges explain: perf stat and perf
 * record switch their events on and off a few microseconds apart, in which the perf processes
 * themselves cause a handful of events (about 10 sched_switch at each end, measured). */
#define EDGE_EVENTS 25
static bool lost(int64_t kept, int64_t occurred)
{
  return kept >= 0 && occurred >= 0 && occurred - kept > EDGE_EVENTS &&
         (double)kept < 0.95 * (double)occurred;
}

static void loss_check_and_meta(recorder *r, const char *stat_out)
{
  GError *e = NULL;
  GKeyFile *k = g_key_file_new();
  const char *R = "recording";
  g_key_file_set_integer(k, R, "version", 1);
  if (r->o->command) {
    GPtrArray *a = g_ptr_array_new();
    for (char **c = r->o->command; *c; c++)
      g_ptr_array_add(a, *c);
    char *cmd = argv_string(a);
    g_key_file_set_string(k, R, "mode", "command");
    g_key_file_set_string(k, R, "command", cmd);
    set_list(k, R, "argv", a);
    g_free(cmd);
    g_ptr_array_unref(a);
  } else {
    g_key_file_set_string(k, R, "mode", r->o->pid > 0 ? "pid" : "all");
    g_key_file_set_string(k, R, "command", "");
  }
  char *start = g_date_time_format_iso8601(r->start_time);
  g_key_file_set_string(k, R, "start_time", start);
  g_free(start);
  /* perf's events were switched on between start_monotonic_ns and start_acked_monotonic_ns,
   * and off between end_monotonic_ns and end_acked_monotonic_ns (CLOCK_MONOTONIC) */
  g_key_file_set_uint64(k, R, "start_monotonic_ns", r->t_on_sent);
  g_key_file_set_uint64(k, R, "start_acked_monotonic_ns", r->t_on_acked);
  g_key_file_set_uint64(k, R, "end_monotonic_ns", r->t_off_sent);
  g_key_file_set_uint64(k, R, "end_acked_monotonic_ns", r->t_off_acked);
  char dur[64];
  g_snprintf(dur, sizeof dur, "%.6f", (double)(r->t_off_sent - r->t_on_acked) / 1e9);
  g_key_file_set_string(k, R, "duration_s", dur);
  if (r->o->pid > 0)
    g_key_file_set_integer(k, R, "workload_pid", r->o->pid);
  else if (r->work.pid > 0)
    g_key_file_set_integer(k, R, "workload_pid", (int)r->work.pid);
  if (r->have_exit_status)
    g_key_file_set_integer(k, R, "exit_status", r->exit_status);
  g_key_file_set_boolean(k, R, "interrupted", r->interrupted);
  g_key_file_set_string(k, R, "probes", r->set->name);
  g_key_file_set_string(k, R, "probes_file", r->set->path);
  g_key_file_set_integer(k, R, "probes_version", r->set->version);
  set_list(k, R, "probes_files", r->set->files);
  set_list(k, R, "events", r->events);
  set_list(k, R, "skipped", r->skipped);
  GPtrArray *kp = g_ptr_array_new_with_free_func(g_free), *up = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < r->dyn->len; i++) {
    dyn_probe *d = r->dyn->pdata[i];
    g_ptr_array_add(strcmp(d->file, "kprobe_events") == 0 ? kp : up,
                    g_strdup_printf("%s=%s", d->event, d->definition));
  }
  set_list(k, R, "kprobes", kp);
  set_list(k, R, "uprobes", up);
  g_ptr_array_unref(kp);
  g_ptr_array_unref(up);
  g_key_file_set_boolean(k, R, "kprobes_available", r->has_kprobes);
  g_key_file_set_boolean(k, R, "uprobes_available", r->has_uprobes);
  g_key_file_set_string(k, R, "sampling", r->sampling ? r->sampling : "");
  g_key_file_set_string(k, R, "call_graph",
                        r->o->call_graph == RSP_CALL_GRAPH_FP      ? "fp"
                        : r->o->call_graph == RSP_CALL_GRAPH_DWARF ? "dwarf"
                                                                   : "none");
  g_key_file_set_string(k, R, "clock", "CLOCK_MONOTONIC");
  g_key_file_set_boolean(k, R, "switch_events", true);
  char *pc = argv_string(r->record_argv);
  g_key_file_set_string(k, R, "perf_command", pc);
  g_free(pc);
  g_key_file_set_string(k, R, "perf_version", r->perf_version);
  struct utsname u;
  if (uname(&u) == 0) {
    g_key_file_set_string(k, R, "kernel", u.release);
    g_key_file_set_string(k, R, "machine", u.machine);
    g_key_file_set_string(k, R, "hostname", u.nodename);
  }
  char *bid = boot_id();
  if (bid)
    g_key_file_set_string(k, R, "boot_id", bid);
  g_free(bid);
  g_key_file_set_integer(k, R, "cpus", (int)sysconf(_SC_NPROCESSORS_ONLN));

  /* the side files */
  char *base = g_path_get_basename(r->output);
  char *ks = g_strconcat(r->output, ".kallsyms.zst", NULL);
  if (save_kallsyms(ks, &e)) {
    char *kb = g_strconcat(base, ".kallsyms.zst", NULL);
    g_key_file_set_string(k, R, "kallsyms", kb);
    g_free(kb);
  } else {
    error_msg("kallsyms snapshot: %s", e->message);
    g_clear_error(&e);
  }
  g_free(ks);

  /* the loss check */
  rsp_perf_counts *pc_ = rsp_perf_count(r->output, &e);
  if (!pc_) {
    error_msg("counting %s: %s", r->output, e->message);
    g_clear_error(&e);
  }
  GHashTable *counted = stat_out ? parse_stat(stat_out) : NULL;
  rsp_ftrace_tally *fc = NULL;
  char *ftrace_dir = g_strconcat(r->output, ".ftrace", NULL);
  if (r->ftrace && r->ftrace_ok) {
    /* the window perf record was on in, at the widest: the capture should hold every event
     * perf record kept (and a few more, at the edges) */
    fc = rsp_ftrace_tally_dir(ftrace_dir, r->t_on_sent, r->t_off_acked, &e);
    if (!fc) {
      error_msg("the ftrace capture does not decode: %s", e->message);
      g_clear_error(&e);
    }
  }
  if (r->ftrace) {
    char *fb = g_strconcat(base, ".ftrace", NULL);
    g_key_file_set_string(k, R, "ftrace", fb);
    g_free(fb);
    set_list(k, R, "ftrace_events", r->ftrace_events);
    g_key_file_set_string(k, R, "ftrace_instance", rsp_ftrace_capture_instance(r->ftrace));
  }
  if (pc_) {
    g_key_file_set_uint64(k, "perf", "samples", pc_->samples);
    g_key_file_set_uint64(k, "perf", "switch_records", pc_->switches);
    g_key_file_set_uint64(k, "perf", "lost_records", pc_->lost_records);
    g_key_file_set_uint64(k, "perf", "lost", pc_->lost);
    g_key_file_set_uint64(k, "perf", "lost_samples", pc_->lost_samples);
    g_key_file_set_boolean(k, "perf", "unfinished", pc_->unfinished);
    for (guint i = 0; i < pc_->events->len; i++) {
      rsp_perf_event_count *ev = pc_->events->pdata[i];
      if (ev->type == PERF_TYPE_TRACEPOINT && (ev->freq || ev->period > 1))
        note("warning: %s was recorded in sampling mode (%s %" PRIu64 "): perf kept a sample of its events",
             ev->name, ev->freq ? "freq" : "period", ev->period);
    }
  }
  if (counted || pc_) {
    g_key_file_set_comment(k, "loss", NULL,
                           " EVENT=recorded;occurred: the samples perf record kept, and the events "
                           "perf stat -a counted over the same window (-1: not counted, --no-loss-check)", NULL);
    if (!quiet && counted && pc_) {
      fprintf(stderr, "rsp-record: loss check (perf record kept, the ftrace capture holds, perf stat counted):\n");
      fprintf(stderr, "  %-34s %10s %10s %10s %8s\n", "event", "recorded", "ftrace", "occurred", "kept");
    }
    uint64_t tot_rec = 0, tot_occ = 0, tot_best = 0;
    for (guint i = 0; i < r->events->len; i++) {
      const char *ev = r->events->pdata[i];
      int64_t rec = pc_ ? rsp_perf_counts_get(pc_, ev) : -1;
      int64_t *occp = counted ? g_hash_table_lookup(counted, ev) : NULL;
      int64_t occ = occp ? *occp : -1;
      bool in_ftrace = false;
      for (guint j = 0; j < r->ftrace_events->len; j++)
        in_ftrace |= strcmp(r->ftrace_events->pdata[j], ev) == 0;
      int64_t ft = fc && in_ftrace ? (int64_t)rsp_ftrace_tally_get(fc, ev) : -1;
      char pair[64];
      g_snprintf(pair, sizeof pair, "%" PRId64 ";%" PRId64, rec, occ);
      g_key_file_set_string(k, "loss", ev, pair);
      if (ft >= 0)
        g_key_file_set_int64(k, "ftrace", ev, ft);
      if (rec >= 0 && occ >= 0) {
        tot_rec += (uint64_t)rec;
        tot_occ += (uint64_t)occ;
        tot_best += (uint64_t)MAX(rec, MIN(ft, occ));
      }
      if (!quiet && counted && pc_) {
        char fts[32] = "-", kept[32] = "-";
        if (ft >= 0)
          g_snprintf(fts, sizeof fts, "%" PRId64, ft);
        if (occ > 0 && rec >= 0)
          g_snprintf(kept, sizeof kept, "%.1f%%", 100.0 * (double)rec / (double)occ);
        fprintf(stderr, "  %-34s %10" PRId64 " %10s %10" PRId64 " %8s%s\n", ev, rec, fts, occ, kept,
                lost(rec, occ) ? (ft >= 0 && !lost(ft, occ) ? "  (ftrace has them)" : "  LOST") : "");
      }
    }
    if (!quiet && counted && pc_ && tot_occ)
      fprintf(stderr, "  all tracepoints: perf kept %.1f%% of %" PRIu64 "; with the ftrace capture %.1f%%\n",
              100.0 * (double)tot_rec / (double)tot_occ, tot_occ, 100.0 * (double)tot_best / (double)tot_occ);
  }
  if (fc) {
    g_key_file_set_comment(k, "ftrace", NULL,
                           " EVENT=events the ftrace capture holds inside the recording window", NULL);
    g_key_file_set_uint64(k, "ftrace", "total", fc->total);
    g_key_file_set_uint64(k, "ftrace", "missed", fc->missed);
    g_key_file_set_uint64(k, "ftrace", "pages", fc->pages);
    unsigned ncpu = 0;
    const rsp_ftrace_cpu_stats *cs = rsp_ftrace_capture_stats(r->ftrace, &ncpu);
    uint64_t dropped = 0, overrun = 0;
    for (unsigned i = 0; i < ncpu; i++) {
      dropped += cs[i].dropped;
      overrun += cs[i].overrun;
    }
    g_key_file_set_uint64(k, "ftrace", "dropped", dropped);
    g_key_file_set_uint64(k, "ftrace", "overrun", overrun);
    if (dropped || overrun || fc->missed)
      note("warning: the ftrace ring buffer lost events (dropped %" PRIu64 ", overrun %" PRIu64
           "): raise --ftrace-buffer", dropped, overrun);
  }
  if (pc_ && (pc_->lost || pc_->lost_samples))
    note("warning: perf lost %" PRIu64 " events (buffer overflow): raise -m", pc_->lost + pc_->lost_samples);

  char *meta = g_strconcat(r->output, ".meta", NULL);
  g_key_file_set_comment(k, NULL, NULL,
                         " rsp-record's notes on the recording beside it (GKeyFile): how it was made, "
                         "what was skipped, what was lost", NULL);
  if (!g_key_file_save_to_file(k, meta, &e)) {
    error_msg("%s", e->message);
    g_clear_error(&e);
  }
  if (!quiet) {
    struct stat st;
    double mb = stat(r->output, &st) == 0 ? (double)st.st_size / 1048576.0 : 0;
    char samples[64] = "";
    if (pc_)
      g_snprintf(samples, sizeof samples, ", %" PRIu64 " samples", pc_->samples);
    note("wrote %s (%.1f MB%s), %s.kallsyms.zst, %s.meta%s%s", r->output, mb, samples, base, base,
         r->ftrace ? ", " : "", r->ftrace ? ftrace_dir : "");
  }
  g_free(meta);
  g_free(ftrace_dir);
  g_free(base);
  rsp_ftrace_tally_free(fc);
  if (counted)
    g_hash_table_unref(counted);
  rsp_perf_counts_free(pc_);
  g_key_file_free(k);
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
  quiet = o->quiet;
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
  phase("start");
  if (!find_perf(r) || !check_root())
    goto out;
  if (o->command && !resolve_command(r)) {
    status = r->exit_status;
    goto out;
  }
  if (o->pid > 0 && kill(o->pid, 0) != 0 && errno == ESRCH) {
    error_msg("no process %d", o->pid);
    goto out;
  }
  r->set = rsp_probe_set_load(o->probes ? o->probes : "default", &e);
  if (!r->set) {
    error_msg("%s", e->message);
    g_clear_error(&e);
    goto out;
  }
  {
    char *abs = g_canonicalize_filename(o->output ? o->output : "perf.data", NULL);
    r->output = abs;
    char *dir = g_path_get_dirname(abs);
    bool dir_ok = g_file_test(dir, G_FILE_TEST_IS_DIR) && access(dir, W_OK) == 0;
    if (!dir_ok)
      error_msg("cannot write in %s: %s", dir, g_strerror(errno ? errno : ENOENT));
    g_free(dir);
    if (!dir_ok)
      goto out;
  }
  if (!find_tracefs(r) || (!o->dry_run && !take_lock(r)))
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
    remove_leftovers(r);
  if (pending_stop_signal(r))
    goto interrupted_early;
  if (o->libc_probes && !r->has_uprobes)
    note("--libc-probes: this kernel has no uprobes (no %s/uprobe_events): recording without them", r->tracefs);
  if (!resolve_events(r))
    goto out;
  if (r->skipped->len && !quiet) {
    /* grouped by reason: "event (why)" */
    note("skipped %u event(s) of probe set %s:", r->skipped->len, r->set->name);
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
    char *cmd = argv_string(r->record_argv);
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
  if (!rotate_output(r))
    goto out;
  char *tmpl = g_strdup_printf("rsp-record-%d-XXXXXX", (int)getpid());
  r->workdir = g_dir_make_tmp(tmpl, &e);
  g_free(tmpl);
  if (!r->workdir) {
    error_msg("%s", e->message);
    g_clear_error(&e);
    goto out;
  }
  r->record.log = g_build_filename(r->workdir, "perf-record.log", NULL);
  r->stat.log = g_build_filename(r->workdir, "perf-stat.log", NULL);

  /* setup */
  phase("preflight done");
  if (r->ftrace_events->len) {
    char *dir = g_strconcat(r->output, ".ftrace", NULL);
    r->instance_name = g_strdup_printf("rsp-%d", (int)getpid());
    r->ftrace = rsp_ftrace_capture_create(r->tracefs, r->instance_name, dir, r->ftrace_events,
                                          o->ftrace_buffer_kb ? o->ftrace_buffer_kb : default_ftrace_kb(), &e);
    g_free(dir);
    if (!r->ftrace) {
      error_msg("ftrace instance: %s", e->message);
      g_clear_error(&e);
      goto out;
    }
  }
  if (!o->no_loss_check && r->events->len) {
    stat_out = g_build_filename(r->workdir, "perf-stat.csv", NULL);
    GPtrArray *a = stat_argv(r, stat_out);
    bool ok = spawn_perf(r, &r->stat, a, &e);
    g_ptr_array_unref(a);
    if (!ok) {
      error_msg("%s", e->message);
      g_clear_error(&e);
      goto out;
    }
  }
  r->record_argv = record_argv(r);
  if (!spawn_perf(r, &r->record, r->record_argv, &e)) {
    error_msg("%s", e->message);
    g_clear_error(&e);
    goto out;
  }
  if (!quiet) {
    char *s = argv_string(r->record_argv);
    note("%s", s);
    g_free(s);
  }
  /* on: stat first, then record (stat's window holds record's) */
  phase("perf started");
  if ((r->stat.pid > 0 && !perf_wait_ready(r, &r->stat, &e)) || !perf_wait_ready(r, &r->record, &e)) {
    if (r->signals) {
      note("%s", e->message);
      g_clear_error(&e);
      status = 130;
      goto out;
    }
    error_msg("%s", e->message);
    print_log(r->stat.running ? "perf record" : "perf stat", r->stat.running ? r->record.log : r->stat.log);
    g_clear_error(&e);
    goto out;
  }
  phase("perf ready");
  if (r->ftrace && !rsp_ftrace_capture_start(r->ftrace, &e)) {
    error_msg("ftrace instance: %s", e->message);
    g_clear_error(&e);
    goto out;
  }
  /* on: both commands back to back, then both acks: the two windows differ only by the time
   * the two perf processes take to wake up (the loss check compares them) */
  r->t_on_sent = now_ns();
  if ((r->stat.pid > 0 && !perf_send(&r->stat, "enable", &e)) ||
      !perf_send(&r->record, "enable", &e) ||
      (r->stat.pid > 0 && !perf_wait_ack(r, &r->stat, "enable", &e)) ||
      !perf_wait_ack(r, &r->record, "enable", &e)) {
    error_msg("%s", e->message);
    print_log("perf record", r->record.log);
    if (r->stat.pid > 0)
      print_log("perf stat", r->stat.log);
    g_clear_error(&e);
    goto out;
  }
  r->t_on_acked = now_ns();
  phase("perf record on");
  r->start_time = g_date_time_new_now_local();
  if (r->ftrace) {
    char v[32];
    g_snprintf(v, sizeof v, "%" PRIu64 ";%" PRIu64, r->t_on_sent, r->t_on_acked);
    rsp_ftrace_capture_note(r->ftrace, "perf_on_monotonic_ns", v);
  }
  bool started = true;
  if (pending_stop_signal(r)) {
    started = false;
  } else if (o->command) {
    if (!start_workload(r, &e)) {
      /* exec failed (126, 127): a short recording of that, with its status */
      error_msg("%s", e->message);
      g_clear_error(&e);
      started = false;
    }
  } else if (o->pid > 0) {
    r->target_pidfd = pidfd_open_(o->pid);
  }
  if (o->duration > 0)
    arm_timer(r, o->duration);
  if (started) {
    if (!quiet) {
      if (o->command)
        note("recording the whole system while %s runs (pid %d)", o->command[0], (int)r->work.pid);
      else if (o->pid > 0)
        note("recording the whole system until process %d ends%s", o->pid,
             o->duration > 0 ? " or the duration passes" : " (Ctrl-C to stop)");
      else if (o->duration > 0)
        note("recording the whole system for %g s", o->duration);
      else
        note("recording the whole system: Ctrl-C to stop");
    }
    run(r);
  }
  phase("stopping");
  stop(r);
  phase("perf done");
  if (r->ftrace) {
    char v[32];
    g_snprintf(v, sizeof v, "%" PRIu64 ";%" PRIu64, r->t_off_sent, r->t_off_acked);
    rsp_ftrace_capture_note(r->ftrace, "perf_off_monotonic_ns", v);
  }
  cleanup(r); /* the system as it was, before the (slower) loss check */
  phase("cleaned up");
  if (!r->failed) {
    if (g_file_test(r->output, G_FILE_TEST_EXISTS))
      loss_check_and_meta(r, stat_out);
    phase("loss check and meta written");
    if (o->command)
      status = r->have_exit_status ? r->exit_status : r->interrupted ? 130 : RSP_RECORD_EXIT_FAILURE;
    else
      status = 0;
  }
  goto out;

interrupted_early:
  note("interrupted before the recording started");
  status = 130;
out:
  cleanup(r);
  if (r->ftrace && !g_file_test(r->output, G_FILE_TEST_EXISTS)) {
    /* no recording: its ftrace side is no use */
    char *dir = g_strconcat(r->output, ".ftrace", NULL);
    rm_rf(dir);
    g_free(dir);
  }
  if (r->workdir) {
    rm_rf(r->workdir);
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
