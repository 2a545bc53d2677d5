/* Categories (paper, "Categories"): where the control paths' time went.
 *
 * The total is the sum of every path's depth-0 elements (threads of the process in parallel count
 * each). Each element's time is handed down its pseudo-stack: a sleep's children take their own
 * span, what is left of the sleep is its own. A run is understood when a sample fell in it, else
 * unsampled; a disk request is queued until issued, then at the device (blocking I/O); a network
 * operation is network time. A sleep's own time is split at the moment it could run again (its
 * wakeup, or its last child's end): after it, scheduler overhead; before it, by how it ended. A
 * preempted sleep's own time goes to whoever ran on its cpu meanwhile (preemptors.c), a sampled
 * run's to its samples' stacks (unknown-stacks.c). What is attributed under a guessed cause (an
 * inferred end, a lost wakeup, an unknown waker, an inferred link or switch-in) is also counted as
 * guessed; "accounted" is neither guessed, nor unknown_stack, nor unaccounted. */
#include "analysis/analysis.h"
#include "categories-private.h"
#include "paths-private.h"
#include "reader/natural-merge-sort.h"

#include <stdlib.h>
#include <pthread.h>
#include <string.h>

static const char *const keys[RSP_N_CATEGORIES] = {
  [RSP_CAT_UNDERSTOOD] = "understood",   [RSP_CAT_BLOCKING_IO] = "blocking_io",
  [RSP_CAT_UNSAMPLED] = "unsampled",     [RSP_CAT_IO_QUEUE] = "io_queue",
  [RSP_CAT_SCHEDULER] = "scheduler",     [RSP_CAT_HARDWARE] = "hardware",
  [RSP_CAT_INVOLUNTARY] = "involuntary", [RSP_CAT_MISC_KERNEL] = "misc_kernel",
  [RSP_CAT_TIMED_OUT] = "timed_out",     [RSP_CAT_OTHER_PATH] = "other_path",
  [RSP_CAT_NETWORK] = "network",         [RSP_CAT_UNACCOUNTED] = "unaccounted",
  [RSP_CAT_PREEMPTED_BY_PATH] = "preempted_by_path", [RSP_CAT_CONTENTION] = "contention",
  [RSP_CAT_UNKNOWN_STACK] = "unknown_stack",
};

static const char *const labels[RSP_N_CATEGORIES] = {
  [RSP_CAT_UNDERSTOOD] = "In understood functions",
  [RSP_CAT_BLOCKING_IO] = "In blocking I/O",
  [RSP_CAT_UNSAMPLED] = "Running but not sampled",
  [RSP_CAT_IO_QUEUE] = "I/O queue overhead",
  [RSP_CAT_SCHEDULER] = "Scheduler overhead",
  [RSP_CAT_HARDWARE] = "Waits \"for\" hardware",
  [RSP_CAT_INVOLUNTARY] = "Preempted, no other task seen",
  [RSP_CAT_MISC_KERNEL] = "Miscellaneous kernel blocks",
  [RSP_CAT_TIMED_OUT] = "Waits that timed out",
  [RSP_CAT_OTHER_PATH] = "Waits on other control paths",
  [RSP_CAT_NETWORK] = "Waits on the network",
  [RSP_CAT_UNACCOUNTED] = "Unaccounted",
  [RSP_CAT_PREEMPTED_BY_PATH] = "Preempted by tasks on the paths",
  [RSP_CAT_CONTENTION] = "Preempted by others (contention)",
  [RSP_CAT_UNKNOWN_STACK] = "Running in unknown functions",
};

static const rsp_category table_order[] = {
  RSP_CAT_UNDERSTOOD,  RSP_CAT_BLOCKING_IO,       RSP_CAT_UNSAMPLED,  RSP_CAT_UNKNOWN_STACK,
  RSP_CAT_IO_QUEUE,    RSP_CAT_SCHEDULER,         RSP_CAT_HARDWARE,   RSP_CAT_PREEMPTED_BY_PATH,
  RSP_CAT_CONTENTION,  RSP_CAT_INVOLUNTARY,       RSP_CAT_MISC_KERNEL, RSP_CAT_TIMED_OUT,
  RSP_CAT_OTHER_PATH,  RSP_CAT_NETWORK,           RSP_CAT_UNACCOUNTED,
};
G_STATIC_ASSERT(G_N_ELEMENTS(table_order) == RSP_N_CATEGORIES);

