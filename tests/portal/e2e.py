"""The portal's end-to-end checks in a real browser (Debian's Chromium driven by Playwright).

    e2e.py SCENARIO URL OUTDIR USER:PASSWORD [OTHER:PASSWORD]

Scenarios (one per tests/portal/e2e_*.sh):
  run      sign in; cpi typed into the editor and run on 4 ranks: its lines stream in; the time
           from the click on Run to the first line on the page, on a first run (compiled) and a
           cached one ("Edit and run again"); the rank and text filters; the history lists both
           jobs; the examples and admin pages; OTHER signed in sees "not found" at the job's URL.
  compile  a program with an error on a known line: the compile_error state, the lint marker on
           that line of the editor and its underline, the list of diagnostics.
  files    a tar.gz with the program and an input file uploaded; the program reads the input and
           writes a text file, a CSV and an SVG: the text file downloaded equals what was expected,
           the CSV is plotted (pixels on its canvas), the SVG shown as an image.
Screenshots go to OUTDIR and, with FY_PORTAL_SHOTS=DIR, to DIR as well. Prints "ok: ..." per
check; exits 1 at the first failure, 77 when the editor bundle is not installed.
"""
import os
import pathlib
import secrets
import shutil
import sys
import tarfile
import urllib.error
import urllib.request

from playwright.sync_api import sync_playwright

WAIT = 60_000  # ms; a hang guard only: every wait ends as soon as its condition holds


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def ok(msg):
    print("ok: " + msg, flush=True)


CPI = r"""/* cpi: pi as the integral of 4/(1+x^2) over [0,1], each rank a share. TOKEN */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, n = 100000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("Process %d of %d\n", rank, size);
    fflush(stdout);
    double h = 1.0 / n, sum = 0.0, pi;
    for (int i = rank + 1; i <= n; i += size) {
        double x = h * (i - 0.5);
        sum += 4.0 / (1.0 + x * x);
    }
    double mine = h * sum;
    MPI_Reduce(&mine, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pi is approximately %.16f, Error is %.16f\n", pi, pi - 3.141592653589793);
    fprintf(stderr, "rank %d done\n", rank);
    MPI_Finalize();
    return 0;
}
"""

# The error is on line BAD_LINE: an undeclared name.
BAD = """#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int total = undeclared_name + 1;
    printf("%d\\n", total);
    MPI_Finalize();
    return 0;
}
"""
BAD_LINE = 7

# Says it started, then waits far longer than the test: only Cancel ends it.
SLEEPER = r"""#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d started\n", rank);
    fflush(stdout);
    sleep(600);
    MPI_Finalize();
    return 0;
}
"""

# Reads input.txt (one number a line), rank 0 writes the squares to output.txt, a CSV of n
# against n^2 and n^3, and an SVG; every rank says what it read.
FILES = r"""#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, n = 0;
    double v[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    FILE *in = fopen("input.txt", "r");
    if (!in) { perror("input.txt"); MPI_Abort(MPI_COMM_WORLD, 2); }
    while (n < 64 && fscanf(in, "%lf", &v[n]) == 1) n++;
    fclose(in);
    printf("rank %d read %d numbers\n", rank, n);
    if (rank == 0) {
        FILE *out = fopen("output.txt", "w"), *csv = fopen("powers.csv", "w"), *svg = fopen("bars.svg", "w");
        fprintf(csv, "n,square,cube\n");
        fprintf(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"100\">\n", 20 * n);
        for (int i = 0; i < n; i++) {
            fprintf(out, "%g squared is %g\n", v[i], v[i] * v[i]);
            fprintf(csv, "%g,%g,%g\n", v[i], v[i] * v[i], v[i] * v[i] * v[i]);
            fprintf(svg, "<rect x=\"%d\" y=\"%g\" width=\"16\" height=\"%g\" fill=\"#1f5fbf\"/>\n",
                    20 * i, 100 - 10 * v[i], 10 * v[i]);
        }
        fprintf(svg, "</svg>\n");
        fclose(out); fclose(csv); fclose(svg);
    }
    MPI_Finalize();
    return 0;
}
"""
INPUT = [1, 2, 3, 4, 5, 6, 7, 8, 9]


