/* The one-sided (RMA) correctness matrix, checked against an independent model (the value
 * formulas of coll_model.h: every process computes what any origin contributes to any target,
 * and what any target held at the start of an epoch, without trusting another MPI call):
 *   - operations Put, Get, Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap, and the
 *     request forms Rput, Rget, Raccumulate, Rget_accumulate (only in passive-target epochs,
 *     where MPI 4.1 defines them), each case split into 1-3 operations per target; a third of
 *     the accumulate cases mix Accumulate, Get_accumulate, Fetch_and_op and the request forms
 *     by origin (the standard makes them atomic with each other for one operator and type);
 *   - windows from Win_create on malloc memory, Win_create on MPI_Alloc_mem memory,
 *     Win_allocate, Win_allocate_shared (neighbours' memory right after ours: an overrun shows
 *     in the guard) and Win_create_dynamic + Win_attach (displacements are addresses), some
 *     with info hints (accumulate_ordering=none, accumulate_ops=same_op, same_size,
 *     same_disp_unit, alloc_shared_noncontig);
 *   - synchronisation by fence (with and without NOPRECEDE/NOSUCCEED), PSCW (Win_wait or a
 *     Win_test loop), Win_lock per target (shared, exclusive or mixed, one target at a time or
 *     all held at once, MPI_MODE_NOCHECK where no exclusive lock exists), lock_all + Win_flush
 *     or flush_all, lock_all + Win_flush_local or flush_local_all (then the origin buffers are
 *     overwritten at once: the library must not read them later); request forms completed
 *     before or after the flush/unlock, and their origin buffers overwritten once complete;
 *   - datatypes MPI_INT, MPI_DOUBLE, MPI_LONG_LONG, MPI_CHAR (moved, replaced, fetched only),
 *     MPI_2INT and MPI_DOUBLE_INT (MINLOC/MAXLOC), contiguous ints on one side and a vector of
 *     ints with holes on the other (both ways), contiguous doubles against a vector of doubles
 *     with holes, a vector of ints against an indexed type of ints with other holes, and a
 *     struct {int, double} with holes against a struct of the same signature
 *     laid out differently (Put/Get only: accumulates need one basic type);
 *   - operators SUM, PROD, MAX, MIN, BAND, BOR, BXOR, LAND, LOR, LXOR, MINLOC, MAXLOC, REPLACE
 *     and NO_OP wherever the standard allows the pair (operator, type);
 *   - counts 0, 1, 7 and 20000; disp_unit 1 or the basic type's size;
 *   - concurrent origins: each origin accesses one target (a ring with a random shift, self
 *     included), all origins one hot target, or every origin every target; some origins idle;
 *   - windows on world, on world numbered backwards (window ranks are not world ranks; PSCW
 *     groups come from Win_get_group) or on the odd and even halves of world at once.
 * Each epoch is designed so that its outcome is deterministic: Put, Compare_and_swap and
 * REPLACE write disjoint target slots (one per origin); accumulates with the other (associative
 * and commutative, exact on the model's values) operators may all hit the same elements; Gets
 * read what the target held at the epoch's start; the values fetched by Get_accumulate and
 * Fetch_and_op are checked when nobody else updates the same elements in the epoch (disjoint
 * slots, or NO_OP), else only the result buffer's holes and guard are.
 *
 * Checking: every rank's window memory is sentinel bytes with the accessed elements set to the
 * target's initial values; after the epoch the whole window (guards, gaps between slots, holes
 * of the target type) is compared with the model's image. Result buffers start as sentinel
 * with a guard after them and are compared whole; origin buffers must not change (unless the
 * test overwrote them after local completion). The first failures are printed with every
 * parameter of the case, its number and the seed, so that FY_TEST_SEED=S FY_TEST_CASE=N at the
 * same rank count runs that case alone.
 *
 * Cases are drawn at random from the matrix by a seeded generator (FY_TEST_SEED, default 14,
 * printed); FY_TEST_MATRIX=quick runs 40 of them, the default 240 (160 above 4 ranks),
 * FY_TEST_MATRIX=full 2000; FY_TEST_CASES=N sets the number; FY_TEST_RMA_EXCLUDE=name,... skips
 * the cases with that operation (also among mixed kinds), operator, type pair, flavour or
 * synchronisation (names as printed, such as Compare_and_swap or MPI_DOUBLE_INT). Each case
 * creates and frees its window. The run stops after 20 failed cases. FY_TEST_MATRIX_PROFILE=1
 * prints the time spent per synchronisation, window flavour and operation.
 *
 * The reference implementations: MPICH 4.0 passes (slowly when oversubscribed: it polls).
 * Open MPI 4.1.4 does not, in cases the standard defines: with its default components
 * Win_create fails at 1 rank (MPI_ERR_WIN) and Compare_and_swap crashes in
 * mca_btl_vader_emu_acswap from 2 ranks on; with --mca osc sm,pt2pt, MINLOC/MAXLOC on
 * MPI_DOUBLE_INT is refused ("currently unsupported") and (R)Get_accumulate of 20000 elements
 * of a derived type corrupts the heap or fetches wrong values. It passes with that and
 * FY_TEST_RMA_EXCLUDE=MPI_DOUBLE_INT,Get_accumulate,Rget_accumulate. */
#include <unistd.h>

#include "coll_model.h"

/* ---- the matrix's dimensions ---- */

enum { R_PUT, R_GET, R_ACC, R_GACC, R_FOP, R_CAS, R_RPUT, R_RGET, R_RACC, R_RGACC, NRMA };
static const char *const rma_name[NRMA] = {
    "Put",  "Get",  "Accumulate", "Get_accumulate", "Fetch_and_op", "Compare_and_swap",
    "Rput", "Rget", "Raccumulate", "Rget_accumulate"};

enum { W_MALLOC, W_ALLOCMEM, W_ALLOCATE, W_SHARED, W_DYNAMIC, NFLAV };
static const char *const flav_name[NFLAV] = {"Win_create(malloc)", "Win_create(Alloc_mem)",
                                             "Win_allocate", "Win_allocate_shared",
                                             "Win_create_dynamic+attach"};

enum { S_FENCE, S_PSCW, S_LOCK, S_FLUSH, S_FLUSH_LOCAL, NSYNC };
static const char *const sync_name[NSYNC] = {"fence", "PSCW", "lock per target",
                                             "lock_all+flush", "lock_all+flush_local"};

