/* The MPI-4.1 calls beside generalized requests: Request_get_status_any/all/some (report without
 * freeing or deactivating; empty statuses and MPI_UNDEFINED for arrays of null requests; the
 * operation's error), the status field accessors and Status_set_elements_c, the removal of
 * user-defined error classes, codes and strings (in order; predefined or still-used ones are
 * refused), Get_hw_resource_info (consistent with MPI_COMM_TYPE_HW_GUIDED),
 * MPI_COMM_TYPE_RESOURCE_GUIDED, Type_get_value_index, the version 4.1, and the names of null
 * handles. MPI 4.1 only: MPICH 4.0.2 lacks these calls. */
#include "mpitest.h"

static void check_empty(const MPI_Status *s, const char *what)
{
    int n = -1, c = -1;
    MPI_Get_count(s, MPI_BYTE, &n);
    MPI_Test_cancelled(s, &c);
    CHECK(s->MPI_SOURCE == MPI_ANY_SOURCE && s->MPI_TAG == MPI_ANY_TAG &&
              s->MPI_ERROR == MPI_SUCCESS && n == 0 && c == 0,
          "%s: not an empty status (source %d tag %d error %d count %d cancelled %d)", what,
          s->MPI_SOURCE, s->MPI_TAG, s->MPI_ERROR, n, c);
}

