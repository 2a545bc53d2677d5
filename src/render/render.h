/* rsp render: analysis + viewport -> cairo drawing, one file per view. Used by the app, by --export
 * and by the pixel tests; nothing here knows about GTK.
 *
 * The one public header of src/render/. Drawing is a function of (data, viewport, style): the
 * GTK widget, the PNG/SVG export and the pixel tests all call the same functions. Needs cairo only.
 */
#pragma once

#include <cairo.h>

#include "analysis/analysis.h"
#include "model/model.h"

G_BEGIN_DECLS

/* ---- Style ------------------------------------------------------------------------------------ */
typedef struct rsp_rgb {
  double r, g, b;
} rsp_rgb;

/* Colours as in the paper: run red, sleep blue, both purple, process names grey, blocking I/O green. */
typedef struct rsp_style {
  rsp_rgb background, row_alt, label_bg, text, process_bg, process_text;
  rsp_rgb run, sleep, both, io, disk, net, kwork, link, link_wakeup, ruler_bg, ruler_text, grid, match, selection;
  int row_height;    /* pixels per task row */
  int label_width;   /* pixels of the name column at the left */
  int ruler_height;  /* pixels of the time ruler at the top */
  double font_size;
} rsp_style;

/* The default style (a static object: do not free). */
const rsp_style *rsp_style_default(void);
/* "#rrggbb" of C, into BUF (8 bytes), for tests and CSS. */
const char *rsp_rgb_to_hex(rsp_rgb c, char buf[8]);

/* ---- Viewport --------------------------------------------------------------------------------- */
typedef struct rsp_viewport {
  uint64_t t0, t1;   /* the visible time range, recording time (ns), t0 < t1 */
  int width, height; /* pixels of the whole drawing, ruler and name column included */
  int scroll_y;      /* pixels of rows scrolled off the top */
} rsp_viewport;

/* X of time T (may lie outside the drawing) and the time at X, with STYLE's name column. */
double rsp_viewport_x(const rsp_viewport *vp, const rsp_style *style, uint64_t t);
uint64_t rsp_viewport_time(const rsp_viewport *vp, const rsp_style *style, double x);
/* Zooms by FACTOR (< 1: in) around the time at pixel X, clamped to [LO, HI] and to >= 1 us. */
void rsp_viewport_zoom(rsp_viewport *vp, const rsp_style *style, double factor, double x, uint64_t lo,
                       uint64_t hi);
/* Pans by DX pixels (positive: later), clamped to [LO, HI]. */
void rsp_viewport_pan(rsp_viewport *vp, const rsp_style *style, double dx, uint64_t lo, uint64_t hi);

/* ---- Time ruler ------------------------------------------------------------------------------- */
/* Draws the ruler (ticks with units, times relative to ORIGIN) across the top of VP. */
void rsp_time_ruler_draw(cairo_t *cr, const rsp_viewport *vp, const rsp_style *style, uint64_t origin);
/* The ruler's label of a tick at T (ns from the origin) STEP apart from the next, on a ruler whose
 * last tick is at MAX: in the step's unit, or a larger one when the numbers would reach 5 digits
 * ("1061.5 ms", never "1061500 us"), with the decimals STEP needs, into BUF. */
const char *rsp_format_tick(uint64_t t, uint64_t step, uint64_t max, char *buf, size_t size);
/* A duration as text with a unit ("1.50 ms", "230 us", "2.000 s") into BUF. */
const char *rsp_format_duration(uint64_t ns, char *buf, size_t size);
/* Parses "1.5ms", "200us", "3s", "1500ns", "2" (seconds) into NS. */
bool rsp_parse_duration(const char *text, uint64_t *ns);
/* "T0:T1", two such durations with T0 < T1 (a --range option: from the recording's start). */
bool rsp_parse_range(const char *text, uint64_t *t0, uint64_t *t1);

/* ---- Process Running View --------------------------------------------------------------------- */
typedef struct rsp_running_view rsp_running_view;

typedef enum {
  RSP_SORT_BY_PID,
  RSP_SORT_BY_NAME,
  RSP_SORT_BY_RUNTIME, /* most on-CPU time first */
} rsp_sort_order;

/* Precomputes, once, per-task sorted run and sleep arrays and the row layout: drawing then costs
 * O(visible rows x visible pixel columns x log runs), never O(trace). MODEL must outlive the view. */
