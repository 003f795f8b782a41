/* Every blocking collective on intercommunicators, checked by content:
 * rooted ones with the root in either group (MPI_ROOT at the root,
 * MPI_PROC_NULL beside it, whose buffers must stay untouched), the "all"
 * ones with data flowing from each group to the other, reductions with a
 * predefined and a non-commutative user op, v/w forms with uneven counts
 * and reversed displacements, a derived type, some _c twins. */
#include <string.h>

#include "inter_common.h"

#define SENT (-7777)

static MPI_Op op_compose;

/* displacements of blocks of j + 1 elements in reverse order, gaps of 1 */
static int rev_displs(int n, int *counts, int *displs)
{
    int off = 0;
    for (int j = n - 1; j >= 0; j--) {
        counts[j] = j + 1;
        displs[j] = off;
        off += j + 2;
    }
    return off;
}

static int sum_of(const int *w, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += w[i];
    return s;
}

static void rooted(const struct inter *x, int dir)
{
    MPI_Comm c = x->comm;
    int in_root_group = x->color == dir;
    int rootrank = in_root_group ? x->size - 1 : x->rsize - 1;
    int is_root = in_root_group && x->rank == rootrank;
    int root = is_root ? MPI_ROOT : in_root_group ? MPI_PROC_NULL : rootrank;
    int root_world = in_root_group ? x->mine[rootrank] : x->theirs[rootrank];
    int buf[512], sb[512], counts[64], displs[64];

    /* bcast, also with a strided type */
    fill(buf, 5, SENT);
    if (is_root)
        for (int i = 0; i < 5; i++)
            buf[i] = root_world * 100 + i;
    CHECK_RC(MPI_Bcast(buf, 5, MPI_INT, root, c));
    for (int i = 0; i < 5; i++)
        CHECK(buf[i] == (in_root_group && !is_root ? SENT : root_world * 100 + i),
              "bcast dir %d [%d] = %d", dir, i, buf[i]);
    MPI_Datatype vec;
    CHECK_RC(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    CHECK_RC(MPI_Type_commit(&vec));
    fill(buf, 6, SENT);
    if (is_root)
        for (int i = 0; i < 6; i++)
            buf[i] = i;
    CHECK_RC(MPI_Bcast_c(buf, 1, vec, root, c));
    if (!in_root_group)
        CHECK(buf[0] == 0 && buf[2] == 2 && buf[4] == 4 && buf[1] == SENT, "vector bcast");
    CHECK_RC(MPI_Type_free(&vec));

    /* gather / gatherv: the non-root group sends */
    for (int v = 0; v < 2; v++) {
        fill(buf, 512, SENT);
        int n = x->rank + 1;
        for (int i = 0; i < n + 3; i++)
            sb[i] = wrank * 10 + i;
        int total = rev_displs(x->rsize, counts, displs);
        if (v == 0)
            CHECK_RC(MPI_Gather(sb, 3, MPI_INT, buf, 3, MPI_INT, root, c));
        else
            CHECK_RC(MPI_Gatherv(sb, n, MPI_INT, buf, counts, displs, MPI_INT, root, c));
        if (is_root)
            for (int j = 0; j < x->rsize; j++)
                for (int i = 0; i < (v ? j + 1 : 3); i++) {
                    int got = buf[v ? displs[j] + i : j * 3 + i];
                    CHECK(got == x->theirs[j] * 10 + i, "gather%s dir %d from %d [%d] = %d",
                          v ? "v" : "", dir, j, i, got);
                }
        else if (in_root_group)
            for (int i = 0; i < total + 3 * x->rsize; i++)
                CHECK(buf[i] == SENT, "gather touched a non-root buffer");
    }

    /* scatter / scatterv: the root sends to the other group */
    for (int v = 0; v < 2; v++) {
        fill(buf, 512, SENT);
        rev_displs(x->rsize, counts, displs);
        if (is_root)
            for (int j = 0; j < x->rsize; j++)
                for (int i = 0; i < (v ? j + 1 : 3); i++)
                    sb[v ? displs[j] + i : j * 3 + i] = x->theirs[j] * 10 + i;
        int n = x->rank + 1;
        if (v == 0)
            CHECK_RC(MPI_Scatter(sb, 3, MPI_INT, buf, 3, MPI_INT, root, c));
        else
            CHECK_RC(MPI_Scatterv(sb, counts, displs, MPI_INT, buf, n, MPI_INT, root, c));
        if (!in_root_group)
            for (int i = 0; i < (v ? n : 3); i++)
                CHECK(buf[i] == wrank * 10 + i, "scatter%s dir %d [%d] = %d", v ? "v" : "", dir,
                      i, buf[i]);
        else
            CHECK(buf[0] == SENT, "scatter touched a root-group receive buffer");
    }

    /* reduce: sum and the composed maps of the non-root group */
    for (int i = 0; i < 4; i++)
        sb[i] = wrank + i * 100;
    fill(buf, 8, SENT);
    CHECK_RC(MPI_Reduce(sb, buf, 4, MPI_INT, MPI_SUM, root, c));
    if (is_root)
        for (int i = 0; i < 4; i++)
            CHECK(buf[i] == sum_of(x->theirs, x->rsize) + x->rsize * i * 100,
                  "reduce dir %d [%d] = %d", dir, i, buf[i]);
    else if (in_root_group)
        CHECK(buf[0] == SENT, "reduce touched a non-root buffer");
    map_of(x->rank, sb);
    CHECK_RC(MPI_Reduce_c(sb, buf, 1, MPI_2INT, op_compose, root, c));
    if (is_root) {
        int want[2];
        fold_maps(x->rsize, want);
        CHECK(buf[0] == want[0] && buf[1] == want[1], "reduce (user op) %d,%d want %d,%d",
              buf[0], buf[1], want[0], want[1]);
    }
}

static void all(const struct inter *x)
{
    MPI_Comm c = x->comm;
    int buf[512], sb[512], counts[64], displs[64], scounts[64], sdispls[64];
    int me = x->rank, n = x->rsize;

    CHECK_RC(MPI_Barrier(c));

    /* allgather(v) */
    for (int i = 0; i < me + 3; i++)
        sb[i] = wrank * 10 + i;
    fill(buf, 512, SENT);
    CHECK_RC(MPI_Allgather(sb, 2, MPI_INT, buf, 2, MPI_INT, c));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 2; i++)
            CHECK(buf[j * 2 + i] == x->theirs[j] * 10 + i, "allgather [%d][%d] = %d", j, i,
                  buf[j * 2 + i]);
    fill(buf, 512, SENT);
    rev_displs(n, counts, displs);
    CHECK_RC(MPI_Allgatherv(sb, me + 1, MPI_INT, buf, counts, displs, MPI_INT, c));
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++)
            CHECK(buf[displs[j] + i] == x->theirs[j] * 10 + i, "allgatherv [%d][%d]", j, i);

    /* alltoall: block j to remote rank j */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 2; i++)
            sb[j * 2 + i] = wrank * 100 + j * 2 + i;
    fill(buf, 512, SENT);
    CHECK_RC(MPI_Alltoall(sb, 2, MPI_INT, buf, 2, MPI_INT, c));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 2; i++)
            CHECK(buf[j * 2 + i] == x->theirs[j] * 100 + me * 2 + i, "alltoall [%d][%d] = %d",
                  j, i, buf[j * 2 + i]);

    /* alltoallv / alltoallw: (sender + receiver) % 3 + 1 elements */
    int so = 0, ro = 0;
    for (int j = 0; j < n; j++) {
        scounts[j] = counts[j] = (me + j) % 3 + 1;
        sdispls[j] = so;
        displs[j] = ro;
        for (int i = 0; i < scounts[j]; i++)
            sb[so + i] = wrank * 100 + j * 10 + i;
        so += scounts[j] + 1;
        ro += counts[j] + 2;
    }
    for (int w = 0; w < 2; w++) {
        fill(buf, 512, SENT);
        if (w == 0) {
            CHECK_RC(MPI_Alltoallv(sb, scounts, sdispls, MPI_INT, buf, counts, displs, MPI_INT,
                                   c));
        } else {
            int sbytes[64], rbytes[64];
            MPI_Datatype types[64];
            for (int j = 0; j < n; j++) {
                sbytes[j] = sdispls[j] * (int)sizeof(int);
                rbytes[j] = displs[j] * (int)sizeof(int);
                types[j] = MPI_INT;
            }
            CHECK_RC(MPI_Alltoallw(sb, scounts, sbytes, types, buf, counts, rbytes, types, c));
        }
        for (int j = 0; j < n; j++)
            for (int i = 0; i < counts[j]; i++)
                CHECK(buf[displs[j] + i] == x->theirs[j] * 100 + me * 10 + i,
                      "alltoall%s [%d][%d] = %d", w ? "w" : "v", j, i, buf[displs[j] + i]);
    }

    /* allreduce: the remote group's sum / composed maps */
    for (int i = 0; i < 3; i++)
        sb[i] = wrank + i;
    CHECK_RC(MPI_Allreduce(sb, buf, 3, MPI_INT, MPI_SUM, c));
    for (int i = 0; i < 3; i++)
        CHECK(buf[i] == sum_of(x->theirs, n) + n * i, "allreduce [%d] = %d", i, buf[i]);
    map_of(me, sb);
    CHECK_RC(MPI_Allreduce_c(sb, buf, 1, MPI_2INT, op_compose, c));
    int want[2];
    fold_maps(n, want);
    CHECK(buf[0] == want[0] && buf[1] == want[1], "allreduce (user op) %d,%d want %d,%d", buf[0],
          buf[1], want[0], want[1]);

    /* reduce_scatter_block: rsize elements each, size * rsize in all */
    int total = x->size * n;
    for (int k = 0; k < total; k++)
        sb[k] = wrank * 1000 + k;
    fill(buf, 512, SENT);
    CHECK_RC(MPI_Reduce_scatter_block(sb, buf, n, MPI_INT, MPI_SUM, c));
    for (int i = 0; i < n; i++) {
        int k = me * n + i;
        CHECK(buf[i] == sum_of(x->theirs, n) * 1000 + n * k, "reduce_scatter_block [%d] = %d", i,
              buf[i]);
    }
    /* reduce_scatter: uneven counts over this group, same total */
    int start = 0;
    for (int i = 0; i < x->size; i++) {
        counts[i] = x->size == 1 ? n : i == 0 ? 0 : i == x->size - 1 ? 2 * n : n;
        if (i < me)
            start += counts[i];
    }
    fill(buf, 512, SENT);
    CHECK_RC(MPI_Reduce_scatter(sb, buf, counts, MPI_INT, MPI_SUM, c));
    for (int i = 0; i < counts[me]; i++)
        CHECK(buf[i] == sum_of(x->theirs, n) * 1000 + n * (start + i), "reduce_scatter [%d] = %d",
              i, buf[i]);
    CHECK(buf[counts[me]] == SENT, "reduce_scatter wrote past its block");
}

