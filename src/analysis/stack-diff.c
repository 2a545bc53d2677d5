/* Two consolidated stacks compared, node by node (the data of rsp-diff's differential flame graph).
 * Two recordings share no pids and no addresses, so nodes match by their path of names from the
 * root: the same process name, then the same functions, in the same order. */
#include "analysis/analysis.h"

#include <string.h>

typedef struct diff_node {
  rsp_stack_diff_node pub;
  GArray *children; /* uint32_t ids (NULL: none) */
} diff_node;

struct rsp_stack_diff {
  GArray *nodes; /* diff_node */
  GArray *roots; /* uint32_t */
  GHashTable *index; /* (parent, process?, label) -> id + 1, while building */
  GStringChunk *labels;
  uint32_t max_depth;
};

typedef struct diff_key {
  uint32_t parent;
  bool process;
  const char *label; /* interned in the diff */
} diff_key;

static guint key_hash(gconstpointer p)
{
  const diff_key *k = p;
  return (guint)(k->parent * 2654435761u) ^ g_direct_hash(k->label) ^ (k->process ? 0x5bd1e995u : 0);
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
  const diff_key *x = a, *y = b;
  return x->parent == y->parent && x->label == y->label && x->process == y->process;
}

static diff_node *at(const rsp_stack_diff *d, uint32_t id)
{
  return &g_array_index(d->nodes, diff_node, id);
}

static uint32_t child(rsp_stack_diff *d, uint32_t parent, const char *label, bool process)
{
  diff_key k = { parent, process, g_string_chunk_insert_const(d->labels, label) };
  gpointer found = g_hash_table_lookup(d->index, &k);
  if (found)
    return GPOINTER_TO_UINT(found) - 1;
  uint32_t id = d->nodes->len;
  uint32_t depth = parent == RSP_NO_ID ? 0 : at(d, parent)->pub.depth + 1;
  diff_node n = { .pub = { .label = k.label, .parent = parent, .depth = depth } };
  g_array_append_val(d->nodes, n);
  if (depth > d->max_depth)
    d->max_depth = depth;
  GArray *siblings = parent == RSP_NO_ID ? d->roots : at(d, parent)->children;
  if (!siblings) {
    siblings = g_array_new(false, false, sizeof(uint32_t));
    at(d, parent)->children = siblings;
  }
  g_array_append_val(siblings, id);
  diff_key *nk = g_new(diff_key, 1);
  *nk = k;
  g_hash_table_insert(d->index, nk, GUINT_TO_POINTER(id + 1));
  return id;
}

/* Adds node ID of T (side B if B, else A) and its subtree under diff node PARENT. */
static void add(rsp_stack_diff *d, const rsp_stack_tree *t, uint32_t id, bool b, uint32_t parent)
{
  const rsp_stack_node *n = rsp_stack_tree_node(t, id);
  uint32_t me = child(d, parent, n->label, n->kinds & RSP_FRAME_PROCESS);
  diff_node *dn = at(d, me);
  if (b)
    dn->pub.b_ns += n->ns;
  else
    dn->pub.a_ns += n->ns;
  dn->pub.kinds |= n->kinds;
  uint32_t nc = 0;
  const uint32_t *children = rsp_stack_tree_children(t, id, &nc);
  for (uint32_t i = 0; i < nc; i++)
    add(d, t, children[i], b, me);
}

static void add_tree(rsp_stack_diff *d, const rsp_stack_tree *t, bool b)
{
  uint32_t n = 0;
  const uint32_t *roots = rsp_stack_tree_children(t, RSP_NO_ID, &n);
  for (uint32_t i = 0; i < n; i++)
    add(d, t, roots[i], b, RSP_NO_ID);
}

static uint64_t larger(const rsp_stack_diff_node *n)
{
  return n->a_ns > n->b_ns ? n->a_ns : n->b_ns;
}

