/* Every non-blocking collective on intercommunicators, checked by content
 * against its blocking twin (itself checked by content in inter_coll) on
 * the same inputs, for the three cuts of WORLD: rooted ones with the root
 * in either group (MPI_PROC_NULL members' buffers untouched), v/w forms
 * with uneven counts, reductions with a non-commutative user op also
 * against a serial reference, two collectives outstanding at once,
 * completion by MPI_Test loops; Iscan/Iexscan raise MPI_ERR_COMM. */
#include <string.h>

#include "inter_common.h"

#define SENT (-7777)
#define LEN 512

static MPI_Op op_compose;

static void test_loop(MPI_Request *r)
{
    int flag = 0;
    while (!flag)
        CHECK_RC(MPI_Test(r, &flag, MPI_STATUS_IGNORE));
    CHECK(*r == MPI_REQUEST_NULL, "a completed request was not freed");
}

/* One collective's call: blocking (req NULL) or not.  sb: input (already
 * filled), rb: output. */
struct call {
    struct inter *x;
    int root, *sb, *rb;
    int counts[64], displs[64], scounts[64], sdispls[64], rs[64];
};
typedef int coll_fn(struct call *k, MPI_Request *req);

static int c_bcast(struct call *k, MPI_Request *req)
{
    if (k->root == MPI_ROOT)
        memcpy(k->rb, k->sb, 5 * sizeof(int));
    return req ? MPI_Ibcast(k->rb, 5, MPI_INT, k->root, k->x->comm, req)
               : MPI_Bcast(k->rb, 5, MPI_INT, k->root, k->x->comm);
}
static int c_gather(struct call *k, MPI_Request *req)
{
    return req ? MPI_Igather(k->sb, 2, MPI_INT, k->rb, 2, MPI_INT, k->root, k->x->comm, req)
               : MPI_Gather(k->sb, 2, MPI_INT, k->rb, 2, MPI_INT, k->root, k->x->comm);
}
static int c_gatherv(struct call *k, MPI_Request *req)
{
    int n = k->x->rank + 1;
    return req ? MPI_Igatherv(k->sb, n, MPI_INT, k->rb, k->counts, k->displs, MPI_INT, k->root,
                              k->x->comm, req)
               : MPI_Gatherv(k->sb, n, MPI_INT, k->rb, k->counts, k->displs, MPI_INT, k->root,
                             k->x->comm);
}
static int c_scatter(struct call *k, MPI_Request *req)
{
    return req ? MPI_Iscatter(k->sb, 3, MPI_INT, k->rb, 3, MPI_INT, k->root, k->x->comm, req)
               : MPI_Scatter(k->sb, 3, MPI_INT, k->rb, 3, MPI_INT, k->root, k->x->comm);
}
static int c_scatterv(struct call *k, MPI_Request *req)
{
    int n = k->x->rank + 1;
    return req ? MPI_Iscatterv(k->sb, k->counts, k->displs, MPI_INT, k->rb, n, MPI_INT, k->root,
                               k->x->comm, req)
               : MPI_Scatterv(k->sb, k->counts, k->displs, MPI_INT, k->rb, n, MPI_INT, k->root,
                              k->x->comm);
}
static int c_reduce(struct call *k, MPI_Request *req)
{
    return req ? MPI_Ireduce_c(k->sb, k->rb, 1, MPI_2INT, op_compose, k->root, k->x->comm, req)
               : MPI_Reduce_c(k->sb, k->rb, 1, MPI_2INT, op_compose, k->root, k->x->comm);
}
static int c_allgather(struct call *k, MPI_Request *req)
{
    return req ? MPI_Iallgather(k->sb, 2, MPI_INT, k->rb, 2, MPI_INT, k->x->comm, req)
               : MPI_Allgather(k->sb, 2, MPI_INT, k->rb, 2, MPI_INT, k->x->comm);
}
static int c_allgatherv(struct call *k, MPI_Request *req)
{
    int n = k->x->rank + 1;
    return req ? MPI_Iallgatherv(k->sb, n, MPI_INT, k->rb, k->counts, k->displs, MPI_INT,
                                 k->x->comm, req)
               : MPI_Allgatherv(k->sb, n, MPI_INT, k->rb, k->counts, k->displs, MPI_INT,
                                k->x->comm);
}
static int c_alltoall(struct call *k, MPI_Request *req)
{
    return req ? MPI_Ialltoall(k->sb, 2, MPI_INT, k->rb, 2, MPI_INT, k->x->comm, req)
               : MPI_Alltoall(k->sb, 2, MPI_INT, k->rb, 2, MPI_INT, k->x->comm);
}
static int c_alltoallv(struct call *k, MPI_Request *req)
{
    return req ? MPI_Ialltoallv(k->sb, k->scounts, k->sdispls, MPI_INT, k->rb, k->counts,
                                k->displs, MPI_INT, k->x->comm, req)
               : MPI_Alltoallv(k->sb, k->scounts, k->sdispls, MPI_INT, k->rb, k->counts,
                               k->displs, MPI_INT, k->x->comm);
}
static int c_alltoallw(struct call *k, MPI_Request *req)
{
    int sbytes[64], rbytes[64];
    MPI_Datatype types[64];
    for (int j = 0; j < k->x->rsize; j++) {
        sbytes[j] = k->sdispls[j] * (int)sizeof(int);
        rbytes[j] = k->displs[j] * (int)sizeof(int);
        types[j] = MPI_INT;
    }
    /* the arrays may go once the call returns: exercise that */
    return req ? MPI_Ialltoallw(k->sb, k->scounts, sbytes, types, k->rb, k->counts, rbytes, types,
                                k->x->comm, req)
               : MPI_Alltoallw(k->sb, k->scounts, sbytes, types, k->rb, k->counts, rbytes, types,
                               k->x->comm);
}
static int c_allreduce(struct call *k, MPI_Request *req)
{
    return req ? MPI_Iallreduce(k->sb, k->rb, 1, MPI_2INT, op_compose, k->x->comm, req)
               : MPI_Allreduce(k->sb, k->rb, 1, MPI_2INT, op_compose, k->x->comm);
}
static int c_redscat_block(struct call *k, MPI_Request *req)
{
    int n = k->x->rsize;
    return req ? MPI_Ireduce_scatter_block(k->sb, k->rb, n, MPI_INT, MPI_SUM, k->x->comm, req)
               : MPI_Reduce_scatter_block(k->sb, k->rb, n, MPI_INT, MPI_SUM, k->x->comm);
}
static int c_redscat(struct call *k, MPI_Request *req)
{
    return req ? MPI_Ireduce_scatter(k->sb, k->rb, k->rs, MPI_INT, MPI_SUM, k->x->comm, req)
               : MPI_Reduce_scatter(k->sb, k->rb, k->rs, MPI_INT, MPI_SUM, k->x->comm);
}

