/* Inside the library's PMI client: the record every backend shares and the table of what each
 * backend does (fy_pmi.h is the contract seen from above).
 *
 * A backend is chosen once, in fy_pmi_init, from the environment the launcher left: PMI-1 and
 * PMI-2 are text protocols on the socket PMI_FD (pmi1.c, pmi2.c), PMIx goes through the PMIx
 * client library loaded at run time (pmix.c), and without any of them the process is a
 * singleton with a local key-value space (pmi_client.c).
 */
#ifndef FY_PMI_IMPL_H
#define FY_PMI_IMPL_H

#include "fy_pmi.h"
#include "pmi_kvs.h"
#include "pmi_wire.h"

#define FY_PMI_KVSNAME_MAX 256

typedef struct fy_pmi_ops {
    const char *name; /* "PMI-1", "PMI-2", "PMIx", "singleton": for messages */
    int (*put)(fy_pmi_t *pmi, const char *key, const char *value);
    int (*fence)(fy_pmi_t *pmi);
    /* src: the rank that put the key (PMIx stores keys per process; the others ignore it). */
    int (*get)(fy_pmi_t *pmi, int src, const char *key, char *value, size_t len);
    /* host_of[] for every rank, or -1 when this backend cannot tell. */
    int (*mapping)(fy_pmi_t *pmi, int *host_of, int size);
    void (*abort)(fy_pmi_t *pmi, int code, const char *msg);
    /* Ends the connection; the caller frees pmi. */
    int (*finalize)(fy_pmi_t *pmi);
} fy_pmi_ops_t;

struct fy_pmi {
    const fy_pmi_ops_t *ops;
    int fd; /* PMI_FD for the text protocols, else -1 */
    int rank;
    int size;
    int appnum;
    int universe;   /* 0 when the launcher does not say */
    int keylen_max; /* the launcher's limits; counting the NUL, as PMI-1 does */
    int vallen_max;
    char wire_kvsname[FY_PMI_KVSNAME_MAX]; /* as the launcher spells it, for requests */
    char kvsname[FY_PMI_KVSNAME_MAX];      /* sanitized, for file names */
    fy_pmi_linebuf_t in;
    char reply[FY_PMI_WIRE_MAX_LINE + 1];
    fy_pmi_msg_t msg;
    fy_pmi_kvs_t local; /* singleton only */
    void *backend;      /* pmix.c's state */
};

/* Writes the reason into fy_pmi_last_error(); returns -1. */
__attribute__((format(printf, 1, 2))) int fy_pmi_fail(const char *fmt, ...);
/* Copies v (the value of `what` `key`, NULL when not found) into value[len]; 0, or -1 with the
 * reason. */
int fy_pmi_copy_value(const char *what, const char *key, const char *v, char *value, size_t len);
/* [A-Za-z0-9_-] only, for file names. */
void fy_pmi_sanitize(char *dst, const char *src, size_t len);
/* A non-negative decimal environment variable; -1 when absent or malformed. */
int fy_pmi_env_int(const char *name, int *val_p);
/* Waits up to `ms` for fd to become readable: 1 ready, 0 timed out, -1 error (errno set). The
 * first answer of a launcher is awaited with a limit, so that a PMI_FD that leads nowhere ends
 * MPI_Init with a message instead of a hang. */
int fy_pmi_wait_readable(int fd, int ms);
/* Checks that PMI_FD names an open socket (what every launcher hands out), so that a dangling
 * or stray descriptor is reported instead of written to. */
int fy_pmi_check_fd(int fd);
/* How long the first reply of a launcher may take (FERRY_PMI_TIMEOUT seconds, default 60). */
int fy_pmi_first_reply_ms(void);

int fy_pmi1_init(fy_pmi_t *pmi);
/* strict: PMI-2 or fail; else a server that declines version 2 gets a PMI-1 init (returns
 * through fy_pmi1_init). */
int fy_pmi2_init(fy_pmi_t *pmi, int strict);
int fy_pmix_init(fy_pmi_t *pmi, const char *lib);

#endif
