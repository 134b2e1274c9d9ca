/* Single-copy rendezvous: the receiver reads the sender's buffer with process_vm_readv (cross
 * memory attach), and in a split rendezvous a running sender also writes chunks straight into
 * the receiver's buffer with process_vm_writev; the slots that coordinate the two live here
 * too. Where the kernel refuses (Yama ptrace scope, seccomp, FERRY_CMA=0), the point-to-point
 * layer falls back to streaming the message through the rings. */
#include <errno.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/uio.h>

#include "fy_knobs.h"
#include "fy_runtime.h"
#include "fy_xport.h"
#include "shm_seg.h"

static int cma_ok = 1;

int fy_shm_cma_init(void)
{
    if (fy_knob_number(FY_KNOB_CMA, 1) == 0) {
        cma_ok = 0;
        return cma_ok; /* no single copy: leave the ptrace protection as it was */
    }
#ifdef PR_SET_PTRACER
    /* Under Yama scope 1 only ancestors may read us; our peers are siblings. This lets any
     * process of this user attach to us, the price of single copy (README, FERRY_CMA). */
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
#endif
    return cma_ok;
}

/* Moves len bytes between our buffer `local` and world rank peer's address raddr with
 * process_vm_readv (write 0) or process_vm_writev (write 1), resuming after short transfers
 * and EINTR. 0, FY_XPORT_NOTSUP when the kernel refuses before any byte moved, else -1. */
static int transfer(int peer, uint64_t raddr, void *local, size_t len, int write)
{
    size_t done = 0;
    while (done < len) {
        struct iovec l = {(char *)local + done, len - done};
        struct iovec r = {(void *)(uintptr_t)(raddr + done), len - done};
        pid_t pid = fy_shm.bell[fy_shm_lr(peer)].pid;
        ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                          : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            return done == 0 && (errno == EPERM || errno == ENOSYS || errno == EACCES)
                       ? FY_XPORT_NOTSUP
                       : -1;
        }
        done += (size_t)n;
    }
    return 0;
}

int fy_shm_get(int src, uint64_t raddr, void *dst, size_t len)
{
    if (!cma_ok)
        return FY_XPORT_NOTSUP;
    int rc = transfer(src, raddr, dst, len, 0);
    if (rc == FY_XPORT_NOTSUP)
        cma_ok = 0;
    return rc;
}

int fy_shm_getv(int src, const struct iovec *riov, int n, void *dst, size_t len)
{
    if (!cma_ok)
        return FY_XPORT_NOTSUP;
    struct iovec l = {dst, len};
    ssize_t got = process_vm_readv(fy_shm.bell[fy_shm_lr(src)].pid, &l, 1, riov, (unsigned long)n, 0);
    if (got == (ssize_t)len)
        return 0;
    if (got < 0 && (errno == EPERM || errno == ENOSYS || errno == EACCES)) {
        cma_ok = 0;
        return FY_XPORT_NOTSUP;
    }
    /* A short read (or EINTR): the rest piece by piece. */
    size_t skip = got > 0 ? (size_t)got : 0, at = 0;
    for (int i = 0; i < n; i++) {
        size_t k = riov[i].iov_len;
        if (skip < k) {
            int rc = fy_shm_get(src, (uint64_t)(uintptr_t)riov[i].iov_base + skip,
                                (char *)dst + at + skip, k - skip);
            if (rc != 0)
                return rc;
            skip = 0;
        } else {
            skip -= k;
        }
        at += k;
    }
    return 0;
}

int fy_shm_cma_usable(void)
{
    return cma_ok;
}

int fy_shm_put(int dst, uint64_t raddr, const void *src, size_t len)
{
    return transfer(dst, raddr, (void *)src, len, 1);
}

static fy_shm_rndv_t *rndv_table(int dst)
{
    return (fy_shm_rndv_t *)(fy_shm.rndv + (size_t)fy_shm_lr(dst) * FY_SHM_RNDV_STRIDE);
}

fy_rndv_slot_t *fy_shm_rndv_slot(int dst, int slot)
{
    return (fy_rndv_slot_t *)((unsigned char *)rndv_table(dst) + FY_CACHELINE * (size_t)(1 + slot));
}

/* Senders to one receiver share its table: a slot is taken by setting its bit. */
int fy_shm_rndv_take(int dst)
{
    fy_shm_rndv_t *t = rndv_table(dst);
    uint64_t used = atomic_load_explicit(&t->used, memory_order_relaxed);
    for (;;) {
        uint64_t free_bits = ~used & ((1ull << FY_SHM_RNDV_SLOTS) - 1);
        if (!free_bits)
            return -1;
        int i = __builtin_ctzll(free_bits);
        if (atomic_compare_exchange_weak_explicit(&t->used, &used, used | (1ull << i),
                                                  memory_order_acquire, memory_order_relaxed))
            return i;
    }
}

void fy_shm_rndv_give(int dst, int slot)
{
    atomic_fetch_and_explicit(&rndv_table(dst)->used, ~(1ull << slot), memory_order_release);
}
