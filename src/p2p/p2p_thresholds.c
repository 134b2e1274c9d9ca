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

    /* Eager: an inline message is copied into the ring and out again, both copies in cache
     * while it is a small part of L2 (a sixteenth: the ring's other records and the user's
     * buffers share it); above that the second copy runs from memory and one copy wins. At
     * most a quarter of the ring, so that a burst of early messages does not fill it. */
    size_t eager = clamp(pow2_below(l2 / 16), 16 * 1024, 128 * 1024);
    while (ring_payload && eager > 1024 && eager > ring_payload / 4)
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

    /* A streamed fragment and a split chunk stay in L2 beside the other side's copy: a
     * quarter of it. A calibrated single-copy rate sizes a chunk to ~25 us of copying, so that
     * the claim (one compare-and-swap) is never a visible cost and the two ends still meet
     * near the middle. */
    size_t frag = clamp(pow2_below(l2 / 16), 16 * 1024, 256 * 1024);
    size_t chunk = clamp(pow2_below(l2 / 4), 64 * 1024, 1024 * 1024);
    if (fy_machine_calibrated() && m->cma_gbps > 0)
        chunk = clamp(pow2_below((size_t)(m->cma_gbps * 25000)), 64 * 1024, 4096 * 1024);
    fy_frag_max = (size_t)fy_knob_number(FY_KNOB_FRAG, (long)frag);
    if (fy_knob_is_set(FY_KNOB_FRAG))
        chunk = fy_frag_max;
    fy_rndv_chunk = chunk;

    /* How long a copy a peer waits on should take (fy_p2p_busy_begin). Uncalibrated, 4 GB/s:
     * slower than any machine measured, so that a waiting peer errs towards polling a little
     * longer rather than sleeping through the copy's end. */
    if (fy_machine_calibrated() && m->cma_gbps > 0)
        fy_copy_ns_per_byte = 1.0 / m->cma_gbps;
    else if (fy_machine_calibrated() && m->memcpy_mem_gbps > 0)
        fy_copy_ns_per_byte = 1.0 / m->memcpy_mem_gbps;
}
