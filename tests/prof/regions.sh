#!/usr/bin/env bash
# timeout: 300
# ferry/trace.h regions and MPI_Pcontrol (tests/prof/src/regions.c, 2 ranks): REGION_BEGIN and
# REGION_END of "outer" around "inner", named by FYT_NAME records with the region flag; the
# note "halfway"; the 5 MPI_Allreduce between MPI_Pcontrol(0) and MPI_Pcontrol(1) neither
# traced nor counted in the profile; "Pcontrol 3" around the MPI_Bcast; "left open" closed at
# MPI_Finalize. The same program without the recorder runs (libmpi's functions do nothing) and
# libmpi exports them.
set -u
. "$FY_SRC/tests/prof/prof.inc"
prof_skip_if_absent
build regions || exit 1
timeout -k 5 120 "$B/bin/mpiexec" -n 2 ./regions > out 2> err < /dev/null
rc=$?
[ $rc = 0 ] && grep -q 'regions done' out || err "without the recorder: status $rc: $(cat out err)"
for f in ferry_trace_begin ferry_trace_end ferry_trace_note; do
    nm -D --defined-only "$B/lib/libmpi.so" | grep -q " T $f\$" || err "libmpi does not export $f"
    nm -D --defined-only "$B/lib/libferry_prof.so" | grep -q " T $f\$" || err "libferry_prof does not export $f"
done
timeout -k 5 120 "$B/bin/mpiexec" --trace rg -n 2 ./regions > out 2> err < /dev/null
rc=$?
[ $rc = 0 ] || err "--trace: status $rc: $(cat err)"
py "
import fyt_read, json
def fail(m): print('FAIL:', m)
for rank, (recs, clean, tr) in fyt_read.read_dir('rg').items():
    fn = {r['id']: r['name'] for r in recs if r['type'] == 'NAME' and r['flags'] == 0}
    rn = {r['id']: r['name'] for r in recs if r['type'] == 'NAME' and r['flags'] == 1}
    seq = []
    for r in recs:
        if r['type'] == 'REGION_BEGIN': seq.append('+' + rn[r['id']])
        elif r['type'] == 'REGION_END': seq.append('-' + rn[r['id']])
        elif r['type'] == 'ENTER' and fn[r['id']] not in ('MPI_Comm_rank', 'MPI_Pcontrol', 'MPI_Finalize'): seq.append(fn[r['id']])
        elif r['type'] == 'NOTE' and r['text'] == 'halfway': seq.append('note')
    want = ['+outer', 'MPI_Barrier', '+inner', 'MPI_Barrier', '-inner', 'note', '-outer', '+Pcontrol 3', 'MPI_Bcast', '-Pcontrol 3', '+left open', '-left open',
            '+ferry: clock sync and profile', '-ferry: clock sync and profile']
    if seq != want: fail('rank %d: %r, expected %r' % (rank, seq, want))
    if not clean: fail('rank %d: no clean end' % rank)
p = json.load(open('rg/profile.json'))
c = {x['name']: x['count'] for x in p['calls']}
if 'MPI_Allreduce' in c: fail('calls while paused are counted: %r' % c)
if c.get('MPI_Barrier') != 4 or c.get('MPI_Bcast') != 2: fail('profile counts %r' % c)
"
[ $fail = 0 ] && echo "OK: regions, notes and MPI_Pcontrol in the trace"
exit $fail
