#!/usr/bin/env python3
"""Writes raw trace files (src/common/fy_trace_format.h) of a made-up job, for the tests of the
reader, ferry-otf2 and `ferry view`, without the recorder (libferry_prof.so).

    fyt_gen.py DIR [--ranks N] [--iters K] [--drift RANK:PPM] [--offset RANK:NS] [--no-end RANK]
               [--big EVENTS] [--profile]

The job (per rank, K iterations, each at global time i*PERIOD): a user region "step" around
MPI_Send to the right neighbour (tag 7, 1024 bytes), MPI_Recv from the left one, MPI_Allreduce
on MPI_COMM_WORLD, and MPI_Bcast on a half communicator (ranks split by parity, root its first
member); rank 0 also does an MPI_Put to rank 1 on window 0 once. Every rank's k-th collective
begins at the same global time, so a reader that aligns clocks puts them together; --drift makes
a rank's clock run fast by PPM parts per million and --offset shifts its epoch: the FYT_SYNC pairs
say so, as the recorder's would. It prints a JSON of what it wrote (the expected counts).

--big EVENTS writes EVENTS events per rank of a simpler loop (Send, Recv, Allreduce) fast, for
the benchmark. --profile also writes DIR/profile.json (a small one, for the view)."""

import argparse
import json
import os
import random
import struct
import sys

T_HEADER, T_NAME, T_COMM, T_SYNC, T_ENTER, T_LEAVE, T_SEND, T_RECV = 1, 2, 3, 4, 5, 6, 7, 8
T_COLL_BEGIN, T_COLL_END, T_RMA, T_REGION_BEGIN, T_REGION_END, T_NOTE, T_END = 9, 10, 11, 12, 13, 14, 15
TICKS_PER_NS = 2.5          # a 2.5 GHz counter
PERIOD = 100_000            # ns between iterations
FUNCS = ["MPI_Init", "MPI_Finalize", "MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Bcast",
         "MPI_Put", "MPI_Comm_split"]
FID = {n: 10 + i for i, n in enumerate(FUNCS)}
REGION_STEP = 3


def head(t, ln8, ident, flags=0):
    return struct.pack("<BBHI", t, flags, ln8, ident)


def padded(b):
    return b + b"\0" * (-len(b) % 8)


