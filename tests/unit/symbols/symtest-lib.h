#pragma once

typedef int (*symtest_fn)(int);

int symtest_lib_global(int x);
/* The address of the library's static function (in .symtab only). */
symtest_fn symtest_lib_local_ptr(void);
/* A function named twice: "_ZN7symtest4twinEi" (symtest::twin) and twin_c. */
int twin_c(int x);
