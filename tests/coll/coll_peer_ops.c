/* Reductions that Open MPI 4.1 and MPICH 4.0 accept beyond the standard's
 * op/type table (DESIGN D14): arithmetic and bitwise ops on MPI_CHAR (OSU 7
 * reduces MPI_CHAR by default), logical ops on MPI_AINT/MPI_OFFSET/MPI_COUNT,
 * through every reduction entry point: blocking, non-blocking, local,
 * reduce_scatter and scans, small and large counts (different algorithms). */
#include <limits.h>
#include <string.h>

#include "smap_test.h"

static int rank, size;

/* Rank r contributes (r + i) % 5 as char: small values, sums fit a char. */
static char cval(int r, long i) { return (char)((r + i) % 5); }
static char csum(int upto, long i)   /* sum over ranks 0..upto-1 */
{
    int s = 0;
    for (int r = 0; r < upto; r++)
        s += cval(r, i);
    return (char)s;
}
static MPI_Aint aval(int r, long i) { return ((r + i) % 3) == 0 ? 0 : (MPI_Aint)(r + 1) * 1000000007L; }
static MPI_Aint alor(int upto, long i)
{
    for (int r = 0; r < upto; r++)
        if (aval(r, i))
            return 1;
    return 0;
}

static void check_chars(const char *what, const char *got, long n, int upto, long off)
{
    for (long i = 0; i < n; i++)
        CHECK(got[i] == csum(upto, i + off), "%s [%ld]: %d want %d", what, i, got[i],
              csum(upto, i + off));
}

