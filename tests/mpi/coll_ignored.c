/* Arguments the standard declares insignificant must be ignored (MPI 4.1 chapter 6): programs
 * pass -1, MPI_DATATYPE_NULL and NULL there. For every root, in five forms (blocking,
 * nonblocking, persistent, large-count blocking and large-count nonblocking):
 * - Gather/Gatherv: the receive arguments at non-roots; the send count and type at a root
 *   that gathers in place;
 * - Scatter/Scatterv: the send arguments at non-roots; the receive count and type at a root
 *   that scatters in place;
 * - Reduce: the receive buffer at non-roots;
 * - Allgather(v), Alltoall(v,w) in place: the send count(s), displacements and type(s);
 * and on an intercommunicator (2 or more ranks, the two halves of COMM_WORLD): the send
 * arguments of MPI_ROOT for Gather(v) and Reduce, its receive arguments for Scatter(v), and
 * every data argument of the MPI_PROC_NULL side, for Bcast, Gather(v), Scatter(v), Reduce.
 * The results are checked. */
#include "mpitest.h"

#define N 3 /* elements per rank */

enum { BLOCKING, NONBLOCKING, PERSISTENT, LARGE, LARGE_NB, NFORMS };
static const char *const form_name[NFORMS] = {"blocking", "nonblocking", "persistent",
                                              "large-count", "large-count nonblocking"};

static void finish(int form, MPI_Request *r)
{
    if (form == PERSISTENT) {
        MPI_OK(MPI_Start(r));
        MPI_OK(MPI_Wait(r, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(r));
    } else if (form == NONBLOCKING || form == LARGE_NB) {
        MPI_OK(MPI_Wait(r, MPI_STATUS_IGNORE));
    }
}

static int value(int rank, int k)
{
    return rank * 100 + k + 1;
}

static void fill_mine(int *buf, int rank)
{
    for (int k = 0; k < N; k++)
        buf[k] = value(rank, k);
}

/* ---- Gather, Gatherv ---- */

static void gather(int form, int root, int in_place, int vector)
{
    int size = mt_size, rank = mt_rank, is_root = rank == root;
    int *all = is_root ? calloc((size_t)(N * size), sizeof(int)) : NULL;
    int mine[N];
    fill_mine(mine, rank);
    if (is_root && in_place)
        fill_mine(all + N * root, root);
    int counts[64], displs[64];
    MPI_Count ccounts[64];
    MPI_Aint cdispls[64];
    for (int i = 0; i < size; i++) {
        counts[i] = N, displs[i] = N * i;
        ccounts[i] = N, cdispls[i] = N * i;
    }
    /* ignored: at non-roots every receive argument, at an in-place root the send count/type */
    const void *sbuf = is_root && in_place ? MPI_IN_PLACE : mine;
    int scount = is_root && in_place ? -1 : N;
    MPI_Datatype stype = is_root && in_place ? MPI_DATATYPE_NULL : MPI_INT;
    void *rbuf = is_root ? all : NULL;
    int rcount = is_root ? N : -1;
    MPI_Datatype rtype = is_root ? MPI_INT : MPI_DATATYPE_NULL;
    const int *rc = is_root ? counts : NULL, *rd = is_root ? displs : NULL;
    const MPI_Count *crc = is_root ? ccounts : NULL;
    const MPI_Aint *crd = is_root ? cdispls : NULL;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Info ni = MPI_INFO_NULL;
    if (!vector)
        switch (form) {
        case BLOCKING: MPI_OK(MPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, w)); break;
        case NONBLOCKING:
            MPI_OK(MPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, w, &r));
            break;
        case PERSISTENT:
            MPI_OK(MPI_Gather_init(sbuf, scount, stype, rbuf, rcount, rtype, root, w, ni, &r));
            break;
        case LARGE: MPI_OK(MPI_Gather_c(sbuf, scount, stype, rbuf, rcount, rtype, root, w)); break;
        default: MPI_OK(MPI_Igather_c(sbuf, scount, stype, rbuf, rcount, rtype, root, w, &r));
        }
    else
        switch (form) {
        case BLOCKING: MPI_OK(MPI_Gatherv(sbuf, scount, stype, rbuf, rc, rd, rtype, root, w)); break;
        case NONBLOCKING:
            MPI_OK(MPI_Igatherv(sbuf, scount, stype, rbuf, rc, rd, rtype, root, w, &r));
            break;
        case PERSISTENT:
            MPI_OK(MPI_Gatherv_init(sbuf, scount, stype, rbuf, rc, rd, rtype, root, w, ni, &r));
            break;
        case LARGE:
            MPI_OK(MPI_Gatherv_c(sbuf, scount, stype, rbuf, crc, crd, rtype, root, w));
            break;
        default: MPI_OK(MPI_Igatherv_c(sbuf, scount, stype, rbuf, crc, crd, rtype, root, w, &r));
        }
    finish(form, &r);
    if (is_root) {
        int bad = 0;
        for (int i = 0; i < size; i++)
            for (int k = 0; k < N; k++)
                bad += all[N * i + k] != value(i, k);
        CHECK(bad == 0, "%s %s root %d%s: %d wrong elements", vector ? "Gatherv" : "Gather",
              form_name[form], root, in_place ? " in place" : "", bad);
    }
    free(all);
}

