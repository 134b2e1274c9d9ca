#include <stdlib.h>

#include "fy_attr.h"
#include "fy_err.h"
#include "fy_handle.h"

/* Copy and delete callbacks of every object kind have the same shape (the handles are ints in
 * this ABI), so one table serves communicators and datatypes; `kind` keeps them apart. */
typedef struct {
    MPI_Comm_copy_attr_function *copy;
    MPI_Comm_delete_attr_function *del;
    void *extra;
    int refs; /* the user's handle plus one per attribute using it */
    fy_attr_kind_t kind;
} keyval_t;

static keyval_t *keyvals;
static int nkeyvals, capkeyvals;

static keyval_t *kv_get(int keyval)
{
    if (fy_handle_kind(keyval) != FY_HKIND_DIRECT || fy_handle_class(keyval) != FY_HCLASS_KEYVAL)
        return NULL;
    unsigned i = fy_handle_index(keyval);
    return (int)i < nkeyvals && keyvals[i].refs > 0 ? &keyvals[i] : NULL;
}

static void kv_unref(int keyval)
{
    keyval_t *k = kv_get(keyval);
    if (k)
        k->refs--;
}

int fy_keyval_valid(int keyval)
{
    return kv_get(keyval) != NULL;
}

int fy_keyval_create_kind(fy_attr_kind_t kind, MPI_Comm_copy_attr_function *copy,
                          MPI_Comm_delete_attr_function *del, void *extra, int *keyval_p)
{
    if (nkeyvals == capkeyvals) {
        int ncap = capkeyvals ? capkeyvals * 2 : 16;
        keyval_t *n = realloc(keyvals, sizeof *n * (size_t)ncap);
        if (!n)
            return fy_err_set(MPI_ERR_NO_MEM, "MPI_Comm_create_keyval: out of memory");
        keyvals = n;
        capkeyvals = ncap;
    }
    keyvals[nkeyvals] = (keyval_t){copy, del, extra, 1, kind};
    *keyval_p = fy_handle_make(FY_HKIND_DIRECT, FY_HCLASS_KEYVAL, (unsigned)nkeyvals);
    nkeyvals++;
    return MPI_SUCCESS;
}

int fy_keyval_create(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del,
                     void *extra, int *keyval_p)
{
    return fy_keyval_create_kind(FY_ATTR_COMM, copy, del, extra, keyval_p);
}

int fy_keyval_free(int keyval)
{
    if (!kv_get(keyval))
        return fy_err_set(MPI_ERR_KEYVAL, "MPI_Comm_free_keyval: invalid keyval 0x%x",
                          (unsigned)keyval);
    kv_unref(keyval);
    return MPI_SUCCESS;
}

static fy_attr_t **find(void **list, int keyval)
{
    fy_attr_t **p = (fy_attr_t **)list;
    while (*p && (*p)->keyval != keyval)
        p = &(*p)->next;
    return p;
}

