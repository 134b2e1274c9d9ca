#!/bin/sh
# timeout: 60
# Our PMI client under MPICH's launcher (mpiexec.hydra): init, rank/size, KVS across 4 ranks,
# abort; in PMI-1 (Hydra's default) and in PMI-2 (PMI_VERSION=2: the same client speaks PMI-2's
# framed commands to Hydra, as it does to Slurm's srun --mpi=pmi2).
. "$FY_SRC/tests/launcher/lib.inc"
HYDRA=$(command -v mpiexec.hydra || command -v mpiexec.mpich)
if [ -z "$HYDRA" ]; then
    echo "SKIP: mpiexec.hydra not installed"
    exit 0
fi
build_pmi_prog

for ver in 1 2; do
    ENVV=""
    [ $ver = 2 ] && ENVV="-genv PMI_VERSION 2"
    timeout 30 "$HYDRA" $ENVV -n 4 "$PMI_PROG" info >"$T/out" 2>"$T/err"
    expect_eq "status of info under hydra (PMI-$ver)" 0 "$?"
    expect_eq "ranks under hydra (PMI-$ver)" "0 1 2 3" "$(awk '{print $2}' "$T/out" | sort -n | tr '\n' ' ' | sed 's/ $//')"
    expect_eq "sizes under hydra (PMI-$ver)" 4 "$(awk '{print $4}' "$T/out" | sort -u)"
    expect_eq "protocol under hydra" "PMI-$ver" "$(awk '{print $12}' "$T/out" | sort -u)"
    awk '{print $10}' "$T/out" | grep -qvE '^[A-Za-z0-9_-]+$' && fail "kvsname not sanitized"

    timeout 30 "$HYDRA" $ENVV -n 4 "$PMI_PROG" kvs >"$T/out" 2>"$T/err"
    expect_eq "status of kvs under hydra (PMI-$ver)" 0 "$?"
    expect_eq "kvs under hydra (PMI-$ver)" "No Errors" "$(cat "$T/out")"
    [ -s "$T/err" ] && fail "errors under hydra (PMI-$ver): $(cat "$T/err")"

    # PMI-2's abort carries no exit status (the launcher picks one: Hydra's is 255); PMI-1's
    # carries the program's.
    timeout 30 "$HYDRA" $ENVV -n 3 "$PMI_PROG" abort 7 >"$T/out" 2>"$T/err"
    rc=$?
    if [ $ver = 1 ]; then
        expect_eq "status of abort under hydra (PMI-1)" 7 "$rc"
    elif [ $rc = 0 ] || [ $rc = 124 ]; then
        fail "status of abort under hydra (PMI-2): $rc, expected a failure"
    fi
done
finish
