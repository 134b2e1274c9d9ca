#!/usr/bin/env python3
"""Turn bench/run.sh's results.csv into results.json and a Markdown report.

usage: compare.py --csv results.csv [--meta meta.txt] [--json results.json]
                  [--report report.md] [--baseline old/results.json]
       compare.py --from-json results.json [--report report.md] [--baseline old.json]

Per (benchmark, ranks, size) the report shows the median over repetitions of each
implementation, its spread, the ratios Ferry/MPICH and Ferry/Open MPI of the
medians (with the direction of "better" stated per table), the numbers as a share
of the physical limits measured by bench/limits.c, the applications' speedups over
1 rank, a loud marker for every failed verification, a section for bench/dtype.c (pack
and unpack MB/s as a % of memcpy, column and cube-face transfers, the issue-4 targets)
and, with --baseline, the regressions against an older run. Python 3 standard library only.
"""

import argparse
import csv
import json
import math
import statistics
import sys
from collections import defaultdict

IMPLS = [("ferry", "Ferry"), ("mpich", "MPICH"), ("openmpi", "Open MPI")]
PEERS = [("mpich", "MPICH"), ("openmpi", "Open MPI")]
LOWER_BETTER = {"us": True, "s": True, "ns": True, "MBps": False, "msgps": False, "GBps": False,
                "Mops": False, "MiB": True, "ms": True, "opsps": False}
UNIT_TEXT = {"us": "µs", "s": "s", "ns": "ns", "MBps": "MB/s", "msgps": "msg/s", "GBps": "GB/s",
             "Mops": "Mop/s", "MiB": "MiB", "ms": "ms", "opsps": "ops/s"}
# A run under a background load (run.sh LOAD=...) carries load=<kind> in its extras; its
# measurements are the benchmark "<bench>@<kind>", next to the quiet "<bench>".
LOAD_SEP = "@"
LOAD_TEXT = {"quiet": "quiet", "cpu": "CPU hog per core", "mem": "memory-bandwidth hog",
             "both": "CPU hog per core + memory hog"}
PCTS = ("p10", "p50", "p90")
# Extra keys that name a variant of a benchmark (e.g. gauss -p rows): part of its name.
VARIANT_KEYS = ("p", "partition", "variant", "alg", "algorithm", "launcher", "layout")
# bench/hosts.sh: MPI runs between test hosts are "net.<bench>.<hosts>x<ranks per host>" (their
# layout= extra), the link's limits "link.*" (implementation "link"); they have their own section.
NET_PREFIXES = ("net.", "link.")
# bench/startup.sh: "startup.<launch|initfin>.<launcher>.<hosts>x<ranks per host>" (its launcher=
# and layout= extras), ms; its own section. The columns: (implementation, launcher), in order.
STARTUP_PREFIX = "startup."
STARTUP_COLS = [("ferry", "mpiexec", "Ferry (mpiexec)"), ("ferry", "hydra", "Ferry under Hydra"),
                ("mpich", "hydra", "MPICH (Hydra)"), ("openmpi", "mpirun", "Open MPI (mpirun)"),
                ("ferry", "srun", "Ferry (srun)"), ("mpich", "srun", "MPICH (srun)"),
                ("openmpi", "srun", "Open MPI (srun)")]
NOISE_FLOOR = 0.05
# Peers count as witnesses of machine drift only when their own repetitions agree within this,
# and the correction they give is bounded (a 2x drift within minutes has been seen here).
PEER_STABLE = 0.5
MAX_DRIFT = 2.5
# Time benchmarks whose value is the one-way time of one message of `size` bytes:
# above 1 KiB their size / time is a bandwidth, shown as a % of memcpy.
ONE_WAY = ("latency", "pingpong")
# Small collectives whose time, when ranks outnumber cores, is bounded below by the barrier of
# yielding processes of bench/limits.c (phys.yieldbarrier) rather than by the cache line:
# bench -> (smallest, largest) size in bytes to which that floor applies (an allreduce of 0 bytes
# does no communication at all).
YIELD_FLOOR = {"imb.barrier": (0, 0), "imb.allreduce": (1, 64)}
# (bench, ranks, size) of the headline table, when measured.
HEADLINE = [("latency", 2, "8"), ("imb.pingpong", 2, "8"), ("imb.pingpong", 2, "1048576"),
            ("bandwidth", 2, "65536"), ("bandwidth", 2, "1048576"), ("imb.uniband", 2, "1048576"),
            ("imb.msgrate", 2, "8"), ("ring", 2, "8"), ("ring", 8, "8"),
            ("imb.barrier", 2, "0"), ("imb.barrier", 8, "0"), ("imb.allreduce", 2, "8"),
            ("imb.allreduce", 8, "8"), ("imb.bcast", 8, "1048576"), ("imb.alltoall", 8, "1024"),
            ("osc.put_latency.lock_all", 2, "8"), ("osc.fop_latency.lock_all", 2, "8"),
            ("osc.put_bw.lock_all", 2, "1048576"), ("osc.counter", 8, "8")]  # a change below 5 % is never called a regression

# bench/dtype.c: summary rows (label, bench-name prefix), and the issue-4 target for vectors.
DTYPE_GROUPS = [("dtype pack", "dtype.pack."), ("dtype unpack", "dtype.unpack."),
                ("dtype column", "dtype.column"), ("dtype cube faces", "dtype.face.")]
DTYPE_TARGET_BLOCK = 256    # vector blocks of at least this many bytes ...
DTYPE_TARGET_PCT = 50.0     # ... pack and unpack within 2x of memcpy
DTYPE_FACES = {"x": "x (n² doubles, n apart)", "y": "y (n runs of n doubles)",
               "z": "z (one n² block)"}

# bench/osc.c: what its benchmarks measure, by prefix of their names (first match).
DESCRIPTION_PREFIXES = [
    ("osc.counter", "Every rank does MPI_Fetch_and_op(MPI_SUM, 1) on one int64 of rank 0's window, "
                    "each followed by MPI_Win_flush, under MPI_Win_lock_all (bench/osc.c); operations "
                    "of all ranks per second of a batch, barrier to barrier; the final counter is "
                    "checked exactly."),
    ("osc.", "One-sided operations from rank 0 to rank 1 (bench/osc.c, OSU's definitions): the name "
             "ends in the synchronisation (fence; lock = lock/unlock per operation; lock_all = one "
             "lock_all, a flush per operation or per window; pscw). Latency: one operation with its "
             "synchronisation (Put under fence and PSCW: a ping-pong, round trip / 2); bandwidth: "
             "windows of 32 operations, 1 MB = 10^6 bytes. Window from MPI_Win_allocate."),
]

DESCRIPTIONS = {
    "latency": "Blocking ping-pong between ranks 0 and 1 (bench/latency.c); one-way = round trip / 2.",
    "bandwidth": "Rank 0 keeps 64 MPI_Isend in flight to 64 pre-posted MPI_Irecv on rank 1, then "
                 "waits for a 4-byte ack (bench/bandwidth.c); 1 MB = 10^6 bytes.",
    "ring": "A token passed around all ranks (bench/ring.c); µs per hop of the median batch of laps.",
}


# --- loading -------------------------------------------------------------------------

def le(lim):
    """A target's test: a ratio at most lim (the limit kept for the report's wording)."""
    f = lambda r: r <= lim  # noqa: E731
    f.limit = lim
    return f


def ge(lim):
    """A target's test: a ratio at least lim."""
    f = lambda r: r >= lim  # noqa: E731
    f.limit = lim
    return f


# The targets of issue 14 (bench/osc.c), each read by Report.target_line as issue 11's are:
# (text, bench, ranks, (smallest, largest size in bytes), statistics, test of Ferry / best peer).
OSC_TARGETS = (
    [(f"{op} latency, lock_all + flush, 8 B, 2 ranks ≤ 0.5× best peer",
      f"osc.{name}_latency.lock_all", 2, (8, 8), ("median",), le(0.5))
     for op, name in (("Put", "put"), ("Get", "get"), ("Fetch_and_op", "fop"),
                      ("Compare_and_swap", "cas"))] +
    [(f"{op} bandwidth, {sync}, 64 KiB–4 MiB ≥ 1.0× best peer", f"osc.{op.lower()}_bw.{sync}", 2,
      (64 << 10, 4 << 20), ("median",), ge(1.0))
     for op in ("Put", "Get") for sync in ("lock_all", "lock", "fence", "pscw")] +
    [("contended counter (Fetch_and_op on rank 0), 8 ranks ≥ 10× best peer's ops/s", "osc.counter",
      8, (8, 8), ("median",), ge(10.0))])


def num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def size_key(s):
    v = num(s)
    return (0, v, "") if v is not None else (1, 0, str(s))


def read_meta(path):
    meta = {}
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    key, sep, value = line.rstrip("\n").partition("=")
                    if sep:
                        meta[key] = value.strip()
        except OSError:
            pass
    return meta


def parse_extra(text):
    out = {}
    for part in (text or "").split(";"):
        k, sep, v = part.partition("=")
        if sep:
            out[k] = v
    return out


def aggregate(rows):
    """Groups CSV rows into one record per (impl, bench, ranks, np, size)."""
    groups = {}
    runs = defaultdict(set)  # (impl, program, np) -> reps attempted
    run_fail = defaultdict(lambda: defaultdict(set))  # (impl, program, np) -> status -> reps
    for r in rows:
        impl, program, np = r["impl"], r["program"], int(r["np"])
        runs[(impl, program, np)].add(r["rep"])
        if r["size"] == "*":
            run_fail[(impl, program, np)][r["status"]].add(r["rep"])
            continue
        extra = parse_extra(r.get("extra"))
        bench = r["bench"]
        for k in VARIANT_KEYS:
            if k in extra:
                bench = f"{bench}.{extra[k]}"
        base = bench
        if extra.get("load", "quiet") != "quiet":
            bench = f"{bench}{LOAD_SEP}{extra['load']}"
        key = (impl, bench, int(float(r["ranks"] or np)), np, r["size"])
        g = groups.setdefault(key, dict(impl=impl, bench=bench, base=base,
                                        load=extra.get("load", "quiet"), program=program,
                                        ranks=key[2], np=np, size=r["size"], unit=r["unit"],
                                        values=[], statuses=[], extra=[]))
        g["statuses"].append(r["status"])
        if r["status"] == "ok" and num(r["value"]) is not None:
            g["values"].append(num(r["value"]))
        g["extra"].append(extra)
    results = []
    for g in groups.values():
        vals = g["values"]
        g["reps_tried"] = len(runs.get((g["impl"], g["program"], g["np"]), ())) or 1
        if vals:
            med = statistics.median(vals)
            g["median"] = med
            g["min"], g["max"] = min(vals), max(vals)
            g["spread"] = (max(vals) - min(vals)) / med if med else 0.0
        # Spreads of single operations (latency, bandwidth, ring print them): the median over
        # repetitions of each percentile.
        for p in PCTS:
            pv = [num(e.get(p)) for e, st in zip(g["extra"], g["statuses"])
                  if st == "ok" and num(e.get(p)) is not None]
            if pv:
                g[p] = statistics.median(pv)
        if "FAILED" in g["statuses"]:
            g["status"] = "FAILED"
        elif vals:
            g["status"] = "ok"
        elif "unsupported" in g["statuses"]:
            g["status"] = "unsupported"
        else:
            g["status"] = g["statuses"][0] if g["statuses"] else "missing"
        results.append(g)
    failures = [dict(impl=i, program=p, np=n, status=s, reps=sorted(reps))
                for (i, p, n), st in run_fail.items() for s, reps in st.items()]
    return results, failures


