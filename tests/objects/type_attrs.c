/* Attributes on datatypes: MPI_Type_set_attr / get_attr / delete_attr;
 * delete callbacks (right type, keyval, value, extra state) on overwrite,
 * delete and MPI_Type_free, newest first; copy callbacks on MPI_Type_dup
 * (MPI_TYPE_DUP_FN copies, MPI_TYPE_NULL_COPY_FN does not, a user callback's
 * flag decides, a failing one makes MPI_Type_dup fail and leaves nothing
 * behind); attributes on a predefined type; argument errors. */
#include <string.h>

#include "smap_test.h"

static int class_of(int code)
{
    int cls = -1;
    CHECK_RC(MPI_Error_class(code, &cls));
    return cls;
}

struct call {
    char what;   /* 'c'opy or 'd'elete */
    MPI_Datatype type;
    int keyval;
    void *value, *extra;
};

static struct call calls[64];
static int ncalls;

static void record(char what, MPI_Datatype type, int keyval, void *value, void *extra)
{
    if (ncalls < 64)
        calls[ncalls] = (struct call){ what, type, keyval, value, extra };
    ncalls++;
}

static int del_fail;   /* the next delete callback returns this when not 0 */

static int record_delete(MPI_Datatype type, int keyval, void *value, void *extra)
{
    record('d', type, keyval, value, extra);
    if (del_fail) {
        int rc = del_fail;
        del_fail = 0;
        return rc;
    }
    return MPI_SUCCESS;
}

/* Copies when *extra is non-zero, handing out value + 1 (an int array). */
static int flag_copy(MPI_Datatype old, int keyval, void *extra, void *in, void *out, int *flag)
{
    record('c', old, keyval, in, extra);
    *flag = *(int *)extra;
    if (*flag)
        *(void **)out = (int *)in + 1;
    return MPI_SUCCESS;
}

static int failing_copy(MPI_Datatype old, int keyval, void *extra, void *in, void *out, int *flag)
{
    record('c', old, keyval, in, extra);
    (void)out, (void)flag;
    return MPI_ERR_OTHER;
}

static void expect_call(int i, char what, MPI_Datatype type, int keyval, void *value, void *extra)
{
    CHECK(i < ncalls, "call %d did not happen (%d calls)", i, ncalls);
    CHECK(calls[i].what == what && calls[i].type == type && calls[i].keyval == keyval &&
              calls[i].value == value && calls[i].extra == extra,
          "call %d: %c type %p keyval %d value %p extra %p; expected %c %p %d %p %p", i,
          calls[i].what, (void *)calls[i].type, calls[i].keyval, calls[i].value, calls[i].extra,
          what, (void *)type, keyval, value, extra);
}

static void *get(MPI_Datatype type, int keyval, int *flag)
{
    void *v = (void *)&v;   /* garbage that must not come back when flag = 0 */
    *flag = -1;
    CHECK_RC(MPI_Type_get_attr(type, keyval, &v, flag));
    CHECK(*flag == 0 || *flag == 1, "flag %d", *flag);
    return *flag ? v : NULL;
}

static int vals[8];
static int extra_a, extra_b;