/* Accumulate operators; the model's (coll_model.h) OP_ code of each, REPLACE and NO_OP
 * generating any values (OP_NONE). */
enum {
    A_SUM,
    A_PROD,
    A_MAX,
    A_MIN,
    A_BAND,
    A_BOR,
    A_BXOR,
    A_LAND,
    A_LOR,
    A_LXOR,
    A_MINLOC,
    A_MAXLOC,
    A_REPLACE,
    A_NOOP,
    NAOPS
};
static const char *const aop_name[NAOPS] = {"SUM", "PROD", "MAX",    "MIN",    "BAND",
                                            "BOR", "BXOR", "LAND",   "LOR",    "LXOR",
                                            "MINLOC", "MAXLOC", "REPLACE", "NO_OP"};
static const int aop_model[NAOPS] = {OP_SUM,  OP_PROD, OP_MAX,    OP_MIN,    OP_BAND,
                                     OP_BOR,  OP_BXOR, OP_LAND,   OP_LOR,    OP_LXOR,
                                     OP_MINLOC, OP_MAXLOC, OP_NONE, OP_NONE};

static MPI_Op aop_mpi(int a)
{
    const MPI_Op ops[NAOPS] = {MPI_SUM,  MPI_PROD, MPI_MAX,    MPI_MIN,    MPI_BAND,
                               MPI_BOR,  MPI_BXOR, MPI_LAND,   MPI_LOR,    MPI_LXOR,
                               MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
    return ops[a];
}

/* Basic classes of the type pairs (what the standard lets each operator take). */
enum { B_INT, B_DOUBLE, B_LL, B_CHAR, B_MIXED, B_PAIR };

/* A pair: origin type (count n * om) and target type (count n * tm) with the same signature. */
typedef struct {
    const char *name;
    const cm_type_t *o, *t;
    int om, tm, basic, predefined, dunit;
} pair_t;

enum {
    P_INT,
    P_DOUBLE,
    P_LL,
    P_CHAR,
    P_2INT,
    P_DINT,
    P_IVEC_T, /* 3 contiguous ints at the origin, a vector of 3 ints with holes at the target */
    P_IVEC_O, /* the other way round */
    P_DVEC_T, /* 2 contiguous doubles at the origin, a vector of 2 doubles with holes */
    P_IDX,    /* the int vector at the origin, an indexed type of 3 ints (other holes) at target */
    P_STRUCT, /* struct {int, double} (C layout) at the origin, {int @0, double @16} at target */
    NPAIRS
};
static pair_t pairs[NPAIRS];
static cm_type_t t_dvec, t_idx, t_sto, t_stt, t_one[6]; /* t_one[kind]: a lone field of that kind */

enum { GUARD = 64, LARGE = 20000, MAXFAILED = 20 };

static void setup_types(void)
{
    cm_setup(); /* cm_types: int, double, char, long long, the int vector, 2INT, DOUBLE_INT */
    for (int k = 0; k < 6; k++) {
        t_one[k].name = "field";
        t_one[k].nf = 1;
        t_one[k].f[0].off = 0;
        t_one[k].f[0].kind = k;
        t_one[k].ext = cm_ksize[k];
    }
    MPI_Datatype dv, so0, st0;
    MPI_OK(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &dv)); /* doubles at 0 and 24, extent 32 */
    MPI_OK(MPI_Type_commit(&dv));
    t_dvec = (cm_type_t){"vector(2 doubles, holes)", dv, 32, 2, {{0, K_F64}, {24, K_F64}}, 0};
    int ibl[2] = {2, 1}, idi[2] = {0, 5}; /* ints at 0, 4 and 20, extent 24 */
    MPI_OK(MPI_Type_indexed(2, ibl, idi, MPI_INT, &t_idx.type));
    MPI_OK(MPI_Type_commit(&t_idx.type));
    t_idx = (cm_type_t){"indexed(3 ints, holes)", t_idx.type, 24, 3,
                        {{0, K_I32}, {4, K_I32}, {20, K_I32}}, 0};
    int bl[2] = {1, 1};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Aint d_o[2] = {0, 8}, d_t[2] = {0, 16};
    MPI_OK(MPI_Type_create_struct(2, bl, d_o, ty, &so0));
    MPI_OK(MPI_Type_create_resized(so0, 0, 16, &t_sto.type));
    MPI_OK(MPI_Type_commit(&t_sto.type));
    MPI_OK(MPI_Type_free(&so0));
    t_sto.name = "struct{int@0,double@8}";
    t_sto.ext = 16;
    t_sto.nf = 2;
    t_sto.f[0] = (cm_field_t){0, K_I32};
    t_sto.f[1] = (cm_field_t){8, K_F64};
    MPI_OK(MPI_Type_create_struct(2, bl, d_t, ty, &st0));
    MPI_OK(MPI_Type_create_resized(st0, 0, 32, &t_stt.type));
    MPI_OK(MPI_Type_commit(&t_stt.type));
    MPI_OK(MPI_Type_free(&st0));
    t_stt.name = "struct{int@0,double@16}";
    t_stt.ext = 32;
    t_stt.nf = 2;
    t_stt.f[0] = (cm_field_t){0, K_I32};
    t_stt.f[1] = (cm_field_t){16, K_F64};

    const cm_type_t *ti = &cm_types[T_INT], *td = &cm_types[T_DOUBLE], *iv = &cm_types[T_VEC];
    pairs[P_INT] = (pair_t){"MPI_INT", ti, ti, 1, 1, B_INT, 1, 4};
    pairs[P_DOUBLE] = (pair_t){"MPI_DOUBLE", td, td, 1, 1, B_DOUBLE, 1, 8};
    pairs[P_LL] = (pair_t){"MPI_LONG_LONG", &cm_types[T_LL], &cm_types[T_LL], 1, 1, B_LL, 1, 8};
    pairs[P_CHAR] = (pair_t){"MPI_CHAR", &cm_types[T_CHAR], &cm_types[T_CHAR], 1, 1, B_CHAR, 1, 1};
    pairs[P_2INT] = (pair_t){"MPI_2INT", &cm_types[T_2INT], &cm_types[T_2INT], 1, 1, B_PAIR, 1, 4};
    pairs[P_DINT] = (pair_t){"MPI_DOUBLE_INT", &cm_types[T_DINT], &cm_types[T_DINT], 1, 1, B_PAIR, 1,
                             8};
    pairs[P_IVEC_T] = (pair_t){"ints -> vector(3 ints, holes)", ti, iv, 3, 1, B_INT, 0, 4};
    pairs[P_IVEC_O] = (pair_t){"vector(3 ints, holes) -> ints", iv, ti, 1, 3, B_INT, 0, 4};
    pairs[P_DVEC_T] = (pair_t){"doubles -> vector(2 doubles, holes)", td, &t_dvec, 2, 1, B_DOUBLE,
                               0, 8};
    pairs[P_IDX] = (pair_t){"vector(3 ints, holes) -> indexed(3 ints, holes)", iv, &t_idx, 1, 1,
                            B_INT, 0, 4};
    pairs[P_STRUCT] = (pair_t){"struct{int,double} -> struct{int,double} (other holes)", &t_sto,
                               &t_stt, 1, 1, B_MIXED, 0, 8};
}

