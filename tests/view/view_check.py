#!/usr/bin/env python3
"""Checks a filled view page (tools/ferry/view) in Debian's Chromium, driven by Playwright.

    view_check.py ring PAGE EXPECT.json [--no-profile]   the known ring page: every view
    view_check.py broken PAGE WHAT                        a spoiled data block: the error shows
    view_check.py hostile PAGE                            markup in names and notes stays text
    view_check.py big PAGE EXPECT.json                    a big synthetic page loads and zooms
    view_check.py real PAGE EXPECT.json                   a page `ferry view` wrote (fyt_gen.py's job)
    view_check.py open PAGE                               prints the time to open (a bench)

Screenshots of what it checked go to the working directory (NAME.png). Exits 0 when every check
passed, 1 otherwise, printing one line per check. Run by the tests/view/*.sh scripts with the
venv's python (pw_env.inc); nothing here depends on the machine's speed except `open`, which
only reports a time.
"""

import json
import os
import sys
import time

from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("FY_CHROMIUM", "/usr/bin/chromium")
WAIT_MS = 120000       # the longest a page may take to be ready: far above normal
VIEWPORT = {"width": 1400, "height": 800}
FAILS = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        FAILS.append(what)
    return ok


class Page:
    """A page opened in a fresh browser context, recording console errors, page errors and any
    request that is not for the file itself (the page must need no network)."""

    def __init__(self, browser, path):
        self.path = os.path.abspath(path)
        self.url = "file://" + self.path
        self.errors = []
        self.requests = []
        self.ctx = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
        self.pg = self.ctx.new_page()
        self.pg.on("console", lambda m: self.errors.append(f"console.{m.type}: {m.text}")
                   if m.type in ("error", "warning") else None)
        self.pg.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.pg.on("request", self._request)

    def _request(self, req):
        if req.url.split("#")[0] != self.url and not req.url.startswith(("data:", "blob:")):
            self.requests.append(req.url)

    def open(self, view):
        self.pg.goto(f"{self.url}#{view}", timeout=WAIT_MS)
        return self.wait()

    def show(self, view):
        """Selects a view by its fragment, as a user clicking a tab or the --png screenshots."""
        self.pg.evaluate(f"location.hash = '#{view}'")
        return self.wait()

    def wait(self):
        self.pg.wait_for_function("document.body.dataset.ready", timeout=WAIT_MS)
        return self.pg.evaluate("document.body.dataset.ready")

    def js(self, expr):
        return self.pg.evaluate(expr)

    def stats(self):
        return self.js("fyView.stats()")

    def view(self):
        return self.js("fyView.view()")

    def shot(self, name):
        self.pg.screenshot(path=f"{name}.png", full_page=True)

    def clean(self, what):
        check(not self.errors, f"{what}: no console or page errors {self.errors[:5]}")
        check(not self.requests, f"{what}: no request leaves the file {self.requests[:5]}")


def near(a, b, tol):
    return abs(a - b) <= tol


def pixel(p, x, y):
    """The colour of the timeline canvas at CSS pixel (x, y) of the canvas."""
    return p.js(f"Array.from(document.getElementById('tl-canvas').getContext('2d')"
                f".getImageData({int(x)}, {int(y)}, 1, 1).data)")


def hex_rgb(h):
    return [int(h[i:i + 2], 16) for i in (1, 3, 5)]


def canvas_point(p, t, rank, dy=None):
    """Canvas and page coordinates of time t in rank's call band (its middle, or dy below its
    top)."""
    lay = p.js("fyView.layout()")
    box = p.pg.locator("#tl-canvas").bounding_box()
    x = lay["labelW"] + (t - lay["t0"]) / lay["pxNs"]
    y = lay["callTop"][rank] + (lay["callH"] / 2 if dy is None else dy)
    return x, y, box["x"] + x, box["y"] + y


