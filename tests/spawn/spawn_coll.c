/* Every collective across parents and spawned children: on the parent
 * intercommunicator (barrier, bcast, reduce, allreduce, gather, scatter,
 * allgather, alltoall, reduce_scatter_block, and ibcast / iallreduce) and
 * on the merged intracommunicator (scan, exscan, allgatherv, alltoallv,
 * reduce_scatter, bcast), each checked by content on both sides. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCHILD 3
static int fails;
#define CHECK(c, ...)                                                   \
    do {                                                                \
        if (!(c)) {                                                     \
            fprintf(stderr, __VA_ARGS__);                               \
            fputc('\n', stderr);                                        \
            fails++;                                                    \
        }                                                               \
    } while (0)

/* The value member r of group g (0 parents, 1 children) contributes. */
static int val(int g, int r, int k)
{
    return g * 1000 + r * 10 + k;
}

static void inter(MPI_Comm c, int g)
{
    int r, n, rn;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    MPI_Comm_remote_size(c, &rn);
    int o = 1 - g;   /* the other group */
    MPI_Barrier(c);
    /* rooted collectives: root is parent 0 */
    int root = g == 0 ? (r == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int x = g == 0 ? 99 : -1;
    MPI_Bcast(&x, 1, MPI_INT, root, c);
    CHECK(x == 99, "bcast %d", x);
    int s = val(g, r, 0), sum = -1;
    MPI_Reduce(&s, &sum, 1, MPI_INT, MPI_SUM, root, c);
    if (g == 0 && r == 0) {
        int want = 0;
        for (int i = 0; i < rn; i++)
            want += val(1, i, 0);
        CHECK(sum == want, "reduce %d want %d", sum, want);
    }
    MPI_Allreduce(&s, &sum, 1, MPI_INT, MPI_SUM, c);
    int want = 0;
    for (int i = 0; i < rn; i++)
        want += val(o, i, 0);
    CHECK(sum == want, "allreduce %d want %d", sum, want);
    int *all = calloc((size_t)(n + rn) * 4, sizeof *all);
    MPI_Gather(&s, 1, MPI_INT, all, 1, MPI_INT, root, c);
    if (g == 0 && r == 0)
        for (int i = 0; i < rn; i++)
            CHECK(all[i] == val(1, i, 0), "gather[%d] %d", i, all[i]);
    for (int i = 0; i < rn; i++)
        all[i] = val(g, r, i);
    int got = -1;
    MPI_Scatter(all, 1, MPI_INT, &got, 1, MPI_INT, root, c);
    if (g == 1)
        CHECK(got == val(0, 0, r), "scatter %d", got);
    MPI_Allgather(&s, 1, MPI_INT, all, 1, MPI_INT, c);
    for (int i = 0; i < rn; i++)
        CHECK(all[i] == val(o, i, 0), "allgather[%d] %d", i, all[i]);
    int *snd = malloc((size_t)rn * sizeof *snd);
    for (int i = 0; i < rn; i++)
        snd[i] = val(g, r, i);
    MPI_Alltoall(snd, 1, MPI_INT, all, 1, MPI_INT, c);
    for (int i = 0; i < rn; i++)
        CHECK(all[i] == val(o, i, r), "alltoall[%d] %d", i, all[i]);
    /* reduce_scatter_block (MPI 5.0 6.10.1): each member gives a vector
     * of (own group size) * recvcount elements; the other group's vectors
     * are summed and scattered over this group, recvcount each; both
     * groups' totals agree with recvcount = the other group's size */
    int *vec = malloc((size_t)n * rn * sizeof *vec), *res = malloc((size_t)rn * sizeof *res);
    for (int k = 0; k < n * rn; k++)
        vec[k] = val(g, r, k);
    MPI_Reduce_scatter_block(vec, res, rn, MPI_INT, MPI_SUM, c);
    for (int j = 0; j < rn; j++) {
        want = 0;
        for (int i = 0; i < rn; i++)
            want += val(o, i, r * rn + j);
        CHECK(res[j] == want, "reduce_scatter_block[%d] %d want %d", j, res[j], want);
    }
    free(res);
    MPI_Request q[2];
    x = g == 0 ? 7 : -1;
    MPI_Ibcast(&x, 1, MPI_INT, root, c, &q[0]);
    MPI_Iallreduce(&s, &sum, 1, MPI_INT, MPI_MAX, c, &q[1]);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    CHECK(x == 7, "ibcast %d", x);
    CHECK(sum == val(o, rn - 1, 0), "iallreduce max %d", sum);
    free(all), free(snd), free(vec);
}

static void merged(MPI_Comm c)
{
    int r, n;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    int v = r + 1, s = -1;
    MPI_Scan(&v, &s, 1, MPI_INT, MPI_SUM, c);
    CHECK(s == (r + 1) * (r + 2) / 2, "scan %d", s);
    MPI_Exscan(&v, &s, 1, MPI_INT, MPI_SUM, c);
    if (r > 0)
        CHECK(s == r * (r + 1) / 2, "exscan %d", s);
    int *cnt = malloc((size_t)n * sizeof *cnt), *dsp = malloc((size_t)n * sizeof *dsp);
    int tot = 0;
    for (int i = 0; i < n; i++)
        cnt[i] = i % 3 + 1, dsp[i] = tot, tot += cnt[i];
    int mine[3] = { r, r, r }, *all = malloc((size_t)tot * sizeof *all);
    MPI_Allgatherv(mine, cnt[r], MPI_INT, all, cnt, dsp, MPI_INT, c);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < cnt[i]; k++)
            CHECK(all[dsp[i] + k] == i, "allgatherv from %d", i);
    int *sb = malloc((size_t)n * sizeof *sb), *rb = malloc((size_t)n * sizeof *rb);
    int *ones = malloc((size_t)n * sizeof *ones), *d1 = malloc((size_t)n * sizeof *d1);
    for (int i = 0; i < n; i++)
        sb[i] = r * 100 + i, ones[i] = 1, d1[i] = i;
    MPI_Alltoallv(sb, ones, d1, MPI_INT, rb, ones, d1, MPI_INT, c);
    for (int i = 0; i < n; i++)
        CHECK(rb[i] == i * 100 + r, "alltoallv from %d: %d", i, rb[i]);
    for (int i = 0; i < n; i++)
        sb[i] = i + r;
    int got = -1;
    MPI_Reduce_scatter(sb, &got, ones, MPI_INT, MPI_SUM, c);
    CHECK(got == n * r + n * (n - 1) / 2, "reduce_scatter %d", got);
    int b = r == n - 1 ? 5 : 0;
    MPI_Bcast(&b, 1, MPI_INT, n - 1, c);
    CHECK(b == 5, "merged bcast %d", b);
    free(cnt), free(dsp), free(all), free(sb), free(rb), free(ones), free(d1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent, c, m;
    MPI_Comm_get_parent(&parent);
    int g = parent != MPI_COMM_NULL;
    if (!g)
        MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &c,
                       MPI_ERRCODES_IGNORE);
    else
        c = parent;
    inter(c, g);
    MPI_Intercomm_merge(c, g, &m);
    merged(m);
    MPI_Comm_free(&m);
    MPI_Comm_disconnect(&c);
    MPI_Finalize();
    return fails ? 1 : 0;
}
