/* The shared file pointer: concurrent write_shared/read_shared from every
 * rank take disjoint whole ranges (each record lands once, unbroken, in a
 * rank's own order), ordered calls keep rank order, seek_shared and
 * get_position_shared, nonblocking and split forms, views, APPEND,
 * MPI_MODE_SEQUENTIAL with MPI_DISPLACEMENT_CURRENT, errors. */
#include "io_test.h"

#define K 16   /* ints per record */
#define M 40   /* records per rank */

static int rank, size;
static char path[600];

static int tag(int r, int it)
{
    return r * 1000 + it + 1;
}

static void records(MPI_File fh)
{
    int rec[K];
    MPI_Status st;
    MPI_Offset pos;
    CHECK_RC(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == 0, "shared pointer starts at %lld", (long long)pos);
    MPI_Barrier(MPI_COMM_WORLD);   /* before any rank moves it */
    for (int it = 0; it < M; it++) {
        for (int j = 0; j < K; j++)
            rec[j] = tag(rank, it);
        if (it % 2)
            CHECK_RC(MPI_File_write_shared(fh, rec, K, MPI_INT, &st));
        else
            CHECK_RC(MPI_File_write_shared_c(fh, rec, K, MPI_INT, &st));
        int c;
        MPI_Get_count(&st, MPI_INT, &c);
        CHECK(c == K, "write_shared count %d", c);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == (MPI_Offset)size * M * K * 4, "shared pointer at %lld", (long long)pos);
    if (rank == 0) {   /* every record once, whole, each rank's in order */
        size_t len;
        int *f = (int *)io_slurp(path, &len);
        CHECK(len == (size_t)size * M * K * 4, "file is %zu bytes", len);
        int *last = calloc(size, sizeof *last);
        for (int i = 0; i < size * M; i++) {
            int t = f[i * K], r = (t - 1) / 1000, it = (t - 1) % 1000;
            CHECK(r >= 0 && r < size && it == last[r], "record %d is %d: rank %d expected "
                  "its record %d next", i, t, r, r >= 0 && r < size ? last[r] : -1);
            last[r]++;
            for (int j = 1; j < K; j++)
                CHECK(f[i * K + j] == t, "record %d is broken", i);
        }
        free(last);
        free(f);
    }
    /* read them back from the shared pointer: every record read once */
    CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int *seen = calloc((size_t)size * M, sizeof *seen), n = 0;
    for (;;) {
        CHECK_RC(MPI_File_read_shared(fh, rec, K, MPI_INT, &st));
        int c;
        MPI_Get_count(&st, MPI_INT, &c);
        if (c == 0)
            break;
        CHECK(c == K, "read_shared got %d ints", c);
        seen[n++] = rec[0];
    }
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int tot = 0;
    if (rank == 0)
        for (int r = 0; r < size; r++) {
            displs[r] = tot;
            tot += counts[r];
        }
    int *all = malloc((size_t)size * M * sizeof(int));
    MPI_Gatherv(seen, n, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(tot == size * M, "%d records read, %d written", tot, size * M);
        char *got = calloc((size_t)size * 1000, 1);
        for (int i = 0; i < tot; i++) {
            CHECK(!got[all[i] - 1], "record %d read twice", all[i]);
            got[all[i] - 1] = 1;
        }
        free(got);
    }
    free(all);
    free(counts);
    free(displs);
    free(seen);
}

