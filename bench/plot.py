#!/usr/bin/env python3
"""Plots of a bench/run.sh results.json (needs matplotlib: Debian python3-matplotlib).

usage: plot.py results.json [--out DIR]

Writes PNGs into DIR (default: the directory of results.json):
  latency.png      point-to-point latency vs size, log-log, one panel per benchmark
  bandwidth.png    bandwidth vs size, semi-log-x, with single-thread memcpy for reference
  collectives.png  collective time vs ranks (log y), one panel per collective
  apps.png         application speedup over 1 rank vs ranks, with the ideal line
A plot with nothing to show is not written. Every point is the median over repetitions.
"""

import argparse
import json
import math
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

IMPLS = [("ferry", "Ferry", "tab:red", "o"), ("mpich", "MPICH", "tab:blue", "s"),
         ("openmpi", "Open MPI", "tab:green", "^")]
P2P = ("latency", "pingpong", "pingping", "sendrecv", "exchange", "ring")
COLLECTIVES = ("barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall",
               "reduce_scatter", "gather", "scatter")


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def base_name(bench):
    """'imb.Allreduce' or 'IMB-Allreduce' -> 'allreduce'."""
    b = bench.lower()
    for sep in (".", "-", "/", ":"):
        b = b.rsplit(sep, 1)[-1]
    return b


def series(results, pred):
    """bench -> impl -> {ranks: {size: median}} for results matching pred."""
    out = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    for g in results:
        if "median" in g and pred(g) and num(g["size"]) is not None:
            out[g["bench"]][g["impl"]][g["ranks"]][num(g["size"])] = g["median"]
    return out


def grid(n):
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 4.0 * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def save(fig, path, title):
    fig.suptitle(title, fontsize=13)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"plot.py: wrote {path}")


def size_axis(ax):
    ax.set_xlabel("message size (bytes)")
    ticks = [1, 16, 256, 4096, 65536, 1 << 20, 16 << 20]
    labels = ["1 B", "16 B", "256 B", "4 KiB", "64 KiB", "1 MiB", "16 MiB"]
    lo, hi = ax.get_xlim()
    keep = [(t, lab) for t, lab in zip(ticks, labels) if lo <= t <= hi]
    if keep:
        ax.set_xticks([t for t, _ in keep])
        ax.set_xticklabels([lab for _, lab in keep])


