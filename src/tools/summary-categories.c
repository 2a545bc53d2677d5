/* rsp-summary --categories / --waits (paper, "Categories" and its evaluation table). */
#include "summary-categories.h"
#include "export/export.h"

#include <inttypes.h>
#include <string.h>

static double ms(uint64_t ns)
{
  return (double)ns / 1e6;
}

#define N_ENDS RSP_N_SLEEP_ENDS

static const char *site_label(const rsp_model *m, const rsp_sleep *s, char *buf, size_t size)
{
  const char *site = rsp_model_wait_site(m, s->stack, true, buf, size);
  return site ? site : "[no stack]";
}

static int cat_key; /* the category by_category_total sorts on */

static int by_category_total(const void *a, const void *b)
{
  const rsp_wait_site *x = *(const rsp_wait_site *const *)a, *y = *(const rsp_wait_site *const *)b;
  if (x->by_cat[cat_key] != y->by_cat[cat_key])
    return x->by_cat[cat_key] < y->by_cat[cat_key] ? 1 : -1;
  return strcmp(x->label, y->label);
}

static const char *dominant_end(const rsp_wait_site *w)
{
  unsigned best = 0;
  for (unsigned c = 1; c < N_ENDS; c++)
    if (w->by_end[c] > w->by_end[best])
      best = c;
  return rsp_sleep_end_key(best);
}

enum { TOP_WAITS = 20 };

/* pid -> the running time of its RUN elements on the paths (ns, in a uint64_t*). */
static GHashTable *run_ns_by_pid(const rsp_paths *p)
{
  const rsp_model *m = rsp_paths_model(p);
  GHashTable *by = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  for (rsp_elem_id i = 0; i < rsp_paths_n_elems(p); i++) {
    const rsp_path_elem *e = rsp_paths_elem(p, i);
    if (e->kind != RSP_ELEM_RUN)
      continue;
    gpointer key = GINT_TO_POINTER(rsp_model_task(m, e->task)->pid);
    uint64_t *ns = g_hash_table_lookup(by, key);
    if (!ns) {
      ns = g_new0(uint64_t, 1);
      g_hash_table_insert(by, key, ns);
    }
    *ns += e->end - e->start;
  }
  return by;
}

static uint64_t run_ns_of(GHashTable *by, int32_t pid)
{
  const uint64_t *ns = g_hash_table_lookup(by, GINT_TO_POINTER(pid));
  return ns ? *ns : 0;
}

static void json_preemptors(const rsp_model *m, const rsp_categories *c, FILE *out)
{
  rsp_json_writer json = rsp_json_writer_file(out, RSP_JSON_SHORT_ESCAPES | RSP_JSON_SPACED);
  fputs(", ", out);
  rsp_json_key(&json, "preemptors");
  rsp_json_begin_array(&json);
  for (uint32_t i = 0; i < c->n_preemptors && i < RSP_TOP_PREEMPTORS; i++) {
    const rsp_preemptor *pr = &c->top_preemptors[i];
    const rsp_task *t = rsp_model_task(m, pr->task);
    rsp_json_begin_object(&json);
    rsp_json_key(&json, "pid");
    rsp_json_i64(&json, t->pid);
    rsp_json_key(&json, "tid");
    rsp_json_i64(&json, t->tid);
    rsp_json_key(&json, "comm");
    rsp_json_string(&json, t->comm);
    rsp_json_key(&json, "ms");
    rsp_json_double(&json, 6, ms(pr->ns));
    rsp_json_key(&json, "on_path");
    rsp_json_bool(&json, pr->on_path);
    rsp_json_end_object(&json);
  }
  rsp_json_end_array(&json);
  fputs(", ", out);
  rsp_json_key(&json, "n_preemptors");
  rsp_json_u64(&json, c->n_preemptors);
}

static void json_guessed_and_unknown(const rsp_categories *c, FILE *out)
{
  rsp_json_writer json = rsp_json_writer_file(out, RSP_JSON_SHORT_ESCAPES | RSP_JSON_SPACED);
  fputs(", ", out);
  rsp_json_key(&json, "guessed_ms");
  rsp_json_double(&json, 6, ms(c->guessed_total_ns));
  fputs(", ", out);
  rsp_json_key(&json, "guessed_by_category");
  rsp_json_begin_object(&json);
  for (int k = 0; k < RSP_N_CATEGORIES; k++)
    if (c->guessed_ns[k]) {
      rsp_json_key(&json, rsp_category_key(k));
      rsp_json_double(&json, 6, ms(c->guessed_ns[k]));
    }
  rsp_json_end_object(&json);
  fputs(", ", out);
  rsp_json_key(&json, "unknown_stack_by_reason");
  rsp_json_begin_object(&json);
  for (int r = 1; r < RSP_N_UNKNOWN_STACK_REASONS; r++)
    if (c->unknown_stack_ns[r]) {
      rsp_json_key(&json, rsp_unknown_stack_reason_key(r));
      rsp_json_double(&json, 6, ms(c->unknown_stack_ns[r]));
    }
  rsp_json_end_object(&json);
}

