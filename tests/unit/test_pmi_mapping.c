/* The parser of PMI_process_mapping (src/pmi/pmi_mapping.c): blocks, repetition when ranks
 * outnumber the places the blocks name, spaces, and malformed values refused whole. */
#include "fy_pmi.h"
#include "unit.h"

static int same(const int *got, const int *want, int n)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "  rank %d: host %d, expected %d\n", i, got[i], want[i]);
            return 0;
        }
    return 1;
}

static int test_block(void)
{
    int h[4], want[] = {0, 0, 1, 1};
    CHECK_EQ(fy_pmi_mapping_parse("(vector,(0,2,2))", h, 4), 0);
    CHECK(same(h, want, 4));
    return 0;
}

static int test_round_robin_repeats(void)
{
    int h[5], want[] = {0, 1, 0, 1, 0};
    CHECK_EQ(fy_pmi_mapping_parse("(vector,(0,2,1))", h, 5), 0);
    CHECK(same(h, want, 5));
    return 0;
}

static int test_uneven_blocks(void)
{
    /* 3 ranks on host 0, 1 on host 1, 2 on hosts 2 and 3 each (Hydra writes such lists for
     * host files with different slot counts). */
    int h[8], want[] = {0, 0, 0, 1, 2, 2, 3, 3};
    CHECK_EQ(fy_pmi_mapping_parse("(vector, (0,1,3), (1,1,1), (2,2,2))", h, 8), 0);
    CHECK(same(h, want, 8));
    return 0;
}

static int test_one_host(void)
{
    int h[3], want[] = {0, 0, 0};
    CHECK_EQ(fy_pmi_mapping_parse("(vector,(0,1,3))", h, 3), 0);
    CHECK(same(h, want, 3));
    return 0;
}

static int test_malformed(void)
{
    int h[4];
    static const char *bad[] = {"", "vector,(0,1,4)", "(vector)", "(vector,(0,1))",
                                "(vector,(0,1,4)", "(vector,(0,1,4)) x", "(vector,(0,0,0))",
                                "(vector,(-1,1,4))", "(list,(0,1,4))", "(vector,(a,1,4))"};
    for (size_t i = 0; i < UNIT_COUNT(bad); i++)
        if (fy_pmi_mapping_parse(bad[i], h, 4) == 0) {
            fprintf(stderr, "  accepted '%s'\n", bad[i]);
            return 1;
        }
    return 0;
}

static const unit_case_t cases[] = {
    {"block", test_block},
    {"round_robin_repeats", test_round_robin_repeats},
    {"uneven_blocks", test_uneven_blocks},
    {"one_host", test_one_host},
    {"malformed", test_malformed},
};

int main(void)
{
    return unit_run(cases, UNIT_COUNT(cases));
}
