#!/usr/bin/env bash
# timeout: 300
# A rank killed by SIGKILL while tracing (many.c: rank 1 at iteration 1000, after a pause in
# which the background writer flushes): every rank's file is readable up to its last whole
# record, rank 1's holds its first 1000 iterations (at least 2000 calls) and no END; mpiexec
# reports the failure and still turns to the conversion (ferry-otf2, or a note that it is not
# there).
set -u
. "$FY_SRC/tests/prof/prof.inc"
prof_skip_if_absent
build many || exit 1
timeout -k 5 200 "$B/bin/mpiexec" --trace killed -n 3 ./many 1000000 1000 > out 2> err < /dev/null
rc=$?
[ $rc != 0 ] || err "status 0 after a rank was killed"
grep -q 'many done' out && err "the program finished"
grep -q "no ferry-otf2 next to mpiexec\|ferry-otf2" err || [ -e killed/traces.otf2 ] ||
    err "no conversion and no note of it after the killed job: $(cat err)"
py "
import fyt_read
def fail(m): print('FAIL:', m)
d = fyt_read.read_dir('killed')
if 1 not in d: fail('no file of rank 1: %r' % sorted(d))
for rank, (recs, clean, tr) in d.items():
    if not recs or recs[0]['type'] != 'HEADER': fail('rank %d: no header' % rank)
    if clean: fail('rank %d: ends with END after a kill' % rank)
recs = d.get(1, ([], 0, 0))[0]
n = sum(r['type'] == 'ENTER' for r in recs)
if n < 2000: fail('rank 1: %d calls recorded before the kill, expected at least 2000' % n)
"
[ $fail = 0 ] && echo "OK: a rank killed while tracing leaves readable files"
exit $fail
