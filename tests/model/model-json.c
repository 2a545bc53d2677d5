/* model-json FILE [--no-stacks] [--quiet]: the model of a recording as JSON on stdout, for the
 * Python oracle tests (which compare it with perf script's view of the same file). --quiet builds
 * the model and prints only its counts (for timing: bench/model-throughput.sh). */
#include "export/export.h"
#include "model/model.h"

#include <stdio.h>
#include <string.h>

static const char *const link_kinds[] = { "wakeup", "fork", "exec", "exit_wait", "interrupt", "disk", "network" };
static const char *const end_causes[] = { "unknown", "woken", "disk", "network", "interrupt", "timeout",
                                          "preempted", "signal" };

/* S (NULL: "") as a JSON string, escaped as the exports escape theirs. */
static void str(const char *s)
{
  rsp_json_writer json = rsp_json_writer_file(stdout, 0);
  rsp_json_string(&json, s ? s : "");
}

static int tid_of_run(const rsp_model *m, rsp_run_id r)
{
  return r == RSP_NO_ID ? -1 : rsp_model_task(m, rsp_model_run(m, r)->task)->tid;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: model-json FILE [--no-stacks]\n");
    return 2;
  }
  rsp_model_options o = { 0 };
  bool quiet = false;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--no-stacks") == 0)
      o.no_stacks = true;
    else if (strcmp(argv[i], "--quiet") == 0)
      quiet = true;
  }
  GError *e = NULL;
  rsp_model *m = rsp_model_load(argv[1], &o, &e);
  if (!m) {
    fprintf(stderr, "model-json: %s\n", e->message);
    return 1;
  }
  if (quiet) {
    printf("%u runs, %u sleeps, %u links, %u stacks, %u samples\n", rsp_model_n_runs(m), rsp_model_n_sleeps(m),
           rsp_model_n_links(m), rsp_model_n_stacks(m), rsp_model_n_samples(m));
    rsp_model_free(m);
    return 0;
  }
  printf("{\"workload_pid\": %d, \"n_stacks\": %u, \"n_samples\": %u,\n", rsp_model_workload_pid(m),
         rsp_model_n_stacks(m), rsp_model_n_samples(m));
  printf("\"tasks\": [");
  for (uint32_t i = 0; i < rsp_model_n_tasks(m); i++) {
    const rsp_task *t = rsp_model_task(m, i);
    printf("%s\n{\"id\": %u, \"pid\": %d, \"tid\": %d, \"gen\": %u, \"comm\": ", i ? "," : "", i, t->pid, t->tid,
           t->generation);
    str(t->comm);
    printf(", \"parent\": %d, \"start\": %llu, \"exit\": %llu, \"runs\": %u}",
           t->parent == RSP_NO_ID ? -1 : (int)t->parent, (unsigned long long)t->start,
           (unsigned long long)t->exit_time, t->n_runs);
  }
  printf("],\n\"sleeps\": [");
  for (uint32_t i = 0; i < rsp_model_n_sleeps(m); i++) {
    const rsp_sleep *s = rsp_model_sleep(m, i);
    const rsp_task *t = rsp_model_task(m, s->task);
    printf("%s\n{\"task\": %u, \"tid\": %d, \"pid\": %d, \"start\": %llu, \"end\": %llu, \"wake\": %llu, "
           "\"state\": \"%c\", \"cause\": \"%s\", \"inferred\": %s, \"disk_op\": %d, \"net_op\": %d, "
           "\"wake_link\": %d, \"label\": ",
           i ? "," : "", s->task, t->tid, t->pid, (unsigned long long)s->start, (unsigned long long)s->end,
           (unsigned long long)s->wake_time, s->state ? s->state : '-', end_causes[s->end_cause],
           s->end_inferred ? "true" : "false", s->disk_op == RSP_NO_ID ? -1 : (int)s->disk_op,
           s->net_op == RSP_NO_ID ? -1 : (int)s->net_op, s->wake_link == RSP_NO_ID ? -1 : (int)s->wake_link);
    const rsp_model_frame *f = s->stack == RSP_NO_ID ? NULL : rsp_model_stack_label(m, s->stack);
    str(f ? f->function : "");
    printf("}");
  }
  printf("],\n\"links\": [");
  for (uint32_t i = 0; i < rsp_model_n_links(m); i++) {
    const rsp_link *l = rsp_model_link(m, i);
    printf("%s\n{\"kind\": \"%s\", \"time\": %llu, \"from_tid\": %d, \"to_tid\": %d, \"from_run\": %d, "
           "\"to_run\": %d, \"sleep\": %d, \"op\": %d, \"inferred\": %s}",
           i ? "," : "", link_kinds[l->kind], (unsigned long long)l->time, tid_of_run(m, l->from_run),
           tid_of_run(m, l->to_run), l->from_run == RSP_NO_ID ? -1 : (int)l->from_run,
           l->to_run == RSP_NO_ID ? -1 : (int)l->to_run, l->sleep == RSP_NO_ID ? -1 : (int)l->sleep,
           l->op == RSP_NO_ID ? -1 : (int)l->op, l->flags & RSP_LINK_INFERRED ? "true" : "false");
  }
  printf("],\n\"disk_ops\": [");
  for (uint32_t i = 0; i < rsp_model_n_disk_ops(m); i++) {
    const rsp_disk_op *d = rsp_model_disk_op(m, i);
    printf("%s\n{\"insert\": %llu, \"issue\": %llu, \"complete\": %llu, \"sector\": %llu, \"dev\": %u, "
           "\"bytes\": %u, \"rwbs\": ",
           i ? "," : "", (unsigned long long)d->insert_time, (unsigned long long)d->issue_time,
           (unsigned long long)d->complete_time, (unsigned long long)d->sector, d->dev, d->bytes);
    str(d->rwbs);
    printf(", \"tid\": %d, \"sleep\": %d, \"flags\": %u}",
           d->task == RSP_NO_ID ? -1 : rsp_model_task(m, d->task)->tid, d->sleep == RSP_NO_ID ? -1 : (int)d->sleep,
           d->flags);
  }
  printf("],\n\"net_ops\": [");
  for (uint32_t i = 0; i < rsp_model_n_net_ops(m); i++) {
    const rsp_net_op *n = rsp_model_net_op(m, i);
    printf("%s\n{\"start\": %llu, \"end\": %llu, \"sk\": %llu, \"tid\": %d, \"wakeups\": %u, \"protocol\": %u, "
           "\"sport\": %u, \"dport\": %u, \"remote\": ",
           i ? "," : "", (unsigned long long)n->start, (unsigned long long)n->end, (unsigned long long)n->skaddr,
           n->task == RSP_NO_ID ? -1 : rsp_model_task(m, n->task)->tid, n->n_wakeups, n->protocol, n->sport,
           n->dport);
    str(n->remote);
    printf("}");
  }
  const rsp_model_loss *l = rsp_model_loss_get(m);
  printf("],\n\"loss\": {\"sleeps_end_inferred\": %llu, \"sleeps_end_unknown\": %llu, "
         "\"sleeps_without_wakeup\": %llu, \"wakeups_without_run\": %llu, \"disk_no_insert\": %llu, "
         "\"disk_issue_inferred\": %llu, \"disk_no_complete\": %llu, \"disk_complete_inferred\": %llu}}\n",
         (unsigned long long)l->sleeps_end_inferred, (unsigned long long)l->sleeps_end_unknown,
         (unsigned long long)l->sleeps_without_wakeup, (unsigned long long)l->wakeups_without_run,
         (unsigned long long)l->disk_no_insert, (unsigned long long)l->disk_issue_inferred,
         (unsigned long long)l->disk_no_complete, (unsigned long long)l->disk_complete_inferred);
  rsp_model_free(m);
  return 0;
}