static void check_set_get_delete(void)
{
    MPI_Datatype t;
    CHECK_RC(MPI_Type_contiguous(3, MPI_INT, &t));
    int k, flag;
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, record_delete, &k, &extra_a));
    CHECK(k != MPI_KEYVAL_INVALID, "keyval invalid");

    get(t, k, &flag);
    CHECK(flag == 0, "unset attribute found");
    ncalls = 0;
    CHECK_RC(MPI_Type_set_attr(t, k, &vals[0]));
    CHECK(ncalls == 0, "setting a fresh attribute made %d calls", ncalls);
    void *v = get(t, k, &flag);
    CHECK(flag && v == &vals[0], "get: flag %d value %p", flag, v);

    /* Overwrite: the old value's delete callback, then the new value. */
    CHECK_RC(MPI_Type_set_attr(t, k, &vals[1]));
    CHECK(ncalls == 1, "overwrite made %d calls", ncalls);
    expect_call(0, 'd', t, k, &vals[0], &extra_a);
    v = get(t, k, &flag);
    CHECK(flag && v == &vals[1], "after overwrite: flag %d value %p", flag, v);

    /* Delete. */
    CHECK_RC(MPI_Type_delete_attr(t, k));
    CHECK(ncalls == 2, "delete made %d calls in all", ncalls);
    expect_call(1, 'd', t, k, &vals[1], &extra_a);
    get(t, k, &flag);
    CHECK(flag == 0, "deleted attribute still found");

    /* A failing delete callback leaves the attribute in place. */
    CHECK_RC(MPI_Type_set_attr(t, k, &vals[2]));
    del_fail = MPI_ERR_ARG;
    int rc = MPI_Type_delete_attr(t, k);
    CHECK(rc != MPI_SUCCESS && class_of(rc) == MPI_ERR_ARG, "failing delete gave %d", rc);
    v = get(t, k, &flag);
    CHECK(flag && v == &vals[2], "attribute gone after failed delete");

    /* Type_free: delete callbacks newest first, with the handle being freed,
     * also for a keyval freed meanwhile. */
    int k2;
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, record_delete, &k2, &extra_b));
    CHECK_RC(MPI_Type_set_attr(t, k2, &vals[3]));
    int k2_id = k2;
    CHECK_RC(MPI_Type_free_keyval(&k2));
    CHECK(k2 == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
    v = get(t, k, &flag);
    CHECK(flag && v == &vals[2], "first attribute lost");
    MPI_Datatype h = t;
    ncalls = 0;
    CHECK_RC(MPI_Type_free(&t));
    CHECK(t == MPI_DATATYPE_NULL, "Type_free did not reset the handle");
    CHECK(ncalls == 2, "Type_free made %d delete calls, expected 2", ncalls);
    expect_call(0, 'd', h, k2_id, &vals[3], &extra_b);
    expect_call(1, 'd', h, k, &vals[2], &extra_a);

    /* A failing delete callback at Type_free: reported, the type still freed. */
    CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &t));
    CHECK_RC(MPI_Type_set_attr(t, k, &vals[4]));
    h = t;
    ncalls = 0;
    del_fail = MPI_ERR_INTERN;
    rc = MPI_Type_free(&t);
    CHECK(rc != MPI_SUCCESS && class_of(rc) == MPI_ERR_INTERN, "Type_free gave %d", rc);
    CHECK(ncalls == 1, "failing Type_free made %d calls", ncalls);
    expect_call(0, 'd', h, k, &vals[4], &extra_a);
    CHECK(t == MPI_DATATYPE_NULL, "failing Type_free did not reset the handle");

    CHECK_RC(MPI_Type_free_keyval(&k));
}

