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
 * The frames are cut into cells, each row's cells kept start-sorted with the running maximum of ends, so a
 * redraw finds a row's visible cells by binary search and touches only those; cells narrower than a pixel inside
 * a pixel already painted are skipped. Paths of up to a million frames are cut exactly, once. Bigger ones (a
 * recording with deep stacks on every scheduler event: 168M frames) are cut on a grid, what the drawing makes of
 * them at a pixel of one grid step: the whole recording on a grid of 1/16384 of its span, and when zoomed in
 * finer, the viewport's surroundings again on a grid of a quarter pixel (cut_set, cells_for). What is under the
 * pointer is found from the elements themselves, exact whatever the grid. */
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

/* A frame as it is cut: KEY stands for this frame and all below it in its layers (equal keys merge). */
typedef struct piece {
  uint64_t start, end;
  uint64_t key;
  const char *label;
  rsp_elem_id elem;   /* the (first) element it was cut from; RSP_NO_ID: kernel work */
  uint8_t kinds;      /* RSP_FRAME_* */
} piece;

/* A piece as kept, in 32 bytes (a dense recording's whole has 1.6M of them): its kinds in the key's top byte, its
 * label an index in its cell set's labels. */
typedef struct cell {
  uint64_t start, end;
  uint64_t key_kinds; /* the piece's key's low 56 bits, its kinds above them */
  uint32_t label;     /* in the cell set's labels */
  rsp_elem_id elem;
} cell;

#define KEY_BITS 56
#define KEY_MASK ((UINT64_C(1) << KEY_BITS) - 1)

static inline uint64_t cell_key(const cell *c) { return c->key_kinds & KEY_MASK; }
static inline unsigned cell_kinds(const cell *c) { return (unsigned)(c->key_kinds >> KEY_BITS); }

/* The cells' running maximum of ends is kept per block of BLOCK cells (the last cell's), 1/16 of the memory of one
 * per cell: a search reads the block's maximum, then at most BLOCK cells. */
#define BLOCK 16

/* A row's cells, and the running maximum of their ends at each block's end. */
typedef struct row_cells {
  const cell *cells;
  const uint64_t *block_max;
  uint32_t n;
} row_cells;

/* A level of detail: the frames of the time window [W0, W1) cut into cells on a grid of Q ns (0: exact), each
 * row's cells start-sorted with the running maximum of ends by block, so that a redraw finds a row's visible cells
 * by binary search and touches only those. Cut on the grid, a frame is what the drawing makes of it at a pixel of
 * Q ns: adjacent equal frames are one, a frame inside the one before it is gone. The rows' cells are in one array,
 * row after row (ROW_FIRST), and so are their block maxima: a recording whose process of interest has 82,000 control
 * paths of deep stacks has 8M rows of a cell or two, whose own arrays and headers took more than the cells. The labels
 * are the set's own (a worker cuts a zoomed-in set while the whole is drawn). */
typedef struct cell_set {
  cell *cells;
  uint32_t *row_first;   /* per row and one more: its first cell (NULL: not cut) */
  uint64_t *block_max;
  uint32_t *block_first; /* per row and one more: its first block maximum */
  uint32_t n_cells;
  uint64_t q, w0, w1;
  const char **labels; /* the cells' labels by index */
  uint32_t n_labels;
} cell_set;

static inline row_cells row_of(const cell_set *s, int r)
{
  return (row_cells){ s->cells + s->row_first[r], s->block_max + s->block_first[r],
                      s->row_first[r + 1] - s->row_first[r] };
}