/* ---- Scatter, Scatterv ---- */

static void scatter(int form, int root, int in_place, int vector)
{
    int size = mt_size, rank = mt_rank, is_root = rank == root;
    int *all = is_root ? malloc(sizeof(int) * (size_t)(N * size)) : NULL;
    for (int i = 0; is_root && i < size; i++)
        fill_mine(all + N * i, i);
    int mine[N] = {0};
    int counts[64], displs[64];
    MPI_Count ccounts[64];
    MPI_Aint cdispls[64];
    for (int i = 0; i < size; i++) {
        counts[i] = N, displs[i] = N * i;
        ccounts[i] = N, cdispls[i] = N * i;
    }
    /* ignored: at non-roots every send argument, at an in-place root the receive count/type */
    const void *sbuf = is_root ? all : NULL;
    int scount = is_root ? N : -1;
    MPI_Datatype stype = is_root ? MPI_INT : MPI_DATATYPE_NULL;
    const int *sc = is_root ? counts : NULL, *sd = is_root ? displs : NULL;
    const MPI_Count *csc = is_root ? ccounts : NULL;
    const MPI_Aint *csd = is_root ? cdispls : NULL;
    void *rbuf = is_root && in_place ? MPI_IN_PLACE : mine;
    int rcount = is_root && in_place ? -1 : N;
    MPI_Datatype rtype = is_root && in_place ? MPI_DATATYPE_NULL : MPI_INT;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Info ni = MPI_INFO_NULL;
    if (!vector)
        switch (form) {
        case BLOCKING:
            MPI_OK(MPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, w));
            break;
        case NONBLOCKING:
            MPI_OK(MPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, w, &r));
            break;
        case PERSISTENT:
            MPI_OK(MPI_Scatter_init(sbuf, scount, stype, rbuf, rcount, rtype, root, w, ni, &r));
            break;
        case LARGE:
            MPI_OK(MPI_Scatter_c(sbuf, scount, stype, rbuf, rcount, rtype, root, w));
            break;
        default: MPI_OK(MPI_Iscatter_c(sbuf, scount, stype, rbuf, rcount, rtype, root, w, &r));
        }
    else
        switch (form) {
        case BLOCKING:
            MPI_OK(MPI_Scatterv(sbuf, sc, sd, stype, rbuf, rcount, rtype, root, w));
            break;
        case NONBLOCKING:
            MPI_OK(MPI_Iscatterv(sbuf, sc, sd, stype, rbuf, rcount, rtype, root, w, &r));
            break;
        case PERSISTENT:
            MPI_OK(MPI_Scatterv_init(sbuf, sc, sd, stype, rbuf, rcount, rtype, root, w, ni, &r));
            break;
        case LARGE:
            MPI_OK(MPI_Scatterv_c(sbuf, csc, csd, stype, rbuf, rcount, rtype, root, w));
            break;
        default: MPI_OK(MPI_Iscatterv_c(sbuf, csc, csd, stype, rbuf, rcount, rtype, root, w, &r));
        }
    finish(form, &r);
    const int *got = is_root && in_place ? all + N * root : mine;
    int bad = 0;
    for (int k = 0; k < N; k++)
        bad += got[k] != value(rank, k);
    CHECK(bad == 0, "%s %s root %d%s: %d wrong elements", vector ? "Scatterv" : "Scatter",
          form_name[form], root, in_place ? " in place" : "", bad);
    free(all);
}

