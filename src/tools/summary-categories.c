/* rsp-summary --categories / --waits (paper, "Categories" and its evaluation table). */
#include "summary-categories.h"

#include <inttypes.h>
#include <string.h>

static double ms(uint64_t ns)
{
  return (double)ns / 1e6;
}

static void json_str(FILE *out, const char *s)
{
  putc('"', out);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(out, "\\%c", c);
    else if (c < 0x20 || c >= 0x7f)
      fprintf(out, "\\u%04x", c);
    else
      putc(c, out);
  }
  putc('"', out);
}

/* The pid of the first task named COMM (its comm, or any earlier name), else -1. */
static int32_t pid_of_comm(const rsp_model *m, const char *comm)
{
  for (rsp_task_id t = 0; t < rsp_model_n_tasks(m); t++) {
    const rsp_task *task = rsp_model_task(m, t);
    if (task->pid < 0)
      continue;
    if (strcmp(task->comm, comm) == 0)
      return task->pid;
    for (uint32_t i = 0; i < task->n_comms; i++)
      if (strcmp(rsp_model_task_comm(m, t, i)->comm, comm) == 0)
        return task->pid;
  }
  return -1;
}

static const char *const end_names[] = {
  [RSP_SLEEP_END_UNKNOWN] = "unknown",     [RSP_SLEEP_END_WOKEN] = "woken",
  [RSP_SLEEP_END_DISK] = "disk",           [RSP_SLEEP_END_NETWORK] = "network",
  [RSP_SLEEP_END_INTERRUPT] = "interrupt", [RSP_SLEEP_END_TIMEOUT] = "timeout",
  [RSP_SLEEP_END_PREEMPTED] = "preempted", [RSP_SLEEP_END_SIGNAL] = "signal",
};
#define N_ENDS (sizeof end_names / sizeof end_names[0])

typedef struct wait_site {
  const char *label;
  uint64_t count, total_ns;
  uint64_t by_end[N_ENDS];
  /* the sleeps' own categories, as categories.c splits a sleep without children: before it could run by how it
   * ended, after that scheduler overhead (children not taken out: an upper bound of the site's share) */
  uint64_t by_cat[RSP_N_CATEGORIES];
  uint64_t inferred_ns; /* of sleeps whose end cause was guessed (end_inferred) */
} wait_site;

static int by_total(const void *a, const void *b)
{
  const wait_site *x = *(wait_site *const *)a, *y = *(wait_site *const *)b;
  if (x->total_ns != y->total_ns)
    return x->total_ns < y->total_ns ? 1 : -1;
  return strcmp(x->label, y->label);
}

static const char *site_label(const rsp_model *m, const rsp_sleep *s, char *buf, size_t size)
{
  const rsp_model_frame *f = s->stack != RSP_NO_ID ? rsp_model_stack_label(m, s->stack) : NULL;
  if (!f)
    return "[no stack]";
  g_snprintf(buf, size, "%s (%s)", f->function, f->dso);
  return buf;
}

