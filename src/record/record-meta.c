/* After the recording: FILE.kallsyms.zst, the loss check (perf stat's counts against what perf record and the
 * ftrace capture kept) and FILE.meta. */
#include "record/record-private.h"

#include "record/perf-count.h"
#include "record/probes.h"
#include "reader/reader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <zstd.h>

/* ---- after: kallsyms, loss check, meta ----------------------------------------------------- */

static bool save_kallsyms(const char *path, GError **error)
{
  char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents("/proc/kallsyms", &text, &len, error))
    return false;
  if (len > 16 && strncmp(text, "0000000000000000", 16) == 0)
    rec_note("/proc/kallsyms hides the kernel addresses (kernel.kptr_restrict): kernel stacks will not be symbolized");
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

static char *boot_id(void) { return rec_read_trimmed("/proc/sys/kernel/random/boot_id"); }

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

void rec_loss_check_and_meta(recorder *r, const char *stat_out)
{
  GError *e = NULL;
  GKeyFile *k = g_key_file_new();
  const char *R = "recording";
  g_key_file_set_integer(k, R, "version", 1);
  if (r->o->command) {
    GPtrArray *a = g_ptr_array_new();
    for (char **c = r->o->command; *c; c++)
      g_ptr_array_add(a, *c);
    char *cmd = rec_argv_string(a);
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
  char *pc = rec_argv_string(r->record_argv);
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
    rec_error_msg("kallsyms snapshot: %s", e->message);
    g_clear_error(&e);
  }
  g_free(ks);

  /* the loss check */
  rsp_perf_counts *pc_ = rsp_perf_count(r->output, &e);
  if (!pc_) {
    rec_error_msg("counting %s: %s", r->output, e->message);
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
      rec_error_msg("the ftrace capture does not decode: %s", e->message);
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
        rec_note("warning: %s was recorded in sampling mode (%s %" PRIu64 "): perf kept a sample of its events",
             ev->name, ev->freq ? "freq" : "period", ev->period);
    }
  }
  if (counted || pc_) {
    g_key_file_set_comment(k, "loss", NULL,
                           " EVENT=recorded;occurred: the samples perf record kept, and the events "
                           "perf stat -a counted over the same window (-1: not counted, --no-loss-check)", NULL);
    if (!rec_quiet && counted && pc_) {
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
      if (!rec_quiet && counted && pc_) {
        char fts[32] = "-", kept[32] = "-";
        if (ft >= 0)
          g_snprintf(fts, sizeof fts, "%" PRId64, ft);
        if (occ > 0 && rec >= 0)
          g_snprintf(kept, sizeof kept, "%.1f%%", 100.0 * (double)rec / (double)occ);
        fprintf(stderr, "  %-34s %10" PRId64 " %10s %10" PRId64 " %8s%s\n", ev, rec, fts, occ, kept,
                lost(rec, occ) ? (ft >= 0 && !lost(ft, occ) ? "  (ftrace has them)" : "  LOST") : "");
      }
    }
    if (!rec_quiet && counted && pc_ && tot_occ)
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
      rec_note("warning: the ftrace ring buffer lost events (dropped %" PRIu64 ", overrun %" PRIu64
           "): raise --ftrace-buffer", dropped, overrun);
  }
  if (pc_ && (pc_->lost || pc_->lost_samples))
    rec_note("warning: perf lost %" PRIu64 " events (buffer overflow): raise -m", pc_->lost + pc_->lost_samples);

  char *meta = g_strconcat(r->output, ".meta", NULL);
  g_key_file_set_comment(k, NULL, NULL,
                         " rsp-record's notes on the recording beside it (GKeyFile): how it was made, "
                         "what was skipped, what was lost", NULL);
  if (!g_key_file_save_to_file(k, meta, &e)) {
    rec_error_msg("%s", e->message);
    g_clear_error(&e);
  }
  if (!rec_quiet) {
    struct stat st;
    double mb = stat(r->output, &st) == 0 ? (double)st.st_size / 1048576.0 : 0;
    char samples[64] = "";
    if (pc_)
      g_snprintf(samples, sizeof samples, ", %" PRIu64 " samples", pc_->samples);
    rec_note("wrote %s (%.1f MB%s), %s.kallsyms.zst, %s.meta%s%s", r->output, mb, samples, base, base,
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
