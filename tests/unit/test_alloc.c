/* mpiexec's reading of a batch system's allocation (tools/mpiexec/alloc.c): Slurm's compressed
 * node lists (ranges, zero padding, several bracket groups, suffixes, commas inside and outside
 * brackets) and task counts (2(x3),1); PBS, Grid Engine and LSF host files and LSF's pairs; the
 * order in which batch systems are tried; malformed values refused with a message naming the
 * variable and quoting the value. */
#include "mpiexec.h"
#include "unit.h"

#include <string.h>
#include <unistd.h>

/* The list expanded, joined by spaces, or "ERR: message". */
static char *expand(const char *list)
{
    static char out[8192];
    char **v, err[512];
    int n;
    if (fy_mpx_slurm_nodelist(list, "SLURM_JOB_NODELIST", &v, &n, err, sizeof err) != 0) {
        snprintf(out, sizeof out, "ERR: %s", err);
        return out;
    }
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        o += (size_t)snprintf(out + o, o < sizeof out ? sizeof out - o : 0, "%s%s",
                              i ? " " : "", v[i]);
        free(v[i]);
    }
    free(v);
    return out;
}

#define CHECK_STR(got, want)                                                                       \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        if (strcmp(g_, w_) != 0) {                                                                 \
            fprintf(stderr, "  %s:%d: got '%s', expected '%s'\n", __FILE__, __LINE__, g_, w_);    \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static int test_plain(void)
{
    CHECK_STR(expand("node1"), "node1");
    CHECK_STR(expand("a,b,c"), "a b c");
    CHECK_STR(expand("n-1.example.org,n_2"), "n-1.example.org n_2");
    return 0;
}

static int test_ranges(void)
{
    CHECK_STR(expand("node[1-3,5]"), "node1 node2 node3 node5");
    CHECK_STR(expand("node[5]"), "node5");
    CHECK_STR(expand("node[9-11]"), "node9 node10 node11");
    CHECK_STR(expand("a[1-3,5],b07,c[01-02]-ib"), "a1 a2 a3 a5 b07 c01-ib c02-ib");
    CHECK_STR(expand("[1-2]x"), "1x 2x");
    return 0;
}

static int test_padding(void)
{
    CHECK_STR(expand("node[08-11]"), "node08 node09 node10 node11");
    CHECK_STR(expand("node[01-04,07]"), "node01 node02 node03 node04 node07");
    CHECK_STR(expand("n[001-002,10]"), "n001 n002 n10");
    CHECK_STR(expand("n[098-101]"), "n098 n099 n100 n101");
    CHECK_STR(expand("n[0-1]"), "n0 n1");
    return 0;
}

static int test_groups(void)
{
    /* The first group varies slowest. */
    CHECK_STR(expand("r[1-2]n[3-4]"), "r1n3 r1n4 r2n3 r2n4");
    CHECK_STR(expand("r[1-2]n[3-4]-ib,x"), "r1n3-ib r1n4-ib r2n3-ib r2n4-ib x");
    CHECK_STR(expand("r[1,3]u[08-09]"), "r1u08 r1u09 r3u08 r3u09");
    return 0;
}

static int test_big(void)
{
    char **v, err[256];
    int n;
    CHECK_EQ(fy_mpx_slurm_nodelist("n[00001-20000]", "V", &v, &n, err, sizeof err), 0);
    CHECK_EQ(n, 20000);
    CHECK_STR(v[0], "n00001");
    CHECK_STR(v[19999], "n20000");
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return 0;
}

static int test_bad_lists(void)
{
    static const char *bad[] = {
        "",          "a,",        ",a",        "a,,b",      "node[1-",   "node[",
        "node]",     "node[]",    "node[1-]",  "node[-3]",  "node[3-1]", "node[a-b]",
        "node[1,]",  "node[,1]",  "n[[1]]",    "n[1]]",     "n[1-2-3]",  "n[1 2]",
        "n[1-9999999999]", "n[0-99999999]", "bad name", "n[1-2]/x",
    };
    for (size_t i = 0; i < UNIT_COUNT(bad); i++) {
        const char *got = expand(bad[i]);
        /* expand() only parses; names are checked when added to the hosts. */
        if (strncmp(got, "ERR: ", 5) != 0 && strchr(bad[i], ' ') == NULL &&
            strchr(bad[i], '/') == NULL) {
            fprintf(stderr, "  accepted '%s' as '%s'\n", bad[i], got);
            return 1;
        }
        if (strncmp(got, "ERR: ", 5) == 0 &&
            (strstr(got, "SLURM_JOB_NODELIST") == NULL || strstr(got, bad[i]) == NULL)) {
            fprintf(stderr, "  the message for '%s' names neither: %s\n", bad[i], got);
            return 1;
        }
    }
    return 0;
}