static void teardown_types(void)
{
    MPI_OK(MPI_Type_free(&t_dvec.type));
    MPI_OK(MPI_Type_free(&t_idx.type));
    MPI_OK(MPI_Type_free(&t_sto.type));
    MPI_OK(MPI_Type_free(&t_stt.type));
    cm_teardown();
}

/* Whether the standard defines accumulate operator a on pair p (MPI 4.1 6.9.2 and 12.3.4: one
 * predefined basic type per side; MINLOC/MAXLOC on the pair types; REPLACE and NO_OP on any). */
static int aop_valid(int a, const pair_t *p)
{
    if (p->basic == B_MIXED)
        return 0;
    if (a == A_REPLACE || a == A_NOOP)
        return 1;
    if (a == A_MINLOC || a == A_MAXLOC)
        return p->basic == B_PAIR;
    if (a <= A_MIN)
        return p->basic == B_INT || p->basic == B_DOUBLE || p->basic == B_LL;
    return p->basic == B_INT || p->basic == B_LL; /* bitwise and logical: C integers */
}

static int is_req(int r)
{
    return r >= R_RPUT;
}

static int base_rma(int r) /* the blocking form of a request form */
{
    return r == R_RPUT ? R_PUT : r == R_RGET ? R_GET : r == R_RACC ? R_ACC
                                                     : r == R_RGACC ? R_GACC : r;
}

/* ---- a case ---- */

enum { PAT_RING, PAT_HOT, PAT_ALL };
typedef struct {
    int idx;
    unsigned seed;
    int comm, rma, flav, sync, pi, aop, n, du, info;
    int pat, shift, hot, overlap, split, skew;
    int lockkind; /* S_LOCK: 0 all shared, 1 all exclusive, 2 mixed */
    int nested, nocheck, flushall, waitlate, fa0, fa1, usetest;
    int nmix, mixset[5]; /* nmix > 0: each origin takes one of these accumulate kinds */
    /* derived */
    const pair_t *p;
    int vop, nslots;
    MPI_Aint slotsize, wsize;
} case_t;

static int g_failed_cases, g_case_failed;
/* The case's communicator: world, world numbered backwards, or the half of world (odd or even
 * ranks) this process is in, both halves running the case at once on their own windows. */
enum { C_WORLD, C_REV, C_HALF, NCOMMS };
static const char *const comm_name[NCOMMS] = {"world", "world reversed", "half of world"};
static MPI_Comm g_comms[NCOMMS], g_comm;
static int g_p, g_me;

static void use_comm(int c)
{
    g_comm = g_comms[c];
    MPI_Comm_size(g_comm, &g_p);
    MPI_Comm_rank(g_comm, &g_me);
}
static double g_tsync[NSYNC], g_tflav[NFLAV], g_trma[NRMA]; /* FY_TEST_MATRIX_PROFILE */

static unsigned hrand(unsigned seed, unsigned a, unsigned b)
{
    return (unsigned)cm_mix(((uint64_t)seed << 32) ^ ((uint64_t)a << 16) ^ b);
}

/* The operation origin o issues: the case's, or one of the mixed accumulate kinds. */
static int rma_of(const case_t *k, int o)
{
    if (k->nmix == 0)
        return k->rma;
    return k->mixset[hrand(k->seed, 313, (unsigned)o) % (unsigned)k->nmix];
}

static int active(const case_t *k, int o)
{
    if (g_p == 1)
        return 1;
    return hrand(k->seed, 901, (unsigned)o) % 4 != 0;
}

/* The targets origin o accesses, in the order it issues them; returns how many. */
static int targets_of(const case_t *k, int o, int *t)
{
    if (!active(k, o))
        return 0;
    switch (k->pat) {
    case PAT_RING: t[0] = (o + k->shift) % g_p; return 1;
    case PAT_HOT: t[0] = k->hot; return 1;
    default:
        for (int i = 0; i < g_p; i++)
            t[i] = (o + k->shift + i) % g_p;
        return g_p;
    }
}

static int accesses(const case_t *k, int o, int t)
{
    int tg[64], nt = targets_of(k, o, tg);
    for (int i = 0; i < nt; i++)
        if (tg[i] == t)
            return 1;
    return 0;
}

static int lock_type(const case_t *k, int o, int t)
{
    if (k->lockkind == 2)
        return hrand(k->seed, 77, (unsigned)(o * 64 + t)) & 1 ? MPI_LOCK_EXCLUSIVE
                                                               : MPI_LOCK_SHARED;
    return k->lockkind ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
}

static int slot_of(const case_t *k, int o)
{
    return k->overlap ? 0 : o;
}

static MPI_Aint slot_off(const case_t *k, int s)
{
    return GUARD + (MPI_Aint)s * k->slotsize + k->skew;
}

static unsigned init_seed(const case_t *k)
{
    return k->seed ^ 0x13579bdu;
}

