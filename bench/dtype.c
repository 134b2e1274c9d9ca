/*
 * dtype.c - derived datatypes: MPI_Pack / MPI_Unpack throughput next to a
 * plain memcpy of the same bytes, and ping-pong of a strided matrix column
 * and of the faces of a 3-D cube.
 *
 * Groups (names for -b; RESULT lines say bench=dtype.<...>):
 *
 *   pack     MPI_Pack of `count` elements of a committed type into a
 *            contiguous buffer, rank 0 alone. value = MB/s of packed bytes
 *            (1 MB = 10^6 B), bench=dtype.pack.<type>.
 *   unpack   MPI_Unpack of that packed buffer back into the strided layout,
 *            rank 0 alone. bench=dtype.unpack.<type>.
 *            Types, each packing to `size` bytes (64 KiB, 256 KiB ... 16 MiB):
 *              vector.double.<B>  MPI_Type_vector of MPI_DOUBLE, blocks of B
 *                                 bytes (8 B, 64 B, 256 B, 1 KiB, 4 KiB),
 *                                 stride 2B (half the span is skipped)
 *              vector.byte.<B>    the same with MPI_BYTE elements (an engine
 *                                 that walks elements one by one shows here)
 *              indexed            MPI_Type_indexed of MPI_DOUBLE, 32 irregular
 *                                 blocks of 1..31 doubles with gaps of 1..8
 *                                 doubles, resized to its span and repeated
 *              struct             MPI_Type_create_struct of {int; double;
 *                                 char[6]} (18 bytes in a 24-byte C struct),
 *                                 resized to the struct and repeated; the
 *                                 largest whole number of structs <= size
 *                                 (bytes= gives the exact count)
 *            Every pack and unpack line carries memcpy=<MB/s>: a memcpy of the
 *            same number of bytes between the same buffers (source to pack
 *            buffer, pack buffer to target), timed in every repetition right
 *            before the operation, so that drift on the machine hits both; the
 *            best repetition of memcpy is printed, and pct= is the best
 *            repetition of the operation (max=) over it, in percent: being
 *            preempted only ever slows a repetition down, so on a shared
 *            machine the two best repetitions are the fairest pair.
 *   column   ranks 0 and 1: ping-pong of one column of an N x N row-major
 *            matrix of doubles (N = 64, 256, 1024, 2048) as MPI_Type_vector(N,
 *            1, N, MPI_DOUBLE): column N-1 is sent, the peer receives it into
 *            its column 0 with the same type. bench=dtype.column, size = N*8
 *            bytes, n=N.
 *   face     ranks 0 and 1: ping-pong of one face of an n^3 cube of doubles
 *            (n = 32, 64, 128, C order a[z][y][x], x fastest) as
 *            MPI_Type_create_subarray: plane n-1 is sent, the peer receives it
 *            into its plane 0. bench=dtype.face.x (n^2 single doubles n apart:
 *            the most strided), dtype.face.y (n runs of n doubles), dtype.face.z
 *            (one contiguous n^2 block, described as a subarray); size = n^2*8
 *            bytes, n=n.
 *            For column and face: value = one-way time (us) = round trip / 2,
 *            measured on rank 0; MBps= is size / value.
 *
 * Ranks: run it with 2 ranks (1 rank runs pack and unpack only). Pack and
 * unpack are measured by rank 0 alone while every other rank idles without
 * spinning (it polls for rank 0's "done" message once a millisecond), so the
 * measuring rank has the memory system and a core to itself under every MPI
 * and the numbers compare with a single-thread memcpy. Ranks beyond 1 take no
 * part in the ping-pongs.
 *
 * Timing: for each measurement one untimed call (checked), then a warm-up in
 * 3 chunks whose median chunk gives the time of one call and so the iteration
 * count: the base count (-i, default 1000) up to 64 KiB packed (4 KiB for the
 * ping-pongs), proportionally fewer above, and capped so that one timed loop
 * lasts about the budget (-t, default 0.01 s; at least 2 iterations, 1 in quick
 * mode). Then -r repetitions (default 5): the reported value is the MEDIAN
 * repetition, with min= and max= over repetitions. Numbers are printed, never
 * judged.
 *
 * Verification: the source holds distinct, finite doubles. The first call and
 * the last repetition (its target cleared first) are checked: a packed buffer
 * against a naive packer written here (the plain concatenation of the blocks;
 * if an MPI packs into another format, which the standard allows, the round
 * trip through its own MPI_Unpack is checked instead and a note printed); an
 * unpacked layout block by block against the source, with every gap byte
 * still holding the sentinel it was cleared to; a received column or face
 * against the values the peer holds there, and the rest of the receiving
 * matrix or cube unchanged. A mismatch prints "VERIFICATION FAILED" with the
 * first wrong byte or element on stderr, makes that line status=FAILED, and
 * the program exits 1 at the end. FERRY_DTYPE_CORRUPT=<pack|unpack|column|
 * face> spoils one byte or element before each check (a self-test of the
 * checking, nothing else).
 *
 * Errors: MPI_ERRORS_RETURN on MPI_COMM_WORLD and MPI_COMM_SELF; every call is
 * checked. A call that returns the class MPI_ERR_UNSUPPORTED_OPERATION makes
 * that type (or column / face) status=unsupported at every size (value=0) and
 * the program goes on; any other error is one status=FAILED line and the
 * type's remaining sizes are skipped. The first exchange of every ping-pong
 * size uses nonblocking calls agreed step by step between the two ranks, so an
 * MPI that refuses a datatype returns its error on both ranks rather than
 * leaving the peer blocked in a receive; an error in the timed loops after
 * that aborts the job (MPI_Abort).
 *
 * Usage: dtype [-m] [-q] [-b list] [-x max] [-i iters] [-r reps] [-t secs]
 *   -m   also print one machine-readable line per measurement:
 *        RESULT bench=dtype.<...> ranks=<1|2> size=<bytes> value=<v> unit=<MBps|us>
 *               status=<ok|FAILED|unsupported> [memcpy= pct= bytes= block= n=
 *               MBps= min= max= iters= reps=]
 *   -q   quick: packed sizes 64 KiB and 1 MiB, the byte vector with 8 B blocks
 *        only, budget 0.003 s
 *   -b   comma-separated groups (default all): pack,unpack,column,face
 *   -x   largest packed size, K/M suffixes allowed (64K .. 256M, default 16M)
 *   -i   base iterations (default 1000)
 *   -r   repetitions, median reported (default 5)
 *   -t   time budget of one timed loop in seconds, 0 = no cap (default 0.01)
 *
 * Build and run with any MPI, e.g.
 *   mpicc -O2 -std=c11 -Ibench -o dtype bench/dtype.c && mpiexec -n 2 ./dtype -q -m
 * Run time on the 2-core dev VM: -q 2-3 s, a full run 15-20 s (more on a loaded machine).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"

#include <stddef.h>
#include <stdint.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define PACK_SCALE_FROM ((size_t)64 << 10)
#define P2P_SCALE_FROM ((size_t)4 << 10)
#define MIN_SIZE ((size_t)64 << 10)
#define MAX_REPS 1000
#define MAX_SEG 32
#define SENTINEL 0xa5

enum { TAG_DONE = 20, TAG_DATA = 21 };
enum group { G_PACK, G_UNPACK, G_COLUMN, G_FACE, G_COUNT };
static const char *const group_names[G_COUNT] = {"pack", "unpack", "column", "face"};
/* Outcome of a step, agreed over ranks with MAX: the worst wins. */
enum { ST_OK = 0, ST_UNSUPPORTED = 1, ST_ERROR = 2 };

