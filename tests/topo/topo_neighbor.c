/* Neighborhood collectives (src/coll/nbc/neighbor.c) on Cartesian
 * (periodic dimensions of extent 1 and 2 included: the same process is
 * then both neighbours of a dimension), graph and distributed graph
 * topologies: every MPI_Neighbor_* and MPI_Ineighbor_* form, int, double
 * and derived types, counts 0 and larger, checked against values computed
 * from the neighbour lists the query functions give; then bad arguments. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smap_expect.h"

#define MAXD 16
#define SENTINEL (-99)

static int rank, size;
/* MPI_UNWEIGHTED is a small constant address: read through a variable so
 * that the compiler does not warn about reading it */
static int *volatile UNW;

/* A topology's lists as the query functions give them, and every
 * process's destination list (to know which block a source sends me). */
struct nb {
    MPI_Comm comm;
    const char *name;
    int cart;
    int indeg, outdeg, in[MAXD], out[MAXD];
    int *all_out;   /* size x (1 + MAXD): outdeg, then the list */
};

static void lists(struct nb *t)
{
    int kind;
    CHECK_RC(MPI_Topo_test(t->comm, &kind));
    t->cart = kind == MPI_CART;
    if (kind == MPI_CART) {
        int nd;
        CHECK_RC(MPI_Cartdim_get(t->comm, &nd));
        t->indeg = t->outdeg = 2 * nd;
        for (int d = 0; d < nd; d++) {
            CHECK_RC(MPI_Cart_shift(t->comm, d, 1, &t->in[2 * d], &t->in[2 * d + 1]));
            t->out[2 * d] = t->in[2 * d];
            t->out[2 * d + 1] = t->in[2 * d + 1];
        }
    } else if (kind == MPI_GRAPH) {
        int r;
        CHECK_RC(MPI_Comm_rank(t->comm, &r));
        CHECK_RC(MPI_Graph_neighbors_count(t->comm, r, &t->indeg));
        CHECK_RC(MPI_Graph_neighbors(t->comm, r, MAXD, t->in));
        t->outdeg = t->indeg;
        memcpy(t->out, t->in, sizeof t->in);
    } else {
        int w;
        CHECK_RC(MPI_Dist_graph_neighbors_count(t->comm, &t->indeg, &t->outdeg, &w));
        CHECK_RC(MPI_Dist_graph_neighbors(t->comm, MAXD, t->in, UNW, MAXD, t->out,
                                          UNW));
    }
    int n;
    CHECK_RC(MPI_Comm_size(t->comm, &n));
    int mine[1 + MAXD];
    mine[0] = t->outdeg;
    memcpy(mine + 1, t->out, sizeof t->out);
    t->all_out = malloc(sizeof(int) * (size_t)n * (1 + MAXD));
    CHECK_RC(MPI_Allgather(mine, 1 + MAXD, MPI_INT, t->all_out, 1 + MAXD, MPI_INT, t->comm));
}

/* Which of src's blocks arrives in my receive slot i: Cartesian, the one
 * sent the opposite way (slot 2d from the -1 side holds what that side
 * sent toward +1); otherwise the k-th edge src -> me pairs with my k-th
 * edge from src. */
static int block_of(const struct nb *t, int me, int i)
{
    if (t->cart)
        return i ^ 1;
    int src = t->in[i], k = 0;
    for (int j = 0; j < i; j++)
        k += t->in[j] == src;
    const int *o = t->all_out + (size_t)src * (1 + MAXD);
    for (int j = 0; j < o[0]; j++)
        if (o[1 + j] == me && k-- == 0)
            return j;
    CHECK(0, "%s: no edge %d -> %d for slot %d", t->name, src, me, i);
    return -1;
}

/* The e-th value process s sends in block j. */
static int val(int s, int j, int e)
{
    return s * 10000 + j * 100 + e + 1;
}

/* Counts of the v forms: what s sends in block j. */
static int vcount(int s, int j, int m)
{
    return m ? m + (s + j) % 3 : 0;
}

static void wait_or_not(MPI_Request *req, int nb)
{
    if (nb)
        CHECK_RC(MPI_Wait(req, MPI_STATUS_IGNORE));
}