const rsp_category *rsp_category_table_order(uint32_t *n)
{
  *n = G_N_ELEMENTS(table_order);
  return table_order;
}

const char *rsp_category_key(rsp_category cat)
{
  return (unsigned)cat < RSP_N_CATEGORIES ? keys[cat] : "unknown";
}

const char *rsp_category_label(rsp_category cat)
{
  return (unsigned)cat < RSP_N_CATEGORIES ? labels[cat] : "Unknown";
}

static bool blocked_state(char state)
{
  return state == 'D';
}

rsp_category rsp_category_of_sleep(const rsp_model *model, rsp_sleep_id sleep)
{
  if (sleep >= rsp_model_n_sleeps(model))
    return RSP_CAT_UNACCOUNTED;
  const rsp_sleep *s = rsp_model_sleep(model, sleep);
  if (s->preempted || s->end_cause == RSP_SLEEP_END_PREEMPTED)
    return RSP_CAT_INVOLUNTARY;
  switch (s->end_cause) {
  case RSP_SLEEP_END_DISK: return RSP_CAT_BLOCKING_IO;
  case RSP_SLEEP_END_NETWORK: /* a peer inside the recording is another path */
    return rsp_paths_loopback_peer_run(model, s) != RSP_NO_ID ? RSP_CAT_OTHER_PATH : RSP_CAT_NETWORK;
  case RSP_SLEEP_END_INTERRUPT: return RSP_CAT_HARDWARE;
  case RSP_SLEEP_END_TIMEOUT: return RSP_CAT_TIMED_OUT;
  case RSP_SLEEP_END_WOKEN:
  case RSP_SLEEP_END_SIGNAL: return RSP_CAT_OTHER_PATH;
  default: return blocked_state(s->state) ? RSP_CAT_MISC_KERNEL : RSP_CAT_UNACCOUNTED;
  }
}

void rsp_categories_add_ns(rsp_categories *out, rsp_category cat, uint64_t ns)
{
  out->ns[cat] += ns;
  if (out->work_ && out->work_->guessing && cat != RSP_CAT_UNACCOUNTED && cat != RSP_CAT_UNKNOWN_STACK) {
    out->guessed_ns[cat] += ns;
    out->guessed_total_ns += ns;
  }
}

static void add(rsp_categories *out, rsp_category cat, uint64_t a, uint64_t b)
{
  if (b > a)
    rsp_categories_add_ns(out, cat, b - a);
}

/* Whether what ended sleep S is a guess, and with it what its children (the disk request, the waker's
 * chain) explain: its end cause inferred, or unknown (a fallback category holds it: misc_kernel for a
 * D sleep), woken by no known run, ended by an inferred link. */
static bool sleep_cause_guessed(const rsp_model *m, const rsp_sleep *s)
{
  if (s->end_inferred || s->end_cause == RSP_SLEEP_END_UNKNOWN)
    return true;
  if (s->wake_link != RSP_NO_ID && s->wake_link < rsp_model_n_links(m)) {
    const rsp_link *l = rsp_model_link(m, s->wake_link);
    return (l->flags & RSP_LINK_INFERRED) || (s->end_cause == RSP_SLEEP_END_WOKEN && l->from_run == RSP_NO_ID);
  }
  return s->end_cause == RSP_SLEEP_END_WOKEN || s->end_cause == RSP_SLEEP_END_SIGNAL; /* by nobody known */
}

/* Whether the split of sleep S's own time is a guess though its cause is not: a blocked sleep whose
 * wakeup was lost (when it could run is not known), or one that ended at a switch-in the model
 * inferred (its next run's start). */
static bool sleep_own_guessed(rsp_categories_work *w, const rsp_sleep *s)
{
  bool blocked = !s->preempted && s->end_cause != RSP_SLEEP_END_PREEMPTED && s->state != 'X' && s->state != 'Z';
  if (blocked && !s->wake_time)
    return true;
  rsp_run_id next = rsp_categories_run_at(w, s->task, s->end);
  return next != RSP_NO_ID && (rsp_model_run(rsp_paths_model(w->paths), next)->flags & RSP_RUN_START_INFERRED);
}

/* A stretch [lo, hi) of element id still to attribute, under GUESSING guessed causes. The path tree
 * is walked with this explicit stack, not by recursion: a wakeup relay can nest 70,000 levels. */
