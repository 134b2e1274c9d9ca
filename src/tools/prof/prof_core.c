/* The recorder's start and end (MPI_Init, MPI_Init_thread, MPI_Finalize), the statistics and
 * call-site tables, MPI_Pcontrol and the user regions of ferry/trace.h.
 *
 * MPI_Pcontrol(level): 0 pauses recording (statistics and trace), 1 resumes it; a level N >= 2
 * opens the region "Pcontrol N" and -N closes it (regions still open at MPI_Finalize are closed
 * there). */
#include "ferry/trace.h"
#include "prof.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

prof_state_t prof_g;
prof_stat_t prof_stats[PROF_NFUNCS];
prof_bucket_t (*prof_buckets)[PROF_NBUCKETS];
_Thread_local int prof_main_thread;
atomic_flag prof_lock_flag = ATOMIC_FLAG_INIT;
prof_live_t prof_live = {.call = -1};

void prof_opts_window(uint64_t t_init);
void prof_opts_notes(uint64_t t);

const char *prof_call_name(int id)
{
    return id >= 0 && id < PROF_NFUNCS ? prof_names[id] : "?";
}

/* ---- Call sites: (return address, function) in an open-addressed table ---- */
#define SITE_SLOTS PROF_SITE_SLOTS
typedef prof_site_t site_t;
prof_site_t prof_sites[PROF_SITE_SLOTS];
static int nsites;
static uint64_t sites_dropped;

void prof_site_add(const void *ra, int id, uint64_t d)
{
    size_t h = prof_site_hash(ra, id);
    for (int k = 0; k < 16; k++) {
        site_t *s = &prof_sites[(h + (size_t)k) & (SITE_SLOTS - 1)];
        if (s->ra == ra && s->id == id) {
            s->count++;
            s->ticks += d;
            if (d > s->max)
                s->max = d;
            return;
        }
        if (s->ra == NULL) {
            if (nsites >= SITE_SLOTS * 3 / 4)
                break;
            nsites++;
            *s = (site_t){.ra = ra, .id = id, .count = 1, .ticks = d, .max = d};
            return;
        }
    }
    sites_dropped++;
}

/* For the report: the table as it stands. */
int prof_sites_get(const void ***ra, int **id, uint64_t **count, uint64_t **ticks,
                   uint64_t **max, uint64_t *dropped)
{
    *ra = malloc(sizeof(void *) * (size_t)(nsites + 1));
    *id = malloc(sizeof(int) * (size_t)(nsites + 1));
    *count = malloc(sizeof(uint64_t) * (size_t)(nsites + 1));
    *ticks = malloc(sizeof(uint64_t) * (size_t)(nsites + 1));
    *max = malloc(sizeof(uint64_t) * (size_t)(nsites + 1));
    int n = 0;
    for (int i = 0; i < SITE_SLOTS; i++)
        if (prof_sites[i].ra != NULL) {
            (*ra)[n] = prof_sites[i].ra;
            (*id)[n] = prof_sites[i].id;
            (*count)[n] = prof_sites[i].count;
            (*ticks)[n] = prof_sites[i].ticks;
            (*max)[n] = prof_sites[i].max;
            n++;
        }
    *dropped = sites_dropped;
    return n;
}

/* ---- User regions ---- */
#define MAX_REGIONS 1024
#define MAX_DEPTH 64
static char *region_name[MAX_REGIONS];
static uint8_t region_named[MAX_REGIONS]; /* its FYT_NAME is in the trace */
static int nregions;
static struct {
    int id;
    bool rec;
} open_regions[MAX_DEPTH];
static int depth;
static int region_warned;

static int region_id(const char *name)
{
    for (int i = 0; i < nregions; i++)
        if (strcmp(region_name[i], name) == 0)
            return i;
    if (nregions == MAX_REGIONS)
        return -1;
    region_name[nregions] = strdup(name);
    return region_name[nregions] ? nregions++ : -1;
}

static bool recording_now(uint64_t t)
{
    return atomic_load_explicit(&prof_g.on, memory_order_relaxed) &&
           atomic_load_explicit(&prof_g.rec, memory_order_relaxed) && t >= prof_g.win_lo &&
           t < prof_g.win_hi && (!prof_g.mt || prof_main_thread);
}