typedef struct options {
    int machine, quick, reps, min_iters;
    int iters;
    double budget;
    size_t max_size;
    int want[G_COUNT];
} options_t;

static int g_rank;
static int g_failed; /* some line said FAILED: exit 1 */

/* memcpy through a volatile pointer: the compiler cannot merge or drop the
 * repeated copies of the reference loop. */
static void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy;

static const char *hp(const options_t *o)
{
    return o->machine ? "#" : " "; /* human lines: '#' when RESULT lines are wanted */
}

static int status_of(int rc, char *msg, size_t msglen)
{
    int cls = MPI_ERR_OTHER, len = 0;
    if (rc == MPI_SUCCESS)
        return ST_OK;
    MPI_Error_class(rc, &cls);
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, msglen, "error code %d", rc);
    else
        msg[len < (int)msglen ? len : (int)msglen - 1] = '\0';
    return cls == MPI_ERR_UNSUPPORTED_OPERATION ? ST_UNSUPPORTED : ST_ERROR;
}

static const char *status_name(int st)
{
    return st == ST_OK ? "ok" : st == ST_UNSUPPORTED ? "unsupported" : "FAILED";
}

static int corrupt_wanted(const char *group)
{
    const char *v = getenv("FERRY_DTYPE_CORRUPT");
    return v != NULL && strcmp(v, group) == 0;
}

/* --- the layouts packed and unpacked ---------------------------------------- */

enum kind { K_VECTOR, K_INDEXED, K_STRUCT };

typedef struct shape {
    const char *name; /* bench=dtype.pack.<name> */
    enum kind kind;
    int elem_double; /* vectors: 1 = MPI_DOUBLE, 0 = MPI_BYTE */
    size_t block;    /* vectors: bytes per block */
    int quick;       /* measured in quick mode too */
} shape_t;

static const shape_t shapes[] = {
    {"vector.double.8B", K_VECTOR, 1, 8, 1},
    {"vector.double.64B", K_VECTOR, 1, 64, 1},
    {"vector.double.256B", K_VECTOR, 1, 256, 1},
    {"vector.double.1KiB", K_VECTOR, 1, 1024, 1},
    {"vector.double.4KiB", K_VECTOR, 1, 4096, 1},
    {"vector.byte.8B", K_VECTOR, 0, 8, 1},
    {"vector.byte.64B", K_VECTOR, 0, 64, 0},
    {"vector.byte.256B", K_VECTOR, 0, 256, 0},
    {"vector.byte.1KiB", K_VECTOR, 0, 1024, 0},
    {"vector.byte.4KiB", K_VECTOR, 0, 4096, 0},
    {"indexed", K_INDEXED, 1, 0, 1},
    {"struct", K_STRUCT, 0, 0, 1},
};
#define NSHAPES ((int)(sizeof(shapes) / sizeof(shapes[0])))

typedef struct rec {
    int i;
    double d;
    char c[6];
} rec_t;

/* Where the data of a type lies: `count` instances `ext` bytes apart, each
 * made of `nseg` segments (byte offset, length) in increasing order. The
 * packed image is the concatenation of all segments in that order. */
typedef struct layout {
    size_t count, ext;
    int nseg;
    size_t off[MAX_SEG], len[MAX_SEG];
    size_t bytes; /* packed bytes = count * sum(len) */
} layout_t;

/* The indexed type: 16 pairs of blocks of a and 32 - a doubles (so 512
 * doubles, 4 KiB, per instance), each after a gap of 1..8 doubles. */
static void indexed_blocks(int *lens, int *displs, int *ext_doubles)
{
    int d = 0;
    for (int k = 0; k < MAX_SEG; k++) {
        int a = 1 + (k / 2 * 11 + 5) % 31;
        lens[k] = k % 2 == 0 ? a : 32 - a;
        d += 1 + (k * 5 + 3) % 8; /* the gap before block k */
        displs[k] = d;
        d += lens[k];
    }
    *ext_doubles = d + 3;
}

