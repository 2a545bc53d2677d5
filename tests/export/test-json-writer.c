/* test-json-writer HEX...: each argument (a string's bytes in hex, decoded here so that any byte can be passed)
 * written with src/export's JSON writer, in one document per sink (FILE, GString) and flags (none, short escapes
 * and spaced), one line each, for test_json_writer.py to parse with Python's json module. The document:
 * {"strings": [S...], "keys": {S: i...}, "numbers": [...], "nested": {...}}. */
#include "export/export.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static GByteArray *unhex(const char *hex)
{
  GByteArray *b = g_byte_array_new();
  for (size_t i = 0; hex[i] && hex[i + 1]; i += 2) {
    char pair[3] = { hex[i], hex[i + 1], 0 };
    guint8 v = (guint8)strtoul(pair, NULL, 16);
    g_byte_array_append(b, &v, 1);
  }
  return b;
}

static void document(rsp_json_writer *w, GPtrArray *strings)
{
  rsp_json_begin_object(w);
  rsp_json_key(w, "strings");
  rsp_json_begin_array(w);
  for (guint i = 0; i < strings->len; i++) {
    GByteArray *b = g_ptr_array_index(strings, i);
    rsp_json_string_len(w, b->len ? (const char *)b->data : "", b->len);
  }
  rsp_json_end_array(w);
  rsp_json_key(w, "keys"); /* a key is escaped as a string is; no NULs in a key */
  rsp_json_begin_object(w);
  for (guint i = 0; i < strings->len; i++) {
    GByteArray *b = g_ptr_array_index(strings, i);
    if (b->len && memchr(b->data, 0, b->len))
      continue;
    g_autofree char *key = g_strndup(b->len ? (const char *)b->data : "", b->len);
    rsp_json_key(w, key);
    rsp_json_u64(w, i);
  }
  rsp_json_end_object(w);
  rsp_json_key(w, "numbers");
  rsp_json_begin_array(w);
  rsp_json_u64(w, 0);
  rsp_json_u64(w, UINT64_MAX);
  rsp_json_i64(w, INT64_MIN);
  rsp_json_i64(w, -1);
  rsp_json_double(w, 6, 1.5);
  rsp_json_double(w, 3, -0.125);
  rsp_json_double(w, 6, INFINITY);
  rsp_json_double(w, 6, NAN);
  rsp_json_end_array(w);
  rsp_json_key(w, "nested");
  rsp_json_begin_object(w);
  rsp_json_key(w, "empty_array");
  rsp_json_begin_array(w);
  rsp_json_end_array(w);
  rsp_json_key(w, "empty_object");
  rsp_json_begin_object(w);
  rsp_json_end_object(w);
  rsp_json_key(w, "matrix");
  rsp_json_begin_array(w);
  rsp_json_begin_array(w);
  rsp_json_u64(w, 1);
  rsp_json_u64(w, 2);
  rsp_json_end_array(w);
  rsp_json_begin_array(w);
  rsp_json_end_array(w);
  rsp_json_begin_array(w);
  rsp_json_begin_object(w);
  rsp_json_key(w, "x");
  rsp_json_u64(w, 3);
  rsp_json_end_object(w);
  rsp_json_end_array(w);
  rsp_json_end_array(w);
  rsp_json_key(w, "yes");
  rsp_json_bool(w, true);
  rsp_json_key(w, "no");
  rsp_json_bool(w, false);
  rsp_json_key(w, "none");
  rsp_json_null(w);
  rsp_json_key(w, "absent");
  rsp_json_string(w, NULL);
  rsp_json_key(w, "raw");
  rsp_json_raw(w, "[\"as it is\"]");
  rsp_json_end_object(w);
  rsp_json_end_object(w);
}

int main(int argc, char **argv)
{
  GPtrArray *strings = g_ptr_array_new_with_free_func((GDestroyNotify)g_byte_array_unref);
  for (int i = 1; i < argc; i++)
    g_ptr_array_add(strings, unhex(argv[i]));
  static const unsigned flags[] = { 0, RSP_JSON_SHORT_ESCAPES | RSP_JSON_SPACED };
  for (size_t f = 0; f < G_N_ELEMENTS(flags); f++) {
    rsp_json_writer w = rsp_json_writer_file(stdout, flags[f]);
    fputs("file ", stdout);
    document(&w, strings);
    putchar('\n');
    GString *s = g_string_new("string ");
    w = rsp_json_writer_string(s, flags[f]);
    document(&w, strings);
    g_string_append_c(s, '\n');
    fwrite(s->str, 1, s->len, stdout);
    g_string_free(s, true);
  }
  g_ptr_array_free(strings, true);
  return fflush(stdout) == 0 ? 0 : 1;
}
