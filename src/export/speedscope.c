/* speedscope's file format (https://www.speedscope.app/file-format-schema.json).
 *
 * Evented profiles, one per thread on the control paths: each layer of a pseudo-stack is the thread's time under
 * the layers below it, so a worker's run under the server's read under the client's recv opens
 * "chain-client; __libc_recv; chain-server; read; chain-worker; compute_digest" in the worker's profile (the
 * consolidated flame view's stacks, kept in time order). A disk request or network operation a sleep waited on
 * stands on that sleep's innermost frame, in the sleeper's profile. Then sampled profiles, one per process on the
 * paths: its samples, rooted at the thread's comm (rsp-export --to folded --stacks on-cpu, one sample each). */
#include "export/export-private.h"

#include <inttypes.h>
#include <string.h>

typedef struct segment {
  uint64_t start, end;
  uint32_t first, n; /* its frames (outermost first) in the writer's frame_refs */
} segment;

typedef struct writer {
  const rsp_paths *paths;
  const rsp_export_window *window; /* NULL: the whole recording */
  const rsp_model *m;
  GHashTable *frame_index; /* "name\x1ffile" -> frame number + 1 */
  GHashTable *frame_seen;  /* (name, file) pointers -> frame number + 1: no allocation for a frame seen before */
  GPtrArray *frame_names, *frame_files; /* by frame number; file NULL for a process, disk or network */
  GArray *frame_refs;      /* uint32_t: the segments' stacks, each distinct one once */
  GHashTable *stacks;      /* stack_key: the stacks in frame_refs */
  GHashTable *segments;    /* owner task -> GArray of segment */
  bool more;               /* a profile was written: the next begins with a comma */
  struct frames_memo *memo; /* FRAMES_MEMO */
} writer;

enum { FRAMES_MEMO = 256 };
typedef struct frames_memo {
  const uint32_t *frames; /* the stack's frame ids */
  uint32_t n, cap;
  uint32_t *ids; /* outermost first */
} frames_memo;

/* A stack in frame_refs, as a key: its frames compared through the writer (the array moves as it grows). */
typedef struct stack_key {
  const writer *w;
  uint32_t first, n;
  guint hash;
} stack_key;

static guint stack_key_hash(gconstpointer p)
{
  return ((const stack_key *)p)->hash;
}

static gboolean stack_key_equal(gconstpointer a, gconstpointer b)
{
  const stack_key *x = a, *y = b;
  const uint32_t *refs = (const uint32_t *)(void *)x->w->frame_refs->data;
  return x->n == y->n && x->hash == y->hash && !memcmp(refs + x->first, refs + y->first, x->n * sizeof(uint32_t));
}

/* The stack of the last N frames of frame_refs: an equal one's place (and those frames dropped), else theirs. */
static uint32_t intern_stack(writer *w, uint32_t n)
{
  uint32_t first = w->frame_refs->len - n;
  const uint32_t *refs = (const uint32_t *)(void *)w->frame_refs->data;
  guint h = 2166136261u;
  for (uint32_t i = 0; i < n; i++)
    h = (h ^ refs[first + i]) * 16777619u;
  stack_key k = { w, first, n, h };
  stack_key *found = g_hash_table_lookup(w->stacks, &k);
  if (found) {
    g_array_set_size(w->frame_refs, first);
    return found->first;
  }
  stack_key *nk = g_new(stack_key, 1);
  *nk = k;
  g_hash_table_add(w->stacks, nk);
  return first;
}

static uint32_t frame_by_text(writer *w, const char *name, const char *file)
{
  char *key = g_strdup_printf("%s\x1f%s", name, file ? file : "");
  gpointer found = g_hash_table_lookup(w->frame_index, key);
  if (found) {
    g_free(key);
    return GPOINTER_TO_UINT(found) - 1;
  }
  uint32_t id = w->frame_names->len;
  g_ptr_array_add(w->frame_names, (gpointer)name);
  g_ptr_array_add(w->frame_files, (gpointer)file);
  g_hash_table_insert(w->frame_index, key, GUINT_TO_POINTER(id + 1));
  return id;
}

static uint32_t frame(writer *w, const char *name, const char *file)
{
  guint seen = rsp_export_pair_lookup(w->frame_seen, name, file);
  if (seen)
    return seen - 1;
  uint32_t id = frame_by_text(w, name, file);
  rsp_export_pair_insert(w->frame_seen, name, file, id);
  return id;
}

