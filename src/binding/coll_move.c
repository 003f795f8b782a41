/* Entry points of the data-moving collectives: MPI_Bcast, MPI_Gather(v),
 * MPI_Scatter(v), MPI_Allgather(v), MPI_Alltoall(v,w) and their
 * large-count twins.  Checks here, data movement in src/coll/. */
#include <mpi.h>

#include "binding/coll_common.h"

int coll_bcast(const char *F, void *buf, MPI_Count count, MPI_Datatype datatype, int root,
               MPI_Comm comm, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *t;
    COLL_ENTER_REQ(F, comm, c, req);
    if (smap_comm_is_inter(c))
        return inter_bcast(F, buf, count, datatype, root, comm, c, req);
    COLL_CHECK_ROOT(F, comm, c, root);
    if (buf == MPI_IN_PLACE)
        return COLL_IN_PLACE_ERR(F, comm, "buffer");
    COLL_CHECK_BUF(F, comm, buf, count, datatype, t);
    return COLL_RUN(F, comm, req, smap_coll_bcast(buf, count, t, root, c),
                    smap_coll_ibcast(buf, count, t, root, c, req));
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return coll_bcast("MPI_Bcast", buffer, count, datatype, root, comm, NULL);
}

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return coll_bcast("MPI_Bcast_c", buffer, count, datatype, root, comm, NULL);
}

/* (shared with intercomm_coll.c and coll_neighbor.c: see coll_common.h) */
int coll_check_vside(const char *F, MPI_Comm comm, int n, const char *what,
                     struct smap_cvec counts, struct smap_cvec displs, MPI_Datatype type,
                     const MPI_Datatype *types, int w, smap_dtype_t **t)
{
    if (n > 0 && (!counts.p || !displs.p))
        return smap_err_raise(comm, MPI_ERR_ARG, F, "%s counts or displacements are NULL", what);
    for (int i = 0; i < n; i++)
        if (smap_cvec_at(counts, i) < 0)
            return smap_err_raise(comm, MPI_ERR_COUNT, F, "%scounts[%d] = %lld is negative",
                                  what, i, (long long)smap_cvec_at(counts, i));
    if (!w) {
        SMAP_CHECK_DTYPE_COMMITTED(F, comm, type, *t);
        return MPI_SUCCESS;
    }
    if (n > 0 && !types)
        return smap_err_raise(comm, MPI_ERR_ARG, F, "%stypes is NULL", what);
    for (int j = 0; j < n; j++) {
        smap_dtype_t *tj;
        SMAP_CHECK_DTYPE_COMMITTED(F, comm, types[j], tj);
    }
    return MPI_SUCCESS;
}

/* ---- gather and scatter ------------------------------------------------ */

/* One side of a rooted collective: every rank's single block (`one`:
 * gather's send, scatter's receive) or the root's blocks for all (`all`). */
struct rooted_side {
    const char *name, *bufname;        /* "send", "sendbuf" or "recv", "recvbuf" */
    const void *buf;
    MPI_Count count;
    struct smap_cvec counts, displs;   /* `all` of a v variant */
    MPI_Datatype type;
    smap_dtype_t **t;
};

/* The checks gather and scatter share, mirrored: MPI_IN_PLACE is allowed
 * only as the root's `one`, the root's `all` is a single block or (vec)
 * one per rank, and the two may not alias. */
static int rooted_checks(const char *F, MPI_Comm comm, struct MPI_ABI_Comm *c, int root, int vec,
                         struct rooted_side one, struct rooted_side all, int *root_only)
{
    *root_only = 0;
    COLL_CHECK_ROOT(F, comm, c, root);
    int is_root = c->rank == root;
    if (one.buf == MPI_IN_PLACE && !is_root)
        return smap_err_raise(comm, MPI_ERR_BUFFER, F,
                              "MPI_IN_PLACE is not allowed as %s on a non-root rank", one.bufname);
    if (one.buf != MPI_IN_PLACE)
        COLL_CHECK_BUF_AS(F, comm, one.bufname, one.buf, one.count, one.type, *one.t);
    if (!is_root)
        return MPI_SUCCESS;
    *root_only = 1;   /* from here on, errors the other ranks cannot see */
    if (all.buf == MPI_IN_PLACE)
        return COLL_IN_PLACE_ERR(F, comm, all.bufname);
    if (vec)
        return coll_check_vside(F, comm, c->size, all.name, all.counts, all.displs, all.type,
                                NULL, 0, all.t);
    COLL_CHECK_BUF_AS(F, comm, all.bufname, all.buf, all.count, all.type, *all.t);
    COLL_CHECK_ALIAS(F, comm, one.buf, all.buf, one.count > 0 && all.count > 0);
    return MPI_SUCCESS;
}

/* ---- gather ------------------------------------------------------------- */

/* A root that failed a check of its own arguments (the v-variants'
 * counts, the receive side of a gather, the send side of a scatter) still
 * takes the control blocks' steps, so that the others return an error too
 * instead of waiting for it (D18, issue 36); a schedule or a hierarchy
 * call has no partner waiting yet.  Its own error is rc. */
