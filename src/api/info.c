/* Info objects: MPI_Info_create/_create_env/_set/_get/_get_string/_get_valuelen/_delete/
 * _get_nkeys/_get_nthkey/_dup/_free. Allowed before MPI_Init and after MPI_Finalize (MPI-4), so
 * none of them checks that MPI is running; errors are raised on MPI_COMM_SELF.
 *
 * Keys are 1..MPI_MAX_INFO_KEY - 1 characters, so that every key fits, with its terminator, in
 * the MPI_MAX_INFO_KEY characters MPI_Info_get_nthkey may write (it takes no length, and MPICH,
 * whose ABI Ferry follows, fills at most that many; it accepts one more character and then
 * returns such a key cut short). Values are 0..MPI_MAX_INFO_VAL characters: every call that
 * returns one is told the room there is. */
#include <string.h>

#include "fy_api.h"
#include "fy_info.h"

static int finish(int rc)
{
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

static int get_info(const char *fn, MPI_Info h, fy_info_t **i_p)
{
    fy_info_t *i = fy_info_get(h);
    if (i) {
        *i_p = i;
        return MPI_SUCCESS;
    }
    if (h == MPI_INFO_NULL)
        return fy_err_set(MPI_ERR_INFO, "%s: invalid info MPI_INFO_NULL", fn);
    return fy_err_set(MPI_ERR_INFO, "%s: invalid info 0x%x (freed, or not an info object)", fn,
                      (unsigned)h);
}

/* An info the call may change: not MPI_INFO_ENV, which is shared and read-only. */
static int get_info_rw(const char *fn, MPI_Info h, fy_info_t **i_p)
{
    if (fy_info_is_env(h))
        return fy_err_set(MPI_ERR_INFO, "%s: MPI_INFO_ENV is read-only (MPI_Info_dup it first)",
                          fn);
    return get_info(fn, h, i_p);
}

static int check_key(const char *fn, const char *key)
{
    if (!key)
        return fy_err_set(MPI_ERR_INFO_KEY, "%s: key is NULL", fn);
    size_t n = strlen(key);
    if (n == 0)
        return fy_err_set(MPI_ERR_INFO_KEY, "%s: key is empty", fn);
    if (n >= MPI_MAX_INFO_KEY)
        return fy_err_set(MPI_ERR_INFO_KEY,
                          "%s: key \"%.32s...\" has %zu characters; keys have at most "
                          "MPI_MAX_INFO_KEY - 1 (%d)",
                          fn, key, n, MPI_MAX_INFO_KEY - 1);
    return MPI_SUCCESS;
}

static int check_value(const char *fn, const char *key, const char *value)
{
    if (!value)
        return fy_err_set(MPI_ERR_INFO_VALUE, "%s: value for key \"%s\" is NULL", fn, key);
    size_t n = strlen(value);
    if (n > MPI_MAX_INFO_VAL)
        return fy_err_set(MPI_ERR_INFO_VALUE,
                          "%s: value for key \"%s\" has %zu characters, more than "
                          "MPI_MAX_INFO_VAL (%d)",
                          fn, key, n, MPI_MAX_INFO_VAL);
    return MPI_SUCCESS;
}

static int publish(const char *fn, fy_info_t *i, MPI_Info *h_p)
{
    if (!i)
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    int rc = fy_info_publish(i, h_p); /* frees i on failure */
    if (rc != MPI_SUCCESS)
        fy_err_set(rc, "%s: out of memory", fn);
    return rc;
}

int PMPI_Info_create(MPI_Info *info)
{
    if (!info)
        return finish(fy_err_set(MPI_ERR_ARG, "MPI_Info_create: info is NULL"));
    fy_lock();
    int rc = publish("MPI_Info_create", fy_info_new(), info);
    fy_unlock();
    return finish(rc);
}

int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    const char *fn = "MPI_Info_create_env";
    if (!info)
        return finish(fy_err_set(MPI_ERR_ARG, "%s: info is NULL", fn));
    if (argc < 0)
        return finish(fy_err_set(MPI_ERR_ARG, "%s: invalid argc %d", fn, argc));
    fy_lock();
    int rc = publish(fn, fy_info_env_new(argc, argv), info);
    fy_unlock();
    return finish(rc);
}

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    const char *fn = "MPI_Info_set";
    fy_info_t *i = NULL;
    fy_lock();
    int rc = get_info_rw(fn, info, &i);
    if (rc == MPI_SUCCESS)
        rc = check_key(fn, key);
    if (rc == MPI_SUCCESS)
        rc = check_value(fn, key, value);
    if (rc == MPI_SUCCESS && (rc = fy_info_set(i, key, value)) != MPI_SUCCESS)
        fy_err_set(rc, "%s: out of memory", fn);
    fy_unlock();
    return finish(rc);
}

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    const char *fn = "MPI_Info_delete";
    fy_info_t *i = NULL;
    fy_lock();
    int rc = get_info_rw(fn, info, &i);
    if (rc == MPI_SUCCESS)
        rc = check_key(fn, key);
    if (rc == MPI_SUCCESS && !fy_info_delete(i, key))
        rc = fy_err_set(MPI_ERR_INFO_NOKEY, "%s: key \"%s\" is not in the info", fn, key);
    fy_unlock();
    return finish(rc);
}

