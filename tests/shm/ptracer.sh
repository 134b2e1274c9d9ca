#!/bin/bash
# timeout: 90
# prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY) lets every process of the user attach to a rank
# where Yama would allow only its ancestors. It is the price of single-copy transfers (the
# peers read each other with process_vm_readv), so a rank pays it only when single copy is on:
# with FERRY_CMA=0 the rank's ptrace protection is left alone. Yama's setting cannot be read
# back, so an LD_PRELOAD interposer of prctl logs every PR_SET_PTRACER call.
set -u
B=$FY_BUILD
cat > spy.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>
int prctl(int option, ...)
{
    va_list ap;
    va_start(ap, option);
    unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long);
    unsigned long a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
    va_end(ap);
    if (option == PR_SET_PTRACER)
        fprintf(stderr, "spy: pid %d PR_SET_PTRACER %lx\n", (int)getpid(), a2);
    int (*real)(int, ...) = (int (*)(int, ...))dlsym(RTLD_NEXT, "prctl");
    return real(option, a2, a3, a4, a5);
}
C
cat > big.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
/* A large message, so that the rendezvous (single copy or streamed) runs either way. */
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t n = 4 << 20;
    char *buf = calloc(n, 1);
    if (rank == 0) {
        buf[n - 1] = 7;
        MPI_Send(buf, (int)n, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(buf, (int)n, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("got %d\n", buf[n - 1]);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
C
cc -shared -fPIC -o spy.so spy.c -ldl || exit 1
"$B/bin/mpicc" -o big big.c || exit 1
fail=0
out=$(FERRY_CMA=0 LD_PRELOAD=$PWD/spy.so timeout 60 "$B/bin/mpiexec" -n 2 ./big 2>&1)
rc=$?
if [ $rc -ne 0 ] || ! echo "$out" | grep -q '^got 7$'; then
    echo "FAIL: FERRY_CMA=0 run failed (rc $rc): $out"
    fail=1
fi
if echo "$out" | grep -q 'PR_SET_PTRACER'; then
    echo "FAIL: with FERRY_CMA=0 a rank still opened itself to ptrace: $out"
    fail=1
fi
# The spy must see the call when single copy is on, or the check above proves nothing.
out=$(FERRY_RNDV=cma LD_PRELOAD=$PWD/spy.so timeout 60 "$B/bin/mpiexec" -n 2 ./big 2>&1)
rc=$?
calls=$(echo "$out" | grep -c 'PR_SET_PTRACER ffffffffffffffff')
if [ $rc -ne 0 ] || ! echo "$out" | grep -q '^got 7$' || [ "$calls" -ne 2 ]; then
    echo "FAIL: with single copy on, expected one PR_SET_PTRACER_ANY per rank (got $calls, rc $rc): $out"
    fail=1
fi
[ $fail = 0 ] && echo "PASS: PR_SET_PTRACER only with single copy"
exit $fail
