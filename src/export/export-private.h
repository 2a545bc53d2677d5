/* What the format writers of src/export/ share. */
#pragma once

#include "export/export.h"

/* The pids of the processes on PATHS (a set of GINT_TO_POINTER(pid)). */
GHashTable *rsp_export_path_pids(const rsp_paths *paths);
/* S as a JSON string (NULL: null): quotes, backslashes and control characters escaped, a byte that is not
 * UTF-8 written as \u00XX. */
void rsp_export_json_string(FILE *out, const char *s);
/* An error for OUT having failed to be written, FORMAT naming the writer. */
bool rsp_export_write_failed(FILE *out, const char *format, GError **error);
