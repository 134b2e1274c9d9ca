/* MINLOC and MAXLOC over every predefined pair type (MPI_FLOAT_INT, MPI_DOUBLE_INT,
 * MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT) with Allreduce and Reduce: the
 * value with the smallest (largest) value wins, ties go to the smallest index. */
#include "mpitest.h"

#define COUNT 5

/* Value rank r holds at position k; ties between ranks are frequent. */
static int val(int r, int k)
{
    return (r * 5 + k * 3) % 4;
}

#define DEFINE_LOC(fn, V)                                                                          \
    static void fn(MPI_Datatype dt, const char *name)                                              \
    {                                                                                              \
        struct {                                                                                   \
            V v;                                                                                   \
            int i;                                                                                 \
        } in[COUNT], out[COUNT];                                                                   \
        for (int pass = 0; pass < 4; pass++) {                                                     \
            int is_max = pass & 1, all = pass < 2;                                                 \
            for (int k = 0; k < COUNT; k++) {                                                      \
                in[k].v = (V)val(mt_rank, k);                                                      \
                in[k].i = mt_rank * 10 + 1; /* index order follows rank order */                   \
                out[k].v = (V)-1;                                                                  \
                out[k].i = -1;                                                                     \
            }                                                                                      \
            MPI_Op op = is_max ? MPI_MAXLOC : MPI_MINLOC;                                          \
            if (all)                                                                               \
                MPI_OK(MPI_Allreduce(in, out, COUNT, dt, op, MPI_COMM_WORLD));                     \
            else                                                                                   \
                MPI_OK(MPI_Reduce(in, out, COUNT, dt, op, mt_size / 2, MPI_COMM_WORLD));           \
            if (!all && mt_rank != mt_size / 2)                                                    \
                continue;                                                                          \
            for (int k = 0; k < COUNT; k++) {                                                      \
                int best = val(0, k), who = 0;                                                     \
                for (int p = 1; p < mt_size; p++) {                                                \
                    int v = val(p, k);                                                             \
                    if (is_max ? v > best : v < best) {                                            \
                        best = v;                                                                  \
                        who = p;                                                                   \
                    }                                                                              \
                }                                                                                  \
                CHECK(out[k].v == (V)best && out[k].i == who * 10 + 1,                             \
                      "%s %s %s [%d]: got (%g, %d), expected (%d, %d)",                            \
                      all ? "Allreduce" : "Reduce", name, is_max ? "MAXLOC" : "MINLOC", k,         \
                      (double)out[k].v, out[k].i, best, who * 10 + 1);                             \
            }                                                                                      \
        }                                                                                          \
    }

DEFINE_LOC(t_float_int, float)
DEFINE_LOC(t_double_int, double)
DEFINE_LOC(t_long_int, long)
DEFINE_LOC(t_2int, int)
DEFINE_LOC(t_short_int, short)
DEFINE_LOC(t_ldouble_int, long double)

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    t_float_int(MPI_FLOAT_INT, "MPI_FLOAT_INT");
    t_double_int(MPI_DOUBLE_INT, "MPI_DOUBLE_INT");
    t_long_int(MPI_LONG_INT, "MPI_LONG_INT");
    t_2int(MPI_2INT, "MPI_2INT");
    t_short_int(MPI_SHORT_INT, "MPI_SHORT_INT");
    t_ldouble_int(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT");
    return mt_finish();
}
