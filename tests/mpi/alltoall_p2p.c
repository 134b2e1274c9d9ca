/* All-to-all with point-to-point: every rank sends a distinct message to every rank (itself
 * included) with Isend and receives from every rank with Irecv (specific sources, then
 * ANY_SOURCE), completing with Waitall and with Waitany; then pairwise Sendrecv exchanges. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int n = mt_size;
    size_t sizes[3] = {8, 3000, 40000};
    for (int s = 0; s < 3; s++) {
        size_t len = sizes[s];
        unsigned char *sb = mt_malloc(len * (size_t)n), *rb = mt_malloc(len * (size_t)n);
        MPI_Request *reqs = mt_malloc(2 * (size_t)n * sizeof *reqs);
        for (int p = 0; p < n; p++) {
            mt_fill(sb + (size_t)p * len, len, (unsigned)(mt_rank * 64 + p + s));
            MPI_OK(MPI_Irecv(rb + (size_t)p * len, (int)len, MPI_BYTE, p, s, MPI_COMM_WORLD,
                             &reqs[p]));
        }
        for (int k = 0; k < n; k++) {
            int p = (mt_rank + k) % n; /* stagger the destinations */
            MPI_OK(MPI_Isend(sb + (size_t)p * len, (int)len, MPI_BYTE, p, s, MPI_COMM_WORLD,
                             &reqs[n + p]));
        }
        if (s == 1) {
            for (int k = 0; k < 2 * n; k++) {
                int idx;
                MPI_OK(MPI_Waitany(2 * n, reqs, &idx, MPI_STATUS_IGNORE));
                CHECK(idx != MPI_UNDEFINED, "Waitany ran out after %d of %d", k, 2 * n);
            }
        } else {
            MPI_OK(MPI_Waitall(2 * n, reqs, MPI_STATUSES_IGNORE));
        }
        for (int p = 0; p < n; p++)
            CHECK_DATA(rb + (size_t)p * len, len, (unsigned)(p * 64 + mt_rank + s),
                       "message of %zu bytes from %d", len, p);

        /* The same with ANY_SOURCE receives: the source comes from the status. */
        MPI_Status *sts = mt_malloc((size_t)n * sizeof *sts);
        unsigned char *tmp = mt_malloc(len * (size_t)n);
        for (int p = 0; p < n; p++)
            MPI_OK(MPI_Irecv(tmp + (size_t)p * len, (int)len, MPI_BYTE, MPI_ANY_SOURCE, 100 + s,
                             MPI_COMM_WORLD, &reqs[p]));
        for (int p = 0; p < n; p++)
            MPI_OK(MPI_Isend(sb + (size_t)p * len, (int)len, MPI_BYTE, p, 100 + s, MPI_COMM_WORLD,
                             &reqs[n + p]));
        MPI_OK(MPI_Waitall(n, reqs, sts));
        MPI_OK(MPI_Waitall(n, reqs + n, MPI_STATUSES_IGNORE));
        unsigned seen = 0;
        for (int p = 0; p < n; p++) {
            int src = sts[p].MPI_SOURCE;
            CHECK(src >= 0 && src < n, "ANY_SOURCE status source %d", src);
            if (src < 0 || src >= n)
                continue;
            seen |= 1u << src;
            CHECK_DATA(tmp + (size_t)p * len, len, (unsigned)(src * 64 + mt_rank + s),
                       "ANY_SOURCE message of %zu bytes from %d", len, src);
        }
        CHECK(seen == (n >= 32 ? ~0u : (1u << n) - 1), "ANY_SOURCE senders mask %#x", seen);
        free(sts);
        free(tmp);
        free(sb);
        free(rb);
        free(reqs);
    }

    /* Pairwise exchange rounds with Sendrecv. */
    for (int k = 1; k < n; k++) {
        int to = (mt_rank + k) % n, from = (mt_rank - k + n) % n;
        int out[3] = {mt_rank, k, to}, in[3] = {-1, -1, -1};
        MPI_OK(MPI_Sendrecv(out, 3, MPI_INT, to, k, in, 3, MPI_INT, from, k, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
        CHECK(in[0] == from && in[1] == k && in[2] == mt_rank, "pairwise round %d: %d %d %d", k,
              in[0], in[1], in[2]);
    }
    return mt_finish();
}
