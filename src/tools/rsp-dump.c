/* rsp-dump: print every event of a perf.data, one a line, or count them. */
#include "reader/reader.h"
#include "symbols/symbols.h"
#include "export/export.h"

#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define MAX_FRAMES 1024

typedef enum { FORMAT_TEXT, FORMAT_JSON } dump_format;

typedef struct dump {
  rsp_reader *reader;
  rsp_symbolizer *symbolizer;
  GHashTable *comms; /* tid -> interned comm, following COMM and FORK as perf does */
  GStringChunk *strings;
  FILE *out;
  dump_format format;
  bool stacks;
  bool details;
  bool window; /* --window: the reader read a time window */
  rsp_frame frames[MAX_FRAMES];
} dump;

static const char *comm_of(dump *d, int32_t tid)
{
  if (tid == 0)
    return "swapper";
  const char *c = g_hash_table_lookup(d->comms, GINT_TO_POINTER(tid));
  return c ? c : ":-1";
}

static void follow_comm(dump *d, const rsp_event *ev)
{
  if (ev->type == PERF_RECORD_COMM) {
    g_hash_table_insert(d->comms, GINT_TO_POINTER(ev->u.comm.tid),
                        g_string_chunk_insert_const(d->strings, ev->u.comm.comm));
  } else if (ev->type == PERF_RECORD_FORK) {
    const char *pc = g_hash_table_lookup(d->comms, GINT_TO_POINTER(ev->u.fork.ptid));
    if (pc)
      g_hash_table_insert(d->comms, GINT_TO_POINTER(ev->u.fork.tid), (gpointer)pc);
  }
}

static const char *event_name(const rsp_event *ev, char *buf, size_t len)
{
  if (ev->type == PERF_RECORD_SAMPLE)
    return ev->evsel && ev->evsel->name ? ev->evsel->name : "unknown";
  const char *t = rsp_record_type_name(ev->type);
  g_snprintf(buf, len, "PERF_RECORD_%s", t ? t : "UNKNOWN");
  return buf;
}

/* F's value in EV, as JSON with JSON (an array's elements as in text), else as text. */
static void print_field_value(FILE *out, const rsp_event *ev, const rsp_field *f, rsp_json_writer *json)
{
  size_t len;
  switch (f->kind) {
  case RSP_FIELD_SIGNED:
    if (json)
      rsp_json_i64(json, rsp_event_field_s64(ev, f));
    else
      fprintf(out, "%" PRId64, rsp_event_field_s64(ev, f));
    break;
  case RSP_FIELD_UNSIGNED:
    if (json)
      rsp_json_u64(json, rsp_event_field_u64(ev, f));
    else
      fprintf(out, "%" PRIu64, rsp_event_field_u64(ev, f));
    break;
  case RSP_FIELD_STRING: {
    const char *s = rsp_event_field_bytes(ev, f, &len);
    if (json)
      rsp_json_string_len(json, s, len);
    else
      fwrite(s, 1, len, out);
    break;
  }
  case RSP_FIELD_ARRAY: {
    const uint8_t *b = (const uint8_t *)rsp_event_field_bytes(ev, f, &len);
    unsigned es = f->elem_size == 1 || f->elem_size == 2 || f->elem_size == 4 || f->elem_size == 8
                    ? f->elem_size : 1;
    if (json)
      rsp_json_begin_array(json);
    else
      putc('[', out);
    for (size_t i = 0; i + es <= len; i += es) {
      uint64_t v = 0;
      memcpy(&v, b + i, es);
      if (json)
        rsp_json_u64(json, v);
      else
        fprintf(out, i ? ",%" PRIu64 : "%" PRIu64, v);
    }
    if (json)
      rsp_json_end_array(json);
    else
      putc(']', out);
    break;
  }
  }
}

static unsigned resolve_stack(dump *d, const rsp_event *ev)
{
  if (!d->symbolizer)
    return 0;
  return rsp_symbolizer_callchain(d->symbolizer, ev, d->frames, MAX_FRAMES);
}

/* ",KEY:[V...]" */
static void json_u64_array(FILE *out, const char *key, const uint64_t *v, uint64_t n)
{
  rsp_json_writer json = rsp_json_writer_file(out, RSP_JSON_SHORT_ESCAPES);
  putc(',', out);
  rsp_json_key(&json, key);
  rsp_json_begin_array(&json);
  for (uint64_t i = 0; i < n; i++)
    rsp_json_u64(&json, v[i]);
  rsp_json_end_array(&json);
}

