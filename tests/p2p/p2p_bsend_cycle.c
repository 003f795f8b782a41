/* Many buffered sends of varied sizes cycling through a modest attached
 * buffer (issue 15: hung).  Each batch fills the buffer to at most its size
 * counting MPI_BSEND_OVERHEAD per message, so every Bsend must succeed; the
 * receiver takes each batch in reverse order, then acknowledges it, after
 * which the sender's buffer is free again. */
#include <string.h>

#include "smap_test.h"

enum { BUFSZ = 48 * 1024, ROUNDS = 300 };
static const int sizes[] = {1, 4000, 63, 17000, 0, 9000, 512, 2500, 33, 12000, 7, 700};
#define NS ((int)(sizeof sizes / sizeof sizes[0]))

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char *bbuf = malloc(BUFSZ), *msg = malloc(40000);
    if (rank == 0)
        CHECK_RC(MPI_Buffer_attach(bbuf, BUFSZ));
    int next = 0;
    long total = 0;
    for (int round = 0; round < ROUNDS; round++) {
        /* a batch: as many of the cycling sizes as fit */
        int batch[NS], nb = 0, used = 0;
        while (nb < NS && used + sizes[next] + MPI_BSEND_OVERHEAD <= BUFSZ) {
            batch[nb++] = sizes[next];
            used += sizes[next] + MPI_BSEND_OVERHEAD;
            next = (next + 1) % NS;
        }
        if (rank == 0) {
            for (int j = 0; j < nb; j++) {
                memset(msg, (char)(round + j), (size_t)batch[j]);
                int rc = MPI_Bsend(msg, batch[j], MPI_BYTE, 1, j, MPI_COMM_WORLD);
                CHECK(rc == MPI_SUCCESS, "round %d: Bsend %d of %d bytes (batch of %d, %d used): rc %d",
                      round, j, batch[j], nb, used, rc);
            }
            CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 1, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else {
            MPI_Request r[NS];
            char *in[NS];
            for (int j = nb - 1; j >= 0; j--) {
                in[j] = malloc((size_t)batch[j] + 1);
                CHECK_RC(MPI_Irecv(in[j], batch[j], MPI_BYTE, 0, j, MPI_COMM_WORLD, &r[j]));
            }
            CHECK_RC(MPI_Waitall(nb, r, MPI_STATUSES_IGNORE));
            for (int j = 0; j < nb; j++) {
                for (int i = 0; i < batch[j]; i++)
                    CHECK(in[j][i] == (char)(round + j), "round %d msg %d byte %d", round, j, i);
                total += batch[j];
                free(in[j]);
            }
            CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 0, 999, MPI_COMM_WORLD));
        }
    }
    if (rank == 0) {
        void *a;
        int sz;
        CHECK_RC(MPI_Buffer_detach(&a, &sz));
    } else {
        printf("p2p_bsend_cycle: ok, %ld bytes\n", total);
    }
    free(bbuf);
    free(msg);
    MPI_Finalize();
    return 0;
}
