/* ferry-otf2 DIR: converts DIR/ferry/rank.*.fyt to the OTF2 archive DIR/traces.otf2 (with
 * DIR/traces.def and DIR/traces/). Run by mpiexec after a traced job, or by hand.
 *
 * Events first, then definitions (OTF2 allows either order; after, we know each location's
 * event count and the windows used). The event pass runs on min(ranks, cores) threads, each
 * taking the next rank: OTF2's archive is made thread-safe by its pthread locking callbacks and
 * each location has its own event writer. It never touches the raw files; an earlier archive of
 * the same name is replaced. */
#include <errno.h>
#include <otf2/OTF2_Pthread_Locks.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "ferry_otf2.h"

#define WHO "ferry-otf2"

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *cb,
                                bool final)
{
    (void)user, (void)type, (void)loc, (void)cb, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)user, (void)type, (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks flush_cbs = {.otf2_pre_flush = pre_flush,
                                              .otf2_post_flush = post_flush};

typedef struct job {
    OTF2_Archive *ar;
    fy_trace_t *tr;
    fyo_rank_out_t *outs;
    atomic_int next;
} job_t;

static void *worker(void *arg)
{
    job_t *j = arg;
    for (;;) {
        int r = atomic_fetch_add(&j->next, 1);
        if (r >= j->tr->nranks)
            return NULL;
        fyo_write_rank(j->ar, j->tr, r, &j->outs[r]);
    }
}

/* Removes an earlier archive: DIR/traces.{otf2,def} and DIR/traces/ (OTF2's files only). */
static int remove_old(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/traces.otf2", dir);
    if (access(p, F_OK) != 0)
        return 0;
    if (unlink(p) != 0)
        return -1;
    snprintf(p, sizeof p, "%s/traces.def", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/traces", dir);
    DIR *d = opendir(p);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            size_t n = strlen(de->d_name);
            if (n > 4 && (strcmp(de->d_name + n - 4, ".evt") == 0 ||
                          strcmp(de->d_name + n - 4, ".def") == 0)) {
                char q[4096 + 256];
                snprintf(q, sizeof q, "%s/%s", p, de->d_name);
                unlink(q);
            }
        }
        closedir(d);
        rmdir(p);
    }
    return 0;
}

typedef struct defs {
    OTF2_GlobalDefWriter *w;
    uint32_t nstr;
    OTF2_ErrorCode rc;
} defs_t;

static uint32_t str(defs_t *d, const char *s)
{
    OTF2_ErrorCode rc = OTF2_GlobalDefWriter_WriteString(d->w, d->nstr, s);
    if (rc != OTF2_SUCCESS && d->rc == OTF2_SUCCESS)
        d->rc = rc;
    return d->nstr++;
}

static void note_rc(defs_t *d, OTF2_ErrorCode rc)
{
    if (rc != OTF2_SUCCESS && d->rc == OTF2_SUCCESS)
        d->rc = rc;
}

static OTF2_RegionRole role_of(const fy_trace_name_t *n)
{
    switch (n->cls) {
    case FY_TRACE_P2P: return OTF2_REGION_ROLE_POINT2POINT;
    case FY_TRACE_RMA: case FY_TRACE_SYNC: return OTF2_REGION_ROLE_RMA;
    case FY_TRACE_REGION: return OTF2_REGION_ROLE_CODE;
    case FY_TRACE_COLL:
        switch (fyo_coll_op(n->name)) {
        case OTF2_COLLECTIVE_OP_BARRIER: return OTF2_REGION_ROLE_BARRIER;
        case OTF2_COLLECTIVE_OP_BCAST: case OTF2_COLLECTIVE_OP_SCATTER:
        case OTF2_COLLECTIVE_OP_SCATTERV: return OTF2_REGION_ROLE_COLL_ONE2ALL;
        case OTF2_COLLECTIVE_OP_GATHER: case OTF2_COLLECTIVE_OP_GATHERV:
        case OTF2_COLLECTIVE_OP_REDUCE: return OTF2_REGION_ROLE_COLL_ALL2ONE;
        case OTF2_COLLECTIVE_OP_SCAN: case OTF2_COLLECTIVE_OP_EXSCAN:
            return OTF2_REGION_ROLE_COLL_OTHER;
        default: return OTF2_REGION_ROLE_COLL_ALL2ALL;
        }
    default: return OTF2_REGION_ROLE_FUNCTION;
    }
}

