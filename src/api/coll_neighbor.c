/* The neighbourhood collectives: MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v/w), their
 * nonblocking (MPI_Ineighbor_...) and persistent (..._init) forms and every large-count (_c)
 * form. The argument checks are here, the algorithm in src/coll/neighbor.c. Every form builds
 * the same schedule (one round of receives from the in-neighbours and sends to the
 * out-neighbours) and runs it (blocking), starts it (nonblocking) or parks it for MPI_Start
 * (persistent); its tag comes from the communicator's collective sequence number, so all three
 * forms may be outstanding together.
 *
 * The communicator must have a process topology (MPI_ERR_TOPOLOGY otherwise). MPI_IN_PLACE is
 * not allowed (the standard defines none for these collectives). A datatype is checked only on
 * a side that has neighbours; a block of the w forms with count 0 may name any type. The int
 * count and displacement arrays are widened to MPI_Aint here (MPI_Count and MPI_Aint are one
 * type); the schedule reads the arrays while it is built, so the copies are freed at once. The
 * info argument of the persistent forms must be valid or MPI_INFO_NULL and is otherwise
 * ignored. */
#include <stdlib.h>

#include "coll_api.h"
#include "fy_info.h"
#include "fy_neighbor.h"

enum { ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, ALLTOALLW };

/* One side's arguments as an entry point received them; only those of its form are set. */
typedef struct {
    const void *buf;
    MPI_Count count;           /* allgather, alltoall; the send side of allgatherv */
    const int *icounts;        /* v and w forms with int arrays */
    const MPI_Count *counts;   /* _c v and w forms */
    const int *idispls;        /* v forms with int arrays (in extents) */
    const MPI_Aint *displs;    /* _c v forms (in extents), every w form (in bytes) */
    MPI_Datatype type;         /* every form but w */
    const MPI_Datatype *types; /* w forms */
} args_t;

/* What a side's resolution allocated (freed by the caller, also on failure). */
typedef struct {
    MPI_Aint *wide; /* widened counts, then widened displacements */
    const fy_dtype_t **dts;
} side_mem_t;

static int no_mem(const char *fn)
{
    return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
}

static int nonnull(const char *fn, const void *p, const char *what)
{
    return p ? MPI_SUCCESS : fy_err_set(MPI_ERR_ARG, "%s: %s is NULL", fn, what);
}

/* The block counts of a v or w side, widened when given as ints; all must be >= 0. */
static int side_counts(const char *fn, const args_t *a, int n, const char *name, side_mem_t *m,
                       const MPI_Aint **counts_p)
{
    const MPI_Aint *counts = a->counts;
    int rc = nonnull(fn, a->icounts ? (const void *)a->icounts : (const void *)a->counts, name);
    if (rc != MPI_SUCCESS)
        return rc;
    if (a->icounts) {
        if (!(m->wide = malloc(sizeof *m->wide * 2 * (size_t)n)))
            return no_mem(fn);
        for (int i = 0; i < n; i++)
            m->wide[i] = a->icounts[i];
        counts = m->wide;
    }
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return fy_err_set(MPI_ERR_COUNT, "%s: invalid count %s[%d] = %ld (must be >= 0)", fn,
                              name, i, (long)counts[i]);
    *counts_p = counts;
    return MPI_SUCCESS;
}

/* Resolves one side (send: the out-neighbours, receive: the in-neighbours; n of them) of a
 * collective of `kind` into *sd. */
