/* Cartesian topologies (MPI 5.0 §8.5.1-8.5.5): MPI_Cart_create, _map,
 * Cartdim_get, Cart_get, _rank, _coords, _shift, _sub.  Arithmetic in
 * src/topo/cart.c. */
#include <mpi.h>
#include <limits.h>
#include <stdlib.h>

#include "binding/topo_common.h"
#include "mpi/info.h"

/* ---- Cartesian ----------------------------------------------------------- */

/* ndims >= 0, the arrays present, every extent positive and the grid no
 * larger than `size` processes: *volume = its number of processes. */
static int check_grid(const char *func, MPI_Comm comm, int ndims, const int *dims,
                      const int *periods, int size, int *volume)
{
    if (ndims < 0)
        return smap_err_raise(comm, MPI_ERR_DIMS, func, "ndims=%d is negative", ndims);
    if (ndims > 0 && (!dims || !periods))
        return smap_err_raise(comm, MPI_ERR_ARG, func, "%s is NULL", dims ? "periods" : "dims");
    for (int i = 0; i < ndims; i++)
        if (dims[i] <= 0)
            return smap_err_raise(comm, MPI_ERR_DIMS, func, "dims[%d]=%d is not positive", i,
                                  dims[i]);
    long long v = smap_cart_volume(ndims, dims, size);
    if (v < 0)
        return smap_err_raise(comm, MPI_ERR_DIMS, func,
                              "the grid has more processes than comm's %d", size);
    *volume = (int)v;
    return MPI_SUCCESS;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    static const char F[] = "MPI_Cart_create";
    struct MPI_ABI_Comm *c;
    int n;
    (void)reorder;
    TOPO_ENTER(F, comm_old, c);
    SMAP_CHECK_PTR(F, comm_old, comm_cart);
    TOPO_TRY(check_grid(F, comm_old, ndims, dims, periods, c->size, &n));
    struct smap_topo *t = c->rank < n ? smap_cart_new(ndims, dims, periods, c->rank) : NULL;
    return topo_comm_new(c, n, t, comm_cart, F);
}

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    static const char F[] = "MPI_Cart_map";
    struct MPI_ABI_Comm *c;
    int n;
    TOPO_ENTER(F, comm, c);
    SMAP_CHECK_PTR(F, comm, newrank);
    TOPO_TRY(check_grid(F, comm, ndims, dims, periods, c->size, &n));
    *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;   /* the identity mapping */
    return MPI_SUCCESS;
}

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    static const char F[] = "MPI_Cartdim_get";
    TOPO_QUERY(F, comm, c, MPI_CART, "Cartesian", t);
    SMAP_CHECK_PTR(F, comm, ndims);
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

/* An output array of maxdims entries that must hold all ndims of them. */
static int check_maxdims(const char *func, MPI_Comm comm, int maxdims, int ndims)
{
    if (maxdims < ndims)
        return smap_err_raise(comm, MPI_ERR_ARG, func,
                              "maxdims=%d is smaller than the %d dimensions", maxdims, ndims);
    return MPI_SUCCESS;
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    static const char F[] = "MPI_Cart_get";
    TOPO_QUERY(F, comm, c, MPI_CART, "Cartesian", t);
    TOPO_TRY(check_maxdims(F, comm, maxdims, t->ndims));
    TOPO_CHECK_ARRAY(F, comm, t->ndims, dims);
    TOPO_CHECK_ARRAY(F, comm, t->ndims, periods);
    TOPO_CHECK_ARRAY(F, comm, t->ndims, coords);
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = t->coords[i];
    }
    return MPI_SUCCESS;
}

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    static const char F[] = "MPI_Cart_rank";
    TOPO_QUERY(F, comm, c, MPI_CART, "Cartesian", t);
    SMAP_CHECK_PTR(F, comm, rank);
    TOPO_CHECK_ARRAY(F, comm, t->ndims, coords);
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int x = coords[i], d = t->dims[i];
        if (x < 0 || x >= d) {
            /* MPI 5.0 §8.5.5: out of range is erroneous unless periodic */
            if (!t->periods[i])
                return smap_err_raise(comm, MPI_ERR_ARG, F,
                                      "coords[%d]=%d is outside the non-periodic dimension "
                                      "of extent %d", i, x, d);
            x %= d;
            if (x < 0)
                x += d;
        }
        r = r * d + x;
    }
    *rank = r;
    return MPI_SUCCESS;
}

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    static const char F[] = "MPI_Cart_coords";
    TOPO_QUERY(F, comm, c, MPI_CART, "Cartesian", t);
    if (rank < 0 || rank >= c->size)
        return smap_err_raise(comm, MPI_ERR_RANK, F, "rank %d is not in the grid (size %d)",
                              rank, c->size);
    TOPO_TRY(check_maxdims(F, comm, maxdims, t->ndims));
    TOPO_CHECK_ARRAY(F, comm, t->ndims, coords);
    smap_cart_coords_of(t, rank, coords);
    return MPI_SUCCESS;
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    static const char F[] = "MPI_Cart_shift";
    TOPO_QUERY(F, comm, c, MPI_CART, "Cartesian", t);
    SMAP_CHECK_PTR(F, comm, rank_source);
    SMAP_CHECK_PTR(F, comm, rank_dest);
    if (direction < 0 || direction >= t->ndims)
        return smap_err_raise(comm, MPI_ERR_DIMS, F,
                              "direction=%d is not a dimension (ndims=%d)", direction, t->ndims);
    smap_cart_shift(t, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    static const char F[] = "MPI_Cart_sub";
    TOPO_QUERY(F, comm, c, MPI_CART, "Cartesian", t);
    SMAP_CHECK_PTR(F, comm, newcomm);
    TOPO_CHECK_ARRAY(F, comm, t->ndims, remain_dims);
    /* one subgrid per combination of the dropped coordinates (the color);
     * inside it, the row-major rank of the kept ones (the key) is the new
     * rank, so the new grid numbers its processes row-major again */
    int color = 0, key = 0, nkept = 0;
    int *dims = malloc((size_t)(t->ndims + 1) * sizeof *dims);
    int *periods = malloc((size_t)(t->ndims + 1) * sizeof *periods);
    if (!dims || !periods) {
        free(dims);
        free(periods);
        return smap_err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory");
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
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    if (rc == MPI_SUCCESS) {
        struct MPI_ABI_Comm *n = smap_comm_get(*newcomm);
        n->topo = smap_cart_new(nkept, dims, periods, n->rank);
        if (!n->topo) {
            (void)PMPI_Comm_free(newcomm);   /* fresh: no collective ran on it */
            rc = smap_err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory");
        }
    }
    free(dims);
    free(periods);
    return rc;
}