static void text_details(const rsp_model *m, const rsp_categories *c, FILE *out)
{
  if (c->n_preemptors) {
    fprintf(out, "Top preemptors (pid[/tid] comm: ms of the paths' preempted time, * on the paths):\n");
    for (uint32_t i = 0; i < c->n_preemptors && i < RSP_TOP_PREEMPTORS; i++) {
      const rsp_preemptor *pr = &c->top_preemptors[i];
      const rsp_task *t = rsp_model_task(m, pr->task);
      /* a thread other than its process's main one with its tid: three threads of xz -T2 are three rows */
      char id[32];
      if (t->pid > 0 && t->tid != t->pid)
        g_snprintf(id, sizeof id, "%" PRId32 "/%" PRId32, t->pid, t->tid);
      else
        g_snprintf(id, sizeof id, "%" PRId32, t->pid);
      fprintf(out, "  %c %13s %-24s %12.3f ms\n", pr->on_path ? '*' : ' ', id, *t->comm ? t->comm : "?", ms(pr->ns));
    }
    if (c->n_preemptors > RSP_TOP_PREEMPTORS)
      fprintf(out, "  (%u more)\n", c->n_preemptors - RSP_TOP_PREEMPTORS);
  }
  for (int r = 1; r < RSP_N_UNKNOWN_STACK_REASONS; r++)
    if (c->unknown_stack_ns[r])
      fprintf(out, "Unknown stacks, %s: %.3f ms\n", rsp_unknown_stack_reason_label(r), ms(c->unknown_stack_ns[r]));
}

static void print_elem(const rsp_paths *p, rsp_elem_id id, uint64_t t0, FILE *out)
{
  static const char *const kinds[] = { "run", "sleep", "disk", "net" };
  const rsp_model *m = rsp_paths_model(p);
  const rsp_path_elem *e = rsp_paths_elem(p, id);
  const rsp_task *t = rsp_model_task(m, e->task);
  /* indented by depth; past 60 levels (a long relay) the depth is written instead */
  if (e->depth > 60)
    fprintf(out, "%*s[depth %u] ", 2 * 60 + 2, "", (unsigned)e->depth);
  fprintf(out, "%*s%-5s %s %" PRId32 "/%" PRId32 " %.3f-%.3f ms (%.3f)%s%s", e->depth > 60 ? 0 : 2 * e->depth + 2, "",
          kinds[e->kind & 3], *t->comm ? t->comm : "?", t->pid, t->tid, ms(e->start - t0), ms(e->end - t0),
          ms(e->end - e->start), e->flags & RSP_ELEM_CUT ? " cut" : "",
          e->flags & RSP_ELEM_MERGED_POLLS ? " merged" : "");
  if (e->kind == RSP_ELEM_SLEEP) {
    const rsp_sleep *s = rsp_model_sleep(m, e->id);
    char buf[512];
    fprintf(out, " [%s]", site_label(m, s, buf, sizeof buf));
    /* how it ended; merged polls: each piece's own end */
    fprintf(out, " ended:");
    for (uint32_t i = 0; i < e->n_merged; i++) {
      rsp_sleep_id sid = rsp_paths_elem_sleep(p, id, i);
      const rsp_sleep *piece = sid != RSP_NO_ID ? rsp_model_sleep(m, sid) : NULL;
      unsigned cause = !piece ? 0 : piece->preempted ? RSP_SLEEP_END_PREEMPTED : piece->end_cause;
      fprintf(out, "%s%s", i ? "," : " ", rsp_sleep_end_key(cause < N_ENDS ? cause : 0));
    }
    /* its waker is drawn on another path (or elsewhere on this one): say who, and where */
    rsp_run_id ender = rsp_paths_elem_ender(p, id);
    rsp_elem_id at = ender != RSP_NO_ID ? rsp_paths_run_elem(p, ender) : RSP_NO_ID;
    if (at != RSP_NO_ID && rsp_paths_elem(p, at)->parent != id) {
      const rsp_task *w = rsp_model_task(m, rsp_model_run(m, ender)->task);
      fprintf(out, " by %s %" PRId32 "/%" PRId32 " (path %u)", *w->comm ? w->comm : "?", w->pid, w->tid,
              rsp_paths_elem(p, at)->path);
    }
  }
  fprintf(out, "\n");
}

/* ID and what it waited on, depth first, with a stack of our own: a relay of 70,000 wakeups is as
 * many levels. */
