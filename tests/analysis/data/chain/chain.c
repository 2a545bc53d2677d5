/* The paper's toy chain: chain-client asks chain-server over a unix socket; chain-server hands the request
 * to chain-worker through a pipe and waits in read; chain-worker computes a digest (compute_digest, about
 * 150 ms of CPU), writes it to a file with fsync, and answers back along the chain. The truth of its
 * recording: the client's recv wait is the server's read wait is the worker's compute_digest + fsync. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t compute_digest(uint64_t rounds)
{
  uint64_t h = 1469598103934665603ull;
  for (uint64_t i = 0; i < rounds; i++) {
    h ^= i;
    h *= 1099511628211ull;
    h = (h << 13) | (h >> 51);
  }
  return h;
}

__attribute__((noinline)) static void store(const char *path, uint64_t digest)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    exit(1);
  char buf[4096];
  memset(buf, (int)(digest & 0xff), sizeof buf);
  for (int i = 0; i < 64; i++)
    if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
      exit(1);
  fsync(fd);
  close(fd);
}

static void worker(int in, int out, const char *path, uint64_t rounds)
{
  prctl(PR_SET_NAME, "chain-worker");
  char req[64];
  if (read(in, req, sizeof req) <= 0)
    exit(1);
  uint64_t d = compute_digest(rounds);
  store(path, d);
  sink = d;
  if (write(out, &d, sizeof d) != sizeof d)
    exit(1);
  exit(0);
}

static void server(int sock, int to_worker, int from_worker)
{
  prctl(PR_SET_NAME, "chain-server");
  char req[64];
  ssize_t n = read(sock, req, sizeof req);
  if (n <= 0 || write(to_worker, req, (size_t)n) != n)
    exit(1);
  uint64_t d;
  if (read(from_worker, &d, sizeof d) != sizeof d || write(sock, &d, sizeof d) != sizeof d)
    exit(1);
  exit(0);
}

int main(int argc, char **argv)
{
  const char *path = argc > 1 ? argv[1] : "/var/tmp/chain-digest";
  uint64_t rounds = argc > 2 ? strtoull(argv[2], NULL, 10) : 300000000ull;
  int sv[2], p[2], q[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe(p) || pipe(q))
    return 1;
  if (fork() == 0)
    worker(p[0], q[1], path, rounds);
  if (fork() == 0)
    server(sv[1], p[1], q[0]);
  usleep(20000); /* both children blocked before the request */
  if (send(sv[0], "digest", 6, 0) != 6)
    return 1;
  uint64_t d;
  if (recv(sv[0], &d, sizeof d, MSG_WAITALL) != sizeof d)
    return 1;
  while (wait(NULL) > 0)
    ;
  printf("%016llx\n", (unsigned long long)d);
  return 0;
}
