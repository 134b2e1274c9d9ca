/* The machine section of `ferry info`: what Ferry knows of this machine (src/core/fy_machine*.c,
 * compiled into the tool: the library hides its internal symbols) and the calibrated costs,
 * read from the per-machine cache file or measured now, as a program's rank 0 would at
 * MPI_Init. FERRY_CALIBRATE and FERRY_CMA act as they do there, so
 * `FERRY_CALIBRATE=recalibrate ferry info` measures again and rewrites the file. */
#include <stdio.h>
#include <string.h>

#include "ferry.h"
#include "fy_machine.h"

static void size_text(size_t b, char *out, size_t len)
{
    if (b == 0)
        snprintf(out, len, "unknown");
    else if (b >= (1u << 20) && b % (1u << 20) == 0)
        snprintf(out, len, "%zu MiB", b >> 20);
    else
        snprintf(out, len, "%zu KiB", b >> 10);
}

static const char *source_name(int s)
{
    switch (s) {
    case FY_MACHINE_CACHED: return "cache file";
    case FY_MACHINE_MEASURED: return "measured now";
    case FY_MACHINE_RANK0: return "rank 0";
    }
    return "none";
}

void fy_tool_machine_load(const char *calibrate, int cma_on)
{
    int mode = FY_CALIBRATE_CACHE;
    if (strcmp(calibrate, "recalibrate") == 0)
        mode = FY_CALIBRATE_AGAIN;
    else if (strcmp(calibrate, "skip") == 0)
        mode = FY_CALIBRATE_SKIP;
    fy_machine_calibrate(mode, NULL);
    if (!cma_on)
        fy_machine_no_cma();
}

void fy_tool_machine_text(int cma_on)
{
    const fy_machine_t *m = fy_machine();
    char l1[32], l2[32], l3[32];
    size_text(m->l1d, l1, sizeof l1);
    size_text(m->l2, l2, sizeof l2);
    size_text(m->l3, l3, sizeof l3);
    printf("\nMachine\n");
    printf("  CPU:            %s\n", m->cpu_model);
    printf("  CPUs:           %d online, %d allowed to this process\n", m->cpus_online,
           m->cpus_allowed);
    printf("  caches:         L1d %s, L2 %s (shared by %d CPU%s), L3 %s (shared by %d CPU%s)\n",
           l1, l2, m->l2_cpus, m->l2_cpus == 1 ? "" : "s", l3, m->l3_cpus,
           m->l3_cpus == 1 ? "" : "s");
    if (m->calib_source == FY_MACHINE_NONE) {
        printf("  calibration:    skipped (FERRY_CALIBRATE=skip): thresholds from the facts "
               "above only\n");
        return;
    }
    if (m->calib_source == FY_MACHINE_CACHED)
        printf("  calibration:    from the cache file %s (measured in %.1f ms)\n", m->calib_path,
               m->calib_ms);
    else if (m->calib_path[0])
        printf("  calibration:    measured now in %.1f ms, saved to %s\n", m->calib_ms,
               m->calib_path);
    else
        printf("  calibration:    measured now in %.1f ms, not saved (the cache directory "
               "cannot be written)\n",
               m->calib_ms);
    if (m->calib_busy >= fy_machine_busy_limit(m))
        printf("                  beside %d other runnable task%s: measured again at a quiet "
               "start\n",
               m->calib_busy, m->calib_busy == 1 ? "" : "s");
    printf("  memcpy in L2:   %.1f GB/s\n", m->memcpy_cache_gbps);
    printf("  memcpy in RAM:  %.1f GB/s (buffers past the last-level cache)\n", m->memcpy_mem_gbps);
    if (m->cma_gbps > 0)
        printf("  single copy:    %.1f GB/s (process_vm_readv)\n", m->cma_gbps);
    else
        printf("  single copy:    %s\n", cma_on ? "refused by the kernel (process_vm_readv)"
                                                : "off (FERRY_CMA=0)");
    printf("  futex wake-up:  %.1f us (median)\n", (double)m->wake_ns / 1000.0);
}

void fy_tool_machine_json(void)
{
    const fy_machine_t *m = fy_machine();
    printf("\"machine\": {\"cpu_model\": ");
    fy_tool_jstr(m->cpu_model);
    printf(", \"cpus_online\": %d, \"cpus_allowed\": %d, \"l1d_bytes\": %zu, \"l2_bytes\": %zu, "
           "\"l2_cpus\": %d, \"l3_bytes\": %zu, \"l3_cpus\": %d,\n    \"calibration\": ",
           m->cpus_online, m->cpus_allowed, m->l1d, m->l2, m->l2_cpus, m->l3, m->l3_cpus);
    fy_tool_jstr(source_name(m->calib_source));
    printf(", \"cache_file\": ");
    fy_tool_jstr(m->calib_path);
    printf(", \"calib_ms\": %.3f, \"calib_busy\": %d, \"memcpy_cache_gbps\": %.3f, "
           "\"memcpy_mem_gbps\": %.3f, \"cma_gbps\": %.3f, \"wake_ns\": %lld}",
           m->calib_ms, m->calib_busy, m->memcpy_cache_gbps, m->memcpy_mem_gbps, m->cma_gbps,
           (long long)m->wake_ns);
}
