/* The one-sided operations: Put, Get, Accumulate, Get_accumulate, Fetch_and_op,
 * Compare_and_swap, their request forms (Rput, Rget, Raccumulate, Rget_accumulate) and the
 * large-count (_c) forms. Arguments are checked here; the epoch, the target range and the
 * type signatures in src/osc (fy_rma_issue), which names the function in every message. A
 * target of MPI_PROC_NULL makes the call do nothing (a request form returns a completed
 * request). */
#include "fy_api.h"
#include "fy_op.h"
#include "fy_osc.h"
#include "fy_win_api.h"

#define NO_BUF ((void *)-1) /* the call has no such buffer */

/* One side's buffer: count and datatype. */
static int side(const char *fn, MPI_Aint count, MPI_Datatype dt, const fy_dtype_t **d_p)
{
    int rc = fy_api_count(fn, count);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype(fn, dt, d_p);
    return rc;
}

static int rma(fy_rma_op_t *op, MPI_Win win, MPI_Datatype odt, MPI_Datatype rdt,
               MPI_Datatype tdt, MPI_Request *request, bool want_req)
{
    const char *fn = op->fn;
    fy_win_t *w;
    int rc = fy_api_win(fn, win, &w);
    bool noop = op->op == MPI_NO_OP && op->kind != FY_RMA_CAS;
    if (rc == MPI_SUCCESS && op->target != MPI_PROC_NULL &&
        (op->target < 0 || op->target >= w->size))
        rc = fy_err_set(MPI_ERR_RANK, "%s: invalid target rank %d (the window has %d ranks)",
                        fn, op->target, w->size);
    if (rc == MPI_SUCCESS && op->obuf != NO_BUF && !noop)
        rc = side(fn, op->ocount, odt, &op->odt);
    if (rc == MPI_SUCCESS && noop && odt != MPI_DATATYPE_NULL)
        op->odt = fy_dtype_get(odt); /* may be anything: NO_OP ignores the origin */
    if (rc == MPI_SUCCESS && op->rbuf != NO_BUF)
        rc = side(fn, op->rcount, rdt, &op->rdt);
    if (rc == MPI_SUCCESS)
        rc = side(fn, op->tcount, tdt, &op->tdt);
    if (rc == MPI_SUCCESS && want_req && !request)
        rc = fy_err_set(MPI_ERR_ARG, "%s: request is NULL", fn);
    if (rc == MPI_SUCCESS && (op->kind == FY_RMA_FOP || op->kind == FY_RMA_CAS) &&
        !op->tdt->predefined)
        rc = fy_err_set(MPI_ERR_TYPE, "%s: the datatype must be predefined (a single element)",
                        fn);
    if (rc == MPI_SUCCESS && (op->kind == FY_RMA_FOP || op->kind == FY_RMA_CAS) && !op->rbuf)
        rc = fy_err_set(MPI_ERR_BUFFER, "%s: result_addr is NULL", fn);
    if (rc == MPI_SUCCESS && op->kind == FY_RMA_CAS && !fy_acc_cas_kind(op->tdt->basic))
        rc = fy_err_set(MPI_ERR_TYPE,
                        "%s: %s is not an integer, logical or byte type, as compare-and-swap "
                        "requires",
                        fn, op->tdt->name);
    if (rc != MPI_SUCCESS)
        return fy_api_raise_win(win, rc);
    if (op->rbuf == NO_BUF)
        op->rbuf = NULL;
    if (op->obuf == NO_BUF)
        op->obuf = NULL;
    fy_req_t *r = NULL;
    fy_lock();
    if (want_req) {
        r = fy_req_alloc(FY_REQ_RMA);
        if (!r) {
            fy_unlock();
            return fy_api_raise_win(win, fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn));
        }
        fy_status_set(&r->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
        op->req = r;
    }
    if (op->target == MPI_PROC_NULL) {
        if (r)
            fy_req_complete(r);
    } else {
        rc = fy_rma_issue(w, op);
    }
    if (rc != MPI_SUCCESS && r) {
        fy_req_free(r);
        r = NULL;
    }
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_api_raise_win(win, rc);
    if (r)
        *request = r->handle;
    return MPI_SUCCESS;
}

