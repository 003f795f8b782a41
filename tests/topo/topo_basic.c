/* Process topologies (src/topo, src/comm/topo_create.c): Cartesian, graph and
 * distributed graph constructors and every query, checked against values
 * computed here from the arguments; MPI_Topo_test on each kind and on a
 * plain communicator; dup keeps a topology, split and create do not; and
 * every entry point with bad arguments under MPI_ERRORS_RETURN. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smap_expect.h"

static int rank, size;
/* MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are small constant addresses; read
 * through variables so that the compiler does not warn about reading them */
static int *volatile UNW, *volatile WEMPTY;

#define MAXD 8

static int topo_of(MPI_Comm c)
{
    int st = -1;
    CHECK_RC(MPI_Topo_test(c, &st));
    return st;
}

/* Row-major coordinates of r in dims[nd]. */
static void coords_of(int nd, const int *dims, int r, int *co)
{
    for (int i = nd - 1; i >= 0; i--) {
        co[i] = r % dims[i];
        r /= dims[i];
    }
}

static int rank_of(int nd, const int *dims, const int *co)
{
    int r = 0;
    for (int i = 0; i < nd; i++)
        r = r * dims[i] + co[i];
    return r;
}

/* The rank `disp` steps along dim from co, or MPI_PROC_NULL. */
static int expect_shift(int nd, const int *dims, const int *periods, const int *co, int dim,
                        int disp)
{
    int c2[MAXD];
    memcpy(c2, co, sizeof(int) * (size_t)nd);
    int x = co[dim] + disp;
    if (x < 0 || x >= dims[dim]) {
        if (!periods[dim])
            return MPI_PROC_NULL;
        x = ((x % dims[dim]) + dims[dim]) % dims[dim];
    }
    c2[dim] = x;
    return rank_of(nd, dims, c2);
}

static void check_sub(MPI_Comm cart, int nd, const int *dims, const int *periods,
                      const int *remain)
{
    MPI_Comm sub;
    CHECK_RC(MPI_Cart_sub(cart, remain, &sub));
    CHECK(sub != MPI_COMM_NULL, "Cart_sub gave MPI_COMM_NULL");
    CHECK(topo_of(sub) == MPI_CART, "sub is not Cartesian");
    int my[MAXD], kept = 0, kdims[MAXD], kper[MAXD], kco[MAXD], vol = 1;
    coords_of(nd, dims, rank, my);
    for (int i = 0; i < nd; i++)
        if (remain[i]) {
            kdims[kept] = dims[i];
            kper[kept] = periods[i];
            kco[kept++] = my[i];
            vol *= dims[i];
        }
    int sn, sr, snd;
    CHECK_RC(MPI_Comm_size(sub, &sn));
    CHECK_RC(MPI_Comm_rank(sub, &sr));
    CHECK_RC(MPI_Cartdim_get(sub, &snd));
    CHECK(sn == vol && snd == kept, "sub size %d ndims %d, expected %d %d", sn, snd, vol, kept);
    CHECK(sr == rank_of(kept, kdims, kco), "sub rank %d", sr);
    int gd[MAXD], gp[MAXD], gc[MAXD];
    CHECK_RC(MPI_Cart_get(sub, MAXD, gd, gp, gc));
    for (int i = 0; i < kept; i++)
        CHECK(gd[i] == kdims[i] && !gp[i] == !kper[i] && gc[i] == kco[i], "sub Cart_get dim %d",
              i);
    /* members: exactly the processes sharing my dropped coordinates, in
     * row-major order of the kept ones */
    int *members = malloc(sizeof(int) * (size_t)sn);
    CHECK_RC(MPI_Allgather(&rank, 1, MPI_INT, members, 1, MPI_INT, sub));
    for (int k = 0; k < sn; k++) {
        int oc[MAXD], okc[MAXD], nk = 0;
        coords_of(nd, dims, members[k], oc);
        for (int i = 0; i < nd; i++) {
            if (remain[i])
                okc[nk++] = oc[i];
            else
                CHECK(oc[i] == my[i], "member %d differs in dropped dim %d", members[k], i);
        }
        CHECK(rank_of(kept, kdims, okc) == k, "member %d at sub rank %d", members[k], k);
    }
    free(members);
    CHECK_RC(MPI_Comm_free(&sub));
}

