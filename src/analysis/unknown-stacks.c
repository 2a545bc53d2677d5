/* Running time whose samples' stacks name no function (issue 15, item 6): a run with samples is
 * "understood" only as far as its samples say where it was. A stack names no function when none of
 * its frames resolved (the model spells an unresolved frame by its address, "0x7f12...", or "[unknown]" in the
 * dso "[unknown]" when no recorded mapping held it), or when it loops on itself: the unwinder went round
 * a cycle of frames to the depth limit, so what it shows is not the stack. Why, as far as the
 * frames say: user addresses outside every mapping (a JIT without a perf map, a lost MMAP), inside a
 * mapped file that gave no symbol (the binary missing where it was looked for, stripped, or not the
 * build recorded, as the symbolizer found it: rsp_model_dso_status of the innermost such frame), kernel
 * addresses the kallsyms used does not hold. */
#include "categories-private.h"

#include <string.h>

enum {
  LOOP_MAX_PERIOD = 4,  /* a cycle of at most this many frames ... */
  LOOP_MIN_FRAMES = 16, /* ... repeated over at least this many outermost frames */
};

static bool resolved(const rsp_model_frame *f)
{
  const char *fn = f->function;
  return fn && *fn && !(fn[0] == '0' && fn[1] == 'x') && strcmp(fn, "[unknown]") != 0;
}

/* (A user frame in no mapping is one frame, "[unknown]", whatever its address: never the same as another, as the
 * addresses were not) */
static bool same(const rsp_model_frame *x, const rsp_model_frame *y)
{
  return x->function == y->function && x->dso == y->dso && x->kernel == y->kernel &&
         (resolved(x) || (x->addr == y->addr && strcmp(x->function, "[unknown]") != 0));
}

/* The outermost frames (the end of the innermost-first array) repeat a cycle of at most
 * LOOP_MAX_PERIOD frames over at least LOOP_MIN_FRAMES of them. */
static bool loops(rsp_stack_frames f)
{
  uint32_t n = f.n;
  if (n < LOOP_MIN_FRAMES)
    return false;
  for (uint32_t p = 1; p <= LOOP_MAX_PERIOD; p++) {
    uint32_t k = 0; /* how many outermost frames repeat the one P further out */
    while (k + p < n && same(rsp_frame_at(f, n - 1 - k), rsp_frame_at(f, n - 1 - k - p)))
      k++;
    if (k + p >= LOOP_MIN_FRAMES)
      return true;
  }
  return false;
}

rsp_unknown_stack_reason rsp_unknown_stack_classify(const rsp_model *m, rsp_stack_id stack)
{
  if (stack == RSP_NO_ID)
    return RSP_UNKNOWN_STACK_NONE;
  rsp_stack_frames f = rsp_model_stack(m, stack);
  if (f.n == 0)
    return RSP_UNKNOWN_STACK_NONE;
  if (rsp_model_stack_looped(m, stack) || loops(f))
    return RSP_UNKNOWN_STACK_LOOP;
  bool user = false;
  const char *mapped = NULL; /* the innermost user frame's file */
  for (uint32_t i = 0; i < f.n; i++) {
    const rsp_model_frame *fi = rsp_frame_at(f, i);
    if (resolved(fi))
      return RSP_UNKNOWN_STACK_NONE;
    if (!fi->kernel) {
      user = true;
      if (!mapped && fi->dso && *fi->dso && !rsp_dso_is_anonymous(fi->dso))
        mapped = fi->dso;
    }
  }
  if (!user)
    return RSP_UNKNOWN_STACK_KERNEL;
  if (!mapped)
    return RSP_UNKNOWN_STACK_NO_MAP;
  switch (rsp_model_dso_status(m, mapped)) {
  case RSP_DSO_MISSING: return RSP_UNKNOWN_STACK_BINARY_MISSING;
  case RSP_DSO_STRIPPED: return RSP_UNKNOWN_STACK_STRIPPED;
  case RSP_DSO_BUILD_ID_MISMATCH: return RSP_UNKNOWN_STACK_BUILD_ID_MISMATCH;
  default: return RSP_UNKNOWN_STACK_NO_SYMBOL;
  }
}

