/* Atomic mode: every rank writes the same range at once, through a view
 * of many small blocks (one system call each, so unlocked writes would
 * interleave), and reads it back while the others write; after each round
 * the file, read with POSIX, must hold one rank's data whole, and every
 * read must have seen one writer's data whole. */
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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_name(MPI_COMM_WORLD, "atomic", path, sizeof path);
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE |
                           MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
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
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(io_file_size(path) < 0, "file left behind");
    free(mine);
    free(seen);
    MPI_Finalize();
    return 0;
}
