/* Machine facts and their calibration (src/core/fy_machine*.c): CPU-list parsing, the facts
 * and the machine key, the cache directory and file name, the cache file's round trip, every
 * kind of bad file ignored (and measured over and rewritten by the calibration), the modes of
 * FERRY_CALIBRATE (cache, recalibrate, skip), a measurement made beside other work measured
 * again on a quiet machine, a directory that cannot be written (calibrated in
 * memory), and two processes calibrating at once on an empty cache (one measures, the other
 * reads its file). Every case works in its own temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fy_machine.h"
#include "unit.h"

static char tmp[256];

/* What the cases tell the calibration about the machine now: busy, so that a cached
 * measurement is used whatever the load was when it was made (test_busy covers the rest). */
#define BUSY_NOW 1000000

static void fresh_dir(void)
{
    static int n;
    snprintf(tmp, sizeof tmp, "/tmp/fy-machine-test-%ld-%d", (long)getpid(), n++);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (system(cmd) != 0 || mkdir(tmp, 0700) != 0)
        fprintf(stderr, "  cannot make %s\n", tmp);
}

static void remove_dirs(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf /tmp/fy-machine-test-%ld-*", (long)getpid());
    if (system(cmd) != 0)
        fprintf(stderr, "  cannot remove the test directories\n");
}

static int put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    fputs(text, f);
    return fclose(f) != 0;
}

/* Whether this kernel lets a process read itself with process_vm_readv. */
static int cma_works(void)
{
    char src[64] = "abc", dst[64] = "";
    struct iovec l = {dst, sizeof dst}, r = {src, sizeof src};
    return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == (ssize_t)sizeof dst;
}

static int costs_measured(const fy_machine_t *m)
{
    CHECK(m->memcpy_cache_gbps > 0);
    CHECK(m->memcpy_mem_gbps > 0);
    CHECK(m->wake_ns > 0);
    CHECK(m->calib_ms > 0);
    if (cma_works())
        CHECK(m->cma_gbps > 0);
    else
        CHECK(m->cma_gbps == 0);
    return 0;
}

static int test_cpu_list(void)
{
    CHECK_EQ(fy_machine_cpu_list_count("0-3,8,10-11\n"), 7);
    CHECK_EQ(fy_machine_cpu_list_count("0\n"), 1);
    CHECK_EQ(fy_machine_cpu_list_count("5"), 1);
    CHECK_EQ(fy_machine_cpu_list_count("0-127"), 128);
    CHECK_EQ(fy_machine_cpu_list_count("1,3,5,7\n"), 4);
    CHECK_EQ(fy_machine_cpu_list_count(""), 0);
    CHECK_EQ(fy_machine_cpu_list_count("\n"), 0);
    CHECK_EQ(fy_machine_cpu_list_count("5-2"), -1);
    CHECK_EQ(fy_machine_cpu_list_count("0-"), -1);
    CHECK_EQ(fy_machine_cpu_list_count("a"), -1);
    CHECK_EQ(fy_machine_cpu_list_count("1,,2"), -1);
    CHECK_EQ(fy_machine_cpu_list_count("1 2"), -1);
    CHECK_EQ(fy_machine_cpu_list_count("-1"), -1);
    return 0;
}

