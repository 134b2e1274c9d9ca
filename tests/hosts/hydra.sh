#!/bin/bash
# timeout: 600
# Differential runs across the test hosts (issue 12): programs of tests/diff/src built with MPICH
# and run by MPICH's own launcher (mpiexec.hydra with the hosts' agent, -iface the bridge, UCX on
# TCP) print exactly what the same programs built with Ferry print under Ferry's mpiexec on the
# same hosts, at 2 hosts x 2 ranks and 4 x 1; and a Ferry program runs under Hydra across hosts
# too (PMI-1 over Hydra's proxies: host ids from PMI_process_mapping, the TCP secret through the
# key-value space), with the same output. Nothing is left on any host. Needs root and MPICH.
# Debian's MPICH 4.0 over UCX's TCP hangs in MPI_Finalize across these hosts in most runs (its
# output is complete by then): its run is cut once its output is as long as MPICH's own run on
# one host (at the latest after 30 s), and that output used; if it never gets that long, the
# one-host run is the reference (said so).
. "$FY_SRC/tests/hosts/hosts.inc"
command -v mpiexec.mpich >/dev/null && command -v mpicc.mpich >/dev/null ||
    { echo "SKIP: MPICH (mpich package) is not installed"; exit 0; }
hosts_up 4
HYDRA=(mpiexec.mpich -launcher ssh -launcher-exec "$AGENT" -iface "$BRIDGE")
MPICH_ENV=(env -u LD_LIBRARY_PATH -u LD_PRELOAD UCX_TLS=tcp,self UCX_NET_DEVICES=eth0)
FERRY_ENV=(env "LD_LIBRARY_PATH=$FY_BUILD/lib")
# Hydra's banner for a job it had to kill (our 30 s cut): not the program's output.
strip_banner() {
    awk '/^====================/ { exit } /^$/ { blank++; next } { while (blank) { print ""; blank-- } print }' \
        "$1" >"$1.tmp"
    mv "$1.tmp" "$1"
}
addr() { # the hosts of a placement as Hydra takes them: addresses (the machine has no names)
    local out="" k
    for k in $(seq "$2"); do out="$out${out:+,}10.77.$NET.$k:$1"; done
    echo "$out"
}
# MPICH's program under Hydra, output in OUT and ERR: stopped (as the 30 s cut would) as soon
# as OUT holds the LINES of MPICH's one-host run, since what follows is the Finalize hang above;
# the 30 s stay the hang guard. Status: Hydra's, or timeout's for a stopped run.
hydra_mpich() { # OUT ERR LINES hydra-args...
    local out=$1 err=$2 want=$3 pid
    shift 3
    timeout -k 5 30 "${MPICH_ENV[@]}" "${HYDRA[@]}" "$@" >"$out" 2>"$err" </dev/null &
    pid=$!
    while kill -0 $pid 2>/dev/null; do
        if [ "$(wc -l <"$out")" -ge "$want" ]; then
            kill -TERM $pid 2>/dev/null
            break
        fi
        sleep 0.1
    done
    wait $pid
}
for prog in cpi ring coll probe_order; do
    src=$FY_SRC/tests/diff/src/$prog.c
    mpicc.mpich -O1 -o "$T/$prog.mpich" "$src" -lm || { fail "$prog: MPICH cannot build it"; continue; }
    "$FY_BUILD/bin/mpicc" -O1 -o "$T/$prog.ferry" "$src" -lm || { fail "$prog: Ferry cannot build it"; continue; }
    for pl in "2 2" "1 4"; do
        set -- $pl
        ppn=$1 nh=$2
        if [ ! -e "$T/$prog.ref" ]; then # MPICH on this machine alone: the fallback reference
            timeout -k 5 60 env -u LD_LIBRARY_PATH -u LD_PRELOAD mpiexec.mpich -n 4 "$T/$prog.mpich" \
                >"$T/$prog.ref" 2>"$T/$prog.ref.err" </dev/null || { fail "$prog: MPICH on one host failed"; continue; }
        fi
        hydra_mpich "$T/$prog.m.out" "$T/$prog.m.err" "$(wc -l <"$T/$prog.ref")" \
            -hosts "$(addr "$ppn" "$nh")" -n 4 "$T/$prog.mpich"
        rc=$?
        strip_banner "$T/$prog.m.out"
        if [ $rc != 0 ] && [ "$(wc -l <"$T/$prog.m.out")" != "$(wc -l <"$T/$prog.ref")" ]; then
            echo "NOTE: $prog ${nh}x$ppn: MPICH under Hydra exited $rc with incomplete output;" \
                "MPICH's one-host output is the reference"
            cp "$T/$prog.ref" "$T/$prog.m.out"
        fi
        spec=$(addr "$ppn" "$nh" | sed "s/10\.77\.$NET\./fyh/g")
        run -hosts "$spec" -n 4 "$T/$prog.ferry"
        cp "$T/out" "$T/$prog.f.out"
        [ "$RC" = 0 ] || { fail "$prog ${nh}x$ppn: Ferry exited $RC: $(tail -3 "$T/err")"; continue; }
        diff -u "$T/$prog.m.out" "$T/$prog.f.out" >"$T/$prog.diff" ||
            fail "$prog ${nh}x$ppn: outputs differ (- MPICH, + Ferry): $(head -20 "$T/$prog.diff")"
        # The Ferry program under Hydra's launcher and proxies.
        timeout -k 5 60 "${FERRY_ENV[@]}" "${HYDRA[@]}" -hosts "$(addr "$ppn" "$nh")" -n 4 \
            "$T/$prog.ferry" >"$T/$prog.h.out" 2>"$T/$prog.h.err" </dev/null
        rc=$?
        [ $rc = 0 ] || { fail "$prog ${nh}x$ppn: Ferry under Hydra exited $rc: $(tail -3 "$T/$prog.h.err")"; continue; }
        diff -u "$T/$prog.m.out" "$T/$prog.h.out" >"$T/$prog.hdiff" ||
            fail "$prog ${nh}x$ppn: Ferry under Hydra differs (- MPICH, + Ferry): $(head -20 "$T/$prog.hdiff")"
        echo "$prog ${nh} hosts x $ppn: $(wc -l <"$T/$prog.f.out") lines identical (MPICH, Ferry, Ferry under Hydra)"
    done
done
expect_clean "after the differential runs"
finish
