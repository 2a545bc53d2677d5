/* The Firefox Profiler's Gecko profile format, as `perf script report gecko` (linux tools/perf/scripts/python/
 * gecko.py) writes it: meta, then one thread per tid of the processes on the control paths, each with its own
 * stringTable, frameTable ("function (in binary)", user or kernel category), stackTable (prefix, frame) and
 * samples (stack, time in ms, responsiveness). What perf's script cannot write, rsp adds as interval markers on
 * the thread: each sleep (its state, why it ended, who woke it and where it waited), and the disk requests and
 * network operations whose completion ended its sleeps (or that it issued).
 *
 * A sample without a callchain stands on a "[no stack]" frame (perf's script drops it) so that a thread has all
 * of its samples. Times are in milliseconds from the recording's first event. */
#include "export/export-private.h"

#include <inttypes.h>
#include <string.h>

enum { CAT_USER, CAT_KERNEL, CAT_SLEEP, CAT_IO, CAT_NETWORK, CAT_OTHER };

typedef struct thread_lists {
  int32_t pid, tid;
  const char *comm;     /* of its latest generation */
  uint64_t comm_start;
  GArray *samples;      /* rsp_sample_id */
  GArray *sleeps;       /* rsp_sleep_id */
  GArray *disk_ops;     /* rsp_disk_op_id */
  GArray *net_ops;      /* rsp_net_op_id */
} thread_lists;

typedef struct thread_writer {
  GHashTable *strings; /* -> index + 1 */
  GPtrArray *string_list;
  GHashTable *frames;  /* location string index -> frame index + 1 */
  GHashTable *seen;    /* (function, dso) pointers -> frame index + 1: no allocation for one seen before */
  GString *frame_rows;
  uint32_t n_frames;
  GHashTable *stacks;  /* (prefix + 1) << 32 | frame -> stack index + 1 */
  GString *stack_rows;
  uint32_t n_stacks;
} thread_writer;

static uint32_t str(thread_writer *tw, const char *s)
{
  gpointer found = g_hash_table_lookup(tw->strings, s);
  if (found)
    return GPOINTER_TO_UINT(found) - 1;
  char *copy = g_strdup(s);
  g_ptr_array_add(tw->string_list, copy);
  g_hash_table_insert(tw->strings, copy, GUINT_TO_POINTER(tw->string_list->len));
  return tw->string_list->len - 1;
}

static uint32_t frame_by_text(thread_writer *tw, const char *function, const char *dso, bool kernel)
{
  char *location = dso ? g_strdup_printf("%s (in %s)", function, dso) : g_strdup(function);
  uint32_t s = str(tw, location);
  g_free(location);
  gpointer found = g_hash_table_lookup(tw->frames, GUINT_TO_POINTER(s));
  if (found)
    return GPOINTER_TO_UINT(found) - 1;
  /* location, relevantForJS, innerWindowID, implementation, optimizations, line, column, category, subcategory */
  g_string_append_printf(tw->frame_rows, "%s[%u,false,0,null,null,null,null,%d,0]", tw->n_frames ? "," : "", s,
                         kernel ? CAT_KERNEL : dso ? CAT_USER : CAT_OTHER);
  g_hash_table_insert(tw->frames, GUINT_TO_POINTER(s), GUINT_TO_POINTER(tw->n_frames + 1));
  return tw->n_frames++;
}

static uint32_t frame(thread_writer *tw, const char *function, const char *dso, bool kernel)
{
  guint seen = rsp_export_pair_lookup(tw->seen, function, dso);
  if (seen)
    return seen - 1;
  uint32_t id = frame_by_text(tw, function, dso, kernel);
  rsp_export_pair_insert(tw->seen, function, dso, id);
  return id;
}

