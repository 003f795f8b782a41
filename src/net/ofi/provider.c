/* Which libfabric provider the inter-node transport opens, the
 * environment libfabric must see before it initialises, and the sizes
 * (eager limit, bundles, chunks) each kind of provider is run with: the
 * socket providers (net, tcp;ofi_rxm, sockets) move data through the
 * kernel, where copies are cheap and round trips dear; a NIC's provider is
 * the other way round. */
#include "net/ofi/provider.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>

#include "base/tunables.h"
#include "net/engine.h"

/* The providers tried, in order, when FI_PROVIDER is not set: net
 * (libfabric's native reliable datagrams over TCP sockets, no rxm layer
 * on top: about a quarter less latency than tcp;ofi_rxm between emulated
 * hosts, src/net/README.md), else tcp;ofi_rxm (older libfabric has no
 * net; in 1.18+ tcp is net's successor). */
static const char *const default_providers[] = { "net", "tcp;ofi_rxm" };
#define NDEFAULT (sizeof default_providers / sizeof default_providers[0])

static const char *fi_provider_env(void)
{
    const char *env = getenv("FI_PROVIDER");
    return env && *env ? env : NULL;
}

/* Whether ofi_rxm over tcp may be used (our fallback, or FI_PROVIDER
 * naming tcp): rxm reads its tunables at the first fi_getinfo. */
static int may_use_rxm_tcp(void)
{
    const char *env = fi_provider_env();
    return !env || strstr(env, "tcp") != NULL;
}

/* A provider that moves data through kernel sockets (tcp;ofi_rxm, net,
 * sockets, udp;ofi_rxd): no hardware RMA, every rendezvous read is a
 * round trip of the peer's software. */
static int socket_provider(const char *prov)
{
    return strstr(prov, "tcp") || !strcmp(prov, "net") || strstr(prov, "sockets") ||
           strstr(prov, "udp");
}

/* The eager limit before the provider's cap: SMAP_NET_EAGER_LIMIT when
 * set, else provider-dependent.  Over sockets the rendezvous (RTS, read
 * request, data, FIN) costs two more trips than one eager message, which
 * the copies of an eager message outweigh only from ~256 KiB on
 * (measured over tcp;ofi_rxm: 64 KiB 29-44 us eager, 67-112 us by RDMA
 * read; net alike), so the default (64K: 64 posted buffers, 4 MiB per
 * rank) stays eager up to there; a provider with hardware RMA (verbs,
 * efa, cxi) reads faster than it copies through bounce buffers, and
 * keeps the 8K of rxm's default buffers. */
size_t smap_ofi_eager_wanted(const char *prov)
{
    const char *env = getenv("SMAP_NET_EAGER_LIMIT");
    if ((env && *env) || socket_provider(prov))
        return smap_lib->tun->net_eager_limit;
    return (size_t)8 << 10;
}

/* The largest message (header and payload) coalesced into bundles:
 * SMAP_NET_COALESCE when set, else its default over the socket providers
 * (a socket write and a completion per message is what small messages
 * cost there) and off over others (a NIC posts a send for less than the
 * copy). */
size_t smap_ofi_coalesce_wanted(const char *prov)
{
    const char *env = getenv("SMAP_NET_COALESCE");
    if ((env && *env) || socket_provider(prov))
        return smap_lib->tun->net_coalesce ? smap_lib->tun->net_coalesce + SMAP_NET_HDR_MAX : 0;
    return 0;
}

/* The largest single read or transfer: SMAP_NET_CHUNK when set, else
 * 512K over the socket providers and the tunable's default (4M) over
 * others.  Over net between emulated hosts a 1-4 MiB message moved
 * faster as several 512 KiB reads than as one (bw 2-4 MiB +25-30%,
 * ping-pong 1-4 MiB 10-25% less: 4 interleaved reps, load 1.1-1.6,
 * src/net/README.md); 128K lost at 256K-1M.  A NIC reads large blocks at
 * full speed and keeps the larger chunk. */
