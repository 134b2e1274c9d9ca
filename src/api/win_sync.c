/* Synchronisation entry points of windows: fence, lock/unlock (and _all), flushes, Win_sync,
 * and post/start/complete/wait/test. The work is in src/osc/osc_sync.c. */
#include <stdlib.h>

#include "fy_api.h"
#include "fy_group.h"
#include "fy_osc.h"
#include "fy_win_api.h"

#define ASSERT_BITS                                                                                \
    (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |                   \
     MPI_MODE_NOSUCCEED)

static int assert_arg(const char *fn, int assert, int allowed)
{
    if (assert & ~allowed)
        return fy_err_set(MPI_ERR_ASSERT, "%s: invalid assert 0x%x (allowed: 0x%x)", fn,
                          (unsigned)assert, (unsigned)allowed);
    return MPI_SUCCESS;
}

static int rank_arg(const char *fn, const fy_win_t *w, int rank)
{
    if (rank < 0 || rank >= w->size)
        return fy_err_set(MPI_ERR_RANK, "%s: invalid rank %d (the window has %d ranks)", fn,
                          rank, w->size);
    return MPI_SUCCESS;
}

/* Calls f with the window (checked), under the library lock, and raises its error. */
#define WIN_CALL(fn, win, checks, call)                                                            \
    do {                                                                                           \
        fy_win_t *w;                                                                               \
        int rc = fy_api_win(fn, win, &w);                                                          \
        if (rc == MPI_SUCCESS)                                                                     \
            rc = (checks);                                                                         \
        if (rc == MPI_SUCCESS) {                                                                   \
            fy_lock();                                                                             \
            rc = (call);                                                                           \
            fy_unlock();                                                                           \
        }                                                                                          \
        return fy_api_raise_win(win, rc);                                                          \
    } while (0)

int PMPI_Win_fence(int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_fence";
    WIN_CALL(fn, win, assert_arg(fn, assert, ASSERT_BITS & ~MPI_MODE_NOCHECK),
             fy_win_fence(fn, w, assert));
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_lock";
    int bad = lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED;
    WIN_CALL(fn, win,
             bad ? fy_err_set(MPI_ERR_LOCKTYPE,
                              "%s: invalid lock_type %d (MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED)",
                              fn, lock_type)
             : rank_arg(fn, w, rank) != MPI_SUCCESS ? MPI_ERR_RANK
                                                    : assert_arg(fn, assert, MPI_MODE_NOCHECK),
             fy_win_lock(fn, w, lock_type, rank, assert));
}

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    const char *fn = "MPI_Win_unlock";
    WIN_CALL(fn, win, rank_arg(fn, w, rank), fy_win_unlock(fn, w, rank));
}

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_lock_all";
    WIN_CALL(fn, win, assert_arg(fn, assert, MPI_MODE_NOCHECK), fy_win_lock_all(fn, w, assert));
}

int PMPI_Win_unlock_all(MPI_Win win)
{
    const char *fn = "MPI_Win_unlock_all";
    WIN_CALL(fn, win, MPI_SUCCESS, fy_win_unlock_all(fn, w));
}

/* Flushes of targets reached directly: the operations are complete already; what is left is
 * ordering plain stores (fy_osc.h, fy_osc_before_loads). */
static inline bool flush_fast(MPI_Win win, int rank)
{
    fy_win_t *w = fy_win_get(win);
    if (fy_rt.locking || !w || w->am || (unsigned)rank >= (unsigned)w->size ||
        w->t[rank].lock == FY_WLOCK_NONE)
        return false;
    if (FY_OSC_FLUSH_FENCES)
        fy_osc_before_loads(w);
    return true;
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
    if (flush_fast(win, rank))
        return MPI_SUCCESS;
    const char *fn = "MPI_Win_flush";
    WIN_CALL(fn, win, rank_arg(fn, w, rank), fy_win_flush(fn, w, rank, false));
}

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    if (flush_fast(win, rank))
        return MPI_SUCCESS;
    const char *fn = "MPI_Win_flush_local";
    WIN_CALL(fn, win, rank_arg(fn, w, rank), fy_win_flush(fn, w, rank, true));
}

