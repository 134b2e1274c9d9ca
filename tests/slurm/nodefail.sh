#!/usr/bin/env bash
# timeout: 180
# A node of a running Ferry job dies (tests/slurm/forever.c under srun --mpi=pmi2, 2 hosts x 2
# ranks): every process of fyh2 (its slurmd, slurmstepd and ranks) is killed at once by killing
# the host's holder, PID 1 of its PID namespace. The job must end within 60 s with srun
# non-zero and a message naming fyh2 or one of its ranks, nothing left on fyh1, squeue empty and
# fyh2 down. Twice, on a fresh cluster each: quiet ranks, whose end Slurm finds (fyh2 misses its
# pings: SlurmdTimeout is 6 s in fy_slurm), and talking ranks, whose end Ferry finds (their TCP
# peers reset). fyh2, not fyh1, dies because fyh1 holds the controller.
. "$FY_SRC/tests/slurm/slurm.inc"

# $1: how the ranks behave (forever.c's argument). Quiet ranks see their peers' connections
# close, which the library takes for a finalize: Slurm ends the job once fyh2 misses its pings.
# Talking ranks see them reset: the library ends the job at once (PMI abort) naming the rank.
die_under() {
    local mode=$1
    slurm_up 2
    FOREVER_ARGS=$mode start_forever 4 --mpi=pmi2 -N2 -n4 --ntasks-per-node=2
    expect_eq "$mode: hosts of the ranks" "fyh1 fyh2" "$(awk '/^ready/ { print $3 }' "$T/out" | sort -u | xargs)"
    poll '[ "$(grep -c "^looping " "$T/out")" -eq 4 ]' 300 || fail "$mode: the ranks did not loop 50 times"
    local holder start
    holder=$(cat "$FY_HOSTS_DIR/fyh2.pid")
    # The pid must still be fyh2's holder (in its network namespace) before it is killed.
    [ "$(ip netns identify "$holder" 2>/dev/null)" = "fy$(cat "$FY_HOSTS_DIR/id")h2" ] ||
        { echo "FAIL: $holder is not the holder of fyh2"; exit 1; }
    start=$(date +%s.%N)
    kill -KILL "$holder"
    wait_srun "$start" 60
    if [ "$RC" = 255 ]; then
        fail "$mode: srun still runs 60 s after fyh2 died (squeue: $(squeue -h -o '%i %T' | xargs)): $(tr '\n' ';' <"$T/err")"
        kill -TERM "$SRUN"
        wait "$SRUN"
    fi
    [ "$RC" = 0 ] && fail "$mode: srun exited 0 after fyh2 died"
    echo "$mode: fyh2 died, srun ended (status $RC) in ${SECS}s; its messages:"
    sed 's/^/    /' "$T/err"
    grep -qE "fyh2|rank [23]\b|tasks? [23]\b|tasks 2-3" "$T/err" "$T/out" ||
        fail "$mode: no message names fyh2 or its ranks"
    expect_clean "$mode: fyh1 after fyh2 died" 1
    poll '[ -z "$(squeue -h -o %i)" ]' 600 || fail "$mode: squeue still shows a job: $(squeue)"
    # Slurm marks the node down on its own clock (SlurmdTimeout): polled, the count a hang guard.
    poll 'case $(sinfo -h -n fyh2 -o %T) in down*) true ;; *) false ;; esac' 600 ||
        fail "$mode: Slurm says fyh2 is '$(sinfo -h -n fyh2 -o %T)', not down"
    slurm_down
}

build_forever
die_under quiet
die_under talk
finish
