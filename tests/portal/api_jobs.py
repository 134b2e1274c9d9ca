"""The checks of api_jobs.sh: python3 api_jobs.py URL (user erin exists)."""
import sys

from portal_http import Client, check, run_checks

URL = sys.argv[1]
WRITER = r"""
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 3; i++)
        printf("rank %d line %d\n", rank, i);
    if (rank == 0) {
        FILE *f = fopen("data.csv", "w");
        fputs("x,y\n1,2\n2,4\n", f);
        fclose(f);
        f = fopen("plot.svg", "w");
        fputs("<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>\n", f);
        fclose(f);
        f = fopen("raw.bin", "wb");
        fputc(0, f);
        fclose(f);
    }
    MPI_Finalize();
    return 0;
}
"""
SLEEPER = r"""
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    printf("sleeping\n");
    fflush(stdout);
    sleep(40);
    MPI_Finalize();
    return 0;
}
"""
BROKEN = "#include <mpi.h>\nint main(void)\n{\n    int x = ;\n    return 0;\n}\n"
c = Client(URL)
state = {}


def writer_job():
    check(c.login("erin", "erin-password-1").status == 200, "erin signs in")
    r = c.submit(WRITER, ranks="2", args="a 'b c'", time_limit="60")
    check(r.status == 201, f"submit: 201 ({r})")
    job = r.json["id"]
    events = c.events(job)
    seqs = [e["seq"] for e in events]
    check(seqs == sorted(seqs) and len(set(seqs)) == len(seqs), "events in order, each once")
    states = [e["state"] for e in events if e["type"] == "state"]
    check("running" in states, f"state events include running ({states})")
    outs = [e for e in events if e["type"] == "out"]
    for rank in (0, 1):
        lines = [e["text"] for e in outs if e["rank"] == rank and e["stream"] == "stdout"]
        check([ln for ln in lines if ln.startswith("rank")] ==
              [f"rank {rank} line {i}" for i in range(3)], f"rank {rank}'s three lines, tagged")
    end = events[-1]
    check(end["type"] == "end" and end["state"] == "done" and end["exit_code"] == 0,
          f"the stream ends with end/done ({end})")
    rec = c.get(f"/api/jobs/{job}").json
    keys = {"id", "user_id", "state", "message", "created", "started", "finished", "backend",
            "ranks", "hosts", "args", "time_limit", "main", "exit_code", "diagnostics", "files",
            "output_bytes", "truncated", "has_trace", "has_profile", "position"}
    check(keys <= set(rec), f"the record has the contract's fields (missing {keys - set(rec)})")
    check(rec["state"] == "done" and rec["ranks"] == 2 and rec["args"] == ["a", "b c"],
          f"the record: done, 2 ranks, args split like a shell ({rec['args']})")
    kinds = {f["path"]: f["kind"] for f in rec["files"]}
    check(kinds.get("data.csv") == "csv" and kinds.get("plot.svg") == "svg",
          f"the files with their kinds ({kinds})")
    state.update(job=job, events=events)


