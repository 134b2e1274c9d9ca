#!/usr/bin/env bash
# timeout: 400
# The portal's walls against the real server and real jobs: CSRF refused (no token, a wrong
# token, another session's token, a foreign Origin), session fixation refused (a cookie planted
# before sign-in is never the one after, and a rotated id is dead), cookies HttpOnly and
# SameSite=Strict, the security headers on every answer, another user's job invisible by list
# and by every direct URL (record, events, files, view, profile, cancel: the same 404 as no job),
# and downloads that refuse path traversal (`../`, `%2e%2e%2f`, absolute paths, and links the job
# itself planted pointing out of its directory).
. "$(dirname "${BASH_SOURCE[0]}")/portal.inc"
fy_portal_setup

fy_portal_user alice "alice-password-1"
fy_portal_user bob "bob-password-1"
fy_portal_start
python3 "$FY_PORTAL_DIR/web_security.py" "$FY_PORTAL_URL" || fy_portal_fail "security checks"
echo "PASS"