static void cart_case(int nd, const int *periods, int shrink)
{
    int dims[MAXD] = { 0 };
    int nodes = shrink && size > 1 ? size - 1 : size;
    CHECK_RC(MPI_Dims_create(nodes, nd, dims));
    MPI_Comm cart;
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 1, &cart));
    int newrank;
    CHECK_RC(MPI_Cart_map(MPI_COMM_WORLD, nd, dims, periods, &newrank));
    if (rank >= nodes) {
        CHECK(cart == MPI_COMM_NULL, "rank %d beyond the grid got a communicator", rank);
        CHECK(newrank == MPI_UNDEFINED, "Cart_map gave %d beyond the grid", newrank);
        return;
    }
    CHECK(newrank == rank, "Cart_map gave %d", newrank);
    CHECK(topo_of(cart) == MPI_CART, "not MPI_CART");
    int n, r, gnd;
    CHECK_RC(MPI_Comm_size(cart, &n));
    CHECK_RC(MPI_Comm_rank(cart, &r));
    CHECK_RC(MPI_Cartdim_get(cart, &gnd));
    CHECK(n == nodes && r == rank && gnd == nd, "size %d rank %d ndims %d", n, r, gnd);
    int gd[MAXD], gp[MAXD], gc[MAXD], my[MAXD];
    CHECK_RC(MPI_Cart_get(cart, nd, gd, gp, gc));
    coords_of(nd, dims, rank, my);
    for (int i = 0; i < nd; i++)
        CHECK(gd[i] == dims[i] && gp[i] == !!periods[i] && gc[i] == my[i], "Cart_get dim %d", i);
    for (int q = 0; q < n; q++) {
        int co[MAXD], back;
        CHECK_RC(MPI_Cart_coords(cart, q, nd, co));
        int want[MAXD];
        coords_of(nd, dims, q, want);
        for (int i = 0; i < nd; i++)
            CHECK(co[i] == want[i], "coords of %d dim %d: %d", q, i, co[i]);
        CHECK_RC(MPI_Cart_rank(cart, co, &back));
        CHECK(back == q, "rank round trip %d -> %d", q, back);
        /* periodic dimensions wrap */
        for (int i = 0; i < nd; i++)
            if (periods[i]) {
                int c2[MAXD];
                memcpy(c2, co, sizeof(int) * (size_t)nd);
                c2[i] += 3 * dims[i];
                CHECK_RC(MPI_Cart_rank(cart, c2, &back));
                CHECK(back == q, "wrap +: %d", back);
                c2[i] = co[i] - dims[i];
                CHECK_RC(MPI_Cart_rank(cart, c2, &back));
                CHECK(back == q, "wrap -: %d", back);
            }
    }
    static const int disps[] = { 1, -1, 2, 0, -3 };
    for (int d = 0; d < nd; d++)
        for (size_t k = 0; k < sizeof disps / sizeof *disps; k++) {
            int s, t;
            CHECK_RC(MPI_Cart_shift(cart, d, disps[k], &s, &t));
            int es = expect_shift(nd, dims, periods, my, d, -disps[k]);
            int et = expect_shift(nd, dims, periods, my, d, disps[k]);
            CHECK(s == es && t == et, "shift dim %d disp %d: %d %d, expected %d %d", d,
                  disps[k], s, t, es, et);
        }
    /* every subset of kept dimensions, none included */
    for (int mask = 0; mask < (1 << nd); mask++) {
        int remain[MAXD];
        for (int i = 0; i < nd; i++)
            remain[i] = (mask >> i) & 1;
        check_sub(cart, nd, dims, periods, remain);
    }
    /* dup keeps it, split and create do not */
    MPI_Comm d, s, c;
    CHECK_RC(MPI_Comm_dup(cart, &d));
    CHECK(topo_of(d) == MPI_CART, "dup lost the topology");
    CHECK_RC(MPI_Cart_get(d, nd, gd, gp, gc));
    for (int i = 0; i < nd; i++)
        CHECK(gd[i] == dims[i] && gp[i] == !!periods[i] && gc[i] == my[i], "dup Cart_get %d", i);
    MPI_Comm di;
    MPI_Request rq;
    CHECK_RC(MPI_Comm_idup(cart, &di, &rq));
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(topo_of(di) == MPI_CART, "idup lost the topology");
    CHECK_RC(MPI_Cart_get(di, nd, gd, gp, gc));
    for (int i = 0; i < nd; i++)
        CHECK(gd[i] == dims[i] && gp[i] == !!periods[i] && gc[i] == my[i], "idup Cart_get %d", i);
    CHECK_RC(MPI_Comm_free(&di));
    CHECK_RC(MPI_Comm_split(cart, 0, rank, &s));
    CHECK(topo_of(s) == MPI_UNDEFINED, "split kept the topology");
    MPI_Group g;
    CHECK_RC(MPI_Comm_group(cart, &g));
    CHECK_RC(MPI_Comm_create(cart, g, &c));
    CHECK(topo_of(c) == MPI_UNDEFINED, "create kept the topology");
    CHECK_RC(MPI_Group_free(&g));
    CHECK_RC(MPI_Comm_free(&c));
    CHECK_RC(MPI_Comm_free(&s));
    CHECK_RC(MPI_Comm_free(&d));
    CHECK_RC(MPI_Comm_free(&cart));
}

