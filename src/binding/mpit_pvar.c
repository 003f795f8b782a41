/* MPI_T entry points: performance variables, their sessions and handles,
 * and events (sources exist, event types do not: src/tool/event.c). */
#include <mpi.h>

#include "binding/mpit_common.h"

int PMPI_T_pvar_get_num(int *num_pvar)
{
    T_NEED(num_pvar);
    T_CALL((*num_pvar = smap_pvar_num(), MPI_SUCCESS));
}

static int pvar_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                     MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                     int *bind, int *readonly, int *continuous, int *atomic)
{
    struct smap_pvar_info pi;
    int rc = smap_pvar_info(pvar_index, &pi);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_tool_str(pi.name, name, name_len);
    smap_tool_str(pi.desc, desc, desc_len);
#define OUT(p, v) if (p) *(p) = (v)
    OUT(verbosity, pi.verbosity);
    OUT(var_class, pi.var_class);
    OUT(datatype, pi.datatype);
    OUT(enumtype, pi.enumtype);
    OUT(bind, pi.bind);
    OUT(readonly, pi.readonly);
    OUT(continuous, pi.continuous);
    OUT(atomic, pi.atomic);
#undef OUT
    return MPI_SUCCESS;
}

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                         int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
                         char *desc, int *desc_len, int *bind, int *readonly, int *continuous,
                         int *atomic)
{
    T_CALL(pvar_info(pvar_index, name, name_len, verbosity, var_class, datatype, enumtype, desc,
                     desc_len, bind, readonly, continuous, atomic));
}

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    T_NEED(name);
    T_NEED(pvar_index);
    if (var_class < MPI_T_PVAR_CLASS_STATE || var_class > MPI_T_PVAR_CLASS_GENERIC)
        return MPI_T_ERR_INVALID;
    T_CALL(smap_pvar_index(name, var_class, pvar_index));
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session *pe_session)
{
    T_NEED(pe_session);
    T_CALL(smap_pvar_session_create(pe_session));
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session *pe_session)
{
    T_NEED(pe_session);
    T_CALL(smap_pvar_session_free(pe_session));
}

/* Every performance variable is bound to no object: obj_handle is ignored. */
int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session pe_session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    (void)obj_handle;
    T_NEED(handle);
    T_NEED(count);
    T_CALL(smap_pvar_handle_alloc(pe_session, pvar_index, handle, count));
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session pe_session, MPI_T_pvar_handle *handle)
{
    T_NEED(handle);
    T_CALL(smap_pvar_handle_free(pe_session, handle));
}

int PMPI_T_pvar_start(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle)
{
    T_CALL(smap_pvar_control(pe_session, handle, SMAP_PVAR_START));
}

int PMPI_T_pvar_stop(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle)
{
    T_CALL(smap_pvar_control(pe_session, handle, SMAP_PVAR_STOP));
}

int PMPI_T_pvar_reset(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle)
{
    T_CALL(smap_pvar_control(pe_session, handle, SMAP_PVAR_RESET));
}

int PMPI_T_pvar_read(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, void *buf)
{
    T_NEED(buf);
    T_CALL(smap_pvar_read(pe_session, handle, buf, 0));
}

int PMPI_T_pvar_readreset(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, void *buf)
{
    T_NEED(buf);
    T_CALL(smap_pvar_read(pe_session, handle, buf, 1));
}

int PMPI_T_pvar_write(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, const void *buf)
{
    T_NEED(buf);
    T_CALL(smap_pvar_write(pe_session, handle, buf));
}

/* ---- sources ---------------------------------------------------------- */

int PMPI_T_source_get_num(int *num_sources)
{
    T_NEED(num_sources);
    T_CALL((*num_sources = smap_tool_source_num(), MPI_SUCCESS));
}

int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc,
                           int *desc_len, MPI_T_source_order *ordering,
                           MPI_Count *ticks_per_second, MPI_Count *max_ticks, MPI_Info *info)
{
    T_CALL(smap_tool_source_info(source_index, name, name_len, desc, desc_len, ordering,
                                 ticks_per_second, max_ticks, info));
}

int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    T_NEED(timestamp);
    T_CALL(smap_tool_source_timestamp(source_index, timestamp));
}

/* ---- events: there are no event types --------------------------------- */

int PMPI_T_event_get_num(int *num_events)
{
    T_NEED(num_events);
    T_CALL((*num_events = 0, MPI_SUCCESS));
}

int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind)
{
    (void)event_index, (void)name, (void)name_len, (void)verbosity, (void)array_of_datatypes;
    (void)array_of_displacements, (void)num_elements, (void)enumtype, (void)info, (void)desc;
    (void)desc_len, (void)bind;
    T_CALL(MPI_T_ERR_INVALID_INDEX);
}

int PMPI_T_event_get_index(const char *name, int *event_index)
{
    T_NEED(name);
    T_NEED(event_index);
    T_CALL(MPI_T_ERR_INVALID_NAME);
}

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    (void)event_index, (void)obj_handle, (void)info;
    T_NEED(event_registration);
    T_CALL(MPI_T_ERR_INVALID_INDEX);
}

/* No registration or instance can exist, so every handle is invalid. */
#define NO_HANDLE T_CALL(MPI_T_ERR_INVALID_HANDLE)

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function free_cb_function)
{
    (void)event_registration, (void)user_data, (void)free_cb_function;
    NO_HANDLE;
}

int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration,
                                 MPI_Info *info_used)
{
    (void)event_registration;
    T_NEED(info_used);
    NO_HANDLE;
}

int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    (void)event_registration, (void)info;
    NO_HANDLE;
}

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function event_cb_function)
{
    (void)event_registration, (void)cb_safety, (void)info, (void)user_data;
    (void)event_cb_function;
    NO_HANDLE;
}

int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
    (void)event_registration, (void)cb_safety;
    T_NEED(info_used);
    NO_HANDLE;
}

int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info)
{
    (void)event_registration, (void)cb_safety, (void)info;
    NO_HANDLE;
}

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function dropped_cb_function)
{
    (void)event_registration, (void)dropped_cb_function;
    NO_HANDLE;
}

int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    (void)event_instance, (void)element_index;
    T_NEED(buffer);
    NO_HANDLE;
}

int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    (void)event_instance;
    T_NEED(buffer);
    NO_HANDLE;
}

int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    (void)event_instance;
    T_NEED(event_timestamp);
    NO_HANDLE;
}

int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    (void)event_instance;
    T_NEED(source_index);
    NO_HANDLE;
}
