/* Creating and freeing communicators: MPI_Comm_dup(_with_info),
 * MPI_Comm_create, MPI_Comm_free, and the queries on them (compare,
 * test_inter, names).  Splits are in comm_split.c.
 *
 * Every constructor is collective over the parent: the members agree on a
 * context id (point-to-point matching) and a collectives control block with
 * two allreduces on the parent, so ids and blocks freed are reused and a
 * create/free loop never runs out. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "binding/check.h"
#include "binding/comm_create.h"
#include "binding/intercomm.h"
#include "coll/coll.h"
#include "coll/hier/hier.h"
#include "mpi/attr.h"
#include "mpi/errhandler.h"
#include "mpi/info.h"
#include "mpi/request.h"
#include "p2p/p2p.h"
#include "topo/topo.h"

static SMAP_COLD int no_ctx(struct MPI_ABI_Comm *parent, const char *func)
{
    return smap_err_raise(parent->handle, MPI_ERR_INTERN, func,
                          "no context id is free on every member (at most %d "
                          "communicators alive at once, a quarter of the ids kept for "
                          "MPI_Comm_idup)", SMAP_CTX_MAX);
}

static int agree(struct MPI_ABI_Comm *parent, struct comm_ids *ids, const char *func)
{
    if (parent->slot < 0) {
        /* the parent cannot run collectives: agree over point-to-point */
        comm_agree_p2p(parent, parent->group, 0, ids);
        return ids->ctx < 0 ? no_ctx(parent, func) : MPI_SUCCESS;
    }
    /* Rounds until every member offered its free ids at once (other
     * threads may be agreeing too: smap_comm_ctx_offer, mpi/comm.h).
     * Words: free ids, free control blocks, "every member offered". */
    uint64_t key = smap_comm_ctx_key(parent->ctx, -1);
    uint32_t m[SMAP_CTX_WORDS + 2];
    for (;;) {
        m[SMAP_CTX_WORDS] = smap_coll_slots_free();
        int mine = smap_comm_ctx_offer(key, m, &m[SMAP_CTX_WORDS]);
        m[SMAP_CTX_WORDS + 1] = (uint32_t)mine;
        int rc = PMPI_Allreduce(MPI_IN_PLACE, m, SMAP_CTX_WORDS + 2, MPI_UINT32_T, MPI_BAND,
                                parent->handle);
        int agreed = rc == MPI_SUCCESS && m[SMAP_CTX_WORDS + 1];
        ids->ctx = agreed ? smap_comm_ctx_pick(m) : -1;
        /* no free control block is not an error yet: only collectives need one */
        ids->slot = agreed && m[SMAP_CTX_WORDS] ? smap_ctz_size(m[SMAP_CTX_WORDS]) : -1;
        smap_comm_ctx_settle(key, mine,
                             rc != MPI_SUCCESS ? SMAP_CTX_ABANDON
                             : agreed          ? SMAP_CTX_AGREED
                                               : SMAP_CTX_RETRY,
                             ids->ctx, ids->slot);
        if (rc != MPI_SUCCESS)
            return rc;
        if (agreed)
            break;
        smap_p2p_progress();   /* MPI_Comm_idup schedules move on meanwhile */
    }
    if (ids->ctx < 0)
        return no_ctx(parent, func);
    ids->step = ids->slot >= 0 ? smap_coll_slot_step(ids->slot) : 0;
    if (ids->slot < 0)
        return MPI_SUCCESS;
    return PMPI_Allreduce(MPI_IN_PLACE, &ids->step, 1, MPI_UINT64_T, MPI_MAX, parent->handle);
}

int comm_agree(struct MPI_ABI_Comm *parent, struct comm_ids *ids, const char *func)
{
    return agree(parent, ids, func);
}

int comm_make(struct MPI_ABI_Comm *parent, struct MPI_ABI_Group *g, const struct comm_ids *ids,
              MPI_Comm *newcomm, const char *func)
{
    /* A group across nodes leaves the agreed block unused (every member
     * of g decides alike); collectives run as schedules there. */
    int slot = ids->slot >= 0 && smap_comm_group_on_node(g) ? ids->slot : -1;
    struct MPI_ABI_Comm *c = smap_comm_new(parent, g, ids->ctx, slot);
    if (!c)
        return smap_err_raise(parent->handle, MPI_ERR_NO_MEM, func, "out of memory");
    if (slot >= 0)
        smap_coll_slot_claim(slot, ids->step);
    /* both are taken now: no reservation needed (only this agreement's:
     * an idup made from inside a blocking agreement leaves that one's) */
    smap_comm_ctx_release_mine_if(ids->ctx);
    *newcomm = c;
    return MPI_SUCCESS;
}

/* A duplicate of c (same group, new context), without attributes yet. */
static int dup_plain(struct MPI_ABI_Comm *c, MPI_Comm *newcomm, const char *func)
{
    if (smap_comm_is_inter(c))
        return inter_dup(c, newcomm, func);
    struct comm_ids ids;
    int rc = comm_agree(c, &ids, func);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_group_retain(c->group);
    rc = comm_make(c, c->group, &ids, newcomm, func);
    /* MPI-5.0 8.4: a duplicate keeps the virtual topology (src/topo) */
    if (rc == MPI_SUCCESS && c->topo && !((*newcomm)->topo = smap_topo_dup(c->topo))) {
        (void)smap_coll_release(*newcomm);   /* fresh: released without a sync */
        smap_comm_destroy(*newcomm);
        *newcomm = MPI_COMM_NULL;
        return smap_err_raise(c->handle, MPI_ERR_NO_MEM, func, "out of memory");
    }
    return rc;
}

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
    int rc = dup_plain(c, newcomm, F);
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
    int rc = dup_plain(c, newcomm, F);
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
    if (smap_comm_is_inter(c))   /* group: a subset of the local group */
        return inter_split(c, g->my_rank == MPI_UNDEFINED ? MPI_UNDEFINED : 0, g->my_rank,
                           newcomm, F);
    struct comm_ids ids;
    int rc = comm_agree(c, &ids, F);
    if (rc != MPI_SUCCESS)
        return rc;
    *newcomm = MPI_COMM_NULL;
    if (g->my_rank == MPI_UNDEFINED)
        return MPI_SUCCESS;
    smap_group_retain(g);
    return comm_make(c, g, &ids, newcomm, F);
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
    rc = smap_hier_release(c);   /* its node and leaders sub-communicators */
    if (rc != MPI_SUCCESS)
        return smap_err_raise(*comm, rc, F, "%s", smap_hier_why());
    rc = smap_coll_release(c);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(*comm, rc, F, "%s", smap_coll_why());
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
