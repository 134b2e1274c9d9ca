#!/usr/bin/env bash
# timeout: 120
# mpiexec inside a batch job, on test hosts: the allocation's variables (set by hand) name the
# hosts fyh1..fyh3 and mpiexec, given no host list, puts the ranks there by the allocation's
# slots, in host order: PBS_NODEFILE (fyh1 fyh1 fyh2), Slurm's node list and task counts
# (fyh[1-3], 1,2(x2)), PE_HOSTFILE, LSB_MCPU_HOSTS. Inside Slurm without -launcher-exec the
# proxies start through srun: here a stand-in that records its arguments and enters the host of
# --nodelist with fy_hosts_agent, its stdin (the secret) passed on to the proxy; a PMI exchange
# spans the hosts, and nothing is left. (mpiexec under a real Slurm: the tests of fy_slurm.)
. "$FY_SRC/tests/hosts/hosts.inc"
hosts_up 3
build_pmi_prog
for v in SLURM_JOB_ID SLURM_JOBID SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE \
    SLURM_JOB_CPUS_PER_NODE SLURM_STEP_ID SLURM_STEPID PBS_NODEFILE PE_HOSTFILE LSB_DJOB_HOSTFILE \
    LSB_MCPU_HOSTS; do
    unset "$v"
done

# erun NAME=VALUE... -- ARGS: run (mpiexec with the hosts' agent) with those variables set.
erun() {
    local vars=()
    while [ "$1" != -- ]; do
        vars+=("$1")
        shift
    done
    shift
    timeout -k 5 60 env "${vars[@]}" "$MPIEXEC" "$@" >"$T/out" 2>"$T/err" </dev/null
    RC=$?
}
where='echo "$PMI_RANK $(hostname) $FY_HOST_ID"'

printf 'fyh1\nfyh1\nfyh2\n' >"$T/pbs"
erun PBS_NODEFILE="$T/pbs" -- -launcher-exec "$AGENT" sh -c "$where"
expect_eq "PBS: status" 0 "$RC"
expect_eq "PBS: placement" "0 fyh1 0
1 fyh1 0
2 fyh2 1" "$(sort "$T/out")"
expect_eq "PBS: stderr" "" "$(cat "$T/err")"

erun SLURM_JOB_ID=9 SLURM_JOB_NODELIST='fyh[1-3]' SLURM_TASKS_PER_NODE='1,2(x2)' -- \
    -launcher-exec "$AGENT" sh -c "$where"
expect_eq "Slurm: status" 0 "$RC"
expect_eq "Slurm: placement" "0 fyh1 0
1 fyh2 1
2 fyh2 1
3 fyh3 2
4 fyh3 2" "$(sort "$T/out")"

printf 'fyh3 1 all.q@fyh3 UNDEFINED\nfyh2 2 all.q@fyh2 UNDEFINED\n' >"$T/pe"
erun PE_HOSTFILE="$T/pe" -- -launcher-exec "$AGENT" sh -c "$where"
expect_eq "Grid Engine: placement" "0 fyh3 0
1 fyh2 1
2 fyh2 1" "$(sort "$T/out")"
erun LSB_MCPU_HOSTS="fyh2 1 fyh1 1" -- -launcher-exec "$AGENT" -n 2 sh -c "$where"
expect_eq "LSF: placement" "0 fyh2 0
1 fyh1 1" "$(sort "$T/out")"
expect_clean "after the host-file jobs"

# Slurm's launcher: srun, here a stand-in that enters the host it is given.
mkdir -p "$T/bin"
cat >"$T/bin/srun" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$T/srun.args"
host=
while [ \$# -gt 0 ]; do
    case \$1 in
    --nodelist=*) host=\${1#--nodelist=} ;;
    --*) ;;
    *) break ;;
    esac
    shift
done
exec "$AGENT" "\$host" "\$@"
EOF
chmod +x "$T/bin/srun"
erun PATH="$T/bin:$PATH" SLURM_JOB_ID=9 SLURM_JOB_NODELIST='fyh[1-2]' SLURM_TASKS_PER_NODE='2(x2)' \
    -- sh -c "$where"
expect_eq "srun: status" 0 "$RC"
expect_eq "srun: placement" "0 fyh1 0
1 fyh1 0
2 fyh2 1
3 fyh2 1" "$(sort "$T/out")"
expect_eq "srun: stderr" "" "$(cat "$T/err")"
expect_eq "srun: one call per host" "--nodelist=fyh1
--nodelist=fyh2" "$(grep -o -- '--nodelist=[^ ]*' "$T/srun.args" | sort)"
erun PATH="$T/bin:$PATH" SLURM_JOB_ID=9 SLURM_JOB_NODELIST='fyh[1-3]' SLURM_TASKS_PER_NODE='2,1(x2)' \
    -- "$PMI_PROG" kvs
expect_eq "srun: KVS exchange status" 0 "$RC"
grep -qx "No Errors" "$T/out" || fail "srun: KVS exchange: $(cat "$T/out" "$T/err")"
expect_clean "after the srun jobs"
finish
