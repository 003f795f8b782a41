/* The topology entry points' argument rules and queries (MPI 5.0 §8.5):
 * what a Cartesian grid, a graph or a distributed graph's description must
 * satisfy (also for the constructors in src/comm/topo_create.c), and the
 * queries on a communicator's topology, called by their generated stubs in
 * src/binding/gen/topo.c once the communicator, its topology's kind and
 * the output pointers are checked.  Those returning int give MPI_SUCCESS or
 * an error class with the reason recorded (base/why.h). */
#include <mpi.h>
#include <limits.h>
#include <stddef.h>

#include "base/why.h"
#include "topo/topo.h"

/* ---- descriptions ---- */

int smap_topo_check_grid(int ndims, const int *dims, const int *periods, int size, int *volume)
{
    if (ndims < 0)
        return smap_failf(MPI_ERR_DIMS, "ndims=%d is negative", ndims);
    if (ndims > 0 && (!dims || !periods))
        return smap_failf(MPI_ERR_ARG, "%s is NULL", dims ? "periods" : "dims");
    for (int i = 0; i < ndims; i++)
        if (dims[i] <= 0)
            return smap_failf(MPI_ERR_DIMS, "dims[%d]=%d is not positive", i, dims[i]);
    long long v = smap_cart_volume(ndims, dims, size);
    if (v < 0)
        return smap_failf(MPI_ERR_DIMS, "the grid has more processes than comm's %d", size);
    *volume = (int)v;
    return MPI_SUCCESS;
}

int smap_topo_check_graph(int nnodes, const int *index, const int *edges, int size)
{
    if (nnodes < 0 || nnodes > size)
        return smap_failf(MPI_ERR_ARG, "nnodes=%d is not between 0 and comm's size %d", nnodes,
                          size);
    if (nnodes == 0)
        return MPI_SUCCESS;
    if (!index)
        return smap_fail(MPI_ERR_ARG, "index is NULL");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return smap_failf(MPI_ERR_ARG, "index[%d]=%d is smaller than the entry before it", i,
                              index[i]);
    if (index[nnodes - 1] > 0 && !edges)
        return smap_fail(MPI_ERR_ARG, "edges is NULL");
    for (int j = 0; j < index[nnodes - 1]; j++)
        if (edges[j] < 0 || edges[j] >= nnodes)
            return smap_failf(MPI_ERR_ARG, "edges[%d]=%d is not a node (nnodes=%d)", j, edges[j],
                              nnodes);
    return MPI_SUCCESS;
}

int smap_topo_check_ranks(const char *what, const int *r, int n, int size)
{
    if (n > 0 && !r)
        return smap_failf(MPI_ERR_ARG, "%s is NULL", what);
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= size)
            return smap_failf(MPI_ERR_RANK, "%s[%d]=%d is not a rank of comm", what, i, r[i]);
    return MPI_SUCCESS;
}

int smap_topo_check_weights(const char *what, const int *w, int n)
{
    if (w == MPI_UNWEIGHTED)
        return MPI_SUCCESS;
    if (w == MPI_WEIGHTS_EMPTY)
        return n > 0 ? smap_failf(MPI_ERR_ARG, "%s is MPI_WEIGHTS_EMPTY for %d edges", what, n)
                     : MPI_SUCCESS;
    if (n > 0 && !w)
        return smap_failf(MPI_ERR_ARG, "%s is NULL", what);
    for (int i = 0; i < n; i++)
        if (w[i] < 0)
            return smap_failf(MPI_ERR_ARG, "%s[%d]=%d is negative", what, i, w[i]);
    return MPI_SUCCESS;
}

const int *smap_topo_real_weights(const int *w)
{
    return w == MPI_UNWEIGHTED || w == MPI_WEIGHTS_EMPTY ? NULL : w;
}

/* ---- the identity mappings ---- */

int smap_cart_map(int ndims, const int *dims, const int *periods, int size, int rank,
                  int *newrank)
{
    int n;
    int rc = smap_topo_check_grid(ndims, dims, periods, size, &n);
    if (rc == MPI_SUCCESS)
        *newrank = rank < n ? rank : MPI_UNDEFINED;
    return rc;
}

int smap_graph_map(int nnodes, const int *index, const int *edges, int size, int rank,
                   int *newrank)
{
    int rc = smap_topo_check_graph(nnodes, index, edges, size);
    if (rc == MPI_SUCCESS)
        *newrank = rank < nnodes ? rank : MPI_UNDEFINED;
    return rc;
}

/* ---- Cartesian queries ---- */

/* An output array of maxdims entries that must hold all ndims of them. */
static int check_out(int maxdims, int ndims, const char *names[], const void *arrays[], int n)
{
    if (maxdims < ndims)
        return smap_failf(MPI_ERR_ARG, "maxdims=%d is smaller than the %d dimensions", maxdims,
                          ndims);
    for (int i = 0; i < n; i++)
        if (ndims > 0 && !arrays[i])
            return smap_failf(MPI_ERR_ARG, "%s is NULL", names[i]);
    return MPI_SUCCESS;
}

int smap_cart_get(const struct smap_topo *t, int maxdims, int dims[], int periods[], int coords[])
{
    const char *names[] = {"dims", "periods", "coords"};
    const void *arrays[] = {dims, periods, coords};
    int rc = check_out(maxdims, t->ndims, names, arrays, 3);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = t->coords[i];
    }
    return MPI_SUCCESS;
}

