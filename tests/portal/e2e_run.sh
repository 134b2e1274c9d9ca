#!/usr/bin/env bash
# timeout: 600
# The portal in a browser: sign in, cpi typed into the editor and run on 4 ranks with its lines
# streaming in (the time from Run to the first line printed, first run and cached), the rank,
# stream and text filters, "Edit and run again", the history, the examples and admin pages, and
# another user who gets "not found" at the job's URL. Screenshots in the test's directory (and
# in $FY_PORTAL_SHOTS when set).
. "$(dirname "${BASH_SOURCE[0]}")/e2e.inc"
fy_e2e_start
fy_e2e run
