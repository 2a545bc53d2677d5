/* The probes/ line format: see probes.h and probes/README. */
#include "record/probes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef RSP_PROBES_DIR
#define RSP_PROBES_DIR "/usr/local/share/rsp/probes"
#endif
#ifndef RSP_BINDIR
#define RSP_BINDIR "/usr/local/bin"
#endif

G_DEFINE_QUARK(rsp-probes-error-quark, rsp_probes_error)

#define MAX_INCLUDE_DEPTH 16

static void probe_free(gpointer p)
{
  rsp_probe *probe = p;
  g_free(probe->event);
  g_free(probe->group);
  g_free(probe->name);
  g_free(probe->target);
  g_free(probe->library);
  g_free(probe->origin);
  g_free(probe);
}

void rsp_probe_set_free(rsp_probe_set *set)
{
  if (!set)
    return;
  g_free(set->name);
  g_free(set->path);
  g_free(set->description);
  g_free(set->sampling_event);
  if (set->probes)
    g_ptr_array_unref(set->probes);
  if (set->files)
    g_ptr_array_unref(set->files);
  g_free(set);
}

static bool running_installed(void)
{
  char *exe = g_file_read_link("/proc/self/exe", NULL);
  if (!exe)
    return true;
  char *dir = g_path_get_dirname(exe);
  bool installed = g_strcmp0(dir, RSP_BINDIR) == 0;
  g_free(dir);
  g_free(exe);
  return installed;
}

GPtrArray *rsp_probe_search_path(void)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func(g_free);
  const char *env = g_getenv("RSP_PROBES_PATH");
  if (env && *env) {
    char **parts = g_strsplit(env, ":", -1);
    for (char **p = parts; *p; p++)
      if (**p)
        g_ptr_array_add(dirs, g_strdup(*p));
    g_strfreev(parts);
  }
#ifdef RSP_SOURCE_PROBES_DIR
  /* From a build tree, the source tree's sets: the ones the binary was built with. */
  if (!running_installed() && g_file_test(RSP_SOURCE_PROBES_DIR, G_FILE_TEST_IS_DIR))
    g_ptr_array_add(dirs, g_strdup(RSP_SOURCE_PROBES_DIR));
#else
  (void)running_installed;
#endif
  g_ptr_array_add(dirs, g_strdup(RSP_PROBES_DIR));
  return dirs;
}

static char *find_in_dirs(const char *name, const char *first_dir)
{
  char *file = g_strconcat(name, ".probes", NULL);
  char *found = NULL;
  if (first_dir) {
    char *p = g_build_filename(first_dir, file, NULL);
    if (g_file_test(p, G_FILE_TEST_IS_REGULAR))
      found = p;
    else
      g_free(p);
  }
  if (!found) {
    GPtrArray *dirs = rsp_probe_search_path();
    for (guint i = 0; i < dirs->len && !found; i++) {
      char *p = g_build_filename(dirs->pdata[i], file, NULL);
      if (g_file_test(p, G_FILE_TEST_IS_REGULAR))
        found = p;
      else
        g_free(p);
    }
    g_ptr_array_unref(dirs);
  }
  g_free(file);
  return found;
}

static bool is_path(const char *s) { return strchr(s, '/') || g_str_has_suffix(s, ".probes"); }

typedef struct parser {
  rsp_probe_set *set;
  GHashTable *by_event; /* event -> rsp_probe* */
  GPtrArray *stack;     /* paths being read, for include cycles */
} parser;

static bool parse_text(parser *ps, const char *path, const char *text, bool top, GError **error);

static bool parse_file(parser *ps, const char *path, bool top, GError **error)
{
  char *text = NULL;
  GError *e = NULL;
  if (!g_file_get_contents(path, &text, NULL, &e)) {
    g_set_error(error, RSP_PROBES_ERROR, RSP_PROBES_ERROR_NOT_FOUND, "%s", e->message);
    g_error_free(e);
    return false;
  }
  bool ok = parse_text(ps, path, text, top, error);
  g_free(text);
  return ok;
}

static bool valid_event(const char *ev, bool need_rsp_group)
{
  const char *colon = strchr(ev, ':');
  if (!colon || colon == ev || !colon[1] || strchr(colon + 1, ':'))
    return false;
  for (const char *c = ev; *c; c++)
    if (!(g_ascii_isalnum(*c) || *c == '_' || *c == ':' || *c == '-' || *c == '.'))
      return false;
  return !need_rsp_group || g_str_has_prefix(ev, "rsp_");
}

