/* The topology constructors (MPI 5.0 §8.5): MPI_Cart_create, MPI_Cart_sub,
 * MPI_Graph_create, MPI_Dist_graph_create(_adjacent).  Built with the same
 * machinery as MPI_Comm_create (smap_comm_agree + smap_comm_make): reorder
 * is accepted and ignored, every process keeps its rank; the topology
 * object is src/topo's.  Called by their generated stubs in
 * src/binding/gen/topo.c once the communicator (an intracommunicator) and
 * the output pointer are checked; each raises its errors on comm's handler
 * in the name `func`. */
#include <mpi.h>
#include <limits.h>
#include <stdlib.h>

#include "base/why.h"
#include "coll/coll.h"
#include "comm/comm_create.h"
#include "dtype/dtype.h"
#include "mpi/errors.h"
#include "mpi/info.h"
#include "topo/topo.h"

/* A rule of src/topo/query.c failed: raise what it recorded. */
static int raise_why(struct MPI_ABI_Comm *c, int rc, const char *func)
{
    return smap_err_raise(c->handle, rc, func, "%s", smap_why());
}

/* The group of c's first n ranks (one reference); NULL when out of memory. */
static struct MPI_ABI_Group *prefix_group(struct MPI_ABI_Comm *c, int n)
{
    if (n == c->size) {
        smap_group_retain(c->group);
        return c->group;
    }
    int *world = malloc((size_t)n * sizeof *world);
    if (!world)
        return NULL;
    for (int i = 0; i < n; i++)
        world[i] = smap_group_world_rank(c->group, i);
    return smap_group_from_world(n, world);
}

/* Collective over c: the communicator of c's first n ranks, each keeping
 * its rank, with topology t attached; the other ranks get MPI_COMM_NULL
 * (and pass t == NULL).  t is taken over; NULL on a member means it could
 * not be built (out of memory), which is raised after the agreement so
 * that the other members do not wait forever. */
static int topo_comm_new(struct MPI_ABI_Comm *c, int n, struct smap_topo *t, MPI_Comm *newcomm,
                         const char *func)
{
    struct smap_comm_ids ids;
    int rc = smap_comm_agree(c, &ids, func);
    *newcomm = MPI_COMM_NULL;
    if (rc != MPI_SUCCESS || c->rank >= n) {
        smap_topo_free(t);
        return rc;
    }
    struct MPI_ABI_Group *g = t ? prefix_group(c, n) : NULL;
    if (!g) {
        smap_topo_free(t);
        return smap_err_raise(c->handle, MPI_ERR_NO_MEM, func, "out of memory");
    }
    rc = smap_comm_make(c, g, &ids, newcomm, func);
    if (rc != MPI_SUCCESS) {
        smap_topo_free(t);
        return rc;
    }
    (*newcomm)->topo = t;
    return MPI_SUCCESS;
}

static int check_info(struct MPI_ABI_Comm *c, MPI_Info info, const char *func)
{
    if (info != MPI_INFO_NULL && !smap_info_get(info))
        return smap_err_raise(c->handle, MPI_ERR_INFO, func, "info is not a valid info object");
    return MPI_SUCCESS;
}

int smap_topo_cart_create(struct MPI_ABI_Comm *c, int ndims, const int dims[],
                          const int periods[], MPI_Comm *comm_cart, const char *func)
{
    int n;
    int rc = smap_topo_check_grid(ndims, dims, periods, c->size, &n);
    if (rc != MPI_SUCCESS)
        return raise_why(c, rc, func);
    struct smap_topo *t = c->rank < n ? smap_cart_new(ndims, dims, periods, c->rank) : NULL;
    return topo_comm_new(c, n, t, comm_cart, func);
}

