/* Separate debug files whose sections are compressed (SHF_COMPRESSED: Debian's -dbg and -dbgsym packages, Fedora's
 * debuginfo, what debuginfod serves) are inflated by libdw whole, every time they are opened: libc6-dbg's took 55 to
 * 92 ms of cpu at each start of rsp (a third of the symbolizer's opening of files) and 26 MB of memory. A copy with
 * the sections stored plain is kept by build id in the user's cache (RSP_DEBUG_CACHE, else
 * $XDG_CACHE_HOME/rsp/debug), written the first time and mapped from then on, as perf keeps its build-id cache and
 * debuginfod its downloads. A copy that does not read as an ELF file with the module's build id is not used (and is
 * replaced); files unused for PRUNE_DAYS are removed when a new one is written. Where the cache cannot be written
 * the debug file is used as found. */
#include "symbols/symbolizer-private.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
  PRUNE_DAYS = 30,   /* a copy not used for this long is removed */
  TOUCH_HOURS = 24,  /* a copy's time is brought forward at most this often (one utimensat) */
};

static char *cache_dir_path;

static void find_cache_dir(void)
{
  const char *env = g_getenv("RSP_DEBUG_CACHE");
  if (env && *env)
    cache_dir_path = strcmp(env, "off") == 0 || strcmp(env, "0") == 0 ? NULL : g_strdup(env);
  else
    cache_dir_path = g_build_filename(g_get_user_cache_dir(), "rsp", "debug", NULL);
}

/* The cache's folder, NULL when it is off (RSP_DEBUG_CACHE=off or 0). (pthread_once, which ThreadSanitizer follows:
 * the two threads that open files ahead ask at once; GLib's g_once it does not follow.) */
static const char *cache_dir(void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, find_cache_dir);
  return cache_dir_path;
}

/* Whether ELF has a compressed section and nothing that ties it to where it was found (a dwz file named relative to
 * it in .gnu_debugaltlink). */
static bool worth_a_copy(Elf *elf)
{
  size_t shstrndx;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0)
    return false;
  bool compressed = false;
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh))
      return false;
    const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (name && strcmp(name, ".gnu_debugaltlink") == 0)
      return false;
    compressed |= (sh.sh_flags & SHF_COMPRESSED) != 0;
  }
  return compressed;
}

/* Writes IN with its sections inflated to the new file FD: the same sections in the same order (their links and
 * indexes unchanged), laid out one after the other. */
static bool write_inflated(Elf *in, int fd)
{
  GElf_Ehdr eh;
  size_t phnum, shstrndx;
  if (!gelf_getehdr(in, &eh) || elf_getphdrnum(in, &phnum) != 0 || elf_getshdrstrndx(in, &shstrndx) != 0 ||
      shstrndx >= SHN_LORESERVE || eh.e_shnum == 0)
    return false; /* (extended section numbering: not worth the care) */
  Elf *out = elf_begin(fd, ELF_C_WRITE, NULL);
  if (!out)
    return false;
  bool ok = gelf_newehdr(out, gelf_getclass(in)) != 0 && (phnum == 0 || gelf_newphdr(out, phnum) != 0);
  elf_flagelf(out, ELF_C_SET, ELF_F_LAYOUT);
  uint64_t offset = gelf_fsize(out, ELF_T_EHDR, 1, EV_CURRENT) + gelf_fsize(out, ELF_T_PHDR, phnum, EV_CURRENT);
  for (size_t i = 0; ok && i < phnum; i++) {
    GElf_Phdr ph;
    ok = gelf_getphdr(in, (int)i, &ph) && gelf_update_phdr(out, (int)i, &ph);
  }
  for (Elf_Scn *scn = NULL; ok && (scn = elf_nextscn(in, scn));) {
    GElf_Shdr sh;
    ok = gelf_getshdr(scn, &sh) != NULL;
    if (ok && (sh.sh_flags & SHF_COMPRESSED))
      ok = elf_compress(scn, 0, 0) >= 0 && gelf_getshdr(scn, &sh) != NULL;
    Elf_Scn *to = ok ? elf_newscn(out) : NULL;
    if (!to) {
      ok = false;
      break;
    }
    if (sh.sh_type != SHT_NOBITS && sh.sh_size) {
      Elf_Data *d = elf_rawdata(scn, NULL);
      Elf_Data *o = elf_newdata(to);
      if (!d || !o || d->d_size != sh.sh_size) {
        ok = false;
        break;
      }
      *o = (Elf_Data){ .d_buf = d->d_buf, .d_type = ELF_T_BYTE, .d_version = EV_CURRENT, .d_size = d->d_size,
                       .d_off = 0, .d_align = 1 };
      uint64_t align = sh.sh_addralign > 1 ? sh.sh_addralign : 1;
      offset = (offset + align - 1) / align * align;
      sh.sh_offset = offset;
      offset += sh.sh_size;
    } else {
      sh.sh_offset = offset;
    }
    ok = gelf_update_shdr(to, &sh) != 0;
  }
  if (ok) {
    eh.e_phoff = phnum ? gelf_fsize(out, ELF_T_EHDR, 1, EV_CURRENT) : 0;
    eh.e_shoff = (offset + 7) / 8 * 8;
    eh.e_shstrndx = (GElf_Half)shstrndx;
    ok = gelf_update_ehdr(out, &eh) != 0 && elf_update(out, ELF_C_WRITE) >= 0;
  }
  elf_end(out);
  return ok;
}

