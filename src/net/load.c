/* Finding and opening a network engine plugin (net/engine.h).  Also in the
 * smap_internal archive: smartmap_info reports the same choice and file a
 * rank of a multi-node job would take. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "net/engine.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <dirent.h>

/* The engines this build made a plugin of (CMake: SMAP_NET_ENGINES_BUILT,
 * "ofi", "ucx" or "ofi ucx"). */
#ifndef SMAP_NET_ENGINES_BUILT
#define SMAP_NET_ENGINES_BUILT "ofi"
#endif

static int built(const char *name)
{
    const char *p = SMAP_NET_ENGINES_BUILT;
    size_t n = strlen(name);
    for (;;) {
        if (!strncmp(p, name, n) && (p[n] == ' ' || p[n] == '\0'))
            return 1;
        p = strchr(p, ' ');
        if (!p)
            return 0;
        p++;
    }
}


/* The first line of file dir/a/b/c (trailing newline cut) in out: 0, or
 * -1 when it cannot be read. */
static int sysfs_line(const char *dir, const char *a, const char *b, const char *c, char *out,
                      size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/%s/%s", dir, a, b, c);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(out, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    out[strcspn(out, "\n")] = '\0';
    return 0;
}

/* One port's kind: its device's node type (sysfs "1: CA" for an
 * InfiniBand or RoCE adapter, "4: RNIC" for iWARP, others for usNIC...),
 * the port's link layer (InfiniBand or Ethernet: RoCE on a CA) and state
 * ("4: ACTIVE").  A port not ACTIVE counts as down whatever it is. */
static enum smap_net_rdma_kind port_kind(const char *dir, const char *dev, const char *port)
{
    char node[64], link[64], state[64], ports[PATH_MAX];
    snprintf(ports, sizeof ports, "ports/%s", port);
    if (sysfs_line(dir, dev, ".", "node_type", node, sizeof node) != 0 ||
        strncmp(node, "1:", 2) != 0)
        return SMAP_NET_RDMA_OTHER;
    if (sysfs_line(dir, dev, ports, "state", state, sizeof state) != 0 ||
        !strstr(state, "ACTIVE"))
        return SMAP_NET_RDMA_DOWN;
    if (sysfs_line(dir, dev, ports, "link_layer", link, sizeof link) != 0)
        snprintf(link, sizeof link, "InfiniBand"); /* kernels before link_layer: IB only */
    if (!strcmp(link, "InfiniBand"))
        return SMAP_NET_RDMA_IB;
    if (!strcmp(link, "Ethernet"))
        return SMAP_NET_RDMA_ROCE;
    return SMAP_NET_RDMA_OTHER;
}

enum smap_net_rdma_kind smap_net_rdma_port_kind(const char *dir, char *which, size_t len)
{
    enum smap_net_rdma_kind best = SMAP_NET_RDMA_NONE;
    if (which && len)
        which[0] = '\0';
    DIR *d = opendir(dir);
    if (!d)
        return best;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char ports[PATH_MAX];
        snprintf(ports, sizeof ports, "%s/%s/ports", dir, e->d_name);
        DIR *pd = opendir(ports);
        struct dirent *pe;
        int any = 0;
        while (pd && (pe = readdir(pd)) != NULL) {
            if (pe->d_name[0] == '.')
                continue;
            any = 1;
            enum smap_net_rdma_kind k = port_kind(dir, e->d_name, pe->d_name);
            if (k > best) {
                best = k;
                if (which && len)
                    snprintf(which, len, "%s port %s", e->d_name, pe->d_name);
            }
        }
        if (pd)
            closedir(pd);
        if (!any && best < SMAP_NET_RDMA_OTHER) { /* a device without ports */
            best = SMAP_NET_RDMA_OTHER;
            if (which && len)
                snprintf(which, len, "%s", e->d_name);
        }
    }
    closedir(d);
    return best;
}

const char *smap_net_rdma_kind_name(enum smap_net_rdma_kind k)
{
    switch (k) {
    case SMAP_NET_RDMA_IB: return "InfiniBand";
    case SMAP_NET_RDMA_ROCE: return "RoCE";
    case SMAP_NET_RDMA_DOWN: return "not active";
    case SMAP_NET_RDMA_OTHER: return "neither InfiniBand nor RoCE (iWARP, usNIC...)";
    case SMAP_NET_RDMA_NONE: break;
    }
    return "none";
}

static const char *engine_label(const char *name)
{
    return !strcmp(name, "ucx") ? "UCX" : "libfabric";
}