/* ---- Reduce: the receive buffer at non-roots ---- */

static void reduce(int form, int root)
{
    int mine[N], out[N] = {0};
    fill_mine(mine, mt_rank);
    void *rbuf = mt_rank == root ? out : NULL;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Comm w = MPI_COMM_WORLD;
    switch (form) {
    case BLOCKING: MPI_OK(MPI_Reduce(mine, rbuf, N, MPI_INT, MPI_SUM, root, w)); break;
    case NONBLOCKING: MPI_OK(MPI_Ireduce(mine, rbuf, N, MPI_INT, MPI_SUM, root, w, &r)); break;
    case PERSISTENT:
        MPI_OK(MPI_Reduce_init(mine, rbuf, N, MPI_INT, MPI_SUM, root, w, MPI_INFO_NULL, &r));
        break;
    case LARGE: MPI_OK(MPI_Reduce_c(mine, rbuf, N, MPI_INT, MPI_SUM, root, w)); break;
    default: MPI_OK(MPI_Ireduce_c(mine, rbuf, N, MPI_INT, MPI_SUM, root, w, &r));
    }
    finish(form, &r);
    if (mt_rank == root)
        for (int k = 0; k < N; k++) {
            int want = 0;
            for (int i = 0; i < mt_size; i++)
                want += value(i, k);
            CHECK(out[k] == want, "Reduce %s root %d: [%d] = %d, expected %d", form_name[form],
                  root, k, out[k], want);
        }
}

/* ---- In place everywhere: Allgather(v), Alltoall(v,w) ---- */