/* Every decoded sample_type value, for tests and for debugging a recording. */
static void print_details(FILE *out, const rsp_event *ev)
{
  fprintf(out, ",\"sample\":{\"type\":%u,\"misc\":%u,\"present\":%" PRIu64, ev->type, ev->misc,
          ev->present);
  fprintf(out, ",\"id\":%" PRIu64 ",\"stream_id\":%" PRIu64 ",\"ip\":%" PRIu64 ",\"addr\":%" PRIu64
               ",\"period\":%" PRIu64 ",\"weight\":%" PRIu64 ",\"data_src\":%" PRIu64
               ",\"transaction\":%" PRIu64 ",\"phys_addr\":%" PRIu64 ",\"cgroup\":%" PRIu64
               ",\"data_page_size\":%" PRIu64 ",\"code_page_size\":%" PRIu64,
          ev->id, ev->stream_id, ev->ip, ev->addr, ev->period, ev->weight, ev->data_src,
          ev->transaction, ev->phys_addr, ev->cgroup, ev->data_page_size, ev->code_page_size);
  json_u64_array(out, "callchain", ev->callchain, ev->callchain_nr);
  json_u64_array(out, "read", ev->read_values, ev->read_words);
  fprintf(out, ",\"raw_size\":%u,\"raw\":\"", ev->raw_size);
  for (uint32_t i = 0; i < ev->raw_size; i++)
    fprintf(out, "%02x", ev->raw[i]);
  fprintf(out, "\",\"branch_hw_idx\":%" PRIu64 ",\"branches\":[", ev->branch_hw_idx);
  for (uint32_t i = 0; i < ev->branch_nr; i++)
    fprintf(out, "%s[%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", i ? "," : "", ev->branches[i].from,
            ev->branches[i].to, ev->branches[i].flags);
  fprintf(out, "],\"regs_user_abi\":%" PRIu64, ev->regs_user_abi);
  json_u64_array(out, "regs_user", ev->regs_user, ev->regs_user_nr);
  fprintf(out, ",\"regs_intr_abi\":%" PRIu64, ev->regs_intr_abi);
  json_u64_array(out, "regs_intr", ev->regs_intr, ev->regs_intr_nr);
  fprintf(out, ",\"stack_user_size\":%" PRIu64 ",\"stack_user_dyn_size\":%" PRIu64
               ",\"stack_user_sum\":%" PRIu64 ",\"aux_size\":%" PRIu64 "}",
          ev->stack_user_size, ev->stack_user_dyn_size,
          (uint64_t)(ev->stack_user ? ev->stack_user[0] + ev->stack_user[ev->stack_user_size - 1] : 0),
          ev->aux_size);
}