static int by_larger_desc(const void *a, const void *b, void *data)
{
  GArray *nodes = data;
  const rsp_stack_diff_node *x = &g_array_index(nodes, diff_node, *(const uint32_t *)a).pub;
  const rsp_stack_diff_node *y = &g_array_index(nodes, diff_node, *(const uint32_t *)b).pub;
  if (larger(x) != larger(y))
    return larger(x) < larger(y) ? 1 : -1;
  return strcmp(x->label, y->label);
}

rsp_stack_diff *rsp_stack_diff_compute(const rsp_stack_tree *a, const rsp_stack_tree *b)
{
  rsp_stack_diff *d = g_new0(rsp_stack_diff, 1);
  d->nodes = g_array_new(false, false, sizeof(diff_node));
  d->roots = g_array_new(false, false, sizeof(uint32_t));
  d->index = g_hash_table_new_full(key_hash, key_equal, g_free, NULL);
  d->labels = g_string_chunk_new(1024);
  add_tree(d, a, false);
  add_tree(d, b, true);
  g_hash_table_destroy(d->index);
  d->index = NULL;
  g_array_sort_with_data(d->roots, by_larger_desc, d->nodes);
  for (guint i = 0; i < d->nodes->len; i++) {
    diff_node *n = at(d, i);
    n->pub.delta_ns = (int64_t)n->pub.b_ns - (int64_t)n->pub.a_ns;
    if (n->children)
      g_array_sort_with_data(n->children, by_larger_desc, d->nodes);
  }
  return d;
}

void rsp_stack_diff_free(rsp_stack_diff *d)
{
  if (!d)
    return;
  for (guint i = 0; i < d->nodes->len; i++)
    if (at(d, i)->children)
      g_array_free(at(d, i)->children, true);
  g_array_free(d->nodes, true);
  g_array_free(d->roots, true);
  g_string_chunk_free(d->labels);
  g_free(d);
}

uint32_t rsp_stack_diff_n_nodes(const rsp_stack_diff *d)
{
  return d->nodes->len;
}

const rsp_stack_diff_node *rsp_stack_diff_get(const rsp_stack_diff *d, uint32_t id)
{
  return &at(d, id)->pub;
}

const uint32_t *rsp_stack_diff_children(const rsp_stack_diff *d, uint32_t id, uint32_t *n)
{
  GArray *c = id == RSP_NO_ID ? d->roots : at(d, id)->children;
  *n = c ? c->len : 0;
  return c && c->len ? (const uint32_t *)(void *)c->data : NULL;
}

uint32_t rsp_stack_diff_max_depth(const rsp_stack_diff *d)
{
  return d->max_depth;
}

uint32_t rsp_stack_diff_find(const rsp_stack_diff *d, const char *const *labels, uint32_t n)
{
  uint32_t at_id = RSP_NO_ID;
  for (uint32_t level = 0; level < n; level++) {
    uint32_t nc = 0, found = RSP_NO_ID;
    const uint32_t *children = rsp_stack_diff_children(d, at_id, &nc);
    for (uint32_t i = 0; i < nc; i++) {
      const rsp_stack_diff_node *c = rsp_stack_diff_get(d, children[i]);
      if (strcmp(c->label, labels[level]) != 0)
        continue;
      if (found == RSP_NO_ID || (c->kinds & RSP_FRAME_PROCESS))
        found = children[i];
    }
    if (found == RSP_NO_ID)
      return RSP_NO_ID;
    at_id = found;
  }
  return at_id;
}

char *rsp_stack_diff_path(const rsp_stack_diff *d, uint32_t id, const char *sep)
{
  GPtrArray *parts = g_ptr_array_new();
  for (uint32_t i = id; i != RSP_NO_ID; i = rsp_stack_diff_get(d, i)->parent)
    g_ptr_array_insert(parts, 0, (gpointer)rsp_stack_diff_get(d, i)->label);
  g_ptr_array_add(parts, NULL);
  char *s = g_strjoinv(sep, (char **)parts->pdata);
  g_ptr_array_free(parts, true);
  return s;
}

double rsp_stack_diff_relative(const rsp_stack_diff_node *n)
{
  uint64_t big = larger(n);
  return big ? (double)n->delta_ns / (double)big : 0.0;
}