static void make_layout(const shape_t *s, size_t size, layout_t *l)
{
    memset(l, 0, sizeof(*l));
    switch (s->kind) {
    case K_VECTOR:
        l->nseg = 1;
        l->len[0] = s->block;
        l->ext = 2 * s->block;
        l->count = size / s->block;
        break;
    case K_INDEXED: {
        int lens[MAX_SEG], displs[MAX_SEG], ext;
        indexed_blocks(lens, displs, &ext);
        l->nseg = MAX_SEG;
        for (int k = 0; k < MAX_SEG; k++) {
            l->off[k] = (size_t)displs[k] * sizeof(double);
            l->len[k] = (size_t)lens[k] * sizeof(double);
        }
        l->ext = (size_t)ext * sizeof(double);
        l->count = size / (512 * sizeof(double));
        break;
    }
    case K_STRUCT:
        l->nseg = 3;
        l->off[0] = offsetof(rec_t, i);
        l->len[0] = sizeof(int);
        l->off[1] = offsetof(rec_t, d);
        l->len[1] = sizeof(double);
        l->off[2] = offsetof(rec_t, c);
        l->len[2] = sizeof(((rec_t *)0)->c);
        l->ext = sizeof(rec_t);
        l->count = size / (sizeof(int) + sizeof(double) + 6);
        break;
    }
    size_t per = 0;
    for (int k = 0; k < l->nseg; k++)
        per += l->len[k];
    l->bytes = per * l->count;
}

/* The MPI type of a layout, committed, and the count to pass with it; both set
 * only on success. */
static int make_type(const shape_t *s, const layout_t *l, MPI_Datatype *type_p, int *count_p)
{
    MPI_Datatype t, tmp;
    int rc, made_tmp = 0, count = (int)l->count;
    switch (s->kind) {
    case K_VECTOR: { /* one vector holds every block: count 1 */
        size_t esz = s->elem_double ? sizeof(double) : 1;
        rc = MPI_Type_vector((int)l->count, (int)(s->block / esz), (int)(l->ext / esz),
                             s->elem_double ? MPI_DOUBLE : MPI_BYTE, &t);
        count = 1;
        break;
    }
    case K_INDEXED: {
        int lens[MAX_SEG], displs[MAX_SEG], ext;
        indexed_blocks(lens, displs, &ext);
        rc = MPI_Type_indexed(MAX_SEG, lens, displs, MPI_DOUBLE, &tmp);
        made_tmp = rc == MPI_SUCCESS;
        if (rc == MPI_SUCCESS)
            rc = MPI_Type_create_resized(tmp, 0, (MPI_Aint)l->ext, &t);
        break;
    }
    default: { /* K_STRUCT */
        int bl[3] = {1, 1, 6};
        MPI_Aint disp[3] = {offsetof(rec_t, i), offsetof(rec_t, d), offsetof(rec_t, c)};
        MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
        rc = MPI_Type_create_struct(3, bl, disp, types, &tmp);
        made_tmp = rc == MPI_SUCCESS;
        if (rc == MPI_SUCCESS)
            rc = MPI_Type_create_resized(tmp, 0, (MPI_Aint)sizeof(rec_t), &t);
        break;
    }
    }
    if (made_tmp)
        MPI_Type_free(&tmp);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Type_commit(&t);
    if (rc != MPI_SUCCESS) {
        MPI_Type_free(&t);
        return rc;
    }
    *type_p = t;
    *count_p = count;
    return MPI_SUCCESS;
}

/* 64-bit mix of an index (splitmix64's finaliser): source doubles in [1, 2)
 * with every mantissa byte varying, so a misplaced byte shows. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void fill_source(char *src, size_t bytes)
{
    for (size_t i = 0; i < bytes / sizeof(double); i++) {
        uint64_t bits = 0x3ff0000000000000ull | (mix(i) & 0x000fffffffffffffull);
        memcpy(src + i * sizeof(double), &bits, sizeof(bits));
    }
}

/* The naive packer: the concatenation of every segment. */
static void pack_reference(const layout_t *l, const char *src, char *out)
{
    size_t pos = 0;
    for (size_t i = 0; i < l->count; i++)
        for (int k = 0; k < l->nseg; k++) {
            memcpy(out + pos, src + i * l->ext + l->off[k], l->len[k]);
            pos += l->len[k];
        }
}

/* Checks an unpacked layout: every segment equal to the source, every gap
 * byte still SENTINEL. Returns 0, or 1 after printing the first wrong byte
 * (when `what` is not NULL). */
static int check_unpacked(const char *what, const layout_t *l, const char *dst, const char *src)
{
    size_t cur = 0, span = l->count * l->ext;
    for (size_t i = 0; i <= l->count; i++) {
        for (int k = 0; k < l->nseg; k++) {
            size_t at = i < l->count ? i * l->ext + l->off[k] : span;
            for (; cur < at; cur++)
                if ((unsigned char)dst[cur] != SENTINEL) {
                    if (what == NULL)
                        return 1;
                    fprintf(stderr,
                            "dtype: rank %d: VERIFICATION FAILED %s: gap byte %zu was written "
                            "(0x%02x)\n",
                            g_rank, what, cur, (unsigned char)dst[cur]);
                    return 1;
                }
            if (i == l->count)
                return 0;
            if (memcmp(dst + at, src + at, l->len[k]) != 0) {
                if (what == NULL)
                    return 1;
                size_t j = 0;
                while (dst[at + j] == src[at + j])
                    j++;
                fprintf(stderr,
                        "dtype: rank %d: VERIFICATION FAILED %s: byte %zu is 0x%02x, expected "
                        "0x%02x\n",
                        g_rank, what, at + j, (unsigned char)dst[at + j],
                        (unsigned char)src[at + j]);
                return 1;
            }
            cur = at + l->len[k];
        }
    }
    return 0;
}

/* --- pack and unpack, measured by rank 0 ------------------------------------ */

typedef struct job {
    const char *what; /* "dtype.pack.vector.double.8B size 65536" */
    enum group op;
    MPI_Datatype type;
    int count;
    const layout_t *l;
    char *src, *dst, *pack, *expect;
    int packsize, packed; /* buffer size; bytes MPI_Pack produced */
} job_t;

