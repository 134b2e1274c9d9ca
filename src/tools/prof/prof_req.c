/* The Wait and Test families, MPI_Start and MPI_Request_free, by hand: they complete (or
 * start, or drop) requests that prof_msg.c follows. While no request is followed (prof_nreq 0:
 * no receive posted with MPI_Irecv outstanding) they cost what any wrapper costs; else the
 * handles are saved before the call (it sets them to MPI_REQUEST_NULL) and a status array
 * stands in for MPI_STATUSES_IGNORE, so that completed receives show their source, tag and
 * size. */
#include "prof.h"

#include <stdlib.h>

#define ON_STACK 64

/* Saved handles and statuses for n requests: on the stack up to ON_STACK, else allocated (a
 * call over that many requests is rare and costs far more than one allocation). */
typedef struct saved {
    MPI_Request r_small[ON_STACK];
    MPI_Status s_small[ON_STACK];
    MPI_Request *r;
    MPI_Status *s;
} saved_t;

static bool save(saved_t *sv, int n, const MPI_Request *reqs, MPI_Status **statuses)
{
    sv->r = n <= ON_STACK ? sv->r_small : malloc(sizeof(MPI_Request) * (size_t)n);
    sv->s = n <= ON_STACK ? sv->s_small : malloc(sizeof(MPI_Status) * (size_t)n);
    if (sv->r == NULL || sv->s == NULL) {
        if (sv->r != sv->r_small)
            free(sv->r);
        if (sv->s != sv->s_small)
            free(sv->s);
        return false;
    }
    memcpy(sv->r, reqs, sizeof(MPI_Request) * (size_t)n);
    if (*statuses == MPI_STATUSES_IGNORE)
        *statuses = sv->s;
    return true;
}

static void unsave(saved_t *sv)
{
    if (sv->r != sv->r_small)
        free(sv->r);
    if (sv->s != sv->s_small)
        free(sv->s);
}

static bool following(int n)
{
    return prof_nreq > 0 && n > 0;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    prof_frame_t f;
    MPI_Status st;
    MPI_Request r0 = *request;
    bool fol = following(1);
    if (fol && status == MPI_STATUS_IGNORE)
        status = &st;
    prof_enter(&f, PROF_ID_Wait, PROF_RA());
    int rc = PMPI_Wait(request, status);
    prof_now(&f);
    if (fol && rc == MPI_SUCCESS)
        prof_req_done(&f, r0, status);
    prof_leave(&f);
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    prof_frame_t f;
    MPI_Status st;
    MPI_Request r0 = *request;
    bool fol = following(1);
    if (fol && status == MPI_STATUS_IGNORE)
        status = &st;
    prof_enter(&f, PROF_ID_Test, PROF_RA());
    int rc = PMPI_Test(request, flag, status);
    prof_now(&f);
    if (fol && rc == MPI_SUCCESS && *flag)
        prof_req_done(&f, r0, status);
    prof_leave(&f);
    return rc;
}

