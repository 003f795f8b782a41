/* Atomic mode: every rank writes the same range at once, through a view
 * of many small blocks (one system call each, so unlocked writes would
 * interleave), and reads it back while the others write; after each round
 * the file, read with POSIX, must hold one rank's data whole, and every
 * read must have seen one writer's data whole. */
#include <linux/magic.h>
#include <sys/vfs.h>

#include "io_test.h"

#define BLOCKS 2048
#define BLEN 16
#define ROUNDS 12

static int rank, size;
static char path[600];

/* all BLOCKS*BLEN data bytes equal; their value */
static int uniform(const unsigned char *b, long n)
{
    for (long i = 1; i < n; i++)
        if (b[i] != b[0])
            return -1;
    return b[0];
}

/* Sieved writes (not atomic): every rank writes its interleaved 4-byte
 * blocks at once; a read-modify-write of one rank must never write back
 * another's block with old data.  mode: romio_ds_write "enable", or NULL
 * (the default, "automatic": such small pieces and holes sieve too). */
static void sieved_writers(const char *mode)
{
    MPI_Info in;
    MPI_Info_create(&in);
    if (mode)
        MPI_Info_set(in, "romio_ds_write", mode);
    MPI_Info_set(in, "ind_wr_buffer_size", "4096");
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE |
                           MPI_MODE_DELETE_ON_CLOSE, in, &fh));
    MPI_Info_free(&in);
    MPI_Datatype one, ft;
    MPI_Type_contiguous(1, MPI_INT, &one);
    MPI_Type_create_resized(one, 0, 4 * size, &ft);
    MPI_Type_commit(&ft);
    CHECK_RC(MPI_File_set_view(fh, 4 * rank, MPI_INT, ft, "native", MPI_INFO_NULL));
    const int n = 8192;
    int *v = malloc(n * sizeof(int));
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < n; i++)
            v[i] = round * 100000 + rank * 10000 + i % 10000;
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_File_write_at(fh, 0, v, n, MPI_INT, MPI_STATUS_IGNORE));
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            size_t len;
            int *f = (int *)io_slurp(path, &len);
            CHECK(len == (size_t)n * size * 4, "sieved file is %zu bytes", len);
            for (long k = 0; k < (long)n * size; k++) {
                int r = (int)(k % size), i = (int)(k / size);
                CHECK(f[k] == round * 100000 + r * 10000 + i % 10000,
                      "%s, round %d: rank %d's block %d holds %d (a sieve wrote it back)",
                      mode ? mode : "default", round, r, i, f[k]);
            }
            free(f);
        }
    }
    free(v);
    MPI_Type_free(&one);
    MPI_Type_free(&ft);
    CHECK_RC(MPI_File_close(&fh));
}

/* Default hints, every rank at once writing its interleaved 4 KiB blocks
 * (the HDF5-chunk pattern): on a file system with a device behind it, at
 * 2 ranks (holes no larger than the pieces) the writes are sieved in
 * 512 KiB spans (read-modify-write: about twice the bytes written, seen
 * in wchar), on tmpfs one pwrite each (the bytes once); either way no
 * rank's block may be written back with old data.  Then each rank reads
 * its blocks back with one call asking for one block more than the file
 * holds (the pieces' holes are read by one preadv each run): the count
 * stops at the end of file. */
static void dense_writers(void)
{
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE |
                           MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    const int bi = 1024, nb = 512, n = bi * nb;   /* 4 KiB blocks; 2 MiB a rank */
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(bi, MPI_INT, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)bi * 4 * size, &ft);
    MPI_Type_commit(&ft);
    CHECK_RC(MPI_File_set_view(fh, (MPI_Offset)bi * 4 * rank, MPI_INT, ft, "native",
                               MPI_INFO_NULL));
    struct statfs sf;
    CHECK(statfs(io_tmpdir(), &sf) == 0, "statfs %s", io_tmpdir());
    unsigned long t = (unsigned long)sf.f_type;
    int memfs = t == TMPFS_MAGIC || t == RAMFS_MAGIC;
    int *v = malloc(((size_t)n + bi) * sizeof(int));
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < n; i++)
            v[i] = round * 10000000 + rank * 1000000 + i;
        MPI_Barrier(MPI_COMM_WORLD);
        long long w0 = smap_test_proc_io("wchar");
        CHECK_RC(MPI_File_write_at(fh, 0, v, n, MPI_INT, MPI_STATUS_IGNORE));
        long long w = smap_test_proc_io("wchar") - w0, data = (long long)n * 4;
        if (w0 >= 0 && size == 2)   /* rank 1's last span ends at its last block */
            CHECK(memfs ? w < data + data / 8 : w > data + data / 2,
                  "round %d: %lld bytes passed to pwrite for %lld of data on %s (%s)", round,
                  w, data, io_tmpdir(), memfs ? "tmpfs: want one pwrite a block"
                                              : "a device: want 512 KiB sieve spans");
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            size_t len;
            int *f = (int *)io_slurp(path, &len);
            CHECK(len == (size_t)n * size * 4, "file is %zu bytes", len);
            for (long k = 0; k < (long)n * size; k++) {
                long b = k / bi, r = b % size, i = (b / size) * bi + k % bi;
                CHECK(f[k] == round * 10000000 + r * 1000000 + i,
                      "round %d: rank %ld's int %ld holds %d (a sieve wrote it back)", round,
                      r, i, f[k]);
            }
            free(f);
        }
        memset(v, 0xff, ((size_t)n + bi) * sizeof(int));
        MPI_Status st;
        CHECK_RC(MPI_File_read_at(fh, 0, v, n + bi, MPI_INT, &st));
        int got;
        MPI_Get_count(&st, MPI_INT, &got);
        CHECK(got == n, "round %d: read %d ints of %d", round, got, n);
        for (int i = 0; i < n + bi; i++)
            CHECK(v[i] == (i < n ? round * 10000000 + rank * 1000000 + i : -1),
                  "round %d: read back int %d as %d", round, i, v[i]);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(v);
    MPI_Type_free(&blk);
    MPI_Type_free(&ft);
    CHECK_RC(MPI_File_close(&fh));
}