static uint32_t stack(thread_writer *tw, int64_t prefix, uint32_t frame_index)
{
  uint64_t key = (uint64_t)(prefix + 1) << 32 | frame_index;
  gpointer found = g_hash_table_lookup(tw->stacks, &key);
  if (found)
    return GPOINTER_TO_UINT(found) - 1;
  if (prefix < 0)
    g_string_append_printf(tw->stack_rows, "%s[null,%u]", tw->n_stacks ? "," : "", frame_index);
  else
    g_string_append_printf(tw->stack_rows, "%s[%" PRId64 ",%u]", tw->n_stacks ? "," : "", prefix, frame_index);
  uint64_t *stored = g_new(uint64_t, 1);
  *stored = key;
  g_hash_table_insert(tw->stacks, stored, GUINT_TO_POINTER(tw->n_stacks + 1));
  return tw->n_stacks++;
}

/* Milliseconds from T0, to the nanosecond. */
static void put_ms(FILE *out, uint64_t t, uint64_t t0)
{
  uint64_t d = t > t0 ? t - t0 : 0;
  fprintf(out, "%" PRIu64 ".%06" PRIu64, d / 1000000, d % 1000000);
}

static int cmp_sample_time(const void *a, const void *b, void *data)
{
  const rsp_model *m = data;
  uint64_t x = rsp_model_sample(m, *(const rsp_sample_id *)a)->time;
  uint64_t y = rsp_model_sample(m, *(const rsp_sample_id *)b)->time;
  return x < y ? -1 : x > y;
}

/* Where a sleep waited: its innermost user function, else its innermost kernel one. */
static const char *wait_site(const rsp_model *m, rsp_stack_id s)
{
  rsp_stack_frames f = rsp_model_stack(m, s);
  for (uint32_t i = 0; i < f.n; i++)
    if (!rsp_frame_at(f, i)->kernel && rsp_frame_at(f, i)->function)
      return rsp_frame_at(f, i)->function;
  return f.n ? rsp_frame_at(f, 0)->function : NULL;
}

static void task_label(const rsp_model *m, rsp_task_id t, GString *s)
{
  const rsp_task *task = rsp_model_task(m, t);
  g_string_printf(s, "%s (%d/%d)", *task->comm ? task->comm : "?", task->pid, task->tid);
}

typedef struct marker_writer {
  FILE *out;
  uint64_t t0;
  bool first;
} marker_writer;

/* An interval marker [START, END) named NAME in CATEGORY; its data object DATA ('{...}' text). */
static void marker(marker_writer *mw, thread_writer *tw, const char *name, uint64_t start, uint64_t end,
                   int category, const char *data)
{
  fprintf(mw->out, "%s\n[%u,", mw->first ? "" : ",", str(tw, name));
  mw->first = false;
  put_ms(mw->out, start, mw->t0);
  putc(',', mw->out);
  put_ms(mw->out, end, mw->t0);
  fprintf(mw->out, ",1,%d,%s]", category, data);
}

static void json_field(GString *data, const char *key, const char *value)
{
  rsp_json_writer json = rsp_json_writer_string(data, 0);
  g_string_append_c(data, ',');
  rsp_json_key(&json, key);
  rsp_json_string(&json, value);
}

