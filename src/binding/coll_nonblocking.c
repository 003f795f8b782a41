/* Entry points of the non-blocking collectives (MPI_Ibarrier ...
 * MPI_Ialltoallw and their large-count twins): the blocking collectives'
 * checks (coll_move.c, coll_reduce.c, which take the request), then a
 * schedule (src/coll/nbc) started and handed back as the request. */
#include <mpi.h>

#include "binding/coll_common.h"

/* The request pointer first: a NULL one would ask for a blocking call. */
#define NBC_REQ(F, comm, request)         \
    do {                                  \
        SMAP_CHECK_RUNNING(F);            \
        SMAP_CHECK_PTR(F, comm, request); \
    } while (0)

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    static const char F[] = "MPI_Ibarrier";
    struct MPI_ABI_Comm *c;
    NBC_REQ(F, comm, request);
    COLL_ENTER_REQ(F, comm, c, request);
    if (smap_comm_is_inter(c))
        return inter_barrier(F, comm, c, request);
    return COLL_DONE(F, comm, smap_coll_ibarrier(c, request));
}

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    NBC_REQ("MPI_Ibcast", comm, request);
    return coll_bcast("MPI_Ibcast", buffer, count, datatype, root, comm, request);
}

int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    NBC_REQ("MPI_Ibcast_c", comm, request);
    return coll_bcast("MPI_Ibcast_c", buffer, count, datatype, root, comm, request);
}

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    NBC_REQ("MPI_Igather", comm, request);
    return coll_gather("MPI_Igather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       CV_INT(NULL), CV_INT(NULL), recvtype, root, comm, 0, request);
}

int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    NBC_REQ("MPI_Igather_c", comm, request);
    return coll_gather("MPI_Igather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       CV_BIG(NULL), CV_BIG(NULL), recvtype, root, comm, 0, request);
}

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Igatherv", comm, request);
    return coll_gather("MPI_Igatherv", sendbuf, sendcount, sendtype, recvbuf, 0, CV_INT(recvcounts),
                       CV_INT(displs), recvtype, root, comm, 1, request);
}

int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Igatherv_c", comm, request);
    return coll_gather("MPI_Igatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0,
                       CV_BIG(recvcounts), CV_BIG(displs), recvtype, root, comm, 1, request);
}

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    NBC_REQ("MPI_Iscatter", comm, request);
    return coll_scatter("MPI_Iscatter", sendbuf, sendcount, CV_INT(NULL), CV_INT(NULL), sendtype,
                        recvbuf, recvcount, recvtype, root, comm, 0, request);
}

int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request)
{
    NBC_REQ("MPI_Iscatter_c", comm, request);
    return coll_scatter("MPI_Iscatter_c", sendbuf, sendcount, CV_BIG(NULL), CV_BIG(NULL), sendtype,
                        recvbuf, recvcount, recvtype, root, comm, 0, request);
}

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Iscatterv", comm, request);
    return coll_scatter("MPI_Iscatterv", sendbuf, 0, CV_INT(sendcounts), CV_INT(displs), sendtype,
                        recvbuf, recvcount, recvtype, root, comm, 1, request);
}

int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Iscatterv_c", comm, request);
    return coll_scatter("MPI_Iscatterv_c", sendbuf, 0, CV_BIG(sendcounts), CV_BIG(displs), sendtype,
                        recvbuf, recvcount, recvtype, root, comm, 1, request);
}

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Iallgather", comm, request);
    return coll_allgather("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          CV_INT(NULL), CV_INT(NULL), recvtype, comm, 0, request);
}

int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    NBC_REQ("MPI_Iallgather_c", comm, request);
    return coll_allgather("MPI_Iallgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          CV_BIG(NULL), CV_BIG(NULL), recvtype, comm, 0, request);
}

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Iallgatherv", comm, request);
    return coll_allgather("MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf, 0,
                          CV_INT(recvcounts), CV_INT(displs), recvtype, comm, 1, request);
}

int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Iallgatherv_c", comm, request);
    return coll_allgather("MPI_Iallgatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0,
                          CV_BIG(recvcounts), CV_BIG(displs), recvtype, comm, 1, request);
}

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Ialltoall", comm, request);
    return coll_alltoall(
        "MPI_Ialltoall",
        &(struct smap_a2a){
            .sbuf = sendbuf, .scount = sendcount, .rbuf = recvbuf, .rcount = recvcount},
        sendtype, recvtype, comm, 0, request);
}