static const char *const reason_keys[RSP_N_UNKNOWN_STACK_REASONS] = {
  [RSP_UNKNOWN_STACK_NONE] = "none",           [RSP_UNKNOWN_STACK_NO_MAP] = "no_map",
  [RSP_UNKNOWN_STACK_NO_SYMBOL] = "no_symbol", [RSP_UNKNOWN_STACK_KERNEL] = "kernel",
  [RSP_UNKNOWN_STACK_LOOP] = "loop",                  [RSP_UNKNOWN_STACK_BINARY_MISSING] = "binary_missing",
  [RSP_UNKNOWN_STACK_STRIPPED] = "stripped",         [RSP_UNKNOWN_STACK_BUILD_ID_MISMATCH] = "build_id_mismatch",
};

static const char *const reason_labels[RSP_N_UNKNOWN_STACK_REASONS] = {
  [RSP_UNKNOWN_STACK_NONE] = "a function is named",
  [RSP_UNKNOWN_STACK_NO_MAP] = "user code in no file (JIT without a perf map, or no MMAP recorded)",
  [RSP_UNKNOWN_STACK_NO_SYMBOL] = "no symbol of the mapped file holds them (or the file was not read)",
  [RSP_UNKNOWN_STACK_BINARY_MISSING] = "the mapped binary is missing",
  [RSP_UNKNOWN_STACK_STRIPPED] = "the mapped binary is stripped",
  [RSP_UNKNOWN_STACK_BUILD_ID_MISMATCH] = "the binary found is another build (build id)",
  [RSP_UNKNOWN_STACK_KERNEL] = "kernel addresses not in the kallsyms used",
  [RSP_UNKNOWN_STACK_LOOP] = "the callchain loops on itself",
};

const char *rsp_unknown_stack_reason_key(rsp_unknown_stack_reason r)
{
  return (unsigned)r < RSP_N_UNKNOWN_STACK_REASONS ? reason_keys[r] : "none";
}

const char *rsp_unknown_stack_reason_label(rsp_unknown_stack_reason r)
{
  return (unsigned)r < RSP_N_UNKNOWN_STACK_REASONS ? reason_labels[r] : reason_labels[0];
}

static rsp_unknown_stack_reason reason_of(rsp_categories_work *w, const rsp_model *m, rsp_stack_id stack)
{
  if (stack == RSP_NO_ID)
    return RSP_UNKNOWN_STACK_NONE;
  if (!w->stack_reason)
    w->stack_reason = g_new0(uint8_t, rsp_model_n_stacks(m) + 1);
  if (stack >= rsp_model_n_stacks(m))
    return RSP_UNKNOWN_STACK_NONE;
  if (!w->stack_reason[stack])
    w->stack_reason[stack] = (uint8_t)(rsp_unknown_stack_classify(m, stack) + 1);
  return (rsp_unknown_stack_reason)(w->stack_reason[stack] - 1);
}

/* floor(X * K / N) for K <= N without overflow (N, a run's samples, is small) */
static uint64_t share(uint64_t x, uint64_t k, uint64_t n)
{
  return x / n * k + x % n * k / n;
}

void rsp_unknown_stacks_attribute_run(rsp_categories *out, const rsp_run *run, uint64_t a, uint64_t b)
{
  rsp_categories_work *w = out->work_;
  const rsp_model *m = rsp_paths_model(w->paths);
  if (b <= a)
    return;
  uint64_t by_reason[RSP_N_UNKNOWN_STACK_REASONS] = { 0 }, n_unknown = 0;
  for (uint32_t i = 0; i < run->n_samples; i++) {
    rsp_unknown_stack_reason r = reason_of(w, m, rsp_model_sample(m, run->first_sample + i)->stack);
    if (r != RSP_UNKNOWN_STACK_NONE) {
      by_reason[r]++;
      n_unknown++;
    }
  }
  uint64_t len = b - a;
  if (!n_unknown) {
    rsp_categories_add_ns(out, RSP_CAT_UNDERSTOOD, len);
    return;
  }
  /* the run's time shared by its samples, each reason its share; the rounding to the last reason */
  uint64_t unknown = share(len, n_unknown, run->n_samples), given = 0, seen = 0;
  for (int r = 1; r < RSP_N_UNKNOWN_STACK_REASONS; r++) {
    if (!by_reason[r])
      continue;
    seen += by_reason[r];
    uint64_t ns = seen == n_unknown ? unknown - given : share(unknown, by_reason[r], n_unknown);
    given += ns;
    out->unknown_stack_ns[r] += ns;
  }
  rsp_categories_add_ns(out, RSP_CAT_UNKNOWN_STACK, unknown);
  rsp_categories_add_ns(out, RSP_CAT_UNDERSTOOD, len - unknown);
}

void rsp_unknown_stacks_finish(rsp_categories *out)
{
  g_free(out->work_->stack_reason);
  out->work_->stack_reason = NULL;
}
