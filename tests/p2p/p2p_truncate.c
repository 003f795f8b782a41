/* MPI_ERR_TRUNCATE: a message longer than the receive buffer is reported
 * (with MPI_ERRORS_RETURN) and the bytes past the buffer stay untouched,
 * for eager, rendezvous and streamed messages, contiguous and strided
 * receive types, blocking and nonblocking receives. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

static const int lens[] = { 16, 8000, 9000, 100000, 1 << 20 };
#define GUARD 4096

static void check_guard(const unsigned char *p, size_t from, size_t to, const char *what)
{
    for (size_t i = from; i < to; i++)
        CHECK(p[i] == 0xEE, "%s: byte %zu past the buffer was overwritten", what, i);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int peer = me ^ 1;
    unsigned char *s = malloc((1 << 20) + GUARD), *r = malloc((1 << 20) + GUARD);
    for (int i = 0; i < (1 << 20); i++)
        s[i] = (unsigned char)(i * 7 + 1);
    MPI_Datatype vec;   /* 1 byte every 2: a strided receive */
    MPI_Type_vector(1 << 19, 1, 2, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        int n = lens[k], cap = n / 2;
        if (me % 2 == 0) {
            CHECK_RC(MPI_Send(s, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
            CHECK_RC(MPI_Send(s, n, MPI_BYTE, peer, 2, MPI_COMM_WORLD));
            CHECK_RC(MPI_Send(s, n, MPI_BYTE, peer, 3, MPI_COMM_WORLD));
            CHECK_RC(MPI_Send(s, 4, MPI_BYTE, peer, 4, MPI_COMM_WORLD));
        } else {
            MPI_Status st;
            int cls, cnt;
            memset(r, 0xEE, (size_t)n + GUARD);
            int rc = MPI_Recv(r, cap, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st);
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_TRUNCATE, "len %d: blocking recv class %d", n, cls);
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK(cnt <= cap, "count %d > capacity %d", cnt, cap);
            for (int i = 0; i < cnt; i++)
                CHECK(r[i] == s[i], "len %d: byte %d", n, i);
            check_guard(r, (size_t)cap, (size_t)n + GUARD, "blocking");

            memset(r, 0xEE, (size_t)n + GUARD);
            MPI_Request q;
            CHECK_RC(MPI_Irecv(r, cap, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &q));
            rc = MPI_Wait(&q, &st);
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_TRUNCATE, "len %d: wait class %d", n, cls);
            check_guard(r, (size_t)cap, (size_t)n + GUARD, "nonblocking");

            /* strided: cap/2 elements cover bytes [0, cap) at most */
            memset(r, 0xEE, (size_t)n + GUARD);
            int elems = cap / 2;
            MPI_Datatype v2;
            MPI_Type_vector(elems, 1, 2, MPI_BYTE, &v2);
            MPI_Type_commit(&v2);
            rc = MPI_Recv(r, 1, v2, peer, 3, MPI_COMM_WORLD, &st);
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_TRUNCATE, "len %d: strided class %d", n, cls);
            for (int i = 0; i < elems; i++) {
                CHECK(r[2 * i] == s[i], "strided byte %d", i);
                CHECK(r[2 * i + 1] == 0xEE, "strided gap %d overwritten", i);
            }
            check_guard(r, (size_t)(2 * elems), (size_t)n + GUARD, "strided");
            MPI_Type_free(&v2);
            /* the connection still works */
            CHECK_RC(MPI_Recv(r, 4, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    }
    /* Waitall reports MPI_ERR_IN_STATUS with the class in the status. */
    if (me % 2 == 0) {
        CHECK_RC(MPI_Send(s, 100, MPI_BYTE, peer, 9, MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(s, 10, MPI_BYTE, peer, 10, MPI_COMM_WORLD));
    } else {
        MPI_Request q[2];
        MPI_Status st[2];
        MPI_Irecv(r, 50, MPI_BYTE, peer, 9, MPI_COMM_WORLD, &q[0]);
        MPI_Irecv(r + 100, 10, MPI_BYTE, peer, 10, MPI_COMM_WORLD, &q[1]);
        int rc = MPI_Waitall(2, q, st), cls;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_IN_STATUS, "waitall class %d", cls);
        MPI_Error_class(st[0].MPI_ERROR, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "status 0 class %d", cls);
        CHECK(st[1].MPI_ERROR == MPI_SUCCESS, "status 1 error %d", st[1].MPI_ERROR);
    }
    /* Argument errors come back as error codes, nothing is sent. */
    int cls, rc;
    rc = MPI_Send(s, -1, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COUNT, "negative count: %d", cls);
    rc = MPI_Send(s, 1, MPI_BYTE, np, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "bad rank: %d", cls);
    rc = MPI_Send(s, 1, MPI_BYTE, peer, -5, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TAG, "bad tag: %d", cls);
    rc = MPI_Send(NULL, 3, MPI_INT, peer, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "NULL buffer: %d", cls);
    rc = MPI_Recv(r, 1, MPI_DATATYPE_NULL, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE, "null type: %d", cls);
    MPI_Datatype unc;
    MPI_Type_contiguous(2, MPI_INT, &unc);
    rc = MPI_Send(s, 1, unc, peer, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE, "uncommitted type: %d", cls);
    MPI_Type_free(&unc);
    rc = MPI_Recv(r, 1, MPI_BYTE, peer, 0, MPI_COMM_NULL, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "null comm: %d", cls);
    MPI_Type_free(&vec);
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