typedef struct pending {
  rsp_elem_id id;
  uint32_t guessing;
  uint64_t lo, hi;
} pending;

/* The stack of stretches still to attribute, and attribute_sleep's scratch (cuts, children by kind),
 * kept across elements: a 2.3M-event recording attributes 414,000 sleeps, and allocating these for each
 * cost more than the attribution. */
typedef struct walk {
  pending *todo;
  uint32_t n_todo, cap_todo;
  uint64_t *cuts;
  rsp_elem_id *ops, *links;
  uint32_t cap_kids;
} walk;

static void push(walk *todo, rsp_elem_id id, uint64_t lo, uint64_t hi, uint32_t guessing)
{
  if (todo->n_todo == todo->cap_todo) {
    todo->cap_todo = todo->cap_todo ? 2 * todo->cap_todo : 64;
    todo->todo = g_renew(pending, todo->todo, todo->cap_todo);
  }
  todo->todo[todo->n_todo++] = (pending){ .id = id, .guessing = guessing, .lo = lo, .hi = hi };
}

/* Room for N children in TODO's scratch. */
static void reserve_kids(walk *todo, uint32_t n)
{
  if (n <= todo->cap_kids)
    return;
  todo->cap_kids = MAX(n, 2 * todo->cap_kids);
  todo->cuts = g_renew(uint64_t, todo->cuts, 2 * (size_t)todo->cap_kids + 2);
  todo->ops = g_renew(rsp_elem_id, todo->ops, todo->cap_kids);
  todo->links = g_renew(rsp_elem_id, todo->links, todo->cap_kids);
}

static inline bool u64_before(const uint64_t *x, const uint64_t *y)
{
  return *x < *y;
}

/* A sleep with thousands of children (a server's wait woken by as many requests) cuts its time into
 * as many pieces: qsort of those took 0.18 G instructions on a 2.3M-event recording. The cuts come as
 * (start, end) pairs of children in start order: nearly sorted. */
RSP_DEFINE_NATURAL_MERGE_SORT(sort_cuts, uint64_t, u64_before)

static int rank(uint8_t kind)
{
  return kind == RSP_ELEM_DISK ? 3 : kind == RSP_ELEM_NET ? 2 : 1;
}

/* [A, B) of sleep S's own time: before READY by how it ended, after it scheduler overhead; a
 * preempted sleep's to whoever ran on its cpu. */
static void sleep_own(rsp_categories *out, const rsp_sleep *s, rsp_category own, uint64_t ready, uint64_t a,
                      uint64_t b)
{
  bool guessed = b > a && sleep_own_guessed(out->work_, s);
  out->work_->guessing += guessed;
  if (own == RSP_CAT_INVOLUNTARY) {
    rsp_preemptors_attribute(out, s, a, b);
  } else if (!ready) {
    add(out, own, a, b);
  } else {
    uint64_t mid = CLAMP(ready, a, b);
    add(out, own, a, mid);
    rsp_preemptors_attribute_ready(out, s, mid, b);
  }
  out->work_->guessing -= guessed;
}

/* [A, B) of TASK's runs folded into merged polls: running time, understood when sampled. */
static void folded_runs(const rsp_model *m, rsp_task_id task, uint64_t a, uint64_t b, rsp_categories *out)
{
  while (a < b) {
    rsp_run_id r = rsp_categories_run_at(out->work_, task, a);
    if (r == RSP_NO_ID) {
      add(out, RSP_CAT_UNACCOUNTED, a, b);
      return;
    }
    const rsp_run *run = rsp_model_run(m, r);
    uint64_t y = MIN(run->end, b);
    add(out, run->n_samples ? RSP_CAT_UNDERSTOOD : RSP_CAT_UNSAMPLED, a, y);
    a = y;
  }
}

/* [A, B) of sleep element E's own time. Merged polls: each piece by its own end cause and wakeup
 * (the last piece with OWN and READY, which the waker's chain may move), the runs between them as
 * runs. */