def check_ring(browser, page, exp, no_profile):
    p = Page(browser, page)
    check(p.open("timeline") == "1", "timeline: ready")
    check(p.js("document.title").endswith(" — ready"), "title ends with ' — ready'")
    st = p.stats()["timeline"]
    R, M = exp["ranks"], exp["messages"]
    check(st["rows"] == R, f"timeline: {R} rows (got {st['rows']})")
    U = exp["unmatched"]
    check(st["arrows"] == M - U, f"timeline: all {M - U} message arrows at full view (got {st['arrows']})")
    check(st["unmatched"] == U, f"timeline: {U} unmatched sends marked (got {st['unmatched']})")
    check(st["collectives"] == exp["collectives"],
          f"timeline: {exp['collectives']} collective groups (got {st['collectives']})")
    check(st["boxes"] == exp["intervals"], f"timeline: {exp['intervals']} boxes (got {st['boxes']})")
    check(st["coverageRows"] == 0, "timeline: boxes, not coverage, for a small trace")
    labels = p.js("fyView.layout().labels")
    check(labels[:2] == ["rank 0 (node-a)", "rank 1 (node-a)"] and labels[3] == "rank 3 (node-b)",
          f"timeline: rows labelled 'rank R (host)' {labels}")
    # The first MPI_Send of rank 0 is drawn there in the point-to-point colour.
    x, y, px, py = canvas_point(p, exp["send0_ns"] + 3500, 0, 3)   # off the message's arrow
    rgb = pixel(p, x, y)[:3]
    check(rgb == hex_rgb("#3b7dd8"), f"timeline: rank 0's first MPI_Send is drawn in blue at x={x:.0f} (got {rgb})")
    p.pg.mouse.move(px, py)
    tip = p.js("document.getElementById('fy-tip').hidden ? '' : document.getElementById('fy-tip').textContent")
    check("MPI_Send" in tip and "sends 64 B to rank 1" in tip, f"timeline: tooltip on the send says so ({tip!r})")
    p.shot("timeline")
    lay = p.js("fyView.layout()")
    box = p.pg.locator("#tl-canvas").bounding_box()
    p.pg.mouse.move(box["x"] + 30, box["y"] + lay["callTop"][1] + 2)
    tip = p.js("document.getElementById('fy-tip').textContent")
    check("rank 1 on node-a" in tip and "±120 ns" in tip, f"timeline: a rank's label tells its clock alignment ({tip!r})")

    # Zoom with the wheel about the cursor: the time under the cursor stays, the span shrinks.
    t0, t1 = p.view()
    lay = p.js("fyView.layout()")
    box = p.pg.locator("#tl-canvas").bounding_box()
    cx = lay["labelW"] + lay["plotW"] * 0.3
    t_at = t0 + (cx - lay["labelW"]) * lay["pxNs"]
    p.pg.mouse.move(box["x"] + cx, box["y"] + lay["callTop"][1] + 3)
    p.pg.mouse.wheel(0, -400)
    p.wait_frame()
    a0, a1 = p.view()
    lay2 = p.js("fyView.layout()")
    t_at2 = a0 + (cx - lay2["labelW"]) * lay2["pxNs"]
    check(a1 - a0 < (t1 - t0) * 0.7, f"wheel up zooms in ({t1 - t0:.0f} -> {a1 - a0:.0f} ns)")
    check(near(t_at, t_at2, (t1 - t0) * 0.01), f"wheel zooms about the cursor ({t_at:.0f} vs {t_at2:.0f} ns)")
    p.pg.mouse.wheel(0, 400)
    p.wait_frame()
    b0, b1 = p.view()
    check(b1 - b0 > a1 - a0, "wheel down zooms out")

    # Buttons.
    p.pg.click("#tl-reset"); p.wait_frame()
    r0, r1 = p.view()
    p.pg.click("#tl-in"); p.wait_frame()
    i0, i1 = p.view()
    check(near(i1 - i0, (r1 - r0) / 2, 1), f"+ halves the span ({r1 - r0:.0f} -> {i1 - i0:.0f})")
    p.pg.click("#tl-out"); p.wait_frame()
    o0, o1 = p.view()
    check(near(o1 - o0, r1 - r0, 1), "- doubles it back")
    for _ in range(40):
        p.pg.click("#tl-in")
    p.wait_frame()
    z0, z1 = p.view()
    check(z1 - z0 >= 10 and z1 > z0, f"zooming far in stops at a small span ({z1 - z0:.1f} ns)")
    for _ in range(60):
        p.pg.click("#tl-out")
    p.wait_frame()
    z0, z1 = p.view()
    check(z1 - z0 <= exp["duration_ns"] * 1.2, "zooming far out stops at the whole trace")
    p.pg.click("#tl-reset"); p.wait_frame()
    check(p.view() == [r0, r1], "reset shows the whole trace again")

    # Range selection on the time axis: zoom to one round.
    k = 2
    ra, rb = exp["round_ns"][k], exp["round_ns"][k] + exp["round_len_ns"] * 0.9
    lay = p.js("fyView.layout()")
    xa = lay["labelW"] + (ra - lay["t0"]) / lay["pxNs"]
    xb = lay["labelW"] + (rb - lay["t0"]) / lay["pxNs"]
    box = p.pg.locator("#tl-canvas").bounding_box()
    p.pg.mouse.move(box["x"] + xa, box["y"] + 10)
    p.pg.mouse.down()
    p.pg.mouse.move(box["x"] + (xa + xb) / 2, box["y"] + 10)
    p.pg.mouse.move(box["x"] + xb, box["y"] + 10)
    p.pg.mouse.up()
    p.wait_frame()
    s0, s1 = p.view()
    px_ns = lay["pxNs"]
    check(near(s0, ra, 2 * px_ns) and near(s1, rb, 2 * px_ns),
          f"a drag on the axis zooms to that range ([{ra:.0f}, {rb:.0f}] -> [{s0:.0f}, {s1:.0f}])")
    st = p.stats()["timeline"]
    check(st["arrows"] == R, f"one round in view: {R} arrows (got {st['arrows']})")
    check(st["collectives"] == 1, f"one round in view: 1 collective group (got {st['collectives']})")
    p.shot("timeline-round")
    if U and exp["unmatched_ns"] is not None and s0 <= exp["unmatched_ns"] <= s1:
        _, _, px, py = canvas_point(p, exp["unmatched_ns"], 2)
        p.pg.mouse.move(px + 2, py + 2)
        tip = p.js("document.getElementById('fy-tip').textContent")
        check("never received" in tip and "rank 2 → rank 0" in tip,
              f"timeline: the unmatched send's cross has its tooltip ({tip!r})")

    # Drag to pan: the window moves by the drag, its span stays.
    lay = p.js("fyView.layout()")
    y = box["y"] + lay["callTop"][2] + 2
    p.pg.mouse.move(box["x"] + 700, y)
    p.pg.mouse.down()
    p.pg.mouse.move(box["x"] + 650, y)
    p.pg.mouse.move(box["x"] + 600, y)
    p.pg.mouse.up()
    p.wait_frame()
    q0, q1 = p.view()
    check(near(q0 - s0, 100 * lay["pxNs"], lay["pxNs"]) and near(q1 - q0, s1 - s0, 1),
          f"dragging 100 px left pans by 100 px of time ({q0 - s0:.0f} ns)")
    p.clean("timeline")

    # Profile.
    check(p.show("profile") == "1", "profile: ready")
    check(p.js("!document.getElementById('view-profile').hidden"), "profile: shown by #profile")
    rows = p.js("document.querySelectorAll('table[data-table=calls] tbody tr').length")
    check(rows == exp["calls"], f"profile: {exp['calls']} calls in the table (got {rows})")
    if no_profile:
        check(p.js("document.getElementById('view-profile').textContent.includes('without a profile')"),
              "profile: says it is computed from the trace")
    else:
        n = p.js("document.querySelectorAll('table[data-table=per_rank] tbody tr').length")
        check(n == R, f"profile: a row per rank (got {n})")
        check(p.js("document.querySelectorAll('table[data-table=collectives] tbody tr').length") == 1,
              "profile: the collectives table")
        check(p.js("document.querySelectorAll('table[data-table=sites] tbody tr').length") == 2,
              "profile: the call sites table")
    co = p.stats()["profile"]["collectives"]
    check(len(co) == 1 and co[0]["name"] == "MPI_Allreduce" and co[0]["count"] == exp["coll_count"]
          and near(co[0]["wait_s"], exp["coll_wait_s"], 1e-9),
          f"profile: Allreduce's count and wait for the last rank ({exp['coll_count']}, "
          f"{exp['coll_wait_s']:.6f} s): {co}")
    first = lambda: p.js("document.querySelector('table[data-table=calls] tbody tr td').textContent")
    counts = lambda: p.js("Array.from(document.querySelectorAll('table[data-table=calls] tbody tr'))"
                          ".map(r => +r.cells[1].textContent)")
    p.pg.click("table[data-table=calls] th:nth-child(2)")
    c1 = counts()
    check(c1 == sorted(c1, reverse=True), f"profile: a click on 'count' sorts by count {c1}")
    p.pg.click("table[data-table=calls] th:nth-child(2)")
    c2 = counts()
    check(c2 == sorted(c2), f"profile: a second click reverses the order {c2}")
    p.pg.click("table[data-table=calls] th:nth-child(1)")
    names = p.js("Array.from(document.querySelectorAll('table[data-table=calls] tbody tr')).map(r => r.cells[0].textContent)")
    check(names == sorted(names), f"profile: sorting by name {names}")
    check(first() == names[0], "profile: first row follows the sort")
    p.shot("profile")

    # Matrix.
    check(p.show("matrix") == "1", "matrix: ready")
    mx = p.stats()["matrix"]
    check(mx["values"] == exp["matrix_bytes"], f"matrix: bytes match the data {mx['values']}")
    p.pg.click("input[name=mx-what][value=msgs]")
    mx = p.stats()["matrix"]
    check(mx["values"] == exp["matrix_msgs"], f"matrix: messages match the data {mx['values']}")
    box = p.pg.locator("#mx-canvas").bounding_box()
    cell = mx["cell"]
    p.pg.mouse.move(box["x"] + mx["left"] + 1.5 * cell, box["y"] + mx["top"] + 0.5 * cell)
    tip = p.js("document.getElementById('fy-tip').textContent")
    want = exp["matrix_bytes"][0][1]
    check(f"rank 0 → rank 1" in tip and f"({want} bytes)" in tip, f"matrix: hover shows the cell ({tip!r})")
    p.pg.click("input[name=mx-what][value=bytes]")
    p.shot("matrix")

    # Histogram.
    check(p.show("histogram") == "1", "histogram: ready")
    bins = p.stats()["histogram"]["bins"]
    used = [b for b in bins if b["count"]]
    check(used == exp["histogram"], f"histogram: bins match the data {used}")
    his = [b["hi"] for b in bins]
    check(all(b == 2 * a for a, b in zip(his, his[1:]) if a >= 64),
          f"histogram: every bucket between the smallest and the largest is drawn {his}")
    p.shot("histogram")
    p.clean("all views")
    p.ctx.close()

    # Each view opened directly by its fragment, as `ferry view --png` does.
    for v in ("timeline", "profile", "matrix", "histogram"):
        q = Page(browser, page)
        check(q.open(v) == "1" and not q.js(f"document.getElementById('view-{v}').hidden"),
              f"#{v} opened directly shows that view")
        q.clean(f"#{v}")
        q.ctx.close()


