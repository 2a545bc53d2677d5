/* The consolidated stacks of control paths (paper, "Consolidated Flame View"): every layer of the
 * pseudo-stacks as its stack, merged into one tree by (frame below, name), durations summed, each
 * level sorted longest first. The consolidated flame view draws it; rsp-diff compares two. With the kernel work
 * (rsp_stack_tree_build_kwork), roots "kernel work for X" stand beside the paths' own: the work interrupts and
 * kernel threads did for X that no frame of the paths shows (kernel-work.c leaves out what ran in their runs). */
#include "analysis/analysis.h"

#include <string.h>

typedef struct tree_node {
  rsp_stack_node pub;
  GArray *children; /* uint32_t node ids, sorted by duration (NULL: none) */
} tree_node;

struct rsp_stack_tree {
  unsigned flags; /* RSP_STACK_TREE_* */
  const rsp_paths *paths;
  const rsp_model *model;
  GArray *nodes;     /* tree_node */
  GArray *roots;     /* uint32_t */
  GHashTable *index; /* (parent, label, process?) -> node id + 1, while building */
  GStringChunk *labels;
  uint32_t max_depth;
  uint64_t t0, t1;   /* only the parts of the frames inside [t0, t1) are gathered */
  struct column_memo *memo; /* COLUMN_MEMO, while building */
};

/* The nodes a column's frames went to, remembered: the same stack on the same node again (a process's runs and
 * sleeps, thousands of times) walks them without looking each up. */
enum { COLUMN_MEMO = 256 };
typedef struct column_memo {
  const uint32_t *frames; /* the stack's frame ids */
  uint32_t base, n;
  bool user_only;
  uint32_t n_ids, cap;
  uint32_t *ids;
} column_memo;

typedef struct node_key {
  uint32_t parent;
  bool process;
  const char *label; /* interned: pointer equality */
} node_key;

static guint key_hash(gconstpointer p)
{
  const node_key *k = p;
  return (guint)(k->parent * 2654435761u) ^ g_direct_hash(k->label) ^ (k->process ? 0x5bd1e995u : 0);
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
  const node_key *x = a, *y = b;
  return x->parent == y->parent && x->label == y->label && x->process == y->process;
}

static tree_node *at(const rsp_stack_tree *t, uint32_t id)
{
  return &g_array_index(t->nodes, tree_node, id);
}

/* The child of PARENT (RSP_NO_ID: a root) for LABEL (interned in the tree), made when new. */
static uint32_t child(rsp_stack_tree *t, uint32_t parent, const char *label, bool process)
{
  node_key k = { parent, process, label };
  gpointer found = g_hash_table_lookup(t->index, &k);
  if (found)
    return GPOINTER_TO_UINT(found) - 1;
  uint32_t id = t->nodes->len;
  uint32_t depth = parent == RSP_NO_ID ? 0 : at(t, parent)->pub.depth + 1;
  tree_node n = { .pub = { .label = label, .parent = parent, .depth = depth } };
  g_array_append_val(t->nodes, n);
  if (depth > t->max_depth)
    t->max_depth = depth;
  GArray *siblings = parent == RSP_NO_ID ? t->roots : at(t, parent)->children;
  if (!siblings) {
    siblings = g_array_new(false, false, sizeof(uint32_t));
    at(t, parent)->children = siblings;
  }
  g_array_append_val(siblings, id);
  node_key *nk = g_new(node_key, 1);
  *nk = k;
  g_hash_table_insert(t->index, nk, GUINT_TO_POINTER(id + 1));
  return id;
}

typedef struct column_walk {
  rsp_stack_tree *t;
  bool user_waits; /* a sleep's columns, RSP_STACK_TREE_USER_WAITS: its user frames only (when it has some) */
  uint32_t base; /* the layer's process node */
  uint32_t top;  /* the innermost frame's node of the last column */
  unsigned kinds;
} column_walk;

