/* The Process Running View (paper, "Visualizations"): time on x, one row per task, threads grouped
 * under a grey process header; each run a red bar, each sleep (optionally) a blue box labelled
 * with its innermost user-space function (green when it waited for disk I/O), links as lines
 * from the causing run to the caused one.
 *
 * Level of detail: each task's runs and sleeps are read from the model's arrays of them by task, their starts
 * sorted (a copy of them all was 18 MB on a dense recording of 1.1 GB). A row is drawn by binary-searching the first
 * interval ending after the current position and either drawing it (when at least a pixel wide) or filling its pixel
 * column and jumping to the next column. A row thus costs O(pixel columns x log n) at any zoom, never O(trace).
 * For a task with many runs or sleeps the view keeps beside the model a coarse index of their starts
 * (time-index.c), their ends as durations and which sleeps waited for I/O (task_tracks), so that a pixel
 * column reads a few neighbouring entries of small arrays instead of records spread over the model's. */
#include "render/render-private.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct interval {
  uint64_t start, end;
} interval;

/* A row's intervals, in start order, not overlapping: the view's own (IV), or a task's runs or sleeps in the model
 * (their STARTS and IDS). */
typedef struct track {
  const interval *iv;
  const uint64_t *starts;
  const uint32_t *ids;
  const rsp_model *model;
  const rsp_time_index *ix; /* of the starts, or NULL */
  const uint32_t *dur;      /* each one's end - start, UINT32_MAX when longer (read the model), or NULL */
  bool sleeps;
  uint32_t n;
} track;

static inline uint64_t track_start(const track *k, uint32_t i)
{
  return k->iv ? k->iv[i].start : k->starts[i];
}

static inline uint64_t track_end(const track *k, uint32_t i)
{
  if (k->iv)
    return k->iv[i].end;
  if (k->dur && k->dur[i] != UINT32_MAX)
    return k->starts[i] + k->dur[i];
  return k->sleeps ? rsp_model_sleep(k->model, k->ids[i])->end : rsp_model_run(k->model, k->ids[i])->end;
}

static track runs_track(const rsp_model *m, rsp_task_id task)
{
  track k = { .model = m };
  k.n = rsp_model_task_runs(m, task, &k.ids, &k.starts);
  return k;
}

static track sleeps_track(const rsp_model *m, rsp_task_id task)
{
  track k = { .model = m, .sleeps = true };
  k.n = rsp_model_task_sleeps(m, task, &k.ids, &k.starts);
  return k;
}

static track own_track(const interval *iv, const uint32_t *off, rsp_task_id task)
{
  return (track){ .iv = iv + off[task], .n = off[task + 1] - off[task] };
}

typedef struct row {
  bool process; /* a process header (or the fold row), else a thread */
  bool fold;    /* the "other processes" row between the processes put first and the rest */
  int32_t pid;
  rsp_task_id task; /* threads: the task (its last generation); headers: the process's first task */
  uint32_t proc;    /* index into view->procs */
  uint32_t gen0, n_gen; /* threads: the generations of the thread (one per exec), proc_tasks[gen0..] */
} row;

typedef struct rect {
  float x, y, w, h;
} rect;

typedef struct label {
  float x0, x1, y, h;
  const char *text;
} label;

typedef struct link_segment {
  float x0, y0, x1, y1;
  int wakeup;
} link_segment;

/* A task's runs and sleeps as the level-of-detail walk reads them, for tasks with at least RSP_TIME_INDEX_MIN of
 * them: at full zoom-out each pixel column of a dense row costs a search of the starts and a read of the interval's
 * end (and, for a sleep, of its colour), and on a 4.3 GB recording those reads of the model's runs and sleeps, spread
 * over 300 MB, were most of the redraw. */
typedef struct task_tracks {
  rsp_time_index run_ix, sleep_ix;
  uint32_t *run_dur, *sleep_dur; /* end - start, UINT32_MAX when longer (about 4.3 s) */
  uint8_t *sleep_io;             /* the sleep waited for I/O (sleep_is_io) */
} task_tracks;

typedef struct process {
  int32_t pid;
  const char *name;
  uint64_t runtime;
  uint32_t first_task, n_tasks; /* into view->proc_tasks */
} process;

struct rsp_running_view {
  const rsp_model *model;
  uint32_t n_tasks;
  uint64_t *task_runtime;
  interval *disk;       /* per task: the union of its disk requests' [insert, complete] spans */
  uint32_t *disk_off;
  interval *net;        /* per task: the union of its network operations' [start, end] spans */
  uint32_t *net_off;
  process *procs;
  uint32_t n_procs;
  rsp_task_id *proc_tasks; /* tasks grouped by process */
  rsp_sort_order order;
  char *filter;
  char *search;
  uint8_t *task_match;  /* search hits, per task */
  uint8_t *sleep_match; /* search hits, per sleep (its label's function) */
  uint8_t *task_focus;  /* tasks of the focus process (1) and their direct wakers (2) */
  int32_t focus_pid;
  const rsp_paths *chain; /* the wait chain highlighted (control paths of the focus process), or NULL */
  bool show_sleeps, show_links;
  int32_t *first_pids;  /* processes shown first, in this order (rsp_running_view_set_first), or NULL */
  uint32_t n_first;
  bool others_folded;   /* the processes not in first_pids hidden under one row */
  uint32_t n_others;    /* processes under that row (after the filter) */
  GArray *rows;         /* row */
  GArray *batch[8];     /* per frame: pixel-snapped rects per colour class (reused, no per-frame malloc) */
  GArray *labels;       /* per frame: sleep labels to draw after the boxes */
  GArray *link_segments;/* per frame: the links' lines */
  int32_t *task_row;    /* row index of each task, -1 when filtered out */
  GArray *highlights;   /* rsp_highlight: intervals pointed out (rsp_running_view_set_highlights), or NULL */
  GArray *match_items;  /* rsp_highlight: the search's matches one by one (matched sleeps in time order,
                           then matched tasks over their runs), or NULL */
  task_tracks *tracks;  /* per task: what the walk reads of its runs and sleeps beside the model */
  bool any_sleep_match; /* some sleep_match is set */
};

/* TASK's runs (sleeps) with what the view keeps of them (task_tracks). */
static track indexed_track(const rsp_running_view *v, rsp_task_id task, bool sleeps)
{
  track k = sleeps ? sleeps_track(v->model, task) : runs_track(v->model, task);
  const task_tracks *tt = &v->tracks[task];
  const rsp_time_index *ix = sleeps ? &tt->sleep_ix : &tt->run_ix;
  k.ix = ix->below ? ix : NULL;
  k.dur = sleeps ? tt->sleep_dur : tt->run_dur;
  return k;
}

static bool sleep_is_io(const rsp_sleep *s)
{
  return s->end_cause == RSP_SLEEP_END_DISK || s->state == 'D';
}

/* How many intervals ahead durations_of asks for the model's runs or sleeps. */
#define TRACK_AHEAD 16u

/* The ends (as durations) of K's intervals, when there are enough of them to be worth it. */
static uint32_t *durations_of(const track *k)
{
  if (k->n < RSP_TIME_INDEX_MIN)
    return NULL;
  uint32_t *dur = g_new(uint32_t, k->n);
  for (uint32_t i = 0; i < k->n; i++) {
    if (i + TRACK_AHEAD < k->n) /* (the ids lie spread over the model's arrays) */
      __builtin_prefetch(k->sleeps ? (const void *)rsp_model_sleep(k->model, k->ids[i + TRACK_AHEAD])
                                   : (const void *)rsp_model_run(k->model, k->ids[i + TRACK_AHEAD]));
    uint64_t d = track_end(k, i) - k->starts[i]; /* (an end before its start wraps: read from the model) */
    dur[i] = d < UINT32_MAX ? (uint32_t)d : UINT32_MAX;
  }
  return dur;
}