def check_broken(browser, page, what):
    p = Page(browser, page)
    check(p.open("timeline") == "error", f"{what}: the page says error (dataset.ready)")
    check(p.js("document.title").endswith(" — error"), "title ends with ' — error'")
    err = p.js("document.getElementById('fy-error').hidden ? '' : document.getElementById('fy-error').textContent")
    want = {"base64": "not valid base64", "zlib": "does not inflate", "size": "inflates to"}[what]
    check("cannot show this trace" in err and want in err, f"{what}: the error message shows ({err!r})")
    check(p.js("document.getElementById('view-timeline').hidden"), f"{what}: no empty timeline under it")
    pe = [e for e in p.errors if e.startswith("page error")]
    check(not pe, f"{what}: no uncaught error {pe}")
    p.shot(f"broken-{what}")
    p.ctx.close()


def check_hostile(browser, page):
    """Markup in host names, the program's name and notes shows as text and runs nothing."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from make_view import HOSTILE_HOST, HOSTILE_NOTE
    p = Page(browser, page)
    check(p.open("timeline") == "1", "hostile: ready")
    labels = p.js("fyView.layout().labels")
    check(labels[0] == f"rank 0 ({HOSTILE_HOST})", f"hostile: the host name is shown as it is ({labels[0]!r})")
    notes = p.js("document.getElementById('fy-notes').textContent")
    check(HOSTILE_NOTE in notes, f"hostile: the note is shown as text ({notes!r})")
    check(p.js("document.querySelectorAll('img').length") == 0, "hostile: no element made from it")
    check(p.js("document.title") == "Ferry view: ring<!-- — ready", f"hostile: title {p.js('document.title')!r}")
    p.shot("hostile")
    p.clean("hostile")
    p.ctx.close()


def check_real(browser, page, exp):
    """A page `ferry view` wrote from tests/trace/fyt_gen.py's job (exp: what it wrote)."""
    p = Page(browser, page)
    check(p.open("timeline") == "1", "real: ready")
    st = p.stats()
    R = exp["ranks"]
    for k, e in (("intervals", "intervals"), ("messages", "messages"), ("collectives", "coll_instances")):
        check(st["load"][k] == exp[e], f"real: {exp[e]} {k} decoded (got {st['load'][k]})")
    tl = st["timeline"]
    check(tl["rows"] == R and len(p.js("fyView.layout().labels")) == R, f"real: {R} rows")
    check(tl["boxes"] > 0, f"real: boxes drawn ({tl['boxes']})")
    if exp["messages"] <= 3000:
        check(tl["arrows"] == exp["messages"], f"real: an arrow per message ({tl['arrows']})")
    check(tl["collectives"] == exp["coll_instances"],
          f"real: a group per collective instance ({tl['collectives']} of {exp['coll_instances']})")
    p.shot("real-timeline")
    for v in ("profile", "matrix", "histogram"):
        check(p.show(v) == "1", f"real: {v} ready")
        p.shot(f"real-{v}")
    mx = p.stats()["matrix"]
    if "trace" in mx["src"]:
        p.show("matrix")
        p.pg.click("input[name=mx-what][value=msgs]")
        n = sum(map(sum, p.stats()["matrix"]["values"]))
        check(n == exp["messages"], f"real: the matrix counts every message ({n})")
    hg = p.stats()["histogram"]
    if "trace" in hg["src"]:
        n = sum(b["count"] for b in hg["bins"])
        check(n == exp["messages"], f"real: the histogram counts every message ({n})")
    p.clean("real")
    p.ctx.close()


