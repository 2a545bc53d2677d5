/* Fuzz target for the perf.data reader: any bytes, opened as a file, decoded to the end.
 * Built for libFuzzer with clang (-Dfuzz=true); with gcc the same target is built with a main()
 * that replays a corpus, so every test run feeds the seeds through it under the sanitizers. */
#include "reader/reader.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
  rsp_reader *r = rsp_reader_open(path, NULL, &error);
  if (r) {
    rsp_symbolizer_options so = {.no_host_fallback = true};
    rsp_symbolizer *sym = rsp_symbolizer_new(r, &so, NULL);
    const rsp_event *ev;
    uint64_t sink = 0;
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
      for (uint32_t i = 0; i < ev->callchain_nr; i++)
        sink += ev->callchain[i];
    }
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
