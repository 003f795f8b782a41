/* MPI_Comm_dup and MPI_Comm_free: 10000 dup/free rounds (context ids and
 * control blocks are reused), attributes copied on dup and deleted on
 * free, error handler and hints inherited, names, test_inter, and the
 * errors of invalid arguments under MPI_ERRORS_RETURN. */
#include <mpi.h>
#include <string.h>

#include "smap_test.h"

static int copies, deletes;

static int copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra;
    copies++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)val, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static void check_loop(int np)
{
    int sum;
    for (int i = 0; i < 10000; i++) {
        MPI_Comm d;
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        if (i % 1000 == 0) {   /* now and then, use it */
            CHECK_RC(MPI_Allreduce(&i, &sum, 1, MPI_INT, MPI_SUM, d));
            CHECK(sum == i * np, "loop allreduce %d", sum);
        }
        CHECK_RC(MPI_Comm_free(&d));
    }
}

/* More live communicators than control blocks: creation still works, the
 * ones without a block report a clear error for collectives. */
static void check_many(int np)
{
    enum { N = 20 };
    MPI_Comm d[N];
    int ok = 0, sum;
    for (int i = 0; i < N; i++) {
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d[i]));
        CHECK_RC(MPI_Comm_set_errhandler(d[i], MPI_ERRORS_RETURN));
        int one = 1, rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d[i]);
        if (rc == MPI_SUCCESS) {
            CHECK(sum == np, "many allreduce %d", sum);
            ok++;
        } else {
            int cls;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION, "class %d", cls);
        }
        int r = -1, got = -1;   /* point-to-point needs no block */
        CHECK_RC(MPI_Sendrecv(&i, 1, MPI_INT, 0, 3, &r, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_SELF,
                              MPI_STATUS_IGNORE));
        int me;
        MPI_Comm_rank(d[i], &me);
        CHECK_RC(MPI_Sendrecv(&me, 1, MPI_INT, (me + 1) % np, 4, &got, 1, MPI_INT,
                              (me + np - 1) % np, 4, d[i], MPI_STATUS_IGNORE));
        CHECK(got == (me + np - 1) % np, "many ring %d", got);
    }
    CHECK(ok >= 6, "only %d communicators ran collectives", ok);
    /* a communicator without a control block can still be duplicated */
    MPI_Comm dd;
    CHECK_RC(MPI_Comm_dup(d[N - 1], &dd));
    int me, got = -1;
    MPI_Comm_rank(dd, &me);
    CHECK_RC(MPI_Sendrecv(&me, 1, MPI_INT, (me + 1) % np, 5, &got, 1, MPI_INT, (me + np - 1) % np,
                          5, dd, MPI_STATUS_IGNORE));
    CHECK(got == (me + np - 1) % np, "dup of blockless ring %d", got);
    CHECK_RC(MPI_Comm_free(&dd));
    for (int i = 0; i < N; i++)
        CHECK_RC(MPI_Comm_free(&d[i]));
}

static void check_attrs(void)
{
    int key;
    static char base[8];
    CHECK_RC(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL));
    MPI_Comm a, b;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_RC(MPI_Comm_set_attr(a, key, base));
    copies = deletes = 0;
    CHECK_RC(MPI_Comm_dup(a, &b));
    CHECK(copies == 1, "copies %d", copies);
    void *v;
    int flag = 0;
    CHECK_RC(MPI_Comm_get_attr(b, key, &v, &flag));
    CHECK(flag && v == base + 1, "copied attribute %p flag %d", v, flag);
    CHECK_RC(MPI_Comm_free(&b));
    CHECK(deletes == 1, "deletes %d", deletes);
    CHECK_RC(MPI_Comm_free(&a));
    CHECK(deletes == 2, "deletes %d", deletes);
    CHECK_RC(MPI_Comm_free_keyval(&key));
}

static void check_inherit(void)
{
    MPI_Comm a, b;
    MPI_Errhandler eh;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_RC(MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN));
    MPI_Info info;
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    CHECK_RC(MPI_Comm_dup_with_info(a, info, &b));
    CHECK_RC(MPI_Info_free(&info));
    CHECK_RC(MPI_Comm_get_errhandler(b, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "error handler not inherited");
    CHECK_RC(MPI_Errhandler_free(&eh));
    MPI_Info used;
    char val[16];
    int flag = 0;
    CHECK_RC(MPI_Comm_get_info(b, &used));
    CHECK_RC(MPI_Info_get_string(used, "mpi_assert_no_any_tag", &(int){ 16 }, val, &flag));
    CHECK(flag && strcmp(val, "true") == 0, "hint not set");
    CHECK_RC(MPI_Info_free(&used));

    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK_RC(MPI_Comm_get_name(b, name, &len));
    CHECK(len == 0 && name[0] == 0, "a new communicator has an empty name");
    CHECK_RC(MPI_Comm_set_name(b, "mine"));
    CHECK_RC(MPI_Comm_get_name(b, name, &len));
    CHECK(len == 4 && strcmp(name, "mine") == 0, "name %s", name);
    CHECK_RC(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "world name %s", name);
    CHECK_RC(MPI_Comm_test_inter(b, &flag));
    CHECK(flag == 0, "test_inter");
    MPI_Group g1, g2;
    int res;
    CHECK_RC(MPI_Comm_group(b, &g1));
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &g2));
    CHECK_RC(MPI_Group_compare(g1, g2, &res));
    CHECK(res == MPI_IDENT, "dup group compare %d", res);
    CHECK_RC(MPI_Group_free(&g1));
    CHECK_RC(MPI_Group_free(&g2));
    CHECK_RC(MPI_Comm_free(&b));
    CHECK_RC(MPI_Comm_free(&a));
}