static void comm_name(const fy_trace_comm_t *c, char *buf, size_t len)
{
    if (c->uid == 0)
        snprintf(buf, len, "MPI_COMM_WORLD");
    else if (c->uid >> 63)
        snprintf(buf, len, "MPI_COMM_SELF of rank %llu",
                 (unsigned long long)(c->uid & ~(1ULL << 63)));
    else if (c->remote_size)
        snprintf(buf, len, "intercomm %llu (%u+%u ranks)", (unsigned long long)c->uid, c->size,
                 c->remote_size);
    else
        snprintf(buf, len, "comm %llu (%u ranks)", (unsigned long long)c->uid, c->size);
}

static OTF2_ErrorCode write_defs(OTF2_Archive *ar, fy_trace_t *tr, const fyo_rank_out_t *outs,
                                 uint32_t nwins)
{
    defs_t d = {OTF2_Archive_GetGlobalDefWriter(ar), 0, OTF2_SUCCESS};
    if (!d.w)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    int nr = tr->nranks;
    const fyt_header_t *h0 = NULL;
    for (int r = 0; r < nr && !h0; r++)
        if (tr->ranks[r].present)
            h0 = tr->ranks[r].hdr;
    int64_t epoch = h0 ? (int64_t)h0->epoch_unix_ns : 0;
    note_rc(&d, OTF2_GlobalDefWriter_WriteClockProperties(
                    d.w, 1000000000u, 0, (uint64_t)(tr->ns_max - tr->ns_min),
                    (uint64_t)(epoch + tr->ns_min)));
    note_rc(&d, OTF2_GlobalDefWriter_WriteParadigm(d.w, OTF2_PARADIGM_MPI, str(&d, "MPI"),
                                                   OTF2_PARADIGM_CLASS_PROCESS));

    /* The system tree: the machine, its hosts (in order of first rank), the ranks on them. */
    uint32_t machine = 0;
    note_rc(&d, OTF2_GlobalDefWriter_WriteSystemTreeNode(d.w, machine, str(&d, "machine"),
                                                         str(&d, "machine"),
                                                         OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    uint32_t *host_node = calloc(nr, sizeof *host_node);
    if (!host_node)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    uint32_t nhosts = 0;
    uint32_t class_node = str(&d, "node");
    for (int r = 0; r < nr; r++) {
        const char *host = tr->ranks[r].present ? tr->ranks[r].hdr->host : "unknown";
        int same = -1;
        for (int q = 0; q < r && same < 0; q++) {
            const char *hq = tr->ranks[q].present ? tr->ranks[q].hdr->host : "unknown";
            if (strncmp(hq, host, sizeof tr->ranks[0].hdr->host) == 0)
                same = q;
        }
        if (same >= 0) {
            host_node[r] = host_node[same];
            continue;
        }
        char name[80];
        snprintf(name, sizeof name, "%.63s", host);
        host_node[r] = ++nhosts;
        note_rc(&d, OTF2_GlobalDefWriter_WriteSystemTreeNode(d.w, host_node[r], str(&d, name),
                                                             class_node, machine));
    }
    for (int r = 0; r < nr; r++) {
        char name[64];
        snprintf(name, sizeof name, "MPI Rank %d", r);
        note_rc(&d, OTF2_GlobalDefWriter_WriteLocationGroup(
                        d.w, (uint32_t)r, str(&d, name), OTF2_LOCATION_GROUP_TYPE_PROCESS,
                        host_node[r], OTF2_UNDEFINED_LOCATION_GROUP));
        snprintf(name, sizeof name, "rank %d", r);
        note_rc(&d, OTF2_GlobalDefWriter_WriteLocation(d.w, (uint64_t)r, str(&d, name),
                                                       OTF2_LOCATION_TYPE_CPU_THREAD,
                                                       outs[r].events, (uint32_t)r));
    }
    free(host_node);

    /* Regions: every name, by its global index. */
    uint32_t empty = str(&d, "");
    for (uint32_t i = 0; i < tr->nnames; i++) {
        const fy_trace_name_t *n = &tr->names[i];
        uint32_t s = str(&d, n->name);
        note_rc(&d, OTF2_GlobalDefWriter_WriteRegion(
                        d.w, i, s, s, n->region ? str(&d, "user region") : empty, role_of(n),
                        n->region ? OTF2_PARADIGM_USER : OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE,
                        empty, 0, 0));
    }

    /* Communicators: the locations of MPI (group 0, member i is rank i), then a group of world
     * ranks per communicator (two for an intercommunicator). */
    uint64_t *members = malloc((size_t)(nr > 0 ? nr : 1) * sizeof *members);
    if (!members)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    for (int r = 0; r < nr; r++)
        members[r] = (uint64_t)r;
    note_rc(&d, OTF2_GlobalDefWriter_WriteGroup(d.w, 0, str(&d, "MPI locations"),
                                                OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                                OTF2_GROUP_FLAG_NONE, (uint32_t)nr, members));
    uint32_t ngroups = 1;
    for (uint32_t c = 0; c < tr->ncomms; c++) {
        const fy_trace_comm_t *cm = &tr->comms[c];
        char name[96];
        comm_name(cm, name, sizeof name);
        uint32_t sname = str(&d, name);
        uint32_t gid[2];
        for (int side = 0; side < (cm->remote_size ? 2 : 1); side++) {
            uint32_t n = side ? cm->remote_size : cm->size, first = side ? cm->size : 0;
            uint64_t *m = malloc((size_t)n * sizeof *m);
            if (!m) {
                free(members);
                return OTF2_ERROR_MEM_ALLOC_FAILED;
            }
            for (uint32_t i = 0; i < n; i++)
                m[i] = (uint64_t)cm->def->world[first + i];
            gid[side] = ngroups++;
            note_rc(&d, OTF2_GlobalDefWriter_WriteGroup(d.w, gid[side], sname,
                                                        OTF2_GROUP_TYPE_COMM_GROUP,
                                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                                        n, m));
            free(m);
        }
        if (cm->remote_size)
            note_rc(&d, OTF2_GlobalDefWriter_WriteInterComm(d.w, c, sname, gid[0], gid[1],
                                                            OTF2_UNDEFINED_COMM,
                                                            OTF2_COMM_FLAG_NONE));
        else
            note_rc(&d, OTF2_GlobalDefWriter_WriteComm(d.w, c, sname, gid[0], OTF2_UNDEFINED_COMM,
                                                       OTF2_COMM_FLAG_NONE));
    }
    free(members);

    /* Windows: the raw format numbers them per rank in creation order and does not say their
     * communicator; they are defined over MPI_COMM_WORLD (whose ranks are the targets). */
    uint32_t world = OTF2_UNDEFINED_COMM;
    for (uint32_t c = 0; c < tr->ncomms; c++)
        if (tr->comms[c].uid == 0)
            world = c;
    for (uint32_t w = 0; w < nwins; w++) {
        char name[32];
        snprintf(name, sizeof name, "window %u", w);
        note_rc(&d, OTF2_GlobalDefWriter_WriteRmaWin(d.w, w, str(&d, name), world,
                                                     OTF2_RMA_WIN_FLAG_NONE));
    }
    return d.rc;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: ferry-otf2 DIR\n"
               "  converts the raw trace of `mpiexec --trace DIR` (DIR/ferry/rank.*.fyt) to the\n"
               "  OTF2 archive DIR/traces.otf2 (+ DIR/traces.def, DIR/traces/), for otf2-print,\n"
               "  Vampir and the other OTF2 tools. The raw files are kept.\n");
}

#define OTF2_TRY(what, call)                                                                      \
    do {                                                                                          \
        OTF2_ErrorCode rc_ = (call);                                                              \
        if (rc_ != OTF2_SUCCESS) {                                                                \
            fprintf(stderr, WHO ": %s: %s: %s\n", out_path, what, OTF2_Error_GetDescription(rc_)); \
            goto fail;                                                                            \
        }                                                                                         \
    } while (0)

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-' || argv[1][0] == 0) {
        if (argc >= 2 && argv[1][0] == '-')
            fprintf(stderr, WHO ": unknown option '%s'\n", argv[1]);
        usage(stderr);
        return 2;
    }
    const char *dir = argv[1];
    char err[1024], out_path[4096];
    snprintf(out_path, sizeof out_path, "%s/traces.otf2", dir);
    fy_trace_t tr;
    if (fy_trace_open(&tr, dir, WHO, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    for (int i = 0; i < tr.nnotes; i++)
        fprintf(stderr, WHO ": note: %s\n", tr.notes[i]);
    if (access(dir, W_OK) != 0) {
        fprintf(stderr, WHO ": %s: cannot write the archive there: %s\n", dir, strerror(errno));
        fy_trace_close(&tr);
        return 1;
    }
    if (remove_old(dir) != 0) {
        fprintf(stderr, WHO ": %s: cannot replace the earlier archive: %s\n", out_path,
                strerror(errno));
        fy_trace_close(&tr);
        return 1;
    }

    fyo_rank_out_t *outs = calloc(tr.nranks, sizeof *outs);
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                         4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                         OTF2_COMPRESSION_NONE);
    if (!ar || !outs) {
        fprintf(stderr, WHO ": %s: cannot create the archive (does it exist, is the directory "
                        "writable?)\n", out_path);
        free(outs);
        fy_trace_close(&tr);
        return 1;
    }
    int ok = 0;
    OTF2_TRY("setting it up", OTF2_Archive_SetFlushCallbacks(ar, &flush_cbs, NULL));
    OTF2_TRY("setting it up", OTF2_Archive_SetSerialCollectiveCallbacks(ar));
    OTF2_TRY("setting it up", OTF2_Pthread_Archive_SetLockingCallbacks(ar, NULL));
    OTF2_TRY("setting it up", OTF2_Archive_SetCreator(ar, "Ferry " FY_VERSION " (ferry-otf2)"));
    const fyt_header_t *h0 = NULL;
    for (int r = 0; r < tr.nranks && !h0; r++)
        if (tr.ranks[r].present)
            h0 = tr.ranks[r].hdr;
    char desc[256];
    snprintf(desc, sizeof desc, "%.128s on %d ranks, traced by Ferry (mpiexec --trace)",
             h0->program, tr.nranks);
    OTF2_TRY("setting it up", OTF2_Archive_SetDescription(ar, desc));
    char host[72];
    snprintf(host, sizeof host, "%.63s", h0->host);
    OTF2_TRY("setting it up", OTF2_Archive_SetMachineName(ar, host));
    /* The notes (filters, the size cap, killed ranks) as trace file properties. */
    for (int i = 0; i < tr.nnotes + tr.ninfo; i++) {
        char name[48];
        snprintf(name, sizeof name, "FERRY::NOTE_%d", i);
        const char *text = i < tr.nnotes ? tr.notes[i] : tr.info[i - tr.nnotes];
        OTF2_TRY("writing a note", OTF2_Archive_SetProperty(ar, name, text, true));
    }
    OTF2_TRY("opening its event files", OTF2_Archive_OpenEvtFiles(ar));

    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int nthreads = tr.nranks < cpus ? tr.nranks : (int)(cpus > 0 ? cpus : 1);
    if (nthreads > 16)
        nthreads = 16;
    job_t job = {ar, &tr, outs, 0};
    pthread_t th[16];
    int started = 0;
    for (int i = 1; i < nthreads; i++)
        if (pthread_create(&th[started], NULL, worker, &job) == 0)
            started++;
    worker(&job);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    uint64_t events = 0;
    uint32_t nwins = 0;
    int failed = 0;
    for (int r = 0; r < tr.nranks; r++) {
        if (outs[r].err[0]) {
            fprintf(stderr, WHO ": %s: %s\n", out_path, outs[r].err);
            failed = 1;
        }
        if (outs[r].closed)
            fprintf(stderr, WHO ": note: rank %d: %d call%s left open, closed at its last event\n",
                    r, outs[r].closed, outs[r].closed == 1 ? "" : "s");
        events += outs[r].events;
        if (outs[r].max_win > nwins)
            nwins = outs[r].max_win;
    }
    OTF2_TRY("closing its event files", OTF2_Archive_CloseEvtFiles(ar));
    if (failed)
        goto fail;
    /* Every location gets its (empty) local definitions file, as readers expect. */
    OTF2_TRY("opening its definition files", OTF2_Archive_OpenDefFiles(ar));
    for (int r = 0; r < tr.nranks; r++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, (OTF2_LocationRef)r);
        if (!dw) {
            fprintf(stderr, WHO ": %s: no definition writer for rank %d\n", out_path, r);
            goto fail;
        }
        OTF2_TRY("closing a definition file", OTF2_Archive_CloseDefWriter(ar, dw));
    }
    OTF2_TRY("closing its definition files", OTF2_Archive_CloseDefFiles(ar));
    OTF2_TRY("writing its definitions", write_defs(ar, &tr, outs, nwins));
    ok = 1;
fail:;
    OTF2_ErrorCode rc = OTF2_Archive_Close(ar);
    if (ok && rc != OTF2_SUCCESS) {
        fprintf(stderr, WHO ": %s: closing it: %s\n", out_path, OTF2_Error_GetDescription(rc));
        ok = 0;
    }
    if (ok) {
        printf(WHO ": %s: %d ranks, %llu events\n", out_path, tr.nranks,
               (unsigned long long)events);
    } else {
        remove_old(dir); /* a partial archive no reader could open */
        fprintf(stderr, WHO ": %s not written; the raw trace is kept in %s/ferry/\n", out_path,
                dir);
    }
    free(outs);
    fy_trace_close(&tr);
    return ok ? 0 : 1;
}
