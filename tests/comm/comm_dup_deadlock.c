/* MPI_THREAD_MULTIPLE, after MPICH's threads/comm/comm_dup_deadlock
 * (issue 36): two threads per rank; thread t works on its own duplicate
 * of WORLD, comms[t].  Each round a thread duplicates MPI_COMM_SELF while
 * holding an application mutex (the dups of SELF are collective on
 * MPI_COMM_SELF, so the program serialises them), then duplicates
 * comms[t].  Thread t of rank t starts late, so on every rank one thread
 * sits in the dup of comms[t] waiting for a peer whose matching thread is
 * still in its dup of SELF: the local agreement must not wait for the
 * remote one (it used to hang: each rank's offer of free ids was held by
 * the thread blocked in the remote agreement). */
#include <pthread.h>
#include <time.h>

#include "smap_test.h"

enum { NT = 2, ROUNDS = 4 };
static MPI_Comm comms[NT];
static pthread_mutex_t app_lock = PTHREAD_MUTEX_INITIALIZER;
static int rank, size;

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* A communicator that works: an allreduce over it sums to its size. */
static void check_works(MPI_Comm c, int want, const char *what, int t, int i)
{
    int one = 1, s = 0;
    CHECK_RC(MPI_Allreduce(&one, &s, 1, MPI_INT, MPI_SUM, c));
    CHECK(s == want, "thread %d round %d: %s sums to %d, want %d", t, i, what, s, want);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    for (int i = 0; i < ROUNDS; i++) {
        if (t == rank % NT)
            nap_ms(i == 0 ? 300 : 50);
        MPI_Comm self_dup, d;
        pthread_mutex_lock(&app_lock);
        CHECK_RC(MPI_Comm_dup(MPI_COMM_SELF, &self_dup));
        pthread_mutex_unlock(&app_lock);
        check_works(self_dup, 1, "dup of SELF", t, i);
        CHECK_RC(MPI_Comm_free(&self_dup));
        CHECK_RC(MPI_Comm_dup(comms[t], &d));
        check_works(d, size, "dup of comms[t]", t, i);
        CHECK_RC(MPI_Comm_free(&d));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int t = 0; t < NT; t++)
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++)
        CHECK_RC(MPI_Comm_free(&comms[t]));
    if (rank == 0)
        printf("comm_dup_deadlock: ok\n");
    MPI_Finalize();
    return 0;
}
