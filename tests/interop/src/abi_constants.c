/* Prints the compile-time face of the MPI ABI: the values of the constants in mpi.h, the
 * layout of MPI_Status, the sizes and C types of the handle and integer types. The test
 * compiles it once with MPICH's mpicc and once with Ferry's and compares the outputs.
 *
 * It calls no MPI function: the only run-time facts printed are about the few link-time
 * objects of the ABI (MPI_UNWEIGHTED...), whose addresses differ between libraries but whose
 * presence and distinctness must not. A name missing from a header is a compile error.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define INT(name) printf("%-36s %lld\n", #name, (long long)(name))
#define HANDLE(name) printf("%-36s 0x%08llx\n", #name, (unsigned long long)(uint32_t)(name))
#define PTR(name) printf("%-36s %lld\n", #name, (long long)(intptr_t)(name))
#define SIZE(type) printf("sizeof(%s)%*s %zu\n", #type, (int)(28 - sizeof(#type)), "", sizeof(type))
#define OFFSET(type, field) printf("offsetof(%s, %s) %zu\n", #type, #field, offsetof(type, field))
#define SIGNED(type) printf("signed(%s) %d\n", #type, (type)-1 < (type)0)

/* The C type behind a typedef: two ABIs that agree on sizes can still disagree here, which
 * changes C++ name mangling and printf formats of programs built against them. */
#define CTYPE(type)                                                                                \
    printf("type(%s) %s\n", #type,                                                                 \
           _Generic((type)0, signed char                                                           \
                    : "signed char", unsigned char                                                 \
                    : "unsigned char", short                                                       \
                    : "short", unsigned short                                                      \
                    : "unsigned short", int                                                        \
                    : "int", unsigned int                                                          \
                    : "unsigned int", long                                                         \
                    : "long", unsigned long                                                        \
                    : "unsigned long", long long                                                   \
                    : "long long", unsigned long long                                              \
                    : "unsigned long long", default                                                \
                    : "pointer or other"))

/* Through a function, so that the compiler does not fold "address != NULL" to 1 and warn. */
static int nonnull(const volatile void *p)
{
    return p != NULL;
}

