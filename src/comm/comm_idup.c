/* MPI_Comm_idup and MPI_Comm_idup_with_info: MPI_Comm_dup as a schedule
 * (src/coll/sched) on the parent, so it never blocks.
 *
 * The agreement is the two-phase one of mpi/comm.c ("non-blocking
 * agreements"), which never holds this rank's offer while waiting for the
 * other members, so an idup started before a blocking constructor (or
 * another idup, on any thread) never deadlocks with it.  A round: a
 * callback reads the ids and control blocks free here and every block's
 * step counter; MPI_BAND / MPI_MAX allreduces; a callback picks the lowest
 * common id and block and claims them here; an MPI_BAND allreduce of the
 * claims; a callback settles: every member claimed the id -> the
 * communicator is made (without a control block unless every member
 * claimed that too) and its handle written to *newcomm; some member could
 * not -> the claims are released and the rounds appended again.  Of an
 * intercommunicator, the allreduces span both groups (no control block).
 * Attributes are copied, and the hints set, when the idup completes. */
#include <mpi.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/nbc/nbc.h"
#include "mpi/attr.h"
#include "comm/comm_create.h"
#include "mpi/errors.h"
#include "mpi/info.h"
#include "mpi/intercomm.h"
#include "topo/topo.h"

struct idup {
    struct MPI_ABI_Comm *parent;
    MPI_Comm *newcomm;
    struct MPI_ABI_Info *info;   /* _with_info: our duplicate, or NULL */
    int with_info;
    int inter;              /* the parent is an intercommunicator: both groups agree */
    uint32_t m[SMAP_CTX_WORDS + 1];   /* free ids, free control blocks */
    uint64_t step[SMAP_COLL_NSLOTS];
    int ctx, slot;                    /* picked; -1: none */
    uint32_t claimed[2];              /* this rank claimed the id / the block; then ANDed */
    int held_ctx, held_slot;          /* what this rank claimed, to release; -1: nothing */
};

static int add_attempt(struct smap_sched *s, struct idup *d);

static int offer(struct smap_sched *s, void *arg)
{
    (void)s;
    struct idup *d = arg;
    /* an intercommunicator has no control block (mpi/intercomm.h) */
    d->m[SMAP_CTX_WORDS] = d->inter ? 0 : smap_coll_slots_free();
    smap_comm_ctx_nb_free(d->m, &d->m[SMAP_CTX_WORDS]);
    for (int k = 0; k < SMAP_COLL_NSLOTS; k++)
        d->step[k] = smap_coll_slot_step(k);
    return MPI_SUCCESS;
}

static int claim(struct smap_sched *s, void *arg)
{
    (void)s;
    struct idup *d = arg;
    d->ctx = smap_comm_ctx_pick(d->m);
    d->slot = d->m[SMAP_CTX_WORDS] ? smap_ctz_size(d->m[SMAP_CTX_WORDS]) : -1;
    int slot_ok = 0;
    /* no common id at all: every member sees it, the idup fails in settle */
    d->claimed[0] = d->ctx < 0 ||
                    smap_comm_ctx_nb_claim(d->ctx, d->slot, smap_coll_slots_free(), &slot_ok);
    d->claimed[1] = (uint32_t)slot_ok;
    d->held_ctx = d->ctx >= 0 && d->claimed[0] ? d->ctx : -1;
    d->held_slot = slot_ok ? d->slot : -1;
    return MPI_SUCCESS;
}

/* The new communicator, as MPI_Comm_dup makes it. */
static int make(struct idup *d, const struct smap_comm_ids *ids)
{
    static const char F[] = "MPI_Comm_idup";
    struct MPI_ABI_Comm *c = d->parent;
    MPI_Comm nc;
    smap_group_retain(c->group);
    int rc;
    if (d->inter) {
        smap_group_retain(c->remote_group);
        nc = smap_inter_new(c, c->group, c->remote_group, ids->ctx);
        rc = nc ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    } else {
        rc = smap_comm_make(c, c->group, ids, &nc, F);
    }
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
    if (rc == MPI_SUCCESS && d->info)   /* _with_info(MPI_INFO_NULL): no hints */
        rc = smap_comm_take_hints(n, d->info);
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
    if (d->ctx >= 0 && !d->claimed[0]) {
        /* some member could not claim the id: release and try again */
        smap_comm_ctx_nb_release(d->held_ctx, d->held_slot);
        return add_attempt(s, d);
    }
    if (d->ctx < 0)
        return SMAP_ERR_NO_CTX;   /* no context id free on every member */
    struct smap_comm_ids ids = { d->ctx, d->claimed[1] ? d->slot : -1, 0 };
    ids.step = ids.slot >= 0 ? d->step[ids.slot] : 0;
    int rc = make(d, &ids);
    /* made (or failed): the communicator holds the id and block now */
    smap_comm_ctx_nb_release(d->held_ctx, d->held_slot);
    smap_info_free(d->info);
    d->info = NULL;
    return rc;
}

/* An allreduce over every member: of the group, or of both groups of an
 * intercommunicator. */
static void add_allreduce(struct smap_sched *s, const struct idup *d, void *buf, int n,
                          MPI_Datatype type, MPI_Op op)
{
    if (d->inter)
        smap_nbc_add_inter_allreduce_both(s, buf, n, smap_dtype_stored(type), type, op);
    else
        smap_nbc_add_allreduce(s, MPI_IN_PLACE, buf, n, smap_dtype_stored(type), type, op);
}

/* One round of the agreement, appended to s. */
static int add_attempt(struct smap_sched *s, struct idup *d)
{
    smap_sched_barrier(s);
    smap_sched_callback(s, offer, d);
    smap_sched_barrier(s);
    add_allreduce(s, d, d->m, SMAP_CTX_WORDS + 1, MPI_UINT32_T, MPI_BAND);
    if (!d->inter)
        add_allreduce(s, d, d->step, SMAP_COLL_NSLOTS, MPI_UINT64_T, MPI_MAX);
    smap_sched_barrier(s);
    smap_sched_callback(s, claim, d);
    smap_sched_barrier(s);
    add_allreduce(s, d, d->claimed, 2, MPI_UINT32_T, MPI_BAND);
    smap_sched_barrier(s);
    smap_sched_callback(s, settle, d);
    return smap_sched_barrier(s);
}

int smap_comm_idup(struct MPI_ABI_Comm *c, MPI_Info info, int with_info, MPI_Comm *newcomm,
                   MPI_Request *request, const char *F)
{
    MPI_Comm comm = c->handle;
    *newcomm = MPI_COMM_NULL;
    *request = MPI_REQUEST_NULL;
    struct smap_sched *s = smap_sched_new(c);
    struct idup *d = s ? smap_sched_tmp(s, sizeof *d) : NULL;
    if (!d) {
        smap_sched_free(s);
        return smap_err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory");
    }
    *d = (struct idup){ .parent = c, .newcomm = newcomm, .info = NULL,
                        .with_info = with_info, .inter = smap_comm_is_inter(c), .ctx = -1,
                        .slot = -1, .held_ctx = -1,
                        .held_slot = -1 };
    const struct MPI_ABI_Info *given = with_info ? smap_info_get(info) : NULL;
    if (given && !(d->info = smap_info_dup(given))) {
        smap_sched_free(s);
        return smap_err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory");
    }
    add_attempt(s, d);
    int rc = smap_sched_start(s, request);
    if (rc != MPI_SUCCESS) {
        smap_info_free(d->info);
        d->info = NULL;
    }
    return rc == MPI_SUCCESS ? rc : smap_err_raise(comm, rc, F, "out of memory");
}
