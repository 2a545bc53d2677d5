/* Stacks on a thread of their own. A recorded build's samples bring a new raw callchain each (code without frame
 * pointers: its frame-pointer walk reads stack words), and symbolizing and interning them was 70% of the model's
 * thread (a meson build of rsp: the model 0.97 s with stacks, 0.29 s without), which the reader waited for while the
 * second core idled. With a thread for them, the model's thread still finds the chains seen before (stacks.c: the
 * thread's last chain, the chain table) and hands each new one over as a ticket, a number in the order they came; the
 * stacks' thread symbolizes and interns them in that order, so each gets the stack id it would have got on the
 * model's thread, and the events the symbolizer follows (mmaps, forks, kernel symbols) come to it in between, in the
 * recording's order. At the model's end, every ticket the model kept (a sleep's stack, its wakeup's, a sample's)
 * becomes its stack id. The thread opens the symbolizer itself (the kernel's symbols are read meanwhile, instead of
 * before the first event); when it cannot, every ticket is no stack, as on one thread. */
#include "model/model-private.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* What goes over: 8 blocks of 256 KB (a message that does not fit an empty block grows it). */
enum { N_BLOCKS = 8, BLOCK_BYTES = 256 * 1024 };

typedef struct msg_block {
  uint8_t *data;
  size_t used, cap;
  bool last; /* the model's end: the thread stops after it */
} msg_block;

enum { MSG_OBSERVE = 1, MSG_CHAIN = 2 };

typedef struct msg_head {
  uint32_t kind, size; /* SIZE: of the whole message, a multiple of 8 */
} msg_head;

/* A new chain: its ticket and what the symbolizer reads of its event; the NR words follow. */
typedef struct chain_msg {
  msg_head head;
  uint32_t ticket, nr, raw_nr, type;
  int32_t pid, tid;
  uint16_t misc;
  uint64_t present, ip;
  const rsp_evsel *evsel;
  uint64_t words[];
} chain_msg;

struct rsp_stack_thread {
  rsp_model_builder *b;
  rsp_reader *reader;                /* to open the symbolizer on */
  rsp_symbolizer_options options;
  GThread *thread;
  pthread_mutex_t lock;
  pthread_cond_t changed;
  uint64_t produced, consumed; /* blocks handed over, blocks done (guarded by LOCK) */
  msg_block blocks[N_BLOCKS];  /* the one the model fills is blocks[produced % N_BLOCKS] */
  GArray *stacks;              /* uint32_t stack id by ticket (the thread's until it is joined) */
};

static size_t align8(size_t n)
{
  return (n + 7) & ~(size_t)7;
}

static void process_block(struct rsp_stack_thread *t, const msg_block *blk)
{
  rsp_model_builder *b = t->b;
  for (size_t at = 0; at < blk->used;) {
    const msg_head *h = (const msg_head *)(const void *)(blk->data + at);
    if (h->kind == MSG_OBSERVE) {
      if (b->sym)
        rsp_symbolizer_observe(b->sym, (const rsp_event *)(const void *)(blk->data + at + sizeof(msg_head)));
    } else {
      const chain_msg *c = (const chain_msg *)(const void *)h;
      rsp_event ev = { .type = c->type, .misc = c->misc, .pid = c->pid, .tid = c->tid, .present = c->present,
                       .ip = c->ip, .evsel = c->evsel, .callchain = c->words, .callchain_nr = c->nr };
      bool nowhere;
      /* (no symbols: stacks stay unresolved, as on one thread) */
      rsp_stack_id id = b->sym ? rsp_stacks_resolve(b, &ev, c->nr, c->raw_nr, &nowhere) : RSP_NO_ID;
      g_assert(c->ticket == t->stacks->len);
      g_array_append_val(t->stacks, id);
    }
    at += h->size;
  }
}

static gpointer stack_main(gpointer data)
{
  struct rsp_stack_thread *t = data;
  GError *error = NULL;
  t->b->sym = rsp_symbolizer_new(t->reader, &t->options, &error);
  g_clear_error(&error); /* (no symbols: stacks stay unresolved rather than failing the model) */
  for (;;) {
    pthread_mutex_lock(&t->lock);
    while (t->consumed == t->produced)
      pthread_cond_wait(&t->changed, &t->lock);
    msg_block *blk = &t->blocks[t->consumed % N_BLOCKS];
    pthread_mutex_unlock(&t->lock);
    process_block(t, blk);
    bool last = blk->last;
    pthread_mutex_lock(&t->lock);
    t->consumed++;
    pthread_cond_signal(&t->changed);
    pthread_mutex_unlock(&t->lock);
    if (last)
      return NULL;
  }
}

