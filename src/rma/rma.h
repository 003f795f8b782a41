/* One-sided communication (DESIGN.md D12): the window object and the
 * interface the bindings call (src/binding/rma_*.c check the arguments,
 * these functions move data and synchronise).
 *
 * Every function returns MPI_SUCCESS or an MPI error class, with
 * smap_why() saying why in words (static text); the binding raises it
 * on the window's error handler (smap_rma_raise).
 *
 * On the node every operation is complete, at the origin and at the
 * target, when the call returns: a put is one copy into the target's
 * memory (through its translated address, or CMA), an accumulate a series
 * of C11 atomics or a locked read-modify-write.  Flushes are therefore
 * memory fences, and request-based operations return completed requests.
 * Between nodes (remote.c) puts complete remotely only at the next flush
 * (their acknowledgements); everything else still completes on return. */
#ifndef SMAP_RMA_RMA_H
#define SMAP_RMA_RMA_H

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/why.h"
#include "dtype/dtype.h"

#define SMAP_WIN_MAGIC 0x57494e44u   /* "WIND" */

struct MPI_ABI_Group;
struct MPI_ABI_Info;
struct smap_attr;
struct MPI_ABI_Comm;
struct smap_rma_cb;
struct smap_rma_ops;

/* How an origin reaches one target's window memory. */
enum smap_rma_path {
    SMAP_RMA_DIRECT = 0,   /* load/store through the translated address */
    SMAP_RMA_CMA = 1,      /* process_vm_readv/writev */
    SMAP_RMA_AM = 2        /* neither: the target serves requests in its progress (am.c) */
};

/* One target as this rank sees it. */
struct smap_rma_target {
    const struct smap_rma_ops *ops;  /* the backend serving it (node: smap) */
    int lr;                          /* node-local rank */
    int path;                        /* enum smap_rma_path (not for dynamic windows) */
    int atomics;                     /* accumulates may use C11 atomics on its memory */
    uintptr_t base;                  /* window base in the target's address space */
    MPI_Aint size, disp_unit;
    char *local;                     /* DIRECT: base as mapped here */
    struct smap_rma_cb *cb;          /* its control block, as mapped here */
    uint64_t fence_base;             /* its fence word at creation */
    /* on another node (remote.c): path is SMAP_RMA_AM, cb and local NULL */
    int remote;
    int world;                       /* its job rank */
    uint64_t rcb;                    /* its control block's address there: names the window */
    uint64_t puts_sent;              /* put messages sent ... */
    _Atomic uint64_t puts_acked;     /* ... and acknowledged (flush waits for equality) */
    _Atomic int put_err;             /* first error a put acknowledgement reported */
    /* its window registered for RDMA (net/rma.c): puts and gets of few
     * blocks are fi_write/fi_read at rbase + (address - base), key rkey;
     * each write counts in puts_sent/puts_acked too */
    int rdma;
    uint64_t rbase, rkey;
    /* dynamic window there (remote.c): the regions whose keys we fetched,
     * dropped when the target detaches one (its N_INVAL message bumps
     * dkey_gen: a key fetched across a bump is not cached) */
    struct smap_rma_dkey *dkeys;
    int ndkeys;
    uint64_t dkey_gen;
};

/* Per-target operation table: what a backend implements.  The node's
 * (src/rma/node.c) moves data through smap; remote.c's serves targets on
 * other nodes (puts complete remotely at its flush).  Arguments are checked; taddr is the target
 * address (base + disp * disp_unit), range-checked. */
struct smap_rma_op_args {
    const void *oaddr;           /* origin buffer (put/acc) */
    MPI_Count ocount;
    smap_dtype_t *otype;
    void *raddr;                 /* result buffer (get, get_acc, fop, cas) */
    MPI_Count rcount;
    smap_dtype_t *rtype;
    const void *caddr;           /* compare buffer (cas) */
    uintptr_t taddr;
    MPI_Count tcount;
    smap_dtype_t *ttype;
    MPI_Op op;                   /* accumulates */
};
struct smap_rma_ops {
    int (*put)(MPI_Win w, int target, const struct smap_rma_op_args *a);
    int (*get)(MPI_Win w, int target, const struct smap_rma_op_args *a);
    /* accumulate (raddr NULL) and get_accumulate; fetch_and_op is a
     * get_accumulate of one element, compare_and_swap its own */
    int (*acc)(MPI_Win w, int target, const struct smap_rma_op_args *a);
    int (*cas)(MPI_Win w, int target, const struct smap_rma_op_args *a);
    /* passive target: lock/unlock (type MPI_LOCK_*), remote completion */
    int (*lock)(MPI_Win w, int target, int type);
    int (*unlock)(MPI_Win w, int target, int type);
    int (*flush)(MPI_Win w, int target);
};