static int put(const char *fn, const void *oaddr, MPI_Aint ocount, MPI_Datatype odt, int trank,
               MPI_Aint tdisp, MPI_Aint tcount, MPI_Datatype tdt, MPI_Win win, MPI_Request *req,
               bool want_req)
{
    fy_rma_op_t op = {.kind = FY_RMA_PUT, .fn = fn, .obuf = oaddr, .ocount = ocount,
                      .rbuf = NO_BUF, .target = trank, .toff = tdisp, .tcount = tcount};
    return rma(&op, win, odt, MPI_DATATYPE_NULL, tdt, req, want_req);
}

static int get(const char *fn, void *oaddr, MPI_Aint ocount, MPI_Datatype odt, int trank,
               MPI_Aint tdisp, MPI_Aint tcount, MPI_Datatype tdt, MPI_Win win, MPI_Request *req,
               bool want_req)
{
    fy_rma_op_t op = {.kind = FY_RMA_GET, .fn = fn, .obuf = NO_BUF, .rbuf = oaddr,
                      .rcount = ocount, .target = trank, .toff = tdisp, .tcount = tcount};
    return rma(&op, win, MPI_DATATYPE_NULL, odt, tdt, req, want_req);
}

static int acc(const char *fn, const void *oaddr, MPI_Aint ocount, MPI_Datatype odt, int trank,
               MPI_Aint tdisp, MPI_Aint tcount, MPI_Datatype tdt, MPI_Op o, MPI_Win win,
               MPI_Request *req, bool want_req)
{
    fy_rma_op_t op = {.kind = FY_RMA_ACC, .fn = fn, .obuf = oaddr, .ocount = ocount,
                      .rbuf = NO_BUF, .target = trank, .toff = tdisp, .tcount = tcount, .op = o};
    return rma(&op, win, odt, MPI_DATATYPE_NULL, tdt, req, want_req);
}

static int gacc(const char *fn, const void *oaddr, MPI_Aint ocount, MPI_Datatype odt,
                void *raddr, MPI_Aint rcount, MPI_Datatype rdt, int trank, MPI_Aint tdisp,
                MPI_Aint tcount, MPI_Datatype tdt, MPI_Op o, MPI_Win win, MPI_Request *req,
                bool want_req)
{
    fy_rma_op_t op = {.kind = FY_RMA_GACC, .fn = fn, .obuf = oaddr, .ocount = ocount,
                      .rbuf = raddr, .rcount = rcount, .target = trank, .toff = tdisp,
                      .tcount = tcount, .op = o};
    return rma(&op, win, odt, rdt, tdt, req, want_req);
}

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    /* One thread (else the lock is needed): the fast path needs none. */
    if (!fy_rt.locking &&
        fy_rma_copy_fast(fy_win_get(win), false, (void *)origin_addr, origin_count,
                         fy_dtype_get(origin_datatype), target_rank, target_disp, target_count,
                         fy_dtype_get(target_datatype)))
        return MPI_SUCCESS;
    return put("MPI_Put", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, win, NULL, false);
}

int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    return put("MPI_Put_c", origin_addr, origin_count, origin_datatype, target_rank,
               target_disp, target_count, target_datatype, win, NULL, false);
}

int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return put("MPI_Rput", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, win, request, true);
}

int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return put("MPI_Rput_c", origin_addr, origin_count, origin_datatype, target_rank,
               target_disp, target_count, target_datatype, win, request, true);
}

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    if (!fy_rt.locking &&
        fy_rma_copy_fast(fy_win_get(win), true, origin_addr, origin_count,
                         fy_dtype_get(origin_datatype), target_rank, target_disp, target_count,
                         fy_dtype_get(target_datatype)))
        return MPI_SUCCESS;
    return get("MPI_Get", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, win, NULL, false);
}

int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    return get("MPI_Get_c", origin_addr, origin_count, origin_datatype, target_rank,
               target_disp, target_count, target_datatype, win, NULL, false);
}

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    return get("MPI_Rget", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, win, request, true);
}