static int call_delete(int obj, fy_attr_t *a)
{
    keyval_t *k = &keyvals[fy_handle_index(a->keyval)];
    if (k->del) {
        int rc = k->del(obj, a->keyval, a->value, k->extra);
        /* The callback's own code is the call's error: a class gets a message saying where
         * it came from; a code (one with a message, or the user's) is passed on as it is. */
        if (rc != MPI_SUCCESS && rc > 0 && rc <= 0xff)
            return fy_err_set(rc, "attribute delete callback for keyval 0x%x returned %d",
                              (unsigned)a->keyval, rc);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static keyval_t *kv_of_kind(const char *fn, int keyval, fy_attr_kind_t kind)
{
    keyval_t *k = kv_get(keyval);
    if (!k) {
        fy_err_set(MPI_ERR_KEYVAL, "%s: invalid keyval 0x%x", fn, (unsigned)keyval);
        return NULL;
    }
    if (k->kind != kind) {
        fy_err_set(MPI_ERR_KEYVAL, "%s: keyval 0x%x was made for another kind of object", fn,
                   (unsigned)keyval);
        return NULL;
    }
    return k;
}

int fy_attrs_set(const char *fn, fy_attr_kind_t kind, void **list, int obj, int keyval, void *value)
{
    keyval_t *k = kv_of_kind(fn, keyval, kind);
    if (!k)
        return MPI_ERR_KEYVAL;
    fy_attr_t **p = find(list, keyval);
    if (*p) { /* replacing runs the delete callback on the old value */
        int rc = call_delete(obj, *p);
        if (rc != MPI_SUCCESS)
            return rc;
        (*p)->value = value;
        return MPI_SUCCESS;
    }
    fy_attr_t *a = malloc(sizeof *a);
    if (!a)
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *a = (fy_attr_t){keyval, value, NULL};
    *p = a;
    k->refs++;
    return MPI_SUCCESS;
}

int fy_attrs_get(const char *fn, fy_attr_kind_t kind, void **list, int keyval, void **value,
                 int *found)
{
    if (!kv_of_kind(fn, keyval, kind))
        return MPI_ERR_KEYVAL;
    fy_attr_t *a = *find(list, keyval);
    *found = a != NULL;
    if (a)
        *value = a->value;
    return MPI_SUCCESS;
}

/* The attribute leaves the list before its callback runs: the callback may delete or set
 * other attributes of the same object (libraries chain cleanups that way, MPI_Finalize's hook on
 * MPI_COMM_SELF included), which must not find it half removed. A failing callback leaves it
 * attached, at the head of the list, and its error is the call's. */
int fy_attrs_delete(const char *fn, fy_attr_kind_t kind, void **list, int obj, int keyval)
{
    if (!kv_of_kind(fn, keyval, kind))
        return MPI_ERR_KEYVAL;
    fy_attr_t **p = find(list, keyval);
    if (!*p) /* nothing to delete: not an error (MPICH agrees; libraries delete defensively) */
        return MPI_SUCCESS;
    fy_attr_t *a = *p;
    *p = a->next;
    int rc = call_delete(obj, a);
    if (rc != MPI_SUCCESS) {
        a->next = *list;
        *list = a;
        return rc;
    }
    kv_unref(a->keyval);
    free(a);
    return MPI_SUCCESS;
}

int fy_attrs_dup(const char *fn, void **from, int from_obj, void **to)
{
    *to = NULL;
    for (fy_attr_t *a = *from; a; a = a->next) {
        keyval_t *k = &keyvals[fy_handle_index(a->keyval)];
        if (!k->copy)
            continue;
        void *out = NULL;
        int flag = 0;
        int rc = k->copy(from_obj, a->keyval, k->extra, a->value, &out, &flag);
        if (rc != MPI_SUCCESS)
            return fy_err_set(rc & 0xff, "%s: attribute copy callback returned %d", fn, rc);
        if (flag && (rc = fy_attrs_set(fn, k->kind, to, 0, a->keyval, out)) != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Newest first, each unlinked before its callback runs (see fy_attrs_delete). The first
 * failing callback stops the walk: its attribute and the older ones stay, and its error is
 * returned, so that the free that asked can fail and leave the object usable. */
int fy_attrs_delete_all(void **list, int obj)
{
    while (*list) { /* find the newest each time: callbacks may change the list (it is short) */
        fy_attr_t **p = (fy_attr_t **)list;
        while ((*p)->next)
            p = &(*p)->next;
        fy_attr_t *a = *p;
        *p = NULL;
        int rc = call_delete(obj, a);
        if (rc != MPI_SUCCESS) {
            fy_attr_t **tail = (fy_attr_t **)list;
            while (*tail)
                tail = &(*tail)->next;
            *tail = a; /* back at the tail: still the newest */
            return rc;
        }
        kv_unref(a->keyval);
        free(a);
    }
    return MPI_SUCCESS;
}

int fy_attrs_delete_all_anyway(void **list, int obj)
{
    int first = MPI_SUCCESS;
    for (;;) {
        int rc = fy_attrs_delete_all(list, obj);
        if (rc == MPI_SUCCESS)
            return first;
        if (first == MPI_SUCCESS)
            first = rc;
        fy_attr_t **p = (fy_attr_t **)list; /* the failing one is back at the tail */
        while ((*p)->next)
            p = &(*p)->next;
        fy_attr_t *a = *p;
        *p = NULL;
        kv_unref(a->keyval);
        free(a);
    }
}

int fy_attr_set(fy_comm_t *c, int keyval, void *value)
{
    return fy_attrs_set("MPI_Comm_set_attr", FY_ATTR_COMM, &c->attrs, c->handle, keyval, value);
}

int fy_attr_get(fy_comm_t *c, int keyval, void **value, int *found)
{
    return fy_attrs_get("MPI_Comm_get_attr", FY_ATTR_COMM, &c->attrs, keyval, value, found);
}

int fy_attr_delete(fy_comm_t *c, int keyval)
{
    return fy_attrs_delete("MPI_Comm_delete_attr", FY_ATTR_COMM, &c->attrs, c->handle, keyval);
}

int fy_attr_dup(fy_comm_t *from, fy_comm_t *to)
{
    return fy_attrs_dup("MPI_Comm_dup", &from->attrs, from->handle, &to->attrs);
}

int fy_attr_delete_all(fy_comm_t *c)
{
    return fy_attrs_delete_all(&c->attrs, c->handle);
}

int fy_attr_delete_all_anyway(fy_comm_t *c)
{
    return fy_attrs_delete_all_anyway(&c->attrs, c->handle);
}

void fy_keyval_fini(void)
{
    free(keyvals);
    keyvals = NULL;
    nkeyvals = capkeyvals = 0;
}
