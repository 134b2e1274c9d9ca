/* Single-copy rendezvous: the receiver reads the sender's buffer with process_vm_readv (cross
 * memory attach). Where the kernel refuses it (Yama ptrace scope, seccomp, FERRY_CMA=0), the
 * point-to-point layer falls back to streaming the message through the rings. */
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

int fy_shm_get(int src, uint64_t raddr, void *dst, size_t len)
{
    if (!cma_ok)
        return FY_XPORT_NOTSUP;
    size_t done = 0;
    while (done < len) {
        struct iovec l = {(char *)dst + done, len - done};
        struct iovec r = {(void *)(uintptr_t)(raddr + done), len - done};
        ssize_t n = process_vm_readv(fy_shm.bell[src].pid, &l, 1, &r, 1, 0);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            if (done == 0 && (errno == EPERM || errno == ENOSYS || errno == EACCES)) {
                cma_ok = 0;
                return FY_XPORT_NOTSUP;
            }
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}