def check_big(browser, page, exp):
    p = Page(browser, page)
    t = time.monotonic()
    check(p.open("timeline") == "1", "big: ready")
    print(f"note: big page ({exp['intervals']} intervals, {exp['html_bytes'] >> 20} MiB) ready in "
          f"{time.monotonic() - t:.2f} s (not judged)")
    st = p.stats()
    check(st["load"]["intervals"] == exp["intervals"], f"big: {exp['intervals']} intervals decoded")
    check(st["load"]["messages"] == exp["messages"], f"big: {exp['messages']} messages decoded")
    tl = st["timeline"]
    check(tl["rows"] == exp["ranks"], f"big: {exp['ranks']} rows")
    check(tl["coverageRows"] == exp["ranks"], f"big: dense rows drawn as coverage ({tl['coverageRows']})")
    check(tl["arrows"] == 0 and tl["arrowsInView"] > 0, "big: arrows left out at full view")
    # Coverage drawn: some pixels of rank 0's call band are not the row's background.
    lay = p.js("fyView.layout()")
    y = lay["callTop"][0] + lay["callH"] - 2
    row = p.js(f"Array.from(document.getElementById('tl-canvas').getContext('2d')"
               f".getImageData({lay['labelW'] + 20}, {y}, 400, 1).data)")
    painted = sum(1 for i in range(0, len(row), 4) if row[i:i + 3] != [255, 255, 255])
    check(painted > 300, f"big: rank 0's band is painted ({painted} of 400 px)")
    box = p.pg.locator("#tl-canvas").bounding_box()
    p.pg.mouse.move(box["x"] + lay["labelW"] + 300, box["y"] + lay["callTop"][0] + lay["callH"] / 2)
    tip = p.js("document.getElementById('fy-tip').textContent")
    check("calls" in tip and "% of the time" in tip and "outside MPI" in tip,
          f"big: a dense pixel's tooltip gives its shares ({tip!r})")
    p.shot("big")
    steps = 0
    while p.stats()["timeline"]["coverageRows"] and steps < 40:
        p.js("fyView.zoom(4)")
        steps += 1
    tl = p.stats()["timeline"]
    check(tl["coverageRows"] == 0 and tl["boxes"] > 0, f"big: zoomed in ({steps} x4) each call is a box")
    while p.stats()["timeline"]["arrows"] == 0 and steps < 60:
        p.js("fyView.zoom(2)")
        steps += 1
    check(p.stats()["timeline"]["arrows"] > 0, "big: zoomed in, arrows are drawn")
    p.shot("big-zoom")
    p.js("fyView.reset()")
    check(p.stats()["timeline"]["coverageRows"] == exp["ranks"], "big: reset draws the overview again")
    for v in ("profile", "matrix", "histogram"):
        check(p.show(v) == "1", f"big: {v} ready")
    m = p.stats()["matrix"]["values"]
    check(sum(map(sum, m)) > 0, "big: the matrix has the messages")
    p.clean("big")
    p.ctx.close()


