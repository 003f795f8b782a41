/* File views: vector, indexed, subarray, struct and resized filetypes
 * (several ranks, each with its own displacement or interleaved), written
 * through explicit offsets and the individual pointer from contiguous and
 * strided memory, checked byte by byte against a model of the view by
 * reading the file with POSIX, and read back through the view; byte
 * offsets, seeks, type extents, the end of file, the view's errors. */
#include "io_test.h"

static int rank, size;
static char path[600];
static MPI_Info case_info = MPI_INFO_NULL;   /* the open's hints in run_case */

struct blk {
    long off, len;
};
struct kase {
    const char *name;
    MPI_Datatype ft, et;
    struct blk b[4];
    int nb;
    long ext;         /* bytes: the model's tile extent */
    long disp_rank;   /* displacement step per rank */
};

static long model_size(const struct kase *k)
{
    long s = 0;
    for (int i = 0; i < k->nb; i++)
        s += k->b[i].len;
    return s;
}

/* The file offset of stream byte s of rank r's view, by the model. */
static long model_map(const struct kase *k, long disp, long s)
{
    long fs = model_size(k), tile = s / fs, w = s % fs;
    for (int i = 0; i < k->nb; i++) {
        if (w < k->b[i].len)
            return disp + tile * k->ext + k->b[i].off + w;
        w -= k->b[i].len;
    }
    return -1;
}

static unsigned char val(int r, long i)
{
    return (unsigned char)(r * 31 + i * 7 + 3);
}

