/* smap_node_barrier() really separates phases: in round i every rank
 * stores i into a global and passes barrier A; between A and B every
 * peer's counter must read exactly i (nobody stores i+1 before passing B,
 * which needs our arrival).  Peers' counters are read with smap_get, which
 * works whether or not the globals are exposed. */
#include "peers_test.h"

volatile int g_round;

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    int lr = smap_local_rank(), n = smap_local_size();
    uintptr_t a = (uintptr_t)&g_round;
    info_write("barrier", lr, &a, 1);
    CHECK(smap_node_barrier() == 0, "node barrier");
    uintptr_t peer_addr[64];
    CHECK(n <= 64, "too many ranks");
    for (int p = 0; p < n; p++)
        peer_addr[p] = info_read("barrier", p).addr[0];
    int rounds = argc > 1 ? atoi(argv[1]) : 2000;
    for (int i = 1; i <= rounds; i++) {
        g_round = i;
        CHECK(smap_node_barrier() == 0, "node barrier %d", i);
        int p = (lr + i) % n, v = -1;
        CHECK(smap_get(p, &v, (void *)peer_addr[p], sizeof v) == 0, "smap_get from %d", p);
        CHECK(v == i, "round %d: local rank %d is at round %d", i, p, v);
        CHECK(smap_node_barrier() == 0, "node barrier %d'", i);
    }
    if (lr == 0)
        printf("barrier ok: %d ranks, %d rounds\n", n, rounds);
    CHECK_RC(MPI_Finalize());
    return 0;
}