static void elem_own(const rsp_paths *p, rsp_elem_id id, const rsp_path_elem *e, const rsp_sleep *last_sleep,
                     rsp_category own, uint64_t ready, uint64_t a, uint64_t b, rsp_categories *out)
{
  if (e->n_merged <= 1) {
    sleep_own(out, last_sleep, own, ready, a, b);
    return;
  }
  const rsp_model *m = rsp_paths_model(p);
  for (uint32_t i = 0; i < e->n_merged && a < b; i++) {
    rsp_sleep_id sid = rsp_paths_elem_sleep(p, id, i);
    const rsp_sleep *s = rsp_model_sleep(m, sid);
    bool last = i + 1 == e->n_merged;
    uint64_t s0 = CLAMP(s->start, a, b), s1 = last ? b : CLAMP(s->end, a, b);
    folded_runs(m, e->task, a, s0, out);
    if (last) {
      sleep_own(out, last_sleep, own, ready, s0, s1);
    } else {
      /* a piece whose own end was guessed (a futex wait's timeout read from a wakeup with no call stack) is a
       * guess, whatever ended the last */
      bool guessed = sleep_cause_guessed(m, s);
      out->work_->guessing += guessed;
      sleep_own(out, s, rsp_category_of_sleep(m, sid), s->wake_time, s0, s1);
      out->work_->guessing -= guessed;
    }
    a = MAX(a, s1);
  }
}

/* A sleep nothing under it explains, woken (or signalled) by the task whose merged polls it is under, from a run
 * between two of them: it waited for that task, and so for what ended the poll before that run (timeout's child sleep
 * killed by timeout, whose sigsuspend its own timer ended: the poll timed out, no other path). The poll's sleep, else
 * RSP_NO_ID. */
static rsp_sleep_id parent_poll_waited(const rsp_paths *p, const rsp_path_elem *e, const rsp_sleep *s)
{
  const rsp_model *m = rsp_paths_model(p);
  if (e->parent == RSP_NO_ID || s->wake_link == RSP_NO_ID || s->wake_link >= rsp_model_n_links(m) ||
      (s->end_cause != RSP_SLEEP_END_WOKEN && s->end_cause != RSP_SLEEP_END_SIGNAL))
    return RSP_NO_ID;
  const rsp_link *l = rsp_model_link(m, s->wake_link);
  const rsp_path_elem *pe = rsp_paths_elem_fast(p, e->parent);
  if (l->from_run == RSP_NO_ID || l->from_run >= rsp_model_n_runs(m) || pe->kind != RSP_ELEM_SLEEP ||
      pe->n_merged < 2)
    return RSP_NO_ID;
  const rsp_run *r = rsp_model_run(m, l->from_run);
  if (r->task != pe->task || r->start < pe->start || r->start >= pe->end)
    return RSP_NO_ID;
  rsp_sleep_id before = RSP_NO_ID;
  for (uint32_t i = 0; i < pe->n_merged; i++) {
    rsp_sleep_id sid = rsp_paths_elem_sleep(p, e->parent, i);
    if (rsp_model_sleep(m, sid)->end > r->start)
      break;
    before = sid;
  }
  return before;
}

/* A sleep's time cut at its children's ends, the stretch between two cuts given to the child that explains it best
 * (pushed on the walk's stack), else the sleep's own: where the cutting is (K: the next cut; LO: the chain's children
 * starting at or before it). */
typedef struct stretches {
  rsp_elem_id id;
  const rsp_path_elem *e;
  const rsp_sleep *s; /* the last merged one */
  rsp_category own;
  uint64_t ready, chain_start;
  bool chain;
  const uint64_t *cuts;
  const rsp_elem_id *ops, *links;
  uint32_t n_cuts, n_ops, n_links, k, lo;
} stretches;

/* Sleeps with more cuts than this are cut BIG_STRETCHES stretches at a time (resume_stretches): 4096 at a time made
 * the two workers hand the sleep to each other so often that deep3m's categories took 20-50 ms longer. */
enum { BIG_CUTS = 131072, BIG_STRETCHES = 32768 };

