#!/usr/bin/env bash
# Records data/sample.perf.data, the README's demo trace: `make -j2` of a tiny C project (four .c files, written to a
# temporary directory), recorded system-wide with the event set of rsp's full test fixture
# (tests/data/record-fixtures.sh): scheduler, block, irq and socket tracepoints at period 1, cpu-clock samples at
# 997 Hz, call graphs, perf's context-switch records, CLOCK_MONOTONIC times.
#
#   sudo bash data/record-sample.sh
#
# Needs root, perf, gcc, make, zstd. Beside the recording it writes data/sample.perf.data.kallsyms.zst, a copy of
# /proc/kallsyms taken at the same boot (a real file, not a link: data/ is installed), from which rsp symbolizes
# kernel addresses on any machine.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=$here/sample.perf.data
project=$(mktemp -d)
trap 'rm -rf "$project"' EXIT

cat >"$project/Makefile" <<'EOF'
CFLAGS = -O2 -g -Wall
OBJS = main.o parse.o table.o report.o
demo: $(OBJS)
	$(CC) -o $@ $(OBJS)
%.o: %.c demo.h
	$(CC) $(CFLAGS) -c -o $@ $<
EOF
cat >"$project/demo.h" <<'EOF'
#include <stddef.h>
struct entry { char key[32]; long count; };
size_t parse_words(const char *text, char words[][32], size_t max);
void table_add(struct entry *table, size_t *n, const char *key);
void report(const struct entry *table, size_t n);
EOF
cat >"$project/main.c" <<'EOF'
#include <stdio.h>
#include "demo.h"
int main(int argc, char **argv)
{
	static char words[256][32];
	static struct entry table[256];
	size_t n = 0, nw = parse_words(argc > 1 ? argv[1] : "the quick brown fox jumps over the lazy dog the end", words, 256);
	for (size_t i = 0; i < nw; i++)
		table_add(table, &n, words[i]);
	report(table, n);
	return 0;
}
EOF
cat >"$project/parse.c" <<'EOF'
#include <ctype.h>
#include <string.h>
#include "demo.h"
size_t parse_words(const char *text, char words[][32], size_t max)
{
	size_t n = 0;
	while (*text && n < max) {
		while (*text && !isalnum((unsigned char)*text))
			text++;
		size_t len = 0;
		while (isalnum((unsigned char)text[len]))
			len++;
		if (!len)
			break;
		if (len > 31)
			len = 31;
		memcpy(words[n], text, len);
		words[n++][len] = '\0';
		text += len;
	}
	return n;
}
EOF
cat >"$project/table.c" <<'EOF'
#include <string.h>
#include "demo.h"
void table_add(struct entry *table, size_t *n, const char *key)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(table[i].key, key)) {
			table[i].count++;
			return;
		}
	strncpy(table[*n].key, key, sizeof table[*n].key - 1);
	table[(*n)++].count = 1;
}
EOF
cat >"$project/report.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include "demo.h"
static int by_count(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return (y->count > x->count) - (y->count < x->count);
}
void report(const struct entry *table, size_t n)
{
	struct entry sorted[256];
	for (size_t i = 0; i < n; i++)
		sorted[i] = table[i];
	qsort(sorted, n, sizeof sorted[0], by_count);
	for (size_t i = 0; i < n; i++)
		printf("%-10s %ld\n", sorted[i].key, sorted[i].count);
}
EOF

# Warm the page cache (compiler, make) so that the recording is of the build, not of loading gcc from disk.
make -s -C "$project" demo >/dev/null
make -s -C "$project" clean >/dev/null 2>&1 || rm -f "$project"/*.o "$project/demo"

# Tracepoints keep period 1 and only cpu-clock gets a frequency: a global -F would make perf keep a sample of the
# tracepoints only (/work/shared/platform/perf-loss.md).
events=sched:sched_switch,sched:sched_wakeup,sched:sched_waking,sched:sched_wakeup_new
events+=,sched:sched_process_fork,sched:sched_process_exec,sched:sched_process_exit
events+=,block:block_rq_insert,block:block_rq_issue,block:block_rq_complete
events+=,irq:irq_handler_entry,irq:irq_handler_exit,irq:softirq_entry,irq:softirq_exit
events+=,sock:sk_data_ready,sock:sock_send_length,sock:sock_recv_length,sock:inet_sock_set_state
perf record -a -g -k CLOCK_MONOTONIC --switch-events -N -q -e "$events" -e 'cpu-clock/freq=997/' -o "$out" \
  -- make -s -j2 -C "$project" demo
rm -f "$out.old"
cat /proc/kallsyms | zstd -q -19 -T0 -f -o "$out.kallsyms.zst"
chmod 644 "$out" "$out.kallsyms.zst"
printf '%s: %d bytes, kallsyms %d bytes\n' "$out" "$(stat -c %s "$out")" "$(stat -c %s "$out.kallsyms.zst")"