static void print_json(dump *d, const rsp_event *ev)
{
  FILE *out = d->out;
  rsp_json_writer json = rsp_json_writer_file(out, RSP_JSON_SHORT_ESCAPES);
  char nb[64];
  fprintf(out, "{\"time\":%" PRIu64 ",\"cpu\":%d,\"pid\":%d,\"tid\":%d,\"offset\":%" PRIu64
               ",\"comm\":", ev->time, ev->cpu, ev->pid, ev->tid, ev->offset);
  const char *comm = comm_of(d, ev->tid);
  rsp_json_string(&json, comm);
  fputs(",\"event\":", out);
  const char *name = event_name(ev, nb, sizeof nb);
  rsp_json_string(&json, name);
  if (ev->source == RSP_SOURCE_FTRACE)
    fputs(",\"source\":\"ftrace\"", out);
  if (ev->type == PERF_RECORD_SAMPLE) {
    fprintf(out, ",\"ip\":%" PRIu64 ",\"period\":%" PRIu64, ev->ip, ev->period);
    if (ev->evsel && ev->evsel->n_fields) {
      fputs(",\"fields\":", out);
      rsp_json_begin_object(&json);
      for (unsigned i = 0; i < ev->evsel->n_fields; i++) {
        const rsp_field *f = &ev->evsel->fields[i];
        if (f->common)
          continue;
        rsp_json_key(&json, f->name);
        print_field_value(out, ev, f, &json);
      }
      rsp_json_end_object(&json);
    }
    if (d->stacks) {
      unsigned n = resolve_stack(d, ev);
      fputs(",\"stack\":", out);
      rsp_json_begin_array(&json);
      for (unsigned i = 0; i < n; i++) {
        const rsp_frame *fr = &d->frames[i];
        rsp_json_begin_object(&json);
        rsp_json_key(&json, "addr");
        rsp_json_u64(&json, fr->addr);
        rsp_json_key(&json, "sym");
        rsp_json_string(&json, fr->sym);
        rsp_json_key(&json, "dso");
        rsp_json_string(&json, fr->dso);
        if (fr->inlined) {
          rsp_json_key(&json, "inlined");
          rsp_json_bool(&json, true);
        }
        rsp_json_end_object(&json);
      }
      rsp_json_end_array(&json);
    }
  } else {
    fputs(",\"fields\":{", out);
    switch (ev->type) {
    case PERF_RECORD_COMM:
      fprintf(out, "\"pid\":%d,\"tid\":%d,\"exec\":%s,\"comm\":", ev->u.comm.pid, ev->u.comm.tid,
              ev->u.comm.exec ? "true" : "false");
      rsp_json_string(&json, ev->u.comm.comm);
      break;
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
      fprintf(out, "\"pid\":%d,\"ppid\":%d,\"tid\":%d,\"ptid\":%d", ev->u.fork.pid,
              ev->u.fork.ppid, ev->u.fork.tid, ev->u.fork.ptid);
      break;
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
      fprintf(out, "\"pid\":%d,\"tid\":%d,\"start\":%" PRIu64 ",\"len\":%" PRIu64
                   ",\"pgoff\":%" PRIu64 ",\"prot\":%u,\"flags\":%u,\"maj\":%u,\"min\":%u"
                   ",\"ino\":%" PRIu64 ",\"build_id\":\"",
              ev->u.mmap.pid, ev->u.mmap.tid, ev->u.mmap.start, ev->u.mmap.len, ev->u.mmap.pgoff,
              ev->u.mmap.prot, ev->u.mmap.flags, ev->u.mmap.maj, ev->u.mmap.min, ev->u.mmap.ino);
      for (unsigned i = 0; i < ev->u.mmap.build_id_size; i++)
        fprintf(out, "%02x", ev->u.mmap.build_id[i]);
      fputs("\",\"filename\":", out);
      rsp_json_string(&json, ev->u.mmap.filename);
      break;
    case PERF_RECORD_LOST:
      fprintf(out, "\"id\":%" PRIu64 ",\"lost\":%" PRIu64, ev->u.lost.id, ev->u.lost.lost);
      break;
    case PERF_RECORD_LOST_SAMPLES:
      fprintf(out, "\"lost\":%" PRIu64, ev->u.lost_samples.lost);
      break;
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
      fprintf(out, "\"out\":%s,\"preempt\":%s,\"next_prev_pid\":%d,\"next_prev_tid\":%d",
              ev->u.cswitch.out ? "true" : "false", ev->u.cswitch.preempt ? "true" : "false",
              ev->u.cswitch.next_prev_pid, ev->u.cswitch.next_prev_tid);
      break;
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE:
      fprintf(out, "\"time\":%" PRIu64 ",\"id\":%" PRIu64 ",\"stream_id\":%" PRIu64,
              ev->u.throttle.time, ev->u.throttle.id, ev->u.throttle.stream_id);
      break;
    case PERF_RECORD_KSYMBOL:
      fprintf(out, "\"addr\":%" PRIu64 ",\"len\":%u,\"name\":", ev->u.ksymbol.addr,
              ev->u.ksymbol.len);
      rsp_json_string(&json, ev->u.ksymbol.name);
      break;
    case PERF_RECORD_BPF_EVENT:
      fprintf(out, "\"type\":%u,\"flags\":%u,\"id\":%u", ev->u.bpf.type, ev->u.bpf.flags,
              ev->u.bpf.id);
      break;
    case PERF_RECORD_CGROUP:
      fprintf(out, "\"id\":%" PRIu64 ",\"path\":", ev->u.cgroup.id);
      rsp_json_string(&json, ev->u.cgroup.path);
      break;
    case PERF_RECORD_TEXT_POKE:
      fprintf(out, "\"addr\":%" PRIu64 ",\"old_len\":%u,\"new_len\":%u", ev->u.text_poke.addr,
              ev->u.text_poke.old_len, ev->u.text_poke.new_len);
      break;
    case PERF_RECORD_AUX:
      fprintf(out, "\"aux_offset\":%" PRIu64 ",\"aux_size\":%" PRIu64 ",\"flags\":%" PRIu64,
              ev->u.aux.offset, ev->u.aux.size, ev->u.aux.flags);
      break;
    case PERF_RECORD_ITRACE_START:
      fprintf(out, "\"pid\":%d,\"tid\":%d", ev->u.itrace_start.pid, ev->u.itrace_start.tid);
      break;
    default:
      break;
    }
    putc('}', out);
  }
  if (d->details)
    print_details(out, ev);
  fputs("}\n", out);
}