/* The waits on the paths grouped by the label of their sleep's stack, longest total first. */
static GPtrArray *collect_waits(const rsp_paths *p, GStringChunk *strings)
{
  const rsp_model *m = rsp_paths_model(p);
  GHashTable *by_label = g_hash_table_new(g_str_hash, g_str_equal);
  GPtrArray *sites = g_ptr_array_new_with_free_func(g_free);
  for (rsp_elem_id i = 0; i < rsp_paths_n_elems(p); i++) {
    const rsp_path_elem *e = rsp_paths_elem(p, i);
    if (e->kind != RSP_ELEM_SLEEP)
      continue;
    const rsp_sleep *s = rsp_model_sleep(m, e->id);
    char buf[512];
    const char *label = g_string_chunk_insert_const(strings, site_label(m, s, buf, sizeof buf));
    wait_site *w = g_hash_table_lookup(by_label, label);
    if (!w) {
      w = g_new0(wait_site, 1);
      w->label = label;
      g_hash_table_insert(by_label, (gpointer)label, w);
      g_ptr_array_add(sites, w);
    }
    w->count += e->n_merged;
    w->total_ns += e->end - e->start;
    /* the end cause of the last merged poll */
    rsp_sleep_id last_id = e->id;
    for (rsp_sleep_id k = e->id + 1, seen = 1; seen < e->n_merged && k < rsp_model_n_sleeps(m); k++)
      if (rsp_model_sleep(m, k)->task == e->task) {
        last_id = k;
        seen++;
      }
    const rsp_sleep *last = rsp_model_sleep(m, last_id);
    unsigned cause = last->preempted ? RSP_SLEEP_END_PREEMPTED : last->end_cause;
    w->by_end[cause < N_ENDS ? cause : 0] += e->end - e->start;
    rsp_category own = rsp_category_of_sleep(m, last_id);
    uint64_t ready = own == RSP_CAT_INVOLUNTARY || !last->wake_time ? e->end : CLAMP(last->wake_time, e->start, e->end);
    w->by_cat[own] += ready - e->start;
    w->by_cat[RSP_CAT_SCHEDULER] += e->end - ready;
    if (last->end_inferred)
      w->inferred_ns += e->end - e->start;
  }
  g_hash_table_destroy(by_label);
  g_ptr_array_sort(sites, by_total);
  return sites;
}

static int cat_key; /* the category by_category_total sorts on */

static int by_category_total(const void *a, const void *b)
{
  const wait_site *x = *(wait_site *const *)a, *y = *(wait_site *const *)b;
  if (x->by_cat[cat_key] != y->by_cat[cat_key])
    return x->by_cat[cat_key] < y->by_cat[cat_key] ? 1 : -1;
  return strcmp(x->label, y->label);
}

static const char *dominant_end(const wait_site *w)
{
  unsigned best = 0;
  for (unsigned c = 1; c < N_ENDS; c++)
    if (w->by_end[c] > w->by_end[best])
      best = c;
  return end_names[best];
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
  fprintf(out, ", \"preemptors\": [");
  for (uint32_t i = 0; i < c->n_preemptors && i < RSP_TOP_PREEMPTORS; i++) {
    const rsp_preemptor *pr = &c->top_preemptors[i];
    const rsp_task *t = rsp_model_task(m, pr->task);
    fprintf(out, "%s{\"pid\": %" PRId32 ", \"tid\": %" PRId32 ", \"comm\": ", i ? ", " : "", t->pid, t->tid);
    json_str(out, t->comm);
    fprintf(out, ", \"ms\": %.6f, \"on_path\": %s}", ms(pr->ns), pr->on_path ? "true" : "false");
  }
  fprintf(out, "], \"n_preemptors\": %u", c->n_preemptors);
}

static void json_guessed_and_unknown(const rsp_categories *c, FILE *out)
{
  fprintf(out, ", \"guessed_ms\": %.6f, \"guessed_by_category\": {", ms(c->guessed_total_ns));
  bool first = true;
  for (int k = 0; k < RSP_N_CATEGORIES; k++)
    if (c->guessed_ns[k]) {
      fprintf(out, "%s\"%s\": %.6f", first ? "" : ", ", rsp_category_key(k), ms(c->guessed_ns[k]));
      first = false;
    }
  fprintf(out, "}, \"unknown_stack_by_reason\": {");
  first = true;
  for (int r = 1; r < RSP_N_UNKNOWN_STACK_REASONS; r++)
    if (c->unknown_stack_ns[r]) {
      fprintf(out, "%s\"%s\": %.6f", first ? "" : ", ", rsp_unknown_stack_reason_key(r), ms(c->unknown_stack_ns[r]));
      first = false;
    }
  fprintf(out, "}");
}

