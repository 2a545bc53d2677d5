/* Disk I/O (paper, "Disk IO"): block_rq_insert / block_rq_issue / block_rq_complete matched by
 * (dev, sector) into operations, missing events inferred and marked; then the sleeps whose end a
 * completion explains. */
#include "model/model-private.h"
#include "reader/zeroed.h"

#include <stddef.h>
#include <string.h>

/* The pending table: linear probing over (dev, sector), removal by shifting the run after the slot back. */
typedef struct rsp_disk_slot {
  uint64_t sector;
  uint32_t dev;
  uint32_t op1; /* op index + 1; 0: empty */
} rsp_disk_slot;

static uint32_t slot_of(uint32_t dev, uint64_t sector, uint32_t mask)
{
  uint64_t h = (sector ^ ((uint64_t)dev << 40) ^ dev) * 0x9e3779b97f4a7c15ull;
  return (uint32_t)(h >> 32) & mask;
}

/* The slot of (DEV, SECTOR): its entry, else the empty slot where it would go. */
static rsp_disk_slot *pending_slot(const rsp_model_builder *b, uint32_t dev, uint64_t sector)
{
  uint32_t mask = b->disk_pending_mask;
  for (uint32_t i = slot_of(dev, sector, mask);; i = (i + 1) & mask) {
    rsp_disk_slot *sl = &b->disk_pending[i];
    if (!sl->op1 || (sl->sector == sector && sl->dev == dev))
      return sl;
  }
}

/* Room for one more entry: the table at most half full. */
static void pending_reserve(rsp_model_builder *b)
{
  if (b->disk_pending && (b->disk_pending_n + 1) * 2 <= b->disk_pending_mask + 1)
    return;
  rsp_disk_slot *old = b->disk_pending;
  uint32_t old_size = old ? b->disk_pending_mask + 1 : 0;
  uint32_t size = old_size ? 2 * old_size : 256;
  b->disk_pending = rsp_new_zeroed(rsp_disk_slot, size);
  b->disk_pending_mask = size - 1;
  for (uint32_t i = 0; i < old_size; i++)
    if (old[i].op1)
      *pending_slot(b, old[i].dev, old[i].sector) = old[i];
  g_free(old);
}

static void pending_set(rsp_model_builder *b, uint32_t dev, uint64_t sector, uint32_t op)
{
  pending_reserve(b);
  rsp_disk_slot *sl = pending_slot(b, dev, sector);
  b->disk_pending_n += !sl->op1;
  *sl = (rsp_disk_slot){ sector, dev, op + 1 };
}

static void pending_remove(rsp_model_builder *b, rsp_disk_slot *sl)
{
  uint32_t mask = b->disk_pending_mask, i = (uint32_t)(sl - b->disk_pending);
  for (uint32_t j = (i + 1) & mask; b->disk_pending[j].op1; j = (j + 1) & mask) {
    uint32_t home = slot_of(b->disk_pending[j].dev, b->disk_pending[j].sector, mask);
    /* J's entry stays when its home lies cyclically in (I, J]: moving it to I would put it before its home */
    if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
      continue;
    b->disk_pending[i] = b->disk_pending[j];
    i = j;
  }
  b->disk_pending[i].op1 = 0;
  b->disk_pending_n--;
}

static rsp_disk_op *op_at(rsp_model *m, uint32_t i)
{
  return &g_array_index(m->disk_ops, rsp_disk_op, i);
}

static uint32_t new_op(rsp_model_builder *b, uint64_t time, uint32_t dev, uint64_t sector, uint32_t bytes,
                       const char *rwbs, uint32_t flags)
{
  rsp_disk_op op = { .insert_time = time, .issue_time = time, .sector = sector, .dev = dev, .bytes = bytes,
                     .task = b->cur_task, .issue_task = RSP_NO_ID, .sleep = RSP_NO_ID, .flags = flags };
  g_strlcpy(op.rwbs, rwbs, sizeof op.rwbs);
  g_array_append_val(b->m->disk_ops, op);
  return b->m->disk_ops->len - 1;
}

