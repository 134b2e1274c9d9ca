/* MPI_T: every control variable, performance variable and category walked and read before
 * MPI_Init; a control variable written before MPI_Init takes effect (FERRY_EAGER_MAX=1024 makes
 * a 4 KiB message go by rendezvous) and one without a reader refuses writes while MPI runs; the
 * traffic counters move by exactly what was sent (N messages of B bytes over shared memory, one
 * to self), the unexpected queue's level and high-water mark, the wait timer, an algorithm
 * counter; sessions (read, write, reset, readreset, ALL_HANDLES); the error codes for bad
 * indices, names, handles and sessions; the event interface (no events); MPI_T after
 * MPI_Finalize, and reference counting. Ferry-specific names: not for other MPIs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport.h"

static int errs;
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            errs++;                                                                                \
            printf("line %d: ", __LINE__);                                                         \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)
#define RC(call, want) CHECK((rc = (call)) == (want), "%s gave %d, expected %d", #call, rc, want)

static int rc;

static int cvar_index(const char *name)
{
    int i = -1;
    RC(MPI_T_cvar_get_index(name, &i), MPI_SUCCESS);
    return i;
}

static long long cvar_read_ll(const char *name)
{
    MPI_T_cvar_handle h;
    int count;
    long long v = -99;
    RC(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count), MPI_SUCCESS);
    RC(MPI_T_cvar_read(h, &v), MPI_SUCCESS);
    RC(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    return v;
}

static int cvar_write(const char *name, const void *v)
{
    MPI_T_cvar_handle h;
    int count;
    RC(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count), MPI_SUCCESS);
    int r = MPI_T_cvar_write(h, v);
    RC(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "freed cvar handle not nulled");
    return r;
}

/* Every cvar: info, name round trip, enum items, read. Every pvar and category likewise. */
static void walk(void)
{
    int ncvar = 0, npvar = 0, ncat = 0;
    RC(MPI_T_cvar_get_num(&ncvar), MPI_SUCCESS);
    RC(MPI_T_pvar_get_num(&npvar), MPI_SUCCESS);
    RC(MPI_T_category_get_num(&ncat), MPI_SUCCESS);
    CHECK(ncvar >= 20 && npvar >= 20 && ncat >= 6, "counts %d %d %d", ncvar, npvar, ncat);
    int *in_cat = calloc((size_t)(ncvar + npvar + ncat), sizeof(int));
    for (int i = 0; i < ncvar; i++) {
        char name[128], desc[512];
        int nl = sizeof name, dl = sizeof desc, verb, bind, scope, idx = -1;
        MPI_Datatype dt;
        MPI_T_enum et;
        RC(MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &et, desc, &dl, &bind, &scope),
           MPI_SUCCESS);
        CHECK(nl == (int)strlen(name) + 1 && strncmp(name, "FERRY_", 6) == 0, "cvar %d name %s", i,
              name);
        CHECK(dl > 20, "cvar %s: short description", name);
        CHECK(bind == MPI_T_BIND_NO_OBJECT, "cvar %s bind", name);
        CHECK(scope == MPI_T_SCOPE_LOCAL || scope == MPI_T_SCOPE_ALL_EQ, "cvar %s scope", name);
        CHECK(verb >= MPI_T_VERBOSITY_USER_BASIC && verb <= MPI_T_VERBOSITY_MPIDEV_ALL, "verb");
        RC(MPI_T_cvar_get_index(name, &idx), MPI_SUCCESS);
        CHECK(idx == i, "cvar %s index %d", name, idx);
        int need = 0;
        RC(MPI_T_cvar_get_info(i, NULL, &need, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_SUCCESS);
        CHECK(need == (int)strlen(name) + 1, "length query gave %d", need);
        char small[4];
        int sl = sizeof small;
        RC(MPI_T_cvar_get_info(i, small, &sl, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_SUCCESS);
        CHECK(sl == 4 && small[3] == '\0' && strncmp(small, "FER", 3) == 0, "truncation");
        MPI_T_cvar_handle h;
        int count = 0;
        RC(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
        /* A string cvar (FERRY_TCP_IF) counts its characters; the others are one value. */
        CHECK(count == (dt == MPI_CHAR ? 64 : 1), "count");
        long long v = 0;
        char text[64];
        RC(MPI_T_cvar_read(h, dt == MPI_CHAR ? (void *)text : (void *)&v), MPI_SUCCESS);
        RC(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
        if (dt == MPI_CHAR) {
            CHECK(memchr(text, '\0', sizeof text) != NULL, "string cvar %s unterminated", name);
        } else if (et != MPI_T_ENUM_NULL) {
            int n = 0, el = sizeof desc;
            CHECK(dt == MPI_INT, "enum cvar %s not MPI_INT", name);
            RC(MPI_T_enum_get_info(et, &n, desc, &el), MPI_SUCCESS);
            CHECK(n >= 2 && strcmp(desc, name) == 0, "enum of %s: %d items, name %s", name, n,
                  desc);
            CHECK((int)v >= 0 && (int)v < n, "enum cvar %s value %d", name, (int)v);
            for (int k = 0; k < n; k++) {
                int val = -1;
                el = sizeof desc;
                RC(MPI_T_enum_get_item(et, k, &val, desc, &el), MPI_SUCCESS);
                CHECK(val == k && el > 1, "item %d of %s", k, name);
            }
            RC(MPI_T_enum_get_item(et, n, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
        } else {
            CHECK(dt == MPI_LONG_LONG, "cvar %s type", name);
        }
    }
    for (int i = 0; i < npvar; i++) {
        char name[128];
        int nl = sizeof name, verb, cls, bind, ro, cont, atomic, idx = -1;
        MPI_Datatype dt;
        MPI_T_enum et;
        RC(MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &et, NULL, NULL, &bind, &ro, &cont,
                               &atomic),
           MPI_SUCCESS);
        CHECK(dt == MPI_UNSIGNED_LONG_LONG || (dt == MPI_DOUBLE && cls == MPI_T_PVAR_CLASS_TIMER),
              "pvar %s type", name);
        RC(MPI_T_pvar_get_index(name, cls, &idx), MPI_SUCCESS);
        CHECK(idx == i, "pvar %s index", name);
        RC(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_GENERIC, &idx), MPI_T_ERR_INVALID_NAME);
    }
    for (int c = 0; c < ncat; c++) {
        char name[128];
        int nl = sizeof name, nc, np, nk, idx = -1;
        RC(MPI_T_category_get_info(c, name, &nl, NULL, NULL, &nc, &np, &nk), MPI_SUCCESS);
        RC(MPI_T_category_get_index(name, &idx), MPI_SUCCESS);
        CHECK(idx == c, "category %s index", name);
        int *l = malloc(sizeof(int) * (size_t)(nc + np + nk + 1));
        RC(MPI_T_category_get_cvars(c, nc, l), MPI_SUCCESS);
        for (int k = 0; k < nc; k++)
            in_cat[l[k]]++;
        RC(MPI_T_category_get_pvars(c, np, l), MPI_SUCCESS);
        for (int k = 0; k < np; k++)
            in_cat[ncvar + l[k]]++;
        RC(MPI_T_category_get_categories(c, nk, l), MPI_SUCCESS);
        for (int k = 0; k < nk; k++)
            in_cat[ncvar + npvar + l[k]]++;
        int ne = -1;
        RC(MPI_T_category_get_num_events(c, &ne), MPI_SUCCESS);
        CHECK(ne == 0, "events in category");
        RC(MPI_T_category_get_events(c, 0, l), MPI_SUCCESS);
        free(l);
    }
    /* Every variable in exactly one category; every category but the root in one parent. */
    for (int i = 0; i < ncvar + npvar; i++)
        CHECK(in_cat[i] == 1, "%s %d in %d categories", i < ncvar ? "cvar" : "pvar",
              i < ncvar ? i : i - ncvar, in_cat[i]);
    for (int c = 1; c < ncat; c++)
        CHECK(in_cat[ncvar + npvar + c] == 1, "category %d has %d parents", c,
              in_cat[ncvar + npvar + c]);
    free(in_cat);
    int u1 = -1, u2 = -2;
    RC(MPI_T_category_changed(&u1), MPI_SUCCESS);
    RC(MPI_T_category_changed(&u2), MPI_SUCCESS);
    CHECK(u1 == u2, "categories changed");
}

static void bad_arguments(void)
{
    int n, i;
    char buf[64];
    RC(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    RC(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
       MPI_T_ERR_INVALID_INDEX);
    RC(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
       MPI_T_ERR_INVALID_INDEX);
    RC(MPI_T_cvar_get_index("FERRY_NO_SUCH_KNOB", &i), MPI_T_ERR_INVALID_NAME);
    MPI_T_cvar_handle ch;
    RC(MPI_T_cvar_handle_alloc(n, NULL, &ch, &i), MPI_T_ERR_INVALID_INDEX);
    RC(MPI_T_cvar_handle_alloc(0, NULL, &ch, &i), MPI_SUCCESS);
    MPI_T_cvar_handle stale = ch;
    RC(MPI_T_cvar_handle_free(&ch), MPI_SUCCESS);
    long long v;
    RC(MPI_T_cvar_read(stale, &v), MPI_T_ERR_INVALID_HANDLE);
    RC(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &v), MPI_T_ERR_INVALID_HANDLE);
    RC(MPI_T_cvar_handle_free(&stale), MPI_T_ERR_INVALID_HANDLE);
    int wv = 99; /* FERRY_WAIT has 3 words */
    RC(cvar_write("FERRY_WAIT", &wv), MPI_T_ERR_INVALID);
    RC(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    RC(MPI_T_pvar_get_num(&n), MPI_SUCCESS);
    RC(MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                           NULL),
       MPI_T_ERR_INVALID_INDEX);
    RC(MPI_T_pvar_get_index("no_such_pvar", MPI_T_PVAR_CLASS_COUNTER, &i), MPI_T_ERR_INVALID_NAME);
    RC(MPI_T_category_get_num(&n), MPI_SUCCESS);
    RC(MPI_T_category_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
       MPI_T_ERR_INVALID_INDEX);
    RC(MPI_T_category_get_cvars(-1, 0, NULL), MPI_T_ERR_INVALID_INDEX);
    RC(MPI_T_category_get_index("no_such_category", &i), MPI_T_ERR_INVALID_NAME);
    /* Sessions and pvar handles. */
    MPI_T_pvar_session s, s2;
    MPI_T_pvar_handle h, hl;
    RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    RC(MPI_T_pvar_session_create(&s2), MPI_SUCCESS);
    RC(MPI_T_pvar_handle_alloc(s, n + 1000, NULL, &h, &i), MPI_T_ERR_INVALID_INDEX);
    RC(MPI_T_pvar_get_index("msgs_sent_self", MPI_T_PVAR_CLASS_COUNTER, &i), MPI_SUCCESS);
    RC(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &n), MPI_SUCCESS);
    RC(MPI_T_pvar_read(s2, h, &v), MPI_T_ERR_INVALID_HANDLE); /* another session's handle */
    RC(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
    RC(MPI_T_pvar_start(s, h), MPI_T_ERR_PVAR_NO_STARTSTOP); /* continuous */
    RC(MPI_T_pvar_stop(s, h), MPI_T_ERR_PVAR_NO_STARTSTOP);
    RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS); /* skips continuous ones */
    RC(MPI_T_pvar_get_index("unexpected_length", MPI_T_PVAR_CLASS_LEVEL, &i), MPI_SUCCESS);
    RC(MPI_T_pvar_handle_alloc(s, i, NULL, &hl, &n), MPI_SUCCESS);
    unsigned long long u = 1;
    RC(MPI_T_pvar_write(s, hl, &u), MPI_T_ERR_PVAR_NO_WRITE);
    RC(MPI_T_pvar_reset(s, hl), MPI_T_ERR_PVAR_NO_WRITE);
    RC(MPI_T_pvar_readreset(s, hl, &u), MPI_T_ERR_PVAR_NO_WRITE);
    RC(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS); /* skips read-only ones */
    MPI_T_pvar_session bad = s2;
    RC(MPI_T_pvar_session_free(&s2), MPI_SUCCESS);
    CHECK(s2 == MPI_T_PVAR_SESSION_NULL, "freed session not nulled");
    RC(MPI_T_pvar_read(bad, h, &v), MPI_T_ERR_INVALID_SESSION);
    RC(MPI_T_pvar_handle_alloc(bad, 0, NULL, &h, &n), MPI_T_ERR_INVALID_SESSION);
    RC(MPI_T_pvar_session_free(&bad), MPI_T_ERR_INVALID_SESSION);
    RC(MPI_T_pvar_handle_free(s, &h), MPI_SUCCESS);
    CHECK(h == MPI_T_PVAR_HANDLE_NULL, "freed pvar handle not nulled");
    RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS); /* frees hl with it */
    /* Events: none; one timestamp source. */
    RC(MPI_T_event_get_num(&n), MPI_SUCCESS);
    CHECK(n == 0, "%d events", n);
    RC(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
       MPI_T_ERR_INVALID_INDEX);
    RC(MPI_T_event_get_index("any", &i), MPI_T_ERR_INVALID_NAME);
    MPI_T_event_registration reg = NULL;
    RC(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
    RC(MPI_T_event_handle_free(reg, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    RC(MPI_T_event_handle_set_info(reg, MPI_INFO_NULL), MPI_T_ERR_INVALID_HANDLE);
    RC(MPI_T_event_read(NULL, 0, buf), MPI_T_ERR_INVALID_HANDLE);
    RC(MPI_T_source_get_num(&n), MPI_SUCCESS);
    CHECK(n == 1, "%d sources", n);
    MPI_Count t1 = 0, t2 = 0, tps = 0;
    RC(MPI_T_source_get_info(0, buf, &(int){sizeof buf}, NULL, NULL, NULL, &tps, NULL, NULL),
       MPI_SUCCESS);
    RC(MPI_T_source_get_timestamp(0, &t1), MPI_SUCCESS);
    RC(MPI_T_source_get_timestamp(0, &t2), MPI_SUCCESS);
    CHECK(tps == 1000000000 && t2 >= t1 && t1 > 0, "source");
    RC(MPI_T_source_get_timestamp(1, &t1), MPI_T_ERR_INVALID_INDEX);
}

typedef struct {
    const char *name;
    int cls;
    MPI_T_pvar_handle h;
} pv_t;

static unsigned long long pv_read(MPI_T_pvar_session s, pv_t *p)
{
    unsigned long long v = 0;
    RC(MPI_T_pvar_read(s, p->h, &v), MPI_SUCCESS);
    return v;
}

int main(int argc, char **argv)
{
    int provided;
    RC(MPI_T_cvar_get_num(&provided), MPI_T_ERR_NOT_INITIALIZED);
    RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    RC(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    walk();
    bad_arguments();
    /* Before MPI_Init every knob may be written; this one must take effect. */
    long long eager = 1024;
    RC(cvar_write("FERRY_EAGER_MAX", &eager), MPI_SUCCESS);
    CHECK(cvar_read_ll("FERRY_EAGER_MAX") == 1024, "eager before init");

    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    walk();
    CHECK(cvar_read_ll("FERRY_EAGER_MAX") == 1024, "eager after init");
    CHECK(cvar_read_ll("FERRY_SHM_COLL_SLOTS") >= 0, "slots settled");
    RC(cvar_write("FERRY_EAGER_MAX", &eager), MPI_T_ERR_CVAR_SET_NOT_NOW);
    int block = 2, spin = 1, wait_now = -1; /* FERRY_WAIT words: auto, spin, block */
    RC(cvar_write("FERRY_WAIT", &block), MPI_SUCCESS);
    MPI_T_cvar_handle wh;
    int cnt;
    RC(MPI_T_cvar_handle_alloc(cvar_index("FERRY_WAIT"), NULL, &wh, &cnt), MPI_SUCCESS);
    RC(MPI_T_cvar_read(wh, &wait_now), MPI_SUCCESS);
    CHECK(wait_now == 2, "FERRY_WAIT read %d after writing block", wait_now);
    RC(MPI_T_cvar_handle_free(&wh), MPI_SUCCESS);

    const int CNT = MPI_T_PVAR_CLASS_COUNTER;
    char net_names[4][32];
    const char *net = peer_transport();
    snprintf(net_names[0], sizeof net_names[0], "msgs_sent_%s", net);
    snprintf(net_names[1], sizeof net_names[1], "bytes_sent_%s", net);
    snprintf(net_names[2], sizeof net_names[2], "msgs_recv_%s", net);
    snprintf(net_names[3], sizeof net_names[3], "bytes_recv_%s", net);
    pv_t pv[] = {
        {net_names[0], CNT, 0},
        {net_names[1], CNT, 0},
        {net_names[2], CNT, 0},
        {net_names[3], CNT, 0},
        {"msgs_sent_self", CNT, 0},
        {"bytes_sent_self", CNT, 0},
        {"msgs_recv_self", CNT, 0},
        {"bytes_recv_self", CNT, 0},
        {"rndv_sends", CNT, 0},
        {"unexpected_length", MPI_T_PVAR_CLASS_LEVEL, 0},
        {"unexpected_highwater", MPI_T_PVAR_CLASS_HIGHWATERMARK, 0},
    };
    enum { SSH, BSSH, RSH, BRSH, SSE, BSSE, RSE, BRSE, RNDV, ULEN, UHWM, NPV };
    MPI_T_pvar_session s;
    RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    for (int i = 0; i < NPV; i++) {
        int idx = -1, c;
        RC(MPI_T_pvar_get_index(pv[i].name, pv[i].cls, &idx), MPI_SUCCESS);
        RC(MPI_T_pvar_handle_alloc(s, idx, NULL, &pv[i].h, &c), MPI_SUCCESS);
        if (i < ULEN)
            CHECK(pv_read(s, &pv[i]) == 0, "%s starts at %llu", pv[i].name, pv_read(s, &pv[i]));
    }
    int widx, c;
    MPI_T_pvar_handle wt;
    RC(MPI_T_pvar_get_index("wait_time", MPI_T_PVAR_CLASS_TIMER, &widx), MPI_SUCCESS);
    RC(MPI_T_pvar_handle_alloc(s, widx, NULL, &wt, &c), MPI_SUCCESS);
    RC(MPI_T_pvar_start(s, wt), MPI_SUCCESS);

    enum { N = 10, B = 100, K = 5, BIG = 4096, SELFB = 37 };
    char *buf = calloc(BIG, 1);
    /* To self: one message of SELFB bytes. */
    MPI_Sendrecv(buf, SELFB, MPI_CHAR, me, 1, buf + 1000, SELFB, MPI_CHAR, me, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    unsigned long long uhwm0 = pv_read(s, &pv[UHWM]);
    if (np > 1 && me == 0) {
        for (int i = 0; i < N; i++)
            MPI_Send(buf, B, MPI_CHAR, 1, 2, MPI_COMM_WORLD);
        for (int i = 0; i < K; i++) /* these arrive before their receives are posted */
            MPI_Send(buf, B, MPI_CHAR, 1, 3, MPI_COMM_WORLD);
        MPI_Send(buf, BIG, MPI_CHAR, 1, 4, MPI_COMM_WORLD); /* above the eager limit */
        MPI_Recv(buf, 1, MPI_CHAR, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (np > 1 && me == 1) {
        for (int i = 0; i < N; i++)
            MPI_Recv(buf, B, MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* Wait until the K tag-3 messages sit in the unexpected queue (probing progresses). */
        int flag;
        do
            MPI_Iprobe(0, 4, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        while (!flag);
        CHECK(pv_read(s, &pv[ULEN]) == K + 1, "unexpected length %llu, expected %d",
              pv_read(s, &pv[ULEN]), K + 1);
        CHECK(pv_read(s, &pv[UHWM]) >= K + 1 && pv_read(s, &pv[UHWM]) >= uhwm0, "high-water");
        for (int i = 0; i < K; i++)
            MPI_Recv(buf, B, MPI_CHAR, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(buf, BIG, MPI_CHAR, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(pv_read(s, &pv[ULEN]) == 0, "unexpected length %llu after", pv_read(s, &pv[ULEN]));
        MPI_Send(buf, 1, MPI_CHAR, 0, 5, MPI_COMM_WORLD);
    }
    /* Exactly what moved, before any collective adds its own messages. */
    unsigned long long want[NPV] = {0};
    want[SSE] = want[RSE] = 1;
    want[BSSE] = want[BRSE] = SELFB;
    if (np > 1 && me == 0) {
        want[SSH] = N + K + 1, want[BSSH] = (N + K) * B + BIG, want[RNDV] = 1;
        want[RSH] = 1, want[BRSH] = 1;
    } else if (np > 1 && me == 1) {
        want[RSH] = N + K + 1, want[BRSH] = (N + K) * B + BIG;
        want[SSH] = 1, want[BSSH] = 1;
    }
    for (int i = 0; i <= RNDV; i++)
        CHECK(pv_read(s, &pv[i]) == want[i], "rank %d: %s = %llu, expected %llu", me, pv[i].name,
              pv_read(s, &pv[i]), want[i]);
    /* The wait timer: rank 0 certainly waited for rank 1's answer. */
    double w1 = -1, w2 = -1, w3 = -1;
    RC(MPI_T_pvar_stop(s, wt), MPI_SUCCESS);
    RC(MPI_T_pvar_read(s, wt, &w1), MPI_SUCCESS);
    MPI_Sendrecv(buf, 1, MPI_CHAR, me, 1, buf + 1, 1, MPI_CHAR, me, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    RC(MPI_T_pvar_read(s, wt, &w2), MPI_SUCCESS);
    CHECK(w1 == w2 && w1 >= 0 && w1 < 1000, "stopped timer moved: %g %g", w1, w2);
    if (np > 1 && me == 0)
        CHECK(w1 > 0, "rank 0 waited %g s", w1);
    double ten = 10.0;
    RC(MPI_T_pvar_write(s, wt, &ten), MPI_SUCCESS);
    RC(MPI_T_pvar_read(s, wt, &w3), MPI_SUCCESS);
    CHECK(w3 == 10.0, "timer written %g", w3);
    /* Write, readreset, reset on a counter. */
    unsigned long long five = 5, got = 0;
    RC(MPI_T_pvar_write(s, pv[SSE].h, &five), MPI_SUCCESS);
    MPI_Send(buf, 0, MPI_CHAR, me, 6, MPI_COMM_WORLD); /* eager to self: completes at once */
    MPI_Recv(buf, 0, MPI_CHAR, me, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(pv_read(s, &pv[SSE]) == 6, "msgs_sent_self after write 5 and one send: %llu",
          pv_read(s, &pv[SSE]));
    RC(MPI_T_pvar_readreset(s, pv[SSE].h, &got), MPI_SUCCESS);
    CHECK(got == 6 && pv_read(s, &pv[SSE]) == 0, "readreset %llu", got);
    RC(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    CHECK(pv_read(s, &pv[BSSE]) == 0, "reset all");
    RC(MPI_T_pvar_read(s, wt, &w3), MPI_SUCCESS);
    CHECK(w3 == 0, "timer after reset %g", w3);

    /* One Allreduce: the Allreduce algorithm counters move by exactly one in all. */
    int npvar, first = -1, nalg = 0;
    RC(MPI_T_pvar_get_num(&npvar), MPI_SUCCESS);
    MPI_T_pvar_handle alg[32];
    for (int i = 0; i < npvar && nalg < 32; i++) {
        char name[128];
        int nl = sizeof name;
        RC(MPI_T_pvar_get_info(i, name, &nl, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                               NULL),
           MPI_SUCCESS);
        if (strncmp(name, "coll_allreduce_", 15) == 0) {
            if (first < 0)
                first = i;
            RC(MPI_T_pvar_handle_alloc(s, i, NULL, &alg[nalg++], &c), MPI_SUCCESS);
        }
    }
    CHECK(nalg >= 3, "%d allreduce algorithms", nalg);
    int x = me, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    unsigned long long total = 0;
    for (int i = 0; i < nalg; i++) {
        unsigned long long v = 0;
        RC(MPI_T_pvar_read(s, alg[i], &v), MPI_SUCCESS);
        total += v;
    }
    CHECK(total == 1, "allreduce counted %llu times", total);
    /* Forcing an algorithm through its cvar while MPI runs (every rank writes the same). */
    MPI_T_enum et;
    RC(MPI_T_cvar_get_info(cvar_index("FERRY_COLL_ALLREDUCE"), NULL, NULL, NULL, NULL, &et, NULL,
                           NULL, NULL, NULL),
       MPI_SUCCESS);
    int nitems = 0, ring = -1;
    RC(MPI_T_enum_get_info(et, &nitems, NULL, NULL), MPI_SUCCESS);
    for (int k = 0; k < nitems; k++) {
        char nm[64];
        int nl = sizeof nm, val;
        RC(MPI_T_enum_get_item(et, k, &val, nm, &nl), MPI_SUCCESS);
        if (strcmp(nm, "recursive_doubling") == 0)
            ring = val;
    }
    CHECK(ring > 0, "no recursive_doubling item");
    RC(cvar_write("FERRY_COLL_ALLREDUCE", &ring), MPI_SUCCESS);
    MPI_T_pvar_handle rd;
    int rdi;
    RC(MPI_T_pvar_get_index("coll_allreduce_recursive_doubling", MPI_T_PVAR_CLASS_COUNTER, &rdi),
       MPI_SUCCESS);
    RC(MPI_T_pvar_handle_alloc(s, rdi, NULL, &rd, &c), MPI_SUCCESS);
    double big[4096] = {0}, bigr[4096];
    MPI_Allreduce(big, bigr, 4096, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    unsigned long long nrd = 0;
    RC(MPI_T_pvar_read(s, rd, &nrd), MPI_SUCCESS);
    CHECK(nrd == 1, "forced recursive doubling ran %llu times", nrd);
    int autov = 0;
    RC(cvar_write("FERRY_COLL_ALLREDUCE", &autov), MPI_SUCCESS);
    RC(cvar_write("FERRY_WAIT", &spin), MPI_SUCCESS);
    free(buf);

    MPI_Finalize();
    /* After MPI_Finalize: still usable; knobs may be written again. */
    walk();
    unsigned long long after = pv_read(s, &pv[SSE]);
    (void)after;
    RC(cvar_write("FERRY_EAGER_MAX", &eager), MPI_SUCCESS);
    RC(MPI_T_finalize(), MPI_SUCCESS);
    int n;
    RC(MPI_T_cvar_get_num(&n), MPI_SUCCESS); /* one init still counts */
    RC(MPI_T_finalize(), MPI_SUCCESS);
    RC(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    RC(MPI_T_pvar_read(s, pv[SSE].h, &after), MPI_T_ERR_NOT_INITIALIZED);
    RC(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    /* And again from the start: the sessions of the first round are gone. */
    RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    RC(MPI_T_pvar_read(s, pv[SSE].h, &after), MPI_T_ERR_INVALID_SESSION);
    RC(MPI_T_finalize(), MPI_SUCCESS);
    if (errs == 0 && me == 0)
        printf("No Errors\n");
    else if (errs)
        printf("rank %d: %d errors\n", me, errs);
    return errs != 0;
}
