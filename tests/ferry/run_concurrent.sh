#!/usr/bin/env bash
# timeout: 180
# Compiling once: four `ferry run`s of the same new program started together compile it once
# (a per-key lock; the others wait and find the entry), and all four run it. The per-rank path
# (`ferry _exec`, taken when the options name hosts) on one machine: ranks that see another
# architecture (FERRY_RUN_ARCH, given to the ranks only with -genv) compile it once for all of
# them, from the bundle in the cache, or from the environment when their cache (FERRY_CACHE) is
# not the launcher's. The compiler here is a wrapper that logs each run and takes 1 s, so the
# runs overlap whatever the machine's speed.
. "$FY_SRC/tests/ferry/run_common.inc"

cat >slowcc <<SH
#!/bin/sh
echo "\$\$ \$FERRY_RUN_ARCH" >>"$PWD/cc.log"
sleep 1
exec cc "\$@"
SH
chmod +x slowcc
cat >prog.c <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("%s %d\n", argv[1], rank);
    MPI_Finalize();
    return 0;
}
C
for k in 1 2 3 4; do
    timeout -k 5 90 ferry run -v --cc "$PWD/slowcc" -n 2 prog.c "run$k" >"out$k" 2>"err$k" &
done
wait
expect_eq "four runs, one compile" 1 "$(wc -l <cc.log)"
expect_eq "one miss" 1 "$(cat err1 err2 err3 err4 | grep -c 'cache miss')"
# (After waiting for the lock, or, had one started late, straight away.)
expect_eq "three used that one" 3 "$(cat err1 err2 err3 err4 | grep -c '^ferry run: cache hit')"
for k in 1 2 3 4; do
    expect_eq "run $k output" "run$k 0
run$k 1" "$(sort "out$k")"
done

# Ranks through ferry _exec on this machine, as another architecture: compiled once more.
: >cc.log
fr run -v --cc "$PWD/slowcc" -hosts localhost -n 4 -genv FERRY_RUN_ARCH pretend prog.c x
expect_eq "_exec status" 0 "$RC"
expect_eq "_exec output" "x 0
x 1
x 2
x 3" "$(sort out)"
expect_eq "_exec: one compile, by a rank" "pretend" "$(awk '{print $2}' cc.log)"
expect_eq "_exec: ranks that ran the binary" 4 "$(grep -c '^ferry _exec: rank [0-3] on .* runs .*/pretend-[0-9a-f]*/prog$' err)"
ls "$FERRY_CACHE"/run/*/ | grep -q '^pretend-' || fail "no entry for the pretended architecture"

# A cache of the ranks' own (as on a host that does not share it): the program comes with the
# environment.
: >cc.log
fr run -v --cc "$PWD/slowcc" -hosts localhost -n 3 -genv FERRY_CACHE "$PWD/rankcache" prog.c y
expect_eq "own cache status" 0 "$RC"
expect_eq "own cache output" "y 0
y 1
y 2" "$(sort out)"
expect_eq "own cache: one compile" 1 "$(wc -l <cc.log)"
[ -s "$(ls "$PWD"/rankcache/run/*/bundle 2>/dev/null | head -n 1)" ] || fail "the ranks' cache has no bundle"

# Interrupted while compiling (SIGTERM to ferry run): the compiler is stopped, nothing is left
# (no temporary directory, no half entry), the status says which signal.
cat >hangcc <<SH
#!/bin/sh
echo started >"$PWD/hang.started"
exec sleep 61.25
SH
chmod +x hangcc
for mode in cache no-cache; do
    rm -f hang.started
    extra=""
    [ $mode = no-cache ] && extra=--no-cache
    timeout -k 5 90 ferry run $extra --cc "$PWD/hangcc" -n 1 prog.c >out 2>err &
    pid=$!
    for _ in $(seq 600); do [ -e hang.started ] && break; sleep 0.05; done
    [ -e hang.started ] || fail "$mode: the compiler never started"
    # ferry run is timeout's child.
    kill -TERM "$(pgrep -P "$pid" -x ferry)"
    wait "$pid"
    expect_eq "$mode: interrupted status" 143 "$?"
    sleep 0.2; pgrep -fx "sleep 61.25" >/dev/null && fail "$mode: the compiler is still running"
    left=$(find "$FERRY_CACHE" -name '.new.*')
    [ -z "$left" ] || fail "$mode: half entries left: $left"
done
finish
