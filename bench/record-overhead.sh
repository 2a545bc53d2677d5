#!/usr/bin/env bash
# The overhead of rsp-record on the workload it records: the workload's own elapsed and CPU time
# without rsp-record and under each variant of it, interleaved round by round, and the ratios.
#
#   sudo bash bench/record-overhead.sh [ROUNDS]        # ROUNDS rounds per workload (default 5)
#
# Each round runs the workload once without rsp-record and once under each variant, in an order
# that rotates from round to round (so no variant always follows the page-cache-warming one):
#   default      rsp-record's defaults (probe set default, fp call stacks, ftrace capture, perf stat)
#   cg-none      --call-graph none (no call stacks on any event)
#   mmap-4096    --mmap-pages 4096 (16 MiB per CPU instead of 4 MiB)
# RSP_RECORD names the rsp-record to use (default: build/src/tools/rsp-record); RSP_RECORD_ARGS adds
# options to every variant (e.g. "--no-ftrace" or "--probes minimal"); RSP_BENCH_VARIANTS picks
# some ("default cg-none"); RSP_BENCH_WORKLOADS too ("make" or "pingpong").
# Workloads, built in a temporary directory:
#   make       make -j$(nproc) of a generated C project (cold objects, warm page cache), with as many
#              files as take >= RSP_BENCH_MAKE_SECONDS (default 10) s here: calibrated on 40 files
#   pingpong   two processes passing one byte back and forth over pipes, 200000 round trips
# The time is measured around the workload itself (GNU time, inside the recorded process tree),
# so rsp-record's own start (perf starting) and end (perf writing the file, the loss check) are not
# in it: they are in the "rsp-record" column, rsp-record's whole wall time. Target: make at most
# 5% slower. The ping-pong is the worst case: nothing but context switches and wakeups, each one a
# traced event with its call stack.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
RECORD=${RSP_RECORD:-$here/build/src/tools/rsp-record}
read -r -a EXTRA <<<"${RSP_RECORD_ARGS:-}"
ROUNDS=${1:-5}
MAKE_SECONDS=${RSP_BENCH_MAKE_SECONDS:-10}
read -r -a VARIANTS <<<"${RSP_BENCH_VARIANTS:-default cg-none mmap-4096}"
read -r -a WORKLOADS <<<"${RSP_BENCH_WORKLOADS:-make pingpong}"
if [ "$(id -u)" != 0 ]; then
  echo "record-overhead.sh: rsp-record needs root: run with sudo" >&2
  exit 1
fi
if [ ! -x "$RECORD" ]; then
  echo "record-overhead.sh: no rsp-record at $RECORD (build it, or set RSP_RECORD)" >&2
  exit 1
fi
for tool in gcc make taskset bc /usr/bin/time; do
  command -v $tool >/dev/null || { echo "record-overhead.sh: needs $tool" >&2; exit 1; }
done

work=$(mktemp -d /tmp/rsp-overhead-XXXXXX)
trap 'rm -rf "$work"' EXIT

# ---- the C project (its size is calibrated below) ----
proj=$work/proj
gen_project() { # gen_project NFILES: the project with files f1..fNFILES and a main calling them all
nfiles=$1
rm -rf "$proj"
mkdir -p "$proj"
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
}
gen_project 40

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

# timed OUT WORKLOAD...: runs it, appends "ELAPSED USER SYS MAXRSS_KB" to OUT
cat >"$work/timed" <<'EOF'
#!/usr/bin/env bash
out=$1
shift
/usr/bin/time -a -o "$out" -f '%e %U %S %M' "$@" >/dev/null 2>&1
EOF
chmod +x "$work/timed"

jobs=$(nproc)
run_make() { make -s -C "$proj" clean >/dev/null; "$work/timed" "$1" make -s -C "$proj" -j"$jobs"; }
# pinned to one CPU: across two CPUs its time swings with where the scheduler puts the pair
run_pingpong() { "$work/timed" "$1" taskset -c 0 "$work/pingpong" 200000; }

median() { sort -g "$1" | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

variant_args() {
  case $1 in
  default) ;;
  cg-none) echo --call-graph none ;;
  mmap-4096) echo --mmap-pages 4096 ;;
  *) echo "record-overhead.sh: unknown variant $1" >&2; exit 1 ;;
  esac
}