static void print_tree(const rsp_paths *p, rsp_elem_id id, uint64_t t0, FILE *out)
{
  GArray *todo = g_array_new(FALSE, FALSE, sizeof(rsp_elem_id));
  g_array_append_val(todo, id);
  while (todo->len) {
    rsp_elem_id e = g_array_index(todo, rsp_elem_id, todo->len - 1);
    g_array_set_size(todo, todo->len - 1);
    print_elem(p, e, t0, out);
    uint32_t n;
    const rsp_elem_id *kids = rsp_paths_children(p, e, &n);
    for (uint32_t i = n; i-- > 0;)
      g_array_append_val(todo, kids[i]);
  }
  g_array_free(todo, TRUE);
}

/* Every path's pseudo-stacks as an indented tree (times from the recording's first event). */
static void print_paths(const rsp_paths *p, FILE *out)
{
  uint64_t t0 = rsp_model_time_first(rsp_paths_model(p));
  for (rsp_path_id pa = 0; pa < rsp_paths_n_paths(p); pa++) {
    const rsp_path *path = rsp_paths_path(p, pa);
    fprintf(out, "path %u (from path %d): %.3f-%.3f ms\n", pa, (int)path->parent_path, ms(path->start - t0),
            ms(path->end - t0));
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(p, pa, i);
      if (rsp_paths_elem(p, id)->depth != 0)
        break;
      print_tree(p, id, t0, out);
    }
  }
}

/* A wait lever of the explanation as KEY: null when it is not the biggest. */
static void json_wait_lever(rsp_json_writer *json, const char *key, const rsp_explain_wait_lever *l)
{
  rsp_json_key(json, key);
  if (!l->ns) {
    rsp_json_null(json);
    return;
  }
  rsp_json_begin_object(json);
  rsp_json_key(json, "ms");
  rsp_json_double(json, 6, ms(l->ns));
  rsp_json_key(json, "site");
  if (l->site)
    rsp_json_string(json, l->site);
  else
    rsp_json_null(json);
  rsp_json_key(json, "site_ms");
  rsp_json_double(json, 6, ms(l->site_ns));
  rsp_json_key(json, "top_pid");
  rsp_json_i64(json, l->top.pid);
  rsp_json_key(json, "top_tid");
  rsp_json_i64(json, l->top.tid ? l->top.tid : l->top.pid);
  rsp_json_key(json, "top_comm");
  rsp_json_string(json, l->top.comm);
  rsp_json_end_object(json);
}

