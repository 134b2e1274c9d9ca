/* ferry-otf2: the raw per-rank trace files of `mpiexec --trace DIR` (fy_trace_format.h) as an OTF2
 * archive DIR/traces.otf2, written with the OTF2 library. ferry_otf2.c: the program, the
 * definitions; ferry_otf2_events.c: one rank's events (each worker thread takes ranks in turn). */
#ifndef FERRY_OTF2_H
#define FERRY_OTF2_H

#include <otf2/otf2.h>

#include "fy_trace_read.h"

/* What a rank's event pass found, for the definitions written after it. */
typedef struct fyo_rank_out {
    uint64_t events;     /* OTF2 events written for the rank */
    uint32_t max_win;    /* 1 + the largest RMA window number used, 0 for none */
    int closed;          /* calls left open that were closed at the rank's last time */
    char err[256];       /* set on failure */
} fyo_rank_out_t;

/* The OTF2 region of every global name is its index; the comm of every global comm likewise;
 * window w is RmaWin w. Timestamps are global ns minus tr->ns_min. */
int fyo_write_rank(OTF2_Archive *ar, fy_trace_t *tr, int rank, fyo_rank_out_t *out);

/* OTF2's collective operation for an MPI collective's name. */
OTF2_CollectiveOp fyo_coll_op(const char *mpi_name);

#endif
