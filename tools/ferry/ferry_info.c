/* `ferry info [--json]`: what this Ferry is and what it lets a user tune and observe, read
 * through MPI_T before MPI_Init (so it runs without a launcher): the version and build, the
 * machine and its calibrated costs (ferry_machine.c), the thresholds, every control variable
 * (one per FERRY_* knob) with its value and description, every performance variable, and the
 * categories as a tree. A number knob whose default is chosen at MPI_Init
 * reads -1 before it and is shown as "auto". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry.h"

typedef struct {
    char name[128], desc[1024];
    int verbosity, scope, bind, cls, readonly, continuous, atomic;
    MPI_Datatype dt;
    MPI_T_enum et;
    char value[128];
    char items[512]; /* enum items, space-separated */
    int cat;
} var_t;

typedef struct {
    char name[128], desc[512];
    int ncvars, npvars, ncats;
    int *cvars, *pvars, *cats;
    int parent;
} cat_t;

static int ncvar, npvar, ncat;
static var_t *cvars, *pvars;
static cat_t *cats;

static const char *scope_name(int s)
{
    switch (s) {
    case MPI_T_SCOPE_CONSTANT: return "constant";
    case MPI_T_SCOPE_READONLY: return "readonly";
    case MPI_T_SCOPE_LOCAL: return "local";
    case MPI_T_SCOPE_GROUP: return "group";
    case MPI_T_SCOPE_GROUP_EQ: return "group_eq";
    case MPI_T_SCOPE_ALL: return "all";
    case MPI_T_SCOPE_ALL_EQ: return "all_eq";
    }
    return "?";
}

static const char *verbosity_name(int v)
{
    static const char *const n[] = {"user basic",   "user detail",   "user all",
                                    "tuner basic",  "tuner detail",  "tuner all",
                                    "mpidev basic", "mpidev detail", "mpidev all"};
    int i = v - MPI_T_VERBOSITY_USER_BASIC;
    return i >= 0 && i < 9 ? n[i] : "?";
}

static const char *class_name(int c)
{
    static const char *const n[] = {"state", "level",     "size",  "percentage", "highwatermark",
                                    "lowwatermark", "counter", "aggregate", "timer", "generic"};
    int i = c - MPI_T_PVAR_CLASS_STATE;
    return i >= 0 && i < 10 ? n[i] : "?";
}

static const char *type_name(MPI_Datatype dt)
{
    if (dt == MPI_INT)
        return "int";
    if (dt == MPI_LONG_LONG)
        return "long long";
    if (dt == MPI_UNSIGNED_LONG_LONG)
        return "unsigned long long";
    if (dt == MPI_DOUBLE)
        return "double";
    return "?";
}

static int check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ferry info: %s failed (MPI_T error %d)\n", what, rc);
        exit(1);
    }
    return rc;
}

static void read_cvar(int i, var_t *v)
{
    int nl = sizeof v->name, dl = sizeof v->desc, count;
    check(MPI_T_cvar_get_info(i, v->name, &nl, &v->verbosity, &v->dt, &v->et, v->desc, &dl,
                              &v->bind, &v->scope),
          "MPI_T_cvar_get_info");
    MPI_T_cvar_handle h;
    check(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), "MPI_T_cvar_handle_alloc");
    long long ll = 0;
    int iv = 0;
    check(MPI_T_cvar_read(h, v->dt == MPI_INT ? (void *)&iv : (void *)&ll), "MPI_T_cvar_read");
    MPI_T_cvar_handle_free(&h);
    v->items[0] = '\0';
    if (v->et != MPI_T_ENUM_NULL) {
        int n = 0;
        check(MPI_T_enum_get_info(v->et, &n, NULL, NULL), "MPI_T_enum_get_info");
        size_t used = 0;
        for (int k = 0; k < n; k++) {
            char item[128];
            int il = sizeof item, val;
            check(MPI_T_enum_get_item(v->et, k, &val, item, &il), "MPI_T_enum_get_item");
            if (val == iv)
                snprintf(v->value, sizeof v->value, "%s", item);
            used += (size_t)snprintf(v->items + used, sizeof v->items - used, "%s%s",
                                     k ? " " : "", item);
            if (used >= sizeof v->items)
                used = sizeof v->items - 1;
        }
    } else if (v->dt == MPI_INT) {
        snprintf(v->value, sizeof v->value, "%d", iv);
    } else if (ll == -1) {
        snprintf(v->value, sizeof v->value, "auto");
    } else {
        snprintf(v->value, sizeof v->value, "%lld", ll);
    }
}

