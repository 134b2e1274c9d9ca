/* Attribute keys (keyvals) and the attributes hung on communicators and datatypes. Keyvals made by
 * the user carry copy and delete callbacks, run at MPI_Comm_dup and at free/delete. */
#ifndef FY_ATTR_H
#define FY_ATTR_H

#include "fy_comm.h"

typedef struct fy_attr {
    int keyval;
    void *value;
    struct fy_attr *next; /* in order of setting */
} fy_attr_t;

/* Keyvals belong to one kind of object. */
typedef enum { FY_ATTR_COMM = 1, FY_ATTR_TYPE, FY_ATTR_WIN } fy_attr_kind_t;

/* Attribute lists of any object: `list` is the object's list head, `obj` its handle (passed to
 * the callbacks), `fn` the MPI call for messages. */
int fy_attrs_set(const char *fn, fy_attr_kind_t kind, void **list, int obj, int keyval,
                 void *value);
int fy_attrs_get(const char *fn, fy_attr_kind_t kind, void **list, int keyval, void **value,
                 int *found);
int fy_attrs_delete(const char *fn, fy_attr_kind_t kind, void **list, int obj, int keyval);
int fy_attrs_dup(const char *fn, void **from, int from_obj, void **to);
/* Newest first; stops at the first failing delete callback and returns its error, leaving that
 * attribute and the older ones attached (for frees that fail and keep the object). */
int fy_attrs_delete_all(void **list, int obj);
/* The same, but an attribute whose callback fails is dropped and the walk goes on: for objects
 * that go away whatever happens (MPI_Finalize, internal releases). The first error is returned. */
int fy_attrs_delete_all_anyway(void **list, int obj);
int fy_keyval_create_kind(fy_attr_kind_t kind, MPI_Comm_copy_attr_function *copy,
                          MPI_Comm_delete_attr_function *del, void *extra, int *keyval_p);

int fy_keyval_create(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del,
                     void *extra, int *keyval_p);
int fy_keyval_free(int keyval);
int fy_keyval_valid(int keyval);

int fy_attr_set(fy_comm_t *c, int keyval, void *value);
/* *found is 0 when the attribute is not set. */
int fy_attr_get(fy_comm_t *c, int keyval, void **value, int *found);
int fy_attr_delete(fy_comm_t *c, int keyval);
/* Copies every attribute of `from` whose copy callback asks for it into `to`. */
int fy_attr_dup(fy_comm_t *from, fy_comm_t *to);
/* Deletes all attributes, newest first (MPI_Finalize on MPI_COMM_SELF relies on the order),
 * as fy_attrs_delete_all. */
int fy_attr_delete_all(fy_comm_t *c);
/* As fy_attrs_delete_all_anyway. */
int fy_attr_delete_all_anyway(fy_comm_t *c);
void fy_keyval_fini(void);

#endif
