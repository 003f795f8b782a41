/* Distributed graph topologies: each process knows only its own sources
 * (in[]) and destinations (out[]), with their weights when weighted.
 * MPI_Dist_graph_create_adjacent hands the lists over directly;
 * MPI_Dist_graph_create's edges arrive as smap_dist_edge records after the
 * binding's exchange and are sorted into the two lists here. */
#include "topo/topo.h"

#include <stdlib.h>

struct smap_topo *smap_dist_graph_new(int indeg, const int *in, const int *inw, int outdeg,
                                      const int *out, const int *outw, int weighted)
{
    struct smap_topo *t = smap_topo_new(MPI_DIST_GRAPH);
    if (!t)
        return NULL;
    t->weighted = weighted;
    t->indeg = indeg;
    t->outdeg = outdeg;
    t->in = smap_topo_ints(in, indeg);
    t->out = smap_topo_ints(out, outdeg);
    int ok = t->in && t->out;
    if (ok && weighted) {
        t->inw = inw ? smap_topo_ints(inw, indeg) : calloc((size_t)indeg + 1, sizeof(int));
        t->outw = outw ? smap_topo_ints(outw, outdeg) : calloc((size_t)outdeg + 1, sizeof(int));
        ok = t->inw && t->outw;
    }
    if (!ok) {
        smap_topo_free(t);
        return NULL;
    }
    return t;
}

struct smap_topo *smap_dist_graph_from_edges(const struct smap_dist_edge *e, int n,
                                             int weighted)
{
    struct smap_topo *t = smap_topo_new(MPI_DIST_GRAPH);
    if (!t)
        return NULL;
    t->weighted = weighted;
    for (int i = 0; i < n; i++) {
        if (e[i].dir == 0)
            t->outdeg++;
        else
            t->indeg++;
    }
    t->in = malloc((size_t)(t->indeg + 1) * sizeof(int));
    t->out = malloc((size_t)(t->outdeg + 1) * sizeof(int));
    if (weighted) {
        t->inw = malloc((size_t)(t->indeg + 1) * sizeof(int));
        t->outw = malloc((size_t)(t->outdeg + 1) * sizeof(int));
    }
    if (!t->in || !t->out || (weighted && (!t->inw || !t->outw))) {
        smap_topo_free(t);
        return NULL;
    }
    int ni = 0, no = 0;
    for (int i = 0; i < n; i++) {
        if (e[i].dir == 0) {
            if (weighted)
                t->outw[no] = e[i].weight;
            t->out[no++] = e[i].peer;
        } else {
            if (weighted)
                t->inw[ni] = e[i].weight;
            t->in[ni++] = e[i].peer;
        }
    }
    return t;
}
