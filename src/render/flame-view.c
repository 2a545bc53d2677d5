/* The Flame View (paper, "Flame View"): the process of interest and everything it waited on, as
 * control paths of pseudo-stacks, each layer of each pseudo-stack drawn as its stack: x = time,
 * y = stack depth growing upwards. A layer is its process's name (grey) with the functions of its
 * stack above it, outermost first: a run's sampled stacks (its time divided equally between its
 * samples), a sleep's wait stack across the kernel/user boundary; what a sleep waited on (the
 * next layer) stands on top of the sleep's innermost frame. Functions of runs are red, of sleeps
 * blue, of blocking I/O green; a function drawn as one frame across a run and a sleep (it called
 * both) is purple. Adjacent equal frames (the same function with the same frames below it, down
 * to the process row and through the layers underneath) are drawn as one unless something visible
 * separates them at the current zoom. Under the paths, the kernel work done for each of their processes by
 * interrupts and kernel threads is a band of its own (amber): "kernel work for X" at the times the work ran,
 * its doer ("softirq BLOCK", "kworker", "jbd2/loop0-8") above; what the paths already draw (the kworker that
 * woke X is on its path) is not drawn again (rsp_kernel_work_paths_parts).
 *
 * The frames are cut into cells once, each row's cells kept start-sorted with the running maximum
 * of ends, so a redraw finds a row's visible cells by binary search and touches only those;
 * cells narrower than a pixel inside a pixel already painted are skipped. */
