/* Choosing, loading and opening the inter-node transport (net.h): the
 * engine SMAP_NET_ENGINE selects is a plugin (net/engine.h) found beside
 * this library, loaded here, at the first job that spans nodes, and kept
 * loaded until the process exits (libfabric's providers do not expect to
 * be unloaded, and LeakSanitizer names their frames only while mapped). */
#include "net/engine.h"

#include <limits.h>
#include <stdio.h>

#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"

struct smap_net smap_net;

/* What the engine is told of the library; built once, kept for its life. */
static const struct smap_net_lib lib = {
    .abi = SMAP_NET_ENGINE_ABI,
    .size = sizeof(struct smap_net_lib),
    .net_size = sizeof(struct smap_net),
    .ops_size = sizeof(struct smap_net_ops),
    .job_size = sizeof(struct smap_job),
    .tun_size = sizeof(struct smap_tunables),
    .net = &smap_net,
    .job = &smap_job,
    .tun = &smap_tun,
    .vlog = smap_vlog,
    .vfatal = smap_vfatal,
    .kv_put = smap_boot_put,
    .kv_fence = smap_boot_fence,
    .kv_get = smap_boot_get,
    .kallsyms_skip = smap_net_kallsyms_skip,
};

/* The engine's table from its plugin: NULL with a message naming the
 * file and the reason. */
static const struct smap_net_ops *load_engine(char *err, size_t errlen)
{
    char why[1024], dir[PATH_MAX], path[PATH_MAX + 64];
    if (smap_net_engine_libdir(dir, sizeof dir) != 0) {
        snprintf(err, errlen, "cannot tell where libmpi_abi.so lies (dladdr), so where its "
                              "network engine plugin is");
        return NULL;
    }
    const char *name;
    smap_net_engine_entry_fn *entry;
    if (!smap_net_engine_find(smap_tun.net_engine, dir, &name, path, sizeof path, &entry, why,
                              sizeof why, err, errlen))
        return NULL;
    const struct smap_net_ops *ops = entry(&lib, err, errlen);
    if (!ops)
        return NULL;
    smap_log(SMAP_LOG_INFO, "network engine %s (%s) loaded from %s", ops->name, why, path);
    return ops;
}

int smap_net_open(const struct smap_net_upcalls *up, char *err, size_t errlen)
{
    static const struct smap_net_ops *loaded;
    if (!loaded && !(loaded = load_engine(err, errlen)))
        return -1;
    if (loaded->open(up, err, errlen) != 0) {
        loaded->close();
        return -1;
    }
    smap_net.ops = loaded;
    return 0;
}

int smap_net_open_local(const struct smap_net_upcalls *up, char *err, size_t errlen)
{
    smap_net.open_local = 1;
    int rc = smap_net_open(up, err, errlen);
    smap_net.open_local = 0;
    if (rc == 0 && !smap_net.ops->add_peers) {
        smap_net_close();
        snprintf(err, errlen, "the network engine has no dynamic peers (SMAP_NET_ENGINE=ofi has)");
        return -1;
    }
    return rc;
}

void smap_net_close(void)
{
    if (!smap_net.ops)
        return;
    smap_net.ops->close();
    smap_net.ops = NULL;
}
