/* Transports: how a record (a header and up to max_payload bytes) reaches another rank.
 *
 * The point-to-point layer above owns matching and protocols; a transport only moves records
 * and, where it can, copies straight out of another process's memory for rendezvous. Records
 * from one sender to one receiver arrive in the order they were sent (the non-overtaking rule
 * rests on this). Every function is called with the library lock held (when there is one) and
 * never blocks.
 */
#ifndef FY_XPORT_H
#define FY_XPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    FY_MSG_EAGER = 1,  /* whole message inline */
    FY_MSG_RTS,        /* rendezvous request: sender's buffer address and length */
    FY_MSG_CTS,        /* receiver cannot read remotely: please stream DATA */
    FY_MSG_DATA,       /* one fragment of a streamed rendezvous message */
    FY_MSG_FIN,        /* receiver finished reading a rendezvous message */
    FY_MSG_ACK,        /* receiver matched a synchronous eager message */
    FY_MSG_CANCEL,     /* sender asks to withdraw an unmatched message (sreq) */
    FY_MSG_CANCEL_ACK, /* answer: FY_MSGF_CANCELLED set when it was withdrawn */
    FY_MSG_RDONE,      /* split rendezvous: the sender copied the last chunk (rreq) */
};
/* FY_MSGF_STREAM on an RTS: the sender's data is not one contiguous block (a derived type),
 * so it cannot be read remotely; the receiver answers CTS and the sender packs fragments. */
/* FY_MSGF_SPLIT on an RTS: the sender holds rendezvous slot `frag` in the receiver's table
 * (fy_rndv_slot_t), so both sides may copy: the receiver pulls chunks from the back, a running
 * sender pushes from the front (docs/DESIGN.md, "Split rendezvous"). */
/* FY_MSGF_IOV on an RTS (with FY_MSGF_STREAM): a non-contiguous sender's run table is at
 * `addr` (`frag` entries) and its first element at `rreq`; a receiver that can read remotely
 * reads the message piece by piece (p2p_iov.c), else it answers CTS. */
/* FY_MSGF_PLACED on a delivered DATA record: the transport already read its payload into the
 * place fy_xport_place gave (the payload pointer is NULL). */
enum {
    FY_MSGF_SYNC = 1,
    FY_MSGF_CANCELLED = 2,
    FY_MSGF_STREAM = 4,
    FY_MSGF_SPLIT = 8,
    FY_MSGF_IOV = 16,
    FY_MSGF_PLACED = 32
};

/* 56 bytes: fits one cache line with the record's framing. */
/* rreq and addr come last, and an eager message never reads them: the pair rings lay an eager
 * payload over them, so that up to 16 bytes travel in the header's cache line (shm_ring.c). */
typedef struct fy_hdr {
    uint8_t kind;
    uint8_t flags;
    uint16_t reserved;
    int32_t src; /* sender's rank in the communicator */
    int32_t tag;
    uint32_t ctx;      /* context id: communicator and pt2pt/collective space */
    int32_t world_src; /* sender's rank in MPI_COMM_WORLD, to reply to */
    uint32_t frag;     /* DATA: bytes in this record */
    uint64_t len;      /* whole message length in bytes */
    uint64_t sreq;     /* sender's request, echoed in CTS/FIN/ACK */
    uint64_t rreq;     /* receiver's request, echoed in DATA */
    uint64_t addr;     /* RTS: sender buffer address; DATA: offset of the fragment */
} fy_hdr_t;
#define FY_HDR_EAGER_BYTES 40 /* what an eager message uses of the header: up to rreq */

/* Not a transport error: the queue is full, try again after progress. */
#define FY_XPORT_AGAIN (-11)
/* The transport cannot read the peer's memory: use CTS/DATA streaming. */
#define FY_XPORT_NOTSUP (-12)

/* Writes `len` payload bytes at `dst` (the sender packing a non-contiguous message straight
 * into the transport's buffer). */
typedef void (*fy_xport_fill_fn)(void *arg, void *dst, size_t len);

typedef struct fy_xport_ops {
    const char *name;
    /* Queues one record for world rank dst. 0, or FY_XPORT_AGAIN when full. */
    int (*send)(int dst, const fy_hdr_t *h, const void *payload, size_t len);
    /* As send, with the payload written in place by fill(arg, buffer, len). */
    int (*send_fill)(int dst, const fy_hdr_t *h, size_t len, fy_xport_fill_fn fill, void *arg);
    /* Copies len bytes at raddr in world rank src's memory into dst. 0, or FY_XPORT_NOTSUP. */
    int (*get)(int src, uint64_t raddr, void *dst, size_t len);
    /* Largest payload one record may carry. */
    size_t (*max_payload)(void);
    /* The oldest record from world rank src not yet delivered, left in place: 1 and *h,
     * *payload (valid until take), or 0 when there is none. NULL where the transport cannot
     * look at one sender's records alone (self; shm with inboxes answers 0). */
    int (*peek)(int src, const fy_hdr_t **h, const void **payload);
    /* Consumes the record peek returned, instead of delivering it. */
    void (*take)(int src);
    /* Whether the transport still reads from a DATA payload it accepted for dst (a send must
     * not complete until then). NULL where payloads are always consumed within send. */
    int (*holds)(int dst);
} fy_xport_ops_t;

