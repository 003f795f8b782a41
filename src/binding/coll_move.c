/* Entry points of the data-moving collectives: MPI_Bcast, MPI_Gather(v),
 * MPI_Scatter(v), MPI_Allgather(v), MPI_Alltoall(v,w) and their
 * large-count twins.  Checks here, data movement in src/coll/. */
#include <mpi.h>

#include "binding/coll_common.h"

static int bcast(const char *F, void *buf, MPI_Count count, MPI_Datatype datatype, int root,
                 MPI_Comm comm)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *t;
    COLL_ENTER(F, comm, c);
    COLL_CHECK_ROOT(F, comm, c, root);
    if (buf == MPI_IN_PLACE)
        return COLL_IN_PLACE_ERR(F, comm, "buffer");
    COLL_CHECK_BUF(F, comm, buf, count, datatype, t);
    return COLL_DONE(F, comm, smap_coll_bcast(buf, count, t, root, c));
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return bcast("MPI_Bcast", buffer, count, datatype, root, comm);
}

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return bcast("MPI_Bcast_c", buffer, count, datatype, root, comm);
}

/* Every count of a v-array is >= 0 (the arrays must exist). */
static int check_counts(const char *F, MPI_Comm comm, const char *what, struct smap_cvec counts,
                        const void *displs, int n)
{
    if (!counts.p || !displs)
        return smap_err_raise(comm, MPI_ERR_ARG, F, "%s counts or displacements are NULL", what);
    for (int i = 0; i < n; i++)
        if (smap_cvec_at(counts, i) < 0)
            return smap_err_raise(comm, MPI_ERR_COUNT, F, "%scounts[%d] = %lld is negative",
                                  what, i, (long long)smap_cvec_at(counts, i));
    return MPI_SUCCESS;
}

/* ---- gather ------------------------------------------------------------- */

static int gather(const char *F, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                  void *rbuf, MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                  MPI_Datatype rtype, int root, MPI_Comm comm, int vec)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *st = NULL, *rt = NULL;
    COLL_ENTER(F, comm, c);
    COLL_CHECK_ROOT(F, comm, c, root);
    int is_root = c->rank == root;
    if (sbuf == MPI_IN_PLACE && !is_root)
        return COLL_IN_PLACE_ERR(F, comm, "sendbuf on a non-root rank");
    if (sbuf != MPI_IN_PLACE)
        COLL_CHECK_BUF(F, comm, sbuf, scount, stype, st);
    if (is_root) {
        if (rbuf == MPI_IN_PLACE)
            return COLL_IN_PLACE_ERR(F, comm, "recvbuf");
        if (vec) {
            int rc = check_counts(F, comm, "recv", rcounts, displs.p, c->size);
            if (rc)
                return rc;
            SMAP_CHECK_DTYPE_COMMITTED(F, comm, rtype, rt);
        } else {
            COLL_CHECK_BUF(F, comm, rbuf, rcount, rtype, rt);
            COLL_CHECK_ALIAS(F, comm, sbuf, rbuf, rcount > 0 && scount > 0);
        }
    }
    int rc = smap_coll_gather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root, c);
    return COLL_DONE(F, comm, rc);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, CV_INT(NULL),
                  CV_INT(NULL), recvtype, root, comm, 0);
}

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather("MPI_Gather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  CV_INT(NULL), CV_INT(NULL), recvtype, root, comm, 0);
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    return gather("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf, 0, CV_INT(recvcounts),
                  CV_INT(displs), recvtype, root, comm, 1);
}

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                   MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather("MPI_Gatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0, CV_BIG(recvcounts),
                  CV_BIG(displs), recvtype, root, comm, 1);
}

/* ---- scatter ------------------------------------------------------------ */

