/* Info objects: ordered lists of (key, value) strings, and the handles users hold for them.
 *
 * An info object keeps its entries in insertion order (MPI_Info_get_nthkey numbers them that
 * way); setting a key that is present replaces its value in place. Objects exist with or without
 * a handle: those behind MPI_Info handles live in a table indexed by the handle (kind DIRECT,
 * class INFO), while the hints stored on a communicator are a private object with no handle.
 *
 * MPI_INFO_ENV is predefined: built on first use from what the process knows (its command line,
 * host, working directory, the size of MPI_COMM_WORLD and the thread level once MPI is running)
 * and read-only.
 *
 * Info calls are allowed before MPI_Init and after MPI_Finalize (MPI-4), so nothing here depends
 * on the library being initialized. Callers hold fy_lock() around every call. */
#ifndef FY_INFO_H
#define FY_INFO_H

#include "mpi.h"

typedef struct fy_info_kv {
    char *key, *value;
} fy_info_kv_t;

typedef struct fy_info {
    MPI_Info handle; /* MPI_INFO_NULL for objects without a handle */
    int n, cap;
    fy_info_kv_t *kv; /* n entries, in insertion order */
} fy_info_t;

/* NULL when h is not a live info handle (MPI_INFO_ENV is one). */
fy_info_t *fy_info_get(MPI_Info h);

/* A new empty object without a handle; NULL when out of memory. */
fy_info_t *fy_info_new(void);
/* A copy of `from` without a handle; NULL when out of memory. */
fy_info_t *fy_info_dup(const fy_info_t *from);
/* Frees an object that has no handle (NULL is allowed). */
void fy_info_free(fy_info_t *info);
/* Gives `info` a handle: MPI_SUCCESS or MPI_ERR_NO_MEM (info is then freed). */
int fy_info_publish(fy_info_t *info, MPI_Info *h_p);
/* Frees the object behind a handle made by fy_info_publish. */
void fy_info_unpublish(fy_info_t *info);

/* Index of `key`, or -1. */
int fy_info_find(const fy_info_t *info, const char *key);
/* Sets or replaces: MPI_SUCCESS or MPI_ERR_NO_MEM. */
int fy_info_set(fy_info_t *info, const char *key, const char *value);
/* Removes `key`: 1 when it was present, 0 when not. */
int fy_info_delete(fy_info_t *info, const char *key);
/* Sets every entry of `from` in `to` (replacing values of keys both have). */
int fy_info_merge(fy_info_t *to, const fy_info_t *from);

/* The environment info (MPI_Info_create_env / MPI_INFO_ENV): argc/argv as given to main, or
 * argc 0 / argv NULL to read this process's own command line. NULL when out of memory. */
fy_info_t *fy_info_env_new(int argc, char **argv);

/* Whether h is MPI_INFO_ENV, which users may read but not change or free. */
static inline int fy_info_is_env(MPI_Info h)
{
    return h == MPI_INFO_ENV;
}

#endif
