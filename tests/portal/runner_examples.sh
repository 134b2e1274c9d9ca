#!/bin/bash
# timeout: 300
# The examples gallery (tools/portal/ferry_portal/examples.py): every example compiles
# without a warning under -Wall -Wextra, runs through JobManager with its default ranks
# and arguments and ends done, with its check line and the files it promises (gauss.csv,
# nbody.csv + nbody.svg, farm.csv, matmul.csv) listed with their kinds. Then cpi with
# --trace and --profile: the record says has_trace and has_profile, trace.html (the
# `ferry view` page) and profile.txt are found by file_path.
exec python3 - <<'PY'
import os, subprocess, sys, tempfile
sys.path.insert(0, os.path.join(os.environ["FY_SRC"], "tests", "portal"))
from runner_driver import *
from ferry_portal.examples import gallery

EXPECT = {  # id: (a line of rank 0's output contains, files with kinds)
    "cpi": ("pi is approximately", {}),
    "ring": ("(expected", {}),
    "matmul": (" ok", {"matmul.csv": "csv"}),
    "taskfarm": ("tasks done", {"farm.csv": "csv"}),
    "gauss": ("solved N", {"gauss.csv": "csv"}),
    "nbody": ("bodies,", {"nbody.csv": "csv", "nbody.svg": "svg"}),
}

async def main(m):
    exs = gallery()
    check([e["id"] for e in exs] == list(EXPECT), "the gallery's six examples",
          [e["id"] for e in exs])
    mpicc = os.path.join(os.environ["FY_BUILD"], "bin", "mpicc")
    with tempfile.TemporaryDirectory() as tmp:
        for e in exs:
            src = os.path.join(tmp, e["id"] + ".c")
            with open(src, "w") as f:
                f.write(e["source"])
            r = subprocess.run([mpicc, "-Wall", "-Wextra", "-Werror", "-c", "-o",
                                src + ".o", src], capture_output=True, text=True)
            check(r.returncode == 0, f"{e['id']}: no warning", r.stderr)
    for e in exs:
        check(e["title"] and e["description"] and 1 <= e["ranks"] <= 8, f"{e['id']}: metadata")
        rec, evs = await finish(m, m.submit(1, JobSpec(ranks=e["ranks"], args=e["args"]),
                                            source_text=e["source"]), timeout=240)
        want, files = EXPECT[e["id"]]
        lines = [v["text"] for v in evs if v["type"] == "out" and v["rank"] == 0]
        check(rec["state"] == "done" and any(want in l for l in lines),
              f"{e['id']}: done, with '{want}'", [rec["state"], rec["message"], lines[-5:]])
        kinds = {f["path"]: f["kind"] for f in rec["files"]}
        check(all(kinds.get(p) == k for p, k in files.items()), f"{e['id']}: files {files}",
              kinds)

    cpi = [e for e in exs if e["id"] == "cpi"][0]
    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=2, trace=True, profile=True),
                                        source_text=cpi["source"]))
    check(rec["state"] == "done" and rec["has_trace"] and rec["has_profile"],
          "traced and profiled run", rec)
    page = m.file_path(rec["id"], "trace.html")
    prof = m.file_path(rec["id"], "profile.txt")
    check(page is not None and b"<html" in page.read_bytes()[:2000].lower(), "trace.html")
    check(prof is not None and "MPI_Reduce" in prof.read_text(), "profile.txt names MPI_Reduce",
          prof.read_text()[:500] if prof else None)
    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=2, profile=True),
                                        source_text=cpi["source"]))
    prof = m.file_path(rec["id"], "profile.txt")
    check(rec["has_profile"] and not rec["has_trace"] and prof is not None and
          "MPI_Reduce" in prof.read_text(), "profile without trace", rec)

run(main)
PY
