/* Collective buffering (two-phase I/O with node aggregation): 2-D and 3-D
 * subarray decompositions (every rank's pieces interleave with the
 * others' in each row), written with MPI_File_write_all from contiguous
 * memory and from memory with ghost cells (a subarray memory type), read
 * back with MPI_File_read_all, the file checked byte by byte with POSIX
 * reads; a view leaving holes keeps the file's bytes there; small
 * cb_buffer_size (many windows), one or several aggregators (cb_nodes,
 * cb_config_list; one per node across nodes, tests/net) reported by
 * MPI_File_get_info; romio_cb_write/read
 * enable, disable, automatic; hints differing between ranks (rank 0's
 * win); a collective read past the end of file; the individual pointer
 * after a collective access. */
#include <stdint.h>

#include "io_test.h"

static int rank, size;
static char path[600];

static int32_t gval(long i)
{
    return (int32_t)(i * 2654435761u + 12345);
}

/* The file holds the global array (n ints, gval), with `fill` bytes where
 * mask[i] == 0 (holes). */
static void check_file(long n, const unsigned char *mask, unsigned char fill, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        size_t len;
        unsigned char *b = io_slurp(path, &len);
        CHECK(len >= (size_t)n * 4, "%s: file of %zu bytes, want %ld", what, len, n * 4);
        for (long i = 0; i < n; i++) {
            int32_t v = gval(i);
            const unsigned char *e = (const unsigned char *)&v;
            for (int k = 0; k < 4; k++) {
                unsigned char want = !mask || mask[i] ? e[k] : fill;
                CHECK(b[i * 4 + k] == want, "%s: file byte %ld is 0x%02x, want 0x%02x (element "
                      "%ld)", what, i * 4 + k, b[i * 4 + k], want, i);
            }
        }
        free(b);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static MPI_Info hints(const char *cbw, const char *cbr, const char *buf, const char *nodes)
{
    MPI_Info in;
    MPI_Info_create(&in);
    MPI_Info_set(in, "romio_cb_write", cbw);
    MPI_Info_set(in, "romio_cb_read", cbr);
    MPI_Info_set(in, "cb_buffer_size", buf);
    MPI_Info_set(in, "cb_nodes", nodes);
    MPI_Info_set(in, "cb_config_list", "*:8");
    return in;
}

/* A ndims-D array of dims[] ints split along its last (fastest) dimension
 * between the ranks: each rank's block is interleaved with every other's
 * in each row. ghost: memory has a 1-element border around the block. */
static void decomposition(int ndims, const int *dims, int ghost, MPI_Info in, const char *what)
{
    int sub[3], start[3], mdims[3], mstart[3];
    long n = 1, mine = 1;
    for (int d = 0; d < ndims; d++) {
        sub[d] = dims[d];
        start[d] = 0;
        n *= dims[d];
    }
    int last = ndims - 1, w = dims[last] / size, extra = dims[last] % size;
    sub[last] = w + (rank < extra);
    start[last] = rank * w + (rank < extra ? rank : extra);
    for (int d = 0; d < ndims; d++) {
        mine *= sub[d];
        mdims[d] = sub[d] + 2 * ghost;
        mstart[d] = ghost;
    }
    MPI_Datatype ft, mt;
    CHECK_RC(MPI_Type_create_subarray(ndims, dims, sub, start, MPI_ORDER_C, MPI_INT, &ft));
    CHECK_RC(MPI_Type_commit(&ft));
    CHECK_RC(MPI_Type_create_subarray(ndims, mdims, sub, mstart, MPI_ORDER_C, MPI_INT, &mt));
    CHECK_RC(MPI_Type_commit(&mt));
    long mn = 1;
    for (int d = 0; d < ndims; d++)
        mn *= mdims[d];
    int32_t *m = malloc(mn * 4), *back = malloc(mn * 4);
    /* the local block's values, by global index */
    for (long i = 0; i < mn; i++)
        m[i] = -1;
    long idx[3];
    for (long k = 0; k < mine; k++) {
        long r = k, g = 0, l = 0;
        for (int d = last; d >= 0; d--) {
            idx[d] = r % sub[d];
            r /= sub[d];
        }
        for (int d = 0; d < ndims; d++) {
            g = g * dims[d] + start[d] + idx[d];
            l = l * mdims[d] + mstart[d] + idx[d];
        }
        m[l] = gval(g);
    }
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, in, &fh));
    CHECK_RC(MPI_File_set_size(fh, 0));
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    MPI_Status st;
    int cnt;
    if (ghost)
        CHECK_RC(MPI_File_write_all(fh, m, 1, mt, &st));
    else
        CHECK_RC(MPI_File_write_all(fh, m, (int)mine, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == (int)mine, "%s: write_all count %d, want %ld", what, cnt, mine);
    MPI_Offset pos;
    CHECK_RC(MPI_File_get_position(fh, &pos));
    CHECK(pos == mine, "%s: pointer at %lld after write_all, want %ld", what, (long long)pos,
          mine);
    check_file(n, NULL, 0, what);
    for (long i = 0; i < mn; i++)
        back[i] = -1;
    if (ghost)
        CHECK_RC(MPI_File_read_at_all(fh, 0, back, 1, mt, &st));
    else
        CHECK_RC(MPI_File_read_at_all(fh, 0, back, (int)mine, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == (int)mine, "%s: read_all count %d, want %ld", what, cnt, mine);
    for (long i = 0; i < mn; i++)
        CHECK(back[i] == m[i], "%s: element %ld of memory read back %d, want %d", what, i,
              back[i], m[i]);
    CHECK_RC(MPI_File_close(&fh));
    free(m);
    free(back);
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
}

/* Every rank writes every other int of its own interleaved rows: half the
 * file stays as it was (0xAA), the holes inside each aggregator window. */
static void holes(MPI_Info in)
{
    const long n = 4096;
    unsigned char *mask = calloc(n, 1);
    if (rank == 0) {
        unsigned char *pre = malloc(n * 4);
        memset(pre, 0xAA, n * 4);
        io_write_posix(path, pre, n * 4);
        free(pre);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* rank r owns elements i with (i / 2) % size == r; writes the even ones */
    for (long i = 0; i < n; i += 2)
        mask[i] = 1;
    MPI_Datatype ft, rs;
    CHECK_RC(MPI_Type_vector(1, 1, 2, MPI_INT, &ft));
    CHECK_RC(MPI_Type_create_resized(ft, 0, 8L * size, &rs));
    CHECK_RC(MPI_Type_commit(&rs));
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, in, &fh));
    CHECK_RC(MPI_File_set_view(fh, 8L * rank, MPI_INT, rs, "native", MPI_INFO_NULL));
    long mine = 0;
    int32_t *v = malloc(n * 4);
    for (long i = 2L * rank; i < n; i += 2L * size)
        v[mine++] = gval(i);
    MPI_Status st;
    CHECK_RC(MPI_File_write_at_all(fh, 0, v, (int)mine, MPI_INT, &st));
    CHECK_RC(MPI_File_close(&fh));
    check_file(n, mask, 0xAA, "holes");
    free(v);
    free(mask);
    MPI_Type_free(&ft);
    MPI_Type_free(&rs);
}

