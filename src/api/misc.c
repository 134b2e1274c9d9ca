/* Small entry points: address arithmetic, handle conversion, predefined attributes, the profiling
 * control call, and the ABI's exported objects. */
#include <string.h>

#include "fy_api.h"
#include "fy_attr.h"

static int weights_empty_storage;
int *const MPI_UNWEIGHTED = (int *)2; /* distinct from NULL and from any real array */
int *const MPI_WEIGHTS_EMPTY = &weights_empty_storage;
MPI_Fint *MPI_F_STATUS_IGNORE = NULL;
MPI_Fint *MPI_F_STATUSES_IGNORE = NULL;
MPI_F08_status *MPI_F08_STATUS_IGNORE = NULL;
MPI_F08_status *MPI_F08_STATUSES_IGNORE = NULL;
struct fy_t_pvar_handle_s *const MPI_T_PVAR_ALL_HANDLES = (struct fy_t_pvar_handle_s *)1;

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return base + disp;
}
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return addr1 - addr2;
}

/* Files do not exist yet in this release: only the null handle converts. */
MPI_File PMPI_File_f2c(MPI_Fint file)
{
    (void)file;
    return MPI_FILE_NULL;
}
MPI_Fint PMPI_File_c2f(MPI_File file)
{
    (void)file;
    return 0;
}

/* Profiling control has no effect unless a profiling library intercepts it. */
__attribute__((visibility("default"))) int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
__attribute__((visibility("default"))) int MPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}

/* The copy callback that duplicates an attribute value (MPI_COMM_DUP_FN and friends). */
__attribute__((visibility("default"))) int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval,
                                                       void *extra_state, void *attribute_val_in,
                                                       void *attribute_val_out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

/* Predefined communicator attributes. Values live here so the pointers stay valid. */
static int attr_tag_ub = 0x7fffffff, attr_host = MPI_PROC_NULL, attr_io = MPI_ANY_SOURCE,
           attr_wtime_global = 0, attr_universe, attr_lastcode, attr_appnum;

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    fy_comm_t *c;
    int rc = fy_api_comm("MPI_Comm_get_attr", comm, &c);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    int *v = NULL;
    switch (comm_keyval) {
    case MPI_TAG_UB: v = &attr_tag_ub; break;
    case MPI_HOST: v = &attr_host; break;
    case MPI_IO: v = &attr_io; break;
    case MPI_WTIME_IS_GLOBAL: v = &attr_wtime_global; break;
    case MPI_UNIVERSE_SIZE:
        attr_universe = fy_rt.universe;
        v = &attr_universe;
        break;
    case MPI_LASTUSEDCODE: /* grows with MPI_Add_error_class */
        attr_lastcode = fy_err_last_used();
        v = &attr_lastcode;
        break;
    case MPI_APPNUM:
        attr_appnum = fy_rt.appnum;
        v = &attr_appnum;
        break;
    default:
        fy_lock();
        rc = fy_attr_get(c, comm_keyval, (void **)attribute_val, flag);
        fy_unlock();
        return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
    }
    *(int **)attribute_val = v;
    *flag = 1;
    return MPI_SUCCESS;
}

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
