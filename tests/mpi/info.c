/* Info objects and communicator hints.
 *
 * - MPI_Info_create_env works before MPI_Init; MPI_INFO_ENV and create_env describe this
 *   process (command, argv, maxprocs = size of COMM_WORLD, host, wdir, thread_level);
 * - create/set/get/get_string/get_valuelen/delete/get_nkeys/get_nthkey/dup/free: keys keep
 *   the order they were first set in, setting a key again replaces its value, get_string
 *   reports the size needed and truncates, get truncates to valuelen, a duplicate is
 *   independent of its original, handles are reused after free;
 * - errors under MPI_ERRORS_RETURN: missing key (INFO_NOKEY), key or value too long (INFO_KEY,
 *   INFO_VALUE), empty key, bad n, bad valuelen, null and freed info (INFO);
 * - MPI_Comm_set_info / get_info / dup_with_info, and hints copied by MPI_Comm_dup, on
 *   duplicates of COMM_WORLD and COMM_SELF and on COMM_SELF itself. */
#include <unistd.h>

#include "mpitest.h"

/* MPI_Info_get is deprecated in MPI-4 but still in the standard. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* MPI_Info_get_nthkey writes at most MPI_MAX_INFO_KEY characters, the terminator included. */
#define KEYBUF MPI_MAX_INFO_KEY

/* The program's arguments as the "argv" key has them: separated by spaces. */
static char prog_args[4096];

/* The value of key in info, or NULL when absent (static buffer). */
static const char *value_of(MPI_Info info, const char *key)
{
    static char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0, len = sizeof v;
    if (MPI_OK(MPI_Info_get_string(info, key, &len, v, &flag)) != MPI_SUCCESS || !flag)
        return NULL;
    return v;
}

static void check_value(MPI_Info info, const char *key, const char *want, const char *file,
                        int line)
{
    const char *v = value_of(info, key);
    if (!want && v)
        mt_fail(file, line, "key \"%s\" is set to \"%s\", expected absent", key, v);
    else if (want && !v)
        mt_fail(file, line, "key \"%s\" is absent, expected \"%s\"", key, want);
    else if (want && strcmp(v, want) != 0)
        mt_fail(file, line, "key \"%s\" is \"%s\", expected \"%s\"", key, v, want);
}
#define CHECK_VALUE(info, key, want) check_value((info), (key), (want), __FILE__, __LINE__)

/* info's keys, in order, must be exactly want[0..n-1]. */
static void check_keys(MPI_Info info, const char *const *want, int n, const char *file, int line)
{
    int nkeys = -1;
    MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
    if (nkeys != n) {
        mt_fail(file, line, "%d keys, expected %d", nkeys, n);
        return;
    }
    for (int i = 0; i < n; i++) {
        char key[KEYBUF] = "";
        MPI_OK(MPI_Info_get_nthkey(info, i, key));
        if (strcmp(key, want[i]) != 0)
            mt_fail(file, line, "key %d is \"%s\", expected \"%s\"", i, key, want[i]);
    }
}
#define CHECK_KEYS(info, ...)                                                                      \
    do {                                                                                           \
        const char *const want_[] = {__VA_ARGS__};                                                 \
        check_keys((info), want_, (int)(sizeof want_ / sizeof want_[0]), __FILE__, __LINE__);      \
    } while (0)

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

/* The keys of the environment info Ferry fills. MPICH 4.0 sets none of them, which the standard
 * allows (every key of MPI_INFO_ENV is optional): checked only elsewhere. */
static void check_env(MPI_Info env, const char *command, const char *args, int initialized)
{
    char cwd[4096], host[256], size[16];
    if (mt_is_mpich40())
        return;
    CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd failed");
    CHECK(gethostname(host, sizeof host) == 0, "gethostname failed");
    host[sizeof host - 1] = 0;
    snprintf(size, sizeof size, "%d", mt_size);
    CHECK_VALUE(env, "command", command);
    CHECK_VALUE(env, "argv", args);
    CHECK_VALUE(env, "maxprocs", size);
    CHECK_VALUE(env, "host", host);
    CHECK_VALUE(env, "wdir", cwd);
    CHECK(value_of(env, "arch") != NULL, "no key \"arch\"");
    if (initialized) {
        int provided = -1;
        MPI_Query_thread(&provided);
        CHECK_VALUE(env, "thread_level", thread_level_name(provided));
    }
}

