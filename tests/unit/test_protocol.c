/* The small building blocks below point-to-point: the request pool, error codes that carry a
 * message, the predefined datatypes and their packing, and the reduction kernels. */
#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "fy_dtype.h"
#include "fy_err.h"
#include "fy_handle.h"
#include "fy_op.h"
#include "fy_request.h"
#include "unit.h"

/* ---- requests ---------------------------------------------------------------------------- */

static int test_request_pool(void)
{
    enum { N = 3000 }; /* three chunks of 1024 */
    fy_req_t **r = malloc(N * sizeof *r);
    CHECK(r);
    for (int i = 0; i < N; i++) {
        r[i] = fy_req_alloc(i % 2 ? FY_REQ_SEND : FY_REQ_RECV);
        CHECK(r[i] != NULL);
        CHECK_EQ(r[i]->kind, i % 2 ? FY_REQ_SEND : FY_REQ_RECV);
        CHECK(!fy_req_is_done(r[i]) && r[i]->buf == NULL && r[i]->error == MPI_SUCCESS);
        CHECK(r[i]->handle != MPI_REQUEST_NULL);
        CHECK_EQ(fy_handle_kind(r[i]->handle), FY_HKIND_DIRECT);
        CHECK_EQ(fy_handle_class(r[i]->handle), FY_HCLASS_REQUEST);
        CHECK(fy_req_get(r[i]->handle) == r[i]);
        r[i]->buf = r[i]; /* dirty it: a reused request must come back clean */
        atomic_store(&r[i]->done, true);
    }
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N && j < i + 50; j++)
            CHECK(r[i]->handle != r[j]->handle);
    int h_freed[N / 3];
    for (int i = 0; i < N; i += 3) {
        h_freed[i / 3] = r[i]->handle;
        fy_req_free(r[i]);
        CHECK(fy_req_get(h_freed[i / 3]) == NULL);
    }
    for (int i = 1; i < N; i += 3)
        CHECK(fy_req_get(r[i]->handle) == r[i]); /* neighbours unaffected */
    for (int i = 0; i < N; i += 3) {
        r[i] = fy_req_alloc(FY_REQ_UNEXP);
        CHECK(fy_req_get(r[i]->handle) == r[i]);
        CHECK(!fy_req_is_done(r[i]) && r[i]->buf == NULL);
    }
    /* Not requests, or not live. */
    CHECK(fy_req_get(MPI_REQUEST_NULL) == NULL);
    CHECK(fy_req_get(MPI_COMM_WORLD) == NULL);
    CHECK(fy_req_get(fy_handle_make(FY_HKIND_DIRECT, FY_HCLASS_REQUEST, 1u << 25)) == NULL);
    CHECK(fy_req_get(fy_handle_make(FY_HKIND_BUILTIN, FY_HCLASS_REQUEST, 1)) == NULL);
    for (int i = 0; i < N; i++)
        fy_req_free(r[i]);
    for (int i = 0; i < N; i++)
        CHECK(fy_req_get(r[i]->handle) == NULL);
    free(r);
    return 0;
}

/* ---- errors ------------------------------------------------------------------------------ */

