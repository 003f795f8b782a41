/* Window creation and destruction, shared-memory queries, dynamic
 * attach/detach (MPI 5.0 §12.2).  The queries and attach/detach take the
 * entry points' arguments as given and check them; creation's argument
 * rules are win_api.c's.
 *
 * Creation is one exchange over the communicator: every rank publishes its
 * window (base, size, displacement unit), its control block and how peers
 * may reach its memory; each rank then builds its target table.  A second
 * exchange lets every rank agree on success (a rank that cannot reach some
 * target makes the window fail everywhere instead of hanging later) and,
 * for MPI_Win_allocate_shared, carries the one contiguous allocation that
 * rank 0 makes for everybody.
 *
 * Where the memory comes from: MPI_Win_allocate(_shared) take it from our
 * one-sided region (arena.c), which every node peer maps whatever
 * SMAP_EXPOSE and SMAP_COPY say, so those windows are always load/store;
 * MPI_Win_create over the program's memory is load/store when that memory
 * is exposed and SMAP_COPY=direct, CMA when SMAP_COPY allows it and the
 * probe found it working, and refused otherwise. */
#define _GNU_SOURCE
#include "rma/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/free_later.h"
#include "base/wait.h"
#include "boot/boot.h"
#include "coll/coll.h"
#include "coll/nbc/nbc.h"
#include "mpi/attr.h"
#include "mpi/comm.h"
#include "mpi/group.h"
#include "mpi/info.h"
#include "mpi/request.h"
#include "smap/remote.h"

/* What a rank publishes at creation. */
struct win_desc {
    uint64_t base, size, disp_unit, cb, fence;
    uint32_t direct, cma;
    uint64_t rbase, rkey;   /* registered for RDMA from other nodes (rdma: 1) */
    uint64_t rdma;
};

/* ---- exchanges over the communicator ---- */

static int allgather(struct MPI_ABI_Comm *c, const void *mine, void *all, size_t bytes)
{
    smap_dtype_t *b = smap_dtype_get(MPI_BYTE);
    struct smap_cvec none = { NULL, 0 };
    if (c->slot >= 0) {
        int rc = smap_coll_allgather(mine, (MPI_Count)bytes, b, all, (MPI_Count)bytes, none, none,
                                     b, c);
        return rc ? smap_fail(rc, smap_why()) : MPI_SUCCESS;
    }
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = smap_nbc_allgather(mine, (MPI_Count)bytes, b, all, (MPI_Count)bytes, none, none, b,
                                c, &r);
    if (rc)
        return smap_fail(rc, smap_why());
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    while (!smap_req_ready(r)) {
        smap_p2p_progress();
        smap_wait_step(&w);
    }
    rc = smap_req_finish(&r, MPI_STATUS_IGNORE);
    return rc ? smap_fail(rc, "the creation exchange failed") : MPI_SUCCESS;
}

/* ---- reachability of our own memory ---- */

/* Whether peers may load/store [p, p+len) of ours. */
static int own_direct(const void *p, size_t len)
{
    if (len == 0 || smap_rma_in_arena(p, len))
        return 1;
    if (smap_caps.copy_level != SMAP_COPY_DIRECT)
        return 0;
    uintptr_t a = (uintptr_t)p;
    for (int k = 0; k < SMAP_REGION_KINDS; k++) {
        const struct smap_region *r = smap_region_self((enum smap_region_kind)k);
        if (r->len && a >= r->base && a - r->base <= r->len && len <= r->len - (a - r->base))
            return 1;
    }
    return 0;
}

static int own_cma(void)
{
    return smap_caps.copy_level <= SMAP_COPY_CMA && smap_caps.cma_ok;
}

/* Node-local rank of comm rank i, or -1 when it lives on another node. */
static int local_rank_of(struct MPI_ABI_Comm *c, int i)
{
    if (c->size == 1 && i == c->rank)
        return smap_my_local_rank;
    int w = smap_group_world_rank(c->group, i);
    if (w >= smap_job.size || !smap_job.node_of || smap_job.node_of[w] != smap_job.node)
        return -1;
    for (int j = 0; j < smap_job.local_size; j++)
        if (smap_job.local_ranks[j] == w)
            return j;
    return -1;
}

/* ---- hints ---- */

static int info_bool(const struct MPI_ABI_Info *info, const char *key, int dflt)
{
    const char *v = info ? smap_info_lookup(info, key) : NULL;
    if (!v)
        return dflt;
    return strcmp(v, "true") == 0;
}

