#!/bin/bash
# timeout: 90
# Before mapping, the shared memory a job needs is compared with the memory really available
# (MemAvailable, the memory cgroup's room), not only /dev/shm's free space, which on most
# machines is half of RAM whatever is in use: a job that cannot fit fails at once with a
# message naming the need and what is available, instead of being killed later by the OOM
# killer. Here /dev/shm is a private tmpfs larger than the machine's memory, and the job asks
# for more (40 inboxes of 1 GiB) than MemAvailable.
set -u
B=$FY_BUILD
cat > hello.c <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    printf("hello\n");
    return 0;
}
C
"$B/bin/mpicc" -o hello hello.c || exit 1
if ! unshare -m true 2>/dev/null; then
    echo "FAIL: cannot make a mount namespace here (unshare -m); this test needs root"
    exit 1
fi
total_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
big=$(( (total_kb >> 20) * 4 + 64 ))g
n=$(( (total_kb >> 20) + 8 ))   # ranks x 1 GiB inboxes: more than the machine has
fail=0
out=$(FERRY_SHM_QUEUE=inbox FERRY_SHM_RING=1G unshare -m sh -c \
      "mount -t tmpfs -o size=$big tmpfs /dev/shm && timeout 60 '$B/bin/mpiexec' -n $n ./hello" 2>&1)
rc=$?
if [ $rc -eq 0 ] || ! echo "$out" | grep -q "$n ranks need [0-9]* MiB of shared memory for their queues, but only [0-9]* MiB of memory is available"; then
    echo "FAIL: $n ranks x 1 GiB with a $big /dev/shm should fail with a clear message (rc $rc): $(echo "$out" | head -5)"
    fail=1
fi
if echo "$out" | grep -qi 'bus error\|signal 7\|killed'; then
    echo "FAIL: killed instead of a clear error: $out"
    fail=1
fi
# The same job with a size that fits runs.
out=$(FERRY_SHM_QUEUE=inbox unshare -m sh -c \
      "mount -t tmpfs -o size=$big tmpfs /dev/shm && timeout 60 '$B/bin/mpiexec' -n 4 ./hello" 2>&1)
if [ "$(echo "$out" | grep -c '^hello$')" != 4 ]; then
    echo "FAIL: 4 ranks with a $big /dev/shm: $out"
    fail=1
fi
[ $fail = 0 ] && echo "PASS: a job larger than the memory fails with a clear message"
exit $fail