static int test_error_codes(void)
{
    CHECK_EQ(fy_err_set(MPI_ERR_RANK, "MPI_Send: invalid dest rank %d", 5), MPI_ERR_RANK);
    CHECK(strcmp(fy_err_last_message(), "MPI_Send: invalid dest rank 5") == 0);
    int code = fy_err_code_for_message(MPI_ERR_RANK);
    CHECK(code > 0xff);
    CHECK_EQ(code & 0xff, MPI_ERR_RANK);
    CHECK_EQ(fy_err_class_of(code), MPI_ERR_RANK);
    CHECK(strcmp(fy_err_code_message(code), "MPI_Send: invalid dest rank 5") == 0);
    /* The message was consumed: the next code without a message is the bare class. */
    CHECK_EQ(fy_err_code_for_message(MPI_ERR_RANK), MPI_ERR_RANK);
    CHECK(strcmp(fy_err_code_message(MPI_ERR_RANK), fy_err_class_text(MPI_ERR_RANK)) == 0);
    CHECK_EQ(fy_err_code_for_message(MPI_SUCCESS), MPI_SUCCESS);
    CHECK(strcmp(fy_err_code_message(MPI_SUCCESS), "no error") == 0);
    /* Slots are recycled but never 0, and a code keeps its message until reused. */
    int first = 0;
    for (int i = 0; i < 600; i++) {
        fy_err_set(MPI_ERR_TAG, "message %d", i);
        int c = fy_err_code_for_message(MPI_ERR_TAG);
        CHECK(c >> 8 >= 1 && c >> 8 <= 255);
        CHECK_EQ(fy_err_class_of(c), MPI_ERR_TAG);
        char want[32];
        snprintf(want, sizeof want, "message %d", i);
        CHECK(strcmp(fy_err_code_message(c), want) == 0);
        if (i == 0)
            first = c;
    }
    CHECK_EQ(fy_err_class_of(first), MPI_ERR_TAG);
    for (int cls = 0; cls <= MPI_ERR_LASTCODE && cls < 0x100; cls++)
        if (fy_err_class_text(cls))
            CHECK_EQ(fy_err_class_of(cls), cls);
    CHECK(fy_err_class_text(MPI_ERR_TRUNCATE) != NULL);
    CHECK_EQ(fy_err_class_of(-1), -1);
    CHECK_EQ(fy_err_class_of(0xfe), -1);
    CHECK_EQ(fy_err_class_of(256 << 8 | MPI_ERR_TAG), -1);
    return 0;
}

/* ---- datatypes --------------------------------------------------------------------------- */

typedef struct {
    float v;
    int k;
} float_int_t;
typedef struct {
    double v;
    int k;
} double_int_t;
typedef struct {
    long v;
    int k;
} long_int_t;
typedef struct {
    short v;
    int k;
} short_int_t;
typedef struct {
    long double v;
    int k;
} ldouble_int_t;

