/* Assertions for the model's unit tests: exact runs and sleeps, written by hand. */
#pragma once

#include "trace-builder.h"

#include <stdio.h>
#include <string.h>

extern int failures;

#define CHECK(cond)                                                                           \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
      failures++;                                                                             \
    }                                                                                         \
  } while (0)

#define CHECK_EQ(a, b)                                                                        \
  do {                                                                                        \
    unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);            \
    if (a_ != b_) {                                                                           \
      fprintf(stderr, "%s:%d: %s == %llu, expected %s == %llu\n", __FILE__, __LINE__, #a, a_,  \
              #b, b_);                                                                        \
      failures++;                                                                             \
    }                                                                                         \
  } while (0)

#define CHECK_STR(a, b)                                                                       \
  do {                                                                                        \
    const char *a_ = (a), *b_ = (b);                                                          \
    if (!a_ || strcmp(a_, b_) != 0) {                                                         \
      fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a,       \
              a_ ? a_ : "(null)", b_);                                                        \
      failures++;                                                                             \
    }                                                                                         \
  } while (0)

/* The task of TID's GENERATION-th generation, the N-th such task (tids are reused). */
rsp_task_id find_task_nth(const rsp_model *m, int32_t tid, uint32_t generation, unsigned n);
static inline rsp_task_id find_task(const rsp_model *m, int32_t tid, uint32_t generation)
{
  return find_task_nth(m, tid, generation, 0);
}

/* Times in microseconds; STATE 0 for none; WAKE 0 with WAKE_KIND RSP_WAKE_NONE. */
void check_run(const rsp_model *m, rsp_task_id task, uint32_t i, uint64_t start_us, uint64_t end_us, int32_t cpu,
               uint32_t samples, uint32_t flags, int line);
void check_sleep(const rsp_model *m, rsp_task_id task, uint32_t i, uint64_t start_us, uint64_t end_us, char state,
                 bool preempted, uint64_t wake_us, uint8_t wake_kind, uint64_t switch_event, int line);
/* Runs and sleeps are each in start order, every id listed by its task once. */
void check_order(const rsp_model *m, int line);

#define RUN(m, task, i, s, e, cpu, n, f) check_run(m, task, i, s, e, cpu, n, f, __LINE__)
#define SLEEP(m, task, i, s, e, st, p, w, wk, ev) check_sleep(m, task, i, s, e, st, p, w, wk, ev, __LINE__)
#define ORDER(m) check_order(m, __LINE__)
#define NO_EV RSP_NO_EVENT