int smap_topo_cart_sub(struct MPI_ABI_Comm *c, const int remain_dims[], MPI_Comm *newcomm,
                       const char *func)
{
    const struct smap_topo *t = c->topo;
    if (t->ndims > 0 && !remain_dims)
        return smap_err_raise(c->handle, MPI_ERR_ARG, func, "remain_dims is NULL");
    /* one subgrid per combination of the dropped coordinates (the color);
     * inside it, the row-major rank of the kept ones (the key) is the new
     * rank, so the new grid numbers its processes row-major again */
    int color = 0, key = 0, nkept = 0;
    int *dims = malloc((size_t)(t->ndims + 1) * sizeof *dims);
    int *periods = malloc((size_t)(t->ndims + 1) * sizeof *periods);
    if (!dims || !periods) {
        free(dims);
        free(periods);
        return smap_err_raise(c->handle, MPI_ERR_NO_MEM, func, "out of memory");
    }
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            key = key * t->dims[i] + t->coords[i];
            dims[nkept] = t->dims[i];
            periods[nkept++] = t->periods[i];
        } else {
            color = color * t->dims[i] + t->coords[i];
        }
    }
    int rc = smap_comm_split_color(c, color, key, newcomm, func);
    if (rc == MPI_SUCCESS) {
        struct MPI_ABI_Comm *n = smap_comm_get(*newcomm);
        n->topo = smap_cart_new(nkept, dims, periods, n->rank);
        if (!n->topo) {
            (void)smap_comm_free(newcomm, n, func);   /* fresh: no collective ran on it */
            rc = smap_err_raise(c->handle, MPI_ERR_NO_MEM, func, "out of memory");
        }
    }
    free(dims);
    free(periods);
    return rc;
}

int smap_topo_graph_create(struct MPI_ABI_Comm *c, int nnodes, const int index[],
                           const int edges[], MPI_Comm *comm_graph, const char *func)
{
    int rc = smap_topo_check_graph(nnodes, index, edges, c->size);
    if (rc != MPI_SUCCESS)
        return raise_why(c, rc, func);
    struct smap_topo *t = c->rank < nnodes ? smap_graph_new(nnodes, index, edges, c->rank) : NULL;
    return topo_comm_new(c, nnodes, t, comm_graph, func);
}

int smap_topo_dist_graph_adjacent(struct MPI_ABI_Comm *c, int indegree, const int sources[],
                                  const int sourceweights[], int outdegree,
                                  const int destinations[], const int destweights[],
                                  MPI_Info info, MPI_Comm *comm_dist_graph, const char *func)
{
    if (indegree < 0 || outdegree < 0)
        return smap_err_raise(c->handle, MPI_ERR_ARG, func,
                              "indegree=%d or outdegree=%d is negative", indegree, outdegree);
    int rc = smap_topo_check_ranks("sources", sources, indegree, c->size);
    if (rc == MPI_SUCCESS)
        rc = smap_topo_check_ranks("destinations", destinations, outdegree, c->size);
    if (rc == MPI_SUCCESS)
        rc = smap_topo_check_weights("sourceweights", sourceweights, indegree);
    if (rc == MPI_SUCCESS)
        rc = smap_topo_check_weights("destweights", destweights, outdegree);
    if (rc != MPI_SUCCESS)
        return raise_why(c, rc, func);
    if ((rc = check_info(c, info, func)) != MPI_SUCCESS)
        return rc;
    int weighted = sourceweights != MPI_UNWEIGHTED;
    if (weighted != (destweights != MPI_UNWEIGHTED))
        return smap_err_raise(c->handle, MPI_ERR_ARG, func, "%s",
                              "only one of sourceweights and destweights is MPI_UNWEIGHTED");
    struct smap_topo *t = smap_dist_graph_new(indegree, sources,
                                              smap_topo_real_weights(sourceweights), outdegree,
                                              destinations, smap_topo_real_weights(destweights),
                                              weighted);
    return topo_comm_new(c, c->size, t, comm_dist_graph, func);
}

/* MPI_Dist_graph_create's edges sent to their two ends: every process
 * tells each source "here is a destination of yours" and each destination
 * "here is a source of yours" (one alltoall of counts, one alltoallv of
 * smap_dist_edge records over c, through its collectives table).  The
 * records arrive ordered by the process that gave the edge, then in its
 * order.  *out: the records for this process (malloc'd), *nout their
 * number.  MPI_SUCCESS or an error class (nothing raised). */
