/* MPI_Free_mem on a pointer MPI_Alloc_mem did not return (issue 36): a
 * stack address, a malloc'ed block, the middle of an Alloc_mem block, a
 * second free of the same pointer.  Each gives MPI_ERR_BASE under
 * MPI_ERRORS_RETURN and the process goes on: the block is still usable and
 * freed properly afterwards. */
#include <stdlib.h>
#include <string.h>

#include "smap_expect.h"

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    char *p = NULL;
    CHECK_RC(MPI_Alloc_mem(4096, MPI_INFO_NULL, &p));
    memset(p, 0x5a, 4096);

    int on_stack[4] = { 0 };
    EXPECT(MPI_ERR_BASE, MPI_Free_mem(on_stack));
    char *m = malloc(64);
    CHECK(m != NULL, "malloc");
    EXPECT(MPI_ERR_BASE, MPI_Free_mem(m));
    free(m);
    EXPECT(MPI_ERR_BASE, MPI_Free_mem(p + 16));
    EXPECT(MPI_ERR_BASE, MPI_Free_mem(p + 4095));
    static double in_data[8];
    EXPECT(MPI_ERR_BASE, MPI_Free_mem(in_data));

    /* the refused calls left the block alone */
    for (int i = 0; i < 4096; i++)
        CHECK(p[i] == 0x5a, "byte %d changed", i);
    CHECK_RC(MPI_Free_mem(p));
    EXPECT(MPI_ERR_BASE, MPI_Free_mem(p));

    /* many blocks live at once, freed in another order, then all refused */
    enum { N = 300 };
    void *blk[N];
    for (int i = 0; i < N; i++)
        CHECK_RC(MPI_Alloc_mem(i * 8, MPI_INFO_NULL, &blk[i]));
    for (int i = N - 1; i >= 0; i -= 2)
        CHECK_RC(MPI_Free_mem(blk[i]));
    for (int i = 0; i < N; i += 2)
        CHECK_RC(MPI_Free_mem(blk[i]));
    for (int i = 0; i < N; i += 37)
        EXPECT(MPI_ERR_BASE, MPI_Free_mem(blk[i]));

    /* NULL is accepted, as free(NULL) and the peers accept it */
    CHECK_RC(MPI_Free_mem(NULL));

    /* still working */
    int one = 1, sum = 0;
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    int size;
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(sum == size, "allreduce gave %d", sum);
    CHECK_RC(MPI_Finalize());
    return 0;
}
