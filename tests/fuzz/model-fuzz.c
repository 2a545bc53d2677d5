/* Fuzz target for everything after the reader (issue 21): a perf.data whose records are each valid but
 * inconsistent with each other (reordered, duplicated, dropped, time-shifted, pids and cpus rewritten,
 * tracepoint fields altered, records spliced in from another recording), run through the model, the
 * control paths, categories, the explanation, the consolidated stacks, the accounting, the latency
 * profiles and the renderers (running, flame and consolidated views, histograms: drawn into a small
 * image, whole and zoomed at the end), with the outputs' invariants checked (abort on a violation):
 * categories add up to the paths' total, accounted <= total, no category or guessed part beyond it,
 * every process's accounting columns add up to its life, no life longer than the recording, cairo in
 * no error state after drawing.
 * With clang (-Dfuzz=true) a libFuzzer binary with a record-level mutator (LLVMFuzzerCustomMutator) and
 * splicer (LLVMFuzzerCustomCrossOver); with gcc a replayer: each seed as it is, then MODEL_FUZZ_ROUNDS
 * (default 200) record-level mutations of it from a fixed seed, so every test run (and the ASan one)
 * feeds the model inconsistent recordings. */

#include "analysis/analysis.h"
#include "render/render.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2, uint8_t *out,
                                 size_t max_out_size, unsigned int seed);
#ifdef RSP_LIBFUZZER
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
#endif

