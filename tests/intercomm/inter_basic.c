/* Intercommunicators: MPI_Intercomm_create between two groups of WORLD cut
 * three ways (even/odd, the first rank alone, the first two thirds), then
 * sizes and groups, point-to-point both ways (every send mode, wildcards,
 * probe/mprobe, persistent, statuses naming the sender's local rank),
 * MPI_Intercomm_merge with both high orders and a tie, MPI_Comm_dup / split
 * / create on the intercommunicator, MPI_Comm_compare, attributes and
 * names, and 200 create/free rounds (context ids are reused). */
#include <string.h>

#include "inter_common.h"

static void sizes(const struct inter *x)
{
    int n, r, flag;
    CHECK_RC(MPI_Comm_size(x->comm, &n));
    CHECK_RC(MPI_Comm_rank(x->comm, &r));
    CHECK(n == x->size && r == x->rank, "size %d rank %d want %d %d", n, r, x->size, x->rank);
    CHECK_RC(MPI_Comm_remote_size(x->comm, &n));
    CHECK(n == x->rsize, "remote size %d want %d", n, x->rsize);
    CHECK_RC(MPI_Comm_test_inter(x->comm, &flag));
    CHECK(flag, "test_inter false on an intercommunicator");
    CHECK_RC(MPI_Comm_test_inter(x->local, &flag));
    CHECK(!flag, "test_inter true on an intracommunicator");
    MPI_Group wg, rg, lg;
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    CHECK_RC(MPI_Comm_remote_group(x->comm, &rg));
    CHECK_RC(MPI_Comm_group(x->comm, &lg));
    for (int i = 0; i < x->rsize; i++) {
        int w;
        CHECK_RC(MPI_Group_translate_ranks(rg, 1, &i, wg, &w));
        CHECK(w == x->theirs[i], "remote rank %d is world %d want %d", i, w, x->theirs[i]);
    }
    for (int i = 0; i < x->size; i++) {
        int w;
        CHECK_RC(MPI_Group_translate_ranks(lg, 1, &i, wg, &w));
        CHECK(w == x->mine[i], "local rank %d is world %d want %d", i, w, x->mine[i]);
    }
    CHECK_RC(MPI_Group_free(&rg));
    CHECK_RC(MPI_Group_free(&lg));
    CHECK_RC(MPI_Group_free(&wg));
}

/* How many members of a group of n send to remote rank j when member i
 * sends to i % m. */
static int senders_to(int j, int n, int m)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += i % m == j;
    return k;
}

