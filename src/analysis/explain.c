/* The answer in words (issue 17): the process of interest's wall time told along its control paths,
 * largest first, each number one of the categories table's or of the paths' (a process's running time on
 * them, a function's share of its samples there, a wait element's length):
 *   - how long it took, and how much of it it ran itself;
 *   - its longest wait, and the chain below it: who it waited for, what that one waited in, for whom...;
 *   - the processes that did work for it (their runs on the paths) and the functions they ran in;
 *   - the disk and network time, what was guessed and what ran without symbols;
 *   - the biggest lever: the function with the most running time on the paths (in one process, or in processes of
 *     one name together), or the disk waits at one site when they took longer (an fsync-bound workload), or the
 *     other work on the machine when the paths waited longer for cpus it held (contention), or the waits that timed
 *     out when they took longer than all of those (a sleep in a server's handler), or the network's waits on peers
 *     outside the recording when longer still (a download from a slow server), or the waits a device's interrupt
 *     ended when longer than every other (a sound card's pace).
 * The chain itself is followed in explain-chain.c. */
#include "explain-private.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The least time worth a number: under 0.05 ms, "%.1f ms" says 0.0 */
enum { SAID_NS = 50000 };

static double ms(uint64_t ns)
{
  return (double)ns / 1e6;
}

static double pct(uint64_t part, uint64_t whole)
{
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The function a sample ran in: its innermost user frame (the code the process runs), else the
 * innermost frame; code without symbols is named by its file ("libcrypt.so.1 (no symbols)"), so that its
 * addresses add up to one thing. Returns an interned string (in NAMES for the file-named ones). */
static const char *function_of(const rsp_model *m, rsp_stack_id stack, GStringChunk *names)
{
  rsp_stack_frames f = rsp_model_stack(m, stack);
  const rsp_model_frame *pick = NULL;
  for (uint32_t i = 0; i < f.n && !pick; i++)
    if (!rsp_frame_at(f, i)->kernel && rsp_frame_at(f, i)->function)
      pick = rsp_frame_at(f, i);
  if (!pick && f.n && rsp_frame_at(f, 0)->function)
    pick = rsp_frame_at(f, 0);
  if (!pick)
    return NULL;
  if (g_str_has_prefix(pick->function, "0x") || strcmp(pick->function, "[unknown]") == 0) {
    const char *dso = pick->dso && *pick->dso && strcmp(pick->dso, "[unknown]") ? pick->dso : NULL;
    const char *base = dso ? strrchr(dso, '/') : NULL;
    /* (a JVM's //anon is no file called 'anon': "java [29842]'s anon (no symbols)") */
    char *label = dso && rsp_dso_is_anonymous(dso) ? g_strdup_printf("code in %s (no symbols)", dso)
                                                   : g_strdup_printf("%s (no symbols)", base ? base + 1 : dso ? dso : "unknown code");
    const char *interned = g_string_chunk_insert_const(names, label);
    g_free(label);
    return interned;
  }
  return pick->function;
}

typedef struct fn_time {
  const char *name;
  uint64_t ns;
  uint64_t samples;
} fn_time;

typedef struct proc_work {
  int32_t pid;
  const char *comm;
  const rsp_task *named_by; /* the task it is named by: its main thread's latest generation on the paths */
  uint64_t run_ns;
  uint64_t samples;    /* in its runs on the paths */
  GHashTable *fns;     /* name -> uint64_t ns (boxed in fn_time) */
  GHashTable *threads; /* tid -> its running (rsp_explain_work, pid: the tid) */
} proc_work;

static void proc_work_free(gpointer p)
{
  proc_work *w = p;
  g_hash_table_destroy(w->fns);
  g_hash_table_destroy(w->threads);
  g_free(w);
}

static bool grouped(const rsp_explanation *x, const char *comm)
{
  for (uint32_t i = 0; comm && i < x->n_groups; i++)
    if (strcmp(x->groups[i].comm, comm) == 0)
      return true;
  return false;
}

/* A function's running in processes of one name, summed (the lever of a build: a compiler's parser in every cc1). */
typedef struct fn_lever {
  const char *comm, *function;
  uint64_t ns, top_ns;
  uint32_t n_processes;
  int32_t top_pid;
} fn_lever;

static int by_run(const void *a, const void *b)
{
  const rsp_explain_work *x = a, *y = b;
  if (x->run_ns != y->run_ns)
    return x->run_ns < y->run_ns ? 1 : -1;
  return x->pid != y->pid ? (x->pid > y->pid) - (x->pid < y->pid) : (x->tid > y->tid) - (x->tid < y->tid);
}

uint32_t rsp_explain_top_work(GHashTable *by, rsp_explain_work *out, uint32_t max)
{
  GArray *all = g_array_new(FALSE, FALSE, sizeof(rsp_explain_work));
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init(&it, by);
  while (g_hash_table_iter_next(&it, NULL, &v))
    g_array_append_val(all, *(rsp_explain_work *)v);
  uint32_t n = all->len;
  if (n) { /* an empty GArray's data is NULL: no sort or memcpy of it */
    g_array_sort(all, by_run);
    memcpy(out, all->data, MIN(n, max) * sizeof(rsp_explain_work));
  }
  g_array_free(all, TRUE);
  return n;
}

static void add_function_ns(proc_work *w, const char *fn, uint64_t ns)
{
  fn_time *f = g_hash_table_lookup(w->fns, fn);
  if (!f) {
    f = g_new0(fn_time, 1);
    f->name = fn;
    g_hash_table_insert(w->fns, (gpointer)fn, f);
  }
  f->ns += ns;
  f->samples++;
}

/* The recording's running time per sample of the sample source (~1 ms at rsp-record's 997 Hz), over all runs. */
static double ns_per_sample(const rsp_model *m)
{
  uint64_t run_ns = 0, samples = 0;
  for (rsp_run_id r = 0; r < rsp_model_n_runs(m); r++) {
    const rsp_run *run = rsp_model_run(m, r);
    run_ns += run->end > run->start ? run->end - run->start : 0;
    samples += run->n_samples;
  }
  return samples ? (double)run_ns / (double)samples : 0;
}

/* Each function's share of a process's running on the paths is its share of the samples there, as a sampling
 * profiler counts a sample for a whole period: a run's time split among its own samples leaves the runs shorter
 * than the period out (a pipeline's reader hashing each 64 KB in runs of 150 us: 2449 runs, 368 samples, 264 of
 * them in libcrypto by perf script; the lever said 'libcrypto 49.7 ms, 11% of the wall time'; a cold grep -r's
 * re_search_internal: 15.1 ms for perf's 44 samples). Only where the samples cover the running (at least 5, and
 * half its time at the recording's rate): lost samples are not made up for. */
static void functions_by_share(proc_work *w, double period)
{
  uint64_t samples = w->samples;
  if (samples < 5 || period <= 0 || (double)samples * period < 0.5 * (double)w->run_ns)
    return;
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init(&it, w->fns);
  while (g_hash_table_iter_next(&it, NULL, &v)) {
    fn_time *f = v;
    f->ns = (uint64_t)((double)w->run_ns * (double)f->samples / (double)samples);
  }
}

/* Each process's runs on the paths, with the time of each function its samples there name (its share of the
 * samples, else a run's time on the paths divided equally among its samples: functions_by_share), and each of its
 * threads' running there. */
static GHashTable *work_by_process(const rsp_paths *p, GStringChunk *names)
{
  const rsp_model *m = rsp_paths_model(p);
  GHashTable *procs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, proc_work_free);
  for (rsp_elem_id id = 0; id < rsp_paths_n_elems(p); id++) {
    const rsp_path_elem *e = rsp_paths_elem(p, id);
    if (e->kind != RSP_ELEM_RUN || e->end <= e->start)
      continue;
    const rsp_task *t = rsp_model_task(m, e->task);
    int32_t pid = t->pid >= 0 ? t->pid : t->tid;
    proc_work *w = g_hash_table_lookup(procs, GINT_TO_POINTER(pid));
    if (!w) {
      w = g_new0(proc_work, 1);
      w->pid = pid;
      w->fns = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
      w->threads = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
      g_hash_table_insert(procs, GINT_TO_POINTER(pid), w);
    }
    /* named as the processes' list names it: its main thread's latest exec generation (cc1, not the cc it was
     * forked as), whatever order the paths reached them in */
    if (rsp_task_names_process_better(t, w->named_by)) {
      w->named_by = t;
      w->comm = t->comm;
    }
    uint64_t len = e->end - e->start;
    w->run_ns += len;
    rsp_explain_work *th = g_hash_table_lookup(w->threads, GINT_TO_POINTER(t->tid));
    if (!th) {
      th = g_new0(rsp_explain_work, 1);
      th->pid = t->tid;
      g_hash_table_insert(w->threads, GINT_TO_POINTER(t->tid), th);
    }
    th->comm = t->comm; /* its latest name */
    th->run_ns += len;
    const rsp_run *run = rsp_model_run(m, e->id);
    uint32_t n = 0;
    for (uint32_t k = 0; k < run->n_samples; k++) {
      uint64_t tm = rsp_model_sample(m, run->first_sample + k)->time;
      n += tm >= e->start && tm < e->end + 20000; /* the attach window after the run's end */
    }
    w->samples += n;
    for (uint32_t k = 0; k < run->n_samples && n; k++) {
      const rsp_sample *s = rsp_model_sample(m, run->first_sample + k);
      if (s->time < e->start || s->time >= e->end + 20000)
        continue;
      const char *fn = function_of(m, s->stack, names);
      if (fn)
        add_function_ns(w, fn, len / n);
    }
  }
  double period = ns_per_sample(m);
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init(&it, procs);
  while (g_hash_table_iter_next(&it, NULL, &v))
    functions_by_share(v, period);
  return procs;
}