void smap_win_set_hints(struct MPI_ABI_Win *w, const struct MPI_ABI_Info *info)
{
    struct smap_rma_hints *h = &w->hints;
    h->no_locks = info_bool(info, "no_locks", h->no_locks);
    const char *v = info ? smap_info_lookup(info, "accumulate_ordering") : NULL;
    if (v)
        snprintf(h->accumulate_ordering, sizeof h->accumulate_ordering, "%s", v);
    v = info ? smap_info_lookup(info, "accumulate_ops") : NULL;
    if (v && (!strcmp(v, "same_op") || !strcmp(v, "same_op_no_op")))
        snprintf(h->accumulate_ops, sizeof h->accumulate_ops, "%s", v);
}

struct MPI_ABI_Info *smap_win_get_hints(const struct MPI_ABI_Win *w)
{
    struct MPI_ABI_Info *info = smap_info_new();
    if (!info)
        return NULL;
    const struct smap_rma_hints *h = &w->hints;
    static const char *const tf[2] = { "false", "true" };
    if (smap_info_set(info, "no_locks", tf[!!h->no_locks]) ||
        smap_info_set(info, "accumulate_ordering", h->accumulate_ordering) ||
        smap_info_set(info, "accumulate_ops", h->accumulate_ops) ||
        smap_info_set(info, "same_size", tf[!!h->same_size]) ||
        smap_info_set(info, "same_disp_unit", tf[!!h->same_disp_unit]) ||
        (w->flavor == MPI_WIN_FLAVOR_SHARED &&
         smap_info_set(info, "alloc_shared_noncontig", tf[!!h->alloc_shared_noncontig]))) {
        smap_info_free(info);
        return NULL;
    }
    return info;
}

/* ---- creation ---- */

/* Our attach table (owner side). */
static struct smap_rma_dyn *own_table(const struct smap_rma_cb *cb)
{
    return (struct smap_rma_dyn *)(uintptr_t)cb->dyn_tab;
}

static void destroy(struct MPI_ABI_Win *w)
{
    if (w->am_served)
        smap_rma_am_unregister(w);
    if (w->net)
        smap_rma_net_unregister(w);
    free((void *)w->net_fence);
    if (w->mem) {
        if (w->mem_in_arena)
            smap_rma_arena_free(w->mem, w->mem_len);
        else
            free(w->mem);
    }
    if (w->cb && w->cb->dyn_tab)
        smap_rma_arena_free(own_table(w->cb), w->cb->dyn_cap * sizeof(struct smap_rma_dyn));
    smap_rma_cb_free(w->cb, w->cb_len);
    if (w->group)
        smap_group_release(w->group);
    free(w->t);
    free(w->locked);
    free(w->start_grp);
    free(w->post_grp);
    free(w->post_seen);
    free(w->done_seen);
    w->magic = 0;
    smap_free_later(w);   /* a stale handle reads the cleared magic for a while */
}

static struct MPI_ABI_Win *new_win(int flavor, struct MPI_ABI_Comm *c, MPI_Aint disp_unit,
                                   const struct MPI_ABI_Info *info)
{
    struct MPI_ABI_Win *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    int n = c->size;
    w->magic = SMAP_WIN_MAGIC;
    w->flavor = flavor;
    w->n = n;
    w->me = c->rank;
    w->group = c->group;
    smap_group_retain(c->group);
    /* MPI 5.0 §9.3: windows start with MPI_ERRORS_ARE_FATAL */
    w->errhandler = MPI_ERRORS_ARE_FATAL;
    w->disp_unit = disp_unit;
    w->nstart = w->npost = -1;
    snprintf(w->hints.accumulate_ordering, sizeof w->hints.accumulate_ordering,
             "rar,raw,war,waw");
    snprintf(w->hints.accumulate_ops, sizeof w->hints.accumulate_ops, "same_op_no_op");
    w->hints.same_size = info_bool(info, "same_size", 0);
    w->hints.same_disp_unit = info_bool(info, "same_disp_unit", 0);
    w->hints.alloc_shared_noncontig = info_bool(info, "alloc_shared_noncontig", 0);
    smap_win_set_hints(w, info);
    w->cb_len = smap_rma_cb_bytes(n);
    w->t = calloc((size_t)n, sizeof *w->t);
    w->locked = calloc((size_t)n, 1);
    w->post_seen = calloc((size_t)n, sizeof *w->post_seen);
    w->done_seen = calloc((size_t)n, sizeof *w->done_seen);
    w->cb = smap_rma_cb_alloc(w->cb_len);
    if (!w->t || !w->locked || !w->post_seen || !w->done_seen || !w->cb) {
        destroy(w);
        return NULL;
    }
    /* a recycled block may come from a window freed inside an epoch */
    atomic_store_explicit(&w->cb->exposed, 0, memory_order_relaxed);
    return w;
}