static rsp_probe *add_probe(parser *ps, rsp_probe_kind kind, const char *event, const char *origin)
{
  rsp_probe *old = g_hash_table_lookup(ps->by_event, event);
  if (old)
    return old;
  rsp_probe *p = g_new0(rsp_probe, 1);
  p->kind = kind;
  p->event = g_strdup(event);
  const char *colon = strchr(event, ':');
  p->group = g_strndup(event, (gsize)(colon - event));
  p->name = g_strdup(colon + 1);
  p->origin = g_strdup(origin);
  g_ptr_array_add(ps->set->probes, p);
  g_hash_table_insert(ps->by_event, p->event, p);
  return p;
}

#define SYNTAX(...)                                                                              \
  do {                                                                                           \
    char *msg_ = g_strdup_printf(__VA_ARGS__);                                                   \
    g_set_error(error, RSP_PROBES_ERROR, RSP_PROBES_ERROR_SYNTAX, "%s:%u: %s", path, lineno,     \
                msg_);                                                                           \
    g_free(msg_);                                                                                \
    goto fail;                                                                                   \
  } while (0)

/* One probe line: KIND EVENT WORDS... */
static bool parse_probe(parser *ps, const char *path, unsigned lineno, char **tok, int ntok,
                        GError **error)
{
  const char *kw = tok[0];
  rsp_probe_kind kind = kw[0] == 't' ? RSP_PROBE_TRACEPOINT
                        : kw[0] == 'k' ? RSP_PROBE_KPROBE
                                       : RSP_PROBE_UPROBE;
  GPtrArray *words = g_ptr_array_new();
  GPtrArray *args = g_ptr_array_new();
  bool ftrace = false, fallback = false, nostack = false;
  if (ntok < 2 || !valid_event(tok[1], kind != RSP_PROBE_TRACEPOINT)) {
    if (kind == RSP_PROBE_TRACEPOINT)
      SYNTAX("\"tracepoint GROUP:NAME [ftrace] [fallback] [nostack]\"");
    SYNTAX("\"%s rsp_GROUP:NAME ...\": the probes rsp-record creates live in groups named rsp_*",
           kind == RSP_PROBE_KPROBE ? "kprobe" : "uprobe");
  }
  for (int i = 2; i < ntok; i++) {
    if (strcmp(tok[i], "ftrace") == 0)
      ftrace = true;
    else if (strcmp(tok[i], "fallback") == 0)
      fallback = true;
    else if (strcmp(tok[i], "nostack") == 0)
      nostack = true;
    else if (strchr(tok[i], '='))
      g_ptr_array_add(args, tok[i]);
    else
      g_ptr_array_add(words, tok[i]);
  }
  if (kind == RSP_PROBE_TRACEPOINT && (words->len || args->len))
    SYNTAX("unknown word \"%s\" (the flags of a tracepoint: ftrace, fallback, nostack)",
           (char *)(words->len ? words->pdata[0] : args->pdata[0]));
  if (kind == RSP_PROBE_KPROBE && words->len != 1)
    SYNTAX("\"kprobe rsp_GROUP:NAME FUNCTION [ARG=FETCHARG...] [ftrace]\"");
  if (kind == RSP_PROBE_UPROBE && (words->len != 2 || args->len))
    SYNTAX("\"uprobe rsp_GROUP:NAME LIBRARY FUNCTION [ftrace]\" (LIBRARY: libc or a path)");
  if (kind == RSP_PROBE_UPROBE && strcmp(words->pdata[0], "libc") != 0 &&
      !g_path_is_absolute(words->pdata[0]))
    SYNTAX("uprobe LIBRARY: \"libc\" or an absolute path");
  bool existed = g_hash_table_contains(ps->by_event, tok[1]);
  char origin[4200];
  g_snprintf(origin, sizeof origin, "%s:%u", path, lineno);
  rsp_probe *p = add_probe(ps, kind, tok[1], origin);
  if (existed && p->kind != kind)
    SYNTAX("%s is already defined as another kind of probe (%s)", p->event, p->origin);
  p->ftrace |= ftrace;
  /* a stack unless every definition says nostack */
  p->nostack = existed ? (p->nostack && nostack) : nostack;
  /* fallback only while every definition says so */
  p->fallback = existed ? (p->fallback && fallback) : fallback;
  if (!existed && kind == RSP_PROBE_KPROBE) {
    GString *t = g_string_new(words->pdata[0]);
    for (guint i = 0; i < args->len; i++)
      g_string_append_printf(t, " %s", (char *)args->pdata[i]);
    p->target = g_string_free(t, FALSE);
  } else if (!existed && kind == RSP_PROBE_UPROBE) {
    p->library = g_strdup(words->pdata[0]);
    p->target = g_strdup(words->pdata[1]);
  }
  g_ptr_array_unref(words);
  g_ptr_array_unref(args);
  return true;
fail:
  g_ptr_array_unref(words);
  g_ptr_array_unref(args);
  return false;
}

