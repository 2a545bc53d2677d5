/* Interrupts: the spans of hardware interrupt handlers and softirqs on each cpu, from the irq
 * tracepoints, and what fired inside them (block completions, data queued on sockets, wakeups): what
 * the kernel did in interrupt context and for whom (pkprof, "asynchronous events"; the charging itself
 * is analysis/kernel-work.c). Softirqs nest around the hardirqs that interrupt them: each span keeps its
 * own time, less what nested inside it. */
#include "model/model-private.h"

static const char *const softirq_names[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
                                             "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };

void rsp_irq_init(rsp_model *m)
{
  m->irq_spans = g_array_new(FALSE, TRUE, sizeof(rsp_irq_span));
  m->irq_served = g_array_new(FALSE, TRUE, sizeof(rsp_irq_served));
  m->sock_owners = g_array_new(FALSE, TRUE, sizeof(rsp_sock_owner));
}

void rsp_irq_free(rsp_model *m)
{
  g_array_free(m->irq_spans, TRUE);
  g_array_free(m->irq_served, TRUE);
  g_array_free(m->sock_owners, TRUE);
}

static rsp_irq_span *span_at(rsp_model *m, uint32_t i)
{
  return &g_array_index(m->irq_spans, rsp_irq_span, i);
}

/* Closes the innermost span open on C at TIME (LOST: its exit was not seen, it counts nothing). */
static void close_top(rsp_model_builder *b, rsp_cpu_state *c, uint64_t time, bool lost)
{
  rsp_irq_span *s = span_at(b->m, c->irq_open[--c->n_irq_open]);
  uint64_t nested = s->self_ns; /* while open, self_ns holds the time nested inside */
  if (lost || time < s->start) {
    s->end = s->start;
    s->self_ns = 0;
    s->flags |= RSP_IRQ_END_LOST;
    return;
  }
  s->end = time;
  s->self_ns = time - s->start > nested ? time - s->start - nested : 0;
  if (c->n_irq_open)
    span_at(b->m, c->irq_open[c->n_irq_open - 1])->self_ns += time - s->start;
}

void rsp_irq_enter(rsp_model_builder *b, int32_t cpu, uint64_t time, rsp_irq_kind kind, uint32_t vec,
                   const char *name, bool in_task)
{
  rsp_cpu_state *c = rsp_runs_cpu(b, cpu);
  if (!c)
    return;
  /* softirqs do not nest in softirqs on one cpu, nor hardware interrupt handlers in handlers (they run with the cpu's
   * interrupts off): the open one lost its exit. (Taken as nested, a handler whose exit was lost stayed open until an
   * exit whose entry was lost, seconds later, and was charged all of it.) */
  for (int i = c->n_irq_open; i-- > 0;) {
    if (span_at(b->m, c->irq_open[i])->kind != kind)
      continue;
    while (c->n_irq_open > i)
      close_top(b, c, time, true);
    break;
  }
  if (c->n_irq_open == G_N_ELEMENTS(c->irq_open))
    close_top(b, c, time, true); /* exits lost over and over: give up on the innermost */
  if (kind == RSP_IRQ_SOFTIRQ && !name)
    name = vec < G_N_ELEMENTS(softirq_names) ? softirq_names[vec] : "softirq";
  rsp_irq_span s = { .start = time, .end = time, .task = b->cur_task, .cpu = cpu, .vec = vec,
                     .name = rsp_model_intern(b->m, name ? name : "irq"), .kind = (uint8_t)kind,
                     .flags = in_task ? RSP_IRQ_IN_TASK : 0 };
  g_array_append_val(b->m->irq_spans, s);
  c->irq_open[c->n_irq_open++] = b->m->irq_spans->len - 1;
}

void rsp_irq_exit(rsp_model_builder *b, int32_t cpu, uint64_t time, rsp_irq_kind kind)
{
  rsp_cpu_state *c = rsp_runs_cpu(b, cpu);
  if (!c)
    return;
  for (int i = c->n_irq_open; i-- > 0;) {
    if (span_at(b->m, c->irq_open[i])->kind != kind)
      continue;
    while (c->n_irq_open > i + 1)
      close_top(b, c, time, true); /* inner ones whose exit was lost */
    close_top(b, c, time, false);
    return;
  }
  /* an exit with no entry (before the recording, or lost): nothing to close */
}

void rsp_irq_served_add(rsp_model_builder *b, int32_t cpu, uint64_t time, rsp_irq_served_kind kind, uint32_t id,
                        uint64_t sk)
{
  rsp_cpu_state *c = rsp_runs_cpu(b, cpu);
  if (!c || !c->n_irq_open)
    return;
  rsp_irq_served s = { .time = time, .sk = sk, .span = c->irq_open[c->n_irq_open - 1], .id = id,
                       .kind = (uint8_t)kind };
  g_array_append_val(b->m->irq_served, s);
}

void rsp_irq_finish(rsp_model_builder *b)
{
  for (guint i = 0; i < b->cpus->len; i++) {
    rsp_cpu_state *c = &g_array_index(b->cpus, rsp_cpu_state, i);
    while (c->n_irq_open)
      close_top(b, c, 0, true);
  }
}

uint32_t rsp_model_n_irq_spans(const rsp_model *m)
{
  return m->irq_spans->len;
}

const rsp_irq_span *rsp_model_irq_span(const rsp_model *m, rsp_irq_span_id id)
{
  g_return_val_if_fail(id < m->irq_spans->len, NULL);
  return &g_array_index(m->irq_spans, rsp_irq_span, id);
}

uint32_t rsp_model_n_irq_served(const rsp_model *m)
{
  return m->irq_served->len;
}

const rsp_irq_served *rsp_model_irq_served(const rsp_model *m, uint32_t i)
{
  g_return_val_if_fail(i < m->irq_served->len, NULL);
  return &g_array_index(m->irq_served, rsp_irq_served, i);
}
