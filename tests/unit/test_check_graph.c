/* mpiexec --check's judgement of blocked ranks (tools/mpiexec/check_graph.c): deadlocks, the
 * potential deadlocks of buffered sends (and which ranks to release), progress that is still
 * possible (a matching send and receive, a collective everyone is in, an OR wait), the waits on
 * finished ranks, and the wait-for cycle shown. */
#include "check.h"
#include "unit.h"

#include <string.h>

#define N 8
static fy_chk_rank_t ranks[N];
static fy_chk_item_t items[N][4];
static fy_chk_job_t J;
static char release[N], stuck[N];
static int cycle[N];
static fy_chk_result_t res;

static void reset(int size)
{
    fy_chk_job_free(&J);
    memset(ranks, 0, sizeof(ranks));
    memset(items, 0, sizeof(items));
    J = (fy_chk_job_t){.size = size, .r = ranks};
    res = (fy_chk_result_t){.release = release, .stuck = stuck, .cycle = cycle};
    for (int i = 0; i < N; i++) {
        ranks[i].items = items[i];
        ranks[i].state = FY_CHK_RUNNING;
    }
    int all[N];
    for (int i = 0; i < size; i++)
        all[i] = i;
    fy_chk_comm_add(&J, 1, size, all); /* the items' communicator: every rank */
}

/* Rank r blocks in call on one more item. */
static void add(int r, const char *call, int kind, int peer, int tag)
{
    fy_chk_rank_t *k = &ranks[r];
    k->state = FY_CHK_BLOCKED;
    k->all = 1;
    snprintf(k->call, sizeof(k->call), "%s", call);
    items[r][k->nitems] = (fy_chk_item_t){.kind = kind, .peer = peer, .tag = tag, .comm = 1};
    k->ntotal = ++k->nitems;
}

static void add_coll(int r, const char *coll, uint64_t seq)
{
    add(r, coll, FY_CHK_COLL, -1, -1);
    fy_chk_item_t *it = &items[r][ranks[r].nitems - 1];
    it->seq = seq;
    snprintf(it->coll, sizeof(it->coll), "%s", coll);
}

static int test_recv_cycle(void)
{
    reset(3);
    add(0, "MPI_Recv", FY_CHK_RECV, 1, 0);
    add(1, "MPI_Recv", FY_CHK_RECV, 2, 0);
    add(2, "MPI_Recv", FY_CHK_RECV, 0, 0);
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_DEADLOCK);
    CHECK_EQ(res.ncycle, 3);
    CHECK(cycle[0] == 0 && cycle[1] == 1 && cycle[2] == 2);
    CHECK(stuck[0] && stuck[1] && stuck[2]);
    char line[256];
    fy_chk_describe(&J, 1, line, sizeof(line));
    CHECK(strcmp(line, "MPI_Recv from rank 2, tag 0, comm #1") == 0);
    return 0;
}

static int test_running_rank(void)
{
    reset(3);
    add(0, "MPI_Recv", FY_CHK_RECV, 1, 0);
    add(1, "MPI_Recv", FY_CHK_RECV, 0, 0);
    fy_chk_analyze(&J, &res); /* rank 2 runs: it may yet do anything */
    CHECK_EQ(res.verdict, FY_CHK_NONE);
    return 0;
}

static int test_in_flight(void)
{
    reset(2);
    add(0, "MPI_Recv", FY_CHK_RECV, 1, 5);
    add(1, "MPI_Ssend", FY_CHK_SEND, 0, 5);
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_PROGRESS);
    /* A wildcard receive matches too; another tag does not. */
    items[0][0].peer = -1;
    items[0][0].tag = -1;
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_PROGRESS);
    items[0][0] = (fy_chk_item_t){.kind = FY_CHK_RECV, .peer = 1, .tag = 6, .comm = 1};
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_DEADLOCK);
    /* Nor does another communicator. */
    items[0][0].tag = 5;
    items[0][0].comm = 2;
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_DEADLOCK);
    return 0;
}

static int test_buffered_sends(void)
{
    reset(2);
    add(0, "MPI_Send", FY_CHK_SYNC, 1, 0);
    add(1, "MPI_Send", FY_CHK_SYNC, 0, 0);
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_POTENTIAL);
    CHECK(release[0] && release[1]);
    CHECK_EQ(res.ncycle, 2);
    /* A buffered send whose receiver waits for it is just a send in flight. */
    reset(2);
    add(0, "MPI_Send", FY_CHK_SYNC, 1, 0);
    add(1, "MPI_Recv", FY_CHK_RECV, 0, 0);
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_PROGRESS);
    return 0;
}