static int test_dtype_sizes(void)
{
    static const struct {
        MPI_Datatype h;
        size_t size;
    } contig[] = {
        {MPI_CHAR, sizeof(char)},
        {MPI_SIGNED_CHAR, 1},
        {MPI_UNSIGNED_CHAR, 1},
        {MPI_BYTE, 1},
        {MPI_WCHAR, sizeof(wchar_t)},
        {MPI_SHORT, sizeof(short)},
        {MPI_UNSIGNED_SHORT, sizeof(short)},
        {MPI_INT, sizeof(int)},
        {MPI_UNSIGNED, sizeof(unsigned)},
        {MPI_LONG, sizeof(long)},
        {MPI_UNSIGNED_LONG, sizeof(long)},
        {MPI_FLOAT, sizeof(float)},
        {MPI_DOUBLE, sizeof(double)},
        {MPI_LONG_DOUBLE, sizeof(long double)},
        {MPI_LONG_LONG_INT, sizeof(long long)},
        {MPI_UNSIGNED_LONG_LONG, sizeof(long long)},
        {MPI_PACKED, 1},
        {MPI_2INT, 2 * sizeof(int)},
        {MPI_INT8_T, 1},
        {MPI_INT16_T, 2},
        {MPI_INT32_T, 4},
        {MPI_INT64_T, 8},
        {MPI_UINT8_T, 1},
        {MPI_UINT16_T, 2},
        {MPI_UINT32_T, 4},
        {MPI_UINT64_T, 8},
        {MPI_C_BOOL, sizeof(_Bool)},
        {MPI_C_FLOAT_COMPLEX, sizeof(float _Complex)},
        {MPI_C_DOUBLE_COMPLEX, sizeof(double _Complex)},
        {MPI_C_LONG_DOUBLE_COMPLEX, sizeof(long double _Complex)},
        {MPI_AINT, sizeof(MPI_Aint)},
        {MPI_OFFSET, sizeof(MPI_Offset)},
        {MPI_COUNT, sizeof(MPI_Count)},
        {MPI_INTEGER, 4},
        {MPI_REAL, 4},
        {MPI_DOUBLE_PRECISION, 8},
        {MPI_COMPLEX, 8},
        {MPI_DOUBLE_COMPLEX, 16},
        {MPI_2INTEGER, 8},
        {MPI_2REAL, 8},
        {MPI_2DOUBLE_PRECISION, 16},
        {MPI_CHARACTER, 1},
        {MPI_LOGICAL, 4},
        {MPI_INTEGER1, 1},
        {MPI_INTEGER2, 2},
        {MPI_INTEGER4, 4},
        {MPI_INTEGER8, 8},
        {MPI_REAL4, 4},
        {MPI_REAL8, 8},
        {MPI_COMPLEX8, 8},
        {MPI_COMPLEX16, 16},
        {MPI_CXX_BOOL, 1},
        {MPI_CXX_FLOAT_COMPLEX, 8},
        {MPI_CXX_DOUBLE_COMPLEX, 16},
        {MPI_LB, 0},
        {MPI_UB, 0},
    };
    for (size_t i = 0; i < UNIT_COUNT(contig); i++) {
        const fy_dtype_t *d = fy_dtype_get(contig[i].h);
        if (!d)
            fprintf(stderr, "  handle 0x%x\n", (unsigned)contig[i].h);
        CHECK(d != NULL);
        CHECK_EQ(d->handle, contig[i].h);
        if ((size_t)d->size != contig[i].size)
            fprintf(stderr, "  %s\n", d->name);
        CHECK_EQ(d->size, contig[i].size);
        CHECK_EQ(d->extent, contig[i].size);
        CHECK_EQ(d->lb, 0);
        CHECK(d->contig);
        CHECK(d->name && strncmp(d->name, "MPI", 3) == 0);
    }
#define PAIR_ROW(h, T, vlen)                                                                       \
    {                                                                                              \
        h, sizeof(T), offsetof(T, k), vlen                                                         \
    }
    static const struct {
        MPI_Datatype h;
        size_t extent, koff, vlen;
    } pairs[] = {
        PAIR_ROW(MPI_FLOAT_INT, float_int_t, sizeof(float)),
        PAIR_ROW(MPI_DOUBLE_INT, double_int_t, sizeof(double)),
        PAIR_ROW(MPI_LONG_INT, long_int_t, sizeof(long)),
        PAIR_ROW(MPI_SHORT_INT, short_int_t, sizeof(short)),
        PAIR_ROW(MPI_LONG_DOUBLE_INT, ldouble_int_t, sizeof(long double)),
    };
    for (size_t i = 0; i < UNIT_COUNT(pairs); i++) {
        const fy_dtype_t *d = fy_dtype_get(pairs[i].h);
        CHECK(d != NULL);
        CHECK_EQ(d->handle, pairs[i].h);
        CHECK_EQ(d->size, pairs[i].vlen + sizeof(int));
        CHECK_EQ(d->extent, pairs[i].extent);
        CHECK_EQ(d->true_lb, 0);
        CHECK_EQ(d->true_extent, pairs[i].koff + sizeof(int));
        CHECK_EQ(d->nbasic, 2);
        CHECK(!d->contig);
    }
    const MPI_Datatype bad[] = {MPI_DATATYPE_NULL,        (MPI_Datatype)0x4c00ffff,
                                (MPI_Datatype)0x8c000005, (MPI_Datatype)MPI_COMM_WORLD,
                                (MPI_Datatype)MPI_SUM,    (MPI_Datatype)0x4c0004ff};
    for (size_t i = 0; i < UNIT_COUNT(bad); i++)
        CHECK(fy_dtype_get(bad[i]) == NULL);
    return 0;
}