static void p2p(const struct inter *x)
{
    MPI_Comm c = x->comm;
    int n = x->rsize;
    /* every member to every remote member, both ways at once */
    int out[64], in[64];
    MPI_Request rq[128];
    for (int j = 0; j < n; j++) {
        out[j] = wrank * 1000 + j;
        CHECK_RC(MPI_Irecv(&in[j], 1, MPI_INT, j, 5, c, &rq[j]));
    }
    for (int j = 0; j < n; j++)
        CHECK_RC(MPI_Isend(&out[j], 1, MPI_INT, j, 5, c, &rq[n + j]));
    MPI_Status st[128];
    CHECK_RC(MPI_Waitall(2 * n, rq, st));
    for (int j = 0; j < n; j++) {
        CHECK(in[j] == x->theirs[j] * 1000 + x->rank, "from remote %d got %d", j, in[j]);
        CHECK(st[j].MPI_SOURCE == j && st[j].MPI_TAG == 5, "status source %d tag %d",
              st[j].MPI_SOURCE, st[j].MPI_TAG);
    }
    /* A -> B with synchronous sends, B receives with wildcards; then B -> A
     * with Issend, A probes / mprobes */
    for (int dir = 0; dir < 2; dir++) {
        int sender = x->color == dir;
        if (sender) {
            int v = wrank, dst = x->rank % n;
            if (dir == 0) {
                CHECK_RC(MPI_Ssend(&v, 1, MPI_INT, dst, 10 + x->rank, c));
            } else {
                MPI_Request r;
                CHECK_RC(MPI_Issend(&v, 1, MPI_INT, dst, 10 + x->rank, c, &r));
                CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
            }
        } else {
            int k = senders_to(x->rank, n, x->size);
            for (int i = 0; i < k; i++) {
                int v = -1;
                MPI_Status s;
                if (dir == 0) {
                    CHECK_RC(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &s));
                } else if (i % 2 == 0) {
                    int count;
                    CHECK_RC(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &s));
                    CHECK_RC(MPI_Get_count(&s, MPI_INT, &count));
                    CHECK(count == 1, "probe count %d", count);
                    CHECK_RC(MPI_Recv(&v, 1, MPI_INT, s.MPI_SOURCE, s.MPI_TAG, c, &s));
                } else {
                    MPI_Message m;
                    CHECK_RC(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &m, &s));
                    CHECK_RC(MPI_Mrecv(&v, 1, MPI_INT, &m, &s));
                }
                int src = s.MPI_SOURCE;
                CHECK(src >= 0 && src < n && src % x->size == x->rank, "source %d", src);
                CHECK(v == x->theirs[src] && s.MPI_TAG == 10 + src, "got %d tag %d from %d", v,
                      s.MPI_TAG, src);
            }
        }
    }
    /* The receives above take any tag, so the tag-3 message below must not
     * reach a rank still receiving: remote rank 0 leaves the loop as soon as
     * its own Issend matched, while other remote ranks' messages to the same
     * receiver may still be in flight. */
    CHECK_RC(MPI_Barrier(c));
    /* persistent: remote rank 0 of each side talks to the other's rank 0,
     * rendezvous-sized, and a send to MPI_PROC_NULL */
    if (x->rank == 0) {
        enum { BIG = 50000 };
        static int big[BIG], got[BIG];
        for (int i = 0; i < BIG; i++)
            big[i] = wrank + i;
        MPI_Request r[3];
        CHECK_RC(MPI_Recv_init(got, BIG, MPI_INT, 0, 3, c, &r[0]));
        CHECK_RC(MPI_Send_init(big, BIG, MPI_INT, 0, 3, c, &r[1]));
        CHECK_RC(MPI_Send_init(big, 1, MPI_INT, MPI_PROC_NULL, 3, c, &r[2]));
        for (int round = 0; round < 2; round++) {
            CHECK_RC(MPI_Startall(3, r));
            MPI_Status s[3];
            CHECK_RC(MPI_Waitall(3, r, s));
            CHECK(got[BIG - 1] == x->theirs[0] + BIG - 1 && s[0].MPI_SOURCE == 0, "persistent");
        }
        for (int i = 0; i < 3; i++)
            CHECK_RC(MPI_Request_free(&r[i]));
        /* sendrecv between the two leaders */
        int a = wrank, b = -1;
        CHECK_RC(MPI_Sendrecv(&a, 1, MPI_INT, 0, 4, &b, 1, MPI_INT, 0, 4, c, MPI_STATUS_IGNORE));
        CHECK(b == x->theirs[0], "sendrecv got %d", b);
    }
}

/* Merging: A and B ordered by `high`, checked by rank and by use. */
static void merge(const struct inter *x)
{
    for (int how = 0; how < 3; how++) {
        /* 0: B high, 1: A high, 2: both low (the group of world rank 0
         * first, this library's tie rule) */
        int high = how == 0 ? x->color == 1 : how == 1 ? x->color == 0 : 0;
        MPI_Comm m;
        CHECK_RC(MPI_Intercomm_merge(x->comm, high, &m));
        int r, n, flag;
        CHECK_RC(MPI_Comm_rank(m, &r));
        CHECK_RC(MPI_Comm_size(m, &n));
        CHECK_RC(MPI_Comm_test_inter(m, &flag));
        int a_first = how != 1;   /* world rank 0 is in A in every scheme */
        int mine_first = a_first == (x->color == 0);
        int want = mine_first ? x->rank : x->rsize + x->rank;
        CHECK(!flag && n == wsize && r == want, "merge %d: rank %d size %d want %d", how, r, n,
              want);
        int sum = 0, w = wrank;
        CHECK_RC(MPI_Allreduce(&w, &sum, 1, MPI_INT, MPI_SUM, m));
        CHECK(sum == wsize * (wsize - 1) / 2, "merged allreduce %d", sum);
        CHECK_RC(MPI_Comm_free(&m));
    }
}