/* Info hints a window remembers (MPI_Win_get_info answers them). */
struct smap_rma_hints {
    int no_locks, same_size, same_disp_unit, alloc_shared_noncontig;
    char accumulate_ordering[64];   /* "rar,raw,war,waw" by default */
    char accumulate_ops[32];        /* "same_op_no_op" by default */
};

struct MPI_ABI_Win {
    uint32_t magic;
    int flavor;                  /* MPI_WIN_FLAVOR_* */
    int n, me;                   /* group size, our rank in it */
    struct MPI_ABI_Group *group; /* one reference */
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
    struct smap_attr *attrs;
    struct smap_rma_hints hints;
    /* our own window */
    void *base;
    MPI_Aint size, disp_unit;
    void *mem;                   /* what Win_allocate took (arena or heap) */
    size_t mem_len;
    int mem_in_arena;
    struct smap_rma_cb *cb;      /* our control block (arena) */
    size_t cb_len;
    struct smap_rma_target *t;   /* per group rank */
    /* epochs (this rank as origin and as target) */
    int fence_open;              /* a fence opened an access/exposure epoch */
    int fence_used;              /* ... and an operation was issued in it */
    int lock_all;                /* inside MPI_Win_lock_all (1 + nocheck) */
    int nlocks;                  /* targets locked with MPI_Win_lock */
    unsigned char *locked;       /* per target: 0, or MPI_LOCK_* - 300 (+4 nocheck) */
    int *start_grp, nstart;      /* access epoch of MPI_Win_start, or nstart -1 */
    int *post_grp, npost;        /* exposure epoch of MPI_Win_post, or npost -1 */
    int start_nocheck, post_nocheck;
    uint64_t *post_seen;         /* per target: posts consumed by our starts */
    uint64_t *done_seen;         /* per origin: completes consumed by our waits */
    uint64_t fence_seq;
    int am_served;               /* registered with am.c: peers may post requests */
    int net;                     /* some targets are on other nodes (remote.c) */
    _Atomic uint64_t *net_fence; /* per rank: the last fence it announced to us */
    void *net_mr;                /* our memory registered for peers' RDMA (remote.c) */
    struct smap_rma_dyn_mr *dyn_mr; /* dynamic: our attached regions registered on demand */
    unsigned char *key_given;    /* dynamic: per rank, it holds one of our region keys */
    /* what the predefined attributes point to */
    MPI_Aint attr_size;
    int attr_disp_unit, attr_flavor, attr_model;
};

/* The object behind a handle, or NULL (MPI_WIN_NULL, freed, garbage). */
static inline struct MPI_ABI_Win *smap_win_get(MPI_Win h)
{
    struct MPI_ABI_Win *w = (struct MPI_ABI_Win *)h;
    if ((uintptr_t)h < 65536 || ((uintptr_t)h & 7) || w->magic != SMAP_WIN_MAGIC)
        return NULL;
    return w;
}

/* Whether rank names a member of w's group; else the error of a bad one. */
static inline int smap_win_rank_ok(const struct MPI_ABI_Win *w, int rank)
{
    return (unsigned)rank < (unsigned)w->n;
}
int smap_win_bad_rank(const struct MPI_ABI_Win *w, int rank);

/* Raises error class cls on w's error handler ("func: message"), as
 * smap_err_raise does for communicators. */
