/* MPI_Comm_dup(_with_info), MPI_Comm_create and MPI_Comm_free above the
 * agreement (comm_agree.c): the hints, the attributes' copy and delete
 * callbacks, the collectives' state.  Called by their generated stubs in
 * src/binding/gen/comm.c once the handles and pointers are checked; each
 * raises its errors on the parent's handler in the name `func`. */
#include <mpi.h>

#include "base/why.h"
#include "coll/coll.h"
#include "comm/comm_create.h"
#include "mpi/attr.h"
#include "mpi/errors.h"
#include "mpi/info.h"
#include "mpi/request.h"

/* Undoes a constructor that failed after making the object (no collectives
 * have run on it, so its block is released without a sync). */
static void undo(MPI_Comm *newcomm)
{
    struct MPI_ABI_Comm *n = *newcomm;
    (void)smap_attr_delete_all(n);
    (void)smap_coll_release(n);
    smap_comm_destroy(n);
    *newcomm = MPI_COMM_NULL;
}

int smap_comm_dup(struct MPI_ABI_Comm *c, MPI_Comm *newcomm, const char *func)
{
    int rc = smap_comm_dup_bare(c, newcomm, func);
    if (rc != MPI_SUCCESS)
        return rc;
    struct MPI_ABI_Comm *n = *newcomm;
    /* MPI-5.0 7.4.2: the hints are duplicated too */
    if (c->hints && !(n->hints = smap_info_dup(c->hints))) {
        undo(newcomm);
        return smap_err_raise(c->handle, MPI_ERR_NO_MEM, func, "out of memory");
    }
    rc = smap_attr_copy_all(c, n);
    if (rc != MPI_SUCCESS) {
        undo(newcomm);
        return smap_err_raise(c->handle, rc, func, "%s", "an attribute copy callback failed");
    }
    return MPI_SUCCESS;
}

int smap_comm_dup_with_info(struct MPI_ABI_Comm *c, MPI_Info info, MPI_Comm *newcomm,
                            const char *func)
{
    if (info != MPI_INFO_NULL && !smap_info_get(info))
        return smap_err_raise(c->handle, MPI_ERR_INFO, func, "info is not a valid info object");
    int rc = smap_comm_dup_bare(c, newcomm, func);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = smap_attr_copy_all(c, *newcomm);
    if (rc == MPI_SUCCESS)
        rc = smap_comm_set_info(*newcomm, info);
    if (rc != MPI_SUCCESS) {
        undo(newcomm);
        return smap_err_raise(c->handle, rc, func, "%s", "copying attributes or hints failed");
    }
    return MPI_SUCCESS;
}

/* Whether every member of g is a member of c's group. */
static int is_subgroup(const struct MPI_ABI_Group *g, const struct MPI_ABI_Comm *c)
{
    for (int i = 0; i < g->size; i++)
        if (smap_group_find(c->group, smap_group_world_rank(g, i)) < 0)
            return 0;
    return 1;
}

int smap_comm_create_sub(struct MPI_ABI_Comm *c, struct MPI_ABI_Group *g, MPI_Comm *newcomm,
                         const char *func)
{
    if (!is_subgroup(g, c))
        return smap_err_raise(c->handle, MPI_ERR_GROUP, func,
                              "group is not a subset of comm's group");
    return smap_comm_create(c, g, newcomm, func);
}

int smap_comm_free(MPI_Comm *comm, struct MPI_ABI_Comm *c, const char *func)
{
    if (smap_comm_is_predefined(c))
        return smap_err_raise(*comm, MPI_ERR_COMM, func, "%s cannot be freed", c->name);
    /* MPI-5.0 7.7.3: delete callbacks run first, on a still valid comm */
    int rc = smap_attr_delete_all(c);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(*comm, rc, func, "%s", "an attribute delete callback failed");
    rc = smap_coll_free(c);   /* its hierarchy's sub-communicators, its control block */
    if (rc != MPI_SUCCESS)
        return smap_err_raise(*comm, rc, func, "%s", smap_why());
    smap_comm_buffer_free(c);   /* MPI 4.1: its attached buffer is flushed and detached */
    c->magic = 0;         /* the handle is dead now ... */
    smap_comm_unref(c);   /* ... the object once its last request is gone */
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
