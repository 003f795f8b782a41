/* One-sided with targets on other nodes, RDMA (remote.h): puts and gets
 * straight into the target's registered window, dynamic windows' region
 * keys, and the per-target ops table that picks RDMA or messages. */
#include "rma/remote.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/compiler.h"
#include "base/log.h"
#include "base/tunables.h"
#include "dtype/engine.h"
#include "net/net.h"
#include "p2p/p2p.h"

/* ---- RDMA: puts and gets straight into the target's registered window --
 *
 * When the target registered its window (t->rdma), a put or get whose
 * target layout has at most SMAP_RMA_NET_MAXSEG dense blocks is one
 * fi_write or fi_read per block (net/rma.c cuts them at the transport's
 * chunk): no message to serve at the target, whose provider places the
 * data (a software provider such as tcp does it in the target's progress,
 * which any MPI call drives; a NIC needs nothing).  Locks, fences, PSCW
 * and accumulates stay messages, so the data path only runs inside an
 * epoch the target granted.
 *
 * A put packs the origin data into a buffer of its own, so it is complete
 * locally on return (as on the message path: Rput's request and
 * flush_local need nothing more); each write counts in the target's
 * puts_sent and its completion -- delivery complete: the data is in the
 * target's memory -- in puts_acked, so net_flush (flush, unlock, fence,
 * complete) waits for remote completion exactly as for acknowledged put
 * messages.  A get waits for its reads before returning (Rget's request
 * is complete on return), reading straight into the result buffer when
 * both layouts are contiguous. */

/* Bytes of put buffers still in flight: past this, puts wait. */
#define RDMA_PUT_INFLIGHT_MAX ((size_t)64 << 20)
static _Atomic size_t rdma_inflight;

struct rput {
    long refs;                       /* writes in flight + the issuer */
    struct smap_rma_target *t;
    size_t bytes;
    char data[];
};

/* Whether (count, tt) has at most SMAP_RMA_NET_MAXSEG dense blocks. */
static int few_blocks(MPI_Count count, smap_dtype_t *tt)
{
    if (smap_dtype_is_contiguous(tt))
        return 1;
    const struct smap_dtype_flat *f = smap_dtype_flat(tt);
    if (!f)
        return 0;
    MPI_Count per = 0;
    for (MPI_Count r = 0; r < f->nblk; r++)
        per += f->blk[r].n;
    return per > 0 && count <= SMAP_RMA_NET_MAXSEG / per;
}

static void rput_release(struct rput *p)
{
    if (--p->refs)
        return;
    atomic_fetch_sub_explicit(&rdma_inflight, p->bytes, memory_order_relaxed);
    free(p);
}

/* A write completed (progress, p2p lock held): remote completion. */
static void rput_done(void *cookie)
{
    struct rput *p = cookie;
    atomic_fetch_add_explicit(&p->t->puts_acked, 1, memory_order_release);
    rput_release(p);
}

struct rdma_ctx {
    struct smap_rma_target *t;
    uint64_t base, rbase, rkey;      /* the registered memory: window or attached region */
    char *stream;
    struct rput *put;                /* put: the buffer; get: NULL */
    _Atomic long left;               /* get: reads in flight */
};

static void rget_done(void *cookie)
{
    struct rdma_ctx *c = cookie;
    atomic_fetch_sub_explicit(&c->left, 1, memory_order_release);
}

static int rdma_block(void *ctx, uintptr_t addr, size_t len, size_t off)
{
    struct rdma_ctx *c = ctx;
    struct smap_rma_target *t = c->t;
    if (!len)
        return MPI_SUCCESS;
    uint64_t raddr = c->rbase + (addr - c->base);
    if (c->put) {
        c->put->refs++;
        t->puts_sent++;
        smap_net_rma(1, t->world, c->stream + off, len, raddr, c->rkey, rput_done, c->put);
    } else {
        atomic_fetch_add_explicit(&c->left, 1, memory_order_relaxed);
        smap_net_rma(0, t->world, c->stream + off, len, raddr, c->rkey, rget_done, c);
    }
    return MPI_SUCCESS;
}