static int run_op(const job_t *j, long iters)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++) {
        int pos = 0;
        if (j->op == G_PACK)
            rc = MPI_Pack(j->src, j->count, j->type, j->pack, j->packsize, &pos, MPI_COMM_WORLD);
        else
            rc = MPI_Unpack(j->pack, j->packed, &pos, j->dst, j->count, j->type, MPI_COMM_WORLD);
    }
    return rc;
}

static void run_memcpy(const job_t *j, long iters)
{
    for (long i = 0; i < iters; i++) {
        if (j->op == G_PACK)
            copy_fn(j->pack, j->src, j->l->bytes);
        else
            copy_fn(j->dst, j->pack, j->l->bytes);
    }
}

/* Clears what the operation writes: the pack buffer, or the unpack target. */
static void clear_target(const job_t *j)
{
    if (j->op == G_PACK)
        memset(j->pack, 0, (size_t)j->packsize);
    else
        memset(j->dst, SENTINEL, j->l->count * j->l->ext);
}

/* Checks what the last operation wrote. Returns 0 when right. */
static int check_job(job_t *j, int *noted)
{
    if (corrupt_wanted(group_names[j->op])) {
        char *p = j->op == G_PACK ? j->pack : j->dst + j->l->off[0];
        p[0] ^= 0x5a;
    }
    if (j->op == G_UNPACK)
        return check_unpacked(j->what, j->l, j->dst, j->src);
    if (memcmp(j->pack, j->expect, j->l->bytes) == 0)
        return 0;
    /* Not the plain image: maybe this MPI's own format; try the round trip. */
    int pos = 0;
    memset(j->dst, SENTINEL, j->l->count * j->l->ext);
    if (MPI_Unpack(j->pack, j->packsize, &pos, j->dst, j->count, j->type, MPI_COMM_WORLD) !=
            MPI_SUCCESS ||
        check_unpacked(NULL, j->l, j->dst, j->src) != 0) {
        size_t k = 0;
        while (j->pack[k] == j->expect[k])
            k++;
        fprintf(stderr,
                "dtype: rank %d: VERIFICATION FAILED %s: packed byte %zu is 0x%02x, expected "
                "0x%02x, and MPI_Unpack does not restore the layout\n",
                g_rank, j->what, k, (unsigned char)j->pack[k], (unsigned char)j->expect[k]);
        return 1;
    }
    if (!*noted)
        printf("# note: %s: the packed bytes are not the plain concatenation of the blocks "
               "(allowed); verified by the round trip through MPI_Unpack\n",
               j->what);
    *noted = 1;
    return 0;
}

/* Median of 3 warm-up chunks -> iterations for one timed loop. */
static long plan_local(const options_t *o, const job_t *j, double t_first, int *rc_p)
{
    long scaled = bench_scaled(o->iters, j->l->bytes, PACK_SCALE_FROM, o->min_iters);
    long k = t_first > 0 && o->budget > 0 ? (long)(o->budget * 0.1 / t_first) : scaled / 10;
    k = k < 1 ? 1 : k > scaled / 10 + 1 ? scaled / 10 + 1 : k;
    double chunk[3], est, lo, mean;
    for (int c = 0; c < 3; c++) {
        double t0 = MPI_Wtime();
        *rc_p = run_op(j, k);
        chunk[c] = (MPI_Wtime() - t0) / (double)k;
        if (*rc_p != MPI_SUCCESS)
            return 0;
    }
    bench_stats(chunk, 3, &est, &lo, &mean);
    long iters = scaled;
    if (o->budget > 0 && est > 0 && (double)iters * est > o->budget)
        iters = (long)(o->budget / est);
    return iters < o->min_iters ? o->min_iters : iters;
}

static void print_local(const options_t *o, const shape_t *s, const job_t *j, size_t size, int st,
                        double med, double lo, double hi, double mc, long iters)
{
    const char *op = group_names[j->op];
    double pct = mc > 0 ? 100.0 * hi / mc : 0; /* best against best */
    if (st == ST_OK || med > 0)
        printf("%s %-7s %9zu %9zu %10.1f %10.1f %10.1f %10.1f %6.0f%% %7ld  %s%s\n", hp(o), op,
               size, j->l->bytes, med, lo, hi, mc, pct, iters, status_name(st),
               st == ST_ERROR ? "   <<<<<<<<<< VERIFICATION FAILED" : "");
    else
        printf("%s %-7s %9zu  %s\n", hp(o), op, size,
               st == ST_UNSUPPORTED ? "unsupported by this MPI (MPI_ERR_UNSUPPORTED_OPERATION)"
                                    : "FAILED: an MPI call returned an error");
    if (o->machine) {
        printf("RESULT bench=dtype.%s.%s ranks=1 size=%zu value=%.6g unit=MBps status=%s", op,
               s->name, size, st == ST_OK || med > 0 ? med : 0.0, status_name(st));
        if (med > 0)
            printf(" memcpy=%.6g pct=%.4g bytes=%zu block=%zu min=%.6g max=%.6g iters=%ld "
                   "reps=%d",
                   mc, pct, j->l->bytes, s->kind == K_VECTOR ? s->block : 0, lo, hi, iters,
                   o->reps);
        printf("\n");
    }
    fflush(stdout);
}

/* Measures one operation on one (type, size). Returns the status that
 * decides whether the type's next sizes are tried. */
