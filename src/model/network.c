/* Network (paper, "Network"): operations on a socket from the last send to the last receive-side
 * wakeup that follows it, matched by socket (the kernel's struct sock address). On this kernel
 * without kprobes the events are sock:sock_send_length, sock:sock_recv_length, sock:sk_data_ready
 * and sock:inet_sock_set_state (ports and the remote address); the paper's probe:tcp_sendmsg...
 * count the same way when a recording has them. A sleep ends by the network when data became ready
 * on a socket of the sleeping task at most the net window before its wakeup (or switch-in). */
#include "model/model-private.h"

#include <stdio.h>
#include <string.h>


void rsp_net_event_add(rsp_model_builder *b, const rsp_net_event *ev)
{
  g_array_append_val(b->net_events, *ev);
}

typedef struct sock_state {
  rsp_task_id owner;  /* the last task that sent or received on it */
  uint32_t op;        /* its operation in progress, RSP_NO_ID */
  bool replied;       /* data came back since the op's last send */
  uint16_t protocol, sport, dport, family;
  const char *remote;
} sock_state;

/* A data-ready on a socket, with the task it was for and its operation. */
typedef struct ready {
  rsp_task_id task;
  uint64_t time;
  uint32_t op;
} ready;

static int ready_cmp(const void *a, const void *b)
{
  const ready *x = a, *y = b;
  if (x->task != y->task)
    return x->task < y->task ? -1 : 1;
  return x->time < y->time ? -1 : x->time > y->time;
}

static int op_by_start(const void *a, const void *b, void *data)
{
  const rsp_net_op *ops = data;
  uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
  if (ops[i].start != ops[j].start)
    return ops[i].start < ops[j].start ? -1 : 1;
  return i < j ? -1 : i > j;
}

static uint32_t new_op(GArray *ops, const sock_state *s, uint64_t sk, uint64_t time, rsp_task_id task,
                       uint32_t flags)
{
  rsp_net_op op = { .start = time, .end = time, .skaddr = sk, .task = task, .protocol = s->protocol, .family = s->family,
                    .sport = s->sport, .dport = s->dport, .remote = s->remote, .flags = flags };
  g_array_append_val(ops, op);
  return ops->len - 1;
}

static int owner_cmp(const void *a, const void *b)
{
  const rsp_sock_owner *x = a, *y = b;
  if (x->sk != y->sk)
    return x->sk < y->sk ? -1 : 1;
  return x->time < y->time ? -1 : x->time > y->time;
}

/* Who sent or received on each socket, when: rsp_model_socket_owner. */
static void collect_owners(rsp_model_builder *b)
{
  for (guint i = 0; i < b->net_events->len; i++) {
    const rsp_net_event *e = &g_array_index(b->net_events, rsp_net_event, i);
    if ((e->kind == NET_SEND || e->kind == NET_RECV) && e->task != RSP_NO_ID) {
      rsp_sock_owner o = { .sk = e->sk, .time = e->time, .task = e->task };
      g_array_append_val(b->m->sock_owners, o);
    }
  }
  g_array_sort(b->m->sock_owners, owner_cmp);
}

