/* The event side of MPI_T. Ferry defines no events, so MPI_T_event_get_num gives 0, every
 * event index is invalid and no registration or instance handle can exist; it has one
 * timestamp source, the monotonic clock in nanoseconds, so tools can still read time the way
 * events would carry it. */
#include <stdint.h>
#include <time.h>

#include "mpit.h"

static int no_handle(void)
{
    int rc = fy_mpit_enter();
    return rc != MPI_SUCCESS ? rc : fy_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
}

int PMPI_T_event_get_num(int *num_events)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_events)
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    *num_events = 0;
    return fy_mpit_leave(MPI_SUCCESS);
}

int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind)
{
    (void)event_index, (void)name, (void)name_len, (void)verbosity, (void)array_of_datatypes;
    (void)array_of_displacements, (void)num_elements, (void)enumtype, (void)info, (void)desc;
    (void)desc_len, (void)bind;
    int rc = fy_mpit_enter();
    return rc != MPI_SUCCESS ? rc : fy_mpit_leave(MPI_T_ERR_INVALID_INDEX);
}

int PMPI_T_event_get_index(const char *name, int *event_index)
{
    (void)event_index;
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    return fy_mpit_leave(name ? MPI_T_ERR_INVALID_NAME : MPI_T_ERR_INVALID);
}

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    (void)event_index, (void)obj_handle, (void)info, (void)event_registration;
    int rc = fy_mpit_enter();
    return rc != MPI_SUCCESS ? rc : fy_mpit_leave(MPI_T_ERR_INVALID_INDEX);
}

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function free_cb_function)
{
    (void)event_registration, (void)user_data, (void)free_cb_function;
    return no_handle();
}
int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    (void)event_registration, (void)info_used;
    return no_handle();
}
int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    (void)event_registration, (void)info;
    return no_handle();
}
int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
    (void)event_registration, (void)cb_safety, (void)info_used;
    return no_handle();
}
int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info)
{
    (void)event_registration, (void)cb_safety, (void)info;
    return no_handle();
}
int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function event_cb_function)
{
    (void)event_registration, (void)cb_safety, (void)info, (void)user_data;
    (void)event_cb_function;
    return no_handle();
}
int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function dropped_cb_function)
{
    (void)event_registration, (void)dropped_cb_function;
    return no_handle();
}
int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    (void)event_instance, (void)element_index, (void)buffer;
    return no_handle();
}
int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    (void)event_instance, (void)buffer;
    return no_handle();
}
int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    (void)event_instance, (void)event_timestamp;
    return no_handle();
}
int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    (void)event_instance, (void)source_index;
    return no_handle();
}

int PMPI_T_source_get_num(int *num_sources)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_sources)
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    *num_sources = 1;
    return fy_mpit_leave(MPI_SUCCESS);
}

int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc,
                           int *desc_len, MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                           MPI_Count *max_ticks, MPI_Info *info)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (source_index != 0)
        return fy_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    fy_mpit_str("monotonic", name, name_len);
    fy_mpit_str("CLOCK_MONOTONIC of this host, in nanoseconds", desc, desc_len);
    if (ordering)
        *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second)
        *ticks_per_second = 1000000000;
    if (max_ticks)
        *max_ticks = INT64_MAX;
    if (info)
        *info = MPI_INFO_NULL; /* no hints to give */
    return fy_mpit_leave(MPI_SUCCESS);
}

int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    int rc = fy_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (source_index != 0)
        return fy_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (!timestamp)
        return fy_mpit_leave(MPI_T_ERR_INVALID);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *timestamp = (MPI_Count)ts.tv_sec * 1000000000 + ts.tv_nsec;
    return fy_mpit_leave(MPI_SUCCESS);
}