/* Our memory for ALLOCATE: the arena, else the heap. */
static int allocate_own(struct MPI_ABI_Win *w, MPI_Aint size)
{
    if (size == 0)
        return MPI_SUCCESS;
    w->mem = smap_rma_arena_alloc((size_t)size);
    w->mem_in_arena = w->mem != NULL;
    if (!w->mem)
        w->mem = aligned_alloc(64, ((size_t)size + 63) & ~(size_t)63);
    if (!w->mem)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the window");
    w->mem_len = (size_t)size;
    w->base = w->mem;
    return MPI_SUCCESS;
}

/* Builds our view of target i from its description.  Returns 0, or -1
 * when we cannot reach it. */
static int build_target(struct MPI_ABI_Win *w, int i, int lr, int mem_lr,
                        const struct win_desc *d)
{
    struct smap_rma_target *t = &w->t[i];
    t->ops = &smap_rma_node_ops;
    t->lr = lr;
    t->base = (uintptr_t)d->base;
    t->size = (MPI_Aint)d->size;
    t->disp_unit = (MPI_Aint)d->disp_unit;
    t->fence_base = d->fence;
    if (lr < 0) {   /* on another node: requests served there (remote.c) */
        t->ops = &smap_rma_net_ops;
        t->remote = 1;
        t->world = smap_group_world_rank(w->group, i);
        t->rcb = d->cb;
        t->path = SMAP_RMA_AM;
        t->rdma = d->rdma != 0;
        t->rbase = d->rbase;
        t->rkey = d->rkey;
        return 0;
    }
    t->cb = smap_remote_inline(lr, (const void *)(uintptr_t)d->cb, w->cb_len);
    if (!t->cb)
        return -1;
    t->atomics = d->direct != 0;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        t->path = SMAP_RMA_DIRECT;   /* decided per attached region */
        return 0;
    }
    if (i == w->me || d->direct) {
        t->path = SMAP_RMA_DIRECT;
        t->local = d->size ? smap_remote_inline(mem_lr, (const void *)(uintptr_t)d->base,
                                                (size_t)d->size)
                           : (char *)(uintptr_t)d->base;
        if (t->local || !d->size)
            return 0;
        t->atomics = 0;
    }
    t->path = d->cma ? SMAP_RMA_CMA : SMAP_RMA_AM;
    return 0;
}

struct win_agree {
    uint64_t ok;          /* 0: this rank failed; else 1 */
    uint64_t shared;      /* rank 0, SHARED flavor: the whole allocation */
    uint64_t cls;
};