static void get_status_arrays(void)
{
    enum { N = 3 };
    MPI_Request r[N] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status s[N];
    int idx[N], flag = -1, index = -2, outcount = -2;

    /* Only null requests: flag true, index/outcount MPI_UNDEFINED, empty statuses. */
    for (int i = 0; i < N; i++)
        s[i].MPI_ERROR = MPI_ERR_OTHER;
    MPI_OK(MPI_Request_get_status_any(N, r, &index, &flag, &s[0]));
    CHECK(flag == 1 && index == MPI_UNDEFINED, "get_status_any(nulls): flag %d index %d", flag,
          index);
    check_empty(&s[0], "get_status_any(nulls)");
    MPI_OK(MPI_Request_get_status_all(N, r, &flag, s));
    CHECK(flag == 1, "get_status_all(nulls): flag %d", flag);
    for (int i = 0; i < N; i++)
        check_empty(&s[i], "get_status_all(nulls)");
    MPI_OK(MPI_Request_get_status_some(N, r, &outcount, idx, s));
    CHECK(outcount == MPI_UNDEFINED, "get_status_some(nulls): outcount %d", outcount);
    MPI_OK(MPI_Request_get_status_all(0, r, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag == 1, "get_status_all(0 requests): flag %d", flag);

    /* A receive from self that cannot match yet, beside a null and a completed send. */
    int peer = mt_rank, in = -1, out = 42 + mt_rank;
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Request_get_status_any(N, r, &index, &flag, &s[0]));
    CHECK(flag == 0 && index == MPI_UNDEFINED, "get_status_any(pending): flag %d index %d", flag,
          index);
    MPI_OK(MPI_Request_get_status_all(N, r, &flag, s));
    CHECK(flag == 0, "get_status_all(pending): flag %d", flag);
    MPI_OK(MPI_Request_get_status_some(N, r, &outcount, idx, s));
    CHECK(outcount == 0, "get_status_some(pending): outcount %d", outcount);

    MPI_OK(MPI_Isend(&out, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &r[2]));
    /* Both complete soon; the calls see them without freeing them. */
    int seen = 0;
    for (long polls = 0; seen < 2 && polls < 100000000L; polls++)
        MPI_OK(MPI_Request_get_status_some(N, r, &seen, idx, s));
    CHECK(seen == 2 && idx[0] == 0 && idx[1] == 2, "get_status_some: %d done, indices %d %d",
          seen, idx[0], idx[1]);
    CHECK(s[0].MPI_SOURCE == peer && s[0].MPI_TAG == 7 && s[0].MPI_ERROR == MPI_SUCCESS,
          "get_status_some: receive status source %d tag %d error %d", s[0].MPI_SOURCE,
          s[0].MPI_TAG, s[0].MPI_ERROR);
    CHECK(r[0] != MPI_REQUEST_NULL && r[2] != MPI_REQUEST_NULL,
          "get_status_some freed a request");
    MPI_OK(MPI_Request_get_status_any(N, r, &index, &flag, &s[1]));
    CHECK(flag == 1 && index == 0 && s[1].MPI_SOURCE == peer, "get_status_any: flag %d index %d",
          flag, index);
    MPI_OK(MPI_Request_get_status_all(N, r, &flag, s));
    CHECK(flag == 1 && s[0].MPI_TAG == 7 && s[1].MPI_TAG == MPI_ANY_TAG,
          "get_status_all: flag %d tags %d %d", flag, s[0].MPI_TAG, s[1].MPI_TAG);
    CHECK(r[0] != MPI_REQUEST_NULL && r[2] != MPI_REQUEST_NULL, "get_status_all freed a request");
    MPI_OK(MPI_Waitall(N, r, MPI_STATUSES_IGNORE));
    CHECK(in == out, "received %d, expected %d", in, out);

    /* A persistent request stays active after being looked at. */
    MPI_Request p;
    MPI_OK(MPI_Send_init(&out, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &p));
    MPI_OK(MPI_Request_get_status_any(1, &p, &index, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 1 && index == MPI_UNDEFINED, "inactive persistent: flag %d index %d", flag,
          index);
    MPI_OK(MPI_Start(&p));
    MPI_OK(MPI_Recv(&in, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    flag = 0;
    for (long polls = 0; !flag && polls < 100000000L; polls++)
        MPI_OK(MPI_Request_get_status_all(1, &p, &flag, MPI_STATUSES_IGNORE));
    CHECK_CLASS(MPI_Start(&p), MPI_ERR_REQUEST, "Start after get_status_all (still active)");
    MPI_OK(MPI_Wait(&p, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Request_free(&p));

    /* A generalized request whose query fails: the error comes back in MPI_ERROR. */
    MPI_Request g[2];
    MPI_OK(MPI_Grequest_start(NULL, NULL, NULL, NULL, &g[0]));
    MPI_OK(MPI_Grequest_complete(g[0]));
    g[1] = MPI_REQUEST_NULL;
    MPI_OK(MPI_Request_get_status_all(2, g, &flag, s));
    CHECK(flag == 1 && s[0].MPI_ERROR == MPI_SUCCESS, "get_status_all(grequest): flag %d", flag);
    MPI_OK(MPI_Wait(&g[0], MPI_STATUS_IGNORE));
}

static int failing_query(void *extra, MPI_Status *s)
{
    (void)extra;
    (void)s;
    return MPI_ERR_TYPE;
}

static void get_status_errors(void)
{
    MPI_Request g[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status s[2];
    int flag = 0, index = -1, outcount = -1, idx[2];
    MPI_OK(MPI_Grequest_start(failing_query, NULL, NULL, NULL, &g[1]));
    MPI_OK(MPI_Grequest_complete(g[1]));
    int rc = MPI_Request_get_status_all(2, g, &flag, s);
    CHECK(rc == MPI_ERR_IN_STATUS && flag == 1 && s[0].MPI_ERROR == MPI_SUCCESS &&
              s[1].MPI_ERROR == MPI_ERR_TYPE,
          "get_status_all with a failing query: rc %d flag %d errors %d %d", rc, flag,
          s[0].MPI_ERROR, s[1].MPI_ERROR);
    rc = MPI_Request_get_status_some(2, g, &outcount, idx, s);
    CHECK(rc == MPI_ERR_IN_STATUS && outcount == 1 && s[0].MPI_ERROR == MPI_ERR_TYPE,
          "get_status_some with a failing query: rc %d outcount %d", rc, outcount);
    rc = MPI_Request_get_status_any(2, g, &index, &flag, &s[0]);
    CHECK(rc == MPI_ERR_TYPE && index == 1, "get_status_any with a failing query: rc %d index %d",
          rc, index);
    rc = MPI_Wait(&g[1], MPI_STATUS_IGNORE);
    CHECK(rc == MPI_ERR_TYPE && g[1] == MPI_REQUEST_NULL, "Wait after: rc %d", rc);
    CHECK_CLASS(MPI_Request_get_status_all(-1, g, &flag, s), MPI_ERR_COUNT,
                "get_status_all(count -1)");
}

static void status_fields(void)
{
    MPI_Status s;
    int v = -1;
    MPI_OK(MPI_Status_set_source(&s, 5));
    MPI_OK(MPI_Status_set_tag(&s, 77));
    MPI_OK(MPI_Status_set_error(&s, MPI_ERR_TAG));
    CHECK(s.MPI_SOURCE == 5 && s.MPI_TAG == 77 && s.MPI_ERROR == MPI_ERR_TAG,
          "setters wrote %d %d %d", s.MPI_SOURCE, s.MPI_TAG, s.MPI_ERROR);
    MPI_OK(MPI_Status_get_source(&s, &v));
    CHECK(v == 5, "Status_get_source: %d", v);
    MPI_OK(MPI_Status_get_tag(&s, &v));
    CHECK(v == 77, "Status_get_tag: %d", v);
    MPI_OK(MPI_Status_get_error(&s, &v));
    CHECK(v == MPI_ERR_TAG, "Status_get_error: %d", v);
    CHECK_CLASS(MPI_Status_get_source(MPI_STATUS_IGNORE, &v), MPI_ERR_ARG,
                "Status_get_source(MPI_STATUS_IGNORE)");
    CHECK_CLASS(MPI_Status_set_tag(NULL, 1), MPI_ERR_ARG, "Status_set_tag(NULL)");

    /* Large counts: 2^33 bytes do not fit an int count but do fit MPI_Count. */
    MPI_Count big = (MPI_Count)1 << 33, c = 0;
    MPI_OK(MPI_Status_set_elements_c(&s, MPI_BYTE, big));
    MPI_OK(MPI_Get_elements_c(&s, MPI_BYTE, &c));
    CHECK(c == big, "Status_set_elements_c(2^33): Get_elements_c gives %lld", (long long)c);
    int n = 0;
    MPI_OK(MPI_Get_count(&s, MPI_BYTE, &n));
    CHECK(n == MPI_UNDEFINED, "Get_count of 2^33 bytes: %d, expected MPI_UNDEFINED", n);
    MPI_OK(MPI_Status_set_elements_c(&s, MPI_INT, 3));
    MPI_OK(MPI_Get_count(&s, MPI_INT, &n));
    CHECK(n == 3, "Status_set_elements_c(MPI_INT, 3): count %d", n);
    CHECK_CLASS(MPI_Status_set_elements_c(&s, MPI_INT, -1), MPI_ERR_COUNT,
                "Status_set_elements_c(count -1)");
}

static void error_removal(void)
{
    char str[MPI_MAX_ERROR_STRING];
    int len = 0, cls = 0, c1 = 0, c2 = 0, last = 0, *lastp = NULL, flag = 0;
    MPI_OK(MPI_Add_error_class(&cls));
    MPI_OK(MPI_Add_error_code(cls, &c1));
    MPI_OK(MPI_Add_error_code(cls, &c2));
    MPI_OK(MPI_Add_error_string(cls, "my class"));
    MPI_OK(MPI_Add_error_string(c1, "my code 1"));
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastp, &flag));
    last = flag ? *lastp : -1;
    CHECK(last >= cls, "MPI_LASTUSEDCODE %d below the new class %d", last, cls);

    /* Out of order: each refused. */
    CHECK_CLASS(MPI_Remove_error_class(cls), MPI_ERR_ARG, "Remove_error_class with codes");
    CHECK_CLASS(MPI_Remove_error_code(c1), MPI_ERR_ARG, "Remove_error_code with a string");
    CHECK_CLASS(MPI_Remove_error_string(c2), MPI_ERR_ARG, "Remove_error_string without one");
    CHECK_CLASS(MPI_Remove_error_code(cls), MPI_ERR_ARG, "Remove_error_code of a class");
    CHECK_CLASS(MPI_Remove_error_class(c2), MPI_ERR_ARG, "Remove_error_class of a code");
    CHECK_CLASS(MPI_Remove_error_class(MPI_ERR_OTHER), MPI_ERR_ARG, "Remove_error_class(predef)");
    CHECK_CLASS(MPI_Remove_error_code(0), MPI_ERR_ARG, "Remove_error_code(0)");
    CHECK_CLASS(MPI_Remove_error_string(MPI_ERR_ARG), MPI_ERR_ARG, "Remove_error_string(predef)");

    /* In order: string, codes, class string, class. */
    MPI_OK(MPI_Remove_error_string(c1));
    MPI_OK(MPI_Error_string(c1, str, &len));
    CHECK(len == 0, "Error_string after Remove_error_string: \"%s\"", str);
    MPI_OK(MPI_Remove_error_code(c1));
    CHECK_CLASS(MPI_Remove_error_code(c1), MPI_ERR_ARG, "Remove_error_code twice");
    CHECK(MPI_Error_class(c1, &len) != MPI_SUCCESS, "Error_class of a removed code succeeded");
    CHECK_CLASS(MPI_Remove_error_class(cls), MPI_ERR_ARG, "Remove_error_class with one code");
    MPI_OK(MPI_Remove_error_code(c2));
    CHECK_CLASS(MPI_Remove_error_class(cls), MPI_ERR_ARG, "Remove_error_class with a string");
    MPI_OK(MPI_Remove_error_string(cls));
    MPI_OK(MPI_Remove_error_class(cls));
    CHECK_CLASS(MPI_Remove_error_class(cls), MPI_ERR_ARG, "Remove_error_class twice");
    CHECK_CLASS(MPI_Add_error_code(cls, &c1), MPI_ERR_ARG, "Add_error_code to a removed class");
    CHECK_CLASS(MPI_Add_error_string(c2, "x"), MPI_ERR_ARG, "Add_error_string to a removed code");

    /* A code of a predefined class. */
    MPI_OK(MPI_Add_error_code(MPI_ERR_OTHER, &c1));
    MPI_OK(MPI_Remove_error_code(c1));
}

static void hw_info(void)
{
    MPI_Info info = MPI_INFO_NULL;
    MPI_OK(MPI_Get_hw_resource_info(&info));
    char type[MPI_MAX_INFO_VAL + 1] = "";
    int len = MPI_MAX_INFO_VAL, flag = 0;
    MPI_OK(MPI_Info_get_string(info, "mpi_hw_resource_type", &len, type, &flag));
    CHECK(flag && strstr(type, "mpi_shared_memory"),
          "Get_hw_resource_info: mpi_hw_resource_type is \"%s\" (flag %d)", type, flag);
    /* The type it names works with the guided split: this machine's ranks, all of them. */
    MPI_Info hint;
    MPI_Comm node = MPI_COMM_NULL;
    MPI_OK(MPI_Info_create(&hint));
    MPI_OK(MPI_Info_set(hint, "mpi_hw_resource_type", "mpi_shared_memory"));
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, hint, &node));
    int n = 0;
    if (node != MPI_COMM_NULL) {
        MPI_Comm_size(node, &n);
        MPI_Comm_free(&node);
    }
    CHECK(n == mt_size, "HW_GUIDED split on mpi_shared_memory: size %d, expected %d", n, mt_size);
    /* MPI 4.1's resource-guided split takes the same key. */
    n = 0;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, hint, &node));
    if (node != MPI_COMM_NULL) {
        MPI_Comm_size(node, &n);
        MPI_Comm_free(&node);
    }
    CHECK(n == mt_size, "RESOURCE_GUIDED split on mpi_shared_memory: size %d, expected %d", n,
          mt_size);
    MPI_Info_free(&hint);
    MPI_OK(MPI_Info_free(&info));
    CHECK_CLASS(MPI_Get_hw_resource_info(NULL), MPI_ERR_ARG, "Get_hw_resource_info(NULL)");
}

