/* Window objects (MPI 5.0 §12.2, §12.2.6-7): creation in its four
 * flavours, freeing, shared-memory queries, dynamic attach/detach,
 * attributes, info, names, error handlers, the group. */
#include <stdint.h>
#include <string.h>

#include "binding/rma_common.h"
#include "mpi/attr.h"
#include "mpi/errhandler.h"
#include "mpi/group.h"
#include "mpi/handles.h"
#include "mpi/info.h"

static int create(const char *F, int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit,
                  MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    SMAP_CHECK_PTR(F, comm, win);
    *win = MPI_WIN_NULL;
    if (c->remote_group)
        return smap_err_raise(comm, MPI_ERR_COMM, F, "windows need an intracommunicator");
    if (size < 0)
        return smap_err_raise(comm, MPI_ERR_SIZE, F, "size %lld is negative", (long long)size);
    if (disp_unit <= 0 && flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return smap_err_raise(comm, MPI_ERR_DISP, F, "disp_unit %lld is not positive",
                              (long long)disp_unit);
    if (disp_unit > INT32_MAX)
        return smap_err_raise(comm, MPI_ERR_DISP, F, "disp_unit %lld is too large",
                              (long long)disp_unit);
    if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0 && !base)
        return smap_err_raise(comm, MPI_ERR_BASE, F, "base is NULL but size is %lld",
                              (long long)size);
    if ((flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) && !baseptr)
        return smap_err_raise(comm, MPI_ERR_ARG, F, "baseptr is NULL");
    struct MPI_ABI_Info *in = NULL;
    if (info != MPI_INFO_NULL && !(in = smap_info_get(info)))
        return smap_err_raise(comm, MPI_ERR_INFO, F, "info is not a valid info object");
    void *mem = NULL;
    int rc = smap_win_create(flavor, base, size, disp_unit, in, c, &mem, win);
    if (rc)
        return smap_err_raise(comm, rc, F, "%s", smap_why());
    if (baseptr)
        *(void **)baseptr = mem;
    struct MPI_ABI_Win *w = smap_win_get(*win);
    w->attr_size = w->size;
    w->attr_disp_unit = (int)w->disp_unit;
    w->attr_flavor = flavor;
    w->attr_model = MPI_WIN_UNIFIED;
    return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    return create("MPI_Win_create", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm,
                  NULL, win);
}

int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                      MPI_Comm comm, MPI_Win *win)
{
    return create("MPI_Win_create_c", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm,
                  NULL, win);
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                      void *baseptr, MPI_Win *win)
{
    return create("MPI_Win_allocate", MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, comm,
                  baseptr, win);
}

int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win)
{
    return create("MPI_Win_allocate_c", MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info,
                  comm, baseptr, win);
}

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    return create("MPI_Win_allocate_shared", MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info,
                  comm, baseptr, win);
}

int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void *baseptr, MPI_Win *win)
{
    return create("MPI_Win_allocate_shared_c", MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit,
                  info, comm, baseptr, win);
}

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return create("MPI_Win_create_dynamic", MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info, comm, NULL,
                  win);
}

static int shared_query(const char *F, MPI_Win win, int rank, MPI_Aint *size,
                        MPI_Aint *disp_unit, void *baseptr)
{
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    RMA_CHECK_PTR(F, win, size);
    RMA_CHECK_PTR(F, win, disp_unit);
    RMA_CHECK_PTR(F, win, baseptr);
    if (rank != MPI_PROC_NULL)
        RMA_CHECK_RANK(F, win, w, rank);
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return RMA_RAISE(F, win, MPI_ERR_RMA_FLAVOR,
                         "dynamic windows have no memory to query");
    return RMA_DONE(F, win, smap_win_shared_query(win, rank, size, disp_unit, (void **)baseptr));
}

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    MPI_Aint du = 0;
    int rc = shared_query("MPI_Win_shared_query", win, rank, size, &du, baseptr);
    if (rc == MPI_SUCCESS && disp_unit)
        *disp_unit = (int)du;
    return disp_unit ? rc
                     : smap_win_raise(win, MPI_ERR_ARG, "MPI_Win_shared_query",
                                      "disp_unit is NULL");
}

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr)
{
    return shared_query("MPI_Win_shared_query_c", win, rank, size, disp_unit, baseptr);
}

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    static const char F[] = "MPI_Win_attach";
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return RMA_RAISE(F, win, MPI_ERR_RMA_FLAVOR, "the window is not dynamic");
    if (size < 0)
        return RMA_RAISE(F, win, MPI_ERR_SIZE, "size %lld is negative", (long long)size);
    if (!base && size > 0)
        return RMA_RAISE(F, win, MPI_ERR_BASE, "base is NULL");
    return RMA_DONE(F, win, smap_win_attach(win, base, size));
}

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    static const char F[] = "MPI_Win_detach";
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return RMA_RAISE(F, win, MPI_ERR_RMA_FLAVOR, "the window is not dynamic");
    return RMA_DONE(F, win, smap_win_detach(win, base));
}

int PMPI_Win_free(MPI_Win *win)
{
    static const char F[] = "MPI_Win_free";
    struct MPI_ABI_Win *w;
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, win);
    RMA_CHECK_WIN(F, *win, w);
    MPI_Win h = *win;
    if (w->nlocks || w->lock_all || w->nstart >= 0 || w->npost >= 0)
        return RMA_RAISE(F, h, MPI_ERR_RMA_SYNC, "an access or exposure epoch is still open "
                                                 "(unlock, complete or wait first)");
    /* the attributes' delete callbacks run first, on the live window */
    int rc = smap_attr_list_delete(SMAP_OBJ_WIN, h, &w->attrs);
    if (rc)
        return RMA_RAISE(F, h, MPI_ERR_OTHER, "an attribute delete callback failed (%d)", rc);
    MPI_Errhandler eh = w->errhandler;
    smap_handle_forget(w);
    rc = smap_win_free(win);
    if (rc)
        return RMA_RAISE(F, h, rc, "%s", smap_why());
    smap_errhandler_release(eh);
    return MPI_SUCCESS;
}

