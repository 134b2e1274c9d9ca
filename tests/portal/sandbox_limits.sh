#!/bin/bash
# timeout: 240
# The sandbox's limits (root: a uid of the pool, cgroups; else skipped): a fork bomb is
# contained by the pids limit (the job ends `killed` naming the process limit, or the memory
# limit when the bomb's kernel memory reaches it first), a memory
# hog by the memory limit (`killed`, the message says memory), an endless loop is killed at
# its time limit (`timeout`), a file past RLIMIT_FSIZE ends the job `killed` naming the
# file-size limit (Ferry's shared memory of a few ranks needs tens of MB: RLIMIT_FSIZE
# counts its segments too, so the test's limit is 32 MB). After each: no live process of the job's uids, no cgroup of the job
# left, the host still runs programs.
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (uid switch and cgroups)"; exit 77; }
exec python3 - <<'PY'
import glob, os, subprocess, sys
sys.path.insert(0, os.path.join(os.environ["FY_SRC"], "tests", "portal"))
from runner_driver import *
from ferry_portal.sandbox import UidPool

PROBE = read_source("tests/portal/sandbox_probe.c")
UIDS = range(61700, 61704)     # this test's own pool: other tests' jobs use others

def clean(what, jid):
    left = [u for u in UIDS if UidPool.has_processes(u)]
    check(not left, f"{what}: no process of the pool's uids left", left)
    cgs = glob.glob(f"/sys/fs/cgroup/*/ferry-portal/job-{jid}") + \
          glob.glob(f"/sys/fs/cgroup/ferry-portal/job-{jid}")
    check(not cgs, f"{what}: the job's cgroups are gone", cgs)
    check(subprocess.run(["true"]).returncode == 0, f"{what}: the host still runs programs")

async def main(m):
    check(m.cg_mode in ("v1", "v2"), f"cgroups in use: {m.cg_mode}")
    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=2, time_limit=120, args=["fork"]),
                                        source_text=PROBE))
    # Each process of the bomb costs kernel memory too: under a 64 MiB limit the memory limit
    # may be reached before the 64th process; either way a limit of the job stopped it.
    check(rec["state"] == "killed" and ("process limit" in rec["message"] or
                                        "memory limit" in rec["message"]),
          f"fork bomb: killed at a limit of the job ({rec['message']})", rec)
    check(rec["finished"] - rec["started"] < 60, "fork bomb: ended well before its time limit")
    clean("fork bomb", rec["id"])

    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=2, time_limit=60, args=["hog"]),
                                        source_text=PROBE))
    check(rec["state"] == "killed" and "memory" in rec["message"],
          "memory hog: killed, the message says memory", rec)
    clean("memory hog", rec["id"])

    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=2, time_limit=3, args=["loop"]),
                                        source_text=PROBE))
    check(rec["state"] == "timeout" and "3 s" in rec["message"],
          "endless loop: killed at its time limit", rec)
    check(rec["finished"] - rec["started"] < 3 + 10, "ended soon after the limit",
          rec["finished"] - rec["started"])
    clean("endless loop", rec["id"])

    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=1, args=["write", str(64 << 20)]),
                                        source_text=PROBE))
    check(rec["state"] == "killed" and "file size" in rec["message"],
          "a file past the file-size limit: killed, the message says so", rec)
    big = [f for f in rec["files"] if f["path"] == "big.out"]
    check(big and big[0]["size"] <= 32 << 20, "the file stopped at the limit", big)
    clean("file size", rec["id"])

run(main, sandbox={"uid_base": 61700, "uid_count": 4, "pids": 64, "memory": 64 << 20,
                   "file_size": 32 << 20})
PY
