/* Unit test of src/mpi/attr.c's whole-list operations, which no entry
 * point reaches until MPI_Comm_dup / MPI_Comm_free exist:
 * smap_attr_copy_all (copy callbacks, MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN,
 * flag = 0, a failing callback rolling back) and smap_attr_delete_all
 * (newest first, attributes of freed keyvals included).  Built from attr.c
 * with stubs for what it calls in the rest of the library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "mpi/attr.h"
#include "mpi/comm.h"
#include "mpi/errors.h"

/* ---- stubs ---- */
struct smap_job smap_job;
static int raised;
int smap_err_raise(MPI_Comm comm, int cls, const char *func, const char *fmt, ...)
{
    (void)comm, (void)func, (void)fmt;
    raised++;
    return cls;
}
int smap_error_class(int code, int *cls)
{
    *cls = code;
    return MPI_SUCCESS;
}
static int lastused = MPI_ERR_LASTCODE;
int *smap_err_lastusedcode(void)
{
    return &lastused;
}

#define CHECK(cond, ...)                                                           \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);        \
            fprintf(stderr, __VA_ARGS__);                                          \
            fprintf(stderr, "\n");                                                 \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

struct call {
    char what;   /* 'c'opy or 'd'elete */
    MPI_Comm comm;
    int keyval;
    void *value, *extra;
};
static struct call calls[64];
static int ncalls;
static int values[8];

static void record(char what, MPI_Comm comm, int keyval, void *value, void *extra)
{
    CHECK(ncalls < 64, "too many calls");
    calls[ncalls++] = (struct call){ what, comm, keyval, value, extra };
}

static int del(MPI_Comm comm, int keyval, void *value, void *extra)
{
    record('d', comm, keyval, value, extra);
    return MPI_SUCCESS;
}

