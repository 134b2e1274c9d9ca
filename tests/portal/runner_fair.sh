#!/bin/bash
# timeout: 180
# The fair order (tools/portal/ferry_portal/fairq.py): round-robin over the users with
# waiting jobs, oldest first within a user. First the queue alone (no processes), then
# JobManager with one job running at a time: user 1 submits 3 jobs, user 2 two, user 3
# one, all before any starts; they start 1a 2a 3a 1b 2b 1c, and the waiting ones show
# their positions in that order. Then the restart: a portal stopped with jobs queued
# queues them again, and a job left `running` in the database becomes `error`.
exec python3 - <<'PY'
import asyncio, os, sys, sqlite3
sys.path.insert(0, os.path.join(os.environ["FY_SRC"], "tests", "portal"))
from runner_driver import *
from ferry_portal.fairq import FairQueue

q = FairQueue()
for u, j in (("a", 1), ("a", 2), ("a", 3), ("b", 4), ("c", 5), ("c", 6)):
    q.push(u, j)
check(q.order() == [1, 4, 5, 2, 6, 3], "fair order of the queue", q.order())
check(q.pick(lambda u: u != "a") == 4, "a user at their limit is skipped")
check(q.pick() == 1 and q.pick() == 5, "skipped user keeps the turn")
check(q.remove(6) and not q.remove(6) and q.order() == [2, 3], "remove", q.order())

HELLO = r'''
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    printf("job %s\n", argc > 1 ? argv[1] : "?");
    MPI_Finalize();
    return 0;
}
'''

async def fair(m):
    ids = {}
    for user, tag in ((1, "1a"), (1, "1b"), (1, "1c"), (2, "2a"), (2, "2b"), (3, "3a")):
        ids[tag] = m.submit(user, JobSpec(ranks=1, args=[tag]), source_text=HELLO)
    pos = {tag: m.get(j)["position"] for tag, j in ids.items()}
    check(pos == {"1a": 1, "2a": 2, "3a": 3, "1b": 4, "2b": 5, "1c": 6}, "positions", pos)
    snap = m.queue_snapshot()
    check([s["id"] for s in snap] == [ids[t] for t in ("1a", "2a", "3a", "1b", "2b", "1c")],
          "the admin's queue snapshot in the same order")
    recs = {}
    for tag, j in ids.items():
        recs[tag], _ = await finish(m, j)
    order = sorted(recs, key=lambda t: recs[t]["started"])
    check(order == ["1a", "2a", "3a", "1b", "2b", "1c"], "started in fair order", order)
    check(all(r["state"] == "done" for r in recs.values()), "all done")

run(fair, limits={"running_jobs": 1})

# Restart recovery on one state directory.
import tempfile, shutil
state = tempfile.mkdtemp(prefix="fy-portal-")
os.chmod(state, 0o711)
try:
    kept = {}
    async def before(m):
        # running_jobs=1 and a long first job: the others stay queued when we stop.
        kept["long"] = m.submit(1, JobSpec(ranks=1, time_limit=100, args=["x"]),
                                source_text=HELLO.replace('printf("job', 'sleep(100); printf("job')
                                .replace("<stdio.h>", "<stdio.h>\n#include <unistd.h>"))
        kept["q1"] = m.submit(2, JobSpec(ranks=1, args=["q1"]), source_text=HELLO)
        kept["q2"] = m.submit(3, JobSpec(ranks=1, args=["q2"]), source_text=HELLO)
        while m.get(kept["long"])["state"] != "running":
            await asyncio.sleep(0.02)
    run(before, state=state, limits={"running_jobs": 1})
    # What a crash leaves: stop() ended the long job as error ("the portal stopped");
    # make it look like a crash mid-run to test that path too.
    conn = sqlite3.connect(os.path.join(state, "portal.db"))
    conn.execute("UPDATE jobs SET state='running' WHERE id=?", (kept["long"],))
    conn.commit(); conn.close()
    async def after(m):
        r = m.get(kept["long"])
        check(r["state"] == "error" and "restarted" in r["message"], "running -> error", r)
        for t in ("q1", "q2"):
            rec, evs = await finish(m, kept[t])
            check(rec["state"] == "done" and any(e["type"] == "out" and e["text"] == f"job {t}"
                                                 for e in evs), f"queued job {t} re-queued and run")
    run(after, state=state, limits={"running_jobs": 1})
finally:
    shutil.rmtree(state, ignore_errors=True)
PY