static int test_dtype_pack(void)
{
    const fy_dtype_t *d = fy_dtype_get(MPI_DOUBLE_INT);
    enum { N = 5 };
    double_int_t src[N], dst[N];
    memset(src, 0x5A, sizeof src); /* padding bytes must not travel */
    for (int i = 0; i < N; i++) {
        src[i].v = 1.25 * i - 3;
        src[i].k = 100 + i;
    }
    unsigned char packed[N * 12];
    fy_dtype_pack(d, src, N, packed);
    for (int i = 0; i < N; i++) {
        double v;
        int k;
        memcpy(&v, packed + 12 * i, 8);
        memcpy(&k, packed + 12 * i + 8, 4);
        CHECK(v == src[i].v);
        CHECK_EQ(k, src[i].k);
    }
    memset(dst, 0, sizeof dst);
    fy_dtype_unpack(d, packed, sizeof packed, dst);
    for (int i = 0; i < N; i++)
        CHECK(dst[i].v == src[i].v && dst[i].k == src[i].k);
    /* A partial last element: 1 whole element, then only the double of the second. */
    memset(dst, 0, sizeof dst);
    dst[1].k = -9;
    fy_dtype_unpack(d, packed, 12 + 8, dst);
    CHECK(dst[0].v == src[0].v && dst[0].k == src[0].k);
    CHECK(dst[1].v == src[1].v);
    CHECK_EQ(dst[1].k, -9);
    /* Contiguous types and empty messages (NULL buffers). */
    const fy_dtype_t *di = fy_dtype_get(MPI_INT);
    int a[3] = {1, 2, 3}, b[3] = {0};
    fy_dtype_pack(di, a, 3, packed);
    fy_dtype_unpack(di, packed, sizeof a, b);
    CHECK(memcmp(a, b, sizeof a) == 0);
    fy_dtype_pack(di, NULL, 0, packed);
    fy_dtype_unpack(di, packed, 0, NULL);
    fy_dtype_pack(d, NULL, 0, packed);
    fy_dtype_unpack(d, packed, 0, NULL);
    return 0;
}

/* ---- reductions -------------------------------------------------------------------------- */

static int apply(MPI_Op op, MPI_Datatype dt, const void *in, void *inout, MPI_Aint n)
{
    const fy_dtype_t *d = fy_dtype_get(dt);
    CHECK(d != NULL);
    CHECK_EQ(fy_op_check("test", op, d), MPI_SUCCESS);
    CHECK_EQ(fy_op_apply(op, d, in, inout, n), MPI_SUCCESS);
    return 0;
}

