/* The per-machine cache of the calibration, and the calibration of one process
 * (fy_machine_calibrate): read the file, else measure under a lock and write it.
 *
 * The file is text, one "name value" per line, read only when its first line is the format
 * line and its key line is this machine's key exactly (the file name holds a hash of the key;
 * the key inside tells a collision or a copied file apart):
 *
 *   ferry-machine 1
 *   # Ferry's calibration of this machine (docs/DESIGN.md); delete the file to measure again
 *   key model=AMD EPYC 9R14;cpus=2;l1d=32768;l2=1048576;l3=33554432;kernel=6.1.0
 *   memcpy_cache_gbps 39.5
 *   memcpy_mem_gbps 11.2
 *   cma_gbps 9.8
 *   wake_ns 5120
 *   calib_ms 28.4
 *   busy 0
 *
 * Writers write a temporary file and rename it over the name, so a reader sees a whole file or
 * none; anything else (a torn file from a crash, an edit, another format) is measured over. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fy_machine.h"

#define FORMAT_LINE "ferry-machine 1"
#define MAX_FILE 4096

int fy_machine_cache_dir(char *out, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    /* The XDG spec: a relative XDG_CACHE_HOME is invalid and ignored. */
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(out, len, "%s/ferry", xdg);
    else if (home && home[0] == '/')
        n = snprintf(out, len, "%s/.cache/ferry", home);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int fy_machine_cache_file(const char *dir, const char *key, char *out, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    int n = snprintf(out, len, "%s/machine-%016llx", dir, (unsigned long long)h);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

static int plausible_rate(double v, int zero_ok)
{
    return isfinite(v) && (v > 0 || (zero_ok && v == 0)) && v < 10000;
}

int fy_machine_cache_read(const char *path, const char *key, fy_machine_t *m)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char buf[MAX_FILE + 1];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (n == 0 || n > MAX_FILE)
        return -1;
    buf[n] = '\0';
    if (strlen(buf) != n)
        return -1; /* a NUL inside: not our text */

    fy_machine_t v = {0};
    int seen = 0; /* one bit per field below */
    int line_no = 0;
    for (char *line = buf, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (!next)
            return -1; /* every line of ours ends with a newline: this one was cut */
        *next++ = '\0';
        if (line_no++ == 0) {
            if (strcmp(line, FORMAT_LINE) != 0)
                return -1;
            continue;
        }
        if (line[0] == '#')
            continue;
        char *sp = strchr(line, ' ');
        if (!sp)
            return -1;
        *sp = '\0';
        const char *name = line, *val = sp + 1;
        if (strcmp(name, "key") == 0) {
            if (strcmp(val, key) != 0)
                return -1; /* another machine's (or kernel's) file */
            seen |= 1;
            continue;
        }
        char *end;
        double d = strtod(val, &end);
        if (end == val || *end != '\0')
            return -1;
        int bit;
        if (strcmp(name, "memcpy_cache_gbps") == 0) {
            bit = 2;
            v.memcpy_cache_gbps = d;
        } else if (strcmp(name, "memcpy_mem_gbps") == 0) {
            bit = 4;
            v.memcpy_mem_gbps = d;
        } else if (strcmp(name, "cma_gbps") == 0) {
            bit = 8;
            v.cma_gbps = d;
        } else if (strcmp(name, "wake_ns") == 0) {
            bit = 16;
            if (!(d > 0 && d < 1e9))
                return -1;
            v.wake_ns = (int64_t)d;
        } else if (strcmp(name, "calib_ms") == 0) {
            bit = 32;
            v.calib_ms = d;
        } else if (strcmp(name, "busy") == 0) {
            bit = 64;
            if (!(d >= 0 && d < 1e6 && d == (int)d))
                return -1;
            v.calib_busy = (int)d;
        } else {
            return -1;
        }
        if (seen & bit)
            return -1;
        seen |= bit;
    }
    if (seen != 127 || !plausible_rate(v.memcpy_cache_gbps, 0) ||
        !plausible_rate(v.memcpy_mem_gbps, 0) || !plausible_rate(v.cma_gbps, 1) ||
        !(isfinite(v.calib_ms) && v.calib_ms >= 0 && v.calib_ms < 1e6))
        return -1;
    m->memcpy_cache_gbps = v.memcpy_cache_gbps;
    m->memcpy_mem_gbps = v.memcpy_mem_gbps;
    m->cma_gbps = v.cma_gbps;
    m->wake_ns = v.wake_ns;
    m->calib_ms = v.calib_ms;
    m->calib_busy = v.calib_busy;
    return 0;
}