def plot_latency(data, out):
    s = series(data["results"], lambda g: g["unit"] == "us" and base_name(g["bench"]) in P2P
               and g["ranks"] == 2 and g["np"] == 2)
    if not s:
        return
    cl = data["limits"].get("cacheline_ns")
    fig, axes = grid(len(s))
    for ax, bench in zip(axes, sorted(s)):
        for impl, name, color, mark in IMPLS:
            pts = s[bench].get(impl, {}).get(2, {})
            pts = sorted((x, y) for x, y in pts.items() if x > 0)  # 0 B has no place on log x
            if pts:
                ax.plot(*zip(*pts), marker=mark, color=color, label=name, ms=4)
        if cl:
            ax.axhline(cl / 1000, color="gray", ls=":", label=f"cache-line bounce ({cl:.0f} ns)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        size_axis(ax)
        ax.set_ylabel("one-way time (µs, log scale; lower is better)")
        ax.set_title(f"{bench}, 2 ranks")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    save(fig, os.path.join(out, "latency.png"), "Point-to-point latency (median over repetitions)")


def plot_bandwidth(data, out):
    s = series(data["results"], lambda g: g["unit"] == "MBps" and g["np"] == 2)
    if not s:
        return
    mem = {int(k): v * 1000 for k, v in data["limits"].get("memcpy_GBps", {}).items()}
    fig, axes = grid(len(s))
    for ax, bench in zip(axes, sorted(s)):
        for impl, name, color, mark in IMPLS:
            pts = sorted((x, y) for x, y in s[bench].get(impl, {}).get(2, {}).items() if x > 0)
            if pts:
                ax.plot(*zip(*pts), marker=mark, color=color, label=name, ms=4)
        top = max((x for i in s[bench].values() for r in i.values() for x in r), default=0)
        ymax = max((y for i in s[bench].values() for r in i.values() for y in r.values()), default=0)
        ref = [k for k in sorted(mem) if k <= 2 * top]
        if ref:
            # memcpy of cached sizes runs far above any MPI curve: clip the axis to the MPI
            # curves so they stay readable (memcpy shows where it falls in range).
            ax.plot(ref, [mem[k] for k in ref], color="gray", ls=":",
                    label="memcpy, 1 thread (clipped)")
            if ymax > 0:
                ax.set_ylim(0, ymax * 1.4)
        ax.set_xscale("log", base=2)
        size_axis(ax)
        ax.set_ylabel("bandwidth (MB/s, 10^6 B/s; higher is better)")
        ax.set_title(f"{bench}, 2 ranks")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    save(fig, os.path.join(out, "bandwidth.png"), "Bandwidth (median over repetitions)")


def plot_collectives(data, out):
    s = series(data["results"], lambda g: g["unit"] == "us" and base_name(g["bench"]) in COLLECTIVES
               and g["ranks"] == g["np"])
    benches = [b for b in sorted(s, key=lambda b: COLLECTIVES.index(base_name(b)))
               if len({r for i in s[b].values() for r in i}) > 1]
    if not benches:
        return
    fig, axes = grid(len(benches))
    for ax, bench in zip(axes, benches):
        sizes = sorted({x for i in s[bench].values() for r in i.values() for x in r})
        small = next((x for x in sizes if x >= 8), sizes[0])
        large = sizes[-1]
        picks = [(small, "-")] + ([(large, "--")] if large != small else [])
        for impl, name, color, mark in IMPLS:
            by_ranks = s[bench].get(impl, {})
            for size, ls in picks:
                pts = sorted((r, v[size]) for r, v in by_ranks.items() if size in v)
                if pts:
                    ax.plot(*zip(*pts), marker=mark, color=color, ls=ls, ms=4,
                            label=f"{name}, {int(size)} B")
        ax.set_yscale("log")
        ax.set_xlabel("ranks (2 cores: above 2 is oversubscribed)")
        ax.set_ylabel("time per operation (µs, log; lower is better)")
        ax.set_title(bench)
        ax.set_xticks(sorted({r for i in s[bench].values() for r in i}))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    save(fig, os.path.join(out, "collectives.png"), "Collective time vs ranks (median)")


def plot_apps(data, out):
    s = series(data["results"], lambda g: g["program"].startswith("apps/") and g["unit"] == "s")
    benches = []
    for bench in sorted(s):
        if any(1 in s[bench][i] for i in s[bench]):
            benches.append(bench)
    if not benches:
        return
    ncpu = int(data["meta"].get("cpus", "0") or 0)
    fig, axes = grid(len(benches))
    for ax, bench in zip(axes, benches):
        allr = sorted({r for i in s[bench].values() for r in i})
        for impl, name, color, mark in IMPLS:
            by_ranks = s[bench].get(impl, {})
            if 1 not in by_ranks:
                continue
            size = min(by_ranks[1])
            t1 = by_ranks[1][size]
            pts = sorted((r, t1 / v[size]) for r, v in by_ranks.items() if size in v and v[size] > 0)
            ax.plot(*zip(*pts), marker=mark, color=color, label=name, ms=5)
        ideal = [min(r, ncpu) if ncpu else r for r in allr]
        ax.plot(allr, ideal, color="gray", ls=":", label=f"ideal ({ncpu or '?'} cores)")
        ax.set_xlabel("ranks")
        ax.set_ylabel("speedup over 1 rank (higher is better)")
        ax.set_xticks(allr)
        ax.set_title(bench)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    save(fig, os.path.join(out, "apps.png"), "Application speedup (median times)")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    with open(args.json, encoding="utf-8") as f:
        data = json.load(f)
    out = args.out or os.path.dirname(os.path.abspath(args.json))
    for fn in (plot_latency, plot_bandwidth, plot_collectives, plot_apps):
        try:
            fn(data, out)
        except Exception as e:  # one broken plot must not cost the others
            print(f"plot.py: {fn.__name__} failed: {e!r}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