#define CHECK(cond)                                                                                      \
  do {                                                                                                   \
    if (!(cond)) {                                                                                       \
      fprintf(stderr, "model-fuzz: invariant broken at %s:%d: %s\n", __FILE__, __LINE__, #cond);       \
      abort();                                                                                           \
    }                                                                                                    \
  } while (0)

/* ---- record-level mutations of a file-mode perf.data ---------------------------------------------- */

typedef struct rec {
  size_t off;
  uint16_t size;
  uint32_t type;
} rec;

/* The records of DATA's data section (file mode, PERFILE2); their count, at most MAX. */
static size_t records(const uint8_t *data, size_t size, rec *out, size_t max)
{
  if (size < 104 || memcmp(data, "PERFILE2", 8) != 0)
    return 0;
  uint64_t off, len;
  memcpy(&off, data + 40, 8);
  memcpy(&len, data + 48, 8);
  if (off > size || len > size - off)
    return 0;
  size_t n = 0;
  for (uint64_t p = off; p + 8 <= off + len && n < max;) {
    uint32_t type;
    uint16_t rsize;
    memcpy(&type, data + p, 4);
    memcpy(&rsize, data + p + 6, 2);
    if (rsize < 8 || p + rsize > off + len)
      break;
    out[n++] = (rec){ p, rsize, type };
    p += rsize;
  }
  return n;
}

static unsigned next_rand(unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return *s >> 8;
}

/* One mutation of DATA in place (sizes never change, so every offset in the file stays right). */
static void mutate_once(uint8_t *data, size_t size, unsigned *seed)
{
  static rec recs[1 << 16];
  size_t n = records(data, size, recs, G_N_ELEMENTS(recs));
  if (n < 2)
    return;
  rec *a = &recs[next_rand(seed) % n], *b = &recs[next_rand(seed) % n];
  uint8_t tmp[65536];
  switch (next_rand(seed) % 6) {
  case 0: /* reorder: swap two records of one size */
    for (size_t k = 0; k < 64 && b->size != a->size; k++)
      b = &recs[next_rand(seed) % n];
    if (a->size == b->size && a != b) {
      memcpy(tmp, data + a->off, a->size);
      memcpy(data + a->off, data + b->off, a->size);
      memcpy(data + b->off, tmp, a->size);
    }
    break;
  case 1: /* duplicate: one record over another of its size */
    for (size_t k = 0; k < 64 && b->size != a->size; k++)
      b = &recs[next_rand(seed) % n];
    if (a->size == b->size && a != b)
      memcpy(data + b->off, data + a->off, a->size);
    break;
  case 2: { /* time-shift (or any u64 of the body moved) */
    size_t words = (a->size - 8) / 8;
    if (words) {
      uint64_t v;
      size_t at = a->off + 8 + 8 * (next_rand(seed) % words);
      memcpy(&v, data + at, 8);
      int64_t delta = (int64_t)(next_rand(seed) % 2000000000u) - 1000000000;
      if (next_rand(seed) % 8 == 0)
        delta *= 1000000; /* far: seconds to hours */
      v += (uint64_t)delta;
      memcpy(data + at, &v, 8);
    }
    break;
  }
  case 3: { /* a pid, tid or cpu rewritten */
    size_t words = (a->size - 8) / 4;
    if (words) {
      static const uint32_t values[] = { 0, 1, 2, 3, 0x7fffffff, 0xffffffff };
      size_t at = a->off + 8 + 4 * (next_rand(seed) % words);
      uint32_t v = next_rand(seed) % 2 ? values[next_rand(seed) % G_N_ELEMENTS(values)] : 0;
      if (!v)
        memcpy(&v, data + b->off + 8 + 4 * (next_rand(seed) % ((b->size - 8) / 4 ? (b->size - 8) / 4 : 1)), 4);
      memcpy(data + at, &v, 4);
    }
    break;
  }
  case 4: /* a tracepoint field (or any byte of the body) altered */
    if (a->size > 8)
      data[a->off + 8 + next_rand(seed) % (a->size - 8u)] ^= (uint8_t)(1u << (next_rand(seed) % 8));
    break;
  default: /* dropped: made a FINISHED_ROUND of its size */
    if (a->type != 68) {
      uint32_t t = 68;
      memcpy(data + a->off, &t, 4);
    }
    break;
  }
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
  rec probe[2];
  if (records(data, size, probe, 2) < 2) {
#ifdef RSP_LIBFUZZER
    return LLVMFuzzerMutate(data, size, max_size);
#else
    (void)max_size;
    return size;
#endif
  }
  unsigned s = seed;
  for (unsigned k = 1 + next_rand(&s) % 4; k > 0; k--)
    mutate_once(data, size, &s);
  return size;
}

/* ---- the target ------------------------------------------------------------------------------------- */

static void check_categories(const rsp_categories *c)
{
  uint64_t sum = 0, guessed = 0;
  for (int k = 0; k < RSP_N_CATEGORIES; k++) {
    sum += c->ns[k];
    CHECK(c->guessed_ns[k] <= c->ns[k]);
    guessed += c->guessed_ns[k];
  }
  CHECK(sum == c->total_ns);
  CHECK(guessed == c->guessed_total_ns);
  CHECK(c->accounted_ns <= c->total_ns);
  double pct = c->total_ns ? 100.0 * (double)c->accounted_ns / (double)c->total_ns : 0;
  CHECK(pct >= 0 && pct <= 100);
}

static unsigned n_loaded, n_refused;

/* Draws the three views of M (and PATHS when there are some) into a small image: the whole recording,
 * then its last microsecond (the time ruler and the pixel walks near the end of time). */
static void draw_views(const rsp_model *m, const rsp_paths *paths, uint64_t t0, uint64_t t1)
{
  const rsp_style *st = rsp_style_default();
  cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 480, 200);
  cairo_t *cr = cairo_create(surface);
  rsp_viewport whole = { .t0 = t0, .t1 = t1 > t0 ? t1 : t0 + 1, .width = 480, .height = 200 };
  rsp_viewport end = { .t0 = whole.t1 > 1000 ? whole.t1 - 1000 : 0, .t1 = whole.t1, .width = 480, .height = 200 };
  const rsp_viewport *vps[] = { &whole, &end };
  rsp_running_view *rv = rsp_running_view_new(m);
  rsp_running_view_set_show_links(rv, true);
  if (paths)
    rsp_running_view_set_wait_chain(rv, paths);
  for (unsigned i = 0; i < 2; i++)
    rsp_running_view_draw(rv, cr, vps[i], st);
  rsp_running_view_free(rv);
  if (paths) {
    rsp_flame_view *fv = rsp_flame_view_new(paths);
    rsp_flame_view_set_show_links(fv, true);
    for (unsigned i = 0; i < 2; i++)
      rsp_flame_view_draw(fv, cr, vps[i], st);
    rsp_flame_view_free(fv);
    rsp_consolidated_view *cv = rsp_consolidated_view_new(paths);
    uint64_t total = rsp_consolidated_view_total(cv);
    rsp_viewport along = { .t0 = 0, .t1 = total ? total : 1, .width = 480, .height = 200 };
    rsp_consolidated_view_draw(cv, cr, &along, st);
    rsp_consolidated_view_free(cv);
  }
  /* an error state (text not UTF-8, a NaN coordinate, unbalanced save/restore) blanks the rest of a view */
  CHECK(cairo_status(cr) == CAIRO_STATUS_SUCCESS);
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
}

