#!/usr/bin/env bash
# timeout: 1200
# mpi4py's own test suite under the recorder (mpiexec --trace, which also profiles): a large
# body of correct code we did not write must pass exactly as it does without the recorder
# (every MPI call goes through its wrappers), and the trace it leaves must convert to OTF2
# (otf2-print reads it) and to a page. Same venv, sdist and exclusions as
# tests/interop/mpi4py_suite.sh, at 2 ranks (FY_MPI4PY_PROF_RANKS for others).
# Skips (status 77) when the venv cannot be built (no package index and no cached venv).
. "$FY_SRC/tests/interop/common.bash"
. "$FY_SRC/tests/interop/mpi4py/env.bash"
fy_setup
fy_need_ferry
[ -f "$FY_BUILD/lib/libferry_prof.so" ] || { echo "SKIP: no libferry_prof.so in the build"; exit 77; }
command -v python3 > /dev/null || { echo "SKIP: python3 not installed"; exit 77; }
fy_mpi4py_or_skip
here=$FY_SRC/tests/interop
fy_note "mpi4py $FY_MPI4PY_VERSION under mpiexec --trace, suite in $FY_MPI4PY_TESTS"
fy_mpi4py_args
args=("${FY_MPI4PY_ARGS[@]}")
bad=0
for np in ${FY_MPI4PY_PROF_RANKS:-2}; do
    mkdir -p "np$np"
    # --trace-max keeps the files small (the suite makes millions of calls): the cap is then
    # reached on a real program too, and what was recorded up to it must still convert.
    fy_run "trace-np$np" 900 "${FY_ENV_MPI4PY[@]}" "$FY_MPIEXEC" --trace "$PWD/tr$np" \
        --trace-max 64M -n "$np" \
        "$FY_PY" "$here/src/mpi4py_suite.py" "$FY_MPI4PY_TESTS" "$PWD/np$np" "${args[@]}"
    rc=$FY_RC
    if ! python3 "$here/mpi4py/verdict.py" "$np" "$rc" "$here/mpi4py/skips.txt" "np$np"; then
        bad=1
        fy_show "trace-np$np"
    fi
    # The trace: converted by mpiexec after the job, readable by OTF2's own reader, and a page.
    if [ ! -f "tr$np/traces.otf2" ] ||
        ! cat "trace-np$np.out" "trace-np$np.err" | grep -q "^ferry-otf2: .*traces.otf2: $np ranks"; then
        echo "np=$np: no OTF2 archive, or ferry-otf2 did not say so:" >&2
        tail -n 20 "trace-np$np.out" "trace-np$np.err" >&2
        ls -la "tr$np" "tr$np/ferry" >&2
        # Evidence only (the test has failed): is the raw trace itself convertible?
        echo "np=$np: ferry-otf2 run again by hand:" >&2
        "$FY_BUILD/bin/ferry-otf2" "tr$np" >&2
        echo "(status $?)" >&2
        bad=1
    elif command -v otf2-print > /dev/null; then
        n=$(otf2-print "tr$np/traces.otf2" 2>/dev/null | grep -c '^ENTER ')
        [ "$n" -gt 10000 ] || { echo "np=$np: otf2-print reads only $n ENTER events" >&2; bad=1; }
        echo "np=$np: otf2-print reads $n ENTER events"
    fi
    if ! "$FY_BUILD/bin/ferry" view "tr$np" > view.out 2>&1; then
        echo "np=$np: ferry view failed:" >&2
        cat view.out >&2
        bad=1
    fi
    grep -q "MPI_Allreduce" "tr$np/profile.txt" || { echo "np=$np: the profile has no MPI_Allreduce" >&2; bad=1; }
done
[ "$bad" -eq 0 ] || fy_fail "mpi4py's suite under --trace: failures (see above)"
echo "PASS"