static void all_done(prof_frame_t *f, int n, const saved_t *sv, const MPI_Status *st)
{
    for (int i = 0; i < n; i++)
        prof_req_done(f, sv->r[i], &st[i]);
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    prof_frame_t f;
    saved_t sv;
    bool fol = following(count) && save(&sv, count, array_of_requests, &array_of_statuses);
    prof_enter(&f, PROF_ID_Waitall, PROF_RA());
    int rc = PMPI_Waitall(count, array_of_requests, array_of_statuses);
    prof_now(&f);
    if (fol) {
        if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS)
            all_done(&f, count, &sv, array_of_statuses);
        unsave(&sv);
    }
    prof_leave(&f);
    return rc;
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                MPI_Status array_of_statuses[])
{
    prof_frame_t f;
    saved_t sv;
    bool fol = following(count) && save(&sv, count, array_of_requests, &array_of_statuses);
    prof_enter(&f, PROF_ID_Testall, PROF_RA());
    int rc = PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
    prof_now(&f);
    if (fol) {
        if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *flag)
            all_done(&f, count, &sv, array_of_statuses);
        unsave(&sv);
    }
    prof_leave(&f);
    return rc;
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status)
{
    prof_frame_t f;
    saved_t sv;
    MPI_Status *one = status;
    bool fol = following(count) && save(&sv, count, array_of_requests, &one);
    prof_enter(&f, PROF_ID_Waitany, PROF_RA());
    int rc = PMPI_Waitany(count, array_of_requests, indx, one);
    prof_now(&f);
    if (fol) {
        if (rc == MPI_SUCCESS && *indx != MPI_UNDEFINED && *indx >= 0 && *indx < count)
            prof_req_done(&f, sv.r[*indx], one);
        unsave(&sv);
    }
    prof_leave(&f);
    return rc;
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag,
                MPI_Status *status)
{
    prof_frame_t f;
    saved_t sv;
    MPI_Status *one = status;
    bool fol = following(count) && save(&sv, count, array_of_requests, &one);
    prof_enter(&f, PROF_ID_Testany, PROF_RA());
    int rc = PMPI_Testany(count, array_of_requests, indx, flag, one);
    prof_now(&f);
    if (fol) {
        if (rc == MPI_SUCCESS && *flag && *indx != MPI_UNDEFINED && *indx >= 0 && *indx < count)
            prof_req_done(&f, sv.r[*indx], one);
        unsave(&sv);
    }
    prof_leave(&f);
    return rc;
}

static void some_done(prof_frame_t *f, int out, const int *idx, int n, const saved_t *sv,
                      const MPI_Status *st)
{
    for (int k = 0; k < out; k++)
        if (idx[k] >= 0 && idx[k] < n)
            prof_req_done(f, sv->r[idx[k]], &st[k]);
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    prof_frame_t f;
    saved_t sv;
    bool fol = following(incount) && save(&sv, incount, array_of_requests, &array_of_statuses);
    prof_enter(&f, PROF_ID_Waitsome, PROF_RA());
    int rc = PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices,
                           array_of_statuses);
    prof_now(&f);
    if (fol) {
        if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED)
            some_done(&f, *outcount, array_of_indices, incount, &sv, array_of_statuses);
        unsave(&sv);
    }
    prof_leave(&f);
    return rc;
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    prof_frame_t f;
    saved_t sv;
    bool fol = following(incount) && save(&sv, incount, array_of_requests, &array_of_statuses);
    prof_enter(&f, PROF_ID_Testsome, PROF_RA());
    int rc = PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices,
                           array_of_statuses);
    prof_now(&f);
    if (fol) {
        if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED)
            some_done(&f, *outcount, array_of_indices, incount, &sv, array_of_statuses);
        unsave(&sv);
    }
    prof_leave(&f);
    return rc;
}

int MPI_Start(MPI_Request *request)
{
    prof_frame_t f;
    prof_enter(&f, PROF_ID_Start, PROF_RA());
    if (prof_nreq > 0)
        prof_req_started(&f, *request);
    int rc = PMPI_Start(request);
    prof_now(&f);
    prof_leave(&f);
    return rc;
}

int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    prof_frame_t f;
    prof_enter(&f, PROF_ID_Startall, PROF_RA());
    for (int i = 0; prof_nreq > 0 && i < count; i++)
        prof_req_started(&f, array_of_requests[i]);
    int rc = PMPI_Startall(count, array_of_requests);
    prof_now(&f);
    prof_leave(&f);
    return rc;
}

int MPI_Request_free(MPI_Request *request)
{
    prof_frame_t f;
    MPI_Request r0 = *request;
    prof_enter(&f, PROF_ID_Request_free, PROF_RA());
    int rc = PMPI_Request_free(request);
    prof_now(&f);
    if (rc == MPI_SUCCESS && prof_nreq > 0)
        prof_req_forget(r0);
    prof_leave(&f);
    return rc;
}
