/* Minimal assertion helpers for the MPI test programs: a failed check
 * prints where and why, then aborts the job with a non-zero code. */
#ifndef SMAP_TEST_H
#define SMAP_TEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int smap_test_rank(void)
{
    int init = 0, fin = 0, rank = -1;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

#define CHECK(cond, ...)                                                           \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "FAIL rank %d %s:%d: %s: ", smap_test_rank(), __FILE__, \
                    __LINE__, #cond);                                              \
            fprintf(stderr, __VA_ARGS__);                                          \
            fprintf(stderr, "\n");                                                 \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

#define CHECK_RC(call)                                                             \
    do {                                                                           \
        int rc_ = (call);                                                          \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);                   \
    } while (0)

/* A counter of this process's /proc/self/io ("rchar", "wchar", ...): the
 * bytes passed to read(2)- or write(2)-like calls so far; -1 if unknown. */
static inline long long smap_test_proc_io(const char *field)
{
    FILE *f = fopen("/proc/self/io", "r");
    long long v = -1;
    char line[128];
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ':') {
            v = strtoll(line + n + 1, NULL, 10);
            break;
        }
    if (f)
        fclose(f);
    return v;
}

/* The error class of rc (MPI_SUCCESS stays MPI_SUCCESS). */
static inline int smap_err_class(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

/* call returns an error of class want, or MPI_SUCCESS when want is. */
#define EXPECT_CLASS(call, want)                                                           \
    do {                                                                                   \
        int c_ = smap_err_class(call);                                                     \
        CHECK(c_ == (want), "%s gave class %d, want %d (%s)", #call, c_, want, #want);     \
    } while (0)

#endif