/* Up to BUDGET stretches of ST from its K-th cut on. */
static void attribute_stretches(const rsp_paths *p, stretches *st, uint32_t budget, rsp_categories *out, walk *todo)
{
  const rsp_path_elem *e = st->e;
  const uint64_t *cuts = st->cuts;
  const rsp_elem_id *ops = st->ops, *links = st->links;
  uint32_t n_ops = st->n_ops, n_links = st->n_links, lo = st->lo, k = st->k;
  for (; k + 1 < st->n_cuts && budget; k++) {
    uint64_t x = cuts[k], y = cuts[k + 1];
    if (y <= x)
      continue;
    budget--;
    /* disk and network children first (few), then the chain (in start order, not overlapping) */
    rsp_elem_id best = RSP_NO_ID;
    int best_rank = 0;
    for (uint32_t i = 0; i < n_ops; i++) {
      const rsp_path_elem *c = rsp_paths_elem_fast(p, ops[i]);
      if (c->start <= x && c->end >= y && rank(c->kind) > best_rank) {
        best = ops[i];
        best_rank = rank(c->kind);
      }
    }
    if (best == RSP_NO_ID && n_links) {
      /* the chain elements starting at or before x: the cuts come in order, so the count only grows (a walk
       * beside them, not a search per cut: 398k children of one sleep on deep3m) */
      while (lo < n_links && rsp_paths_elem_fast(p, links[lo])->start <= x)
        lo++;
      for (uint32_t j = lo; j-- > 0;) {
        const rsp_path_elem *c = rsp_paths_elem_fast(p, links[j]);
        if (c->end >= y) {
          best = links[j];
          break;
        }
        if (c->end <= x && j + 1 < lo)
          break; /* earlier ones end earlier still */
      }
    }
    if (best != RSP_NO_ID)
      push(todo, best, x, y, out->work_->guessing);
    else if (st->chain && y <= st->chain_start && e->n_merged <= 1)
      add(out, RSP_CAT_SCHEDULER, x, y); /* the waker not yet running (merged polls: their own pieces) */
    else
      elem_own(p, st->id, e, st->s, st->own, st->ready, x, y, out);
  }
  st->k = k;
  st->lo = lo;
}

/* The next BIG_STRETCHES of a big sleep's stretches: the sleep pushed back under the children they push (its rest
 * comes once they are done), freed after its last. BIG is on the stack as a pending of id RSP_NO_ID. */
static void resume_stretches(const rsp_paths *p, stretches *big, rsp_categories *out, walk *todo)
{
  if (big->k + 1 >= big->n_cuts) {
    g_free(big);
    return;
  }
  push(todo, RSP_NO_ID, (uint64_t)(uintptr_t)big, 0, out->work_->guessing);
  attribute_stretches(p, big, BIG_STRETCHES, out, todo);
}

