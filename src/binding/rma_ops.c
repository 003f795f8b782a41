/* The one-sided operations (MPI 5.0 §12.3): Put, Get, Accumulate,
 * Get_accumulate, Fetch_and_op, Compare_and_swap and the request-based
 * Rput, Rget, Raccumulate, Rget_accumulate, with their _c twins.  Checks
 * here; epochs, ranges and data movement in src/rma.  Operations on the
 * node are complete when they return, so request-based ones hand back a
 * completed request. */
#include <stdint.h>

#include "mpi/args.h"
#include "binding/rma_common.h"
#include "mpi/op.h"
#include "mpi/request.h"
#include "mpi/runtime.h"
#include "rma/fast.h"

struct opdesc {
    const char *F;
    int kind;
    const void *oaddr;
    MPI_Count ocount;
    MPI_Datatype otype;
    void *raddr;
    MPI_Count rcount;
    MPI_Datatype rtype;
    const void *caddr;
    int target;
    MPI_Aint disp;
    MPI_Count tcount;
    MPI_Datatype ttype;
    MPI_Op op;
};

#define CHECK_TYPE(F, win, h, obj)                                                         \
    do {                                                                                   \
        (obj) = smap_dtype_get(h);                                                         \
        if (SMAP_UNLIKELY(!(obj)))                                                         \
            return RMA_RAISE(F, win, MPI_ERR_TYPE, "%s is not a valid datatype", #h);      \
        if (SMAP_UNLIKELY(!smap_dtype_committed(obj)))                                     \
            return RMA_RAISE(F, win, MPI_ERR_TYPE, "%s is not committed", #h);             \
    } while (0)

#define CHECK_COUNT(F, win, n)                                                             \
    do {                                                                                   \
        if (SMAP_UNLIKELY((n) < 0))                                                        \
            return RMA_RAISE(F, win, MPI_ERR_COUNT, "%s %lld is negative", #n, (long long)(n)); \
    } while (0)

static int is_acc(int kind)
{
    return kind == SMAP_RMA_ACC || kind == SMAP_RMA_GACC;
}

/* Whether buffer p may hold count > 0 elements of t: NULL is MPI_BOTTOM,
 * fine for a type of absolute addresses (from MPI_Get_address), an error
 * when the data would start at address 0. */
static int buffer_ok(const void *p, const smap_dtype_t *t)
{
    return p || t->true_lb != 0;
}

static int run(const struct opdesc *d, MPI_Win win, int rq, MPI_Request *req)
{
    const char *F = d->F;
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    if (rq) {
        if (SMAP_UNLIKELY(!req))
            return RMA_RAISE(F, win, MPI_ERR_ARG, "request is NULL");
        *req = MPI_REQUEST_NULL;
    }
    if (d->target != MPI_PROC_NULL)
        RMA_CHECK_RANK(F, win, w, d->target);
    /* every field set here, no zeroing: `= { 0 }` compiled to a `rep
     * stos`, a fifth of a small accumulate */
    struct smap_rma_op_args a;
    a.oaddr = NULL;
    a.ocount = 0;
    a.otype = NULL;
    a.raddr = NULL;
    a.rcount = 0;
    a.rtype = NULL;
    a.caddr = NULL;
    a.taddr = 0;
    a.op = MPI_OP_NULL;
    int no_op = 0;
    if (is_acc(d->kind)) {
        struct MPI_ABI_Op *o = smap_op_get(d->op);
        if (!o)
            return RMA_RAISE(F, win, MPI_ERR_OP, "op is not a valid op");
        if (!o->predefined)
            return RMA_RAISE(F, win, MPI_ERR_OP,
                             "one-sided accumulates take predefined ops only (MPI 5.0 §12.3.4)");
        no_op = d->op == MPI_NO_OP;
        if (d->kind == SMAP_RMA_ACC && no_op)
            return RMA_RAISE(F, win, MPI_ERR_OP, "MPI_NO_OP is for MPI_Get_accumulate only");
        a.op = d->op;
    }
    CHECK_COUNT(F, win, d->tcount);
    CHECK_TYPE(F, win, d->ttype, a.ttype);
    a.tcount = d->tcount;
    if (d->kind != SMAP_RMA_GET && !no_op) {
        CHECK_COUNT(F, win, d->ocount);
        CHECK_TYPE(F, win, d->otype, a.otype);
        if (d->ocount > 0 && a.otype->size > 0 && !buffer_ok(d->oaddr, a.otype))
            return RMA_RAISE(F, win, MPI_ERR_ARG, "origin_addr is NULL");
        a.oaddr = d->oaddr;
        a.ocount = d->ocount;
    }
    if (d->kind == SMAP_RMA_GET || d->kind == SMAP_RMA_GACC || d->kind == SMAP_RMA_CAS) {
        CHECK_COUNT(F, win, d->rcount);
        CHECK_TYPE(F, win, d->rtype, a.rtype);
        /* the backends tell get_accumulate from accumulate by the result
         * buffer: MPI_BOTTOM only for a get's */
        if (d->rcount > 0 && a.rtype->size > 0 &&
            (d->kind == SMAP_RMA_GET ? !buffer_ok(d->raddr, a.rtype) : !d->raddr))
            return RMA_RAISE(F, win, MPI_ERR_ARG, "%s is NULL",
                             d->kind == SMAP_RMA_GET ? "origin_addr" : "result_addr");
        a.raddr = d->raddr;
        a.rcount = d->rcount;
    }
    if (is_acc(d->kind)) {
        const char *why = "";
        int rc = smap_op_check_acc(d->op, d->ttype, &why);
        if (rc)
            return RMA_RAISE(F, win, rc, "%s", why);
        smap_dtype_t *tb = smap_op_base_type(a.ttype);
        if (!no_op && smap_op_base_type(a.otype) != tb)
            return RMA_RAISE(F, win, MPI_ERR_TYPE,
                             "origin and target datatypes are not built from the same "
                             "predefined datatype");
        if (a.raddr && smap_op_base_type(a.rtype) != tb)
            return RMA_RAISE(F, win, MPI_ERR_TYPE,
                             "result and target datatypes are not built from the same "
                             "predefined datatype");
    }
    if (d->kind == SMAP_RMA_CAS) {
        if (!(a.ttype->flags & SMAP_DT_PREDEF) || (a.ttype->flags & SMAP_DT_PAIR) ||
            a.ttype->size > 8 || a.ttype->size == 0)
            return RMA_RAISE(F, win, MPI_ERR_TYPE,
                             "compare-and-swap takes one predefined integer, logical or byte "
                             "element");
        RMA_CHECK_PTR(F, win, d->caddr);
        a.caddr = d->caddr;
    }
    int rc = smap_rma_op(win, d->kind, d->target, d->disp, &a);
    if (rc)
        return smap_win_raise(win, rc, F, "%s", smap_why());
    if (rq) {
        struct MPI_ABI_Request *r = smap_req_new(MPI_COMM_NULL);
        if (!r)
            return RMA_RAISE(F, win, MPI_ERR_NO_MEM, "out of memory for the request");
        r->p.kind = SMAP_PREQ_SEND;
        smap_preq_complete(&r->p);
        *req = (MPI_Request)r;
    }
    return MPI_SUCCESS;
}

/* ---- put / get ---- */

#define PUT(F, rq, req)                                                                        \
    run(&(struct opdesc){ F, SMAP_RMA_PUT, origin_addr, origin_count, origin_datatype, NULL, 0, \
                          MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count,  \
                          target_datatype, MPI_OP_NULL },                                  \
        win, rq, req)
#define GET(F, rq, req)                                                                        \
    run(&(struct opdesc){ F, SMAP_RMA_GET, NULL, 0, MPI_DATATYPE_NULL, origin_addr,          \
                          origin_count, origin_datatype, NULL, target_rank, target_disp,    \
                          target_count, target_datatype, MPI_OP_NULL },                    \
        win, rq, req)
#define ACC(F, rq, req)                                                                        \
    run(&(struct opdesc){ F, SMAP_RMA_ACC, origin_addr, origin_count, origin_datatype, NULL, 0, \
                          MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count,  \
                          target_datatype, op },                                           \
        win, rq, req)
#define GACC(F, rq, req)                                                                       \
    run(&(struct opdesc){ F, SMAP_RMA_GACC, origin_addr, origin_count, origin_datatype,      \
                          result_addr, result_count, result_datatype, NULL, target_rank,    \
                          target_disp, target_count, target_datatype, op },                \
        win, rq, req)

/* ---- the fast path of MPI_Put and MPI_Get (src/rma/fast.h) ---- */

/* A predefined type whose elements are one dense block, or NULL.  Unused
 * entries of the predefined table have no flags. */
static inline smap_dtype_t *plain_type(MPI_Datatype h)
{
    uintptr_t v = (uintptr_t)h - SMAP_DTYPE_PREDEF_BASE;
    const unsigned need = SMAP_DT_PREDEF | SMAP_DT_COMMITTED | SMAP_DT_CONTIG;
    if (v >= SMAP_DTYPE_PREDEF_N || (smap_dtype_predef[v].flags & need) != need)
        return NULL;
    return &smap_dtype_predef[v];
}

/* Every check of run() for this case, as conditions that hold (anything
 * else, errors included, goes through run()); then the inline transfer. */
static inline int fast_put_get(int put, void *buf, int ocount, MPI_Datatype otype, int target,
                               MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win)
{
    if (!smap_running())
        return 0;
    smap_dtype_t *ot = plain_type(otype), *tt = plain_type(ttype);
    struct MPI_ABI_Win *w = smap_win_get(win);
    if (!ot || !tt || !w || !buf || ocount <= 0 || tcount <= 0 ||
        (unsigned)target >= (unsigned)w->n)
        return 0;
    size_t bytes = (size_t)tcount * (size_t)tt->size;
    if (bytes != (size_t)ocount * (size_t)ot->size)
        return 0;
    return smap_rma_fast_xfer(w, put, buf, bytes, target, disp);
}

/* The general path out of line: the fast one then needs no stack frame. */
static SMAP_NOINLINE int put_general(const void *origin_addr, int origin_count,
                                     MPI_Datatype origin_datatype, int target_rank,
                                     MPI_Aint target_disp, int target_count,
                                     MPI_Datatype target_datatype, MPI_Win win)
{
    return PUT("MPI_Put", 0, NULL);
}

static SMAP_NOINLINE int get_general(void *origin_addr, int origin_count,
                                     MPI_Datatype origin_datatype, int target_rank,
                                     MPI_Aint target_disp, int target_count,
                                     MPI_Datatype target_datatype, MPI_Win win)
{
    return GET("MPI_Get", 0, NULL);
}

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    if (SMAP_LIKELY(fast_put_get(1, (void *)(uintptr_t)origin_addr, origin_count,
                                 origin_datatype, target_rank, target_disp, target_count,
                                 target_datatype, win)))
        return MPI_SUCCESS;
    return put_general(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, win);
}

int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    return PUT("MPI_Put_c", 0, NULL);
}

int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return PUT("MPI_Rput", 1, request);
}

