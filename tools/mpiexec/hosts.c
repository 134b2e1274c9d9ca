/* The hosts of a job and where its ranks go (docs/plan-multihost.md, step 2).
 *
 * Hosts come from -hosts/-host lists and host files, in order; naming a host twice adds its
 * slots together. A host named with a count (`name:N`, `name slots=N`) or under -ppn has that
 * many slots, and more ranks than the hosts' slots is an error unless the user consents
 * (--oversubscribe); a host named without one has one slot that further passes may reuse, as
 * Hydra does. Placement is by blocks (fill each host's slots in order, then another pass) or
 * round-robin (one rank per host with a free slot, in turn). */
#include "mpiexec.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

int fy_mpx_host_is_local(const char *h)
{
    static const char *const local[] = {"localhost", "localhost.localdomain", "127.0.0.1", "::1"};
    for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++) {
        if (strcmp(h, local[i]) == 0)
            return 1;
    }
    char me[HOST_NAME_MAX + 1] = "";
    gethostname(me, sizeof(me) - 1);
    if (strcmp(h, me) == 0)
        return 1;
    /* "node1" names us when we are "node1.example.org", and the other way round. */
    size_t hl = strcspn(h, "."), ml = strcspn(me, ".");
    return hl == ml && hl > 0 && strncmp(h, me, hl) == 0 && (h[hl] == '\0' || me[ml] == '\0');
}

static int parse_slots(const char *what, const char *s, int *out, char *err, size_t len)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno != 0 || v < 1 || v > FY_MPX_MAX_RANKS)
        return fail(err, len, "%s needs a whole number from 1 to %d, not '%s'", what,
                    FY_MPX_MAX_RANKS, s);
    *out = (int)v;
    return 0;
}

/* Host names as a resolver takes them: letters, digits, '-', '.', '_' and, for addresses,
 * ':' and brackets are not needed here (IPv6 addresses are written without a port). */
static int name_ok(const char *n)
{
    if (*n == '\0' || *n == '-' || *n == '.')
        return 0;
    for (const char *p = n; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '.' || *p == '_'))
            return 0;
    return 1;
}

int fy_mpx_hosts_add(fy_mpx_hosts_t *hs, const char *name, int slots, int counted, char *err,
                     size_t len)
{
    if (!name_ok(name))
        return fail(err, len, "invalid host name '%s'", name);
    for (int i = 0; i < hs->n; i++)
        if (strcmp(hs->h[i].name, name) == 0) {
            /* Just above the limit at most, so that the sum still says "too many". */
            hs->h[i].slots = hs->h[i].slots + slots > FY_MPX_MAX_RANKS ? FY_MPX_MAX_RANKS + 1
                                                                       : hs->h[i].slots + slots;
            hs->h[i].counted |= counted;
            return 0;
        }
    fy_mpx_host_t *h = realloc(hs->h, sizeof(*h) * (size_t)(hs->n + 1));
    if (h == NULL)
        return fail(err, len, "out of memory");
    hs->h = h;
    h[hs->n] = (fy_mpx_host_t){strdup(name), slots, counted};
    if (h[hs->n].name == NULL)
        return fail(err, len, "out of memory");
    hs->n++;
    return 0;
}

/* "name" or "name:N" (a list's entry, or a host file's first word). */
static int add_spec(fy_mpx_hosts_t *hs, const char *spec, char *err, size_t len)
{
    char name[256];
    size_t n = strcspn(spec, ":");
    if (n == 0 || n >= sizeof(name))
        return fail(err, len, "invalid host '%s'", spec);
    memcpy(name, spec, n);
    name[n] = '\0';
    int slots = 1;
    if (spec[n] == ':' && parse_slots("host slots", spec + n + 1, &slots, err, len) != 0)
        return -1;
    return fy_mpx_hosts_add(hs, name, slots, spec[n] == ':', err, len);
}

int fy_mpx_hosts_add_list(fy_mpx_hosts_t *hs, const char *list, char *err, size_t len)
{
    char *copy = strdup(list), *save = NULL;
    if (copy == NULL)
        return fail(err, len, "out of memory");
    int rc = 0, any = 0;
    for (char *h = strtok_r(copy, ",", &save); h != NULL && rc == 0;
         h = strtok_r(NULL, ",", &save), any = 1)
        rc = add_spec(hs, h, err, len);
    free(copy);
    if (rc == 0 && !any)
        rc = fail(err, len, "empty host list '%s'", list);
    return rc;
}

