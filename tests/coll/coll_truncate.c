/* Mismatched counts in the collectives, with MPI_ERRORS_RETURN (issue 36,
 * DESIGN.md D18): a rank that would receive more data than its buffer
 * holds gets MPI_ERR_TRUNCATE, no rank hangs (ctest's TIMEOUT), no error
 * code has class MPI_SUCCESS, and a correct collective right after each
 * erroneous one still works (the communicator stays usable).  Ranks that
 * lose nothing may return MPI_SUCCESS or an error.
 *
 * Every moving collective and the reductions, at sizes that cross the
 * control blocks' paths (cell, wide lines, payload, direct pulls, the
 * gather and scatter pushes) and put the two sides on different ones,
 * and with count 0 on one side.  Argument "fallback": on a communicator
 * without a control block (created after the slots ran out), which runs
 * the collectives as schedules over point-to-point.  Argument "reduce":
 * only the reductions (replicated, threaded, the two sides on different
 * ones).  Argument
 * "rootargs": argument errors only the root sees (the v-variants' counts,
 * a gather's receive side, a scatter's send side).  Argument
 * "mix": only Bcast and Alltoall, at every size (the two sides on
 * different paths: cell, wide lines, payload, xfer.c).  Argument
 * "diverge": ranks that call different collectives (the job must stop:
 * coll_truncate_stop.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

static int me, np, reduce_only, mix_only;

/* rc must be MPI_ERR_TRUNCATE when `loses`, else success or an error whose
 * class is not MPI_SUCCESS. */
static void expect(const char *what, int n, int rc, int loses)
{
    int cls = MPI_SUCCESS;
    if (getenv("COLL_TRUNCATE_VERBOSE"))
        fprintf(stderr, "rank %d: %s (%d) returned %d\n", me, what, n, rc);
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        char s[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, s, &len);
        CHECK(cls != MPI_SUCCESS, "%s (%d) returned code %d of class MPI_SUCCESS: %s", what, n,
              rc, s);
    }
    if (loses && getenv("COLL_TRUNCATE_SURVEY")) {
        if (cls != MPI_ERR_TRUNCATE)
            fprintf(stderr, "SURVEY rank %d %s (%d): class %d\n", me, what, n, cls);
        return;
    }
    if (loses)
        CHECK(cls == MPI_ERR_TRUNCATE, "%s (%d): rank %d loses data, got class %d, want %d", what,
              n, me, cls, MPI_ERR_TRUNCATE);
}

/* A correct collective after the erroneous one: the communicator still works. */
static void still_works(MPI_Comm comm, const char *what, int n)
{
    int v = me + 1, sum = 0;
    int rc = MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comm);
    CHECK(rc == MPI_SUCCESS && sum == np * (np + 1) / 2,
          "allreduce after %s (%d): rc %d sum %d", what, n, rc, sum);
    int b[64];
    for (int i = 0; i < 64; i++)
        b[i] = me == 0 ? 1000 + i : -1;
    rc = MPI_Bcast(b, 64, MPI_INT, 0, comm);
    CHECK(rc == MPI_SUCCESS && b[63] == 1063, "bcast after %s (%d): rc %d", what, n, rc);
}

static int *ibuf(size_t n)
{
    int *p = malloc((n ? n : 1) * sizeof(int));
    CHECK(p != NULL, "malloc");
    for (size_t i = 0; i < n; i++)
        p[i] = me * 1000003 + (int)i;
    return p;
}