/* Whether ELF carries the build id ID (N bytes). */
static bool elf_has_build_id(Elf *elf, const unsigned char *id, int n)
{
  const void *bits = NULL;
  return dwelf_elf_gnu_build_id(elf, &bits) == n && memcmp(bits, id, (size_t)n) == 0;
}

/* Whether the file at FD is an ELF file with the build id ID (N bytes). */
static bool has_build_id(int fd, const unsigned char *id, int n)
{
  Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  bool same = elf && elf_has_build_id(elf, id, n);
  if (elf)
    elf_end(elf);
  return same;
}

/* Removes the copies in DIR not used for PRUNE_DAYS, and what a writer that died left (NAME.debug.XXXXXX) a day on. */
static void prune(const char *dir)
{
  GDir *d = g_dir_open(dir, 0, NULL);
  if (!d)
    return;
  time_t now = time(NULL);
  for (const char *name; (name = g_dir_read_name(d));) {
    time_t keep = g_str_has_suffix(name, ".debug") ? (time_t)PRUNE_DAYS * 24 * 3600
                  : strstr(name, ".debug.") ? (time_t)24 * 3600 : 0;
    if (!keep)
      continue;
    char *path = g_build_filename(dir, name, NULL);
    GStatBuf st;
    if (g_stat(path, &st) == 0 && now - st.st_mtime > keep)
      g_unlink(path);
    g_free(path);
  }
  g_dir_close(d);
}

/* Writes the copy of the debug file at FD, of build id ID (N bytes), to PATH (through a temporary file renamed:
 * another rsp may be writing it too). Not when the file does not carry that build id (found by its debuglink's CRC):
 * its copy would never be taken. */
static bool write_copy(int fd, const unsigned char *id, int n, const char *dir, const char *path)
{
  Elf *in = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
  if (!in)
    return false;
  bool ok = false;
  if (elf_has_build_id(in, id, n) && worth_a_copy(in) && g_mkdir_with_parents(dir, 0755) == 0) {
    char *tmp = g_strconcat(path, ".XXXXXX", NULL);
    int out = g_mkstemp_full(tmp, O_RDWR | O_CLOEXEC, 0644);
    if (out >= 0) {
      ok = write_inflated(in, out);
      ok = close(out) == 0 && ok;
      ok = ok && g_rename(tmp, path) == 0;
      if (!ok)
        g_unlink(tmp);
      else
        prune(dir);
    }
    g_free(tmp);
  }
  elf_end(in);
  return ok;
}

/* The copy's path in DIR for the build id ID (N bytes). */
static char *copy_path(const char *dir, const unsigned char *id, int n)
{
  char hex[2 * 64 + sizeof ".debug"];
  if (n > 64)
    return NULL;
  for (int i = 0; i < n; i++)
    snprintf(hex + 2 * i, 3, "%02x", id[i]);
  strcpy(hex + 2 * n, ".debug");
  return g_build_filename(dir, hex, NULL);
}

/* The copy at PATH when it is there and has the build id ID, opened; else -1 (a copy cut short, or not what its name
 * says, is removed, to be written again). */
static int open_copy(const char *path, const unsigned char *id, int n)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  if (!has_build_id(fd, id, n)) {
    close(fd);
    g_unlink(path);
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) == 0 && time(NULL) - st.st_mtime > (time_t)TOUCH_HOURS * 3600)
    futimens(fd, NULL); /* (used: not pruned) */
  return fd;
}

int rsp_debug_cache_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
                                   const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                                   char **debuginfo_file_name)
{
  const char *dir = cache_dir();
  const unsigned char *id = NULL;
  GElf_Addr vaddr;
  int n = dir ? dwfl_module_build_id(mod, &id, &vaddr) : 0;
  char *path = n > 0 ? copy_path(dir, id, n) : NULL;
  int fd = path ? open_copy(path, id, n) : -1;
  if (fd >= 0) {
    *debuginfo_file_name = strdup(path);
  } else {
    /* (libdwfl keeps what the standard search opened: the copy is for the next time) */
    fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file, debuglink_crc,
                                      debuginfo_file_name);
    if (fd >= 0 && path)
      write_copy(fd, id, n, dir, path);
  }
  g_free(path);
  return fd;
}