/* Looks key up for the getters: *v_p is NULL when the key is absent. */
static int lookup(const char *fn, MPI_Info info, const char *key, int *flag, const char **v_p)
{
    fy_info_t *i = NULL;
    int rc = get_info(fn, info, &i);
    if (rc == MPI_SUCCESS)
        rc = check_key(fn, key);
    if (rc == MPI_SUCCESS && !flag)
        rc = fy_err_set(MPI_ERR_ARG, "%s: flag is NULL", fn);
    if (rc != MPI_SUCCESS)
        return rc;
    int k = fy_info_find(i, key);
    *v_p = k >= 0 ? i->kv[k].value : NULL;
    return MPI_SUCCESS;
}

/* Deprecated in MPI-4 for MPI_Info_get_string: value receives at most valuelen characters and
 * a terminator. */
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    const char *fn = "MPI_Info_get", *v;
    fy_lock();
    int rc = lookup(fn, info, key, flag, &v);
    if (rc == MPI_SUCCESS && valuelen < 0)
        rc = fy_err_set(MPI_ERR_ARG, "%s: invalid valuelen %d", fn, valuelen);
    if (rc == MPI_SUCCESS && v && !value)
        rc = fy_err_set(MPI_ERR_ARG, "%s: value is NULL", fn);
    if (rc == MPI_SUCCESS) {
        *flag = v != NULL;
        if (v) {
            size_t n = strlen(v);
            if (n > (size_t)valuelen)
                n = (size_t)valuelen;
            memcpy(value, v, n);
            value[n] = '\0';
        }
    }
    fy_unlock();
    return finish(rc);
}

/* MPI-4: *buflen is the buffer's size in, the value's size with its terminator out; a value
 * that does not fit is cut to *buflen - 1 characters, terminated. *buflen 0 copies nothing. When
 * the key is absent, *flag is false and value and *buflen are left alone. */
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    const char *fn = "MPI_Info_get_string", *v;
    fy_lock();
    int rc = lookup(fn, info, key, flag, &v);
    if (rc == MPI_SUCCESS && !buflen)
        rc = fy_err_set(MPI_ERR_ARG, "%s: buflen is NULL", fn);
    else if (rc == MPI_SUCCESS && *buflen < 0)
        rc = fy_err_set(MPI_ERR_ARG, "%s: invalid buflen %d", fn, *buflen);
    else if (rc == MPI_SUCCESS && *buflen > 0 && v && !value)
        rc = fy_err_set(MPI_ERR_ARG, "%s: value is NULL with buflen %d", fn, *buflen);
    if (rc == MPI_SUCCESS) {
        *flag = v != NULL;
        if (v) {
            size_t n = strlen(v);
            if (*buflen > 0) {
                size_t m = n < (size_t)*buflen - 1 ? n : (size_t)*buflen - 1;
                memcpy(value, v, m);
                value[m] = '\0';
            }
            *buflen = (int)n + 1;
        }
    }
    fy_unlock();
    return finish(rc);
}

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    const char *fn = "MPI_Info_get_valuelen", *v;
    fy_lock();
    int rc = lookup(fn, info, key, flag, &v);
    if (rc == MPI_SUCCESS && !valuelen)
        rc = fy_err_set(MPI_ERR_ARG, "%s: valuelen is NULL", fn);
    if (rc == MPI_SUCCESS) {
        *flag = v != NULL;
        if (v)
            *valuelen = (int)strlen(v);
    }
    fy_unlock();
    return finish(rc);
}

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    const char *fn = "MPI_Info_get_nkeys";
    fy_info_t *i = NULL;
    fy_lock();
    int rc = get_info(fn, info, &i);
    if (rc == MPI_SUCCESS && !nkeys)
        rc = fy_err_set(MPI_ERR_ARG, "%s: nkeys is NULL", fn);
    if (rc == MPI_SUCCESS)
        *nkeys = i->n;
    fy_unlock();
    return finish(rc);
}

/* Keys are numbered 0..nkeys-1 in the order they were first set. */
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    const char *fn = "MPI_Info_get_nthkey";
    fy_info_t *i = NULL;
    fy_lock();
    int rc = get_info(fn, info, &i);
    if (rc == MPI_SUCCESS && (n < 0 || n >= i->n))
        rc = i->n ? fy_err_set(MPI_ERR_ARG, "%s: invalid n %d (the info has %d keys: 0..%d)", fn, n,
                               i->n, i->n - 1)
                  : fy_err_set(MPI_ERR_ARG, "%s: invalid n %d (the info has no keys)", fn, n);
    if (rc == MPI_SUCCESS && !key)
        rc = fy_err_set(MPI_ERR_ARG, "%s: key is NULL", fn);
    if (rc == MPI_SUCCESS)
        strcpy(key, i->kv[n].key);
    fy_unlock();
    return finish(rc);
}

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    const char *fn = "MPI_Info_dup";
    fy_info_t *i = NULL;
    fy_lock();
    int rc = get_info(fn, info, &i);
    if (rc == MPI_SUCCESS && !newinfo)
        rc = fy_err_set(MPI_ERR_ARG, "%s: newinfo is NULL", fn);
    if (rc == MPI_SUCCESS)
        rc = publish(fn, fy_info_dup(i), newinfo);
    fy_unlock();
    return finish(rc);
}

int PMPI_Info_free(MPI_Info *info)
{
    const char *fn = "MPI_Info_free";
    fy_info_t *i = NULL;
    if (!info)
        return finish(fy_err_set(MPI_ERR_ARG, "%s: info is NULL", fn));
    if (fy_info_is_env(*info))
        return finish(fy_err_set(MPI_ERR_INFO, "%s: cannot free the predefined MPI_INFO_ENV", fn));
    fy_lock();
    int rc = get_info(fn, *info, &i);
    if (rc == MPI_SUCCESS) {
        fy_info_unpublish(i);
        *info = MPI_INFO_NULL;
    }
    fy_unlock();
    return finish(rc);
}
