/* Unit tests of the PMI wire format and key-value store shared by the client and mpiexec. */
#include "pmi_kvs.h"
#include "pmi_wire.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                                 \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static int streq(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static void test_parse(void)
{
    fy_pmi_msg_t m;
    char l1[] = "cmd=put  kvsname=fy1x2 key=k value=a=b";
    CHECK(fy_pmi_wire_parse(l1, &m) == 0 && m.n == 4);
    CHECK(streq(fy_pmi_wire_get(&m, "cmd"), "put"));
    CHECK(streq(fy_pmi_wire_get(&m, "value"), "a=b")); /* only the first '=' splits */
    CHECK(fy_pmi_wire_get(&m, "missing") == NULL);

    char l2[] = "cmd=abort exitcode=7 error_msg=disk full: rc=3 at x";
    CHECK(fy_pmi_wire_parse(l2, &m) == 0 && m.n == 3);
    CHECK(streq(fy_pmi_wire_get(&m, "error_msg"), "disk full: rc=3 at x"));
    int v = 0;
    CHECK(fy_pmi_wire_get_int(&m, "exitcode", &v) == 0 && v == 7);
    CHECK(fy_pmi_wire_get(&m, "rc") == NULL);

    char l3[] = "cmd=barrier_out flag";
    CHECK(fy_pmi_wire_parse(l3, &m) == 0 && m.n == 2 && streq(fy_pmi_wire_get(&m, "flag"), ""));

    char l4[] = "rc=12x big=99999999999 neg=-4";
    CHECK(fy_pmi_wire_parse(l4, &m) == 0);
    CHECK(fy_pmi_wire_get_int(&m, "rc", &v) != 0);
    CHECK(fy_pmi_wire_get_int(&m, "big", &v) != 0);
    CHECK(fy_pmi_wire_get_int(&m, "neg", &v) == 0 && v == -4);

    char l5[] = "   ";
    CHECK(fy_pmi_wire_parse(l5, &m) == 0 && m.n == 0);

    char many[FY_PMI_WIRE_MAX_PAIRS * 4 + 8] = "";
    for (int i = 0; i <= FY_PMI_WIRE_MAX_PAIRS; i++)
        strcat(many, "a=b ");
    CHECK(fy_pmi_wire_parse(many, &m) != 0);

    CHECK(fy_pmi_wire_token_ok("key-1_x.y"));
    CHECK(!fy_pmi_wire_token_ok(""));
    CHECK(!fy_pmi_wire_token_ok("a b"));
    CHECK(!fy_pmi_wire_token_ok("a=b"));
    CHECK(!fy_pmi_wire_token_ok("a\nb"));
}

static void test_linebuf(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    fy_pmi_linebuf_t lb;
    fy_pmi_linebuf_init(&lb);

    CHECK(fy_pmi_linebuf_fill(&lb, sv[0], 1) < 0); /* nothing yet: EAGAIN */
    CHECK(fy_pmi_wire_write(sv[1], "cmd=a\r\ncmd=", 11) == 0);
    CHECK(fy_pmi_linebuf_fill(&lb, sv[0], 1) == 11);
    CHECK(streq(fy_pmi_linebuf_next(&lb), "cmd=a")); /* CRLF accepted */
    CHECK(fy_pmi_linebuf_next(&lb) == NULL);         /* "cmd=" is incomplete */
    CHECK(fy_pmi_wire_write(sv[1], "b\n\n", 3) == 0);
    CHECK(fy_pmi_linebuf_fill(&lb, sv[0], 0) == 3);
    CHECK(streq(fy_pmi_linebuf_next(&lb), "cmd=b"));
    CHECK(streq(fy_pmi_linebuf_next(&lb), ""));
    CHECK(fy_pmi_linebuf_next(&lb) == NULL);

    /* A line longer than the maximum is an error, not a hang or an overflow. */
    static char big[FY_PMI_WIRE_MAX_LINE + 10];
    memset(big, 'x', sizeof(big));
    CHECK(fy_pmi_wire_write(sv[1], big, sizeof(big)) == 0);
    ssize_t n;
    while ((n = fy_pmi_linebuf_fill(&lb, sv[0], 0)) > 0)
        CHECK(fy_pmi_linebuf_next(&lb) == NULL);
    CHECK(n < 0);

    close(sv[0]);
    close(sv[1]);
    fy_pmi_linebuf_fini(&lb);

    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    close(sv[1]);
    CHECK(fy_pmi_linebuf_fill(&lb, sv[0], 0) == 0); /* the peer closed: end of stream */
    fy_pmi_linebuf_fini(&lb);
    close(sv[0]);
}

static void test_kvs(void)
{
    fy_pmi_kvs_t kvs;
    fy_pmi_kvs_init(&kvs);
    CHECK(fy_pmi_kvs_get(&kvs, "a") == NULL);
    char k[32], val[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(k, sizeof(k), "key%d", i);
        snprintf(val, sizeof(val), "val%d", i);
        CHECK(fy_pmi_kvs_put(&kvs, k, val) == 0);
    }
    CHECK(fy_pmi_kvs_put(&kvs, "key7", "replaced") == 0);
    CHECK(kvs.count == 1000);
    CHECK(streq(fy_pmi_kvs_get(&kvs, "key7"), "replaced"));
    CHECK(streq(fy_pmi_kvs_get(&kvs, "key999"), "val999"));
    CHECK(fy_pmi_kvs_get(&kvs, "key1000") == NULL);
    fy_pmi_kvs_fini(&kvs);
    CHECK(fy_pmi_kvs_get(&kvs, "key7") == NULL);
}

int main(void)
{
    test_parse();
    test_linebuf();
    test_kvs();
    if (errors == 0)
        printf("No Errors\n");
    return errors != 0;
}