int smap_win_raise(MPI_Win w, int cls, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Runs w's error handler with code (MPI_Win_call_errhandler). */
void smap_win_invoke(MPI_Win w, int code);

/* ---- creation (win.c), collective over comm ---- */
/* flavor CREATE: base/size given; ALLOCATE, SHARED: *baseptr receives the
 * memory; DYNAMIC: no memory.  info may be NULL. */
int smap_win_create(int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit,
                    struct MPI_ABI_Info *info, struct MPI_ABI_Comm *comm, void **baseptr,
                    MPI_Win *out);
int smap_win_free(MPI_Win *h);
/* These three check the entry points' arguments (rank, flavor, size, base). */
int smap_win_shared_query(MPI_Win w, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *base);
int smap_win_attach(MPI_Win w, void *base, MPI_Aint size);
int smap_win_detach(MPI_Win w, const void *base);
/* ---- the entry points' window calls (win_api.c): the arguments as
 * given, checked there; creation's errors belong to the communicator ---- */
int smap_win_create_checked(int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit,
                            MPI_Info info, struct MPI_ABI_Comm *c, void *baseptr, MPI_Win *win);
/* Attributes' delete callbacks, then smap_win_free; *win MPI_WIN_NULL. */
int smap_win_free_checked(struct MPI_ABI_Win *w, MPI_Win *win);
int smap_win_shared_query_int(struct MPI_ABI_Win *w, int rank, MPI_Aint *size, int *disp_unit,
                              void *baseptr);

/* ---- what a window carries (win_props.c).  The attribute calls and
 * smap_win_get_name raise their own errors in function F's name. ---- */
int smap_win_get_attr(struct MPI_ABI_Win *w, int keyval, void *attribute_val, int *flag,
                      const char *F);
int smap_win_set_attr(struct MPI_ABI_Win *w, int keyval, void *attribute_val, const char *F);
int smap_win_delete_attr(struct MPI_ABI_Win *w, int keyval, const char *F);
int smap_win_get_info_into(struct MPI_ABI_Win *w, MPI_Info *info_used);
void smap_win_set_name(struct MPI_ABI_Win *w, const char *name);
int smap_win_get_name(MPI_Win h, char *name, int *resultlen, const char *F);
void smap_win_group_of(struct MPI_ABI_Win *w, MPI_Group *group);
int smap_win_set_errhandler(struct MPI_ABI_Win *w, MPI_Errhandler errhandler);
void smap_win_get_errhandler(struct MPI_ABI_Win *w, MPI_Errhandler *errhandler);

/* Hints: set (only those that may change after creation) and get. */
void smap_win_set_hints(struct MPI_ABI_Win *w, const struct MPI_ABI_Info *info);
struct MPI_ABI_Info *smap_win_get_hints(const struct MPI_ABI_Win *w);

/* ---- operations (ops.c) ---- */
enum smap_rma_kind { SMAP_RMA_PUT, SMAP_RMA_GET, SMAP_RMA_ACC, SMAP_RMA_GACC, SMAP_RMA_CAS };
/* Checks the epoch and the target range, then runs the operation.
 * target_rank may be MPI_PROC_NULL (nothing happens). */
int smap_rma_op(MPI_Win w, int kind, int target_rank, MPI_Aint disp,
                struct smap_rma_op_args *a);

/* An operation as the entry point received it (op_args.c checks it):
 * origin (put, accumulates), result (get: the origin buffer; get-
 * accumulate, fetch-and-op, compare-and-swap), compare buffer (cas). */
struct smap_rma_desc {
    int kind;                    /* enum smap_rma_kind */
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
/* Checks d's arguments, runs it; req non-NULL: the request-based form,
 * *req a completed request (MPI_REQUEST_NULL on error). */
int smap_rma_op_checked(struct MPI_ABI_Win *w, const struct smap_rma_desc *d, MPI_Request *req);

/* ---- synchronisation (sync.c); the entry points' arguments as given:
 * assert bits, lock types, MPI_PROC_NULL and ranks are checked there ---- */
int smap_win_fence(MPI_Win w, int assert);
int smap_win_post(MPI_Win w, struct MPI_ABI_Group *g, int assert);
int smap_win_start(MPI_Win w, struct MPI_ABI_Group *g, int assert);
int smap_win_complete(MPI_Win w);
int smap_win_wait(MPI_Win w);
int smap_win_test(MPI_Win w, int *flag);
int smap_win_lock(MPI_Win w, int type, int rank, int assert);
int smap_win_unlock(MPI_Win w, int rank);
int smap_win_lock_all(MPI_Win w, int assert);
int smap_win_unlock_all(MPI_Win w);
/* rank SMAP_WIN_ALL: all targets; local: only local completion wanted */
#define SMAP_WIN_ALL (-1)
int smap_win_flush(MPI_Win w, int rank, int local);
int smap_win_sync(MPI_Win w);

#endif
