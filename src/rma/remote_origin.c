/* One-sided with targets on other nodes, the origin's role (remote.h):
 * requests (batched blocks of the target layout, compare-and-swap), their
 * answers, the lock, unlock and flush of the message path. */
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

void smap_rma_remote_send(struct MPI_ABI_Win *w, int target, struct nmsg *m, const void *data,
                          size_t dlen)
{
    const struct smap_rma_target *t = &w->t[target];
    m->from = w->me;
    m->win = t->rcb;
    smap_p2p_rma_send(t->world, m, sizeof *m, data, dlen);
}

int smap_rma_remote_wait(struct call *c)
{
    struct smap_rma_backoff b;
    smap_rma_backoff_init(&b);
    while (atomic_load_explicit(&c->left, memory_order_acquire) > 0) {
        int rc = smap_rma_backoff(&b);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

static int served_error(int rc)
{
    return smap_fail(rc, rc == MPI_ERR_RMA_RANGE
                                 ? "the target range is not inside a region attached there"
                             : rc == MPI_ERR_RMA_CONFLICT
                                 ? "the target window is exposed (MPI_Win_post) and cannot be "
                                   "locked at the same time"
                                 : "the target on another node failed the one-sided request");
}

/* Requests under construction: consecutive blocks of the target layout
 * (consecutive in the packed stream too) gathered into one message of at
 * most SMAP_RMA_NET_MAXSEG segments and `room` data bytes. */
struct batch {
    struct MPI_ABI_Win *w;
    int target;
    struct nmsg m;                      /* kind, op, type; per message: nseg, len, off */
    size_t es;                          /* accumulates: pieces of whole elements */
    size_t room;
    const char *in;                     /* packed origin stream, or NULL */
    struct call *c;                     /* NULL: put, acknowledged to the target entry */
    uint64_t seg[2 * SMAP_RMA_NET_MAXSEG];
};

static void batch_send(struct batch *b)
{
    if (!b->m.nseg)
        return;
    unsigned char stack[2048];
    size_t segbytes = (size_t)b->m.nseg * 16;
    size_t dlen = segbytes + (b->in ? (size_t)b->m.len : 0);
    unsigned char *p = dlen <= sizeof stack ? stack : malloc(dlen);
    if (!p)
        smap_fatal("one-sided: out of memory building a %zu-byte request", dlen);
    memcpy(p, b->seg, segbytes);
    if (b->in)
        memcpy(p + segbytes, b->in + b->m.off, (size_t)b->m.len);
    if (b->c)
        atomic_fetch_add_explicit(&b->c->left, 1, memory_order_relaxed);
    else
        b->w->t[b->target].puts_sent++;
    smap_rma_remote_send(b->w, b->target, &b->m, p, dlen);
    if (p != stack)
        free(p);
    b->m.off += b->m.len;
    b->m.len = 0;
    b->m.nseg = 0;
}

static int batch_block(void *ctx, uintptr_t addr, size_t len, size_t off)
{
    struct batch *b = ctx;
    (void)off;   /* blocks come in stream order: off == b->m.off + b->m.len */
    if (len % b->es)   /* no message could carry the piece of an element */
        return smap_fail(MPI_ERR_TYPE, "a block of the target layout cuts an element");
    while (len) {
        size_t k = b->room - (size_t)b->m.len;
        if (k > len)
            k = len;
        k -= k % b->es;
        if (!k || b->m.nseg == SMAP_RMA_NET_MAXSEG) {
            batch_send(b);
            continue;
        }
        b->seg[2 * b->m.nseg] = addr;
        b->seg[2 * b->m.nseg + 1] = k;
        b->m.nseg++;
        b->m.len += k;
        addr += k;
        len -= k;
    }
    return MPI_SUCCESS;
}

int smap_rma_net_xfer(struct MPI_ABI_Win *w, int target, int kind, MPI_Op op, smap_dtype_t *et,
                      uintptr_t taddr, MPI_Count count, smap_dtype_t *tt, const char *in,
                      char *out)
{
    struct call c = { .out = out };
    struct batch b = {
        .w = w, .target = target,
        .m = { .kind = (uint32_t)kind, .op = (uint64_t)(uintptr_t)op,
               .type = et ? (uint64_t)(uintptr_t)smap_dtype_handle(et) : 0 },
        .es = et ? elem_span(et) : 1,
        .room = smap_p2p_rma_room() - sizeof(struct nmsg) - 16 * SMAP_RMA_NET_MAXSEG,
        .in = in,
    };
    /* puts to a window of fixed layout are acknowledged later (flush);
     * the rest waits for its answers (and a dynamic window's range
     * errors come back at once) */
    int later = kind == SMAP_AM_PUT && w->flavor != MPI_WIN_FLAVOR_DYNAMIC;
    if (later) {
        b.m.flags = F_PUTACK;
        b.m.cookie = (uintptr_t)&w->t[target];
    } else {
        b.c = &c;
        b.m.cookie = (uintptr_t)&c;
    }
    int rc = smap_rma_each_block(taddr, count, tt, batch_block, &b);
    batch_send(&b);
    if (later)
        return rc;
    int wrc = smap_rma_remote_wait(&c);
    rc = rc ? rc : wrc;
    if (rc)
        return rc;
    return c.rc ? served_error(c.rc) : MPI_SUCCESS;
}

int smap_rma_net_call(struct MPI_ABI_Win *w, int target, int kind, uintptr_t addr, size_t len,
                      MPI_Op op, MPI_Datatype type, const void *in, size_t inlen, void *out,
                      size_t outlen)
{
    (void)outlen;
    smap_dtype_t *et = type != MPI_DATATYPE_NULL ? smap_dtype_stored(type) : NULL;
    if (kind != SMAP_AM_CAS) {   /* one block of bytes or elements */
        smap_dtype_t *bt = smap_dtype_get(MPI_BYTE);
        return smap_rma_net_xfer(w, target, kind, op, kind == SMAP_AM_ACC || kind == SMAP_AM_GACC
                                                          ? et : NULL,
                                 addr, (MPI_Count)len, bt, inlen ? in : NULL, out);
    }
    struct call c = { .out = out };
    atomic_store_explicit(&c.left, 1, memory_order_relaxed);
    struct nmsg m = { .kind = (uint32_t)kind, .type = (uint64_t)(uintptr_t)type,
                      .cookie = (uintptr_t)&c, .addr = addr, .len = len };
    smap_rma_remote_send(w, target, &m, in, inlen);
    int rc = smap_rma_remote_wait(&c);
    if (rc)
        return rc;
    return c.rc ? served_error(c.rc) : MPI_SUCCESS;
}

/* A round trip of one synchronisation request; *granted from the answer. */
static int sync_call(struct MPI_ABI_Win *w, int target, int kind, uint32_t flags, int *granted)
{
    struct call c = { 0 };
    atomic_store_explicit(&c.left, 1, memory_order_relaxed);
    struct nmsg m = { .kind = (uint32_t)kind, .flags = flags, .cookie = (uintptr_t)&c };
    smap_rma_remote_send(w, target, &m, NULL, 0);
    int rc = smap_rma_remote_wait(&c);
    if (!rc && c.rc)
        rc = served_error(c.rc);
    if (granted)
        *granted = c.granted;
    return rc;
}

void smap_rma_net_signal(struct MPI_ABI_Win *w, int target, int kind, uint64_t value)
{
    struct nmsg m = { .kind = (uint32_t)(kind == SMAP_RMA_NET_POST   ? N_POST
                                         : kind == SMAP_RMA_NET_DONE ? N_DONE
                                                                     : N_FENCE),
                      .addr = value };
    smap_rma_remote_send(w, target, &m, NULL, 0);
}

int smap_rma_remote_flush(MPI_Win h, int target)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    struct smap_rma_target *t = &w->t[target];
    struct smap_rma_backoff b;
    smap_rma_backoff_init(&b);
    while (atomic_load_explicit(&t->puts_acked, memory_order_acquire) < t->puts_sent) {
        int rc = smap_rma_backoff(&b);
        if (rc)
            return rc;
    }
    int rc = atomic_exchange_explicit(&t->put_err, 0, memory_order_relaxed);
    return rc ? served_error(rc) : MPI_SUCCESS;
}

int smap_rma_remote_lock(MPI_Win h, int target, int type)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    uint32_t flags = (type == MPI_LOCK_EXCLUSIVE ? F_EXCL : 0) | F_FIRST;
    struct smap_rma_backoff b;
    smap_rma_backoff_init(&b);
    for (;;) {
        int granted = 0;
        int rc = sync_call(w, target, N_LOCK, flags, &granted);
        if (rc || granted)
            return rc;
        flags &= ~(uint32_t)F_FIRST;
        /* let the holder's unlock travel before asking again */
        if ((rc = smap_rma_backoff(&b)) != MPI_SUCCESS)
            return rc;
    }
}

int smap_rma_remote_unlock(MPI_Win h, int target, int type)
{
    return sync_call(smap_win_get(h), target, N_UNLOCK,
                     type == MPI_LOCK_EXCLUSIVE ? F_EXCL : 0, NULL);
}