static void all_in_place(int form)
{
    int size = mt_size, rank = mt_rank;
    int *buf = malloc(sizeof(int) * (size_t)(N * size));
    int counts[64], displs[64];
    MPI_Count ccounts[64];
    MPI_Aint cdispls[64], wdispls[64];
    int wbytes[64]; /* Alltoallw's displacements are in bytes */
    MPI_Datatype types[64];
    for (int i = 0; i < size; i++) {
        counts[i] = N, displs[i] = N * i;
        ccounts[i] = N, cdispls[i] = N * i;
        wbytes[i] = (int)sizeof(int) * N * i;
        wdispls[i] = (MPI_Aint)sizeof(int) * N * i;
        types[i] = MPI_INT;
    }
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Info ni = MPI_INFO_NULL;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Datatype nt = MPI_DATATYPE_NULL;
    for (int which = 0; which < 5; which++) {
        /* allgather(v): my block in place; alltoall(v,w): block i holds what i receives */
        for (int i = 0; i < size; i++)
            for (int k = 0; k < N; k++)
                buf[N * i + k] = which < 2 ? (i == rank ? value(rank, k) : -7)
                                           : value(rank, k) * 1000 + i;
        const char *what = (const char *[]){"Allgather", "Allgatherv", "Alltoall", "Alltoallv",
                                            "Alltoallw"}[which];
        void *ip = MPI_IN_PLACE;
        switch (which * NFORMS + form) {
        case 0 * NFORMS + BLOCKING: MPI_OK(MPI_Allgather(ip, -1, nt, buf, N, MPI_INT, w)); break;
        case 0 * NFORMS + NONBLOCKING:
            MPI_OK(MPI_Iallgather(ip, -1, nt, buf, N, MPI_INT, w, &r));
            break;
        case 0 * NFORMS + PERSISTENT:
            MPI_OK(MPI_Allgather_init(ip, -1, nt, buf, N, MPI_INT, w, ni, &r));
            break;
        case 0 * NFORMS + LARGE: MPI_OK(MPI_Allgather_c(ip, -1, nt, buf, N, MPI_INT, w)); break;
        case 0 * NFORMS + LARGE_NB:
            MPI_OK(MPI_Iallgather_c(ip, -1, nt, buf, N, MPI_INT, w, &r));
            break;
        case 1 * NFORMS + BLOCKING:
            MPI_OK(MPI_Allgatherv(ip, -1, nt, buf, counts, displs, MPI_INT, w));
            break;
        case 1 * NFORMS + NONBLOCKING:
            MPI_OK(MPI_Iallgatherv(ip, -1, nt, buf, counts, displs, MPI_INT, w, &r));
            break;
        case 1 * NFORMS + PERSISTENT:
            MPI_OK(MPI_Allgatherv_init(ip, -1, nt, buf, counts, displs, MPI_INT, w, ni, &r));
            break;
        case 1 * NFORMS + LARGE:
            MPI_OK(MPI_Allgatherv_c(ip, -1, nt, buf, ccounts, cdispls, MPI_INT, w));
            break;
        case 1 * NFORMS + LARGE_NB:
            MPI_OK(MPI_Iallgatherv_c(ip, -1, nt, buf, ccounts, cdispls, MPI_INT, w, &r));
            break;
        case 2 * NFORMS + BLOCKING: MPI_OK(MPI_Alltoall(ip, -1, nt, buf, N, MPI_INT, w)); break;
        case 2 * NFORMS + NONBLOCKING:
            MPI_OK(MPI_Ialltoall(ip, -1, nt, buf, N, MPI_INT, w, &r));
            break;
        case 2 * NFORMS + PERSISTENT:
            MPI_OK(MPI_Alltoall_init(ip, -1, nt, buf, N, MPI_INT, w, ni, &r));
            break;
        case 2 * NFORMS + LARGE: MPI_OK(MPI_Alltoall_c(ip, -1, nt, buf, N, MPI_INT, w)); break;
        case 2 * NFORMS + LARGE_NB:
            MPI_OK(MPI_Ialltoall_c(ip, -1, nt, buf, N, MPI_INT, w, &r));
            break;
        case 3 * NFORMS + BLOCKING:
            MPI_OK(MPI_Alltoallv(ip, NULL, NULL, nt, buf, counts, displs, MPI_INT, w));
            break;
        case 3 * NFORMS + NONBLOCKING:
            MPI_OK(MPI_Ialltoallv(ip, NULL, NULL, nt, buf, counts, displs, MPI_INT, w, &r));
            break;
        case 3 * NFORMS + PERSISTENT:
            MPI_OK(MPI_Alltoallv_init(ip, NULL, NULL, nt, buf, counts, displs, MPI_INT, w, ni, &r));
            break;
        case 3 * NFORMS + LARGE:
            MPI_OK(MPI_Alltoallv_c(ip, NULL, NULL, nt, buf, ccounts, cdispls, MPI_INT, w));
            break;
        case 3 * NFORMS + LARGE_NB:
            MPI_OK(MPI_Ialltoallv_c(ip, NULL, NULL, nt, buf, ccounts, cdispls, MPI_INT, w, &r));
            break;
        case 4 * NFORMS + BLOCKING:
            MPI_OK(MPI_Alltoallw(ip, NULL, NULL, NULL, buf, counts, wbytes, types, w));
            break;
        case 4 * NFORMS + NONBLOCKING:
            MPI_OK(MPI_Ialltoallw(ip, NULL, NULL, NULL, buf, counts, wbytes, types, w, &r));
            break;
        case 4 * NFORMS + PERSISTENT:
            MPI_OK(MPI_Alltoallw_init(ip, NULL, NULL, NULL, buf, counts, wbytes, types, w, ni, &r));
            break;
        case 4 * NFORMS + LARGE:
            MPI_OK(MPI_Alltoallw_c(ip, NULL, NULL, NULL, buf, ccounts, wdispls, types, w));
            break;
        default:
            MPI_OK(MPI_Ialltoallw_c(ip, NULL, NULL, NULL, buf, ccounts, wdispls, types, w, &r));
        }
        finish(form, &r);
        int bad = 0;
        for (int i = 0; i < size; i++)
            for (int k = 0; k < N; k++) {
                int want = which < 2 ? value(i, k) : value(i, k) * 1000 + rank;
                bad += buf[N * i + k] != want;
            }
        CHECK(bad == 0, "%s in place %s: %d wrong elements", what, form_name[form], bad);
    }
    free(buf);
}

