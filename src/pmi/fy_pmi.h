/* The library's side of the process-manager interface: PMI-1, PMI-2 and PMIx behind one API.
 *
 * A process started by a PMI-1 or PMI-2 launcher (Ferry's mpiexec, MPICH's mpiexec.hydra,
 * Slurm's srun --mpi=pmi2) finds the socket in the environment variable PMI_FD; one started by
 * a PMIx launcher (srun --mpi=pmix, prterun, Open MPI's mpirun) finds PMIX_NAMESPACE and the
 * server's address. Without either the process is a singleton: rank 0 of 1, and the key-value
 * space is local. pmi_client.c says how the backend is chosen.
 *
 * All functions return 0 on success and -1 on failure, after writing a one-line reason into
 * fy_pmi_last_error(). None of them is thread-safe; the library calls them under its own lock.
 */
#ifndef FY_PMI_H
#define FY_PMI_H

#include <stddef.h>

typedef struct fy_pmi fy_pmi_t;

typedef struct fy_pmi_params {
    int timeout_ms;       /* longest wait for a launcher's first answer (0: 60 s) */
    const char *pmix_lib; /* the PMIx client library to load (NULL: libpmix.so.2) */
} fy_pmi_params_t;

/* Connects (or sets up a singleton) and reads rank, size, appnum and the kvs name. An
 * environment that announces a process manager that is not there fails with the variable
 * named, after at most params->timeout_ms. */
int fy_pmi_init(fy_pmi_t **pmi_p, const fy_pmi_params_t *params);
int fy_pmi_rank(const fy_pmi_t *pmi);
int fy_pmi_size(const fy_pmi_t *pmi);
int fy_pmi_appnum(const fy_pmi_t *pmi);
/* The size of the universe the launcher offers (at least the job's size). */
int fy_pmi_universe_size(const fy_pmi_t *pmi);
int fy_pmi_is_singleton(const fy_pmi_t *pmi);
/* "PMI-1", "PMI-2", "PMIx" or "singleton". */
const char *fy_pmi_kind(const fy_pmi_t *pmi);
/* The key-value space name: unique per job, safe to use in file names ([A-Za-z0-9_-]). */
const char *fy_pmi_kvsname(const fy_pmi_t *pmi);

/* Publishes key=value (visible to others after the next fence). Keys and values are at most
 * FY_PMI_MAX_KEY / FY_PMI_MAX_VAL bytes including the terminating NUL (PMI-1 counts it, and
 * Hydra silently truncates longer values), printable ASCII without spaces or '='. */
#define FY_PMI_MAX_KEY 64
#define FY_PMI_MAX_VAL 1024
int fy_pmi_put(fy_pmi_t *pmi, const char *key, const char *value);
/* Commit plus barrier across all ranks of the job. */
int fy_pmi_fence(fy_pmi_t *pmi);
/* Reads a key published by rank `src` before the last fence (PMIx keeps keys per process;
 * PMI-1 and PMI-2 have one space, where keys must therefore be unique across ranks). */
int fy_pmi_get(fy_pmi_t *pmi, int src, const char *key, char *value, size_t len);

/* Which host each of the job's `size` ranks runs on (host_of[rank], hosts numbered from 0), as
 * the launcher says: PMI_process_mapping (a PMI-1 key, a PMI-2 job attribute; parsed in
 * pmi_mapping.c), or PMIx's node id of each rank. -1 when the launcher gives none or it cannot
 * be read; a singleton's answer is 0. */
int fy_pmi_process_mapping(fy_pmi_t *pmi, int *host_of, int size);
/* The parser alone: s is the value, e.g. "(vector,(0,2,2))". 0, or -1 when malformed. */
int fy_pmi_mapping_parse(const char *s, int *host_of, int size);

/* Tells the launcher the job must end with exit status `code`, with `msg` as the reason;
 * does not return (exits the process with `code` if the launcher does not kill it first). */
void fy_pmi_abort(fy_pmi_t *pmi, int code, const char *msg);
/* Tells the launcher this rank finished cleanly, then closes the connection and frees pmi. */
int fy_pmi_finalize(fy_pmi_t *pmi);

const char *fy_pmi_last_error(void);

#endif
