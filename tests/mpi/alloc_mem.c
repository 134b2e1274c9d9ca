/* MPI_Alloc_mem / MPI_Free_mem: sizes from 0 up to several MiB, each block writable over its
 * whole length and distinct from every other live block; many blocks live at once and freed in
 * a scrambled order; the mpi_minimum_memory_alignment info hint (honoured up to 1 MiB here; an
 * invalid value is MPI_ERR_INFO_VALUE), unknown keys ignored; Free_mem of an address that did
 * not come from Alloc_mem (or twice) is an error; Free_mem(NULL) is accepted; a negative size
 * is refused; requests beyond the address space reserved or the memory of the machine are
 * MPI_ERR_NO_MEM, not a crash or the OOM killer. */
#include <stdint.h>
#include <sys/sysinfo.h>

#include "mpitest.h"

#define NLIVE 200

static void fill_check(unsigned char *p, size_t n, unsigned seed, const char *what)
{
    mt_fill(p, n, seed);
    long bad = mt_verify(p, n, seed);
    CHECK(bad < 0, "%s: byte %ld of %zu wrong after writing", what, bad, n);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);

    /* Sizes 0..16 MiB, freed at once (the second 16 MiB reuses pages the first gave back). */
    size_t sizes[] = {0, 1, 7, 64, 100, 4095, 4096, 4097, 65536, 1 << 20, 16 << 20, 16 << 20};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        void *p = NULL;
        MPI_OK(MPI_Alloc_mem((MPI_Aint)sizes[k], MPI_INFO_NULL, &p));
        CHECK(p != NULL, "Alloc_mem(%zu) gave NULL", sizes[k]);
        CHECK((uintptr_t)p % 16 == 0, "Alloc_mem(%zu) gave %p, not 16-byte aligned", sizes[k], p);
        if (p && sizes[k])
            fill_check(p, sizes[k], (unsigned)k, "single block");
        MPI_OK(MPI_Free_mem(p));
    }

    /* Many blocks at once: disjoint, each keeps its own contents. */
    unsigned char *live[NLIVE];
    size_t len[NLIVE];
    for (int i = 0; i < NLIVE; i++) {
        len[i] = (size_t)((i * 977) % 20000);
        live[i] = NULL;
        MPI_OK(MPI_Alloc_mem((MPI_Aint)len[i], MPI_INFO_NULL, &live[i]));
        if (live[i])
            mt_fill(live[i], len[i], (unsigned)i + 1000);
    }
    for (int i = 0; i < NLIVE; i++)
        for (int j = i + 1; j < NLIVE; j++) {
            uintptr_t a = (uintptr_t)live[i], b = (uintptr_t)live[j];
            CHECK(a != b && (a + len[i] <= b || b + len[j] <= a),
                  "blocks %d (%p, %zu) and %d (%p, %zu) overlap", i, (void *)live[i], len[i], j,
                  (void *)live[j], len[j]);
        }
    for (int k = 0; k < NLIVE; k++) {
        int i = (k * 37) % NLIVE; /* 37 is prime to NLIVE: every block once */
        long bad = live[i] ? mt_verify(live[i], len[i], (unsigned)i + 1000) : -1;
        CHECK(bad < 0, "block %d: byte %ld overwritten", i, bad);
        MPI_OK(MPI_Free_mem(live[i]));
        /* Reuse the freed space at once with another size. */
        if (k % 3 == 0) {
            void *q = NULL;
            MPI_OK(MPI_Alloc_mem(3000, MPI_INFO_NULL, &q));
            if (q)
                fill_check(q, 3000, 7, "reused block");
            MPI_OK(MPI_Free_mem(q));
        }
    }

    /* Alignment hint, unknown keys ignored. */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "ferry_no_such_key", "whatever");
    for (long a = 1; a <= (1L << 20); a *= 4) {
        char v[32];
        snprintf(v, sizeof v, "%ld", a);
        MPI_Info_set(info, "mpi_minimum_memory_alignment", v);
        void *p = NULL, *q = NULL;
        MPI_OK(MPI_Alloc_mem(10, MPI_INFO_NULL, &q)); /* misaligns the next free spot */
        MPI_OK(MPI_Alloc_mem(100, info, &p));
        CHECK(p && (uintptr_t)p % (uintptr_t)a == 0, "alignment %ld: got %p", a, p);
        MPI_OK(MPI_Free_mem(p));
        MPI_OK(MPI_Free_mem(q));
    }
    MPI_Info_set(info, "mpi_minimum_memory_alignment", "3");
    void *p = NULL;
    CHECK_CLASS(MPI_Alloc_mem(100, info, &p), MPI_ERR_INFO_VALUE, "alignment 3");
    MPI_Info_free(&info);

    /* Errors. */
    int local;
    CHECK_CLASS(MPI_Free_mem(&local), MPI_ERR_ARG, "Free_mem of a stack address");
    MPI_OK(MPI_Alloc_mem(100, MPI_INFO_NULL, &p));
    CHECK_CLASS(MPI_Free_mem((char *)p + 8), MPI_ERR_ARG, "Free_mem inside a block");
    MPI_OK(MPI_Free_mem(p));
    CHECK_CLASS(MPI_Free_mem(p), MPI_ERR_ARG, "Free_mem twice");
    MPI_OK(MPI_Free_mem(NULL));
    CHECK_CLASS(MPI_Alloc_mem(-1, MPI_INFO_NULL, &p), MPI_ERR_SIZE, "negative size");
    /* More than the address space reserved, and more than the machine has: a clean error. */
    CHECK_CLASS(MPI_Alloc_mem((MPI_Aint)1 << 50, MPI_INFO_NULL, &p), MPI_ERR_NO_MEM, "2^50 bytes");
    /* Twice the machine's memory and swap, when inside the address space reserved (1 TiB). */
    struct sysinfo si;
    sysinfo(&si);
    MPI_Aint twice = 2 * ((MPI_Aint)si.totalram + (MPI_Aint)si.totalswap) * (MPI_Aint)si.mem_unit;
    if (twice < ((MPI_Aint)1 << 39))
        CHECK_CLASS(MPI_Alloc_mem(twice, MPI_INFO_NULL, &p), MPI_ERR_NO_MEM,
                    "twice the machine's memory");
    return mt_finish();
}
