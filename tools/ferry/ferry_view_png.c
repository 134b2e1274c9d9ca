/* `ferry view --png OUTDIR`: each view of the page as OUTDIR/<view>.png, by headless Chromium
 * (`--screenshot`) on the page's file with the view's fragment (#timeline ...). The page draws
 * after it inflates its data, asynchronously; --virtual-time-budget makes Chromium run the page's
 * work before it takes the picture. Chromium gets a profile directory of its own (removed after)
 * and a hard time limit. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ferry_view.h"

#define CHROMIUM_SECONDS 120

static const char *const views[] = {"timeline", "profile", "matrix", "histogram"};

static int find_exe(const char *name, char *out, size_t len)
{
    if (strchr(name, '/')) {
        snprintf(out, len, "%s", name);
        return access(out, X_OK) == 0 ? 0 : -1;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        const char *c = strchr(path, ':');
        size_t n = c ? (size_t)(c - path) : strlen(path);
        snprintf(out, len, "%.*s/%s", (int)n, n ? path : ".", name);
        if (access(out, X_OK) == 0)
            return 0;
        path += n + (c ? 1 : 0);
    }
    return -1;
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(p);
    return 0;
}

/* file://path#frag with the path's unsafe characters %-encoded. */
static void file_url(const char *path, const char *frag, char *out, size_t len)
{
    size_t k = (size_t)snprintf(out, len, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p && k + 4 < len; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("/._-~", *p))
            out[k++] = (char)*p;
        else
            k += (size_t)snprintf(out + k, len - k, "%%%02X", *p);
    }
    snprintf(out + k, len - k, "#%s", frag);
}

/* Runs argv with stdout and stderr to `log`; its exit status, or -1 (could not run, timed out). */
static int run(char **argv, const char *log)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        setpgid(0, 0); /* its helpers in its own group: killed together on a timeout */
        execv(argv[0], argv);
        _exit(127);
    }
    setpgid(pid, pid);
    struct timespec nap = {0, 50 * 1000 * 1000};
    for (int i = 0; i < CHROMIUM_SECONDS * 20; i++) {
        int st;
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        nanosleep(&nap, NULL);
    }
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -2;
}

static void show_log(const char *log)
{
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f) && n < 20) {
        fprintf(stderr, "  | %s", line);
        n++;
    }
    fclose(f);
}

int view_png_browser(char *exe, size_t len)
{
    const char *want = getenv("FERRY_CHROMIUM");
    int found = want && *want ? find_exe(want, exe, len) == 0
                              : find_exe("chromium", exe, len) == 0 ||
                                    find_exe("chromium-browser", exe, len) == 0 ||
                                    find_exe("google-chrome", exe, len) == 0;
    if (!found) {
        fprintf(stderr, VIEW_WHO ": --png needs Chromium: %s not found (install chromium, or "
                        "set FERRY_CHROMIUM to the browser)\n",
                want && *want ? want : "chromium, chromium-browser or google-chrome");
        return -1;
    }
    return 0;
}

int view_png(const char *html, const char *outdir)
{
    char exe[PATH_MAX];
    if (view_png_browser(exe, sizeof exe) != 0)
        return -1;
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, VIEW_WHO ": --png %s: %s\n", outdir, strerror(errno));
        return -1;
    }
    const char *tmp = getenv("TMPDIR");
    char prof[PATH_MAX];
    snprintf(prof, sizeof prof, "%s/ferry-view-chromium.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(prof)) {
        fprintf(stderr, VIEW_WHO ": --png: a profile directory for Chromium in %s: %s\n",
                tmp && *tmp ? tmp : "/tmp", strerror(errno));
        return -1;
    }
    int rc = 0;
    for (size_t v = 0; v < sizeof views / sizeof views[0] && rc == 0; v++) {
        char shot[PATH_MAX + 64], url[3 * PATH_MAX + 64], log[PATH_MAX + 16];
        char a_shot[PATH_MAX + 80], a_prof[PATH_MAX + 32];
        snprintf(shot, sizeof shot, "%s/%s.png", outdir, views[v]);
        file_url(html, views[v], url, sizeof url);
        snprintf(log, sizeof log, "%s/log", prof);
        snprintf(a_shot, sizeof a_shot, "--screenshot=%s", shot);
        snprintf(a_prof, sizeof a_prof, "--user-data-dir=%s", prof);
        char *argv[] = {exe, "--headless", "--disable-gpu", "--hide-scrollbars",
                        "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                        "--allow-file-access-from-files", "--window-size=1400,900",
                        "--virtual-time-budget=30000", a_prof, a_shot,
                        geteuid() == 0 ? "--no-sandbox" : "--headless", url, NULL};
        struct stat sb;
        if (lstat(shot, &sb) == 0 && S_ISREG(sb.st_mode))
            unlink(shot); /* an earlier picture: its presence must not pass for this one */
        int st = run(argv, log);
        if (st != 0 || stat(shot, &sb) != 0 || sb.st_size == 0) {
            if (st == -2)
                fprintf(stderr, VIEW_WHO ": --png: %s did not finish %s.png in %d s\n", exe,
                        views[v], CHROMIUM_SECONDS);
            else
                fprintf(stderr, VIEW_WHO ": --png: %s made no %s (exit status %d); its output:\n",
                        exe, shot, st);
            show_log(log);
            rc = -1;
            break;
        }
        printf(VIEW_WHO ": %s\n", shot);
    }
    nftw(prof, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
}
