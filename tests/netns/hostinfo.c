/* A rank of a job across emulated hosts: prints where it runs and what it
 * sees of its node, without any message between nodes (this build may have
 * no inter-node transport).
 *
 *   hostinfo [abort:R] [ready:DIR] [wait:PATH]
 *     prints "rank R of S host H node_size K node_rank L got P": K and L
 *     as smartmap sees the node, P what the previous rank of the node's
 *     ring sent it through MPI; "sess=DIR" on stderr;
 *     abort:R  rank R calls MPI_Abort(MPI_COMM_WORLD, 7) after printing;
 *     ready:DIR  writes DIR/ready.<rank> holding the pid, then
 *     wait:PATH  waits (at most 30 s) until PATH exists. */
#include <mpi.h>
#include <smartmap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    /* The node as smartmap sees it, then a message around the node's ring
     * through MPI (never to another node): the ring of MPI's shared-memory
     * communicator, whose order is the world ranks' (blocks or, with
     * --map-by node, every n-th rank). */
    int nsize = smap_local_size(), nrank = smap_local_rank();
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int got = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, (nrank + 1) % nsize, 5, &got, 1, MPI_INT,
                 (nrank + nsize - 1) % nsize, 5, node, MPI_STATUS_IGNORE);
    MPI_Comm_free(&node);
    printf("rank %d of %d host %s node_size %d node_rank %d got %d\n", rank, size, host, nsize,
           nrank, got);
    fflush(stdout);
    const char *sess = getenv("SMAP_SESSION_DIR");
    fprintf(stderr, "sess=%s\n", sess ? sess : "");
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "abort:", 6) == 0 && atoi(argv[i] + 6) == rank) {
            MPI_Abort(MPI_COMM_WORLD, 7);
        } else if (strncmp(argv[i], "ready:", 6) == 0) {
            char path[4096], tmp[4200];
            snprintf(path, sizeof path, "%s/ready.%d", argv[i] + 6, rank);
            snprintf(tmp, sizeof tmp, "%s.tmp", path);
            FILE *f = fopen(tmp, "w");
            if (f) {
                fprintf(f, "%d\n", (int)getpid());
                fclose(f);
                rename(tmp, path);
            }
        } else if (strncmp(argv[i], "wait:", 5) == 0) {
            for (int k = 0; k < 3000 && access(argv[i] + 5, F_OK) != 0; k++)
                usleep(10000);
        }
    }
    MPI_Finalize();
    return 0;
}
