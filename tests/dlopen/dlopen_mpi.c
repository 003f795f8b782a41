/* dlopen_mpi: a program that is linked with neither libmpi nor
 * libsmartmap_heap loads libmpi with dlopen, the way an interpreter's MPI
 * binding does (mpi4py, Julia, R), with no GLIBC_TUNABLES: libmpi must load
 * (no large initial-exec TLS), run a job, and, when smrun preloaded
 * libsmartmap_heap (argv[2] = 1), reach the peer's malloc'd buffer
 * directly.  That is observed, not assumed: the owner makes one page of
 * its buffer PROT_NONE; a direct copy goes through the reader's own view of
 * the peer's slot and succeeds, a CMA copy (process_vm_readv) honours the
 * owner's protection and fails.  With argv[2] = 0 (no preload, or a
 * sanitizer build) the heap must be reported unreachable, and messages
 * still arrive intact through the fallbacks.
 *
 * Usage: smrun -n 2 dlopen_mpi PATH/libmpi_abi.so.1 EXPECT_DIRECT_HEAP */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <mpi.h>
#include <smartmap.h>

#define PAGE 4096
#define N (256 * 1024)   /* message bytes: the rendezvous path */

static int fails;
#define CHECK(c, ...)                                                   \
    do {                                                                \
        if (!(c)) {                                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);        \
            fprintf(stderr, __VA_ARGS__);                               \
            fputc('\n', stderr);                                        \
            fails++;                                                    \
        }                                                               \
    } while (0)

static void *lib;
static void *sym(const char *name)
{
    void *p = dlsym(lib, name);
    if (!p) {
        fprintf(stderr, "FAIL: %s not found in libmpi: %s\n", name, dlerror());
        exit(1);
    }
    return p;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s LIBMPI EXPECT_DIRECT_HEAP(0|1)\n", argv[0]);
        return 2;
    }
    int expect_direct = atoi(argv[2]);
    CHECK(getenv("GLIBC_TUNABLES") == NULL, "GLIBC_TUNABLES is set: the test must run without it");
    lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        fprintf(stderr, "FAIL: dlopen(%s): %s\n", argv[1], dlerror());
        return 1;
    }
    int (*init)(int *, char ***) = sym("MPI_Init");
    int (*finalize)(void) = sym("MPI_Finalize");
    int (*rank_of)(MPI_Comm, int *) = sym("MPI_Comm_rank");
    int (*send)(const void *, int, MPI_Datatype, int, int, MPI_Comm) = sym("MPI_Send");
    int (*recv)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *) = sym("MPI_Recv");
    int (*barrier)(MPI_Comm) = sym("MPI_Barrier");
    int (*remote_ptr)(MPI_Comm, int, const void *, MPI_Aint, void **) = sym("MPIX_Comm_remote_ptr");
    int (*get)(int, void *, const void *, size_t) = sym("smap_get");

    CHECK(init(&argc, &argv) == MPI_SUCCESS, "MPI_Init");
    int me;
    rank_of(MPI_COMM_WORLD, &me);
    int peer = 1 - me;

    /* A heap buffer of three pages; the owner protects the last one. */
    unsigned char *buf = aligned_alloc(PAGE, 3 * PAGE);
    CHECK(buf != NULL, "aligned_alloc");
    for (int i = 0; i < 2 * PAGE; i++)
        buf[i] = (unsigned char)(me * 31 + i);
    uintptr_t mine = (uintptr_t)buf, theirs = 0;
    if (me == 0) {
        send(&mine, (int)sizeof mine, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        recv(&theirs, (int)sizeof theirs, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        recv(&theirs, (int)sizeof theirs, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        send(&mine, (int)sizeof mine, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
    }
    CHECK(mprotect(buf + PAGE, PAGE, PROT_NONE) == 0, "mprotect");
    barrier(MPI_COMM_WORLD);

    void *view = NULL;
    CHECK(remote_ptr(MPI_COMM_WORLD, peer, (void *)theirs, 2 * PAGE, &view) == MPI_SUCCESS,
          "MPIX_Comm_remote_ptr");
    unsigned char got[2 * PAGE];
    int rc = get(peer, got, (void *)theirs, sizeof got);
    if (expect_direct) {
        CHECK(view != NULL, "rank %d: the peer's heap is not directly reachable", me);
        CHECK(rc == 0, "rank %d: smap_get of the peer's partly protected heap buffer failed: "
                       "not the direct path", me);
        for (int i = 0; rc == 0 && i < 2 * PAGE; i++)
            if (got[i] != (unsigned char)(peer * 31 + i)) {
                CHECK(0, "rank %d: byte %d of the peer's heap reads %d", me, i, got[i]);
                break;
            }
    } else {
        CHECK(view == NULL, "rank %d: the peer's heap is reachable though it cannot be exposed", me);
        CHECK(rc != 0, "rank %d: smap_get read a protected page: unexpected direct path", me);
    }
    barrier(MPI_COMM_WORLD);
    mprotect(buf + PAGE, PAGE, PROT_READ | PROT_WRITE);
    free(buf);

    /* A rendezvous-size message between heap buffers arrives intact. */
    unsigned char *msg = malloc(N);
    CHECK(msg != NULL, "malloc");
    if (me == 0) {
        for (int i = 0; i < N; i++)
            msg[i] = (unsigned char)(i * 7 + 3);
        send(msg, N, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
    } else {
        memset(msg, 0, N);
        recv(msg, N, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            if (msg[i] != (unsigned char)(i * 7 + 3)) {
                CHECK(0, "byte %d of the message is %d", i, msg[i]);
                break;
            }
    }
    free(msg);
    finalize();
    if (fails == 0)
        printf("rank %d: PASS (heap %s)\n", me, expect_direct ? "direct" : "not exposed");
    return fails != 0;
}