static void describe(const case_t *k, char *out, size_t len)
{
    char who[160] = "", op[32] = "", mix[400] = "";
    int w = 0;
    for (int o = 0; o < g_p && w < 120; o++)
        if (active(k, o))
            w += snprintf(who + w, sizeof who - (size_t)w, "%s%d", w ? "," : "", o);
    if (k->rma != R_PUT && k->rma != R_GET && k->rma != R_RPUT && k->rma != R_RGET &&
        k->rma != R_CAS)
        snprintf(op, sizeof op, ", op %s", aop_name[k->aop]);
    if (k->nmix) {
        int m = snprintf(mix, sizeof mix, " (accumulate kinds mixed, by origin:");
        for (int o = 0; o < g_p && m < 360; o++)
            m += snprintf(mix + m, sizeof mix - (size_t)m, " %d %s", o, rma_name[rma_of(k, o)]);
        snprintf(mix + m, sizeof mix - (size_t)m, ")");
    }
    const char *pat = k->pat == PAT_RING ? "ring" : k->pat == PAT_HOT ? "hot" : "all";
    char lk[120] = "";
    if (k->sync == S_LOCK)
        snprintf(lk, sizeof lk, " (%s locks, %s%s)",
                 k->lockkind == 0 ? "shared" : k->lockkind == 1 ? "exclusive" : "mixed",
                 k->nested ? "all held at once" : "one target at a time",
                 k->nocheck ? ", NOCHECK" : "");
    else if (k->sync == S_FLUSH || k->sync == S_FLUSH_LOCAL)
        snprintf(lk, sizeof lk, " (%s%s)", k->flushall ? "the _all form" : "per target",
                 k->nocheck ? ", NOCHECK" : "");
    else if (k->sync == S_FENCE)
        snprintf(lk, sizeof lk, " (asserts %s, %s)", k->fa0 ? "NOPRECEDE" : "0",
                 k->fa1 ? "NOSUCCEED" : "0");
    else
        snprintf(lk, sizeof lk, " (%s)", k->usetest ? "Win_test loop" : "Win_wait");
    snprintf(out, len,
             "case %d (seed %u): %s%s%s, type %s, count %d, %s, disp_unit %d%s, sync %s%s, "
             "pattern %s%s%d, origins {%s}, split %d, %s slots, skew %d%s [on %s, size %d, rank %d "
             "= world %d]",
             k->idx, k->seed, rma_name[k->rma], mix, op, k->p->name, k->n, flav_name[k->flav], k->du,
             k->info ? ", info hints" : "", sync_name[k->sync], lk, pat,
             k->pat == PAT_HOT ? " rank " : " shift ", k->pat == PAT_HOT ? k->hot : k->shift,
             who, k->split, k->overlap ? "shared" : "disjoint", k->skew,
             is_req(k->rma) || k->nmix ? (k->waitlate ? ", requests waited late" : ", requests waited early")
                            : "",
             comm_name[k->comm], g_p, g_me, mt_rank);
}

static void note_fail(const case_t *k)
{
    if (!g_case_failed) {
        g_case_failed = 1;
        g_failed_cases++;
    }
    (void)k;
}

static void fail(const case_t *k, const char *fmt, ...)
{
    mt_errs++;
    note_fail(k);
    if (cm_printed++ >= 25)
        return;
    char what[1400], msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    describe(k, what, sizeof what);
    printf("[rank %d] FAIL %s: %s\n", mt_rank, what, msg);
    fflush(stdout);
}

static int rc_ok(const case_t *k, int rc, const char *call)
{
    if (rc == MPI_SUCCESS)
        return 1;
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    s[0] = 0;
    MPI_Error_string(rc, s, &len);
    fail(k, "%s returned %d (%s)", call, rc, s);
    return 0;
}
#define OK(k, call) rc_ok((k), (call), #call)

static void compare(const case_t *k, const char *bufname, const cm_type_t *t, const char *exp,
                    const char *got, size_t bytes, const cm_blocks_t *b)
{
    if (memcmp(exp, got, bytes) == 0)
        return;
    char what[1400];
    describe(k, what, sizeof what);
    note_fail(k);
    cm_compare(what, bufname, t, exp, got, bytes, b);
}

/* ---- drawing a case ---- */

static unsigned rnd(uint64_t *s)
{
    *s = cm_mix(*s);
    return (unsigned)(*s >> 17);
}

static int g_one_host = 1; /* every rank of world shares memory (set in main) */

