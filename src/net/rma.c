/* One-sided transfers for src/rma's windows between nodes (DESIGN.md D12):
 * registration of window memory for peers' writes and reads, and writes
 * and reads of any size, cut into pieces the provider takes (`chunk`,
 * itself capped by its max_msg_size) with one completion per call.
 *
 * The engine does the provider work (ofi.c: fi_mr_reg with the provider's
 * FI_MR_* rules, fi_writemsg with FI_DELIVERY_COMPLETE, fi_read); this file
 * only keeps src/rma away from the engine's limits.  Called under
 * smap_p2p_lock, like everything in net/; completion functions run in
 * progress with it held. */
#include "net/net.h"

#include <stdlib.h>

#include "base/log.h"

int smap_net_rma_register(void *buf, size_t len, uint64_t *raddr, uint64_t *key, void **handle)
{
    if (!smap_net.ops || !smap_net.rma_rw || !smap_net.ops->expose_rw || !buf || !len)
        return -1;
    smap_net.ops->expose_rw(buf, len, raddr, key, handle);
    return 0;
}

void smap_net_rma_unregister(void *handle)
{
    if (handle)
        smap_net.ops->unexpose(handle);
}

/* A transfer in several pieces: the caller's completion runs after the last. */
struct pieces {
    long left;
    void (*fn)(void *);
    void *cookie;
};

static void piece_done(void *cookie)
{
    struct pieces *p = cookie;
    if (--p->left)
        return;
    void (*fn)(void *) = p->fn;
    void *c = p->cookie;
    free(p);
    fn(c);
}

void smap_net_rma(int write, int peer, void *buf, size_t len, uint64_t raddr, uint64_t key,
                  void (*fn)(void *), void *cookie)
{
    size_t chunk = smap_net.chunk ? smap_net.chunk : len;
    if (len <= chunk) {
        smap_net.ops->rma_xfer(write, peer, buf, len, raddr, key, fn, cookie);
        return;
    }
    struct pieces *p = malloc(sizeof *p);
    if (!p)
        smap_fatal("one-sided transfer: out of memory");
    p->left = (long)((len + chunk - 1) / chunk);
    p->fn = fn;
    p->cookie = cookie;
    for (size_t off = 0; off < len; off += chunk)
        smap_net.ops->rma_xfer(write, peer, (char *)buf + off, len - off < chunk ? len - off : chunk,
                               raddr + off, key, piece_done, p);
}
