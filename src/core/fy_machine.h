/* What this machine is: CPU model, core count, cache sizes, and (once calibrated) the costs
 * the point-to-point thresholds and the wait policy are derived from. Thresholds tuned to one
 * CPU are wrong on the next one, so every switch point is computed from these facts at
 * MPI_Init rather than compiled in. */
#ifndef FY_MACHINE_H
#define FY_MACHINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct fy_machine {
    char cpu_model[96];  /* "model name" of /proc/cpuinfo, "unknown" when absent */
    int cpus_online;     /* sysconf(_SC_NPROCESSORS_ONLN) */
    int cpus_allowed;    /* CPUs in this process's affinity mask (<= cpus_online) */
    size_t l1d, l2, l3;  /* bytes of one instance of each data/unified cache; 0 unknown */
    int l2_cpus, l3_cpus; /* CPUs sharing one instance; 0 unknown */
    /* Calibration, 0 until measured (fy_machine_calibrated() says whether it was). */
    double memcpy_cache_gbps; /* memcpy of a buffer that stays in L2 */
    double memcpy_mem_gbps;   /* memcpy of buffers larger than the last-level cache */
    double cma_gbps;          /* process_vm_readv of a large block; 0 when refused */
    int64_t wake_ns;          /* futex wake to running, between two processes */
} fy_machine_t;

/* The facts, read on first call (cheap: sysfs and /proc, no measurement). */
const fy_machine_t *fy_machine(void);

/* Whether the calibrated fields hold measurements (from the per-machine cache file or a
 * measurement made in this process). */
int fy_machine_calibrated(void);

#endif
