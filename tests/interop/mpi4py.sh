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
# first run installs mpi4py from PyPI (binary wheels only).
. "$(dirname "${BASH_SOURCE[0]}")/common.bash"
fy_setup
fy_need_ferry
fy_need python3

venv=${FY_MPI4PY_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ferry-mpi4py-venv}
py=$venv/bin/python
if ! "$py" -c 'import mpi4py, mpi4py._mpiabi' >/dev/null 2>&1; then
    mkdir -p "$(dirname "$venv")"
    [ -x "$py" ] || fy_run_ok venv 120 python3 -m venv "$venv"
    fy_run pip 150 "$py" -m pip install --disable-pip-version-check --only-binary=:all: 'mpi4py>=4.1'
    if [ "$FY_RC" -ne 0 ]; then
        fy_show pip
        fy_fail "pip could not install mpi4py (a binary wheel from PyPI) into $venv: is the package index reachable?"
    fi
fi
fy_run_ok version 30 "$py" -c 'import mpi4py; print(mpi4py.__version__)'
fy_note "mpi4py $(cat version.out) from $venv"

fy_run_ok mpi4py-np2 90 env \
    MPI4PY_MPIABI=mpich \
    MPI4PY_LIBMPI="$FY_LIB/libmpi.so.12" \
    LD_LIBRARY_PATH="$FY_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$FY_MPIEXEC" -n 2 "$py" "$FY_SRC/tests/interop/src/mpi4py_exchange.py"
fy_expect_in mpi4py-np2 out "^library: .*$FY_LIB_SIGNATURE" "mpi4py did not load Ferry's library"
fy_expect_in mpi4py-np2 out '^No Errors$' "checks failed"
echo "PASS"