/* ", \"explanation\": {...}": the sentences and the numbers they were made of. */
static void json_explanation(const rsp_explanation *x, FILE *out)
{
  static const char *const kinds[] = { "run", "sleep", "disk", "network" };
  rsp_json_writer json = rsp_json_writer_file(out, RSP_JSON_SHORT_ESCAPES | RSP_JSON_SPACED);
  fputs(", ", out);
  rsp_json_key(&json, "explanation");
  rsp_json_begin_object(&json);
  rsp_json_key(&json, "text");
  rsp_json_begin_array(&json);
  for (char **line = x->sentences; *line; line++)
    rsp_json_string(&json, *line);
  rsp_json_end_array(&json);
  rsp_json_key(&json, "wall_ms");
  rsp_json_double(&json, 6, ms(x->wall_ns));
  rsp_json_key(&json, "chain");
  rsp_json_begin_array(&json);
  for (uint32_t i = 0; i < x->n_chain; i++) {
    const rsp_explain_hop *h = &x->chain[i];
    rsp_json_begin_object(&json);
    rsp_json_key(&json, "pid");
    rsp_json_i64(&json, h->pid);
    rsp_json_key(&json, "comm");
    rsp_json_string(&json, h->comm);
    rsp_json_key(&json, "kind");
    rsp_json_string(&json, h->kind < 4 ? kinds[h->kind] : "?");
    rsp_json_key(&json, "site");
    rsp_json_string(&json, h->site);
    rsp_json_key(&json, "ms");
    rsp_json_double(&json, 6, ms(h->ns));
    if (h->kind == RSP_ELEM_SLEEP && !h->via_waker) { /* the thread that waited */
      rsp_json_key(&json, "tid");
      rsp_json_i64(&json, h->tid);
    }
    if (h->kind == RSP_ELEM_SLEEP) { /* when (perf's clock, as perf script prints it, in ns) */
      rsp_json_key(&json, "start_ns");
      rsp_json_u64(&json, h->start);
      rsp_json_key(&json, "end_ns");
      rsp_json_u64(&json, h->end);
    }
    if (i == 0 && h->kind == RSP_ELEM_SLEEP) { /* and the first one's waits in all */
      rsp_json_key(&json, "thread_waited_ms");
      rsp_json_double(&json, 6, ms(x->first_thread_waits_ns));
      rsp_json_key(&json, "thread_waits");
      rsp_json_u64(&json, x->first_thread_n_waits);
    }
    if (h->via_waker) { /* the thread of the process that ended the first wait */
      rsp_json_key(&json, "via_waker");
      rsp_json_bool(&json, true);
      rsp_json_key(&json, "tid"); /* 0: another process, its threads together */
      rsp_json_i64(&json, h->tid);
    }
    if (h->unix_socket) { /* its network operation, or the data that ended its wait, was on a unix socket */
      rsp_json_key(&json, "unix_socket");
      rsp_json_bool(&json, true);
    }
    if (h->n_threads) { /* a process's threads together, from the model: how many of them ran */
      rsp_json_key(&json, "threads");
      rsp_json_u64(&json, h->n_threads);
    }
    if (h->n_waits) { /* a running hop whose waits were many and short */
      rsp_json_key(&json, "waited_ms");
      rsp_json_double(&json, 6, ms(h->waited_ns));
      rsp_json_key(&json, "waits");
      rsp_json_u64(&json, h->n_waits);
      rsp_json_key(&json, "wait_site");
      rsp_json_string(&json, h->wait_site);
      rsp_json_key(&json, "wait_site_ms");
      rsp_json_double(&json, 6, ms(h->wait_site_ns));
      rsp_json_key(&json, "wait_site_waits");
      rsp_json_u64(&json, h->wait_site_waits);
      rsp_json_key(&json, "waits_disk_ms");
      rsp_json_double(&json, 6, ms(h->waits_disk_ns));
      rsp_json_key(&json, "waits_network_ms");
      rsp_json_double(&json, 6, ms(h->waits_net_ns));
      rsp_json_key(&json, "waits_woken_by"); /* the two processes that ended the most of those waits */
      rsp_json_begin_array(&json);
      for (uint32_t k = 0; k < h->n_wakers && k < G_N_ELEMENTS(h->wakers); k++) {
        rsp_json_begin_object(&json);
        rsp_json_key(&json, "pid");
        rsp_json_i64(&json, h->wakers[k].pid);
        if (h->wakers[k].tid) { /* a thread of the hop's own process */
          rsp_json_key(&json, "tid");
          rsp_json_i64(&json, h->wakers[k].tid);
        }
        rsp_json_key(&json, "comm");
        rsp_json_string(&json, h->wakers[k].comm);
        rsp_json_key(&json, "ms");
        rsp_json_double(&json, 6, ms(h->wakers[k].run_ns));
        rsp_json_end_object(&json);
      }
      rsp_json_end_array(&json);
    }
    rsp_json_end_object(&json);
  }
  rsp_json_end_array(&json);
  rsp_json_key(&json, "work");
  rsp_json_begin_array(&json);
  for (uint32_t i = 0; i < x->n_work; i++) {
    const rsp_explain_work *w = &x->work[i];
    rsp_json_begin_object(&json);
    rsp_json_key(&json, "pid");
    rsp_json_i64(&json, w->pid);
    rsp_json_key(&json, "comm");
    rsp_json_string(&json, w->comm);
    rsp_json_key(&json, "run_ms");
    rsp_json_double(&json, 6, ms(w->run_ns));
    rsp_json_key(&json, "function");
    rsp_json_string(&json, w->function);
    rsp_json_key(&json, "function_ms");
    rsp_json_double(&json, 6, ms(w->function_ns));
    rsp_json_end_object(&json);
  }
  rsp_json_end_array(&json);
  rsp_json_key(&json, "work_groups"); /* processes of one name together (rsp_explain_group) */
  rsp_json_begin_array(&json);
  for (uint32_t i = 0; i < x->n_groups; i++) {
    const rsp_explain_group *gr = &x->groups[i];
    rsp_json_begin_object(&json);
    rsp_json_key(&json, "comm");
    rsp_json_string(&json, gr->comm);
    rsp_json_key(&json, "processes");
    rsp_json_u64(&json, gr->n_processes);
    rsp_json_key(&json, "run_ms");
    rsp_json_double(&json, 6, ms(gr->run_ns));
    rsp_json_key(&json, "top_pid");
    rsp_json_i64(&json, gr->top_pid);
    rsp_json_key(&json, "top_ms");
    rsp_json_double(&json, 6, ms(gr->top_ns));
    rsp_json_end_object(&json);
  }
  rsp_json_end_array(&json);
  rsp_json_key(&json, "threads"); /* its own threads' running time on the paths, when more than one ran */
  rsp_json_begin_array(&json);
  for (uint32_t i = 0; i < x->n_threads && i < RSP_EXPLAIN_MAX_THREADS; i++) {
    rsp_json_begin_object(&json);
    rsp_json_key(&json, "tid");
    rsp_json_i64(&json, x->threads[i].pid);
    rsp_json_key(&json, "comm");
    rsp_json_string(&json, x->threads[i].comm);
    rsp_json_key(&json, "run_ms");
    rsp_json_double(&json, 6, ms(x->threads[i].run_ns));
    rsp_json_end_object(&json);
  }
  rsp_json_end_array(&json);
  rsp_json_key(&json, "n_threads");
  rsp_json_u64(&json, x->n_threads);
  rsp_json_key(&json, "lever");
  if (x->lever.function) {
    rsp_json_begin_object(&json);
    rsp_json_key(&json, "pid");
    rsp_json_i64(&json, x->lever.pid);
    rsp_json_key(&json, "comm");
    rsp_json_string(&json, x->lever.comm);
    rsp_json_key(&json, "function");
    rsp_json_string(&json, x->lever.function);
    rsp_json_key(&json, "ms");
    rsp_json_double(&json, 6, ms(x->lever.function_ns));
    rsp_json_key(&json, "processes");
    rsp_json_u64(&json, x->lever_processes);
    rsp_json_end_object(&json);
  } else {
    rsp_json_null(&json);
  }
  rsp_json_key(&json, "disk_lever");
  if (x->disk_lever_site) {
    rsp_json_begin_object(&json);
    rsp_json_key(&json, "site");
    rsp_json_string(&json, x->disk_lever_site);
    rsp_json_key(&json, "ms");
    rsp_json_double(&json, 6, ms(x->disk_lever_ns));
    rsp_json_key(&json, "site_ms");
    rsp_json_double(&json, 6, ms(x->disk_lever_site_ns));
    rsp_json_end_object(&json);
  } else {
    rsp_json_null(&json);
  }
  rsp_json_key(&json, "contention_lever");
  if (x->contention_lever_ns) {
    rsp_json_begin_object(&json);
    rsp_json_key(&json, "ms");
    rsp_json_double(&json, 6, ms(x->contention_lever_ns));
    rsp_json_key(&json, "top_pid");
    rsp_json_i64(&json, x->contention_top.pid);
    rsp_json_key(&json, "top_comm");
    rsp_json_string(&json, x->contention_top.comm);
    rsp_json_key(&json, "top_ms");
    rsp_json_double(&json, 6, ms(x->contention_top.run_ns));
    rsp_json_end_object(&json);
  } else {
    rsp_json_null(&json);
  }
  rsp_json_key(&json, "network_lever");
  if (x->network_lever_ns) {
    rsp_json_begin_object(&json);
    rsp_json_key(&json, "ms");
    rsp_json_double(&json, 6, ms(x->network_lever_ns));
    rsp_json_key(&json, "peer");
    if (x->network_peer)
      rsp_json_string(&json, x->network_peer);
    else
      rsp_json_null(&json);
    rsp_json_end_object(&json);
  } else {
    rsp_json_null(&json);
  }
  json_wait_lever(&json, "timed_out_lever", &x->timed_out);
  json_wait_lever(&json, "hardware_lever", &x->hardware);
  rsp_json_end_object(&json);
}

