/* Data representations (MPI 5.0 §14.5): "external32" (big-endian, long as
 * 4 bytes) and "internal" through views of several filetypes, checked
 * byte by byte with POSIX reads against values encoded here by hand;
 * filetype layouts scaled to the file's sizes (vector and subarray in
 * elements, struct byte displacements taken as given); type extents and
 * byte offsets in the file; MPI_Register_datarep(_c) with conversion
 * callbacks (a 16-bit int representation), MPI_CONVERSION_FN_NULL,
 * MPI_ERR_DUP_DATAREP, MPI_ERR_CONVERSION from a callback and from an
 * external32 overflow, an unknown representation refused on every rank;
 * collective and shared-pointer accesses under external32.  Each rank
 * works in its own 4 KiB region of one file. */
#include <stddef.h>
#include <stdint.h>

#include "io_test.h"

static int rank, size;
static char path[600];
static MPI_File fh;
static MPI_Offset base;   /* this rank's region */

static void be(unsigned char *d, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        d[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

/* The file's bytes [off, off + n) equal want. */
static void expect_bytes(MPI_Offset off, const unsigned char *want, size_t n, const char *what)
{
    CHECK_RC(MPI_File_sync(fh));
    size_t len;
    unsigned char *b = io_slurp(path, &len);
    CHECK((size_t)off + n <= len, "%s: file of %zu bytes, expected data up to %lld", what, len,
          (long long)(off + (MPI_Offset)n));
    for (size_t i = 0; i < n; i++)
        CHECK(b[off + i] == want[i], "%s: file byte %lld is 0x%02x, expected 0x%02x", what,
              (long long)(off + (MPI_Offset)i), b[off + i], want[i]);
    free(b);
}

static void fresh_region(void)
{
    static unsigned char zero[4096];
    MPI_Status st;
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    CHECK_RC(MPI_File_write_at(fh, base, zero, sizeof zero, MPI_BYTE, &st));
}

/* external32 ints and doubles through a vector filetype (strides in
 * elements: the same as native for 4- and 8-byte types). */
static void ext32_basic(void)
{
    fresh_region();
    MPI_Datatype vec;
    CHECK_RC(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    CHECK_RC(MPI_Type_commit(&vec));
    CHECK_RC(MPI_File_set_view(fh, base, MPI_INT, vec, "external32", MPI_INFO_NULL));
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset d;
    MPI_Datatype e, f;
    CHECK_RC(MPI_File_get_view(fh, &d, &e, &f, rep));
    CHECK(!strcmp(rep, "external32") && d == base, "get_view: \"%s\" at %lld", rep,
          (long long)d);
    CHECK_RC(MPI_Type_free(&f));
    int v[6] = {0x01020304, -2, 7 + rank, 0x7fffffff, 0, -123456};
    MPI_Status st;
    CHECK_RC(MPI_File_write_at(fh, 0, v, 6, MPI_INT, &st));
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == 6, "write count %d", cnt);
    /* tile of 5 ints' extent (3 blocks, stride 2): data at 0, 8, 16, then 20, 28, 36 */
    unsigned char want[44] = {0};
    for (int i = 0; i < 6; i++)
        be(want + (i / 3) * 20 + (i % 3) * 8, (uint32_t)v[i], 4);
    expect_bytes(base, want, sizeof want, "external32 ints");
    int back[6] = {0};
    CHECK_RC(MPI_File_read_at(fh, 0, back, 6, MPI_INT, &st));
    for (int i = 0; i < 6; i++)
        CHECK(back[i] == v[i], "int %d read back %d, wrote %d", i, back[i], v[i]);

    /* doubles, etype double, contiguous view */
    CHECK_RC(MPI_File_set_view(fh, base + 64, MPI_DOUBLE, MPI_DOUBLE, "external32",
                               MPI_INFO_NULL));
    double x[2] = {1.5, -0.1 * (rank + 1)};
    CHECK_RC(MPI_File_write(fh, x, 2, MPI_DOUBLE, &st));
    unsigned char wd[16];
    for (int i = 0; i < 2; i++) {
        uint64_t u;
        memcpy(&u, &x[i], 8);
        be(wd + 8 * i, u, 8);
    }
    expect_bytes(base + 64, wd, 16, "external32 doubles");
    double y[2];
    CHECK_RC(MPI_File_read_at(fh, 0, y, 2, MPI_DOUBLE, &st));
    CHECK(y[0] == x[0] && y[1] == x[1], "doubles read back %g %g", y[0], y[1]);
    MPI_Offset pos;
    CHECK_RC(MPI_File_get_position(fh, &pos));
    CHECK(pos == 2, "individual pointer at %lld etypes, expected 2", (long long)pos);
    CHECK_RC(MPI_Type_free(&vec));
}

/* long is 4 bytes in external32 (8 in memory here): a vector of longs
 * and a subarray of longs are laid out with 4-byte elements. */
static void ext32_long(void)
{
    fresh_region();
    MPI_Datatype vec, sub;
    CHECK_RC(MPI_Type_vector(4, 1, 2, MPI_LONG, &vec));
    CHECK_RC(MPI_Type_commit(&vec));
    CHECK_RC(MPI_File_set_view(fh, base, MPI_LONG, vec, "external32", MPI_INFO_NULL));
    MPI_Aint ext;
    CHECK_RC(MPI_File_get_type_extent(fh, MPI_LONG, &ext));
    CHECK(ext == 4, "file extent of MPI_LONG %ld, expected 4", (long)ext);
    CHECK_RC(MPI_File_get_type_extent(fh, vec, &ext));
    CHECK(ext == 28, "file extent of vector(4,1,2,LONG) %ld, expected 28", (long)ext);
    MPI_Count extc;
    CHECK_RC(MPI_File_get_type_extent_c(fh, MPI_INT, &extc));
    CHECK(extc == 4, "file extent of MPI_INT %lld", (long long)extc);
    MPI_Offset bo;
    CHECK_RC(MPI_File_get_byte_offset(fh, 5, &bo));   /* tile 1 (28 bytes), block 1 */
    CHECK(bo == base + 28 + 8, "byte offset of etype 5: %lld, expected %lld", (long long)bo,
          (long long)(base + 36));
    long v[5] = {1, -1, 0x12345678L, -0x7fffffffL, 100 + rank};
    MPI_Status st;
    CHECK_RC(MPI_File_write_at(fh, 0, v, 5, MPI_LONG, &st));
    unsigned char want[32] = {0};
    for (int i = 0; i < 5; i++)
        be(want + (i / 4) * 28 + (i % 4) * 8, (uint32_t)v[i], 4);
    expect_bytes(base, want, sizeof want, "external32 longs");
    long back[5] = {0};
    int cnt;
    CHECK_RC(MPI_File_read_at(fh, 0, back, 5, MPI_LONG, &st));
    MPI_Get_count(&st, MPI_LONG, &cnt);
    CHECK(cnt == 5, "read count %d", cnt);
    for (int i = 0; i < 5; i++)
        CHECK(back[i] == v[i], "long %d read back %ld, wrote %ld", i, back[i], v[i]);
    /* a value that does not fit 4 bytes */
    long big = 1L << 40;
    int rc = MPI_File_write_at(fh, 0, &big, 1, MPI_LONG, &st);
    if (sizeof(long) > 4)
        EXPECT_CLASS(rc, MPI_ERR_CONVERSION);

    /* 4x4 longs, the 2x2 block at (1,1) (C order): rows 16 bytes apart */
    int sizes[2] = {4, 4}, subs[2] = {2, 2}, starts[2] = {1, 1};
    CHECK_RC(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_LONG, &sub));
    CHECK_RC(MPI_Type_commit(&sub));
    fresh_region();
    CHECK_RC(MPI_File_set_view(fh, base, MPI_LONG, sub, "external32", MPI_INFO_NULL));
    CHECK_RC(MPI_File_get_type_extent(fh, sub, &ext));
    CHECK(ext == 64, "file extent of the subarray %ld, expected 64", (long)ext);
    long w[4] = {11, 12, 13, 14 + rank};
    CHECK_RC(MPI_File_write_all(fh, w, 4, MPI_LONG, &st));
    unsigned char ws[64] = {0};
    int at[4] = {20, 24, 36, 40};
    for (int i = 0; i < 4; i++)
        be(ws + at[i], (uint32_t)w[i], 4);
    expect_bytes(base, ws, sizeof ws, "external32 subarray of longs");
    long r[4] = {0};
    CHECK_RC(MPI_File_read_at_all(fh, 0, r, 4, MPI_LONG, &st));
    for (int i = 0; i < 4; i++)
        CHECK(r[i] == w[i], "subarray long %d read back %ld", i, r[i]);
    CHECK_RC(MPI_Type_free(&vec));
    CHECK_RC(MPI_Type_free(&sub));
}

/* A struct filetype's byte displacements are the file's (no scaling):
 * {int at 0, double at 4}, extent 12; memory is the native struct. */
static void ext32_struct(void)
{
    fresh_region();
    struct s {
        int i;
        double d;
    } m[2] = {{5, 2.25}, {-6 - rank, -8.5}};
    int bl[2] = {1, 1};
    MPI_Aint fd[2] = {0, 4}, md[2] = {offsetof(struct s, i), offsetof(struct s, d)};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, fst, mst;
    CHECK_RC(MPI_Type_create_struct(2, bl, fd, ty, &fst));
    CHECK_RC(MPI_Type_commit(&fst));
    CHECK_RC(MPI_Type_create_struct(2, bl, md, ty, &mst));
    CHECK_RC(MPI_Type_commit(&mst));
    CHECK_RC(MPI_File_set_view(fh, base, MPI_BYTE, fst, "external32", MPI_INFO_NULL));
    MPI_Status st;
    CHECK_RC(MPI_File_write_at(fh, 0, m, 2, mst, &st));
    unsigned char want[24];
    for (int k = 0; k < 2; k++) {
        uint64_t u;
        memcpy(&u, &m[k].d, 8);
        be(want + 12 * k, (uint32_t)m[k].i, 4);
        be(want + 12 * k + 4, u, 8);
    }
    expect_bytes(base, want, sizeof want, "external32 struct");
    struct s b[2];
    memset(b, 0, sizeof b);
    CHECK_RC(MPI_File_read_at(fh, 0, b, 2, mst, &st));
    for (int k = 0; k < 2; k++)
        CHECK(b[k].i == m[k].i && b[k].d == m[k].d, "struct %d read back {%d, %g}", k, b[k].i,
              b[k].d);
    CHECK_RC(MPI_Type_free(&fst));
    CHECK_RC(MPI_Type_free(&mst));
}

/* "internal" is smartmap's own format: the native bytes. */
static void internal_rep(void)
{
    fresh_region();
    CHECK_RC(MPI_File_set_view(fh, base, MPI_INT, MPI_INT, "internal", MPI_INFO_NULL));
    int v[3] = {0x0a0b0c0d, rank, -1};
    MPI_Status st;
    CHECK_RC(MPI_File_write_at(fh, 0, v, 3, MPI_INT, &st));
    expect_bytes(base, (const unsigned char *)v, sizeof v, "internal ints");
    MPI_Aint ext;
    CHECK_RC(MPI_File_get_type_extent(fh, MPI_LONG, &ext));
    CHECK(ext == (MPI_Aint)sizeof(long), "internal extent of MPI_LONG %ld", (long)ext);
}

/* ---- a registered representation: ints as 16-bit little-endian ---- */

static int calls_w, calls_r, fail_next;
static MPI_Count last_count;

static int x16_extent(MPI_Datatype t, MPI_Aint *ext, void *state)
{
    CHECK(state == &calls_w, "extra_state not passed");
    int s;
    MPI_Type_size(t, &s);
    *ext = t == MPI_INT ? 2 : s;
    return MPI_SUCCESS;
}

/* Only MPI_INT streams are used with it (count items of int). */
static int x16_write(void *user, MPI_Datatype t, int count, void *file, MPI_Offset pos,
                     void *state)
{
    (void)t;
    (void)state;
    calls_w++;
    last_count = count;
    if (fail_next)
        return MPI_ERR_OTHER;
    const int *u = (const int *)user + pos;
    unsigned char *f = file;
    for (int i = 0; i < count; i++) {
        f[2 * i] = (unsigned char)u[i];
        f[2 * i + 1] = (unsigned char)(u[i] >> 8);
    }
    return MPI_SUCCESS;
}

static int x16_read(void *user, MPI_Datatype t, int count, void *file, MPI_Offset pos,
                    void *state)
{
    (void)t;
    (void)state;
    calls_r++;
    int *u = (int *)user + pos;
    const unsigned char *f = file;
    for (int i = 0; i < count; i++)
        u[i] = (int16_t)(f[2 * i] | f[2 * i + 1] << 8);
    return MPI_SUCCESS;
}

static int x16c_write(void *user, MPI_Datatype t, MPI_Count count, void *file,
                      MPI_Offset pos, void *state)
{
    return x16_write(user, t, (int)count, file, pos, state);
}

static int x16c_read(void *user, MPI_Datatype t, MPI_Count count, void *file, MPI_Offset pos,
                     void *state)
{
    return x16_read(user, t, (int)count, file, pos, state);
}

static void registered(void)
{
    CHECK_RC(MPI_Register_datarep("x16", x16_read, x16_write, x16_extent, &calls_w));
    EXPECT_CLASS(MPI_Register_datarep("x16", x16_read, x16_write, x16_extent, &calls_w),
                 MPI_ERR_DUP_DATAREP);
    EXPECT_CLASS(MPI_Register_datarep("external32", NULL, NULL, x16_extent, NULL),
                 MPI_ERR_DUP_DATAREP);
    EXPECT_CLASS(MPI_Register_datarep("native", NULL, NULL, x16_extent, NULL),
                 MPI_ERR_DUP_DATAREP);
    CHECK_RC(MPI_Register_datarep_c("x16c", x16c_read, x16c_write, x16_extent, &calls_w));
    EXPECT_CLASS(MPI_Register_datarep_c("x16", x16c_read, x16c_write, x16_extent, &calls_w),
                 MPI_ERR_DUP_DATAREP);
    /* as-is representation: the native bytes */
    CHECK_RC(MPI_Register_datarep("same", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                  x16_extent, &calls_w));

    const char *names[2] = {"x16", "x16c"};
    for (int n = 0; n < 2; n++) {
        fresh_region();
        MPI_Datatype vec;
        CHECK_RC(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
        CHECK_RC(MPI_Type_commit(&vec));
        CHECK_RC(MPI_File_set_view(fh, base, MPI_INT, vec, names[n], MPI_INFO_NULL));
        MPI_Aint ext;
        CHECK_RC(MPI_File_get_type_extent(fh, MPI_INT, &ext));
        CHECK(ext == 2, "%s: file extent of MPI_INT %ld", names[n], (long)ext);
        CHECK_RC(MPI_File_get_type_extent(fh, vec, &ext));
        CHECK(ext == 10, "%s: file extent of vector(3,1,2,INT) %ld", names[n], (long)ext);
        MPI_Offset bo;
        CHECK_RC(MPI_File_get_byte_offset(fh, 4, &bo));
        CHECK(bo == base + 10 + 4, "%s: byte offset of etype 4: %lld", names[n],
              (long long)bo);
        int v[6] = {1, -2, 300, 0x1234, -32768, 77 + rank};
        MPI_Status st;
        int w0 = calls_w;
        CHECK_RC(MPI_File_write_at(fh, 0, v, 6, MPI_INT, &st));
        CHECK(calls_w > w0 && last_count >= 1, "%s: write conversion not called", names[n]);
        unsigned char want[20] = {0};
        for (int i = 0; i < 6; i++) {
            unsigned char *p = want + (i / 3) * 10 + (i % 3) * 4;
            p[0] = (unsigned char)v[i];
            p[1] = (unsigned char)(v[i] >> 8);
        }
        expect_bytes(base, want, sizeof want, names[n]);
        int back[6] = {0}, r0 = calls_r, cnt;
        CHECK_RC(MPI_File_read_at(fh, 0, back, 6, MPI_INT, &st));
        CHECK(calls_r > r0, "%s: read conversion not called", names[n]);
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(cnt == 6, "%s: read count %d", names[n], cnt);
        for (int i = 0; i < 6; i++)
            CHECK(back[i] == v[i], "%s: int %d read back %d, wrote %d", names[n], i, back[i],
                  v[i]);
        fail_next = 1;   /* the callback's error is MPI_ERR_CONVERSION */
        EXPECT_CLASS(MPI_File_write_at(fh, 0, v, 1, MPI_INT, &st), MPI_ERR_CONVERSION);
        fail_next = 0;
        CHECK_RC(MPI_Type_free(&vec));
    }

    /* no conversion functions: native bytes, only doubles (same extents) */
    fresh_region();
    CHECK_RC(MPI_File_set_view(fh, base, MPI_DOUBLE, MPI_DOUBLE, "same", MPI_INFO_NULL));
    double d[2] = {3.0, rank - 0.5};
    MPI_Status st;
    CHECK_RC(MPI_File_write_at(fh, 0, d, 2, MPI_DOUBLE, &st));
    expect_bytes(base, (const unsigned char *)d, sizeof d, "FN_NULL doubles");
    /* ints have file extent 2 there, and no conversion to make them so */
    CHECK_RC(MPI_File_set_view(fh, base, MPI_INT, MPI_INT, "same", MPI_INFO_NULL));
    int one = 1;
    EXPECT_CLASS(MPI_File_write_at(fh, 0, &one, 1, MPI_INT, &st), MPI_ERR_CONVERSION);
}

/* Errors: unknown representation on every rank; bad arguments. */
static void errors(void)
{
    int rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL);
    EXPECT_CLASS(rc, MPI_ERR_UNSUPPORTED_DATAREP);
    /* only rank 0 names an unknown one: every rank fails alike */
    rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, rank ? "native" : "bogus", MPI_INFO_NULL);
    CHECK(rc != MPI_SUCCESS, "a view unknown to rank 0 was accepted");
    io_same_class(MPI_COMM_WORLD, smap_err_class(rc));
    EXPECT_CLASS(MPI_Register_datarep("noext", NULL, NULL, NULL, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Register_datarep("", NULL, NULL, x16_extent, &calls_w), MPI_ERR_ARG);
    char longname[MPI_MAX_DATAREP_STRING + 8];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    EXPECT_CLASS(MPI_Register_datarep(longname, NULL, NULL, x16_extent, &calls_w), MPI_ERR_ARG);
}

/* Shared pointer under external32: longs, 4 file bytes each. */
static void ext32_shared(void)
{
    fresh_region();
    MPI_Barrier(MPI_COMM_WORLD);
    /* every rank's view over the same shared region: rank 0's */
    MPI_Offset b0 = 4096 * 4;
    CHECK_RC(MPI_File_set_view(fh, b0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL));
    long v[2] = {rank * 10 + 1, rank * 10 + 2};
    MPI_Status st;
    CHECK_RC(MPI_File_write_ordered(fh, v, 2, MPI_LONG, &st));
    MPI_Offset sp;
    CHECK_RC(MPI_File_get_position_shared(fh, &sp));
    CHECK(sp == 2 * size, "shared pointer at %lld, expected %d", (long long)sp, 2 * size);
    MPI_Barrier(MPI_COMM_WORLD);   /* every rank's record is in */
    unsigned char want[8 * 16];
    for (int r = 0; r < size; r++)
        for (int i = 0; i < 2; i++)
            be(want + 8 * r + 4 * i, (uint32_t)(r * 10 + 1 + i), 4);
    expect_bytes(b0, want, 8 * (size_t)size, "external32 ordered longs");
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 16, "at most 16 ranks");
    io_name(MPI_COMM_WORLD, "datarep", path, sizeof path);
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                           MPI_INFO_NULL, &fh));
    base = 4096 * (MPI_Offset)rank;
    ext32_basic();
    ext32_long();
    ext32_struct();
    internal_rep();
    registered();
    errors();
    ext32_shared();
    CHECK_RC(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(path);
    if (rank == 0)
        printf("io_datarep: %d ranks ok\n", size);
    CHECK_RC(MPI_Finalize());
    return 0;
}