rsp_running_view *rsp_running_view_new(const rsp_model *model);
void rsp_running_view_free(rsp_running_view *view);
const rsp_model *rsp_running_view_model(const rsp_running_view *view);

void rsp_running_view_set_sort(rsp_running_view *view, rsp_sort_order order);
/* Keeps only the processes one of whose threads' names (or pid) contains TEXT (NULL/"": all). */
void rsp_running_view_set_filter(rsp_running_view *view, const char *text);
/* Highlights tasks whose name, and sleeps whose label function, contains TEXT (NULL/"": none).
 * Returns the number of matching tasks plus matching sleep labels' distinct functions. */
uint32_t rsp_running_view_set_search(rsp_running_view *view, const char *text);
void rsp_running_view_set_show_sleeps(rsp_running_view *view, bool show);
void rsp_running_view_set_show_links(rsp_running_view *view, bool show);
/* The process whose wait chain is highlighted (-1: none). */
void rsp_running_view_set_focus_pid(rsp_running_view *view, int32_t pid);

/* Highlights the wait chain: every run and sleep on PATHS (the control paths of the process of
 * interest) gets a strip along its row's top, and the tasks on them are highlighted by name.
 * NULL: none. PATHS must outlive the view or be unset first. */
void rsp_running_view_set_wait_chain(rsp_running_view *view, const rsp_paths *paths);

/* PIDS (N of them; the processes on the control paths, the process of interest first) shown first, in
 * that order; below them one row "other processes (K)" and, unless FOLD_OTHERS, the others in the sort
 * order. N 0: every process in the sort order, no fold row. */
void rsp_running_view_set_first(rsp_running_view *view, const int32_t *pids, uint32_t n, bool fold_others);
/* The other processes hidden under their row (true) or shown below it; the fold row's click. */
void rsp_running_view_set_others_folded(rsp_running_view *view, bool folded);
bool rsp_running_view_others_folded(const rsp_running_view *view);
/* How many processes the fold row stands for (0: no fold row). */
uint32_t rsp_running_view_n_others(const rsp_running_view *view);

/* Rows (process headers and threads) currently shown, and the pixel height they take. */
uint32_t rsp_running_view_n_rows(const rsp_running_view *view);
int rsp_running_view_content_height(const rsp_running_view *view, const rsp_style *style);
/* Y (top) of TASK's row in VP, or -1 when it is not shown. */
int rsp_running_view_task_y(const rsp_running_view *view, const rsp_viewport *vp, const rsp_style *style,
                            rsp_task_id task);

void rsp_running_view_draw(rsp_running_view *view, cairo_t *cr, const rsp_viewport *vp, const rsp_style *style);

/* What is under pixel (X, Y). */
typedef enum {
  RSP_HIT_NOTHING,
  RSP_HIT_PROCESS, /* a process header row (pid set) */
  RSP_HIT_TASK,    /* a task's name (task set) */
  RSP_HIT_RUN,     /* task and run set */
  RSP_HIT_SLEEP,   /* task and sleep set */
  RSP_HIT_FOLD,    /* the "other processes" row (rsp_running_view_set_first) */
} rsp_hit_kind;

typedef struct rsp_hit {
  rsp_hit_kind kind;
  int32_t pid;
  rsp_task_id task;
  rsp_run_id run;
  rsp_sleep_id sleep;
} rsp_hit;

void rsp_running_view_hit(const rsp_running_view *view, const rsp_viewport *vp, const rsp_style *style,
                          double x, double y, rsp_hit *out);
/* A multi-line description of HIT for tooltips and the details pane (durations, stacks across the
 * kernel/user boundary, who woke it). Free with g_free. */
char *rsp_running_view_describe(const rsp_running_view *view, const rsp_hit *hit);

/* ---- Flame View ------------------------------------------------------------------------------
 * The control paths of a process (analysis layer), each pseudo-stack layer drawn as its stack of
 * functions (process name at its base), x = time, y = stack depth. PATHS must outlive the view. */
typedef struct rsp_flame_view rsp_flame_view;
rsp_flame_view *rsp_flame_view_new(const rsp_paths *paths);
/* The same with the kernel work KW (NULL: none) done for the paths' processes, a band under the paths per process:
 * "kernel work for X" where the work ran, its doer above; what the paths already draw is not drawn twice
 * (rsp_kernel_work_paths_parts). KW is not kept. */
