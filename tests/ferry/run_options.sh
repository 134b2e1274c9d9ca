#!/usr/bin/env bash
# timeout: 240
# ferry run's command line: mpiexec's options pass through unchanged (-n 3 -l labels lines,
# -genv sets a variable, --timeout ends a job); compiler flags before and after the source
# (-D, -O2, -std=, -I/-L/-l<lib> with examples/mm_parallel.c and its precompiled library, shared
# (found at run time through the rpath ferry adds) and static); several sources, C++ sources,
# --cc, --check passed to mpiexec, and the arguments after -- reaching the program unchanged.
. "$FY_SRC/tests/ferry/run_common.inc"

cat >who.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#ifndef WORD
#define WORD "none"
#endif
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d word %s env %s args", rank, WORD, getenv("FY_T") ? getenv("FY_T") : "-");
    for (int i = 1; i < argc; i++)
        printf(" %s", argv[i]);
    printf("\n");
    MPI_Finalize();
    return 0;
}
C
fr run -n 3 -l -genv FY_T yes who.c
expect_eq "labels and -genv" "[0] rank 0 word none env yes args
[1] rank 1 word none env yes args
[2] rank 2 word none env yes args" "$(sort out)"
fr run --np=2 -l -DWORD='"early"' -O2 who.c -std=gnu11 -- -l -n 5
expect_eq "flags and -- args" "[0] rank 0 word early env - args -l -n 5
[1] rank 1 word early env - args -l -n 5" "$(sort out)"
fr run -n 1 who.c -DWORD='"late"' a b
expect_eq "late -D, then args" "rank 0 word late env - args a b" "$(cat out)"

# --check: mpiexec --check, and a build with -g (another entry than the plain build).
fr run -v --check -n 2 who.c
expect_grep "--check reaches mpiexec" "^ferry run: running: .*/mpiexec -n 2 --check -- " err
expect_grep "--check builds with -g" "^ferry run: compiling: .* -g .*who\.c" err
if "$FY_BUILD/bin/mpiexec" --help 2>&1 | grep -q -- '--check'; then
    expect_eq "--check job status" 0 "$RC"
    expect_eq "--check job output" 2 "$(grep -c '^rank [01] word none' out)"
else
    echo "(mpiexec has no --check yet: the job itself not checked)"
fi

# --timeout: the job ends with mpiexec's status for it.
cat >sleepy.c <<'C'
#include <mpi.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    sleep(30);
    MPI_Finalize();
    return 0;
}
C
fr run -n 2 --timeout 1 sleepy.c
expect_eq "mpiexec --timeout status" 124 "$RC"

# Several sources; C++.
cat >main2.c <<'C'
#include <mpi.h>
#include <stdio.h>
int twice(int);
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    printf("twice %d\n", twice(21));
    MPI_Finalize();
    return 0;
}
C
echo 'int twice(int x) { return 2 * x; }' >twice.c
fr run -n 1 main2.c twice.c
expect_eq "two sources" "twice 42" "$(cat out)"
if command -v c++ >/dev/null; then
    cat >hello.cpp <<'C'
#include <mpi.h>
#include <iostream>
#include <vector>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::vector<int> v(3, rank);
    int sum = 0;
    MPI_Allreduce(&v[0], &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        std::cout << "c++ sum " << sum << std::endl;
    MPI_Finalize();
    return 0;
}
C
    fr run -n 3 hello.cpp
    expect_eq "C++ status" 0 "$RC"
    expect_eq "C++ output" "c++ sum 3" "$(cat out)"
else
    echo "(no c++: C++ not checked)"
fi
if command -v gcc >/dev/null; then
    fr run -v --cc gcc -n 1 main2.c twice.c
    expect_grep "--cc used" '^ferry run: compiling: gcc ' err
    expect_eq "--cc output" "twice 42" "$(cat out)"
fi

# The precompiled library, shared then static.
cp -r "$FY_SRC/examples/mm_parallel.c" "$FY_SRC/examples/matrixmultiply" .
rm -f matrixmultiply/*.o matrixmultiply/*.so matrixmultiply/*.a
mkdir lib
make -s -C matrixmultiply OUT="$PWD/lib" >make.log 2>&1 || fail "make: $(cat make.log)"
fr run -n 3 -I matrixmultiply -L lib -lmatrixmultiply mm_parallel.c 50
expect_eq "mm_parallel shared status" 0 "$RC"
expect_grep "mm_parallel shared" '^C = A \* B, 50 x 50 on 3 ranks: correct ' out
mkdir slib
mv lib/libmatrixmultiply.a slib/
fr run -n 2 -Imatrixmultiply -L"$PWD/slib" -lmatrixmultiply mm_parallel.c 40
expect_grep "mm_parallel static" '^C = A \* B, 40 x 40 on 2 ranks: correct ' out
# The script's own #! line (-I/-L matrixmultiply), from its directory.
cp lib/libmatrixmultiply.so matrixmultiply/
timeout -k 5 60 ./mm_parallel.c 30 >out 2>err
expect_grep "mm_parallel as a script" '^C = A \* B, 30 x 30 on 4 ranks: correct ' out
# Without the library: the linker says so, once, and it is a compile error.
fr run -n 2 -Imatrixmultiply mm_parallel.c
expect_eq "missing library status" 2 "$RC"
expect_eq "missing library: one linker message" 1 "$(grep -c "undefined reference to .matrixmultiply'" err)"
finish