static int rdma_put(struct MPI_ABI_Win *w, int target, const struct smap_rma_op_args *a,
                    const struct smap_rma_dkey *k)
{
    struct smap_rma_target *t = &w->t[target];
    size_t bytes = (size_t)(a->ocount * a->otype->size);
    struct smap_rma_backoff b;
    smap_rma_backoff_init(&b);
    while (atomic_load_explicit(&rdma_inflight, memory_order_relaxed) > RDMA_PUT_INFLIGHT_MAX) {
        int rc = smap_rma_backoff(&b);
        if (rc)
            return rc;
    }
    struct rput *p = malloc(sizeof *p + bytes);
    if (!p)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for a put to another node");
    p->refs = 1;
    p->t = t;
    p->bytes = bytes;
    atomic_fetch_add_explicit(&rdma_inflight, bytes, memory_order_relaxed);
    smap_dtype_pack(a->oaddr, a->ocount, a->otype, p->data, 0, (MPI_Count)bytes);
    struct rdma_ctx c = { .t = t, .base = k->base, .rbase = k->rbase, .rkey = k->rkey,
                          .stream = p->data, .put = p };
    smap_p2p_lock();
    int rc = smap_rma_each_block(a->taddr, a->tcount, a->ttype, rdma_block, &c);
    rput_release(p);
    smap_p2p_unlock();
    return rc;
}

static int rdma_get(struct MPI_ABI_Win *w, int target, const struct smap_rma_op_args *a,
                    const struct smap_rma_dkey *k)
{
    struct smap_rma_target *t = &w->t[target];
    size_t bytes = (size_t)(a->tcount * a->ttype->size);
    int direct = smap_dtype_is_contiguous(a->rtype);
    char *s = direct ? (char *)a->raddr + smap_dtype_data_offset(a->rtype) : malloc(bytes);
    if (!s)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for a get from another node");
    struct rdma_ctx c = { .t = t, .base = k->base, .rbase = k->rbase, .rkey = k->rkey,
                          .stream = s };
    smap_p2p_lock();
    int rc = smap_rma_each_block(a->taddr, a->tcount, a->ttype, rdma_block, &c);
    smap_p2p_unlock();
    struct smap_rma_backoff b;
    smap_rma_backoff_init(&b);
    /* the reads posted must finish even after an error: they name s */
    while (atomic_load_explicit(&c.left, memory_order_acquire) > 0) {
        int wrc = smap_rma_backoff(&b);
        if (wrc && !rc)
            rc = wrc;
        if (wrc)
            break;
    }
    if (!rc && !direct)
        smap_dtype_unpack(s, (MPI_Count)bytes, a->raddr, a->rcount, a->rtype, 0);
    if (!direct && !atomic_load_explicit(&c.left, memory_order_acquire))
        free(s);
    return rc;
}

/* ---- dynamic windows: the target's region keys, fetched and cached ----
 *
 * The first put or get into a region of a target's dynamic window asks
 * the target for the region holding the range (N_KEY, a round trip); the
 * target registers the region then (once) and answers its key, which the
 * origin caches per target.  Detaching sends N_INVAL to every origin that
 * got the key before the registration goes, and the origin's upcall drops
 * the entry at once: a program that tells an origin about a region
 * attached later (at the same addresses, say) does so by a message that
 * arrives after the N_INVAL, so the origin fetches the new key (an
 * answer that crossed an N_INVAL, seen as a moved dkey_gen, is fetched
 * again).  Ranges outside every region, and regions the target could not
 * register, go to messages, which report the range error. */

/* The cached region of target t holding [lo, lo+len), or NULL (p2p lock
 * held). */
static const struct smap_rma_dkey *dkey_find(const struct smap_rma_target *t, uint64_t lo,
                                             uint64_t len)
{
    for (int i = 0; i < t->ndkeys; i++) {
        const struct smap_rma_dkey *k = &t->dkeys[i];
        if (lo >= k->base && lo - k->base <= k->size && len <= k->size - (lo - k->base))
            return k;
    }
    return NULL;
}

/* The key of the region holding [lo, lo+len) at target: *k, 1 when RDMA
 * may be used, 0 when not (no region: messages report the error). */