static int test_op_kernels(void)
{
    int ia[4] = {1, -2, 3, 0}, ib[4];
#define RESET_IB() memcpy(ib, (int[]){5, 7, -1, 0}, sizeof ib)
    RESET_IB();
    CHECK_OK(apply(MPI_SUM, MPI_INT, ia, ib, 4));
    CHECK(ib[0] == 6 && ib[1] == 5 && ib[2] == 2 && ib[3] == 0);
    RESET_IB();
    CHECK_OK(apply(MPI_PROD, MPI_INT, ia, ib, 4));
    CHECK(ib[0] == 5 && ib[1] == -14 && ib[2] == -3 && ib[3] == 0);
    RESET_IB();
    CHECK_OK(apply(MPI_MAX, MPI_INT, ia, ib, 4));
    CHECK(ib[0] == 5 && ib[1] == 7 && ib[2] == 3 && ib[3] == 0);
    RESET_IB();
    CHECK_OK(apply(MPI_MIN, MPI_INT, ia, ib, 4));
    CHECK(ib[0] == 1 && ib[1] == -2 && ib[2] == -1 && ib[3] == 0);
    RESET_IB();
    CHECK_OK(apply(MPI_LAND, MPI_INT, ia, ib, 4));
    CHECK(ib[0] == 1 && ib[1] == 1 && ib[2] == 1 && ib[3] == 0);
    RESET_IB();
    CHECK_OK(apply(MPI_LXOR, MPI_INT, ia, ib, 4));
    CHECK(ib[0] == 0 && ib[1] == 0 && ib[2] == 0 && ib[3] == 0);
    RESET_IB();
    CHECK_OK(apply(MPI_BXOR, MPI_INT, ia, ib, 4));
    CHECK(ib[0] == (1 ^ 5) && ib[1] == (-2 ^ 7) && ib[2] == (3 ^ -1) && ib[3] == 0);
    RESET_IB();
    CHECK_OK(apply(MPI_REPLACE, MPI_INT, ia, ib, 4));
    CHECK(memcmp(ia, ib, sizeof ia) == 0);
    RESET_IB();
    CHECK_OK(apply(MPI_NO_OP, MPI_INT, ia, ib, 4));
    CHECK(ib[0] == 5 && ib[1] == 7);

    unsigned char ua[2] = {0xF0, 0x0F}, ub[2] = {0x3C, 0x0F};
    CHECK_OK(apply(MPI_BAND, MPI_BYTE, ua, ub, 2));
    CHECK(ub[0] == 0x30 && ub[1] == 0x0F);
    CHECK_OK(apply(MPI_BOR, MPI_UINT8_T, ua, ub, 2));
    CHECK(ub[0] == 0xF0 && ub[1] == 0x0F);
    uint64_t la = UINT64_MAX, lb = 1;
    CHECK_OK(apply(MPI_SUM, MPI_UINT64_T, &la, &lb, 1));
    CHECK_EQ(lb, 0); /* unsigned wrap, not a 32-bit kernel */
    double da[2] = {0.5, -1e300}, db[2] = {0.25, -2e300};
    CHECK_OK(apply(MPI_SUM, MPI_DOUBLE, da, db, 2));
    CHECK(db[0] == 0.75 && db[1] == -3e300);
    CHECK_OK(apply(MPI_MAX, MPI_DOUBLE, da, db, 2));
    CHECK(db[0] == 0.75 && db[1] == -1e300);
    double _Complex ca = 1 + 2 * I, cb = 3 - 1 * I;
    CHECK_OK(apply(MPI_PROD, MPI_C_DOUBLE_COMPLEX, &ca, &cb, 1));
    CHECK(creal(cb) == 5 && cimag(cb) == 5);
    _Bool ba[2] = {1, 0}, bb[2] = {1, 1};
    CHECK_OK(apply(MPI_LAND, MPI_C_BOOL, ba, bb, 2));
    CHECK(bb[0] == 1 && bb[1] == 0);

    /* MINLOC/MAXLOC: value first, then the lower index on ties. */
    double_int_t pa[3] = {{1.0, 4}, {2.0, 9}, {5.0, 1}}, pb[3] = {{1.0, 2}, {3.0, 3}, {5.0, 7}};
    CHECK_OK(apply(MPI_MINLOC, MPI_DOUBLE_INT, pa, pb, 3));
    CHECK(pb[0].v == 1.0 && pb[0].k == 2 && pb[1].v == 2.0 && pb[1].k == 9 && pb[2].k == 1);
    int ma[4] = {7, 3, 7, 8}, mb[4] = {7, 5, 6, 2}; /* two MPI_2INT pairs */
    CHECK_OK(apply(MPI_MAXLOC, MPI_2INT, ma, mb, 2));
    CHECK(mb[0] == 7 && mb[1] == 3 && mb[2] == 7 && mb[3] == 8);
    short_int_t sa = {-4, 11}, sb = {-3, 2};
    CHECK_OK(apply(MPI_MINLOC, MPI_SHORT_INT, &sa, &sb, 1));
    CHECK(sb.v == -4 && sb.k == 11);
    ldouble_int_t xa = {2.5L, 1}, xb = {2.0L, 0};
    CHECK_OK(apply(MPI_MAXLOC, MPI_LONG_DOUBLE_INT, &xa, &xb, 1));
    CHECK(xb.v == 2.5L && xb.k == 1);
    return 0;
}

