#!/usr/bin/env bash
# Workload 4 (the paper's make case): make -j2 of googletest (Debian's /usr/src/googletest, the gtest and
# gtest_main libraries) after dropping the page cache. The truth: make waits for its compilers (cc1plus, as,
# ar) which compute and read headers from disk; nothing else is involved.
source "$(dirname "$0")/lib.sh"
real_install googletest cmake make g++ strace
D=$(real_outdir make)
B=/run/rsp-real-gtest
rm -rf $B; mkdir -p $B
trap "rm -rf $B" EXIT
(cd $B && cmake -DCMAKE_BUILD_TYPE=Release /usr/src/googletest >/dev/null)
TARGETS=${RSP_REAL_MAKE_TARGETS:-gtest gtest_main}
sync; echo 3 > /proc/sys/vm/drop_caches
real_record "$D" make -C $B -j2 $TARGETS
make -C $B clean >/dev/null
sync; echo 3 > /proc/sys/vm/drop_caches
real_strace "$D" make -C $B -j2 $TARGETS
real_truth "$D" "$(cat <<J
{"name": "make",
 "design": "make -j2 $TARGETS of /usr/src/googletest (cmake Release) after echo 3 > drop_caches",
 "workers": [{"label": "compilers (cc1plus, as, ld, ar)", "comm": "^(cc1plus|as|ld|collect2|ar|ranlib|c\\\\+\\\\+|g\\\\+\\\\+)\$"}],
 "workers_are_client_tree": true,
 "related": "^(make|cmake|sh|c\\\\+\\\\+|g\\\\+\\\\+|cc1plus|as|ld|collect2|ar|ranlib|gmake)\$",
 "kernel_helpers": "^(jbd2/.*|kworker/.*|ksoftirqd/.*|rcu.*|migration/.*|swapper.*)\$",
 "nanosleep_min_ms": null,
 "socket_waits": false,
 "senders": "^\$"}
J
)"
echo "make: recorded in $D"
