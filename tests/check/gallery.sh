#!/usr/bin/env bash
# timeout: 300
# The checker's gallery (tests/check/src): each wrong program, built with -g and run under the
# checker, gets its report (rank, MPI call, file:line of the call, the key words, the other
# side's call and line) and the exit status that says so; a correct program gets no report and
# exits 0; FERRY_CHECK_EXIT=0 keeps the program's status; FERRY_CHECK selects the checks.
set -u
. "$FY_SRC/tests/check/checked_run.inc"
checker_skip_if_absent
S=$FY_SRC/tests/check/src
fail=0
err() { echo "FAIL: $*"; fail=1; }

# where PROG MARK: "prog.c:LINE" of the line holding /* MARK */
where() {
    local l
    l=$(grep -n "/\* $2 \*/" "$S/$1.c" | head -1 | cut -d: -f1)
    echo "$1.c:$l"
}
# check PROG NPROCS STATUS TEXT...: STATUS is a number or "nonzero"; each TEXT must be a line's
# part of the run's standard error; @MARK stands for where PROG MARK.
check() {
    local p=$1 n=$2 want=$3
    shift 3
    build "$p" || return
    checked_run "$n" "./$p" > "$p.out" 2> "$p.err"
    local rc=$?
    if [ "$want" = nonzero ]; then
        [ $rc -ne 0 ] || err "$p exited 0, expected a failure"
    else
        [ $rc -eq "$want" ] || err "$p exited $rc, expected $want: $(head -5 "$p.err")"
    fi
    local t
    for t in "$@"; do
        while [[ $t =~ @([A-Z_]+) ]]; do
            t=${t//@${BASH_REMATCH[1]}/$(where "$p" "${BASH_REMATCH[1]}")}
        done
        cat "$p.err" "$p.out" | grep -qF -- "$t" || err "$p: no '$t' in its report: $(grep 'ferry check' "$p.err" | head -5)"
    done
}

# Point-to-point, in both schemes: the logs (default) and the shadow messages.
for P2P in log shadow; do
    export FERRY_CHECK_P2P=$P2P
    check recv_mismatch 2 3 \
        "ferry check: rank 1: MPI_Recv at @RECV: type mismatch: received 4 x MPI_INT (16 bytes) from rank 0, which sent 4 x MPI_FLOAT (16 bytes) with MPI_Send at @SEND" \
        "ferry check: rank 1: 1 problem reported"
    check same_size 2 3 \
        "ferry check: rank 1: MPI_Recv at @RECV: type mismatch: received 2 x MPI_DOUBLE (16 bytes) from rank 0, which sent 4 x MPI_INT (16 bytes) with MPI_Send at @SEND"
    check many_mismatch 2 3 \
        "ferry check: rank 1: MPI_Irecv at @IRECV: type mismatch: received 3 x MPI_INT (12 bytes) from rank 0, which sent 3 x MPI_SHORT (6 bytes) with MPI_Isend at @ISEND" \
        "ferry check: rank 1: 1 problem reported"
done
export FERRY_CHECK_P2P=shadow
check truncation 2 nonzero \
    "ferry check: rank 1: MPI_Recv at @RECV: truncation: receive buffer of 4 x MPI_INT (16 bytes) for a message from rank 0 of 8 x MPI_INT (32 bytes) sent with MPI_Send at @SEND"
unset FERRY_CHECK_P2P
check truncation 2 nonzero \
    "ferry check: rank 1: MPI_Recv at @RECV: truncation: receive buffer of 4 x MPI_INT (16 bytes) for a message from rank 0 of 32 bytes (tag 3)"
check coll_mismatch 3 nonzero \
    "ferry check: rank 0: MPI_Bcast at @BCAST: collective mismatch on MPI_COMM_WORLD (call 2 there): rank 0 MPI_Bcast root 0 1 element at @BCAST, rank 1 MPI_Reduce root 0 1 element op MPI_SUM at @REDUCE, rank 2 MPI_Reduce"
check coll_root 2 nonzero \
    "collective mismatch on MPI_COMM_WORLD (call 1 there): rank 0 MPI_Bcast root 0 1 element at @BCAST, rank 1 MPI_Bcast root 1 1 element at @BCAST"
check coll_count 2 nonzero \
    "rank 0 MPI_Bcast root 0 1 element at @BCAST, rank 1 MPI_Bcast root 0 2 elements at @BCAST"
check coll_nb_mismatch 2 nonzero \
    "ferry check: rank 0: MPI_Ibcast at @IBCAST: collective mismatch on MPI_COMM_WORLD (call 1 there): rank 0 MPI_Ibcast root 0 1 element at @IBCAST, rank 1 MPI_Ireduce root 0 1 element op MPI_SUM at @IREDUCE"
check leak 2 3 \
    "ferry check: rank 0: MPI_Finalize: leak: a communicator created by MPI_Comm_dup at @DUP was never freed" \
    "ferry check: rank 1: MPI_Finalize: leak: a datatype created by MPI_Type_contiguous at @TYPE was never freed" \
    "ferry check: rank 1: MPI_Finalize: leak: 12 requests created by MPI_Send_init at @INIT were never completed or freed"
check buffer_modified 2 3 \
    "ferry check: rank 0: MPI_Wait at @WAIT: send buffer modified before the nonblocking send completed (MPI_Isend at @ISEND)"
check overlap_sendrecv 2 3 \
    "ferry check: rank 1: MPI_Sendrecv at @SENDRECV: overlapping buffers: the send and receive buffers overlap"
check overlap_allreduce 2 3 \
    "ferry check: rank 0: MPI_Allreduce at @ALLREDUCE: overlapping buffers: the send and receive buffers overlap (use MPI_IN_PLACE)"
check freed_type 2 nonzero \
    "ferry check: rank 0: MPI_Send at @SEND: use of a freed datatype (argument datatype, handle 0x" \
    "freed by MPI_Type_free at @FREE"
check before_init 1 nonzero "ferry check: rank 0: MPI_Comm_rank at @RANK: called before MPI_Init"
check after_finalize 1 nonzero "ferry check: rank 0: MPI_Barrier at @BARRIER: called after MPI_Finalize"

# No report on a correct program, and its status stays 0.
check correct 3 0 "correct: done"
grep -q 'ferry check' correct.err && err "correct program reported: $(grep 'ferry check' correct.err | head -5)"
check correct 1 0

# The knobs: the program's own status; only some checks.
FERRY_CHECK_EXIT=0 checked_run 2 ./recv_mismatch > k1.out 2> k1.err
rc=$?
[ $rc -eq 0 ] || err "FERRY_CHECK_EXIT=0: exit $rc, expected the program's 0"
grep -q 'type mismatch' k1.err || err "FERRY_CHECK_EXIT=0: no report"
FERRY_CHECK=leak checked_run 2 ./recv_mismatch > k2.out 2> k2.err
rc=$?
[ $rc -eq 0 ] || err "FERRY_CHECK=leak: exit $rc for a program without leaks"
grep -q 'ferry check' k2.err && err "FERRY_CHECK=leak reported: $(cat k2.err)"
FERRY_CHECK=leak checked_run 1 ./leak > k3.out 2> k3.err
grep -q 'leak: a datatype' k3.err || err "FERRY_CHECK=leak: no leak report: $(cat k3.err)"
FERRY_CHECK=bogus checked_run 1 ./correct > k4.out 2> k4.err
grep -q "FERRY_CHECK: unknown check 'bogus'" k4.err || err "FERRY_CHECK=bogus: no message: $(cat k4.err)"
exit $fail