/* Called by transports for every record that arrives; the payload is only valid during the
 * call. Set once by the point-to-point layer. */
typedef void (*fy_xport_deliver_fn)(const fy_hdr_t *h, const void *payload);
extern fy_xport_deliver_fn fy_xport_deliver;
/* Where a DATA record's payload belongs, if the receive is one block in memory (NULL: deliver
 * it as usual). Set by the point-to-point layer; used by transports that read from a stream. */
typedef void *(*fy_xport_place_fn)(const fy_hdr_t *h);
extern fy_xport_place_fn fy_xport_place;

/* TCP between hosts (src/xport/tcp): fy_tcp_init listens and publishes this rank's address
 * (before a fence: every rank of the job calls it, or none); connections are made on first
 * use. `one_host`: all ranks share this machine (loopback will do). */
struct fy_pmi;
int fy_tcp_init(struct fy_pmi *pmi, int rank, int size, bool one_host);
void fy_tcp_fini(void);
extern const fy_xport_ops_t fy_xport_tcp;
extern int fy_tcp_active; /* fy_tcp_init succeeded: progress polls the sockets */
int fy_tcp_progress(void);
/* Sleeps until a socket or the doorbell's eventfd (fy_tcp_bell) is ready, or timeout_ms. */
void fy_tcp_sleep(int timeout_ms);
void fy_tcp_bell(int efd);
/* Whether world rank w closed its connection after its last record (it finalized). */
int fy_tcp_peer_gone(int w);
/* Connects to world rank w if no connection exists yet (connections are made by senders): a
 * receiver that has waited a while for w learns so whether w is still there (a refused
 * connection ends the job naming w; a later end of stream fails the wait). */
void fy_tcp_probe(int w);
unsigned fy_tcp_left_count(void); /* how many have */
/* The payload of one streamed DATA record over TCP. */
size_t fy_tcp_frag(void);

/* The self transport (a process sending to itself). */
extern const fy_xport_ops_t fy_xport_self;

/* Shared memory among the ranks of this machine. Every function takes world ranks. `members`
 * (malloc'd, taken over) are the world ranks that share the segment, ascending, `rank` our
 * index among them; every rank of the job calls it (it fences). */
struct fy_pmi;
int fy_shm_init(struct fy_pmi *pmi, int *members, int n, int rank, int world_size);
void fy_shm_fini(void);
extern const fy_xport_ops_t fy_xport_shm;
/* Whether world rank w (not ourselves) is in our segment. */
int fy_shm_reaches(int w);
/* Drains all incoming shared-memory queues; returns how many records were handled. */
int fy_shm_progress(void);
/* Sleeps until a peer rings this rank's doorbell or `timeout_ms` passes. `prepare` and `check`
 * bracket the sleep so that no wake-up is lost: see shm_wait.c. */
void fy_shm_sleep_prepare(void);
void fy_shm_sleep(int timeout_ms);
void fy_shm_sleep_done(void);
/* For a rank that also waits on sockets: an eventfd producers write instead of waking the
 * futex (-1: none), to sleep on with them; and how long such a sleep may last. */
int fy_shm_use_eventfd(void);
/* Whether the doorbell rang since fy_shm_sleep_prepare (then there is no need to sleep). */
int fy_shm_rung(void);
int fy_shm_sleep_bound_ms(int timeout_ms);
/* Split rendezvous (shm_cma.c): a slot per large message in flight, in the receiver's table
 * in the shared segment. The sender takes one (fy_shm_rndv_take, -1 when all are taken: the
 * message then goes as a plain rendezvous), fills len/chunk/claim, and frees it when its send
 * completes. `claim` holds two chunk indices: low 32 bits, the next chunk from the front (the
 * sender's); high 32 bits, the end of the chunks nobody has taken (the receiver takes the one
 * below it). Both change it only by compare-and-swap while front < end, so every chunk is
 * copied exactly once by whichever side takes it. `done` counts bytes copied; `raddr` is 0
 * until the receiver has matched and published its buffer (and `rreq`). */