static int test_counts(void)
{
    int c[6];
    char err[256];
    CHECK_EQ(fy_mpx_slurm_counts("2(x3),1", "T", c, 4, err, sizeof err), 0);
    CHECK(c[0] == 2 && c[1] == 2 && c[2] == 2 && c[3] == 1);
    CHECK_EQ(fy_mpx_slurm_counts("4", "T", c, 1, err, sizeof err), 0);
    CHECK_EQ(c[0], 4);
    CHECK_EQ(fy_mpx_slurm_counts("1,3(x2),16(x1),2", "T", c, 5, err, sizeof err), 0);
    CHECK(c[0] == 1 && c[1] == 3 && c[2] == 3 && c[3] == 16 && c[4] == 2);
    static const char *bad[] = {"", "2(x3)", "2(x3),1,1", "0", "-1", "2(3)", "2(x)", "2(x0)",
                                "2(x3", "2,", ",2", "2 ,1", "a", "2(x3)1", "99999", " 2"};
    for (size_t i = 0; i < UNIT_COUNT(bad); i++) {
        if (fy_mpx_slurm_counts(bad[i], "SLURM_TASKS_PER_NODE", c, 4, err, sizeof err) == 0) {
            fprintf(stderr, "  accepted '%s'\n", bad[i]);
            return 1;
        }
        if (strstr(err, "SLURM_TASKS_PER_NODE") == NULL || strstr(err, bad[i]) == NULL) {
            fprintf(stderr, "  the message for '%s' names neither: %s\n", bad[i], err);
            return 1;
        }
    }
    return 0;
}

static const char *const all_vars[] = {
    "SLURM_JOB_ID", "SLURM_JOBID", "SLURM_JOB_NODELIST", "SLURM_NODELIST",
    "SLURM_TASKS_PER_NODE", "SLURM_JOB_CPUS_PER_NODE", "SLURM_STEP_ID", "SLURM_STEPID",
    "PBS_NODEFILE", "PE_HOSTFILE", "LSB_DJOB_HOSTFILE", "LSB_MCPU_HOSTS",
};

static void clear_env(void)
{
    for (size_t i = 0; i < UNIT_COUNT(all_vars); i++)
        unsetenv(all_vars[i]);
}

/* The hosts read, as "name:slots ..." (every slot counted), or "ERR: ..."; *rm_p the kind. */
static char *hosts_of_env(fy_mpx_rm_t *rm_p)
{
    static char out[4096];
    fy_mpx_hosts_t hs = {0};
    char err[512];
    fy_mpx_rm_t rm = FY_MPX_RM_NONE;
    if (fy_mpx_alloc_read(&hs, &rm, err, sizeof err) != 0) {
        snprintf(out, sizeof out, "ERR: %s", err);
    } else {
        size_t o = 0;
        out[0] = '\0';
        for (int i = 0; i < hs.n; i++)
            o += (size_t)snprintf(out + o, o < sizeof out ? sizeof out - o : 0, "%s%s:%d%s",
                                  i ? " " : "", hs.h[i].name, hs.h[i].slots,
                                  hs.h[i].counted ? "" : "?");
    }
    fy_mpx_hosts_free(&hs);
    *rm_p = rm;
    return out;
}

static char tmpdir[] = "/tmp/fy-test-alloc.XXXXXX";

