/* Partitioned communication across nodes (src/mpi/p2p_args.c,
 * smap_p2p_route with node_only): it reaches ranks of the same node only.
 * Layout 2,1: ranks 0 and 1 share a node, rank 2 is alone on the other.
 * Between 0 and 1 a partitioned transfer of 4 partitions arrives whole;
 * MPI_Psend_init / MPI_Precv_init naming rank 2 (or, on rank 2, rank 0)
 * fail with MPI_ERR_UNSUPPORTED_OPERATION whose message names the rank,
 * the request stays MPI_REQUEST_NULL, and plain point-to-point between
 * the nodes still works afterwards. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int me, failed;

#define CHECK(cond, ...)                                                                    \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "rank %d: FAIL line %d: ", me, __LINE__);                       \
            fprintf(stderr, __VA_ARGS__);                                                   \
            fputc('\n', stderr);                                                            \
            failed = 1;                                                                     \
        }                                                                                   \
    } while (0)

static void refused(int rc, MPI_Request req, int peer, const char *what)
{
    int cls = -1, len = 0;
    char msg[MPI_MAX_ERROR_STRING] = "", want[64];
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    snprintf(want, sizeof want, "rank %d is on another node", peer);
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION, "%s to rank %d: class %d", what, peer, cls);
    CHECK(strstr(msg, want) && strstr(msg, "partitioned"), "%s: message '%s'", what, msg);
    CHECK(req == MPI_REQUEST_NULL, "%s: the request is not MPI_REQUEST_NULL", what);
}

int main(int argc, char **argv)
{
    int np, buf[64] = { 0 };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 3) {
        if (me == 0)
            fprintf(stderr, "net_partitioned: run with layout 2,1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* on the node: 0 sends 4 partitions of 16 ints to 1 */
    if (me < 2) {
        MPI_Request r = MPI_REQUEST_NULL;
        int rc = me == 0 ? MPI_Psend_init(buf, 4, 16, MPI_INT, 1, 5, MPI_COMM_WORLD,
                                          MPI_INFO_NULL, &r)
                         : MPI_Precv_init(buf, 4, 16, MPI_INT, 0, 5, MPI_COMM_WORLD,
                                          MPI_INFO_NULL, &r);
        CHECK(rc == MPI_SUCCESS, "partitioned init on the node: rc %d", rc);
        if (rc == MPI_SUCCESS) {
            if (me == 0)
                for (int i = 0; i < 64; i++)
                    buf[i] = 1000 + i;
            MPI_Start(&r);
            if (me == 0)
                for (int p = 3; p >= 0; p--)
                    MPI_Pready(p, r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            MPI_Request_free(&r);
            for (int i = 0; me == 1 && i < 64; i++)
                CHECK(buf[i] == 1000 + i, "element %d is %d", i, buf[i]);
        }
    }
    /* across the nodes: refused at init */
    int other = me == 2 ? 0 : 2;
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = MPI_Psend_init(buf, 4, 16, MPI_INT, other, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    refused(rc, r, other, "MPI_Psend_init");
    r = MPI_REQUEST_NULL;
    rc = MPI_Precv_init(buf, 4, 16, MPI_INT, other, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    refused(rc, r, other, "MPI_Precv_init");
    /* the nodes still talk */
    int token = me == 0 ? 77 : -1;
    if (me == 0)
        MPI_Send(&token, 1, MPI_INT, 2, 7, MPI_COMM_WORLD);
    else if (me == 2) {
        MPI_Recv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(token == 77, "token %d", token);
    }
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0 && !any)
        printf("net_partitioned: OK (on the node delivered, across nodes refused)\n");
    MPI_Finalize();
    return any ? 1 : 0;
}
