#!/usr/bin/env bash
# timeout: 240
# ferry run --debug end to end (needs tools/ferry/ferry_debug.c, branch debug): the program is
# built with -g and the sanitizers (its own cache entry), every rank starts through `ferry
# _exec --debug DIR`, and after the job each failing rank has one short message naming the
# file, the line and the variable (or, for a rank with the same error, "same error at"): an array index out of bounds (values[4] on line 9), an
# integer overflow; the job's status is a failure; a correct program runs with no report and
# status 0; the reports' directory is removed (unless FERRY_DEBUG_KEEP=1).
. "$FY_SRC/tests/ferry/run_common.inc"
printf 'int main(void) { return 0; }\n' >probe.c
cc -g -fsanitize=address,undefined -static-libasan -static-libubsan -o probe probe.c >probe.err 2>&1 ||
    { echo "SKIP: cc cannot build with the sanitizers: $(head -n 2 probe.err)"; exit 0; }

cat >oob.c <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, values[4], n = 4;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i <= n; i++)
        values[i] = rank + i; /* error: i == 4 */
    printf("rank %d last %d\n", rank, values[3]);
    MPI_Finalize();
    return 0;
}
C
fr run --debug -n 2 oob.c
[ "$RC" -ne 0 ] || fail "out of bounds: the job succeeded"
expect_grep "out of bounds, rank 0" "^rank 0: oob\.c:9(:[0-9]+)?: .*out of bounds.*'values'" err
# The second rank's identical error may be told in short.
expect_grep "out of bounds, rank 1" "^rank 1: (oob\.c:9(:[0-9]+)?: .*out of bounds.*'values'|same error at oob\.c:9)" err
expect_eq "out of bounds: one message per rank" 2 "$(grep -c '^rank [01]: .*oob\.c:9' err)"

cat >ovf.c <<'C'
#include <limits.h>
#include <mpi.h>
int main(int argc, char **argv)
{
    int rank, total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    total = INT_MAX - 1;
    if (rank == 1)
        total += argc + 5; /* error: signed overflow */
    MPI_Finalize();
    return total == 0;
}
C
fr run --debug -n 2 ovf.c
[ "$RC" -ne 0 ] || fail "overflow: the job succeeded"
expect_grep "overflow, rank 1" "^rank 1: ovf\.c:10(:[0-9]+)?: .*overflow" err
grep -q '^rank 0:' err && fail "overflow: rank 0 reported: $(cat err)"

cat >good.c <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, v[4] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    v[rank % 4] = rank;
    printf("fine %d\n", v[rank % 4]);
    MPI_Finalize();
    return 0;
}
C
fr run -v --debug -n 2 good.c
expect_eq "correct program status" 0 "$RC"
expect_eq "correct program output" "fine 0
fine 1" "$(sort out)"
grep -q '^rank [0-9]*:' err && fail "correct program reported: $(cat err)"
expect_grep "ranks through _exec --debug" "^ferry run: running: .* -- .*/ferry _exec --debug $TMPDIR/ferry-debug\." err
expect_grep "built with the sanitizers" "^ferry run: compiling: .*-fsanitize=address" err
fr run -v -n 2 good.c
expect_grep "the plain build is another entry" '^ferry run: cache miss \(no entry\)' err
finish
