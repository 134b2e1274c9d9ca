/* Clock alignment at MPI_Init and MPI_Finalize. Rank 0 takes ROUNDS round trips with each rank
 * in turn over the recorder's own communicator; the one with the shortest round trip pairs the
 * rank's clock reading (taken when it answered) with rank 0's at the round trip's middle, to
 * within half the round trip. The global clock is rank 0's, in nanoseconds from its reading at
 * MPI_Init. With the pairs of init and finalize, a rank's ticks map linearly to the global
 * clock (its drift corrected). */
#include "prof.h"

#define ROUNDS 10
#define TAG 7151

uint64_t prof_sync_t[2];
int64_t prof_sync_ns[2];
static uint64_t epoch0; /* rank 0: its ticks at the first sync */
static int synced;

void prof_sync(uint64_t *t, int64_t *global_ns, uint64_t *err)
{
    MPI_Comm c = prof_g.pcomm;
    double tpn = prof_ticks_per_ns();
    if (prof_g.rank == 0) {
        uint64_t now = prof_now_ticks();
        if (!synced)
            epoch0 = now;
        synced = 1;
        *t = now;
        *global_ns = (int64_t)((double)(now - epoch0) / tpn);
        *err = 0;
        for (int r = 1; r < prof_g.size; r++) {
            uint64_t best_rtt = UINT64_MAX, best_t = 0, best_mid = 0;
            for (int k = 0; k < ROUNDS; k++) {
                uint64_t theirs = 0;
                uint64_t a = prof_now_ticks();
                PMPI_Send(NULL, 0, MPI_BYTE, r, TAG, c);
                PMPI_Recv(&theirs, 1, MPI_UINT64_T, r, TAG, c, MPI_STATUS_IGNORE);
                uint64_t b = prof_now_ticks();
                if (b - a < best_rtt) {
                    best_rtt = b - a;
                    best_t = theirs;
                    best_mid = a + (b - a) / 2;
                }
            }
            int64_t out[3] = {(int64_t)best_t, (int64_t)((double)(best_mid - epoch0) / tpn),
                              (int64_t)((double)best_rtt / tpn / 2)};
            PMPI_Send(out, 3, MPI_INT64_T, r, TAG, c);
        }
    } else {
        for (int k = 0; k < ROUNDS; k++) {
            PMPI_Recv(NULL, 0, MPI_BYTE, 0, TAG, c, MPI_STATUS_IGNORE);
            uint64_t mine = prof_now_ticks();
            PMPI_Send(&mine, 1, MPI_UINT64_T, 0, TAG, c);
        }
        int64_t in[3];
        PMPI_Recv(in, 3, MPI_INT64_T, 0, TAG, c, MPI_STATUS_IGNORE);
        *t = (uint64_t)in[0];
        *global_ns = in[1];
        *err = (uint64_t)in[2];
    }
}

int64_t prof_to_global(uint64_t t)
{
    if (prof_sync_t[1] > prof_sync_t[0]) {
        double slope = (double)(prof_sync_ns[1] - prof_sync_ns[0]) /
                       (double)(prof_sync_t[1] - prof_sync_t[0]);
        return prof_sync_ns[0] + (int64_t)(((double)t - (double)prof_sync_t[0]) * slope);
    }
    return prof_sync_ns[0] + (int64_t)(((double)t - (double)prof_sync_t[0]) / prof_ticks_per_ns());
}
