/* Latency profiles: OSprof's log2 histograms of every operation class the model knows, each bucket
 * with its instances and what they waited for, and the peaks (reference/osprof-latency-analysis.txt,
 * sections 3 and 3.1). */
#include "analysis/analysis.h"
#include "analysis/gallop.h"
#include "analysis/profile-private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct rsp_profile_set {
  const rsp_model *model;
  GStringChunk *strings;
  GPtrArray *profiles; /* rsp_profile *, sorted by total latency */
};

/* The causes are the categories of rsp-summary --categories, by the same keys. */
const char *rsp_profile_cause_key(rsp_category cat)
{
  return (unsigned)cat < RSP_N_CATEGORIES ? rsp_category_key(cat) : "unaccounted";
}

/* ---- The bucket function -------------------------------------------------------------------- */

/* The smallest ns of bucket b at resolutions 2 and 4, for every b a uint64_t can reach. */
static uint64_t lo_table[5][64 * 4 + 1];

static uint64_t bucket_lo_exact(int32_t bucket, unsigned resolution)
{
  if (bucket % (int32_t)resolution == 0)
    return (uint64_t)1 << (bucket / (int32_t)resolution);
  /* the smallest integer ns with ns >= 2^(b/r); 2^(b/r) is irrational here, so ceil is exact
   * up to long double's 64-bit mantissa */
  long double v = ceill(exp2l((long double)bucket / (long double)resolution));
  return v >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)v;
}

static void init_lo_table(void)
{
  static gsize done = 0;
  if (g_once_init_enter(&done)) {
    for (unsigned r = 2; r <= 4; r += 2)
      for (int32_t b = 0; b <= 64 * (int32_t)r; b++)
        lo_table[r][b] = b >= 64 * (int32_t)r ? UINT64_MAX : bucket_lo_exact(b, r);
    g_once_init_leave(&done, 1);
  }
}

int32_t rsp_profile_bucket_of(uint64_t ns, unsigned resolution)
{
  if (ns == 0)
    ns = 1;
  int32_t octave = 63 - __builtin_clzll(ns); /* floor(log2(ns)) */
  if (resolution <= 1)
    return octave;
  init_lo_table();
  int32_t b = octave * (int32_t)resolution;
  /* the sub-buckets of the octave: ns >= lo(b + 1) moves up */
  while (b + 1 < (octave + 1) * (int32_t)resolution && ns >= lo_table[resolution][b + 1])
    b++;
  return b;
}

uint64_t rsp_profile_bucket_lo(int32_t bucket, unsigned resolution)
{
  if (bucket <= 0)
    return bucket < 0 ? 0 : 1;
  if (resolution <= 1)
    return bucket >= 64 ? UINT64_MAX : (uint64_t)1 << bucket;
  if (resolution != 2 && resolution != 4)
    return bucket_lo_exact(bucket, resolution);
  init_lo_table();
  return bucket >= 64 * (int32_t)resolution ? UINT64_MAX : lo_table[resolution][bucket];
}

