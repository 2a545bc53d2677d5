/* perf record, perf stat and the workload as children: forked with their control pipes, told to switch their
 * events on and off and waited for, with the signals the user sends meanwhile. */
#include "record/record-private.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- children ------------------------------------------------------------------------------ */

void rec_reap(recorder *r)
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

int rec_status_code(int st)
{
  if (WIFEXITED(st))
    return WEXITSTATUS(st);
  if (WIFSIGNALED(st))
    return 128 + WTERMSIG(st);
  return RSP_RECORD_EXIT_FAILURE;
}

/* Forks perf with ARGV; its control pipes come as --control fd:R,W. */
bool rec_spawn_perf(recorder *r, child *c, GPtrArray *argv, GError **error)
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


/* Waits until perf says "Events disabled" (-D -1): it has opened and mapped everything and is
 * about to poll its control pipe. A command sent earlier works too, but this way the time to
 * start perf is not spent with rsp-record's own window open. */
bool rec_perf_wait_ready(recorder *r, child *c, GError **error)
{
  uint64_t deadline = rec_now_ns() + (uint64_t)ACK_TIMEOUT_MS * 1000000u;
  while (rec_now_ns() < deadline) {
    char *text = NULL;
    if (g_file_get_contents(c->log, &text, NULL, NULL) && strstr(text, "Events disabled")) {
      g_free(text);
      return true;
    }
    g_free(text);
    rec_reap(r);
    if (!c->running) {
      g_set_error(error, RSP_RECORD_ERROR, 0, "%s exited (status %d) while starting", c->what,
                  rec_status_code(c->status));
      return false;
    }
    if (rec_pending_stop_signal(r)) {
      g_set_error(error, RSP_RECORD_ERROR, 0, "interrupted while %s was starting", c->what);
      return false;
    }
    g_usleep(5000);
  }
  g_set_error(error, RSP_RECORD_ERROR, 0, "%s did not start in %d s", c->what, ACK_TIMEOUT_MS / 1000);
  return false;
}

/* Sends "enable"/"disable" through perf's control pipe and waits for its ack. */
bool rec_perf_send(child *c, const char *cmd, GError **error)
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

bool rec_perf_wait_ack(recorder *r, child *c, const char *cmd, GError **error)
{
  char buf[64];
  size_t have = 0;
  uint64_t deadline = rec_now_ns() + (uint64_t)ACK_TIMEOUT_MS * 1000000u;
  while (rec_now_ns() < deadline) {
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
    rec_reap(r);
    if (!c->running)
      break;
  }
  rec_reap(r);
  if (!c->running)
    g_set_error(error, RSP_RECORD_ERROR, 0, "%s exited (status %d) before switching its events %s",
                c->what, rec_status_code(c->status), strcmp(cmd, "enable") == 0 ? "on" : "off");
  else
    g_set_error(error, RSP_RECORD_ERROR, 0, "%s did not answer \"%s\" in %d s", c->what, cmd,
                ACK_TIMEOUT_MS / 1000);
  return false;
}


/* Waits for the children in CS to end; a further signal is counted; after TIMEOUT_MS, SIGKILL. */
void rec_wait_children(recorder *r, child **cs, size_t n, int timeout_ms)
{
  uint64_t deadline = rec_now_ns() + (uint64_t)timeout_ms * 1000000u;
  bool killed = false;
  for (;;) {
    rec_reap(r);
    bool any = false;
    for (size_t i = 0; i < n; i++)
      any |= cs[i]->running;
    if (!any)
      return;
    if (!killed && rec_now_ns() > deadline) {
      for (size_t i = 0; i < n; i++)
        if (cs[i]->running) {
          rec_error_msg("%s did not exit in %d s: killing it", cs[i]->what, timeout_ms / 1000);
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
          rec_note("waiting for perf to write its files (Ctrl-C twice more to kill it)");
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

void rec_close_control(child *c)
{
  if (c->ctl_w > 0)
    close(c->ctl_w);
  if (c->ack_r > 0)
    close(c->ack_r);
  c->ctl_w = c->ack_r = -1;
}

/* A signal waiting in the signalfd (not SIGCHLD): the user wants out. */
bool rec_pending_stop_signal(recorder *r)
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
