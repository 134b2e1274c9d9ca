#!/usr/bin/env python3
"""Turn bench/run.sh's results.csv into a Markdown comparison report.

usage: compare.py --csv results.csv [--meta meta.txt] [--timeout 120]

Per benchmark, rank count and message size the report shows the median over
repetitions of each implementation, its spread, and the ratios Ferry/MPICH
and Ferry/Open MPI of the medians. Python 3 standard library only.
"""

import argparse
import csv
import math
import statistics
import sys
from collections import defaultdict

IMPLS = [("ferry", "Ferry"), ("mpich", "MPICH"), ("openmpi", "Open MPI")]
PEERS = [("mpich", "MPICH"), ("openmpi", "Open MPI")]

SECTIONS = {
    "latency": dict(
        title="Latency: blocking ping-pong, one-way, µs",
        unit="µs",
        lower_better=True,
        how="Ranks 0 and 1 bounce a message with MPI_Send/MPI_Recv; one-way latency "
        "= round trip / 2.",
    ),
    "bandwidth": dict(
        title="Bandwidth: unidirectional, window of 64, MB/s",
        unit="MB/s",
        lower_better=False,
        how="Rank 0 keeps 64 MPI_Isend in flight to 64 pre-posted MPI_Irecv on rank 1, "
        "then waits for a 4-byte ack; 1 MB = 10^6 bytes.",
    ),
    "ring": dict(
        title="Ring: token around all ranks, µs per hop",
        unit="µs per hop",
        lower_better=True,
        how="Each rank receives the token from its left neighbour and sends it to its "
        "right one. Compared: µs per hop of the median of 20 batches of laps; the last "
        "columns give the mean (total time / (laps × ranks)) and the laps done. Laps are "
        "cut short by a time budget for slow implementations, so compare per-hop times.",
    ),
}


def convention(lower_better):
    if lower_better:
        return ("**Lower is better.** Ratio = Ferry / peer: **< 1 means Ferry is faster**, "
                "> 1 means Ferry is slower.")
    return ("**Higher is better.** Ratio = Ferry / peer: **> 1 means Ferry is faster**, "
            "< 1 means Ferry is slower (the reverse of the latency tables).")


def human_size(n):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= (1 << shift) and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def fmt(v):
    if v >= 1000:
        return f"{v:.0f}"
    if v >= 100:
        return f"{v:.1f}"
    if v >= 10:
        return f"{v:.2f}"
    return f"{v:.3f}"


def fmt_ratio(r):
    """Two decimals, or two significant digits for ratios far below 1 (0.0013)."""
    return f"{r:.2f}" if r >= 0.1 else f"{r:.2g}"


def read_meta(path):
    meta = {}
    if not path:
        return meta
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                key, sep, value = line.rstrip("\n").partition("=")
                if sep:
                    meta[key] = value
    except OSError:
        pass
    return meta