static void carts(void)
{
    int p0[MAXD] = { 0 }, p1[MAXD] = { 1, 1, 1, 1 }, pm[MAXD] = { 1, 0, 1, 0 };
    for (int nd = 1; nd <= 4; nd++) {
        cart_case(nd, p0, 0);
        cart_case(nd, p1, 0);
        cart_case(nd, pm, 0);
        cart_case(nd, pm, 1);
    }
    /* zero dimensions: one process */
    MPI_Comm z;
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &z));
    if (rank == 0) {
        int n, nd;
        CHECK(z != MPI_COMM_NULL, "0-d cart missing on rank 0");
        CHECK_RC(MPI_Comm_size(z, &n));
        CHECK_RC(MPI_Cartdim_get(z, &nd));
        CHECK(n == 1 && nd == 0 && topo_of(z) == MPI_CART, "0-d cart: size %d ndims %d", n, nd);
        int r = -1;
        CHECK_RC(MPI_Cart_rank(z, NULL, &r));
        CHECK(r == 0, "0-d Cart_rank %d", r);
        CHECK_RC(MPI_Comm_free(&z));
    } else {
        CHECK(z == MPI_COMM_NULL, "0-d cart on rank %d", rank);
    }
}

/* ---- graph ---- */

/* Node i: i+1, i-1 (mod n), and node 0 a self-loop; built for n nodes. */
static void graph_arrays(int n, int *index, int *edges)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        edges[k++] = (i + 1) % n;
        edges[k++] = (i - 1 + n) % n;
        if (i == 0)
            edges[k++] = 0;
        index[i] = k;
    }
}