static const char *name_or(const char *comm);

/* " for tar [2704], which ran 4078.2 ms of it on a cpu and waited 7019.5 ms in 29427 waits, none long (the most in
 * write: 3227.0 ms in 3280): 3349.4 ms of them for the disk, 3039.9 ms until gzip [2705] woke it" (parts over 1%;
 * the two processes that woke the most). */
static void scattered_clause(GString *g, const rsp_explain_hop *h)
{
  if (!h->via_waker) /* (the waker thread was just named) */
    g_string_append_printf(g, " for %s [%d]", name_or(h->comm), h->pid);
  g_string_append_printf(g, ", which ran %.1f ms of it%s and waited %.1f ms in %u waits, none long (the most in %s: "
                         "%.1f ms in %u)", ms(h->ns), h->preempted_ns ? " on a cpu" : "",
                         ms(h->waited_ns), h->n_waits, h->wait_site, ms(h->wait_site_ns), h->wait_site_waits);
  const char *sep = ": ";
  if (100 * h->waits_disk_ns >= h->waited_ns && h->waits_disk_ns) {
    g_string_append_printf(g, "%s%.1f ms of them for the disk", sep, ms(h->waits_disk_ns));
    sep = ", ";
  }
  if (100 * h->waits_net_ns >= h->waited_ns && h->waits_net_ns) {
    g_string_append_printf(g, "%s%.1f ms %sfor the network", sep, ms(h->waits_net_ns), *sep == ':' ? "of them " : "");
    sep = ", ";
  }
  for (uint32_t i = 0; i < h->n_wakers && i < G_N_ELEMENTS(h->wakers); i++) {
    const rsp_explain_work *w = &h->wakers[i];
    if (100 * w->run_ns < h->waited_ns)
      break;
    if (w->tid)
      g_string_append_printf(g, "%s%.1f ms %suntil its thread %s [%d/%d] woke it", sep, ms(w->run_ns),
                             *sep == ':' ? "of them " : "", name_or(w->comm), w->pid, w->tid);
    else
      g_string_append_printf(g, "%s%.1f ms %suntil %s [%d] woke it", sep, ms(w->run_ns),
                             *sep == ':' ? "of them " : "", name_or(w->comm), w->pid);
    sep = ", ";
  }
}