static void test_basic(void)
{
    MPI_Info info = MPI_INFO_NULL;
    int nkeys = -1, flag = -1, len = -1;
    MPI_OK(MPI_Info_create(&info));
    CHECK(info != MPI_INFO_NULL, "MPI_Info_create gave MPI_INFO_NULL");
    MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 0, "new info has %d keys", nkeys);

    /* Insertion order; setting again replaces the value and keeps the key's place. */
    MPI_OK(MPI_Info_set(info, "alpha", "1"));
    MPI_OK(MPI_Info_set(info, "beta", "two"));
    MPI_OK(MPI_Info_set(info, "gamma", "hello"));
    CHECK_KEYS(info, "alpha", "beta", "gamma");
    MPI_OK(MPI_Info_set(info, "beta", "second value"));
    CHECK_KEYS(info, "alpha", "beta", "gamma");
    CHECK_VALUE(info, "beta", "second value");
    MPI_OK(MPI_Info_set(info, "delta", ""));
    CHECK_VALUE(info, "delta", "");
    CHECK_KEYS(info, "alpha", "beta", "gamma", "delta");

    /* get_valuelen */
    MPI_OK(MPI_Info_get_valuelen(info, "gamma", &len, &flag));
    CHECK(flag && len == 5, "get_valuelen(gamma): flag %d len %d, expected 1 5", flag, len);
    len = -7;
    MPI_OK(MPI_Info_get_valuelen(info, "nosuchkey", &len, &flag));
    CHECK(!flag, "get_valuelen of a missing key: flag %d", flag);
    CHECK(len == -7, "get_valuelen of a missing key changed valuelen to %d", len);

    /* MPI_Info_get: valuelen characters at most, then a terminator */
    char v[64];
    memset(v, 'x', sizeof v);
    MPI_OK(MPI_Info_get(info, "gamma", 5, v, &flag));
    CHECK(flag && strcmp(v, "hello") == 0, "get(gamma, 5): flag %d '%s'", flag, v);
    if (!mt_is_mpich40()) {
        /* Known deviation, MPICH 4.0: a value longer than valuelen is an error there, not
         * truncated. */
        memset(v, 'x', sizeof v);
        MPI_OK(MPI_Info_get(info, "gamma", 2, v, &flag));
        CHECK(flag && strcmp(v, "he") == 0, "get(gamma, 2) is '%.8s', expected 'he'", v);
    }
    strcpy(v, "untouched");
    MPI_OK(MPI_Info_get(info, "nosuchkey", 10, v, &flag));
    CHECK(!flag && strcmp(v, "untouched") == 0, "get of a missing key: flag %d, value '%s'", flag,
          v);

    /* MPI_Info_get_string: buflen in = room, out = size needed with the terminator */
    len = sizeof v;
    MPI_OK(MPI_Info_get_string(info, "gamma", &len, v, &flag));
    CHECK(flag && len == 6 && strcmp(v, "hello") == 0, "get_string(gamma): flag %d len %d '%s'",
          flag, len, v);
    int sizes[] = {1, 3, 5, 6};
    const char *cut[] = {"", "he", "hell", "hello"};
    for (int k = 0; k < 4; k++) {
        memset(v, 'x', sizeof v);
        len = sizes[k];
        MPI_OK(MPI_Info_get_string(info, "gamma", &len, v, &flag));
        CHECK(flag && len == 6, "get_string(gamma, buflen %d): flag %d buflen %d, expected 1 6",
              sizes[k], flag, len);
        CHECK(strcmp(v, cut[k]) == 0 && v[sizes[k]] == 'x',
              "get_string(gamma, buflen %d) wrote '%.8s', expected '%s' and nothing after",
              sizes[k], v, cut[k]);
    }
    strcpy(v, "keep");
    len = 0;
    MPI_OK(MPI_Info_get_string(info, "gamma", &len, v, &flag));
    CHECK(flag && len == 6 && strcmp(v, "keep") == 0,
          "get_string(gamma, buflen 0): flag %d buflen %d value '%s', expected 1 6 'keep'", flag,
          len, v);
    len = 33;
    MPI_OK(MPI_Info_get_string(info, "nosuchkey", &len, v, &flag));
    CHECK(!flag && len == 33 && strcmp(v, "keep") == 0,
          "get_string of a missing key: flag %d buflen %d value '%s'", flag, len, v);

    /* delete */
    MPI_OK(MPI_Info_delete(info, "beta"));
    CHECK_KEYS(info, "alpha", "gamma", "delta");
    CHECK_VALUE(info, "beta", NULL);
    CHECK_CLASS(MPI_Info_delete(info, "beta"), MPI_ERR_INFO_NOKEY, "deleting a deleted key");
    MPI_OK(MPI_Info_set(info, "beta", "back"));
    CHECK_KEYS(info, "alpha", "gamma", "delta", "beta");

    /* dup is a separate copy, in the same order */
    MPI_Info dup = MPI_INFO_NULL;
    MPI_OK(MPI_Info_dup(info, &dup));
    CHECK(dup != info && dup != MPI_INFO_NULL, "MPI_Info_dup returned the same handle");
    CHECK_KEYS(dup, "alpha", "gamma", "delta", "beta");
    CHECK_VALUE(dup, "gamma", "hello");
    MPI_OK(MPI_Info_set(dup, "only_in_dup", "x"));
    MPI_OK(MPI_Info_set(dup, "alpha", "changed in dup"));
    MPI_OK(MPI_Info_delete(info, "gamma"));
    CHECK_VALUE(info, "only_in_dup", NULL);
    CHECK_VALUE(info, "alpha", "1");
    CHECK_VALUE(dup, "gamma", "hello");
    CHECK_KEYS(dup, "alpha", "gamma", "delta", "beta", "only_in_dup");
    MPI_OK(MPI_Info_free(&dup));
    CHECK(dup == MPI_INFO_NULL, "MPI_Info_free did not set the handle to MPI_INFO_NULL");
    CHECK_KEYS(info, "alpha", "delta", "beta");

    /* The longest key and value allowed, and longer ones. A key fits the buffer that
     * MPI_Info_get_nthkey fills, MPI_MAX_INFO_KEY with the terminator; a value may have
     * MPI_MAX_INFO_VAL characters. */
    static char key[MPI_MAX_INFO_KEY + 2], val[MPI_MAX_INFO_VAL + 2];
    memset(key, 'k', MPI_MAX_INFO_KEY - 1);
    memset(val, 'v', MPI_MAX_INFO_VAL);
    MPI_OK(MPI_Info_set(info, key, val));
    MPI_OK(MPI_Info_get_valuelen(info, key, &len, &flag));
    CHECK(flag && len == MPI_MAX_INFO_VAL, "longest value: flag %d valuelen %d", flag, len);
    char longkey[KEYBUF];
    MPI_OK(MPI_Info_get_nthkey(info, 3, longkey));
    CHECK(strcmp(longkey, key) == 0, "longest key read back as %zu characters", strlen(longkey));
    key[MPI_MAX_INFO_KEY - 1] = 'k';
    if (!mt_is_mpich40())
        /* Known deviation, MPICH 4.0: it accepts a key of MPI_MAX_INFO_KEY characters, then
         * MPI_Info_get_nthkey returns it cut to MPI_MAX_INFO_KEY - 1. */
        CHECK_CLASS(MPI_Info_set(info, key, "v"), MPI_ERR_INFO_KEY, "key of MPI_MAX_INFO_KEY");
    key[MPI_MAX_INFO_KEY] = 'k';
    CHECK_CLASS(MPI_Info_set(info, key, "v"), MPI_ERR_INFO_KEY, "key of MPI_MAX_INFO_KEY + 1");
    val[MPI_MAX_INFO_VAL] = 'v';
    CHECK_CLASS(MPI_Info_set(info, "k", val), MPI_ERR_INFO_VALUE, "value of MPI_MAX_INFO_VAL + 1");
    CHECK_CLASS(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY, "empty key");

    /* Other errors */
    char k[KEYBUF];
    MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK_CLASS(MPI_Info_get_nthkey(info, nkeys, k), MPI_ERR_ARG, "get_nthkey(n = nkeys)");
    CHECK_CLASS(MPI_Info_get_nthkey(info, -1, k), MPI_ERR_ARG, "get_nthkey(n = -1)");
    CHECK_CLASS(MPI_Info_get(info, "alpha", -1, v, &flag), MPI_ERR_ARG, "get with valuelen -1");
    MPI_Info freed = info;
    MPI_OK(MPI_Info_free(&info));
    if (!mt_is_mpich40()) {
        /* Known deviation, MPICH 4.0: a null info handle is MPI_ERR_ARG there. */
        CHECK_CLASS(MPI_Info_set(MPI_INFO_NULL, "a", "b"), MPI_ERR_INFO, "set on MPI_INFO_NULL");
        CHECK_CLASS(MPI_Info_get_nkeys(MPI_INFO_NULL, &nkeys), MPI_ERR_INFO,
                    "get_nkeys of MPI_INFO_NULL");
        MPI_Info null = MPI_INFO_NULL;
        CHECK_CLASS(MPI_Info_free(&null), MPI_ERR_INFO, "freeing MPI_INFO_NULL");
        CHECK_CLASS(MPI_Info_dup(freed, &dup), MPI_ERR_INFO, "dup of a freed info");
    }
}

