#!/usr/bin/env bash
# timeout: 240
# mpiexec --check across test hosts (tests/hosts/fy_hosts): ranks on other hosts reach the check
# server on the address mpiexec gives its proxies, through FERRY_CHECK_ADDR/KEY forwarded with
# the job's environment. A receive cycle spanning two hosts is reported with the cycle and ends
# the job (status 3, nothing left on any host); a potential deadlock across hosts is released
# and the job ends normally; a rank waiting on a rank of another host that finished is reported.
# Driven by tests/check/src/watch_fake.c (no MPI). Needs root (the hosts are namespaces).
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root (the test hosts are network namespaces)"
    exit 77
fi
[ -e "$FY_BUILD/lib/libferry_check.so" ] || { echo "SKIP: no libferry_check.so"; exit 77; }
. "$FY_SRC/tests/hosts/hosts.inc"
hosts_up 2
# The watch is compiled in (the library exports only MPI_* names, so its chk_watch_* are not
# reachable from outside it).
cc -g -O1 -Wall -Wextra -Werror -I"$FY_SRC/src/tools/check" "$FY_SRC/tests/check/src/watch_fake.c" \
    "$FY_SRC/src/tools/check/chk_watch.c" "$FY_SRC/src/common/fy_sha256.c" "$FY_SRC/src/common/fy_addr.c" "$FY_SRC/src/common/fy_addr2line.c" \
    "$FY_SRC/src/common/fy_auth.c" -I"$FY_SRC/src/common" \
    -D_GNU_SOURCE -pthread -ldl -o "$T/watch_fake" ||
    { echo "FAIL: cannot build watch_fake"; exit 1; }
SRC=$FY_SRC/tests/check/src/watch_fake.c
loc() { echo "watch_fake.c:$(grep -n "LOC:$1 \*/" "$SRC" | cut -d: -f1)"; }

run --check -hosts fyh1,fyh2 -n 2 "$T/watch_fake" cycle
expect_eq "cycle across hosts: status" 3 "$RC"
grep -qF "  rank 1: MPI_Recv from rank 0, tag 0, MPI_COMM_WORLD at $(loc cycle)" "$T/err" ||
    fail "cycle across hosts: $(cat "$T/err")"
grep -qF "  wait-for cycle: 0 -> 1 -> 0" "$T/err" || fail "cycle across hosts: no cycle: $(cat "$T/err")"
echo "cycle across 2 hosts: $(grep -o 'after [0-9.]* s' "$T/err"), mpiexec ran ${SECS} s"
expect_clean "cycle across hosts"

run --check -hosts fyh1:2,fyh2:2 -n 4 "$T/watch_fake" sync
expect_eq "sync across hosts: status" 0 "$RC"
expect_eq "sync across hosts: reports" 1 "$(grep -c 'ferry check: potential deadlock' "$T/err")"
expect_eq "sync across hosts: released" 8 "$(grep -c '^released [12]$' "$T/out")"
expect_clean "sync across hosts"

run --check -hosts fyh1,fyh2 -n 2 "$T/watch_fake" finished
expect_eq "finished across hosts: status" 3 "$RC"
grep -qF "  rank 0: MPI_Recv from rank 1, which has finished, tag 2, MPI_COMM_WORLD at $(loc finished)" \
    "$T/err" || fail "finished across hosts: $(cat "$T/err")"
expect_clean "finished across hosts"

# The key reached the other host: no rank was turned away.
run --check -hosts fyh1,fyh2 -n 2 "$T/watch_fake" inflight
expect_eq "inflight across hosts: status" 0 "$RC"
expect_eq "inflight across hosts: stderr" "" "$(cat "$T/err")"
# A real MPI program across hosts (TCP between them), once the checker's wrappers feed the
# watch.
if nm -D --defined-only "$FY_BUILD/lib/libferry_check.so" | grep -q ' T MPI_Recv$' &&
    [ -e "$FY_SRC/tests/check/src/deadlock_recv_cycle.c" ]; then
    "$FY_BUILD/bin/mpicc" -g -O0 -o "$T/deadlock_recv_cycle" "$FY_SRC/tests/check/src/deadlock_recv_cycle.c" ||
        fail "cannot build deadlock_recv_cycle"
    run --check -hosts fyh1,fyh2 -n 2 "$T/deadlock_recv_cycle"
    expect_eq "MPI cycle across hosts: status" 3 "$RC"
    l=$(grep -n '/\* RECV \*/' "$FY_SRC/tests/check/src/deadlock_recv_cycle.c" | cut -d: -f1)
    grep -qF "  rank 1: MPI_Recv from rank 0, tag 0, MPI_COMM_WORLD at deadlock_recv_cycle.c:$l" "$T/err" ||
        fail "MPI cycle across hosts: $(cat "$T/err")"
    echo "MPI cycle across 2 hosts: $(grep -o 'after [0-9.]* s' "$T/err"), mpiexec ran ${SECS} s"
    expect_clean "MPI cycle across hosts"
else
    echo "(no MPI wrappers in libferry_check.so yet: the MPI program across hosts is not run)"
fi
finish
