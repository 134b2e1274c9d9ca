#!/usr/bin/env bash
# timeout: 300
# `ferry run --debug`'s sanitizer reports (tools/ferry/ferry_debug.c), without `ferry run`:
# each program of the gallery (tests/ferry/debug_src, one error on a line marked "error") is
# built with mpicc and the debug flags (`ferry _debug-cflags`), run on 2 ranks through
# `ferry _debug-env DIR --` (each rank's sanitizer settings, its rank from PMI_RANK), and
# `ferry _debug-report DIR` must tell the error as one message per rank: the rank, file:line of
# the marked line, what happened and to which variable, the source line with its caret; the
# job must fail. A C++ program (a std::vector read past its end) too. The correct program gives
# no report and a job that succeeds. Also: the snippet is left out when the source is gone,
# and bad usage of the hidden commands.
set -u
B=$FY_BUILD
F=$B/bin/ferry
G=$FY_SRC/tests/ferry/debug_src
fail=0
err() { echo "FAIL: $*"; fail=1; }

[ -x "$F" ] || { echo "FAIL: $F missing"; exit 1; }
CFLAGS=$("$F" _debug-cflags) || { echo "FAIL: ferry _debug-cflags exited $?"; exit 1; }
case "$CFLAGS" in
*-fsanitize=address,undefined*) ;;
*) echo "FAIL: the debug flags lack the sanitizers: $CFLAGS"; exit 1 ;;
esac
# A sanitizer build of Ferry: the programs share its shared runtimes, and UBSan's reports go
# to stderr, not to the report (ferry_debug.c).
if "$F" info 2>/dev/null | grep -q '^  sanitizers: *AddressSanitizer'; then
    echo "SKIP: Ferry is a sanitizer build (UBSan's reports cannot reach ferry's report there)"
    exit 77
fi
# The sanitizer runtimes are linked statically (see ferry_debug.c): gcc needs libasan.a.
printf 'int main(void) { return 0; }\n' > probe.c
# shellcheck disable=SC2086
if ! gcc $CFLAGS -o probe probe.c > probe.err 2>&1; then
    echo "SKIP: gcc cannot build with '$CFLAGS': $(head -2 probe.err)"
    exit 77
fi

# The line of the marked error (the first "error" comment) and of another marker in a program.
line_of() { grep -n -- "$2" "$G/$1.c" | head -1 | cut -d: -f1; }

# build NAME: compiles the gallery program into ./NAME.
build() {
    # shellcheck disable=SC2086
    "$B/bin/mpicc" $CFLAGS -o "$1" "$G/$1.c" > "$1.cc" 2>&1 || { err "$1: compile: $(head -5 "$1.cc")"; return 1; }
}

# run NAME: runs it on 2 ranks with reports to rep.NAME, then the report into NAME.out.
# Sets RUN_RC and REP_RC.
run() {
    rm -rf "rep.$1"
    mkdir "rep.$1"
    timeout 60 "$B/bin/mpiexec" -n 2 "$F" _debug-env "$PWD/rep.$1" -- "./$1" > "$1.run" 2>&1
    RUN_RC=$?
    "$F" _debug-report "rep.$1" > "$1.out" 2>&1
    REP_RC=$?
}

# expect NAME REGEX: NAME.out has a line matching REGEX (extended).
expect() {
    grep -Eq -- "$2" "$1.out" || { err "$1: no line matching '$2' in the report:"; sed 's/^/    /' "$1.out"; }
}

# check_erroneous NAME: the job failed and ranks were reported.
check_erroneous() {
    [ "$RUN_RC" -ne 0 ] || err "$1: the job exited 0 despite the error"
    [ "$RUN_RC" -ne 124 ] || err "$1: the job hung (timeout)"
    [ "$REP_RC" -eq 1 ] || err "$1: _debug-report exited $REP_RC, not 1 (ranks reported)"
    expect "$1" '^\(full sanitizer reports?: .*rep\.'"$1"'/rank\.[01]\.[0-9]+'
}

# Only one rank errs in these: exactly one message, that rank's.
only_rank() {
    local n
    n=$(grep -c '^rank ' "$1.out")
    [ "$n" -eq 1 ] || err "$1: $n rank messages, expected only rank $2's"
    grep -q "^rank $2: " "$1.out" || err "$1: no message for rank $2"
}

