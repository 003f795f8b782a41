/* Entry points of the persistent collectives (MPI 4.0: MPI_Barrier_init ...
 * MPI_Alltoallw_init and their large-count twins; the neighbourhood ones
 * are in coll_neighbor.c): the non-blocking collectives' checks and
 * schedule builders (coll_move.c, coll_reduce.c, src/coll/nbc), run with
 * the schedule engine in persistent mode, so the schedule is built once
 * and handed back as an inactive persistent request that MPI_Start runs
 * again (src/coll/sched/README.md, "Persistent schedules").  Never the
 * control-block algorithms: a started collective must progress while its
 * caller does other communication, and a control-block algorithm blocks
 * until every member has entered it. */
#include <mpi.h>

#include "binding/coll_common.h"
#include "mpi/info.h"

/* The request and info arguments, then the build in persistent mode. */
#define PERSIST_ENTER(F, comm, info, request)                                              \
    do {                                                                                   \
        SMAP_CHECK_RUNNING(F);                                                             \
        SMAP_CHECK_PTR(F, comm, request);                                                  \
        *(request) = MPI_REQUEST_NULL;                                                     \
        if ((info) != MPI_INFO_NULL && !smap_info_get(info))                               \
            return smap_err_raise(comm, MPI_ERR_INFO, F, "%s",                             \
                                  "info is not a valid info object");                      \
    } while (0)

static int persist_end(int rc)
{
    smap_sched_persistent(NULL);
    return rc;
}

/* Evaluates the build (the binding's checks and the schedule builder) with
 * the schedule engine in persistent mode for `request`. */
#define PERSIST(call) (smap_sched_persistent(request), persist_end(call))

/* The persistent barrier's schedule: the hierarchy's when c spans nodes. */
static int barrier_sched(const char *F, MPI_Comm comm, struct MPI_ABI_Comm *c,
                         MPI_Request *request)
{
    return COLL_DONE(F, comm, smap_coll_ibarrier(c, request));
}

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char F[] = "MPI_Barrier_init";
    struct MPI_ABI_Comm *c;
    PERSIST_ENTER(F, comm, info, request);
    COLL_ENTER_REQ(F, comm, c, request);
    if (smap_comm_is_inter(c))
        return PERSIST(inter_barrier(F, comm, c, request));
    return PERSIST(barrier_sched(F, comm, c, request));
}

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Bcast_init", comm, info, request);
    return PERSIST(coll_bcast("MPI_Bcast_init", buffer, count, datatype, root, comm, request));
}

int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Bcast_init_c", comm, info, request);
    return PERSIST(coll_bcast("MPI_Bcast_init_c", buffer, count, datatype, root, comm, request));
}

int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    PERSIST_ENTER("MPI_Gather_init", comm, info, request);
    return PERSIST(coll_gather("MPI_Gather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               CV_INT(NULL), CV_INT(NULL), recvtype, root, comm, 0, request));
}

int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Gather_init_c", comm, info, request);
    return PERSIST(coll_gather("MPI_Gather_init_c", sendbuf, sendcount, sendtype, recvbuf,
                               recvcount, CV_BIG(NULL), CV_BIG(NULL), recvtype, root, comm, 0,
                               request));
}

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Gatherv_init", comm, info, request);
    return PERSIST(coll_gather("MPI_Gatherv_init", sendbuf, sendcount, sendtype, recvbuf, 0,
                               CV_INT(recvcounts), CV_INT(displs), recvtype, root, comm, 1,
                               request));
}

int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    PERSIST_ENTER("MPI_Gatherv_init_c", comm, info, request);
    return PERSIST(coll_gather("MPI_Gatherv_init_c", sendbuf, sendcount, sendtype, recvbuf, 0,
                               CV_BIG(recvcounts), CV_BIG(displs), recvtype, root, comm, 1,
                               request));
}

int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    PERSIST_ENTER("MPI_Scatter_init", comm, info, request);
    return PERSIST(coll_scatter("MPI_Scatter_init", sendbuf, sendcount, CV_INT(NULL), CV_INT(NULL),
                                sendtype, recvbuf, recvcount, recvtype, root, comm, 0, request));
}

