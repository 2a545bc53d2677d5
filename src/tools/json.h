/* The tools' one JSON string writer. */
#pragma once

#include <stddef.h>
#include <stdio.h>

/* Writes S (NUL-terminated; NULL writes null) as a JSON string: quotes, backslashes and control
 * characters escaped, valid UTF-8 passed through, a byte that is not UTF-8 written as \u00XX. */
void rsp_json_string(FILE *out, const char *s);
/* The same for LEN bytes that may hold NULs. */
void rsp_json_string_len(FILE *out, const char *s, size_t len);
