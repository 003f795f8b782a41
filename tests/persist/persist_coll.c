/* Persistent collectives (MPI 4.0): every MPI_*_init, started many times
 * with new data each time (MPI_Start, MPI_Startall; completed by Wait,
 * Waitall, Test loops), results checked against serial formulas; the
 * inactive-request semantics (Wait/Test of an inactive request, Start of an
 * active one is an error, Request_free of an inactive one); a rank that
 * completes by testing only while its peer blocks in a receive; starts
 * interleaved with non-blocking collectives; a datatype freed after init;
 * intercommunicators; neighbourhood collectives on a ring. */
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

static int me, np;
enum { REPS = 3, LEN = 33 };

static void start_wait(MPI_Request *r, int how)
{
    if (how == 0) {
        CHECK_RC(MPI_Start(r));
        MPI_Status st;
        CHECK_RC(MPI_Wait(r, &st));
    } else if (how == 1) {
        CHECK_RC(MPI_Startall(1, r));
        CHECK_RC(MPI_Waitall(1, r, MPI_STATUSES_IGNORE));
    } else {
        CHECK_RC(MPI_Start(r));
        int flag = 0;
        while (!flag)
            CHECK_RC(MPI_Test(r, &flag, MPI_STATUS_IGNORE));
    }
    CHECK(*r != MPI_REQUEST_NULL, "a persistent request must stay allocated");
}

static void free_req(MPI_Request *r)
{
    CHECK_RC(MPI_Request_free(r));
    CHECK(*r == MPI_REQUEST_NULL, "Request_free leaves the handle");
}

