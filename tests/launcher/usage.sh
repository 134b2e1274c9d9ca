#!/bin/sh
# timeout: 120
# What a new user types first: mpiexec and mpirun with no arguments print the usage on stderr
# and fail (they crashed with SIGSEGV); -h/--help print it on stdout and succeed; '--' ends the
# options; a command line that cannot work gets one clear line and a status below 128 (never a
# crash), and so does a program that cannot be run (missing, a directory, not executable, no
# '#!' line, a missing interpreter), with no process left behind.
. "$FY_SRC/tests/launcher/lib.inc"

# expect_usage_error WHAT PATTERN ARGS...: status 1..127, nothing on stdout, stderr matches.
expect_usage_error() {
    what=$1 pattern=$2
    shift 2
    run "$@"
    if [ "$RC" -eq 0 ] || [ "$RC" -ge 128 ]; then
        fail "$what: status $RC (stderr: $(head -c 300 "$T/err"))"
    elif ! grep -qE -- "$pattern" "$T/err"; then
        fail "$what: stderr does not match '$pattern': $(head -c 300 "$T/err")"
    fi
    [ -s "$T/out" ] && fail "$what: wrote to stdout: $(head -c 200 "$T/out")"
}

# No arguments at all, under both names.
for name in mpiexec mpirun; do
    [ -x "$FY_BUILD/bin/$name" ] || { fail "no $FY_BUILD/bin/$name"; continue; }
    timeout -k 5 30 "$FY_BUILD/bin/$name" >"$T/out" 2>"$T/err" </dev/null
    RC=$?
    expect_eq "status of $name without arguments" 1 "$RC"
    grep -q "^Usage: mpiexec " "$T/err" || fail "$name without arguments: no usage on stderr: $(head -c 300 "$T/err")"
    [ -s "$T/out" ] && fail "$name without arguments wrote to stdout"
done
for h in -h --help -help; do
    run "$h"
    expect_eq "status of $h" 0 "$RC"
    grep -q "^Usage: mpiexec " "$T/out" || fail "$h: no usage on stdout"
done

# Options without their values, bad counts, unknown options, empty programs.
expect_usage_error "-n without value" "^mpiexec: option '-n' needs 1 argument$" -n
expect_usage_error "-n 0" "^mpiexec: -n needs a whole number from 1 to 4096, not '0'$" -n 0 true
expect_usage_error "-n -1" "not '-1'$" -n -1 true
expect_usage_error "-n abc" "not 'abc'$" -n abc true
expect_usage_error "-n 2x" "not '2x'$" -n 2x true
expect_usage_error "-n ''" "not ''$" -n '' true
expect_usage_error "-n 4097" "from 1 to 4096, not '4097'$" -n 4097 true
expect_usage_error "-np=" "not ''$" -np= true
expect_usage_error "MPMD above the limit" "^mpiexec: 4200 ranks in all; at most 4096" \
    -n 2100 true : -n 2100 true
expect_usage_error "host slots above the limit" "more than 4096 slots" \
    -host localhost:4000,localhost:4000 true
expect_usage_error "unknown option" "^mpiexec: unknown option '--frobnicate'" --frobnicate true
expect_usage_error "lone dash" "^mpiexec: unknown option '-'" - true
expect_usage_error "-genv with one value" "^mpiexec: option '-genv' needs 2 arguments$" -genv A
expect_usage_error "-env with no value" "needs 2 arguments" -n 1 -env
expect_usage_error "options without a program" "^mpiexec: no program to run after the options" -n 2
expect_usage_error "'--' without a program" "^mpiexec: no program after '--'$" -n 2 --
expect_usage_error "':' first" "^mpiexec: no program before ':'$" : true
expect_usage_error "':' last" "^mpiexec: no program after ':'$" -n 1 true :
expect_usage_error "options after ':' only" "^mpiexec: no program after ':'$" true : -n 2
expect_usage_error "empty program" "^mpiexec: the program name is empty$" -n 1 ''
expect_usage_error "--timeout -1" "not '-1'$" --timeout -1 true
expect_usage_error "-wdir missing" "cannot use '$T/none' as working directory" -wdir "$T/none" true
expect_usage_error "host file missing" "cannot open host file" -f "$T/none" true

