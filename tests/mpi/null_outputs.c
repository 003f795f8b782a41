/* Issue 36: a NULL where the standard requires an output argument (a
 * request, a flag, a count, a new handle, a rank...) is MPI_ERR_ARG with a
 * message naming the argument, never a crash nor an operation started with
 * nowhere to put its request.  A representative set across the binding:
 * point-to-point, probes, persistent and non-blocking collectives,
 * communicator, group and datatype constructors and queries. */
#include <string.h>

#include "smap_expect.h"

static int cases;   /* smap_expect_cases stays for EXPECT users */

static void user_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)in, (void)inout, (void)len, (void)t;
}

#define NUL(arg, call)                                                                   \
    do {                                                                                 \
        int rc_ = (call);                                                                \
        cases++;                                                                         \
        smap_expect_cases++;                                                             \
        char s_[MPI_MAX_ERROR_STRING] = "";                                              \
        int n_ = 0;                                                                      \
        if (rc_ != MPI_SUCCESS)                                                          \
            MPI_Error_string(rc_, s_, &n_);                                              \
        CHECK(rc_ != MPI_SUCCESS && class_of(rc_) == MPI_ERR_ARG, "%s gave %d (class %d)", \
              #call, rc_, class_of(rc_));                                                \
        CHECK(strstr(s_, arg) != NULL, "%s: message \"%s\" does not name %s", #call, s_, arg); \
    } while (0)

static void p2p(int peer)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int x = 1;
    NUL("request", MPI_Isend(&x, 1, MPI_INT, peer, 0, w, NULL));
    NUL("request", MPI_Isend_c(&x, 1, MPI_INT, peer, 0, w, NULL));
    NUL("request", MPI_Issend(&x, 1, MPI_INT, peer, 0, w, NULL));
    NUL("request", MPI_Irsend(&x, 1, MPI_INT, peer, 0, w, NULL));
    NUL("request", MPI_Ibsend(&x, 1, MPI_INT, peer, 0, w, NULL));
    NUL("request", MPI_Irecv(&x, 1, MPI_INT, peer, 0, w, NULL));
    NUL("request", MPI_Irecv_c(&x, 1, MPI_INT, peer, 0, w, NULL));
    NUL("request", MPI_Isendrecv(&x, 1, MPI_INT, peer, 0, &x, 1, MPI_INT, peer, 0, w, NULL));
    NUL("request", MPI_Isendrecv_replace(&x, 1, MPI_INT, peer, 0, peer, 0, w, NULL));
    NUL("request", MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, w, NULL));
    NUL("request", MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, w, NULL));
    NUL("request", MPI_Send_init(&x, 1, MPI_INT, peer, 0, w, NULL));
    NUL("request", MPI_Ssend_init(&x, 1, MPI_INT, peer, 0, w, NULL));
    NUL("request", MPI_Bsend_init(&x, 1, MPI_INT, peer, 0, w, NULL));
    NUL("request", MPI_Rsend_init(&x, 1, MPI_INT, peer, 0, w, NULL));
    NUL("request", MPI_Recv_init(&x, 1, MPI_INT, peer, 0, w, NULL));
    NUL("request", MPI_Psend_init(&x, 1, 1, MPI_INT, peer, 0, w, MPI_INFO_NULL, NULL));
    NUL("request", MPI_Precv_init(&x, 1, 1, MPI_INT, peer, 0, w, MPI_INFO_NULL, NULL));
    MPI_Message msg;
    MPI_Status st;
    int flag;
    NUL("flag", MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, w, NULL, &st));
    NUL("flag", MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, w, NULL, &msg, &st));
    NUL("message", MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, w, &flag, NULL, &st));
    NUL("message", MPI_Mprobe(MPI_PROC_NULL, 0, w, NULL, &st));
    msg = MPI_MESSAGE_NO_PROC;
    NUL("request", MPI_Imrecv(&x, 1, MPI_INT, &msg, NULL));
    int count;
    MPI_Status any;
    CHECK_RC(MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &x, 1, MPI_INT, MPI_PROC_NULL, 0, w, &any));
    NUL("count", MPI_Get_count(&any, MPI_INT, NULL));
    NUL("count", MPI_Get_elements(&any, MPI_INT, NULL));
    NUL("status", MPI_Get_count(NULL, MPI_INT, &count));
    MPI_Request r;
    CHECK_RC(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, w, &r));
    NUL("flag", MPI_Test(&r, NULL, MPI_STATUS_IGNORE));
    NUL("flag", MPI_Testall(1, &r, NULL, MPI_STATUSES_IGNORE));
    int idx;
    NUL("index", MPI_Testany(1, &r, NULL, &flag, MPI_STATUS_IGNORE));
    NUL("flag", MPI_Request_get_status(r, NULL, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    (void)idx;
}

static void collectives(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int x = 1, y[64];
    NUL("request", MPI_Ibarrier(w, NULL));
    NUL("request", MPI_Ibcast(&x, 1, MPI_INT, 0, w, NULL));
    NUL("request", MPI_Iallreduce(&x, y, 1, MPI_INT, MPI_SUM, w, NULL));
    NUL("request", MPI_Ireduce(&x, y, 1, MPI_INT, MPI_SUM, 0, w, NULL));
    NUL("request", MPI_Iallgather(&x, 1, MPI_INT, y, 1, MPI_INT, w, NULL));
    NUL("request", MPI_Ialltoall(y, 1, MPI_INT, y + 32, 1, MPI_INT, w, NULL));
    NUL("request", MPI_Igather(&x, 1, MPI_INT, y, 1, MPI_INT, 0, w, NULL));
    NUL("request", MPI_Iscatter(y, 1, MPI_INT, &x, 1, MPI_INT, 0, w, NULL));
    NUL("request", MPI_Iscan(&x, y, 1, MPI_INT, MPI_SUM, w, NULL));
    NUL("request", MPI_Barrier_init(w, MPI_INFO_NULL, NULL));
    NUL("request", MPI_Bcast_init(&x, 1, MPI_INT, 0, w, MPI_INFO_NULL, NULL));
    NUL("request", MPI_Allreduce_init(&x, y, 1, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, NULL));
    MPI_Comm ring;
    int n, periods = 1;
    CHECK_RC(MPI_Comm_size(w, &n));
    CHECK_RC(MPI_Cart_create(w, 1, &n, &periods, 0, &ring));
    NUL("request", MPI_Ineighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, ring, NULL));
    NUL("request", MPI_Ineighbor_alltoall(y, 1, MPI_INT, y + 32, 1, MPI_INT, ring, NULL));
    NUL("request", MPI_Neighbor_allgather_init(&x, 1, MPI_INT, y, 1, MPI_INT, ring,
                                               MPI_INFO_NULL, NULL));
    CHECK_RC(MPI_Comm_free(&ring));
}

