#!/usr/bin/env bash
# timeout: 60
# A knob cannot escape the knob table (src/core/fy_knobs.c): no "FERRY_..." string is spelled
# in the library's sources outside that table (reading one elsewhere would bypass MPI_T), every
# control variable `ferry info --json` lists is in the README's knobs table, and every FERRY_
# variable the README lists for the library is a control variable. src/tools/ holds libraries
# of their own (the checker, preloaded by mpiexec --check), not libmpi: their FERRY_CHECK*
# variables are no MPI_T variables of the library, and are documented in docs/ferry.md.
set -u
S=$FY_SRC
fail=0
hits=$(grep -rn --include='*.c' --include='*.h' '"FERRY_' "$S/src" | grep -v '^'"$S"'/src/core/fy_knobs.c:' |
    grep -v '^'"$S"'/src/tools/')
if [ -n "$hits" ]; then
    echo "FAIL: FERRY_ strings outside src/core/fy_knobs.c (read knobs through fy_knob_*):"
    echo "$hits"
    fail=1
fi
"$FY_BUILD/bin/ferry" info --json > info.json || { echo "FAIL: ferry info --json"; exit 1; }
python3 - info.json "$S/README.md" <<'PY' || fail=1
import json, re, sys
cv = [c["name"] for c in json.load(open(sys.argv[1]))["cvars"]]
readme = open(sys.argv[2]).read()
knobs = readme[readme.index("## Knobs"):]
knobs = knobs[:knobs.index("\n## ", 5)]
ok = True
for n in cv:
    if f"`{n}`" not in knobs and not (n.startswith("FERRY_COLL_") and "`FERRY_COLL_<NAME>`" in knobs):
        print(f"FAIL: cvar {n} is not in the README's knobs table"); ok = False
# Variables of the wrappers (mpicc) are not the library's.
listed = set(re.findall(r"`(FERRY_[A-Z_]+)`", knobs)) - {"FERRY_CC", "FERRY_CXX"}
for n in sorted(listed - set(cv)):
    print(f"FAIL: README lists {n}, which is no control variable"); ok = False
sys.exit(0 if ok else 1)
PY
[ $fail = 0 ] && echo "No Errors"
exit $fail
