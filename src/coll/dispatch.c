/* Which implementation runs a communicator's collectives, chosen once per
 * communicator (on its first collective) and kept in c->coll: one of four
 * tables.
 *
 *   inter   an intercommunicator: coll/inter (blocking), nbc/inter_* (the
 *           non-blocking forms);
 *   cb      a communicator with a control block (c->slot >= 0): the
 *           blocking forms through the blocks (coll/smap), the
 *           non-blocking ones as schedules (coll/nbc); MPI_COMM_WORLD of
 *           a job on one node has the same with the node barrier
 *           (world_ops);
 *   hier    no control block, and c spans nodes: the hierarchy
 *           (coll/hier) for the calls it takes, a schedule for those it
 *           declines (SMAP_HIER_FLAT) or while SMAP_COLL_HIER is off (a
 *           tunable, so asked at every call, as before);
 *   sched   no control block on one node: schedules, blocking ones run to
 *           completion in place.
 *
 * What decides the table (intercommunicator, slot, the job's nodes) is
 * fixed for a communicator's life, so the choice is made once instead of
 * being retested by every entry point.  The hierarchy's own state (its
 * node and leader sub-communicators) is still built on the first blocking
 * collective that takes it (smap_hier_use): building it is collective and
 * blocking, which a non-blocking first call must not be.
 *
 * A failing implementation records its reason (base/why.h); the entries
 * only pass the class up. */
#include "coll/coll.h"

#include "boot/boot.h"
#include "coll/hier/hier.h"
#include "coll/inter/inter.h"
#include "coll/nbc/nbc.h"
#include "coll/smap/cb.h"
#include "mpi/intercomm.h"

/* ---- schedules (coll/nbc): every table's non-blocking forms but the
 * intercommunicators', and the blocking ones without a block (req NULL:
 * run to completion) ---- */

static int nbc_ibarrier(smap_comm_t *c, MPI_Request *req)
{
    return smap_nbc_barrier(c, req);
}
static int nbc_ibcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c,
                      MPI_Request *req)
{
    return smap_nbc_bcast(buf, count, t, root, c, req);
}
static int nbc_ireduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                       MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c, MPI_Request *req)
{
    return smap_nbc_reduce(sbuf, rbuf, count, t, type, op, root, c, req);
}
static int nbc_iallreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                          MPI_Datatype type, MPI_Op op, smap_comm_t *c, MPI_Request *req)
{
    return smap_nbc_allreduce(sbuf, rbuf, count, t, type, op, c, req);
}
static int nbc_ireduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                               MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                               smap_comm_t *c, MPI_Request *req)
{
    return smap_nbc_reduce_scatter(sbuf, rbuf, rcounts, block, t, type, op, c, req);
}
static int nbc_iscan(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                     MPI_Datatype type, MPI_Op op, int ex, smap_comm_t *c, MPI_Request *req)
{
    return smap_nbc_scan(sbuf, rbuf, count, t, type, op, ex, c, req);
}
static int nbc_igather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                       MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                       smap_dtype_t *rt, int root, int vec, smap_comm_t *c, MPI_Request *req)
{
    (void)vec;
    return smap_nbc_gather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root, c,
                           req);
}
static int nbc_iscatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                        struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                        smap_dtype_t *rt, int root, int vec, smap_comm_t *c, MPI_Request *req)
{
    (void)vec;
    return smap_nbc_scatter(sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root, c,
                            req);
}
static int nbc_iallgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                          MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                          smap_dtype_t *rt, smap_comm_t *c, MPI_Request *req)
{
    return smap_nbc_allgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, c, req);
}
static int nbc_ialltoall(const struct smap_a2a *a, smap_comm_t *c, MPI_Request *req)
{
    return smap_nbc_alltoall(a, c, req);
}

static int nbc_barrier(smap_comm_t *c)
{
    return nbc_ibarrier(c, NULL);
}
static int nbc_bcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c)
{
    return nbc_ibcast(buf, count, t, root, c, NULL);
}
static int nbc_reduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                      MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c)
{
    return nbc_ireduce(sbuf, rbuf, count, t, type, op, root, c, NULL);
}
static int nbc_allreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                         MPI_Datatype type, MPI_Op op, smap_comm_t *c)
{
    return nbc_iallreduce(sbuf, rbuf, count, t, type, op, c, NULL);
}
static int nbc_reduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                              MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                              smap_comm_t *c)
{
    return nbc_ireduce_scatter(sbuf, rbuf, rcounts, block, t, type, op, c, NULL);
}
static int nbc_scan(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                    MPI_Datatype type, MPI_Op op, int ex, smap_comm_t *c)
{
    return nbc_iscan(sbuf, rbuf, count, t, type, op, ex, c, NULL);
}
static int nbc_gather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                      MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                      smap_dtype_t *rt, int root, int vec, smap_comm_t *c)
{
    return nbc_igather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root, vec, c, NULL);
}
static int nbc_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                       struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                       smap_dtype_t *rt, int root, int vec, smap_comm_t *c)
{
    return nbc_iscatter(sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root, vec, c,
                        NULL);
}
static int nbc_allgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                         MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                         smap_dtype_t *rt, smap_comm_t *c)
{
    return nbc_iallgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, c, NULL);
}
static int nbc_alltoall(const struct smap_a2a *a, smap_comm_t *c)
{
    return nbc_ialltoall(a, c, NULL);
}