/* Task T's running time, and its task_tracks. */
static void keep_tracks(rsp_running_view *v, rsp_task_id t)
{
  task_tracks *tt = &v->tracks[t];
  track k = runs_track(v->model, t);
  rsp_time_index_build(&tt->run_ix, k.starts, sizeof(uint64_t), k.n);
  tt->run_dur = durations_of(&k);
  k.dur = tt->run_dur;
  for (uint32_t i = 0; i < k.n; i++)
    v->task_runtime[t] += track_end(&k, i) - k.starts[i];
  k = sleeps_track(v->model, t);
  rsp_time_index_build(&tt->sleep_ix, k.starts, sizeof(uint64_t), k.n);
  tt->sleep_dur = durations_of(&k);
  if (tt->sleep_dur) {
    tt->sleep_io = g_new(uint8_t, k.n);
    for (uint32_t i = 0; i < k.n; i++)
      tt->sleep_io[i] = sleep_is_io(rsp_model_sleep(v->model, k.ids[i]));
  }
}

typedef struct tracks_job {
  rsp_running_view *v;
  rsp_task_id first, end;
} tracks_job;

static gpointer keep_tracks_of(gpointer data)
{
  const tracks_job *job = data;
  for (rsp_task_id t = job->first; t < job->end; t++)
    keep_tracks(job->v, t);
  return NULL;
}

/* keep_tracks of every task: on two threads when there are many runs and sleeps (4M on a 4.3 GB recording: 170 ms
 * on one), split where half of them are done. */
static void keep_all_tracks(rsp_running_view *v)
{
  const rsp_model *m = v->model;
  uint64_t items = (uint64_t)rsp_model_n_runs(m) + rsp_model_n_sleeps(m), before = 0;
  tracks_job all = { v, 0, v->n_tasks };
  if (items < 65536 || rsp_threads_wanted() < 2) {
    keep_tracks_of(&all);
    return;
  }
  rsp_task_id split = 0;
  for (; split < v->n_tasks && before * 2 < items; split++)
    before += rsp_model_task(m, split)->n_runs + rsp_model_task(m, split)->n_sleeps;
  tracks_job second = { v, split, v->n_tasks };
  GThread *thread = g_thread_new("rsp-view-tracks", keep_tracks_of, &second);
  all.end = split;
  keep_tracks_of(&all);
  g_thread_join(thread);
}

static bool contains_ci(const char *hay, const char *needle)
{
  if (!needle || !*needle)
    return true;
  if (!hay)
    return false;
  g_autofree char *h = g_utf8_casefold(hay, -1);
  g_autofree char *n = g_utf8_casefold(needle, -1);
  return strstr(h, n) != NULL;
}

static int cmp_proc(const void *a, const void *b, void *data)
{
  const process *x = a, *y = b;
  rsp_sort_order order = *(const rsp_sort_order *)data;
  if (order == RSP_SORT_BY_RUNTIME && x->runtime != y->runtime)
    return x->runtime < y->runtime ? 1 : -1;
  if (order == RSP_SORT_BY_NAME) {
    int c = g_strcmp0(x->name, y->name);
    if (c)
      return c;
  }
  return (x->pid > y->pid) - (x->pid < y->pid);
}

static bool is_first(const rsp_running_view *v, int32_t pid)
{
  for (uint32_t i = 0; i < v->n_first; i++)
    if (v->first_pids[i] == pid)
      return true;
  return false;
}

static void rebuild_rows(rsp_running_view *v)
{
  g_qsort_with_data(v->procs, v->n_procs, sizeof(process), cmp_proc, &v->order);
  g_array_set_size(v->rows, 0);
  for (uint32_t t = 0; t < v->n_tasks; t++)
    v->task_row[t] = -1;
  v->n_others = 0;
  /* with processes put first: those (in their order), the fold row, then the others */
  for (int pass = v->n_first ? 0 : 1; pass < 2; pass++)
  for (uint32_t k = 0; k < (pass ? v->n_procs : v->n_first); k++) {
    uint32_t p = k;
    if (!pass) { /* the K-th pid put first */
      for (p = 0; p < v->n_procs && v->procs[p].pid != v->first_pids[k]; p++)
        ;
      if (p == v->n_procs)
        continue;
    } else if (v->n_first && is_first(v, v->procs[p].pid)) {
      continue;
    }
    const process *pr = &v->procs[p];
    bool keep = !v->filter || !*v->filter;
    if (!keep) {
      char pidbuf[16];
      snprintf(pidbuf, sizeof pidbuf, "%d", pr->pid);
      keep = !strcmp(pidbuf, v->filter);
      for (uint32_t i = 0; i < pr->n_tasks && !keep; i++)
        keep = contains_ci(rsp_model_task(v->model, v->proc_tasks[pr->first_task + i])->comm, v->filter);
    }
    if (!keep)
      continue;
    uint32_t active = 0;
    for (uint32_t i = 0; i < pr->n_tasks; i++)
      active += rsp_model_task(v->model, v->proc_tasks[pr->first_task + i])->n_runs > 0;
    if (!active)
      continue; /* never ran during the recording: nothing to draw */
    if (pass && v->n_first) {
      if (!v->n_others++) {
        row f = { .process = true, .fold = true, .pid = -1, .task = RSP_NO_ID, .proc = UINT32_MAX };
        g_array_append_val(v->rows, f);
      }
      if (v->others_folded)
        continue;
    }
    row h = { .process = true, .pid = pr->pid, .task = v->proc_tasks[pr->first_task], .proc = p };
    g_array_append_val(v->rows, h);
    /* one row per thread: its generations (an exec starts a new one, with the same tid) share it */
    for (uint32_t i = 0; i < pr->n_tasks;) {
      uint32_t j = i + 1;
      int32_t tid = rsp_model_task(v->model, v->proc_tasks[pr->first_task + i])->tid;
      while (j < pr->n_tasks && rsp_model_task(v->model, v->proc_tasks[pr->first_task + j])->tid == tid)
        j++;
      row r = { .process = false, .pid = pr->pid, .task = RSP_NO_ID, .proc = p, .gen0 = pr->first_task + i,
                .n_gen = j - i };
      for (uint32_t g = i; g < j; g++)
        if (rsp_model_task(v->model, v->proc_tasks[pr->first_task + g])->n_runs)
          r.task = v->proc_tasks[pr->first_task + g]; /* the last generation that ran names the row */
      if (r.task != RSP_NO_ID) {
        for (uint32_t g = i; g < j; g++)
          v->task_row[v->proc_tasks[pr->first_task + g]] = (int32_t)v->rows->len;
        g_array_append_val(v->rows, r);
      }
      i = j;
    }
  }
}

static int cmp_task_in_proc(const void *a, const void *b, void *data)
{
  const rsp_model *m = data;
  const rsp_task *x = rsp_model_task(m, *(const rsp_task_id *)a);
  const rsp_task *y = rsp_model_task(m, *(const rsp_task_id *)b);
  if (x->pid != y->pid)
    return (x->pid > y->pid) - (x->pid < y->pid);
  if (x->tid != y->tid)
    return (x->tid > y->tid) - (x->tid < y->tid);
  return (x->generation > y->generation) - (x->generation < y->generation);
}

/* The span of disk op / net op I, and its task (RSP_NO_ID: none). */
typedef rsp_task_id (*span_fn)(const rsp_model *m, uint32_t i, interval *out);