/* Counts in ints: "big" is sent, "small" is what the losing side posts. */
static void run(MPI_Comm comm, int big, int small)
{
    int root = np - 1, rc;
    int *s = ibuf((size_t)big * np), *r = ibuf((size_t)big * np);
    int *counts = malloc(sizeof(int) * np), *displs = malloc(sizeof(int) * np);
    for (int i = 0; i < np; i++)
        counts[i] = small, displs[i] = i * big;

    int c = me == 0 ? small : big;
    if (reduce_only)
        goto reductions;
    if (mix_only)
        goto mix;
    /* Gather: the root posts `small` per rank, the others send `big`. */
    rc = MPI_Gather(s, me == root ? small : big, MPI_INT, r, small, MPI_INT, root, comm);
    expect("Gather", big, rc, me == root);
    still_works(comm, "Gather", big);

    rc = MPI_Gatherv(s, me == root ? small : big, MPI_INT, r, counts, displs, MPI_INT, root, comm);
    expect("Gatherv", big, rc, me == root);
    still_works(comm, "Gatherv", big);

    /* Scatter: the root sends `big` to each, the others post `small`. */
    rc = MPI_Scatter(s, big, MPI_INT, r, me == root ? big : small, MPI_INT, root, comm);
    expect("Scatter", big, rc, me != root);
    still_works(comm, "Scatter", big);

    /* Bcast: the others post fewer elements than the root sends. */
mix:
    rc = MPI_Bcast(r, me == root ? big : small, MPI_INT, root, comm);
    expect("Bcast", big, rc, me != root);
    still_works(comm, "Bcast", big);

    /* Allgather / Alltoall: rank 0 sends and expects `small`, the others
     * `big`: rank 0 loses the others' blocks. */
    if (!mix_only) {
        rc = MPI_Allgather(s, c, MPI_INT, r, c, MPI_INT, comm);
        expect("Allgather", big, rc, me == 0);
        still_works(comm, "Allgather", big);
    }

    rc = MPI_Alltoall(s, c, MPI_INT, r, c, MPI_INT, comm);
    expect("Alltoall", big, rc, me == 0);
    still_works(comm, "Alltoall", big);
    if (mix_only)
        goto out;

reductions:
    /* Reductions with counts that differ: the smaller side loses. */
    rc = MPI_Allreduce(s, r, c, MPI_INT, MPI_SUM, comm);
    expect("Allreduce", big, rc, me == 0);
    still_works(comm, "Allreduce", big);

    rc = MPI_Reduce(s, r, me == root ? small : big, MPI_INT, MPI_SUM, root, comm);
    expect("Reduce", big, rc, me == root);
    still_works(comm, "Reduce", big);

out:
    free(s), free(r), free(counts), free(displs);
}

/* rc must be an error (class not MPI_SUCCESS) on every rank. */
static void expect_error(const char *what, int rc)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (getenv("COLL_TRUNCATE_VERBOSE"))
        fprintf(stderr, "rank %d: %s returned %d (class %d)\n", me, what, rc, cls);
    CHECK(rc != MPI_SUCCESS && cls != MPI_SUCCESS, "%s: rank %d got rc %d class %d, want an error",
          what, me, rc, cls);
}

/* Argument errors only the root can see (the v-variants' counts and
 * displacements, issue 36): every rank returns an error, nobody waits
 * forever, and the communicator still works. */
