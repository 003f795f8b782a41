/* MPI_Barrier on MPI_COMM_WORLD of one node is the node barrier
 * (src/smap/barrier.c: flat, every rank polling every arrival, or
 * gather at local rank 0 and release by it; CMakeLists.txt runs both).
 *
 * Without argument: rounds of two barriers with the ranks arriving in a
 * different order each round (a rank-and-round seeded pause before the
 * first, sometimes none, sometimes a yield, a short or a longer spin; so local
 * rank 0 is in turn first, in the middle and last).  In round i every rank
 * stores i into its slot of a shared window, passes barrier A, and reads
 * every slot: all must read exactly i (nobody stores i+1 before passing
 * barrier B, which needs our arrival), and then barrier B.  A barrier that
 * lets a rank out early, or a release mistaken for an older one, shows as
 * a wrong value.  Before barrier B a rank-and-round chosen collective
 * (none, a bcast from a rotating root, a reduce to it, an allreduce)
 * makes some ranks consumers, which a flat barrier lets out only after a
 * helper saw every arrival (barrier.c): the same checks hold, with the
 * consumers in turn first, last, the helper and not.  Argument 1: rounds
 * (default 200).
 *
 * "dead V": rank V exits after one barrier, the others' next MPI_Barrier
 * must return an error (MPI_ERRORS_RETURN) instead of hanging: V = 0 is
 * the gatherer (the waiters poll its release line), any other V is one
 * whose arrival the gatherer never sees (flat: one whose arrival nobody
 * sees).  Every rank takes part in a bcast from rank V before the first
 * barrier, so all but V arrive at it as consumers (flat: waiting for the
 * helper, local rank 0 or 1, which may be V, about to exit). */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smap_test.h"

static unsigned mix(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* A pause whose length depends on the rank and the round. */
static void arrive_late(int me, int round)
{
    unsigned r = mix((unsigned)me * 7919u + (unsigned)round * 104729u);
    switch (r % 4) {
    case 0:
        break;
    case 1:
        sched_yield();
        break;
    case 2:
        for (volatile unsigned k = 0; k < (r >> 8) % 3000u; k++) {
        }
        break;
    default:   /* (no sleep: on a loaded machine a wake-up takes milliseconds) */
        for (volatile unsigned k = 0; k < (r >> 8) % 30000u; k++) {
        }
        break;
    }
}

/* Round i's collective before barrier B (checked): which ranks consumed
 * peers' data since barrier A changes with the round. */
static void consume(int me, int np, int i)
{
    int root = i % np, v = me * 3 + i, out = -1, want = 0;
    for (int r = 0; r < np; r++)
        want += r * 3 + i;
    switch (mix((unsigned)i * 31u) % 4) {
    case 0:
        break;
    case 1:
        CHECK_RC(MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD));
        CHECK(v == root * 3 + i, "round %d: bcast from %d gave rank %d %d", i, root, me, v);
        break;
    case 2:
        CHECK_RC(MPI_Reduce(&v, &out, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
        CHECK(me != root || out == want, "round %d: reduce to %d gave %d, not %d", i, root, out, want);
        break;
    default:
        CHECK_RC(MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(out == want, "round %d: allreduce gave rank %d %d, not %d", i, me, out, want);
        break;
    }
}

static int dead_mode(int me, int victim)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int v = me == victim ? 42 : -1;
    CHECK_RC(MPI_Bcast(&v, 1, MPI_INT, victim, MPI_COMM_WORLD));
    CHECK(v == 42, "rank %d: bcast from %d gave %d", me, victim, v);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (me == victim)
        _exit(0);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS,
          "rank %d: a barrier without rank %d succeeded", me, victim);
    printf("PASS coll_barrier dead %d: rank %d saw the failure\n", victim, me);
    fflush(stdout);
    _exit(0);   /* MPI_Finalize would wait for the dead rank */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc > 2 && strcmp(argv[1], "dead") == 0)
        return dead_mode(me, atoi(argv[2]));
    int rounds = argc > 1 ? atoi(argv[1]) : 200;

    MPI_Comm node;
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nn;
    MPI_Comm_size(node, &nn);
    CHECK(nn == np, "the test needs all ranks on one node (%d of %d)", nn, np);
    _Atomic int *mine;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mine, &win));
    _Atomic int **slot = malloc((size_t)np * sizeof *slot);
    CHECK(slot != NULL, "malloc");
    for (int r = 0; r < np; r++) {
        MPI_Aint sz;
        int du;
        CHECK_RC(MPI_Win_shared_query(win, r, &sz, &du, &slot[r]));
    }
    atomic_store(mine, 0);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    for (int i = 1; i <= rounds; i++) {
        arrive_late(me, 2 * i);
        atomic_store_explicit(mine, i, memory_order_relaxed);
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        for (int r = 0; r < np; r++) {
            int v = atomic_load_explicit(slot[r], memory_order_relaxed);
            CHECK(v == i, "round %d: rank %d reads rank %d at round %d", i, me, r, v);
        }
        consume(me, np, i);
        arrive_late(me, 2 * i + 1);
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    }
    free(slot);
    CHECK_RC(MPI_Win_free(&win));
    CHECK_RC(MPI_Comm_free(&node));
    if (me == 0)
        printf("PASS coll_barrier: %d ranks, %d rounds\n", np, rounds);
    MPI_Finalize();
    return 0;
}
