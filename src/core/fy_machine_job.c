/* Calibration in a job: rank 0 alone reads the cache file or measures, and hands its values to
 * the others through the process manager's key-value space, riding on the first fence the
 * shared-memory layer makes anyway (api/runtime.c puts fy_machine_share before it and
 * fy_machine_receive after it). So N ranks on two cores never measure at once (they would
 * measure each other), no fence is added to MPI_Init, and every rank derives its thresholds
 * from the same numbers even when the cache file changes under a running start-up. */
#include <stdio.h>
#include <string.h>

#include "fy_err.h"
#include "fy_knobs.h"
#include "fy_machine.h"
#include "fy_pmi.h"

#define KEY "fy-machine"

/* FERRY_CMA is each rank's own (scope local): applied after the values arrive. */
static void apply_cma_knob(void)
{
    if (fy_knob_number(FY_KNOB_CMA, 1) == 0)
        fy_machine_no_cma();
}

int fy_machine_share(struct fy_pmi *pmi, int rank, int size)
{
    if (rank != 0)
        return MPI_SUCCESS;
    fy_machine_calibrate(fy_knob_word(FY_KNOB_CALIBRATE, FY_CALIBRATE_CACHE), NULL);
    if (size > 1) {
        const fy_machine_t *m = fy_machine();
        /* One PMI token: digits, '.', 'e', '+', '-' and commas. */
        char v[FY_PMI_MAX_VAL];
        snprintf(v, sizeof v, "1,%d,%.17g,%.17g,%.17g,%lld,%.17g,%d", m->calib_source,
                 m->memcpy_cache_gbps, m->memcpy_mem_gbps, m->cma_gbps, (long long)m->wake_ns,
                 m->calib_ms, m->calib_busy);
        if (fy_pmi_put(pmi, KEY, v) != 0)
            return fy_err_set(MPI_ERR_OTHER, "process manager put failed: %s",
                              fy_pmi_last_error());
    }
    apply_cma_knob();
    return MPI_SUCCESS;
}

int fy_machine_receive(struct fy_pmi *pmi, int rank, int size)
{
    if (rank == 0 || size <= 1)
        return MPI_SUCCESS;
    char v[FY_PMI_MAX_VAL];
    if (fy_pmi_get(pmi, 0, KEY, v, sizeof v) != 0)
        return fy_err_set(MPI_ERR_OTHER, "process manager get failed: %s", fy_pmi_last_error());
    fy_machine_t c = {0};
    int source;
    long long wake;
    if (sscanf(v, "1,%d,%lf,%lf,%lf,%lld,%lf,%d", &source, &c.memcpy_cache_gbps,
               &c.memcpy_mem_gbps, &c.cma_gbps, &wake, &c.calib_ms, &c.calib_busy) != 7)
        return fy_err_set(MPI_ERR_INTERN, "rank 0's machine calibration '%s' is malformed", v);
    c.wake_ns = wake;
    c.calib_source = source == FY_MACHINE_NONE ? FY_MACHINE_NONE : FY_MACHINE_RANK0;
    fy_machine_set_costs(&c);
    apply_cma_knob();
    return MPI_SUCCESS;
}
