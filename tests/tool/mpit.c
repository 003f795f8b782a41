/* MPI_T behaviour (2 ranks): the interface before MPI_Init, during and
 * after MPI_Finalize; a control variable written before MPI_Init
 * (SMAP_THREAD_LEVEL) and one written at run time (SMAP_EAGER_LIMIT) with
 * their effects seen; performance variables that follow the traffic
 * (messages, bytes, rendezvous copies, posted and unexpected queues); the
 * per-handle semantics of start/stop/reset/readreset/write; the standard's
 * error codes. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "smap_test.h"

#define T(call)                                                              \
    do {                                                                     \
        int rc_ = (call);                                                    \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);             \
    } while (0)
#define TE(err, call)                                                        \
    do {                                                                     \
        int rc_ = (call);                                                    \
        CHECK(rc_ == (err), "%s returned %d, expected %s (%d)", #call, rc_, #err, err); \
    } while (0)

static int cvar(const char *name, MPI_T_cvar_handle *h)
{
    int idx, count;
    T(MPI_T_cvar_get_index(name, &idx));
    T(MPI_T_cvar_handle_alloc(idx, NULL, h, &count));
    return count;
}

static MPI_T_pvar_handle pvar(MPI_T_pvar_session s, const char *name, int cls)
{
    int idx, count;
    MPI_T_pvar_handle h;
    T(MPI_T_pvar_get_index(name, cls, &idx));
    T(MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count));
    return h;
}

static unsigned long long rd(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v;
    T(MPI_T_pvar_read(s, h, &v));
    return v;
}

/* Before MPI_Init: everything but the interface itself is refused until
 * MPI_T_init_thread; then the variables read, and a before-init cvar is
 * written. */
static void before_init(void)
{
    int n, provided;
    TE(MPI_T_ERR_NOT_INITIALIZED, MPI_T_cvar_get_num(&n));
    TE(MPI_T_ERR_NOT_INITIALIZED, MPI_T_finalize());
    TE(MPI_T_ERR_INVALID, MPI_T_init_thread(12345, &provided));
    T(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));   /* reference counted */
    T(MPI_T_finalize());
    T(MPI_T_cvar_get_num(&n));
    MPI_T_cvar_handle h;
    int count = cvar("SMAP_THREAD_LEVEL", &h);
    char buf[512];
    CHECK(count > 1 && count <= (int)sizeof buf, "string count %d", count);
    T(MPI_T_cvar_read(h, buf));
    CHECK(!strcmp(buf, "multiple"), "SMAP_THREAD_LEVEL reads '%s'", buf);
    TE(MPI_T_ERR_INVALID, MPI_T_cvar_write(h, "sometimes"));
    T(MPI_T_cvar_write(h, "serialized"));
    T(MPI_T_cvar_read(h, buf));
    CHECK(!strcmp(buf, "serialized"), "SMAP_THREAD_LEVEL reads '%s' after the write", buf);
    T(MPI_T_cvar_handle_free(&h));
}

