#!/bin/sh
# timeout: 90
# mpiexec inside a batch job (tools/mpiexec/alloc.c), with the batch systems' variables set by
# hand: without -hosts/-f the hosts and slots are the allocation's (Slurm's compressed node list
# and task counts, PBS_NODEFILE, PE_HOSTFILE, LSB_DJOB_HOSTFILE, LSB_MCPU_HOSTS), -n defaults to
# all the slots, an explicit host list wins, Slurm comes before PBS, Grid Engine and LSF, more
# ranks than slots needs --oversubscribe, and a malformed value ends mpiexec naming the variable.
# Placement is seen through --display-map (names of this machine run, others fail at their
# agent). Inside Slurm the proxies start through srun (a stand-in here that records how it was
# called and what came on its stdin: the secret, never in its arguments); -launcher ssh still
# uses ssh, and -launcher slurm -launcher-exec PATH that srun. tests/hosts/alloc.sh runs ranks on
# test hosts this way.
. "$FY_SRC/tests/launcher/lib.inc"
for v in SLURM_JOB_ID SLURM_JOBID SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE \
    SLURM_JOB_CPUS_PER_NODE SLURM_STEP_ID SLURM_STEPID PBS_NODEFILE PE_HOSTFILE LSB_DJOB_HOSTFILE \
    LSB_MCPU_HOSTS; do
    unset "$v"
done
export FERRY_TCP_IF=lo
ME=$(hostname)
printf '#!/bin/sh\necho "noagent: $1: unknown host" >&2\nexit 255\n' >"$T/noagent"
chmod +x "$T/noagent"
# erun NAME=VALUE... "$M" ARGS: as run, with those variables set for mpiexec only (in sh, a
# function's prefix assignments may outlive the call).
M=$MPIEXEC
erun() {
    timeout -k 5 60 env "$@" >"$T/out" 2>"$T/err" </dev/null
    RC=$?
}
# The map: "rank R on HOST" lines on stderr, one per rank.
map() { grep -o 'rank [0-9]* on [^ ]*' "$T/err" | awk '{ printf "%s%s", sep, $4; sep = "," }'; }

# Outside any allocation: this machine, as before.
run -n 2 --display-map true
expect_eq "no allocation: status" 0 "$RC"
expect_eq "no allocation: map" "localhost,localhost" "$(map)"

# PBS: a line per slot; -n defaults to them all.
printf 'localhost\nlocalhost\n%s\n' "$ME" >"$T/pbs"
erun PBS_NODEFILE=$T/pbs "$M" --display-map sh -c 'echo $PMI_RANK/$PMI_SIZE'
expect_eq "PBS: status" 0 "$RC"
expect_eq "PBS: ranks" "0/3 1/3 2/3" "$(sort "$T/out" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "PBS: map" "localhost,localhost,$ME" "$(map)"
grep -q "the hosts of the PBS allocation" "$T/err" || fail "PBS: --display-map does not name the allocation: $(cat "$T/err")"
erun PBS_NODEFILE=$T/pbs "$M" -n 2 hostname
expect_eq "PBS: -n 2 of 3 slots" 2 "$(wc -l <"$T/out")"

# Slurm: ranges, padding, counts (a1:2 a2:1 b08:1 b09:1); remote names fail at the agent.
export SLURM_JOB_ID=77 SLURM_JOB_NODELIST='a[1-2],b[08-09]' SLURM_TASKS_PER_NODE='2,1(x3)'
run -launcher-exec "$T/noagent" --display-map true
expect_eq "Slurm: map" "a1,a1,a2,b08,b09" "$(map)"
expect_eq "Slurm: status with unknown hosts" 1 "$RC"
grep -qE "host (a1|a2|b08|b09): cannot start the proxy" "$T/err" || fail "Slurm: no line naming a host: $(cat "$T/err")"
run -launcher-exec "$T/noagent" --display-map -rr -n 4 true
expect_eq "Slurm: -rr" "a1,a2,b08,b09" "$(map)"
run -launcher-exec "$T/noagent" --display-map -n 6 true
expect_eq "Slurm: more ranks than slots: status" 1 "$RC"
grep -qx "mpiexec: 6 ranks, but the Slurm allocation has 5 slots: give fewer ranks (-n), or add --oversubscribe" "$T/err" || fail "Slurm: oversubscription message: $(cat "$T/err")"
run -launcher-exec "$T/noagent" --display-map -n 6 --oversubscribe true
expect_eq "Slurm: --oversubscribe" "a1,a1,a2,b08,b09,a1" "$(map)"
# The older names; SLURM_JOB_NODELIST first.
erun SLURM_JOB_ID= SLURM_JOBID=77 SLURM_JOB_NODELIST= SLURM_NODELIST="$ME" SLURM_TASKS_PER_NODE=2 \
    "$M" hostname
