/* Pitfall §3.7: a dead peer's memory stays allocated while we map it.
 * Local rank 1 exits (status 0, so the launcher lets the job go on) while
 * the others wait for it in smap_node_barrier(); the barrier notices the
 * death, fails instead of hanging, and smap_peers_reap() has unmapped the
 * dead rank's regions: its addresses no longer translate and its mappings
 * are gone, while the surviving peers stay reachable. */
#include "peers_test.h"

int g_arr[64];

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    int lr = smap_local_rank(), n = smap_local_size(), victim = 1;
    CHECK(n >= 3, "needs three ranks");
    int *h = malloc(256);
    uintptr_t a[2] = { (uintptr_t)h, (uintptr_t)g_arr };
    info_write("reap", lr, a, 2);
    CHECK(smap_node_barrier() == 0, "node barrier");
    if (lr == victim)
        _exit(0);
    struct peer_info pv = info_read("reap", victim);
    int survivor = lr == 0 ? 2 : 0;
    struct peer_info ps = info_read("reap", survivor);
    int hx = kind_exposed("heap"), dx = kind_exposed("data"), sx = kind_exposed("stack");
    CHECK(!dx || smap_remote(victim, (void *)pv.addr[1], sizeof g_arr) != NULL,
          "victim's globals not reachable while it lives");
    int before = count_maps("/memfd:smartmap-");
    CHECK(smap_node_barrier() == -1, "node barrier completed without the dead rank");
    CHECK(smap_remote(victim, (void *)pv.addr[0], 1) == NULL, "dead rank's heap still translated");
    CHECK(smap_remote(victim, (void *)pv.addr[1], 1) == NULL, "dead rank's globals still translated");
    int after = count_maps("/memfd:smartmap-");
    int views = 3 + hx + dx + sx;   /* control, collectives, one-sided regions + exposed kinds */
    CHECK(before - after == views, "%d smartmap mappings before the death, %d after, expected %d fewer",
          before, after, views);
    CHECK(!dx || smap_remote(survivor, (void *)ps.addr[1], sizeof g_arr) != NULL,
          "surviving local rank %d lost its view", survivor);
    if (lr == 0)
        printf("reap ok: %d views of the dead rank unmapped\n", views);
    /* A survivor that exited before our check would be reaped as well:
     * leave only when both are done. */
    uintptr_t none = 0;
    info_write("reap_done", lr, &none, 1);
    wait_file("reap_done", survivor);
    free(h);
    /* No MPI_Finalize: it would wait for the dead rank. */
    return 0;
}
