/* Fuzz target for the perf.data reader: any bytes, opened as a file, decoded to the end.
 * Built for libFuzzer with clang (-Dfuzz=true); with gcc the same target is built with a main()
 * that replays a corpus, so every test run feeds the seeds through it under the sanitizers. */
#include "reader/reader.h"
#include "symbols/symbols.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t touch_string(const char *s)
{
  return s ? strlen(s) : 0;
}

/* Reads every string and array the header and the evsels hand out, so ASan sees bad pointers. */
static uint64_t touch_header(const rsp_reader *r)
{
  const rsp_header_info *h = rsp_reader_header(r);
  uint64_t sink = touch_string(h->hostname) + touch_string(h->osrelease) +
                  touch_string(h->perf_version) + touch_string(h->arch) +
                  touch_string(h->cpudesc) + touch_string(h->cpuid);
  for (char **a = h->cmdline; a && *a; a++)
    sink += strlen(*a);
  for (unsigned i = 0; i < h->n_build_ids; i++)
    sink += touch_string(h->build_ids[i].filename) + h->build_ids[i].id[h->build_ids[i].size % 20];
  for (size_t i = 0; i < h->tracing_kallsyms_size; i += 4096)
    sink += (unsigned char)h->tracing_kallsyms[i];
  for (unsigned i = 0; i < rsp_reader_n_evsels(r); i++) {
    const rsp_evsel *e = rsp_reader_evsel(r, i);
    /* the name may still be NULL here (a tracepoint before its tracing data) */
    sink += touch_string(e->name) + touch_string(e->tp_system) + touch_string(e->tp_name);
    for (unsigned j = 0; j < e->n_ids; j++)
      sink += e->ids[j];
    for (unsigned j = 0; j < e->n_fields; j++) {
      sink += touch_string(e->fields[j].name);
      sink += rsp_evsel_field(e, e->fields[j].name) != NULL;
    }
    if (e->name)
      sink += rsp_reader_find_evsel(r, e->name) != NULL;
  }
  return sink;
}

/* The last byte of every array an event points to, and its strings. */
static uint64_t touch_event(const rsp_event *ev)
{
  uint64_t sink = ev->time + ev->ip;
  if (ev->callchain_nr)
    sink += ev->callchain[0] + ev->callchain[ev->callchain_nr - 1];
  if (ev->raw_size)
    sink += ev->raw[0] + ev->raw[ev->raw_size - 1];
  if (ev->branch_nr)
    sink += ev->branches[ev->branch_nr - 1].to;
  if (ev->read_words)
    sink += ev->read_values[ev->read_words - 1];
  if (ev->regs_user_nr)
    sink += ev->regs_user[ev->regs_user_nr - 1];
  if (ev->regs_intr_nr)
    sink += ev->regs_intr[ev->regs_intr_nr - 1];
  if (ev->stack_user_size)
    sink += ev->stack_user[ev->stack_user_size - 1];
  if (ev->aux_size)
    sink += ev->aux[ev->aux_size - 1];
  switch (ev->type) {
  case PERF_RECORD_COMM:
    sink += touch_string(ev->u.comm.comm);
    break;
  case PERF_RECORD_MMAP:
  case PERF_RECORD_MMAP2:
    sink += touch_string(ev->u.mmap.filename);
    if (ev->u.mmap.build_id_size)
      sink += ev->u.mmap.build_id[ev->u.mmap.build_id_size - 1];
    break;
  case PERF_RECORD_KSYMBOL:
    sink += touch_string(ev->u.ksymbol.name);
    break;
  case PERF_RECORD_CGROUP:
    sink += touch_string(ev->u.cgroup.path);
    break;
  case PERF_RECORD_TEXT_POKE:
    if (ev->u.text_poke.old_len + ev->u.text_poke.new_len)
      sink += ev->u.text_poke.bytes[ev->u.text_poke.old_len + ev->u.text_poke.new_len - 1];
    break;
  default:
    break;
  }
  return sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  int fd = memfd_create("perf.data", MFD_CLOEXEC);
  if (fd < 0)
    return 0;
  size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, data + done, size - done);
    if (n <= 0)
      break;
    done += (size_t)n;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  GError *error = NULL;
  /* the last byte picks file order or time order, so both paths see every input */
  rsp_reader_options ro = {.unordered = size > 0 && (data[size - 1] & 1), .no_ftrace = true};
  rsp_reader *r = rsp_reader_open(path, &ro, &error);
  if (r) {
    uint64_t sink = touch_header(r);
    rsp_symbolizer_options so = {.no_host_fallback = true};
    rsp_symbolizer *sym = rsp_symbolizer_new(r, &so, NULL);
    const rsp_event *ev;
    rsp_frame frames[64];
    while ((ev = rsp_reader_next(r, &error))) {
      if (sym) {
        rsp_symbolizer_observe(sym, ev);
        sink += rsp_symbolizer_callchain(sym, ev, frames, 64);
      }
      if (ev->evsel && ev->raw) {
        for (unsigned i = 0; i < ev->evsel->n_fields; i++) {
          size_t len;
          sink += rsp_event_field_u64(ev, &ev->evsel->fields[i]);
          sink += (uint64_t)rsp_event_field_s64(ev, &ev->evsel->fields[i]);
          sink += (unsigned char)rsp_event_field_bytes(ev, &ev->evsel->fields[i], &len)[0];
        }
      }
      sink += touch_event(ev);
    }
    sink += touch_header(r); /* pipe mode: what the stream's header records added */
    const rsp_reader_stats *st = rsp_reader_stats_get(r);
    sink += st->events + st->max_buffered;
    rsp_symbolizer_free(sym);
    rsp_reader_close(r);
    if (sink == 42)
      fputc(0, stderr);
  }
  /* every error names the file and a byte offset */
  if (error && !strstr(error->message, "byte offset") && !strstr(error->message, "cannot open")) {
    fprintf(stderr, "error without an offset: %s\n", error->message);
    abort();
  }
  g_clear_error(&error);
  close(fd);
  return 0;
}

#ifndef RSP_LIBFUZZER
static int replay(const char *path)
{
  gchar *data;
  gsize len;
  if (!g_file_get_contents(path, &data, &len, NULL))
    return 0;
  LLVMFuzzerTestOneInput((const uint8_t *)data, len);
  g_free(data);
  return 1;
}

int main(int argc, char **argv)
{
  int n = 0;
  for (int i = 1; i < argc; i++) {
    DIR *d = opendir(argv[i]);
    if (!d) {
      n += replay(argv[i]);
      continue;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
      if (de->d_name[0] == '.')
        continue;
      char *p = g_build_filename(argv[i], de->d_name, NULL);
      n += replay(p);
      g_free(p);
    }
    closedir(d);
  }
  printf("replayed %d inputs\n", n);
  return n > 0 ? 0 : 1;
}
#endif