def resume():
    job, events = state["job"], state["events"]
    mid = events[len(events) // 2]["seq"]
    again = c.events(job, after=mid)
    check([e["seq"] for e in again] == [e["seq"] for e in events if e["seq"] > mid],
          f"after={mid}: exactly the later events")
    r = c.request("GET", f"/api/jobs/{job}/events", headers={"Last-Event-ID": str(mid)},
                  stream=True)
    body = r.read().decode()
    ids = [int(ln[4:]) for ln in body.splitlines() if ln.startswith("id: ")]
    check(ids == [e["seq"] for e in events if e["seq"] > mid], "Last-Event-ID: the same")
    check(r.headers["Content-Type"].startswith("text/event-stream"), "text/event-stream")
    for bad in ("x", "-1"):
        r = c.get(f"/api/jobs/{job}/events?after={bad}")
        check(r.status == 400 and r.json["field"] == "after", f"after={bad}: 400")


def downloads():
    job = state["job"]
    r = c.get(f"/api/jobs/{job}/files/data.csv?inline=1")
    check(r.status == 200 and r.headers["Content-Type"].startswith("text/csv")
          and r.body == b"x,y\n1,2\n2,4\n", "csv inline as text/csv")
    r = c.get(f"/api/jobs/{job}/files/plot.svg?inline=1")
    check(r.status == 200 and r.headers["Content-Type"] == "image/svg+xml"
          and r.headers["Content-Security-Policy"].startswith("sandbox"),
          "svg inline as image/svg+xml under CSP sandbox")
    r = c.get(f"/api/jobs/{job}/files/raw.bin?inline=1")
    check(r.status == 400 and r.json["field"] == "inline", "a binary file is never inline")
    r = c.get(f"/api/jobs/{job}/files/plot.svg")
    check(r.headers["Content-Disposition"].startswith("attachment")
          and r.headers["Content-Type"] == "application/octet-stream",
          "without inline: an attachment of octet-stream")
    check(c.get(f"/api/jobs/{job}/files/none.txt").status == 404, "a missing file: 404")
    for route in ("view", "profile"):
        r = c.get(f"/api/jobs/{job}/{route}")
        check(r.status == 404 and "no " in r.json["error"], f"/{route} of a job without: 404")


def quiet_stream_and_cancel():
    r = c.submit(SLEEPER, ranks="1", time_limit="120")
    check(r.status == 201, "a job that sleeps 40 s")
    job = r.json["id"]
    s = c.request("GET", f"/api/jobs/{job}/events", stream=True)
    seen_sleeping = seen_keepalive = False
    for raw in s:
        line = raw.decode().rstrip("\n")
        if '"sleeping"' in line:
            seen_sleeping = True
        elif line == ": keep-alive" and seen_sleeping:
            seen_keepalive = True
            break
    s.close()
    check(seen_keepalive, "a quiet stream gets a keep-alive comment")
    r = c.post(f"/api/jobs/{job}/cancel")
    check(r.status == 200 and r.json["cancelled"] is True, "cancel: 200")
    end = c.events(job)[-1]
    check(end["type"] == "end" and end["state"] == "cancelled", f"ends cancelled ({end})")
    r = c.post(f"/api/jobs/{job}/cancel")
    check(r.status == 200 and r.json["cancelled"] is False, "cancel again: nothing to cancel")


def streams_left_and_resumed():
    # Several clients at once leave a stream mid-job, cancel, and follow again: every second
    # stream must reach its end (stepping the runner's iterator from a new task per event lost
    # it in 3 of 6 such streams).
    import threading
    results = []

    def one():
        u = Client(URL)
        u.login("erin", "erin-password-1")
        job = u.submit(SLEEPER, ranks="1", time_limit="120").json["id"]
        s = u.request("GET", f"/api/jobs/{job}/events", stream=True)
        for raw in s:
            if b"sleeping" in raw:
                break
        s.close()
        u.post(f"/api/jobs/{job}/cancel")
        results.append(u.events(job)[-1])

    threads = [threading.Thread(target=one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ends = [e.get("type") == "end" and e.get("state") == "cancelled" for e in results]
    check(len(ends) == 6 and all(ends),
          f"6 streams left, jobs cancelled, followed again: each ends ({sum(ends)} of 6)")


def compile_error():
    r = c.submit(BROKEN, ranks="1")
    job = r.json["id"]
    end = c.events(job)[-1]
    check(end["state"] == "compile_error", f"a syntax error ends compile_error ({end})")
    diags = c.get(f"/api/jobs/{job}").json["diagnostics"]
    check(any(d["line"] == 4 and d["severity"] == "error" for d in diags),
          f"a diagnostic on line 4 ({diags})")


def trace_view():
    r = c.submit(WRITER, ranks="2", trace="1")
    job = r.json["id"]
    end = c.events(job)[-1]
    check(end["state"] == "done" and c.get(f"/api/jobs/{job}").json["has_trace"],
          "a job run with trace=1 has a trace")
    r = c.get(f"/api/jobs/{job}/view")
    check(r.status == 200 and r.headers["Content-Type"].startswith("text/html")
          and r.headers["Content-Security-Policy"].startswith("sandbox allow-scripts")
          and b"<html" in r.body[:2000].lower(),
          "/view: ferry view's page, in a CSP sandbox without the portal's origin")


def examples():
    r = c.get("/api/examples")
    ids = [x["id"] for x in r.json] if r.status == 200 else []
    check(r.status == 200 and {"cpi", "ring", "matmul", "taskfarm", "gauss", "nbody"} <= set(ids)
          and all(x["source"] and x["ranks"] >= 1 and {"title", "description", "args"} <= set(x)
                  for x in r.json), f"the examples gallery ({ids or r})")
    check(Client(URL).get("/api/examples").status == 401, "the gallery needs a session")


def history():
    # writer, sleeper, 6 sleepers left and resumed, broken, traced
    jobs = c.get("/api/jobs").json["jobs"]
    created = [j["created"] for j in jobs]
    check(len(jobs) == 10 and created == sorted(created, reverse=True), "ten jobs, newest first")
    one = c.get("/api/jobs?limit=1").json["jobs"]
    check([j["id"] for j in one] == [jobs[0]["id"]], "limit=1: the newest")
    older = c.get(f"/api/jobs?before={jobs[0]['created']}").json["jobs"]
    check([j["id"] for j in older] == [j["id"] for j in jobs[1:]], "before=: the older ones")
    for q, field in (("limit=0", "limit"), ("limit=x", "limit"), ("before=yesterday", "before")):
        r = c.get(f"/api/jobs?{q}")
        check(r.status == 400 and r.json["field"] == field, f"{q}: 400 naming {field}")
    check(c.get("/api/jobs/not-an-id").status == 404, "a malformed id: 404")


run_checks([writer_job, resume, downloads, quiet_stream_and_cancel, streams_left_and_resumed,
            compile_error, trace_view,
            examples, history])
