/* Helpers of the MPI-IO tests: unique file names under $TMPDIR (or /tmp),
 * the same on every rank, and reading a file back with plain POSIX calls
 * (so what the library wrote is checked by something else than itself). */
#ifndef SMAP_IO_TEST_H
#define SMAP_IO_TEST_H

#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "smap_test.h"

static inline const char *io_tmpdir(void)
{
    const char *d = getenv("TMPDIR");
    return d && *d ? d : "/tmp";
}

/* "<tmpdir>/smap_io_<tag>_<pid of rank 0>_<random>", agreed over comm. */
static inline void io_name(MPI_Comm comm, const char *tag, char *out, size_t cap)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char name[512] = "";
    if (rank == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(name, sizeof name, "%s/smap_io_%s_%d_%lx", io_tmpdir(), tag, (int)getpid(),
                 (unsigned long)(ts.tv_nsec ^ (ts.tv_sec << 20)));
    }
    MPI_Bcast(name, sizeof name, MPI_CHAR, 0, comm);
    CHECK(strlen(name) < cap, "name too long");
    strcpy(out, name);
}

/* The whole file, read with POSIX; *len its size.  Caller frees. */
static inline unsigned char *io_slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0, "open %s for checking", path);
    struct stat st;
    CHECK(fstat(fd, &st) == 0, "fstat");
    unsigned char *b = malloc((size_t)st.st_size + 1);
    CHECK(b, "malloc");
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t r = pread(fd, b + got, (size_t)st.st_size - got, (off_t)got);
        CHECK(r > 0, "pread");
        got += (size_t)r;
    }
    close(fd);
    *len = got;
    return b;
}

static inline void io_write_posix(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0, "create %s", path);
    CHECK(write(fd, data, len) == (ssize_t)len, "write");
    close(fd);
}

static inline long long io_file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) ? -1 : (long long)st.st_size;
}

/* The error class of rc as every rank saw it must be the same. */
static inline void io_same_class(MPI_Comm comm, int cls)
{
    int lo, hi;
    MPI_Allreduce(&cls, &lo, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&cls, &hi, 1, MPI_INT, MPI_MAX, comm);
    CHECK(lo == hi, "ranks saw different error classes (%d .. %d)", lo, hi);
}

#endif