static int side(const char *fn, int kind, bool send, const args_t *a, int n, fy_nbr_side_t *sd,
                side_mem_t *m)
{
    const char *counts_name = send ? "sendcounts" : "recvcounts";
    const char *displs_name = send ? "sdispls" : (kind == ALLGATHERV ? "displs" : "rdispls");
    int rc = MPI_SUCCESS;
    *sd = (fy_nbr_side_t){.buf = a->buf, .count = a->count};
    if (n == 0)
        return MPI_SUCCESS; /* no block: nothing is read */
    bool uniform = kind == ALLGATHER || kind == ALLTOALL || (kind == ALLGATHERV && send);
    if (uniform) {
        sd->one_block = send && (kind == ALLGATHER || kind == ALLGATHERV);
        if (a->count < 0)
            return fy_err_set(MPI_ERR_COUNT, "%s: invalid %s %ld (must be >= 0)", fn,
                              send ? "sendcount" : "recvcount", (long)a->count);
        if ((rc = fy_api_dtype(fn, a->type, &sd->dt)) == MPI_SUCCESS)
            rc = fy_api_buf(fn, a->buf, a->count, sd->dt);
        return rc;
    }
    if ((rc = side_counts(fn, a, n, counts_name, m, &sd->counts)) != MPI_SUCCESS)
        return rc;
    if (kind == ALLTOALLW || !a->idispls) {
        sd->displs = a->displs;
    } else {
        for (int i = 0; i < n; i++) /* m->wide has room for them after the counts */
            m->wide[n + i] = a->idispls[i];
        sd->displs = m->wide + n;
    }
    if (!sd->displs)
        return nonnull(fn, NULL, displs_name);
    if (kind != ALLTOALLW)
        return fy_api_dtype(fn, a->type, &sd->dt);
    sd->displs_in_bytes = true;
    if ((rc = nonnull(fn, a->types, send ? "sendtypes" : "recvtypes")) != MPI_SUCCESS)
        return rc;
    if (!(m->dts = malloc(sizeof *m->dts * (size_t)n)))
        return no_mem(fn);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if (sd->counts[i] == 0) /* an empty block may name any type */
            m->dts[i] = fy_dtype_get(MPI_BYTE);
        else
            rc = fy_api_dtype(fn, a->types[i], &m->dts[i]);
    }
    sd->dts = m->dts;
    return rc;
}

static int neighbor(const char *fn, int kind, const args_t *sa, const args_t *ra, MPI_Comm comm,
                    MPI_Info info, fy_coll_mode_t mode, MPI_Request *request)
{
    fy_comm_t *c;
    fy_neighbors_t nb = {0};
    fy_nbr_side_t snd, rcv;
    side_mem_t sm = {0}, rm = {0};
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS && mode != FY_COLL_BLOCKING)
        rc = nonnull(fn, request, "request");
    if (rc == MPI_SUCCESS && (sa->buf == MPI_IN_PLACE || ra->buf == MPI_IN_PLACE))
        rc = fy_err_set(MPI_ERR_BUFFER,
                        "%s: MPI_IN_PLACE is not allowed for a neighbourhood collective (as %s)",
                        fn, sa->buf == MPI_IN_PLACE ? "sendbuf" : "recvbuf");
    if (rc == MPI_SUCCESS)
        rc = fy_neighbors_get(fn, c, &nb);
    if (rc == MPI_SUCCESS)
        rc = side(fn, kind, true, sa, nb.outdegree, &snd, &sm);
    if (rc == MPI_SUCCESS)
        rc = side(fn, kind, false, ra, nb.indegree, &rcv, &rm);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        if (mode == FY_COLL_PERSISTENT && info != MPI_INFO_NULL && !fy_info_get(info))
            rc = fy_err_set(MPI_ERR_INFO, "%s: invalid info 0x%x (freed, or not an info object)",
                            fn, (unsigned)info);
        fy_sched_t *s = rc == MPI_SUCCESS ? fy_api_sched_new(fn, c, &rc) : NULL;
        if (s) {
            fy_neighbor_sched(s, &nb, &snd, &rcv);
            rc = mode == FY_COLL_BLOCKING ? fy_sched_run(s) : fy_api_sched_go(s, mode, request);
        }
        fy_unlock();
    }
    free(sm.wide);
    free(sm.dts);
    free(rm.wide);
    free(rm.dts);
    fy_neighbors_free(&nb);
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

/* ---- the five collectives, each for its plain, _c, nonblocking and persistent entries ---- */

static int allgather(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info,
                     fy_coll_mode_t mode, MPI_Request *request)
{
    args_t s = {.buf = sbuf, .count = scount, .type = stype};
    args_t r = {.buf = rbuf, .count = rcount, .type = rtype};
    return neighbor(fn, ALLGATHER, &s, &r, comm, info, mode, request);
}

static int allgatherv(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                      void *rbuf, const int *ircounts, const MPI_Count *rcounts, const int *idispls,
                      const MPI_Aint *displs, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info,
                      fy_coll_mode_t mode, MPI_Request *request)
{
    args_t s = {.buf = sbuf, .count = scount, .type = stype};
    args_t r = {.buf = rbuf,
                .icounts = ircounts,
                .counts = rcounts,
                .idispls = idispls,
                .displs = displs,
                .type = rtype};
    return neighbor(fn, ALLGATHERV, &s, &r, comm, info, mode, request);
}

