/* The PMI-1 server: answers each rank's requests on its socket. It covers what Ferry's client
 * and MPICH's PMI-1 client send; requests we do not serve get an rc=-1 reply rather than
 * silence, so a client fails instead of hanging. */
#include "mpiexec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What get_maxes announces; MPICH sizes its buffers from these. */
#define KVSNAME_MAX 256
#define KEYLEN_MAX 64
#define VALLEN_MAX 1024

int fy_mpx_pmi_debug;

__attribute__((format(printf, 2, 3))) static void reply(fy_mpx_rank_t *r, const char *fmt, ...)
{
    char buf[FY_PMI_WIRE_MAX_LINE + 64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || r->pmi_fd < 0)
        return;
    if ((size_t)n > sizeof(buf) - 2)
        n = (int)sizeof(buf) - 2;
    if (fy_mpx_pmi_debug)
        fprintf(stderr, FY_MPX_PROG ": pmi rank %d <- %.*s\n", r->rank, n, buf);
    buf[n++] = '\n';
    /* A rank that died with requests in flight: its exit is handled elsewhere. */
    (void)fy_pmi_wire_write(r->pmi_fd, buf, (size_t)n);
}

typedef void handler_fn(fy_mpx_job_t *job, fy_mpx_rank_t *r, const fy_pmi_msg_t *m);

static void on_init(fy_mpx_job_t *job, fy_mpx_rank_t *r, const fy_pmi_msg_t *m)
{
    int ver = 1;
    if (fy_pmi_wire_get_int(m, "pmi_version", &ver) == 0 && ver != 1) {
        reply(r, "cmd=response_to_init rc=-1 pmi_version=1 pmi_subversion=1");
        return;
    }
    if (r->pmi_state == FY_MPX_PMI_NONE)
        r->pmi_state = FY_MPX_PMI_INIT;
    /* rank and size are extras for clients without PMI_RANK; others ignore unknown keys. */
    reply(r, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0 rank=%d size=%d", r->rank,
          job->size);
}

/* The older handshake of clients given PMI_ID instead of PMI_RANK. */
static void on_initack(fy_mpx_job_t *job, fy_mpx_rank_t *r, const fy_pmi_msg_t *m)
{
    (void)m;
    reply(r, "cmd=initack rc=0");
    reply(r, "cmd=set size=%d", job->size);
    reply(r, "cmd=set rank=%d", r->rank);
    reply(r, "cmd=set debug=0");
}

static void on_get_maxes(fy_mpx_job_t *job, fy_mpx_rank_t *r, const fy_pmi_msg_t *m)
{
    (void)job, (void)m;
    reply(r, "cmd=maxes rc=0 kvsname_max=%d keylen_max=%d vallen_max=%d", KVSNAME_MAX, KEYLEN_MAX,
          VALLEN_MAX);
}

static void on_get_appnum(fy_mpx_job_t *job, fy_mpx_rank_t *r, const fy_pmi_msg_t *m)
{
    (void)job, (void)m;
    reply(r, "cmd=appnum rc=0 appnum=%d", r->appnum);
}

static void on_get_my_kvsname(fy_mpx_job_t *job, fy_mpx_rank_t *r, const fy_pmi_msg_t *m)
{
    (void)m;
    reply(r, "cmd=my_kvsname rc=0 kvsname=%s", job->kvsname);
}

static void on_get_universe_size(fy_mpx_job_t *job, fy_mpx_rank_t *r, const fy_pmi_msg_t *m)
{
    (void)m;
    reply(r, "cmd=universe_size rc=0 size=%d", job->size);
}

static int kvsname_ok(const fy_mpx_job_t *job, const fy_pmi_msg_t *m)
{
    const char *k = fy_pmi_wire_get(m, "kvsname");
    return k == NULL || strcmp(k, job->kvsname) == 0;
}

