/* Collective, split collective and nonblocking accesses: each rank's
 * data lands where its view says (checked with POSIX reads), statuses
 * carry the counts, and an error on one rank fails the collective on
 * every rank with one class. */
#include "io_test.h"

#define N 1000   /* ints per rank */

static int rank, size;
static char path[600];

static int val(int r, int i)
{
    return r * 100003 + i * 7 + 1;
}

/* The file holds rank r's N ints at r*N ints: checked with POSIX. */
static void check_blocks(const char *what, long base)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0)
        return;
    size_t len;
    int *f = (int *)io_slurp(path, &len);
    CHECK(len >= (size_t)(base + (long)size * N * 4), "%s: file is %zu bytes", what, len);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++)
            CHECK(f[base / 4 + r * N + i] == val(r, i), "%s: rank %d int %d is %d", what, r, i,
                  f[base / 4 + r * N + i]);
    free(f);
}

static void count_is(MPI_Status *st, int want, const char *what)
{
    int c;
    MPI_Get_count(st, MPI_INT, &c);
    CHECK(c == want, "%s: count %d, want %d", what, c, want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_name(MPI_COMM_WORLD, "coll", path, sizeof path);
    int *out = malloc(N * sizeof(int)), *in = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        out[i] = val(rank, i);
    MPI_File fh;
    MPI_Status st;
    MPI_Request rq;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE |
                           MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    int peer = (rank + 1) % size;
    MPI_Offset mine = (MPI_Offset)rank * N * 4, theirs = (MPI_Offset)peer * N * 4;

    /* explicit offsets, collective */
    CHECK_RC(MPI_File_write_at_all(fh, mine, out, N, MPI_INT, &st));
    count_is(&st, N, "write_at_all");
    check_blocks("write_at_all", 0);
    CHECK_RC(MPI_File_read_at_all(fh, theirs, in, N, MPI_INT, &st));
    count_is(&st, N, "read_at_all");
    for (int i = 0; i < N; i++)
        CHECK(in[i] == val(peer, i), "read_at_all int %d", i);

    /* the individual pointer under an interleaved view, collective */
    CHECK_RC(MPI_File_set_size(fh, 0));
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(10, MPI_INT, &blk);
    MPI_Type_create_resized(blk, 0, 10 * 4 * size, &ft);
    MPI_Type_commit(&ft);
    CHECK_RC(MPI_File_set_view(fh, rank * 40, MPI_INT, ft, "native", MPI_INFO_NULL));
    CHECK_RC(MPI_File_write_all(fh, out, N / 2, MPI_INT, &st));
    CHECK_RC(MPI_File_write_all_c(fh, out + N / 2, N / 2, MPI_INT, &st));
    count_is(&st, N / 2, "write_all_c");
    MPI_Offset pos;
    CHECK_RC(MPI_File_get_position(fh, &pos));
    CHECK(pos == N, "position %lld after write_all", (long long)pos);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        size_t len;
        int *f = (int *)io_slurp(path, &len);
        CHECK(len == (size_t)size * N * 4, "interleaved file is %zu bytes", len);
        for (int r = 0; r < size; r++)
            for (int i = 0; i < N; i++)
                CHECK(f[(i / 10) * 10 * size + r * 10 + i % 10] == val(r, i),
                      "interleaved: rank %d int %d", r, i);
        free(f);
    }
    CHECK_RC(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    memset(in, 0, N * sizeof(int));
    CHECK_RC(MPI_File_read_all(fh, in, N, MPI_INT, &st));
    count_is(&st, N, "read_all");
    CHECK(!memcmp(in, out, N * sizeof(int)), "read_all through the view");
    CHECK_RC(MPI_File_read_all_c(fh, in, N, MPI_INT, &st));
    count_is(&st, 0, "read_all_c at the end of file");
    MPI_Type_free(&blk);
    MPI_Type_free(&ft);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));

    /* split collectives */
    CHECK_RC(MPI_File_set_size(fh, 0));
    CHECK_RC(MPI_File_write_at_all_begin(fh, mine, out, N, MPI_INT));
    EXPECT_CLASS(MPI_File_write_at_all_begin(fh, mine, out, N, MPI_INT), MPI_ERR_OTHER);
    EXPECT_CLASS(MPI_File_read_all_end(fh, out, &st), MPI_ERR_OTHER);
    CHECK_RC(MPI_File_write_at_all_end(fh, out, &st));
    count_is(&st, N, "write_at_all_end");
    check_blocks("write_at_all_begin", 0);
    CHECK_RC(MPI_File_read_at_all_begin_c(fh, theirs, in, N, MPI_INT));
    CHECK_RC(MPI_File_read_at_all_end(fh, in, &st));
    count_is(&st, N, "read_at_all_end");
    for (int i = 0; i < N; i++)
        CHECK(in[i] == val(peer, i), "split read int %d", i);
    CHECK_RC(MPI_File_seek(fh, mine + 4 * N, MPI_SEEK_SET));
    CHECK_RC(MPI_File_seek(fh, -4 * N, MPI_SEEK_CUR));
    CHECK_RC(MPI_File_write_all_begin_c(fh, out, N, MPI_INT));
    CHECK_RC(MPI_File_write_all_end(fh, out, &st));
    count_is(&st, N, "write_all_end");
    CHECK_RC(MPI_File_seek(fh, theirs, MPI_SEEK_SET));
    CHECK_RC(MPI_File_read_all_begin(fh, in, N, MPI_INT));
    EXPECT_CLASS(MPI_File_close(&fh), MPI_ERR_OTHER);   /* a split collective is open */
    CHECK_RC(MPI_File_read_all_end(fh, in, &st));
    count_is(&st, N, "read_all_end");
    for (int i = 0; i < N; i++)
        CHECK(in[i] == val(peer, i), "split read_all int %d", i);
    EXPECT_CLASS(MPI_File_write_all_end(fh, out, &st), MPI_ERR_OTHER);

    /* nonblocking, independent and collective, int and _c */
    CHECK_RC(MPI_File_set_size(fh, 0));
    CHECK_RC(MPI_File_iwrite_at(fh, mine, out, N / 2, MPI_INT, &rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    count_is(&st, N / 2, "iwrite_at");
    CHECK_RC(MPI_File_iwrite_at_c(fh, mine + 2 * N, out + N / 2, N / 2, MPI_INT, &rq));
    int done = 0;
    while (!done)
        CHECK_RC(MPI_Test(&rq, &done, &st));
    count_is(&st, N / 2, "iwrite_at_c");
    check_blocks("iwrite_at", 0);
    CHECK_RC(MPI_File_iread_at(fh, theirs, in, N, MPI_INT, &rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    count_is(&st, N, "iread_at");
    for (int i = 0; i < N; i++)
        CHECK(in[i] == val(peer, i), "iread_at int %d", i);
    CHECK_RC(MPI_File_iwrite_at_all(fh, mine + (MPI_Offset)size * N * 4, out, N, MPI_INT, &rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    count_is(&st, N, "iwrite_at_all");
    check_blocks("iwrite_at_all", (long)size * N * 4);
    CHECK_RC(MPI_File_iread_at_all_c(fh, theirs + (MPI_Offset)size * N * 4, in, N, MPI_INT,
                                     &rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    count_is(&st, N, "iread_at_all_c");
    for (int i = 0; i < N; i++)
        CHECK(in[i] == val(peer, i), "iread_at_all int %d", i);
    CHECK_RC(MPI_File_iwrite_at_all_c(fh, mine, out, N, MPI_INT, &rq));
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_File_iread_at_all(fh, mine, in, N, MPI_INT, &rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    count_is(&st, N, "iread_at_all");
    /* individual pointer: iwrite / iread (_c) and the _all forms */
    CHECK_RC(MPI_File_seek(fh, mine, MPI_SEEK_SET));
    CHECK_RC(MPI_File_iwrite(fh, out, N / 2, MPI_INT, &rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    CHECK_RC(MPI_File_iwrite_c(fh, out + N / 2, N / 2, MPI_INT, &rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    count_is(&st, N / 2, "iwrite_c");
    CHECK_RC(MPI_File_get_position(fh, &pos));
    CHECK(pos == mine + 4 * N, "position after iwrite: %lld", (long long)pos);
    check_blocks("iwrite", 0);
    CHECK_RC(MPI_File_seek(fh, theirs, MPI_SEEK_SET));
    CHECK_RC(MPI_File_iread(fh, in, N / 2, MPI_INT, &rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    CHECK_RC(MPI_File_iread_c(fh, in + N / 2, N / 2, MPI_INT, &rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    for (int i = 0; i < N; i++)
        CHECK(in[i] == val(peer, i), "iread int %d", i);
    CHECK_RC(MPI_File_seek(fh, mine, MPI_SEEK_SET));
    CHECK_RC(MPI_File_iwrite_all(fh, out, N, MPI_INT, &rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    CHECK_RC(MPI_File_iwrite_all_c(fh, out, 0, MPI_INT, &rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    count_is(&st, 0, "iwrite_all_c of nothing");
    CHECK_RC(MPI_File_seek(fh, theirs, MPI_SEEK_SET));
    CHECK_RC(MPI_File_iread_all(fh, in, N, MPI_INT, &rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    CHECK_RC(MPI_File_iread_all_c(fh, in, 0, MPI_INT, &rq));
    CHECK_RC(MPI_Wait(&rq, &st));
    for (int i = 0; i < N; i++)
        CHECK(in[i] == val(peer, i), "iread_all int %d", i);
    EXPECT_CLASS(MPI_File_iread(fh, in, 1, MPI_INT, NULL), MPI_ERR_ARG);

    /* one rank's error fails the collective everywhere, with one class */
    if (size > 1) {
        int c = smap_err_class(MPI_File_write_at_all(fh, 0, out, rank == 1 ? -1 : 1, MPI_INT,
                                                     &st));
        CHECK(c == MPI_ERR_COUNT, "bad count on rank 1 gave class %d here", c);
        io_same_class(MPI_COMM_WORLD, c);
        c = smap_err_class(MPI_File_read_at_all(fh, rank == 0 ? -4 : 0, in, 1, MPI_INT, &st));
        CHECK(c == MPI_ERR_ARG, "negative offset on rank 0 gave class %d here", c);
        /* nonblocking: the bad rank fails at the call, the others' requests
         * complete with its class (their calls do not wait for it) */
        c = smap_err_class(MPI_File_iread_all(fh, in, 1, rank ? MPI_INT : MPI_DATATYPE_NULL,
                                              &rq));
        if (rank == 0) {
            CHECK(c == MPI_ERR_TYPE && rq == MPI_REQUEST_NULL, "bad type on rank 0: %d", c);
        } else {
            CHECK(c == MPI_SUCCESS && rq != MPI_REQUEST_NULL, "iread_all here: %d", c);
            st.MPI_ERROR = MPI_SUCCESS;
            c = smap_err_class(MPI_Wait(&rq, &st));
            CHECK(c == MPI_ERR_TYPE || (c == MPI_ERR_IN_STATUS && st.MPI_ERROR == MPI_ERR_TYPE),
                  "bad type on rank 0: the request here completed with class %d", c);
        }
    }
    CHECK_RC(MPI_File_close(&fh));
    /* a write-only file read collectively: ACCESS on every rank */
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_CREATE |
                           MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    EXPECT_CLASS(MPI_File_read_all(fh, in, 1, MPI_INT, &st), MPI_ERR_ACCESS);
    CHECK_RC(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(io_file_size(path) < 0, "file left behind");
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
