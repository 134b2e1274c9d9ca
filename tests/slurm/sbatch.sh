#!/usr/bin/env bash
# timeout: 180
# A batch job on a real Slurm of 2 test hosts (tests/hosts/fy_slurm): `sbatch -N2
# --ntasks-per-node=2` of a script that runs examples/hello twice, with `srun --mpi=pmi2` and
# with Ferry's own `mpiexec -n 4` inside the allocation (which must place its ranks on the
# allocation's nodes, 2 per node, as srun does). The job is awaited by polling scontrol (bounded);
# its output file must show both runs' 4 ranks on fyh1 and fyh2 and their statuses 0.
. "$FY_SRC/tests/slurm/slurm.inc"
slurm_up 2
build_example hello

cat >"$T/job.sh" <<SH
#!/bin/sh
echo "batch host \$(hostname) nodes \$SLURM_JOB_NODELIST"
echo "== srun"
srun --mpi=pmi2 "$T/hello"
echo "srun status \$?"
echo "== mpiexec"
timeout -k 5 60 "$FY_BUILD/bin/mpiexec" -n 4 "$T/hello"
echo "mpiexec status \$?"
SH
chmod +x "$T/job.sh"
start=$(date +%s.%N)
job=$(sbatch --parsable -N2 --ntasks-per-node=2 -o "$T/job.out" -e "$T/job.err" "$T/job.sh") ||
    { echo "FAIL: sbatch: $job"; exit 1; }
state=
poll 'state=$(scontrol show job "$job" 2>/dev/null | sed -n "s/.*JobState=\([A-Z_]*\).*/\1/p");
      case $state in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) true ;; *) false ;; esac' 900 ||
    fail "job $job not done after 900 polls (state '$state')"
echo "batch job $job: $state in $(secs_since "$start")s"
expect_eq "job state" COMPLETED "$state"
sed 's/^/    /' "$T/job.out" "$T/job.err"
head -n 1 "$T/job.out" | grep -q "^batch host fyh1 nodes fyh\[1-2\]$" || fail "batch host and nodes: $(head -n 1 "$T/job.out")"
# The hosts of each run's ranks, "rank host" sorted.
ranks() {
    sed -n "/^== $1/,/^$1 status/p" "$T/job.out" |
        sed -n 's/^Hello from rank \([0-9]*\) of 4 on \(fyh[0-9]*\)$/\1 \2/p' | sort -n | xargs
}
expect_eq "srun in the batch job: status" "srun status 0" "$(grep '^srun status' "$T/job.out")"
expect_eq "srun in the batch job: ranks" "0 fyh1 1 fyh1 2 fyh2 3 fyh2" "$(ranks srun)"
expect_eq "mpiexec in the batch job: status" "mpiexec status 0" "$(grep '^mpiexec status' "$T/job.out")"
expect_eq "mpiexec in the batch job: ranks" "0 fyh1 1 fyh1 2 fyh2 3 fyh2" "$(ranks mpiexec)"
expect_clean "after the batch job"
finish