/* The kernel work done for the processes (pkprof) depends on the model alone: worked out on a second thread while
 * the paths and categories are (deep3m: 40 M instructions). */
typedef struct kernel_work_job {
  const rsp_model *model;
  rsp_kernel_work *kw;
  GThread *thread;
} kernel_work_job;

static gpointer kernel_work_main(gpointer data)
{
  kernel_work_job *job = data;
  job->kw = rsp_kernel_work_compute(job->model);
  return NULL;
}

static void kernel_work_start(kernel_work_job *job, const rsp_model *model, bool wanted)
{
  *job = (kernel_work_job){ .model = model };
  if (wanted && rsp_threads_wanted() > 1)
    job->thread = g_thread_new("rsp-kernel-work", kernel_work_main, job);
}

/* The result, the job's to free. */
static const rsp_kernel_work *kernel_work_get(kernel_work_job *job)
{
  if (job->thread) {
    g_thread_join(job->thread);
    job->thread = NULL;
  } else if (!job->kw) {
    kernel_work_main(job);
  }
  return job->kw;
}

static void kernel_work_clear(kernel_work_job *job)
{
  if (job->thread)
    g_thread_join(job->thread);
  rsp_kernel_work_free(job->kw);
  job->kw = NULL;
  job->thread = NULL;
}

