#!/usr/bin/env bash
# timeout: 120
# Session lifetimes and the Secure flag: a session unused for longer than auth.IDLE, or older
# than auth.ABSOLUTE however busy, is refused and deleted (its clock moved back in the database,
# the server's own code asked); purge() removes only expired ones; with `secure_cookies = true`
# the real server's Set-Cookie carries Secure (and still HttpOnly, SameSite=Strict).
. "$(dirname "${BASH_SOURCE[0]}")/portal.inc"
fy_portal_setup

"$FERRY_PORTAL_VENV/bin/python" - <<'PY' || fy_portal_fail "session lifetimes"
import os, sys, time
sys.path.insert(0, os.path.join(os.environ["FY_SRC"], "tools", "portal"))
from ferry_portal import auth, db

conn = db.connect(os.path.abspath("sessions.db"))
uid = db.add_user(conn, "ann", auth.hash_password("ann-password-1"), "user")
s = auth.Sessions(conn)
fails = 0

def check(cond, what):
    global fails
    print(("ok: " if cond else "FAIL: ") + what)
    fails += not cond

def age(sid, created=None, last_seen=None):
    key = auth._digest(sid)
    if created is not None:
        conn.execute("UPDATE sessions SET created=? WHERE id=?", (created, key))
    if last_seen is not None:
        conn.execute("UPDATE sessions SET last_seen=? WHERE id=?", (last_seen, key))

def rows():
    return conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]

now = time.time()
idle, _ = s.create(uid)
check(s.lookup(idle) is not None, "a new session is live")
age(idle, last_seen=now - auth.IDLE - 5)
check(s.lookup(idle) is None, f"unused for more than IDLE ({auth.IDLE} s): refused")
old, _ = s.create(uid)
age(old, created=now - auth.ABSOLUTE - 5, last_seen=now)
check(s.lookup(old) is None, f"older than ABSOLUTE ({auth.ABSOLUTE} s) though just used: refused")
check(rows() == 0, "both expired sessions were deleted when refused")
live, _ = s.create(uid)
stale, _ = s.create(uid)
age(stale, last_seen=now - auth.IDLE - 5)
s.purge()
check(rows() == 1 and s.lookup(live) is not None, "purge() keeps the live session only")
sys.exit(1 if fails else 0)
PY

printf 'secure_cookies = true\n' >secure.toml
fy_portal_user ann "ann-password-1"
fy_portal_start --config secure.toml
python3 - "$FY_PORTAL_URL" <<'PY' || fy_portal_fail "the Secure flag"
import json, sys, urllib.request
req = urllib.request.Request(sys.argv[1] + "/api/login", method="POST",
                             data=json.dumps({"name": "ann", "password": "ann-password-1"}).encode(),
                             headers={"Content-Type": "application/json"})
with urllib.request.urlopen(req, timeout=60) as r:
    cookie = r.headers.get("Set-Cookie", "")
flags = {f.strip().lower() for f in cookie.split(";")[1:]}
print("Set-Cookie flags:", sorted(flags))
ok = {"secure", "httponly", "samesite=strict"} <= flags
print(("ok: " if ok else "FAIL: ") + "with secure_cookies = true the cookie is Secure, HttpOnly, SameSite=Strict")
sys.exit(0 if ok else 1)
PY
fy_portal_stop
echo "PASS"