static rsp_task_id disk_span(const rsp_model *m, uint32_t i, interval *out)
{
  const rsp_disk_op *d = rsp_model_disk_op(m, i);
  uint64_t end = d->complete_time ? d->complete_time : d->issue_time;
  out->start = d->insert_time ? d->insert_time : d->issue_time;
  out->end = end > out->start ? end : out->start + 1;
  return d->task;
}

static rsp_task_id net_span(const rsp_model *m, uint32_t i, interval *out)
{
  const rsp_net_op *n = rsp_model_net_op(m, i);
  out->start = n->start;
  out->end = n->end > n->start ? n->end : n->start + 1;
  return n->task;
}

static int cmp_interval(const void *a, const void *b)
{
  const interval *x = a, *y = b;
  return (x->start > y->start) - (x->start < y->start);
}

/* Per task, the sorted union of the spans of N items (bucketed by task, sorted, overlaps merged):
 * non-overlapping, so the level-of-detail walk applies. OFF gets n_tasks + 1 offsets. */
static interval *spans_by_task(const rsp_model *m, uint32_t n_tasks, uint32_t n, span_fn span, uint32_t *off)
{
  interval *out = g_new(interval, n + 1);
  for (uint32_t i = 0; i < n; i++) {
    interval iv;
    rsp_task_id t = span(m, i, &iv);
    if (t < n_tasks)
      off[t + 1]++;
  }
  for (uint32_t t = 0; t < n_tasks; t++)
    off[t + 1] += off[t];
  uint32_t *fill = g_memdup2(off, (n_tasks + 1) * sizeof(uint32_t));
  for (uint32_t i = 0; i < n; i++) {
    interval iv;
    rsp_task_id t = span(m, i, &iv);
    if (t < n_tasks)
      out[fill[t]++] = iv;
  }
  g_free(fill);
  /* merge in place, compacting */
  uint32_t w = 0;
  for (uint32_t t = 0; t < n_tasks; t++) {
    uint32_t a = off[t], b = off[t + 1];
    qsort(out + a, b - a, sizeof(interval), cmp_interval);
    off[t] = w;
    for (uint32_t i = a; i < b; i++) {
      if (w > off[t] && out[i].start <= out[w - 1].end) {
        if (out[i].end > out[w - 1].end)
          out[w - 1].end = out[i].end;
      } else {
        out[w++] = out[i];
      }
    }
  }
  off[n_tasks] = w;
  return out;
}

rsp_running_view *rsp_running_view_new(const rsp_model *model)
{
  rsp_running_view *v = g_new0(rsp_running_view, 1);
  v->model = model;
  v->n_tasks = rsp_model_n_tasks(model);
  v->task_runtime = g_new0(uint64_t, v->n_tasks);
  v->tracks = g_new0(task_tracks, v->n_tasks + 1);
  keep_all_tracks(v);

  v->disk_off = g_new0(uint32_t, v->n_tasks + 1);
  v->net_off = g_new0(uint32_t, v->n_tasks + 1);
  v->disk = spans_by_task(model, v->n_tasks, rsp_model_n_disk_ops(model), disk_span, v->disk_off);
  v->net = spans_by_task(model, v->n_tasks, rsp_model_n_net_ops(model), net_span, v->net_off);

  /* processes: tasks grouped by pid (a task whose pid is unknown is its own process) */
  v->proc_tasks = g_new(rsp_task_id, v->n_tasks + 1);
  for (uint32_t t = 0; t < v->n_tasks; t++)
    v->proc_tasks[t] = t;
  g_qsort_with_data(v->proc_tasks, v->n_tasks, sizeof(rsp_task_id), cmp_task_in_proc, (void *)model);
  v->procs = g_new0(process, v->n_tasks + 1);
  for (uint32_t i = 0; i < v->n_tasks;) {
    const rsp_task *first = rsp_model_task(model, v->proc_tasks[i]);
    int32_t pid = first->pid;
    process *p = &v->procs[v->n_procs++];
    p->pid = pid >= 0 ? pid : first->tid;
    p->first_task = i;
    p->name = first->comm;
    uint32_t j = i;
    while (j < v->n_tasks) {
      rsp_task_id tid = v->proc_tasks[j];
      const rsp_task *t = rsp_model_task(model, tid);
      if (pid < 0 ? j > i : t->pid != pid)
        break;
      if (t->tid == p->pid && t->comm && *t->comm)
        p->name = t->comm; /* the main thread's (last generation's) name */
      p->runtime += v->task_runtime[tid];
      j++;
    }
    p->n_tasks = j - i;
    i = j;
  }
  v->task_match = g_new0(uint8_t, v->n_tasks + 1);
  v->task_focus = g_new0(uint8_t, v->n_tasks + 1);
  v->sleep_match = g_new0(uint8_t, rsp_model_n_sleeps(model) + 1);
  v->task_row = g_new(int32_t, v->n_tasks + 1);
  v->rows = g_array_new(false, false, sizeof(row));
  for (unsigned k = 0; k < G_N_ELEMENTS(v->batch); k++)
    v->batch[k] = g_array_new(false, false, sizeof(rect));
  v->labels = g_array_new(false, false, sizeof(label));
  v->link_segments = g_array_new(false, false, sizeof(link_segment));
  v->focus_pid = -1;
  v->show_sleeps = true;
  v->show_links = true;
  rebuild_rows(v);
  return v;
}

void rsp_running_view_free(rsp_running_view *v)
{
  if (!v)
    return;
  g_free(v->task_runtime);
  for (uint32_t t = 0; t < v->n_tasks; t++) {
    task_tracks *tt = &v->tracks[t];
    rsp_time_index_clear(&tt->run_ix);
    rsp_time_index_clear(&tt->sleep_ix);
    g_free(tt->run_dur);
    g_free(tt->sleep_dur);
    g_free(tt->sleep_io);
  }
  g_free(v->tracks);
  g_free(v->disk);
  g_free(v->disk_off);
  g_free(v->net);
  g_free(v->net_off);
  g_free(v->procs);
  g_free(v->proc_tasks);
  g_free(v->filter);
  g_free(v->search);
  g_free(v->task_match);
  g_free(v->sleep_match);
  g_free(v->task_focus);
  g_free(v->task_row);
  g_free(v->first_pids);
  if (v->match_items)
    g_array_free(v->match_items, true);
  g_array_free(v->rows, true);
  for (unsigned k = 0; k < G_N_ELEMENTS(v->batch); k++)
    g_array_free(v->batch[k], true);
  g_array_free(v->labels, true);
  g_array_free(v->link_segments, true);
  if (v->highlights)
    g_array_free(v->highlights, true);
  g_free(v);
}

const rsp_model *rsp_running_view_model(const rsp_running_view *v)
{
  return v->model;
}

void rsp_running_view_set_sort(rsp_running_view *v, rsp_sort_order order)
{
  v->order = order;
  rebuild_rows(v);
}

void rsp_running_view_set_first(rsp_running_view *v, const int32_t *pids, uint32_t n, bool fold_others)
{
  g_free(v->first_pids);
  v->first_pids = n ? g_memdup2(pids, n * sizeof *pids) : NULL;
  v->n_first = n;
  v->others_folded = n && fold_others;
  rebuild_rows(v);
}

void rsp_running_view_set_others_folded(rsp_running_view *v, bool folded)
{
  v->others_folded = v->n_first && folded;
  rebuild_rows(v);
}

bool rsp_running_view_others_folded(const rsp_running_view *v)
{
  return v->others_folded;
}

uint32_t rsp_running_view_n_others(const rsp_running_view *v)
{
  return v->n_others;
}

void rsp_running_view_set_filter(rsp_running_view *v, const char *text)
{
  g_free(v->filter);
  v->filter = text && *text ? g_strdup(text) : NULL;
  rebuild_rows(v);
}