static void rooted(MPI_Comm comm)
{
    int root = np - 1;
    int buf[LEN] = {0}, sb[LEN] = {0}, rb[LEN * 8 + 8] = {0}, rbig[LEN * 8] = {0};
    MPI_Request r;

    CHECK_RC(MPI_Barrier_init(comm, MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++)
        start_wait(&r, k);
    free_req(&r);

    CHECK_RC(MPI_Bcast_init(buf, LEN, MPI_INT, root, comm, MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        for (int e = 0; e < LEN; e++)
            buf[e] = me == root ? k * 1000 + e : -1;
        start_wait(&r, k);
        for (int e = 0; e < LEN; e++)
            CHECK(buf[e] == k * 1000 + e, "bcast rep %d elem %d: %d", k, e, buf[e]);
    }
    free_req(&r);

    CHECK_RC(MPI_Bcast_init_c(buf, (MPI_Count)LEN, MPI_INT, 0, comm, MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        for (int e = 0; e < LEN; e++)
            buf[e] = me == 0 ? k * 7 + e : -1;
        start_wait(&r, k);
        CHECK(buf[LEN - 1] == k * 7 + LEN - 1, "bcast_c rep %d: %d", k, buf[LEN - 1]);
    }
    free_req(&r);

    CHECK_RC(MPI_Reduce_init(sb, rb, LEN, MPI_INT, MPI_SUM, root, comm, MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        for (int e = 0; e < LEN; e++)
            sb[e] = me * k + e;
        start_wait(&r, k);
        if (me == root)
            for (int e = 0; e < LEN; e++)
                CHECK(rb[e] == k * np * (np - 1) / 2 + np * e, "reduce rep %d elem %d: %d", k,
                      e, rb[e]);
    }
    free_req(&r);

    CHECK_RC(MPI_Gather_init(sb, 2, MPI_INT, rb, 2, MPI_INT, root, comm, MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        sb[0] = me + k;
        sb[1] = -me - k;
        start_wait(&r, k);
        if (me == root)
            for (int j = 0; j < np; j++)
                CHECK(rb[2 * j] == j + k && rb[2 * j + 1] == -j - k, "gather rep %d from %d", k,
                      j);
    }
    free_req(&r);

    int counts[8], displs[8];
    for (int j = 0; j < np; j++) {
        counts[j] = j + 1;
        displs[j] = j * 8;
    }
    CHECK_RC(MPI_Gatherv_init(sb, me + 1, MPI_INT, rb, counts, displs, MPI_INT, root, comm,
                              MPI_INFO_NULL, &r));
    memset(counts, 0, sizeof counts);   /* the arrays were read at init */
    for (int k = 0; k < REPS; k++) {
        for (int e = 0; e <= me; e++)
            sb[e] = 100 * me + e + k;
        start_wait(&r, k);
        if (me == root)
            for (int j = 0; j < np; j++)
                for (int e = 0; e <= j; e++)
                    CHECK(rb[j * 8 + e] == 100 * j + e + k, "gatherv rep %d from %d", k, j);
    }
    free_req(&r);

    CHECK_RC(MPI_Scatter_init(sb, 1, MPI_INT, buf, 1, MPI_INT, root, comm, MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        if (me == root)
            for (int j = 0; j < np; j++)
                sb[j] = j * 3 + k;
        start_wait(&r, k);
        CHECK(buf[0] == me * 3 + k, "scatter rep %d: %d", k, buf[0]);
    }
    free_req(&r);

    MPI_Count ccounts[8];
    MPI_Aint cdispls[8];
    for (int j = 0; j < np; j++) {
        ccounts[j] = 2;
        cdispls[j] = 4 * j;
    }
    CHECK_RC(MPI_Scatterv_init_c(rbig, ccounts, cdispls, MPI_INT, buf, 2, MPI_INT, 0, comm,
                                 MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        if (me == 0)
            for (int j = 0; j < np; j++) {
                rbig[4 * j] = j + k;
                rbig[4 * j + 1] = j - k;
            }
        start_wait(&r, k);
        CHECK(buf[0] == me + k && buf[1] == me - k, "scatterv_c rep %d", k);
    }
    free_req(&r);
}

static void unrooted(MPI_Comm comm)
{
    int sb[LEN * 8] = {0}, rb[LEN * 8] = {0};
    MPI_Request r;

    CHECK_RC(MPI_Allreduce_init(sb, rb, LEN, MPI_INT, MPI_MAX, comm, MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        for (int e = 0; e < LEN; e++)
            sb[e] = me * e + k;
        start_wait(&r, k);
        for (int e = 0; e < LEN; e++)
            CHECK(rb[e] == (np - 1) * e + k, "allreduce rep %d elem %d: %d", k, e, rb[e]);
    }
    free_req(&r);

    /* in place, large-count binding */
    CHECK_RC(MPI_Allreduce_init_c(MPI_IN_PLACE, rb, 4, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        for (int e = 0; e < 4; e++)
            rb[e] = me + e + k;
        start_wait(&r, k);
        for (int e = 0; e < 4; e++)
            CHECK(rb[e] == np * (np - 1) / 2 + np * (e + k), "allreduce_c in place rep %d", k);
    }
    free_req(&r);

    CHECK_RC(MPI_Scan_init(sb, rb, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        sb[0] = me + k;
        start_wait(&r, k);
        CHECK(rb[0] == me * (me + 1) / 2 + (me + 1) * k, "scan rep %d: %d", k, rb[0]);
    }
    free_req(&r);

    CHECK_RC(MPI_Exscan_init(sb, rb, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        sb[0] = me + k;
        rb[0] = -7;
        start_wait(&r, k);
        if (me > 0)
            CHECK(rb[0] == (me - 1) * me / 2 + me * k, "exscan rep %d: %d", k, rb[0]);
    }
    free_req(&r);

    CHECK_RC(MPI_Allgather_init(sb, 1, MPI_INT, rb, 1, MPI_INT, comm, MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        sb[0] = me * 10 + k;
        start_wait(&r, k);
        for (int j = 0; j < np; j++)
            CHECK(rb[j] == j * 10 + k, "allgather rep %d from %d: %d", k, j, rb[j]);
    }
    free_req(&r);

    int counts[8], displs[8];
    for (int j = 0; j < np; j++) {
        counts[j] = 1 + j % 2;
        displs[j] = 3 * j;
    }
    CHECK_RC(MPI_Allgatherv_init(sb, 1 + me % 2, MPI_INT, rb, counts, displs, MPI_INT, comm,
                                 MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        sb[0] = me + k;
        sb[1] = me - k;
        start_wait(&r, k);
        for (int j = 0; j < np; j++)
            CHECK(rb[3 * j] == j + k && (j % 2 == 0 || rb[3 * j + 1] == j - k),
                  "allgatherv rep %d from %d", k, j);
    }
    free_req(&r);

    CHECK_RC(MPI_Alltoall_init(sb, 1, MPI_INT, rb, 1, MPI_INT, comm, MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        for (int j = 0; j < np; j++)
            sb[j] = me * 100 + j + k;
        start_wait(&r, k);
        for (int j = 0; j < np; j++)
            CHECK(rb[j] == j * 100 + me + k, "alltoall rep %d from %d: %d", k, j, rb[j]);
    }
    free_req(&r);

    int sc[8], sd[8], rc[8], rd[8];
    for (int j = 0; j < np; j++) {
        sc[j] = rc[j] = 2;
        sd[j] = rd[j] = 2 * j;
    }
    CHECK_RC(MPI_Alltoallv_init(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm, MPI_INFO_NULL,
                                &r));
    for (int k = 0; k < REPS; k++) {
        for (int j = 0; j < np; j++) {
            sb[2 * j] = me + j + k;
            sb[2 * j + 1] = me - j;
        }
        start_wait(&r, k);
        for (int j = 0; j < np; j++)
            CHECK(rb[2 * j] == j + me + k && rb[2 * j + 1] == j - me, "alltoallv rep %d", k);
    }
    free_req(&r);

    MPI_Datatype st[8], rt[8];
    int wsd[8], wrd[8], one[8];
    for (int j = 0; j < np; j++) {
        st[j] = rt[j] = MPI_INT;
        wsd[j] = wrd[j] = (int)(j * sizeof(int));
        one[j] = 1;
    }
    CHECK_RC(MPI_Alltoallw_init(sb, one, wsd, st, rb, one, wrd, rt, comm, MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        for (int j = 0; j < np; j++)
            sb[j] = me * 7 + j * k;
        start_wait(&r, k);
        for (int j = 0; j < np; j++)
            CHECK(rb[j] == j * 7 + me * k, "alltoallw rep %d from %d", k, j);
    }
    free_req(&r);

    for (int j = 0; j < np; j++)
        counts[j] = 2;
    CHECK_RC(MPI_Reduce_scatter_init(sb, rb, counts, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        for (int e = 0; e < 2 * np; e++)
            sb[e] = e + me * k;
        start_wait(&r, k);
        for (int e = 0; e < 2; e++)
            CHECK(rb[e] == np * (2 * me + e) + k * np * (np - 1) / 2, "reduce_scatter rep %d",
                  k);
    }
    free_req(&r);

    CHECK_RC(MPI_Reduce_scatter_block_init_c(sb, rb, 1, MPI_INT, MPI_PROD, comm, MPI_INFO_NULL,
                                             &r));
    for (int k = 0; k < REPS; k++) {
        for (int e = 0; e < np; e++)
            sb[e] = e == me ? k + 2 : 1;
        start_wait(&r, k);
        CHECK(rb[0] == k + 2, "reduce_scatter_block_c rep %d: %d", k, rb[0]);
    }
    free_req(&r);
}

/* Inactive after completion: Wait/Test on it return at once with an empty
 * status; starting an active one is an error; an inactive one is freed. */
static void semantics(MPI_Comm comm)
{
    int x = me, y = 0;
    MPI_Request r[2];
    CHECK_RC(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r[0]));
    MPI_Status st;
    st.MPI_TAG = 99;
    CHECK_RC(MPI_Wait(&r[0], &st));   /* never started: inactive */
    CHECK(r[0] != MPI_REQUEST_NULL && st.MPI_TAG == MPI_ANY_TAG, "Wait of an inactive request");
    int flag = 0;
    CHECK_RC(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
    CHECK(flag, "Test of an inactive request says complete");
    CHECK_RC(MPI_Start(&r[0]));
    int rc = MPI_Start(&r[0]);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_REQUEST, "Start of an active persistent collective: class %d", cls);
    rc = MPI_Cancel(&r[0]);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_REQUEST, "Cancel of a persistent collective: class %d", cls);
    CHECK_RC(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK(y == np * (np - 1) / 2, "allreduce %d", y);

    /* two persistent collectives started together, completed in reverse */
    int a = me + 1, b = 0, c[8];
    CHECK_RC(MPI_Allgather_init(&a, 1, MPI_INT, c, 1, MPI_INT, comm, MPI_INFO_NULL, &r[1]));
    for (int k = 0; k < REPS; k++) {
        x = me + k;
        a = me + 2 * k;
        CHECK_RC(MPI_Startall(2, r));
        /* a non-blocking collective between them on every rank */
        MPI_Request nb;
        CHECK_RC(MPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_MAX, comm, &nb));
        CHECK_RC(MPI_Wait(&nb, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        CHECK(b == np - 1 + 2 * k, "iallreduce between: %d", b);
        CHECK(y == np * (np - 1) / 2 + np * k, "startall allreduce rep %d: %d", k, y);
        for (int j = 0; j < np; j++)
            CHECK(c[j] == j + 2 * k, "startall allgather rep %d", k);
    }
    free_req(&r[0]);
    free_req(&r[1]);

    /* a derived type freed after init: the request keeps it */
    MPI_Datatype pair;
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_RC(MPI_Type_commit(&pair));
    int pb[2];
    CHECK_RC(MPI_Bcast_init(pb, 1, pair, 0, comm, MPI_INFO_NULL, &r[0]));
    CHECK_RC(MPI_Type_free(&pair));
    for (int k = 0; k < REPS; k++) {
        pb[0] = me == 0 ? k : -1;
        pb[1] = me == 0 ? -k : -1;
        start_wait(&r[0], 0);
        CHECK(pb[0] == k && pb[1] == -k, "bcast of a freed type rep %d", k);
    }
    free_req(&r[0]);

    /* bad arguments */
    rc = MPI_Bcast_init(pb, 1, MPI_INT, np, comm, MPI_INFO_NULL, &r[0]);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ROOT, "Bcast_init with a bad root: class %d", cls);
    rc = MPI_Barrier_init(comm, MPI_INFO_NULL, NULL);
    CHECK(rc != MPI_SUCCESS, "Barrier_init with a NULL request");
    rc = MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_OP_NULL, comm, MPI_INFO_NULL, &r[0]);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OP, "Allreduce_init with MPI_OP_NULL: class %d", cls);
    MPI_Info info;
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Barrier_init(comm, info, &r[0]));   /* a valid info is accepted */
    CHECK_RC(MPI_Info_free(&info));
    start_wait(&r[0], 2);
    free_req(&r[0]);
    CHECK_RC(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
}

/* Progress: rank 0 completes the collective by testing only, then sends to
 * rank 1, which waits in MPI_Recv for that message before it ever waits
 * on the collective.  A Start that ran a blocking algorithm, or one that
 * progressed only in Wait, would hang here. */
static void progress(MPI_Comm comm)
{
    if (np < 2)
        return;
    int v[LEN];
    MPI_Request r;
    CHECK_RC(MPI_Bcast_init(v, LEN, MPI_INT, 0, comm, MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        for (int e = 0; e < LEN; e++)
            v[e] = me == 0 ? e + k : -1;
        CHECK_RC(MPI_Start(&r));
        int token = -1;
        if (me == 0) {
            int flag = 0;
            while (!flag)
                CHECK_RC(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            token = 42 + k;
            CHECK_RC(MPI_Send(&token, 1, MPI_INT, 1, 5, comm));
        } else if (me == 1) {
            CHECK_RC(MPI_Recv(&token, 1, MPI_INT, 0, 5, comm, MPI_STATUS_IGNORE));
            CHECK(token == 42 + k, "token %d", token);
            CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
            CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        for (int e = 0; e < LEN; e++)
            CHECK(v[e] == e + k, "bcast under progress rep %d", k);
    }
    free_req(&r);
}

static void inter(void)
{
    if (np < 2)
        return;
    MPI_Comm half, ic;
    int color = me % 2;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, color, me, &half));
    CHECK_RC(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 7, &ic));
    int rsize;
    CHECK_RC(MPI_Comm_remote_size(ic, &rsize));
    int lrank;
    CHECK_RC(MPI_Comm_rank(ic, &lrank));
    int x, sum = 0, v = 0;
    MPI_Request r[2];
    CHECK_RC(MPI_Allreduce_init(&x, &sum, 1, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &r[0]));
    /* group 0's rank 0 broadcasts to group 1 */
    int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    CHECK_RC(MPI_Bcast_init(&v, 1, MPI_INT, root, ic, MPI_INFO_NULL, &r[1]));
    for (int k = 0; k < REPS; k++) {
        x = me + k;
        v = root == MPI_ROOT ? 500 + k : -1;
        CHECK_RC(MPI_Startall(2, r));
        CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        /* the sum over the remote group: world ranks of the other colour */
        int want = 0;
        for (int j = 0; j < np; j++)
            if (j % 2 != color)
                want += j + k;
        CHECK(sum == want, "inter allreduce rep %d: %d, expected %d", k, sum, want);
        if (color == 1)
            CHECK(v == 500 + k, "inter bcast rep %d: %d", k, v);
    }
    free_req(&r[0]);
    free_req(&r[1]);
    CHECK_RC(MPI_Comm_free(&ic));
    CHECK_RC(MPI_Comm_free(&half));
}

static void neighbors(void)
{
    MPI_Comm ring;
    int dims[1] = {np}, periods[1] = {1};
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    int left = (me - 1 + np) % np, right = (me + 1) % np;
    int sb[2] = {0}, rb[2] = {0};
    MPI_Request r[4];
    CHECK_RC(MPI_Neighbor_allgather_init(sb, 1, MPI_INT, rb, 1, MPI_INT, ring, MPI_INFO_NULL,
                                         &r[0]));
    int rb2[2];
    CHECK_RC(MPI_Neighbor_alltoall_init_c(sb, 1, MPI_INT, rb2, 1, MPI_INT, ring, MPI_INFO_NULL,
                                          &r[1]));
    int cnt[2] = {1, 1}, dsp[2] = {0, 1};
    int rb3[2];
    CHECK_RC(MPI_Neighbor_alltoallv_init(sb, cnt, dsp, MPI_INT, rb3, cnt, dsp, MPI_INT, ring,
                                         MPI_INFO_NULL, &r[2]));
    MPI_Aint wd[2] = {0, sizeof(int)};
    MPI_Datatype wt[2] = {MPI_INT, MPI_INT};
    int rb4[2];
    CHECK_RC(MPI_Neighbor_alltoallw_init(sb, cnt, wd, wt, rb4, cnt, wd, wt, ring, MPI_INFO_NULL,
                                         &r[3]));
    for (int k = 0; k < REPS; k++) {
        sb[0] = me * 10 + k;       /* to the left */
        sb[1] = me * 10 + k + 1;   /* to the right */
        CHECK_RC(MPI_Startall(4, r));
        CHECK_RC(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
        /* allgather: sb[0] from each neighbour (left first, then right) */
        CHECK(rb[0] == left * 10 + k && rb[1] == right * 10 + k, "neighbor_allgather rep %d", k);
        /* alltoall: the left neighbour's block for its right, and back */
        CHECK(rb2[0] == left * 10 + k + 1 && rb2[1] == right * 10 + k,
              "neighbor_alltoall rep %d: %d %d", k, rb2[0], rb2[1]);
        CHECK(rb3[0] == rb2[0] && rb3[1] == rb2[1], "neighbor_alltoallv rep %d", k);
        CHECK(rb4[0] == rb2[0] && rb4[1] == rb2[1], "neighbor_alltoallw rep %d", k);
    }
    for (int i = 0; i < 4; i++)
        free_req(&r[i]);
    CHECK_RC(MPI_Comm_free(&ring));
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &np));
    CHECK(np <= 8, "at most 8 ranks");
    rooted(MPI_COMM_WORLD);
    unrooted(MPI_COMM_WORLD);
    semantics(MPI_COMM_WORLD);
    progress(MPI_COMM_WORLD);
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    unrooted(dup);
    CHECK_RC(MPI_Comm_free(&dup));
    inter();
    neighbors();
    CHECK_RC(MPI_Finalize());
    return 0;
}
