/* Collectives and one-sided operations as trace events, and the entry times of blocking
 * collectives kept for the profile's load imbalance: per instance (a communicator's id and
 * the collective's number on it, equal on all members since they call collectives in the same
 * order), the time from this rank's entry to the last member's. Entries are kept in one
 * bounded array (PROF_INST_CAP; past it the instances are counted and the profile says so)
 * and sent to rank 0 at MPI_Finalize, where the clocks are aligned. */
#include "prof.h"

#include <stdlib.h>

prof_inst_t *prof_inst;
size_t prof_ninst, prof_cap_inst;

static void live_inc(_Atomic uint64_t *a)
{
    atomic_store_explicit(a, atomic_load_explicit(a, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

void prof_coll_begin(prof_frame_t *f, prof_comm_t *pc, int root_world, uint64_t sent,
                     uint64_t recvd, int blocking)
{
    f->root = root_world;
    f->bytes += sent;
    f->counted = true;
    live_inc(&prof_live.coll_calls);
    if (blocking) {
        uint32_t seq = pc->coll_seq++;
        if (prof_g.profile && pc->h != MPI_COMM_NULL && !pc->inter) {
            if (PROF_UNLIKELY(prof_g.mt))
                prof_lock();
            if (prof_ninst < prof_cap_inst)
                prof_inst[prof_ninst++] = (prof_inst_t){
                    .uid = pc->uid, .t = f->t0, .seq = seq, .id = (uint16_t)f->id,
                    .members = (uint16_t)(pc->size < 65535 ? pc->size : 65535)};
            else
                prof_g.ncoll_dropped++;
            if (PROF_UNLIKELY(prof_g.mt))
                prof_unlock();
        }
    }
    if (f->rec) {
        fyt_coll_t c = {.h = {.type = FYT_COLL_BEGIN, .len8 = sizeof c / 8, .id = (uint32_t)f->id},
                        .t = f->t0, .comm = pc->idx, .root = root_world, .sent = sent,
                        .received = recvd};
        prof_put(&c, sizeof c, false);
    }
}

void prof_coll_end(prof_frame_t *f, prof_comm_t *pc, uint64_t sent, uint64_t recvd)
{
    if (f->rec) {
        fyt_coll_t c = {.h = {.type = FYT_COLL_END, .len8 = sizeof c / 8, .id = (uint32_t)f->id},
                        .t = f->t1, .comm = pc->idx, .root = f->root, .sent = sent, .received = recvd};
        prof_put(&c, sizeof c, true);
    }
}

void prof_rma(prof_frame_t *f, MPI_Win w, int target, uint64_t bytes)
{
    f->bytes += bytes;
    f->counted = true;
    if (!f->rec || target == MPI_PROC_NULL)
        return;
    uint32_t num = 0;
    int world = -1;
    prof_win_target(w, target, &num, &world);
    fyt_rma_t r = {.h = {.type = FYT_RMA, .len8 = sizeof r / 8, .id = (uint32_t)f->id},
                   .t = f->t0, .target = world, .win = num, .bytes = bytes};
    prof_put(&r, sizeof r, false);
}
