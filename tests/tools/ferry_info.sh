#!/usr/bin/env bash
# timeout: 120
# `ferry info` (tools/ferry): the text lists the version, the build and every control variable
# with its value and description, every performance variable and category; --json parses and
# holds the same variables; a knob set in the environment shows its value and where it came
# from; bad usage exits 2 with a usage line; `cmake --install` into a prefix with a space gives
# a `ferry` that runs from there. The machine section: CPU, CPUs and caches as the system tells
# them, the calibrated costs measured and saved on first use, read from the cache file after,
# measured again with FERRY_CALIBRATE=recalibrate, absent with skip, kept in memory where the
# cache directory cannot be made; FERRY_CMA=0 shows single copy off.
set -u
B=$FY_BUILD
F=$B/bin/ferry
fail=0
err() { echo "FAIL: $*"; fail=1; }

[ -x "$F" ] || { echo "FAIL: $F missing"; exit 1; }
# A cache of our own: the first run measures, the others read the file it wrote.
export XDG_CACHE_HOME="$PWD/cache"
"$F" info > first.txt 2>&1 || err "first ferry info exited $?: $(head -3 first.txt)"
grep -q "^  calibration:    measured now in [0-9.]* ms, saved to $PWD/cache/ferry/machine-[0-9a-f]\{16\}\$" first.txt \
    || err "first run did not measure and save: $(grep calibration: first.txt)"
# As if measured on a quiet machine: later runs read it whatever the load now (a measurement
# made beside other work is measured again when the machine is quiet, unit/test_machine).
sed -i 's/^busy .*/busy 0/' "$PWD"/cache/ferry/machine-*[0-9a-f]
"$F" info > info.txt 2> info.err || err "ferry info exited $?: $(cat info.err)"
"$F" info --json > info.json || err "ferry info --json exited $?"
grep -q '^Ferry [0-9]' info.txt || err "no version line"
for w in 'build type:' 'compiler:' 'install prefix:' '^Control variables' '^Performance variables' \
         '^Categories' 'FERRY_WAIT = auto' 'one of: auto spin block' 'msgs_sent_shm: counter' \
         'bytes_recv_self: counter' 'unexpected_highwater: highwatermark' 'wait_time: timer' \
         'rndv_sends: counter' 'coll_allreduce_ring: counter' '^  ferry: ' '^    ferry_p2p: ' \
         '^      ferry_transport_shm: ' '^      ferry_coll_allreduce: ' \
         'one of: auto spin block fixed' 'wait_sleeps_shared: counter' 'wait_moves: counter'; do
    grep -q -- "$w" info.txt || err "text output lacks '$w'"
done

python3 - info.json info.txt <<'PY' || fail=1
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
ok = True
def bad(msg):
    global ok
    print("FAIL:", msg); ok = False
n_c = int(re.search(r"Control variables \((\d+)\)", text).group(1))
n_p = int(re.search(r"Performance variables \((\d+)\)", text).group(1))
if n_c != len(d["cvars"]) or n_p != len(d["pvars"]):
    bad(f"text says {n_c} cvars/{n_p} pvars, JSON has {len(d['cvars'])}/{len(d['pvars'])}")
for c in d["cvars"]:
    if not c["name"].startswith("FERRY_") or len(c["description"]) < 20 or c["value"] == "":
        bad(f"cvar {c}")
    if f"  {c['name']} = {c['value']}" not in text:
        bad(f"cvar {c['name']} not listed with its value in the text")
    if c["datatype"] == "int" and "enum" in c and c["value"] not in c["enum"]:
        bad(f"cvar {c['name']} value {c['value']} not in its enum")
names = {p["name"] for p in d["pvars"]}
for x in ("self", "shm"):
    for k in ("msgs_sent", "bytes_sent", "msgs_recv", "bytes_recv"):
        if f"{k}_{x}" not in names:
            bad(f"no pvar {k}_{x}")
cats = {c["name"]: c for c in d["categories"]}
inc = [v for c in d["categories"] for v in c["cvars"]]
inp = [v for c in d["categories"] for v in c["pvars"]]
if sorted(inc) != sorted(c["name"] for c in d["cvars"]):
    bad("cvars not each in exactly one category")
if sorted(inp) != sorted(names):
    bad("pvars not each in exactly one category")
if d["events"] != 0:
    bad("events")
sys.exit(0 if ok else 1)
PY

# The machine section, against what the system says.
grep -q "^  calibration:    from the cache file $PWD/cache/ferry/machine-[0-9a-f]\{16\} (measured in [0-9.]* ms)\$" info.txt \
    || err "second run did not read the cache file: $(grep calibration: info.txt)"