#include "render/render-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A link end's pixel coordinate as hash key bits: off-screen ends are negative or huge when zoomed in,
 * and a negative value may not be shifted in C (UBSan's report) nor a float beyond long converted. */
static uint64_t pixel_key(float x)
{
  return (uint64_t)(int64_t)lrintf(isfinite(x) ? fmaxf(fminf(x, 1e9f), -1e9f) : 0.0f);
}

enum { N_SHADES = 7 };

/* A band of kernel work done for one process: its base row ("kernel work for X") and its name. */
typedef struct kwork_band {
  int32_t pid;
  int row;             /* the base row; the doers' row is the one above */
  const char *name;    /* "kernel work for X [pid]", in v->labels */
  const char *label;   /* "kernel work for X", in v->labels */
  uint32_t n_parts;
} kwork_band;

/* A part of the kernel work drawn (rsp_kernel_work_part, what the band needs of it). */
typedef struct kwork_piece {
  uint64_t start, end;
  uint32_t band;
  const char *doer;    /* in v->labels */
} kwork_piece;

typedef struct cell {
  uint64_t start, end, max_end; /* max_end: the largest end of this and the row's earlier cells */
  uint64_t key;                 /* this frame and all below it in its layers: equal keys merge */
  const char *label;
  rsp_elem_id elem;
  uint8_t kinds; /* RSP_FRAME_* */
} cell;

typedef struct row_cells {
  uint32_t first, n; /* into view->cells */
} row_cells;

struct rsp_flame_view {
  const rsp_paths *paths;
  const rsp_model *model;
  cell *cells;
  uint64_t *max_ends; /* the cells' max_end, dense: the searches of every redraw touch 8 bytes a cell */
  uint32_t n_cells;
  row_cells *rows; /* per row */
  int n_rows;
  int *path_label_row; /* per path: the row its label goes on (its base row) */
  rsp_task_id *path_label_task; /* per path: the task it is named after (its last root-level element's:
                                   the process's name after an exec; a command forked by rsp-record
                                   is "rsp-record" until it execs) */
  int32_t *run_row;    /* per model run: the row of its process frame, -1 when not on the paths */
  GArray *segments;    /* per redraw: the links' lines (x0, y0, x1, y1 as floats) */
  GArray *fills[N_SHADES]; /* per redraw and colour (frame_shade): rectangles (x0, y, x1 as floats) */
  GArray *kwork_bands; /* kwork_band: the kernel work bands' rows and names */
  GArray *texts;       /* per redraw: labelled frames (painted_frame), drawn over the fills */
  GArray *matches;     /* per redraw: search matches' rectangles, outlined last */
  GStringChunk *labels;
  char *search;        /* folded search text, or NULL */
  uint64_t sel_t0, sel_t1; /* a selected time range shaded (0, 0: none) */
  bool hide_links;     /* rsp_flame_view_set_show_links(false) */
  GArray *match_items; /* flame_match: the search's matching frames, by time (adjacent pieces as one) */
};

typedef struct flame_match {
  uint64_t start, end;
  int row;
} flame_match;

static int cmp_flame_match(const void *a, const void *b)
{
  const flame_match *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return (x->row > y->row) - (x->row < y->row);
}

typedef struct painted_frame {
  float x0, x1, y;
  unsigned kinds;
  const char *label;
} painted_frame;

/* The colour class of a frame of KINDS: 0 process, 1 run, 2 sleep, 3 both, 4 I/O, 5 network, 6 kernel work. */
static unsigned frame_shade(unsigned kinds)
{
  if (kinds & RSP_FRAME_PROCESS)
    return 0;
  if (kinds & RSP_FRAME_KWORK)
    return 6;
  bool off = kinds & (RSP_FRAME_SLEEP | RSP_FRAME_IO | RSP_FRAME_NET);
  if (kinds & RSP_FRAME_RUN)
    return off ? 3 : 1;
  return kinds & RSP_FRAME_SLEEP ? 2 : kinds & RSP_FRAME_IO ? 4 : kinds & RSP_FRAME_NET ? 5 : 2;
}

static const unsigned shade_kinds[N_SHADES] = { RSP_FRAME_PROCESS, RSP_FRAME_RUN, RSP_FRAME_SLEEP,
                                                RSP_FRAME_RUN | RSP_FRAME_SLEEP, RSP_FRAME_IO, RSP_FRAME_NET,
                                                RSP_FRAME_KWORK };

static uint64_t mix(uint64_t a, uint64_t b)
{
  uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Building: the cells of one element, in two passes over its columns (count per row, then fill). */
typedef struct build {
  rsp_flame_view *v;
  rsp_elem_id elem;
  uint64_t base_key, top_key;
  int32_t base_row; /* the row of the element's process frame; rows above it have smaller indexes */
  unsigned kinds;
  uint32_t *fill; /* per row: cells written so far (fill pass), or counted (count pass) */
} build;

static void count_cells(uint64_t start, uint64_t end, const rsp_model_frame *frames, uint32_t n, void *data)
{
  (void)start, (void)end, (void)frames;
  build *b = data;
  for (uint32_t i = 0; i < n; i++)
    b->fill[b->base_row - 1 - (int32_t)i]++;
}

static void add_cells(uint64_t start, uint64_t end, const rsp_model_frame *frames, uint32_t n, void *data)
{
  build *b = data;
  uint64_t key = b->base_key;
  for (uint32_t i = 0; i < n; i++) {
    const rsp_model_frame *f = &frames[n - 1 - i];
    const char *fn = f->label ? f->label : "?";
    key = mix(key, (uint64_t)(uintptr_t)fn);
    int32_t row = b->base_row - 1 - (int32_t)i;
    b->v->cells[b->v->rows[row].first + b->fill[row]++] = (cell){ start, end, 0, key, fn, b->elem, (uint8_t)b->kinds };
  }
  b->top_key = key;
}

static void no_cells(uint64_t start, uint64_t end, const rsp_model_frame *frames, uint32_t n, void *data)
{
  (void)start, (void)end, (void)frames, (void)n, (void)data;
}

static int cmp_cell(const void *a, const void *b)
{
  const cell *x = a, *y = b;
  return (x->start > y->start) - (x->start < y->start);
}

/* Gathering the kernel work parts drawn: a band per process, in the order met. */
typedef struct kwork_gather {
  rsp_flame_view *v;
  GArray *pieces; /* kwork_piece */
} kwork_gather;

static void gather_kwork(const rsp_kernel_work_part *part, void *data)
{
  kwork_gather *g = data;
  if (part->ns <= 0) /* all of it drawn on the paths already, or nothing in the recording's time */
    return;
  rsp_flame_view *v = g->v;
  uint32_t b = 0;
  while (b < v->kwork_bands->len && g_array_index(v->kwork_bands, kwork_band, b).pid != part->pid)
    b++;
  if (b == v->kwork_bands->len) {
    char buf[160];
    const char *comm = part->comm ? part->comm : "?";
    kwork_band band = { .pid = part->pid };
    g_snprintf(buf, sizeof buf, "kernel work for %s [%d]", comm, part->pid);
    band.name = g_string_chunk_insert_const(v->labels, buf);
    g_snprintf(buf, sizeof buf, "kernel work for %s", comm);
    band.label = g_string_chunk_insert_const(v->labels, buf);
    g_array_append_val(v->kwork_bands, band);
  }
  g_array_index(v->kwork_bands, kwork_band, b).n_parts++;
  kwork_piece pc = { part->start, part->end > part->start ? part->end : part->start + 1, b,
                     g_string_chunk_insert_const(v->labels, part->doer) };
  g_array_append_val(g->pieces, pc);
}

rsp_flame_view *rsp_flame_view_new(const rsp_paths *paths)
{
  return rsp_flame_view_new_kwork(paths, NULL);
}

rsp_flame_view *rsp_flame_view_new_kwork(const rsp_paths *paths, const rsp_kernel_work *kw)
{
  rsp_flame_view *v = g_new0(rsp_flame_view, 1);
  v->kwork_bands = g_array_new(FALSE, FALSE, sizeof(kwork_band));
  v->paths = paths;
  v->model = rsp_paths_model(paths);
  v->labels = g_string_chunk_new(4096);
  uint32_t n_paths = rsp_paths_n_paths(paths), n_elems = rsp_paths_n_elems(paths);
  v->path_label_row = g_new0(int, n_paths + 1);
  v->path_label_task = g_new0(rsp_task_id, n_paths + 1);
  int32_t *base_row = g_new(int32_t, n_elems + 1), *top = g_new(int32_t, n_elems + 1);
  for (uint32_t i = 0; i < n_elems; i++)
    base_row[i] = top[i] = -1;
  /* heights: a layer stands on its parent's top; elements come in (depth, start) order */
  int row = 0;
  for (rsp_path_id p = 0; p < n_paths; p++) {
    const rsp_path *path = rsp_paths_path(paths, p);
    if (!path->n_elems)
      continue;
    int band = 0;
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(paths, p, i);
      const rsp_path_elem *e = rsp_paths_elem(paths, id);
      unsigned kinds = 0;
      uint32_t most = rsp_layer_columns(v->model, e, no_cells, NULL, &kinds);
      int32_t bottom = e->parent != RSP_NO_ID && e->parent < n_elems && top[e->parent] >= 0 ? top[e->parent] : 0;
      base_row[id] = bottom; /* from the band's bottom, for now */
      if (e->depth == 0)
        v->path_label_task[p] = e->task;
      top[id] = bottom + 1 + (int32_t)most;
      if (top[id] > band)
        band = top[id];
    }
    int base = row + band - 1; /* the band's row 0 (its bottom) */
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(paths, p, i);
      base_row[id] = base - base_row[id];
    }
    v->path_label_row[p] = base;
    row += band + 1; /* a blank row between paths */
  }
  /* the kernel work bands under the paths: the doers' row, then "kernel work for X" */
  kwork_gather kg = { v, g_array_new(FALSE, FALSE, sizeof(kwork_piece)) };
  if (kw)
    rsp_kernel_work_paths_parts(kw, paths, 0, 0, gather_kwork, &kg);
  for (guint b = 0; b < v->kwork_bands->len; b++) {
    g_array_index(v->kwork_bands, kwork_band, b).row = row + 1;
    row += 3;
  }
  v->n_rows = row;
  g_free(top);
  /* cells per row, then each row's slice of one array */
  uint32_t *fill = g_new0(uint32_t, v->n_rows + 1);
  for (rsp_path_id p = 0; p < n_paths; p++) {
    const rsp_path *path = rsp_paths_path(paths, p);
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(paths, p, i);
      unsigned kinds = 0;
      build b = { .v = v, .elem = id, .base_row = base_row[id], .fill = fill };
      fill[b.base_row]++;
      rsp_layer_columns(v->model, rsp_paths_elem(paths, id), count_cells, &b, &kinds);
    }
  }
  for (guint b = 0; b < v->kwork_bands->len; b++) {
    const kwork_band *band = &g_array_index(v->kwork_bands, kwork_band, b);
    fill[band->row] += band->n_parts;
    fill[band->row - 1] += band->n_parts;
  }
  v->rows = g_new0(row_cells, v->n_rows + 1);
  uint32_t total = 0;
  for (int r = 0; r < v->n_rows; r++) {
    v->rows[r].first = total;
    v->rows[r].n = fill[r];
    total += fill[r];
    fill[r] = 0;
  }
  v->n_cells = total;
  v->cells = g_new(cell, total + 1);
  v->max_ends = g_new(uint64_t, total + 1);
  uint64_t *top_key = g_new0(uint64_t, n_elems + 1);
  for (rsp_path_id p = 0; p < n_paths; p++) {
    const rsp_path *path = rsp_paths_path(paths, p);
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(paths, p, i);
      const rsp_path_elem *e = rsp_paths_elem(paths, id);
      char buf[96];
      const char *label = g_string_chunk_insert_const(v->labels, rsp_layer_base_label(v->model, e, buf, sizeof buf));
      uint64_t below = e->parent != RSP_NO_ID && e->parent < n_elems ? top_key[e->parent] : 0;
      build b = { .v = v, .elem = id, .base_row = base_row[id], .fill = fill };
      b.base_key = mix(below, e->kind == RSP_ELEM_RUN || e->kind == RSP_ELEM_SLEEP ? 0x100000000ull + e->task
                                                                                   : e->kind);
      b.top_key = b.base_key;
      uint64_t end = e->end > e->start ? e->end : e->start + 1;
      unsigned kinds = 0;
      cell *pc = &v->cells[v->rows[b.base_row].first + fill[b.base_row]++];
      *pc = (cell){ e->start, end, 0, b.base_key, label, id, RSP_FRAME_PROCESS };
      b.kinds = 0;
      rsp_layer_columns(v->model, e, no_cells, NULL, &kinds);
      b.kinds = kinds;
      if (e->kind == RSP_ELEM_DISK || e->kind == RSP_ELEM_NET)
        pc->kinds = (uint8_t)kinds; /* no process: the request itself, green (or teal) */
      rsp_layer_columns(v->model, e, add_cells, &b, &kinds);
      top_key[id] = b.top_key;
    }
  }
  g_free(top_key);
  for (guint k = 0; k < kg.pieces->len; k++) {
    const kwork_piece *pc = &g_array_index(kg.pieces, kwork_piece, k);
    const kwork_band *band = &g_array_index(v->kwork_bands, kwork_band, pc->band);
    uint64_t key = mix(0x6b776f726bull, (uint64_t)(uint32_t)band->pid);
    int r = band->row;
    v->cells[v->rows[r].first + fill[r]++] = (cell){ pc->start, pc->end, 0, key, band->label, RSP_NO_ID,
                                                     RSP_FRAME_KWORK };
    r = band->row - 1;
    v->cells[v->rows[r].first + fill[r]++] = (cell){ pc->start, pc->end, 0, mix(key, (uint64_t)(uintptr_t)pc->doer),
                                                     pc->doer, RSP_NO_ID, RSP_FRAME_KWORK };
  }
  g_array_free(kg.pieces, TRUE);
  g_free(fill);
  for (int r = 0; r < v->n_rows; r++) {
    cell *c = v->cells + v->rows[r].first;
    uint32_t n = v->rows[r].n;
    bool sorted = true;
    for (uint32_t k = 1; k < n && sorted; k++)
      sorted = c[k - 1].start <= c[k].start;
    if (!sorted)
      qsort(c, n, sizeof(cell), cmp_cell);
    uint64_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
      if (c[k].end > m)
        m = c[k].end;
      c[k].max_end = v->max_ends[v->rows[r].first + k] = m;
    }
  }
  uint32_t n_runs = rsp_model_n_runs(v->model);
  v->run_row = g_new(int32_t, n_runs + 1);
  for (uint32_t i = 0; i < n_runs; i++)
    v->run_row[i] = -1;
  for (uint32_t i = 0; i < n_elems; i++) {
    const rsp_path_elem *e = rsp_paths_elem(paths, i);
    if (e->kind == RSP_ELEM_RUN && e->id < n_runs && base_row[i] >= 0)
      v->run_row[e->id] = base_row[i];
  }
  g_free(base_row);
  v->segments = g_array_new(false, false, sizeof(float) * 4);
  for (int k = 0; k < N_SHADES; k++)
    v->fills[k] = g_array_new(false, false, sizeof(float) * 3);
  v->texts = g_array_new(false, false, sizeof(painted_frame));
  v->matches = g_array_new(false, false, sizeof(float) * 3);
  return v;
}