static void add_column(uint64_t start, uint64_t end, rsp_stack_frames frames, void *data)
{
  uint32_t n = frames.n;
  column_walk *w = data;
  if (start < w->t->t0)
    start = w->t->t0;
  if (end > w->t->t1)
    end = w->t->t1;
  if (end <= start)
    return;
  uint32_t id = w->base;
  bool user_only = false;
  for (uint32_t i = 0; w->user_waits && i < n && !user_only; i++)
    user_only = !rsp_frame_at(frames, i)->kernel;
  column_memo *m = &w->t->memo[(((uintptr_t)frames.ids >> 4) ^ (id * 2654435761u)) % COLUMN_MEMO];
  bool hit = m->frames == frames.ids && m->base == id && m->n == n && m->user_only == user_only;
  if (!hit) {
    if (m->cap < n) {
      m->ids = g_renew(uint32_t, m->ids, n);
      m->cap = n;
    }
    m->frames = frames.ids;
    m->base = id;
    m->n = n;
    m->user_only = user_only;
    m->n_ids = 0;
    for (uint32_t i = 0; i < n; i++) {
      const rsp_model_frame *f = rsp_frame_at(frames, n - 1 - i);
      if (user_only && f->kernel)
        continue;
      /* the model interns function names: one pointer per name, compared as such */
      id = child(w->t, id, f->label ? f->label : "?", false);
      m->ids[m->n_ids++] = id;
    }
  }
  for (uint32_t k = 0; k < m->n_ids; k++) {
    tree_node *nd = at(w->t, m->ids[k]);
    nd->pub.ns += end - start;
    nd->pub.n_merged++;
    nd->pub.kinds |= (uint8_t)w->kinds;
  }
  w->top = m->n_ids ? m->ids[m->n_ids - 1] : w->base;
}

static void no_column(uint64_t start, uint64_t end, rsp_stack_frames frames, void *data)
{
  (void)start, (void)end, (void)frames, (void)data;
}

/* Merges element ID as a layer standing on node PARENT (RSP_NO_ID: the bottom), then what it waited on. */
static void add_layer(rsp_stack_tree *t, rsp_elem_id id, uint32_t parent)
{
  const rsp_path_elem *e = rsp_paths_elem(t->paths, id);
  uint64_t start = MAX(e->start, t->t0), end = MIN(e->end, t->t1);
  if (end <= start && !(e->end == e->start && e->start >= t->t0 && e->start < t->t1))
    return; /* outside the range: and what it waited on lies within it */
  unsigned kinds = 0;
  rsp_layer_columns(t->model, e, no_column, NULL, &kinds);
  const char *name = e->kind == RSP_ELEM_DISK  ? "disk"
                     : e->kind == RSP_ELEM_NET ? "network"
                                               : rsp_model_task(t->model, e->task)->comm;
  bool process = e->kind == RSP_ELEM_RUN || e->kind == RSP_ELEM_SLEEP;
  uint32_t base = child(t, parent, g_string_chunk_insert_const(t->labels, name), process);
  tree_node *b = at(t, base);
  b->pub.ns += end > start ? end - start : 0;
  b->pub.n_merged++;
  b->pub.kinds |= process ? RSP_FRAME_PROCESS : kinds;
  column_walk w = { t, (t->flags & RSP_STACK_TREE_USER_WAITS) && e->kind == RSP_ELEM_SLEEP, base, base, kinds };
  rsp_layer_columns(t->model, e, add_column, &w, &kinds);
  uint32_t nc = 0;
  const rsp_elem_id *children = rsp_paths_children(t->paths, id, &nc);
  for (uint32_t i = 0; i < nc; i++)
    add_layer(t, children[i], w.top);
}

static int by_duration_desc(const void *a, const void *b, void *data)
{
  GArray *nodes = data;
  const rsp_stack_node *x = &g_array_index(nodes, tree_node, *(const uint32_t *)a).pub;
  const rsp_stack_node *y = &g_array_index(nodes, tree_node, *(const uint32_t *)b).pub;
  if (x->ns != y->ns)
    return x->ns < y->ns ? 1 : -1;
  return strcmp(x->label, y->label);
}

