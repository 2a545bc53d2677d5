/* Functions inlined into their callers (always_inline), at the sampled ip and at return addresses:
 * main -> run_jobs -> [inlined: one_job -> checked_digest] -> compute_digest -> [inlined: digest_block ->
 * mix_round]. Built with -O2 -g: the inlining chains are in the DWARF debug info only; addr2line -f -i names
 * them, and so must rsp's frames. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile uint64_t sink;

static inline __attribute__((always_inline)) uint64_t mix_round(uint64_t h, uint64_t i)
{
  for (int k = 0; k < 8; k++) {
    h ^= i + (uint64_t)k;
    h *= 1099511628211ull;
    h = (h << 13) | (h >> 51);
  }
  return h;
}

static inline __attribute__((always_inline)) uint64_t digest_block(uint64_t h, uint64_t i)
{
  return mix_round(h, i) + 1;
}

__attribute__((noinline)) uint64_t compute_digest(uint64_t rounds, uint64_t seed)
{
  uint64_t h = seed;
  for (uint64_t i = 0; i < rounds; i++)
    h = digest_block(h, i);
  return h;
}

static inline __attribute__((always_inline)) uint64_t checked_digest(uint64_t rounds, uint64_t seed)
{
  uint64_t h = compute_digest(rounds, seed);
  if (h == 0)
    abort();
  return h;
}

static inline __attribute__((always_inline)) void one_job(int job, uint64_t rounds)
{
  sink ^= checked_digest(rounds, (uint64_t)job);
}

__attribute__((noinline)) void run_jobs(int jobs, uint64_t rounds)
{
  for (int j = 0; j < jobs; j++)
    one_job(j, rounds);
}

int main(int argc, char **argv)
{
  run_jobs(argc > 1 ? atoi(argv[1]) : 4, argc > 2 ? strtoull(argv[2], NULL, 10) : 10000000ull);
  printf("%016llx\n", (unsigned long long)sink);
  return 0;
}
