/* Headless export of a view to PNG or SVG (cairo image/SVG surfaces: no display needed), with
 * the model's loss warnings as a banner at the bottom so a report cannot hide them. */
#include "render/render.h"

#include <cairo-svg.h>
#include <gio/gio.h>
#include <string.h>

static void draw_banner(cairo_t *cr, const rsp_viewport *vp, const rsp_style *style, char **warnings)
{
  int n = 0;
  for (char **w = warnings; w && *w; w++)
    n++;
  if (!n)
    return;
  double lh = style->font_size + 4, h = n * lh + 4;
  cairo_save(cr);
  cairo_set_source_rgb(cr, 1.0, 0.93, 0.70);
  cairo_rectangle(cr, 0, vp->height - h, vp->width, h);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, 0.45, 0.25, 0.0);
  cairo_set_font_size(cr, style->font_size);
  for (int i = 0; i < n; i++) {
    cairo_move_to(cr, 4, vp->height - h + (i + 1) * lh);
    cairo_show_text(cr, warnings[i]);
  }
  cairo_restore(cr);
}

typedef void (*draw_fn)(void *view, cairo_t *cr, const rsp_viewport *vp, const rsp_style *style);

static bool export_drawing(void *view, draw_fn draw, const rsp_model *model, const rsp_viewport *vp,
                           const rsp_style *style, const char *path, GError **error)
{
  bool svg = g_str_has_suffix(path, ".svg") || g_str_has_suffix(path, ".SVG");
  bool png = g_str_has_suffix(path, ".png") || g_str_has_suffix(path, ".PNG");
  if (!svg && !png) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s: the export's name must end in .png or .svg",
                path);
    return false;
  }
  cairo_surface_t *surface = svg ? cairo_svg_surface_create(path, vp->width, vp->height)
                                 : cairo_image_surface_create(CAIRO_FORMAT_RGB24, vp->width, vp->height);
  if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s", path,
                cairo_status_to_string(cairo_surface_status(surface)));
    cairo_surface_destroy(surface);
    return false;
  }
  cairo_t *cr = cairo_create(surface);
  draw(view, cr, vp, style);
  char **warnings = model ? rsp_model_loss_warnings(model) : NULL;
  draw_banner(cr, vp, style, warnings);
  g_strfreev(warnings);
  cairo_status_t st = cairo_status(cr);
  cairo_destroy(cr);
  if (png && st == CAIRO_STATUS_SUCCESS)
    st = cairo_surface_write_to_png(surface, path);
  cairo_surface_finish(surface);
  if (st == CAIRO_STATUS_SUCCESS)
    st = cairo_surface_status(surface);
  cairo_surface_destroy(surface);
  if (st != CAIRO_STATUS_SUCCESS) {
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s", path, cairo_status_to_string(st));
    return false;
  }
  return true;
}

static void draw_running(void *view, cairo_t *cr, const rsp_viewport *vp, const rsp_style *style)
{
  rsp_running_view_draw(view, cr, vp, style);
}

static void draw_flame(void *view, cairo_t *cr, const rsp_viewport *vp, const rsp_style *style)
{
  rsp_flame_view_draw(view, cr, vp, style);
}

bool rsp_export_running_view(rsp_running_view *view, const rsp_viewport *vp, const rsp_style *style,
                             const char *path, GError **error)
{
  return export_drawing(view, draw_running, rsp_running_view_model(view), vp, style, path, error);
}

bool rsp_export_flame_view(rsp_flame_view *view, const rsp_model *model, const rsp_viewport *vp,
                           const rsp_style *style, const char *path, GError **error)
{
  return export_drawing(view, draw_flame, model, vp, style, path, error);
}

static void draw_consolidated(void *view, cairo_t *cr, const rsp_viewport *vp, const rsp_style *style)
{
  rsp_consolidated_view_draw(view, cr, vp, style);
}

bool rsp_export_consolidated_view(rsp_consolidated_view *view, const rsp_model *model, const rsp_viewport *vp,
                                  const rsp_style *style, const char *path, GError **error)
{
  return export_drawing(view, draw_consolidated, model, vp, style, path, error);
}

typedef struct custom_drawing {
  rsp_export_draw_fn draw;
  void *data;
} custom_drawing;

static void draw_custom(void *view, cairo_t *cr, const rsp_viewport *vp, const rsp_style *style)
{
  custom_drawing *d = view;
  d->draw(cr, vp->width, vp->height, d->data);
}

bool rsp_export_drawing(int width, int height, rsp_export_draw_fn draw, void *data, const rsp_model *model,
                        const char *path, GError **error)
{
  custom_drawing d = { draw, data };
  rsp_viewport vp = { .t0 = 0, .t1 = 1, .width = width, .height = height };
  return export_drawing(&d, draw_custom, NULL, &vp, rsp_style_default(), path, error);
}
