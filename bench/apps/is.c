/*
 * is.c - integer sort in the manner of the NAS Parallel Benchmarks' IS kernel, written from
 * the kernel's published description (a bucket sort of uniformly-ish distributed integer keys
 * whose communication is one all-to-all of counts and one all-to-all-v of key blocks).
 *
 * N keys in [0, B) are spread evenly over the ranks; each key is B times the mean of four
 * uniform random numbers (so the keys pile up in the middle of the range, as in the
 * original). One iteration:
 *   1. rank 0 changes two of its keys (so no iteration repeats the previous one exactly);
 *   2. every rank counts its keys in 1024 buckets of equal key range, and an MPI_Allreduce
 *      of the counts lets every rank assign the buckets, in order, to ranks so that each rank
 *      receives about N / P keys;
 *   3. every rank packs its keys by destination and sends the counts with MPI_Alltoall;
 *   4. MPI_Alltoallv moves the keys: at 2 ranks of the full size, blocks of 64 MiB (N = 2^25
 *      keys of 4 bytes: each rank sends half of its 64 MiB to the other), at 8 ranks 2 MiB;
 *   5. every rank ranks the keys it received with a counting sort over its key range.
 * After the last iteration the sort is verified: each rank's keys are in order and inside its
 * key range, the last key of rank r is at most the first of rank r + 1, no key was lost
 * (global count) or changed (global sum), and every rank's local counts add up.
 *
 * Timed: `iters` iterations (after one untimed warm-up), between barriers; the time of the
 * Alltoallv alone is summed per rank and the slowest rank's sum is reported.
 *   Mop/s = iters * N / time / 10^6     (keys ranked per second, as NAS counts it)
 *
 * Usage: is [-m] [-q] [-n keys] [-k max_key] [-w iters]
 *   -q   quick: N = 2^22 keys in [0, 2^19) (class-A-like range), instead of the class-B-like
 *        N = 2^25 in [0, 2^21)
 *   -n, -k, -w   the number of keys, the key range and the timed iterations (default 10)
 * With -m: RESULT bench=is (seconds for all iterations, unit=s), bench=is.mops (unit=Mops,
 * higher is better) and bench=is.alltoallv (µs per iteration of the slowest rank's
 * MPI_Alltoallv, unit=us), each with status=ok|FAILED.
 */
#include "apps_common.h"

#define NBUCKETS 1024
#define MAX_ITERS 1000