static void comms_groups(void)
{
    MPI_Comm w = MPI_COMM_WORLD, c;
    MPI_Group g, g2;
    MPI_Request r;
    int res;
    NUL("rank", MPI_Comm_rank(w, NULL));
    NUL("size", MPI_Comm_size(w, NULL));
    NUL("size", MPI_Comm_remote_size(w, NULL));
    NUL("newcomm", MPI_Comm_dup(w, NULL));
    NUL("newcomm", MPI_Comm_dup_with_info(w, MPI_INFO_NULL, NULL));
    NUL("newcomm", MPI_Comm_idup(w, NULL, &r));
    NUL("request", MPI_Comm_idup(w, &c, NULL));
    NUL("newcomm", MPI_Comm_split(w, 0, 0, NULL));
    NUL("newcomm", MPI_Comm_split_type(w, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, NULL));
    NUL("group", MPI_Comm_group(w, NULL));
    CHECK_RC(MPI_Comm_group(w, &g));
    NUL("newcomm", MPI_Comm_create(w, g, NULL));
    NUL("newcomm", MPI_Comm_create_group(w, g, 5, NULL));
    NUL("result", MPI_Comm_compare(w, w, NULL));
    NUL("flag", MPI_Comm_test_inter(w, NULL));
    NUL("rank", MPI_Group_rank(g, NULL));
    NUL("size", MPI_Group_size(g, NULL));
    int r0 = 0, range[1][3] = { { 0, 0, 1 } };
    NUL("newgroup", MPI_Group_incl(g, 1, &r0, NULL));
    NUL("newgroup", MPI_Group_excl(g, 1, &r0, NULL));
    NUL("newgroup", MPI_Group_range_incl(g, 1, range, NULL));
    NUL("newgroup", MPI_Group_union(g, g, NULL));
    NUL("newgroup", MPI_Group_intersection(g, g, NULL));
    NUL("newgroup", MPI_Group_difference(g, g, NULL));
    NUL("result", MPI_Group_compare(g, g, NULL));
    CHECK_RC(MPI_Group_incl(g, 1, &r0, &g2));
    NUL("ranks2", MPI_Group_translate_ranks(g2, 1, &r0, g, NULL));
    CHECK_RC(MPI_Group_free(&g2));
    CHECK_RC(MPI_Group_free(&g));
    int one = 1, per = 0;
    NUL("comm_cart", MPI_Cart_create(w, 1, &one, &per, 0, NULL));
    NUL("keyval", MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                                              NULL, NULL));
    int kv;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL));
    void *val;
    NUL("flag", MPI_Comm_get_attr(w, kv, &val, NULL));
    NUL("attribute_val", MPI_Comm_get_attr(w, kv, NULL, &res));
    CHECK_RC(MPI_Comm_free_keyval(&kv));
    NUL("keyval", MPI_Comm_free_keyval(NULL));
    NUL("errhandler", MPI_Comm_get_errhandler(w, NULL));
    NUL("info", MPI_Info_create(NULL));
    NUL("op", MPI_Op_create(user_fn, 1, NULL));
    NUL("win", MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_SELF, NULL));
    int mem[2] = { 0, 0 };
    MPI_Win win;
    CHECK_RC(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &win));
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Win_lock_all(0, win));
    NUL("request", MPI_Rput(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, win, NULL));
    NUL("request", MPI_Rget(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, win, NULL));
    NUL("request", MPI_Raccumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win, NULL));
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK(mem[0] == 0 && mem[1] == 0, "a refused operation wrote the window");
    CHECK_RC(MPI_Win_free(&win));
}

