/* The network engine's choice (src/net/load.c) for each set of engines a
 * build may have, with and without an InfiniBand/RoCE device, and its
 * fallback: compiled three times (CMake), with SMAP_NET_ENGINES_BUILT
 * "ofi", "ucx" and "ofi ucx", and the device directory a temporary one of
 * this test's (SMAP_NET_IB_SYSFS below), empty or holding "mlx5_0".
 *   engine_choose_<set>   checks that set's answers */
#define _GNU_SOURCE 1   /* dladdr, as load.c asks */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char ib_dir[PATH_MAX];
#define SMAP_NET_IB_SYSFS ib_dir
#include "net/load.c"

static int failures;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (!(cond)) {                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                  \
            fputc('\n', stderr);                           \
            failures++;                                    \
        }                                                  \
    } while (0)

static int has(const char *s, const char *part)
{
    return s && strstr(s, part) != NULL;
}

/* choose(want) -> name (or NULL), fallback, why, err */
static const char *choose(const char *want, const char **fb, char *why, char *err)
{
    why[0] = err[0] = '\0';
    return smap_net_engine_choose(want, fb, why, 512, err, 512);
}

int main(void)
{
    const char *built_set = SMAP_NET_ENGINES_BUILT;
    int ofi = built("ofi"), ucx = built("ucx");
    char tmpl[] = "/tmp/smap_engine_choose.XXXXXX";
    if (!mkdtemp(tmpl)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(ib_dir, sizeof ib_dir, "%s/infiniband", tmpl);
    char why[512], err[512], dev[PATH_MAX + 16];
    const char *fb, *name;

    /* no device directory at all, then an empty one: auto is libfabric
     * where built */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && mkdir(ib_dir, 0700) != 0) {
            perror("mkdir");
            return 1;
        }
        name = choose("auto", &fb, why, err);
        if (ofi) {
            CHECK(name && !strcmp(name, "ofi"), "[%s] auto without IB: %s", built_set,
                  name ? name : err);
            CHECK(has(why, "no InfiniBand/RoCE device"), "why: %s", why);
            CHECK(ucx ? fb && !strcmp(fb, "ucx") : fb == NULL, "fallback %s", fb ? fb : "-");
        } else {
            CHECK(name && !strcmp(name, "ucx"), "[%s] auto, ucx alone: %s", built_set,
                  name ? name : err);
            CHECK(has(why, "the only engine built"), "why: %s", why);
            CHECK(fb == NULL, "fallback %s", fb);
        }
        /* the empty word and NULL mean auto */
        const char *same = choose("", &fb, why, err);
        CHECK(same && name && !strcmp(same, name), "'' differs from auto");
        same = choose(NULL, &fb, why, err);
        CHECK(same && name && !strcmp(same, name), "NULL differs from auto");
    }

    /* a device: UCX where built, saying which device */
    snprintf(dev, sizeof dev, "%s/mlx5_0", ib_dir);
    if (mkdir(dev, 0700) != 0) {
        perror("mkdir");
        return 1;
    }
    name = choose("auto", &fb, why, err);
    if (ucx) {
        CHECK(name && !strcmp(name, "ucx"), "[%s] auto with IB: %s", built_set,
              name ? name : err);
        CHECK(has(why, "InfiniBand/RoCE device mlx5_0"), "why: %s", why);
        CHECK(ofi ? fb && !strcmp(fb, "ofi") : fb == NULL, "fallback %s", fb ? fb : "-");
    } else {
        CHECK(name && !strcmp(name, "ofi"), "[%s] auto with IB, no ucx: %s", built_set,
              name ? name : err);
        CHECK(has(why, "UCX engine is not built"), "why: %s", why);
    }

    /* asked by name: taken when built (no fallback), a clear error when not */
    static const char *const names[] = { "ofi", "ucx" };
    for (int i = 0; i < 2; i++) {
        name = choose(names[i], &fb, why, err);
        if (built(names[i])) {
            CHECK(name && !strcmp(name, names[i]), "%s asked: %s", names[i], name ? name : err);
            CHECK(fb == NULL, "%s asked, yet a fallback %s", names[i], fb);
        } else {
            CHECK(!name, "%s asked, not built, yet chosen", names[i]);
            char want[128];
            snprintf(want, sizeof want, "SMAP_NET_ENGINE=%s: the %s engine is not built",
                     names[i], i ? "UCX" : "libfabric");
            CHECK(has(err, want), "%s not built: '%s'", names[i], err);
        }
    }
    name = choose("bogus", &fb, why, err);
    CHECK(!name && has(err, "'bogus' names no network engine"), "bogus: %s", err);

    /* the fallback under auto: the first plugin does not load (none lies
     * in this directory), so the other is tried and named in the error */
    if (ofi && ucx) {
        char path[PATH_MAX + 64];
        smap_net_engine_entry_fn *entry;
        void *h = smap_net_engine_find("auto", tmpl, &name, path, sizeof path, &entry, why,
                                       sizeof why, err, sizeof err);
        CHECK(!h, "a plugin loaded from an empty directory");
        CHECK(has(err, "libsmartmap_net_ucx.so") && has(err, "libsmartmap_net_ofi.so"),
              "both plugins named: %s", err);
        h = smap_net_engine_find("ucx", tmpl, &name, path, sizeof path, &entry, why,
                                 sizeof why, err, sizeof err);
        CHECK(!h && !has(err, "libsmartmap_net_ofi.so"), "asked for ucx, tried ofi: %s", err);
    }

    rmdir(dev);
    rmdir(ib_dir);
    rmdir(tmpl);
    if (failures)
        return 1;
    printf("engine_choose [%s]: PASS\n", built_set);
    return 0;
}
