/* The portable "external32" data representation (MPI 4.1, "External Data Representation:
 * external32"): every basic element big-endian, at the standard's size whatever the native
 * one (MPI_LONG is 4 bytes there, MPI_WCHAR 2, MPI_LONG_DOUBLE a 16-byte IEEE binary128),
 * elements back to back without padding. Used by MPI_Pack_external and friends.
 *
 * Each function returns an MPI error class with the message written (naming `fn`) and sets
 * its outputs only on success. Datatypes must be valid and committed (the API checks). */
#ifndef FY_EXT32_H
#define FY_EXT32_H

#include "fy_dtype.h"
#include "mpi.h"

/* Bytes `count` elements of d take in external32. */
int fy_ext32_size(const char *fn, const fy_dtype_t *d, MPI_Count count, MPI_Count *size_p);
/* Packs `count` elements at `in` to out + *pos_p; *pos_p advances. MPI_ERR_TRUNCATE when they
 * do not fit `outsize`, MPI_ERR_CONVERSION when a value has no external32 form (an MPI_LONG
 * beyond 32 bits, a wide character beyond U+FFFF). */
int fy_ext32_pack(const char *fn, const fy_dtype_t *d, const void *in, MPI_Count count, void *out,
                  MPI_Count outsize, MPI_Count *pos_p);
/* Unpacks `count` elements from in + *pos_p into `out`; *pos_p advances. MPI_ERR_TRUNCATE when
 * fewer than the bytes they need remain before `insize`. */
int fy_ext32_unpack(const char *fn, const fy_dtype_t *d, const void *in, MPI_Count insize,
                    MPI_Count *pos_p, void *out, MPI_Count count);

#endif
