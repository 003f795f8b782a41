/* A freed keyval stays alive while attributes still use it (MPI 5.0
 * §7.7.2): deleting those attributes through a saved copy of the keyval
 * works and runs the delete callback, and a delete callback that frees the
 * keyval "again" (MPICH's keyval_double_free tests) is harmless.  Once the
 * last attribute is gone the keyval is dead for good. */
#include <string.h>

#include "smap_expect.h"

static int deletes;

static int comm_del(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm; (void)attr; (void)extra;
    deletes++;
    /* frees the callback's own copy of the keyval: "again" after the user's free */
    return MPI_Comm_free_keyval(&keyval);
}

static int type_del(MPI_Datatype t, int keyval, void *attr, void *extra)
{
    (void)t; (void)attr; (void)extra;
    deletes++;
    return MPI_Type_free_keyval(&keyval);
}

static int plain_del(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm; (void)keyval; (void)extra;
    deletes++;
    CHECK(attr == (void *)&deletes, "delete callback got the wrong value");
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* 1. free the keyval, then delete the attribute through a saved copy */
    MPI_Comm dup;
    int kv, kv_copy, flag;
    void *val;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, plain_del, &kv, NULL));
    kv_copy = kv;
    CHECK_RC(MPI_Comm_set_attr(dup, kv, &deletes));
    CHECK_RC(MPI_Comm_free_keyval(&kv));
    CHECK(kv == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
    CHECK_RC(MPI_Comm_get_attr(dup, kv_copy, &val, &flag));
    CHECK(flag && val == (void *)&deletes, "attribute lost after free_keyval");
    deletes = 0;
    CHECK_RC(MPI_Comm_delete_attr(dup, kv_copy));
    CHECK(deletes == 1, "delete callback ran %d times", deletes);
    /* the last attribute is gone: the keyval is dead now */
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_set_attr(dup, kv_copy, NULL));
    EXPECT(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&kv_copy));
    CHECK_RC(MPI_Comm_free(&dup));

    /* 2. MPICH attr/keyval_double_free: the delete callback frees again */
    deletes = 0;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_SELF, &dup));
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_del, &kv, NULL));
    kv_copy = kv;
    int kv_saved = kv;
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, kv, NULL));
    CHECK_RC(MPI_Comm_set_attr(dup, kv, NULL));
    CHECK_RC(MPI_Comm_free(&dup));            /* first free, in the callback */
    CHECK(deletes == 1, "comm delete callbacks: %d", deletes);
    CHECK_RC(MPI_Comm_free_keyval(&kv));      /* second */
    CHECK_RC(MPI_Comm_free_keyval(&kv_copy)); /* third: MPI_COMM_SELF still uses it */
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_SELF, kv_saved)); /* fourth, in the callback */
    CHECK(deletes == 2, "comm delete callbacks: %d", deletes);

    /* 3. the same on datatypes */
    deletes = 0;
    MPI_Datatype t1, t2;
    CHECK_RC(MPI_Type_dup(MPI_INT, &t1));
    CHECK_RC(MPI_Type_dup(MPI_INT, &t2));
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_del, &kv, NULL));
    kv_copy = kv_saved = kv;
    CHECK_RC(MPI_Type_set_attr(t1, kv, NULL));
    CHECK_RC(MPI_Type_set_attr(t2, kv, NULL));
    CHECK_RC(MPI_Type_free(&t1));
    CHECK_RC(MPI_Type_free_keyval(&kv));
    CHECK_RC(MPI_Type_free_keyval(&kv_copy));
    CHECK_RC(MPI_Type_delete_attr(t2, kv_saved));
    CHECK(deletes == 2, "type delete callbacks: %d", deletes);
    CHECK_RC(MPI_Type_free(&t2));

    /* 4. the keyval left on MPI_COMM_SELF at MPI_Finalize is deleted there */
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_del, &kv, NULL));
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, kv, NULL));
    CHECK_RC(MPI_Comm_free_keyval(&kv));
    printf("attr_keyval_freed: ok (%d EXPECT cases)\n", smap_expect_cases);
    MPI_Finalize();
    return 0;
}