/* ---- attributes ---- */

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    static const char F[] = "MPI_Win_get_attr";
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    RMA_CHECK_PTR(F, win, attribute_val);
    RMA_CHECK_PTR(F, win, flag);
    void *v = NULL;
    switch (win_keyval) {
    case MPI_WIN_BASE: v = w->base; break;
    case MPI_WIN_SIZE: v = &w->attr_size; break;
    case MPI_WIN_DISP_UNIT: v = &w->attr_disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: v = &w->attr_flavor; break;
    case MPI_WIN_MODEL: v = &w->attr_model; break;
    default:
        return smap_attr_get(SMAP_OBJ_WIN, win, &w->attrs, win_keyval, (void **)attribute_val,
                             flag, MPI_COMM_NULL, F);
    }
    *(void **)attribute_val = v;
    *flag = 1;
    return MPI_SUCCESS;
}

static int predefined_key(int k)
{
    return k >= MPI_WIN_BASE && k <= MPI_WIN_MODEL;
}

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    static const char F[] = "MPI_Win_set_attr";
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    if (predefined_key(win_keyval))
        return RMA_RAISE(F, win, MPI_ERR_KEYVAL, "the predefined window attributes are read-only");
    return smap_attr_set(SMAP_OBJ_WIN, win, &w->attrs, win_keyval, attribute_val, MPI_COMM_NULL,
                         F);
}

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    static const char F[] = "MPI_Win_delete_attr";
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    if (predefined_key(win_keyval))
        return RMA_RAISE(F, win, MPI_ERR_KEYVAL, "the predefined window attributes are read-only");
    return smap_attr_delete(SMAP_OBJ_WIN, win, &w->attrs, win_keyval, MPI_COMM_NULL, F);
}

/* ---- info, name, group ---- */

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    static const char F[] = "MPI_Win_set_info";
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    struct MPI_ABI_Info *in = smap_info_get(info);
    if (!in)
        return RMA_RAISE(F, win, MPI_ERR_INFO, "info is not a valid info object");
    smap_win_set_hints(w, in);
    return MPI_SUCCESS;
}

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    static const char F[] = "MPI_Win_get_info";
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    RMA_CHECK_PTR(F, win, info_used);
    struct MPI_ABI_Info *in = smap_win_get_hints(w);
    if (!in)
        return RMA_RAISE(F, win, MPI_ERR_NO_MEM, "out of memory");
    *info_used = smap_info_handle(in);
    return MPI_SUCCESS;
}

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    static const char F[] = "MPI_Win_set_name";
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    RMA_CHECK_PTR(F, win, win_name);
    size_t n = strlen(win_name);
    if (n >= MPI_MAX_OBJECT_NAME)
        n = MPI_MAX_OBJECT_NAME - 1;   /* MPI 5.0 §7.8: truncated */
    memcpy(w->name, win_name, n);
    w->name[n] = '\0';
    return MPI_SUCCESS;
}

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    static const char F[] = "MPI_Win_get_name";
    /* MPI 4.1: the null handle has a name too */
    const char *name = "MPI_WIN_NULL";
    if (win == MPI_WIN_NULL) {
        SMAP_CHECK_RUNNING(F);
        if (!win_name || !resultlen)
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, F, "%s is NULL",
                                  win_name ? "resultlen" : "win_name");
    } else {
        struct MPI_ABI_Win *w;
        RMA_CHECK_WIN(F, win, w);
        RMA_CHECK_PTR(F, win, win_name);
        RMA_CHECK_PTR(F, win, resultlen);
        name = w->name;
    }
    size_t n = strlen(name);
    memcpy(win_name, name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    static const char F[] = "MPI_Win_get_group";
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    RMA_CHECK_PTR(F, win, group);
    smap_group_retain(w->group);
    *group = smap_group_handle(w->group);
    return MPI_SUCCESS;
}

/* ---- error handlers ---- */

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                               MPI_Errhandler *errhandler)
{
    static const char F[] = "MPI_Win_create_errhandler";
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, win_errhandler_fn);
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, errhandler);
    *errhandler = smap_errhandler_create((MPI_Comm_errhandler_function *)(void *)win_errhandler_fn);
    if (*errhandler == MPI_ERRHANDLER_NULL)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_NO_MEM, F, "out of memory");
    return MPI_SUCCESS;
}

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    static const char F[] = "MPI_Win_set_errhandler";
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    if (!smap_errhandler_valid(errhandler))
        return RMA_RAISE(F, win, MPI_ERR_ARG, "errhandler is not a valid error handler");
    smap_errhandler_retain(errhandler);
    MPI_Errhandler old = w->errhandler;
    w->errhandler = errhandler;
    smap_errhandler_release(old);
    return MPI_SUCCESS;
}

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    static const char F[] = "MPI_Win_get_errhandler";
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    RMA_CHECK_PTR(F, win, errhandler);
    smap_errhandler_give(w->errhandler);
    *errhandler = w->errhandler;
    return MPI_SUCCESS;
}

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    static const char F[] = "MPI_Win_call_errhandler";
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    (void)w;
    smap_win_invoke(win, errorcode);
    return MPI_SUCCESS;
}
