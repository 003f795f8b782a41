/* The network engine's choice (src/net/load.c) for each set of engines a
 * build may have, with and without an InfiniBand/RoCE port, and its
 * fallback: compiled three times (CMake), with SMAP_NET_ENGINES_BUILT
 * "ofi", "ucx" and "ofi ucx", and the device directory a temporary one of
 * this test's (SMAP_NET_IB_SYSFS below) holding fake sysfs trees: none,
 * an iWARP adapter, an InfiniBand adapter whose port is down, a RoCE one
 * (a CA over Ethernet), an InfiniBand one; smap_net_rdma_port_kind's
 * answer for each, then the engine auto takes.
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

/* Writes text into the file dir/rel (its folders made). */
static void put(const char *dir, const char *rel, const char *text)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0700);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

/* A fake device: dev's node type, and port 1's link layer and state. */
static void fake_dev(const char *dev, const char *node, const char *link, const char *state)
{
    char rel[256];
    snprintf(rel, sizeof rel, "%s/node_type", dev);
    put(ib_dir, rel, node);
    snprintf(rel, sizeof rel, "%s/ports/1/link_layer", dev);
    put(ib_dir, rel, link);
    snprintf(rel, sizeof rel, "%s/ports/1/state", dev);
    put(ib_dir, rel, state);
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

    /* devices that are no reason for UCX: libfabric where built */
    char which[300];
    CHECK(smap_net_rdma_port_kind(ib_dir, which, sizeof which) == SMAP_NET_RDMA_NONE,
          "an empty directory is no device");
    fake_dev("iwp0", "4: RNIC\n", "Ethernet\n", "4: ACTIVE\n");
    CHECK(smap_net_rdma_port_kind(ib_dir, which, sizeof which) == SMAP_NET_RDMA_OTHER,
          "iWARP taken for %s", smap_net_rdma_kind_name(smap_net_rdma_port_kind(ib_dir, 0, 0)));
    CHECK(has(which, "iwp0 port 1"), "which: %s", which);
    fake_dev("mlx5_1", "1: CA\n", "InfiniBand\n", "1: DOWN\n");
    CHECK(smap_net_rdma_port_kind(ib_dir, which, sizeof which) == SMAP_NET_RDMA_DOWN,
          "a port down taken for %s",
          smap_net_rdma_kind_name(smap_net_rdma_port_kind(ib_dir, 0, 0)));
    CHECK(has(which, "mlx5_1 port 1"), "which: %s", which);
    if (ofi) {
        name = choose("auto", &fb, why, err);
        CHECK(name && !strcmp(name, "ofi"), "[%s] auto, iWARP and a port down: %s", built_set,
              name ? name : err);
        CHECK(has(why, "no active InfiniBand/RoCE port") && has(why, "mlx5_1 port 1"),
              "why: %s", why);
    }

    /* RoCE (an adapter over Ethernet), then InfiniBand: UCX where built,
     * saying which port */
    static const struct { const char *dev, *link, *label; enum smap_net_rdma_kind kind; }
        up[] = { { "rxe0", "Ethernet\n", "RoCE", SMAP_NET_RDMA_ROCE },
                 { "mlx5_0", "InfiniBand\n", "InfiniBand", SMAP_NET_RDMA_IB } };
    for (int i = 0; i < 2; i++) {
        fake_dev(up[i].dev, "1: CA\n", up[i].link, "4: ACTIVE\n");
        enum smap_net_rdma_kind k = smap_net_rdma_port_kind(ib_dir, which, sizeof which);
        CHECK(k == up[i].kind, "%s taken for %s", up[i].label, smap_net_rdma_kind_name(k));
        snprintf(dev, sizeof dev, "%s port 1", up[i].dev);
        CHECK(has(which, dev), "which: %s", which);
        name = choose("auto", &fb, why, err);
        if (ucx) {
            CHECK(name && !strcmp(name, "ucx"), "[%s] auto with %s: %s", built_set, up[i].label,
                  name ? name : err);
            snprintf(dev, sizeof dev, "active %s port (%s port 1", up[i].label, up[i].dev);
            CHECK(has(why, dev), "why: %s", why);
            CHECK(ofi ? fb && !strcmp(fb, "ofi") : fb == NULL, "fallback %s", fb ? fb : "-");
        } else {
            CHECK(name && !strcmp(name, "ofi"), "[%s] auto with %s, no ucx: %s", built_set,
                  up[i].label, name ? name : err);
            CHECK(has(why, "UCX engine is not built"), "why: %s", why);
        }
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

    char rm[PATH_MAX + 16];
    snprintf(rm, sizeof rm, "rm -rf '%s'", tmpl);
    if (system(rm) != 0)
        fprintf(stderr, "engine_choose: could not remove %s\n", tmpl);
    if (failures)
        return 1;
    printf("engine_choose [%s]: PASS\n", built_set);
    return 0;
}