# Both ranks err at the same place: one full message (checked by the caller), and the other
# rank's line is "same error at" the place, or its own full message when the first rank's
# report was cut short (a rank still writing when mpiexec's SIGKILL came, under heavy load); a
# rank stopped before its own error gives no line at all.
both_ranks() {
    local n
    n=$(grep -c '^rank ' "$1.out")
    [ "$n" -ge 1 ] && [ "$n" -le 2 ] || err "$1: $n rank messages, expected 1 or 2"
    if [ "$n" -eq 2 ]; then
        grep -Eq "^rank 1: (same error at .*$1\.cc?:$2\$|.*$1\.cc?:$2: )|^rank 0: .*the report stops short" "$1.out" ||
            err "$1: rank 1's line is not 'same error at $1.c:$2': $(grep '^rank 1' "$1.out")"
    fi
}

# The source line under the message, and the caret under the column the message names.
check_caret() {
    local col caretpos
    grep -Eq "^ +$2 \| " "$1.out" || err "$1: no source line $2 under the message"
    col=$(grep -Eo "$1\.c:$2:[0-9]+" "$1.out" | head -1 | cut -d: -f3)
    [ -n "$col" ] || { err "$1: no column in the message"; return; }
    caretpos=$(awk '/^ +\| +\^$/ { print index($0, "^") - length("        | "); exit }' "$1.out")
    [ "$caretpos" = "$col" ] || err "$1: the caret is at column '$caretpos', the message says $col"
}

P=oob_stack
if build $P; then
    run $P
    check_erroneous $P
    L=$(line_of $P "error:")
    only_rank $P 1
    expect $P "^rank 1: .*$P\.c:$L:[0-9]+: array index 10 is out of bounds of 'buf' \(int \[10\]\)\$"
    check_caret $P "$L"
fi

P=oob_heap
if build $P; then
    run $P
    check_erroneous $P
    L=$(line_of $P "error:")
    A=$(line_of $P "malloc(")
    both_ranks $P "$L"
    expect $P "^rank [01]: .*$P\.c:$L: read of 8 bytes just past the end of 'part' \((64|72) bytes from malloc at line $A\)\$"
    grep -Eq "^ +$L \| " $P.out || err "$P: no source line $L"
fi

P=use_after_free
if build $P; then
    run $P
    check_erroneous $P
    L=$(line_of $P "error:")
    A=$(line_of $P "malloc(")
    FR=$(line_of $P "free(vals)")
    both_ranks $P "$L"
    expect $P "^rank [01]: .*$P\.c:$L: read of 4 bytes of 'vals' after it was freed \(freed at line $FR, allocated at line $A\)\$"
fi

P=double_free
if build $P; then
    run $P
    check_erroneous $P
    L=$(line_of $P "error:")
    A=$(line_of $P "malloc(")
    FR=$(grep -n "free(msg);" "$G/$P.c" | grep -v error | head -1 | cut -d: -f1)
    only_rank $P 0
    expect $P "^rank 0: .*$P\.c:$L: 'msg' freed twice \(freed first at line $FR, allocated at line $A\)\$"
    C=$(grep -n "cleanup(msg);" "$G/$P.c" | head -1 | cut -d: -f1)
    expect $P "^ += in cleanup\(\), called from main\(\) at line $C\$"
fi

P=int_overflow
if build $P; then
    run $P
    check_erroneous $P
    L=$(line_of $P "error:")
    only_rank $P 0
    expect $P "^rank 0: .*$P\.c:$L:[0-9]+: signed integer overflow: 2147483647 \+ 2147483646 does not fit in 'int'\$"
    check_caret $P "$L"
fi

P=div_zero
if build $P; then
    run $P
    check_erroneous $P
    L=$(line_of $P "error:")
    only_rank $P 1
    expect $P "^rank 1: .*$P\.c:$L:[0-9]+: integer division by zero \('others' is 0\)\$"
    check_caret $P "$L"
fi

P=null_deref
if build $P; then
    run $P
    check_erroneous $P
    L=$(line_of $P "error:")
    only_rank $P 1
    expect $P "^rank 1: .*$P\.c:$L:[0-9]+: member access through a null pointer: 'c' is NULL \(struct cell \*\)\$"
    check_caret $P "$L"
fi

P=oob_recv
if build $P; then
    run $P
    check_erroneous $P
    L=$(line_of $P "error \*/")
    D=$(line_of $P "part\[8\]")
    only_rank $P 1
    expect $P "^rank 1: .*$P\.c:$L: write of [0-9]+ bytes in MPI_Recv runs past the end of 'part' \(32 bytes on the stack of main, declared at line $D\)\$"
fi