const char *rsp_profile_format_ns(uint64_t ns, char *buf, size_t size)
{
  static const struct { const char *unit; double div; } units[] = {
    { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(units); i++)
    if ((double)ns >= units[i].div) {
      double v = (double)ns / units[i].div;
      snprintf(buf, size, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[i].unit);
      return buf;
    }
  snprintf(buf, size, "%" G_GUINT64_FORMAT " ns", ns);
  return buf;
}

const char *rsp_profile_format_ops_total(const rsp_profile *p, const char *missing, char *buf, size_t size)
{
  char t[32];
  if (!p)
    snprintf(buf, size, "%s", missing);
  else
    snprintf(buf, size, "%" G_GUINT64_FORMAT " / %s", p->count, rsp_profile_format_ns(p->total_ns, t, sizeof t));
  return buf;
}

/* ---- Peaks ---------------------------------------------------------------------------------- */

uint32_t rsp_profile_find_peaks(const uint64_t *counts, uint32_t n, uint32_t *first, uint32_t *top,
                                uint32_t *last, uint32_t max)
{
  /* candidate maxima: each plateau higher than both neighbours (its middle bucket stands for it) */
  g_autofree uint32_t *cand = g_new(uint32_t, n + 1), *plo = g_new(uint32_t, n + 1), *phi = g_new(uint32_t, n + 1);
  uint32_t n_cand = 0;
  for (uint32_t i = 0; i < n;) {
    uint32_t j = i;
    while (j + 1 < n && counts[j + 1] == counts[i])
      j++;
    bool left_lower = i == 0 || counts[i - 1] < counts[i];
    bool right_lower = j + 1 >= n || counts[j + 1] < counts[i];
    if (counts[i] > 0 && left_lower && right_lower) {
      plo[n_cand] = i;
      phi[n_cand] = j;
      cand[n_cand++] = i + (j - i) / 2;
    }
    i = j + 1;
  }
  /* keep the prominent ones. The valley on each side is the lowest bucket before a bucket as high
   * (on the left; strictly higher on the right, so of equal maxima the first stands) or the edge,
   * where the slope down to the edge counts as the full height; the higher valley must be at most
   * half the height. */
  g_autofree uint32_t *keep = g_new(uint32_t, n_cand + 1);
  uint32_t n_keep = 0;
  for (uint32_t c = 0; c < n_cand; c++) {
    uint64_t h = counts[cand[c]], lmin = 0, rmin = 0, m = h;
    for (int64_t i = (int64_t)plo[c] - 1; i >= 0; i--) {
      if (counts[i] >= h) {
        lmin = m;
        break;
      }
      m = MIN(m, counts[i]);
    }
    m = h;
    for (uint32_t i = phi[c] + 1; i < n; i++) {
      if (counts[i] > h) {
        rmin = m;
        break;
      }
      m = MIN(m, counts[i]);
    }
    uint64_t base = MAX(lmin, rmin);
    if ((h - base) * 2 >= h)
      keep[n_keep++] = cand[c];
  }
  for (uint32_t k = 0; k < n_keep && k < max; k++) {
    uint32_t lo = 0, hi = n - 1;
    if (k > 0) { /* split at the lowest bucket between this and the previous peak (it goes left) */
      uint32_t m = keep[k - 1] + 1;
      for (uint32_t i = m; i < keep[k]; i++)
        if (counts[i] < counts[m])
          m = i;
      lo = m + 1;
    }
    if (k + 1 < n_keep) {
      uint32_t m = keep[k] + 1;
      for (uint32_t i = m; i < keep[k + 1]; i++)
        if (counts[i] < counts[m])
          m = i;
      hi = m;
    }
    /* trim empty buckets at the ends of the span */
    while (lo < keep[k] && counts[lo] == 0)
      lo++;
    while (hi > keep[k] && counts[hi] == 0)
      hi--;
    first[k] = lo;
    top[k] = keep[k];
    last[k] = hi;
  }
  return n_keep;
}

/* The waker of most instances FIRST .. FIRST + N - 1 of P (ties: the lowest task id). */
static rsp_task_id dominant_waker(const rsp_profile *p, uint32_t first, uint32_t n)
{
  GHashTable *wakers = NULL;
  rsp_task_id best = RSP_NO_ID;
  guint best_n = 0;
  for (uint32_t j = first; j < first + n; j++) {
    rsp_task_id w = p->instances[j].waker;
    if (w == RSP_NO_ID)
      continue;
    if (!wakers)
      wakers = g_hash_table_new(NULL, NULL);
    gpointer key = GUINT_TO_POINTER(w + 1);
    guint c = GPOINTER_TO_UINT(g_hash_table_lookup(wakers, key)) + 1;
    g_hash_table_insert(wakers, key, GUINT_TO_POINTER(c));
    if (c > best_n || (c == best_n && w < best)) {
      best_n = c;
      best = w;
    }
  }
  if (wakers)
    g_hash_table_destroy(wakers);
  return best;
}

rsp_task_id rsp_profile_bucket_waker(const rsp_profile *p, const rsp_profile_bucket *b)
{
  return dominant_waker(p, b->first_instance, b->n_instances);
}

/* Fills the buckets and peaks of P from its instances. */
void rsp_profile_finish(rsp_profile *p)
{
  p->count = p->n_instances;
  p->total_ns = 0;
  if (p->n_instances == 0) {
    p->n_buckets = 0;
    p->n_peaks = 0;
    return;
  }
  /* a counting sort by bucket: stable, so time order stays inside a bucket */
  g_autofree int32_t *bucket_of = g_new(int32_t, p->n_instances);
  int32_t lo = INT32_MAX, hi = INT32_MIN;
  for (uint32_t i = 0; i < p->n_instances; i++) {
    bucket_of[i] = rsp_profile_bucket_of(p->instances[i].ns, p->resolution);
    lo = MIN(lo, bucket_of[i]);
    hi = MAX(hi, bucket_of[i]);
  }
  p->min_index = lo;
  p->n_buckets = (uint32_t)(hi - lo + 1);
  p->buckets = g_new0(rsp_profile_bucket, p->n_buckets);
  for (uint32_t i = 0; i < p->n_buckets; i++) {
    rsp_profile_bucket *b = &p->buckets[i];
    b->index = lo + (int32_t)i;
    b->lo_ns = rsp_profile_bucket_lo(b->index, p->resolution);
    b->hi_ns = rsp_profile_bucket_lo(b->index + 1, p->resolution);
  }
  for (uint32_t i = 0; i < p->n_instances; i++)
    p->buckets[bucket_of[i] - lo].n_instances++;
  for (uint32_t i = 0, at = 0; i < p->n_buckets; i++) {
    p->buckets[i].first_instance = at;
    at += p->buckets[i].n_instances;
    p->buckets[i].n_instances = 0;
  }
  rsp_profile_instance *sorted = g_new(rsp_profile_instance, p->n_instances);
  for (uint32_t i = 0; i < p->n_instances; i++) {
    rsp_profile_bucket *b = &p->buckets[bucket_of[i] - lo];
    sorted[b->first_instance + b->n_instances++] = p->instances[i];
  }
  g_free(p->instances);
  p->instances = sorted;
  for (uint32_t i = 0; i < p->n_buckets; i++) {
    rsp_profile_bucket *b = &p->buckets[i];
    for (uint32_t j = 0; j < b->n_instances; j++) {
      const rsp_profile_instance *in = &p->instances[b->first_instance + j];
      b->count++;
      b->total_ns += in->ns;
      b->causes[in->cause < RSP_N_CATEGORIES ? in->cause : RSP_CAT_UNACCOUNTED]++;
    }
    p->total_ns += b->total_ns;
  }

  g_autofree uint64_t *counts = g_new(uint64_t, p->n_buckets);
  for (uint32_t i = 0; i < p->n_buckets; i++)
    counts[i] = p->buckets[i].count;
  uint32_t n = p->n_buckets;
  g_autofree uint32_t *first = g_new(uint32_t, n), *top = g_new(uint32_t, n), *last = g_new(uint32_t, n);
  p->n_peaks = rsp_profile_find_peaks(counts, n, first, top, last, n);
  p->peaks = g_new0(rsp_profile_peak, MAX(p->n_peaks, 1));
  for (uint32_t k = 0; k < p->n_peaks; k++) {
    rsp_profile_peak *pk = &p->peaks[k];
    pk->index = lo + (int32_t)top[k];
    pk->first_index = lo + (int32_t)first[k];
    pk->last_index = lo + (int32_t)last[k];
    pk->lo_ns = p->buckets[first[k]].lo_ns;
    pk->hi_ns = p->buckets[last[k]].hi_ns;
    uint64_t causes[RSP_N_CATEGORIES] = { 0 }, total = 0;
    for (uint32_t i = first[k]; i <= last[k]; i++) {
      const rsp_profile_bucket *b = &p->buckets[i];
      pk->count += b->count;
      total += b->total_ns;
      for (int c = 0; c < RSP_N_CATEGORIES; c++)
        causes[c] += b->causes[c];
    }
    pk->avg_ns = pk->count ? total / pk->count : 0;
    pk->cause = RSP_CAT_UNACCOUNTED;
    for (int c = 0; c < RSP_N_CATEGORIES; c++)
      if (causes[c] > pk->cause_count) {
        pk->cause_count = causes[c];
        pk->cause = (uint8_t)c;
      }
    /* the peak's buckets are consecutive, so are their instances */
    uint32_t fi = p->buckets[first[k]].first_instance;
    const rsp_profile_bucket *lb = &p->buckets[last[k]];
    pk->waker = dominant_waker(p, fi, lb->first_instance + lb->n_instances - fi);
  }
}

rsp_profile *rsp_profile_from_counts(unsigned resolution, int32_t min_index, const uint64_t *counts,
                                     uint32_t n)
{
  rsp_profile *p = g_new0(rsp_profile, 1);
  p->resolution = resolution ? resolution : 1;
  p->name = p->site = "";
  p->process = "*";
  p->pid = -1;
  uint64_t total = 0;
  for (uint32_t i = 0; i < n; i++)
    total += counts[i];
  p->instances = g_new0(rsp_profile_instance, MAX(total, 1));
  for (uint32_t i = 0; i < n; i++)
    for (uint64_t k = 0; k < counts[i]; k++)
      p->instances[p->n_instances++] = (rsp_profile_instance){
        .ns = rsp_profile_bucket_lo(min_index + (int32_t)i, p->resolution), .id = RSP_NO_ID,
        .cause = RSP_CAT_UNACCOUNTED, .waker = RSP_NO_ID };
  rsp_profile_finish(p);
  return p;
}

void rsp_profile_free(rsp_profile *p)
{
  if (!p)
    return;
  g_free(p->buckets);
  g_free(p->instances);
  g_free(p->peaks);
  g_free(p);
}

/* ---- Causes ----------------------------------------------------------------------------------
 * What one sleep waited for is rsp_category_of_sleep()'s answer, the one the categories table splits
 * a sleep's own time by, so a bucket's causes and rsp-summary --categories agree. A sleep woken by
 * another control path also names the task whose run woke it. */
static rsp_task_id sleep_waker(const rsp_model *model, const rsp_sleep *s)
{
  if (s->wake_link >= rsp_model_n_links(model))
    return RSP_NO_ID;
  const rsp_link *l = rsp_model_link(model, s->wake_link);
  if (!l || l->from_run == RSP_NO_ID || l->from_run >= rsp_model_n_runs(model))
    return RSP_NO_ID;
  return rsp_model_run(model, l->from_run)->task;
}

/* ---- Building a set ------------------------------------------------------------------------- */

static const char *const kind_names[RSP_N_PROFILE_KINDS] = {
  [RSP_PROFILE_WAIT] = "wait",          [RSP_PROFILE_DISK_QUEUE] = "disk-queue",
  [RSP_PROFILE_DISK_SERVICE] = "disk-service", [RSP_PROFILE_DISK_TOTAL] = "disk-total",
  [RSP_PROFILE_NETWORK] = "network",    [RSP_PROFILE_SCHED_DELAY] = "sched-delay",
  [RSP_PROFILE_RUN] = "run",            [RSP_PROFILE_PREEMPTION] = "preemption",
};

typedef struct builder {
  rsp_profile_set *set;
  const rsp_model *model;
  const rsp_profile_options *opt;
  GHashTable *by_key;   /* profile_key -> accum (its instances in a GArray meanwhile) */
  struct accum *last[2];
  GHashTable *pid_comm; /* pid -> comm of its main thread */
  int32_t comm_pid;     /* the last pid process_comm looked up (comm_of valid when set) */
  const char *comm_of;
  GHashTable *workload; /* pids of the workload's process tree, with workload_only */
  const char *state_sites[256]; /* "[state S]"..., interned */
  const rsp_cpu_runs *cpu_runs; /* the model's runs by cpu (behind_whom) */
  uint32_t *cpu_hint;           /* by cpu index: where the last search of its runs ended */
} builder;

static const char *process_comm(builder *bd, int32_t pid)
{
  if (bd->comm_of && bd->comm_pid == pid) /* consecutive instances are mostly one process's */
    return bd->comm_of;
  const char *c = g_hash_table_lookup(bd->pid_comm, GINT_TO_POINTER(pid));
  bd->comm_pid = pid;
  bd->comm_of = c && *c ? c : "?";
  return bd->comm_of;
}

/* A class of one group: the strings are interned (the model's, the set's or literals), so
 * pointers identify them. */
typedef struct profile_key {
  const char *site, *process;
  int32_t pid;
  int kind;
} profile_key;

static guint profile_key_hash(gconstpointer k)
{
  const profile_key *x = k;
  return g_direct_hash(x->site) * 31u + g_direct_hash(x->process) * 17u + (guint)x->pid * 7u + (guint)x->kind;
}

static gboolean profile_key_equal(gconstpointer a, gconstpointer b)
{
  const profile_key *x = a, *y = b;
  return x->site == y->site && x->process == y->process && x->pid == y->pid && x->kind == y->kind;
}

typedef struct accum {
  profile_key key;
  rsp_profile *profile;
  GArray *instances;
} accum;

static void add_one(builder *bd, int slot, rsp_profile_kind kind, rsp_instance_kind ikind, const char *site,
                    int32_t pid, const char *process, const rsp_profile_instance *in)
{
  profile_key key = { .site = site, .process = process, .pid = pid, .kind = kind };
  accum *a = bd->last[slot]; /* consecutive instances are often of one class (a task's runs) */
  if (!a || !profile_key_equal(&a->key, &key))
    a = g_hash_table_lookup(bd->by_key, &key);
  if (!a) {
    rsp_profile *p = g_new0(rsp_profile, 1);
    p->kind = kind;
    p->instance_kind = ikind;
    p->site = g_string_chunk_insert_const(bd->set->strings, site);
    g_autofree char *name = *site ? g_strdup_printf("%s %s", kind_names[kind], site) : g_strdup(kind_names[kind]);
    p->name = g_string_chunk_insert_const(bd->set->strings, name);
    p->pid = pid;
    p->process = g_string_chunk_insert_const(bd->set->strings, process);
    p->resolution = bd->opt->resolution;
    a = g_new0(accum, 1);
    a->key = key;
    a->profile = p;
    a->instances = g_array_new(FALSE, FALSE, sizeof(rsp_profile_instance));
    g_hash_table_insert(bd->by_key, &a->key, a);
  }
  bd->last[slot] = a;
  g_array_append_val(a->instances, *in);
}

/* One instance into its process's profile (or command's) and the system-wide one. */
static void add(builder *bd, rsp_profile_kind kind, rsp_instance_kind ikind, const char *site,
                const rsp_task *task, uint64_t start, uint64_t ns, uint32_t id, rsp_category cause,
                rsp_task_id waker)
{
  const rsp_profile_options *o = bd->opt;
  if ((o->range_start || o->range_end) && (start < o->range_start || start >= o->range_end))
    return;
  int32_t pid = task ? (task->pid >= 0 ? task->pid : task->tid) : -1;
  if (o->pid >= 0 && pid != o->pid)
    return;
  if (bd->workload && (!task || !g_hash_table_contains(bd->workload, GINT_TO_POINTER(pid))))
    return;
  rsp_profile_instance in = { .ns = ns, .id = id, .cause = (uint8_t)cause, .waker = waker };
  if (task) {
    if (o->by_command)
      add_one(bd, 0, kind, ikind, site, -1, process_comm(bd, pid), &in);
    else
      add_one(bd, 0, kind, ikind, site, pid, process_comm(bd, pid), &in);
  }
  if (o->system_wide)
    add_one(bd, 1, kind, ikind, site, -1, "*", &in);
}

static const char *wait_site(builder *bd, const rsp_sleep *s)
{
  char buf[512];
  const char *site = rsp_model_wait_site(bd->model, s->stack, false, buf, sizeof buf);
  if (site) /* interned by the model, else here */
    return site == buf ? g_string_chunk_insert_const(bd->set->strings, buf) : site;
  unsigned char state = (unsigned char)s->state;
  if (!bd->state_sites[state]) {
    char text[32];
    snprintf(text, sizeof text, "[state %c]", state ? state : '?');
    bd->state_sites[state] = g_string_chunk_insert_const(bd->set->strings, text);
  }
  return bd->state_sites[state];
}

/* The cause of [A, B) of TASK's time runnable off the cpu (its wakeup's delay, or a preemption), on CPU (the
 * one it left, or the one it came back on): as the categories table takes it (preemptors.c), other tasks' runs
 * there are contention, the rest ALONE (scheduler overhead, or a preemption with no other task seen); an instance
 * has one cause, the one that holds most of it. The table's "preempted by tasks on the paths" needs the paths:
 * a profile says contention for those too. */
static rsp_category behind_whom(builder *bd, rsp_task_id task, int32_t cpu, uint64_t a, uint64_t b,
                                rsp_category alone)
{
  const rsp_model *m = bd->model;
  long ci = b > a && bd->cpu_runs ? rsp_model_cpu_index(bd->cpu_runs, cpu) : -1;
  if (ci < 0)
    return alone;
  const rsp_cpu_runs *cr = bd->cpu_runs;
  uint64_t covered = 0, cursor = a;
  for (uint32_t k = rsp_cpu_runs_from(m, cr, ci, a, &bd->cpu_hint[ci]); k < cr->first[ci + 1]; k++) {
    const rsp_run *r = rsp_model_run(m, cr->runs[k]);
    if (r->start >= b)
      break;
    uint64_t x = MAX(r->start, cursor), y = MIN(r->end, b);
    if (r->task == task || y <= x)
      continue;
    covered += y - x;
    cursor = y;
  }
  return covered * 2 > b - a ? RSP_CAT_CONTENTION : alone;
}

static void add_tasks(builder *bd)
{
  const rsp_model *m = bd->model;
  for (rsp_task_id t = 0; t < rsp_model_n_tasks(m); t++) {
    const rsp_task *task = rsp_model_task(m, t);
    for (uint32_t i = 0; i < task->n_runs; i++) {
      rsp_run_id rid = rsp_model_task_run(m, t, i);
      const rsp_run *r = rsp_model_run(m, rid);
      if (r->flags & (RSP_RUN_OPEN_AT_START | RSP_RUN_OPEN_AT_END))
        continue; /* cut by the recording: not its length */
      add(bd, RSP_PROFILE_RUN, RSP_INSTANCE_RUN, "", task, r->start, r->end - r->start, rid,
          r->n_samples ? RSP_CAT_UNDERSTOOD : RSP_CAT_UNSAMPLED, RSP_NO_ID);
    }
    /* the task's runs before and after each sleep, walked beside its sleeps (both in start order) */
    const rsp_run_id *run_ids;
    const uint64_t *run_starts;
    uint32_t n_runs = rsp_model_task_runs(m, t, &run_ids, &run_starts), ri = 0;
    for (uint32_t i = 0; i < task->n_sleeps; i++) {
      rsp_sleep_id sid = rsp_model_task_sleep(m, t, i);
      const rsp_sleep *s = rsp_model_sleep(m, sid);
      if (s->end < s->start)
        continue;
      while (ri < n_runs && run_starts[ri] < s->start)
        ri++; /* runs [0, ri) began before the sleep */
      if (s->preempted) {
        /* the cpu it was switched out from: its run that ended where the sleep began */
        const rsp_run *before = ri > 0 ? rsp_model_run(m, run_ids[ri - 1]) : NULL;
        int32_t cpu = before && before->end >= s->start ? before->cpu : -1;
        add(bd, RSP_PROFILE_PREEMPTION, RSP_INSTANCE_SLEEP, "", task, s->start, s->end - s->start, sid,
            behind_whom(bd, t, cpu, s->start, s->end, RSP_CAT_INVOLUNTARY), RSP_NO_ID);
        continue;
      }
      if (s->state == 'X' || s->state == 'Z')
        continue;
      rsp_category cause = rsp_category_of_sleep(m, sid);
      rsp_task_id waker = cause == RSP_CAT_OTHER_PATH ? sleep_waker(m, s) : RSP_NO_ID;
      add(bd, RSP_PROFILE_WAIT, RSP_INSTANCE_SLEEP, wait_site(bd, s), task, s->start,
          s->end - s->start, sid, cause, waker);
      if (s->wake_time && s->wake_time >= s->start && s->wake_time <= s->end) {
        /* the cpu it ran on at the end: its run that began where the sleep ended */
        uint32_t ai = ri;
        while (ai < n_runs && run_starts[ai] < s->end)
          ai++;
        const rsp_run *after = ai < n_runs ? rsp_model_run(m, run_ids[ai]) : NULL;
        int32_t cpu = after && after->start == s->end ? after->cpu : -1;
        add(bd, RSP_PROFILE_SCHED_DELAY, RSP_INSTANCE_SLEEP, "", task, s->wake_time, s->end - s->wake_time,
            sid, behind_whom(bd, t, cpu, s->wake_time, s->end, RSP_CAT_SCHEDULER), RSP_NO_ID);
      }
    }
  }
}

static void add_disk_ops(builder *bd)
{
  const rsp_model *m = bd->model;
  for (rsp_disk_op_id d = 0; d < rsp_model_n_disk_ops(m); d++) {
    const rsp_disk_op *op = rsp_model_disk_op(m, d);
    if (!op)
      continue;
    const rsp_task *task = op->task != RSP_NO_ID && op->task < rsp_model_n_tasks(m) ? rsp_model_task(m, op->task) : NULL;
    char dir = strchr(op->rwbs, 'W') ? 'W' : strchr(op->rwbs, 'R') ? 'R' : strchr(op->rwbs, 'D') ? 'D' : 'F';
    char site[48];
    snprintf(site, sizeof site, "%u:%u %c", op->dev >> 20, op->dev & 0xfffff, dir);
    const char *isite = g_string_chunk_insert_const(bd->set->strings, site);
    bool issued = !(op->flags & RSP_DISK_ISSUE_INFERRED), inserted = !(op->flags & RSP_DISK_NO_INSERT);
    /* measured times only: an inferred completion is put at the switch-in or the wakeup, not the device's */
    bool completed = !(op->flags & (RSP_DISK_NO_COMPLETE | RSP_DISK_COMPLETE_INFERRED));
    if (issued && inserted && op->issue_time >= op->insert_time)
      add(bd, RSP_PROFILE_DISK_QUEUE, RSP_INSTANCE_DISK, isite, task, op->insert_time,
          op->issue_time - op->insert_time, d, RSP_CAT_IO_QUEUE, RSP_NO_ID);
    if (issued && completed && op->complete_time >= op->issue_time)
      add(bd, RSP_PROFILE_DISK_SERVICE, RSP_INSTANCE_DISK, isite, task, op->issue_time,
          op->complete_time - op->issue_time, d, RSP_CAT_BLOCKING_IO, RSP_NO_ID);
    if (completed && op->complete_time >= op->insert_time)
      add(bd, RSP_PROFILE_DISK_TOTAL, RSP_INSTANCE_DISK, isite, task, op->insert_time,
          op->complete_time - op->insert_time, d, RSP_CAT_BLOCKING_IO, RSP_NO_ID);
  }
}

static void add_net_ops(builder *bd)
{
  const rsp_model *m = bd->model;
  for (rsp_net_op_id n = 0; n < rsp_model_n_net_ops(m); n++) {
    const rsp_net_op *op = rsp_model_net_op(m, n);
    if (!op || op->end < op->start)
      continue;
    const rsp_task *task = op->task != RSP_NO_ID && op->task < rsp_model_n_tasks(m) ? rsp_model_task(m, op->task) : NULL;
    char site[128];
    rsp_net_op_peer(op, site, sizeof site);
    add(bd, RSP_PROFILE_NETWORK, RSP_INSTANCE_NET, g_string_chunk_insert_const(bd->set->strings, site), task, op->start, op->end - op->start, n,
        RSP_CAT_NETWORK, RSP_NO_ID);
  }
}

static int by_total_latency(gconstpointer a, gconstpointer b)
{
  const rsp_profile *x = *(rsp_profile *const *)a, *y = *(rsp_profile *const *)b;
  if (x->total_ns != y->total_ns)
    return x->total_ns < y->total_ns ? 1 : -1;
  int c = strcmp(x->name, y->name);
  if (c)
    return c;
  c = strcmp(x->process, y->process);
  if (c)
    return c;
  return x->pid < y->pid ? -1 : x->pid > y->pid;
}

rsp_profile_set *rsp_profile_set_build(const rsp_model *model, const rsp_profile_options *options,
                                       GError **error)
{
  rsp_profile_options opt = options ? *options : (rsp_profile_options){ .pid = -1, .system_wide = true };
  if (opt.resolution == 0)
    opt.resolution = 1;
  if (opt.resolution != 1 && opt.resolution != 2 && opt.resolution != 4) {
    g_set_error(error, g_quark_from_static_string("rsp-profile"), 1,
                "resolution %u: must be 1, 2 or 4 buckets per octave", opt.resolution);
    return NULL;
  }
  builder bd = { .model = model, .opt = &opt };
  bd.pid_comm = g_hash_table_new(NULL, NULL);
  bool pid_found = false;
  for (rsp_task_id t = 0; t < rsp_model_n_tasks(model); t++) {
    const rsp_task *task = rsp_model_task(model, t);
    int32_t pid = task->pid >= 0 ? task->pid : task->tid;
    if (pid == opt.pid)
      pid_found = true;
    /* the main thread's (latest generation's) command names the process */
    if (task->tid == pid || !g_hash_table_contains(bd.pid_comm, GINT_TO_POINTER(pid)))
      g_hash_table_insert(bd.pid_comm, GINT_TO_POINTER(pid), (gpointer)task->comm);
  }
  if (opt.pid >= 0 && !pid_found) {
    g_set_error(error, g_quark_from_static_string("rsp-profile"), 2, "no process with pid %d in the recording", opt.pid);
    g_hash_table_destroy(bd.pid_comm);
    return NULL;
  }
  if (opt.workload_only) {
    /* the workload and every process a task of the tree forked, to a fixed point (parents are not
     * always created before their children in the task array: tids are reused) */
    bd.workload = g_hash_table_new(NULL, NULL);
    g_hash_table_add(bd.workload, GINT_TO_POINTER(opt.workload_pid));
    for (bool grew = true; grew;) {
      grew = false;
      for (rsp_task_id t = 0; t < rsp_model_n_tasks(model); t++) {
        const rsp_task *task = rsp_model_task(model, t);
        int32_t pid = task->pid >= 0 ? task->pid : task->tid;
        if (g_hash_table_contains(bd.workload, GINT_TO_POINTER(pid)) || task->parent == RSP_NO_ID)
          continue;
        const rsp_task *parent = rsp_model_task(model, task->parent);
        int32_t ppid = parent->pid >= 0 ? parent->pid : parent->tid;
        if (g_hash_table_contains(bd.workload, GINT_TO_POINTER(ppid))) {
          g_hash_table_add(bd.workload, GINT_TO_POINTER(pid));
          grew = true;
        }
      }
    }
  }
  rsp_profile_set *set = g_new0(rsp_profile_set, 1);
  set->model = model;
  set->strings = g_string_chunk_new(4096);
  set->profiles = g_ptr_array_new_with_free_func((GDestroyNotify)rsp_profile_free);
  bd.set = set;
  /* equal commands of different pids must be one string (by_command groups by pointer) */
  GHashTableIter ci;
  gpointer ck, cv;
  g_hash_table_iter_init(&ci, bd.pid_comm);
  while (g_hash_table_iter_next(&ci, &ck, &cv))
    g_hash_table_iter_replace(&ci, (gpointer)g_string_chunk_insert_const(set->strings, cv ? cv : ""));
  bd.by_key = g_hash_table_new_full(profile_key_hash, profile_key_equal, NULL, g_free);

  bd.cpu_runs = rsp_model_cpu_runs(model);
  bd.cpu_hint = g_new0(uint32_t, bd.cpu_runs && bd.cpu_runs->n_cpus ? bd.cpu_runs->n_cpus : 1);
  add_tasks(&bd);
  g_free(bd.cpu_hint);
  add_disk_ops(&bd);
  add_net_ops(&bd);

  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, bd.by_key);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    accum *a = value;
    rsp_profile *p = a->profile;
    p->n_instances = a->instances->len;
    p->instances = (rsp_profile_instance *)(void *)g_array_free(a->instances, FALSE);
    rsp_profile_finish(p);
    g_ptr_array_add(set->profiles, p);
  }
  g_ptr_array_sort(set->profiles, by_total_latency);
  g_hash_table_destroy(bd.by_key);
  g_hash_table_destroy(bd.pid_comm);
  if (bd.workload)
    g_hash_table_destroy(bd.workload);
  return set;
}

