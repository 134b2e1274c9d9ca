/* MPI_T: initialisation, control variables (the knob table, fy_knobs.h), enumerations,
 * categories, and the event interface, which has no events to offer. Reference counted:
 * usable before MPI_Init and after MPI_Finalize. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "fy_knobs.h"
#include "fy_runtime.h"
#include "fy_select.h"
#include "mpit.h"

pthread_mutex_t fy_mpit_lock = PTHREAD_MUTEX_INITIALIZER;
static int refcount;

int fy_mpit_enter(void)
{
    pthread_mutex_lock(&fy_mpit_lock);
    if (refcount == 0)
        return fy_mpit_leave(MPI_T_ERR_NOT_INITIALIZED);
    return MPI_SUCCESS;
}

void fy_mpit_str(const char *s, char *buf, int *len)
{
    if (!len)
        return;
    int need = (int)strlen(s) + 1;
    if (!buf || *len <= 0) {
        *len = need;
        return;
    }
    int n = need < *len ? need : *len;
    memcpy(buf, s, (size_t)n - 1);
    buf[n - 1] = '\0';
    *len = n;
}

/* ---- Enumerations: FERRY_WAIT, FERRY_RNDV, and each FERRY_COLL_<NAME> ("auto" + its names) - */

enum { ENUM_ALGO_MAX = FY_SELECT_MAX_ROWS + 1 };
struct fy_t_enum_s {
    char name[48];
    int n;
    const char *items[ENUM_ALGO_MAX];
};
static struct fy_t_enum_s enums[FY_KNOB_N]; /* by knob id; n == 0: the knob has none */

static void enums_build(void)
{
    for (int id = 0; id < FY_KNOB_N; id++) {
        const fy_knob_t *k = &fy_knobs[id];
        struct fy_t_enum_s *e = &enums[id];
        e->n = 0;
        snprintf(e->name, sizeof e->name, "%s", k->name);
        if (k->kind == FY_KNOB_WORD) {
            while (k->words[e->n] && e->n < ENUM_ALGO_MAX) {
                e->items[e->n] = k->words[e->n];
                e->n++;
            }
        } else if (k->kind == FY_KNOB_ALGO) {
            e->items[0] = "auto";
            e->n = 1 + fy_select_algos(id - FY_KNOB_COLL_FIRST, e->items + 1, ENUM_ALGO_MAX - 1);
        }
    }
}

static struct fy_t_enum_s *enum_get(MPI_T_enum h)
{
    for (int id = 0; id < FY_KNOB_N; id++)
        if (h == &enums[id] && enums[id].n > 0)
            return &enums[id];
    return NULL;
}

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    struct fy_t_enum_s *e = enum_get(enumtype);
    if (!e)
        return fy_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    if (num)
        *num = e->n;
    fy_mpit_str(e->name, name, name_len);
    return fy_mpit_leave(MPI_SUCCESS);
}

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    struct fy_t_enum_s *e = enum_get(enumtype);
    if (!e)
        return fy_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    if (indx < 0 || indx >= e->n)
        return fy_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (value)
        *value = indx;
    fy_mpit_str(e->items[indx], name, name_len);
    return fy_mpit_leave(MPI_SUCCESS);
}

/* ---- Initialisation ----------------------------------------------------------------------- */

int PMPI_T_init_thread(int required, int *provided)
{
    pthread_mutex_lock(&fy_mpit_lock);
    if (refcount++ == 0) {
        enums_build();
        fy_mpit_pvar_init();
    }
    /* Every MPI_T call takes fy_mpit_lock: any thread level is safe. */
    if (provided)
        *provided = required < MPI_THREAD_SINGLE     ? MPI_THREAD_SINGLE
                    : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                     : required;
    pthread_mutex_unlock(&fy_mpit_lock);
    return MPI_SUCCESS;
}

static void cvar_handles_free(void);

int PMPI_T_finalize(void)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (--refcount == 0) {
        cvar_handles_free();
        fy_mpit_pvar_fini();
    }
    return fy_mpit_leave(MPI_SUCCESS);
}

/* ---- Control variables: one per knob, index = knob id --------------------------------------- */

static MPI_Datatype cvar_type(int id)
{
    int kind = fy_knobs[id].kind;
    return kind == FY_KNOB_NUMBER ? MPI_LONG_LONG : kind == FY_KNOB_TEXT ? MPI_CHAR : MPI_INT;
}

int PMPI_T_cvar_get_num(int *num_cvar)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_cvar)
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    *num_cvar = FY_KNOB_N;
    return fy_mpit_leave(MPI_SUCCESS);
}

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (cvar_index < 0 || cvar_index >= FY_KNOB_N)
        return fy_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    const fy_knob_t *k = &fy_knobs[cvar_index];
    fy_mpit_str(k->name, name, name_len);
    fy_mpit_str(k->desc, desc, desc_len);
    if (verbosity)
        *verbosity = k->verbosity;
    if (datatype)
        *datatype = cvar_type(cvar_index);
    if (enumtype)
        *enumtype = enums[cvar_index].n ? &enums[cvar_index] : MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = k->scope;
    return fy_mpit_leave(MPI_SUCCESS);
}

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !cvar_index)
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    for (int id = 0; id < FY_KNOB_N; id++)
        if (strcmp(fy_knobs[id].name, name) == 0) {
            *cvar_index = id;
            return fy_mpit_leave(MPI_SUCCESS);
        }
    return fy_mpit_leave(MPI_T_ERR_INVALID_NAME);
}