/* Messages past the eager size (rendezvous) through every algorithm shape:
 * bcast tree, fold + swap + broadcast, pairwise exchange. */
static void big(const struct inter *x)
{
    enum { N = 60000 };
    static int b[N], r[N], a2a[8 * 4096], a2r[8 * 4096];
    int root = x->color == 0 ? (x->rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    for (int i = 0; i < N; i++)
        b[i] = x->color == 0 && x->rank == 0 ? i ^ 0x55 : -1;
    CHECK_RC(MPI_Bcast(b, N, MPI_INT, root, x->comm));
    if (x->color == 1)
        CHECK(b[0] == 0x55 && b[N - 1] == ((N - 1) ^ 0x55), "big bcast");
    for (int i = 0; i < N; i++)
        b[i] = wrank + i;
    CHECK_RC(MPI_Allreduce(b, r, N, MPI_INT, MPI_SUM, x->comm));
    int s = sum_of(x->theirs, x->rsize);
    CHECK(r[0] == s && r[N - 1] == s + x->rsize * (N - 1), "big allreduce %d", r[N - 1]);
    int blk = 4096, n = x->rsize;
    if (wsize <= 8) {   /* (the same answer in both groups) */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < blk; i++)
                a2a[j * blk + i] = wrank * 100000 + j * 1000 + i % 1000;
        CHECK_RC(MPI_Alltoall(a2a, blk, MPI_INT, a2r, blk, MPI_INT, x->comm));
        for (int j = 0; j < n; j++)
            CHECK(a2r[j * blk + blk - 1] == x->theirs[j] * 100000 + x->rank * 1000 +
                                               (blk - 1) % 1000,
                  "big alltoall from %d", j);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    CHECK(wsize >= 2 && wsize <= 64, "needs 2..64 ranks");
    CHECK_RC(MPI_Op_create(compose, 0, &op_compose));
    for (int s = 0; s < NSCHEMES; s++) {
        struct inter x;
        inter_make(s, &x);
        rooted(&x, 0);
        rooted(&x, 1);
        all(&x);
        big(&x);
        inter_free(&x);
    }
    CHECK_RC(MPI_Op_free(&op_compose));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (wrank == 0)
        printf("inter_coll: %d ranks OK\n", wsize);
    MPI_Finalize();
    return 0;
}