static void root_args(MPI_Comm comm, int n)
{
    int root = np - 1, rc;
    int *s = ibuf((size_t)n * np), *r = ibuf((size_t)n * np);
    int *counts = malloc(sizeof(int) * np), *displs = malloc(sizeof(int) * np);
    for (int i = 0; i < np; i++)
        counts[i] = n, displs[i] = i * n;
    counts[0] = -1;
    rc = MPI_Gatherv(s, n, MPI_INT, r, counts, displs, MPI_INT, root, comm);
    expect_error("Gatherv (negative recvcounts at the root)", rc);
    still_works(comm, "Gatherv (negative recvcounts)", n);
    counts[0] = n;
    rc = MPI_Gatherv(s, n, MPI_INT, r, me == root ? NULL : counts, displs, MPI_INT, root, comm);
    expect_error("Gatherv (NULL recvcounts at the root)", rc);
    still_works(comm, "Gatherv (NULL recvcounts)", n);
    rc = MPI_Scatterv(s, counts, me == root ? NULL : displs, MPI_INT, r, n, MPI_INT, root, comm);
    expect_error("Scatterv (NULL displs at the root)", rc);
    still_works(comm, "Scatterv (NULL displs)", n);
    /* the plain variants: the root's receive (gather) or send (scatter)
     * side is seen by the root alone */
    rc = MPI_Gather(s, n, MPI_INT, r, me == root ? -1 : n, MPI_INT, root, comm);
    expect_error("Gather (negative recvcount at the root)", rc);
    still_works(comm, "Gather (negative recvcount)", n);
    rc = MPI_Gather(s, n, MPI_INT, r, n, me == root ? MPI_DATATYPE_NULL : MPI_INT, root, comm);
    expect_error("Gather (MPI_DATATYPE_NULL recvtype at the root)", rc);
    still_works(comm, "Gather (MPI_DATATYPE_NULL recvtype)", n);
    rc = MPI_Scatter(s, me == root ? -1 : n, MPI_INT, r, n, MPI_INT, root, comm);
    expect_error("Scatter (negative sendcount at the root)", rc);
    still_works(comm, "Scatter (negative sendcount)", n);
    rc = MPI_Scatter(me == root ? NULL : s, n, MPI_INT, r, n, MPI_INT, root, comm);
    expect_error("Scatter (NULL sendbuf at the root)", rc);
    still_works(comm, "Scatter (NULL sendbuf)", n);
    /* and the correct calls, non-roots passing NULL for what only the
     * root reads (MPI allows it): the same path as the root's */
    rc = MPI_Gatherv(s, n, MPI_INT, r, me == root ? counts : NULL, me == root ? displs : NULL,
                     MPI_INT, root, comm);
    CHECK(rc == MPI_SUCCESS, "Gatherv (%d) with NULL counts at non-roots: rc %d", n, rc);
    for (int i = 0; me == root && i < np; i++)
        CHECK(r[i * n + n - 1] == i * 1000003 + n - 1, "Gatherv (%d): block %d wrong", n, i);
    rc = MPI_Scatterv(s, me == root ? counts : NULL, me == root ? displs : NULL, MPI_INT, r, n,
                      MPI_INT, root, comm);
    CHECK(rc == MPI_SUCCESS && r[n - 1] == root * 1000003 + me * n + n - 1,
          "Scatterv (%d) with NULL counts at non-roots: rc %d", n, rc);
    still_works(comm, "Scatterv (correct)", n);
    free(s), free(r), free(counts), free(displs);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Comm held[16];
    int nheld = 0;
    for (int k = 1; k < argc; k++)
        reduce_only |= !strcmp(argv[k], "reduce");
    for (int k = 1; k < argc; k++)
        mix_only |= !strcmp(argv[k], "mix");
    if (argc > 1 && !strcmp(argv[1], "fallback")) {
        /* use up the control-block slots: the last dup runs schedules */
        for (nheld = 0; nheld < 16; nheld++)
            MPI_Comm_dup(MPI_COMM_WORLD, &held[nheld]);
        comm = held[nheld - 1];
    }
    if (argc > 1 && !strcmp(argv[1], "diverge")) {
        /* ranks that take different collectives (rank 0 a bcast it roots,
         * the others two barriers): rank 0 waits for nobody and leaves
         * for MPI_Finalize, the others wait for a step it never
         * publishes; the job must stop, not hang (issue 36) */
        MPI_Comm d;
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
        int v[2] = { 1, 2 };
        if (me == 0) {
            MPI_Bcast(v, 2, MPI_INT, 0, d);
        } else {
            MPI_Barrier(d);
            MPI_Barrier(d);
        }
        printf("rank %d left its collectives\n", me);
        fflush(stdout);
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "fatal")) {
        /* the default handler: the truncating Gather must stop the job */
        int s[2] = { 0, 0 }, r[8];
        MPI_Gather(s, me == 0 ? 1 : 2, MPI_INT, r, 1, MPI_INT, 0, MPI_COMM_WORLD);
        printf("NOT REACHED rank %d\n", me);
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (argc > 1 && !strcmp(argv[1], "rootargs")) {
        /* the sizes of the cell, the wide lines, the payload, direct pulls */
        static const int ns[] = { 2, 40, 300, 3000, 40000 };
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
            root_args(comm, ns[k]);
        MPI_Finalize();
        if (me == 0)
            printf("coll_truncate rootargs: OK\n");
        return 0;
    }
    /* (big, small) in ints: cell (<= 48 B), wide lines, payload, the
     * pushes, direct pulls, and the two sides on different paths */
    static const int sizes[][2] = { { 2, 1 },       { 12, 4 },     { 40, 10 },   { 64, 32 },
                                    { 300, 100 },   { 1024, 256 }, { 2048, 64 }, { 3000, 2999 },
                                    { 40000, 1000 }, { 5, 0 } };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        run(comm, sizes[k][0], sizes[k][1]);
    for (int i = 0; i < nheld; i++)
        MPI_Comm_free(&held[i]);
    MPI_Finalize();
    if (me == 0)
        printf("coll_truncate: OK\n");
    return 0;
}
