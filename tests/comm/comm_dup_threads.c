/* MPI_THREAD_MULTIPLE: every thread duplicates its own communicator
 * concurrently, with MPI_Comm_dup or MPI_Comm_idup (issue 15: hung at 4
 * ranks x several threads).  Thread t of every rank works on comms[t] only,
 * so the constructions on different parents are independent. */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "smap_test.h"

enum { NT = 4, ROUNDS = 25 };
static MPI_Comm comms[NT];
static int use_idup, size, rank;

/* MPICH's threads/comm/idup_deadlock: on even ranks, the even threads
 * start only once half of the threads here finished their first idup. */
static _Atomic int pending[NT];

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    if (use_idup && t % 2 == 0 && rank % 2 == 0) {
        int wait;
        do {
            wait = 0;
            for (int i = 0; i < NT; i++)
                wait += pending[i];
        } while (wait > NT / 2);
    }
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Comm d;
        if (use_idup || (i & 1)) {
            MPI_Request r;
            CHECK_RC(MPI_Comm_idup(comms[t], &d, &r));
            CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
            CHECK_RC(MPI_Comm_dup(comms[t], &d));
        }
        int one = 1, s = 0;
        CHECK_RC(MPI_Allreduce(&one, &s, 1, MPI_INT, MPI_SUM, d));
        CHECK(s == size, "thread %d round %d: sum %d", t, i, s);
        CHECK_RC(MPI_Comm_free(&d));
        pending[t] = 0;
    }
    return NULL;
}

/* MPICH's threads/comm/ctxidup pattern: on odd ranks a second thread
 * starts an idup of comm2 first and the main thread a blocking dup of comm1
 * later; on even ranks both start at once.  The two constructions are
 * independent and must both finish. */
static MPI_Comm comm1, comm2;

static void *idup_thread(void *arg)
{
    (void)arg;
    MPI_Comm c3;
    MPI_Request r;
    int token;
    if (rank & 1)   /* wait for the main thread's go */
        CHECK_RC(MPI_Recv(&token, 0, MPI_INT, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Comm_idup(comm2, &c3, &r));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Barrier(c3));
    CHECK_RC(MPI_Comm_free(&c3));
    return NULL;
}

static void ctxidup(void)
{
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &comm1));
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &comm2));
    pthread_t th;
    pthread_create(&th, NULL, idup_thread, NULL);
    int token = 0;
    if (rank & 1) {
        CHECK_RC(MPI_Ssend(&token, 0, MPI_INT, rank, 0, MPI_COMM_WORLD));
        struct timespec ts = {0, 300 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    MPI_Comm c4;
    CHECK_RC(MPI_Comm_dup(comm1, &c4));
    CHECK_RC(MPI_Barrier(c4));
    pthread_join(th, NULL);
    CHECK_RC(MPI_Comm_free(&c4));
    CHECK_RC(MPI_Comm_free(&comm1));
    CHECK_RC(MPI_Comm_free(&comm2));
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (use_idup = 0; use_idup < 2; use_idup++) {
        for (int t = 0; t < NT; t++) {
            CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
            pending[t] = 1;
        }
        pthread_t th[NT];
        for (int t = 0; t < NT; t++)
            pthread_create(&th[t], NULL, worker, (void *)(long)t);
        for (int t = 0; t < NT; t++)
            pthread_join(th[t], NULL);
        for (int t = 0; t < NT; t++)
            CHECK_RC(MPI_Comm_free(&comms[t]));
    }
    for (int i = 0; i < 3; i++)
        ctxidup();
    if (rank == 0)
        printf("comm_dup_threads: ok\n");
    MPI_Finalize();
    return 0;
}
