/* The provider choice of the libfabric transport (provider.c), for
 * ofi.c. */
#ifndef SMAP_NET_PROVIDER_H
#define SMAP_NET_PROVIDER_H

#include <stddef.h>

struct fi_info;

/* The environment libfabric reads when it initialises (the first
 * fi_getinfo): ofi_rxm's eager limit to carry our eager messages plus
 * wire_hdr bytes of framing, no send staging in the socket providers,
 * FI_NET_IFACE from FI_TCP_IFACE.  A value the user set wins. */
void smap_ofi_prepare_env(size_t wire_hdr);

/* The first provider that answers (FI_PROVIDER alone when set, else net,
 * then tcp;ofi_rxm), with the most of what is wanted up to `top` (0:
 * messages, 1: plus reads, 2: plus writes); *level: what it offers.  NULL
 * (err says what was tried) when none. */
struct fi_info *smap_ofi_choose(int top, int *level, char *err, size_t errlen);

/* For the provider prov: the eager limit (before the provider's cap), the
 * largest record coalesced into bundles (0: off), the largest single read
 * or transfer. */
size_t smap_ofi_eager_wanted(const char *prov);
size_t smap_ofi_coalesce_wanted(const char *prov);
size_t smap_ofi_chunk_wanted(const char *prov);

#endif
