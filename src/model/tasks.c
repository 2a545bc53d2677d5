/* Tasks: every thread generation, its pid, tid, parent and comm history (COMM, FORK, EXIT). */
#include "model/model-private.h"

#include <string.h>

/* Every string of the model is valid UTF-8, whatever the file held (a comm is 16 bytes of anything, a
 * multi-byte name cut in the middle): cairo draws nothing more after invalid text, GTK warns, JSON breaks.
 * Invalid bytes become U+FFFD, as g_utf8_make_valid writes them. */
static const char *intern_in(GStringChunk *strings, const char *s)
{
  if (!s)
    return g_string_chunk_insert_const(strings, "");
  if (G_LIKELY(g_utf8_validate(s, -1, NULL)))
    return g_string_chunk_insert_const(strings, s);
  char *valid = g_utf8_make_valid(s, -1);
  const char *interned = g_string_chunk_insert_const(strings, valid);
  g_free(valid);
  return interned;
}

const char *rsp_model_intern(rsp_model *m, const char *s)
{
  return intern_in(m->strings, s);
}

const char *rsp_model_intern_frame(rsp_model *m, const char *s)
{
  return intern_in(m->frame_strings, s);
}

/* tids below this (Linux's largest pid_max, 2^22) index a flat table; others a hash table */
#define TID_FLAT_MAX (1 << 22)

static rsp_task_id task_new(rsp_model_builder *b, int32_t pid, int32_t tid)
{
  rsp_task t = {
    .pid = pid, .tid = tid, .parent = RSP_NO_ID, .prev_generation = RSP_NO_ID,
    .comm = rsp_model_intern(b->m, ""),
  };
  g_array_append_val(b->m->tasks, t);
  rsp_task_state s = { .open_run = RSP_NO_ID, .last_run = RSP_NO_ID, .open_sleep = RSP_NO_ID };
  g_array_append_val(b->tstate, s);
  rsp_task_id id = b->m->tasks->len - 1;
  if (tid >= 0 && tid < TID_FLAT_MAX) {
    if ((uint32_t)tid >= b->tid_task_flat_n) {
      uint32_t n = b->tid_task_flat_n ? b->tid_task_flat_n : 4096;
      while (n <= (uint32_t)tid)
        n *= 2;
      b->tid_task_flat = g_renew(uint32_t, b->tid_task_flat, n);
      memset(b->tid_task_flat + b->tid_task_flat_n, 0, (n - b->tid_task_flat_n) * sizeof(uint32_t));
      b->tid_task_flat_n = n;
    }
    b->tid_task_flat[tid] = id + 1;
  } else {
    g_hash_table_insert(b->tid_task, GINT_TO_POINTER(tid), GUINT_TO_POINTER(id + 1));
  }
  return id;
}

rsp_task_id rsp_tasks_lookup(const rsp_model_builder *b, int32_t tid)
{
  if (tid >= 0 && tid < TID_FLAT_MAX) {
    uint32_t v = (uint32_t)tid < b->tid_task_flat_n ? b->tid_task_flat[tid] : 0;
    return v ? v - 1 : RSP_NO_ID;
  }
  gpointer v = g_hash_table_lookup(b->tid_task, GINT_TO_POINTER(tid));
  return v ? GPOINTER_TO_UINT(v) - 1 : RSP_NO_ID;
}

rsp_task_id rsp_tasks_for_tid(rsp_model_builder *b, int32_t pid, int32_t tid)
{
  rsp_task_id id = rsp_tasks_lookup(b, tid);
  if (id == RSP_NO_ID)
    return task_new(b, pid, tid);
  rsp_task *t = rsp_task_at(b->m, id);
  if (t->pid < 0 && pid > 0)
    t->pid = pid;
  return id;
}

void rsp_tasks_name(rsp_model_builder *b, rsp_task_id task, uint64_t time, const char *comm)
{
  rsp_task *t = rsp_task_at(b->m, task);
  t->comm = rsp_model_intern(b->m, comm);
  rsp_comm_change c = { .time = time, .task = task, .comm = t->comm };
  g_array_append_val(b->m->comms, c);
}

void rsp_tasks_fork(rsp_model_builder *b, const rsp_event *ev)
{
  int32_t tid = ev->u.fork.tid;
  if (tid <= 0)
    return;
  /* The parent may be unknown yet: perf synthesizes the existing threads in /proc order. */
  rsp_task_id parent = ev->u.fork.ptid > 0 ? rsp_tasks_for_tid(b, ev->u.fork.ppid, ev->u.fork.ptid) : RSP_NO_ID;
  rsp_task_id id = rsp_tasks_lookup(b, tid);
  /* perf synthesizes FORK records for threads that existed before the recording; a task already
   * known but never seen running is that same thread, anything else is a new one (tid reuse). */
  if (id != RSP_NO_ID) {
    rsp_task *t = rsp_task_at(b->m, id);
    rsp_task_state *s = rsp_tstate_at(b, id);
    if (t->n_runs != 0 || s->open_run != RSP_NO_ID || s->last_run != RSP_NO_ID || t->exit_time)
      id = RSP_NO_ID;
  }
  if (id == RSP_NO_ID)
    id = task_new(b, ev->u.fork.pid, tid);
  rsp_task *t = rsp_task_at(b->m, id);
  t->pid = ev->u.fork.pid;
  t->parent = parent;
  t->start = ev->u.fork.time ? ev->u.fork.time : ev->time;
  if (parent != RSP_NO_ID && !*t->comm) {
    const char *pc = rsp_task_at(b->m, parent)->comm;
    if (*pc)
      rsp_tasks_name(b, id, t->start, pc);
  }
}

