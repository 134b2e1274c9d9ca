#!/usr/bin/env bash
# timeout: 60
# ferry farm's bad input: each gets one message naming the file and line (or the option and
# value) and exit status 2, before anything runs (no results file appears, no task runs): a
# missing task file, a line with a NUL byte, with invalid UTF-8, with a control character, a
# task longer than 64 KiB, no task file given, the task file after mpiexec options, an unknown
# option, bad numbers, a results file that cannot be written or that another farm holds. An
# empty task file (only comments) runs nothing and exits 0.
set -u
. "$FY_SRC/tests/ferry/farm_common.inc"

expect2() { # name pattern args...
    local name=$1 pat=$2
    shift 2
    "$F" farm "$@" > "$name.out" 2> "$name.err"
    local rc=$?
    [ "$rc" = 2 ] || err "$name: exit status $rc, expected 2"
    grep -q -- "$pat" "$name.err" || err "$name: message '$(cat "$name.err")' lacks '$pat'"
    [ "$(grep -c . "$name.err")" -le 2 ] || err "$name: more than one message: $(cat "$name.err")"
}

expect2 missing "ferry farm: cannot read the task file 'nope.txt': No such file or directory" nope.txt
printf 'echo one > ran1\necho t\000wo > ran2\n' > nul.txt
expect2 nul "ferry farm: nul.txt:2: a NUL byte at column 7" nul.txt
printf 'echo one > ran1\n\n# x\necho caf\351 > ran3\n' > latin1.txt
expect2 utf8 "ferry farm: latin1.txt:4: invalid UTF-8 (byte 0xe9) at column 9" latin1.txt
printf 'echo \033[1m\n' > ctl.txt
expect2 control "ferry farm: ctl.txt:1: a control character (0x1b) at column 6" ctl.txt
{ echo true; printf 'echo %070000d\n' 0; } > long.txt
expect2 long "ferry farm: long.txt:2: the task is too long (more than 65536 bytes)" long.txt
expect2 none "ferry farm: no task file given"
printf 'true\n' > ok.txt
expect2 order "ferry farm: the task file comes first" -n 2 ok.txt
expect2 unknown "ferry farm: unknown option '--frobnicate'" --frobnicate ok.txt
expect2 chunk "ferry farm: --chunk '0': expected a whole number from 1 to" ok.txt --chunk 0
expect2 retries "ferry farm: --retries 'x': expected a whole number" ok.txt --retries=x
expect2 noval "ferry farm: --results needs a value" ok.txt --results
expect2 resdir "ferry farm: cannot write the results file nodir/r.csv: No such file or directory" ok.txt --results nodir/r.csv
exec 9>> busy.csv
flock 9
expect2 busy "ferry farm: the results file busy.csv is in use by another ferry farm" ok.txt --results busy.csv
exec 9>&-
ls ran* *.results.csv 2>/dev/null && err "a bad task file ran something or wrote results"

# UTF-8 is fine, and CRLF line ends are taken off.
printf 'echo caf\303\251 > ran_utf8\r\n' > good.txt
"$F" farm good.txt -n 2 > good.out 2>&1 || err "UTF-8 task: exit $?: $(cat good.out)"
[ "$(cat ran_utf8)" = "café" ] || err "UTF-8 task wrote '$(cat ran_utf8)'"

printf '# nothing\n\n' > empty.txt
"$F" farm empty.txt -n 2 > empty.out 2>&1 || err "empty task file: exit $?: $(cat empty.out)"
grep -q "ferry farm: empty.txt has no tasks" empty.out || err "empty: $(cat empty.out)"

"$F" farm --help | grep -q '^usage: ferry farm TASKFILE' || err "--help"

[ "$fail" = 0 ] && echo "PASS"
exit $fail
