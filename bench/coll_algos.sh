#!/bin/bash
# Collective algorithms against each other: bench/imb.c run once per algorithm, forced with
# FERRY_COLL_<NAME>=<algorithm>, at several rank counts; the algorithms of one collective and
# rank count run one after the other, in an order that rotates every repetition, so drift on a
# shared machine hits them alike. Open MPI can join as one more "algorithm" (OMPI=1), and the
# table's own choice as "auto". Prints a table per collective and rank count: for each size the
# median time of each algorithm (over repetitions of imb's medians) and the best one.
#
#   bench/coll_algos.sh [BUILD_DIR]        (default build/)
#   COLLS="bcast allreduce"  RANKS="2 4 8"  REPS=3  MAX=4M  OMPI=1  AUTO=1  OUT=dir
#
# Raw RESULT lines go to $OUT/raw.txt (default /tmp/coll_algos.<pid>), the tables to stdout and
# $OUT/tables.md. The algorithm names are those of src/coll/select.c.
set -u
BUILD=$(cd "${1:-build}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
COLLS=${COLLS:-"bcast allreduce allgather alltoall barrier"}
RANKS=${RANKS:-"2 4 8"}
REPS=${REPS:-3}
MAX=${MAX:-4M}
OUT=${OUT:-/tmp/coll_algos.$$}
mkdir -p "$OUT"

declare -A ALGOS=(
    [bcast]="binomial scatter_allgather"
    [allreduce]="recursive_doubling rabenseifner ring"
    [allgather]="recursive_doubling bruck ring"
    [alltoall]="pairwise linear bruck"
    [barrier]="dissemination"
    [reduce]="binomial"
    [reduce_scatter]="pairwise allreduce"
    [gather]="linear"
    [scatter]="linear"
)

"$BUILD/bin/mpicc" -O2 -std=c11 -I"$HERE" -o "$OUT/imb-ferry" "$HERE/imb.c" -lm || exit 1
if [ "${OMPI:-0}" = 1 ]; then
    mpicc.openmpi -O2 -std=c11 -I"$HERE" -o "$OUT/imb-ompi" "$HERE/imb.c" -lm || exit 1
fi

run_one() { # coll np algo rep
    local coll=$1 np=$2 algo=$3 rep=$4 var
    var=FERRY_COLL_$(echo "${coll%v}" | tr a-z A-Z)
    local args=(-m -b "$coll" -x "$MAX" -r 3 -t 0.03)
    if [ "$algo" = ompi ]; then
        timeout 300 env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            mpiexec.openmpi --oversubscribe -n "$np" "$OUT/imb-ompi" "${args[@]}"
    elif [ "$algo" = auto ]; then
        timeout 300 env LD_LIBRARY_PATH="$BUILD/lib" "$BUILD/bin/mpiexec" -n "$np" \
            "$OUT/imb-ferry" "${args[@]}"
    else
        timeout 300 env LD_LIBRARY_PATH="$BUILD/lib" "$var=$algo" "$BUILD/bin/mpiexec" -n "$np" \
            "$OUT/imb-ferry" "${args[@]}"
    fi | sed -n "s/^RESULT /RESULT algo=$algo rep=$rep /p" >>"$OUT/raw.txt"
}

for rep in $(seq 1 "$REPS"); do
    for coll in $COLLS; do
        for np in $RANKS; do
            list=(${ALGOS[$coll]})
            [ "${AUTO:-0}" = 1 ] && list+=(auto)
            [ "${OMPI:-0}" = 1 ] && list+=(ompi)
            n=${#list[@]}
            for k in $(seq 0 $((n - 1))); do # rotate the order each repetition
                algo=${list[$(((k + rep) % n))]}
                echo "# rep $rep $coll np=$np $algo" >&2
                run_one "$coll" "$np" "$algo" "$rep"
            done
        done
    done
done

python3 - "$OUT/raw.txt" <<'EOF' | tee "$OUT/tables.md"
import re, sys, statistics
from collections import defaultdict
t = defaultdict(list)
for line in open(sys.argv[1]):
    kv = dict(re.findall(r'(\w+)=(\S+)', line))
    if kv.get('status') != 'ok':
        continue
    t[(kv['bench'], int(kv['ranks']), int(kv['size']), kv['algo'])].append(float(kv['value']))
groups = defaultdict(lambda: defaultdict(dict))
for (b, np, size, algo), v in t.items():
    groups[(b, np)][size][algo] = statistics.median(v)
for (b, np) in sorted(groups):
    rows = groups[(b, np)]
    algos = sorted({a for s in rows.values() for a in s})
    print(f"\n### {b}, {np} ranks (us, median of {max(len(v) for v in t.values())} runs; best in bold)\n")
    print("| size | " + " | ".join(algos) + " | best |")
    print("|---:|" + "---:|" * len(algos) + "---|")
    for size in sorted(rows):
        r = rows[size]
        best = min((r[a], a) for a in r if a not in ('ompi', 'auto'))[1] if any(a not in ('ompi', 'auto') for a in r) else '-'
        cells = []
        for a in algos:
            v = r.get(a)
            cells.append('-' if v is None else (f"**{v:.2f}**" if a == best else f"{v:.2f}"))
        print(f"| {size} | " + " | ".join(cells) + f" | {best} |")
EOF
