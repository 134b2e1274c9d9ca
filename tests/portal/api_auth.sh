#!/usr/bin/env bash
# timeout: 300
# The portal's API against the real server (`ferry portal`, uvicorn): sign-in and sign-out, a
# wrong password, /api/me without a session (401), the sign-in throttle per name and per client
# address (429), roles (admin endpoints 403 for a user), a clear message naming the field for
# every bad field of POST /api/jobs and the admin's forms, 413 for a body over the upload limit
# (by Content-Length and while reading a chunked one), and never a stack trace: a route forced
# to fail answers a generic 500 while the trace goes to the server's log only.
. "$(dirname "${BASH_SOURCE[0]}")/portal.inc"
fy_portal_setup

cat >portal.toml <<'TOML'
[limits]
max_upload = 65536
max_ranks = 8
max_time = 300
TOML
fy_portal_user root "root-password-1" --admin
fy_portal_user bob "bob-password-1"
FERRY_PORTAL_FAULT_ROUTE=1 fy_portal_start --config portal.toml
python3 "$FY_PORTAL_DIR/api_auth.py" "$FY_PORTAL_URL" || fy_portal_fail "api checks"
fy_portal_stop
grep -q "Traceback" server.log || fy_portal_fail "the forced 500's trace is not in the server's log"
grep -q "RuntimeError: a fault asked for" server.log || fy_portal_fail "the server's log lacks the fault"
echo "ok: the forced 500's trace is in the server's log"
echo "PASS"
