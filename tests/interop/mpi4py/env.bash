# Sourced by the mpi4py tests (after common.bash): fy_mpi4py_venv puts mpi4py's binary wheel
# from PyPI in a venv, fy_mpi4py_suite unpacks the same version's sdist, whose test/ folder is
# mpi4py's own suite. Both live in the user's cache and are reused, so only the first run needs
# the package index. Sets FY_PY (the venv's python) and FY_MPI4PY_TESTS (the suite's folder).

fy_mpi4py_venv() {
    local venv=${FY_MPI4PY_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ferry-mpi4py-venv}
    FY_PY=$venv/bin/python
    # numpy too: mpi4py's suite runs many of its buffer tests on numpy arrays as well.
    if ! "$FY_PY" -c 'import mpi4py, mpi4py._mpiabi, numpy' >/dev/null 2>&1; then
        mkdir -p "$(dirname "$venv")"
        [ -x "$FY_PY" ] || fy_run_ok venv 120 python3 -m venv "$venv"
        fy_run pip 150 "$FY_PY" -m pip install --disable-pip-version-check --only-binary=:all: 'mpi4py>=4.1' numpy
        if [ "$FY_RC" -ne 0 ]; then
            fy_show pip
            fy_fail "pip could not install mpi4py (a binary wheel from PyPI) into $venv: is the package index reachable?"
        fi
    fi
    FY_MPI4PY_VERSION=$("$FY_PY" -c 'import mpi4py; print(mpi4py.__version__)') ||
        fy_fail "mpi4py in $venv does not import"
}

fy_mpi4py_suite() {
    local cache=${XDG_CACHE_HOME:-$HOME/.cache}/ferry-mpi4py-sdist
    local dir=$cache/mpi4py-$FY_MPI4PY_VERSION
    FY_MPI4PY_TESTS=$dir/test
    [ -f "$FY_MPI4PY_TESTS/main.py" ] && return 0
    mkdir -p "$cache"
    # Only mpi4py itself as source: pip prepares its metadata, and the build backend it installs
    # for that comes as wheels (with :all: pip built setuptools from source, past the timeout).
    fy_run sdist 150 "$FY_PY" -m pip download --disable-pip-version-check --no-deps \
        --no-binary=mpi4py -d "$cache" "mpi4py==$FY_MPI4PY_VERSION"
    if [ "$FY_RC" -ne 0 ]; then
        fy_show sdist
        fy_fail "pip could not download mpi4py's sdist $FY_MPI4PY_VERSION: is the package index reachable?"
    fi
    # Unpack beside, then rename: a run interrupted half-way leaves no half a suite behind.
    rm -rf "$dir.part" && mkdir -p "$dir.part" &&
        tar -xzf "$cache/mpi4py-$FY_MPI4PY_VERSION.tar.gz" -C "$dir.part" --strip-components=1 &&
        rm -rf "$dir" && mv "$dir.part" "$dir" || fy_fail "cannot unpack mpi4py's sdist into $dir"
    [ -f "$FY_MPI4PY_TESTS/main.py" ] || fy_fail "mpi4py's sdist has no test/main.py"
}

# The environment that makes mpi4py's wheel load Ferry's library (see mpi4py.sh).
fy_mpi4py_env() {
    FY_ENV_MPI4PY=(env MPI4PY_MPIABI=mpich MPI4PY_LIBMPI="$FY_LIB/libmpi.so.12"
        LD_LIBRARY_PATH="$FY_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
}

# For the tests that run the suite under a tool (tests/check, tests/prof): the venv and sdist,
# or `SKIP` with status 77 when they cannot be made here (no package index, nothing cached).
fy_mpi4py_or_skip() {
    if ! (fy_mpi4py_venv && fy_mpi4py_suite) >venv.log 2>&1; then
        echo "SKIP: mpi4py's venv or suite could not be made: $(grep FAIL venv.log | head -1)"
        exit 77
    fi
    fy_mpi4py_venv
    fy_mpi4py_suite
    fy_mpi4py_env
}

# FY_MPI4PY_ARGS: main.py's options for exclusions.txt (-e for whole modules, --xfile for test
# names, written to ./xfile.txt with the extra test names given) and -v.
fy_mpi4py_args() {
    FY_MPI4PY_ARGS=()
    : >xfile.txt
    [ $# -eq 0 ] || printf '%s\n' "$@" >>xfile.txt
    local kind pat
    while read -r kind pat _; do
        case "$kind" in
        module) FY_MPI4PY_ARGS+=(-e "$pat") ;;
        test) echo "$pat" >>xfile.txt ;;
        '' | '#'*) ;;
        *) fy_fail "exclusions.txt: unknown kind '$kind'" ;;
        esac
    done <"$FY_SRC/tests/interop/mpi4py/exclusions.txt"
    FY_MPI4PY_ARGS+=(--xfile "$PWD/xfile.txt" -v)
}
