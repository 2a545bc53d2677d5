/* The profiles tests' workload: sleeps of known lengths. Arguments are pairs COUNT MICROSECONDS,
 * done in order: "200 600 20 12000" sleeps 600 us 200 times, then 12 ms 20 times. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void sleep_us(long us)
{
  struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
  while (nanosleep(&ts, &ts) != 0)
    ;
}

int main(int argc, char **argv)
{
  if (argc < 3 || argc % 2 != 1) {
    fprintf(stderr, "usage: profsleep COUNT MICROSECONDS [COUNT MICROSECONDS...]\n");
    return 2;
  }
  for (int i = 1; i + 1 < argc; i += 2) {
    long n = atol(argv[i]), us = atol(argv[i + 1]);
    for (long k = 0; k < n; k++)
      sleep_us(us);
  }
  return 0;
}