static int test_facts_and_key(void)
{
    const fy_machine_t *m = fy_machine();
    CHECK(m == fy_machine());
    CHECK(m->cpu_model[0] != '\0');
    CHECK(m->cpus_online >= 1);
    CHECK(m->cpus_allowed >= 1 && m->cpus_allowed <= m->cpus_online);
    /* Linux machines of any kind have an L1d and an L2 in sysfs; sharing is at least 1 CPU. */
    CHECK(m->l1d >= 4096);
    CHECK(m->l2 >= m->l1d);
    CHECK(m->l2_cpus >= 1);
    if (m->l3)
        CHECK(m->l3_cpus >= 1 && m->l3 >= m->l2);
    char k1[512], k2[512], want[64];
    fy_machine_key(m, k1, sizeof k1);
    fy_machine_key(m, k2, sizeof k2);
    CHECK(strcmp(k1, k2) == 0);
    CHECK(strstr(k1, m->cpu_model) != NULL);
    snprintf(want, sizeof want, ";cpus=%d;", m->cpus_online);
    CHECK(strstr(k1, want) != NULL);
    snprintf(want, sizeof want, ";l2=%zu;", m->l2);
    CHECK(strstr(k1, want) != NULL);
    CHECK(strstr(k1, ";kernel=") != NULL);
    CHECK(strchr(k1, '\n') == NULL);
    /* Another cache size or CPU count is another machine. */
    fy_machine_t other = *m;
    other.l3 += 1 << 20;
    fy_machine_key(&other, k2, sizeof k2);
    CHECK(strcmp(k1, k2) != 0);
    other = *m;
    other.cpus_online++;
    fy_machine_key(&other, k2, sizeof k2);
    CHECK(strcmp(k1, k2) != 0);
    return 0;
}

static int test_cache_dir_and_file(void)
{
    char *xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char d[512];
    int ok = 1;
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    setenv("HOME", "/h", 1);
    ok &= fy_machine_cache_dir(d, sizeof d) == 0 && strcmp(d, "/x/cache/ferry") == 0;
    setenv("XDG_CACHE_HOME", "relative", 1); /* invalid per the XDG spec: ignored */
    ok &= fy_machine_cache_dir(d, sizeof d) == 0 && strcmp(d, "/h/.cache/ferry") == 0;
    unsetenv("XDG_CACHE_HOME");
    ok &= fy_machine_cache_dir(d, sizeof d) == 0 && strcmp(d, "/h/.cache/ferry") == 0;
    unsetenv("HOME");
    ok &= fy_machine_cache_dir(d, sizeof d) == -1;
    if (xdg)
        setenv("XDG_CACHE_HOME", xdg, 1);
    if (home)
        setenv("HOME", home, 1);
    free(xdg);
    free(home);
    CHECK(ok);

    char a[512], b[512], c[512];
    CHECK_EQ(fy_machine_cache_file("/d", "key one", a, sizeof a), 0);
    CHECK_EQ(fy_machine_cache_file("/d", "key one", b, sizeof b), 0);
    CHECK_EQ(fy_machine_cache_file("/d", "key two", c, sizeof c), 0);
    CHECK(strcmp(a, b) == 0 && strcmp(a, c) != 0);
    CHECK(strncmp(a, "/d/machine-", 11) == 0 && strlen(a) == 11 + 16);
    CHECK(strspn(a + 11, "0123456789abcdef") == 16);
    char small[16];
    CHECK_EQ(fy_machine_cache_file("/a/long/directory", "k", small, sizeof small), -1);
    return 0;
}

static int test_round_trip(void)
{
    fresh_dir();
    char path[512];
    snprintf(path, sizeof path, "%s/machine-x", tmp);
    fy_machine_t w = {0}, r = {0};
    w.memcpy_cache_gbps = 41.123456789012345;
    w.memcpy_mem_gbps = 13.5;
    w.cma_gbps = 0; /* refused: a legal value */
    w.wake_ns = 3021;
    w.calib_ms = 27.25;
    CHECK_EQ(fy_machine_cache_write(path, "model=a b;c", &w), 0);
    CHECK_EQ(fy_machine_cache_read(path, "model=a b;c", &r), 0);
    CHECK(r.memcpy_cache_gbps == w.memcpy_cache_gbps); /* exact: %.17g */
    CHECK(r.memcpy_mem_gbps == w.memcpy_mem_gbps);
    CHECK(r.cma_gbps == 0);
    CHECK_EQ(r.wake_ns, 3021);
    CHECK(r.calib_ms == w.calib_ms);
    /* Another key: refused, r untouched. */
    fy_machine_t z = {0};
    CHECK_EQ(fy_machine_cache_read(path, "model=a b;d", &z), -1);
    CHECK(z.memcpy_cache_gbps == 0);
    /* No temporary file stays behind. */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test \"$(ls %s)\" = machine-x", tmp);
    CHECK(system(cmd) == 0);
    return 0;
}