class Rank:
    def __init__(self, rank, size, drift_ppm=0.0, offset_ns=0):
        self.rank, self.size = rank, size
        self.rate = TICKS_PER_NS * (1 + drift_ppm * 1e-6)   # the true rate of this clock
        self.t0 = 1_000_000_000 + rank * 7_777_777 + offset_ns  # its ticks at global time 0
        self.out = bytearray()
        self.counts = {}

    def ticks(self, g):
        return int(round(self.t0 + g * self.rate))

    def rec(self, b, kind=None):
        self.out += b
        if kind:
            self.counts[kind] = self.counts.get(kind, 0) + 1

    def header(self):
        self.rec(head(T_HEADER, 30, 0) + b"FYTRACE1" +
                 struct.pack("<IIIIdQ", 1, self.rank, self.size, 4242 + self.rank, TICKS_PER_NS,
                             1_700_000_000_000_000_000) +
                 padded_to(b"testhost%d" % (self.rank // 2), 64) + padded_to(b"ring", 128))

    def name(self, ident, s, region=False):
        body = padded(s.encode() + b"\0")
        self.rec(head(T_NAME, 1 + len(body) // 8, ident, 1 if region else 0) + body)

    def comm(self, idx, uid, members):
        body = struct.pack("<QII", uid, len(members), 0) + padded(struct.pack("<%di" % len(members), *members))
        self.rec(head(T_COMM, 1 + len(body) // 8, idx) + body)

    def sync(self, g, flags):
        self.rec(head(T_SYNC, 4, 0, flags) + struct.pack("<QqQ", self.ticks(g), g, 100))

    def ev(self, t, ident, g):
        self.rec(head(t, 2, ident) + struct.pack("<Q", self.ticks(g)),
                 {T_ENTER: "enter", T_LEAVE: "leave", T_REGION_BEGIN: "enter",
                  T_REGION_END: "leave", T_END: None}[t])

    def msg(self, t, fn, g, peer, tag, comm, nbytes):
        self.rec(head(t, 5, FID[fn]) + struct.pack("<QiiIIQ", self.ticks(g), peer, tag, comm, 0, nbytes),
                 "send" if t == T_SEND else "recv")

    def coll(self, t, fn, g, comm, root, sent, recv):
        self.rec(head(t, 5, FID[fn]) + struct.pack("<QIiQQ", self.ticks(g), comm, root, sent, recv),
                 "coll_begin" if t == T_COLL_BEGIN else "coll_end")

    def rma(self, fn, g, target, win, nbytes):
        self.rec(head(T_RMA, 4, FID[fn]) + struct.pack("<QiIQ", self.ticks(g), target, win, nbytes), "rma")

    def note(self, g, text, flags=0):
        body = padded(text.encode() + b"\0")
        self.rec(head(T_NOTE, 2 + len(body) // 8, 0, flags) + struct.pack("<Q", self.ticks(g)) + body)


def padded_to(b, n):
    return b[:n - 1] + b"\0" * (n - min(len(b), n - 1))


def call(rk, fn, g0, g1, inner=None):
    rk.ev(T_ENTER, FID[fn], g0)
    if inner:
        inner()
    rk.ev(T_LEAVE, FID[fn], g1)


def job(args):
    n, k = args.ranks, args.iters
    drift = dict((int(a), float(b)) for a, b in (d.split(":") for d in args.drift))
    offset = dict((int(a), int(b)) for a, b in (d.split(":") for d in args.offset))
    ranks = [Rank(r, n, drift.get(r, 0.0), offset.get(r, 0)) for r in range(n)]
    half = lambda r: [q for q in range(n) if q % 2 == r % 2]
    end_g = (k + 1) * PERIOD
    exp = {"ranks": n, "intervals": 0, "messages": 0, "coll_instances": 0, "collectives": [],
           "names": FUNCS + ["step"]}
    for rk in ranks:
        r = rk.rank
        rk.header()
        for f in FUNCS:
            rk.name(FID[f], f)
        rk.name(REGION_STEP, "step", region=True)
        rk.sync(0, 1)
        # A record type no reader knows (a later version's): skipped by its length.
        rk.rec(head(42, 3, 0) + b"\xee" * 16)
        rk.comm(0, 0, list(range(n)))
        rk.comm(1, (1 << 63) | r, [r])
        call(rk, "MPI_Init", 0, 1000)
        rk.comm(2, 1000 + r % 2, half(r))
        call(rk, "MPI_Comm_split", 2000, 3000)
        for i in range(k):
            g = (i + 1) * PERIOD
            rk.ev(T_REGION_BEGIN, REGION_STEP, g)
            right, left = (r + 1) % n, (r - 1) % n
            call(rk, "MPI_Send", g + 100 + r, g + 300,
                 lambda: rk.msg(T_SEND, "MPI_Send", g + 200, right, 7, 0, 1024))
            call(rk, "MPI_Recv", g + 400, g + 2000 + 10 * r,
                 lambda: rk.msg(T_RECV, "MPI_Recv", g + 1900 + 10 * r, left, 7, 0, 1024))
            # Every rank's collective begins at the same global time: the alignment check.
            call(rk, "MPI_Allreduce", g + 5000, g + 8000,
                 lambda: (rk.coll(T_COLL_BEGIN, "MPI_Allreduce", g + 5000, 0, -1, 8, 8),
                          rk.coll(T_COLL_END, "MPI_Allreduce", g + 8000, 0, -1, 8, 8)))
            root = half(r)[0]
            call(rk, "MPI_Bcast", g + 9000, g + 9500,
                 lambda: (rk.coll(T_COLL_BEGIN, "MPI_Bcast", g + 9000, 2, root, 64 if r == root else 0, 0 if r == root else 64),
                          rk.coll(T_COLL_END, "MPI_Bcast", g + 9500, 2, root, 64 if r == root else 0, 0 if r == root else 64)))
            if r == 0 and i == 0 and n > 1:
                call(rk, "MPI_Put", g + 9600, g + 9700, lambda: rk.rma("MPI_Put", g + 9650, 1, 0, 4096))
            rk.ev(T_REGION_END, REGION_STEP, g + 9900)
            if i == k // 2:
                rk.sync(g + 9950, 0)  # an extra clock pair mid-run: two segments
        if r != 3:  # the same note on several ranks: one note for ranks 0-2, 4-...
            rk.note(end_g - 10, "trace filter: every call recorded (a test note)")
        call(rk, "MPI_Finalize", end_g, end_g + 500)
        rk.sync(end_g + 500, 2)
        if r not in args.no_end:
            rk.ev(T_END, 0, end_g + 600)
    exp["intervals"] = sum(rk.counts.get("enter", 0) for rk in ranks)
    exp["messages"] = n * k if n > 1 else k
    exp["coll_instances"] = k * (1 + (2 if n > 1 else 1))
    exp["duration_ns"] = end_g + 500
    for key in ("enter", "leave", "send", "recv", "coll_begin", "coll_end", "rma"):
        exp[key] = sum(rk.counts.get(key, 0) for rk in ranks)
    return ranks, exp


def big(args):
    """EVENTS events per rank: Send (enter, send, leave), Recv (enter, recv, leave), Allreduce
    (enter, begin, end, leave): 10 events an iteration, 4 us apart, each at a random point of
    its 300 ns slot; times filled by slices."""
    from array import array
    n, per = args.ranks, args.big
    iters = per // 10
    ranks = []
    for r in range(n):
        rk = Rank(r, n)
        rk.header()
        for f in FUNCS:
            rk.name(FID[f], f)
        rk.sync(0, 1)
        rk.comm(0, 0, list(range(n)))
        blk = Rank(r, n)
        blk.t0 = 0
        blk.rate = 1
        right, left = (r + 1) % n, (r - 1) % n
        call(blk, "MPI_Send", 0, 0, lambda: blk.msg(T_SEND, "MPI_Send", 0, right, 7, 0, 1024))
        call(blk, "MPI_Recv", 0, 0, lambda: blk.msg(T_RECV, "MPI_Recv", 0, left, 7, 0, 1024))
        call(blk, "MPI_Allreduce", 0, 0, lambda: (blk.coll(T_COLL_BEGIN, "MPI_Allreduce", 0, 0, -1, 8, 8),
                                                  blk.coll(T_COLL_END, "MPI_Allreduce", 0, 0, -1, 8, 8)))
        b = bytes(blk.out)
        stride = len(b) // 8
        words = array("Q", b) * iters
        # The word after each record's head is its time.
        w, j = 0, 0
        step = int(4000 * TICKS_PER_NS)
        rnd = random.Random(r)
        while w < stride:
            # Each event in its own 300 ns slot of the iteration, at a random place in it: real
            # times do not repeat exactly (and so do not compress as well as a regular pattern).
            first = rk.t0 + int(j * 300 * TICKS_PER_NS)
            words[w + 1::stride] = array("Q", [t + rnd.getrandbits(9) for t in range(first, first + iters * step, step)])
            w += struct.unpack_from("<H", b, w * 8 + 2)[0]
            j += 1
        rk.out += words.tobytes()
        g_end = iters * 4000 + 1000
        rk.sync(g_end, 2)
        rk.ev(T_END, 0, g_end)
        ranks.append(rk)
    return ranks, {"ranks": n, "events": n * iters * 10, "intervals": n * iters * 3,
                   "messages": n * iters, "coll_instances": iters}


def profile_json(n):
    return {"version": 1, "program": "ring", "ranks": n, "hosts": ["testhost%d" % (r // 2) for r in range(n)],
            "wall_s": 0.01, "per_rank": [{"rank": r, "app_s": 0.008, "mpi_s": 0.002, "mpi_pct": 20.0} for r in range(n)],
            "calls": [], "sites": [], "bytes": [], "matrix": {"bytes": [[0] * n] * n, "msgs": [[0] * n] * n},
            "collectives": [], "notes": []}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--drift", action="append", default=[])
    ap.add_argument("--offset", action="append", default=[])
    ap.add_argument("--no-end", type=int, action="append", default=[])
    ap.add_argument("--big", type=int, default=0)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    ranks, exp = big(args) if args.big else job(args)
    os.makedirs(os.path.join(args.dir, "ferry"), exist_ok=True)
    for rk in ranks:
        with open(os.path.join(args.dir, "ferry", "rank.%d.fyt" % rk.rank), "wb") as f:
            f.write(rk.out)
    if args.profile:
        with open(os.path.join(args.dir, "profile.json"), "w") as f:
            json.dump(profile_json(args.ranks), f)
    json.dump(exp, sys.stdout)
    print()


if __name__ == "__main__":
    main()
