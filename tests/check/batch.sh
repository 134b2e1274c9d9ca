#!/usr/bin/env bash
# timeout: 300
# The log scheme's batches on a blocking ping-pong (tests/check/src/pingpong_mismatch.c, 1000
# round trips, so several batches of 256): a blocking send logs after its data, and a receiver
# fetches a due batch at its next receive. One type mismatch at round trip 10 (the first
# batch), 300, 700 or 999 (the last entries, sent at MPI_Finalize) is reported once, with both
# lines, and the rank exits with 3; received with MPI_Irecv + MPI_Wait too; the correct run
# reports nothing. Both under mpiexec --check (the watch on) and with the library preloaded.
set -u
B=$FY_BUILD
S=$FY_SRC/tests/check/src
. "$FY_SRC/tests/check/checked_run.inc"
checker_skip_if_absent
fail=0
err() { echo "FAIL: $*"; fail=1; }
"$B/bin/mpicc" -g -O0 -o pp "$S/pingpong_mismatch.c" || exit 1
line() { echo "pingpong_mismatch.c:$(grep -n "/\* $1 \*/" "$S/pingpong_mismatch.c" | head -1 | cut -d: -f1)"; }

run() { # how name args...
    local how=$1 name=$2
    shift 2
    if [ "$how" = check ]; then
        timeout -k 5 120 "$B/bin/mpiexec" --check -n 2 ./pp "$@" > "$name.out" 2> "$name.err" < /dev/null
    else
        # (an AddressSanitizer build wants its runtime first; mpiexec --check says the same)
        LD_PRELOAD="$B/lib/libferry_check.so" \
            ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
            timeout -k 5 120 "$B/bin/mpiexec" -n 2 ./pp "$@" > "$name.out" 2> "$name.err" < /dev/null
    fi
    RC=$?
}

for how in check preload; do
    run $how "$how-ok"
    [ "$RC" = 0 ] || err "$how-ok: status $RC, expected 0: $(tail -5 "$how-ok.err")"
    grep -q 'ferry check' "$how-ok.err" && err "$how-ok: a report on a correct program: $(cat "$how-ok.err")"
    for bad in 10 300 700 999; do
        for nb in 0 1; do
            name="$how-$bad-$nb"
            run $how "$name" $bad $nb
            call=MPI_Recv mark=RECV
            [ $nb = 1 ] && call=MPI_Irecv mark=IRECV
            want="ferry check: rank 1: $call at $(line $mark): type mismatch: received 1 x MPI_FLOAT (4 bytes) from rank 0, which sent 1 x MPI_INT (4 bytes) with MPI_Send at $(line SEND)"
            [ "$RC" = 3 ] || err "$name: status $RC, expected 3: $(tail -5 "$name.err")"
            grep -qF -- "$want" "$name.err" || err "$name: no line '$want' in: $(cat "$name.err")"
            n=$(grep -c 'type mismatch' "$name.err")
            [ "$n" = 1 ] || err "$name: $n mismatch reports, expected 1: $(cat "$name.err")"
        done
    done
done
[ $fail = 0 ] && echo "OK: batches of a blocking ping-pong checked"
exit $fail