/* [A, B) of sleep element E: its own time now, its children's stretches pushed on TODO. */
static void attribute_sleep(const rsp_paths *p, rsp_elem_id id, const rsp_path_elem *e, uint64_t a, uint64_t b,
                            rsp_categories *out, walk *todo)
{
  const rsp_model *m = rsp_paths_model(p);
  /* the last of merged polls says how the whole ended, and why it could run again; the others keep
   * their own causes (elem_own) */
  rsp_sleep_id last = rsp_paths_elem_sleep(p, id, e->n_merged ? e->n_merged - 1 : 0);
  const rsp_sleep *s = rsp_model_sleep(m, last);
  rsp_category own = rsp_category_of_sleep(m, last);
  uint64_t ready = s->wake_time;
  uint32_t n;
  const rsp_elem_id *kids = rsp_paths_children(p, id, &n);
  if (n == 0) {
    rsp_sleep_id poll = e->n_merged <= 1 && own == RSP_CAT_OTHER_PATH ? parent_poll_waited(p, e, s) : RSP_NO_ID;
    if (poll != RSP_NO_ID) {
      const rsp_sleep *ps = rsp_model_sleep(m, poll);
      bool guessed = sleep_cause_guessed(m, ps);
      out->work_->guessing += guessed;
      sleep_own(out, s, rsp_category_of_sleep(m, poll), ready, a, b);
      out->work_->guessing -= guessed;
      return;
    }
    elem_own(p, id, e, s, own, ready, a, b, out);
    return;
  }
  /* Children may overlap (the sleeper's own disk requests and the chain of the task that woke it):
   * each stretch goes to the covering child that explains it best (disk, network, then the chain). */
  reserve_kids(todo, n);
  uint64_t *cuts = todo->cuts;
  uint32_t n_cuts = 0;
  /* in time order when the children follow each other (they come by start): the sort below then only looks */
  cuts[n_cuts++] = a;
  uint64_t chain_start = b, chain_end = a;
  for (uint32_t i = 0; i < n; i++) {
    const rsp_path_elem *c = rsp_paths_elem_fast(p, kids[i]);
    uint64_t ca = CLAMP(c->start, a, b), cb = CLAMP(c->end, a, b);
    cuts[n_cuts++] = ca;
    cuts[n_cuts++] = cb;
    if ((c->kind == RSP_ELEM_RUN || c->kind == RSP_ELEM_SLEEP) && cb > ca) {
      chain_start = MIN(chain_start, ca);
      chain_end = MAX(chain_end, cb);
    }
  }
  cuts[n_cuts++] = b;
  bool chain = chain_end > chain_start;
  rsp_elem_id *ops = todo->ops, *links = todo->links;
  uint32_t n_ops = 0, n_links = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint8_t kind = rsp_paths_elem_fast(p, kids[i])->kind;
    if (kind == RSP_ELEM_RUN || kind == RSP_ELEM_SLEEP)
      links[n_links++] = kids[i];
    else
      ops[n_ops++] = kids[i];
  }
  if (chain && chain_end > ready)
    ready = chain_end; /* runnable once the waker's part is done */
  if (n_cuts <= 32) { /* the usual few: insertion sort beats qsort's calls */
    for (uint32_t i = 1; i < n_cuts; i++) {
      uint64_t v = cuts[i];
      uint32_t j = i;
      for (; j > 0 && cuts[j - 1] > v; j--)
        cuts[j] = cuts[j - 1];
      cuts[j] = v;
    }
  } else {
    sort_cuts(cuts, n_cuts);
  }
  stretches st = { .id = id, .e = e, .s = s, .own = own, .ready = ready, .chain = chain, .chain_start = chain_start,
                   .cuts = cuts, .n_cuts = n_cuts, .ops = ops, .n_ops = n_ops, .links = links, .n_links = n_links };
  if (n_cuts <= BIG_CUTS) {
    attribute_stretches(p, &st, UINT32_MAX, out, todo);
    return;
  }
  /* thousands of stretches (a server's wait woken by as many requests): BIG_STRETCHES at a time, so that the stack
   * holds that many children, not all of them (398k children of one sleep on deep3m: 20-70 MB in the walk's
   * stacks, once per worker) */
  stretches *big = g_malloc(sizeof *big + ((size_t)n_cuts * 8 + ((size_t)n_ops + n_links) * sizeof(rsp_elem_id)));
  *big = st;
  uint64_t *big_cuts = (uint64_t *)(void *)(big + 1);
  rsp_elem_id *big_ops = (rsp_elem_id *)(void *)(big_cuts + n_cuts), *big_links = big_ops + n_ops;
  memcpy(big_cuts, cuts, (size_t)n_cuts * 8);
  memcpy(big_ops, ops, (size_t)n_ops * sizeof(rsp_elem_id));
  memcpy(big_links, links, (size_t)n_links * sizeof(rsp_elem_id));
  big->cuts = big_cuts;
  big->ops = big_ops;
  big->links = big_links;
  resume_stretches(p, big, out, todo);
}

static void attribute_one(const rsp_paths *p, rsp_elem_id id, uint64_t lo, uint64_t hi, rsp_categories *out,
                          walk *todo)
{
  const rsp_path_elem *e = rsp_paths_elem_fast(p, id);
  uint64_t a = MAX(e->start, lo), b = MIN(e->end, hi);
  if (b <= a)
    return;
  const rsp_model *m = rsp_paths_model(p);
  switch (e->kind) {
  case RSP_ELEM_RUN: {
    const rsp_run *r = rsp_model_run(m, e->id);
    if (r->n_samples)
      rsp_unknown_stacks_attribute_run(out, r, a, b);
    else
      add(out, RSP_CAT_UNSAMPLED, a, b);
    break;
  }
  case RSP_ELEM_DISK: {
    const rsp_disk_op *d = rsp_model_disk_op(m, e->id);
    uint64_t issue = CLAMP(d->issue_time, a, b);
    add(out, RSP_CAT_IO_QUEUE, a, issue);
    add(out, RSP_CAT_BLOCKING_IO, issue, b);
    break;
  }
  case RSP_ELEM_NET:
    add(out, RSP_CAT_NETWORK, a, b);
    break;
  default: {
    /* a sleep whose end cause was guessed (the last of merged polls says how the whole ended): its own time, and
     * what its children take of it */
    rsp_sleep_id last = rsp_paths_elem_sleep(p, id, e->n_merged ? e->n_merged - 1 : 0);
    bool guessed = sleep_cause_guessed(m, rsp_model_sleep(m, last));
    out->work_->guessing += guessed;
    attribute_sleep(p, id, e, a, b, out, todo);
    out->work_->guessing -= guessed;
    break;
  }
  }
}

