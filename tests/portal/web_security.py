"""The checks of web_security.sh: python3 web_security.py URL (users alice and bob exist)."""
import http.client
import sys
import urllib.parse

from portal_http import Client, check, run_checks

URL = sys.argv[1]
# Writes an output file and plants links out of its directory: to a file, to a directory, and a
# directory link inside a subdirectory.
PLANTER = r"""
#include <mpi.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        FILE *f = fopen("result.txt", "w");
        fputs("alice's result\n", f);
        fclose(f);
        symlink("/etc/passwd", "escape");
        symlink("..", "up");
        mkdir("sub", 0755);
        symlink("/etc", "sub/etc");
    }
    printf("rank %d planted\n", rank);
    MPI_Finalize();
    return 0;
}
"""
state = {}


def alice_job():
    a = Client(URL)
    check(a.login("alice", "alice-password-1").status == 200, "alice signs in")
    r = a.submit(PLANTER, ranks="2", time_limit="60")
    check(r.status == 201 and len(r.json["id"]) == 16, f"alice submits a job ({r})")
    job = r.json["id"]
    events = a.events(job)
    end = events[-1] if events else {}
    check(end.get("type") == "end" and end.get("state") == "done",
          f"alice's job ends done ({end}; {len(events)} events)")
    check(any(e.get("type") == "out" and "planted" in e.get("text", "") for e in events),
          "alice's job's output streamed")
    rec = a.get(f"/api/jobs/{job}").json
    paths = [f["path"] for f in rec.get("files", [])]
    check("result.txt" in paths and "escape" not in paths and "up" not in paths,
          f"the job's file list holds its output, not its links ({paths})")
    state.update(alice=a, job=job)


def downloads():
    a, job = state["alice"], state["job"]
    r = a.get(f"/api/jobs/{job}/files/result.txt")
    check(r.status == 200 and r.body == b"alice's result\n", "alice downloads her result")
    check(r.headers["Content-Disposition"].startswith("attachment")
          and r.headers["X-Content-Type-Options"] == "nosniff",
          f"as an attachment, nosniff ({r.headers['Content-Disposition']})")
    base = f"/api/jobs/{job}/files/"
    u = urllib.parse.urlsplit(URL)
    for path in ("escape", "up/events.jsonl", "up/work/result.txt", "sub/etc/passwd",
                 "../../../etc/passwd", "..%2f..%2f..%2fetc%2fpasswd", "%2e%2e%2f%2e%2e%2fportal.db",
                 "%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/etc/passwd", "%2fetc%2fpasswd",
                 "sub/../../../etc/passwd", "result.txt%00.png", "."):
        # http.client sends the path as written: no client-side normalising of the dots.
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
        conn.request("GET", base + path, headers={
            "Cookie": "; ".join(f"{k}={v}" for k, v in a.cookies.items())})
        resp = conn.getresponse()
        body = resp.read()
        conn.close()
        check(resp.status in (400, 404) and b"root:" not in body and b"SQLite" not in body
              and b"alice's result" not in body,
              f"download {path!r}: refused with {resp.status}")


def other_users_job():
    job = state["job"]
    b = Client(URL)
    check(b.login("bob", "bob-password-1").status == 200, "bob signs in")
    r = b.get("/api/jobs")
    check(r.status == 200 and all(j["id"] != job for j in r.json["jobs"]),
          "alice's job is not in bob's list")
    nothing = b.get("/api/jobs/0123456789abcdef")
    check(nothing.status == 404, "a job that does not exist: 404")
    for method, path in (("GET", ""), ("GET", "/events"), ("GET", "/events?after=0"),
                         ("GET", "/files/result.txt"), ("GET", "/files/result.txt?inline=1"),
                         ("GET", "/view"), ("GET", "/profile"), ("POST", "/cancel")):
        r = b.request(method, f"/api/jobs/{job}{path}")
        check(r.status == 404 and r.body == nothing.body,
              f"bob: {method} alice's job{path}: the same 404 as no job")
    a = state["alice"]
    check(a.get(f"/api/jobs/{job}").status == 200, "alice still sees her job")
    state["bob"] = b


def csrf():
    b, a = state["bob"], state["alice"]
    src = "int main(void) { return 0; }\n"
    for what, headers in (("no token", {"X-CSRF-Token": ""}),
                          ("a wrong token", {"X-CSRF-Token": "x" * 43}),
                          ("alice's token", {"X-CSRF-Token": a.csrf}),
                          ("a foreign Origin", {"Origin": "http://evil.example"}),
                          ("a null Origin", {"Origin": "null"})):
        r = b.post("/api/jobs", form={"source": src}, headers=headers, csrf=what != "no token")
        check(r.status == 403 and "refused" in r.json["error"],
              f"POST /api/jobs with {what}: 403 {r.json['error']!r}")
    r = b.post("/api/logout", headers={"X-CSRF-Token": "wrong"})
    check(r.status == 403 and b.get("/api/me").status == 200,
          "sign-out with a wrong token: 403, still signed in")
    r = Client(URL).post("/api/login", json_body={"name": "bob", "password": "bob-password-1"},
                         headers={"Origin": "http://evil.example"})
    check(r.status == 403, "sign-in from a foreign Origin: 403")
    r = b.post("/api/jobs", form={"source": src, "ranks": "1"},
               headers={"Origin": URL})
    check(r.status == 201, f"the same request with the token and our Origin: 201 ({r})")
    own = r.json["id"]
    r = b.request("POST", f"/api/jobs/{own}/cancel", csrf=False)
    check(r.status == 403, "cancelling his own job without the token: 403")
    b.events(own)


def fixation():
    c = Client(URL)
    c.cookies["ferry_session"] = "planted-by-an-attacker-0123456789abcdef0123"
    check(c.get("/api/me").status == 401, "a planted cookie is not a session")
    r = c.login("bob", "bob-password-1")
    new = c.cookies.get("ferry_session")
    check(r.status == 200 and new and new != "planted-by-an-attacker-0123456789abcdef0123",
          "sign-in issues a new id, not the planted one")
    p = Client(URL)
    p.cookies["ferry_session"] = "planted-by-an-attacker-0123456789abcdef0123"
    check(p.get("/api/me").status == 401, "the planted id is still no session after sign-in")
    # Signing in again from a signed-in browser rotates the id; the old one is dead.
    old = dict(c.cookies)
    c.login("bob", "bob-password-1")
    check(c.cookies["ferry_session"] != old["ferry_session"], "a second sign-in rotates the id")
    o = Client(URL)
    o.cookies = old
    check(o.get("/api/me").status == 401, "the id before the rotation is dead")
    raw = [s for s in c.set_cookies if s.startswith("ferry_session=")][-1]
    attrs = {a.strip().lower() for a in raw.split(";")[1:]}
    check("httponly" in attrs and "samesite=strict" in attrs and "path=/" in attrs,
          f"the cookie is HttpOnly, SameSite=Strict ({raw.split(';', 1)[1].strip()})")


def headers():
    b = state["bob"]
    for path in ("/", "/api/me", "/api/nothing", "/static/editor.js"):
        r = b.get(path)
        h = r.headers
        csp = h.get("Content-Security-Policy", "")
        check("default-src 'self'" in csp and "frame-ancestors 'none'" in csp
              and h.get("X-Content-Type-Options") == "nosniff"
              and h.get("Referrer-Policy") == "no-referrer" and h.get("X-Frame-Options") == "DENY",
              f"GET {path} ({r.status}): CSP, nosniff, Referrer-Policy, X-Frame-Options")


run_checks([alice_job, downloads, other_users_job, csrf, fixation, headers])
