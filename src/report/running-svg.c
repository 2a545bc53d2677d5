/* The Process Running View as SVG (paper, "Process Running View"): a row per thread of the processes
 * on the control paths (the process of interest first), time across; runs red, sleeps blue, I/O
 * sleeps green, and a strip along the top of each run and sleep on the paths (the wait chain), as
 * render/running-view.c draws them. Intervals of a kind closer than half a pixel are one rectangle,
 * so a row costs at most its width in pixels. Row names are <text>. */
#include "report/report-private.h"

#include "render/render.h"

#include <inttypes.h>
#include <string.h>

enum { ROW_H = 16, RULER_H = 24, LABEL_W = 170, MAX_ROWS = 60 };

typedef enum { SPAN_SLEEP, SPAN_IO, SPAN_RUN, SPAN_CHAIN, N_SPANS } span_kind;

/* Rectangles of one colour along a row, merged while they are closer than GAP. */
typedef struct spans {
  FILE *out;
  const char *fill;
  const char *cls;
  double y, h, x0, scale;
  uint64_t t0, gap;
  uint64_t start, end; /* the open one; end 0: none */
  uint32_t count;      /* intervals in the open one */
} spans;

static void spans_flush(spans *s)
{
  if (!s->end)
    return;
  double x = s->x0 + (double)(s->start - s->t0) * s->scale, w = (double)(s->end - s->start) * s->scale;
  char dur[48];
  fprintf(s->out, "<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\">"
                  "<title>%s (%u), %s</title></rect>\n",
          s->cls, x, s->y, w < 0.5 ? 0.5 : w, s->h, s->fill, s->cls, s->count,
          rsp_format_duration(s->end - s->start, dur, sizeof dur));
  s->end = 0;
  s->count = 0;
}

static void spans_add(spans *s, uint64_t start, uint64_t end, uint64_t t0, uint64_t t1)
{
  start = MAX(start, t0);
  end = MIN(end, t1);
  if (end <= start)
    return;
  if (s->end && start <= s->end + s->gap) {
    s->end = MAX(s->end, end);
    s->count++;
    return;
  }
  spans_flush(s);
  s->start = start;
  s->end = end;
  s->count = 1;
}

/* The processes on the paths, the process of interest first, then in the paths' order. */
static GArray *path_pids(const rsp_paths *paths)
{
  const rsp_model *m = rsp_paths_model(paths);
  GArray *pids = g_array_new(FALSE, FALSE, sizeof(int32_t));
  int32_t poi = rsp_paths_pid(paths);
  g_array_append_val(pids, poi);
  for (uint32_t i = 0; i < rsp_paths_n_tasks(paths); i++) {
    int32_t pid = rsp_model_task(m, rsp_paths_task(paths, i))->pid;
    bool seen = false;
    for (guint k = 0; k < pids->len && !seen; k++)
      seen = g_array_index(pids, int32_t, k) == pid;
    if (!seen)
      g_array_append_val(pids, pid);
  }
  return pids;
}

