/* The view's colours and metrics. Colours follow the paper (Figure "Process Running View" and the
 * flame views): runs red, sleeps blue, run and sleep together purple, process names grey,
 * blocking I/O green. */
#include "render/render-private.h"

#include <math.h>

#include <stdio.h>

static const rsp_style default_style = {
  .background = { 1.0, 1.0, 1.0 },
  .row_alt = { 0.965, 0.965, 0.975 },
  .label_bg = { 0.93, 0.93, 0.93 },
  .text = { 0.1, 0.1, 0.1 },
  .process_bg = { 0.80, 0.80, 0.80 },
  .process_text = { 0.35, 0.35, 0.35 },
  .run = { 0.85, 0.10, 0.10 },
  .sleep = { 0.55, 0.70, 0.95 },
  .both = { 0.55, 0.20, 0.65 },
  .io = { 0.20, 0.65, 0.25 },
  .disk = { 0.05, 0.45, 0.10 },  /* a disk request in flight (insert to completion) */
  .net = { 0.0, 0.55, 0.60 },    /* a network operation (last send to the reply's wakeup) */
  .kwork = { 0.96, 0.70, 0.30 }, /* kernel work done for a process by interrupts and kernel threads */
  .link = { 0.25, 0.25, 0.25 },
  .link_wakeup = { 0.95, 0.55, 0.0 },
  .ruler_bg = { 0.88, 0.88, 0.90 },
  .ruler_text = { 0.15, 0.15, 0.15 },
  .grid = { 0.82, 0.82, 0.86 },
  .match = { 1.0, 0.85, 0.0 },
  .selection = { 0.30, 0.50, 0.90 },
  .row_height = 14,
  .label_width = 180,
  .ruler_height = 24,
  .font_size = 10.0,
};

const rsp_style *rsp_style_default(void)
{
  return &default_style;
}

const char *rsp_rgb_to_hex(rsp_rgb c, char buf[8])
{
  snprintf(buf, 8, "#%02x%02x%02x", (unsigned)(c.r * 255 + 0.5), (unsigned)(c.g * 255 + 0.5),
           (unsigned)(c.b * 255 + 0.5));
  return buf;
}

double rsp_text_baseline(cairo_t *cr, double height)
{
  cairo_text_extents_t e;
  cairo_text_extents(cr, "Hg_", &e); /* capitals' top (y_bearing < 0) to descenders' and underscores' bottom */
  return floor((height - e.height) / 2 - e.y_bearing + 0.5);
}
