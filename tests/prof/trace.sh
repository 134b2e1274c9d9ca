#!/usr/bin/env bash
# timeout: 300
# mpiexec --trace DIR on known programs: the raw files (DIR/ferry/rank.R.fyt) parse with the
# right records. ring.c (4 ranks): per rank a header, a name for every function id, world and
# self, two clock syncs (init, final), 27 ENTER/LEAVE pairs (MPI_Finalize's included), 10 SEND
# to the next rank and 10 RECV from the previous (tag 5, 1000 bytes), 4 collectives, a clean
# END; the profile in DIR. nb.c (3 ranks): receives completed by MPI_Waitall, MPI_Waitany and
# MPI_Testall (persistent) with the status's source and size, persistent sends at MPI_Startall,
# collective roots and sizes, a new communicator's members and an id equal on its members.
# idup.c (4 ranks): a communicator made by MPI_Comm_idup, its members and id.
# Refused before any rank starts: a DIR that exists, a parent that is not writable, --check
# with --trace.
set -u
. "$FY_SRC/tests/prof/prof.inc"
prof_skip_if_absent
build ring || exit 1
build nb || exit 1

timeout -k 5 120 "$B/bin/mpiexec" --trace tr -n 4 ./ring > out 2> err < /dev/null
rc=$?
[ $rc = 0 ] || err "ring --trace: status $rc: $(tail -5 err)"
[ -s tr/profile.json ] && [ -s tr/profile.txt ] || err "no profile in the trace directory: $(ls tr)"
grep -q "profile written to $PWD/tr/profile.txt" err || err "stderr: $(cat err)"
py "
import fyt_read
def fail(m): print('FAIL:', m)
d = fyt_read.read_dir('tr')
if sorted(d) != [0, 1, 2, 3]: fail('rank files: %r' % sorted(d))
for rank, (recs, clean, trailing) in d.items():
    n = {}
    for r in recs: n[r['type']] = n.get(r['type'], 0) + 1
    h = recs[0]
    if h['magic'] != b'FYTRACE1' or h['version'] != 1 or h['rank'] != rank or h['size'] != 4 or h['program'] != 'ring' or not h['ticks_per_ns'] > 0: fail('header %r' % h)
    if not clean or trailing: fail('rank %d: clean %r, trailing %d' % (rank, clean, trailing))
    names = {r['id']: r['name'] for r in recs if r['type'] == 'NAME' and r['flags'] == 0}
    if names.get(max(names)) is None or 'MPI_Send' not in names.values() or len(names) < 600: fail('names: %d' % len(names))
    for t, want in (('ENTER', 27), ('LEAVE', 27), ('SEND', 10), ('RECV', 10), ('COLL_BEGIN', 4), ('COLL_END', 4), ('SYNC', 2), ('COMM', 2), ('END', 1)):
        if n.get(t, 0) != want: fail('rank %d: %d %s records, expected %d' % (rank, n.get(t, 0), t, want))
    syncs = [r for r in recs if r['type'] == 'SYNC']
    if [s['flags'] for s in syncs] != [1, 2] or not syncs[0]['global_ns'] < syncs[1]['global_ns']: fail('syncs %r' % syncs)
    comms = [r for r in recs if r['type'] == 'COMM']
    if (comms[0]['id'], comms[0]['uid'], comms[0]['world']) != (0, 0, [0, 1, 2, 3]): fail('world %r' % comms[0])
    if comms[1]['uid'] != (1 << 63) | rank or comms[1]['world'] != [rank]: fail('self %r' % comms[1])
    for r in recs:
        if r['type'] == 'SEND' and (r['peer'], r['tag'], r['bytes'], r['comm'], names[r['id']]) != ((rank + 1) % 4, 5, 1000, 0, 'MPI_Send'): fail('send %r' % r)
        if r['type'] == 'RECV' and (r['peer'], r['tag'], r['bytes'], r['comm'], names[r['id']]) != ((rank + 3) % 4, 5, 1000, 0, 'MPI_Recv'): fail('recv %r' % r)
    # ENTER and LEAVE nest and their times do not go back.
    stack, last = [], 0
    for r in recs:
        if r['type'] in ('ENTER', 'LEAVE', 'SEND', 'RECV', 'COLL_BEGIN', 'COLL_END'):
            if r['t'] < last: fail('rank %d: time goes back at %r' % (rank, r)); break
            last = r['t']
        if r['type'] == 'ENTER': stack.append(r['id'])
        if r['type'] == 'LEAVE' and (not stack or stack.pop() != r['id']): fail('rank %d: LEAVE without its ENTER: %r' % (rank, r)); break
    if stack: fail('rank %d: calls left open %r' % (rank, stack))
"