/* The stretches the workers hand each other: one element's subtree may hold most of the work (deep3m: 398k of
 * the walk's 1.2M stretches under one depth-0 sleep, 3.2M of deep4g's), so a worker whose stack is deep gives half
 * of it here when the other waits. Plain pthreads, which ThreadSanitizer follows. */
typedef struct pool {
  _Alignas(64) pthread_mutex_t lock;
  pthread_cond_t more;
  pending *items;
  uint32_t n, cap;
  int waiting; /* workers waiting for items (atomic reads outside the lock) */
  int workers;
  bool done;
} pool;

/* One worker's share of the walk: the depth-0 elements it takes, chunk by chunk, from a counter shared with the
 * other, the stretches it takes from the pool, and what it adds up (sums, and the preemptors' tallies, merged
 * afterwards: the result does not depend on which worker took which stretch). */
typedef struct share {
  _Alignas(64) const rsp_paths *paths; /* (each share on cache lines of its own: the two sit side by side on the
                                        * stack, and one worker's stack count shared a line with the other's paths) */
  const rsp_elem_id *roots;
  uint32_t n_roots;
  uint32_t *next; /* the next root not taken (atomic) */
  pool *pool;     /* NULL: one worker */
  rsp_categories out;
  rsp_categories_work work;
  walk todo;
} share;

enum {
  ROOTS_PER_TAKE = 64,
  ROOTS_FOR_TWO_THREADS = 4096, /* fewer: one thread (a second costs more than it saves) */
  SHARE_FROM = 32,              /* a stack this deep gives half of it to a waiting worker */
  ELEMS_FOR_TWO_THREADS = 65536,
};

/* Moves the older half of SH's stack to the pool, for the worker waiting there. */
static void give_half(share *sh)
{
  pool *po = sh->pool;
  walk *todo = &sh->todo;
  uint32_t n = todo->n_todo / 2;
  pthread_mutex_lock(&po->lock);
  if (po->n + n > po->cap) {
    po->cap = MAX(po->cap * 2, po->n + n);
    po->items = g_renew(pending, po->items, po->cap);
  }
  memcpy(po->items + po->n, todo->todo, n * sizeof(pending));
  po->n += n;
  pthread_cond_broadcast(&po->more);
  pthread_mutex_unlock(&po->lock);
  memmove(todo->todo, todo->todo + n, (todo->n_todo - n) * sizeof(pending));
  todo->n_todo -= n;
}

/* Fills SH's empty stack: depth-0 elements not taken yet, else the stretches of the pool (waiting for some while
 * another worker is at work); false once there is nothing left anywhere. */