struct rsp_flame_view {
  const rsp_paths *paths;
  const rsp_model *model;
  cell_set whole;  /* the whole recording, on a grid of at most 1/16384 of its span */
  cell_set zoom;   /* zoomed in finer than the whole's grid: the viewport's surroundings, cut when drawn */
  const cell_set *drawn; /* the last drawing's (the kernel work's frames under a pointer) */
  uint64_t exact_frames; /* the most frames cut exactly (EXACT_FRAMES) */
  void (*ready)(void *data); /* rsp_flame_view_set_ready_hook: zoomed-in windows are cut in a worker */
  void *ready_data;
  struct cut_job *job;   /* the window being cut by the worker, or NULL */
  int n_rows;
  int32_t *base_row;   /* per element: the row of its process frame (rows above it have smaller indexes) */
  uint32_t *height;    /* per element: the most frames a column of it has */
  uint64_t *top_key;   /* per element: the key of its last column's innermost frame (its layers stand on it) */
  rsp_elem_id *order;  /* the elements by start */
  uint64_t long_ns;    /* elements longer than this are in long_elems, not looked for through order */
  GArray *long_elems;  /* rsp_elem_id */
  const char **task_label; /* per model task: its process frames' label ("comm tid"), in labels */
  GHashTable *frame_labels; /* every label drawn (a set), for the search's count */
  int *path_label_row; /* per path: the row its label goes on (its base row) */
  int *path_row0;      /* per path: its band's first row (its band is path_row0 .. path_label_row) */
  int kwork_row0;      /* the kernel work bands' first row (they go to the last) */
  int max_band;        /* the most rows a path's band or the kernel work bands have */
  rsp_task_id *path_label_task; /* per path: the task it is named after (its last root-level element's:
                                   the process's name after an exec; a command forked by rsp-record
                                   is "rsp-record" until it execs) */
  int32_t *run_row;    /* per model run: the row of its process frame, -1 when not on the paths */
  GArray *segments;    /* per redraw: the links' lines (x0, y0, x1, y1 as floats) */
  GArray *fills[N_SHADES]; /* per redraw and colour (frame_shade): rectangles (x0, y, x1 as floats) */
  GArray *kwork_bands; /* kwork_band: the kernel work bands' rows and names */
  GArray *kwork_pieces; /* kwork_piece: the kernel work drawn */
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

/* The grid of the whole recording's cells: its span in this many pieces at most. (8192 made 0.96M cells of the
 * deep-stacks recording where 16384 makes 1.64M, 28 MB less, but a sleep with short runs in it turned purple: pieces
 * a grid step apart that the drawing keeps apart became one.) */
enum { WHOLE_GRID = 16384 };
/* Paths with at most this many frames in all their columns are cut exactly, once; a zoomed in window with at
 * most half as many (about), exactly too. */
#define EXACT_FRAMES 1000000ull

static uint64_t elem_end(const rsp_path_elem *e)
{
  return e->end > e->start ? e->end : e->start + 1;
}

/* E's process frame's key: its task (or its kind: disk, network) on the frame it stands on. */
static uint64_t base_key(const rsp_flame_view *v, const rsp_path_elem *e)
{
  uint32_t n_elems = rsp_paths_n_elems(v->paths);
  uint64_t below = e->parent != RSP_NO_ID && e->parent < n_elems ? v->top_key[e->parent] : 0;
  return mix(below, e->kind == RSP_ELEM_RUN || e->kind == RSP_ELEM_SLEEP ? 0x100000000ull + e->task : e->kind);
}

/* E's process frame's label: "comm tid", or the request ("disk", "network"). */
static const char *base_label(const rsp_flame_view *v, const rsp_path_elem *e)
{
  if (e->kind == RSP_ELEM_DISK || e->kind == RSP_ELEM_NET)
    return e->kind == RSP_ELEM_DISK ? "disk" : "network";
  const char *l = e->task < rsp_model_n_tasks(v->model) ? v->task_label[e->task] : NULL;
  return l ? l : "?";
}

/* ---- The layout: each element's rows and keys, once -------------------------------------------- */

typedef struct measure {
  uint64_t frames;              /* in all columns */
  rsp_stack_frames last;        /* the last column's frames */
} measure;

static void measure_column(uint64_t start, uint64_t end, rsp_stack_frames frames, void *data)
{
  (void)start, (void)end;
  measure *ms = data;
  ms->frames += frames.n;
  ms->last = frames;
}

/* The key of the innermost of FRAMES (N) on a frame of key BASE, remembered: the same stack on the same frame
 * again (a process's runs and sleeps, thousands of times) is not hashed again. */
enum { KEY_MEMO = 1024 };
typedef struct key_memo {
  uint64_t base, top;
  const uint32_t *frames; /* the stack's frame ids */
  uint32_t n;
} key_memo;

static uint64_t top_key(key_memo *memo, uint64_t base, rsp_stack_frames frames)
{
  uint32_t n = frames.n;
  key_memo *m = &memo[(base ^ ((uintptr_t)frames.ids >> 4) * 0x9e3779b97f4a7c15ull) >> 54];
  if (m->base == base && m->frames == frames.ids && m->n == n && frames.ids)
    return m->top;
  uint64_t key = base;
  for (uint32_t k = 0; k < n; k++)
    key = mix(key, (uint64_t)(uintptr_t)(rsp_frame_at(frames, n - 1 - k)->label ? rsp_frame_at(frames, n - 1 - k)->label : "?"));
  *m = (key_memo){ base, key, frames.ids, n };
  return key;
}

/* ---- Cutting: a row's frames as they come, painted on the grid ----------------------------------- */

/* The labels of a cut: each label's index in the set, by its (interned) pointer. */
typedef struct label_index {
  GHashTable *index; /* label -> index + 1 */
  GPtrArray *labels;
} label_index;

static uint32_t label_of(label_index *li, const char *label)
{
  uint32_t i = GPOINTER_TO_UINT(g_hash_table_lookup(li->index, label));
  if (i)
    return i - 1;
  g_assert(li->labels->len < UINT32_MAX - 1);
  g_ptr_array_add(li->labels, (gpointer)label);
  g_hash_table_insert(li->index, (gpointer)label, GUINT_TO_POINTER(li->labels->len));
  return li->labels->len - 1;
}

typedef struct painter {
  piece pend; /* the frame being extended */
  bool have;
  cell *out;
  uint32_t n, cap;
  label_index *labels;
} painter;

static void painter_emit(painter *p)
{
  if (p->n == p->cap) {
    p->cap = p->cap ? p->cap * 2 : 2; /* most rows have a few cells: 16 at first was 124 MB for 194,000 rows */
    p->out = g_renew(cell, p->out, p->cap);
  }
  const piece *f = &p->pend;
  p->out[p->n++] = (cell){ f->start, f->end, (f->key & KEY_MASK) | (uint64_t)f->kinds << KEY_BITS,
                           label_of(p->labels, f->label), f->elem };
}

/* The frame [QS, QE) (on the grid of Q; 0: every piece kept) into row P: an equal frame of the same colour adjacent to
 * the one being extended extends it (a process frame stands for its element alone: never; frames of different
 * colours are one only where the drawing sees them adjacent, purple), a frame inside it is not seen; else the one
 * being extended is done. Frames come by start, mostly: one that starts earlier ends the one being extended (the row
 * is sorted once cut). */
static void paint(painter *p, uint64_t q, uint64_t qs, uint64_t qe, uint64_t key, const char *label, rsp_elem_id elem,
                  unsigned kinds)
{
  if (!q) { /* exact: every piece, as the drawing will see them */
    p->pend = (piece){ qs, qe, key, label, elem, (uint8_t)kinds };
    painter_emit(p);
    return;
  }
  if (p->have && qs >= p->pend.start) {
    if (key == p->pend.key && kinds == p->pend.kinds && qs <= p->pend.end && !(kinds & RSP_FRAME_PROCESS)) {
      if (qe > p->pend.end)
        p->pend.end = qe;
      return;
    }
    if (qe <= p->pend.end)
      return;
  }
  if (p->have)
    painter_emit(p);
  p->pend = (piece){ qs, qe, key, label, elem, (uint8_t)kinds };
  p->have = true;
}

/* [START, END) on the grid of Q ns (0: none): each end to its nearest step, at least a step long. */
static void on_grid(uint64_t start, uint64_t end, uint64_t q, uint64_t *qs, uint64_t *qe)
{
  if (end <= start)
    end = start + 1;
  if (!q) {
    *qs = start;
    *qe = end;
    return;
  }
  *qs = (start + q / 2) / q * q;
  *qe = (end + q / 2) / q * q;
  if (*qe <= *qs)
    *qe = *qs + q;
}

typedef struct cut {
  rsp_flame_view *v;
  painter *rows; /* from row ROW0: the band being cut */
  int row0;
  uint64_t q;
  rsp_elem_id elem;
  int32_t base_row;
  uint64_t base_key;
  const unsigned *kinds; /* rsp_layer_columns's answer, set before its first column */
  GHashTable *stacks_seen; /* the whole's cut: the stacks whose labels are in frame_labels */
  const uint32_t *last_seen; /* its frame ids */
} cut;

static void cut_column(uint64_t start, uint64_t end, rsp_stack_frames frames, void *data)
{
  cut *c = data;
  uint32_t n = frames.n;
  if (!n)
    return;
  if (c->stacks_seen && frames.ids != c->last_seen) {
    c->last_seen = frames.ids;
    if (g_hash_table_add(c->stacks_seen, (gpointer)frames.ids))
      for (uint32_t i = 0; i < n; i++)
        g_hash_table_add(c->v->frame_labels, (gpointer)(rsp_frame_at(frames, i)->label ? rsp_frame_at(frames, i)->label : "?"));
  }
  uint64_t qs, qe;
  on_grid(start, end, c->q, &qs, &qe);
  if ((int32_t)n > c->base_row - c->row0)
    n = (uint32_t)(c->base_row - c->row0); /* its band holds its highest column: never */
  painter *row = c->rows + (c->base_row - c->row0) - 1; /* frame I's row: row - I */
  /* the column inside what each of its rows already paints (the same column again, mostly): nothing to do */
  uint32_t i = 0;
  while (c->q && i < n && row[-(int32_t)i].have && qs >= row[-(int32_t)i].pend.start && qe <= row[-(int32_t)i].pend.end)
    i++;
  if (i == n)
    return;
  uint64_t key = c->base_key;
  unsigned kinds = *c->kinds;
  for (i = 0; i < n; i++) {
    const char *fn = rsp_frame_at(frames, n - 1 - i)->label ? rsp_frame_at(frames, n - 1 - i)->label : "?";
    key = mix(key, (uint64_t)(uintptr_t)fn);
    paint(row - i, c->q, qs, qe, key, fn, c->elem, kinds);
  }
}

static int cmp_cell(const void *a, const void *b)
{
  const cell *x = a, *y = b;
  return (x->start > y->start) - (x->start < y->start);
}

static void cell_set_clear(cell_set *s)
{
  g_free(s->cells);
  g_free(s->row_first);
  g_free(s->block_max);
  g_free(s->block_first);
  g_free(s->labels);
  *s = (cell_set){ 0 };
}

/* A painter's array of up to this many cells (128 KB) is kept for the next band's row; a longer one is freed once
 * its cells are copied (arrays that big are mapped on their own: freeing them gives the memory back at once). */
#define PAINTER_KEPT_CELLS 4096

/* The rows of a cut as they are finished, in row order, into S: cells and block maxima appended. */
typedef struct cell_sink {
  cell_set *s;
  size_t n_cells, cap_cells, n_blocks, cap_blocks;
  int next_row; /* the first row not finished */
} cell_sink;

/* Rows up to ROW0 finished empty, then ROW0 .. ROW1 from their painters P[0 ..] (which are emptied for the next
 * band, their arrays kept). */
static void finish_rows(cell_sink *k, painter *p, int row0, int row1)
{
  cell_set *s = k->s;
  for (; k->next_row < row0; k->next_row++) {
    s->row_first[k->next_row] = (uint32_t)k->n_cells;
    s->block_first[k->next_row] = (uint32_t)k->n_blocks;
  }
  for (int r = row0; r < row1; r++) {
    painter *pr = &p[r - row0];
    if (pr->have)
      painter_emit(pr);
    uint32_t nr = pr->n, nb = (nr + BLOCK - 1) / BLOCK;
    g_assert(k->n_cells + nr < UINT32_MAX && k->n_blocks + nb < UINT32_MAX);
    s->row_first[r] = (uint32_t)k->n_cells;
    s->block_first[r] = (uint32_t)k->n_blocks;
    if (k->n_cells + nr > k->cap_cells) {
      k->cap_cells = MAX(k->n_cells + nr, k->cap_cells + k->cap_cells / 2 + 64);
      s->cells = g_renew(cell, s->cells, k->cap_cells);
    }
    if (k->n_blocks + nb > k->cap_blocks) {
      k->cap_blocks = MAX(k->n_blocks + nb, k->cap_blocks + k->cap_blocks / 2 + 16);
      s->block_max = g_renew(uint64_t, s->block_max, k->cap_blocks);
    }
    cell *cs = s->cells + k->n_cells;
    if (nr)
      memcpy(cs, pr->out, nr * sizeof(cell));
    bool sorted = true;
    for (uint32_t i = 1; i < nr && sorted; i++)
      sorted = cs[i - 1].start <= cs[i].start;
    if (!sorted)
      qsort(cs, nr, sizeof(cell), cmp_cell);
    uint64_t m = 0, *bm = s->block_max + k->n_blocks;
    for (uint32_t i = 0; i < nr; i++) {
      if (cs[i].end > m)
        m = cs[i].end;
      if (i % BLOCK == BLOCK - 1 || i + 1 == nr)
        bm[i / BLOCK] = m;
    }
    k->n_cells += nr;
    k->n_blocks += nb;
    pr->n = 0;
    pr->have = false;
    if (pr->cap > PAINTER_KEPT_CELLS) {
      /* copied: a long row's cells are not kept twice until the cut ends (the process row of a path of 700,000
       * elements: 22 MB, most of rsp-view's peak over its settled memory on a 546 MB recording) */
      g_free(pr->out);
      pr->out = NULL;
      pr->cap = 0;
    }
  }
  if (row1 > k->next_row)
    k->next_row = row1;
}

/* IDS (N) grouped by path, each path's in their order in IDS; *FIRST (per path and one more) where each path's
 * begin. */
static rsp_elem_id *group_by_path(const rsp_paths *paths, const rsp_elem_id *ids, uint32_t n, uint32_t **first)
{
  uint32_t n_paths = rsp_paths_n_paths(paths);
  uint32_t *at = g_new0(uint32_t, n_paths + 2);
  for (uint32_t k = 0; k < n; k++) {
    rsp_path_id p = rsp_paths_elem(paths, ids[k])->path;
    if (p < n_paths) /* (every element is on a path: one that were not would have no rows) */
      at[p + 2]++;
  }
  for (uint32_t p = 0; p < n_paths; p++)
    at[p + 2] += at[p + 1];
  rsp_elem_id *out = g_new(rsp_elem_id, n + 1);
  for (uint32_t k = 0; k < n; k++) {
    rsp_path_id p = rsp_paths_elem(paths, ids[k])->path;
    if (p < n_paths)
      out[at[p + 1]++] = ids[k];
  }
  *first = at; /* at[p] is now where path p begins */
  return out;
}

/* Cuts the frames of the elements and kernel work in IDS (N, by start mostly) into S, on a grid of Q ns, for the
 * window [W0, W1): path after path (a row has the frames of one path's elements, in the order of IDS), with
 * painters for one band's rows at a time. */
static void cut_set(rsp_flame_view *v, cell_set *s, const rsp_elem_id *ids, uint32_t n, uint64_t q, uint64_t w0,
                    uint64_t w1, bool whole, const gint *cancel)
{
  cell_set_clear(s);
  s->q = q;
  s->w0 = w0;
  s->w1 = w1;
  s->row_first = g_new(uint32_t, v->n_rows + 1);
  s->block_first = g_new(uint32_t, v->n_rows + 1);
  painter *rows = g_new0(painter, v->max_band + 1);
  label_index li = { g_hash_table_new(g_direct_hash, g_direct_equal), g_ptr_array_new() };
  for (int r = 0; r <= v->max_band; r++)
    rows[r].labels = &li;
  cell_sink sink = { .s = s };
  uint32_t *first;
  rsp_elem_id *by_path = group_by_path(v->paths, ids, n, &first);
  cut c = { .v = v, .rows = rows, .q = q, .stacks_seen = whole ? g_hash_table_new(g_direct_hash, g_direct_equal) : NULL };
  bool cancelled = false;
  for (rsp_path_id p = 0, done = 0; p < rsp_paths_n_paths(v->paths) && !cancelled; p++) {
    if (first[p] == first[p + 1])
      continue;
    c.row0 = v->path_row0[p];
    for (uint32_t k = first[p]; k < first[p + 1]; k++, done++) {
      if (cancel && !(done & 1023) && g_atomic_int_get(cancel)) {
        cancelled = true; /* cut for nothing: a newer window is wanted, or the view goes */
        break;
      }
      rsp_elem_id id = by_path[k];
      const rsp_path_elem *e = rsp_paths_elem(v->paths, id);
      if (v->base_row[id] < 0)
        continue;
      uint64_t qs, qe;
      on_grid(e->start, elem_end(e), q, &qs, &qe);
      unsigned kinds = 0;
      c.elem = id;
      c.base_row = v->base_row[id];
      c.base_key = base_key(v, e);
      c.kinds = &kinds;
      rsp_layer_columns(v->model, e, cut_column, &c, &kinds);
      /* its process frame, on a row of its own; a disk or network element has no process: the request itself,
       * coloured as its kinds say (green, teal) */
      bool request = e->kind == RSP_ELEM_DISK || e->kind == RSP_ELEM_NET;
      paint(&rows[c.base_row - c.row0], q, qs, qe, c.base_key, base_label(v, e), id,
            request ? kinds : RSP_FRAME_PROCESS);
    }
    finish_rows(&sink, rows, c.row0, v->path_label_row[p] + 1);
  }
  g_free(by_path);
  g_free(first);
  if (c.stacks_seen)
    g_hash_table_destroy(c.stacks_seen);
  for (guint k = 0; k < v->kwork_pieces->len && !cancelled; k++) {
    const kwork_piece *pc = &g_array_index(v->kwork_pieces, kwork_piece, k);
    if (pc->end <= w0 || pc->start >= w1)
      continue;
    const kwork_band *band = &g_array_index(v->kwork_bands, kwork_band, pc->band);
    uint64_t key = mix(0x6b776f726bull, (uint64_t)(uint32_t)band->pid), qs, qe;
    on_grid(pc->start, pc->end, q, &qs, &qe);
    paint(&rows[band->row - v->kwork_row0], q, qs, qe, key, band->label, RSP_NO_ID, RSP_FRAME_KWORK);
    paint(&rows[band->row - 1 - v->kwork_row0], q, qs, qe, mix(key, (uint64_t)(uintptr_t)pc->doer), pc->doer,
          RSP_NO_ID, RSP_FRAME_KWORK);
  }
  if (!cancelled)
    finish_rows(&sink, rows, v->kwork_row0, v->n_rows);
  finish_rows(&sink, rows, v->n_rows, v->n_rows);
  s->row_first[v->n_rows] = (uint32_t)sink.n_cells;
  s->block_first[v->n_rows] = (uint32_t)sink.n_blocks;
  s->cells = g_renew(cell, s->cells, sink.n_cells + 1); /* trimmed */
  s->block_max = g_renew(uint64_t, s->block_max, sink.n_blocks + 1);
  s->n_cells = (uint32_t)sink.n_cells;
  for (int r = 0; r <= v->max_band; r++)
    g_free(rows[r].out);
  g_free(rows);
  s->n_labels = li.labels->len;
  s->labels = (const char **)g_ptr_array_free(li.labels, FALSE);
  g_hash_table_destroy(li.index);
}

/* The elements that may overlap [T0, T1), by start mostly, into IDS (a new array; *N of them). */
static rsp_elem_id *elems_around(const rsp_flame_view *v, uint64_t t0, uint64_t t1, uint32_t *n)
{
  uint32_t n_elems = rsp_paths_n_elems(v->paths);
  /* an element not in long_elems lasts at most long_ns: it starts at t0 - long_ns or later */
  uint64_t from = t0 > v->long_ns ? t0 - v->long_ns : 0;
  uint32_t lo = 0, hi = n_elems;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (rsp_paths_elem(v->paths, v->order[mid])->start < from)
      lo = mid + 1;
    else
      hi = mid;
  }
  GArray *a = g_array_new(FALSE, FALSE, sizeof(rsp_elem_id));
  for (guint k = 0; k < v->long_elems->len; k++) {
    rsp_elem_id id = g_array_index(v->long_elems, rsp_elem_id, k);
    const rsp_path_elem *e = rsp_paths_elem(v->paths, id);
    if (e->start < t1 && elem_end(e) > t0)
      g_array_append_val(a, id);
  }
  for (uint32_t k = lo; k < n_elems; k++) {
    const rsp_path_elem *e = rsp_paths_elem(v->paths, v->order[k]);
    if (e->start >= t1)
      break;
    if (elem_end(e) > t0 && elem_end(e) - e->start <= v->long_ns)
      g_array_append_val(a, v->order[k]);
  }
  *n = a->len;
  return (rsp_elem_id *)(void *)g_array_free(a, FALSE);
}