/* A collective read whose views run past the end of file. */
static void past_eof(MPI_Info in)
{
    const long n = 1000;   /* ints in the file */
    if (rank == 0) {
        int32_t *a = malloc(n * 4);
        for (long i = 0; i < n; i++)
            a[i] = gval(i);
        io_write_posix(path, a, n * 4);
        free(a);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Datatype ft, rs;
    CHECK_RC(MPI_Type_contiguous(4, MPI_INT, &ft));
    CHECK_RC(MPI_Type_create_resized(ft, 0, 16L * size, &rs));
    CHECK_RC(MPI_Type_commit(&rs));
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, in, &fh));
    CHECK_RC(MPI_File_set_view(fh, 16L * rank, MPI_INT, rs, "native", MPI_INFO_NULL));
    long want = 0;   /* ints of this rank's view below n */
    for (long i = 0; i < 2 * n; i++)
        if ((i / 4) % size == rank && i < n)
            want++;
    int32_t *b = calloc(2 * n, 4);
    MPI_Status st;
    CHECK_RC(MPI_File_read_all(fh, b, (int)(2 * n / size), MPI_INT, &st));
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == want, "past_eof: read_all count %d, want %ld", cnt, want);
    long k = 0;
    for (long i = 0; i < n; i++)
        if ((i / 4) % size == rank) {
            CHECK(b[k] == gval(i), "past_eof: element %ld read %d, want %d", i, b[k], gval(i));
            k++;
        }
    MPI_Offset pos;
    CHECK_RC(MPI_File_get_position(fh, &pos));
    CHECK(pos == want, "past_eof: pointer at %lld, want %ld", (long long)pos, want);
    CHECK_RC(MPI_File_close(&fh));
    free(b);
    MPI_Type_free(&ft);
    MPI_Type_free(&rs);
}

