/* Before anything starts: root, perf, tracefs, the lock, a killed rsp-record's leftovers, the events that
 * exist (probes made, fallbacks chosen), the command, and FILE moved aside. */
#include "record/record-private.h"

#include "record/probes.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* ---- preflight ----------------------------------------------------------------------------- */

bool rec_check_root(void)
{
  if (geteuid() == 0)
    return true;
  char *paranoid = rec_read_trimmed("/proc/sys/kernel/perf_event_paranoid");
  rec_error_msg("rsp-record needs root.\n"
            "  It records every CPU of the system (scheduler, block, irq and network tracepoints,\n"
            "  with call stacks, and CPU samples): perf lets other users record system-wide\n"
            "  tracepoints only when kernel.perf_event_paranoid is -1 (it is %s here), and the\n"
            "  ftrace instance and probes it creates in /sys/kernel/tracing are root's alone.\n"
            "  Run it as root: sudo rsp-record -- COMMAND",
            paranoid ? paranoid : "unknown");
  g_free(paranoid);
  return false;
}

bool rec_find_perf(recorder *r)
{
  r->perf = g_find_program_in_path("perf");
  if (!r->perf) {
    rec_error_msg("perf is not installed (or not in PATH): rsp-record records with it.\n"
              "  Debian/Ubuntu: apt install linux-perf (or linux-tools-$(uname -r)); Fedora: dnf install perf");
    return false;
  }
  char *out = NULL, *err = NULL;
  int st = 0;
  char *argv[] = {r->perf, "--version", NULL};
  if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &st, NULL) ||
      !g_spawn_check_wait_status(st, NULL)) {
    rec_error_msg("%s --version fails: perf is not usable here%s%s", r->perf, err && *err ? ":\n  " : "",
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

bool rec_find_tracefs(recorder *r)
{
  r->tracefs = rsp_tracefs_find();
  if (r->tracefs)
    return true;
  const char *env = g_getenv("RSP_TRACEFS");
  if (env && *env) {
    rec_error_msg("RSP_TRACEFS=%s: not a tracefs root (no events/ directory in it)", env);
    return false;
  }
  GError *e = NULL;
  if (rsp_tracefs_mount("/sys/kernel/tracing", &e)) {
    rec_note("tracefs was not mounted: mounted it on /sys/kernel/tracing (unmounted at the end)");
    r->tracefs = g_strdup("/sys/kernel/tracing");
    r->mounted_tracefs = true;
    return true;
  }
  rec_error_msg("tracefs is not mounted, and mounting it failed (%s).\n"
            "  perf and rsp-record need it to name tracepoints: mount -t tracefs nodev /sys/kernel/tracing",
            e->message);
  g_error_free(e);
  return false;
}

bool rec_take_lock(recorder *r)
{
  const char *dir = g_file_test("/run/lock", G_FILE_TEST_IS_DIR) ? "/run/lock" : g_get_tmp_dir();
  char *path = g_build_filename(dir, "rsp-record.lock", NULL);
  r->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (r->lock_fd < 0) {
    int e = errno;
    rec_error_msg("%s: %s", path, g_strerror(e));
    g_free(path);
    return false;
  }
  bool told = false;
  while (flock(r->lock_fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      int e = errno;
      rec_error_msg("locking %s: %s", path, g_strerror(e));
      g_free(path);
      return false;
    }
    if (!told) {
      char holder[32] = "";
      ssize_t n = pread(r->lock_fd, holder, sizeof holder - 1, 0);
      holder[n > 0 ? n : 0] = '\0';
      rec_note("another rsp-record (pid %s) is recording: waiting for it to finish (recordings are "
           "system-wide, one at a time)", *g_strstrip(holder) ? holder : "?");
      told = true;
    }
    struct pollfd p = {r->sfd, POLLIN, 0};
    if (poll(&p, 1, 200) > 0 && rec_pending_stop_signal(r)) {
      g_free(path);
      return false;
    }
  }
  char pid[32];
  int n = g_snprintf(pid, sizeof pid, "%d\n", (int)getpid());
  if (ftruncate(r->lock_fd, 0) == 0 && pwrite(r->lock_fd, pid, (size_t)n, 0) < 0)
    rec_note("could not write %s", path);
  g_free(path);
  return true;
}

void rec_remove_leftovers(recorder *r)
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
      rec_note("waiting for the perf of a killed rsp-record to release its probes");
    if (tries == 49)
      rec_note("%u leftover probe(s) are still busy: not removed", left_k + left_u);
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
      rec_rm_rf(p);
      g_free(p);
    }
  }
  if (d)
    g_dir_close(d);
  if (n)
    rec_note("removed %u leftover(s) of an earlier rsp-record that was killed (ftrace instances, probes)", n);
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
bool rec_resolve_events(recorder *r)
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
    rec_error_msg("none of the events of probe set %s exists on this kernel", r->set->name);
    return false;
  }
  return true;
}

bool rec_resolve_command(recorder *r)
{
  const char *cmd = r->o->command[0];
  if (strchr(cmd, '/')) {
    if (access(cmd, F_OK) != 0) {
      rec_error_msg("%s: %s", cmd, g_strerror(errno));
      r->exit_status = RSP_RECORD_EXIT_NOTFOUND;
      return false;
    }
    if (access(cmd, X_OK) != 0 || g_file_test(cmd, G_FILE_TEST_IS_DIR)) {
      rec_error_msg("%s: cannot execute: %s", cmd,
                g_file_test(cmd, G_FILE_TEST_IS_DIR) ? "is a directory" : g_strerror(errno));
      r->exit_status = RSP_RECORD_EXIT_NOEXEC;
      return false;
    }
    r->command_path = g_strdup(cmd);
    return true;
  }
  r->command_path = g_find_program_in_path(cmd);
  if (!r->command_path) {
    rec_error_msg("%s: command not found", cmd);
    r->exit_status = RSP_RECORD_EXIT_NOTFOUND;
    return false;
  }
  return true;
}

/* FILE and its side files move to FILE.old and FILE.old.SIDE, as perf does with FILE. */
static const char *const side_suffixes[] = {"", ".kallsyms.zst", ".kallsyms", ".meta", ".ftrace"};

bool rec_rotate_output(recorder *r)
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
      rec_rm_rf(p);
      g_free(p);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(side_suffixes) && ok; i++) {
      char *from = g_strconcat(r->output, side_suffixes[i], NULL);
      char *to = g_strconcat(old, side_suffixes[i], NULL);
      if (g_file_test(from, G_FILE_TEST_EXISTS) && rename(from, to) != 0) {
        rec_error_msg("renaming %s to %s: %s", from, to, g_strerror(errno));
        ok = false;
      }
      g_free(from);
      g_free(to);
    }
  }
  g_free(old);
  return ok;
}