rsp_task_id rsp_tasks_comm(rsp_model_builder *b, const rsp_event *ev, rsp_task_id *old_task)
{
  int32_t tid = ev->u.comm.tid;
  *old_task = RSP_NO_ID;
  if (tid <= 0)
    return RSP_NO_ID;
  rsp_task_id id = rsp_tasks_lookup(b, tid);
  if (ev->u.comm.exec && id != RSP_NO_ID) {
    /* An exec: a new generation with the same tid, tracked separately ("Runs and Sleeps"). */
    rsp_task *old = rsp_task_at(b->m, id);
    rsp_task_id parent = old->parent;
    uint32_t generation = old->generation + 1;
    rsp_task_id nid = task_new(b, ev->u.comm.pid, tid);
    rsp_task *t = rsp_task_at(b->m, nid);
    t->parent = parent;
    t->prev_generation = id;
    t->generation = generation;
    t->start = ev->time;
    rsp_tasks_name(b, nid, ev->time, ev->u.comm.comm);
    *old_task = id;
    return nid;
  }
  id = rsp_tasks_for_tid(b, ev->u.comm.pid, tid);
  rsp_task *t = rsp_task_at(b->m, id);
  if (ev->u.comm.pid > 0)
    t->pid = ev->u.comm.pid;
  if (strcmp(t->comm, ev->u.comm.comm ? ev->u.comm.comm : "") != 0)
    rsp_tasks_name(b, id, ev->time, ev->u.comm.comm);
  return RSP_NO_ID;
}

void rsp_tasks_exit(rsp_model_builder *b, const rsp_event *ev)
{
  rsp_task_id id = rsp_tasks_lookup(b, ev->u.fork.tid);
  if (id == RSP_NO_ID)
    return;
  rsp_task_at(b->m, id)->exit_time = ev->u.fork.time ? ev->u.fork.time : ev->time;
}

const rsp_comm_change *rsp_model_task_comm(const rsp_model *model, rsp_task_id task, uint32_t i)
{
  const rsp_task *t = &g_array_index(model->tasks, rsp_task, task);
  g_return_val_if_fail(i < t->n_comms, NULL);
  uint32_t c = g_array_index(model->task_comms, uint32_t, t->first_comm_ + i);
  return &g_array_index(model->comms, rsp_comm_change, c);
}

const char *rsp_model_task_comm_at(const rsp_model *model, rsp_task_id task, uint64_t time)
{
  const rsp_task *t = &g_array_index(model->tasks, rsp_task, task);
  const char *comm = t->comm;
  for (uint32_t i = 0; i < t->n_comms; i++) {
    const rsp_comm_change *c = rsp_model_task_comm(model, task, i);
    if (i == 0 || c->time <= time)
      comm = c->comm;
    else
      break;
  }
  return comm;
}

bool rsp_task_names_process_better(const rsp_task *t, const rsp_task *best)
{
  if (!best)
    return true;
  bool main_thread = t->tid == t->pid, best_main = best->tid == best->pid;
  if (main_thread != best_main)
    return main_thread;
  /* the later start: an exec's generation starts at the exec, and a pid used again is the later process */
  return t->start != best->start ? t->start > best->start : t->generation > best->generation;
}

const rsp_task *rsp_model_process_task(const rsp_model *m, int32_t pid)
{
  const rsp_task *best = NULL;
  for (guint i = 0; i < m->tasks->len; i++) {
    const rsp_task *t = &g_array_index(m->tasks, rsp_task, i);
    if (t->pid == pid && rsp_task_names_process_better(t, best))
      best = t;
  }
  return best;
}

/* Kernel threads by name (their comms are the kernel's), or as children of kthreadd (tid 2). */
static const char *const kthread_prefixes[] = {
  "kworker/", "jbd2/", "ksoftirqd/", "irq/", "kswapd", "kcompactd", "kblockd", "flush-", "writeback",
  "xfsaild/", "xfs-", "btrfs-", "kthreadd", "khugepaged", "kdmflush", "dmcrypt_", "md", "scsi_eh_",
  "ext4-rsv-conver", "kdamond", "nvme", "loop", "rcu_", "migration/", "kauditd", "oom_reaper", "ksmd", "kintegrityd",
};

bool rsp_task_is_kernel_thread(const rsp_model *m, rsp_task_id t)
{
  const rsp_task *task = rsp_model_task(m, t);
  if (task->tid == 2)
    return true;
  if (task->parent != RSP_NO_ID && rsp_model_task(m, task->parent)->tid == 2)
    return true;
  const char *c = task->comm ? task->comm : "";
  for (unsigned i = 0; i < G_N_ELEMENTS(kthread_prefixes); i++)
    if (g_str_has_prefix(c, kthread_prefixes[i]))
      return true;
  return false;
}