# A receive into a stack array of a function that has returned: the write happens in MPI_Wait
# (or, rarely, in the MPI_Send just before it, whose progress may take the message in).
P=irecv_stack
if build $P; then
    run $P
    check_erroneous $P
    L=$(line_of $P "error:")
    S=$(line_of $P "MPI_Send(&ready")
    D=$(line_of $P "int buf\[4\]")
    only_rank $P 1
    expect $P "^rank 1: .*$P\.c:($L: write of 16 bytes in MPI_Wait|$S: write of 16 bytes in MPI_Send) of 'buf', a local of post_recv, after post_recv returned \(declared at line $D\)\$"
fi

# C++: the vector's block, named from its declaration (no assignment to read the name from).
P=oob_vector
if [ -x "$B/bin/mpicxx" ]; then
    # shellcheck disable=SC2086
    if "$B/bin/mpicxx" $CFLAGS -o $P "$G/$P.cc" > $P.cc.txt 2>&1; then
        run $P
        check_erroneous $P
        L=$(grep -n "error:" "$G/$P.cc" | head -1 | cut -d: -f1)
        A=$(grep -n "cells(4" "$G/$P.cc" | head -1 | cut -d: -f1)
        both_ranks $P "$L"
        expect $P "^rank [01]: .*$P\.cc:$L: read of 8 bytes just past the end of 'cells' \((32|40) bytes from operator new at line $A\)\$"
    else
        err "$P: compile: $(head -5 $P.cc.txt)"
    fi
fi

P=correct
if build $P; then
    run $P
    [ "$RUN_RC" -eq 0 ] || err "$P: the job exited $RUN_RC: $(tail -5 $P.run)"
    [ "$REP_RC" -eq 0 ] || err "$P: _debug-report exited $REP_RC, not 0"
    [ ! -s $P.out ] || { err "$P: a report for a correct program:"; cat $P.out; }
    [ -z "$(ls rep.$P)" ] || err "$P: report files for a correct program: $(ls rep.$P)"
fi

# A program built from the current directory: the message names the file as given; once the
# source is gone, the message stays and the snippet goes.
P=oob_stack
mkdir -p here && cp "$G/$P.c" here/ && cd here || exit 1
# shellcheck disable=SC2086
if "$B/bin/mpicc" $CFLAGS -o $P $P.c > cc.txt 2>&1; then
    L=$(line_of $P "error:")
    mkdir rep
    timeout 60 "$B/bin/mpiexec" -n 2 "$F" _debug-env "$PWD/rep" -- ./$P > run.txt 2>&1
    "$F" _debug-report rep > with.txt 2>&1
    grep -Eq "^rank 1: $P\.c:$L:[0-9]+: array index 10" with.txt || err "relative: $(cat with.txt)"
    grep -Eq "^ +$L \| " with.txt || err "relative: no snippet: $(cat with.txt)"
    rm $P.c
    "$F" _debug-report rep > without.txt 2>&1
    grep -Eq "^rank 1: $P\.c:$L:[0-9]+: array index 10" without.txt || err "no source: $(cat without.txt)"
    if grep -q " | " without.txt; then err "no source: a snippet all the same: $(cat without.txt)"; fi
else
    err "relative build: $(head -5 cc.txt)"
fi
cd .. || exit 1

# Bad usage of the hidden commands: a message naming the command and the value, status 2
# (127 for a program that cannot be run).
"$F" _debug-env > u1.txt 2>&1
[ $? -eq 2 ] && grep -q "usage: ferry _debug-env" u1.txt || err "_debug-env without arguments: $(cat u1.txt)"
"$F" _debug-env d x -- true > u2.txt 2>&1
[ $? -eq 2 ] && grep -q "ferry _debug-env: RANK must be a rank .*'x'" u2.txt || err "_debug-env with rank x: $(cat u2.txt)"
env -u PMI_RANK "$F" _debug-env d -- true > u3.txt 2>&1
[ $? -eq 2 ] && grep -q "PMI_RANK" u3.txt || err "_debug-env without PMI_RANK: $(cat u3.txt)"
"$F" _debug-env d 0 -- ./no-such-program > u4.txt 2>&1
[ $? -eq 127 ] && grep -q "cannot run './no-such-program'" u4.txt || err "_debug-env of a missing program: $(cat u4.txt)"
"$F" _debug-report "$PWD/no-such-dir" > u5.txt 2>&1
grep -q "cannot read the sanitizer reports in '$PWD/no-such-dir'" u5.txt || err "_debug-report of a missing directory: $(cat u5.txt)"

[ $fail -eq 0 ] && echo "debug reports: all checks passed"
exit $fail
