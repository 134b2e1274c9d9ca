"""Reads the per-rank logs of one mpi4py suite run and says whether it passed.

usage: verdict.py NP EXIT_STATUS SKIPS_FILE LOGDIR

Passes when the job exited 0, every rank ran its tests to the summary line with no failure or
error, and every skip reason matches a line of SKIPS_FILE. Prints one summary line per rank,
the skip reasons with their counts, and every failing test with the end of its traceback.
"""
import collections
import os
import re
import sys

np, status, skips_file, logdir = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
allowed = []
with open(skips_file) as fh:
    for line in fh:
        line = line.strip()
        if line and not line.startswith("#"):
            allowed.append(re.compile(line))

RESULT = re.compile(r"^(\S+) \(([\w.]+)\)(?:\n.*)?\s\.\.\. skipped '(.*)'$", re.M)
ok = status == 0
totals = collections.Counter()
reasons = collections.Counter()
for rank in range(np):
    path = os.path.join(logdir, f"rank{rank}.log")
    try:
        text = open(path, errors="replace").read()
    except OSError:
        print(f"np={np} rank {rank}: no log (the rank did not start the suite)")
        ok = False
        continue
    ran = re.search(r"^Ran (\d+) tests? in", text, re.M)
    if not ran:
        print(f"np={np} rank {rank}: the suite did not finish; last lines:")
        print("\n".join(text.splitlines()[-15:]))
        ok = False
        continue
    counts = collections.Counter()
    # The totals come from unittest's own closing line; the per-test lines (which a test's
    # printing can split) only give the skip reasons.
    summary = re.search(r"^(OK|FAILED)(?: \((.*)\))?$", text[ran.end():], re.M)
    fields = dict(kv.split("=") for kv in summary.group(2).split(", ")) if summary and summary.group(2) else {}
    for m in RESULT.finditer(text):
        counts["skipped"] += 1
        reason = m.group(3)
        if rank == 0:
            reasons[reason] += 1
        if not any(a.fullmatch(reason) for a in allowed):
            counts["bad skip"] += 1
            print(f"np={np} rank {rank}: {m.group(2)} skipped for a reason not in skips.txt: {reason!r}")
    if int(fields.get("skipped", 0)) != counts["skipped"]:
        counts["bad skip"] += 1
        print(f"np={np} rank {rank}: unittest counts {fields.get('skipped', 0)} skips, "
              f"but {counts['skipped']} skip lines were read: a reason may be hidden")
    counts["FAIL"] = int(fields.get("failures", 0))
    counts["ERROR"] = int(fields.get("errors", 0))
    counts["unexpected success"] = int(fields.get("unexpected successes", 0))
    if not summary:
        counts["ERROR"] += 1
        print(f"np={np} rank {rank}: no closing OK/FAILED line")
    failed = counts["ERROR"] + counts["FAIL"] + counts["unexpected success"]
    print(f"np={np} rank {rank}: ran {ran.group(1)}, skipped {counts['skipped']}, "
          f"failures {counts['FAIL']}, errors {counts['ERROR']}")
    if failed or counts["bad skip"]:
        ok = False
        for block in re.split(r"^={70}$", text, flags=re.M)[1:]:
            lines = block.strip().splitlines()
            if lines and lines[0].startswith(("ERROR:", "FAIL:")):
                print("  " + lines[0])
                print("\n".join("    " + ln for ln in lines[-4:]))
    totals.update(counts)
for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
    print(f"np={np} skip reason (rank 0): {n:4d}  {reason}")
print(f"np={np}: {'PASS' if ok else 'FAIL'} (exit status {status})")
sys.exit(0 if ok else 1)