#define NBC_NONBLOCKING                                                                    \
    .ibarrier = nbc_ibarrier, .ibcast = nbc_ibcast, .ireduce = nbc_ireduce,               \
    .iallreduce = nbc_iallreduce, .ireduce_scatter = nbc_ireduce_scatter,                 \
    .iscan = nbc_iscan, .igather = nbc_igather, .iscatter = nbc_iscatter,                 \
    .iallgather = nbc_iallgather, .ialltoall = nbc_ialltoall

static const struct smap_coll_ops sched_ops = {
    .barrier = nbc_barrier, .bcast = nbc_bcast, .reduce = nbc_reduce,
    .allreduce = nbc_allreduce, .reduce_scatter = nbc_reduce_scatter, .scan = nbc_scan,
    .gather = nbc_gather, .scatter = nbc_scatter, .allgather = nbc_allgather,
    .alltoall = nbc_alltoall, NBC_NONBLOCKING,
};

/* ---- control blocks (coll/smap): their functions have the table's
 * signatures and sit in it directly, no wrapper between (the small
 * messages' latency) ---- */

#define CB_BLOCKING                                                                        \
    .bcast = smap_cb_bcast, .reduce = smap_cb_reduce, .allreduce = smap_cb_allreduce,      \
    .reduce_scatter = smap_cb_reduce_scatter, .scan = smap_cb_scan,                        \
    .gather = smap_cb_gather, .scatter = smap_cb_scatter, .allgather = smap_cb_allgather,  \
    .alltoall = smap_cb_alltoall

static const struct smap_coll_ops cb_ops = {
    .barrier = smap_cb_barrier, CB_BLOCKING, NBC_NONBLOCKING,
};

/* MPI_COMM_WORLD of a job on one node: the same, but the node barrier
 * (coll/smap/world_barrier.c) for MPI_Barrier. */
static const struct smap_coll_ops world_ops = {
    .barrier = smap_cb_world_barrier, CB_BLOCKING, NBC_NONBLOCKING,
};

/* ---- the hierarchy (coll/hier), a schedule where it declines ---- */

/* Runs the hierarchical call `call` when `use`; falls through to the
 * schedule (the rest of the function) when it is not used or declines. */
#define HIER_TRY(use, call)                                                                \
    do {                                                                                   \
        if (use) {                                                                         \
            int hrc_ = (call);                                                             \
            if (hrc_ != SMAP_HIER_FLAT)                                                    \
                return hrc_;                                                       \
        }                                                                                  \
    } while (0)

