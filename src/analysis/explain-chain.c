/* The chain under the process of interest's longest wait, for the explanation (explain.c): at each wait, the process
 * whose elements below it take the most time, down to the process that ran, a process whose waits were many and
 * short, or a disk or network operation; through the thread of the process that ended a wait nothing under it
 * explains; what ended the first wait when the chain stops at it. */
#include "explain-private.h"

#include <string.h>

/* What a sleep waited in: the innermost user function of its stack (else a kernel one). A user frame no symbol names
 * (a stripped go binary's runtime.futex: 0x46a160) says less than the kernel's: that one, with the binary. */
static const char *site_of(const rsp_model *m, const rsp_path_elem *e, GStringChunk *names)
{
  const rsp_sleep *s = rsp_model_sleep(m, e->id);
  char buf[512];
  const char *site = rsp_model_wait_site(m, s->stack, false, buf, sizeof buf);
  if (!site)
    return s->before_start ? "a wait begun before the recording" : "an unknown place";
  return site == buf ? g_string_chunk_insert_const(names, buf) : site;
}

static bool blocked(const rsp_model *m, const rsp_path_elem *e)
{
  if (e->kind != RSP_ELEM_SLEEP)
    return false;
  const rsp_sleep *s = rsp_model_sleep(m, e->id);
  return !s->preempted && s->end_cause != RSP_SLEEP_END_PREEMPTED;
}

static int32_t pid_of(const rsp_task *t)
{
  return t->pid >= 0 ? t->pid : t->tid;
}

/* The task whose run woke sleep element ID's last sleep (a recorded wakeup by a run), or sent the network data that
 * ended it (*NET set: curl's poll for the answer of a server whose work is a path of its own), else NULL. */
static const rsp_task *waker_task(const rsp_paths *p, rsp_elem_id id, const rsp_path_elem *e, bool *net)
{
  const rsp_model *m = rsp_paths_model(p);
  rsp_sleep_id last = rsp_paths_elem_sleep(p, id, e->n_merged ? e->n_merged - 1 : 0);
  if (net)
    *net = false;
  if (last == RSP_NO_ID)
    return NULL;
  const rsp_sleep *sl = rsp_model_sleep(m, last);
  if (sl->end_cause == RSP_SLEEP_END_NETWORK) {
    /* the peer's run that sent the data, on loopback or a unix socket (the network link itself runs from the request's
     * sender) */
    rsp_run_id r = rsp_paths_elem_ender(p, id);
    if (r == RSP_NO_ID || r >= rsp_model_n_runs(m))
      return NULL;
    if (net)
      *net = true;
    return rsp_model_task(m, rsp_model_run(m, r)->task);
  }
  if ((sl->end_cause != RSP_SLEEP_END_WOKEN && sl->end_cause != RSP_SLEEP_END_SIGNAL) || sl->wake_link == RSP_NO_ID ||
      sl->wake_link >= rsp_model_n_links(m))
    return NULL;
  const rsp_link *l = rsp_model_link(m, sl->wake_link);
  /* (a thread's exit that woke the pthread_join of it is filed as an exit -> wait link) */
  if ((l->kind != RSP_LINK_WAKEUP && l->kind != RSP_LINK_EXIT_WAIT) || l->from_run == RSP_NO_ID ||
      l->from_run >= rsp_model_n_runs(m))
    return NULL;
  return rsp_model_task(m, rsp_model_run(m, l->from_run)->task);
}

/* For a wait nothing under it explains (the chain stops at it): what ended it. Its last merged sleep's waker, and
 * how many of its sleeps timed out (a poll: xz -T2's main thread waits in 300 ms timeouts until a thread wakes it). */
