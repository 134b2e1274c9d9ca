#!/usr/bin/env bash
# timeout: 300
# PMIx, Ferry -> Open MPI's launcher: Open MPI's mpirun is a PMIx server, so a program built
# with Ferry's mpicc and started by it finds PMIX_NAMESPACE and talks to that server through
# libpmix (opened at run time). At 2 and 4 ranks: one job of N ranks (not N singletons), the ABI
# checks pass, MPI_UNIVERSE_SIZE and the shared-memory split come from the server's job data;
# the 4-rank programs of tests/diff run with the same output as under Ferry's own mpiexec; an
# MPI_Abort ends the job with a non-zero status and nothing left behind.
. "$(dirname "${BASH_SOURCE[0]}")/common.bash"
fy_setup
fy_need_ferry
command -v mpirun.openmpi >/dev/null || { echo "SKIP: Open MPI (openmpi-bin) is not installed"; exit 0; }
[ -e /usr/lib/x86_64-linux-gnu/libpmix.so.2 ] || ldconfig -p | grep -q 'libpmix\.so\.2 ' ||
    { echo "SKIP: libpmix2 is not installed"; exit 0; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
OMPI=(mpirun.openmpi -x "LD_LIBRARY_PATH=$FY_LIB")

fy_cc_ferry ./abi_exercise "$FY_SRC/tests/interop/src/abi_exercise.c"
fy_shm_snapshot shm-before.txt
for n in 2 4; do
    fy_run_ok "ompi-np$n" 120 "${OMPI[@]}" -n "$n" ./abi_exercise "$n"
    fy_expect_in "ompi-np$n" out "^library: .*$FY_LIB_SIGNATURE" "Ferry's library was not the one loaded"
    fy_expect_in "ompi-np$n" out '^No Errors$' "checks failed"
done

for prog in cpi ring coll probe_order; do
    fy_cc_ferry "./$prog" "$FY_SRC/tests/diff/src/$prog.c" -lm
    fy_run_ok "$prog-ferry" 120 "$FY_MPIEXEC" -n 4 "./$prog"
    fy_run_ok "$prog-ompi" 120 "${OMPI[@]}" -n 4 "./$prog"
    diff -u "$prog-ferry.out" "$prog-ompi.out" >"$prog.diff" ||
        { cat "$prog.diff" >&2; fy_fail "$prog: output under Open MPI's mpirun differs (- mpiexec, + mpirun)"; }
    echo "$prog: $(wc -l <"$prog-ompi.out") lines, same under mpiexec and under mpirun (PMIx)"
done

# MPI_Abort through PMIx_Abort: the job ends, non-zero.
fy_cc_ferry ./faults "$FY_SRC/tests/errors/src/faults.c"
fy_run abort 120 "${OMPI[@]}" -n 3 ./faults abort
[ "$FY_RC" -ne 0 ] && [ "$FY_RC" -ne 124 ] || { fy_show abort; fy_fail "abort: exit status $FY_RC"; }
echo "abort: mpirun exited $FY_RC"
fy_check_leftovers shm-before.txt
echo "PASS"
