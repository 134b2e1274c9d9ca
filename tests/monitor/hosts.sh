#!/usr/bin/env bash
# timeout: 240
# mpiexec --monitor across test hosts (tests/hosts/fy_hosts): the ranks on the other hosts reach
# the monitor on the address mpiexec gives its proxies (FERRY_MONITOR_ADDR/KEY forwarded with the
# job's environment). 2 hosts x 2 ranks of src/imbalance.c: a block shows all 4 ranks connected,
# on 2 distinct hosts, rank 0 computing and the others in MPI_Allreduce; the job ends normally
# and nothing is left on any host. Needs root (the hosts are namespaces).
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root (the test hosts are network namespaces)"
    exit 77
fi
[ -e "$FY_BUILD/lib/libferry_prof.so" ] || { echo "SKIP: no libferry_prof.so"; exit 77; }
"$FY_BUILD/bin/mpiexec" --help 2>&1 | grep -q -- '--monitor' || { echo "SKIP: this mpiexec has no --monitor"; exit 77; }
. "$FY_SRC/tests/hosts/hosts.inc"
hosts_up 2
"$FY_BUILD/bin/mpicc" -g -O1 -o "$T/imbalance" "$FY_SRC/tests/monitor/src/imbalance.c" || { echo "FAIL: cannot build imbalance"; exit 1; }
export XDG_RUNTIME_DIR=$T/rt
mkdir -m 700 -p "$XDG_RUNTIME_DIR"

timeout -k 5 120 "$MPIEXEC" -launcher-exec "$AGENT" --monitor -hosts fyh1:2,fyh2:2 -n 4 "$T/imbalance" "$T/go" \
    > "$T/out" 2> "$T/err" < /dev/null &
job=$!
# A block with the 4 ranks connected (rank 0 computing, 1-3 in MPI_Allreduce), on 2 hosts.
full_block() {
    awk '/^ferry monitor:/ { if (n == 4 && ok && hosts == 2) f = 1; n = 0; ok = 1; hosts = 0; delete h }
         $1 ~ /^[0-3]$/ { n++; if (!($2 in h)) { h[$2] = 1; hosts++ }
                          if ($1 == 0 && $3 != "compute") ok = 0
                          if ($1 != 0 && $4 != "MPI_Allreduce") ok = 0 }
         END { if (n == 4 && ok && hosts == 2) f = 1; exit !f }' "$T/err"
}
for _ in $(seq 900); do
    full_block && break
    sleep 0.1
done
full_block || fail "no block shows the 4 ranks on 2 hosts: $(tail -8 "$T/err")"
touch "$T/go"
wait $job
RC=$?
expect_eq "status" 0 "$RC"
grep -q 'refused' "$T/err" && fail "a rank was refused: $(grep refused "$T/err")"
echo "a block of the job across 2 hosts:"
awk '/^ferry monitor:/ { n++ } n == 1' "$T/err" | sed 's/^/  /'
for h in $(seq "$NHOSTS"); do
    left=$(leftovers "fyh$h")
    [ -z "$left" ] || fail "left on fyh$h: $left"
done
[ -z "$(ls "$XDG_RUNTIME_DIR/ferry-0")" ] || fail "a socket left: $(ls "$XDG_RUNTIME_DIR/ferry-0")"
finish
