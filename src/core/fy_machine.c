/* Machine facts from sysfs and /proc, the key that names this machine in the calibration cache,
 * and the calibrated fields other files fill in (see fy_machine.h). */
#include "fy_machine.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static fy_machine_t facts;
static int facts_read;

static void read_model(char *out, size_t len)
{
    snprintf(out, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        char *v = strchr(line, ':');
        if (!v)
            break;
        v++;
        v += strspn(v, " \t");
        v[strcspn(v, "\n")] = '\0';
        snprintf(out, len, "%s", v);
        break;
    }
    fclose(f);
}

static long read_long(const char *path, int *ok)
{
    FILE *f = fopen(path, "r");
    *ok = 0;
    if (!f)
        return 0;
    char buf[64] = {0};
    if (fgets(buf, sizeof buf, f)) {
        char *end;
        long v = strtol(buf, &end, 10);
        if (end != buf) {
            *ok = 1;
            if (*end == 'K')
                v *= 1024;
            else if (*end == 'M')
                v *= 1024 * 1024;
            fclose(f);
            return v;
        }
    }
    fclose(f);
    return 0;
}

int fy_machine_cpu_list_count(const char *list)
{
    int n = 0;
    const char *p = list;
    while (*p && *p != '\n') {
        char *end;
        long a = strtol(p, &end, 10);
        if (end == p || a < 0)
            return -1;
        long b = a;
        if (*end == '-') {
            const char *q = end + 1;
            b = strtol(q, &end, 10);
            if (end == q || b < a)
                return -1;
        }
        if (*end != ',' && *end != '\n' && *end != '\0')
            return -1;
        n += (int)(b - a + 1);
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

/* Counts the CPUs of a list file such as shared_cpu_list; 0 when unreadable or malformed. */
static int count_cpu_list(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char buf[4096] = {0};
    int n = 0;
    if (fgets(buf, sizeof buf, f))
        n = fy_machine_cpu_list_count(buf);
    fclose(f);
    return n > 0 ? n : 0;
}

static void read_caches(fy_machine_t *m)
{
    for (int i = 0; i < 8; i++) {
        char base[96], path[128], type[32] = {0};
        snprintf(base, sizeof base, "/sys/devices/system/cpu/cpu0/cache/index%d", i);
        int ok;
        snprintf(path, sizeof path, "%s/level", base);
        long level = read_long(path, &ok);
        if (!ok)
            break;
        snprintf(path, sizeof path, "%s/type", base);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(type, sizeof type, f))
                type[0] = '\0';
            fclose(f);
        }
        if (strncmp(type, "Instruction", 11) == 0)
            continue;
        snprintf(path, sizeof path, "%s/size", base);
        long size = read_long(path, &ok);
        snprintf(path, sizeof path, "%s/shared_cpu_list", base);
        int shared = count_cpu_list(path);
        if (level == 1) {
            m->l1d = (size_t)size;
        } else if (level == 2) {
            m->l2 = (size_t)size;
            m->l2_cpus = shared;
        } else if (level == 3) {
            m->l3 = (size_t)size;
            m->l3_cpus = shared;
        }
    }
}

/* The CPUs this process may run on: its own affinity mask, never another process's. */
static void read_allowed(fy_machine_t *m)
{
    cpu_set_t set;
    m->cpus_allowed = m->cpus_online;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 &&
        CPU_COUNT(&set) < m->cpus_online)
        m->cpus_allowed = CPU_COUNT(&set);
}

const fy_machine_t *fy_machine(void)
{
    if (facts_read)
        return &facts;
    read_model(facts.cpu_model, sizeof facts.cpu_model);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    facts.cpus_online = n > 0 ? (int)n : 1;
    read_allowed(&facts);
    read_caches(&facts);
    facts_read = 1;
    return &facts;
}

void fy_machine_set_facts(const fy_machine_t *from)
{
    if (facts_read)
        return;
    snprintf(facts.cpu_model, sizeof facts.cpu_model, "%s", from->cpu_model);
    facts.cpus_online = from->cpus_online > 0 ? from->cpus_online : 1;
    facts.l1d = from->l1d;
    facts.l2 = from->l2;
    facts.l3 = from->l3;
    facts.l2_cpus = from->l2_cpus;
    facts.l3_cpus = from->l3_cpus;
    read_allowed(&facts);
    facts_read = 1;
}

int fy_machine_calibrated(void)
{
    return fy_machine()->memcpy_cache_gbps > 0;
}

void fy_machine_set_costs(const fy_machine_t *from)
{
    fy_machine();
    facts.memcpy_cache_gbps = from->memcpy_cache_gbps;
    facts.memcpy_mem_gbps = from->memcpy_mem_gbps;
    facts.cma_gbps = from->cma_gbps;
    facts.wake_ns = from->wake_ns;
    facts.calib_source = from->calib_source;
    facts.calib_ms = from->calib_ms;
    facts.calib_busy = from->calib_busy;
    snprintf(facts.calib_path, sizeof facts.calib_path, "%s", from->calib_path);
}

int fy_machine_busy(void)
{
    /* "0.50 0.40 0.30 3/456 789": the fourth field counts running and runnable tasks. */
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f)
        return 0;
    int running = 0;
    if (fscanf(f, "%*s %*s %*s %d/", &running) != 1)
        running = 0;
    fclose(f);
    return running > 1 ? running - 1 : 0;
}

int fy_machine_busy_limit(const fy_machine_t *m)
{
    return m->cpus_online / 2 > 1 ? m->cpus_online / 2 : 1;
}

void fy_machine_no_cma(void)
{
    fy_machine();
    facts.cma_gbps = 0;
}

void fy_machine_key(const fy_machine_t *m, char *out, size_t len)
{
    struct utsname u;
    if (uname(&u) != 0)
        snprintf(u.release, sizeof u.release, "unknown");
    /* A sanitizer's memcpy is slower: its measurements must not become the plain build's. */
#if defined(__SANITIZE_ADDRESS__)
    const char *variant = ";asan";
#else
    const char *variant = "";
#endif
    snprintf(out, len, "model=%s;cpus=%d;l1d=%zu;l2=%zu;l3=%zu;kernel=%s%s", m->cpu_model,
             m->cpus_online, m->l1d, m->l2, m->l3, u.release, variant);
}