static int alltoall(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                    void *rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info,
                    fy_coll_mode_t mode, MPI_Request *request)
{
    args_t s = {.buf = sbuf, .count = scount, .type = stype};
    args_t r = {.buf = rbuf, .count = rcount, .type = rtype};
    return neighbor(fn, ALLTOALL, &s, &r, comm, info, mode, request);
}

static int alltoallv(const char *fn, const void *sbuf, const int *iscounts,
                     const MPI_Count *scounts, const int *isdispls, const MPI_Aint *sdispls,
                     MPI_Datatype stype, void *rbuf, const int *ircounts, const MPI_Count *rcounts,
                     const int *irdispls, const MPI_Aint *rdispls, MPI_Datatype rtype,
                     MPI_Comm comm, MPI_Info info, fy_coll_mode_t mode, MPI_Request *request)
{
    args_t s = {.buf = sbuf,
                .icounts = iscounts,
                .counts = scounts,
                .idispls = isdispls,
                .displs = sdispls,
                .type = stype};
    args_t r = {.buf = rbuf,
                .icounts = ircounts,
                .counts = rcounts,
                .idispls = irdispls,
                .displs = rdispls,
                .type = rtype};
    return neighbor(fn, ALLTOALLV, &s, &r, comm, info, mode, request);
}

static int alltoallw(const char *fn, const void *sbuf, const int *iscounts,
                     const MPI_Count *scounts, const MPI_Aint *sdispls, const MPI_Datatype *stypes,
                     void *rbuf, const int *ircounts, const MPI_Count *rcounts,
                     const MPI_Aint *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm,
                     MPI_Info info, fy_coll_mode_t mode, MPI_Request *request)
{
    args_t s = {
        .buf = sbuf, .icounts = iscounts, .counts = scounts, .displs = sdispls, .types = stypes};
    args_t r = {
        .buf = rbuf, .icounts = ircounts, .counts = rcounts, .displs = rdispls, .types = rtypes};
    return neighbor(fn, ALLTOALLW, &s, &r, comm, info, mode, request);
}

/* ---- Neighbor_allgather ---- */

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather("MPI_Neighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, MPI_INFO_NULL, FY_COLL_BLOCKING, NULL);
}

int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    return allgather("MPI_Neighbor_allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, MPI_INFO_NULL, FY_COLL_BLOCKING, NULL);
}

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    return allgather("MPI_Ineighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, MPI_INFO_NULL, FY_COLL_NONBLOCKING, request);
}

int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request)
{
    return allgather("MPI_Ineighbor_allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, MPI_INFO_NULL, FY_COLL_NONBLOCKING, request);
}

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    return allgather("MPI_Neighbor_allgather_init", sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, comm, info, FY_COLL_PERSISTENT, request);
}

int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return allgather("MPI_Neighbor_allgather_init_c", sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, comm, info, FY_COLL_PERSISTENT, request);
}

/* ---- Neighbor_allgatherv ---- */

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgatherv("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                      NULL, displs, NULL, recvtype, comm, MPI_INFO_NULL, FY_COLL_BLOCKING, NULL);
}

int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgatherv("MPI_Neighbor_allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, NULL,
                      recvcounts, NULL, displs, recvtype, comm, MPI_INFO_NULL, FY_COLL_BLOCKING,
                      NULL);
}

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return allgatherv("MPI_Ineighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                      NULL, displs, NULL, recvtype, comm, MPI_INFO_NULL, FY_COLL_NONBLOCKING,
                      request);
}

int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *request)
{
    return allgatherv("MPI_Ineighbor_allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, NULL,
                      recvcounts, NULL, displs, recvtype, comm, MPI_INFO_NULL, FY_COLL_NONBLOCKING,
                      request);
}

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    return allgatherv("MPI_Neighbor_allgatherv_init", sendbuf, sendcount, sendtype, recvbuf,
                      recvcounts, NULL, displs, NULL, recvtype, comm, info, FY_COLL_PERSISTENT,
                      request);
}

int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request)
{
    return allgatherv("MPI_Neighbor_allgatherv_init_c", sendbuf, sendcount, sendtype, recvbuf, NULL,
                      recvcounts, NULL, displs, recvtype, comm, info, FY_COLL_PERSISTENT, request);
}

/* ---- Neighbor_alltoall ---- */

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall("MPI_Neighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, MPI_INFO_NULL, FY_COLL_BLOCKING, NULL);
}

int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    return alltoall("MPI_Neighbor_alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, MPI_INFO_NULL, FY_COLL_BLOCKING, NULL);
}

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    return alltoall("MPI_Ineighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, MPI_INFO_NULL, FY_COLL_NONBLOCKING, request);
}

