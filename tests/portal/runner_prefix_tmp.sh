#!/bin/bash
# timeout: 180
# Ferry itself under /tmp (a build in /tmp/ferry, say): every job has a private /tmp, which
# must not hide the read-only bind of Ferry's prefix. A copy of the build's bin, lib and include
# in a fresh directory under /tmp serves as the prefix; cpi compiles and runs on 2 ranks.
# Then a prefix whose mpicc is a link to a place the sandbox does not show: the job ends in
# state `error` saying the portal could not start the compiler (its fault, not the program's),
# not `compile_error` on line 0 of main.c.
set -u
prefix=$(mktemp -d /tmp/fy-portal-prefix.XXXXXX) || exit 1
broken=$(mktemp -d /tmp/fy-portal-broken.XXXXXX) || exit 1
trap 'rm -rf "$prefix" "$broken"' EXIT
chmod 755 "$prefix" "$broken"
cp -a "$FY_BUILD/bin" "$FY_BUILD/lib" "$FY_BUILD/include" "$prefix/" || exit 1
cp -a "$prefix/bin" "$prefix/lib" "$prefix/include" "$broken/" || exit 1
hidden=$(mktemp -d /var/tmp/fy-portal-hidden.XXXXXX) || exit 1
trap 'rm -rf "$prefix" "$broken" "$hidden"' EXIT
chmod 755 "$hidden"
mv "$broken/bin/mpicc" "$hidden/mpicc" && ln -s "$hidden/mpicc" "$broken/bin/mpicc" || exit 1
FY_BUILD=$prefix python3 - <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["FY_SRC"], "tests", "portal"))
from runner_driver import *

async def main(m):
    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=2), source_text=CPI))
    check(rec["state"] == "done", "cpi compiled and ran with Ferry under /tmp",
          [e for e in evs if e["type"] in ("compile", "out", "state")])
    check(any(e["type"] == "out" and "pi is approximately" in e["text"] for e in evs),
          "the pi line came out")

run(main)
PY
[ $? = 0 ] || exit 1
FY_BUILD=$broken python3 - <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["FY_SRC"], "tests", "portal"))
from runner_driver import *

async def main(m):
    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=2), source_text=CPI))
    check(rec["state"] == "error" and "could not start the compiler" in rec["message"]
          and not rec["diagnostics"], "a compiler the sandbox cannot see: state error", rec)

run(main)
PY
