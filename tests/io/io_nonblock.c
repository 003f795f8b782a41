/* Nonblocking independent access (MPI_File_iread/iwrite(_at)(_c)): many
 * requests in flight at once from contiguous and strided memory, through
 * a contiguous and a vector view, completed with MPI_Waitall / MPI_Test /
 * MPI_Wait, their statuses' counts, the file checked byte by byte with
 * POSIX reads, reads back, a read past the end of file (short count), the
 * individual pointer moved at the start, MPI_Request_free of a request in
 * flight, errors at the call.  Built with liburing these go through
 * io_uring (src/io/uring.c) and complete later; without it they complete
 * at start: the results must be the same. */
#include <stdint.h>

#include "io_test.h"

#define NREQ 16
#define BLK (256 * 1024)

static int rank, size;
static char path[600];

static unsigned char val(int r, long i)
{
    return (unsigned char)(r * 13 + i * 7 + (i >> 11) + 1);
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_name(MPI_COMM_WORLD, "nonblock", path, sizeof path);
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                           &fh));
    MPI_Offset base = (MPI_Offset)rank * NREQ * BLK * 2;

    /* NREQ writes in flight, each its own block and buffer */
    unsigned char *w = malloc((size_t)NREQ * BLK), *r = calloc((size_t)NREQ, BLK);
    for (long i = 0; i < (long)NREQ * BLK; i++)
        w[i] = val(rank, i);
    MPI_Request rq[NREQ];
    MPI_Status st[NREQ];
    for (int k = 0; k < NREQ; k++)
        CHECK_RC(MPI_File_iwrite_at(fh, base + (MPI_Offset)k * BLK, w + (size_t)k * BLK, BLK,
                                    MPI_BYTE, &rq[k]));
    CHECK_RC(MPI_Waitall(NREQ, rq, st));
    for (int k = 0; k < NREQ; k++) {
        int c;
        MPI_Get_count(&st[k], MPI_BYTE, &c);
        CHECK(c == BLK, "iwrite_at %d: count %d", k, c);
        CHECK(rq[k] == MPI_REQUEST_NULL, "request %d not freed by Waitall", k);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    size_t len;
    unsigned char *b = io_slurp(path, &len);
    CHECK(len >= (size_t)(base + NREQ * BLK), "file of %zu bytes", len);
    for (long i = 0; i < (long)NREQ * BLK; i++)
        CHECK(b[base + i] == w[i], "file byte %lld is %u, want %u", (long long)(base + i),
              b[base + i], w[i]);
    free(b);

    /* reads in flight, completed one by one with MPI_Test, then MPI_Wait */
    for (int k = 0; k < NREQ; k++)
        CHECK_RC(MPI_File_iread_at_c(fh, base + (MPI_Offset)k * BLK, r + (size_t)k * BLK, BLK,
                                     MPI_BYTE, &rq[k]));
    int pending = 0;
    for (int k = 0; k < NREQ; k++) {
        int flag = 0;
        CHECK_RC(MPI_Test(&rq[k], &flag, &st[k]));
        if (!flag) {
            pending++;
            CHECK_RC(MPI_Wait(&rq[k], &st[k]));
        }
        MPI_Count c;
        MPI_Get_count_c(&st[k], MPI_BYTE, &c);
        CHECK(c == BLK, "iread_at %d: count %lld", k, (long long)c);
    }
    CHECK(!memcmp(r, w, (size_t)NREQ * BLK), "data read back differs");

    /* strided memory (every other byte) through a vector view */
    MPI_Datatype mv, fv;
    CHECK_RC(MPI_Type_vector(BLK / 64, 32, 64, MPI_BYTE, &mv));
    CHECK_RC(MPI_Type_commit(&mv));
    CHECK_RC(MPI_Type_vector(BLK / 64, 32, 128, MPI_BYTE, &fv));
    CHECK_RC(MPI_Type_commit(&fv));
    MPI_Offset vb = base + NREQ * BLK;
    CHECK_RC(MPI_File_set_view(fh, vb, MPI_BYTE, fv, "native", MPI_INFO_NULL));
    /* the individual pointer moves at the start */
    MPI_Request a, c2;
    CHECK_RC(MPI_File_iwrite(fh, w, 1, mv, &a));
    MPI_Offset pos;
    CHECK_RC(MPI_File_get_position(fh, &pos));
    CHECK(pos == BLK / 2, "pointer at %lld after iwrite, want %d", (long long)pos, BLK / 2);
    CHECK_RC(MPI_Wait(&a, &st[0]));
    int cnt;
    MPI_Get_count(&st[0], mv, &cnt);
    CHECK(cnt == 1, "strided iwrite count %d", cnt);
    memset(r, 0, BLK);
    CHECK_RC(MPI_File_iread_at(fh, 0, r, 1, mv, &c2));
    CHECK_RC(MPI_Wait(&c2, &st[0]));
    for (long i = 0; i < BLK; i++)
        CHECK(r[i] == ((i % 64) < 32 ? w[i] : 0), "strided byte %ld is %u", i, r[i]);
    b = io_slurp(path, &len);
    for (long i = 0; i < BLK / 2; i++) {
        long f = vb + (i / 32) * 128 + i % 32, m = (i / 32) * 64 + i % 32;
        CHECK(b[f] == w[m], "file byte %ld of the vector view is %u, want %u", f, b[f], w[m]);
    }
    free(b);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));

    /* past the end of file: the count stops there */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset end;
    CHECK_RC(MPI_File_get_size(fh, &end));
    CHECK_RC(MPI_File_iread_at(fh, end - 100, r, 1000, MPI_BYTE, &a));
    CHECK_RC(MPI_Wait(&a, &st[0]));
    MPI_Get_count(&st[0], MPI_BYTE, &cnt);
    CHECK(cnt == 100, "read past the end: count %d, want 100", cnt);

    /* a request freed in flight: the access still completes */
    CHECK_RC(MPI_File_iwrite_at(fh, base, w, BLK, MPI_BYTE, &a));
    CHECK_RC(MPI_Request_free(&a));
    CHECK(a == MPI_REQUEST_NULL, "request not freed");

    /* errors at the call */
    CHECK_RC(MPI_File_close(&fh));
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    EXPECT_CLASS(MPI_File_iwrite_at(fh, 0, w, 1, MPI_BYTE, &a), MPI_ERR_READ_ONLY);
    EXPECT_CLASS(MPI_File_iread_at(fh, 0, r, -1, MPI_BYTE, &a), MPI_ERR_COUNT);
    CHECK_RC(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unlink(path);
        printf("io_nonblock: %d ranks ok (%d of %d reads were still pending at their first "
               "test)\n", size, pending, NREQ);
    }
    free(w);
    free(r);
    MPI_Type_free(&mv);
    MPI_Type_free(&fv);
    CHECK_RC(MPI_Finalize());
    return 0;
}