/* The table's lines under the categories: the top preemptors, why stacks were unknown, the guessed time. */
static void text_details(const rsp_model *m, const rsp_categories *c, FILE *out)
{
  if (c->n_preemptors) {
    fprintf(out, "Top preemptors (pid comm: ms of the paths' preempted time, * on the paths):\n");
    for (uint32_t i = 0; i < c->n_preemptors && i < RSP_TOP_PREEMPTORS; i++) {
      const rsp_preemptor *pr = &c->top_preemptors[i];
      const rsp_task *t = rsp_model_task(m, pr->task);
      fprintf(out, "  %c %7" PRId32 " %-24s %12.3f ms\n", pr->on_path ? '*' : ' ', t->pid, *t->comm ? t->comm : "?",
              ms(pr->ns));
    }
    if (c->n_preemptors > RSP_TOP_PREEMPTORS)
      fprintf(out, "  (%u more)\n", c->n_preemptors - RSP_TOP_PREEMPTORS);
  }
  for (int r = 1; r < RSP_N_UNKNOWN_STACK_REASONS; r++)
    if (c->unknown_stack_ns[r])
      fprintf(out, "Unknown stacks, %s: %.3f ms\n", rsp_unknown_stack_reason_label(r), ms(c->unknown_stack_ns[r]));
}