static int dkey_get(struct MPI_ABI_Win *w, int target, uint64_t lo, uint64_t len,
                    struct smap_rma_dkey *out)
{
    struct smap_rma_target *t = &w->t[target];
    for (int tries = 0; tries < 4; tries++) {
        smap_p2p_lock();
        const struct smap_rma_dkey *k = dkey_find(t, lo, len);
        if (k)
            *out = *k;
        uint64_t gen = t->dkey_gen;
        smap_p2p_unlock();
        if (k)
            return out->rdma;
        uint64_t ans[4] = { 0 };
        struct call c = { .out = (char *)ans };
        atomic_store_explicit(&c.left, 1, memory_order_relaxed);
        struct nmsg m = { .kind = N_KEY, .cookie = (uintptr_t)&c, .addr = lo, .len = len };
        smap_rma_remote_send(w, target, &m, NULL, 0);
        if (smap_rma_remote_wait(&c) || c.rc)
            return 0;
        struct smap_rma_dkey nk = { ans[0], ans[1], ans[2], ans[3], c.granted };
        smap_p2p_lock();
        int fresh = t->dkey_gen == gen;   /* no N_INVAL crossed the answer */
        if (fresh) {
            if (!t->dkeys)
                t->dkeys = calloc(SMAP_RMA_DKEYS, sizeof *t->dkeys);
            if (t->dkeys) {
                if (t->ndkeys == SMAP_RMA_DKEYS)   /* full: the oldest goes */
                    memmove(t->dkeys, t->dkeys + 1, (SMAP_RMA_DKEYS - 1) * sizeof *t->dkeys);
                else
                    t->ndkeys++;
                t->dkeys[t->ndkeys - 1] = nk;
            }
        }
        smap_p2p_unlock();
        if (fresh) {
            *out = nk;
            return nk.rdma;
        }
    }
    return 0;
}

/* Whether the put/get goes by RDMA, with the key in *k. */
static int rdma_path(struct MPI_ABI_Win *w, int target, const struct smap_rma_op_args *a,
                     struct smap_rma_dkey *k)
{
    const struct smap_rma_target *t = &w->t[target];
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        if (!t->rdma || !few_blocks(a->tcount, a->ttype))
            return 0;
        *k = (struct smap_rma_dkey){ .base = t->base, .rbase = t->rbase, .rkey = t->rkey };
        return 1;
    }
    if (!smap_tun.rma_net_rma || !smap_net.rma_rw || !few_blocks(a->tcount, a->ttype))
        return 0;
    smap_dtype_t *tt = a->ttype;
    uint64_t lo = a->taddr + (uint64_t)tt->true_lb;
    uint64_t len = (uint64_t)((a->tcount - 1) * tt->extent + tt->true_extent);
    return dkey_get(w, target, lo, len, k);
}

static int net_put(MPI_Win h, int target, const struct smap_rma_op_args *a)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    struct smap_rma_dkey k;
    if (rdma_path(w, target, a, &k))
        return rdma_put(w, target, a, &k);
    return smap_rma_node_ops.put(h, target, a);
}

static int net_get(MPI_Win h, int target, const struct smap_rma_op_args *a)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    struct smap_rma_dkey k;
    if (rdma_path(w, target, a, &k))
        return rdma_get(w, target, a, &k);
    return smap_rma_node_ops.get(h, target, a);
}

static int net_acc(MPI_Win h, int target, const struct smap_rma_op_args *a)
{
    return smap_rma_node_ops.acc(h, target, a);
}

static int net_cas(MPI_Win h, int target, const struct smap_rma_op_args *a)
{
    return smap_rma_node_ops.cas(h, target, a);
}

const struct smap_rma_ops smap_rma_net_ops = {
    .put = net_put,
    .get = net_get,
    .acc = net_acc,
    .cas = net_cas,
    .lock = smap_rma_remote_lock,
    .unlock = smap_rma_remote_unlock,
    .flush = smap_rma_remote_flush,
};

int smap_rma_net_flush_all(struct MPI_ABI_Win *w)
{
    for (int i = 0; i < w->n; i++)
        if (w->t[i].remote) {
            int rc = smap_rma_remote_flush((MPI_Win)w, i);
            if (rc)
                return rc;
        }
    return MPI_SUCCESS;
}