int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return PUT("MPI_Rput_c", 1, request);
}

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    if (SMAP_LIKELY(fast_put_get(0, origin_addr, origin_count, origin_datatype, target_rank,
                                 target_disp, target_count, target_datatype, win)))
        return MPI_SUCCESS;
    return get_general(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, win);
}

int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    return GET("MPI_Get_c", 0, NULL);
}

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return GET("MPI_Rget", 1, request);
}

int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return GET("MPI_Rget_c", 1, request);
}

/* ---- accumulates ---- */

/* The fast path of MPI_Accumulate, MPI_Get_accumulate and
 * MPI_Fetch_and_op (src/rma/node.c: smap_rma_fast_acc): origin, result
 * and target all `count` elements of one predefined type, a predefined
 * op; every check of run() for this case holds or the general path runs
 * (it raises the precise error).  -1: general path; else done, with
 * smap_rma_fast_acc's class. */
static inline int fast_acc(const char *F, const void *oaddr, void *raddr, int fetch, int count,
                           MPI_Datatype type, int target, MPI_Aint disp, MPI_Op op, MPI_Win win)
{
    if (!smap_running() || (uintptr_t)op - SMAP_OP_PREDEF_BASE >= SMAP_OP_PREDEF_N)
        return -1;
    smap_dtype_t *b = plain_type(type);
    struct MPI_ABI_Win *w = smap_win_get(win);
    struct MPI_ABI_Op *o = smap_op_get(op);
    int no_op = op == MPI_NO_OP;
    if (!b || !w || !o || count <= 0 || (unsigned)target >= (unsigned)w->n ||
        (!no_op && !oaddr) || (fetch && !raddr) || (!fetch && no_op))
        return -1;
    int rc = smap_rma_fast_acc(w, target, disp, o->opx, b, oaddr, fetch ? raddr : NULL, count);
    if (rc > 0)
        return smap_win_raise(win, rc, F, "%s", smap_why());
    return rc;
}

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    if (origin_datatype == target_datatype && origin_count == target_count) {
        int rc = fast_acc("MPI_Accumulate", origin_addr, NULL, 0, target_count, target_datatype,
                          target_rank, target_disp, op, win);
        if (rc >= 0)
            return rc;
    }
    return ACC("MPI_Accumulate", 0, NULL);
}