static void cvar_errors(void)
{
    int idx, count;
    MPI_T_cvar_handle h;
    TE(MPI_T_ERR_INVALID_NAME, MPI_T_cvar_get_index("SMAP_NO_SUCH_THING", &idx));
    TE(MPI_T_ERR_INVALID_INDEX, MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL,
                                                    NULL, NULL, NULL));
    TE(MPI_T_ERR_INVALID_INDEX, MPI_T_cvar_handle_alloc(1 << 20, NULL, &h, &count));
    TE(MPI_T_ERR_INVALID, MPI_T_cvar_get_num(NULL));
    int x = 0;
    TE(MPI_T_ERR_INVALID_HANDLE, MPI_T_cvar_read((MPI_T_cvar_handle)&x, &x));
    /* Read at MPI_Init: cannot change any more. */
    cvar("SMAP_THREAD_LEVEL", &h);
    TE(MPI_T_ERR_CVAR_SET_NOT_NOW, MPI_T_cvar_write(h, "single"));
    T(MPI_T_cvar_handle_free(&h));
    TE(MPI_T_ERR_INVALID_HANDLE, MPI_T_cvar_handle_free(&h));
    /* Fixed before main(). */
    cvar("SMAP_HEAP_SLOT", &h);
    unsigned long long slot;
    T(MPI_T_cvar_read(h, &slot));
    CHECK(slot >= (1ull << 30), "SMAP_HEAP_SLOT reads %llu", slot);
    TE(MPI_T_ERR_CVAR_SET_NEVER, MPI_T_cvar_write(h, &slot));
    T(MPI_T_cvar_handle_free(&h));
    /* Out of range for its enumeration. */
    cvar("SMAP_VERBOSE", &h);
    int v = 7, old;
    T(MPI_T_cvar_read(h, &old));
    TE(MPI_T_ERR_INVALID, MPI_T_cvar_write(h, &v));
    v = 0;
    T(MPI_T_cvar_write(h, &v));
    T(MPI_T_cvar_read(h, &v));
    CHECK(v == 0, "SMAP_VERBOSE reads %d after writing 0", v);
    T(MPI_T_cvar_write(h, &old));
    T(MPI_T_cvar_handle_free(&h));
}