static void on_put(fy_mpx_job_t *job, fy_mpx_rank_t *r, const fy_pmi_msg_t *m)
{
    const char *key = fy_pmi_wire_get(m, "key"), *val = fy_pmi_wire_get(m, "value");
    if (!kvsname_ok(job, m))
        reply(r, "cmd=put_result rc=-1 msg=unknown_kvsname");
    else if (key == NULL || *key == '\0' || val == NULL)
        reply(r, "cmd=put_result rc=-1 msg=missing_key_or_value");
    else if (fy_pmi_kvs_put(&job->kvs, key, val) != 0)
        reply(r, "cmd=put_result rc=-1 msg=out_of_memory");
    else {
        if (job->link != NULL && job->link->put != NULL)
            job->link->put(job, key, val); /* to the other hosts at the next barrier */
        reply(r, "cmd=put_result rc=0 msg=success");
    }
}

static void on_get(fy_mpx_job_t *job, fy_mpx_rank_t *r, const fy_pmi_msg_t *m)
{
    const char *key = fy_pmi_wire_get(m, "key");
    const char *val = key ? fy_pmi_kvs_get(&job->kvs, key) : NULL;
    if (!kvsname_ok(job, m))
        reply(r, "cmd=get_result rc=-1 msg=unknown_kvsname");
    else if (val == NULL)
        reply(r, "cmd=get_result rc=-1 msg=key_%s_not_found", key ? key : "");
    else
        reply(r, "cmd=get_result rc=0 msg=success value=%s", val);
}

/* A rank exited without ever starting MPI while others use it: their barrier (MPI_Init's
 * exchange) can never complete. Plain programs beside each other are fine; mixed with MPI
 * ranks they would hang the job, so it ends here with the reason. */
void fy_mpx_pmi_stalled(fy_mpx_job_t *job)
{
    fy_mpx_job_fail(job, job->plain_gone_code ? job->plain_gone_code : 1,
                    "rank %d%s exited with status %d without calling MPI_Init, and the other "
                    "ranks wait for it in MPI_Init",
                    job->plain_gone, job->where, job->plain_gone_code);
}

static void on_barrier_in(fy_mpx_job_t *job, fy_mpx_rank_t *r, const fy_pmi_msg_t *m)
{
    (void)m;
    if (r->in_barrier)
        return;
    r->in_barrier = 1;
    if (job->plain_gone >= 0) {
        fy_mpx_pmi_stalled(job);
        return;
    }
    if (++job->nbarrier < job->nranks)
        return;
    if (job->link != NULL && job->link->fence != NULL)
        job->link->fence(job); /* the barrier ends when every host's ranks are in it */
    else
        fy_mpx_pmi_barrier_out(job);
}

void fy_mpx_pmi_barrier_out(fy_mpx_job_t *job)
{
    for (int i = 0; i < job->nranks; i++) {
        fy_mpx_rank_t *o = &job->ranks[i];
        o->in_barrier = 0;
        reply(o, "cmd=barrier_out rc=0");
    }
    job->nbarrier = 0;
}

static void on_finalize(fy_mpx_job_t *job, fy_mpx_rank_t *r, const fy_pmi_msg_t *m)
{
    (void)job, (void)m;
    r->pmi_state = FY_MPX_PMI_FINALIZED;
    reply(r, "cmd=finalize_ack rc=0");
}

static void on_abort(fy_mpx_job_t *job, fy_mpx_rank_t *r, const fy_pmi_msg_t *m)
{
    int code = 1;
    fy_pmi_wire_get_int(m, "exitcode", &code);
    /* The job ends as exit(code) would end a process, as with MPICH and Open MPI: -1 gives 255,
     * 300 gives 44, 256 gives 0. The message names the code as given, and the status when it
     * differs. */
    int status = code & 0xff;
    char differs[32] = "";
    if (status != code)
        snprintf(differs, sizeof(differs), " (exit status %d)", status);
    const char *msg = fy_pmi_wire_get(m, "error_msg");
    if (msg != NULL && *msg != '\0')
        fy_mpx_job_fail(job, status, "rank %d%s called MPI_Abort with code %d%s: %s", r->rank,
                        job->where, code, differs, msg);
    else
        fy_mpx_job_fail(job, status, "rank %d%s called MPI_Abort with code %d%s", r->rank,
                        job->where, code, differs);
    /* No reply: the rank waits to be killed. */
}

