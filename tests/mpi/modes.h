/* One message from rank `from` to rank `to` in any of the eight send variants; both ranks call
 * mt_xfer with the same arguments, other ranks don't. The receiver checks data, status source,
 * tag and count. A ready-mode send waits for a token from the receiver, sent after its receive
 * is posted. Buffered sends need a buffer attached by the caller. */
#ifndef MODES_H
#define MODES_H
#include "mpitest.h"

enum mt_mode { M_SEND, M_BSEND, M_SSEND, M_RSEND, M_ISEND, M_IBSEND, M_ISSEND, M_IRSEND, M_NMODES };
static const char *const mt_mode_name[M_NMODES] = {"Send",  "Bsend",  "Ssend",  "Rsend",
                                                   "Isend", "Ibsend", "Issend", "Irsend"};
#define MT_TOKEN_TAG 32000

static inline int mt_is_ready(int mode)
{
    return mode == M_RSEND || mode == M_IRSEND;
}

static inline int mt_send_mode(int mode, const void *buf, int count, MPI_Datatype dt, int dest,
                               int tag, MPI_Comm comm)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int rc;
    switch (mode) {
    case M_SEND: return MPI_Send(buf, count, dt, dest, tag, comm);
    case M_BSEND: return MPI_Bsend(buf, count, dt, dest, tag, comm);
    case M_SSEND: return MPI_Ssend(buf, count, dt, dest, tag, comm);
    case M_RSEND: return MPI_Rsend(buf, count, dt, dest, tag, comm);
    case M_ISEND: rc = MPI_Isend(buf, count, dt, dest, tag, comm, &r); break;
    case M_IBSEND: rc = MPI_Ibsend(buf, count, dt, dest, tag, comm, &r); break;
    case M_ISSEND: rc = MPI_Issend(buf, count, dt, dest, tag, comm, &r); break;
    default: rc = MPI_Irsend(buf, count, dt, dest, tag, comm, &r); break;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    /* Half the nonblocking sends complete with a Test loop, half with Wait. */
    if (tag & 1) {
        int flag = 0;
        while (!flag && rc == MPI_SUCCESS)
            rc = MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && r != MPI_REQUEST_NULL)
            mt_fail(__FILE__, __LINE__, "%s: MPI_Test completed but request is not NULL",
                    mt_mode_name[mode]);
        return rc;
    }
    return MPI_Wait(&r, MPI_STATUS_IGNORE);
}

/* Transfers `bytes` bytes (as `bytes / 4` MPI_INT when `as_int` and divisible, else MPI_BYTE). */
static inline void mt_xfer(int mode, int from, int to, size_t bytes, unsigned seed, int tag,
                           MPI_Comm comm, int nonblocking_recv)
{
    int me;
    MPI_Comm_rank(comm, &me);
    MPI_Datatype dt = (bytes % 4 == 0 && (seed & 1)) ? MPI_INT : MPI_BYTE;
    int esize = dt == MPI_INT ? 4 : 1;
    int count = (int)(bytes / (size_t)esize);
    if (me == from) {
        unsigned char *buf = mt_malloc(bytes);
        mt_fill(buf, bytes, seed);
        if (mt_is_ready(mode)) {
            char tok;
            MPI_OK(MPI_Recv(&tok, 0, MPI_BYTE, to, MT_TOKEN_TAG, comm, MPI_STATUS_IGNORE));
        }
        int rc = mt_send_mode(mode, buf, count, dt, to, tag, comm);
        CHECK(rc == MPI_SUCCESS, "%s of %zu bytes to %d returned %d", mt_mode_name[mode], bytes, to,
              rc);
        free(buf);
    }
    if (me == to) {
        unsigned char *buf = mt_malloc(bytes + 16);
        memset(buf, 0xee, bytes + 16);
        MPI_Status st;
        MPI_Request r;
        if (nonblocking_recv || mt_is_ready(mode)) {
            MPI_OK(MPI_Irecv(buf, count, dt, from, tag, comm, &r));
            if (mt_is_ready(mode))
                MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, from, MT_TOKEN_TAG, comm));
            MPI_OK(MPI_Wait(&r, &st));
        } else {
            MPI_OK(MPI_Recv(buf, count, dt, from, tag, comm, &st));
        }
        int got = -1;
        MPI_Get_count(&st, dt, &got);
        CHECK(st.MPI_SOURCE == from && st.MPI_TAG == tag && got == count,
              "%s of %zu bytes: status source %d tag %d count %d, expected %d %d %d",
              mt_mode_name[mode], bytes, st.MPI_SOURCE, st.MPI_TAG, got, from, tag, count);
        CHECK_DATA(buf, bytes, seed, "%s of %zu bytes from %d", mt_mode_name[mode], bytes, from);
        int guard_ok = 1;
        for (int i = 0; i < 16; i++)
            guard_ok &= buf[bytes + i] == 0xee;
        CHECK(guard_ok, "%s of %zu bytes wrote past the end of the message", mt_mode_name[mode],
              bytes);
        free(buf);
    }
}

/* Attaches a buffer for `nmsgs` buffered messages of up to `bytes` bytes; returns it. */
static inline void *mt_attach(size_t bytes, int nmsgs)
{
    int size = (int)((bytes + MPI_BSEND_OVERHEAD + 64) * (size_t)nmsgs);
    void *b = mt_malloc((size_t)size);
    MPI_OK(MPI_Buffer_attach(b, size));
    return b;
}

static inline void mt_detach(void *b)
{
    void *p = NULL;
    int size = 0;
    MPI_OK(MPI_Buffer_detach(&p, &size));
    CHECK(p == b, "MPI_Buffer_detach returned a different buffer");
    free(b);
}
#endif
