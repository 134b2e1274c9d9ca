#!/usr/bin/env bash
# timeout: 120
# ferry farm's dispatch options: --chunk 5 (and --depth 2) with 100 tasks on 4 ranks runs each
# task exactly once and records it ok; --per-worker 3 on 3 ranks (2 workers) runs 6 of 10
# tasks and records the other 4 as skipped (exit 1), and --resume then runs those 4.
set -u
. "$FY_SRC/tests/ferry/farm_common.inc"

for i in $(seq 1 100); do echo "echo $i >> ran.$((i % 7))"; done > tasks.txt
"$F" farm tasks.txt -n 4 --chunk 5 --depth 2 > run.out 2> run.err || err "--chunk 5: exit $?: $(cat run.err)"
check_results tasks.txt.results.csv > recs.txt || err "results: $(cat recs.txt)"
[ "$(grep -c ' ok 1 0$' recs.txt)" = 100 ] || err "--chunk 5: $(grep -c ' ok 1 0$' recs.txt) ok records"
[ "$(cut -d' ' -f1 recs.txt | sort -n | uniq | wc -l)" = 100 ] || err "--chunk 5: a task recorded twice"
[ "$(cat ran.* | sort -n | uniq | wc -l)" = 100 ] && [ "$(cat ran.* | wc -l)" = 100 ] \
    || err "--chunk 5: tasks ran $(cat ran.* | wc -l) times"

for i in $(seq 1 10); do echo "echo $i >> pw"; done > pw.txt
"$F" farm pw.txt -n 3 --per-worker 3 > pw.out 2> pw.err
rc=$?
[ "$rc" = 1 ] || err "--per-worker: exit status $rc, expected 1"
check_results pw.txt.results.csv > pw.recs || err "pw results: $(cat pw.recs)"
[ "$(grep -c ' ok ' pw.recs)" = 6 ] || err "--per-worker 3: $(grep -c ' ok ' pw.recs) ok"
[ "$(grep -c ' skipped 0 $' pw.recs)" = 4 ] || err "--per-worker 3: $(grep -c skipped pw.recs) skipped: $(cat pw.recs)"
grep -q '4 skipped (every worker reached --per-worker)' pw.err || err "summary: $(cat pw.err)"
"$F" farm pw.txt -n 3 --resume > pw2.out 2> pw2.err || err "--resume after skipped: exit $?"
[ "$(sort -n pw | uniq | wc -l)" = 10 ] && [ "$(wc -l < pw)" = 10 ] || err "after --resume: $(sort -n pw | tr '\n' ' ')"

[ "$fail" = 0 ] && echo "PASS"
exit $fail