static int test_release_only_senders(void)
{
    /* 0 waits in a buffered send to 1; 1 and 2 in receives: only 0 is released, the others go
     * on because of what 0 will do. */
    reset(3);
    add(0, "MPI_Send", FY_CHK_SYNC, 1, 0);
    add(1, "MPI_Recv", FY_CHK_RECV, 2, 0);
    add(2, "MPI_Recv", FY_CHK_RECV, 0, 0);
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_POTENTIAL);
    CHECK(release[0] && !release[1] && !release[2]);
    return 0;
}

static int test_finished_peer(void)
{
    reset(2);
    add(0, "MPI_Recv", FY_CHK_RECV, 1, 2);
    ranks[1].state = FY_CHK_FINISHED;
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_DEADLOCK);
    CHECK_EQ(res.ncycle, 0);
    char line[256];
    fy_chk_describe(&J, 0, line, sizeof(line));
    CHECK(strstr(line, "from rank 1, which has finished") != NULL);
    /* All finished: nothing to judge. */
    ranks[0].state = FY_CHK_FINISHED;
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_NONE);
    return 0;
}

static int test_collectives(void)
{
    reset(3);
    for (int r = 0; r < 3; r++)
        add_coll(r, "MPI_Bcast", 4);
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_PROGRESS);
    /* Rank 2 is one collective ahead: the others wait for it, it for them. */
    items[2][0].seq = 5;
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_DEADLOCK);
    /* The same on a communicator never announced: not judged. */
    for (int r = 0; r < 3; r++)
        items[r][0].comm = 77;
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_PROGRESS);
    /* A barrier against a receive. */
    reset(2);
    add_coll(0, "MPI_Barrier", 1);
    add(1, "MPI_Recv", FY_CHK_RECV, 0, 0);
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_DEADLOCK);
    CHECK_EQ(res.ncycle, 2);
    char line[256];
    fy_chk_describe(&J, 0, line, sizeof(line));
    CHECK(strcmp(line, "MPI_Barrier on comm #1 (its collective #1 there)") == 0);
    /* A collective on a communicator of two ranks, the third rank finished. */
    reset(3);
    int two[2] = {0, 1};
    CHECK_EQ(fy_chk_comm_add(&J, 9, 2, two), 0);
    add_coll(0, "MPI_Barrier", 1);
    add_coll(1, "MPI_Barrier", 1);
    items[0][0].comm = items[1][0].comm = 9;
    ranks[2].state = FY_CHK_FINISHED;
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_PROGRESS);
    return 0;
}

static int test_and_or(void)
{
    /* Waitall on a receive that can complete and one that cannot: the sender goes on. */
    reset(3);
    add(0, "MPI_Waitall", FY_CHK_RECV, 1, 0);
    add(0, "MPI_Waitall", FY_CHK_RECV, 2, 0);
    add(1, "MPI_Send", FY_CHK_SEND, 0, 0);
    add(2, "MPI_Recv", FY_CHK_RECV, 0, 0);
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_PROGRESS);
    /* Waitany on two receives nobody sends: stuck; told of more items than sent: not. */
    reset(2);
    add(0, "MPI_Waitany", FY_CHK_RECV, 1, 0);
    add(0, "MPI_Waitany", FY_CHK_RECV, 1, 1);
    ranks[0].all = 0;
    add(1, "MPI_Recv", FY_CHK_RECV, 0, 0);
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_DEADLOCK);
    ranks[0].ntotal = 20;
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_PROGRESS);
    /* Waitany where one item is a buffered send: a potential deadlock, released. */
    ranks[0].ntotal = 2;
    items[0][1] = (fy_chk_item_t){.kind = FY_CHK_SYNC, .peer = 1, .tag = 3, .comm = 1};
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_POTENTIAL);
    CHECK(release[0] && !release[1]);
    return 0;
}

static int test_any_source(void)
{
    /* Any source on a communicator of ranks 0-1: a send from rank 2 on another communicator
     * does not count, one from rank 1 on it does. */
    reset(3);
    int two[2] = {0, 1};
    CHECK_EQ(fy_chk_comm_add(&J, 7, 2, two), 0);
    add(0, "MPI_Recv", FY_CHK_RECV, -1, -1);
    items[0][0].comm = 7;
    add(1, "MPI_Recv", FY_CHK_RECV, 0, 0);
    add(2, "MPI_Ssend", FY_CHK_SEND, 0, 0);
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_DEADLOCK);
    CHECK_EQ(res.ncycle, 2);
    CHECK(cycle[0] == 0 && cycle[1] == 1);
    items[2][0].comm = 7; /* rank 2 is not a member: still no match */
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_DEADLOCK);
    items[1][0] = (fy_chk_item_t){.kind = FY_CHK_SEND, .peer = 0, .tag = 4, .comm = 7};
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_PROGRESS);
    return 0;
}

