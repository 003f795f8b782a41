/* src/coll/select.c's table: the rows measured on a 16-core machine apply
 * when the node has a CPU per rank, the 2-CPU VM's rows when it is
 * oversubscribed (SMAP_NODE_CPUS decides, as for the waits).  Run as
 * `coll_select dedicated` with SMAP_NODE_CPUS=64 and `coll_select over`
 * with SMAP_NODE_CPUS=1: the process caches that state on first use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/tunables.h"
#include "coll/select.h"

static int fails;

static void expect(const char *what, enum smap_coll_id id, size_t bytes, int n,
                   enum smap_coll_algo want)
{
    enum smap_coll_algo got = smap_coll_select(id, bytes, n);
    if (got != want) {
        fprintf(stderr, "FAIL %s: %zu bytes, %d ranks: %s, expected %s\n", what, bytes, n,
                got == SMAP_ALGO_INLINE ? "inline" : "direct",
                want == SMAP_ALGO_INLINE ? "inline" : "direct");
        fails++;
    }
}

int main(int argc, char **argv)
{
    char err[256];
    if (argc != 2 || (strcmp(argv[1], "dedicated") && strcmp(argv[1], "over"))) {
        fprintf(stderr, "usage: coll_select dedicated|over\n");
        return 2;
    }
    if (smap_tunables_load(err, sizeof err) != 0) {
        fprintf(stderr, "tunables: %s\n", err);
        return 1;
    }
    const enum smap_coll_algo I = SMAP_ALGO_INLINE, D = SMAP_ALGO_DIRECT;
    /* 1 rank: always local copies; 2 ranks: one row for both states */
    expect("single", SMAP_COLL_ALLREDUCE, 1 << 20, 1, I);
    expect("allreduce np2", SMAP_COLL_ALLREDUCE, 512, 2, I);
    expect("allreduce np2", SMAP_COLL_ALLREDUCE, 1024, 2, D);
    expect("bcast np2", SMAP_COLL_BCAST, 8 << 10, 2, I);
    if (!strcmp(argv[1], "dedicated")) {
        /* 16 ranks, 16 cores: a replicated 4 KiB allreduce folds 64 KiB
         * per rank (15.9 us against DIRECT's 3.3) */
        expect("allreduce np16", SMAP_COLL_ALLREDUCE, 512, 16, I);
        expect("allreduce np16", SMAP_COLL_ALLREDUCE, 1024, 16, D);
        expect("allreduce np16", SMAP_COLL_ALLREDUCE, 4096, 16, D);
        expect("allreduce np8", SMAP_COLL_ALLREDUCE, 512, 8, D);
        expect("reduce np16", SMAP_COLL_REDUCE, 8 << 10, 16, I);
        expect("reduce np16", SMAP_COLL_REDUCE, 16 << 10, 16, D);
        expect("bcast np16", SMAP_COLL_BCAST, 256, 16, I);
        expect("bcast np16", SMAP_COLL_BCAST, 512, 16, D);
        expect("alltoall np8", SMAP_COLL_ALLTOALL, 512, 8, D);
        expect("allgather np32", SMAP_COLL_ALLGATHER, 1024, 32, I);
        expect("allgather np32", SMAP_COLL_ALLGATHER, 2048, 32, D);
    } else {
        /* oversubscribed: INLINE's single sync wins far longer */
        expect("allreduce np16 over", SMAP_COLL_ALLREDUCE, 16 << 10, 16, I);
        expect("allreduce np16 over", SMAP_COLL_ALLREDUCE, 32 << 10, 16, D);
        expect("allreduce np4 over", SMAP_COLL_ALLREDUCE, 32 << 10, 4, I);
        expect("bcast np8 over", SMAP_COLL_BCAST, 16 << 10, 8, I);
        expect("alltoall np8 over", SMAP_COLL_ALLTOALL, 4 << 10, 8, I);
        expect("alltoall np8 over", SMAP_COLL_ALLTOALL, 8 << 10, 8, D);
    }
    if (fails == 0)
        printf("coll_select %s: ok\n", argv[1]);
    return fails ? 1 : 0;
}