static void graph_case(int nnodes)
{
    int *index = malloc(sizeof(int) * (size_t)(nnodes + 1));
    int *edges = malloc(sizeof(int) * (size_t)(2 * nnodes + 2));
    graph_arrays(nnodes, index, edges);
    MPI_Comm g;
    CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 0, &g));
    int nr;
    CHECK_RC(MPI_Graph_map(MPI_COMM_WORLD, nnodes, index, edges, &nr));
    if (rank >= nnodes) {
        CHECK(g == MPI_COMM_NULL && nr == MPI_UNDEFINED, "rank %d beyond the graph", rank);
        free(index);
        free(edges);
        return;
    }
    CHECK(nr == rank, "Graph_map %d", nr);
    CHECK(topo_of(g) == MPI_GRAPH, "not MPI_GRAPH");
    int nn, ne, nedges = index[nnodes - 1];
    CHECK_RC(MPI_Graphdims_get(g, &nn, &ne));
    CHECK(nn == nnodes && ne == nedges, "Graphdims %d %d", nn, ne);
    int gi[64], ge[64];
    CHECK_RC(MPI_Graph_get(g, 64, 64, gi, ge));
    for (int i = 0; i < nnodes; i++)
        CHECK(gi[i] == index[i], "index[%d]", i);
    for (int j = 0; j < nedges; j++)
        CHECK(ge[j] == edges[j], "edges[%d]", j);
    /* short arrays get the first entries, the rest is untouched */
    int si[2] = { -7, -7 }, se[2] = { -7, -7 };
    CHECK_RC(MPI_Graph_get(g, 1, 1, si, se));
    CHECK(si[0] == index[0] && si[1] == -7 && se[0] == edges[0] && se[1] == -7, "short get");
    for (int q = 0; q < nnodes; q++) {
        int cnt, nb[8] = { -1 };
        CHECK_RC(MPI_Graph_neighbors_count(g, q, &cnt));
        int lo = q ? index[q - 1] : 0;
        CHECK(cnt == index[q] - lo, "count of %d: %d", q, cnt);
        CHECK_RC(MPI_Graph_neighbors(g, q, 8, nb));
        for (int j = 0; j < cnt; j++)
            CHECK(nb[j] == edges[lo + j], "neighbour %d of %d", j, q);
    }
    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(g, &d));
    CHECK(topo_of(d) == MPI_GRAPH, "dup lost the graph");
    CHECK_RC(MPI_Graphdims_get(d, &nn, &ne));
    CHECK(nn == nnodes && ne == nedges, "dup Graphdims");
    CHECK_RC(MPI_Comm_free(&d));
    CHECK_RC(MPI_Comm_free(&g));
    free(index);
    free(edges);
}

/* ---- distributed graph ---- */

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static void check_dist(MPI_Comm dg, int indeg, const int *in, const int *inw, int outdeg,
                       const int *out, const int *outw, int weighted, int sorted)
{
    CHECK(topo_of(dg) == MPI_DIST_GRAPH, "not MPI_DIST_GRAPH");
    int gi, go, gw;
    CHECK_RC(MPI_Dist_graph_neighbors_count(dg, &gi, &go, &gw));
    CHECK(gi == indeg && go == outdeg && !gw == !weighted, "counts %d %d %d, expected %d %d %d",
          gi, go, gw, indeg, outdeg, weighted);
    int s[16], sw[16], d[16], dw[16];
    CHECK_RC(MPI_Dist_graph_neighbors(dg, 16, s, weighted ? sw : UNW, 16, d,
                                      weighted ? dw : UNW));
    if (sorted) {   /* edges given by several processes: compare as sets (weight = f(peer)) */
        qsort(s, (size_t)gi, sizeof(int), cmp_int);
        qsort(d, (size_t)go, sizeof(int), cmp_int);
    }
    for (int i = 0; i < indeg; i++)
        CHECK(s[i] == in[i] && (!weighted || sorted || sw[i] == inw[i]), "source %d: %d w %d", i,
              s[i], sw[i]);
    for (int j = 0; j < outdeg; j++)
        CHECK(d[j] == out[j] && (!weighted || sorted || dw[j] == outw[j]), "dest %d: %d w %d", j,
              d[j], dw[j]);
    MPI_Comm dd;
    CHECK_RC(MPI_Comm_dup(dg, &dd));
    CHECK_RC(MPI_Dist_graph_neighbors_count(dd, &gi, &go, &gw));
    CHECK(topo_of(dd) == MPI_DIST_GRAPH && gi == indeg && go == outdeg, "dup of dist graph");
    CHECK_RC(MPI_Comm_free(&dd));
}

