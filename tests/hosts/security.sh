#!/usr/bin/env bash
# timeout: 120
# The launcher's side of the job's secret (docs/DESIGN.md, "Launching across hosts"): while a
# job runs on two test hosts, stray connections to mpiexec's port (garbage, from this machine
# and from a host; a wrong key; an unknown proxy index; silence; a right key for a proxy already
# connected) are each dropped with one line naming the peer, and the job completes normally.
# The secret (read by the ranks from FY_SECRET_FD, the same everywhere) is in no process's
# command line or environment: mpiexec, agents, proxies, ranks.
. "$FY_SRC/tests/hosts/hosts.inc"
hosts_up 2

"$MPIEXEC" -launcher-exec "$AGENT" -hosts fyh1:2,fyh2:2 -n 4 sh -c '
    cat /proc/self/fd/$FY_SECRET_FD >secret.$PMI_RANK; echo ready
    while [ ! -e go ]; do sleep 0.05; done; echo "done $PMI_RANK"' >"$T/out" 2>"$T/err" </dev/null &
JOB=$!
for _ in $(seq 1000); do [ "$(grep -c ready "$T/out")" = 4 ] && break; sleep 0.01; done
expect_eq "ranks ready" 4 "$(grep -c ready "$T/out")"
port=$(ss -Hltnp | grep "pid=$JOB," | awk '{ n = split($4, a, ":"); print a[n]; exit }')
[ -n "$port" ] || fail "cannot find mpiexec's port"

cat >"$T/stray.py" <<'PY'
import hashlib, hmac, socket, sys, time
addr, port, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = socket.create_connection((addr, port), timeout=10)
def recv_n(n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            break
        b += c
    return b
start = time.time()
if kind == "garbage":
    s.sendall(b"GET / HTTP/1.0\r\n\r\n")
elif kind in ("wrongkey", "badindex", "second"):
    hello = recv_n(40)
    assert hello[:8] == b"FERRYPX1", hello
    idx = {"wrongkey": 0, "badindex": 99, "second": 1}[kind]
    proof = bytes(32)
    if kind == "second":
        key = bytes.fromhex(open(sys.argv[4]).read().strip())
        msg = hello[8:40] + b"proxy\0\0\0" + idx.to_bytes(4, "big")
        proof = hmac.new(key, msg, hashlib.sha256).digest()
    s.sendall(b"FERRYPX1" + idx.to_bytes(4, "big") + proof + bytes(32))
# silent: nothing. Every kind must be closed on us, the silent one after about a second.
s.settimeout(10)
while True:
    try:
        c = s.recv(4096)
    except ConnectionResetError:
        break
    if not c:
        break
print("closed %s %.1f" % (kind, time.time() - start))
PY
GW=10.77.$NET.254
python3 "$T/stray.py" "$GW" "$port" garbage >>"$T/stray" 2>&1
"$AGENT" fyh1 python3 "$T/stray.py" "$GW" "$port" garbage >>"$T/stray" 2>&1
python3 "$T/stray.py" "$GW" "$port" wrongkey >>"$T/stray" 2>&1
python3 "$T/stray.py" "$GW" "$port" badindex >>"$T/stray" 2>&1
python3 "$T/stray.py" "$GW" "$port" silent >>"$T/stray" 2>&1
python3 "$T/stray.py" "$GW" "$port" second "$T/secret.0" >>"$T/stray" 2>&1
expect_eq "stray connections closed on them" "closed garbage
closed garbage
closed wrongkey
closed badindex
closed silent
closed second" "$(awk '{ print $1, $2 }' "$T/stray")"
silent=$(awk '$2 == "silent" { print $3 }' "$T/stray")
awk -v s="${silent:-99}" 'BEGIN { exit !(s >= 0.5 && s < 5) }' || fail "a silent connection was closed after ${silent}s"

# The secret: the same for all, and in no command line or environment on the machine (the
# hosts' processes are in our /proc too).
expect_eq "one secret" 1 "$(cat "$T"/secret.* | sort -u | wc -l)"
cat >"$T/scan.py" <<'PY'
import os, sys
secret = open(sys.argv[1], "rb").read().strip()
assert len(secret) == 64
found = []
for pid in os.listdir("/proc"):
    if not pid.isdigit():
        continue
    for f in ("cmdline", "environ"):
        try:
            if secret in open("/proc/%s/%s" % (pid, f), "rb").read():
                found.append("%s/%s" % (pid, f))
        except OSError:
            pass
print(" ".join(found))
PY
expect_eq "processes showing the secret" "" "$(python3 "$T/scan.py" "$T/secret.0")"
expect_eq "proxies running" 1 "$("$AGENT" fyh2 pgrep -c -x ferry-proxy)"

touch "$T/go"
wait $JOB
expect_eq "status of the job" 0 "$?"
expect_eq "ranks done" "done 0
done 1
done 2
done 3" "$(grep done "$T/out" | sort)"
expect_eq "lines about dropped connections" 6 "$(grep -c '^mpiexec: dropped a connection from ' "$T/err")"
for why in "not a Ferry proxy" "wrong key" "unknown proxy index" "no handshake within 1 s" \
    "a second proxy for a host already connected"; do
    grep -q "^mpiexec: dropped a connection from .*: $why" "$T/err" || fail "no line saying '$why': $(cat "$T/err")"
done
grep -q "dropped a connection from 10.77.$NET.1:[0-9]*: not a Ferry proxy\|dropped a connection from \[::ffff:10.77.$NET.1\]:[0-9]*: not a Ferry proxy" "$T/err" ||
    fail "the line does not name fyh1's address: $(cat "$T/err")"
expect_eq "other lines on stderr" "" "$(grep -v '^mpiexec: dropped a connection from ' "$T/err")"
expect_clean "at the end"
finish