static void one_count(long n)
{
    char *s = malloc((size_t)n * size), *r = malloc((size_t)n * size);
    MPI_Aint *as = malloc(sizeof(MPI_Aint) * (size_t)n), *ar = malloc(sizeof(MPI_Aint) * (size_t)n);
    CHECK(s && r && as && ar, "malloc");
    for (long i = 0; i < n * size; i++)
        s[i] = cval(rank, i % n);
    for (long i = 0; i < n; i++)
        as[i] = aval(rank, i);
    MPI_Request q;

    CHECK_RC(MPI_Allreduce(s, r, (int)n, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
    check_chars("Allreduce CHAR SUM", r, n, size, 0);
    memset(r, 0x7f, (size_t)n);
    CHECK_RC(MPI_Reduce(s, r, (int)n, MPI_CHAR, MPI_SUM, size - 1, MPI_COMM_WORLD));
    if (rank == size - 1)
        check_chars("Reduce CHAR SUM", r, n, size, 0);
    CHECK_RC(MPI_Iallreduce(s, r, (int)n, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD, &q));
    CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
    check_chars("Iallreduce CHAR SUM", r, n, size, 0);
    CHECK_RC(MPI_Ireduce(s, r, (int)n, MPI_CHAR, MPI_SUM, 0, MPI_COMM_WORLD, &q));
    CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
    if (rank == 0)
        check_chars("Ireduce CHAR SUM", r, n, size, 0);
    /* reduce_scatter: rank k gets block k of the n*size element vector */
    CHECK_RC(MPI_Reduce_scatter_block(s, r, (int)n, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
    check_chars("Reduce_scatter_block CHAR SUM", r, n, size, 0);
    int *counts = malloc(sizeof(int) * (size_t)size);
    for (int k = 0; k < size; k++)
        counts[k] = (int)n;
    CHECK_RC(MPI_Reduce_scatter(s, r, counts, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
    check_chars("Reduce_scatter CHAR SUM", r, n, size, 0);
    CHECK_RC(MPI_Ireduce_scatter_block(s, r, (int)n, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD, &q));
    CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
    check_chars("Ireduce_scatter_block CHAR SUM", r, n, size, 0);
    CHECK_RC(MPI_Ireduce_scatter(s, r, counts, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD, &q));
    CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
    check_chars("Ireduce_scatter CHAR SUM", r, n, size, 0);
    free(counts);
    CHECK_RC(MPI_Scan(s, r, (int)n, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
    check_chars("Scan CHAR SUM", r, n, rank + 1, 0);
    CHECK_RC(MPI_Iscan(s, r, (int)n, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD, &q));
    CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
    check_chars("Iscan CHAR SUM", r, n, rank + 1, 0);
    CHECK_RC(MPI_Exscan(s, r, (int)n, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
    if (rank > 0)
        check_chars("Exscan CHAR SUM", r, n, rank, 0);
    CHECK_RC(MPI_Iexscan(s, r, (int)n, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD, &q));
    CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
    if (rank > 0)
        check_chars("Iexscan CHAR SUM", r, n, rank, 0);
    /* MIN / MAX / BOR on MPI_CHAR */
    CHECK_RC(MPI_Allreduce(s, r, (int)n, MPI_CHAR, MPI_MAX, MPI_COMM_WORLD));
    for (long i = 0; i < n; i++) {
        char m = 0;
        for (int k = 0; k < size; k++)
            m = cval(k, i) > m ? cval(k, i) : m;
        CHECK(r[i] == m, "Allreduce CHAR MAX [%ld]", i);
    }
    CHECK_RC(MPI_Allreduce(s, r, (int)n, MPI_CHAR, MPI_BOR, MPI_COMM_WORLD));
    for (long i = 0; i < n; i++) {
        char m = 0;
        for (int k = 0; k < size; k++)
            m |= cval(k, i);
        CHECK(r[i] == m, "Allreduce CHAR BOR [%ld]", i);
    }
    /* logical ops on MPI_AINT and friends */
    CHECK_RC(MPI_Allreduce(as, ar, (int)n, MPI_AINT, MPI_LOR, MPI_COMM_WORLD));
    for (long i = 0; i < n; i++)
        CHECK(ar[i] == alor(size, i), "Allreduce AINT LOR [%ld]: %ld", i, (long)ar[i]);
    CHECK_RC(MPI_Iallreduce(as, ar, (int)n, MPI_AINT, MPI_LAND, MPI_COMM_WORLD, &q));
    CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (long i = 0; i < n; i++) {
        MPI_Aint want = 1;
        for (int k = 0; k < size; k++)
            want = want && aval(k, i);
        CHECK(ar[i] == want, "Iallreduce AINT LAND [%ld]", i);
    }
    MPI_Count cs = rank + 1, cr = -1;
    MPI_Offset os = rank == 0, orr = -1;
    CHECK_RC(MPI_Allreduce(&cs, &cr, 1, MPI_COUNT, MPI_LXOR, MPI_COMM_WORLD));
    CHECK(cr == (size % 2), "COUNT LXOR %lld", (long long)cr);
    CHECK_RC(MPI_Allreduce(&os, &orr, 1, MPI_OFFSET, MPI_LOR, MPI_COMM_WORLD));
    CHECK(orr == 1, "OFFSET LOR %lld", (long long)orr);
    free(s); free(r); free(as); free(ar);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);   /* MPI_Reduce_local's */
    one_count(1);
    one_count(1000);
    one_count(300000);
    /* Reduce_local on the three char types and the mixed cases */
    signed char a = -3, b = 5;
    CHECK_RC(MPI_Reduce_local(&a, &b, 1, MPI_SIGNED_CHAR, MPI_MIN));
    CHECK(b == -3, "SIGNED_CHAR MIN %d", b);
    unsigned char ua = 200, ub = 100;
    CHECK_RC(MPI_Reduce_local(&ua, &ub, 1, MPI_UNSIGNED_CHAR, MPI_SUM));
    CHECK(ub == 44, "UNSIGNED_CHAR SUM wraps: %d", ub);
    char ca = 6, cb = 3;
    CHECK_RC(MPI_Reduce_local(&ca, &cb, 1, MPI_CHAR, MPI_BXOR));
    CHECK(cb == 5, "CHAR BXOR %d", cb);
    ca = 2; cb = 0;
    CHECK_RC(MPI_Reduce_local(&ca, &cb, 1, MPI_CHAR, MPI_LOR));
    CHECK(cb == 1, "CHAR LOR %d", cb);
    /* still refused: meaningless pairs */
    int cls;
    float f = 1, g = 2;
    MPI_Error_class(MPI_Allreduce(&f, &g, 1, MPI_FLOAT, MPI_BAND, MPI_COMM_WORLD), &cls);
    CHECK(cls == MPI_ERR_OP, "FLOAT BAND class %d", cls);
    MPI_Error_class(MPI_Reduce_local(&f, &g, 1, MPI_FLOAT, MPI_LAND), &cls);
    CHECK(cls == MPI_ERR_OP, "FLOAT LAND class %d", cls);
    char pk[4] = {0};
    MPI_Error_class(MPI_Reduce_local(pk, pk + 2, 1, MPI_PACKED, MPI_SUM), &cls);
    CHECK(cls == MPI_ERR_OP, "PACKED SUM class %d", cls);
    if (rank == 0)
        printf("coll_peer_ops: ok on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