static void expect(int rc, int cls, const char *what)
{
    int c = -1;
    CHECK(rc != MPI_SUCCESS, "%s succeeded", what);
    MPI_Error_class(rc, &c);
    CHECK(c == cls, "%s: class %d want %d", what, c, cls);
}

static void check_errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm w = MPI_COMM_WORLD, s = MPI_COMM_SELF, n = MPI_COMM_NULL, d;
    int res;
    expect(MPI_Comm_free(&w), MPI_ERR_COMM, "free WORLD");
    expect(MPI_Comm_free(&s), MPI_ERR_COMM, "free SELF");
    expect(MPI_Comm_free(&n), MPI_ERR_COMM, "free NULL");
    expect(MPI_Comm_dup(MPI_COMM_NULL, &d), MPI_ERR_COMM, "dup NULL");
    expect(MPI_Comm_dup(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "dup to NULL");
    expect(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &res), MPI_ERR_COMM, "compare NULL");
    expect(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &d), MPI_ERR_ARG, "negative color");
    expect(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &d), MPI_ERR_ARG,
           "bad split type");
    expect(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &d), MPI_ERR_GROUP, "create NULL group");
    MPI_Group wg;
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    expect(MPI_Comm_create_group(MPI_COMM_WORLD, wg, -1, &d), MPI_ERR_TAG, "negative tag");
    CHECK_RC(MPI_Group_free(&wg));
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_Comm stale = d;
    CHECK_RC(MPI_Comm_free(&d));
    (void)stale;   /* a freed handle is not checked: its memory is gone */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

/* MPI_Comm_free with operations pending (MPI 5.0 §7.4.3): they complete
 * normally afterwards, persistent requests keep working until freed, and
 * a communicator never freed is released by MPI_Finalize (the ASan
 * build's leak check fails otherwise). */
static void check_free_pending(int np)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int to = (me + 1) % np, from = (me + np - 1) % np;
    MPI_Comm d, keep;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &keep));   /* never freed */
    enum { BIG = 1 << 16 };   /* 256 KiB: a rendezvous */
    static int big_in[BIG], big_out[BIG];
    for (int i = 0; i < BIG; i++)
        big_out[i] = me * 7 + i;
    int small_in = -1, small_out = me, pin = -1, pout = 100 + me;
    MPI_Request rq[4], ps[2];
    CHECK_RC(MPI_Irecv(&small_in, 1, MPI_INT, from, 1, d, &rq[0]));
    CHECK_RC(MPI_Irecv(big_in, BIG, MPI_INT, from, 2, d, &rq[1]));
    CHECK_RC(MPI_Isend(&small_out, 1, MPI_INT, to, 1, d, &rq[2]));
    CHECK_RC(MPI_Isend(big_out, BIG, MPI_INT, to, 2, d, &rq[3]));
    CHECK_RC(MPI_Recv_init(&pin, 1, MPI_INT, from, 3, d, &ps[0]));
    CHECK_RC(MPI_Send_init(&pout, 1, MPI_INT, to, 3, d, &ps[1]));
    CHECK_RC(MPI_Comm_free(&d));
    CHECK(d == MPI_COMM_NULL, "Comm_free sets the handle to MPI_COMM_NULL");
    CHECK_RC(MPI_Barrier(keep));
    CHECK_RC(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
    CHECK(small_in == from, "small message after Comm_free: %d", small_in);
    for (int i = 0; i < BIG; i++)
        CHECK(big_in[i] == from * 7 + i, "large message after Comm_free, element %d", i);
    for (int round = 0; round < 3; round++) {
        pin = -1;
        CHECK_RC(MPI_Startall(2, ps));
        CHECK_RC(MPI_Waitall(2, ps, MPI_STATUSES_IGNORE));
        CHECK(pin == 100 + from, "persistent receive after Comm_free got %d", pin);
    }
    CHECK_RC(MPI_Request_free(&ps[0]));
    CHECK_RC(MPI_Request_free(&ps[1]));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    check_attrs();
    check_inherit();
    check_errors();
    check_many(np);
    check_loop(np);
    check_free_pending(np);
    MPI_Finalize();
    return 0;
}