static void read_all(void)
{
    check(MPI_T_cvar_get_num(&ncvar), "MPI_T_cvar_get_num");
    check(MPI_T_pvar_get_num(&npvar), "MPI_T_pvar_get_num");
    check(MPI_T_category_get_num(&ncat), "MPI_T_category_get_num");
    cvars = calloc((size_t)ncvar + 1, sizeof *cvars);
    pvars = calloc((size_t)npvar + 1, sizeof *pvars);
    cats = calloc((size_t)ncat + 1, sizeof *cats);
    if (!cvars || !pvars || !cats) {
        fprintf(stderr, "ferry info: out of memory\n");
        exit(1);
    }
    for (int i = 0; i < ncvar; i++) {
        read_cvar(i, &cvars[i]);
        cvars[i].cat = -1;
    }
    for (int i = 0; i < npvar; i++) {
        var_t *v = &pvars[i];
        int nl = sizeof v->name, dl = sizeof v->desc;
        check(MPI_T_pvar_get_info(i, v->name, &nl, &v->verbosity, &v->cls, &v->dt, &v->et, v->desc,
                                  &dl, &v->bind, &v->readonly, &v->continuous, &v->atomic),
              "MPI_T_pvar_get_info");
        v->cat = -1;
    }
    for (int c = 0; c < ncat; c++)
        cats[c].parent = -1;
    for (int c = 0; c < ncat; c++) {
        cat_t *k = &cats[c];
        int nl = sizeof k->name, dl = sizeof k->desc;
        check(MPI_T_category_get_info(c, k->name, &nl, k->desc, &dl, &k->ncvars, &k->npvars,
                                      &k->ncats),
              "MPI_T_category_get_info");
        k->cvars = calloc((size_t)k->ncvars + 1, sizeof(int));
        k->pvars = calloc((size_t)k->npvars + 1, sizeof(int));
        k->cats = calloc((size_t)k->ncats + 1, sizeof(int));
        check(MPI_T_category_get_cvars(c, k->ncvars, k->cvars), "MPI_T_category_get_cvars");
        check(MPI_T_category_get_pvars(c, k->npvars, k->pvars), "MPI_T_category_get_pvars");
        check(MPI_T_category_get_categories(c, k->ncats, k->cats), "MPI_T_category_get_categories");
        for (int i = 0; i < k->ncvars; i++)
            cvars[k->cvars[i]].cat = c;
        for (int i = 0; i < k->npvars; i++)
            pvars[k->pvars[i]].cat = c;
        for (int i = 0; i < k->ncats; i++)
            cats[k->cats[i]].parent = c;
    }
}

static const var_t *find_cvar(const char *name)
{
    for (int i = 0; i < ncvar; i++)
        if (strcmp(cvars[i].name, name) == 0)
            return &cvars[i];
    return NULL;
}

/* ---- Text --------------------------------------------------------------------------------- */

static void print_tree(int c, int depth)
{
    printf("  %*s%s: %s (%d cvars, %d pvars)\n", 2 * depth, "", cats[c].name, cats[c].desc,
           cats[c].ncvars, cats[c].npvars);
    for (int i = 0; i < cats[c].ncats; i++)
        print_tree(cats[c].cats[i], depth + 1);
}

static const char *cat_name(int c)
{
    return c >= 0 ? cats[c].name : "-";
}