static int test_bad_files(void)
{
    fresh_dir();
    char path[512];
    snprintf(path, sizeof path, "%s/machine-x", tmp);
    /* The good file, then bad ones made from it: HEAD plus the lines given. */
#define HEAD "ferry-machine 1\nkey K\n"
#define REST "memcpy_mem_gbps 12\ncma_gbps 11\nwake_ns 3000\ncalib_ms 25\n"
    const char *good = HEAD "# c\nmemcpy_cache_gbps 40\n" REST "busy 0\n";
    static const char *const bad[] = {
        "",
        "garbage\n",
        "\x7f" "ELF\x02\x01\x01",
        "ferry-machine 2\nkey K\nmemcpy_cache_gbps 40\n" REST "busy 0\n", /* a later format */
        "ferry-machine 1\nkey K2\nmemcpy_cache_gbps 40\n" REST "busy 0\n", /* foreign */
        HEAD "memcpy_cache_gbps 40\n" REST "busy 0",                       /* cut short */
        HEAD "memcpy_cache_gbps 40\n" REST,                                /* a field missing */
        HEAD "memcpy_cache_gbps 40\nmemcpy_cache_gbps 41\n" REST "busy 0\n", /* twice */
        HEAD "memcpy_cache_gbps nan\n" REST "busy 0\n",
        HEAD "memcpy_cache_gbps 0\n" REST "busy 0\n", /* not measured */
        HEAD "memcpy_cache_gbps 40x\n" REST "busy 0\n",
        HEAD "memcpy_cache_gbps 40\n" REST "busy -1\n",
        HEAD "memcpy_cache_gbps 40\n" REST "busy 1.5\n",
        HEAD "memcpy_cache_gbps 40\n" REST "busy 0\nspeed 9\n", /* unknown field */
        HEAD "memcpy_cache_gbps 40\nmemcpy_mem_gbps 12\ncma_gbps -1\nwake_ns 3000\n"
             "calib_ms 25\nbusy 0\n",
        HEAD "memcpy_cache_gbps 40\nmemcpy_mem_gbps 12\ncma_gbps 11\nwake_ns 0\n"
             "calib_ms 25\nbusy 0\n",
    };
#undef HEAD
#undef REST
    fy_machine_t m = {0};
    CHECK_OK(put_file(path, good));
    CHECK_EQ(fy_machine_cache_read(path, "K", &m), 0);
    CHECK(m.memcpy_cache_gbps == 40 && m.wake_ns == 3000);
    for (size_t i = 0; i < UNIT_COUNT(bad); i++) {
        CHECK_OK(put_file(path, bad[i]));
        fy_machine_t z = {0};
        if (fy_machine_cache_read(path, "K", &z) != -1 || z.memcpy_cache_gbps != 0) {
            fprintf(stderr, "  bad file %zu was accepted\n", i);
            return 1;
        }
    }
    /* Larger than any file of ours. */
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(good, f);
    for (int i = 0; i < 5000; i++)
        fputs("# padding\n", f);
    fclose(f);
    CHECK_EQ(fy_machine_cache_read(path, "K", &m), -1);
    CHECK_EQ(fy_machine_cache_read("/nonexistent/file", "K", &m), -1);
    return 0;
}

