/* Ports under MPI_THREAD_MULTIPLE (src/spawn/port.c):
 * - 4 threads open and close 50 ports each at once: every open and close
 *   succeeds, the names of one round are distinct, and closing a port
 *   twice is MPI_ERR_PORT;
 * - MPI_Close_port from a second thread while MPI_Comm_accept waits on the
 *   port (root 0 of WORLD): the accept fails cleanly with MPI_ERR_PORT on
 *   every rank (no hang, no crash), and WORLD still works afterwards. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NTHREADS 4
#define NPORTS 50

static int fails;
static pthread_mutex_t fails_lock = PTHREAD_MUTEX_INITIALIZER;
#define CHECK(c, ...)                                                   \
    do {                                                                \
        if (!(c)) {                                                     \
            pthread_mutex_lock(&fails_lock);                            \
            fprintf(stderr, __VA_ARGS__);                               \
            fputc('\n', stderr);                                        \
            fails++;                                                    \
            pthread_mutex_unlock(&fails_lock);                          \
        }                                                               \
    } while (0)

static char names[NTHREADS][MPI_MAX_PORT_NAME];

static void *churn(void *arg)
{
    int t = (int)(long)arg;
    for (int i = 0; i < NPORTS; i++) {
        char port[MPI_MAX_PORT_NAME];
        CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "thread %d: open %d", t, i);
        if (i == NPORTS - 1)
            memcpy(names[t], port, sizeof port);   /* kept open: compared below */
        else
            CHECK(MPI_Close_port(port) == MPI_SUCCESS, "thread %d: close %d", t, i);
    }
    return NULL;
}

static char accept_port[MPI_MAX_PORT_NAME];

static void *closer(void *arg)
{
    (void)arg;
    usleep(300 * 1000);   /* the accept is waiting by then */
    CHECK(MPI_Close_port(accept_port) == MPI_SUCCESS, "close under a waiting accept failed");
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    pthread_t th[NTHREADS];
    for (long t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, churn, (void *)t);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NTHREADS; t++) {
        for (int u = t + 1; u < NTHREADS; u++)
            CHECK(strcmp(names[t], names[u]) != 0, "threads %d and %d got one port name", t, u);
        CHECK(MPI_Close_port(names[t]) == MPI_SUCCESS, "close of thread %d's last port", t);
        int rc = MPI_Close_port(names[t]), cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_PORT, "a second close: class %d, not MPI_ERR_PORT", cls);
    }

    pthread_t c;
    if (rank == 0) {
        MPI_Open_port(MPI_INFO_NULL, accept_port);
        pthread_create(&c, NULL, closer, NULL);
    }
    MPI_Comm inter = MPI_COMM_NULL;
    int rc = MPI_Comm_accept(accept_port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_PORT, "rank %d: accept on a closed port: class %d, not MPI_ERR_PORT",
          rank, cls);
    CHECK(inter == MPI_COMM_NULL, "rank %d: a failed accept gave a communicator", rank);
    if (rank == 0)
        pthread_join(c, NULL);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(sum == size, "allreduce after the failed accept gave %d", sum);
    MPI_Finalize();
    if (rank == 0 && !fails)
        printf("port threads: ok\n");
    return fails ? 1 : 0;
}
