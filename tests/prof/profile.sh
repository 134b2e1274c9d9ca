#!/usr/bin/env bash
# timeout: 300
# mpiexec --profile on a known program (tests/prof/src/ring.c, 4 ranks, built with -g): the
# JSON parses (python3 -m json.tool) and holds the counts, bytes, matrix, size buckets, call
# sites with file:line, collective instances and per-rank times; the text report has its
# sections; one line on stderr names the files. FERRY_PROFILE=1 in mpiexec's environment does
# the same as --profile, and FERRY_PROFILE_DIR moves the files.
set -u
. "$FY_SRC/tests/prof/prof.inc"
prof_skip_if_absent
build ring || exit 1
line() { grep -n "/\* $1 \*/" "$S/ring.c" | sed -n "${2:-1}p" | cut -d: -f1; }

timeout -k 5 120 "$B/bin/mpiexec" --profile -n 4 ./ring > out 2> err < /dev/null
rc=$?
[ $rc = 0 ] || err "--profile: status $rc: $(tail -5 err)"
grep -q '^ring done' out || err "the program's output is missing: $(cat out)"
n=$(grep -c '^ferry: profile written to ' err)
[ "$n" = 1 ] || err "$n 'profile written' lines on stderr, expected 1: $(cat err)"
json=$(ls ring.4.*.profile.json 2> /dev/null | head -1)
txt=$(ls ring.4.*.profile.txt 2> /dev/null | head -1)
[ -n "$json" ] && [ -n "$txt" ] || { err "no ring.4.<job>.profile.{txt,json}: $(ls)"; exit 1; }
grep -q "profile written to $txt (and $json)" err || err "stderr does not name the files: $(cat err)"
python3 -m json.tool "$json" > /dev/null || err "$json is not valid JSON"
for s in 'Time in MPI, per rank' 'MPI calls, all ranks' 'Call sites' 'Bytes by call' \
         'bytes, sender (row) to receiver' 'count, sender (row)' 'Collectives: time waiting' 'Notes'; do
    grep -q "^== .*$s" "$txt" || err "no section '$s' in $txt"
done

py "
import json
p = json.load(open('$json'))
def fail(m): print('FAIL:', m)
calls = {c['name']: c for c in p['calls']}
if p['version'] != 1 or p['program'] != 'ring' or p['ranks'] != 4 or len(p['hosts']) != 4: fail('header: %r' % {k: p[k] for k in ('version', 'program', 'ranks', 'hosts')})
for name, count, nbytes in (('MPI_Send', 40, 40000), ('MPI_Recv', 40, 40000), ('MPI_Allreduce', 12, 48), ('MPI_Barrier', 4, 0)):
    c = calls.get(name)
    if c is None: fail('no %s in calls' % name); continue
    if c['count'] != count: fail('%s count %d, expected %d' % (name, c['count'], count))
    if c['bytes'] != nbytes: fail('%s bytes %d, expected %d' % (name, c['bytes'], nbytes))
    if len(c['per_rank']) != 4 or any(r['count'] != count // 4 for r in c['per_rank']): fail('%s per_rank: %r' % (name, c['per_rank']))
    if not (c['min_us'] <= c['mean_us'] <= c['max_us']): fail('%s min/mean/max out of order' % name)
if 'MPI_Wtime' in calls: fail('MPI_Wtime is counted')
m = p['matrix']
for s in range(4):
    for r in range(4):
        want = (10000, 10) if r == (s + 1) % 4 else (0, 0)
        if (m['bytes'][s][r], m['msgs'][s][r]) != want: fail('matrix[%d][%d] = %r, expected %r' % (s, r, (m['bytes'][s][r], m['msgs'][s][r]), want))
b = {x['name']: x['buckets'] for x in p['bytes']}
if b.get('MPI_Send') != [{'lo': 513, 'hi': 1024, 'count': 40, 'bytes': 40000}]: fail('MPI_Send buckets %r' % b.get('MPI_Send'))
sites = {(s['name'], s['line']): s for s in p['sites']}
for name, line, count, ranks in (('MPI_Send', $(line SEND 1), 10, [0]), ('MPI_Recv', $(line RECV 1), 10, [0]), ('MPI_Recv', $(line RECV 2), 30, [1, 2, 3]), ('MPI_Send', $(line SEND 2), 30, [1, 2, 3])):
    s = sites.get((name, line))
    if s is None: fail('no site %s at ring.c:%d in %r' % (name, line, [(x['name'], x['file'], x['line']) for x in p['sites']])); continue
    if s['file'] != 'ring.c' or s['function'] != 'main' or s['count'] != count or s['ranks'] != ranks: fail('site %r' % s)
colls = {c['name']: c for c in p['collectives']}
if colls.get('MPI_Allreduce', {}).get('count') != 3 or colls.get('MPI_Barrier', {}).get('count') != 1: fail('collectives %r' % p['collectives'])
for c in p['collectives']:
    if len(c['per_rank_wait_s']) != 4 or min(c['per_rank_wait_s']) < 0 or c['wait_s'] < 0: fail('collective waits %r' % c)
    # One instance: the last rank to arrive waited nothing.
    if c['count'] == 1 and min(c['per_rank_wait_s']) != 0: fail('%s: no rank waited 0: %r' % (c['name'], c['per_rank_wait_s']))
if len(p['per_rank']) != 4 or any(r['mpi_s'] <= 0 or r['app_s'] < 0 or not 0 <= r['mpi_pct'] <= 100 for r in p['per_rank']): fail('per_rank %r' % p['per_rank'])
if p['wall_s'] <= 0: fail('wall_s %r' % p['wall_s'])
"

# FERRY_PROFILE=1 and FERRY_PROFILE_DIR.
mkdir pdir
FERRY_PROFILE=1 FERRY_PROFILE_DIR=$PWD/pdir timeout -k 5 120 "$B/bin/mpiexec" -n 2 ./ring > out2 2> err2 < /dev/null
rc=$?
[ $rc = 0 ] || err "FERRY_PROFILE=1: status $rc: $(tail -5 err2)"
ls pdir/ring.2.*.profile.json > /dev/null 2>&1 || err "FERRY_PROFILE=1: no profile in FERRY_PROFILE_DIR: $(ls pdir) $(cat err2)"
# Without either, no profile and no line.
timeout -k 5 120 "$B/bin/mpiexec" -n 2 ./ring > out3 2> err3 < /dev/null
grep -q 'profile written' err3 && err "a profile without --profile: $(cat err3)"
# ferry run passes --profile to mpiexec.
if [ -x "$B/bin/ferry" ]; then
    mkdir fr
    (cd fr && HOME=$PWD timeout -k 5 200 "$B/bin/ferry" run -n 2 --profile "$S/ring.c" > out 2> err < /dev/null)
    rc=$?
    [ $rc = 0 ] && ls fr/ring.2.*.profile.json > /dev/null 2>&1 || err "ferry run --profile: status $rc: $(ls fr) $(cat fr/err)"
fi
[ $fail = 0 ] && echo "OK: the profile of a ring: counts, bytes, matrix, sites, collectives, JSON"
exit $fail
