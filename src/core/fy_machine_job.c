/* Calibration in a job: rank 0 alone reads the cache file or measures, and hands its values to
 * the others through the process manager's key-value space, riding on the first fence the
 * shared-memory layer makes anyway (api/runtime.c puts fy_machine_share before it and
 * fy_machine_receive after it). So N ranks on two cores never measure at once (they would
 * measure each other), no fence is added to MPI_Init, and every rank derives its thresholds
 * from the same numbers even when the cache file changes under a running start-up.
 *
 * The same value carries rank 0's facts of its host (CPU model, CPUs online, caches), which the
 * ranks of that host take instead of reading /proc/cpuinfo and 17 sysfs files each: 0.2 ms of a
 * rank's 2 ms of start-up CPU on the 2-vCPU EPYC guest, 50 ms of CPU at 256 ranks. Ranks of
 * other hosts read their own. */
#include <stdio.h>
#include <stdlib.h>
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

/* The CPU model inside a PMI token: ' ', ',', '=', '%' and bytes outside printable ASCII as %XX. */
static void encode_model(const char *in, char *out, size_t len)
{
    size_t o = 0;
    for (; *in != '\0' && o + 4 < len; in++) {
        unsigned char c = (unsigned char)*in;
        if (c <= ' ' || c > '~' || c == ',' || c == '=' || c == '%')
            o += (size_t)snprintf(out + o, len - o, "%%%02X", c);
        else
            out[o++] = (char)c;
    }
    out[o] = '\0';
}

static void decode_model(const char *in, char *out, size_t len)
{
    size_t o = 0;
    for (; *in != '\0' && o + 1 < len; in++) {
        unsigned v;
        if (*in == '%' && sscanf(in + 1, "%2x", &v) == 1) {
            out[o++] = (char)v;
            in += 2;
        } else {
            out[o++] = *in;
        }
    }
    out[o] = '\0';
}

int fy_machine_share(struct fy_pmi *pmi, int rank, int size)
{
    if (rank != 0)
        return MPI_SUCCESS;
    fy_machine_calibrate(fy_knob_word(FY_KNOB_CALIBRATE, FY_CALIBRATE_CACHE), NULL);
    if (size > 1) {
        const fy_machine_t *m = fy_machine();
        /* One PMI token: digits, '.', 'e', '+', '-' and commas, then the encoded model. */
        char v[FY_PMI_MAX_VAL], model[3 * sizeof m->cpu_model];
        encode_model(m->cpu_model, model, sizeof model);
        snprintf(v, sizeof v, "2,%d,%.17g,%.17g,%.17g,%lld,%.17g,%d,%d,%zu,%zu,%zu,%d,%d,%s",
                 m->calib_source, m->memcpy_cache_gbps, m->memcpy_mem_gbps, m->cma_gbps,
                 (long long)m->wake_ns, m->calib_ms, m->calib_busy, m->cpus_online, m->l1d,
                 m->l2, m->l3, m->l2_cpus, m->l3_cpus, model);
        if (fy_pmi_put(pmi, KEY, v) != 0)
            return fy_err_set(MPI_ERR_OTHER, "process manager put failed: %s",
                              fy_pmi_last_error());
    }
    apply_cma_knob();
    return MPI_SUCCESS;
}

int fy_machine_receive(struct fy_pmi *pmi, int rank, int size, int same_host)
{
    if (rank == 0 || size <= 1)
        return MPI_SUCCESS;
    char v[FY_PMI_MAX_VAL];
    if (fy_pmi_get(pmi, 0, KEY, v, sizeof v) != 0)
        return fy_err_set(MPI_ERR_OTHER, "process manager get failed: %s", fy_pmi_last_error());
    fy_machine_t c = {0};
    int source, used = 0;
    long long wake;
    if (sscanf(v, "2,%d,%lf,%lf,%lf,%lld,%lf,%d,%d,%zu,%zu,%zu,%d,%d,%n", &source,
               &c.memcpy_cache_gbps, &c.memcpy_mem_gbps, &c.cma_gbps, &wake, &c.calib_ms,
               &c.calib_busy, &c.cpus_online, &c.l1d, &c.l2, &c.l3, &c.l2_cpus, &c.l3_cpus,
               &used) != 13 ||
        used == 0)
        return fy_err_set(MPI_ERR_INTERN, "rank 0's machine calibration '%s' is malformed", v);
    if (same_host) {
        decode_model(v + used, c.cpu_model, sizeof c.cpu_model);
        fy_machine_set_facts(&c);
    }
    c.wake_ns = wake;
    c.calib_source = source == FY_MACHINE_NONE ? FY_MACHINE_NONE : FY_MACHINE_RANK0;
    fy_machine_set_costs(&c);
    apply_cma_knob();
    return MPI_SUCCESS;
}