struct fy_t_cvar_handle_s {
    struct fy_t_cvar_handle_s *next;
    int id;
};
static struct fy_t_cvar_handle_s *cvar_handles; /* the live ones: a freed handle is refused */

static void cvar_handles_free(void)
{
    while (cvar_handles) {
        struct fy_t_cvar_handle_s *h = cvar_handles;
        cvar_handles = h->next;
        free(h);
    }
}

static struct fy_t_cvar_handle_s *cvar_handle_get(MPI_T_cvar_handle h)
{
    for (struct fy_t_cvar_handle_s *c = cvar_handles; c; c = c->next)
        if (c == h)
            return c;
    return NULL;
}

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    (void)obj_handle; /* every cvar binds to no object */
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (cvar_index < 0 || cvar_index >= FY_KNOB_N)
        return fy_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count)
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    struct fy_t_cvar_handle_s *h = malloc(sizeof *h);
    if (!h)
        return fy_mpit_leave(MPI_T_ERR_MEMORY);
    h->id = cvar_index;
    h->next = cvar_handles;
    cvar_handles = h;
    *handle = h;
    *count = fy_knobs[cvar_index].kind == FY_KNOB_TEXT ? FY_KNOB_TEXT_MAX : 1;
    return fy_mpit_leave(MPI_SUCCESS);
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!handle || !cvar_handle_get(*handle))
        return fy_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    for (struct fy_t_cvar_handle_s **p = &cvar_handles; *p; p = &(*p)->next)
        if (*p == *handle) {
            *p = (*handle)->next;
            break;
        }
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return fy_mpit_leave(MPI_SUCCESS);
}

/* An ALGO knob's value as an item of its enumeration: 0 "auto", else 1 + the name's place. */
static int algo_item(int id)
{
    const char *t = fy_knob_text(id);
    const struct fy_t_enum_s *e = &enums[id];
    for (int i = 1; t && i < e->n; i++)
        if (strcasecmp(e->items[i], t) == 0)
            return i;
    return 0;
}

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    struct fy_t_cvar_handle_s *h = cvar_handle_get(handle);
    if (!h)
        return fy_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    if (!buf)
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    const fy_knob_t *k = &fy_knobs[h->id];
    if (k->kind == FY_KNOB_NUMBER)
        *(long long *)buf = fy_knob_value(h->id);
    else if (k->kind == FY_KNOB_WORD)
        *(int *)buf = (int)fy_knob_value(h->id);
    else if (k->kind == FY_KNOB_TEXT)
        snprintf(buf, FY_KNOB_TEXT_MAX, "%s", fy_knob_text(h->id) ? fy_knob_text(h->id) : "");
    else
        *(int *)buf = algo_item(h->id);
    return fy_mpit_leave(MPI_SUCCESS);
}

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    struct fy_t_cvar_handle_s *h = cvar_handle_get(handle);
    if (!h)
        return fy_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    if (!buf)
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    const fy_knob_t *k = &fy_knobs[h->id];
    /* A knob reread while the library runs changes the runtime's state: under its lock. */
    fy_lock();
    if (k->kind == FY_KNOB_NUMBER) {
        rc = fy_knob_write(h->id, (long)*(const long long *)buf);
    } else if (k->kind == FY_KNOB_TEXT) {
        char text[FY_KNOB_TEXT_MAX];
        snprintf(text, sizeof text, "%s", (const char *)buf);
        rc = fy_knob_write_text(h->id, text);
    } else {
        int v = *(const int *)buf;
        if (v < 0 || v >= enums[h->id].n)
            rc = MPI_T_ERR_INVALID;
        else if (k->kind == FY_KNOB_WORD)
            rc = fy_knob_write(h->id, v);
        else
            rc = fy_knob_write_text(h->id, v == 0 ? "" : enums[h->id].items[v]);
    }
    fy_unlock();
    return fy_mpit_leave(rc);
}

/* ---- Categories ------------------------------------------------------------------------------ */

typedef struct {
    char name[48];
    const char *desc;
    int knob_group; /* the knobs it holds (-1: none) */
    int parent;     /* -1: the root */
    int coll;       /* FY_TCAT_COLL_ONE: the collective; -1 otherwise */
} category_t;

enum { NCAT = FY_TCAT_COLL_ONE + FY_COLL_NTABLES };
static category_t cats[NCAT];

