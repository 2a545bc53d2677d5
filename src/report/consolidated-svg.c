/* The Consolidated Flame View as SVG (paper, "Consolidated Flame View"): the control paths'
 * pseudo-stacks merged and sorted longest first, level by level (analysis: rsp_stack_tree), placed as
 * render/consolidated-view.c places them: a frame takes the room of its duration or of its children,
 * whichever is longer, children side by side from their parent's left edge. x is accumulated
 * duration; a frame is exactly as wide as its duration. Each frame is a nested <svg> (which clips)
 * holding its rectangle and its label as <text>, with a <title> tooltip: the page's search and the
 * browser's find see the names. */
#include "report/report-private.h"

#include "render/render.h"

#include <inttypes.h>
#include <string.h>

enum { ROW_H = 16, TOP = 4, RULER_H = 24, MAX_ROWS = 160, MAX_FRAMES = 40000 };


/* The labels from the root down to ID joined by ';' (as folded stacks write them, unsanitized). */
static void stack_of(const rsp_stack_tree *tree, uint32_t id, GString *s)
{
  GPtrArray *chain = g_ptr_array_new();
  for (uint32_t x = id; x != RSP_NO_ID; x = rsp_stack_tree_node(tree, x)->parent)
    g_ptr_array_add(chain, (gpointer)rsp_stack_tree_node(tree, x)->label);
  g_string_truncate(s, 0);
  for (guint k = chain->len; k-- > 0;) {
    if (s->len)
      g_string_append_c(s, ';');
    g_string_append(s, g_ptr_array_index(chain, k));
  }
  g_ptr_array_free(chain, TRUE);
}

uint32_t rsp_report_consolidated_svg(FILE *out, const rsp_paths *paths, const rsp_kernel_work *kw, int width)
{
  /* with the kernel work done for the paths' processes, as rsp-view's consolidated view draws it */
  rsp_stack_tree *tree = rsp_stack_tree_build_kwork(paths, kw, 0, UINT64_MAX, 0);
  uint32_t n = 0;
  uint32_t *order = rsp_stack_tree_preorder(tree, &n);
  rsp_stack_place *at = g_new0(rsp_stack_place, n ? n : 1);
  uint64_t total = rsp_stack_tree_layout(tree, order, n, at);
  uint32_t max_depth = rsp_stack_tree_max_depth(tree);
  uint32_t rows = MIN(max_depth + 1, (uint32_t)MAX_ROWS);
  double scale = total ? (double)width / (double)total : 0;
  int height = TOP + (int)rows * ROW_H + RULER_H;
  fprintf(out,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"view flame\" id=\"consolidated-svg\" width=\"%d\" "
          "height=\"%d\" viewBox=\"0 0 %d %d\" data-total-ns=\"%" PRIu64 "\" data-plot-width=\"%d\">\n",
          width, height, width, height, total, width);
  rsp_report_svg_ruler(out, total, 0, width - 1, TOP + (int)rows * ROW_H + 2, true); /* under the roots */
  GString *stack = g_string_new(NULL);
  uint32_t written = 0, skipped_deep = 0;
  /* pre-order: a node whose room is under a quarter pixel has all its subtree there too */
  for (uint32_t k = 0; k < n && total; k++) {
    uint32_t id = order[k];
    const rsp_stack_node *node = rsp_stack_tree_node(tree, id);
    double w = (double)node->ns * scale;
    if ((double)at[id].slot * scale < 0.25 || w < 0.1)
      continue;
    if (node->depth >= rows) {
      skipped_deep++;
      continue;
    }
    if (written >= MAX_FRAMES)
      break;
    written++;
    double x = (double)at[id].x * scale;
    double y = TOP + (double)(rows - 1 - node->depth) * ROW_H;
    char fill[8], dur[48];
    stack_of(tree, id, stack);
    rsp_format_duration(node->ns, dur, sizeof dur);
    fprintf(out, "<g class=\"f\" data-ns=\"%" PRIu64 "\" data-stack=\"", node->ns);
    rsp_html_escape(out, stack->str);
    fprintf(out, "\"><title>");
    rsp_html_escape(out, node->label);
    fprintf(out, ": %s, %.1f%%", dur, total ? 100.0 * (double)node->ns / (double)total : 0.0);
    if (node->n_merged > 1)
      fprintf(out, " (%u frames merged)", node->n_merged);
    fprintf(out, "</title><svg x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\"><rect width=\"100%%\" "
                 "height=\"%d\" y=\"1\" fill=\"%s\"/>",
            x, y, w, ROW_H, ROW_H - 2, rsp_report_frame_fill(node->kinds, fill));
    if (w >= 2) {
      bool light = (node->kinds & RSP_FRAME_RUN) && !(node->kinds & RSP_FRAME_PROCESS);
      fprintf(out, "<text x=\"3\" y=\"12\"%s>", light ? " class=\"light\"" : "");
      rsp_html_escape(out, node->label);
      fprintf(out, "</text>");
    }
    fprintf(out, "</svg></g>\n");
  }
  fprintf(out, "</svg>\n");
  g_string_free(stack, TRUE);
  g_free(at);
  g_free(order);
  rsp_stack_tree_free(tree);
  return skipped_deep;
}