int main(void)
{
    puts("# integer constants");
    INT(MPI_VERSION);
    INT(MPI_SUBVERSION);
    INT(MPI_IDENT);
    INT(MPI_CONGRUENT);
    INT(MPI_SIMILAR);
    INT(MPI_UNEQUAL);
    INT(MPI_TYPECLASS_REAL);
    INT(MPI_TYPECLASS_INTEGER);
    INT(MPI_TYPECLASS_COMPLEX);
    INT(MPI_TAG_UB);
    INT(MPI_HOST);
    INT(MPI_IO);
    INT(MPI_WTIME_IS_GLOBAL);
    INT(MPI_UNIVERSE_SIZE);
    INT(MPI_LASTUSEDCODE);
    INT(MPI_APPNUM);
    INT(MPI_WIN_BASE);
    INT(MPI_WIN_SIZE);
    INT(MPI_WIN_DISP_UNIT);
    INT(MPI_WIN_CREATE_FLAVOR);
    INT(MPI_WIN_MODEL);
    INT(MPI_MAX_PROCESSOR_NAME);
    INT(MPI_MAX_LIBRARY_VERSION_STRING);
    INT(MPI_MAX_ERROR_STRING);
    INT(MPI_MAX_PORT_NAME);
    INT(MPI_MAX_OBJECT_NAME);
    INT(MPI_MAX_STRINGTAG_LEN);
    INT(MPI_MAX_PSET_NAME_LEN);
    INT(MPI_MAX_INFO_KEY);
    INT(MPI_MAX_INFO_VAL);
    INT(MPI_MAX_DATAREP_STRING);
    INT(MPI_UNDEFINED);
    INT(MPI_KEYVAL_INVALID);
    INT(MPI_BSEND_OVERHEAD);
    INT(MPI_PROC_NULL);
    INT(MPI_ANY_SOURCE);
    INT(MPI_ROOT);
    INT(MPI_ANY_TAG);
    INT(MPI_LOCK_EXCLUSIVE);
    INT(MPI_LOCK_SHARED);
    INT(MPI_WIN_FLAVOR_CREATE);
    INT(MPI_WIN_FLAVOR_ALLOCATE);
    INT(MPI_WIN_FLAVOR_DYNAMIC);
    INT(MPI_WIN_FLAVOR_SHARED);
    INT(MPI_WIN_SEPARATE);
    INT(MPI_WIN_UNIFIED);
    INT(MPI_GRAPH);
    INT(MPI_CART);
    INT(MPI_DIST_GRAPH);
    INT(MPI_COMBINER_NAMED);
    INT(MPI_COMBINER_DUP);
    INT(MPI_COMBINER_CONTIGUOUS);
    INT(MPI_COMBINER_VECTOR);
    INT(MPI_COMBINER_HVECTOR_INTEGER);
    INT(MPI_COMBINER_HVECTOR);
    INT(MPI_COMBINER_INDEXED);
    INT(MPI_COMBINER_HINDEXED_INTEGER);
    INT(MPI_COMBINER_HINDEXED);
    INT(MPI_COMBINER_INDEXED_BLOCK);
    INT(MPI_COMBINER_STRUCT_INTEGER);
    INT(MPI_COMBINER_STRUCT);
    INT(MPI_COMBINER_SUBARRAY);
    INT(MPI_COMBINER_DARRAY);
    INT(MPI_COMBINER_F90_REAL);
    INT(MPI_COMBINER_F90_COMPLEX);
    INT(MPI_COMBINER_F90_INTEGER);
    INT(MPI_COMBINER_RESIZED);
    INT(MPI_COMBINER_HINDEXED_BLOCK);
    INT(MPI_ORDER_C);
    INT(MPI_ORDER_FORTRAN);
    INT(MPI_DISTRIBUTE_BLOCK);
    INT(MPI_DISTRIBUTE_CYCLIC);
    INT(MPI_DISTRIBUTE_NONE);
    INT(MPI_DISTRIBUTE_DFLT_DARG);
    INT(MPI_MODE_NOCHECK);
    INT(MPI_MODE_NOSTORE);
    INT(MPI_MODE_NOPUT);
    INT(MPI_MODE_NOPRECEDE);
    INT(MPI_MODE_NOSUCCEED);
    INT(MPI_COMM_TYPE_SHARED);
    INT(MPI_COMM_TYPE_HW_GUIDED);
    INT(MPI_COMM_TYPE_HW_UNGUIDED);
    INT(MPI_MODE_RDONLY);
    INT(MPI_MODE_RDWR);
    INT(MPI_MODE_WRONLY);
    INT(MPI_MODE_CREATE);
    INT(MPI_MODE_EXCL);
    INT(MPI_MODE_DELETE_ON_CLOSE);
    INT(MPI_MODE_UNIQUE_OPEN);
    INT(MPI_MODE_APPEND);
    INT(MPI_MODE_SEQUENTIAL);
    INT(MPI_DISPLACEMENT_CURRENT);
    INT(MPI_SEEK_SET);
    INT(MPI_SEEK_CUR);
    INT(MPI_SEEK_END);
    INT(MPI_F_STATUS_SIZE);
    INT(MPI_F_SOURCE);
    INT(MPI_F_TAG);
    INT(MPI_F_ERROR);
    INT(MPI_THREAD_SINGLE);
    INT(MPI_THREAD_FUNNELED);
    INT(MPI_THREAD_SERIALIZED);
    INT(MPI_THREAD_MULTIPLE);
    INT(MPI_T_VERBOSITY_INVALID);
    INT(MPI_T_VERBOSITY_USER_BASIC);
    INT(MPI_T_VERBOSITY_USER_DETAIL);
    INT(MPI_T_VERBOSITY_USER_ALL);
    INT(MPI_T_VERBOSITY_TUNER_BASIC);
    INT(MPI_T_VERBOSITY_TUNER_DETAIL);
    INT(MPI_T_VERBOSITY_TUNER_ALL);
    INT(MPI_T_VERBOSITY_MPIDEV_BASIC);
    INT(MPI_T_VERBOSITY_MPIDEV_DETAIL);
    INT(MPI_T_VERBOSITY_MPIDEV_ALL);
    INT(MPI_T_BIND_INVALID);
    INT(MPI_T_BIND_NO_OBJECT);
    INT(MPI_T_BIND_MPI_COMM);
    INT(MPI_T_BIND_MPI_DATATYPE);
    INT(MPI_T_BIND_MPI_ERRHANDLER);
    INT(MPI_T_BIND_MPI_FILE);
    INT(MPI_T_BIND_MPI_GROUP);
    INT(MPI_T_BIND_MPI_OP);
    INT(MPI_T_BIND_MPI_REQUEST);
    INT(MPI_T_BIND_MPI_WIN);
    INT(MPI_T_BIND_MPI_MESSAGE);
    INT(MPI_T_BIND_MPI_INFO);
    INT(MPI_T_SCOPE_INVALID);
    INT(MPI_T_SCOPE_CONSTANT);
    INT(MPI_T_SCOPE_READONLY);
    INT(MPI_T_SCOPE_LOCAL);
    INT(MPI_T_SCOPE_GROUP);
    INT(MPI_T_SCOPE_GROUP_EQ);
    INT(MPI_T_SCOPE_ALL);
    INT(MPI_T_SCOPE_ALL_EQ);
    INT(MPI_T_PVAR_CLASS_INVALID);
    INT(MPI_T_PVAR_CLASS_STATE);
    INT(MPI_T_PVAR_CLASS_LEVEL);
    INT(MPI_T_PVAR_CLASS_SIZE);
    INT(MPI_T_PVAR_CLASS_PERCENTAGE);
    INT(MPI_T_PVAR_CLASS_HIGHWATERMARK);
    INT(MPI_T_PVAR_CLASS_LOWWATERMARK);
    INT(MPI_T_PVAR_CLASS_COUNTER);
    INT(MPI_T_PVAR_CLASS_AGGREGATE);
    INT(MPI_T_PVAR_CLASS_TIMER);
    INT(MPI_T_PVAR_CLASS_GENERIC);
    INT(MPI_T_CB_REQUIRE_NONE);
    INT(MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    INT(MPI_T_CB_REQUIRE_THREAD_SAFE);
    INT(MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    INT(MPI_T_SOURCE_ORDERED);
    INT(MPI_T_SOURCE_UNORDERED);

    puts("# error classes");
    INT(MPI_SUCCESS);
    INT(MPI_ERR_BUFFER);
    INT(MPI_ERR_COUNT);
    INT(MPI_ERR_TYPE);
    INT(MPI_ERR_TAG);
    INT(MPI_ERR_COMM);
    INT(MPI_ERR_RANK);
    INT(MPI_ERR_ROOT);
    INT(MPI_ERR_TRUNCATE);
    INT(MPI_ERR_GROUP);
    INT(MPI_ERR_OP);
    INT(MPI_ERR_REQUEST);
    INT(MPI_ERR_TOPOLOGY);
    INT(MPI_ERR_DIMS);
    INT(MPI_ERR_ARG);
    INT(MPI_ERR_OTHER);
    INT(MPI_ERR_UNKNOWN);
    INT(MPI_ERR_INTERN);
    INT(MPI_ERR_IN_STATUS);
    INT(MPI_ERR_PENDING);
    INT(MPI_ERR_ACCESS);
    INT(MPI_ERR_AMODE);
    INT(MPI_ERR_BAD_FILE);
    INT(MPI_ERR_CONVERSION);
    INT(MPI_ERR_DUP_DATAREP);
    INT(MPI_ERR_FILE_EXISTS);
    INT(MPI_ERR_FILE_IN_USE);
    INT(MPI_ERR_FILE);
    INT(MPI_ERR_IO);
    INT(MPI_ERR_NO_SPACE);
    INT(MPI_ERR_NO_SUCH_FILE);
    INT(MPI_ERR_READ_ONLY);
    INT(MPI_ERR_UNSUPPORTED_DATAREP);
    INT(MPI_ERR_INFO);
    INT(MPI_ERR_INFO_KEY);
    INT(MPI_ERR_INFO_VALUE);
    INT(MPI_ERR_INFO_NOKEY);
    INT(MPI_ERR_NAME);
    INT(MPI_ERR_NO_MEM);
    INT(MPI_ERR_NOT_SAME);
    INT(MPI_ERR_PORT);
    INT(MPI_ERR_QUOTA);
    INT(MPI_ERR_SERVICE);
    INT(MPI_ERR_SPAWN);
    INT(MPI_ERR_UNSUPPORTED_OPERATION);
    INT(MPI_ERR_WIN);
    INT(MPI_ERR_BASE);
    INT(MPI_ERR_LOCKTYPE);
    INT(MPI_ERR_KEYVAL);
    INT(MPI_ERR_RMA_CONFLICT);
    INT(MPI_ERR_RMA_SYNC);
    INT(MPI_ERR_SIZE);
    INT(MPI_ERR_DISP);
    INT(MPI_ERR_ASSERT);
    INT(MPI_ERR_RMA_RANGE);
    INT(MPI_ERR_RMA_ATTACH);
    INT(MPI_ERR_RMA_SHARED);
    INT(MPI_ERR_RMA_FLAVOR);
    INT(MPI_T_ERR_MEMORY);
    INT(MPI_T_ERR_NOT_INITIALIZED);
    INT(MPI_T_ERR_CANNOT_INIT);
    INT(MPI_T_ERR_INVALID_INDEX);
    INT(MPI_T_ERR_INVALID_ITEM);
    INT(MPI_T_ERR_INVALID_HANDLE);
    INT(MPI_T_ERR_OUT_OF_HANDLES);
    INT(MPI_T_ERR_OUT_OF_SESSIONS);
    INT(MPI_T_ERR_INVALID_SESSION);
    INT(MPI_T_ERR_CVAR_SET_NOT_NOW);
    INT(MPI_T_ERR_CVAR_SET_NEVER);
    INT(MPI_T_ERR_PVAR_NO_STARTSTOP);
    INT(MPI_T_ERR_PVAR_NO_WRITE);
    INT(MPI_T_ERR_PVAR_NO_ATOMIC);
    INT(MPI_T_ERR_INVALID_NAME);
    INT(MPI_T_ERR_INVALID);
    INT(MPI_ERR_SESSION);
    INT(MPI_ERR_PROC_ABORTED);
    INT(MPI_ERR_VALUE_TOO_LARGE);
    INT(MPI_T_ERR_NOT_SUPPORTED);
    INT(MPI_ERR_LASTCODE);

    puts("# predefined handles");
    HANDLE(MPI_COMM_NULL);
    HANDLE(MPI_OP_NULL);
    HANDLE(MPI_GROUP_NULL);
    HANDLE(MPI_DATATYPE_NULL);
    HANDLE(MPI_REQUEST_NULL);
    HANDLE(MPI_ERRHANDLER_NULL);
    HANDLE(MPI_MESSAGE_NULL);
    HANDLE(MPI_MESSAGE_NO_PROC);
    HANDLE(MPI_WIN_NULL);
    HANDLE(MPI_SESSION_NULL);
    HANDLE(MPI_INFO_NULL);
    HANDLE(MPI_COMM_WORLD);
    HANDLE(MPI_COMM_SELF);
    HANDLE(MPI_GROUP_EMPTY);
    HANDLE(MPI_INFO_ENV);
    HANDLE(MPI_ERRORS_ARE_FATAL);
    HANDLE(MPI_ERRORS_RETURN);
    HANDLE(MPI_ERRORS_ABORT);
    HANDLE(MPI_MAX);
    HANDLE(MPI_MIN);
    HANDLE(MPI_SUM);
    HANDLE(MPI_PROD);
    HANDLE(MPI_LAND);
    HANDLE(MPI_BAND);
    HANDLE(MPI_LOR);
    HANDLE(MPI_BOR);
    HANDLE(MPI_LXOR);
    HANDLE(MPI_BXOR);
    HANDLE(MPI_MINLOC);
    HANDLE(MPI_MAXLOC);
    HANDLE(MPI_REPLACE);
    HANDLE(MPI_NO_OP);
    HANDLE(MPI_CHAR);
    HANDLE(MPI_SIGNED_CHAR);
    HANDLE(MPI_UNSIGNED_CHAR);
    HANDLE(MPI_BYTE);
    HANDLE(MPI_WCHAR);
    HANDLE(MPI_SHORT);
    HANDLE(MPI_UNSIGNED_SHORT);
    HANDLE(MPI_INT);
    HANDLE(MPI_UNSIGNED);
    HANDLE(MPI_LONG);
    HANDLE(MPI_UNSIGNED_LONG);
    HANDLE(MPI_FLOAT);
    HANDLE(MPI_DOUBLE);
    HANDLE(MPI_LONG_DOUBLE);
    HANDLE(MPI_LONG_LONG_INT);
    HANDLE(MPI_UNSIGNED_LONG_LONG);
    HANDLE(MPI_LONG_LONG);
    HANDLE(MPI_PACKED);
    HANDLE(MPI_LB);
    HANDLE(MPI_UB);
    HANDLE(MPI_FLOAT_INT);
    HANDLE(MPI_DOUBLE_INT);
    HANDLE(MPI_LONG_INT);
    HANDLE(MPI_SHORT_INT);
    HANDLE(MPI_2INT);
    HANDLE(MPI_LONG_DOUBLE_INT);
    HANDLE(MPI_COMPLEX);
    HANDLE(MPI_DOUBLE_COMPLEX);
    HANDLE(MPI_LOGICAL);
    HANDLE(MPI_REAL);
    HANDLE(MPI_DOUBLE_PRECISION);
    HANDLE(MPI_INTEGER);
    HANDLE(MPI_2INTEGER);
    HANDLE(MPI_2REAL);
    HANDLE(MPI_2DOUBLE_PRECISION);
    HANDLE(MPI_CHARACTER);
    HANDLE(MPI_REAL4);
    HANDLE(MPI_REAL8);
    HANDLE(MPI_REAL16);
    HANDLE(MPI_COMPLEX8);
    HANDLE(MPI_COMPLEX16);
    HANDLE(MPI_COMPLEX32);
    HANDLE(MPI_INTEGER1);
    HANDLE(MPI_INTEGER2);
    HANDLE(MPI_INTEGER4);
    HANDLE(MPI_INTEGER8);
    HANDLE(MPI_INTEGER16);
    HANDLE(MPI_INT8_T);
    HANDLE(MPI_INT16_T);
    HANDLE(MPI_INT32_T);
    HANDLE(MPI_INT64_T);
    HANDLE(MPI_UINT8_T);
    HANDLE(MPI_UINT16_T);
    HANDLE(MPI_UINT32_T);
    HANDLE(MPI_UINT64_T);
    HANDLE(MPI_C_BOOL);
    HANDLE(MPI_C_FLOAT_COMPLEX);
    HANDLE(MPI_C_COMPLEX);
    HANDLE(MPI_C_DOUBLE_COMPLEX);
    HANDLE(MPI_C_LONG_DOUBLE_COMPLEX);
    HANDLE(MPI_AINT);
    HANDLE(MPI_OFFSET);
    HANDLE(MPI_COUNT);
    HANDLE(MPI_CXX_BOOL);
    HANDLE(MPI_CXX_FLOAT_COMPLEX);
    HANDLE(MPI_CXX_DOUBLE_COMPLEX);
    HANDLE(MPI_CXX_LONG_DOUBLE_COMPLEX);

    puts("# pointer constants");
    PTR(MPI_BOTTOM);
    PTR(MPI_IN_PLACE);
    PTR(MPI_STATUS_IGNORE);
    PTR(MPI_STATUSES_IGNORE);
    PTR(MPI_ERRCODES_IGNORE);
    PTR(MPI_ARGV_NULL);
    PTR(MPI_ARGVS_NULL);
    PTR(MPI_FILE_NULL);
    PTR(MPI_T_ENUM_NULL);
    PTR(MPI_T_CVAR_HANDLE_NULL);
    PTR(MPI_T_PVAR_HANDLE_NULL);
    PTR(MPI_T_PVAR_SESSION_NULL);
    PTR(MPI_NULL_COPY_FN);
    PTR(MPI_NULL_DELETE_FN);
    PTR(MPI_COMM_NULL_COPY_FN);
    PTR(MPI_COMM_NULL_DELETE_FN);
    PTR(MPI_WIN_NULL_COPY_FN);
    PTR(MPI_WIN_NULL_DELETE_FN);
    PTR(MPI_TYPE_NULL_COPY_FN);
    PTR(MPI_TYPE_NULL_DELETE_FN);
    PTR(MPI_CONVERSION_FN_NULL);
    PTR(MPI_CONVERSION_FN_NULL_C);

    puts("# the duplicating copy callbacks: one function");
    printf("MPI_DUP_FN non-null %d\n", nonnull((void *)MPI_DUP_FN));
    printf("MPI_COMM_DUP_FN == MPI_DUP_FN %d\n", (void *)MPI_COMM_DUP_FN == (void *)MPI_DUP_FN);
    printf("MPI_WIN_DUP_FN == MPI_DUP_FN %d\n", (void *)MPI_WIN_DUP_FN == (void *)MPI_DUP_FN);
    printf("MPI_TYPE_DUP_FN == MPI_DUP_FN %d\n", (void *)MPI_TYPE_DUP_FN == (void *)MPI_DUP_FN);

    puts("# link-time objects");
    printf("MPI_UNWEIGHTED non-null %d\n", MPI_UNWEIGHTED != NULL);
    printf("MPI_WEIGHTS_EMPTY non-null %d\n", MPI_WEIGHTS_EMPTY != NULL);
    printf("MPI_UNWEIGHTED != MPI_WEIGHTS_EMPTY %d\n", MPI_UNWEIGHTED != MPI_WEIGHTS_EMPTY);
    printf("MPI_UNWEIGHTED != MPI_BOTTOM %d\n", (void *)MPI_UNWEIGHTED != MPI_BOTTOM);
    printf("MPI_F_STATUS_IGNORE linked %d\n", nonnull(&MPI_F_STATUS_IGNORE));
    printf("MPI_F_STATUSES_IGNORE linked %d\n", nonnull(&MPI_F_STATUSES_IGNORE));
    printf("MPI_T_PVAR_ALL_HANDLES linked %d\n", nonnull(&MPI_T_PVAR_ALL_HANDLES));
    SIZE(*MPI_F_STATUS_IGNORE);

    puts("# types");
    SIZE(MPI_Comm);
    SIZE(MPI_Datatype);
    SIZE(MPI_Group);
    SIZE(MPI_Win);
    SIZE(MPI_Session);
    SIZE(MPI_Op);
    SIZE(MPI_Errhandler);
    SIZE(MPI_Request);
    SIZE(MPI_Message);
    SIZE(MPI_Info);
    SIZE(MPI_File);
    SIZE(MPI_Aint);
    SIZE(MPI_Fint);
    SIZE(MPI_Count);
    SIZE(MPI_Offset);
    SIZE(MPI_T_enum);
    SIZE(MPI_T_cvar_handle);
    SIZE(MPI_T_pvar_handle);
    SIZE(MPI_T_pvar_session);
    SIZE(MPI_T_cb_safety);
    SIGNED(MPI_Aint);
    SIGNED(MPI_Fint);
    SIGNED(MPI_Count);
    SIGNED(MPI_Offset);
    CTYPE(MPI_Comm);
    CTYPE(MPI_Datatype);
    CTYPE(MPI_Group);
    CTYPE(MPI_Win);
    CTYPE(MPI_Session);
    CTYPE(MPI_Op);
    CTYPE(MPI_Errhandler);
    CTYPE(MPI_Request);
    CTYPE(MPI_Message);
    CTYPE(MPI_Info);
    CTYPE(MPI_File);
    CTYPE(MPI_Aint);
    CTYPE(MPI_Fint);
    CTYPE(MPI_Count);
    CTYPE(MPI_Offset);

    puts("# MPI_Status");
    SIZE(MPI_Status);
    OFFSET(MPI_Status, count_lo);
    OFFSET(MPI_Status, count_hi_and_cancelled);
    OFFSET(MPI_Status, MPI_SOURCE);
    OFFSET(MPI_Status, MPI_TAG);
    OFFSET(MPI_Status, MPI_ERROR);
    SIZE(MPI_F08_status);
    OFFSET(MPI_F08_status, MPI_SOURCE);
    OFFSET(MPI_F08_status, MPI_TAG);
    OFFSET(MPI_F08_status, MPI_ERROR);
    return 0;
}