static void cats_build(void)
{
    static const category_t fixed[FY_TCAT_COLL_ONE] = {
        [FY_TCAT_ROOT] = {"ferry", "everything Ferry shows through MPI_T", -1, -1, -1},
        [FY_TCAT_WAIT] = {"ferry_wait", "how ranks wait, and the time they spend waiting",
                          FY_KGROUP_WAIT, FY_TCAT_ROOT, -1},
        [FY_TCAT_P2P] = {"ferry_p2p", "point-to-point protocols: eager, rendezvous, queues",
                         FY_KGROUP_P2P, FY_TCAT_ROOT, -1},
        [FY_TCAT_SELF] = {"ferry_transport_self", "messages a process sends itself", -1,
                          FY_TCAT_P2P, -1},
        [FY_TCAT_SHM] = {"ferry_transport_shm", "the shared-memory transport (rings, fences)",
                         FY_KGROUP_SHM, FY_TCAT_P2P, -1},
        [FY_TCAT_TCP] = {"ferry_transport_tcp", "the TCP transport between hosts (network, "
                         "buffers, eager limit)", FY_KGROUP_TCP, FY_TCAT_P2P, -1},
        [FY_TCAT_COLL] = {"ferry_coll", "collectives: shared-memory slots, tracing, algorithms",
                          FY_KGROUP_COLL, FY_TCAT_ROOT, -1},
    };
    memcpy(cats, fixed, sizeof fixed);
    for (int c = 0; c < FY_COLL_NTABLES; c++) {
        category_t *k = &cats[FY_TCAT_COLL_ONE + c];
        size_t n = (size_t)snprintf(k->name, sizeof k->name, "ferry_coll_%s",
                                    fy_select_coll_name(c));
        for (size_t i = 0; i < n && i < sizeof k->name; i++)
            k->name[i] = (char)tolower((unsigned char)k->name[i]);
        k->desc = "one collective: its algorithm knob and how often each algorithm ran here";
        k->knob_group = -1;
        k->parent = FY_TCAT_COLL;
        k->coll = c;
    }
}

static bool knob_in(int id, int cat)
{
    if (cats[cat].coll >= 0)
        return id == FY_KNOB_COLL_FIRST + cats[cat].coll;
    return cats[cat].knob_group >= 0 && fy_knobs[id].group == cats[cat].knob_group;
}

/* Fills up to len indices of what category cat holds; returns how many it holds. */
static int cat_members(int cat, int what, int len, int *out)
{
    int n = 0;
    if (what == 0) {
        for (int id = 0; id < FY_KNOB_N; id++)
            if (knob_in(id, cat) && (n++ < len))
                out[n - 1] = id;
    } else if (what == 1) {
        for (int p = 0; p < fy_mpit_pvar_count(); p++)
            if (fy_mpit_pvar_category(p) == cat && (n++ < len))
                out[n - 1] = p;
    } else {
        for (int c = 0; c < NCAT; c++)
            if (cats[c].parent == cat && c != cat && (n++ < len))
                out[n - 1] = c;
    }
    return n;
}

static int cat_enter(int cat)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!cats[0].name[0])
        cats_build();
    if (cat < 0 || cat >= NCAT)
        return fy_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    return MPI_SUCCESS;
}

int PMPI_T_category_get_num(int *num_cat)
{
    int rc = cat_enter(0);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_cat)
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    *num_cat = NCAT;
    return fy_mpit_leave(MPI_SUCCESS);
}

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories)
{
    int rc = cat_enter(cat_index);
    if (rc != MPI_SUCCESS)
        return rc;
    fy_mpit_str(cats[cat_index].name, name, name_len);
    fy_mpit_str(cats[cat_index].desc, desc, desc_len);
    if (num_cvars)
        *num_cvars = cat_members(cat_index, 0, 0, NULL);
    if (num_pvars)
        *num_pvars = cat_members(cat_index, 1, 0, NULL);
    if (num_categories)
        *num_categories = cat_members(cat_index, 2, 0, NULL);
    return fy_mpit_leave(MPI_SUCCESS);
}

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    int rc = cat_enter(0);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !cat_index)
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    for (int c = 0; c < NCAT; c++)
        if (strcmp(cats[c].name, name) == 0) {
            *cat_index = c;
            return fy_mpit_leave(MPI_SUCCESS);
        }
    return fy_mpit_leave(MPI_T_ERR_INVALID_NAME);
}

static int cat_list(int cat, int what, int len, int indices[])
{
    int rc = cat_enter(cat);
    if (rc != MPI_SUCCESS)
        return rc;
    if (len < 0 || (len > 0 && !indices))
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    cat_members(cat, what, len, indices);
    return fy_mpit_leave(MPI_SUCCESS);
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return cat_list(cat_index, 0, len, indices);
}
int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return cat_list(cat_index, 1, len, indices);
}
int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    return cat_list(cat_index, 2, len, indices);
}

int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    int rc = cat_enter(cat_index);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_events)
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    *num_events = 0;
    return fy_mpit_leave(MPI_SUCCESS);
}

int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    (void)len;
    (void)indices; /* no events: nothing to fill */
    int rc = cat_enter(cat_index);
    return rc != MPI_SUCCESS ? rc : fy_mpit_leave(MPI_SUCCESS);
}

/* The variables and categories never change while the process lives: the number stays. */
int PMPI_T_category_changed(int *update_number)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!update_number)
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    *update_number = 1;
    return fy_mpit_leave(MPI_SUCCESS);
}