def bench_open(browser, page):
    p = Page(browser, page)
    t = time.monotonic()
    p.open("timeline")
    wall = time.monotonic() - t
    st = p.stats()
    print(f"open: {wall:.2f} s from navigation to ready (in-page {p.js('performance.now()') / 1000:.2f} s); "
          f"{st['load']['intervals']} intervals, {st['load']['messages']} messages, "
          f"{os.path.getsize(page) / 2**20:.0f} MiB of HTML")
    print(f"phases (ms since navigation): {st['load']['ms']}")
    for f in ("fyView.zoom(8)", "fyView.zoom(64)", "fyView.zoom(64)", "fyView.reset()"):
        t = time.monotonic()
        p.js(f)
        print(f"{f}: {1000 * (time.monotonic() - t):.0f} ms")
    p.clean("open")


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    kind, page = sys.argv[1], sys.argv[2]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        Page.wait_frame = lambda self: self.pg.evaluate(
            "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        try:
            if kind == "ring":
                with open(sys.argv[3]) as f:
                    check_ring(browser, page, json.load(f), "--no-profile" in sys.argv)
            elif kind == "broken":
                check_broken(browser, page, sys.argv[3])
            elif kind == "hostile":
                check_hostile(browser, page)
            elif kind == "real":
                with open(sys.argv[3]) as f:
                    check_real(browser, page, json.load(f))
            elif kind == "big":
                with open(sys.argv[3]) as f:
                    check_big(browser, page, json.load(f))
            elif kind == "open":
                bench_open(browser, page)
            else:
                raise SystemExit(f"view_check.py: unknown check {kind!r}")
        finally:
            browser.close()
    if FAILS:
        print(f"{len(FAILS)} checks failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
