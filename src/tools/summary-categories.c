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
_Static_assert(N_ENDS == RSP_N_SLEEP_ENDS, "a name for each end cause");

static const char *site_label(const rsp_model *m, const rsp_sleep *s, char *buf, size_t size)
{
  const rsp_model_frame *f = s->stack != RSP_NO_ID ? rsp_model_stack_label(m, s->stack) : NULL;
  if (!f)
    return "[no stack]";
  g_snprintf(buf, size, "%s (%s)", f->function, f->dso);
  return buf;
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
  return end_names[best];
}

enum { TOP_WAITS = 20 };

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
  char **warnings = rsp_model_loss_warnings(model);
  rsp_wait_sites *waits = o->waits ? rsp_wait_sites_compute(p) : NULL;
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
      fprintf(out, "]}");
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
    fprintf(out, ", \"warnings\": [");
    for (char **w = warnings; *w; w++) {
      fprintf(out, "%s", w == warnings ? "" : ", ");
      json_str(out, *w);
    }
    fprintf(out, "]");
    if (waits) {
      fprintf(out, ", \"waits\": [");
      for (uint32_t i = 0; i < rsp_wait_sites_n(waits) && i < TOP_WAITS; i++) {
        const rsp_wait_site *w = rsp_wait_sites_get(waits, i);
        fprintf(out, "%s{\"site\": ", i ? ", " : "");
        json_str(out, w->label);
        fprintf(out, ", \"count\": %" PRIu64 ", \"total_ms\": %.6f, \"end\": \"%s\"}", w->count, ms(w->total_ns),
                dominant_end(w));
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
      for (int k = 0; k < RSP_N_CATEGORIES; k++)
        if (k != RSP_CAT_UNACCOUNTED)
          fprintf(out, "  %-32s %12.3f ms\n", rsp_category_label(k), ms(c.ns[k]));
      fprintf(out, "%-34s %12.3f ms\n", "Total accounted", ms(c.accounted_ns));
      fprintf(out, "%-34s %12.3f ms\n", "Unaccounted", ms(c.ns[RSP_CAT_UNACCOUNTED]));
      fprintf(out, "%-34s %12.1f %%\n", "Percent accounted", pct);
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
  g_strfreev(warnings);
  rsp_paths_free(p);
  return 0;
}
