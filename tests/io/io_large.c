/* Offsets past 2 GiB (and past 4 GiB) with the large-count calls: a
 * sparse file, written and read at explicit offsets, through a view whose
 * displacement is past 2 GiB, and at the individual pointer; checked with
 * POSIX reads.  Skips (77) only when the file system refuses such a
 * file. */
#include <errno.h>

#include "io_test.h"

#define LEN 65536

static int rank, size;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[600];
    io_name(MPI_COMM_WORLD, "large", path, sizeof path);
    /* can this file system hold a sparse file past 4 GiB? */
    int skip = 0;
    if (rank == 0) {
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
        CHECK(fd >= 0, "create %s", path);
        if (pwrite(fd, "x", 1, (off_t)5 << 30) != 1) {
            printf("skip: %s cannot hold a sparse file past 4 GiB (%s)\n", io_tmpdir(),
                   strerror(errno));
            skip = 1;
        }
        close(fd);
        unlink(path);
    }
    MPI_Bcast(&skip, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (skip) {
        MPI_Finalize();
        return 77;
    }
    unsigned char *out = malloc(LEN), *in = malloc(LEN);
    for (int i = 0; i < LEN; i++)
        out[i] = (unsigned char)(i * 13 + rank * 5 + 1);
    MPI_File fh;
    MPI_Status st;
    MPI_Count cnt;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE |
                           MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    /* explicit offsets past 2 and 4 GiB */
    MPI_Offset at = ((MPI_Offset)2 << 30) + 4096 + (MPI_Offset)rank * LEN;
    MPI_Offset at4 = ((MPI_Offset)4 << 30) + 12345 + (MPI_Offset)rank * LEN;
    CHECK_RC(MPI_File_write_at_c(fh, at, out, (MPI_Count)LEN, MPI_BYTE, &st));
    MPI_Get_count_c(&st, MPI_BYTE, &cnt);
    CHECK(cnt == LEN, "write_at_c count %lld", (long long)cnt);
    CHECK_RC(MPI_File_write_at_all_c(fh, at4, out, (MPI_Count)LEN, MPI_BYTE, &st));
    MPI_Offset sz;
    CHECK_RC(MPI_File_get_size(fh, &sz));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_get_size(fh, &sz));
    CHECK(sz == ((MPI_Offset)4 << 30) + 12345 + (MPI_Offset)size * LEN, "size %lld",
          (long long)sz);
    if (rank == 0) {   /* POSIX sees the bytes where they belong */
        int fd = open(path, O_RDONLY);
        for (int r = 0; r < size; r++) {
            CHECK(pread(fd, in, LEN, at + (off_t)(r - rank) * LEN) == LEN, "pread");
            for (int i = 0; i < LEN; i++)
                CHECK(in[i] == (unsigned char)(i * 13 + r * 5 + 1), "2 GiB: rank %d byte %d",
                      r, i);
            CHECK(pread(fd, in, LEN, at4 + (off_t)(r - rank) * LEN) == LEN, "pread");
            for (int i = 0; i < LEN; i++)
                CHECK(in[i] == (unsigned char)(i * 13 + r * 5 + 1), "4 GiB: rank %d byte %d",
                      r, i);
        }
        close(fd);
    }
    memset(in, 0, LEN);
    CHECK_RC(MPI_File_read_at_c(fh, at4, in, (MPI_Count)LEN, MPI_BYTE, &st));
    MPI_Get_count_c(&st, MPI_BYTE, &cnt);
    CHECK(cnt == LEN && !memcmp(in, out, LEN), "read_at_c back");

    /* a view whose displacement is past 2 GiB, ints in every other slot */
    MPI_Datatype ft;
    MPI_Type_vector(LEN / 8, 1, 2 * size, MPI_INT, &ft);
    MPI_Datatype rs;
    MPI_Type_create_resized(ft, 0, (MPI_Aint)(LEN / 8) * 2 * size * 4, &rs);
    MPI_Type_commit(&rs);
    MPI_Offset disp = ((MPI_Offset)3 << 30) + (MPI_Offset)rank * 4;
    CHECK_RC(MPI_File_set_view(fh, disp, MPI_INT, rs, "native", MPI_INFO_NULL));
    CHECK_RC(MPI_File_write_all_c(fh, out, (MPI_Count)LEN / 4, MPI_INT, &st));
    MPI_Get_count_c(&st, MPI_INT, &cnt);
    CHECK(cnt == LEN / 4, "write_all_c count %lld", (long long)cnt);
    MPI_Offset pos, boff;
    CHECK_RC(MPI_File_get_position(fh, &pos));
    CHECK(pos == LEN / 4, "position %lld", (long long)pos);
    CHECK_RC(MPI_File_get_byte_offset(fh, LEN / 8 + 3, &boff));
    CHECK(boff == disp + (MPI_Offset)(LEN / 8) * 2 * size * 4 + 3 * 2 * size * 4,
          "byte offset %lld", (long long)boff);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int fd = open(path, O_RDONLY);
        int v;
        for (int r = 0; r < size; r++)
            for (int i = 0; i < LEN / 4; i += 7) {
                off_t o = ((off_t)3 << 30) + (off_t)r * 4 + (off_t)i * 2 * size * 4;
                CHECK(pread(fd, &v, 4, o) == 4, "pread");
                unsigned char e[4];
                for (int j = 0; j < 4; j++)
                    e[j] = (unsigned char)((i * 4 + j) * 13 + r * 5 + 1);
                CHECK(!memcmp(&v, e, 4), "view past 2 GiB: rank %d int %d", r, i);
            }
        close(fd);
    }
    CHECK_RC(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    memset(in, 0, LEN);
    CHECK_RC(MPI_File_read_c(fh, in, (MPI_Count)LEN / 4, MPI_INT, &st));
    CHECK(!memcmp(in, out, LEN), "read_c through the view");
    MPI_Type_free(&ft);
    MPI_Type_free(&rs);
    CHECK_RC(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(io_file_size(path) < 0, "file left behind");
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