/* Handles are reused after free, and many objects can be alive at once. */
static void test_many(void)
{
    enum { N = 300 };
    MPI_Info infos[N];
    for (int i = 0; i < N; i++) {
        char v[16];
        snprintf(v, sizeof v, "%d", i);
        MPI_OK(MPI_Info_create(&infos[i]));
        MPI_OK(MPI_Info_set(infos[i], "index", v));
    }
    for (int i = 0; i < N; i += 2)
        MPI_OK(MPI_Info_free(&infos[i]));
    for (int i = 0; i < N; i += 2)
        MPI_OK(MPI_Info_create(&infos[i]));
    for (int i = 0; i < N; i++) {
        char v[16];
        snprintf(v, sizeof v, "%d", i);
        CHECK_VALUE(infos[i], "index", i % 2 ? v : NULL);
        for (int j = 0; j < i; j += 7)
            CHECK(infos[i] != infos[j], "infos %d and %d share a handle", i, j);
    }
    for (int i = 0; i < N; i++)
        MPI_OK(MPI_Info_free(&infos[i]));
}

static void test_env(const char *command)
{
    int nkeys = -1;
    MPI_OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys));
    CHECK(nkeys >= 0, "MPI_INFO_ENV has %d keys", nkeys);
    check_env(MPI_INFO_ENV, command, prog_args, 1);
    for (int i = 0; i < nkeys; i++) {
        char key[KEYBUF];
        MPI_OK(MPI_Info_get_nthkey(MPI_INFO_ENV, i, key));
        CHECK(value_of(MPI_INFO_ENV, key) != NULL, "MPI_INFO_ENV key %d \"%s\" has no value", i,
              key);
    }
    /* A duplicate can be changed. */
    MPI_Info dup;
    MPI_OK(MPI_Info_dup(MPI_INFO_ENV, &dup));
    MPI_OK(MPI_Info_set(dup, "command", "changed"));
    CHECK_VALUE(dup, "command", "changed");
    MPI_OK(MPI_Info_free(&dup));
    if (!mt_is_mpich40()) {
        /* Known deviation, MPICH 4.0: MPI_INFO_ENV can be changed and freed there. */
        CHECK_CLASS(MPI_Info_set(MPI_INFO_ENV, "command", "x"), MPI_ERR_INFO,
                    "set on MPI_INFO_ENV");
        MPI_Info env = MPI_INFO_ENV;
        CHECK_CLASS(MPI_Info_free(&env), MPI_ERR_INFO, "freeing MPI_INFO_ENV");
        check_env(MPI_INFO_ENV, command, prog_args, 1);
    }

    /* create_env from given arguments */
    char *argv[] = {"/bin/prog", "one", "two three", NULL};
    MPI_Info e;
    MPI_OK(MPI_Info_create_env(3, argv, &e));
    check_env(e, "/bin/prog", "one two three", 1);
    MPI_OK(MPI_Info_free(&e));
}