static int hier_barrier(smap_comm_t *c)
{
    HIER_TRY(smap_hier_use(c), smap_hier_barrier(c));
    return nbc_barrier(c);
}
static int hier_bcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c)
{
    HIER_TRY(smap_hier_use(c), smap_hier_bcast(buf, count, t, root, c));
    return nbc_bcast(buf, count, t, root, c);
}
static int hier_reduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                       MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c)
{
    HIER_TRY(smap_hier_use(c), smap_hier_reduce(sbuf, rbuf, count, t, type, op, root, c));
    return nbc_reduce(sbuf, rbuf, count, t, type, op, root, c);
}
static int hier_allreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                          MPI_Datatype type, MPI_Op op, smap_comm_t *c)
{
    HIER_TRY(smap_hier_use(c), smap_hier_allreduce(sbuf, rbuf, count, t, type, op, c));
    return nbc_allreduce(sbuf, rbuf, count, t, type, op, c);
}
static int hier_reduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                               MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                               smap_comm_t *c)
{
    HIER_TRY(smap_hier_use(c),
             smap_hier_reduce_scatter(sbuf, rbuf, rcounts, block, t, type, op, c));
    return nbc_reduce_scatter(sbuf, rbuf, rcounts, block, t, type, op, c);
}
static int hier_scan(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                     MPI_Datatype type, MPI_Op op, int ex, smap_comm_t *c)
{
    HIER_TRY(smap_hier_use(c), smap_hier_scan(sbuf, rbuf, count, t, type, op, ex, c));
    return nbc_scan(sbuf, rbuf, count, t, type, op, ex, c);
}
static int hier_gather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                       MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                       smap_dtype_t *rt, int root, int vec, smap_comm_t *c)
{
    HIER_TRY(smap_hier_use(c),
             vec ? smap_hier_gatherv(sbuf, scount, st, rbuf, rcounts, displs, rt, root, c)
                 : smap_hier_gather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root,
                                    c));
    return nbc_gather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root, vec, c);
}
static int hier_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                        struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                        smap_dtype_t *rt, int root, int vec, smap_comm_t *c)
{
    HIER_TRY(smap_hier_use(c),
             vec ? smap_hier_scatterv(sbuf, scounts, displs, st, rbuf, rcount, rt, root, c)
                 : smap_hier_scatter(sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root,
                                     c));
    return nbc_scatter(sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root, vec, c);
}
static int hier_allgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                          MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                          smap_dtype_t *rt, smap_comm_t *c)
{
    HIER_TRY(smap_hier_use(c),
             smap_hier_allgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, c));
    return nbc_allgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, c);
}
static int hier_alltoall(const struct smap_a2a *a, smap_comm_t *c)
{
    HIER_TRY(smap_hier_use(c), smap_hier_alltoall(a, c));
    return nbc_alltoall(a, c);
}

static int hier_ibarrier(smap_comm_t *c, MPI_Request *req)
{
    HIER_TRY(smap_hier_nb_use(c), smap_hier_ibarrier(c, req));
    return nbc_ibarrier(c, req);
}
static int hier_ibcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c,
                       MPI_Request *req)
{
    HIER_TRY(smap_hier_nb_use(c), smap_hier_ibcast(buf, count, t, root, c, req));
    return nbc_ibcast(buf, count, t, root, c, req);
}
static int hier_ireduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                        MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c, MPI_Request *req)
{
    HIER_TRY(smap_hier_nb_use(c),
             smap_hier_ireduce(sbuf, rbuf, count, t, type, op, root, 0, c, req));
    return nbc_ireduce(sbuf, rbuf, count, t, type, op, root, c, req);
}
static int hier_iallreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                           MPI_Datatype type, MPI_Op op, smap_comm_t *c, MPI_Request *req)
{
    HIER_TRY(smap_hier_nb_use(c), smap_hier_ireduce(sbuf, rbuf, count, t, type, op, 0, 1, c, req));
    return nbc_iallreduce(sbuf, rbuf, count, t, type, op, c, req);
}
static int hier_ireduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                                MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                                smap_comm_t *c, MPI_Request *req)
{
    HIER_TRY(smap_hier_nb_use(c),
             smap_hier_ireduce_scatter(sbuf, rbuf, rcounts, block, t, type, op, c, req));
    return nbc_ireduce_scatter(sbuf, rbuf, rcounts, block, t, type, op, c, req);
}
static int hier_iscan(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                      MPI_Datatype type, MPI_Op op, int ex, smap_comm_t *c, MPI_Request *req)
{
    HIER_TRY(smap_hier_nb_use(c), smap_hier_iscan(sbuf, rbuf, count, t, type, op, ex, c, req));
    return nbc_iscan(sbuf, rbuf, count, t, type, op, ex, c, req);
}
static int hier_igather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                        MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                        smap_dtype_t *rt, int root, int vec, smap_comm_t *c, MPI_Request *req)
{
    HIER_TRY(smap_hier_nb_use(c),
             vec ? smap_hier_igatherv(sbuf, scount, st, rbuf, rcounts, displs, rt, root, c, req)
                 : smap_hier_igather(sbuf, scount, st, rbuf, rcount, rt, root, c, req));
    return nbc_igather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root, vec, c, req);
}
static int hier_iscatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                         struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                         smap_dtype_t *rt, int root, int vec, smap_comm_t *c, MPI_Request *req)
{
    HIER_TRY(smap_hier_nb_use(c),
             vec ? smap_hier_iscatterv(sbuf, scounts, displs, st, rbuf, rcount, rt, root, c,
                                       req)
                 : smap_hier_iscatter(sbuf, scount, st, rbuf, rcount, rt, root, c, req));
    return nbc_iscatter(sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root, vec, c, req);
}
static int hier_iallgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                           MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                           smap_dtype_t *rt, smap_comm_t *c, MPI_Request *req)
{
    HIER_TRY(smap_hier_nb_use(c),
             smap_hier_iallgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, c, req));
    return nbc_iallgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, c, req);
}
static int hier_ialltoall(const struct smap_a2a *a, smap_comm_t *c, MPI_Request *req)
{
    HIER_TRY(smap_hier_nb_use(c), smap_hier_ialltoall(a, c, req));
    return nbc_ialltoall(a, c, req);
}