static void on_getbyidx(fy_mpx_job_t *job, fy_mpx_rank_t *r, const fy_pmi_msg_t *m)
{
    (void)job, (void)m;
    reply(r, "cmd=getbyidx_results rc=-1 reason=no_more_keyvals");
}

static void on_name_service(fy_mpx_job_t *job, fy_mpx_rank_t *r, const fy_pmi_msg_t *m)
{
    (void)job;
    const char *cmd = fy_pmi_wire_get(m, "cmd");
    const char *res = strcmp(cmd, "publish_name") == 0     ? "publish_result"
                      : strcmp(cmd, "unpublish_name") == 0 ? "unpublish_result"
                                                           : "lookup_result";
    reply(r, "cmd=%s rc=-1 msg=name_service_not_supported_by_this_launcher", res);
}

static const struct {
    const char *cmd;
    handler_fn *fn;
} handlers[] = {
    {"init", on_init},
    {"initack", on_initack},
    {"get_maxes", on_get_maxes},
    {"get_appnum", on_get_appnum},
    {"get_my_kvsname", on_get_my_kvsname},
    {"get_universe_size", on_get_universe_size},
    {"put", on_put},
    {"get", on_get},
    {"barrier_in", on_barrier_in},
    {"finalize", on_finalize},
    {"abort", on_abort},
    {"getbyidx", on_getbyidx},
    {"publish_name", on_name_service},
    {"unpublish_name", on_name_service},
    {"lookup_name", on_name_service},
};

static void handle_line(fy_mpx_job_t *job, fy_mpx_rank_t *r, char *line)
{
    if (fy_mpx_pmi_debug)
        fprintf(stderr, FY_MPX_PROG ": pmi rank %d -> %s\n", r->rank, line);
    fy_pmi_msg_t m;
    if (fy_pmi_wire_parse(line, &m) != 0 || m.n == 0)
        return;
    const char *cmd = fy_pmi_wire_get(&m, "cmd");
    if (cmd == NULL)
        return;
    for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++) {
        if (strcmp(cmd, handlers[i].cmd) == 0) {
            handlers[i].fn(job, r, &m);
            return;
        }
    }
    reply(r, "cmd=%s_result rc=-1 msg=unknown_command", cmd);
}

/* A spawn request comes as `mcmd=spawn`, key=value lines, `endcmd`, once per command of
 * MPI_Comm_spawn_multiple; the client reads one reply, after the last block. */
static void handle_mcmd_line(fy_mpx_rank_t *r, const char *line)
{
    int tot, sofar;
    if (sscanf(line, "totspawns=%d", &tot) == 1)
        r->spawn_total = tot;
    else if (sscanf(line, "spawnssofar=%d", &sofar) == 1)
        r->spawn_last = sofar >= r->spawn_total;
    else if (strcmp(line, "endcmd") == 0) {
        r->in_mcmd = 0;
        if (r->spawn_last)
            reply(r, "cmd=spawn_result rc=-1 errcodes=-1 "
                     "errmsg=spawn_is_not_supported_by_this_launcher");
    }
}

void fy_mpx_pmi_input(fy_mpx_job_t *job, fy_mpx_rank_t *r, int drain)
{
    while (r->pmi_fd >= 0) {
        ssize_t n = fy_pmi_linebuf_fill(&r->pmi_in, r->pmi_fd, 1);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        char *line;
        while ((line = fy_pmi_linebuf_next(&r->pmi_in)) != NULL) {
            if (r->in_mcmd) {
                handle_mcmd_line(r, line);
            } else if (strncmp(line, "mcmd=", 5) == 0) {
                r->in_mcmd = 1;
                r->spawn_total = 1;
                r->spawn_last = 1;
            } else {
                handle_line(job, r, line);
            }
        }
        if (n <= 0) {
            fy_mpx_pmi_close(job, r); /* end of stream, or a line too long to be PMI */
            return;
        }
        if (!drain)
            return;
    }
}

void fy_mpx_pmi_close(fy_mpx_job_t *job, fy_mpx_rank_t *r)
{
    (void)job;
    if (r->pmi_fd < 0)
        return;
    close(r->pmi_fd);
    r->pmi_fd = -1;
    fy_pmi_linebuf_fini(&r->pmi_in);
}
