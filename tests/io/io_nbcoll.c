/* Nonblocking and split collective accesses that progress (src/io/
 * collective.c): two-phase over an interleaved view, driven by MPI_Test.
 *
 * Out of step, structurally: every rank but 0 starts MPI_File_iwrite_all,
 * sees MPI_Test say "not complete" (rank 0 has not started: it waits, on
 * marker files, not on MPI, until they have returned from the call) and
 * makes its marker.  Then every rank computes and calls MPI_Test, never
 * MPI_Wait, until its request completes; rank 0, the aggregator, writes
 * cb_buffer_size windows of 4 KiB, one per poll, so it needs at least as
 * many tests as half its windows (an MPI_Test polls twice at most; done
 * in one poll, it took one or two).  The
 * file is checked byte by byte with POSIX reads.  iread_all the other way
 * round (rank 0 first, not complete until the others come; the data
 * checked), two accesses in flight at once (iwrite_at_all then
 * iread_at_all, Waitall), and a split collective whose _begin returns on
 * rank 0 before the others call theirs. */
#include <smartmap.h>

#include "io_test.h"

#define B 64      /* ints per block */
#define K 256     /* blocks per rank: 64 KiB each, 16 windows of 4 KiB per rank */

static int rank, size;
static char path[600], mark[700];

static int val(int r, int i)
{
    return r * 1000000 + i + 1;
}

/* A rank waits until another made marker `what` (no MPI). */
static void marker_make(const char *what)
{
    char p[800];
    snprintf(p, sizeof p, "%s.%s", mark, what);
    int fd = open(p, O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0, "marker %s", p);
    close(fd);
}

static void marker_wait(const char *what)
{
    char p[800];
    snprintf(p, sizeof p, "%s.%s", mark, what);
    for (int i = 0; io_file_size(p) < 0; i++) {
        CHECK(i < 60000, "marker %s never came", what);
        usleep(1000);
    }
}

static void marker_rm(const char *what)
{
    char p[800];
    snprintf(p, sizeof p, "%s.%s", mark, what);
    unlink(p);
}

static volatile double sink;
static void compute(void)
{
    double x = 0;
    for (int i = 0; i < 20000; i++)
        x += i * 0.5;
    sink = x;
}

/* Computes and tests until rq completes; the number of tests. */
static int test_until_done(MPI_Request *rq, MPI_Status *st)
{
    int flag = 0, n = 0;
    while (!flag) {
        compute();
        CHECK_RC(MPI_Test(rq, &flag, st));
        n++;
        CHECK(n < 10000000, "the request never completed");
    }
    CHECK(*rq == MPI_REQUEST_NULL, "request not freed at completion");
    return n;
}

