/* The wait policy (src/p2p/wait_policy.c), rule by rule, from its inputs alone: what a waiting
 * rank does given how long it has polled and what it sees of its peer. The scheduler effects
 * these rules are for are measured by bench/, not here. */
#include "fy_wait_policy.h"
#include "unit.h"

enum { US = 1000 };

/* A rank that has polled idle for `idle_us` with a 50 µs base spin, its peer known. */
static fy_wait_in_t waiting(int idle_us)
{
    fy_wait_in_t in = {.idle_ns = (int64_t)idle_us * US, .spin_ns = 50 * US, .adaptive = 1,
                       .peer_known = 1, .peer_age_ns = 1000000000};
    return in;
}

static int test_base_spin(void)
{
    /* Nothing known about the peer, fixed mode, or oversubscribed: poll for the spin, then
     * sleep, whatever the peer looks like. */
    for (int v = 0; v < 4; v++) {
        fy_wait_in_t in = waiting(10);
        in.peer_polling = 1;
        in.peer_age_ns = 1 * US; /* would count as running */
        if (v == 0)
            in.peer_known = 0;
        if (v == 1)
            in.adaptive = 0;
        if (v == 2)
            in.oversubscribed = 1;
        if (v == 3) {
            in.peer_polling = 0;
            in.peer_age_ns = 5000 * US; /* long gone from its last wait */
        }
        CHECK_EQ(fy_wait_policy(&in), FY_WAIT_POLL);
        in.idle_ns = 50 * US;
        CHECK_EQ(fy_wait_policy(&in), FY_WAIT_SLEEP_SPENT);
        in.idle_ns = 10000 * US;
        CHECK_EQ(fy_wait_policy(&in), FY_WAIT_SLEEP_SPENT);
    }
    return 0;
}

static int test_block(void)
{
    fy_wait_in_t in = waiting(0);
    in.spin_ns = 0; /* FERRY_WAIT=block */
    CHECK_EQ(fy_wait_policy(&in), FY_WAIT_SLEEP_SPENT);
    return 0;
}

static int test_peer_running_elsewhere(void)
{
    /* Seen polling (or just leaving a wait) on another CPU a moment ago: poll past the base
     * spin, up to FY_WAIT_RUNNING_FACTOR times it, then sleep. */
    for (int polling = 0; polling < 2; polling++) {
        fy_wait_in_t in = waiting(10);
        in.peer_polling = polling;
        in.peer_age_ns = 3 * US;
        CHECK_EQ(fy_wait_policy(&in), FY_WAIT_POLL);
        in.idle_ns = 60 * US;
        CHECK_EQ(fy_wait_policy(&in), FY_WAIT_POLL_RUNNING);
        in.idle_ns = 50 * US * FY_WAIT_RUNNING_FACTOR - 1;
        CHECK_EQ(fy_wait_policy(&in), FY_WAIT_POLL_RUNNING);
        in.idle_ns = 50 * US * FY_WAIT_RUNNING_FACTOR;
        CHECK_EQ(fy_wait_policy(&in), FY_WAIT_SLEEP_SPENT);
    }
    return 0;
}

static int test_peer_on_my_cpu(void)
{
    /* Whatever it does, a peer on this CPU cannot answer while this rank polls: sleep at once,
     * even at the first look. */
    fy_wait_in_t cases[4];
    for (int i = 0; i < 4; i++) {
        cases[i] = waiting(1);
        cases[i].same_cpu = 1;
    }
    cases[0].peer_sleeping = 1;
    cases[1].peer_polling = 1, cases[1].peer_age_ns = 2 * US;
    cases[2].peer_polling = 1, cases[2].peer_age_ns = 300 * US;
    cases[3].peer_age_ns = 500 * US; /* left its wait recently */
    for (int i = 0; i < 4; i++)
        CHECK_EQ(fy_wait_policy(&cases[i]), FY_WAIT_SLEEP_SHARED);
    /* A CPU published long ago, by a rank outside MPI's waits, says nothing. */
    fy_wait_in_t old = waiting(1);
    old.same_cpu = 1;
    old.peer_age_ns = 2 * FY_WAIT_RECENT_NS;
    CHECK_EQ(fy_wait_policy(&old), FY_WAIT_POLL);
    return 0;
}