static int measure_local(const options_t *o, const shape_t *s, job_t *j, size_t size, int *noted)
{
    char msg[MPI_MAX_ERROR_STRING] = "", what[160];
    snprintf(what, sizeof(what), "dtype.%s.%s size %zu", group_names[j->op], s->name, size);
    j->what = what;
    double *rate = malloc(sizeof(double) * 2 * (size_t)o->reps), *mrate = rate + o->reps;
    if (rate == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int rc = MPI_SUCCESS, bad = 0;
    long iters = 0;
    double med = 0, lo = 0, hi = 0, mc = 0, mean;

    if (j->op == G_UNPACK) { /* the input: this MPI's own packed bytes */
        int pos = 0;
        rc = MPI_Pack(j->src, j->count, j->type, j->pack, j->packsize, &pos, MPI_COMM_WORLD);
        j->packed = pos;
    }
    if (rc == MPI_SUCCESS) {
        clear_target(j);
        double t0 = MPI_Wtime();
        rc = run_op(j, 1);
        double t1 = MPI_Wtime() - t0;
        if (rc == MPI_SUCCESS) {
            bad |= check_job(j, noted);
            iters = plan_local(o, j, t1, &rc);
        }
    }
    for (int r = 0; r < o->reps && rc == MPI_SUCCESS; r++) {
        double t0 = MPI_Wtime();
        run_memcpy(j, iters);
        double t01 = MPI_Wtime();
        if (r == o->reps - 1)
            clear_target(j); /* the copy wrote there too */
        double t1 = MPI_Wtime();
        rc = run_op(j, iters);
        double t2 = MPI_Wtime();
        mrate[r] = (double)j->l->bytes * (double)iters / (t01 - t0) / 1e6;
        rate[r] = (double)j->l->bytes * (double)iters / (t2 - t1) / 1e6;
    }
    int st = status_of(rc, msg, sizeof(msg));
    if (st == ST_OK) {
        bad |= check_job(j, noted);
        bench_stats(mrate, o->reps, &mean, &lo, &mean);
        mc = mrate[o->reps - 1];
        bench_stats(rate, o->reps, &med, &lo, &mean);
        hi = rate[o->reps - 1];
        if (bad) {
            st = ST_ERROR;
            g_failed = 1;
        }
    } else if (st == ST_ERROR) {
        fprintf(stderr, "dtype: rank %d: %s: %s\n", g_rank, what, msg);
        g_failed = 1;
    }
    print_local(o, s, j, size, st, med, lo, hi, mc, iters);
    free(rate);
    return bad ? ST_OK : st; /* a wrong answer still lets the next size run */
}

/* The packed sizes: 64 KiB, x4 ... max (quick: 64 KiB and 1 MiB). */
static int pack_sizes(const options_t *o, size_t *out)
{
    int n = 0;
    for (size_t x = MIN_SIZE; x <= o->max_size; x *= 4)
        if (!o->quick || x == MIN_SIZE || x == ((size_t)1 << 20))
            out[n++] = x;
    return n;
}

static void run_pack_group(const options_t *o)
{
    size_t sizes[16];
    int nsizes = pack_sizes(o, sizes);
    size_t max = sizes[nsizes - 1];
    /* The largest span is a vector's: twice the packed bytes. */
    char *src = bench_alloc(2 * max + 4096), *dst = bench_alloc(2 * max + 4096);
    char *expect = bench_alloc(max);
    int packsize = 0;
    char *pack = NULL;
    fill_source(src, 2 * max + 4096);

    printf("\n# pack / unpack by rank 0 alone; MB/s of packed bytes (1 MB = 10^6 B)\n");
    for (int si = 0; si < NSHAPES; si++) {
        const shape_t *s = &shapes[si];
        int dead[2] = {ST_OK, ST_OK}, noted = 0;
        if (o->quick && !s->quick)
            continue;
        printf("\n# dtype.%s\n# %-7s %9s %9s %10s %10s %10s %10s %7s %7s  %s\n", s->name, "op",
               "size", "bytes", "MB/s", "rep-min", "rep-max", "mcpy-max", "%mcpy", "iters",
               "status");
        for (int zi = 0; zi < nsizes; zi++) {
            layout_t l;
            job_t j = {.l = &l, .src = src, .dst = dst, .expect = expect};
            char msg[MPI_MAX_ERROR_STRING] = "";
            make_layout(s, sizes[zi], &l);
            int alive = (o->want[G_PACK] && dead[G_PACK] == ST_OK) ||
                        (o->want[G_UNPACK] && dead[G_UNPACK] == ST_OK);
            int st = alive ? ST_OK : ST_UNSUPPORTED; /* else: only the dead are printed */
            int rc = MPI_SUCCESS, size1 = 0, have_type = 0;
            if (st == ST_OK) {
                rc = make_type(s, &l, &j.type, &j.count);
                have_type = rc == MPI_SUCCESS;
                if (rc == MPI_SUCCESS)
                    rc = MPI_Type_size(j.type, &size1);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Pack_size(j.count, j.type, MPI_COMM_WORLD, &j.packsize);
                st = status_of(rc, msg, sizeof(msg));
            }
            if (st == ST_OK && (size_t)size1 * (size_t)j.count != l.bytes) {
                fprintf(stderr,
                        "dtype: rank %d: dtype.%s: MPI_Type_size says %d x %d bytes, "
                        "the type holds %zu\n",
                        g_rank, s->name, size1, j.count, l.bytes);
                st = ST_ERROR;
                snprintf(msg, sizeof(msg), "wrong MPI_Type_size");
            }
            if (st == ST_OK && (size_t)j.packsize < l.bytes) {
                fprintf(stderr,
                        "dtype: rank %d: dtype.%s: MPI_Pack_size says %d, less than "
                        "the %zu bytes of data\n",
                        g_rank, s->name, j.packsize, l.bytes);
                st = ST_ERROR;
            }
            if (st == ST_OK && (size_t)j.packsize > (size_t)packsize) {
                free(pack);
                packsize = j.packsize;
                pack = bench_alloc((size_t)packsize);
            }
            j.pack = pack;
            if (st == ST_OK)
                pack_reference(&l, src, expect);
            for (int op = G_PACK; op <= G_UNPACK; op++) {
                if (!o->want[op])
                    continue;
                j.op = (enum group)op;
                if (dead[op] == ST_OK && st == ST_OK) {
                    dead[op] = measure_local(o, s, &j, sizes[zi], &noted);
                } else if (dead[op] == ST_ERROR) {
                    continue; /* remaining sizes skipped after an error */
                } else {
                    int why = dead[op] != ST_OK ? dead[op] : st;
                    if (why == ST_ERROR) {
                        if (msg[0])
                            fprintf(stderr, "dtype: rank %d: dtype.%s size %zu: %s\n", g_rank,
                                    s->name, sizes[zi], msg);
                        g_failed = 1;
                    }
                    print_local(o, s, &j, sizes[zi], why, 0, 0, 0, 0, 0);
                    dead[op] = why;
                }
            }
            if (have_type)
                MPI_Type_free(&j.type);
        }
    }
    free(pack);
    free(expect);
    free(dst);
    free(src);
}

/* Ranks other than 0 during pack/unpack: wait for rank 0's message without
 * spinning, so that the measuring rank has the machine to itself. */
static void idle_until_done(void)
{
    int flag = 0;
    struct timespec ms = {0, 1000000};
    while (!flag) {
        MPI_Iprobe(0, TAG_DONE, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (!flag)
            nanosleep(&ms, NULL);
    }
    MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* --- ping-pong of a column or a face between ranks 0 and 1 ------------------- */

typedef struct xfer {
    const char *name; /* "column", "face.x" */
    int rank, peer;
    int active;    /* ranks 0 and 1; the others only join the agreements */
    MPI_Comm comm; /* MPI_COMM_WORLD */
    double *buf;
    int dims, n;  /* a dims-dimensional grid of n^dims doubles */
    int axis;     /* the plane sent (index n-1) and received (index 0) */
    size_t bytes; /* one message */
    MPI_Datatype stype, rtype;
    double *sbase, *rbase;
} xfer_t;

/* What rank r holds at linear index idx before any exchange. */
static inline double cell_value(int r, size_t idx)
{
    return (double)(r + 1) * 16777216.0 + (double)idx + 0.5;
}

static size_t grid_cells(const xfer_t *x)
{
    size_t c = 1;
    for (int d = 0; d < x->dims; d++)
        c *= (size_t)x->n;
    return c;
}

/* Distance between neighbouring cells along the exchange axis. */
static size_t axis_stride(const xfer_t *x)
{
    size_t s = 1;
    for (int d = x->dims - 1; d > x->axis; d--)
        s *= (size_t)x->n;
    return s;
}

static void reset_grid(const xfer_t *x)
{
    size_t cells = x->active ? grid_cells(x) : 0;
    for (size_t i = 0; i < cells; i++)
        x->buf[i] = cell_value(x->rank, i);
}

/* After a round trip: plane 0 along the axis holds the peer's plane n-1, the
 * rest is unchanged. Returns the number of wrong cells (first one printed). */
static size_t check_grid(const xfer_t *x)
{
    size_t cells = grid_cells(x), st = axis_stride(x), bad = 0;
    size_t shift = (size_t)(x->n - 1) * st;
    if (!x->active)
        return 0;
    if (corrupt_wanted(x->dims == 2 ? "column" : "face"))
        x->buf[0] += 1.0;
    for (size_t i = 0; i < cells; i++) {
        int in_plane = (i / st) % (size_t)x->n == 0;
        double want = in_plane ? cell_value(x->peer, i + shift) : cell_value(x->rank, i);
        if (x->buf[i] != want && bad++ == 0)
            fprintf(stderr,
                    "dtype: rank %d: VERIFICATION FAILED dtype.%s n=%d: %s element %zu is %.1f, "
                    "expected %.1f\n",
                    x->rank, x->name, x->n, in_plane ? "received" : "untouched", i, x->buf[i],
                    want);
    }
    return bad;
}

static int agree(MPI_Comm comm, int st)
{
    int out = st;
    MPI_Allreduce(&st, &out, 1, MPI_INT, MPI_MAX, comm);
    return out;
}

/* One message from `from` to the other rank, each step agreed, so that an
 * error is seen by both ranks and nobody stays blocked. Returns the status. */
static int careful_oneway(xfer_t *x, int from, char *msg, size_t msglen)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS, st;
    int receiver = x->active && x->rank != from;
    if (receiver)
        rc = MPI_Irecv(x->rbase, 1, x->rtype, from, TAG_DATA, x->comm, &req);
    st = agree(x->comm, status_of(rc, msg, msglen));
    if (st != ST_OK)
        return st; /* the receive failed: nothing is pending */
    if (x->rank == from)
        rc = MPI_Isend(x->sbase, 1, x->stype, x->peer, TAG_DATA, x->comm, &req);
    st = agree(x->comm, status_of(rc, msg, msglen));
    if (st != ST_OK) {
        if (receiver) { /* no send was started: withdraw the receive */
            if (MPI_Cancel(&req) != MPI_SUCCESS || MPI_Wait(&req, MPI_STATUS_IGNORE)) {
                fprintf(stderr, "dtype: rank %d: cannot cancel a receive; giving up\n", x->rank);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        }
        return st;
    }
    if (req != MPI_REQUEST_NULL)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    return agree(x->comm, status_of(rc, msg, msglen));
}

static void pingpong(const xfer_t *x, long iters)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; x->active && i < iters && rc == MPI_SUCCESS; i++) {
        if (x->rank == 0) {
            rc = MPI_Send(x->sbase, 1, x->stype, x->peer, TAG_DATA, x->comm);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(x->rbase, 1, x->rtype, x->peer, TAG_DATA, x->comm, MPI_STATUS_IGNORE);
        } else {
            rc = MPI_Recv(x->rbase, 1, x->rtype, x->peer, TAG_DATA, x->comm, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(x->sbase, 1, x->stype, x->peer, TAG_DATA, x->comm);
        }
    }
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        status_of(rc, msg, sizeof(msg));
        fprintf(stderr,
                "dtype: rank %d: dtype.%s n=%d: FAILED in the timed loop after a successful "
                "first exchange: %s\n",
                x->rank, x->name, x->n, msg);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* Sets x->stype and x->rtype (both committed) only on success. */
static int make_xfer_types(xfer_t *x)
{
    MPI_Datatype s = MPI_DATATYPE_NULL, r = MPI_DATATYPE_NULL;
    int rc, made_s = 0;
    if (x->dims == 2) { /* a column: one double every n */
        rc = MPI_Type_vector(x->n, 1, x->n, MPI_DOUBLE, &s);
        if (rc == MPI_SUCCESS && (rc = MPI_Type_commit(&s)) != MPI_SUCCESS)
            MPI_Type_free(&s);
        if (rc != MPI_SUCCESS)
            return rc;
        x->stype = x->rtype = s;
        x->sbase = x->buf + (x->n - 1);
        x->rbase = x->buf;
        return MPI_SUCCESS;
    }
    int sizes[3] = {x->n, x->n, x->n}, sub[3] = {x->n, x->n, x->n}, start[3] = {0, 0, 0};
    sub[x->axis] = 1;
    start[x->axis] = x->n - 1;
    rc = MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &s);
    made_s = rc == MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(&s);
    start[x->axis] = 0;
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &r);
    if (rc == MPI_SUCCESS && (rc = MPI_Type_commit(&r)) != MPI_SUCCESS)
        MPI_Type_free(&r);
    if (rc != MPI_SUCCESS) {
        if (made_s)
            MPI_Type_free(&s);
        return rc;
    }
    x->stype = s;
    x->rtype = r;
    x->sbase = x->rbase = x->buf;
    return MPI_SUCCESS;
}

static void free_xfer_types(xfer_t *x)
{
    if (x->rtype != MPI_DATATYPE_NULL && x->rtype != x->stype)
        MPI_Type_free(&x->rtype);
    if (x->stype != MPI_DATATYPE_NULL)
        MPI_Type_free(&x->stype);
    x->stype = x->rtype = MPI_DATATYPE_NULL;
}

static void print_xfer(const options_t *o, const xfer_t *x, int st, double med, double lo,
                       double hi, long iters)
{
    if (x->rank != 0)
        return;
    double mbps = med > 0 ? (double)x->bytes / med : 0;
    if (med > 0)
        printf("%s %5d %9zu %10.2f %10.2f %10.2f %10.1f %7ld  %s%s\n", hp(o), x->n, x->bytes, med,
               lo, hi, mbps, iters, status_name(st),
               st == ST_ERROR ? "   <<<<<<<<<< VERIFICATION FAILED" : "");
    else
        printf("%s %5d %9zu  %s\n", hp(o), x->n, x->bytes,
               st == ST_UNSUPPORTED ? "unsupported by this MPI (MPI_ERR_UNSUPPORTED_OPERATION)"
                                    : "FAILED: an MPI call returned an error");
    if (o->machine) {
        printf("RESULT bench=dtype.%s ranks=2 size=%zu value=%.6g unit=us status=%s", x->name,
               x->bytes, med, status_name(st));
        if (med > 0)
            printf(" MBps=%.6g n=%d min=%.6g max=%.6g iters=%ld reps=%d", mbps, x->n, lo, hi, iters,
                   o->reps);
        printf("\n");
    }
    fflush(stdout);
}

/* Measures one (column or face, size); every rank calls it. */
static int measure_xfer(const options_t *o, xfer_t *x)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    double *t = malloc(sizeof(double) * (size_t)o->reps);
    if (t == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    size_t bad = 0;
    long iters = 0;
    double med = 0, lo = 0, hi = 0, mean;

    x->stype = x->rtype = MPI_DATATYPE_NULL;
    int st = agree(x->comm, status_of(make_xfer_types(x), msg, sizeof(msg)));
    if (st == ST_OK) {
        reset_grid(x);
        MPI_Barrier(x->comm);
        double t0 = MPI_Wtime();
        st = careful_oneway(x, 0, msg, sizeof(msg));
        if (st == ST_OK)
            st = careful_oneway(x, 1, msg, sizeof(msg));
        double t1 = MPI_Wtime() - t0;
        if (st == ST_OK) {
            bad += check_grid(x);
            /* Warm-up in 3 chunks; rank 0 decides the counts for both. */
            long scaled = bench_scaled(o->iters, x->bytes, P2P_SCALE_FROM, o->min_iters);
            long plan[2];
            plan[0] = o->budget > 0 && t1 > 0 ? (long)(o->budget * 0.1 / t1) : scaled / 10;
            plan[0] = plan[0] < 1 ? 1 : plan[0] > scaled / 10 + 1 ? scaled / 10 + 1 : plan[0];
            MPI_Bcast(plan, 1, MPI_LONG, 0, x->comm);
            double chunk[3], est;
            for (int c = 0; c < 3; c++) {
                double c0 = MPI_Wtime();
                pingpong(x, plan[0]);
                chunk[c] = (MPI_Wtime() - c0) / (double)plan[0];
            }
            bench_stats(chunk, 3, &est, &lo, &mean);
            plan[1] = scaled;
            if (o->budget > 0 && est > 0 && (double)plan[1] * est > o->budget)
                plan[1] = (long)(o->budget / est);
            if (plan[1] < o->min_iters)
                plan[1] = o->min_iters;
            MPI_Bcast(&plan[1], 1, MPI_LONG, 0, x->comm);
            iters = plan[1];
            for (int r = 0; r < o->reps; r++) {
                if (r == o->reps - 1)
                    reset_grid(x);
                MPI_Barrier(x->comm);
                double r0 = MPI_Wtime();
                pingpong(x, iters);
                t[r] = (MPI_Wtime() - r0) * 1e6 / (2.0 * (double)iters);
            }
            bad += check_grid(x);
            bench_stats(t, o->reps, &med, &lo, &mean);
            hi = t[o->reps - 1];
        }
    }
    if (st == ST_ERROR && msg[0])
        fprintf(stderr, "dtype: rank %d: dtype.%s n=%d: %s\n", x->rank, x->name, x->n, msg);
    double b = (double)bad, ball = 0;
    MPI_Allreduce(&b, &ball, 1, MPI_DOUBLE, MPI_SUM, x->comm);
    if (st == ST_OK && ball > 0)
        st = ST_ERROR;
    if (st == ST_ERROR)
        g_failed = 1;
    print_xfer(o, x, st, med, lo, hi, iters);
    free_xfer_types(x);
    free(t);
    return ball > 0 ? ST_OK : st;
}

static void run_xfer_group(const options_t *o, enum group g, int rank)
{
    static const int col_n[] = {64, 256, 1024, 2048}, cube_n[] = {32, 64, 128};
    static const char *const faces[] = {"face.x", "face.y", "face.z"};
    static const int face_axis[] = {2, 1, 0}; /* a[z][y][x]: x is the last index */
    int nkinds = g == G_COLUMN ? 1 : 3;
    int nsizes = g == G_COLUMN ? 4 : 3;
    const int *ns = g == G_COLUMN ? col_n : cube_n;
    size_t most = g == G_COLUMN ? (size_t)2048 * 2048 : (size_t)128 * 128 * 128;
    double *buf = bench_alloc(most * sizeof(double));

    for (int k = 0; k < nkinds; k++) {
        xfer_t x = {.name = g == G_COLUMN ? "column" : faces[k],
                    .rank = rank,
                    .peer = 1 - rank,
                    .active = rank < 2,
                    .comm = MPI_COMM_WORLD,
                    .buf = buf,
                    .dims = g == G_COLUMN ? 2 : 3,
                    .axis = g == G_COLUMN ? 1 : face_axis[k]};
        if (rank == 0)
            printf("\n# dtype.%s: ping-pong between ranks 0 and 1, one-way time\n# %5s %9s %10s "
                   "%10s %10s %10s %7s  %s\n",
                   x.name, g == G_COLUMN ? "N" : "n", "bytes", "us", "rep-min", "rep-max", "MB/s",
                   "iters", "status");
        int dead = ST_OK;
        for (int i = 0; i < nsizes; i++) {
            x.n = ns[i];
            x.bytes = (size_t)x.n * (x.dims == 2 ? 1 : (size_t)x.n) * sizeof(double);
            if (dead == ST_ERROR)
                break;
            if (dead == ST_UNSUPPORTED)
                print_xfer(o, &x, ST_UNSUPPORTED, 0, 0, 0, 0);
            else
                dead = measure_xfer(o, &x);
        }
    }
    free(buf);
}

/* --- options ---------------------------------------------------------------- */

static int parse_list(char *list, int *want)
{
    for (char *tok = strtok(list, ","); tok != NULL; tok = strtok(NULL, ",")) {
        int found = 0;
        for (int g = 0; g < G_COUNT; g++)
            if (strcasecmp(tok, group_names[g]) == 0)
                want[g] = found = 1;
        if (!found)
            return -1;
    }
    return 0;
}

static int parse_options(int argc, char **argv, options_t *o)
{
    int c, have_budget = 0, any = 0;
    memset(o, 0, sizeof(*o));
    o->reps = 5;
    o->iters = 1000;
    o->budget = 0.01;
    o->max_size = (size_t)16 << 20;
    while ((c = getopt(argc, argv, "mqb:x:i:r:t:h")) != -1) {
        switch (c) {
        case 'm': o->machine = 1; break;
        case 'q': o->quick = 1; break;
        case 'b':
            if (parse_list(optarg, o->want))
                return -1;
            any = 1;
            break;
        case 'x':
            if (bench_parse_size(optarg, &o->max_size))
                return -1;
            break;
        case 'i':
            if (bench_parse_int(optarg, &o->iters) || o->iters < 1)
                return -1;
            break;
        case 'r':
            if (bench_parse_int(optarg, &o->reps) || o->reps < 1 || o->reps > MAX_REPS)
                return -1;
            break;
        case 't':
            if (bench_parse_seconds(optarg, &o->budget))
                return -1;
            have_budget = 1;
            break;
        default: return -1;
        }
    }
    if (optind != argc || o->max_size < MIN_SIZE || o->max_size > ((size_t)256 << 20))
        return -1;
    if (o->quick && !have_budget)
        o->budget = 0.003;
    o->min_iters = o->quick ? 1 : 2;
    if (!any)
        for (int g = 0; g < G_COUNT; g++)
            o->want[g] = 1;
    return 0;
}

int main(int argc, char **argv)
{
    int rank, n;
    options_t opt;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    g_rank = rank;
    if (parse_options(argc, argv, &opt) != 0) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: dtype [-m] [-q] [-b pack,unpack,column,face] [-x max 64K..256M] "
                    "[-i iters] [-r reps] [-t secs]\n");
        MPI_Finalize();
        return 1;
    }
    if (rank == 0) {
        printf("# Ferry bench: dtype (derived datatypes), %d ranks, %s\n", n,
               opt.quick ? "quick" : "full");
        bench_print_library();
        printf("# value: median of %d repetitions; budget %.3g s per timed loop, base %d "
               "iterations\n",
               opt.reps, opt.budget, opt.iters);
        fflush(stdout);
    }

    if (opt.want[G_PACK] || opt.want[G_UNPACK]) {
        if (rank == 0) {
            run_pack_group(&opt);
            for (int r = 1; r < n; r++)
                MPI_Send(NULL, 0, MPI_BYTE, r, TAG_DONE, MPI_COMM_WORLD);
        } else {
            idle_until_done();
        }
    }
    for (int g = G_COLUMN; g <= G_FACE; g++) {
        if (!opt.want[g])
            continue;
        if (n < 2) {
            if (rank == 0)
                printf("\n# dtype.%s needs 2 ranks: skipped\n", group_names[g]);
            continue;
        }
        run_xfer_group(&opt, (enum group)g, rank);
    }

    int failed = g_failed, any_failed = 0;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any_failed ? 1 : 0;
}
