/* The cache of `ferry run`. Layout, under $FERRY_CACHE, else $XDG_CACHE_HOME/ferry, else
 * ~/.cache/ferry (the directory `ferry info` keeps its machine files in), then run/:
 *   run/<key>/bundle            the program (ferry_run_bundle.c): what another host compiles
 *   run/<key>/<arch>.lock       flock'ed while one process compiles for that architecture
 *   run/<key>/<arch>/<stem>     the binary, named after the program (its argv[0] reads well)
 *   run/<key>/<arch>/manifest   the headers it was built from: "size mtime-ns sha256 path"
 * <arch> is the machine (uname, or $FERRY_RUN_ARCH) and a hash of the compiler's identity.
 *
 * A lookup trusts a header whose size and modification time match the manifest, else hashes it
 * again and compares (so a `touch` costs one hash, not a compile; the new time is then written
 * back). An entry is made in a
 * temporary directory beside it and renamed into place: a reader sees a whole entry or none.
 * Processes that miss together take the lock in turn: the first compiles, the others find its
 * entry when they get the lock. Known limit: a header that appears in an earlier include
 * directory after the entry was made (shadowing the one recorded) is not noticed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ferry_run.h"
#include "fy_sha256.h"

char *fy_run_expand_host(const char *s)
{
    char host[256];
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "unknown");
    host[sizeof(host) - 1] = '\0';
    size_t n = 0;
    for (const char *p = s; *p; p++)
        n += (p[0] == '%' && p[1] == 'h') ? strlen(host) : 1;
    char *out = fy_run_xalloc(n + 1), *o = out;
    for (const char *p = s; *p; p++) {
        if (p[0] == '%' && p[1] == 'h') {
            o += sprintf(o, "%s", host);
            p++;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return out;
}

void fy_run_arch(char *out, size_t n)
{
    const char *a = getenv("FERRY_RUN_ARCH");
    if (a != NULL && *a != '\0') {
        char *e = fy_run_expand_host(a);
        /* It names a directory: nothing that would leave it. */
        for (char *c = e; *c; c++)
            if (*c == '/' || (c == e && *c == '.'))
                *c = '_';
        snprintf(out, n, "%s", e);
        free(e);
        return;
    }
    struct utsname u;
    snprintf(out, n, "%s", uname(&u) == 0 ? u.machine : "unknown");
}

/* mkdir -p, each new level with `mode`. */
static int mkdirs(char *path, mode_t mode)
{
    for (char *s = path + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        int rc = mkdir(path, mode);
        int e = errno;
        *s = c;
        if (rc != 0 && e != EEXIST) {
            errno = e;
            return -1;
        }
        if (c == '\0')
            return 0;
    }
}

int fy_run_cache_dir(char *out, size_t n, int create, char *why, size_t nwhy)
{
    const char *fc = getenv("FERRY_CACHE"), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    char *base;
    char cwd[PATH_MAX];
    if (fc != NULL && *fc != '\0' && *fc != '/' && getcwd(cwd, sizeof cwd) != NULL) {
        /* Made absolute: the binary's path is handed to mpiexec and its ranks. */
        char *e = fy_run_expand_host(fc);
        base = fy_run_xprintf("%s/%s", cwd, e);
        free(e);
    } else if (fc != NULL && *fc != '\0')
        base = fy_run_expand_host(fc);
    else if (xdg != NULL && *xdg == '/')
        base = fy_run_xprintf("%s/ferry", xdg);
    else if (home != NULL && *home == '/')
        base = fy_run_xprintf("%s/.cache/ferry", home);
    else {
        snprintf(why, nwhy, "no cache directory: set FERRY_CACHE, XDG_CACHE_HOME or HOME");
        return -1;
    }
    if (snprintf(out, n, "%s/run", base) >= (int)n) {
        snprintf(why, nwhy, "the cache directory '%s' is too long a path", base);
        free(base);
        return -1;
    }
    if (create && mkdirs(out, 0700) != 0) {
        snprintf(why, nwhy, "cannot create the cache directory '%s': %s", out, strerror(errno));
        free(base);
        return -1;
    }
    free(base);
    return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

void fy_run_rmtree(const char *path)
{
    nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int fy_run_cache_clear(void)
{
    char dir[PATH_MAX], why[PATH_MAX + 128];
    if (fy_run_cache_dir(dir, sizeof dir, 0, why, sizeof why) != 0) {
        fprintf(stderr, "ferry run: %s\n", why);
        return FY_RUN_EXIT_FAIL;
    }
    struct stat st;
    if (lstat(dir, &st) != 0) {
        printf("ferry run: the cache '%s' is empty\n", dir);
        return 0;
    }
    fy_run_rmtree(dir);
    if (lstat(dir, &st) == 0) {
        fprintf(stderr, "ferry run: could not remove all of '%s'\n", dir);
        return FY_RUN_EXIT_FAIL;
    }
    printf("ferry run: removed the cache '%s'\n", dir);
    return 0;
}

static int write_file_atomic(const char *dir, const char *path, const char *buf, size_t len)
{
    char *tmp = fy_run_xprintf("%s/.tmp.XXXXXX", dir);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        free(tmp);
        return -1;
    }
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, buf + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            break;
        off += (size_t)w;
    }
    int rc = (close(fd) == 0 && off == len && rename(tmp, path) == 0) ? 0 : -1;
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}

