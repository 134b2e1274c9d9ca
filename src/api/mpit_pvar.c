/* MPI_T performance variables and their sessions. The variables read counters the library
 * keeps anyway (fy_p2p_stats.h, the selection's picks): a handle remembers where the counter
 * stood, so sessions and handles never touch the message path. Counters and the unexpected
 * queue's level and high-water mark are continuous (always counting: no start or stop); the
 * wait time is measured only while some handle to it is started. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fy_p2p_stats.h"
#include "fy_runtime.h"
#include "fy_select.h"
#include "fy_wait_policy.h"
#include "mpit.h"

enum kind {
    MSGS_SENT,
    BYTES_SENT,
    MSGS_RECV,
    BYTES_RECV,
    RNDV,
    RNDV_PULLED,
    RNDV_PUSHED,
    RNDV_STREAMED,
    UNEXP_LEN,
    UNEXP_HWM,
    WAIT,
    PICKS,
    WAIT_DO,
    WAIT_MOVES
};

typedef struct {
    char name[64];
    char desc[200];
    enum kind kind;
    int cls;  /* MPI_T_PVAR_CLASS_* */
    int xp;   /* FY_XP_* for the per-transport counters */
    int coll; /* PICKS: the collective */
    const char *algo;
    int cat;
} pvar_t;

enum { NPVAR_MAX = 32 + FY_COLL_NTABLES * FY_SELECT_MAX_ROWS };
static pvar_t pvars[NPVAR_MAX];
static int npvars;

static void add(enum kind k, int cls, int xp, int cat, const char *name, const char *desc)
{
    pvar_t *p = &pvars[npvars++];
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->desc, sizeof p->desc, "%s", desc);
    p->kind = k;
    p->cls = cls;
    p->xp = xp;
    p->coll = -1;
    p->cat = cat;
}

void fy_mpit_pvar_init(void)
{
    static const char *const xp_name[FY_XP_N] = {"self", "shm", "tcp"};
    static const char *const xp_what[FY_XP_N] = {"to itself", "through shared memory", "over TCP"};
    static const int xp_cat[FY_XP_N] = {FY_TCAT_SELF, FY_TCAT_SHM, FY_TCAT_TCP};
    const int C = MPI_T_PVAR_CLASS_COUNTER;
    npvars = 0;
    for (int x = 0; x < FY_XP_N; x++) {
        char n[64], d[160];
        int cat = xp_cat[x];
        snprintf(n, sizeof n, "msgs_sent_%s", xp_name[x]);
        snprintf(d, sizeof d, "messages this process sent %s (counted when posted)", xp_what[x]);
        add(MSGS_SENT, C, x, cat, n, d);
        snprintf(n, sizeof n, "bytes_sent_%s", xp_name[x]);
        snprintf(d, sizeof d, "bytes of the messages this process sent %s", xp_what[x]);
        add(BYTES_SENT, C, x, cat, n, d);
        snprintf(n, sizeof n, "msgs_recv_%s", xp_name[x]);
        snprintf(d, sizeof d, "messages this process received %s (counted when matched)",
                 xp_what[x]);
        add(MSGS_RECV, C, x, cat, n, d);
        snprintf(n, sizeof n, "bytes_recv_%s", xp_name[x]);
        snprintf(d, sizeof d, "bytes of the messages this process received %s (as sent)",
                 xp_what[x]);
        add(BYTES_RECV, C, x, cat, n, d);
    }
    add(RNDV, C, 0, FY_TCAT_P2P, "rndv_sends",
        "messages this process sent by rendezvous (above FERRY_EAGER_MAX, or not inline)");
    add(RNDV_PULLED, C, 0, FY_TCAT_P2P, "rndv_bytes_pulled",
        "rendezvous bytes this process read from the sender with single copy (process_vm_readv)");
    add(RNDV_PUSHED, C, 0, FY_TCAT_P2P, "rndv_bytes_pushed",
        "rendezvous bytes this process, sending, wrote into the receiver's buffer "
        "(process_vm_writev: its half of a split rendezvous)");
    add(RNDV_STREAMED, C, 0, FY_TCAT_P2P, "rndv_bytes_streamed",
        "rendezvous bytes this process received streamed through the rings (DATA fragments)");
    add(UNEXP_LEN, MPI_T_PVAR_CLASS_LEVEL, 0, FY_TCAT_P2P, "unexpected_length",
        "messages that arrived before their receive and wait in the unexpected queues now");
    add(UNEXP_HWM, MPI_T_PVAR_CLASS_HIGHWATERMARK, 0, FY_TCAT_P2P, "unexpected_highwater",
        "the most messages the unexpected queues held at once since the process started");
    add(WAIT, MPI_T_PVAR_CLASS_TIMER, 0, FY_TCAT_WAIT, "wait_time",
        "seconds spent waiting for completion (polling or asleep) while the handle was started");
    /* The wait policy's decisions (src/p2p/fy_wait_policy.h; xp holds the fy_wait_do_t). */
    add(WAIT_DO, C, FY_WAIT_POLL_RUNNING, FY_TCAT_WAIT, "wait_polls_running",
        "times a waiting rank polled past FERRY_SPIN_US because its peer polled on another CPU");
    add(WAIT_DO, C, FY_WAIT_SLEEP_SPENT, FY_TCAT_WAIT, "wait_sleeps_spent",
        "times a waiting rank slept because its spin was spent");
    add(WAIT_DO, C, FY_WAIT_SLEEP_SHARED, FY_TCAT_WAIT, "wait_sleeps_shared",
        "times a waiting rank chose to sleep (or move) because its peer was on the same CPU");
    add(WAIT_DO, C, FY_WAIT_SLEEP_OFF, FY_TCAT_WAIT, "wait_sleeps_off",
        "times a waiting rank slept at once because its peer polled but was descheduled");
    add(WAIT_MOVES, C, 0, FY_TCAT_WAIT, "wait_moves",
        "times a waiting rank moved itself off the CPU its peer was stacked on");
    for (int c = 0; c < FY_COLL_NTABLES; c++) {
        const char *names[FY_SELECT_MAX_ROWS];
        int n = fy_select_algos(c, names, FY_SELECT_MAX_ROWS);
        for (int a = 0; a < n; a++) {
            char nm[64], d[200], lc[32];
            const char *coll = fy_select_coll_name(c);
            size_t i = 0;
            for (; coll[i] && i + 1 < sizeof lc; i++)
                lc[i] = (char)tolower((unsigned char)coll[i]);
            lc[i] = '\0';
            snprintf(nm, sizeof nm, "coll_%s_%s", lc, names[a]);
            snprintf(d, sizeof d,
                     "times this process chose the %s algorithm for %s (a shared-memory choice "
                     "declined for want of a slot counts, and so does the one run instead)",
                     names[a], lc);
            add(PICKS, C, 0, FY_TCAT_COLL_ONE + c, nm, d);
            pvars[npvars - 1].coll = c;
            pvars[npvars - 1].algo = names[a];
        }
    }
}