static void allgather(struct nb *t, int me, int m, int nbk)
{
    int *sb = malloc(sizeof(int) * (size_t)(m + 1));
    int *rb = malloc(sizeof(int) * (size_t)(t->indeg * m + 1));
    for (int e = 0; e < m; e++)
        sb[e] = val(me, 0, e);
    for (int x = 0; x < t->indeg * m; x++)
        rb[x] = SENTINEL;
    MPI_Request req;
    if (nbk)
        CHECK_RC(MPI_Ineighbor_allgather(sb, m, MPI_INT, rb, m, MPI_INT, t->comm, &req));
    else
        CHECK_RC(MPI_Neighbor_allgather_c(sb, m, MPI_INT, rb, m, MPI_INT, t->comm));
    wait_or_not(&req, nbk);
    for (int i = 0; i < t->indeg; i++)
        for (int e = 0; e < m; e++) {
            int want = t->in[i] == MPI_PROC_NULL ? SENTINEL : val(t->in[i], 0, e);
            CHECK(rb[i * m + e] == want, "%s allgather m=%d slot %d [%d]: %d, want %d", t->name,
                  m, i, e, rb[i * m + e], want);
        }
    free(sb);
    free(rb);
}

/* Allgatherv with a strided send type: m ints taken every other one, the
 * blocks stored in reverse slot order with a gap of one. */
static void allgatherv(struct nb *t, int me, int m, int nbk)
{
    MPI_Datatype vec;
    CHECK_RC(MPI_Type_vector(m > 0 ? m : 1, 1, 2, MPI_INT, &vec));
    CHECK_RC(MPI_Type_commit(&vec));
    int sm = vcount(me, 0, m);   /* my count; receivers know it from my rank */
    int *sb = malloc(sizeof(int) * (size_t)(2 * sm + 1));
    for (int e = 0; e < sm; e++) {
        sb[2 * e] = val(me, 0, e);
        sb[2 * e + 1] = -1;
    }
    int counts[MAXD], displs[MAXD], total = 0;
    for (int i = t->indeg - 1; i >= 0; i--) {
        counts[i] = t->in[i] == MPI_PROC_NULL ? 0 : vcount(t->in[i], 0, m);
        displs[i] = total;
        total += counts[i] + 1;
    }
    int *rb = malloc(sizeof(int) * (size_t)(total + 1));
    for (int x = 0; x < total; x++)
        rb[x] = SENTINEL;
    MPI_Request req;
    /* the vector type carries sm ints per element when m > 0: send 1 of a
     * vector of sm, or sm ints spaced by 2 through a resized type */
    MPI_Datatype every2;
    CHECK_RC(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every2));
    CHECK_RC(MPI_Type_commit(&every2));
    if (nbk)
        CHECK_RC(MPI_Ineighbor_allgatherv(sb, sm, every2, rb, counts, displs, MPI_INT, t->comm,
                                          &req));
    else
        CHECK_RC(MPI_Neighbor_allgatherv(sb, sm, every2, rb, counts, displs, MPI_INT, t->comm));
    wait_or_not(&req, nbk);
    for (int i = 0; i < t->indeg; i++)
        for (int e = 0; e < counts[i]; e++)
            CHECK(rb[displs[i] + e] == val(t->in[i], 0, e), "%s allgatherv m=%d slot %d [%d]: %d",
                  t->name, m, i, e, rb[displs[i] + e]);
    for (int i = 0; i < t->indeg; i++)   /* gaps untouched */
        CHECK(rb[displs[i] + counts[i]] == SENTINEL, "%s allgatherv gap %d", t->name, i);
    CHECK_RC(MPI_Type_free(&every2));
    CHECK_RC(MPI_Type_free(&vec));
    free(sb);
    free(rb);
}

static void alltoall(struct nb *t, int me, int m, int nbk)
{
    double *sb = malloc(sizeof(double) * (size_t)(t->outdeg * m + 1));
    double *rb = malloc(sizeof(double) * (size_t)(t->indeg * m + 1));
    for (int j = 0; j < t->outdeg; j++)
        for (int e = 0; e < m; e++)
            sb[j * m + e] = val(me, j, e) + 0.5;
    for (int x = 0; x < t->indeg * m; x++)
        rb[x] = SENTINEL;
    MPI_Request req;
    if (nbk)
        CHECK_RC(MPI_Ineighbor_alltoall_c(sb, m, MPI_DOUBLE, rb, m, MPI_DOUBLE, t->comm, &req));
    else
        CHECK_RC(MPI_Neighbor_alltoall(sb, m, MPI_DOUBLE, rb, m, MPI_DOUBLE, t->comm));
    wait_or_not(&req, nbk);
    for (int i = 0; i < t->indeg; i++) {
        int j = t->in[i] == MPI_PROC_NULL ? -1 : block_of(t, me, i);
        for (int e = 0; e < m; e++) {
            double want = j < 0 ? SENTINEL : val(t->in[i], j, e) + 0.5;
            CHECK(rb[i * m + e] == want, "%s alltoall m=%d slot %d [%d]: %g, want %g", t->name,
                  m, i, e, rb[i * m + e], want);
        }
    }
    free(sb);
    free(rb);
}

