/* Issue 36: communicators are created until the context ids run out.  At
 * least 16384 can be alive at once; the one too many fails with
 * MPI_ERR_OTHER on every rank (not MPI_ERR_INTERN: nothing is broken inside
 * the library); after freeing them all, creating one works again. */
#include <stdlib.h>

#include "smap_expect.h"

enum { WANT = 16384, CAP = 40000 };

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    int rank;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Comm *c = malloc(CAP * sizeof *c);
    CHECK(c != NULL, "malloc");
    int n = 0, rc = MPI_SUCCESS;
    while (n < CAP && (rc = MPI_Comm_dup(MPI_COMM_WORLD, &c[n])) == MPI_SUCCESS)
        n++;
    CHECK(n >= WANT, "only %d communicators alive at once (want >= %d)", n, WANT);
    CHECK(n < CAP, "no limit met below %d communicators", CAP);
    CHECK(class_of(rc) == MPI_ERR_OTHER, "exhaustion gave class %d, expected MPI_ERR_OTHER",
          class_of(rc));
    /* every rank stopped at the same count */
    int lo = 0, hi = 0;
    CHECK_RC(MPI_Allreduce(&n, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(&n, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(lo == n && hi == n, "ranks stopped at %d..%d communicators", lo, hi);
    /* the last ones work */
    int one = 1, sum = 0;
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c[n - 1]));
    for (int i = 0; i < n; i++)
        CHECK_RC(MPI_Comm_free(&c[i]));
    MPI_Comm again;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &again));
    int size;
    CHECK_RC(MPI_Comm_size(again, &size));
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, again));
    CHECK(sum == size, "allreduce on the new communicator gave %d", sum);
    CHECK_RC(MPI_Comm_free(&again));
    free(c);
    (void)smap_expect_cases;   /* class_of only */
    if (rank == 0)
        printf("%d communicators alive at once\n", n);
    CHECK_RC(MPI_Finalize());
    return 0;
}
