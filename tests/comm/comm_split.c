/* New communicators carry point-to-point and collectives: split into
 * odd/even ranks, a split with reversed keys, MPI_Comm_create of the first
 * half, MPI_Comm_create_group by halves, split_type SHARED, each checked
 * by content; MPI_Comm_compare. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

/* A ring exchange, allreduce, bcast and alltoall on comm, whose rank r is
 * world rank world_of[r]. */
static void exercise(MPI_Comm comm, const int *world_of)
{
    int r, n;
    CHECK_RC(MPI_Comm_rank(comm, &r));
    CHECK_RC(MPI_Comm_size(comm, &n));
    int right = (r + 1) % n, left = (r + n - 1) % n, got = -1;
    int mine = world_of[r] * 10;
    MPI_Status st;
    CHECK_RC(MPI_Sendrecv(&mine, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, comm, &st));
    CHECK(got == world_of[left] * 10, "ring got %d want %d", got, world_of[left] * 10);
    CHECK(st.MPI_SOURCE == left, "status source %d want %d", st.MPI_SOURCE, left);
    /* a large message (rendezvous path) too */
    enum { BIG = 100000 };
    static int big[BIG], bigin[BIG];
    for (int i = 0; i < BIG; i++)
        big[i] = world_of[r] + i;
    CHECK_RC(MPI_Sendrecv(big, BIG, MPI_INT, right, 8, bigin, BIG, MPI_INT, MPI_ANY_SOURCE, 8,
                          comm, &st));
    CHECK(st.MPI_SOURCE == left && bigin[BIG - 1] == world_of[left] + BIG - 1, "big ring");

    int sum = 0, want = 0;
    for (int i = 0; i < n; i++)
        want += world_of[i];
    CHECK_RC(MPI_Allreduce(&world_of[r], &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == want, "allreduce %d want %d", sum, want);

    int b = r == n - 1 ? 4242 + world_of[r] : -1;
    CHECK_RC(MPI_Bcast(&b, 1, MPI_INT, n - 1, comm));
    CHECK(b == 4242 + world_of[n - 1], "bcast %d", b);

    int out[64], in[64];
    for (int i = 0; i < n; i++)
        out[i] = world_of[r] * 100 + i;
    CHECK_RC(MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, comm));
    for (int i = 0; i < n; i++)
        CHECK(in[i] == world_of[i] * 100 + r, "alltoall in[%d] = %d", i, in[i]);
    CHECK_RC(MPI_Barrier(comm));
}

static void check_split(int wr, int wn, int reversed)
{
    MPI_Comm c;
    int color = wr % 2, key = reversed ? wn - wr : wr;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, color, key, &c));
    int world_of[64], n = 0;
    for (int w = 0; w < wn; w++)
        if (w % 2 == color)
            world_of[n++] = w;
    if (reversed)
        for (int i = 0; i < n / 2; i++) {
            int t = world_of[i];
            world_of[i] = world_of[n - 1 - i];
            world_of[n - 1 - i] = t;
        }
    int r, size;
    CHECK_RC(MPI_Comm_rank(c, &r));
    CHECK_RC(MPI_Comm_size(c, &size));
    CHECK(size == n && world_of[r] == wr, "split rank %d size %d", r, size);
    exercise(c, world_of);
    int res;
    CHECK_RC(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
    CHECK(res == (wn == 1 ? MPI_CONGRUENT : MPI_UNEQUAL),
          "compare split/world %d", res);
    CHECK_RC(MPI_Comm_free(&c));
    CHECK(c == MPI_COMM_NULL, "free sets MPI_COMM_NULL");
}

static void check_create(int wr, int wn)
{
    MPI_Group wg, half;
    int h = (wn + 1) / 2, world_of[64];
    int range[1][3] = { { 0, h - 1, 1 } };
    for (int i = 0; i < h; i++)
        world_of[i] = i;
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    CHECK_RC(MPI_Group_range_incl(wg, 1, range, &half));
    MPI_Comm c;
    CHECK_RC(MPI_Comm_create(MPI_COMM_WORLD, half, &c));
    if (wr < h) {
        CHECK(c != MPI_COMM_NULL, "member got MPI_COMM_NULL");
        exercise(c, world_of);
        CHECK_RC(MPI_Comm_free(&c));
    } else {
        CHECK(c == MPI_COMM_NULL, "non-member got a communicator");
    }
    CHECK_RC(MPI_Group_free(&half));
    CHECK_RC(MPI_Group_free(&wg));
}

/* MPI_Comm_create_group by each half of WORLD, the halves at once. */
static void check_create_group(int wr, int wn)
{
    MPI_Group wg, part;
    int h = (wn + 1) / 2, lo = wr < h ? 0 : h, hi = wr < h ? h : wn, world_of[64];
    int range[1][3] = { { lo, hi - 1, 1 } };
    for (int i = lo; i < hi; i++)
        world_of[i - lo] = i;
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    CHECK_RC(MPI_Group_range_incl(wg, 1, range, &part));
    MPI_Comm c;
    CHECK_RC(MPI_Comm_create_group(MPI_COMM_WORLD, part, 77 + lo, &c));
    exercise(c, world_of);
    CHECK_RC(MPI_Comm_free(&c));
    CHECK_RC(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, 1, &c));
    CHECK(c == MPI_COMM_NULL, "empty group gives MPI_COMM_NULL");
    CHECK_RC(MPI_Group_free(&part));
    CHECK_RC(MPI_Group_free(&wg));
}