static void check_hint(MPI_Comm comm, const char *key, const char *want, const char *file, int line)
{
    MPI_Info used = MPI_INFO_NULL;
    if (MPI_OK(MPI_Comm_get_info(comm, &used)) != MPI_SUCCESS)
        return;
    check_value(used, key, want, file, line);
    MPI_OK(MPI_Info_free(&used));
}
#define CHECK_HINT(comm, key, want) check_hint((comm), (key), (want), __FILE__, __LINE__)

/* Ferry keeps hints it does not know; MPICH drops them, as the standard allows. */
#define CHECK_OWN_HINT(comm, key, want)                                                            \
    do {                                                                                           \
        if (!mt_library_is("MPICH"))                                                               \
            CHECK_HINT(comm, key, want);                                                           \
    } while (0)

static void test_comm(MPI_Comm parent, const char *name)
{
    MPI_Comm c, d2, d3, d4;
    MPI_Info hints, used;
    MPI_OK(MPI_Comm_dup(parent, &c));

    /* get_info gives a new object each time, which the user frees. */
    MPI_OK(MPI_Comm_get_info(c, &used));
    CHECK(used != MPI_INFO_NULL, "%s: MPI_Comm_get_info gave MPI_INFO_NULL", name);
    MPI_OK(MPI_Info_free(&used));

    MPI_OK(MPI_Info_create(&hints));
    MPI_OK(MPI_Info_set(hints, "mpi_assert_no_any_tag", "true"));
    MPI_OK(MPI_Info_set(hints, "ferry_test_hint", "42"));
    MPI_OK(MPI_Comm_set_info(c, hints));
    MPI_OK(MPI_Info_free(&hints)); /* the communicator keeps its own copy */
    CHECK_HINT(c, "mpi_assert_no_any_tag", "true");
    CHECK_OWN_HINT(c, "ferry_test_hint", "42");

    /* Changing what get_info returned changes nothing on the communicator. */
    MPI_OK(MPI_Comm_get_info(c, &used));
    MPI_OK(MPI_Info_set(used, "ferry_added_later", "1"));
    MPI_OK(MPI_Info_free(&used));
    CHECK_HINT(c, "ferry_added_later", NULL);

    /* A second set_info changes the hints it names and keeps the others. */
    MPI_OK(MPI_Info_create(&hints));
    MPI_OK(MPI_Info_set(hints, "ferry_test_hint", "43"));
    MPI_OK(MPI_Comm_set_info(c, hints));
    MPI_OK(MPI_Info_free(&hints));
    CHECK_OWN_HINT(c, "ferry_test_hint", "43");
    CHECK_HINT(c, "mpi_assert_no_any_tag", "true");

    /* MPI_Comm_dup copies the hints. Known deviation, MPICH 4.0: it does not. */
    MPI_OK(MPI_Comm_dup(c, &d2));
    if (!mt_is_mpich40())
        CHECK_HINT(d2, "mpi_assert_no_any_tag", "true");
    CHECK_OWN_HINT(d2, "ferry_test_hint", "43");

    /* MPI_Comm_dup_with_info: the given hints, not the parent's. */
    MPI_OK(MPI_Info_create(&hints));
    MPI_OK(MPI_Info_set(hints, "mpi_assert_no_any_tag", "false"));
    MPI_OK(MPI_Info_set(hints, "ferry_other_hint", "x"));
    MPI_OK(MPI_Comm_dup_with_info(c, hints, &d3));
    MPI_OK(MPI_Info_free(&hints));
    CHECK_HINT(d3, "mpi_assert_no_any_tag", "false");
    CHECK_HINT(d3, "ferry_test_hint", NULL);
    CHECK_OWN_HINT(d3, "ferry_other_hint", "x");
    CHECK_HINT(c, "mpi_assert_no_any_tag", "true");
    CHECK_HINT(c, "ferry_other_hint", NULL);
    MPI_OK(MPI_Comm_dup_with_info(c, MPI_INFO_NULL, &d4));
    CHECK_HINT(d4, "ferry_test_hint", NULL);

    /* The new communicators work, and are what MPI_Comm_dup makes. */
    int size = -1, csize = -1, sum = 0, one = 1, cmp = -1;
    MPI_Comm_size(c, &csize);
    MPI_OK(MPI_Comm_size(d3, &size));
    CHECK(size == csize, "%s: dup_with_info has %d ranks, expected %d", name, size, csize);
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d3));
    CHECK(sum == csize, "%s: allreduce over dup_with_info gave %d, expected %d", name, sum, csize);
    MPI_OK(MPI_Comm_compare(c, d3, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "%s: dup_with_info compares %d to its parent, expected CONGRUENT",
          name, cmp);
    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_get_errhandler(d3, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "%s: dup_with_info did not keep the error handler", name);
    MPI_OK(MPI_Errhandler_free(&eh));

    /* Errors */
    MPI_Info freed;
    MPI_OK(MPI_Info_create(&freed));
    MPI_Info h = freed;
    MPI_OK(MPI_Info_free(&h));
    if (!mt_is_mpich40()) {
        /* Known deviation, MPICH 4.0: a freed info is MPI_ERR_ARG there. */
        CHECK_CLASS(MPI_Comm_set_info(c, freed), MPI_ERR_INFO, "Comm_set_info with a freed info");
        MPI_Comm bad = MPI_COMM_NULL;
        CHECK_CLASS(MPI_Comm_dup_with_info(c, freed, &bad), MPI_ERR_INFO,
                    "Comm_dup_with_info with a freed info");
    }
    CHECK_CLASS(MPI_Comm_get_info(MPI_COMM_NULL, &used), MPI_ERR_COMM,
                "Comm_get_info(MPI_COMM_NULL)");

    MPI_OK(MPI_Comm_free(&d4));
    MPI_OK(MPI_Comm_free(&d3));
    MPI_OK(MPI_Comm_free(&d2));
    MPI_OK(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        snprintf(prog_args + strlen(prog_args), sizeof prog_args - strlen(prog_args), "%s%s",
                 i > 1 ? " " : "", argv[i]);
    const char *command = argv[0];

    /* Before MPI_Init (MPI-4 allows the info calls then). */
    MPI_Info early = MPI_INFO_NULL;
    int early_rc = MPI_Info_create_env(argc, argv, &early);

    mt_init(&argc, &argv);
    CHECK(early_rc == MPI_SUCCESS, "MPI_Info_create_env before MPI_Init returned %d", early_rc);
    if (early_rc == MPI_SUCCESS) {
        check_env(early, command, prog_args, 0);
        MPI_OK(MPI_Info_free(&early));
    }

    test_basic();
    test_many();
    test_env(command);
    test_comm(MPI_COMM_WORLD, "dup of COMM_WORLD");
    test_comm(MPI_COMM_SELF, "dup of COMM_SELF");

    /* Hints on COMM_SELF itself (released at MPI_Finalize). */
    MPI_Info hints;
    MPI_OK(MPI_Info_create(&hints));
    MPI_OK(MPI_Info_set(hints, "ferry_on_self", "yes"));
    MPI_OK(MPI_Comm_set_info(MPI_COMM_SELF, hints));
    MPI_OK(MPI_Info_free(&hints));
    CHECK_OWN_HINT(MPI_COMM_SELF, "ferry_on_self", "yes");
    return mt_finish();
}