static void datatypes(void)
{
    int bl[2] = { 1, 1 }, disp[2] = { 0, 2 }, sizes[1] = { 4 }, sub[1] = { 2 }, start[1] = { 1 };
    MPI_Aint adisp[2] = { 0, 8 };
    MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE };
    NUL("newtype", MPI_Type_contiguous(2, MPI_INT, NULL));
    NUL("newtype", MPI_Type_vector(2, 1, 2, MPI_INT, NULL));
    NUL("newtype", MPI_Type_create_hvector(2, 1, 8, MPI_INT, NULL));
    NUL("newtype", MPI_Type_indexed(2, bl, disp, MPI_INT, NULL));
    NUL("newtype", MPI_Type_create_hindexed(2, bl, adisp, MPI_INT, NULL));
    NUL("newtype", MPI_Type_create_indexed_block(2, 1, disp, MPI_INT, NULL));
    NUL("newtype", MPI_Type_create_struct(2, bl, adisp, types, NULL));
    NUL("newtype", MPI_Type_create_resized(MPI_INT, 0, 8, NULL));
    NUL("newtype", MPI_Type_create_subarray(1, sizes, sub, start, MPI_ORDER_C, MPI_INT, NULL));
    NUL("newtype", MPI_Type_dup(MPI_INT, NULL));
    NUL("newtype", MPI_Type_contiguous_c(2, MPI_INT, NULL));
    NUL("datatype", MPI_Type_commit(NULL));
    NUL("size", MPI_Type_size(MPI_INT, NULL));
    MPI_Aint lb, ext;
    NUL("extent", MPI_Type_get_extent(MPI_INT, &lb, NULL));
    NUL("lb", MPI_Type_get_extent(MPI_INT, NULL, &ext));
    NUL("size", MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, NULL));
    int pos = 0;
    char buf[16];
    NUL("position", MPI_Pack(bl, 1, MPI_INT, buf, 16, NULL, MPI_COMM_WORLD));
    (void)pos;
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    int rank, size;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    p2p((rank + 1) % size);
    collectives();
    comms_groups();
    datatypes();
    /* nothing was started: a message now matches only what is sent now */
    int v = rank, got = -1;
    CHECK_RC(MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 9, &got, 1, MPI_INT,
                          (rank + size - 1) % size, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == (rank + size - 1) % size, "received %d", got);
    int flag = 1;
    CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a message is pending after the refused calls");
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("%d NULL-output cases refused\n", cases);
    CHECK_RC(MPI_Finalize());
    return 0;
}
