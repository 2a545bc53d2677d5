/* The largest latency profiles of the process of interest (OSprof, analysis/latency-profile.c) as SVG
 * bars, as render/histogram-view.c draws them: log2 buckets across, log10(1 + count) up, each bar
 * stacked by the causes of its instances in the histogram view's colours; the counts, the buckets'
 * bounds and the title as <text>, each bar's detail as a <title> tooltip; the peaks and the causes'
 * legend in the caption. */
#include "report/report-private.h"

#include "render/render.h"

#include <inttypes.h>
#include <math.h>

enum { H = 220, LEFT = 14, RIGHT = 10, TOP = 48, BOTTOM = 36, MAX_BAR = 40 };

static const char *cause_fill(rsp_category c, char buf[8])
{
  double r, g, b;
  rsp_histogram_cause_color(c, &r, &g, &b);
  return rsp_rgb_to_hex((rsp_rgb){ r, g, b }, buf);
}

static void histogram(FILE *out, const rsp_model *m, const rsp_profile *p, int width)
{
  char a[48], b[48], avg[48], fill[8];
  double pw = width - LEFT - RIGHT, ph = H - TOP - BOTTOM;
  uint64_t max = 0;
  bool used[RSP_N_CATEGORIES] = { false };
  for (uint32_t i = 0; i < p->n_buckets; i++) {
    max = MAX(max, p->buckets[i].count);
    for (int c = 0; c < RSP_N_CATEGORIES; c++)
      used[c] |= p->buckets[i].causes[c] > 0;
  }
  fprintf(out, "<figure class=\"histogram\"><svg xmlns=\"http://www.w3.org/2000/svg\" class=\"view hist\" width=\"%d\" "
               "height=\"%d\" viewBox=\"0 0 %d %d\">\n",
          width, H, width, H);
  fprintf(out, "<text class=\"htitle\" x=\"%d\" y=\"14\">", LEFT);
  rsp_html_escape(out, p->name);
  fprintf(out, "</text><text class=\"hsub\" x=\"%d\" y=\"28\">", LEFT);
  rsp_html_escape(out, p->process);
  fprintf(out, " %" PRId32 ": %" PRIu64 " op%s, total %s</text>\n", p->pid, p->count, p->count == 1 ? "" : "s",
          rsp_profile_format_ns(p->total_ns, a, sizeof a));
  fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", LEFT, TOP + ph, LEFT + pw, TOP + ph);
  /* a few buckets make narrow bars at the left, not bars as wide as the plot */
  double bw = p->n_buckets ? MIN(pw / p->n_buckets, (double)MAX_BAR) : pw;
  uint32_t every = p->n_buckets > 8 ? (p->n_buckets + 7) / 8 : 1;
  for (uint32_t i = 0; i < p->n_buckets; i++) {
    const rsp_profile_bucket *bk = &p->buckets[i];
    double x = LEFT + i * bw;
    if (bk->count) {
      double h = max ? ph * log10(1 + (double)bk->count) / log10(1 + (double)max) : 0;
      double y = TOP + ph;
      fprintf(out, "<g class=\"bar\"><title>[%s, %s): %" PRIu64 " op%s", rsp_profile_format_ns(bk->lo_ns, a, sizeof a),
              rsp_profile_format_ns(bk->hi_ns, b, sizeof b), bk->count, bk->count == 1 ? "" : "s");
      for (int c = 0; c < RSP_N_CATEGORIES; c++)
        if (bk->causes[c])
          fprintf(out, ", %s %" PRIu64, rsp_profile_cause_key((rsp_category)c), bk->causes[c]);
      fprintf(out, "</title>");
      for (int c = 0; c < RSP_N_CATEGORIES; c++) {
        if (!bk->causes[c])
          continue;
        double sh = h * (double)bk->causes[c] / (double)bk->count;
        y -= sh;
        fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>", x + 1, y,
                MAX(bw - 2, 1), sh, cause_fill((rsp_category)c, fill));
      }
      fprintf(out, "<text class=\"count\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%" PRIu64 "</text></g>\n",
              x + bw / 2, y - 3, bk->count);
    }
    if (i % every == 0)
      fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x, TOP + ph + 14,
              rsp_profile_format_ns(bk->lo_ns, a, sizeof a));
  }
  fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">latency (log2 buckets), "
               "count (log)</text>\n</svg>\n<figcaption>",
          LEFT + pw, TOP + ph + 30);
  for (uint32_t k = 0; k < p->n_peaks; k++) {
    const rsp_profile_peak *pk = &p->peaks[k];
    fprintf(out, "<span class=\"peak\">peak %u: %" PRIu64 " op%s in [%s, %s), %s on average, mostly %s", k + 1, pk->count,
            pk->count == 1 ? "" : "s",
            rsp_profile_format_ns(pk->lo_ns, a, sizeof a), rsp_profile_format_ns(pk->hi_ns, b, sizeof b),
            rsp_profile_format_ns(pk->avg_ns, avg, sizeof avg),
            rsp_category_label((rsp_category)pk->cause));
    if (pk->waker != RSP_NO_ID) {
      fprintf(out, " (woken by ");
      rsp_html_escape(out, rsp_model_task(m, pk->waker)->comm);
      fprintf(out, ")");
    }
    fprintf(out, "</span> ");
  }
  for (int c = 0; c < RSP_N_CATEGORIES; c++)
    if (used[c])
      fprintf(out, "<span class=\"legend\"><i style=\"background:%s\"></i>%s</span> ", cause_fill((rsp_category)c, fill),
              rsp_category_label((rsp_category)c));
  fprintf(out, "</figcaption></figure>\n");
}

uint32_t rsp_report_histograms(FILE *out, const rsp_model *m, int32_t pid, uint32_t max, int width)
{
  rsp_profile_options o = { .resolution = 1, .pid = pid };
  rsp_profile_set *set = rsp_profile_set_build(m, &o, NULL);
  if (!set)
    return 0;
  uint32_t n = MIN(max, rsp_profile_set_n(set));
  for (uint32_t i = 0; i < n; i++)
    histogram(out, m, rsp_profile_set_get(set, i), width);
  rsp_profile_set_free(set);
  return n;
}