class Portal:
    def __init__(self, pw, url, outdir):
        self.url = url.rstrip("/")
        self.outdir = pathlib.Path(outdir)
        self.shots = os.environ.get("FY_PORTAL_SHOTS")
        exe = os.environ.get("FY_CHROMIUM", "/usr/bin/chromium")
        self.browser = pw.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        self.errors = []
        self.page = self.new_page()

    def new_page(self):
        ctx = self.browser.new_context(viewport={"width": 1280, "height": 860}, accept_downloads=True)
        ctx.set_default_timeout(WAIT)
        page = ctx.new_page()
        # Any script error or CSP violation is a failure of the page, whatever else works.
        page.on("pageerror", lambda e: self.errors.append("page error: %s" % e))
        page.on("console", lambda m: self.errors.append("console: " + m.text)
                if m.type == "error" and ("Content Security Policy" in m.text or "Uncaught" in m.text) else None)
        return page

    def check_clean(self):
        if self.errors:
            fail("the page reported errors:\n  " + "\n  ".join(self.errors))

    def shot(self, name, full=False):
        path = self.outdir / (name + ".png")
        self.page.screenshot(path=str(path), full_page=full)
        if self.shots:
            os.makedirs(self.shots, exist_ok=True)
            shutil.copyfile(path, os.path.join(self.shots, name + ".png"))

    def sign_in(self, name, password):
        p = self.page
        # A URL without a fragment loads the page afresh: a fragment alone would re-route the
        # page already there, which may replace its form while it is being filled.
        p.goto(self.url + "/")
        p.wait_for_selector("#login-form")
        p.fill("#login-name", name)
        p.fill("#login-password", password)
        p.click("#login-submit")
        p.wait_for_selector("#job-form")
        who = p.inner_text("#who-name")
        if name not in who:
            fail("signed in as %s but the top bar says %r" % (name, who))

    def sign_out(self):
        self.page.click("#signout")
        self.page.wait_for_selector("#login-form")

    def set_source(self, text):
        """Replaces the editor's text as a paste would (typing would auto-close brackets)."""
        p = self.page
        p.click(".cm-content")
        p.keyboard.press("Control+A")
        p.keyboard.press("Delete")
        p.keyboard.insert_text(text)
        got = p.evaluate("() => Array.from(document.querySelector('#editor .cm-host').shadowRoot"
                         ".querySelectorAll('.cm-line')).length")
        if got < text.count("\n"):
            fail("the editor shows %d lines after pasting %d" % (got, text.count("\n")))

    def submit(self, ranks, args=""):
        """Fills the settings, clicks Run with the in-page timers armed; returns the job id."""
        p = self.page
        p.fill("#ranks", str(ranks))
        p.fill("#args", args)
        arm_timers(p)
        p.click("#run")
        p.wait_for_url("**/#/job/*")
        job = p.url.rsplit("/", 1)[1]
        p.wait_for_selector("#output")
        return job

    def wait_end(self, states=("done",)):
        p = self.page
        sel = ", ".join('#job-state .badge[data-state="%s"]' % s for s in
                        ("done", "failed", "compile_error", "timeout", "killed", "cancelled", "error"))
        p.wait_for_selector(sel)
        state = p.get_attribute("#job-state .badge", "data-state")
        if state not in states:
            fail("the job ended %s (%s), not %s; output:\n%s" % (
                state, p.inner_text("#job-message"), "/".join(states), p.inner_text("#app")[:3000]))
        return state


def arm_timers(page):
    """Times in the page (performance.now) from the click on Run to the first program line
    added to the output and to the line with pi, each also at the next frame (on screen)."""
    page.evaluate("""() => {
        const t = window.__e2e = {};
        document.querySelector('#run').addEventListener('click', () => { t.click = performance.now(); }, {capture: true});
        const mark = (k) => { t[k] = performance.now(); requestAnimationFrame(() => { t[k + 'Frame'] = performance.now(); }); };
        new MutationObserver((muts, obs) => {
            for (const m of muts) for (const n of m.addedNodes) {
                if (!(n instanceof Element)) continue;
                const lines = n.matches('.out-line') ? [n] : Array.from(n.querySelectorAll('.out-line'));
                for (const l of lines) {
                    if (Number(l.dataset.rank) < 0) continue;
                    if (t.first === undefined) mark('first');
                    if (t.pi === undefined && l.textContent.includes('pi is approximately')) { mark('pi'); obs.disconnect(); }
                }
            }
        }).observe(document.body, {childList: true, subtree: true});
    }""")


