#!/usr/bin/env bash
# Records the issue's workload fixtures (tests/model/test_runtime_oracle.py, tests/analysis/test_categories_fixtures.py,
# bench/percent-accounted.sh) with the real perf on this machine; the tests only read them.
#
#   bash tests/model/data/record-workloads.sh [NAME...]     (as root; NAME: sqlite nginx grep make, default all;
#                                                            NAME-noswitch: only that workload's plain perf recording)
#
# With rsp's own recorder (build/src/tools/rsp-record: default probe set, -g fp, --switch-events, the ftrace side
# capture, FILE.meta with the workload pid):
#
#   wl-sqlite.data   sqlite3 on a file in /var/tmp: 60 INSERTs, each its own transaction, PRAGMA synchronous=FULL
#                    (journal_mode=DELETE): each commit fsyncs the journal and the database (D sleeps on the disk);
#                    then one CPU-bound query (a recursive CTE counting to 10^6, ~0.2 s)
#   wl-nginx.data    curl fetching a 4 KiB file 50 times (one process per fetch) from nginx on 127.0.0.1:8089
#                    (nginx-light, started before the recording from a config in a temporary directory, one worker)
#   wl-grep.data     caches dropped, then grep -rlE for a letter repeated 6 times in /usr/include/linux (6.6 MB of
#                    cold-cache reads; the back-reference costs grep ~0.15 s of CPU, for the cpu-clock oracle)
#   wl-make.data     make -j2 of a four-file C project (gcc: fork/exec/wait, two parallel compilers)
#
# The same workloads WITHOUT perf's switch records (plain perf record with rsp-record's own event list, as
# `rsp-record -n` prints it, minus --switch-events; no ftrace side capture, so the model sees this kernel's losses):
#
#   wl-sqlite-noswitch.data, wl-grep-noswitch.data, wl-nginx-noswitch.data, wl-make-noswitch.data
#
# Plain perf record knows no workload pid: the workload writes its own pid ($$ before exec) and the script writes a
# minimal FILE.meta ([recording] workload_pid, command, switch_events=false, perf_command) beside the recording.
# Kernel symbols: a link to tests/data/kallsyms.zst when this is the boot it was taken at (rsp-record's own copy is
# 700 KB per fixture), else rsp-record's copy is kept. Each file must stay under 2 MB (checked at the end).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
record=${RSP_RECORD:-$root/build/src/tools/rsp-record}
[ "$(id -u)" = 0 ] || { echo "record-workloads.sh: needs root (system-wide perf, drop_caches)" >&2; exit 1; }
command -v nginx > /dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light
for tool in sqlite3 curl make gcc perf; do
  command -v $tool > /dev/null || { echo "record-workloads.sh: $tool missing (scripts/setup.sh)" >&2; exit 1; }
done
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(sqlite nginx grep make)
tmp=$(mktemp -d /var/tmp/rsp-wl.XXXXXX)
nginx_pid=
cleanup() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2> /dev/null && wait "$nginx_pid" 2> /dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
same_boot=false
[ "$(cat "$root/tests/data/kallsyms.boot_id" 2> /dev/null)" = "$(cat /proc/sys/kernel/random/boot_id)" ] && same_boot=true

# --- the workloads: each a script in $tmp run by bash, that writes its pid to $tmp/NAME.pid first ---
cat > "$tmp/sqlite.sh" << EOF
echo \$\$ > $tmp/sqlite.pid
rm -f $tmp/db.sqlite
{
  echo 'PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL;'
  echo 'CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);'
  for i in \$(seq 60); do echo "BEGIN; INSERT INTO t(v) VALUES ('row \$i'); COMMIT;"; done
} > $tmp/inserts.sql
# then a CPU-bound query (~0.2 s here), for the cpu-clock oracle of the recording without switch records
echo 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) SELECT count(*) FROM c;' >> $tmp/inserts.sql
exec sqlite3 $tmp/db.sqlite < $tmp/inserts.sql > /dev/null
EOF
cat > "$tmp/nginx.sh" << EOF
echo \$\$ > $tmp/nginx.pid
for i in \$(seq 50); do curl -s -o /dev/null http://127.0.0.1:8089/file.txt; done
EOF
cat > "$tmp/grep.sh" << EOF
echo \$\$ > $tmp/grep.pid
exec grep -rlE '([a-z])\\1\\1\\1\\1\\1' /usr/include/linux
EOF
mkdir -p "$tmp/project"
cat > "$tmp/project/Makefile" << 'EOF'
CFLAGS = -O2 -Wall
OBJS = main.o parse.o table.o report.o
demo: $(OBJS)
	$(CC) -o $@ $(OBJS)
%.o: %.c demo.h
	$(CC) $(CFLAGS) -c -o $@ $<
