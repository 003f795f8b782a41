/* Choosing and opening the inter-node transport (net.h).  One engine
 * today, libfabric; the vtable is the seam where another would plug in. */
#include "net/net.h"

#include <stdio.h>

struct smap_net smap_net;

int smap_net_open(const struct smap_net_upcalls *up, char *err, size_t errlen)
{
    const struct smap_net_ops *ops = &smap_net_ofi;
    if (ops->open(up, err, errlen) != 0) {
        ops->close();
        return -1;
    }
    smap_net.ops = ops;
    return 0;
}

void smap_net_close(void)
{
    if (!smap_net.ops)
        return;
    smap_net.ops->close();
    smap_net.ops = NULL;
}