def drop_first_stream(page, keep_out):
    """Cuts the first event stream of the next job after keep_out output lines (the events
    already sent, then the end of the response, as a dropped connection); later requests go to
    the portal. Returns the list the later requests' URLs are appended to."""
    urls, first = [], []

    def handler(route):
        if first:
            urls.append(route.request.url)
            return route.continue_()
        first.append(route.request.url)
        body = route.fetch().text()  # the whole stream: the portal ends it after the job's end
        kept, outs = [], 0
        for chunk in body.split("\n\n"):
            if outs == keep_out:
                break
            kept.append(chunk)
            outs += "event: out" in chunk
        route.fulfill(status=200, headers={"Content-Type": "text/event-stream"},
                      body="\n\n".join(kept) + "\n\n")

    page.route("**/api/jobs/*/events*", handler)
    return urls


def check_link(portal, link, want):
    """The job page's link to its trace view or profile: a new tab, answering with `want`."""
    p = portal.page
    p.wait_for_selector(link)
    href = p.get_attribute(link, "href")
    if p.get_attribute(link, "target") != "_blank":
        fail(link + " does not open a new tab")
    r = p.request.get(portal.url + href)
    if r.status != 200 or want not in r.text()[:20000]:
        fail("%s (%s) answered %d: %r" % (link, href, r.status, r.text()[:200]))
    ok("%s opens %s (%d bytes)" % (link, href, len(r.body())))


def timers(page):
    page.wait_for_function("() => window.__e2e && window.__e2e.piFrame !== undefined")
    t = page.evaluate("() => window.__e2e")
    return t["firstFrame"] - t["click"], t["piFrame"] - t["click"]


def need_editor(url):
    try:
        urllib.request.urlopen(url + "/static/editor.js", timeout=30).close()
    except urllib.error.HTTPError as e:
        if e.code == 404:
            print("SKIP: the editor bundle is not installed (scripts/install-portal.sh builds it with npm)")
            sys.exit(77)
        raise