int PMPI_Win_flush_all(MPI_Win win)
{
    const char *fn = "MPI_Win_flush_all";
    WIN_CALL(fn, win, MPI_SUCCESS, fy_win_flush(fn, w, -1, false));
}

int PMPI_Win_flush_local_all(MPI_Win win)
{
    const char *fn = "MPI_Win_flush_local_all";
    WIN_CALL(fn, win, MPI_SUCCESS, fy_win_flush(fn, w, -1, true));
}

int PMPI_Win_sync(MPI_Win win)
{
    const char *fn = "MPI_Win_sync";
    WIN_CALL(fn, win, MPI_SUCCESS, fy_win_sync(fn, w));
}

/* The window ranks of a group's members (MPI_ERR_GROUP when one is not in the window). */
static int group_ranks(const char *fn, fy_win_t *w, MPI_Group group, int **ranks_p, int *n_p)
{
    fy_group_t *g = fy_group_get(group);
    if (!g)
        return fy_err_set(MPI_ERR_GROUP, "%s: invalid group 0x%x", fn, (unsigned)group);
    int *world = NULL;
    int rc = fy_group_world_of(fn, g, &world);
    if (rc != MPI_SUCCESS)
        return rc;
    int n = g->size;
    int *ranks = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!ranks) {
        free(world);
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        int wr = world ? world[i] : i, found = -1;
        for (int r = 0; r < w->size && found < 0; r++)
            if (w->t[r].world == wr)
                found = r;
        if (found < 0)
            rc = fy_err_set(MPI_ERR_GROUP,
                            "%s: member %d of the group (world rank %d) is not in the window",
                            fn, i, wr);
        ranks[i] = found;
    }
    free(world);
    if (rc != MPI_SUCCESS) {
        free(ranks);
        return rc;
    }
    *ranks_p = ranks;
    *n_p = n;
    return MPI_SUCCESS;
}

static int pscw_open(const char *fn, MPI_Group group, int assert, MPI_Win win, int allowed,
                     int (*open)(const char *, fy_win_t *, const int *, int, int))
{
    fy_win_t *w;
    int rc = fy_api_win(fn, win, &w);
    if (rc == MPI_SUCCESS)
        rc = assert_arg(fn, assert, allowed);
    if (rc == MPI_SUCCESS) {
        int *ranks = NULL, n = 0;
        fy_lock();
        rc = group_ranks(fn, w, group, &ranks, &n);
        if (rc == MPI_SUCCESS) {
            rc = open(fn, w, ranks, n, assert);
            free(ranks);
        }
        fy_unlock();
    }
    return fy_api_raise_win(win, rc);
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    return pscw_open("MPI_Win_post", group, assert, win,
                     MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT, fy_win_post);
}

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    return pscw_open("MPI_Win_start", group, assert, win, MPI_MODE_NOCHECK, fy_win_start);
}

int PMPI_Win_complete(MPI_Win win)
{
    const char *fn = "MPI_Win_complete";
    WIN_CALL(fn, win, MPI_SUCCESS, fy_win_complete(fn, w));
}

int PMPI_Win_wait(MPI_Win win)
{
    const char *fn = "MPI_Win_wait";
    WIN_CALL(fn, win, MPI_SUCCESS, fy_win_wait(fn, w, NULL, true));
}

int PMPI_Win_test(MPI_Win win, int *flag)
{
    const char *fn = "MPI_Win_test";
    WIN_CALL(fn, win, flag ? MPI_SUCCESS : fy_err_set(MPI_ERR_ARG, "%s: flag is NULL", fn),
             fy_win_wait(fn, w, flag, false));
}
