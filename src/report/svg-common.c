/* What the report's parts share: HTML escaping, the frames' colours (the views' style), a time axis. */
#include "report/report-private.h"

#include "render/render.h"

#include <math.h>

void rsp_html_escape(FILE *out, const char *s)
{
  for (const char *c = s ? s : ""; *c; c++) {
    switch (*c) {
    case '&': fputs("&amp;", out); break;
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '"': fputs("&quot;", out); break;
    case '\'': fputs("&#39;", out); break;
    default:
      /* control characters are not allowed in HTML text */
      if ((unsigned char)*c < 0x20 && *c != '\n' && *c != '\t')
        fputc('?', out);
      else
        fputc(*c, out);
    }
  }
}

const char *rsp_report_frame_fill(unsigned kinds, char buf[8])
{
  const rsp_style *s = rsp_style_default();
  rsp_rgb c = s->sleep;
  bool off_cpu = kinds & (RSP_FRAME_SLEEP | RSP_FRAME_IO | RSP_FRAME_NET);
  if (kinds & RSP_FRAME_PROCESS)
    c = s->process_bg;
  else if (kinds & RSP_FRAME_KWORK)
    c = s->kwork;
  else if ((kinds & RSP_FRAME_RUN) && off_cpu)
    c = s->both;
  else if (kinds & RSP_FRAME_RUN)
    c = s->run;
  else if (kinds & RSP_FRAME_SLEEP)
    c = s->sleep;
  else if (kinds & RSP_FRAME_IO)
    c = s->io;
  else if (kinds & RSP_FRAME_NET)
    c = s->net;
  return rsp_rgb_to_hex(c, buf);
}

void rsp_report_svg_ruler(FILE *out, uint64_t span_ns, double x0, double width, double y, bool below)
{
  if (!span_ns || width <= 0)
    return;
  /* a step of 1, 2 or 5 times a power of ten giving at most ~10 ticks */
  double raw = (double)span_ns / 10.0, p = pow(10, floor(log10(raw)));
  double step = raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
  uint64_t st = step < 1 ? 1 : (uint64_t)step;
  fprintf(out, "<g class=\"ruler\">");
  for (uint64_t t = 0; t <= span_ns; t += st) {
    double x = x0 + width * (double)t / (double)span_ns;
    char buf[64];
    rsp_format_tick(t, st, span_ns, buf, sizeof buf);
    /* above the drawing: the label, then the tick down to it; below: the tick, then the label */
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, below ? y : y + 12, x, below ? y + 6 : y + 18);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\"%s>", x, below ? y + 17 : y + 10,
            t == 0 ? "" : x > x0 + width - 40 ? " text-anchor=\"end\"" : " text-anchor=\"middle\"");
    rsp_html_escape(out, buf);
    fprintf(out, "</text>");
  }
  fprintf(out, "</g>\n");
}
