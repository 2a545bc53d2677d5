/* Kernel work charged to whom it served (reference/pkprof-process-labeled-kernel-profiling.txt): the
 * kernel's asynchronous work (interrupt handlers, softirqs, kernel threads) is charged to the processes
 * that benefit from it. pkprof tags each asynchronous event by its buffer and charges the tag to the
 * process that consumes the buffer; a trace gives the same ties at coarser grain: the block request a
 * completion ended (its issuer), the socket a softirq queued data on (the task it woke, or its owner),
 * and the wakeups and requests of a kernel thread's episode (jbd2 wakes the fsync it committed for).
 * See analysis.h for the rules. */
#include "analysis.h"
#include "reader/zeroed.h"

#include <string.h>

/* What an interrupt or an episode served: a user task, or another kernel thread's episode (whose own
 * beneficiaries then take the share). */
typedef struct ref {
  uint32_t id;
  bool episode;
} ref;

typedef struct share {
  rsp_task_id task;
  double w;
} share;

/* A stretch of charged work at the time it ran, for drawing it in time (rsp_kernel_work_paths_parts): a kernel
 * thread's run of an episode, or an interrupt span. Its shares are those of its episode or span, kept once per
 * episode or span in kw->shares; pieces and shares are flat arrays, nothing allocated per piece. */
typedef struct piece {
  uint64_t start, end;
  uint64_t ns;             /* its own time: a run less the interrupts inside it, a span's self time */
  rsp_run_id run;          /* the run it ran in (the kernel thread's, or the one the interrupt interrupted) */
  const char *doer;        /* interned, as rsp_kernel_work_source's */
  uint32_t first_share, n_shares;
  uint8_t kind;            /* rsp_kernel_work_kind */
} piece;

typedef struct episode {
  rsp_task_id task;
  uint32_t first, n;  /* the kernel thread's runs (task-run indexes) */
  uint64_t ns;        /* their time, less the interrupts that ran inside them (charged on their own) */
  GArray *direct;     /* ref: tasks it woke or issued requests for */
  GArray *requesters; /* ref: who woke its first run */
  GArray *dist;       /* share, once resolved */
  uint8_t state;      /* 0 new, 1 resolving, 2 done */
} episode;

struct rsp_kernel_work {
  const rsp_model *m;
  uint32_t n_tasks;
  uint64_t *task_ns;
  bool *kthread;
  GArray *episodes;        /* episode */
  uint32_t *run_episode;   /* by run id: its episode, RSP_NO_ID for runs of user tasks */
  uint64_t *run_irq_ns;    /* by run id, while computing: the interrupts' own time inside a kernel thread's run */
  GArray *pieces;          /* piece, episodes' runs then interrupt spans */
  GArray *shares;          /* share: the pieces' */
  GArray *rows;            /* rsp_kernel_work_row */
  GArray *sources;         /* rsp_kernel_work_source */
  GHashTable *source_index;/* source_key -> index + 1 */
  GHashTable *span_doers[2];/* an interrupt span's name -> its doer interned ("hardirq NAME", "softirq NAME") */
  GHashTable *row_index;   /* pid -> index + 1 */
  GStringChunk *strings;
  uint64_t total[RSP_N_KWORK], unattributed[RSP_N_KWORK];
};

#define MAX_DEPTH 6 /* kernel threads serving kernel threads serving... */

const char *rsp_kernel_work_key(rsp_kernel_work_kind k)
{
  static const char *const keys[RSP_N_KWORK] = { "hardirq", "softirq", "kthread" };
  return (unsigned)k < RSP_N_KWORK ? keys[k] : "?";
}

static episode *ep_at(rsp_kernel_work *kw, uint32_t i)
{
  return &g_array_index(kw->episodes, episode, i);
}

/* Beyond this many distinct beneficiaries (a kworker that never waits for work and wakes everyone), the
 * others are not added: each share would be tiny, and the dedup below stays cheap. */
#define MAX_REFS 64

static void add_ref(GArray *refs, uint32_t id, bool is_episode)
{
  if (refs->len >= MAX_REFS)
    return;
  for (guint i = 0; i < refs->len; i++) {
    const ref *r = &g_array_index(refs, ref, i);
    if (r->id == id && r->episode == is_episode)
      return;
  }
  ref r = { id, is_episode };
  g_array_append_val(refs, r);
}

/* The episode of kernel thread TASK at TIME: the one of its run covering TIME, else of its last run
 * before (a request it queued from a run just ended). */