static void note_end(const rsp_paths *p, rsp_elem_id id, rsp_explain_hop *h)
{
  const rsp_model *m = rsp_paths_model(p);
  const rsp_path_elem *e = rsp_paths_elem(p, id);
  rsp_sleep_id last = RSP_NO_ID;
  for (uint32_t i = 0; i < e->n_merged; i++) {
    last = rsp_paths_elem_sleep(p, id, i);
    const rsp_sleep *s = rsp_model_sleep(m, last);
    h->timeouts += s->end_cause == RSP_SLEEP_END_TIMEOUT;
    h->timeouts_guessed += s->end_cause == RSP_SLEEP_END_TIMEOUT && s->end_inferred;
  }
  if (last == RSP_NO_ID)
    return;
  h->ended_by_timeout = rsp_model_sleep(m, last)->end_cause == RSP_SLEEP_END_TIMEOUT;
  bool net = false;
  const rsp_task *t = waker_task(p, id, e, &net);
  if (!t || t == rsp_model_task(m, e->task))
    return;
  const rsp_sleep *ls = rsp_model_sleep(m, last);
  h->woken_over_network = net;
  h->signalled = ls->end_cause == RSP_SLEEP_END_SIGNAL;
  h->unix_socket = net && ls->net_op != RSP_NO_ID && rsp_net_op_is_unix(rsp_model_net_op(m, ls->net_op));
  h->woken_by_pid = pid_of(t);
  h->woken_by_tid = t->tid;
  h->woken_by_comm = t->comm;
}

/* What wait ID had under it: its disk and network time (at most its length each); else the process that woke it. */
static void under_wait(const rsp_paths *p, rsp_elem_id id, rsp_explain_hop *h, GHashTable *wakers)
{
  const rsp_path_elem *w = rsp_paths_elem(p, id);
  uint32_t n;
  const rsp_elem_id *kids = rsp_paths_children(p, id, &n);
  uint64_t disk = 0, net = 0, len = w->end - w->start;
  for (uint32_t k = 0; k < n; k++) {
    const rsp_path_elem *c = rsp_paths_elem(p, kids[k]);
    uint64_t a = MAX(c->start, w->start), b = MIN(c->end, w->end), part = b > a ? b - a : 0;
    if (c->kind == RSP_ELEM_DISK)
      disk += part;
    else if (c->kind == RSP_ELEM_NET)
      net += part;
  }
  h->waits_disk_ns += MIN(disk, len);
  h->waits_net_ns += MIN(net, len);
  if (disk || net)
    return;
  const rsp_model *m = rsp_paths_model(p);
  const rsp_task *t = waker_task(p, id, w, NULL);
  int32_t pid = t ? pid_of(t) : -1;
  const rsp_task *self = rsp_model_task(m, w->task);
  if (pid < 0 || t->tid == self->tid)
    return;
  /* another thread of its own process: by thread (two threads taking turns on a lock) */
  int32_t tid = pid == pid_of(self) ? t->tid : 0;
  gpointer key = GINT_TO_POINTER(tid ? -tid : pid);
  rsp_explain_work *o = g_hash_table_lookup(wakers, key);
  if (!o) {
    o = g_new0(rsp_explain_work, 1);
    o->pid = pid;
    o->tid = tid;
    g_hash_table_insert(wakers, key, o);
  }
  if (!o->comm || t->tid == pid || tid)
    o->comm = t->comm;
  o->run_ns += len;
}

/* H's blocked waits among the N elements KIDS of process PID, the wait site with the most time in them, what they had
 * under them, and who woke the others. */
static void scattered_waits(const rsp_paths *p, const rsp_elem_id *kids, uint32_t n, int32_t pid, rsp_explain_hop *h,
                            GStringChunk *names)
{
  const rsp_model *m = rsp_paths_model(p);
  GHashTable *sites = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free); /* site -> {ns, count} */
  GHashTable *others = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free); /* waker pid -> ns */
  for (uint32_t k = 0; k < n; k++) {
    const rsp_path_elem *c = rsp_paths_elem(p, kids[k]);
    if (!blocked(m, c) || pid_of(rsp_model_task(m, c->task)) != pid)
      continue;
    const char *site = site_of(m, c, names);
    uint64_t *acc = g_hash_table_lookup(sites, site);
    if (!acc) {
      acc = g_new0(uint64_t, 2);
      g_hash_table_insert(sites, (gpointer)site, acc);
    }
    acc[0] += c->end - c->start;
    acc[1]++;
    h->waited_ns += c->end - c->start;
    h->n_waits++;
    if (acc[0] > h->wait_site_ns || (acc[0] == h->wait_site_ns && strcmp(site, h->wait_site) < 0)) {
      h->wait_site = site;
      h->wait_site_ns = acc[0];
      h->wait_site_waits = (uint32_t)acc[1];
    }
    under_wait(p, kids[k], h, others);
  }
  h->n_wakers = rsp_explain_top_work(others, h->wakers, G_N_ELEMENTS(h->wakers));
  g_hash_table_destroy(others);
  g_hash_table_destroy(sites);
}