static const char *scheme;

/* fn blocking, then non-blocking (completed by an MPI_Test loop) into
 * another buffer: both results must be the same, and untouched at an
 * MPI_PROC_NULL member. */
static void both(struct call *k, const char *name, coll_fn *fn, int root)
{
    static int rb1[LEN], rb2[LEN];
    fill(rb1, LEN, SENT);
    fill(rb2, LEN, SENT);
    k->root = root;
    k->rb = rb1;
    CHECK_RC(fn(k, NULL));
    MPI_Request r = MPI_REQUEST_NULL;
    k->rb = rb2;
    CHECK_RC(fn(k, &r));
    test_loop(&r);
    CHECK(memcmp(rb1, rb2, sizeof rb1) == 0, "%s (%s, root %d): differs from the blocking result",
          name, scheme, root);
    for (int i = 0; root == MPI_PROC_NULL && i < LEN; i++)
        CHECK(rb2[i] == SENT, "%s (%s): MPI_PROC_NULL member's buffer written", name, scheme);
    if ((fn == c_reduce && root == MPI_ROOT) || fn == c_allreduce) {
        int want[2];
        fold_maps(k->x->rsize, want);
        CHECK(rb2[0] == want[0] && rb2[1] == want[1], "%s (%s): %d,%d want %d,%d", name, scheme,
              rb2[0], rb2[1], want[0], want[1]);
    }
}

static void setup(struct inter *x, struct call *k, int *sb)
{
    memset(k, 0, sizeof *k);
    k->x = x;
    k->sb = sb;
    for (int i = 0; i < LEN; i++)
        sb[i] = wrank * 1000 + i;
    map_of(x->rank, sb);
    int off = 0, me = x->rank, n = x->rsize;
    for (int j = n - 1; j >= 0; j--) {   /* uneven blocks, reversed, with gaps */
        k->counts[j] = j + 1;
        k->displs[j] = off;
        off += j + 2;
    }
    for (int j = 0; j < n; j++) {
        k->scounts[j] = me + 1;
        k->sdispls[j] = j * (me + 1);
    }
    for (int i = 0; i < x->size; i++)   /* reduce_scatter: size * n in all */
        k->rs[i] = x->size == 1 ? n : i == 0 ? 0 : i == x->size - 1 ? 2 * n : n;
}

