/* Completion calls: Wait/Test, Waitall/Testall, Waitany/Testany, Waitsome/Testsome, with arrays
 * that contain MPI_REQUEST_NULL, all-null arrays, count 0, MPI_STATUS_IGNORE and
 * MPI_STATUSES_IGNORE; completed requests become MPI_REQUEST_NULL; every message is received
 * exactly once. Each rank exchanges with the next and the previous rank. */
#include "mpitest.h"

#define N 12

static int next, prev;

/* Posts N receives from prev (tags 0..N-1) into r[] and N sends to next into s[]; request slots
 * whose index is in `nulls` (bitmask) are left as MPI_REQUEST_NULL. */
static void post(MPI_Request *r, MPI_Request *s, int *rbuf, int *sbuf, unsigned nulls, int base)
{
    for (int i = 0; i < N; i++) {
        r[i] = s[i] = MPI_REQUEST_NULL;
        rbuf[i] = -1;
        sbuf[i] = base + mt_rank * 100 + i;
        if (nulls & (1u << i))
            continue;
        MPI_OK(MPI_Irecv(&rbuf[i], 1, MPI_INT, prev, base + i, MPI_COMM_WORLD, &r[i]));
        MPI_OK(MPI_Isend(&sbuf[i], 1, MPI_INT, next, base + i, MPI_COMM_WORLD, &s[i]));
    }
}

static void check_recv(const int *rbuf, unsigned nulls, int base, const char *what)
{
    for (int i = 0; i < N; i++) {
        int want = (nulls & (1u << i)) ? -1 : base + prev * 100 + i;
        CHECK(rbuf[i] == want, "%s: slot %d holds %d, expected %d", what, i, rbuf[i], want);
    }
}

