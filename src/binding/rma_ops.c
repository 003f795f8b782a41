/* The measured fast paths of the one-sided operations (MPI 5.0 §12.3):
 * MPI_Put, MPI_Get, MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op.
 * Each tries src/rma/fast.h's inline path (a predefined contiguous type to
 * a peer whose window we load/store: a copy or a few atomics), else makes
 * the general call out of line, as the generated twins (gen/win_ops.c) do:
 * src/rma/op_args.c checks every argument. */
#include <stdint.h>

#include "binding/check.h"
#include "rma/fast.h"

/* The general path, out of line: the fast one then needs no stack frame. */
static SMAP_NOINLINE int general(const char *F, MPI_Win win, const struct smap_rma_desc *d)
{
    struct MPI_ABI_Win *w;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_WIN_OBJ(F, win, win, "win", w);
    return SMAP_RAISE_RC(F, win, smap_rma_op_checked(w, d, NULL));
}

/* The general paths take the arguments as they came, in registers, and
 * build the descriptor there: built in the entry point, it gave the fast
 * path a stack frame (11 instructions more per MPI_Put, callgrind). */
static SMAP_NOINLINE int put_get_general(int put, const void *oaddr, int ocount,
                                         MPI_Datatype otype, int target, MPI_Aint disp,
                                         int tcount, MPI_Datatype ttype, MPI_Win win)
{
    if (put)
        return general("MPI_Put", win,
                       &(struct smap_rma_desc){ SMAP_RMA_PUT, oaddr, ocount, otype, NULL, 0,
                                                MPI_DATATYPE_NULL, NULL, target, disp, tcount,
                                                ttype, MPI_OP_NULL });
    return general("MPI_Get", win,
                   &(struct smap_rma_desc){ SMAP_RMA_GET, NULL, 0, MPI_DATATYPE_NULL,
                                            (void *)(uintptr_t)oaddr, ocount, otype, NULL,
                                            target, disp, tcount, ttype, MPI_OP_NULL });
}

static SMAP_NOINLINE int acc_general(const void *oaddr, int ocount, MPI_Datatype otype,
                                     int target, MPI_Aint disp, int tcount, MPI_Datatype ttype,
                                     MPI_Op op, MPI_Win win)
{
    return general("MPI_Accumulate", win,
                   &(struct smap_rma_desc){ SMAP_RMA_ACC, oaddr, ocount, otype, NULL, 0,
                                            MPI_DATATYPE_NULL, NULL, target, disp, tcount, ttype,
                                            op });
}

/* A fast accumulate's result: rc 0 done, > 0 an error class to raise. */
static SMAP_NOINLINE int acc_failed(const char *F, MPI_Win win, int rc)
{
    return smap_win_raise(win, rc, F, "%s", smap_why());
}

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    if (SMAP_LIKELY(smap_rma_try_put_get(1, (void *)(uintptr_t)origin_addr, origin_count,
                                         origin_datatype, target_rank, target_disp,
                                         target_count, target_datatype, win)))
        return MPI_SUCCESS;
    return put_get_general(1, origin_addr, origin_count, origin_datatype, target_rank,
                           target_disp, target_count, target_datatype, win);
}

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    if (SMAP_LIKELY(smap_rma_try_put_get(0, origin_addr, origin_count, origin_datatype,
                                         target_rank, target_disp, target_count,
                                         target_datatype, win)))
        return MPI_SUCCESS;
    return put_get_general(0, origin_addr, origin_count, origin_datatype, target_rank,
                           target_disp, target_count, target_datatype, win);
}

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    if (origin_datatype == target_datatype && origin_count == target_count) {
        int rc = smap_rma_try_acc(origin_addr, NULL, 0, target_count, target_datatype,
                                  target_rank, target_disp, op, win);
        if (rc >= 0)
            return rc ? acc_failed("MPI_Accumulate", win, rc) : MPI_SUCCESS;
    }
    return acc_general(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, op, win);
}

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    if (origin_datatype == target_datatype && result_datatype == target_datatype &&
        origin_count == target_count && result_count == target_count) {
        int rc = smap_rma_try_acc(origin_addr, result_addr, 1, target_count, target_datatype,
                                  target_rank, target_disp, op, win);
        if (rc >= 0)
            return rc ? acc_failed("MPI_Get_accumulate", win, rc) : MPI_SUCCESS;
    }
    return general("MPI_Get_accumulate", win,
                   &(struct smap_rma_desc){ SMAP_RMA_GACC, origin_addr, origin_count,
                                            origin_datatype, result_addr, result_count,
                                            result_datatype, NULL, target_rank, target_disp,
                                            target_count, target_datatype, op });
}

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    int rc = smap_rma_try_acc(origin_addr, result_addr, 1, 1, datatype, target_rank,
                              target_disp, op, win);
    if (rc >= 0)
        return rc ? acc_failed("MPI_Fetch_and_op", win, rc) : MPI_SUCCESS;
    return general("MPI_Fetch_and_op", win,
                   &(struct smap_rma_desc){ SMAP_RMA_GACC, origin_addr, 1, datatype,
                                            result_addr, 1, datatype, NULL, target_rank,
                                            target_disp, 1, datatype, op });
}