/* Copies value &values[i] as &values[i + 1]. */
static int copy_next(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    record('c', old, keyval, in, extra);
    *(void **)out = (int *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int copy_none(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    record('c', old, keyval, in, extra);
    (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

static int copy_fail(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    record('c', old, keyval, in, extra);
    (void)out, (void)flag;
    return MPI_ERR_TAG;
}

static void expect(int i, char what, struct MPI_ABI_Comm *c, int keyval, void *value, void *extra)
{
    CHECK(i < ncalls, "call %d missing (%d calls)", i, ncalls);
    struct call *k = &calls[i];
    CHECK(k->what == what && k->comm == c->handle && k->keyval == keyval && k->value == value &&
              k->extra == extra,
          "call %d: %c comm %p keyval %d value %p extra %p", i, k->what, (void *)k->comm, k->keyval,
          k->value, k->extra);
}

static void *get(struct MPI_ABI_Comm *c, int keyval, int *flag)
{
    void *v = NULL;
    CHECK(smap_attr_get(SMAP_OBJ_COMM, c->handle, &c->attrs, keyval, &v, flag, MPI_COMM_NULL, "t") ==
              MPI_SUCCESS, "get");
    return v;
}

static void set(struct MPI_ABI_Comm *c, int keyval, void *v)
{
    CHECK(smap_attr_set(SMAP_OBJ_COMM, c->handle, &c->attrs, keyval, v, MPI_COMM_NULL, "t") ==
              MPI_SUCCESS, "set");
}

static int keyval(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *d, void *extra)
{
    int k;
    CHECK(smap_keyval_create(SMAP_OBJ_COMM, (smap_attr_fn *)copy, (smap_attr_fn *)d, extra, &k, "t") ==
              MPI_SUCCESS, "keyval");
    return k;
}

int main(void)
{
    static struct MPI_ABI_Comm a, b, c;
    a.handle = (MPI_Comm)&a;
    b.handle = (MPI_Comm)&b;
    c.handle = (MPI_Comm)&c;
    int ex1, ex2;
    int k_dup = keyval(MPI_COMM_DUP_FN, del, &ex1);
    int k_null = keyval(MPI_COMM_NULL_COPY_FN, del, NULL);
    int k_next = keyval(copy_next, del, &ex2);
    int k_none = keyval(copy_none, MPI_COMM_NULL_DELETE_FN, NULL);
    set(&a, k_dup, &values[0]);
    set(&a, k_null, &values[1]);
    set(&a, k_next, &values[2]);
    set(&a, k_none, &values[4]);
    int freed = k_next;
    CHECK(smap_keyval_free(SMAP_OBJ_COMM, &freed, "t") == MPI_SUCCESS && freed == MPI_KEYVAL_INVALID,
          "free keyval");   /* its attribute is still copied and deleted */

    /* copy: callbacks in the order of setting, with the old handle */
    CHECK(smap_attr_copy_all(&a, &b) == MPI_SUCCESS, "copy_all");
    CHECK(ncalls == 2, "%d copy calls, expected 2 (user callbacks only)", ncalls);
    expect(0, 'c', &a, k_next, &values[2], &ex2);
    expect(1, 'c', &a, k_none, &values[4], NULL);
    int flag;
    CHECK(get(&b, k_dup, &flag) == &values[0] && flag, "MPI_COMM_DUP_FN copy");
    get(&b, k_null, &flag);
    CHECK(!flag, "MPI_COMM_NULL_COPY_FN attribute was copied");
    get(&b, k_none, &flag);
    CHECK(!flag, "flag = 0 attribute was copied");
    CHECK(get(&a, k_dup, &flag) == &values[0] && flag, "old comm changed");

    /* delete_all on the copy: newest first, b's handle, k_next's copied value */
    ncalls = 0;
    CHECK(smap_attr_delete_all(&b) == MPI_SUCCESS && b.attrs == NULL, "delete_all");
    CHECK(ncalls == 2, "%d delete calls on the copy, expected 2", ncalls);
    expect(0, 'd', &b, k_next, &values[3], &ex2);
    expect(1, 'd', &b, k_dup, &values[0], &ex1);

    /* a failing copy callback: error returned, copied attributes deleted */
    int k_fail = keyval(copy_fail, del, NULL);
    set(&a, k_fail, &values[5]);
    ncalls = 0;
    CHECK(smap_attr_copy_all(&a, &c) == MPI_ERR_TAG, "failing copy did not fail");
    CHECK(c.attrs == NULL, "new comm kept attributes after a failed copy");
    /* copies of k_next and k_none, k_fail's fails; then the rollback deletes
     * what was copied (k_next, k_dup: newest first) */
    CHECK(ncalls == 5, "%d calls in the failed copy, expected 5", ncalls);
    expect(0, 'c', &a, k_next, &values[2], &ex2);
    expect(1, 'c', &a, k_none, &values[4], NULL);
    expect(2, 'c', &a, k_fail, &values[5], NULL);
    expect(3, 'd', &c, k_next, &values[3], &ex2);
    expect(4, 'd', &c, k_dup, &values[0], &ex1);

    /* freeing the original: everything, newest first */
    ncalls = 0;
    CHECK(smap_attr_delete_all(&a) == MPI_SUCCESS && a.attrs == NULL, "delete_all");
    CHECK(ncalls == 4, "%d delete calls, expected 4 (k_none has none)", ncalls);
    expect(0, 'd', &a, k_fail, &values[5], NULL);
    expect(1, 'd', &a, k_next, &values[2], &ex2);
    expect(2, 'd', &a, k_null, &values[1], NULL);
    expect(3, 'd', &a, k_dup, &values[0], &ex1);
    CHECK(raised == 0, "%d errors raised", raised);
    int ks[] = { k_dup, k_null, k_none, k_fail };
    for (int i = 0; i < 4; i++)
        CHECK(smap_keyval_free(SMAP_OBJ_COMM, &ks[i], "t") == MPI_SUCCESS, "free %d", i);
    printf("attr_copy_unit: passed\n");
    return 0;
}