static void run_case(struct kase *k)
{
    MPI_File fh;
    if (case_info == MPI_INFO_NULL)
        MPI_Type_commit(&k->ft);
    int esz;
    MPI_Type_size(k->et, &esz);
    long fs = model_size(k);
    int fsz;
    MPI_Type_size(k->ft, &fsz);
    CHECK(fsz == fs, "%s: model size %ld, type size %d", k->name, fs, fsz);
    long total = 3 * fs + fs / 2 / esz * esz;   /* three tiles and a part of one */
    long nelem = total / esz, half = nelem / 2;
    long disp = 64 + rank * k->disp_rank;

    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, case_info,
                           &fh));
    CHECK_RC(MPI_File_set_size(fh, 0));
    CHECK_RC(MPI_File_set_view(fh, disp, k->et, k->ft, "native", MPI_INFO_NULL));

    unsigned char *data = malloc(total), *back = calloc(1, total),
                  *holey = calloc(2, total);
    for (long i = 0; i < total; i++)
        data[i] = val(rank, i);
    /* the first half at an explicit offset from contiguous memory, the
     * rest at the individual pointer from memory with a hole after each
     * etype */
    MPI_Status st;
    int cnt;
    CHECK_RC(MPI_File_write_at(fh, 0, data, (int)(half * esz), MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK(cnt == half * esz, "%s: write_at count %d", k->name, cnt);
    MPI_Datatype holes;
    MPI_Type_vector((int)(nelem - half), esz, 2 * esz, MPI_BYTE, &holes);
    MPI_Type_commit(&holes);
    for (long i = 0; i < nelem - half; i++)
        memcpy(holey + 2 * i * esz, data + (half + i) * esz, esz);
    CHECK_RC(MPI_File_seek(fh, half, MPI_SEEK_SET));
    CHECK_RC(MPI_File_write(fh, holey, 1, holes, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK(cnt == (nelem - half) * esz, "%s: write count %d", k->name, cnt);
    MPI_Offset pos;
    CHECK_RC(MPI_File_get_position(fh, &pos));
    CHECK(pos == nelem, "%s: position %lld after writing %ld etypes", k->name, (long long)pos,
          nelem);
    CHECK_RC(MPI_File_sync(fh));

    /* the file, byte by byte, against the model of every rank's view */
    if (rank == 0) {
        size_t len;
        unsigned char *f = io_slurp(path, &len);
        unsigned char *want = calloc(1, len + 1);
        long end = 0;
        for (int r = 0; r < size; r++)
            for (long s = 0; s < total; s++) {
                long o = model_map(k, 64 + r * k->disp_rank, s);
                CHECK(o >= 0 && (size_t)o < len, "%s: byte %ld of rank %d at %ld, file %zu",
                      k->name, s, r, o, len);
                want[o] = val(r, s);
                if (o + 1 > end)
                    end = o + 1;
            }
        CHECK((long)len == end, "%s: file is %zu bytes, the views end at %ld", k->name, len,
              end);
        for (size_t i = 0; i < len; i++)
            CHECK(f[i] == want[i], "%s: file byte %zu is %u, want %u", k->name, i, f[i],
                  want[i]);
        free(f);
        free(want);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* back through the view: contiguous, then into holey memory */
    CHECK_RC(MPI_File_read_at(fh, 0, back, (int)total, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK(cnt == total && !memcmp(back, data, total), "%s: read_at back", k->name);
    memset(holey, 0xEE, 2 * total);
    CHECK_RC(MPI_File_seek(fh, half, MPI_SEEK_SET));
    CHECK_RC(MPI_File_read(fh, holey, 1, holes, &st));
    for (long i = 0; i < nelem - half; i++) {
        CHECK(!memcmp(holey + 2 * i * esz, data + (half + i) * esz, esz),
              "%s: strided read, etype %ld", k->name, i);
        for (int j = 0; j < esz; j++)
            CHECK(holey[(2 * i + 1) * esz + j] == 0xEE, "%s: read into a hole", k->name);
    }
    /* past the end of this rank's data: short counts, not errors */
    if (rank == size - 1 || k->disp_rank < 0) {
        CHECK_RC(MPI_File_read_at(fh, nelem, back, (int)total, MPI_BYTE, &st));
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == 0, "%s: read past the end got %d bytes", k->name, cnt);
    }

    /* byte offsets by the model */
    for (long e = 0; e < nelem; e += 3) {
        MPI_Offset off;
        CHECK_RC(MPI_File_get_byte_offset(fh, e, &off));
        CHECK(off == model_map(k, disp, e * esz), "%s: byte offset of %ld is %lld, want %ld",
              k->name, e, (long long)off, model_map(k, disp, e * esz));
    }
    /* the view as set */
    MPI_Offset d;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    CHECK_RC(MPI_File_get_view(fh, &d, &et, &ft, rep));
    CHECK(d == disp && et == k->et && !strcmp(rep, "native"), "%s: get_view", k->name);
    int ni, na, nt, comb;
    MPI_Type_get_envelope(ft, &ni, &na, &nt, &comb);
    int comb0;
    MPI_Type_get_envelope(k->ft, &ni, &na, &nt, &comb0);
    CHECK(comb == comb0, "%s: filetype combiner %d, want %d", k->name, comb, comb0);
    MPI_Type_free(&ft);
    MPI_Aint ext;
    CHECK_RC(MPI_File_get_type_extent(fh, k->ft, &ext));
    CHECK(ext == k->ext, "%s: type extent %ld, model %ld", k->name, (long)ext, k->ext);
    MPI_Count extc;
    CHECK_RC(MPI_File_get_type_extent_c(fh, k->ft, &extc));
    CHECK(extc == k->ext, "%s: type extent _c", k->name);

    MPI_Type_free(&holes);
    CHECK_RC(MPI_File_close(&fh));
    free(data);
    free(back);
    free(holey);
}

/* Reads of a view of 3-byte blocks with 4-byte holes, sieved (one pread
 * per span) or not, with large and tiny sieve buffers, in a file that
 * ends inside a block: the same bytes and the same short count. */
static void sieve_eof(void)
{
    const long L = 5 + 7 * 400 + 2;
    unsigned char *img = malloc(L);
    for (long i = 0; i < L; i++)
        img[i] = (unsigned char)(i * 11 + 1);
    if (rank == 0)
        io_write_posix(path, img, L);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    MPI_Datatype ft;
    MPI_Type_vector(1000, 3, 7, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    CHECK_RC(MPI_File_set_view(fh, 5, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    static const char *const modes[][2] = {{"enable", "4194304"}, {"disable", "4194304"},
                                           {"enable", "64"}, {"automatic", "5"}};
    unsigned char *buf = malloc(3000);
    for (int m = 0; m < 4; m++) {
        MPI_Info in;
        MPI_Info_create(&in);
        MPI_Info_set(in, "romio_ds_read", modes[m][0]);
        MPI_Info_set(in, "ind_rd_buffer_size", modes[m][1]);
        CHECK_RC(MPI_File_set_info(fh, in));
        MPI_Info_free(&in);
        for (long start = 0; start <= 1201; start += 100 + 401 * (start > 1000)) {
            MPI_Status st;
            int cnt;
            memset(buf, 0, 3000);
            CHECK_RC(MPI_File_read_at(fh, start, buf, (int)(3000 - start), MPI_BYTE, &st));
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK(cnt == 1202 - start, "ds %s/%s from %ld: %d bytes, want %ld", modes[m][0],
                  modes[m][1], start, cnt, 1202 - start);
            for (long i = 0; i < cnt; i++) {
                long sb = start + i, o = 5 + (sb / 3) * 7 + sb % 3;
                CHECK(buf[i] == img[o], "ds %s/%s: byte %ld", modes[m][0], modes[m][1], sb);
            }
        }
    }
    MPI_Type_free(&ft);
    CHECK_RC(MPI_File_close(&fh));
    free(buf);
    free(img);
}

static void errors_and_eof(void)
{
    MPI_File fh;
    MPI_Status st;
    int cnt;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE |
                           MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    CHECK_RC(MPI_File_set_size(fh, 0));
    if (rank == 0) {
        char b[103];
        for (int i = 0; i < 103; i++)
            b[i] = (char)i;
        CHECK_RC(MPI_File_write_at(fh, 0, b, 103, MPI_CHAR, &st));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* a read crossing the end of file: the short count */
    char r[64];
    CHECK_RC(MPI_File_read_at(fh, 98, r, 20, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK(cnt == 5 && r[0] == 98 && r[4] == 102, "short read: %d bytes", cnt);
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == MPI_UNDEFINED, "5 bytes are no whole number of ints");
    MPI_Count el;
    MPI_Get_elements_x(&st, MPI_BYTE, &el);
    CHECK(el == 5, "elements %lld", (long long)el);
    CHECK_RC(MPI_File_read_at(fh, 1000, r, 20, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK(cnt == 0, "read far past the end: %d", cnt);

    /* seeks relative to the end, in etypes of the view */
    CHECK_RC(MPI_File_set_view(fh, 8, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MPI_Offset pos;
    CHECK_RC(MPI_File_seek(fh, 0, MPI_SEEK_END));
    CHECK_RC(MPI_File_get_position(fh, &pos));
    CHECK(pos == 24, "SEEK_END at %lld, want ceil(95/4) = 24", (long long)pos);
    CHECK_RC(MPI_File_seek(fh, -4, MPI_SEEK_CUR));
    CHECK_RC(MPI_File_get_position(fh, &pos));
    CHECK(pos == 20, "SEEK_CUR");
    int v;
    CHECK_RC(MPI_File_read(fh, &v, 1, MPI_INT, &st));
    unsigned char *pv = (unsigned char *)&v;
    CHECK(pv[0] == 88 && pv[3] == 91, "read at the pointer after seeks");
    EXPECT_CLASS(MPI_File_seek(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG);
    /* only whole etypes */
    EXPECT_CLASS(MPI_File_read_at(fh, 0, r, 3, MPI_BYTE, &st), MPI_ERR_IO);
    EXPECT_CLASS(MPI_File_read_at(fh, -1, r, 1, MPI_INT, &st), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_File_read_at(fh, 0, r, -1, MPI_INT, &st), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_File_read_at(fh, 0, r, 1, MPI_DATATYPE_NULL, &st), MPI_ERR_TYPE);

    /* views the standard rejects; the old view stays */
    EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL),
                 MPI_ERR_UNSUPPORTED_DATAREP);
    EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_SHORT, "native", MPI_INFO_NULL),
                 MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_File_set_view(fh, -8, MPI_INT, MPI_INT, "native", MPI_INFO_NULL),
                 MPI_ERR_ARG);
    EXPECT_CLASS(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
                                   MPI_INFO_NULL), MPI_ERR_ARG);
    MPI_Datatype unc, neg;
    MPI_Type_contiguous(2, MPI_INT, &unc);
    EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, unc, "native", MPI_INFO_NULL),
                 MPI_ERR_TYPE);
    int bl[2] = {1, 1}, ds[2] = {4, 0};
    MPI_Type_indexed(2, bl, ds, MPI_INT, &neg);   /* displacements going backwards */
    MPI_Type_commit(&neg);
    EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, neg, "native", MPI_INFO_NULL),
                 MPI_ERR_TYPE);
    if (size > 1) {   /* one rank's bad view fails it everywhere */
        int c = smap_err_class(MPI_File_set_view(fh, 0, MPI_INT, rank ? MPI_INT : unc,
                                                 "native", MPI_INFO_NULL));
        CHECK(c == MPI_ERR_TYPE, "set_view with one bad rank gave %d", c);
    }
    MPI_Type_free(&unc);
    MPI_Type_free(&neg);
    MPI_Offset d;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    CHECK_RC(MPI_File_get_view(fh, &d, &et, &ft, rep));
    CHECK(d == 8 && et == MPI_INT && ft == MPI_INT, "a failed set_view changed the view");
    CHECK_RC(MPI_File_close(&fh));
}

static void all_cases(struct kase *ks, int n)
{
    for (int i = 0; i < n; i++)
        run_case(&ks[i]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_name(MPI_COMM_WORLD, "view", path, sizeof path);
    const long I = sizeof(int);

    struct kase vec = {"vector", 0, MPI_INT, {{0, 2 * I}, {5 * I, 2 * I}, {10 * I, 2 * I},
                                              {15 * I, 2 * I}}, 4, 17 * I, 0};
    MPI_Type_vector(4, 2, 5, MPI_INT, &vec.ft);
    vec.disp_rank = 4 * vec.ext;
    
    struct kase idx = {"indexed", 0, MPI_INT, {{0, I}, {2 * I, 3 * I}, {8 * I, 2 * I}}, 3,
                       10 * I, 0};
    int ibl[3] = {1, 3, 2}, idp[3] = {0, 2, 8};
    MPI_Type_indexed(3, ibl, idp, MPI_INT, &idx.ft);
    idx.disp_rank = 4 * idx.ext + 12;
    
    struct kase sub = {"subarray", 0, MPI_INT, {{(1 * 8 + 2) * I, 4 * I}, {(2 * 8 + 2) * I, 4 * I},
                                                {(3 * 8 + 2) * I, 4 * I}}, 3, 48 * I, 0};
    int sz[2] = {6, 8}, ssz[2] = {3, 4}, sst[2] = {1, 2};
    MPI_Type_create_subarray(2, sz, ssz, sst, MPI_ORDER_C, MPI_INT, &sub.ft);
    sub.disp_rank = 4 * sub.ext;
    
    struct kase str = {"struct", 0, MPI_BYTE, {{0, 4}, {8, 8}, {20, 3}}, 3, 24, 0};
    int sbl[3] = {1, 1, 3};
    MPI_Aint sdp[3] = {0, 8, 20};
    MPI_Datatype sty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(3, sbl, sdp, sty, &str.ft);
    str.disp_rank = 4 * str.ext + 5;
    
    /* interleaved: every rank's blocks of two ints between the others' */
    struct kase rsz = {"resized", 0, MPI_INT, {{0, 2 * I}}, 1, 2 * I * size, 2 * I};
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_create_resized(two, 0, 2 * I * size, &rsz.ft);
    MPI_Type_free(&two);

    struct kase ks[5] = {vec, idx, sub, str, rsz};
    all_cases(ks, 5);
    /* again, writes sieved (read-modify-write of spans under locks, with
     * a tiny buffer: many spans, and packing chunks of 256 bytes) while
     * the other ranks write their interleaved blocks */
    MPI_Info_create(&case_info);
    MPI_Info_set(case_info, "romio_ds_write", "enable");
    MPI_Info_set(case_info, "ind_wr_buffer_size", "256");
    all_cases(ks, 5);
    MPI_Info_free(&case_info);
    for (int i = 0; i < 5; i++)
        MPI_Type_free(&ks[i].ft);

    sieve_eof();
    MPI_Barrier(MPI_COMM_WORLD);
    errors_and_eof();
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(io_file_size(path) < 0, "file left behind");
    MPI_Finalize();
    return 0;
}