static void pvar_errors(MPI_T_pvar_session s)
{
    int idx, count, x = 0;
    MPI_T_pvar_handle h;
    unsigned long long v = 0;
    TE(MPI_T_ERR_INVALID_NAME, MPI_T_pvar_get_index("nope", MPI_T_PVAR_CLASS_COUNTER, &idx));
    /* right name, wrong class */
    TE(MPI_T_ERR_INVALID_NAME,
       MPI_T_pvar_get_index("smap_p2p_messages_sent", MPI_T_PVAR_CLASS_LEVEL, &idx));
    TE(MPI_T_ERR_INVALID_INDEX, MPI_T_pvar_handle_alloc(s, -3, NULL, &h, &count));
    TE(MPI_T_ERR_INVALID_SESSION,
       MPI_T_pvar_handle_alloc((MPI_T_pvar_session)&x, 0, NULL, &h, &count));
    TE(MPI_T_ERR_INVALID_SESSION, MPI_T_pvar_start(MPI_T_PVAR_SESSION_NULL, MPI_T_PVAR_ALL_HANDLES));
    TE(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &v));
    TE(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_read(s, (MPI_T_pvar_handle)&x, &v));
    /* A continuous read-only level: no start/stop, no write, no reset. */
    h = pvar(s, "smap_p2p_posted_queue_length", MPI_T_PVAR_CLASS_LEVEL);
    TE(MPI_T_ERR_PVAR_NO_STARTSTOP, MPI_T_pvar_start(s, h));
    TE(MPI_T_ERR_PVAR_NO_STARTSTOP, MPI_T_pvar_stop(s, h));
    TE(MPI_T_ERR_PVAR_NO_WRITE, MPI_T_pvar_write(s, h, &v));
    TE(MPI_T_ERR_PVAR_NO_WRITE, MPI_T_pvar_reset(s, h));
    TE(MPI_T_ERR_PVAR_NO_WRITE, MPI_T_pvar_readreset(s, h, &v));
    /* ALL_HANDLES skips the handles an operation does not apply to. */
    T(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    T(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    T(MPI_T_pvar_handle_free(s, &h));
    CHECK(h == MPI_T_PVAR_HANDLE_NULL, "pvar handle not reset");
    /* A handle of another session is not one of this session's. */
    MPI_T_pvar_session s2;
    T(MPI_T_pvar_session_create(&s2));
    h = pvar(s2, "smap_p2p_messages_sent", MPI_T_PVAR_CLASS_COUNTER);
    TE(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_read(s, h, &v));
    T(MPI_T_pvar_session_free(&s2));   /* frees h with it */
    TE(MPI_T_ERR_INVALID_SESSION, MPI_T_pvar_session_free(&s2));
}

static void event_functions(void)
{
    int n, idx, x = 0;
    T(MPI_T_event_get_num(&n));
    CHECK(n == 0, "%d event types", n);
    TE(MPI_T_ERR_INVALID_INDEX, MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                                     NULL, NULL, NULL, NULL));
    TE(MPI_T_ERR_INVALID_NAME, MPI_T_event_get_index("anything", &idx));
    MPI_T_event_registration reg;
    TE(MPI_T_ERR_INVALID_INDEX, MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg));
    reg = (MPI_T_event_registration)&x;
    TE(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_free(reg, NULL, NULL));
    TE(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_set_info(reg, MPI_INFO_NULL));
    MPI_Info info;
    TE(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_get_info(reg, &info));
    TE(MPI_T_ERR_INVALID_HANDLE,
       MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, NULL));
    TE(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_NONE, &info));
    TE(MPI_T_ERR_INVALID_HANDLE,
       MPI_T_event_callback_set_info(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL));
    TE(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_set_dropped_handler(reg, NULL));
    MPI_T_event_instance inst = (MPI_T_event_instance)&x;
    MPI_Count ts;
    char buf[64];
    TE(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_read(inst, 0, buf));
    TE(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_copy(inst, buf));
    TE(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_get_timestamp(inst, &ts));
    TE(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_get_source(inst, &idx));
    /* One source: the clock, which moves forward. */
    T(MPI_T_source_get_num(&n));
    CHECK(n == 1, "%d sources", n);
    char name[64];
    int nlen = sizeof name;
    MPI_T_source_order order;
    MPI_Count tps, max, t1, t2;
    T(MPI_T_source_get_info(0, name, &nlen, NULL, NULL, &order, &tps, &max, &info));
    CHECK(order == MPI_T_SOURCE_ORDERED && tps == 1000000000 && max > 0, "source info");
    MPI_Info_free(&info);
    TE(MPI_T_ERR_INVALID_INDEX, MPI_T_source_get_info(1, NULL, NULL, NULL, NULL, NULL, NULL,
                                                      NULL, NULL));
    T(MPI_T_source_get_timestamp(0, &t1));
    T(MPI_T_source_get_timestamp(0, &t2));
    CHECK(t2 >= t1 && t1 > 0, "timestamps %lld then %lld", (long long)t1, (long long)t2);
    TE(MPI_T_ERR_INVALID_INDEX, MPI_T_source_get_timestamp(-1, &t1));
    int upd1, upd2;
    T(MPI_T_category_changed(&upd1));
    T(MPI_T_category_changed(&upd2));
    CHECK(upd1 == upd2, "categories changed");
    TE(MPI_T_ERR_INVALID_INDEX, MPI_T_category_get_info(1000, NULL, NULL, NULL, NULL, NULL, NULL,
                                                        NULL));
    TE(MPI_T_ERR_INVALID_NAME, MPI_T_category_get_index("nope", &idx));
    TE(MPI_T_ERR_INVALID_INDEX, MPI_T_category_get_num_events(-1, &n));
    TE(MPI_T_ERR_INVALID_HANDLE, MPI_T_enum_get_info((MPI_T_enum)&x, &n, NULL, NULL));
}

/* Strings follow MPI 5.0 15.3.3: truncated to the buffer, length + 1 back. */
static void string_convention(void)
{
    char name[4] = "xxx";
    int len = sizeof name;
    T(MPI_T_category_get_info(0, name, &len, NULL, NULL, NULL, NULL, NULL));
    CHECK(!strcmp(name, "sma") && len == (int)strlen("smartmap") + 1, "'%s' len %d", name, len);
    len = 0;
    T(MPI_T_category_get_info(0, name, &len, NULL, NULL, NULL, NULL, NULL));
    CHECK(len == 9 && !strcmp(name, "sma"), "len %d", len);
}