static const struct smap_coll_ops hier_ops = {
    .barrier = hier_barrier, .bcast = hier_bcast, .reduce = hier_reduce,
    .allreduce = hier_allreduce, .reduce_scatter = hier_reduce_scatter, .scan = hier_scan,
    .gather = hier_gather, .scatter = hier_scatter, .allgather = hier_allgather,
    .alltoall = hier_alltoall,
    .ibarrier = hier_ibarrier, .ibcast = hier_ibcast, .ireduce = hier_ireduce,
    .iallreduce = hier_iallreduce, .ireduce_scatter = hier_ireduce_scatter,
    .iscan = hier_iscan, .igather = hier_igather, .iscatter = hier_iscatter,
    .iallgather = hier_iallgather, .ialltoall = hier_ialltoall,
};

/* ---- intercommunicators (coll/inter, nbc/inter_*) ----
 * (req NULL: the blocking form.)  A member of a rooted operation's
 * non-root group passing MPI_PROC_NULL takes no part; its non-blocking
 * form still starts an empty schedule, which takes the communicator's
 * sequence number as the other members' do. */

static int inter_scan_refused(void)
{
    return smap_fail(MPI_ERR_COMM,
                     "comm is an intercommunicator: MPI defines scans on intracommunicators only");
}

/* The inputs' element count of an intercommunicator reduce_scatter: the
 * sum of this (the receiving) group's counts. */
static MPI_Count inter_total(struct smap_cvec rcounts, MPI_Count block, smap_comm_t *c)
{
    if (!rcounts.p)
        return block * c->size;
    MPI_Count total = 0;
    for (int i = 0; i < c->size; i++)
        total += smap_cvec_at(rcounts, i);
    return total;
}

static int inter_ibarrier(smap_comm_t *c, MPI_Request *req)
{
    return req ? smap_nbc_inter_barrier(c, req)
               : smap_inter_barrier(c);
}
static int inter_none(smap_comm_t *c, MPI_Request *req)
{
    return req ? smap_nbc_inter_none(c, req) : MPI_SUCCESS;
}
static int inter_ibcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c,
                        MPI_Request *req)
{
    if (root == MPI_PROC_NULL)
        return inter_none(c, req);
    return req ? smap_nbc_inter_bcast(buf, count, t, root, c, req)
               : smap_inter_bcast(buf, count, t, root, c);
}
static int inter_ireduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                         MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c,
                         MPI_Request *req)
{
    if (root == MPI_PROC_NULL)
        return inter_none(c, req);
    return req ? smap_nbc_inter_reduce(sbuf, rbuf, count, t, type, op, root, c, req)
               : smap_inter_reduce(sbuf, rbuf, count, t, type, op, root, c);
}
static int inter_iallreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                            MPI_Datatype type, MPI_Op op, smap_comm_t *c, MPI_Request *req)
{
    return req ? smap_nbc_inter_allreduce(sbuf, rbuf, count, t, type, op, c, req)
               : smap_inter_allreduce(sbuf, rbuf, count, t, type, op, c);
}
static int inter_ireduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                                 MPI_Count block, smap_dtype_t *t, MPI_Datatype type,
                                 MPI_Op op, smap_comm_t *c, MPI_Request *req)
{
    MPI_Count total = inter_total(rcounts, block, c);
    return req ? smap_nbc_inter_reduce_scatter(sbuf, rbuf, rcounts, block, total, t, type,
                                               op, c, req)
               : smap_inter_reduce_scatter(sbuf, rbuf, rcounts, block, total, t, type, op,
                                           c);
}
static int inter_iscan(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                       MPI_Datatype type, MPI_Op op, int ex, smap_comm_t *c, MPI_Request *req)
{
    (void)sbuf, (void)rbuf, (void)count, (void)t, (void)type, (void)op, (void)ex, (void)c;
    (void)req;
    return inter_scan_refused();
}
static int inter_igather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                         MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                         smap_dtype_t *rt, int root, int vec, smap_comm_t *c, MPI_Request *req)
{
    (void)vec;
    if (root == MPI_PROC_NULL)
        return inter_none(c, req);
    return req ? smap_nbc_inter_gather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt,
                                       root, c, req)
               : smap_inter_gather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt,
                                   root, c);
}
static int inter_iscatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                          struct smap_cvec displs, smap_dtype_t *st, void *rbuf,
                          MPI_Count rcount, smap_dtype_t *rt, int root, int vec, smap_comm_t *c,
                          MPI_Request *req)
{
    (void)vec;
    if (root == MPI_PROC_NULL)
        return inter_none(c, req);
    return req ? smap_nbc_inter_scatter(sbuf, scount, scounts, displs, st, rbuf, rcount,
                                        rt, root, c, req)
               : smap_inter_scatter(sbuf, scount, scounts, displs, st, rbuf, rcount, rt,
                                    root, c);
}
static int inter_iallgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                            MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                            smap_dtype_t *rt, smap_comm_t *c, MPI_Request *req)
{
    return req ? smap_nbc_inter_allgather(sbuf, scount, st, rbuf, rcount, rcounts, displs,
                                          rt, c, req)
               : smap_inter_allgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt,
                                      c);
}
static int inter_ialltoall(const struct smap_a2a *a, smap_comm_t *c, MPI_Request *req)
{
    return req ? smap_nbc_inter_alltoall(a, c, req)
               : smap_inter_alltoall(a, c);
}