static const char *file_with(const char *name, const char *text)
{
    static char path[4][256];
    static int k;
    char *p = path[k++ % 4];
    snprintf(p, 256, "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "w");
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
    return p;
}

static int test_none(void)
{
    fy_mpx_rm_t rm;
    clear_env();
    CHECK_STR(hosts_of_env(&rm), "");
    CHECK_EQ(rm, FY_MPX_RM_NONE);
    CHECK_EQ(fy_mpx_alloc_in_slurm(), 0);
    /* A job id alone, or a node list alone, is no allocation; nor are empty values. */
    setenv("SLURM_JOB_ID", "12", 1);
    CHECK_EQ(fy_mpx_alloc_in_slurm(), 0);
    setenv("SLURM_JOB_NODELIST", "", 1);
    CHECK_EQ(fy_mpx_alloc_in_slurm(), 0);
    unsetenv("SLURM_JOB_ID");
    setenv("SLURM_JOB_NODELIST", "n1", 1);
    CHECK_EQ(fy_mpx_alloc_in_slurm(), 0);
    CHECK_STR(hosts_of_env(&rm), "");
    setenv("PBS_NODEFILE", "", 1);
    CHECK_STR(hosts_of_env(&rm), "");
    return 0;
}

static int test_slurm(void)
{
    fy_mpx_rm_t rm;
    clear_env();
    setenv("SLURM_JOB_ID", "12", 1);
    setenv("SLURM_JOB_NODELIST", "node[08-10],gpu1", 1);
    setenv("SLURM_TASKS_PER_NODE", "2(x3),1", 1);
    CHECK_STR(hosts_of_env(&rm), "node08:2 node09:2 node10:2 gpu1:1");
    CHECK_EQ(rm, FY_MPX_RM_SLURM);
    CHECK_EQ(fy_mpx_alloc_in_slurm(), 1);
    /* The older names. */
    clear_env();
    setenv("SLURM_JOBID", "12", 1);
    setenv("SLURM_NODELIST", "a[1-2]", 1);
    setenv("SLURM_TASKS_PER_NODE", "3(x2)", 1);
    CHECK_STR(hosts_of_env(&rm), "a1:3 a2:3");
    /* No task counts: the CPUs per node; neither: a slot each. */
    unsetenv("SLURM_TASKS_PER_NODE");
    setenv("SLURM_JOB_CPUS_PER_NODE", "8,4", 1);
    CHECK_STR(hosts_of_env(&rm), "a1:8 a2:4");
    unsetenv("SLURM_JOB_CPUS_PER_NODE");
    CHECK_STR(hosts_of_env(&rm), "a1:1 a2:1");
    /* SLURM_JOB_NODELIST before SLURM_NODELIST (a step's own nodes). */
    setenv("SLURM_JOB_NODELIST", "b[1-3]", 1);
    CHECK_STR(hosts_of_env(&rm), "b1:1 b2:1 b3:1");
    /* Inside a step, SLURM_TASKS_PER_NODE is the step's: the job's CPUs are the slots. */
    setenv("SLURM_TASKS_PER_NODE", "1", 1);
    setenv("SLURM_JOB_CPUS_PER_NODE", "2,1(x2)", 1);
    setenv("SLURM_STEP_ID", "0", 1);
    CHECK_STR(hosts_of_env(&rm), "b1:2 b2:1 b3:1");
    unsetenv("SLURM_STEP_ID");
    setenv("SLURM_STEPID", "0", 1);
    CHECK_STR(hosts_of_env(&rm), "b1:2 b2:1 b3:1");
    unsetenv("SLURM_STEPID");
    setenv("SLURM_TASKS_PER_NODE", "1(x3)", 1);
    CHECK_STR(hosts_of_env(&rm), "b1:1 b2:1 b3:1");
    return 0;
}

static int test_slurm_errors(void)
{
    fy_mpx_rm_t rm;
    clear_env();
    setenv("SLURM_JOB_ID", "12", 1);
    setenv("SLURM_JOB_NODELIST", "node[1-3", 1);
    CHECK_STR(hosts_of_env(&rm), "ERR: malformed SLURM_JOB_NODELIST 'node[1-3': '[' without ']'");
    setenv("SLURM_JOB_NODELIST", "node[1-3]", 1);
    setenv("SLURM_TASKS_PER_NODE", "2(x2)", 1);
    CHECK_STR(hosts_of_env(&rm), "ERR: SLURM_TASKS_PER_NODE '2(x2)' gives counts for 2 hosts, "
                                 "but the node list names 3");
    setenv("SLURM_TASKS_PER_NODE", "2(y3)", 1);
    CHECK(strstr(hosts_of_env(&rm), "malformed SLURM_TASKS_PER_NODE '2(y3)'") != NULL);
    setenv("SLURM_TASKS_PER_NODE", "1(x3)", 1);
    setenv("SLURM_JOB_NODELIST", "no/de[1-3]", 1);
    CHECK(strstr(hosts_of_env(&rm), "SLURM_JOB_NODELIST 'no/de[1-3]': invalid host name") !=
          NULL);
    return 0;
}

static int test_pbs(void)
{
    fy_mpx_rm_t rm;
    clear_env();
    setenv("PBS_NODEFILE", file_with("pbs", "n1\nn1\nn2\n\nn1\n"), 1);
    /* Repeated lines are slots, wherever they stand (host order: first appearance). */
    CHECK_STR(hosts_of_env(&rm), "n1:3 n2:1");
    CHECK_EQ(rm, FY_MPX_RM_PBS);
    setenv("PBS_NODEFILE", file_with("pbs_bad", "n1 n2\n"), 1);
    CHECK(strstr(hosts_of_env(&rm), "PBS_NODEFILE='") != NULL);
    CHECK(strstr(hosts_of_env(&rm), "line 1: one host name per line") != NULL);
    setenv("PBS_NODEFILE", file_with("pbs_empty", "\n# nothing\n"), 1);
    CHECK(strstr(hosts_of_env(&rm), "names no host") != NULL);
    setenv("PBS_NODEFILE", "/nonexistent/fy-nodefile", 1);
    CHECK_STR(hosts_of_env(&rm), "ERR: cannot open the host file "
                                 "PBS_NODEFILE='/nonexistent/fy-nodefile': No such file or "
                                 "directory");
    return 0;
}

static int test_sge(void)
{
    fy_mpx_rm_t rm;
    clear_env();
    setenv("PE_HOSTFILE", file_with("sge", "n1.example.org 4 all.q@n1 UNDEFINED\nn2 2 all.q "
                                           "<NULL>\n"), 1);
    CHECK_STR(hosts_of_env(&rm), "n1.example.org:4 n2:2");
    CHECK_EQ(rm, FY_MPX_RM_SGE);
    setenv("PE_HOSTFILE", file_with("sge_bad", "n1 4 q\nn2 x q\n"), 1);
    CHECK(strstr(hosts_of_env(&rm), "PE_HOSTFILE='") != NULL);
    CHECK(strstr(hosts_of_env(&rm), "line 2: 'HOST SLOTS ...' expected") != NULL);
    setenv("PE_HOSTFILE", file_with("sge_bad", "n1\n"), 1);
    CHECK(strstr(hosts_of_env(&rm), "line 1") != NULL);
    return 0;
}

static int test_lsf(void)
{
    fy_mpx_rm_t rm;
    clear_env();
    setenv("LSB_MCPU_HOSTS", "h1 2 h2 4", 1);
    CHECK_STR(hosts_of_env(&rm), "h1:2 h2:4");
    CHECK_EQ(rm, FY_MPX_RM_LSF);
    /* The host file, when there is one, comes first. */
    setenv("LSB_DJOB_HOSTFILE", file_with("lsf", "h3\nh3\nh4\n"), 1);
    CHECK_STR(hosts_of_env(&rm), "h3:2 h4:1");
    unsetenv("LSB_DJOB_HOSTFILE");
    static const char *bad[] = {"h1", "h1 2 h2", "h1 0", "h1 x", "h1 2 h2 -1", " "};
    for (size_t i = 0; i < UNIT_COUNT(bad); i++) {
        setenv("LSB_MCPU_HOSTS", bad[i], 1);
        char *got = hosts_of_env(&rm);
        if (strncmp(got, "ERR: ", 5) != 0 || strstr(got, "LSB_MCPU_HOSTS") == NULL) {
            fprintf(stderr, "  LSB_MCPU_HOSTS='%s': %s\n", bad[i], got);
            return 1;
        }
    }
    return 0;
}

static int test_precedence(void)
{
    fy_mpx_rm_t rm;
    clear_env();
    setenv("LSB_MCPU_HOSTS", "lsf 1", 1);
    setenv("PE_HOSTFILE", file_with("sge", "sge 1 q p\n"), 1);
    CHECK_STR(hosts_of_env(&rm), "sge:1");
    setenv("PBS_NODEFILE", file_with("pbs", "pbs\n"), 1);
    CHECK_STR(hosts_of_env(&rm), "pbs:1");
    setenv("SLURM_JOB_ID", "1", 1);
    setenv("SLURM_JOB_NODELIST", "slurm", 1);
    CHECK_STR(hosts_of_env(&rm), "slurm:1");
    CHECK_EQ(rm, FY_MPX_RM_SLURM);
    return 0;
}

static const unit_case_t cases[] = {
    {"nodelist_plain", test_plain},
    {"nodelist_ranges", test_ranges},
    {"nodelist_padding", test_padding},
    {"nodelist_groups", test_groups},
    {"nodelist_big", test_big},
    {"nodelist_malformed", test_bad_lists},
    {"tasks_per_node", test_counts},
    {"no_allocation", test_none},
    {"slurm", test_slurm},
    {"slurm_errors", test_slurm_errors},
    {"pbs", test_pbs},
    {"sge", test_sge},
    {"lsf", test_lsf},
    {"precedence", test_precedence},
};

int main(void)
{
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    int rc = unit_run_with(cases, UNIT_COUNT(cases), clear_env);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}
