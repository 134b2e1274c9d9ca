#!/bin/sh
# timeout: 60
# Output forwarding: whole lines only, stdout and stderr kept apart, -l labels, the partial last
# line flushed at exit.
. "$FY_SRC/tests/launcher/lib.inc"
build_pmi_prog

# Each rank writes every line in three pieces with pauses: forwarded piece by piece, lines of
# different ranks would mix.
run -n 4 "$PMI_PROG" chatty 150
expect_eq "status of chatty" 0 "$RC"
expect_eq "whole stdout lines" 600 "$(grep -cE '^<rank=[0-3] fd=1 line=[0-9]+ end>$' "$T/out")"
expect_eq "whole stderr lines" 600 "$(grep -cE '^<rank=[0-3] fd=2 line=[0-9]+ end>$' "$T/err")"
expect_eq "tail lines, each on its own" 4 "$(grep -cE '^<tail rank=[0-3]>$' "$T/out")"
expect_eq "mixed lines" 0 \
    "$(grep -cvE '^(<rank=[0-3] fd=1 line=[0-9]+ end>|<tail rank=[0-3]>)$' "$T/out")"
expect_eq "order kept within rank 2" "$(seq 0 149 | tr '\n' ' ')" \
    "$(grep '^<rank=2' "$T/out" | sed 's/.*line=\([0-9]*\).*/\1/' | tr '\n' ' ')"

run -l -n 3 "$PMI_PROG" chatty 20
expect_eq "status of -l" 0 "$RC"
expect_eq "labelled stdout lines" 60 \
    "$(grep -cE '^\[([0-2])\] <rank=\1 fd=1 line=[0-9]+ end>$' "$T/out")"
expect_eq "labelled stderr lines" 60 \
    "$(grep -cE '^\[([0-2])\] <rank=\1 fd=2 line=[0-9]+ end>$' "$T/err")"
expect_eq "labelled partial lines" 3 "$(grep -cE '^\[([0-2])\] <tail rank=\1>$' "$T/out")"

# A single rank's output comes through byte for byte.
run -n 1 printf 'a\nb\nno newline'
expect_eq "bytes of one rank" "$(printf 'a\nb\nno newline' | od -c)" "$(od -c <"$T/out")"

# Large output does not stall or lose data.
run -n 2 sh -c 'seq 1 200000'
expect_eq "lines of large output" 400000 "$(wc -l <"$T/out")"
expect_eq "sum of large output" 40000200000 "$(awk '{s+=$1} END {printf "%.0f", s}' "$T/out")"

# Our reader going away ends the job, as it would end a plain pipeline, without messages.
timeout 20 "$MPIEXEC" -n 2 yes 2>"$T/err" | head -n 3 >"$T/out"
expect_eq "lines through head" 3 "$(wc -l <"$T/out")"
[ -s "$T/err" ] && fail "messages after our reader left: $(cat "$T/err")"
finish
