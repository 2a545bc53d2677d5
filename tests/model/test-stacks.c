/* Stacks as the model keeps them, from fabricated callchains (trace-builder.c): a frame-pointer
 * walk that loops on one frame (the same return address until perf's max_stack, 118 times on a
 * real recording) is cut at the first repeat; a recursion at one call site, which returns to its
 * callers, is kept whole. The expected frames are written by hand from the chains fed. */
#include "checks.h"

enum { IDLE = 0, A = 100 };

static void sw(tb *t, uint64_t us, int32_t cpu, int32_t prev, const char *state, int32_t next)
{
  tb_sched_switch(t, us * US, cpu, prev, state, next);
}

/* PREFIX (ending in "," or "|"), then N copies of NAME separated by ",". */
static char *repeat(const char *prefix, const char *name, unsigned n)
{
  GString *s = g_string_new(prefix);
  for (unsigned i = 0; i < n; i++)
    g_string_append_printf(s, "%s%s", i ? "," : "", name);
  return g_string_free(s, FALSE);
}

/* STACK's frames, innermost first, are exactly NAMES (NULL-terminated). */
static void check_frames(const rsp_model *m, rsp_stack_id stack, const char *const *names, int line)
{
  rsp_stack_frames f = rsp_model_stack(m, stack);
  uint32_t n = f.n;
  uint32_t want = 0;
  while (names[want])
    want++;
  if (n != want) {
    fprintf(stderr, "line %d: stack %u has %u frames, expected %u\n", line, stack, n, want);
    failures++;
    return;
  }
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(rsp_frame_at(f, i)->function, names[i]) != 0) {
      fprintf(stderr, "line %d: frame %u is %s, expected %s\n", line, i, rsp_frame_at(f, i)->function, names[i]);
      failures++;
    }
}
#define FRAMES(m, stack, ...) check_frames(m, stack, (const char *const[]){ __VA_ARGS__, NULL }, __LINE__)

static void test_self_loop(void)
{
  tb *t = tb_new(false);
  sw(t, 100, 0, IDLE, "R", A);
  /* a sample whose user chain loops on worker: read, worker, then worker 117 more times */
  g_autofree char *looping = repeat("asm_sysvec_apic_timer_interrupt|read,", "worker", 118);
  tb_next_stack(t, looping);
  tb_sample(t, 150 * US, 0, A);
  /* a sleep whose wait stack loops the same way, in the kernel part this time */
  g_autofree char *kloop = repeat("schedule,", "pipe_read", 60);
  tb_next_stack(t, kloop);
  sw(t, 200, 0, A, "S", IDLE);
  sw(t, 300, 0, IDLE, "R", A);
  /* a recursion: fib called from fib's one call site four times, then main: kept whole */
  tb_next_stack(t, "asm_sysvec_apic_timer_interrupt|fib,fib,fib,fib,main,__libc_start_main");
  tb_sample(t, 350 * US, 0, A);
  /* a loop of two identical frames exactly at the end, after a kernel part */
  tb_next_stack(t, "schedule,do_nanosleep|nanosleep,run,run");
  sw(t, 400, 0, A, "S", IDLE);
  sw(t, 500, 0, IDLE, "R", A);
  sw(t, 600, 0, A, "S", IDLE);
  rsp_model *m = tb_finish(t);
  rsp_task_id a = find_task(m, A, 0);
  CHECK(a != RSP_NO_ID);
  rsp_run_id r0 = rsp_model_task_run(m, a, 0), r1 = rsp_model_task_run(m, a, 1);
  CHECK_EQ(rsp_model_run(m, r0)->n_samples, 1);
  CHECK_EQ(rsp_model_run(m, r1)->n_samples, 1);
  FRAMES(m, rsp_model_sample(m, rsp_model_run(m, r0)->first_sample)->stack, "asm_sysvec_apic_timer_interrupt", "read",
         "worker");
  FRAMES(m, rsp_model_sample(m, rsp_model_run(m, r1)->first_sample)->stack, "asm_sysvec_apic_timer_interrupt", "fib",
         "fib", "fib", "fib", "main", "__libc_start_main");
  FRAMES(m, rsp_model_sleep(m, rsp_model_task_sleep(m, a, 0))->stack, "schedule", "pipe_read");
  FRAMES(m, rsp_model_sleep(m, rsp_model_task_sleep(m, a, 1))->stack, "schedule", "do_nanosleep", "nanosleep",
         "run");
  /* the label of the looping sleep is still its innermost non-scheduler frame */
  CHECK_STR(rsp_model_stack_label(m, rsp_model_sleep(m, rsp_model_task_sleep(m, a, 0))->stack)->function,
            "pipe_read");
  rsp_model_free(m);
}

int main(void)
{
  test_self_loop();
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  return failures ? 1 : 0;
}