static void write_markers(const rsp_model *m, const thread_lists *tl, thread_writer *tw, uint64_t t0, FILE *out)
{
  marker_writer mw = { out, t0, true };
  GString *data = g_string_new(NULL), *label = g_string_new(NULL), *name = g_string_new(NULL);
  for (guint i = 0; i < tl->sleeps->len; i++) {
    const rsp_sleep *sl = rsp_model_sleep(m, g_array_index(tl->sleeps, rsp_sleep_id, i));
    g_string_assign(data, "{\"type\":\"rsp-sleep\"");
    char state[2] = { sl->state ? sl->state : '?', 0 };
    json_field(data, "state", state);
    json_field(data, "endCause", rsp_sleep_end_key(sl->end_cause)); /* "cause" is the profiler's backtrace key */
    const rsp_link *l = sl->wake_link != RSP_NO_ID ? rsp_model_link(m, sl->wake_link) : NULL;
    if (l && l->from_run != RSP_NO_ID) {
      task_label(m, rsp_model_run(m, l->from_run)->task, label);
      json_field(data, "waker", label->str);
    }
    const char *site = wait_site(m, sl->stack);
    if (site)
      json_field(data, "site", site);
    if (sl->end_inferred)
      g_string_append(data, ",\"inferred\":true");
    g_string_append_c(data, '}');
    if (sl->preempted)
      g_string_assign(name, "Preempted");
    else
      g_string_printf(name, "Sleep %c: %s", state[0], rsp_sleep_end_key(sl->end_cause));
    marker(&mw, tw, name->str, sl->start, sl->end,
           sl->end_cause == RSP_SLEEP_END_DISK || sl->state == 'D' ? CAT_IO
           : sl->end_cause == RSP_SLEEP_END_NETWORK                ? CAT_NETWORK
                                                                    : CAT_SLEEP,
           data->str);
  }
  for (guint i = 0; i < tl->disk_ops->len; i++) {
    const rsp_disk_op *d = rsp_model_disk_op(m, g_array_index(tl->disk_ops, rsp_disk_op_id, i));
    uint64_t start = d->insert_time ? d->insert_time : d->issue_time;
    uint64_t end = d->complete_time ? d->complete_time : start;
    g_string_printf(name, "Disk %s %u:%u", d->rwbs, d->dev >> 20, d->dev & 0xfffff);
    g_string_printf(data, "{\"type\":\"rsp-disk\",\"device\":\"%u:%u\",\"sector\":%" PRIu64 ",\"bytes\":%u", d->dev >> 20,
                    d->dev & 0xfffff, d->sector, d->bytes);
    json_field(data, "rwbs", d->rwbs);
    if (d->issue_time && d->insert_time && d->issue_time >= d->insert_time)
      g_string_append_printf(data, ",\"queue\":%.6f", (double)(d->issue_time - d->insert_time) / 1e6);
    if (d->complete_time && d->issue_time && d->complete_time >= d->issue_time)
      g_string_append_printf(data, ",\"service\":%.6f", (double)(d->complete_time - d->issue_time) / 1e6);
    g_string_append_c(data, '}');
    marker(&mw, tw, name->str, start, MAX(start, end), CAT_IO, data->str);
  }
  for (guint i = 0; i < tl->net_ops->len; i++) {
    const rsp_net_op *n = rsp_model_net_op(m, g_array_index(tl->net_ops, rsp_net_op_id, i));
    const char *proto = rsp_net_op_protocol(n) ? rsp_net_op_protocol(n) : "socket";
    g_string_printf(name, "Network %s", proto);
    if (n->remote)
      g_string_append_printf(name, " %s", n->remote);
    else if (n->dport)
      g_string_append_printf(name, " port %u", n->dport);
    g_string_assign(data, "{\"type\":\"rsp-network\"");
    json_field(data, "protocol", proto);
    if (n->remote)
      json_field(data, "remote", n->remote);
    g_string_append_printf(data, ",\"sport\":%u,\"dport\":%u,\"wakeups\":%u}", n->sport, n->dport, n->n_wakeups);
    marker(&mw, tw, name->str, n->start, MAX(n->start, n->end), CAT_NETWORK, data->str);
  }
  g_string_free(data, true);
  g_string_free(label, true);
  g_string_free(name, true);
}

