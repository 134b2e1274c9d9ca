/* Attributes and keyvals: set/get/delete on communicators and datatypes, copy callbacks at
 * dup (kept or dropped by their flag), delete callbacks at replace, delete and free, the
 * predefined copy functions, the predefined attributes, and MPI_Finalize deleting the
 * attributes of MPI_COMM_SELF first, newest first, while MPI still works. */
#include "mpitest.h"

static int copies, deletes;
static int self_order[4], self_n, self_mpi_ok = 1;

static int copy_keep(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    copies++;
    *(void **)out = (char *)in + 1; /* the copy is told apart from the original */
    *flag = 1;
    return MPI_SUCCESS;
}

static int copy_drop(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra, (void)in, (void)out;
    copies++;
    *flag = 0;
    return MPI_SUCCESS;
}

static int del_count(MPI_Comm c, int k, void *v, void *extra)
{
    (void)c, (void)k, (void)v, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

/* Runs inside MPI_Finalize: records the order and that MPI still answers. */
static int del_self(MPI_Comm c, int k, void *v, void *extra)
{
    (void)c, (void)k, (void)extra;
    int flag = 0, size = 0;
    MPI_Finalized(&flag);
    if (flag || MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS || size != mt_size)
        self_mpi_ok = 0;
    if (self_n < 4)
        self_order[self_n++] = (int)(long)v;
    return MPI_SUCCESS;
}

static int tcopy(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)k, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int tdel(MPI_Datatype t, int k, void *v, void *extra)
{
    (void)t, (void)k, (void)v, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int keep, drop, flag;
    void *v;
    MPI_OK(MPI_Comm_create_keyval(copy_keep, del_count, &keep, NULL));
    MPI_OK(MPI_Comm_create_keyval(copy_drop, del_count, &drop, NULL));
    MPI_Comm c, d;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Comm_get_attr(c, keep, &v, &flag));
    CHECK(!flag, "an attribute nobody set is found");
    MPI_OK(MPI_Comm_set_attr(c, keep, (void *)100));
    MPI_OK(MPI_Comm_set_attr(c, drop, (void *)200));
    MPI_OK(MPI_Comm_get_attr(c, keep, &v, &flag));
    CHECK(flag && v == (void *)100, "get after set: flag %d value %p", flag, v);
    /* Replacing runs the delete callback on the old value. */
    MPI_OK(MPI_Comm_set_attr(c, keep, (void *)110));
    CHECK(deletes == 1, "replace: %d delete callbacks, expected 1", deletes);
    /* Dup: both copy callbacks run; only `keep` is copied. */
    MPI_OK(MPI_Comm_dup(c, &d));
    CHECK(copies == 2, "dup: %d copy callbacks, expected 2", copies);
    MPI_OK(MPI_Comm_get_attr(d, keep, &v, &flag));
    CHECK(flag && v == (void *)111, "dup kept attribute: flag %d value %p (expected 0x6f)", flag,
          v);
    MPI_OK(MPI_Comm_get_attr(d, drop, &v, &flag));
    CHECK(!flag, "dup: the attribute whose copy said flag = 0 is present");
    /* Delete and free run delete callbacks. */
    MPI_OK(MPI_Comm_delete_attr(c, drop));
    CHECK(deletes == 2, "delete_attr: %d delete callbacks, expected 2", deletes);
    MPI_OK(MPI_Comm_delete_attr(c, drop)); /* absent: nothing to do */
    CHECK(deletes == 2, "deleting an absent attribute ran a callback");
    MPI_OK(MPI_Comm_free(&d));
    CHECK(deletes == 3, "free of the dup: %d delete callbacks, expected 3", deletes);
    MPI_OK(MPI_Comm_free(&c));
    CHECK(deletes == 4, "free: %d delete callbacks, expected 4", deletes);
    /* A keyval freed while attributes use it stays usable by them. */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Comm_set_attr(c, keep, (void *)7));
    MPI_OK(MPI_Comm_free_keyval(&keep));
    CHECK(keep == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
    MPI_OK(MPI_Comm_free(&c));
    CHECK(deletes == 5, "free after free_keyval: %d delete callbacks, expected 5", deletes);
    MPI_Comm_free_keyval(&drop);

    /* The predefined copy functions. */
    int nk, dk;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &nk, NULL));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &dk, NULL));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Comm_set_attr(c, nk, (void *)1));
    MPI_OK(MPI_Comm_set_attr(c, dk, (void *)2));
    MPI_OK(MPI_Comm_dup(c, &d));
    MPI_OK(MPI_Comm_get_attr(d, nk, &v, &flag));
    CHECK(!flag, "MPI_COMM_NULL_COPY_FN copied the attribute");
    MPI_OK(MPI_Comm_get_attr(d, dk, &v, &flag));
    CHECK(flag && v == (void *)2, "MPI_COMM_DUP_FN: flag %d value %p", flag, v);
    MPI_Comm_free(&d);
    MPI_Comm_free(&c);
    MPI_Comm_free_keyval(&nk);
    MPI_Comm_free_keyval(&dk);

    /* Predefined attributes on MPI_COMM_WORLD. */
    int *ip;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ip, &flag));
    CHECK(flag && *ip >= 32767, "MPI_TAG_UB: flag %d value %d", flag, flag ? *ip : 0);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &ip, &flag));
    CHECK(flag && (*ip == 0 || *ip == 1), "MPI_WTIME_IS_GLOBAL");
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &ip, &flag));
    CHECK(flag, "MPI_HOST missing");
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &ip, &flag));
    CHECK(flag, "MPI_IO missing");
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &ip, &flag));
    CHECK(!flag || *ip == 0, "MPI_APPNUM of a single-program job: %d", flag ? *ip : -1);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &ip, &flag));
    CHECK(!flag || *ip >= mt_size, "MPI_UNIVERSE_SIZE %d < size %d", flag ? *ip : -1, mt_size);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &ip, &flag));
    CHECK(flag && *ip >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE");

    /* Datatype attributes. */
    int tk;
    MPI_Datatype t, td;
    copies = deletes = 0;
    MPI_OK(MPI_Type_create_keyval(tcopy, tdel, &tk, NULL));
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    MPI_OK(MPI_Type_set_attr(t, tk, (void *)42));
    MPI_OK(MPI_Type_dup(t, &td));
    MPI_OK(MPI_Type_get_attr(td, tk, &v, &flag));
    CHECK(flag && v == (void *)42 && copies == 1, "Type_dup attribute: flag %d value %p", flag, v);
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_free(&td));
    CHECK(deletes == 2, "Type_free: %d delete callbacks, expected 2", deletes);
    CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, tk, NULL), MPI_ERR_KEYVAL,
                "a datatype keyval on a communicator");
    MPI_Type_free_keyval(&tk);

    /* MPI_COMM_SELF: deleted first in MPI_Finalize, newest first. */
    int sk;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_self, &sk, NULL));
    for (long i = 1; i <= 3; i++) {
        int k;
        MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_self, &k, NULL));
        MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k, (void *)i));
    }
    int rc = mt_finish();
    if (self_n != 3 || self_order[0] != 3 || self_order[1] != 2 || self_order[2] != 1 ||
        !self_mpi_ok) {
        printf("[rank %d] FAIL MPI_COMM_SELF attributes at MPI_Finalize: %d deleted, order %d %d "
               "%d (expected 3 2 1), MPI usable: %d\n",
               mt_rank, self_n, self_order[0], self_order[1], self_order[2], self_mpi_ok);
        rc = 1;
    }
    return rc;
}