EOF
cat > "$tmp/project/demo.h" << 'EOF'
#include <stddef.h>
struct entry { char key[32]; long count; };
size_t parse_words(const char *text, char words[][32], size_t max);
size_t table_add(struct entry *t, size_t n, const char *key);
void report(const struct entry *t, size_t n);
EOF
cat > "$tmp/project/main.c" << 'EOF'
#include "demo.h"
#include <stdio.h>
int main(void)
{
  static char words[256][32];
  static struct entry table[256];
  size_t nw = parse_words("the quick brown fox jumps over the lazy dog the end", words, 256), nt = 0;
  for (size_t i = 0; i < nw; i++)
    nt = table_add(table, nt, words[i]);
  report(table, nt);
  return 0;
}
EOF
cat > "$tmp/project/parse.c" << 'EOF'
#include "demo.h"
#include <ctype.h>
size_t parse_words(const char *text, char words[][32], size_t max)
{
  size_t n = 0, len = 0;
  for (const char *p = text;; p++) {
    if (*p && !isspace((unsigned char)*p)) {
      if (len < 31)
        words[n][len++] = *p;
    } else if (len) {
      words[n++][len] = 0;
      len = 0;
      if (n == max)
        break;
    }
    if (!*p)
      break;
  }
  return n;
}
EOF
cat > "$tmp/project/table.c" << 'EOF'
#include "demo.h"
#include <string.h>
size_t table_add(struct entry *t, size_t n, const char *key)
{
  for (size_t i = 0; i < n; i++)
    if (!strcmp(t[i].key, key)) {
      t[i].count++;
      return n;
    }
  strncpy(t[n].key, key, sizeof t[n].key - 1);
  t[n].count = 1;
  return n + 1;
}
EOF
cat > "$tmp/project/report.c" << 'EOF'
#include "demo.h"
#include <stdio.h>
void report(const struct entry *t, size_t n)
{
  for (size_t i = 0; i < n; i++)
    printf("%-10s %ld\n", t[i].key, t[i].count);
}
EOF
cat > "$tmp/make.sh" << EOF
echo \$\$ > $tmp/make.pid
cd $tmp/project && rm -f *.o demo
exec make -s -j2
EOF

start_nginx() {
  mkdir -p "$tmp/www" "$tmp/nginx"
  head -c 4096 /dev/urandom | base64 > "$tmp/www/file.txt"
  cat > "$tmp/nginx/nginx.conf" << EOF
daemon off;
master_process on;
worker_processes 1;
error_log $tmp/nginx/error.log;
pid $tmp/nginx/nginx.pid;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $tmp/nginx/body;
  proxy_temp_path $tmp/nginx/proxy;
  fastcgi_temp_path $tmp/nginx/fastcgi;
  uwsgi_temp_path $tmp/nginx/uwsgi;
  scgi_temp_path $tmp/nginx/scgi;
  server {
    listen 127.0.0.1:8089;
    root $tmp/www;
  }
}
EOF
  nginx -c "$tmp/nginx/nginx.conf" -p "$tmp/nginx" &
  nginx_pid=$!
  for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:8089/file.txt && return 0; sleep 0.1; done
  echo "record-workloads.sh: nginx did not answer on 127.0.0.1:8089" >&2
  exit 1
}

prepare() { # NAME: what runs before each recording of NAME
  case $1 in
    grep) sync; echo 3 > /proc/sys/vm/drop_caches; sleep 0.3 ;;
    nginx) [ -n "$nginx_pid" ] || start_nginx ;;
    *) ;;
  esac
}

link_kallsyms() { # FILE
  if $same_boot; then
    rm -f "$1.kallsyms.zst"
    ln -s "$(realpath --relative-to="$here" "$root/tests/data/kallsyms.zst")" "$1.kallsyms.zst"
  fi
}

rec_rsp() { # NAME: rsp-record of the workload
  local out=$here/wl-$1.data
  rm -rf "$out" "$out".*
  prepare "$1"
  "$record" -q -o "$out" -- bash "$tmp/$1.sh" || [ $? -lt 125 ]  # the workload's status (grep: 1, no match)
  rm -rf "$out.old" "$out".*.old
  link_kallsyms "$out"
}

rec_noswitch() { # NAME: plain perf record, rsp-record's events, no --switch-events
  local out=$here/wl-$1-noswitch.data
  local cmd
  cmd=$("$record" -n -o "$out" -- true 2>&1 | sed -n 's/^perf command: //p')
  [ -n "$cmd" ] || { echo "record-workloads.sh: no perf command from rsp-record -n" >&2; exit 1; }
  # drop --switch-events and the control options (-D -1 --control ...): perf runs the workload itself
  read -r -a argv <<< "$cmd"
  local keep=() skip=0
  for a in "${argv[@]}"; do
    if [ $skip = 1 ]; then skip=0; continue; fi
    case $a in
      --switch-events) ;;
      -D | --control) skip=1 ;;
      *) keep+=("$a") ;;
    esac
  done
  rm -rf "$out" "$out".*
  prepare "$1"
  "${keep[@]:0:2}" -q "${keep[@]:2}" -- bash "$tmp/$1.sh" 2> /dev/null || true  # perf exits with the workload's status
  [ -s "$out" ] || { echo "record-workloads.sh: perf record wrote no $out" >&2; exit 1; }
  rm -f "$out.old"
  cat > "$out.meta" << EOF
# Written by tests/model/data/record-workloads.sh (plain perf record, not rsp-record): the workload's pid as the
# workload itself wrote it, and how the file was recorded.

[recording]
version=1
mode=command
command=bash $tmp/$1.sh
workload_pid=$(cat "$tmp/$1.pid")
switch_events=false
perf_command=${keep[*]} -q -- bash $tmp/$1.sh
perf_version=$(perf --version)
kernel=$(uname -r)
EOF
  link_kallsyms "$out"
}

for n in "${names[@]}"; do
  case $n in
    sqlite | grep | nginx | make) rec_rsp "$n"; rec_noswitch "$n" ;;
    sqlite-noswitch | grep-noswitch | nginx-noswitch | make-noswitch) rec_noswitch "${n%-noswitch}" ;;
    *) echo "record-workloads.sh: unknown workload $n (sqlite nginx grep make, or NAME-noswitch alone)" >&2; exit 2 ;;
  esac
done
chmod 644 "$here"/wl-*.data
ls -l "$here"/wl-*
big=$(find "$here" -maxdepth 1 -name 'wl-*.data' -size +2M)
[ -z "$big" ] || { echo "record-workloads.sh: over 2 MB: $big" >&2; exit 1; }
