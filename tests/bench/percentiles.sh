#!/usr/bin/env bash
# timeout: 120
# The spreads of the benchmarks: latency, bandwidth and ring keep their command lines (the
# shared option parser of bench_common.h) and print p10 <= p50 <= p90 in their RESULT lines
# next to the median-batch value; compare.py reads the percentiles into results.json and shows
# them, with Ferry over the best peer at p50 and p90, in the quiet/loaded side-by-side table.
set -u
B=$FY_BUILD
S=$FY_SRC
fail=0
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for p in latency bandwidth ring; do
    "$B/bin/mpicc" -O2 -std=c11 -Wall -Wextra -Werror -I"$S/bench" -o "$p" "$S/bench/$p.c" -lm ||
        { echo "FAIL: $p.c does not build"; exit 1; }
done
run() { timeout 60 "$B/bin/mpiexec" -n 2 "$@"; }
run ./latency -m -i 200 -w 10 -b 4 -x 64 >lat.txt || { echo "FAIL: latency"; fail=1; }
run ./bandwidth -m -i 4 -w 1 -b 2 -W 4 -n 1K -x 4K >bw.txt || { echo "FAIL: bandwidth"; fail=1; }
run ./ring -m -l 50 -L 10 -s 8 -S 4K -T 1 -w 2 >ring.txt || { echo "FAIL: ring"; fail=1; }
check() { # file bench count
    awk -v b="$2" -v want="$3" '
        /^RESULT / {
            delete kv
            for (i = 2; i <= NF; i++) { e = index($i, "="); kv[substr($i, 1, e - 1)] = substr($i, e + 1) }
            if (kv["bench"] != b) next
            n++
            if (!("p10" in kv) || !("p50" in kv) || !("p90" in kv) || kv["value"] + 0 <= 0 ||
                kv["p10"] + 0 > kv["p50"] + 0 || kv["p50"] + 0 > kv["p90"] + 0 || kv["status"] != "ok") {
                print "FAIL: bad line: " $0; bad = 1
            }
        }
        END { if (n != want) { print "FAIL: " n " " b " lines, expected " want; bad = 1 } exit bad }' "$1"
}
check lat.txt latency 8 || fail=1   # sizes 0, 1, 2, ... 64
check bw.txt bandwidth 3 || fail=1  # 1K, 2K, 4K
check ring.txt ring 2 || fail=1     # 8 B and 4 KiB
if run ./latency -Z >bad.txt 2>&1; then
    echo "FAIL: latency accepted an unknown option"; fail=1
fi
grep -q "usage: latency" bad.txt || { echo "FAIL: no usage line for a bad option"; fail=1; }

# compare.py: known percentiles in, known cells and ratios out.
cat >meta.txt <<'META'
cpu_model=Test CPU
cpus=2
caches=L1d 32 KiB (per CPU), L2 1 MiB (per CPU), L3 32 MiB (shared by 2 CPUs)
loads=quiet cpu
load_what_cpu=2 CPU hogs (one per core)
META
cat >results.csv <<'CSV'
seq,impl,program,np,bench,ranks,size,rep,value,unit,status,extra,wall_s
1,ferry,latency,2,latency,2,8,1,2.5,us,ok,min=1;avg=2;p10=1;p50=2;p90=3,1
2,mpich,latency,2,latency,2,8,1,4.5,us,ok,min=1;avg=2;p10=2;p50=4;p90=8,1
3,openmpi,latency,2,latency,2,8,1,5.5,us,ok,min=1;avg=2;p10=3;p50=5;p90=6,1
4,ferry,latency,2,latency,2,8,1,30,us,ok,p10=1;p50=10;p90=100;load=cpu,1
5,mpich,latency,2,latency,2,8,1,6,us,ok,p10=4;p50=5;p90=50;load=cpu,1
6,openmpi,latency,2,latency,2,8,1,7,us,ok,p10=4;p50=8;p90=40;load=cpu,1
7,ferry,latency,2,latency,2,16,1,4.95,us,ok,p10=4;p50=5;p90=6,1
8,mpich,latency,2,latency,2,16,1,5,us,ok,p10=4;p50=5;p90=6,1
9,ferry,latency,2,latency,2,32,1,4.3,us,ok,p10=4;p50=5;p90=6,1
10,mpich,latency,2,latency,2,32,1,5,us,ok,p10=4;p50=5;p90=6,1
CSV
python3 "$S/bench/compare.py" --csv results.csv --meta meta.txt --json results.json \
    --report report.md || { echo "FAIL: compare.py"; exit 1; }
python3 - <<'PY' || fail=1
import json, sys
d = json.load(open("results.json"))
g = {(r["impl"], r["bench"]): r for r in d["results"] if r["size"] == "8"}
ok = True
def want(key, field, v):
    global ok
    got = g.get(key, {}).get(field)
    if got != v:
        print(f"FAIL: results.json {key} {field} = {got}, expected {v}"); ok = False
want(("ferry", "latency"), "p90", 3.0)
want(("ferry", "latency"), "median", 2.5)
want(("ferry", "latency@cpu"), "p50", 10.0)
want(("ferry", "latency@cpu"), "load", "cpu")
want(("mpich", "latency@cpu"), "base", "latency")
sys.exit(0 if ok else 1)
PY
# quiet: Ferry p50 2 / best 4 = 0.50, p90 3 / best 6 = 0.50; cpu: 10 / 5 = 2.00, 100 / 40 = 2.50
row=$(grep '^| 8 B | 1.000 / \*\*2.000\*\* / 3.000 | 2.000 / \*\*4.000\*\* / 8.000 | ' report.md)
[ -n "$row" ] || { echo "FAIL: no side-by-side row with p10/p50/p90"; grep '^| 8 B' report.md; fail=1; }
case $row in *"| 0.50 | 0.50 | 1.000 / **10.00** / 100.0 |"*"| 2.00 | 2.50 |") ;;
*) echo "FAIL: side-by-side ratios wrong: $row"; fail=1 ;; esac
grep -q 'loaded: latency (8 B–8 KiB) p50 and p90 ≤ 1.0× best peer | 0 of 1 sizes | not met | 2.50 (p90, 8 B)' report.md ||
    { echo "FAIL: targets row"; grep 'loaded: latency' report.md; fail=1; }
# The worst ratio of a target is the one furthest beyond its limit (0.8), not from 1: of
# 0.56, 0.99 and 0.86, it is 0.99.
grep -q 'quiet: latency (2 ranks, 0–8 KiB) ≤ 0.8× best peer, median | 1 of 3 sizes | not met | 0.99 (median, 16 B)' report.md ||
    { echo "FAIL: quiet latency targets row"; grep 'quiet: latency' report.md; fail=1; }
grep -q '^\*Machine: Test CPU, 2 CPUs; caches L1d 32 KiB' report.md || { echo "FAIL: caption"; fail=1; }
[ $fail = 0 ] && echo "No Errors"
exit $fail
