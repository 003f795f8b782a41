/* Pitfall §3.8 (vm.max_map_count): attaching N-1 peers costs one mapping
 * per peer region (heap slot, data, stack, control, collectives, one-sided:
 * at most 6 each) and a few of our own (the control, collectives and one-sided
 * regions), so a node of 128 ranks stays far
 * below the default limit of 65530.  The counts are printed for the record. */
#include "peers_test.h"

int main(int argc, char **argv)
{
    int before = count_maps(NULL), sm_before = count_maps("/memfd:smartmap-");
    CHECK_RC(MPI_Init(&argc, &argv));
    int after = count_maps(NULL), sm_after = count_maps("/memfd:smartmap-");
    int lr = smap_local_rank(), n = smap_local_size();
    int kinds = 3 + kind_exposed("heap") + kind_exposed("data") + kind_exposed("stack");
    int limit = 4 + 6 * (n - 1);   /* own control, collectives, one-sided regions + 1 spare */
    printf("vmas local rank %d of %d: %d before MPI_Init, %d after (+%d, bound %d); "
           "smartmap %d -> %d\n", lr, n, before, after, after - before, limit, sm_before, sm_after);
    /* Exactly one mapping per peer region, plus our own control,
     * collectives and one-sided regions. */
    CHECK(sm_after - sm_before == 3 + (n - 1) * kinds, "%d smartmap mappings added, expected %d",
          sm_after - sm_before, 3 + (n - 1) * kinds);
    /* Under AddressSanitizer its allocator maps chunks of its own during
     * MPI_Init: only the mappings above are ours there. */
    if (!PEERS_ASAN)
        CHECK(after - before <= limit, "%d mappings added by MPI_Init, bound %d", after - before, limit);
    CHECK(smap_node_barrier() == 0, "node barrier");
    CHECK_RC(MPI_Finalize());
    /* Finalize unmaps the views again (our control, collectives and
     * one-sided regions stay): at once under SMAP_UNMAP_DELAY=0, which
     * CMakeLists.txt sets (unmap_late.c tests the default). */
    int sm_fin = count_maps("/memfd:smartmap-");
    CHECK(sm_fin - sm_before <= 3, "%d smartmap mappings after MPI_Finalize, %d before MPI_Init",
          sm_fin, sm_before);
    return 0;
}
