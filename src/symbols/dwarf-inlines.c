/* The functions inlined at an address, from DWARF, through an index of each compile unit built on
 * its first lookup. dwarf_getscopes walks the unit's whole DIE tree for every address, which on
 * libc's debug info cost more than the rest of rsp-summary together; here a unit is walked once, its
 * subprograms' and inlined subroutines' address ranges kept sorted with, for each, the innermost
 * range enclosing it, so a lookup is a bisection and a short walk outwards. The answer is the one
 * eu-addr2line -i gives (dwarf_getscopes, then dwarf_getscopes_die from the innermost scope): the
 * inlined subroutines enclosing the address, innermost first, up to the first subprogram. */
#include "symbols/symbolizer-private.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>

#define NONE UINT32_MAX

typedef struct inl_range {
  uint64_t lo, hi;   /* [lo, hi) in the unit's address space */
  uint32_t node;     /* its DIE, in nodes */
  uint32_t parent;   /* the innermost range enclosing it, or NONE */
  uint32_t depth;    /* its DIE's depth among nodes: the deeper of two equal ranges is inside */
} inl_range;

typedef struct inl_node {
  Dwarf_Die die;
  uint32_t parent;   /* the enclosing subprogram or inlined subroutine, or NONE */
  bool subprogram;
} inl_node;

typedef struct unit_index {
  GArray *ranges; /* inl_range sorted by lo, then hi descending, then depth */
  GArray *nodes;  /* inl_node */
} unit_index;

struct rsp_dwarf_inlines {
  GHashTable *units; /* Dwarf_Die.addr of the unit's DIE -> unit_index */
};

static void unit_index_free(gpointer p)
{
  unit_index *u = p;
  g_array_unref(u->ranges);
  g_array_unref(u->nodes);
  g_free(u);
}

rsp_dwarf_inlines *rsp_dwarf_inlines_new(void)
{
  rsp_dwarf_inlines *d = g_new0(rsp_dwarf_inlines, 1);
  d->units = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, unit_index_free);
  return d;
}

void rsp_dwarf_inlines_free(rsp_dwarf_inlines *d)
{
  if (!d)
    return;
  g_hash_table_destroy(d->units);
  g_free(d);
}

/* The DIEs libdw's own scope walk (libdw_visit_scopes.c) descends into: those that hold code, and
 * those without addresses that can own DIEs with addresses. */
static bool may_have_scopes(int tag)
{
  switch (tag) {
  case DW_TAG_compile_unit:
  case DW_TAG_partial_unit:
  case DW_TAG_module:
  case DW_TAG_lexical_block:
  case DW_TAG_with_stmt:
  case DW_TAG_catch_block:
  case DW_TAG_try_block:
  case DW_TAG_entry_point:
  case DW_TAG_inlined_subroutine:
  case DW_TAG_subprogram:
  case DW_TAG_namespace:
  case DW_TAG_class_type:
  case DW_TAG_structure_type:
    return true;
  default:
    return false;
  }
}

static int cmp_range(const void *a, const void *b)
{
  const inl_range *x = a, *y = b;
  if (x->lo != y->lo)
    return x->lo < y->lo ? -1 : 1;
  if (x->hi != y->hi)
    return x->hi > y->hi ? -1 : 1;
  return x->depth < y->depth ? -1 : x->depth > y->depth;
}

typedef struct walk_frame {
  Dwarf_Die die;
  uint32_t node;  /* the innermost node at or above this DIE */
  uint32_t depth;
} walk_frame;

static unit_index *index_unit(Dwarf_Die *unit)
{
  unit_index *u = g_new0(unit_index, 1);
  u->ranges = g_array_new(FALSE, FALSE, sizeof(inl_range));
  u->nodes = g_array_new(FALSE, FALSE, sizeof(inl_node));
  /* an explicit stack: DIE trees nest as deep as the inlining does */
  GArray *stack = g_array_new(FALSE, FALSE, sizeof(walk_frame));
  Dwarf_Die child;
  if (dwarf_child(unit, &child) == 0)
    g_array_append_val(stack, ((walk_frame){child, NONE, 0}));
  while (stack->len) {
    walk_frame f = g_array_index(stack, walk_frame, stack->len - 1);
    g_array_set_size(stack, stack->len - 1);
    Dwarf_Die next;
    if (dwarf_siblingof(&f.die, &next) == 0)
      g_array_append_val(stack, ((walk_frame){next, f.node, f.depth}));
    int tag = dwarf_tag(&f.die);
    if (!may_have_scopes(tag))
      continue;
    uint32_t node = f.node, depth = f.depth;
    if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
      Dwarf_Addr base, lo, hi;
      ptrdiff_t off = 0;
      uint32_t id = u->nodes->len;
      bool any = false;
      while ((off = dwarf_ranges(&f.die, off, &base, &lo, &hi)) > 0) {
        if (hi > lo) {
          g_array_append_val(u->ranges, ((inl_range){lo, hi, id, NONE, depth + 1}));
          any = true;
        }
      }
      if (any) {
        g_array_append_val(u->nodes, ((inl_node){f.die, f.node, tag == DW_TAG_subprogram}));
        node = id;
        depth++;
      }
    }
    if (dwarf_haschildren(&f.die) && dwarf_child(&f.die, &child) == 0)
      g_array_append_val(stack, ((walk_frame){child, node, depth}));
  }
  g_array_unref(stack);
  if (u->ranges->len)
    qsort(u->ranges->data, u->ranges->len, sizeof(inl_range), cmp_range);
  /* each range's innermost encloser: a sweep with the stack of ranges still open */
  GArray *open = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  for (uint32_t i = 0; i < u->ranges->len; i++) {
    inl_range *r = &g_array_index(u->ranges, inl_range, i);
    while (open->len) {
      const inl_range *top = &g_array_index(u->ranges, inl_range, g_array_index(open, uint32_t, open->len - 1));
      if (r->lo < top->hi && r->hi <= top->hi)
        break;
      g_array_set_size(open, open->len - 1);
    }
    r->parent = open->len ? g_array_index(open, uint32_t, open->len - 1) : NONE;
    g_array_append_val(open, i);
  }
  g_array_unref(open);
  return u;
}

unsigned rsp_dwarf_inlines_at(rsp_dwarf_inlines *d, Dwarf_Die *unit, uint64_t addr,
                              const char *(*name_of)(void *data, Dwarf_Die *die), void *data,
                              const char **names, unsigned max)
{
  unit_index *u = g_hash_table_lookup(d->units, unit->addr);
  if (!u) {
    u = index_unit(unit);
    g_hash_table_insert(d->units, unit->addr, u);
  }
  if (!u->ranges->len)
    return 0;
  /* the last range starting at or before ADDR; the ranges holding ADDR all enclose it (they nest) */
  long i = rsp_last_at_or_before(u->ranges->data, u->ranges->len, sizeof(inl_range), addr);
  uint32_t r = i < 0 ? NONE : (uint32_t)i;
  while (r != NONE && addr >= g_array_index(u->ranges, inl_range, r).hi)
    r = g_array_index(u->ranges, inl_range, r).parent;
  if (r == NONE)
    return 0;
  unsigned got = 0;
  for (uint32_t n = g_array_index(u->ranges, inl_range, r).node; n != NONE && got < max;) {
    inl_node *node = &g_array_index(u->nodes, inl_node, n);
    if (node->subprogram)
      break; /* the function the symbol table names: the caller of the inlined ones */
    const char *name = name_of(data, &node->die);
    if (name)
      names[got++] = name;
    n = node->parent;
  }
  return got;
}
