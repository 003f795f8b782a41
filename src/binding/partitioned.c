/* Partitioned point-to-point (MPI 4.0): MPI_Psend_init, MPI_Precv_init,
 * MPI_Pready, MPI_Pready_range, MPI_Pready_list, MPI_Parrived.  The
 * protocol is src/mpi/partitioned.c; MPI_Start/Wait/Test/Request_free
 * treat these requests as persistent ones (request.c). */
#include "binding/p2p_common.h"
#include "mpi/info.h"

static int part_init(const char *F, const void *buf, int partitions, MPI_Count count,
                     MPI_Datatype datatype, int peer, int tag, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request, int send)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *t;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    if (partitions < 0)
        return smap_err_raise(comm, MPI_ERR_ARG, F, "partitions %d is negative", partitions);
    MPI_Count total;
    if (count < 0 || smap_mul_overflow_i64(count, (MPI_Count)partitions, &total))
        return smap_err_raise(comm, MPI_ERR_COUNT, F, "count %lld is negative or overflows",
                              (long long)count);
    P2P_CHECK_BUF(F, comm, c, buf, total, datatype, t);
    if (send) {
        P2P_CHECK_DEST(F, comm, c, peer, tag);
    } else {
        P2P_CHECK_SOURCE(F, comm, c, peer, tag);
        if (peer == MPI_ANY_SOURCE || tag == MPI_ANY_TAG)
            return smap_err_raise(comm, peer == MPI_ANY_SOURCE ? MPI_ERR_RANK : MPI_ERR_TAG, F,
                                  "%s", "a partitioned receive takes no MPI_ANY_SOURCE or "
                                        "MPI_ANY_TAG");
    }
    if (info != MPI_INFO_NULL && !smap_info_get(info))
        return smap_err_raise(comm, MPI_ERR_INFO, F, "%s", "info is not a valid info object");
    SMAP_CHECK_PTR(F, comm, request);
    int lr = 0;
    if (peer >= 0 && (lr = p2p_peer_lr(c, peer)) < 0)
        return p2p_offnode_error(F, comm, peer);
    struct MPI_ABI_Request *r = p2p_new_req(comm, t);
    if (!r)
        return p2p_nomem(F, comm);
    int rc = smap_part_init(r, send, buf, partitions, count, peer, lr, c->rank, tag, c->ctx);
    if (rc != MPI_SUCCESS) {
        smap_req_free(r);
        return p2p_nomem(F, comm);
    }
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return part_init("MPI_Psend_init", buf, partitions, count, datatype, dest, tag, comm, info,
                     request, 1);
}

int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return part_init("MPI_Precv_init", buf, partitions, count, datatype, source, tag, comm, info,
                     request, 0);
}

/* The request behind h if it is a partitioned one, else NULL. */
static struct MPI_ABI_Request *part_req(MPI_Request h)
{
    struct MPI_ABI_Request *r = smap_req_get(h);
    return r && r->persist == SMAP_REQ_PART ? r : NULL;
}

static SMAP_COLD int ready_error(const char *F, struct MPI_ABI_Request *r, int rc, int partition)
{
    if (rc == MPI_ERR_ARG)
        return smap_err_raise(r->comm, rc, F, "partition %d is out of range", partition);
    return smap_err_raise(r->comm, rc, F,
                          "partition %d: the request is no active partitioned send, or the "
                          "partition is already ready since MPI_Start",
                          partition);
}

#define PART_ENTER(F, request, r)                                                          \
    do {                                                                                   \
        SMAP_CHECK_RUNNING(F);                                                             \
        if (!((r) = part_req(request)))                                                    \
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_REQUEST, F, "%s",                 \
                                  "request is not a partitioned request "                  \
                                  "(MPI_Psend_init, MPI_Precv_init)");                     \
    } while (0)

int PMPI_Pready(int partition, MPI_Request request)
{
    static const char F[] = "MPI_Pready";
    struct MPI_ABI_Request *r;
    PART_ENTER(F, request, r);
    int rc = smap_part_ready(r, partition);
    return rc == MPI_SUCCESS ? rc : ready_error(F, r, rc, partition);
}

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    static const char F[] = "MPI_Pready_range";
    struct MPI_ABI_Request *r;
    PART_ENTER(F, request, r);
    if (partition_low > partition_high)
        return smap_err_raise(r->comm, MPI_ERR_ARG, F, "partition_low %d > partition_high %d",
                              partition_low, partition_high);
    for (int i = partition_low; i <= partition_high; i++) {
        int rc = smap_part_ready(r, i);
        if (rc != MPI_SUCCESS)
            return ready_error(F, r, rc, i);
    }
    return MPI_SUCCESS;
}

int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    static const char F[] = "MPI_Pready_list";
    struct MPI_ABI_Request *r;
    PART_ENTER(F, request, r);
    if (length < 0)
        return smap_err_raise(r->comm, MPI_ERR_ARG, F, "length %d is negative", length);
    if (length > 0)
        SMAP_CHECK_PTR(F, r->comm, array_of_partitions);
    for (int i = 0; i < length; i++) {
        int rc = smap_part_ready(r, array_of_partitions[i]);
        if (rc != MPI_SUCCESS)
            return ready_error(F, r, rc, array_of_partitions[i]);
    }
    return MPI_SUCCESS;
}

int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    static const char F[] = "MPI_Parrived";
    struct MPI_ABI_Request *r;
    PART_ENTER(F, request, r);
    SMAP_CHECK_PTR(F, r->comm, flag);
    int rc = smap_part_arrived(r, partition, flag);
    if (rc == MPI_ERR_ARG)
        return smap_err_raise(r->comm, rc, F, "partition %d is out of range", partition);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(r->comm, rc, F, "%s", "request is not a partitioned receive");
    return MPI_SUCCESS;
}