static void draw_histogram(const rsp_profile *p)
{
  cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 320, 160);
  cairo_t *cr = cairo_create(surface);
  rsp_histogram_view_draw(cr, 320, 160, p, NULL, NULL);
  CHECK(cairo_status(cr) == CAIRO_STATUS_SUCCESS);
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
}

static void run_model(const char *path)
{
  rsp_symbolizer_options so = { .no_host_fallback = true };
  rsp_model_options mo = { .symbolizer = &so };
  GError *error = NULL;
  rsp_model *m = rsp_model_load(path, &mo, &error);
  if (!m) {
    n_refused++;
    g_clear_error(&error);
    return;
  }
  n_loaded++;
  uint64_t t0 = rsp_model_time_first(m), t1 = rsp_model_time_last(m);
  uint64_t span = t1 > t0 ? t1 - t0 : 0;
  /* the process of interest, else the task with the most runs */
  int32_t pid = rsp_model_workload_pid(m);
  if (pid < 0) {
    uint32_t most = 0;
    for (rsp_task_id t = 0; t < rsp_model_n_tasks(m); t++)
      if (rsp_model_task(m, t)->n_runs > most && rsp_model_task(m, t)->pid > 0) {
        most = rsp_model_task(m, t)->n_runs;
        pid = rsp_model_task(m, t)->pid;
      }
  }
  if (pid > 0) {
    rsp_paths *p = rsp_paths_build(m, pid, NULL, &error);
    if (p) {
      rsp_categories c;
      rsp_categories_compute(p, &c);
      check_categories(&c);
      CHECK(c.wall_ns <= span);
      rsp_explanation *x = rsp_explain(p, &c);
      CHECK(x && x->sentences && x->sentences[0]);
      rsp_explanation_free(x);
      rsp_wait_sites *ws = rsp_wait_sites_compute(p);
      for (uint32_t i = 0; i < rsp_wait_sites_n(ws); i++)
        CHECK(rsp_wait_sites_get(ws, i)->total_ns <= c.total_ns);
      rsp_wait_sites_free(ws);
      rsp_stack_tree *tree = rsp_stack_tree_build(p, 0, UINT64_MAX);
      rsp_stack_tree_free(tree);
      draw_views(m, p, t0, t1);
      rsp_paths_free(p);
    } else {
      draw_views(m, NULL, t0, t1);
    }
    g_clear_error(&error);
  } else {
    draw_views(m, NULL, t0, t1);
  }
  uint32_t n;
  rsp_accounting_row *rows = rsp_accounting_compute(m, &n);
  for (uint32_t i = 0; i < n; i++) {
    uint64_t sum = 0;
    for (int k = 0; k < RSP_N_ACCT; k++)
      sum += rows[i].ns[k];
    CHECK(sum == rows[i].life_ns);
    CHECK((double)rows[i].life_ns <= (double)rows[i].n_tasks * (double)span * (1 + 1e-9) + 1);
  }
  g_free(rows);
  rsp_profile_options po = { .resolution = 1, .pid = -1, .system_wide = true };
  rsp_profile_set *set = rsp_profile_set_build(m, &po, &error);
  for (uint32_t i = 0; set && i < rsp_profile_set_n(set) && i < 3; i++)
    draw_histogram(rsp_profile_set_get(set, i));
  rsp_profile_set_free(set);
  g_clear_error(&error);
  rsp_model_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  int fd = memfd_create("model-fuzz", 0);
  if (fd < 0)
    return 0;
  if (write(fd, data, size) == (ssize_t)size) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    run_model(path);
  }
  close(fd);
  return 0;
}

