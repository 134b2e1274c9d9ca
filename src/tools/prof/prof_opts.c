/* What the recorder does, from the environment mpiexec sets (tools/mpiexec/prof_opts.c writes
 * these; a user may set them by hand with LD_PRELOAD too):
 *   FERRY_PROFILE=1          write the profile at MPI_Finalize
 *   FERRY_PROFILE_DIR=D      where (default: the working directory); FERRY_PROFILE_JOBID the
 *                            job number in the file name (default: rank 0's process id)
 *   FERRY_TRACE_DIR=D        record a trace into D/ferry/ (and the profile into D)
 *   FERRY_TRACE_CALLS=LIST   functions traced: names (MPI_Send or Send), classes p2p, coll,
 *                            rma; -NAME leaves out; only exclusions: all but those
 *   FERRY_TRACE_RANKS=0-3,7  ranks that record (the others still take part in clock syncs)
 *   FERRY_TRACE_WINDOW=S:E   record from S to E seconds after MPI_Init (E empty: to the end)
 *   FERRY_TRACE_MAX=SIZE     the job's trace size cap (K/M/G), split evenly over the ranks;
 *                            default 1G */
#include "fy_prof_opts.h"
#include "prof.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

uint8_t prof_sel[PROF_NFUNCS];
static double win_start, win_end = INFINITY;

static int class_of(const char *w)
{
    if (strcasecmp(w, "p2p") == 0)
        return PROF_CLASS_P2P;
    if (strcasecmp(w, "coll") == 0)
        return PROF_CLASS_COLL;
    if (strcasecmp(w, "rma") == 0)
        return PROF_CLASS_RMA;
    return -1;
}

/* Marks the functions a word names (a class, or a name with or without MPI_, and its _c
 * variant); how many. */
static int mark(const char *w, uint8_t v)
{
    int k = class_of(w), n = 0;
    if (k >= 0) {
        for (int i = 0; i < PROF_NFUNCS; i++)
            if (prof_class[i] == k)
                prof_sel[i] = v, n++;
        return n;
    }
    const char *bare = strncasecmp(w, "MPI_", 4) == 0 ? w + 4 : w;
    for (int i = 0; i < PROF_NFUNCS; i++) {
        const char *nm = prof_names[i] + 4;
        size_t len = strlen(bare);
        if (strncasecmp(nm, bare, len) == 0 && (nm[len] == '\0' || strcmp(nm + len, "_c") == 0))
            prof_sel[i] = v, n++;
    }
    return n;
}

static void read_calls(const char *list)
{
    int any_include = 0;
    char *copy = strdup(list), *save = NULL;
    for (char *w = strtok_r(copy, ", ", &save); w; w = strtok_r(NULL, ", ", &save))
        if (*w != '-')
            any_include = 1;
    free(copy);
    memset(prof_sel, any_include ? 0 : 1, sizeof prof_sel);
    copy = strdup(list);
    for (char *w = strtok_r(copy, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
        int out = *w == '-';
        if (mark(w + out, out ? 0 : 1) == 0 && prof_g.rank == 0)
            fprintf(stderr, "ferry: --trace-calls: '%s' is neither an MPI function nor a class "
                    "(p2p, coll, rma); left out of the filter\n", w + out);
    }
    free(copy);
}

int prof_opts_read(void)
{
    const char *p = getenv("FERRY_PROFILE");
    prof_g.profile = p != NULL && *p != '\0' && strcmp(p, "0") != 0;
    const char *d = getenv("FERRY_TRACE_DIR");
    prof_g.trace = d != NULL && *d != '\0';
    memset(prof_sel, 1, sizeof prof_sel);
    prof_g.traced_rank = 1;
    prof_g.cap_rank = INT64_MAX;
    if (!prof_g.trace)
        return 0;
    prof_g.profile = 1;
    snprintf(prof_g.dir, sizeof prof_g.dir, "%s", d);
    const char *v = getenv("FERRY_TRACE_CALLS");
    if (v != NULL && *v != '\0')
        read_calls(v);
    v = getenv("FERRY_TRACE_RANKS");
    if (v != NULL && *v != '\0' && fy_prof_parse_ranks(v, prof_g.rank, &prof_g.traced_rank) != 0) {
        if (prof_g.rank == 0)
            fprintf(stderr, "ferry: FERRY_TRACE_RANKS='%s' is not a rank list (like 0-3,7); "
                    "every rank records\n", v);
        prof_g.traced_rank = 1;
    }
    v = getenv("FERRY_TRACE_WINDOW");
    if (v != NULL && *v != '\0' && fy_prof_parse_window(v, &win_start, &win_end) != 0) {
        if (prof_g.rank == 0)
            fprintf(stderr, "ferry: FERRY_TRACE_WINDOW='%s' is not START:END in seconds; the "
                    "whole run is recorded\n", v);
        win_start = 0;
        win_end = INFINITY;
    }
    uint64_t max = 1ull << 30;
    v = getenv("FERRY_TRACE_MAX");
    if (v != NULL && *v != '\0' && fy_prof_parse_size(v, &max) != 0) {
        if (prof_g.rank == 0)
            fprintf(stderr, "ferry: FERRY_TRACE_MAX='%s' is not a size (like 512M or 2G); "
                    "using 1G\n", v);
        max = 1ull << 30;
    }
    prof_g.cap_rank = (int64_t)(max / (uint64_t)(prof_g.size > 0 ? prof_g.size : 1));
    return 0;
}

/* The window in ticks, from the end of MPI_Init. */
void prof_opts_window(uint64_t t_init)
{
    double tpn = prof_ticks_per_ns();
    prof_g.win_lo = t_init + (uint64_t)(win_start * 1e9 * tpn);
    prof_g.win_hi = isinf(win_end) || win_end * 1e9 * tpn > 1.8e19
                        ? UINT64_MAX
                        : t_init + (uint64_t)(win_end * 1e9 * tpn);
    if (win_start == 0)
        prof_g.win_lo = 0;
}

/* The filters in force, as notes in the trace. */
void prof_opts_notes(uint64_t t)
{
    const char *v = getenv("FERRY_TRACE_CALLS");
    if (v != NULL && *v != '\0')
        prof_trace_note(t, 0, "calls recorded: %s", v);
    v = getenv("FERRY_TRACE_RANKS");
    if (v != NULL && *v != '\0')
        prof_trace_note(t, 0, "ranks recorded: %s", v);
    v = getenv("FERRY_TRACE_WINDOW");
    if (v != NULL && *v != '\0')
        prof_trace_note(t, 0, "time window recorded: %s s after MPI_Init", v);
    prof_trace_note(t, FYT_NOTE_INFO, "not recorded: MPI_Wtime, MPI_Wtick, MPI_T_*, handle conversions");
}