/* A zoomed-in window cut in a worker: the elements IDS (N) on a grid of Q for [W0, W1), into OUT. */
typedef struct cut_job {
  rsp_flame_view *v;
  GThread *thread;
  rsp_elem_id *ids;
  uint32_t n;
  uint64_t q, w0, w1;
  cell_set out;
  gint cancel, done; /* atomic */
} cut_job;

static gpointer cut_in_worker(gpointer data)
{
  cut_job *j = data;
  cut_set(j->v, &j->out, j->ids, j->n, j->q, j->w0, j->w1, false, &j->cancel);
  g_atomic_int_set(&j->done, 1);
  if (!g_atomic_int_get(&j->cancel))
    j->v->ready(j->v->ready_data);
  return NULL;
}

/* The worker's job taken back (cancelled first with CANCEL), its thread joined; NULL when there is none. */
static cut_job *take_job(rsp_flame_view *v, bool cancel)
{
  cut_job *j = v->job;
  if (!j)
    return NULL;
  if (cancel)
    g_atomic_int_set(&j->cancel, 1);
  g_thread_join(j->thread);
  v->job = NULL;
  return j;
}

static void job_free(cut_job *j)
{
  if (!j)
    return;
  cell_set_clear(&j->out);
  g_free(j->ids);
  g_free(j);
}