/* 1 when every header of the manifest is as it was; else 0, with the first that is not (or
 * the manifest's own trouble) in why. A header found equal by its hash, its size or time having
 * changed (a `touch`, a regenerated mpi.h), gets its new size and time written back, so the
 * next lookups trust it by stat again. */
static int manifest_ok(const char *path, char *why, size_t nwhy)
{
    char *text;
    size_t len;
    if (fy_run_read_file(path, &text, &len) != 0) {
        snprintf(why, nwhy, "no entry");
        return 0;
    }
    int ok = 1, refresh = 0;
    char *fresh = fy_run_xalloc(len + 4096), *f = fresh; /* the times may grow a few digits */
    size_t room = len + 4096;
    for (char *line = text, *eol; ok && *line; line = eol + 1) {
        eol = strchr(line, '\n');
        if (eol == NULL)
            break;
        *eol = '\0';
        long long size, sec;
        long nsec;
        char hash[65];
        int off = 0;
        if (sscanf(line, "%lld %lld.%ld %64s %n", &size, &sec, &nsec, hash, &off) != 4 ||
            off == 0) {
            snprintf(why, nwhy, "a damaged manifest");
            ok = 0;
            break;
        }
        const char *h = line + off;
        struct stat st;
        if (stat(h, &st) != 0) {
            snprintf(why, nwhy, "header %s is gone", h);
            ok = 0;
        } else if (st.st_size == size && st.st_mtim.tv_sec == sec && st.st_mtim.tv_nsec == nsec) {
            /* as recorded */
        } else {
            char *ht;
            size_t hl;
            char hex[65];
            uint8_t d[32];
            if (fy_run_read_file(h, &ht, &hl) != 0) {
                snprintf(why, nwhy, "header %s cannot be read", h);
                ok = 0;
                continue;
            }
            fy_sha256(ht, hl, d);
            free(ht);
            for (int k = 0; k < 32; k++)
                snprintf(hex + 2 * k, 3, "%02x", d[k]);
            if (strcmp(hex, hash) != 0) {
                snprintf(why, nwhy, "header %s changed", h);
                ok = 0;
                continue;
            }
            refresh = 1;
        }
        int n = snprintf(f, room - (size_t)(f - fresh), "%lld %lld.%09ld %s %s\n",
                         (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                         hash, h);
        if (n < 0 || (size_t)n >= room - (size_t)(f - fresh))
            refresh = 0, f = fresh + room; /* no room: leave the manifest as it is */
        else
            f += n;
    }
    if (ok && refresh && f < fresh + room) {
        char *dir = fy_run_xstrdup(path);
        *strrchr(dir, '/') = '\0';
        write_file_atomic(dir, path, fresh, (size_t)(f - fresh)); /* best effort */
        free(dir);
    }
    free(fresh);
    free(text);
    return ok;
}

int fy_run_cache_bundle(const char *key, char **buf, size_t *len)
{
    char dir[PATH_MAX], why[PATH_MAX + 128];
    if (fy_run_cache_dir(dir, sizeof dir, 0, why, sizeof why) != 0)
        return -1;
    char *path = fy_run_xprintf("%s/%s/bundle", dir, key);
    int rc = fy_run_read_file(path, buf, len);
    free(path);
    return rc;
}

/* Compiles into a fresh directory beside the entry and renames it into place. */
static int make_entry(const fy_run_prog_t *p, const char *entry, const char *archdir,
                      int verbose, const char *who)
{
    /* Named after the architecture: only the holder of its lock makes them, so one found now
     * was left by a process killed while compiling, and can go. */
    const char *arch = strrchr(archdir, '/') + 1;
    char *stale = fy_run_xprintf(".new.%s.", arch);
    DIR *d = opendir(entry);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, stale, strlen(stale)) == 0) {
            char *path = fy_run_xprintf("%s/%s", entry, e->d_name);
            fy_run_rmtree(path);
            free(path);
        }
    }
    if (d != NULL)
        closedir(d);
    free(stale);
    char *tmp = fy_run_xprintf("%s/.new.%s.XXXXXX", entry, arch);
    if (mkdtemp(tmp) == NULL) {
        fprintf(stderr, "%s: cannot create a directory in '%s': %s\n", who, entry,
                strerror(errno));
        free(tmp);
        return FY_RUN_EXIT_FAIL;
    }
    int rc = fy_run_compile(p, tmp, verbose, who);
    if (rc != 0) {
        fy_run_rmtree(tmp);
        free(tmp);
        return rc;
    }
    /* An out-of-date entry is moved aside first (rename does not replace a full directory);
     * a rank still running its binary keeps it until it exits. */
    struct stat st;
    if (lstat(archdir, &st) == 0) {
        char *old = fy_run_xprintf("%s/.old.XXXXXX", entry);
        if (mkdtemp(old) != NULL && rename(archdir, old) == 0)
            fy_run_rmtree(old);
        free(old);
    }
    if (rename(tmp, archdir) != 0) {
        fprintf(stderr, "%s: cannot move the new binary to '%s': %s\n", who, archdir,
                strerror(errno));
        fy_run_rmtree(tmp);
        free(tmp);
        return FY_RUN_EXIT_FAIL;
    }
    free(tmp);
    return 0;
}

