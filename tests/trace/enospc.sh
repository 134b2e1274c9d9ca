#!/usr/bin/env bash
# timeout: 120
# A full disk: ferry view writing its page to /dev/full says so (status 1) and leaves the device
# alone; on a full small tmpfs it removes its half page;
# ferry-otf2 in a directory on a small tmpfs (a private mount namespace, when we may make one)
# fails with the reason and one line saying the archive was not written and the raw trace is kept,
# leaves no partial archive, and the raw files are unchanged.
. "$FY_SRC/tests/trace/trace_common.inc"

python3 "$GEN" job --ranks 4 --iters 400 >exp.json || { echo "FAIL: fyt_gen.py"; exit 1; }
if [ -w /dev/full ]; then
    run "$FERRY" view job -o /dev/full
    expect_eq "view to /dev/full" 1 "$RC"
    expect_grep "said" "^ferry view: /dev/full: writing it: No space left on device" err
    [ -c /dev/full ] || fail "ferry view removed /dev/full"
    python3 "$GEN" two --ranks 4 --iters 200 >/dev/null
    if unshare -m true 2>/dev/null; then
        # A plain file on a full disk: the half page is removed.
        mkdir tiny
        unshare -m sh -c "mount -t tmpfs -o size=8k tmpfs tiny &&
            timeout -k 5 60 '$FERRY' view two -o tiny/v.html >out3 2>err3 </dev/null; echo \$? >rc3;
            ls tiny >left3" 2>/dev/null
        if [ -f rc3 ]; then
            expect_eq "page on a full tmpfs" 1 "$(cat rc3)"
            expect_grep "said" "^ferry view: tiny/v.html: writing it: No space left on device" err3
            expect_eq "half page removed" "" "$(cat left3)"
        fi
        rmdir tiny 2>/dev/null
    fi
else
    echo "note: no /dev/full; the page half is not tried"
fi

if [ -x "$OTF2" ] && unshare -m true 2>/dev/null; then
    kb=$(( $(du -sk job/ferry | cut -f1) + 48 ))
    mkdir small
    unshare -m sh -c "mount -t tmpfs -o size=${kb}k tmpfs small && cp -r job small/ &&
        timeout -k 5 60 '$OTF2' small/job >out 2>err </dev/null; echo \$? >rc;
        ls small/job >left; cmp -s job/ferry/rank.3.fyt small/job/ferry/rank.3.fyt; echo \$? >same" 2>mount.err
    if [ -f rc ]; then
        expect_eq "otf2 on a full disk" 1 "$(cat rc)"
        expect_grep "the reason" "No space left on device" err
        expect_grep "the outcome" "^ferry-otf2: small/job/traces.otf2 not written; the raw trace is kept in small/job/ferry/$" err
        expect_eq "nothing left but the raw trace" "ferry" "$(cat left)"
        expect_eq "raw files unchanged" 0 "$(cat same)"
    else
        echo "note: no tmpfs here ($(cat mount.err)); the OTF2 half is not tried"
    fi
    rmdir small 2>/dev/null
else
    echo "note: no ferry-otf2 or no private mount namespace; the OTF2 half is not tried"
fi
finish