uint32_t rsp_disk_event(rsp_model_builder *b, rsp_disk_kind kind, uint64_t time, uint32_t dev, uint64_t sector,
                        uint32_t bytes, const char *rwbs)
{
  rsp_model *m = b->m;
  rsp_disk_slot *pending = b->disk_pending ? pending_slot(b, dev, sector) : NULL;
  uint32_t idx = pending && pending->op1 ? pending->op1 - 1 : RSP_NO_ID;
  switch (kind) {
  case DISK_INSERT:
    /* A request of that (dev, sector) still pending lost its completion; this is a new one. */
    idx = new_op(b, time, dev, sector, bytes, rwbs, RSP_DISK_ISSUE_INFERRED);
    op_at(m, idx)->issue_time = 0;
    pending_set(b, dev, sector, idx);
    return idx;
  case DISK_ISSUE:
    if (idx != RSP_NO_ID && !(op_at(m, idx)->flags & RSP_DISK_ISSUE_INFERRED)) {
      /* Issued again without a completion: a requeue keeps the request; take the last issue. */
      op_at(m, idx)->issue_time = time;
      op_at(m, idx)->issue_task = b->cur_task;
      return idx;
    }
    if (idx != RSP_NO_ID) {
      rsp_disk_op *op = op_at(m, idx);
      op->issue_time = time;
      op->issue_task = b->cur_task;
      op->flags &= ~(uint32_t)RSP_DISK_ISSUE_INFERRED;
      if (op->task == RSP_NO_ID)
        op->task = b->cur_task;
      return idx;
    }
    /* Issued straight to the driver (blk-mq direct issue fires no insert), or inserted before. */
    idx = new_op(b, time, dev, sector, bytes, rwbs, RSP_DISK_NO_INSERT);
    op_at(m, idx)->issue_task = b->cur_task;
    pending_set(b, dev, sector, idx);
    return idx;
  case DISK_COMPLETE:
    if (idx == RSP_NO_ID) {
      /* Only its completion was seen (issued before the recording, or both events lost). */
      idx = new_op(b, time, dev, sector, bytes, rwbs, RSP_DISK_NO_INSERT | RSP_DISK_ISSUE_INFERRED);
      op_at(m, idx)->task = RSP_NO_ID; /* the completion's context is not the issuer */
      op_at(m, idx)->complete_time = time;
      return idx;
    }
    rsp_disk_op *op = op_at(m, idx);
    op->complete_time = time;
    if (op->flags & RSP_DISK_ISSUE_INFERRED)
      op->issue_time = op->insert_time; /* issued right after the insert (paper) */
    pending_remove(b, pending);
    return idx;
  }
  return idx;
}

/* Completions in time order, for the window searches. */
typedef struct completion {
  uint64_t time;
  uint32_t op;
} completion;
_Static_assert(offsetof(completion, time) == 0 && offsetof(rsp_irq_served, time) == 0,
               "rsp_count_before reads the time each element begins with");

static int by_time(const void *a, const void *b)
{
  const completion *x = a, *y = b;
  return x->time < y->time ? -1 : x->time > y->time;
}

/* The latest completion in [FROM, TO], preferring one issued by TASK; RSP_NO_ID when none. Only
 * completions that ended no sleep yet count. */
static uint32_t find_completion(rsp_model *m, const GArray *done, uint64_t from, uint64_t to, rsp_task_id task,
                                bool task_only)
{
  guint lo = (guint)rsp_count_before(done->data, done->len, sizeof(completion), to, true); /* the first after TO */
  uint32_t any = RSP_NO_ID;
  for (guint i = lo; i-- > 0;) {
    const completion *c = &g_array_index(done, completion, i);
    if (c->time < from)
      break;
    const rsp_disk_op *op = op_at(m, c->op);
    if (op->sleep != RSP_NO_ID)
      continue;
    if (op->task == task)
      return c->op;
    if (any == RSP_NO_ID && !task_only)
      any = c->op;
  }
  return any;
}

/* Whether the completion of OP and a waking of TASK after it, at most at WAKE, fired in one interrupt (one span of its
 * cpu's irq tracepoints, the completion first): the completion path woke it, as a callchain through it would say. */
static bool woken_in_completion_irq(const rsp_model *m, uint32_t op, rsp_task_id task, uint64_t wake)
{
  const GArray *served = m->irq_served; /* in time order */
  uint64_t done = op_at((rsp_model *)m, op)->complete_time;
  guint lo = (guint)rsp_count_before(served->data, served->len, sizeof(rsp_irq_served), done, false);
  uint32_t span = RSP_NO_ID;
  for (guint i = lo; i < served->len; i++) {
    const rsp_irq_served *sv = &g_array_index(served, rsp_irq_served, i);
    if (sv->time > wake)
      break;
    if (sv->kind == RSP_IRQ_SERVED_DISK && sv->id == op)
      span = sv->span;
    else if (span != RSP_NO_ID && sv->kind == RSP_IRQ_SERVED_WAKEUP && sv->id == task && sv->span == span)
      return true;
  }
  return false;
}

/* The disk operations of each task, in insert order (a task's ops are LIST[FIRST[t]] .. LIST[FIRST[t + 1] - 1]),
 * with the least issue time from each on to the task's last (SUFMIN, beside LIST); and apart, those not completed
 * when the sleeps are matched (the lost completions' candidates). The sleeps looked for their task's last request by
 * scanning every operation back from the last: a recorded build's 277,000 sleeps over 117,000 operations. */