expect_eq "Slurm, older names: status" 0 "$RC"
expect_eq "Slurm, older names: ranks" 2 "$(wc -l <"$T/out")"

# An explicit host list wins over the allocation.
run -hosts localhost:3 hostname
expect_eq "-hosts in Slurm: status" 0 "$RC"
expect_eq "-hosts in Slurm: ranks" 3 "$(wc -l <"$T/out")"
printf 'localhost slots=1\n' >"$T/hostfile"
run -f "$T/hostfile" hostname
expect_eq "-f in Slurm: ranks" 1 "$(wc -l <"$T/out")"

# Slurm before PBS, Grid Engine and LSF.
erun SLURM_JOB_NODELIST=localhost SLURM_TASKS_PER_NODE=4 PBS_NODEFILE=$T/pbs "$M" \
    --display-map true
expect_eq "Slurm before PBS" "localhost,localhost,localhost,localhost" "$(map)"
unset SLURM_JOB_ID SLURM_JOB_NODELIST SLURM_TASKS_PER_NODE
printf 'localhost 2 all.q@localhost UNDEFINED\n' >"$T/pe"
printf '%s\n%s\n' "$ME" "$ME" >"$T/lsf"
erun PBS_NODEFILE=$T/pbs PE_HOSTFILE=$T/pe "$M" --display-map true
expect_eq "PBS before Grid Engine" "localhost,localhost,$ME" "$(map)"
erun PE_HOSTFILE=$T/pe LSB_DJOB_HOSTFILE=$T/lsf "$M" --display-map true
expect_eq "Grid Engine" "localhost,localhost" "$(map)"
erun LSB_DJOB_HOSTFILE=$T/lsf "LSB_MCPU_HOSTS=localhost 1" "$M" --display-map true
expect_eq "LSF host file before LSB_MCPU_HOSTS" "$ME,$ME" "$(map)"
erun "LSB_MCPU_HOSTS=localhost 1 $ME 2" "$M" --display-map hostname
expect_eq "LSB_MCPU_HOSTS" "localhost,$ME,$ME" "$(map)"
expect_eq "LSB_MCPU_HOSTS: status" 0 "$RC"

# Malformed values: one line naming the variable and its value, status 1, nothing run.
bad() {
    expect_eq "$1: status" 1 "$RC"
    grep -qF "$2" "$T/err" || fail "$1: expected '$2' in: $(cat "$T/err")"
    [ -s "$T/out" ] && fail "$1: something ran"
    expect_eq "$1: one line" 1 "$(wc -l <"$T/err")"
}
erun SLURM_JOB_ID=1 SLURM_JOB_NODELIST='node[1-' "$M" hostname
bad "unclosed bracket" "malformed SLURM_JOB_NODELIST 'node[1-': '[' without ']'"
erun SLURM_JOB_ID=1 SLURM_JOB_NODELIST='node[3-1]' "$M" hostname
bad "backward range" "SLURM_JOB_NODELIST 'node[3-1]'"
erun SLURM_JOB_ID=1 SLURM_JOB_NODELIST='node[1-3]' SLURM_TASKS_PER_NODE='2(x2)' "$M" hostname
bad "too few counts" "SLURM_TASKS_PER_NODE '2(x2)' gives counts for 2 hosts, but the node list names 3"
erun SLURM_JOB_ID=1 SLURM_JOB_NODELIST='node1' SLURM_TASKS_PER_NODE='two' "$M" hostname
bad "not a count" "malformed SLURM_TASKS_PER_NODE 'two'"
erun PBS_NODEFILE=$T/missing "$M" hostname
bad "missing PBS_NODEFILE" "PBS_NODEFILE='$T/missing'"
printf 'localhost zero q p\n' >"$T/pe_bad"
erun PE_HOSTFILE=$T/pe_bad "$M" hostname
bad "bad PE_HOSTFILE" "PE_HOSTFILE='$T/pe_bad', line 1"
erun "LSB_MCPU_HOSTS=localhost" "$M" hostname
bad "bad LSB_MCPU_HOSTS" "malformed LSB_MCPU_HOSTS 'localhost'"

