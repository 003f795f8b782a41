/* Graph and distributed graph topologies (MPI 5.0 §8.5): MPI_Graph_*,
 * MPI_Dist_graph_create(_adjacent) and the neighbour queries.  Arithmetic
 * in src/topo/graph.c and dist_graph.c. */
#include <mpi.h>
#include <limits.h>
#include <stdlib.h>

#include "binding/topo_common.h"
#include "mpi/info.h"

/* ---- graph --------------------------------------------------------------- */

/* MPI_Graph_create's description: 0 <= nnodes <= size, index
 * non-decreasing from >= 0, every edge a node number. */
static int check_graph(const char *func, MPI_Comm comm, int nnodes, const int *index,
                       const int *edges, int size)
{
    if (nnodes < 0 || nnodes > size)
        return smap_err_raise(comm, MPI_ERR_ARG, func,
                              "nnodes=%d is not between 0 and comm's size %d", nnodes, size);
    if (nnodes == 0)
        return MPI_SUCCESS;
    SMAP_CHECK_PTR(func, comm, index);
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return smap_err_raise(comm, MPI_ERR_ARG, func,
                                  "index[%d]=%d is smaller than the entry before it", i,
                                  index[i]);
    if (index[nnodes - 1] > 0)
        SMAP_CHECK_PTR(func, comm, edges);
    for (int j = 0; j < index[nnodes - 1]; j++)
        if (edges[j] < 0 || edges[j] >= nnodes)
            return smap_err_raise(comm, MPI_ERR_ARG, func,
                                  "edges[%d]=%d is not a node (nnodes=%d)", j, edges[j], nnodes);
    return MPI_SUCCESS;
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    static const char F[] = "MPI_Graph_create";
    struct MPI_ABI_Comm *c;
    (void)reorder;
    TOPO_ENTER(F, comm_old, c);
    SMAP_CHECK_PTR(F, comm_old, comm_graph);
    TOPO_TRY(check_graph(F, comm_old, nnodes, index, edges, c->size));
    struct smap_topo *t = c->rank < nnodes ? smap_graph_new(nnodes, index, edges, c->rank) : NULL;
    return topo_comm_new(c, nnodes, t, comm_graph, F);
}

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    static const char F[] = "MPI_Graph_map";
    struct MPI_ABI_Comm *c;
    TOPO_ENTER(F, comm, c);
    SMAP_CHECK_PTR(F, comm, newrank);
    TOPO_TRY(check_graph(F, comm, nnodes, index, edges, c->size));
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;   /* the identity mapping */
    return MPI_SUCCESS;
}

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    static const char F[] = "MPI_Graphdims_get";
    TOPO_QUERY(F, comm, c, MPI_GRAPH, "graph", t);
    SMAP_CHECK_PTR(F, comm, nnodes);
    SMAP_CHECK_PTR(F, comm, nedges);
    *nnodes = t->nnodes;
    *nedges = t->index[t->nnodes - 1];
    return MPI_SUCCESS;
}

/* MPI 5.0 §8.5.5: arrays shorter than the graph get its first entries. */
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    static const char F[] = "MPI_Graph_get";
    TOPO_QUERY(F, comm, c, MPI_GRAPH, "graph", t);
    if (maxindex < 0 || maxedges < 0)
        return smap_err_raise(comm, MPI_ERR_ARG, F, "maxindex=%d or maxedges=%d is negative",
                              maxindex, maxedges);
    TOPO_CHECK_ARRAY(F, comm, maxindex, index);
    TOPO_CHECK_ARRAY(F, comm, maxedges, edges);
    int ni = maxindex < t->nnodes ? maxindex : t->nnodes;
    int nedges = t->index[t->nnodes - 1], ne = maxedges < nedges ? maxedges : nedges;
    for (int i = 0; i < ni; i++)
        index[i] = t->index[i];
    for (int j = 0; j < ne; j++)
        edges[j] = t->edges[j];
    return MPI_SUCCESS;
}