#define CHK(call)                                                                                  \
    do {                                                                                           \
        if (app_check((call), #call, __LINE__))                                                    \
            goto unsupported;                                                                      \
    } while (0)

typedef struct is_state {
    long n_local, n_total, max_key;
    int *keys;    /* this rank's keys */
    int *packed;  /* keys ordered by destination rank */
    int *recv;    /* the keys this rank sorts */
    int *sorted;  /* their sorted order */
    long recv_cap;
    int *count;   /* counting-sort counts over this rank's key range */
    long count_cap;
    int *send_n, *send_off, *recv_n, *recv_off;
    long bucket_local[NBUCKETS], bucket_global[NBUCKETS];
    int bucket_owner[NBUCKETS];
    int lo_key, hi_key; /* this rank's key range [lo, hi) of the last iteration */
    long nrecv;
} is_state_t;

static int gen_key(long global_index, long max_key)
{
    uint64_t z = app_mix64((uint64_t)global_index * 4 + 0x1234567ull);
    double sum = 0.0;
    for (int j = 0; j < 4; j++) {
        z = app_mix64(z);
        sum += (double)(z >> 11) / 9007199254740992.0;
    }
    long k = (long)(sum / 4.0 * (double)max_key);
    return (int)(k < max_key ? k : max_key - 1);
}

/* One iteration; returns APP_UNSUPPORTED when an MPI call is unsupported, else 0. */
static int iterate(is_state_t *s, int it, double *a2av_sec)
{
    const long width = (s->max_key + NBUCKETS - 1) / NBUCKETS;
    if (app_rank == 0 && s->n_local > 2 * MAX_ITERS) {
        s->keys[it] = it;
        s->keys[it + MAX_ITERS] = (int)(s->max_key - 1 - it);
    }
    memset(s->bucket_local, 0, sizeof(s->bucket_local));
    for (long i = 0; i < s->n_local; i++)
        s->bucket_local[s->keys[i] / width]++;
    CHK(MPI_Allreduce(s->bucket_local, s->bucket_global, NBUCKETS, MPI_LONG, MPI_SUM,
                      MPI_COMM_WORLD));
    /* Buckets in order to ranks: rank r takes buckets until its share reaches (r + 1) N / P. */
    long acc = 0;
    int r = 0;
    for (int b = 0; b < NBUCKETS; b++) {
        s->bucket_owner[b] = r;
        acc += s->bucket_global[b];
        while (r < app_size - 1 && acc >= (long)((double)s->n_total * (r + 1) / app_size))
            r++;
    }
    for (int d = 0; d < app_size; d++)
        s->send_n[d] = 0;
    for (int b = 0; b < NBUCKETS; b++)
        s->send_n[s->bucket_owner[b]] += (int)s->bucket_local[b];
    s->send_off[0] = 0;
    for (int d = 1; d < app_size; d++)
        s->send_off[d] = s->send_off[d - 1] + s->send_n[d - 1];
    /* Pack by destination: buckets are owned in order, so bucket order is destination order. */
    long fill[NBUCKETS], o = 0;
    for (int b = 0; b < NBUCKETS; b++) {
        fill[b] = o;
        o += s->bucket_local[b];
    }
    for (long i = 0; i < s->n_local; i++) {
        int k = s->keys[i];
        s->packed[fill[k / width]++] = k;
    }
    CHK(MPI_Alltoall(s->send_n, 1, MPI_INT, s->recv_n, 1, MPI_INT, MPI_COMM_WORLD));
    long total = 0;
    for (int d = 0; d < app_size; d++) {
        s->recv_off[d] = (int)total;
        total += s->recv_n[d];
    }
    if (total > s->recv_cap) {
        free(s->recv);
        free(s->sorted);
        s->recv_cap = total + total / 4;
        s->recv = app_alloc(sizeof(int) * (size_t)s->recv_cap);
        s->sorted = app_alloc(sizeof(int) * (size_t)s->recv_cap);
    }
    double t0 = MPI_Wtime();
    CHK(MPI_Alltoallv(s->packed, s->send_n, s->send_off, MPI_INT, s->recv, s->recv_n, s->recv_off,
                      MPI_INT, MPI_COMM_WORLD));
    *a2av_sec += MPI_Wtime() - t0;
    s->nrecv = total;

    /* This rank's key range: its first and past-its-last bucket. */
    int first = -1, last = -1;
    for (int b = 0; b < NBUCKETS; b++)
        if (s->bucket_owner[b] == app_rank) {
            if (first < 0)
                first = b;
            last = b;
        }
    s->lo_key = first < 0 ? 0 : (int)(first * width);
    s->hi_key = first < 0 ? 0 : (int)((last + 1) * width);
    long range = s->hi_key - s->lo_key;
    if (range > s->count_cap) {
        free(s->count);
        s->count_cap = range;
        s->count = app_alloc(sizeof(int) * (size_t)range);
    }
    /* Counting sort: count, prefix sums, place. Keys outside the range (a bug) are kept
     * aside and caught by the verification. */
    if (range > 0)
        memset(s->count, 0, sizeof(int) * (size_t)range);
    for (long i = 0; i < total; i++) {
        long k = (long)s->recv[i] - s->lo_key;
        if (k >= 0 && k < range)
            s->count[k]++;
    }
    long pos = 0;
    for (long k = 0; k < range; k++) {
        int c = s->count[k];
        s->count[k] = (int)pos;
        pos += c;
    }
    for (long i = 0; i < total; i++) {
        long k = (long)s->recv[i] - s->lo_key;
        if (k >= 0 && k < range)
            s->sorted[s->count[k]++] = s->recv[i];
    }
    for (long i = pos; i < total; i++)
        s->sorted[i] = -1; /* keys out of range: marks the sort wrong */
    return 0;
unsupported:
    return APP_UNSUPPORTED;
}

/* Full verification of the last iteration; returns 1 when the sort is right. */
static int verify(const is_state_t *s, uint64_t key_sum_before)
{
    int ok = 1;
    uint64_t sum = 0;
    for (long i = 0; i < s->nrecv; i++) {
        int k = s->sorted[i];
        sum += (uint64_t)k;
        if (k < s->lo_key || k >= s->hi_key || (i > 0 && k < s->sorted[i - 1]))
            ok = 0;
    }
    /* Boundaries: my first key against the left neighbour's last. */
    int mine[2] = {s->nrecv ? s->sorted[0] : -1, s->nrecv ? s->sorted[s->nrecv - 1] : -1};
    int left_last = -1;
    int right = app_rank + 1 < app_size ? app_rank + 1 : MPI_PROC_NULL;
    int left = app_rank > 0 ? app_rank - 1 : MPI_PROC_NULL;
    MPI_Sendrecv(&mine[1], 1, MPI_INT, right, 7, &left_last, 1, MPI_INT, left, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (left != MPI_PROC_NULL && s->nrecv && left_last > mine[0])
        ok = 0;
    long n = s->nrecv, n_all = 0;
    uint64_t sums[2] = {sum, key_sum_before}, sums_all[2] = {0, 0};
    MPI_Allreduce(&n, &n_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(sums, sums_all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (n_all != s->n_total || sums_all[0] != sums_all[1])
        ok = 0;
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all_ok;
}

int main(int argc, char **argv)
{
    app_opts_t o;
    app_init(&argc, &argv, "is");
    if (app_parse(argc, argv, "[-m] [-q] [-n keys] [-k max_key] [-w iters]", &o)) {
        MPI_Finalize();
        return 2;
    }
    is_state_t s;
    memset(&s, 0, sizeof(s));
    s.n_total = o.n ? o.n : (o.quick ? 1L << 22 : 1L << 25);
    s.max_key = o.k ? o.k : (o.quick ? 1L << 19 : 1L << 21);
    int iters = o.w ? (int)(o.w < MAX_ITERS ? o.w : MAX_ITERS) : 10;
    if (s.max_key < NBUCKETS || s.max_key > (1L << 30) || s.n_total < app_size ||
        s.n_total / app_size > (1L << 30)) {
        if (app_rank == 0)
            fprintf(stderr, "is: need %d <= max_key <= 2^30 and ranks <= keys <= 2^30 per rank\n",
                    NBUCKETS);
        MPI_Finalize();
        return 2;
    }
    long lo = s.n_total * app_rank / app_size, hi = s.n_total * (app_rank + 1) / app_size;
    s.n_local = hi - lo;
    s.keys = app_alloc(sizeof(int) * (size_t)s.n_local);
    s.packed = app_alloc(sizeof(int) * (size_t)s.n_local);
    s.send_n = app_alloc(sizeof(int) * (size_t)app_size * 4);
    s.send_off = s.send_n + app_size;
    s.recv_n = s.send_off + app_size;
    s.recv_off = s.recv_n + app_size;
    for (long i = 0; i < s.n_local; i++)
        s.keys[i] = gen_key(lo + i, s.max_key);
    app_note(&o, "is: %ld keys in [0, %ld), %d ranks, %d timed iterations, Alltoallv blocks of "
                 "about %.2f MiB",
             s.n_total, s.max_key, app_size, iters,
             (double)s.n_total / app_size / app_size * sizeof(int) / 1048576.0);

    double a2av = 0.0;
    if (iterate(&s, 0, &a2av)) /* warm-up: touches every buffer */
        goto unsupported;
    a2av = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 1; it <= iters; it++)
        if (iterate(&s, it, &a2av))
            goto unsupported;
    double t = MPI_Wtime() - t0, t_max = 0.0, a2av_max = 0.0;
    MPI_Allreduce(&t, &t_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&a2av, &a2av_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    uint64_t before = 0;
    for (long i = 0; i < s.n_local; i++)
        before += (uint64_t)s.keys[i];
    int ok = verify(&s, before);
    double mops = (double)iters * (double)s.n_total / t_max / 1e6;
    double a2av_us = a2av_max / iters * 1e6;
    char extra[160];
    snprintf(extra, sizeof(extra), " mops=%.2f alltoallv_us=%.1f iters=%d max_key=%ld", mops,
             a2av_us, iters, s.max_key);
    app_report(&o, s.n_total, t_max, ok, extra);
    if (app_rank == 0 && o.machine) {
        const char *st = ok ? "ok" : "FAILED";
        printf("RESULT bench=is.mops ranks=%d size=%ld value=%.2f unit=Mops status=%s\n", app_size,
               s.n_total, mops, st);
        printf("RESULT bench=is.alltoallv ranks=%d size=%ld value=%.1f unit=us status=%s "
               "block_kib=%.0f\n",
               app_size, s.n_total, a2av_us, st,
               (double)s.n_total / app_size / app_size * sizeof(int) / 1024.0);
        fflush(stdout);
    }
    free(s.keys);
    free(s.packed);
    free(s.recv);
    free(s.sorted);
    free(s.count);
    free(s.send_n);
    MPI_Finalize();
    return ok ? 0 : 1;
unsupported:
    app_report_unsupported(&o, s.n_total, "");
    MPI_Finalize();
    return 0;
}