timeout -k 5 120 "$B/bin/mpiexec" --trace nbt -n 3 ./nb > out 2> err < /dev/null
rc=$?
[ $rc = 0 ] || err "nb --trace: status $rc: $(tail -5 err)"
py "
import fyt_read
def fail(m): print('FAIL:', m)
d = fyt_read.read_dir('nbt')
uids = {}
for rank, (recs, clean, trailing) in d.items():
    names = {r['id']: r['name'] for r in recs if r['type'] == 'NAME' and r['flags'] == 0}
    nxt, prv = (rank + 1) % 3, (rank + 2) % 3
    sends = [(names[r['id']], r['peer'], r['tag'], r['bytes'], r['flags']) for r in recs if r['type'] == 'SEND']
    recvs = [(names[r['id']], r['peer'], r['tag'], r['bytes'], r['flags']) for r in recs if r['type'] == 'RECV']
    want_s = [('MPI_Isend', nxt, 7, 800, 1), ('MPI_Isend', nxt, 8, 16, 1)] + [('MPI_Startall', nxt, 9, 40, 1)] * 3
    want_r = [('MPI_Waitall', prv, 7, 800, 1), ('MPI_Waitany', prv, 8, 16, 1)] + [('MPI_Testall', prv, 9, 40, 1)] * 3
    if sends != want_s: fail('rank %d sends %r, expected %r' % (rank, sends, want_s))
    if recvs != want_r: fail('rank %d receives %r, expected %r' % (rank, recvs, want_r))
    colls = [(names[r['id']], r['root'], r['sent'], r['received']) for r in recs if r['type'] == 'COLL_BEGIN']
    want_c = [('MPI_Bcast', 1, 400 if rank == 1 else 0, 0 if rank == 1 else 400),
              ('MPI_Gather', 0, 80, 240 if rank == 0 else 0), ('MPI_Ibarrier', -1, 0, 0), ('MPI_Allreduce', -1, 4, 4)]
    if colls != want_c: fail('rank %d collectives %r, expected %r' % (rank, colls, want_c))
    comms = {r['id']: r for r in recs if r['type'] == 'COMM'}
    last = [r for r in recs if r['type'] == 'COLL_BEGIN'][-1]
    c = comms.get(last['comm'])
    if c is None or c['world'] != [x for x in range(3) if x % 2 == rank % 2]: fail('rank %d: split communicator %r' % (rank, c)); continue
    uids.setdefault(rank % 2, set()).add(c['uid'])
if any(len(u) != 1 for u in uids.values()) or len(uids) != 2 or uids[0] == uids[1]: fail('communicator ids %r' % uids)
"

build idup || exit 1
timeout -k 5 120 "$B/bin/mpiexec" --trace idt -n 4 ./idup > out 2> err < /dev/null
rc=$?
[ $rc = 0 ] || err "idup --trace: status $rc: $(tail -5 err)"
py "
import fyt_read
def fail(m): print('FAIL:', m)
uids = {}
for rank, (recs, clean, trailing) in fyt_read.read_dir('idt').items():
    comms = {r['id']: r for r in recs if r['type'] == 'COMM'}
    msgs = [r for r in recs if r['type'] in ('SEND', 'RECV')]
    if len(msgs) != 1: fail('rank %d: messages %r' % (rank, msgs)); continue
    m = msgs[0]
    peer = {0: 2, 1: 3, 2: 0, 3: 1}[rank]
    c = comms.get(m['comm'])
    if m['peer'] != peer or c is None or c['world'] != sorted([rank, peer]): fail('rank %d: %r on %r' % (rank, m, c)); continue
    uids.setdefault(rank % 2, set()).add(c['uid'])
if any(len(u) != 1 for u in uids.values()) or len(uids) != 2: fail('idup communicator ids %r' % uids)
"

# Refusals, before any rank starts (the program would print).
mkdir exists
timeout -k 5 60 "$B/bin/mpiexec" --trace exists -n 2 ./ring > out 2> err < /dev/null
rc=$?
[ $rc = 1 ] || err "an existing DIR: status $rc, expected 1"
grep -q "^mpiexec: --trace 'exists': it already exists" err || err "an existing DIR: $(cat err)"
grep -q 'ring done' out && err "an existing DIR: the program ran"
[ -z "$(ls exists)" ] || err "an existing DIR: something was written into it: $(ls exists)"
timeout -k 5 60 "$B/bin/mpiexec" --trace nowhere/t -n 2 ./ring > out 2> err < /dev/null
[ $? = 1 ] && grep -q "^mpiexec: --trace 'nowhere/t': its parent directory 'nowhere' does not exist" err ||
    err "a missing parent: $(cat err)"
mkdir locked
chmod 555 locked
if [ "$(id -u)" = 0 ]; then
    # root writes anywhere: the refusal is tried as nobody, if we can become nobody.
    if command -v setpriv > /dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2> /dev/null &&
       setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$B/bin/mpiexec"; then
        chmod 777 .
        (cd / && timeout -k 5 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$B/bin/mpiexec" --trace "$OLDPWD/locked/t" -n 2 "$OLDPWD/ring") > out 2> err < /dev/null
        rc=$?
        [ $rc = 1 ] && grep -q "^mpiexec: --trace '.*locked/t': cannot make it: its parent directory '.*locked' is not writable (Permission denied)" err ||
            err "an unwritable parent: status $rc: $(cat err)"
    else
        echo "note: the unwritable parent is not tried (root, and nobody cannot run $B/bin/mpiexec)"
    fi
else
    timeout -k 5 60 "$B/bin/mpiexec" --trace locked/t -n 2 ./ring > out 2> err < /dev/null
    [ $? = 1 ] && grep -q "^mpiexec: --trace 'locked/t': cannot make it: its parent directory 'locked' is not writable" err ||
        err "an unwritable parent: $(cat err)"
fi
timeout -k 5 60 "$B/bin/mpiexec" --check --trace t2 -n 2 ./ring > out 2> err < /dev/null
[ $? = 1 ] && grep -q "^mpiexec: --check cannot go with --trace" err || err "--check with --trace: $(cat err)"
[ -e t2 ] && err "--check with --trace: the directory was made"
timeout -k 5 60 "$B/bin/mpiexec" --check --profile -n 2 ./ring > out 2> err < /dev/null
[ $? = 1 ] && grep -q "^mpiexec: --check cannot go with --profile" err || err "--check with --profile: $(cat err)"
[ $fail = 0 ] && echo "OK: raw traces of a ring and of nonblocking, persistent and collective calls; bad directories refused"
exit $fail
