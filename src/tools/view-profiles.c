/* rsp-view --export --histogram / --heatmap / --diff: builds the latency profiles (src/analysis)
 * and draws them with src/render into PNG or SVG. */
#include "view-profiles.h"

#include "render/render.h"

#include <stdio.h>
#include <string.h>

static rsp_model *load(const char *path)
{
  g_autoptr(GError) error = NULL;
  rsp_model *m = rsp_model_load(path, NULL, &error);
  if (!m)
    fprintf(stderr, "rsp-view: %s\n", error->message);
  return m;
}

/* The profile of CLASS with the largest total latency (of process PID when PID >= 0), or NULL
 * after listing some classes there are. */
static const rsp_profile *find_class(const rsp_profile_set *set, const char *file, const char *cls, int32_t pid)
{
  for (uint32_t i = 0; i < rsp_profile_set_n(set); i++) {
    const rsp_profile *p = rsp_profile_set_get(set, i);
    if (!strcmp(p->name, cls) && (pid < 0 || p->pid == pid))
      return p;
  }
  fprintf(stderr, "rsp-view: %s: no profile of class '%s'%s", file, cls, pid >= 0 ? " for that pid" : "");
  GHashTable *said = g_hash_table_new(g_str_hash, g_str_equal);
  for (uint32_t i = 0; i < rsp_profile_set_n(set) && g_hash_table_size(said) < 12; i++) {
    const char *name = rsp_profile_set_get(set, i)->name;
    if (g_hash_table_add(said, (gpointer)name))
      fprintf(stderr, "%s'%s'", g_hash_table_size(said) > 1 ? ", " : "; the largest: ", name);
  }
  g_hash_table_destroy(said);
  fprintf(stderr, "\n");
  return NULL;
}

typedef struct profile_drawing {
  const rsp_profile *p;
  const rsp_characteristic_times *times;
  const rsp_profile_timeline *timeline; /* the heat map, or NULL: the histogram */
  const char *file;
} profile_drawing;

enum { TITLE_H = 22 };

static void draw_title(cairo_t *cr, const char *text)
{
  cairo_save(cr);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size(cr, 12);
  cairo_move_to(cr, 8, 15);
  cairo_show_text(cr, text);
  cairo_restore(cr);
}

static char *profile_title(const rsp_profile *p, const char *file)
{
  char total[32];
  rsp_profile_format_ns(p->total_ns, total, sizeof total);
  if (p->pid >= 0)
    return g_strdup_printf("%s: %s, %s [%d]: %" G_GUINT64_FORMAT " ops, %s", file, p->name, p->process, p->pid,
                           p->count, total);
  return g_strdup_printf("%s: %s, %s: %" G_GUINT64_FORMAT " ops, %s", file, p->name,
                         strcmp(p->process, "*") ? p->process : "system-wide", p->count, total);
}

static void draw_profile(cairo_t *cr, int width, int height, void *data)
{
  profile_drawing *d = data;
  g_autofree char *title = profile_title(d->p, d->file);
  draw_title(cr, title);
  cairo_save(cr);
  cairo_translate(cr, 0, TITLE_H);
  if (d->timeline)
    rsp_heat_map_draw(cr, width, height - TITLE_H, d->timeline, d->p->resolution, NULL);
  else
    rsp_histogram_view_draw(cr, width, height - TITLE_H, d->p, d->times, NULL);
  cairo_restore(cr);
}

int view_export_profile(const char *file, const view_profile_args *a)
{
  rsp_model *m = load(file);
  if (!m)
    return 1;
  int rc = 1;
  g_autoptr(GError) error = NULL;
  rsp_profile_options o = { .resolution = a->resolution, .pid = a->pid, .system_wide = a->pid < 0 };
  rsp_profile_set *set = rsp_profile_set_build(m, &o, &error);
  if (!set) {
    fprintf(stderr, "rsp-view: %s: %s\n", file, error->message);
    rsp_model_free(m);
    return 1;
  }
  const rsp_profile *p = find_class(set, file, a->heatmap ? a->heatmap : a->histogram, a->pid);
  if (p) {
    rsp_characteristic_times times;
    rsp_characteristic_times_measure(m, &times);
    rsp_profile_timeline *tl = a->heatmap ? rsp_profile_timeline_build(m, p, a->slice_ns) : NULL;
    profile_drawing d = { p, &times, tl, file };
    int width = a->width > 0 ? a->width : 1000, height = a->height;
    if (height <= 0)
      height = tl ? (int)CLAMP(TITLE_H + 70 + 14 * tl->n_slices, 320, 4000) : 420;
    char **warnings = rsp_model_loss_warnings(m);
    if (a->height <= 0) /* room for the banner of warnings */
      height += (int)g_strv_length(warnings) * 14 + (warnings && *warnings ? 4 : 0);
    g_strfreev(warnings);
    if (rsp_export_drawing(width, height, draw_profile, &d, m, a->out, &error))
      rc = 0;
    else
      fprintf(stderr, "rsp-view: %s\n", error->message);
    rsp_profile_timeline_free(tl);
  }
  rsp_profile_set_free(set);
  rsp_model_free(m);
  return rc;
}

