#!/usr/bin/env bash
# timeout: 60
# ferry-otf2 and ferry view on what is not a trace: each one clear line naming the command, the
# path and the fault, status 1 (usage errors 2), nothing written, the raw files left alone.
. "$FY_SRC/tests/trace/trace_common.inc"

check() { # check WHAT STATUS PATTERN CMD...
    local what=$1 st=$2 pat=$3
    shift 3
    run "$@"
    expect_eq "$what: status" "$st" "$RC"
    expect_grep "$what: message" "$pat" err
}

tools=("$FERRY view")
[ -x "$OTF2" ] && tools+=("$OTF2")
for t in "${tools[@]}"; do
    who=$(basename "${t%% *}")
    [ "$who" = ferry ] && who="ferry view"
    check "$who: no dir" 1 "^$who: nothere: No such file or directory$" $t nothere
    : >afile
    check "$who: a file" 1 "^$who: afile: not a directory" $t afile
    mkdir -p empty
    check "$who: no ferry/" 1 "^$who: empty: no raw trace in it \(no empty/ferry/rank\.\*\.fyt\)" $t empty
    mkdir -p empty/ferry
    check "$who: no files" 1 "^$who: empty: no raw trace files" $t empty
    mkdir -p junk/ferry
    head -c 4096 /dev/urandom >junk/ferry/rank.0.fyt
    check "$who: bad magic" 1 "^$who: junk/ferry/rank\.0\.fyt: not a Ferry raw trace file \(bad magic\)" $t junk
    python3 "$GEN" two --ranks 2 --iters 1 >/dev/null
    python3 "$GEN" three --ranks 3 --iters 1 >/dev/null
    cp three/ferry/rank.2.fyt two/ferry/rank.2.fyt
    check "$who: two jobs" 1 "^$who: two/ferry/rank\.2\.fyt: its job has 3 ranks, two/ferry/rank\.0\.fyt's has 2" $t two
    cp two/ferry/rank.1.fyt two/ferry/rank.5.fyt
    rm two/ferry/rank.2.fyt
    check "$who: rank in name" 1 "^$who: two/ferry/rank\.5\.fyt: a header whose rank is not the one in its name" $t two
    rm -rf afile empty junk two three
done
check "ferry view: no dir given" 2 "^usage: ferry view DIR" $FERRY view
check "ferry view: unknown option" 2 "^ferry view: unknown option '--bogus'" $FERRY view --bogus x
check "ferry view: -o needs a value" 2 "^ferry view: -o needs a value" $FERRY view x -o
python3 "$GEN" ok --ranks 2 --iters 1 >/dev/null
check "ferry view: output not writable" 1 "^ferry view: nodir/v.html: No such file or directory" $FERRY view ok -o nodir/v.html
if [ -x "$OTF2" ]; then
    check "ferry-otf2: usage" 2 "^usage: ferry-otf2 DIR" "$OTF2"
    check "ferry-otf2: option" 2 "^ferry-otf2: unknown option '-x'" "$OTF2" -x
fi
[ "$(ls ok)" = ferry ] || fail "something written beside the raw files: $(ls ok)"
rm -f ok/view.html
check "ferry view --png without chromium" 1 "^ferry view: --png needs Chromium: chromium, chromium-browser or google-chrome not found" env PATH=/nonexistent FERRY_CHROMIUM= "$FERRY" view ok --png pngs
check "ferry view --png, FERRY_CHROMIUM missing" 1 "^ferry view: --png needs Chromium: /no/such/browser not found" env FERRY_CHROMIUM=/no/such/browser "$FERRY" view ok --png pngs
[ ! -e pngs ] || fail "--png without a browser made $(ls pngs)"
finish
