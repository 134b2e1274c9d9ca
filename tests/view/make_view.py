#!/usr/bin/env python3
"""Builds a filled view page (tools/ferry/view/view.html) from a synthetic trace, in exactly the
data model `ferry view` writes (docs/plan-trace.md, "The view's data model"): the page's CSS and
JS, a meta JSON block and base64 of the zlib-deflated binary columns. The tests of tests/view use
it to have pages whose content they know; it also builds big pages for the opening-time bench.

    make_view.py ring OUT.html [--rounds N] [--no-profile] [--unmatched] [--hostile]
                               [--expect FILE.json]
                               [--break base64|zlib|size]
    make_view.py big OUT.html --ranks R --per-rank N [--expect FILE.json]   (needs numpy)

`ring`: 4 ranks; each round every rank computes (longer on higher ranks), sends 2^(6+round)
bytes to the next rank, receives from the previous one, then all enter an MPI_Allreduce (rank r
late by 5r µs); user regions "solve" (depth 1, all rounds) and "exchange" (depth 2, per round).
`--unmatched` adds a send from rank 2 to rank 0 that nothing received; `--hostile` puts markup
in a host name, the program's name and a note (it must show as text). `--expect` writes what the page must show (message count, matrix, histogram bins, ...).
`--break` spoils the data block: not base64, not zlib, or a wrong raw size.
"""

import argparse
import base64
import json
import math
import os
import struct
import sys
import zlib

VIEW_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "ferry", "view")
US = 1000.0  # ns

COLUMN_TYPES = {"f64": "d", "f32": "f", "u32": "I", "i32": "i", "u16": "H", "u8": "B"}


def pack_columns(cols):
    """cols: list of (name, type, values). Returns (raw bytes, meta columns), 8-aligned offsets."""
    raw = bytearray()
    meta = {}
    for name, typ, values in cols:
        while len(raw) % 8:
            raw.append(0)
        off = len(raw)
        if hasattr(values, "tobytes"):          # a numpy array already of the right type
            raw += values.tobytes()
            n = len(values)
        else:
            n = len(values)
            raw += struct.pack("<%d%s" % (n, COLUMN_TYPES[typ]), *values)
        meta[name] = {"type": typ, "offset": off, "count": n}
    while len(raw) % 8:
        raw.append(0)
    return bytes(raw), meta


def fill_page(meta, raw, out, brk=None, level=6):
    with open(os.path.join(VIEW_DIR, "view.html")) as f:
        html = f.read()
    with open(os.path.join(VIEW_DIR, "view.css")) as f:
        css = f.read()
    with open(os.path.join(VIEW_DIR, "view.js")) as f:
        js = f.read()
    # What would end the elements early (or, "<!--", change how the browser reads a script).
    for text, bad, where in ((js, "</script", "view.js"), (js, "<!--", "view.js"),
                             (css, "</style", "view.css")):
        if bad in text.lower():
            raise SystemExit(f"make_view.py: {where} contains {bad!r}, which breaks the page")
    meta = dict(meta, raw_bytes=len(raw) + (8 if brk == "size" else 0))
    packed = zlib.compress(raw, level)
    if brk == "zlib":
        packed = b"\x00not zlib at all" + packed[16:]
    data = base64.b64encode(packed).decode()
    if brk == "base64":
        data = data[:100] + "*%$not base64!" + data[100:]
    for k, v in (("<!--FY_STYLE-->", "<style>\n" + css + "</style>"),
                 ("<!--FY_SCRIPT-->", "<script>\n" + js + "</script>"),
                 ("<!--FY_META-->", '<script id="fy-meta" type="application/json">' +
                  json.dumps(meta).replace("<", "\\u003c") + "</script>"),
                 ("<!--FY_DATA-->", '<script id="fy-data" type="application/octet-stream">' +
                  data + "</script>")):
        if k not in html:
            raise SystemExit(f"make_view.py: view.html has no marker {k}")
        html = html.replace(k, v, 1)
    with open(out, "w") as f:
        f.write(html)