/* Adds [START, END) with the stack PREFIX (+ TOP when not RSP_NO_ID) to OWNER's profile. */
static void add_segment(writer *w, rsp_task_id owner, uint64_t start, uint64_t end, const GArray *prefix,
                        uint32_t top)
{
  if (end <= start)
    return;
  GArray *list = g_hash_table_lookup(w->segments, GUINT_TO_POINTER(owner));
  if (!list) {
    list = g_array_new(false, false, sizeof(segment));
    g_hash_table_insert(w->segments, GUINT_TO_POINTER(owner), list);
  }
  segment s = { start, end, 0, prefix->len };
  g_array_append_vals(w->frame_refs, prefix->data, prefix->len);
  if (top != RSP_NO_ID) {
    g_array_append_val(w->frame_refs, top);
    s.n++;
  }
  s.first = intern_stack(w, s.n);
  g_array_append_val(list, s);
}

typedef struct layer_walk {
  writer *w;
  const rsp_path_elem *e;
  rsp_elem_id id;
  GArray *stack; /* the frames below, then this layer's process and (while in a column) its functions */
  guint base;    /* the stack's length with the layer's process */
} layer_walk;

/* One column of a layer: its frames on the stack; a sleep's time split around what it waited on. */
static void column(uint64_t start, uint64_t end, rsp_stack_frames frames, void *data)
{
  uint32_t n = frames.n;
  layer_walk *lw = data;
  writer *w = lw->w;
  start = MAX(start, lw->e->start);
  end = MIN(end, lw->e->end);
  if (!rsp_export_clip(w->window, &start, &end))
    return; /* outside rsp-export --range */
  g_array_set_size(lw->stack, lw->base);
  /* the stack's frame numbers, remembered: the same stack again (thousands of times) is not looked up again */
  frames_memo *mo = &w->memo[((uintptr_t)frames.ids >> 4) % FRAMES_MEMO];
  if (mo->frames != frames.ids || mo->n != n || !frames.ids) {
    if (mo->cap < n) {
      mo->ids = g_renew(uint32_t, mo->ids, n);
      mo->cap = n;
    }
    mo->frames = frames.ids;
    mo->n = n;
    for (uint32_t i = n, k = 0; i-- > 0; k++)
      mo->ids[k] = frame(w, rsp_frame_at(frames, i)->function ? rsp_frame_at(frames, i)->function : "?", rsp_frame_at(frames, i)->dso);
  }
  g_array_append_vals(lw->stack, mo->ids, n);
  uint64_t cursor = start;
  uint32_t nk = 0;
  const rsp_elem_id *kids = rsp_paths_children(w->paths, lw->id, &nk);
  for (uint32_t k = 0; k < nk && lw->e->kind == RSP_ELEM_SLEEP; k++) {
    const rsp_path_elem *c = rsp_paths_elem(w->paths, kids[k]);
    if (c->kind != RSP_ELEM_DISK && c->kind != RSP_ELEM_NET)
      continue;
    uint64_t cs = MAX(c->start, cursor), ce = MIN(c->end, end);
    if (ce <= cs)
      continue;
    add_segment(w, lw->e->task, cursor, cs, lw->stack, RSP_NO_ID);
    add_segment(w, lw->e->task, cs, ce, lw->stack, frame(w, c->kind == RSP_ELEM_DISK ? "disk" : "network", NULL));
    cursor = ce;
  }
  add_segment(w, lw->e->task, cursor, end, lw->stack, RSP_NO_ID);
}

/* Frames of a stack at most: a relay thousands of processes deep would give each segment a stack that long
 * (quadratic in memory and output); a layer that would begin deeper is one "[deeper]" frame over its time. */
#define SPEEDSCOPE_MAX_DEPTH 2048