static int scatter(const char *F, const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                   struct smap_cvec displs, MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                   MPI_Datatype rtype, int root, MPI_Comm comm, int vec)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *st = NULL, *rt = NULL;
    COLL_ENTER(F, comm, c);
    COLL_CHECK_ROOT(F, comm, c, root);
    int is_root = c->rank == root;
    if (rbuf == MPI_IN_PLACE && !is_root)
        return COLL_IN_PLACE_ERR(F, comm, "recvbuf on a non-root rank");
    if (rbuf != MPI_IN_PLACE)
        COLL_CHECK_BUF(F, comm, rbuf, rcount, rtype, rt);
    if (is_root) {
        if (sbuf == MPI_IN_PLACE)
            return COLL_IN_PLACE_ERR(F, comm, "sendbuf");
        if (vec) {
            int rc = check_counts(F, comm, "send", scounts, displs.p, c->size);
            if (rc)
                return rc;
            SMAP_CHECK_DTYPE_COMMITTED(F, comm, stype, st);
        } else {
            COLL_CHECK_BUF(F, comm, sbuf, scount, stype, st);
            COLL_CHECK_ALIAS(F, comm, sbuf, rbuf, rcount > 0 && scount > 0);
        }
    }
    int rc = smap_coll_scatter(sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root, c);
    return COLL_DONE(F, comm, rc);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatter("MPI_Scatter", sendbuf, sendcount, CV_INT(NULL), CV_INT(NULL), sendtype,
                   recvbuf, recvcount, recvtype, root, comm, 0);
}

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                   MPI_Comm comm)
{
    return scatter("MPI_Scatter_c", sendbuf, sendcount, CV_INT(NULL), CV_INT(NULL), sendtype,
                   recvbuf, recvcount, recvtype, root, comm, 0);
}

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    return scatter("MPI_Scatterv", sendbuf, 0, CV_INT(sendcounts), CV_INT(displs), sendtype,
                   recvbuf, recvcount, recvtype, root, comm, 1);
}

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatter("MPI_Scatterv_c", sendbuf, 0, CV_BIG(sendcounts), CV_BIG(displs), sendtype,
                   recvbuf, recvcount, recvtype, root, comm, 1);
}

/* ---- allgather ---------------------------------------------------------- */

static int allgather(const char *F, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                     void *rbuf, MPI_Count rcount, struct smap_cvec rcounts,
                     struct smap_cvec displs, MPI_Datatype rtype, MPI_Comm comm, int vec)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *st = NULL, *rt = NULL;
    COLL_ENTER(F, comm, c);
    if (rbuf == MPI_IN_PLACE)
        return COLL_IN_PLACE_ERR(F, comm, "recvbuf");
    if (sbuf != MPI_IN_PLACE)
        COLL_CHECK_BUF(F, comm, sbuf, scount, stype, st);
    if (vec) {
        int rc = check_counts(F, comm, "recv", rcounts, displs.p, c->size);
        if (rc)
            return rc;
        SMAP_CHECK_DTYPE_COMMITTED(F, comm, rtype, rt);
    } else {
        COLL_CHECK_BUF(F, comm, rbuf, rcount, rtype, rt);
        COLL_CHECK_ALIAS(F, comm, sbuf, rbuf, rcount > 0 && scount > 0);
    }
    int rc = smap_coll_allgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, c);
    return COLL_DONE(F, comm, rc);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     CV_INT(NULL), CV_INT(NULL), recvtype, comm, 0);
}

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather("MPI_Allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     CV_INT(NULL), CV_INT(NULL), recvtype, comm, 0);
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    return allgather("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, 0,
                     CV_INT(recvcounts), CV_INT(displs), recvtype, comm, 1);
}

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather("MPI_Allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0,
                     CV_BIG(recvcounts), CV_BIG(displs), recvtype, comm, 1);
}

/* ---- alltoall ----------------------------------------------------------- */