static bool parse_text(parser *ps, const char *path, const char *text, bool top, GError **error)
{
  char **lines = g_strsplit(text, "\n", -1);
  char *dir = g_path_get_dirname(path);
  bool seen_magic = false;
  int version = 0;
  bool ok = true;
  unsigned lineno = 0;
  char **tok = NULL;
  char *inc = NULL;
  g_ptr_array_add(ps->stack, g_strdup(path));
  for (char **l = lines; *l; l++) {
    lineno++;
    char *hash = strchr(*l, '#');
    if (hash)
      *hash = '\0';
    char *line = g_strstrip(*l);
    if (!*line)
      continue;
    int ntok = 0;
    g_clear_pointer(&tok, g_strfreev);
    if (!g_shell_parse_argv(line, &ntok, &tok, NULL))
      SYNTAX("unbalanced quotes");
    const char *kw = tok[0];
    if (!seen_magic) {
      if (strcmp(kw, "rsp-probes") != 0 || ntok != 2)
        SYNTAX("the first line must be \"rsp-probes %d\" (the format version)",
               RSP_PROBES_FORMAT_VERSION);
      int v = atoi(tok[1]);
      if (v < 1 || v > RSP_PROBES_FORMAT_VERSION)
        SYNTAX("format version %s: this rsp-record reads version %d", tok[1],
               RSP_PROBES_FORMAT_VERSION);
      seen_magic = true;
    } else if (strcmp(kw, "version") == 0) {
      char *end = NULL;
      long v = ntok == 2 ? strtol(tok[1], &end, 10) : -1;
      if (ntok != 2 || !end || *end || v < 0 || v > 1000000)
        SYNTAX("\"version N\": N is a non-negative integer");
      version = (int)v;
      if (top)
        ps->set->version = version;
    } else if (strcmp(kw, "description") == 0) {
      if (top) {
        g_free(ps->set->description);
        ps->set->description = g_strdup(g_strstrip(line + strlen("description")));
      }
    } else if (strcmp(kw, "include") == 0) {
      if (ntok != 2)
        SYNTAX("\"include SET\": one set name or path");
      if (is_path(tok[1]))
        inc = g_path_is_absolute(tok[1]) ? g_strdup(tok[1]) : g_build_filename(dir, tok[1], NULL);
      else
        inc = find_in_dirs(tok[1], dir);
      if (!inc || !g_file_test(inc, G_FILE_TEST_IS_REGULAR))
        SYNTAX("included set \"%s\" not found", tok[1]);
      for (guint i = 0; i < ps->stack->len; i++)
        if (strcmp(ps->stack->pdata[i], inc) == 0)
          SYNTAX("include cycle through %s", inc);
      if (ps->stack->len >= MAX_INCLUDE_DEPTH)
        SYNTAX("includes nested too deep");
      if (!parse_file(ps, inc, false, error)) {
        ok = false;
        break;
      }
      g_clear_pointer(&inc, g_free);
    } else if (strcmp(kw, "tracepoint") == 0 || strcmp(kw, "kprobe") == 0 ||
               strcmp(kw, "uprobe") == 0) {
      if (!parse_probe(ps, path, lineno, tok, ntok, error)) {
        ok = false;
        break;
      }
    } else if (strcmp(kw, "sampling") == 0) {
      ps->set->sampling = true;
      for (int i = 1; i < ntok; i++) {
        if (g_str_has_prefix(tok[i], "freq=")) {
          char *end = NULL;
          unsigned long f = strtoul(tok[i] + 5, &end, 10);
          if (!end || *end || f == 0 || f > 100000)
            SYNTAX("\"freq=N\": N in 1..100000 (Hz)");
          ps->set->sampling_freq = (unsigned)f;
        } else if (i == 1) {
          g_free(ps->set->sampling_event);
          ps->set->sampling_event = strcmp(tok[i], "auto") == 0 ? NULL : g_strdup(tok[i]);
        } else {
          SYNTAX("\"sampling [EVENT|auto] [freq=N]\"");
        }
      }
    } else {
      SYNTAX("unknown directive \"%s\" (rsp-probes, version, description, include, tracepoint, "
             "kprobe, uprobe, sampling)",
             kw);
    }
    continue;
  fail:
    ok = false;
    break;
  }
  g_clear_pointer(&tok, g_strfreev);
  g_clear_pointer(&inc, g_free);
  if (ok && !seen_magic) {
    g_set_error(error, RSP_PROBES_ERROR, RSP_PROBES_ERROR_SYNTAX,
                "%s: empty: a set starts with \"rsp-probes %d\"", path, RSP_PROBES_FORMAT_VERSION);
    ok = false;
  }
  if (ok) {
    char *base = g_path_get_basename(path);
    if (g_str_has_suffix(base, ".probes"))
      base[strlen(base) - strlen(".probes")] = '\0';
    g_ptr_array_add(ps->set->files, g_strdup_printf("%s %d", base, version));
    g_free(base);
  }
  g_free(g_ptr_array_steal_index(ps->stack, ps->stack->len - 1));
  g_free(dir);
  g_strfreev(lines);
  return ok;
}