static void draw(case_t *k, unsigned seed, int idx)
{
    memset(k, 0, sizeof *k);
    k->idx = idx;
    k->seed = (unsigned)cm_mix(((uint64_t)seed << 20) ^ (uint64_t)idx);
    uint64_t s = k->seed;
    unsigned c = rnd(&s) % 4;
    k->comm = c < 2 ? C_WORLD : c == 2 ? C_REV : C_HALF;
    use_comm(k->comm);
    k->rma = (int)(rnd(&s) % NRMA);
    k->flav = (int)(rnd(&s) % NFLAV);
    /* Win_allocate_shared needs every rank on one host: across hosts (the test hosts'
     * placements) its cases run on Win_allocate instead. */
    if (k->flav == W_SHARED && !g_one_host)
        k->flav = W_ALLOCATE;
    k->sync = is_req(k->rma) ? S_LOCK + (int)(rnd(&s) % 3) : (int)(rnd(&s) % NSYNC);
    int r = base_rma(k->rma);
    for (;;) {
        if (r == R_CAS) {
            k->pi = rnd(&s) % 2 ? P_INT : P_LL; /* C integers only */
            k->aop = A_REPLACE;
            break;
        }
        k->pi = (int)(rnd(&s) % NPAIRS);
        const pair_t *p = &pairs[k->pi];
        if (r == R_FOP && !p->predefined)
            continue;
        if (r == R_PUT || r == R_GET) {
            k->aop = A_REPLACE;
            break;
        }
        k->aop = (int)(rnd(&s) % NAOPS);
        if (k->aop == A_NOOP && r == R_ACC)
            continue;
        if (aop_valid(k->aop, p))
            break;
    }
    k->p = &pairs[k->pi];
    k->vop = (r == R_PUT || r == R_GET || r == R_CAS) ? OP_NONE : aop_model[k->aop];
    if (r == R_FOP || r == R_CAS)
        k->n = 1;
    else {
        c = rnd(&s) % 20;
        k->n = c < 2 ? 0 : c < 7 ? 1 : c < 17 ? 7 : LARGE;
    }
    k->du = (k->flav == W_DYNAMIC || rnd(&s) % 2) ? 1 : k->p->dunit;
    k->info = (int)(rnd(&s) % 3 == 0);
    unsigned pt = rnd(&s) % 4;
    k->pat = pt < 2 ? PAT_RING : pt == 2 ? PAT_HOT : PAT_ALL;
    if (k->n == LARGE && k->pat == PAT_ALL)
        k->pat = PAT_RING;
    k->shift = (int)(rnd(&s) % (unsigned)g_p);
    k->hot = (int)(rnd(&s) % (unsigned)g_p);
    int may_share = r == R_GET || ((r == R_ACC || r == R_GACC || r == R_FOP) &&
                                   k->aop != A_REPLACE);
    k->overlap = may_share && rnd(&s) % 2;
    k->split = k->n >= 2 ? 1 + (int)(rnd(&s) % 3) : 1;
    k->skew = (int)(rnd(&s) % 4) * 8;
    k->lockkind = (int)(rnd(&s) % 3);
    k->nested = (int)(rnd(&s) % 2);
    k->nocheck = (int)(rnd(&s) % 3 == 0);
    if (k->sync == S_LOCK && k->lockkind != 0)
        k->nocheck = 0; /* NOCHECK promises no conflicting lock: only with shared ones */
    k->flushall = (int)(rnd(&s) % 2);
    k->waitlate = (int)(rnd(&s) % 2);
    k->fa0 = (int)(rnd(&s) % 2);
    k->fa1 = (int)(rnd(&s) % 2);
    k->usetest = (int)(rnd(&s) % 3 == 0);
    /* Accumulate, Get_accumulate, Fetch_and_op (and their request forms in passive-target
     * epochs) with one operator are atomic with each other: some cases mix them by origin. */
    if ((r == R_ACC || r == R_GACC || r == R_FOP) && k->aop != A_REPLACE && k->aop != A_NOOP &&
        rnd(&s) % 3 == 0) {
        k->mixset[k->nmix++] = R_ACC;
        k->mixset[k->nmix++] = R_GACC;
        if (k->n == 1 && k->p->predefined)
            k->mixset[k->nmix++] = R_FOP;
        if (k->sync >= S_LOCK) {
            k->mixset[k->nmix++] = R_RACC;
            k->mixset[k->nmix++] = R_RGACC;
        }
    }

    MPI_Aint bytes = (MPI_Aint)k->n * k->p->tm * k->p->t->ext;
    k->nslots = k->overlap ? 1 : g_p;
    k->slotsize = (k->skew + bytes + 63) / 64 * 64 + 64;
    k->wsize = 2 * GUARD + k->nslots * k->slotsize;
}

/* ---- the model ---- */

/* Element e (target-type layout when tside, else origin-type) of target t's initial values in
 * slot s. */
static void gen_init(const case_t *k, const cm_type_t *ty, int t, int s, long e, char *elem)
{
    cm_gen(ty, k->vop, cm_base(init_seed(k), 1000 + t, s), e, elem);
}

/* Element e of origin o's contribution to target t. */
static void gen_contrib(const case_t *k, const cm_type_t *ty, int o, int t, long e, char *elem)
{
    cm_gen(ty, k->vop, cm_base(k->seed, o, t), e, elem);
}

/* io = in op io, field by field (the pair types as a whole under MINLOC/MAXLOC). */
static void combine(const case_t *k, const cm_type_t *ty, const char *in, char *io)
{
    int op = aop_model[k->aop];
    if (op == OP_MINLOC || op == OP_MAXLOC) {
        cm_combine(ty, op, in, io);
        return;
    }
    for (int f = 0; f < ty->nf; f++)
        cm_combine(&t_one[ty->f[f].kind], op, in + ty->f[f].off, io + ty->f[f].off);
}

/* Compare_and_swap: whether origin o's compare value equals the target's value. */
static int cas_match(const case_t *k, int o)
{
    return hrand(k->seed, 555, (unsigned)o) % 2;
}

/* The initial image of target t's window. */
static void init_image(const case_t *k, int t, char *img)
{
    cm_sentinel(img, (size_t)k->wsize, k->seed + (unsigned)t);
    const cm_type_t *ty = k->p->t;
    long ne = (long)k->n * k->p->tm;
    for (int o = 0; o < g_p; o++) {
        if (!accesses(k, o, t))
            continue;
        int s = slot_of(k, o);
        char *b = img + slot_off(k, s);
        for (long e = 0; e < ne; e++)
            gen_init(k, ty, t, s, e, b + e * ty->ext);
    }
}

/* The image target t's window must hold after the epoch; got: the window (for padding). */
static void final_image(const case_t *k, int t, char *img, const char *got)
{
    init_image(k, t, img);
    const cm_type_t *ty = k->p->t;
    long ne = (long)k->n * k->p->tm;
    char x[64];
    for (int o = 0; o < g_p; o++) {
        if (!accesses(k, o, t))
            continue;
        int r = base_rma(rma_of(k, o));
        char *b = img + slot_off(k, slot_of(k, o));
        for (long e = 0; e < ne; e++) {
            char *el = b + e * ty->ext;
            if (r == R_GET || (r != R_PUT && r != R_CAS && k->aop == A_NOOP))
                continue;
            gen_contrib(k, ty, o, t, e, x);
            if (r == R_PUT || k->aop == A_REPLACE) {
                if (r != R_CAS || cas_match(k, o))
                    cm_copy_fields(ty, x, el);
            } else {
                combine(k, ty, x, el);
            }
        }
        if (ty->pad_free)
            for (long e = 0; e < ne; e++)
                cm_take_padding(ty, b + e * ty->ext, got + (b - img) + e * ty->ext);
    }
}

/* Origin buffers (origin-type layout): the contribution (which 0), the compare value (1), the
 * expected result (2), or the sentinel for the result buffer (3). */