def scenario_run(portal, other):
    p = portal.page
    portal.shot("new-job")
    source = CPI.replace("TOKEN", secrets.token_hex(8))  # never in the compile cache before
    portal.set_source(source)
    portal.shot("new-job-cpi")
    # A refused field gets its message under it, in words (not JSON).
    p.fill("#ranks", "999")
    p.click("#run")
    err = p.locator('.field:has(#ranks) .field-error')
    err.wait_for()
    if "{" in err.inner_text() or not err.inner_text().strip():
        fail("the error under ranks reads %r" % err.inner_text())
    ok("999 ranks refused under the field: %r" % err.inner_text())
    portal.shot("new-job-error")
    job1 = portal.submit(4)
    p.wait_for_selector('.out-line[data-rank="0"] >> text=pi is approximately')
    first1, pi1 = timers(p)
    portal.wait_end()
    for r in range(4):
        if not p.locator('.out-line[data-rank="%d"][data-stream="stdout"] >> text=Process %d of 4' % (r, r)).count():
            fail("no 'Process %d of 4' line from rank %d" % (r, r))
    ok("cpi on 4 ranks: a line from each rank and the pi line streamed in; state done")
    portal.shot("job-done")

    # The rank filter shows one rank's lines only; the text search narrows further.
    p.select_option("#filter", "2")
    shown = p.locator(".out-line:visible")
    ranks = set(shown.evaluate_all("ls => ls.map(l => l.dataset.rank)"))
    if ranks != {"2"} or shown.count() < 2:
        fail("filter rank 2 shows ranks %s (%d lines)" % (sorted(ranks), shown.count()))
    ok("filter 'rank 2' shows rank 2's %d lines only (stdout and stderr)" % shown.count())
    p.select_option("#filter", "stderr")
    streams = set(p.locator(".out-line:visible").evaluate_all("ls => ls.map(l => l.dataset.stream)"))
    if streams != {"stderr"}:
        fail("filter stderr shows streams %s" % sorted(streams))
    p.select_option("#filter", "all")
    p.fill("#search", "approximately")
    texts = p.locator(".out-line:visible").all_inner_texts()
    if len(texts) != 1 or "pi is approximately" not in texts[0]:
        fail("the search 'approximately' shows %r" % texts)
    p.fill("#search", "")
    ok("filters: stderr only, and a text search leaving the pi line")

    # The same program again is cached: "Edit and run again" keeps the source.
    p.click("#rerun")
    p.wait_for_selector("#job-form")
    job2 = portal.submit(4)
    p.wait_for_selector('.out-line[data-rank="0"] >> text=pi is approximately')
    first2, pi2 = timers(p)
    portal.wait_end()
    print("timing: click on Run to the first line on screen: first run %.0f ms, cached %.0f ms "
          "(targets 1000 and 300); to the pi line: %.0f ms and %.0f ms" % (first1, first2, pi1, pi2))
    ok("'Edit and run again' ran the same source again")

    # A stream that drops after a few lines: the page reconnects with after= and the output
    # ends up whole, each line once.
    want = sorted(p.locator(".out-line").all_inner_texts())
    urls = drop_first_stream(p, keep_out=3)
    p.click("#rerun")
    p.wait_for_selector("#job-form")
    p.check("#profile")
    portal.submit(4)
    portal.wait_end()
    p.wait_for_function("n => document.querySelectorAll('.out-line').length >= n", arg=len(want))
    got = sorted(p.locator(".out-line").all_inner_texts())
    p.unroute("**/api/jobs/*/events*")
    resumed = [u for u in urls if "after=0" not in u]
    # The profile adds mpiexec's line saying where it wrote it; cpi's lines are all different.
    if not set(want) <= set(got) or len(set(got)) != len(got) or not resumed:
        fail("after a dropped stream the page has %r (want %r), reconnections %r" % (got, want, urls))
    ok("a stream dropped after 3 lines: the page reconnected (%s) and shows the %d lines once each" % (
        resumed[0].split("?", 1)[1], len(got)))
    check_link(portal, "#profile-link", "MPI")  # that run had the profile box ticked

    p.goto(portal.url + "/#/jobs")
    p.wait_for_selector("#history")
    for j in (job1, job2):
        if not p.locator('#history tr[data-id="%s"]' % j).count():
            fail("the history does not list job %s" % j)
        if p.get_attribute('#history tr[data-id="%s"] .badge' % j, "data-state") != "done":
            fail("the history does not show job %s as done" % j)
    ok("the history lists both jobs as done")
    portal.shot("history")

    if p.locator("#nav-admin:visible").count():
        p.goto(portal.url + "/#/admin")
        p.wait_for_selector("#users")
        p.fill("#new-name", "carol")
        p.click("#user-form button[type=submit]")
        err = p.locator("#user-form .field-error, #user-form .form-error:not(:empty)")
        err.first.wait_for()
        ok("adding a user without a password refused: %r" % err.first.inner_text())
        p.fill("#new-password", "carol-" + secrets.token_hex(6))
        p.click("#user-form button[type=submit]")
        p.wait_for_selector('#users td:text-is("carol")')
        portal.shot("admin")
        ok("the admin page added carol; it lists %d users" % p.locator("#users tbody tr").count())

    # Another user, signed in, at the first job's URL.
    portal.sign_out()
    portal.shot("sign-in")
    portal.sign_in(*other)
    p.goto(portal.url + "/#/job/" + job1)
    p.wait_for_selector("#not-found")
    portal.shot("not-found")
    if "not found" not in p.inner_text("#not-found").lower() or p.locator(".out-line").count():
        fail("another user's job page shows more than 'not found'")
    p.goto(portal.url + "/#/jobs")
    p.wait_for_selector("#history, #no-jobs")
    if p.locator('#history tr[data-id="%s"]' % job1).count():
        fail("another user's history lists job %s" % job1)
    ok("user %s sees 'not found' at %s's job URL, and not in their history" % (other[0], "the first user"))

    # The gallery, as the user: a card opens its program in the editor.
    p.goto(portal.url + "/#/examples")
    p.wait_for_selector("#examples, #app .form-error")
    if not p.locator("#examples").count():
        fail("the examples page says: " + p.inner_text("#app"))
    cards = p.locator("#examples .card").count()
    if cards:
        portal.shot("examples")
        p.locator("#examples .card button").first.click()
        p.wait_for_selector("#job-form .cm-content")
        n = p.evaluate("() => document.querySelector('#editor .cm-host').shadowRoot.querySelectorAll('.cm-line').length")
        if n < 5:
            fail("the first example opened an editor with %d lines" % n)
        ok("examples: %d cards; the first opens in the editor (%d lines)" % (cards, n))
    else:
        fail("the examples gallery is empty")


