#!/usr/bin/env bash
# timeout: 240
# End to end with the recorder (libferry_prof.so, skipped without it): `mpiexec --trace DIR` on
# examples/ring.c at 4 ranks (10 laps: 40 messages), then mpiexec's own run of ferry-otf2 gives
# DIR/traces.otf2 whose MPI_SENDs and MPI_RECVs are the 40 messages, and `ferry view DIR` matches
# every send to its receive, received after it was sent on the aligned clock (to within the two
# ranks' alignment errors, which the page's meta gives).
. "$FY_SRC/tests/trace/trace_common.inc"
[ -f "$FY_BUILD/lib/libferry_prof.so" ] || { echo "SKIP: no libferry_prof.so in the build (the recorder)"; exit 77; }
"$FY_BUILD/bin/mpiexec" --help 2>&1 | grep -q -- '--trace' || { echo "SKIP: this mpiexec has no --trace yet (the recorder's options)"; exit 77; }
needs_otf2
command -v cc >/dev/null || { echo "SKIP: no C compiler"; exit 77; }

"$FY_BUILD/bin/mpicc" -O1 -o ring "$FY_SRC/examples/ring.c" || { echo "FAIL: mpicc ring.c"; exit 1; }
timeout -k 5 120 "$FY_BUILD/bin/mpiexec" --trace tr -n 4 ./ring >out 2>err </dev/null
expect_eq "job status" 0 "$?"
expect_grep "ring ran" "token 60 \(expected 60\) ok" out
[ -f tr/traces.otf2 ] || fail "mpiexec did not leave tr/traces.otf2: $(cat err)"
otf2-print tr/traces.otf2 >events.txt 2>print.err || fail "otf2-print: $(cat print.err)"
expect_eq "MPI_SEND" 40 "$(awk '$1 == "MPI_SEND"' events.txt | wc -l)"
expect_eq "MPI_RECV" 40 "$(awk '$1 == "MPI_RECV"' events.txt | wc -l)"
expect_eq "ENTER = LEAVE" "$(awk '$1 == "ENTER"' events.txt | wc -l)" "$(awk '$1 == "LEAVE"' events.txt | wc -l)"

run "$FERRY" view tr --perfetto tr/trace.json
expect_eq "view status" 0 "$RC"
expect_grep "view summary" "^ferry view: tr/view.html: 4 ranks, [0-9]+ calls and regions, 40 messages" out
python3 - <<'PY' || fail "the page's messages"
import base64, json, math, re, struct, zlib
html = open("tr/view.html").read()
meta = json.loads(re.search(r'<script id="fy-meta" type="application/json">(.*?)</script>', html, re.S).group(1))
raw = zlib.decompress(base64.b64decode(re.search(r'<script id="fy-data" type="application/octet-stream">(.*?)</script>', html, re.S).group(1).strip()))
col = lambda k, t: struct.unpack_from("<%d%s" % (meta["columns"][k]["count"], t), raw, meta["columns"][k]["offset"])
send, recv = col("msg_send", "d"), col("msg_recv", "d")
assert len(send) == 40 and not any(math.isnan(r) for r in recv), recv
# Received after sent, to within the two ranks' clock alignment errors (the recorder's syncs).
err = meta["clock_error_ns"]
src, dst = col("msg_src", "H"), col("msg_dst", "H")
bad = [(a, b, s, r) for s, r, a, b in zip(send, recv, src, dst) if r < s - err[a] - err[b]]
assert not bad, ("received before sent, beyond the clock error", bad[:3], err)
assert isinstance(meta["profile"], dict), "no profile"
ev = json.load(open("tr/trace.json"))["traceEvents"]
assert sum(e["ph"] == "s" for e in ev) == 40 and sum(e["ph"] == "f" for e in ev) == 40
PY
finish