uint32_t rsp_running_view_set_search(rsp_running_view *v, const char *text)
{
  g_free(v->search);
  v->search = text && *text ? g_strdup(text) : NULL;
  memset(v->task_match, 0, v->n_tasks);
  uint32_t n_sleeps = rsp_model_n_sleeps(v->model);
  memset(v->sleep_match, 0, n_sleeps);
  v->any_sleep_match = false;
  if (v->match_items)
    g_array_set_size(v->match_items, 0);
  if (!v->search)
    return 0;
  if (!v->match_items)
    v->match_items = g_array_new(FALSE, FALSE, sizeof(rsp_highlight));
  uint32_t hits = 0;
  for (uint32_t t = 0; t < v->n_tasks; t++)
    if (contains_ci(rsp_model_task(v->model, t)->comm, v->search)) {
      v->task_match[t] = 1;
      hits++;
    }
  /* labels repeat: decide once per stack */
  uint32_t n_stacks = rsp_model_n_stacks(v->model);
  uint8_t *stack_hit = g_new0(uint8_t, n_stacks + 1);
  for (uint32_t s = 0; s < n_stacks; s++) {
    const rsp_model_frame *f = rsp_model_stack_label(v->model, s);
    stack_hit[s] = f && contains_ci(f->function, v->search);
  }
  for (uint32_t i = 0; i < n_sleeps; i++) {
    const rsp_sleep *s = rsp_model_sleep(v->model, i);
    if (s->stack != RSP_NO_ID && s->stack < n_stacks && stack_hit[s->stack]) {
      v->sleep_match[i] = 1;
      v->any_sleep_match = true;
      hits++;
      rsp_highlight h = { s->task, s->start, s->end };
      g_array_append_val(v->match_items, h);
    }
  }
  g_free(stack_hit);
  for (uint32_t tk = 0; tk < v->n_tasks; tk++) {
    const rsp_task *task = rsp_model_task(v->model, tk);
    if (v->task_match[tk] && task->n_runs) {
      rsp_highlight h = { tk, rsp_model_run(v->model, rsp_model_task_run(v->model, tk, 0))->start,
                          rsp_model_run(v->model, rsp_model_task_run(v->model, tk, task->n_runs - 1))->end };
      g_array_append_val(v->match_items, h);
    }
  }
  return hits;
}

uint32_t rsp_running_view_n_match_items(const rsp_running_view *v)
{
  return v->match_items ? v->match_items->len : 0;
}

bool rsp_running_view_match_item(const rsp_running_view *v, uint32_t i, rsp_highlight *out)
{
  if (!v->match_items || i >= v->match_items->len)
    return false;
  *out = g_array_index(v->match_items, rsp_highlight, i);
  return true;
}

void rsp_running_view_set_show_sleeps(rsp_running_view *v, bool show)
{
  v->show_sleeps = show;
}

void rsp_running_view_set_show_links(rsp_running_view *v, bool show)
{
  v->show_links = show;
}

/* The process of interest and the tasks that woke it (one step of its wait chain; the full
 * recursive chain comes with the analysis layer's control paths). */
void rsp_running_view_set_focus_pid(rsp_running_view *v, int32_t pid)
{
  v->focus_pid = pid;
  memset(v->task_focus, 0, v->n_tasks);
  if (pid < 0)
    return;
  for (uint32_t t = 0; t < v->n_tasks; t++) {
    const rsp_task *task = rsp_model_task(v->model, t);
    if (task->pid != pid)
      continue;
    v->task_focus[t] = 1;
    for (uint32_t i = 0; i < task->n_sleeps; i++) {
      const rsp_sleep *s = rsp_model_sleep(v->model, rsp_model_task_sleep(v->model, t, i));
      if (s->wake_link == RSP_NO_ID)
        continue;
      const rsp_link *l = rsp_model_link(v->model, s->wake_link);
      if (l->from_run == RSP_NO_ID)
        continue;
      rsp_task_id w = rsp_model_run(v->model, l->from_run)->task;
      if (w < v->n_tasks && !v->task_focus[w])
        v->task_focus[w] = 2;
    }
  }
}

void rsp_running_view_set_wait_chain(rsp_running_view *v, const rsp_paths *paths)
{
  v->chain = paths;
  if (!paths)
    return;
  memset(v->task_focus, 0, v->n_tasks);
  for (uint32_t i = 0; i < rsp_paths_n_tasks(paths); i++) {
    rsp_task_id t = rsp_paths_task(paths, i);
    if (t < v->n_tasks)
      v->task_focus[t] = 1;
  }
}

uint32_t rsp_running_view_n_rows(const rsp_running_view *v)
{
  return v->rows->len;
}

int rsp_running_view_content_height(const rsp_running_view *v, const rsp_style *style)
{
  return (int)v->rows->len * style->row_height;
}

static int row_y(const rsp_viewport *vp, const rsp_style *style, uint32_t r)
{
  return style->ruler_height + (int)r * style->row_height - vp->scroll_y;
}

int rsp_running_view_task_y(const rsp_running_view *v, const rsp_viewport *vp, const rsp_style *style,
                            rsp_task_id task)
{
  if (task >= v->n_tasks || v->task_row[task] < 0)
    return -1;
  return row_y(vp, style, (uint32_t)v->task_row[task]);
}

/* ---- Level-of-detail interval walk ---------------------------------------------------------- */

/* The first of K's intervals whose end > T, else K->n. They do not overlap: the last one starting by T, if it ends
 * after T, else the next (a search of the starts, the model's runs and sleeps read once). */
static uint32_t first_ending_after(const track *k, uint64_t t)
{
  uint32_t lo = 0, hi = k->n;
  if (k->ix)
    rsp_time_index_range(k->ix, t, &lo, &hi);
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (track_start(k, mid) > t)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo && track_end(k, lo - 1) > t ? lo - 1 : lo;
}

/* Calls EMIT(x0, x1, index, narrow) for each visible interval at least a pixel wide, and once per
 * pixel column holding only narrower ones (index = the first of them). */
typedef void (*emit_fn)(void *ctx, double x0, double x1, uint32_t index, bool narrow);

/* The first time at or after FROM whose x is at least X. Where a pixel spans more nanoseconds than a
 * double resolves (times near 2^64), +1 would not move x: search with doubling steps, then halve. */