def scenario_compile(portal):
    p = portal.page
    portal.set_source(BAD)
    portal.submit(2)
    portal.wait_end(("compile_error",))
    p.wait_for_selector('#diags li[data-line="%d"]' % BAD_LINE)
    marker = p.locator("#job-editor .cm-lint-marker-error")
    marker.first.wait_for()
    # The marker's gutter row and line BAD_LINE's number are at the same height.
    where = p.evaluate("""(n) => {
        const root = document.querySelector('#job-editor .cm-host').shadowRoot;
        const mk = root.querySelector('.cm-lint-marker-error').getBoundingClientRect();
        const line = root.querySelectorAll('.cm-content .cm-line')[n - 1].getBoundingClientRect();
        const under = root.querySelector('.cm-lintRange-error');
        const u = under ? under.getBoundingClientRect() : null;
        const num = Array.from(root.querySelectorAll('.cm-lineNumbers .cm-gutterElement'))
            .find(e => e.textContent === String(n)).getBoundingClientRect();
        const mid = (r) => r.top + r.height / 2;
        return {marker: mid(mk), line: mid(line), number: mid(num), under: u && mid(u),
                lineTop: line.top, lineBottom: line.bottom,
                text: root.querySelectorAll('.cm-content .cm-line')[n - 1].textContent,
                underText: under ? under.textContent : ''};
    }""", BAD_LINE)
    if not (where["lineTop"] <= where["marker"] <= where["lineBottom"]) or abs(where["marker"] - where["number"]) > 2:
        fail("the lint marker is not on line %d: %s" % (BAD_LINE, where))
    if where["under"] is None or not (where["lineTop"] <= where["under"] <= where["lineBottom"]):
        fail("no underline on line %d: %s" % (BAD_LINE, where))
    ok("compile error: the lint marker is on line %d (%r), the underline on %r" % (
        BAD_LINE, where["text"].strip(), where["underText"]))
    items = p.locator("#diags li").all_inner_texts()
    if not any("undeclared_name" in t for t in items):
        fail("the diagnostics list lacks the error: %r" % items)
    ok("the diagnostics list says %r" % items[0])
    portal.shot("compile-error")

    # The same page where the job was not submitted (nothing kept in the tab): the source comes
    # from the job's directory and the marker is on its line again.
    p.evaluate("() => sessionStorage.clear()")
    p.reload()
    p.wait_for_selector("#job-editor .cm-lint-marker-error")
    again = p.evaluate("""(n) => {
        const root = document.querySelector('#job-editor .cm-host').shadowRoot;
        const mk = root.querySelector('.cm-lint-marker-error').getBoundingClientRect();
        const line = root.querySelectorAll('.cm-content .cm-line')[n - 1].getBoundingClientRect();
        return mk.top + mk.height / 2 >= line.top && mk.top + mk.height / 2 <= line.bottom;
    }""", BAD_LINE)
    if not again:
        fail("reopened, the job page's marker is not on line %d" % BAD_LINE)
    ok("reopened without the tab's memory: the source loaded and the marker on line %d" % BAD_LINE)

    # With one job at a time (the test's configuration), a second waits queued with its place;
    # Cancel ends the waiting one and the running one.
    p.click("#rerun")
    p.wait_for_selector("#job-form")
    portal.set_source(SLEEPER)
    p.fill("#time_limit", "300")
    running = portal.submit(1)
    p.wait_for_selector('.out-line >> text=rank 0 started')
    p.click("#rerun")
    p.wait_for_selector("#job-form")
    portal.submit(1)
    p.wait_for_selector('#job-state .badge[data-state="queued"]')
    p.wait_for_function("() => /position \\d/.test(document.querySelector('#job-message').textContent)")
    ok("a second job waits: %r" % p.inner_text("#job-message"))
    portal.shot("job-queued")
    p.click("#cancel")
    portal.wait_end(("cancelled",))
    p.goto(portal.url + "/#/job/" + running)
    p.wait_for_selector('#job-state .badge[data-state="running"]')
    p.click("#cancel")
    portal.wait_end(("cancelled",))
    if p.locator("#cancel:visible").count():
        fail("the Cancel button is still shown on a cancelled job")
    ok("Cancel ended the queued job and the running one (%r)" % p.inner_text("#job-message"))


