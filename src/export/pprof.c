#include "export/export-private.h"

bool rsp_export_pprof(const rsp_paths *paths, FILE *out, GError **error)
{
  (void)paths, (void)out;
  g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOSYS, "pprof: not yet");
  return false;
}
