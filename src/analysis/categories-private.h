/* Internals shared by categories.c, preemptors.c and unknown-stacks.c: the state of one
 * rsp_categories_compute(). */
#pragma once

#include "analysis/analysis.h"
#include "analysis/gallop.h"

struct rsp_categories_work {
  const rsp_paths *paths;
  uint32_t guessing; /* > 0 while attributing time whose cause was guessed */
  /* preemptors.c */
  const rsp_cpu_runs *cpu_runs;   /* the model's runs by cpu */
  uint8_t *on_path;               /* by task id: 1 when the task is on the paths */
  uint64_t *preempt_ns;           /* by task id: preempted time of the paths it ran over */
  GHashTable *off_path_spans;     /* run id -> its span over preempted time (uint64_t[2]), for runs on no path */
  uint32_t *cpu_hint;             /* by cpu index: where the last search of its runs ended (the walk goes
                                   * mostly forward in time: a search from there is a few steps) */
  uint32_t *task_hint;            /* by task id: the same for its own runs (rsp_categories_run_at) */
  /* unknown-stacks.c */
  uint8_t *stack_reason;          /* by stack id: rsp_unknown_stack_reason + 1, 0 until classified */
};

/* rsp_model_run_at(model, TASK, TIME), searched from where the last search of TASK's runs by this walk ended. */
rsp_run_id rsp_categories_run_at(rsp_categories_work *w, rsp_task_id task, uint64_t time);

/* Adds NS to CAT (and to its guessed part while OUT's work is guessing). */
void rsp_categories_add_ns(rsp_categories *out, rsp_category cat, uint64_t ns);

/* preemptors.c: [A, B) of preempted sleep S (its own time): to the tasks on the paths, to the others,
 * or, where no other task ran on the cpu S's task was switched out from, to RSP_CAT_INVOLUNTARY. */
void rsp_preemptors_init(rsp_categories_work *w, const rsp_paths *paths);
void rsp_preemptors_attribute(rsp_categories *out, const rsp_sleep *s, uint64_t a, uint64_t b);
void rsp_preemptors_attribute_ready(rsp_categories *out, const rsp_sleep *s, uint64_t a, uint64_t b);
/* For a second thread: W shares FROM's index of runs by cpu, with tallies of its own. */
void rsp_preemptors_init_share(rsp_categories_work *w, const rsp_categories_work *from);
/* Adds FROM's tallies (a second thread's) to W's, and frees them. */
void rsp_preemptors_merge(rsp_categories_work *w, rsp_categories_work *from);
/* Fills OUT's preemptors and frees what init made. */
void rsp_preemptors_finish(rsp_categories *out);

/* unknown-stacks.c: [A, B) of RUN (with samples): understood, or unknown_stack in the share of its
 * samples whose stacks name no function. */
void rsp_unknown_stacks_attribute_run(rsp_categories *out, const rsp_run *run, uint64_t a, uint64_t b);
void rsp_unknown_stacks_finish(rsp_categories *out);