static void value_index(void)
{
    const struct {
        MPI_Datatype v, i, pair;
    } cases[] = {
        {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},   {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
        {MPI_LONG, MPI_INT, MPI_LONG_INT},     {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
        {MPI_INT, MPI_INT, MPI_2INT},          {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
        {MPI_FLOAT, MPI_FLOAT, MPI_DATATYPE_NULL}, {MPI_INT, MPI_LONG, MPI_DATATYPE_NULL},
        {MPI_CHAR, MPI_INT, MPI_DATATYPE_NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        MPI_Datatype t = (MPI_Datatype)-1;
        MPI_OK(MPI_Type_get_value_index(cases[k].v, cases[k].i, &t));
        CHECK(t == cases[k].pair, "Type_get_value_index case %zu: 0x%x, expected 0x%x", k,
              (unsigned)t, (unsigned)cases[k].pair);
    }
    MPI_Datatype t;
    CHECK_CLASS(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &t), MPI_ERR_TYPE,
                "Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT)");
    CHECK_CLASS(MPI_Type_get_value_index(MPI_INT, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE,
                "Type_get_value_index(MPI_INT, MPI_DATATYPE_NULL)");
}

static void version_and_names(void)
{
    int v = 0, sv = -1, len = 0;
    MPI_OK(MPI_Get_version(&v, &sv));
    CHECK(v == 4 && sv == 1 && MPI_VERSION == 4 && MPI_SUBVERSION == 1,
          "version %d.%d (header %d.%d), expected 4.1", v, sv, MPI_VERSION, MPI_SUBVERSION);
    char name[MPI_MAX_OBJECT_NAME];
    MPI_OK(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len));
    CHECK(strcmp(name, "MPI_DATATYPE_NULL") == 0 && len == 17, "name of MPI_DATATYPE_NULL: %s",
          name);
    MPI_OK(MPI_Comm_get_name(MPI_COMM_NULL, name, &len));
    CHECK(strcmp(name, "MPI_COMM_NULL") == 0 && len == 13, "name of MPI_COMM_NULL: %s", name);
    MPI_OK(MPI_Win_get_name(MPI_WIN_NULL, name, &len));
    CHECK(strcmp(name, "MPI_WIN_NULL") == 0 && len == 12, "name of MPI_WIN_NULL: %s", name);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    get_status_arrays();
    get_status_errors();
    status_fields();
    error_removal();
    hw_info();
    value_index();
    version_and_names();
    return mt_finish();
}