int smap_win_create(int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit,
                    struct MPI_ABI_Info *info, struct MPI_ABI_Comm *c, void **baseptr,
                    MPI_Win *out)
{
    int n = c->size, net = 0;
    for (int i = 0; i < n; i++)
        net |= local_rank_of(c, i) < 0;
    if (net && flavor == MPI_WIN_FLAVOR_SHARED)
        return smap_fail(MPI_ERR_RMA_SHARED,
                             "the communicator spans several nodes: shared memory needs one "
                             "node (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED gives such a "
                             "communicator)");
    if (!smap_rma_region())
        return smap_fail(MPI_ERR_INTERN, "the one-sided region does not exist");
    struct MPI_ABI_Win *w = new_win(flavor, c, disp_unit, info);
    if (!w)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the window");
    int rc = MPI_SUCCESS;
    if (net) {
        /* before the exchange: a peer may send requests as soon as it
         * knows our control block */
        w->net_fence = calloc((size_t)n, sizeof *w->net_fence);
        rc = w->net_fence ? smap_rma_net_register(w)
                          : smap_fail(MPI_ERR_NO_MEM, "out of memory for the window");
        w->net = rc == MPI_SUCCESS;
        if (rc) {
            destroy(w);
            return rc;
        }
    }
    if (flavor == MPI_WIN_FLAVOR_CREATE) {
        w->base = base;
        w->size = size;
    } else if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
        w->size = size;
        rc = allocate_own(w, size);
    } else if (flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        w->base = MPI_BOTTOM;
        w->disp_unit = 1;
    } else {
        w->size = size;
    }
    struct win_desc mine = {
        .base = (uintptr_t)w->base, .size = (uint64_t)w->size,
        .disp_unit = (uint64_t)w->disp_unit, .cb = (uintptr_t)w->cb,
        .fence = atomic_load_explicit(&w->cb->fence, memory_order_relaxed),
        .direct = flavor == MPI_WIN_FLAVOR_DYNAMIC || flavor == MPI_WIN_FLAVOR_SHARED ||
                  own_direct(w->base, (size_t)w->size),
        .cma = (uint32_t)own_cma(),
    };
    if (net && rc == MPI_SUCCESS)   /* peers on other nodes may write and read it directly */
        mine.rdma = (uint64_t)smap_rma_net_expose(w, &mine.rbase, &mine.rkey);
    struct win_desc *all = calloc((size_t)n, sizeof *all);
    if (!all) {
        destroy(w);
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the window");
    }
    int xrc = allgather(c, &mine, all, sizeof mine);
    if (xrc) {
        free(all);
        destroy(w);
        return xrc;
    }
    struct win_agree agree = { .ok = rc == MPI_SUCCESS, .cls = (uint64_t)rc };
    if (flavor == MPI_WIN_FLAVOR_SHARED && w->me == 0 && agree.ok) {
        size_t total = 0;
        for (int i = 0; i < n; i++)
            total += (size_t)all[i].size;
        void *p = total ? smap_rma_arena_alloc(total) : NULL;
        if (total && !p) {
            agree.ok = 0;
            agree.cls = MPI_ERR_NO_MEM;
        }
        w->mem = p;
        w->mem_len = total;
        w->mem_in_arena = 1;
        agree.shared = (uintptr_t)p;
    }
    for (int i = 0; i < n && agree.ok && flavor != MPI_WIN_FLAVOR_SHARED; i++)
        if (build_target(w, i, local_rank_of(c, i), local_rank_of(c, i), &all[i]) != 0) {
            agree.ok = 0;
            agree.cls = MPI_ERR_UNSUPPORTED_OPERATION;
        }
    struct win_agree *ag = calloc((size_t)n, sizeof *ag);
    xrc = ag ? allgather(c, &agree, ag, sizeof agree) : MPI_ERR_NO_MEM;
    int failed = xrc != MPI_SUCCESS;
    rc = xrc;
    for (int i = 0; i < n && !failed; i++)
        if (!ag[i].ok) {
            failed = 1;
            rc = (int)ag[i].cls;
            smap_fail(rc, rc == MPI_ERR_NO_MEM
                                  ? "out of memory for the window on some rank"
                                  : "some rank cannot map a target's control block");
        }
    if (!failed && flavor == MPI_WIN_FLAVOR_SHARED) {
        /* rank 0's allocation, as mapped here, cut in rank order */
        uint64_t off = 0;
        for (int i = 0; i < n; i++) {
            all[i].base = ag[0].shared ? ag[0].shared + off : 0;
            off += all[i].size;
            all[i].direct = 1;
            /* the memory is rank 0's allocation, reached through its view */
            if (build_target(w, i, local_rank_of(c, i), local_rank_of(c, 0), &all[i]) != 0 ||
                (all[i].size && !w->t[i].local)) {
                failed = 1;
                rc = smap_fail(MPI_ERR_INTERN, "rank 0's shared allocation is not mapped");
            }
        }
        w->base = w->t[w->me].local;
    }
    free(all);
    free(ag);
    if (failed) {
        destroy(w);
        return rc;
    }
    if (baseptr)
        *baseptr = w->base;
    if (!mine.direct && !mine.cma) {
        w->am_served = 1;
        smap_rma_am_register(w);
    }
    *out = (MPI_Win)w;
    return MPI_SUCCESS;
}

int smap_win_free(MPI_Win *h)
{
    struct MPI_ABI_Win *w = smap_win_get(*h);
    if (w->nlocks || w->lock_all || w->nstart >= 0 || w->npost >= 0)
        return smap_fail(MPI_ERR_RMA_SYNC, "an access or exposure epoch is still open "
                                               "(unlock, complete or wait first)");
    /* nobody may still access our memory or control block when it goes */
    int rc = smap_rma_barrier(w);
    if (rc)
        return rc;
    destroy(w);
    *h = MPI_WIN_NULL;
    return MPI_SUCCESS;
}