int fy_mpit_pvar_count(void)
{
    return npvars;
}
int fy_mpit_pvar_category(int p)
{
    return pvars[p].cat;
}

static bool continuous(const pvar_t *p)
{
    return p->kind != WAIT;
}
static bool readonly(const pvar_t *p)
{
    return p->kind == UNEXP_LEN || p->kind == UNEXP_HWM;
}

/* The counter's raw value, in this process. */
static uint64_t raw(const pvar_t *p)
{
    const fy_p2p_stats_t *s = &fy_p2p_stats;
    switch (p->kind) {
    case MSGS_SENT: return s->msgs_sent[p->xp];
    case BYTES_SENT: return s->bytes_sent[p->xp];
    case MSGS_RECV: return s->msgs_recv[p->xp];
    case BYTES_RECV: return s->bytes_recv[p->xp];
    case RNDV: return s->rndv_sent;
    case RNDV_PULLED: return s->rndv_pulled;
    case RNDV_PUSHED: return s->rndv_pushed;
    case RNDV_STREAMED: return s->rndv_streamed;
    case UNEXP_LEN: return s->unexp_len;
    case UNEXP_HWM: return s->unexp_hwm;
    case WAIT: return s->wait_ns;
    case PICKS: return fy_select_picks(p->coll, p->algo);
    case WAIT_DO: return s->wait_do[p->xp];
    case WAIT_MOVES: return s->wait_moves;
    }
    return 0;
}

int PMPI_T_pvar_get_num(int *num_pvar)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_pvar)
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    *num_pvar = npvars;
    return fy_mpit_leave(MPI_SUCCESS);
}

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *readonly_p, int *continuous_p, int *atomic)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (pvar_index < 0 || pvar_index >= npvars)
        return fy_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    const pvar_t *p = &pvars[pvar_index];
    fy_mpit_str(p->name, name, name_len);
    fy_mpit_str(p->desc, desc, desc_len);
    if (verbosity)
        *verbosity = p->kind == PICKS ? MPI_T_VERBOSITY_TUNER_DETAIL : MPI_T_VERBOSITY_USER_BASIC;
    if (var_class)
        *var_class = p->cls;
    if (datatype)
        *datatype = p->kind == WAIT ? MPI_DOUBLE : MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly_p)
        *readonly_p = readonly(p);
    if (continuous_p)
        *continuous_p = continuous(p);
    if (atomic) /* read and reset together under the library's lock */
        *atomic = 1;
    return fy_mpit_leave(MPI_SUCCESS);
}

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !pvar_index)
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    for (int i = 0; i < npvars; i++)
        if (pvars[i].cls == var_class && strcmp(pvars[i].name, name) == 0) {
            *pvar_index = i;
            return fy_mpit_leave(MPI_SUCCESS);
        }
    return fy_mpit_leave(MPI_T_ERR_INVALID_NAME);
}