int fy_mpx_hosts_add_file(fy_mpx_hosts_t *hs, const char *path, char *err, size_t len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return fail(err, len, "cannot open host file '%s': %s", path, strerror(errno));
    char line[1024];
    int lineno = 0, rc = 0, before = hs->n;
    while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        line[strcspn(line, "#\r\n")] = '\0';
        char *save = NULL, *host = strtok_r(line, " \t", &save);
        if (host == NULL)
            continue;
        char name[256];
        size_t n = strcspn(host, ":");
        int slots = 1, counted = host[n] == ':';
        if (n == 0 || n >= sizeof(name)) {
            rc = fail(err, len, "%s:%d: invalid host '%s'", path, lineno, host);
            break;
        }
        memcpy(name, host, n);
        name[n] = '\0';
        char why[128];
        if (counted && parse_slots("host slots", host + n + 1, &slots, why, sizeof why) != 0) {
            rc = fail(err, len, "%s:%d: %s", path, lineno, why);
            break;
        }
        for (char *tok = strtok_r(NULL, " \t", &save); tok && rc == 0;
             tok = strtok_r(NULL, " \t", &save)) {
            if (strncmp(tok, "slots=", 6) == 0) {
                if (parse_slots("slots", tok + 6, &slots, why, sizeof why) != 0)
                    rc = fail(err, len, "%s:%d: %s", path, lineno, why);
                counted = 1;
            } else if (strncmp(tok, "max_slots=", 10) != 0 && strncmp(tok, "max-slots=", 10) != 0) {
                rc = fail(err, len, "%s:%d: unknown word '%s' after the host (slots=N expected)",
                          path, lineno, tok);
            }
        }
        if (rc == 0 && fy_mpx_hosts_add(hs, name, slots, counted, why, sizeof why) != 0)
            rc = fail(err, len, "%s:%d: %s", path, lineno, why);
    }
    fclose(f);
    if (rc == 0 && hs->n == before)
        rc = fail(err, len, "host file '%s' names no host", path);
    return rc;
}

int fy_mpx_hosts_slots(const fy_mpx_hosts_t *hs, int ppn)
{
    long sum = 0;
    for (int i = 0; i < hs->n; i++)
        sum += ppn > 0 ? ppn : hs->h[i].slots;
    return sum > FY_MPX_MAX_RANKS ? FY_MPX_MAX_RANKS + 1 : (int)sum;
}

int fy_mpx_place(const fy_mpx_hosts_t *hs, int np, int ppn, int rr, int oversubscribe,
                 int *host_of, char *err, size_t len)
{
    int total = fy_mpx_hosts_slots(hs, ppn), counted = ppn > 0;
    for (int i = 0; i < hs->n && !counted; i++)
        counted = hs->h[i].counted;
    /* Counted slots are a limit the user stated; uncounted ones are just an order. */
    if (np > total && counted && !oversubscribe)
        return fail(err, len,
                    "%d ranks, but the hosts have %d slots: give fewer ranks (-n), more slots "
                    "(host:N, 'slots=N' in a host file, -ppn N), or add --oversubscribe",
                    np, total);
    int *used = rr ? calloc((size_t)hs->n, sizeof(*used)) : NULL; /* this pass, per host */
    if (rr && used == NULL)
        return fail(err, len, "out of memory");
    int r = 0;
    while (r < np) {
        /* One pass over the hosts' slots; a further pass when ranks remain (oversubscribed). */
        int placed = 0;
        if (rr) {
            memset(used, 0, sizeof(*used) * (size_t)hs->n);
            for (int progress = 1; progress && r < np;) {
                progress = 0;
                for (int i = 0; i < hs->n && r < np; i++) {
                    int cap = ppn > 0 ? ppn : hs->h[i].slots;
                    if (used[i] < cap) {
                        used[i]++;
                        host_of[r++] = i;
                        progress = placed = 1;
                    }
                }
            }
        } else {
            for (int i = 0; i < hs->n && r < np; i++) {
                int cap = ppn > 0 ? ppn : hs->h[i].slots;
                for (int k = 0; k < cap && r < np; k++, placed = 1)
                    host_of[r++] = i;
            }
        }
        if (!placed)
            break;
    }
    free(used);
    return 0;
}

void fy_mpx_hosts_free(fy_mpx_hosts_t *hs)
{
    for (int i = 0; i < hs->n; i++)
        free(hs->h[i].name);
    free(hs->h);
    hs->h = NULL;
    hs->n = 0;
}

/* Runs of consecutive ranks on one host, as (host, count); runs on consecutive hosts with the
 * same count merge into one block (first, hosts, count), as PMI-1 clients read it. */
int fy_mpx_process_mapping(const int *host_of, int np, char *out, size_t len)
{
    size_t pos = (size_t)snprintf(out, len, "(vector");
    int first = -1, nhosts = 0, per = 0;
    for (int r = 0; r <= np; r++) {
        int h = -1, count = 0;
        if (r < np) {
            h = host_of[r];
            count = 1;
            while (r + count < np && host_of[r + count] == h)
                count++;
        }
        if (first >= 0 && r < np && h == first + nhosts && count == per) {
            nhosts++;
        } else {
            if (first >= 0) {
                int n = snprintf(out + pos, pos < len ? len - pos : 0, ",(%d,%d,%d)", first,
                                 nhosts, per);
                pos += (size_t)n;
            }
            first = h;
            nhosts = 1;
            per = count;
        }
        if (r < np)
            r += count - 1;
    }
    int n = snprintf(out + pos, pos < len ? len - pos : 0, ")");
    pos += (size_t)n;
    return pos < len ? 0 : -1;
}