/* ---- --diff A B --export ------------------------------------------------------------------------ */

typedef struct diff_drawing {
  const rsp_profile_diff *diff;
  int32_t selected;
  const char *file_a, *file_b;
  bool normalized;
} diff_drawing;

enum { OVERLAY_H = 360 };

static void draw_diff(cairo_t *cr, int width, int height, void *data)
{
  diff_drawing *d = data;
  g_autofree char *a_name = g_path_get_basename(d->file_a), *b_name = g_path_get_basename(d->file_b);
  const rsp_profile_pair *pair = d->selected >= 0 ? &d->diff->pairs[d->selected] : NULL;
  const rsp_profile *any = pair ? (pair->a ? pair->a : pair->b) : NULL;
  g_autofree char *title =
      any ? g_strdup_printf("A %s vs B %s: #%d %s (%s), distance %.3f", a_name, b_name, d->selected + 1, any->name,
                            strcmp(any->process, "*") ? any->process : "system-wide", pair->distance)
          : g_strdup_printf("A %s vs B %s: no pair differs enough to rank", a_name, b_name);
  draw_title(cr, title);
  cairo_save(cr);
  cairo_translate(cr, 0, TITLE_H);
  rsp_histogram_compare_draw(cr, width, OVERLAY_H, pair ? pair->a : NULL, pair ? pair->b : NULL, a_name, b_name,
                             d->normalized, NULL);
  cairo_translate(cr, 0, OVERLAY_H);
  rsp_profile_diff_table_draw(cr, width, height - TITLE_H - OVERLAY_H, d->diff, 0, d->selected, NULL);
  cairo_restore(cr);
}

int view_export_diff(const char *file_a, const char *file_b, const view_profile_args *a)
{
  rsp_model *ma = load(file_a), *mb = ma ? load(file_b) : NULL;
  if (!ma || !mb) {
    rsp_model_free(ma);
    return 1;
  }
  int rc = 1;
  g_autoptr(GError) error = NULL;
  int32_t wa = rsp_metadata_workload_pid_of(file_a), wb = rsp_metadata_workload_pid_of(file_b);
  bool scoped = wa >= 0 && wb >= 0;
  rsp_profile_options po = { .resolution = a->resolution, .pid = -1, .system_wide = !scoped, .by_command = true,
                             .workload_only = scoped, .workload_pid = wa };
  rsp_profile_set *sa = rsp_profile_set_build(ma, &po, &error), *sb = NULL;
  po.workload_pid = wb;
  if (sa)
    sb = rsp_profile_set_build(mb, &po, &error);
  if (!sa || !sb) {
    fprintf(stderr, "rsp-view: %s: %s\n", sa ? file_b : file_a, error->message);
  } else {
    rsp_profile_diff *diff = rsp_profile_diff_compute(sa, sb, NULL);
    int32_t selected = diff->n_pairs ? 0 : -1;
    if (a->histogram) {
      selected = -1;
      for (uint32_t i = 0; i < diff->n_pairs && selected < 0; i++) {
        const rsp_profile *any = diff->pairs[i].a ? diff->pairs[i].a : diff->pairs[i].b;
        if (!strcmp(any->name, a->histogram))
          selected = (int32_t)i;
      }
      if (selected < 0)
        fprintf(stderr, "rsp-view: no ranked pair of class '%s' between %s and %s\n", a->histogram, file_a, file_b);
    }
    if (selected >= 0 || !a->histogram) {
      diff_drawing d = { diff, selected, file_a, file_b, a->normalized };
      int width = a->width > 0 ? a->width : 1200;
      int rows = (int)MIN(MAX(diff->n_pairs, 1), 20) + 1;
      int height = a->height > 0 ? a->height : TITLE_H + OVERLAY_H + (int)(rows * 1.5 * 10 + 6);
      if (rsp_export_drawing(width, height, draw_diff, &d, NULL, a->out, &error))
        rc = 0;
      else
        fprintf(stderr, "rsp-view: %s\n", error->message);
    }
    rsp_profile_diff_free(diff);
  }
  rsp_profile_set_free(sa);
  rsp_profile_set_free(sb);
  rsp_model_free(ma);
  rsp_model_free(mb);
  return rc;
}