static rsp_probe_set *set_new(const char *name, const char *path)
{
  rsp_probe_set *set = g_new0(rsp_probe_set, 1);
  set->name = g_strdup(name);
  set->path = g_strdup(path);
  set->probes = g_ptr_array_new_with_free_func(probe_free);
  set->files = g_ptr_array_new_with_free_func(g_free);
  return set;
}

static rsp_probe_set *finish(parser *ps, bool ok)
{
  g_hash_table_unref(ps->by_event);
  g_ptr_array_unref(ps->stack);
  if (!ok) {
    rsp_probe_set_free(ps->set);
    return NULL;
  }
  /* the top file is read last: put it first */
  GPtrArray *f = ps->set->files;
  if (f->len > 1) {
    gpointer top = g_ptr_array_steal_index(f, f->len - 1);
    g_ptr_array_insert(f, 0, top);
  }
  return ps->set;
}

rsp_probe_set *rsp_probe_set_parse(const char *name, const char *path, const char *text,
                                   GError **error)
{
  parser ps = {set_new(name, path), g_hash_table_new(g_str_hash, g_str_equal),
               g_ptr_array_new_with_free_func(g_free)};
  bool ok = parse_text(&ps, path, text, true, error);
  return finish(&ps, ok);
}

rsp_probe_set *rsp_probe_set_load(const char *name_or_path, GError **error)
{
  char *path = NULL;
  if (is_path(name_or_path))
    path = g_strdup(name_or_path);
  else
    path = find_in_dirs(name_or_path, NULL);
  if (!path || !g_file_test(path, G_FILE_TEST_EXISTS)) {
    GPtrArray *dirs = rsp_probe_search_path();
    g_ptr_array_add(dirs, NULL);
    char *where = g_strjoinv(", ", (char **)dirs->pdata);
    if (is_path(name_or_path))
      g_set_error(error, RSP_PROBES_ERROR, RSP_PROBES_ERROR_NOT_FOUND, "probe set %s: %s",
                  name_or_path, g_strerror(ENOENT));
    else
      g_set_error(error, RSP_PROBES_ERROR, RSP_PROBES_ERROR_NOT_FOUND,
                  "no probe set \"%s\" (looked for %s.probes in %s; rsp-record --list-probes "
                  "lists the sets)",
                  name_or_path, name_or_path, where);
    g_free(where);
    g_ptr_array_unref(dirs);
    g_free(path);
    return NULL;
  }
  parser ps = {set_new(name_or_path, path), g_hash_table_new(g_str_hash, g_str_equal),
               g_ptr_array_new_with_free_func(g_free)};
  bool ok = parse_file(&ps, path, true, error);
  g_free(path);
  return finish(&ps, ok);
}

static gint cmp_str(gconstpointer a, gconstpointer b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

GPtrArray *rsp_probe_list_sets(void)
{
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  GPtrArray *dirs = rsp_probe_search_path();
  for (guint i = 0; i < dirs->len; i++) {
    GDir *d = g_dir_open(dirs->pdata[i], 0, NULL);
    if (!d)
      continue;
    const char *f;
    while ((f = g_dir_read_name(d))) {
      if (!g_str_has_suffix(f, ".probes"))
        continue;
      char *name = g_strndup(f, strlen(f) - strlen(".probes"));
      if (g_hash_table_contains(seen, name)) {
        g_free(name);
        continue;
      }
      char *path = g_build_filename(dirs->pdata[i], f, NULL);
      GError *e = NULL;
      rsp_probe_set *set = rsp_probe_set_load(path, &e);
      if (set)
        g_ptr_array_add(out, g_strdup_printf("%s\t%d\t%s\t%s", name, set->version,
                                             set->description ? set->description : "", path));
      else
        g_ptr_array_add(out, g_strdup_printf("%s\t?\t(unreadable: %s)\t%s", name, e->message, path));
      g_clear_error(&e);
      rsp_probe_set_free(set);
      g_free(path);
      g_hash_table_add(seen, name);
    }
    g_dir_close(d);
  }
  g_ptr_array_unref(dirs);
  g_hash_table_unref(seen);
  g_ptr_array_sort(out, cmp_str);
  return out;
}