recorded() { # recorded VARIANT WORKLOAD TIMES: rsp-record's own wall time appended to TIMES.rsp
  local args t0 t1
  read -r -a args <<<"$(variant_args "$1")"
  t0=$(date +%s.%N)
  "$RECORD" -q "${args[@]}" "${EXTRA[@]}" -o "$work/rec.data" -- env work="$work" proj="$proj" jobs="$jobs" \
    bash -c "run_$2 '$3'" || { echo "record-overhead.sh: rsp-record failed" >&2; exit 1; }
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l >>"$3.rsp"
  rm -rf "$work"/rec.data*
}
export -f run_make run_pingpong

ms() { printf '%.0fms' "$(echo "$1 * 1000" | bc -l)"; }

echo "rsp-record: $RECORD ${EXTRA[*]:-}"
echo "machine: $(nproc) CPUs, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ " ${WORKLOADS[*]} " == *" make "* ]]; then
  # calibrate the make: as many files as take >= MAKE_SECONDS s without rsp-record
  run_make "$work/calib"
  t40=$(awk '{print $1}' "$work/calib")
  nfiles=$(echo "n = 40 * ($MAKE_SECONDS * 1.1) / ($t40 + 0.001); if (n < 40) n = 40; if (n > 20000) n = 20000; scale=0; n / 1" | bc -l)
  gen_project "$nfiles"
  echo "make: $nfiles files (40 files took ${t40} s), make -j$jobs"
fi
echo "$ROUNDS rounds per workload; in each, one run without rsp-record and one per variant, order rotating"
for w in "${WORKLOADS[@]}"; do
  names=(none "${VARIANTS[@]}")
  for v in "${names[@]}"; do : >"$work/$w.$v"; : >"$work/$w.$v.rsp"; done
  run_$w "$work/warmup" # warm the page cache and the compiler
  for r in $(seq "$ROUNDS"); do
    n=${#names[@]}
    for k in $(seq 0 $((n - 1))); do
      v=${names[$(((k + r) % n))]}
      if [ "$v" = none ]; then run_$w "$work/$w.none"; else recorded "$v" "$w" "$work/$w.$v"; fi
    done
  done
  base=$work/$w.none
  awk '{print $1}' "$base" >"$base.el"
  awk '{print $2 + $3}' "$base" >"$base.cpu"
  awk '{print $4}' "$base" >"$base.rss"
  echo
  echo "== $w: without rsp-record: elapsed $(ms "$(median "$base.el")"), cpu $(ms "$(median "$base.cpu")"), max RSS $(median "$base.rss") KB"
  echo "   elapsed per round: $(tr '\n' ' ' <"$base.el")"
  printf '%-10s %9s %9s %7s %8s %9s %9s %7s %9s %10s\n' variant without with ratio pair-med cpu-w/o cpu-with ratio maxrss-KB rsp-record
  for v in "${VARIANTS[@]}"; do
    f=$work/$w.$v
    awk '{print $1}' "$f" >"$f.el"
    awk '{print $2 + $3}' "$f" >"$f.cpu"
    awk '{print $4}' "$f" >"$f.rss"
    paste "$f.el" "$base.el" | awk '{printf "%.4f\n", $1 / $2}' >"$f.ratio"
    b=$(median "$base.el") m=$(median "$f.el") bc_=$(median "$base.cpu") mc=$(median "$f.cpu")
    printf '%-10s %9s %9s %7.3f %8.3f %9s %9s %7.3f %9s %10s\n' "$v" "$(ms "$b")" "$(ms "$m")" "$(echo "$m / $b" | bc -l)" \
      "$(median "$f.ratio")" "$(ms "$bc_")" "$(ms "$mc")" "$(echo "$mc / $bc_" | bc -l)" "$(median "$f.rss")" \
      "$(ms "$(median "$f.rsp")")"
    echo "           elapsed with/without, per round: $(tr '\n' ' ' <"$f.ratio")"
  done
done
echo
echo "ratio: median elapsed with / without; pair-med: median of the rounds' ratios (robust to a noisy host);"
echo "cpu: user+sys of the workload (the kernel's cost of each traced event is charged to the task it hits);"
echo "maxrss: GNU time's %M of the workload (its largest process); rsp-record: its whole wall time (perf"
echo "start, the workload, perf writing the file, kallsyms, the loss check)"