int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Scatter_init_c", comm, info, request);
    return PERSIST(coll_scatter("MPI_Scatter_init_c", sendbuf, sendcount, CV_BIG(NULL),
                                CV_BIG(NULL), sendtype, recvbuf, recvcount, recvtype, root, comm,
                                0, request));
}

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Scatterv_init", comm, info, request);
    return PERSIST(coll_scatter("MPI_Scatterv_init", sendbuf, 0, CV_INT(sendcounts),
                                CV_INT(displs), sendtype, recvbuf, recvcount, recvtype, root, comm,
                                1, request));
}

int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Scatterv_init_c", comm, info, request);
    return PERSIST(coll_scatter("MPI_Scatterv_init_c", sendbuf, 0, CV_BIG(sendcounts),
                                CV_BIG(displs), sendtype, recvbuf, recvcount, recvtype, root, comm,
                                1, request));
}

int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    PERSIST_ENTER("MPI_Allgather_init", comm, info, request);
    return PERSIST(coll_allgather("MPI_Allgather_init", sendbuf, sendcount, sendtype, recvbuf,
                                  recvcount, CV_INT(NULL), CV_INT(NULL), recvtype, comm, 0,
                                  request));
}

int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Allgather_init_c", comm, info, request);
    return PERSIST(coll_allgather("MPI_Allgather_init_c", sendbuf, sendcount, sendtype, recvbuf,
                                  recvcount, CV_BIG(NULL), CV_BIG(NULL), recvtype, comm, 0,
                                  request));
}

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Allgatherv_init", comm, info, request);
    return PERSIST(coll_allgather("MPI_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf, 0,
                                  CV_INT(recvcounts), CV_INT(displs), recvtype, comm, 1, request));
}

int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           MPI_Request *request)
{
    PERSIST_ENTER("MPI_Allgatherv_init_c", comm, info, request);
    return PERSIST(coll_allgather("MPI_Allgatherv_init_c", sendbuf, sendcount, sendtype, recvbuf,
                                  0, CV_BIG(recvcounts), CV_BIG(displs), recvtype, comm, 1,
                                  request));
}

int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    PERSIST_ENTER("MPI_Alltoall_init", comm, info, request);
    struct smap_a2a a = {.sbuf = sendbuf, .scount = sendcount, .rbuf = recvbuf,
                         .rcount = recvcount};
    return PERSIST(coll_alltoall("MPI_Alltoall_init", &a, sendtype, recvtype, comm, 0, request));
}

int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Alltoall_init_c", comm, info, request);
    struct smap_a2a a = {.sbuf = sendbuf, .scount = sendcount, .rbuf = recvbuf,
                         .rcount = recvcount};
    return PERSIST(coll_alltoall("MPI_Alltoall_init_c", &a, sendtype, recvtype, comm, 0, request));
}

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    PERSIST_ENTER("MPI_Alltoallv_init", comm, info, request);
    struct smap_a2a a = {.sbuf = sendbuf, .scounts = CV_INT(sendcounts),
                         .sdispls = CV_INT(sdispls), .rbuf = recvbuf, .rcounts = CV_INT(recvcounts),
                         .rdispls = CV_INT(rdispls)};
    return PERSIST(coll_alltoall("MPI_Alltoallv_init", &a, sendtype, recvtype, comm, 1, request));
}

int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    PERSIST_ENTER("MPI_Alltoallv_init_c", comm, info, request);
    struct smap_a2a a = {.sbuf = sendbuf, .scounts = CV_BIG(sendcounts),
                         .sdispls = CV_BIG(sdispls), .rbuf = recvbuf, .rcounts = CV_BIG(recvcounts),
                         .rdispls = CV_BIG(rdispls)};
    return PERSIST(coll_alltoall("MPI_Alltoallv_init_c", &a,
                                 sendtype, recvtype, comm, 1, request));
}

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Alltoallw_init", comm, info, request);
    struct smap_a2a a = {.sbuf = sendbuf, .scounts = CV_INT(sendcounts),
                         .sdispls = CV_INT(sdispls), .stypes = sendtypes, .rbuf = recvbuf,
                         .rcounts = CV_INT(recvcounts), .rdispls = CV_INT(rdispls),
                         .rtypes = recvtypes};
    return PERSIST(coll_alltoall("MPI_Alltoallw_init", &a,
                                 MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, comm, 2, request));
}

