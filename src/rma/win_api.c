/* The window object's life as the entry points ask for it (MPI 5.0 §12.2):
 * creation with the arguments as given (their rules: an intracommunicator,
 * sizes, displacement units, base pointers, hints), freeing with the
 * attributes' callbacks first, the int form of the shared query.  Each
 * returns MPI_SUCCESS or a class with smap_why() saying why; the binding
 * raises it (on the communicator for creation, else on the window). */
#include <stdint.h>

#include "mpi/attr.h"
#include "mpi/comm.h"
#include "mpi/errhandler.h"
#include "mpi/handles.h"
#include "mpi/info.h"
#include "rma/rma.h"

int smap_win_bad_rank(const struct MPI_ABI_Win *w, int rank)
{
    return smap_failf(MPI_ERR_RANK, "rank %d is not in the window's group (size %d)", rank,
                      w->n);
}

/* The arguments' rules; MPI_SUCCESS when they hold. */
static int create_args(int flavor, const void *base, MPI_Aint size, MPI_Aint disp_unit,
                       const struct MPI_ABI_Comm *c, const void *baseptr)
{
    if (c->remote_group)
        return smap_fail(MPI_ERR_COMM, "windows need an intracommunicator");
    if (size < 0)
        return smap_failf(MPI_ERR_SIZE, "size %lld is negative", (long long)size);
    if (disp_unit <= 0 && flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return smap_failf(MPI_ERR_DISP, "disp_unit %lld is not positive", (long long)disp_unit);
    if (disp_unit > INT32_MAX)
        return smap_failf(MPI_ERR_DISP, "disp_unit %lld is too large", (long long)disp_unit);
    if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0 && !base)
        return smap_failf(MPI_ERR_BASE, "base is NULL but size is %lld", (long long)size);
    if ((flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) && !baseptr)
        return smap_fail(MPI_ERR_ARG, "baseptr is NULL");
    return MPI_SUCCESS;
}

int smap_win_create_checked(int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit,
                            MPI_Info info, struct MPI_ABI_Comm *c, void *baseptr, MPI_Win *win)
{
    *win = MPI_WIN_NULL;
    int rc = create_args(flavor, base, size, disp_unit, c, baseptr);
    if (rc)
        return rc;
    struct MPI_ABI_Info *in = NULL;
    if (info != MPI_INFO_NULL && !(in = smap_info_get(info)))
        return smap_fail(MPI_ERR_INFO, "info is not a valid info object");
    void *mem = NULL;
    rc = smap_win_create(flavor, base, size, disp_unit, in, c, &mem, win);
    if (rc)
        return rc;
    if (baseptr)
        *(void **)baseptr = mem;
    /* what the predefined attributes point to (win_props.c) */
    struct MPI_ABI_Win *w = smap_win_get(*win);
    w->attr_size = w->size;
    w->attr_disp_unit = (int)w->disp_unit;
    w->attr_flavor = flavor;
    w->attr_model = MPI_WIN_UNIFIED;
    return MPI_SUCCESS;
}

int smap_win_free_checked(struct MPI_ABI_Win *w, MPI_Win *win)
{
    if (w->nlocks || w->lock_all || w->nstart >= 0 || w->npost >= 0)
        return smap_fail(MPI_ERR_RMA_SYNC, "an access or exposure epoch is still open "
                                           "(unlock, complete or wait first)");
    /* the attributes' delete callbacks run first, on the live window */
    int rc = smap_attr_list_delete(SMAP_OBJ_WIN, *win, &w->attrs);
    if (rc)
        return smap_failf(MPI_ERR_OTHER, "an attribute delete callback failed (%d)", rc);
    MPI_Errhandler eh = w->errhandler;
    smap_handle_forget(w);
    rc = smap_win_free(win);
    if (rc)
        return rc;
    smap_errhandler_release(eh);
    return MPI_SUCCESS;
}

int smap_win_shared_query_int(struct MPI_ABI_Win *w, int rank, MPI_Aint *size, int *disp_unit,
                              void *baseptr)
{
    MPI_Aint du = 0;
    int rc = smap_win_shared_query(w, rank, size, &du, baseptr);
    if (rc == MPI_SUCCESS)
        *disp_unit = (int)du;
    return rc;
}