/* ---- Building -------------------------------------------------------------------------------------- */

/* Gathering the kernel work parts drawn: a band per process, in the order met. */
static void gather_kwork(const rsp_kernel_work_part *part, void *data)
{
  rsp_flame_view *v = data;
  if (part->ns <= 0) /* all of it drawn on the paths already, or nothing in the recording's time */
    return;
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
    g_hash_table_add(v->frame_labels, (gpointer)band.label);
    g_array_append_val(v->kwork_bands, band);
  }
  g_array_index(v->kwork_bands, kwork_band, b).n_parts++;
  kwork_piece pc = { part->start, part->end > part->start ? part->end : part->start + 1, b,
                     g_string_chunk_insert_const(v->labels, part->doer) };
  g_hash_table_add(v->frame_labels, (gpointer)pc.doer);
  g_array_append_val(v->kwork_pieces, pc);
}

/* The elements by start, into ORDER: each path's elements come by (depth, start), so each (path, depth) is a run
 * already sorted; the runs are merged through a heap of their heads (ties by element id), with no copy of the
 * elements' starts beside them (56 MB on deep3m sorted whole). */
typedef struct run_head {
  uint64_t start;
  rsp_elem_id id;
  rsp_path_id path;
  uint32_t next, end; /* the run's next element and end, indexes in its path */
} run_head;

