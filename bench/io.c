/* io — MPI-IO throughput, the same source for every MPI (bench/io.sh runs
 * it with smartmap, Open MPI and MPICH, alternating).
 *
 *   --pattern subarray   a 2-D array of doubles, N x N, split between the
 *                        ranks in column blocks (MPI_Type_create_subarray
 *                        view): every row of the file holds a piece of
 *                        every rank (the HDF5 hyperslab / interleaved
 *                        pattern; N / np doubles a piece)
 *   --pattern contig     IOR-like: each rank one contiguous block of
 *                        --block bytes at rank * block
 *   --pattern interleaved  blocks of --block bytes dealt round-robin over
 *                        the ranks (block i belongs to rank i % np: the
 *                        HDF5-chunk pattern), --bytes per rank (default
 *                        16 MiB), through a resized-vector view
 *   --coll / --indep     MPI_File_write_all / read_all, or the independent
 *                        calls
 *   --n N, --block B     sizes (default N 2048 = 32 MiB, B 16 MiB)
 *   --bytes S            interleaved: bytes per rank (default 16 MiB)
 *   --iters K            timed repetitions (default 5), after one untimed
 *   --dir D              where the file goes (default $TMPDIR or /tmp)
 *   --info KEY=VALUE     a hint given to MPI_File_open (repeatable)
 *
 * Each repetition: barrier, open (not timed), barrier, t0, write (or
 * read), MPI_File_sync for writes, barrier, t1, close; the time is rank
 * 0's t1 - t0 (the slowest rank, by the barrier).  The file is checked
 * once after the runs: the whole array read back independently by every
 * rank and compared element by element (exit 3 on a mismatch).
 * Output: RESULT bench=io pattern=... op=write|read coll=0|1 np=...
 * bytes=... sec=<median> mbps=<bytes / median / 1e6> */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, np;

static double val(long i)
{
    return (double)i * 0.5 + 1.0;
}

/* This rank's part of the file: the pattern, and its sizes in doubles
 * (subarray: n x n, cols columns from c0; interleaved: blocks of bd;
 * contig: count from rank * count). */
static int sub, il;
static long n = 2048, cols, c0, bd, count;

/* The value of this rank's k-th double: val of its index in the file
 * (interleaved: block k / bd of the rank is block (k / bd) * np + rank). */