class Results:
    def __init__(self, rows):
        self.values = defaultdict(list)  # (impl, bench, ranks, size) -> [value]
        self.laps = defaultdict(list)  # same key -> [laps]
        self.mean_hop = defaultdict(list)  # same key -> [total time / (laps * ranks), µs]
        self.bad = defaultdict(lambda: defaultdict(set))  # (impl, bench, ranks) -> status -> reps
        self.reps = defaultdict(set)  # (impl, bench, ranks) -> reps attempted
        self.configs = set()  # (bench, ranks)
        self.sizes = defaultdict(set)  # (bench, ranks) -> sizes
        for r in rows:
            bench, ranks, impl = r["benchmark"], int(r["ranks"]), r["impl"]
            self.configs.add((bench, ranks))
            self.reps[(impl, bench, ranks)].add(r["rep"])
            if r["status"] != "ok":
                self.bad[(impl, bench, ranks)][r["status"]].add(r["rep"])
                continue
            size = int(r["size_bytes"])
            self.sizes[(bench, ranks)].add(size)
            self.values[(impl, bench, ranks, size)].append(float(r["value"]))
            if r.get("laps"):
                laps = int(r["laps"])
                self.laps[(impl, bench, ranks, size)].append(laps)
                if r.get("total_s") and laps > 0:
                    mean = float(r["total_s"]) * 1e6 / (laps * ranks)
                    self.mean_hop[(impl, bench, ranks, size)].append(mean)

    def median(self, impl, bench, ranks, size):
        vals = self.values.get((impl, bench, ranks, size))
        return statistics.median(vals) if vals else None

    def cell(self, impl, bench, ranks, size, meta, timeout):
        status = meta.get(f"status_{impl}", "ok" if self.reps.get((impl, bench, ranks)) else "n/a")
        if not status.startswith("ok"):
            return "n/a"
        vals = self.values.get((impl, bench, ranks, size), [])
        tried = len(self.reps.get((impl, bench, ranks), ()))
        if vals:
            med = statistics.median(vals)
            text = fmt(med)
            if len(vals) >= 2 and med > 0:
                spread = (max(vals) - min(vals)) / 2 / med * 100
                text += f" ±{spread:.0f}%" if spread < 1000 else " ±>999%"
            if len(vals) < tried:
                text += f" ({len(vals)}/{tried} runs)"
            return text
        bad = self.bad.get((impl, bench, ranks), {})
        if bad.get("timeout"):
            return f"timeout (>{timeout} s)"
        if bad.get("fail"):
            return "failed"
        return "n/a" if not tried else "–"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def section(out, res, bench, ranks, meta, timeout, ncpu):
    spec = SECTIONS[bench]
    title = spec["title"]
    if bench == "ring":
        over = f" — oversubscribed ({ranks} ranks on {ncpu} cores)" if ncpu and ranks > ncpu else ""
        title = f"{title}, {ranks} ranks{over}"
    else:
        title = f"{title}, {ranks} ranks"
    out.append(f"## {title}\n")
    out.append(spec["how"] + "\n")
    out.append(convention(spec["lower_better"]) + "\n")
    head = ["size"] + [name for _, name in IMPLS] + [f"Ferry/{name}" for _, name in PEERS]
    if bench == "ring":
        names = " / ".join(name for _, name in IMPLS)
        head += [f"mean µs/hop ({names})", f"laps done ({names})"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join(["---:"] * len(head)) + "|")
    sizes = sorted(res.sizes.get((bench, ranks), ()))
    logs = {peer: [] for peer, _ in PEERS}
    if not sizes:
        row = ["–"] + [res.cell(i, bench, ranks, -1, meta, timeout) for i, _ in IMPLS]
        row += ["–"] * len(PEERS) + (["–", "–"] if bench == "ring" else [])
        out.append("| " + " | ".join(row) + " |")
    for size in sizes:
        row = [human_size(size)]
        row += [res.cell(i, bench, ranks, size, meta, timeout) for i, _ in IMPLS]
        ferry = res.median("ferry", bench, ranks, size)
        for peer, _ in PEERS:
            r = ratio(ferry, res.median(peer, bench, ranks, size))
            row.append(fmt_ratio(r) if r is not None else "–")
            if r is not None and r > 0:
                logs[peer].append(math.log(r))
        if bench == "ring":
            means, laps = [], []
            for impl, _ in IMPLS:
                v = res.mean_hop.get((impl, bench, ranks, size))
                means.append(fmt(statistics.median(v)) if v else "–")
                v = res.laps.get((impl, bench, ranks, size))
                laps.append(f"{statistics.median(v):.0f}" if v else "–")
            row += [" / ".join(means), " / ".join(laps)]
        out.append("| " + " | ".join(row) + " |")
    if any(logs.values()) and len(sizes) > 1:
        row = ["**geomean**"] + [""] * len(IMPLS)
        for peer, _ in PEERS:
            v = logs[peer]
            row.append(f"**{fmt_ratio(math.exp(sum(v) / len(v)))}**" if v else "–")
        if bench == "ring":
            row += ["", ""]
        out.append("| " + " | ".join(row) + " |")
    out.append("")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--meta")
    ap.add_argument("--timeout", default="120")
    args = ap.parse_args(argv)

    meta = read_meta(args.meta)
    with open(args.csv, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    res = Results(rows)
    try:
        ncpu = int(meta.get("cpus", "0"))
    except ValueError:
        ncpu = 0

    out = ["# Ferry benchmark report\n"]
    out.append(f"Run {meta.get('date', '?')} on `{meta.get('host', '?')}` "
               f"({meta.get('cpus', '?')} CPUs, {meta.get('cpu_model', '?')}, "
               f"{meta.get('kernel', '?')}), repo commit `{meta.get('commit', '?')}`. "
               f"{meta.get('reps', '?')} repetitions per run"
               f"{' (QUICK mode)' if meta.get('quick') == '1' else ''}, runs alternating "
               f"between implementations, each limited to {args.timeout} s.\n")
    out.append("Each cell is the **median** over repetitions; ±x% is half the min–max range "
               "relative to the median (a rough noise gauge: ratios closer to 1 than that "
               "are not a difference). \"(k/n runs)\" means only k of n runs produced the "
               "number. Ratios are Ferry's median divided by the peer's median; each table "
               "states which way is better.\n")
    if meta.get("load_start") or meta.get("load_end"):
        out.append(f"Load average (1/5/15 min) at start: {meta.get('load_start', '?')}, at end: "
                   f"{meta.get('load_end', '?')}; anything well above 0 means other work shared "
                   "the cores and the numbers are noisier.\n")
    out.append("| implementation | status | library |")
    out.append("|---|---|---|")
    for impl, name in IMPLS:
        lib = " ".join(meta.get(f"library_{impl}", "").replace("|", "/").split())
        out.append(f"| {name} | {meta.get(f'status_{impl}', 'n/a')} | {lib} |")
    if meta.get("ferry_libmpi"):
        out.append(f"\nFerry binaries resolve `{meta['ferry_libmpi'].strip()}`.")
    out.append("")

    order = {"latency": 0, "bandwidth": 1, "ring": 2}
    for bench, ranks in sorted(res.configs, key=lambda c: (order.get(c[0], 9), c[1])):
        if bench in SECTIONS:
            section(out, res, bench, ranks, meta, args.timeout, ncpu)
    if not res.configs:
        out.append("No benchmark was run.\n")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
