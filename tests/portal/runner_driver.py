"""Drives the portal's JobManager without the web layer, for tests/portal/runner_*.sh
and sandbox_*.sh: a configuration like config.py's (every key of the contract), a temp
state directory, the build's FY_BUILD as Ferry's prefix.

    from runner_driver import *
    async def main(m):
        rec, evs = await finish(m, m.submit(1, JobSpec(ranks=4), source_text=CPI))
        check(rec["state"] == "done", "cpi ends done", rec)
    run(main, limits={"concurrent_jobs": 1})"""

import asyncio
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from types import SimpleNamespace

SRC = os.environ.get("FY_SRC") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SRC, "tools", "portal"))

from ferry_portal.jobs import JobManager, JobSpec, JobError  # noqa: E402

__all__ = ["JobManager", "JobSpec", "JobError", "make_cfg", "run", "finish", "check",
           "CPI", "fails", "SRC", "read_source"]

LIMITS = dict(concurrent_jobs=2, max_ranks=8, max_time=300, default_time=60,
              max_output=4194304, max_upload=16777216, max_unpacked=67108864, max_members=2000,
              max_queued=20, running_jobs=0)
SANDBOX = dict(uid_base=61000, uid_count=32, memory=1073741824, pids=256,
               file_size=268435456, cpu_quota=2.0)

fails = []


def read_source(rel):
    with open(os.path.join(SRC, rel)) as f:
        return f.read()


CPI = read_source("examples/cpi.c")


def make_cfg(state, limits=None, sandbox=None, hosts=None, slurm=None):
    return SimpleNamespace(
        state=state,
        ferry_prefix=os.environ["FY_BUILD"],
        limits=SimpleNamespace(**{**LIMITS, **(limits or {})}),
        sandbox=SimpleNamespace(**{**SANDBOX, **(sandbox or {})}),
        hosts=SimpleNamespace(**{"names": [], "launcher_exec": "", **(hosts or {})}),
        slurm=SimpleNamespace(**{"enabled": False, "partition": "", **(slurm or {})}))


def check(cond, what, detail=None):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails.append(what)
        if detail is not None:
            print("     " + json.dumps(detail, default=str)[:3000])


async def finish(m, job_id, timeout=120):
    """Follows the job's events to its end; returns (record, events)."""
    evs = []

    async def follow():
        async for ev in m.events(job_id):
            evs.append(ev)
    await asyncio.wait_for(follow(), timeout)
    return m.get(job_id), evs


def run(main, state=None, **cfg_args):
    """Runs `async main(m)` with a started JobManager on a temp state dir (or `state`);
    exits 1 if any check failed."""
    tmp = state or tempfile.mkdtemp(prefix="fy-portal-")
    os.chmod(tmp, 0o711)        # the jobs' uids pass through it (never list it)
    cfg = make_cfg(tmp, **cfg_args)

    async def go():
        conn = sqlite3.connect(os.path.join(tmp, "portal.db"), check_same_thread=False)
        conn.row_factory = sqlite3.Row
        m = JobManager(cfg, conn)
        await m.start()
        try:
            await main(m)
        finally:
            await m.stop()
            conn.close()
    t0 = time.monotonic()
    try:
        asyncio.run(go())
    finally:
        if state is None and not os.environ.get("FY_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"({time.monotonic() - t0:.2f} s)")
    if fails:
        print(f"{len(fails)} check(s) failed")
        sys.exit(1)
