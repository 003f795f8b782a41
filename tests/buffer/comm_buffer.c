/* MPI 4.1 buffers: a communicator's own buffer (MPI_Comm_attach_buffer)
 * serves buffered sends on it and only on it; MPI_BUFFER_AUTOMATIC per
 * communicator; MPI_Comm_iflush_buffer / MPI_Buffer_iflush complete only
 * once the messages have left the buffer (a large message the receiver
 * has not asked for yet keeps it pending); the blocking flushes; detach
 * hands back the buffer; MPI_Comm_free flushes; errors. */
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

enum { BIG = 1 << 18 };   /* ints: past the eager size, so completion waits for the receiver */
static int me, np;

static int err_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static void check_big(const int *v, int k)
{
    for (int i = 0; i < BIG; i += 997)
        CHECK(v[i] == i + k, "big[%d] = %d", i, v[i]);
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &np));
    CHECK(np >= 2, "two ranks at least");
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int *big = malloc(BIG * sizeof(int));
    CHECK(big, "malloc");
    int size = BIG * (int)sizeof(int) + 2 * MPI_BSEND_OVERHEAD + 1024;
    char *cbuf = malloc((size_t)size);
    CHECK(cbuf, "malloc");
    int token = 0, x = 7;

    if (me == 0) {
        CHECK_RC(MPI_Comm_attach_buffer(dup, cbuf, size));
        int rc = MPI_Comm_attach_buffer(dup, cbuf, size);
        CHECK(err_class(rc) == MPI_ERR_BUFFER, "second attach: class %d", err_class(rc));
        /* the process has no buffer: WORLD's buffered sends fail */
        rc = MPI_Bsend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        CHECK(err_class(rc) == MPI_ERR_BUFFER, "Bsend on WORLD without a buffer: class %d",
              err_class(rc));
        for (int i = 0; i < BIG; i++)
            big[i] = i;
        CHECK_RC(MPI_Bsend(big, BIG, MPI_INT, 1, 1, dup));
        memset(big, 0, BIG * sizeof(int));   /* buffered: ours again */
        MPI_Request fr;
        CHECK_RC(MPI_Comm_iflush_buffer(dup, &fr));
        int flag = 1;
        for (int i = 0; i < 100; i++)
            CHECK_RC(MPI_Test(&fr, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "iflush complete before the receiver took the message");
        CHECK_RC(MPI_Send(&token, 1, MPI_INT, 1, 2, MPI_COMM_WORLD));
        CHECK_RC(MPI_Wait(&fr, MPI_STATUS_IGNORE));
        CHECK(fr == MPI_REQUEST_NULL, "iflush request freed");
        /* blocking flush with another message in flight */
        for (int i = 0; i < BIG; i++)
            big[i] = i + 1;
        CHECK_RC(MPI_Bsend(big, BIG, MPI_INT, 1, 3, dup));
        CHECK_RC(MPI_Comm_flush_buffer(dup));
        /* iflush of an empty buffer, and freeing a pending one */
        CHECK_RC(MPI_Comm_iflush_buffer(dup, &fr));
        CHECK_RC(MPI_Wait(&fr, MPI_STATUS_IGNORE));
        void *addr;
        int got;
        CHECK_RC(MPI_Comm_detach_buffer(dup, &addr, &got));
        CHECK(addr == cbuf && got == size, "detach gave %p %d", addr, got);
        rc = MPI_Comm_detach_buffer(dup, &addr, &got);
        CHECK(err_class(rc) == MPI_ERR_BUFFER, "detach of nothing: class %d", err_class(rc));

        /* MPI_BUFFER_AUTOMATIC on the communicator */
        CHECK_RC(MPI_Comm_attach_buffer(dup, MPI_BUFFER_AUTOMATIC, 0));
        for (int k = 0; k < 4; k++) {
            for (int i = 0; i < BIG; i++)
                big[i] = i + 10 + k;
            CHECK_RC(MPI_Bsend(big, BIG, MPI_INT, 1, 4, dup));
        }
        MPI_Count gc;
        CHECK_RC(MPI_Comm_detach_buffer_c(dup, &addr, &gc));
        CHECK(addr == MPI_BUFFER_AUTOMATIC, "automatic detach gave %p", addr);

        /* the process's buffer and its flushes; the communicator has none now */
        CHECK_RC(MPI_Buffer_attach(cbuf, size));
        for (int i = 0; i < BIG; i++)
            big[i] = i + 20;
        CHECK_RC(MPI_Bsend(big, BIG, MPI_INT, 1, 5, dup));
        CHECK_RC(MPI_Buffer_iflush(&fr));
        flag = 1;
        CHECK_RC(MPI_Test(&fr, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "Buffer_iflush complete before the receiver took the message");
        CHECK_RC(MPI_Send(&token, 1, MPI_INT, 1, 6, MPI_COMM_WORLD));
        CHECK_RC(MPI_Wait(&fr, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Bsend(big, BIG, MPI_INT, 1, 7, MPI_COMM_WORLD));
        CHECK_RC(MPI_Buffer_flush());
        CHECK_RC(MPI_Buffer_detach(&addr, &got));
        CHECK(addr == cbuf, "process detach");

        /* MPI_Comm_free flushes the communicator's buffer */
        CHECK_RC(MPI_Comm_attach_buffer_c(dup, cbuf, size));
        for (int i = 0; i < BIG; i++)
            big[i] = i + 30;
        CHECK_RC(MPI_Bsend(big, BIG, MPI_INT, 1, 8, dup));
        CHECK_RC(MPI_Comm_free(&dup));
    } else if (me == 1) {
        CHECK_RC(MPI_Recv(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Recv(big, BIG, MPI_INT, 0, 1, dup, MPI_STATUS_IGNORE));
        check_big(big, 0);
        CHECK_RC(MPI_Recv(big, BIG, MPI_INT, 0, 3, dup, MPI_STATUS_IGNORE));
        check_big(big, 1);
        for (int k = 0; k < 4; k++) {
            CHECK_RC(MPI_Recv(big, BIG, MPI_INT, 0, 4, dup, MPI_STATUS_IGNORE));
            check_big(big, 10 + k);
        }
        CHECK_RC(MPI_Recv(&token, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Recv(big, BIG, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE));
        check_big(big, 20);
        CHECK_RC(MPI_Recv(big, BIG, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        check_big(big, 20);
        CHECK_RC(MPI_Recv(big, BIG, MPI_INT, 0, 8, dup, MPI_STATUS_IGNORE));
        check_big(big, 30);
        CHECK_RC(MPI_Comm_free(&dup));
    } else {
        CHECK_RC(MPI_Comm_free(&dup));
    }
    /* errors: a bad communicator */
    int rc = MPI_Comm_attach_buffer(MPI_COMM_NULL, cbuf, size);
    CHECK(err_class(rc) == MPI_ERR_COMM, "attach to MPI_COMM_NULL: class %d", err_class(rc));
    rc = MPI_Comm_attach_buffer(MPI_COMM_SELF, cbuf, -1);
    CHECK(rc != MPI_SUCCESS, "negative size accepted");
    free(big);
    free(cbuf);
    CHECK_RC(MPI_Finalize());
    return 0;
}