static int copies;
static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)key, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void dup_compare(const struct inter *x)
{
    int key, res;
    CHECK_RC(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    CHECK_RC(MPI_Comm_set_attr(x->comm, key, (void *)(long)4242));
    CHECK_RC(MPI_Comm_set_name(x->comm, "inter"));
    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(x->comm, &d));
    void *v;
    int flag;
    CHECK_RC(MPI_Comm_get_attr(d, key, &v, &flag));
    CHECK(flag && (long)v == 4242 && copies == 1, "dup attribute");
    CHECK_RC(MPI_Comm_test_inter(d, &flag));
    CHECK(flag, "dup of an intercommunicator is not one");
    CHECK_RC(MPI_Comm_compare(x->comm, d, &res));
    CHECK(res == MPI_CONGRUENT, "compare(inter, dup) %d", res);
    CHECK_RC(MPI_Comm_compare(x->comm, x->comm, &res));
    CHECK(res == MPI_IDENT, "compare(inter, inter) %d", res);
    CHECK_RC(MPI_Comm_compare(x->comm, x->local, &res));
    CHECK(res == MPI_UNEQUAL, "compare(inter, local) %d", res);
    /* messages on the duplicate do not match the original's: everyone
     * sends on the duplicate first, remote rank 0 receives on both */
    int a = 1, b = 2, ga[64], gb[64];
    MPI_Request r[128], sr[2];
    if (x->rank == 0)
        for (int i = 0; i < x->rsize; i++) {
            CHECK_RC(MPI_Irecv(&ga[i], 1, MPI_INT, i, 9, x->comm, &r[2 * i]));
            CHECK_RC(MPI_Irecv(&gb[i], 1, MPI_INT, i, 9, d, &r[2 * i + 1]));
        }
    CHECK_RC(MPI_Isend(&b, 1, MPI_INT, 0, 9, d, &sr[0]));
    CHECK_RC(MPI_Isend(&a, 1, MPI_INT, 0, 9, x->comm, &sr[1]));
    CHECK_RC(MPI_Waitall(2, sr, MPI_STATUSES_IGNORE));
    if (x->rank == 0) {
        CHECK_RC(MPI_Waitall(2 * x->rsize, r, MPI_STATUSES_IGNORE));
        for (int i = 0; i < x->rsize; i++)
            CHECK(ga[i] == 1 && gb[i] == 2, "dup traffic crossed: %d %d", ga[i], gb[i]);
    }
    MPI_Comm d2;
    CHECK_RC(MPI_Comm_dup_with_info(d, MPI_INFO_NULL, &d2));
    CHECK_RC(MPI_Comm_compare(d, d2, &res));
    CHECK(res == MPI_CONGRUENT, "compare(dup, dup_with_info) %d", res);
    CHECK_RC(MPI_Barrier(d2));
    CHECK_RC(MPI_Comm_free(&d2));
    CHECK_RC(MPI_Comm_free(&d));
    CHECK_RC(MPI_Comm_delete_attr(x->comm, key));
    CHECK_RC(MPI_Comm_free_keyval(&key));
    copies = 0;
}

/* A new intercommunicator from split / create, with local group members
 * `lm` (world ranks) and remote `rm`; checked by size and traffic. */
static void check_sub(MPI_Comm c, const int *lm, int ln, const int *rm, int rn)
{
    int n, r, flag;
    CHECK_RC(MPI_Comm_test_inter(c, &flag));
    CHECK(flag, "not an intercommunicator");
    CHECK_RC(MPI_Comm_size(c, &n));
    CHECK_RC(MPI_Comm_rank(c, &r));
    CHECK(n == ln && lm[r] == wrank, "local size %d rank %d", n, r);
    CHECK_RC(MPI_Comm_remote_size(c, &n));
    CHECK(n == rn, "remote size %d want %d", n, rn);
    /* the remote members' world ranks, via an allgather over it */
    int got[64];
    CHECK_RC(MPI_Allgather(&wrank, 1, MPI_INT, got, 1, MPI_INT, c));
    for (int i = 0; i < rn; i++)
        CHECK(got[i] == rm[i], "remote %d is world %d want %d", i, got[i], rm[i]);
}

/* MPI_Group_compare's answer for two lists of distinct world ranks. */
static int cmp_lists(const int *a, int na, const int *b, int nb)
{
    if (na != nb)
        return MPI_UNEQUAL;
    int same = 1;
    for (int i = 0; i < na; i++) {
        int found = 0;
        for (int j = 0; j < nb; j++)
            found |= a[i] == b[j];
        if (!found)
            return MPI_UNEQUAL;
        same &= a[i] == b[i];
    }
    return same ? MPI_IDENT : MPI_SIMILAR;
}

