#!/bin/bash
# timeout: 180
# The runner's unhappy paths: a compile error gives state compile_error with diagnostics on
# the right file and line; a crashing rank gives `failed` with the exit status and
# mpiexec's words; an output flood is stopped at the output cap (`killed`, truncated, the
# kept bytes under the cap); cancel of a running and of a queued job; requests outside the
# limits are refused with the field named.
exec python3 - <<'PY'
import asyncio, os, sys
sys.path.insert(0, os.path.join(os.environ["FY_SRC"], "tests", "portal"))
from runner_driver import *

BAD = """#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int x = 1
    printf("%d\\n", x);
    MPI_Finalize();
    return 0;
}
"""
CRASH = r'''
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) exit(7);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
'''
FLOOD = r'''
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (long i = 0; ; i++) printf("line %ld of a flood of output\n", i);
    MPI_Finalize();
    return 0;
}
'''
SLEEPY = r'''
#include <mpi.h>
#include <unistd.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    printf("started\n"); fflush(stdout);
    for (;;) sleep(1);
    MPI_Finalize();
    return 0;
}
'''

async def main(m):
    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=2), source_text=BAD))
    d = rec["diagnostics"]
    check(rec["state"] == "compile_error", "a compile error ends compile_error", rec)
    check(any(x["file"] == "main.c" and x["line"] in (6, 7) and x["severity"] == "error"
              for x in d), "the error is pinned to main.c line 6/7", d)
    check(any(e["type"] == "diag" for e in evs), "a diag event")

    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=3), source_text=CRASH))
    check(rec["state"] == "failed" and rec["exit_code"] == 7 and "7" in rec["message"],
          "a rank exiting 7 gives failed with its status", rec)
    print("failed message:", rec["message"])

    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=2), source_text=FLOOD))
    check(rec["state"] == "killed" and "output" in rec["message"] and rec["truncated"],
          "an output flood is killed at the output cap", rec)
    kept = sum(len(e["text"].encode()) + 1 for e in evs if e["type"] == "out")
    check(kept <= 65536 and rec["output_bytes"] == kept, "kept output under the cap", kept)

    jid = m.submit(1, JobSpec(ranks=2, time_limit=120), source_text=SLEEPY)
    seen = []
    async def follow():
        async for ev in m.events(jid):
            seen.append(ev)
            if ev["type"] == "out" and ev["text"] == "started":
                check(m.cancel(jid), "cancel of a running job accepted")
    await asyncio.wait_for(follow(), 60)
    rec = m.get(jid)
    check(rec["state"] == "cancelled", "a running job is cancelled", rec)

    # concurrent_jobs=1: the second waits, and is cancelled before it starts.
    a = m.submit(2, JobSpec(ranks=1, time_limit=120), source_text=SLEEPY)
    b = m.submit(2, JobSpec(ranks=1), source_text=CPI)
    check(m.get(a)["position"] == 1 and m.get(b)["state"] == "queued" and
          m.get(b)["position"] == 2, "queued with positions 1 and 2", m.get(b))
    await asyncio.sleep(0)      # the scheduler starts a; b waits for the user's limit
    while m.get(a)["state"] == "queued":
        await asyncio.sleep(0.01)
    check(m.get(b)["state"] == "queued" and m.get(b)["position"] == 1,
          "the second waits at position 1 (concurrent_jobs = 1)", m.get(b))
    check(m.cancel(b) and m.get(b)["state"] == "cancelled", "a queued job is cancelled")
    m.cancel(a)
    await finish(m, a)

    for spec, field in ((JobSpec(ranks=0), "ranks"), (JobSpec(ranks=99), "ranks"),
                        (JobSpec(time_limit=100000), "time_limit"),
                        (JobSpec(backend="cloud"), "backend"),
                        (JobSpec(hosts=["nowhere"]), "hosts"),
                        (JobSpec(main="../x.c"), "main"),
                        (JobSpec(args=["a\0b"]), "args")):
        try:
            m.submit(1, spec, source_text=CPI)
            check(False, f"refused: {field}")
        except JobError as e:
            check(e.field == field and e.message, f"refused with field {field}: {e.message}")
    try:
        m.submit(1, JobSpec(), source_text="   ")
        check(False, "empty program refused")
    except JobError as e:
        check(e.field == "source", f"empty program refused: {e.message}")

run(main, limits={"max_output": 65536, "concurrent_jobs": 1})
PY