static void reported(MPI_Info in, const char *nodes_want)
{
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, in, &fh));
    MPI_Info used;
    CHECK_RC(MPI_File_get_info(fh, &used));
    char v[MPI_MAX_INFO_VAL];
    int flag;
    MPI_Info_get(used, "cb_nodes", sizeof v, v, &flag);
    CHECK(flag && !strcmp(v, nodes_want), "cb_nodes reported %s, want %s", v, nodes_want);
    MPI_Info_get(used, "cb_buffer_size", sizeof v, v, &flag);
    CHECK(flag, "cb_buffer_size not reported");
    MPI_Info_free(&used);
    CHECK_RC(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_name(MPI_COMM_WORLD, "twophase", path, sizeof path);
    MPI_Comm node;
    int lrank, lead, nnodes;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &lrank);
    lead = lrank == 0;
    MPI_Allreduce(&lead, &nnodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    const char *modes[3][2] = {{"automatic", "automatic"}, {"enable", "enable"},
                               {"disable", "disable"}};
    const char *bufs[2] = {"4096", "16777216"};
    char nodes[16];
    for (int m = 0; m < 3; m++)
        for (int b = 0; b < 2; b++)
            for (int a = 1; a <= 2; a++) {
                snprintf(nodes, sizeof nodes, "%d", a);
                MPI_Info in = hints(modes[m][0], modes[m][1], bufs[b], nodes);
                char what[128];
                int d2[2] = {37, 29}, d3[3] = {5, 7, 13};
                snprintf(what, sizeof what, "2-D %s buf %s aggregators %d", modes[m][0], bufs[b], a);
                decomposition(2, d2, 0, in, what);
                snprintf(what, sizeof what, "2-D ghost %s buf %s aggregators %d", modes[m][0],
                         bufs[b], a);
                decomposition(2, d2, 1, in, what);
                snprintf(what, sizeof what, "3-D ghost %s buf %s aggregators %d", modes[m][0],
                         bufs[b], a);
                decomposition(3, d3, 1, in, what);
                holes(in);
                past_eof(in);
                /* one node: cb_nodes (at most the ranks); across nodes one
                 * aggregator per node */
                snprintf(nodes, sizeof nodes, "%d", nnodes > 1 ? nnodes : a < size ? a : size);
                reported(in, nodes);
                MPI_Info_free(&in);
            }
    /* hints that differ between ranks: rank 0's are every rank's (the
     * collective paths must agree), reported alike */
    {
        MPI_Info in = hints(rank ? "disable" : "enable", rank ? "automatic" : "enable", "8192",
                            "2");
        int d2[2] = {23, 31};
        decomposition(2, d2, 1, in, "hints differing between ranks");
        MPI_File fh;
        CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, in, &fh));
        MPI_Info used;
        char v[MPI_MAX_INFO_VAL];
        int flag;
        CHECK_RC(MPI_File_get_info(fh, &used));
        MPI_Info_get(used, "romio_cb_write", sizeof v, v, &flag);
        CHECK(flag && !strcmp(v, "enable"), "romio_cb_write reported %s, rank 0 set enable", v);
        MPI_Info_free(&used);
        CHECK_RC(MPI_File_set_info(fh, rank ? in : MPI_INFO_NULL));
        CHECK_RC(MPI_File_close(&fh));
        MPI_Info_free(&in);
    }
    if (rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("io_twophase: %d ranks ok\n", size);
    CHECK_RC(MPI_Finalize());
    return 0;
}
