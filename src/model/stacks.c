/* Stacks: callchains symbolized while the model is built and interned, equal chains sharing one
 * id. A frame is interned once by (function, dso) when resolved, by (address, dso) when not (a user
 * address in no mapping: one frame, "[unknown]"); a stack is interned by its sequence of frame ids. A raw
 * callchain already seen in the same process is not symbolized again (one with a frame in no mapping is
 * not kept; a thread whose chains are all new does not look them up). With two cores the new chains are
 * symbolized and interned on a thread of their own (stack-thread.c), the model keeping tickets meanwhile. */
#include "model/model-private.h"
#include "reader/zeroed.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MAX_FRAMES 256

/* Frames that tell why a task woke or what it slept in (rsp_stack_classes). */
static const char *const timer_names[] = {
  "hrtimer_wakeup", "process_timeout", "it_real_fn", "call_timer_fn", "timerfd_tmrproc", "posix_timer_fn",
  NULL,
};
static const char *const irq_names[] = {
  "do_IRQ", "common_interrupt", "asm_common_interrupt", "asm_sysvec_apic_timer_interrupt",
  "__sysvec_apic_timer_interrupt", "sysvec_apic_timer_interrupt", "irq_exit", "irq_exit_rcu", "__irq_exit_rcu",
  "handle_softirqs", "__do_softirq", "do_softirq", "handle_irq_event", "handle_edge_irq", "handle_fasteoi_irq",
  "asm_sysvec_call_function_single", "sysvec_call_function_single", "__sysvec_call_function_single",
  "flush_smp_call_function_queue", "sched_ttwu_pending", "vring_interrupt", "blk_done_softirq",
  NULL,
};
/* Of those, the hardware interrupt's own entry and exit (a softirq reached from them is the device's). */
static const char *const hardirq_names[] = {
  "do_IRQ", "common_interrupt", "asm_common_interrupt", "irq_exit", "irq_exit_rcu", "__irq_exit_rcu",
  "handle_irq_event", "handle_edge_irq", "handle_fasteoi_irq", "vring_interrupt", "run_ksoftirqd",
  NULL,
};
/* A task running the softirqs pending on its cpu itself, when it re-enables bottom halves. */
static const char *const bh_enable_names[] = {
  "__local_bh_enable_ip", "local_bh_enable", "do_softirq", "_raw_spin_unlock_bh", "rcu_read_unlock_bh",
  NULL,
};
static const char *const signal_names[] = {
  "kill_pid_info", "kill_pid_info_type", "__x64_sys_kill", "__x64_sys_tgkill", "__x64_sys_tkill", "do_tkill",
  "do_send_sig_info", "send_signal_locked", "__send_signal_locked", "signal_wake_up_state", "complete_signal",
  "kill_something_info", "group_send_sig_info", "__kill_pgrp_info", "do_send_specific",
  NULL,
};
static const char *const timed_sleep_names[] = {
  "do_nanosleep", "hrtimer_nanosleep", "__x64_sys_nanosleep", "__x64_sys_clock_nanosleep", "common_nsleep",
  "nanosleep", "clock_nanosleep", "__clock_nanosleep", "usleep", "sleep", "__nanosleep",
  NULL,
};
/* A futex wait's kernel frames (5.x to 6.18 names): it ends by a task's futex_wake, its timeout or a signal,
 * never by a device. */
static const char *const futex_wait_names[] = {
  "futex_wait", "__futex_wait", "futex_do_wait", "futex_wait_queue", "futex_wait_queue_me", "futex_wait_multiple",
  NULL,
};
static const char *const wait_names[] = {
  "do_wait", "kernel_wait4", "__do_sys_wait4", "__x64_sys_wait4", "kernel_waitid", "__do_sys_waitid",
  "__x64_sys_waitid", "wait4", "waitpid", "__waitpid", "waitid",
  NULL,
};