void rsp_flame_view_free(rsp_flame_view *v)
{
  if (!v)
    return;
  g_free(v->cells);
  if (v->match_items)
    g_array_free(v->match_items, true);
  g_free(v->max_ends);
  g_free(v->rows);
  g_free(v->path_label_row);
  g_free(v->path_label_task);
  g_free(v->run_row);
  g_array_free(v->segments, true);
  for (int k = 0; k < N_SHADES; k++)
    g_array_free(v->fills[k], true);
  g_array_free(v->kwork_bands, true);
  g_array_free(v->texts, true);
  g_array_free(v->matches, true);
  g_string_chunk_free(v->labels);
  g_free(v->search);
  g_free(v);
}

int rsp_flame_view_content_height(const rsp_flame_view *v, const rsp_style *style)
{
  return v->n_rows * style->row_height;
}

uint32_t rsp_flame_view_set_search(rsp_flame_view *v, const char *text)
{
  g_free(v->search);
  v->search = text && *text ? g_utf8_casefold(text, -1) : NULL;
  if (!v->match_items)
    v->match_items = g_array_new(FALSE, FALSE, sizeof(flame_match));
  g_array_set_size(v->match_items, 0);
  if (!v->search)
    return 0;
  for (int r = 0; r < v->n_rows; r++) {
    flame_match cur = { 0, 0, -1 };
    const char *cur_label = NULL;
    for (uint32_t i = v->rows[r].first; i < v->rows[r].first + v->rows[r].n; i++) {
      const cell *c = &v->cells[i];
      if (!rsp_label_matches(c->label, v->search))
        continue;
      if (cur.row >= 0 && c->label == cur_label && c->start <= cur.end) { /* the same frame, going on */
        cur.end = MAX(cur.end, c->end);
        continue;
      }
      if (cur.row >= 0)
        g_array_append_val(v->match_items, cur);
      cur = (flame_match){ c->start, c->end, r };
      cur_label = c->label;
    }
    if (cur.row >= 0)
      g_array_append_val(v->match_items, cur);
  }
  g_array_sort(v->match_items, cmp_flame_match);
  GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (uint32_t i = 0; i < v->n_cells; i++)
    if (rsp_label_matches(v->cells[i].label, v->search))
      g_hash_table_add(seen, (gpointer)v->cells[i].label);
  uint32_t n = g_hash_table_size(seen);
  g_hash_table_destroy(seen);
  return n;
}