const char *smap_net_engine_choose(const char *want, const char **fallback, char *why,
                                   size_t whylen, char *err, size_t errlen)
{
    *fallback = NULL;
    if (!want || !*want || !strcmp(want, "auto")) {
        /* UCX where it finds an InfiniBand/RoCE device (what users and
         * both peers run there, DESIGN D9), libfabric elsewhere; the other
         * engine, when built, stands in for a plugin that does not load. */
        char port[300];
        enum smap_net_rdma_kind kind = smap_net_rdma_port_kind(SMAP_NET_IB_SYSFS, port, sizeof port);
        int rdma = kind == SMAP_NET_RDMA_IB || kind == SMAP_NET_RDMA_ROCE;
        int ofi = built("ofi"), ucx = built("ucx");
        if (rdma && ucx) {
            snprintf(why, whylen, "SMAP_NET_ENGINE=auto: active %s port (%s in %s)",
                     smap_net_rdma_kind_name(kind), port, SMAP_NET_IB_SYSFS);
            *fallback = ofi ? "ofi" : NULL;
            return "ucx";
        }
        if (ofi) {
            if (rdma)
                snprintf(why, whylen, "SMAP_NET_ENGINE=auto: active %s port (%s), but the "
                                      "UCX engine is not built", smap_net_rdma_kind_name(kind), port);
            else if (kind == SMAP_NET_RDMA_NONE)
                snprintf(why, whylen, "SMAP_NET_ENGINE=auto: no InfiniBand/RoCE device in %s",
                         SMAP_NET_IB_SYSFS);
            else
                snprintf(why, whylen, "SMAP_NET_ENGINE=auto: no active InfiniBand/RoCE port in %s "
                                      "(%s: %s)", SMAP_NET_IB_SYSFS, port,
                         smap_net_rdma_kind_name(kind));
            *fallback = ucx ? "ucx" : NULL;
            return "ofi";
        }
        if (ucx) {
            snprintf(why, whylen, "SMAP_NET_ENGINE=auto: UCX, the only engine built");
            return "ucx";
        }
        snprintf(err, errlen, "no network engine is built into this smartmap (neither "
                              "libfabric nor UCX was found when it was built)");
        return NULL;
    }
    if (strcmp(want, "ofi") && strcmp(want, "ucx")) {
        snprintf(err, errlen, "SMAP_NET_ENGINE='%s' names no network engine (auto, ofi or ucx)",
                 want);
        return NULL;
    }
    if (!built(want)) {
        snprintf(err, errlen,
                 "SMAP_NET_ENGINE=%s: the %s engine is not built into this smartmap "
                 "(engines built: %s); unset SMAP_NET_ENGINE or set it to one of those",
                 want, engine_label(want),
                 *SMAP_NET_ENGINES_BUILT ? SMAP_NET_ENGINES_BUILT : "none");
        return NULL;
    }
    snprintf(why, whylen, "SMAP_NET_ENGINE=%s", want);
    return !strcmp(want, "ofi") ? "ofi" : "ucx";
}

void *smap_net_engine_find(const char *want, const char *libdir, const char **name, char *path,
                           size_t pathlen, smap_net_engine_entry_fn **entry, char *why,
                           size_t whylen, char *err, size_t errlen)
{
    const char *fallback;
    *name = smap_net_engine_choose(want, &fallback, why, whylen, err, errlen);
    if (!*name)
        return NULL;
    smap_net_engine_file(libdir, *name, path, pathlen);
    void *h = smap_net_engine_load(path, entry, err, errlen);
    if (h || !fallback)
        return h;
    /* auto: the other engine, saying why */
    char first[512];
    snprintf(first, sizeof first, "%s", err);
    char alt[PATH_MAX + 64];
    smap_net_engine_file(libdir, fallback, alt, sizeof alt);
    if (!(h = smap_net_engine_load(alt, entry, err, errlen))) {
        char second[512];
        snprintf(second, sizeof second, "%s", err);
        snprintf(err, errlen, "%s; and the other engine: %s", first, second);
        return NULL;
    }
    size_t used = strlen(why);
    snprintf(why + used, whylen - used, "; the %s engine does not load (%s), so %s",
             engine_label(*name), first, engine_label(fallback));
    *name = fallback;
    snprintf(path, pathlen, "%s", alt);
    return h;
}

void smap_net_engine_file(const char *libdir, const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s/smartmap/libsmartmap_net_%s.so", libdir, name);
}

int smap_net_engine_libdir(char *out, size_t len)
{
    Dl_info me;
    if (!dladdr((void *)smap_net_engine_libdir, &me) || !me.dli_fname)
        return -1;
    const char *slash = strrchr(me.dli_fname, '/');
    if (!slash) {
        /* a bare name: only a program itself; its directory is the cwd's */
        snprintf(out, len, ".");
        return 0;
    }
    snprintf(out, len, "%.*s", (int)(slash - me.dli_fname), me.dli_fname);
    return 0;
}

void *smap_net_engine_load(const char *path, smap_net_engine_entry_fn **entry, char *err,
                           size_t errlen)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        snprintf(err, errlen, "cannot load the network engine %s: %s", path,
                 why ? why : "(no reason given)");
        return NULL;
    }
    void *sym = dlsym(h, SMAP_NET_ENGINE_ENTRY);
    if (!sym) {
        const char *why = dlerror();
        snprintf(err, errlen, "%s is no network engine (no %s): %s", path,
                 SMAP_NET_ENGINE_ENTRY, why ? why : "(no reason given)");
        dlclose(h);
        return NULL;
    }
    /* POSIX lets a data pointer from dlsym be converted to a function */
    *(void **)entry = sym;
    return h;
}