static void origin_image(const case_t *k, int which, int t, char *img, size_t bytes,
                         const char *got)
{
    cm_sentinel(img, bytes, k->seed * 7u + (unsigned)((which == 3 ? 2 : which) * 64 + t));
    if (which == 3)
        return;
    const cm_type_t *ty = k->p->o;
    long ne = (long)k->n * k->p->om;
    for (long e = 0; e < ne; e++) {
        char *el = img + e * ty->ext;
        if (which == 0)
            gen_contrib(k, ty, g_me, t, e, el);
        else if (which == 1) { /* the target's value, or one bit away from it */
            gen_init(k, ty, t, slot_of(k, g_me), e, el);
            if (!cas_match(k, g_me))
                el[0] ^= 0x10;
        } else {
            gen_init(k, ty, t, slot_of(k, g_me), e, el);
            int r = base_rma(rma_of(k, g_me));
            /* The fetched values are known only when no other origin updates them. */
            if ((r == R_GACC || r == R_FOP) && k->overlap && k->aop != A_NOOP)
                cm_copy_fields(ty, got + e * ty->ext, el);
            cm_take_padding(ty, el, got + e * ty->ext);
        }
    }
}

/* ---- running a case ---- */

typedef struct {
    int nt, tg[64];
    char *obuf[64], *cbuf[64], *rbuf[64];
    size_t obytes;
    int nissued, scribbled[64]; /* targets 0..nissued-1 have their operations issued */
    MPI_Request req[64 * 3];
    int nreq;
} origin_t;

static MPI_Aint g_bases[1024]; /* dynamic windows: each rank's attached address */

static MPI_Aint tdisp(const case_t *k, int t, MPI_Aint byteoff)
{
    if (k->flav == W_DYNAMIC)
        return g_bases[t] + byteoff;
    return byteoff / k->du;
}

/* Issues origin's operations to its i-th target. */
static void issue(const case_t *k, origin_t *g, int i, MPI_Win win)
{
    int t = g->tg[i];
    const pair_t *p = k->p;
    MPI_Aint toff = slot_off(k, slot_of(k, g_me));
    MPI_Op op = aop_mpi(k->aop);
    for (int j = 0; j < k->split; j++) {
        long e0 = (long)k->n * j / k->split, e1 = (long)k->n * (j + 1) / k->split;
        int oc = (int)((e1 - e0) * p->om), tc = (int)((e1 - e0) * p->tm);
        char *ob = g->obuf[i] + e0 * p->om * p->o->ext, *rb = g->rbuf[i] + e0 * p->om * p->o->ext;
        MPI_Aint d = tdisp(k, t, toff + e0 * p->tm * p->t->ext);
        MPI_Datatype ot = p->o->type, tt = p->t->type;
        MPI_Request *rq = &g->req[g->nreq];
        switch (rma_of(k, g_me)) {
        case R_PUT: OK(k, MPI_Put(ob, oc, ot, t, d, tc, tt, win)); break;
        case R_GET: OK(k, MPI_Get(rb, oc, ot, t, d, tc, tt, win)); break;
        case R_ACC: OK(k, MPI_Accumulate(ob, oc, ot, t, d, tc, tt, op, win)); break;
        case R_GACC:
            OK(k, MPI_Get_accumulate(ob, oc, ot, rb, oc, ot, t, d, tc, tt, op, win));
            break;
        case R_FOP: OK(k, MPI_Fetch_and_op(ob, rb, ot, t, d, op, win)); break;
        case R_CAS: OK(k, MPI_Compare_and_swap(ob, g->cbuf[i], rb, ot, t, d, win)); break;
        case R_RPUT:
            if (OK(k, MPI_Rput(ob, oc, ot, t, d, tc, tt, win, rq)))
                g->nreq++;
            break;
        case R_RGET:
            if (OK(k, MPI_Rget(rb, oc, ot, t, d, tc, tt, win, rq)))
                g->nreq++;
            break;
        case R_RACC:
            if (OK(k, MPI_Raccumulate(ob, oc, ot, t, d, tc, tt, op, win, rq)))
                g->nreq++;
            break;
        case R_RGACC:
            if (OK(k, MPI_Rget_accumulate(ob, oc, ot, rb, oc, ot, t, d, tc, tt, op, win, rq)))
                g->nreq++;
            break;
        }
    }
    g->nissued = i + 1;
}

/* After local completion: the library must have taken the origin data already. */
static void scribble(origin_t *g)
{
    for (int i = 0; i < g->nissued; i++)
        if (!g->scribbled[i]) {
            memset(g->obuf[i], 0x5a, g->obytes);
            memset(g->cbuf[i], 0x3c, g->obytes);
            g->scribbled[i] = 1;
        }
}

static void wait_reqs(const case_t *k, origin_t *g)
{
    if (g->nreq == 0)
        return;
    OK(k, MPI_Waitall(g->nreq, g->req, MPI_STATUSES_IGNORE));
    g->nreq = 0;
    if (base_rma(rma_of(k, g_me)) != R_GET)
        scribble(g);
}

static void check_origin(const case_t *k, origin_t *g)
{
    size_t bytes = g->obytes;
    char *img = mt_malloc(bytes);
    int r = base_rma(rma_of(k, g_me));
    for (int i = 0; i < g->nt; i++) {
        int t = g->tg[i];
        char name[80];
        if (!g->scribbled[i] && r != R_GET) {
            origin_image(k, 0, t, img, bytes, NULL);
            snprintf(name, sizeof name, "origin buffer for target %d (must not change)", t);
            compare(k, name, k->p->o, img, g->obuf[i], bytes, NULL);
        }
        if (r == R_GET || r == R_GACC || r == R_FOP || r == R_CAS) {
            origin_image(k, 2, t, img, bytes, g->rbuf[i]);
            snprintf(name, sizeof name, "result buffer of target %d", t);
            compare(k, name, k->p->o, img, g->rbuf[i], bytes, NULL);
        }
    }
    free(img);
}

static void check_target(const case_t *k, const char *win)
{
    char *img = mt_malloc((size_t)k->wsize);
    final_image(k, g_me, img, win);
    MPI_Aint off[64], len[64];
    for (int s = 0; s < k->nslots && s < 64; s++) {
        off[s] = slot_off(k, s);
        len[s] = (MPI_Aint)k->n * k->p->tm * k->p->t->ext;
    }
    cm_blocks_t b = {k->nslots < 64 ? k->nslots : 64, off, len,
                     k->overlap ? "shared by all origins" : "of origin"};
    compare(k, "target window", k->p->t, img, win, (size_t)k->wsize, &b);
    free(img);
}