static int rooted_fail(int rc, int root_only, struct MPI_ABI_Comm *c, int root, MPI_Request *req,
                       int (*fail)(int, smap_comm_t *))
{
    if (rc && root_only && !req && c->slot >= 0)
        (void)fail(root, c);
    return rc;
}

int coll_gather(const char *F, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                void *rbuf, MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                MPI_Datatype rtype, int root, MPI_Comm comm, int vec, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *st = NULL, *rt = NULL;
    COLL_ENTER_REQ(F, comm, c, req);
    if (smap_comm_is_inter(c))
        return inter_gather(F, sbuf, scount, stype, rbuf, rcount, rcounts, displs, rtype, root,
                            comm, c, vec, req);
    int root_only;
    int rc = rooted_checks(F, comm, c, root, vec,
                           (struct rooted_side){ "send", "sendbuf", sbuf, scount, { 0 }, { 0 },
                                                 stype, &st },
                           (struct rooted_side){ "recv", "recvbuf", rbuf, rcount, rcounts, displs,
                                                 rtype, &rt },
                           &root_only);
    if (rc)
        return rooted_fail(rc, root_only, c, root, req, smap_coll_gatherv_fail);
    return COLL_RUN(F, comm, req,
                    smap_coll_gather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root,
                                     vec, c),
                    smap_coll_igather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root,
                                      vec, c, req));
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return coll_gather("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, CV_INT(NULL),
                  CV_INT(NULL), recvtype, root, comm, 0, NULL);
}

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return coll_gather("MPI_Gather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  CV_INT(NULL), CV_INT(NULL), recvtype, root, comm, 0, NULL);
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    return coll_gather("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf, 0, CV_INT(recvcounts),
                  CV_INT(displs), recvtype, root, comm, 1, NULL);
}

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                   MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return coll_gather("MPI_Gatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0, CV_BIG(recvcounts),
                  CV_BIG(displs), recvtype, root, comm, 1, NULL);
}

/* ---- scatter ------------------------------------------------------------ */

int coll_scatter(const char *F, const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                 struct smap_cvec displs, MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                 MPI_Datatype rtype, int root, MPI_Comm comm, int vec, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *st = NULL, *rt = NULL;
    COLL_ENTER_REQ(F, comm, c, req);
    if (smap_comm_is_inter(c))
        return inter_scatter(F, sbuf, scount, scounts, displs, stype, rbuf, rcount, rtype, root,
                             comm, c, vec, req);
    int root_only;
    int rc = rooted_checks(F, comm, c, root, vec,
                           (struct rooted_side){ "recv", "recvbuf", rbuf, rcount, { 0 }, { 0 },
                                                 rtype, &rt },
                           (struct rooted_side){ "send", "sendbuf", sbuf, scount, scounts, displs,
                                                 stype, &st },
                           &root_only);
    if (rc)
        return rooted_fail(rc, root_only, c, root, req, smap_coll_scatterv_fail);
    return COLL_RUN(F, comm, req,
                    smap_coll_scatter(sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root,
                                      vec, c),
                    smap_coll_iscatter(sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root,
                                       vec, c, req));
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return coll_scatter("MPI_Scatter", sendbuf, sendcount, CV_INT(NULL), CV_INT(NULL), sendtype,
                   recvbuf, recvcount, recvtype, root, comm, 0, NULL);
}

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                   MPI_Comm comm)
{
    return coll_scatter("MPI_Scatter_c", sendbuf, sendcount, CV_INT(NULL), CV_INT(NULL), sendtype,
                   recvbuf, recvcount, recvtype, root, comm, 0, NULL);
}

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    return coll_scatter("MPI_Scatterv", sendbuf, 0, CV_INT(sendcounts), CV_INT(displs), sendtype,
                   recvbuf, recvcount, recvtype, root, comm, 1, NULL);
}

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return coll_scatter("MPI_Scatterv_c", sendbuf, 0, CV_BIG(sendcounts), CV_BIG(displs), sendtype,
                   recvbuf, recvcount, recvtype, root, comm, 1, NULL);
}

/* ---- allgather ---------------------------------------------------------- */

int coll_allgather(const char *F, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                   void *rbuf, MPI_Count rcount, struct smap_cvec rcounts,
                   struct smap_cvec displs, MPI_Datatype rtype, MPI_Comm comm, int vec,
                   MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *st = NULL, *rt = NULL;
    COLL_ENTER_REQ(F, comm, c, req);
    if (smap_comm_is_inter(c))
        return inter_allgather(F, sbuf, scount, stype, rbuf, rcount, rcounts, displs, rtype,
                               comm, c, vec, req);
    if (rbuf == MPI_IN_PLACE)
        return COLL_IN_PLACE_ERR(F, comm, "recvbuf");
    if (sbuf != MPI_IN_PLACE)
        COLL_CHECK_BUF(F, comm, sbuf, scount, stype, st);
    if (vec) {
        int rc = coll_check_vside(F, comm, c->size, "recv", rcounts, displs, rtype, NULL, 0,
                                  &rt);
        if (rc)
            return rc;
    } else {
        COLL_CHECK_BUF(F, comm, rbuf, rcount, rtype, rt);
        COLL_CHECK_ALIAS(F, comm, sbuf, rbuf, rcount > 0 && scount > 0);
    }
    return COLL_RUN(F, comm, req,
                    smap_coll_allgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, c),
                    smap_coll_iallgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, c,
                                         req));
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return coll_allgather("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     CV_INT(NULL), CV_INT(NULL), recvtype, comm, 0, NULL);
}

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return coll_allgather("MPI_Allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     CV_INT(NULL), CV_INT(NULL), recvtype, comm, 0, NULL);
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    return coll_allgather("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, 0,
                     CV_INT(recvcounts), CV_INT(displs), recvtype, comm, 1, NULL);
}

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm)
{
    return coll_allgather("MPI_Allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0,
                     CV_BIG(recvcounts), CV_BIG(displs), recvtype, comm, 1, NULL);
}

