/* MPI_Finalize leaves the node peers' views to the process's exit, which
 * unmaps them at a fraction of the cost (src/smap/peers.c), and a thread
 * unmaps them SMAP_UNMAP_DELAY ms later if the process still runs: their
 * memory must not stay pinned by a rank that lingers after MPI_Finalize.
 * argv[1] "now": SMAP_UNMAP_DELAY=0, the views are gone when MPI_Finalize
 * returns.  "later": they are still there, a fork child drops them at
 * once, and they are gone after the delay. */
#include <sys/wait.h>

#include "peers_test.h"

static void expect_gone(int before, int views, const char *when)
{
    int now = count_maps("/memfd:smartmap-");
    CHECK(before - now == views, "%s: %d smartmap mappings before MPI_Finalize, %d now, expected %d fewer",
          when, before, now, views);
}

int main(int argc, char **argv)
{
    CHECK(argc == 2 && (!strcmp(argv[1], "now") || !strcmp(argv[1], "later")), "usage: now|later");
    int later = !strcmp(argv[1], "later");
    CHECK_RC(MPI_Init(&argc, &argv));
    int lr = smap_local_rank(), n = smap_local_size();
    int per_peer = 3 + kind_exposed("heap") + kind_exposed("data") + kind_exposed("stack");
    int views = (n - 1) * per_peer;
    int before = count_maps("/memfd:smartmap-");
    CHECK_RC(MPI_Finalize());
    if (!later) {
        expect_gone(before, views, "right after MPI_Finalize with SMAP_UNMAP_DELAY=0");
    } else {
        int kept = count_maps("/memfd:smartmap-");
        CHECK(kept == before, "the views went in MPI_Finalize (%d mappings before, %d after)",
              before, kept);
        pid_t child = fork();
        CHECK(child >= 0, "fork");
        if (child == 0) {
            /* a fork child is no rank: it keeps no peer's memory */
            int mine = count_maps("/memfd:smartmap-");
            _exit(before - mine >= views ? 0 : 1);
        }
        int st;
        CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "the fork child kept peers' views (status %#x)", st);
        for (int i = 0; i < 300 && count_maps("/memfd:smartmap-") != before - views; i++)
            usleep(10000);
        expect_gone(before, views, "3 s after MPI_Finalize with SMAP_UNMAP_DELAY=400");
    }
    if (lr == 0)
        printf("unmap_late %s: %d views of %d peers unmapped\n", argv[1], views, n - 1);
    return 0;
}