/* A process's (or a thread's) elements over a wait: running, preempted, waiting (blocked sleeps), its longest wait. */
typedef struct tally {
  uint64_t run, preempted, waited, longest;
  rsp_elem_id wait; /* the longest wait (RSP_NO_ID: none) */
} tally;

static void tally_add(const rsp_model *m, tally *t, rsp_elem_id id, const rsp_path_elem *c, uint64_t len)
{
  if (blocked(m, c)) {
    t->waited += len;
    if (len > t->longest) {
      t->longest = len;
      t->wait = id;
    }
  } else if (c->kind == RSP_ELEM_SLEEP) {
    t->preempted += len;
  } else {
    t->run += len;
  }
}

/* Its waits are many and short: more waiting than running, the longest under a quarter of the waits (following that
 * one would name a small part as the cause: tar under its shell's wait4, 6.6 s of waits, the longest 58 ms). */
static bool tally_scattered(const tally *t)
{
  return t->waited > t->run + t->preempted && t->wait != RSP_NO_ID && 4 * t->longest < t->waited;
}

/* Its waits are short, and they are a part worth saying of LEN (a quarter): two threads taking turns on a lock wait
 * about as long as they run. */
static bool tally_short_waits(const tally *t, uint64_t len)
{
  return t->wait != RSP_NO_ID && 4 * t->longest < t->waited && 4 * t->waited >= len;
}

/* The chain ends with it: it ran (with its preemptions) at least as long as it waited, had no wait, or its waits were
 * scattered; else it goes on from its longest wait. */
static bool tally_ends(const tally *t)
{
  return t->run + t->preempted >= t->waited || t->wait == RSP_NO_ID || tally_scattered(t);
}

/* The chain under the process of interest's longest wait: at each wait, the process whose elements
 * below it take the most time; when that one mostly ran (runs, and preemptions that interrupted them),
 * the chain ends there; else it goes on through its longest wait. A disk or network operation longer
 * than any process's part ends it too. */
/* How much of a time span a process's threads covered, on a cpu or waiting for one (model_over). */
typedef struct cover {
  uint64_t busy;    /* at least one of its threads was running or preempted */
  uint64_t present; /* its first run's start to its last run's end, within the span */
} cover;

static uint32_t model_over(const rsp_model *m, int32_t pid, int32_t tid, uint64_t lo, uint64_t hi, tally *t,
                           cover *cov);

/* A process of many threads is busy as a whole while one of them runs, whatever its idle threads wait (go's link: its
 * sysmon thread sleeps in nanosleep while the others work): so for half the time it was there. */
static bool busy_whole(const cover *c)
{
  return c->present && 2 * c->busy >= c->present;
}

