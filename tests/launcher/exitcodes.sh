#!/bin/sh
# timeout: 60
# Exit status: 0 when all ranks exit 0, else that of the first failure; a rank that leaves
# after PMI init without finalize is reported in one line and ends the job.
. "$FY_SRC/tests/launcher/lib.inc"
build_pmi_prog

run -n 3 true
expect_eq "all ranks 0" 0 "$RC"
[ -s "$T/err" ] && fail "messages for a clean job: $(cat "$T/err")"

# Plain programs (no PMI): their status, no message, no teardown of the others.
run -n 3 sh -c '[ "$PMI_RANK" = 2 ] && exit 5; sleep 0.5; echo survived'
expect_eq "plain rank exiting 5" 5 "$RC"
expect_eq "others not killed for a plain exit" 2 "$(grep -c survived "$T/out")"
[ -s "$T/err" ] && fail "message for a plain non-zero exit: $(cat "$T/err")"

# The library exits after init without finalize: one line, the others stopped.
start=$(date +%s)
run -n 3 sh -c '[ "$PMI_RANK" = 1 ] && exec '"$PMI_PROG"' exit 3; exec '"$PMI_PROG"' wait'
elapsed=$(($(date +%s) - start))
expect_eq "status of exit before finalize" 3 "$RC"
expect_eq "stderr of exit before finalize" 1 "$(wc -l <"$T/err")"
grep -qE '^mpiexec: rank 1 \(pid [0-9]+\) exited with status 3 before MPI_Finalize$' "$T/err" ||
    fail "message for exit before finalize: $(cat "$T/err")"
[ "$elapsed" -le 20 ] || fail "the other ranks were not stopped promptly (${elapsed}s)"

run -n 2 "$PMI_PROG" exit 0
[ "$RC" -ne 0 ] || fail "exit 0 before finalize gave status 0"
grep -qE '^mpiexec: rank [01] \(pid [0-9]+\) exited with status 0 before MPI_Finalize$' \
    "$T/err" || fail "message for exit 0 before finalize: $(cat "$T/err")"

# A rank that leaves without MPI (a wrapper that failed, a library that did not load) while
# the others wait for it in MPI_Init's exchange: the job ends with the reason, never hangs.
for code in 0 127; do
    run -n 3 sh -c '[ "$PMI_RANK" = 1 ] && exit '$code'; exec '"$PMI_PROG"' kvs'
    expect_eq "status when rank 1 exits $code without MPI" "$([ $code = 0 ] && echo 1 || echo $code)" "$RC"
    grep -qE "^mpiexec: rank 1 exited with status $code without calling MPI_Init, and the other ranks wait for it in MPI_Init$" \
        "$T/err" || fail "message for a plain exit beside MPI ranks: $(cat "$T/err")"
done

run -n 2 "$PMI_PROG" info
expect_eq "finalized ranks" 0 "$RC"

# Started with SIGCHLD ignored (children would be reaped by the kernel, statuses lost).
timeout 20 sh -c 'trap "" CHLD; exec "$0" -n 2 sh -c "exit 3"' "$MPIEXEC"
expect_eq "status when started with SIGCHLD ignored" 3 "$?"
finish