void rsp_stack_thread_start(rsp_model_builder *b, rsp_reader *reader, const rsp_symbolizer_options *options)
{
  struct rsp_stack_thread *t = g_new0(struct rsp_stack_thread, 1);
  t->b = b;
  t->reader = reader;
  t->options = *options;
  pthread_mutex_init(&t->lock, NULL);
  pthread_cond_init(&t->changed, NULL);
  /* (tests make the blocks small, RSP_STACK_BLOCK_BYTES, to hand many over and grow some) */
  const char *env = g_getenv("RSP_STACK_BLOCK_BYTES");
  int asked = env ? atoi(env) : 0;
  size_t bytes = asked > 0 ? (size_t)asked : BLOCK_BYTES;
  for (int i = 0; i < N_BLOCKS; i++) {
    t->blocks[i].cap = bytes;
    t->blocks[i].data = g_malloc(bytes);
  }
  t->stacks = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  b->stack_thread = t;
  t->thread = g_thread_new("rsp-stacks", stack_main, t);
}

/* Hands the block being filled over, and waits for the next to be free. */
static void hand_over(struct rsp_stack_thread *t)
{
  pthread_mutex_lock(&t->lock);
  t->produced++;
  pthread_cond_signal(&t->changed);
  while (t->produced - t->consumed >= N_BLOCKS)
    pthread_cond_wait(&t->changed, &t->lock);
  pthread_mutex_unlock(&t->lock);
  msg_block *blk = &t->blocks[t->produced % N_BLOCKS];
  blk->used = 0;
  blk->last = false;
}

/* Room for a message of SIZE bytes (a multiple of 8) in the block being filled. */
static void *room(struct rsp_stack_thread *t, size_t size)
{
  msg_block *blk = &t->blocks[t->produced % N_BLOCKS];
  if (blk->used + size > blk->cap) {
    if (blk->used) {
      hand_over(t);
      blk = &t->blocks[t->produced % N_BLOCKS];
    }
    if (size > blk->cap) {
      g_free(blk->data);
      blk->cap = size;
      blk->data = g_malloc(size);
    }
  }
  void *p = blk->data + blk->used;
  blk->used += size;
  return p;
}

void rsp_stack_thread_observe(rsp_model_builder *b, const rsp_event *ev)
{
  if (!rsp_symbolizer_follows(ev->type))
    return;
  size_t head = align8(sizeof(msg_head)), event = align8(sizeof(rsp_event));
  size_t size = head + event + align8(rsp_event_copy_size(ev));
  uint8_t *p = room(b->stack_thread, size);
  *(msg_head *)(void *)p = (msg_head){ MSG_OBSERVE, (uint32_t)size };
  rsp_event_copy((rsp_event *)(void *)(p + head), ev, p + head + event);
}

uint32_t rsp_stack_thread_chain(rsp_model_builder *b, const rsp_event *ev, uint32_t nr, uint32_t raw_nr)
{
  size_t size = align8(sizeof(chain_msg) + (size_t)nr * 8);
  chain_msg *c = room(b->stack_thread, size);
  *c = (chain_msg){ .head = { MSG_CHAIN, (uint32_t)size }, .ticket = b->n_tickets, .nr = nr, .raw_nr = raw_nr,
                    .type = ev->type, .pid = ev->pid, .tid = ev->tid, .misc = ev->misc, .present = ev->present,
                    .ip = ev->ip, .evsel = ev->evsel };
  memcpy(c->words, ev->callchain, (size_t)nr * 8);
  return b->n_tickets++;
}

static inline uint32_t settled(const uint32_t *stacks, uint32_t ticket)
{
  return ticket == RSP_NO_ID ? RSP_NO_ID : stacks[ticket];
}

void rsp_stack_thread_settle(rsp_model_builder *b)
{
  struct rsp_stack_thread *t = b->stack_thread;
  if (!t)
    return;
  t->blocks[t->produced % N_BLOCKS].last = true;
  pthread_mutex_lock(&t->lock);
  t->produced++;
  pthread_cond_signal(&t->changed);
  pthread_mutex_unlock(&t->lock);
  g_thread_join(t->thread);
  b->stack_thread = NULL;
  g_assert(t->stacks->len == b->n_tickets);
  const uint32_t *stacks = (const uint32_t *)(const void *)t->stacks->data;
  rsp_model *m = b->m;
  for (guint i = 0; i < m->sleeps->len; i++) {
    rsp_sleep *sl = &g_array_index(m->sleeps, rsp_sleep, i);
    sl->stack = settled(stacks, sl->stack);
  }
  for (guint i = 0; i < b->sleep_facts->len; i++) {
    rsp_sleep_facts *f = &g_array_index(b->sleep_facts, rsp_sleep_facts, i);
    f->wake.stack = settled(stacks, f->wake.stack);
  }
  for (guint i = 0; i < m->samples->len; i++) {
    rsp_sample *s = &g_array_index(m->samples, rsp_sample, i);
    s->stack = settled(stacks, s->stack);
  }
  for (guint i = 0; i < b->tstate->len; i++) {
    rsp_task_state *s = &g_array_index(b->tstate, rsp_task_state, i);
    if (s->pending_state) /* (else unset, or used already) */
      s->pending_state_stack = settled(stacks, s->pending_state_stack);
  }
  b->cur_stack = RSP_NO_ID;
  for (int i = 0; i < N_BLOCKS; i++)
    g_free(t->blocks[i].data);
  g_array_free(t->stacks, TRUE);
  pthread_mutex_destroy(&t->lock);
  pthread_cond_destroy(&t->changed);
  g_free(t);
}
