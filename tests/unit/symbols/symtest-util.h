/* Truths about this test process, found without the symbolizer: where a function sits in its
 * file (from /proc/self/maps) and the build id of the object holding it (from its PT_NOTE
 * segment in memory). */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct symtest_map {
  uint64_t start, end, pgoff;
  char path[4096];
} symtest_map;

/* The /proc/self/maps line holding ADDR. */
bool symtest_map_of(uintptr_t addr, symtest_map *m);
/* The GNU build id of the loaded object holding ADDR; returns its size (0: none). */
unsigned symtest_build_id_of(uintptr_t addr, uint8_t id[20]);