static int test_peer_descheduled(void)
{
    /* It says it polls but has not beaten for longer than FY_WAIT_STALE_NS: off its CPU. */
    fy_wait_in_t in = waiting(1);
    in.peer_polling = 1;
    in.peer_age_ns = FY_WAIT_STALE_NS;
    CHECK_EQ(fy_wait_policy(&in), FY_WAIT_POLL); /* not stale yet */
    in.peer_age_ns = FY_WAIT_STALE_NS + 1;
    CHECK_EQ(fy_wait_policy(&in), FY_WAIT_SLEEP_OFF);
    return 0;
}

static int test_peer_asleep_elsewhere(void)
{
    /* Asleep on another CPU: it answers after its wake-up; the base spin covers that. */
    fy_wait_in_t in = waiting(10);
    in.peer_sleeping = 1;
    in.peer_polling = 1;
    in.peer_age_ns = 1 * US;
    CHECK_EQ(fy_wait_policy(&in), FY_WAIT_POLL);
    in.idle_ns = 50 * US;
    CHECK_EQ(fy_wait_policy(&in), FY_WAIT_SLEEP_SPENT);
    return 0;
}

static int test_peer_copying(void)
{
    /* Its beat is dated ahead (a single copy it expects to end then): it runs, so poll, and
     * past the running factor too, since it said when the answer comes; the polling flag it
     * had before the copy does not matter. On this CPU it still needs this CPU: sleep. */
    for (int polling = 0; polling < 2; polling++) {
        fy_wait_in_t in = waiting(10);
        in.peer_polling = polling;
        in.peer_age_ns = -300 * US;
        CHECK_EQ(fy_wait_policy(&in), FY_WAIT_POLL);
        in.idle_ns = 60 * US;
        CHECK_EQ(fy_wait_policy(&in), FY_WAIT_POLL_RUNNING);
        in.idle_ns = 50 * FY_WAIT_RUNNING_FACTOR * US * 2;
        CHECK_EQ(fy_wait_policy(&in), FY_WAIT_POLL_RUNNING);
        in.same_cpu = 1;
        CHECK_EQ(fy_wait_policy(&in), FY_WAIT_SLEEP_SHARED);
    }
    /* Once the expected end has passed, the ordinary rules again: polling and silent for
     * longer than the staleness limit means descheduled. */
    fy_wait_in_t in = waiting(60);
    in.peer_polling = 1;
    in.peer_age_ns = FY_WAIT_STALE_NS + 1;
    CHECK_EQ(fy_wait_policy(&in), FY_WAIT_SLEEP_OFF);
    return 0;
}

static int test_sleeps(void)
{
    CHECK(!fy_wait_sleeps(FY_WAIT_POLL));
    CHECK(!fy_wait_sleeps(FY_WAIT_POLL_RUNNING));
    CHECK(fy_wait_sleeps(FY_WAIT_SLEEP_SPENT));
    CHECK(fy_wait_sleeps(FY_WAIT_SLEEP_SHARED));
    CHECK(fy_wait_sleeps(FY_WAIT_SLEEP_OFF));
    return 0;
}

static const unit_case_t cases[] = {
    {"base spin when the peer tells nothing", test_base_spin},
    {"block sleeps at once", test_block},
    {"peer running on another CPU", test_peer_running_elsewhere},
    {"peer on this CPU", test_peer_on_my_cpu},
    {"peer descheduled", test_peer_descheduled},
    {"peer asleep elsewhere", test_peer_asleep_elsewhere},
    {"peer copying a large message", test_peer_copying},
    {"which decisions sleep", test_sleeps},
};

int main(void)
{
    return unit_run(cases, UNIT_COUNT(cases));
}