/* The knobs of waiting, point-to-point and shared memory, where the switch points and sizes
 * are (those reading "auto" are chosen at MPI_Init from the machine above). */
static void print_thresholds(void)
{
    printf("\nThresholds: the knobs of waiting, point-to-point and shared memory (\"auto\": "
           "chosen at MPI_Init from the machine above)\n");
    for (int i = 0; i < ncvar; i++) {
        const char *cat = cat_name(cvars[i].cat);
        if (strcmp(cat, "ferry_p2p") == 0 || strcmp(cat, "ferry_transport_shm") == 0 ||
            strcmp(cat, "ferry_wait") == 0)
            printf("  %s = %s%s\n", cvars[i].name, cvars[i].value,
                   getenv(cvars[i].name) ? " (from the environment)" : "");
    }
}

static void print_text(const char *library, int cma_on)
{
    int v, sv;
    MPI_Get_version(&v, &sv);
    printf("Ferry %s (MPI %d.%d)\n", FY_VERSION, v, sv);
    printf("  library:        %s\n", library);
    printf("  build type:     %s\n", FY_BUILD_TYPE);
    printf("  compiler:       %s\n", FY_BUILD_CC);
    printf("  sanitizers:     %s\n", FY_BUILD_SANITIZE ? "AddressSanitizer, UBSan" : "none");
    printf("  install prefix: %s\n", FY_BUILD_PREFIX);
    printf("  system:         %s\n", FY_BUILD_SYSTEM);
    printf("  transports:     self, shm (one host)\n");
    fy_tool_machine_text(cma_on);
    print_thresholds();
    printf("\nControl variables (%d): the FERRY_* environment knobs, with the value a program "
           "would start with here\n",
           ncvar);
    for (int i = 0; i < ncvar; i++) {
        const var_t *c = &cvars[i];
        const char *from = getenv(c->name) ? " (from the environment)" : "";
        printf("  %s = %s%s\n", c->name, c->value, from);
        if (c->items[0])
            printf("      one of: %s\n", c->items);
        printf("      %s\n", c->desc);
        printf("      type %s, scope %s, verbosity %s, category %s\n", type_name(c->dt),
               scope_name(c->scope), verbosity_name(c->verbosity), cat_name(c->cat));
    }
    printf("\nPerformance variables (%d)\n", npvar);
    for (int i = 0; i < npvar; i++) {
        const var_t *p = &pvars[i];
        printf("  %s: %s, %s%s%s, category %s\n      %s\n", p->name, class_name(p->cls),
               type_name(p->dt), p->continuous ? ", continuous" : ", started and stopped",
               p->readonly ? ", read-only" : "", cat_name(p->cat), p->desc);
    }
    int nev = 0;
    MPI_T_event_get_num(&nev);
    printf("\nEvents: %d\n", nev);
    printf("\nCategories (%d)\n", ncat);
    for (int c = 0; c < ncat; c++)
        if (cats[c].parent < 0)
            print_tree(c, 0);
}

/* ---- JSON --------------------------------------------------------------------------------- */

static void jstr(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch < 0x20)
            printf("\\u%04x", ch);
        else
            putchar(ch);
    }
    putchar('"');
}

void fy_tool_jstr(const char *s)
{
    jstr(s);
}

static void jfield(const char *key, const char *val, const char *after)
{
    jstr(key);
    printf(": ");
    jstr(val);
    printf("%s", after);
}

static void jnames(const char *key, const int *idx, int n, int kind)
{
    jstr(key);
    printf(": [");
    for (int i = 0; i < n; i++) {
        printf(i ? ", " : "");
        jstr(kind == 0 ? cvars[idx[i]].name : kind == 1 ? pvars[idx[i]].name : cats[idx[i]].name);
    }
    printf("]");
}