static int inter_barrier(smap_comm_t *c)
{
    return inter_ibarrier(c, NULL);
}
static int inter_bcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c)
{
    return inter_ibcast(buf, count, t, root, c, NULL);
}
static int inter_reduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                        MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c)
{
    return inter_ireduce(sbuf, rbuf, count, t, type, op, root, c, NULL);
}
static int inter_allreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                           MPI_Datatype type, MPI_Op op, smap_comm_t *c)
{
    return inter_iallreduce(sbuf, rbuf, count, t, type, op, c, NULL);
}
static int inter_reduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                                MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                                smap_comm_t *c)
{
    return inter_ireduce_scatter(sbuf, rbuf, rcounts, block, t, type, op, c, NULL);
}
static int inter_scan(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                      MPI_Datatype type, MPI_Op op, int ex, smap_comm_t *c)
{
    return inter_iscan(sbuf, rbuf, count, t, type, op, ex, c, NULL);
}
static int inter_gather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                        MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                        smap_dtype_t *rt, int root, int vec, smap_comm_t *c)
{
    return inter_igather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root, vec, c,
                         NULL);
}
static int inter_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                         struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                         smap_dtype_t *rt, int root, int vec, smap_comm_t *c)
{
    return inter_iscatter(sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root, vec, c,
                          NULL);
}
static int inter_allgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                           MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                           smap_dtype_t *rt, smap_comm_t *c)
{
    return inter_iallgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, c, NULL);
}
static int inter_alltoall(const struct smap_a2a *a, smap_comm_t *c)
{
    return inter_ialltoall(a, c, NULL);
}

static const struct smap_coll_ops inter_ops = {
    .barrier = inter_barrier, .bcast = inter_bcast, .reduce = inter_reduce,
    .allreduce = inter_allreduce, .reduce_scatter = inter_reduce_scatter, .scan = inter_scan,
    .gather = inter_gather, .scatter = inter_scatter, .allgather = inter_allgather,
    .alltoall = inter_alltoall,
    .ibarrier = inter_ibarrier, .ibcast = inter_ibcast, .ireduce = inter_ireduce,
    .iallreduce = inter_iallreduce, .ireduce_scatter = inter_ireduce_scatter,
    .iscan = inter_iscan, .igather = inter_igather, .iscatter = inter_iscatter,
    .iallgather = inter_iallgather, .ialltoall = inter_ialltoall,
};

/* ---- MPI_Comm_free ---- */

int smap_coll_free(smap_comm_t *c)
{
    int rc = smap_hier_release(c);   /* its node and leaders sub-communicators */
    if (rc != MPI_SUCCESS)
        return rc;
    return smap_coll_release(c);
}

void smap_coll_forget(smap_comm_t *c)
{
    smap_hier_forget(c);
}

/* ---- the choice ---- */

static const struct smap_coll_ops *choose(const smap_comm_t *c)
{
    if (smap_comm_is_inter(c))
        return &inter_ops;
    if (c == &smap_comm_world && smap_job.nnodes == 1)
        return &world_ops;
    if (c->slot >= 0)
        return &cb_ops;
    if (c->size > 1 && smap_job.nnodes > 1 && smap_job.node_of)
        return &hier_ops;
    return &sched_ops;
}

const struct smap_coll_ops *smap_coll_choose(smap_comm_t *c)
{
    const struct smap_coll_ops *o = choose(c);
    atomic_store_explicit(&c->coll, o, memory_order_relaxed);
    return o;
}