_Static_assert(sizeof(struct smap_dist_edge) == 3 * sizeof(int), "edges travel as 3 MPI_INTs");
static int exchange_edges(struct MPI_ABI_Comm *c, int n, const int *sources, const int *degrees,
                          const int *dests, const int *weights, struct smap_dist_edge **out,
                          int *nout)
{
    int size = c->size;
    smap_dtype_t *ti = smap_dtype_get(MPI_INT);
    int *cnt = calloc((size_t)size * 4 + 1, sizeof *cnt);   /* scount, sdispl, rcount, rdispl */
    if (!cnt)
        return MPI_ERR_NO_MEM;
    int *scnt = cnt, *sdsp = cnt + size, *rcnt = cnt + 2 * size, *rdsp = cnt + 3 * size;
    long long total = 0;
    for (int i = 0, k = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            scnt[sources[i]] += 3;
            scnt[dests[k]] += 3;
            total++;
        }
    struct smap_dist_edge *sbuf = malloc((size_t)(2 * total + 1) * sizeof *sbuf);
    struct smap_a2a counts = { .sbuf = scnt, .scount = 1, .st = ti,
                               .rbuf = rcnt, .rcount = 1, .rt = ti };
    int rc = sbuf ? smap_coll_alltoall(&counts, c) : MPI_ERR_NO_MEM;
    long long rtotal = 0;
    for (int p = 0; rc == MPI_SUCCESS && p < size; p++) {
        sdsp[p] = p ? sdsp[p - 1] + scnt[p - 1] : 0;
        rdsp[p] = (int)rtotal;
        rtotal += rcnt[p];
    }
    struct smap_dist_edge *rbuf = NULL;
    if (rc == MPI_SUCCESS && rtotal <= INT_MAX &&
        !(rbuf = malloc((size_t)(rtotal / 3 + 1) * sizeof *rbuf)))
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && rtotal > INT_MAX)
        rc = MPI_ERR_COUNT;   /* displacements are ints */
    if (rc == MPI_SUCCESS) {
        int *pos = malloc((size_t)size * sizeof *pos);   /* next free record per target */
        if (!pos) {
            rc = MPI_ERR_NO_MEM;
        } else {
            for (int p = 0; p < size; p++)
                pos[p] = sdsp[p] / 3;
            for (int i = 0, k = 0; i < n; i++)
                for (int j = 0; j < degrees[i]; j++, k++) {
                    int w = weights ? weights[k] : 1;
                    sbuf[pos[sources[i]]++] = (struct smap_dist_edge){ 0, dests[k], w };
                    sbuf[pos[dests[k]]++] = (struct smap_dist_edge){ 1, sources[i], w };
                }
            free(pos);
            struct smap_a2a edges = {
                .sbuf = sbuf, .scounts = { scnt, 0 }, .sdispls = { sdsp, 0 }, .st = ti,
                .rbuf = rbuf, .rcounts = { rcnt, 0 }, .rdispls = { rdsp, 0 }, .rt = ti };
            rc = smap_coll_alltoall(&edges, c);
        }
    }
    free(sbuf);
    free(cnt);
    if (rc != MPI_SUCCESS) {
        free(rbuf);
        return rc;
    }
    *out = rbuf;
    *nout = (int)(rtotal / 3);
    return MPI_SUCCESS;
}

int smap_topo_dist_graph(struct MPI_ABI_Comm *c, int n, const int sources[], const int degrees[],
                         const int destinations[], const int weights[], MPI_Info info,
                         MPI_Comm *comm_dist_graph, const char *func)
{
    if (n < 0)
        return smap_err_raise(c->handle, MPI_ERR_ARG, func, "n=%d is negative", n);
    if (n > 0 && !degrees)
        return smap_err_raise(c->handle, MPI_ERR_ARG, func, "degrees is NULL");
    int rc = smap_topo_check_ranks("sources", sources, n, c->size);
    if (rc != MPI_SUCCESS)
        return raise_why(c, rc, func);
    long long nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return smap_err_raise(c->handle, MPI_ERR_ARG, func, "degrees[%d]=%d is negative", i,
                                  degrees[i]);
        if ((nedges += degrees[i]) > INT_MAX / 6)
            return smap_err_raise(c->handle, MPI_ERR_ARG, func, "%s", "too many edges");
    }
    rc = smap_topo_check_ranks("destinations", destinations, (int)nedges, c->size);
    if (rc == MPI_SUCCESS)
        rc = smap_topo_check_weights("weights", weights, (int)nedges);
    if (rc != MPI_SUCCESS)
        return raise_why(c, rc, func);
    if ((rc = check_info(c, info, func)) != MPI_SUCCESS)
        return rc;
    struct smap_dist_edge *e = NULL;
    int ne = 0;
    smap_coll_func = func;
    rc = exchange_edges(c, n, sources, degrees, destinations, smap_topo_real_weights(weights), &e,
                        &ne);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(c->handle, rc, func, "%s", "exchanging the edges failed");
    struct smap_topo *t = smap_dist_graph_from_edges(e, ne, weights != MPI_UNWEIGHTED);
    free(e);
    return topo_comm_new(c, c->size, t, comm_dist_graph, func);
}
