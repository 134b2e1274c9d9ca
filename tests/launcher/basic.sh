#!/bin/sh
# timeout: 60
# -n/-np, the PMI environment, the default of one rank, --help/--version, mpirun, ignored flags.
. "$FY_SRC/tests/launcher/lib.inc"
build_pmi_prog

run -n 4 "$PMI_PROG" info
expect_eq "status of -n 4" 0 "$RC"
expect_eq "ranks of -n 4" "0 1 2 3" "$(awk '{print $2}' "$T/out" | sort -n | tr '\n' ' ' | sed 's/ $//')"
expect_eq "sizes of -n 4" "4" "$(awk '{print $4}' "$T/out" | sort -u)"
expect_eq "singleton flags" "0" "$(awk '{print $8}' "$T/out" | sort -u)"
expect_eq "one kvsname for the job" 1 "$(awk '{print $10}' "$T/out" | sort -u | wc -l)"
awk '{print $10}' "$T/out" | grep -qvE '^[A-Za-z0-9_-]+$' && fail "kvsname not file-name safe"
kvs1=$(awk '{print $10}' "$T/out" | sort -u)

run -np 3 hostname
expect_eq "status of -np 3 hostname" 0 "$RC"
expect_eq "lines of -np 3 hostname" 3 "$(grep -cx "$(hostname)" "$T/out")"

run "$PMI_PROG" info
expect_eq "default rank count" "rank 0 size 1" "$(cut -d' ' -f1-4 "$T/out")"
kvs2=$(awk '{print $10}' "$T/out")
[ "$kvs1" != "$kvs2" ] || fail "two jobs got the same kvsname $kvs1"

run -n 2 sh -c 'echo "$PMI_RANK $PMI_SIZE $PMI_SPAWNED ${PMI_FD:+fd}"'
expect_eq "PMI environment" "0 2 0 fd
1 2 0 fd" "$(sort "$T/out")"

# MPMD: programs separated by ':' share one job; each has its own appnum, -n and -env.
run -n 2 "$PMI_PROG" info : -n 1 -env FY_T_LOCAL here sh -c 'echo "sh $PMI_RANK ${FY_T_LOCAL-}"' \
    : "$PMI_PROG" info
expect_eq "status of MPMD" 0 "$RC"
expect_eq "MPMD ranks and appnums" "rank 0 size 4 appnum 0
rank 1 size 4 appnum 0
rank 3 size 4 appnum 2
sh 2 here" "$(cut -d' ' -f1-6 "$T/out" | sort)"
run -n 2 true :
expect_eq "status of a trailing ':'" 1 "$RC"

# More ranks than the descriptor limit would allow at four descriptors per rank; the ranks
# still see the limit we were given.
out=$(sh -c 'ulimit -Sn 128 && exec "$0" -n 60 sh -c "ulimit -n"' "$MPIEXEC" 2>&1 | sort | uniq -c)
expect_eq "60 ranks under a limit of 128 descriptors" "60 128" "$(echo $out)"

run --help
expect_eq "status of --help" 0 "$RC"
grep -q -- "-genvnone" "$T/out" || fail "--help does not describe the options"
run --version
expect_eq "status of --version" 0 "$RC"
grep -q "Ferry" "$T/out" || fail "--version does not name Ferry"

[ -x "$FY_BUILD/bin/mpirun" ] || fail "no mpirun next to mpiexec"
timeout 30 "$FY_BUILD/bin/mpirun" -np 2 true || fail "mpirun -np 2 true failed"

run --oversubscribe --allow-run-as-root -bind-to core --bind-to none -ppn 2 --map-by slot \
    -n 2 true
expect_eq "status with ignored flags" 0 "$RC"
run --np=2 true
expect_eq "status of --np=2" 0 "$RC"

run --no-such-option -n 2 true
expect_eq "status of an unknown option" 1 "$RC"
grep -q "unknown option" "$T/err" || fail "no message for an unknown option"
run -n 2 /no/such/program
[ "$RC" -ne 0 ] || fail "a missing program gave status 0"
expect_eq "lines about a missing program" 1 "$(wc -l <"$T/err")"
finish