static bool head_before(const run_head *x, const run_head *y)
{
  return x->start != y->start ? x->start < y->start : x->id < y->id;
}

static void sift_down(run_head *heap, uint32_t n, uint32_t i)
{
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && head_before(&heap[l], &heap[m]))
      m = l;
    if (r < n && head_before(&heap[r], &heap[m]))
      m = r;
    if (m == i)
      return;
    run_head t = heap[i];
    heap[i] = heap[m];
    heap[m] = t;
    i = m;
  }
}

static void order_by_start(const rsp_paths *paths, rsp_elem_id *order)
{
  GArray *heads = g_array_new(FALSE, FALSE, sizeof(run_head));
  for (rsp_path_id p = 0; p < rsp_paths_n_paths(paths); p++) {
    const rsp_path *path = rsp_paths_path(paths, p);
    for (uint32_t i = 0; i < path->n_elems;) {
      uint16_t depth = rsp_paths_elem(paths, rsp_paths_path_elem(paths, p, i))->depth;
      uint32_t j = i + 1;
      while (j < path->n_elems && rsp_paths_elem(paths, rsp_paths_path_elem(paths, p, j))->depth == depth)
        j++;
      rsp_elem_id id = rsp_paths_path_elem(paths, p, i);
      run_head h = { rsp_paths_elem(paths, id)->start, id, p, i + 1, j };
      g_array_append_val(heads, h);
      i = j;
    }
  }
  run_head *heap = (run_head *)(void *)heads->data;
  uint32_t n = heads->len, k = 0;
  for (uint32_t i = n / 2; i-- > 0;)
    sift_down(heap, n, i);
  while (n) {
    order[k++] = heap[0].id;
    if (heap[0].next < heap[0].end) {
      heap[0].id = rsp_paths_path_elem(paths, heap[0].path, heap[0].next++);
      heap[0].start = rsp_paths_elem(paths, heap[0].id)->start;
    } else {
      heap[0] = heap[--n];
    }
    sift_down(heap, n, 0);
  }
  g_array_free(heads, TRUE);
  g_warn_if_fail(k == rsp_paths_n_elems(paths)); /* every element is on one path */
}