def scenario_files(portal):
    p = portal.page
    src = portal.outdir / "upload"
    src.mkdir(exist_ok=True)
    (src / "main.c").write_text(FILES)
    (src / "input.txt").write_text("".join("%d\n" % v for v in INPUT))
    archive = portal.outdir / "job.tar.gz"
    with tarfile.open(archive, "w:gz") as t:
        t.add(src / "main.c", "main.c")
        t.add(src / "input.txt", "input.txt")
    p.click("#tab-upload")
    p.set_input_files("#upload", str(archive))
    p.fill("#main", "main.c")
    p.check("#trace")
    portal.submit(2)
    portal.wait_end()
    for r in range(2):
        p.wait_for_selector('.out-line[data-rank="%d"] >> text=read %d numbers' % (r, len(INPUT)))
    ok("the uploaded program read input.txt on both ranks")

    p.wait_for_selector('#files .file[data-path="output.txt"]')
    with p.expect_download() as dl:
        p.click('#files .file[data-path="output.txt"] a')
    got = pathlib.Path(dl.value.path()).read_text()
    want = "".join("%g squared is %g\n" % (v, v * v) for v in INPUT)
    if got != want:
        fail("output.txt downloaded is %r, not %r" % (got[:200], want[:200]))
    ok("output.txt downloaded (%s) equals what the program should write" % dl.value.suggested_filename)

    canvas = p.locator('#files .file[data-path="powers.csv"] canvas')
    canvas.wait_for()
    inked = canvas.evaluate("""c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let blue = 0, red = 0;
        for (let i = 0; i < d.length; i += 4) {
            if (d[i+3] > 200 && d[i+2] > 150 && d[i] < 80) blue++;
            if (d[i+3] > 200 && d[i] > 170 && d[i+1] < 110) red++;
        }
        return {blue, red}; }""")
    if inked["blue"] < 50 or inked["red"] < 50:
        fail("the CSV plot has too few line pixels: %s" % inked)
    ok("powers.csv plotted: two lines on the canvas (%d and %d pixels)" % (inked["blue"], inked["red"]))
    img = p.locator('#files .file[data-path="bars.svg"] img')
    img.wait_for()
    p.wait_for_function("""() => { const i = document.querySelector('#files .file[data-path="bars.svg"] img');
        return i && i.complete && i.naturalWidth > 0; }""")
    ok("bars.svg shown as an image (%s px wide)" % img.evaluate("i => i.naturalWidth"))
    portal.shot("job-files", full=True)

    check_link(portal, "#trace-link", "<html")  # recorded with a trace


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    scenario, url, outdir = sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3]
    user = tuple(sys.argv[4].split(":", 1))
    other = tuple(sys.argv[5].split(":", 1)) if len(sys.argv) > 5 else None
    need_editor(url)
    with sync_playwright() as pw:
        portal = Portal(pw, url, outdir)
        portal.sign_in(*user)
        ok("signed in as " + user[0])
        if scenario == "run":
            scenario_run(portal, other)
        elif scenario == "compile":
            scenario_compile(portal)
        elif scenario == "files":
            scenario_files(portal)
        else:
            fail("no scenario " + scenario)
        portal.check_clean()
        ok("no script errors or CSP violations in the page")
        portal.browser.close()


if __name__ == "__main__":
    main()
