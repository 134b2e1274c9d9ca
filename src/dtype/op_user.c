/* Operator handles: the predefined operators (0x58000000 | k) and user functions made by
 * MPI_Op_create(_c), which get kind DIRECT, class OP and an index into a table of fixed-size
 * chunks. Chunks never move, so a lookup needs no lock while another thread creates an
 * operator (table changes themselves happen under the API lock). Freed slots are reused. */
#include <stdio.h>
#include <stdlib.h>

#include "fy_err.h"
#include "fy_handle.h"
#include "fy_op.h"

#define PREDEF(k, commute)                                                                         \
    {                                                                                              \
        (MPI_Op)(0x58000000 | (k)), k, commute, false, NULL, NULL, 1                               \
    }
static fy_op_t predefined[FY_OP_NPREDEF_] = {
    {0},
    PREDEF(FY_OP_MAX, true),
    PREDEF(FY_OP_MIN, true),
    PREDEF(FY_OP_SUM, true),
    PREDEF(FY_OP_PROD, true),
    PREDEF(FY_OP_LAND, true),
    PREDEF(FY_OP_BAND, true),
    PREDEF(FY_OP_LOR, true),
    PREDEF(FY_OP_BOR, true),
    PREDEF(FY_OP_LXOR, true),
    PREDEF(FY_OP_BXOR, true),
    PREDEF(FY_OP_MINLOC, true),
    PREDEF(FY_OP_MAXLOC, true),
    PREDEF(FY_OP_REPLACE, false),
    PREDEF(FY_OP_NO_OP, false),
};

static const char *const predef_name[FY_OP_NPREDEF_] = {
    "",         "MPI_MAX",    "MPI_MIN",    "MPI_SUM",     "MPI_PROD",
    "MPI_LAND", "MPI_BAND",   "MPI_LOR",    "MPI_BOR",     "MPI_LXOR",
    "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP",
};

#define CHUNK_BITS 8
#define CHUNK_LEN (1u << CHUNK_BITS)
#define MAX_CHUNKS 4096u /* a million live user operators */
static fy_op_t *chunks[MAX_CHUNKS];
static unsigned nslots;    /* slots handed out so far (the table's high-water mark) */
static unsigned *freelist; /* freed slot indexes */
static unsigned nfree, freecap;

static fy_op_t *slot(unsigned i)
{
    fy_op_t *c = chunks[i >> CHUNK_BITS];
    return c ? &c[i & (CHUNK_LEN - 1)] : NULL;
}

fy_op_t *fy_op_get(MPI_Op h)
{
    unsigned u = (unsigned)h;
    if ((u & 0xffffff00u) == 0x58000000u) {
        unsigned k = u & 0xff;
        return k >= 1 && k < FY_OP_NPREDEF_ ? &predefined[k] : NULL;
    }
    if (fy_handle_kind(h) != FY_HKIND_DIRECT || fy_handle_class(h) != FY_HCLASS_OP)
        return NULL;
    unsigned i = fy_handle_index(h);
    if (i >= MAX_CHUNKS * CHUNK_LEN)
        return NULL;
    fy_op_t *op = slot(i);
    return op && op->refs > 0 && op->handle == h ? op : NULL;
}

const char *fy_op_name(MPI_Op h)
{
    static _Thread_local char buf[48];
    fy_op_t *op = fy_op_get(h);
    if (op && op->predef)
        return predef_name[op->predef];
    snprintf(buf, sizeof buf, "%s operator 0x%x", op ? "user" : "invalid", (unsigned)h);
    return buf;
}

bool fy_op_commutes(MPI_Op h)
{
    fy_op_t *op = fy_op_get(h);
    return op && op->commute;
}

int fy_op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, bool commute, MPI_Op *h_p)
{
    unsigned i;
    if (nfree > 0) {
        i = freelist[--nfree];
    } else {
        if (nslots == MAX_CHUNKS * CHUNK_LEN)
            return fy_err_set(MPI_ERR_INTERN, "MPI_Op_create: too many user operators (%u)",
                              nslots);
        i = nslots;
        if (!chunks[i >> CHUNK_BITS]) {
            chunks[i >> CHUNK_BITS] = calloc(CHUNK_LEN, sizeof(fy_op_t));
            if (!chunks[i >> CHUNK_BITS])
                return fy_err_set(MPI_ERR_NO_MEM, "MPI_Op_create: out of memory");
        }
        nslots++;
    }
    fy_op_t *op = slot(i);
    op->handle = fy_handle_make(FY_HKIND_DIRECT, FY_HCLASS_OP, i);
    op->predef = 0;
    op->commute = commute;
    op->large_count = fn_c != NULL;
    op->fn = fn;
    op->fn_c = fn_c;
    op->refs = 1;
    *h_p = op->handle;
    return MPI_SUCCESS;
}

void fy_op_ref(fy_op_t *op)
{
    if (!op->predef)
        op->refs++;
}

void fy_op_release(fy_op_t *op)
{
    if (op->predef || --op->refs > 0)
        return;
    unsigned i = fy_handle_index(op->handle);
    op->fn = NULL;
    op->fn_c = NULL;
    if (nfree == freecap) {
        unsigned ncap = freecap ? freecap * 2 : 64;
        unsigned *f = realloc(freelist, ncap * sizeof *f);
        if (!f)
            return; /* the slot is lost, nothing worse */
        freelist = f;
        freecap = ncap;
    }
    freelist[nfree++] = i;
}

void fy_op_fini(void)
{
    /* Only the chunks made (below nslots): the whole table is 32 KiB never touched otherwise. */
    for (unsigned c = 0; c < (nslots + CHUNK_LEN - 1) / CHUNK_LEN; c++) {
        free(chunks[c]);
        chunks[c] = NULL;
    }
    free(freelist);
    freelist = NULL;
    nslots = nfree = freecap = 0;
}
