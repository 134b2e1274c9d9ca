/* Status conversions between C, Fortran (MPI_Fint[MPI_F_STATUS_SIZE]) and Fortran 2008
 * (MPI_F08_status): every field, the count and the cancelled flag survive each of the six
 * conversions and round trips; MPI_F_SOURCE/TAG/ERROR index the Fortran array; passing an
 * ignore constant is MPI_ERR_ARG. The status comes from a real receive (and a cancelled one). */
#include "mpitest.h"

static void same(const MPI_Status *a, const MPI_Status *b, const char *what)
{
    int ca, cb, fa, fb;
    MPI_Get_count(a, MPI_INT, &ca);
    MPI_Get_count(b, MPI_INT, &cb);
    MPI_Test_cancelled(a, &fa);
    MPI_Test_cancelled(b, &fb);
    CHECK(a->MPI_SOURCE == b->MPI_SOURCE && a->MPI_TAG == b->MPI_TAG &&
              a->MPI_ERROR == b->MPI_ERROR && ca == cb && fa == fb,
          "%s: (%d,%d,%d,count %d,cancelled %d) became (%d,%d,%d,count %d,cancelled %d)", what,
          a->MPI_SOURCE, a->MPI_TAG, a->MPI_ERROR, ca, fa, b->MPI_SOURCE, b->MPI_TAG,
          b->MPI_ERROR, cb, fb);
}

static void roundtrips(const MPI_Status *s, const char *what)
{
    MPI_Fint f[MPI_F_STATUS_SIZE], f2[MPI_F_STATUS_SIZE];
    MPI_F08_status f08, f08b;
    MPI_Status c;
    MPI_OK(MPI_Status_c2f(s, f));
    CHECK(f[MPI_F_SOURCE] == s->MPI_SOURCE && f[MPI_F_TAG] == s->MPI_TAG &&
              f[MPI_F_ERROR] == s->MPI_ERROR,
          "%s: Fortran status fields (%d,%d,%d)", what, f[MPI_F_SOURCE], f[MPI_F_TAG],
          f[MPI_F_ERROR]);
    MPI_OK(MPI_Status_f2c(f, &c));
    same(s, &c, "c2f then f2c");
    MPI_OK(MPI_Status_c2f08(s, &f08));
    CHECK(f08.MPI_SOURCE == s->MPI_SOURCE && f08.MPI_TAG == s->MPI_TAG &&
              f08.MPI_ERROR == s->MPI_ERROR,
          "%s: F08 status fields", what);
    MPI_OK(MPI_Status_f082c(&f08, &c));
    same(s, &c, "c2f08 then f082c");
    MPI_OK(MPI_Status_f082f(&f08, f2));
    MPI_OK(MPI_Status_f2c(f2, &c));
    same(s, &c, "f082f then f2c");
    MPI_OK(MPI_Status_f2f08(f, &f08b));
    MPI_OK(MPI_Status_f082c(&f08b, &c));
    same(s, &c, "f2f08 then f082c");
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int data[5] = {1, 2, 3, 4, 5}, in[5];
    MPI_Status st;
    MPI_Request r;
    MPI_OK(MPI_Isend(data, 3, MPI_INT, 0, 42, MPI_COMM_SELF, &r));
    MPI_OK(MPI_Recv(in, 5, MPI_INT, 0, 42, MPI_COMM_SELF, &st));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    st.MPI_ERROR = MPI_ERR_OTHER; /* a value the receive would not set */
    roundtrips(&st, "received status");

    MPI_OK(MPI_Irecv(in, 5, MPI_INT, 0, 43, MPI_COMM_SELF, &r));
    MPI_OK(MPI_Cancel(&r));
    MPI_OK(MPI_Wait(&r, &st));
    roundtrips(&st, "cancelled status");

    MPI_Fint f[MPI_F_STATUS_SIZE];
    MPI_F08_status f08;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    CHECK_CLASS(MPI_Status_c2f(MPI_STATUS_IGNORE, f), MPI_ERR_ARG, "c2f of MPI_STATUS_IGNORE");
    CHECK_CLASS(MPI_Status_c2f(&st, MPI_F_STATUS_IGNORE), MPI_ERR_ARG,
                "c2f into MPI_F_STATUS_IGNORE");
    CHECK_CLASS(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &st), MPI_ERR_ARG,
                "f2c of MPI_F_STATUS_IGNORE");
    CHECK_CLASS(MPI_Status_c2f08(MPI_STATUS_IGNORE, &f08), MPI_ERR_ARG,
                "c2f08 of MPI_STATUS_IGNORE");
    CHECK_CLASS(MPI_Status_f082c(MPI_F08_STATUS_IGNORE, &st), MPI_ERR_ARG,
                "f082c of MPI_F08_STATUS_IGNORE");
    return mt_finish();
}
