/* How a pseudo-stack layer's frames look (colour, base label, search), shared by the flame view
 * and the consolidated flame view; the layer's stack itself is analysis/layer-columns.c. */
#include "render/render-private.h"

#include <stdio.h>
#include <string.h>

rsp_rgb rsp_frame_colour(unsigned kinds, const rsp_style *style)
{
  if (kinds & RSP_FRAME_PROCESS)
    return style->process_bg;
  if (kinds & RSP_FRAME_KWORK)
    return style->kwork;
  bool off_cpu = kinds & (RSP_FRAME_SLEEP | RSP_FRAME_IO | RSP_FRAME_NET);
  if ((kinds & RSP_FRAME_RUN) && off_cpu)
    return style->both;
  if (kinds & RSP_FRAME_RUN)
    return style->run;
  if (kinds & RSP_FRAME_SLEEP)
    return style->sleep;
  if (kinds & RSP_FRAME_IO)
    return style->io;
  if (kinds & RSP_FRAME_NET)
    return style->net;
  return style->sleep;
}

const char *rsp_layer_base_label(const rsp_model *m, const rsp_path_elem *e, char *buf, size_t size)
{
  if (e->kind == RSP_ELEM_DISK)
    return "disk";
  if (e->kind == RSP_ELEM_NET)
    return "network";
  const rsp_task *t = rsp_model_task(m, e->task);
  snprintf(buf, size, "%s %d", t->comm, t->tid);
  return buf;
}

bool rsp_label_matches(const char *label, const char *needle)
{
  if (!label || !needle || !*needle)
    return false;
  size_t nl = strlen(needle);
  for (const char *p = label; *p; p++)
    if (!g_ascii_strncasecmp(p, needle, nl))
      return true;
  return false;
}
