/* MPI_Pack, MPI_Unpack and MPI_Pack_size (and _c): the packed form is the type's packed
 * stream in native representation, with no header, so a packed buffer sent as MPI_PACKED
 * unpacks with any type of the same signature. */
#include "fy_api.h"

static int pack_args(const char *fn, MPI_Comm comm, MPI_Datatype dt, MPI_Count count,
                     const void *buf, const MPI_Count *position, MPI_Count size,
                     const fy_dtype_t **d_p)
{
    fy_comm_t *c;
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS)
        rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS)
        rc = fy_api_count(fn, count);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype(fn, dt, d_p);
    if (rc == MPI_SUCCESS)
        rc = fy_api_buf(fn, buf, count, *d_p);
    if (rc == MPI_SUCCESS && !position)
        rc = fy_err_set(MPI_ERR_ARG, "%s: position is NULL", fn);
    if (rc == MPI_SUCCESS && (*position < 0 || *position > size))
        rc = fy_err_set(MPI_ERR_ARG, "%s: position %lld is outside the buffer of %lld bytes", fn,
                        (long long)*position, (long long)size);
    return rc;
}

static int pack(const char *fn, const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    const fy_dtype_t *d;
    int rc = pack_args(fn, comm, datatype, incount, inbuf, position, outsize, &d);
    size_t bytes = rc == MPI_SUCCESS ? fy_dtype_bytes(d, incount) : 0;
    if (rc == MPI_SUCCESS && (MPI_Count)bytes > outsize - *position)
        rc = fy_err_set(MPI_ERR_TRUNCATE,
                        "%s: %zu bytes do not fit in the %lld bytes left of outbuf (outsize %lld, "
                        "position %lld)",
                        fn, bytes, (long long)(outsize - *position), (long long)outsize,
                        (long long)*position);
    if (rc == MPI_SUCCESS && bytes > 0 && !outbuf)
        rc = fy_err_set(MPI_ERR_BUFFER, "%s: outbuf is NULL", fn);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    fy_dtype_pack(d, inbuf, incount, (char *)outbuf + *position);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

static int unpack(const char *fn, const void *inbuf, MPI_Count insize, MPI_Count *position,
                  void *outbuf, MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    const fy_dtype_t *d;
    int rc = pack_args(fn, comm, datatype, outcount, outbuf, position, insize, &d);
    size_t bytes = rc == MPI_SUCCESS ? fy_dtype_bytes(d, outcount) : 0;
    if (rc == MPI_SUCCESS && (MPI_Count)bytes > insize - *position)
        rc = fy_err_set(MPI_ERR_TRUNCATE,
                        "%s: %lld elements need %zu bytes, but only %lld are left in inbuf "
                        "(insize %lld, position %lld)",
                        fn, (long long)outcount, bytes, (long long)(insize - *position),
                        (long long)insize, (long long)*position);
    if (rc == MPI_SUCCESS && bytes > 0 && !inbuf)
        rc = fy_err_set(MPI_ERR_BUFFER, "%s: inbuf is NULL", fn);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    fy_dtype_unpack(d, (const char *)inbuf + *position, bytes, outbuf);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0;
    int rc =
        pack("MPI_Pack", inbuf, incount, datatype, outbuf, outsize, position ? &pos : NULL, comm);
    if (rc == MPI_SUCCESS)
        *position = (int)pos;
    return rc;
}

int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    return pack("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position, comm);
}

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0;
    int rc = unpack("MPI_Unpack", inbuf, insize, position ? &pos : NULL, outbuf, outcount, datatype,
                    comm);
    if (rc == MPI_SUCCESS)
        *position = (int)pos;
    return rc;
}

int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    return unpack("MPI_Unpack_c", inbuf, insize, position, outbuf, outcount, datatype, comm);
}

static int pack_size(const char *fn, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                     MPI_Count *size)
{
    fy_comm_t *c;
    const fy_dtype_t *d;
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS)
        rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS)
        rc = fy_api_count(fn, incount);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype(fn, datatype, &d);
    if (rc == MPI_SUCCESS && !size)
        rc = fy_err_set(MPI_ERR_ARG, "%s: size is NULL", fn);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *size = (MPI_Count)fy_dtype_bytes(d, incount);
    return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPI_Count n = 0;
    int rc = pack_size("MPI_Pack_size", incount, datatype, comm, size ? &n : NULL);
    if (rc == MPI_SUCCESS)
        *size = n > 0x7fffffff ? MPI_UNDEFINED : (int)n;
    return rc;
}

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    return pack_size("MPI_Pack_size_c", incount, datatype, comm, size);
}
