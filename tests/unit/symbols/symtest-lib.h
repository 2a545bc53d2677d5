#pragma once

typedef int (*symtest_fn)(int);

int symtest_lib_global(int x);
/* The address of the library's static function (in .symtab only). */
symtest_fn symtest_lib_local_ptr(void);