int smap_win_shared_query(MPI_Win h, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *base)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    if (!base)
        return smap_fail(MPI_ERR_ARG, "baseptr is NULL");
    if (rank != MPI_PROC_NULL && !smap_win_rank_ok(w, rank))
        return smap_win_bad_rank(w, rank);
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return smap_fail(MPI_ERR_RMA_FLAVOR, "dynamic windows have no memory to query");
    if (rank == MPI_PROC_NULL) {
        rank = 0;
        for (int i = 0; i < w->n; i++)
            if (w->t[i].size > 0) {
                rank = i;
                break;
            }
    }
    const struct smap_rma_target *t = &w->t[rank];
    int ok = w->flavor != MPI_WIN_FLAVOR_DYNAMIC && t->path == SMAP_RMA_DIRECT &&
             (t->local || !t->size);
    *size = ok ? t->size : 0;
    *disp_unit = t->disp_unit;
    *(void **)base = ok ? t->local : NULL;
    return MPI_SUCCESS;
}

/* ---- dynamic windows ---- */

/* The first entry of tab[0, n) whose base is above a. */
static uint32_t dyn_upper(const struct smap_rma_dyn *tab, uint32_t n, uint64_t a)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (tab[mid].base <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Table changes run between an odd and the next even dyn_gen: a peer
 * that read across one reads again. */
static void dyn_begin(struct smap_rma_cb *cb, uint64_t *g)
{
    *g = atomic_load_explicit(&cb->dyn_gen, memory_order_relaxed);
    atomic_store_explicit(&cb->dyn_gen, *g + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}

static void dyn_end(struct smap_rma_cb *cb, uint64_t g)
{
    atomic_store_explicit(&cb->dyn_gen, g + 2, memory_order_release);
}

/* Room for one more region: a table of twice the capacity, in our
 * one-sided region (peers map it), published under the generation. */
static int dyn_grow(struct smap_rma_cb *cb)
{
    uint32_t cap = cb->dyn_cap ? 2 * cb->dyn_cap : SMAP_RMA_DYN_FIRST;
    if (cap <= cb->dyn_cap)
        return smap_fail(MPI_ERR_RMA_ATTACH, "too many regions attached");
    struct smap_rma_dyn *old = own_table(cb);
    struct smap_rma_dyn *t = smap_rma_arena_alloc((size_t)cap * sizeof *t);
    if (!t)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the attach table");
    if (cb->ndyn)
        memcpy(t, old, (size_t)cb->ndyn * sizeof *t);
    uint64_t g;
    uint32_t old_cap = cb->dyn_cap;
    dyn_begin(cb, &g);
    cb->dyn_tab = (uintptr_t)t;
    cb->dyn_cap = cap;
    dyn_end(cb, g);
    /* a peer still reading the old one sees the generation move and retries */
    smap_rma_arena_free(old, (size_t)old_cap * sizeof *old);
    return MPI_SUCCESS;
}

static int overlap(const struct smap_rma_dyn *d, uint64_t a, MPI_Aint size)
{
    return a < d->base + d->size && d->base < a + (uint64_t)size;
}

int smap_win_attach(MPI_Win h, void *base, MPI_Aint size)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return smap_fail(MPI_ERR_RMA_FLAVOR, "the window is not dynamic");
    if (size < 0)
        return smap_failf(MPI_ERR_SIZE, "size %lld is negative", (long long)size);
    if (!base && size > 0)
        return smap_fail(MPI_ERR_BASE, "base is NULL");
    struct smap_rma_cb *cb = w->cb;
    uintptr_t a = (uintptr_t)base;
    int direct = own_direct(base, (size_t)size);
    if (!direct && !own_cma() && !w->am_served) {
        w->am_served = 1;   /* peers will post requests for this memory */
        smap_rma_am_register(w);
    }
    const struct smap_rma_dyn *tab = own_table(cb);
    uint32_t at = dyn_upper(tab, cb->ndyn, a);
    /* the table is sorted and disjoint: only the neighbours can overlap */
    if ((at > 0 && overlap(&tab[at - 1], a, size)) ||
        (at < cb->ndyn && overlap(&tab[at], a, size)))
        return smap_fail(MPI_ERR_RMA_ATTACH, "the region overlaps one already attached");
    if (cb->ndyn == cb->dyn_cap) {
        int rc = dyn_grow(cb);
        if (rc)
            return rc;
    }
    struct smap_rma_dyn *t = own_table(cb);
    uint64_t g;
    dyn_begin(cb, &g);
    memmove(&t[at + 1], &t[at], (size_t)(cb->ndyn - at) * sizeof *t);
    t[at] = (struct smap_rma_dyn){ a, (uint64_t)size, (uint32_t)direct, (uint32_t)own_cma() };
    cb->ndyn++;
    dyn_end(cb, g);
    return MPI_SUCCESS;
}

int smap_win_detach(MPI_Win h, const void *base)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return smap_fail(MPI_ERR_RMA_FLAVOR, "the window is not dynamic");
    struct smap_rma_cb *cb = w->cb;
    struct smap_rma_dyn *t = own_table(cb);
    uintptr_t a = (uintptr_t)base;
    uint32_t i = dyn_upper(t, cb->ndyn, a);
    if (i-- > 0 && t[i].base == a) {
        if (w->net)
            smap_rma_net_detach(w, a);
        uint64_t g;
        dyn_begin(cb, &g);
        memmove(&t[i], &t[i + 1], (size_t)(cb->ndyn - i - 1) * sizeof *t);
        cb->ndyn--;
        dyn_end(cb, g);
        return MPI_SUCCESS;
    }
    return smap_fail(MPI_ERR_RMA_ATTACH, "base is not the start of an attached region");
}

