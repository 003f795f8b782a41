/* spawn — dynamic processes (issue 34's Bench section), standard MPI only.
 *
 *   spawn N REPS   (parents: 2 ranks) each repetition spawns N children of
 *                  this program, waits for a barrier over the parent
 *                  intercommunicator (every child is connected), then
 *                  disconnects; prints the time to spawn and connect.
 *                  Then, once, with one child: ping-pong latency and
 *                  streaming bandwidth parent 0 <-> child 0 (over the
 *                  intercommunicator) and parent 0 <-> parent 1 (WORLD).
 *
 * Output (RESULT lines as the other programs of bench/):
 *   RESULT bench=spawn np=2 children=N reps=R usec=<mean> min_usec=<min>
 *   RESULT bench=spawn_lat peer=child|parent size=S iters=I usec=<half round trip> mbps=<S/usec>
 *   RESULT bench=spawn_bw peer=child|parent size=S iters=I mbps=<...> */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64

static double pingpong(MPI_Comm c, int me, int peer, char *buf, int size, int iters)
{
    double t = 0;
    for (int i = -iters / 10 - 2; i < iters; i++) {
        if (i == 0)
            t = MPI_Wtime();
        if (me) {
            MPI_Send(buf, size, MPI_BYTE, peer, 1, c);
            MPI_Recv(buf, size, MPI_BYTE, peer, 1, c, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, size, MPI_BYTE, peer, 1, c, MPI_STATUS_IGNORE);
            MPI_Send(buf, size, MPI_BYTE, peer, 1, c);
        }
    }
    return (MPI_Wtime() - t) / iters / 2 * 1e6;
}

static double stream(MPI_Comm c, int me, int peer, char *buf, int size, int iters)
{
    MPI_Request q[WINDOW];
    int ack = 0;
    double t = 0;
    for (int i = -2; i < iters; i++) {
        if (i == 0)
            t = MPI_Wtime();
        for (int w = 0; w < WINDOW; w++) {
            if (me)
                MPI_Isend(buf, size, MPI_BYTE, peer, 2, c, &q[w]);
            else
                MPI_Irecv(buf, size, MPI_BYTE, peer, 2, c, &q[w]);
        }
        MPI_Waitall(WINDOW, q, MPI_STATUSES_IGNORE);
        if (me)
            MPI_Recv(&ack, 1, MPI_INT, peer, 3, c, MPI_STATUS_IGNORE);
        else
            MPI_Send(&ack, 1, MPI_INT, peer, 3, c);
    }
    double s = MPI_Wtime() - t;
    return (double)size * WINDOW * iters / s / 1e6;
}

/* Both pairs measured by the parent that leads (me = 1) and its peer. */
static void measure(MPI_Comm c, int lead, int peer, const char *who)
{
    static const int sizes[] = { 8, 1024, 65536, 1 << 20 };
    char *buf = malloc(1 << 20);
    memset(buf, 1, 1 << 20);
    /* unreported warm-up: the rank that waits meanwhile (the other parent
     * in a barrier, or the child in its disconnect) competes for a core
     * until its wait has gone from spinning to sleeping, which on a
     * 2-core machine made the first size of the first pair slow */
    (void)pingpong(c, lead, peer, buf, 8, 20000);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int s = sizes[k], it = s >= 65536 ? 200 : 5000;
        double us = pingpong(c, lead, peer, buf, s, it);
        if (lead)
            printf("RESULT bench=spawn_lat peer=%s size=%d iters=%d usec=%.4f mbps=%.2f\n", who, s,
                   it, us, s / us);
        int bi = s >= 65536 ? 20 : 200;
        double mb = stream(c, lead, peer, buf, s, bi);
        if (lead)
            printf("RESULT bench=spawn_bw peer=%s size=%d iters=%d mbps=%.2f\n", who, s, bi, mb);
        fflush(stdout);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        int r;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        MPI_Barrier(parent);
        if (argc > 1 && !strcmp(argv[1], "measure") && r == 0)
            measure(parent, 0, 0, "child");
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    int rank, np, n = argc > 1 ? atoi(argv[1]) : 1, reps = argc > 2 ? atoi(argv[2]) : 3;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    double sum = 0, min = 1e30;
    for (int i = 0; i < reps; i++) {
        MPI_Comm inter;
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        MPI_Barrier(inter);
        t = MPI_Wtime() - t;
        sum += t;
        min = t < min ? t : min;
        MPI_Comm_disconnect(&inter);
    }
    if (rank == 0)
        printf("RESULT bench=spawn np=%d children=%d reps=%d usec=%.1f min_usec=%.1f\n", np, n,
               reps, sum / reps * 1e6, min * 1e6);
    if (argc > 3 && !strcmp(argv[3], "measure") && np >= 2) {
        char *margs[] = { "measure", NULL };
        MPI_Comm inter;
        MPI_Comm_spawn(argv[0], margs, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        MPI_Barrier(inter);
        if (rank == 0)
            measure(inter, 1, 0, "child");
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank <= 1)
            measure(MPI_COMM_WORLD, rank == 0, 1 - rank, "parent");
        MPI_Comm_disconnect(&inter);
    }
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