static const char *const task_path_names[] = {
  "irqentry_exit_to_user_mode", "exit_to_user_mode_loop", "exit_to_user_mode_prepare", "arch_do_signal_or_restart",
  "irqentry_exit", "get_signal", "do_group_exit", "do_exit", "preempt_schedule_irq", "syscall_exit_to_user_mode",
  NULL,
};
static const char *const disk_wake_names[] = {
  "bio_endio", "blk_mq_end_request", "__blk_mq_end_request", "blk_update_request", "blk_mq_complete_request",
  "end_bio_bh_io_sync", "blk_mq_end_request_batch", "scsi_end_request", "virtblk_done", "nvme_complete_rq",
  NULL,
};

static GHashTable *class_table(void)
{
  static GHashTable *table;
  if (g_once_init_enter(&table)) {
    GHashTable *t = g_hash_table_new(g_str_hash, g_str_equal);
    static const struct { const char *const *names; uint32_t cls; } sets[] = {
      { timer_names, RSP_FRAMES_TIMER }, { irq_names, RSP_FRAMES_IRQ }, { signal_names, RSP_FRAMES_SIGNAL },
      { timed_sleep_names, RSP_FRAMES_TIMED_SLEEP }, { wait_names, RSP_FRAMES_WAIT },
      { futex_wait_names, RSP_FRAMES_FUTEX_WAIT },
      { disk_wake_names, RSP_FRAMES_DISK_WAKE }, { task_path_names, RSP_FRAMES_TASK_PATH },
      { hardirq_names, RSP_FRAMES_HARDIRQ }, { bh_enable_names, RSP_FRAMES_BH_ENABLE },
    };
    for (unsigned i = 0; i < G_N_ELEMENTS(sets); i++)
      for (const char *const *n = sets[i].names; *n; n++) {
        uint32_t cls = GPOINTER_TO_UINT(g_hash_table_lookup(t, *n)) | sets[i].cls;
        g_hash_table_insert(t, (gpointer)*n, GUINT_TO_POINTER(cls));
      }
    g_once_init_leave(&table, t);
  }
  return table;
}

static uint32_t classes_of(const char *function)
{
  uint32_t c = GPOINTER_TO_UINT(g_hash_table_lookup(class_table(), function));
  if (g_str_has_prefix(function, "asm_sysvec_") || g_str_has_prefix(function, "sysvec_") ||
      g_str_has_prefix(function, "__sysvec_"))
    c |= RSP_FRAMES_IRQ | RSP_FRAMES_HARDIRQ;
  return c;
}

typedef struct frame_key {
  const void *sym, *dso; /* the symbolizer's (or the model's) interned strings */
  uint64_t addr;         /* 0 when sym is set */
  bool kernel;
} frame_key;

static inline uint32_t frame_key_hash(const frame_key *k)
{
  uint64_t h = (uint64_t)(uintptr_t)k->sym * 0x9e3779b97f4a7c15ull;
  h ^= (uint64_t)(uintptr_t)k->dso + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
  h ^= k->addr * 0xff51afd7ed558ccdull + k->kernel;
  return (uint32_t)(h ^ (h >> 32));
}

static inline bool frame_key_equal(const frame_key *x, const frame_key *y)
{
  return x->sym == y->sym && x->dso == y->dso && x->addr == y->addr && x->kernel == y->kernel;
}

/* A raw chain's key (pid, then the chain's uint64_t words), with its length first and its hash (chain_hash_of)
 * beside it, worked out once. */
typedef struct seq_key {
  uint32_t n;
  uint32_t words; /* bytes / 4 */
  guint hash;
  uint32_t pad;
  uint32_t data[];
} seq_key;
_Static_assert(sizeof(seq_key) == 16, "seq_key's data follows its 16-byte header (rsp_stacks_of_event's probe)");