static double mine(long k)
{
    if (sub)
        return val((k / cols) * n + c0 + k % cols);
    if (il)
        return val(((k / bd) * np + rank) * bd + k % bd);
    return val(rank * count + k);
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *pattern = "subarray", *op = "write", *dir = getenv("TMPDIR");
    int coll = 1, iters = 5;
    long block = 16L << 20, bytes = 16L << 20;
    MPI_Info info;
    MPI_Info_create(&info);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--pattern") && i + 1 < argc)
            pattern = argv[++i];
        else if (!strcmp(argv[i], "--op") && i + 1 < argc)
            op = argv[++i];
        else if (!strcmp(argv[i], "--coll"))
            coll = 1;
        else if (!strcmp(argv[i], "--indep"))
            coll = 0;
        else if (!strcmp(argv[i], "--n") && i + 1 < argc)
            n = atol(argv[++i]);
        else if (!strcmp(argv[i], "--block") && i + 1 < argc)
            block = atol(argv[++i]);
        else if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
            bytes = atol(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--info") && i + 1 < argc && strchr(argv[i + 1], '=')) {
            char kv[256];
            snprintf(kv, sizeof kv, "%s", argv[++i]);
            char *eq = strchr(kv, '=');
            *eq = 0;
            MPI_Info_set(info, kv, eq + 1);
        }
        else {
            if (rank == 0)
                fprintf(stderr, "io: unknown option %s\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (!dir || !*dir)
        dir = "/tmp";
    sub = !strcmp(pattern, "subarray");
    il = !strcmp(pattern, "interleaved");
    int wr = !strcmp(op, "write");
    if (!sub && !il && strcmp(pattern, "contig")) {
        if (rank == 0)
            fprintf(stderr, "io: unknown pattern %s (subarray, contig, interleaved)\n", pattern);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (block < 8 || block % 8 || (il && (bytes < block || bytes % block))) {
        if (rank == 0)
            fprintf(stderr, "io: --block must be a multiple of 8 (and divide --bytes)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    bd = block / 8;   /* doubles per block */
    char path[512];
    snprintf(path, sizeof path, "%s/bench_io_%d.dat", dir, (int)getpid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);

    /* this rank's part: count doubles, their global indices via first/stride */
    MPI_Datatype ft = MPI_DOUBLE;

    MPI_Offset disp = 0;
    if (sub) {
        cols = n / np + (rank < n % np);
        c0 = rank * (n / np) + (rank < n % np ? rank : n % np);
        int sizes[2] = {(int)n, (int)n}, subs[2] = {(int)n, (int)cols}, st[2] = {0, (int)c0};
        MPI_Type_create_subarray(2, sizes, subs, st, MPI_ORDER_C, MPI_DOUBLE, &ft);
        MPI_Type_commit(&ft);
        count = n * cols;
    } else if (il) {
        MPI_Datatype blk;
        MPI_Type_contiguous((int)bd, MPI_DOUBLE, &blk);
        MPI_Type_create_resized(blk, 0, (MPI_Aint)block * np, &ft);
        MPI_Type_free(&blk);
        MPI_Type_commit(&ft);
        count = bytes / 8;
        disp = (MPI_Offset)rank * block;
    } else {
        count = block / 8;
        disp = (MPI_Offset)rank * count * 8;
    }
    double *buf = malloc((size_t)count * 8);
    for (long k = 0; k < count; k++)
        buf[k] = mine(k);
    long long total = (long long)count * 8 * np;
    if (sub)
        total = (long long)n * n * 8;

    MPI_File fh;
    if (!wr) {   /* reads need the file: write it once, untimed */
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
        MPI_File_set_view(fh, disp, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
        MPI_File_write_all(fh, buf, (int)count, MPI_DOUBLE, MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
    }
    double *t = malloc(sizeof(double) * (size_t)(iters + 1));
    for (int it = 0; it <= iters; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
        MPI_File_set_view(fh, disp, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
        if (!wr)
            memset(buf, 0, (size_t)count * 8);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        int rc;
        if (wr)
            rc = coll ? MPI_File_write_all(fh, buf, (int)count, MPI_DOUBLE, MPI_STATUS_IGNORE)
                      : MPI_File_write(fh, buf, (int)count, MPI_DOUBLE, MPI_STATUS_IGNORE);
        else
            rc = coll ? MPI_File_read_all(fh, buf, (int)count, MPI_DOUBLE, MPI_STATUS_IGNORE)
                      : MPI_File_read(fh, buf, (int)count, MPI_DOUBLE, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && wr)
            rc = MPI_File_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        t[it] = MPI_Wtime() - t0;
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "io: rank %d: the access failed (%d)\n", rank, rc);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        MPI_File_close(&fh);
        if (!wr)
            for (long k = 0; k < count; k++) {
                double w = mine(k);
                if (buf[k] != w) {
                    fprintf(stderr, "VALIDATION FAILED bench=io rank=%d element %ld: %g, want "
                            "%g\n", rank, k, buf[k], w);
                    MPI_Abort(MPI_COMM_WORLD, 3);
                }
            }
    }
    /* the file's contents, by every rank, independently */
    long all = sub ? n * n : count * np;
    double *chk = malloc((size_t)all * 8);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_read_at(fh, 0, chk, (int)all, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    for (long k = 0; k < all; k++)
        if (chk[k] != val(k)) {
            fprintf(stderr, "VALIDATION FAILED bench=io rank=%d file element %ld: %g, want %g\n",
                    rank, k, chk[k], val(k));
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unlink(path);
        qsort(t + 1, (size_t)iters, sizeof *t, cmpd);
        double med = t[1 + iters / 2];
        printf("RESULT bench=io pattern=%s op=%s coll=%d np=%d bytes=%lld sec=%.6f mbps=%.1f\n",
               pattern, op, coll, np, total, med, total / med / 1e6);
    }
    free(chk);
    free(buf);
    free(t);
    if (sub || il)
        MPI_Type_free(&ft);
    MPI_Info_free(&info);
    MPI_Finalize();
    return 0;
}