/* Splices of another recording: DATA1 with up to 8 of its records overwritten by records of DATA2 of the same
 * size (sizes never change), read with DATA1's attrs: another machine's pids, times and sample layout. */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2, uint8_t *out,
                                 size_t max_out_size, unsigned int seed)
{
  static rec r1[1 << 16], r2[1 << 16];
  if (size1 > max_out_size)
    return 0;
  memcpy(out, data1, size1);
  size_t n1 = records(out, size1, r1, G_N_ELEMENTS(r1)), n2 = records(data2, size2, r2, G_N_ELEMENTS(r2));
  if (n1 == 0 || n2 == 0)
    return size1;
  unsigned s = seed;
  for (unsigned k = 0, done = 0; k < 64 && done < 8; k++) {
    const rec *from = &r2[next_rand(&s) % n2];
    const rec *to = &r1[next_rand(&s) % n1];
    /* a record of the same size, near the one picked */
    for (size_t j = 0; j < 16 && to->size != from->size; j++)
      to = &r1[(size_t)(to - r1 + 1) % n1];
    if (to->size != from->size)
      continue;
    memcpy(out + to->off, data2 + from->off, from->size);
    done++;
  }
  return size1;
}

#ifndef RSP_LIBFUZZER
static gchar *previous; /* the seed replayed before: spliced into this one */
static gsize previous_len;

static int replay(const char *path, unsigned rounds)
{
  gchar *data;
  gsize len;
  if (!g_file_get_contents(path, &data, &len, NULL))
    return 0;
  LLVMFuzzerTestOneInput((const uint8_t *)data, len);
  uint8_t *copy = g_malloc(len ? len : 1);
  for (unsigned r = 0; r < rounds; r++) {
    if (previous && r % 4 == 3) { /* every fourth: a splice of the previous seed, then a mutation */
      LLVMFuzzerCustomCrossOver((const uint8_t *)data, len, (const uint8_t *)previous, previous_len, copy, len,
                                16 + r * 7919u);
    } else {
      memcpy(copy, data, len);
    }
    LLVMFuzzerCustomMutator(copy, len, len, 16 + r * 7919u);
    LLVMFuzzerTestOneInput(copy, len);
  }
  g_free(copy);
  g_free(previous);
  previous = data;
  previous_len = len;
  return 1;
}

int main(int argc, char **argv)
{
  const char *env = getenv("MODEL_FUZZ_ROUNDS");
  unsigned rounds = env ? (unsigned)strtoul(env, NULL, 10) : 200;
  int n = 0;
  for (int i = 1; i < argc; i++) {
    DIR *d = opendir(argv[i]);
    if (!d) {
      n += replay(argv[i], rounds);
      continue;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
      if (de->d_name[0] == '.')
        continue;
      char *p = g_build_filename(argv[i], de->d_name, NULL);
      n += replay(p, rounds);
      g_free(p);
    }
    closedir(d);
  }
  printf("replayed %d inputs, %u record-level mutations of each (a quarter spliced with the seed before): %u models "
         "built, %u files refused\n", n, rounds, n_loaded, n_refused);
  g_free(previous);
  return n > 0 ? 0 : 1;
}
#endif
