/* remote_sum.c — reading a node peer's memory in place with smartmap.h.
 *
 * Every rank fills an array with values of its own: a global array, and an
 * array on its heap.  After a node barrier each rank sums the arrays of the
 * next rank on its node without any message: smap_remote() turns the
 * peer's address into one this process can load from, and the sum runs
 * straight over the peer's memory.  When direct access is not possible
 * (SMAP_EXPOSE switched that memory off, or it is not exposable), the
 * example falls back to smap_get(), which copies through the kernel.
 *
 *   mpicc -no-pie remote_sum.c -o remote_sum && mpiexec -n 4 ./remote_sum
 *
 * Addresses.  smap_remote(peer, ptr, len) takes the address the *peer*
 * uses.  A global of an executable built with -no-pie has the same address
 * in every rank, so the peer's copy of `values` is at our &values.  A PIE
 * executable (the compiler's default) is loaded at a random address in each
 * process: there, tell the peer the address first with an MPI message.
 * Heap pointers need no translation (every rank's heap sits at the same
 * address in all processes of the node), but the peer still has to learn
 * which pointer: here it is published in a global, `board`.
 *
 * See docs/SMARTMAP.md. */
#include <mpi.h>
#include <smartmap.h>
#include <stdio.h>
#include <stdlib.h>

#define N 100000

static double values[N];            /* exposed: the executable's globals */
static struct {
    double *heap_values;            /* exposed: the heap */
    int ready;
} board;

/* Sum of the n doubles the peer has at its address p. */
static double peer_sum(int peer, const double *p, size_t n, const char **how)
{
    const double *v = smap_remote(peer, p, n * sizeof *p);
    if (v) {
        *how = "in place";
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += v[i];
        return s;
    }
    /* Not directly reachable: copy it over (process_vm_readv). */
    double *copy = malloc(n * sizeof *copy);
    if (!copy || smap_get(peer, copy, p, n * sizeof *p) != 0) {
        perror("smap_get");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += copy[i];
    free(copy);
    *how = "by copy";
    return s;
}

/* What rank r's arrays hold: the values are exact in a double. */
static double expected_sum(int r, int heap)
{
    double s = 0;
    for (size_t i = 0; i < N; i++)
        s += (double)(r * 10 + heap) + (double)(i % 100);
    return s;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int me = smap_local_rank(), n = smap_local_size();

    double *heap_values = malloc(N * sizeof *heap_values);
    for (size_t i = 0; i < N; i++) {
        values[i] = (double)(rank * 10) + (double)(i % 100);
        heap_values[i] = (double)(rank * 10 + 1) + (double)(i % 100);
    }
    board.heap_values = heap_values;
    board.ready = 1;
    smap_node_barrier();    /* every rank of the node has filled its arrays */

    int peer = (me + 1) % n;
    /* The MPI rank of that peer, to check its values: ask MPIX which MPI
     * rank's globals are the ones smap_remote gives for local rank peer. */
    int peer_rank = -1, size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int r = 0; r < size && peer_rank < 0; r++) {
        void *view;
        MPIX_Comm_remote_ptr(MPI_COMM_WORLD, r, &board, sizeof board, &view);
        if (view && view == smap_remote(peer, &board, sizeof board))
            peer_rank = r;
    }
    if (peer_rank < 0)
        peer_rank = rank - me + peer;   /* the usual block placement */

    /* The peer's board tells where its heap array is. */
    double *peer_heap;
    if (smap_get(peer, &peer_heap, &board.heap_values, sizeof peer_heap) != 0) {
        perror("smap_get(board)");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const char *how_g, *how_h;
    double sg = peer_sum(peer, values, N, &how_g);
    double sh = peer_sum(peer, peer_heap, N, &how_h);
    int ok = sg == expected_sum(peer_rank, 0) && sh == expected_sum(peer_rank, 1);
    printf("rank %d (local %d of %d): local rank %d's global array sums to %.0f (%s), "
           "its heap array to %.0f (%s): %s\n",
           rank, me, n, peer, sg, how_g, sh, how_h, ok ? "correct" : "WRONG");

    smap_node_barrier();    /* nobody frees what a peer may still read */
    free(heap_values);
    MPI_Finalize();
    return ok ? 0 : 1;
}
