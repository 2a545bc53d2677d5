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

/* One function under two global names, a C++ (mangled) one and a C one. perf chooses between aliases by their
 * demangled names: "symtest::twin" has no more leading underscores than "twin_c" and is longer, so it names the
 * function; by the mangled ones, "_ZN7symtest4twinEi" would lose for its leading underscore. */
int symtest_twin(int x) __asm__("_ZN7symtest4twinEi");
__attribute__((noinline)) int symtest_twin(int x)
{
  return x * 5 + 2;
}
int twin_c(int x) __attribute__((alias("_ZN7symtest4twinEi")));
