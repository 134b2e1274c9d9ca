/* A job across hosts, mpiexec's side (docs/DESIGN.md, "Launching across hosts").
 *
 * mpiexec runs job.c's loop with no ranks of its own and this file as the job's link: it
 * listens on TCP, starts proxies through the launcher agent (ssh, rsh, or the proxy itself for
 * hosts that are this machine and for -launcher fork) with the job's secret on the agent's
 * stdin, authenticates each proxy's connection (HMAC of our nonce), sends it its part of the
 * job, and then: writes the ranks' output as job.c does for local ranks, ends a PMI barrier
 * when every host's ranks are in it (one FENCE up and one KVS down per host and barrier), passes
 * stdin to rank 0's host, signals and failures to every host, and pings the proxies it talks to
 * each second (one silent for 5 s is taken for lost).
 *
 * Up to FERRY_PROXY_FANOUT (32) hosts, every proxy talks to mpiexec. Beyond, the hosts form a
 * tree: mpiexec starts that many proxies, each relaying for the subtree of hosts below it (and
 * so on down), with this same code in the proxy (fy_mpx_relay_*): it starts its children's
 * agents, authenticates them, wraps what they send in RELAY_UP and passes on what mpiexec sends
 * them in RELAY_DOWN; it reports a child connected (UP) or lost (LOST), and mpiexec keeps the
 * state of every host as in the flat case.
 */
#include "launch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

#define FANOUT 32 /* proxies one parent talks to (FERRY_PROXY_FANOUT) */

static launch_t *L_of(fy_mpx_job_t *job)
{
    return job->link_ctx;
}
/* ---- The job description ---- */

static void put_env(fy_px_buf_t *b, const fy_mpx_env_t *e)
{
    fy_px_put_u32(b, (uint32_t)e->n);
    for (int i = 0; i < e->n; i++)
        fy_px_put_str(b, e->var[i]);
}

void fy_mpx_launch_send_job(launch_t *L, host_t *h)
{
    const fy_mpx_opts_t *o = L->job->opts;
    size_t f;
    fy_px_buf_t *b = fy_mpx_dn_frame_begin(L, FY_PX_JOB, &f);
    fy_px_put_u32(b, (uint32_t)o->np);
    fy_px_put_u32(b, (uint32_t)h->id);
    fy_px_put_str(b, h->name);
    fy_px_put_str(b, L->job->kvsname);
    char cwd[PATH_MAX];
    fy_px_put_str(b, getcwd(cwd, sizeof(cwd)) ? cwd : "/");
    fy_px_put_u32(b, (uint32_t)o->env_none);
    uint32_t nenv = 0;
    for (char **e = environ; !o->env_none && *e != NULL; e++)
        nenv++;
    fy_px_put_u32(b, nenv);
    for (uint32_t i = 0; i < nenv; i++)
        fy_px_put_str(b, environ[i]);
    put_env(b, &o->env);
    fy_px_put_u32(b, (uint32_t)o->napps);
    for (int k = 0; k < o->napps; k++) {
        const fy_mpx_app_t *a = &o->app[k];
        fy_px_put_u32(b, (uint32_t)a->np);
        fy_px_put_str(b, a->prog);
        fy_px_put_str(b, a->wdir ? a->wdir : "");
        uint32_t argc = 0;
        while (a->argv[argc] != NULL)
            argc++;
        fy_px_put_u32(b, argc);
        for (uint32_t i = 0; i < argc; i++)
            fy_px_put_str(b, a->argv[i]);
        put_env(b, &a->env);
    }
    /* This host's ranks: world number and program. */
    fy_px_put_u32(b, (uint32_t)h->nranks);
    int app = 0, app_end = o->app[0].np;
    for (int r = 0; r < o->np; r++) {
        if (r == app_end)
            app_end += o->app[++app].np;
        if (o->host_of[r] != h->id)
            continue;
        fy_px_put_u32(b, (uint32_t)r);
        fy_px_put_u32(b, (uint32_t)app);
    }
    fy_px_put_u32(b, (uint32_t)(h == &L->h[L->rank0] && L->job->stdin_open));
    /* The KVS to start from. */
    char map[1024];
    int have_map = fy_mpx_process_mapping(o->host_of, o->np, map, sizeof(map)) == 0;
    fy_px_put_u32(b, (uint32_t)have_map);
    if (have_map) {
        fy_px_put_str(b, "PMI_process_mapping");
        fy_px_put_str(b, map);
    }
    /* The tree: what a proxy needs to start and serve the proxies below it. */
    fy_px_put_str(b, L->agent);
    fy_px_put_u32(b, (uint32_t)L->srun);
    fy_px_put_str(b, L->proxy_path);
    fy_px_put_u32(b, (uint32_t)h->ndesc);
    int top = (int)(h - L->h);
    for (int i = 0; i < L->nh; i++) {
        if (!fy_mpx_dn_is_below(L, i, top))
            continue;
        fy_px_put_u32(b, (uint32_t)i);
        fy_px_put_str(b, L->h[i].name);
        fy_px_put_u32(b, (uint32_t)L->h[i].parent);
    }
    fy_px_frame_end(b, f);
    fy_mpx_dn_send_frame(L, h);
    for (int dest = 1; dest <= 2; dest++)
        if (L->job->dest_broken[dest])
            fy_mpx_dn_send_broken(L, h, dest);
}

