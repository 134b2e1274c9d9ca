/* A key-value store of strings: the job-wide space in the launcher, the local one of a singleton.
 * Keys are unique; a second put of a key replaces its value. */
#ifndef FY_PMI_KVS_H
#define FY_PMI_KVS_H

#include <stddef.h>

typedef struct fy_pmi_kvs_entry fy_pmi_kvs_entry_t;

typedef struct fy_pmi_kvs {
    fy_pmi_kvs_entry_t **bucket;
    size_t nbucket;
    size_t count;
} fy_pmi_kvs_t;

void fy_pmi_kvs_init(fy_pmi_kvs_t *kvs);
void fy_pmi_kvs_fini(fy_pmi_kvs_t *kvs);
/* 0, or -1 when out of memory. */
int fy_pmi_kvs_put(fy_pmi_kvs_t *kvs, const char *key, const char *val);
/* The stored value (owned by the store), or NULL. */
const char *fy_pmi_kvs_get(const fy_pmi_kvs_t *kvs, const char *key);

#endif
