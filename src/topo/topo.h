/* Virtual process topologies (MPI 5.0 chapter 8): the object a
 * communicator carries in its `topo` field, and the pure computations on
 * it.  Nothing here communicates: the entry points (generated, with
 * src/comm/topo_create.c) check arguments, build the communicator and
 * attach the object.
 *
 * Every kind also keeps its neighbour lists in the order the neighborhood
 * collectives use (MPI 5.0 §8.6): in[] are the ranks this process receives
 * from, out[] the ranks it sends to, MPI_PROC_NULL allowed (Cartesian
 * borders). */
#ifndef SMAP_TOPO_TOPO_H
#define SMAP_TOPO_TOPO_H

#include <mpi.h>

struct smap_topo {
    int kind;                   /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* MPI_CART (cart.c): ndims may be 0 (a single process) */
    int ndims;
    int *dims, *periods, *coords; /* ndims each; coords: this process's */
    /* MPI_GRAPH (graph.c): the arrays given to MPI_Graph_create */
    int nnodes;
    int *index, *edges;         /* nnodes and index[nnodes-1] entries */
    /* MPI_DIST_GRAPH (dist_graph.c) */
    int weighted;               /* 0: created with MPI_UNWEIGHTED */
    int *inw, *outw;            /* weights of in[]/out[], NULL when unweighted */
    /* all kinds: neighbour lists */
    int indeg, outdeg;
    int *in, *out;
};

/* ---- topo.c ---- */
/* An empty object of `kind` (all arrays NULL, counts 0); NULL when out of
 * memory. */
struct smap_topo *smap_topo_new(int kind);
void smap_topo_free(struct smap_topo *t);   /* NULL allowed */
/* A deep copy, for MPI_Comm_dup; NULL for NULL or when out of memory. */
struct smap_topo *smap_topo_dup(const struct smap_topo *t);
/* The neighbour lists of topology t (a communicator's `topo`) for the
 * neighborhood collectives: MPI_SUCCESS, or MPI_ERR_TOPOLOGY when t is
 * NULL (the communicator has none). */
int smap_topo_neighbors(const struct smap_topo *t, int *indeg, const int **sources,
                        int *outdeg, const int **dests);
/* A malloc'd copy of n ints (n may be 0: a valid 1-int block); NULL when
 * out of memory. */
int *smap_topo_ints(const int *src, int n);

/* The kind of topology t (MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH), or
 * MPI_UNDEFINED when t is NULL (MPI_Topo_test). */
static inline int smap_topo_kind(const struct smap_topo *t)
{
    return t ? t->kind : MPI_UNDEFINED;
}

/* ---- dims.c ---- */
/* MPI_Dims_create: fills the zero entries of dims[ndims] so that the
 * product is nnodes, as balanced as possible.  MPI_SUCCESS, or MPI_ERR_DIMS /
 * MPI_ERR_ARG / MPI_ERR_NO_MEM with the reason recorded (base/why.h). */
int smap_topo_dims_create(int nnodes, int ndims, int dims[]);

/* ---- cart.c: arguments already checked ---- */
/* The Cartesian object of `rank` in a dims[ndims] grid; NULL when out of
 * memory. */
struct smap_topo *smap_cart_new(int ndims, const int *dims, const int *periods, int rank);
/* Row-major rank of coords (each already inside its dimension). */
int smap_cart_rank_of(const struct smap_topo *t, const int *coords);
void smap_cart_coords_of(const struct smap_topo *t, int rank, int *coords);
/* The ranks disp steps before (*src) and after (*dst) this process along
 * dimension dir, MPI_PROC_NULL past a non-periodic border. */
void smap_cart_shift(const struct smap_topo *t, int dir, int disp, int *src, int *dst);
/* The product of dims[0..ndims), or -1 when it exceeds `limit`. */
long long smap_cart_volume(int ndims, const int *dims, long long limit);

/* ---- graph.c ---- */
/* The graph object (MPI_Graph_create's arrays, checked) for `rank`; NULL
 * when out of memory. */
struct smap_topo *smap_graph_new(int nnodes, const int *index, const int *edges, int rank);
/* The neighbours of `rank` (< nnodes): *n of them starting at *first. */
void smap_graph_adj(const struct smap_topo *t, int rank, const int **first, int *n);

/* ---- dist_graph.c ---- */
/* A distributed graph with these lists (weights NULL: unweighted); NULL
 * when out of memory. */
struct smap_topo *smap_dist_graph_new(int indeg, const int *in, const int *inw, int outdeg,
                                      const int *out, const int *outw, int weighted);
/* One edge as exchanged by MPI_Dist_graph_create: `dir` 0 means "peer is
 * a destination of yours", 1 "peer is a source of yours". */
struct smap_dist_edge {
    int dir, peer, weight;
};
/* The object from the edges this process received (in arrival order,
 * which keeps each list in the order the edges were given); NULL when out
 * of memory. */
struct smap_topo *smap_dist_graph_from_edges(const struct smap_dist_edge *e, int n,
                                             int weighted);

/* ---- query.c: the entry points' argument rules and queries; those
 * returning int give MPI_SUCCESS or an error class, the reason recorded
 * (base/why.h). ---- */
/* A Cartesian grid for a communicator of `size`: *volume its processes. */
int smap_topo_check_grid(int ndims, const int *dims, const int *periods, int size, int *volume);
int smap_topo_check_graph(int nnodes, const int *index, const int *edges, int size);
/* n ranks below size (what: the argument's name). */
int smap_topo_check_ranks(const char *what, const int *r, int n, int size);
/* MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY (only for n == 0) or n weights >= 0. */
int smap_topo_check_weights(const char *what, const int *w, int n);
/* w unless it is one of the two special values (then NULL). */
const int *smap_topo_real_weights(const int *w);
/* MPI_Cart_map / MPI_Graph_map: the identity mapping of `rank`. */
int smap_cart_map(int ndims, const int *dims, const int *periods, int size, int rank,
                  int *newrank);
int smap_graph_map(int nnodes, const int *index, const int *edges, int size, int rank,
                   int *newrank);
int smap_cart_get(const struct smap_topo *t, int maxdims, int dims[], int periods[], int coords[]);
int smap_cart_rank(const struct smap_topo *t, const int coords[], int *rank);
int smap_cart_coords(const struct smap_topo *t, int size, int rank, int maxdims, int coords[]);
int smap_cart_shift_checked(const struct smap_topo *t, int direction, int disp, int *rank_source,
                            int *rank_dest);
void smap_graph_dims(const struct smap_topo *t, int *nnodes, int *nedges);
int smap_graph_get(const struct smap_topo *t, int maxindex, int maxedges, int index[], int edges[]);
int smap_graph_neighbors_count(const struct smap_topo *t, int rank, int *nneighbors);
int smap_graph_neighbors(const struct smap_topo *t, int rank, int maxneighbors, int neighbors[]);
void smap_dist_graph_counts(const struct smap_topo *t, int *indegree, int *outdegree,
                            int *weighted);
int smap_dist_graph_neighbors(const struct smap_topo *t, int maxindegree, int sources[],
                              int sourceweights[], int maxoutdegree, int destinations[],
                              int destweights[]);

#endif
