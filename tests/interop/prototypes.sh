#!/usr/bin/env bash
# timeout: 60
# ABI prototypes: every MPI_ and PMPI_ function that MPICH's mpi.h declares must be declared
# by Ferry's mpi.h with the same parameter and return types. gcc -aux-info writes each
# header's declarations in one normalised form (no parameter names, typedef names kept; the
# typedefs themselves are compared by abi_constants.sh).
. "$(dirname "${BASH_SOURCE[0]}")/common.bash"
fy_setup
fy_need_ferry
fy_need_mpich

echo '#include <mpi.h>' >decls.c
fy_run_ok aux-mpich 60 "$MPICH_CC" -std=c11 -aux-info decls-mpich.aux -c decls.c -o decls-mpich.o
fy_run_ok aux-ferry 60 "$FY_MPICC" -std=c11 -aux-info decls-ferry.aux -c decls.c -o decls-ferry.o

# One line per function: "NAME<TAB>declaration", the declaration with comments and repeated
# blanks removed. The function's name is the first identifier followed by " (" (MPIX_ and
# QMPI_ functions are not part of the standard and are left out).
normalise() {
    python3 - "$1" <<'PY'
import re, sys
seen = {}
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    line = re.sub(r"/\*.*?\*/", "", line)
    m = re.search(r"\b([A-Za-z_][A-Za-z0-9_]*) \(", line)
    if not m or not re.match(r"P?MPI_", m.group(1)):
        continue
    decl = " ".join(line.replace(";", " ").split())
    decl = re.sub(r"^extern ", "", decl)
    seen[m.group(1)] = decl
for name in sorted(seen):
    print(f"{name}\t{seen[name]}")
PY
}
normalise decls-mpich.aux >protos-mpich.txt
normalise decls-ferry.aux >protos-ferry.txt
[ "$(wc -l <protos-mpich.txt)" -gt 500 ] || fy_fail "found only $(wc -l <protos-mpich.txt) prototypes in MPICH's mpi.h"

missing=0 differ=0
: >protos.report
while IFS= read -r line; do
    name=${line%%$'\t'*}
    ferry=$(grep -E "^$name"$'\t' protos-ferry.txt || true)
    if [ -z "$ferry" ]; then
        echo "missing: ${line#*$'\t'}" >>protos.report
        missing=$((missing + 1))
    elif [ "$ferry" != "$line" ]; then
        { echo "differs: MPICH: ${line#*$'\t'}"; echo "         Ferry: ${ferry#*$'\t'}"; } >>protos.report
        differ=$((differ + 1))
    fi
done <protos-mpich.txt
if [ "$missing" -gt 0 ] || [ "$differ" -gt 0 ]; then
    cat protos.report >&2
    fy_fail "$missing prototypes missing and $differ different in Ferry's mpi.h (of $(wc -l <protos-mpich.txt))"
fi
echo "PASS: $(wc -l <protos-mpich.txt) prototypes identical"
