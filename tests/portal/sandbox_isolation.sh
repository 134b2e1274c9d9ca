#!/bin/bash
# timeout: 180
# What a job can reach (root; skipped without): a TCP connection to the host's own
# listening port fails both on 127.0.0.1 (the job has its own network namespace) and on the
# host's outside address (no route), while the test itself reaches that port from the host;
# another job's work directory, the portal's state directory and database, and /home are not
# even present in the sandbox (ENOENT), while the job's own /job is; a finished job's work
# directory belongs to the portal again (mode 0700), so the uid's next job cannot read it.
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (the jobs' own uids)"; exit 77; }
exec python3 - <<'PY'
import asyncio, os, socket, stat, sys, threading
sys.path.insert(0, os.path.join(os.environ["FY_SRC"], "tests", "portal"))
from runner_driver import *

PROBE = read_source("tests/portal/sandbox_probe.c")

def outside_ip():
    """The host's address on its way out (no packet is sent: UDP connect only routes)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))
        return s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()

lsock = socket.socket()
lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
lsock.bind(("0.0.0.0", 0))
lsock.listen(16)
port = lsock.getsockname()[1]
accepted = []
def serve():
    while True:
        try:
            c, a = lsock.accept()
        except OSError:
            return
        accepted.append(a)
        c.close()
threading.Thread(target=serve, daemon=True).start()

def outs(evs):
    return [e["text"] for e in evs if e["type"] == "out" and e["rank"] == 0]

async def main(m):
    ip = outside_ip()
    targets = [("127.0.0.1", port)] + ([(ip, port)] if ip and ip != "127.0.0.1" else [])
    for host, p in targets:
        socket.create_connection((host, p), timeout=5).close()   # the control: reachable here
    # The listener's thread counts the controls in its own time: wait for them (bounded), or
    # a late one would pass for a connection from the job.
    for _ in range(1000):
        if len(accepted) >= len(targets):
            break
        await asyncio.sleep(0.01)
    n_before = len(accepted)
    args = ["connect"] + [str(x) for t in targets for x in t]
    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=2, args=args), source_text=PROBE))
    lines = outs(evs)
    check(rec["state"] == "done", "network probe ran", rec)
    for host, p in targets:
        got = [l for l in lines if l.startswith(f"connect {host} {p}:")]
        check(got and not got[0].endswith(": ok"), f"a job cannot connect to {host}:{p}", got)
    check(len(accepted) == n_before, "the host's listener saw no connection from the job")

    a, _ = await finish(m, m.submit(1, JobSpec(ranks=1, args=["write", "1000"]),
                                    source_text=PROBE))
    check(a["state"] == "done" and any(f["path"] == "big.out" for f in a["files"]),
          "job A wrote a file", a)
    awork = m.state_dir / "jobs" / a["id"] / "work"
    st = os.stat(awork)
    check(st.st_uid == os.getuid() and stat.S_IMODE(st.st_mode) == 0o700 and
          os.stat(awork / "big.out").st_uid == os.getuid(),
          "A's finished work dir is the portal's, mode 0700", (st.st_uid, oct(st.st_mode)))
    paths = [str(awork / "big.out"), str(m.state_dir / "portal.db"), "/home",
             str(m.state_dir), str(m.state_dir / "jobs"), "/etc/shadow"]
    for p in paths:
        check(os.path.exists(p) or p == "/home", f"control: {p} exists on the host")
    rec, evs = await finish(m, m.submit(2, JobSpec(ranks=1, args=["open", *paths]),
                                        source_text=PROBE))
    lines = outs(evs)
    for p in paths:
        got = [l for l in lines if l.startswith(f"open {p}:")]
        check(got == [f"open {p}: No such file or directory"], f"job B: {p} is not there", got)
    rec, evs = await finish(m, m.submit(2, JobSpec(ranks=1, args=["list", "/job", "/home",
                                                                 "/root", "/etc"]),
                                        source_text=PROBE))
    lines = outs(evs)
    check(any(l.startswith("list /job: ") and "entries" in l for l in lines), "its own /job is",
          lines)
    check("list /home: No such file or directory" in lines and
          "list /root: No such file or directory" in lines, "no /home, no /root", lines)

run(main, sandbox={"uid_base": 61710, "uid_count": 4})
lsock.close()
PY