static void say(GPtrArray *s, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void say(GPtrArray *s, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_ptr_array_add(s, g_strdup_vprintf(fmt, ap));
  va_end(ap);
}

static const char *name_or(const char *comm)
{
  return comm && *comm ? comm : "?";
}

typedef struct doer_ns {
  const char *doer;
  uint64_t ns;
} doer_ns;

static int by_doer_ns(const void *a, const void *b)
{
  const doer_ns *x = a, *y = b;
  return x->ns != y->ns ? (x->ns < y->ns ? 1 : -1) : strcmp(x->doer, y->doer);
}

/* pkprof: the kernel work interrupts and kernel threads did for the processes on P's paths (kernel-work.c),
 * beside their own time, with who did the most of it. */
static void kernel_work_sentence(const rsp_paths *p, const rsp_kernel_work *given, GPtrArray *s)
{
  const rsp_model *m = rsp_paths_model(p);
  rsp_kernel_work *own = given ? NULL : rsp_kernel_work_compute(m);
  const rsp_kernel_work *kw = given ? given : own;
  GHashTable *pids = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (uint32_t i = 0; i < rsp_paths_n_tasks(p); i++)
    g_hash_table_add(pids, GINT_TO_POINTER(rsp_model_task(m, rsp_paths_task(p, i))->pid));
  uint32_t n = 0;
  const rsp_kernel_work_source *src = rsp_kernel_work_sources(kw, &n);
  GHashTable *by_doer = g_hash_table_new(g_str_hash, g_str_equal); /* doer -> index + 1 in doers */
  GArray *doers = g_array_new(FALSE, FALSE, sizeof(doer_ns));
  uint64_t total = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!g_hash_table_contains(pids, GINT_TO_POINTER(src[i].pid)))
      continue;
    total += src[i].ns;
    guint k = GPOINTER_TO_UINT(g_hash_table_lookup(by_doer, src[i].doer));
    if (!k) {
      doer_ns d = { src[i].doer, 0 };
      g_array_append_val(doers, d);
      k = doers->len;
      g_hash_table_insert(by_doer, (gpointer)src[i].doer, GUINT_TO_POINTER(k));
    }
    g_array_index(doers, doer_ns, k - 1).ns += src[i].ns;
  }
  if (total >= SAID_NS) {
    if (doers->len)
      g_array_sort(doers, by_doer_ns);
    GString *g = g_string_new(NULL);
    g_string_printf(g, "Interrupts and kernel threads did %.1f ms of work for them beside", ms(total));
    /* the doers whose part says more than '0.0 ms' (many small ones: none named) */
    for (guint i = 0; i < doers->len && i < 3 && g_array_index(doers, doer_ns, i).ns >= SAID_NS; i++)
      g_string_append_printf(g, "%s%s %.1f ms", i ? ", " : " (", g_array_index(doers, doer_ns, i).doer,
                             ms(g_array_index(doers, doer_ns, i).ns));
    if (doers->len && g_array_index(doers, doer_ns, 0).ns >= SAID_NS)
      g_string_append_c(g, ')');
    g_string_append(g, ", not in the paths' time.");
    g_ptr_array_add(s, g_string_free(g, FALSE));
  }
  g_array_free(doers, TRUE);
  g_hash_table_destroy(by_doer);
  g_hash_table_destroy(pids);
  rsp_kernel_work_free(own);
}

/* What ended wait hop H, when nothing under it explains it: its timeouts, and the thread of its own process or the
 * other task that woke it. */
static void ended_clause(GString *g, const rsp_explain_hop *h)
{
  if (h->woken_by_tid <= 0 && !h->timeouts)
    return;
  if (h->timeouts > 1)
    g_string_append_printf(g, ", %u waits in a row that timed out", h->timeouts);
  else if (h->timeouts == 1 && !h->ended_by_timeout)
    g_string_append(g, ", which timed out once");
  else if (h->ended_by_timeout && h->timeouts == 1 && h->woken_by_tid <= 0)
    g_string_append(g, ", which timed out");
  /* a timeout read from a wakeup without a call stack (a timer on an idle cpu, which perf loses) is a guess */
  if (h->timeouts_guessed == h->timeouts && h->timeouts == 1)
    g_string_append(g, " (a guess: its wakeup had no call stack)");
  else if (h->timeouts_guessed == h->timeouts && h->timeouts)
    g_string_append(g, " (a guess: their wakeups had no call stack)");
  else if (h->timeouts_guessed)
    g_string_append_printf(g, " (%u of the timeouts a guess: their wakeups had no call stack)",
                           h->timeouts_guessed);
  if (h->woken_by_tid > 0 && h->woken_over_network && h->woken_by_pid != h->pid)
    g_string_append_printf(g, "%s %s [%d] sent it data over %s", h->timeouts ? " before" : ", until",
                           name_or(h->woken_by_comm), h->woken_by_pid, h->unix_socket ? "a unix socket" : "the network");
  else if (h->woken_by_tid > 0 && h->woken_by_pid == h->pid && h->woken_by_tid == h->woken_by_pid)
    g_string_append_printf(g, "%s its main thread %s [%d] woke it", h->timeouts ? " before" : ", until",
                           name_or(h->woken_by_comm), h->woken_by_pid);
  else if (h->woken_by_tid > 0 && h->woken_by_pid == h->pid)
    g_string_append_printf(g, "%s its thread %s [%d/%d] woke it", h->timeouts ? " before" : ", until",
                           name_or(h->woken_by_comm), h->woken_by_pid, h->woken_by_tid);
  else if (h->woken_by_tid > 0)
    g_string_append_printf(g, "%s %s [%d] %s it", h->timeouts ? " before" : ", until",
                           name_or(h->woken_by_comm), h->woken_by_pid, h->signalled ? "signalled" : "woke");
}

/* NS's share of X's wall time in words ("83% of the wall time"), or, more than it (summed over parallel paths), that it
 * is the paths' tasks' together; in BUF (SIZE bytes). */
static void share_of_wall(const rsp_explanation *x, uint64_t ns, char *buf, size_t size)
{
  if (ns <= x->wall_ns)
    g_snprintf(buf, size, "%.0f%% of the wall time", pct(ns, x->wall_ns));
  else
    g_snprintf(buf, size, "over the paths' tasks together; the wall time is %.1f ms", ms(x->wall_ns));
}

/* A bigger lever of waiting found: the disk's, the other work's and the timers' are not the biggest. */
static void drop_wait_levers(rsp_explanation *x)
{
  x->disk_lever_site = NULL;
  x->disk_lever_ns = x->disk_lever_site_ns = 0;
  x->contention_lever_ns = 0;
  x->timed_out = (rsp_explain_wait_lever){ 0 };
  x->hardware = (rsp_explain_wait_lever){ 0 };
  x->network_lever_ns = 0;
  x->network_peer = NULL;
}