static void ordered(MPI_File fh)
{
    MPI_Status st;
    CHECK_RC(MPI_File_set_size(fh, 0));
    CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int mine[64];
    for (int i = 0; i <= rank; i++)
        mine[i] = rank + 1;
    CHECK_RC(MPI_File_write_ordered(fh, mine, rank + 1, MPI_INT, &st));
    CHECK_RC(MPI_File_write_ordered_begin_c(fh, mine, rank + 1, MPI_INT));
    CHECK_RC(MPI_File_write_ordered_end(fh, mine, &st));
    int c;
    MPI_Get_count(&st, MPI_INT, &c);
    CHECK(c == rank + 1, "write_ordered_end count %d", c);
    int tri = size * (size + 1) / 2;
    MPI_Offset pos;
    CHECK_RC(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == (MPI_Offset)2 * tri * 4, "after ordered writes at %lld", (long long)pos);
    if (rank == 0) {
        size_t len;
        int *f = (int *)io_slurp(path, &len);
        CHECK(len == (size_t)2 * tri * 4, "ordered file is %zu bytes", len);
        int k = 0;
        for (int rep = 0; rep < 2; rep++)
            for (int r = 0; r < size; r++)
                for (int i = 0; i <= r; i++, k++)
                    CHECK(f[k] == r + 1, "ordered: int %d is %d, want %d", k, f[k], r + 1);
        free(f);
    }
    CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int back[64] = {0};
    CHECK_RC(MPI_File_read_ordered(fh, back, rank + 1, MPI_INT, &st));
    for (int i = 0; i <= rank; i++)
        CHECK(back[i] == rank + 1, "read_ordered int %d", i);
    memset(back, 0, sizeof back);
    CHECK_RC(MPI_File_read_ordered_begin(fh, back, rank + 1, MPI_INT));
    CHECK_RC(MPI_File_read_ordered_end(fh, back, &st));
    for (int i = 0; i <= rank; i++)
        CHECK(back[i] == rank + 1, "read_ordered_begin int %d", i);
    CHECK_RC(MPI_File_read_ordered_c(fh, back, 1, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &c);
    CHECK(c == 0, "read_ordered past the end: %d", c);
    CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    CHECK_RC(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == (MPI_Offset)2 * tri * 4, "SEEK_END at %lld", (long long)pos);
    CHECK_RC(MPI_File_seek_shared(fh, -4, MPI_SEEK_CUR));
    CHECK_RC(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == (MPI_Offset)2 * tri * 4 - 4, "SEEK_CUR at %lld", (long long)pos);

    /* nonblocking */
    MPI_Request rq;
    CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    if (rank == 0) {
        int v[3] = {7, 8, 9};
        CHECK_RC(MPI_File_iwrite_shared(fh, v, 2, MPI_INT, &rq));
        CHECK_RC(MPI_Wait(&rq, &st));
        CHECK_RC(MPI_File_iwrite_shared_c(fh, v + 2, 1, MPI_INT, &rq));
        CHECK_RC(MPI_Wait(&rq, &st));
        CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));   /* collective */
        CHECK_RC(MPI_File_iread_shared(fh, back, 2, MPI_INT, &rq));
        CHECK_RC(MPI_Wait(&rq, &st));
        CHECK_RC(MPI_File_iread_shared_c(fh, back + 2, 1, MPI_INT, &rq));
        CHECK_RC(MPI_Wait(&rq, &st));
        CHECK(back[0] == 7 && back[1] == 8 && back[2] == 9, "ishared round trip");
    } else {
        CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    }

    /* errors: agreed on every rank */
    if (size > 1)
        EXPECT_CLASS(MPI_File_seek_shared(fh, rank, MPI_SEEK_SET), MPI_ERR_NOT_SAME);
    EXPECT_CLASS(MPI_File_seek_shared(fh, 0, 77), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_File_seek_shared(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_File_write_ordered(fh, mine, rank == 0 ? -1 : 1, MPI_INT, &st),
                 MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_File_iread_shared(fh, back, 1, MPI_INT, NULL), MPI_ERR_ARG);
}

