/* `ferry farm`'s files: reading the task file (checked line by line, before anything runs),
 * formatting results records (CSV or JSON lines) and reading them back for --resume. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ferry.h"
#include "ferry_farm.h"

static const char CSV_HEADER[] = "task,line,status,exit,attempts,start,seconds,host,rank,command\n";

const char *fy_farm_results_header(void)
{
    return CSV_HEADER;
}

const char *fy_farm_status_name(int status)
{
    switch (status) {
    case FY_FARM_OK: return "ok";
    case FY_FARM_FAILED: return "failed";
    case FY_FARM_TIMEOUT: return "timeout";
    case FY_FARM_SKIPPED: return "skipped";
    }
    return "?";
}

/* Reads a whole file. NULL with errno set on failure. */
static char *slurp(const char *path, size_t *len_p)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, len = 0;
    char *p = malloc(cap + 1);
    while (p != NULL) {
        size_t got = fread(p + len, 1, cap - len, f);
        len += got;
        if (len < cap)
            break;
        cap *= 2;
        char *q = realloc(p, cap + 1);
        if (q == NULL) {
            free(p);
            p = NULL;
        }
        p = q;
    }
    int err = ferror(f) ? errno : 0;
    fclose(f);
    if (p == NULL || err) {
        free(p);
        errno = err ? err : ENOMEM;
        return NULL;
    }
    p[len] = '\0';
    *len_p = len;
    return p;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, min = 0x10000;
    else
        return 0;
    if (n < len)
        return 0;
    unsigned cp = c & (0xff >> (len + 1));
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[k] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* Checks one physical line (without its newline); returns NULL or what is wrong with it. */
static const char *bad_text(const char *s, size_t n, char *why, size_t whylen)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0) {
            snprintf(why, whylen, "a NUL byte at column %zu (not a text file?)", i + 1);
            return why;
        }
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            snprintf(why, whylen, "a control character (0x%02x) at column %zu", c, i + 1);
            return why;
        }
        size_t l = utf8_len((const unsigned char *)s + i, n - i);
        if (l == 0) {
            snprintf(why, whylen, "invalid UTF-8 (byte 0x%02x) at column %zu", c, i + 1);
            return why;
        }
        i += l;
    }
    return NULL;
}

int fy_farm_tasks_read(const char *who, const char *path, fy_farm_tasks_t *tasks_p)
{
    size_t len = 0;
    char *text = slurp(path, &len);
    if (text == NULL) {
        fprintf(stderr, "%s: cannot read the task file '%s': %s\n", who, path, strerror(errno));
        return -1;
    }
    fy_farm_tasks_t t = {NULL, 0};
    long cap = 0, lineno = 0, first = 0;
    char *cur = NULL; /* the task being joined */
    size_t curlen = 0;
    char why[128];
    int rc = -1;
    size_t at = 0;
    while (at < len) {
        char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        char *s = text + at;
        at += n + (nl != NULL);
        lineno++;
        if (n > 0 && s[n - 1] == '\r')
            n--; /* a file written on Windows */
        if (bad_text(s, n, why, sizeof why)) {
            fprintf(stderr, "%s: %s:%ld: %s\n", who, path, lineno, why);
            goto out;
        }
        int cont = n > 0 && s[n - 1] == '\\';
        if (cont)
            n--;
        if (cur == NULL) {
            size_t b = strspn(s, " \t");
            if (!cont && (b >= n || s[b] == '#'))
                continue; /* blank or a comment */
            if (b >= n && cont)
                continue;
            first = lineno;
        }
        if (curlen + n > FY_FARM_LINE_MAX) {
            fprintf(stderr, "%s: %s:%ld: the task is too long (more than %d bytes)\n", who, path,
                    first, FY_FARM_LINE_MAX);
            goto out;
        }
        char *q = realloc(cur, curlen + n + 1);
        if (q == NULL)
            goto nomem;
        cur = q;
        memcpy(cur + curlen, s, n);
        curlen += n;
        cur[curlen] = '\0';
        if (cont && nl != NULL)
            continue;
        if (strspn(cur, " \t") == curlen) { /* only continued blanks */
            free(cur);
            cur = NULL;
            curlen = 0;
            continue;
        }
        if (t.n == cap) {
            cap = cap ? cap * 2 : 64;
            fy_farm_task_t *v = realloc(t.v, (size_t)cap * sizeof *v);
            if (v == NULL)
                goto nomem;
            t.v = v;
        }
        t.v[t.n].cmd = cur;
        t.v[t.n].line = first;
        t.n++;
        cur = NULL;
        curlen = 0;
    }
    *tasks_p = t;
    t.v = NULL;
    t.n = 0;
    rc = 0;
    goto out;
nomem:
    fprintf(stderr, "%s: out of memory reading '%s'\n", who, path);
out:
    free(cur);
    fy_farm_tasks_free(&t);
    free(text);
    return rc;
}