/* ---- Frames from proxies ---- */

static void fence_done(launch_t *L)
{
    size_t f;
    fy_px_buf_t *b = fy_mpx_dn_frame_begin(L, FY_PX_KVS, &f);
    fy_px_put_u32(b, L->fence_n);
    fy_px_put(b, L->fence.d + L->fence.off, L->fence.len - L->fence.off);
    fy_px_frame_end(b, f);
    fy_mpx_dn_send_all(L);
    L->fence.off = L->fence.len = 0;
    L->fence_n = 0;
    L->nfence = 0;
}

/* A host's ranks all ended without MPI (plain programs: a proxy sees its own such ranks, see
 * fy_mpx_pmi_stalled) while ranks elsewhere wait in MPI_Init's exchange for them. */
static void stalled(launch_t *L)
{
    for (int i = 0; i < L->nh; i++) {
        if (L->h[i].state == H_DONE) {
            fy_mpx_job_fail(L->job, 1,
                            "the ranks on host %s ended without calling MPI_Init, and the other "
                            "ranks wait for them in MPI_Init",
                            L->h[i].name);
            return;
        }
    }
}

/* In mpiexec: a frame of proxy h (sent by it, or relayed for it). */
int fy_mpx_launch_on_frame(launch_t *L, host_t *h, int type, fy_px_reader_t *r)
{
    fy_mpx_job_t *job = L->job;
    switch (type) {
    case FY_PX_OUT: {
        uint32_t rank = fy_px_get_u32(r), dest = fy_px_get_u32(r);
        size_t n;
        const char *p = fy_px_get_bytes(r, &n);
        if (r->bad || rank >= (uint32_t)job->size || (dest != 1 && dest != 2) || n == 0)
            return -1;
        int was_broken = job->dest_broken[dest];
        fy_mpx_emit(job, (int)rank, (int)dest, p, n);
        if (!was_broken && job->dest_broken[dest])
            fy_mpx_dn_send_broken(L, NULL, (int)dest);
        return 0;
    }
    case FY_PX_FENCE: {
        uint32_t n = fy_px_get_u32(r);
        for (uint32_t i = 0; i < 2 * n && !r->bad; i++) {
            size_t len;
            const void *p = fy_px_get_bytes(r, &len);
            if (p != NULL)
                fy_px_put_bytes(&L->fence, p, len);
        }
        if (r->bad)
            return -1;
        L->fence_n += n;
        if (++L->nfence == L->nh)
            fence_done(L);
        else if (L->ndone > 0)
            stalled(L);
        return 0;
    }
    case FY_PX_FAIL: {
        uint32_t code = fy_px_get_u32(r), has_msg = fy_px_get_u32(r);
        char *msg = has_msg ? fy_px_get_str(r) : NULL;
        if (r->bad) {
            free(msg);
            return -1;
        }
        if (msg != NULL)
            fy_mpx_job_fail(job, (int)(code & 0xff), "%s", msg);
        else
            fy_mpx_job_fail(job, (int)(code & 0xff), NULL);
        free(msg);
        return 0;
    }
    case FY_PX_DONE:
        h->state = H_DONE;
        fy_mpx_dn_host_close(h);
        /* All its ranks are gone: a fence started or to come can no longer complete. */
        if (++L->ndone < L->nh && L->nfence > 0)
            stalled(L);
        return 0;
    case FY_PX_PONG: return 0;
    case FY_PX_STDIN_ACK: L->stdin_unacked -= fy_px_get_u32(r); return r->bad ? -1 : 0;
    case FY_PX_UP:
        if (h->parent < 0 || h->state != H_STARTING)
            return -1;
        fy_mpx_dn_host_up_below(L, h);
        return 0;
    case FY_PX_LOST: {
        char *msg = fy_px_get_str(r);
        if (msg == NULL || h->parent < 0)
            return -1;
        fy_mpx_dn_lose(L, h, msg);
        free(msg);
        return 0;
    }
    default: return -1;
    }
}

/* ---- mpiexec's link ---- */

static int link_add(fy_mpx_job_t *job, struct pollfd *pfd)
{
    return fy_mpx_dn_add(L_of(job), pfd);
}

static void link_ready(fy_mpx_job_t *job, struct pollfd *pfd, int n)
{
    fy_mpx_dn_ready(L_of(job), pfd, n);
}

static long long link_tick(fy_mpx_job_t *job, long long now)
{
    return fy_mpx_dn_tick(L_of(job), now);
}

static int link_busy(fy_mpx_job_t *job)
{
    return fy_mpx_dn_busy(L_of(job));
}

static void link_child(fy_mpx_job_t *job)
{
    fy_mpx_dn_reap(L_of(job));
}

static void link_signal(fy_mpx_job_t *job, int sig)
{
    fy_mpx_dn_send_signal(L_of(job), sig);
}