static void views_and_modes(MPI_File fh)
{
    /* a view resets the shared pointer; data goes through it */
    MPI_Datatype ft;
    MPI_Type_vector(8, 1, 2, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    CHECK_RC(MPI_File_set_size(fh, 0));
    CHECK_RC(MPI_File_seek_shared(fh, 5, MPI_SEEK_SET));
    CHECK_RC(MPI_File_set_view(fh, 8, MPI_INT, ft, "native", MPI_INFO_NULL));
    MPI_Offset pos;
    CHECK_RC(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == 0, "set_view left the shared pointer at %lld", (long long)pos);
    int v[2] = {rank + 100, rank + 100};
    MPI_Status st;
    CHECK_RC(MPI_File_write_ordered(fh, v, 2, MPI_INT, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        size_t len;
        int *f = (int *)io_slurp(path, &len);
        for (int e = 0; e < 2 * size; e++) {
            long o = 8 / 4 + (e / 8) * 15 + (e % 8) * 2;
            CHECK((size_t)(o + 1) * 4 <= len && f[o] == e / 2 + 100, "view: etype %d", e);
        }
        free(f);
    }
    MPI_Type_free(&ft);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    CHECK_RC(MPI_File_close(&fh));

    /* APPEND: the shared pointer starts at the end */
    if (rank == 0)
        io_write_posix(path, "0123456789", 10);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_APPEND, MPI_INFO_NULL,
                           &fh));
    CHECK_RC(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == 10, "APPEND: shared pointer at %lld", (long long)pos);
    CHECK_RC(MPI_File_close(&fh));   /* collective: nobody moved it before */

    /* SEQUENTIAL: shared pointer calls only; the view starts where it is */
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL |
                           MPI_MODE_APPEND | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    char c = (char)('a' + rank);
    CHECK_RC(MPI_File_write_ordered(fh, &c, 1, MPI_CHAR, &st));
    CHECK_RC(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
                               MPI_INFO_NULL));
    MPI_Offset d;
    MPI_Datatype et, ftp;
    char rep[MPI_MAX_DATAREP_STRING];
    CHECK_RC(MPI_File_get_view(fh, &d, &et, &ftp, rep));
    CHECK(d == 10 + size, "DISPLACEMENT_CURRENT is %lld, want %d", (long long)d, 10 + size);
    int w = rank;
    CHECK_RC(MPI_File_write_shared(fh, &w, 1, MPI_INT, &st));
    EXPECT_CLASS(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        size_t len;
        unsigned char *f = io_slurp(path, &len);
        CHECK(len == (size_t)(10 + size + 4 * size), "sequential file is %zu bytes", len);
        for (int r = 0; r < size; r++)
            CHECK(f[10 + r] == 'a' + r, "sequential ordered byte %d", r);
        free(f);
    }
    CHECK_RC(MPI_File_close(&fh));
}

/* More files open at once than there are control blocks for
 * communicators (src/coll has 8 slots): the later files' agreements run
 * as schedules; every one must still work. */
static void many_files(void)
{
    enum { NF = 11 };
    MPI_File fh[NF];
    char names[NF][700];
    for (int i = 0; i < NF; i++) {
        snprintf(names[i], sizeof names[i], "%s.%d", path, i);
        int rc = MPI_File_open(MPI_COMM_WORLD, names[i], MPI_MODE_RDWR | MPI_MODE_CREATE |
                               MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh[i]);
        char txt[MPI_MAX_ERROR_STRING] = "";
        int l;
        if (rc)
            MPI_Error_string(rc, txt, &l);
        CHECK(rc == MPI_SUCCESS, "open of file %d: %s", i, txt);
    }
    for (int i = 0; i < NF; i++) {
        int v[2] = {i, rank};
        MPI_Status st;
        CHECK_RC(MPI_File_write_ordered(fh[i], v, 2, MPI_INT, &st));
        CHECK_RC(MPI_File_seek_shared(fh[i], 0, MPI_SEEK_SET));
        int back[2];
        CHECK_RC(MPI_File_read_ordered(fh[i], back, 2, MPI_INT, &st));
        CHECK(back[0] == i && back[1] == rank, "file %d: read_ordered", i);
        EXPECT_CLASS(MPI_File_read_at_all(fh[i], 0, back, rank == 0 ? -1 : 1, MPI_INT, &st),
                     MPI_ERR_COUNT);
    }
    for (int i = 0; i < NF; i++)
        CHECK_RC(MPI_File_close(&fh[i]));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < NF; i++)
        CHECK(io_file_size(names[i]) < 0, "file %d left behind", i);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_name(MPI_COMM_WORLD, "shared", path, sizeof path);
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                           &fh));
    records(fh);
    ordered(fh);
    views_and_modes(fh);
    many_files();
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(io_file_size(path) < 0, "file left behind");
    MPI_Finalize();
    return 0;
}
