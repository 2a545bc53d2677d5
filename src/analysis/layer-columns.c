/* One layer of a pseudo-stack as its stack of functions (paper, "Flame View"), shared by the flame
 * view, the consolidated stacks (consolidated-stacks.c) and through them the consolidated and
 * differential flame views. */
#include "analysis/analysis.h"

/* The user-space frames of STACK (the model keeps kernel frames first, innermost first). */
static rsp_stack_frames user_part(const rsp_model *m, rsp_stack_id stack)
{
  rsp_stack_frames f = rsp_model_stack(m, stack);
  uint32_t k = 0;
  while (k < f.n && rsp_frame_at(f, k)->kernel)
    k++;
  f.ids += k;
  f.n -= k;
  return f;
}

uint32_t rsp_layer_columns(const rsp_model *m, const rsp_path_elem *e, rsp_layer_column_fn fn, void *data,
                           unsigned *kinds)
{
  uint64_t end = e->end > e->start ? e->end : e->start + 1;
  uint32_t most = 0;
  if (e->kind == RSP_ELEM_DISK || e->kind == RSP_ELEM_NET) {
    *kinds = e->kind == RSP_ELEM_DISK ? RSP_FRAME_IO : RSP_FRAME_NET;
    fn(e->start, end, (rsp_stack_frames){ 0 }, data);
    return 0;
  }
  if (e->kind == RSP_ELEM_SLEEP) {
    const rsp_sleep *s = rsp_model_sleep(m, e->id);
    *kinds = s->end_cause == RSP_SLEEP_END_DISK || s->state == 'D' ? RSP_FRAME_IO : RSP_FRAME_SLEEP;
    rsp_stack_frames f = rsp_model_stack(m, s->stack);
    fn(e->start, end, f, data);
    return f.n;
  }
  *kinds = RSP_FRAME_RUN;
  const rsp_run *r = rsp_model_run(m, e->id);
  /* the samples inside the drawn part (a triangle cut may have dropped the run's start) */
  uint32_t first = r->first_sample, n_in = 0;
  for (uint32_t i = 0; i < r->n_samples; i++) {
    const rsp_sample *s = rsp_model_sample(m, r->first_sample + i);
    if (s->time < e->start && e->start > r->start) {
      first = r->first_sample + i + 1;
      continue;
    }
    n_in++;
  }
  if (n_in) {
    uint64_t span = end - e->start;
    for (uint32_t i = 0; i < n_in; i++) {
      const rsp_sample *s = rsp_model_sample(m, first + i);
      rsp_stack_frames f = rsp_model_stack(m, s->stack);
      uint64_t c0 = e->start + span * i / n_in, c1 = e->start + span * (i + 1) / n_in;
      fn(c0, c1 > c0 ? c1 : c0 + 1, f, data);
      if (f.n > most)
        most = f.n;
    }
    return most;
  }
  rsp_sleep_id next = rsp_model_sleep_at(m, e->task, r->end);
  rsp_stack_frames f = next != RSP_NO_ID ? user_part(m, rsp_model_sleep(m, next)->stack) : (rsp_stack_frames){ 0 };
  if (!f.n && r->start > 0) {
    rsp_sleep_id prev = rsp_model_sleep_at(m, e->task, r->start - 1);
    f = prev != RSP_NO_ID ? user_part(m, rsp_model_sleep(m, prev)->stack) : (rsp_stack_frames){ 0 };
  }
  fn(e->start, end, f, data);
  return f.n;
}