int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count,
                      MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                      MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                      MPI_Win win)
{
    return ACC("MPI_Accumulate_c", 0, NULL);
}

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    return ACC("MPI_Raccumulate", 1, request);
}

int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                       MPI_Win win, MPI_Request *request)
{
    return ACC("MPI_Raccumulate_c", 1, request);
}

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    if (origin_datatype == target_datatype && result_datatype == target_datatype &&
        origin_count == target_count && result_count == target_count) {
        int rc = fast_acc("MPI_Get_accumulate", origin_addr, result_addr, 1, target_count,
                          target_datatype, target_rank, target_disp, op, win);
        if (rc >= 0)
            return rc;
    }
    return GACC("MPI_Get_accumulate", 0, NULL);
}

int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr,
                          MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                          MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return GACC("MPI_Get_accumulate_c", 0, NULL);
}

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, void *result_addr, int result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request *request)
{
    return GACC("MPI_Rget_accumulate", 1, request);
}

int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, void *result_addr,
                           MPI_Count result_count, MPI_Datatype result_datatype,
                           int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                           MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                           MPI_Request *request)
{
    return GACC("MPI_Rget_accumulate_c", 1, request);
}

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    int rc = fast_acc("MPI_Fetch_and_op", origin_addr, result_addr, 1, 1, datatype, target_rank,
                      target_disp, op, win);
    if (rc >= 0)
        return rc;
    return run(&(struct opdesc){ "MPI_Fetch_and_op", SMAP_RMA_GACC, origin_addr, 1, datatype,
                                 result_addr, 1, datatype, NULL, target_rank, target_disp, 1,
                                 datatype, op },
               win, 0, NULL);
}

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Win win)
{
    return run(&(struct opdesc){ "MPI_Compare_and_swap", SMAP_RMA_CAS, origin_addr, 1, datatype,
                                 result_addr, 1, datatype, compare_addr, target_rank,
                                 target_disp, 1, datatype, MPI_OP_NULL },
               win, 0, NULL);
}
