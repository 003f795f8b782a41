/* Reduction operations: the object behind an MPI_Op handle and the engine
 * that applies one to typed buffers (used by MPI_Reduce_local now, by the
 * collectives and RMA accumulate later).
 *
 * Predefined ops are the standard ABI's small integers (MPI_SUM = 0x21 ...,
 * 0x20..0x3f); they index a static table.  User ops (MPI_Op_create/_c) are
 * heap objects told from garbage by a magic word, reference counted so that
 * an operation still in flight keeps its op alive after MPI_Op_free. */
#ifndef SMAP_MPI_OP_H
#define SMAP_MPI_OP_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#define SMAP_OP_MAGIC 0x4f505250u /* "OPRP" */

/* A user function bound to a context (another language's procedure: the
 * Fortran binding's ctx is the Fortran procedure, its fn the trampoline). */
typedef void smap_op_ctx_fn(void *ctx, void *in, void *inout, MPI_Count len, MPI_Datatype dt);

#define SMAP_OP_PREDEF_BASE 0x20
#define SMAP_OP_PREDEF_N    0x20

struct MPI_ABI_Op {
    uint32_t magic;
    int predefined;             /* 1: entry of the static table */
    int opx;                    /* predefined: enum smap_opx (op_internal.h); user: -1 */
    int commute;                /* user ops: as given to MPI_Op_create */
    int large;                  /* user ops: fn_c (MPI_Count length) */
    _Atomic int refs;           /* user ops: the handle + operations in flight */
    MPI_User_function *fn;      /* user ops, !large */
    MPI_User_function_c *fn_c;  /* user ops, large */
    smap_op_ctx_fn *fn_ctx;     /* user ops bound to a context: called instead */
    void *ctx;                  /* fn_ctx's first argument */
    const char *name;           /* "MPI_SUM", ..., "user op" */
};

/* The object behind a handle, or NULL for MPI_OP_NULL and anything that is
 * not a live op (a wild pointer is not always detected). */
struct MPI_ABI_Op *smap_op_get(MPI_Op h);
/* Name for error messages: "MPI_SUM", "user-defined op", "MPI_OP_NULL". */
const char *smap_op_name(MPI_Op h);

/* A new user op with one reference (the handle's), or NULL (out of memory).
 * Exactly one of fn / fn_c is non-NULL. */
struct MPI_ABI_Op *smap_op_create(MPI_User_function *fn, MPI_User_function_c *fn_c,
                                  int commute);
/* A user op calling fn_ctx(ctx, ...) (len at most INT_MAX per call unless
 * large), with one reference; NULL when out of memory. */
struct MPI_ABI_Op *smap_op_create_ctx(smap_op_ctx_fn *fn_ctx, void *ctx, int large, int commute);
void smap_op_retain(struct MPI_ABI_Op *op);   /* predefined: no-op */
void smap_op_release(struct MPI_ABI_Op *op);  /* frees at zero; predefined: no-op */

/* Whether `op` may combine `type`, as MPI 5.0 §6.9.2 lists the allowed
 * predefined op / basic type pairs (a derived type counts as the single
 * predefined type it is built from).  User ops take any type; MPI_REPLACE and
 * MPI_NO_OP any type (RMA).  Returns MPI_SUCCESS or MPI_ERR_OP (the pair is
 * not allowed) / MPI_ERR_TYPE (the type cannot be reduced elementwise:
 * mixed basic types, pairs inside a derived type, an unsupported optional
 * type); *why (may be NULL) then says why, for the message. */
int smap_op_check(MPI_Op op, MPI_Datatype type, const char **why);

/* inout[i] = in[i] op inout[i] for `count` elements of `type` (MPI's order;
 * both buffers have the layout of (count, type)).  op and type must be
 * valid handles; the pair is checked (smap_op_check) and its error class
 * returned without touching the buffers.  User functions are called with
 * the type handle as given; an int-count function sees chunks of at most
 * INT_MAX elements. */
/* The single predefined type t is built from, or NULL when it mixes
 * several or holds none (RMA accumulates work element by element on it). */
struct MPI_ABI_Datatype;
struct MPI_ABI_Datatype *smap_op_base_type(struct MPI_ABI_Datatype *t);

int smap_op_apply(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype type);

/* smap_op_check for one-sided accumulates, which also take MPI_SUM,
 * MPI_PROD, MPI_MIN and MPI_MAX on MPI_BYTE, and MINLOC/MAXLOC on derived
 * types of value-index pairs (as MPICH and Open MPI do): they combine
 * elements through the loops of smap_op_acc_type(basic type),
 * MPI_UINT8_T for MPI_BYTE, b otherwise, pair by pair. */
int smap_op_check_acc(MPI_Op op, MPI_Datatype type, const char **why);
struct MPI_ABI_Datatype *smap_op_acc_type(struct MPI_ABI_Datatype *b);

/* ---- The entry points' operations (op_api.c), called once the handles,
 * the count and the pointers are checked: MPI_SUCCESS or an error class,
 * the reason recorded (base/why.h). ---- */
/* MPI_Op_create(_c): exactly one of fn / fn_c is given (else MPI_ERR_ARG). */
int smap_op_create_into(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute,
                        MPI_Op *op);
/* MPI_Op_free of the program's handle *op to o (a predefined op: MPI_ERR_OP). */
int smap_op_free_handle(MPI_Op *op, struct MPI_ABI_Op *o);
/* MPI_Reduce_local: datatype/op are the handles, t/o their objects. */
int smap_op_reduce_local(const void *inbuf, void *inoutbuf, MPI_Count count,
                         MPI_Datatype datatype, struct MPI_ABI_Datatype *t, MPI_Op op,
                         struct MPI_ABI_Op *o);

#endif