void fy_farm_tasks_free(fy_farm_tasks_t *tasks)
{
    for (long i = 0; i < tasks->n; i++)
        free(tasks->v[i].cmd);
    free(tasks->v);
    tasks->v = NULL;
    tasks->n = 0;
}

int fy_farm_results_is_json(const char *path)
{
    size_t n = strlen(path);
    return (n >= 5 && strcmp(path + n - 5, ".json") == 0) ||
           (n >= 6 && strcmp(path + n - 6, ".jsonl") == 0);
}

/* Appends to buf at *at, never past size; *at may pass size (then the record did not fit). */
static void put(char *buf, size_t size, size_t *at, const char *s, size_t n)
{
    if (*at < size)
        memcpy(buf + *at, s, *at + n <= size ? n : size - *at);
    *at += n;
}

static void putf(char *buf, size_t size, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void putf(char *buf, size_t size, size_t *at, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        put(buf, size, at, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void put_json_string(char *buf, size_t size, size_t *at, const char *s)
{
    put(buf, size, at, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            put(buf, size, at, e, 2);
        } else if (c < 0x20) {
            putf(buf, size, at, "\\u%04x", c);
        } else {
            put(buf, size, at, s, 1);
        }
    }
    put(buf, size, at, "\"", 1);
}

static void put_csv_string(char *buf, size_t size, size_t *at, const char *s)
{
    put(buf, size, at, "\"", 1);
    for (; *s; s++) {
        if (*s == '"')
            put(buf, size, at, "\"", 1);
        put(buf, size, at, s, 1);
    }
    put(buf, size, at, "\"", 1);
}

/* "2026-11-26T11:40:00.123Z" */
static void iso_time(double t, char *out, size_t size)
{
    time_t sec = (time_t)t;
    struct tm tm;
    gmtime_r(&sec, &tm);
    int ms = (int)((t - (double)sec) * 1000.0);
    if (ms < 0 || ms > 999)
        ms = 0;
    size_t n = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, size - n, ".%03dZ", ms);
}

/* The exit column: the exit code, or the signal's name (SIGKILL), or empty (never ran). */
static void exit_text(const fy_farm_record_t *r, char *out, size_t size)
{
    if (r->signal > 0) {
        const char *abbrev = sigabbrev_np(r->signal);
        if (abbrev)
            snprintf(out, size, "SIG%s", abbrev);
        else
            snprintf(out, size, "SIG%d", r->signal);
    } else if (r->exit_code >= 0) {
        snprintf(out, size, "%d", r->exit_code);
    } else {
        out[0] = '\0';
    }
}

int fy_farm_record_format(const fy_farm_record_t *r, int json, char *buf, size_t size)
{
    char when[40] = "", ex[32];
    if (r->start > 0)
        iso_time(r->start, when, sizeof when);
    exit_text(r, ex, sizeof ex);
    size_t at = 0;
    if (json) {
        putf(buf, size, &at, "{\"task\":%ld,\"line\":%ld,\"status\":\"%s\",\"exit\":", r->task,
             r->line, fy_farm_status_name(r->status));
        if (r->signal > 0 || r->exit_code < 0)
            putf(buf, size, &at, ex[0] ? "\"%s\"" : "null", ex);
        else
            putf(buf, size, &at, "%d", r->exit_code);
        putf(buf, size, &at, ",\"attempts\":%d,\"start\":\"%s\",\"seconds\":%.3f,\"host\":",
             r->attempts, when, r->seconds);
        put_json_string(buf, size, &at, r->host ? r->host : "");
        putf(buf, size, &at, ",\"rank\":%d,\"command\":", r->rank);
        put_json_string(buf, size, &at, r->cmd);
        put(buf, size, &at, "}\n", 2);
    } else {
        putf(buf, size, &at, "%ld,%ld,%s,%s,%d,%s,%.3f,%s,%d,", r->task, r->line,
             fy_farm_status_name(r->status), ex, r->attempts, when, r->seconds,
             r->host ? r->host : "", r->rank);
        put_csv_string(buf, size, &at, r->cmd);
        put(buf, size, &at, "\n", 1);
    }
    return at <= size ? (int)at : -1;
}

/* The command field of a CSV record (after 9 commas), unquoted in place. */
static char *csv_command(char *line)
{
    char *p = line;
    for (int k = 0; k < 9; k++) {
        p = strchr(p, ',');
        if (p == NULL)
            return NULL;
        p++;
    }
    if (*p != '"')
        return p;
    char *out = p, *in = p + 1;
    for (;;) {
        if (*in == '\0')
            return NULL; /* unterminated */
        if (*in == '"') {
            if (in[1] == '"') {
                *out++ = '"';
                in += 2;
                continue;
            }
            break;
        }
        *out++ = *in++;
    }
    *out = '\0';
    return p;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The "command" string of a JSON record (as we write them), decoded in place. */
static char *json_command(char *line)
{
    char *p = strstr(line, ",\"command\":\"");
    if (p == NULL)
        return NULL;
    p += 12;
    char *out = p, *in = p;
    for (;;) {
        if (*in == '\0')
            return NULL;
        if (*in == '"')
            break;
        if (*in == '\\') {
            in++;
            if (*in == 'u') {
                int v = 0;
                for (int k = 1; k <= 4; k++) {
                    int h = hexval(in[k]);
                    if (h < 0)
                        return NULL;
                    v = v * 16 + h;
                }
                if (v >= 0x80)
                    return NULL; /* we write only control characters this way */
                *out++ = (char)v;
                in += 5;
                continue;
            }
            if (*in == '\0')
                return NULL;
        }
        *out++ = *in++;
    }
    *out = '\0';
    return p;
}

int fy_farm_results_read(const char *who, const char *path, const fy_farm_tasks_t *tasks,
                         unsigned char *done, long *nrecords_p, int *needs_newline_p)
{
    size_t len = 0;
    *nrecords_p = 0;
    *needs_newline_p = 0;
    char *text = slurp(path, &len);
    if (text == NULL) {
        if (errno == ENOENT)
            return 0;
        fprintf(stderr, "%s: cannot read the results file '%s': %s\n", who, path,
                strerror(errno));
        return -1;
    }
    int json = fy_farm_results_is_json(path);
    *needs_newline_p = len > 0 && text[len - 1] != '\n';
    long lineno = 0, n = 0;
    int rc = 0;
    for (char *s = text, *nl; rc == 0 && s < text + len; s = nl + 1) {
        nl = strchr(s, '\n');
        if (nl == NULL)
            break; /* a record cut short (the machine died while writing): not done */
        *nl = '\0';
        lineno++;
        if (*s == '\0')
            continue;
        if (!json && lineno == 1) {
            if (strcmp(s, "task,line,status,exit,attempts,start,seconds,host,rank,command") != 0) {
                fprintf(stderr, "%s: %s:1: not a results file of ferry farm (no CSV header)\n",
                        who, path);
                rc = -1;
                break;
            }
            continue;
        }
        long task = 0;
        char status[16] = "";
        int ok = json ? sscanf(s, "{\"task\":%ld,\"line\":%*d,\"status\":\"%15[a-z]\"", &task,
                               status) == 2
                      : sscanf(s, "%ld,%*d,%15[a-z],", &task, status) == 2;
        char *cmd = ok ? (json ? json_command(s) : csv_command(s)) : NULL;
        if ((!ok || cmd == NULL) && lineno == 1) {
            fprintf(stderr, "%s: %s:1: not a results file of ferry farm\n", who, path);
            rc = -1;
            break;
        }
        if (!ok || cmd == NULL) {
            /* A record cut short by a crash, ended by the newline the next run wrote. */
            fprintf(stderr, "%s: %s:%ld: not a complete record, ignored\n", who, path, lineno);
            continue;
        }
        if (task < 1 || task > tasks->n || strcmp(tasks->v[task - 1].cmd, cmd) != 0) {
            fprintf(stderr,
                    "%s: %s:%ld: task %ld was '%s', but the task file %s; it changed since: "
                    "restore it, or start again without --resume (another --results file)\n",
                    who, path, lineno, task, cmd,
                    task >= 1 && task <= tasks->n ? "has another command there"
                                                  : "has fewer tasks");
            rc = -1;
            break;
        }
        done[task - 1] = strcmp(status, "ok") == 0; /* the last record of a task counts */
        n++;
    }
    free(text);
    *nrecords_p = n;
    return rc;
}
