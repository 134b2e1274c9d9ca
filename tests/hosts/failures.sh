#!/usr/bin/env bash
# timeout: 240
# Failures of a job across test hosts end it within seconds, with one message naming the host,
# a non-zero status, and nothing left on any host (processes or /dev/shm files): a host the
# agent does not know, an agent that is not there, an -iface that is not there, a proxy killed
# mid-job (kill -9), a host whose link goes down (5 s without an answer to the keepalive), a
# rank failing on one host while the others wait, and mpiexec itself killed with SIGKILL (the
# proxies see their connection close and kill their ranks).
. "$FY_SRC/tests/hosts/hosts.inc"
hosts_up 3
build_pmi_prog
ID=$(cat "$FY_HOSTS_DIR/id")

# A host the agent cannot enter.
run -hosts fyh1,nohost -n 2 "$PMI_PROG" wait
[ "$RC" != 0 ] || fail "an unknown host gave status 0"
grep -q "^mpiexec: host nohost: cannot start the proxy: .* exited with status 255 before the proxy connected: fy_hosts_agent: nohost: no such host in this cluster$" "$T/err" ||
    fail "message for an unknown host: $(cat "$T/err")"
expect_eq "lines on stderr for an unknown host" 1 "$(wc -l <"$T/err")"
awk -v s="$SECS" 'BEGIN { exit !(s < 10) }' || fail "an unknown host took ${SECS}s to fail"
expect_clean "after an unknown host"

# An agent that is not there; an interface that is not there.
timeout 60 "$MPIEXEC" -launcher-exec /nonexistent/agent -hosts fyh1,fyh2 -n 2 true 2>"$T/err"
expect_eq "status without the agent" 1 "$?"
grep -q "launcher agent '/nonexistent/agent'" "$T/err" || fail "message for a missing agent: $(cat "$T/err")"
run -iface nosuch0 -hosts fyh1,fyh2 -n 2 true
expect_eq "status with an unknown -iface" 1 "$RC"
grep -q "^mpiexec: -iface 'nosuch0': no such network interface$" "$T/err" || fail "message for -iface: $(cat "$T/err")"
FERRY_TCP_IF=10.99.0.0/16 run -hosts fyh1,fyh2 -n 2 true
expect_eq "status with a network of none of our addresses" 1 "$RC"
grep -q "no address of this machine is in that network" "$T/err" || fail "message for FERRY_TCP_IF: $(cat "$T/err")"
run -iface "$BRIDGE" -hosts fyh1,fyh2 -n 2 sh -c 'echo $FY_TCP_ADDR'
expect_eq "-iface of the bridge" "10.77.$NET.1
10.77.$NET.2" "$(sort "$T/out")"
run -iface "fd77:$NET::/64" -hosts fyh1,fyh2 -n 2 sh -c 'echo $FY_TCP_ADDR'
expect_eq "-iface as an IPv6 network" "fd77:$NET::1
fd77:$NET::2" "$(sort "$T/out")"

# Starts a job of waiting ranks in the background (2 per host on 3 hosts), each holding a
# /dev/shm file; returns once all are ready. JOB is mpiexec's pid (the runner's timeout is the
# hang guard).
start_job() {
    rm -f "$T/out" "$T/err"
    "$MPIEXEC" -launcher-exec "$AGENT" -hosts fyh1:2,fyh2:2,fyh3:2 -n 6 \
        "$PMI_PROG" shm wait >"$T/out" 2>"$T/err" </dev/null &
    JOB=$!
    for _ in $(seq 1000); do [ "$(grep -c '^/dev/shm' "$T/out" 2>/dev/null)" = 6 ] && return 0; sleep 0.01; done
    fail "the job did not start: $(cat "$T/err")"
}
# Waits for the job; RC and SECS since `since`.
end_job() {
    wait $JOB
    RC=$?
    SECS=$(awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
}

# The proxy of fyh2 killed.
start_job
since=$(date +%s.%N)
"$AGENT" fyh2 pkill -9 -x ferry-proxy
end_job "$since"
[ "$RC" != 0 ] || fail "a killed proxy gave status 0"
grep -q "^mpiexec: host fyh2: proxy connection lost$" "$T/err" || fail "message for a killed proxy: $(cat "$T/err")"
awk -v s="$SECS" 'BEGIN { exit !(s < 10) }' || fail "a killed proxy took ${SECS}s to end the job"
expect_clean "after a proxy was killed"

# The link of fyh3 down: mpiexec hears nothing for 5 s; the proxy hears nothing either and
# ends its ranks.
start_job
since=$(date +%s.%N)
ip -n "fy${ID}h3" link set eth0 down
end_job "$since"
[ "$RC" != 0 ] || fail "a host cut off gave status 0"
grep -q "^mpiexec: host fyh3: no answer from the proxy for 5 s" "$T/err" || fail "message for a host cut off: $(cat "$T/err")"
awk -v s="$SECS" 'BEGIN { exit !(s < 15) }' || fail "a host cut off took ${SECS}s to end the job"
expect_clean "after a link went down"
ip -n "fy${ID}h3" link set eth0 up

# A rank failing on fyh3 while the others wait.
run -hosts fyh1:2,fyh2:2,fyh3:2 -n 6 sh -c '[ "$PMI_RANK" = 5 ] && exec '"$PMI_PROG"' exit 9; exec '"$PMI_PROG"' wait'
expect_eq "status of a rank failing on fyh3" 9 "$RC"
grep -qE '^mpiexec: rank 5 \(pid [0-9]+\) on host fyh3 exited with status 9 before MPI_Finalize$' "$T/err" ||
    fail "message for a failing rank: $(cat "$T/err")"
expect_clean "after a rank failed"

# Ranks that leave without MPI while the others wait in MPI_Init: the only rank of fyh2 (its
# proxy reports the host done while fyh1's ranks wait in the fence), and one of two on fyh2.
run -hosts fyh1:2,fyh2:1 -n 3 sh -c '[ "$PMI_RANK" = 2 ] && exit 127; exec '"$PMI_PROG"' kvs'
expect_eq "status of fyh2's only rank exiting 127 without MPI" 127 "$RC"
grep -qE '^mpiexec: the ranks on host fyh2 ended without calling MPI_Init, and the other ranks wait for them in MPI_Init$' \
    "$T/err" || fail "message for a host whose ranks ended without MPI: $(cat "$T/err")"
run -hosts fyh1:2,fyh2:2 -n 4 sh -c '[ "$PMI_RANK" = 3 ] && exit 0; exec '"$PMI_PROG"' kvs'
expect_eq "status of a rank on fyh2 exiting 0 without MPI" 1 "$RC"
grep -qE '^mpiexec: rank 3 on host fyh2 exited with status 0 without calling MPI_Init, and the other ranks wait for it in MPI_Init$' \
    "$T/err" || fail "message for a rank that ended without MPI: $(cat "$T/err")"
expect_clean "after ranks left without MPI"

# mpiexec killed: every proxy notices its connection close and ends its ranks.
start_job
kill -KILL $JOB
wait $JOB 2>/dev/null
expect_clean "after mpiexec was killed"
finish
