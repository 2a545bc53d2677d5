/* Why a user frame has no symbol, as the symbolizer found its file while the model was built: kept
 * for the dsos of the model's unresolved user frames only (the symbolizer is gone afterwards). */
#include "model-private.h"

#include <string.h>

void rsp_dso_status_collect(rsp_model *m, const rsp_symbolizer *sym)
{
  if (!sym || !m->frames)
    return;
  for (guint i = 0; i < m->frames->len; i++) {
    const rsp_model_frame *f = &g_array_index(m->frames, rsp_model_frame, i);
    /* unresolved frames are spelled by their address */
    if (f->kernel || !f->dso || (f->dso[0] != '/' && strcmp(f->dso, "[vdso]") != 0) ||
        strncmp(f->function, "0x", 2) != 0)
      continue;
    if (!m->dso_status)
      m->dso_status = g_hash_table_new(g_str_hash, g_str_equal);
    if (!g_hash_table_contains(m->dso_status, f->dso))
      g_hash_table_insert(m->dso_status, (gpointer)f->dso,
                          GUINT_TO_POINTER((unsigned)rsp_symbolizer_dso_status(sym, f->dso) + 1));
  }
}

void rsp_dso_status_free(rsp_model *m)
{
  if (m->dso_status)
    g_hash_table_destroy(m->dso_status);
  m->dso_status = NULL;
}

rsp_dso_status rsp_model_dso_status(const rsp_model *m, const char *dso)
{
  gpointer v = m->dso_status && dso ? g_hash_table_lookup(m->dso_status, dso) : NULL;
  return v ? (rsp_dso_status)(GPOINTER_TO_UINT(v) - 1) : RSP_DSO_NOT_READ;
}

bool rsp_dso_is_anonymous(const char *dso)
{
  return dso && (strcmp(dso, "[unknown]") == 0 || g_str_has_prefix(dso, "//anon") || g_str_has_prefix(dso, "[anon") ||
                 g_str_has_prefix(dso, "/memfd:") || g_str_has_prefix(dso, "/anon_hugepage"));
}

typedef struct dso_count {
  const char *dso;
  uint32_t samples;
} dso_count;

static int by_samples(const void *a, const void *b)
{
  const dso_count *x = a, *y = b;
  return x->samples != y->samples ? (x->samples < y->samples ? 1 : -1) : strcmp(x->dso, y->dso);
}

/* Why a binary's samples name no function, and what to do about it. */
static const char *why_no_symbol(const rsp_model *m, const char *dso)
{
  /* (a JVM's //anon is no file that was 'not read (the recording was made on another machine or kernel)') */
  if (rsp_dso_is_anonymous(dso))
    return "it is memory that is no file (code a JIT generated at run time, or a program run from a memfd): only a "
           "perf map the program writes names it (/tmp/perf-PID.map: java -XX:+UnlockDiagnosticVMOptions "
           "-XX:+DumpPerfMapAtExit, node --perf-basic-prof, python3.12 -X perf), read where the recording was made";
  switch (rsp_model_dso_status(m, dso)) {
  case RSP_DSO_STRIPPED: {
    const char *urls = g_getenv("DEBUGINFOD_URLS");
    return urls && *urls ? "it is stripped (no .symtab) and the debuginfod servers of DEBUGINFOD_URLS have no debug "
                           "info for it: install its debug symbols (its -dbgsym package)"
                         : "it is stripped (no .symtab): install its debug symbols (its -dbgsym package), or set "
                           "DEBUGINFOD_URLS";
  }
  case RSP_DSO_MISSING:
    return "the file is not on this machine: read the recording where it was made, or put the file at that path";
  case RSP_DSO_BUILD_ID_MISMATCH:
    return "the file here is another build than the one recorded: read the recording where it was made";
  case RSP_DSO_UNREADABLE:
    return "the file is no ELF file libdwfl can read";
  case RSP_DSO_SYMBOLS:
    return "its symbol table has nothing at those addresses (code generated at run time, or a table that lists "
           "only some functions)";
  default:
    return "its file was not read (the recording was made on another machine or kernel)";
  }
}

/* Once per binary (the five with the most), how many samples ran in it where no symbol names the code,
 * why, and what to do about it (issue 16: symbols a user can get). */
void rsp_dso_symbol_notes(const rsp_model *m, GPtrArray *out)
{
  GHashTable *counts = g_hash_table_new(NULL, NULL); /* (frames' dsos are interned: a build's 157,000 samples) */
  uint32_t n_samples = rsp_model_n_samples(m);
  for (rsp_sample_id i = 0; i < n_samples; i++) {
    const rsp_sample *s = rsp_model_sample(m, i);
    /* the innermost frame: the code the sample ran in (a sample in the kernel ran in no binary) */
    const rsp_model_frame *f = rsp_model_stack_top(m, s->stack);
    if (f && !f->kernel && f->function && strncmp(f->function, "0x", 2) == 0 && f->dso &&
        (f->dso[0] == '/' || strcmp(f->dso, "[vdso]") == 0)) {
      gpointer v = g_hash_table_lookup(counts, f->dso);
      g_hash_table_insert(counts, (gpointer)f->dso, GUINT_TO_POINTER(GPOINTER_TO_UINT(v) + 1));
    }
  }
  GArray *list = g_array_new(FALSE, FALSE, sizeof(dso_count));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, counts);
  while (g_hash_table_iter_next(&it, &k, &v)) {
    dso_count c = { k, GPOINTER_TO_UINT(v) };
    g_array_append_val(list, c);
  }
  g_array_sort(list, by_samples);
  for (guint i = 0; i < list->len && i < 5; i++) {
    const dso_count *c = &g_array_index(list, dso_count, i);
    const char *why = why_no_symbol(m, c->dso);
    g_ptr_array_add(out, g_strdup_printf("%u sample%s ran in %s without a symbol: %s", c->samples,
                                         c->samples == 1 ? "" : "s", c->dso, why));
  }
  if (list->len > 5)
    g_ptr_array_add(out, g_strdup_printf("%u other binaries have samples without a symbol", list->len - 5));
  g_array_free(list, TRUE);
  g_hash_table_destroy(counts);
}
