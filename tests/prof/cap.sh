#!/usr/bin/env bash
# timeout: 300
# --trace-max: many.c makes ~40000 calls per rank (far more than 256K of records for the job,
# 128K per rank); each rank stops recording cleanly: a NOTE with the cap flag, every ENTER
# recorded has its LEAVE, the file ends with END, its size stays near the share; one line on
# stderr per rank; the program goes on to the end (status 0) and the profile still counts every
# call.
set -u
. "$FY_SRC/tests/prof/prof.inc"
prof_skip_if_absent
build many || exit 1
timeout -k 5 200 "$B/bin/mpiexec" --trace capped --trace-max 256K -n 2 ./many 10000 > out 2> err < /dev/null
rc=$?
[ $rc = 0 ] || err "status $rc: $(tail -5 err)"
grep -q '^many done' out || err "the program did not finish: $(cat out)"
n=$(grep -c 'reached its size cap (--trace-max, 131072 bytes for this rank)' err)
[ "$n" = 2 ] || err "$n cap lines on stderr, expected 2: $(cat err)"
for r in 0 1; do
    s=$(stat -c %s capped/ferry/rank.$r.fyt)
    [ "$s" -le $((131072 + 8192)) ] || err "rank $r's file has $s bytes, over its share"
done
py "
import fyt_read, json
def fail(m): print('FAIL:', m)
for rank, (recs, clean, tr) in fyt_read.read_dir('capped').items():
    caps = [r for r in recs if r['type'] == 'NOTE' and r['flags'] == 1]
    if len(caps) != 1 or 'size cap' not in caps[0]['text']: fail('rank %d: cap notes %r' % (rank, caps))
    if not clean or tr: fail('rank %d: not a clean end' % rank)
    e = sum(r['type'] == 'ENTER' for r in recs); l = sum(r['type'] == 'LEAVE' for r in recs)
    if e != l or e < 100 or e > 10000: fail('rank %d: %d ENTER, %d LEAVE' % (rank, e, l))
    after = [r for r in recs[recs.index(caps[0]):] if r['type'] in ('ENTER', 'SEND', 'COLL_BEGIN')]
    if after: fail('rank %d: recorded after the cap: %r' % (rank, after[:3]))
p = json.load(open('capped/profile.json'))
c = {x['name']: x['count'] for x in p['calls']}
if c.get('MPI_Sendrecv') != 20000 or c.get('MPI_Allreduce') != 20000: fail('profile counts %r' % c)
"
[ $fail = 0 ] && echo "OK: the size cap stops the trace cleanly with a note"
exit $fail
