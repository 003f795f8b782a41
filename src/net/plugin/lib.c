/* Linked into every network engine plugin (net/engine.h): the library's
 * table, kept by the entry point, and the library functions an engine
 * calls, forwarded through it.  The names are the library's own (base/log.h,
 * boot/boot.h) so an engine's code reads like the rest of the library; in
 * the plugin they are hidden, and libmpi's are hidden too, so neither
 * shadows the other. */
#include "net/engine.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"

const struct smap_net_lib *smap_lib;

int smap_net_engine_accept(const struct smap_net_lib *lib, char *err, size_t errlen)
{
    if (!lib || lib->abi != SMAP_NET_ENGINE_ABI || lib->size != sizeof *lib ||
        lib->net_size != sizeof(struct smap_net) ||
        lib->ops_size != sizeof(struct smap_net_ops) ||
        lib->job_size != sizeof(struct smap_job) ||
        lib->tun_size != sizeof(struct smap_tunables)) {
        snprintf(err, errlen,
                 "the network engine plugin was built for another smartmap (engine interface "
                 "%d, the library's %d, or other struct layouts): reinstall both together",
                 SMAP_NET_ENGINE_ABI, lib ? lib->abi : -1);
        return -1;
    }
    smap_lib = lib;
    return 0;
}

void smap_log(int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    smap_lib->vlog(level, fmt, ap);
    va_end(ap);
}

void smap_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    smap_lib->vfatal(fmt, ap);
    va_end(ap);
    abort();   /* vfatal does not return; this keeps _Noreturn true */
}

int smap_boot_put(const char *key, const char *value)
{
    return smap_lib->kv_put(key, value);
}

int smap_boot_fence(void)
{
    return smap_lib->kv_fence();
}

int smap_boot_get(const char *key, char *value, size_t len)
{
    return smap_lib->kv_get(key, value, len);
}