/* Element ID as a layer over the frames in STACK, then the layers it waited on over its innermost frame. */
static void add_layer(writer *w, rsp_elem_id id, GArray *stack)
{
  const rsp_path_elem *e = rsp_paths_elem(w->paths, id);
  if (e->kind == RSP_ELEM_DISK || e->kind == RSP_ELEM_NET)
    return; /* drawn inside their sleep (column()) */
  if (stack->len >= SPEEDSCOPE_MAX_DEPTH) {
    uint64_t start = e->start, end = e->end;
    if (rsp_export_clip(w->window, &start, &end))
      add_segment(w, e->task, start, end, stack, frame(w, "[deeper]", NULL));
    return; /* (and the recursion stays shallow) */
  }
  guint below = stack->len;
  uint32_t process = frame(w, rsp_model_task(w->m, e->task)->comm, NULL);
  g_array_append_val(stack, process);
  layer_walk lw = { w, e, id, stack, stack->len };
  unsigned kinds = 0;
  rsp_layer_columns(w->m, e, column, &lw, &kinds);
  uint32_t nk = 0;
  const rsp_elem_id *kids = rsp_paths_children(w->paths, id, &nk);
  for (uint32_t k = 0; k < nk; k++) {
    guint mine = stack->len;
    add_layer(w, kids[k], stack);
    g_array_set_size(stack, mine);
  }
  g_array_set_size(stack, below);
}

