/* rsp's model and control paths as a Perfetto trace: a protobuf Trace message, that is a stream of
 * "field 1, length-delimited" TracePackets, encoded here by hand (no protobuf library: a varint and
 * length-delimited writer is all it takes). The field numbers are those of google/perfetto's
 * protos/perfetto/trace/ (trace.proto, trace_packet.proto, track_event/track_event.proto,
 * track_event/track_descriptor.proto, track_event/process_descriptor.proto, thread_descriptor.proto,
 * track_event/debug_annotation.proto, interned_data/interned_data.proto, profiling/profile_common.proto,
 * profiling/profile_packet.proto); tests/export/perfetto_subset.proto is the subset written here.
 *
 * What goes where:
 *   - a process track per pid, a thread track per (pid, tid) (the generations of an exec'd thread share it,
 *     as they share the tid): Running slices for runs, sleeps as "S <wait site>", "D <wait site>"... until the
 *     wakeup, then "Runnable" until the switch-in; preemptions as "Runnable (preempted)";
 *   - the runs again on a track per cpu (named by thread), the scheduler's view;
 *   - every link whose two runs are known (wakeup, fork, exec, exit->wait, interrupt, disk, network) as a
 *     flow from an instant on the waker's track at the link's time to the Running slice it caused;
 *   - disk requests on a track per device (queue and service nested in the request), network operations on
 *     a "network" track, each spread over as many lanes as overlap at once (slices on one track must nest);
 *   - the samples as PerfSamples with their call stacks interned (function names, mappings, frames,
 *     callstacks in InternedData), as traced_perf writes them;
 *   - the control paths under a "critical path" track, one child track per path (and per lane where a
 *     path's depth-0 elements overlap: the threads of the process of interest), each element a slice
 *     nested in the sleep it explains (a child clipped to its parent and after its earlier sibling: a
 *     child may overflow its sleep by the tolerance, and Perfetto slices must nest), down to the 512 levels
 *     trace_processor keeps.
 * Times are the recording's clock (CLOCK_MONOTONIC with perf -k mono); the packets carry no clock id, so
 * Perfetto takes them as its default trace clock: only differences matter in the viewer. */
#include "export/export-private.h"

#include <errno.h>
#include <stdarg.h>
#include <gio/gio.h>
#include <string.h>

/* ---- Field numbers (google/perfetto protos) ------------------------------------------------------- */
enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2 };
enum { TRACE_PACKET = 1 };                                          /* Trace */
enum {                                                              /* TracePacket */
  PKT_TIMESTAMP = 8, PKT_SEQUENCE_ID = 10, PKT_TRACK_EVENT = 11, PKT_INTERNED_DATA = 12, PKT_SEQUENCE_FLAGS = 13,
  PKT_TRACK_DESCRIPTOR = 60, PKT_PERF_SAMPLE = 66,
};
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 }; /* TracePacket.SequenceFlags */
enum { TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT_UUID = 5 }; /* TrackDescriptor */
enum { PD_PID = 1, PD_PROCESS_NAME = 6 };                           /* ProcessDescriptor */
enum { THD_PID = 1, THD_TID = 2, THD_THREAD_NAME = 5 };             /* ThreadDescriptor */
enum {                                                              /* TrackEvent */
  TE_DEBUG_ANNOTATIONS = 4, TE_TYPE = 9, TE_TRACK_UUID = 11, TE_CATEGORIES = 22, TE_NAME = 23,
  TE_FLOW_IDS = 47, TE_TERMINATING_FLOW_IDS = 48,
};
enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3 }; /* TrackEvent.Type */
enum { DA_UINT_VALUE = 3, DA_INT_VALUE = 4, DA_STRING_VALUE = 6, DA_NAME = 10 }; /* DebugAnnotation */
enum {                                                              /* InternedData */
  ID_FUNCTION_NAMES = 5, ID_FRAMES = 6, ID_CALLSTACKS = 7, ID_MAPPING_PATHS = 17, ID_MAPPINGS = 19,
};
enum { IS_IID = 1, IS_STR = 2 };                                    /* InternedString */
enum { MAP_IID = 1, MAP_PATH_STRING_IDS = 7 };                      /* Mapping */
enum { FR_IID = 1, FR_FUNCTION_NAME_ID = 2, FR_MAPPING_ID = 3, FR_REL_PC = 4, FR_KIND = 7 }; /* Frame */
enum { FRAME_KIND_NATIVE = 1, FRAME_KIND_KERNEL = 2 };              /* Frame.Kind */
enum { CS_IID = 1, CS_FRAME_IDS = 2 };                              /* Callstack */
enum { PS_CPU = 1, PS_PID = 2, PS_TID = 3, PS_CALLSTACK_IID = 4, PS_CPU_MODE = 5 }; /* PerfSample */
enum { MODE_KERNEL = 1, MODE_USER = 2 };                            /* Profiling.CpuMode */

