#!/bin/sh
# timeout: 60
# Host options: this machine is accepted under any of its names (and runs the job without a
# proxy); a rank placed on another host starts a proxy there through the launcher agent, here a
# stand-in that knows no host, so the job fails with a message naming the host and quoting the
# agent, status 1 (tests/hosts/launch.sh runs jobs on real test hosts).
# Placement (tools/mpiexec/hosts.c), seen through --display-map before that failure: blocks of
# each host's slots by default, round-robin with -rr or --map-by node, -ppn N per host, further
# passes over hosts named without counts, and more ranks than counted slots only with
# --oversubscribe (the message says what to add).
. "$FY_SRC/tests/launcher/lib.inc"
printf '#!/bin/sh\necho "noagent: $1: unknown host" >&2\nexit 255\n' >"$T/noagent"
chmod +x "$T/noagent"
export FERRY_TCP_IF=lo

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

run -launcher-exec "$T/noagent" -host far.example.org -n 2 hostname
expect_eq "status with a remote host" 1 "$RC"
grep -q "host far.example.org: cannot start the proxy" "$T/err" || fail "message does not name the remote host: $(cat "$T/err")"
grep -q "noagent: far.example.org: unknown host" "$T/err" || fail "message does not quote the agent: $(cat "$T/err")"
[ -s "$T/out" ] && fail "ranks ran despite a remote host"

run -launcher-exec "$T/noagent" -hosts localhost,far.example.org -n 2 hostname
expect_eq "status with a remote host in a list" 1 "$RC"

printf 'localhost\nnode17\n' >"$T/remote"
run -launcher-exec "$T/noagent" -f "$T/remote" -n 2 hostname
expect_eq "status with a remote host in a host file" 1 "$RC"
grep -q node17 "$T/err" || fail "message does not name the remote host of the file"
# The map: "rank R on HOST" lines on stderr, one per rank, before anything starts.
map() { grep -o 'rank [0-9]* on [^ ]*' "$T/err" | awk '{ printf "%s%s", sep, $4; sep = "," }'; }
run -launcher-exec "$T/noagent" --display-map -hosts a:2,b:2 -n 4 true
expect_eq "block placement" "a,a,b,b" "$(map)"
run -launcher-exec "$T/noagent" --display-map -hosts a:2,b:2 -n 4 -rr true
expect_eq "-rr placement" "a,b,a,b" "$(map)"
run -launcher-exec "$T/noagent" --display-map -hosts a:2,b:2 -n 4 --map-by node true
expect_eq "--map-by node placement" "a,b,a,b" "$(map)"
run -launcher-exec "$T/noagent" --display-map -hosts a,b,c -ppn 2 -n 5 true
expect_eq "-ppn 2 placement" "a,a,b,b,c" "$(map)"
run -launcher-exec "$T/noagent" --display-map -hosts a,b -n 5 true
expect_eq "hosts without counts take further passes" "a,b,a,b,a" "$(map)"
grep -q "host [ab]: cannot start the proxy" "$T/err" || fail "no failure naming a host: $(cat "$T/err")"
printf 'a slots=2\n# comment\n\nb:1\n' >"$T/hf"
run -launcher-exec "$T/noagent" --display-map -f "$T/hf" true
expect_eq "default -n from a host file" "a,a,b" "$(map)"

run -hosts localhost:2,127.0.0.1:1 -n 4 true
expect_eq "status with more ranks than slots" 1 "$RC"
grep -q "4 ranks, but the hosts have 3 slots" "$T/err" || fail "no message counting ranks and slots"
grep -q -- "--oversubscribe" "$T/err" || fail "the message does not say what to add"
run -hosts localhost:2 -n 4 --oversubscribe hostname
expect_eq "status with --oversubscribe" 0 "$RC"
expect_eq "ranks run with --oversubscribe" 4 "$(wc -l <"$T/out")"
run -hosts localhost -n 3 hostname
expect_eq "a host named without a count takes any number" 3 "$(wc -l <"$T/out")"

run -hosts 'bad/name' -n 1 true
expect_eq "status with an invalid host name" 1 "$RC"
grep -q "invalid host name 'bad/name'" "$T/err" || fail "no message naming the invalid host"
printf 'localhost slots=2\nnode2 slot=4\n' >"$T/badfile"
run -f "$T/badfile" true
expect_eq "status with a bad host file word" 1 "$RC"
grep -q "badfile:2: unknown word 'slot=4'" "$T/err" || fail "no message with file, line and word: $(cat "$T/err")"
printf 'localhost:0\n' >"$T/zero"
run -f "$T/zero" true
grep -q "zero:1: host slots needs a whole number from 1" "$T/err" || fail "no message for 0 slots"
printf '# nothing\n' >"$T/empty"
run -f "$T/empty" true
grep -q "names no host" "$T/err" || fail "no message for a host file without hosts"
run --map-by ppr:2:socket true
grep -q "map-by 'ppr:2:socket'" "$T/err" || fail "no message for an unknown --map-by"
finish