rsp_stack_tree *rsp_stack_tree_build(const rsp_paths *paths, uint64_t t0, uint64_t t1)
{
  return rsp_stack_tree_build_flags(paths, t0, t1, 0);
}

/* Kernel work gathered: per node, the ns summed as fractions (shares of pieces), rounded once at the end. */
typedef struct kwork_walk {
  rsp_stack_tree *t;
  GArray *ns; /* double, by node id */
} kwork_walk;

static void add_kwork_part(const rsp_kernel_work_part *part, void *data)
{
  kwork_walk *w = data;
  if (part->ns <= 0)
    return;
  char label[160];
  g_snprintf(label, sizeof label, "kernel work for %s", part->comm ? part->comm : "?");
  uint32_t root = child(w->t, RSP_NO_ID, g_string_chunk_insert_const(w->t->labels, label), false);
  uint32_t doer = child(w->t, root, g_string_chunk_insert_const(w->t->labels, part->doer), false);
  if (w->ns->len < w->t->nodes->len)
    g_array_set_size(w->ns, w->t->nodes->len);
  g_array_index(w->ns, double, doer) += part->ns;
  at(w->t, root)->pub.n_merged++;
  at(w->t, doer)->pub.n_merged++;
}

/* The roots "kernel work for X", after the paths' frames: each doer rounded once, the root their sum. */
static void add_kernel_work(rsp_stack_tree *t, const rsp_kernel_work *kw)
{
  kwork_walk w = { t, g_array_new(FALSE, TRUE, sizeof(double)) };
  uint32_t first = t->nodes->len;
  rsp_kernel_work_paths_parts(kw, t->paths, t->t0, t->t1, add_kwork_part, &w);
  for (uint32_t id = first; id < t->nodes->len; id++) {
    tree_node *n = at(t, id);
    n->pub.kinds = RSP_FRAME_KWORK;
    if (n->pub.parent == RSP_NO_ID)
      continue;
    n->pub.ns = (uint64_t)(g_array_index(w.ns, double, id) + 0.5);
    at(t, n->pub.parent)->pub.ns += n->pub.ns;
  }
  g_array_free(w.ns, TRUE);
}

rsp_stack_tree *rsp_stack_tree_build_flags(const rsp_paths *paths, uint64_t t0, uint64_t t1, unsigned flags)
{
  return rsp_stack_tree_build_kwork(paths, NULL, t0, t1, flags);
}

rsp_stack_tree *rsp_stack_tree_build_kwork(const rsp_paths *paths, const rsp_kernel_work *kw, uint64_t t0,
                                           uint64_t t1, unsigned flags)
{
  rsp_stack_tree *t = g_new0(rsp_stack_tree, 1);
  t->flags = flags;
  t->t0 = t0;
  t->t1 = t1 > t0 ? t1 : UINT64_MAX;
  t->paths = paths;
  t->model = rsp_paths_model(paths);
  t->nodes = g_array_new(false, false, sizeof(tree_node));
  t->roots = g_array_new(false, false, sizeof(uint32_t));
  t->index = g_hash_table_new_full(key_hash, key_equal, g_free, NULL);
  t->labels = g_string_chunk_new(1024);
  t->memo = g_new0(column_memo, COLUMN_MEMO);
  for (rsp_path_id p = 0; p < rsp_paths_n_paths(paths); p++) {
    const rsp_path *path = rsp_paths_path(paths, p);
    for (uint32_t i = 0; i < path->n_elems; i++) {
      rsp_elem_id id = rsp_paths_path_elem(paths, p, i);
      if (rsp_paths_elem(paths, id)->depth == 0)
        add_layer(t, id, RSP_NO_ID);
    }
  }
  for (uint32_t k = 0; k < COLUMN_MEMO; k++)
    g_free(t->memo[k].ids);
  g_clear_pointer(&t->memo, g_free);
  if (kw)
    add_kernel_work(t, kw);
  g_hash_table_destroy(t->index);
  t->index = NULL;
  g_array_sort_with_data(t->roots, by_duration_desc, t->nodes);
  for (guint i = 0; i < t->nodes->len; i++)
    if (at(t, i)->children)
      g_array_sort_with_data(at(t, i)->children, by_duration_desc, t->nodes);
  t->paths = NULL; /* not needed any more: the tree outlives them if its owner wants */
  t->model = NULL;
  return t;
}

