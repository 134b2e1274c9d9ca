#!/usr/bin/env bash
# timeout: 180
# scancel of a running Ferry job (tests/slurm/forever.c under srun --mpi=pmi2, 2 hosts x 2
# ranks, every rank inside MPI): srun exits non-zero, no rank, slurmstepd or /dev/shm file is
# left on any host, and Slurm forgets the job. Twice: scancel of the job, then of its step only.
. "$FY_SRC/tests/slurm/slurm.inc"
slurm_up 2
build_forever

for what in job step; do
    start_forever 4 --mpi=pmi2 -N2 -n4 --ntasks-per-node=2
    expect_eq "$what: hosts of the ranks" "fyh1 fyh2" "$(awk '/^ready/ { print $3 }' "$T/out" | sort -u | xargs)"
    echo "$what: running, /dev/shm: fyh1 $("$AGENT" fyh1 ls /dev/shm | xargs), fyh2 $("$AGENT" fyh2 ls /dev/shm | xargs)"
    job=$(squeue -h -o %i)
    [ -n "$job" ] || { echo "FAIL: $what: squeue shows no job"; exit 1; }
    target=$job
    [ $what = step ] && target=$job.0
    start=$(date +%s.%N)
    scancel "$target" || fail "$what: scancel $target: status $?"
    wait_srun "$start" 30
    [ "$RC" = 255 ] && { fail "$what: srun still runs 30 s after scancel $target"; kill "$SRUN"; wait "$SRUN"; }
    [ "$RC" = 0 ] && fail "$what: srun exited 0 after scancel $target"
    grep -qiE "cancel|abort" "$T/err" || fail "$what: srun says nothing of the cancel: $(cat "$T/err")"
    echo "$what: scancel $target ended srun (status $RC) in ${SECS}s"
    expect_clean "$what: after scancel"
    poll '[ -z "$(squeue -h -o %i)" ]' 100 || fail "$what: squeue still shows a job: $(squeue)"
done
finish
