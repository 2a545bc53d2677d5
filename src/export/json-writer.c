/* The one JSON writer: strings, numbers, and the commas between the members of an object or the elements of an
 * array, to a FILE or a GString. The exports (speedscope, Firefox) and the tools (rsp-summary, rsp-diff,
 * rsp-dump) write their JSON with it. */
#include "export/export-private.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

rsp_json_writer rsp_json_writer_file(FILE *out, unsigned flags)
{
  return (rsp_json_writer){ .file = out, .flags = flags };
}

rsp_json_writer rsp_json_writer_string(GString *out, unsigned flags)
{
  return (rsp_json_writer){ .string = out, .flags = flags };
}

static void put(rsp_json_writer *w, const char *s, size_t len)
{
  if (w->file)
    fwrite(s, 1, len, w->file);
  else
    g_string_append_len(w->string, s, (gssize)len);
}

static void put_str(rsp_json_writer *w, const char *s)
{
  put(w, s, strlen(s));
}

void rsp_json_raw(rsp_json_writer *w, const char *text)
{
  put_str(w, text);
}

static uint64_t depth_bit(const rsp_json_writer *w)
{
  return (uint64_t)1 << (w->depth < 64 ? w->depth : 63);
}

/* Before an item (a member's key, an array's element): the comma when the container holds one already. */
static void item(rsp_json_writer *w)
{
  if (w->depth && (w->items & depth_bit(w)))
    put_str(w, w->flags & RSP_JSON_SPACED ? ", " : ",");
  w->items |= depth_bit(w);
}

/* Before a value: after its key nothing, else it is an item. */
static void value(rsp_json_writer *w)
{
  if (w->after_key)
    w->after_key = false;
  else
    item(w);
}

static void open_container(rsp_json_writer *w, char c)
{
  value(w);
  put(w, &c, 1);
  w->depth++;
  w->items &= ~depth_bit(w);
}

static void close_container(rsp_json_writer *w, char c)
{
  w->items &= ~depth_bit(w);
  if (w->depth)
    w->depth--;
  w->after_key = false;
  put(w, &c, 1);
}

void rsp_json_begin_object(rsp_json_writer *w)
{
  open_container(w, '{');
}

void rsp_json_end_object(rsp_json_writer *w)
{
  close_container(w, '}');
}

void rsp_json_begin_array(rsp_json_writer *w)
{
  open_container(w, '[');
}

void rsp_json_end_array(rsp_json_writer *w)
{
  close_container(w, ']');
}

/* S's LEN bytes as a JSON string: quotes, backslashes, control characters and DEL escaped, valid UTF-8 as it is,
 * a byte that is not UTF-8 as \u00XX; the bytes kept as they are written in runs. */
static void escaped(rsp_json_writer *w, const char *s, size_t len)
{
  bool short_escapes = w->flags & RSP_JSON_SHORT_ESCAPES;
  char esc[8];
  size_t run = 0; /* the bytes before i kept as they are, not yet written */
  put(w, "\"", 1);
  for (size_t i = 0; i < len;) {
    unsigned char c = (unsigned char)s[i];
    size_t keep = 0;
    if (c == '"' || c == '\\')
      snprintf(esc, sizeof esc, "\\%c", c);
    else if (short_escapes && c == '\n')
      strcpy(esc, "\\n");
    else if (short_escapes && c == '\t')
      strcpy(esc, "\\t");
    else if (c < 0x20 || c == 0x7f)
      snprintf(esc, sizeof esc, "\\u%04x", c);
    else if (c < 0x80)
      keep = 1;
    else {
      /* a whole valid UTF-8 character as it is; else this byte, escaped (JSON must be UTF-8) */
      size_t n = (size_t)(unsigned char)g_utf8_skip[c];
      if (n >= 2 && n <= 4 && i + n <= len && g_utf8_validate(s + i, (gssize)n, NULL))
        keep = n;
      else
        snprintf(esc, sizeof esc, "\\u%04x", c);
    }
    if (keep) {
      run += keep;
      i += keep;
      continue;
    }
    put(w, s + i - run, run);
    run = 0;
    put_str(w, esc);
    i++;
  }
  put(w, s + len - run, run);
  put(w, "\"", 1);
}

void rsp_json_string_len(rsp_json_writer *w, const char *s, size_t len)
{
  value(w);
  escaped(w, s, len);
}

void rsp_json_string(rsp_json_writer *w, const char *s)
{
  if (!s)
    rsp_json_null(w);
  else
    rsp_json_string_len(w, s, strlen(s));
}

void rsp_json_key(rsp_json_writer *w, const char *key)
{
  item(w);
  escaped(w, key, strlen(key));
  put_str(w, w->flags & RSP_JSON_SPACED ? ": " : ":");
  w->after_key = true;
}

static void number(rsp_json_writer *w, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void number(rsp_json_writer *w, const char *fmt, ...)
{
  char buf[64];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  value(w);
  put(w, buf, n < 0 ? 0 : MIN((size_t)n, sizeof buf - 1));
}

char *rsp_u64_digits(char *end, uint64_t v)
{
  do {
    *--end = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  return end;
}

void rsp_json_u64(rsp_json_writer *w, uint64_t v)
{
  char buf[RSP_U64_DIGITS], *d = rsp_u64_digits(buf + sizeof buf, v);
  value(w);
  put(w, d, (size_t)(buf + sizeof buf - d));
}

void rsp_json_i64(rsp_json_writer *w, int64_t v)
{
  number(w, "%" PRId64, v);
}

void rsp_json_double(rsp_json_writer *w, int decimals, double v)
{
  if (!isfinite(v))
    rsp_json_null(w);
  else
    number(w, "%.*f", decimals, v);
}

void rsp_json_bool(rsp_json_writer *w, bool v)
{
  value(w);
  put_str(w, v ? "true" : "false");
}

void rsp_json_null(rsp_json_writer *w)
{
  value(w);
  put_str(w, "null");
}