/* Ibcast and Iallreduce outstanding together, completed by MPI_Testall. */
static void two_at_once(struct inter *x)
{
    int v[4] = { SENT, SENT, SENT, SENT }, in[2], out[2] = { SENT, SENT };
    int root_side = 1, root;
    if (x->color == root_side) {
        root = x->rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
        if (x->rank == 0)
            v[0] = 11, v[1] = 22, v[2] = 33, v[3] = wrank;
    } else {
        root = 0;
    }
    map_of(x->rank, in);
    MPI_Request r[2];
    CHECK_RC(MPI_Ibcast(v, 4, MPI_INT, root, x->comm, &r[0]));
    CHECK_RC(MPI_Iallreduce(in, out, 1, MPI_2INT, op_compose, x->comm, &r[1]));
    int flag = 0;
    while (!flag)
        CHECK_RC(MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE));
    if (root == 0)
        CHECK(v[0] == 11 && v[1] == 22 && v[2] == 33 && v[3] == x->theirs[0],
              "two at once: bcast got %d %d %d %d", v[0], v[1], v[2], v[3]);
    if (root == MPI_PROC_NULL)
        CHECK(v[0] == SENT && v[3] == SENT, "two at once: MPI_PROC_NULL buffer written");
    int want[2];
    fold_maps(x->rsize, want);
    CHECK(out[0] == want[0] && out[1] == want[1], "two at once: allreduce %d,%d want %d,%d",
          out[0], out[1], want[0], want[1]);
}

static void scans_refused(struct inter *x)
{
    int a[2] = { 1, 2 }, b[2];
    MPI_Request r;
    CHECK_RC(MPI_Comm_set_errhandler(x->comm, MPI_ERRORS_RETURN));
    int cls, rc = MPI_Iscan(a, b, 1, MPI_INT, MPI_SUM, x->comm, &r);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "Iscan on an intercommunicator: class %d", cls);
    rc = MPI_Iexscan_c(a, b, 1, MPI_INT, MPI_SUM, x->comm, &r);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "Iexscan_c on an intercommunicator: class %d", cls);
    CHECK_RC(MPI_Comm_set_errhandler(x->comm, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    CHECK(wsize >= 2 && wsize <= 64, "needs 2..64 ranks");
    CHECK_RC(MPI_Op_create(compose, 0, &op_compose));
    static const struct {
        const char *name;
        coll_fn *fn;
    } rooted[] = { { "Ibcast", c_bcast },     { "Igather", c_gather }, { "Igatherv", c_gatherv },
                   { "Iscatter", c_scatter }, { "Iscatterv", c_scatterv },
                   { "Ireduce_c", c_reduce } },
      flat[] = { { "Iallgather", c_allgather },
                 { "Iallgatherv", c_allgatherv },
                 { "Ialltoall", c_alltoall },
                 { "Ialltoallv", c_alltoallv },
                 { "Ialltoallw", c_alltoallw },
                 { "Iallreduce", c_allreduce },
                 { "Ireduce_scatter_block", c_redscat_block },
                 { "Ireduce_scatter", c_redscat } };
    static int sb[LEN];
    for (int s = 0; s < NSCHEMES; s++) {
        struct inter x;
        struct call k;
        scheme = scheme_name[s];
        inter_make(s, &x);
        setup(&x, &k, sb);
        MPI_Request r;
        CHECK_RC(MPI_Ibarrier(x.comm, &r));
        test_loop(&r);
        for (int side = 0; side < 2; side++) {
            /* the root: the last member of group `side` */
            int root = x.color != side ? x.rsize - 1
                                       : x.rank == x.size - 1 ? MPI_ROOT : MPI_PROC_NULL;
            for (size_t i = 0; i < sizeof rooted / sizeof *rooted; i++)
                both(&k, rooted[i].name, rooted[i].fn, root);
        }
        for (size_t i = 0; i < sizeof flat / sizeof *flat; i++)
            both(&k, flat[i].name, flat[i].fn, 0);
        two_at_once(&x);
        scans_refused(&x);
        inter_free(&x);
    }
    CHECK_RC(MPI_Op_free(&op_compose));
    MPI_Finalize();
    return 0;
}
