#!/bin/bash
# timeout: 180
# Ferry itself under /tmp (a build in /tmp/ferry, say): every job has a private /tmp, which
# must not hide the read-only bind of Ferry's prefix. A copy of the build's bin, lib and include
# in a fresh directory under /tmp serves as the prefix; cpi compiles and runs on 2 ranks.
set -u
prefix=$(mktemp -d /tmp/fy-portal-prefix.XXXXXX) || exit 1
trap 'rm -rf "$prefix"' EXIT
chmod 755 "$prefix"
cp -a "$FY_BUILD/bin" "$FY_BUILD/lib" "$FY_BUILD/include" "$prefix/" || exit 1
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
