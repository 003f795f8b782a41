/* MPI_T entry points: life cycle, enumerations, control variables and
 * categories.  MPI_T functions return their error code and never call an
 * error handler (MPI 5.0 section 15.3.10); the work is in src/tool.
 * Outputs of the *_get_info functions may be NULL (not returned). */
#include <mpi.h>

#include "binding/mpit_common.h"

int PMPI_T_init_thread(int required, int *provided)
{
    if (required != MPI_THREAD_SINGLE && required != MPI_THREAD_FUNNELED &&
        required != MPI_THREAD_SERIALIZED && required != MPI_THREAD_MULTIPLE)
        return MPI_T_ERR_INVALID;
    T_NEED(provided);
    return smap_tool_init(required, provided);
}

int PMPI_T_finalize(void)
{
    return smap_tool_finalize();
}

/* ---- enumerations ----------------------------------------------------- */

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    T_NEED(num);
    T_CALL(smap_tool_enum_info(enumtype, num, name, name_len));
}

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    T_NEED(value);
    T_CALL(smap_tool_enum_item(enumtype, index, value, name, name_len));
}

/* ---- control variables ------------------------------------------------ */

int PMPI_T_cvar_get_num(int *num_cvar)
{
    T_NEED(num_cvar);
    T_CALL((*num_cvar = smap_cvar_num(), MPI_SUCCESS));
}

static int cvar_info(int cvar_index, char *name, int *name_len, int *verbosity,
                     MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                     int *bind, int *scope)
{
    struct smap_cvar_info ci;
    int rc = smap_cvar_info(cvar_index, &ci);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_tool_str(ci.name, name, name_len);
    smap_tool_str(ci.desc, desc, desc_len);
    if (verbosity)
        *verbosity = ci.verbosity;
    if (datatype)
        *datatype = ci.datatype;
    if (enumtype)
        *enumtype = ci.enumtype;
    if (bind)
        *bind = ci.bind;
    if (scope)
        *scope = ci.scope;
    return MPI_SUCCESS;
}

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope)
{
    T_CALL(cvar_info(cvar_index, name, name_len, verbosity, datatype, enumtype, desc, desc_len,
                     bind, scope));
}

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    T_NEED(name);
    T_NEED(cvar_index);
    T_CALL(smap_cvar_index(name, cvar_index));
}

/* Every control variable is bound to no object: obj_handle is ignored. */
int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    (void)obj_handle;
    T_NEED(handle);
    T_NEED(count);
    T_CALL(smap_cvar_handle_alloc(cvar_index, handle, count));
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    T_NEED(handle);
    T_CALL(smap_cvar_handle_free(handle));
}

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    T_NEED(buf);
    T_CALL(smap_cvar_read(handle, buf));
}

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    T_NEED(buf);
    T_CALL(smap_cvar_write(handle, buf));
}

/* ---- categories ------------------------------------------------------- */

int PMPI_T_category_get_num(int *num_cat)
{
    T_NEED(num_cat);
    T_CALL((*num_cat = smap_tool_cat_num(), MPI_SUCCESS));
}

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories)
{
    T_CALL(smap_tool_cat_info(cat_index, name, name_len, desc, desc_len, num_cvars, num_pvars,
                              num_categories));
}

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    T_NEED(name);
    T_NEED(cat_index);
    T_CALL(smap_tool_cat_index(name, cat_index));
}

static int members(int cat_index, int kind, int len, int indices[])
{
    if (len < 0 || (len > 0 && !indices))
        return MPI_T_ERR_INVALID;
    T_CALL(smap_tool_cat_members(cat_index, kind, len, indices));
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return members(cat_index, 'c', len, indices);
}

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return members(cat_index, 'p', len, indices);
}

int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    return members(cat_index, 's', len, indices);
}

/* No event types: every category holds none. */
static int no_events(int cat_index)
{
    return cat_index < 0 || cat_index >= smap_tool_cat_num() ? MPI_T_ERR_INVALID_INDEX
                                                              : MPI_SUCCESS;
}

int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    if (len < 0 || (len > 0 && !indices))
        return MPI_T_ERR_INVALID;
    T_CALL(no_events(cat_index));
}

int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    T_NEED(num_events);
    T_CALL((*num_events = 0, no_events(cat_index)));
}

/* The variables and categories are fixed for the life of the process. */
int PMPI_T_category_changed(int *update_number)
{
    T_NEED(update_number);
    T_CALL((*update_number = 0, MPI_SUCCESS));
}
