#!/usr/bin/env bash
# timeout: 60
# Runs tagged with the host's state: run.sh measures the cache-line bounce before every run
# (limits -B prints it as a bare number) and compare.py repeats the issue-11 targets for the runs
# of fast and of slow minutes apart (a run that saw both is in neither), so that a Ferry run in one state is not judged against a
# peer's run in the other. Known rows in, known verdicts out; untagged rows give no such section.
set -u
S=$FY_SRC
fail=0
cc -O2 -std=c11 -Wall -Wextra -Werror -pthread -o limits "$S/bench/limits.c" ||
    { echo "FAIL: limits.c does not build"; exit 1; }
b=$(timeout 30 ./limits -B) || { echo "FAIL: limits -B failed"; fail=1; }
case $b in
'' | *[!0-9]*) echo "FAIL: limits -B printed '$b', not a number of ns"; fail=1 ;;
*) [ "$b" -gt 0 ] || { echo "FAIL: limits -B printed 0"; fail=1; } ;;
esac

cat >meta.txt <<'META'
cpu_model=Test CPU
cpus=2
caches=L1d 32 KiB (per CPU), L2 1 MiB (per CPU), L3 32 MiB (shared by 2 CPUs)
loads=quiet
META
# Fast minutes (30 ns): Ferry at half the peers' latency. Slow minutes (160 ns): Ferry above
# them. Across states the medians mix both. The last run changed state while it ran (30 ns
# before, 160 after): it counts in neither table.
cat >results.csv <<'CSV'
seq,impl,program,np,bench,ranks,size,rep,value,unit,status,extra,wall_s
1,ferry,latency,2,latency,2,8,1,1.0,us,ok,p10=1;p50=1;p90=1;bounce_ns=30,1
2,mpich,latency,2,latency,2,8,1,2.0,us,ok,p10=2;p50=2;p90=2;bounce_ns=31,1
3,openmpi,latency,2,latency,2,8,1,2.2,us,ok,p10=2;p50=2;p90=2;bounce_ns=29,1
4,ferry,latency,2,latency,2,8,2,5.0,us,ok,p10=5;p50=5;p90=5;bounce_ns=160,1
5,mpich,latency,2,latency,2,8,2,4.0,us,ok,p10=4;p50=4;p90=4;bounce_ns=158,1
6,openmpi,latency,2,latency,2,8,2,4.4,us,ok,p10=4;p50=4;p90=4;bounce_ns=161;bounce_after_ns=160,1
7,openmpi,latency,2,latency,2,8,3,0.1,us,ok,p10=0.1;p50=0.1;p90=0.1;bounce_ns=30;bounce_after_ns=160,1
CSV
python3 "$S/bench/compare.py" --csv results.csv --meta meta.txt >report.md ||
    { echo "FAIL: compare.py failed"; exit 1; }
sec=$(sed -n '/^### The same targets, by the host/,/^## /p' report.md)
[ -n "$sec" ] || { echo "FAIL: no section by the host's state"; fail=1; }
printf '%s\n' "$sec" | grep -q '^\*\*cache line ≤ 58 ns\*\* (runs: ferry 1, mpich 1, openmpi 1)' ||
    { echo "FAIL: no fast-minute table with one run each"; fail=1; }
printf '%s\n' "$sec" | grep -q '^\*\*cache line > 58 ns\*\* (runs: ferry 1, mpich 1, openmpi 1)' ||
    { echo "FAIL: no slow-minute table with one run each"; fail=1; }
# In fast minutes 1.0 / 2.0 = 0.50 meets <= 0.8; in slow ones 5.0 / 4.0 = 1.25 does not.
printf '%s\n' "$sec" | awk '/^\*\*cache line ≤/ { s = "fast" } /^\*\*cache line >/ { s = "slow" }
    /quiet: latency/ { print s ": " $0 }' >verdicts.txt
grep -q '^fast: .*| 1 of 1 sizes | \*\*met\*\* | 0.50 (median, 8 B) |' verdicts.txt ||
    { echo "FAIL: fast minutes: expected met at 0.50"; cat verdicts.txt; fail=1; }
grep -q '^slow: .*| 0 of 1 sizes | not met | 1.25 (median, 8 B) |' verdicts.txt ||
    { echo "FAIL: slow minutes: expected not met at 1.25"; cat verdicts.txt; fail=1; }

# Without tags (runs of an older run.sh) there is no such section.
sed 's/;bounce_ns=[0-9]*//; s/;bounce_after_ns=[0-9]*//' results.csv >untagged.csv
python3 "$S/bench/compare.py" --csv untagged.csv --meta meta.txt >report2.md ||
    { echo "FAIL: compare.py failed on untagged rows"; exit 1; }
if grep -q "by the host's state" report2.md; then
    echo "FAIL: a section by the host's state without tags"; fail=1
fi
[ $fail = 0 ] && echo "PASS host_state"
exit $fail
