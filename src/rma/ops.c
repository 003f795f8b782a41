/* The checks every one-sided operation makes before its target's backend
 * runs it (MPI 5.0 §12.3, §12.7): an access epoch covering the target
 * (MPI_ERR_RMA_SYNC), the target range inside its window
 * (MPI_ERR_RMA_RANGE; dynamic windows: inside an attached region, checked
 * by the backend), matching origin and target sizes. */
#include "rma/internal.h"

#include "base/compiler.h"
#include "p2p/p2p.h"

static int in_epoch(struct MPI_ABI_Win *w, int target)
{
    if (w->lock_all || w->locked[target])
        return 1;
    if (w->fence_open) {
        w->fence_used = 1;
        return 1;
    }
    for (int i = 0; i < w->nstart; i++)
        if (w->start_grp[i] == target)
            return 1;
    return 0;
}

static SMAP_COLD int range_error(void)
{
    return smap_fail(MPI_ERR_RMA_RANGE,
                         "the target range lies outside the target's window");
}

int smap_rma_op(MPI_Win h, int kind, int target, MPI_Aint disp, struct smap_rma_op_args *a)
{
    if (SMAP_UNLIKELY(smap_p2p_progress_rma != NULL))
        smap_rma_poll();   /* a peer may wait for us to serve its request */
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    struct MPI_ABI_Win *w = smap_win_get(h);
    if (SMAP_UNLIKELY(!in_epoch(w, target)))
        return smap_fail(MPI_ERR_RMA_SYNC,
                             "no access epoch is open for this target (fence, start, lock or "
                             "lock_all first)");
    const struct smap_rma_target *t = &w->t[target];
    smap_dtype_t *tt = a->ttype;
    if (SMAP_UNLIKELY(disp < 0 && w->flavor != MPI_WIN_FLAVOR_DYNAMIC))
        return range_error();
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        a->taddr = (uintptr_t)disp;
    } else {
        MPI_Aint du = t->disp_unit;
        /* disp * du cannot overflow when both fit in 31 bits: the division
         * (tens of cycles, most of a put's cost) only for larger ones */
        if (SMAP_UNLIKELY((disp > INT32_MAX || du > INT32_MAX) && du > 0 &&
                          disp > (MPI_Aint)(INT64_MAX / 2) / du))
            return range_error();
        MPI_Aint off = disp * du;
        a->taddr = t->base + (uintptr_t)off;
        if (a->tcount > 0 && tt->size > 0) {
            MPI_Count span = (a->tcount - 1) * tt->extent + tt->true_extent;
            MPI_Aint lo = off + tt->true_lb;
            if (SMAP_UNLIKELY(lo < 0 || lo > t->size || span > t->size - lo))
                return range_error();
        }
    }
    switch (kind) {
    case SMAP_RMA_PUT:
        if (SMAP_UNLIKELY(a->ocount * a->otype->size != a->tcount * tt->size))
            return smap_fail(MPI_ERR_TYPE, "origin and target sizes differ");
        return a->tcount && tt->size ? t->ops->put(h, target, a) : MPI_SUCCESS;
    case SMAP_RMA_GET:
        if (SMAP_UNLIKELY(a->rcount * a->rtype->size != a->tcount * tt->size))
            return smap_fail(MPI_ERR_TYPE, "origin and target sizes differ");
        return a->tcount && tt->size ? t->ops->get(h, target, a) : MPI_SUCCESS;
    case SMAP_RMA_ACC:
    case SMAP_RMA_GACC:
        if (SMAP_UNLIKELY(a->otype && a->ocount * a->otype->size != a->tcount * tt->size))
            return smap_fail(MPI_ERR_TYPE, "origin and target sizes differ");
        if (SMAP_UNLIKELY(a->raddr && a->rcount * a->rtype->size != a->tcount * tt->size))
            return smap_fail(MPI_ERR_TYPE, "result and target sizes differ");
        return a->tcount && tt->size ? t->ops->acc(h, target, a) : MPI_SUCCESS;
    default:
        return t->ops->cas(h, target, a);
    }
}