rsp_flame_view *rsp_flame_view_new_kwork(const rsp_paths *paths, const rsp_kernel_work *kw);
void rsp_flame_view_free(rsp_flame_view *view);
int rsp_flame_view_content_height(const rsp_flame_view *view, const rsp_style *style);
void rsp_flame_view_draw(rsp_flame_view *view, cairo_t *cr, const rsp_viewport *vp, const rsp_style *style);
/* Zoomed in on big paths, the drawing needs the viewport's surroundings cut again (up to a few tenths of a second
 * for millions of elements). By default the draw does it; with READY set, a worker does, the draws meanwhile show
 * the whole recording's cut (coarser), and READY (DATA) is called from the worker when the window is ready: queue
 * a redraw from it (g_idle_add). Set before drawing; the view waits for its worker when freed. */
void rsp_flame_view_set_ready_hook(rsp_flame_view *view, void (*ready)(void *data), void *data);
/* The element under (X, Y), if any (not a frame of kernel work: no element). */
bool rsp_flame_view_hit(const rsp_flame_view *view, const rsp_viewport *vp, const rsp_style *style, double x,
                        double y, rsp_elem_id *out);
/* The element and the frame's label (a function, or the process row's "comm tid") under (X, Y); a frame of kernel
 * work has a label and no element (RSP_NO_ID). */
bool rsp_flame_view_frame_at(const rsp_flame_view *view, const rsp_viewport *vp, const rsp_style *style, double x,
                             double y, rsp_elem_id *elem, const char **label);
/* Outlines the frames whose function or process contains TEXT, ignoring case (NULL/"": none).
 * Returns the number of distinct matching labels. */
uint32_t rsp_flame_view_set_search(rsp_flame_view *view, const char *text);
/* The row (from the top, in row_height units) of PATH's base: its process of interest's frames. */
int rsp_flame_view_path_row(const rsp_flame_view *view, rsp_path_id path);
/* The task PATH is named after (its last root-level element's: the process's name after an exec), as the view labels
 * it; RSP_NO_ID for no such path. */
rsp_task_id rsp_flame_view_path_task(const rsp_flame_view *view, rsp_path_id path);
/* Shades the time range [T0, T1) (T0 >= T1: none), a range selected in another view. */
void rsp_flame_view_set_selection(rsp_flame_view *view, uint64_t t0, uint64_t t1);
/* The wakeup links drawn between its rows (the default), or not. Zoomed out, links that fall on the
 * same pixels are drawn once, and faint when they still crowd the plot. */
void rsp_flame_view_set_show_links(rsp_flame_view *view, bool show);
/* The search's matching frames one by one, to step through: by time, a frame's adjacent pieces as
 * one. The I-th's span and row (0: the top row of the drawing); false past the end. */
uint32_t rsp_flame_view_n_match_items(const rsp_flame_view *view);
bool rsp_flame_view_match_item(const rsp_flame_view *view, uint32_t i, uint64_t *t0, uint64_t *t1, int *row);

/* ---- Consolidated Flame View ---------------------------------------------------------------------
 * Matching pseudo-stacks merged and sorted by duration, level by level, each layer drawn as its stack
 * (process, then functions) as in the flame view; x is accumulated duration
 * (0 .. rsp_consolidated_view_total), y depth; VP's t0/t1 zoom and pan along it, scroll_y along y.
 * PATHS must outlive the view. */
typedef struct rsp_consolidated_view rsp_consolidated_view;
rsp_consolidated_view *rsp_consolidated_view_new(const rsp_paths *paths);
/* Gathers only what happened in [T0, T1) (recording time): each frame clipped to it, a time range
 * selected in another view. */
rsp_consolidated_view *rsp_consolidated_view_new_range(const rsp_paths *paths, uint64_t t0, uint64_t t1);
/* The same with the stack tree's FLAGS (RSP_STACK_TREE_USER_WAITS: each sleep by its user-space wait site only,
 * as the app shows it, so a chain of processes fits on screen). */
rsp_consolidated_view *rsp_consolidated_view_new_flags(const rsp_paths *paths, uint64_t t0, uint64_t t1,
                                                       unsigned flags);
/* The same with the kernel work KW (NULL: none) done for the paths' processes: a root "kernel work for X" per
 * process, its doers above (rsp_stack_tree_build_kwork). KW is not kept. */
rsp_consolidated_view *rsp_consolidated_view_new_kwork(const rsp_paths *paths, const rsp_kernel_work *kw, uint64_t t0,
                                                       uint64_t t1, unsigned flags);
