#!/bin/bash
# timeout: 240
# The `hosts` backend on test hosts (tests/hosts/fy_hosts: network namespaces; root, else
# skipped): jobs on 2 hosts x 2 ranks through mpiexec -hosts with fy_hosts_agent as the
# launcher's agent. Each rank runs in its own sandbox on its host, as the job's uid of the
# pool, with /home and the portal's state dir out of sight; arguments with shell syntax reach
# the ranks as they are (no shell on the way, whatever the agent does); the ranks are on both
# hosts; cpi's π line comes back; nothing of the job's uid is left afterwards.
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (test hosts are network namespaces)"; exit 77; }
for t in ip unshare nsenter prlimit; do
    command -v $t >/dev/null || { echo "SKIP: $t is missing"; exit 77; }
done
export FY_HOSTS_DIR=$PWD/cluster
"$FY_SRC/tests/hosts/fy_hosts" up 2 "$FY_HOSTS_DIR" || { echo "FAIL: fy_hosts up"; exit 1; }
trap '"$FY_SRC/tests/hosts/fy_hosts" down "$FY_HOSTS_DIR"' EXIT
trap 'exit 1' INT TERM
python3 - <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["FY_SRC"], "tests", "portal"))
from runner_driver import *
from ferry_portal.sandbox import UidPool

WHO = read_source("tests/portal/sandbox_who.c")
UIDS = range(61720, 61724)

async def main(m):
    mark = os.path.join(os.getcwd(), "injected")
    tricky = [f"; touch {mark}", f"$(touch {mark})", f"`touch {mark}`", "a b", "'q'"]
    rec, evs = await finish(m, m.submit(1, JobSpec(backend="hosts", ranks=4, hosts=["fyh1", "fyh2"],
                                                   args=[str(m.state_dir), *tricky]),
                                        source_text=WHO))
    args = [e["text"] for e in evs if e["type"] == "out" and e["rank"] == 0 and " arg " in e["text"]]
    check(args == [f"rank 0 arg {i + 2} [{a}]" for i, a in enumerate(tricky)] and
          not os.path.exists(mark), "arguments reach the ranks as they are, no shell", args)
    lines = sorted(e["text"] for e in evs if e["type"] == "out" and e["rank"] >= 0
                   and " arg " not in e["text"])
    check(rec["state"] == "done" and len(lines) == 4, "4 ranks across the hosts ran", [rec, evs[-8:]])
    hosts = {l.split()[3] for l in lines}
    check(hosts == {"fyh1", "fyh2"}, "ranks on both hosts", lines)
    check(all(int(l.split()[5]) in UIDS for l in lines), "ranks run as a uid of the pool", lines)
    check(all("home absent state absent" in l for l in lines), "no /home, no state dir", lines)
    rec, evs = await finish(m, m.submit(1, JobSpec(backend="hosts", ranks=4), source_text=CPI))
    check(rec["state"] == "done" and any("pi is approximately" in e["text"] for e in evs
                                         if e["type"] == "out"), "cpi across the hosts", rec)
    check(not any(UidPool.has_processes(u) for u in UIDS), "nothing of the job's uid left")

run(main, sandbox={"uid_base": 61720, "uid_count": 4},
    hosts={"names": ["fyh1", "fyh2"],
           "launcher_exec": os.path.join(os.environ["FY_SRC"], "tests/hosts/fy_hosts_agent")})
PY