size_t smap_ofi_chunk_wanted(const char *prov)
{
    const char *env = getenv("SMAP_NET_CHUNK");
    if ((env && *env) || !socket_provider(prov))
        return smap_lib->tun->net_chunk;
    return (size_t)512 << 10;
}

/* net names its interface FI_NET_IFACE, tcp FI_TCP_IFACE: a job set up
 * for tcp (FI_TCP_IFACE only) keeps its interface under net too. */
static void net_iface_from_tcp(void)
{
    const char *tcp = getenv("FI_TCP_IFACE");
    if (tcp && *tcp && !getenv("FI_NET_IFACE"))
        setenv("FI_NET_IFACE", tcp, 0);
}

/* ofi_rxm sends a message of more than FI_OFI_RXM_EAGER_LIMIT bytes (16K
 * by default) by its own segmentation or rendezvous protocols: over tcp
 * they cost 4x the latency of one eager message at 16 KiB, so our eager
 * messages must stay rxm-eager too.  rxm reads the variable when
 * libfabric initialises (the first fi_getinfo); one the user set wins.
 * Over tcp rxm receives large eager messages straight into the posted
 * buffer (dynamic receive buffers): no bounce buffer grows with it. */
static int rxm_buffers_ours; /* small_rxm_buffers set FI_OFI_RXM_BUFFER_SIZE */

static void tune_rxm(size_t need)
{
    if (!may_use_rxm_tcp() || getenv("FI_OFI_RXM_EAGER_LIMIT"))
        return;
    /* rxm derives its eager limit from its buffer size when the limit is
     * not set; where small_rxm_buffers shrank that size the limit is set
     * too, never below rxm's own default (16K) */
    if (need <= 16384 && !rxm_buffers_ours)
        return;
    char v[32];
    snprintf(v, sizeof v, "%zu", need > 16384 ? need : (size_t)16384);
    setenv("FI_OFI_RXM_EAGER_LIMIT", v, 0);
}

/* rxm over tcp allocates and touches a pool of 1024 bounce buffers of
 * FI_OFI_RXM_BUFFER_SIZE bytes (16 KiB by default) at fi_enable: ~17 MB of
 * every rank's memory (PSS), most of a multi-node rank's footprint beside
 * ours, and the pages' first touch is start-up time (8 emulated hosts x 8
 * ranks on 2 CPUs: 8.5-9.2 s -> 6.0 s, PSS per rank 39 -> 14.5 MB with
 * 4 KiB).  Over tcp the buffers carry only what rxm copies: injected
 * messages (rxm's inject size is the buffer size less its header) and
 * unexpected ones; an eager message larger than a buffer is received
 * straight into our posted receive (tcp's dynamic receive buffers), so the
 * eager limit (tune_rxm, set with it) stays ours.  Over verbs rxm needs
 * the eager limit equal to the buffer size: only where tcp may carry rxm.
 * Read at the first fi_getinfo; a value the user set wins. */
static void small_rxm_buffers(void)
{
    if (may_use_rxm_tcp() && !getenv("FI_OFI_RXM_BUFFER_SIZE")) {
        setenv("FI_OFI_RXM_BUFFER_SIZE", "4096", 0);
        rxm_buffers_ours = 1;
    }
}

/* rxm over tcp posts FI_OFI_RXM_MSG_RX_SIZE receive buffers of the eager
 * size to its shared receive context, 4096 by default: at our 64 KiB
 * eager limit 256 MiB per rank, which fi_enable allocated and touched in
 * 0.8-1.4 s of every multi-node MPI_Init (2 emulated hosts, 2 CPUs; MPICH
 * over UCX started the same job in 0.9 s).  256 buffers (16 MiB) hold a
 * burst of 256 eager messages not yet taken; past that the kernel's TCP
 * flow control holds the senders.  fi_enable then takes 0.2 s.  Read at
 * the first fi_getinfo; a value the user set wins. */
