#!/usr/bin/env bash
# timeout: 200
# mpiexec --monitor on an imbalanced job: src/imbalance.c has rank 0 compute while ranks 1 and
# 2 wait for it in MPI_Allreduce. A block must show rank 0 at 20 % of its second in MPI or less
# and the others at 80 % or more (they wait the whole second, whatever the machine's speed);
# the test then lets rank 0 go. The last block gives the same picture over the whole run. Then
# the same with 4 ranks and FERRY_MONITOR_ROWS=2, the summary that replaces the table for many
# ranks: 3 in MPI, 1 computing, the lowest %mpi rank 0's. `ferry run --monitor` passes it on.
set -u
. "$FY_SRC/tests/monitor/common.inc"
build imbalance

timeout -k 5 150 "$B/bin/mpiexec" --monitor -n 3 "$PWD/imbalance" "$PWD/go" > out 2> err < /dev/null &
job=$!
# Each block's %mpi per rank (the field ending in %); "yes" once a block shows the imbalance.
# With ended=1, only the last block counts.
shows_imbalance() {
    awk -v last="${1:-0}" '
        function judge() { if (seen && p[0] <= 20 && p[1] >= 80 && p[2] >= 80) found = 1 }
        /^ferry monitor:/ { if (!last) judge(); delete p; seen = 0; ended = /, ended/ }
        $1 ~ /^[0-9]+$/ { for (i = 4; i <= NF; i++) if ($i ~ /^[0-9]+%$/) { p[$1] = $i + 0; seen++ } }
        END { if (!last || ended) judge(); exit !found }' err
}
wait_until 1200 shows_imbalance || err "no block shows rank 0 computing and 1, 2 waiting: $(tail -12 err)"
touch go
wait $job
rc=$?
[ "$rc" = 0 ] || err "mpiexec exited with $rc: $(tail -8 err)"
shows_imbalance 1 || err "the last block does not show the imbalance over the run: $(tail -5 err)"
echo "the first block and the last one:"
awk '/^ferry monitor:/ { n++ } n == 1' err | sed 's/^/  /'
awk '/, ended/ { e = 1 } e' err | sed 's/^/  /'

rm -f go
FERRY_MONITOR_ROWS=2 timeout -k 5 150 "$B/bin/mpiexec" --monitor -n 4 "$PWD/imbalance" "$PWD/go" > out4 2> err4 < /dev/null &
job=$!
summary_shows() {
    grep -q '^ in MPI 3, computing 1, silent 0, finalized 0, exited 0, not connected 0$' err4 &&
        grep -Eq '^ %mpi: min ([0-9]|1[0-9]|20)% \(rank 0\), mean [0-9]+%, max ([89][0-9]|100)% \(rank [1-3]\)' err4
}
wait_until 1200 summary_shows || err "no summary shows rank 0 computing and 3 ranks waiting: $(tail -12 err4)"
touch go
wait $job || err "4 ranks: status $?: $(tail -5 err4)"
grep -Eq '^ +[0-9]+ +[^ ]+ +[a-zA-Z]+ +MPI_' err4 && ! grep -q 'longest in one call' err4 &&
    err "rank lines without the 'longest in one call' heading: $(tail -12 err4)"
echo "the summary for 4 ranks with FERRY_MONITOR_ROWS=2:"
awk '/^ferry monitor:/ { n++ } n == 1' err4 | sed 's/^/  /'

# ferry run passes --monitor to mpiexec.
FERRY_CACHE=$PWD/cache "$B/bin/ferry" run --monitor -n 2 "$S/imbalance.c" "$PWD/go" > run.out 2> run.err ||
    err "ferry run --monitor: status $?: $(tail -5 run.err)"
grep -q '^ferry monitor: imbalance, 2 ranks, [0-9.]* s, ended' run.err || err "ferry run --monitor: no block: $(cat run.err)"
no_leftovers
[ $fail = 0 ] && echo "PASS"
exit $fail
