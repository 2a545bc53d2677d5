/* A CPU-bound chain of calls built without frame pointers (-O2 -fomit-frame-pointer): main -> run_jobs ->
 * worker -> compute_digest / mix_round. perf record --call-graph dwarf copies each sample's user stack;
 * only DWARF unwinding (.eh_frame) recovers the callers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t mix_round(uint64_t h, uint64_t i)
{
  h ^= i;
  h *= 1099511628211ull;
  return (h << 13) | (h >> 51);
}

__attribute__((noinline)) static uint64_t compute_digest(uint64_t rounds, uint64_t seed)
{
  uint64_t h = seed;
  for (uint64_t i = 0; i < rounds; i++)
    h = mix_round(h, i);
  return h;
}

__attribute__((noinline)) static uint64_t worker(int job, uint64_t rounds)
{
  uint64_t a = compute_digest(rounds, (uint64_t)job);
  uint64_t b = compute_digest(rounds / 2, a);
  return a ^ b;
}

__attribute__((noinline)) static void run_jobs(int jobs, uint64_t rounds)
{
  for (int j = 0; j < jobs; j++)
    sink ^= worker(j, rounds);
}

int main(int argc, char **argv)
{
  run_jobs(argc > 1 ? atoi(argv[1]) : 4, argc > 2 ? strtoull(argv[2], NULL, 10) : 40000000ull);
  printf("%016llx\n", (unsigned long long)sink);
  return 0;
}