static void dist_graphs(void)
{
    int n = size, r = rank;
    /* adjacent, weighted: out r+1, r+3; in r-1, r-3 */
    int out[2] = { (r + 1) % n, (r + 3) % n }, outw[2] = { r * 10 + 1, r * 10 + 3 };
    int in[2] = { (r - 1 + 3 * n) % n, (r - 3 + 3 * n) % n };
    int inw[2] = { in[0] * 10 + 1, in[1] * 10 + 3 };
    MPI_Comm dg;
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, in, inw, 2, out, outw,
                                            MPI_INFO_NULL, 0, &dg));
    check_dist(dg, 2, in, inw, 2, out, outw, 1, 0);
    /* short arrays: the first part */
    int s1 = -1, d1 = -1, sw1 = -1, dw1 = -1;
    CHECK_RC(MPI_Dist_graph_neighbors(dg, 1, &s1, &sw1, 1, &d1, &dw1));
    CHECK(s1 == in[0] && sw1 == inw[0] && d1 == out[0] && dw1 == outw[0], "short neighbors");
    CHECK_RC(MPI_Comm_free(&dg));
    /* adjacent, unweighted; rank 0 has no edges at all */
    int deg = r == 0 ? 0 : 1, peer = r;
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, deg, &peer, UNW, deg,
                                            &peer, UNW, MPI_INFO_NULL, 1, &dg));
    check_dist(dg, deg, &peer, NULL, deg, &peer, NULL, 0, 0);
    CHECK_RC(MPI_Comm_free(&dg));
    /* non-adjacent, all edges given by rank 0: i -> 2i+1 mod n, weight 100 + i */
    int *src = malloc(sizeof(int) * (size_t)n), *degs = malloc(sizeof(int) * (size_t)n);
    int *dst = malloc(sizeof(int) * (size_t)n), *w = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        src[i] = i;
        degs[i] = 1;
        dst[i] = (2 * i + 1) % n;
        w[i] = 100 + i;
    }
    CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, r == 0 ? n : 0, src, degs, dst,
                                   r == 0 ? w : WEMPTY, MPI_INFO_NULL, 0, &dg));
    int ein[16], einw[16], ni = 0;
    for (int i = 0; i < n; i++)   /* in rank 0's order: by source */
        if ((2 * i + 1) % n == r) {
            ein[ni] = i;
            einw[ni++] = 100 + i;
        }
    int eout = (2 * r + 1) % n, eoutw = 100 + r;
    check_dist(dg, ni, ein, einw, 1, &eout, &eoutw, 1, 0);
    CHECK_RC(MPI_Comm_free(&dg));
    /* non-adjacent, unweighted, each edge given by a third process: rank r
     * names (r+1) -> (r+2) and (r+1) -> (r+4) */
    int s2 = (r + 1) % n, d2deg = 2, d2[2] = { (r + 2) % n, (r + 4) % n };
    CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &s2, &d2deg, d2, UNW,
                                   MPI_INFO_NULL, 0, &dg));
    int xo[2] = { (r + 1) % n, (r + 3) % n }, xi[2] = { (r - 1 + 4 * n) % n, (r - 3 + 4 * n) % n };
    qsort(xo, 2, sizeof(int), cmp_int);
    qsort(xi, 2, sizeof(int), cmp_int);
    check_dist(dg, 2, xi, NULL, 2, xo, NULL, 0, 1);
    CHECK_RC(MPI_Comm_free(&dg));
    free(src);
    free(degs);
    free(dst);
    free(w);
}

/* ---- invalid arguments ---- */

