/* What rma_sync and rma_acc do not cover: PSCW between subgroups with
 * MPI_Win_test, shared-memory windows used through the pointers of
 * MPI_Win_shared_query (contiguous layout), hints and info, user
 * attributes on windows, window error handlers, and the error classes of
 * one-sided calls (with MPI_ERRORS_RETURN on the window). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

static int me, np;

/* Even ranks expose to odd ones, odd ranks access even ones. */
static void pscw_pairs(void)
{
    int *mem;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(sizeof(int) * 64, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                              &win));
    MPI_Group world, evens, odds;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ev[64], od[64], ne = 0, no = 0;
    for (int r = 0; r < np; r++)
        if (r % 2)
            od[no++] = r;
        else
            ev[ne++] = r;
    MPI_Group_incl(world, ne, ev, &evens);
    MPI_Group_incl(world, no, od, &odds);
    for (int rep = 0; rep < 20; rep++) {
        for (int i = 0; i < 64; i++)
            mem[i] = -1;
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        if (me % 2 == 0) {
            if (no) {
                CHECK_RC(MPI_Win_post(odds, rep % 2 ? MPI_MODE_NOPUT : 0, win));
                int flag = 0;
                if (rep % 2)
                    CHECK_RC(MPI_Win_wait(win));
                else
                    while (!flag)
                        CHECK_RC(MPI_Win_test(win, &flag));
                for (int k = 0; k < no; k++)
                    CHECK(mem[od[k]] == od[k] * 100 + rep, "pscw: mem[%d] = %d", od[k],
                          mem[od[k]]);
            }
        } else {
            CHECK_RC(MPI_Win_start(evens, 0, win));
            for (int k = 0; k < ne; k++) {
                int v = me * 100 + rep;
                CHECK_RC(MPI_Put(&v, 1, MPI_INT, ev[k], me, 1, MPI_INT, win));
            }
            CHECK_RC(MPI_Win_complete(win));
        }
    }
    MPI_Group_free(&world);
    MPI_Group_free(&evens);
    MPI_Group_free(&odds);
    CHECK_RC(MPI_Win_free(&win));
}

static void shared(void)
{
    MPI_Comm node;
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nme, nn;
    MPI_Comm_rank(node, &nme);
    MPI_Comm_size(node, &nn);
    double *mine;
    MPI_Win win;
    MPI_Aint sz = (MPI_Aint)sizeof(double) * (MPI_Aint)(nme + 1);   /* unequal sizes */
    CHECK_RC(MPI_Win_allocate_shared(sz, sizeof(double), MPI_INFO_NULL, node, &mine, &win));
    for (int i = 0; i <= nme; i++)
        mine[i] = nme * 10 + i;
    CHECK_RC(MPI_Win_fence(0, win));
    /* contiguous: rank r's segment follows rank r-1's */
    double *first = NULL;
    for (int r = 0; r < nn; r++) {
        MPI_Aint qs;
        int du;
        double *p;
        CHECK_RC(MPI_Win_shared_query(win, r, &qs, &du, &p));
        CHECK(qs == (MPI_Aint)sizeof(double) * (r + 1) && du == sizeof(double),
              "shared_query(%d): size %ld unit %d", r, (long)qs, du);
        if (r == 0)
            first = p;
        CHECK(p == first + (r * (r + 1)) / 2, "rank %d's segment is not contiguous", r);
        for (int i = 0; i <= r; i++)
            CHECK(p[i] == r * 10 + i, "shared load: rank %d [%d] = %g", r, i, p[i]);
    }
    /* stores through the pointer of the next rank, seen after a fence */
    MPI_Aint qs;
    int du;
    double *nx;
    CHECK_RC(MPI_Win_shared_query(win, (nme + 1) % nn, &qs, &du, &nx));
    CHECK_RC(MPI_Win_fence(0, win));
    nx[0] = -1.0 - nme;
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK(mine[0] == -1.0 - (nme + nn - 1) % nn, "store through shared pointer: %g", mine[0]);
    {
        MPI_Aint du_c;
        CHECK_RC(MPI_Win_shared_query_c(win, MPI_PROC_NULL, &qs, &du_c, &nx));
        CHECK(nx == first && du_c == sizeof(double), "shared_query_c(MPI_PROC_NULL)");
    }
    MPI_Info used;
    CHECK_RC(MPI_Win_get_info(win, &used));
    char v[64];
    int flag;
    CHECK_RC(MPI_Info_get_string(used, "accumulate_ordering", &(int){ 64 }, v, &flag));
    CHECK(flag && !strcmp(v, "rar,raw,war,waw"), "accumulate_ordering '%s'", v);
    MPI_Info_free(&used);
    CHECK_RC(MPI_Win_free(&win));
    /* a window from MPI_Win_allocate answers shared_query with direct
     * pointers too (load/store through SMARTMAP) */
    int *m;
    CHECK_RC(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &m, &win));
    *m = 1000 + nme;
    CHECK_RC(MPI_Win_fence(0, win));
    int *p;
    CHECK_RC(MPI_Win_shared_query(win, (nme + 1) % nn, &qs, &du, &p));
    CHECK(p && *p == 1000 + (nme + 1) % nn, "allocate window via shared_query: %d",
          p ? *p : -1);
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Win_free(&win));
    MPI_Comm_free(&node);
}

static int handler_calls, handler_code;
static void win_handler(MPI_Win *w, int *code, ...)
{
    (void)w;
    handler_calls++;
    handler_code = *code;
}

static int deleted;
static int del_fn(MPI_Win w, int key, void *val, void *extra)
{
    (void)w, (void)key, (void)extra;
    deleted += (int)(intptr_t)val;
    return MPI_SUCCESS;
}

