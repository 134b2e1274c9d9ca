/* addr2line, run as a child process (fy_addr2line.h). */
#include "fy_addr2line.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int fy_addr_module(const void *ra, char *module, size_t len, uint64_t *off)
{
    Dl_info di;
    struct link_map *lm = NULL;
    if (ra == NULL || dladdr1(ra, &di, (void **)&lm, RTLD_DL_LINKMAP) == 0 || lm == NULL)
        return -1;
    if (lm->l_name != NULL && lm->l_name[0] != '\0') {
        snprintf(module, len, "%s", lm->l_name);
    } else {
        ssize_t n = readlink("/proc/self/exe", module, len - 1);
        module[n > 0 ? n : 0] = '\0';
    }
    *off = (uint64_t)((uintptr_t)ra - (uintptr_t)lm->l_addr);
    return 0;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_unknown(char **file, char **func, int n, size_t len)
{
    for (int i = 0; i < n; i++) {
        snprintf(file[i], len, "??:0");
        snprintf(func[i], len, "??");
    }
}

int fy_addr2line(const char *module, const uint64_t *off, int n, char **file, char **func,
                 size_t len, const char *drop_prefix, int timeout_ms)
{
    set_unknown(file, func, n, len);
    if (n <= 0)
        return 0;
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    char **argv = calloc((size_t)n + 6, sizeof(char *));
    char *hex = calloc((size_t)n, 24);
    int nenv = 0;
    while (environ[nenv] != NULL)
        nenv++;
    char **envp = calloc((size_t)nenv + 1, sizeof(char *));
    if (argv == NULL || hex == NULL || envp == NULL) {
        free(argv), free(hex), free(envp);
        close(p[0]), close(p[1]);
        return -1;
    }
    int a = 0;
    argv[a++] = "addr2line";
    argv[a++] = "-f";
    argv[a++] = "-e";
    argv[a++] = (char *)module;
    for (int i = 0; i < n; i++) {
        snprintf(hex + 24 * i, 24, "0x%" PRIx64, off[i]);
        argv[a++] = hex + 24 * i;
    }
    int k = 0;
    size_t dl = drop_prefix ? strlen(drop_prefix) : 0;
    for (int i = 0; i < nenv; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 &&
            (dl == 0 || strncmp(environ[i], drop_prefix, dl) != 0))
            envp[k++] = environ[i];
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, "addr2line", &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    close(p[1]);
    if (rc != 0) {
        free(argv), free(hex);
        close(p[0]);
        return -1;
    }
    size_t cap = 4096 + (size_t)n * 256, got = 0;
    char *out = malloc(cap);
    long long until = now_ms() + timeout_ms;
    for (;;) {
        long long left = until - now_ms();
        struct pollfd pf = {.fd = p[0], .events = POLLIN};
        if (out == NULL || left <= 0 || poll(&pf, 1, (int)left) <= 0) {
            kill(pid, SIGKILL);
            break;
        }
        if (got + 1 == cap) {
            char *o2 = realloc(out, cap * 2);
            if (o2 == NULL)
                break;
            out = o2;
            cap *= 2;
        }
        ssize_t r = read(p[0], out + got, cap - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(p[0]);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    free(argv), free(hex);
    if (out == NULL)
        return -1;
    out[got] = '\0';
    /* Two lines per address: the function, then file:line (maybe " (discriminator N)"). */
    char *save = NULL, *line = strtok_r(out, "\n", &save);
    for (int i = 0; i < n && line != NULL; i++) {
        snprintf(func[i], len, "%s", line);
        line = strtok_r(NULL, "\n", &save);
        if (line == NULL)
            break;
        line[strcspn(line, " ")] = '\0';
        snprintf(file[i], len, "%s", line);
        line = strtok_r(NULL, "\n", &save);
    }
    free(out);
    return 0;
}
