#!/usr/bin/env bash
# timeout: 300
# ferry run across hosts (the test hosts of tests/hosts: network namespaces, root only): ranks
# start as `ferry _exec KEY`, and each host finds or builds the binary for its own architecture,
# once per host whatever its rank count. FERRY_RUN_ARCH=arch-%h makes every host a different
# architecture; with a shared cache the hosts read the program's bundle from it, with
# FERRY_CACHE=...-%h (a cache per host, as when it is not shared) the bundle comes in the
# environment. A second run compiles nothing. Nothing is left on any host.
. "$FY_SRC/tests/hosts/hosts.inc"
command -v cc >/dev/null || { echo "SKIP: no C compiler (cc)"; exit 0; }
hosts_up 2
export PATH="$FY_BUILD/bin:$PATH"
unset FERRY_CC FERRY_CXX FERRY_RUN_BUNDLE

cat >"$T/logcc" <<SH
#!/bin/sh
echo "\$(hostname) \$FERRY_RUN_ARCH" >>"$T/cc.log"
exec cc "\$@"
SH
chmod +x "$T/logcc"
cat >"$T/prog.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    char host[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    gethostname(host, sizeof host);
    printf("%s rank %d of %d sum %d arg %s\n", host, rank, size, sum, argc > 1 ? argv[1] : "-");
    MPI_Finalize();
    return 0;
}
C
me=$(hostname)
# ferry run under the hang guard, with the hosts' agent; output in $T/out, $T/err.
frun() {
    : >"$T/cc.log"
    timeout -k 5 120 ferry run -v --cc "$T/logcc" -launcher-exec "$AGENT" "$@" >"$T/out" 2>"$T/err" </dev/null
    RC=$?
}
expected() {
    echo "fyh1 rank 0 of 4 sum 6 arg $1
fyh1 rank 1 of 4 sum 6 arg $1
fyh2 rank 2 of 4 sum 6 arg $1
fyh2 rank 3 of 4 sum 6 arg $1"
}

# A shared cache, a different architecture on each host.
export FERRY_CACHE=$T/cache FERRY_RUN_ARCH='arch-%h'
frun -hosts fyh1:2,fyh2:2 -n 4 "$T/prog.c" a
expect_eq "shared cache: status" 0 "$RC"
expect_eq "shared cache: output" "$(expected a)" "$(sort "$T/out")"
expect_eq "shared cache: one compile per host" \
    "$(printf '%s arch-%%h\n' "$me" fyh1 fyh2 | sort)" "$(sort "$T/cc.log")"
ls "$T"/cache/run/*/ | grep -q '^arch-fyh1-' || fail "no binary for fyh1's architecture"
ls "$T"/cache/run/*/ | grep -q '^arch-fyh2-' || fail "no binary for fyh2's architecture"
expect_clean "shared cache"

frun -hosts fyh1:2,fyh2:2 -n 4 "$T/prog.c" b
expect_eq "second run: output" "$(expected b)" "$(sort "$T/out")"
expect_eq "second run: no compile" "" "$(cat "$T/cc.log")"
expect_eq "second run: every rank a hit" 4 "$(grep -c '^ferry _exec: cache hit' "$T/err")"
expect_clean "second run"

# A cache per host (not shared): the program travels in the environment.
export FERRY_CACHE="$T/cache-%h"
unset FERRY_RUN_ARCH
frun -hosts fyh1:2,fyh2:2 -n 4 "$T/prog.c" c
expect_eq "own caches: status" 0 "$RC"
expect_eq "own caches: output" "$(expected c)" "$(sort "$T/out")"
expect_eq "own caches: one compile per host" "$(printf '%s\n' "$me" fyh1 fyh2 | sort)" \
    "$(awk '{print $1}' "$T/cc.log" | sort)"
for h in fyh1 fyh2; do
    [ -s "$(ls "$T/cache-$h"/run/*/bundle 2>/dev/null | head -n 1)" ] || fail "no bundle in $h's cache"
done
expect_clean "own caches"
finish
