/* The hierarchy's sub-communicators (src/coll/hier): for a communicator c
 * spanning nodes, the communicator of its members on each node and the
 * communicator of one leader per node (the lowest rank of each node).
 *
 * Construction is this layer's, and coll/ lies below it, so coll/hier
 * gets them through a small function table that this layer registers at
 * start (start.c: smap_comm_layer_start, called by the binding's MPI_Init
 * and MPI_Session_init before any communicator exists) rather than by
 * name.
 * Built lazily, on c's first blocking collective that takes the
 * hierarchy (as before), not whenever a multi-node communicator is made:
 * most communicators never run a collective, and the leaders'
 * communicator itself spans nodes, so building them eagerly would recurse.
 *
 * No collective on c: every member knows the node map (coll/hier passes
 * it), so each computes its node's group and the leaders' group itself;
 * the context ids are agreed over point-to-point (smap_comm_agree on a
 * parent without a control block, as every communicator spanning nodes
 * is), two agreements as the two MPI_Comm_split calls they replace. */
#include <stdlib.h>

#include "coll/coll.h"
#include "comm/comm_create.h"
#include "mpi/attr.h"
#include "mpi/errhandler.h"
#include "mpi/errors.h"
#include "mpi/request.h"

/* Messages name them as MPI_Comm_split's, as when they were made by it. */
static const char F[] = "MPI_Comm_split";

/* The n members of c whose ranks are members[] (in rank order): a new
 * communicator at those members (mine: this rank is one of them; *sub),
 * NULL elsewhere.  Collective over c (an agreement over point-to-point). */
static int make_one(smap_comm_t *c, int n, const int *members, int mine, smap_comm_t **sub)
{
    struct smap_comm_ids ids;
    *sub = NULL;
    int rc = smap_comm_agree(c, &ids, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!mine) {
        smap_comm_ctx_release_mine();   /* not a member: nothing to reserve for */
        return MPI_SUCCESS;
    }
    int *w = malloc((size_t)n * sizeof *w);
    if (!w) {
        smap_comm_ctx_release_mine();
        return MPI_ERR_NO_MEM;
    }
    for (int k = 0; k < n; k++)
        w[k] = smap_group_world_rank(c->group, members[k]);
    struct MPI_ABI_Group *g = smap_group_from_world(n, w);
    if (!g) {
        smap_comm_ctx_release_mine();
        return MPI_ERR_NO_MEM;
    }
    MPI_Comm h = MPI_COMM_NULL;
    rc = smap_comm_make(c, g, &ids, &h, F);
    if (rc == MPI_SUCCESS)
        *sub = smap_comm_get(h);
    return rc;
}

static int make(smap_comm_t *c, int nnodes, const int *node_of, const int *leader_of,
                smap_comm_t **node, smap_comm_t **lead)
{
    int me = c->rank, nd = node_of[me];
    int *members = malloc((size_t)c->size * sizeof *members);
    if (!members)
        return MPI_ERR_NO_MEM;
    int k = 0;
    for (int i = 0; i < c->size; i++)
        if (node_of[i] == nd)
            members[k++] = i;
    *lead = NULL;
    int rc = make_one(c, k, members, 1, node);
    /* the leaders, lowest rank of each node: node indices follow the
     * order of their lowest ranks, so leader_of is in rank order */
    if (rc == MPI_SUCCESS)
        rc = make_one(c, nnodes, leader_of, leader_of[nd] == me, lead);
    free(members);
    if (rc == MPI_SUCCESS) {
        /* the point-to-point on the node communicator (gatherv.c) hands
         * its errors back to the collective, which raises them on c */
        MPI_Errhandler old = (*node)->errhandler;
        (*node)->errhandler = MPI_ERRORS_RETURN;
        smap_errhandler_release(old);
    }
    return rc;
}

/* MPI_Comm_free's steps (comm/comm_dup.c) on a communicator the
 * program never saw: no attributes, no handle to clear. */
static int free_one(smap_comm_t *c)
{
    int rc = smap_attr_delete_all(c);
    if (rc == MPI_SUCCESS)
        rc = smap_coll_free(c);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_comm_buffer_free(c);
    c->magic = 0;
    smap_comm_unref(c);
    return MPI_SUCCESS;
}

static const struct smap_hier_comms hier_comms = { make, free_one };

const struct smap_hier_comms *smap_comm_hier_comms(void)
{
    return &hier_comms;
}
