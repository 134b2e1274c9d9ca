#!/bin/bash
# timeout: 180
# The TCP transport between test hosts: by default over the network mpiexec reached each host on
# (FY_TCP_ADDR from the proxy), over IPv6 when FERRY_TCP_IF names the hosts' IPv6 network, over
# a named interface (eth0); a FERRY_TCP_IF no host has ends the job with the message naming it
# and the host's rank. cpi at 2 hosts x 2 ranks each time; nothing left on any host.
. "$FY_SRC/tests/hosts/hosts.inc"
hosts_up 2
"$FY_BUILD/bin/mpicc" -o "$T/cpi" "$FY_SRC/examples/cpi.c" -lm || fail "cannot build cpi.c"
for v in "" "fd77:$NET::/64" eth0 "10.77.$NET.0/24"; do
    if [ -n "$v" ]; then run -hosts fyh1:2,fyh2:2 -n 4 -genv FERRY_TCP_IF "$v" "$T/cpi"; else run -hosts fyh1:2,fyh2:2 -n 4 "$T/cpi"; fi
    expect_eq "cpi with FERRY_TCP_IF='$v'" 0 "$RC"
    grep -q "pi is approximately 3.14159" "$T/out" || fail "cpi with FERRY_TCP_IF='$v': $(cat "$T/out" "$T/err")"
done
run -hosts fyh1:2,fyh2:2 -n 4 -genv FERRY_TCP_IF nosuch0 "$T/cpi"
[ "$RC" != 0 ] || fail "FERRY_TCP_IF=nosuch0: status 0"
grep -q "FERRY_TCP_IF='nosuch0'" "$T/err" || fail "FERRY_TCP_IF=nosuch0: $(cat "$T/err")"
expect_clean "at the end"
finish
