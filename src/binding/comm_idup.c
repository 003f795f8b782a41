/* MPI_Comm_idup and MPI_Comm_idup_with_info: MPI_Comm_dup as a schedule
 * (src/coll/sched) on the parent, so it never blocks.
 *
 * The agreement is comm_agree's (comm_create.c) made non-blocking: a
 * callback offers this rank's free context ids and control blocks
 * (smap_comm_ctx_offer, mpi/comm.h) and reads every block's step counter;
 * then a non-blocking MPI_BAND allreduce of the masks and an MPI_MAX one
 * of the steps; then a callback settles: every member offered -> the
 * lowest common id and block, the communicator is made and its handle
 * written to *newcomm; some member did not -> the same rounds again,
 * appended to the schedule.
 *
 * Reserving the id between start and completion: an offer holds this
 * rank's "offering" right (mpi/comm.h) until it settles, so no other
 * agreement of this rank (blocking or another idup, any thread) can offer
 * -- and hence pick -- the ids it offered meanwhile; they retry until the
 * idup settled (an idup waits its turn the same way).  The picked id is
 * reserved and the communicator made in the same callback, so nothing can
 * take the id in between.  An offer drops the calling thread's own
 * reservation, so an offer callback that runs inside a blocking
 * comm_agree (progressed from its allreduces) offers nothing instead: the
 * round fails on every member and is tried again (never waiting, so no
 * member's blocking agreement waits on another's idup).  comm_agree drives
 * progress between its own failed rounds, so an idup holding the offer
 * settles.  Not covered: MPI_Comm_create_group and the intercommunicator
 * constructors (their agreements do not set comm_agreeing).
 * Attributes are copied, and the hints set, when the idup completes. */
#include <mpi.h>
#include <string.h>

#include "binding/check.h"
#include "binding/comm_create.h"
#include "coll/coll.h"
#include "coll/nbc/nbc.h"
#include "mpi/attr.h"
#include "mpi/info.h"
#include "topo/topo.h"

struct idup {
    struct MPI_ABI_Comm *parent;
    MPI_Comm *newcomm;
    MPI_Info info;          /* _with_info: our duplicate, or MPI_INFO_NULL */
    int with_info;
    uint64_t key;           /* agreement priority: parent ctx + sequence, same on all */
    int mine;               /* this rank's offer counted */
    uint32_t m[SMAP_CTX_WORDS + 2];   /* free ids, free blocks, "every member offered" */
    uint64_t step[SMAP_COLL_NSLOTS];
};

static int add_attempt(struct smap_sched *s, struct idup *d);

static int offer(struct smap_sched *s, void *arg)
{
    (void)s;
    struct idup *d = arg;
    d->m[SMAP_CTX_WORDS] = smap_coll_slots_free();
    if (comm_agreeing) {
        /* not now (see the top): this round fails on every member, and
         * the idup tries again */
        memset(d->m, 0, sizeof d->m);
        d->mine = 0;
    } else {
        d->mine = smap_comm_ctx_offer(d->key, d->m, &d->m[SMAP_CTX_WORDS]);
    }
    d->m[SMAP_CTX_WORDS + 1] = (uint32_t)d->mine;
    for (int k = 0; k < SMAP_COLL_NSLOTS; k++)
        d->step[k] = smap_coll_slot_step(k);
    return MPI_SUCCESS;
}

/* The new communicator, as MPI_Comm_dup makes it. */
static int make(struct idup *d, const struct comm_ids *ids)
{
    static const char F[] = "MPI_Comm_idup";
    struct MPI_ABI_Comm *c = d->parent;
    MPI_Comm nc;
    smap_group_retain(c->group);
    int rc = comm_make(c, c->group, ids, &nc, F);
    if (rc != MPI_SUCCESS)
        return rc;
    struct MPI_ABI_Comm *n = nc;
    if (!d->with_info && c->hints && !(n->hints = smap_info_dup(c->hints)))
        rc = MPI_ERR_NO_MEM;
    /* MPI-5.0 8.4: a duplicate keeps the virtual topology (src/topo) */
    if (rc == MPI_SUCCESS && c->topo && !(n->topo = smap_topo_dup(c->topo)))
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = smap_attr_copy_all(c, n);
    if (rc == MPI_SUCCESS && d->info != MPI_INFO_NULL)   /* _with_info(MPI_INFO_NULL): no hints */
        rc = PMPI_Comm_set_info(nc, d->info);
    if (rc != MPI_SUCCESS) {
        (void)smap_attr_delete_all(n);
        (void)smap_coll_release(n);
        smap_comm_destroy(n);
        return rc;
    }
    *d->newcomm = nc;
    return MPI_SUCCESS;
}

