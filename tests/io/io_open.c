/* MPI-IO files: every amode and its error classes, collective agreement
 * on open, delete, sizes, preallocation, sync, group, amode, info hints,
 * atomicity flag, handle conversion and file error handlers. */
#include <errno.h>
#include <limits.h>

#include "io_test.h"

static int rank, size;
static char path[600];

static int open_w(int amode, MPI_File *fh)
{
    return MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, fh);
}

static void amodes(void)
{
    MPI_File fh = MPI_FILE_NULL;
    /* bad combinations: every rank gets MPI_ERR_AMODE, no file made */
    static const int bad[] = {
        MPI_MODE_RDONLY | MPI_MODE_WRONLY, MPI_MODE_RDONLY | MPI_MODE_RDWR,
        MPI_MODE_RDWR | MPI_MODE_WRONLY, 0, MPI_MODE_CREATE,
        MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_MODE_RDONLY | MPI_MODE_EXCL,
        MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL | MPI_MODE_CREATE, MPI_MODE_RDWR | (1 << 20)};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        EXPECT_CLASS(open_w(bad[i], &fh), MPI_ERR_AMODE);
        CHECK(fh == MPI_FILE_NULL, "fh set after a failed open");
    }
    CHECK(io_file_size(path) < 0, "a failed open created the file");

    /* RDONLY of a missing file */
    EXPECT_CLASS(open_w(MPI_MODE_RDONLY, &fh), MPI_ERR_NO_SUCH_FILE);
    EXPECT_CLASS(open_w(MPI_MODE_RDWR, &fh), MPI_ERR_NO_SUCH_FILE);

    /* CREATE|EXCL makes it once; the second time FILE_EXISTS everywhere */
    CHECK_RC(open_w(MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR, &fh));
    int am = 0;
    CHECK_RC(MPI_File_get_amode(fh, &am));
    CHECK(am == (MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR), "amode %#x", am);
    CHECK_RC(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "close leaves fh");
    CHECK(io_file_size(path) == 0, "created file has size %lld", io_file_size(path));
    EXPECT_CLASS(open_w(MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, &fh),
                 MPI_ERR_FILE_EXISTS);

    /* every access mode and flag that may go together opens */
    static const int good[] = {
        MPI_MODE_RDONLY, MPI_MODE_WRONLY, MPI_MODE_RDWR, MPI_MODE_RDWR | MPI_MODE_CREATE,
        MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_UNIQUE_OPEN,
        MPI_MODE_RDONLY | MPI_MODE_UNIQUE_OPEN, MPI_MODE_RDONLY | MPI_MODE_SEQUENTIAL,
        MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL, MPI_MODE_RDWR | MPI_MODE_APPEND};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        CHECK_RC(open_w(good[i], &fh));
        CHECK_RC(MPI_File_get_amode(fh, &am));
        CHECK(am == good[i], "amode %#x, want %#x", am, good[i]);
        CHECK_RC(MPI_File_close(&fh));
    }

    /* amode differing between ranks: every rank fails, with one class */
    if (size > 1) {
        int mine = rank == 0 ? MPI_MODE_RDWR : MPI_MODE_RDONLY;
        int c = smap_err_class(open_w(mine, &fh));
        CHECK(c == MPI_ERR_NOT_SAME, "mismatched amode gave class %d", c);
        CHECK(fh == MPI_FILE_NULL, "fh set");
        io_same_class(MPI_COMM_WORLD, c);
        /* one rank's bad argument fails the open on every rank */
        c = smap_err_class(MPI_File_open(MPI_COMM_WORLD, rank == size - 1 ? NULL : path,
                                         MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
        CHECK(c == MPI_ERR_ARG, "NULL name on one rank gave class %d", c);
        io_same_class(MPI_COMM_WORLD, c);
    }
}

static void access_classes(void)
{
    MPI_File fh;
    char buf[8] = "abcdefg";
    MPI_Status st;
    /* writing a read-only file, reading a write-only one */
    CHECK_RC(open_w(MPI_MODE_RDONLY, &fh));
    EXPECT_CLASS(MPI_File_write_at(fh, 0, buf, 4, MPI_CHAR, &st), MPI_ERR_READ_ONLY);
    EXPECT_CLASS(MPI_File_write(fh, buf, 4, MPI_CHAR, &st), MPI_ERR_READ_ONLY);
    EXPECT_CLASS(MPI_File_set_size(fh, 10), MPI_ERR_READ_ONLY);
    EXPECT_CLASS(MPI_File_preallocate(fh, 10), MPI_ERR_READ_ONLY);
    CHECK_RC(MPI_File_close(&fh));
    CHECK_RC(open_w(MPI_MODE_WRONLY, &fh));
    EXPECT_CLASS(MPI_File_read_at(fh, 0, buf, 4, MPI_CHAR, &st), MPI_ERR_ACCESS);
    EXPECT_CLASS(MPI_File_read(fh, buf, 4, MPI_CHAR, &st), MPI_ERR_ACCESS);
    CHECK_RC(MPI_File_close(&fh));

    /* sequential files: no explicit offsets, no individual pointer */
    CHECK_RC(open_w(MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL, &fh));
    EXPECT_CLASS(MPI_File_write_at(fh, 0, buf, 4, MPI_CHAR, &st),
                 MPI_ERR_UNSUPPORTED_OPERATION);
    EXPECT_CLASS(MPI_File_write(fh, buf, 4, MPI_CHAR, &st), MPI_ERR_UNSUPPORTED_OPERATION);
    EXPECT_CLASS(MPI_File_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION);
    MPI_Offset pos;
    EXPECT_CLASS(MPI_File_get_position(fh, &pos), MPI_ERR_UNSUPPORTED_OPERATION);
    EXPECT_CLASS(MPI_File_set_size(fh, 0), MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_RC(MPI_File_close(&fh));

    /* directories and names the file system refuses: BAD_FILE */
    char dir[700];
    snprintf(dir, sizeof dir, "%s.d", path);
    if (rank == 0)
        CHECK(mkdir(dir, 0700) == 0, "mkdir %s", dir);
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, dir, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                 MPI_ERR_BAD_FILE);
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, dir, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
                 MPI_ERR_BAD_FILE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        EXPECT_CLASS(MPI_File_delete(dir, MPI_INFO_NULL), MPI_ERR_BAD_FILE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(rmdir(dir) == 0, "rmdir");
    char longname[PATH_MAX + 64];
    snprintf(longname, sizeof longname, "%s/", io_tmpdir());
    memset(longname + strlen(longname), 'x', NAME_MAX + 10);
    longname[sizeof longname - 1] = '\0';
    longname[strlen(io_tmpdir()) + 1 + NAME_MAX + 10] = '\0';
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, longname, MPI_MODE_RDWR | MPI_MODE_CREATE,
                               MPI_INFO_NULL, &fh),
                 MPI_ERR_BAD_FILE);
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, "", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                 MPI_ERR_BAD_FILE);

    /* permission denied (root passes every permission check) */
    if (geteuid() != 0) {
        if (rank == 0)
            CHECK(chmod(path, 0) == 0, "chmod");
        MPI_Barrier(MPI_COMM_WORLD);
        EXPECT_CLASS(open_w(MPI_MODE_RDONLY, &fh), MPI_ERR_ACCESS);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            CHECK(chmod(path, 0644) == 0, "chmod");
    } else if (rank == 0) {
        printf("note: running as root, MPI_ERR_ACCESS by permissions not checked "
               "(MPI_ERR_ACCESS of a write-only file is)\n");
    }

    /* a running executable cannot be opened for writing (ETXTBSY) */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        int fd = open(exe, O_WRONLY);
        int e = errno;
        if (fd >= 0)
            close(fd);
        if (fd < 0 && e == ETXTBSY) {
            EXPECT_CLASS(MPI_File_open(MPI_COMM_SELF, exe, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
                         MPI_ERR_FILE_IN_USE);
        } else if (rank == 0) {
            printf("note: this kernel lets a running executable be opened for writing; "
                   "MPI_ERR_FILE_IN_USE not checked\n");
        }
    }

    /* a full device: writes fail with NO_SPACE */
    if (access("/dev/full", W_OK) == 0) {
        CHECK_RC(MPI_File_open(MPI_COMM_SELF, "/dev/full", MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
        EXPECT_CLASS(MPI_File_write_at(fh, 0, buf, 4, MPI_CHAR, &st), MPI_ERR_NO_SPACE);
        CHECK_RC(MPI_File_close(&fh));
    }

    /* an invalid handle */
    MPI_Offset sz;
    EXPECT_CLASS(MPI_File_get_size(MPI_FILE_NULL, &sz), MPI_ERR_FILE);
    EXPECT_CLASS(MPI_File_close(NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_File_get_amode(MPI_FILE_NULL, NULL), MPI_ERR_FILE);
}

static void sizes(void)
{
    MPI_File fh;
    CHECK_RC(open_w(MPI_MODE_RDWR | MPI_MODE_CREATE, &fh));
    MPI_Offset sz = -1;
    CHECK_RC(MPI_File_set_size(fh, 1000));
    CHECK_RC(MPI_File_get_size(fh, &sz));
    CHECK(sz == 1000 && io_file_size(path) == 1000, "size %lld", (long long)sz);
    CHECK_RC(MPI_File_preallocate(fh, 500));   /* never shrinks */
    CHECK_RC(MPI_File_get_size(fh, &sz));
    CHECK(sz == 1000, "preallocate shrank to %lld", (long long)sz);
    CHECK_RC(MPI_File_preallocate(fh, 4096));
    CHECK_RC(MPI_File_get_size(fh, &sz));
    CHECK(sz == 4096 && io_file_size(path) == 4096, "preallocate to %lld", (long long)sz);
    CHECK_RC(MPI_File_set_size(fh, 10));
    CHECK_RC(MPI_File_get_size(fh, &sz));
    CHECK(sz == 10, "truncate to %lld", (long long)sz);
    CHECK_RC(MPI_File_sync(fh));
    int c = smap_err_class(MPI_File_set_size(fh, -5));
    CHECK(c == MPI_ERR_ARG, "negative size gave %d", c);
    if (size > 1) {   /* sizes differ: every rank fails */
        c = smap_err_class(MPI_File_set_size(fh, 100 + rank));
        CHECK(c == MPI_ERR_NOT_SAME, "differing sizes gave %d", c);
        io_same_class(MPI_COMM_WORLD, c);
        c = smap_err_class(MPI_File_set_size(fh, rank == 0 ? -1 : 100));
        CHECK(c == MPI_ERR_ARG, "negative size on one rank gave %d", c);
    }
    /* group and atomicity */
    MPI_Group g, wg;
    int res;
    CHECK_RC(MPI_File_get_group(fh, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &res);
    CHECK(res == MPI_IDENT, "file group is not WORLD's (%d)", res);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    int flag = -1;
    CHECK_RC(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 0, "atomic by default");
    CHECK_RC(MPI_File_set_atomicity(fh, 1));
    CHECK_RC(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 1, "atomicity not set");
    if (size > 1) {
        c = smap_err_class(MPI_File_set_atomicity(fh, rank == 0));
        CHECK(c == MPI_ERR_NOT_SAME, "differing flags gave %d", c);
    }
    /* Fortran handles */
    MPI_Fint fi = MPI_File_c2f(fh);
    CHECK(MPI_File_f2c(fi) == fh, "c2f/f2c round trip");
    CHECK(MPI_File_f2c(MPI_File_c2f(MPI_FILE_NULL)) == MPI_FILE_NULL, "FILE_NULL round trip");
    CHECK_RC(MPI_File_close(&fh));
    CHECK(MPI_File_f2c(fi) == MPI_FILE_NULL, "a closed file's integer still resolves");
}

static void append_delete(void)
{
    MPI_File fh;
    if (rank == 0)
        io_write_posix(path, "0123456789", 10);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(open_w(MPI_MODE_RDWR | MPI_MODE_APPEND, &fh));
    MPI_Offset pos = -1;
    CHECK_RC(MPI_File_get_position(fh, &pos));
    CHECK(pos == 10, "APPEND starts at %lld, not at the end", (long long)pos);
    if (rank == 0)
        CHECK_RC(MPI_File_write(fh, "abcde", 5, MPI_CHAR, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_File_close(&fh));
    size_t len;
    unsigned char *b = io_slurp(path, &len);
    CHECK(len == 15 && !memcmp(b, "0123456789abcde", 15), "append wrote elsewhere");
    free(b);

    /* DELETE_ON_CLOSE: gone after close */
    CHECK_RC(open_w(MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, &fh));
    CHECK(io_file_size(path) == 15, "file");
    CHECK_RC(MPI_File_close(&fh));
    CHECK(io_file_size(path) < 0, "DELETE_ON_CLOSE left the file");
    /* every rank has looked before rank 0 makes the file again below (a
     * rank still looking saw rank 0's new file: the check failed once in
     * the ASan suite) */
    MPI_Barrier(MPI_COMM_WORLD);

    /* delete */
    if (rank == 0) {
        EXPECT_CLASS(MPI_File_delete(path, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
        io_write_posix(path, "x", 1);
        CHECK_RC(MPI_File_delete(path, MPI_INFO_NULL));
        CHECK(io_file_size(path) < 0, "delete left the file");
        EXPECT_CLASS(MPI_File_delete(NULL, MPI_INFO_NULL), MPI_ERR_ARG);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void info(void)
{
    MPI_Info in, used;
    MPI_Info_create(&in);
    MPI_Info_set(in, "cb_buffer_size", "1048576");
    MPI_Info_set(in, "romio_cb_write", "disable");
    MPI_Info_set(in, "striping_unit", "65536");
    MPI_Info_set(in, "ind_wr_buffer_size", "notanumber");
    MPI_Info_set(in, "smap_unknown_hint", "1");
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE |
                           MPI_MODE_DELETE_ON_CLOSE, in, &fh));
    CHECK_RC(MPI_File_get_info(fh, &used));
    struct { const char *k, *v; } want[] = {
        {"cb_buffer_size", "1048576"}, {"romio_cb_write", "disable"},
        {"striping_unit", "65536"}, {"ind_wr_buffer_size", "524288"},
        {"romio_cb_read", "automatic"}, {"romio_ds_read", "automatic"},
        {"romio_ds_write", "automatic"}, {"ind_rd_buffer_size", "4194304"},
        {"romio_no_indep_rw", "false"}, {"cb_config_list", "*:1"}, {"cb_nodes", NULL}};
    char v[MPI_MAX_INFO_VAL];
    int flag;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        MPI_Info_get(used, want[i].k, sizeof v, v, &flag);
        CHECK(flag, "hint %s not reported", want[i].k);
        CHECK(!want[i].v || !strcmp(v, want[i].v), "hint %s = %s, want %s", want[i].k, v,
              want[i].v);
    }
    MPI_Info_get(used, "smap_unknown_hint", sizeof v, v, &flag);
    CHECK(!flag, "an unknown hint is reported as in effect");
    MPI_Info_free(&used);
    MPI_Info_set(in, "ind_rd_buffer_size", "8192");
    MPI_Info_set(in, "romio_ds_read", "enable");
    CHECK_RC(MPI_File_set_info(fh, in));
    CHECK_RC(MPI_File_get_info(fh, &used));
    MPI_Info_get(used, "ind_rd_buffer_size", sizeof v, v, &flag);
    CHECK(flag && !strcmp(v, "8192"), "set_info: ind_rd_buffer_size %s", v);
    MPI_Info_get(used, "romio_ds_read", sizeof v, v, &flag);
    CHECK(flag && !strcmp(v, "enable"), "set_info: romio_ds_read %s", v);
    MPI_Info_free(&used);
    MPI_Info_free(&in);
    CHECK_RC(MPI_File_close(&fh));
}

static int calls, last_class;
static MPI_File last_file;
static void on_error(MPI_File *fh, int *code, ...)
{
    calls++;
    last_file = *fh;
    MPI_Error_class(*code, &last_class);
}

static void errhandlers(void)
{
    MPI_Errhandler eh, got;
    CHECK_RC(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    CHECK(got == MPI_ERRORS_RETURN, "MPI_FILE_NULL's default handler is not ERRORS_RETURN");
    MPI_File fh;
    CHECK_RC(open_w(MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, &fh));
    CHECK_RC(MPI_File_get_errhandler(fh, &got));
    CHECK(got == MPI_ERRORS_RETURN, "a file's default handler is not ERRORS_RETURN");
    CHECK_RC(MPI_File_create_errhandler(on_error, &eh));
    CHECK_RC(MPI_File_set_errhandler(fh, eh));
    char b[4];
    int rc = MPI_File_read_at(fh, 0, b, 4, MPI_CHAR, MPI_STATUS_IGNORE);
    CHECK(calls == 1 && last_file == fh && last_class == MPI_ERR_ACCESS,
          "handler: %d calls, class %d", calls, last_class);
    CHECK(smap_err_class(rc) == MPI_ERR_ACCESS, "returned class");
    CHECK_RC(MPI_File_call_errhandler(fh, MPI_ERR_IO));
    CHECK(calls == 2 && last_class == MPI_ERR_IO, "call_errhandler");
    CHECK_RC(MPI_File_get_errhandler(fh, &got));
    CHECK(got == eh, "get_errhandler");
    MPI_Errhandler_free(&got);
    CHECK_RC(MPI_File_close(&fh));

    /* MPI_FILE_NULL's handler: failed opens, and the default of new files */
    CHECK_RC(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
    calls = 0;
    EXPECT_CLASS(open_w(MPI_MODE_RDONLY, &fh), MPI_ERR_NO_SUCH_FILE);
    CHECK(calls == 1 && last_file == MPI_FILE_NULL && last_class == MPI_ERR_NO_SUCH_FILE,
          "open's failure on MPI_FILE_NULL's handler: %d calls", calls);
    CHECK_RC(open_w(MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, &fh));
    CHECK_RC(MPI_File_get_errhandler(fh, &got));
    CHECK(got == eh, "new file did not take MPI_FILE_NULL's handler");
    MPI_Errhandler_free(&got);
    CHECK_RC(MPI_File_close(&fh));
    CHECK_RC(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO));
    CHECK(calls == 1, "ERRORS_RETURN called the old handler");
    MPI_Errhandler_free(&eh);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_name(MPI_COMM_WORLD, "open", path, sizeof path);
    amodes();
    access_classes();
    sizes();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    append_delete();
    info();
    errhandlers();
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(io_file_size(path) < 0, "a file was left behind");
    MPI_Finalize();
    return 0;
}