int fy_run_cache_get(const fy_run_prog_t *p, const char *bundle, size_t blen, const char *key,
                     int verbose, const char *who, char *exe, size_t nexe)
{
    char root[PATH_MAX], why[PATH_MAX + 128], arch[128], cid[32];
    if (fy_run_cache_dir(root, sizeof root, 1, why, sizeof why) != 0) {
        fprintf(stderr, "%s: %s\n", who, why);
        return FY_RUN_EXIT_FAIL;
    }
    fy_run_arch(arch, sizeof arch);
    fy_run_compiler_id(p, cid, sizeof cid);
    char *entry = fy_run_xprintf("%s/%s", root, key);
    char *archdir = fy_run_xprintf("%s/%s-%s", entry, arch, cid);
    char *man = fy_run_xprintf("%s/manifest", archdir);
    char *lockp = fy_run_xprintf("%s.lock", archdir);
    int rc = 0, lock = -1;
    snprintf(exe, nexe, "%s/%s", archdir, p->stem);
    snprintf(why, sizeof why, "no entry");

    /* The fast path: no lock, no compiler, no preprocessor. */
    if (access(exe, X_OK) == 0 && manifest_ok(man, why, sizeof why)) {
        if (verbose)
            fprintf(stderr, "%s: cache hit: %s\n", who, exe);
        goto out;
    }
    if (mkdir(entry, 0700) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: cannot create '%s': %s\n", who, entry, strerror(errno));
        rc = FY_RUN_EXIT_FAIL;
        goto out;
    }
    lock = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0) {
        fprintf(stderr, "%s: cannot open the lock '%s': %s\n", who, lockp, strerror(errno));
        rc = FY_RUN_EXIT_FAIL;
        goto out;
    }
    while (flock(lock, LOCK_EX) != 0) {
        if (fy_run_interrupted()) {
            rc = 128 + fy_run_interrupted();
            goto out;
        }
        if (errno != EINTR) {
            fprintf(stderr, "%s: cannot lock '%s': %s\n", who, lockp, strerror(errno));
            rc = FY_RUN_EXIT_FAIL;
            goto out;
        }
    }
    /* Someone may have compiled it while we waited. */
    if (access(exe, X_OK) == 0 && manifest_ok(man, why, sizeof why)) {
        if (verbose)
            fprintf(stderr, "%s: cache hit (compiled meanwhile by another process): %s\n", who,
                    exe);
        goto out;
    }
    if (verbose)
        fprintf(stderr, "%s: cache miss (%s) for %s\n", who, why, archdir);
    /* The bundle first: a host that must compile for itself reads it from here. */
    char *bpath = fy_run_xprintf("%s/bundle", entry);
    if (access(bpath, R_OK) != 0 && write_file_atomic(entry, bpath, bundle, blen) != 0)
        fprintf(stderr, "%s: cannot write '%s' (other hosts may not find the program): %s\n",
                who, bpath, strerror(errno));
    free(bpath);
    rc = make_entry(p, entry, archdir, verbose, who);
out:
    if (lock >= 0)
        close(lock); /* releases the flock */
    free(entry);
    free(archdir);
    free(man);
    free(lockp);
    return rc;
}
