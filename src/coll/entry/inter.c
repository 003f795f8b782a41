/* The blocking collectives on intercommunicators (MPI 5.0 6.2.2): argument
 * checks with intercommunicator semantics, then src/coll/inter.  Called by
 * the entry points in move.c and reduce.c (Barrier included) when comm is
 * an intercommunicator.
 *
 * Rooted operations: in the root's group the root passes MPI_ROOT and the
 * others MPI_PROC_NULL; the other group passes the root's rank in the
 * remote group.  Only the arguments significant for a rank's role are
 * checked.  MPI_IN_PLACE has no meaning on an intercommunicator.
 *
 * req non-NULL: the non-blocking twin (same checks), run as a schedule
 * (src/coll/nbc/inter_*.c) handed back as *req.  Both through the
 * communicator's table (src/coll/dispatch.c: its intercommunicator one). */
#include "coll/entry/entry.h"
#include "coll/entry/inter.h"

#define INTER_NO_IN_PLACE(func, comm, sbuf, rbuf)                                          \
    do {                                                                                   \
        if (SMAP_UNLIKELY((sbuf) == MPI_IN_PLACE || (rbuf) == MPI_IN_PLACE))               \
            return smap_err_raise(comm, MPI_ERR_BUFFER, func, "%s",                        \
                                  "MPI_IN_PLACE is not allowed on an intercommunicator");  \
    } while (0)

static int check_root(const char *F, MPI_Comm comm, struct MPI_ABI_Comm *c, int root)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL ||
        (root >= 0 && root < c->remote_group->size))
        return MPI_SUCCESS;
    return smap_err_raise(comm, MPI_ERR_ROOT, F,
                          "root %d is not MPI_ROOT, MPI_PROC_NULL nor a rank of the remote "
                          "group (size %d) of the intercommunicator",
                          root, c->remote_group->size);
}

/* The root argument of a rooted operation; a rank passing MPI_PROC_NULL
 * takes no part, so nothing else of its arguments is checked (non-blocking:
 * it still starts an empty schedule, which takes the communicator's
 * sequence number as the other members' do). */
#define INTER_CHECK_ROOT(F, comm, c, root, req)                                            \
    do {                                                                                   \
        int rc_ = check_root(F, comm, c, root);                                            \
        if (rc_ != MPI_SUCCESS)                                                            \
            return rc_;                                                                    \
        if ((root) == MPI_PROC_NULL)                                                       \
            return (req) ? COLL_DONE(F, comm, smap_nbc_inter_none(c, req)) : MPI_SUCCESS;  \
    } while (0)

int inter_barrier(const char *F, MPI_Comm comm, struct MPI_ABI_Comm *c,
                  MPI_Request *req)
{
    return COLL_RUN(F, comm, req, smap_coll_barrier(c), smap_coll_ibarrier(c, req));
}

int inter_bcast(const char *F, void *buf, MPI_Count count, MPI_Datatype datatype, int root,
                MPI_Comm comm, struct MPI_ABI_Comm *c,
                  MPI_Request *req)
{
    smap_dtype_t *t = NULL;
    INTER_CHECK_ROOT(F, comm, c, root, req);
    INTER_NO_IN_PLACE(F, comm, buf, NULL);
    COLL_CHECK_BUF(F, comm, buf, count, datatype, t);
    return COLL_RUN(F, comm, req, smap_coll_bcast(buf, count, t, root, c),
                    smap_coll_ibcast(buf, count, t, root, c, req));
}

/* One buffer of a rank (MPI_IN_PLACE has no meaning here): a block per
 * member of the remote group (vec: counts and displacements) or one block
 * (vec 0).  `what` ("send"/"recv") names the side in messages. */
static int side(const char *F, MPI_Comm comm, struct MPI_ABI_Comm *c, const char *what,
                const void *buf, MPI_Count count, struct smap_cvec counts,
                struct smap_cvec displs, MPI_Datatype type, int vec, smap_dtype_t **t)
{
    INTER_NO_IN_PLACE(F, comm, buf, NULL);
    return coll_a2a_side(F, comm, c->remote_group->size, what, buf, count, counts, displs, type,
                         NULL, vec ? 1 : 0, t);
}

/* The single block of a rank in the non-root group of a gather or scatter. */
#define ONE_BLOCK(what, buf, count, type, t)                                               \
    side(F, comm, c, what, buf, count, CV_INT(NULL), CV_INT(NULL), type, 0, t)

int inter_gather(const char *F, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                 void *rbuf, MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                 MPI_Datatype rtype, int root, MPI_Comm comm, struct MPI_ABI_Comm *c, int vec,
                  MPI_Request *req)
{
    smap_dtype_t *st = NULL, *rt = NULL;
    INTER_CHECK_ROOT(F, comm, c, root, req);
    int rc = root == MPI_ROOT
                 ? side(F, comm, c, "recv", rbuf, rcount, rcounts, displs, rtype, vec, &rt)
                 : ONE_BLOCK("send", sbuf, scount, stype, &st);
    if (rc)
        return rc;
    return COLL_RUN(F, comm, req,
                    smap_coll_gather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root,
                                     vec, c),
                    smap_coll_igather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root,
                                      vec, c, req));
}

