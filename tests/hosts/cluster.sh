#!/usr/bin/env bash
# timeout: 120
# The test hosts themselves (tests/hosts/fy_hosts, issue 12): two hosts of one cluster have
# their own names, addresses, /dev/shm, IPC and PID spaces; each reaches the other by name over
# IPv4 and IPv6, and the machine reaches them through its bridge; the agent behaves as ssh does (options before the host skipped, the command's
# words run by a shell in the caller's directory, its exit status passed on, 255 for an unknown
# host); a process started on a host dies with the cluster; `down` leaves no namespace, bridge,
# /etc/netns entry or process. Needs root: skips (saying so) without.
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
export FY_HOSTS_DIR=$PWD/cluster
"$H/fy_hosts" up 2 "$FY_HOSTS_DIR" || { echo "FAIL: fy_hosts up 2"; exit 1; }
id=$(cat "$FY_HOSTS_DIR/id")
cleanup() { [ -d "$FY_HOSTS_DIR" ] && "$H/fy_hosts" down "$FY_HOSTS_DIR"; }
trap cleanup EXIT
trap 'exit 1' INT TERM # the runner's hang guard: take the cluster down on the way out
A=$H/fy_hosts_agent
x=$(cat "$FY_HOSTS_DIR/net")

[ "$("$A" fyh1 hostname)" = fyh1 ] || bad "fyh1 is not named fyh1"
[ "$("$A" -x fyh2 hostname)" = fyh2 ] || bad "the agent did not skip an ssh option before the host"
[ "$("$A" 10.77.$x.2 hostname)" = fyh2 ] || bad "the agent does not take a host by its address"
"$A" fyh1 ip -4 -o addr show dev eth0 | grep -q "10.77.$x.1/24" || bad "fyh1 has no 10.77.$x.1"
"$A" fyh1 getent ahostsv4 fyh2 | grep -q "10.77.$x.2" || bad "fyh1's /etc/hosts does not name fyh2"
# TCP between hosts, by name over IPv4 and by address over IPv6: fyh2 answers with its name.
cat >probe.py <<'PY'
import socket, sys
if sys.argv[1] == "serve":
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::", 7777))
    s.listen(2)
    open("ready", "w").close()
    s.settimeout(20)
    for _ in range(3):
        c, _ = s.accept()
        c.sendall(socket.gethostname().encode())
        c.close()
else:
    fam = socket.AF_INET6 if ":" in sys.argv[2] else socket.AF_INET
    ai = socket.getaddrinfo(sys.argv[2], 7777, fam, socket.SOCK_STREAM)[0]
    c = socket.create_connection(ai[4][:2], timeout=10)
    print(c.recv(64).decode())
PY
rm -f ready
"$A" fyh2 "python3 probe.py serve </dev/null >/dev/null 2>&1 &"
for _ in $(seq 500); do [ -e ready ] && break; sleep 0.01; done
[ "$("$A" fyh1 python3 probe.py connect fyh2 2>&1)" = fyh2 ] || bad "fyh1 cannot reach fyh2 by name (TCP, IPv4)"
[ "$("$A" fyh1 python3 probe.py connect fd77:$x::2 2>&1)" = fyh2 ] || bad "fyh1 cannot reach fyh2 over IPv6"
# The machine itself (where a launcher runs) reaches the hosts through the bridge's address.
[ "$(python3 probe.py connect 10.77.$x.2 2>&1)" = fyh2 ] || bad "the machine cannot reach fyh2"
"$A" fyh1 ip -4 route get 10.77.$x.254 | grep -q eth0 || bad "fyh1 has no route to the bridge"

# Private /dev/shm: a file made on one host is not on the other, nor on the machine.
"$A" fyh1 "echo one > /dev/shm/fy-hosts-test" || bad "cannot write /dev/shm on fyh1"
"$A" fyh1 "test -f /dev/shm/fy-hosts-test" || bad "fyh1 lost its /dev/shm file"
"$A" fyh2 "test ! -e /dev/shm/fy-hosts-test" || bad "fyh2 sees fyh1's /dev/shm"
[ ! -e /dev/shm/fy-hosts-test ] || bad "the machine sees fyh1's /dev/shm"

# PID space: a process of fyh1 is visible there and not on fyh2.
"$A" fyh1 "sleep 1000 </dev/null >/dev/null 2>&1 &"
sleep 0.2
"$A" fyh1 "pgrep -x sleep >/dev/null" || bad "fyh1 cannot see its own background process"
n2=$("$A" fyh2 "ps -e -o comm= | grep -c '^sleep\$'")
[ "$n2" = 1 ] || bad "fyh2 sees $n2 sleep processes, expected only its holder's"
# IPC: a System V segment of fyh1 is not on fyh2 (ipcmk is in util-linux).
if command -v ipcmk >/dev/null; then
    "$A" fyh1 "ipcmk -M 4096 >/dev/null" || bad "ipcmk on fyh1"
    "$A" fyh2 "ipcs -m | grep -q 0x" && bad "fyh2 sees fyh1's shared memory segment"
fi

# ssh-like command handling: a shell runs the words in our directory; the status comes back.
echo here >marker
[ "$("$A" fyh1 cat marker)" = here ] || bad "the command did not run in the caller's directory"
"$A" fyh2 "exit 7"
[ $? = 7 ] || bad "the command's exit status was not passed on"
"$A" nosuchhost true 2>err.txt
[ $? = 255 ] || bad "an unknown host did not give 255"
grep -q "nosuchhost: no such host" err.txt || bad "no message naming the unknown host"

# down: nothing left.
trap - EXIT
"$H/fy_hosts" down "$FY_HOSTS_DIR" || bad "fy_hosts down failed"
ip netns list | grep -q "^fy${id}h" && bad "a namespace is left"
ip link show "fyb$id" >/dev/null 2>&1 && bad "the bridge is left"
ls /etc/netns 2>/dev/null | grep -q "^fy${id}h" && bad "an /etc/netns entry is left"
sleep 0.1
pgrep -f "sleep 1000" >/dev/null && bad "a process of fyh1 outlived the cluster"
[ ! -d "$FY_HOSTS_DIR" ] || bad "the state directory is left"
[ $fail = 0 ] && echo "PASS cluster"
exit $fail
