/* Records in one transport message, the engines' common wire format for
 * bundles (net.h: coalescing): each record is a SMAP_NET_FRAME-byte prefix
 * (its length, 32 bits, then 32 bits of zero) and the record (the caller's
 * header and payload), padded to 8 bytes.  The libfabric engine frames
 * every message; the UCX engine frames its bundles only (a tag bit says
 * which). */
#ifndef SMAP_NET_FRAME_H
#define SMAP_NET_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/compiler.h"
#include "base/log.h"

#define SMAP_NET_FRAME 8

/* Bytes a record of rlen bytes takes in its message, prefix and padding. */
static inline size_t smap_net_frame_span(size_t rlen)
{
    return (SMAP_NET_FRAME + rlen + 7) & ~(size_t)7;
}

static inline void smap_net_frame_put(unsigned char *at, size_t rlen)
{
    uint32_t w[2] = { (uint32_t)rlen, 0 };
    memcpy(at, w, sizeof w);
}

/* Writes one record (header, then payload) with its prefix at `at`;
 * returns the bytes it takes, padding included. */
static inline size_t smap_net_frame_record(unsigned char *at, const void *hdr, size_t hlen,
                                           const void *data, size_t dlen)
{
    smap_net_frame_put(at, hlen + dlen);
    memcpy(at + SMAP_NET_FRAME, hdr, hlen);
    if (dlen)
        memcpy(at + SMAP_NET_FRAME + hlen, data, dlen);
    return smap_net_frame_span(hlen + dlen);
}

/* The record at `off` of the n-byte message p: its length in *rlen (the
 * record itself at p + off + SMAP_NET_FRAME); returns the next record's
 * offset.  A malformed message (a frame past its end) stops the rank. */
static inline size_t smap_net_frame_next(const unsigned char *p, size_t n, size_t off,
                                         uint32_t *rlen)
{
    if (SMAP_UNLIKELY(n - off < SMAP_NET_FRAME))
        smap_fatal("inter-node transport: a message of %zu bytes ends inside a frame", n);
    memcpy(rlen, p + off, sizeof *rlen);
    if (SMAP_UNLIKELY(*rlen > n - off - SMAP_NET_FRAME))
        smap_fatal("inter-node transport: a %u-byte record overruns its %zu-byte message",
                   *rlen, n);
    return off + smap_net_frame_span(*rlen);
}

#endif
