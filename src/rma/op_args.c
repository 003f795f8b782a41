/* The arguments of a one-sided operation as the entry point received them
 * (MPI 5.0 §12.3): target rank, counts, datatypes (valid, committed, built
 * from the same predefined type for accumulates), buffers (NULL is
 * MPI_BOTTOM, fine for a type of absolute addresses), the op (predefined;
 * MPI_NO_OP for get-accumulates only), compare-and-swap's one element.
 * Then one call to ops.c, and a completed request for the request-based
 * forms: operations on the node are complete when they return. */
#include "mpi/op.h"
#include "mpi/request.h"
#include "rma/rma.h"

static int is_acc(int kind)
{
    return kind == SMAP_RMA_ACC || kind == SMAP_RMA_GACC;
}

/* *obj = the committed datatype behind h (what: the argument's name). */
static int type_arg(MPI_Datatype h, const char *what, smap_dtype_t **obj)
{
    *obj = smap_dtype_get(h);
    if (SMAP_UNLIKELY(!*obj))
        return smap_failf(MPI_ERR_TYPE, "%s is not a valid datatype", what);
    if (SMAP_UNLIKELY(!smap_dtype_committed(*obj)))
        return smap_failf(MPI_ERR_TYPE, "%s is not committed", what);
    return MPI_SUCCESS;
}

static int count_arg(MPI_Count n, const char *what)
{
    if (SMAP_UNLIKELY(n < 0))
        return smap_failf(MPI_ERR_COUNT, "%s %lld is negative", what, (long long)n);
    return MPI_SUCCESS;
}

/* Whether buffer p may hold count > 0 elements of t: NULL is MPI_BOTTOM,
 * fine for a type of absolute addresses (from MPI_Get_address), an error
 * when the data would start at address 0. */
static int buffer_ok(const void *p, const smap_dtype_t *t)
{
    return p || t->true_lb != 0;
}

/* The op of an accumulate: predefined; MPI_NO_OP for MPI_Get_accumulate. */
static int op_arg(const struct smap_rma_desc *d, struct smap_rma_op_args *a)
{
    struct MPI_ABI_Op *o = smap_op_get(d->op);
    if (!o)
        return smap_fail(MPI_ERR_OP, "op is not a valid op");
    if (!o->predefined)
        return smap_fail(MPI_ERR_OP,
                         "one-sided accumulates take predefined ops only (MPI 5.0 §12.3.4)");
    if (d->kind == SMAP_RMA_ACC && d->op == MPI_NO_OP)
        return smap_fail(MPI_ERR_OP, "MPI_NO_OP is for MPI_Get_accumulate only");
    a->op = d->op;
    return MPI_SUCCESS;
}

/* The origin side of a put or an accumulate. */
static int origin_arg(const struct smap_rma_desc *d, struct smap_rma_op_args *a)
{
    int rc = count_arg(d->ocount, "origin_count");
    if (!rc)
        rc = type_arg(d->otype, "origin_datatype", &a->otype);
    if (rc)
        return rc;
    if (d->ocount > 0 && a->otype->size > 0 && !buffer_ok(d->oaddr, a->otype))
        return smap_fail(MPI_ERR_ARG, "origin_addr is NULL");
    a->oaddr = d->oaddr;
    a->ocount = d->ocount;
    return MPI_SUCCESS;
}

/* The result side of a get, get-accumulate or compare-and-swap.  The
 * backends tell get_accumulate from accumulate by the result buffer:
 * MPI_BOTTOM only for a get's. */