/* Checks one side of an alltoall(v,w) and resolves its type(s). */
static int a2a_side(const char *F, MPI_Comm comm, int n, const char *what, const void *buf,
                    MPI_Count count, struct smap_cvec counts, struct smap_cvec displs,
                    MPI_Datatype type, const MPI_Datatype *types, int kind, smap_dtype_t **t)
{
    if (kind == 0) {
        COLL_CHECK_BUF(F, comm, buf, count, type, *t);
        return MPI_SUCCESS;
    }
    int rc = check_counts(F, comm, what, counts, displs.p, n);
    if (rc)
        return rc;
    if (kind == 1) {
        SMAP_CHECK_DTYPE_COMMITTED(F, comm, type, *t);
        return MPI_SUCCESS;
    }
    if (!types)
        return smap_err_raise(comm, MPI_ERR_ARG, F, "%stypes is NULL", what);
    for (int j = 0; j < n; j++) {
        smap_dtype_t *tj;
        SMAP_CHECK_DTYPE_COMMITTED(F, comm, types[j], tj);
    }
    return MPI_SUCCESS;
}

/* kind 0: Alltoall, 1: Alltoallv, 2: Alltoallw. */
static int alltoall(const char *F, struct smap_a2a *a, MPI_Datatype stype, MPI_Datatype rtype,
                    MPI_Comm comm, int kind)
{
    struct MPI_ABI_Comm *c;
    COLL_ENTER(F, comm, c);
    if (a->rbuf == MPI_IN_PLACE)
        return COLL_IN_PLACE_ERR(F, comm, "recvbuf");
    int rc = a2a_side(F, comm, c->size, "recv", a->rbuf, a->rcount, a->rcounts, a->rdispls,
                      rtype, a->rtypes, kind, &a->rt);
    if (rc)
        return rc;
    if (a->sbuf != MPI_IN_PLACE) {
        rc = a2a_side(F, comm, c->size, "send", a->sbuf, a->scount, a->scounts, a->sdispls,
                      stype, a->stypes, kind, &a->st);
        if (rc)
            return rc;
        if (kind == 0)
            COLL_CHECK_ALIAS(F, comm, a->sbuf, a->rbuf, a->scount > 0 && a->rcount > 0);
    }
    return COLL_DONE(F, comm, smap_coll_alltoall(a, c));
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    struct smap_a2a a = { .sbuf = sendbuf, .scount = sendcount, .rbuf = recvbuf,
                          .rcount = recvcount };
    return alltoall("MPI_Alltoall", &a, sendtype, recvtype, comm, 0);
}

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    struct smap_a2a a = { .sbuf = sendbuf, .scount = sendcount, .rbuf = recvbuf,
                          .rcount = recvcount };
    return alltoall("MPI_Alltoall_c", &a, sendtype, recvtype, comm, 0);
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    struct smap_a2a a = { .sbuf = sendbuf, .scounts = CV_INT(sendcounts),
                          .sdispls = CV_INT(sdispls), .rbuf = recvbuf,
                          .rcounts = CV_INT(recvcounts), .rdispls = CV_INT(rdispls) };
    return alltoall("MPI_Alltoallv", &a, sendtype, recvtype, comm, 1);
}

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    struct smap_a2a a = { .sbuf = sendbuf, .scounts = CV_BIG(sendcounts),
                          .sdispls = CV_BIG(sdispls), .rbuf = recvbuf,
                          .rcounts = CV_BIG(recvcounts), .rdispls = CV_BIG(rdispls) };
    return alltoall("MPI_Alltoallv_c", &a, sendtype, recvtype, comm, 1);
}

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    struct smap_a2a a = { .sbuf = sendbuf, .scounts = CV_INT(sendcounts),
                          .sdispls = CV_INT(sdispls), .stypes = sendtypes, .rbuf = recvbuf,
                          .rcounts = CV_INT(recvcounts), .rdispls = CV_INT(rdispls),
                          .rtypes = recvtypes };
    return alltoall("MPI_Alltoallw", &a, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, comm, 2);
}

int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    struct smap_a2a a = { .sbuf = sendbuf, .scounts = CV_BIG(sendcounts),
                          .sdispls = CV_BIG(sdispls), .stypes = sendtypes, .rbuf = recvbuf,
                          .rcounts = CV_BIG(recvcounts), .rdispls = CV_BIG(rdispls),
                          .rtypes = recvtypes };
    return alltoall("MPI_Alltoallw_c", &a, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, comm, 2);
}
