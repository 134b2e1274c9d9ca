#!/usr/bin/env bash
# timeout: 300
# A rank that dies under srun without --kill-on-bad-exit (Slurm's default: the other tasks run
# on): Ferry itself must end the job, since nobody else will and the others wait for the dead
# rank in MPI_Recv (tests/errors/src/faults.c). A rank of the same host is found by its
# neighbour's watch (its pid, once a second); a rank alone on its host by the receivers, which
# connect to it over TCP and are refused. Cases: SIGSEGV and exit(3) before MPI_Finalize, on one
# node (-N1 -n3), with the dead rank alone on its node (-N2 -n4, block: rank 3 on fyh2) and
# sharing it (-m cyclic). Each run must end non-zero (the 60 s limit of run_srun is the hang
# guard), with a message naming the rank, and leave nothing behind.
. "$FY_SRC/tests/slurm/slurm.inc"
slurm_up 2
"$FY_BUILD/bin/mpicc" -O1 -o "$T/faults" "$FY_SRC/tests/errors/src/faults.c" ||
    { echo "FAIL: cannot build faults.c"; exit 1; }
for mode in segv exit3; do
    for spec in "-N1 -n3" "-N2 -n4" "-N2 -n4 -m cyclic"; do
        run_srun --mpi=pmi2 $spec "$T/faults" $mode
        what="$mode $spec"
        if [ "$RC" = 0 ] || [ "$RC" = 124 ] || [ "$RC" = 137 -a "${SECS%.*}" -ge 60 ]; then
            fail "$what: srun exited $RC after ${SECS}s (the job did not end by itself): $(tail -n 5 "$T/err")"
            continue
        fi
        dead=$([ $mode = segv ] && echo 1 || echo "$(($(echo $spec | sed 's/.*-n\([0-9]\).*/\1/') - 1))")
        grep -qE "rank $dead\b|task $dead\b|tasks? [0-9,-]*$dead" "$T/err" ||
            fail "$what: no message names rank $dead: $(cat "$T/err")"
        echo "$what: ended in ${SECS}s (status $RC): $(grep -m1 -E '^Ferry: ' "$T/err" || head -n 1 "$T/err")"
        expect_clean "$what"
    done
done
finish