int inter_scatter(const char *F, const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                  struct smap_cvec displs, MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                  MPI_Datatype rtype, int root, MPI_Comm comm, struct MPI_ABI_Comm *c, int vec,
                  MPI_Request *req)
{
    smap_dtype_t *st = NULL, *rt = NULL;
    INTER_CHECK_ROOT(F, comm, c, root, req);
    int rc = root == MPI_ROOT
                 ? side(F, comm, c, "send", sbuf, scount, scounts, displs, stype, vec, &st)
                 : ONE_BLOCK("recv", rbuf, rcount, rtype, &rt);
    if (rc)
        return rc;
    return COLL_RUN(F, comm, req,
                    smap_coll_scatter(sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root,
                                      vec, c),
                    smap_coll_iscatter(sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root,
                                       vec, c, req));
}

int inter_allgather(const char *F, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                    void *rbuf, MPI_Count rcount, struct smap_cvec rcounts,
                    struct smap_cvec displs, MPI_Datatype rtype, MPI_Comm comm,
                    struct MPI_ABI_Comm *c, int vec,
                  MPI_Request *req)
{
    smap_dtype_t *st = NULL, *rt = NULL;
    INTER_NO_IN_PLACE(F, comm, sbuf, rbuf);
    COLL_CHECK_BUF(F, comm, sbuf, scount, stype, st);
    int rc = side(F, comm, c, "recv", rbuf, rcount, rcounts, displs, rtype, vec, &rt);
    if (rc)
        return rc;
    return COLL_RUN(F, comm, req,
                    smap_coll_allgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, c),
                    smap_coll_iallgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, c,
                                         req));
}

int inter_alltoall(const char *F, struct smap_a2a *a, MPI_Datatype stype, MPI_Datatype rtype,
                   MPI_Comm comm, struct MPI_ABI_Comm *c, int kind,
                   MPI_Request *req)
{
    int n = c->remote_group->size;
    INTER_NO_IN_PLACE(F, comm, a->sbuf, a->rbuf);
    int rc = coll_a2a_side(F, comm, n, "recv", a->rbuf, a->rcount, a->rcounts, a->rdispls,
                           rtype, a->rtypes, kind, &a->rt);
    if (rc == MPI_SUCCESS)
        rc = coll_a2a_side(F, comm, n, "send", a->sbuf, a->scount, a->scounts, a->sdispls,
                           stype, a->stypes, kind, &a->st);
    if (rc)
        return rc;
    return COLL_RUN(F, comm, req, smap_coll_alltoall(a, c), smap_coll_ialltoall(a, c, req));
}

int inter_reduce(const char *F, const void *sbuf, void *rbuf, MPI_Count count,
                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                 struct MPI_ABI_Comm *c,
                  MPI_Request *req)
{
    smap_dtype_t *t = NULL;
    INTER_CHECK_ROOT(F, comm, c, root, req);
    const void *buf = root == MPI_ROOT ? rbuf : sbuf;
    INTER_NO_IN_PLACE(F, comm, buf, NULL);
    COLL_CHECK_BUF(F, comm, buf, count, datatype, t);
    COLL_CHECK_OP(F, comm, op, t, datatype);
    return COLL_RUN(F, comm, req, smap_coll_reduce(sbuf, rbuf, count, t, datatype, op, root, c),
                    smap_coll_ireduce(sbuf, rbuf, count, t, datatype, op, root, c, req));
}

int inter_allreduce(const char *F, int scan, const void *sbuf, void *rbuf, MPI_Count count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, struct MPI_ABI_Comm *c,
                  MPI_Request *req)
{
    smap_dtype_t *t = NULL;
    if (scan)
        return smap_err_raise(comm, MPI_ERR_COMM, F, "%s",
                              "comm is an intercommunicator: MPI defines scans on "
                              "intracommunicators only");
    INTER_NO_IN_PLACE(F, comm, sbuf, rbuf);
    COLL_CHECK_BUF(F, comm, rbuf, count, datatype, t);
    COLL_CHECK_BUF(F, comm, sbuf, count, datatype, t);
    COLL_CHECK_ALIAS(F, comm, sbuf, rbuf, count > 0);
    COLL_CHECK_OP(F, comm, op, t, datatype);
    return COLL_RUN(F, comm, req, smap_coll_allreduce(sbuf, rbuf, count, t, datatype, op, c),
                    smap_coll_iallreduce(sbuf, rbuf, count, t, datatype, op, c, req));
}

int inter_reduce_scatter(const char *F, const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                         MPI_Count block, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                         struct MPI_ABI_Comm *c,
                  MPI_Request *req)
{
    smap_dtype_t *t = NULL;
    INTER_NO_IN_PLACE(F, comm, sbuf, rbuf);
    /* the counts describe this (the receiving) group; the input vectors
     * hold their sum, which both groups must agree on */
    MPI_Count total, mine;
    int rc = coll_redscat_counts(F, comm, rcounts, block, c->size, c->rank, &total, &mine);
    if (rc != MPI_SUCCESS)
        return rc;
    COLL_CHECK_BUF(F, comm, rbuf, mine, datatype, t);
    COLL_CHECK_BUF(F, comm, sbuf, total, datatype, t);
    COLL_CHECK_ALIAS(F, comm, sbuf, rbuf, total > 0);
    COLL_CHECK_OP(F, comm, op, t, datatype);
    return COLL_RUN(F, comm, req,
                    smap_coll_reduce_scatter(sbuf, rbuf, rcounts, block, t, datatype, op, c),
                    smap_coll_ireduce_scatter(sbuf, rbuf, rcounts, block, t, datatype, op, c,
                                              req));
}