int main(int argc, char **argv)
{
    before_init();
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    /* The level written through MPI_T before MPI_Init was the one applied. */
    CHECK(provided == MPI_THREAD_SERIALIZED, "MPI_Init_thread provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "run with 2 ranks");
    cvar_errors();
    event_functions();
    string_convention();

    MPI_T_pvar_session s;
    T(MPI_T_pvar_session_create(&s));
    pvar_errors(s);
    MPI_T_pvar_handle sent = pvar(s, "smap_p2p_messages_sent", MPI_T_PVAR_CLASS_COUNTER);
    MPI_T_pvar_handle sbytes = pvar(s, "smap_p2p_bytes_sent", MPI_T_PVAR_CLASS_COUNTER);
    MPI_T_pvar_handle recvd = pvar(s, "smap_p2p_messages_received", MPI_T_PVAR_CLASS_COUNTER);
    MPI_T_pvar_handle rbytes = pvar(s, "smap_p2p_bytes_received", MPI_T_PVAR_CLASS_COUNTER);
    MPI_T_pvar_handle rdirect = pvar(s, "smap_p2p_rndv_direct", MPI_T_PVAR_CLASS_COUNTER);
    MPI_T_pvar_handle rcma = pvar(s, "smap_p2p_rndv_cma", MPI_T_PVAR_CLASS_COUNTER);
    MPI_T_pvar_handle rstream = pvar(s, "smap_p2p_rndv_streamed", MPI_T_PVAR_CLASS_COUNTER);
    MPI_T_pvar_handle posted = pvar(s, "smap_p2p_posted_queue_length", MPI_T_PVAR_CLASS_LEVEL);
    MPI_T_pvar_handle unexp = pvar(s, "smap_p2p_unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL);
    MPI_T_pvar_handle level = pvar(s, "smap_copy_level", MPI_T_PVAR_CLASS_STATE);
    int lv = -1;
    T(MPI_T_pvar_read(s, level, &lv));
    CHECK(lv >= 0 && lv <= 2, "copy level %d", lv);

    /* Stopped counters do not move; started ones count exactly our traffic. */
    char buf[4096] = { 0 };
    int peer = 1 - rank;
    MPI_Sendrecv(buf, 100, MPI_CHAR, peer, 1, buf + 2048, 100, MPI_CHAR, peer, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    CHECK(rd(s, sent) == 0 && rd(s, recvd) == 0, "stopped counters moved");
    T(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    for (int i = 0; i < 5; i++)
        MPI_Sendrecv(buf, 100, MPI_CHAR, peer, 1, buf + 2048, 100, MPI_CHAR, peer, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(rd(s, sent) == 5 && rd(s, sbytes) == 500, "sent %llu msgs %llu bytes", rd(s, sent),
          rd(s, sbytes));
    CHECK(rd(s, recvd) == 5 && rd(s, rbytes) == 500, "received %llu msgs %llu bytes",
          rd(s, recvd), rd(s, rbytes));
    T(MPI_T_pvar_stop(s, sent));
    MPI_Sendrecv(buf, 10, MPI_CHAR, peer, 1, buf + 2048, 10, MPI_CHAR, peer, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    CHECK(rd(s, sent) == 5 && rd(s, recvd) == 6, "after stop: sent %llu received %llu",
          rd(s, sent), rd(s, recvd));
    unsigned long long v = 100;
    T(MPI_T_pvar_write(s, sent, &v));
    CHECK(rd(s, sent) == 100, "written counter reads %llu", rd(s, sent));
    T(MPI_T_pvar_readreset(s, recvd, &v));
    CHECK(v == 6 && rd(s, recvd) == 0, "readreset gave %llu then %llu", v, rd(s, recvd));
    T(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES));
    CHECK(rd(s, sent) == 0 && rd(s, sbytes) == 0, "reset left %llu", rd(s, sent));

    /* SMAP_EAGER_LIMIT written at run time: a 600-byte message goes eagerly
     * under the default (1 KiB), by rendezvous once rank 0 lowers it. */
    MPI_T_cvar_handle eager;
    cvar("SMAP_EAGER_LIMIT", &eager);
    unsigned long long lim, low = 256;
    T(MPI_T_cvar_read(eager, &lim));
    CHECK(lim == 1024, "SMAP_EAGER_LIMIT reads %llu", lim);
    for (int round = 0; round < 2; round++) {
        if (round == 1 && rank == 0)
            T(MPI_T_cvar_write(eager, &low));
        T(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES));
        if (rank == 0)
            MPI_Send(buf, 600, MPI_CHAR, 1, 2, MPI_COMM_WORLD);
        else
            MPI_Recv(buf, 600, MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        unsigned long long rndv = rd(s, rdirect) + rd(s, rcma) + rd(s, rstream);
        if (rank == 1)
            CHECK(rndv == (unsigned long long)round, "round %d: %llu rendezvous copies", round,
                  rndv);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) {
        T(MPI_T_cvar_read(eager, &v));
        CHECK(v == low, "SMAP_EAGER_LIMIT reads %llu after writing %llu", v, low);
        T(MPI_T_cvar_write(eager, &lim));
    }
    T(MPI_T_cvar_handle_free(&eager));

    /* SMAP_COLL_ALGO (all ranks alike): each forced algorithm still sums. */
    MPI_T_cvar_handle algo;
    cvar("SMAP_COLL_ALGO", &algo);
    TE(MPI_T_ERR_INVALID, MPI_T_cvar_write(algo, "fastest"));
    const char *algos[] = { "inline", "direct", "auto" };
    for (int a = 0; a < 3; a++) {
        char now[256];
        T(MPI_T_cvar_write(algo, algos[a]));
        T(MPI_T_cvar_read(algo, now));
        CHECK(!strcmp(now, algos[a]), "SMAP_COLL_ALGO reads '%s' after writing '%s'", now,
              algos[a]);
        long in[512], out[512];
        for (int i = 0; i < 512; i++)
            in[i] = i * (rank + 1);
        MPI_Allreduce(in, out, 512, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < 512; i++)
            CHECK(out[i] == 3L * i, "%s allreduce[%d] = %ld", algos[a], i, out[i]);
    }
    T(MPI_T_cvar_handle_free(&algo));

    /* Queue lengths: a receive nobody has sent to yet is posted; a message
     * nobody has asked for yet is unexpected. */
    CHECK(rd(s, posted) == 0 && rd(s, unexp) == 0, "queues not empty");
    if (rank == 1) {
        MPI_Request r;
        MPI_Irecv(buf, 1, MPI_CHAR, 0, 3, MPI_COMM_WORLD, &r);
        CHECK(rd(s, posted) == 1, "posted queue %llu", rd(s, posted));
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        CHECK(rd(s, posted) == 0, "posted queue %llu after the match", rd(s, posted));
        int flag = 0;
        while (!flag)
            MPI_Iprobe(0, 4, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK(rd(s, unexp) == 1, "unexpected queue %llu", rd(s, unexp));
        MPI_Recv(buf, 1, MPI_CHAR, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(rd(s, unexp) == 0, "unexpected queue %llu after the receive", rd(s, unexp));
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(buf, 1, MPI_CHAR, 1, 3, MPI_COMM_WORLD);
        MPI_Send(buf, 1, MPI_CHAR, 1, 4, MPI_COMM_WORLD);
    }
    T(MPI_T_pvar_session_free(&s));
    MPI_Finalize();

    /* After MPI_Finalize the interface still works. */
    MPI_T_cvar_handle h;
    cvar("SMAP_EAGER_LIMIT", &h);
    T(MPI_T_cvar_read(h, &v));
    CHECK(v == 1024, "SMAP_EAGER_LIMIT reads %llu after MPI_Finalize", v);
    T(MPI_T_cvar_handle_free(&h));
    T(MPI_T_finalize());
    int n;
    TE(MPI_T_ERR_NOT_INITIALIZED, MPI_T_pvar_get_num(&n));
    T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    T(MPI_T_pvar_get_num(&n));
    T(MPI_T_finalize());
    if (rank == 0)
        printf("mpit: OK\n");
    return 0;
}
