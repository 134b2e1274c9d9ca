#!/usr/bin/env python3
"""Plots of a bench/run.sh results.json (needs matplotlib: Debian python3-matplotlib).

usage: plot.py results.json [--out DIR]

Writes PNGs into DIR (default: the directory of results.json):
  latency.png      point-to-point latency vs size, log-log, one panel per benchmark
  bandwidth.png    bandwidth vs size, semi-log-x, with single-thread memcpy for reference
  collectives.png  collective time vs ranks (log y), one panel per collective
  apps.png         application speedup over 1 rank vs ranks, with the ideal line
  dtype.png        bench/dtype.c: pack and unpack MB/s vs vector block size, with memcpy of
                   the same bytes; column and cube-face ping-pong MB/s
  hosts_latency.png    between test hosts (bench/hosts.sh): one-way latency vs size, log-log,
                       with the TCP socket ping-pongs (polling, blocking) of the same run
  hosts_bandwidth.png  between test hosts: bandwidth and bidirectional bandwidth (GB/s) vs size,
                       with the socket stream and iperf3 of the same run
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
NET_PREFIXES = ("net.", "link.")
COLLECTIVES = ("barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall",
               "reduce_scatter", "gather", "scatter")


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def base_name(bench):
    """'imb.Allreduce' or 'IMB-Allreduce' -> 'allreduce'; a loaded run's 'latency@cpu' ->
    'latency' (it gets its own panel, next to the quiet one)."""
    b = bench.lower().split("@", 1)[0]
    for sep in (".", "-", "/", ":"):
        b = b.rsplit(sep, 1)[-1]
    return b


def local(g):
    """A measurement on this machine, not between test hosts (net.*, link.*: plot_hosts)."""
    return not g["bench"].startswith(NET_PREFIXES)


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
               and g["ranks"] == 2 and g["np"] == 2 and g["program"] != "dtype" and local(g))
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
    s = series(data["results"], lambda g: g["unit"] == "MBps" and g["np"] == 2
               and g["program"] != "dtype" and local(g))
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


def dtype_block(bench):
    """'dtype.pack.vector.double.256B' -> ('double', 256); None for other types."""
    parts = bench.split(".")
    if len(parts) != 5 or parts[2] != "vector":
        return None
    text = parts[4]
    try:
        return parts[3], int(text[:-3]) * 1024 if text.endswith("KiB") else int(text[:-1])
    except ValueError:
        return None


def no_result(ax, shown):
    """Legend entries for the implementations with nothing to draw (unsupported, failed)."""
    for impl, name, color, mark in IMPLS:
        if impl not in shown:
            ax.plot([], [], color=color, marker=mark, ls="none", mfc="none",
                    label=f"{name}: no result")


def plot_dtype(data, out):
    res = [g for g in data["results"] if g["program"] == "dtype" and "median" in g]
    if not res:
        return
    fig, axes = plt.subplots(1, 3, figsize=(16.5, 4.6), squeeze=False)
    axes = list(axes.flat)
    for ax, op in zip(axes, ("pack", "unpack")):
        vec = [g for g in res if g["bench"].startswith(f"dtype.{op}.vector.")
               and dtype_block(g["bench"])]
        sizes = sorted({num(g["size"]) for g in vec})
        if not sizes:
            ax.set_visible(False)
            continue
        size = 1 << 20 if (1 << 20) in sizes else sizes[-1]  # in both QUICK and full runs
        memcpy, shown = [], set()
        for elem, ls in (("double", "-"), ("byte", "--")):
            for impl, name, color, mark in IMPLS:
                pts = sorted((dtype_block(g["bench"])[1], g["median"]) for g in vec
                             if g["impl"] == impl and num(g["size"]) == size
                             and dtype_block(g["bench"])[0] == elem)
                if pts:
                    ax.plot(*zip(*pts), marker=mark, color=color, ls=ls, ms=5,
                            label=f"{name}, MPI_{elem.upper()} blocks")
                    shown.add(impl)
            memcpy += [num(e.get("memcpy")) for g in vec if num(g["size"]) == size
                       for e in g["extra"] if num(e.get("memcpy"))]
        if memcpy:
            m = sorted(memcpy)[len(memcpy) // 2]
            ax.axhline(m, color="gray", ls=":", label=f"memcpy of the same bytes ({m:,.0f})")
            ax.axhline(m / 2, color="gray", ls="-.", lw=0.8,
                       label="½ memcpy (target for blocks ≥ 256 B)")
        no_result(ax, shown)
        ax.set_xscale("log", base=2)
        blocks = sorted({dtype_block(g["bench"])[1] for g in vec})
        ax.set_xticks(blocks)
        ax.set_xticklabels([f"{b // 1024} KiB" if b >= 1024 else f"{b} B" for b in blocks])
        ax.set_xlabel("vector block size (stride = 2 blocks)")
        ax.set_ylabel("MB/s of packed bytes (10^6 B/s; higher is better)")
        ax.set_ylim(bottom=0)
        ax.set_title(f"MPI_{op.capitalize()} of a vector, {int(size) >> 20 or int(size) >> 10}"
                     f" {'MiB' if size >= (1 << 20) else 'KiB'} packed, 1 rank")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    # Transfers: the largest size of each kind, one group of bars per kind.
    ax = axes[2]
    kinds = [b for b in ("dtype.column", "dtype.face.x", "dtype.face.y", "dtype.face.z")
             if any(g["bench"] == b for g in res)]
    if kinds:
        width = 0.8 / len(IMPLS)
        labels, shown = [], set()
        for k, bench in enumerate(kinds):
            size = max(num(g["size"]) for g in res if g["bench"] == bench)
            n = next((e.get("n") for g in res if g["bench"] == bench and num(g["size"]) == size
                      for e in g["extra"] if e.get("n")), "?")
            labels.append(f"{bench[6:]}\nn={n}, {int(size) >> 10} KiB")
            for j, (impl, name, color, _) in enumerate(IMPLS):
                g = next((g for g in res if g["bench"] == bench and g["impl"] == impl
                          and num(g["size"]) == size), None)
                if g and g["median"] > 0:
                    ax.bar(k + (j - 1) * width, size / g["median"], width, color=color,
                           label=name if impl not in shown else None)
                    shown.add(impl)
        ax.set_xticks(range(len(kinds)))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("MB/s = bytes / one-way time (log; higher is better)")
        ax.set_title("Ping-pong of a column / cube face, 2 ranks")
        ax.grid(True, axis="y", which="both", alpha=0.3)
        no_result(ax, shown)
        ax.legend(fontsize=8)
    else:
        ax.set_visible(False)
    save(fig, os.path.join(out, "dtype.png"), "Derived datatypes (median over repetitions)")


def plot_hosts(data, out):
    """Latency and bandwidth between test hosts, each with the link's limits of the same run."""
    res = data["results"]
    pick = lambda b: series(res, lambda g: g["bench"] == b).get(b, {})  # noqa: E731
    styles = {"link.pingpong.poll": ("socket ping-pong, polling", "black", "--"),
              "link.pingpong.block": ("socket ping-pong, blocking", "dimgray", ":"),
              "link.stream": ("socket stream", "black", "--")}

    def curves(ax, bench, scale=1.0, ls="-", suffix=""):
        drawn = 0
        for impl, name, color, mark in IMPLS:
            for pts in pick(bench).get(impl, {}).values():
                pts = sorted((x, y * scale) for x, y in pts.items() if x > 0)
                if pts:
                    ax.plot(*zip(*pts), marker=mark, color=color, ls=ls, label=name + suffix, ms=4)
                    drawn += 1
        return drawn

    def limit(ax, bench, scale=1.0):
        label, color, ls = styles[bench]
        for pts in pick(bench).get("link", {}).values():
            pts = sorted((x, y * scale) for x, y in pts.items() if x > 0)
            if pts:
                ax.plot(*zip(*pts), color=color, ls=ls, label=label)

    fig, ax = plt.subplots(figsize=(7, 5))
    if curves(ax, "net.latency.2x1"):
        limit(ax, "link.pingpong.poll")
        limit(ax, "link.pingpong.block")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        size_axis(ax)
        ax.set_ylabel("one-way time (µs, log scale; lower is better)")
        ax.set_title("2 hosts × 1 rank, TCP")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        save(fig, os.path.join(out, "hosts_latency.png"),
             "Latency between test hosts (median over repetitions)")
    else:
        plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 5))
    n = curves(ax, "net.bandwidth.2x1", 1e-3)
    n += curves(ax, "net.bibw.2x1", 1e-3, ls=":", suffix=" (bidirectional)")
    if n:
        limit(ax, "link.stream", 1e-3)
        iperf = [v for p in pick("link.iperf3").get("link", {}).values() for v in p.values()]
        if iperf:
            ax.axhline(iperf[0] / 1000, color="gray", ls="-.", label="iperf3, 1 stream")
        ax.set_xscale("log", base=2)
        size_axis(ax)
        ax.set_ylim(bottom=0)
        ax.set_ylabel("GB/s (10^9 B/s; higher is better)")
        ax.set_title("2 hosts × 1 rank, TCP")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        save(fig, os.path.join(out, "hosts_bandwidth.png"),
             "Bandwidth between test hosts (median over repetitions)")
    else:
        plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    with open(args.json, encoding="utf-8") as f:
        data = json.load(f)
    out = args.out or os.path.dirname(os.path.abspath(args.json))
    for fn in (plot_latency, plot_bandwidth, plot_collectives, plot_apps, plot_dtype, plot_hosts):
        try:
            fn(data, out)
        except Exception as e:  # one broken plot must not cost the others
            print(f"plot.py: {fn.__name__} failed: {e!r}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
