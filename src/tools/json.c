/* The tools' one JSON string writer (rsp-dump, rsp-summary, rsp-diff print JSON through it). */
#include "json.h"

#include <glib.h>
#include <string.h>

void rsp_json_string_len(FILE *out, const char *s, size_t len)
{
  putc('"', out);
  for (size_t i = 0; i < len;) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      putc('\\', out);
      putc(c, out);
      i++;
    } else if (c == '\n') {
      fputs("\\n", out);
      i++;
    } else if (c == '\t') {
      fputs("\\t", out);
      i++;
    } else if (c < 0x20 || c == 0x7f) {
      fprintf(out, "\\u%04x", c);
      i++;
    } else if (c < 0x80) {
      putc(c, out);
      i++;
    } else {
      /* a whole valid UTF-8 character as it is; else this byte, escaped */
      size_t n = (size_t)(unsigned char)g_utf8_skip[c];
      if (n >= 2 && n <= 4 && i + n <= len && g_utf8_validate(s + i, (gssize)n, NULL)) {
        fwrite(s + i, 1, n, out);
        i += n;
      } else {
        fprintf(out, "\\u%04x", c);
        i++;
      }
    }
  }
  putc('"', out);
}

void rsp_json_string(FILE *out, const char *s)
{
  if (!s) {
    fputs("null", out);
    return;
  }
  rsp_json_string_len(out, s, strlen(s));
}
