#!/usr/bin/env bash
# timeout: 900
# No false positives: correct MPI test programs of tests/mpi/testlist run under the checker
# (tests/run.py with mpiexec --check, or the library preloaded) must pass as they do without it;
# a report makes a rank exit with status 3, so any report fails its test. make check runs a
# sample of 36 (p2p, probes, wildcards, persistent, derived types, the collectives blocking,
# nonblocking and persistent, communicators, topologies, one-sided, threads, sessions);
# FERRY_CHECK_SUITE=all runs the whole list (by hand: it takes a while on 2 cores).
#
# Excluded, with the reason:
#  - info, errors_user: they use freed handles on purpose to test the error class (the checker
#    reports the use first, rightly);
#  - mpit, mpit_threads: they count messages, bytes and collectives in the tool interface, and
#    the checker's own traffic counts there;
#  - rndv_split: it asserts which rendezvous protocol ran, which the checker's timing changes.
# Expected potential-deadlock warnings (programs that rely on buffering on purpose): see BUFFERED.
# Run with FERRY_CHECK=-leak (they keep objects until MPI_Finalize on purpose, which the leak
# check reports, rightly): the programs built on coll_cases.h (coll_*, reduce_*), dtype_misc.
set -u
. "$FY_SRC/tests/check/checked_run.inc"
checker_skip_if_absent
if "$FY_BUILD/bin/mpiexec" --help 2>&1 | grep -q -- '--check'; then
    MPX="$FY_BUILD/bin/mpiexec --check"
else
    MPX="env LD_PRELOAD=$FY_BUILD/lib/libferry_check.so $FY_BUILD/bin/mpiexec"
fi
EXCLUDED='info|errors_user|mpit|mpit_threads|rndv_split'
KEEPERS='coll_[a-z_]+|reduce_[a-z_]+|dtype_misc'
if [ "${FERRY_CHECK_SUITE:-sample}" = all ]; then
    ALL="[a-z0-9_]+@[^ ]*"
else
    ALL="(send_modes@3|sendrecv@4|ring@3|any_source@4|probe@2|mprobe@4|persistent@2|proc_null@2"
    ALL="$ALL|waitall_etc@3|isendrecv@3|cancel@2|bsend@2|ssend_sync@2|unexpected@4|dtype_p2p@2"
    ALL="$ALL|dtype_roundtrip@1|coll_basic@4|coll_inplace@4|coll_nb@3|coll_persist@3|coll_neighbor@4"
    ALL="$ALL|coll_inter@3|comm_create@4|comm_split@3|comm_idup@3|intercomm@3|topo_cart@4"
    ALL="$ALL|topo_graph@3|rma_sync@2|rma_passive@3|thread_multiple@2|comm_threads@2"
    ALL="$ALL|reduce_types@3|grequest@2|session@[0-9]+,FY_TEST_SESSION=only|errors_return@2)"
fi
fail=0
# The programs that free what they make, with every check.
python3 "$FY_SRC/tests/run.py" --build "$FY_BUILD" --mpiexec "$MPX" --placements none -j 1 \
    --log "$PWD/plain.log" --filter "^mpi/(?!($EXCLUDED|$KEEPERS)@)$ALL\$" > plain.txt 2>&1 || fail=1
# The ones that keep objects to the end on purpose, without the leak check.
FERRY_CHECK=-leak python3 "$FY_SRC/tests/run.py" --build "$FY_BUILD" --mpiexec "$MPX" --placements none \
    -j 1 --log "$PWD/keepers.log" --filter "^mpi/(?=($KEEPERS)@)(?!($EXCLUDED)@)$ALL\$" > keepers.txt 2>&1 || fail=1
# A potential deadlock is a warning from mpiexec (the job goes on and exits 0), so it is looked
# for in the logs. Programs that rely on buffered standard sends on purpose get it, rightly: they
# test messages that arrive before their receive is posted (blocking_small, order,
# unexpected_mem) or send before receiving in a ring (isendrecv).
BUFFERED='blocking_small|order|unexpected_mem|isendrecv'
if grep -ah 'ferry check: potential deadlock' plain.log keepers.log 2>/dev/null |
    grep -avE "\(at ($BUFFERED)\.c:[0-9]+\)"; then
    echo "FAIL: a potential deadlock reported on a program not known to rely on buffering"
    fail=1
fi
for f in plain.txt keepers.txt; do
    grep -a '^FAIL\|passed' "$f"
    grep -a -A12 '^FAIL' "$f" | grep -a 'ferry check' | head -20
done
exit $fail
