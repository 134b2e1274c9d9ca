#!/bin/bash
# timeout: 120
# Proxies relaying for proxies (the tree of a job across many hosts, docs/DESIGN.md "Launching
# across hosts"), on this machine: -launcher fork runs every proxy here, and
# FERRY_PROXY_FANOUT=2 makes 7 hosts a tree of depth 3 (mpiexec -> a, e; a -> b, d; b -> c;
# e -> f, g). Ranks on every level get their host ids; a PMI exchange (barriers through the
# relays), stdin to rank 0, output, MPI_Abort and an early exit from the deepest hosts, a
# relaying proxy or a leaf killed with kill -9, and mpiexec killed with SIGKILL: the job ends
# with the host named and no proxy or rank left.
. "$FY_SRC/tests/launcher/lib.inc"
build_pmi_prog
cp "$FY_BUILD/bin/ferry-proxy" "$T/ferry-proxy" # its command line names $T: ours to find
export FERRY_PROXY=$T/ferry-proxy FERRY_PROXY_FANOUT=2
H=a:2,b:2,c:2,d:2,e:2,f:2,g:2
# Our processes still alive (zombies are dead).
alive() { ps -eo stat=,args= | awk -v t="$T" '$1 !~ /^Z/ && index($0, t)' | grep -v "awk -v" ; }
expect_clean() {
    for _ in $(seq 100); do [ -z "$(alive)" ] && return 0; sleep 0.05; done
    fail "$1: processes left: $(alive)"
    pkill -9 -f "$T/" 2>/dev/null
}

run -launcher fork -hosts $H -n 14 -l sh -c 'echo "$PMI_RANK $FY_HOST_ID $FY_TCP_ADDR"'
expect_eq "status in a tree" 0 "$RC"
expect_eq "host ids in a tree" "$(for r in $(seq 0 13); do echo "[$r] $r $((r / 2)) 127.0.0.1"; done | sort)" "$(sort "$T/out")"
run -launcher fork -hosts $H -n 14 "$PMI_PROG" kvs
expect_eq "KVS exchange through the relays" "No Errors" "$(cat "$T/out")"
head -c 1000000 /dev/urandom >"$T/data"
out=$(timeout 60 "$MPIEXEC" -launcher fork -hosts $H -n 14 sh -c '[ "$PMI_RANK" = 0 ] && cksum || wc -c' <"$T/data")
expect_eq "stdin to rank 0" "$(printf '%s\n' "$(cksum <"$T/data")" $(for r in $(seq 13); do echo 0; done) | sort)" "$(echo "$out" | sort)"
cat >"$T/abort.py" <<'PY'
import os, time
fd = int(os.environ["PMI_FD"])
os.write(fd, b"cmd=init pmi_version=1 pmi_subversion=1\n")
os.read(fd, 1000)
os.write(fd, b"cmd=abort exitcode=9 error_msg=deep\n")
time.sleep(100)
PY
run -launcher fork -hosts a,b,c,d,e,f,g -n 7 sh -c '[ "$PMI_RANK" = 6 ] && exec python3 '"$T/abort.py"'; exec '"$PMI_PROG"' wait'
expect_eq "MPI_Abort on the deepest host" 9 "$RC"
grep -qx "mpiexec: rank 6 on host g called MPI_Abort with code 9: deep" "$T/err" || fail "abort message: $(cat "$T/err")"
expect_clean "after MPI_Abort"
run -launcher fork -hosts a,b,c,d,e,f,g -n 7 sh -c '[ "$PMI_RANK" = 2 ] && exec '"$PMI_PROG"' exit 4; exec '"$PMI_PROG"' wait'
expect_eq "early exit on host c" 4 "$RC"
grep -qE "^mpiexec: rank 2 \(pid [0-9]+\) on host c exited with status 4 before MPI_Finalize$" "$T/err" || fail "exit message: $(cat "$T/err")"
expect_clean "after an early exit"

# Proxies killed: a relay (a: b, c and d are below it), a relay's leaf (g), then mpiexec.
# Each job's output file is removed first: the background job truncates it only when its shell
# gets to run, and the previous job's 7 "ready" lines must not count for this one.
for idx in 0 6; do
    rm -f "$T/out" "$T/err"
    timeout -k 5 60 "$MPIEXEC" -launcher fork -hosts a,b,c,d,e,f,g -n 7 "$PMI_PROG" wait >"$T/out" 2>"$T/err" &
    # Until every rank is up (a hang guard far above the second it takes, even under load).
    for _ in $(seq 6000); do [ "$(grep -c ready "$T/out" 2>/dev/null)" = 7 ] && break; sleep 0.01; done
    victim=$(pgrep -o -f "$T/ferry-proxy --connect .* --index $idx\$")
    [ -n "$victim" ] || fail "proxy $idx not found ($(grep -c ready "$T/out") of 7 ranks ready)"
    [ -n "$victim" ] && kill -9 $victim
    wait $!
    RC=$?
    [ "$RC" != 0 ] || fail "status 0 after proxy $idx was killed"
    name=$(echo a b c d e f g | cut -d' ' -f$((idx + 1)))
    grep -qx "mpiexec: host $name: proxy connection lost" "$T/err" || fail "message after proxy $idx was killed: $(cat "$T/err")"
    expect_clean "after proxy $idx was killed"
done
rm -f "$T/out" "$T/err"
"$MPIEXEC" -launcher fork -hosts a,b,c,d,e,f,g -n 7 "$PMI_PROG" wait >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 6000); do [ "$(grep -c ready "$T/out" 2>/dev/null)" = 7 ] && break; sleep 0.01; done
kill -9 $pid
wait $pid 2>/dev/null
expect_clean "after mpiexec was killed"
finish
