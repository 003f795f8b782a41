/* General graph topologies (MPI_Graph_create): the index/edges arrays as
 * given, kept whole because MPI_Graph_get and MPI_Graph_neighbors may ask
 * about any node.  A node sends to and receives from its adjacency list,
 * in order (MPI 5.0 §8.6), self-loops and repeated edges included. */
#include "topo/topo.h"

#include <stddef.h>

void smap_graph_adj(const struct smap_topo *t, int rank, const int **first, int *n)
{
    int lo = rank > 0 ? t->index[rank - 1] : 0;
    *first = t->edges + lo;
    *n = t->index[rank] - lo;
}

struct smap_topo *smap_graph_new(int nnodes, const int *index, const int *edges, int rank)
{
    struct smap_topo *t = smap_topo_new(MPI_GRAPH);
    if (!t)
        return NULL;
    t->nnodes = nnodes;
    t->index = smap_topo_ints(index, nnodes);
    t->edges = smap_topo_ints(edges, nnodes > 0 ? index[nnodes - 1] : 0);
    if (!t->index || !t->edges) {
        smap_topo_free(t);
        return NULL;
    }
    const int *adj;
    int n;
    smap_graph_adj(t, rank, &adj, &n);
    t->indeg = t->outdeg = n;
    t->in = smap_topo_ints(adj, n);
    t->out = smap_topo_ints(adj, n);
    if (!t->in || !t->out) {
        smap_topo_free(t);
        return NULL;
    }
    return t;
}