static void region_begin(const char *name)
{
    if (!atomic_load(&prof_g.on) || name == NULL)
        return;
    if (prof_g.mt && !prof_main_thread)
        return;
    int id = region_id(name);
    if (id < 0 || depth == MAX_DEPTH) {
        if (!region_warned++)
            fprintf(stderr, "ferry: rank %d: ferry_trace_begin(\"%s\"): more than %d regions "
                    "or %d open at once; not recorded\n", prof_g.rank, name, MAX_REGIONS,
                    MAX_DEPTH);
        return;
    }
    uint64_t t = prof_now_ticks();
    bool rec = false;
    if (recording_now(t)) {
        if (!region_named[id]) {
            prof_trace_region_name((uint32_t)id, name);
            region_named[id] = 1;
        }
        rec = prof_ev(FYT_REGION_BEGIN, (uint32_t)id, t, false);
    }
    open_regions[depth].id = id;
    open_regions[depth].rec = rec;
    depth++;
}

static void region_end(const char *name)
{
    if (name == NULL || (prof_g.mt && !prof_main_thread))
        return;
    int at = depth - 1;
    while (at >= 0 && strcmp(region_name[open_regions[at].id], name) != 0)
        at--;
    if (at < 0) {
        if (atomic_load(&prof_g.on) && !region_warned++)
            fprintf(stderr, "ferry: rank %d: ferry_trace_end(\"%s\"): no such region is open "
                    "(ignored)\n", prof_g.rank, name);
        return;
    }
    uint64_t t = prof_now_ticks();
    /* Regions opened inside it and not closed end with it. */
    while (depth > at) {
        depth--;
        if (open_regions[depth].rec)
            prof_ev(FYT_REGION_END, (uint32_t)open_regions[depth].id, t, true);
    }
}

void ferry_trace_begin(const char *name)
{
    region_begin(name);
}

void ferry_trace_end(const char *name)
{
    region_end(name);
}

void ferry_trace_note(const char *text)
{
    if (text == NULL)
        return;
    uint64_t t = prof_now_ticks();
    if (recording_now(t))
        prof_trace_note(t, 0, "%s", text);
}

int MPI_Pcontrol(const int level, ...)
{
    prof_frame_t f;
    prof_enter(&f, PROF_ID_Pcontrol, PROF_RA());
    if (level == 0 && !prof_g.finalized) {
        prof_g.paused = 1;
        atomic_store(&prof_g.on, 0);
    } else if (level == 1 && prof_g.paused && !prof_g.finalized) {
        prof_g.paused = 0;
        atomic_store(&prof_g.on, 1);
    } else if (level >= 2 || level <= -2) {
        char name[32];
        snprintf(name, sizeof name, "Pcontrol %d", level > 0 ? level : -level);
        if (level > 0)
            region_begin(name);
        else
            region_end(name);
    }
    prof_now(&f);
    prof_leave(&f);
    return MPI_SUCCESS;
}

/* ---- Start ---- */
static void program_name(char *out, size_t len)
{
    char buf[4096] = "";
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (f != NULL) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
    }
    const char *base = strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf;
    snprintf(out, len, "%s", *base ? base : "program");
}

static void at_exit(void)
{
    if (!prof_g.finalized)
        prof_trace_flush_atexit();
}

