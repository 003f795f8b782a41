/* MPI_T from several threads at once (the tool lock): each thread makes
 * its own pvar session and cvar handles, reads and writes, while the main
 * thread sends messages to itself and counts exactly its own 500. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#include "smap_test.h"

#define T(call)                                                              \
    do {                                                                     \
        int rc_ = (call);                                                    \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);             \
    } while (0)

#define THREADS 4
#define ROUNDS 200

static void *worker(void *arg)
{
    (void)arg;
    int provided, npvar, ncvar, sent_idx;
    T(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    T(MPI_T_pvar_get_num(&npvar));
    T(MPI_T_cvar_get_num(&ncvar));
    T(MPI_T_pvar_get_index("smap_p2p_messages_sent", MPI_T_PVAR_CLASS_COUNTER, &sent_idx));
    for (int r = 0; r < ROUNDS; r++) {
        MPI_T_pvar_session s;
        MPI_T_pvar_handle h;
        int count;
        T(MPI_T_pvar_session_create(&s));
        T(MPI_T_pvar_handle_alloc(s, sent_idx, NULL, &h, &count));
        T(MPI_T_pvar_start(s, h));
        unsigned long long v;
        T(MPI_T_pvar_read(s, h, &v));
        CHECK(v < 1000000, "a fresh handle reads %llu", v);
        T(MPI_T_pvar_session_free(&s));
        MPI_T_cvar_handle c;
        int idx = r % ncvar;
        T(MPI_T_cvar_handle_alloc(idx, NULL, &c, &count));
        char buf[512];
        T(MPI_T_cvar_read(c, buf));
        T(MPI_T_cvar_handle_free(&c));
    }
    T(MPI_T_finalize());
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    T(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    MPI_T_pvar_session s;
    MPI_T_pvar_handle sent;
    int idx, count;
    T(MPI_T_pvar_session_create(&s));
    T(MPI_T_pvar_get_index("smap_p2p_messages_sent", MPI_T_PVAR_CLASS_COUNTER, &idx));
    T(MPI_T_pvar_handle_alloc(s, idx, NULL, &sent, &count));
    T(MPI_T_pvar_start(s, sent));
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&th[i], NULL, worker, NULL) == 0, "pthread_create");
    int x = 0, y;
    for (int i = 0; i < 500; i++)
        MPI_Sendrecv(&x, 1, MPI_INT, rank, 0, &y, 1, MPI_INT, rank, 0, MPI_COMM_SELF,
                     MPI_STATUS_IGNORE);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    unsigned long long v;
    T(MPI_T_pvar_read(s, sent, &v));
    CHECK(v == 500, "%llu messages sent, expected 500", v);
    T(MPI_T_pvar_session_free(&s));
    T(MPI_T_finalize());
    MPI_Finalize();
    if (rank == 0)
        printf("mpit_threads: OK\n");
    return 0;
}
