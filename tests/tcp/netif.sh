#!/bin/sh
# timeout: 120
# FERRY_TCP_IF chooses the network the TCP transport listens on (FERRY_NETMOD=tcp, one host):
# an interface name (lo) or a CIDR, IPv4 (127.0.0.0/8) or IPv6 (::1/128), all move the right
# data; a name no interface has, a network no address is in, and text that is neither each end
# the job at once with one message naming the value, and a non-zero status.
. "$FY_SRC/tests/launcher/lib.inc"
"$FY_BUILD/bin/mpicc" -o "$T/cpi" "$FY_SRC/examples/cpi.c" -lm || fail "cannot build cpi.c"
for v in lo 127.0.0.0/8 ::1/128; do
    FERRY_NETMOD=tcp FERRY_TCP_IF=$v run -n 3 "$T/cpi"
    expect_eq "status with FERRY_TCP_IF=$v" 0 "$RC"
    grep -q "pi is approximately 3.14159" "$T/out" || fail "cpi with FERRY_TCP_IF=$v: $(cat "$T/out" "$T/err")"
done
for c in "nosuch0:this host has no such interface" "10.250.0.0/16:no interface of this host has an address in that network" \
    "garbage/99:is not an interface name or a CIDR"; do
    v=${c%%:*} why=${c#*:}
    FERRY_NETMOD=tcp FERRY_TCP_IF=$v run -n 2 "$T/cpi"
    [ "$RC" != 0 ] || fail "FERRY_TCP_IF=$v: status 0"
    grep -q "MPI_Init: FERRY_TCP_IF='$v'.*$why" "$T/err" || fail "FERRY_TCP_IF=$v: message $(cat "$T/err")"
done
finish