int rsp_flame_view_path_row(const rsp_flame_view *v, rsp_path_id path)
{
  return path < rsp_paths_n_paths(v->paths) ? v->path_label_row[path] : 0;
}

void rsp_flame_view_set_selection(rsp_flame_view *v, uint64_t t0, uint64_t t1)
{
  v->sel_t0 = t0 < t1 ? t0 : 0;
  v->sel_t1 = t0 < t1 ? t1 : 0;
}

/* Queues a frame: its fill by colour, its label when it has room, its outline when it matches the
 * search; rsp_flame_view_draw paints them all at once. */
static void paint_cell(cairo_t *cr, const rsp_flame_view *v, const char *label, unsigned kinds, double x0, double x1,
                       int y, const rsp_style *style)
{
  (void)cr, (void)style;
  float r[3] = { (float)x0, (float)y, (float)x1 };
  g_array_append_val(v->fills[frame_shade(kinds)], r);
  if (x1 - x0 > 30) {
    painted_frame pf = { (float)x0, (float)x1, (float)y, kinds, label };
    g_array_append_val(v->texts, pf);
  }
  if (v->search && rsp_label_matches(label, v->search))
    g_array_append_val(v->matches, r);
}

static void paint_queued(rsp_flame_view *v, cairo_t *cr, const rsp_style *style)
{
  int rh = style->row_height;
  for (int k = 0; k < N_SHADES; k++) {
    GArray *a = v->fills[k];
    if (!a->len)
      continue;
    for (guint i = 0; i < a->len; i++) {
      const float *q = &g_array_index(a, float, i * 3);
      cairo_rectangle(cr, q[0], q[1] + 1, q[2] - q[0], rh - 2);
    }
    rsp_rgb c = rsp_frame_colour(shade_kinds[k], style);
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
    cairo_fill(cr);
    g_array_set_size(a, 0);
  }
  if (v->matches->len) {
    for (guint i = 0; i < v->matches->len; i++) {
      const float *q = &g_array_index(v->matches, float, i * 3);
      cairo_rectangle(cr, q[0] + 1, q[1] + 2, (q[2] - q[0] > 2 ? q[2] - q[0] : 2) - 2, rh - 4);
    }
    cairo_set_source_rgb(cr, style->match.r, style->match.g, style->match.b);
    cairo_set_line_width(cr, 2);
    cairo_stroke(cr);
    g_array_set_size(v->matches, 0);
  }
  double base = 1 + rsp_text_baseline(cr, rh - 2); /* in the box drawn from y + 1, rh - 2 high */
  for (guint i = 0; i < v->texts->len; i++) {
    const painted_frame *pf = &g_array_index(v->texts, painted_frame, i);
    cairo_save(cr);
    cairo_rectangle(cr, pf->x0 + 1, pf->y, pf->x1 - pf->x0 - 2, rh);
    cairo_clip(cr);
    if ((pf->kinds & RSP_FRAME_RUN) && !(pf->kinds & RSP_FRAME_PROCESS))
      cairo_set_source_rgb(cr, 1, 1, 1);
    else
      cairo_set_source_rgb(cr, style->text.r, style->text.g, style->text.b);
    cairo_move_to(cr, (pf->x0 > style->label_width ? pf->x0 : style->label_width) + 2, pf->y + base);
    cairo_show_text(cr, pf->label);
    cairo_restore(cr);
  }
  g_array_set_size(v->texts, 0);
}