void rsp_consolidated_view_free(rsp_consolidated_view *view);
uint64_t rsp_consolidated_view_total(const rsp_consolidated_view *view);
int rsp_consolidated_view_content_height(const rsp_consolidated_view *view, const rsp_style *style);
void rsp_consolidated_view_draw(rsp_consolidated_view *view, cairo_t *cr, const rsp_viewport *vp,
                                const rsp_style *style);
bool rsp_consolidated_view_node_at(const rsp_consolidated_view *view, const rsp_viewport *vp,
                                   const rsp_style *style, double x, double y, const char **label,
                                   uint64_t *duration, uint32_t *n_merged);
/* Outlines the frames whose function or process contains TEXT, ignoring case (NULL/"": none).
 * Returns the number of matching frames. */
uint32_t rsp_consolidated_view_set_search(rsp_consolidated_view *view, const char *text);

/* ---- Export ----------------------------------------------------------------------------------- */
/* Draws VIEW at VP into PATH, PNG or SVG by its extension, with the model's loss warnings as a
 * banner. */
bool rsp_export_running_view(rsp_running_view *view, const rsp_viewport *vp, const rsp_style *style,
                             const char *path, GError **error);
bool rsp_export_flame_view(rsp_flame_view *view, const rsp_model *model, const rsp_viewport *vp,
                           const rsp_style *style, const char *path, GError **error);
bool rsp_export_consolidated_view(rsp_consolidated_view *view, const rsp_model *model, const rsp_viewport *vp,
                                  const rsp_style *style, const char *path, GError **error);

/* ---- Histograms (issue 7) --------------------------------------------------------------------
 * A latency profile as OSprof draws it: log2 buckets along x (labelled in time units), a log y
 * axis, each bar stacked by the causes of its instances, the peaks labelled, and the
 * characteristic times of the recording as vertical markers. */
typedef struct rsp_histogram_style {
  double font_size;        /* 0: 10 */
  bool linear_y;           /* a linear y axis instead of log10(1 + count) */
} rsp_histogram_style;

/* The plot area inside WIDTH x HEIGHT (axes and labels outside it). */
void rsp_histogram_view_plot_area(double width, double height, const rsp_histogram_style *style, double *x,
                                  double *y, double *w, double *h);
/* Draws P into the rectangle (0, 0, WIDTH, HEIGHT) of CR. TIMES may be NULL. STYLE NULL: defaults. */
void rsp_histogram_view_draw(cairo_t *cr, double width, double height, const rsp_profile *p,
                             const rsp_characteristic_times *times, const rsp_histogram_style *style);
/* The bucket index drawn at X (for clicks), or INT32_MIN outside the bars. */
int32_t rsp_histogram_view_bucket_at(const rsp_profile *p, double width, double height,
                                     const rsp_histogram_style *style, double x);
/* The colour of a cause (stable, shared with the legend). */
void rsp_histogram_cause_color(rsp_category cat, double *r, double *g, double *b);

/* Time-sampled profile as a heat map: time down, buckets across, darker for more instances (log). */
void rsp_heat_map_draw(cairo_t *cr, double width, double height, const rsp_profile_timeline *t,
                       unsigned resolution, const rsp_histogram_style *style);

/* ---- Highlight sets in the Process Running View (issue 7) --------------------------------------
 * Intervals of tasks to point out (the instances of a histogram bucket, say): each is outlined in
 * its task's row, at least a few pixels wide so a short one shows at any zoom, and its task's name
 * is marked. Replaces the previous set; N 0: none. The items are copied. */
typedef struct rsp_highlight {
  rsp_task_id task;
  uint64_t start, end;
} rsp_highlight;

void rsp_running_view_set_highlights(rsp_running_view *view, const rsp_highlight *items, uint32_t n);
uint32_t rsp_running_view_n_highlights(const rsp_running_view *view);
/* The colour the highlights are drawn in. */
rsp_rgb rsp_running_view_highlight_color(void);
/* The search's matches one by one, to step through: the matched sleeps in time order, then the
 * matched tasks (over their first to last run). The I-th into OUT; false past the end. */
uint32_t rsp_running_view_n_match_items(const rsp_running_view *view);
bool rsp_running_view_match_item(const rsp_running_view *view, uint32_t i, rsp_highlight *out);

/* ---- Heat map of a time-sampled profile (issue 7, OSprof figure 9) -----------------------------
 * rsp_heat_map_draw (above) draws it; the cell under a pixel, for clicks and tooltips: its slice and
 * its bucket index. False outside the cells. */
