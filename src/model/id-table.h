/* A hash set of ids whose keys live elsewhere (the stacks' frame ids in the model's frame sequences, the frames'
 * keys in an array by id): open addressing over 8-byte slots of (hash, id + 1), so a probe reads one slot and
 * compares the key only when the hash matched. In GHashTable a lookup read a hash, a key pointer, the key and a
 * value in four places; the interning of a recorded build's new stacks spent a third of its thread there. The
 * caller compares keys (rsp_id_table_next) and inserts where the search ended. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "reader/zeroed.h"

typedef struct rsp_id_slot {
  uint32_t hash;
  uint32_t id1; /* id + 1; 0: empty */
} rsp_id_slot;

typedef struct rsp_id_table {
  rsp_id_slot *slots;
  uint32_t mask; /* slots - 1 (a power of 2) */
  uint32_t n;
} rsp_id_table;

static inline void rsp_id_table_init(rsp_id_table *t)
{
  t->mask = 1023;
  t->n = 0;
  t->slots = rsp_new_zeroed(rsp_id_slot, (size_t)t->mask + 1);
}

static inline void rsp_id_table_clear(rsp_id_table *t)
{
  g_free(t->slots);
  t->slots = NULL;
  t->mask = 0;
  t->n = 0;
}

/* A search for HASH: start with *AT = UINT32_MAX; each call returns the next id whose slot has HASH (the caller
 * compares its key), or UINT32_MAX at an empty slot, where *AT is then the place to insert. */
static inline uint32_t rsp_id_table_next(const rsp_id_table *t, uint32_t hash, uint32_t *at)
{
  uint32_t i = *at == UINT32_MAX ? hash & t->mask : (*at + 1) & t->mask;
  for (;; i = (i + 1) & t->mask) {
    const rsp_id_slot *s = &t->slots[i];
    if (!s->id1) {
      *at = i;
      return UINT32_MAX;
    }
    if (s->hash == hash) {
      *at = i;
      return s->id1 - 1;
    }
  }
}

/* Adds ID with HASH at AT (where rsp_id_table_next ended, unsuccessful); the table doubles at half full. */
static inline void rsp_id_table_insert(rsp_id_table *t, uint32_t at, uint32_t hash, uint32_t id)
{
  t->slots[at] = (rsp_id_slot){ hash, id + 1 };
  if (++t->n * 2 <= t->mask + 1)
    return;
  uint32_t old_size = t->mask + 1;
  rsp_id_slot *old = t->slots;
  t->mask = 2 * old_size - 1;
  t->slots = rsp_new_zeroed(rsp_id_slot, (size_t)t->mask + 1); /* (probed before written) */
  for (uint32_t k = 0; k < old_size; k++) {
    if (!old[k].id1)
      continue;
    uint32_t i = old[k].hash & t->mask;
    while (t->slots[i].id1)
      i = (i + 1) & t->mask;
    t->slots[i] = old[k];
  }
  g_free(old);
}
