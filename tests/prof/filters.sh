#!/usr/bin/env bash
# timeout: 300
# --trace-calls, --trace-ranks and --trace-window (tests/prof/src/ring.c, phases.c):
#   coll: only the collectives' ENTER/LEAVE (and their COLL records), no message;
#   -MPI_Send: no MPI_Send and no SEND record, the rest as usual;
#   --trace-ranks 1,3: only those ranks write files; the others still sync (the files'
#   syncs are there) and the job runs;
#   --trace-window 1.5: (phases.c): MPI_Comm_rank right after MPI_Init is left out, the
#   MPI_Allreduce 3 s later is in.
# Bad values are refused by mpiexec before the job.
set -u
. "$FY_SRC/tests/prof/prof.inc"
prof_skip_if_absent
build ring || exit 1
build phases || exit 1
run() { # DIR NP PROG [options...]
    local d=$1 np=$2 prog=$3
    shift 3
    timeout -k 5 120 "$B/bin/mpiexec" --trace "$d" "$@" -n "$np" ./"$prog" > "$d.out" 2> "$d.err" < /dev/null
    local rc=$?
    [ $rc = 0 ] || err "$d: status $rc: $(tail -5 "$d.err")"
}
run coll 4 ring --trace-calls coll
run nosend 4 ring --trace-calls -MPI_Send
run ranks 4 ring --trace-ranks 1,3
run window 2 phases --trace-window 1.5:
py "
import fyt_read, os
def fail(m): print('FAIL:', m)
def calls(recs):
    names = {r['id']: r['name'] for r in recs if r['type'] == 'NAME' and r['flags'] == 0}
    return [names[r['id']] for r in recs if r['type'] == 'ENTER'], [r['type'] for r in recs]
for rank, (recs, clean, tr) in fyt_read.read_dir('coll').items():
    c, t = calls(recs)
    if c != ['MPI_Allreduce'] * 3 + ['MPI_Barrier']: fail('coll: rank %d calls %r' % (rank, c))
    if 'SEND' in t or 'RECV' in t or t.count('COLL_BEGIN') != 4: fail('coll: rank %d records' % rank)
    notes = [r['text'] for r in recs if r['type'] == 'NOTE']
    if not any('calls recorded: coll' in n for n in notes): fail('coll: no note of the filter: %r' % notes)
for rank, (recs, clean, tr) in fyt_read.read_dir('nosend').items():
    c, t = calls(recs)
    if 'MPI_Send' in c or 'SEND' in t or c.count('MPI_Recv') != 10 or t.count('RECV') != 10: fail('-MPI_Send: rank %d: %r' % (rank, c))
d = fyt_read.read_dir('ranks')
if sorted(d) != [1, 3]: fail('--trace-ranks 1,3: files of ranks %r' % sorted(d))
for rank, (recs, clean, tr) in d.items():
    c, t = calls(recs)
    if len(c) != 27 or t.count('SYNC') != 2 or not clean: fail('--trace-ranks: rank %d: %d calls, %d syncs' % (rank, len(c), t.count('SYNC')))
for rank, (recs, clean, tr) in fyt_read.read_dir('window').items():
    c, t = calls(recs)
    if 'MPI_Comm_rank' in c or 'MPI_Allreduce' not in c: fail('--trace-window 1.5: rank %d calls %r' % (rank, c))
"
for bad in "--trace-calls MPI_Send;x" "--trace-ranks 3-1" "--trace-window 2:1" "--trace-window x" "--trace-max 10X" "--trace-max 0"; do
    timeout -k 5 60 "$B/bin/mpiexec" --trace badv $bad -n 2 ./ring > out 2> err < /dev/null
    rc=$?
    opt=${bad%% *}
    [ $rc = 1 ] && grep -q "^mpiexec: $opt '" err || err "'$bad': status $rc: $(cat err)"
    grep -q 'ring done' out && err "'$bad': the program ran"
    [ -e badv ] && { err "'$bad': the directory was made"; rm -rf badv; }
done
timeout -k 5 60 "$B/bin/mpiexec" --trace-calls coll -n 2 ./ring > out 2> err < /dev/null
[ $? = 1 ] && grep -q "^mpiexec: --trace-calls needs --trace DIR" err || err "--trace-calls alone: $(cat err)"
# An unknown function: the job runs, rank 0 says it once.
run unknown 2 ring --trace-calls MPI_Sned,coll
n=$(grep -c "'MPI_Sned' is neither an MPI function nor a class" unknown.err)
[ "$n" = 1 ] || err "an unknown function in --trace-calls: $n lines: $(cat unknown.err)"
[ $fail = 0 ] && echo "OK: the trace's filters: calls, classes, exclusions, ranks, time window; bad values refused"
exit $fail
