#!/usr/bin/env bash
# timeout: 120
# A killed job: rank 3's file lost its end record and stops inside a record; rank 2's has no end
# record but whole records. Both tools read up to the last whole record, say so, and close the
# calls left open at the rank's last event: ferry-otf2's archive has as many LEAVEs as ENTERs and
# otf2-print reads it; ferry view's page notes it. A corrupt record ends a file there (noted). A
# rank whose file is missing or empty is a rank without events (noted), not an error.
. "$FY_SRC/tests/trace/trace_common.inc"

python3 "$GEN" job --ranks 4 --iters 6 --no-end 2 --no-end 3 >exp.json || { echo "FAIL: fyt_gen.py"; exit 1; }
f=job/ferry/rank.3.fyt
size=$(stat -c %s "$f")
# Cut into the middle of the records of iteration 4 (not on an 8-byte boundary).
truncate -s $((size * 2 / 3 + 5)) "$f"

run "$FERRY" view job --perfetto job/p.json
expect_eq "view status" 0 "$RC"
expect_grep "truncated noted" "ferry view: note: rank 3: .*rank\.3\.fyt ends inside a record" err
expect_grep "no end noted" "ferry view: note: rank 2: .*rank\.2\.fyt has no end record" err
expect_grep "closed noted" "calls? left open at the end of their rank's file (was|were) closed" err
python3 - <<'PY' || fail "the view's model"
import json, re
html = open("job/view.html").read()
meta = json.loads(re.search(r'<script id="fy-meta" type="application/json">(.*?)</script>', html, re.S).group(1))
assert any("ends inside a record" in n for n in meta["notes"]), meta["notes"]
ev = json.load(open("job/p.json"))["traceEvents"]
x = [e for e in ev if e["ph"] == "X"]
assert len(x) == meta["counts"]["intervals"], (len(x), meta["counts"])
# Rank 3's calls end no later than its last event; all have a duration.
assert all(e["dur"] >= 0 for e in x)
full = json.load(open("exp.json"))["intervals"]
assert meta["counts"]["intervals"] < full, (meta["counts"], full)
PY

if [ -x "$OTF2" ] && command -v otf2-print >/dev/null; then
    run "$OTF2" job
    expect_eq "otf2 status" 0 "$RC"
    expect_grep "truncated noted" "ferry-otf2: note: rank 3: .*ends inside a record" err
    expect_grep "closed calls said" "ferry-otf2: note: rank 3: [0-9]+ calls? left open, closed at its last event" err
    otf2-print job/traces.otf2 >events.txt 2>print.err || fail "otf2-print: $(cat print.err)"
    expect_eq "ENTER = LEAVE" "$(awk '$1 == "ENTER"' events.txt | wc -l)" "$(awk '$1 == "LEAVE"' events.txt | wc -l)"
    last3=$(awk '$1 ~ /^[A-Z_]+$/ && $2 == 3 { t = $3 } END { print t }' events.txt)
    [ -n "$last3" ] && [ "$last3" -lt 500000 ] || fail "rank 3's last event at '$last3' (its file was cut)"
else
    echo "(ferry-otf2 or otf2-print missing: the OTF2 half is not checked)"
fi

# A corrupt record (a head of zeros) in rank 0's file: read up to it, said.
python3 - job/ferry/rank.0.fyt <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
off = 0
for _ in range(60):
    off += struct.unpack_from("<H", b, off + 2)[0] * 8
b[off:off + 8] = bytes(8)
open(sys.argv[1], "wb").write(b)
PY
run "$FERRY" view job -o job/v1.html
expect_eq "view with a bad record" 0 "$RC"
expect_grep "bad record noted" "rank 0: .*rank\.0\.fyt: a bad record \(type 0, 0 words\) at byte [0-9]+; read up to there" err

# A rank with an empty file and one with no file at all.
: >job/ferry/rank.3.fyt
rm job/ferry/rank.1.fyt
run "$FERRY" view job -o job/v2.html
expect_eq "view with holes" 0 "$RC"
expect_grep "empty noted" "rank 3: .*rank\.3\.fyt is empty" err
expect_grep "missing noted" "rank 1: no file .*rank\.1\.fyt" err
finish