/* A corrupt or foreign cache file is measured over and rewritten with this machine's key. */
static int test_bad_file_rewritten(void)
{
    fresh_dir();
    char key[512], path[512];
    fy_machine_key(fy_machine(), key, sizeof key);
    CHECK_EQ(fy_machine_cache_file(tmp, key, path, sizeof path), 0);
    static const char *const junk[] = {
        "ferry-machine 1\nkey model=elsewhere\nmemcpy_cache_gbps 1\nmemcpy_mem_gbps 1\n"
        "cma_gbps 1\nwake_ns 1\ncalib_ms 1\nbusy 0\n",
        "\x01\x02 not ours at all",
    };
    for (size_t i = 0; i < UNIT_COUNT(junk); i++) {
        CHECK_OK(put_file(path, junk[i]));
        fy_machine_calibrate(FY_CALIBRATE_CACHE, tmp);
        const fy_machine_t *m = fy_machine();
        CHECK_EQ(m->calib_source, FY_MACHINE_MEASURED);
        CHECK(strcmp(m->calib_path, path) == 0);
        CHECK_OK(costs_measured(m));
        fy_machine_t r = {0};
        CHECK_EQ(fy_machine_cache_read(path, key, &r), 0);
        CHECK(r.memcpy_cache_gbps == m->memcpy_cache_gbps && r.wake_ns == m->wake_ns);
    }
    return 0;
}

static int test_modes(void)
{
    fresh_dir();
    char sub[300];
    snprintf(sub, sizeof sub, "%s/a/b/ferry", tmp); /* made as needed */
    fy_machine_calibrate_now(FY_CALIBRATE_CACHE, sub, BUSY_NOW);
    fy_machine_t first = *fy_machine();
    CHECK_EQ(first.calib_source, FY_MACHINE_MEASURED);
    CHECK(fy_machine_calibrated());
    CHECK_OK(costs_measured(&first));
    CHECK(strncmp(first.calib_path, sub, strlen(sub)) == 0);
    struct stat st;
    CHECK(stat(first.calib_path, &st) == 0 && S_ISREG(st.st_mode));
    CHECK(stat(sub, &st) == 0 && (st.st_mode & 0777) == 0700);

    /* Again: from the file, the same numbers. */
    fy_machine_calibrate_now(FY_CALIBRATE_CACHE, sub, BUSY_NOW);
    const fy_machine_t *m = fy_machine();
    CHECK_EQ(m->calib_source, FY_MACHINE_CACHED);
    CHECK(strcmp(m->calib_path, first.calib_path) == 0);
    CHECK(m->memcpy_cache_gbps == first.memcpy_cache_gbps);
    CHECK(m->memcpy_mem_gbps == first.memcpy_mem_gbps);
    CHECK(m->cma_gbps == first.cma_gbps);
    CHECK_EQ(m->wake_ns, first.wake_ns);
    CHECK(m->calib_ms == first.calib_ms);

    /* Recalibrate: measured, and the file holds the new numbers. */
    char saved[600];
    snprintf(saved, sizeof saved, "%s.saved", first.calib_path);
    CHECK_OK(rename(first.calib_path, saved) != 0);
    CHECK_OK(put_file(first.calib_path, "ferry-machine 1\n"));
    fy_machine_calibrate(FY_CALIBRATE_AGAIN, sub);
    m = fy_machine();
    CHECK_EQ(m->calib_source, FY_MACHINE_MEASURED);
    CHECK_OK(costs_measured(m));
    fy_machine_t r = {0};
    char key[512];
    fy_machine_key(m, key, sizeof key);
    CHECK_EQ(fy_machine_cache_read(m->calib_path, key, &r), 0);
    CHECK(r.memcpy_cache_gbps == m->memcpy_cache_gbps && r.calib_ms == m->calib_ms);
    /* Recalibrate measures even over a valid file. */
    CHECK_OK(rename(saved, first.calib_path) != 0);
    fy_machine_calibrate(FY_CALIBRATE_AGAIN, sub);
    CHECK_EQ(fy_machine()->calib_source, FY_MACHINE_MEASURED);

    /* Skip: facts only. */
    fy_machine_calibrate(FY_CALIBRATE_SKIP, sub);
    m = fy_machine();
    CHECK_EQ(m->calib_source, FY_MACHINE_NONE);
    CHECK(!fy_machine_calibrated());
    CHECK(m->memcpy_cache_gbps == 0 && m->memcpy_mem_gbps == 0 && m->cma_gbps == 0);
    CHECK_EQ(m->wake_ns, 0);
    CHECK(m->calib_path[0] == '\0');
    CHECK(m->l2 > 0 && m->cpus_online > 0); /* the facts stay */

    /* FERRY_CMA=0 zeroes this process's copy, not the file. */
    fy_machine_calibrate_now(FY_CALIBRATE_CACHE, sub, BUSY_NOW);
    fy_machine_no_cma();
    CHECK(fy_machine()->cma_gbps == 0);
    fy_machine_calibrate_now(FY_CALIBRATE_CACHE, sub, BUSY_NOW);
    if (cma_works())
        CHECK(fy_machine()->cma_gbps > 0);
    return 0;
}