typedef struct fy_rndv_slot {
    _Alignas(64) _Atomic uint64_t claim;
    _Atomic uint64_t done;
    _Atomic uint64_t raddr;
    uint64_t rreq;
    uint64_t len, chunk;
} fy_rndv_slot_t;
int fy_shm_rndv_take(int dst);
void fy_shm_rndv_give(int dst, int slot);
fy_rndv_slot_t *fy_shm_rndv_slot(int dst, int slot);
/* Copies len bytes from src to raddr in world rank dst's memory (process_vm_writev). 0, or
 * FY_XPORT_NOTSUP when the kernel refuses. */
int fy_shm_put(int dst, uint64_t raddr, const void *src, size_t len);
/* Reads the n remote pieces riov (struct iovec) of world rank src into dst, len bytes in all. */
struct iovec;
int fy_shm_getv(int src, const struct iovec *riov, int n, void *dst, size_t len);
/* Whether single copy is allowed (not FERRY_CMA=0, not yet refused by the kernel). */
int fy_shm_cma_usable(void);

/* What the wait policy can know about a rank (src/p2p/wait_policy.c): fy_shm_beat publishes
 * this rank's (it polls, at `now_ns`, on `cpu`), fy_shm_beat_end withdraws it when the wait
 * ends, fy_shm_peer_look reads rank r's (0 when r has no doorbell: self, or no segment).
 * fy_shm_wake_ns: how long this rank's recent wake-ups took, from a peer's futex_wake to
 * running again (a moving average; 0 before the first). */
typedef struct fy_shm_look {
    int sleeping;    /* some thread of r sits in futex_wait (or is about to) */
    int polling;     /* r is inside a wait, polling */
    int cpu;         /* the CPU of r's latest beat */
    int64_t beat_ns; /* when r last said it polls, or the expected end of a copy it makes */
} fy_shm_look_t;
void fy_shm_beat(int64_t now_ns, int cpu);
void fy_shm_beat_end(void);
/* This rank enters (1) or leaves (0) a wait: producers to it wrap their rings early only while
 * it waits, since it then reads what they publish at once (shm_ring.c). */
void fy_shm_in_wait(int on);
/* Around one long copy for a peer: the beat dated to `until_ns`, then restored (shm_wait.c). */
unsigned fy_shm_busy(int64_t until_ns, int cpu);
void fy_shm_busy_end(int64_t now_ns, unsigned was_polling);
int fy_shm_peer_look(int r, fy_shm_look_t *look);
int64_t fy_shm_wake_ns(void);
/* Ranks of this machine's job that are not asleep in a wait nor finalized (1 without a
 * segment). */
int fy_shm_awake_count(void);
/* Rings our own doorbell, for a thread that completed another thread's request. */
/* Wakes world rank dst if a thread of it sleeps on its doorbell (one load when none does). */
void fy_shm_ring_bell(int dst);
/* The part of each ring small messages cycle through while the consumer keeps up (shm_ring.c);
 * set by the point-to-point thresholds at MPI_Init. 0: off. */
void fy_shm_set_hot(size_t bytes);
void fy_shm_wake_self(void);
/* Leaving: this rank has entered MPI_Finalize and will send (after what is already queued)
 * and receive no more user messages. Published after its last records, so a peer that sees
 * it and then drains its queues has everything this rank sent. */
void fy_shm_leave(void);
/* How many ranks have left so far (changes rarely: a cheap test before looking closer). */
unsigned fy_shm_left_count(void);
/* Whether world rank r has left (an acquire: drain the queues after it, then decide). */
int fy_shm_peer_gone(int r);
/* A rank of this host that ended without MPI_Finalize (killed, crashed, exit()), as the
 * world rank, with its pid in *pid_p; -1 while none is known. Each rank watches one
 * neighbour (the next local rank that has not left), at most once per second of now_ns, and
 * publishes what it finds in the segment, so a death costs every waiter one shared load to
 * learn and nobody more than one kill(2) a second to find. Launchers that kill the job when a
 * rank dies (Ferry's mpiexec, Hydra, mpirun) make this moot; srun without --kill-on-bad-exit
 * does not, and ranks waiting for the dead one would wait for ever. */
int fy_shm_dead_peer(long long now_ns, int *pid_p);
/* The deadlock detector's shared state (src/p2p/p2p_deadlock.c): a rank is stuck from its
 * first sleep in a wait until that wait makes progress or ends. */
void fy_shm_stuck(int on);
/* Whether every rank is stuck; *moved_p: how many times any rank stopped being stuck. */
int fy_shm_all_stuck(unsigned *moved_p);
/* Counts this rank among those that printed their report; returns how many have. */
unsigned fy_shm_reported(int add);

#endif