static void setup(int provided)
{
    prof_main_thread = 1;
    prof_g.mt = provided == MPI_THREAD_MULTIPLE;
    prof_clock_init();
    PMPI_Comm_rank(MPI_COMM_WORLD, &prof_g.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &prof_g.size);
    gethostname(prof_g.host, sizeof prof_g.host - 1);
    program_name(prof_g.program, sizeof prof_g.program);
    prof_opts_read();
    /* A job started by MPI_Comm_spawn inherits our variables, and its ranks would write over
     * the parent job's files (the same rank numbers, directory and job number): it is counted
     * for the monitor but neither profiled nor traced. */
    MPI_Comm parent = MPI_COMM_NULL;
    PMPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL && (prof_g.profile || prof_g.trace)) {
        if (prof_g.rank == 0)
            fprintf(stderr, "ferry: %s, started by MPI_Comm_spawn, is not profiled or traced "
                    "(its parent job is)\n", prof_g.program);
        prof_g.profile = prof_g.trace = 0;
    }
    prof_g.sites = prof_g.profile;
    for (int i = 0; i < PROF_NFUNCS; i++)
        prof_stats[i].min = UINT64_MAX;
    prof_buckets = calloc(PROF_NFUNCS, sizeof *prof_buckets);
    prof_mat_bytes = calloc((size_t)prof_g.size, sizeof(uint64_t));
    prof_mat_msgs = calloc((size_t)prof_g.size, sizeof(uint64_t));
    if (prof_g.profile) {
        prof_cap_inst = 1u << 18;
        prof_inst = malloc(sizeof(prof_inst_t) * prof_cap_inst);
        if (prof_inst == NULL)
            prof_cap_inst = 0;
    }
    PMPI_Comm_dup(MPI_COMM_WORLD, &prof_g.pcomm);
    PMPI_Comm_set_errhandler(prof_g.pcomm, MPI_ERRORS_RETURN);
    int opened = 0;
    if (prof_g.trace && prof_g.traced_rank) {
        prof_tb.left = prof_g.cap_rank;
        opened = prof_trace_open() == 0;
    }
    prof_comm_init();
    uint64_t t;
    int64_t gns;
    uint64_t err;
    if (prof_g.profile || prof_g.trace) {
        prof_sync(&t, &gns, &err);
        prof_sync_t[0] = t;
        prof_sync_ns[0] = gns;
        if (opened)
            prof_trace_sync(t, gns, err, FYT_SYNC_INIT);
    }
    prof_g.t_init = prof_now_ticks();
    prof_opts_window(prof_g.t_init);
    if (opened)
        prof_opts_notes(prof_g.t_init);
    atomic_store(&prof_g.rec, opened);
    atomic_store(&prof_g.on, 1);
    if (opened)
        atexit(at_exit);
    prof_monitor_start(prof_g.rank, prof_g.size); /* nothing without mpiexec --monitor */
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        setup(MPI_THREAD_SINGLE);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        setup(*provided);
    return rc;
}

/* ---- End ---- */
int MPI_Finalize(void)
{
    prof_frame_t f;
    prof_enter(&f, PROF_ID_Finalize, PROF_RA());
    int active = prof_g.size > 0; /* MPI_Init went through us */
    prof_monitor_stop();
    prof_g.t_final = prof_now_ticks();
    /* Regions still open end here. */
    while (depth > 0) {
        depth--;
        if (open_regions[depth].rec)
            prof_ev(FYT_REGION_END, (uint32_t)open_regions[depth].id, prof_g.t_final, true);
    }
    /* The recorder's own work in MPI_Finalize (the clock sync, gathering the profile to rank 0,
     * resolving call sites and writing the report) is a region of its own, so that a picture
     * says why MPI_Finalize lasts longer under --trace than without. */
    int own = active && (prof_g.profile || prof_g.trace);
    if (own)
        region_begin("ferry: clock sync and profile");
    /* Paused by Pcontrol(0): the rest still takes part in the sync and the report. */
    atomic_store(&prof_g.on, 0);
    prof_g.finalized = 1;
    if (own) {
        uint64_t t, err;
        int64_t gns;
        prof_sync(&t, &gns, &err);
        prof_sync_t[1] = t;
        prof_sync_ns[1] = gns;
        if (prof_g.trace && prof_g.traced_rank)
            prof_trace_sync(t, gns, err, FYT_SYNC_FINAL);
        if (prof_g.profile)
            prof_report();
        if (depth > 0 && open_regions[--depth].rec)
            prof_ev(FYT_REGION_END, (uint32_t)open_regions[depth].id, prof_now_ticks(), true);
        depth = 0;
    }
    if (active)
        PMPI_Comm_free(&prof_g.pcomm);
    int rc = PMPI_Finalize();
    if (f.t0) {
        f.t1 = prof_now_ticks();
        if (f.rec)
            prof_ev(FYT_LEAVE, (uint32_t)f.id, f.t1, true);
        f.rec = false;
        prof_leave(&f);
    }
    prof_trace_close();
    return rc;
}
