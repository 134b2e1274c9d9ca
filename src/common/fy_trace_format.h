/* The raw trace format: what each rank of `mpiexec --trace DIR` writes while it runs.
 *
 * One file per world rank, DIR/ferry/rank.<R>.fyt, appended by the rank's background writer
 * (libferry_prof.so). It is the trace's primary copy: written while the job runs, it is readable
 * up to its last whole record when the job is killed. After the job, mpiexec runs ferry-otf2,
 * which reads these files (fy_trace_read.h) and writes the OTF2 archive DIR/traces.otf2;
 * `ferry view` reads them too (they are smaller and quicker to read than OTF2).
 *
 * A file is a sequence of records. Every record starts with the 8-byte head below and is a
 * whole number of 8-byte words long (`len8` words, head included), little-endian, so a reader
 * can skip a record type it does not know. The first record is FYT_HEADER; a file that ends
 * cleanly ends with FYT_END. A truncated last record (a killed job) is ignored by readers.
 *
 * Times in events are the rank's local clock ticks (`t`); FYT_SYNC records map them to the job's
 * global clock (nanoseconds since rank 0's epoch, taken at MPI_Init): with two or more syncs a
 * reader maps linearly between them (drift corrected) and extrapolates with the last two
 * beyond; with one, it uses the header's tick rate and that sync's offset. */
#ifndef FY_TRACE_FORMAT_H
#define FY_TRACE_FORMAT_H

#include <stdint.h>

#define FYT_MAGIC "FYTRACE1"
#define FYT_VERSION 1

enum fyt_type {
    FYT_HEADER = 1,   /* fyt_header_t, first record */
    FYT_NAME = 2,     /* fyt_name_t: a function or region name for an id */
    FYT_COMM = 3,     /* fyt_comm_t: a communicator's members, before any event names it */
    FYT_SYNC = 4,     /* fyt_sync_t: a clock pair */
    FYT_ENTER = 5,    /* fyt_ev_t: entering MPI function `id` */
    FYT_LEAVE = 6,    /* fyt_ev_t: leaving it */
    FYT_SEND = 7,     /* fyt_msg_t: a point-to-point send posted (blocking or not), inside its call */
    FYT_RECV = 8,     /* fyt_msg_t: a receive completed (in MPI_Recv, or the Wait/Test that
                         completed an MPI_Irecv), with the status's source, tag and size */
    FYT_COLL_BEGIN = 9, /* fyt_coll_t: a collective starts (just after ENTER) */
    FYT_COLL_END = 10,  /* fyt_coll_t: it ends (just before LEAVE) */
    FYT_RMA = 11,     /* fyt_rma_t: a one-sided operation issued (MPI_Put, MPI_Get, MPI_Accumulate..) */
    FYT_REGION_BEGIN = 12, /* fyt_ev_t: a user region `id` begins (ferry/trace.h, MPI_Pcontrol) */
    FYT_REGION_END = 13,   /* fyt_ev_t: it ends */
    FYT_NOTE = 14,    /* fyt_note_t: a text note (filter in force, size cap reached, ...) */
    FYT_END = 15,     /* fyt_ev_t with id 0: the file was closed cleanly at MPI_Finalize */
};

typedef struct fyt_head {
    uint8_t type;  /* enum fyt_type */
    uint8_t flags; /* per type; 0 unless said */
    uint16_t len8; /* the whole record's length in 8-byte words */
    uint32_t id;   /* function id (FYT_NAME's ids), region id, comm index ... per type */
} fyt_head_t;

typedef struct fyt_header {
    fyt_head_t h;           /* id: 0 */
    char magic[8];          /* FYT_MAGIC */
    uint32_t version;       /* FYT_VERSION */
    uint32_t rank, size;    /* world rank and size */
    uint32_t pid;
    double ticks_per_ns;    /* the local clock's rate, as measured at init */
    uint64_t epoch_unix_ns; /* wall clock (CLOCK_REALTIME) at this rank's init, for display */
    char host[64];          /* NUL-terminated */
    char program[128];      /* argv[0]'s base name, NUL-terminated */
} fyt_header_t;

