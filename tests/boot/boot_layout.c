/* The bootstrap layer on its own (built from src/base and src/boot, no MPI):
 * identity from the launcher, node grouping, local ranks, the key-value
 * exchange and the barriers.  usage: boot_layout host|pairs|alternate
 *   host:      real host names: one node holding every rank
 *   pairs:     SMAP_NODE_NAME=n<rank/2>: nodes of two consecutive ranks
 *   alternate: SMAP_NODE_NAME=n<rank%2>: two nodes, ranks interleaved */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/tunables.h"
#include "base/wait.h"
#include "boot/boot.h"

#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL rank %d: %s: ", smap_job.rank, #c); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); exit(1); } } while (0)

static int node_for(const char *mode, int rank)
{
    if (!strcmp(mode, "pairs"))
        return rank / 2;
    if (!strcmp(mode, "alternate"))
        return rank % 2;
    return 0;
}

/* The node name must be chosen before the tunables are read, from the rank
 * the launcher gave us. */
static void set_node_name(const char *mode)
{
    const char *r = getenv("PMI_RANK");
    char name[32];
    if (strcmp(mode, "host") != 0) {
        snprintf(name, sizeof name, "n%d", node_for(mode, r ? atoi(r) : 0));
        setenv("SMAP_NODE_NAME", name, 1);
    }
}

static void check_layout(const char *mode)
{
    int rank = smap_job.rank, size = smap_job.size, me = node_for(mode, rank);
    int nnodes = 0, local_rank = -1, local_size = 0;
    for (int r = 0; r < size; r++) {
        int n = node_for(mode, r);
        if (n + 1 > nnodes)
            nnodes = n + 1;
        CHECK(smap_job.node_of[r] == n, "node_of[%d] = %d, expected %d", r, smap_job.node_of[r], n);
        if (n != me)
            continue;
        if (r == rank)
            local_rank = local_size;
        CHECK(smap_job.local_ranks[local_size] == r, "local_ranks[%d] = %d, expected %d",
              local_size, smap_job.local_ranks[local_size], r);
        local_size++;
    }
    CHECK(smap_job.node == me, "node %d, expected %d", smap_job.node, me);
    CHECK(smap_job.nnodes == nnodes, "nnodes %d, expected %d", smap_job.nnodes, nnodes);
    CHECK(smap_job.local_rank == local_rank && smap_job.local_size == local_size,
          "local %d of %d, expected %d of %d", smap_job.local_rank, smap_job.local_size, local_rank, local_size);
    /* Every rank of these jobs runs on this one machine, whatever the node
     * names: the waiting policy must count them all (base/wait.h). */
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    int known = f != NULL;
    if (f)
        fclose(f);
    CHECK(smap_wait_machine_ranks == (known ? size : 0), "%d ranks on this machine, expected %d",
          smap_wait_machine_ranks, known ? size : 0);
}

static void check_exchange(void)
{
    char key[64], val[64], want[64];
    for (int round = 0; round < 3; round++) {
        snprintf(key, sizeof key, "t.%d.%d", round, smap_job.rank);
        snprintf(val, sizeof val, "v%d", smap_job.rank * 7 + round);
        CHECK(smap_boot_put(key, val) == 0, "put %s", key);
        CHECK(smap_boot_fence() == 0, "fence");
        for (int r = 0; r < smap_job.size; r++) {
            snprintf(key, sizeof key, "t.%d.%d", round, r);
            snprintf(want, sizeof want, "v%d", r * 7 + round);
            CHECK(smap_boot_get(key, val, sizeof val) == 0 && !strcmp(val, want),
                  "get %s gave '%s', expected '%s'", key, val, want);
        }
        CHECK(smap_boot_barrier() == 0 && smap_boot_node_barrier() == 0, "barriers");
    }
    CHECK(smap_boot_get("no.such.key", val, sizeof val) != 0, "a missing key was found");
}

int main(int argc, char **argv)
{
    char err[512];
    const char *mode = argc > 1 ? argv[1] : "host";
    set_node_name(mode);
    CHECK(smap_tunables_load(err, sizeof err) == 0, "%s", err);
    CHECK(smap_boot_init(err, sizeof err) == 0, "%s", err);
    const char *pr = getenv("PMI_RANK"), *ps = getenv("PMI_SIZE");
    CHECK(smap_job.singleton == !pr, "singleton flag %d", smap_job.singleton);
    CHECK(smap_job.rank == (pr ? atoi(pr) : 0) && smap_job.size == (ps ? atoi(ps) : 1),
          "rank %d size %d vs PMI_RANK=%s PMI_SIZE=%s", smap_job.rank, smap_job.size, pr, ps);
    CHECK(smap_job.universe_size >= smap_job.size, "universe %d", smap_job.universe_size);
    check_layout(mode);
    check_exchange();
    smap_boot_finalize();
    return 0;
}
