/* Assertions for the model's unit tests. */
#include "checks.h"

int failures;

rsp_task_id find_task_nth(const rsp_model *m, int32_t tid, uint32_t generation, unsigned n)
{
  for (rsp_task_id i = 0; i < rsp_model_n_tasks(m); i++) {
    const rsp_task *t = rsp_model_task(m, i);
    if (t->tid == tid && t->generation == generation && n-- == 0)
      return i;
  }
  fprintf(stderr, "no task %u of tid %d generation %u\n", n, tid, generation);
  failures++;
  return RSP_NO_ID;
}

void check_run(const rsp_model *m, rsp_task_id task, uint32_t i, uint64_t start_us, uint64_t end_us, int32_t cpu,
               uint32_t samples, uint32_t flags, int line)
{
  if (task == RSP_NO_ID)
    return;
  uint64_t start = start_us * US, end = end_us * US;
  const rsp_task *t = rsp_model_task(m, task);
  if (i >= t->n_runs) {
    fprintf(stderr, "line %d: tid %d has %u runs, wanted run %u\n", line, t->tid, t->n_runs, i);
    failures++;
    return;
  }
  const rsp_run *r = rsp_model_run(m, rsp_model_task_run(m, task, i));
  if (r->start != start || r->end != end || r->n_samples != samples || r->flags != flags || r->cpu != cpu ||
      r->task != task) {
    fprintf(stderr,
            "line %d: tid %d run %u: [%llu, %llu] cpu %d samples %u flags %#x; expected [%llu, %llu] cpu %d "
            "samples %u flags %#x\n",
            line, t->tid, i, (unsigned long long)r->start, (unsigned long long)r->end, r->cpu, r->n_samples,
            r->flags, (unsigned long long)start, (unsigned long long)end, cpu, samples, flags);
    failures++;
  }
}

void check_sleep(const rsp_model *m, rsp_task_id task, uint32_t i, uint64_t start_us, uint64_t end_us, char state,
                 bool preempted, uint64_t wake_us, uint8_t wake_kind, uint64_t switch_event, int line)
{
  if (task == RSP_NO_ID)
    return;
  uint64_t start = start_us * US, end = end_us * US, wake = wake_us * US;
  const rsp_task *t = rsp_model_task(m, task);
  if (i >= t->n_sleeps) {
    fprintf(stderr, "line %d: tid %d has %u sleeps, wanted sleep %u\n", line, t->tid, t->n_sleeps, i);
    failures++;
    return;
  }
  const rsp_sleep *s = rsp_model_sleep(m, rsp_model_task_sleep(m, task, i));
  if (s->start != start || s->end != end || s->state != state || s->preempted != preempted ||
      s->wake_time != wake || s->wake_kind != wake_kind || s->switch_event != switch_event || s->task != task) {
    fprintf(stderr,
            "line %d: tid %d sleep %u: [%llu, %llu] state %c preempted %d wake %llu/%u event %lld; expected "
            "[%llu, %llu] state %c preempted %d wake %llu/%u event %lld\n",
            line, t->tid, i, (unsigned long long)s->start, (unsigned long long)s->end, s->state ? s->state : '-',
            s->preempted, (unsigned long long)s->wake_time, s->wake_kind, (long long)s->switch_event,
            (unsigned long long)start, (unsigned long long)end, state ? state : '-', preempted,
            (unsigned long long)wake, wake_kind, (long long)switch_event);
    failures++;
  }
}

void check_order(const rsp_model *m, int line)
{
  for (uint32_t i = 1; i < rsp_model_n_runs(m); i++)
    if (rsp_model_run(m, i - 1)->start > rsp_model_run(m, i)->start) {
      fprintf(stderr, "line %d: run %u starts before run %u\n", line, i, i - 1);
      failures++;
    }
  for (uint32_t i = 1; i < rsp_model_n_sleeps(m); i++)
    if (rsp_model_sleep(m, i - 1)->start > rsp_model_sleep(m, i)->start) {
      fprintf(stderr, "line %d: sleep %u starts before sleep %u\n", line, i, i - 1);
      failures++;
    }
  uint32_t runs = 0, sleeps = 0;
  for (rsp_task_id t = 0; t < rsp_model_n_tasks(m); t++) {
    const rsp_task *task = rsp_model_task(m, t);
    runs += task->n_runs;
    sleeps += task->n_sleeps;
    for (uint32_t i = 0; i < task->n_runs; i++)
      if (rsp_model_run(m, rsp_model_task_run(m, t, i))->task != t) {
        fprintf(stderr, "line %d: run %u of task %u is another task's\n", line, i, t);
        failures++;
      }
  }
  if (runs != rsp_model_n_runs(m) || sleeps != rsp_model_n_sleeps(m)) {
    fprintf(stderr, "line %d: tasks list %u runs and %u sleeps of %u and %u\n", line, runs, sleeps,
            rsp_model_n_runs(m), rsp_model_n_sleeps(m));
    failures++;
  }
}
