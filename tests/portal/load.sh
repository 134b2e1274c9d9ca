#!/usr/bin/env bash
# timeout: 900
# 20 users at once against the real portal (bench/portal_load.py --check): two heavy users
# queue 8 sleeping jobs each, then 18 others submit one quick job each. Every job is served
# (done, with its own output line: nothing lost), the light users are not starved behind the
# heavy backlog (fair order), and the request latencies and jobs per minute are printed.
. "$(dirname "${BASH_SOURCE[0]}")/portal.inc"
fy_portal_setup

fy_portal_user boss "boss-password-1" --admin
cat >portal.toml <<'TOML'
[limits]
max_queued = 20
concurrent_jobs = 2
TOML
fy_portal_start --config portal.toml
python3 "$FY_SRC/bench/portal_load.py" "$FY_PORTAL_URL" boss "boss-password-1" --check ||
    fy_portal_fail "load"
echo "PASS"
