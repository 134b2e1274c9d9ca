#!/bin/sh
# timeout: 60
# Our PMI client under MPICH's launcher (mpiexec.hydra): init, rank/size, KVS across 4 ranks,
# abort.
. "$FY_SRC/tests/launcher/lib.inc"
HYDRA=$(command -v mpiexec.hydra || command -v mpiexec.mpich)
if [ -z "$HYDRA" ]; then
    echo "SKIP: mpiexec.hydra not installed"
    exit 0
fi
build_pmi_prog

timeout 30 "$HYDRA" -n 4 "$PMI_PROG" info >"$T/out" 2>"$T/err"
expect_eq "status of info under hydra" 0 "$?"
expect_eq "ranks under hydra" "0 1 2 3" "$(awk '{print $2}' "$T/out" | sort -n | tr '\n' ' ' | sed 's/ $//')"
expect_eq "sizes under hydra" 4 "$(awk '{print $4}' "$T/out" | sort -u)"
awk '{print $10}' "$T/out" | grep -qvE '^[A-Za-z0-9_-]+$' && fail "kvsname not sanitized"

timeout 30 "$HYDRA" -n 4 "$PMI_PROG" kvs >"$T/out" 2>"$T/err"
expect_eq "status of kvs under hydra" 0 "$?"
expect_eq "kvs under hydra" "No Errors" "$(cat "$T/out")"
[ -s "$T/err" ] && fail "errors under hydra: $(cat "$T/err")"

timeout 30 "$HYDRA" -n 3 "$PMI_PROG" abort 7 >"$T/out" 2>"$T/err"
expect_eq "status of abort under hydra" 7 "$?"
finish