static bool refill(share *sh)
{
  uint32_t i = __atomic_fetch_add(sh->next, ROOTS_PER_TAKE, __ATOMIC_RELAXED);
  if (i < sh->n_roots) {
    for (uint32_t j = MIN(sh->n_roots, i + ROOTS_PER_TAKE); j-- > i;) {
      const rsp_path_elem *e = rsp_paths_elem_fast(sh->paths, sh->roots[j]);
      sh->out.total_ns += e->end - e->start;
      push(&sh->todo, sh->roots[j], e->start, e->end, 0);
    }
    return true;
  }
  pool *po = sh->pool;
  if (!po)
    return false;
  pthread_mutex_lock(&po->lock);
  for (;;) {
    if (po->n) {
      walk *todo = &sh->todo;
      if (po->n > todo->cap_todo) {
        todo->cap_todo = po->n;
        todo->todo = g_renew(pending, todo->todo, todo->cap_todo);
      }
      memcpy(todo->todo, po->items, po->n * sizeof(pending));
      todo->n_todo = po->n;
      po->n = 0;
      pthread_mutex_unlock(&po->lock);
      return true;
    }
    if (po->done)
      break;
    if (po->waiting + 1 == po->workers) { /* every other worker waits too: nothing is left */
      po->done = true;
      pthread_cond_broadcast(&po->more);
      break;
    }
    __atomic_store_n(&po->waiting, po->waiting + 1, __ATOMIC_RELAXED);
    pthread_cond_wait(&po->more, &po->lock);
    __atomic_store_n(&po->waiting, po->waiting - 1, __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&po->lock);
  return false;
}

/* A worker: walks the stretches of its stack, each element's own time and its children's stretches pushed back. */
static gpointer attribute_roots(gpointer data)
{
  share *sh = data;
  sh->out.work_ = &sh->work;
  walk *todo = &sh->todo;
  while (todo->n_todo || refill(sh)) {
    pending w = todo->todo[--todo->n_todo];
    sh->work.guessing = w.guessing;
    if (w.id == RSP_NO_ID) /* the rest of a big sleep's stretches */
      resume_stretches(sh->paths, (stretches *)(uintptr_t)w.lo, &sh->out, todo);
    else
      attribute_one(sh->paths, w.id, w.lo, w.hi, &sh->out, todo);
    if (sh->pool && todo->n_todo >= SHARE_FROM && __atomic_load_n(&sh->pool->waiting, __ATOMIC_RELAXED))
      give_half(sh);
  }
  sh->work.guessing = 0;
  g_free(todo->todo);
  g_free(todo->cuts);
  g_free(todo->ops);
  g_free(todo->links);
  return NULL;
}

/* Adds the sums of FROM into TO. */
static void add_sums(rsp_categories *to, const rsp_categories *from)
{
  to->total_ns += from->total_ns;
  for (int c = 0; c < RSP_N_CATEGORIES; c++) {
    to->ns[c] += from->ns[c];
    to->guessed_ns[c] += from->guessed_ns[c];
  }
  to->guessed_total_ns += from->guessed_total_ns;
  for (int r = 0; r < RSP_N_UNKNOWN_STACK_REASONS; r++)
    to->unknown_stack_ns[r] += from->unknown_stack_ns[r];
}

void rsp_categories_compute(const rsp_paths *p, rsp_categories *out)
{
  /* the depth-0 elements of every path: each is attributed with what is nested under it, on its own */
  uint32_t n_paths = rsp_paths_n_paths(p);
  GArray *roots = g_array_new(FALSE, FALSE, sizeof(rsp_elem_id));
  for (rsp_path_id pa = 0; pa < n_paths; pa++) {
    const rsp_path *path = rsp_paths_path(p, pa);
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(p, pa, i);
      if (rsp_paths_elem_fast(p, id)->depth != 0)
        break; /* (depth, start) order */
      g_array_append_val(roots, id);
    }
  }
  uint32_t next = 0;
  share mine = { .paths = p, .roots = (const rsp_elem_id *)(void *)roots->data, .n_roots = roots->len,
                 .next = &next, .work = { .paths = p } };
  rsp_preemptors_init(&mine.work, p);
  /* RSP_CATEGORIES_THREAD_ROOTS lowers the bar, so that tests split small recordings too */
  const char *bar = g_getenv("RSP_CATEGORIES_THREAD_ROOTS");
  uint32_t min_roots = bar && *bar ? (uint32_t)strtoul(bar, NULL, 10) : ROOTS_FOR_TWO_THREADS;
  /* many depth-0 elements, or many elements under a few */
  bool two = roots->len >= 2 && (roots->len >= min_roots || rsp_paths_n_elems(p) >= ELEMS_FOR_TWO_THREADS) &&
             rsp_threads_wanted() > 1;
  pool po = { .workers = 2 };
  share other = mine;
  GThread *thread = NULL;
  if (two) {
    pthread_mutex_init(&po.lock, NULL);
    pthread_cond_init(&po.more, NULL);
    mine.pool = other.pool = &po;
    rsp_preemptors_init_share(&other.work, &mine.work);
    thread = g_thread_new("rsp-categories", attribute_roots, &other);
  }
  attribute_roots(&mine);
  *out = mine.out;
  out->work_ = &mine.work;
  if (thread) {
    g_thread_join(thread);
    pthread_mutex_destroy(&po.lock);
    pthread_cond_destroy(&po.more);
    g_free(po.items);
    add_sums(out, &other.out);
    rsp_preemptors_merge(&mine.work, &other.work);
    other.out.work_ = &other.work;
    rsp_unknown_stacks_finish(&other.out);
  }
  g_array_free(roots, TRUE);
  out->n_paths = n_paths;
  out->n_processes = rsp_paths_n_processes(p);
  const rsp_path *base = rsp_paths_path(p, 0);
  if (base && base->end > base->start)
    out->wall_ns = base->end - base->start;
  rsp_preemptors_finish(out);
  rsp_unknown_stacks_finish(out);
  out->work_ = NULL;
  out->accounted_ns =
    out->total_ns - out->ns[RSP_CAT_UNACCOUNTED] - out->ns[RSP_CAT_UNKNOWN_STACK] - out->guessed_total_ns;
}