static int not_an_object[64];

static void invalid(void)
{
    MPI_Comm bogus = (MPI_Comm)(void *)not_an_object, out = MPI_COMM_NULL, cart, graph, dg;
    int dims[2] = { size, 1 }, per[2] = { 1, 0 }, co[2], n, r2, s, t;
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &cart));
    int idx[1] = { 0 }, edg[1] = { 0 };
    CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, 1, idx, edg, 0, &graph));
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, UNW, 0, NULL,
                                            UNW, MPI_INFO_NULL, 0, &dg));
    MPI_Comm w = MPI_COMM_WORLD;
    /* constructors */
    EXPECT(MPI_ERR_COMM, MPI_Cart_create(MPI_COMM_NULL, 2, dims, per, 0, &out));
    EXPECT(MPI_ERR_COMM, MPI_Cart_create(bogus, 2, dims, per, 0, &out));
    EXPECT(MPI_ERR_DIMS, MPI_Cart_create(w, -1, dims, per, 0, &out));
    int bad_dims[2] = { size, -2 }, zero_dims[2] = { 0, 1 }, big_dims[2] = { size + 1, 1 };
    EXPECT(MPI_ERR_DIMS, MPI_Cart_create(w, 2, bad_dims, per, 0, &out));
    EXPECT(MPI_ERR_DIMS, MPI_Cart_create(w, 2, zero_dims, per, 0, &out));
    EXPECT(MPI_ERR_DIMS, MPI_Cart_create(w, 2, big_dims, per, 0, &out));
    EXPECT(MPI_ERR_ARG, MPI_Cart_create(w, 2, NULL, per, 0, &out));
    EXPECT(MPI_ERR_ARG, MPI_Cart_create(w, 2, dims, NULL, 0, &out));
    EXPECT(MPI_ERR_ARG, MPI_Cart_create(w, 2, dims, per, 0, NULL));
    EXPECT(MPI_ERR_DIMS, MPI_Cart_map(w, -1, dims, per, &n));
    EXPECT(MPI_ERR_DIMS, MPI_Cart_map(w, 2, big_dims, per, &n));
    EXPECT(MPI_ERR_ARG, MPI_Cart_map(w, 2, dims, per, NULL));
    EXPECT(MPI_ERR_COMM, MPI_Cart_map(MPI_COMM_NULL, 2, dims, per, &n));
    int bidx[2] = { 2, 1 }, bedg[2] = { 0, 5 }, nidx[1] = { -1 };
    EXPECT(MPI_ERR_ARG, MPI_Graph_create(w, -1, idx, edg, 0, &out));
    EXPECT(MPI_ERR_ARG, MPI_Graph_create(w, size + 1, idx, edg, 0, &out));
    EXPECT(MPI_ERR_ARG, MPI_Graph_create(w, 1, nidx, edg, 0, &out));
    EXPECT(MPI_ERR_ARG, MPI_Graph_create(w, 1, NULL, edg, 0, &out));
    EXPECT(MPI_ERR_ARG, MPI_Graph_create(w, 1, bidx, bedg, 0, &out));   /* edge 5 */
    if (size >= 2)
        EXPECT(MPI_ERR_ARG, MPI_Graph_create(w, 2, bidx, bedg, 0, &out));   /* decreasing */
    EXPECT(MPI_ERR_ARG, MPI_Graph_create(w, 1, idx, edg, 0, NULL));
    EXPECT(MPI_ERR_COMM, MPI_Graph_create(MPI_COMM_NULL, 1, idx, edg, 0, &out));
    EXPECT(MPI_ERR_ARG, MPI_Graph_map(w, 1, bidx, bedg, &n));
    EXPECT(MPI_ERR_ARG, MPI_Graph_map(w, 1, idx, edg, NULL));
    int one = 1, badrank = size, negw = -4;
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(w, -1, NULL, UNW, 0, NULL,
                                                       UNW, MPI_INFO_NULL, 0, &out));
    EXPECT(MPI_ERR_RANK, MPI_Dist_graph_create_adjacent(w, 1, &badrank, UNW, 0, NULL,
                                                        UNW, MPI_INFO_NULL, 0, &out));
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(w, 1, NULL, UNW, 0, NULL,
                                                       UNW, MPI_INFO_NULL, 0, &out));
    int zero = 0;
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(w, 1, &zero, &negw, 1, &zero, &one,
                                                       MPI_INFO_NULL, 0, &out));
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(w, 1, &zero, WEMPTY, 0, NULL,
                                                       WEMPTY, MPI_INFO_NULL, 0, &out));
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(w, 1, &zero, UNW, 1, &zero,
                                                       &one, MPI_INFO_NULL, 0, &out));
    EXPECT(MPI_ERR_INFO, MPI_Dist_graph_create_adjacent(w, 0, NULL, UNW, 0, NULL,
                                                        UNW,
                                                        (MPI_Info)(void *)not_an_object, 0, &out));
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(w, 0, NULL, UNW, 0, NULL,
                                                       UNW, MPI_INFO_NULL, 0, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create(w, -1, NULL, NULL, NULL, UNW,
                                              MPI_INFO_NULL, 0, &out));
    EXPECT(MPI_ERR_RANK, MPI_Dist_graph_create(w, 1, &badrank, &one, &zero, UNW,
                                               MPI_INFO_NULL, 0, &out));
    EXPECT(MPI_ERR_RANK, MPI_Dist_graph_create(w, 1, &zero, &one, &badrank, UNW,
                                               MPI_INFO_NULL, 0, &out));
    int negdeg = -1;
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create(w, 1, &zero, &negdeg, &zero, UNW,
                                              MPI_INFO_NULL, 0, &out));
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create(w, 1, &zero, &one, &zero, &negw, MPI_INFO_NULL, 0,
                                              &out));
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create(w, 1, &zero, &one, NULL, UNW,
                                              MPI_INFO_NULL, 0, &out));
    EXPECT(MPI_ERR_COMM, MPI_Dist_graph_create(MPI_COMM_NULL, 0, NULL, NULL, NULL,
                                               UNW, MPI_INFO_NULL, 0, &out));
    /* queries on the wrong kind of communicator (the graph has rank 0 only) */
    MPI_Comm notcart = graph != MPI_COMM_NULL ? graph : dg;
    MPI_Comm notdist = graph != MPI_COMM_NULL ? graph : cart;
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Cartdim_get(w, &n));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Cartdim_get(notcart, &n));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Cart_get(dg, 2, dims, per, co));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Cart_rank(w, co, &n));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Cart_coords(notcart, 0, 2, co));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Cart_shift(dg, 0, 1, &s, &t));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Cart_sub(w, per, &out));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Graphdims_get(cart, &n, &r2));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Graph_get(w, 1, 1, idx, edg));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Graph_neighbors_count(dg, 0, &n));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Graph_neighbors(cart, 0, 1, co));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Dist_graph_neighbors_count(notdist, &n, &r2, &s));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Dist_graph_neighbors(cart, 0, NULL, NULL, 0, NULL, NULL));
    EXPECT(MPI_ERR_COMM, MPI_Topo_test(MPI_COMM_NULL, &n));
    EXPECT(MPI_ERR_COMM, MPI_Topo_test(bogus, &n));
    EXPECT(MPI_ERR_ARG, MPI_Topo_test(cart, NULL));
    /* bad arguments on the right kind */
    EXPECT(MPI_ERR_ARG, MPI_Cartdim_get(cart, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Cart_get(cart, 1, dims, per, co));
    EXPECT(MPI_ERR_ARG, MPI_Cart_get(cart, 2, NULL, per, co));
    EXPECT(MPI_ERR_ARG, MPI_Cart_get(cart, 2, dims, per, NULL));
    EXPECT(MPI_ERR_RANK, MPI_Cart_coords(cart, size, 2, co));
    EXPECT(MPI_ERR_RANK, MPI_Cart_coords(cart, -1, 2, co));
    EXPECT(MPI_ERR_ARG, MPI_Cart_coords(cart, 0, 1, co));
    EXPECT(MPI_ERR_ARG, MPI_Cart_coords(cart, 0, 2, NULL));
    int outside[2] = { 0, 1 };   /* dimension 1 (extent 1) is not periodic */
    EXPECT(MPI_ERR_ARG, MPI_Cart_rank(cart, outside, &n));
    outside[1] = -1;
    EXPECT(MPI_ERR_ARG, MPI_Cart_rank(cart, outside, &n));
    EXPECT(MPI_ERR_ARG, MPI_Cart_rank(cart, NULL, &n));
    EXPECT(MPI_ERR_ARG, MPI_Cart_rank(cart, co, NULL));
    EXPECT(MPI_ERR_DIMS, MPI_Cart_shift(cart, 2, 1, &s, &t));
    EXPECT(MPI_ERR_DIMS, MPI_Cart_shift(cart, -1, 1, &s, &t));
    EXPECT(MPI_ERR_ARG, MPI_Cart_shift(cart, 0, 1, NULL, &t));
    EXPECT(MPI_ERR_ARG, MPI_Cart_shift(cart, 0, 1, &s, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Cart_sub(cart, NULL, &out));
    EXPECT(MPI_ERR_ARG, MPI_Cart_sub(cart, per, NULL));
    if (rank == 0) {   /* only rank 0 is in the graph */
        EXPECT(MPI_ERR_ARG, MPI_Graphdims_get(graph, NULL, &n));
        EXPECT(MPI_ERR_ARG, MPI_Graph_get(graph, -1, 1, idx, edg));
        EXPECT(MPI_ERR_ARG, MPI_Graph_get(graph, 1, 1, NULL, edg));
        EXPECT(MPI_ERR_RANK, MPI_Graph_neighbors_count(graph, 1, &n));
        EXPECT(MPI_ERR_RANK, MPI_Graph_neighbors_count(graph, -1, &n));
        EXPECT(MPI_ERR_ARG, MPI_Graph_neighbors_count(graph, 0, NULL));
        EXPECT(MPI_ERR_RANK, MPI_Graph_neighbors(graph, 3, 1, co));
        EXPECT(MPI_ERR_ARG, MPI_Graph_neighbors(graph, 0, -1, co));
        EXPECT(MPI_ERR_ARG, MPI_Graph_neighbors(graph, 0, 1, NULL));
    }
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_neighbors_count(dg, NULL, &n, &s));
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_neighbors_count(dg, &n, &r2, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_neighbors(dg, -1, NULL, NULL, 0, NULL, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_neighbors(dg, 1, NULL, NULL, 0, NULL, NULL));
    CHECK(out == MPI_COMM_NULL, "a failed constructor produced a communicator");
    CHECK_RC(MPI_Comm_free(&cart));
    if (graph != MPI_COMM_NULL)
        CHECK_RC(MPI_Comm_free(&graph));
    CHECK_RC(MPI_Comm_free(&dg));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    UNW = MPI_UNWEIGHTED;
    WEMPTY = MPI_WEIGHTS_EMPTY;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    CHECK(topo_of(MPI_COMM_WORLD) == MPI_UNDEFINED, "WORLD has a topology");
    CHECK(topo_of(MPI_COMM_SELF) == MPI_UNDEFINED, "SELF has a topology");
    carts();
    graph_case(size);
    if (size > 1)
        graph_case(size - 1);
    dist_graphs();
    invalid();
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("topo_basic: %d ranks, %d invalid-argument cases: OK\n", size, smap_expect_cases);
    MPI_Finalize();
    return 0;
}