static uint64_t first_time_at_x(const rsp_viewport *vp, const rsp_style *style, uint64_t from, double x)
{
  if (rsp_viewport_x(vp, style, from) >= x)
    return from;
  uint64_t lo = from, step = 1, hi;
  for (;;) {
    hi = lo <= UINT64_MAX - step ? lo + step : UINT64_MAX;
    if (rsp_viewport_x(vp, style, hi) >= x || hi == UINT64_MAX)
      break;
    lo = hi;
    step = step < (UINT64_MAX >> 1) ? step * 2 : step;
  }
  while (hi - lo > 1) { /* x(lo) < X <= x(hi), or hi is the end of time */
    uint64_t mid = lo + (hi - lo) / 2;
    if (rsp_viewport_x(vp, style, mid) >= x)
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

static void walk(const track *k, const rsp_viewport *vp, const rsp_style *style, emit_fn emit, void *ctx)
{
  uint64_t pos = vp->t0;
  uint32_t n = k->n, i = first_ending_after(k, pos);
  while (i < n && track_start(k, i) < vp->t1) {
    uint64_t start = track_start(k, i), end = track_end(k, i);
    uint64_t s = start > pos ? start : pos; /* pos >= t0 */
    uint64_t e = end < vp->t1 ? end : vp->t1;
    double x0 = rsp_viewport_x(vp, style, s), x1 = rsp_viewport_x(vp, style, e);
    if (x1 - x0 >= 1.0) {
      emit(ctx, x0, x1, i, false);
      pos = end;
      i++;
      continue;
    }
    double col = floor(x0);
    emit(ctx, col, col + 1, i, true);
    uint64_t next = first_time_at_x(vp, style, rsp_viewport_time(vp, style, col + 1), col + 1);
    if (next <= start)
      next = start < UINT64_MAX ? start + 1 : UINT64_MAX;
    if (next <= pos || next >= vp->t1)
      break; /* past the plot (a long interval from its last pixel would be walked a pixel at a time), or at the
                end of time: nothing further can be drawn */
    pos = next;
    i = first_ending_after(k, pos);
  }
}

typedef struct draw_ctx {
  cairo_t *cr;
  rsp_running_view *v;
  const rsp_style *style;
  const rsp_viewport *vp;
  rsp_task_id task;
  double y, h;
  double row_top;
  double pend_x0, pend_x1; /* a pending rectangle, merged while emits touch it */
  int pend_kind;           /* -1 none, else colour class */
  uint32_t sleep_base;
} draw_ctx;

enum { KIND_RUN, KIND_SLEEP, KIND_IO, KIND_MATCH, KIND_ALT, KIND_DISK, KIND_NET, KIND_CHAIN };

static void set_rgb(cairo_t *cr, rsp_rgb c)
{
  cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

/* Queues the pending rectangle, snapped to whole pixels (fast pixman fills, crisp edges). */
static void flush(draw_ctx *c)
{
  if (c->pend_kind < 0)
    return;
  float x0 = floorf((float)c->pend_x0), x1 = ceilf((float)c->pend_x1);
  if (x1 <= x0)
    x1 = x0 + 1;
  rect r = { x0, (float)c->y, x1 - x0, (float)c->h };
  g_array_append_val(c->v->batch[c->pend_kind], r);
  c->pend_kind = -1;
}

static void add_rect(draw_ctx *c, double x0, double x1, int kind)
{
  if (c->pend_kind == kind && x0 <= c->pend_x1 + 0.01) {
    if (x1 > c->pend_x1)
      c->pend_x1 = x1;
    return;
  }
  flush(c);
  c->pend_kind = kind;
  c->pend_x0 = x0;
  c->pend_x1 = x1;
}

/* A strip along the top of the row under an element of the wait chain. */
static void chain_strip(draw_ctx *c, double x0, double x1)
{
  float a = floorf((float)x0), b = ceilf((float)x1);
  rect r = { a, (float)c->row_top, b > a ? b - a : 1, 2 };
  g_array_append_val(c->v->batch[KIND_CHAIN], r);
}

static void emit_run(void *ctx, double x0, double x1, uint32_t index, bool narrow)
{
  draw_ctx *c = ctx;
  add_rect(ctx, x0, x1, KIND_RUN);
  if (c->v->chain && rsp_paths_has_run(c->v->chain, rsp_model_task_run(c->v->model, c->task, index)))
    chain_strip(c, x0, x1);
}

static void emit_disk(void *ctx, double x0, double x1, uint32_t index, bool narrow)
{
  add_rect(ctx, x0, x1, KIND_DISK);
}

static void emit_net(void *ctx, double x0, double x1, uint32_t index, bool narrow)
{
  add_rect(ctx, x0, x1, KIND_NET);
}

static void emit_sleep(void *ctx, double x0, double x1, uint32_t index, bool narrow)
{
  draw_ctx *c = ctx;
  const uint8_t *io = c->v->tracks[c->task].sleep_io;
  if (narrow && io && !c->v->any_sleep_match && !c->v->chain) {
    /* a pixel column of a dense row: its colour alone, from what the view keeps */
    add_rect(c, x0, x1, io[index] ? KIND_IO : KIND_SLEEP);
    return;
  }
  rsp_sleep_id id = rsp_model_task_sleep(c->v->model, c->task, index);
  const rsp_sleep *s = rsp_model_sleep(c->v->model, id);
  int kind = c->v->sleep_match[id] ? KIND_MATCH : sleep_is_io(s) ? KIND_IO : KIND_SLEEP;
  add_rect(c, x0, x1, kind);
  if (c->v->chain && rsp_paths_has_sleep(c->v->chain, id))
    chain_strip(c, x0, x1);
  if (narrow || x1 - x0 < 40 || s->stack == RSP_NO_ID)
    return;
  const rsp_model_frame *f = rsp_model_stack_label(c->v->model, s->stack);
  if (!f || !f->function)
    return;
  label l = { (float)x0, (float)x1, (float)c->y, (float)c->h, f->label };
  g_array_append_val(c->v->labels, l);
}

static void draw_links(rsp_running_view *v, cairo_t *cr, const rsp_viewport *vp, const rsp_style *style)
{
  const rsp_model *m = v->model;
  uint32_t n = rsp_model_n_links(m);
  if (!n)
    return;
  /* first link at or after t0 (links are in time order); a link drawn ends at the caused run's
   * start, so look back nothing: a link whose time is before t0 is off the left edge */
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (rsp_model_link(m, mid)->time < vp->t0)
      lo = mid + 1;
    else
      hi = mid;
  }
  double plot = vp->width - style->label_width;
  double half = style->row_height / 2.0;
  cairo_save(cr);
  cairo_rectangle(cr, style->label_width, style->ruler_height, plot, vp->height - style->ruler_height);
  cairo_clip(cr);
  /* many links on screen: thinner and translucent, so the runs stay readable */
  uint32_t end = lo, span = n - lo;
  while (span > 0) {
    uint32_t half_span = span / 2;
    if (rsp_model_link(m, end + half_span)->time <= vp->t1) {
      end += half_span + 1;
      span -= half_span + 1;
    } else {
      span = half_span;
    }
  }
  bool dense = end - lo > (uint32_t)(plot / 8);
  double alpha = dense ? 0.35 : 1.0;
  cairo_set_line_width(cr, dense ? 1.0 : 1.5);
  /* dense: at most one link per pixel column; segments gathered, one stroke per colour */
  double last_col = -1;
  GArray *seg = v->link_segments;
  g_array_set_size(seg, 0);
  for (uint32_t i = lo; i < end;) {
    const rsp_link *l = rsp_model_link(m, i);
    double x0 = rsp_viewport_x(vp, style, l->time);
    if (dense && floor(x0) == last_col) {
      uint64_t next = rsp_viewport_time(vp, style, last_col + 1);
      uint32_t a = i, b = end;
      while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (rsp_model_link(m, mid)->time < next)
          a = mid + 1;
        else
          b = mid;
      }
      i = a > i ? a : i + 1;
      continue;
    }
    i++;
    if (l->from_run == RSP_NO_ID || l->to_run == RSP_NO_ID)
      continue;
    const rsp_run *from = rsp_model_run(m, l->from_run), *to = rsp_model_run(m, l->to_run);
    int yf = rsp_running_view_task_y(v, vp, style, from->task);
    int yt = rsp_running_view_task_y(v, vp, style, to->task);
    if (yf < 0 || yt < 0)
      continue;
    if ((yf + half < style->ruler_height && yt + half < style->ruler_height) || (yf > vp->height && yt > vp->height))
      continue; /* wholly above or below the window */
    last_col = floor(x0);
    link_segment q = { (float)x0, (float)(yf + half), (float)rsp_viewport_x(vp, style, to->start),
                       (float)(yt + half), l->kind == RSP_LINK_WAKEUP };
    g_array_append_val(seg, q);
  }
  for (int wake = 0; wake < 2; wake++) {
    bool any = false;
    for (guint k = 0; k < seg->len; k++) {
      const link_segment *q = &g_array_index(seg, link_segment, k);
      if (q->wakeup != wake)
        continue;
      cairo_move_to(cr, q->x0, q->y0);
      cairo_line_to(cr, q->x1, q->y1);
      any = true;
    }
    if (!any)
      continue;
    rsp_rgb lc = wake ? style->link_wakeup : style->link;
    cairo_set_source_rgba(cr, lc.r, lc.g, lc.b, alpha);
    cairo_stroke(cr);
  }
  cairo_restore(cr);
}

/* ---- Highlight sets (issue 7) ----------------------------------------------------------------- */
static const rsp_rgb highlight_color = { 0.85, 0.0, 0.65 };

rsp_rgb rsp_running_view_highlight_color(void)
{
  return highlight_color;
}

static int cmp_highlight(const void *a, const void *b)
{
  const rsp_highlight *x = a, *y = b;
  if (x->task != y->task)
    return x->task < y->task ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

void rsp_running_view_set_highlights(rsp_running_view *v, const rsp_highlight *items, uint32_t n)
{
  if (!v->highlights)
    v->highlights = g_array_new(false, false, sizeof(rsp_highlight));
  g_array_set_size(v->highlights, 0);
  for (uint32_t i = 0; i < n; i++)
    if (items[i].task < v->n_tasks)
      g_array_append_val(v->highlights, items[i]);
  /* by task, then start: a row's highlights are found by binary search when drawing */
  g_array_sort(v->highlights, cmp_highlight);
}

uint32_t rsp_running_view_n_highlights(const rsp_running_view *v)
{
  return v->highlights ? v->highlights->len : 0;
}

/* The index of TASK's first highlight (or where it would be). */
static guint first_highlight_of(const rsp_running_view *v, rsp_task_id task)
{
  guint lo = 0, hi = v->highlights->len;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (g_array_index(v->highlights, rsp_highlight, mid).task < task)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Each highlighted interval outlined in its row (at least 5 px wide, centred on it); outlines that
 * touch within a pixel merge into one, so a row costs at most its pixel columns, not its
 * highlights. Only the rows on screen are visited. */
static void draw_highlights(rsp_running_view *v, cairo_t *cr, const rsp_viewport *vp, const rsp_style *style)
{
  if (!v->highlights || !v->highlights->len)
    return;
  int rh = style->row_height;
  double left = style->label_width;
  cairo_save(cr);
  cairo_rectangle(cr, left, style->ruler_height, vp->width - left, vp->height - style->ruler_height);
  cairo_clip(cr);
  cairo_set_source_rgb(cr, highlight_color.r, highlight_color.g, highlight_color.b);
  cairo_set_line_width(cr, 2);
  int first = MAX(vp->scroll_y / rh, 0);
  for (uint32_t r = (uint32_t)first; r < v->rows->len; r++) {
    int y = row_y(vp, style, r);
    if (y >= vp->height)
      break;
    const row *rw = &g_array_index(v->rows, row, r);
    if (rw->process)
      continue;
    double cur0 = 0, cur1 = -1e9;
    for (uint32_t g = 0; g < rw->n_gen; g++) {
    rsp_task_id gt = v->proc_tasks[rw->gen0 + g];
    for (guint i = first_highlight_of(v, gt); i < v->highlights->len; i++) {
      const rsp_highlight *h = &g_array_index(v->highlights, rsp_highlight, i);
      if (h->task != gt || h->start > vp->t1)
        break;
      if (h->end < vp->t0)
        continue;
      double x0 = MAX(rsp_viewport_x(vp, style, h->start), left - 4);
      double x1 = MIN(rsp_viewport_x(vp, style, h->end), (double)vp->width + 4);
      if (x1 - x0 < 5) {
        double c = (x0 + x1) / 2;
        x0 = c - 2.5;
        x1 = c + 2.5;
      }
      if (x0 <= cur1 + 1) {
        cur1 = MAX(cur1, x1);
        continue;
      }
      if (cur1 > cur0)
        cairo_rectangle(cr, floor(cur0) + 1, y + 1, MAX(floor(cur1) - floor(cur0) - 2, 3), rh - 2);
      cur0 = x0;
      cur1 = x1;
    }
    }
    if (cur1 > cur0)
      cairo_rectangle(cr, floor(cur0) + 1, y + 1, MAX(floor(cur1) - floor(cur0) - 2, 3), rh - 2);
  }
  cairo_stroke(cr);
  cairo_restore(cr);
}

/* A bar at the left edge of the names of the tasks with highlights (drawn after the names). */
static void draw_highlight_marks(rsp_running_view *v, cairo_t *cr, const rsp_viewport *vp, const rsp_style *style)
{
  if (!v->highlights || !v->highlights->len)
    return;
  cairo_save(cr);
  cairo_rectangle(cr, 0, style->ruler_height, style->label_width, vp->height - style->ruler_height);
  cairo_clip(cr);
  cairo_set_source_rgb(cr, highlight_color.r, highlight_color.g, highlight_color.b);
  int first = MAX(vp->scroll_y / style->row_height, 0);
  for (uint32_t r = (uint32_t)first; r < v->rows->len; r++) {
    int y = row_y(vp, style, r);
    if (y >= vp->height)
      break;
    const row *rw = &g_array_index(v->rows, row, r);
    bool marked = false;
    for (uint32_t g = 0; g < rw->n_gen && !marked; g++) {
      rsp_task_id gt = v->proc_tasks[rw->gen0 + g];
      guint i = first_highlight_of(v, gt);
      marked = i < v->highlights->len && g_array_index(v->highlights, rsp_highlight, i).task == gt;
    }
    if (marked)
      cairo_rectangle(cr, 0, y, 5, style->row_height);
  }
  cairo_fill(cr);
  cairo_restore(cr);
}

void rsp_running_view_draw(rsp_running_view *v, cairo_t *cr, const rsp_viewport *vp, const rsp_style *style)
{
  cairo_save(cr);
  set_rgb(cr, style->background);
  cairo_paint(cr);
  cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, style->font_size);

  int rh = style->row_height;
  int first = vp->scroll_y / rh;
  if (first < 0)
    first = 0;
  double plot = vp->width - style->label_width;
  for (unsigned k = 0; k < G_N_ELEMENTS(v->batch); k++)
    g_array_set_size(v->batch[k], 0);
  g_array_set_size(v->labels, 0);
  cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
  for (uint32_t r = (uint32_t)first; r < v->rows->len; r++) {
    int y = row_y(vp, style, r);
    if (y >= vp->height)
      break;
    if (y + rh <= style->ruler_height)
      continue;
    const row *rw = &g_array_index(v->rows, row, r);
    if (rw->process) {
      set_rgb(cr, style->process_bg);
      cairo_rectangle(cr, 0, y, vp->width, rh);
      cairo_fill(cr);
      char buf[128];
      if (rw->fold) {
        /* a triangle pointing right (folded) or down, then how many */
        double cx = 8, cy = y + rh / 2.0;
        set_rgb(cr, style->process_text);
        if (v->others_folded) {
          cairo_move_to(cr, cx - 3, cy - 5), cairo_line_to(cr, cx + 4, cy), cairo_line_to(cr, cx - 3, cy + 5);
        } else {
          cairo_move_to(cr, cx - 5, cy - 3), cairo_line_to(cr, cx + 5, cy - 3), cairo_line_to(cr, cx, cy + 4);
        }
        cairo_close_path(cr);
        cairo_fill(cr);
        snprintf(buf, sizeof buf, v->others_folded ? "other processes (%u): click to show"
                                                   : "other processes (%u): click to fold", v->n_others);
        cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
        cairo_move_to(cr, 18, y + rsp_text_baseline(cr, rh));
        cairo_show_text(cr, buf);
        cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
        continue;
      }
      const process *pr = &v->procs[rw->proc];
      snprintf(buf, sizeof buf, "%s [%d]", pr->name ? pr->name : "?", rw->pid);
      set_rgb(cr, style->process_text);
      cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
      cairo_move_to(cr, 3, y + rsp_text_baseline(cr, rh));
      cairo_show_text(cr, buf);
      cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
      continue;
    }
    if (r % 2) {
      rect alt = { (float)style->label_width, (float)y, (float)plot, (float)rh };
      g_array_append_val(v->batch[KIND_ALT], alt);
    }
    for (uint32_t g = 0; g < rw->n_gen; g++) {
    rsp_task_id t = v->proc_tasks[rw->gen0 + g];
    draw_ctx c = { .cr = cr, .v = v, .style = style, .vp = vp, .task = t, .y = y + 1, .h = rh - 2,
                   .row_top = y, .pend_kind = -1 };
    if (v->show_sleeps) {
      track k = indexed_track(v, t, true);
      walk(&k, vp, style, emit_sleep, &c);
      flush(&c);
    }
    c.y = y + 2;
    c.h = rh - 4;
    track k = indexed_track(v, t, false);
    walk(&k, vp, style, emit_run, &c);
    flush(&c);
    /* disk requests and network operations in flight: a strip along the row's bottom */
    c.y = y + rh - 3;
    c.h = 2;
    k = own_track(v->disk, v->disk_off, t);
    walk(&k, vp, style, emit_disk, &c);
    flush(&c);
    k = own_track(v->net, v->net_off, t);
    walk(&k, vp, style, emit_net, &c);
    flush(&c);
    }
  }
  /* one fill per colour: alternate rows, sleeps, I/O sleeps, matches, then labels, then runs */
  static const int order[] = { KIND_ALT, KIND_SLEEP, KIND_IO, KIND_MATCH, KIND_RUN, KIND_DISK, KIND_NET, KIND_CHAIN };
  for (unsigned k = 0; k < G_N_ELEMENTS(order); k++) {
    GArray *b = v->batch[order[k]];
    if (order[k] == KIND_RUN && v->labels->len) {
      cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
      set_rgb(cr, style->text);
      for (guint i = 0; i < v->labels->len; i++) {
        const label *l = &g_array_index(v->labels, label, i);
        cairo_save(cr);
        cairo_rectangle(cr, l->x0 + 1, l->y, l->x1 - l->x0 - 2, l->h);
        cairo_clip(cr);
        cairo_move_to(cr, (l->x0 > style->label_width ? l->x0 : style->label_width) + 2, l->y + rsp_text_baseline(cr, l->h));
        cairo_show_text(cr, l->text);
        cairo_restore(cr);
      }
      cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    }
    if (!b->len)
      continue;
    rsp_rgb col = order[k] == KIND_RUN     ? style->run
                  : order[k] == KIND_DISK  ? style->disk
                  : order[k] == KIND_NET   ? style->net
                  : order[k] == KIND_CHAIN ? style->selection
                  : order[k] == KIND_IO    ? style->io
                  : order[k] == KIND_MATCH ? style->match
                  : order[k] == KIND_ALT   ? style->row_alt
                                           : style->sleep;
    set_rgb(cr, col);
    for (guint i = 0; i < b->len; i++) {
      const rect *q = &g_array_index(b, rect, i);
      cairo_rectangle(cr, q->x, q->y, q->w, q->h);
    }
    cairo_fill(cr);
  }
  cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);

  if (v->show_links)
    draw_links(v, cr, vp, style);

  draw_highlights(v, cr, vp, style);

  /* the name column, over everything */
  cairo_save(cr);
  cairo_rectangle(cr, 0, style->ruler_height, style->label_width, vp->height - style->ruler_height);
  cairo_clip(cr);
  for (uint32_t r = (uint32_t)first; r < v->rows->len; r++) {
    int y = row_y(vp, style, r);
    if (y >= vp->height)
      break;
    const row *rw = &g_array_index(v->rows, row, r);
    if (rw->process)
      continue;
    const rsp_task *task = rsp_model_task(v->model, rw->task);
    rsp_rgb bg = v->task_match[rw->task] ? style->match
                 : v->task_focus[rw->task] ? style->selection
                                           : style->label_bg;
    set_rgb(cr, bg);
    cairo_rectangle(cr, 0, y, style->label_width, rh);
    cairo_fill(cr);
    char buf[96];
    snprintf(buf, sizeof buf, "%s %d", task->comm && *task->comm ? task->comm : "?", task->tid);
    set_rgb(cr, v->task_focus[rw->task] && !v->task_match[rw->task] ? style->background : style->text);
    cairo_move_to(cr, 12, y + rsp_text_baseline(cr, rh));
    cairo_show_text(cr, buf);
  }
  cairo_restore(cr);
  draw_highlight_marks(v, cr, vp, style);

  rsp_time_ruler_draw(cr, vp, style, rsp_model_time_first(v->model));
  cairo_restore(cr);
}

/* ---- Hit testing and descriptions ----------------------------------------------------------- */

void rsp_running_view_hit(const rsp_running_view *v, const rsp_viewport *vp, const rsp_style *style, double x,
                          double y, rsp_hit *out)
{
  *out = (rsp_hit){ .kind = RSP_HIT_NOTHING, .pid = -1, .task = RSP_NO_ID, .run = RSP_NO_ID,
                    .sleep = RSP_NO_ID };
  if (y < style->ruler_height)
    return;
  int r = (int)floor((y - style->ruler_height + vp->scroll_y) / style->row_height);
  if (r < 0 || (uint32_t)r >= v->rows->len)
    return;
  const row *rw = &g_array_index(v->rows, row, r);
  out->pid = rw->pid;
  if (rw->fold) {
    out->kind = RSP_HIT_FOLD;
    return;
  }
  if (rw->process) {
    out->kind = RSP_HIT_PROCESS;
    return;
  }
  out->task = rw->task;
  out->kind = RSP_HIT_TASK;
  if (x < style->label_width)
    return;
  /* a pixel's worth of tolerance, so narrow runs can be pointed at */
  uint64_t t = rsp_viewport_time(vp, style, x);
  uint64_t slack = rsp_viewport_time(vp, style, x + 1) - t;
  for (uint32_t g = 0; g < rw->n_gen; g++) { /* the generation (exec) whose run is there */
    rsp_task_id task = v->proc_tasks[rw->gen0 + g];
    track k = indexed_track(v, task, false);
    uint32_t i = first_ending_after(&k, t > slack ? t - slack : 0);
    if (i < k.n && k.starts[i] <= t + slack) {
      out->kind = RSP_HIT_RUN;
      out->task = task;
      out->run = k.ids[i];
      return;
    }
  }
  for (uint32_t g = 0; g < rw->n_gen && v->show_sleeps; g++) {
    rsp_task_id task = v->proc_tasks[rw->gen0 + g];
    track k = indexed_track(v, task, true);
    uint32_t i = first_ending_after(&k, t);
    if (i < k.n && k.starts[i] <= t) {
      out->kind = RSP_HIT_SLEEP;
      out->task = task;
      out->sleep = k.ids[i];
      return;
    }
  }
}

static void append_stack(GString *s, const rsp_model *m, rsp_stack_id stack)
{
  rsp_stack_frames f = rsp_model_stack(m, stack);
  bool kernel = true;
  for (uint32_t i = 0; i < f.n; i++) {
    const rsp_model_frame *fi = rsp_frame_at(f, i);
    if (i == 0 || kernel != fi->kernel)
      g_string_append(s, fi->kernel ? "  -- kernel --\n" : "  -- user --\n");
    kernel = fi->kernel;
    g_string_append_printf(s, "  %s (%s)\n", fi->function ? fi->function : "?", fi->dso ? fi->dso : "?");
  }
}

static const char *task_name(const rsp_model *m, rsp_task_id t, char *buf, size_t size)
{
  const rsp_task *task = rsp_model_task(m, t);
  snprintf(buf, size, "%s %d/%d", task->comm && *task->comm ? task->comm : "?", task->pid, task->tid);
  return buf;
}

static const char *link_kind_name(unsigned kind)
{
  static const char *names[] = { "wakeup", "fork", "exec", "exit->wait", "interrupt", "disk", "network" };
  return kind < G_N_ELEMENTS(names) ? names[kind] : "?";
}

static const char *end_cause_name(unsigned c)
{
  return c == RSP_SLEEP_END_WOKEN ? "woken by a task" : rsp_sleep_end_key(c);
}

char *rsp_running_view_describe(const rsp_running_view *v, const rsp_hit *hit)
{
  const rsp_model *m = v->model;
  uint64_t origin = rsp_model_time_first(m);
  GString *s = g_string_new(NULL);
  char a[48], b[48], c[48], name[96];
  switch (hit->kind) {
  case RSP_HIT_NOTHING:
    break;
  case RSP_HIT_FOLD:
    g_string_append_printf(s, v->others_folded ? "%u other processes, folded: click to show them"
                                               : "%u other processes: click to fold them", v->n_others);
    break;
  case RSP_HIT_PROCESS:
    g_string_append_printf(s, "process %d", hit->pid);
    break;
  case RSP_HIT_TASK: {
    rsp_task_totals tot;
    rsp_model_task_totals(m, hit->task, &tot);
    g_string_append_printf(s, "%s\nruntime %s in %u runs\nsleep %s in %u sleeps (I/O wait %s)\n",
                           task_name(m, hit->task, name, sizeof name), rsp_format_duration(tot.runtime, a, sizeof a),
                           tot.runs, rsp_format_duration(tot.sleep, b, sizeof b), tot.sleeps,
                           rsp_format_duration(tot.sleep_d, c, sizeof c));
    break;
  }
  case RSP_HIT_RUN: {
    const rsp_run *r = rsp_model_run(m, hit->run);
    g_string_append_printf(s, "run of %s\nat %s, for %s on cpu %d, %u samples%s\n",
                           task_name(m, r->task, name, sizeof name),
                           rsp_format_duration(r->start - origin, a, sizeof a),
                           rsp_format_duration(r->end - r->start, b, sizeof b), r->cpu, r->n_samples,
                           r->flags & RSP_RUN_START_INFERRED ? " (start inferred)" : "");
    uint32_t n = 0;
    rsp_link_id first = rsp_model_run_links_in(m, hit->run, &n);
    for (uint32_t i = 0; i < n; i++) {
      const rsp_link *l = rsp_model_link(m, first + i);
      if (l->from_run != RSP_NO_ID)
        g_string_append_printf(s, "caused by (%s) %s\n", link_kind_name(l->kind),
                               task_name(m, rsp_model_run(m, l->from_run)->task, name, sizeof name));
      else
        g_string_append_printf(s, "caused by (%s) no known run\n", link_kind_name(l->kind));
    }
    if (r->n_samples) {
      const rsp_sample *smp = rsp_model_sample(m, r->first_sample);
      if (smp->stack != RSP_NO_ID) {
        g_string_append(s, "first sample's stack:\n");
        append_stack(s, m, smp->stack);
      }
    }
    break;
  }
  case RSP_HIT_SLEEP: {
    const rsp_sleep *sl = rsp_model_sleep(m, hit->sleep);
    g_string_append_printf(s, "sleep of %s\nat %s, for %s, state %c, ended: %s%s\n",
                           task_name(m, sl->task, name, sizeof name),
                           rsp_format_duration(sl->start - origin, a, sizeof a),
                           rsp_format_duration(sl->end - sl->start, b, sizeof b), sl->state ? sl->state : '?',
                           end_cause_name(sl->end_cause), sl->end_inferred ? " (inferred)" : "");
    if (sl->before_start)
      g_string_append(s, "begun before the recording: its start, state and stack are not known\n");
    if (sl->wake_time)
      g_string_append_printf(s, "scheduler delay %s\n", rsp_format_duration(sl->end - sl->wake_time, a, sizeof a));
    if (sl->wake_link != RSP_NO_ID) {
      /* who woke it: the run that fired its wakeup. A network or disk link starts at the run that
       * began the operation (for a reply, the sleeper's own send): beside it the WAKEUP link into
       * the same run names the sender (on loopback) that fired it (issue 17: "woken (network) by"
       * the sleeper itself, where the recording shows the server's sched_waking). */
      const rsp_link *l = rsp_model_link(m, sl->wake_link);
      rsp_task_id waker = RSP_NO_ID;
      if (l->kind == RSP_LINK_WAKEUP && l->from_run != RSP_NO_ID)
        waker = rsp_model_run(m, l->from_run)->task;
      if (waker == RSP_NO_ID && l->to_run != RSP_NO_ID) {
        uint32_t n = 0;
        rsp_link_id first = rsp_model_run_links_in(m, l->to_run, &n);
        for (uint32_t k = 0; k < n && waker == RSP_NO_ID; k++) {
          const rsp_link *w = rsp_model_link(m, first + k);
          if (w->kind == RSP_LINK_WAKEUP && w->from_run != RSP_NO_ID && (w->sleep == hit->sleep || w->sleep == RSP_NO_ID))
            waker = rsp_model_run(m, w->from_run)->task;
        }
      }
      if (waker == RSP_NO_ID && l->from_run != RSP_NO_ID && rsp_model_run(m, l->from_run)->task != sl->task)
        waker = rsp_model_run(m, l->from_run)->task;
      if (waker != RSP_NO_ID)
        g_string_append_printf(s, "woken (%s) by %s\n", link_kind_name(l->kind), task_name(m, waker, name, sizeof name));
      else
        g_string_append_printf(s, "woken (%s) from outside the recording's tasks (a peer, a device, an interrupt)\n",
                               link_kind_name(l->kind));
    }
    if (sl->disk_op != RSP_NO_ID) {
      const rsp_disk_op *d = rsp_model_disk_op(m, sl->disk_op);
      g_string_append_printf(s, "disk request %s, %u bytes at sector %" PRIu64 ", dev %u:%u",
                             d->rwbs, d->bytes, d->sector, d->dev >> 20, d->dev & 0xfffff);
      if (d->issue_time && d->insert_time && d->complete_time)
        g_string_append_printf(s, ": queued %s, served %s",
                               rsp_format_duration(d->issue_time - d->insert_time, a, sizeof a),
                               rsp_format_duration(d->complete_time - d->issue_time, b, sizeof b));
      g_string_append_c(s, '\n');
    }
    if (sl->net_op != RSP_NO_ID) {
      const rsp_net_op *no = rsp_model_net_op(m, sl->net_op);
      g_string_append_printf(s, "network operation %s port %u -> %u%s%s, %s\n",
                             rsp_net_op_protocol(no) ? rsp_net_op_protocol(no) : "?", no->sport, no->dport,
                             no->remote ? ", remote " : "", no->remote ? no->remote : "",
                             rsp_format_duration(no->end - no->start, a, sizeof a));
    }
    if (sl->stack != RSP_NO_ID) {
      g_string_append(s, "wait stack:\n");
      append_stack(s, m, sl->stack);
    }
    break;
  }
  }
  if (s->len && s->str[s->len - 1] == '\n')
    g_string_truncate(s, s->len - 1);
  return g_string_free(s, false);
}
