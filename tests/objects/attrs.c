/* Attributes on communicators: predefined attributes' values, delete
 * callbacks called with the right arguments and counts (on overwrite,
 * delete, and at MPI_Finalize for MPI_COMM_SELF in reverse order of
 * setting), freed keyvals, failing callbacks, the deprecated MPI-1 names. */
#include <limits.h>
#include <string.h>

#include "smap_test.h"

static int class_of(int code)
{
    int cls = -1;
    CHECK_RC(MPI_Error_class(code, &cls));
    return cls;
}

struct call {
    MPI_Comm comm;
    int keyval;
    void *value, *extra;
};

static struct call calls[64];
static int ncalls;
static int fail_next;   /* the next delete callback returns this when not 0 */

static int record_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    if (ncalls < 64)
        calls[ncalls] = (struct call){ comm, keyval, value, extra };
    ncalls++;
    if (fail_next) {
        int rc = fail_next;
        fail_next = 0;
        return rc;
    }
    return MPI_SUCCESS;
}

static int never_copy(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldcomm, (void)keyval, (void)extra, (void)in, (void)out, (void)flag;
    return MPI_ERR_OTHER;
}

static void expect_call(int i, MPI_Comm comm, int keyval, void *value, void *extra)
{
    CHECK(i < ncalls, "call %d did not happen (%d calls)", i, ncalls);
    CHECK(calls[i].comm == comm && calls[i].keyval == keyval && calls[i].value == value &&
              calls[i].extra == extra,
          "call %d: comm %p keyval %d value %p extra %p; expected %p %d %p %p", i,
          (void *)calls[i].comm, calls[i].keyval, calls[i].value, calls[i].extra, (void *)comm,
          keyval, value, extra);
}

static int get_int_attr(MPI_Comm comm, int keyval, int *flag)
{
    int *p = NULL;
    CHECK_RC(MPI_Comm_get_attr(comm, keyval, &p, flag));
    return *flag ? *p : 0;
}

static void check_predefined(void)
{
    int size, rank, flag;
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    int v = get_int_attr(MPI_COMM_WORLD, MPI_TAG_UB, &flag);
    CHECK(flag && v == INT_MAX && v >= 32767, "MPI_TAG_UB %d flag %d", v, flag);
    v = get_int_attr(MPI_COMM_WORLD, MPI_HOST, &flag);
    CHECK(flag && v == MPI_PROC_NULL, "MPI_HOST %d", v);
    v = get_int_attr(MPI_COMM_WORLD, MPI_IO, &flag);
    CHECK(flag && v == MPI_ANY_SOURCE, "MPI_IO %d", v);
    v = get_int_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &flag);
    CHECK(flag && v == 0, "MPI_WTIME_IS_GLOBAL %d", v);
    v = get_int_attr(MPI_COMM_WORLD, MPI_APPNUM, &flag);
    CHECK(flag && v == 0, "MPI_APPNUM %d flag %d", v, flag);
    v = get_int_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &flag);
    CHECK(flag && v >= size, "MPI_UNIVERSE_SIZE %d (size %d)", v, size);
    v = get_int_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &flag);
    CHECK(flag && v == MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d", v);
    v = get_int_attr(MPI_COMM_SELF, MPI_TAG_UB, &flag);
    CHECK(flag && v == INT_MAX, "MPI_TAG_UB on SELF %d", v);
    /* MPI-1 name, same value */
    int *p;
    CHECK_RC(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag));
    CHECK(flag && *p == INT_MAX, "MPI_Attr_get(MPI_TAG_UB)");
    /* predefined keyvals cannot be changed */
    int rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v);
    CHECK(class_of(rc) == MPI_ERR_KEYVAL, "setting MPI_TAG_UB gave %d", rc);
    rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_HOST);
    CHECK(class_of(rc) == MPI_ERR_KEYVAL, "deleting MPI_HOST gave %d", rc);
    int kv = MPI_IO;
    rc = MPI_Comm_free_keyval(&kv);
    CHECK(class_of(rc) == MPI_ERR_KEYVAL && kv == MPI_IO, "freeing MPI_IO gave %d", rc);
}

static int extra_a, extra_b, val1, val2, val3;