# Inside Slurm the proxies start through srun: a stand-in records its arguments and stdin.
mkdir "$T/bin"
cat >"$T/bin/srun" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$T/srun.args"
cat >>"$T/srun.stdin"
echo "srun: error: stand-in, no cluster" >&2
exit 1
EOF
cat >"$T/bin/ssh" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$T/ssh.args"
cat >/dev/null
echo "ssh: stand-in" >&2
exit 255
EOF
chmod +x "$T/bin/srun" "$T/bin/ssh"
export SLURM_JOB_ID=77 SLURM_JOB_NODELIST="$ME,far1" SLURM_TASKS_PER_NODE='1(x2)'
erun PATH=$T/bin:$PATH "$M" hostname
expect_eq "srun: status" 1 "$RC"
grep -q "host far1: cannot start the proxy: '$T/bin/srun' exited with status 1 before the proxy connected: srun: error: stand-in, no cluster" "$T/err" ||
    fail "srun: the failure line: $(cat "$T/err")"
expect_eq "srun: one call (this machine's proxy is forked)" 1 "$(wc -l <"$T/srun.args")"
args=$(cat "$T/srun.args")
for w in --nodes=1 --ntasks=1 --nodelist=far1 --overlap --mpi=none --kill-on-bad-exit=1 \
    --input=0 "$FY_BUILD/bin/ferry-proxy --connect" "--index 1 --all-cpus"; do
    case " $args " in *" $w "*) ;; *) fail "srun: '$w' not in its arguments: $args" ;; esac
done
grep -qE '^[0-9a-f]{64}$' "$T/srun.stdin" || fail "srun: no secret on its stdin: $(cat "$T/srun.stdin")"
grep -qF "$(cat "$T/srun.stdin")" "$T/srun.args" && fail "srun: the secret is in its arguments"
# -launcher ssh in Slurm: ssh, called as ssh.
erun PATH=$T/bin:$PATH "$M" -launcher ssh hostname
expect_eq "-launcher ssh in Slurm: status" 1 "$RC"
case $(cat "$T/ssh.args" 2>/dev/null) in
far1\ *ferry-proxy\ --connect*) ;;
*) fail "-launcher ssh in Slurm: ssh's arguments: $(cat "$T/ssh.args" 2>/dev/null)" ;;
esac
# -launcher slurm -launcher-exec PATH: that srun, also with hosts of our own (as -bootstrap).
rm -f "$T/srun.args"
cp "$T/bin/srun" "$T/mysrun"
run -bootstrap slurm -bootstrap-exec "$T/mysrun" -hosts far2 hostname
expect_eq "-launcher slurm -launcher-exec: status" 1 "$RC"
grep -q -- "--nodelist=far2 " "$T/srun.args" || fail "-launcher slurm -launcher-exec: $(cat "$T/srun.args" 2>/dev/null)"
# Outside any Slurm job, -launcher slurm is refused (srun would make allocations of its own).
unset SLURM_JOB_ID SLURM_JOB_NODELIST SLURM_TASKS_PER_NODE
rm -f "$T/srun.args"
run -launcher slurm -launcher-exec "$T/mysrun" -hosts far2 hostname
expect_eq "-launcher slurm outside Slurm: status" 1 "$RC"
grep -q "^mpiexec: -launcher slurm starts the proxies as steps of the Slurm job we run in, and there is none" "$T/err" ||
    fail "-launcher slurm outside Slurm: $(cat "$T/err")"
[ -e "$T/srun.args" ] && fail "-launcher slurm outside Slurm: srun was called"
run -launcher slurm -hosts localhost -n 1 true
expect_eq "-launcher slurm outside Slurm, this machine only: status" 0 "$RC"
run -launcher bogus hostname
expect_eq "-launcher bogus: status" 1 "$RC"
grep -q "ssh, rsh, slurm or fork" "$T/err" || fail "-launcher bogus: $(cat "$T/err")"
finish
