#!/usr/bin/env bash
# timeout: 60
# ferry farm --results FILE.json: JSON lines, one object per task with the documented keys in
# order (exit a number, or a signal's name as a string), commands with quotes and backslashes
# intact; --resume reads them back and runs only the tasks not ok.
set -u
. "$FY_SRC/tests/ferry/farm_common.inc"

cat > tasks.txt <<'T'
echo "quoted \\ back" > q.txt
exit 4
kill -TERM $$
true
T
"$F" farm tasks.txt -n 3 --results r.json > run.out 2> run.err
[ $? = 1 ] || err "exit status, expected 1: $(cat run.err)"
check_results r.json > recs.txt || err "r.json: $(cat recs.txt)"
grep -qx '1 ok 1 0' recs.txt && grep -qx '2 failed 1 4' recs.txt && grep -qx '3 failed 1 SIGTERM' recs.txt \
    && grep -qx '4 ok 1 0' recs.txt || err "records: $(cat recs.txt)"
python3 - <<'PY' || err "JSON content"
import json
rows = {r["task"]: r for r in map(json.loads, open("r.json"))}
assert rows[1]["command"] == 'echo "quoted \\\\ back" > q.txt', rows[1]["command"]
assert rows[2]["exit"] == 4 and rows[3]["exit"] == "SIGTERM", rows
assert rows[1]["line"] == 1 and isinstance(rows[1]["seconds"], float)
PY
[ "$(cat q.txt)" = 'quoted \ back' ] || err "task 1 wrote '$(cat q.txt)'"
sed -i 's/^exit 4$/exit 0/' tasks.txt 2>/dev/null
# The task file changed at task 2: refused.
"$F" farm tasks.txt -n 2 --resume --results r.json > /dev/null 2>&1
[ $? = 2 ] || err "changed task file accepted"
sed -i 's/^exit 0$/exit 4/; s/^kill -TERM \$\$$/kill -TERM $$/' tasks.txt
"$F" farm tasks.txt -n 2 --resume --results r.json > /dev/null 2> res.err
[ $? = 1 ] || err "--resume: $(cat res.err)"
[ "$(wc -l < r.json)" = 6 ] || err "--resume appended $(($(wc -l < r.json) - 4)) records, expected 2"

[ "$fail" = 0 ] && echo "PASS"
exit $fail