int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    NBC_REQ("MPI_Ialltoall_c", comm, request);
    return coll_alltoall(
        "MPI_Ialltoall_c",
        &(struct smap_a2a){
            .sbuf = sendbuf, .scount = sendcount, .rbuf = recvbuf, .rcount = recvcount},
        sendtype, recvtype, comm, 0, request);
}

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Ialltoallv", comm, request);
    return coll_alltoall("MPI_Ialltoallv",
                         &(struct smap_a2a){.sbuf = sendbuf,
                                            .scounts = CV_INT(sendcounts),
                                            .sdispls = CV_INT(sdispls),
                                            .rbuf = recvbuf,
                                            .rcounts = CV_INT(recvcounts),
                                            .rdispls = CV_INT(rdispls)},
                         sendtype, recvtype, comm, 1, request);
}

int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    NBC_REQ("MPI_Ialltoallv_c", comm, request);
    return coll_alltoall("MPI_Ialltoallv_c",
                         &(struct smap_a2a){.sbuf = sendbuf,
                                            .scounts = CV_BIG(sendcounts),
                                            .sdispls = CV_BIG(sdispls),
                                            .rbuf = recvbuf,
                                            .rcounts = CV_BIG(recvcounts),
                                            .rdispls = CV_BIG(rdispls)},
                         sendtype, recvtype, comm, 1, request);
}

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    NBC_REQ("MPI_Ialltoallw", comm, request);
    return coll_alltoall("MPI_Ialltoallw",
                         &(struct smap_a2a){.sbuf = sendbuf,
                                            .scounts = CV_INT(sendcounts),
                                            .sdispls = CV_INT(sdispls),
                                            .stypes = sendtypes,
                                            .rbuf = recvbuf,
                                            .rcounts = CV_INT(recvcounts),
                                            .rdispls = CV_INT(rdispls),
                                            .rtypes = recvtypes},
                         MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, comm, 2, request);
}

int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                      MPI_Request *request)
{
    NBC_REQ("MPI_Ialltoallw_c", comm, request);
    return coll_alltoall("MPI_Ialltoallw_c",
                         &(struct smap_a2a){.sbuf = sendbuf,
                                            .scounts = CV_BIG(sendcounts),
                                            .sdispls = CV_BIG(sdispls),
                                            .stypes = sendtypes,
                                            .rbuf = recvbuf,
                                            .rcounts = CV_BIG(recvcounts),
                                            .rdispls = CV_BIG(rdispls),
                                            .rtypes = recvtypes},
                         MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, comm, 2, request);
}

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Ireduce", comm, request);
    return coll_reduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm, request);
}

int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Ireduce_c", comm, request);
    return coll_reduce("MPI_Ireduce_c", sendbuf, recvbuf, count, datatype, op, root, comm, request);
}

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Iallreduce", comm, request);
    return coll_allred("MPI_Iallreduce", K_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, comm,
                       request);
}

int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Iallreduce_c", comm, request);
    return coll_allred("MPI_Iallreduce_c", K_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, comm,
                       request);
}

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Iscan", comm, request);
    return coll_allred("MPI_Iscan", K_SCAN, sendbuf, recvbuf, count, datatype, op, comm, request);
}

int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Iscan_c", comm, request);
    return coll_allred("MPI_Iscan_c", K_SCAN, sendbuf, recvbuf, count, datatype, op, comm, request);
}

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Iexscan", comm, request);
    return coll_allred("MPI_Iexscan", K_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm,
                       request);
}

int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Iexscan_c", comm, request);
    return coll_allred("MPI_Iexscan_c", K_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm,
                       request);
}

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Ireduce_scatter", comm, request);
    if (!recvcounts)
        return smap_err_raise(comm, MPI_ERR_ARG, "MPI_Ireduce_scatter", "recvcounts is NULL");
    return coll_redscat("MPI_Ireduce_scatter", sendbuf, recvbuf, CV_INT(recvcounts), 0, datatype,
                        op, comm, request);
}

int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    NBC_REQ("MPI_Ireduce_scatter_c", comm, request);
    if (!recvcounts)
        return smap_err_raise(comm, MPI_ERR_ARG, "MPI_Ireduce_scatter_c", "recvcounts is NULL");
    return coll_redscat("MPI_Ireduce_scatter_c", sendbuf, recvbuf, CV_BIG(recvcounts), 0, datatype,
                        op, comm, request);
}

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    NBC_REQ("MPI_Ireduce_scatter_block", comm, request);
    return coll_redscat("MPI_Ireduce_scatter_block", sendbuf, recvbuf, CV_INT(NULL), recvcount,
                        datatype, op, comm, request);
}

int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 MPI_Request *request)
{
    NBC_REQ("MPI_Ireduce_scatter_block_c", comm, request);
    return coll_redscat("MPI_Ireduce_scatter_block_c", sendbuf, recvbuf, CV_BIG(NULL), recvcount,
                        datatype, op, comm, request);
}