# '--' ends the options, as with getopt and Open MPI: the program may even start with '-'.
run -n 2 -- sh -c 'echo "r$PMI_RANK"'
expect_eq "status with --" 0 "$RC"
expect_eq "ranks with --" "r0 r1" "$(sort "$T/out" | tr '\n' ' ' | sed 's/ $//')"
run -n 1 -- echo a : -n 1 -- echo b
expect_eq "MPMD with --" "a b" "$(sort "$T/out" | tr '\n' ' ' | sed 's/ $//')"
printf '#!/bin/sh\necho dash-prog "$@"\n' >"$T/-x"
chmod +x "$T/-x"
(cd "$T" && timeout 30 "$MPIEXEC" -n 1 -- ./-x -n 3 >"$T/out" 2>"$T/err")
expect_eq "arguments after the program stay its own" "dash-prog -n 3" "$(cat "$T/out")"

# Programs that cannot run: one line whatever -n is, 127 when missing, 126 when not runnable.
mkdir "$T/adir"
printf 'echo hi\n' >"$T/noshebang"
printf '#!/no/such/interpreter\necho hi\n' >"$T/badinterp"
printf '#!/bin/sh\necho hi\n' >"$T/noexec"
printf '#!/bin/sh\necho hi\n' >"$T/here"
chmod +x "$T/noshebang" "$T/badinterp" "$T/here" "$T/adir"
# expect_cannot_run WHAT STATUS PATTERN ARGS...
expect_cannot_run() {
    what=$1 want=$2 pattern=$3
    shift 3
    (cd "$T" && timeout -k 5 60 "$MPIEXEC" "$@" >"$T/out" 2>"$T/err" </dev/null)
    RC=$?
    expect_eq "status for $what" "$want" "$RC"
    expect_eq "lines on stderr for $what" 1 "$(wc -l <"$T/err")"
    grep -qE -- "$pattern" "$T/err" || fail "$what: stderr does not match '$pattern': $(cat "$T/err")"
}
expect_cannot_run "a missing program" 127 "^mpiexec: program '\./nothing' not found$" \
    -n 3 ./nothing
expect_cannot_run "a program not in PATH" 127 "^mpiexec: program 'nothing-at-all' not found in PATH$" \
    -n 3 nothing-at-all
expect_cannot_run "a program in . named without ./" 127 \
    "^mpiexec: program 'here' not found in PATH; to run the one in this directory, write './here'$" \
    -n 3 here
expect_cannot_run "a directory" 126 "^mpiexec: cannot run '\./adir': it is a directory$" -n 3 ./adir
expect_cannot_run "a file without execute permission" 126 \
    "^mpiexec: cannot run '\./noexec': not an executable file" -n 3 ./noexec
expect_cannot_run "a script without '#!'" 126 \
    "^mpiexec: cannot run '\./noshebang': not a program this machine can run" -n 3 ./noshebang
expect_cannot_run "a missing interpreter" 127 \
    "^mpiexec: cannot run '\./badinterp': its interpreter '/no/such/interpreter'" -n 3 ./badinterp
mkdir "$T/wd"
cp "$T/badinterp" "$T/wd/"
expect_cannot_run "a missing interpreter under -wdir" 127 \
    "^mpiexec: cannot run '\./badinterp': its interpreter '/no/such/interpreter'" \
    -n 2 -wdir "$T/wd" ./badinterp

# The same after another program of the job has started: it is stopped, nothing is left.
cat >"$T/waiter" <<EOF
#!/bin/sh
echo \$\$ >"$T/waiter.\$PMI_RANK"
exec sleep 50
EOF
chmod +x "$T/waiter"
expect_cannot_run "a bad second program" 126 "^mpiexec: cannot run '\./noshebang'" \
    -n 2 ./waiter : -n 2 ./noshebang
for f in "$T"/waiter.*; do
    [ -e "$f" ] && expect_gone "$(cat "$f")"
done
finish