int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    return alltoall("MPI_Ineighbor_alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, MPI_INFO_NULL, FY_COLL_NONBLOCKING, request);
}

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    return alltoall("MPI_Neighbor_alltoall_init", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, info, FY_COLL_PERSISTENT, request);
}

int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return alltoall("MPI_Neighbor_alltoall_init_c", sendbuf, sendcount, sendtype, recvbuf,
                    recvcount, recvtype, comm, info, FY_COLL_PERSISTENT, request);
}

/* ---- Neighbor_alltoallv ---- */

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoallv("MPI_Neighbor_alltoallv", sendbuf, sendcounts, NULL, sdispls, NULL, sendtype,
                     recvbuf, recvcounts, NULL, rdispls, NULL, recvtype, comm, MPI_INFO_NULL,
                     FY_COLL_BLOCKING, NULL);
}

int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoallv("MPI_Neighbor_alltoallv_c", sendbuf, NULL, sendcounts, NULL, sdispls, sendtype,
                     recvbuf, NULL, recvcounts, NULL, rdispls, recvtype, comm, MPI_INFO_NULL,
                     FY_COLL_BLOCKING, NULL);
}

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    return alltoallv("MPI_Ineighbor_alltoallv", sendbuf, sendcounts, NULL, sdispls, NULL, sendtype,
                     recvbuf, recvcounts, NULL, rdispls, NULL, recvtype, comm, MPI_INFO_NULL,
                     FY_COLL_NONBLOCKING, request);
}

int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return alltoallv("MPI_Ineighbor_alltoallv_c", sendbuf, NULL, sendcounts, NULL, sdispls,
                     sendtype, recvbuf, NULL, recvcounts, NULL, rdispls, recvtype, comm,
                     MPI_INFO_NULL, FY_COLL_NONBLOCKING, request);
}

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    return alltoallv("MPI_Neighbor_alltoallv_init", sendbuf, sendcounts, NULL, sdispls, NULL,
                     sendtype, recvbuf, recvcounts, NULL, rdispls, NULL, recvtype, comm, info,
                     FY_COLL_PERSISTENT, request);
}

int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    return alltoallv("MPI_Neighbor_alltoallv_init_c", sendbuf, NULL, sendcounts, NULL, sdispls,
                     sendtype, recvbuf, NULL, recvcounts, NULL, rdispls, recvtype, comm, info,
                     FY_COLL_PERSISTENT, request);
}

/* ---- Neighbor_alltoallw: a type per block, displacements in bytes (MPI_Aint in every form) */

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoallw("MPI_Neighbor_alltoallw", sendbuf, sendcounts, NULL, sdispls, sendtypes,
                     recvbuf, recvcounts, NULL, rdispls, recvtypes, comm, MPI_INFO_NULL,
                     FY_COLL_BLOCKING, NULL);
}

int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoallw("MPI_Neighbor_alltoallw_c", sendbuf, NULL, sendcounts, sdispls, sendtypes,
                     recvbuf, NULL, recvcounts, rdispls, recvtypes, comm, MPI_INFO_NULL,
                     FY_COLL_BLOCKING, NULL);
}

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request *request)
{
    return alltoallw("MPI_Ineighbor_alltoallw", sendbuf, sendcounts, NULL, sdispls, sendtypes,
                     recvbuf, recvcounts, NULL, rdispls, recvtypes, comm, MPI_INFO_NULL,
                     FY_COLL_NONBLOCKING, request);
}

int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm, MPI_Request *request)
{
    return alltoallw("MPI_Ineighbor_alltoallw_c", sendbuf, NULL, sendcounts, sdispls, sendtypes,
                     recvbuf, NULL, recvcounts, rdispls, recvtypes, comm, MPI_INFO_NULL,
                     FY_COLL_NONBLOCKING, request);
}

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    return alltoallw("MPI_Neighbor_alltoallw_init", sendbuf, sendcounts, NULL, sdispls, sendtypes,
                     recvbuf, recvcounts, NULL, rdispls, recvtypes, comm, info, FY_COLL_PERSISTENT,
                     request);
}

int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return alltoallw("MPI_Neighbor_alltoallw_init_c", sendbuf, NULL, sendcounts, sdispls, sendtypes,
                     recvbuf, NULL, recvcounts, rdispls, recvtypes, comm, info, FY_COLL_PERSISTENT,
                     request);
}
