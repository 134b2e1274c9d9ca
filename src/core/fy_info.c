/* Info objects and their handle table (see fy_info.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fy_handle.h"
#include "fy_info.h"
#include "fy_runtime.h"

/* Published objects by handle index; freed slots are reused, most recent first. */
static fy_info_t **table;
static unsigned table_cap;
static unsigned *free_slots, nfree;

/* MPI_INFO_ENV, built on first use. Complete once MPI is initialized (size, thread level). */
static fy_info_t *env;
static int env_complete;

fy_info_t *fy_info_new(void)
{
    fy_info_t *info = calloc(1, sizeof *info);
    if (info)
        info->handle = MPI_INFO_NULL;
    return info;
}

static void free_entries(fy_info_t *info)
{
    for (int i = 0; i < info->n; i++) {
        free(info->kv[i].key);
        free(info->kv[i].value);
    }
    free(info->kv);
}

void fy_info_free(fy_info_t *info)
{
    if (!info)
        return;
    free_entries(info);
    free(info);
}

int fy_info_find(const fy_info_t *info, const char *key)
{
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->kv[i].key, key) == 0)
            return i;
    return -1;
}

int fy_info_set(fy_info_t *info, const char *key, const char *value)
{
    char *v = strdup(value);
    if (!v)
        return MPI_ERR_NO_MEM;
    int i = fy_info_find(info, key);
    if (i >= 0) { /* replaced in place: the key keeps its position */
        free(info->kv[i].value);
        info->kv[i].value = v;
        return MPI_SUCCESS;
    }
    if (info->n == info->cap) {
        int ncap = info->cap ? info->cap * 2 : 8;
        fy_info_kv_t *kv = realloc(info->kv, sizeof *kv * (size_t)ncap);
        if (!kv) {
            free(v);
            return MPI_ERR_NO_MEM;
        }
        info->kv = kv;
        info->cap = ncap;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return MPI_ERR_NO_MEM;
    }
    info->kv[info->n++] = (fy_info_kv_t){k, v};
    return MPI_SUCCESS;
}

int fy_info_delete(fy_info_t *info, const char *key)
{
    int i = fy_info_find(info, key);
    if (i < 0)
        return 0;
    free(info->kv[i].key);
    free(info->kv[i].value);
    memmove(&info->kv[i], &info->kv[i + 1], sizeof *info->kv * (size_t)(info->n - i - 1));
    info->n--;
    return 1;
}