/* rank must be a node of c's graph. */
static int check_node(const char *func, MPI_Comm comm, const struct smap_topo *t, int rank)
{
    if (rank < 0 || rank >= t->nnodes)
        return smap_err_raise(comm, MPI_ERR_RANK, func,
                              "rank %d is not a node of the graph (nnodes=%d)", rank, t->nnodes);
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    static const char F[] = "MPI_Graph_neighbors_count";
    TOPO_QUERY(F, comm, c, MPI_GRAPH, "graph", t);
    TOPO_TRY(check_node(F, comm, t, rank));
    SMAP_CHECK_PTR(F, comm, nneighbors);
    const int *adj;
    smap_graph_adj(t, rank, &adj, nneighbors);
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    static const char F[] = "MPI_Graph_neighbors";
    TOPO_QUERY(F, comm, c, MPI_GRAPH, "graph", t);
    TOPO_TRY(check_node(F, comm, t, rank));
    if (maxneighbors < 0)
        return smap_err_raise(comm, MPI_ERR_ARG, F, "maxneighbors=%d is negative",
                              maxneighbors);
    TOPO_CHECK_ARRAY(F, comm, maxneighbors, neighbors);
    const int *adj;
    int n;
    smap_graph_adj(t, rank, &adj, &n);
    for (int i = 0; i < n && i < maxneighbors; i++)
        neighbors[i] = adj[i];
    return MPI_SUCCESS;
}

/* ---- distributed graph --------------------------------------------------- */

/* n ranks of comm (size `size`), each in range. */
static int check_ranks(const char *func, MPI_Comm comm, const char *what, const int *r, int n,
                       int size)
{
    if (n > 0 && !r)
        return smap_err_raise(comm, MPI_ERR_ARG, func, "%s is NULL", what);
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= size)
            return smap_err_raise(comm, MPI_ERR_RANK, func, "%s[%d]=%d is not a rank of comm",
                                  what, i, r[i]);
    return MPI_SUCCESS;
}

/* A weights argument for n edges: MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY (only
 * for no edge), or n non-negative weights. */
static int check_weights(const char *func, MPI_Comm comm, const char *what, const int *w, int n)
{
    if (w == MPI_UNWEIGHTED)
        return MPI_SUCCESS;
    if (w == MPI_WEIGHTS_EMPTY) {
        if (n > 0)
            return smap_err_raise(comm, MPI_ERR_ARG, func,
                                  "%s is MPI_WEIGHTS_EMPTY for %d edges", what, n);
        return MPI_SUCCESS;
    }
    if (n > 0 && !w)
        return smap_err_raise(comm, MPI_ERR_ARG, func, "%s is NULL", what);
    for (int i = 0; i < n; i++)
        if (w[i] < 0)
            return smap_err_raise(comm, MPI_ERR_ARG, func, "%s[%d]=%d is negative", what, i,
                                  w[i]);
    return MPI_SUCCESS;
}

/* A weights array worth reading (not one of the two special values). */
static const int *real_weights(const int *w)
{
    return w == MPI_UNWEIGHTED || w == MPI_WEIGHTS_EMPTY ? NULL : w;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    static const char F[] = "MPI_Dist_graph_create_adjacent";
    struct MPI_ABI_Comm *c;
    (void)reorder;
    TOPO_ENTER(F, comm_old, c);
    SMAP_CHECK_PTR(F, comm_old, comm_dist_graph);
    if (indegree < 0 || outdegree < 0)
        return smap_err_raise(comm_old, MPI_ERR_ARG, F, "indegree=%d or outdegree=%d is negative",
                              indegree, outdegree);
    TOPO_TRY(check_ranks(F, comm_old, "sources", sources, indegree, c->size));
    TOPO_TRY(check_ranks(F, comm_old, "destinations", destinations, outdegree, c->size));
    TOPO_TRY(check_weights(F, comm_old, "sourceweights", sourceweights, indegree));
    TOPO_TRY(check_weights(F, comm_old, "destweights", destweights, outdegree));
    TOPO_TRY(topo_check_info(F, comm_old, info));
    int weighted = sourceweights != MPI_UNWEIGHTED;
    if (weighted != (destweights != MPI_UNWEIGHTED))
        return smap_err_raise(comm_old, MPI_ERR_ARG, F, "%s",
                              "only one of sourceweights and destweights is MPI_UNWEIGHTED");
    struct smap_topo *t = smap_dist_graph_new(indegree, sources, real_weights(sourceweights),
                                              outdegree, destinations, real_weights(destweights),
                                              weighted);
    return topo_comm_new(c, c->size, t, comm_dist_graph, F);
}

/* MPI_Dist_graph_create's edges sent to their two ends: every process
 * tells each source "here is a destination of yours" and each destination
 * "here is a source of yours" (one alltoall of counts, one alltoallv of
 * smap_dist_edge records over comm).  The records arrive ordered by the
 * process that gave the edge, then in its order.  *out: the records for
 * this process (malloc'd), *nout their number.  MPI_SUCCESS or an error
 * class (nothing raised). */