static void split_create(const struct inter *x)
{
    /* split: parity of the local rank, reversed order */
    int lm[64], rm[64], ln = 0, rn = 0, par = x->rank % 2;
    for (int i = x->size - 1; i >= 0; i--)
        if (i % 2 == par)
            lm[ln++] = x->mine[i];
    for (int i = x->rsize - 1; i >= 0; i--)
        if (i % 2 == par)
            rm[rn++] = x->theirs[i];
    MPI_Comm s;
    CHECK_RC(MPI_Comm_split(x->comm, par, -x->rank, &s));
    if (rn == 0) {
        CHECK(s == MPI_COMM_NULL, "split with an empty remote side is not MPI_COMM_NULL");
    } else {
        check_sub(s, lm, ln, rm, rn);
        int res, l = cmp_lists(lm, ln, x->mine, x->size), r = cmp_lists(rm, rn, x->theirs, x->rsize);
        int want = l == MPI_UNEQUAL || r == MPI_UNEQUAL     ? MPI_UNEQUAL
                   : l == MPI_IDENT && r == MPI_IDENT ? MPI_CONGRUENT
                                                      : MPI_SIMILAR;
        CHECK_RC(MPI_Comm_compare(x->comm, s, &res));
        CHECK(res == want, "compare(inter, split) %d want %d", res, want);
        CHECK_RC(MPI_Comm_free(&s));
    }
    /* MPI_UNDEFINED on rank 0 of each side */
    CHECK_RC(MPI_Comm_split(x->comm, x->rank == 0 ? MPI_UNDEFINED : 1, 0, &s));
    if (x->rank == 0 || x->rsize == 1) {
        CHECK(s == MPI_COMM_NULL, "undefined color gave a communicator");
    } else {
        check_sub(s, x->mine + 1, x->size - 1, x->theirs + 1, x->rsize - 1);
        CHECK_RC(MPI_Comm_free(&s));
    }
    /* create: the first half (rounded up) of each group */
    MPI_Group g, h;
    CHECK_RC(MPI_Comm_group(x->comm, &g));
    int range[1][3] = { { 0, (x->size + 1) / 2 - 1, 1 } };
    CHECK_RC(MPI_Group_range_incl(g, 1, range, &h));
    CHECK_RC(MPI_Comm_create(x->comm, h, &s));
    if (x->rank >= (x->size + 1) / 2) {
        CHECK(s == MPI_COMM_NULL, "non-member got a communicator from create");
    } else {
        check_sub(s, x->mine, (x->size + 1) / 2, x->theirs, (x->rsize + 1) / 2);
        CHECK_RC(MPI_Comm_free(&s));
    }
    CHECK_RC(MPI_Group_free(&h));
    /* create with an empty group on side B: MPI_COMM_NULL everywhere */
    CHECK_RC(MPI_Comm_create(x->comm, x->color ? MPI_GROUP_EMPTY : g, &s));
    CHECK(s == MPI_COMM_NULL, "create with an empty side gave a communicator");
    CHECK_RC(MPI_Group_free(&g));
}

/* Context ids come back: many more rounds than there are ids per rank
 * would exhaust them otherwise (and control blocks are not used). */
static void loops(int s)
{
    for (int i = 0; i < 200; i++) {
        struct inter x;
        x.color = color_of(s, wrank);
        x.size = members(s, x.color, x.mine);
        x.rsize = members(s, !x.color, x.theirs);
        if (i == 0)
            CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, x.color, wrank, &x.local));
        static MPI_Comm keep;
        if (i == 0)
            keep = x.local;
        CHECK_RC(MPI_Intercomm_create(keep, 0, MPI_COMM_WORLD, x.theirs[0], i % 100, &x.comm));
        MPI_Comm d;
        CHECK_RC(MPI_Comm_dup(x.comm, &d));
        CHECK_RC(MPI_Comm_free(&x.comm));
        if (i % 20 == 0) {
            int v = wrank, sum = -1;
            CHECK_RC(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, d));
            int want = 0;
            for (int j = 0; j < x.rsize; j++)
                want += x.theirs[j];
            CHECK(sum == want, "round %d allreduce %d want %d", i, sum, want);
        }
        CHECK_RC(MPI_Comm_free(&d));
        if (i == 199)
            CHECK_RC(MPI_Comm_free(&keep));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    CHECK(wsize >= 2 && wsize <= 64, "needs 2..64 ranks");
    for (int s = 0; s < NSCHEMES; s++) {
        struct inter x;
        inter_make(s, &x);
        sizes(&x);
        p2p(&x);
        merge(&x);
        dup_compare(&x);
        split_create(&x);
        inter_free(&x);
        loops(s);
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (wrank == 0)
        printf("inter_basic: %d ranks OK\n", wsize);
    MPI_Finalize();
    return 0;
}