/* The first of a row's cells (their max_end ME[0..N)) that ends after T, at or after FROM, whose
 * predecessors all end by T: galloping from FROM, then a binary search; the probes stay near FROM,
 * so a redraw's many searches, each just past the last, touch few cache lines. */
static uint32_t first_reaching(const uint64_t *me, uint32_t from, uint32_t n, uint64_t t)
{
  if (from >= n || me[from] > t)
    return from;
  uint32_t lo = from, step = 1; /* me[lo] <= t */
  while (step < n - lo && me[lo + step] <= t) {
    lo += step;
    step <<= 1;
  }
  uint32_t hi = step < n - lo ? lo + step : n; /* me[hi] > t, or hi = n */
  lo++;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (me[mid] > t)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

static void add_links(rsp_flame_view *v, const rsp_path_elem *e, const rsp_viewport *vp, const rsp_style *style,
                      int y)
{
  int rh = style->row_height;
  uint32_t nl = 0;
  rsp_link_id first = rsp_model_run_links_in(v->model, e->id, &nl);
  for (uint32_t k = 0; k < nl; k++) {
    const rsp_link *lk = rsp_model_link(v->model, first + k);
    if (lk->from_run == RSP_NO_ID || v->run_row[lk->from_run] < 0)
      continue;
    float q[4] = { (float)rsp_viewport_x(vp, style, lk->time),
                   (float)(style->ruler_height + v->run_row[lk->from_run] * rh - vp->scroll_y + rh / 2.0),
                   (float)rsp_viewport_x(vp, style, rsp_model_run(v->model, e->id)->start), (float)(y + rh / 2.0) };
    g_array_append_val(v->segments, q);
  }
}

void rsp_flame_view_draw(rsp_flame_view *v, cairo_t *cr, const rsp_viewport *vp, const rsp_style *style)
{
  cairo_save(cr);
  cairo_set_source_rgb(cr, style->background.r, style->background.g, style->background.b);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, style->font_size);
  int rh = style->row_height;
  g_array_set_size(v->segments, 0);
  for (int r = 0; r < v->n_rows; r++) {
    int y = style->ruler_height + r * rh - vp->scroll_y;
    if (y + rh <= style->ruler_height || y >= vp->height || !v->rows[r].n)
      continue;
    const cell *c = v->cells + v->rows[r].first;
    const uint64_t *me = v->max_ends + v->rows[r].first;
    uint32_t n = v->rows[r].n;
    bool pending = false; /* the frame being extended */
    uint64_t pend_key = 0;
    const char *pend_label = NULL;
    unsigned pend_kinds = 0;
    double pend_x0 = 0, pend_x1 = 0;
    for (uint32_t i = first_reaching(me, 0, n, vp->t0); i < n && c[i].start < vp->t1; i++) {
      if (c[i].end <= vp->t0)
        continue;
      double x0 = floor(rsp_viewport_x(vp, style, c[i].start > vp->t0 ? c[i].start : vp->t0));
      double x1 = ceil(rsp_viewport_x(vp, style, c[i].end < vp->t1 ? c[i].end : vp->t1));
      if (x1 - x0 < 1)
        x1 = x0 + 1;
      if ((c[i].kinds & RSP_FRAME_PROCESS) && x1 - x0 > 1) {
        const rsp_path_elem *e = rsp_paths_elem(v->paths, c[i].elem);
        if (e->kind == RSP_ELEM_RUN) /* the links into this run from runs on the paths */
          add_links(v, e, vp, style, y);
      }
      if (pending && c[i].key == pend_key && x0 <= pend_x1) {
        /* adjacent equal frames: one frame, of everything it stands for */
        if (x1 > pend_x1)
          pend_x1 = x1;
        pend_kinds |= c[i].kinds;
      } else if (pending && x1 <= pend_x1) {
        /* hidden inside the frame being drawn: nothing visible separates its pieces */
      } else {
        if (pending)
          paint_cell(cr, v, pend_label, pend_kinds, pend_x0, pend_x1, y, style);
        pending = true;
        pend_key = c[i].key;
        pend_label = c[i].label;
        pend_kinds = c[i].kinds;
        pend_x0 = x0;
        pend_x1 = x1;
      }
      /* level of detail: the cells that end inside the pixels the frame being drawn covers change
       * nothing visible (an equal one would only extend it within them): jump past them */
      uint32_t j = first_reaching(me, i + 1, n, rsp_viewport_time(vp, style, pend_x1));
      if (j > i + 1)
        i = j - 1;
    }
    if (pending)
      paint_cell(cr, v, pend_label, pend_kinds, pend_x0, pend_x1, y, style);
  }
  paint_queued(v, cr, style);
  if (v->sel_t1 > v->sel_t0 && v->sel_t1 > vp->t0 && v->sel_t0 < vp->t1) {
    double x0 = rsp_viewport_x(vp, style, v->sel_t0 > vp->t0 ? v->sel_t0 : vp->t0);
    double x1 = rsp_viewport_x(vp, style, v->sel_t1 < vp->t1 ? v->sel_t1 : vp->t1);
    cairo_set_source_rgba(cr, style->selection.r, style->selection.g, style->selection.b, 0.18);
    cairo_rectangle(cr, x0, style->ruler_height, x1 - x0 > 1 ? x1 - x0 : 1, vp->height);
    cairo_fill(cr);
  }
  if (v->segments->len && !v->hide_links) {
    /* one line per pixel column and pair of rows: thousands of links zoomed out are one line a
     * column, not a solid fill; and when they still crowd the plot, drawn faint */
    GHashTable *seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    guint kept = 0;
    for (guint i = 0; i < v->segments->len; i++) {
      float *q = &g_array_index(v->segments, float, i * 4);
      gint64 *key = g_new(gint64, 1);
      *key = (gint64)((pixel_key(q[0]) << 42) ^ (pixel_key(q[2]) << 28) ^ (pixel_key(q[1]) << 14) ^ pixel_key(q[3]));
      if (g_hash_table_contains(seen, key)) {
        g_free(key);
        continue;
      }
      g_hash_table_add(seen, key);
      memmove(&g_array_index(v->segments, float, kept * 4), q, 4 * sizeof(float));
      kept++;
    }
    g_hash_table_destroy(seen);
    g_array_set_size(v->segments, kept);
    double plot = vp->width - style->label_width;
    double alpha = kept * 6 > plot ? MAX(0.15, plot / (kept * 6.0)) : 1.0;
    cairo_save(cr);
    cairo_rectangle(cr, style->label_width, style->ruler_height, vp->width - style->label_width, vp->height);
    cairo_clip(cr);
    for (guint i = 0; i < v->segments->len; i++) {
      const float *q = &g_array_index(v->segments, float, i * 4);
      cairo_move_to(cr, q[0], q[1]);
      cairo_line_to(cr, q[2], q[3]);
    }
    cairo_set_line_width(cr, 1.5);
    cairo_set_source_rgba(cr, style->link_wakeup.r, style->link_wakeup.g, style->link_wakeup.b, alpha);
    cairo_stroke(cr);
    cairo_restore(cr);
  }
  /* the name column: each path's band labelled in grey with its first element's process, at its base */
  cairo_set_source_rgb(cr, style->label_bg.r, style->label_bg.g, style->label_bg.b);
  cairo_rectangle(cr, 0, style->ruler_height, style->label_width, vp->height);
  cairo_fill(cr);
  uint32_t n_paths = rsp_paths_n_paths(v->paths);
  for (rsp_path_id p = 0; p < n_paths; p++) {
    const rsp_path *path = rsp_paths_path(v->paths, p);
    if (!path->n_elems)
      continue;
    int y = style->ruler_height + v->path_label_row[p] * rh - vp->scroll_y;
    if (y + rh <= style->ruler_height || y >= vp->height)
      continue;
    const rsp_task *t = rsp_model_task(v->model, v->path_label_task[p]);
    char buf[96];
    snprintf(buf, sizeof buf, "path %u: %s [%d]", p, t->comm, t->pid);
    cairo_set_source_rgb(cr, style->process_text.r, style->process_text.g, style->process_text.b);
    cairo_move_to(cr, 4, y + rsp_text_baseline(cr, rh));
    cairo_show_text(cr, buf);
  }
  for (guint b = 0; b < v->kwork_bands->len; b++) {
    const kwork_band *band = &g_array_index(v->kwork_bands, kwork_band, b);
    int y = style->ruler_height + band->row * rh - vp->scroll_y;
    if (y + rh <= style->ruler_height || y >= vp->height)
      continue;
    cairo_set_source_rgb(cr, style->process_text.r, style->process_text.g, style->process_text.b);
    cairo_move_to(cr, 4, y + rsp_text_baseline(cr, rh));
    cairo_show_text(cr, band->name);
  }
  rsp_time_ruler_draw(cr, vp, style, rsp_model_time_first(v->model));
  cairo_restore(cr);
}

