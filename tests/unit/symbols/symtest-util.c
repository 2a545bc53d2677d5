#include "symtest-util.h"

#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

bool symtest_map_of(uintptr_t addr, symtest_map *m)
{
  FILE *f = fopen("/proc/self/maps", "r");
  char line[4200];
  bool found = false;
  while (f && !found && fgets(line, sizeof line, f)) {
    unsigned long start, end, off;
    char perms[8];
    m->path[0] = 0;
    if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end, perms, &off, m->path) >= 4 &&
        addr >= start && addr < end) {
      m->start = start;
      m->end = end;
      m->pgoff = off;
      found = true;
    }
  }
  if (f)
    fclose(f);
  return found;
}

typedef struct bid_search {
  uintptr_t addr;
  uint8_t *id;
  unsigned size;
} bid_search;

static int find_note(struct dl_phdr_info *info, size_t size, void *data)
{
  bid_search *b = data;
  bool holds = false;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && b->addr >= lo && b->addr < lo + ph->p_memsz)
      holds = true;
  }
  if (!holds)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE)
      continue;
    const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
    const uint8_t *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) n;
      memcpy(&n, p, sizeof n);
      const uint8_t *name = p + sizeof n;
      const uint8_t *desc = name + ((n.n_namesz + 3) & ~3u);
      if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
          n.n_descsz <= 20 && desc + n.n_descsz <= end) {
        memcpy(b->id, desc, n.n_descsz);
        b->size = n.n_descsz;
        return 1;
      }
      p = desc + ((n.n_descsz + 3) & ~3u);
    }
  }
  return 1;
}

unsigned symtest_build_id_of(uintptr_t addr, uint8_t id[20])
{
  bid_search b = {addr, id, 0};
  dl_iterate_phdr(find_note, &b);
  return b.size;
}
