#!/usr/bin/env bash
# timeout: 180
# bench/sockpp.c between two test hosts (issue 12, the link's limits of bench/hosts.sh): it builds
# without MPI, a server on fyh2 and a client on fyh1 run every mode (polling and blocking ping-pong,
# stream) in a tiny configuration over IPv4 and IPv6, every size reports status=ok with sane
# numbers, the server verifies the stream, the client the echoes; with SOCKPP_CORRUPT the checking
# itself is seen to fail (status=FAILED); bad options are refused. Needs root: skips visibly.
set -u
S=$FY_SRC
H=$S/tests/hosts
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: the test hosts need root (network namespaces)"
    exit 0
fi
for t in ip unshare nsenter; do
    command -v $t >/dev/null || { echo "SKIP: $t is missing"; exit 0; }
done
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cc -O2 -std=c11 -Wall -Wextra -Werror -I"$S/bench" -o sockpp "$S/bench/sockpp.c" ||
    { echo "FAIL: bench/sockpp.c does not build"; exit 1; }
./sockpp -c 127.0.0.1 >usage.txt 2>&1 && bad "a client without a port was accepted"
grep -q "usage: sockpp" usage.txt || bad "no usage line for a bad command line"
./sockpp -s -c host -p 1 >/dev/null 2>&1 && bad "-s and -c together were accepted"

export FY_HOSTS_DIR=$PWD/cluster
"$H/fy_hosts" up 2 "$FY_HOSTS_DIR" || { echo "FAIL: fy_hosts up 2"; exit 1; }
cleanup() { [ -d "$FY_HOSTS_DIR" ] && "$H/fy_hosts" down "$FY_HOSTS_DIR"; }
trap cleanup EXIT
trap 'exit 1' INT TERM # the runner's hang guard: take the cluster down on the way out
A=$H/fy_hosts_agent
x=$(cat "$FY_HOSTS_DIR/net")

# One client run against a fresh server on fyh2; the client's output in $1.out.
pair() { # name [env for the server] -- client args...
    local name=$1 senv=""
    shift
    while [ "$1" != -- ]; do senv="$senv $1"; shift; done
    shift
    local six=""
    case " $* " in *" -6 "*) six=-6 ;; esac
    rm -f "$name.srv"
    "$A" fyh2 "env $senv ./sockpp -s $six -t 30 </dev/null >$name.srv 2>&1 &"
    local w=0
    while ! grep -q "listening on port" "$name.srv" 2>/dev/null; do
        w=$((w + 1))
        [ $w -lt 300 ] || { bad "$name: the server did not start: $(cat "$name.srv")"; return 1; }
        sleep 0.02
    done
    local port
    port=$(sed -n 's/.*listening on port //p' "$name.srv")
    timeout 60 "$A" fyh1 ./sockpp -p "$port" "$@" >"$name.out" 2>"$name.err"
}

TINY="-m -i 40 -w 4 -b 4 -x 64K -n 16K -X 64K -N 1M -r 2"
pair v4 -- -c "10.77.$x.2" $TINY || bad "IPv4 run failed: $(head -n 3 v4.err)"
pair v6 -- -c "fd77:$x::2" -6 -M poll,stream $TINY || bad "IPv6 run failed: $(head -n 3 v6.err)"
pair byname -- -c fyh2 -M block -m -i 10 -w 1 -b 2 -x 8 || bad "run by host name failed"

check() { # file bench count
    awk -v b="$2" -v want="$3" '
        /^RESULT / {
            delete kv
            for (i = 2; i <= NF; i++) { e = index($i, "="); kv[substr($i, 1, e - 1)] = substr($i, e + 1) }
            if (kv["bench"] != b) next
            n++
            if (kv["status"] != "ok" || kv["value"] + 0 <= 0 || kv["ranks"] != 2) { print "FAIL: bad line: " $0; bad = 1 }
            if (b ~ /pingpong/ && (kv["p10"] + 0 > kv["p50"] + 0 || kv["p50"] + 0 > kv["p90"] + 0)) {
                print "FAIL: percentiles out of order: " $0; bad = 1 }
            if (b == "link.stream" && kv["unit"] != "MBps") { print "FAIL: stream unit: " $0; bad = 1 }
        }
        END { if (n != want) { print "FAIL: " n " " b " lines, expected " want; bad = 1 } exit bad }' "$1"
}
check v4.out link.pingpong.poll 14 || fail=1   # 8 B .. 64 KiB
check v4.out link.pingpong.block 14 || fail=1
check v4.out link.stream 3 || fail=1           # 16, 32, 64 KiB chunks
check v6.out link.pingpong.poll 14 || fail=1
check v6.out link.stream 3 || fail=1
grep -q "link.pingpong.block" v6.out && bad "-M poll,stream ran the blocking mode"
check byname.out link.pingpong.block 1 || fail=1
grep -q "IPv6" v6.out || bad "the IPv6 run does not say IPv6"

# The checking checks: a server that spoils every echo it verifies makes every ping-pong size FAILED.
pair corrupt SOCKPP_CORRUPT=1 -- -c "10.77.$x.2" -M poll -m -i 10 -w 2 -b 2 -x 64
n=$(grep -c '^RESULT bench=link.pingpong.poll .*status=FAILED' corrupt.out)
[ "$n" = 4 ] || bad "a spoiled echo gave $n FAILED sizes of 4: $(cat corrupt.out corrupt.err)"

trap - EXIT
"$H/fy_hosts" down "$FY_HOSTS_DIR" || bad "fy_hosts down failed"
[ $fail = 0 ] && echo "No Errors"
exit $fail