static int settle(struct smap_sched *s, void *arg)
{
    struct idup *d = arg;
    int agreed = d->m[SMAP_CTX_WORDS + 1] != 0;
    struct comm_ids ids = { -1, -1, 0 };
    if (agreed) {
        ids.ctx = smap_comm_ctx_pick(d->m);
        ids.slot = d->m[SMAP_CTX_WORDS] ? smap_ctz_size(d->m[SMAP_CTX_WORDS]) : -1;
        ids.step = ids.slot >= 0 ? d->step[ids.slot] : 0;
    }
    smap_comm_ctx_settle(d->key, d->mine, agreed ? SMAP_CTX_AGREED : SMAP_CTX_RETRY, ids.ctx,
                         ids.slot);
    if (!agreed)
        return add_attempt(s, d);
    int rc = ids.ctx < 0 ? MPI_ERR_INTERN : make(d, &ids);
    smap_comm_ctx_release_mine();   /* made (or failed): nothing left to reserve */
    if (d->info != MPI_INFO_NULL)
        PMPI_Info_free(&d->info);
    return rc;
}

/* One round of the agreement, appended to s. */
static int add_attempt(struct smap_sched *s, struct idup *d)
{
    smap_sched_barrier(s);
    smap_sched_callback(s, offer, d);
    smap_sched_barrier(s);
    smap_nbc_add_allreduce(s, MPI_IN_PLACE, d->m, SMAP_CTX_WORDS + 2,
                           smap_dtype_get(MPI_UINT32_T), MPI_UINT32_T, MPI_BAND);
    smap_nbc_add_allreduce(s, MPI_IN_PLACE, d->step, SMAP_COLL_NSLOTS,
                           smap_dtype_get(MPI_UINT64_T), MPI_UINT64_T, MPI_MAX);
    smap_sched_callback(s, settle, d);
    return smap_sched_barrier(s);
}

static int idup(const char *F, MPI_Comm comm, MPI_Info info, int with_info, MPI_Comm *newcomm,
                MPI_Request *request)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    SMAP_CHECK_PTR(F, comm, newcomm);
    SMAP_CHECK_PTR(F, comm, request);
    if (with_info && info != MPI_INFO_NULL && !smap_info_get(info))
        return smap_err_raise(comm, MPI_ERR_INFO, F, "info is not a valid info object");
    if (c->remote_group)
        return smap_err_raise(comm, MPI_ERR_UNSUPPORTED_OPERATION, F, "%s",
                              "MPI_Comm_idup of an intercommunicator is not implemented");
    *newcomm = MPI_COMM_NULL;
    *request = MPI_REQUEST_NULL;
    struct smap_sched *s = smap_sched_new(c);
    struct idup *d = s ? smap_sched_tmp(s, sizeof *d) : NULL;
    if (!d) {
        smap_sched_free(s);
        return smap_err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory");
    }
    *d = (struct idup){ .parent = c, .newcomm = newcomm, .info = MPI_INFO_NULL,
                        .with_info = with_info };
    /* keys above every blocking agreement's (parent ctx < SMAP_CTX_MAX):
     * those get priority, since an idup's offers pause while one runs */
    d->key = smap_comm_ctx_key(SMAP_SCHED_CTX_OFFSET + c->ctx, (int)(c->nbc_seq & 0x7fffffff));
    if (with_info && info != MPI_INFO_NULL && PMPI_Info_dup(info, &d->info) != MPI_SUCCESS) {
        smap_sched_free(s);
        return smap_err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory");
    }
    add_attempt(s, d);
    int rc = smap_sched_start(s, request);
    if (rc != MPI_SUCCESS && d->info != MPI_INFO_NULL)
        PMPI_Info_free(&d->info);
    return rc == MPI_SUCCESS ? rc : smap_err_raise(comm, rc, F, "out of memory");
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup("MPI_Comm_idup", comm, MPI_INFO_NULL, 0, newcomm, request);
}

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                             MPI_Request *request)
{
    return idup("MPI_Comm_idup_with_info", comm, info, 1, newcomm, request);
}
