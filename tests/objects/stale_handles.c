/* Issue 36: a second free through a copy of the handle, and use of a freed
 * handle, are errors of the object's class -- also while the object lives
 * on inside the library (a datatype inside a derived type, a group inside a
 * communicator, an op held by nothing, an error handler attached to a
 * communicator) -- and they leave the objects that still hold it intact. */
#include <string.h>

#include "smap_expect.h"

static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void on_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}

static void datatypes(void)
{
    MPI_Datatype t, t2;
    CHECK_RC(MPI_Type_contiguous(4, MPI_INT, &t));
    CHECK_RC(MPI_Type_commit(&t));
    t2 = t;
    CHECK_RC(MPI_Type_free(&t));
    EXPECT(MPI_ERR_TYPE, MPI_Type_free(&t2));
    int size;
    EXPECT(MPI_ERR_TYPE, MPI_Type_size(t2, &size));
    int buf[4] = { 0 };
    EXPECT(MPI_ERR_TYPE, MPI_Send(buf, 1, t2, 0, 0, MPI_COMM_SELF));

    /* freed while a derived type holds it: the handle is dead, the derived
     * type keeps working */
    MPI_Datatype c, c2, v;
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &c));
    CHECK_RC(MPI_Type_vector(3, 1, 2, c, &v));
    CHECK_RC(MPI_Type_commit(&v));
    c2 = c;
    CHECK_RC(MPI_Type_free(&c));
    EXPECT(MPI_ERR_TYPE, MPI_Type_free(&c2));
    EXPECT(MPI_ERR_TYPE, MPI_Type_size(c2, &size));
    MPI_Datatype dup;
    EXPECT(MPI_ERR_TYPE, MPI_Type_dup(c2, &dup));
    CHECK_RC(MPI_Type_size(v, &size));
    CHECK(size == 6 * (int)sizeof(int), "vector size %d", size);
    /* get_contents hands the inner type out again: a live handle */
    int ints[3];
    MPI_Aint adds[1];
    MPI_Datatype inner;
    CHECK_RC(MPI_Type_get_contents(v, 3, 0, 1, ints, adds, &inner));
    CHECK_RC(MPI_Type_size(inner, &size));
    CHECK(size == 2 * (int)sizeof(int), "inner size %d", size);
    CHECK_RC(MPI_Type_free(&inner));
    EXPECT(MPI_ERR_TYPE, MPI_Type_free(&c2));
    int in[12], out[12];
    for (int i = 0; i < 12; i++)
        in[i] = i, out[i] = -1;
    CHECK_RC(MPI_Sendrecv(in, 1, v, 0, 1, out, 1, v, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    CHECK(out[0] == 0 && out[1] == 1 && out[2] == -1 && out[4] == 4 && out[9] == 9, "vector data");
    CHECK_RC(MPI_Type_free(&v));
}

static void ops(void)
{
    MPI_Op op, op2;
    CHECK_RC(MPI_Op_create(sum_fn, 1, &op));
    op2 = op;
    CHECK_RC(MPI_Op_free(&op));
    EXPECT(MPI_ERR_OP, MPI_Op_free(&op2));
    int a = 1, b = 2, commute;
    EXPECT(MPI_ERR_OP, MPI_Op_commutative(op2, &commute));
    EXPECT(MPI_ERR_OP, MPI_Reduce_local(&a, &b, 1, MPI_INT, op2));
    EXPECT(MPI_ERR_OP, MPI_Allreduce(&a, &b, 1, MPI_INT, op2, MPI_COMM_SELF));
}

static void groups(void)
{
    MPI_Group g, g2, inc, inc2;
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &g));
    int r0 = 0;
    CHECK_RC(MPI_Group_incl(g, 1, &r0, &inc));
    inc2 = inc;
    CHECK_RC(MPI_Group_free(&inc));
    EXPECT(MPI_ERR_GROUP, MPI_Group_free(&inc2));
    int size;
    EXPECT(MPI_ERR_GROUP, MPI_Group_size(inc2, &size));
    /* WORLD's group lives on inside MPI_COMM_WORLD */
    g2 = g;
    CHECK_RC(MPI_Group_free(&g));
    EXPECT(MPI_ERR_GROUP, MPI_Group_free(&g2));
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &g));
    CHECK_RC(MPI_Group_size(g, &size));
    int wsize;
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
    CHECK(size == wsize, "world group size %d", size);
    CHECK_RC(MPI_Group_free(&g));
    /* a user communicator's group (ranks reversed: a group of its own),
     * freed twice through a copy: the communicator keeps its group */
    MPI_Comm dup;
    int wrank;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, 0, -wrank, &dup));
    CHECK_RC(MPI_Comm_group(dup, &g));
    g2 = g;
    CHECK_RC(MPI_Group_free(&g));
    EXPECT(MPI_ERR_GROUP, MPI_Group_free(&g2));
    EXPECT(MPI_ERR_GROUP, MPI_Group_size(g2, &size));
    for (int k = 0; k < 3; k++) {
        CHECK_RC(MPI_Comm_group(dup, &g));
        CHECK_RC(MPI_Group_size(g, &size));
        CHECK(size == wsize, "dup's group size %d", size);
        CHECK_RC(MPI_Group_free(&g));
    }
    int one = 1, sum = 0;
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup));
    CHECK(sum == wsize, "allreduce on dup gave %d", sum);
    CHECK_RC(MPI_Comm_free(&dup));
}

static void infos(void)
{
    MPI_Info info, info2;
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Info_set(info, "k", "v"));
    info2 = info;
    CHECK_RC(MPI_Info_free(&info));
    EXPECT(MPI_ERR_INFO, MPI_Info_free(&info2));
    int nkeys;
    EXPECT(MPI_ERR_INFO, MPI_Info_get_nkeys(info2, &nkeys));
}

static void errhandlers(void)
{
    MPI_Errhandler e, e2, got;
    CHECK_RC(MPI_Comm_create_errhandler(on_error, &e));
    e2 = e;
    CHECK_RC(MPI_Errhandler_free(&e));
    EXPECT(MPI_ERR_ARG, MPI_Errhandler_free(&e2));
    /* attached to a communicator, freed, freed again: the communicator keeps it */
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_SELF, &dup));
    CHECK_RC(MPI_Comm_create_errhandler(on_error, &e));
    CHECK_RC(MPI_Comm_set_errhandler(dup, e));
    e2 = e;
    CHECK_RC(MPI_Errhandler_free(&e));
    EXPECT(MPI_ERR_ARG, MPI_Errhandler_free(&e2));
    EXPECT(MPI_ERR_ARG, MPI_Comm_set_errhandler(MPI_COMM_SELF, e2));
    CHECK_RC(MPI_Comm_get_errhandler(dup, &got));
    CHECK_RC(MPI_Errhandler_free(&got));
    CHECK_RC(MPI_Comm_free(&dup));
}

static void windows(void)
{
    int mem[4] = { 0 };
    MPI_Win w, w2;
    CHECK_RC(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &w));
    w2 = w;
    CHECK_RC(MPI_Win_free(&w));
    EXPECT(MPI_ERR_WIN, MPI_Win_fence(0, w2));
    int one = 1;
    EXPECT(MPI_ERR_WIN, MPI_Put(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, w2));
    EXPECT(MPI_ERR_WIN, MPI_Win_free(&w2));
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    datatypes();
    ops();
    groups();
    infos();
    errhandlers();
    windows();
    CHECK_RC(MPI_Finalize());
    return 0;
}