int smap_rma_dyn_own(struct MPI_ABI_Win *w, uintptr_t addr, size_t len, struct smap_rma_dyn *d)
{
    const struct smap_rma_dyn *t = own_table(w->cb);
    uint32_t i = dyn_upper(t, w->cb->ndyn, addr);
    if (i == 0 || addr - t[i - 1].base > t[i - 1].size ||
        len > t[i - 1].size - (addr - t[i - 1].base))
        return 0;
    *d = t[i - 1];
    return 1;
}

/* What a range of a peer's table resolves to. */
struct dyn_span {
    int found, direct, cma;
};

/* [addr, addr+len) in tab[0, n) (a consistent copy or not: the caller
 * checks the generation): the region holding addr, then the regions that
 * follow it without a gap until the range ends. */
static struct dyn_span dyn_cover(const struct smap_rma_dyn *tab, uint32_t n, uint64_t addr,
                                 uint64_t len)
{
    struct dyn_span s = { 0, 1, 1 };
    uint32_t i = dyn_upper(tab, n, addr);
    if (i == 0 || addr - tab[i - 1].base > tab[i - 1].size)
        return s;
    uint64_t end = addr + len, covered = tab[i - 1].base + tab[i - 1].size;
    s.direct = (int)tab[i - 1].direct;
    s.cma = (int)tab[i - 1].cma;
    for (; covered < end && i < n && tab[i].base == covered; i++) {
        covered += tab[i].size;
        s.direct &= (int)tab[i].direct;
        s.cma &= (int)tab[i].cma;
    }
    s.found = end >= addr && covered >= end;
    return s;
}

int smap_rma_dyn_resolve(struct MPI_ABI_Win *w, int target, uintptr_t addr, size_t len,
                         int *path, char **local, int *atomics)
{
    struct smap_rma_target *t = &w->t[target];
    struct smap_rma_cb *cb = t->cb;
    for (;;) {
        uint64_t g = atomic_load_explicit(&cb->dyn_gen, memory_order_acquire);
        if (g & 1) {
            smap_cpu_relax();
            continue;
        }
        uint32_t nd = cb->ndyn, cap = cb->dyn_cap;
        const struct smap_rma_dyn *tab =
            nd && nd <= cap ? smap_remote_inline(t->lr, (const void *)(uintptr_t)cb->dyn_tab,
                                                 (size_t)cap * sizeof *tab)
                            : NULL;
        struct dyn_span s = tab ? dyn_cover(tab, nd, addr, len) : (struct dyn_span){ 0, 0, 0 };
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&cb->dyn_gen, memory_order_relaxed) != g)
            continue;
        if (!s.found)
            return smap_fail(MPI_ERR_RMA_RANGE,
                                 "the target range is not inside regions attached there");
        *atomics = s.direct;
        if (target == w->me || s.direct) {
            *local = smap_remote_inline(t->lr, (const void *)addr, len);
            if (*local || !len) {
                *path = SMAP_RMA_DIRECT;
                return MPI_SUCCESS;
            }
        }
        *path = s.cma ? SMAP_RMA_CMA : SMAP_RMA_AM;
        return MPI_SUCCESS;
    }
}