static void small_rxm_rx_pool(void)
{
    if (may_use_rxm_tcp())
        setenv("FI_OFI_RXM_MSG_RX_SIZE", "256", 0);
}

/* The socket providers (tcp, net) copy a send into a staging buffer and
 * report it complete at once; what the kernel does not take then waits in
 * that buffer for a later progress call of ours.  A rank whose last sends
 * were staged and which then stops polling (MPI_Finalize: the launcher's
 * barrier) never sends them, and a receiver still in a collective waits
 * for them for ever (a flat Exscan across 3 emulated hosts hung that way
 * most of the time).  Without staging a send completes only once the
 * kernel holds all of it, and the kernel delivers it without us; so our
 * completions (and MPI_Finalize's drain, which waits for them) mean
 * "handed to the network".  Read at the first fi_getinfo; a value the
 * user set wins. */
static void no_send_staging(void)
{
    setenv("FI_TCP_STAGING_SBUF_SIZE", "0", 0);
    setenv("FI_NET_STAGING_SBUF_SIZE", "0", 0);
}

/* with_rma: 0 messages only, 1 plus reads (rendezvous), 2 plus writes
 * and remote writes (src/rma's windows); prov: the provider asked for,
 * NULL when FI_PROVIDER (applied by fi_getinfo itself) decides */
static struct fi_info *query1(int with_rma, const char *prov, enum fi_progress progress)
{
    struct fi_info *hints = fi_allocinfo(), *info = NULL;
    if (!hints)
        return NULL;
    hints->caps = FI_MSG | FI_TAGGED | (with_rma ? FI_RMA | FI_READ | FI_REMOTE_READ : 0) |
                  (with_rma > 1 ? FI_WRITE | FI_REMOTE_WRITE : 0);
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->domain_attr->data_progress = progress;
    hints->domain_attr->av_type = FI_AV_TABLE;
    if (prov)
        hints->fabric_attr->prov_name = strdup(prov);
    int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &info);
    fi_freeinfo(hints);
    return rc == 0 ? info : NULL;
}

/* Manual data progress first: our progress loop polls anyway, and the
 * waits keep polling while a transfer is under way (p2p/remote.c).  net
 * (libfabric 1.17) otherwise answers with automatic progress, under which
 * a window of 1-4 MiB messages moved at 55-65% of the speed it reaches
 * with manual progress (bench/bw between emulated hosts).  A provider
 * that offers only automatic progress is taken as it is. */
static struct fi_info *query(int with_rma, const char *prov)
{
    struct fi_info *info = query1(with_rma, prov, FI_PROGRESS_MANUAL);
    return info ? info : query1(with_rma, prov, FI_PROGRESS_UNSPEC);
}

void smap_ofi_prepare_env(size_t wire_hdr)
{
    /* rxm reads its eager limit at the first fi_getinfo, before we know
     * which provider answers: tune it for the socket default */
    small_rxm_buffers();
    tune_rxm(smap_ofi_eager_wanted("tcp;ofi_rxm") + wire_hdr);
    small_rxm_rx_pool();
    no_send_staging();
    net_iface_from_tcp();
}

struct fi_info *smap_ofi_choose(int top, int *level, char *err, size_t errlen)
{
    const char *env = fi_provider_env();
    struct fi_info *info = NULL;
    int l = -1;
    for (size_t p = 0; p < (env ? 1 : NDEFAULT) && !info; p++)
        for (l = top; l >= 0 && !info; l--)
            info = query(l, env ? NULL : default_providers[p]);
    *level = l + 1;
    if (!info)
        snprintf(err, errlen, "no libfabric provider offers reliable tagged messages (%s%s)",
                 env ? "FI_PROVIDER=" : "tried net, tcp;ofi_rxm", env ? env : "");
    return info;
}