/* ---- alltoall ----------------------------------------------------------- */

int coll_a2a_side(const char *F, MPI_Comm comm, int n, const char *what, const void *buf,
                  MPI_Count count, struct smap_cvec counts, struct smap_cvec displs,
                  MPI_Datatype type, const MPI_Datatype *types, int kind, smap_dtype_t **t)
{
    if (kind == 0) {
        COLL_CHECK_BUF(F, comm, buf, count, type, *t);
        return MPI_SUCCESS;
    }
    return coll_check_vside(F, comm, n, what, counts, displs, type, types, kind == 2, t);
}

int coll_alltoall(const char *F, struct smap_a2a *a, MPI_Datatype stype, MPI_Datatype rtype,
                  MPI_Comm comm, int kind, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    COLL_ENTER_REQ(F, comm, c, req);
    if (smap_comm_is_inter(c))
        return inter_alltoall(F, a, stype, rtype, comm, c, kind, req);
    if (a->rbuf == MPI_IN_PLACE)
        return COLL_IN_PLACE_ERR(F, comm, "recvbuf");
    int rc = coll_a2a_side(F, comm, c->size, "recv", a->rbuf, a->rcount, a->rcounts, a->rdispls,
                      rtype, a->rtypes, kind, &a->rt);
    if (rc)
        return rc;
    if (a->sbuf != MPI_IN_PLACE) {
        rc = coll_a2a_side(F, comm, c->size, "send", a->sbuf, a->scount, a->scounts, a->sdispls,
                      stype, a->stypes, kind, &a->st);
        if (rc)
            return rc;
        if (kind == 0)
            COLL_CHECK_ALIAS(F, comm, a->sbuf, a->rbuf, a->scount > 0 && a->rcount > 0);
    }
    return COLL_RUN(F, comm, req, smap_coll_alltoall(a, c), smap_coll_ialltoall(a, c, req));
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    struct smap_a2a a = { .sbuf = sendbuf, .scount = sendcount, .rbuf = recvbuf,
                          .rcount = recvcount };
    return coll_alltoall("MPI_Alltoall", &a, sendtype, recvtype, comm, 0, NULL);
}

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    struct smap_a2a a = { .sbuf = sendbuf, .scount = sendcount, .rbuf = recvbuf,
                          .rcount = recvcount };
    return coll_alltoall("MPI_Alltoall_c", &a, sendtype, recvtype, comm, 0, NULL);
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    struct smap_a2a a = { .sbuf = sendbuf, .scounts = CV_INT(sendcounts),
                          .sdispls = CV_INT(sdispls), .rbuf = recvbuf,
                          .rcounts = CV_INT(recvcounts), .rdispls = CV_INT(rdispls) };
    return coll_alltoall("MPI_Alltoallv", &a, sendtype, recvtype, comm, 1, NULL);
}

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    struct smap_a2a a = { .sbuf = sendbuf, .scounts = CV_BIG(sendcounts),
                          .sdispls = CV_BIG(sdispls), .rbuf = recvbuf,
                          .rcounts = CV_BIG(recvcounts), .rdispls = CV_BIG(rdispls) };
    return coll_alltoall("MPI_Alltoallv_c", &a, sendtype, recvtype, comm, 1, NULL);
}

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    struct smap_a2a a = { .sbuf = sendbuf, .scounts = CV_INT(sendcounts),
                          .sdispls = CV_INT(sdispls), .stypes = sendtypes, .rbuf = recvbuf,
                          .rcounts = CV_INT(recvcounts), .rdispls = CV_INT(rdispls),
                          .rtypes = recvtypes };
    return coll_alltoall("MPI_Alltoallw", &a, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, comm, 2, NULL);
}

int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    struct smap_a2a a = { .sbuf = sendbuf, .scounts = CV_BIG(sendcounts),
                          .sdispls = CV_BIG(sdispls), .stypes = sendtypes, .rbuf = recvbuf,
                          .rcounts = CV_BIG(recvcounts), .rdispls = CV_BIG(rdispls),
                          .rtypes = recvtypes };
    return coll_alltoall("MPI_Alltoallw_c", &a, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, comm, 2, NULL);
}
