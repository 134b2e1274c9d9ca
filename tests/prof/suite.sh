#!/usr/bin/env bash
# timeout: 1200
# A selection of tests/mpi programs (p2p, nonblocking, persistent, probes, cancel, collectives
# blocking, nonblocking, neighbourhood and on intercommunicators, communicator creation, idup,
# one-sided, partitioned) run under --profile and under --trace: each still passes, the profile
# is valid JSON, and every rank's raw trace parses, ends cleanly and has a LEAVE for each ENTER.
set -u
. "$FY_SRC/tests/prof/prof.inc"
prof_skip_if_absent
M=$FY_SRC/tests/mpi
progs="ring:3 sendrecv:2 coll_basic:4 coll_nb:3 coll_neighbor:4 coll_inter:3 comm_split:4 intercomm:3
       comm_idup:3 isendrecv:2 mprobe:2 persistent:2 request_misc:2 cancel:2 rma_sync:3 rma_passive:3 part:2"
for pn in $progs; do
    p=${pn%%:*} n=${pn##*:}
    "$B/bin/mpicc" -O1 -g -pthread -I"$M" -o "$p" "$M/$p.c" 2> "$p.cc" || { err "$p does not compile: $(head -3 "$p.cc")"; continue; }
    mkdir "prof_$p"
    (cd "prof_$p" && timeout -k 5 300 "$B/bin/mpiexec" --profile -n "$n" "../$p" > out 2> err < /dev/null)
    rc=$?
    [ $rc = 0 ] || err "$p -n $n --profile: status $rc: $(tail -5 "prof_$p/err")"
    j=$(ls prof_$p/*.profile.json 2> /dev/null | head -1)
    [ -n "$j" ] && python3 -m json.tool "$j" > /dev/null || err "$p --profile: no valid JSON: $(ls prof_$p)"
    timeout -k 5 300 "$B/bin/mpiexec" --trace "tr_$p" -n "$n" "./$p" > "tr_$p.out" 2> "tr_$p.err" < /dev/null
    rc=$?
    [ $rc = 0 ] || err "$p -n $n --trace: status $rc: $(tail -5 "tr_$p.err")"
    py "
import fyt_read, json
d = fyt_read.read_dir('tr_$p')
if len(d) != $n: print('FAIL: $p: %d rank files' % len(d))
json.load(open('tr_$p/profile.json'))
for rank, (recs, clean, tr) in d.items():
    e = sum(r['type'] == 'ENTER' for r in recs); l = sum(r['type'] == 'LEAVE' for r in recs)
    if not clean or tr or e != l or e == 0: print('FAIL: $p rank %d: clean %r, trailing %d, %d ENTER, %d LEAVE' % (rank, clean, tr, e, l))
"
done
[ $fail = 0 ] && echo "OK: $(echo $progs | wc -w) MPI test programs pass under --profile and --trace"
exit $fail
