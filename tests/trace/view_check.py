#!/usr/bin/env python3
"""Reads a page written by `ferry view` as a browser would: the meta JSON and the data block
(base64 of zlib-deflated columns), and checks it against what fyt_gen.py wrote (its JSON).

    view_check.py PAGE.html EXPECTED.json [--perfetto FILE.json] [--profile yes|no]

Checks: the counts; the columns' layout (8-aligned, inside raw_bytes, lengths); rank_off; every
interval sorted by rank then start, with a duration; every message matched and received after it
was sent; each collective instance begun by all members at one global time (the generator's
clocks drift and are shifted: alignment); names and their classes; the Perfetto JSON's events
(an X per interval, an s and an f per matched message). Exit 1 with a line per failure."""

import base64
import json
import math
import re
import struct
import sys
import zlib

TYPES = {"f64": "d", "f32": "f", "u32": "I", "i32": "i", "u16": "H", "u8": "B"}


def main():
    page, expected = sys.argv[1], json.load(open(sys.argv[2]))
    perfetto = sys.argv[sys.argv.index("--perfetto") + 1] if "--perfetto" in sys.argv else None
    profile = sys.argv[sys.argv.index("--profile") + 1] if "--profile" in sys.argv else None
    html = open(page, encoding="utf-8").read()
    errors = []

    def check(cond, what):
        if not cond:
            errors.append(what)

    m = re.search(r'<script id="fy-meta" type="application/json">(.*?)</script>', html, re.S)
    d = re.search(r'<script id="fy-data" type="application/octet-stream">(.*?)</script>', html, re.S)
    if not m or not d:
        print("FAIL: no fy-meta or fy-data element")
        return 1
    check("<!--FY_" not in html, "a marker left unfilled")
    meta = json.loads(m.group(1))
    raw = zlib.decompress(base64.b64decode(d.group(1).strip()))
    check(len(raw) == meta["raw_bytes"], f"raw_bytes {meta['raw_bytes']} but {len(raw)} inflated")
    cols = {}
    for name, c in meta["columns"].items():
        check(c["offset"] % 8 == 0, f"column {name} offset {c['offset']} not 8-aligned")
        size = struct.calcsize("<" + TYPES[c["type"]])
        check(c["offset"] + c["count"] * size <= len(raw), f"column {name} beyond the data")
        cols[name] = struct.unpack_from("<%d%s" % (c["count"], TYPES[c["type"]]), raw, c["offset"])
    n = meta["ranks"]
    check(n == expected["ranks"], f"ranks {n}")
    niv, nmsg, ncoll = len(cols["iv_start"]), len(cols["msg_send"]), len(cols["coll_start"])
    check(niv == expected["intervals"], f"intervals {niv}, expected {expected['intervals']}")
    check(nmsg == expected["messages"], f"messages {nmsg}, expected {expected['messages']}")
    check(ncoll == expected["coll_instances"], f"collectives {ncoll}, expected {expected['coll_instances']}")
    check(meta["counts"] == {"intervals": niv, "messages": nmsg, "collectives": ncoll,
                             "events": meta["counts"]["events"]}, f"meta counts {meta['counts']}")
    for k in ("iv_dur", "iv_rank", "iv_name", "iv_depth"):
        check(len(cols[k]) == niv, f"{k} length")
    for k in ("msg_recv", "msg_src", "msg_dst", "msg_tag", "msg_bytes"):
        check(len(cols[k]) == nmsg, f"{k} length")
    ro = cols["rank_off"]
    check(len(ro) == n + 1 and ro[0] == 0 and ro[-1] == niv, f"rank_off {ro}")
    for r in range(n):
        st = cols["iv_start"][ro[r]:ro[r + 1]]
        check(all(cols["iv_rank"][i] == r for i in range(ro[r], ro[r + 1])), f"rank {r}'s intervals")
        check(all(a <= b for a, b in zip(st, st[1:])), f"rank {r}'s intervals not sorted by start")
    check(all(x >= 0 for x in cols["iv_dur"]), "a negative duration")
    names = meta["names"]
    check(len(meta["name_class"]) == len(names), "name_class length")
    if "names" in expected:
        check(sorted(names) == sorted(expected["names"]), f"names {names}")
        cls = dict(zip(names, meta["name_class"]))
        check(cls.get("MPI_Send") == "p2p" and cls.get("MPI_Allreduce") == "coll" and
              cls.get("step") == "region" and cls.get("MPI_Put") == "rma", f"classes {cls}")
        step = names.index("step")
        check(all(cols["iv_depth"][i] == (1 if cols["iv_name"][i] == step else 0) for i in range(niv)),
              "depths: the region 1, the calls 0")
    check(meta["clock_error_ns"] == [100] * n, f"clock errors {meta['clock_error_ns']}")
    check(all(not math.isnan(x) for x in cols["msg_recv"]), "an unmatched message")
    check(all(b >= a for a, b in zip(cols["msg_send"], cols["msg_recv"])), "a message received before it was sent")
    check(all(x == 1024 for x in cols["msg_bytes"]) and all(t == 7 for t in cols["msg_tag"]), "message sizes or tags")
    # Instances: every member enters at the same global time by construction.
    spread = max([b - a for a, b in zip(cols["coll_start"], cols["coll_last_in"])] or [0])
    check(spread <= 2, f"collective members enter {spread} ns apart (clock alignment)")
    check(all(e >= s for s, e in zip(cols["coll_start"], cols["coll_end"])), "a collective ends before it starts")
    check(all(a <= b for a, b in zip(cols["coll_start"], cols["coll_start"][1:])), "collectives not sorted")
    check(all(c < len(meta["comms"]) for c in cols["coll_comm"]), "coll_comm out of range")
    check(all(len(c.get("members", [])) == c["size"] and
              all(0 <= m < meta["ranks"] for m in c["members"]) for c in meta["comms"]),
          f"communicators' members: {meta['comms']}")
    if "names" in expected:
        bc = names.index("MPI_Bcast")
        roots = {cols["coll_root"][i] for i in range(ncoll) if cols["coll_name"][i] == bc}
        check(n < 2 or roots == {0, 1}, f"bcast roots {roots}")
        check(all(cols["coll_bytes"][i] == 64 for i in range(ncoll) if cols["coll_name"][i] == bc), "bcast bytes")
    check(meta["duration_ns"] == expected.get("duration_ns", meta["duration_ns"]),
          f"duration {meta['duration_ns']}")
    if profile == "yes":
        check(isinstance(meta["profile"], dict) and meta["profile"].get("ranks") == n, "profile not embedded")
    elif profile == "no":
        check(meta["profile"] is None, "a profile without profile.json")
        check(any("no profile" in x for x in meta["notes"]), "no note on the missing profile")
    if perfetto:
        ev = json.load(open(perfetto))["traceEvents"]
        ph = {}
        for e in ev:
            ph[e["ph"]] = ph.get(e["ph"], 0) + 1
        check(ph.get("X", 0) == niv, f"perfetto X events {ph.get('X')}, intervals {niv}")
        check(ph.get("s", 0) == nmsg and ph.get("f", 0) == nmsg, f"perfetto flows {ph}")
        procs = [e for e in ev if e["ph"] == "M" and e["name"] == "process_name"]
        check(len(procs) == n, f"process names {len(procs)}")
        check(all(e["dur"] >= 0 and e["ts"] >= 0 for e in ev if e["ph"] == "X"), "perfetto times")
    for e in errors:
        print("FAIL:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