rsp_task_id rsp_model_socket_owner(const rsp_model *m, uint64_t sk, uint64_t time)
{
  const GArray *a = m->sock_owners;
  rsp_sock_owner key = { .sk = sk, .time = time };
  guint lo = 0, hi = a->len;
  while (lo < hi) { /* the first entry after KEY */
    guint mid = (lo + hi) / 2;
    if (owner_cmp(&g_array_index(a, rsp_sock_owner, mid), &key) <= 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo > 0 && g_array_index(a, rsp_sock_owner, lo - 1).sk == sk)
    return g_array_index(a, rsp_sock_owner, lo - 1).task;
  if (lo < a->len && g_array_index(a, rsp_sock_owner, lo).sk == sk)
    return g_array_index(a, rsp_sock_owner, lo).task; /* its first user came later (a server's first recv) */
  return RSP_NO_ID;
}

void rsp_net_finish(rsp_model_builder *b)
{
  rsp_model *m = b->m;
  if (!b->net_events->len)
    return;
  collect_owners(b);
  uint64_t window = b->opts.net_wake_window_ns ? b->opts.net_wake_window_ns : RSP_NET_WAKE_WINDOW_NS;
  GHashTable *socks = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
  GArray *ops = g_array_new(FALSE, TRUE, sizeof(rsp_net_op));
  GArray *readies = g_array_new(FALSE, FALSE, sizeof(ready));
  for (guint i = 0; i < b->net_events->len; i++) {
    const rsp_net_event *e = &g_array_index(b->net_events, rsp_net_event, i);
    sock_state *s = g_hash_table_lookup(socks, &e->sk);
    if (!s) {
      s = g_new0(sock_state, 1);
      s->owner = RSP_NO_ID;
      s->op = RSP_NO_ID;
      g_hash_table_insert(socks, g_memdup2(&e->sk, sizeof e->sk), s);
    }
    if (e->protocol && !s->protocol)
      s->protocol = e->protocol;
    if (e->family && !s->family) {
      s->family = e->family;
      if (s->op != RSP_NO_ID)
        g_array_index(ops, rsp_net_op, s->op).family = s->family;
    }
    switch (e->kind) {
    case NET_STATE:
      if (e->sport)
        s->sport = e->sport;
      if (e->dport)
        s->dport = e->dport;
      if (e->remote)
        s->remote = e->remote;
      if (s->op != RSP_NO_ID) {
        rsp_net_op *op = &g_array_index(ops, rsp_net_op, s->op);
        op->sport = s->sport, op->dport = s->dport, op->remote = s->remote;
      }
      break;
    case NET_SEND:
      if (e->task == RSP_NO_ID)
        break;
      s->owner = e->task;
      if (s->op == RSP_NO_ID || s->replied || g_array_index(ops, rsp_net_op, s->op).task != e->task) {
        s->op = new_op(ops, s, e->sk, e->time, e->task, 0);
        s->replied = false;
      } else {
        rsp_net_op *op = &g_array_index(ops, rsp_net_op, s->op);
        op->start = op->end = e->time; /* the last send before the reply */
      }
      break;
    case NET_RECV:
      if (e->task != RSP_NO_ID)
        s->owner = e->task;
      break;
    case NET_DATA_READY:
      if (s->owner == RSP_NO_ID)
        break; /* nobody we know reads it yet (the accept or first recv comes later) */
      if (s->op == RSP_NO_ID || (s->replied && g_array_index(ops, rsp_net_op, s->op).task != s->owner)) {
        s->op = new_op(ops, s, e->sk, e->time, s->owner, RSP_NET_NO_SEND);
      }
      s->replied = true;
      rsp_net_op *op = &g_array_index(ops, rsp_net_op, s->op);
      if (op->end < e->time)
        op->end = e->time;
      ready r = { .task = s->owner, .time = e->time, .op = s->op };
      g_array_append_val(readies, r);
      break;
    }
  }
  /* A data-ready before a task's first recv on the socket: the owner was unknown then. A second
   * look would need the fd; the sockets of servers get their owner at the first recv. */
  g_array_sort(readies, ready_cmp);
  for (guint i = 0; i < m->sleeps->len && readies->len; i++) {
    rsp_sleep *sl = &g_array_index(m->sleeps, rsp_sleep, i);
    if (sl->preempted || sl->disk_op != RSP_NO_ID)
      continue;
    uint64_t at = sl->wake_kind != RSP_WAKE_NONE ? sl->wake_time : sl->end;
    uint64_t from = at > window ? at - window : 0;
    if (from < sl->start)
      from = sl->start;
    /* the last ready of this task at or before AT */
    ready key = { .task = sl->task, .time = at };
    guint lo = 0, hi = readies->len;
    while (lo < hi) {
      guint mid = (lo + hi) / 2;
      if (ready_cmp(&g_array_index(readies, ready, mid), &key) <= 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo == 0)
      continue;
    const ready *r = &g_array_index(readies, ready, lo - 1);
    if (r->task != sl->task || r->time < from)
      continue;
    rsp_net_op *op = &g_array_index(ops, rsp_net_op, r->op);
    op->n_wakeups++;
    if (op->end < at)
      op->end = at;
    sl->net_op = r->op;
    sl->end_cause = RSP_SLEEP_END_NETWORK;
    sl->end_inferred = sl->wake_kind == RSP_WAKE_NONE;
  }
  /* Operations in start order. */
  GArray *order = g_array_sized_new(FALSE, FALSE, sizeof(uint32_t), ops->len);
  for (guint i = 0; i < ops->len; i++)
    g_array_append_val(order, i);
  g_array_sort_with_data(order, op_by_start, ops->data);
  uint32_t *remap = g_new(uint32_t, ops->len ? ops->len : 1);
  for (guint i = 0; i < order->len; i++) {
    uint32_t old = g_array_index(order, uint32_t, i);
    remap[old] = i;
    g_array_append_val(m->net_ops, g_array_index(ops, rsp_net_op, old));
  }
  for (guint i = 0; i < m->sleeps->len; i++) {
    rsp_sleep *sl = &g_array_index(m->sleeps, rsp_sleep, i);
    if (sl->net_op != RSP_NO_ID)
      sl->net_op = remap[sl->net_op];
  }
  g_free(remap);
  g_array_free(order, TRUE);
  g_array_free(ops, TRUE);
  g_array_free(readies, TRUE);
  g_hash_table_destroy(socks);
}

uint32_t rsp_model_n_net_ops(const rsp_model *m)
{
  return m->net_ops->len;
}

const rsp_net_op *rsp_model_net_op(const rsp_model *m, rsp_net_op_id id)
{
  g_return_val_if_fail(id < m->net_ops->len, NULL);
  return &g_array_index(m->net_ops, rsp_net_op, id);
}

bool rsp_net_op_is_unix(const rsp_net_op *op)
{
  return op->family == 1; /* AF_UNIX */
}

const char *rsp_net_op_protocol(const rsp_net_op *op)
{
  if (rsp_net_op_is_unix(op))
    return "unix";
  if (op->family == 16 /* AF_NETLINK: su's audit messages, udev's events */)
    return "netlink";
  return op->protocol == 6 ? "tcp" : op->protocol == 17 ? "udp" : NULL;
}

const char *rsp_net_op_peer(const rsp_net_op *op, char *buf, size_t size)
{
  const char *proto = rsp_net_op_protocol(op) ? rsp_net_op_protocol(op) : "socket";
  if (op->remote)
    snprintf(buf, size, "%s %s", proto, op->remote);
  else if (op->dport)
    snprintf(buf, size, "%s port %u", proto, op->dport);
  else
    snprintf(buf, size, "%s", proto);
  return buf;
}