/* Category CAT's waits on the paths (RSP_CAT_TIMED_OUT or RSP_CAT_HARDWARE), NS of them, as X's biggest lever L: the
 * site of WS with the most of them and the task whose waits there had the most (the site's timed_out_task or
 * hardware_task). The other wait levers are dropped. */
static void set_wait_lever(rsp_explanation *x, rsp_explain_wait_lever *l, const rsp_model *m, const rsp_wait_sites *ws,
                           rsp_category cat, uint64_t ns)
{
  drop_wait_levers(x);
  l->ns = ns;
  const rsp_wait_site *top_site = NULL;
  for (uint32_t i = 0; i < rsp_wait_sites_n(ws); i++) {
    const rsp_wait_site *w = rsp_wait_sites_get(ws, i);
    if (w->by_cat[cat] > (top_site ? top_site->by_cat[cat] : 0))
      top_site = w;
  }
  rsp_task_id task = !top_site ? RSP_NO_ID : cat == RSP_CAT_TIMED_OUT ? top_site->timed_out_task
                                                                    : top_site->hardware_task;
  if (task == RSP_NO_ID)
    return;
  const rsp_task *t = rsp_model_task(m, task);
  l->site = g_string_chunk_insert_const(x->names_, top_site->label);
  l->site_ns = MIN(top_site->by_cat[cat], ns); /* (split as the sleeps' own) */
  l->top = (rsp_explain_work){ .pid = t->pid, .tid = t->tid != t->pid ? t->tid : 0, .comm = t->comm };
}

/* The sentence of wait lever L (the waits' NAME, what they mean: WHAT), to S. */
static void say_wait_lever(GPtrArray *s, const rsp_explanation *x, const rsp_explain_wait_lever *l, const char *name,
                           const char *what)
{
  char share[96], site[640] = "";
  share_of_wall(x, l->ns, share, sizeof share);
  char who[64];
  if (l->top.tid) /* (a thread of its own: python's worker thread in time.sleep) */
    g_snprintf(who, sizeof who, "%d/%d", l->top.pid, l->top.tid);
  else
    g_snprintf(who, sizeof who, "%d", l->top.pid);
  if (l->site && l->site[0] != '[')
    g_snprintf(site, sizeof site, ", the most %s [%s]'s in %s (%.1f ms)", name_or(l->top.comm), who, l->site,
               ms(l->site_ns));
  say(s, "The biggest lever: %s, %.1f ms (%s)%s: %s.", name, ms(l->ns), share, site, what);
}

/* The peer outside the recording whose waits on P took the longest (each sleep once, in full), as the histograms name
 * it ("tcp 10.0.0.2:8080"), interned in NAMES; NULL when no such wait knows its operation. */
static const char *top_network_peer(const rsp_paths *p, GStringChunk *names)
{
  const rsp_model *m = rsp_paths_model(p);
  uint32_t n_sleeps = rsp_model_n_sleeps(m);
  bool *seen = g_new0(bool, n_sleeps ? n_sleeps : 1);
  GHashTable *by_peer = g_hash_table_new(g_str_hash, g_str_equal); /* interned label -> ns */
  const char *top = NULL;
  uint64_t top_ns = 0;
  for (rsp_elem_id i = 0; i < rsp_paths_n_elems(p); i++) {
    const rsp_path_elem *e = rsp_paths_elem(p, i);
    for (uint32_t k = 0; e->kind == RSP_ELEM_SLEEP && k < e->n_merged; k++) {
      rsp_sleep_id sid = rsp_paths_elem_sleep(p, i, k);
      if (sid == RSP_NO_ID || seen[sid] || rsp_category_of_sleep(m, sid) != RSP_CAT_NETWORK)
        continue;
      seen[sid] = true;
      const rsp_sleep *sl = rsp_model_sleep(m, sid);
      const rsp_net_op *op = sl->net_op != RSP_NO_ID ? rsp_model_net_op(m, sl->net_op) : NULL;
      if (!op)
        continue;
      char buf[128];
      const char *peer = g_string_chunk_insert_const(names, rsp_net_op_peer(op, buf, sizeof buf));
      uint64_t ns = GPOINTER_TO_SIZE(g_hash_table_lookup(by_peer, peer)) + (sl->end - sl->start);
      g_hash_table_insert(by_peer, (gpointer)peer, GSIZE_TO_POINTER(ns));
      if (ns > top_ns || (ns == top_ns && top && strcmp(peer, top) < 0)) {
        top = peer;
        top_ns = ns;
      }
    }
  }
  g_hash_table_destroy(by_peer);
  g_free(seen);
  return top;
}

rsp_explanation *rsp_explain(const rsp_paths *p, const rsp_categories *c)
{
  return rsp_explain_kwork(p, c, NULL);
}

rsp_explanation *rsp_explain_kwork(const rsp_paths *p, const rsp_categories *c, const rsp_kernel_work *kw)
{
  return rsp_explain_sites(p, c, kw, NULL);
}

