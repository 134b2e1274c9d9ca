/* Active messages for targets not reached directly (ranks of other hosts; memory that
 * neither mapping nor CMA reaches). Until they land, a window that needs them fails at
 * creation with MPI_ERR_UNSUPPORTED_OPERATION naming the call. */
#include "fy_err.h"
#include "fy_osc.h"

static int unsupported(const char *what)
{
    return fy_err_set(MPI_ERR_UNSUPPORTED_OPERATION,
                      "%s: one-sided access to ranks of other hosts, or with FERRY_CMA=0 to "
                      "memory not from MPI_Alloc_mem, is not implemented in this release of "
                      "Ferry (MPI_ERR_UNSUPPORTED_OPERATION)",
                      what);
}

int fy_osc_am_init(fy_win_t *w)
{
    (void)w;
    return unsupported("MPI_Win_create");
}
void fy_osc_am_fini(fy_win_t *w)
{
    (void)w;
}
int fy_osc_am_issue(fy_win_t *w, fy_rma_op_t *op)
{
    (void)w;
    return unsupported(op->fn);
}
int fy_osc_am_lock(fy_win_t *w, int t, int type)
{
    (void)w, (void)t, (void)type;
    return unsupported("MPI_Win_lock");
}
int fy_osc_am_unlock(fy_win_t *w, int t)
{
    (void)w, (void)t;
    return unsupported("MPI_Win_unlock");
}
int fy_osc_am_flush(fy_win_t *w, int t)
{
    (void)w, (void)t;
    return MPI_SUCCESS;
}
int fy_osc_am_post(fy_win_t *w, int o)
{
    (void)w, (void)o;
    return unsupported("MPI_Win_post");
}
int fy_osc_am_complete(fy_win_t *w, int t)
{
    (void)w, (void)t;
    return unsupported("MPI_Win_complete");
}