bool rsp_heat_map_cell_at(const rsp_profile_timeline *t, double width, double height,
                          const rsp_histogram_style *style, double x, double y, uint32_t *slice, int32_t *bucket);
/* The fill of a cell of COUNT instances when the largest holds MAX (white for 0). */
void rsp_heat_map_color(uint64_t count, uint64_t max, double *r, double *g, double *b);

/* ---- Two profiles overlaid (the compare window, rsp-view --diff) -------------------------------
 * A and B (either may be NULL) of the same resolution on one log2 axis: in each bucket A's bar on
 * the left half, B's on the right, log y (or, with NORMALIZED, each as a share of its own count, so
 * shapes compare when the totals differ), each profile's peaks marked, a legend naming both. */
void rsp_histogram_compare_draw(cairo_t *cr, double width, double height, const rsp_profile *a,
                                const rsp_profile *b, const char *label_a, const char *label_b, bool normalized,
                                const rsp_histogram_style *style);
/* The colours of A's and B's bars. */
void rsp_histogram_compare_colors(rsp_rgb *a, rsp_rgb *b);
/* The bucket index at X of the overlaid drawing of A and B, or INT32_MIN outside. */
int32_t rsp_histogram_compare_bucket_at(const rsp_profile *a, const rsp_profile *b, double width, double height,
                                        const rsp_histogram_style *style, double x);

/* The ranked pairs of DIFF as a table (rank, distance, class, process, A and B ops / total, why),
 * from row FIRST on, as many as fit; row SELECTED (or -1) shaded. For the --diff export. */
void rsp_profile_diff_table_draw(cairo_t *cr, double width, double height, const rsp_profile_diff *diff,
                                 uint32_t first, int32_t selected, const rsp_histogram_style *style);

/* ---- Differential flame graph (rsp-diff --flame-out) ---------------------------------------------
 * The nodes of a stack diff (two recordings' consolidated stacks matched by path) drawn as a flame
 * graph, the roots at the bottom, each level's frames side by side, largest first. A frame's width is
 * the larger of its two durations, max(A, B), so that a frame that shrank or vanished in B stays as
 * visible as one that grew or appeared; a frame's children may be wider than it (they may overlap in
 * time) and then push its next siblings right, as in the consolidated view. Its colour says how much
 * it changed relative to its size, rel = (B - A) / max(A, B): red shades for frames that grew, blue
 * shades for frames that shrank, the stronger the larger |rel|; grey when |rel| is under
 * RSP_DIFF_FLAME_NEUTRAL. Labels: the name, B's duration and the change (or "new in B", "gone in B").
 * Geometry, for the pixel tests: the title line takes the top
 * style->ruler_height pixels; depth D's row is style->row_height high at
 * y = ruler_height + (max_depth - D) * row_height, filled from y + 1 to y + row_height - 1; x is
 * accumulated width from 0 at the left edge, WIDTH pixels for the roots' total room; a subtree whose
 * room is under a pixel is drawn as its bottom frame, a pixel wide. NOTES (NULL
 * or NULL-terminated) are written under the rows (loss warnings, say). */
#define RSP_DIFF_FLAME_NEUTRAL 0.05
rsp_rgb rsp_diff_flame_colour(double rel);
int rsp_diff_flame_height(const rsp_stack_diff *diff, const rsp_style *style, char **notes);
/* The room of the roots together, in ns (the scale of x). */
uint64_t rsp_diff_flame_total(const rsp_stack_diff *diff);
void rsp_diff_flame_draw(const rsp_stack_diff *diff, cairo_t *cr, int width, int height, const rsp_style *style,
                         const char *title, char **notes);
/* Writes the drawing WIDTH pixels wide to PATH, PNG or SVG by its extension. */
bool rsp_export_diff_flame(const rsp_stack_diff *diff, int width, const char *title, char **notes,
                           const char *path, GError **error);

/* ---- Export of drawings that are not time views (histograms, heat maps, comparisons) ------------
 * Calls DRAW(CR, WIDTH, HEIGHT, DATA) on a PNG or SVG surface (by PATH's extension) and writes it,
 * with MODEL's loss warnings (when MODEL is not NULL) as a banner at the bottom. */
typedef void (*rsp_export_draw_fn)(cairo_t *cr, int width, int height, void *data);
bool rsp_export_drawing(int width, int height, rsp_export_draw_fn draw, void *data, const rsp_model *model,
                        const char *path, GError **error);

G_END_DECLS
