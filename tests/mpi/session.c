/* Sessions (MPI-4.1 11.3) with and without the world model, in the order FY_TEST_SESSION asks:
 *   only    two sessions at once and no MPI_Init: MPI_Initialized stays false;
 *   before  a session first, then MPI_Init; the session ends before MPI_Finalize;
 *   after   MPI_Init first; a session outlives MPI_Finalize and still communicates, a second
 *           one starts after MPI_Finalize; once the last one ends, a new one is refused.
 * In each: the process sets (count, names, the length protocol of get_nth_pset, mpi_size),
 * groups from "mpi://WORLD" and "mpi://SELF", communicators from them with string tags that
 * carry traffic, the thread_level hint and get_info, and error handlers on sessions (user
 * handler through call_errhandler and through a real error, ERRORS_RETURN, set/get, a
 * communicator's handler refused). */
#include "mpitest.h"

static int calls;
static MPI_Session seen_session;
static int seen_code;

static void session_handler(MPI_Session *s, int *code, ...)
{
    calls++;
    seen_session = *s;
    seen_code = *code;
}

static void comm_handler(MPI_Comm *c, int *code, ...)
{
    (void)c;
    (void)code;
}

static void check_psets(MPI_Session s, int world_size)
{
    int n = 0;
    MPI_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    CHECK(n >= 2, "get_num_psets: %d, expected at least WORLD and SELF", n);
    int seen_world = 0, seen_self = 0;
    for (int i = 0; i < n; i++) {
        int len = 0;
        MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        CHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "pset %d: needed length %d", i, len);
        char name[MPI_MAX_PSET_NAME_LEN + 1];
        int got = len;
        MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &got, name));
        CHECK(got == len && (int)strlen(name) == len - 1, "pset %d: length %d for \"%s\"", i,
              got, name);
        seen_world |= strcmp(name, "mpi://WORLD") == 0;
        seen_self |= strcmp(name, "mpi://SELF") == 0;
        char cut[4] = "xyz";
        got = 3;
        MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &got, cut));
        /* (MPICH 4.0.2 leaves got at 3 here; the length returned is not checked.) */
        CHECK(strlen(cut) == 2 && strncmp(cut, name, 2) == 0, "pset %d cut to 3 bytes: \"%s\"",
              i, cut);
    }
    CHECK(seen_world && seen_self, "psets lack mpi://WORLD or mpi://SELF");

    const char *names[2] = {"mpi://WORLD", "mpi://SELF"};
    int sizes[2] = {world_size, 1};
    for (int i = 0; i < 2; i++) {
        MPI_Info info;
        MPI_OK(MPI_Session_get_pset_info(s, names[i], &info));
        char val[32] = "";
        int flag = 0;
        MPI_OK(MPI_Info_get_string(info, "mpi_size", &(int){sizeof val}, val, &flag));
        CHECK(flag && atoi(val) == sizes[i], "%s: mpi_size \"%s\", expected %d", names[i], val,
              sizes[i]);
        MPI_Info_free(&info);
    }
}

/* A communicator over the pset, checked for size and rank, which then carries an allreduce
 * and a ring exchange. Returns it (freed by the caller). */
static MPI_Comm comm_from(MPI_Session s, const char *pset, const char *tag, int world_size,
                          int world_rank)
{
    MPI_Group g;
    MPI_OK(MPI_Group_from_session_pset(s, pset, &g));
    MPI_Comm c = MPI_COMM_NULL;
    MPI_OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    MPI_Group_free(&g);
    int size = -1, rank = -1;
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    int self = strcmp(pset, "mpi://SELF") == 0;
    CHECK(size == (self ? 1 : world_size) && rank == (self ? 0 : world_rank),
          "%s: size %d rank %d", pset, size, rank);
    int sum = 0;
    MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size * (size - 1) / 2, "%s: allreduce of ranks %d", pset, sum);
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    MPI_OK(MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, c,
                        MPI_STATUS_IGNORE));
    CHECK(got == left, "%s: ring got %d from the left, expected %d", pset, got, left);
    return c;
}