/* The hash of a stack's WORDS frame ids. */
static uint32_t hash_ids(const uint32_t *data, uint32_t words)
{
  /* Two independent lanes (even and odd words) halve the chain of multiplications. */
  uint64_t h = 0x9e3779b97f4a7c15ull ^ words, g = 0x632be59bd9b4e019ull ^ words;
  uint32_t i = 0;
  for (; i + 4 <= words; i += 4) {
    uint64_t w, v;
    memcpy(&w, &data[i], 8);
    memcpy(&v, &data[i + 2], 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    g = (g ^ v) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    g ^= g >> 31;
  }
  for (; i < words; i++)
    h = (h ^ data[i]) * 0xc4ceb9fe1a85ec53ull;
  h ^= g * 0x9e3779b97f4a7c15ull;
  h ^= h >> 32;
  return (uint32_t)h;
}

static guint seq_hash(gconstpointer p)
{
  return ((const seq_key *)p)->hash;
}

/* A raw chain's lookup key that points at the event's chain instead of holding a copy of it (pad says so):
 * most chains were seen before, and copying each (90 frames deep on deep3m) to look it up cost 92 M
 * instructions on each side of the pipeline. */
enum { SEQ_HELD = 0, SEQ_POINTED = 1 };
typedef struct chain_ref {
  seq_key k;
  uint64_t pid;
  const uint64_t *chain;
} chain_ref;

static gboolean seq_equal(gconstpointer a, gconstpointer b)
{
  const seq_key *x = a, *y = b;
  if (x->n != y->n || x->words != y->words)
    return FALSE;
  if (x->pad == SEQ_POINTED) {
    const seq_key *t = x;
    x = y;
    y = t;
  }
  if (y->pad != SEQ_POINTED)
    return memcmp(x->data, y->data, x->words * 4u) == 0;
  const chain_ref *r = (const chain_ref *)(const void *)y; /* x holds [pid, chain] */
  return memcmp(x->data, &r->pid, 8) == 0 && memcmp(x->data + 2, r->chain, (size_t)x->n * 8) == 0;
}

/* A thread's last raw chain of an event (sched_switch, sched_waking, a sample) and its stack, tried before the
 * hash: threads block, wake others and are sampled at the same few places over and over, and comparing a chain
 * costs a fifth of hashing it (deep3m: 90 frames a chain). Direct mapped by tid and evsel; KEY is chain_ids' own
 * (pid, chain), alive as long as the table. */
#define LAST_CHAINS 8192u
typedef struct rsp_last_chain {
  const seq_key *key; /* NULL: none */
  const rsp_evsel *evsel;
  int32_t tid;
  rsp_stack_id id;
  /* How the chain table served this thread's other chains: a thread in code without frame pointers brings a new
   * chain nearly every time (its frame-pointer walk reads stack words), whose lookup, copy and keeping in the table
   * cost more than they save (a recorded build: 40,000 of 565,000 lookups found). When fewer than 1 in 16 of 32 were
   * found, its chains skip the table but for 1 in 64 (which sees whether that changes). */
  uint32_t lookups, found, skipped;
} rsp_last_chain;

enum { CHAIN_TRIAL = 32, CHAIN_FOUND_RATIO = 16, CHAIN_PROBE = 64, CHAIN_WINDOW = 4096 };

/* Whether LAST's thread's chains skip the chain table this time. */
static bool skips_table(rsp_last_chain *last)
{
  if (last->lookups < CHAIN_TRIAL || last->found * CHAIN_FOUND_RATIO >= last->lookups)
    return false;
  return last->skipped++ % CHAIN_PROBE != 0;
}

/* The chain table's keys, one after the other in blocks freed together with the table: a recorded build keeps
 * some 140,000 of them, and a malloc and a free each were ~7% of the model's thread. */
#define KEY_BLOCK (256u * 1024u)
typedef struct rsp_key_block {
  struct rsp_key_block *next;
  size_t used, size;
  uint64_t data[];
} rsp_key_block;

static void *key_alloc(rsp_key_block **blocks, size_t bytes)
{
  bytes = (bytes + 7) & ~(size_t)7;
  rsp_key_block *k = *blocks;
  if (!k || k->size - k->used < bytes) {
    size_t size = MAX(KEY_BLOCK, bytes);
    k = g_malloc(sizeof *k + size);
    *k = (rsp_key_block){ .next = *blocks, .size = size };
    *blocks = k;
  }
  void *p = (char *)k->data + k->used;
  k->used += bytes;
  return p;
}

void rsp_stacks_init(rsp_model_builder *b)
{
  rsp_model *m = b->m;
  m->frames = g_array_new(FALSE, TRUE, sizeof(rsp_model_frame));
  m->stack_frames = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  m->stacks = g_array_new(FALSE, TRUE, sizeof(rsp_stack_span));
  rsp_id_table_init(&b->frame_ids);
  b->frame_keys = g_array_new(FALSE, FALSE, sizeof(frame_key));
  rsp_id_table_init(&b->stack_ids);
  b->chain_ids = g_hash_table_new(seq_hash, seq_equal);
  b->last_chains = rsp_new_zeroed(rsp_last_chain, LAST_CHAINS);
  b->frame_classes = g_array_new(FALSE, FALSE, sizeof(uint32_t));
}

void rsp_stacks_free_builder(rsp_model_builder *b)
{
  if (!b->frame_keys)
    return; /* (freed already) */
  rsp_id_table_clear(&b->frame_ids);
  g_array_free(b->frame_keys, TRUE);
  b->frame_keys = NULL;
  rsp_id_table_clear(&b->stack_ids);
  g_hash_table_destroy(b->chain_ids);
  b->chain_ids = NULL;
  for (rsp_key_block *k = b->keys, *next; k; k = next) {
    next = k->next;
    g_free(k);
  }
  b->keys = NULL;
  g_free(b->last_chains);
  b->last_chains = NULL;
  g_array_free(b->frame_classes, TRUE);
  b->frame_classes = NULL;
}

/* A user address in no mapping the recording holds (no symbol, no dso) is one frame, "[unknown]" as perf names it: a
 * frame-pointer walk through code built without them reads stack words as return addresses (7f1d2af4b8a8 under cc1),
 * each of which made a frame and a stack of its own (a meson build of rsp: 338,000 frames, 286,000 stacks) */
static inline bool in_no_mapping(const char *sym, const char *dso, bool kernel)
{
  return !sym && !dso && !kernel;
}

static uint32_t frame_id(rsp_model_builder *b, const char *sym, const char *dso, uint64_t addr, bool kernel)
{
  bool nowhere = in_no_mapping(sym, dso, kernel);
  if (nowhere && b->nowhere_id) /* (a build's walks through code without frame pointers: 580,000 times) */
    return b->nowhere_id - 1;
  frame_key k = { .sym = sym, .dso = dso, .addr = sym || nowhere ? 0 : addr, .kernel = kernel };
  uint32_t hash = frame_key_hash(&k), at = UINT32_MAX;
  for (uint32_t seen; (seen = rsp_id_table_next(&b->frame_ids, hash, &at)) != UINT32_MAX;)
    if (frame_key_equal(&g_array_index(b->frame_keys, frame_key, seen), &k))
      return seen;
  rsp_model *m = b->m;
  char hex[32];
  const char *label = NULL;
  if (!sym) {
    snprintf(hex, sizeof hex, "0x%" PRIx64, addr);
    if (!dso || dso != b->unknown_dso) { /* (the addresses of one stripped binary come one after the other) */
      const char *base = dso && dso[0] != '[' ? strrchr(dso, '/') : NULL;
      base = base ? base + 1 : dso;
      char *unknown = base && base[0] && strcmp(base, "[unknown]") != 0 ? g_strdup_printf("[unknown in %s]", base)
                                                                        : g_strdup("[unknown]");
      b->unknown_label = rsp_model_intern_frame(m, unknown);
      b->unknown_dso = dso;
      g_free(unknown);
    }
    label = b->unknown_label;
  }
  rsp_model_frame f = {
    .function = rsp_model_intern_frame(m, sym ? sym : nowhere ? "[unknown]" : hex),
    .dso = rsp_model_intern_frame(m, dso ? dso : "[unknown]"),
    .addr = addr,
    .kernel = kernel,
  };
  f.label = label ? label : f.function;
  g_array_append_val(m->frames, f);
  g_array_append_val(b->frame_classes, (uint32_t){ classes_of(f.function) });
  uint32_t id = m->frames->len - 1;
  g_array_append_val(b->frame_keys, k); /* (at its id: frames are made here alone) */
  rsp_id_table_insert(&b->frame_ids, at, hash, id);
  if (nowhere)
    b->nowhere_id = id + 1;
  return id;
}

/* F's frame id, kept in the symbolizer's note of its answer when it has one: a resolved frame's id depends on its
 * answer alone (function, dso), and reading it there saves a lookup in the frame table per frame of every new chain */
static uint32_t frame_id_of(rsp_model_builder *b, const rsp_frame *f)
{
  if (f->note && *f->note)
    return *f->note - 1;
  uint32_t id = frame_id(b, f->sym, f->dso, f->addr, f->kernel);
  if (f->note)
    *f->note = id + 1;
  return id;
}

static rsp_stack_id intern_ids(rsp_model_builder *b, const uint32_t *ids, uint32_t n)
{
  if (n == 0)
    return RSP_NO_ID;
  n = MIN(n, MAX_FRAMES); /* (the callers' arrays hold no more) */
  rsp_model *m = b->m;
  /* looked up in place (a recorded build: 486,000 looked up, 132,000 new; its new raw chains differ in addresses
   * inside the same functions, or in stack words all [unknown]): a stack's key is its frames in stack_frames */
  uint32_t hash = hash_ids(ids, n), at = UINT32_MAX;
  for (uint32_t seen; (seen = rsp_id_table_next(&b->stack_ids, hash, &at)) != UINT32_MAX;) {
    const rsp_stack_span *st = &g_array_index(m->stacks, rsp_stack_span, seen);
    if (st->n == n && memcmp(&g_array_index(m->stack_frames, uint32_t, st->first), ids, n * 4u) == 0)
      return seen;
  }
  rsp_stack_span span = { .first = m->stack_frames->len, .n = n };
  g_array_append_vals(m->stack_frames, ids, n);
  for (uint32_t i = 0; i < n; i++)
    span.classes |= g_array_index(b->frame_classes, uint32_t, ids[i]);
  /* In interrupt context when, from the innermost frame out, an interrupt frame comes before any
   * frame of the way back to the task (a task killed in an interrupt's return exits in its own
   * context, with the interrupt entry further out). */
  for (uint32_t i = 0; i < n; i++) {
    uint32_t c = g_array_index(b->frame_classes, uint32_t, ids[i]);
    if (c & RSP_FRAMES_TASK_PATH)
      break;
    if (c & RSP_FRAMES_IRQ) {
      span.classes |= RSP_FRAMES_IN_IRQ;
      break;
    }
  }
  if ((span.classes & RSP_FRAMES_IN_IRQ) && (span.classes & RSP_FRAMES_BH_ENABLE) &&
      !(span.classes & RSP_FRAMES_HARDIRQ))
    span.classes |= RSP_FRAMES_IN_TASK_SOFTIRQ;
  g_array_append_val(m->stacks, span);
  rsp_stack_id id = m->stacks->len - 1;
  rsp_id_table_insert(&b->stack_ids, at, hash, id);
  return id;
}

/* How much of CHAIN (NR addresses) to keep. A frame-pointer walk whose frame points to itself (or
 * to a frame whose saved pointer leads back) repeats one return address until perf's max_stack:
 * those copies are the loop, not callers, so the chain is cut after the first of them. Only a run
 * that reaches the chain's end is a loop: a recursion at one call site repeats its return address
 * too, but returns to its callers, which follow the run. */
static uint32_t cut_self_loop(const uint64_t *chain, uint32_t nr)
{
  if (nr < 2 || chain[nr - 1] != chain[nr - 2] || rsp_is_context_marker(chain[nr - 1]))
    return nr;
  uint32_t first = nr - 2;
  while (first > 0 && chain[first - 1] == chain[nr - 1])
    first--;
  return first + 1;
}

/* The hash of a raw chain's key, [the context task's pid, then the chain (at most MAX_FRAMES)], read where its
 * words lie: the pid, then the chain two words a step (as hash_ids does the frame ids of a stack). */
static guint chain_hash_of(uint64_t pid, const uint64_t *chain, uint32_t nr)
{
  uint64_t h = 0x9e3779b97f4a7c15ull ^ nr, g = 0x632be59bd9b4e019ull ^ pid;
  uint32_t i = 0;
  for (; i + 2 <= nr; i += 2) {
    h = (h ^ chain[i]) * 0xff51afd7ed558ccdull;
    g = (g ^ chain[i + 1]) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    g ^= g >> 31;
  }
  if (i < nr)
    h = (h ^ chain[i]) * 0xc4ceb9fe1a85ec53ull;
  h ^= g * 0x9e3779b97f4a7c15ull;
  h ^= h >> 32;
  return (guint)h;
}

static uint32_t chain_len(const rsp_event *ev)
{
  return ev->callchain_nr > MAX_FRAMES ? MAX_FRAMES : ev->callchain_nr;
}

rsp_stack_id rsp_stacks_resolve(rsp_model_builder *b, const rsp_event *ev, uint32_t nr, uint32_t raw_nr,
                                bool *nowhere)
{
  uint32_t ids[MAX_FRAMES];
  uint32_t n = 0;
  *nowhere = false;
  if (b->sym) {
    rsp_frame frames[MAX_FRAMES];
    rsp_event copy = *ev;
    copy.callchain_nr = nr;
    unsigned got = rsp_symbolizer_callchain(b->sym, &copy, frames, MAX_FRAMES);
    for (unsigned i = 0; i < got; i++) {
      ids[n++] = frame_id_of(b, &frames[i]);
      *nowhere |= in_no_mapping(frames[i].sym, frames[i].dso, frames[i].kernel);
    }
  } else {
    bool kernel = false;
    for (uint32_t i = 0; i < nr; i++) {
      uint64_t a = ev->callchain[i];
      if (rsp_is_context_marker(a)) {
        kernel = a == (uint64_t)PERF_CONTEXT_KERNEL;
        continue;
      }
      const char *name = b->fake_symbol(a, b->fake_symbol_data);
      const char *sym = name ? rsp_model_intern_frame(b->m, name) : NULL, *dso = kernel ? "[kernel.kallsyms]" : NULL;
      ids[n++] = frame_id(b, sym, dso, a, kernel);
      *nowhere |= in_no_mapping(sym, dso, kernel);
    }
  }
  rsp_stack_id id = intern_ids(b, ids, n);
  if (nr < raw_nr && id != RSP_NO_ID) /* what lay beyond the cut is unknown */
    g_array_index(b->m->stacks, rsp_stack_span, id).classes |= RSP_FRAMES_LOOP_CUT;
  return id;
}

rsp_stack_id rsp_stacks_of_event(rsp_model_builder *b, const rsp_event *ev)
{
  /* (with the stacks' thread, B->sym is its own: it opens the symbolizer) */
  if (b->opts.no_stacks || (!b->stack_thread && !b->sym && !b->fake_symbol))
    return RSP_NO_ID;
  uint64_t own[2];
  rsp_event ip_only;
  if (!ev->callchain || ev->callchain_nr == 0) {
    /* no call chain recorded: a sampling event's ip is its one frame, as perf script shows it. Not
     * a tracepoint's: its ip is where the tracepoint sits (try_to_wake_up, __schedule), which says
     * nothing of who called, and the wakeup and switch rules read "no stack" as "no callchain". */
    if (ev->type != PERF_RECORD_SAMPLE || !(ev->present & PERF_SAMPLE_IP) || !ev->evsel ||
        ev->evsel->attr.type == PERF_TYPE_TRACEPOINT)
      return RSP_NO_ID;
    uint16_t cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
    bool kernel = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
    own[0] = kernel ? (uint64_t)PERF_CONTEXT_KERNEL : (uint64_t)PERF_CONTEXT_USER;
    own[1] = ev->ip;
    ip_only = *ev;
    ip_only.callchain = own;
    ip_only.callchain_nr = 2;
    ev = &ip_only;
  }
  uint32_t nr = chain_len(ev);
  if (!b->stack_thread && b->sym && ev->stack_user && ev->stack_user_dyn_size && ev->regs_user) {
    /* -g dwarf: the raw chain (kernel frames and the user ip) does not tell the user stack apart;
     * the symbolizer unwinds the sample's own copy of it */
    rsp_frame frames[MAX_FRAMES];
    uint32_t ids[MAX_FRAMES];
    unsigned got = rsp_symbolizer_callchain(b->sym, ev, frames, MAX_FRAMES);
    for (unsigned i = 0; i < got; i++)
      ids[i] = frame_id_of(b, &frames[i]);
    return intern_ids(b, ids, got);
  }
  /* The raw chain with the process: the same addresses in the same process resolve the same way
   * (an exec makes a new pid namespace of maps only in a new generation, which the symbolizer
   * follows; a chain cached across an exec of the same pid is the rare exception). */
  /* the lookup key points at the chain (most chains were seen before); only a new one is copied */
  chain_ref probe = { .k = { .n = nr, .words = (uint32_t)(((size_t)nr * 8 + 8) / 4), .pad = SEQ_POINTED },
                      .pid = (uint64_t)(uint32_t)ev->pid, .chain = ev->callchain };
  uint32_t slot = ((uint32_t)ev->tid * 0x9e3779b1u + (ev->evsel ? ev->evsel->index : 0) * 0x85ebca6bu) >> 19;
  rsp_last_chain *last = &b->last_chains[slot % LAST_CHAINS];
  if (last->tid != ev->tid || last->evsel != ev->evsel)
    *last = (rsp_last_chain){ .evsel = ev->evsel, .tid = ev->tid, .id = RSP_NO_ID };
  else if (last->key && seq_equal(last->key, &probe.k))
    return last->id;
  bool skip = skips_table(last);
  if (!skip) {
    if (last->lookups == CHAIN_WINDOW) { /* (the recent lookups weigh more) */
      last->lookups /= 2;
      last->found /= 2;
    }
    last->lookups++;
    probe.k.hash = chain_hash_of(probe.pid, ev->callchain, nr);
    gpointer held, v;
    if (g_hash_table_lookup_extended(b->chain_ids, &probe.k, &held, &v) && v) {
      last->found++;
      last->key = held;
      last->id = GPOINTER_TO_UINT(v) - 1;
      return last->id;
    }
  }
  uint32_t raw_nr = nr;
  nr = cut_self_loop(ev->callchain, nr);
  rsp_stack_id id;
  bool nowhere = false; /* a user frame in no mapping */
  if (b->stack_thread) {
    /* the stacks' thread symbolizes it later; the model keeps its ticket. A chain of context markers alone makes no
     * stack (each other word makes a frame at least) */
    bool any = false;
    for (uint32_t i = 0; i < nr && !any; i++)
      any = !rsp_is_context_marker(ev->callchain[i]);
    if (!any)
      return RSP_NO_ID;
    id = rsp_stack_thread_chain(b, ev, nr, raw_nr);
  } else {
    id = rsp_stacks_resolve(b, ev, nr, raw_nr, &nowhere);
  }
  /* A chain with a frame in no mapping is not kept: a frame-pointer walk off the rails, whose stack words differ from
   * one sample to the next, does not come again (a meson build of rsp: 36 MB of chains, each seen once). (With the
   * stacks' thread, which answers later, every new chain is kept.) */
  if (nowhere || skip)
    return id;
  seq_key *k = key_alloc(&b->keys, sizeof *k + (size_t)raw_nr * 8 + 8);
  *k = probe.k;
  k->pad = SEQ_HELD;
  memcpy(k->data, &probe.pid, 8);
  memcpy(k->data + 2, ev->callchain, (size_t)raw_nr * 8);
  /* (replace: a chain held with no stack before keeps K, not the old key, which insert would keep) */
  g_hash_table_replace(b->chain_ids, k, GUINT_TO_POINTER(id + 1));
  if (id != RSP_NO_ID) { /* (no stack is looked for again, as chain_ids does: its maps may come later) */
    last->key = k;
    last->id = id;
  }
  return id;
}

bool rsp_model_stack_looped(const rsp_model *m, rsp_stack_id stack)
{
  return (rsp_stack_classes(m, stack) & RSP_FRAMES_LOOP_CUT) != 0;
}

uint32_t rsp_model_n_stacks(const rsp_model *m)
{
  return m->stacks->len;
}

rsp_stack_frames rsp_model_stack(const rsp_model *m, rsp_stack_id stack)
{
  rsp_stack_frames f = { .table = (const rsp_model_frame *)(const void *)m->frames->data };
  if (stack >= m->stacks->len)
    return f;
  const rsp_stack_span *s = &g_array_index(m->stacks, rsp_stack_span, stack);
  f.ids = &g_array_index(m->stack_frames, uint32_t, s->first);
  f.n = s->n;
  return f;
}

const rsp_model_frame *rsp_model_stack_top(const rsp_model *m, rsp_stack_id stack)
{
  rsp_stack_frames f = rsp_model_stack(m, stack);
  return f.n ? rsp_frame_at(f, 0) : NULL;
}

static bool is_scheduler(const char *f)
{
  static const char *const names[] = {
    "schedule", "__schedule", "schedule_idle", "schedule_timeout", "schedule_hrtimeout",
    "schedule_hrtimeout_range", "schedule_hrtimeout_range_clock", "schedule_preempt_disabled",
    "io_schedule", "io_schedule_timeout", "preempt_schedule", "preempt_schedule_common",
    "preempt_schedule_irq", "preempt_schedule_notrace", "__cond_resched", "_cond_resched",
    "schedule_timeout_uninterruptible", "schedule_timeout_interruptible", "schedule_timeout_killable",
    "__traceiter_sched_switch", "perf_trace_sched_switch", "bit_wait_io", "rwsem_down_read_slowpath",
    NULL,
  };
  if (g_str_has_prefix(f, "__traceiter_") || g_str_has_prefix(f, "perf_trace_") ||
      g_str_has_prefix(f, "trace_event_raw_event_"))
    return true;
  for (const char *const *n = names; *n; n++)
    if (strcmp(f, *n) == 0)
      return true;
  return false;
}

const rsp_model_frame *rsp_model_stack_label(const rsp_model *m, rsp_stack_id stack)
{
  rsp_stack_frames f = rsp_model_stack(m, stack);
  for (uint32_t i = 0; i < f.n; i++)
    if (!rsp_frame_at(f, i)->kernel)
      return rsp_frame_at(f, i);
  return rsp_model_stack_kernel_site(m, stack); /* (all its frames are the kernel's) */
}

const rsp_model_frame *rsp_model_stack_kernel_site(const rsp_model *m, rsp_stack_id stack)
{
  rsp_stack_frames f = rsp_model_stack(m, stack);
  for (uint32_t i = 0; i < f.n; i++)
    if (rsp_frame_at(f, i)->kernel && !is_scheduler(rsp_frame_at(f, i)->function))
      return rsp_frame_at(f, i);
  return NULL;
}

const char *rsp_model_wait_site(const rsp_model *m, rsp_stack_id stack, bool with_dso, char *buf, size_t size)
{
  if (stack == RSP_NO_ID || stack >= rsp_model_n_stacks(m))
    return NULL;
  const rsp_model_frame *f = rsp_model_stack_label(m, stack);
  if (!f || !f->function)
    return NULL;
  const rsp_model_frame *k = !f->kernel && f->label != f->function ? rsp_model_stack_kernel_site(m, stack) : NULL;
  if (k && k->function) {
    const char *bin = f->dso && f->dso[0] != '[' ? f->dso : NULL;
    const char *base = bin && !with_dso && strrchr(bin, '/') ? strrchr(bin, '/') + 1 : bin;
    if (base)
      g_snprintf(buf, size, "%s (called from %s, no symbols)", k->function, base);
    else
      g_snprintf(buf, size, "%s (called from code without symbols)", k->function);
    return buf;
  }
  if (!with_dso)
    return f->function;
  g_snprintf(buf, size, "%s (%s)", f->function, f->dso);
  return buf;
}

bool rsp_model_stack_has(const rsp_model *m, rsp_stack_id stack, const char *name)
{
  rsp_stack_frames f = rsp_model_stack(m, stack);
  for (uint32_t i = 0; i < f.n; i++)
    if (strcmp(rsp_frame_at(f, i)->function, name) == 0)
      return true;
  return false;
}

uint32_t rsp_stack_classes(const rsp_model *m, rsp_stack_id stack)
{
  return stack < m->stacks->len ? g_array_index(m->stacks, rsp_stack_span, stack).classes : 0;
}