static int test_one_message_one_receive(void)
{
    /* Rank 0 in a Waitall on three wildcard receives, rank 1 in a buffered send to it: the
     * send's receive is posted, so the server lets it go (an MPI_Ssend would complete), but it
     * completes one of the receives, not three. */
    reset(2);
    for (int k = 0; k < 3; k++)
        add(0, "MPI_Waitall", FY_CHK_RECV, -1, -1);
    add(1, "MPI_Send", FY_CHK_SYNC, 0, 100);
    fy_chk_pair(&J);
    CHECK(items[0][0].paired && !items[0][1].paired && !items[0][2].paired && items[1][0].paired);
    CHECK_EQ(fy_chk_matched_sync(&J, release), 1);
    CHECK(!release[0] && release[1]);
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_PROGRESS);
    /* Rank 1 gone (it finished after its sends): the Waitall can never complete. */
    ranks[1].state = FY_CHK_FINISHED;
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_DEADLOCK);
    CHECK_EQ(fy_chk_matched_sync(&J, release), 0);
    /* Two senders, two receives from specific ranks in the other order. */
    reset(3);
    add(0, "MPI_Waitall", FY_CHK_RECV, 2, 0);
    add(0, "MPI_Waitall", FY_CHK_RECV, 1, 0);
    add(1, "MPI_Send", FY_CHK_SYNC, 0, 0);
    add(2, "MPI_Ssend", FY_CHK_SEND, 0, 0);
    fy_chk_pair(&J);
    CHECK(items[0][0].paired && items[0][1].paired && items[1][0].paired && items[2][0].paired);
    return 0;
}

static int test_posted_receives(void)
{
    /* MPI_Irecv from the previous rank; MPI_Send to the next one (held by the checker): each
     * send's receive is posted, so this is no potential deadlock, and all are released. */
    reset(3);
    for (int r = 0; r < 3; r++) {
        add(r, "MPI_Send", FY_CHK_SYNC, (r + 1) % 3, 0);
        add(r, "MPI_Send", FY_CHK_POSTED, (r + 2) % 3, 0);
    }
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_PROGRESS);
    CHECK_EQ(fy_chk_matched_sync(&J, release), 3);
    char line[256];
    fy_chk_describe(&J, 0, line, sizeof(line));
    CHECK(strcmp(line, "MPI_Send to rank 1, tag 0, comm #1 (buffered, not yet received)") == 0);
    /* Posted with another tag: the sends wait for each other. */
    for (int r = 0; r < 3; r++)
        items[r][1].tag = 5;
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_POTENTIAL);
    CHECK(release[0] && release[1] && release[2]);
    /* A send to a rank the wrapper could not name is not judged. */
    reset(2);
    add(0, "MPI_Send", FY_CHK_SYNC, -1, 0);
    add(1, "MPI_Send", FY_CHK_SYNC, 0, 0);
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_PROGRESS);
    return 0;
}

static int test_other(void)
{
    /* Waits the wrappers cannot describe (MPI_Win_fence, MPI_Comm_split...) are not judged:
     * every rank in a fence during a long transfer is no deadlock. */
    reset(2);
    add(0, "MPI_Win_fence", FY_CHK_OTHER, -1, -1);
    add(1, "MPI_Win_fence", FY_CHK_OTHER, -1, -1);
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_PROGRESS);
    items[1][0] = (fy_chk_item_t){.kind = FY_CHK_RECV, .peer = 0, .tag = 0, .comm = 1};
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_PROGRESS);
    /* In a Waitall beside a receive that cannot complete, it does not free the rank. */
    reset(2);
    add(0, "MPI_Waitall", FY_CHK_OTHER, -1, -1);
    add(0, "MPI_Waitall", FY_CHK_RECV, 1, 0);
    add(1, "MPI_Recv", FY_CHK_RECV, 0, 0);
    fy_chk_analyze(&J, &res);
    CHECK_EQ(res.verdict, FY_CHK_DEADLOCK);
    return 0;
}

static const unit_case_t cases[] = {
    {"recv_cycle", test_recv_cycle},
    {"running_rank", test_running_rank},
    {"in_flight", test_in_flight},
    {"buffered_sends", test_buffered_sends},
    {"release_only_senders", test_release_only_senders},
    {"finished_peer", test_finished_peer},
    {"collectives", test_collectives},
    {"and_or", test_and_or},
    {"any_source", test_any_source},
    {"one_message_one_receive", test_one_message_one_receive},
    {"posted_receives", test_posted_receives},
    {"other", test_other},
};

int main(void)
{
    int rc = unit_run(cases, UNIT_COUNT(cases));
    fy_chk_job_free(&J);
    return rc;
}