void rsp_profile_set_free(rsp_profile_set *set)
{
  if (!set)
    return;
  g_ptr_array_free(set->profiles, TRUE);
  g_string_chunk_free(set->strings);
  g_free(set);
}

uint32_t rsp_profile_set_n(const rsp_profile_set *set)
{
  return set->profiles->len;
}

const rsp_profile *rsp_profile_set_get(const rsp_profile_set *set, uint32_t i)
{
  return i < set->profiles->len ? g_ptr_array_index(set->profiles, i) : NULL;
}

const rsp_model *rsp_profile_set_model(const rsp_profile_set *set)
{
  return set->model;
}

const rsp_profile *rsp_profile_set_find(const rsp_profile_set *set, const char *name, const char *process,
                                        int32_t pid)
{
  for (guint i = 0; i < set->profiles->len; i++) {
    const rsp_profile *p = g_ptr_array_index(set->profiles, i);
    if (strcmp(p->name, name) == 0 && strcmp(p->process, process) == 0 && (pid < 0 || p->pid == pid))
      return p;
  }
  return NULL;
}

/* ---- Time-sampled profiles -------------------------------------------------------------------- */

uint64_t rsp_profile_instance_time(const rsp_model *m, const rsp_profile *p, const rsp_profile_instance *in)
{
  switch (p->instance_kind) {
  case RSP_INSTANCE_RUN:
    return in->id < rsp_model_n_runs(m) ? rsp_model_run(m, in->id)->start : 0;
  case RSP_INSTANCE_SLEEP:
    if (in->id >= rsp_model_n_sleeps(m))
      return 0;
    return p->kind == RSP_PROFILE_SCHED_DELAY ? rsp_model_sleep(m, in->id)->wake_time : rsp_model_sleep(m, in->id)->start;
  case RSP_INSTANCE_DISK: {
    if (in->id >= rsp_model_n_disk_ops(m))
      return 0;
    const rsp_disk_op *op = rsp_model_disk_op(m, in->id);
    return p->kind == RSP_PROFILE_DISK_SERVICE ? op->issue_time : op->insert_time;
  }
  case RSP_INSTANCE_NET:
    return in->id < rsp_model_n_net_ops(m) ? rsp_model_net_op(m, in->id)->start : 0;
  }
  return 0;
}