static void check_errhandlers(MPI_Session s)
{
    /* Known deviation, MPICH 4.0: setting a user handler on a session fails an assertion, and
     * errors in calls on a session end the job whatever handler the session has. */
    if (mt_is_mpich40())
        return;
    MPI_Errhandler eh, got;
    MPI_OK(MPI_Session_create_errhandler(session_handler, &eh));
    MPI_OK(MPI_Session_set_errhandler(s, eh));
    MPI_OK(MPI_Session_get_errhandler(s, &got));
    CHECK(got == eh, "get_errhandler gave 0x%x, set 0x%x", (unsigned)got, (unsigned)eh);
    MPI_Errhandler_free(&got);
    MPI_Errhandler_free(&eh); /* still attached: stays alive */

    calls = 0;
    MPI_OK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    CHECK(calls == 1 && seen_session == s && seen_code == MPI_ERR_OTHER,
          "call_errhandler: %d calls, session 0x%x, code %d", calls, (unsigned)seen_session,
          seen_code);
    MPI_Info info = MPI_INFO_NULL;
    int rc = MPI_Session_get_pset_info(s, "mpi://NOWHERE", &info);
    CHECK(calls == 2 && seen_session == s, "unknown pset did not reach the user handler");
    CHECK_CLASS(rc, MPI_ERR_ARG, "get_pset_info of an unknown pset");
    CHECK_CLASS(seen_code, MPI_ERR_ARG, "code given to the user handler");

    MPI_OK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
    rc = MPI_Group_from_session_pset(s, "mpi://NOWHERE", &(MPI_Group){MPI_GROUP_NULL});
    CHECK_CLASS(rc, MPI_ERR_ARG, "group from an unknown pset with ERRORS_RETURN");
    int len = 0;
    rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, -1, &len, NULL);
    CHECK_CLASS(rc, MPI_ERR_ARG, "get_nth_pset(-1)");
    MPI_Errhandler ceh;
    MPI_OK(MPI_Comm_create_errhandler(comm_handler, &ceh));
    rc = MPI_Session_set_errhandler(s, ceh);
    CHECK_CLASS(rc, MPI_ERR_ARG, "a communicator's handler set on a session");
    MPI_Errhandler_free(&ceh);
    MPI_OK(MPI_Session_set_errhandler(s, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Session_get_errhandler(s, &got));
    CHECK(got == MPI_ERRORS_ARE_FATAL, "ERRORS_ARE_FATAL set, got 0x%x", (unsigned)got);
    MPI_OK(MPI_Session_set_errhandler(s, MPI_ERRORS_ABORT));
    MPI_OK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
}

static MPI_Session open_session(const char *level)
{
    MPI_Info info = MPI_INFO_NULL;
    if (level) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "thread_level", level);
    }
    MPI_Session s = MPI_SESSION_NULL;
    MPI_OK(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
    CHECK(s != MPI_SESSION_NULL, "Session_init gave MPI_SESSION_NULL");
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    MPI_Info used;
    MPI_OK(MPI_Session_get_info(s, &used));
    char val[64] = "";
    int flag = 0;
    MPI_OK(MPI_Info_get_string(used, "thread_level", &(int){sizeof val}, val, &flag));
    CHECK(flag, "get_info has no thread_level");
    if (level)
        CHECK(strcmp(val, level) == 0, "thread_level %s, asked %s", val, level);
    MPI_Info_free(&used);
    return s;
}

static int world_size(MPI_Session s, int *rank)
{
    MPI_Group g;
    int size = 0;
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MPI_Group_size(g, &size);
    MPI_Group_rank(g, rank);
    MPI_Group_free(&g);
    return size;
}