static void check_all_null(const MPI_Request *r, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        CHECK(r[i] == MPI_REQUEST_NULL, "%s: request %d not set to MPI_REQUEST_NULL", what, i);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    next = (mt_rank + 1) % mt_size;
    prev = (mt_rank + mt_size - 1) % mt_size;
    MPI_Request r[N], s[N],
        nulls[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status sts[N], st;
    int rbuf[N], sbuf[N], flag, idx, out, idxs[N];
    const unsigned some_null = 0x249; /* slots 0, 3, 6, 9 */

    /* Wait and Test on MPI_REQUEST_NULL: at once, empty status. */
    MPI_Request rn = MPI_REQUEST_NULL;
    MPI_OK(MPI_Wait(&rn, &st));
    CHECK_EMPTY(&st, MPI_ANY_SOURCE, "MPI_Wait(MPI_REQUEST_NULL)");
    flag = 0;
    MPI_OK(MPI_Test(&rn, &flag, &st));
    CHECK(flag == 1, "MPI_Test(MPI_REQUEST_NULL): flag %d", flag);
    CHECK_EMPTY(&st, MPI_ANY_SOURCE, "MPI_Test(MPI_REQUEST_NULL)");

    /* All-null arrays and count 0. */
    MPI_OK(MPI_Waitall(4, nulls, sts));
    for (int i = 0; i < 4; i++)
        CHECK_EMPTY(&sts[i], MPI_ANY_SOURCE, "MPI_Waitall of null requests");
    MPI_OK(MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE));
    flag = 0;
    MPI_OK(MPI_Testall(4, nulls, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag == 1, "MPI_Testall of null requests: flag %d", flag);
    idx = 5;
    MPI_OK(MPI_Waitany(4, nulls, &idx, &st));
    CHECK(idx == MPI_UNDEFINED, "MPI_Waitany of null requests: index %d", idx);
    CHECK_EMPTY(&st, MPI_ANY_SOURCE, "MPI_Waitany of null requests");
    idx = 5;
    flag = 0;
    MPI_OK(MPI_Testany(4, nulls, &idx, &flag, &st));
    CHECK(flag == 1 && idx == MPI_UNDEFINED, "MPI_Testany of null requests: flag %d index %d", flag,
          idx);
    out = 5;
    MPI_OK(MPI_Waitsome(4, nulls, &out, idxs, sts));
    CHECK(out == MPI_UNDEFINED, "MPI_Waitsome of null requests: outcount %d", out);
    out = 5;
    MPI_OK(MPI_Testsome(4, nulls, &out, idxs, MPI_STATUSES_IGNORE));
    CHECK(out == MPI_UNDEFINED, "MPI_Testsome of null requests: outcount %d", out);
    idx = 5;
    MPI_OK(MPI_Waitany(0, NULL, &idx, MPI_STATUS_IGNORE));
    CHECK(idx == MPI_UNDEFINED, "MPI_Waitany count 0: index %d", idx);

    /* Waitall with nulls inside; statuses of real receives filled in. */
    post(r, s, rbuf, sbuf, some_null, 1000);
    MPI_OK(MPI_Waitall(N, r, sts));
    for (int i = 0; i < N; i++) {
        if (some_null & (1u << i))
            CHECK_EMPTY(&sts[i], MPI_ANY_SOURCE, "Waitall status of a null slot");
        else
            CHECK(sts[i].MPI_SOURCE == prev && sts[i].MPI_TAG == 1000 + i,
                  "Waitall status %d: source %d tag %d", i, sts[i].MPI_SOURCE, sts[i].MPI_TAG);
    }
    MPI_OK(MPI_Waitall(N, s, MPI_STATUSES_IGNORE));
    check_all_null(r, N, "Waitall receives");
    check_all_null(s, N, "Waitall sends");
    check_recv(rbuf, some_null, 1000, "Waitall");

    /* Testall loop. */
    post(r, s, rbuf, sbuf, 0, 2000);
    flag = 0;
    while (!flag)
        MPI_OK(MPI_Testall(N, r, &flag, sts));
    check_all_null(r, N, "Testall receives");
    for (int i = 0; i < N; i++)
        CHECK(sts[i].MPI_TAG == 2000 + i, "Testall status %d tag %d", i, sts[i].MPI_TAG);
    flag = 0;
    while (!flag)
        MPI_OK(MPI_Testall(N, s, &flag, MPI_STATUSES_IGNORE));
    check_recv(rbuf, 0, 2000, "Testall");

    /* Waitany until all done: each index exactly once, never a null slot. */
    post(r, s, rbuf, sbuf, some_null, 3000);
    unsigned done = 0;
    for (;;) {
        MPI_OK(MPI_Waitany(N, r, &idx, &st));
        if (idx == MPI_UNDEFINED)
            break;
        CHECK(idx >= 0 && idx < N, "Waitany index %d", idx);
        if (idx < 0 || idx >= N)
            break;
        CHECK(!(done & (1u << idx)) && !(some_null & (1u << idx)),
              "Waitany returned index %d twice or a null slot", idx);
        CHECK(st.MPI_TAG == 3000 + idx && r[idx] == MPI_REQUEST_NULL, "Waitany index %d: tag %d",
              idx, st.MPI_TAG);
        done |= 1u << idx;
    }
    CHECK((done | some_null) == (1u << N) - 1, "Waitany completed mask %#x", done);
    MPI_OK(MPI_Waitall(N, s, MPI_STATUSES_IGNORE));
    check_recv(rbuf, some_null, 3000, "Waitany");

    /* Testany until all done. */
    post(r, s, rbuf, sbuf, some_null, 4000);
    done = 0;
    for (;;) {
        flag = 0;
        MPI_OK(MPI_Testany(N, r, &idx, &flag, MPI_STATUS_IGNORE));
        if (flag && idx == MPI_UNDEFINED)
            break;
        if (!flag) {
            CHECK(idx == MPI_UNDEFINED, "Testany without completion: index %d", idx);
            continue;
        }
        if (idx < 0 || idx >= N) {
            CHECK(0, "Testany index %d", idx);
            break;
        }
        CHECK(!(done & (1u << idx)), "Testany returned index %d twice", idx);
        done |= 1u << idx;
    }
    CHECK((done | some_null) == (1u << N) - 1, "Testany completed mask %#x", done);
    /* Sends: Testany over them, with statuses ignored. */
    for (;;) {
        MPI_OK(MPI_Testany(N, s, &idx, &flag, MPI_STATUS_IGNORE));
        if (flag && idx == MPI_UNDEFINED)
            break;
    }
    check_recv(rbuf, some_null, 4000, "Testany");

    /* Waitsome and Testsome: indices distinct, statuses match their indices. */
    for (int variant = 0; variant < 2; variant++) {
        int base = 5000 + 1000 * variant;
        post(r, s, rbuf, sbuf, some_null, base);
        done = 0;
        for (;;) {
            out = -5;
            if (variant == 0)
                MPI_OK(MPI_Waitsome(N, r, &out, idxs, sts));
            else
                MPI_OK(MPI_Testsome(N, r, &out, idxs, sts));
            if (out == MPI_UNDEFINED)
                break;
            CHECK(out >= 0 && out <= N, "%s outcount %d", variant ? "Testsome" : "Waitsome", out);
            if (variant == 0)
                CHECK(out >= 1, "Waitsome returned outcount 0 with active requests");
            if (out < 0 || out > N)
                break;
            for (int k = 0; k < out; k++) {
                int i = idxs[k];
                if (i < 0 || i >= N) {
                    CHECK(0, "Wait/Testsome index %d", i);
                    continue;
                }
                CHECK(!(done & (1u << i)) && r[i] == MPI_REQUEST_NULL,
                      "Wait/Testsome index %d twice or not freed", i);
                CHECK(sts[k].MPI_TAG == base + i && sts[k].MPI_SOURCE == prev,
                      "Wait/Testsome status %d for index %d: tag %d", k, i, sts[k].MPI_TAG);
                done |= 1u << i;
            }
        }
        CHECK((done | some_null) == (1u << N) - 1, "Wait/Testsome completed mask %#x", done);
        for (;;) {
            MPI_OK(MPI_Waitsome(N, s, &out, idxs, MPI_STATUSES_IGNORE));
            if (out == MPI_UNDEFINED)
                break;
        }
        check_all_null(s, N, "Waitsome sends");
        check_recv(rbuf, some_null, base, variant ? "Testsome" : "Waitsome");
    }

    /* Test on a receive that cannot complete yet: flag 0, request unchanged. */
    int v = -1, w = 123;
    MPI_Request pr;
    MPI_OK(MPI_Irecv(&v, 1, MPI_INT, prev, 9999, MPI_COMM_WORLD, &pr));
    MPI_OK(MPI_Test(&pr, &flag, &st));
    CHECK(flag == 0 && pr != MPI_REQUEST_NULL, "Test of an unmatched receive: flag %d", flag);
    MPI_OK(MPI_Testany(1, &pr, &idx, &flag, &st));
    CHECK(flag == 0 && idx == MPI_UNDEFINED, "Testany of an unmatched receive: flag %d idx %d",
          flag, idx);
    MPI_OK(MPI_Testsome(1, &pr, &out, idxs, sts));
    CHECK(out == 0, "Testsome of an unmatched receive: outcount %d", out);
    MPI_OK(MPI_Testall(1, &pr, &flag, sts));
    CHECK(flag == 0, "Testall of an unmatched receive: flag %d", flag);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Send(&w, 1, MPI_INT, next, 9999, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&pr, MPI_STATUS_IGNORE));
    CHECK(v == 123, "late receive got %d", v);
    return mt_finish();
}