static MPI_Group group_of(MPI_Win win, const int *ranks, int n)
{
    MPI_Group w, g;
    MPI_Win_get_group(win, &w); /* the window's communicator's group */
    MPI_Group_incl(w, n, ranks, &g);
    MPI_Group_free(&w);
    return g;
}

static void run_sync(const case_t *k, origin_t *g, MPI_Win win, char *mem)
{
    int me = g_me;
    switch (k->sync) {
    case S_FENCE:
        OK(k, MPI_Win_fence(k->fa0 ? MPI_MODE_NOPRECEDE : 0, win));
        for (int i = 0; i < g->nt; i++)
            issue(k, g, i, win);
        OK(k, MPI_Win_fence(k->fa1 ? MPI_MODE_NOSUCCEED : 0, win));
        check_origin(k, g);
        check_target(k, mem);
        break;
    case S_PSCW: {
        int orig[1024], no = 0;
        for (int o = 0; o < g_p; o++)
            if (accesses(k, o, me))
                orig[no++] = o;
        MPI_Group go = MPI_GROUP_NULL, gt = MPI_GROUP_NULL;
        if (no) {
            go = group_of(win, orig, no);
            OK(k, MPI_Win_post(go, 0, win));
        }
        if (g->nt) {
            gt = group_of(win, g->tg, g->nt);
            OK(k, MPI_Win_start(gt, 0, win));
            for (int i = 0; i < g->nt; i++)
                issue(k, g, i, win);
            OK(k, MPI_Win_complete(win));
        }
        if (no) {
            if (k->usetest) {
                int flag = 0;
                while (!flag && OK(k, MPI_Win_test(win, &flag)))
                    ;
            } else {
                OK(k, MPI_Win_wait(win));
            }
        }
        check_origin(k, g);
        check_target(k, mem);
        if (go != MPI_GROUP_NULL)
            MPI_Group_free(&go);
        if (gt != MPI_GROUP_NULL)
            MPI_Group_free(&gt);
        break;
    }
    case S_LOCK: {
        int as = k->nocheck ? MPI_MODE_NOCHECK : 0;
        if (k->nested) { /* every lock held at once, taken in rank order */
            for (int t = 0; t < g_p; t++)
                for (int i = 0; i < g->nt; i++)
                    if (g->tg[i] == t)
                        OK(k, MPI_Win_lock(lock_type(k, me, t), t, as, win));
            for (int i = 0; i < g->nt; i++)
                issue(k, g, i, win);
            if (!k->waitlate)
                wait_reqs(k, g);
            for (int i = 0; i < g->nt; i++)
                OK(k, MPI_Win_unlock(g->tg[i], win));
        } else {
            for (int i = 0; i < g->nt; i++) {
                OK(k, MPI_Win_lock(lock_type(k, me, g->tg[i]), g->tg[i], as, win));
                issue(k, g, i, win);
                if (!k->waitlate)
                    wait_reqs(k, g);
                OK(k, MPI_Win_unlock(g->tg[i], win));
            }
        }
        wait_reqs(k, g);
        check_origin(k, g);
        break;
    }
    default: { /* lock_all + flush or flush_local */
        int local = k->sync == S_FLUSH_LOCAL;
        OK(k, MPI_Win_lock_all(k->nocheck ? MPI_MODE_NOCHECK : 0, win));
        for (int i = 0; i < g->nt; i++) {
            issue(k, g, i, win);
            if (!k->waitlate)
                wait_reqs(k, g);
            if (!k->flushall)
                OK(k, local ? MPI_Win_flush_local(g->tg[i], win) : MPI_Win_flush(g->tg[i], win));
        }
        if (k->flushall)
            OK(k, local ? MPI_Win_flush_local_all(win) : MPI_Win_flush_all(win));
        wait_reqs(k, g);
        check_origin(k, g); /* results are there after a flush, before the unlock */
        if (local && base_rma(rma_of(k, g_me)) != R_GET)
            scribble(g);
        OK(k, MPI_Win_unlock_all(win));
        break;
    }
    }
    if (k->sync >= S_LOCK) { /* the origins are done; look at our memory under our own lock */
        MPI_OK(MPI_Barrier(g_comm));
        OK(k, MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
        check_target(k, mem);
        OK(k, MPI_Win_unlock(me, win));
    }
}

/* FY_TEST_RMA_EXCLUDE=word,word...: cases whose operation, operator, type pair, window flavour
 * or synchronisation is named are drawn but not run (to look past a known failure). */
static int excluded(const case_t *k)
{
    const char *ex = getenv("FY_TEST_RMA_EXCLUDE");
    if (!ex || !*ex)
        return 0;
    const char *names[10] = {rma_name[k->rma], aop_name[k->aop], k->p->name, flav_name[k->flav],
                             sync_name[k->sync]};
    int nn = 5;
    for (int i = 0; i < k->nmix; i++)
        names[nn++] = rma_name[k->mixset[i]];
    char buf[512];
    snprintf(buf, sizeof buf, "%s", ex);
    for (char *w = strtok(buf, ","); w; w = strtok(NULL, ","))
        for (int i = 0; i < nn; i++)
            if (strcmp(w, names[i]) == 0 && (i != 1 || (k->rma != R_PUT && k->rma != R_GET &&
                                                        k->rma != R_RPUT && k->rma != R_RGET &&
                                                        k->rma != R_CAS)))
                return 1;
    return 0;
}

static void run_case(const case_t *k)
{
    g_case_failed = 0;
    MPI_Info info = MPI_INFO_NULL;
    if (k->info) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "accumulate_ordering", "none");
        MPI_Info_set(info, "accumulate_ops", "same_op");
        MPI_Info_set(info, "same_size", "true");
        MPI_Info_set(info, "same_disp_unit", "true");
        if (k->flav == W_SHARED)
            MPI_Info_set(info, "alloc_shared_noncontig", "true");
    }
    MPI_Win win = MPI_WIN_NULL;
    char *mem = NULL;
    int ok = 1;
    switch (k->flav) {
    case W_MALLOC:
        mem = mt_malloc((size_t)k->wsize);
        ok = OK(k, MPI_Win_create(mem, k->wsize, k->du, info, g_comm, &win));
        break;
    case W_ALLOCMEM:
        ok = OK(k, MPI_Alloc_mem(k->wsize, MPI_INFO_NULL, &mem));
        if (ok)
            ok = OK(k, MPI_Win_create(mem, k->wsize, k->du, info, g_comm, &win));
        break;
    case W_ALLOCATE:
        ok = OK(k, MPI_Win_allocate(k->wsize, k->du, info, g_comm, &mem, &win));
        break;
    case W_SHARED:
        ok = OK(k, MPI_Win_allocate_shared(k->wsize, k->du, info, g_comm, &mem, &win));
        break;
    case W_DYNAMIC:
        mem = mt_malloc((size_t)k->wsize);
        ok = OK(k, MPI_Win_create_dynamic(info, g_comm, &win));
        if (ok)
            ok = OK(k, MPI_Win_attach(win, mem, k->wsize));
        MPI_Aint a = 0;
        MPI_Get_address(mem, &a);
        MPI_OK(MPI_Allgather(&a, 1, MPI_AINT, g_bases, 1, MPI_AINT, g_comm));
        break;
    }
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    if (ok && win != MPI_WIN_NULL)
        ok = OK(k, MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int all = 0;
    MPI_OK(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, g_comm));
    if (all) {
        /* Our window's initial content: plain stores before the first fence or post; under
         * our own exclusive lock (then a barrier) before passive-target epochs. */
        char *img = mt_malloc((size_t)k->wsize);
        init_image(k, g_me, img);
        if (k->sync >= S_LOCK)
            OK(k, MPI_Win_lock(MPI_LOCK_EXCLUSIVE, g_me, 0, win));
        memcpy(mem, img, (size_t)k->wsize);
        if (k->sync >= S_LOCK) {
            OK(k, MPI_Win_unlock(g_me, win));
            MPI_OK(MPI_Barrier(g_comm));
        }
        free(img);

        origin_t g;
        memset(&g, 0, sizeof g);
        g.nt = targets_of(k, g_me, g.tg);
        g.obytes = (size_t)((MPI_Aint)k->n * k->p->om * k->p->o->ext + GUARD);
        for (int i = 0; i < g.nt; i++) {
            g.obuf[i] = mt_malloc(g.obytes);
            g.cbuf[i] = mt_malloc(g.obytes);
            g.rbuf[i] = mt_malloc(g.obytes);
            origin_image(k, 0, g.tg[i], g.obuf[i], g.obytes, NULL);
            origin_image(k, 1, g.tg[i], g.cbuf[i], g.obytes, NULL);
            origin_image(k, 3, g.tg[i], g.rbuf[i], g.obytes, NULL);
        }
        run_sync(k, &g, win, mem);
        for (int i = 0; i < g.nt; i++) {
            free(g.obuf[i]);
            free(g.cbuf[i]);
            free(g.rbuf[i]);
        }
    }
    MPI_OK(MPI_Barrier(g_comm));
    if (k->flav == W_DYNAMIC && win != MPI_WIN_NULL && ok)
        OK(k, MPI_Win_detach(win, mem));
    if (win != MPI_WIN_NULL)
        OK(k, MPI_Win_free(&win));
    if (k->flav == W_MALLOC || k->flav == W_DYNAMIC)
        free(mem);
    else if (k->flav == W_ALLOCMEM && mem)
        OK(k, MPI_Free_mem(mem));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    /* coll_model.h's helpers for collectives that this test does not use */
    (void)cm_put;
    (void)cm_fold;
    (void)cm_mpi_op;
    setup_types();
    if (mt_size > 64) {
        if (mt_rank == 0)
            printf("rma_model: at most 64 processes\n");
        return mt_finish();
    }
    const char *sv = getenv("FY_TEST_SEED"), *lv = getenv("FY_TEST_MATRIX"),
               *nv = getenv("FY_TEST_CASES"), *cv = getenv("FY_TEST_CASE");
    unsigned seed = sv ? (unsigned)strtoul(sv, NULL, 0) : 14u;
    g_comms[C_WORLD] = MPI_COMM_WORLD;
    MPI_Comm node;
    int nsize;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_OK(MPI_Comm_size(node, &nsize));
    MPI_OK(MPI_Comm_free(&node));
    g_one_host = nsize == mt_size;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, mt_size - mt_rank, &g_comms[C_REV]));
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, mt_rank, &g_comms[C_HALF]));
    int ncases = mt_size > 4 ? 160 : 240;
    if (lv && strcmp(lv, "quick") == 0)
        ncases = 40;
    else if (lv && strcmp(lv, "full") == 0)
        ncases = 2000;
    if (nv)
        ncases = atoi(nv);
    int first = 0;
    if (cv) {
        first = atoi(cv);
        ncases = first + 1;
    }
    if (mt_rank == 0) {
        printf("rma_model: seed %u (FY_TEST_SEED), cases %d..%d, %d processes\n", seed, first,
               ncases - 1, mt_size);
        fflush(stdout);
    }
    int ran = 0;
    for (int i = first; i < ncases; i++) {
        case_t k;
        draw(&k, seed, i);
        if (excluded(&k))
            continue;
        double t0 = MPI_Wtime();
        run_case(&k);
        t0 = MPI_Wtime() - t0;
        g_tsync[k.sync] += t0;
        g_tflav[k.flav] += t0;
        g_trma[k.rma] += t0;
        ran++;
        int failed = 0;
        MPI_OK(MPI_Allreduce(&g_failed_cases, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        if (failed >= MAXFAILED) {
            if (mt_rank == 0)
                printf("rma_model: stopping after %d failed cases\n", failed);
            break;
        }
    }
    teardown_types();
    MPI_OK(MPI_Comm_free(&g_comms[C_REV]));
    MPI_OK(MPI_Comm_free(&g_comms[C_HALF]));
    if (mt_rank == 0)
        printf("rma_model: %d cases\n", ran);
    if (mt_rank == 0 && getenv("FY_TEST_MATRIX_PROFILE")) {
        for (int i = 0; i < NSYNC; i++)
            printf("  %-28s %.2f s\n", sync_name[i], g_tsync[i]);
        for (int i = 0; i < NFLAV; i++)
            printf("  %-28s %.2f s\n", flav_name[i], g_tflav[i]);
        for (int i = 0; i < NRMA; i++)
            printf("  %-28s %.2f s\n", rma_name[i], g_trma[i]);
    }
    return mt_finish();
}