void rsp_report_running_svg(FILE *out, const rsp_paths *paths, int width)
{
  const rsp_model *m = rsp_paths_model(paths);
  uint64_t t0 = rsp_model_time_first(m), t1 = rsp_model_time_last(m);
  /* the paths' span, so that the rows show what the flame view shows */
  uint64_t p0 = UINT64_MAX, p1 = 0;
  for (rsp_path_id p = 0; p < rsp_paths_n_paths(paths); p++) {
    const rsp_path *path = rsp_paths_path(paths, p);
    if (path->n_elems) {
      p0 = MIN(p0, path->start);
      p1 = MAX(p1, path->end);
    }
  }
  if (p0 < p1) {
    t0 = p0;
    t1 = p1;
  }
  if (t1 <= t0)
    t1 = t0 + 1;
  GArray *pids = path_pids(paths);
  GArray *tasks = g_array_new(FALSE, FALSE, sizeof(rsp_task_id));
  uint32_t n_more = 0;
  for (guint k = 0; k < pids->len; k++)
    for (rsp_task_id t = 0; t < rsp_model_n_tasks(m); t++) {
      const rsp_task *task = rsp_model_task(m, t);
      if (task->pid != g_array_index(pids, int32_t, k) || !task->n_runs)
        continue;
      if (tasks->len < MAX_ROWS)
        g_array_append_val(tasks, t);
      else
        n_more++;
    }
  GHashTable *on_path_runs = g_hash_table_new(g_direct_hash, g_direct_equal);
  GHashTable *on_path_sleeps = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (rsp_elem_id i = 0; i < rsp_paths_n_elems(paths); i++) {
    const rsp_path_elem *e = rsp_paths_elem(paths, i);
    if (e->kind == RSP_ELEM_RUN)
      g_hash_table_add(on_path_runs, GUINT_TO_POINTER(e->id + 1));
    else if (e->kind == RSP_ELEM_SLEEP)
      g_hash_table_add(on_path_sleeps, GUINT_TO_POINTER(e->id + 1));
  }
  const rsp_style *st = rsp_style_default();
  char fills[N_SPANS][8];
  rsp_rgb_to_hex(st->sleep, fills[SPAN_SLEEP]);
  rsp_rgb_to_hex(st->io, fills[SPAN_IO]);
  rsp_rgb_to_hex(st->run, fills[SPAN_RUN]);
  rsp_rgb_to_hex(st->selection, fills[SPAN_CHAIN]);
  static const char *const cls[N_SPANS] = { "sleep", "io-sleep", "run", "chain" };
  int plot_w = width - LABEL_W;
  double scale = (double)plot_w / (double)(t1 - t0);
  int height = RULER_H + (int)tasks->len * ROW_H + (n_more ? ROW_H : 0) + 4;
  fprintf(out,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"view running\" id=\"running-svg\" width=\"%d\" "
          "height=\"%d\" viewBox=\"0 0 %d %d\" data-t0=\"%" PRIu64 "\" data-t1=\"%" PRIu64 "\">\n",
          width, height, width, height, t0, t1);
  rsp_report_svg_ruler(out, t1 - t0, LABEL_W, plot_w - 1, 0, false);
  int32_t prev_pid = INT32_MIN;
  for (guint r = 0; r < tasks->len; r++) {
    rsp_task_id t = g_array_index(tasks, rsp_task_id, r);
    const rsp_task *task = rsp_model_task(m, t);
    double y = RULER_H + (double)r * ROW_H;
    if (r % 2)
      fprintf(out, "<rect class=\"alt\" x=\"0\" y=\"%.1f\" width=\"%d\" height=\"%d\"/>\n", y, width, ROW_H);
    fprintf(out, "<g class=\"f row\"><title>");
    rsp_html_escape(out, task->comm);
    fprintf(out, " pid %" PRId32 " tid %" PRId32 "%s</title><text class=\"rowlabel%s\" x=\"%d\" y=\"%.1f\">", task->pid,
            task->tid, task->pid == rsp_paths_pid(paths) ? " (the process of interest)" : "",
            task->pid == rsp_paths_pid(paths) ? " poi" : "", task->pid != prev_pid ? 4 : 14, y + 12);
    rsp_html_escape(out, *task->comm ? task->comm : "?");
    fprintf(out, " %" PRId32 "</text></g>\n", task->tid);
    prev_pid = task->pid;
    spans s[N_SPANS];
    for (int k = 0; k < N_SPANS; k++)
      s[k] = (spans){ .out = out, .fill = fills[k], .cls = cls[k], .y = y + (k == SPAN_CHAIN ? 1 : 3),
                      .h = k == SPAN_CHAIN ? 2 : ROW_H - 4, .x0 = LABEL_W, .scale = scale, .t0 = t0,
                      .gap = (uint64_t)(0.5 / scale) };
    /* sleeps, then runs over them, then the chain's strip: each kind in time order */
    for (uint32_t i = 0; i < task->n_sleeps; i++) {
      rsp_sleep_id id = rsp_model_task_sleep(m, t, i);
      const rsp_sleep *sl = rsp_model_sleep(m, id);
      if (sl->preempted)
        continue;
      bool io = sl->end_cause == RSP_SLEEP_END_DISK || sl->state == 'D';
      spans_add(&s[io ? SPAN_IO : SPAN_SLEEP], sl->start, sl->end, t0, t1);
    }
    spans_flush(&s[SPAN_SLEEP]);
    spans_flush(&s[SPAN_IO]);
    for (uint32_t i = 0; i < task->n_runs; i++) {
      const rsp_run *run = rsp_model_run(m, rsp_model_task_run(m, t, i));
      spans_add(&s[SPAN_RUN], run->start, run->end, t0, t1);
    }
    spans_flush(&s[SPAN_RUN]);
    /* the chain: runs and sleeps on the paths, merged in time order */
    uint32_t ri = 0, si = 0;
    while (ri < task->n_runs || si < task->n_sleeps) {
      rsp_run_id rid = ri < task->n_runs ? rsp_model_task_run(m, t, ri) : RSP_NO_ID;
      rsp_sleep_id sid = si < task->n_sleeps ? rsp_model_task_sleep(m, t, si) : RSP_NO_ID;
      const rsp_run *run = rid != RSP_NO_ID ? rsp_model_run(m, rid) : NULL;
      const rsp_sleep *sl = sid != RSP_NO_ID ? rsp_model_sleep(m, sid) : NULL;
      if (run && (!sl || run->start <= sl->start)) {
        if (g_hash_table_contains(on_path_runs, GUINT_TO_POINTER(rid + 1)))
          spans_add(&s[SPAN_CHAIN], run->start, run->end, t0, t1);
        ri++;
      } else {
        if (g_hash_table_contains(on_path_sleeps, GUINT_TO_POINTER(sid + 1)))
          spans_add(&s[SPAN_CHAIN], sl->start, sl->end, t0, t1);
        si++;
      }
    }
    spans_flush(&s[SPAN_CHAIN]);
  }
  if (n_more)
    fprintf(out, "<text class=\"note\" x=\"4\" y=\"%d\">%u more threads of these processes not drawn</text>\n",
            RULER_H + (int)tasks->len * ROW_H + 12, n_more);
  fprintf(out, "</svg>\n");
  g_hash_table_destroy(on_path_runs);
  g_hash_table_destroy(on_path_sleeps);
  g_array_free(tasks, TRUE);
  g_array_free(pids, TRUE);
}
