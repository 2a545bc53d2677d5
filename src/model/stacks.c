/* Stacks: callchains symbolized while the model is built and interned, equal chains sharing one
 * id. A frame is interned once by (function, dso) when resolved, by (address, dso) when not; a
 * stack is interned by its sequence of frame ids. A raw callchain already seen in the same process
 * is not symbolized again. */
#include "model/model-private.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MAX_FRAMES 256

typedef struct frame_key {
  const void *sym, *dso; /* the symbolizer's (or the model's) interned strings */
  uint64_t addr;         /* 0 when sym is set */
  bool kernel;
} frame_key;

static guint frame_key_hash(gconstpointer p)
{
  const frame_key *k = p;
  uint64_t h = (uint64_t)(uintptr_t)k->sym * 0x9e3779b97f4a7c15ull;
  h ^= (uint64_t)(uintptr_t)k->dso + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
  h ^= k->addr * 0xff51afd7ed558ccdull + k->kernel;
  return (guint)(h ^ (h >> 32));
}

static gboolean frame_key_equal(gconstpointer a, gconstpointer b)
{
  const frame_key *x = a, *y = b;
  return x->sym == y->sym && x->dso == y->dso && x->addr == y->addr && x->kernel == y->kernel;
}

/* A sequence of uint32_t (frame ids), or of uint64_t words (raw chains), with its length first. */
typedef struct seq_key {
  uint32_t n;
  uint32_t words; /* bytes / 4 */
  uint32_t data[];
} seq_key;

static guint seq_hash(gconstpointer p)
{
  const seq_key *k = p;
  uint32_t h = 2166136261u ^ k->n;
  for (uint32_t i = 0; i < k->words; i++)
    h = (h ^ k->data[i]) * 16777619u;
  return h;
}

static gboolean seq_equal(gconstpointer a, gconstpointer b)
{
  const seq_key *x = a, *y = b;
  return x->n == y->n && x->words == y->words && memcmp(x->data, y->data, x->words * 4u) == 0;
}

static seq_key *seq_new(uint32_t n, const void *data, uint32_t bytes)
{
  seq_key *k = g_malloc(sizeof *k + bytes);
  k->n = n;
  k->words = bytes / 4;
  memcpy(k->data, data, bytes);
  return k;
}

void rsp_stacks_init(rsp_model_builder *b)
{
  rsp_model *m = b->m;
  m->frames = g_array_new(FALSE, TRUE, sizeof(rsp_model_frame));
  m->stack_frames = g_array_new(FALSE, FALSE, sizeof(rsp_model_frame));
  m->stacks = g_array_new(FALSE, TRUE, sizeof(rsp_stack_span));
  b->frame_ids = g_hash_table_new_full(frame_key_hash, frame_key_equal, g_free, NULL);
  b->stack_ids = g_hash_table_new_full(seq_hash, seq_equal, g_free, NULL);
  b->chain_ids = g_hash_table_new_full(seq_hash, seq_equal, g_free, NULL);
  b->scratch_ids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
}

void rsp_stacks_free_builder(rsp_model_builder *b)
{
  g_hash_table_destroy(b->frame_ids);
  g_hash_table_destroy(b->stack_ids);
  g_hash_table_destroy(b->chain_ids);
  g_array_free(b->scratch_ids, TRUE);
}

static uint32_t frame_id(rsp_model_builder *b, const char *sym, const char *dso, uint64_t addr, bool kernel)
{
  frame_key k = { .sym = sym, .dso = dso, .addr = sym ? 0 : addr, .kernel = kernel };
  gpointer v = g_hash_table_lookup(b->frame_ids, &k);
  if (v)
    return GPOINTER_TO_UINT(v) - 1;
  rsp_model *m = b->m;
  char hex[32];
  if (!sym) {
    snprintf(hex, sizeof hex, "0x%" PRIx64, addr);
  }
  rsp_model_frame f = {
    .function = rsp_model_intern(m, sym ? sym : hex),
    .dso = rsp_model_intern(m, dso ? dso : "[unknown]"),
    .addr = addr,
    .kernel = kernel,
  };
  g_array_append_val(m->frames, f);
  uint32_t id = m->frames->len - 1;
  g_hash_table_insert(b->frame_ids, g_memdup2(&k, sizeof k), GUINT_TO_POINTER(id + 1));
  return id;
}

static rsp_stack_id intern_ids(rsp_model_builder *b, const uint32_t *ids, uint32_t n)
{
  if (n == 0)
    return RSP_NO_ID;
  rsp_model *m = b->m;
  seq_key *k = seq_new(n, ids, n * 4u);
  gpointer v = g_hash_table_lookup(b->stack_ids, k);
  if (v) {
    g_free(k);
    return GPOINTER_TO_UINT(v) - 1;
  }
  rsp_stack_span span = { .first = m->stack_frames->len, .n = n };
  for (uint32_t i = 0; i < n; i++)
    g_array_append_val(m->stack_frames, g_array_index(m->frames, rsp_model_frame, ids[i]));
  g_array_append_val(m->stacks, span);
  rsp_stack_id id = m->stacks->len - 1;
  g_hash_table_insert(b->stack_ids, k, GUINT_TO_POINTER(id + 1));
  return id;
}

