/* MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size and their large-count forms:
 * argument checks here, the representation in src/dtype/dtype_ext32.c. Errors are raised on
 * MPI_COMM_SELF (no communicator is involved). */
#include <string.h>

#include "fy_api.h"
#include "fy_ext32.h"

static int datarep_ok(const char *fn, const char *datarep)
{
    if (!datarep)
        return fy_err_set(MPI_ERR_ARG, "%s: invalid datarep NULL (must be \"external32\")", fn);
    if (strcmp(datarep, "external32") != 0)
        return fy_err_set(MPI_ERR_ARG,
                          "%s: unsupported datarep \"%.64s\" (the only one defined for packing is "
                          "\"external32\")",
                          fn, datarep);
    return MPI_SUCCESS;
}

static int dtype_ok(const char *fn, MPI_Datatype datatype, const fy_dtype_t **d_p)
{
    int rc = fy_api_dtype(fn, datatype, d_p);
    if (rc == MPI_SUCCESS && !(*d_p)->predefined && !(*d_p)->committed)
        rc = fy_err_set(MPI_ERR_TYPE, "%s: datatype 0x%x is not committed", fn, (unsigned)datatype);
    return rc;
}

static int common(const char *fn, const char *datarep, MPI_Count count, MPI_Datatype datatype,
                  const fy_dtype_t **d_p)
{
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS)
        rc = datarep_ok(fn, datarep);
    if (rc == MPI_SUCCESS)
        rc = fy_api_count(fn, count);
    if (rc == MPI_SUCCESS)
        rc = dtype_ok(fn, datatype, d_p);
    return rc;
}

static int position_ok(const char *fn, const MPI_Count *position, MPI_Count size,
                       const char *size_name)
{
    if (!position)
        return fy_err_set(MPI_ERR_ARG, "%s: invalid position argument NULL", fn);
    if (size < 0)
        return fy_err_set(MPI_ERR_ARG, "%s: invalid %s %lld", fn, size_name, (long long)size);
    if (*position < 0 || *position > size)
        return fy_err_set(MPI_ERR_ARG, "%s: position %lld lies outside the buffer (%s %lld)", fn,
                          (long long)*position, size_name, (long long)size);
    return MPI_SUCCESS;
}

static int pack_external(const char *fn, const char *datarep, const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position)
{
    const fy_dtype_t *d = NULL;
    int rc = common(fn, datarep, incount, datatype, &d);
    if (rc == MPI_SUCCESS)
        rc = position_ok(fn, position, outsize, "outsize");
    if (rc == MPI_SUCCESS)
        rc = fy_api_buf(fn, inbuf, incount, d);
    if (rc == MPI_SUCCESS && !outbuf && incount > 0 && d->size > 0)
        rc = fy_err_set(MPI_ERR_BUFFER, "%s: invalid outbuf NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_ext32_pack(fn, d, inbuf, incount, outbuf, outsize, position);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

static int unpack_external(const char *fn, const char *datarep, const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype)
{
    const fy_dtype_t *d = NULL;
    int rc = common(fn, datarep, outcount, datatype, &d);
    if (rc == MPI_SUCCESS)
        rc = position_ok(fn, position, insize, "insize");
    if (rc == MPI_SUCCESS)
        rc = fy_api_buf(fn, outbuf, outcount, d);
    if (rc == MPI_SUCCESS && !inbuf && outcount > 0 && d->size > 0)
        rc = fy_err_set(MPI_ERR_BUFFER, "%s: invalid inbuf NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_ext32_unpack(fn, d, inbuf, insize, position, outbuf, outcount);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

static int pack_external_size(const char *fn, const char *datarep, MPI_Count incount,
                              MPI_Datatype datatype, MPI_Count *size)
{
    const fy_dtype_t *d = NULL;
    int rc = common(fn, datarep, incount, datatype, &d);
    if (rc == MPI_SUCCESS && !size)
        rc = fy_err_set(MPI_ERR_ARG, "%s: invalid size argument NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_ext32_size(fn, d, incount, size);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

/* MPI_Aint and MPI_Count are both `long` in this ABI, so the int forms share the code. */
_Static_assert(sizeof(MPI_Aint) == sizeof(MPI_Count), "MPI_Aint and MPI_Count differ");

int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    return pack_external("MPI_Pack_external", datarep, inbuf, incount, datatype, outbuf, outsize,
                         position);
}

int PMPI_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position)
{
    return pack_external("MPI_Pack_external_c", datarep, inbuf, incount, datatype, outbuf, outsize,
                         position);
}

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    return unpack_external("MPI_Unpack_external", datarep, inbuf, insize, position, outbuf,
                           outcount, datatype);
}

int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype)
{
    return unpack_external("MPI_Unpack_external_c", datarep, inbuf, insize, position, outbuf,
                           outcount, datatype);
}

int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype, MPI_Aint *size)
{
    return pack_external_size("MPI_Pack_external_size", datarep, incount, datatype, size);
}

int PMPI_Pack_external_size_c(const char *datarep, MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size)
{
    return pack_external_size("MPI_Pack_external_size_c", datarep, incount, datatype, size);
}
