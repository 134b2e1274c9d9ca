#!/usr/bin/env bash
# timeout: 120
# ferry-otf2 on a made-up 4-rank job (tests/trace/fyt_gen.py): otf2-print reads the archive and
# finds every event the raw files hold (enters, leaves, sends, receives, collectives, a put),
# the definitions (ranks, hosts, communicators, regions of role MPI and of user code, the clock),
# timestamps that never go back on any rank, and the note as a trace property. Clocks: rank 1's
# counter runs 100 ppm fast and rank 2's epoch is shifted; every rank enters its k-th collective
# at the same global time, so after alignment (drift corrected between the syncs) their
# MPI_COLLECTIVE_BEGINs carry one timestamp, give or take a nanosecond of rounding (uncorrected,
# 100 ppm over the 2 ms trace would be 200 ns apart). A second run replaces the archive.
. "$FY_SRC/tests/trace/trace_common.inc"
needs_otf2

python3 "$GEN" job --ranks 4 --iters 20 --drift 1:100 --offset 2:123456789 >exp.json ||
    { echo "FAIL: fyt_gen.py"; exit 1; }
run "$OTF2" job
expect_eq "status" 0 "$RC"
expect_eq "summary line" "ferry-otf2: job/traces.otf2: 4 ranks, $(json_field exp.json 'd["enter"]+d["leave"]+d["send"]+d["recv"]+d["coll_begin"]+d["coll_end"]+d["rma"]') events" "$(cat out)"
expect_grep "the notes of ranks 0-2 as one" "^ferry-otf2: note: ranks 0-2: trace filter: every call recorded \\(a test note\\)$" err
[ -f job/traces.otf2 ] && [ -f job/traces.def ] && [ -d job/traces ] || fail "no archive: $(ls job)"
[ "$(ls job/ferry | wc -l)" = 4 ] || fail "raw files touched: $(ls job/ferry)"

otf2-print job/traces.otf2 >events.txt 2>print.err || fail "otf2-print failed: $(cat print.err)"
count() { awk -v k="$1" '$1 == k' events.txt | wc -l; }
expect_eq "ENTER" "$(json_field exp.json 'd["enter"]')" "$(count ENTER)"
expect_eq "LEAVE" "$(json_field exp.json 'd["leave"]')" "$(count LEAVE)"
expect_eq "MPI_SEND" "$(json_field exp.json 'd["send"]')" "$(count MPI_SEND)"
expect_eq "MPI_RECV" "$(json_field exp.json 'd["recv"]')" "$(count MPI_RECV)"
expect_eq "MPI_COLLECTIVE_BEGIN" "$(json_field exp.json 'd["coll_begin"]')" "$(count MPI_COLLECTIVE_BEGIN)"
expect_eq "MPI_COLLECTIVE_END" "$(json_field exp.json 'd["coll_end"]')" "$(count MPI_COLLECTIVE_END)"
expect_eq "RMA_PUT" 1 "$(count RMA_PUT)"
expect_grep "a send's fields" '^MPI_SEND +1 +[0-9]+ +Receiver: 2 .*Communicator: "MPI_COMM_WORLD".*Tag: 7, Length: 1024' events.txt
expect_grep "a bcast's root in its communicator" '^MPI_COLLECTIVE_END +3 .*Operation: BCAST, Communicator: "comm 1001 \(2 ranks\)".*Root: 0 \("rank 1".*Sent: 0, Received: 64' events.txt
expect_grep "an allreduce" '^MPI_COLLECTIVE_END +0 .*Operation: ALLREDUCE, Communicator: "MPI_COMM_WORLD".*Root: NONE' events.txt

# Per location, timestamps never go back (otf2-print lists events merged by time; check each).
awk '$1 ~ /^[A-Z_]+$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {
        if (($2 in last) && $3 + 0 < last[$2]) { print "location " $2 " goes back at " $3; bad = 1 }
        last[$2] = $3 + 0 }
     END { exit bad }' events.txt || fail "timestamps go back"

# Alignment: each collective's begins over the ranks (the same global time by construction).
spread=$(awk '$1 == "MPI_COLLECTIVE_BEGIN" { n[$2]++; t[$2, n[$2]] = $3 }
    END { worst = 0; for (k = 1; k <= n[0]; k++) { lo = hi = t[0, k];
            for (r = 1; r < 4; r++) { v = t[r, k]; if (v < lo) lo = v; if (v > hi) hi = v }
            if (hi - lo > worst) worst = hi - lo }
          print worst }' events.txt)
[ "$spread" -le 2 ] || fail "collective begins of one instance are ${spread} ns apart across ranks (clock alignment)"
first=$(awk '$1 == "MPI_COLLECTIVE_BEGIN" && $2 == 1 { print $3; exit }' events.txt)
[ -n "$first" ] && [ "$first" -ge 100000 ] || fail "rank 1's first collective at '$first' ns"

otf2-print -G job/traces.otf2 >defs.txt 2>&1 || fail "otf2-print -G failed"
expect_grep "clock: 1 ns ticks" 'CLOCK_PROPERTIES +Ticks per Seconds: 1000000000, Global Offset: 0' defs.txt
expect_eq "locations" 4 "$(grep -c '^LOCATION  ' defs.txt)"
expect_eq "location groups" 4 "$(grep -c '^LOCATION_GROUP ' defs.txt)"
expect_eq "hosts" 2 "$(grep -c '^SYSTEM_TREE_NODE .*Class: "node"' defs.txt)"
expect_grep "an MPI region" '^REGION .*Name: "MPI_Send".*Role: POINT2POINT, Paradigm: "MPI"' defs.txt
expect_grep "a user region" '^REGION .*Name: "step".*Paradigm: USER' defs.txt
expect_grep "the locations group" '^GROUP .*Type: COMM_LOCATIONS, Paradigm: "MPI".*4 Members' defs.txt
expect_grep "world" '^COMM .*Name: "MPI_COMM_WORLD"' defs.txt
expect_grep "the split" '^GROUP .*Name: "comm 1000 \(2 ranks\)".*Type: COMM_GROUP.*2 Members: 0 .*2 ' defs.txt
expect_grep "the window" '^RMA_WIN +0 .*Communicator: "MPI_COMM_WORLD"' defs.txt
otf2-print --show-info job/traces.otf2 >info.txt 2>&1
expect_grep "the note" 'FERRY::NOTE_0' info.txt

# Again: the archive is replaced, the raw files kept.
run "$OTF2" job
expect_eq "second run" 0 "$RC"
otf2-print job/traces.otf2 >events2.txt 2>&1 || fail "otf2-print after the second run"
expect_eq "same events" "$(wc -l <events.txt)" "$(wc -l <events2.txt)"
finish