_Static_assert(sizeof(struct smap_dist_edge) == 3 * sizeof(int), "edges travel as 3 MPI_INTs");
static int exchange_edges(MPI_Comm comm, int size, int n, const int *sources, const int *degrees,
                          const int *dests, const int *weights, struct smap_dist_edge **out,
                          int *nout)
{
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
    int rc = sbuf ? PMPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm) : MPI_ERR_NO_MEM;
    long long rtotal = 0;
    for (int p = 0; rc == MPI_SUCCESS && p < size; p++) {
        sdsp[p] = p ? sdsp[p - 1] + scnt[p - 1] : 0;
        rdsp[p] = (int)rtotal;
        rtotal += rcnt[p];
    }
    struct smap_dist_edge *rbuf = NULL;
    if (rc == MPI_SUCCESS && rtotal <= INT_MAX && !(rbuf = malloc((size_t)(rtotal / 3 + 1) * sizeof *rbuf)))
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
            rc = PMPI_Alltoallv(sbuf, scnt, sdsp, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, comm);
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

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    static const char F[] = "MPI_Dist_graph_create";
    struct MPI_ABI_Comm *c;
    (void)reorder;
    TOPO_ENTER(F, comm_old, c);
    SMAP_CHECK_PTR(F, comm_old, comm_dist_graph);
    if (n < 0)
        return smap_err_raise(comm_old, MPI_ERR_ARG, F, "n=%d is negative", n);
    TOPO_CHECK_ARRAY(F, comm_old, n, degrees);
    TOPO_TRY(check_ranks(F, comm_old, "sources", sources, n, c->size));
    long long nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return smap_err_raise(comm_old, MPI_ERR_ARG, F, "degrees[%d]=%d is negative", i,
                                  degrees[i]);
        if ((nedges += degrees[i]) > INT_MAX / 6)
            return smap_err_raise(comm_old, MPI_ERR_ARG, F, "%s", "too many edges");
    }
    TOPO_TRY(check_ranks(F, comm_old, "destinations", destinations, (int)nedges, c->size));
    TOPO_TRY(check_weights(F, comm_old, "weights", weights, (int)nedges));
    TOPO_TRY(topo_check_info(F, comm_old, info));
    struct smap_dist_edge *e = NULL;
    int ne = 0;
    int rc = exchange_edges(comm_old, c->size, n, sources, degrees, destinations,
                        real_weights(weights), &e, &ne);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(comm_old, rc, F, "%s", "exchanging the edges failed");
    struct smap_topo *t = smap_dist_graph_from_edges(e, ne, weights != MPI_UNWEIGHTED);
    free(e);
    return topo_comm_new(c, c->size, t, comm_dist_graph, F);
}

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    static const char F[] = "MPI_Dist_graph_neighbors_count";
    TOPO_QUERY(F, comm, c, MPI_DIST_GRAPH, "distributed graph", t);
    SMAP_CHECK_PTR(F, comm, indegree);
    SMAP_CHECK_PTR(F, comm, outdegree);
    SMAP_CHECK_PTR(F, comm, weighted);
    *indegree = t->indeg;
    *outdegree = t->outdeg;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}

/* Copies the first max entries of list (and of its weights into w when
 * both are there: MPI_UNWEIGHTED asks for none). */
static void put_list(const int *list, const int *lw, int deg, int max, int *r, int *w)
{
    int m = max < deg ? max : deg;
    for (int i = 0; i < m; i++) {
        r[i] = list[i];
        if (lw && real_weights(w))
            w[i] = lw[i];
    }
}

/* MPI 5.0 §8.5.5: shorter arrays get the first part of each list. */
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                              int sourceweights[], int maxoutdegree, int destinations[],
                              int destweights[])
{
    static const char F[] = "MPI_Dist_graph_neighbors";
    TOPO_QUERY(F, comm, c, MPI_DIST_GRAPH, "distributed graph", t);
    if (maxindegree < 0 || maxoutdegree < 0)
        return smap_err_raise(comm, MPI_ERR_ARG, F,
                              "maxindegree=%d or maxoutdegree=%d is negative", maxindegree,
                              maxoutdegree);
    if (maxindegree > 0) {
        SMAP_CHECK_PTR(F, comm, sources);
        if (t->weighted)
            SMAP_CHECK_PTR(F, comm, sourceweights);
    }
    if (maxoutdegree > 0) {
        SMAP_CHECK_PTR(F, comm, destinations);
        if (t->weighted)
            SMAP_CHECK_PTR(F, comm, destweights);
    }
    put_list(t->in, t->inw, t->indeg, maxindegree, sources, sourceweights);
    put_list(t->out, t->outw, t->outdeg, maxoutdegree, destinations, destweights);
    return MPI_SUCCESS;
}

