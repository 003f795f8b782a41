/* Cartesian topologies: row-major numbering (the last dimension varies
 * fastest, MPI 5.0 §8.5.1), shifts, and the neighbour lists of the
 * neighborhood collectives: for each dimension, the process one step in
 * the negative direction, then the one in the positive direction. */
#include "topo/topo.h"

#include <stdlib.h>

long long smap_cart_volume(int ndims, const int *dims, long long limit)
{
    long long v = 1;
    for (int i = 0; i < ndims; i++) {
        v *= dims[i];   /* dims[i] >= 1 and v <= limit < 2^31: no overflow */
        if (v > limit)
            return -1;
    }
    return v;
}

int smap_cart_rank_of(const struct smap_topo *t, const int *coords)
{
    int r = 0;
    for (int i = 0; i < t->ndims; i++)
        r = r * t->dims[i] + coords[i];
    return r;
}

void smap_cart_coords_of(const struct smap_topo *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

/* The rank at this process's coordinates moved by `step` along dim, or
 * MPI_PROC_NULL when that leaves a non-periodic dimension. */
static int moved(const struct smap_topo *t, int dim, long long step)
{
    long long x = t->coords[dim] + step, d = t->dims[dim];
    if (x < 0 || x >= d) {
        if (!t->periods[dim])
            return MPI_PROC_NULL;
        x %= d;
        if (x < 0)
            x += d;
    }
    int r = 0;
    for (int i = 0; i < t->ndims; i++)
        r = r * t->dims[i] + (i == dim ? (int)x : t->coords[i]);
    return r;
}

void smap_cart_shift(const struct smap_topo *t, int dir, int disp, int *src, int *dst)
{
    *src = moved(t, dir, -(long long)disp);
    *dst = moved(t, dir, disp);
}

struct smap_topo *smap_cart_new(int ndims, const int *dims, const int *periods, int rank)
{
    struct smap_topo *t = smap_topo_new(MPI_CART);
    if (!t)
        return NULL;
    t->ndims = ndims;
    t->dims = smap_topo_ints(dims, ndims);
    t->periods = malloc((size_t)(ndims > 0 ? ndims : 1) * sizeof(int));
    t->coords = malloc((size_t)(ndims > 0 ? ndims : 1) * sizeof(int));
    t->indeg = t->outdeg = 2 * ndims;
    t->in = malloc((size_t)(ndims > 0 ? 2 * ndims : 1) * sizeof(int));
    t->out = malloc((size_t)(ndims > 0 ? 2 * ndims : 1) * sizeof(int));
    if (!t->dims || !t->periods || !t->coords || !t->in || !t->out) {
        smap_topo_free(t);
        return NULL;
    }
    for (int i = 0; i < ndims; i++)
        t->periods[i] = periods[i] != 0;   /* any true value reads back as 1 */
    smap_cart_coords_of(t, rank, t->coords);
    for (int i = 0; i < ndims; i++) {
        smap_cart_shift(t, i, 1, &t->in[2 * i], &t->in[2 * i + 1]);
        t->out[2 * i] = t->in[2 * i];
        t->out[2 * i + 1] = t->in[2 * i + 1];
    }
    return t;
}
