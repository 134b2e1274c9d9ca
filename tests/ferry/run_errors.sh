#!/usr/bin/env bash
# timeout: 180
# ferry run's bad input, each one clear message and its exit status: a compile error shows the
# compiler's diagnostics once (not once per rank), then "compile error in prog.c (no ranks
# started)", status 2, and no job; a missing source (first or later) 127; usage errors 2; a
# compiler that is not there 1; a cache directory that cannot be made is said, and the
# program runs without it. The program's own exit status passes through. A program that
# never calls MPI_Init runs (serial paths are allowed); one whose ranks disagree (one skips
# MPI_Init, the others wait for it) fails with mpiexec's message saying so.
. "$FY_SRC/tests/ferry/run_common.inc"

cat >bad.c <<'C'
#include <mpi.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int x = not_declared + 1;
    MPI_Finalize();
    return x;
}
C
fr run -v -n 4 bad.c
expect_eq "compile error status" 2 "$RC"
expect_eq "diagnostic once" 1 "$(grep -c "^bad\.c:5:[0-9]*: error: .not_declared. undeclared" err)"
expect_eq "caret once" 1 "$(grep -c '^ *| *\^' err)"
expect_eq "summary line" "ferry run: compile error in bad.c (no ranks started)" "$(tail -n 1 err)"
grep -q '^ferry run: running' err && fail "a job was started after a compile error"
expect_eq "nothing on stdout" "" "$(cat out)"
[ -z "$(find "$FERRY_CACHE" -type f -perm -u+x)" ] || fail "a binary was cached: $(find "$FERRY_CACHE")"

# A warning is not an error: shown once, and the program runs.
cat >warn.c <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int unused;
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    printf("ran\n");
    return 0;
}
C
fr run -n 3 -Wall warn.c
expect_eq "warning status" 0 "$RC"
expect_eq "warning once" 1 "$(grep -c 'unused variable' err)"
expect_eq "warning program ran" "ran ran ran" "$(echo $(cat out))"

# Missing sources.
fr run -n 2 nothere.c
expect_eq "missing source status" 127 "$RC"
expect_eq "missing source message" "ferry run: cannot read source 'nothere.c': No such file or directory" "$(cat err)"
fr run -n 2 warn.c also_missing.c
expect_eq "missing second source status" 127 "$RC"
expect_grep "missing second source message" "^ferry run: cannot read source 'also_missing.c'" err
mkdir dir.c
fr run dir.c
expect_eq "directory as source status" 127 "$RC"
expect_grep "directory as source message" "^ferry run: cannot read source 'dir.c': Is a directory" err

# Usage errors.
fr run
expect_eq "no source status" 2 "$RC"
expect_grep "no source message" '^ferry run: no source file given' err
fr run -n 2 --bogus warn.c
expect_eq "unknown option status" 2 "$RC"
expect_grep "unknown option message" "^ferry run: unknown option '--bogus'" err
fr run -n 2 notes.txt
expect_eq "not a source status" 2 "$RC"
expect_grep "not a source message" "^ferry run: 'notes.txt' is not a C or C\+\+ source file" err
fr run -n
expect_eq "option without value status" 2 "$RC"
expect_grep "option without value" "^ferry run: mpiexec option '-n' needs 1 value" err
fr run --cc nosuch-cc-here warn.c
expect_eq "missing compiler status" 1 "$RC"
expect_grep "missing compiler message" "^ferry run: the C compiler 'nosuch-cc-here' is not found" err
fr run --help
expect_eq "help status" 0 "$RC"
expect_grep "help text" '^usage: ferry run ' out

# The program's status passes through.
cat >status.c <<'C'
#include <mpi.h>
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Finalize();
    return rank == 1 ? 7 : 0;
}
C
fr run -n 2 status.c
expect_eq "program status" 7 "$RC"

# No MPI_Init at all: it runs, and its status is its own.
cat >serial.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    printf("serial %s\n", argc > 1 ? argv[1] : "");
    return argc > 2 ? atoi(argv[2]) : 0;
}
C
fr run -n 2 serial.c a
expect_eq "serial status" 0 "$RC"
expect_eq "serial output" "serial a
serial a" "$(cat out)"
fr run -n 1 serial.c a 5
expect_eq "serial exit status" 5 "$RC"

# A cache directory that cannot be made: said once, and the program runs all the same.
FERRY_CACHE=/proc/no-cache-here timeout -k 5 60 ferry run -n 2 serial.c nc >out 2>err
expect_eq "no cache dir: status" 0 "$?"
expect_eq "no cache dir: message" "ferry run: cannot create the cache directory '/proc/no-cache-here/run': No such file or directory; compiling without the cache" "$(cat err)"
expect_eq "no cache dir: output" "serial nc
serial nc" "$(cat out)"

# Rank 0 skips MPI_Init, the others wait for it: mpiexec ends the job and says why.
cat >half.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    if (atoi(getenv("PMI_RANK")) == 0)
        return 0; /* a serial path taken by one rank only */
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
C
fr run -n 2 --timeout 30 half.c
[ "$RC" -ne 0 ] || fail "a job whose rank 0 skipped MPI_Init succeeded"
[ "$RC" -ne 124 ] || fail "a job whose rank 0 skipped MPI_Init hung until the timeout"
expect_grep "rank without MPI_Init named" 'rank 0 exited with status 0 without calling MPI_Init' err
finish
