/* MPI_T, the tool information interface: control variables generated from
 * the tunables table (base/tunables.def), performance variables over the
 * counters of src/p2p, categories by layer, enumerations, one event source
 * (the clock) and no event types.
 *
 * Every function here runs with the tool lock held (smap_tool_enter), so
 * MPI_T is thread safe at MPI_THREAD_MULTIPLE whatever MPI_Init granted.
 * Functions that can fail return MPI_SUCCESS or an MPI_T_ERR_* code. */
#ifndef SMAP_TOOL_TOOL_H
#define SMAP_TOOL_TOOL_H

#include <mpi.h>
#include <stdint.h>

/* ---- life cycle (state.c) --------------------------------------------- */
/* MPI_T_init_thread / MPI_T_finalize: reference counted, usable before
 * MPI_Init and after MPI_Finalize. */
int smap_tool_init(int required, int *provided);
int smap_tool_finalize(void);
/* Takes the tool lock when MPI_T is initialised (MPI_SUCCESS), else
 * returns MPI_T_ERR_NOT_INITIALIZED holding nothing. */
int smap_tool_enter(void);
void smap_tool_leave(void);

/* The standard's string convention (MPI 5.0 section 15.3.3): at most
 * *len-1 characters and a terminator into buf; *len becomes strlen(s)+1.
 * buf NULL or *len 0: only the length; len NULL: nothing. */
void smap_tool_str(const char *s, char *buf, int *len);

/* ---- enumerations (enum.c) -------------------------------------------- */
enum smap_tool_enum_id { SMAP_ENUM_COPY_LEVEL, SMAP_ENUM_VERBOSITY, SMAP_ENUM_N };
MPI_T_enum smap_tool_enum(enum smap_tool_enum_id id);
int smap_tool_enum_info(MPI_T_enum e, int *num, char *name, int *name_len);
int smap_tool_enum_item(MPI_T_enum e, int index, int *value, char *name, int *name_len);

/* ---- categories (category.c) ------------------------------------------ */
enum smap_tool_cat {
    SMAP_CAT_ROOT, SMAP_CAT_RUNTIME, SMAP_CAT_MEMORY, SMAP_CAT_P2P, SMAP_CAT_COLL, SMAP_CAT_N
};
int smap_tool_cat_num(void);
int smap_tool_cat_index(const char *name, int *index);
int smap_tool_cat_info(int index, char *name, int *name_len, char *desc, int *desc_len,
                       int *num_cvars, int *num_pvars, int *num_categories);
/* Fills at most len indices of kind 'c' (cvars), 'p' (pvars) or 's'
 * (sub-categories) of category index. */
int smap_tool_cat_members(int index, int kind, int len, int indices[]);

/* ---- control variables (cvar.c) --------------------------------------- */
struct smap_cvar_info {
    const char *name, *desc;
    int verbosity, bind, scope, category, count;
    MPI_Datatype datatype;
    MPI_T_enum enumtype;
};
int smap_cvar_num(void);
int smap_cvar_info(int index, struct smap_cvar_info *out);
int smap_cvar_index(const char *name, int *index);
int smap_cvar_handle_alloc(int index, MPI_T_cvar_handle *handle, int *count);
int smap_cvar_handle_free(MPI_T_cvar_handle *handle);
int smap_cvar_read(MPI_T_cvar_handle handle, void *buf);
int smap_cvar_write(MPI_T_cvar_handle handle, const void *buf);

/* ---- performance variables (pvar.c) ----------------------------------- */
struct smap_pvar_info {
    const char *name, *desc;
    int verbosity, var_class, bind, readonly, continuous, atomic, category;
    MPI_Datatype datatype;
    MPI_T_enum enumtype;
};
int smap_pvar_num(void);
int smap_pvar_info(int index, struct smap_pvar_info *out);
int smap_pvar_index(const char *name, int var_class, int *index);
int smap_pvar_session_create(MPI_T_pvar_session *session);
int smap_pvar_session_free(MPI_T_pvar_session *session);
int smap_pvar_handle_alloc(MPI_T_pvar_session session, int index, MPI_T_pvar_handle *handle,
                           int *count);
int smap_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle);
enum smap_pvar_op { SMAP_PVAR_START, SMAP_PVAR_STOP, SMAP_PVAR_RESET };
int smap_pvar_control(MPI_T_pvar_session session, MPI_T_pvar_handle handle, enum smap_pvar_op op);
int smap_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf, int reset);
int smap_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf);
/* Drops every session (MPI_T_finalize of the last reference). */
void smap_pvar_free_all(void);
void smap_cvar_free_all(void);

/* ---- event sources (event.c); there are no event types ---------------- */
int smap_tool_source_num(void);
int smap_tool_source_info(int index, char *name, int *name_len, char *desc, int *desc_len,
                          MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                          MPI_Count *max_ticks, MPI_Info *info);
int smap_tool_source_timestamp(int index, MPI_Count *timestamp);

#endif