int fy_machine_cache_write(const char *path, const char *key, const fy_machine_t *m)
{
    char tmp[600];
    int len = snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    if (len < 0 || (size_t)len >= sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        return -1;
    }
    /* %.17g: the values read back are the values written. */
    fprintf(f,
            FORMAT_LINE "\n"
                        "# Ferry's calibration of this machine (docs/DESIGN.md); delete the file "
                        "to measure again\n"
                        "key %s\n"
                        "memcpy_cache_gbps %.17g\n"
                        "memcpy_mem_gbps %.17g\n"
                        "cma_gbps %.17g\n"
                        "wake_ns %lld\n"
                        "calib_ms %.17g\n"
                        "busy %d\n",
            key, m->memcpy_cache_gbps, m->memcpy_mem_gbps, m->cma_gbps, (long long)m->wake_ns,
            m->calib_ms, m->calib_busy);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e ? e : EIO;
        return -1;
    }
    return 0;
}

/* mkdir -p with mode 0700 for what it creates (the cache is the user's own). */
static int make_dirs(const char *dir)
{
    char p[512];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p)
        return -1;
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST)
            return -1;
        *s = c;
        if (c == '\0')
            break;
    }
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

static void measure_into(const fy_machine_t *facts, fy_machine_t *c)
{
    fy_machine_measure(facts, c);
    c->calib_source = FY_MACHINE_MEASURED;
}

/* Whether a cached measurement is to be used: yes, unless it was made beside other work and
 * nothing else runs now (then a measurement now is better, and cheap). */
static int usable(const fy_machine_t *facts, const fy_machine_t *c, int busy_now)
{
    int limit = fy_machine_busy_limit(facts);
    return c->calib_busy < limit || busy_now >= limit;
}

void fy_machine_calibrate(int mode, const char *dir)
{
    fy_machine_calibrate_now(mode, dir, fy_machine_busy());
}

void fy_machine_calibrate_now(int mode, const char *dir, int busy_now)
{
    const fy_machine_t *facts = fy_machine();
    fy_machine_t c = {0};
    if (mode == FY_CALIBRATE_SKIP) {
        fy_machine_set_costs(&c);
        return;
    }
    char key[512], dirbuf[512], path[512];
    fy_machine_key(facts, key, sizeof key);
    if (!dir && fy_machine_cache_dir(dirbuf, sizeof dirbuf) == 0)
        dir = dirbuf;
    if (!dir || make_dirs(dir) != 0 || fy_machine_cache_file(dir, key, path, sizeof path) != 0) {
        measure_into(facts, &c); /* nowhere to keep it: this process only */
        fy_machine_set_costs(&c);
        return;
    }
    if (mode == FY_CALIBRATE_CACHE && fy_machine_cache_read(path, key, &c) == 0 &&
        usable(facts, &c, busy_now)) {
        c.calib_source = FY_MACHINE_CACHED;
        snprintf(c.calib_path, sizeof c.calib_path, "%s", path);
        fy_machine_set_costs(&c);
        return;
    }
    /* One measurer per machine at a time: two at once would each measure the other. Whoever
     * waited finds the file written by the one before. */
    char lock[600];
    int n = snprintf(lock, sizeof lock, "%s.lock", path);
    int lfd = n > 0 && (size_t)n < sizeof lock ? open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644) : -1;
    if (lfd >= 0)
        while (flock(lfd, LOCK_EX) != 0 && errno == EINTR)
            ;
    memset(&c, 0, sizeof c);
    if (lfd >= 0 && mode == FY_CALIBRATE_CACHE && fy_machine_cache_read(path, key, &c) == 0 &&
        usable(facts, &c, busy_now)) {
        c.calib_source = FY_MACHINE_CACHED;
        snprintf(c.calib_path, sizeof c.calib_path, "%s", path);
    } else {
        memset(&c, 0, sizeof c);
        measure_into(facts, &c);
        if (fy_machine_cache_write(path, key, &c) == 0)
            snprintf(c.calib_path, sizeof c.calib_path, "%s", path);
    }
    if (lfd >= 0)
        close(lfd); /* releases the lock */
    fy_machine_set_costs(&c);
}