rsp_stack_id rsp_stacks_intern_names(rsp_model_builder *b, const char *const *names, uint32_t n, bool kernel)
{
  g_array_set_size(b->scratch_ids, 0);
  for (uint32_t i = 0; i < n; i++) {
    /* The model's own interned copy keys the frame (the same name always gives the same pointer). */
    const char *sym = rsp_model_intern(b->m, names[i]);
    uint32_t id = frame_id(b, sym, kernel ? "[kernel.kallsyms]" : "[unknown]", 0, kernel);
    g_array_append_val(b->scratch_ids, id);
  }
  return intern_ids(b, (const uint32_t *)(void *)b->scratch_ids->data, n);
}

rsp_stack_id rsp_stacks_of_event(rsp_model_builder *b, const rsp_event *ev)
{
  if (b->opts.no_stacks || !ev->callchain || ev->callchain_nr == 0 || (!b->sym && !b->fake_symbol))
    return RSP_NO_ID;
  uint32_t nr = ev->callchain_nr > MAX_FRAMES ? MAX_FRAMES : ev->callchain_nr;
  /* The raw chain with the process: the same addresses in the same process resolve the same way
   * (an exec makes a new pid namespace of maps only in a new generation, which the symbolizer
   * follows; a chain cached across an exec of the same pid is the rare exception). */
  size_t bytes = (size_t)nr * 8 + 8;
  uint64_t stackbuf[MAX_FRAMES + 1];
  stackbuf[0] = (uint64_t)(uint32_t)ev->pid;
  memcpy(stackbuf + 1, ev->callchain, (size_t)nr * 8);
  seq_key *k = seq_new(nr, stackbuf, (uint32_t)bytes);
  gpointer v = g_hash_table_lookup(b->chain_ids, k);
  if (v) {
    g_free(k);
    return GPOINTER_TO_UINT(v) - 1;
  }
  uint32_t ids[MAX_FRAMES];
  uint32_t n = 0;
  if (b->sym) {
    rsp_frame frames[MAX_FRAMES];
    rsp_event copy = *ev;
    copy.callchain_nr = nr;
    unsigned got = rsp_symbolizer_callchain(b->sym, &copy, frames, MAX_FRAMES);
    for (unsigned i = 0; i < got; i++)
      ids[n++] = frame_id(b, frames[i].sym, frames[i].dso, frames[i].addr, frames[i].kernel);
  } else {
    bool kernel = false;
    for (uint32_t i = 0; i < nr; i++) {
      uint64_t a = ev->callchain[i];
      if (rsp_is_context_marker(a)) {
        kernel = a == (uint64_t)PERF_CONTEXT_KERNEL;
        continue;
      }
      const char *name = b->fake_symbol(a, b->fake_symbol_data);
      ids[n++] = frame_id(b, name ? rsp_model_intern(b->m, name) : NULL,
                          kernel ? "[kernel.kallsyms]" : NULL, a, kernel);
    }
  }
  rsp_stack_id id = intern_ids(b, ids, n);
  g_hash_table_insert(b->chain_ids, k, GUINT_TO_POINTER(id + 1));
  return id;
}

uint32_t rsp_model_n_stacks(const rsp_model *m)
{
  return m->stacks->len;
}

const rsp_model_frame *rsp_model_stack(const rsp_model *m, rsp_stack_id stack, uint32_t *n_frames)
{
  *n_frames = 0;
  if (stack >= m->stacks->len)
    return NULL;
  const rsp_stack_span *s = &g_array_index(m->stacks, rsp_stack_span, stack);
  *n_frames = s->n;
  return &g_array_index(m->stack_frames, rsp_model_frame, s->first);
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
  uint32_t n;
  const rsp_model_frame *f = rsp_model_stack(m, stack, &n);
  for (uint32_t i = 0; i < n; i++)
    if (!f[i].kernel)
      return &f[i];
  for (uint32_t i = 0; i < n; i++)
    if (!is_scheduler(f[i].function))
      return &f[i];
  return NULL;
}

bool rsp_model_stack_has(const rsp_model *m, rsp_stack_id stack, const char *name)
{
  uint32_t n;
  const rsp_model_frame *f = rsp_model_stack(m, stack, &n);
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(f[i].function, name) == 0)
      return true;
  return false;
}

bool rsp_stack_has_any(const rsp_model *m, rsp_stack_id stack, const char *const *names)
{
  uint32_t n;
  const rsp_model_frame *f = rsp_model_stack(m, stack, &n);
  for (uint32_t i = 0; i < n; i++)
    for (const char *const *x = names; *x; x++)
      if (strcmp(f[i].function, *x) == 0)
        return true;
  return false;
}
