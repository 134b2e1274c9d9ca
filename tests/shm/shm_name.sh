#!/bin/bash
# timeout: 90
# The segment's name cannot be guessed and a taken name does not stop a job. Before, it was
# /fy-fy<launcher pid>x<ms>-shm: another user could create it first and every job failed (and a
# file of ours by that name was unlinked and replaced). Now it ends in 64 random bits, is
# created with O_EXCL, and on a collision another name is tried. The retry path is driven by
# FY_TEST_SHM_NAME_FIRST, which makes the first attempt use a given name: here one we created.
set -u
B=$FY_BUILD
cat > seg.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include <string.h>
/* Prints the name of the segment this rank maps, as /proc/self/maps shows it. */
int main(int argc, char **argv)
{
    int rank, sum = 0, one = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
        char *p = strstr(line, "/dev/shm/fy-");
        if (p && rank == 0)
            printf("segment %s", p);
    }
    if (f)
        fclose(f);
    MPI_Finalize();
    if (rank == 0)
        printf("sum %d\n", sum);
    return 0;
}
C
"$B/bin/mpicc" -o seg seg.c || exit 1
fail=0
taken=/dev/shm/fy-taken-$$-$RANDOM
echo "somebody else's" > "$taken"
chmod 0444 "$taken"
out=$(FY_TEST_SHM_NAME_FIRST="/${taken#/dev/shm/}" timeout 60 "$B/bin/mpiexec" -n 3 ./seg 2>&1)
rc=$?
if [ $rc -ne 0 ] || ! echo "$out" | grep -q '^sum 3$'; then
    echo "FAIL: a taken first name made the job fail (rc $rc): $out"
    fail=1
fi
if [ "$(cat "$taken" 2>/dev/null)" != "somebody else's" ]; then
    echo "FAIL: the taken file $taken was removed or changed"
    fail=1
fi
rm -f "$taken"
# Two jobs: names of the documented form, with different random parts.
n1=$(timeout 60 "$B/bin/mpiexec" -n 2 ./seg 2>&1 | sed -n 's/^segment //p' | awk '{print $1}')
n2=$(timeout 60 "$B/bin/mpiexec" -n 2 ./seg 2>&1 | sed -n 's/^segment //p' | awk '{print $1}')
for n in "$n1" "$n2"; do
    if ! echo "$n" | grep -Eq '^/dev/shm/fy-[^/]+-[0-9a-f]{16}$'; then
        echo "FAIL: segment name '$n' is not /dev/shm/fy-<kvsname>-<16 random hex digits>"
        fail=1
    fi
done
if [ -n "$n1" ] && [ "${n1##*-}" = "${n2##*-}" ]; then
    echo "FAIL: two jobs drew the same random part: $n1 $n2"
    fail=1
fi
[ $fail = 0 ] && echo "PASS: taken names are skipped, names are random ($n1)"
exit $fail