static void check_dup(void)
{
    MPI_Datatype t, d;
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_RC(MPI_Type_commit(&t));
    int yes = 1, no = 0;
    int kdup, knull, kyes, kno, flag;
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, record_delete, &kdup, &extra_a));
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, record_delete, &knull, &extra_b));
    CHECK_RC(MPI_Type_create_keyval(flag_copy, MPI_TYPE_NULL_DELETE_FN, &kyes, &yes));
    CHECK_RC(MPI_Type_create_keyval(flag_copy, record_delete, &kno, &no));
    CHECK_RC(MPI_Type_set_attr(t, kdup, &vals[0]));
    CHECK_RC(MPI_Type_set_attr(t, knull, &vals[1]));
    CHECK_RC(MPI_Type_set_attr(t, kyes, &vals[2]));
    CHECK_RC(MPI_Type_set_attr(t, kno, &vals[3]));

    ncalls = 0;
    CHECK_RC(MPI_Type_dup(t, &d));
    CHECK(d != MPI_DATATYPE_NULL && d != t, "dup handle");
    /* Only the user callbacks are called, oldest attribute first, on the old type. */
    CHECK(ncalls == 2, "Type_dup made %d calls, expected 2", ncalls);
    expect_call(0, 'c', t, kyes, &vals[2], &yes);
    expect_call(1, 'c', t, kno, &vals[3], &no);

    void *v = get(d, kdup, &flag);
    CHECK(flag && v == &vals[0], "MPI_TYPE_DUP_FN: flag %d value %p", flag, v);
    get(d, knull, &flag);
    CHECK(!flag, "MPI_TYPE_NULL_COPY_FN copied");
    v = get(d, kyes, &flag);
    CHECK(flag && v == &vals[3], "copy fn with flag 1: flag %d value %p", flag, v);
    get(d, kno, &flag);
    CHECK(!flag, "copy fn with flag 0 copied");
    /* The original is untouched. */
    v = get(t, kyes, &flag);
    CHECK(flag && v == &vals[2], "original changed");

    /* The duplicate's attributes are its own: overwriting one there runs
     * the delete callback on the duplicate, the original keeps its value. */
    ncalls = 0;
    CHECK_RC(MPI_Type_set_attr(d, kdup, &vals[5]));
    CHECK(ncalls == 1, "overwrite on the dup made %d calls", ncalls);
    expect_call(0, 'd', d, kdup, &vals[0], &extra_a);
    v = get(t, kdup, &flag);
    CHECK(flag && v == &vals[0], "setting on the dup changed the original");

    /* Freeing the duplicate: a delete callback for kdup only (kyes has
     * MPI_TYPE_NULL_DELETE_FN), with the duplicate's handle. */
    MPI_Datatype dh = d;
    ncalls = 0;
    CHECK_RC(MPI_Type_free(&d));
    CHECK(ncalls == 1, "freeing the dup made %d calls", ncalls);
    expect_call(0, 'd', dh, kdup, &vals[5], &extra_a);
    v = get(t, kyes, &flag);
    CHECK(flag && v == &vals[2], "freeing the dup changed the original");

    /* A failing copy callback: MPI_Type_dup fails with its class, the
     * attributes copied before it are deleted again on the new handle,
     * *newtype is untouched, the original keeps everything. */
    int kfail;
    CHECK_RC(MPI_Type_create_keyval(failing_copy, record_delete, &kfail, &extra_b));
    CHECK_RC(MPI_Type_set_attr(t, kfail, &vals[6]));
    ncalls = 0;
    d = MPI_DATATYPE_NULL;
    int rc = MPI_Type_dup(t, &d);
    CHECK(rc != MPI_SUCCESS && class_of(rc) == MPI_ERR_OTHER, "failing dup gave %d", rc);
    CHECK(d == MPI_DATATYPE_NULL, "failing dup set *newtype");
    /* copies: kyes, kno, then kfail fails; rollback deletes what was copied
     * (kyes: no delete fn; kdup: record_delete, on a handle we never saw). */
    int copies = 0, deletes = 0;
    for (int i = 0; i < ncalls && i < 64; i++) {
        if (calls[i].what == 'c')
            copies++;
        else {
            deletes++;
            CHECK(calls[i].type != t, "rollback deleted on the original type");
            CHECK(calls[i].keyval == kdup && calls[i].value == &vals[0],
                  "rollback delete keyval %d value %p", calls[i].keyval, calls[i].value);
        }
    }
    CHECK(copies == 3 && deletes == 1, "failing dup: %d copies %d deletes", copies, deletes);
    v = get(t, kfail, &flag);
    CHECK(flag && v == &vals[6], "original lost its attribute");
    v = get(t, kdup, &flag);
    CHECK(flag && v == &vals[0], "original lost its attribute");

    /* Cleanup: free the original, all delete callbacks run. */
    CHECK_RC(MPI_Type_delete_attr(t, kfail));
    ncalls = 0;
    CHECK_RC(MPI_Type_free(&t));
    CHECK(ncalls == 3, "freeing the original made %d calls", ncalls);   /* kno, knull, kdup */
    CHECK_RC(MPI_Type_free_keyval(&kdup));
    CHECK_RC(MPI_Type_free_keyval(&knull));
    CHECK_RC(MPI_Type_free_keyval(&kyes));
    CHECK_RC(MPI_Type_free_keyval(&kno));
    CHECK_RC(MPI_Type_free_keyval(&kfail));
}

static void check_predefined_type(void)
{
    int k, flag;
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, record_delete, &k, &extra_a));
    CHECK_RC(MPI_Type_set_attr(MPI_DOUBLE, k, &vals[0]));
    void *v = get(MPI_DOUBLE, k, &flag);
    CHECK(flag && v == &vals[0], "MPI_DOUBLE: flag %d value %p", flag, v);
    get(MPI_INT, k, &flag);
    CHECK(!flag, "attribute of MPI_DOUBLE found on MPI_INT");

    /* A dup of a predefined type gets a copy; freeing it leaves MPI_DOUBLE's. */
    MPI_Datatype d;
    CHECK_RC(MPI_Type_dup(MPI_DOUBLE, &d));
    v = get(d, k, &flag);
    CHECK(flag && v == &vals[0], "dup of MPI_DOUBLE: flag %d value %p", flag, v);
    MPI_Datatype dh = d;
    ncalls = 0;
    CHECK_RC(MPI_Type_free(&d));
    CHECK(ncalls == 1, "freeing the dup made %d calls", ncalls);
    expect_call(0, 'd', dh, k, &vals[0], &extra_a);
    v = get(MPI_DOUBLE, k, &flag);
    CHECK(flag && v == &vals[0], "MPI_DOUBLE lost its attribute");

    ncalls = 0;
    CHECK_RC(MPI_Type_delete_attr(MPI_DOUBLE, k));
    CHECK(ncalls == 1, "delete on MPI_DOUBLE made %d calls", ncalls);
    expect_call(0, 'd', MPI_DOUBLE, k, &vals[0], &extra_a);
    get(MPI_DOUBLE, k, &flag);
    CHECK(!flag, "MPI_DOUBLE's attribute survived delete");
    CHECK_RC(MPI_Type_free_keyval(&k));
}

