/* Status conversions between C (MPI_Status), Fortran (MPI_Fint[MPI_F_STATUS_SIZE]) and Fortran
 * 2008 (MPI_F08_status). All three hold the same five integers in the same order (the MPICH
 * ABI), MPI_SOURCE at MPI_F_SOURCE, MPI_TAG at MPI_F_TAG, MPI_ERROR at MPI_F_ERROR, so each
 * conversion is a copy of the fields. The ignore constants are not statuses: passing one is
 * an error (MPI 4.1, 19.3.5), raised on MPI_COMM_SELF. These calls need no initialization. */
#include "fy_api.h"

_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "MPI_Status must be MPI_F_STATUS_SIZE integers");
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "F08 status layout");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
               "MPI_F_SOURCE/TAG/ERROR index the C layout");

static int check(const char *fn, const void *in, const char *in_name, const void *ignore_in1,
                 const void *ignore_in2, const void *out, const char *out_name,
                 const void *ignore_out1, const void *ignore_out2)
{
    int rc = MPI_SUCCESS;
    if (!in || in == ignore_in1 || in == ignore_in2)
        rc = fy_err_set(MPI_ERR_ARG, "%s: %s is an ignore constant or NULL, not a status", fn,
                        in_name);
    else if (!out || out == ignore_out1 || out == ignore_out2)
        rc = fy_err_set(MPI_ERR_ARG, "%s: %s is an ignore constant or NULL, not a status", fn,
                        out_name);
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

/* The five fields, in the shared order. */
static void copy5(const int *in, int *out)
{
    for (int i = 0; i < MPI_F_STATUS_SIZE; i++)
        out[i] = in[i];
}

#define C_IGN MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE
#define F_IGN MPI_F_STATUS_IGNORE, MPI_F_STATUSES_IGNORE
#define F08_IGN MPI_F08_STATUS_IGNORE, MPI_F08_STATUSES_IGNORE

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    int rc = check("MPI_Status_c2f", c_status, "c_status", C_IGN, f_status, "f_status", F_IGN);
    if (rc == MPI_SUCCESS)
        copy5((const int *)c_status, f_status);
    return rc;
}

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    int rc = check("MPI_Status_f2c", f_status, "f_status", F_IGN, c_status, "c_status", C_IGN);
    if (rc == MPI_SUCCESS)
        copy5(f_status, (int *)c_status);
    return rc;
}

int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    int rc = check("MPI_Status_c2f08", c_status, "c_status", C_IGN, f08_status, "f08_status",
                   F08_IGN);
    if (rc == MPI_SUCCESS)
        copy5((const int *)c_status, (int *)f08_status);
    return rc;
}

int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    int rc = check("MPI_Status_f082c", f08_status, "f08_status", F08_IGN, c_status, "c_status",
                   C_IGN);
    if (rc == MPI_SUCCESS)
        copy5((const int *)f08_status, (int *)c_status);
    return rc;
}

int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
    int rc = check("MPI_Status_f082f", f08_status, "f08_status", F08_IGN, f_status, "f_status",
                   F_IGN);
    if (rc == MPI_SUCCESS)
        copy5((const int *)f08_status, f_status);
    return rc;
}

int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
    int rc = check("MPI_Status_f2f08", f_status, "f_status", F_IGN, f08_status, "f08_status",
                   F08_IGN);
    if (rc == MPI_SUCCESS)
        copy5(f_status, (int *)f08_status);
    return rc;
}