static void check_split_type(int wr, int wn)
{
    MPI_Comm c;
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wn - wr, MPI_INFO_NULL, &c));
    int r, n, res, world_of[64];
    CHECK_RC(MPI_Comm_rank(c, &r));
    CHECK_RC(MPI_Comm_size(c, &n));
    /* One communicator per node: the ranks that share our node name
     * (SMAP_NODE_NAME emulates nodes, tests/net), in reverse world order. */
    char names[64][64], mine[64] = "";
    const char *nn = getenv("SMAP_NODE_NAME");
    snprintf(mine, sizeof mine, "%s", nn ? nn : "");
    CHECK(wn <= 64, "at most 64 ranks");
    CHECK_RC(MPI_Allgather(mine, 64, MPI_CHAR, names, 64, MPI_CHAR, MPI_COMM_WORLD));
    int same = 0, above = 0;
    for (int i = wn - 1; i >= 0; i--)
        if (strcmp(names[i], mine) == 0) {
            if (i > wr)
                above++;
            world_of[same++] = i;
        }
    CHECK(n == same && r == above, "split_type rank %d size %d (expected %d of %d)", r, n,
          above, same);
    exercise(c, world_of);
    CHECK_RC(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
    CHECK(res == (wn == 1 ? MPI_CONGRUENT : same == wn ? MPI_SIMILAR : MPI_UNEQUAL),
          "compare reversed/world %d", res);
    CHECK_RC(MPI_Comm_free(&c));
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED gives MPI_COMM_NULL");
    /* hardware-guided: "mpi_shared_memory" is the node, an unknown
     * resource (or none named) gives MPI_COMM_NULL everywhere */
    MPI_Info info;
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, wr, info, &c));
    CHECK(c != MPI_COMM_NULL, "HW_GUIDED mpi_shared_memory gives the node");
    CHECK_RC(MPI_Comm_size(c, &n));
    CHECK(n == same, "HW_GUIDED node size %d", n);
    CHECK_RC(MPI_Comm_free(&c));
    CHECK_RC(MPI_Info_set(info, "mpi_hw_resource_type", "no-such-resource"));
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, wr, info, &c));
    CHECK(c == MPI_COMM_NULL, "HW_GUIDED with an unknown resource gives MPI_COMM_NULL");
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, wr, MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL, "HW_GUIDED without a resource gives MPI_COMM_NULL");
    /* one node: no strict subset is known; several: the node */
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, wr, info, &c));
    if (same == wn) {
        CHECK(c == MPI_COMM_NULL, "HW_UNGUIDED on one node gives MPI_COMM_NULL");
    } else {
        CHECK(c != MPI_COMM_NULL, "HW_UNGUIDED over several nodes gives the node");
        CHECK_RC(MPI_Comm_size(c, &n));
        CHECK(n == same, "HW_UNGUIDED node size %d", n);
        CHECK_RC(MPI_Comm_free(&c));
    }
    CHECK_RC(MPI_Info_free(&info));
    /* only even ranks get one */
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, wr % 2 ? MPI_UNDEFINED : 0, 0, &c));
    CHECK((c == MPI_COMM_NULL) == (wr % 2 == 1), "undefined color");
    if (c != MPI_COMM_NULL)
        CHECK_RC(MPI_Comm_free(&c));
}

/* Nested: a split of a dup, both alive, messages on both kept apart. */
static void check_nested(int wr, int wn)
{
    MPI_Comm d, s;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CHECK_RC(MPI_Comm_split(d, 0, -wr, &s));
    int a = wr, b = -wr, ga = -1, gb = -1, res;
    int to = (wr + 1) % wn, from = (wr + wn - 1) % wn;
    int sto = (wn - 1 - wr + 1) % wn, sfrom = (wn - 1 - wr + wn - 1) % wn;
    MPI_Request rq[2];
    CHECK_RC(MPI_Irecv(&gb, 1, MPI_INT, sfrom, 0, s, &rq[1]));
    CHECK_RC(MPI_Irecv(&ga, 1, MPI_INT, from, 0, d, &rq[0]));
    CHECK_RC(MPI_Send(&b, 1, MPI_INT, sto, 0, s));
    CHECK_RC(MPI_Send(&a, 1, MPI_INT, to, 0, d));
    CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK(ga == from, "dup message %d want %d", ga, from);
    CHECK(gb == -(wn - 1 - sfrom), "split message %d want %d", gb, -(wn - 1 - sfrom));
    CHECK_RC(MPI_Comm_compare(d, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_CONGRUENT, "dup compare %d", res);
    CHECK_RC(MPI_Comm_compare(d, d, &res));
    CHECK(res == MPI_IDENT, "self compare %d", res);
    CHECK_RC(MPI_Comm_free(&s));
    CHECK_RC(MPI_Comm_free(&d));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wr, wn;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &wn);
    CHECK(wn <= 64, "at most 64 ranks");
    for (int round = 0; round < 3; round++) {   /* blocks and ids are reused */
        check_split(wr, wn, 0);
        check_split(wr, wn, 1);
        check_create(wr, wn);
        check_create_group(wr, wn);
        check_split_type(wr, wn);
        check_nested(wr, wn);
    }
    MPI_Finalize();
    return 0;
}