/* ---- Sessions and handles -------------------------------------------------------------------- */

struct fy_t_pvar_handle_s {
    struct fy_t_pvar_handle_s *next;
    int idx;
    bool started;
    uint64_t base; /* counter: its raw value at the handle's zero; timer: raw at the start */
    uint64_t acc;  /* timer: nanoseconds accumulated over earlier starts */
};
struct fy_t_pvar_session_s {
    struct fy_t_pvar_session_s *next;
    struct fy_t_pvar_handle_s *handles;
};
static struct fy_t_pvar_session_s *sessions;

static void handle_stop(struct fy_t_pvar_handle_s *h)
{
    if (!h->started)
        return;
    h->acc += raw(&pvars[h->idx]) - h->base;
    h->started = false;
    fy_p2p_stats.timing--;
}

static void session_destroy(struct fy_t_pvar_session_s *s)
{
    while (s->handles) {
        struct fy_t_pvar_handle_s *h = s->handles;
        s->handles = h->next;
        handle_stop(h);
        free(h);
    }
    free(s);
}

void fy_mpit_pvar_fini(void)
{
    while (sessions) {
        struct fy_t_pvar_session_s *s = sessions;
        sessions = s->next;
        session_destroy(s);
    }
}

static struct fy_t_pvar_session_s *session_get(MPI_T_pvar_session h)
{
    for (struct fy_t_pvar_session_s *s = sessions; s; s = s->next)
        if (s == h)
            return s;
    return NULL;
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!session)
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    struct fy_t_pvar_session_s *s = calloc(1, sizeof *s);
    if (!s)
        return fy_mpit_leave(MPI_T_ERR_MEMORY);
    s->next = sessions;
    sessions = s;
    *session = s;
    return fy_mpit_leave(MPI_SUCCESS);
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    struct fy_t_pvar_session_s *s = session ? session_get(*session) : NULL;
    if (!s)
        return fy_mpit_leave(MPI_T_ERR_INVALID_SESSION);
    for (struct fy_t_pvar_session_s **p = &sessions; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    fy_lock();
    session_destroy(s);
    fy_unlock();
    *session = MPI_T_PVAR_SESSION_NULL;
    return fy_mpit_leave(MPI_SUCCESS);
}

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    (void)obj_handle; /* every pvar binds to no object */
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    struct fy_t_pvar_session_s *s = session_get(session);
    if (!s)
        return fy_mpit_leave(MPI_T_ERR_INVALID_SESSION);
    if (pvar_index < 0 || pvar_index >= npvars)
        return fy_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count)
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    struct fy_t_pvar_handle_s *h = calloc(1, sizeof *h);
    if (!h)
        return fy_mpit_leave(MPI_T_ERR_MEMORY);
    h->idx = pvar_index;
    fy_lock();
    if (continuous(&pvars[pvar_index]) && !readonly(&pvars[pvar_index]))
        h->base = raw(&pvars[pvar_index]); /* a counter's handle counts from zero */
    fy_unlock();
    h->next = s->handles;
    s->handles = h;
    *handle = h;
    *count = 1;
    return fy_mpit_leave(MPI_SUCCESS);
}

/* Enters MPI_T and finds (session, handle); all == true accepts MPI_T_PVAR_ALL_HANDLES (then
 * *h_p is NULL). On success the MPI_T lock and the library's lock are held. */
static int enter_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle, bool all,
                        struct fy_t_pvar_session_s **s_p, struct fy_t_pvar_handle_s **h_p)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    struct fy_t_pvar_session_s *s = session_get(session);
    if (!s)
        return fy_mpit_leave(MPI_T_ERR_INVALID_SESSION);
    struct fy_t_pvar_handle_s *h = NULL;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        if (!all)
            return fy_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    } else {
        for (h = s->handles; h && h != handle; h = h->next)
            ;
        if (!h)
            return fy_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    }
    *s_p = s;
    *h_p = h;
    fy_lock();
    return MPI_SUCCESS;
}

