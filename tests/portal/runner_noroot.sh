#!/bin/bash
# timeout: 120
# The runner without root (run as nobody when the test has root): jobs still run in
# bubblewrap with rlimits, without a uid of their own and without cgroups, and say so: the
# job's message carries "sandbox: reduced (not root)". cpi runs; an endless loop is killed
# at its time limit with no process of it left (the sandbox's pid namespace dies with it);
# the host's files stay out of reach (no /home, no state dir).
body() {
python3 - <<'PY'
import os, subprocess, sys
sys.path.insert(0, os.path.join(os.environ["FY_SRC"], "tests", "portal"))
from runner_driver import *

PROBE = read_source("tests/portal/sandbox_probe.c")

def left(tag):
    out = subprocess.run(["ps", "-eo", "args="], capture_output=True, text=True).stdout
    return [l for l in out.splitlines() if tag in l]

async def main(m):
    check(os.geteuid() != 0 and not m.root and m.cg_mode is None, "running without root")
    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=4), source_text=CPI))
    check(rec["state"] == "done" and "sandbox: reduced (not root)" in rec["message"],
          "cpi done; the message says the sandbox is reduced", rec)
    check(any(e["type"] == "out" and "pi is approximately" in e["text"] for e in evs), "pi line")
    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=2, time_limit=2,
                                                   args=["loop", "noroot-loop"]),
                                        source_text=PROBE))
    check(rec["state"] == "timeout", "endless loop killed at its limit", rec)
    check(not left("noroot-loop") and not left(rec["id"]), "nothing of it left",
          left("noroot-loop"))
    paths = [str(m.state_dir / "portal.db"), "/home"]
    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=1, args=["open", *paths]),
                                        source_text=PROBE))
    lines = [e["text"] for e in evs if e["type"] == "out"]
    for p in paths:
        check(f"open {p}: No such file or directory" in lines, f"{p} is not there", lines)

run(main)
PY
}
if [ "$(id -u)" = 0 ]; then
    # nobody cannot enter root's pyenv: the system's python3 (standard library only).
    export -f body
    exec setpriv --reuid=65534 --regid=65534 --clear-groups env -u PYENV_VERSION \
        PATH=/usr/bin:/bin HOME=/tmp FY_SRC="$FY_SRC" FY_BUILD="$FY_BUILD" bash -c body
fi
body