static void chain_from(const rsp_paths *p, rsp_explanation *x, rsp_elem_id cur)
{
  const rsp_model *m = rsp_paths_model(p);
  while (cur != RSP_NO_ID && x->n_chain < RSP_EXPLAIN_MAX_CHAIN) {
    const rsp_path_elem *e = rsp_paths_elem(p, cur);
    const rsp_task *t = rsp_model_task(m, e->task);
    x->chain[x->n_chain++] = (rsp_explain_hop){ .pid = pid_of(t), .tid = t->tid, .comm = t->comm,
                                                .kind = RSP_ELEM_SLEEP, .site = site_of(m, e, x->names_),
                                                .ns = e->end - e->start, .start = e->start, .end = e->end,
                                                .elem_ = cur };
    uint32_t n;
    const rsp_elem_id *kids = rsp_paths_children(p, cur, &n);
    /* per process below: running (runs and preemptions), waiting (blocked sleeps), its longest wait */
    GHashTable *by = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    uint64_t best_total = 0, best_op = 0;
    int32_t best_pid = -1;
    rsp_elem_id op = RSP_NO_ID;
    for (uint32_t k = 0; k < n; k++) {
      const rsp_path_elem *c = rsp_paths_elem(p, kids[k]);
      uint64_t len = c->end - c->start;
      if (c->kind == RSP_ELEM_DISK || c->kind == RSP_ELEM_NET) {
        if (len > best_op) {
          best_op = len;
          op = kids[k];
        }
        continue;
      }
      int32_t pid = pid_of(rsp_model_task(m, c->task));
      tally *acc = g_hash_table_lookup(by, GINT_TO_POINTER(pid));
      if (!acc) {
        acc = g_new0(tally, 1);
        acc->wait = RSP_NO_ID;
        g_hash_table_insert(by, GINT_TO_POINTER(pid), acc);
      }
      tally_add(m, acc, kids[k], c, len);
      uint64_t total = acc->run + acc->waited + acc->preempted;
      if (total > best_total || (total == best_total && pid < best_pid)) {
        best_total = total;
        best_pid = pid;
      }
    }
    rsp_elem_id next = RSP_NO_ID;
    if (op != RSP_NO_ID && best_op >= best_total) {
      const rsp_path_elem *c = rsp_paths_elem(p, op);
      rsp_explain_hop h = { .pid = x->chain[x->n_chain - 1].pid, .kind = c->kind, .ns = best_op };
      if (c->kind == RSP_ELEM_DISK)
        h.dev = rsp_model_disk_op(m, c->id)->dev;
      else
        h.unix_socket = rsp_net_op_is_unix(rsp_model_net_op(m, c->id));
      x->chain[x->n_chain++] = h;
    } else if (best_pid >= 0) {
      const tally *acc = g_hash_table_lookup(by, GINT_TO_POINTER(best_pid));
      /* its threads over the wait, from the model (the paths hold the runs that lead to the wakeup: rust-lld's main
       * thread and the one that exited last, 24.9 of their 38.7 ms); many threads: it did the work when busy as a
       * whole */
      tally over = { .wait = RSP_NO_ID };
      cover cov;
      uint32_t n_ran = model_over(m, best_pid, 0, e->start, e->end, &over, &cov);
      if ((n_ran > 1 && busy_whole(&cov)) || tally_ends(acc)) {
        /* it did the work: the chain ends with it running (and waiting, when scattered, or short and a quarter of the
         * wait or more: a compiler's page faults on pages the other compiler was reading in, make -j2) */
        /* its thread with the longest element there; named, as the work list names it, by its main thread's latest
         * exec generation there (tar, not the shell it was forked as; python3, not the pyenv shim's bash that exec'd
         * it, whose wait for readlink was longer than any of python3's preempted runs) */
        const rsp_task *bt = NULL, *named = NULL;
        uint64_t bt_len = 0, named_start = 0;
        for (uint32_t k = 0; k < n; k++) {
          const rsp_path_elem *c = rsp_paths_elem(p, kids[k]);
          const rsp_task *ct = rsp_model_task(m, c->task);
          if (pid_of(ct) != best_pid)
            continue;
          if (!bt || c->end - c->start > bt_len) {
            bt = ct;
            bt_len = c->end - c->start;
          }
          if (ct->tid == best_pid && (!named || c->start >= named_start)) {
            named = ct;
            named_start = c->start;
          }
        }
        if (!named)
          named = bt;
        if (x->n_chain < RSP_EXPLAIN_MAX_CHAIN) {
          rsp_explain_hop h = { .pid = best_pid, .tid = bt ? bt->tid : 0, .comm = named ? named->comm : NULL,
                                .kind = RSP_ELEM_RUN, .ns = acc->run, .preempted_ns = acc->preempted };
          if (n_ran > 1) {
            h.ns = over.run;
            h.preempted_ns = over.preempted;
            h.n_threads = n_ran;
          }
          if (tally_scattered(acc) || tally_short_waits(acc, e->end - e->start))
            scattered_waits(p, kids, n, best_pid, &h, x->names_);
          x->chain[x->n_chain++] = h;
        }
      } else {
        next = acc->wait;
      }
    }
    g_hash_table_destroy(by);
    cur = next;
  }
}

