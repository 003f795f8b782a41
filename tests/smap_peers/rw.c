/* Every rank reads and writes the heap buffer, a global array and a
 * main-stack array of local rank (r+1) % N through smap_remote(), then
 * checks that its own arrays hold what local rank (r-1) % N wrote.
 * Argument "nondumpable": rank 0 makes itself non-dumpable before MPI_Init
 * (setuid-like; /proc/<pid>/fd and pidfd_getfd then refuse other users). */
#include <sys/prctl.h>

#include "peers_test.h"

#define NH 4096
#define NG 512
#define NS 256

int g_arr[NG];   /* .bss: part of the exposed data region */

static const char *const kinds[3] = { "heap", "data", "stack" };

static int code(int lr, int k, int i) { return lr * 1000000 + k * 10000 + i; }

int main(int argc, char **argv)
{
    int s_arr[NS];
    const char *r = getenv("PMI_RANK");
    if (argc > 1 && strcmp(argv[1], "nondumpable") == 0 && r && atoi(r) == 0)
        CHECK(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0, "prctl failed");
    CHECK_RC(MPI_Init(&argc, &argv));
    int rank, size;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int lr = smap_local_rank(), n = smap_local_size();
    CHECK(lr == rank && n == size, "local rank %d/%d, world %d/%d", lr, n, rank, size);

    int *h = malloc(NH * sizeof *h);
    CHECK(h != NULL, "malloc");
    int *buf[3] = { h, g_arr, s_arr };
    const int len[3] = { NH, NG, NS };
    uintptr_t addr[3];
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < len[k]; i++)
            buf[k][i] = code(lr, k, i);
        addr[k] = (uintptr_t)buf[k];
    }
    info_write("rw", lr, addr, 3);
    CHECK(smap_node_barrier() == 0, "node barrier");

    int peer = (lr + 1) % n, writer = (lr + n - 1) % n, exposed[3];
    struct peer_info pi = info_read("rw", peer);
    for (int k = 0; k < 3; k++) {
        exposed[k] = kind_exposed(kinds[k]);
        if (!PEERS_ASAN)
            CHECK(exposed[k], "the %s is not exposed in a non-sanitizer build", kinds[k]);
        else if (k == 0)
            CHECK(!exposed[k], "the heap is exposed under AddressSanitizer");
        size_t bytes = (size_t)len[k] * sizeof(int);
        int *v = smap_remote(peer, (void *)pi.addr[k], bytes);
        if (!exposed[k]) {
            CHECK(v == NULL || peer == lr, "unexposed %s of local rank %d translated to %p",
                  kinds[k], peer, (void *)v);
            continue;
        }
        CHECK(v != NULL, "%s of local rank %d at %#lx not reachable", kinds[k], peer,
              (unsigned long)pi.addr[k]);
        if (k == 0)
            CHECK(v == (int *)pi.addr[k], "heap pointer %#lx translated to %p",
                  (unsigned long)pi.addr[k], (void *)v);
        for (int i = 0; i < len[k]; i++)
            CHECK(v[i] == code(peer, k, i), "%s[%d] of local rank %d: %d, expected %d", kinds[k], i,
                  peer, v[i], code(peer, k, i));
        for (int i = 0; i < len[k]; i++)
            v[i] = -code(lr, k, i) - 1;
    }
    CHECK(smap_node_barrier() == 0, "node barrier");
    for (int k = 0; k < 3; k++) {
        if (!exposed[k])
            continue;
        for (int i = 0; i < len[k]; i++)
            CHECK(buf[k][i] == -code(writer, k, i) - 1, "own %s[%d] = %d, expected %d from local rank %d",
                  kinds[k], i, buf[k][i], -code(writer, k, i) - 1, writer);
    }
    if (lr == 0)
        printf("rw ok: %d ranks, heap %s, data %s, stack %s\n", n, exposed[0] ? "rw" : "unexposed",
               exposed[1] ? "rw" : "unexposed", exposed[2] ? "rw" : "unexposed");
    free(h);
    CHECK_RC(MPI_Finalize());
    return 0;
}