/* A name: h.id is the id used by ENTER/LEAVE (flags 0: an MPI function) or by REGION_*
 * (flags FYT_NAME_REGION). The string follows, NUL-terminated, padded to 8 bytes. */
#define FYT_NAME_REGION 1
typedef struct fyt_name {
    fyt_head_t h;
    char name[]; /* NUL-terminated, zero padded to the record's end */
} fyt_name_t;

/* A communicator: h.id is its index in this file (events' `comm`); `uid` is equal on every member
 * rank's file (so readers match messages and collectives across files); MPI_COMM_WORLD is uid 0
 * and index 0, MPI_COMM_SELF's have uid (1<<63)|world rank. An intercommunicator lists its
 * local group then its remote group (`remote_size` > 0). */
typedef struct fyt_comm {
    fyt_head_t h;
    uint64_t uid;
    uint32_t size;        /* local group size */
    uint32_t remote_size; /* 0 for an intracommunicator */
    int32_t world[];      /* size + remote_size world ranks, padded to 8 bytes */
} fyt_comm_t;

/* A clock pair: local ticks `t` correspond to global time `global_ns`. flags: FYT_SYNC_INIT,
 * FYT_SYNC_FINAL (the two the library always writes when it can), or 0 (extra). */
#define FYT_SYNC_INIT 1
#define FYT_SYNC_FINAL 2
typedef struct fyt_sync {
    fyt_head_t h;
    uint64_t t;
    int64_t global_ns;
    uint64_t error_ns; /* half the best round trip of the measurement */
} fyt_sync_t;

/* ENTER, LEAVE, REGION_BEGIN, REGION_END, END: the id and the time. */
typedef struct fyt_ev {
    fyt_head_t h;
    uint64_t t;
} fyt_ev_t;

/* SEND and RECV: peer is the other side's world rank, tag the message's tag, comm the index of
 * the communicator (FYT_COMM), bytes the message size. h.id: the MPI function (MPI_Isend ...).
 * flags: FYT_MSG_NONBLOCKING for Isend/Irecv-family posts. A SEND and a RECV match (OTF2's
 * MpiSend/MpiRecv) by (sender, receiver, comm uid, tag) in order, as MPI's non-overtaking rule. */
#define FYT_MSG_NONBLOCKING 1
typedef struct fyt_msg {
    fyt_head_t h;
    uint64_t t;
    int32_t peer;
    int32_t tag;
    uint32_t comm;
    uint32_t pad;
    uint64_t bytes;
} fyt_msg_t;

/* COLL_BEGIN and COLL_END: h.id the MPI function; root the root's world rank or -1; sent and
 * received the bytes this rank contributes and receives (OTF2's MpiCollectiveEnd sizes). */
typedef struct fyt_coll {
    fyt_head_t h;
    uint64_t t;
    uint32_t comm;
    int32_t root;
    uint64_t sent;
    uint64_t received;
} fyt_coll_t;

/* RMA: h.id the MPI function, target the target's world rank, bytes moved, win: the window's
 * number on this rank (windows are numbered in creation order; equal on all members). */
typedef struct fyt_rma {
    fyt_head_t h;
    uint64_t t;
    int32_t target;
    uint32_t win;
    uint64_t bytes;
} fyt_rma_t;

/* A note: NUL-terminated text after the head, padded; h.id 0. flags: FYT_NOTE_CAP when the size
 * cap stopped recording (the time of that is `t`); FYT_NOTE_INFO for a note that belongs in the
 * trace and its pictures but is not worth a line on a terminal (a default in force). */
#define FYT_NOTE_CAP 1
#define FYT_NOTE_INFO 2
typedef struct fyt_note {
    fyt_head_t h;
    uint64_t t;
    char text[];
} fyt_note_t;

#endif
