#!/bin/bash
# timeout: 60
# A small /dev/shm (as in containers): Ferry sizes its rings to fit, and where even the
# smallest rings do not fit, MPI_Init fails with a message saying how much it needs, instead
# of dying of SIGBUS. Runs in a private mount namespace with its own small tmpfs.
set -u
B=$FY_BUILD
cat > ring.c <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size;
    long token = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static char big[3 << 20];
    for (int lap = 0; lap < 3; lap++) {
        if (rank == 0) {
            MPI_Send(big, sizeof big, MPI_BYTE, 1 % size, 0, MPI_COMM_WORLD);
            MPI_Recv(big, sizeof big, MPI_BYTE, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(big, sizeof big, MPI_BYTE, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(big, sizeof big, MPI_BYTE, (rank + 1) % size, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Allreduce(&rank, &token, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ring ok %ld\n", token);
    MPI_Finalize();
    return 0;
}
C
"$B/bin/mpicc" -o ring ring.c || exit 1
if ! unshare -m true 2>/dev/null; then
    echo "FAIL: cannot make a mount namespace here (unshare -m); this test needs root"
    exit 1
fi
fail=0
out=$(unshare -m sh -c "mount -t tmpfs -o size=6m tmpfs /dev/shm && '$B/bin/mpiexec' -n 8 ./ring" 2>&1)
rc=$?
if [ $rc -ne 0 ] || ! echo "$out" | grep -q 'ring ok 28'; then
    echo "FAIL: 8 ranks with a 6 MiB /dev/shm (rc $rc): $out"
    fail=1
fi
out=$(unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs /dev/shm && '$B/bin/mpiexec' -n 8 ./ring" 2>&1)
rc=$?
if [ $rc -eq 0 ] || ! echo "$out" | grep -q '/dev/shm has 64 KiB free; 8 ranks need'; then
    echo "FAIL: 8 ranks with a 64 KiB /dev/shm should fail with a clear message (rc $rc): $out"
    fail=1
fi
if echo "$out" | grep -qi 'bus error\|signal 7'; then
    echo "FAIL: SIGBUS with a small /dev/shm: $out"
    fail=1
fi
[ $fail = 0 ] && echo "small /dev/shm: rings fit, or a clear error"
exit $fail