bool rsp_flame_view_frame_at(const rsp_flame_view *v, const rsp_viewport *vp, const rsp_style *style, double x,
                             double y, rsp_elem_id *elem, const char **label)
{
  *elem = RSP_NO_ID;
  if (label)
    *label = NULL;
  if (x < style->label_width || y < style->ruler_height)
    return false;
  int row = (int)floor((y - style->ruler_height + vp->scroll_y) / style->row_height);
  if (row < 0 || row >= v->n_rows)
    return false;
  uint64_t t = rsp_viewport_time(vp, style, x);
  const cell *c = v->cells + v->rows[row].first;
  uint32_t n = v->rows[row].n;
  for (uint32_t i = first_reaching(v->max_ends + v->rows[row].first, 0, n, t); i < n && c[i].start <= t; i++)
    if (c[i].end > t) {
      *elem = c[i].elem;
      if (label)
        *label = c[i].label;
      return true;
    }
  return false;
}

bool rsp_flame_view_hit(const rsp_flame_view *v, const rsp_viewport *vp, const rsp_style *style, double x, double y,
                        rsp_elem_id *out)
{
  return rsp_flame_view_frame_at(v, vp, style, x, y, out, NULL) && *out != RSP_NO_ID; /* kernel work: no element */
}

void rsp_flame_view_set_show_links(rsp_flame_view *v, bool show)
{
  v->hide_links = !show;
}

uint32_t rsp_flame_view_n_match_items(const rsp_flame_view *v)
{
  return v->match_items ? v->match_items->len : 0;
}

bool rsp_flame_view_match_item(const rsp_flame_view *v, uint32_t i, uint64_t *t0, uint64_t *t1, int *row)
{
  if (!v->match_items || i >= v->match_items->len)
    return false;
  const flame_match *m = &g_array_index(v->match_items, flame_match, i);
  *t0 = m->start;
  *t1 = m->end;
  *row = m->row;
  return true;
}