static const fy_mpx_link_t launch_link = {
    .add = link_add,
    .ready = link_ready,
    .tick = link_tick,
    .busy = link_busy,
    .child = link_child,
    .signal = link_signal,
};

/* ---- Setting up, in mpiexec ---- */

/* Hosts lo..hi-1 hang off parent: at most `fanout` subtrees of nearly equal size, each led by
 * its first host. */
static void build_tree(launch_t *L, int lo, int hi, int parent, int fanout)
{
    int n = hi - lo;
    if (n <= 0)
        return;
    int g = n < fanout ? n : fanout, a = lo;
    for (int k = 0; k < g; k++) {
        int size = n / g + (k < n % g);
        L->h[a].parent = parent;
        build_tree(L, a + 1, a + size, a, fanout);
        a += size;
    }
}

int fy_mpx_launch(const fy_mpx_opts_t *opts)
{
    launch_t *L = calloc(1, sizeof(*L));
    if (L == NULL || fy_mpx_job_init(&L->own, opts, 0, opts->np) != 0) {
        fprintf(stderr, FY_MPX_PROG ": out of memory\n");
        return 1;
    }
    L->job = &L->own;
    fy_mpx_job_t *job = L->job;
    snprintf(job->kvsname, sizeof(job->kvsname), "fy%ldx%lx", (long)getpid(),
             (unsigned long)(fy_mpx_now_ms() & 0xffffffff));

    /* One proxy for each host with ranks, in host order. */
    const fy_mpx_hosts_t *hs = opts->hosts;
    int *count = calloc((size_t)hs->n, sizeof(*count));
    L->h = calloc((size_t)hs->n, sizeof(*L->h));
    if (count == NULL || L->h == NULL) {
        fprintf(stderr, FY_MPX_PROG ": out of memory\n");
        return 1;
    }
    for (int r = 0; r < opts->np; r++)
        count[opts->host_of[r]]++;
    const char *first_remote = NULL;
    for (int i = 0; i < hs->n; i++) {
        if (count[i] == 0)
            continue;
        host_t *h = &L->h[L->nh];
        *h = (host_t){.id = i, .index = L->nh, .name = hs->h[i].name, .nranks = count[i],
                      .parent = -1, .err_fd = -1, .conn = {.fd = -1}};
        if (opts->host_of[0] == i)
            L->rank0 = L->nh;
        if (first_remote == NULL && !fy_mpx_host_is_local(h->name))
            first_remote = h->name;
        L->nh++;
    }
    free(count);
    /* The tree (flat up to the fan-out). */
    const char *fo = getenv("FERRY_PROXY_FANOUT");
    int fanout = fo != NULL && atoi(fo) >= 2 ? atoi(fo) : FANOUT;
    build_tree(L, 0, L->nh, -1, fanout);
    for (int i = 0; i < L->nh; i++) {
        int j = i;
        while (L->h[j].parent >= 0) {
            j = L->h[j].parent;
            L->h[j].ndesc++;
        }
        L->h[i].via = j;
    }

    if (fy_mpx_find_proxy(L->proxy_path, sizeof(L->proxy_path)) != 0)
        return 1;
    if (strcmp(opts->launcher, "fork") != 0 || opts->launcher_exec != NULL) {
        L->srun = strcmp(opts->launcher, "slurm") == 0;
        const char *agent = opts->launcher_exec ? opts->launcher_exec
                            : L->srun           ? "srun"
                                                : opts->launcher;
        if (fy_mpx_find_program(agent, L->agent, sizeof(L->agent)) != 0) {
            if (opts->launcher_exec != NULL)
                fprintf(stderr, FY_MPX_PROG ": the launcher agent '%s' (-launcher-exec) is not "
                        "an executable file\n", agent);
            else
                fprintf(stderr, FY_MPX_PROG ": the launcher agent '%s' is not installed (not "
                        "in PATH); give -launcher-exec PATH, or -launcher fork to run every "
                        "proxy here\n", agent);
            return 1;
        }
    }
    if (fy_px_secret_new(L->secret) != 0) {
        fprintf(stderr, FY_MPX_PROG ": getrandom: %s\n", strerror(errno));
        return 1;
    }
    if (fy_mpx_listen_choose(&L->ls, opts->iface, L->agent[0] == '\0', first_remote) != 0)
        return 1;

    job->link = &launch_link;
    job->link_ctx = L;
    L->slots = job->link_slots = 2 + PEND_MAX + 2 * L->nh + 1;
    L->kind = calloc((size_t)L->slots, sizeof(*L->kind));
    L->who = calloc((size_t)L->slots, sizeof(*L->who));
    if (L->kind == NULL || L->who == NULL) {
        fprintf(stderr, FY_MPX_PROG ": out of memory\n");
        return 1;
    }
    int status = fy_mpx_job_exec(job);

    fy_mpx_dn_close_all(L);
    fy_px_buf_free(&L->fence);
    free(L->kind);
    free(L->who);
    free(L->h);
    free(L);
    return status;
}