/* A measurement made beside other work is measured again when nothing else runs now, and used
 * as long as the machine stays busy; one made on a quiet machine is always used. */
static int test_busy(void)
{
    fresh_dir();
    const fy_machine_t *f = fy_machine();
    int limit = fy_machine_busy_limit(f);
    CHECK(limit >= 1 && limit >= f->cpus_online / 2);
    CHECK(fy_machine_busy() >= 0);
    char key[512], path[512], text[1024];
    fy_machine_key(f, key, sizeof key);
    CHECK_EQ(fy_machine_cache_file(tmp, key, path, sizeof path), 0);
    const char *fmt = "ferry-machine 1\nkey %s\nmemcpy_cache_gbps 40\nmemcpy_mem_gbps 12\n"
                      "cma_gbps 11\nwake_ns 68000\ncalib_ms 25\nbusy %d\n";

    snprintf(text, sizeof text, fmt, key, limit); /* measured beside other work */
    CHECK_OK(put_file(path, text));
    fy_machine_calibrate_now(FY_CALIBRATE_CACHE, tmp, limit); /* still busy: used */
    CHECK_EQ(fy_machine()->calib_source, FY_MACHINE_CACHED);
    CHECK_EQ(fy_machine()->wake_ns, 68000);
    CHECK_EQ(fy_machine()->calib_busy, limit);
    fy_machine_calibrate_now(FY_CALIBRATE_CACHE, tmp, 0); /* quiet now: measured again */
    CHECK_EQ(fy_machine()->calib_source, FY_MACHINE_MEASURED);
    CHECK_OK(costs_measured(fy_machine()));
    fy_machine_t r = {0};
    CHECK_EQ(fy_machine_cache_read(path, key, &r), 0);
    CHECK(r.memcpy_cache_gbps == fy_machine()->memcpy_cache_gbps); /* and saved */
    CHECK_EQ(r.calib_busy, fy_machine()->calib_busy);

    snprintf(text, sizeof text, fmt, key, limit - 1); /* measured on a quiet machine */
    CHECK_OK(put_file(path, text));
    fy_machine_calibrate_now(FY_CALIBRATE_CACHE, tmp, 0);
    CHECK_EQ(fy_machine()->calib_source, FY_MACHINE_CACHED);
    fy_machine_calibrate_now(FY_CALIBRATE_CACHE, tmp, BUSY_NOW);
    CHECK_EQ(fy_machine()->calib_source, FY_MACHINE_CACHED);
    CHECK_EQ(fy_machine()->wake_ns, 68000);
    return 0;
}