static int by_start(const void *a, const void *b)
{
  const segment *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

static void task_name(const rsp_model *m, rsp_task_id t, GString *s)
{
  const rsp_task *task = rsp_model_task(m, t);
  g_string_printf(s, "%s (pid %d, tid %d", *task->comm ? task->comm : "?", task->pid, task->tid);
  if (task->generation) /* an exec may keep the name: the generation tells them apart */
    g_string_append_printf(s, ", exec %u", task->generation);
  g_string_append_c(s, ')');
}

/* One event, after a comma unless FIRST; returns false (no longer the first). Formatted by hand: a big recording's
 * profiles are hundreds of millions of events, and printf's parsing of its format was most of their writing. */
static bool event(FILE *out, bool first, char kind, uint32_t frame, uint64_t at)
{
  char buf[96], num[RSP_U64_DIGITS];
  char *p = buf;
  if (!first)
    *p++ = ',';
  static const char head[] = "{\"type\":\"";
  memcpy(p, head, sizeof head - 1);
  p += sizeof head - 1;
  *p++ = kind;
  static const char mid[] = "\",\"frame\":";
  memcpy(p, mid, sizeof mid - 1);
  p += sizeof mid - 1;
  char *d = rsp_u64_digits(num + sizeof num, frame);
  memcpy(p, d, (size_t)(num + sizeof num - d));
  p += num + sizeof num - d;
  static const char at_key[] = ",\"at\":";
  memcpy(p, at_key, sizeof at_key - 1);
  p += sizeof at_key - 1;
  d = rsp_u64_digits(num + sizeof num, at);
  memcpy(p, d, (size_t)(num + sizeof num - d));
  p += num + sizeof num - d;
  *p++ = '}';
  fwrite(buf, 1, (size_t)(p - buf), out);
  return false;
}

/* OWNER's segments as opening and closing events: frames below the common part of two consecutive stacks stay
 * open, the rest close (innermost first) and the new ones open (outermost first); a gap closes everything. */
static void write_evented(writer *w, rsp_task_id owner, GArray *list, uint64_t t0, uint64_t t1, FILE *out)
{
  g_array_sort(list, by_start); /* stable enough: one task's layers do not overlap but by a clipped tolerance */
  GString *name = g_string_new(NULL);
  task_name(w->m, owner, name);
  fputs(w->more ? ",\n{\"type\":\"evented\",\"name\":" : "{\"type\":\"evented\",\"name\":", out);
  w->more = true;
  rsp_json_writer json = rsp_json_writer_file(out, 0);
  rsp_json_string(&json, name->str);
  for (guint i = 0; i < list->len; i++)
    t1 = MAX(t1, g_array_index(list, segment, i).end);
  fprintf(out, ",\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":%" PRIu64 ",\"events\":[", t1 - t0);
  const uint32_t *refs = (const uint32_t *)(void *)w->frame_refs->data;
  const uint32_t *open = NULL;
  uint32_t n_open = 0;
  uint64_t last = 0;
  bool first = true;
#define EVENT(kind, f, at) first = event(out, first, kind, f, (at) > t0 ? (at) - t0 : 0)
  for (guint i = 0; i < list->len; i++) {
    segment *s = &g_array_index(list, segment, i);
    uint64_t start = MAX(s->start, last);
    if (s->end <= start)
      continue;
    const uint32_t *st = refs + s->first;
    uint32_t keep = 0;
    if (start == last)
      while (keep < n_open && keep < s->n && open[keep] == st[keep])
        keep++;
    while (n_open > keep) {
      n_open--;
      EVENT('C', open[n_open], last);
    }
    for (uint32_t k = keep; k < s->n; k++)
      EVENT('O', st[k], start);
    open = st;
    n_open = s->n;
    last = s->end;
  }
  while (n_open > 0) {
    n_open--;
    EVENT('C', open[n_open], last);
  }
#undef EVENT
  fputs("]}", out);
  g_string_free(name, true);
}

/* The frame numbers of sample S's stack into IDS (emptied first): its thread's comm, then its functions outermost
 * first ("[no stack]" when it has none). Numbered as met: the shared frames are numbered in a first pass, before
 * write_sampled writes them. */
static void sample_frames(writer *w, rsp_sample_id s, GArray *ids)
{
  const rsp_model *m = w->m;
  const rsp_sample *sm = rsp_model_sample(m, s);
  g_array_set_size(ids, 0);
  uint32_t f = frame(w, rsp_model_task(m, rsp_model_run(m, sm->run)->task)->comm, NULL);
  g_array_append_val(ids, f);
  rsp_stack_frames fr = rsp_model_stack(m, sm->stack);
  if (!fr.n) {
    f = frame(w, "[no stack]", NULL);
    g_array_append_val(ids, f);
  }
  for (uint32_t i = fr.n; i-- > 0;) {
    const rsp_model_frame *fi = rsp_frame_at(fr, i);
    f = frame(w, fi->function ? fi->function : "?", fi->dso);
    g_array_append_val(ids, f);
  }
}

/* Process PID's samples (SAMPLES: their ids, in the model's order), each its thread's comm then its stack
 * outermost first. */
static void write_sampled(writer *w, int32_t pid, const GArray *samples_of_pid, FILE *out)
{
  const rsp_model *m = w->m;
  GString *samples = g_string_new(NULL), *weights = g_string_new(NULL);
  const char *comm = NULL;
  uint64_t n = 0;
  GArray *ids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  for (guint k = 0; k < samples_of_pid->len; k++) {
    rsp_sample_id sid = g_array_index(samples_of_pid, rsp_sample_id, k);
    const rsp_task *t = rsp_model_task(m, rsp_model_run(m, rsp_model_sample(m, sid)->run)->task);
    if (!comm || t->pid == t->tid)
      comm = t->comm;
    sample_frames(w, sid, ids);
    for (guint i = 0; i < ids->len; i++)
      g_string_append_printf(samples, "%s%u", i ? "," : n ? ",[" : "[", g_array_index(ids, uint32_t, i));
    g_string_append_c(samples, ']');
    g_string_append(weights, n ? ",1" : "1");
    n++;
  }
  if (n) {
    GString *name = g_string_new(NULL);
    g_string_printf(name, "%s (pid %d): samples", comm && *comm ? comm : "?", pid);
    fputs(w->more ? ",\n{\"type\":\"sampled\",\"name\":" : "{\"type\":\"sampled\",\"name\":", out);
    w->more = true;
    rsp_json_writer json = rsp_json_writer_file(out, 0);
    rsp_json_string(&json, name->str);
    fprintf(out, ",\"unit\":\"none\",\"startValue\":0,\"endValue\":%" PRIu64 ",\"samples\":[%s],\"weights\":[%s]}",
            n, samples->str, weights->str);
    g_string_free(name, true);
  }
  g_string_free(samples, true);
  g_string_free(weights, true);
  g_array_free(ids, true);
}

static int cmp_pid(const void *a, const void *b)
{
  int32_t x = GPOINTER_TO_INT(*(const gpointer *)a), y = GPOINTER_TO_INT(*(const gpointer *)b);
  return x < y ? -1 : x > y;
}

bool rsp_export_speedscope(const rsp_paths *paths, const rsp_export_window *window, FILE *out, GError **error)
{
  writer w = {
    .paths = paths,
    .window = window,
    .m = rsp_paths_model(paths),
    .frame_index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
    .frame_seen = rsp_export_pair_table_new(),
    .frame_names = g_ptr_array_new(),
    .frame_files = g_ptr_array_new(),
    .frame_refs = g_array_new(false, false, sizeof(uint32_t)),
    .stacks = g_hash_table_new_full(stack_key_hash, stack_key_equal, g_free, NULL),
    .memo = g_new0(frames_memo, FRAMES_MEMO),
    .segments = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_array_unref),
  };
  GArray *stack = g_array_new(false, false, sizeof(uint32_t));
  for (rsp_path_id p = 0; p < rsp_paths_n_paths(paths); p++) {
    const rsp_path *path = rsp_paths_path(paths, p);
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(paths, p, i);
      if (rsp_paths_elem(paths, id)->depth == 0)
        add_layer(&w, id, stack);
    }
  }
  g_array_free(stack, true);

  /* the samples by process, in one pass */
  GHashTable *pids = rsp_export_path_pids(paths);
  guint np = 0;
  gpointer *sorted = g_hash_table_get_keys_as_array(pids, &np);
  qsort(sorted, np, sizeof *sorted, cmp_pid);
  GHashTable *by_pid = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_array_unref);
  for (rsp_sample_id s = 0; s < rsp_model_n_samples(w.m); s++) {
    int32_t pid = rsp_model_task(w.m, rsp_model_run(w.m, rsp_model_sample(w.m, s)->run)->task)->pid;
    uint64_t at = rsp_model_sample(w.m, s)->time, until = at;
    if (!g_hash_table_contains(pids, GINT_TO_POINTER(pid)) || !rsp_export_clip(window, &at, &until))
      continue;
    GArray *list = g_hash_table_lookup(by_pid, GINT_TO_POINTER(pid));
    if (!list) {
      list = g_array_new(false, false, sizeof(rsp_sample_id));
      g_hash_table_insert(by_pid, GINT_TO_POINTER(pid), list);
    }
    g_array_append_val(list, s);
  }
  /* the shared frames come first in the file: the samples' too, numbered as the sampled profiles meet them */
  GArray *ids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  for (guint i = 0; i < np; i++) {
    GArray *list = g_hash_table_lookup(by_pid, sorted[i]);
    for (guint k = 0; list && k < list->len; k++)
      sample_frames(&w, g_array_index(list, rsp_sample_id, k), ids);
  }
  g_array_free(ids, true);

  rsp_json_writer json = rsp_json_writer_file(out, 0);
  fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n\"shared\":{\"frames\":[", out);
  for (guint i = 0; i < w.frame_names->len; i++) {
    fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
    rsp_json_string(&json, g_ptr_array_index(w.frame_names, i));
    const char *file = g_ptr_array_index(w.frame_files, i);
    if (file) {
      fputs(",\"file\":", out);
      rsp_json_string(&json, file);
    }
    putc('}', out);
  }
  fputs("]},\n\"profiles\":[", out);
  /* times from the recording's first event */
  uint64_t t0 = rsp_model_time_first(w.m), t1 = MAX(rsp_model_time_last(w.m), t0);
  for (uint32_t i = 0; i < rsp_paths_n_tasks(paths); i++) {
    rsp_task_id t = rsp_paths_task(paths, i);
    GArray *list = g_hash_table_lookup(w.segments, GUINT_TO_POINTER(t));
    if (list)
      write_evented(&w, t, list, t0, t1, out);
  }
  for (guint i = 0; i < np; i++) {
    GArray *list = g_hash_table_lookup(by_pid, sorted[i]);
    if (list)
      write_sampled(&w, GPOINTER_TO_INT(sorted[i]), list, out);
  }
  g_hash_table_destroy(by_pid);
  g_free(sorted);
  g_hash_table_destroy(pids);
  fputs("],\n\"name\":", out);
  const rsp_task *poi = NULL; /* its main thread's latest generation names it */
  for (uint32_t i = 0; i < rsp_paths_n_tasks(paths); i++) {
    const rsp_task *t = rsp_model_task(w.m, rsp_paths_task(paths, i));
    if (t->pid == rsp_paths_pid(paths) && t->tid == t->pid && (!poi || t->generation > poi->generation))
      poi = t;
  }
  GString *title = g_string_new(NULL);
  g_string_printf(title, "rsp: the control paths of %s (pid %d)", poi && *poi->comm ? poi->comm : "?",
                  rsp_paths_pid(paths));
  rsp_json_string(&json, title->str);
  fputs(",\"activeProfileIndex\":0,\"exporter\":\"rsp-export\"}\n", out);
  g_string_free(title, true);
  g_hash_table_destroy(w.frame_index);
  g_hash_table_destroy(w.frame_seen);
  g_ptr_array_free(w.frame_names, true);
  g_ptr_array_free(w.frame_files, true);
  g_array_free(w.frame_refs, true);
  g_hash_table_destroy(w.stacks);
  for (uint32_t k = 0; k < FRAMES_MEMO; k++)
    g_free(w.memo[k].ids);
  g_free(w.memo);
  g_hash_table_destroy(w.segments);
  return !rsp_export_write_failed(out, "speedscope", error);
}
