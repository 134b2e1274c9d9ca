#!/bin/bash
# timeout: 300
# The `slurm` backend on a real Slurm of 2 test hosts (tests/hosts/fy_slurm; root and Slurm,
# else skipped): a job submitted through JobManager goes through sbatch; its 4 ranks run in
# their sandboxes as a uid of the pool, on the nodes Slurm chose; their output comes back
# per rank from the batch output file; a failing program ends `failed` with its status; a
# job cancelled while it runs is scancel'ed (state cancelled, gone from squeue); nothing is
# left on the nodes.
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (test hosts are network namespaces)"; exit 77; }
PATH=$PATH:/usr/sbin:/sbin
for t in ip unshare nsenter prlimit munged slurmctld slurmd sbatch squeue scancel scontrol; do
    command -v $t >/dev/null || { echo "SKIP: $t is missing (scripts/install-deps.sh test)"; exit 77; }
done
. "$FY_SRC/tests/slurm/slurm.inc"
slurm_up 2
python3 - <<'PY'
import asyncio, os, subprocess, sys
sys.path.insert(0, os.path.join(os.environ["FY_SRC"], "tests", "portal"))
from runner_driver import *
from ferry_portal.sandbox import UidPool

WHO = read_source("tests/portal/sandbox_who.c")
UIDS = range(61730, 61734)

async def main(m):
    rec, evs = await finish(m, m.submit(1, JobSpec(backend="slurm", ranks=4), source_text=WHO))
    lines = sorted(e["text"] for e in evs if e["type"] == "out" and e["rank"] >= 0)
    check(rec["state"] == "done" and len(lines) == 4, "4 ranks through sbatch", [rec, evs[-8:]])
    check({l.split()[3] for l in lines} <= {"fyh1", "fyh2"}, "on the cluster's nodes (Slurm's choice)",
          lines)
    check(all(int(l.split()[5]) in UIDS and l.endswith("home absent") for l in lines),
          "ranks in their sandboxes, as a uid of the pool", lines)
    rec, evs = await finish(m, m.submit(1, JobSpec(backend="slurm", ranks=2, args=["f"]),
                                        source_text=WHO))
    check(rec["state"] == "failed" and rec["exit_code"] == 3, "a failing job: failed, status 3",
          rec)
    jid = m.submit(1, JobSpec(backend="slurm", ranks=2, args=["s"]), source_text=WHO)
    async def follow():
        async for ev in m.events(jid):
            if ev["type"] == "out" and ev["text"].startswith("rank 0"):
                m.cancel(jid)
    await asyncio.wait_for(follow(), 120)
    rec = m.get(jid)
    check(rec["state"] == "cancelled", "cancelled while it runs", rec)
    q = subprocess.run(["squeue", "-h", "-n", f"ferry-portal-{jid}"], capture_output=True,
                       text=True).stdout.strip()
    check(q == "", "the Slurm job is gone", q)

run(main, state=None, sandbox={"uid_base": 61730, "uid_count": 4}, slurm={"enabled": True})
PY
rc=$?
expect_clean "after the portal's Slurm jobs"
[ $rc = 0 ] && finish
exit 1