def build_json(rows, meta):
    results, failures = aggregate(rows)
    limits = {"memcpy_GBps": {}, "cacheline_ns": None}
    phys = [g for g in results if g["bench"].startswith("phys.")]
    for g in phys:
        if g["bench"] == "phys.memcpy" and "median" in g:
            limits["memcpy_GBps"][str(int(float(g["size"])))] = g["median"]
        if g["bench"] == "phys.cacheline" and "median" in g:
            limits["cacheline_ns"] = g["median"]
            limits["cacheline_best_ns"] = num(g["extra"][0].get("best")) if g["extra"] else None
            limits["cacheline_pinned"] = g["extra"][0].get("pinned") if g["extra"] else None
        if g["bench"] in ("phys.yieldbarrier", "phys.yieldbarrier_flags") and "median" in g:
            # {"ranks": value}: a barrier of that many yielding processes (µs).
            key = g["bench"][len("phys."):]
            x = g["extra"][0] if g["extra"] else {}
            p = str(g["ranks"])
            limits.setdefault(f"{key}_us", {})[p] = g["median"]
            limits.setdefault(f"{key}_best_us", {})[p] = num(x.get("best"))
            limits.setdefault(f"{key}_switches", {})[p] = num(x.get("switches"))
            limits.setdefault(f"{key}_cpus_used", {})[p] = num(x.get("cpus_used"))
            if num(x.get("cpus")):
                limits["yieldbarrier_cpus"] = int(num(x["cpus"]))
    return dict(meta=meta, limits=limits, failures=failures,
                results=[g for g in results if not g["bench"].startswith("phys.")], rows=rows)


# --- formatting ----------------------------------------------------------------------

# Benchmarks whose size is a count, not bytes (apps/is: the number of keys).
COUNT_SIZES = ("is.", "is@")


def human_size(s, unit, bench=""):
    v = num(s)
    if bench.startswith(COUNT_SIZES) and v is not None and v == int(v):
        n = int(v)
        return f"2^{n.bit_length() - 1} keys" if n & (n - 1) == 0 else f"{n:,} keys"
    if v is None or unit == "s" or v != int(v):
        return str(s)
    n = int(v)
    for name, shift in (("MiB", 20), ("KiB", 10)):
        if n >= (1 << shift) and n % (1 << shift) == 0:
            return f"{n >> shift} {name}"
    return f"{n} B"


def fmt(v):
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.1f}"
    if a >= 10:
        return f"{v:.2f}"
    return f"{v:.3f}"


def fmt_ratio(r):
    return f"{r:.2f}" if r >= 0.1 else f"{r:.2g}"


def convention(lower_better):
    if lower_better:
        return ("**Lower is better.** Ratio = Ferry / peer: **< 1 means Ferry is faster**, "
                "> 1 means Ferry is slower.")
    return ("**Higher is better.** Ratio = Ferry / peer: **> 1 means Ferry is faster**, "
            "< 1 means Ferry is slower (the reverse of the time tables).")


