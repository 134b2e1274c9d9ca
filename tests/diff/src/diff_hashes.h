/* The differential programs' results (coll.c, rma.c): each case records a hash of what a rank
 * holds, in the same order on every rank; at the end rank 0 prints one line per case with
 * every rank's hash, so two libraries' outputs compare with diff. A case a rank has nothing for
 * records NULL and prints "-". */
#ifndef DIFF_HASHES_H
#define DIFF_HASHES_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DIFF_MAXREP = 6000 };

static unsigned long long diff_hashes[DIFF_MAXREP];
static char *diff_names[DIFF_MAXREP];
static int diff_nrep;

static unsigned long long diff_fnv(const void *b, size_t n)
{
    const unsigned char *p = b;
    unsigned long long h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static void diff_record(const char *name, const void *buf, size_t bytes)
{
    if (diff_nrep >= DIFF_MAXREP) {
        fprintf(stderr, "too many cases\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    diff_hashes[diff_nrep] = buf ? diff_fnv(buf, bytes) : 0;
    diff_names[diff_nrep] = strdup(name);
    diff_nrep++;
}

/* Collective on MPI_COMM_WORLD: every rank must have recorded as many cases. */
static void diff_print(void)
{
    int rank, size, n0 = diff_nrep, nmin = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&n0, &nmin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Bcast(&n0, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (nmin != n0 || diff_nrep != n0) {
        fprintf(stderr, "rank %d: %d cases, rank 0 %d\n", rank, diff_nrep, n0);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    unsigned long long *all = malloc(sizeof *all * (size_t)(n0 ? n0 : 1) * (size_t)size);
    MPI_Gather(diff_hashes, n0, MPI_UNSIGNED_LONG_LONG, all, n0, MPI_UNSIGNED_LONG_LONG, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < n0; i++) {
            printf("%s:", diff_names[i]);
            for (int r = 0; r < size; r++) {
                unsigned long long h = all[(size_t)r * (size_t)n0 + (size_t)i];
                if (h)
                    printf(" %016llx", h);
                else
                    printf(" -");
            }
            printf("\n");
        }
        printf("%d cases\n", n0);
    }
    free(all);
    for (int i = 0; i < diff_nrep; i++)
        free(diff_names[i]);
}

#endif
