#!/usr/bin/env bash
# timeout: 300
# A full disk while tracing: the writer's failed write stops recording with one line on stderr
# naming the file and the error, and the program goes on to the end (status 0).
#  - /dev/full (always): a rank's trace file is a link to it (the library run by hand with
#    FERRY_TRACE_DIR, since mpiexec --trace wants a new directory): "No space left on device".
#  - a 256K tmpfs (when we may mount one, in a private mount namespace): the files stop where
#    the disk filled, each readable to its last whole record (cut back there, nothing after).
set -u
. "$FY_SRC/tests/prof/prof.inc"
prof_skip_if_absent
build many || exit 1
[ -w /dev/full ] || { echo "SKIP: no /dev/full"; exit 77; }
mkdir -p full/ferry
ln -s /dev/full full/ferry/rank.1.fyt
LD_PRELOAD="$B/lib/libferry_prof.so" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
    FERRY_TRACE_DIR=$PWD/full timeout -k 5 200 "$B/bin/mpiexec" -n 2 ./many 20000 > out 2> err < /dev/null
rc=$?
[ $rc = 0 ] && grep -q 'many done' out || err "/dev/full: status $rc: $(cat out err)"
n=$(grep -c "^ferry: rank 1: writing the trace $PWD/full/ferry/rank.1.fyt failed: No space left on device; recording stopped" err)
[ "$n" = 1 ] || err "/dev/full: $n lines about the full disk, expected 1: $(cat err)"
grep -q "rank 0: writing" err && err "/dev/full: rank 0 failed too: $(cat err)"
py "
import fyt_read
recs, clean, tr = fyt_read.read_rank('full/ferry/rank.0.fyt')
if not clean: print('FAIL: rank 0 (not on the full disk) did not end cleanly')
"
if unshare -m true 2> /dev/null; then
    mkdir small
    unshare -m sh -c "mount -t tmpfs -o size=256k tmpfs small && mkdir small/t &&
        FERRY_TRACE_DIR=$PWD/small/t LD_PRELOAD='$B/lib/libferry_prof.so' \
        ASAN_OPTIONS='${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0' \
        timeout -k 5 200 '$B/bin/mpiexec' -n 2 ./many 20000 > out2 2> err2 < /dev/null; echo \$? > rc2;
        cp -r small/t copy" 2> mount.err
    if [ -d copy ]; then
        [ "$(cat rc2)" = 0 ] && grep -q 'many done' out2 || err "tmpfs: status $(cat rc2): $(cat out2 err2)"
        grep -q "writing the trace .* failed: No space left on device; recording stopped" err2 ||
            err "tmpfs: no line about the full disk: $(cat err2)"
        py "
import fyt_read
d = fyt_read.read_dir('copy')
if len(d) != 2: print('FAIL: files %r' % sorted(d))
for rank, (recs, clean, tr) in d.items():
    if tr: print('FAIL: rank %d: %d bytes of a cut record at the end' % (rank, tr))
    if not recs or recs[0]['type'] != 'HEADER': print('FAIL: rank %d: no header' % rank)
"
    else
        echo "note: the tmpfs part is not tried (mount: $(cat mount.err))"
    fi
else
    echo "note: the tmpfs part is not tried (no private mount namespace here)"
fi
[ $fail = 0 ] && echo "OK: a full disk stops the trace with a message; the program goes on"
exit $fail
