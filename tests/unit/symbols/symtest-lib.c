/* A small shared library whose functions the symbolizer tests find by address: one global (in
 * .dynsym and .symtab) and one static (in .symtab only). */
#include "symtest-lib.h"

static __attribute__((noinline)) int symtest_lib_local(int x)
{
  return x * 7 + 1;
}

__attribute__((noinline)) int symtest_lib_global(int x)
{
  return symtest_lib_local(x) * 3;
}

symtest_fn symtest_lib_local_ptr(void)
{
  return symtest_lib_local;
}