/* Nowhere to write: measured in memory, every time, and nothing breaks. */
static int test_not_writable(void)
{
    fresh_dir();
    char file[300], dir[400];
    snprintf(file, sizeof file, "%s/plain-file", tmp);
    CHECK_OK(put_file(file, "x\n"));
    snprintf(dir, sizeof dir, "%s/ferry", file); /* under a regular file: ENOTDIR for anyone */
    fy_machine_calibrate(FY_CALIBRATE_CACHE, dir);
    const fy_machine_t *m = fy_machine();
    CHECK_EQ(m->calib_source, FY_MACHINE_MEASURED);
    CHECK(m->calib_path[0] == '\0');
    CHECK_OK(costs_measured(m));

    /* The directory exists but the file's name is taken by a directory: read and rename fail. */
    char key[512], path[512];
    fy_machine_key(fy_machine(), key, sizeof key);
    CHECK_EQ(fy_machine_cache_file(tmp, key, path, sizeof path), 0);
    CHECK(mkdir(path, 0700) == 0);
    fy_machine_calibrate(FY_CALIBRATE_CACHE, tmp);
    m = fy_machine();
    CHECK_EQ(m->calib_source, FY_MACHINE_MEASURED);
    CHECK(m->calib_path[0] == '\0');
    CHECK_OK(costs_measured(m));
    char cmd[700];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls %s | grep tmp)\"", tmp);
    CHECK(system(cmd) == 0); /* the failed write left no temporary file */

    /* Unprivileged, a read-only directory (root writes anyway, which the case above covers). */
    if (geteuid() != 0) {
        fresh_dir();
        CHECK(chmod(tmp, 0500) == 0);
        fy_machine_calibrate(FY_CALIBRATE_CACHE, tmp);
        CHECK_EQ(fy_machine()->calib_source, FY_MACHINE_MEASURED);
        CHECK(fy_machine()->calib_path[0] == '\0');
        chmod(tmp, 0700);
    }
    return 0;
}

/* Two processes calibrating at once on an empty cache: one measures, the other waits for its
 * file (the lock beside it) and reads it. */
static int test_one_measurer(void)
{
    fresh_dir();
    pid_t kids[2];
    int fds[2][2];
    for (int i = 0; i < 2; i++) {
        CHECK(pipe(fds[i]) == 0);
        kids[i] = fork();
        CHECK(kids[i] >= 0);
        if (kids[i] == 0) {
            fy_machine_calibrate_now(FY_CALIBRATE_CACHE, tmp, BUSY_NOW);
            const fy_machine_t *m = fy_machine();
            char line[128];
            int n = snprintf(line, sizeof line, "%d %.17g\n", m->calib_source,
                             m->memcpy_cache_gbps);
            _exit(write(fds[i][1], line, (size_t)n) == n ? 0 : 1);
        }
        close(fds[i][1]);
    }
    int sources[2] = {-1, -1};
    double rates[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        char line[128] = "";
        ssize_t n = read(fds[i][0], line, sizeof line - 1);
        close(fds[i][0]);
        int st;
        CHECK(waitpid(kids[i], &st, 0) == kids[i] && WIFEXITED(st) && WEXITSTATUS(st) == 0);
        CHECK(n > 0 && sscanf(line, "%d %lf", &sources[i], &rates[i]) == 2);
    }
    CHECK_EQ(sources[0] + sources[1], FY_MACHINE_MEASURED + FY_MACHINE_CACHED);
    CHECK(sources[0] != sources[1]);
    CHECK(rates[0] == rates[1] && rates[0] > 0);
    return 0;
}

static const unit_case_t cases[] = {
    {"cpu_list", test_cpu_list},
    {"facts_and_key", test_facts_and_key},
    {"cache_dir_and_file", test_cache_dir_and_file},
    {"round_trip", test_round_trip},
    {"bad_files", test_bad_files},
    {"bad_file_rewritten", test_bad_file_rewritten},
    {"modes", test_modes},
    {"busy", test_busy},
    {"not_writable", test_not_writable},
    {"one_measurer", test_one_measurer},
};

int main(void)
{
    int rc = unit_run(cases, UNIT_COUNT(cases));
    remove_dirs();
    return rc;
}
