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