static uint32_t episode_at(rsp_kernel_work *kw, rsp_task_id task, uint64_t time)
{
  const rsp_task *t = rsp_model_task(kw->m, task);
  uint32_t lo = 0, hi = t->n_runs;
  while (lo < hi) { /* the first run starting after TIME */
    uint32_t mid = (lo + hi) / 2;
    if (rsp_model_run(kw->m, rsp_model_task_run(kw->m, task, mid))->start <= time)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo ? kw->run_episode[rsp_model_task_run(kw->m, task, lo - 1)] : RSP_NO_ID;
}

/* A task served at TIME (by way of RUN when known: a wakeup's target run). */
static void add_served(rsp_kernel_work *kw, GArray *refs, rsp_task_id task, rsp_run_id run, uint64_t time)
{
  if (task == RSP_NO_ID || task >= kw->n_tasks)
    return;
  if (!kw->kthread[task]) {
    add_ref(refs, task, false);
    return;
  }
  uint32_t e = run != RSP_NO_ID ? kw->run_episode[run] : episode_at(kw, task, time);
  if (e != RSP_NO_ID)
    add_ref(refs, e, true);
}

static bool sleep_continues_episode(const rsp_sleep *s)
{
  /* waits for I/O and preemptions are inside an episode; a wait for work (S, I, unknown) ends it */
  return s->preempted || s->state == 'R' || s->state == 'D' || s->end_cause == RSP_SLEEP_END_PREEMPTED;
}

static void build_episodes(rsp_kernel_work *kw)
{
  const rsp_model *m = kw->m;
  for (rsp_task_id t = 0; t < kw->n_tasks; t++) {
    const rsp_task *task = rsp_model_task(m, t);
    if (!kw->kthread[t] || !task->n_runs)
      continue;
    uint32_t si = 0;
    episode *cur = NULL;
    for (uint32_t i = 0; i < task->n_runs; i++) {
      rsp_run_id rid = rsp_model_task_run(m, t, i);
      const rsp_run *run = rsp_model_run(m, rid);
      if (!cur) {
        episode e = { .task = t, .first = i, .direct = g_array_new(FALSE, FALSE, sizeof(ref)),
                      .requesters = g_array_new(FALSE, FALSE, sizeof(ref)),
                      .dist = g_array_new(FALSE, FALSE, sizeof(share)) };
        g_array_append_val(kw->episodes, e);
        cur = ep_at(kw, kw->episodes->len - 1);
      }
      cur->n++;
      kw->run_episode[rid] = kw->episodes->len - 1;
      /* the sleep after this run, if it comes before the next run */
      while (si < task->n_sleeps && rsp_model_sleep(m, rsp_model_task_sleep(m, t, si))->start < run->start)
        si++;
      const rsp_sleep *s = si < task->n_sleeps ? rsp_model_sleep(m, rsp_model_task_sleep(m, t, si)) : NULL;
      uint64_t next = i + 1 < task->n_runs ? rsp_model_run(m, rsp_model_task_run(m, t, i + 1))->start : UINT64_MAX;
      if (!s || s->start >= next || !sleep_continues_episode(s))
        cur = NULL;
    }
  }
}

/* A kernel thread's run's own time: its length less the interrupts inside it. */
static uint64_t run_own_ns(const rsp_kernel_work *kw, rsp_run_id rid)
{
  const rsp_run *run = rsp_model_run(kw->m, rid);
  uint64_t len = run->end > run->start ? run->end - run->start : 0;
  return len - MIN(len, kw->run_irq_ns[rid]);
}

/* Interrupts that ran inside a kernel thread's run (a softirq it ran when it re-enabled bottom halves, a
 * device's interrupt) are charged as interrupts: not twice, as its episode's time too. Taken off run by run,
 * so that each run of an episode keeps its own time (the flame view draws them where they ran). */
static void remove_nested_interrupts(rsp_kernel_work *kw)
{
  const rsp_model *m = kw->m;
  for (rsp_irq_span_id s = 0; s < rsp_model_n_irq_spans(m); s++) {
    const rsp_irq_span *span = rsp_model_irq_span(m, s);
    if (span->task == RSP_NO_ID || span->task >= kw->n_tasks || !kw->kthread[span->task] || !span->self_ns)
      continue;
    rsp_run_id run = rsp_model_run_at(m, span->task, span->start);
    if (run == RSP_NO_ID || kw->run_episode[run] == RSP_NO_ID)
      continue;
    kw->run_irq_ns[run] += span->self_ns;
  }
  for (uint32_t e = 0; e < kw->episodes->len; e++) {
    episode *ep = ep_at(kw, e);
    for (uint32_t i = 0; i < ep->n; i++)
      ep->ns += run_own_ns(kw, rsp_model_task_run(m, ep->task, ep->first + i));
  }
}

/* The direct beneficiaries and requesters of every episode (after all are built: they refer to each other). */
static void link_episodes(rsp_kernel_work *kw)
{
  const rsp_model *m = kw->m;
  for (uint32_t e = 0; e < kw->episodes->len; e++) {
    episode *ep = ep_at(kw, e);
    for (uint32_t i = 0; i < ep->n; i++) {
      rsp_run_id rid = rsp_model_task_run(m, ep->task, ep->first + i);
      uint32_t n;
      const rsp_link_id *out = rsp_model_run_links_out(m, rid, &n);
      for (uint32_t k = 0; k < n; k++) {
        const rsp_link *l = rsp_model_link(m, out[k]);
        if ((l->kind != RSP_LINK_WAKEUP && l->kind != RSP_LINK_DISK) || l->to_run == RSP_NO_ID)
          continue;
        rsp_task_id to = rsp_model_run(m, l->to_run)->task;
        if (to != ep->task)
          add_served(kw, ep->direct, to, l->to_run, l->time);
      }
    }
    rsp_run_id first = rsp_model_task_run(m, ep->task, ep->first);
    uint32_t n;
    rsp_link_id in = rsp_model_run_links_in(m, first, &n);
    for (uint32_t k = 0; k < n; k++) {
      const rsp_link *l = rsp_model_link(m, in + k);
      if (l->from_run == RSP_NO_ID || l->kind == RSP_LINK_INTERRUPT)
        continue;
      rsp_task_id from = rsp_model_run(m, l->from_run)->task;
      if (from != ep->task)
        add_served(kw, ep->requesters, from, kw->kthread[from] ? l->from_run : RSP_NO_ID, l->time);
    }
  }
  /* requests a kernel thread dispatched for another task (a kworker running the block queue jbd2 filled) */
  for (rsp_disk_op_id o = 0; o < rsp_model_n_disk_ops(m); o++) {
    const rsp_disk_op *op = rsp_model_disk_op(m, o);
    if (op->issue_task == RSP_NO_ID || op->issue_task >= kw->n_tasks || !kw->kthread[op->issue_task] ||
        op->task == op->issue_task)
      continue;
    rsp_run_id run = rsp_model_run_at(m, op->issue_task, op->issue_time);
    if (run == RSP_NO_ID || kw->run_episode[run] == RSP_NO_ID)
      continue;
    rsp_task_id owner = op->task != RSP_NO_ID ? op->task
                        : op->sleep != RSP_NO_ID ? rsp_model_sleep(m, op->sleep)->task : RSP_NO_ID;
    if (owner != RSP_NO_ID && owner != op->issue_task)
      add_served(kw, ep_at(kw, kw->run_episode[run])->direct, owner, RSP_NO_ID, op->insert_time);
  }
}

static const GArray *resolve(rsp_kernel_work *kw, uint32_t e, unsigned depth);

/* Spreads one share evenly over REFS, each episode's share by its own beneficiaries; refs that resolve
 * to nobody drop out. Returns whether anyone was served. */
static bool spread(rsp_kernel_work *kw, const GArray *refs, unsigned depth, GArray *out)
{
  GPtrArray *dists = g_ptr_array_new();
  uint32_t n_ok = 0;
  for (guint i = 0; i < refs->len; i++) {
    const ref *r = &g_array_index(refs, ref, i);
    const GArray *d = r->episode ? resolve(kw, r->id, depth + 1) : NULL;
    g_ptr_array_add(dists, (gpointer)d);
    if (!r->episode || (d && d->len))
      n_ok++;
  }
  for (guint i = 0; i < refs->len && n_ok; i++) {
    const ref *r = &g_array_index(refs, ref, i);
    const GArray *d = g_ptr_array_index(dists, i);
    if (!r->episode) {
      share s = { r->id, 1.0 / n_ok };
      g_array_append_val(out, s);
    } else if (d) {
      for (guint k = 0; k < d->len; k++) {
        share s = g_array_index(d, share, k);
        s.w /= n_ok;
        g_array_append_val(out, s);
      }
    }
  }
  g_ptr_array_free(dists, TRUE);
  return n_ok > 0;
}

static const GArray *resolve(rsp_kernel_work *kw, uint32_t e, unsigned depth)
{
  episode *ep = ep_at(kw, e);
  if (ep->state == 2)
    return ep->dist;
  if (ep->state == 1 || depth > MAX_DEPTH)
    return NULL; /* a cycle, or too deep: nobody from here */
  ep->state = 1;
  GArray *dist = g_array_new(FALSE, FALSE, sizeof(share));
  if (!spread(kw, ep->direct, depth, dist))
    spread(kw, ep->requesters, depth, dist);
  ep = ep_at(kw, e);
  g_array_free(ep->dist, TRUE);
  ep->dist = dist;
  ep->state = 2;
  return ep->dist;
}

static int32_t pid_of(const rsp_model *m, rsp_task_id t)
{
  const rsp_task *task = rsp_model_task(m, t);
  return task->pid >= 0 ? task->pid : task->tid;
}

static rsp_kernel_work_row *row_for(rsp_kernel_work *kw, rsp_task_id t)
{
  int32_t pid = pid_of(kw->m, t);
  guint i = GPOINTER_TO_UINT(g_hash_table_lookup(kw->row_index, GINT_TO_POINTER(pid)));
  if (!i) {
    rsp_kernel_work_row r = { .pid = pid, .comm = rsp_model_task(kw->m, t)->comm };
    g_array_append_val(kw->rows, r);
    i = kw->rows->len;
    g_hash_table_insert(kw->row_index, GINT_TO_POINTER(pid), GUINT_TO_POINTER(i));
  }
  rsp_kernel_work_row *r = &g_array_index(kw->rows, rsp_kernel_work_row, i - 1);
  const rsp_task *task = rsp_model_task(kw->m, t);
  if (task->tid == pid && task->comm && *task->comm)
    r->comm = task->comm;
  return r;
}

/* Keeps DIST as the shares of the pieces to come; returns the first's index. */
static uint32_t keep_shares(rsp_kernel_work *kw, const GArray *dist)
{
  uint32_t first = kw->shares->len;
  if (dist && dist->len)
    g_array_append_vals(kw->shares, dist->data, dist->len);
  return first;
}

static void add_piece(rsp_kernel_work *kw, uint64_t start, uint64_t end, uint64_t ns, rsp_run_id run,
                      const char *doer, rsp_kernel_work_kind kind, uint32_t first_share, const GArray *dist)
{
  if (!dist || !dist->len || !ns)
    return;
  piece p = { start, end, ns, run, doer, first_share, dist->len, (uint8_t)kind };
  g_array_append_val(kw->pieces, p);
}

/* A source's key: its pid and its doer, interned (one pointer per name). */
typedef struct source_key {
  int32_t pid;
  const char *doer;
} source_key;

static guint source_key_hash(gconstpointer p)
{
  const source_key *k = p;
  uint64_t h = ((uint64_t)(uintptr_t)k->doer ^ (uint32_t)k->pid * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
  return (guint)(h ^ (h >> 32));
}

static gboolean source_key_equal(gconstpointer a, gconstpointer b)
{
  const source_key *x = a, *y = b;
  return x->pid == y->pid && x->doer == y->doer;
}

/* Charges NS of the work of DOER (interned in kw->strings) to DIST; returns DOER. (A recorded build's 232k interrupt
 * spans formatted a key per share and a doer per span: 0.6 G of the 1.0 G instructions of this file.) */
static const char *charge(rsp_kernel_work *kw, const GArray *dist, uint64_t ns, rsp_kernel_work_kind kind,
                          const char *interned)
{
  kw->total[kind] += ns;
  if (!dist || !dist->len) {
    kw->unattributed[kind] += ns;
    return interned;
  }
  for (guint i = 0; i < dist->len; i++) {
    const share *s = &g_array_index(dist, share, i);
    uint64_t part = (uint64_t)((double)ns * s->w + 0.5);
    kw->task_ns[s->task] += part;
    rsp_kernel_work_row *r = row_for(kw, s->task);
    r->ns[kind] += part;
    r->total_ns += part;
    if (kind == RSP_KWORK_KTHREAD)
      r->n_episodes += s->w;
    else
      r->n_irqs += s->w;
    source_key key = { r->pid, interned };
    guint j = GPOINTER_TO_UINT(g_hash_table_lookup(kw->source_index, &key));
    if (!j) {
      rsp_kernel_work_source src = { .pid = r->pid, .doer = interned, .kind = (uint8_t)kind };
      g_array_append_val(kw->sources, src);
      j = kw->sources->len;
      g_hash_table_insert(kw->source_index, g_memdup2(&key, sizeof key), GUINT_TO_POINTER(j));
    }
    rsp_kernel_work_source *src = &g_array_index(kw->sources, rsp_kernel_work_source, j - 1);
    src->ns += part;
    src->count += s->w;
  }
  return interned;
}

static void charge_episodes(rsp_kernel_work *kw)
{
  for (uint32_t e = 0; e < kw->episodes->len; e++) {
    const GArray *dist = resolve(kw, e, 0);
    const episode *ep = ep_at(kw, e);
    const char *comm = rsp_model_task(kw->m, ep->task)->comm;
    char doer[64];
    g_strlcpy(doer, comm && *comm ? comm : "kthread", sizeof doer);
    /* kworker/u4:2, ksoftirqd/1: one doer whatever the instance */
    if (g_str_has_prefix(doer, "kworker/") || g_str_has_prefix(doer, "ksoftirqd/"))
      *strchr(doer, '/') = 0;
    const char *who = charge(kw, dist, ep->ns, RSP_KWORK_KTHREAD, g_string_chunk_insert_const(kw->strings, doer));
    uint32_t first_share = keep_shares(kw, dist);
    for (uint32_t i = 0; i < ep->n; i++) {
      rsp_run_id rid = rsp_model_task_run(kw->m, ep->task, ep->first + i);
      const rsp_run *run = rsp_model_run(kw->m, rid);
      add_piece(kw, run->start, run->end, run_own_ns(kw, rid), rid, who, RSP_KWORK_KTHREAD, first_share, dist);
    }
  }
}

/* Each interrupt span's own time to whom its block completions and socket deliveries served. */
static void charge_interrupts(rsp_kernel_work *kw)
{
  const rsp_model *m = kw->m;
  uint32_t n_spans = rsp_model_n_irq_spans(m), n_served = rsp_model_n_irq_served(m);
  uint32_t *first = rsp_new_zeroed(uint32_t, n_spans + 1);
  uint32_t *order = g_new(uint32_t, n_served ? n_served : 1);
  for (uint32_t i = 0; i < n_served; i++)
    first[rsp_model_irq_served(m, i)->span + 1]++;
  for (uint32_t s = 0; s < n_spans; s++)
    first[s + 1] += first[s];
  uint32_t *fill = g_memdup2(first, sizeof(uint32_t) * (n_spans + 1));
  for (uint32_t i = 0; i < n_served; i++)
    order[fill[rsp_model_irq_served(m, i)->span]++] = i;
  g_free(fill);
  GArray *refs = g_array_new(FALSE, FALSE, sizeof(ref));
  GArray *dist = g_array_new(FALSE, FALSE, sizeof(share));
  for (uint32_t s = 0; s < n_spans; s++) {
    const rsp_irq_span *span = rsp_model_irq_span(m, s);
    g_array_set_size(refs, 0);
    g_array_set_size(dist, 0);
    bool socket = false, woke = false;
    for (uint32_t k = first[s]; k < first[s + 1]; k++) {
      const rsp_irq_served *sv = rsp_model_irq_served(m, order[k]);
      if (sv->kind == RSP_IRQ_SERVED_DISK) {
        const rsp_disk_op *op = rsp_model_disk_op(m, sv->id);
        rsp_task_id owner = op->task != RSP_NO_ID ? op->task
                            : op->sleep != RSP_NO_ID ? rsp_model_sleep(m, op->sleep)->task : RSP_NO_ID;
        add_served(kw, refs, owner, RSP_NO_ID, op->insert_time);
      } else if (sv->kind == RSP_IRQ_SERVED_SOCKET) {
        socket = true;
      }
    }
    if (socket) {
      /* the tasks the delivery woke are its readers; with none woken, the socket's owner */
      for (uint32_t k = first[s]; k < first[s + 1]; k++) {
        const rsp_irq_served *sv = rsp_model_irq_served(m, order[k]);
        if (sv->kind == RSP_IRQ_SERVED_WAKEUP && sv->id < kw->n_tasks && !kw->kthread[sv->id]) {
          add_ref(refs, sv->id, false);
          woke = true;
        }
      }
      for (uint32_t k = first[s]; k < first[s + 1] && !woke; k++) {
        const rsp_irq_served *sv = rsp_model_irq_served(m, order[k]);
        if (sv->kind == RSP_IRQ_SERVED_SOCKET)
          add_served(kw, refs, rsp_model_socket_owner(m, sv->sk, sv->time), RSP_NO_ID, sv->time);
      }
    }
    spread(kw, refs, 0, dist);
    bool hard = span->kind == RSP_IRQ_HARDIRQ;
    const char *doer = g_hash_table_lookup(kw->span_doers[hard], span->name); /* (the model interns names) */
    if (!doer) {
      char text[96];
      g_snprintf(text, sizeof text, "%s %s", hard ? "hardirq" : "softirq", span->name);
      doer = g_string_chunk_insert_const(kw->strings, text);
      g_hash_table_insert(kw->span_doers[hard], (gpointer)span->name, (gpointer)doer);
    }
    rsp_kernel_work_kind kind = hard ? RSP_KWORK_HARDIRQ : RSP_KWORK_SOFTIRQ;
    const char *who = charge(kw, dist, span->self_ns, kind, doer);
    rsp_run_id in = span->task != RSP_NO_ID && span->task < kw->n_tasks ? rsp_model_run_at(m, span->task, span->start)
                                                                       : RSP_NO_ID;
    add_piece(kw, span->start, span->end, span->self_ns, in, who, kind, keep_shares(kw, dist), dist);
  }
  g_array_free(refs, TRUE);
  g_array_free(dist, TRUE);
  g_free(first);
  g_free(order);
}

static int row_by_total(const void *a, const void *b)
{
  const rsp_kernel_work_row *x = a, *y = b;
  if (x->total_ns != y->total_ns)
    return x->total_ns < y->total_ns ? 1 : -1;
  return (x->pid > y->pid) - (x->pid < y->pid);
}

static int source_by_ns(const void *a, const void *b)
{
  const rsp_kernel_work_source *x = a, *y = b;
  if (x->pid != y->pid)
    return (x->pid > y->pid) - (x->pid < y->pid);
  if (x->ns != y->ns)
    return x->ns < y->ns ? 1 : -1;
  return strcmp(x->doer, y->doer);
}

rsp_kernel_work *rsp_kernel_work_compute(const rsp_model *m)
{
  rsp_kernel_work *kw = g_new0(rsp_kernel_work, 1);
  kw->m = m;
  kw->n_tasks = rsp_model_n_tasks(m);
  kw->task_ns = g_new0(uint64_t, kw->n_tasks ? kw->n_tasks : 1);
  kw->kthread = g_new0(bool, kw->n_tasks ? kw->n_tasks : 1);
  for (rsp_task_id t = 0; t < kw->n_tasks; t++)
    kw->kthread[t] = rsp_task_is_kernel_thread(m, t);
  kw->episodes = g_array_new(FALSE, TRUE, sizeof(episode));
  uint32_t n_runs = rsp_model_n_runs(m);
  kw->run_episode = g_new(uint32_t, n_runs ? n_runs : 1);
  memset(kw->run_episode, 0xff, sizeof(uint32_t) * (n_runs ? n_runs : 1));
  kw->run_irq_ns = g_new0(uint64_t, n_runs ? n_runs : 1);
  kw->pieces = g_array_new(FALSE, FALSE, sizeof(piece));
  kw->shares = g_array_new(FALSE, FALSE, sizeof(share));
  kw->rows = g_array_new(FALSE, TRUE, sizeof(rsp_kernel_work_row));
  kw->sources = g_array_new(FALSE, TRUE, sizeof(rsp_kernel_work_source));
  kw->source_index = g_hash_table_new_full(source_key_hash, source_key_equal, g_free, NULL);
  for (int h = 0; h < 2; h++)
    kw->span_doers[h] = g_hash_table_new(g_direct_hash, g_direct_equal);
  kw->row_index = g_hash_table_new(g_direct_hash, g_direct_equal);
  kw->strings = g_string_chunk_new(1024);
  build_episodes(kw);
  remove_nested_interrupts(kw);
  link_episodes(kw);
  charge_episodes(kw);
  charge_interrupts(kw);
  g_free(kw->run_irq_ns);
  kw->run_irq_ns = NULL;
  if (kw->rows->len) /* an empty GArray's data is NULL */
    qsort(kw->rows->data, kw->rows->len, sizeof(rsp_kernel_work_row), row_by_total);
  g_hash_table_remove_all(kw->row_index);
  for (guint i = 0; i < kw->rows->len; i++)
    g_hash_table_insert(kw->row_index, GINT_TO_POINTER(g_array_index(kw->rows, rsp_kernel_work_row, i).pid),
                        GUINT_TO_POINTER(i + 1));
  g_hash_table_destroy(kw->source_index);
  kw->source_index = NULL;
  for (int h = 0; h < 2; h++)
    g_hash_table_destroy(kw->span_doers[h]);
  if (kw->sources->len) /* an empty GArray's data is NULL */
    qsort(kw->sources->data, kw->sources->len, sizeof(rsp_kernel_work_source), source_by_ns);
  return kw;
}

void rsp_kernel_work_free(rsp_kernel_work *kw)
{
  if (!kw)
    return;
  for (guint i = 0; i < kw->episodes->len; i++) {
    episode *ep = ep_at(kw, i);
    g_array_free(ep->direct, TRUE);
    g_array_free(ep->requesters, TRUE);
    g_array_free(ep->dist, TRUE);
  }
  g_array_free(kw->episodes, TRUE);
  g_free(kw->run_episode);
  g_array_free(kw->pieces, TRUE);
  g_array_free(kw->shares, TRUE);
  g_free(kw->task_ns);
  g_free(kw->kthread);
  g_array_free(kw->rows, TRUE);
  g_array_free(kw->sources, TRUE);
  g_hash_table_destroy(kw->row_index);
  g_string_chunk_free(kw->strings);
  g_free(kw);
}

const rsp_kernel_work_row *rsp_kernel_work_rows(const rsp_kernel_work *kw, uint32_t *n)
{
  *n = kw->rows->len;
  return (const rsp_kernel_work_row *)(const void *)kw->rows->data;
}

uint64_t rsp_kernel_work_paths_ns(const rsp_kernel_work *kw, const rsp_paths *paths)
{
  const rsp_model *m = rsp_paths_model(paths);
  GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
  uint64_t total = 0;
  for (uint32_t i = 0; i < rsp_paths_n_tasks(paths); i++) {
    int32_t pid = rsp_model_task(m, rsp_paths_task(paths, i))->pid;
    const rsp_kernel_work_row *r = g_hash_table_add(seen, GINT_TO_POINTER(pid)) ? rsp_kernel_work_for_pid(kw, pid)
                                                                                 : NULL;
    total += r ? r->total_ns : 0;
  }
  g_hash_table_destroy(seen);
  return total;
}

const rsp_kernel_work_row *rsp_kernel_work_for_pid(const rsp_kernel_work *kw, int32_t pid)
{
  guint i = GPOINTER_TO_UINT(g_hash_table_lookup(kw->row_index, GINT_TO_POINTER(pid)));
  return i ? &g_array_index(kw->rows, rsp_kernel_work_row, i - 1) : NULL;
}

uint64_t rsp_kernel_work_task_ns(const rsp_kernel_work *kw, rsp_task_id task)
{
  return task < kw->n_tasks ? kw->task_ns[task] : 0;
}

const rsp_kernel_work_source *rsp_kernel_work_sources(const rsp_kernel_work *kw, uint32_t *n)
{
  *n = kw->sources->len;
  return (const rsp_kernel_work_source *)(const void *)kw->sources->data;
}

uint64_t rsp_kernel_work_unattributed_ns(const rsp_kernel_work *kw, rsp_kernel_work_kind kind)
{
  return (unsigned)kind < RSP_N_KWORK ? kw->unattributed[kind] : 0;
}

uint64_t rsp_kernel_work_total_ns(const rsp_kernel_work *kw, rsp_kernel_work_kind kind)
{
  return (unsigned)kind < RSP_N_KWORK ? kw->total[kind] : 0;
}

/* Work already on the paths is not drawn twice: a kernel thread's run that woke a task of the paths (jbd2's commit
 * ending an fsync, the kworker ending a writeback wait) is an element of the paths, drawn there with its own frames
 * and counted in their widths; an interrupt that ran inside a run on the paths (the loopback softirq in the sending
 * process's run) is inside that run's width. What the paths draw of a piece's time is therefore given apart
 * (on_path_ns), and NS is the rest: the work no frame of the paths shows. */
typedef struct drawn_run {
  rsp_run_id run;
  uint64_t start, end;
} drawn_run;

static int drawn_cmp(const void *a, const void *b)
{
  const drawn_run *x = a, *y = b;
  if (x->run != y->run)
    return x->run < y->run ? -1 : 1;
  return (x->start > y->start) - (x->start < y->start);
}

/* How much of [A, B) of RUN the paths draw: a run may be drawn in pieces (a waker's run cut at the sleep's start,
 * its earlier part a path of its own), or inside a merged poll sleep it is folded into. DRAWN: the paths' run
 * elements sorted by run. */
static uint64_t drawn_ns(const rsp_paths *paths, const drawn_run *drawn, uint32_t n, rsp_run_id run, uint64_t a,
                         uint64_t b)
{
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (drawn[mid].run < run)
      lo = mid + 1;
    else
      hi = mid;
  }
  uint64_t sum = 0;
  for (uint32_t i = lo; i < n && drawn[i].run == run; i++) {
    uint64_t x = MAX(a, drawn[i].start), y = MIN(b, drawn[i].end);
    sum += y > x ? y - x : 0;
  }
  rsp_elem_id el = rsp_paths_run_elem(paths, run);
  if (el != RSP_NO_ID && rsp_paths_elem(paths, el)->kind == RSP_ELEM_SLEEP) {
    const rsp_path_elem *e = rsp_paths_elem(paths, el);
    uint64_t x = MAX(a, e->start), y = MIN(b, e->end);
    sum += y > x ? y - x : 0;
  }
  return MIN(sum, b - a);
}

void rsp_kernel_work_paths_parts(const rsp_kernel_work *kw, const rsp_paths *paths, uint64_t t0, uint64_t t1,
                                 rsp_kernel_work_part_fn fn, void *data)
{
  const rsp_model *m = rsp_paths_model(paths);
  if (m != kw->m)
    return;
  if (t1 <= t0)
    t1 = UINT64_MAX;
  GHashTable *pids = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (uint32_t i = 0; i < rsp_paths_n_tasks(paths); i++) /* as rsp_kernel_work_paths_ns counts them */
    g_hash_table_add(pids, GINT_TO_POINTER(rsp_model_task(m, rsp_paths_task(paths, i))->pid));
  GArray *drawn = g_array_new(FALSE, FALSE, sizeof(drawn_run));
  for (rsp_elem_id i = 0; i < rsp_paths_n_elems(paths); i++) {
    const rsp_path_elem *e = rsp_paths_elem(paths, i);
    if (e->kind == RSP_ELEM_RUN) {
      drawn_run d = { e->id, e->start, e->end };
      g_array_append_val(drawn, d);
    }
  }
  if (drawn->len) /* an empty GArray's data is NULL */
    qsort(drawn->data, drawn->len, sizeof(drawn_run), drawn_cmp);
  const drawn_run *dr = (const drawn_run *)(const void *)drawn->data;
  for (guint k = 0; k < kw->pieces->len; k++) {
    const piece *p = &g_array_index(kw->pieces, piece, k);
    uint64_t a = MAX(p->start, t0), b = MIN(p->end, t1);
    double in_window, on_path = 0;
    if (p->end > p->start) {
      if (b <= a)
        continue;
      in_window = (double)(b - a) / (double)(p->end - p->start);
      if (p->run != RSP_NO_ID)
        on_path = (double)drawn_ns(paths, dr, drawn->len, p->run, a, b) / (double)(p->end - p->start);
    } else {
      if (p->start < t0 || p->start >= t1)
        continue;
      in_window = 1;
      on_path = p->run != RSP_NO_ID && rsp_paths_run_elem(paths, p->run) != RSP_NO_ID ? 1 : 0;
    }
    for (uint32_t i = 0; i < p->n_shares; i++) {
      const share *s = &g_array_index(kw->shares, share, p->first_share + i);
      int32_t pid = pid_of(m, s->task);
      if (!g_hash_table_contains(pids, GINT_TO_POINTER(pid)))
        continue;
      const rsp_kernel_work_row *row = rsp_kernel_work_for_pid(kw, pid);
      double ns = (double)p->ns * s->w;
      rsp_kernel_work_part part = { .pid = pid, .comm = row ? row->comm : rsp_model_task(m, s->task)->comm,
                                    .doer = p->doer, .kind = p->kind, .start = a, .end = p->end > p->start ? b : a,
                                    .ns = ns * (in_window - on_path), .on_path_ns = ns * on_path };
      fn(&part, data);
    }
  }
  g_hash_table_destroy(pids);
  g_array_free(drawn, TRUE);
}