rsp_explanation *rsp_explain_sites(const rsp_paths *p, const rsp_categories *c, const rsp_kernel_work *kw,
                                   const rsp_wait_sites *sites)
{
  const rsp_model *m = rsp_paths_model(p);
  rsp_explanation *x = g_new0(rsp_explanation, 1);
  GPtrArray *s = g_ptr_array_new();
  x->pid = rsp_paths_pid(p);
  x->wall_ns = c->wall_ns;
  x->total_ns = c->total_ns;
  const rsp_task *process = rsp_model_process_task(m, x->pid);
  x->comm = process ? process->comm : NULL;

  /* the work done for it, by process, and the functions */
  x->names_ = g_string_chunk_new(256);
  GHashTable *procs = work_by_process(p, x->names_);
  GHashTableIter it;
  gpointer v;
  GArray *work = g_array_new(FALSE, TRUE, sizeof(rsp_explain_work));
  /* a function's time in processes of one name together (make's 148 cc1, each a little of the build): "comm\x01function"
   * -> fn_lever */
  GHashTable *by_name_fn = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_iter_init(&it, procs);
  while (g_hash_table_iter_next(&it, NULL, &v)) {
    proc_work *w = v;
    rsp_explain_work r = { .pid = w->pid, .comm = w->comm, .run_ns = w->run_ns };
    GHashTableIter fi;
    gpointer fv;
    g_hash_table_iter_init(&fi, w->fns);
    while (g_hash_table_iter_next(&fi, NULL, &fv)) {
      fn_time *f = fv;
      if (w->comm && w->comm[0] && w->pid != x->pid) {
        char *key = g_strconcat(w->comm, "\x01", f->name, NULL);
        fn_lever *fl = g_hash_table_lookup(by_name_fn, key);
        if (!fl) {
          fl = g_new0(fn_lever, 1);
          *fl = (fn_lever){ .comm = w->comm, .function = f->name };
          g_hash_table_insert(by_name_fn, key, fl);
        } else {
          g_free(key);
        }
        fl->ns += f->ns;
        fl->n_processes++;
        if (f->ns > fl->top_ns) {
          fl->top_ns = f->ns;
          fl->top_pid = w->pid;
        }
      }
      if (f->ns > r.function_ns || (f->ns == r.function_ns && r.function && strcmp(f->name, r.function) < 0)) {
        r.function = f->name;
        r.function_ns = f->ns;
      }
    }
    g_array_append_val(work, r);
  }
  x->n_work = MIN(work->len, RSP_EXPLAIN_MAX_WORK);
  if (work->len) { /* an empty GArray's data is NULL: no qsort or memcpy of it */
    qsort(work->data, work->len, sizeof(rsp_explain_work), by_run);
    memcpy(x->work, work->data, x->n_work * sizeof(rsp_explain_work));
  }
  /* processes of one name together (the array is sorted: a group's first is its top) */
  GHashTable *by_comm = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
  GArray *groups = g_array_new(FALSE, FALSE, sizeof(rsp_explain_group *));
  for (guint i = 0; i < work->len; i++) {
    const rsp_explain_work *w = &g_array_index(work, rsp_explain_work, i);
    if (w->pid == x->pid || !w->comm || !w->comm[0])
      continue;
    rsp_explain_group *gr = g_hash_table_lookup(by_comm, w->comm);
    if (!gr) {
      gr = g_new0(rsp_explain_group, 1);
      *gr = (rsp_explain_group){ .comm = w->comm, .top_pid = w->pid, .top_ns = w->run_ns };
      g_hash_table_insert(by_comm, (gpointer)w->comm, gr);
      g_array_append_val(groups, gr);
    }
    gr->n_processes++;
    gr->run_ns += w->run_ns;
  }
  for (guint i = 0; i < groups->len; i++) {
    const rsp_explain_group *gr = g_array_index(groups, rsp_explain_group *, i);
    if (gr->n_processes >= 3 && 2 * gr->top_ns < gr->run_ns && x->n_groups < RSP_EXPLAIN_MAX_WORK)
      x->groups[x->n_groups++] = *gr;
  }
  for (uint32_t i = 1; i < x->n_groups; i++) /* by their running, the most first (a few: insertion) */
    for (uint32_t j = i; j > 0 && x->groups[j].run_ns > x->groups[j - 1].run_ns; j--) {
      rsp_explain_group t = x->groups[j];
      x->groups[j] = x->groups[j - 1];
      x->groups[j - 1] = t;
    }
  g_array_free(groups, TRUE);
  g_hash_table_destroy(by_comm);
  /* the biggest lever: the function with the most time on the paths, in one process or in processes of one name
   * together (two or more) */
  for (guint i = 0; i < work->len; i++) {
    const rsp_explain_work *w = &g_array_index(work, rsp_explain_work, i);
    if (w->function && w->function_ns > x->lever.function_ns)
      x->lever = *w;
  }
  x->lever_processes = x->lever.function ? 1 : 0;
  g_hash_table_iter_init(&it, by_name_fn);
  while (g_hash_table_iter_next(&it, NULL, &v)) {
    const fn_lever *fl = v;
    if (fl->n_processes < 2 || fl->ns <= x->lever.function_ns)
      continue;
    x->lever = (rsp_explain_work){ .pid = fl->top_pid, .comm = fl->comm, .function = fl->function,
                                   .function_ns = fl->ns };
    x->lever_processes = fl->n_processes;
  }
  g_hash_table_destroy(by_name_fn);
  g_array_free(work, TRUE);
  /* its own threads' running, the most first, when more than one ran (xz -T2: its two workers did the compressing) */
  const proc_work *own_work = g_hash_table_lookup(procs, GINT_TO_POINTER(x->pid));
  if (own_work && g_hash_table_size(own_work->threads) > 1)
    x->n_threads = rsp_explain_top_work(own_work->threads, x->threads, RSP_EXPLAIN_MAX_THREADS);
  g_hash_table_destroy(procs);
  rsp_explain_chain(p, x);

  /* 1. how long, and how much it ran itself */
  uint64_t own = 0;
  for (uint32_t i = 0; i < x->n_work; i++)
    if (x->work[i].pid == x->pid)
      own = x->work[i].run_ns;
  say(s, "%s [%d] took %.1f ms (wall time); its control paths add up to %.1f ms over %u processes.",
      name_or(x->comm), x->pid, ms(x->wall_ns), ms(c->total_ns), c->n_processes);
  if (own && x->n_threads > 1) {
    GString *g = g_string_new(NULL);
    g_string_printf(g, "It ran %.1f ms itself (%.0f%% of the paths), in its threads ", ms(own), pct(own, c->total_ns));
    for (uint32_t i = 0; i < x->n_threads && i < RSP_EXPLAIN_MAX_THREADS; i++) {
      const rsp_explain_work *w = &x->threads[i];
      if (w->pid == x->pid)
        g_string_append_printf(g, "%s%s [%d] %.1f ms", i ? ", " : "", name_or(w->comm), x->pid, ms(w->run_ns));
      else
        g_string_append_printf(g, "%s%s [%d/%d] %.1f ms", i ? ", " : "", name_or(w->comm), x->pid, w->pid,
                               ms(w->run_ns));
    }
    if (x->n_threads > RSP_EXPLAIN_MAX_THREADS)
      g_string_append_printf(g, " and %u more", x->n_threads - RSP_EXPLAIN_MAX_THREADS);
    g_string_append_c(g, '.');
    g_ptr_array_add(s, g_string_free(g, FALSE));
  } else if (own) {
    say(s, "It ran %.1f ms itself (%.0f%% of the paths).", ms(own), pct(own, c->total_ns));
  }

  /* 2. the longest wait and the chain below it */
  if (x->n_chain) {
    GString *g = g_string_new(NULL);
    const rsp_explain_hop *h0 = &x->chain[0];
    g_string_append(g, "Its longest wait,");
    bool main_thread = h0->tid == x->pid;
    if (!main_thread) /* its main thread did not wait (blocked): the thread that did */
      g_string_append_printf(g, " in its thread %s [%d/%d],", name_or(h0->comm), x->pid, h0->tid);
    g_string_append_printf(g, " %.1f ms (%.0f%% of the wall time", ms(h0->ns), pct(h0->ns, x->wall_ns));
    /* one of many: what that thread waited in all, when the longest is under half of it */
    if (x->first_thread_n_waits > 1 && 2 * h0->ns < x->first_thread_waits_ns)
      g_string_append_printf(g, "; %s waited %.1f ms in %u waits, %.0f%%", main_thread ? "its main thread" : "that thread",
                             ms(x->first_thread_waits_ns), x->first_thread_n_waits,
                             pct(x->first_thread_waits_ns, x->wall_ns));
    g_string_append_printf(g, "), was in %s", h0->site);
    /* nothing under it: what ended it (a thread of its own, another task, its timer) */
    if (x->n_chain == 1 || x->chain[1].via_waker)
      ended_clause(g, h0);
    for (uint32_t i = 1; i < x->n_chain; i++) {
      const rsp_explain_hop *h = &x->chain[i];
      if (h->n_waits) /* many short waits: it ran, and waited here and there */
        scattered_clause(g, h);
      else if (h->via_waker && h->kind == RSP_ELEM_SLEEP) /* the thread just named as the waker */
        g_string_append_printf(g, ", which waited %.1f ms in %s", ms(h->ns), h->site);
      else if (h->via_waker && h->n_threads > 1) /* another process: its threads together */
      {
        g_string_append_printf(g, ", which ran %.1f ms over it in %u threads", ms(h->ns), h->n_threads);
        if (h->preempted_ns >= SAID_NS)
          g_string_append_printf(g, " and was preempted %.1f ms", ms(h->preempted_ns));
      }
      else if (h->via_waker && h->preempted_ns >= SAID_NS)
        g_string_append_printf(g, ", which ran %.1f ms of it on a cpu and was preempted %.1f ms", ms(h->ns),
                               ms(h->preempted_ns));
      else if (h->via_waker)
        g_string_append_printf(g, ", which ran %.1f ms of it", ms(h->ns));
      else if (h->kind == RSP_ELEM_DISK)
        g_string_append_printf(g, ", for the disk (%u:%u, %.1f ms)", h->dev >> 20, h->dev & 0xfffff, ms(h->ns));
      else if (h->kind == RSP_ELEM_NET)
        g_string_append_printf(g, ", for %s (%.1f ms)", h->unix_socket ? "a unix socket" : "the network", ms(h->ns));
      else {
        /* the process that waited or ran; another thread (or threads) of the process the chain is in, named as such
         * (go's link: its goroutines' threads wake each other) */
        char who[160];
        bool same = h->pid == x->chain[i - 1].pid;
        if (same && h->n_threads > 1)
          snprintf(who, sizeof who, "its threads");
        else if (same && h->tid == h->pid)
          snprintf(who, sizeof who, "its main thread %s [%d]", name_or(h->comm), h->pid);
        else if (same && h->tid > 0)
          snprintf(who, sizeof who, "its thread %s [%d/%d]", name_or(h->comm), h->pid, h->tid);
        else
          snprintf(who, sizeof who, "%s [%d]", name_or(h->comm), h->pid);
        if (h->kind == RSP_ELEM_SLEEP) {
          g_string_append_printf(g, " for %s, which waited %.1f ms in %s", who, ms(h->ns), h->site);
        } else if (h->n_threads > 1) {
          g_string_append_printf(g, " for %s, which ran %.1f ms over it in %u threads", who, ms(h->ns), h->n_threads);
          if (h->preempted_ns >= SAID_NS)
            g_string_append_printf(g, " and was preempted %.1f ms", ms(h->preempted_ns));
        } else if (h->preempted_ns) {
          g_string_append_printf(g, " for %s, which ran %.1f ms of it on a cpu and was preempted %.1f ms", who,
                                 ms(h->ns), ms(h->preempted_ns));
        } else {
          g_string_append_printf(g, " for %s, which ran %.1f ms of it", who, ms(h->ns));
        }
      }
      if (h->kind == RSP_ELEM_SLEEP && (i + 1 == x->n_chain || x->chain[i + 1].via_waker))
        ended_clause(g, h);
    }
    g_string_append_c(g, '.');
    g_ptr_array_add(s, g_string_free(g, FALSE));
  }

  /* 3. who did the work: processes, and processes of one name together */
  GString *g = g_string_new(NULL);
  uint32_t named = 0;
  for (uint32_t i = 0, k = 0; (i < x->n_work || k < x->n_groups) && named < 4;) {
    const rsp_explain_work *w = i < x->n_work ? &x->work[i] : NULL;
    const rsp_explain_group *gr = k < x->n_groups ? &x->groups[k] : NULL;
    if (w && (w->pid == x->pid || grouped(x, w->comm))) {
      i++;
      continue;
    }
    const char *sep = named ? ", " : "Work done for it on its paths: ";
    if (gr && (!w || gr->run_ns >= w->run_ns)) {
      k++;
      if (gr->run_ns < c->total_ns / 200)
        break;
      g_string_append_printf(g, "%s%s (%u processes) %.1f ms, the most %s [%d] %.1f ms", sep, gr->comm,
                             gr->n_processes, ms(gr->run_ns), gr->comm, gr->top_pid, ms(gr->top_ns));
      named++;
      continue;
    }
    i++;
    if (w->run_ns < c->total_ns / 200)
      break;
    g_string_append_printf(g, "%s%s [%d] %.1f ms", sep, name_or(w->comm), w->pid, ms(w->run_ns));
    if (w->function)
      g_string_append_printf(g, " (%.1f ms in %s)", ms(w->function_ns), w->function);
    named++;
  }
  if (named) {
    g_string_append_c(g, '.');
    g_ptr_array_add(s, g_string_free(g, FALSE));
  } else {
    g_string_free(g, TRUE);
  }

  /* 4. the categories beyond running, largest first */
  uint32_t n_order;
  const rsp_category *order = rsp_category_table_order(&n_order);
  rsp_category top[RSP_N_CATEGORIES];
  uint32_t n_top = 0;
  for (uint32_t i = 0; i < n_order; i++)
    if (c->ns[order[i]] && order[i] != RSP_CAT_UNDERSTOOD && pct(c->ns[order[i]], c->total_ns) >= 1.0)
      top[n_top++] = order[i];
  for (uint32_t i = 1; i < n_top; i++)
    for (uint32_t j = i; j > 0 && c->ns[top[j]] > c->ns[top[j - 1]]; j--) {
      rsp_category t = top[j];
      top[j] = top[j - 1];
      top[j - 1] = t;
    }
  if (n_top) {
    g = g_string_new("Beside running in understood functions (");
    g_string_append_printf(g, "%.1f ms), the paths' time went to: ", ms(c->ns[RSP_CAT_UNDERSTOOD]));
    for (uint32_t i = 0; i < n_top && i < 4; i++)
      g_string_append_printf(g, "%s%s %.1f ms (%.0f%%)", i ? "; " : "", rsp_category_label(top[i]), ms(c->ns[top[i]]),
                             pct(c->ns[top[i]], c->total_ns));
    g_string_append_c(g, '.');
    g_ptr_array_add(s, g_string_free(g, FALSE));
  }
  /* the disk: its time and the waits it was in */
  uint64_t disk = c->ns[RSP_CAT_BLOCKING_IO] + c->ns[RSP_CAT_IO_QUEUE], timed_out = c->ns[RSP_CAT_TIMED_OUT],
           hardware = c->ns[RSP_CAT_HARDWARE];
  rsp_wait_sites *made = !sites && (disk >= SAID_NS || timed_out >= SAID_NS || hardware >= SAID_NS)
                          ? rsp_wait_sites_compute(p) : NULL;
  const rsp_wait_sites *ws = sites ? sites : made;
  if (disk >= SAID_NS) {
    const rsp_wait_site *top_site = NULL;
    uint64_t top_disk = 0;
    for (uint32_t i = 0; i < rsp_wait_sites_n(ws); i++) {
      const rsp_wait_site *w = rsp_wait_sites_get(ws, i);
      uint64_t d = w->disk_ns;
      if (d > top_disk) {
        top_site = w;
        top_disk = d;
      }
    }
    /* the disk against a function: all its time on the paths (a cold grep -r: 37.2 ms of waits, 29.8 of them in
     * read, against 34.6 ms running in read), told with its site's */
    if (top_site && disk > x->lever.function_ns) {
      x->disk_lever_site = g_string_chunk_insert_const(x->names_, top_site->label);
      x->disk_lever_ns = disk;
      x->disk_lever_site_ns = top_disk;
    }
    /* a site that names no code is told by whose waits they were (a kworker's flush for sync; a cold grep's waits
     * recorded without a stack) */
    const char *owner = NULL;
    if (top_site && top_site->no_code && top_site->disk_task != RSP_NO_ID)
      owner = name_or(rsp_model_task(m, top_site->disk_task)->comm);
    if (top_site)
      say(s, "It waited for the disk %.1f ms (blocking I/O %.1f ms, I/O queue %.1f ms), most in %s%s%s (%.1f ms in %" PRIu64
             " wait%s).", ms(disk), ms(c->ns[RSP_CAT_BLOCKING_IO]), ms(c->ns[RSP_CAT_IO_QUEUE]), top_site->label,
          owner ? " of " : "", owner ? owner : "", ms(top_disk), top_site->count, top_site->count == 1 ? "" : "s");
    else
      say(s, "It waited for the disk %.1f ms (blocking I/O %.1f ms, I/O queue %.1f ms).", ms(disk),
          ms(c->ns[RSP_CAT_BLOCKING_IO]), ms(c->ns[RSP_CAT_IO_QUEUE]));
  }
  /* other work on the machine: the paths' time runnable behind processes off them, against the function and the
   * disk (a sqlite3 fdatasync loop beside a test run: 98.2 ms behind it, 20.2 ms at the disk's top site) */
  uint64_t contention = c->ns[RSP_CAT_CONTENTION];
  if (contention >= SAID_NS && contention > x->lever.function_ns &&
      contention > (x->disk_lever_site ? x->disk_lever_ns : 0)) {
    for (uint32_t i = 0; i < c->n_preemptors; i++) {
      if (c->top_preemptors[i].on_path)
        continue;
      const rsp_task *t = rsp_model_task(m, c->top_preemptors[i].task);
      x->contention_lever_ns = contention;
      x->contention_top = (rsp_explain_work){ .pid = t->pid, .comm = t->comm, .run_ns = c->top_preemptors[i].ns };
      break;
    }
  }
  /* waits that timed out: a timer waited out is no work, and more of it than of anything else is the lever (a client of
   * a server whose handler sleeps 50 ms a request: 1000 ms of timeouts against 5 ms of its busiest function) */
  if (timed_out >= SAID_NS && timed_out > x->lever.function_ns && timed_out > x->disk_lever_ns &&
      timed_out > x->contention_lever_ns)
    set_wait_lever(x, &x->timed_out, m, ws, RSP_CAT_TIMED_OUT, timed_out);
  /* the network: waits on peers outside the recording, when longer than all of those (a download from a slow server:
   * its running is a few milliseconds of copying) */
  uint64_t network = c->ns[RSP_CAT_NETWORK];
  if (network >= SAID_NS && network > x->lever.function_ns && network > x->disk_lever_ns &&
      network > x->contention_lever_ns && network > x->timed_out.ns) {
    drop_wait_levers(x);
    x->network_lever_ns = network;
    x->network_peer = top_network_peer(p, x->names_);
  }
  /* a device's pace: waits an interrupt ended that no disk or network event explains (a sound card's period, a GPU),
   * when longer than all of those */
  if (hardware >= SAID_NS && hardware > x->lever.function_ns && hardware > x->disk_lever_ns &&
      hardware > x->contention_lever_ns && hardware > x->timed_out.ns && hardware > x->network_lever_ns)
    set_wait_lever(x, &x->hardware, m, ws, RSP_CAT_HARDWARE, hardware);
  rsp_wait_sites_free(made);
  if (network >= SAID_NS && !x->network_lever_ns) /* (a curl on loopback: 'It waited on the network 0.0 ms.') */
    say(s, "It waited on the network %.1f ms.", ms(network));
  kernel_work_sentence(p, kw, s);
  /* (under SAID_NS, '0.0 ms' says nothing; the contention lever names one off the paths) */
  if (c->n_preemptors && c->top_preemptors[0].ns >= SAID_NS && !(x->contention_lever_ns && !c->top_preemptors[0].on_path)) {
    const rsp_preemptor *pr = &c->top_preemptors[0];
    const rsp_task *t = rsp_model_task(m, pr->task);
    if (t->pid == x->pid && t->tid != t->pid)
      say(s, "It was preempted most by its own thread %s [%d/%d] (%.1f ms).", name_or(t->comm), t->pid, t->tid,
          ms(pr->ns));
    else
      say(s, "It was preempted most by %s [%d] (%.1f ms, %s).", name_or(t->comm), t->pid, ms(pr->ns),
          pr->on_path ? "a process on its own paths" : "not on its paths: contention");
  }

  /* 5. what is not known */
  if (c->guessed_total_ns >= SAID_NS)
    say(s, "%.1f ms of this is a guess: the trace lost what ended some waits (see the loss notes).",
        ms(c->guessed_total_ns));
  if (c->ns[RSP_CAT_UNKNOWN_STACK]) {
    rsp_unknown_stack_reason worst = 0;
    for (int r = 0; r < RSP_N_UNKNOWN_STACK_REASONS; r++)
      if (c->unknown_stack_ns[r] > c->unknown_stack_ns[worst])
        worst = (rsp_unknown_stack_reason)r;
    say(s, "%.1f ms ran in code without symbols (mostly: %s).", ms(c->ns[RSP_CAT_UNKNOWN_STACK]),
        rsp_unknown_stack_reason_label(worst));
  }
  if (c->ns[RSP_CAT_UNACCOUNTED])
    say(s, "%.1f ms is not accounted for.", ms(c->ns[RSP_CAT_UNACCOUNTED]));

  /* 6. the biggest lever: the other work on the machine, or the disk's waits, when they are more than any function's
   * running, the disk with its top site */
  if (x->network_lever_ns) {
    char share[96], peer[160] = "";
    share_of_wall(x, x->network_lever_ns, share, sizeof share);
    if (x->network_peer)
      g_snprintf(peer, sizeof peer, ", the most on %s", x->network_peer);
    say(s, "The biggest lever: the network, %.1f ms of waits on peers outside the recording (%s)%s.",
        ms(x->network_lever_ns), share, peer);
  } else if (x->timed_out.ns) {
    say_wait_lever(s, x, &x->timed_out, "waits that timed out", "a sleep or a timeout waited out, not work");
  } else if (x->hardware.ns) {
    say_wait_lever(s, x, &x->hardware, "waits a device's interrupt ended (hardware)",
                   "the pace of a device, not of the paths' work");
  } else if (x->contention_lever_ns) {
    char share[96];
    share_of_wall(x, x->contention_lever_ns, share, sizeof share);
    say(s, "The biggest lever: other work on the machine, which held the cpus %.1f ms while tasks of the paths could "
           "have run (%s), the most %s [%d] (%.1f ms).", ms(x->contention_lever_ns), share,
        name_or(x->contention_top.comm), x->contention_top.pid, ms(x->contention_top.run_ns));
  } else if (x->disk_lever_site) {
    /* (a site of waits with no call stack recorded is no place to name) */
    char site[512] = "";
    if (x->disk_lever_site[0] != '[')
      g_snprintf(site, sizeof site, " (%.1f ms of them in %s)", ms(x->disk_lever_site_ns), x->disk_lever_site);
    if (x->disk_lever_ns <= x->wall_ns)
      say(s, "The biggest lever: the disk, %.1f ms of waits%s, %.0f%% of the wall time.", ms(x->disk_lever_ns), site,
          pct(x->disk_lever_ns, x->wall_ns));
    else
      say(s, "The biggest lever: the disk, %.1f ms of waits%s over the paths' processes together (the wall time is "
             "%.1f ms).", ms(x->disk_lever_ns), site, ms(x->wall_ns));
  }
  char procs_of[96];
  if (x->lever_processes > 1)
    g_snprintf(procs_of, sizeof procs_of, "%s (%u processes, the most %d)", name_or(x->lever.comm), x->lever_processes,
               x->lever.pid);
  else
    g_snprintf(procs_of, sizeof procs_of, "%s [%d]", name_or(x->lever.comm), x->lever.pid);
  if ((x->disk_lever_site || x->contention_lever_ns || x->timed_out.ns || x->network_lever_ns || x->hardware.ns) &&
      x->lever.function)
    say(s, "Of the running, the most was %s's %s, %.1f ms.", procs_of, x->lever.function, ms(x->lever.function_ns));
  else if (x->lever.function && x->lever_processes > 1)
    say(s, "The biggest lever: %s's %s, %.1f ms in those processes together (the wall time is %.1f ms).", procs_of,
        x->lever.function, ms(x->lever.function_ns), ms(x->wall_ns));
  else if (x->lever.function && x->lever.function_ns <= x->wall_ns)
    say(s, "The biggest lever: %s's %s, %.1f ms, %.0f%% of the wall time.", procs_of, x->lever.function,
        ms(x->lever.function_ns), pct(x->lever.function_ns, x->wall_ns));
  else if (x->lever.function) /* its threads' time together: no share of the wall time it could save */
    say(s, "The biggest lever: %s's %s, %.1f ms in its threads together (the wall time is %.1f ms).", procs_of,
        x->lever.function, ms(x->lever.function_ns), ms(x->wall_ns));

  g_ptr_array_add(s, NULL);
  x->sentences = (char **)g_ptr_array_free(s, FALSE);
  return x;
}

void rsp_explanation_free(rsp_explanation *x)
{
  if (!x)
    return;
  g_strfreev(x->sentences);
  if (x->names_)
    g_string_chunk_free(x->names_);
  g_free(x);
}