static void print_tree(const rsp_paths *p, rsp_elem_id id, uint64_t t0, FILE *out)
{
  static const char *const kinds[] = { "run", "sleep", "disk", "net" };
  const rsp_model *m = rsp_paths_model(p);
  const rsp_path_elem *e = rsp_paths_elem(p, id);
  const rsp_task *t = rsp_model_task(m, e->task);
  fprintf(out, "%*s%-5s %s %" PRId32 "/%" PRId32 " %.3f-%.3f ms (%.3f)%s%s", 2 * e->depth + 2, "",
          kinds[e->kind & 3], *t->comm ? t->comm : "?", t->pid, t->tid, ms(e->start - t0), ms(e->end - t0),
          ms(e->end - e->start), e->flags & RSP_ELEM_CUT ? " cut" : "",
          e->flags & RSP_ELEM_MERGED_POLLS ? " merged" : "");
  if (e->kind == RSP_ELEM_SLEEP) {
    const rsp_sleep *s = rsp_model_sleep(m, e->id);
    char buf[512];
    fprintf(out, " [%s]", site_label(m, s, buf, sizeof buf));
  }
  fprintf(out, "\n");
  uint32_t n;
  const rsp_elem_id *kids = rsp_paths_children(p, id, &n);
  for (uint32_t i = 0; i < n; i++)
    print_tree(p, kids[i], t0, out);
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

int summary_categories_print(const rsp_model *model, const char *path, const summary_categories_options *o,
                             FILE *out)
{
  int32_t pid = o->pid;
  if (pid < 0 && o->comm) {
    pid = pid_of_comm(model, o->comm);
    if (pid < 0) {
      fprintf(stderr, "rsp-summary: %s: no process named '%s'\n", path, o->comm);
      return 1;
    }
  }
  if (pid < 0)
    pid = rsp_model_workload_pid(model);
  if (pid < 0) {
    fprintf(stderr, "rsp-summary: %s: no workload process recorded; give --pid PID or --comm NAME\n", path);
    return 1;
  }
  rsp_paths_options po = { .tolerance_ns = o->tolerance_ns, .poll_merge_gap_ns = o->poll_gap_ns };
  GError *error = NULL;
  rsp_paths *p = rsp_paths_build(model, pid, &po, &error);
  if (!p) {
    fprintf(stderr, "rsp-summary: %s: %s\n", path, error->message);
    g_error_free(error);
    return 1;
  }
  rsp_categories c;
  rsp_categories_compute(p, &c);
  GHashTable *run_ns = run_ns_by_pid(p);
  char **warnings = rsp_model_loss_warnings(model);
  GStringChunk *strings = g_string_chunk_new(4096);
  GPtrArray *waits = o->waits ? collect_waits(p, strings) : NULL;
  double pct = c.total_ns ? 100.0 * (double)c.accounted_ns / (double)c.total_ns : 0.0;

  if (o->paths && !o->json)
    print_paths(p, out);
  if (o->json) {
    fprintf(out, "{\"file\": ");
    json_str(out, path);
    fprintf(out, ", \"pid\": %" PRId32 ", \"n_processes\": %u, \"processes\": [", pid, c.n_processes);
    /* each process once, named by its latest generation, with every name its tasks had */
    GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    bool first = true;
    for (uint32_t i = 0; i < rsp_paths_n_tasks(p); i++) {
      const rsp_task *t = rsp_model_task(model, rsp_paths_task(p, i));
      if (!g_hash_table_add(seen, GINT_TO_POINTER(t->pid)))
        continue;
      const rsp_task *latest = t;
      GPtrArray *names = g_ptr_array_new();
      for (uint32_t j = i; j < rsp_paths_n_tasks(p); j++) {
        const rsp_task *u = rsp_model_task(model, rsp_paths_task(p, j));
        if (u->pid != t->pid)
          continue;
        if (u->start > latest->start || (u->start == latest->start && u->generation > latest->generation))
          latest = u;
        bool dup = false;
        for (guint k = 0; k < names->len; k++)
          dup |= strcmp(g_ptr_array_index(names, k), u->comm) == 0;
        if (!dup)
          g_ptr_array_add(names, (gpointer)u->comm);
      }
      fprintf(out, "%s{\"pid\": %" PRId32 ", \"comm\": ", first ? "" : ", ", t->pid);
      json_str(out, latest->comm);
      fprintf(out, ", \"comms\": [");
      for (guint k = 0; k < names->len; k++) {
        fprintf(out, "%s", k ? ", " : "");
        json_str(out, g_ptr_array_index(names, k));
      }
      fprintf(out, "], \"run_ms\": %.6f}", ms(run_ns_of(run_ns, t->pid)));
      g_ptr_array_free(names, TRUE);
      first = false;
    }
    g_hash_table_destroy(seen);
    fprintf(out, "], \"paths\": %u, \"wall_ms\": %.6f, \"total_ms\": %.6f, \"categories\": {", c.n_paths,
            ms(c.wall_ns), ms(c.total_ns));
    for (int k = 0; k < RSP_N_CATEGORIES; k++)
      fprintf(out, "%s\"%s\": %.6f", k ? ", " : "", rsp_category_key(k), ms(c.ns[k]));
    fprintf(out, "}, \"accounted_ms\": %.6f, \"unaccounted_ms\": %.6f, \"percent_accounted\": %.3f",
            ms(c.accounted_ns), ms(c.ns[RSP_CAT_UNACCOUNTED]), pct);
    json_guessed_and_unknown(&c, out);
    json_preemptors(model, &c, out);
    fprintf(out, ", \"tolerance_ns\": %" PRIu64 ", \"poll_gap_ns\": %" PRIu64,
            o->tolerance_ns ? o->tolerance_ns : RSP_PARENT_CHILD_TOLERANCE_NS,
            o->poll_gap_ns ? o->poll_gap_ns : RSP_POLL_MERGE_GAP_NS);
    const rsp_model_loss *l = rsp_model_loss_get(model);
    fprintf(out, ", \"lost_events\": {\"lost_records\": %" PRIu64 ", \"lost_events\": %" PRIu64
                 ", \"lost_samples\": %" PRIu64 ", \"inferred_switch_ins\": %" PRIu64
                 ", \"sleeps_without_wakeup\": %" PRIu64 ", \"sleeps_end_inferred\": %" PRIu64
                 ", \"disk_no_complete\": %" PRIu64 ", \"sampled_tracepoints\": %s}",
            l->lost_records, l->lost_events, l->lost_samples, l->inferred_switch_ins, l->sleeps_without_wakeup,
            l->sleeps_end_inferred, l->disk_no_complete, l->sampled_tracepoints ? "true" : "false");
    fprintf(out, ", \"sample_event\": ");
    if (rsp_model_sample_event(model))
      json_str(out, rsp_model_sample_event(model));
    else
      fprintf(out, "null");
    fprintf(out, ", \"other_sample_events\": [");
    for (uint32_t i = 0; i < rsp_model_n_other_sample_events(model); i++) {
      fprintf(out, "%s", i ? ", " : "");
      json_str(out, rsp_model_other_sample_event(model, i));
    }
    fprintf(out, "]");
    fprintf(out, ", \"warnings\": [");
    for (char **w = warnings; *w; w++) {
      fprintf(out, "%s", w == warnings ? "" : ", ");
      json_str(out, *w);
    }
    fprintf(out, "]");
    if (waits) {
      fprintf(out, ", \"waits\": [");
      for (guint i = 0; i < waits->len && i < TOP_WAITS; i++) {
        const wait_site *w = g_ptr_array_index(waits, i);
        fprintf(out, "%s{\"site\": ", i ? ", " : "");
        json_str(out, w->label);
        fprintf(out, ", \"count\": %" PRIu64 ", \"total_ms\": %.6f, \"end\": \"%s\"}", w->count, ms(w->total_ns),
                dominant_end(w));
      }
      fprintf(out, "]");
      uint64_t inferred = 0;
      for (guint i = 0; i < waits->len; i++)
        inferred += ((const wait_site *)g_ptr_array_index(waits, i))->inferred_ns;
      fprintf(out, ", \"inferred_end_ms\": %.6f", ms(inferred));
      /* per category, the sites whose sleeps' own time (children not taken out) went there, largest first */
      fprintf(out, ", \"wait_sites_by_category\": {");
      bool first_cat = true;
      for (int k = 0; k < RSP_N_CATEGORIES; k++) {
        GPtrArray *sorted = g_ptr_array_new();
        for (guint i = 0; i < waits->len; i++) {
          wait_site *w = g_ptr_array_index(waits, i);
          if (w->by_cat[k])
            g_ptr_array_add(sorted, w);
        }
        if (sorted->len) {
          cat_key = k;
          g_ptr_array_sort(sorted, by_category_total);
          fprintf(out, "%s\"%s\": [", first_cat ? "" : ", ", rsp_category_key(k));
          for (guint i = 0; i < sorted->len && i < TOP_WAITS; i++) {
            const wait_site *w = g_ptr_array_index(sorted, i);
            fprintf(out, "%s{\"site\": ", i ? ", " : "");
            json_str(out, w->label);
            fprintf(out, ", \"ms\": %.6f}", ms(w->by_cat[k]));
          }
          fprintf(out, "]");
          first_cat = false;
        }
        g_ptr_array_free(sorted, TRUE);
      }
      fprintf(out, "}");
    }
    fprintf(out, "}\n");
  } else {
    if (o->categories) {
      const rsp_task *t0 = NULL;
      for (uint32_t i = 0; i < rsp_paths_n_tasks(p); i++) {
        const rsp_task *t = rsp_model_task(model, rsp_paths_task(p, i));
        if (t->pid == pid && (!t0 || t->start > t0->start))
          t0 = t;
      }
      fprintf(out, "Process of interest: pid %" PRId32 " (%s)\n", pid, t0 && *t0->comm ? t0->comm : "?");
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
      fprintf(out, "%-34s %s\n", "Run samples from", rsp_model_sample_event(model) ? rsp_model_sample_event(model)
                                                                                : "(no sampling event)");
      text_details(model, &c, out);
    }
    if (waits) {
      fprintf(out, "%sTop waits on the control paths, by wait site:\n", o->categories ? "\n" : "");
      fprintf(out, "%12s %8s  %-10s %s\n", "TOTAL ms", "COUNT", "END", "SITE");
      for (guint i = 0; i < waits->len && i < TOP_WAITS; i++) {
        const wait_site *w = g_ptr_array_index(waits, i);
        fprintf(out, "%12.3f %8" PRIu64 "  %-10s %s\n", ms(w->total_ns), w->count, dominant_end(w), w->label);
      }
    }
    for (char **w = warnings; *w; w++)
      fprintf(out, "note: %s\n", *w);
  }
  if (waits)
    g_ptr_array_free(waits, TRUE);
  g_string_chunk_free(strings);
  g_hash_table_destroy(run_ns);
  g_strfreev(warnings);
  rsp_paths_free(p);
  return 0;
}