static void write_thread(const rsp_model *m, thread_lists *tl, const char *process, uint64_t t0, bool first,
                         FILE *out)
{
  thread_writer tw = {
    .strings = g_hash_table_new(g_str_hash, g_str_equal),
    .string_list = g_ptr_array_new_with_free_func(g_free),
    .frames = g_hash_table_new(g_direct_hash, g_direct_equal),
    .seen = rsp_export_pair_table_new(),
    .frame_rows = g_string_new(NULL),
    .stacks = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL),
    .stack_rows = g_string_new(NULL),
  };
  rsp_json_writer json = rsp_json_writer_file(out, 0);
  fprintf(out, "%s\n{\"tid\":%d,\"pid\":%d,\"name\":", first ? "" : ",", tl->tid, tl->pid);
  rsp_json_string(&json, *tl->comm ? tl->comm : "?");
  fputs(",\"processName\":", out);
  rsp_json_string(&json, process);
  fputs(",\"registerTime\":0,\"unregisterTime\":null,\"processType\":\"default\",\n\"markers\":{\"schema\":{\"name\":0,"
        "\"startTime\":1,\"endTime\":2,\"phase\":3,\"category\":4,\"data\":5},\"data\":[",
        out);
  write_markers(m, tl, &tw, t0, out);
  fputs("]},\n\"samples\":{\"schema\":{\"stack\":0,\"time\":1,\"responsiveness\":2},\"data\":[", out);
  g_array_sort_with_data(tl->samples, cmp_sample_time, (gpointer)m);
  for (guint i = 0; i < tl->samples->len; i++) {
    const rsp_sample *sm = rsp_model_sample(m, g_array_index(tl->samples, rsp_sample_id, i));
    rsp_stack_frames f = rsp_model_stack(m, sm->stack);
    int64_t s = -1;
    for (uint32_t k = f.n; k-- > 0;) { /* root first */
      const rsp_model_frame *fk = rsp_frame_at(f, k);
      s = stack(&tw, s, frame(&tw, fk->function ? fk->function : "?", fk->dso ? fk->dso : "[unknown]", fk->kernel));
    }
    if (!f.n)
      s = stack(&tw, s, frame(&tw, "[no stack]", NULL, false));
    fprintf(out, "%s[%" PRId64 ",", i ? "," : "", s);
    put_ms(out, sm->time, t0);
    fputs(",0]", out);
  }
  fputs("]},\n\"frameTable\":{\"schema\":{\"location\":0,\"relevantForJS\":1,\"innerWindowID\":2,\"implementation\":3,"
        "\"optimizations\":4,\"line\":5,\"column\":6,\"category\":7,\"subcategory\":8},\"data\":[",
        out);
  fputs(tw.frame_rows->str, out);
  fputs("]},\n\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[", out);
  fputs(tw.stack_rows->str, out);
  fputs("]},\n\"stringTable\":", out);
  rsp_json_begin_array(&json);
  for (guint i = 0; i < tw.string_list->len; i++)
    rsp_json_string(&json, g_ptr_array_index(tw.string_list, i));
  rsp_json_end_array(&json);
  putc('}', out);
  g_hash_table_destroy(tw.strings);
  g_ptr_array_free(tw.string_list, true);
  g_hash_table_destroy(tw.frames);
  g_hash_table_destroy(tw.seen);
  g_string_free(tw.frame_rows, true);
  g_hash_table_destroy(tw.stacks);
  g_string_free(tw.stack_rows, true);
}

static void thread_lists_free(gpointer p)
{
  thread_lists *tl = p;
  g_array_free(tl->samples, true);
  g_array_free(tl->sleeps, true);
  g_array_free(tl->disk_ops, true);
  g_array_free(tl->net_ops, true);
  g_free(tl);
}