int summary_categories_print(const rsp_model *model, const char *path, const summary_categories_options *o,
                             FILE *out)
{
  rsp_json_writer json = rsp_json_writer_file(out, RSP_JSON_SHORT_ESCAPES | RSP_JSON_SPACED);
  rsp_process_choice choice;
  GError *error = NULL;
  if (!rsp_process_choose(model, path, o->pid, o->comm, &choice, &error)) {
    fprintf(stderr, "rsp-summary: %s\n", error->message);
    g_error_free(error);
    rsp_process_choice_clear(&choice);
    return 1;
  }
  int32_t pid = choice.pid;
  rsp_paths_options po = { .tolerance_ns = o->tolerance_ns, .poll_merge_gap_ns = o->poll_gap_ns,
                           .tolerance_set = o->tolerance_set, .poll_merge_gap_set = o->poll_gap_set };
  uint64_t tolerance = o->tolerance_set ? o->tolerance_ns : RSP_PARENT_CHILD_TOLERANCE_NS;
  uint64_t poll_gap = o->poll_gap_set ? o->poll_gap_ns : RSP_POLL_MERGE_GAP_NS;
  kernel_work_job kernel_work;
  kernel_work_start(&kernel_work, model, o->json || o->categories || o->explain); /* (what prints it) */
  int64_t paths_start = g_get_monotonic_time();
  rsp_paths *p = rsp_paths_build(model, pid, &po, &error);
  int64_t paths_end = g_get_monotonic_time();
  if (!p) {
    fprintf(stderr, "rsp-summary: %s: %s\n", path, error->message);
    g_error_free(error);
    kernel_work_clear(&kernel_work);
    rsp_process_choice_clear(&choice);
    return 1;
  }
  rsp_categories c;
  rsp_categories_compute(p, &c);
  int64_t categories_end = g_get_monotonic_time();
  GHashTable *run_ns = run_ns_by_pid(p);
  char **warnings = rsp_model_loss_warnings(model);
  rsp_wait_sites *waits = o->waits ? rsp_wait_sites_compute(p) : NULL;
  rsp_explanation *story = o->explain ? rsp_explain_sites(p, &c, kernel_work_get(&kernel_work), waits) : NULL;
  double pct = c.total_ns ? 100.0 * (double)c.accounted_ns / (double)c.total_ns : 0.0;

  if (o->paths && !o->json)
    print_paths(p, out);
  if (o->json) {
    fprintf(out, "{\"file\": ");
    rsp_json_string(&json, path);
    fprintf(out, ", \"pid\": %" PRId32 ", \"process_of_interest\": {\"pid\": %" PRId32 ", \"chosen_by\": ", pid, pid);
    rsp_json_string(&json, choice.source);
    fprintf(out, ", \"reason\": ");
    rsp_json_string(&json, choice.reason);
    if (rsp_model_workload_command(model)) {
      fprintf(out, ", \"recorded_command\": ");
      rsp_json_string(&json, rsp_model_workload_command(model));
    }
    if (choice.others) {
      fprintf(out, ", \"others\": [");
      for (guint i = 0; i < choice.others->len; i++) {
        const rsp_process_other *x = &g_array_index(choice.others, rsp_process_other, i);
        fprintf(out, "%s{\"pid\": %" PRId32 ", \"runtime_ms\": %.6f}", i ? ", " : "", x->pid, ms(x->runtime_ns));
      }
      fprintf(out, "]");
    }
    fprintf(out, "}, \"n_processes\": %u, \"processes\": [", c.n_processes);
    /* each process once, named by its main thread's latest generation on the paths, with every name its tasks had */
    GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    bool first = true;
    /* kernel work done for each process by interrupts and kernel threads (kernel-work.c): extra
     * information, not a share of the table's wall time */
    const rsp_kernel_work *kw = kernel_work_get(&kernel_work);
    for (uint32_t i = 0; i < rsp_paths_n_tasks(p); i++) {
      const rsp_task *t = rsp_model_task(model, rsp_paths_task(p, i));
      if (!g_hash_table_add(seen, GINT_TO_POINTER(t->pid)))
        continue;
      const rsp_task *named = NULL; /* of its tasks on the paths (a child of make's on them before its exec) */
      GPtrArray *names = g_ptr_array_new();
      for (uint32_t j = i; j < rsp_paths_n_tasks(p); j++) {
        const rsp_task *u = rsp_model_task(model, rsp_paths_task(p, j));
        if (u->pid != t->pid)
          continue;
        if (rsp_task_names_process_better(u, named))
          named = u;
        bool dup = false;
        for (guint k = 0; k < names->len; k++)
          dup |= strcmp(g_ptr_array_index(names, k), u->comm) == 0;
        if (!dup)
          g_ptr_array_add(names, (gpointer)u->comm);
      }
      fprintf(out, "%s{\"pid\": %" PRId32 ", \"comm\": ", first ? "" : ", ", t->pid);
      rsp_json_string(&json, named->comm);
      fprintf(out, ", \"comms\": ");
      rsp_json_begin_array(&json);
      for (guint k = 0; k < names->len; k++)
        rsp_json_string(&json, g_ptr_array_index(names, k));
      rsp_json_end_array(&json);
      /* its running time for the process of interest: its runs on the paths, and what else it ran while
       * a task of the paths was preempted by it (a hand-off: xterm preempted by the Xvfb it woke), each
       * ns once */
      uint64_t on_paths = run_ns_of(run_ns, t->pid), preempting = 0, beside = 0;
      for (uint32_t k = 0; k < MIN(c.n_preemptors, RSP_TOP_PREEMPTORS); k++)
        if (c.top_preemptors[k].on_path && rsp_model_task(model, c.top_preemptors[k].task)->pid == t->pid) {
          preempting += c.top_preemptors[k].ns;
          beside += c.top_preemptors[k].off_paths_ns;
        }
      const rsp_kernel_work_row *kwr = rsp_kernel_work_for_pid(kw, t->pid);
      fprintf(out, ", \"run_ms\": %.6f, \"paths_run_ms\": %.6f, \"preempting_ms\": %.6f, \"kernel_work_ms\": %.6f}",
              ms(on_paths + beside), ms(on_paths), ms(preempting), ms(kwr ? kwr->total_ns : 0));
      g_ptr_array_free(names, TRUE);
      first = false;
    }
    g_hash_table_destroy(seen);
    fprintf(out, "], \"kernel_work_ms\": %.6f", ms(rsp_kernel_work_paths_ns(kw, p)));
    fprintf(out, ", \"paths\": %u, \"wall_ms\": %.6f, \"total_ms\": %.6f, \"categories\": {", c.n_paths,
            ms(c.wall_ns), ms(c.total_ns));
    for (int k = 0; k < RSP_N_CATEGORIES; k++)
      fprintf(out, "%s\"%s\": %.6f", k ? ", " : "", rsp_category_key(k), ms(c.ns[k]));
    fprintf(out, "}, \"accounted_ms\": %.6f, \"unaccounted_ms\": %.6f, \"percent_accounted\": %.3f",
            ms(c.accounted_ns), ms(c.ns[RSP_CAT_UNACCOUNTED]), pct);
    json_guessed_and_unknown(&c, out);
    json_preemptors(model, &c, out);
    fprintf(out, ", \"tolerance_ns\": %" PRIu64 ", \"poll_gap_ns\": %" PRIu64,
            tolerance, poll_gap);
    const rsp_model_loss *l = rsp_model_loss_get(model);
    fprintf(out, ", \"lost_events\": {\"lost_records\": %" PRIu64 ", \"lost_events\": %" PRIu64
                 ", \"lost_samples\": %" PRIu64 ", \"inferred_switch_ins\": %" PRIu64
                 ", \"sleeps_without_wakeup\": %" PRIu64 ", \"sleeps_end_inferred\": %" PRIu64
                 ", \"disk_no_complete\": %" PRIu64 ", \"sampled_tracepoints\": %s}",
            l->lost_records, l->lost_events, l->lost_samples, l->inferred_switch_ins, l->sleeps_without_wakeup,
            l->sleeps_end_inferred, l->disk_no_complete, l->sampled_tracepoints ? "true" : "false");
    fprintf(out, ", \"sample_event\": ");
    rsp_json_string(&json, rsp_model_sample_event(model));
    fprintf(out, ", \"other_sample_events\": ");
    rsp_json_begin_array(&json);
    for (uint32_t i = 0; i < rsp_model_n_other_sample_events(model); i++)
      rsp_json_string(&json, rsp_model_other_sample_event(model, i));
    rsp_json_end_array(&json);
    fprintf(out, ", \"warnings\": ");
    rsp_json_begin_array(&json);
    for (char **w = warnings; *w; w++)
      rsp_json_string(&json, *w);
    rsp_json_end_array(&json);
    if (waits) {
      fprintf(out, ", \"waits\": [");
      for (uint32_t i = 0; i < rsp_wait_sites_n(waits) && i < TOP_WAITS; i++) {
        const rsp_wait_site *w = rsp_wait_sites_get(waits, i);
        fprintf(out, "%s{\"site\": ", i ? ", " : "");
        rsp_json_string(&json, w->label);
        fprintf(out, ", \"count\": %" PRIu64 ", \"total_ms\": %.6f, \"end\": \"%s\", \"disk_ms\": %.6f}", w->count,
                ms(w->total_ns), dominant_end(w), ms(w->disk_ns));
      }
      fprintf(out, "]");
      uint64_t inferred = 0;
      for (uint32_t i = 0; i < rsp_wait_sites_n(waits); i++)
        inferred += rsp_wait_sites_get(waits, i)->inferred_ns;
      fprintf(out, ", \"inferred_end_ms\": %.6f", ms(inferred));
      /* per category, the sites whose sleeps' own time (children not taken out) went there, largest first */
      fprintf(out, ", \"wait_sites_by_category\": {");
      bool first_cat = true;
      for (int k = 0; k < RSP_N_CATEGORIES; k++) {
        GPtrArray *sorted = g_ptr_array_new();
        for (uint32_t i = 0; i < rsp_wait_sites_n(waits); i++) {
          const rsp_wait_site *w = rsp_wait_sites_get(waits, i);
          if (w->by_cat[k])
            g_ptr_array_add(sorted, (gpointer)w);
        }
        if (sorted->len) {
          cat_key = k;
          g_ptr_array_sort(sorted, by_category_total);
          fprintf(out, "%s\"%s\": [", first_cat ? "" : ", ", rsp_category_key(k));
          for (guint i = 0; i < sorted->len && i < TOP_WAITS; i++) {
            const rsp_wait_site *w = g_ptr_array_index(sorted, i);
            fprintf(out, "%s{\"site\": ", i ? ", " : "");
            rsp_json_string(&json, w->label);
            fprintf(out, ", \"ms\": %.6f}", ms(w->by_cat[k]));
          }
          fprintf(out, "]");
          first_cat = false;
        }
        g_ptr_array_free(sorted, TRUE);
      }
      fprintf(out, "}");
    }
    if (story)
      json_explanation(story, out);
    fprintf(out, "}\n");
  } else {
    const rsp_task *t0 = rsp_model_process_task(model, pid);
    fprintf(out, "Process of interest: pid %" PRId32 " (%s): %s\n", pid, t0 && *t0->comm ? t0->comm : "?",
            choice.reason);
    if (story) {
      for (char **line = story->sentences; *line; line++)
        fprintf(out, "%s%s", line == story->sentences ? "\n" : " ", *line);
      fprintf(out, "\n%s", o->categories || waits ? "\n" : "");
    }
    if (o->categories) {
      fprintf(out, "%-34s %12u\n", "Processes", c.n_processes);
      fprintf(out, "%-34s %12u\n", "Control paths", c.n_paths);
      fprintf(out, "%-34s %12.3f ms\n", "Wall time", ms(c.wall_ns));
      fprintf(out, "%-34s %12.3f ms\n", "Total time", ms(c.total_ns));
      uint32_t n_order;
      const rsp_category *order = rsp_category_table_order(&n_order);
      for (uint32_t k = 0; k < n_order; k++)
        if (order[k] != RSP_CAT_UNACCOUNTED)
          fprintf(out, "  %-32s %12.3f ms\n", rsp_category_label(order[k]), ms(c.ns[order[k]]));
      /* not accounted: what a category holds on a guess, and running time in unknown functions */
      fprintf(out, "%-34s %12.3f ms\n", "Guessed (in the rows above)", ms(c.guessed_total_ns));
      fprintf(out, "%-34s %12.3f ms\n", "Total accounted", ms(c.accounted_ns));
      fprintf(out, "%-34s %12.3f ms\n", "Unaccounted", ms(c.ns[RSP_CAT_UNACCOUNTED]));
      fprintf(out, "%-34s %12.1f %%\n", "Percent accounted", pct);
      /* pkprof: what interrupts and kernel threads did for the processes on the paths, beside their time */
      fprintf(out, "%-34s %12.3f ms (interrupts and kernel threads; beside the total, not in it)\n",
              "Kernel work done for them", ms(rsp_kernel_work_paths_ns(kernel_work_get(&kernel_work), p)));
      fprintf(out, "%-34s %s\n", "Run samples from", rsp_model_sample_event(model) ? rsp_model_sample_event(model)
                                                                                : "(no sampling event)");
      text_details(model, &c, out);
    }
    if (waits) {
      fprintf(out, "%sTop waits on the control paths, by wait site (time on the paths: nested waits of a site "
                   "count once):\n", o->categories ? "\n" : "");
      fprintf(out, "%12s %8s  %-10s %s\n", "TOTAL ms", "COUNT", "END", "SITE");
      for (uint32_t i = 0; i < rsp_wait_sites_n(waits) && i < TOP_WAITS; i++) {
        const rsp_wait_site *w = rsp_wait_sites_get(waits, i);
        fprintf(out, "%12.3f %8" PRIu64 "  %-10s %s\n", ms(w->total_ns), w->count, dominant_end(w), w->label);
      }
    }
    for (char **w = warnings; *w; w++)
      fprintf(out, "note: %s\n", *w);
  }
  rsp_wait_sites_free(waits);
  rsp_explanation_free(story);
  kernel_work_clear(&kernel_work);
  if (o->timings)
    fprintf(stderr, "rsp-summary: timings: control paths %.3f s, categories %.3f s, the rest (output included) %.3f s\n",
            (double)(paths_end - paths_start) / 1e6, (double)(categories_end - paths_end) / 1e6,
            (double)(g_get_monotonic_time() - categories_end) / 1e6);
  rsp_process_choice_clear(&choice);
  g_hash_table_destroy(run_ns);
  g_strfreev(warnings);
  rsp_paths_free(p);
  return 0;
}