def bucket(size):
    if size <= 0:
        return (0, 0)
    if size <= 64:
        return (1, 64)
    hi = 1 << (size - 1).bit_length()
    return (hi // 2 + 1, hi)


NAMES = ["MPI_Init", "MPI_Finalize", "MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Isend",
         "MPI_Irecv", "MPI_Wait", "MPI_Barrier", "MPI_Bcast", "MPI_Put", "solve", "exchange",
         "step"]
CLASS = {"MPI_Init": "other", "MPI_Finalize": "other", "MPI_Send": "p2p", "MPI_Recv": "p2p",
         "MPI_Allreduce": "coll", "MPI_Isend": "p2p", "MPI_Irecv": "p2p", "MPI_Wait": "wait",
         "MPI_Barrier": "coll", "MPI_Bcast": "coll", "MPI_Put": "rma", "solve": "region",
         "exchange": "region", "step": "region"}
NID = {n: i for i, n in enumerate(NAMES)}


HOSTILE_HOST = "a</script><b>x"
HOSTILE_NOTE = "<img src=x onerror=\"document.title='owned'\"> & </style>"


def ring(args):
    R, N = 4, args.rounds
    T = 200 * US
    ivs = [[] for _ in range(R)]       # (start, dur, name, depth)
    msgs, colls = [], []
    end_rounds = 100 * US + N * T
    for r in range(R):
        ivs[r].append((0.0, 50 * US, NID["MPI_Init"], 0))
        ivs[r].append((60 * US, end_rounds - 60 * US, NID["solve"], 1))
    for k in range(N):
        base = 100 * US + k * T
        size = 1 << (6 + k)
        sends = [base + (20 + 10 * r) * US for r in range(R)]
        recv_end = []
        for r in range(R):
            s = sends[r]
            ivs[r].append((s - 2 * US, 0.0, None, 2))   # the region's start, fixed below
            ivs[r].append((s, 5 * US, NID["MPI_Send"], 0))
            prev = (r - 1) % R
            rs = s + 6 * US
            re_ = max(rs + 2 * US, sends[prev] + 1 * US + 3 * US)
            ivs[r].append((rs, re_ - rs, NID["MPI_Recv"], 0))
            recv_end.append(re_)
        for r in range(R):
            msgs.append((sends[r] + 1 * US, recv_end[(r + 1) % R], r, (r + 1) % R, k, size))
        enter = [recv_end[r] + 5 * r * US for r in range(R)]
        last_in = max(enter)
        leave = last_in + 10 * US
        for r in range(R):
            ivs[r].append((enter[r], leave - enter[r], NID["MPI_Allreduce"], 0))
        colls.append((min(enter), last_in, leave, NID["MPI_Allreduce"], -1, 8.0 * R, 0, enter))
        for r in range(R):
            # the "exchange" region spans the send and the receive
            lst = ivs[r]
            i = next(i for i, v in enumerate(lst) if v[2] is None)
            st = lst[i][0]
            lst[i] = (st, recv_end[r] + 1 * US - st, NID["exchange"], 2)
    if args.unmatched:
        # a send from rank 2 to rank 0 that no receive matched (recv NaN), in the last round
        msgs.append((100 * US + (N - 1) * T + 45 * US, math.nan, 2, 0, 99, 4096))
    fin = end_rounds + 20 * US
    for r in range(R):
        ivs[r].append((fin, 30 * US, NID["MPI_Finalize"], 0))
    duration = fin + 30 * US
    for r in range(R):
        ivs[r].sort(key=lambda v: (v[0], v[3]))

    starts, durs, ranks, names, depths, rank_off = [], [], [], [], [], [0]
    for r in range(R):
        for s, d, n, dep in ivs[r]:
            starts.append(s); durs.append(d); ranks.append(r); names.append(n); depths.append(dep)
        rank_off.append(len(starts))
    cols = [
        ("iv_start", "f64", starts), ("iv_dur", "f32", durs), ("iv_rank", "u16", ranks),
        ("iv_name", "u16", names), ("iv_depth", "u8", depths), ("rank_off", "u32", rank_off),
        ("msg_send", "f64", [m[0] for m in msgs]), ("msg_recv", "f64", [m[1] for m in msgs]),
        ("msg_src", "u16", [m[2] for m in msgs]), ("msg_dst", "u16", [m[3] for m in msgs]),
        ("msg_tag", "i32", [m[4] for m in msgs]), ("msg_bytes", "f64", [m[5] for m in msgs]),
        ("coll_start", "f64", [c[0] for c in colls]), ("coll_last_in", "f64", [c[1] for c in colls]),
        ("coll_end", "f64", [c[2] for c in colls]), ("coll_name", "u16", [c[3] for c in colls]),
        ("coll_root", "i32", [c[4] for c in colls]), ("coll_bytes", "f64", [c[5] for c in colls]),
        ("coll_comm", "u32", [c[6] for c in colls]),
    ]
    raw, colmeta = pack_columns(cols)

    # The profile the recorder would have written for this run.
    mat_b = [[0] * R for _ in range(R)]
    mat_m = [[0] * R for _ in range(R)]
    for m in msgs:
        mat_b[m[2]][m[3]] += m[5]
        mat_m[m[2]][m[3]] += 1
    calls = {}
    mpi = [0.0] * R
    for r in range(R):
        for s, d, n, dep in ivs[r]:
            if dep:
                continue
            c = calls.setdefault(n, {"name": NAMES[n], "count": 0, "total_s": 0.0, "min_us": 1e30,
                                     "max_us": 0.0, "bytes": 0, "per_rank": {}})
            c["count"] += 1
            c["total_s"] += d / 1e9
            c["min_us"] = min(c["min_us"], d / 1e3)
            c["max_us"] = max(c["max_us"], d / 1e3)
            pr = c["per_rank"].setdefault(r, {"rank": r, "count": 0, "total_s": 0.0, "max_us": 0.0})
            pr["count"] += 1
            pr["total_s"] += d / 1e9
            pr["max_us"] = max(pr["max_us"], d / 1e3)
            mpi[r] += d
    total_mpi = sum(mpi) / 1e9
    buckets = {}
    for m in msgs:
        lo, hi = bucket(m[5])
        b = buckets.setdefault((lo, hi), {"lo": lo, "hi": hi, "count": 0, "bytes": 0})
        b["count"] += 1
        b["bytes"] += m[5]
    calls[NID["MPI_Send"]]["bytes"] = sum(m[5] for m in msgs)
    calls[NID["MPI_Recv"]]["bytes"] = sum(m[5] for m in msgs)
    coll_b = {"lo": 1, "hi": 64, "count": R * N, "bytes": 8 * R * N}
    calls[NID["MPI_Allreduce"]]["bytes"] = 8 * R * N
    wait = [0.0] * R
    for c in colls:
        for r in range(R):
            wait[r] += (c[1] - c[7][r]) / 1e9
    ar = calls[NID["MPI_Allreduce"]]
    profile = {
        "version": 1, "program": "ring", "ranks": R, "hosts": ["node-a"] * 2 + ["node-b"] * 2,
        "wall_s": duration / 1e9,
        "per_rank": [{"rank": r, "app_s": (duration - mpi[r]) / 1e9, "mpi_s": mpi[r] / 1e9,
                      "mpi_pct": 100.0 * mpi[r] / duration} for r in range(R)],
        "calls": [dict(c, mean_us=c["total_s"] * 1e6 / c["count"],
                       pct_mpi=100.0 * c["total_s"] / total_mpi,
                       per_rank=list(c["per_rank"].values())) for c in calls.values()],
        "sites": [{"name": "MPI_Send", "file": "ring.c", "line": 42, "function": "main",
                   "count": R * N, "total_s": calls[NID["MPI_Send"]]["total_s"], "mean_us": 5.0,
                   "max_us": 5.0, "ranks": list(range(R))},
                  {"name": "MPI_Recv", "file": "ring.c", "line": 43, "function": "main",
                   "count": R * N, "total_s": calls[NID["MPI_Recv"]]["total_s"],
                   "mean_us": calls[NID["MPI_Recv"]]["total_s"] * 1e6 / (R * N),
                   "max_us": calls[NID["MPI_Recv"]]["max_us"], "ranks": list(range(R))}],
        "bytes": [{"name": "MPI_Send", "buckets": sorted(buckets.values(), key=lambda b: b["lo"])},
                  {"name": "MPI_Allreduce", "buckets": [coll_b]}],
        "matrix": {"bytes": mat_b, "msgs": mat_m},
        "collectives": [{"name": "MPI_Allreduce", "count": ar["count"], "total_s": ar["total_s"],
                         "wait_s": sum(wait), "wait_pct": 100.0 * sum(wait) / ar["total_s"],
                         "per_rank_wait_s": wait}],
        "notes": ["synthetic ring trace made by tests/view/make_view.py"],
    }
    meta = {
        "version": 1, "program": "ring", "ranks": R, "hosts": profile["hosts"],
        "duration_ns": duration, "names": NAMES, "name_class": [CLASS[n] for n in NAMES],
        "comms": [{"uid": "0", "size": R, "members": list(range(R))}],
        "clock_error_ns": [0, 120, 80, 250],
        "profile": None if args.no_profile else profile,
        "notes": ["a note from the trace: synthetic, 4 ranks"],
        "columns": colmeta,
    }
    if args.hostile:
        # names and notes as a job could make them: markup that must stay text
        meta["hosts"] = [HOSTILE_HOST, "b", "c", "d"]
        meta["program"] = "ring<!--"
        meta["notes"] = [HOSTILE_NOTE]
    meta = {**meta,
    }
    fill_page(meta, raw, args.out, args.brk)
    if args.expect:
        hist = {}
        if args.no_profile:
            for m in msgs:
                lo, hi = bucket(m[5])
                h = hist.setdefault((lo, hi), {"lo": lo, "hi": hi, "count": 0, "bytes": 0})
                h["count"] += 1
                h["bytes"] += m[5]
        else:
            for f in profile["bytes"]:
                for b in f["buckets"]:
                    h = hist.setdefault((b["lo"], b["hi"]), {"lo": b["lo"], "hi": b["hi"], "count": 0, "bytes": 0})
                    h["count"] += b["count"]
                    h["bytes"] += b["bytes"]
        first = ivs[0]
        exp = {"ranks": R, "rounds": N, "messages": len(msgs), "collectives": len(colls),
               "unmatched": int(args.unmatched),
               "coll_count": R * N, "coll_wait_s": sum(wait),
               "unmatched_ns": 100 * US + (N - 1) * T + 45 * US if args.unmatched else None,
               "intervals": len(starts), "duration_ns": duration,
               "matrix_bytes": mat_b, "matrix_msgs": mat_m,
               "histogram": sorted(hist.values(), key=lambda b: (b["lo"], b["hi"])),
               "calls": len(calls),
               "round_ns": [100 * US + k * T for k in range(N)], "round_len_ns": T,
               "send0_ns": next(s for s, d, n, dep in first if n == NID["MPI_Send"])}
        with open(args.expect, "w") as f:
            json.dump(exp, f, indent=1)


def big(args):
    try:
        import numpy as np
    except ImportError:
        print("SKIP: make_view.py big needs numpy (python3-numpy)")
        sys.exit(77)
    R, N = args.ranks, args.per_rank
    rng = np.random.default_rng(16)
    call_names = np.array([NID[n] for n in ("MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv",
                                            "MPI_Wait", "MPI_Allreduce", "MPI_Barrier", "MPI_Put")],
                          dtype=np.uint16)
    parts = {k: [] for k in ("s", "d", "r", "n", "dep")}
    rank_off = [0]
    duration = 0.0
    for r in range(R):
        gap = rng.exponential(2000.0, N)        # computing between calls, ns
        dur = rng.exponential(800.0, N).astype(np.float32) + np.float32(50)
        start = np.cumsum(gap + np.concatenate(([0.0], dur[:-1].astype(np.float64))))
        names = call_names[rng.integers(0, len(call_names), N)]
        nreg = max(1, N // 10000)
        edges = np.linspace(start[0], start[-1] + dur[-1], nreg + 1)
        rs = edges[:-1]
        rd = (edges[1:] - edges[:-1]) * 0.9
        s = np.concatenate((start, rs))
        d = np.concatenate((dur, rd.astype(np.float32)))
        n = np.concatenate((names, np.full(nreg, NID["step"], dtype=np.uint16)))
        dep = np.concatenate((np.zeros(N, dtype=np.uint8), np.ones(nreg, dtype=np.uint8)))
        order = np.lexsort((dep, s))
        parts["s"].append(s[order]); parts["d"].append(d[order]); parts["n"].append(n[order])
        parts["dep"].append(dep[order]); parts["r"].append(np.full(len(s), r, dtype=np.uint16))
        rank_off.append(rank_off[-1] + len(s))
        duration = max(duration, float((s + d).max()))
    M = R * N // 4
    msend = np.sort(rng.uniform(0, duration * 0.99, M))
    mrecv = msend + rng.exponential(3000.0, M)
    msrc = rng.integers(0, R, M).astype(np.uint16)
    mdst = ((msrc + rng.integers(1, max(R, 2), M)) % R).astype(np.uint16)
    mbytes = np.ldexp(1.0, rng.integers(0, 21, M)).astype(np.float64)
    C = max(1, N // 50)
    cstart = np.sort(rng.uniform(0, duration * 0.99, C))
    clast = cstart + rng.exponential(5000.0, C)
    cend = clast + 2000.0
    cols = [
        ("iv_start", "f64", np.concatenate(parts["s"]).astype("<f8")),
        ("iv_dur", "f32", np.concatenate(parts["d"]).astype("<f4")),
        ("iv_rank", "u16", np.concatenate(parts["r"]).astype("<u2")),
        ("iv_name", "u16", np.concatenate(parts["n"]).astype("<u2")),
        ("iv_depth", "u8", np.concatenate(parts["dep"]).astype("u1")),
        ("rank_off", "u32", np.array(rank_off, dtype="<u4")),
        ("msg_send", "f64", msend.astype("<f8")), ("msg_recv", "f64", mrecv.astype("<f8")),
        ("msg_src", "u16", msrc.astype("<u2")), ("msg_dst", "u16", mdst.astype("<u2")),
        ("msg_tag", "i32", np.zeros(M, dtype="<i4")), ("msg_bytes", "f64", mbytes.astype("<f8")),
        ("coll_start", "f64", cstart.astype("<f8")), ("coll_last_in", "f64", clast.astype("<f8")),
        ("coll_end", "f64", cend.astype("<f8")),
        ("coll_name", "u16", np.full(C, NID["MPI_Allreduce"], dtype="<u2")),
        ("coll_root", "i32", np.full(C, -1, dtype="<i4")),
        ("coll_bytes", "f64", np.full(C, 8.0 * R, dtype="<f8")),
        ("coll_comm", "u32", np.zeros(C, dtype="<u4")),
    ]
    raw, colmeta = pack_columns(cols)
    meta = {"version": 1, "program": "big", "ranks": R, "hosts": ["bighost"] * R,
            "duration_ns": duration, "names": NAMES, "name_class": [CLASS[n] for n in NAMES],
            "comms": [{"uid": "0", "size": R}], "profile": None,
            "notes": [f"synthetic: {R} ranks x {N} calls"], "columns": colmeta}
    fill_page(meta, raw, args.out, None, level=args.level)
    if args.expect:
        with open(args.expect, "w") as f:
            json.dump({"ranks": R, "intervals": int(rank_off[-1]), "messages": M, "collectives": C,
                       "raw_bytes": len(raw), "html_bytes": os.path.getsize(args.out)}, f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kind", choices=["ring", "big"])
    ap.add_argument("out")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-profile", action="store_true")
    ap.add_argument("--unmatched", action="store_true", help="ring: add a send never received")
    ap.add_argument("--hostile", action="store_true", help="ring: hosts and notes holding markup")
    ap.add_argument("--break", dest="brk", choices=["base64", "zlib", "size"])
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--per-rank", type=int, default=100000)
    ap.add_argument("--level", type=int, default=6, help="zlib level (big)")
    ap.add_argument("--expect")
    args = ap.parse_args()
    if args.rounds < 1 or args.rounds > 20:
        raise SystemExit(f"make_view.py: --rounds {args.rounds}: give 1 to 20")
    (ring if args.kind == "ring" else big)(args)


if __name__ == "__main__":
    main()