for w in '^Machine$' '^  CPU:  ' '^  caches:         L1d [0-9]* KiB, L2 ' '^  memcpy in L2:   [0-9.]* GB/s' \
         '^  memcpy in RAM:  [0-9.]* GB/s' '^  futex wake-up:  [0-9.]* us' '^Thresholds: ' \
         '^  FERRY_EAGER_MAX = ' '^  FERRY_RNDV = ' '^  FERRY_SHM_RING = '; do
    grep -q -- "$w" info.txt || err "machine section lacks '$w'"
done
model=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//')
[ -z "$model" ] || grep -qF "  CPU:            $model" info.txt || err "CPU model is not '$model'"
grep -q "^  CPUs:           $(getconf _NPROCESSORS_ONLN) online" info.txt || err "CPUs online wrong"
python3 - info.json <<'PY' || fail=1
import json, sys
m = json.load(open(sys.argv[1]))["machine"]
ok = m["calibration"] == "cache file"
ok = ok and m["cpus_online"] >= 1 and 1 <= m["cpus_allowed"] <= m["cpus_online"]
ok = ok and m["l2_bytes"] >= m["l1d_bytes"] > 0
ok = ok and m["memcpy_cache_gbps"] > 0 and m["memcpy_mem_gbps"] > 0 and m["wake_ns"] > 0
ok = ok and m["cma_gbps"] >= 0 and m["calib_ms"] > 0
if not ok:
    print("FAIL: JSON machine", m)
sys.exit(0 if ok else 1)
PY
# A knob from the environment: its value, marked as such.
FERRY_WAIT=block FERRY_EAGER_MAX=4K FERRY_COLL_BCAST=binomial "$F" info > env.txt
grep -q 'FERRY_WAIT = block (from the environment)' env.txt || err "FERRY_WAIT=block not shown"
grep -q 'FERRY_EAGER_MAX = 4096 (from the environment)' env.txt || err "FERRY_EAGER_MAX=4K not shown"
grep -q 'FERRY_COLL_BCAST = binomial (from the environment)' env.txt || err "FERRY_COLL_BCAST not shown"
# A number knob given a word keeps its default (FERRY_CMA=on must not disable single-copy).
FERRY_CMA=on "$F" info | grep -q '^  FERRY_CMA = 1 (from the environment)' || err "FERRY_CMA=on read as 0"
FERRY_CMA=0 "$F" info | grep -q '^  FERRY_CMA = 0 (from the environment)' || err "FERRY_CMA=0 not 0"
FERRY_SPIN_US=7 "$F" info --json | grep -q '"name": "FERRY_SPIN_US", "value": "7", "from_environment": true' \
    || err "JSON does not show FERRY_SPIN_US=7"

# Usage errors.
"$F" > usage.txt 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'usage: ferry info' usage.txt || err "ferry with no arguments: exit $rc"
"$F" info --bogus > usage.txt 2>&1; rc=$?
[ $rc = 2 ] && grep -q "unknown option '--bogus'" usage.txt || err "ferry info --bogus: exit $rc"

# Installed into a prefix with a space, it finds its library there.
P="$PWD/inst dir"
cmake --install "$B" --prefix "$P" > install.log 2>&1 || err "cmake --install failed: $(tail -3 install.log)"
if [ -x "$P/bin/ferry" ]; then
    env -u LD_LIBRARY_PATH "$P/bin/ferry" info > inst.txt 2>&1 || err "installed ferry failed: $(head -3 inst.txt)"
    cmp -s <(grep -v 'install prefix' inst.txt) <(grep -v 'install prefix' info.txt) \
        || err "installed ferry prints something else"
else
    err "ferry not installed in $P/bin"
fi

# The modes of FERRY_CALIBRATE (last: recalibrate changes what the runs above read).
FERRY_CALIBRATE=recalibrate "$F" info | grep -q '^  calibration:    measured now in .*, saved to ' \
    || err "FERRY_CALIBRATE=recalibrate did not measure"
FERRY_CALIBRATE=skip "$F" info > skip.txt
grep -q '^  calibration:    skipped' skip.txt && ! grep -q 'memcpy in L2' skip.txt \
    || err "FERRY_CALIBRATE=skip still shows costs"
grep -q '^  FERRY_CALIBRATE = skip (from the environment)' skip.txt || err "FERRY_CALIBRATE=skip not listed"
FERRY_CMA=0 "$F" info | grep -q '^  single copy:    off (FERRY_CMA=0)' || err "FERRY_CMA=0: single copy not off"
: > plain
XDG_CACHE_HOME="$PWD/plain" "$F" info > nowrite.txt 2>&1 || err "ferry info with an unwritable cache exited $?"
grep -q '^  calibration:    measured now in .*, not saved' nowrite.txt || err "unwritable cache: $(grep calibration: nowrite.txt)"
ls cache/ferry | grep -q tmp && err "a temporary file stayed in the cache directory"

[ $fail = 0 ] && echo "No Errors"
exit $fail
