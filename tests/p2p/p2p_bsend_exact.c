/* Buffered sends need exactly (message size + MPI_BSEND_OVERHEAD) bytes of
 * attached buffer per message (MPI 5.0 §3.6.1; issue 15: slots were rounded
 * up to 64 bytes beyond that, so 1-63 byte Bsends failed with
 * MPI_ERR_BUFFER on a correctly sized buffer), with MPI_Bsend and
 * MPI_Bsend_init, and k messages fit in k * (size + overhead) bytes
 * (MPICH's bsendfrag pattern). */
#include <string.h>

#include "smap_test.h"

static int rank;

static void one_size(int n, int k)
{
    int bytes = k * (n + MPI_BSEND_OVERHEAD);
    char *buf = malloc((size_t)bytes), *msg = malloc((size_t)n + 1);
    for (int i = 0; i < n; i++)
        msg[i] = (char)(i * 7 + n);
    if (rank == 0) {
        CHECK_RC(MPI_Buffer_attach(buf, bytes));
        for (int j = 0; j < k; j++) {
            if (j == 0 && k == 1) {   /* the persistent flavour too */
                MPI_Request r;
                CHECK_RC(MPI_Bsend_init(msg, n, MPI_CHAR, 1, n, MPI_COMM_WORLD, &r));
                CHECK_RC(MPI_Start(&r));
                CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
                CHECK_RC(MPI_Request_free(&r));
            } else {
                int rc = MPI_Bsend(msg, n, MPI_CHAR, 1, n, MPI_COMM_WORLD);
                CHECK(rc == MPI_SUCCESS, "Bsend %d of %d x %d bytes into %d: rc %d", j, k, n,
                      bytes, rc);
            }
        }
        void *a;
        int sz;
        CHECK_RC(MPI_Buffer_detach(&a, &sz));
        CHECK(a == buf && sz == bytes, "detach");
    } else {
        char *in = malloc((size_t)n + 1);
        for (int j = 0; j < k; j++) {
            memset(in, 0, (size_t)n + 1);
            CHECK_RC(MPI_Recv(in, n, MPI_CHAR, 0, n, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(memcmp(in, msg, (size_t)n) == 0, "%d bytes: data", n);
        }
        free(in);
    }
    free(buf);
    free(msg);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int n = 0; n < 64; n++)
        one_size(n, 1);
    one_size(1, 4);
    one_size(100, 3);
    one_size(17000 * 4, 4);   /* bsendfrag's sizes */
    if (rank == 0)
        printf("p2p_bsend_exact: ok\n");
    MPI_Finalize();
    return 0;
}
