/* MPI_Pready, MPI_Pready_range, MPI_Pready_list and MPI_Parrived as the
 * entry points make them: the request must be a partitioned one; errors go
 * to its communicator's handler (partitioned.c: the protocol). */
#include "mpi/errors.h"
#include "mpi/request.h"
#include "mpi/runtime.h"

/* The request behind h if it is a partitioned one, else NULL. */
static struct MPI_ABI_Request *part_req(MPI_Request h)
{
    struct MPI_ABI_Request *r = smap_req_get(h);
    return r && r->persist == SMAP_REQ_PART ? r : NULL;
}

static SMAP_COLD int not_partitioned(const char *F)
{
    return smap_err_raise(MPI_COMM_NULL, MPI_ERR_REQUEST, F, "%s",
                          "request is not a partitioned request (MPI_Psend_init, "
                          "MPI_Precv_init)");
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

int smap_part_pready_range(MPI_Request h, int low, int high, const char *F)
{
    struct MPI_ABI_Request *r = part_req(h);
    if (!r)
        return not_partitioned(F);
    if (low > high)
        return smap_err_raise(r->comm, MPI_ERR_ARG, F, "partition_low %d > partition_high %d",
                              low, high);
    for (int i = low; i <= high; i++) {
        int rc = smap_part_ready(r, i);
        if (rc != MPI_SUCCESS)
            return ready_error(F, r, rc, i);
    }
    return MPI_SUCCESS;
}

int smap_part_pready_list(MPI_Request h, int length, const int partitions[], const char *F)
{
    struct MPI_ABI_Request *r = part_req(h);
    if (!r)
        return not_partitioned(F);
    if (length < 0)
        return smap_err_raise(r->comm, MPI_ERR_ARG, F, "length %d is negative", length);
    if (length > 0 && !partitions)
        return smap_err_raise(r->comm, MPI_ERR_ARG, F, "array_of_partitions is NULL");
    for (int i = 0; i < length; i++) {
        int rc = smap_part_ready(r, partitions[i]);
        if (rc != MPI_SUCCESS)
            return ready_error(F, r, rc, partitions[i]);
    }
    return MPI_SUCCESS;
}

int smap_part_parrived(MPI_Request h, int partition, int *flag, const char *F)
{
    struct MPI_ABI_Request *r = part_req(h);
    if (!r)
        return not_partitioned(F);
    if (!flag)
        return smap_err_raise(r->comm, MPI_ERR_ARG, F, "flag is NULL");
    int rc = smap_part_arrived(r, partition, flag);
    if (rc == MPI_ERR_ARG)
        return smap_err_raise(r->comm, rc, F, "partition %d is out of range", partition);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(r->comm, rc, F, "%s", "request is not a partitioned receive");
    return MPI_SUCCESS;
}
