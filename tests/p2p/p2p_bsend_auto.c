/* MPI_BUFFER_AUTOMATIC (MPI 4.1+): buffered sends of any number and size
 * succeed without a user buffer, complete before any receive is posted,
 * and detach returns MPI_BUFFER_AUTOMATIC with size 0. */
#include <stdlib.h>

#include "smap_test.h"

int main(int argc, char **argv)
{
    int me, np;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &np));
    int to = (me + 1) % np, from = (me + np - 1) % np;
    CHECK_RC(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));

    /* a second attach fails while one is attached */
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    char spare[64];
    int rc = MPI_Buffer_attach(spare, sizeof spare), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "second attach gave class %d", cls);

    enum { N = 40 };
    static const int sizes[] = { 0, 1, 7, 1000, 4096, 70000, 1 << 20 };
    enum { NS = sizeof sizes / sizeof sizes[0] };
    MPI_Request ib[N];
    for (int k = 0; k < N; k++) {   /* all sent before anything is received */
        int n = sizes[k % NS];
        int *m = malloc((size_t)(n ? n : 1) * sizeof *m);
        for (int i = 0; i < n; i++)
            m[i] = me * 1000003 + k * 31 + i;
        if (k % 2)
            CHECK_RC(MPI_Ibsend(m, n, MPI_INT, to, k, MPI_COMM_WORLD, &ib[k]));
        else {
            CHECK_RC(MPI_Bsend(m, n, MPI_INT, to, k, MPI_COMM_WORLD));
            ib[k] = MPI_REQUEST_NULL;
        }
        free(m);   /* the library has its own copy */
    }
    CHECK_RC(MPI_Waitall(N, ib, MPI_STATUSES_IGNORE));
    for (int k = N - 1; k >= 0; k--) {   /* reverse order: by tag */
        int n = sizes[k % NS], got;
        int *m = malloc((size_t)(n ? n : 1) * sizeof *m);
        MPI_Status st;
        CHECK_RC(MPI_Recv(m, n, MPI_INT, from, k, MPI_COMM_WORLD, &st));
        CHECK_RC(MPI_Get_count(&st, MPI_INT, &got));
        CHECK(got == n, "message %d: %d ints, expected %d", k, got, n);
        for (int i = 0; i < n; i++)
            CHECK(m[i] == from * 1000003 + k * 31 + i, "message %d element %d", k, i);
        free(m);
    }
    void *addr = NULL;
    int size = -1;
    CHECK_RC(MPI_Buffer_detach(&addr, &size));
    CHECK(addr == MPI_BUFFER_AUTOMATIC && size == 0, "detach gave %p size %d", addr, size);
    /* a user buffer works again afterwards */
    static char buf[1 << 16];
    CHECK_RC(MPI_Buffer_attach(buf, sizeof buf));
    int v = me, w = -1;
    CHECK_RC(MPI_Bsend(&v, 1, MPI_INT, to, 99, MPI_COMM_WORLD));
    CHECK_RC(MPI_Recv(&w, 1, MPI_INT, from, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(w == from, "after re-attach got %d", w);
    CHECK_RC(MPI_Buffer_detach(&addr, &size));
    CHECK(addr == buf && size == (int)sizeof buf, "detach of the user buffer");
    CHECK_RC(MPI_Finalize());
    return 0;
}