/* Default hints, a sieving writer and plain writers at once: rank 0
 * writes an int every 8 bytes (4-byte holes: sieved, read-modify-write
 * of 512 KiB spans), the other ranks an int every 8 KiB into rank 0's
 * holes (their holes too large to sieve: one pwrite each).  The plain
 * writes hold shared locks of their runs, so none lands between a span's
 * read and its write-back; the other holes stay zero. */
static void sieve_and_plain(void)
{
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE |
                           MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    const long dense = 262144, step = 8192;           /* rank 0's ints; 2 MiB of file */
    const long sparse = dense * 8 / step;             /* each other rank's ints */
    MPI_Datatype one, ft;
    MPI_Type_contiguous(1, MPI_INT, &one);
    MPI_Type_create_resized(one, 0, rank ? step : 8, &ft);
    MPI_Type_commit(&ft);
    CHECK_RC(MPI_File_set_view(fh, rank ? 8 * (rank - 1) + 4 : 0, MPI_INT, ft, "native",
                               MPI_INFO_NULL));
    long n = rank ? sparse : dense;
    int *v = malloc((size_t)n * sizeof(int));
    for (int round = 0; round < ROUNDS; round++) {
        for (long i = 0; i < n; i++)
            v[i] = (int)(round * 1000000 + rank * 100000 + i % 100000) + 1;
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_File_write_at(fh, 0, v, (int)n, MPI_INT, MPI_STATUS_IGNORE));
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            size_t len;
            int *f = (int *)io_slurp(path, &len);
            CHECK(len >= (size_t)dense * 8 - 4, "file of %zu bytes", len);
            long bad = 0, first = -1;
            for (long k = 0; k < (long)(len / 4); k++) {
                long want = 0;
                if (k % 2 == 0) {
                    want = round * 1000000 + (k / 2) % 100000 + 1;
                } else {
                    long at = k * 4 - 4, r = at % step / 8 + 1;   /* the writer of this hole */
                    if (r < size && at % 8 == 0)
                        want = round * 1000000 + r * 100000 + (at / step) % 100000 + 1;
                }
                if (f[k] != want && !bad++)
                    first = k;
            }
            CHECK(!bad, "round %d: %ld ints wrong, the first int %ld holds %d (a sieve "
                  "wrote an old hole back over a plain write)", round, bad, first,
                  f[first]);
            free(f);
        }
    }
    free(v);
    MPI_Type_free(&one);
    MPI_Type_free(&ft);
    CHECK_RC(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_name(MPI_COMM_WORLD, "atomic", path, sizeof path);
    MPI_File fh;
    /* writes block by block (not sieved), so that unlocked ones interleave */
    MPI_Info nods;
    MPI_Info_create(&nods);
    MPI_Info_set(nods, "romio_ds_write", "disable");
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE |
                           MPI_MODE_DELETE_ON_CLOSE, nods, &fh));
    MPI_Info_free(&nods);
    CHECK_RC(MPI_File_set_atomicity(fh, 1));
    int flag;
    CHECK_RC(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 1, "atomic mode not on");
    MPI_Datatype ft;
    MPI_Type_vector(BLOCKS, BLEN, 2 * BLEN, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    const long n = (long)BLOCKS * BLEN;
    unsigned char *mine = malloc(n), *seen = malloc(n);
    for (int round = 0; round < ROUNDS; round++) {
        memset(mine, 1 + rank + round * size, n);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Status st;
        CHECK_RC(MPI_File_write_at(fh, 0, mine, (int)n, MPI_BYTE, &st));
        /* read while the others may still write */
        CHECK_RC(MPI_File_read_at(fh, 0, seen, (int)n, MPI_BYTE, &st));
        int cnt;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == n, "round %d: read %d bytes", round, cnt);
        int u = uniform(seen, n);
        CHECK(u >= 1 + round * size && u <= size + round * size,
              "round %d: a read saw mixed or stale data (%d)", round, u);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            size_t len;
            unsigned char *f = io_slurp(path, &len);
            CHECK(len == (size_t)(2 * BLOCKS - 1) * BLEN, "file is %zu bytes", len);
            unsigned char *data = malloc(n);
            for (long b = 0; b < BLOCKS; b++) {
                memcpy(data + b * BLEN, f + 2 * b * BLEN, BLEN);
                if (b + 1 < BLOCKS)
                    for (int j = 0; j < BLEN; j++)
                        CHECK(f[(2 * b + 1) * BLEN + j] == 0, "a hole was written");
            }
            u = uniform(data, n);
            CHECK(u >= 1 + round * size && u <= size + round * size,
                  "round %d: the file mixes writers (%d)", round, u);
            free(data);
            free(f);
        }
    }
    MPI_Type_free(&ft);
    CHECK_RC(MPI_File_close(&fh));
    sieved_writers("enable");
    sieved_writers(NULL);
    dense_writers();
    if (size > 1)
        sieve_and_plain();
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(io_file_size(path) < 0, "file left behind");
    free(mine);
    free(seen);
    MPI_Finalize();
    return 0;
}
