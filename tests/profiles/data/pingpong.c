/* The contention pair's workload: a parent and its child pass one byte back and forth over two pipes
 * ROUNDS times ("pingpong 2000"). Each side blocks in read() until the other writes, so every round is
 * two wakeups of a task by the other; when a CPU hog shares the CPU (record.sh pins both to CPU 0), the
 * woken side waits for the CPU: its wakeup-to-run delay and its preemptions grow. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long now_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

/* Computes for US microseconds of CPU time... of wall time: what the hog takes from it counts. */
static void work(long us)
{
  long end = now_us() + us;
  while (now_us() < end)
    ;
}

/* Pins the calling process to CPU (none when negative). */
static void pin(int cpu)
{
  if (cpu < 0)
    return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    perror("sched_setaffinity");
    exit(1);
  }
}

static void bounce(int in, int out, long rounds, long work_us, int first)
{
  char c = 'x';
  for (long i = 0; i < rounds; i++) {
    if (first && write(out, &c, 1) != 1)
      exit(1);
    if (read(in, &c, 1) != 1)
      exit(1);
    work(work_us);
    if (!first && write(out, &c, 1) != 1)
      exit(1);
  }
}

int main(int argc, char **argv)
{
  long rounds = argc > 1 ? atol(argv[1]) : 0, work_us = argc > 2 ? atol(argv[2]) : 0;
  int parent_cpu = argc > 3 ? atoi(argv[3]) : -1, child_cpu = argc > 4 ? atoi(argv[4]) : -1;
  int to_child[2], to_parent[2];
  if (rounds <= 0 || pipe(to_child) || pipe(to_parent)) {
    fprintf(stderr, "usage: pingpong ROUNDS [WORK_US [PARENT_CPU CHILD_CPU]]\n");
    return 2;
  }
  pid_t child = fork();
  if (child < 0)
    return 1;
  if (child == 0) {
    pin(child_cpu);
    bounce(to_child[0], to_parent[1], rounds, work_us, 0);
    return 0;
  }
  pin(parent_cpu);
  bounce(to_parent[0], to_child[1], rounds, work_us, 1);
  int status;
  return waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