static void print_text(dump *d, const rsp_event *ev)
{
  FILE *out = d->out;
  char nb[64];
  fprintf(out, "%16s %7d [%03d] %" PRIu64 ".%09" PRIu64 ": %s:", comm_of(d, ev->tid), ev->tid,
          ev->cpu, ev->time / 1000000000u, ev->time % 1000000000u, event_name(ev, nb, sizeof nb));
  if (ev->type == PERF_RECORD_SAMPLE && ev->evsel) {
    for (unsigned i = 0; i < ev->evsel->n_fields; i++) {
      const rsp_field *f = &ev->evsel->fields[i];
      if (f->common)
        continue;
      fprintf(out, " %s=", f->name);
      print_field_value(out, ev, f, NULL);
    }
  } else if (ev->type == PERF_RECORD_COMM) {
    fprintf(out, " %s%s", ev->u.comm.comm, ev->u.comm.exec ? " (exec)" : "");
  } else if (ev->type == PERF_RECORD_FORK || ev->type == PERF_RECORD_EXIT) {
    fprintf(out, " %d/%d <- %d/%d", ev->u.fork.pid, ev->u.fork.tid, ev->u.fork.ppid,
            ev->u.fork.ptid);
  } else if (ev->type == PERF_RECORD_MMAP || ev->type == PERF_RECORD_MMAP2) {
    fprintf(out, " %d/%d [%#" PRIx64 "+%#" PRIx64 "] @%#" PRIx64 " %s", ev->u.mmap.pid,
            ev->u.mmap.tid, ev->u.mmap.start, ev->u.mmap.len, ev->u.mmap.pgoff,
            ev->u.mmap.filename);
  } else if (ev->type == PERF_RECORD_SWITCH_CPU_WIDE || ev->type == PERF_RECORD_SWITCH) {
    fprintf(out, " %s%s %d/%d", ev->u.cswitch.out ? "OUT" : "IN",
            ev->u.cswitch.preempt ? " preempt" : "", ev->u.cswitch.next_prev_pid,
            ev->u.cswitch.next_prev_tid);
  } else if (ev->type == PERF_RECORD_LOST) {
    fprintf(out, " lost %" PRIu64, ev->u.lost.lost);
  }
  putc('\n', out);
  if (d->stacks && ev->type == PERF_RECORD_SAMPLE) {
    unsigned n = resolve_stack(d, ev);
    for (unsigned i = 0; i < n; i++) {
      const rsp_frame *fr = &d->frames[i];
      if (fr->inlined) /* as perf script --inline prints it */
        fprintf(out, "\t%16" PRIx64 " %s (inlined)\n", fr->addr, fr->sym);
      else
        fprintf(out, "\t%16" PRIx64 " %s+%#" PRIx64 " (%s)\n", fr->addr,
                fr->sym ? fr->sym : "[unknown]", fr->sym_offset, fr->dso ? fr->dso : "[unknown]");
    }
    putc('\n', out);
  }
}