int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return get("MPI_Rget_c", origin_addr, origin_count, origin_datatype, target_rank,
               target_disp, target_count, target_datatype, win, request, true);
}

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    if (!fy_rt.locking && origin_datatype == target_datatype && origin_count == target_count &&
        origin_addr &&
        fy_rma_acc_fast(fy_win_get(win), origin_addr, NULL, NULL, origin_count,
                        fy_dtype_get(origin_datatype), target_rank, target_disp, op))
        return MPI_SUCCESS;
    return acc("MPI_Accumulate", origin_addr, origin_count, origin_datatype, target_rank,
               target_disp, target_count, target_datatype, op, win, NULL, false);
}

int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count,
                      MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                      MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                      MPI_Win win)
{
    return acc("MPI_Accumulate_c", origin_addr, origin_count, origin_datatype, target_rank,
               target_disp, target_count, target_datatype, op, win, NULL, false);
}

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request *request)
{
    return acc("MPI_Raccumulate", origin_addr, origin_count, origin_datatype, target_rank,
               target_disp, target_count, target_datatype, op, win, request, true);
}

int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                       MPI_Win win, MPI_Request *request)
{
    return acc("MPI_Raccumulate_c", origin_addr, origin_count, origin_datatype, target_rank,
               target_disp, target_count, target_datatype, op, win, request, true);
}

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    if (!fy_rt.locking && result_datatype == target_datatype && result_count == target_count &&
        result_addr &&
        (op == MPI_NO_OP || (origin_datatype == target_datatype && origin_count == target_count &&
                             origin_addr)) &&
        fy_rma_acc_fast(fy_win_get(win), op == MPI_NO_OP ? NULL : origin_addr, result_addr, NULL,
                        target_count, fy_dtype_get(target_datatype), target_rank, target_disp,
                        op))
        return MPI_SUCCESS;
    return gacc("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype, result_addr,
                result_count, result_datatype, target_rank, target_disp, target_count,
                target_datatype, op, win, NULL, false);
}

int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr,
                          MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                          MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return gacc("MPI_Get_accumulate_c", origin_addr, origin_count, origin_datatype, result_addr,
                result_count, result_datatype, target_rank, target_disp, target_count,
                target_datatype, op, win, NULL, false);
}

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, void *result_addr, int result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPI_Win win, MPI_Request *request)
{
    return gacc("MPI_Rget_accumulate", origin_addr, origin_count, origin_datatype, result_addr,
                result_count, result_datatype, target_rank, target_disp, target_count,
                target_datatype, op, win, request, true);
}

int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, void *result_addr,
                           MPI_Count result_count, MPI_Datatype result_datatype,
                           int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                           MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                           MPI_Request *request)
{
    return gacc("MPI_Rget_accumulate_c", origin_addr, origin_count, origin_datatype,
                result_addr, result_count, result_datatype, target_rank, target_disp,
                target_count, target_datatype, op, win, request, true);
}

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    if (!fy_rt.locking && fy_rma_atomic_fast(fy_win_get(win), origin_addr, result_addr, NULL,
                                             fy_dtype_get(datatype), target_rank, target_disp, op))
        return MPI_SUCCESS;
    fy_rma_op_t o = {.kind = FY_RMA_FOP, .fn = "MPI_Fetch_and_op", .obuf = origin_addr,
                     .ocount = 1, .rbuf = result_addr, .rcount = 1, .target = target_rank,
                     .toff = target_disp, .tcount = 1, .op = op};
    return rma(&o, win, datatype, datatype, datatype, NULL, false);
}

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Win win)
{
    if (!fy_rt.locking && origin_addr && compare_addr &&
        fy_rma_atomic_fast(fy_win_get(win), origin_addr, result_addr, compare_addr,
                           fy_dtype_get(datatype), target_rank, target_disp, MPI_REPLACE))
        return MPI_SUCCESS;
    fy_rma_op_t o = {.kind = FY_RMA_CAS, .fn = "MPI_Compare_and_swap", .obuf = origin_addr,
                     .ocount = 1, .rbuf = result_addr, .rcount = 1, .cbuf = compare_addr,
                     .target = target_rank, .toff = target_disp, .tcount = 1,
                     .op = MPI_REPLACE};
    return rma(&o, win, datatype, datatype, datatype, NULL, false);
}