rsp_profile_timeline *rsp_profile_timeline_build(const rsp_model *m, const rsp_profile *p, uint64_t slice_ns)
{
  rsp_profile_timeline *t = g_new0(rsp_profile_timeline, 1);
  t->slice_ns = slice_ns ? slice_ns : 2500000000ull;
  t->start_ns = rsp_model_time_first(m);
  uint64_t last = MAX(rsp_model_time_last(m), t->start_ns);
  t->n_slices = (uint32_t)MIN((last - t->start_ns) / t->slice_ns + 1, 1000000);
  t->min_index = p->min_index;
  t->n_buckets = p->n_buckets;
  t->counts = g_new0(uint64_t, (size_t)t->n_slices * MAX(t->n_buckets, 1));
  for (uint32_t b = 0; b < p->n_buckets; b++)
    for (uint32_t k = 0; k < p->buckets[b].n_instances; k++) {
      uint64_t at = rsp_profile_instance_time(m, p, &p->instances[p->buckets[b].first_instance + k]);
      if (at < t->start_ns)
        at = t->start_ns;
      uint64_t slice = MIN((at - t->start_ns) / t->slice_ns, t->n_slices - 1);
      uint64_t *cell = &t->counts[slice * t->n_buckets + b];
      (*cell)++;
      t->max_count = MAX(t->max_count, *cell);
    }
  return t;
}

void rsp_profile_timeline_free(rsp_profile_timeline *t)
{
  if (!t)
    return;
  g_free(t->counts);
  g_free(t);
}