/* ---- Intercommunicator roots ---- */

static void inter(MPI_Comm ic, int left, int lrank, int rsize, int nroots)
{
    MPI_Request r;
    int buf[N * 64], mine[N];
    for (int root = 0; root < nroots; root++) {
        /* the root is rank `root` of the left group */
        int rootarg = left ? (lrank == root ? MPI_ROOT : MPI_PROC_NULL) : root;
        int at_root = rootarg == MPI_ROOT, idle = rootarg == MPI_PROC_NULL;
        for (int nb = 0; nb < 2; nb++) {
            /* Bcast: the PROC_NULL side passes nothing */
            fill_mine(mine, at_root ? 42 : -1);
            if (idle) {
                /* Known deviation, MPICH 4.0: checks this side's count, and with count 0 here
                 * the other group receives nothing when the root is not rank 0 */
                int count = mt_is_mpich40() ? N : -1;
                MPI_Datatype type = mt_is_mpich40() ? MPI_INT : MPI_DATATYPE_NULL;
                void *b = mt_is_mpich40() ? mine : NULL;
                if (nb)
                    MPI_OK(MPI_Ibcast(b, count, type, rootarg, ic, &r));
                else
                    MPI_OK(MPI_Bcast(b, count, type, rootarg, ic));
            } else if (nb) {
                MPI_OK(MPI_Ibcast(mine, N, MPI_INT, rootarg, ic, &r));
            } else {
                MPI_OK(MPI_Bcast(mine, N, MPI_INT, rootarg, ic));
            }
            if (nb)
                MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            /* Known deviation, MPICH 4.0: MPI_Ibcast on an intercommunicator delivers nothing
             * when the root is not rank 0 of its group (valid arguments everywhere) */
            if (!left && !(mt_is_mpich40() && nb && root != 0))
                CHECK(mine[0] == value(42, 0), "inter Bcast root %d: %d", root, mine[0]);

            /* Gather: the root ignores its send arguments, the others all but the send ones */
            fill_mine(mine, lrank);
            if (at_root)
                MPI_OK(nb ? MPI_Igather(NULL, -1, MPI_DATATYPE_NULL, buf, N, MPI_INT, rootarg, ic, &r)
                    : MPI_Gather(NULL, -1, MPI_DATATYPE_NULL, buf, N, MPI_INT, rootarg, ic));
            else if (idle)
                MPI_OK(nb ? MPI_Igather(NULL, -1, MPI_DATATYPE_NULL, NULL, -1, MPI_DATATYPE_NULL, rootarg,
                                  ic, &r)
                    : MPI_Gather(NULL, -1, MPI_DATATYPE_NULL, NULL, -1, MPI_DATATYPE_NULL, rootarg,
                                 ic));
            else
                MPI_OK(nb ? MPI_Igather(mine, N, MPI_INT, NULL, -1, MPI_DATATYPE_NULL, rootarg, ic, &r)
                    : MPI_Gather(mine, N, MPI_INT, NULL, -1, MPI_DATATYPE_NULL, rootarg, ic));
            if (nb)
                MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            if (at_root)
                for (int i = 0; i < rsize; i++)
                    CHECK(buf[N * i + 1] == value(i, 1), "inter Gather root %d: from %d: %d", root,
                          i, buf[N * i + 1]);

            /* Scatter: the root ignores its receive arguments, the others the send ones */
            for (int i = 0; at_root && i < rsize; i++)
                fill_mine(buf + N * i, i + 7);
            mine[2] = -1;
            if (at_root)
                MPI_OK(nb ? MPI_Iscatter(buf, N, MPI_INT, NULL, -1, MPI_DATATYPE_NULL, rootarg, ic, &r)
                    : MPI_Scatter(buf, N, MPI_INT, NULL, -1, MPI_DATATYPE_NULL, rootarg, ic));
            else if (idle)
                MPI_OK(nb ? MPI_Iscatter(NULL, -1, MPI_DATATYPE_NULL, NULL, -1, MPI_DATATYPE_NULL,
                                   rootarg, ic, &r)
                    : MPI_Scatter(NULL, -1, MPI_DATATYPE_NULL, NULL, -1, MPI_DATATYPE_NULL, rootarg,
                                  ic));
            else
                MPI_OK(nb ? MPI_Iscatter(NULL, -1, MPI_DATATYPE_NULL, mine, N, MPI_INT, rootarg, ic, &r)
                    : MPI_Scatter(NULL, -1, MPI_DATATYPE_NULL, mine, N, MPI_INT, rootarg, ic));
            if (nb)
                MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            if (!left)
                CHECK(mine[2] == value(lrank + 7, 2), "inter Scatter root %d: %d", root, mine[2]);

            /* Reduce: the root ignores its send buffer, the idle ranks everything */
            fill_mine(mine, lrank);
            /* Known deviation, MPICH 4.0: refuses a NULL send buffer at MPI_ROOT */
            const void *ignored = mt_is_mpich40() ? mine : NULL;
            if (at_root)
                MPI_OK(nb ? MPI_Ireduce(ignored, buf, N, MPI_INT, MPI_SUM, rootarg, ic, &r)
                    : MPI_Reduce(ignored, buf, N, MPI_INT, MPI_SUM, rootarg, ic));
            else if (idle)
                MPI_OK(nb ? MPI_Ireduce(NULL, NULL, -1, MPI_DATATYPE_NULL, MPI_OP_NULL, rootarg, ic, &r)
                    : MPI_Reduce(NULL, NULL, -1, MPI_DATATYPE_NULL, MPI_OP_NULL, rootarg, ic));
            else
                MPI_OK(nb ? MPI_Ireduce(mine, NULL, N, MPI_INT, MPI_SUM, rootarg, ic, &r)
                    : MPI_Reduce(mine, NULL, N, MPI_INT, MPI_SUM, rootarg, ic));
            if (nb)
                MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            if (at_root) {
                int want = 0;
                for (int i = 0; i < rsize; i++)
                    want += value(i, 0);
                CHECK(buf[0] == want, "inter Reduce root %d: %d, expected %d", root, buf[0], want);
            }
        }
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_size > 64) {
        printf("at most 64 ranks\n");
        return 1;
    }
    for (int form = 0; form < NFORMS; form++) {
        for (int root = 0; root < mt_size; root++)
            for (int in_place = 0; in_place < 2; in_place++)
                for (int vector = 0; vector < 2; vector++) {
                    gather(form, root, in_place, vector);
                    scatter(form, root, in_place, vector);
                }
        for (int root = 0; root < mt_size; root++)
            reduce(form, root);
        all_in_place(form);
    }
    if (mt_size >= 2) {
        int left = mt_rank < mt_size / 2;
        MPI_Comm half, ic;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, left, mt_rank, &half));
        MPI_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, left ? mt_size / 2 : 0, 7, &ic));
        MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
        int lrank, rsize;
        MPI_Comm_rank(half, &lrank);
        MPI_Comm_remote_size(ic, &rsize);
        inter(ic, left, lrank, rsize, mt_size / 2 < 2 ? mt_size / 2 : 2);
        MPI_Comm_free(&ic);
        MPI_Comm_free(&half);
    }
    return mt_finish();
}