static void errors_and_objects(void)
{
    int *mem;
    MPI_Win win;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "true");
    CHECK_RC(MPI_Win_allocate(64, 4, info, MPI_COMM_WORLD, &mem, &win));
    MPI_Info_free(&info);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int x = 0, y = 0;
    /* outside any epoch */
    EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Get(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_flush(0, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC);   /* no_locks */
    EXPECT_CLASS(MPI_Win_lock(99, 0, 0, win), MPI_ERR_LOCKTYPE);
    CHECK_RC(MPI_Win_fence(0, win));
    /* in a fence epoch */
    EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, 0, 16, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Put(&x, 2, MPI_INT, 0, 15, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, 0, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    /* displacements past 31 bits: out of range, and one whose product
     * with the displacement unit overflows */
    EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, 0, (MPI_Aint)INT32_MAX + 1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, 0, (MPI_Aint)(INT64_MAX / 2), 1, MPI_INT, win),
           MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, np, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Put(&x, -1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Put(&x, 1, MPI_DATATYPE_NULL, 0, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Put(&x, 2, MPI_SHORT, 0, 0, 1, MPI_DOUBLE, win), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL, win), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, win), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Accumulate(&x, 1, MPI_FLOAT, 0, 0, 1, MPI_FLOAT, MPI_BAND, win), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_UNSIGNED, MPI_SUM, win), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Compare_and_swap(&x, &y, &x, MPI_2INT, 0, 0, win), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Win_post(MPI_GROUP_EMPTY, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_fence(12345678, win), MPI_ERR_ASSERT);
    CHECK_RC(MPI_Put(&x, 1, MPI_INT, MPI_PROC_NULL, 99999, 1, MPI_INT, win));
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    EXPECT_CLASS(MPI_Win_detach(win, mem), MPI_ERR_RMA_FLAVOR);
    /* a fence followed by no operation opens no epoch: a lock may follow */
    CHECK_RC(MPI_Win_fence(0, win));
    EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC);   /* no_locks */
    CHECK_RC(MPI_Win_post(MPI_GROUP_EMPTY, 0, win));
    CHECK_RC(MPI_Win_wait(win));
    EXPECT_CLASS(MPI_Win_attach(win, &x, 4), MPI_ERR_RMA_FLAVOR);
    EXPECT_CLASS(MPI_Win_set_attr(win, MPI_WIN_BASE, NULL), MPI_ERR_KEYVAL);

    /* user attributes: delete callback at MPI_Win_free */
    int key;
    CHECK_RC(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &key, NULL));
    CHECK_RC(MPI_Win_set_attr(win, key, (void *)(intptr_t)5));
    void *v;
    int flag;
    CHECK_RC(MPI_Win_get_attr(win, key, &v, &flag));
    CHECK(flag && v == (void *)(intptr_t)5, "user attribute");
    CHECK_RC(MPI_Win_delete_attr(win, key));
    CHECK(deleted == 5, "delete callback ran %d", deleted);
    CHECK_RC(MPI_Win_set_attr(win, key, (void *)(intptr_t)7));

    /* user error handler, MPI_Win_call_errhandler */
    MPI_Errhandler eh, got;
    CHECK_RC(MPI_Win_create_errhandler(win_handler, &eh));
    CHECK_RC(MPI_Win_set_errhandler(win, eh));
    CHECK_RC(MPI_Win_get_errhandler(win, &got));
    CHECK(got == eh, "MPI_Win_get_errhandler");
    MPI_Errhandler_free(&got);
    MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    CHECK(handler_calls == 1 && smap_err_class(handler_code) == MPI_ERR_RMA_SYNC, "handler: %d calls",
          handler_calls);
    CHECK_RC(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "call_errhandler");
    MPI_Errhandler_free(&eh);
    MPI_Fint f = MPI_Win_c2f(win);
    CHECK(MPI_Win_f2c(f) == win, "c2f/f2c");
    CHECK_RC(MPI_Win_free(&win));
    CHECK(deleted == 12, "delete callback at free: %d", deleted);
    CHECK_RC(MPI_Win_free_keyval(&key));

    /* creation errors (raised on the communicator) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    EXPECT_CLASS(MPI_Win_create(&x, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_SIZE);
    EXPECT_CLASS(MPI_Win_create(&x, 4, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_DISP);
    EXPECT_CLASS(MPI_Win_allocate(4, 1, MPI_INFO_NULL, MPI_COMM_NULL, &mem, &win), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Win_free(&win), MPI_ERR_WIN);

    /* dynamic: overlap, unknown detach, access outside attached memory */
    CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int *buf = malloc(64);
    CHECK_RC(MPI_Win_attach(win, buf, 64));
    EXPECT_CLASS(MPI_Win_attach(win, buf + 4, 8), MPI_ERR_RMA_ATTACH);
    EXPECT_CLASS(MPI_Win_detach(win, buf + 1), MPI_ERR_RMA_ATTACH);
    CHECK_RC(MPI_Win_lock_all(0, win));
    MPI_Aint a;
    MPI_Get_address(buf, &a);
    EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, me, a + 64, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    CHECK_RC(MPI_Put(&x, 1, MPI_INT, me, a + 60, 1, MPI_INT, win));
    CHECK_RC(MPI_Win_unlock_all(win));
    EXPECT_CLASS(MPI_Win_shared_query(win, 0, &a, &x, &v), MPI_ERR_RMA_FLAVOR);
    CHECK_RC(MPI_Win_detach(win, buf));
    /* free with an epoch open */
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    EXPECT_CLASS(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_unlock(me, win));
    CHECK_RC(MPI_Win_free(&win));
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    pscw_pairs();
    shared();
    errors_and_objects();
    MPI_Finalize();
    return 0;
}
