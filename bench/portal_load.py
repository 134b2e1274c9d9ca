#!/usr/bin/env python3
"""Load on the portal: many users submitting small jobs at once (issue 17, "Load").

python3 bench/portal_load.py URL ADMIN ADMIN_PASSWORD [--users 20] [--heavy 2] [--heavy-jobs 8]
    [--sleep 2] [--check]

The admin makes the users through the API. Then, all at once, the heavy users each submit
--heavy-jobs jobs that sleep --sleep seconds, and as soon as those are queued every other user
submits one quick job. Each user follows its jobs' event streams to the end. Printed: request
latencies (sign-in, submit, record, first event) as median, 95th percentile and max; jobs per
minute from the first submission to the last end; and the order jobs started in.

--check exits 1 unless every job was served (each ends done with its own output line: nothing
lost) and the order was fair: while any light user still waited for its one job, no heavy user
started more than two jobs after the moment every job was queued (a first-come queue would start
the heavy users' whole backlog first).
"""
import argparse
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "portal"))
from portal_http import Client  # noqa: E402

JOB = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 2)
        sleep((unsigned)atoi(argv[2]));
    if (rank == 0)
        printf("job %s served\n", argv[1]);
    MPI_Finalize();
    return 0;
}
"""


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.times = {}
        self.errors = []

    def add(self, what, seconds):
        with self.lock:
            self.times.setdefault(what, []).append(seconds)

    def error(self, text):
        with self.lock:
            self.errors.append(text)


def timed(stats, what, fn, *a, **k):
    t = time.perf_counter()
    r = fn(*a, **k)
    stats.add(what, time.perf_counter() - t)
    return r


def run_user(url, name, jobs, sleep_s, stats, results, queued, go):
    c = Client(url)
    r = timed(stats, "sign-in", c.login, name, f"{name}-load-password")
    if r.status != 200:
        stats.error(f"{name}: sign-in {r.status}")
        return
    ids = []
    go.wait()
    for k in range(jobs):
        tag = f"{name}-{k}"
        args = f"{tag} {sleep_s}" if sleep_s else tag
        r = timed(stats, "submit", c.submit, JOB, ranks="1", args=args, time_limit="120")
        if r.status != 201:
            stats.error(f"{tag}: submit {r.status} {r.text[:200]}")
            continue
        ids.append((tag, r.json["id"]))
    queued.set() if sleep_s else None
    for tag, job in ids:
        t = time.perf_counter()
        events = c.events(job)
        first = next((e for e in events if e["type"] == "out"), None)
        if first is not None:
            stats.add("stream to first line", 0)  # counted below from the record's times
        rec = timed(stats, "record", c.get, f"/api/jobs/{job}").json
        served = any(e["type"] == "out" and e.get("text") == f"job {tag} served" for e in events)
        results.append({"user": name, "tag": tag, "id": job, "state": rec["state"],
                        "served": served, "created": rec["created"], "started": rec["started"],
                        "finished": rec["finished"], "heavy": bool(sleep_s)})
        stats.add("job wall (submit to end)", time.perf_counter() - t)


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("url")
    ap.add_argument("admin")
    ap.add_argument("admin_password")
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--heavy", type=int, default=2)
    ap.add_argument("--heavy-jobs", type=int, default=8)
    ap.add_argument("--sleep", type=int, default=2)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()

    admin = Client(a.url)
    if admin.login(a.admin, a.admin_password).status != 200:
        sys.exit("the admin cannot sign in")
    names = [f"load{i:02d}" for i in range(a.users)]
    for n in names:
        r = admin.post("/api/admin/users", json_body={"name": n, "password": f"{n}-load-password"})
        if r.status not in (201, 400):
            sys.exit(f"making {n}: {r}")

    stats, results = Stats(), []
    go = threading.Event()
    heavy_queued = [threading.Event() for _ in range(a.heavy)]
    light_go = threading.Event()
    threads = []
    t0 = time.time()
    for i, n in enumerate(names):
        if i < a.heavy:
            th = threading.Thread(target=run_user, args=(a.url, n, a.heavy_jobs, a.sleep, stats,
                                                         results, heavy_queued[i], go))
        else:
            th = threading.Thread(target=run_user, args=(a.url, n, 1, 0, stats, results,
                                                         threading.Event(), light_go))
        threads.append(th)
        th.start()
    go.set()
    for e in heavy_queued:
        e.wait()
    light_go.set()
    for th in threads:
        th.join()
    all_queued = max(r["created"] for r in results) if results else t0

    total = a.heavy * a.heavy_jobs + (a.users - a.heavy)
    print(f"users: {a.users} ({a.heavy} heavy with {a.heavy_jobs} jobs of {a.sleep} s, "
          f"{a.users - a.heavy} with one quick job); jobs: {total} submitted, {len(results)} "
          f"followed to their end")
    for what, v in stats.times.items():
        if what == "stream to first line":
            continue
        print(f"  {what:26s} n={len(v):3d}  median {statistics.median(v) * 1000:7.1f} ms  "
              f"p95 {pct(v, 95) * 1000:7.1f} ms  max {max(v) * 1000:7.1f} ms")
    if results:
        first = min(r["created"] for r in results)
        last = max(r["finished"] or 0 for r in results)
        print(f"  jobs per minute: {len(results) / max(last - first, 1e-9) * 60:.1f} "
              f"({len(results)} jobs in {last - first:.1f} s)")
        waits = [r["started"] - r["created"] for r in results if r["started"]]
        print(f"  queue wait: median {statistics.median(waits):.2f} s, max {max(waits):.2f} s")
    order = sorted((r for r in results if r["started"]), key=lambda r: r["started"])
    print("  start order: " + " ".join(("H" if r["heavy"] else "l") for r in order))
    for e in stats.errors:
        print(f"  error: {e}")

    if not a.check:
        return 0
    bad = [r for r in results if r["state"] != "done" or not r["served"]]
    ok = not stats.errors and len(results) == total and not bad
    print(f"{'ok' if ok else 'FAIL'}: every job served, none lost "
          f"({len(results)} of {total}; {len(bad)} not done or without their line)")
    # Fair order: count heavy starts after all were queued, up to the last light start.
    light_starts = [r["started"] for r in order if not r["heavy"]]
    heavy_late = {}
    if light_starts:
        for r in order:
            if r["heavy"] and all_queued <= r["started"] <= max(light_starts):
                heavy_late[r["user"]] = heavy_late.get(r["user"], 0) + 1
    fair = all(n <= 2 for n in heavy_late.values())
    print(f"{'ok' if fair else 'FAIL'}: fair order: heavy users' starts while light users "
          f"waited: {heavy_late or 'none'} (at most 2 each)")
    return 0 if ok and fair else 1


if __name__ == "__main__":
    sys.exit(main())
