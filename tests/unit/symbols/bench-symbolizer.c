/* Symbolizer throughput on a perf.data: every sample's callchain resolved as it comes (the first
 * time: cache misses and hits mixed), then again REPEAT times (all cache hits). Prints ns per
 * frame for both. Usage: bench-symbolizer FILE [REPEAT] */
#include "reader/reader.h"
#include "symbols/symbols.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE [REPEAT]\n", argv[0]);
    return 2;
  }
  int repeat = argc > 2 ? atoi(argv[2]) : 20;
  GError *error = NULL;
  rsp_reader *r = rsp_reader_open(argv[1], NULL, &error);
  if (!r) {
    fprintf(stderr, "%s\n", error->message);
    return 1;
  }
  double t0 = now();
  rsp_symbolizer *s = rsp_symbolizer_new(r, NULL, &error);
  double t_new = now() - t0;
  if (!s) {
    fprintf(stderr, "%s\n", error->message);
    return 1;
  }
  static rsp_frame frames[512];
  uint64_t n_first = 0, n_again = 0, sink = 0;
  double t_first = 0, t_again = 0, t_observe = 0;
  const rsp_event *ev;
  while ((ev = rsp_reader_next(r, &error))) {
    double a = now();
    rsp_symbolizer_observe(s, ev);
    double b = now();
    t_observe += b - a;
    if (ev->type != PERF_RECORD_SAMPLE || !ev->callchain_nr)
      continue;
    unsigned n = rsp_symbolizer_callchain(s, ev, frames, G_N_ELEMENTS(frames));
    double c = now();
    t_first += c - b;
    n_first += n;
    for (int i = 0; i < repeat; i++) {
      n = rsp_symbolizer_callchain(s, ev, frames, G_N_ELEMENTS(frames));
      sink += (uintptr_t)frames[n ? n - 1 : 0].sym;
    }
    t_again += now() - c;
    n_again += (uint64_t)n * (uint64_t)repeat;
  }
  if (error) {
    fprintf(stderr, "%s\n", error->message);
    return 1;
  }
  const rsp_symbolizer_stats *st = rsp_symbolizer_stats_get(s);
  printf("kallsyms: %s (loaded in %.1f ms)\n", st->kallsyms_source, t_new * 1e3);
  printf("first pass: %" G_GUINT64_FORMAT " frames, %.1f ns/frame (cache misses and hits)\n",
         n_first, n_first ? t_first * 1e9 / (double)n_first : 0.0);
  printf("repeats:    %" G_GUINT64_FORMAT " frames, %.1f ns/frame (cache hits)\n", n_again,
         n_again ? t_again * 1e9 / (double)n_again : 0.0);
  printf("observe:    %.1f ms in all\n", t_observe * 1e3);
  printf("kernel %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " resolved, user %" G_GUINT64_FORMAT
         "/%" G_GUINT64_FORMAT ", cache hits %" G_GUINT64_FORMAT " misses %" G_GUINT64_FORMAT
         ", build-id mismatches %" G_GUINT64_FORMAT " (%d)\n",
         st->kernel_resolved, st->kernel_frames, st->user_resolved, st->user_frames, st->cache_hits,
         st->cache_misses, st->build_id_mismatches, (int)(sink & 1));
  rsp_symbolizer_free(s);
  rsp_reader_close(r);
  return 0;
}