static void print_stats(dump *d, uint64_t frames, uint64_t resolved, double secs)
{
  const rsp_reader_stats *st = rsp_reader_stats_get(d->reader);
  FILE *out = d->out;
  GHashTable *names = g_hash_table_new(g_str_hash, g_str_equal);
  for (unsigned i = 0; i < rsp_reader_n_evsels(d->reader); i++) {
    const rsp_evsel *e = rsp_reader_evsel(d->reader, i);
    uint64_t prev = (uint64_t)(uintptr_t)g_hash_table_lookup(names, e->name);
    g_hash_table_insert(names, (gpointer)e->name, (gpointer)(uintptr_t)(prev + e->n_samples));
  }
  if (d->format == FORMAT_JSON) {
    rsp_json_writer json = rsp_json_writer_file(out, RSP_JSON_SHORT_ESCAPES);
    fputs("{\"records\":{", out);
    bool first = true;
    for (unsigned t = 0; t < RSP_RECORD_TYPE_MAX; t++) {
      if (!st->records[t])
        continue;
      const char *n = rsp_record_type_name(t);
      fprintf(out, "%s\"%s\":%" PRIu64, first ? "" : ",", n ? n : "UNKNOWN", st->records[t]);
      first = false;
    }
    if (st->unknown_records)
      fprintf(out, "%s\"UNKNOWN\":%" PRIu64, first ? "" : ",", st->unknown_records);
    fputs("},\"events\":{", out);
    first = true;
    for (unsigned i = 0; i < rsp_reader_n_evsels(d->reader); i++) {
      const rsp_evsel *e = rsp_reader_evsel(d->reader, i);
      gpointer v;
      if (!g_hash_table_lookup_extended(names, e->name, NULL, &v))
        continue; /* printed already */
      if ((uintptr_t)v) {
        putc(first ? ' ' : ',', out);
        rsp_json_string(&json, e->name);
        fprintf(out, ":%" PRIu64, (uint64_t)(uintptr_t)v);
        first = false;
      }
      g_hash_table_remove(names, e->name);
    }
    fprintf(out, "},\"lost\":%" PRIu64 ",\"lost_samples\":%" PRIu64 ",\"total_events\":%" PRIu64
                 ",\"unknown_id_samples\":%" PRIu64 ",\"out_of_order\":%" PRIu64,
            st->lost, st->lost_samples, st->events, st->unknown_id_samples, st->out_of_order);
    if (d->symbolizer) {
      const rsp_symbolizer_stats *ss = rsp_symbolizer_stats_get(d->symbolizer);
      fprintf(out, ",\"frames\":%" PRIu64 ",\"frames_resolved\":%" PRIu64
                   ",\"kernel_frames\":%" PRIu64 ",\"kernel_resolved\":%" PRIu64
                   ",\"user_frames\":%" PRIu64 ",\"user_resolved\":%" PRIu64,
              frames, resolved, ss->kernel_frames, ss->kernel_resolved, ss->user_frames,
              ss->user_resolved);
    }
    if (st->ftrace_merged || st->ftrace_note) {
      fprintf(out, ",\"ftrace\":{\"merged\":%s,\"read\":%" PRIu64 ",\"duplicates\":%" PRIu64
                   ",\"added\":%" PRIu64 ",\"outside\":%" PRIu64 ",\"missed\":%" PRIu64
                   ",\"note\":",
              st->ftrace_merged ? "true" : "false", st->ftrace_read, st->ftrace_duplicates,
              st->ftrace_added, st->ftrace_outside, st->ftrace_missed);
      rsp_json_string(&json, st->ftrace_note);
      putc('}', out);
    }
    if (d->window)
      fprintf(out, ",\"window\":{\"recording_start\":%" PRIu64 ",\"time_first_seen\":%" PRIu64
                   ",\"lo\":%" PRIu64 ",\"hi\":%" PRIu64 ",\"dropped\":%" PRIu64
                   ",\"stopped\":%s,\"index_used\":%s,\"index_written\":%s}",
              st->recording_start, st->time_first_seen, st->window_lo, st->window_hi, st->window_dropped,
              st->window_stopped ? "true" : "false", st->index_used ? "true" : "false",
              st->index_written ? "true" : "false");
    fprintf(out, ",\"seconds\":%.3f}\n", secs);
  } else {
    fprintf(out, "%-24s %12s\n", "record type", "count");
    for (unsigned t = 0; t < RSP_RECORD_TYPE_MAX; t++)
      if (st->records[t]) {
        const char *n = rsp_record_type_name(t);
        fprintf(out, "%-24s %12" PRIu64 "\n", n ? n : "UNKNOWN", st->records[t]);
      }
    if (st->unknown_records)
      fprintf(out, "%-24s %12" PRIu64 "\n", "unknown types", st->unknown_records);
    fprintf(out, "\n%-32s %12s\n", "event", "samples");
    for (unsigned i = 0; i < rsp_reader_n_evsels(d->reader); i++) {
      const rsp_evsel *e = rsp_reader_evsel(d->reader, i);
      fprintf(out, "%-32s %12" PRIu64 "%s\n", e->name, e->n_samples,
              e->sampled_tracepoint ? "  WARNING: tracepoint sampled (freq or period > 1): "
                                      "most of its events were dropped" : "");
    }
    fprintf(out, "\nevents %" PRIu64 ", lost %" PRIu64 ", lost samples %" PRIu64
                 ", unknown-id samples %" PRIu64 ", out of order %" PRIu64 "\n",
            st->events, st->lost, st->lost_samples, st->unknown_id_samples, st->out_of_order);
    if (st->ftrace_merged)
      fprintf(out, "ftrace side stream merged: %" PRIu64 " events read, %" PRIu64
                   " already in perf's stream, %" PRIu64 " added, %" PRIu64
                   " outside perf's recording, %" PRIu64 " lost by ftrace\n",
              st->ftrace_read, st->ftrace_duplicates, st->ftrace_added, st->ftrace_outside,
              st->ftrace_missed);
    else if (st->ftrace_note)
      fprintf(out, "ftrace side stream %s\n", st->ftrace_note);
    if (d->symbolizer)
      fprintf(out, "frames %" PRIu64 ", resolved %" PRIu64 " (%.1f%%)\n", frames, resolved,
              frames ? 100.0 * (double)resolved / (double)frames : 0.0);
    if (d->window)
      fprintf(out, "time window [%" PRIu64 ", %" PRIu64 "] (recording start %" PRIu64 "): %" PRIu64
                   " samples and switch records outside dropped%s%s%s\n",
              st->window_lo, st->window_hi, st->recording_start, st->window_dropped,
              st->window_stopped ? ", reading stopped after its end" : "",
              st->index_used ? ", FILE.rsp-index used" : "", st->index_written ? ", FILE.rsp-index written" : "");
    fprintf(out, "%.3f s, %.0f events/s\n", secs, secs > 0 ? (double)st->events / secs : 0.0);
  }
  g_hash_table_unref(names);
}