static int test_op_invalid(void)
{
    static const struct {
        MPI_Op op;
        MPI_Datatype dt;
    } bad[] = {
        {MPI_SUM, MPI_DOUBLE_INT},       {MPI_MAXLOC, MPI_INT},
        {MPI_MINLOC, MPI_DOUBLE},        {MPI_LAND, MPI_DOUBLE},
        {MPI_BAND, MPI_FLOAT},           {MPI_BXOR, MPI_DOUBLE_COMPLEX},
        {MPI_MAX, MPI_C_DOUBLE_COMPLEX}, {MPI_SUM, MPI_BYTE},
        {MPI_MAX, MPI_C_BOOL},           {MPI_OP_NULL, MPI_INT},
        {(MPI_Op)0x58000000, MPI_INT},   {(MPI_Op)0x5800000f, MPI_INT},
        {(MPI_Op)MPI_INT, MPI_INT},
    };
    for (size_t i = 0; i < UNIT_COUNT(bad); i++) {
        const fy_dtype_t *d = fy_dtype_get(bad[i].dt);
        CHECK(d != NULL);
        fy_err_set(MPI_SUCCESS, "%s", "");
        CHECK_EQ(fy_op_check("MPI_Reduce", bad[i].op, d), MPI_ERR_OP);
        CHECK(strstr(fy_err_last_message(), "MPI_Reduce") != NULL);
        int in[8] = {0}, inout[8] = {0};
        CHECK_EQ(fy_op_apply(bad[i].op, d, in, inout, 0), MPI_ERR_OP);
    }
    fy_op_check("MPI_Allreduce", MPI_SUM, fy_dtype_get(MPI_DOUBLE_INT));
    CHECK(strstr(fy_err_last_message(), "MPI_SUM") != NULL);
    CHECK(strstr(fy_err_last_message(), "MPI_DOUBLE_INT") != NULL);
    return 0;
}

/* The pool never hands out index 0 of chunk 0 (so no live handle equals a *_NULL value), and
 * that slot must not look live either: its handle 0xac000000 once passed fy_req_get, so
 * MPI_Test on it returned MPI_SUCCESS with flag 0 and MPI_Wait hung (fixed in 45ab723). */
static int test_req_slot_zero(void)
{
    fy_req_t *r = fy_req_alloc(FY_REQ_SEND); /* the pool exists */
    CHECK(fy_req_get(fy_handle_make(FY_HKIND_DIRECT, FY_HCLASS_REQUEST, 0)) == NULL);
    fy_req_free(r);
    return 0;
}

/* MPI-4.0 section 6.9.4 defines MINLOC and MAXLOC on MPI_2REAL and MPI_2DOUBLE_PRECISION, as
 * on MPI_2INTEGER; the index is stored in the value's type (they gave MPI_ERR_OP before
 * 45ab723). */
static int test_minloc_2real(void)
{
    float fa[4] = {1.0f, 3.0f, 2.0f, 8.0f}, fb[4] = {2.0f, 1.0f, 2.0f, 4.0f};
    CHECK_OK(apply(MPI_MINLOC, MPI_2REAL, fa, fb, 2));
    CHECK(fb[0] == 1.0f && fb[1] == 3.0f && fb[2] == 2.0f && fb[3] == 4.0f);
    double da[2] = {5.0, 2.0}, db[2] = {5.0, 7.0};
    CHECK_OK(apply(MPI_MAXLOC, MPI_2DOUBLE_PRECISION, da, db, 1));
    CHECK(db[0] == 5.0 && db[1] == 2.0);
    CHECK_EQ(fy_op_check("MPI_Reduce", MPI_SUM, fy_dtype_get(MPI_2REAL)), MPI_ERR_OP);
    return 0;
}

static const unit_case_t cases[] = {
    {"request_pool", test_request_pool},   {"error_codes", test_error_codes},
    {"dtype_sizes", test_dtype_sizes},     {"dtype_pack", test_dtype_pack},
    {"op_kernels", test_op_kernels},       {"op_invalid", test_op_invalid},
    {"req_slot_zero", test_req_slot_zero}, {"minloc_2real", test_minloc_2real},
};

int main(void)
{
    int rc = unit_run(cases, UNIT_COUNT(cases));
    fy_req_pool_fini();
    return rc;
}