int fy_info_merge(fy_info_t *to, const fy_info_t *from)
{
    for (int i = 0; i < from->n; i++) {
        int rc = fy_info_set(to, from->kv[i].key, from->kv[i].value);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

fy_info_t *fy_info_dup(const fy_info_t *from)
{
    fy_info_t *info = fy_info_new();
    if (info && fy_info_merge(info, from) != MPI_SUCCESS) {
        fy_info_free(info);
        info = NULL;
    }
    return info;
}

int fy_info_publish(fy_info_t *info, MPI_Info *h_p)
{
    unsigned slot;
    if (nfree) {
        slot = free_slots[--nfree];
    } else {
        unsigned ncap = table_cap ? table_cap * 2 : 64;
        fy_info_t **t = realloc(table, sizeof *t * ncap);
        if (t) {
            table = t;
            memset(t + table_cap, 0, sizeof *t * (ncap - table_cap));
        }
        unsigned *f = t ? realloc(free_slots, sizeof *f * ncap) : NULL;
        if (!f) {
            fy_info_free(info);
            return MPI_ERR_NO_MEM;
        }
        free_slots = f;
        /* New slots go on the free list highest first, so the lowest is taken next. */
        for (unsigned i = ncap; i > table_cap + 1; i--)
            free_slots[nfree++] = i - 1;
        slot = table_cap;
        table_cap = ncap;
    }
    info->handle = fy_handle_make(FY_HKIND_DIRECT, FY_HCLASS_INFO, slot);
    table[slot] = info;
    *h_p = info->handle;
    return MPI_SUCCESS;
}

void fy_info_unpublish(fy_info_t *info)
{
    unsigned slot = fy_handle_index(info->handle);
    table[slot] = NULL;
    free_slots[nfree++] = slot;
    fy_info_free(info);
}

/* ---- The environment ------------------------------------------------------------------- */

/* Appends `s` to buf (capacity MPI_MAX_INFO_VAL + 1), a space first unless buf is empty;
 * values stay within MPI_MAX_INFO_VAL so that users' fixed-size buffers hold them. */
static void append_word(char *buf, size_t *len, const char *s)
{
    size_t room = MPI_MAX_INFO_VAL - *len;
    int n = snprintf(buf + *len, room + 1, "%s%s", *len ? " " : "", s);
    *len += (size_t)n < room ? (size_t)n : room;
}

/* This process's command line, NUL-separated as the kernel keeps it: the count of words. */
static int own_cmdline(char *buf, size_t cap, size_t *len_p)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t len = 0;
    ssize_t r;
    while (len < cap - 1 && (r = read(fd, buf + len, cap - 1 - len)) > 0)
        len += (size_t)r;
    close(fd);
    buf[len] = '\0';
    int words = 0;
    for (size_t i = 0; i < len; i++)
        words += buf[i] == '\0';
    if (len && buf[len - 1] != '\0') /* cut short: the last word has no terminator */
        words++;
    *len_p = len;
    return words;
}

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

/* The keys of MPI-4's environment info, in the standard's order, as far as Ferry knows them:
 * "soft" and "file" have no meaning for Ferry's launcher and are left out. */
fy_info_t *fy_info_env_new(int argc, char **argv)
{
    enum { CMDLINE_MAX = 65536 };
    fy_info_t *info = fy_info_new();
    char *val = malloc(MPI_MAX_INFO_VAL + 1), *cmdline = NULL;
    if (!info || !val)
        goto err;
    int rc = MPI_SUCCESS;

    /* command and argv */
    const char *command = NULL;
    size_t len = 0;
    val[0] = '\0';
    if (argc > 0 && argv && argv[0]) {
        command = argv[0];
        for (int i = 1; i < argc && argv[i]; i++)
            append_word(val, &len, argv[i]);
    } else if ((cmdline = malloc(CMDLINE_MAX))) {
        size_t n;
        int words = own_cmdline(cmdline, CMDLINE_MAX, &n);
        if (words > 0) {
            command = cmdline;
            for (size_t off = strlen(cmdline) + 1; off < n; off += strlen(cmdline + off) + 1)
                append_word(val, &len, cmdline + off);
        }
    }
    if (command) {
        char cmd[MPI_MAX_INFO_VAL + 1];
        snprintf(cmd, sizeof cmd, "%s", command);
        rc = fy_info_set(info, "command", cmd);
        if (rc == MPI_SUCCESS)
            rc = fy_info_set(info, "argv", val);
    }

    /* maxprocs: the size of MPI_COMM_WORLD, from the launcher before MPI_Init (a process
     * started without one is a singleton). The same keys before and after MPI_Init. */
    int size = 0;
    if (fy_rt.initialized) {
        size = fy_rt.size;
    } else {
        const char *s = getenv("PMI_SIZE");
        size = s ? atoi(s) : 1;
    }
    if (rc == MPI_SUCCESS && size > 0) {
        snprintf(val, MPI_MAX_INFO_VAL + 1, "%d", size);
        rc = fy_info_set(info, "maxprocs", val);
    }

    /* host and arch */
    if (rc == MPI_SUCCESS && gethostname(val, MPI_MAX_INFO_VAL) == 0) {
        val[MPI_MAX_INFO_VAL - 1] = '\0';
        rc = fy_info_set(info, "host", val);
    }
    struct utsname u;
    if (rc == MPI_SUCCESS && uname(&u) == 0)
        rc = fy_info_set(info, "arch", u.machine);

    /* wdir */
    if (rc == MPI_SUCCESS && getcwd(val, MPI_MAX_INFO_VAL + 1))
        rc = fy_info_set(info, "wdir", val);

    /* thread_level: the level provided, once MPI_Init has decided it; before, the level
     * MPI_Init gives (no level is requested before a program starts). */
    if (rc == MPI_SUCCESS)
        rc = fy_info_set(info, "thread_level",
                         thread_level_name(fy_rt.initialized ? fy_rt.thread_level
                                                             : MPI_THREAD_SINGLE));
    if (rc != MPI_SUCCESS)
        goto err;
    free(cmdline);
    free(val);
    return info;
err:
    free(cmdline);
    free(val);
    fy_info_free(info);
    return NULL;
}

fy_info_t *fy_info_get(MPI_Info h)
{
    if (h == MPI_INFO_ENV) {
        if (!env || (!env_complete && fy_rt.initialized)) {
            fy_info_t *e = fy_info_env_new(0, NULL);
            if (!e)
                return env; /* keep what there is, if anything */
            fy_info_free(env);
            env = e;
            env->handle = MPI_INFO_ENV;
            env_complete = fy_rt.initialized;
        }
        return env;
    }
    if (fy_handle_kind(h) != FY_HKIND_DIRECT || fy_handle_class(h) != FY_HCLASS_INFO)
        return NULL;
    unsigned i = fy_handle_index(h);
    return i < table_cap ? table[i] : NULL;
}