void rsp_stack_tree_free(rsp_stack_tree *t)
{
  if (!t)
    return;
  for (guint i = 0; i < t->nodes->len; i++)
    if (at(t, i)->children)
      g_array_free(at(t, i)->children, true);
  g_array_free(t->nodes, true);
  g_array_free(t->roots, true);
  g_string_chunk_free(t->labels);
  g_free(t);
}

uint32_t rsp_stack_tree_n_nodes(const rsp_stack_tree *t)
{
  return t->nodes->len;
}

const rsp_stack_node *rsp_stack_tree_node(const rsp_stack_tree *t, uint32_t id)
{
  return &at(t, id)->pub;
}

const uint32_t *rsp_stack_tree_children(const rsp_stack_tree *t, uint32_t id, uint32_t *n)
{
  GArray *c = id == RSP_NO_ID ? t->roots : at(t, id)->children;
  *n = c ? c->len : 0;
  return c && c->len ? (const uint32_t *)(void *)c->data : NULL;
}

uint32_t rsp_stack_tree_max_depth(const rsp_stack_tree *t)
{
  return t->max_depth;
}

uint64_t rsp_stack_tree_total(const rsp_stack_tree *t)
{
  uint64_t sum = 0;
  for (guint i = 0; i < t->roots->len; i++)
    sum += at(t, g_array_index(t->roots, uint32_t, i))->pub.ns;
  return sum;
}

uint32_t *rsp_stack_tree_preorder(const rsp_stack_tree *tree, uint32_t *count)
{
  uint32_t total = rsp_stack_tree_n_nodes(tree), n = 0;
  uint32_t *out = g_new(uint32_t, total ? total : 1);
  GArray *todo = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  uint32_t nr = 0;
  const uint32_t *roots = rsp_stack_tree_children(tree, RSP_NO_ID, &nr);
  for (uint32_t i = nr; i-- > 0;)
    g_array_append_val(todo, roots[i]);
  while (todo->len && n < total) {
    uint32_t id = g_array_index(todo, uint32_t, todo->len - 1);
    g_array_set_size(todo, todo->len - 1);
    out[n++] = id;
    uint32_t nc = 0;
    const uint32_t *children = rsp_stack_tree_children(tree, id, &nc);
    for (uint32_t i = nc; i-- > 0;)
      g_array_append_val(todo, children[i]);
  }
  g_array_free(todo, TRUE);
  *count = n;
  return out;
}

uint64_t rsp_stack_tree_layout(const rsp_stack_tree *tree, const uint32_t *order, uint32_t n, rsp_stack_place *at)
{
  for (uint32_t k = n; k-- > 0;) {
    uint32_t id = order[k], nc = 0;
    const uint32_t *children = rsp_stack_tree_children(tree, id, &nc);
    uint64_t kids = 0;
    for (uint32_t i = 0; i < nc; i++)
      kids += at[children[i]].slot;
    uint64_t ns = rsp_stack_tree_node(tree, id)->ns;
    at[id].slot = ns > kids ? ns : kids;
  }
  uint32_t nr = 0;
  const uint32_t *roots = rsp_stack_tree_children(tree, RSP_NO_ID, &nr);
  uint64_t x = 0;
  for (uint32_t i = 0; i < nr; i++) {
    at[roots[i]].x = x;
    x += at[roots[i]].slot;
  }
  for (uint32_t k = 0; k < n; k++) {
    uint32_t id = order[k], nc = 0;
    const uint32_t *children = rsp_stack_tree_children(tree, id, &nc);
    uint64_t cx = at[id].x;
    for (uint32_t i = 0; i < nc; i++) {
      at[children[i]].x = cx;
      cx += at[children[i]].slot;
    }
  }
  return x;
}
