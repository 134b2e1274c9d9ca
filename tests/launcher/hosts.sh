#!/bin/sh
# timeout: 60
# Host options: this machine is accepted under any of its names; other hosts are refused with a
# clear message and status 1 (this release runs on the local host only).
. "$FY_SRC/tests/launcher/lib.inc"

for h in localhost 127.0.0.1 "$(hostname)" "localhost,127.0.0.1"; do
    run -host "$h" -n 2 true
    expect_eq "status with -host $h" 0 "$RC"
done
run -hosts localhost -n 2 true
expect_eq "status with -hosts" 0 "$RC"

printf '# our machine\nlocalhost:2\n\n' >"$T/hosts"
run -f "$T/hosts" hostname
expect_eq "ranks from host file slots" 2 "$(wc -l <"$T/out")"
printf 'localhost slots=3\n' >"$T/hosts3"
for opt in -hostfile -machinefile; do
    run $opt "$T/hosts3" hostname
    expect_eq "ranks from $opt slots" 3 "$(wc -l <"$T/out")"
done

run -host far.example.org -n 2 hostname
expect_eq "status with a remote host" 1 "$RC"
grep -q "far.example.org" "$T/err" || fail "message does not name the remote host"
grep -q "local host only" "$T/err" || fail "message does not say why: $(cat "$T/err")"
[ -s "$T/out" ] && fail "ranks ran despite a remote host"

run -hosts localhost,far.example.org -n 2 hostname
expect_eq "status with a remote host in a list" 1 "$RC"

printf 'localhost\nnode17\n' >"$T/remote"
run -f "$T/remote" -n 2 hostname
expect_eq "status with a remote host in a host file" 1 "$RC"
grep -q node17 "$T/err" || fail "message does not name the remote host of the file"
finish
