/* The topology object's life cycle (new, free, deep copy for
 * MPI_Comm_dup) and the neighbour query of the neighborhood collectives. */
#include "topo/topo.h"

#include <stdlib.h>
#include <string.h>

int *smap_topo_ints(const int *src, int n)
{
    /* one int at least: malloc(0) may return NULL, which would read as
     * "out of memory" for an empty list */
    int *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
    if (p && n > 0)
        memcpy(p, src, (size_t)n * sizeof *p);
    return p;
}

struct smap_topo *smap_topo_new(int kind)
{
    struct smap_topo *t = calloc(1, sizeof *t);
    if (t)
        t->kind = kind;
    return t;
}

void smap_topo_free(struct smap_topo *t)
{
    if (!t)
        return;
    free(t->dims);
    free(t->periods);
    free(t->coords);
    free(t->index);
    free(t->edges);
    free(t->inw);
    free(t->outw);
    free(t->in);
    free(t->out);
    free(t);
}

/* *dst = copy of src[0..n) when src is set; 0 when out of memory. */
static int copy_opt(int **dst, const int *src, int n)
{
    if (!src)
        return 1;
    *dst = smap_topo_ints(src, n);
    return *dst != NULL;
}

struct smap_topo *smap_topo_dup(const struct smap_topo *t)
{
    if (!t)
        return NULL;
    struct smap_topo *n = malloc(sizeof *n);
    if (!n)
        return NULL;
    *n = *t;
    n->dims = n->periods = n->coords = n->index = n->edges = NULL;
    n->inw = n->outw = n->in = n->out = NULL;
    int nedges = t->index && t->nnodes > 0 ? t->index[t->nnodes - 1] : 0;
    if (copy_opt(&n->dims, t->dims, t->ndims) && copy_opt(&n->periods, t->periods, t->ndims) &&
        copy_opt(&n->coords, t->coords, t->ndims) && copy_opt(&n->index, t->index, t->nnodes) &&
        copy_opt(&n->edges, t->edges, nedges) && copy_opt(&n->inw, t->inw, t->indeg) &&
        copy_opt(&n->outw, t->outw, t->outdeg) && copy_opt(&n->in, t->in, t->indeg) &&
        copy_opt(&n->out, t->out, t->outdeg))
        return n;
    smap_topo_free(n);
    return NULL;
}

int smap_topo_neighbors(const struct smap_topo *t, int *indeg, const int **sources,
                        int *outdeg, const int **dests)
{
    if (!t)
        return MPI_ERR_TOPOLOGY;
    *indeg = t->indeg;
    *sources = t->in;
    *outdeg = t->outdeg;
    *dests = t->out;
    return MPI_SUCCESS;
}
