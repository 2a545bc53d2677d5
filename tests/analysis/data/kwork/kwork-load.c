/* The workloads of the kernel-work fixtures (record.sh): processes whose kernel work is known by
 * construction, each logging what it did (its pid, its fsyncs or datagrams) for the test's truth.
 *
 *   kwork-load fsync NAME FILE ROUNDS PERIOD_MS OFFSET_MS BYTES
 *       ROUNDS times, at OFFSET + i * PERIOD: append BYTES to FILE and fsync it (the ext4 journal
 *       commit, jbd2, and the block completions are work for this process)
 *   kwork-load udp-recv NAME PORT COUNT
 *       receive COUNT datagrams on 127.0.0.1:PORT (NET_RX softirq work for this process)
 *   kwork-load udp-send NAME PORT1 COUNT1 PORT2 COUNT2 DURATION_MS BYTES
 *       send COUNT1 and COUNT2 datagrams of BYTES, evenly spread over DURATION, to the two ports
 * Each prints "NAME pid=P what=N ..." on stdout when done. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static struct timespec t0;

static void sleep_until_ms(double ms)
{
  struct timespec t = t0;
  long long ns = (long long)(ms * 1e6);
  t.tv_sec += ns / 1000000000LL;
  t.tv_nsec += ns % 1000000000LL;
  if (t.tv_nsec >= 1000000000L)
    t.tv_sec++, t.tv_nsec -= 1000000000L;
  clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
}

static int do_fsync(const char *name, const char *file, int rounds, double period, double offset, int bytes)
{
  int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    return perror(file), 1;
  char *buf = malloc((size_t)bytes);
  memset(buf, 'k', (size_t)bytes);
  int done = 0;
  for (int i = 0; i < rounds; i++) {
    sleep_until_ms(offset + i * period);
    if (write(fd, buf, (size_t)bytes) != bytes || fsync(fd) != 0)
      return perror("write/fsync"), 1;
    done++;
  }
  close(fd);
  printf("%s pid=%d fsyncs=%d bytes=%lld\n", name, getpid(), done, (long long)done * bytes);
  return 0;
}

static int udp_socket(int port, int bind_it)
{
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind_it && bind(s, (struct sockaddr *)&a, sizeof a) != 0)
    return perror("bind"), -1;
  if (!bind_it && connect(s, (struct sockaddr *)&a, sizeof a) != 0)
    return perror("connect"), -1;
  return s;
}

static int do_recv(const char *name, int port, int count)
{
  int s = udp_socket(port, 1);
  if (s < 0)
    return 1;
  char buf[65536];
  long long bytes = 0;
  int got = 0;
  while (got < count) {
    ssize_t n = recv(s, buf, sizeof buf, 0);
    if (n < 0)
      return perror("recv"), 1;
    bytes += n;
    got++;
  }
  printf("%s pid=%d datagrams=%d bytes=%lld\n", name, getpid(), got, bytes);
  return 0;
}

static int do_send(const char *name, int port1, int count1, int port2, int count2, double duration, int bytes)
{
  int s1 = udp_socket(port1, 0), s2 = udp_socket(port2, 0);
  if (s1 < 0 || s2 < 0)
    return 1;
  char *buf = calloc(1, (size_t)bytes);
  int sent1 = 0, sent2 = 0;
  /* merge the two schedules: datagram i of a port is due at (i + 0.5) * duration / count */
  while (sent1 < count1 || sent2 < count2) {
    double due1 = sent1 < count1 ? (sent1 + 0.5) * duration / count1 : 1e18;
    double due2 = sent2 < count2 ? (sent2 + 0.5) * duration / count2 : 1e18;
    int first = due1 <= due2;
    sleep_until_ms(first ? due1 : due2);
    if (send(first ? s1 : s2, buf, (size_t)bytes, 0) != bytes)
      return perror("send"), 1;
    if (first)
      sent1++;
    else
      sent2++;
  }
  printf("%s pid=%d sent1=%d sent2=%d bytes=%d\n", name, getpid(), sent1, sent2, bytes);
  return 0;
}

int main(int argc, char **argv)
{
  clock_gettime(CLOCK_MONOTONIC, &t0);
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc >= 3)
    prctl(PR_SET_NAME, argv[2]);
  if (argc == 8 && strcmp(argv[1], "fsync") == 0)
    return do_fsync(argv[2], argv[3], atoi(argv[4]), atof(argv[5]), atof(argv[6]), atoi(argv[7]));
  if (argc == 5 && strcmp(argv[1], "udp-recv") == 0)
    return do_recv(argv[2], atoi(argv[3]), atoi(argv[4]));
  if (argc == 9 && strcmp(argv[1], "udp-send") == 0)
    return do_send(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), atof(argv[7]),
                   atoi(argv[8]));
  fprintf(stderr, "usage: see kwork-load.c\n");
  return 2;
}