static void print_json(const char *library)
{
    int v, sv;
    MPI_Get_version(&v, &sv);
    char mpi[16];
    snprintf(mpi, sizeof mpi, "%d.%d", v, sv);
    printf("{\n  ");
    jfield("version", FY_VERSION, ",\n  ");
    jfield("mpi_version", mpi, ",\n  ");
    jfield("library", library, ",\n  ");
    printf("\"build\": {");
    jfield("type", FY_BUILD_TYPE, ", ");
    jfield("compiler", FY_BUILD_CC, ", ");
    printf("\"sanitizers\": %s, ", FY_BUILD_SANITIZE ? "true" : "false");
    jfield("prefix", FY_BUILD_PREFIX, ", ");
    jfield("system", FY_BUILD_SYSTEM, "},\n  ");
    fy_tool_machine_json();
    printf(",\n  ");
    printf("\"cvars\": [\n");
    for (int i = 0; i < ncvar; i++) {
        const var_t *c = &cvars[i];
        printf("    {");
        jfield("name", c->name, ", ");
        jfield("value", c->value, ", ");
        printf("\"from_environment\": %s, ", getenv(c->name) ? "true" : "false");
        jfield("datatype", type_name(c->dt), ", ");
        if (c->items[0]) {
            printf("\"enum\": [");
            char items[512];
            snprintf(items, sizeof items, "%s", c->items);
            int k = 0;
            for (char *t = strtok(items, " "); t; t = strtok(NULL, " "))
                printf(k++ ? ", " : ""), jstr(t);
            printf("], ");
        }
        jfield("scope", scope_name(c->scope), ", ");
        jfield("verbosity", verbosity_name(c->verbosity), ", ");
        jfield("category", cat_name(c->cat), ", ");
        jfield("description", c->desc, i + 1 < ncvar ? "},\n" : "}\n");
    }
    printf("  ],\n  \"pvars\": [\n");
    for (int i = 0; i < npvar; i++) {
        const var_t *p = &pvars[i];
        printf("    {");
        jfield("name", p->name, ", ");
        jfield("class", class_name(p->cls), ", ");
        jfield("datatype", type_name(p->dt), ", ");
        printf("\"continuous\": %s, \"readonly\": %s, ", p->continuous ? "true" : "false",
               p->readonly ? "true" : "false");
        jfield("verbosity", verbosity_name(p->verbosity), ", ");
        jfield("category", cat_name(p->cat), ", ");
        jfield("description", p->desc, i + 1 < npvar ? "},\n" : "}\n");
    }
    printf("  ],\n  \"categories\": [\n");
    for (int c = 0; c < ncat; c++) {
        const cat_t *k = &cats[c];
        printf("    {");
        jfield("name", k->name, ", ");
        jfield("description", k->desc, ", ");
        jnames("cvars", k->cvars, k->ncvars, 0);
        printf(", ");
        jnames("pvars", k->pvars, k->npvars, 1);
        printf(", ");
        jnames("categories", k->cats, k->ncats, 2);
        printf(c + 1 < ncat ? "},\n" : "}\n");
    }
    int nev = 0;
    MPI_T_event_get_num(&nev);
    printf("  ],\n  \"events\": %d\n}\n", nev);
}

int fy_tool_info(int argc, char **argv)
{
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else {
            fprintf(stderr, "ferry info: unknown option '%s'\nusage: ferry info [--json]\n",
                    argv[i]);
            return 2;
        }
    }
    int provided;
    check(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), "MPI_T_init_thread");
    read_all();
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(library, &len);
    const var_t *calibrate = find_cvar("FERRY_CALIBRATE"), *cma = find_cvar("FERRY_CMA");
    int cma_on = !cma || strcmp(cma->value, "0") != 0;
    fy_tool_machine_load(calibrate ? calibrate->value : "cache", cma_on);
    if (json)
        print_json(library);
    else
        print_text(library, cma_on);
    MPI_T_finalize();
    for (int c = 0; c < ncat; c++) {
        free(cats[c].cvars);
        free(cats[c].pvars);
        free(cats[c].cats);
    }
    free(cvars);
    free(pvars);
    free(cats);
    return fflush(stdout) == 0 ? 0 : 1;
}
