#!/usr/bin/env bash
# timeout: 180
# mpi4py's binary wheel on Ferry's library, under Ferry's mpiexec at 2 ranks.
#
# The wheel (mpi4py >= 4.1) carries one extension module per MPI ABI (MPI.mpich.*.so,
# MPI.openmpi.*.so) and picks one at import: MPI4PY_MPIABI names the ABI, or else it is
# guessed from the library that MPI4PY_LIBMPI names (a path, dlopen'ed). The mpich module
# needs "libmpi.so.12", found through LD_LIBRARY_PATH. We set all three and then check that
# MPI.Get_library_version() is Ferry's.
#
# The venv lives in ${XDG_CACHE_HOME:-$HOME/.cache}/ferry-mpi4py-venv and is reused; the
# first run installs mpi4py from PyPI (binary wheels only): see mpi4py/env.bash.
. "$(dirname "${BASH_SOURCE[0]}")/common.bash"
. "$(dirname "${BASH_SOURCE[0]}")/mpi4py/env.bash"
fy_setup
fy_need_ferry
fy_need python3

fy_mpi4py_venv
fy_mpi4py_env
fy_note "mpi4py $FY_MPI4PY_VERSION from $(dirname "$(dirname "$FY_PY")")"

fy_run_ok mpi4py-np2 90 "${FY_ENV_MPI4PY[@]}" "$FY_MPIEXEC" -n 2 "$FY_PY" "$FY_SRC/tests/interop/src/mpi4py_exchange.py"
fy_expect_in mpi4py-np2 out "^library: .*$FY_LIB_SIGNATURE" "mpi4py did not load Ferry's library"
fy_expect_in mpi4py-np2 out '^No Errors$' "checks failed"
echo "PASS"