typedef struct task_ops {
  uint32_t *first, *list;
  uint64_t *sufmin;
  uint32_t *open_first, *open_list;
  uint32_t n_tasks;
} task_ops;

static void count_sort(const rsp_model *m, uint32_t n_tasks, bool open_only, uint32_t **first_out,
                       uint32_t **list_out)
{
  uint32_t *first = g_new0(uint32_t, n_tasks + 1);
  const uint32_t n_ops = m->disk_ops->len;
  for (uint32_t i = 0; i < n_ops; i++) {
    const rsp_disk_op *op = &g_array_index(m->disk_ops, rsp_disk_op, i);
    if (op->task < n_tasks && (!open_only || !op->complete_time))
      first[op->task + 1]++;
  }
  for (uint32_t t = 0; t < n_tasks; t++)
    first[t + 1] += first[t];
  uint32_t *list = g_new(uint32_t, first[n_tasks] ? first[n_tasks] : 1);
  uint32_t *at = g_memdup2(first, sizeof *first * (n_tasks + 1));
  for (uint32_t i = 0; i < n_ops; i++) {
    const rsp_disk_op *op = &g_array_index(m->disk_ops, rsp_disk_op, i);
    if (op->task < n_tasks && (!open_only || !op->complete_time))
      list[at[op->task]++] = i;
  }
  g_free(at);
  *first_out = first;
  *list_out = list;
}

static void task_ops_init(task_ops *t, const rsp_model *m)
{
  t->n_tasks = m->tasks->len;
  count_sort(m, t->n_tasks, false, &t->first, &t->list);
  count_sort(m, t->n_tasks, true, &t->open_first, &t->open_list);
  uint32_t n = t->first[t->n_tasks];
  t->sufmin = g_new(uint64_t, n ? n : 1);
  for (uint32_t task = 0; task < t->n_tasks; task++) {
    uint64_t least = UINT64_MAX;
    for (uint32_t k = t->first[task + 1]; k-- > t->first[task];) {
      least = MIN(least, g_array_index(m->disk_ops, rsp_disk_op, t->list[k]).issue_time);
      t->sufmin[k] = least;
    }
  }
}

static void task_ops_clear(task_ops *t)
{
  g_free(t->first);
  g_free(t->list);
  g_free(t->sufmin);
  g_free(t->open_first);
  g_free(t->open_list);
}

/* TASK's last operation (in insert order) issued at or before TIME, or RSP_NO_ID. */
static uint32_t last_issued_by(const task_ops *t, rsp_task_id task, uint64_t time)
{
  if (task >= t->n_tasks)
    return RSP_NO_ID;
  /* the last K of the task's whose SUFMIN is at most TIME (SUFMIN grows with K): the operation at K was issued then */
  uint32_t first = t->first[task];
  size_t n = rsp_count_before(&t->sufmin[first], t->first[task + 1] - first, sizeof(uint64_t), time, true);
  return n ? t->list[first + n - 1] : RSP_NO_ID;
}

/* TASK's operations not completed when the sleeps are matched: OPEN_LIST[*LO .. *HI). */
static void open_ops_of(const task_ops *t, rsp_task_id task, uint32_t *lo, uint32_t *hi)
{
  *lo = *hi = 0;
  if (task < t->n_tasks) {
    *lo = t->open_first[task];
    *hi = t->open_first[task + 1];
  }
}

