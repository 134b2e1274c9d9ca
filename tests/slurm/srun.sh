#!/usr/bin/env bash
# timeout: 180
# Ferry's programs under a real Slurm (tests/hosts/fy_slurm, 3 test hosts): srun starts the
# ranks and slurmstepd serves their PMI (--mpi=pmi2). The cluster itself first (srun -N3
# hostname, --mpi=none), then examples/hello, cpi and ring at -N2 -n4 (Slurm's block layout,
# 2 per node, cyclic) and -N3 -n6: every rank runs on the host Slurm gave its task number
# (SLURM_PROCID) and the ranks span the nodes; nothing is left on any host after each.
. "$FY_SRC/tests/slurm/slurm.inc"
slurm_up 3
for p in hello cpi ring; do build_example $p; done

run_srun -N3 hostname
expect_eq "srun -N3 hostname" "fyh1
fyh2
fyh3" "$(sort "$T/out")"
echo "srun -N3 hostname: ${SECS}s"
run_srun --mpi=none -N2 -n4 --ntasks-per-node=2 sh -c 'echo "$SLURM_PROCID $(hostname)"'
expect_eq "srun --mpi=none, 2 tasks per node" "0 fyh1
1 fyh1
2 fyh2
3 fyh2" "$(sort "$T/out")"

# Each task says where Slurm put it (SLURM_PROCID, host), then runs hello: Ferry's rank i must
# be Slurm's task i, on the same host.
check_hello() {
    local what=$1 nodes=$2
    shift 2
    run_srun --mpi=pmi2 "$@" sh -c 'echo "task $SLURM_PROCID $(hostname)"; exec "$0"' "$T/hello"
    expect_eq "$what: status" 0 "$RC"
    local n
    n=$(grep -c '^task ' "$T/out")
    sed -n 's/^task //p' "$T/out" | sort -n >"$T/where"
    sed -n 's/^Hello from rank \([0-9]*\) of '"$n"' on \(fyh[0-9]*\)$/\1 \2/p' "$T/out" | sort -n >"$T/got"
    [ "$n" -gt 0 ] || fail "$what: no task ran: $(cat "$T/out" "$T/err")"
    expect_eq "$what: rank and host of each" "$(cat "$T/where")" "$(cat "$T/got")"
    expect_eq "$what: hosts used" "$nodes" "$(awk '{ print $2 }' "$T/got" | sort -u | wc -l)"
    # (srun says so when the last job's nodes are still completing)
    local err
    err=$(grep -vE '^srun: job [0-9]+ (queued and waiting for resources|has been allocated resources)$' "$T/err")
    [ -z "$err" ] || fail "$what: stderr: $(echo "$err" | head -n 5)"
    echo "$what, hello: ${SECS}s"
    expect_clean "$what"
}
check_hello "-N2 -n4" 2 -N2 -n4
check_hello "-N2 -n4 2 per node" 2 -N2 -n4 --ntasks-per-node=2
check_hello "-N2 -n4 cyclic" 2 -N2 -n4 -m cyclic
check_hello "-N3 -n6" 3 -N3 -n6
check_hello "-N3 -n3" 3 -N3 -n3

for spec in "-N2 -n4 --ntasks-per-node=2" "-N2 -n4 -m cyclic" "-N3 -n6"; do
    run_srun --mpi=pmi2 $spec "$T/cpi"
    expect_eq "cpi $spec: status" 0 "$RC"
    grep -q "pi is approximately 3.14159.*$(echo $spec | sed 's/.*-n\([0-9]\).*/\1/') ranks" "$T/out" ||
        fail "cpi $spec: $(cat "$T/out" "$T/err")"
    run_srun --mpi=pmi2 $spec "$T/ring"
    expect_eq "ring $spec: status" 0 "$RC"
    grep -q "ok$" "$T/out" || fail "ring $spec: $(cat "$T/out" "$T/err")"
    echo "$spec: cpi and ring ${SECS}s"
done
expect_clean "after cpi and ring"
finish