static void check_errors(void)
{
    int k, kc, flag;
    void *v;
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &k, NULL));
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kc, NULL));

    /* Invalid datatypes. */
    int rc = MPI_Type_set_attr(MPI_DATATYPE_NULL, k, &vals[0]);
    CHECK(class_of(rc) == MPI_ERR_TYPE, "set on MPI_DATATYPE_NULL gave %d", rc);
    rc = MPI_Type_get_attr(MPI_DATATYPE_NULL, k, &v, &flag);
    CHECK(class_of(rc) == MPI_ERR_TYPE, "get on MPI_DATATYPE_NULL gave %d", rc);
    rc = MPI_Type_delete_attr(MPI_DATATYPE_NULL, k);
    CHECK(class_of(rc) == MPI_ERR_TYPE, "delete on MPI_DATATYPE_NULL gave %d", rc);
    static long garbage[16];
    rc = MPI_Type_set_attr((MPI_Datatype)(void *)garbage, k, &vals[0]);
    CHECK(class_of(rc) == MPI_ERR_TYPE, "set on garbage gave %d", rc);

    /* Invalid keyvals: MPI_KEYVAL_INVALID, a communicator keyval, a
     * predefined communicator attribute, a freed keyval, a number. */
    int bad[] = { MPI_KEYVAL_INVALID, kc, MPI_TAG_UB, 123456 };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        rc = MPI_Type_set_attr(MPI_INT, bad[i], &vals[0]);
        CHECK(class_of(rc) == MPI_ERR_KEYVAL, "set with keyval %d gave %d", bad[i], rc);
        rc = MPI_Type_get_attr(MPI_INT, bad[i], &v, &flag);
        CHECK(class_of(rc) == MPI_ERR_KEYVAL, "get with keyval %d gave %d", bad[i], rc);
        rc = MPI_Type_delete_attr(MPI_INT, bad[i]);
        CHECK(class_of(rc) == MPI_ERR_KEYVAL, "delete with keyval %d gave %d", bad[i], rc);
    }
    /* A type keyval on a communicator. */
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, k, &vals[0]);
    CHECK(class_of(rc) == MPI_ERR_KEYVAL, "type keyval on a comm gave %d", rc);
    int kfreed = k;
    CHECK_RC(MPI_Type_free_keyval(&k));
    rc = MPI_Type_set_attr(MPI_INT, kfreed, &vals[0]);
    CHECK(class_of(rc) == MPI_ERR_KEYVAL, "set with a freed keyval gave %d", rc);

    /* NULL out-arguments of get. */
    int k2;
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &k2, NULL));
    rc = MPI_Type_get_attr(MPI_INT, k2, NULL, &flag);
    CHECK(class_of(rc) == MPI_ERR_ARG, "get with NULL value gave %d", rc);
    rc = MPI_Type_get_attr(MPI_INT, k2, &v, NULL);
    CHECK(class_of(rc) == MPI_ERR_ARG, "get with NULL flag gave %d", rc);
    /* Deleting an unset attribute is not an error. */
    CHECK_RC(MPI_Type_delete_attr(MPI_INT, k2));
    CHECK_RC(MPI_Type_free_keyval(&k2));
    CHECK_RC(MPI_Comm_free_keyval(&kc));
}

/* An attribute left on a predefined type is deleted by MPI_Finalize. */
static int left_deleted;

static int count_left_delete(MPI_Datatype type, int keyval, void *value, void *extra)
{
    (void)keyval;
    (void)extra;
    if (type == MPI_INT && value == (void *)&left_deleted)
        left_deleted++;
    return MPI_SUCCESS;
}

static void leave_attribute_on_predefined(void)
{
    int kv;
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, count_left_delete, &kv, NULL));
    CHECK_RC(MPI_Type_set_attr(MPI_INT, kv, &left_deleted));
    CHECK_RC(MPI_Type_free_keyval(&kv));
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int rank;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    check_set_get_delete();
    check_dup();
    check_predefined_type();
    check_errors();
    leave_attribute_on_predefined();
    CHECK_RC(MPI_Finalize());
    CHECK(left_deleted == 1, "MPI_Finalize ran the delete callback %d times on MPI_INT's attribute", left_deleted);
    if (rank == 0)
        printf("type_attrs: passed\n");
    return 0;
}
