/* Creating and freeing communicators: MPI_Comm_dup(_with_info),
 * MPI_Comm_create, MPI_Comm_free, and the queries on them (compare,
 * test_inter, names).  Splits are in comm_split.c.
 * The argument checks; the members' agreement on a context id and a
 * control block is src/comm/comm_agree.c. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "binding/check.h"
#include "comm/comm_create.h"
#include "mpi/intercomm.h"
#include "coll/coll.h"
#include "mpi/attr.h"
#include "mpi/errhandler.h"
#include "mpi/info.h"
#include "mpi/request.h"
#include "p2p/p2p.h"
#include "topo/topo.h"

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

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    static const char F[] = "MPI_Comm_dup";
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    SMAP_CHECK_PTR(F, comm, newcomm);
    int rc = smap_comm_dup_bare(c, newcomm, F);
    if (rc != MPI_SUCCESS)
        return rc;
    struct MPI_ABI_Comm *n = *newcomm;
    /* MPI-5.0 7.4.2: the hints are duplicated too */
    if (c->hints && !(n->hints = smap_info_dup(c->hints))) {
        undo(newcomm);
        return smap_err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory");
    }
    rc = smap_attr_copy_all(c, n);
    if (rc != MPI_SUCCESS) {
        undo(newcomm);
        return smap_err_raise(comm, rc, F, "%s", "an attribute copy callback failed");
    }
    return MPI_SUCCESS;
}

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    static const char F[] = "MPI_Comm_dup_with_info";
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    SMAP_CHECK_PTR(F, comm, newcomm);
    if (info != MPI_INFO_NULL && !smap_info_get(info))
        return smap_err_raise(comm, MPI_ERR_INFO, F, "info is not a valid info object");
    int rc = smap_comm_dup_bare(c, newcomm, F);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = smap_attr_copy_all(c, *newcomm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_set_info(*newcomm, info);
    if (rc != MPI_SUCCESS) {
        undo(newcomm);
        return smap_err_raise(comm, rc, F, "%s", "copying attributes or hints failed");
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

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    static const char F[] = "MPI_Comm_create";
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    SMAP_CHECK_PTR(F, comm, newcomm);
    struct MPI_ABI_Group *g = smap_group_get(group);
    if (!g)
        return smap_err_raise(comm, MPI_ERR_GROUP, F, "group is not a valid group");
    if (!is_subgroup(g, c))
        return smap_err_raise(comm, MPI_ERR_GROUP, F, "group is not a subset of comm's group");
    return smap_comm_create(c, g, newcomm, F);
}

int PMPI_Comm_free(MPI_Comm *comm)
{
    static const char F[] = "MPI_Comm_free";
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, comm);
    SMAP_CHECK_COMM(F, *comm, c);
    if (smap_comm_is_predefined(c))
        return smap_err_raise(*comm, MPI_ERR_COMM, F, "%s cannot be freed", c->name);
    /* MPI-5.0 7.7.3: delete callbacks run first, on a still valid comm */
    int rc = smap_attr_delete_all(c);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(*comm, rc, F, "%s", "an attribute delete callback failed");
    rc = smap_coll_free(c);   /* its hierarchy's sub-communicators, its control block */
    if (rc != MPI_SUCCESS)
        return smap_err_raise(*comm, rc, F, "%s", smap_why());
    smap_comm_buffer_free(c);   /* MPI 4.1: its attached buffer is flushed and detached */
    c->magic = 0;         /* the handle is dead now ... */
    smap_comm_unref(c);   /* ... the object once its last request is gone */
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    static const char F[] = "MPI_Comm_compare";
    struct MPI_ABI_Comm *a, *b;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm1, a);
    SMAP_CHECK_COMM(F, comm2, b);
    SMAP_CHECK_PTR(F, comm1, result);
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (smap_comm_is_inter(a) || smap_comm_is_inter(b)) {
        *result = smap_inter_compare(a, b);
        return MPI_SUCCESS;
    }
    int g = smap_group_compare(a->group, b->group);
    *result = g == MPI_IDENT ? MPI_CONGRUENT : g;
    return MPI_SUCCESS;
}

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING("MPI_Comm_test_inter");
    SMAP_CHECK_COMM("MPI_Comm_test_inter", comm, c);
    SMAP_CHECK_PTR("MPI_Comm_test_inter", comm, flag);
    *flag = smap_comm_is_inter(c);
    return MPI_SUCCESS;
}

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING("MPI_Comm_set_name");
    SMAP_CHECK_COMM("MPI_Comm_set_name", comm, c);
    SMAP_CHECK_PTR("MPI_Comm_set_name", comm, comm_name);
    /* longer names are truncated, as the standard allows */
    snprintf(c->name, sizeof c->name, "%s", comm_name);
    return MPI_SUCCESS;
}

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING("MPI_Comm_get_name");
    SMAP_CHECK_PTR("MPI_Comm_get_name", comm, comm_name);
    SMAP_CHECK_PTR("MPI_Comm_get_name", comm, resultlen);
    /* MPI 4.1: the null handle has a name too */
    const char *name = "MPI_COMM_NULL";
    if (comm != MPI_COMM_NULL) {
        SMAP_CHECK_COMM("MPI_Comm_get_name", comm, c);
        name = c->name;
    }
    size_t n = strlen(name);
    memcpy(comm_name, name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}