/* Alltoallv (v = 0, int and _c forms alternating) or alltoallw (v = 1:
 * blocks received into every other int through a resized type, byte
 * displacements). */
static void alltoallvw(struct nb *t, int me, int m, int nbk, int w)
{
    int sc[MAXD], sd[MAXD], rc[MAXD], rd[MAXD], stot = 0, rtot = 0;
    MPI_Count scc[MAXD], rcc[MAXD];
    MPI_Aint sdb[MAXD], rdb[MAXD];
    MPI_Datatype st[MAXD], rt[MAXD], every2;
    CHECK_RC(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every2));
    CHECK_RC(MPI_Type_commit(&every2));
    for (int j = t->outdeg - 1; j >= 0; j--) {   /* blocks stored in reverse order */
        sc[j] = vcount(me, j, m);
        sd[j] = stot;
        stot += sc[j];
    }
    int src_j[MAXD];
    for (int i = 0; i < t->indeg; i++) {
        src_j[i] = t->in[i] == MPI_PROC_NULL ? -1 : block_of(t, me, i);
        rc[i] = src_j[i] < 0 ? 0 : vcount(t->in[i], src_j[i], m);
        rd[i] = rtot;
        rtot += w ? 2 * rc[i] + 1 : rc[i] + 1;
    }
    int *sb = malloc(sizeof(int) * (size_t)(stot + 1)), *rb = malloc(sizeof(int) * (size_t)(rtot + 1));
    for (int j = 0; j < t->outdeg; j++)
        for (int e = 0; e < sc[j]; e++)
            sb[sd[j] + e] = val(me, j, e);
    for (int x = 0; x < rtot; x++)
        rb[x] = SENTINEL;
    for (int j = 0; j < t->outdeg; j++) {
        scc[j] = sc[j];
        sdb[j] = (MPI_Aint)sd[j] * (MPI_Aint)sizeof(int);
        st[j] = MPI_INT;
    }
    for (int i = 0; i < t->indeg; i++) {
        rcc[i] = rc[i];
        rdb[i] = (MPI_Aint)rd[i] * (MPI_Aint)sizeof(int);
        rt[i] = every2;
    }
    MPI_Request req;
    int big = (m + nbk) % 2;   /* alternate the int and the _c bindings */
    if (!w && !big)
        CHECK_RC(nbk ? MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, t->comm,
                                               &req)
                     : MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, t->comm));
    else if (!w) {
        MPI_Aint sdx[MAXD], rdx[MAXD];
        for (int j = 0; j < t->outdeg; j++)
            sdx[j] = sd[j];
        for (int i = 0; i < t->indeg; i++)
            rdx[i] = rd[i];
        CHECK_RC(nbk ? MPI_Ineighbor_alltoallv_c(sb, scc, sdx, MPI_INT, rb, rcc, rdx, MPI_INT,
                                                 t->comm, &req)
                     : MPI_Neighbor_alltoallv_c(sb, scc, sdx, MPI_INT, rb, rcc, rdx, MPI_INT,
                                                t->comm));
    } else if (!big)
        CHECK_RC(nbk ? MPI_Ineighbor_alltoallw(sb, sc, sdb, st, rb, rc, rdb, rt, t->comm, &req)
                     : MPI_Neighbor_alltoallw(sb, sc, sdb, st, rb, rc, rdb, rt, t->comm));
    else
        CHECK_RC(nbk ? MPI_Ineighbor_alltoallw_c(sb, scc, sdb, st, rb, rcc, rdb, rt, t->comm,
                                                 &req)
                     : MPI_Neighbor_alltoallw_c(sb, scc, sdb, st, rb, rcc, rdb, rt, t->comm));
    wait_or_not(&req, nbk);
    for (int i = 0; i < t->indeg; i++) {
        int step = w ? 2 : 1;
        for (int e = 0; e < rc[i]; e++) {
            int got = rb[rd[i] + step * e], want = val(t->in[i], src_j[i], e);
            CHECK(got == want, "%s alltoall%c m=%d slot %d [%d]: %d, want %d", t->name,
                  w ? 'w' : 'v', m, i, e, got, want);
            if (w)
                CHECK(rb[rd[i] + 2 * e + 1] == SENTINEL, "%s alltoallw hole", t->name);
        }
        CHECK(rb[rd[i] + step * rc[i]] == SENTINEL, "%s alltoall%c gap after slot %d", t->name,
              w ? 'w' : 'v', i);
    }
    CHECK_RC(MPI_Type_free(&every2));
    free(sb);
    free(rb);
}

