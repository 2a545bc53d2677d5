#!/usr/bin/env bash
# Workload 1 (the paper's headline case): an IMAP login + FETCH against dovecot on 127.0.0.1, with
# SHA512-CRYPT passwords of many rounds (auth computes for ~50-150 ms) and mail_fsync=always, driven by
# python imaplib. The truth: the auth process computes the hash while the client waits for "OK LOGIN";
# the imap process (mail_fsync=always) writes and fsyncs its index when FETCH sets \Seen; the client
# also sleeps 50 ms (time.sleep: clock_nanosleep) between LOGIN and SELECT, which must count as timed out.
# Usage: bash bench/real/dovecot.sh [hog]   (hog: workload 7, with a CPU hog pinned to every cpu)
source "$(dirname "$0")/lib.sh"
HOG=${1:-}
NAME=dovecot${HOG:+-hog}
ROUNDS=${RSP_REAL_ROUNDS:-200000}
PORT=10143
real_install dovecot-imapd dovecot-core strace python3
D=$(real_outdir "$NAME")
S=/run/rsp-real-dovecot          # config, users, mail, base_dir (dovecot wants its base_dir on a local fs)
rm -rf "$S"; mkdir -p "$S/mail"
id rspmail >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin rspmail
HASH=$(doveadm pw -s SHA512-CRYPT -r "$ROUNDS" -p secret)
echo "alice:$HASH" > "$S/users"
cat > "$S/dovecot.conf" <<CONF
protocols = imap
listen = 127.0.0.1
base_dir = $S/run
state_dir = $S/state
log_path = $D/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain
auth_cache_size = 0
passdb {
  driver = passwd-file
  args = scheme=SHA512-CRYPT $S/users
}
userdb {
  driver = static
  args = uid=rspmail gid=rspmail home=$S/mail/%u
}
mail_location = maildir:~/Maildir
mail_fsync = always
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = $PORT
  }
  inet_listener imaps {
    port = 0
  }
}
CONF
# a mailbox of 5 small messages
M=$S/mail/alice/Maildir; mkdir -p "$M/new" "$M/cur" "$M/tmp"
for i in 1 2 3 4 5; do
  printf 'From: bob@example.org\r\nTo: alice@example.org\r\nSubject: test %s\r\n\r\nbody %s\r\n' $i $i > "$M/new/16000000$i.M1P1.rsp"
done
chown -R rspmail:rspmail "$S/mail"
mkdir -p "$S/run" "$S/state"
stop() { [ -e "$S/run/master.pid" ] && kill "$(cat "$S/run/master.pid")" 2>/dev/null; pkill_hog; sleep 0.5; rm -rf "$S"; }
HOGPIDS=()
pkill_hog() { local p; for p in "${HOGPIDS[@]}"; do kill "$p" 2>/dev/null || true; done; HOGPIDS=(); }
trap stop EXIT
dovecot -c "$S/dovecot.conf"
for i in $(seq 50); do (echo > /dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.1; done
cat > "$D/client.py" <<'PYC'
import imaplib, sys, time
c = imaplib.IMAP4("127.0.0.1", int(sys.argv[1]))
c.login("alice", "secret")
time.sleep(0.05)                      # a deliberate nanosleep: must be "timed out"
c.select("INBOX")
typ, data = c.fetch("1:*", "(BODY[])")   # BODY[] sets \Seen: an index write, fsync'd (mail_fsync=always)
c.logout()
print(typ, len(data))
PYC
# warm-up login (dovecot starts its auth/imap processes on demand): not recorded
$PY "$D/client.py" $PORT > /dev/null
if [ -n "$HOG" ]; then
  for c in $(seq 0 $(($(nproc) - 1))); do
    taskset -c "$c" $PY -c 'import time
t = time.time() + 120
while time.time() < t: pass' & HOGPIDS+=($!)
  done
  sleep 0.3
fi
# reset \Seen so every run writes the same index changes
doveadm -c "$S/dovecot.conf" flags remove -u alice '\Seen' ALL 2>/dev/null || true
real_record "$D" $PY "$D/client.py" $PORT
doveadm -c "$S/dovecot.conf" flags remove -u alice '\Seen' ALL 2>/dev/null || true
# second run under strace: client, and the whole dovecot tree (auth's crypt, imap's fsyncs)
strace -f -T -tt -o "$D/strace.server.log" -p "$(cat "$S/run/master.pid")" & SP=$!
sleep 0.5
real_strace "$D" $PY "$D/client.py" $PORT
sleep 0.3; kill -INT $SP 2>/dev/null; wait $SP 2>/dev/null || true
real_truth "$D" "$(cat <<J
{"name": "$NAME",
 "design": "imaplib LOGIN (auth: SHA512-CRYPT rounds=$ROUNDS) + 50 ms sleep + SELECT + FETCH BODY[] (imap: fsync'd index)${HOG:+; python busy loops pinned to each cpu}",
 "workers": [{"label": "auth (SHA512-CRYPT)", "comm": "^auth(-worker)?\$"}],
 "related": "^(python3|dovecot|auth|auth-worker|imap|imap-login|anvil|log|config|stats|doveadm|dict)\$",
 "kernel_helpers": "^(jbd2/.*|kworker/.*|ksoftirqd/.*|rcu.*|migration/.*|swapper.*)\$",
 "nanosleep_min_ms": 50,
 "socket_waits": true,
 "senders": "^(imap|imap-login|auth|dovecot|anvil)\$",
 "hog": $([ -n "$HOG" ] && echo true || echo false)}
J
)"
echo "$NAME: recorded in $D"
