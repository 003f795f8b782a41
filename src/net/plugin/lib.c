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

/* Addresses travel through the boot key-value space as hex text. */
void smap_net_hex(char *out, const unsigned char *p, size_t n)
{
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[p[i] >> 4];
        out[2 * i + 1] = d[p[i] & 15];
    }
    out[2 * n] = '\0';
}

size_t smap_net_unhex(unsigned char *out, size_t cap, const char *s)
{
    size_t n = 0;
    for (; s[0] && s[1] && n < cap; s += 2) {
        int hi = s[0] <= '9' ? s[0] - '0' : s[0] - 'a' + 10;
        int lo = s[1] <= '9' ? s[1] - '0' : s[1] - 'a' + 10;
        out[n++] = (unsigned char)(hi << 4 | lo);
    }
    return n;
}