static void check_callbacks(void)
{
    int ka, kb, flag;
    void *got;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, record_delete, &ka, &extra_a));
    CHECK_RC(MPI_Comm_create_keyval(never_copy, MPI_COMM_NULL_DELETE_FN, &kb, &extra_b));
    CHECK(ka != kb && ka != MPI_KEYVAL_INVALID, "keyvals %d %d", ka, kb);

    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, ka, &got, &flag));
    CHECK(!flag, "an attribute that was never set was found");
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, ka, &val1));
    CHECK(ncalls == 0, "setting a fresh attribute called delete");
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, ka, &got, &flag));
    CHECK(flag && got == &val1, "get after set: flag %d value %p", flag, got);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_SELF, ka, &got, &flag));
    CHECK(!flag, "attribute of WORLD visible on SELF");

    /* overwrite: delete runs on the old value, once */
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, ka, &val2));
    CHECK(ncalls == 1, "overwrite made %d delete calls", ncalls);
    expect_call(0, MPI_COMM_WORLD, ka, &val1, &extra_a);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, ka, &got, &flag));
    CHECK(flag && got == &val2, "overwrite not visible");

    /* a failing delete callback: the call fails, the attribute stays */
    fail_next = MPI_ERR_TAG;
    int rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, ka);
    CHECK(rc != MPI_SUCCESS && class_of(rc) == MPI_ERR_TAG, "failing delete gave %d", rc);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, ka, &got, &flag));
    CHECK(flag && got == &val2, "attribute lost after a failing delete");
    CHECK(ncalls == 2, "%d calls", ncalls);

    /* delete */
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, ka));
    CHECK(ncalls == 3, "delete made %d calls in all", ncalls);
    expect_call(2, MPI_COMM_WORLD, ka, &val2, &extra_a);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, ka, &got, &flag));
    CHECK(!flag, "attribute still there after delete");
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, ka));   /* not set: no-op */
    CHECK(ncalls == 3, "deleting an absent attribute called delete");

    /* NULL_DELETE_FN: overwrite and delete call nothing */
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, kb, &val1));
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, kb, &val2));
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_SELF, kb));
    CHECK(ncalls == 3, "MPI_COMM_NULL_DELETE_FN called something");

    /* a freed keyval is invalid for new calls */
    int old_kb = kb;
    CHECK_RC(MPI_Comm_free_keyval(&kb));
    CHECK(kb == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
    rc = MPI_Comm_get_attr(MPI_COMM_SELF, old_kb, &got, &flag);
    CHECK(class_of(rc) == MPI_ERR_KEYVAL, "get with a freed keyval gave %d", rc);
    CHECK_RC(MPI_Comm_free_keyval(&ka));
}

/* Attributes left on SELF: deleted at MPI_Finalize, newest first, even
 * when their keyval was freed before. */
static int fin_k1, fin_k2, fin_k3;

static void set_finalize_attrs(void)
{
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record_delete, &fin_k1, NULL));
    CHECK_RC(MPI_Keyval_create(MPI_NULL_COPY_FN, record_delete, &fin_k2, &extra_b));
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record_delete, &fin_k3, &extra_a));
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, fin_k1, &val1));
    CHECK_RC(MPI_Attr_put(MPI_COMM_SELF, fin_k2, &val2));
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, fin_k3, &val3));
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, fin_k1, &val3));   /* overwrite: no reordering */
    int flag;
    void *got;
    CHECK_RC(MPI_Attr_get(MPI_COMM_SELF, fin_k2, &got, &flag));
    CHECK(flag && got == &val2, "MPI_Attr_get");
    int k2 = fin_k2;
    CHECK_RC(MPI_Keyval_free(&k2));   /* the attribute keeps working */
    CHECK(k2 == MPI_KEYVAL_INVALID, "MPI_Keyval_free did not reset the handle");
    /* deprecated delete */
    int kd;
    CHECK_RC(MPI_Keyval_create(MPI_DUP_FN, record_delete, &kd, NULL));
    CHECK_RC(MPI_Attr_put(MPI_COMM_WORLD, kd, &val1));
    int before = ncalls;
    CHECK_RC(MPI_Attr_delete(MPI_COMM_WORLD, kd));
    CHECK(ncalls == before + 1, "MPI_Attr_delete made %d calls", ncalls - before);
    expect_call(before, MPI_COMM_WORLD, kd, &val1, NULL);
    CHECK_RC(MPI_Keyval_free(&kd));
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int rank;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    check_predefined();
    check_callbacks();
    set_finalize_attrs();
    int before = ncalls;
    CHECK_RC(MPI_Finalize());
    CHECK(ncalls == before + 3, "MPI_Finalize made %d delete calls, expected 3", ncalls - before);
    expect_call(before, MPI_COMM_SELF, fin_k3, &val3, &extra_a);
    expect_call(before + 1, MPI_COMM_SELF, fin_k2, &val2, &extra_b);
    expect_call(before + 2, MPI_COMM_SELF, fin_k1, &val3, NULL);
    if (rank == 0)
        printf("attrs: passed\n");
    return 0;
}