static void run_all(MPI_Comm comm, const char *name)
{
    if (comm == MPI_COMM_NULL)
        return;
    struct nb t = { .comm = comm, .name = name };
    lists(&t);
    int me;
    CHECK_RC(MPI_Comm_rank(comm, &me));
    static const int ms[] = { 0, 1, 5, 300 };
    for (size_t k = 0; k < sizeof ms / sizeof *ms; k++)
        for (int nbk = 0; nbk < 2; nbk++) {
            allgather(&t, me, ms[k], nbk);
            allgatherv(&t, me, ms[k], nbk);
            alltoall(&t, me, ms[k], nbk);
            alltoallvw(&t, me, ms[k], nbk, 0);
            alltoallvw(&t, me, ms[k], nbk, 1);
        }
    /* several outstanding at once on one communicator, completed together */
    int a = me, b[MAXD], c[MAXD];
    MPI_Request r[2];
    CHECK_RC(MPI_Ineighbor_allgather(&a, 1, MPI_INT, b, 1, MPI_INT, comm, &r[0]));
    CHECK_RC(MPI_Ineighbor_allgather(&a, 1, MPI_INT, c, 1, MPI_INT, comm, &r[1]));
    CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < t.indeg; i++)
        if (t.in[i] != MPI_PROC_NULL)
            CHECK(b[i] == t.in[i] && c[i] == t.in[i], "%s overlapping slot %d", name, i);
    free(t.all_out);
}

static void topologies(void)
{
    MPI_Comm c;
    int dims[4] = { size }, per[4] = { 1, 0, 1, 1 };
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &c));
    run_all(c, "ring");
    CHECK_RC(MPI_Comm_free(&c));
    per[0] = 0;
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &c));
    run_all(c, "line");
    CHECK_RC(MPI_Comm_free(&c));
    /* 3-d, periodic in 0 and 2: extents 1 and 2 occur at every size here */
    int d3[3] = { 0, 0, 0 }, p3[3] = { 1, 0, 1 };
    CHECK_RC(MPI_Dims_create(size, 3, d3));
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 3, d3, p3, 0, &c));
    run_all(c, "cart3d");
    CHECK_RC(MPI_Comm_free(&c));
    /* 2 x 1 x (size/2) all periodic, on a part of WORLD when size is odd */
    if (size >= 2) {
        int d2[3] = { 2, 1, size / 2 }, p2[3] = { 1, 1, 1 };
        CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 3, d2, p2, 0, &c));
        run_all(c, "cart2x1");
        if (c != MPI_COMM_NULL)
            CHECK_RC(MPI_Comm_free(&c));
    }
    /* graph: ring plus a self-loop at 0 and, from 3 nodes, a doubled chord 0-2 */
    int index[64], edges[128], k = 0, n = size;
    for (int i = 0; i < n; i++) {
        edges[k++] = (i + 1) % n;
        edges[k++] = (i - 1 + n) % n;
        if (i == 0)
            edges[k++] = 0;
        if (n >= 3 && (i == 0 || i == 2)) {
            edges[k++] = 2 - i;
            edges[k++] = 2 - i;
        }
        index[i] = k;
    }
    CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &c));
    run_all(c, "graph");
    /* dup keeps the topology and so its neighborhood collectives */
    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(c, &d));
    CHECK_RC(MPI_Comm_free(&c));
    run_all(d, "graph dup");
    CHECK_RC(MPI_Comm_free(&d));
    /* directed, not symmetric: out r+1, r+2, r+2; in r-1, r-2, r-2 */
    int out[3] = { (rank + 1) % n, (rank + 2) % n, (rank + 2) % n };
    int in[3] = { (rank - 1 + 2 * n) % n, (rank - 2 + 2 * n) % n, (rank - 2 + 2 * n) % n };
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, in, UNW, 3, out,
                                            UNW, MPI_INFO_NULL, 0, &c));
    run_all(c, "dist adjacent");
    CHECK_RC(MPI_Comm_free(&c));
    /* edges given by rank 0 only: i -> 2i+1 (several processes without
     * sources, some with two) */
    int *src = malloc(sizeof(int) * (size_t)n), *deg = malloc(sizeof(int) * (size_t)n);
    int *dst = malloc(sizeof(int) * (size_t)n), *w = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        src[i] = i;
        deg[i] = 1;
        dst[i] = (2 * i + 1) % n;
        w[i] = i;
    }
    CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, rank == 0 ? n : 0, src, deg, dst, w,
                                   MPI_INFO_NULL, 0, &c));
    run_all(c, "dist general");
    free(src);
    free(deg);
    free(dst);
    free(w);
    CHECK_RC(MPI_Comm_free(&c));
}

