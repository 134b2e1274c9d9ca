#!/usr/bin/env bash
# timeout: 600
# A program that does not compile: the job ends compile_error, and the editor on the job page
# has gcc's error as a lint marker on its line with an underline, and in the list below it.
# Then, with one job at a time per user: a second job waits "queued" with its place in the
# queue, and Cancel ends the waiting job and the running one.
. "$(dirname "${BASH_SOURCE[0]}")/e2e.inc"
printf '[limits]\nconcurrent_jobs = 1\n' >portal.toml
fy_e2e_start --config portal.toml
fy_e2e compile