static int leave(int rc)
{
    fy_unlock();
    return fy_mpit_leave(rc);
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    struct fy_t_pvar_session_s *s;
    struct fy_t_pvar_handle_s *h;
    int rc = enter_handle(session, handle ? *handle : NULL, false, &s, &h);
    if (rc != MPI_SUCCESS)
        return rc;
    for (struct fy_t_pvar_handle_s **p = &s->handles; *p; p = &(*p)->next)
        if (*p == h) {
            *p = h->next;
            break;
        }
    handle_stop(h);
    free(h);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return leave(MPI_SUCCESS);
}

static void handle_start(struct fy_t_pvar_handle_s *h)
{
    if (h->started || continuous(&pvars[h->idx]))
        return;
    h->base = raw(&pvars[h->idx]);
    h->started = true;
    fy_p2p_stats.timing++;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    struct fy_t_pvar_session_s *s;
    struct fy_t_pvar_handle_s *h;
    int rc = enter_handle(session, handle, true, &s, &h);
    if (rc != MPI_SUCCESS)
        return rc;
    if (h && continuous(&pvars[h->idx]))
        return leave(MPI_T_ERR_PVAR_NO_STARTSTOP);
    for (struct fy_t_pvar_handle_s *x = h ? h : s->handles; x; x = h ? NULL : x->next)
        handle_start(x);
    return leave(MPI_SUCCESS);
}

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    struct fy_t_pvar_session_s *s;
    struct fy_t_pvar_handle_s *h;
    int rc = enter_handle(session, handle, true, &s, &h);
    if (rc != MPI_SUCCESS)
        return rc;
    if (h && continuous(&pvars[h->idx]))
        return leave(MPI_T_ERR_PVAR_NO_STARTSTOP);
    for (struct fy_t_pvar_handle_s *x = h ? h : s->handles; x; x = h ? NULL : x->next)
        handle_stop(x);
    return leave(MPI_SUCCESS);
}

static void value_out(const struct fy_t_pvar_handle_s *h, void *buf)
{
    const pvar_t *p = &pvars[h->idx];
    uint64_t now = raw(p);
    if (p->kind == WAIT)
        *(double *)buf = (double)(h->acc + (h->started ? now - h->base : 0)) * 1e-9;
    else if (readonly(p))
        *(unsigned long long *)buf = now;
    else
        *(unsigned long long *)buf = now - h->base;
}

/* Sets the handle's value to v (a counter: v counts from here on; the timer: v seconds). */
static void value_set(struct fy_t_pvar_handle_s *h, const void *buf)
{
    const pvar_t *p = &pvars[h->idx];
    uint64_t now = raw(p);
    if (p->kind == WAIT) {
        double v = buf ? *(const double *)buf : 0.0;
        h->acc = v > 0 ? (uint64_t)(v * 1e9) : 0;
        h->base = now;
    } else {
        h->base = now - (buf ? *(const unsigned long long *)buf : 0);
    }
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    struct fy_t_pvar_session_s *s;
    struct fy_t_pvar_handle_s *h;
    int rc = enter_handle(session, handle, false, &s, &h);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!buf)
        return leave(MPI_T_ERR_INVALID);
    value_out(h, buf);
    return leave(MPI_SUCCESS);
}

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    struct fy_t_pvar_session_s *s;
    struct fy_t_pvar_handle_s *h;
    int rc = enter_handle(session, handle, false, &s, &h);
    if (rc != MPI_SUCCESS)
        return rc;
    if (readonly(&pvars[h->idx]))
        return leave(MPI_T_ERR_PVAR_NO_WRITE);
    if (!buf)
        return leave(MPI_T_ERR_INVALID);
    value_set(h, buf);
    return leave(MPI_SUCCESS);
}

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    struct fy_t_pvar_session_s *s;
    struct fy_t_pvar_handle_s *h;
    int rc = enter_handle(session, handle, true, &s, &h);
    if (rc != MPI_SUCCESS)
        return rc;
    if (h && readonly(&pvars[h->idx]))
        return leave(MPI_T_ERR_PVAR_NO_WRITE);
    for (struct fy_t_pvar_handle_s *x = h ? h : s->handles; x; x = h ? NULL : x->next)
        if (!readonly(&pvars[x->idx]))
            value_set(x, NULL);
    return leave(MPI_SUCCESS);
}

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    struct fy_t_pvar_session_s *s;
    struct fy_t_pvar_handle_s *h;
    int rc = enter_handle(session, handle, false, &s, &h);
    if (rc != MPI_SUCCESS)
        return rc;
    if (readonly(&pvars[h->idx]))
        return leave(MPI_T_ERR_PVAR_NO_WRITE);
    if (!buf)
        return leave(MPI_T_ERR_INVALID);
    value_out(h, buf);
    value_set(h, NULL);
    return leave(MPI_SUCCESS);
}
