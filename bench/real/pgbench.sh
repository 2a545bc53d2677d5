#!/usr/bin/env bash
# Workload 3: pgbench -c4 -j2 -T 3 (TPC-B-like: each transaction's commit fsyncs the WAL) against a private
# PostgreSQL over TCP 127.0.0.1. The truth: pgbench's two threads wait on their sockets for the postgres
# backends, which compute and flush WAL (the walwriter too); nothing sleeps on purpose.
source "$(dirname "$0")/lib.sh"
real_install postgresql postgresql-contrib strace
D=$(real_outdir pgbench)
trap real_pg_stop EXIT
real_pg_start
PGB="$(real_pg_bin)/pgbench"
[ -x "$PGB" ] || PGB=pgbench
"$PGB" -h 127.0.0.1 -p $PG_PORT -U postgres -i -s 1 -q bench >/dev/null 2>&1
T=${RSP_REAL_PGBENCH_T:-3}
real_record "$D" "$PGB" -h 127.0.0.1 -p $PG_PORT -U postgres -c4 -j2 -T "$T" -n bench
real_strace "$D" "$PGB" -h 127.0.0.1 -p $PG_PORT -U postgres -c4 -j2 -T 1 -n bench
real_truth "$D" "$(cat <<J
{"name": "pgbench",
 "design": "pgbench -c4 -j2 -T $T (TPC-B-like, scale 1) over TCP 127.0.0.1 against a private PostgreSQL (fsync on)",
 "workers": [{"label": "postgres backends", "comm": "^postgres\$"}],
 "related": "^(pgbench|postgres)\$",
 "kernel_helpers": "^(jbd2/.*|kworker/.*|ksoftirqd/.*|rcu.*|migration/.*|swapper.*)\$",
 "nanosleep_min_ms": null,
 "socket_waits": true,
 "senders": "^postgres\$"}
J
)"
echo "pgbench: recorded in $D"