static void print_header(dump *d)
{
  const rsp_header_info *h = rsp_reader_header(d->reader);
  FILE *out = d->out;
  rsp_json_writer json = rsp_json_writer_file(out, RSP_JSON_SHORT_ESCAPES);
#define JS(key, val)                                                                           \
  do {                                                                                         \
    putc(',', out);                                                                            \
    rsp_json_key(&json, key);                                                                  \
    rsp_json_string(&json, val);                                                               \
  } while (0)
  fprintf(out, "{\"pipe_mode\":%s,\"data_offset\":%" PRIu64 ",\"data_size\":%" PRIu64,
          h->pipe_mode ? "true" : "false", h->data_offset, h->data_size);
  JS("hostname", h->hostname);
  JS("osrelease", h->osrelease);
  JS("perf_version", h->perf_version);
  JS("arch", h->arch);
  JS("cpudesc", h->cpudesc);
  fprintf(out, ",\"nr_cpus_online\":%u,\"nr_cpus_avail\":%u,\"total_mem_kb\":%" PRIu64,
          h->nr_cpus_online, h->nr_cpus_avail, h->total_mem_kb);
  fputs(",\"cmdline\":", out);
  rsp_json_begin_array(&json);
  for (unsigned i = 0; h->cmdline && h->cmdline[i]; i++)
    rsp_json_string(&json, h->cmdline[i]);
  rsp_json_end_array(&json);
  if (h->has_clockid)
    fprintf(out, ",\"clockid_res_ns\":%" PRIu64, h->clockid_res_ns);
  if (h->has_clock_data)
    fprintf(out, ",\"clockid\":%u,\"clock_tod_ns\":%" PRIu64 ",\"clock_ref_ns\":%" PRIu64,
            h->clock_data_clockid, h->clock_data_tod_ns, h->clock_data_clockid_ns);
  fprintf(out, ",\"compression\":\"%s\"", h->compressed ? (h->comp_type == 1 ? "zstd" : "unknown") : "none");
  fprintf(out, ",\"sample_time_first\":%" PRIu64 ",\"sample_time_last\":%" PRIu64
               ",\"tracing_data\":%s,\"build_ids\":%u,\"events\":[",
          h->sample_time_first, h->sample_time_last, h->has_tracing_data ? "true" : "false",
          h->n_build_ids);
  for (unsigned i = 0; i < rsp_reader_n_evsels(d->reader); i++) {
    const rsp_evsel *e = rsp_reader_evsel(d->reader, i);
    fprintf(out, "%s{\"name\":", i ? "," : "");
    rsp_json_string(&json, e->name);
    fprintf(out, ",\"type\":%u,\"config\":%" PRIu64 ",\"sample_type\":%" PRIu64
                 ",\"sample_period\":%" PRIu64 ",\"freq\":%s,\"sampled_tracepoint\":%s,\"fields\":%u",
            e->attr.type, (uint64_t)e->attr.config, (uint64_t)e->attr.sample_type,
            (uint64_t)e->attr.sample_period, e->attr.freq ? "true" : "false",
            e->sampled_tracepoint ? "true" : "false", e->n_fields);
    json_u64_array(out, "ids", e->ids, e->n_ids);
    putc('}', out);
  }
  putc(']', out);
  GKeyFile *meta = rsp_reader_metadata(d->reader);
  if (meta) { /* what rsp-record wrote beside the file, section by section */
    fputs(",\"metadata\":", out);
    rsp_json_begin_object(&json);
    gchar **groups = g_key_file_get_groups(meta, NULL);
    for (unsigned g = 0; groups[g]; g++) {
      rsp_json_key(&json, groups[g]);
      rsp_json_begin_object(&json);
      gchar **keys = g_key_file_get_keys(meta, groups[g], NULL, NULL);
      for (unsigned k = 0; keys && keys[k]; k++) {
        g_autofree gchar *v = g_key_file_get_value(meta, groups[g], keys[k], NULL);
        rsp_json_key(&json, keys[k]);
        rsp_json_string(&json, v ? v : "");
      }
      g_strfreev(keys);
      rsp_json_end_object(&json);
    }
    g_strfreev(groups);
    rsp_json_end_object(&json);
  }
  fputs("}\n", out);
#undef JS
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
  setlocale(LC_ALL, "");
  gboolean stacks = FALSE, stats = FALSE, symbolize = FALSE, unordered = FALSE, details = FALSE, no_index = FALSE;
  g_autofree char *window = NULL;
  gint64 window_margin = 0;
  gboolean header = FALSE, no_ftrace = FALSE, no_inline = FALSE;
  g_autofree char *format = NULL;
  g_autofree char *kallsyms = NULL;
  GOptionEntry entries[] = {
    {"stacks", 's', 0, G_OPTION_ARG_NONE, &stacks, "Print each sample's symbolized callchain", NULL},
    {"format", 'f', 0, G_OPTION_ARG_STRING, &format, "Output format: text (default), jsonl; json with --stats", "FMT"},
    {"stats", 0, 0, G_OPTION_ARG_NONE, &stats, "Count records and events instead of printing them", NULL},
    {"symbolize", 0, 0, G_OPTION_ARG_NONE, &symbolize, "With --stats: resolve every callchain frame", NULL},
    {"kallsyms", 0, 0, G_OPTION_ARG_FILENAME, &kallsyms, "Kernel symbols to use (default: FILE.kallsyms[.zst] beside FILE)", "PATH"},
    {"no-inline", 0, 0, G_OPTION_ARG_NONE, &no_inline, "No frames for inlined functions (from DWARF debug info)", NULL},
    {"unordered", 0, 0, G_OPTION_ARG_NONE, &unordered, "Print in file order, not time order", NULL},
    {"no-ftrace", 0, 0, G_OPTION_ARG_NONE, &no_ftrace, "Do not merge the ftrace side stream (FILE.ftrace/)", NULL},
    {"header", 0, 0, G_OPTION_ARG_NONE, &header, "Print the recording's header, attrs and features as JSON", NULL},
    {"details", 0, 0, G_OPTION_ARG_NONE, &details, "With --format=jsonl: every decoded sample value", NULL},
    {"window", 0, 0, G_OPTION_ARG_STRING, &window,
     "Read only the time window FROM:TO (perf clock ns; +FROM:TO counts from the recording's start): its samples "
     "and switch records, every other record", "FROM:TO"},
    {"window-margin-ns", 0, 0, G_OPTION_ARG_INT64, &window_margin,
     "With --window: also the samples and switch records this close outside it (default 0)", "NS"},
    {"no-index", 0, 0, G_OPTION_ARG_NONE, &no_index, "With --window: neither use nor write FILE.rsp-index", NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL}};
  GOptionContext *ctx = g_option_context_new("FILE - print the events of a perf.data");
  g_option_context_set_summary(ctx,
    "Decodes every record of a perf.data file (file or pipe mode, '-' for standard input) and\n"
    "prints one event per line in global time order: samples with their tracepoint fields,\n"
    "and perf's own records (COMM, FORK, EXIT, MMAP2, SWITCH_CPU_WIDE, LOST...).");
  g_option_context_add_main_entries(ctx, entries, NULL);
  GError *error = NULL;
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    fprintf(stderr, "rsp-dump: %s\n", error->message);
    g_error_free(error);
    g_option_context_free(ctx);
    return 2;
  }
  g_option_context_free(ctx);
  if (argc != 2) {
    fprintf(stderr, "rsp-dump: expected one FILE (see --help)\n");
    return 2;
  }
  dump d = {0};
  d.out = stdout;
  d.stacks = stacks;
  d.details = details;
  if (!format || strcmp(format, "text") == 0)
    d.format = FORMAT_TEXT;
  else if (strcmp(format, "jsonl") == 0 || strcmp(format, "json") == 0)
    d.format = FORMAT_JSON;
  else {
    fprintf(stderr, "rsp-dump: unknown format '%s' (text, jsonl, json)\n", format);
    return 2;
  }
  rsp_reader_options ro = {.unordered = unordered, .no_ftrace = no_ftrace, .no_index = no_index};
  if (window) {
    const char *w = window;
    ro.window_relative = *w == '+';
    w += ro.window_relative;
    char *end = NULL;
    ro.window_from = g_ascii_strtoull(w, &end, 10);
    if (end == w || *end != ':' || window_margin < 0 ||
        (ro.window_to = g_ascii_strtoull(end + 1, &end, 10), *end) || ro.window_to < ro.window_from) {
      fprintf(stderr, "rsp-dump: --window must be FROM:TO or +FROM:TO in ns with FROM <= TO, not '%s'\n", window);
      return 2;
    }
    ro.window = d.window = true;
    ro.window_margin_ns = (uint64_t)window_margin;
  }
  d.reader = rsp_reader_open(argv[1], &ro, &error);
  if (!d.reader) {
    fprintf(stderr, "rsp-dump: %s\n", error->message);
    g_error_free(error);
    return 1;
  }
  /* what was wrong but skipped (a malformed optional feature): said, not fatal */
  for (const char *const *w = rsp_reader_warnings(d.reader); *w; w++)
    fprintf(stderr, "rsp-dump: warning: %s\n", *w);
  if (header) {
    print_header(&d);
    rsp_reader_close(d.reader);
    return fflush(stdout) == 0 ? 0 : 1;
  }
  if (stacks || symbolize) {
    rsp_symbolizer_options so = {.kallsyms_path = kallsyms, .no_inline = no_inline};
    d.symbolizer = rsp_symbolizer_new(d.reader, &so, &error);
    if (!d.symbolizer) {
      fprintf(stderr, "rsp-dump: %s\n", error->message);
      g_error_free(error);
      rsp_reader_close(d.reader);
      return 1;
    }
  }
  d.comms = g_hash_table_new(g_direct_hash, g_direct_equal);
  d.strings = g_string_chunk_new(4096);
  static char obuf[1 << 16];
  setvbuf(stdout, obuf, _IOFBF, sizeof obuf);

  double t0 = now();
  uint64_t frames = 0, resolved = 0;
  const rsp_event *ev;
  while ((ev = rsp_reader_next(d.reader, &error))) {
    if (d.symbolizer)
      rsp_symbolizer_observe(d.symbolizer, ev);
    if (stats) {
      if (symbolize && ev->type == PERF_RECORD_SAMPLE) {
        unsigned n = resolve_stack(&d, ev);
        frames += n;
        for (unsigned i = 0; i < n; i++)
          resolved += d.frames[i].sym != NULL;
      }
      continue;
    }
    follow_comm(&d, ev);
    if (d.format == FORMAT_JSON)
      print_json(&d, ev);
    else
      print_text(&d, ev);
  }
  int status = 0;
  if (stats) /* what was read before an error too: the error says where the reading stopped */
    print_stats(&d, frames, resolved, now() - t0);
  if (error) {
    fflush(stdout);
    fprintf(stderr, "rsp-dump: %s\n", error->message);
    g_clear_error(&error);
    status = 1;
  }
  if (fflush(stdout) != 0 && errno != EPIPE && status == 0) {
    fprintf(stderr, "rsp-dump: writing output: %s\n", g_strerror(errno));
    status = 1;
  }
  rsp_symbolizer_free(d.symbolizer);
  rsp_reader_close(d.reader);
  g_hash_table_unref(d.comms);
  g_string_chunk_free(d.strings);
  return status;
}