static void invalid(void)
{
    MPI_Comm w = MPI_COMM_WORLD, ring;
    int dims[1] = { size }, per[1] = { 1 }, s[4] = { 0 }, r[4], cnt[2] = { 1, 1 },
        neg[2] = { -1, 1 }, dsp[2] = { 0, 1 };
    MPI_Aint adsp[2] = { 0, 4 };
    MPI_Datatype ty[2] = { MPI_INT, MPI_INT }, bad[2] = { MPI_INT, MPI_DATATYPE_NULL }, unc;
    MPI_Request req;
    CHECK_RC(MPI_Cart_create(w, 1, dims, per, 0, &ring));
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &unc));   /* not committed */
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Neighbor_allgather(s, 1, MPI_INT, r, 1, MPI_INT, w));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Ineighbor_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, w, &req));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Neighbor_alltoallw(s, cnt, adsp, ty, r, cnt, adsp, ty,
                                                    MPI_COMM_SELF));
    EXPECT(MPI_ERR_COMM, MPI_Neighbor_allgather(s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_NULL));
    EXPECT(MPI_ERR_COMM, MPI_Ineighbor_allgatherv(s, 1, MPI_INT, r, cnt, dsp, MPI_INT,
                                                  MPI_COMM_NULL, &req));
    EXPECT(MPI_ERR_COUNT, MPI_Neighbor_allgather(s, -1, MPI_INT, r, 1, MPI_INT, ring));
    EXPECT(MPI_ERR_COUNT, MPI_Neighbor_alltoall_c(s, 1, MPI_INT, r, -1, MPI_INT, ring));
    EXPECT(MPI_ERR_TYPE, MPI_Neighbor_alltoall(s, 1, MPI_DATATYPE_NULL, r, 1, MPI_INT, ring));
    EXPECT(MPI_ERR_TYPE, MPI_Neighbor_allgather(s, 1, MPI_INT, r, 1, unc, ring));
    EXPECT(MPI_ERR_BUFFER, MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, r, 1, MPI_INT, ring));
    EXPECT(MPI_ERR_BUFFER, MPI_Neighbor_alltoall(s, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, ring));
    EXPECT(MPI_ERR_BUFFER, MPI_Neighbor_allgather(NULL, 1, MPI_INT, r, 1, MPI_INT, ring));
    EXPECT(MPI_ERR_ARG, MPI_Ineighbor_allgather(s, 1, MPI_INT, r, 1, MPI_INT, ring, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Neighbor_allgatherv(s, 1, MPI_INT, r, NULL, dsp, MPI_INT, ring));
    EXPECT(MPI_ERR_ARG, MPI_Neighbor_allgatherv(s, 1, MPI_INT, r, cnt, NULL, MPI_INT, ring));
    EXPECT(MPI_ERR_COUNT, MPI_Neighbor_allgatherv(s, 1, MPI_INT, r, neg, dsp, MPI_INT, ring));
    EXPECT(MPI_ERR_COUNT, MPI_Neighbor_alltoallv(s, neg, dsp, MPI_INT, r, cnt, dsp, MPI_INT,
                                                 ring));
    EXPECT(MPI_ERR_ARG, MPI_Neighbor_alltoallv(s, cnt, NULL, MPI_INT, r, cnt, dsp, MPI_INT,
                                               ring));
    EXPECT(MPI_ERR_TYPE, MPI_Ineighbor_alltoallv(s, cnt, dsp, MPI_INT, r, cnt, dsp,
                                                 MPI_DATATYPE_NULL, ring, &req));
    EXPECT(MPI_ERR_TYPE, MPI_Neighbor_alltoallw(s, cnt, adsp, bad, r, cnt, adsp, ty, ring));
    EXPECT(MPI_ERR_ARG, MPI_Neighbor_alltoallw(s, cnt, adsp, ty, r, cnt, adsp, NULL, ring));
    EXPECT(MPI_ERR_COUNT, MPI_Ineighbor_alltoallw(s, cnt, adsp, ty, r, neg, adsp, ty, ring,
                                                  &req));
    CHECK_RC(MPI_Type_free(&unc));
    CHECK_RC(MPI_Comm_free(&ring));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    UNW = MPI_UNWEIGHTED;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    topologies();
    invalid();
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("topo_neighbor: %d ranks, %d invalid-argument cases: OK\n", size, smap_expect_cases);
    MPI_Finalize();
    return 0;
}