/* The POI's threads first, then by pid, the main thread first, then by tid. */
static int by_thread(const void *a, const void *b, void *data)
{
  const thread_lists *x = *(const thread_lists *const *)a, *y = *(const thread_lists *const *)b;
  int32_t poi_pid = GPOINTER_TO_INT(data);
  if (x->pid != y->pid) {
    if (x->pid == poi_pid || y->pid == poi_pid)
      return x->pid == poi_pid ? -1 : 1;
    return x->pid < y->pid ? -1 : 1;
  }
  if ((x->tid == x->pid) != (y->tid == y->pid))
    return x->tid == x->pid ? -1 : 1;
  return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static thread_lists *lists_of(GHashTable *threads, const rsp_model *m, rsp_task_id t, GHashTable *pids)
{
  if (t == RSP_NO_ID)
    return NULL;
  const rsp_task *task = rsp_model_task(m, t);
  if (!g_hash_table_contains(pids, GINT_TO_POINTER(task->pid)))
    return NULL;
  thread_lists *tl = g_hash_table_lookup(threads, GINT_TO_POINTER(task->tid));
  if (!tl) {
    tl = g_new0(thread_lists, 1);
    tl->pid = task->pid;
    tl->tid = task->tid;
    tl->comm = task->comm;
    tl->samples = g_array_new(false, false, sizeof(uint32_t));
    tl->sleeps = g_array_new(false, false, sizeof(uint32_t));
    tl->disk_ops = g_array_new(false, false, sizeof(uint32_t));
    tl->net_ops = g_array_new(false, false, sizeof(uint32_t));
    g_hash_table_insert(threads, GINT_TO_POINTER(task->tid), tl);
  }
  if (task->start >= tl->comm_start && *task->comm) { /* the latest generation names the thread */
    tl->comm = task->comm;
    tl->comm_start = task->start;
  }
  return tl;
}

bool rsp_export_firefox(const rsp_paths *paths, const rsp_export_window *window, FILE *out, GError **error)
{
  const rsp_model *m = rsp_paths_model(paths);
  GHashTable *pids = rsp_export_path_pids(paths);
  GHashTable *threads = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, thread_lists_free);
  thread_lists *tl;
  /* with rsp-export --range: what meets the window, each item whole (a timeline shows it across the edge) */
  for (rsp_sample_id s = 0; s < rsp_model_n_samples(m); s++) {
    const rsp_sample *sm = rsp_model_sample(m, s);
    uint64_t a = sm->time, b = sm->time;
    if (rsp_export_clip(window, &a, &b) && (tl = lists_of(threads, m, rsp_model_run(m, sm->run)->task, pids)))
      g_array_append_val(tl->samples, s);
  }
  for (rsp_sleep_id s = 0; s < rsp_model_n_sleeps(m); s++) {
    const rsp_sleep *sl = rsp_model_sleep(m, s);
    uint64_t a = sl->start, b = sl->end;
    if (rsp_export_clip(window, &a, &b) && (tl = lists_of(threads, m, sl->task, pids)))
      g_array_append_val(tl->sleeps, s);
  }
  /* a disk request or network operation on the thread whose sleep it ended, else on the one that issued it */
  for (rsp_disk_op_id d = 0; d < rsp_model_n_disk_ops(m); d++) {
    const rsp_disk_op *op = rsp_model_disk_op(m, d);
    rsp_task_id t = op->sleep != RSP_NO_ID ? rsp_model_sleep(m, op->sleep)->task : op->task;
    uint64_t a = op->insert_time ? op->insert_time : op->issue_time, b = op->complete_time;
    if (rsp_export_clip(window, &a, &b) && (tl = lists_of(threads, m, t, pids)))
      g_array_append_val(tl->disk_ops, d);
  }
  for (rsp_net_op_id n = 0; n < rsp_model_n_net_ops(m); n++) {
    const rsp_net_op *op = rsp_model_net_op(m, n);
    uint64_t a = op->start, b = op->end;
    if (rsp_export_clip(window, &a, &b) && (tl = lists_of(threads, m, op->task, pids)))
      g_array_append_val(tl->net_ops, n);
  }
  g_hash_table_destroy(pids);

  uint64_t t0 = rsp_model_time_first(m), t1 = rsp_model_time_last(m);
  /* the sampling interval in ms (the profiler's running time is samples x interval); 1 when not a clock */
  uint64_t period = rsp_export_sample_period_ns(m);
  fprintf(out, "{\"meta\":{\"interval\":%" PRIu64 ".%06" PRIu64 ",", period ? period / 1000000 : 1,
          period ? period % 1000000 : 0);
  fputs("\"processType\":0,\"product\":\"rsp-export\",\"stackwalk\":1,\"debug\":0,"
        "\"gcpoison\":0,\"asyncstack\":1,\"startTime\":0,\"shutdownTime\":",
        out);
  put_ms(out, MAX(t0, t1), t0);
  fputs(",\"version\":24,\"presymbolicated\":true,\n\"categories\":["
        "{\"name\":\"User\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]},"
        "{\"name\":\"Kernel\",\"color\":\"orange\",\"subcategories\":[\"Other\"]},"
        "{\"name\":\"Sleep\",\"color\":\"blue\",\"subcategories\":[\"Other\"]},"
        "{\"name\":\"I/O\",\"color\":\"green\",\"subcategories\":[\"Other\"]},"
        "{\"name\":\"Network\",\"color\":\"purple\",\"subcategories\":[\"Other\"]},"
        "{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]}],\n"
        "\"markerSchema\":["
        "{\"name\":\"rsp-sleep\",\"display\":[\"marker-chart\",\"marker-table\",\"timeline-overview\"],"
        "\"tooltipLabel\":\"{marker.name} at {marker.data.site}\",\"tableLabel\":\"{marker.data.site} "
        "{marker.data.waker}\",\"chartLabel\":\"{marker.data.site}\",\"data\":["
        "{\"key\":\"state\",\"label\":\"State\",\"format\":\"string\"},"
        "{\"key\":\"endCause\",\"label\":\"Ended by\",\"format\":\"string\"},"
        "{\"key\":\"waker\",\"label\":\"Woken by\",\"format\":\"string\"},"
        "{\"key\":\"site\",\"label\":\"Waited in\",\"format\":\"string\"}]},"
        "{\"name\":\"rsp-disk\",\"display\":[\"marker-chart\",\"marker-table\",\"timeline-fileio\"],"
        "\"tooltipLabel\":\"{marker.name}\",\"tableLabel\":\"{marker.data.device} {marker.data.rwbs}\","
        "\"chartLabel\":\"{marker.data.rwbs}\",\"data\":["
        "{\"key\":\"device\",\"label\":\"Device\",\"format\":\"string\"},"
        "{\"key\":\"rwbs\",\"label\":\"Operation\",\"format\":\"string\"},"
        "{\"key\":\"sector\",\"label\":\"Sector\",\"format\":\"integer\"},"
        "{\"key\":\"bytes\",\"label\":\"Size\",\"format\":\"bytes\"},"
        "{\"key\":\"queue\",\"label\":\"Queued\",\"format\":\"milliseconds\"},"
        "{\"key\":\"service\",\"label\":\"At the device\",\"format\":\"milliseconds\"}]},"
        "{\"name\":\"rsp-network\",\"display\":[\"marker-chart\",\"marker-table\",\"timeline-overview\"],"
        "\"tooltipLabel\":\"{marker.name}\",\"tableLabel\":\"{marker.data.protocol} {marker.data.remote}\","
        "\"chartLabel\":\"{marker.data.remote}\",\"data\":["
        "{\"key\":\"protocol\",\"label\":\"Protocol\",\"format\":\"string\"},"
        "{\"key\":\"remote\",\"label\":\"Peer\",\"format\":\"string\"},"
        "{\"key\":\"sport\",\"label\":\"Local port\",\"format\":\"integer\"},"
        "{\"key\":\"dport\",\"label\":\"Remote port\",\"format\":\"integer\"},"
        "{\"key\":\"wakeups\",\"label\":\"Wakeups\",\"format\":\"integer\"}]}]},\n"
        "\"libs\":[],\"pausedRanges\":[],\"processes\":[],\n\"threads\":[",
        out);
  GPtrArray *sorted = g_ptr_array_new();
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, threads);
  while (g_hash_table_iter_next(&it, NULL, &value))
    g_ptr_array_add(sorted, value);
  g_ptr_array_sort_with_data(sorted, by_thread, GINT_TO_POINTER(rsp_paths_pid(paths)));
  for (guint i = 0; i < sorted->len; i++) {
    thread_lists *t = g_ptr_array_index(sorted, i);
    /* the process's name: its main thread's */
    thread_lists *main_thread = g_hash_table_lookup(threads, GINT_TO_POINTER(t->pid));
    const char *process = main_thread && *main_thread->comm ? main_thread->comm : t->comm;
    write_thread(m, t, process, t0, i == 0, out);
  }
  fputs("]}\n", out);
  g_ptr_array_free(sorted, true);
  g_hash_table_destroy(threads);
  return !rsp_export_write_failed(out, "firefox", error);
}