class Report:
    def __init__(self, data):
        self.data = data
        self.meta = data["meta"]
        self.limits = data["limits"]
        self.by_key = {}
        self.tables = defaultdict(set)  # (bench, ranks, np) -> sizes
        self.unit = {}
        self.program = {}
        for g in data["results"]:
            self.by_key[(g["impl"], g["bench"], g["ranks"], g["np"], g["size"])] = g
            self.tables[(g["bench"], g["ranks"], g["np"])].add(g["size"])
            self.unit[g["bench"]] = g["unit"] or self.unit.get(g["bench"], "")
            self.program[g["bench"]] = g["program"]
        self.fail = defaultdict(dict)
        for f in data["failures"]:
            self.fail[(f["impl"], f["program"], f["np"])][f["status"]] = f["reps"]
        self.out = []

    def impl_ok(self, impl):
        return self.meta.get(f"status_{impl}", "ok").startswith("ok")

    def median(self, impl, bench, ranks, np, size):
        g = self.by_key.get((impl, bench, ranks, np, size))
        return g.get("median") if g else None

    def cell(self, impl, bench, ranks, np, size):
        if not self.impl_ok(impl):
            return "n/a"
        g = self.by_key.get((impl, bench, ranks, np, size))
        if g and g["status"] == "FAILED":
            text = "**!! FAILED !!**"
            if "median" in g:
                text += f" ({fmt(g['median'])})"
            return text
        if g and "median" in g:
            text = fmt(g["median"])
            if len(g["values"]) >= 2 and g["median"] > 0:
                half = g["spread"] * 50
                text += f" ±{half:.0f}%" if half < 1000 else " ±>999%"
            if len(g["values"]) < g["reps_tried"]:
                text += f" ({len(g['values'])}/{g['reps_tried']} runs)"
            return text
        if g and g["status"] == "unsupported":
            return "unsupported"
        bad = self.fail.get((impl, self.program.get(bench, bench), np), {})
        if "timeout" in bad:
            return f"timeout (>{self.meta.get('timeout', '?')} s)"
        if bad:
            return "run failed"
        return "–"

    def cores(self):
        """The machine's core count: run.sh's meta, else what limits.c saw, else None."""
        n = int(num(self.meta.get("cpus")) or 0) or self.limits.get("yieldbarrier_cpus")
        return n or None

    def yield_floor(self, bench, ranks, size):
        """phys.yieldbarrier at `ranks` processes (µs) when it bounds this measurement: a
        barrier or a small allreduce, ranks outnumbering the cores (or the core count
        unknown and the floor measured at that count); else None."""
        lo, hi = YIELD_FLOOR.get(bench, (None, None))
        v = num(size)
        if lo is None or v is None or not lo <= v <= hi:
            return None
        n = self.cores()
        if n is not None and ranks <= n:
            return None
        floor = (self.limits.get("yieldbarrier_us") or {}).get(str(ranks))
        return floor if floor and floor > 0 else None

    def limit_text(self, impl, bench, ranks, np, size, unit):
        med = self.median(impl, bench, ranks, np, size)
        v = num(size)
        if med is None or v is None or med <= 0:
            return "–"
        floor = self.yield_floor(bench, ranks, size) if unit == "us" else None
        if floor:
            return f"×{med / floor:.1f} floor"
        cl = self.limits.get("cacheline_ns")
        if unit == "us" and cl and v <= 1024:
            return f"×{med * 1000 / cl:.1f}"
        if not self.limits.get("memcpy_GBps") or v <= 1024:
            return "–"
        table = {int(k): x for k, x in self.limits["memcpy_GBps"].items()}
        below = [k for k in table if k <= v]
        ref = table[max(below)] if below else table[min(table)]
        if unit == "MBps":
            return f"{med / (ref * 1000) * 100:.0f}%"
        if unit == "us" and bench.lower().rsplit(".", 1)[-1] in ONE_WAY:
            return f"{v / med / (ref * 1000) * 100:.0f}%"  # size / one-way time = MB/s
        return "–"

    def geomeans(self, bench, ranks, np):
        return self.geomeans_over([(bench, ranks, np)])

    def geomeans_over(self, keys):
        """Geometric mean of Ferry/peer over every size of every (bench, ranks, np) in keys."""
        logs = {p: [] for p, _ in PEERS}
        for bench, ranks, np in keys:
            for size in self.tables[(bench, ranks, np)]:
                f = self.median("ferry", bench, ranks, np, size)
                for p, _ in PEERS:
                    o = self.median(p, bench, ranks, np, size)
                    if f and o and f > 0 and o > 0:
                        logs[p].append(math.log(f / o))
        return {p: (math.exp(sum(v) / len(v)) if v else None) for p, v in logs.items()}

    def title(self, bench, ranks, np):
        ncpu = int(self.meta.get("cpus", "0") or 0)
        t = f"{bench}, {ranks} rank{'s' if ranks != 1 else ''}"
        if np != ranks:
            t += f" (job of {np})"
        if ncpu and np > ncpu:
            t += f" — oversubscribed ({np} ranks on {ncpu} cores)"
        return t

    def order(self):
        def k(t):
            bench, ranks, np = t
            prog = self.program.get(bench, "")
            grp = {"latency": 0, "bandwidth": 1, "ring": 2, "imb": 3}.get(prog, 4)
            return (grp, bench.lower(), ranks, np)
        return sorted(self.tables, key=k)

    def is_app(self, bench):
        """An application's run time (apps/*.c, unit s); their other measurements (is.mops,
        is.alltoallv) are detailed tables like the micro-benchmarks'."""
        return self.program.get(bench, "").startswith("apps/") and self.unit.get(bench) == "s"

    def is_footprint(self, bench):
        return self.program.get(bench, "") == "footprint"

    @staticmethod
    def load_of(bench):
        return bench.split(LOAD_SEP, 1)[1] if LOAD_SEP in bench else "quiet"

    @staticmethod
    def base_of(bench):
        return bench.split(LOAD_SEP, 1)[0]

    def caption(self, load="quiet"):
        """The one-line caption under every table heading: the CPU, its caches, the load(s)
        (several joined by " | ")."""
        m = self.meta
        parts = []
        for c in load.split(" | "):
            what = m.get(f"load_what_{c}") or LOAD_TEXT.get(c, c)
            parts.append(c if what == c else f"{c} ({what})")
        return (f"*Machine: {m.get('cpu_model', '?')}, {m.get('cpus', '?')} CPUs; caches "
                f"{m.get('caches', '?')}; load: {', '.join(parts)}.*\n")

    def is_dtype(self, bench):
        return self.program.get(bench, "") == "dtype"

    @staticmethod
    def is_startup(bench):
        return bench.startswith(STARTUP_PREFIX)

    @staticmethod
    def is_net(bench):
        return bench.startswith(NET_PREFIXES)

    # --- sections --------------------------------------------------------------------

    def header(self):
        m, o = self.meta, self.out
        o.append("# Ferry benchmark report\n")
        o.append(f"Run {m.get('date', '?')} on `{m.get('host', '?')}`: {m.get('cpu_model', '?')}, "
                 f"{m.get('cpus', '?')} cores, {m.get('memory', '?')} memory, {m.get('kernel', '?')}. "
                 f"Repo commit `{m.get('commit', '?')}`; {m.get('reps', '?')} repetitions per run"
                 f"{' (QUICK mode)' if m.get('quick') == '1' else ''}, implementations alternating "
                 f"for every (program, rank count), each run limited to {m.get('timeout', '?')} s"
                 f"{', total ' + m['wall_s'] + ' s' if m.get('wall_s') else ''}.\n")
        if m.get("skipped_budget", "0") not in ("", "0"):
            o.append(f"**The time budget of {m.get('budget')} s was spent: {m['skipped_budget']} "
                     "runs (the tail of the last repetitions) were not started**, so some cells "
                     "have fewer repetitions than others.\n")
        o.append(f"Load average (1/5/15 min) at start: {m.get('load_start', '?')}, at end: "
                 f"{m.get('load_end', '?')}. On this {m.get('cpus', '?')}-core machine anything "
                 "well above 0 means other work shared the cores and the numbers are noisier.\n")
        o.append("| implementation | status | version | library |")
        o.append("|---|---|---|---|")
        for impl, name in IMPLS:
            lib = " ".join(m.get(f"library_{impl}", "").replace("|", "/").split())
            o.append(f"| {name} | {m.get(f'status_{impl}', 'n/a')} | "
                     f"{m.get(f'version_{impl}', '')} | {lib} |")
        if m.get("ferry_libmpi"):
            o.append(f"\nFerry binaries resolve `{m['ferry_libmpi'].strip()}`.")
        builds = [f"{k[10:]}" for k in m if k.startswith("buildfail_")]
        if builds:
            o.append("\nPrograms that did not build (skipped): " + ", ".join(sorted(builds)) + ".")
        o.append("")
        o.append("Each cell is the **median** over repetitions; ±x% is half the min–max range "
                 "relative to the median (ratios closer to 1 than that are noise). "
                 "\"(k/n runs)\" means only k of n runs produced the number. Ratios are Ferry's "
                 "median divided by the peer's; every table says which way is better.\n")

    def failures(self):
        failed = [g for g in self.data["results"] if g["status"] == "FAILED"]
        runs = [f for f in self.data["failures"] if f["impl"] != "none"]
        if not failed and not runs:
            return
        o = self.out
        if failed:
            o.append("## !! FAILED VERIFICATION !!\n")
            o.append("These measurements printed `status=FAILED`: the program received wrong data "
                     "or computed a wrong answer, so their numbers mean nothing.\n")
            for g in sorted(failed, key=lambda g: (g["impl"], g["bench"], g["ranks"])):
                o.append(f"- **FAILED**: {dict(IMPLS).get(g['impl'], g['impl'])} `{g['bench']}` "
                         f"ranks={g['ranks']} size={g['size']} "
                         f"({g['statuses'].count('FAILED')}/{len(g['statuses'])} runs)")
            o.append("")
        if runs:
            o.append("## Runs that failed or timed out\n")
            for f in sorted(runs, key=lambda f: (f["impl"], f["program"], f["np"])):
                o.append(f"- {dict(IMPLS).get(f['impl'], f['impl'])} `{f['program']}` -n {f['np']}: "
                         f"{f['status']} in repetition(s) {', '.join(f['reps'])} (see logs/)")
            o.append("")

    def headline(self):
        """A few key numbers, those present of HEADLINE."""
        rows = []
        for bench, ranks, size in HEADLINE:
            if any((i, bench, ranks, ranks, size) in self.by_key for i, _ in IMPLS):
                rows.append((bench, ranks, size))
        if not rows:
            return
        o = self.out
        o.append("## Headline\n")
        o.append(self.caption())
        floor = ("; for barriers and small allreduces with more ranks than cores, × floor: a "
                 "multiple of the barrier of as many yielding processes, see Physical limits"
                 if self.limits.get("yieldbarrier_us") else "")
        o.append("Medians; each row says which way is better. Ratio = Ferry / peer. The last "
                 "column relates Ferry to the machine (× cache-line bounce, or % of memcpy"
                 f"{floor}).\n")
        o.append("| measurement | unit | better | Ferry | MPICH | Open MPI | Ferry/MPICH | "
                 "Ferry/Open MPI | Ferry vs limit |")
        o.append("|---|---|---|---:|---:|---:|---:|---:|---:|")
        for bench, ranks, size in rows:
            unit = self.unit.get(bench, "")
            lower = LOWER_BETTER.get(unit, True)
            cells = [self.cell(i, bench, ranks, ranks, size) for i, _ in IMPLS]
            f = self.median("ferry", bench, ranks, ranks, size)
            rat = []
            for p, _ in PEERS:
                v = self.median(p, bench, ranks, ranks, size)
                rat.append(fmt_ratio(f / v) if f is not None and v else "–")
            o.append(f"| {bench} {human_size(size, unit)}, {ranks} ranks | "
                     f"{UNIT_TEXT.get(unit, unit)} | {'lower' if lower else 'higher'} | "
                     + " | ".join(cells + rat) + " | "
                     + self.limit_text("ferry", bench, ranks, ranks, size, unit) + " |")
        o.append("")

    def summary(self):
        o = self.out
        if all(self.is_net(b) or self.is_startup(b) for (b, r, n) in self.tables):
            return  # only measurements between hosts or of startup: their own sections have them
        o.append("## Summary: Ferry against its peers\n")
        o.append(self.caption(" | ".join(self.loads())))
        o.append("Geometric mean over all sizes of Ferry's median / the peer's median. "
                 "**For µs and s (time) lower is better: < 1 means Ferry is faster. For MB/s and "
                 "msg/s higher is better: > 1 means Ferry is faster.** The verdict column reads the "
                 "ratio for you.\n")
        o.append("| benchmark | ranks | unit | better | Ferry/MPICH | Ferry/Open MPI | verdict | notes |")
        o.append("|---|---:|---|---|---:|---:|---|---|")
        for bench, ranks, np in self.order():
            if self.is_app(bench) or self.is_dtype(bench) or self.is_footprint(bench) or \
                    self.is_net(bench) or self.is_startup(bench):
                continue
            rk = f"{ranks}" + (f" (of {np})" if np != ranks else "")
            self.summary_row(bench, rk, [(bench, ranks, np)])
        for label, prefix in DTYPE_GROUPS:
            keys = [t for t in self.order() if self.is_dtype(t[0]) and t[0].startswith(prefix)]
            if keys:
                rks = sorted({f"{r}" + (f" (of {n})" if n != r else "") for _, r, n in keys})
                self.summary_row(f"{label} ({len(keys)} kind{'s' if len(keys) > 1 else ''})",
                                 ", ".join(rks), keys)
        apps = self.app_benches()
        if apps:
            o.append("")
            o.append("Applications (time in s, lower is better; geomean over rank counts of Ferry/peer):\n")
            o.append("| application | Ferry/MPICH | Ferry/Open MPI | best Ferry speedup (ranks) |")
            o.append("|---|---:|---:|---|")
            for bench, size in apps:
                logs = {p: [] for p, _ in PEERS}
                for ranks, np in self.app_ranks(bench, size):
                    f = self.median("ferry", bench, ranks, np, size)
                    for p, _ in PEERS:
                        v = self.median(p, bench, ranks, np, size)
                        if f and v and f > 0 and v > 0:
                            logs[p].append(math.log(f / v))
                gm = [fmt_ratio(math.exp(sum(v) / len(v))) if v else "–" for v in logs.values()]
                sp = self.speedups("ferry", bench, size)
                best = max(sp.items(), key=lambda kv: kv[1]) if sp else None
                o.append(f"| {bench} (size {size}) | {gm[0]} | {gm[1]} | "
                         f"{f'{best[1]:.2f} ({best[0]})' if best else '–'} |")
        o.append("")

    def summary_row(self, label, rk, keys):
        """One row of the summary: geomean of Ferry/peer over the tables in keys."""
        o = self.out
        unit = self.unit.get(keys[0][0], "")
        lower = LOWER_BETTER.get(unit, True)
        gm = self.geomeans_over(keys)
        cells, verdicts = [], []
        for p, name in PEERS:
            r = gm[p]
            cells.append(fmt_ratio(r) if r else "–")
            if r:
                faster = (r < 1) if lower else (r > 1)
                factor = max(r, 1 / r)
                verdicts.append(f"{'faster' if faster else 'slower'} than {name} ×{factor:.2f}")
        notes = []
        for impl, name in IMPLS:
            sts = [self.by_key[k]["status"] for k in self.by_key
                   if k[0] == impl and k[1:4] in keys]
            if "FAILED" in sts:
                notes.append(f"**{name} FAILED**")
            elif sts and all(s == "unsupported" for s in sts):
                notes.append(f"{name} unsupported")
            elif "unsupported" in sts:
                notes.append(f"{name} partly unsupported")
            bad = {}
            for bench, _, np in keys:
                bad.update(self.fail.get((impl, self.program.get(bench, bench), np), {}))
            if "timeout" in bad:
                notes.append(f"{name} timeout")
        o.append(f"| {label} | {rk} | {UNIT_TEXT.get(unit, unit)} | "
                 f"{'lower' if lower else 'higher'} | {cells[0]} | {cells[1]} | "
                 f"{'; '.join(verdicts) or '–'} | {', '.join(notes)} |")

    def physical(self):
        L, o = self.limits, self.out
        if not L.get("memcpy_GBps") and not L.get("cacheline_ns") and not L.get("yieldbarrier_us"):
            return
        o.append("## Physical limits of this machine (bench/limits.c, no MPI)\n")
        o.append(self.caption())
        if L.get("cacheline_ns"):
            pin = "" if L.get("cacheline_pinned") == "1" else " (threads NOT pinned)"
            o.append(f"Cache line bounced between CPU 0 and CPU 1{pin}: **{L['cacheline_ns']:.1f} ns** "
                     f"one way (median batch; best {L.get('cacheline_best_ns') or 0:.1f} ns). "
                     "A shared-memory MPI message needs at least one such transfer each way; "
                     "the latency tables give small-message times as a multiple (×) of it.\n")
        if L.get("memcpy_GBps"):
            sizes = sorted(L["memcpy_GBps"], key=int)
            o.append("Single-thread memcpy bandwidth, GB/s (higher is better); the bandwidth tables "
                     "give MB/s as a % of it at the same size (a single-copy transport can reach "
                     "~100 %, a copy-in/copy-out one about 50 %; cached small sizes can exceed it):\n")
            o.append("| " + " | ".join(human_size(s, "B") for s in sizes) + " |")
            o.append("|" + "|".join(["---:"] * len(sizes)) + "|")
            o.append("| " + " | ".join(f"{L['memcpy_GBps'][s]:.1f}" for s in sizes) + " |")
        if L.get("yieldbarrier_us") or L.get("yieldbarrier_flags_us"):
            self.physical_floor()
        o.append("")

    def physical_floor(self):
        L, o = self.limits, self.out
        n = self.cores()
        counts = sorted(set(L.get("yieldbarrier_us", {})) | set(L.get("yieldbarrier_flags_us", {})),
                        key=int)
        o.append("")
        o.append("Barrier of P forked processes that call sched_yield() between polls, µs per "
                 "barrier (lower is better; median batch, best in parentheses): *counter* = "
                 "fetch-add on a shared counter, the last arriver bumps a generation word; "
                 "*flags* = each process stores its round in its own cache line and waits for all "
                 "lines. With more processes than cores every process must be scheduled once per "
                 "barrier, so this is the cost of the context switches alone: **the floor under "
                 "any MPI barrier, and an allreduce of a few bytes, when ranks outnumber cores**. "
                 "imb.barrier and imb.allreduce of 1-64 B at those rank counts give their time "
                 "as a multiple of the counter barrier (\"×k floor\"). Switches = context "
                 "switches of all P processes per barrier (P − 1, the fewest possible, when every "
                 "process but the last to arrive gives up its core once). CPUs used = on how many "
                 "cores the unpinned processes ran: on one, the switches happen one after the "
                 "other, and an MPI whose ranks the scheduler spreads over k cores can go below "
                 "the floor, by at most k. Measured once at the start of the run, so a busy "
                 f"machine raises it as it raises the MPI numbers; {n or '?'} cores.\n")
        o.append("| processes | counter µs | flags µs | switches per barrier | CPUs used | "
                 "floor of MPI |")
        o.append("|---:|---:|---:|---:|---:|---|")

        def val(key, p):
            v = L.get(f"{key}_us", {}).get(p)
            if v is None:
                return "–"
            b = L.get(f"{key}_best_us", {}).get(p)
            return fmt(v) + (f" ({fmt(b)})" if b else "")

        for p in counts:
            sw = L.get("yieldbarrier_switches", {}).get(p)
            cu = L.get("yieldbarrier_cpus_used", {}).get(p)
            used = "yes" if n is None or int(p) > n else f"no ({p} ≤ {n} cores)"
            o.append(f"| {p} | {val('yieldbarrier', p)} | {val('yieldbarrier_flags', p)} | "
                     f"{f'{sw:.1f}' if sw is not None else '–'} | "
                     f"{f'{cu:.0f}' if cu is not None else '–'} | {used} |")

    def table(self, bench, ranks, np):
        o = self.out
        unit = self.unit.get(bench, "")
        lower = LOWER_BETTER.get(unit, True)
        o.append(f"### {self.title(bench, ranks, np)}, {UNIT_TEXT.get(unit, unit)}\n")
        o.append(self.caption(self.load_of(bench)))
        desc = DESCRIPTIONS.get(self.base_of(bench)) or next(
            (t for p, t in DESCRIPTION_PREFIXES if self.base_of(bench).startswith(p)), None)
        if desc:
            o.append(desc + "\n")
        o.append(convention(lower) + "\n")
        sizes = sorted(self.tables[(bench, ranks, np)], key=size_key)
        limit_col = any(self.limit_text(i, bench, ranks, np, s, unit) != "–"
                        for s in sizes for i, _ in IMPLS)
        head = ["size"] + [n for _, n in IMPLS] + [f"Ferry/{n}" for _, n in PEERS]
        if limit_col:
            what = "% of memcpy"
            if unit == "us":
                what = "× cache line ≤ 1 KiB" + (", % of memcpy above" if
                                                 bench.lower().rsplit(".", 1)[-1] in ONE_WAY else "")
                if any(self.yield_floor(bench, ranks, s) for s in sizes):
                    lo, hi = YIELD_FLOOR[bench]
                    floor = "× yielding-barrier floor"
                    what = f"{floor} {lo}-{hi} B, else {what}" if hi else floor
            head.append(f"{what} (F / M / O)")
        o.append("| " + " | ".join(head) + " |")
        o.append("|" + "|".join(["---:"] * len(head)) + "|")
        for size in sizes:
            row = [human_size(size, unit, bench)]
            row += [self.cell(i, bench, ranks, np, size) for i, _ in IMPLS]
            f = self.median("ferry", bench, ranks, np, size)
            for p, _ in PEERS:
                v = self.median(p, bench, ranks, np, size)
                row.append(fmt_ratio(f / v) if f is not None and v else "–")
            if limit_col:
                row.append(" / ".join(self.limit_text(i, bench, ranks, np, size, unit) for i, _ in IMPLS))
            o.append("| " + " | ".join(row) + " |")
        gm = self.geomeans(bench, ranks, np)
        if len(sizes) > 1 and any(gm.values()):
            row = ["**geomean**"] + [""] * len(IMPLS)
            row += [f"**{fmt_ratio(gm[p])}**" if gm[p] else "–" for p, _ in PEERS]
            if limit_col:
                row.append("")
            o.append("| " + " | ".join(row) + " |")
        o.append("")

    # --- bench/startup.sh -----------------------------------------------------------------

    def startup(self):
        """Startup at scale: per placement (one host; N hosts; srun) a table of rank counts
        against (implementation, launcher), each cell the median whole launch and the median of
        the slowest rank's MPI_Init + MPI_Finalize, and Ferry under its own launcher over the
        better of MPICH under Hydra and Open MPI under mpirun."""
        m, o = self.meta, self.out
        seen = defaultdict(dict)  # (placement, hosts) -> {(impl, launcher, what, n): group}
        for g in self.data["results"]:
            b = g["bench"]
            if not b.startswith(STARTUP_PREFIX) or LOAD_SEP in b:
                continue
            parts = b.split(".")
            if len(parts) != 4 or "x" not in parts[3]:
                continue
            _, what, launcher, layout = parts
            hosts = int(layout.split("x")[0])
            place = ("srun" if launcher == "srun" else "hosts" if hosts > 1 else "one", hosts)
            seen[place][(g["impl"], launcher, what, g["ranks"])] = g
        if not seen and not m.get("startup_skipped_hosts") and not m.get("startup_srun"):
            return
        o.append("## Startup at scale (bench/startup.sh)\n")
        o.append(self.caption())
        o.append("bench/hello.c (MPI_Init, MPI_Barrier, MPI_Finalize) launched whole: **launch** = "
                 "ms from the launcher's start to its exit; **init+fin** = the slowest rank's time "
                 "inside MPI_Init plus MPI_Finalize (each rank's own clock readings; all ranks share "
                 "this machine's clock). Medians over launches "
                 f"({m.get('startup_reps', '?')} per rank count, {m.get('startup_reps_big', '?')} "
                 f"from {m.get('startup_big', '?')} ranks). Ferry/best: Ferry under its own mpiexec "
                 "over the better of MPICH under Hydra and Open MPI under mpirun; lower is better.\n")
        titles = {"one": "one host", "hosts": "{h} test hosts", "srun": "srun on {h} test hosts"}
        for place in sorted(seen, key=lambda p: ("one", "hosts", "srun").index(p[0])):
            cells = seen[place]
            cols = [c for c in STARTUP_COLS if any(k[:2] == c[:2] for k in cells)]
            o.append(f"### Startup, {titles[place[0]].format(h=place[1])}, ms (launch / init+fin)\n")
            head = ["ranks"] + [c[2] for c in cols] + ["Ferry/best launch", "Ferry/best init+fin"]
            o.append("| " + " | ".join(head) + " |")
            o.append("|" + "|".join(["---:"] * len(head)) + "|")
            for n in sorted({k[3] for k in cells}):
                row = [str(n)]
                for impl, launcher, _ in cols:
                    row.append(" / ".join(self.startup_cell(cells.get((impl, launcher, w, n)))
                                          for w in ("launch", "initfin")))
                for w in ("launch", "initfin"):
                    f = cells.get(("ferry", "mpiexec", w, n), {}).get("median")
                    if place[0] == "srun":
                        f = cells.get(("ferry", "srun", w, n), {}).get("median")
                        peers = [("mpich", "srun"), ("openmpi", "srun")]
                    else:
                        peers = [("mpich", "hydra"), ("openmpi", "mpirun")]
                    pv = [cells.get((i, l, w, n), {}).get("median") for i, l in peers]
                    pv = [v for v in pv if v]
                    row.append(fmt_ratio(f / min(pv)) if f and pv else "–")
                o.append("| " + " | ".join(row) + " |")
            o.append("")
        o.append("(k/n): only k of n launches gave the number; the others timed out, failed or "
                 "hung after their results (exit_hang: killed STARTUP_EXIT_GRACE s after rank 0 "
                 "said it was finalizing).\n")
        for key, text in (("startup_skipped_hosts", "Between test hosts"), ("startup_srun", "Under srun")):
            if m.get(key) and not m[key].startswith("ok"):
                o.append(f"{text}: {m[key]}.\n")
        for key in sorted(k for k in m if k.startswith("startup_status_")):
            if not m[key].startswith("ok"):
                group, col = key[len("startup_status_"):].split("_", 1)
                o.append(f"{col} in the group {group}: {m[key]}.\n")

    def startup_cell(self, g):
        if not g:
            return "–"
        if "median" in g:
            text = fmt(g["median"])
            if len(g["values"]) < g["reps_tried"]:
                text += f" ({len(g['values'])}/{g['reps_tried']})"
            return text
        return g["status"]

    # --- bench/dtype.c --------------------------------------------------------------

    def dtype_keys(self, prefix):
        return [t for t in self.order() if self.is_dtype(t[0]) and t[0].startswith(prefix)]

    def dtype_extra(self, impl, bench, ranks, np, size, key):
        """Median over this implementation's ok runs of an extra key (memcpy=, pct=)."""
        g = self.by_key.get((impl, bench, ranks, np, size))
        if not g:
            return None
        vals = [num(e.get(key)) for e, st in zip(g["extra"], g["statuses"]) if st == "ok"]
        vals = [v for v in vals if v is not None]
        return statistics.median(vals) if vals else None

    @staticmethod
    def dtype_type(bench):
        """'dtype.pack.vector.double.256B' -> (sort key, words, block bytes or None)."""
        name = bench.split(".", 2)[2] if bench.count(".") >= 2 else bench
        parts = name.split(".")
        if parts[0] == "vector" and len(parts) == 3:
            text = parts[2]
            mult = 1024 if text.endswith("KiB") else 1
            try:
                block = int(text.rstrip("KiB")) * mult
            except ValueError:
                block = 0
            return ((0 if parts[1] == "double" else 1, block, ""),
                    f"vector of {parts[1]}, {human_size(block, 'B')} blocks", block)
        words = {"indexed": "indexed, irregular blocks",
                 "struct": "struct {int; double; char[6]}"}.get(name, name)
        return ((2, 0, name), words, None)

    def dtype_throughput(self, op):
        """Pack or unpack table: MB/s, memcpy of the same bytes, % of memcpy."""
        keys = sorted(self.dtype_keys(f"dtype.{op}."), key=lambda t: self.dtype_type(t[0])[0])
        if not keys:
            return
        o = self.out
        o.append(f"### MPI_{op.capitalize()} throughput, MB/s of packed bytes\n")
        o.append(self.caption())
        o.append(convention(False) + " memcpy = the same number of bytes copied between the "
                 "same buffers right before each repetition of the operation: its best "
                 "repetition, median over every implementation's runs. % of memcpy = the best "
                 "repetition of the operation over the best memcpy of the same run (preemption "
                 "only slows a repetition, so best against best is the fair pair on a shared "
                 "machine), median over runs: **higher is better; 100 % = as fast as memcpy, "
                 f"the issue's target for vector blocks ≥ {DTYPE_TARGET_BLOCK} B is ≥ "
                 f"{DTYPE_TARGET_PCT:.0f} %**.\n")
        head = (["type", "size"] + [n for _, n in IMPLS] + ["memcpy"] +
                [f"Ferry/{n}" for _, n in PEERS] + ["% of memcpy (F / M / O)"])
        o.append("| " + " | ".join(head) + " |")
        o.append("|---|" + "|".join(["---:"] * (len(head) - 1)) + "|")
        for bench, ranks, np in keys:
            words = self.dtype_type(bench)[1] + (f" ({ranks} of {np} ranks)" if np != 2 else "")
            for size in sorted(self.tables[(bench, ranks, np)], key=size_key):
                row = [words, human_size(size, "B")]
                row += [self.cell(i, bench, ranks, np, size) for i, _ in IMPLS]
                mc = [num(e.get("memcpy")) for i, _ in IMPLS
                      for e, st in zip(self.by_key.get((i, bench, ranks, np, size), {}).get("extra", []),
                                       self.by_key.get((i, bench, ranks, np, size), {}).get("statuses", []))
                      if st == "ok" and num(e.get("memcpy")) is not None]
                row.append(fmt(statistics.median(mc)) if mc else "–")
                f = self.median("ferry", bench, ranks, np, size)
                for p, _ in PEERS:
                    v = self.median(p, bench, ranks, np, size)
                    row.append(fmt_ratio(f / v) if f is not None and v else "–")
                pcts = []
                for i, _ in IMPLS:
                    pct = self.dtype_extra(i, bench, ranks, np, size, "pct")
                    pcts.append(f"{pct:.0f}%" if pct is not None else "–")
                row.append(" / ".join(pcts))
                o.append("| " + " | ".join(row) + " |")
        gm = self.geomeans_over(keys)
        if any(gm.values()):
            row = ["**geomean**", ""] + [""] * (len(IMPLS) + 1)
            row += [f"**{fmt_ratio(gm[p])}**" if gm[p] else "–" for p, _ in PEERS] + [""]
            o.append("| " + " | ".join(row) + " |")
        o.append("")

    def dtype_transfers(self, prefix, title, what):
        keys = self.dtype_keys(prefix)
        if not keys:
            return
        o = self.out
        o.append(f"### {title}, one-way time in µs\n")
        o.append(self.caption())
        o.append(convention(True) + " MB/s = bytes / one-way time (**higher is better**).\n")
        head = ([what, "n", "bytes"] + [n for _, n in IMPLS] + [f"Ferry/{n}" for _, n in PEERS]
                + ["MB/s (F / M / O)"])
        o.append("| " + " | ".join(head) + " |")
        o.append("|---|" + "|".join(["---:"] * (len(head) - 1)) + "|")
        for bench, ranks, np in keys:
            kind = bench.rsplit(".", 1)[-1]
            label = (DTYPE_FACES.get(kind, kind) if bench.startswith("dtype.face.")
                     else "column of an n × n matrix")
            for size in sorted(self.tables[(bench, ranks, np)], key=size_key):
                n = None
                for i, _ in IMPLS:
                    g = self.by_key.get((i, bench, ranks, np, size))
                    for e in (g or {}).get("extra", []):
                        n = n or e.get("n")
                if n is None and num(size):  # not printed when unsupported: from the bytes
                    cells = num(size) / 8
                    n = int(round(cells if bench == "dtype.column" else math.sqrt(cells)))
                row = [label, str(n or "?"), human_size(size, "B")]
                row += [self.cell(i, bench, ranks, np, size) for i, _ in IMPLS]
                f = self.median("ferry", bench, ranks, np, size)
                for p, _ in PEERS:
                    v = self.median(p, bench, ranks, np, size)
                    row.append(fmt_ratio(f / v) if f is not None and v else "–")
                rates = []
                for i, _ in IMPLS:
                    t = self.median(i, bench, ranks, np, size)
                    rates.append(fmt(num(size) / t) if t and num(size) else "–")
                row.append(" / ".join(rates))
                o.append("| " + " | ".join(row) + " |")
        gm = self.geomeans_over(keys)
        if any(gm.values()):
            row = ["**geomean**", "", ""] + [""] * len(IMPLS)
            row += [f"**{fmt_ratio(gm[p])}**" if gm[p] else "–" for p, _ in PEERS] + [""]
            o.append("| " + " | ".join(row) + " |")
        o.append("")

    def dtype_targets(self):
        """The issue's two targets, as numbers: nothing here passes or fails a run."""
        o = self.out
        rows = []
        # 1. vectors with blocks >= 256 B, pack and unpack: % of memcpy.
        pcts = []
        for op in ("pack", "unpack"):
            for bench, ranks, np in self.dtype_keys(f"dtype.{op}.vector."):
                block = self.dtype_type(bench)[2]
                if block is None or block < DTYPE_TARGET_BLOCK:
                    continue
                for size in self.tables[(bench, ranks, np)]:
                    pct = self.dtype_extra("ferry", bench, ranks, np, size, "pct")
                    if pct is not None:
                        pcts.append((pct, f"{op} {self.dtype_type(bench)[1]}, {human_size(size, 'B')}"))
        if pcts:
            worst = min(pcts)
            gm = math.exp(sum(math.log(max(p, 1e-9)) for p, _ in pcts) / len(pcts))
            reached = sum(p >= DTYPE_TARGET_PCT for p, _ in pcts)
            rows.append((f"pack/unpack of vectors with blocks ≥ {DTYPE_TARGET_BLOCK} B within 2× "
                         f"of memcpy (≥ {DTYPE_TARGET_PCT:.0f} % of memcpy)",
                         f"geomean {gm:.0f} %, lowest {worst[0]:.0f} % ({worst[1]})",
                         f"{reached} of {len(pcts)}"))
        # 2. at least the best peer: throughput ratio Ferry / best peer (time: best / Ferry).
        for label, prefixes in (("pack and unpack, every type", ("dtype.pack.", "dtype.unpack.")),
                                ("column and cube faces", ("dtype.column", "dtype.face."))):
            ratios = []
            for prefix in prefixes:
                for bench, ranks, np in self.dtype_keys(prefix):
                    lower = LOWER_BETTER.get(self.unit.get(bench, ""), True)
                    for size in self.tables[(bench, ranks, np)]:
                        f = self.median("ferry", bench, ranks, np, size)
                        peers = [self.median(p, bench, ranks, np, size) for p, _ in PEERS]
                        peers = [v for v in peers if v]
                        if not f or not peers:
                            continue
                        r = min(peers) / f if lower else f / max(peers)
                        ratios.append((r, f"{bench[6:]}, {human_size(size, 'B')}"))
            if ratios:
                worst = min(ratios)
                gm = math.exp(sum(math.log(r) for r, _ in ratios) / len(ratios))
                rows.append((f"{label}: at least the best peer's throughput (Ferry / best peer ≥ 1)",
                             f"geomean {fmt_ratio(gm)}, lowest {fmt_ratio(worst[0])} ({worst[1]})",
                             f"{sum(r >= 1 for r, _ in ratios)} of {len(ratios)}"))
        o.append("### Targets of issue 4\n")
        if not rows:
            o.append("Ferry has no dtype measurement in this run (see the tables: unsupported, "
                     "failed or not built), so the targets cannot be read yet.\n")
            return
        o.append("Ferry's numbers against the targets (throughput ratios: **higher is better**; "
                 "for the transfers, throughput = bytes / time, so the ratio is the best peer's "
                 "time over Ferry's). \"Reached\" counts the measurements at or above the target; "
                 "on a shared machine a single QUICK run is a first look only.\n")
        o.append("| target | Ferry | reached |")
        o.append("|---|---|---:|")
        for t, v, r in rows:
            o.append(f"| {t} | {v} | {r} |")
        o.append("")

    def dtype(self):
        if not any(self.is_dtype(b) for b, _, _ in self.tables):
            return
        o = self.out
        o.append("## Derived datatypes (bench/dtype.c)\n")
        o.append("MPI_Pack and MPI_Unpack of committed derived types by one rank (the other "
                 "idles without spinning), next to a memcpy of the same bytes; and ping-pong "
                 "between 2 ranks of a strided matrix column (MPI_Type_vector) and of the faces "
                 "of an n³ cube of doubles (MPI_Type_create_subarray). Every cell is the median "
                 "over repetitions; see the header of bench/dtype.c for the types.\n")
        self.dtype_targets()
        self.dtype_throughput("pack")
        self.dtype_throughput("unpack")
        self.dtype_transfers("dtype.column", "Strided column (MPI_Type_vector), 2 ranks", "kind")
        self.dtype_transfers("dtype.face.", "Faces of an n³ cube (MPI_Type_create_subarray), "
                             "2 ranks", "face")

    def app_benches(self):
        seen = set()
        for (bench, ranks, np), sizes in self.tables.items():
            if self.is_app(bench):
                for s in sizes:
                    seen.add((bench, s))
        return sorted(seen, key=lambda t: (t[0], size_key(t[1])))

    def app_ranks(self, bench, size):
        return sorted({(r, n) for (b, r, n), ss in self.tables.items() if b == bench and size in ss})

    def speedups(self, impl, bench, size):
        """ranks -> T(1 rank) / T(ranks) for one implementation."""
        t1 = self.median(impl, bench, 1, 1, size)
        out = {}
        if not t1:
            return out
        for ranks, np in self.app_ranks(bench, size):
            t = self.median(impl, bench, ranks, np, size)
            if t:
                out[ranks] = t1 / t
        return out

    def apps(self):
        apps = self.app_benches()
        if not apps:
            return
        o = self.out
        ncpu = int(self.meta.get("cpus", "0") or 0)
        o.append("## Applications: time and speedup over 1 rank\n")
        o.append("Time in seconds: **lower is better; Ferry/peer < 1 means Ferry is faster.** "
                 "Speedup = time at 1 rank / time at n ranks of the same implementation: "
                 f"**higher is better**; on {ncpu or '?'} cores no speedup beyond {ncpu or '?'} is "
                 "possible, and rank counts above that are oversubscribed.\n")
        for bench, size in apps:
            o.append(f"### {bench}, problem size {size}\n")
            o.append(self.caption(self.load_of(bench)))
            head = ["ranks"] + [f"{n} (s)" for _, n in IMPLS] + [f"Ferry/{n}" for _, n in PEERS]
            head += [f"speedup {n}" for _, n in IMPLS]
            o.append("| " + " | ".join(head) + " |")
            o.append("|" + "|".join(["---:"] * len(head)) + "|")
            sp = {i: self.speedups(i, bench, size) for i, _ in IMPLS}
            for ranks, np in self.app_ranks(bench, size):
                over = " (oversubscribed)" if ncpu and np > ncpu else ""
                row = [f"{ranks}{over}"]
                row += [self.cell(i, bench, ranks, np, size) for i, _ in IMPLS]
                f = self.median("ferry", bench, ranks, np, size)
                for p, _ in PEERS:
                    v = self.median(p, bench, ranks, np, size)
                    row.append(fmt_ratio(f / v) if f is not None and v else "–")
                row += [f"{sp[i][ranks]:.2f}" if ranks in sp[i] else "–" for i, _ in IMPLS]
                o.append("| " + " | ".join(row) + " |")
            o.append("")

    # --- issue 11: loads side by side, targets, memory footprint --------------------------

    def loads(self):
        """The conditions measured, quiet first (meta `loads`, else what the rows carry)."""
        seen = {self.load_of(b) for (b, _, _) in self.tables}
        order = [c for c in self.meta.get("loads", "quiet").split() if c in seen]
        return order + sorted(seen - set(order) - {"quiet"}) if order else ["quiet"]

    def stat(self, impl, bench, ranks, np, size, what="median"):
        g = self.by_key.get((impl, bench, ranks, np, size))
        if not g or g.get("status") != "ok":
            return None
        return g.get(what) if what != "median" else g.get("median")

    def best_peer(self, bench, ranks, np, size, what="median"):
        """The better of MPICH's and Open MPI's number (`what`: median, p10, p50, p90)."""
        lower = LOWER_BETTER.get(self.unit.get(bench, ""), True)
        vals = [v for v in (self.stat(p, bench, ranks, np, size, what) for p, _ in PEERS) if v]
        if not vals:
            return None
        return min(vals) if lower else max(vals)

    def spread_cell(self, impl, bench, ranks, np, size):
        if not self.impl_ok(impl):
            return "n/a"
        g = self.by_key.get((impl, bench, ranks, np, size))
        if g and g.get("p50") is not None and g["status"] == "ok":
            return f"{fmt(g['p10'])} / **{fmt(g['p50'])}** / {fmt(g['p90'])}"
        return self.cell(impl, bench, ranks, np, size)

    SIDE_BY_SIDE = ("latency", "bandwidth", "ring", "is.alltoallv", "is.mops", "imb.allreduce")

    def side_by_side(self):
        loads = self.loads()
        if len(loads) < 2:
            return
        o = self.out
        o.append("## Quiet and loaded, side by side\n")
        o.append("The same measurements without and with a background load (run.sh `LOAD=`), "
                 "every run alternating Ferry, MPICH and Open MPI and starting its own hogs. Cells "
                 "of latency, bandwidth and ring are **p10 / p50 / p90 of single operations** (one "
                 "round trip, one window, one lap; median over repetitions), so a bimodal run shows "
                 "as a wide p10–p90; other cells are medians of batches. Ratios are Ferry over the "
                 "**best peer** at p50 and at the slow tail (p90 of times, p10 of rates): "
                 + convention(True).split(" Ratio")[0] + " for times, higher for rates.\n")
        for base in self.SIDE_BY_SIDE:
            keys = sorted({(r, n) for (b, r, n) in self.tables if b == base})
            for ranks, np in keys:
                conds = [c for c in loads if (base if c == "quiet" else f"{base}{LOAD_SEP}{c}",
                                               ranks, np) in self.tables]
                if len(conds) < 2:
                    continue
                unit = self.unit.get(base, "")
                lower = LOWER_BETTER.get(unit, True)
                tail = "p90" if lower else "p10"
                o.append(f"### {self.title(base, ranks, np)}, {UNIT_TEXT.get(unit, unit)}: "
                         + " vs ".join(conds) + "\n")
                o.append(self.caption(" | ".join(conds)))
                head = ["size"]
                for c in conds:
                    head += [f"{n} ({c})" for _, n in IMPLS]
                    head += [f"F/best p50 ({c})", f"F/best {tail} ({c})"]
                o.append("| " + " | ".join(head) + " |")
                o.append("|" + "|".join(["---:"] * len(head)) + "|")
                sizes = set()
                for c in conds:
                    sizes |= self.tables[(base if c == "quiet" else f"{base}{LOAD_SEP}{c}", ranks, np)]
                for size in sorted(sizes, key=size_key):
                    row = [human_size(size, unit, base)]
                    for c in conds:
                        b = base if c == "quiet" else f"{base}{LOAD_SEP}{c}"
                        row += [self.spread_cell(i, b, ranks, np, size) for i, _ in IMPLS]
                        for what in ("p50", tail):
                            f = self.stat("ferry", b, ranks, np, size, what)
                            bp = self.best_peer(b, ranks, np, size, what)
                            if f is None or bp is None:  # no percentiles: medians
                                f = self.stat("ferry", b, ranks, np, size) if what == "p50" else None
                                bp = self.best_peer(b, ranks, np, size) if what == "p50" else None
                            row.append(fmt_ratio(f / bp) if f and bp else "–")
                    o.append("| " + " | ".join(row) + " |")
                o.append("")

    def target_line(self, text, bench, ranks, sizes, whats, ok):
        """One target: the sizes of `bench` measured, how many meet ok(ratio) for every
        statistic in whats, and the worst ratio."""
        checked, met, worst = 0, 0, None
        # How far a ratio is from the target's limit (not from 1): beyond it when not met,
        # the margin left (negative) when met.
        lim = getattr(ok, "limit", 1.0)
        off = lambda r: abs(math.log(r / lim)) * (1 if not ok(r) else -1)  # noqa: E731
        for size in sorted(self.tables.get((bench, ranks, ranks), ()), key=size_key):
            v = num(size)
            if v is None or not sizes[0] <= v <= sizes[1]:
                continue
            rs = []
            for what in whats:
                f = self.stat("ferry", bench, ranks, ranks, size, what)
                bp = self.best_peer(bench, ranks, ranks, size, what)
                if what != "median" and (f is None or bp is None):
                    f = self.stat("ferry", bench, ranks, ranks, size)
                    bp = self.best_peer(bench, ranks, ranks, size)
                if f and bp:
                    rs.append((f / bp, what, size))
            if not rs:
                continue
            checked += 1
            met += all(ok(r) for r, _, _ in rs)
            for r in rs:
                if worst is None or (ok(worst[0]) and not ok(r[0])) or \
                        (ok(worst[0]) == ok(r[0]) and off(r[0]) > off(worst[0])):
                    worst = r
        if not checked:
            return f"| {text} | not measured | | |"
        w = f"{fmt_ratio(worst[0])} ({worst[1]}, {human_size(worst[2], self.unit.get(bench, ''), bench)})"
        return f"| {text} | {met} of {checked} sizes | {'**met**' if met == checked else 'not met'} | {w} |"

    def target_rows(self):
        loaded = next((c for c in self.loads() if c == "cpu"), None)
        rows = []
        KiB, MiB = 1024, 1 << 20
        rows.append(self.target_line("quiet: latency (2 ranks, 0–8 KiB) ≤ 0.8× best peer, median",
                                     "latency", 2, (0, 8 * KiB), ("median",), le(0.8)))
        rows.append(self.target_line("quiet: bandwidth (64 KiB–16 MiB) ≥ 1.0× best peer, median",
                                     "bandwidth", 2, (64 * KiB, 16 * MiB), ("median",), ge(1.0)))
        if loaded:
            L = LOAD_SEP + loaded
            rows.append(self.target_line("loaded: latency (8 B–8 KiB) p50 and p90 ≤ 1.0× best peer",
                                         "latency" + L, 2, (8, 8 * KiB), ("p50", "p90"), le(1.0)))
            rows.append(self.target_line("loaded: bandwidth (64 KiB–32 MiB) ≥ 1.0× best peer, median",
                                         "bandwidth" + L, 2, (64 * KiB, 32 * MiB), ("median",), ge(1.0)))
            for np in (2, 4, 8):
                rows.append(self.target_line(f"loaded: IS Alltoallv time, {np} ranks ≤ 1.0× best peer",
                                             "is.alltoallv" + L, np, (0, 1 << 40), ("median",), le(1.0)))
        rows = [r for r in rows if "not measured" not in r]
        if loaded:
            for bench in ("ring", "imb.allreduce"):
                b = bench + LOAD_SEP + loaded
                sizes = self.tables.get((b, 8, 8), ())
                checked = met = 0
                worst = None
                for size in sizes:
                    if not num(size):  # an allreduce of 0 bytes moves nothing
                        continue
                    f = self.stat("ferry", b, 8, 8, size)
                    v = self.stat("openmpi", b, 8, 8, size)
                    if f and v:
                        checked += 1
                        met += f / v <= 0.5
                        worst = max(worst or 0, f / v)
                if checked:
                    rows.append(f"| loaded: {bench}, 8 ranks, ≥ 2× faster than Open MPI (Ferry/Open MPI "
                                f"≤ 0.5) | {met} of {checked} sizes | "
                                f"{'**met**' if met == checked else 'not met'} | {fmt_ratio(worst)} |")
        return rows

    def by_host_state(self):
        """The rows of this run split by the cache-line bounce measured before and after each
        (run.sh tags them): both within twice the fastest measured, both slower; a run whose
        two disagree (the host changed state during it) is in neither. Empty without tags."""
        rows = self.data.get("rows") or []
        tagged = []
        for r in rows:
            x = parse_extra(r.get("extra"))
            b0, b1 = num(x.get("bounce_ns")), num(x.get("bounce_after_ns", x.get("bounce_ns")))
            tagged.append((b0, b1, r))
        bs = [b for b0, b1, _ in tagged for b in (b0, b1) if b]
        if not bs:
            return []
        cut = 2 * min(bs)
        fast = [r for b0, b1, r in tagged if b0 and b1 and b0 <= cut and b1 <= cut]
        slow = [r for b0, b1, r in tagged if b0 and b1 and b0 > cut and b1 > cut]
        return [(f"cache line ≤ {cut:.0f} ns", fast), (f"cache line > {cut:.0f} ns", slow)]

    def target_section(self, issue, rows):
        """A section "Targets of issue N": the rows of target_line, against the best peer."""
        o = self.out
        o.append(f"## Targets of issue {issue}\n")
        o.append(self.caption(" | ".join(self.loads())))
        o.append("Ratios are Ferry over the better of MPICH and Open MPI (times: lower is better; "
                 "rates: higher is better); one run, as the issue states its targets. The worst "
                 "column names the ratio furthest from (or, when all are met, closest to) the "
                 "target.\n")
        o.append("| target | sizes meeting it | verdict | worst ratio |")
        o.append("|---|---:|---|---|")
        o.extend(rows)
        o.append("")

    def osc_target_rows(self):
        """Issue 14 (bench/osc.c): the rows of OSC_TARGETS, those measured."""
        return [r for r in (self.target_line(*t) for t in OSC_TARGETS) if "not measured" not in r]

    def osc_targets(self):
        rows = self.osc_target_rows()
        if not rows:
            return
        self.target_section(14, rows)
        if self.meta.get("osc_ompi_args"):
            self.out.append(f"Open MPI ran bench/osc.c with `{self.meta['osc_ompi_args']}` "
                            "(bench/run.sh, OSC_OMPI_ARGS).\n")
        self.targets_by_state(Report.osc_target_rows)

    def targets(self):
        rows = self.target_rows()
        if not rows:
            return
        self.target_section(11, rows)
        self.targets_by_state(Report.target_rows)

    def targets_by_state(self, rows_of):
        """The targets of rows_of(report) again, for the runs of each state of the host."""
        o = self.out
        # The host's state flips from minute to minute (on the EPYC guest of Nov 2026 the
        # cache-line bounce went between about 30 and 160 ns): a ratio of a Ferry run in one
        # state to a peer's run in the other says little. So the same targets again, each from
        # the runs of one state only, where every implementation has some.
        parts = [(label, part) for label, part in self.by_host_state() if part]
        if len(parts) < 2:
            return
        o.append("### The same targets, by the host's state during each run\n")
        o.append("run.sh measures the cache-line bounce between CPUs 0 and 1 (`limits -B`) before "
                 "and after every run; below, each table uses only the runs that found the host in "
                 "one state at both ends (medians over those runs; a run during which the state "
                 "changed is in neither). A target a table cannot check (no runs of one "
                 "implementation in that state) is left out.\n")
        for label, part in parts:
            sub = Report(build_json(part, self.meta))
            sub_rows = rows_of(sub)
            impls = sorted({r["impl"] for r in part if r["impl"] != "none"})
            runs = {i: len({(r["program"], r["np"], r["rep"], r["seq"]) for r in part
                            if r["impl"] == i}) for i in impls}
            o.append(f"**{label}** (runs: " + ", ".join(f"{i} {n}" for i, n in runs.items()) +
                     ")\n")
            if not sub_rows:
                o.append("No target has runs of Ferry and a peer in this state.\n")
                continue
            o.append("| target | sizes meeting it | verdict | worst ratio |")
            o.append("|---|---:|---|---|")
            o.extend(sub_rows)
            o.append("")

    # --- bench/hosts.sh: between test hosts ----------------------------------------------

    NET_COLLECTIVES = ("allreduce", "bcast", "barrier", "allgather")

    def net_key(self, bench):
        """(ranks, np) of a net./link. benchmark's only table, or None."""
        keys = sorted((r, n) for (b, r, n) in self.tables if b == bench)
        return keys[0] if keys else None

    def net_status(self, impl):
        return self.meta.get(f"hosts_status_{impl}", "ok")

    def net_stat(self, impl, bench, size, what="median"):
        k = self.net_key(bench)
        return self.stat(impl, bench, k[0], k[1], size, what) if k else None

    def net_best_peer(self, bench, size, what="median"):
        k = self.net_key(bench)
        return self.best_peer(bench, k[0], k[1], size, what) if k else None

    def net_cell(self, impl, bench, size, scale=1.0, what="median"):
        if not self.net_status(impl).startswith("ok"):
            return "n/a"
        k = self.net_key(bench)
        g = self.by_key.get((impl, bench, k[0], k[1], size)) if k else None
        if g and g["status"] == "FAILED":
            return "**!! FAILED !!**"
        if g and what == "p50" and g.get("p50") is not None and g.get("p90") is not None:
            return f"**{fmt(g['p50'] * scale)}** / {fmt(g['p90'] * scale)}"
        if g and "median" in g:
            text = fmt(g["median"] * scale)
            if len(g["values"]) >= 2 and g["median"] > 0:
                half = g["spread"] * 50
                text += f" ±{half:.0f}%" if half < 1000 else " ±>999%"
            return text
        bad = self.fail.get((impl, self.program.get(bench, bench), k[1] if k else 0), {})
        if "timeout" in bad:
            return f"timeout (>{self.meta.get('hosts_timeout', '?')} s)"
        return "run failed" if bad else "–"

    def net_table(self, title, bench, note, scale=1.0, unit_text=None, limits=(), min_size=None,
                  what="median"):
        """One table of a net. benchmark: per size the three implementations (median over
        repetitions of `what`: the value, or p50 of single operations shown as p50 / p90),
        Ferry over the best peer, the best peer over each limit, and the limits (link.*
        benchmarks, by size; a limit measured at size 0 holds for every size)."""
        k = self.net_key(bench)
        if not k:
            return
        o = self.out
        unit = self.unit.get(bench, "")
        lower = LOWER_BETTER.get(unit, True)
        ut = unit_text or UNIT_TEXT.get(unit, unit)
        o.append(f"### {title}, {ut}\n")
        o.append(note + " " + ("Lower is better; Ferry/best < 1 means Ferry is faster." if lower
                               else "Higher is better; Ferry/best > 1 means Ferry is faster.") + "\n")
        lims = [(name, lb) for name, lb in limits if self.net_key(lb)]
        head = ["size"] + [n for _, n in IMPLS] + ["Ferry/best peer"]
        head += [f"{name}" for name, _ in lims] + [f"best peer/{name}" for name, _ in lims]
        o.append("| " + " | ".join(head) + " |")
        o.append("|" + "|".join(["---:"] * len(head)) + "|")
        sizes = sorted(self.tables[(bench, k[0], k[1])], key=size_key)
        for size in sizes:
            if min_size is not None and (num(size) or 0) < min_size:
                continue
            row = [human_size(size, unit, bench)]
            row += [self.net_cell(i, bench, size, scale, what) for i, _ in IMPLS]
            f = self.net_stat("ferry", bench, size, what) \
                if self.net_status("ferry").startswith("ok") else None
            bp = self.net_best_peer(bench, size, what)
            row.append(fmt_ratio(f / bp) if f and bp else "–")
            refs = [self.net_limit(lb, size, what) for _, lb in lims]
            row += [self.net_cell("link", lb, size if self.net_stat("link", lb, size, what)
                                  is not None else "0", scale, what) if r else "–"
                    for r, (_, lb) in zip(refs, lims)]
            row += [fmt_ratio(bp / r) if bp and r else "–" for r in refs]
            o.append("| " + " | ".join(row) + " |")
        o.append("")

    def net_limit(self, bench, size, what="median"):
        """A link limit at this size: the size's own measurement, else the one of size 0."""
        v = self.net_stat("link", bench, size, what)
        return v if v is not None else self.net_stat("link", bench, "0", what)

    def net_target(self, text, bench, sizes, ref, ok, what="median"):
        """One target of issue 12: Ferry's median at each of `sizes` (bytes: a set, or a (lo, hi)
        tuple for a range) over ref(size), checked with ok(ratio)."""
        k = self.net_key(bench)
        if not self.net_status("ferry").startswith("ok"):
            return f"| {text} | Ferry n/a | not measured | |"
        if not k:
            return f"| {text} | not measured | | |"
        checked = met = 0
        worst = None
        for size in sorted(self.tables[(bench, k[0], k[1])], key=size_key):
            v = num(size)
            if v is None or (v not in sizes if not isinstance(sizes, tuple) else
                             not sizes[0] <= v <= sizes[1]):
                continue
            f, r = self.net_stat("ferry", bench, size, what), ref(size)
            if not f or not r:
                continue
            checked += 1
            met += ok(f / r)
            if worst is None or (ok(worst[0]) and not ok(f / r)) or \
                    (ok(worst[0]) == ok(f / r) and abs(math.log(f / r / ok.limit)) *
                     (1 if not ok(f / r) else -1) > abs(math.log(worst[0] / ok.limit)) *
                     (1 if not ok(worst[0]) else -1)):
                worst = (f / r, size)
        if not checked:
            return f"| {text} | not measured | | |"
        unit = self.unit.get(bench, "")
        return (f"| {text} | {met} of {checked} sizes | {'**met**' if met == checked else 'not met'} | "
                f"{fmt_ratio(worst[0])} ({human_size(worst[1], unit, bench)}) |")

    def hosts(self):
        m, o = self.meta, self.out
        net = [b for (b, r, n) in self.tables if self.is_net(b)]
        if not net and not m.get("hosts_skipped") and not m.get("hosts_n"):
            return
        o.append("## Between hosts (TCP)\n")
        if m.get("hosts_skipped"):
            o.append(f"**Skipped**: {m['hosts_skipped']} (bench/hosts.sh).\n")
            if not net:
                return
        o.append(self.caption())
        o.append(f"{m.get('hosts_n', '?')} test hosts of tests/hosts/fy_hosts (network namespaces, "
                 f"each with its own /dev/shm, IPC and PID space): {m.get('hosts_net', '?')}. Every "
                 "implementation starts its ranks with its own launcher through the namespace agent "
                 "(as over ssh) and uses its TCP path between hosts; within a host (2 × 2) its shared "
                 "memory. The link's limits come from the same run: each repetition first measures "
                 "iperf3 (one stream) and bench/sockpp.c (TCP ping-pong polling and blocking, a "
                 "stream in chunks), then every (program, layout) alternating the implementations. "
                 "Cells are medians over repetitions (±x%: half the min–max range); best peer = the "
                 "better of MPICH and Open MPI. All hosts share this machine's CPUs: the kernel's "
                 "network processing (softirq) competes with ranks that spin.\n")
        o.append("| implementation | between hosts | command (2 hosts × 1 rank) |")
        o.append("|---|---|---|")
        for impl, name in IMPLS:
            cmd = m.get(f"hosts_cmd_{impl}", "").replace("|", "/").strip()
            o.append(f"| {name} | {self.net_status(impl) if m.get(f'hosts_status_{impl}') else 'not run'} | "
                     f"{'`' + cmd + '`' if cmd else ''} |")
        if m.get("version_iperf3"):
            o.append(f"\nLink tools: {m['version_iperf3']}; bench/sockpp.c.")
        o.append("")
        self.net_targets()
        self.net_table("Latency, 2 hosts × 1 rank (bench/latency.c)", "net.latency.2x1",
                       "One-way time (round trip / 2) of single round trips: **p50** / p90 (each "
                       "the median over repetitions; ratios on p50). Here the median batch, the "
                       "value of latency.c elsewhere, mostly counts the scheduler-tick stalls that "
                       "spinning ranks get on this machine (the net.latency rows keep it). Socket "
                       "ping-pongs: the same exchange over one plain TCP socket.",
                       limits=(("socket poll", "link.pingpong.poll"),
                               ("socket block", "link.pingpong.block")), min_size=8, what="p50")
        self.net_table("Bandwidth, 2 hosts × 1 rank (bench/bandwidth.c)", "net.bandwidth.2x1",
                       "Windows of MPI_Isend from rank 0 to pre-posted MPI_Irecv on rank 1, median "
                       "batch; socket stream: one TCP socket written in chunks of the size.",
                       scale=1e-3, unit_text="GB/s",
                       limits=(("socket stream", "link.stream"), ("iperf3", "link.iperf3")))
        self.net_table("Bidirectional bandwidth, 2 hosts × 1 rank (bandwidth -B)", "net.bibw.2x1",
                       "Both ranks send a window and receive one at once; both directions together.",
                       scale=1e-3, unit_text="GB/s")
        self.net_table("Message rate, 2 hosts × 1 rank (bandwidth -R)", "net.msgrate.2x1",
                       "Windows of small messages from rank 0 to rank 1, messages per second.")
        for layout in ("2x2", "4x1"):
            h, p = layout.split("x")
            for coll in self.NET_COLLECTIVES:
                self.net_table(f"{coll.capitalize()}, {h} hosts × {p} rank{'s' if p != '1' else ''} "
                               "(bench/imb.c)", f"net.imb.{coll}.{layout}",
                               "Time of one operation, the slowest rank's average, median of "
                               "repetitions" + (f"; {int(h) * int(p)} ranks on this machine's "
                                                f"{m.get('cpus')} CPUs." if int(h) * int(p) >
                                                int(m.get("cpus", "0") or 0) else "."),
                               min_size=None if coll == "barrier" else 8)
        self.net_table(f"Startup, {m.get('hosts_n', '4')} hosts × 1 rank (bench/hello.c)",
                       f"net.startup.{m.get('hosts_n', '4')}x1",
                       "Wall time of a whole launch (mpiexec start to exit) of MPI_Init, MPI_Barrier, "
                       "MPI_Finalize, over the launches of all repetitions that ended by themselves "
                       "(a launch hung in MPI_Finalize is killed and listed under the failed runs).")
        self.net_table(f"Startup to ready, {m.get('hosts_n', '4')} hosts × 1 rank (bench/hello.c)",
                       f"net.startup_ready.{m.get('hosts_n', '4')}x1",
                       "From mpiexec's start until rank 0 leaves the MPI_Barrier after MPI_Init "
                       "(every rank initialized; the hosts share the machine's clock), also for "
                       "launches that then hang in MPI_Finalize.")

    def net_targets(self):
        o = self.out
        KiB, MiB = 1024, 1 << 20
        lat, bw = "net.latency.2x1", "net.bandwidth.2x1"
        rows = [
            self.net_target("latency at 8 B and 1 KiB ≤ 0.8× best peer (p50)", lat, {8, KiB},
                            lambda s: self.net_best_peer(lat, s, "p50"), le(0.8), "p50"),
            self.net_target("latency at 8 B and 1 KiB ≤ 1.5× socket ping-pong, polling (p50)", lat,
                            {8, KiB}, lambda s: self.net_limit("link.pingpong.poll", s, "p50"),
                            le(1.5), "p50"),
            self.net_target("bandwidth at 1 MiB and 4 MiB ≥ 1.0× best peer", bw, {MiB, 4 * MiB},
                            lambda s: self.net_best_peer(bw, s), ge(1.0)),
            self.net_target("bandwidth at 1 MiB and 4 MiB ≥ 0.9× iperf3", bw, {MiB, 4 * MiB},
                            lambda s: self.net_limit("link.iperf3", s), ge(0.9)),
        ]
        for coll in ("allreduce", "bcast"):
            b = f"net.imb.{coll}.2x2"
            rows.append(self.net_target(f"{coll.capitalize()}, 2 hosts × 2 ranks, 8 B–1 MiB ≤ 1.0× "
                                        "best peer", b, (8, MiB),
                                        lambda s, b=b: self.net_best_peer(b, s), le(1.0)))
        st = f"net.startup.{self.meta.get('hosts_n', '4')}x1"
        rows.append(self.net_target("startup ≤ 1.0× best peer", st, (0, 0),
                                    lambda s: self.net_best_peer(st, s), le(1.0)))
        rows.append(self.net_target("startup ≤ 0.3 s (ratio to 300 ms)", st, (0, 0),
                                    lambda s: 300.0, le(1.0)))
        o.append("### Targets of issue 12\n")
        o.append("Ratios are Ferry's median over the reference (times: lower is better; rates: "
                 "higher is better); the worst column names the ratio furthest from the target "
                 "(or, when all are met, closest to it).\n")
        o.append("| target | sizes meeting it | verdict | worst ratio |")
        o.append("|---|---:|---|---|")
        o.extend(rows)
        o.append("")

    def footprint(self):
        benches = ("footprint.pss", "footprint.shm", "footprint.rss")
        counts = sorted({r for (b, r, n) in self.tables if b in benches})
        if not counts:
            return
        o = self.out
        o.append("## Memory footprint of a hello-world job (bench/footprint.c)\n")
        o.append(self.caption())
        o.append("Sums over all ranks, read from /proc/<pid>/smaps_rollup while the ranks wait in "
                 "a barrier after MPI_Init (launcher not included). **Total PSS** counts every "
                 "page once (shared pages divided among the processes mapping them); **shm** is "
                 "its shared-memory part (Pss_Shmem: /dev/shm, memfd, shared anonymous "
                 "mappings). MiB, per rank in KiB in parentheses; lower is better. The peers run "
                 f"only up to {self.meta.get('footprint_peer_max', '?')} ranks.\n")
        head = ["ranks"]
        for _, n in IMPLS:
            head += [f"{n} total PSS", f"{n} shm"]
        o.append("| " + " | ".join(head) + " |")
        o.append("|" + "|".join(["---:"] * len(head)) + "|")
        for r in counts:
            row = [str(r)]
            for impl, _ in IMPLS:
                for b in benches[:2]:
                    g = self.by_key.get((impl, b, r, r, "0"))
                    if g and g.get("median") is not None:
                        per = statistics.median([num(e.get("per_rank_kib")) or 0 for e in g["extra"]])
                        cell = f"{fmt(g['median'])} ({per:,.0f})"
                        if g["status"] == "FAILED":
                            cell = "**!! FAILED !!** " + cell
                        row.append(cell)
                    else:
                        bad = self.fail.get((impl, "footprint", r), {})
                        row.append(f"timeout (>{self.meta.get('footprint_timeout', '?')} s)"
                                   if "timeout" in bad else "run failed" if bad else "–")
            o.append("| " + " | ".join(row) + " |")
        o.append("")

    def regressions(self, base):
        o = self.out
        o.append("## Regressions against baseline\n")
        bm = base.get("meta", {})
        o.append(f"Baseline: run of {bm.get('date', '?')}, commit `{bm.get('commit', '?')}`"
                 f"{' (QUICK)' if bm.get('quick') == '1' else ''}. Ferry's change is judged "
                 "**against the peers'**: the new/old ratio of Ferry's median is divided by the "
                 "geometric mean of MPICH's and Open MPI's new/old ratios on the same measurement "
                 "(peers whose own repetitions scatter by more than 50% are left out, and the "
                 "correction is bounded to 2.5x), "
                 "so that a machine that got slower for everyone (this shared VM drifts by 2x within "
                 "minutes) is not taken for a Ferry regression; where no peer has both numbers, the "
                 "raw change is used. A **regression** is a corrected change worse than "
                 f"max(old spread, new spread, {NOISE_FLOOR:.0%}), where spread = (max − min) / "
                 "median over repetitions; an improvement by the same rule is listed too.\n")
        old = {}
        for g in base.get("results", []):
            if "median" in g:
                old[(g["impl"], g["bench"], g["ranks"], g["np"], str(g["size"]))] = g
        regs, imps, compared, single = [], [], 0, 0
        for key, g in self.by_key.items():
            if key[0] != "ferry" or "median" not in g:
                continue
            b = old.get(key)
            if not b or not b["median"]:
                continue
            compared += 1
            lower = LOWER_BETTER.get(g["unit"], True)
            change = g["median"] / b["median"] - 1
            thr = max(b.get("spread", 0), g.get("spread", 0), NOISE_FLOOR)
            drift, factors = [], []
            for p, name in PEERS:
                n, ob = self.by_key.get((p,) + key[1:]), old.get((p,) + key[1:])
                if n and ob and n.get("median") and ob.get("median"):
                    f = n["median"] / ob["median"]
                    drift.append(f"{name} {f - 1:+.0%}")
                    # A peer whose own repetitions scatter (MPICH polling when ranks outnumber
                    # cores swings 100x) says nothing about the machine.
                    if max(n.get("spread", 0), ob.get("spread", 0)) <= PEER_STABLE and 0.2 < f < 5:
                        factors.append(f)
            machine = math.exp(sum(math.log(f) for f in factors) / len(factors)) if factors else 1.0
            machine = min(max(machine, 1 / MAX_DRIFT), MAX_DRIFT)
            corrected = (1 + change) / machine - 1
            worse = corrected if lower else -corrected
            single += len(g["values"]) < 2 and len(b.get("values", [])) < 2
            line = (g["bench"], g["ranks"], g["np"], g["size"], b["median"], g["median"], change,
                    corrected, thr, ", ".join(drift) or "–", g["unit"])
            if worse > thr:
                regs.append(line)
            elif -worse > thr:
                imps.append(line)
        if compared == 0:
            o.append("No Ferry measurement is common to both runs.\n")
            return
        if single:
            o.append(f"**Caution:** {single} of the {compared} comparisons have a single "
                     "repetition on both sides, so their spread is unknown and only the "
                     f"{NOISE_FLOOR:.0%} floor applies; rerun both with REPS=3 or more before "
                     "believing them.\n")
        for title, items in (("Regressions", regs), ("Improvements", imps)):
            o.append(f"**{title}: {len(items)}** of {compared} Ferry measurements compared.\n")
            if not items:
                continue
            o.append("| benchmark | ranks | size | old | new | change | against peers | threshold "
                     "| peers' change |")
            o.append("|---|---:|---:|---:|---:|---:|---:|---:|---|")
            for bench, ranks, np, size, a, b, ch, corr, thr, drift, unit in sorted(
                    items, key=lambda t: -abs(t[7])):
                rk = f"{ranks}" + (f" (of {np})" if np != ranks else "")
                o.append(f"| {bench} | {rk} | {human_size(size, unit)} | {fmt(a)} | {fmt(b)} | "
                         f"{ch:+.1%} | {corr:+.1%} | ±{thr:.0%} | {drift} |")
            o.append("")

    def render(self, base=None):
        self.header()
        self.failures()
        self.headline()
        self.summary()
        if base is not None:
            self.regressions(base)
        self.physical()
        self.targets()
        self.osc_targets()
        self.hosts()
        self.startup()
        self.side_by_side()
        self.footprint()
        micro = [t for t in self.order() if not self.is_app(t[0]) and not self.is_dtype(t[0])
                 and not self.is_footprint(t[0]) and not self.is_net(t[0])
                 and not self.is_startup(t[0])]
        if micro:
            o = self.out
            o.append("## Detailed tables\n")
            for t in micro:
                self.table(*t)
        self.dtype()
        self.apps()
        if not self.tables:
            self.out.append("No MPI benchmark produced a result.\n")
        return "\n".join(self.out) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv")
    ap.add_argument("--meta")
    ap.add_argument("--from-json", dest="from_json")
    ap.add_argument("--json", help="write results.json here")
    ap.add_argument("--report", help="write the Markdown report here (default: stdout)")
    ap.add_argument("--baseline", help="an older results.json to compare with")
    ap.add_argument("--timeout", help="(ignored; kept for old callers)")
    args = ap.parse_args(argv)

    if args.from_json:
        with open(args.from_json, encoding="utf-8") as f:
            data = json.load(f)
    elif args.csv:
        with open(args.csv, newline="", encoding="utf-8") as f:
            # Lines starting with '#' describe the machine (meta.txt's key=value lines).
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
        data = build_json(rows, read_meta(args.meta))
    else:
        ap.error("give --csv or --from-json")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
    base = None
    if args.baseline:
        with open(args.baseline, encoding="utf-8") as f:
            base = json.load(f)
    text = Report(data).render(base)
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
