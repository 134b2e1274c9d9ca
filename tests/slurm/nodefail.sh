#!/usr/bin/env bash
# timeout: 180
# A node of a running Ferry job dies (tests/slurm/forever.c under srun --mpi=pmi2, 2 hosts x 2
# ranks): every process of fyh2 (its slurmd, slurmstepd and ranks) is killed at once by killing
# the host's holder, PID 1 of its PID namespace. The job must end within a bound (Slurm's
# SlurmdTimeout is 6 s in fy_slurm; Ferry's ranks also see their TCP peers go) with srun
# non-zero and a message naming fyh2 or one of its ranks, and nothing left on fyh1. fyh2, not
# fyh1, dies because fyh1 holds the controller.
. "$FY_SRC/tests/slurm/slurm.inc"
slurm_up 2
build_forever

start_forever 4 --mpi=pmi2 -N2 -n4 --ntasks-per-node=2
expect_eq "hosts of the ranks" "fyh1 fyh2" "$(awk '/^ready/ { print $3 }' "$T/out" | sort -u | xargs)"
holder=$(cat "$FY_HOSTS_DIR/fyh2.pid")
# The pid must still be fyh2's holder (in its network namespace) before it is killed.
[ "$(ip netns identify "$holder" 2>/dev/null)" = "fy$(cat "$FY_HOSTS_DIR/id")h2" ] ||
    { echo "FAIL: $holder is not the holder of fyh2"; exit 1; }
start=$(date +%s.%N)
kill -KILL "$holder"
wait_srun "$start" 60
if [ "$RC" = 255 ]; then
    # Seen with Slurm 22.05: when Ferry's ranks end the step first (a rank whose TCP peer was
    # reset calls PMI abort, slurmstepd cancels the step), slurmctld no longer has the step
    # when it finds fyh2 dead, tells only the job's listener, and srun waits on for fyh2's
    # tasks. The job is gone all the same; srun ends on SIGTERM.
    fail "srun still runs 60 s after fyh2 died (squeue: $(squeue -h -o '%i %T' | xargs)): $(tr '\n' ';' <"$T/err")"
    kill -TERM "$SRUN"
    wait "$SRUN"
fi
[ "$RC" = 0 ] && fail "srun exited 0 after fyh2 died"
echo "fyh2 died: srun ended (status $RC) in ${SECS}s; its messages:"
sed 's/^/    /' "$T/err"
grep -qE "fyh2|rank [23]\b|tasks? [23]\b|tasks 2-3" "$T/err" "$T/out" || fail "no message names fyh2 or its ranks"
expect_clean "fyh1 after fyh2 died" 1
poll '[ -z "$(squeue -h -o %i)" ]' 100 || fail "squeue still shows a job: $(squeue)"
state=$(sinfo -h -n fyh2 -o %T)
case $state in down*) ;; *) fail "Slurm says fyh2 is '$state', not down" ;; esac
finish