static int cmp_span(const void *a, const void *b)
{
  const uint64_t *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The length of the union of spans SPANS ([start, end) pairs, sorted here). */
static uint64_t union_length(GArray *spans)
{
  if (!spans->len)
    return 0; /* (qsort of a NULL array: undefined) */
  qsort(spans->data, spans->len, 2 * sizeof(uint64_t), cmp_span);
  uint64_t total = 0, a = 0, b = 0;
  for (uint32_t i = 0; i < spans->len; i++) {
    const uint64_t *sp = (const uint64_t *)(const void *)(spans->data + (size_t)i * 2 * sizeof(uint64_t));
    if (sp[0] > b) {
      total += b - a;
      a = sp[0];
      b = sp[1];
    } else {
      b = MAX(b, sp[1]);
    }
  }
  return total + (b - a);
}

/* Over [LO, HI), what the tasks of process PID (thread TID alone when TID > 0) did, from the model (not only what is
 * on the paths: index-pack's threads ran 1280 ms over git clone's wait, 1096 ms of it on the paths): T's running,
 * preemptions and blocked waits; how many of its threads ran; with COV, how much of it they covered. */
static uint32_t model_over(const rsp_model *m, int32_t pid, int32_t tid, uint64_t lo, uint64_t hi, tally *t,
                           cover *cov)
{
  GHashTable *ran_tids = g_hash_table_new(g_direct_hash, g_direct_equal); /* (a thread's exec generations: one) */
  GArray *spans = cov ? g_array_new(FALSE, FALSE, 2 * sizeof(uint64_t)) : NULL; /* runs and preemptions */
  uint64_t first = UINT64_MAX, last = 0;
  for (rsp_task_id k = 0; k < rsp_model_n_tasks(m); k++) {
    const rsp_task *task = rsp_model_task(m, k);
    if (pid_of(task) != pid || (tid > 0 && task->tid != tid))
      continue;
    uint64_t ran = 0;
    for (uint32_t i = 0; i < task->n_runs; i++) {
      const rsp_run *r = rsp_model_run(m, rsp_model_task_run(m, k, i));
      if (r->end <= lo || r->start >= hi)
        continue;
      uint64_t sp[2] = { MAX(r->start, lo), MIN(r->end, hi) };
      ran += sp[1] - sp[0];
      first = MIN(first, sp[0]);
      last = MAX(last, sp[1]);
      if (spans)
        g_array_append_val(spans, sp);
    }
    for (uint32_t i = 0; i < task->n_sleeps; i++) {
      const rsp_sleep *sl = rsp_model_sleep(m, rsp_model_task_sleep(m, k, i));
      if (sl->end <= lo || sl->start >= hi)
        continue;
      uint64_t sp[2] = { MAX(sl->start, lo), MIN(sl->end, hi) };
      if (!sl->preempted && sl->end_cause != RSP_SLEEP_END_PREEMPTED) {
        t->waited += sp[1] - sp[0];
      } else {
        t->preempted += sp[1] - sp[0];
        if (spans)
          g_array_append_val(spans, sp);
      }
    }
    t->run += ran;
    if (ran)
      g_hash_table_add(ran_tids, GINT_TO_POINTER(task->tid));
  }
  uint32_t n_ran = g_hash_table_size(ran_tids);
  g_hash_table_destroy(ran_tids);
  if (cov) {
    cov->busy = union_length(spans);
    cov->present = last > first ? last - first : 0;
    g_array_free(spans, TRUE);
  }
  return n_ran;
}

/* The chain's last hop HI, a wait, had nothing under it, and a task that is not the waiting one ended it; its work is
 * on a path of its own. WHOLE: another process did (git clone's read of index-pack's answer: index-pack and its threads resolve
 * the deltas), its threads together; else a thread of the process itself did (xz -T2's worker, python's pool result
 * thread), that thread alone. What it did over the wait: running more than waiting, the chain ends with it running;
 * else it goes on from its longest wait there. */
static void through_waker(const rsp_paths *p, rsp_explanation *x, uint32_t hi, bool whole)
{
  const rsp_model *m = rsp_paths_model(p);
  const rsp_explain_hop *h0 = &x->chain[hi];
  const rsp_path_elem *w = rsp_paths_elem(p, h0->elem_);
  tally on_paths = { .wait = RSP_NO_ID }; /* its elements over the wait: the longest wait, to go on from */
  const rsp_task *thread = NULL; /* a thread: the task (exec generation) named, of its longest run there (a main
                                  * thread: its first element there) */
  uint64_t thread_run = 0;
  GArray *ids = g_array_new(FALSE, FALSE, sizeof(rsp_elem_id));
  for (rsp_elem_id id = 0; id < rsp_paths_n_elems(p); id++) {
    const rsp_path_elem *c = rsp_paths_elem(p, id);
    const rsp_task *t = rsp_model_task(m, c->task);
    bool its = whole ? pid_of(t) == h0->woken_by_pid : t->tid == h0->woken_by_tid && pid_of(t) == h0->pid;
    if (!its || c->end <= w->start || c->start >= w->end || (c->kind != RSP_ELEM_RUN && c->kind != RSP_ELEM_SLEEP))
      continue;
    g_array_append_val(ids, id);
    uint64_t len = MIN(c->end, w->end) - MAX(c->start, w->start);
    tally_add(m, &on_paths, id, c, len);
    uint64_t r = c->kind == RSP_ELEM_RUN ? len : 0;
    if (!thread || (t->tid == pid_of(t) && thread->tid != pid_of(thread)) ||
        (thread->tid != pid_of(thread) && r > thread_run)) {
      thread = t;
      thread_run = r;
    }
  }
  /* its running, preemptions and waits over the wait from the model */
  tally over = { .wait = on_paths.wait, .longest = on_paths.longest };
  uint32_t n_ran = 0;
  cover cov = { 0, 0 };
  if (thread)
    n_ran = model_over(m, whole ? h0->woken_by_pid : h0->pid, whole ? 0 : h0->woken_by_tid, w->start, w->end, &over,
                       whole ? &cov : NULL);
  /* another process of several threads busy as a whole (a threaded HTTP server's listening thread in select while the
   * handler works) */
  bool busy = whole && n_ran > 1 && busy_whole(&cov);
  /* as in chain_from (its waits many and short: python's pool result thread, a read per finished chunk) */
  if (thread && (busy || tally_ends(&over))) {
    rsp_explain_hop h = { .pid = whole ? h0->woken_by_pid : h0->pid, .tid = whole ? 0 : h0->woken_by_tid,
                          .comm = whole ? h0->woken_by_comm : thread->comm, .kind = RSP_ELEM_RUN, .ns = over.run,
                          .preempted_ns = over.preempted, .via_waker = true,
                          .n_threads = whole ? n_ran : 0 };
    if (!busy && (tally_scattered(&over) || tally_short_waits(&over, w->end - w->start)))
      scattered_waits(p, (const rsp_elem_id *)(void *)ids->data, ids->len, h.pid, &h, x->names_);
    x->chain[x->n_chain++] = h;
  } else if (thread) {
    /* on from the last of its waits there of a quarter of the longest or more: the critical path (python's pool
     * result thread read three results, 439, 239 and 214 ms, and the main thread's wait ended after the last, from the
     * slowest worker); not a short last wait (a JVM's main thread, after its long Future.get, on a lock) */
    rsp_elem_id from = over.wait;
    uint64_t from_end = 0;
    for (guint k = 0; k < ids->len; k++) {
      rsp_elem_id id = g_array_index(ids, rsp_elem_id, k);
      const rsp_path_elem *c = rsp_paths_elem(p, id);
      uint64_t len = MIN(c->end, w->end) - MAX(c->start, w->start);
      if (blocked(m, c) && c->end <= w->end && 4 * len >= on_paths.longest && c->end > from_end) {
        from = id;
        from_end = c->end;
      }
    }
    uint32_t n = x->n_chain;
    chain_from(p, x, from);
    if (x->n_chain > n)
      x->chain[n].via_waker = true;
  }
  g_array_free(ids, TRUE);
}

/* The chain under the process of interest's longest wait (chain_from), or through the thread of its own that ended it
 * when nothing under the wait explains it. */
void rsp_explain_chain(const rsp_paths *p, rsp_explanation *x)
{
  const rsp_model *m = rsp_paths_model(p);
  const rsp_path *base = rsp_paths_path(p, 0);
  /* the main thread's longest wait, when it has one: other threads may idle the whole time (node's and a JVM's
   * helpers in epoll_pwait or a futex until the exit wakes them), which the process did not wait for; else the
   * longest of any of its threads (a main thread that only ran) */
  rsp_elem_id first = RSP_NO_ID, first_main = RSP_NO_ID;
  uint64_t first_len = 0, main_len = 0;
  for (uint32_t i = 0; base && i < base->n_elems; i++) {
    rsp_elem_id id = rsp_paths_path_elem(p, 0, i);
    const rsp_path_elem *e = rsp_paths_elem(p, id);
    if (e->depth != 0)
      break;
    if (!blocked(m, e))
      continue;
    uint64_t len = e->end - e->start;
    if (len > first_len) { /* (elements are never empty) */
      first = id;
      first_len = len;
    }
    const rsp_task *t = rsp_model_task(m, e->task);
    if (t->tid == pid_of(t) && pid_of(t) == x->pid && len > main_len) {
      first_main = id;
      main_len = len;
    }
  }
  if (first_main != RSP_NO_ID)
    first = first_main;
  /* that thread's waits in all (node's main thread: one wait per finished job of its pool) */
  int32_t first_tid = first != RSP_NO_ID ? rsp_model_task(m, rsp_paths_elem(p, first)->task)->tid : -1;
  for (uint32_t i = 0; first != RSP_NO_ID && i < base->n_elems; i++) {
    const rsp_path_elem *e = rsp_paths_elem(p, rsp_paths_path_elem(p, 0, i));
    if (e->depth != 0)
      break;
    const rsp_task *t = rsp_model_task(m, e->task);
    if (blocked(m, e) && t->tid == first_tid && pid_of(t) == x->pid) {
      x->first_thread_waits_ns += e->end - e->start;
      x->first_thread_n_waits++;
    }
  }
  chain_from(p, x, first);
  /* a wait ending the chain (nothing under it) goes on through what ended it, as long as that adds a hop: the JVM
   * launcher's join of the Java main thread, which waits in Future.get for the pool's threads */
  while (x->n_chain && x->n_chain < RSP_EXPLAIN_MAX_CHAIN) {
    uint32_t hi = x->n_chain - 1;
    rsp_explain_hop *h = &x->chain[hi];
    if (h->kind != RSP_ELEM_SLEEP)
      break;
    note_end(p, h->elem_, h);
    if (h->woken_by_tid <= 0)
      break;
    through_waker(p, x, hi, h->woken_by_pid != h->pid);
    if (x->n_chain == hi + 1)
      break;
    /* (two tasks waking each other: the chain stops before a wait already said, the same sleep on whichever path) */
    uint32_t added = x->n_chain;
    for (uint32_t j = hi + 1; j < added; j++)
      for (uint32_t i = 0; i < j && x->n_chain == added; i++)
        if (x->chain[j].kind == RSP_ELEM_SLEEP && x->chain[i].kind == RSP_ELEM_SLEEP &&
            rsp_paths_elem(p, x->chain[i].elem_)->id == rsp_paths_elem(p, x->chain[j].elem_)->id)
          x->n_chain = j;
    if (x->n_chain < added)
      break;
  }
}

