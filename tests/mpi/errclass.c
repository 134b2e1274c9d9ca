/* Error classes and strings: every predefined class is its own class, strings are non-empty,
 * NUL-terminated, shorter than MPI_MAX_ERROR_STRING and differ from MPI_SUCCESS's; classes are
 * distinct and at most MPI_ERR_LASTCODE. */
#include "mpitest.h"

#define C(x)                                                                                       \
    {                                                                                              \
        x, #x                                                                                      \
    }
static const struct {
    int cls;
    const char *name;
} classes[] = {
    C(MPI_SUCCESS),
    C(MPI_ERR_BUFFER),
    C(MPI_ERR_COUNT),
    C(MPI_ERR_TYPE),
    C(MPI_ERR_TAG),
    C(MPI_ERR_COMM),
    C(MPI_ERR_RANK),
    C(MPI_ERR_REQUEST),
    C(MPI_ERR_ROOT),
    C(MPI_ERR_GROUP),
    C(MPI_ERR_OP),
    C(MPI_ERR_TOPOLOGY),
    C(MPI_ERR_DIMS),
    C(MPI_ERR_ARG),
    C(MPI_ERR_UNKNOWN),
    C(MPI_ERR_TRUNCATE),
    C(MPI_ERR_OTHER),
    C(MPI_ERR_INTERN),
    C(MPI_ERR_PENDING),
    C(MPI_ERR_IN_STATUS),
    C(MPI_ERR_ACCESS),
    C(MPI_ERR_AMODE),
    C(MPI_ERR_ASSERT),
    C(MPI_ERR_BAD_FILE),
    C(MPI_ERR_BASE),
    C(MPI_ERR_CONVERSION),
    C(MPI_ERR_DISP),
    C(MPI_ERR_DUP_DATAREP),
    C(MPI_ERR_FILE_EXISTS),
    C(MPI_ERR_FILE_IN_USE),
    C(MPI_ERR_FILE),
    C(MPI_ERR_INFO_KEY),
    C(MPI_ERR_INFO_NOKEY),
    C(MPI_ERR_INFO_VALUE),
    C(MPI_ERR_INFO),
    C(MPI_ERR_IO),
    C(MPI_ERR_KEYVAL),
    C(MPI_ERR_LOCKTYPE),
    C(MPI_ERR_NAME),
    C(MPI_ERR_NO_MEM),
    C(MPI_ERR_NOT_SAME),
    C(MPI_ERR_NO_SPACE),
    C(MPI_ERR_NO_SUCH_FILE),
    C(MPI_ERR_PORT),
    C(MPI_ERR_QUOTA),
    C(MPI_ERR_READ_ONLY),
    C(MPI_ERR_RMA_CONFLICT),
    C(MPI_ERR_RMA_SYNC),
    C(MPI_ERR_SERVICE),
    C(MPI_ERR_SIZE),
    C(MPI_ERR_SPAWN),
    C(MPI_ERR_UNSUPPORTED_DATAREP),
    C(MPI_ERR_UNSUPPORTED_OPERATION),
    C(MPI_ERR_WIN),
    C(MPI_ERR_RMA_RANGE),
    C(MPI_ERR_RMA_ATTACH),
    C(MPI_ERR_RMA_SHARED),
    C(MPI_ERR_RMA_FLAVOR),
};
#define NCLASSES ((int)(sizeof classes / sizeof classes[0]))

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    char success_str[MPI_MAX_ERROR_STRING];
    int success_len = 0;
    MPI_OK(MPI_Error_string(MPI_SUCCESS, success_str, &success_len));
    CHECK(success_len > 0, "MPI_Error_string(MPI_SUCCESS) is empty");
    CHECK(MPI_SUCCESS == 0, "MPI_SUCCESS is %d, must be 0", MPI_SUCCESS);

    for (int i = 0; i < NCLASSES; i++) {
        int cls = -1;
        MPI_OK(MPI_Error_class(classes[i].cls, &cls));
        CHECK(cls == classes[i].cls, "MPI_Error_class(%s) = %d", classes[i].name, cls);
        CHECK(classes[i].cls >= 0 && classes[i].cls <= MPI_ERR_LASTCODE,
              "%s = %d outside [0, MPI_ERR_LASTCODE = %d]", classes[i].name, classes[i].cls,
              MPI_ERR_LASTCODE);
        for (int j = 0; j < i; j++)
            CHECK(classes[i].cls != classes[j].cls, "%s and %s are both %d", classes[i].name,
                  classes[j].name, classes[i].cls);

        char s[MPI_MAX_ERROR_STRING + 16];
        int len = -1;
        memset(s, 'x', sizeof s);
        MPI_OK(MPI_Error_string(classes[i].cls, s, &len));
        CHECK(len > 0 && len < MPI_MAX_ERROR_STRING, "MPI_Error_string(%s): length %d",
              classes[i].name, len);
        if (len > 0 && len < MPI_MAX_ERROR_STRING) {
            CHECK(s[len] == 0 && strlen(s) == (size_t)len,
                  "MPI_Error_string(%s): not NUL-terminated at resultlen %d", classes[i].name, len);
            if (classes[i].cls != MPI_SUCCESS)
                CHECK(strcmp(s, success_str) != 0,
                      "MPI_Error_string(%s) is the same as for MPI_SUCCESS: '%s'", classes[i].name,
                      s);
        }
    }
    return mt_finish();
}
