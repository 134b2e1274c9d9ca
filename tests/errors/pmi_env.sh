#!/usr/bin/env bash
# timeout: 120
# An environment that announces a process manager that is not there (issue 13, "Bad input"):
# each case ends MPI_Init with one message naming the variable and what was expected, a
# non-zero exit, and no hang (the silent socket is answered by nobody: FERRY_PMI_TIMEOUT=2
# bounds the wait; the test's 30 s limit is only a hang guard).
#   PMI_FD=99 (not open), PMI_FD=0 (a pipe, not a socket), PMI_FD='x', PMI_FD a socket nobody
#   answers, PMI_VERSION=3, PMIX_NAMESPACE without a server, a PMIx launcher's environment with
#   FERRY_PMIX_LIB naming a library that does not exist.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_need_ferry
fy_cc_ferry ./faults "$FY_SRC/tests/errors/src/faults.c"
LIBENV="LD_LIBRARY_PATH=$FY_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CLEAN=(env -u PMI_FD -u PMI_RANK -u PMI_SIZE -u PMI_PORT -u PMI_VERSION -u PMI_JOBID
    -u PMIX_NAMESPACE -u PMIX_RANK -u PMIX_SERVER_URI2 -u PMIX_SERVER_URI3 -u PMIX_SERVER_URI4
    -u PMIX_SERVER_URI21 -u PMIX_SERVER_URI41 "$LIBENV")

# expect NAME REGEX CMD...: the run fails (not by the time limit) and stderr names the problem.
expect() {
    local n=$1 pat=$2
    shift 2
    fy_run "$n" 30 "$@"
    if [ "$FY_RC" -eq 0 ] || [ "$FY_RC" -eq 124 ] || [ "$FY_RC" -eq 137 ]; then
        fy_show "$n"
        fy_fail "$n: exit status $FY_RC (expected a failure of MPI_Init, not success or a hang)"
    fi
    fy_expect_in "$n" err "$pat" "the message does not say what was wrong"
    [ "$(grep -c 'MPI_Init' "$n.err")" -le 2 ] || { fy_show "$n"; fy_fail "$n: more than one message"; }
    echo "$n: exit $FY_RC in $(cat "$n.time") s: $(grep -m1 -o 'MPI_Init.*' "$n.err" | cut -c1-150)"
}

expect closed 'PMI_FD=99 is not an open file descriptor' "${CLEAN[@]}" PMI_FD=99 ./faults singleton
expect notsock 'PMI_FD=0 is not a socket' sh -c 'echo | "$@"' sh "${CLEAN[@]}" PMI_FD=0 ./faults singleton
expect notnum "PMI_FD='x' is not a file descriptor number" "${CLEAN[@]}" PMI_FD=x ./faults singleton
expect version "PMI_VERSION='3'" "${CLEAN[@]}" PMI_FD=99 PMI_VERSION=3 ./faults singleton
# A socket whose other end never answers: the child gets one end as fd 9, python keeps the other.
expect silent 'no answer on PMI_FD=9 within 2 s' python3 -c '
import os, socket, subprocess, sys
a, b = socket.socketpair()
os.dup2(b.fileno(), 9, inheritable=True)
sys.exit(subprocess.run(sys.argv[1:], pass_fds=[9]).returncode)' \
    "${CLEAN[@]}" PMI_FD=9 FERRY_PMI_TIMEOUT=2 ./faults singleton
expect pmix_noserver "PMIX_NAMESPACE='nowhere' is set, but no PMIx server answers" \
    "${CLEAN[@]}" PMIX_NAMESPACE=nowhere PMIX_RANK=0 ./faults singleton
expect pmix_nolib 'PMIx client library cannot be loaded: /nonexistent/libpmix.so.2' \
    "${CLEAN[@]}" PMIX_NAMESPACE=nowhere PMIX_RANK=0 FERRY_PMIX_LIB=/nonexistent/libpmix.so.2 \
    ./faults singleton
echo "PASS"