/* ---- A protobuf writer ------------------------------------------------------------------------------ */
static void pb_varint(GByteArray *b, uint64_t v)
{
  uint8_t buf[10];
  unsigned n = 0;
  do {
    buf[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  g_byte_array_append(b, buf, n);
}

static void pb_tag(GByteArray *b, uint32_t field, unsigned wire)
{
  pb_varint(b, (uint64_t)field << 3 | wire);
}

static void pb_uint(GByteArray *b, uint32_t field, uint64_t v)
{
  pb_tag(b, field, WIRE_VARINT);
  pb_varint(b, v);
}

/* int32 and int64 fields: two's complement as a 64-bit varint (negative values take ten bytes). */
static void pb_int(GByteArray *b, uint32_t field, int64_t v)
{
  pb_uint(b, field, (uint64_t)v);
}

static void pb_fixed64(GByteArray *b, uint32_t field, uint64_t v)
{
  pb_tag(b, field, WIRE_I64);
  uint8_t buf[8];
  for (unsigned i = 0; i < 8; i++)
    buf[i] = (uint8_t)(v >> (8 * i));
  g_byte_array_append(b, buf, 8);
}

static void pb_str(GByteArray *b, uint32_t field, const char *s)
{
  size_t n = strlen(s);
  pb_tag(b, field, WIRE_LEN);
  pb_varint(b, n);
  g_byte_array_append(b, (const guint8 *)s, (guint)n);
}

/* A nested message: its length is not known until it ends, so four bytes are reserved and written as a
 * redundant varint (0x80 continuation bytes), as Perfetto's own protozero does: valid protobuf, up to 256 MB. */
static guint pb_open(GByteArray *b, uint32_t field)
{
  pb_tag(b, field, WIRE_LEN);
  guint at = b->len;
  static const uint8_t reserved[4] = { 0x80, 0x80, 0x80, 0x00 };
  g_byte_array_append(b, reserved, 4);
  return at;
}

static void pb_close(GByteArray *b, guint at)
{
  uint32_t n = b->len - at - 4;
  g_assert(n < (1u << 28));
  b->data[at] = (uint8_t)(0x80 | (n & 0x7f));
  b->data[at + 1] = (uint8_t)(0x80 | ((n >> 7) & 0x7f));
  b->data[at + 2] = (uint8_t)(0x80 | ((n >> 14) & 0x7f));
  b->data[at + 3] = (uint8_t)((n >> 21) & 0x7f);
}

/* ---- The trace being written ------------------------------------------------------------------------ */
/* Track uuids: a process by its pid, a thread by the first task of its (pid, tid), other tracks numbered. */
#define UUID_PROCESS(pid) ((1ull << 32) + (uint32_t)(pid))
#define UUID_THREAD(task) ((2ull << 32) + (task))
#define UUID_OTHER_BASE (3ull << 32)

typedef struct lanes {
  GArray *ends;   /* uint64_t: when each lane's last slice ends */
  GArray *uuids;  /* uint64_t: each lane's track */
  uint64_t parent;
  char *name;
} lanes;

typedef struct writer {
  const rsp_model *m;
  const rsp_paths *paths;          /* may be NULL */
  const rsp_export_window *window; /* rsp-export --range: bounds what is written; NULL: everything */
  FILE *out;
  GByteArray *pkt;
  bool first_packet;
  bool write_failed;
  uint64_t next_uuid;
  uint64_t *task_track;  /* per task: its thread track */
  int32_t *task_pid;     /* per task: the pid its track is under (the tid when the pid is unknown) */
  uint64_t *track_end;   /* per task: the end of the last slice on its track (indexed by the track's task) */
  uint64_t *stack_iid;   /* per model stack: its Callstack iid, 0 until interned */
  GHashTable *function_iids, *mapping_iids, *frame_iids; /* interned string / dso / "fn dso" -> iid */
  uint64_t next_iid;
  GString *text;         /* a name or label being written (copied into the packet at once) */
  char site[512];        /* a wait site's text (wait_site) */
} writer;

/* Whether [A, B] meets the window of rsp-export --range (always without one): what meets it is written whole. */
static bool in_window(const writer *w, uint64_t a, uint64_t b)
{
  return rsp_export_clip(w->window, &a, &b);
}

/* W's scratch text, formatted: valid until the next call. */
static const char *text_printf(writer *w, const char *format, ...) G_GNUC_PRINTF(2, 3);
static const char *text_printf(writer *w, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_string_vprintf(w->text, format, args);
  va_end(args);
  return w->text->str;
}

static void packet_begin(writer *w, uint64_t timestamp)
{
  g_byte_array_set_size(w->pkt, 0);
  if (timestamp != RSP_NO_EVENT)
    pb_uint(w->pkt, PKT_TIMESTAMP, timestamp);
  /* One sequence: what its interned data (the stacks) is scoped to. */
  pb_uint(w->pkt, PKT_SEQUENCE_ID, 1);
  if (w->first_packet)
    pb_uint(w->pkt, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
  w->first_packet = false;
}

static void packet_end(writer *w)
{
  /* Trace.packet: the tag, then the length as a plain varint */
  uint8_t head[11] = { (uint8_t)(TRACE_PACKET << 3 | WIRE_LEN) };
  size_t n = 1;
  for (uint64_t v = w->pkt->len; ; v >>= 7) {
    head[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    if (v <= 0x7f)
      break;
  }
  if (fwrite(head, 1, n, w->out) != n || fwrite(w->pkt->data, 1, w->pkt->len, w->out) != w->pkt->len)
    w->write_failed = true;
}

/* ---- Tracks -------------------------------------------------------------------------------------------- */
static void track_process(writer *w, int32_t pid, const char *name)
{
  packet_begin(w, RSP_NO_EVENT);
  guint td = pb_open(w->pkt, PKT_TRACK_DESCRIPTOR);
  pb_uint(w->pkt, TD_UUID, UUID_PROCESS(pid));
  guint pd = pb_open(w->pkt, TD_PROCESS);
  pb_int(w->pkt, PD_PID, pid);
  pb_str(w->pkt, PD_PROCESS_NAME, name);
  pb_close(w->pkt, pd);
  pb_close(w->pkt, td);
  packet_end(w);
}

static void track_thread(writer *w, uint64_t uuid, int32_t pid, int32_t tid, const char *name)
{
  packet_begin(w, RSP_NO_EVENT);
  guint td = pb_open(w->pkt, PKT_TRACK_DESCRIPTOR);
  pb_uint(w->pkt, TD_UUID, uuid);
  guint thd = pb_open(w->pkt, TD_THREAD);
  pb_int(w->pkt, THD_PID, pid);
  pb_int(w->pkt, THD_TID, tid);
  pb_str(w->pkt, THD_THREAD_NAME, name);
  pb_close(w->pkt, thd);
  pb_close(w->pkt, td);
  packet_end(w);
}

/* A named track (PARENT 0: at the top level); returns its uuid. */
static uint64_t track_named(writer *w, const char *name, uint64_t parent)
{
  uint64_t uuid = w->next_uuid++;
  packet_begin(w, RSP_NO_EVENT);
  guint td = pb_open(w->pkt, PKT_TRACK_DESCRIPTOR);
  pb_uint(w->pkt, TD_UUID, uuid);
  pb_str(w->pkt, TD_NAME, name);
  if (parent)
    pb_uint(w->pkt, TD_PARENT_UUID, parent);
  pb_close(w->pkt, td);
  packet_end(w);
  return uuid;
}

static lanes *lanes_new(uint64_t parent, const char *name)
{
  lanes *l = g_new0(lanes, 1);
  l->ends = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  l->uuids = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  l->parent = parent;
  l->name = g_strdup(name);
  return l;
}

static void lanes_free(lanes *l)
{
  g_array_free(l->ends, TRUE);
  g_array_free(l->uuids, TRUE);
  g_free(l->name);
  g_free(l);
}

/* The first lane of L free at START (a new one when none is), reserved until END. */
static uint64_t lane_take(writer *w, lanes *l, uint64_t start, uint64_t end)
{
  guint i = 0;
  while (i < l->ends->len && g_array_index(l->ends, uint64_t, i) > start)
    i++;
  if (i == l->ends->len) {
    char *name = i ? g_strdup_printf("%s #%u", l->name, i + 1) : g_strdup(l->name);
    uint64_t uuid = track_named(w, name, l->parent);
    g_free(name);
    g_array_append_val(l->ends, end);
    g_array_append_val(l->uuids, uuid);
  }
  g_array_index(l->ends, uint64_t, i) = end;
  return g_array_index(l->uuids, uint64_t, i);
}

/* ---- Track events ------------------------------------------------------------------------------------ */
/* Opens a TrackEvent packet; the caller adds annotations and flows, then event_end(). */
static guint event_begin(writer *w, uint64_t ts, uint64_t track, unsigned type, const char *category,
                         const char *name)
{
  packet_begin(w, ts);
  guint te = pb_open(w->pkt, PKT_TRACK_EVENT);
  pb_uint(w->pkt, TE_TYPE, type);
  pb_uint(w->pkt, TE_TRACK_UUID, track);
  if (category)
    pb_str(w->pkt, TE_CATEGORIES, category);
  if (name)
    pb_str(w->pkt, TE_NAME, name);
  return te;
}

static void event_end(writer *w, guint te)
{
  pb_close(w->pkt, te);
  packet_end(w);
}

static void annotate_str(writer *w, const char *key, const char *value)
{
  guint da = pb_open(w->pkt, TE_DEBUG_ANNOTATIONS);
  pb_str(w->pkt, DA_NAME, key);
  pb_str(w->pkt, DA_STRING_VALUE, value ? value : "");
  pb_close(w->pkt, da);
}

static void annotate_int(writer *w, const char *key, int64_t value)
{
  guint da = pb_open(w->pkt, TE_DEBUG_ANNOTATIONS);
  pb_str(w->pkt, DA_NAME, key);
  pb_int(w->pkt, DA_INT_VALUE, value);
  pb_close(w->pkt, da);
}

static void slice_end(writer *w, uint64_t ts, uint64_t track)
{
  event_end(w, event_begin(w, ts, track, TYPE_SLICE_END, NULL, NULL));
}

/* ---- Names ---------------------------------------------------------------------------------------------- */
static const char *link_kind_name(unsigned kind)
{
  static const char *const names[] = {
    [RSP_LINK_WAKEUP] = "wakeup", [RSP_LINK_FORK] = "fork", [RSP_LINK_EXEC] = "exec",
    [RSP_LINK_EXIT_WAIT] = "exit", [RSP_LINK_INTERRUPT] = "interrupt", [RSP_LINK_DISK] = "disk",
    [RSP_LINK_NETWORK] = "network",
  };
  return kind < G_N_ELEMENTS(names) && names[kind] ? names[kind] : "link";
}

/* The sleep's wait site (rsp_model_wait_site), valid until the next call. */
static const char *wait_site(writer *w, const rsp_sleep *s)
{
  const char *site = rsp_model_wait_site(w->m, s->stack, false, w->site, sizeof w->site);
  return site ? site : "[no stack]";
}

/* "comm tid" of task T at TIME, in W's scratch text. */
static const char *task_label(writer *w, rsp_task_id t, uint64_t time)
{
  return text_printf(w, "%s %d", rsp_model_task_comm_at(w->m, t, time), rsp_model_task(w->m, t)->tid);
}

/* A flow id for link L (both runs known). */
static uint64_t flow_id(rsp_link_id l)
{
  return (uint64_t)l + 1;
}

static bool link_has_flow(const rsp_link *l)
{
  return l->from_run != RSP_NO_ID && l->to_run != RSP_NO_ID;
}

/* ---- Processes and threads ------------------------------------------------------------------------------ */
static void write_tasks(writer *w)
{
  const rsp_model *m = w->m;
  uint32_t n = rsp_model_n_tasks(m);
  /* (pid, tid) -> the first task of that thread */
  GHashTable *threads = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  GHashTable *processes = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (rsp_task_id t = 0; t < n; t++) {
    const rsp_task *task = rsp_model_task(m, t);
    int32_t pid = task->pid >= 0 ? task->pid : task->tid; /* a tid seen only in a tracepoint: its own */
    gint64 key = (gint64)((uint64_t)(uint32_t)pid << 32 | (uint32_t)task->tid);
    gpointer first;
    if (g_hash_table_lookup_extended(threads, &key, NULL, &first)) {
      w->task_track[t] = UUID_THREAD(GPOINTER_TO_UINT(first));
    } else {
      gint64 *k = g_new(gint64, 1);
      *k = key;
      g_hash_table_insert(threads, k, GUINT_TO_POINTER(t));
      w->task_track[t] = UUID_THREAD(t);
    }
    w->task_pid[t] = pid;
  }
  /* Processes first, named by their main thread's last name (else any thread's). */
  for (int pass = 0; pass < 2; pass++) {
    for (rsp_task_id t = n; t-- > 0;) {
      const rsp_task *task = rsp_model_task(m, t);
      int32_t pid = w->task_pid[t];
      if ((pass == 0 && task->tid != pid) || g_hash_table_contains(processes, GINT_TO_POINTER(pid)))
        continue;
      g_hash_table_add(processes, GINT_TO_POINTER(pid));
      track_process(w, pid, task->comm);
    }
  }
  /* A thread track named by its last generation's name. */
  GHashTable *named = g_hash_table_new(g_direct_hash, g_direct_equal); /* tracks by their first task */
  for (rsp_task_id t = n; t-- > 0;) {
    uint64_t uuid = w->task_track[t];
    if (g_hash_table_add(named, GSIZE_TO_POINTER((gsize)(uuid - UUID_THREAD(0)))))
      track_thread(w, uuid, w->task_pid[t], rsp_model_task(m, t)->tid, rsp_model_task(m, t)->comm);
  }
  g_hash_table_destroy(named);
  g_hash_table_destroy(threads);
  g_hash_table_destroy(processes);
}

/* A slice of a thread's states, [START, END) clipped after the track's last one. Returns false when
 * nothing is left of it (then nothing was written). */
static bool state_begin(writer *w, rsp_task_id t, uint64_t *start, uint64_t end, const char *name, guint *te)
{
  uint64_t *cursor = &w->track_end[w->task_track[t] - UUID_THREAD(0)];
  if (*start < *cursor)
    *start = *cursor;
  if (end < *start)
    return false;
  *cursor = end;
  *te = event_begin(w, *start, w->task_track[t], TYPE_SLICE_BEGIN, "sched", name);
  return true;
}

static void write_run(writer *w, rsp_run_id r)
{
  const rsp_model *m = w->m;
  const rsp_run *run = rsp_model_run(m, r);
  uint64_t start = run->start;
  guint te;
  if (!state_begin(w, run->task, &start, run->end, "Running", &te))
    return;
  annotate_int(w, "cpu", run->cpu);
  annotate_int(w, "samples", run->n_samples);
  uint32_t n_in;
  rsp_link_id first_in = rsp_model_run_links_in(m, r, &n_in);
  for (uint32_t i = 0; i < n_in; i++)
    if (link_has_flow(rsp_model_link(m, first_in + i)))
      pb_fixed64(w->pkt, TE_TERMINATING_FLOW_IDS, flow_id(first_in + i));
  event_end(w, te);
  slice_end(w, run->end, w->task_track[run->task]);
}

/* Each link's cause, at the time it happened, on the causing run's track: the flows' sources. Written
 * before the runs they end: trace_processor sorts by time, then by place in the file, and ignores a flow's
 * end seen before its start (an inferred switch-in can start the woken run at the wakeup's very time). */
static void write_links(writer *w)
{
  const rsp_model *m = w->m;
  for (rsp_link_id i = 0; i < rsp_model_n_links(m); i++) {
    const rsp_link *l = rsp_model_link(m, i);
    if (!link_has_flow(l))
      continue;
    const rsp_run *from = rsp_model_run(m, l->from_run), *to = rsp_model_run(m, l->to_run);
    /* no later than the run it caused (a stray timestamp would put the end first: the flow lost) */
    uint64_t ts = MIN(l->time, to->start);
    guint te = event_begin(w, ts, w->task_track[from->task], TYPE_INSTANT, "link", link_kind_name(l->kind));
    annotate_str(w, "to", task_label(w, to->task, to->start));
    pb_fixed64(w->pkt, TE_FLOW_IDS, flow_id(i));
    event_end(w, te);
  }
}

static void write_sleep(writer *w, rsp_sleep_id id)
{
  const rsp_model *m = w->m;
  const rsp_sleep *s = rsp_model_sleep(m, id);
  if (s->end <= s->start)
    return;
  bool preempted = s->preempted || s->end_cause == RSP_SLEEP_END_PREEMPTED;
  uint64_t woken = !preempted && s->wake_time > s->start && s->wake_time < s->end ? s->wake_time : s->end;
  const char *name = preempted ? "Runnable (preempted)"
                               : text_printf(w, "%c %s", s->state ? s->state : '?', wait_site(w, s));
  uint64_t start = s->start;
  guint te;
  if (state_begin(w, s->task, &start, woken, name, &te)) {
    char state[2] = { s->state ? s->state : '?', 0 };
    annotate_str(w, "state", state);
    if (!preempted)
      annotate_str(w, "wait_site", wait_site(w, s));
    annotate_str(w, "end", rsp_sleep_end_key(s->end_cause));
    if (s->end_inferred)
      annotate_int(w, "end_inferred", 1);
    if (s->before_start)
      annotate_int(w, "before_start", 1);
    const rsp_link *l = s->wake_link == RSP_NO_ID ? NULL : rsp_model_link(m, s->wake_link);
    if (l && l->from_run != RSP_NO_ID) {
      annotate_str(w, "woken_by", task_label(w, rsp_model_run(m, l->from_run)->task, l->time));
    }
    event_end(w, te);
    slice_end(w, woken, w->task_track[s->task]);
  }
  start = woken;
  if (woken < s->end && state_begin(w, s->task, &start, s->end, "Runnable", &te)) {
    event_end(w, te);
    slice_end(w, s->end, w->task_track[s->task]);
  }
}

/* Each task's runs and sleeps in time order. */
static void write_states(writer *w)
{
  const rsp_model *m = w->m;
  for (rsp_task_id t = 0; t < rsp_model_n_tasks(m); t++) {
    const rsp_task *task = rsp_model_task(m, t);
    uint32_t i = 0, j = 0;
    while (i < task->n_runs || j < task->n_sleeps) {
      rsp_run_id r = i < task->n_runs ? rsp_model_task_run(m, t, i) : RSP_NO_ID;
      rsp_sleep_id s = j < task->n_sleeps ? rsp_model_task_sleep(m, t, j) : RSP_NO_ID;
      if (s == RSP_NO_ID || (r != RSP_NO_ID && rsp_model_run(m, r)->start <= rsp_model_sleep(m, s)->start)) {
        if (in_window(w, rsp_model_run(m, r)->start, rsp_model_run(m, r)->end))
          write_run(w, r);
        i++;
      } else {
        if (in_window(w, rsp_model_sleep(m, s)->start, rsp_model_sleep(m, s)->end))
          write_sleep(w, s);
        j++;
      }
    }
  }
}

/* Every run again on its cpu's track, as a scheduler view: runs are in start order, so each cpu's slices are
 * written in time order (one cpu's runs do not overlap; a stray overlap is clipped). */
typedef struct cpu_track {
  uint64_t track, end;
} cpu_track;

static void write_cpus(writer *w)
{
  const rsp_model *m = w->m;
  /* by cpu number in a hash table: a recording may name any cpu (0x7fffffff in a broken one) */
  GHashTable *cpus = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  uint64_t parent = 0;
  for (rsp_run_id r = 0; r < rsp_model_n_runs(m); r++) {
    const rsp_run *run = rsp_model_run(m, r);
    if (run->cpu < 0 || !in_window(w, run->start, run->end))
      continue;
    guint cpu = (guint)run->cpu;
    cpu_track *c = g_hash_table_lookup(cpus, GUINT_TO_POINTER(cpu + 1));
    if (!c) {
      if (!parent)
        parent = track_named(w, "CPUs", 0);
      char *name = g_strdup_printf("CPU %u", cpu);
      c = g_new0(cpu_track, 1);
      c->track = track_named(w, name, parent);
      g_free(name);
      g_hash_table_insert(cpus, GUINT_TO_POINTER(cpu + 1), c);
    }
    uint64_t start = MAX(run->start, c->end);
    if (run->end < start)
      continue;
    c->end = run->end;
    guint te = event_begin(w, start, c->track, TYPE_SLICE_BEGIN, "sched", task_label(w, run->task, run->start));
    annotate_int(w, "pid", rsp_model_task(m, run->task)->pid);
    event_end(w, te);
    slice_end(w, run->end, c->track);
  }
  g_hash_table_destroy(cpus);
}

/* ---- Samples --------------------------------------------------------------------------------------------- */
static uint64_t intern_string(writer *w, GHashTable *table, const char *s, uint32_t field)
{
  gpointer iid = g_hash_table_lookup(table, s);
  if (iid)
    return GPOINTER_TO_SIZE(iid);
  uint64_t id = w->next_iid++;
  g_hash_table_insert(table, (gpointer)s, GSIZE_TO_POINTER(id));
  guint is = pb_open(w->pkt, field);
  pb_uint(w->pkt, IS_IID, id);
  pb_str(w->pkt, IS_STR, s);
  pb_close(w->pkt, is);
  return id;
}

/* STACK's Callstack iid, its names, mappings and frames added to the packet's InternedData the first
 * time (*INTERNED: that message, opened then; the caller closes it). */
static uint64_t intern_stack(writer *w, rsp_stack_id stack, guint *interned)
{
  if (w->stack_iid[stack])
    return w->stack_iid[stack];
  if (!*interned)
    *interned = pb_open(w->pkt, PKT_INTERNED_DATA);
  rsp_stack_frames f = rsp_model_stack(w->m, stack);
  uint32_t n = f.n;
  uint64_t *frames = g_new(uint64_t, n ? n : 1);
  for (uint32_t i = 0; i < n; i++) {
    const rsp_model_frame *fi = rsp_frame_at(f, i);
    const char *function = fi->function ? fi->function : "[unknown]";
    const char *dso = fi->dso ? fi->dso : "[unknown]";
    /* model strings are interned: equal names are equal pointers */
    char *key = g_strdup_printf("%p %p", (const void *)function, (const void *)dso);
    uint64_t id = GPOINTER_TO_SIZE(g_hash_table_lookup(w->frame_iids, key));
    if (!id) {
      uint64_t fn = intern_string(w, w->function_iids, function, ID_FUNCTION_NAMES);
      uint64_t path = GPOINTER_TO_SIZE(g_hash_table_lookup(w->mapping_iids, dso));
      if (!path) {
        path = intern_string(w, w->mapping_iids, dso, ID_MAPPING_PATHS);
        guint mp = pb_open(w->pkt, ID_MAPPINGS);
        pb_uint(w->pkt, MAP_IID, path); /* a mapping per file, numbered as its path */
        pb_uint(w->pkt, MAP_PATH_STRING_IDS, path);
        pb_close(w->pkt, mp);
      }
      id = w->next_iid++;
      g_hash_table_insert(w->frame_iids, key, GSIZE_TO_POINTER(id));
      key = NULL;
      guint fr = pb_open(w->pkt, ID_FRAMES);
      pb_uint(w->pkt, FR_IID, id);
      pb_uint(w->pkt, FR_FUNCTION_NAME_ID, fn);
      pb_uint(w->pkt, FR_MAPPING_ID, path);
      pb_uint(w->pkt, FR_REL_PC, fi->addr); /* the address: rsp keeps no mapping start */
      pb_uint(w->pkt, FR_KIND, fi->kernel ? FRAME_KIND_KERNEL : FRAME_KIND_NATIVE);
      pb_close(w->pkt, fr);
    }
    g_free(key);
    frames[i] = id;
  }
  uint64_t id = w->next_iid++;
  guint cs = pb_open(w->pkt, ID_CALLSTACKS);
  pb_uint(w->pkt, CS_IID, id);
  for (uint32_t i = n; i-- > 0;) /* "bottom frame first": the outermost */
    pb_uint(w->pkt, CS_FRAME_IDS, frames[i]);
  pb_close(w->pkt, cs);
  g_free(frames);
  w->stack_iid[stack] = id;
  return id;
}

static void write_samples(writer *w)
{
  const rsp_model *m = w->m;
  for (rsp_sample_id i = 0; i < rsp_model_n_samples(m); i++) {
    const rsp_sample *s = rsp_model_sample(m, i);
    const rsp_run *run = rsp_model_run(m, s->run);
    if (!in_window(w, s->time, s->time))
      continue;
    packet_begin(w, s->time);
    pb_uint(w->pkt, PKT_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
    guint interned = 0;
    uint64_t callstack = s->stack == RSP_NO_ID ? 0 : intern_stack(w, s->stack, &interned);
    if (interned)
      pb_close(w->pkt, interned);
    guint ps = pb_open(w->pkt, PKT_PERF_SAMPLE);
    pb_uint(w->pkt, PS_CPU, (uint32_t)run->cpu);
    pb_uint(w->pkt, PS_PID, (uint32_t)w->task_pid[run->task]);
    pb_uint(w->pkt, PS_TID, (uint32_t)rsp_model_task(m, run->task)->tid);
    if (callstack) {
      const rsp_model_frame *top = rsp_model_stack_top(m, s->stack);
      pb_uint(w->pkt, PS_CALLSTACK_IID, callstack);
      if (top) /* where it was interrupted: the innermost frame */
        pb_uint(w->pkt, PS_CPU_MODE, top->kernel ? MODE_KERNEL : MODE_USER);
    }
    pb_close(w->pkt, ps);
    packet_end(w);
  }
}

/* ---- Disk and network ------------------------------------------------------------------------------------- */
static void write_disk(writer *w)
{
  const rsp_model *m = w->m;
  GHashTable *devices = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)lanes_free);
  uint64_t disks = 0;
  for (rsp_disk_op_id i = 0; i < rsp_model_n_disk_ops(m); i++) {
    const rsp_disk_op *d = rsp_model_disk_op(m, i);
    if ((d->flags & RSP_DISK_NO_COMPLETE) || d->complete_time <= d->insert_time ||
        !in_window(w, d->insert_time, d->complete_time))
      continue;
    if (!disks)
      disks = track_named(w, "Disk requests", 0);
    lanes *l = g_hash_table_lookup(devices, GUINT_TO_POINTER(d->dev));
    if (!l) {
      char *name = g_strdup_printf("disk %u:%u", d->dev >> 20, d->dev & 0xfffff);
      l = lanes_new(disks, name);
      g_free(name);
      g_hash_table_insert(devices, GUINT_TO_POINTER(d->dev), l);
    }
    uint64_t track = lane_take(w, l, d->insert_time, d->complete_time);
    guint te = event_begin(w, d->insert_time, track, TYPE_SLICE_BEGIN, "disk",
                           text_printf(w, "%s %u B", d->rwbs, d->bytes));
    annotate_int(w, "sector", (int64_t)d->sector);
    if (d->task != RSP_NO_ID) {
      annotate_str(w, "task", task_label(w, d->task, d->insert_time));
    }
    event_end(w, te);
    uint64_t issue = d->issue_time > d->insert_time && d->issue_time <= d->complete_time ? d->issue_time
                                                                                           : d->insert_time;
    if (issue > d->insert_time) {
      event_end(w, event_begin(w, d->insert_time, track, TYPE_SLICE_BEGIN, "disk", "queue"));
      slice_end(w, issue, track);
    }
    event_end(w, event_begin(w, issue, track, TYPE_SLICE_BEGIN, "disk", "service"));
    slice_end(w, d->complete_time, track);
    slice_end(w, d->complete_time, track);
  }
  g_hash_table_destroy(devices);
}

static void write_network(writer *w)
{
  const rsp_model *m = w->m;
  lanes *l = NULL;
  for (rsp_net_op_id i = 0; i < rsp_model_n_net_ops(m); i++) {
    const rsp_net_op *op = rsp_model_net_op(m, i);
    if (op->end <= op->start || !in_window(w, op->start, op->end))
      continue;
    if (!l)
      l = lanes_new(0, "Network operations");
    uint64_t track = lane_take(w, l, op->start, op->end);
    const char *proto = rsp_net_op_protocol(op) ? rsp_net_op_protocol(op) : "network";
    const char *name = op->remote ? text_printf(w, "%s %s", proto, op->remote)
                       : op->dport ? text_printf(w, "%s :%u -> :%u", proto, op->sport, op->dport)
                                   : proto;
    guint te = event_begin(w, op->start, track, TYPE_SLICE_BEGIN, "network", name);
    if (op->task != RSP_NO_ID) {
      annotate_str(w, "task", task_label(w, op->task, op->start));
    }
    annotate_int(w, "wakeups", op->n_wakeups);
    event_end(w, te);
    slice_end(w, op->end, track);
  }
  if (l)
    lanes_free(l);
}

/* ---- Control paths ---------------------------------------------------------------------------------------- */
/* "comm: running", "comm: wait SITE", "comm: preempted in SITE", "disk R 8:0", "network ADDR", in W's scratch text. */
static const char *elem_name(writer *w, const rsp_path_elem *e)
{
  const rsp_model *m = w->m;
  switch (e->kind) {
  case RSP_ELEM_RUN:
    return text_printf(w, "%s: running", rsp_model_task_comm_at(m, e->task, e->start));
  case RSP_ELEM_SLEEP: {
    const rsp_sleep *s = rsp_model_sleep(m, e->id);
    bool preempted = e->n_merged <= 1 && (s->preempted || s->end_cause == RSP_SLEEP_END_PREEMPTED);
    return text_printf(w, "%s: %s %s", rsp_model_task_comm_at(m, e->task, e->start), preempted ? "preempted in" : "wait",
                       wait_site(w, s));
  }
  case RSP_ELEM_DISK: {
    const rsp_disk_op *d = rsp_model_disk_op(m, e->id);
    return text_printf(w, "disk %s %u:%u", d->rwbs, d->dev >> 20, d->dev & 0xfffff);
  }
  default: {
    const rsp_net_op *op = rsp_model_net_op(m, e->id);
    return text_printf(w, "network%s%s", op->remote ? " " : "", op->remote ? op->remote : "");
  }
  }
}

static void path_slice_begin(writer *w, const rsp_paths *p, rsp_elem_id id, uint64_t start, uint64_t track)
{
  const rsp_path_elem *e = rsp_paths_elem(p, id);
  guint te = event_begin(w, start, track, TYPE_SLICE_BEGIN, "path", elem_name(w, e));
  const rsp_task *task = rsp_model_task(w->m, e->task);
  annotate_int(w, "pid", task->pid);
  annotate_int(w, "tid", task->tid);
  annotate_int(w, "depth", e->depth);
  if (e->kind == RSP_ELEM_SLEEP && e->n_merged > 1)
    annotate_int(w, "merged_polls", e->n_merged);
  event_end(w, te);
}

/* trace_processor drops slices nested deeper than this (SliceTracker::kMaxDepth): a relay's pseudo-stack
 * deeper than that is written down to it. */
#define PERFETTO_MAX_DEPTH 512

typedef struct nest {
  rsp_elem_id elem;
  uint64_t start, end;  /* as written: clipped to the parent */
  uint64_t cursor;      /* where the next child may begin */
  uint32_t next_child;
} nest;

/* ROOT (a depth-0 element) and everything below it on TRACK, each child clipped to its parent and after
 * its earlier siblings; iterative, as a relay's pseudo-stack can be very deep. */
static void write_path_tree(writer *w, const rsp_paths *p, rsp_elem_id root, uint64_t track, GArray *stack)
{
  const rsp_path_elem *r = rsp_paths_elem(p, root);
  uint64_t r0 = r->start, r1 = r->end;
  if (!rsp_export_clip(w->window, &r0, &r1))
    return; /* outside rsp-export --range; children are clipped to their parent, so to the window */
  nest top = { root, r0, r1, r0, 0 };
  g_array_set_size(stack, 0);
  g_array_append_val(stack, top);
  path_slice_begin(w, p, root, r0, track);
  while (stack->len) {
    nest *n = &g_array_index(stack, nest, stack->len - 1);
    uint32_t nk;
    const rsp_elem_id *kids = rsp_paths_children(p, n->elem, &nk);
    if (n->next_child >= nk || stack->len >= PERFETTO_MAX_DEPTH) {
      slice_end(w, n->end, track);
      g_array_set_size(stack, stack->len - 1);
      continue;
    }
    const rsp_path_elem *c = rsp_paths_elem(p, kids[n->next_child++]);
    uint64_t start = MAX(c->start, n->cursor), end = MIN(c->end, n->end);
    if (end <= start)
      continue;
    n->cursor = end;
    nest child = { kids[n->next_child - 1], start, end, start, 0 };
    path_slice_begin(w, p, child.elem, start, track);
    g_array_append_val(stack, child); /* N may move: not used after this */
  }
}

static void write_paths(writer *w, const rsp_paths *p)
{
  const rsp_model *m = w->m;
  int32_t pid = rsp_paths_pid(p);
  const char *comm = "?";
  for (uint32_t i = 0; i < rsp_paths_n_tasks(p); i++)
    if (rsp_model_task(m, rsp_paths_task(p, i))->pid == pid)
      comm = rsp_model_task(m, rsp_paths_task(p, i))->comm;
  char *name = g_strdup_printf("Critical path: %s %d", comm, pid);
  uint64_t top = track_named(w, name, 0);
  g_free(name);
  GArray *stack = g_array_new(FALSE, FALSE, sizeof(nest));
  for (rsp_path_id pa = 0; pa < rsp_paths_n_paths(p); pa++) {
    const rsp_path *path = rsp_paths_path(p, pa);
    char *pname = g_strdup_printf("path %u", pa);
    lanes *l = lanes_new(top, pname);
    g_free(pname);
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(p, pa, i);
      const rsp_path_elem *e = rsp_paths_elem(p, id);
      if (e->depth != 0)
        break; /* (depth, start) order */
      uint64_t e0 = e->start, e1 = e->end;
      if (e->end < e->start || !rsp_export_clip(w->window, &e0, &e1))
        continue;
      write_path_tree(w, p, id, lane_take(w, l, e0, e1), stack);
    }
    lanes_free(l);
  }
  g_array_free(stack, TRUE);
}

bool rsp_export_perfetto(const rsp_model *model, const rsp_paths *paths, const rsp_export_window *window, FILE *out,
                         GError **error)
{
  uint32_t n_tasks = rsp_model_n_tasks(model);
  writer w = {
    .m = model,
    .paths = paths,
    .window = window,
    .out = out,
    .pkt = g_byte_array_sized_new(4096),
    .first_packet = true,
    .next_uuid = UUID_OTHER_BASE,
    .task_track = g_new0(uint64_t, n_tasks ? n_tasks : 1),
    .task_pid = g_new0(int32_t, n_tasks ? n_tasks : 1),
    .track_end = g_new0(uint64_t, n_tasks ? n_tasks : 1),
    .stack_iid = g_new0(uint64_t, rsp_model_n_stacks(model) ? rsp_model_n_stacks(model) : 1),
    .function_iids = g_hash_table_new(g_direct_hash, g_direct_equal),
    .mapping_iids = g_hash_table_new(g_direct_hash, g_direct_equal),
    .frame_iids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
    .next_iid = 1,
    .text = g_string_sized_new(128),
  };
  write_tasks(&w);
  write_links(&w);
  write_states(&w);
  write_cpus(&w);
  write_disk(&w);
  write_network(&w);
  if (paths)
    write_paths(&w, paths);
  write_samples(&w);
  bool ok = !w.write_failed && fflush(out) == 0 && !ferror(out);
  if (!ok)
    g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno), "write error: %s", g_strerror(errno));
  g_byte_array_free(w.pkt, TRUE);
  g_free(w.task_track);
  g_free(w.task_pid);
  g_free(w.track_end);
  g_free(w.stack_iid);
  g_hash_table_destroy(w.function_iids);
  g_hash_table_destroy(w.mapping_iids);
  g_hash_table_destroy(w.frame_iids);
  g_string_free(w.text, TRUE);
  return ok;
}
