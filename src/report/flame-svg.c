/* The Flame View as SVG (paper, "Flame View"): each control path a band, each pseudo-stack layer drawn
 * as its stack (its process's row, then its functions, outermost first) standing on the sleep it
 * ended, x = time, laid out as render/flame-view.c lays it out. Adjacent equal frames (the same
 * function with the same frames below it, through the layers underneath) closer than half a pixel
 * are one frame; frames under a third of a pixel are left out. Labels are <text>, tooltips <title>. Under the
 * paths, a band per process they serve with the kernel work done for it that they do not draw, where it ran
 * ("kernel work for X", its doer above), as render/flame-view.c draws it. */
#include "report/report-private.h"

#include "render/render.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ROW_H = 16, TOP = 4, RULER_H = 24, LABEL_W = 170, MAX_ROWS = 320, MAX_FRAMES = 60000 };
/* Paths of more frames than this are merged as they come (add_cell). */
#define EARLY_FRAMES 4000000ull

typedef struct cell {
  uint64_t start, end, key;
  const char *label;
  uint8_t kinds;
} cell;

static uint64_t mix(uint64_t a, uint64_t b)
{
  uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

typedef struct build {
  GArray **rows;   /* per row: cells */
  int n_rows;
  uint64_t gap;    /* half a pixel: closer equal frames are one */
  bool early;      /* merged as they come (add_cell) */
  int32_t base_row;
  uint64_t base_key, top_key;
  unsigned kinds;
} build;

static void no_cells(uint64_t start, uint64_t end, rsp_stack_frames frames, void *data)
{
  (void)start, (void)end, (void)frames, (void)data;
}

static void count_frames(uint64_t start, uint64_t end, rsp_stack_frames frames, void *data)
{
  (void)start, (void)end;
  *(uint64_t *)data += frames.n;
}

/* C added to L when it is the same frame within GAP after it: one frame, of everything it stands for. */
static bool extend_cell(cell *l, const cell *c, uint64_t gap)
{
  if (l->key != c->key || c->start < l->start || c->start > l->end + gap)
    return false;
  l->end = MAX(l->end, c->end);
  l->kinds |= c->kinds;
  return true;
}

/* C at the end of ROW, or, EARLY, added to the last cell (extend_cell, as the drawing below merges them once sorted;
 * done as they come, a big recording's rows hold their frames, not every column's: 6.5 GB for deep3m's 168M. A
 * frame of another layer of the row that comes later but sorts between them is then drawn under the merged one, so
 * paths of fewer frames are merged once sorted only.) */
static void add_cell(GArray *row, const cell *c, uint64_t gap, bool early)
{
  if (!early || !row->len || !extend_cell(&g_array_index(row, cell, row->len - 1), c, gap))
    g_array_append_val(row, *c);
}

static void add_cells(uint64_t start, uint64_t end, rsp_stack_frames frames, void *data)
{
  build *b = data;
  uint32_t n = frames.n;
  uint64_t key = b->base_key;
  for (uint32_t i = 0; i < n; i++) {
    const char *fn = rsp_frame_at(frames, n - 1 - i)->function ? rsp_frame_at(frames, n - 1 - i)->function : "?";
    key = mix(key, (uint64_t)(uintptr_t)fn);
    int32_t row = b->base_row - 1 - (int32_t)i;
    if (row >= 0 && row < b->n_rows) {
      cell c = { start, end, key, fn, (uint8_t)b->kinds };
      add_cell(b->rows[row], &c, b->gap, b->early);
    }
  }
  b->top_key = key;
}

static int cmp_cell(const void *a, const void *b)
{
  const cell *x = a, *y = b;
  return (x->start > y->start) - (x->start < y->start);
}

/* Writes cell C unless it is under a third of a pixel, or under a pixel inside the pixels the row's
 * earlier cells painted (*PAINTED: their right edge, rounded up), or past MAX_FRAMES (*N: so far). */
static void emit(FILE *out, const cell *c, uint64_t t0, double scale, double y, double *painted, uint32_t *n)
{
  double x = LABEL_W + (double)(c->start - t0) * scale, w = (double)(c->end - c->start) * scale;
  if ((c->kinds & RSP_FRAME_KWORK) && w < 1)
    w = 1; /* a softirq of microseconds: a pixel, as the app draws it, or the band looks empty */
  if (w < 0.34 || (w < 1 && x + w <= *painted) || *n >= MAX_FRAMES)
    return;
  *painted = MAX(*painted, ceil(x + w));
  (*n)++;
  char fill[8], dur[48];
  rsp_format_duration(c->end - c->start, dur, sizeof dur);
  fprintf(out, "<g class=\"f\"><title>");
  rsp_html_escape(out, c->label);
  fprintf(out, ": %s</title><svg x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\"><rect width=\"100%%\" height=\"%d\" "
               "y=\"1\" fill=\"%s\"/>",
          dur, x, y, w, ROW_H, ROW_H - 2, rsp_report_frame_fill(c->kinds, fill));
  if (w >= 2) {
    bool light = (c->kinds & RSP_FRAME_RUN) && !(c->kinds & RSP_FRAME_PROCESS);
    fprintf(out, "<text x=\"3\" y=\"12\"%s>", light ? " class=\"light\"" : "");
    rsp_html_escape(out, c->label);
    fprintf(out, "</text>");
  }
  fprintf(out, "</svg></g>\n");
}

/* The kernel work parts drawn (rsp_kernel_work_paths_parts), by process: a band each. */
typedef struct kwork_gather {
  GArray *pieces;       /* kwork_piece */
  GArray *pids;         /* int32_t: the bands, in the order met */
  GPtrArray *labels;    /* "kernel work for X" per band */
  GStringChunk *strings;
} kwork_gather;

typedef struct kwork_piece {
  uint64_t start, end;
  uint32_t band;
  const char *doer;
} kwork_piece;

static void gather_kwork(const rsp_kernel_work_part *part, void *data)
{
  kwork_gather *g = data;
  if (part->ns <= 0) /* drawn on the paths already */
    return;
  uint32_t b = 0;
  while (b < g->pids->len && g_array_index(g->pids, int32_t, b) != part->pid)
    b++;
  if (b == g->pids->len) {
    g_array_append_val(g->pids, part->pid);
    char buf[160];
    g_snprintf(buf, sizeof buf, "kernel work for %s", part->comm ? part->comm : "?");
    g_ptr_array_add(g->labels, g_string_chunk_insert_const(g->strings, buf));
  }
  kwork_piece pc = { part->start, part->end > part->start ? part->end : part->start + 1, b,
                     g_string_chunk_insert_const(g->strings, part->doer) };
  g_array_append_val(g->pieces, pc);
}

void rsp_report_flame_svg(FILE *out, const rsp_paths *paths, const rsp_kernel_work *kw, int width)
{
  const rsp_model *m = rsp_paths_model(paths);
  uint32_t n_paths = rsp_paths_n_paths(paths), n_elems = rsp_paths_n_elems(paths);
  uint64_t t0 = UINT64_MAX, t1 = 0;
  for (rsp_path_id p = 0; p < n_paths; p++) {
    const rsp_path *path = rsp_paths_path(paths, p);
    if (!path->n_elems)
      continue;
    t0 = MIN(t0, path->start);
    t1 = MAX(t1, path->end);
  }
  if (t0 >= t1) {
    t0 = 0;
    t1 = 1;
  }
  /* heights: a layer stands on its parent's top; elements come in (depth, start) order */
  int32_t *base_row = g_new(int32_t, n_elems + 1), *top = g_new(int32_t, n_elems + 1);
  int *label_row = g_new0(int, n_paths + 1);
  rsp_task_id *label_task = g_new0(rsp_task_id, n_paths + 1);
  for (uint32_t i = 0; i < n_elems; i++)
    base_row[i] = top[i] = -1;
  int row = 0, fit = 0;
  uint64_t frames = 0;
  for (rsp_path_id p = 0; p < n_paths; p++) {
    const rsp_path *path = rsp_paths_path(paths, p);
    label_row[p] = -1;
    if (!path->n_elems)
      continue;
    int band = 0;
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(paths, p, i);
      const rsp_path_elem *e = rsp_paths_elem(paths, id);
      unsigned kinds = 0;
      uint32_t most = rsp_layer_columns(m, e, count_frames, &frames, &kinds);
      int32_t bottom = e->parent != RSP_NO_ID && e->parent < n_elems && top[e->parent] >= 0 ? top[e->parent] : 0;
      base_row[id] = bottom;
      if (e->depth == 0)
        label_task[p] = e->task;
      top[id] = bottom + 1 + (int32_t)most;
      band = MAX(band, top[id]);
    }
    int base = row + band - 1;
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(paths, p, i);
      base_row[id] = base - base_row[id];
    }
    label_row[p] = base;
    row += band + 1; /* a blank row between paths */
    if (row - 1 <= MAX_ROWS)
      fit = row - 1; /* whole bands, so that none is cut */
  }
  int n_rows = fit ? fit : MIN(row, (int)MAX_ROWS);
  int path_rows = n_rows;
  kwork_gather kg = { g_array_new(FALSE, FALSE, sizeof(kwork_piece)), g_array_new(FALSE, FALSE, sizeof(int32_t)),
                      g_ptr_array_new(), g_string_chunk_new(1024) };
  rsp_kernel_work_paths_parts(kw, paths, 0, 0, gather_kwork, &kg);
  n_rows += 3 * (int)kg.pids->len; /* a blank row, the doers' row, "kernel work for X" */
  GArray **rows = g_new0(GArray *, n_rows + 1);
  for (int r = 0; r < n_rows; r++)
    rows[r] = g_array_new(FALSE, FALSE, sizeof(cell));
  uint64_t *top_key = g_new0(uint64_t, n_elems + 1);
  int plot_w = width - LABEL_W;
  double scale = (double)plot_w / (double)(t1 - t0);
  uint64_t gap = (uint64_t)(0.5 / scale);
  bool early = frames > EARLY_FRAMES;
  for (rsp_path_id p = 0; p < n_paths; p++) {
    const rsp_path *path = rsp_paths_path(paths, p);
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(paths, p, i);
      const rsp_path_elem *e = rsp_paths_elem(paths, id);
      uint64_t below = e->parent != RSP_NO_ID && e->parent < n_elems ? top_key[e->parent] : 0;
      build b = { .rows = rows, .n_rows = n_rows, .gap = gap, .early = early, .base_row = base_row[id] };
      b.base_key = mix(below, e->kind == RSP_ELEM_RUN || e->kind == RSP_ELEM_SLEEP ? 0x100000000ull + e->task : e->kind);
      b.top_key = b.base_key;
      unsigned kinds = 0;
      rsp_layer_columns(m, e, no_cells, NULL, &kinds);
      b.kinds = kinds;
      if (b.base_row >= 0 && b.base_row < n_rows) {
        /* the layer's base: its process (a process name interned by the model), or the request */
        const char *label = e->kind == RSP_ELEM_DISK ? "disk" : e->kind == RSP_ELEM_NET ? "network"
                                                                    : rsp_model_task(m, e->task)->comm;
        unsigned base_kinds = e->kind == RSP_ELEM_DISK || e->kind == RSP_ELEM_NET ? kinds : RSP_FRAME_PROCESS;
        cell c = { e->start, e->end > e->start ? e->end : e->start + 1, b.base_key, label, (uint8_t)base_kinds };
        add_cell(rows[b.base_row], &c, gap, early);
      }
      rsp_layer_columns(m, e, add_cells, &b, &kinds);
      top_key[id] = b.top_key;
    }
  }
  for (guint k = 0; k < kg.pieces->len; k++) {
    const kwork_piece *pc = &g_array_index(kg.pieces, kwork_piece, k);
    int base = path_rows + 2 + 3 * (int)pc->band;
    uint64_t key = mix(0x6b776f726bull, pc->band);
    cell c = { pc->start, pc->end, key, g_ptr_array_index(kg.labels, pc->band), RSP_FRAME_KWORK };
    g_array_append_val(rows[base], c);
    cell d = { pc->start, pc->end, mix(key, (uint64_t)(uintptr_t)pc->doer), pc->doer, RSP_FRAME_KWORK };
    g_array_append_val(rows[base - 1], d);
  }
  int height = TOP + n_rows * ROW_H + RULER_H + 16;
  fprintf(out,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"view flame\" id=\"flame-svg\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\" data-t0=\"%" PRIu64 "\" data-t1=\"%" PRIu64 "\">\n",
          width, height, width, height, t0, t1);
  fprintf(out, "<rect class=\"labels\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", TOP, LABEL_W - 4,
          n_rows * ROW_H);
  rsp_report_svg_ruler(out, t1 - t0, LABEL_W, plot_w - 1, TOP + n_rows * ROW_H + 2, true); /* under the bands */
  uint32_t n_frames = 0;
  for (int r = 0; r < n_rows; r++) {
    GArray *cells = rows[r];
    if (!cells->len)
      continue;
    g_array_sort(cells, cmp_cell);
    cell cur = g_array_index(cells, cell, 0);
    double painted = 0;
    for (guint k = 1; k < cells->len; k++) {
      const cell *c = &g_array_index(cells, cell, k);
      if (extend_cell(&cur, c, gap)) /* (sorted: never before it) */
        continue;
      emit(out, &cur, t0, scale, TOP + (double)r * ROW_H, &painted, &n_frames);
      cur = *c;
    }
    emit(out, &cur, t0, scale, TOP + (double)r * ROW_H, &painted, &n_frames);
  }
  for (rsp_path_id p = 0; p < n_paths; p++) {
    if (label_row[p] < 0 || label_row[p] >= n_rows)
      continue;
    const rsp_task *t = rsp_model_task(m, label_task[p]);
    fprintf(out, "<text class=\"rowlabel\" x=\"4\" y=\"%d\">path %u: ", TOP + label_row[p] * ROW_H + 12, p);
    rsp_html_escape(out, t->comm);
    fprintf(out, " %" PRId32 "</text>\n", t->pid);
  }
  for (guint b = 0; b < kg.pids->len; b++) {
    fprintf(out, "<text class=\"rowlabel\" x=\"4\" y=\"%d\">", TOP + (path_rows + 2 + 3 * (int)b) * ROW_H + 12);
    rsp_html_escape(out, g_ptr_array_index(kg.labels, b));
    fprintf(out, " %" PRId32 "</text>\n", g_array_index(kg.pids, int32_t, b));
  }
  if (row - 1 > path_rows || n_frames >= MAX_FRAMES)
    fprintf(out, "<text class=\"note\" x=\"4\" y=\"%d\">%s%d more rows not drawn</text>\n", height - 4,
            n_frames >= MAX_FRAMES ? "frames past the first 60000 and " : "", MAX(row - path_rows, 0));
  fprintf(out, "</svg>\n");
  for (int r = 0; r < n_rows; r++)
    g_array_free(rows[r], TRUE);
  g_free(rows);
  g_free(top_key);
  g_free(base_row);
  g_free(top);
  g_free(label_row);
  g_free(label_task);
  g_array_free(kg.pieces, TRUE);
  g_array_free(kg.pids, TRUE);
  g_ptr_array_free(kg.labels, TRUE);
  g_string_chunk_free(kg.strings);
}
