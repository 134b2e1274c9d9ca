#!/usr/bin/env bash
# timeout: 400
# The job routes against the real server and real jobs: submit, the record's fields, the SSE
# stream (events in order, per-rank output, the end), resuming with after= and Last-Event-ID, a
# keep-alive comment on a quiet stream, cancel, a compile error's diagnostics, the trace view
# (ferry view's page under CSP sandbox), history paging (limit, before), and downloads
# (attachment; inline only for csv/svg/text, SVG sandboxed); the examples gallery.
. "$(dirname "${BASH_SOURCE[0]}")/portal.inc"
fy_portal_setup

fy_portal_user erin "erin-password-1"
fy_portal_start
python3 "$FY_PORTAL_DIR/api_jobs.py" "$FY_PORTAL_URL" || fy_portal_fail "job checks"
echo "PASS"
