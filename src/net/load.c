/* Finding and opening a network engine plugin (net/engine.h).  Also in the
 * smap_internal archive: smartmap_info reports the same choice and file a
 * rank of a multi-node job would take. */
#define _GNU_SOURCE
#include "net/engine.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* The engines this build made a plugin of (CMake: SMAP_NET_ENGINES_BUILT,
 * "ofi" or "ofi ucx"), in the order auto prefers them. */
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

const char *smap_net_engine_choose(const char *want, char *why, size_t whylen, char *err,
                                   size_t errlen)
{
    if (!want || !*want || !strcmp(want, "auto")) {
        /* UCX first where it is built and finds an InfiniBand/RoCE device
         * (DESIGN D9); with libfabric alone built, libfabric. */
        snprintf(why, whylen, "SMAP_NET_ENGINE=auto: libfabric, the only engine built");
        return "ofi";
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
                 want, !strcmp(want, "ucx") ? "UCX" : "libfabric", SMAP_NET_ENGINES_BUILT);
        return NULL;
    }
    snprintf(why, whylen, "SMAP_NET_ENGINE=%s", want);
    return !strcmp(want, "ofi") ? "ofi" : "ucx";
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