/* The errors of every rank summed over c; rank 0 prints the verdict. */
static void finish_on(MPI_Comm c)
{
    int all = 0;
    MPI_Allreduce(&mt_errs, &all, 1, MPI_INT, MPI_SUM, c);
    if (mt_rank == 0 && all == 0)
        printf("No Errors\n");
    else if (mt_rank == 0)
        printf("Found %d errors\n", all);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *mode = getenv("FY_TEST_SESSION");
    mode = mode ? mode : "only";
    int flag = -1;

    if (strcmp(mode, "only") == 0) {
        MPI_Session a = open_session("MPI_THREAD_MULTIPLE"), b = open_session(NULL);
        int provided = -1;
        MPI_Query_thread(&provided);
        CHECK(provided == MPI_THREAD_MULTIPLE, "Query_thread %d after a MULTIPLE session",
              provided);
        MPI_Initialized(&flag);
        CHECK(flag == 0, "MPI_Initialized is true with sessions only");
        int size = world_size(a, &mt_rank);
        mt_size = size;
        check_psets(a, size);
        check_psets(b, size);
        MPI_Comm ca = comm_from(a, "mpi://WORLD", "org.ferry.test.a", size, mt_rank);
        MPI_Comm cb = comm_from(b, "mpi://WORLD", "org.ferry.test.b", size, mt_rank);
        MPI_Comm cs = comm_from(b, "mpi://SELF", "org.ferry.test.self", size, mt_rank);
        check_errhandlers(a);
        MPI_Comm_free(&cs);
        MPI_Comm_free(&cb);
        MPI_OK(MPI_Session_finalize(&b));
        CHECK(b == MPI_SESSION_NULL, "finalize did not set the handle to MPI_SESSION_NULL");
        /* a still runs the library */
        MPI_Comm ca2 = comm_from(a, "mpi://WORLD", "org.ferry.test.a2", size, mt_rank);
        MPI_Comm_free(&ca2);
        MPI_Finalized(&flag);
        CHECK(flag == 0, "MPI_Finalized is true with sessions only");
        finish_on(ca);
        MPI_Comm_free(&ca);
        MPI_OK(MPI_Session_finalize(&a));
        return 0;
    }

    if (strcmp(mode, "before") == 0) {
        MPI_Session s = open_session(NULL);
        MPI_Initialized(&flag);
        CHECK(flag == 0, "MPI_Initialized is true with a session only");
        int size = world_size(s, &mt_rank);
        MPI_Comm cs = comm_from(s, "mpi://WORLD", "org.ferry.test.before", size, mt_rank);
        MPI_Init(&argc, &argv);
        mt_setup();
        MPI_Initialized(&flag);
        CHECK(flag == 1, "MPI_Initialized is false after MPI_Init");
        CHECK(mt_size == size, "world size %d, session WORLD size %d", mt_size, size);
        MPI_Comm cw = comm_from(s, "mpi://WORLD", "org.ferry.test.before2", size, mt_rank);
        int x = mt_rank, y = -1;
        MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        CHECK(y == size - 1, "world allreduce beside a session: %d", y);
        check_psets(s, size);
        check_errhandlers(s);
        MPI_Comm_free(&cw);
        MPI_Comm_free(&cs);
        MPI_OK(MPI_Session_finalize(&s));
        mt_finish();
        return 0;
    }

    /* after */
    MPI_Init(&argc, &argv);
    mt_setup();
    MPI_Session s = open_session(NULL);
    int size = world_size(s, &mt_rank);
    MPI_Comm cs = comm_from(s, "mpi://WORLD", "org.ferry.test.after", size, mt_rank);
    MPI_Finalize();
    MPI_Finalized(&flag);
    CHECK(flag == 1, "MPI_Finalized is false after MPI_Finalize with a session live");
    MPI_Initialized(&flag);
    CHECK(flag == 1, "MPI_Initialized is false after MPI_Finalize");
    /* The session still works, and a new one may start while it lives. */
    MPI_Comm c2 = comm_from(s, "mpi://WORLD", "org.ferry.test.after2", size, mt_rank);
    MPI_Session t = open_session(NULL);
    check_psets(t, size);
    check_errhandlers(t);
    MPI_Comm c3 = comm_from(t, "mpi://SELF", "org.ferry.test.after3", size, mt_rank);
    MPI_Comm_free(&c3);
    MPI_OK(MPI_Session_finalize(&t));
    MPI_Comm_free(&c2);
    finish_on(cs);
    MPI_Comm_free(&cs);
    MPI_OK(MPI_Session_finalize(&s));
    /* The library has stopped. MPI-4.1 lets a new session start it again; Ferry refuses with
     * an error (tests/README.md says why): either way, no crash and no hang. Known deviation,
     * MPICH 4.0: this MPI_Session_init crashes (SIGSEGV). */
    if (!mt_is_mpich40()) {
        MPI_Session u = MPI_SESSION_NULL;
        int rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &u);
        if (rc == MPI_SUCCESS)
            MPI_Session_finalize(&u);
    }
    return 0;
}