int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    PERSIST_ENTER("MPI_Alltoallw_init_c", comm, info, request);
    struct smap_a2a a = {.sbuf = sendbuf, .scounts = CV_BIG(sendcounts),
                         .sdispls = CV_BIG(sdispls), .stypes = sendtypes, .rbuf = recvbuf,
                         .rcounts = CV_BIG(recvcounts), .rdispls = CV_BIG(rdispls),
                         .rtypes = recvtypes};
    return PERSIST(coll_alltoall("MPI_Alltoallw_init_c", &a,
                                 MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, comm, 2, request));
}

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Reduce_init", comm, info, request);
    return PERSIST(coll_reduce("MPI_Reduce_init", sendbuf, recvbuf, count, datatype, op, root,
                               comm, request));
}

int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Reduce_init_c", comm, info, request);
    return PERSIST(coll_reduce("MPI_Reduce_init_c", sendbuf, recvbuf, count, datatype, op, root,
                               comm, request));
}

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Allreduce_init", comm, info, request);
    return PERSIST(coll_allred("MPI_Allreduce_init", K_ALLREDUCE, sendbuf, recvbuf, count,
                               datatype, op, comm, request));
}

int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    PERSIST_ENTER("MPI_Allreduce_init_c", comm, info, request);
    return PERSIST(coll_allred("MPI_Allreduce_init_c", K_ALLREDUCE, sendbuf, recvbuf, count,
                               datatype, op, comm, request));
}

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Scan_init", comm, info, request);
    return PERSIST(coll_allred("MPI_Scan_init", K_SCAN, sendbuf, recvbuf, count, datatype, op,
                               comm, request));
}

int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Scan_init_c", comm, info, request);
    return PERSIST(coll_allred("MPI_Scan_init_c", K_SCAN, sendbuf, recvbuf, count, datatype, op,
                               comm, request));
}

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Exscan_init", comm, info, request);
    return PERSIST(coll_allred("MPI_Exscan_init", K_EXSCAN, sendbuf, recvbuf, count, datatype, op,
                               comm, request));
}

int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Exscan_init_c", comm, info, request);
    return PERSIST(coll_allred("MPI_Exscan_init_c", K_EXSCAN, sendbuf, recvbuf, count, datatype,
                               op, comm, request));
}

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    PERSIST_ENTER("MPI_Reduce_scatter_init", comm, info, request);
    if (!recvcounts)
        return smap_err_raise(comm, MPI_ERR_ARG, "MPI_Reduce_scatter_init", "recvcounts is NULL");
    return PERSIST(coll_redscat("MPI_Reduce_scatter_init", sendbuf, recvbuf, CV_INT(recvcounts), 0,
                                datatype, op, comm, request));
}

int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request)
{
    PERSIST_ENTER("MPI_Reduce_scatter_init_c", comm, info, request);
    if (!recvcounts)
        return smap_err_raise(comm, MPI_ERR_ARG, "MPI_Reduce_scatter_init_c", "%s",
                              "recvcounts is NULL");
    return PERSIST(coll_redscat("MPI_Reduce_scatter_init_c", sendbuf, recvbuf, CV_BIG(recvcounts),
                                0, datatype, op, comm, request));
}

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    PERSIST_ENTER("MPI_Reduce_scatter_block_init", comm, info, request);
    return PERSIST(coll_redscat("MPI_Reduce_scatter_block_init", sendbuf, recvbuf, CV_INT(NULL),
                                recvcount, datatype, op, comm, request));
}

int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                     MPI_Info info, MPI_Request *request)
{
    PERSIST_ENTER("MPI_Reduce_scatter_block_init_c", comm, info, request);
    return PERSIST(coll_redscat("MPI_Reduce_scatter_block_init_c", sendbuf, recvbuf, CV_BIG(NULL),
                                recvcount, datatype, op, comm, request));
}
