#!/usr/bin/env bash
# The overhead of rsp-record on the workload it records: the workload's own elapsed time with and
# without rsp-record, alternating, in one run, and the ratio of the medians.
#
#   sudo bash bench/record-overhead.sh [ROUNDS]        # ROUNDS pairs of runs per workload (default 10)
#
# RSP_RECORD names the rsp-record to use (default: build/src/tools/rsp-record); RSP_RECORD_ARGS adds
# options (e.g. "--no-ftrace" or "--probes minimal"). Workloads, built in a temporary directory:
#   make       make -j$(nproc) of a small C project (40 files, cold objects, warm page cache)
#   pingpong   two processes passing one byte back and forth over pipes, 20000 round trips
# The time is measured by the workload itself (CLOCK_MONOTONIC around it), so rsp-record's own
# start (perf starting) and end (perf writing the file, the loss check) are not counted: they
# happen before and after the workload, not during it. Target: make at most 5% slower.
# The ping-pong is the worst case: nothing but context switches and wakeups, each one a traced
# event with its call stack.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
RECORD=${RSP_RECORD:-$here/build/src/tools/rsp-record}
read -r -a EXTRA <<<"${RSP_RECORD_ARGS:-}"
ROUNDS=${1:-10}
if [ "$(id -u)" != 0 ]; then
  echo "record-overhead.sh: rsp-record needs root: run with sudo" >&2
  exit 1
fi
if [ ! -x "$RECORD" ]; then
  echo "record-overhead.sh: no rsp-record at $RECORD (build it, or set RSP_RECORD)" >&2
  exit 1
fi
for tool in gcc make taskset bc; do
  command -v $tool >/dev/null || { echo "record-overhead.sh: needs $tool" >&2; exit 1; }
done

work=$(mktemp -d /tmp/rsp-overhead-XXXXXX)
trap 'rm -rf "$work"' EXIT

# ---- the small C project ----
proj=$work/proj
mkdir -p "$proj"
nfiles=40
for i in $(seq $nfiles); do
  cat >"$proj/f$i.c" <<EOF
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct item$i { int key; double value; char name[32]; };
static int cmp$i(const void *a, const void *b)
{
  const struct item$i *x = a, *y = b;
  return (x->key > y->key) - (x->key < y->key);
}
double work$i(int n)
{
  struct item$i *v = calloc((size_t)n, sizeof *v);
  double s = 0;
  for (int k = 0; k < n; k++) {
    v[k].key = (k * 7919 + $i) % 1000;
    v[k].value = k * 0.5;
    snprintf(v[k].name, sizeof v[k].name, "item-%d-%d", $i, k);
  }
  qsort(v, (size_t)n, sizeof *v, cmp$i);
  for (int k = 0; k < n; k++)
    s += v[k].value * (double)strlen(v[k].name);
  free(v);
  return s;
}
EOF
done
{
  echo '#include <stdio.h>'
  for i in $(seq $nfiles); do echo "double work$i(int n);"; done
  echo 'int main(void) { double s = 0;'
  for i in $(seq $nfiles); do echo "  s += work$i(100);"; done
  echo '  printf("%g\n", s); return 0; }'
} >"$proj/main.c"
objs=$(for i in $(seq $nfiles); do printf 'f%d.o ' "$i"; done)
cat >"$proj/Makefile" <<EOF
CFLAGS = -O2 -g -Wall
prog: main.o $objs
	\$(CC) -o \$@ \$^
%.o: %.c
	\$(CC) \$(CFLAGS) -c -o \$@ \$<
clean:
	rm -f prog *.o
.PHONY: clean
EOF

# ---- the ping-pong ----
cat >"$work/pingpong.c" <<'EOF'
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 20000, a[2], b[2];
  char c = 'x';
  if (pipe(a) || pipe(b))
    return 1;
  pid_t pid = fork();
  if (pid == 0) {
    for (int i = 0; i < n; i++)
      if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
        _exit(1);
    _exit(0);
  }
  for (int i = 0; i < n; i++)
    if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
      return 1;
  waitpid(pid, NULL, 0);
  return 0;
}
EOF
gcc -O2 -o "$work/pingpong" "$work/pingpong.c"

# timed OUT WORKLOAD...: runs it, appends "ELAPSED USER SYS" (seconds) to OUT
cat >"$work/timed" <<'EOF'
#!/usr/bin/env bash
out=$1
shift
TIMEFORMAT='%3R %3U %3S'
{ time "$@" >/dev/null 2>&1; } 2>>"$out"
EOF
chmod +x "$work/timed"

jobs=$(nproc)
run_make() { make -s -C "$proj" clean >/dev/null; "$work/timed" "$1" make -s -C "$proj" -j"$jobs"; }
# pinned to one CPU: across two CPUs its time swings with where the scheduler puts the pair
run_pingpong() { "$work/timed" "$1" taskset -c 0 "$work/pingpong" 20000; }

median() { sort -g "$1" | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

recorded() { # recorded WORKLOAD TIMES
  "$RECORD" -q "${EXTRA[@]}" -o "$work/rec.data" -- env work="$work" proj="$proj" jobs="$jobs" \
    bash -c "run_$1 '$2'" || { echo "record-overhead.sh: rsp-record failed" >&2; exit 1; }
  rm -rf "$work"/rec.data*
}
export -f run_make run_pingpong

echo "rsp-record: $RECORD ${EXTRA[*]:-}"
echo "machine: $(nproc) CPUs, $(uname -r); $ROUNDS pairs of runs per workload, in ABBA order"
printf '%-9s %9s %9s %7s %8s %9s %9s %7s\n' workload without with ratio pair-med cpu-w/o cpu-with ratio
for w in make pingpong; do
  base=$work/$w.base rec=$work/$w.rec
  : >"$base"
  : >"$rec"
  run_$w "$work/warmup" # warm the page cache and the compiler
  for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then
      run_$w "$base"
      recorded $w "$rec"
    else
      recorded $w "$rec"
      run_$w "$base"
    fi
  done
  awk '{print $1}' "$base" >"$base.el"
  awk '{print $1}' "$rec" >"$rec.el"
  awk '{print $2 + $3}' "$base" >"$base.cpu"
  awk '{print $2 + $3}' "$rec" >"$rec.cpu"
  paste "$rec.el" "$base.el" | awk '{printf "%.4f\n", $1 / $2}' >"$work/$w.ratio"
  b=$(median "$base.el") m=$(median "$rec.el") bc_=$(median "$base.cpu") mc=$(median "$rec.cpu")
  printf '%-9s %7.0fms %7.0fms %7.3f %8.3f %7.0fms %7.0fms %7.3f\n' "$w" "$(echo "$b * 1000" | bc -l)" \
    "$(echo "$m * 1000" | bc -l)" "$(echo "$m / $b" | bc -l)" "$(median "$work/$w.ratio")" \
    "$(echo "$bc_ * 1000" | bc -l)" "$(echo "$mc * 1000" | bc -l)" "$(echo "$mc / $bc_" | bc -l)"
  echo "          elapsed with/without, per pair: $(tr '\n' ' ' <"$work/$w.ratio")"
done
echo "ratio: median elapsed with / without; pair-med: median of the pairs' ratios (robust to a noisy host);"
echo "cpu: user+sys of the workload (the kernel's cost of each traced event is charged to the task it hits)"
