/* Where the point-to-point protocols switch, chosen at MPI_Init from what this machine is
 * (fy_machine: cache sizes, CPUs, and calibrated copy rates once measured) rather than from
 * constants tuned to one CPU. FERRY_EAGER_MAX, FERRY_RNDV and FERRY_FRAG override. */
#include "fy_knobs.h"
#include "fy_machine.h"
#include "p2p_internal.h"

size_t fy_eager_max;
int fy_rndv_mode;
size_t fy_frag_max = 64 * 1024;
size_t fy_rndv_chunk = 256 * 1024;
double fy_copy_ns_per_byte = 0.25;

static size_t clamp(size_t v, size_t lo, size_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static size_t pow2_below(size_t v)
{
    size_t p = 1;
    while (p * 2 <= v)
        p *= 2;
    return p;
}

void fy_p2p_thresholds(bool oversubscribed, size_t ring_payload)
{
    const fy_machine_t *m = fy_machine();
    size_t l2 = m->l2 ? m->l2 : 512 * 1024;

    /* Eager: an inline message is copied into the ring and out again; both copies stay in
     * cache while the message, the ring span it takes and the receiver's buffer fit in L2
     * together. That beats the single copy there, whose kernel copy pins pages and reads the
     * other core's cache line by line: on the EPYC guest of Nov 2026 (L2 1 MiB) a 128 KiB
     * ping-pong took 10.5 us eager against 23-25 us single copy (Open MPI 22), quiet or beside
     * a busy loop per core. But in a stream the sender's copy into the ring is the bottleneck,
     * where a split rendezvous has both sides copying: a window of 256 KiB sends ran at
     * 18-20 GB/s by rendezvous against 13.5 eager (128 KiB: 11-27 eager, 11 rendezvous). So an
     * eighth of L2, and at most a quarter of the ring, so that a burst of early messages does
     * not fill it. */
    size_t eager = clamp(pow2_below(l2 / 8), 16 * 1024, 256 * 1024);
    size_t quarter_ring = ring_payload ? (ring_payload + sizeof(fy_hdr_t)) / 2 : 0;
    while (quarter_ring && eager > 1024 && eager > quarter_ring)
        eager /= 2;
    fy_eager_max = (size_t)fy_knob_number(FY_KNOB_EAGER_MAX, (long)eager);

    /* Rendezvous. Streaming through the ring needs both processes on a CPU at the same moment,
     * fragment after fragment: on a busy machine it crawls (docs/DESIGN.md). The split
     * rendezvous needs neither side to wait for the other, so it is the default wherever
     * single copy is allowed; otherwise the message streams whatever the mode says. */
    int rv = fy_knob_word(FY_KNOB_RNDV, FY_RNDV_AUTO);
    if (rv == FY_RNDV_AUTO)
        rv = FY_RNDV_SPLIT;
    (void)oversubscribed;
    fy_knob_settle(FY_KNOB_RNDV, rv);
    fy_rndv_mode = rv;

    /* A streamed fragment stays in L2 beside the other side's copy. A split chunk is about
     * 12 us of single copy at the calibrated rate (an eighth of L2 uncalibrated): long enough
     * that its claim (one compare-and-swap) and system call are a few percent, short enough
     * that a message of a few hundred KiB has chunks for both ends (256 KiB ping-pong with
     * the buffer published first: 28-30 us with 128 KiB chunks, 45-47 with 256 KiB). */
    size_t frag = clamp(pow2_below(l2 / 16), 16 * 1024, 256 * 1024);
    size_t chunk = clamp(pow2_below(l2 / 8), 64 * 1024, 1024 * 1024);
    if (fy_machine_calibrated() && m->cma_gbps > 0)
        chunk = clamp(pow2_below((size_t)(m->cma_gbps * 12500)), 64 * 1024, 4096 * 1024);
    fy_frag_max = (size_t)fy_knob_number(FY_KNOB_FRAG, (long)frag);
    if (fy_knob_is_set(FY_KNOB_FRAG))
        chunk = fy_frag_max;
    fy_rndv_chunk = chunk;

    /* The hot part of each ring: an eighth of L1d (4 KiB of a 32 KiB L1d), so that the rings
     * of a few peers stay in L1 together. */
    size_t l1 = m->l1d ? m->l1d : 32 * 1024;
    fy_shm_set_hot(clamp(pow2_below(l1 / 8), 2048, 16 * 1024));

    /* How long a copy a peer waits on should take (fy_p2p_busy_begin). Uncalibrated, 4 GB/s:
     * slower than any machine measured, so that a waiting peer errs towards polling a little
     * longer rather than sleeping through the copy's end. */
    if (fy_machine_calibrated() && m->cma_gbps > 0)
        fy_copy_ns_per_byte = 1.0 / m->cma_gbps;
    else if (fy_machine_calibrated() && m->memcpy_mem_gbps > 0)
        fy_copy_ns_per_byte = 1.0 / m->memcpy_mem_gbps;
}