static int result_arg(const struct smap_rma_desc *d, struct smap_rma_op_args *a)
{
    int get = d->kind == SMAP_RMA_GET;   /* a get's result is its origin */
    int rc = count_arg(d->rcount, get ? "origin_count" : "result_count");
    if (!rc)
        rc = type_arg(d->rtype, get ? "origin_datatype" : "result_datatype", &a->rtype);
    if (rc)
        return rc;
    if (d->rcount > 0 && a->rtype->size > 0 && (get ? !buffer_ok(d->raddr, a->rtype) : !d->raddr))
        return smap_failf(MPI_ERR_ARG, "%s is NULL", get ? "origin_addr" : "result_addr");
    a->raddr = d->raddr;
    a->rcount = d->rcount;
    return MPI_SUCCESS;
}

/* Accumulates combine elements of one predefined type (D14's table). */
static int acc_types(const struct smap_rma_desc *d, const struct smap_rma_op_args *a, int no_op)
{
    const char *why = "";
    int rc = smap_op_check_acc(d->op, d->ttype, &why);
    if (rc)
        return smap_fail(rc, why);
    smap_dtype_t *tb = smap_op_base_type(a->ttype);
    if (!no_op && smap_op_base_type(a->otype) != tb)
        return smap_fail(MPI_ERR_TYPE, "origin and target datatypes are not built from the "
                                       "same predefined datatype");
    if (a->raddr && smap_op_base_type(a->rtype) != tb)
        return smap_fail(MPI_ERR_TYPE, "result and target datatypes are not built from the "
                                       "same predefined datatype");
    return MPI_SUCCESS;
}

static int cas_args(const struct smap_rma_desc *d, struct smap_rma_op_args *a)
{
    if (!(a->ttype->flags & SMAP_DT_PREDEF) || (a->ttype->flags & SMAP_DT_PAIR) ||
        a->ttype->size > 8 || a->ttype->size == 0)
        return smap_fail(MPI_ERR_TYPE, "compare-and-swap takes one predefined integer, "
                                       "logical or byte element");
    if (!d->caddr)
        return smap_fail(MPI_ERR_ARG, "compare_addr is NULL");
    a->caddr = d->caddr;
    return MPI_SUCCESS;
}

/* Every argument of d into a; MPI_SUCCESS when they hold. */
static int op_args(const struct MPI_ABI_Win *w, const struct smap_rma_desc *d,
                   struct smap_rma_op_args *a)
{
    if (d->target != MPI_PROC_NULL && SMAP_UNLIKELY(!smap_win_rank_ok(w, d->target)))
        return smap_win_bad_rank(w, d->target);
    int no_op = 0, rc = MPI_SUCCESS;
    if (is_acc(d->kind)) {
        rc = op_arg(d, a);
        no_op = d->op == MPI_NO_OP;
    }
    if (!rc)
        rc = count_arg(d->tcount, "target_count");
    if (!rc)
        rc = type_arg(d->ttype, "target_datatype", &a->ttype);
    a->tcount = d->tcount;
    if (!rc && d->kind != SMAP_RMA_GET && !no_op)
        rc = origin_arg(d, a);
    if (!rc && (d->kind == SMAP_RMA_GET || d->kind == SMAP_RMA_GACC || d->kind == SMAP_RMA_CAS))
        rc = result_arg(d, a);
    if (!rc && is_acc(d->kind))
        rc = acc_types(d, a, no_op);
    if (!rc && d->kind == SMAP_RMA_CAS)
        rc = cas_args(d, a);
    return rc;
}

int smap_rma_op_checked(struct MPI_ABI_Win *w, const struct smap_rma_desc *d, MPI_Request *req)
{
    if (req)
        *req = MPI_REQUEST_NULL;
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
    a.ttype = NULL;
    a.op = MPI_OP_NULL;
    int rc = op_args(w, d, &a);
    if (!rc)
        rc = smap_rma_op(w, d->kind, d->target, d->disp, &a);
    if (rc || !req)
        return rc;
    struct MPI_ABI_Request *r = smap_req_new(MPI_COMM_NULL);
    if (!r)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the request");
    r->p.kind = SMAP_PREQ_SEND;
    smap_preq_complete(&r->p);
    *req = (MPI_Request)r;
    return MPI_SUCCESS;
}