int smap_cart_rank(const struct smap_topo *t, const int coords[], int *rank)
{
    if (t->ndims > 0 && !coords)
        return smap_fail(MPI_ERR_ARG, "coords is NULL");
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int x = coords[i], d = t->dims[i];
        if (x < 0 || x >= d) {
            /* MPI 5.0 §8.5.5: out of range is erroneous unless periodic */
            if (!t->periods[i])
                return smap_failf(MPI_ERR_ARG,
                                  "coords[%d]=%d is outside the non-periodic dimension of "
                                  "extent %d", i, x, d);
            x %= d;
            if (x < 0)
                x += d;
        }
        r = r * d + x;
    }
    *rank = r;
    return MPI_SUCCESS;
}

int smap_cart_coords(const struct smap_topo *t, int size, int rank, int maxdims, int coords[])
{
    if (rank < 0 || rank >= size)
        return smap_failf(MPI_ERR_RANK, "rank %d is not in the grid (size %d)", rank, size);
    const char *names[] = {"coords"};
    const void *arrays[] = {coords};
    int rc = check_out(maxdims, t->ndims, names, arrays, 1);
    if (rc == MPI_SUCCESS)
        smap_cart_coords_of(t, rank, coords);
    return rc;
}

int smap_cart_shift_checked(const struct smap_topo *t, int direction, int disp, int *rank_source,
                            int *rank_dest)
{
    if (direction < 0 || direction >= t->ndims)
        return smap_failf(MPI_ERR_DIMS, "direction=%d is not a dimension (ndims=%d)", direction,
                          t->ndims);
    smap_cart_shift(t, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}

/* ---- graph queries ---- */

void smap_graph_dims(const struct smap_topo *t, int *nnodes, int *nedges)
{
    *nnodes = t->nnodes;
    *nedges = t->index[t->nnodes - 1];
}

/* MPI 5.0 §8.5.5: arrays shorter than the graph get its first entries. */
int smap_graph_get(const struct smap_topo *t, int maxindex, int maxedges, int index[], int edges[])
{
    if (maxindex < 0 || maxedges < 0)
        return smap_failf(MPI_ERR_ARG, "maxindex=%d or maxedges=%d is negative", maxindex,
                          maxedges);
    if ((maxindex > 0 && !index) || (maxedges > 0 && !edges))
        return smap_failf(MPI_ERR_ARG, "%s is NULL", maxindex > 0 && !index ? "index" : "edges");
    int ni = maxindex < t->nnodes ? maxindex : t->nnodes;
    int nedges = t->index[t->nnodes - 1], ne = maxedges < nedges ? maxedges : nedges;
    for (int i = 0; i < ni; i++)
        index[i] = t->index[i];
    for (int j = 0; j < ne; j++)
        edges[j] = t->edges[j];
    return MPI_SUCCESS;
}

static int check_node(const struct smap_topo *t, int rank)
{
    if (rank < 0 || rank >= t->nnodes)
        return smap_failf(MPI_ERR_RANK, "rank %d is not a node of the graph (nnodes=%d)", rank,
                          t->nnodes);
    return MPI_SUCCESS;
}

int smap_graph_neighbors_count(const struct smap_topo *t, int rank, int *nneighbors)
{
    int rc = check_node(t, rank);
    if (rc == MPI_SUCCESS) {
        const int *adj;
        smap_graph_adj(t, rank, &adj, nneighbors);
    }
    return rc;
}

int smap_graph_neighbors(const struct smap_topo *t, int rank, int maxneighbors, int neighbors[])
{
    int rc = check_node(t, rank);
    if (rc != MPI_SUCCESS)
        return rc;
    if (maxneighbors < 0)
        return smap_failf(MPI_ERR_ARG, "maxneighbors=%d is negative", maxneighbors);
    if (maxneighbors > 0 && !neighbors)
        return smap_fail(MPI_ERR_ARG, "neighbors is NULL");
    const int *adj;
    int n;
    smap_graph_adj(t, rank, &adj, &n);
    for (int i = 0; i < n && i < maxneighbors; i++)
        neighbors[i] = adj[i];
    return MPI_SUCCESS;
}

/* ---- distributed graph queries ---- */

void smap_dist_graph_counts(const struct smap_topo *t, int *indegree, int *outdegree,
                            int *weighted)
{
    *indegree = t->indeg;
    *outdegree = t->outdeg;
    *weighted = t->weighted;
}

/* Copies the first max entries of list (and of its weights into w when
 * both are there: MPI_UNWEIGHTED asks for none). */
static void put_list(const int *list, const int *lw, int deg, int max, int *r, int *w)
{
    int m = max < deg ? max : deg;
    for (int i = 0; i < m; i++) {
        r[i] = list[i];
        if (lw && smap_topo_real_weights(w))
            w[i] = lw[i];
    }
}

/* MPI 5.0 §8.5.5: shorter arrays get the first part of each list. */
int smap_dist_graph_neighbors(const struct smap_topo *t, int maxindegree, int sources[],
                              int sourceweights[], int maxoutdegree, int destinations[],
                              int destweights[])
{
    if (maxindegree < 0 || maxoutdegree < 0)
        return smap_failf(MPI_ERR_ARG, "maxindegree=%d or maxoutdegree=%d is negative",
                          maxindegree, maxoutdegree);
    if (maxindegree > 0 && (!sources || (t->weighted && !sourceweights)))
        return smap_failf(MPI_ERR_ARG, "%s is NULL", !sources ? "sources" : "sourceweights");
    if (maxoutdegree > 0 && (!destinations || (t->weighted && !destweights)))
        return smap_failf(MPI_ERR_ARG, "%s is NULL",
                          !destinations ? "destinations" : "destweights");
    put_list(t->in, t->inw, t->indeg, maxindegree, sources, sourceweights);
    put_list(t->out, t->outw, t->outdeg, maxoutdegree, destinations, destweights);
    return MPI_SUCCESS;
}
