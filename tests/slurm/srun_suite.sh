#!/usr/bin/env bash
# timeout: 600
# Every MPI test program the suite runs at 4 ranks (the testlist's lines with 4 ranks and no
# variables: the ones tests/run.py also runs in its placements tcp, 2x2 and 4x1) under
# `srun --mpi=pmi2 -N2 -n4 --ntasks-per-node=2` on a real Slurm of 2 test hosts: the runner's
# placement `slurm` (tests/run.py brings the cluster up and down), with its own log. Each must
# pass, and none may be missing. SUITE_PLACEMENT=slurm-pmix runs them under --mpi=pmix instead
# (tests/slurm/srun_pmix_suite.sh).
. "$FY_SRC/tests/slurm/slurm.inc"
PL=${SUITE_PLACEMENT:-slurm}
RUN=(python3 "$FY_SRC/tests/run.py" --build "$FY_BUILD" --placements "$PL" --filter ",$PL\$")
want=$("${RUN[@]}" --list | grep -c ",$PL\$")
[ "$want" -gt 0 ] || { echo "FAIL: run.py lists no test of placement slurm"; exit 1; }
start=$(date +%s.%N)
"${RUN[@]}" -j 1 --log "$T/suite-log.txt" >"$T/suite.out" 2>&1
rc=$?
cat "$T/suite.out"
expect_eq "run.py's status" 0 "$rc"
grep -q '^SKIP' "$T/suite.out" && fail "run.py skipped the placement"
expect_eq "tests passed" "$want passed, 0 skipped, 0 failed" "$(tail -n 1 "$T/suite.out")"
echo "$want programs under srun in $(secs_since "$start")s (Slurm up and down included)"
finish
