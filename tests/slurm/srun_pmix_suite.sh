#!/usr/bin/env bash
# timeout: 600
# Every 4-rank MPI test program under `srun --mpi=pmix -N2 -n4 --ntasks-per-node=2`: Slurm's
# PMIx plugin serves them, and the library talks to it through libpmix (opened at run time).
# The same run as srun_suite.sh, in the runner's placement slurm-pmix.
SUITE_PLACEMENT=slurm-pmix exec "$FY_SRC/tests/slurm/srun_suite.sh"