static void check_file(const char *what)
{
    if (rank != 0)
        return;
    size_t len;
    int *f = (int *)io_slurp(path, &len);
    CHECK(len == (size_t)size * K * B * sizeof(int), "%s: file is %zu bytes", what, len);
    for (int k = 0; k < K; k++)
        for (int r = 0; r < size; r++)
            for (int j = 0; j < B; j++)
                CHECK(f[(k * size + r) * B + j] == val(r, k * B + j),
                      "%s: block %d of rank %d int %d is %d", what, k, r, j,
                      f[(k * size + r) * B + j]);
    free(f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_name(MPI_COMM_WORLD, "nbcoll", path, sizeof path);
    snprintf(mark, sizeof mark, "%s.mark", path);
    int n = K * B;
    int *out = malloc(n * sizeof *out), *in = malloc(n * sizeof *in);
    for (int i = 0; i < n; i++)
        out[i] = val(rank, i);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "4096");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
    /* rank r's blocks of B ints interleaved: block k at (k * size + r) * B */
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(B, MPI_INT, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)size * B * sizeof(int), &ft);
    MPI_Type_commit(&ft);
    CHECK_RC(MPI_File_set_view(fh, (MPI_Offset)rank * B * sizeof(int), MPI_INT, ft, "native",
                               info));
    MPI_Request rq, two[2];
    MPI_Status st;
    int c, flag, tests;
    /* rank 0's windows: 4 KiB each over its domain, the file's share of
     * one of cb_nodes aggregators (one per node across nodes) */
    MPI_Info used;
    char v[64];
    CHECK_RC(MPI_File_get_info(fh, &used));
    MPI_Info_get_string(used, "cb_nodes", &(int){sizeof v}, v, &flag);
    CHECK(flag && atoi(v) >= 1, "cb_nodes is reported");
    MPI_Info_free(&used);
    int windows = (int)((long long)size * n * (long long)sizeof(int) / 4096 / atoi(v));

    /* 1. iwrite_all out of step, the aggregator last */
    char w[16];
    if (rank != 0) {
        CHECK_RC(MPI_File_iwrite_all(fh, out, n, MPI_INT, &rq));
        CHECK_RC(MPI_Test(&rq, &flag, &st));
        CHECK(!flag, "iwrite_all complete while rank 0 has not started it");
        snprintf(w, sizeof w, "w%d", rank);
        marker_make(w);
    } else {
        for (int r = 1; r < size; r++) {
            snprintf(w, sizeof w, "w%d", r);
            marker_wait(w);
        }
        CHECK_RC(MPI_File_iwrite_all(fh, out, n, MPI_INT, &rq));
    }
    tests = test_until_done(&rq, &st);
    MPI_Get_count(&st, MPI_INT, &c);
    CHECK(c == n, "iwrite_all count %d", c);
    /* (an MPI_Test polls the request at most twice: before and after its
     * progress round) */
    /* ... when two-phase applies: the heap is exposed (not under ASan or
     * SMAP_EXPOSE=none, where each rank does its own access) */
    int twophase = 0;
    {   /* rank 0 reaches rank 1's buffer (when on its node) */
        unsigned long long p = (unsigned long long)(uintptr_t)out;
        MPI_Bcast(&p, 1, MPI_UNSIGNED_LONG_LONG, size > 1 ? 1 : 0, MPI_COMM_WORLD);
        void *view = NULL;
        if (rank == 0 && size > 1)
            CHECK_RC(MPIX_Comm_remote_ptr(MPI_COMM_WORLD, 1, (void *)(uintptr_t)p, 8, &view));
        twophase = view != NULL;
    }
    if (rank == 0 && size > 1 && twophase)
        CHECK(tests >= windows / 2, "the aggregator completed %d windows in %d tests: the windows "
              "were not written one per poll", windows, tests);
    MPI_Barrier(MPI_COMM_WORLD);
    check_file("iwrite_all");

    /* 2. iread_all out of step */
    memset(in, 0, n * sizeof *in);
    CHECK_RC(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    if (rank == 0) {
        CHECK_RC(MPI_File_iread_all(fh, in, n, MPI_INT, &rq));
        if (size > 1) {
            CHECK_RC(MPI_Test(&rq, &flag, &st));
            CHECK(!flag, "iread_all complete while the other ranks have not started it");
        }
        marker_make("r");
    } else {
        marker_wait("r");
        CHECK_RC(MPI_File_iread_all(fh, in, n, MPI_INT, &rq));
    }
    test_until_done(&rq, &st);
    MPI_Get_count(&st, MPI_INT, &c);
    CHECK(c == n, "iread_all count %d", c);
    for (int i = 0; i < n; i++)
        CHECK(in[i] == val(rank, i), "iread_all int %d is %d", i, in[i]);
    MPI_Offset pos;
    CHECK_RC(MPI_File_get_position(fh, &pos));
    CHECK(pos == n, "individual pointer at %lld after iread_all", (long long)pos);

    /* 3. two in flight: a write of the other half's values, then a read */
    for (int i = 0; i < n; i++)
        out[i] = val(rank, i) + 7;
    memset(in, 0, n * sizeof *in);
    CHECK_RC(MPI_File_iwrite_at_all(fh, 0, out, n, MPI_INT, &two[0]));
    CHECK_RC(MPI_File_iread_at_all_c(fh, 0, in, n, MPI_INT, &two[1]));
    CHECK_RC(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
    for (int i = 0; i < n; i++)
        CHECK(in[i] == val(rank, i) + 7, "iread_at_all after iwrite_at_all: int %d is %d", i,
              in[i]);

    /* 4. split collective: rank 0's _begin returns before the others call theirs */
    for (int i = 0; i < n; i++)
        out[i] = val(rank, i);
    if (rank == 0) {
        CHECK_RC(MPI_File_write_at_all_begin(fh, 0, out, n, MPI_INT));
        marker_make("s");
    } else {
        marker_wait("s");
        CHECK_RC(MPI_File_write_at_all_begin(fh, 0, out, n, MPI_INT));
    }
    compute();
    CHECK_RC(MPI_File_write_at_all_end(fh, out, &st));
    MPI_Get_count(&st, MPI_INT, &c);
    CHECK(c == n, "write_at_all_end count %d", c);
    MPI_Barrier(MPI_COMM_WORLD);
    check_file("write_at_all_begin");

    CHECK_RC(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 1; r < size; r++) {
            snprintf(w, sizeof w, "w%d", r);
            marker_rm(w);
        }
        marker_rm("r");
        marker_rm("s");
        CHECK_RC(MPI_File_delete(path, MPI_INFO_NULL));
    }
    MPI_Type_free(&ft);
    MPI_Type_free(&blk);
    MPI_Info_free(&info);
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
