/* Invalid arguments to the datatype and pack entry points return the right
 * error class under MPI_ERRORS_RETURN, and nothing crashes. */
#include <string.h>

#include "smap_test.h"

int main(int argc, char **argv)
{
    /* before MPI_Init: an error, not a crash (the default handler is fatal,
     * so only MPI_Get_address, which is allowed, is called) */
    MPI_Aint a = 0;
    CHECK_RC(MPI_Get_address(&a, &a));
    CHECK(a == (MPI_Aint)&a, "MPI_Get_address");

    MPI_Init(&argc, &argv);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Datatype t = MPI_DATATYPE_NULL, bogus = (MPI_Datatype)(intptr_t)0x2ff;
    MPI_Datatype garbage = (MPI_Datatype)(intptr_t)&a;   /* not a datatype object */
    int i;
    MPI_Count c;
    MPI_Aint lb, ext;

    /* bad handles */
    EXPECT_CLASS(MPI_Type_size(MPI_DATATYPE_NULL, &i), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Type_size(bogus, &i), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Type_size_c(garbage, &c), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Type_get_extent(MPI_DATATYPE_NULL, &lb, &ext), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Type_commit(&t), MPI_ERR_TYPE);   /* t is MPI_DATATYPE_NULL */
    EXPECT_CLASS(MPI_Type_commit(NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8},
                                        (MPI_Datatype[]){MPI_INT, MPI_DATATYPE_NULL}, &t),
                 MPI_ERR_TYPE);
    /* freeing a predefined type */
    MPI_Datatype p = MPI_INT;
    EXPECT_CLASS(MPI_Type_free(&p), MPI_ERR_TYPE);
    CHECK(p == MPI_INT, "failed free changed the handle");
    /* negative counts and block lengths, NULL arrays and outputs */
    EXPECT_CLASS(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Type_contiguous_c(-5, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Type_vector(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_indexed(2, (int[]){1, -2}, (int[]){0, 4}, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_indexed(2, NULL, (int[]){0, 4}, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_create_hindexed_block(2, 1, NULL, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_contiguous(2, MPI_INT, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_size(MPI_INT, NULL), MPI_ERR_ARG);
    /* subarray and darray consistency */
    EXPECT_CLASS(MPI_Type_create_subarray(1, (int[]){4}, (int[]){3}, (int[]){2}, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_create_subarray(1, (int[]){4}, (int[]){2}, (int[]){0}, 7, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_create_subarray(0, (int[]){4}, (int[]){2}, (int[]){0}, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_DIMS);
    EXPECT_CLASS(MPI_Type_create_darray(4, 0, 1, (int[]){8}, (int[]){MPI_DISTRIBUTE_BLOCK},
                                        (int[]){MPI_DISTRIBUTE_DFLT_DARG}, (int[]){3}, MPI_ORDER_C, MPI_INT, &t),
                 MPI_ERR_ARG);   /* grid of 3 for size 4 */
    EXPECT_CLASS(MPI_Type_create_darray(2, 2, 1, (int[]){8}, (int[]){MPI_DISTRIBUTE_BLOCK},
                                        (int[]){MPI_DISTRIBUTE_DFLT_DARG}, (int[]){2}, MPI_ORDER_C, MPI_INT, &t),
                 MPI_ERR_ARG);   /* rank out of range */
    EXPECT_CLASS(MPI_Type_create_darray(2, 0, 1, (int[]){8}, (int[]){MPI_DISTRIBUTE_BLOCK},
                                        (int[]){2}, (int[]){2}, MPI_ORDER_C, MPI_INT, &t),
                 MPI_ERR_ARG);   /* block 2 * 2 procs < 8 */
    /* decoding */
    int ni, na, nd, comb;
    EXPECT_CLASS(MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL), MPI_ERR_TYPE);
    MPI_Datatype v, big;
    CHECK_RC(MPI_Type_vector(2, 1, 3, MPI_INT, &v));
    int iv[3];
    EXPECT_CLASS(MPI_Type_get_contents(v, 2, 0, 1, iv, NULL, &t), MPI_ERR_ARG);   /* too small */
    CHECK_RC(MPI_Type_vector_c(2, 1, 3, MPI_INT, &big));
    EXPECT_CLASS(MPI_Type_get_envelope(big, &ni, &na, &nd, &comb), MPI_ERR_TYPE); /* use _c */
    /* pack: uncommitted type, negative count, overflow, bad comm */
    char buf[64];
    int pos = 0;
    int data[8] = {0};
    EXPECT_CLASS(MPI_Pack(data, 1, v, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_RC(MPI_Type_commit(&v));
    EXPECT_CLASS(MPI_Pack(data, -1, v, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Pack(data, 1, v, buf, 64, &pos, MPI_COMM_NULL), MPI_ERR_COMM);
    pos = 60;
    EXPECT_CLASS(MPI_Pack(data, 1, v, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    CHECK(pos == 60, "failed pack moved the position");
    pos = 0;
    EXPECT_CLASS(MPI_Pack(data, 1, v, buf, 64, NULL, MPI_COMM_WORLD), MPI_ERR_ARG);
    pos = 0;
    EXPECT_CLASS(MPI_Unpack(buf, 4, &pos, data, 1, v, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    EXPECT_CLASS(MPI_Unpack(buf, 64, &pos, data, 1, MPI_DATATYPE_NULL, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Pack_size(-1, MPI_INT, MPI_COMM_WORLD, &i), MPI_ERR_COUNT);
    MPI_Count huge;
    CHECK_RC(MPI_Pack_size_c(1, big, MPI_COMM_WORLD, &huge));
    EXPECT_CLASS(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t), MPI_ERR_ARG);
    /* the error string names the function */
    char msg[MPI_MAX_ERROR_STRING];
    int len, rc = MPI_Type_free(&p);
    CHECK_RC(MPI_Error_string(rc, msg, &len));
    CHECK(strstr(msg, "MPI_Type_free") != NULL, "message '%s'", msg);
    CHECK_RC(MPI_Type_free(&v));
    CHECK_RC(MPI_Type_free(&big));
    MPI_Finalize();
    /* after MPI_Finalize: an error, not a crash (errors then go to the
     * default fatal handler, so this is not called) */
    return 0;
}
