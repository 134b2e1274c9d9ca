#include "pmi_kvs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct fy_pmi_kvs_entry {
    fy_pmi_kvs_entry_t *next;
    char *val;
    char key[]; /* key and value share one allocation with the entry */
};

/* FNV-1a: short keys, no adversary; anything uniform enough will do. */
static size_t hash(const char *s)
{
    uint64_t h = 14695981039346656037u;
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return (size_t)h;
}

void fy_pmi_kvs_init(fy_pmi_kvs_t *kvs)
{
    kvs->bucket = NULL;
    kvs->nbucket = 0;
    kvs->count = 0;
}

void fy_pmi_kvs_fini(fy_pmi_kvs_t *kvs)
{
    for (size_t i = 0; i < kvs->nbucket; i++) {
        fy_pmi_kvs_entry_t *e = kvs->bucket[i];
        while (e != NULL) {
            fy_pmi_kvs_entry_t *next = e->next;
            free(e);
            e = next;
        }
    }
    free(kvs->bucket);
    fy_pmi_kvs_init(kvs);
}

static fy_pmi_kvs_entry_t **find(const fy_pmi_kvs_t *kvs, const char *key)
{
    fy_pmi_kvs_entry_t **ep = &kvs->bucket[hash(key) % kvs->nbucket];
    while (*ep != NULL && strcmp((*ep)->key, key) != 0)
        ep = &(*ep)->next;
    return ep;
}

static int grow(fy_pmi_kvs_t *kvs)
{
    size_t n = kvs->nbucket ? kvs->nbucket * 2 : 64;
    fy_pmi_kvs_entry_t **b = calloc(n, sizeof(*b));
    if (b == NULL)
        return -1;
    for (size_t i = 0; i < kvs->nbucket; i++) {
        fy_pmi_kvs_entry_t *e = kvs->bucket[i];
        while (e != NULL) {
            fy_pmi_kvs_entry_t *next = e->next;
            size_t h = hash(e->key) % n;
            e->next = b[h];
            b[h] = e;
            e = next;
        }
    }
    free(kvs->bucket);
    kvs->bucket = b;
    kvs->nbucket = n;
    return 0;
}

int fy_pmi_kvs_put(fy_pmi_kvs_t *kvs, const char *key, const char *val)
{
    if (kvs->count >= kvs->nbucket && grow(kvs) != 0)
        return -1;
    size_t klen = strlen(key) + 1, vlen = strlen(val) + 1;
    fy_pmi_kvs_entry_t *e = malloc(sizeof(*e) + klen + vlen);
    if (e == NULL)
        return -1;
    memcpy(e->key, key, klen);
    e->val = e->key + klen;
    memcpy(e->val, val, vlen);

    fy_pmi_kvs_entry_t **ep = find(kvs, key);
    if (*ep != NULL) {
        e->next = (*ep)->next;
        free(*ep);
    } else {
        e->next = NULL;
        kvs->count++;
    }
    *ep = e;
    return 0;
}

const char *fy_pmi_kvs_get(const fy_pmi_kvs_t *kvs, const char *key)
{
    if (kvs->nbucket == 0)
        return NULL;
    fy_pmi_kvs_entry_t *e = *find(kvs, key);
    return e ? e->val : NULL;
}
