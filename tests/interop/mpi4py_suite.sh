#!/usr/bin/env bash
# timeout: 3000
# mpi4py's own test suite (from its sdist, the same version as the wheel) on Ferry's library
# under Ferry's mpiexec, at 1, 2 and 3 ranks. Every test must pass, or be skipped by mpi4py for
# a reason listed in mpi4py/skips.txt, or be left out by mpi4py/exclusions.txt (I/O and dynamic
# processes only). Each rank count is one job with a time limit far above its
# normal 30-90 s on a quiet machine, so a hang fails the test instead of stopping the suite.
. "$(dirname "${BASH_SOURCE[0]}")/common.bash"
. "$(dirname "${BASH_SOURCE[0]}")/mpi4py/env.bash"
fy_setup
fy_need_ferry
fy_need python3
fy_mpi4py_venv
fy_mpi4py_suite
fy_mpi4py_env
here=$FY_SRC/tests/interop
fy_note "mpi4py $FY_MPI4PY_VERSION, suite in $FY_MPI4PY_TESTS"

# Exclusions as main.py options (env.bash).
fy_mpi4py_args
args=("${FY_MPI4PY_ARGS[@]}")

ranks=${FY_MPI4PY_RANKS:-1 2 3}
bad=0
for np in $ranks; do
    mkdir -p "np$np"
    fy_run "suite-np$np" 900 "${FY_ENV_MPI4PY[@]}" "$FY_MPIEXEC" -n "$np" \
        "$FY_PY" "$here/src/mpi4py_suite.py" "$FY_MPI4PY_TESTS" "$PWD/np$np" "${args[@]}"
    rc=$FY_RC
    # One verdict per rank count from every rank's log (see the summary this prints).
    if ! python3 "$here/mpi4py/verdict.py" "$np" "$rc" "$here/mpi4py/skips.txt" "np$np"; then
        bad=1
        [ "$rc" -eq 124 ] && echo "np=$np: timed out after 900 s" >&2
        fy_show "suite-np$np"
    fi
done
[ "$bad" -eq 0 ] || fy_fail "mpi4py's suite did not pass on Ferry (see above)"
echo "PASS"
