#!/bin/sh
# timeout: 60
# Environment options: -env, -genv, -x NAME, -x NAME=VALUE, -genvlist, -genvall, -genvnone.
. "$FY_SRC/tests/launcher/lib.inc"

show='echo "A=${FY_T_A-unset} B=${FY_T_B-unset} C=${FY_T_C-unset} MINE=${FY_T_MINE-unset}"'
export FY_T_MINE=ours FY_T_C=fromparent

run -n 2 /bin/sh -c "$show"
expect_eq "default passes our environment" "A=unset B=unset C=fromparent MINE=ours" \
    "$(sort -u "$T/out")"

run -env FY_T_A 'one two' -genv FY_T_B 2 -n 2 /bin/sh -c "$show"
expect_eq "-env and -genv" "A=one two B=2 C=fromparent MINE=ours" "$(sort -u "$T/out")"

run -x FY_T_A=x1 -x FY_T_C -n 2 /bin/sh -c "$show"
expect_eq "-x" "A=x1 B=unset C=fromparent MINE=ours" "$(sort -u "$T/out")"

run -genvnone -x FY_T_C -genv FY_T_A a -n 2 /bin/sh -c "$show"
expect_eq "-genvnone" "A=a B=unset C=fromparent MINE=unset" "$(sort -u "$T/out")"
run -genvnone -n 1 /usr/bin/env
grep -q '^HOME=' "$T/out" && fail "-genvnone passed HOME"
grep -q '^PMI_RANK=0$' "$T/out" || fail "-genvnone dropped PMI_RANK"

run -genvnone -genvall -n 1 /bin/sh -c "$show"
expect_eq "-genvall after -genvnone" "A=unset B=unset C=fromparent MINE=ours" "$(cat "$T/out")"

run -genvnone -genvlist FY_T_MINE,FY_T_C -n 1 /bin/sh -c "$show"
expect_eq "-genvlist" "A=unset B=unset C=fromparent MINE=ours" "$(cat "$T/out")"

# Variables of an enclosing PMI job must not leak into ours.
PMI_PORT=elsewhere:1 PMI_ID=9 run -n 1 /bin/sh -c 'echo "${PMI_PORT-none} ${PMI_ID-none}"'
expect_eq "outer PMI settings removed" "none none" "$(cat "$T/out")"
finish