rsp_flame_view *rsp_flame_view_new(const rsp_paths *paths)
{
  return rsp_flame_view_new_kwork(paths, NULL);
}

rsp_flame_view *rsp_flame_view_new_kwork(const rsp_paths *paths, const rsp_kernel_work *kw)
{
  return rsp_flame_view_new_cut(paths, kw, EXACT_FRAMES);
}

rsp_flame_view *rsp_flame_view_new_cut(const rsp_paths *paths, const rsp_kernel_work *kw, uint64_t exact_frames)
{
  rsp_flame_view *v = g_new0(rsp_flame_view, 1);
  v->exact_frames = exact_frames;
  v->kwork_bands = g_array_new(FALSE, FALSE, sizeof(kwork_band));
  v->kwork_pieces = g_array_new(FALSE, FALSE, sizeof(kwork_piece));
  v->long_elems = g_array_new(FALSE, FALSE, sizeof(rsp_elem_id));
  v->frame_labels = g_hash_table_new(g_direct_hash, g_direct_equal);
  v->paths = paths;
  v->model = rsp_paths_model(paths);
  v->labels = g_string_chunk_new(4096);
  uint32_t n_paths = rsp_paths_n_paths(paths), n_elems = rsp_paths_n_elems(paths);
  v->path_label_row = g_new0(int, n_paths + 1);
  v->path_row0 = g_new0(int, n_paths + 1);
  v->path_label_task = g_new0(rsp_task_id, n_paths + 1);
  v->base_row = g_new(int32_t, n_elems + 1);
  v->height = g_new0(uint32_t, n_elems + 1);
  v->top_key = g_new0(uint64_t, n_elems + 1);
  v->task_label = g_new0(const char *, rsp_model_n_tasks(v->model) + 1);
  int32_t *top = g_new(int32_t, n_elems + 1);
  for (uint32_t i = 0; i < n_elems; i++)
    v->base_row[i] = top[i] = -1;
  key_memo *memo = g_new0(key_memo, KEY_MEMO);
  /* heights: a layer stands on its parent's top; elements come in (depth, start) order */
  int row = 0;
  uint64_t frames = 0;
  for (rsp_path_id p = 0; p < n_paths; p++) {
    const rsp_path *path = rsp_paths_path(paths, p);
    if (!path->n_elems)
      continue;
    int band = 0;
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(paths, p, i);
      const rsp_path_elem *e = rsp_paths_elem(paths, id);
      unsigned kinds = 0;
      measure ms = { 0 };
      uint32_t most = rsp_layer_columns(v->model, e, measure_column, &ms, &kinds);
      frames += ms.frames;
      v->height[id] = most;
      v->top_key[id] = top_key(memo, base_key(v, e), ms.last);
      if ((e->kind == RSP_ELEM_RUN || e->kind == RSP_ELEM_SLEEP) && e->task < rsp_model_n_tasks(v->model) &&
          !v->task_label[e->task]) {
        char buf[96];
        v->task_label[e->task] = g_string_chunk_insert_const(v->labels, rsp_layer_base_label(v->model, e, buf, sizeof buf));
        g_hash_table_add(v->frame_labels, (gpointer)v->task_label[e->task]);
      } else if (e->kind == RSP_ELEM_DISK || e->kind == RSP_ELEM_NET) {
        g_hash_table_add(v->frame_labels, (gpointer)base_label(v, e));
      }
      int32_t bottom = e->parent != RSP_NO_ID && e->parent < n_elems && top[e->parent] >= 0 ? top[e->parent] : 0;
      v->base_row[id] = bottom; /* from the band's bottom, for now */
      if (e->depth == 0)
        v->path_label_task[p] = e->task;
      top[id] = bottom + 1 + (int32_t)most;
      if (top[id] > band)
        band = top[id];
    }
    int base = row + band - 1; /* the band's row 0 (its bottom) */
    v->path_row0[p] = row;
    v->max_band = MAX(v->max_band, band);
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(paths, p, i);
      v->base_row[id] = base - v->base_row[id];
    }
    v->path_label_row[p] = base;
    row += band + 1; /* a blank row between paths */
  }
  g_free(top);
  g_free(memo);
  /* the kernel work bands under the paths: the doers' row, then "kernel work for X" */
  if (kw)
    rsp_kernel_work_paths_parts(kw, paths, 0, 0, gather_kwork, v);
  v->kwork_row0 = row;
  for (guint b = 0; b < v->kwork_bands->len; b++) {
    g_array_index(v->kwork_bands, kwork_band, b).row = row + 1;
    row += 3;
  }
  v->n_rows = row;
  v->max_band = MAX(v->max_band, row - v->kwork_row0);
  /* the elements by start; the long ones apart (an element lasting more than 1/1024 of the recording) */
  v->order = g_new(rsp_elem_id, n_elems + 1);
  order_by_start(paths, v->order);
  uint64_t lo = UINT64_MAX, hi = 0;
  for (uint32_t i = 0; i < n_elems; i++) {
    const rsp_path_elem *e = rsp_paths_elem(paths, v->order[i]);
    lo = MIN(lo, e->start);
    hi = MAX(hi, elem_end(e));
  }
  for (guint k = 0; k < v->kwork_pieces->len; k++) {
    lo = MIN(lo, g_array_index(v->kwork_pieces, kwork_piece, k).start);
    hi = MAX(hi, g_array_index(v->kwork_pieces, kwork_piece, k).end);
  }
  uint64_t span = hi > lo ? hi - lo : 1;
  v->long_ns = MAX(span / 1024, 1);
  for (uint32_t i = 0; i < n_elems; i++) {
    const rsp_path_elem *e = rsp_paths_elem(paths, v->order[i]);
    if (elem_end(e) - e->start > v->long_ns)
      g_array_append_val(v->long_elems, v->order[i]);
  }
  /* the whole, exactly when it is small enough, else on a grid that the zoomed in views cut finer */
  uint64_t q = frames <= exact_frames ? 0 : MAX(span / WHOLE_GRID, 1);
  cut_set(v, &v->whole, v->order, n_elems, q, 0, UINT64_MAX, true, NULL);
  uint32_t n_runs = rsp_model_n_runs(v->model);
  v->run_row = g_new(int32_t, n_runs + 1);
  for (uint32_t i = 0; i < n_runs; i++)
    v->run_row[i] = -1;
  for (uint32_t i = 0; i < n_elems; i++) {
    const rsp_path_elem *e = rsp_paths_elem(paths, i);
    if (e->kind == RSP_ELEM_RUN && e->id < n_runs && v->base_row[i] >= 0)
      v->run_row[e->id] = v->base_row[i];
  }
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
  job_free(take_job(v, true));
  cell_set_clear(&v->whole);
  cell_set_clear(&v->zoom);
  if (v->match_items)
    g_array_free(v->match_items, true);
  g_free(v->base_row);
  g_free(v->height);
  g_free(v->top_key);
  g_free(v->order);
  g_array_free(v->long_elems, true);
  g_free(v->task_label);
  g_hash_table_destroy(v->frame_labels);
  g_free(v->path_label_row);
  g_free(v->path_row0);
  g_free(v->path_label_task);
  g_free(v->run_row);
  g_array_free(v->segments, true);
  for (int k = 0; k < N_SHADES; k++)
    g_array_free(v->fills[k], true);
  g_array_free(v->kwork_bands, true);
  g_array_free(v->kwork_pieces, true);
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
  const cell_set *s = &v->whole; /* on its grid: pieces closer than a grid step are one */
  bool *matches = g_new(bool, s->n_labels + 1);
  for (uint32_t k = 0; k < s->n_labels; k++)
    matches[k] = rsp_label_matches(s->labels[k], v->search);
  for (int r = 0; r < v->n_rows; r++) {
    flame_match cur = { 0, 0, -1 };
    uint32_t cur_label = 0;
    row_cells rc = row_of(s, r);
    for (uint32_t i = 0; i < rc.n; i++) {
      const cell *c = &rc.cells[i];
      if (!matches[c->label])
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
  g_free(matches);
  g_array_sort(v->match_items, cmp_flame_match);
  uint32_t n = 0;
  GHashTableIter it;
  gpointer label;
  g_hash_table_iter_init(&it, v->frame_labels);
  while (g_hash_table_iter_next(&it, &label, NULL))
    n += rsp_label_matches(label, v->search);
  return n;
}

int rsp_flame_view_path_row(const rsp_flame_view *v, rsp_path_id path)
{
  return path < rsp_paths_n_paths(v->paths) ? v->path_label_row[path] : 0;
}

rsp_task_id rsp_flame_view_path_task(const rsp_flame_view *v, rsp_path_id path)
{
  return path < rsp_paths_n_paths(v->paths) && rsp_paths_path(v->paths, path)->n_elems ? v->path_label_task[path]
                                                                                       : RSP_NO_ID;
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

/* The first of row RC's cells at or after FROM that ends after T or has a predecessor that does (the cells before
 * it all end by T, when it is past FROM): the first block whose maximum is past T by galloping from FROM's, then a
 * binary search; the probes stay near FROM, so a redraw's many searches, each just past the last, touch few cache
 * lines. Then that block's cells. */
static uint32_t first_reaching(const row_cells *rc, uint32_t from, uint64_t t)
{
  uint32_t n = rc->n;
  if (from >= n)
    return from;
  const uint64_t *bm = rc->block_max;
  uint32_t nb = (n + BLOCK - 1) / BLOCK, b = from / BLOCK;
  if (bm[b] <= t) {
    uint32_t lo = b, step = 1; /* bm[lo] <= t */
    while (step < nb - lo && bm[lo + step] <= t) {
      lo += step;
      step <<= 1;
    }
    uint32_t hi = step < nb - lo ? lo + step : nb; /* bm[hi] > t, or hi = nb */
    lo++;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (bm[mid] > t)
        hi = mid;
      else
        lo = mid + 1;
    }
    if (lo == nb)
      return n;
    b = lo;
    from = b * BLOCK; /* every cell before it ends by T */
  }
  if (b && bm[b - 1] > t) /* one before FROM's block ends after T */
    return from;
  const cell *c = rc->cells;
  for (uint32_t i = b * BLOCK; i < from; i++) /* one before FROM in its block ends after T: FROM */
    if (c[i].end > t)
      return from;
  uint32_t i = from;
  while (c[i].end <= t) /* bm[b] > t: one of the block's cells ends after T */
    i++;
  return i;
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

void rsp_flame_view_set_ready_hook(rsp_flame_view *v, void (*ready)(void *data), void *data)
{
  job_free(take_job(v, true));
  v->ready = ready;
  v->ready_data = data;
}

/* The cells to draw VP with: the whole's when a pixel is at least two of its grid steps, else the zoomed in view's,
 * cut again (on a grid of a quarter of a pixel, over the viewport and a viewport's width on each side) when a pixel
 * of VP is less than two of its steps or VP leaves its window. With a ready hook the cut is the worker's, the
 * whole's cells drawn meanwhile. */
static const cell_set *cells_for(rsp_flame_view *v, const rsp_viewport *vp, const rsp_style *style)
{
  double plot = vp->width - style->label_width > 1 ? vp->width - style->label_width : 1;
  uint64_t span = vp->t1 > vp->t0 ? vp->t1 - vp->t0 : 1;
  double pixel = (double)span / plot;
  if (pixel >= 2.0 * (double)v->whole.q) /* its ends within a quarter of a pixel */
    return v->drawn = &v->whole;
  cell_set *z = &v->zoom;
  cut_job *j = v->job;
  if (j && g_atomic_int_get(&j->done)) { /* the worker's window is ready */
    take_job(v, false);
    cell_set_clear(z);
    *z = j->out;
    j->out = (cell_set){ 0 };
    job_free(j);
    j = NULL;
  }
  if (z->row_first && 2.0 * (double)z->q <= pixel && vp->t0 >= z->w0 && vp->t1 <= z->w1)
    return v->drawn = z;
  if (j && 2.0 * (double)j->q <= pixel && vp->t0 >= j->w0 && vp->t1 <= j->w1)
    return v->drawn = &v->whole; /* being cut */
  uint64_t w0 = vp->t0 > span ? vp->t0 - span : 0, w1 = vp->t1 + span, q = (uint64_t)(pixel / 4), frames = 0;
  uint32_t n = 0;
  rsp_elem_id *ids = elems_around(v, w0, w1, &n);
  for (uint32_t k = 0; k < n; k++)
    frames += v->height[ids[k]] + 1;
  if (frames <= v->exact_frames / 2) /* few enough (a column an element, mostly): exactly */
    q = 0;
  if (!v->ready) {
    cut_set(v, z, ids, n, q, w0, w1, false, NULL);
    g_free(ids);
    return v->drawn = z;
  }
  job_free(take_job(v, true));
  j = g_new0(cut_job, 1);
  *j = (cut_job){ .v = v, .ids = ids, .n = n, .q = q, .w0 = w0, .w1 = w1 };
  v->job = j;
  j->thread = g_thread_new("rsp-flame-cut", cut_in_worker, j);
  return v->drawn = &v->whole;
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
  const cell_set *s = cells_for(v, vp, style);
  for (int r = 0; r < v->n_rows; r++) {
    int y = style->ruler_height + r * rh - vp->scroll_y;
    row_cells row = row_of(s, r);
    if (y + rh <= style->ruler_height || y >= vp->height || !row.n)
      continue;
    const row_cells *rc = &row;
    const cell *c = rc->cells;
    uint32_t n = rc->n;
    bool pending = false; /* the frame being extended */
    uint64_t pend_key = 0;
    const char *pend_label = NULL;
    unsigned pend_kinds = 0;
    double pend_x0 = 0, pend_x1 = 0;
    for (uint32_t i = first_reaching(rc, 0, vp->t0); i < n && c[i].start < vp->t1; i++) {
      if (c[i].end <= vp->t0)
        continue;
      double x0 = floor(rsp_viewport_x(vp, style, c[i].start > vp->t0 ? c[i].start : vp->t0));
      double x1 = ceil(rsp_viewport_x(vp, style, c[i].end < vp->t1 ? c[i].end : vp->t1));
      if (x1 - x0 < 1)
        x1 = x0 + 1;
      unsigned kinds = cell_kinds(&c[i]);
      if ((kinds & RSP_FRAME_PROCESS) && x1 - x0 > 1) {
        const rsp_path_elem *e = rsp_paths_elem(v->paths, c[i].elem);
        if (e->kind == RSP_ELEM_RUN) /* the links into this run from runs on the paths */
          add_links(v, e, vp, style, y);
      }
      if (pending && cell_key(&c[i]) == pend_key && x0 <= pend_x1) {
        /* adjacent equal frames: one frame, of everything it stands for */
        if (x1 > pend_x1)
          pend_x1 = x1;
        pend_kinds |= kinds;
      } else if (pending && x1 <= pend_x1) {
        /* hidden inside the frame being drawn: nothing visible separates its pieces */
      } else {
        if (pending)
          paint_cell(cr, v, pend_label, pend_kinds, pend_x0, pend_x1, y, style);
        pending = true;
        pend_key = cell_key(&c[i]);
        pend_label = s->labels[c[i].label];
        pend_kinds = kinds;
        pend_x0 = x0;
        pend_x1 = x1;
      }
      /* level of detail: the cells that end inside the pixels the frame being drawn covers change
       * nothing visible (an equal one would only extend it within them): jump past them */
      uint32_t j = first_reaching(rc, i + 1, rsp_viewport_time(vp, style, pend_x1));
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

typedef struct find_frame {
  uint64_t t;
  uint32_t index; /* from the outermost */
  const char *label;
} find_frame;

static void find_frame_column(uint64_t start, uint64_t end, rsp_stack_frames frames, void *data)
{
  find_frame *f = data;
  uint32_t n = frames.n;
  if (f->t >= start && f->t < end && f->index < n)
    f->label = rsp_frame_at(frames, n - 1 - f->index)->label ? rsp_frame_at(frames, n - 1 - f->index)->label : "?";
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
  /* the element whose layer has a frame there: its frames are exact, whatever the grid drawn */
  uint32_t n = 0;
  rsp_elem_id *ids = elems_around(v, t, t + 1, &n);
  bool found = false;
  for (uint32_t k = 0; k < n && !found; k++) {
    rsp_elem_id id = ids[k];
    const rsp_path_elem *e = rsp_paths_elem(v->paths, id);
    int32_t base = v->base_row[id];
    if (base < 0 || row > base || row < base - (int32_t)v->height[id] || t < e->start || t >= elem_end(e))
      continue;
    const char *l = NULL;
    if (row == base) {
      l = base_label(v, e);
    } else {
      find_frame f = { t, (uint32_t)(base - 1 - row), NULL };
      unsigned kinds = 0;
      rsp_layer_columns(v->model, e, find_frame_column, &f, &kinds);
      l = f.label;
    }
    if (l) {
      *elem = id;
      if (label)
        *label = l;
      found = true;
    }
  }
  g_free(ids);
  if (found)
    return true;
  /* kernel work: its frames as drawn */
  const cell_set *s = v->drawn ? v->drawn : &v->whole;
  row_cells rc = row_of(s, row);
  const cell *c = rc.cells;
  uint32_t nc = rc.n;
  for (uint32_t i = first_reaching(&rc, 0, t); i < nc && c[i].start <= t; i++)
    if (c[i].end > t && c[i].elem == RSP_NO_ID) {
      if (label)
        *label = s->labels[c[i].label];
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

uint32_t rsp_flame_view_n_cells(const rsp_flame_view *v)
{
  return v->whole.n_cells;
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