void rsp_disk_finish(rsp_model_builder *b)
{
  rsp_model *m = b->m;
  uint64_t window = b->opts.disk_wake_window_ns ? b->opts.disk_wake_window_ns : RSP_DISK_WAKE_WINDOW_NS;
  GArray *done = g_array_new(FALSE, FALSE, sizeof(completion));
  for (guint i = 0; i < m->disk_ops->len; i++) {
    rsp_disk_op *op = op_at(m, i);
    if (op->flags & RSP_DISK_ISSUE_INFERRED && !op->complete_time)
      op->issue_time = op->insert_time; /* neither issue nor completion: issued after the insert */
    if (op->complete_time) {
      completion c = { op->complete_time, i };
      g_array_append_val(done, c);
    }
  }
  g_array_sort(done, by_time);
  task_ops by_task;
  task_ops_init(&by_task, m);
  for (guint i = 0; i < m->sleeps->len && m->disk_ops->len; i++) {
    rsp_sleep *sl = &g_array_index(m->sleeps, rsp_sleep, i);
    if (sl->preempted)
      continue;
    const rsp_sleep_facts *f = &g_array_index(b->sleep_facts, rsp_sleep_facts, i);
    rsp_stack_id wstack = f->wake.stack;
    bool endio = (rsp_stack_classes(m, wstack) & RSP_FRAMES_DISK_WAKE) != 0;
    uint64_t at = sl->wake_kind != RSP_WAKE_NONE ? sl->wake_time : sl->end;
    uint64_t from = at > window ? at - window : 0;
    if (from < sl->start)
      from = sl->start;
    uint32_t found = RSP_NO_ID;
    bool inferred = false;
    if (endio) {
      /* The wakeup ran the completion path: the woken task's most recent completed request. */
      found = find_completion(m, done, sl->start, at, sl->task, false);
      if (found == RSP_NO_ID) {
        /* Its completion was lost: the task's last request issued before and never completed. */
        uint32_t lo, hi;
        open_ops_of(&by_task, sl->task, &lo, &hi);
        for (uint32_t k = hi; k-- > lo;) {
          uint32_t j = by_task.open_list[k];
          rsp_disk_op *op = op_at(m, j);
          if (!op->complete_time && op->issue_time <= at && op->sleep == RSP_NO_ID) {
            op->complete_time = at;
            op->flags |= RSP_DISK_COMPLETE_INFERRED;
            found = j;
            break;
          }
        }
      }
    } else if (sl->state == 'D' && wstack == RSP_NO_ID) {
      /* No callchain says who woke it: a completion of its own request just before the wakeup
       * (or, with the wakeup lost, before the switch-in). */
      found = find_completion(m, done, from, at, sl->task, sl->wake_kind != RSP_WAKE_NONE);
      inferred = true;
      if (found == RSP_NO_ID && sl->wake_kind != RSP_WAKE_NONE &&
          (f->wake.waker_run == RSP_NO_ID || f->wake.waker == sl->task)) {
        /* Woken from an interrupt just after a request another task issued for it (an fsync's flush). */
        uint64_t near = at > RSP_DISK_IRQ_WAKE_WINDOW_NS ? at - RSP_DISK_IRQ_WAKE_WINDOW_NS : 0;
        found = find_completion(m, done, near > sl->start ? near : sl->start, at, sl->task, false);
      }
      if (found != RSP_NO_ID && sl->wake_kind != RSP_WAKE_NONE && f->wake.waker_run == RSP_NO_ID &&
          (op_at(m, found)->task == sl->task || woken_in_completion_irq(m, found, sl->task, f->wake.time)))
        inferred = false; /* its own request, woken from interrupt context, or woken in the interrupt that completed
                             the request (an fsync's flush, issued by a worker): as good as a stack */
    }
    if (found == RSP_NO_ID && sl->state == 'D' && sl->wake_kind == RSP_WAKE_NONE && !endio) {
      /* Neither the wakeup nor a completion recorded (perf drops both in interrupt context on an idle
       * cpu): the task's last request, issued just before the sleep and never seen completing, is what
       * it waited for; its completion is put at the switch-in, and both are marked inferred. */
      uint32_t j = last_issued_by(&by_task, sl->task, sl->start); /* (only the last one before the sleep) */
      rsp_disk_op *op = j != RSP_NO_ID ? op_at(m, j) : NULL;
      if (op && !op->complete_time && op->sleep == RSP_NO_ID && op->issue_time + window >= sl->start) {
        op->complete_time = sl->end;
        op->flags |= RSP_DISK_COMPLETE_INFERRED;
        found = j;
        inferred = true;
      }
    }
    if (found == RSP_NO_ID)
      continue;
    op_at(m, found)->sleep = i;
    sl->disk_op = found;
    sl->end_cause = RSP_SLEEP_END_DISK;
    sl->end_inferred = inferred;
  }
  g_array_free(done, TRUE);
  task_ops_clear(&by_task);
  for (guint i = 0; i < m->disk_ops->len; i++) {
    rsp_disk_op *op = op_at(m, i);
    if (!op->complete_time)
      op->flags |= RSP_DISK_NO_COMPLETE;
    if (op->flags & RSP_DISK_NO_INSERT)
      m->loss.disk_no_insert++;
    if (op->flags & RSP_DISK_ISSUE_INFERRED)
      m->loss.disk_issue_inferred++;
    if (op->flags & RSP_DISK_NO_COMPLETE)
      m->loss.disk_no_complete++;
    if (op->flags & RSP_DISK_COMPLETE_INFERRED)
      m->loss.disk_complete_inferred++;
  }
}

uint32_t rsp_model_n_disk_ops(const rsp_model *m)
{
  return m->disk_ops->len;
}

const rsp_disk_op *rsp_model_disk_op(const rsp_model *m, rsp_disk_op_id id)
{
  g_return_val_if_fail(id < m->disk_ops->len, NULL);
  return &g_array_index(m->disk_ops, rsp_disk_op, id);
}
