/* The contract between the library and a network engine plugin (DESIGN.md
 * D9).  Each engine (libfabric, UCX) is a shared object of its
 * own, libsmartmap_net_<engine>.so in the private directory `smartmap/`
 * beside libmpi_abi.so, opened with dlopen only when a job spans nodes: a
 * one-node job maps no network library, and none of the signal handlers
 * their providers install (libpsm_infinipath's SIGSEGV handler turned every
 * rank's crash into "exit 1").
 *
 * A plugin exports one symbol, SMAP_NET_ENGINE_ENTRY, and links nothing of
 * the library: libmpi's internal symbols are hidden, so what an engine
 * needs of the library (its state: the job, the tunables, struct smap_net
 * to fill in; its services: diagnostics, the boot key-value store) comes in
 * struct smap_net_lib, which the entry point keeps in smap_lib for the
 * engine's calls.  net/plugin/lib.c, linked into every plugin, defines
 * smap_log, smap_fatal and smap_boot_put/get/fence there as forwarders, so
 * an engine's code calls them as the rest of the library does.
 *
 * The library and its plugins are built together: the entry point refuses
 * a table of another version or layout (a plugin left from another build)
 * with a message instead of misreading it. */
#ifndef SMAP_NET_ENGINE_H
#define SMAP_NET_ENGINE_H

#include <stdarg.h>
#include <stddef.h>

#include "net/net.h"

struct smap_job;
struct smap_tunables;

/* Bump when struct smap_net_lib, struct smap_net or struct smap_net_ops
 * changes in a way sizes would not show. */
#define SMAP_NET_ENGINE_ABI 3

/* The exported symbol, and its type. */
#define SMAP_NET_ENGINE_ENTRY "smap_net_engine_entry"
#define SMAP_NET_ENGINE_EXPORT __attribute__((visibility("default")))

struct smap_net_lib {
    int abi;                              /* SMAP_NET_ENGINE_ABI */
    size_t size, net_size, ops_size, job_size, tun_size;   /* the structs' sizes */
    struct smap_net *net;                 /* the engine fills in eager_max, room... */
    const struct smap_job *job;
    const struct smap_tunables *tun;
    void (*vlog)(int level, const char *fmt, va_list ap);
    void (*vfatal)(const char *fmt, va_list ap);   /* does not return */
    int (*kv_put)(const char *key, const char *value);
    int (*kv_fence)(void);
    int (*kv_get)(const char *key, char *value, size_t len);
    int (*kallsyms_skip)(int on);         /* smap_net_kallsyms_skip */
};

/* Checks the library's table against this plugin's build and keeps it in
 * smap_lib; the engine's table, or NULL with a message in err. */
typedef const struct smap_net_ops *smap_net_engine_entry_fn(const struct smap_net_lib *lib,
                                                            char *err, size_t errlen);

/* ---- inside a plugin (net/plugin/lib.c) ---- */
/* The library's table, set by the entry point before the engine's open. */
extern const struct smap_net_lib *smap_lib;
/* The entry point's check: 0 and smap_lib set, or -1 with a message. */
int smap_net_engine_accept(const struct smap_net_lib *lib, char *err, size_t errlen);
/* Addresses as hex text for the boot key-value space: out holds 2n+1. */
void smap_net_hex(char *out, const unsigned char *p, size_t n);
/* Parses at most cap bytes of hex text; returns how many. */
size_t smap_net_unhex(unsigned char *out, size_t cap, const char *s);

/* ---- inside the library (net/load.c; also in smap_internal for
 * smartmap_info, so that its report and a rank's choice agree) ---- */
/* What the machine's RDMA devices offer, worst to best: the kinds of
 * ports under a sysfs directory like /sys/class/infiniband (a parameter,
 * so that tests fake trees). */
enum smap_net_rdma_kind {
    SMAP_NET_RDMA_NONE,  /* no device (or no directory) */
    SMAP_NET_RDMA_OTHER, /* a device that is no InfiniBand/RoCE adapter: iWARP, usNIC */
    SMAP_NET_RDMA_DOWN,  /* InfiniBand/RoCE ports, none ACTIVE */
    SMAP_NET_RDMA_ROCE,  /* an ACTIVE port of an adapter (node type CA) over Ethernet */
    SMAP_NET_RDMA_IB,    /* an ACTIVE InfiniBand port */
};
/* The best kind of port under dir, "<device> port <n>" in which (may be
 * NULL).  Reads sysfs files only: <dev>/node_type, <dev>/ports/<n>/
 * link_layer and state. */
enum smap_net_rdma_kind smap_net_rdma_port_kind(const char *dir, char *which, size_t len);
const char *smap_net_rdma_kind_name(enum smap_net_rdma_kind k);
/* Where the kernel lists InfiniBand and RoCE devices (one entry per
 * device, mlx5_0, rxe0...).  tests/net/engine_choose.c includes load.c
 * with another directory. */
#ifndef SMAP_NET_IB_SYSFS
#define SMAP_NET_IB_SYSFS "/sys/class/infiniband"
#endif
/* (net/kallsyms.c) on=1: from now on an fopen of /proc/kallsyms in this
 * process fails, if SMAP_NET_OFI_SKIP_KALLSYMS allows and SMAP_NET_IB_SYSFS
 * lists no device; 1 when it does so.  on=0: ends that; the number of
 * opens refused so far. */
int smap_net_kallsyms_skip(int on);
/* The engine SMAP_NET_ENGINE's value `want` (auto|ofi|ucx) selects: its
 * name ("ofi", "ucx"), with why it was taken in `why` and, for auto, the
 * engine to take instead when its plugin does not load in *fallback (or
 * NULL); NULL with a message in err when that engine is not built into
 * this smartmap.  auto: UCX when the machine has an ACTIVE InfiniBand or
 * RoCE port (smap_net_rdma_port_kind over /sys/class/infiniband), else
 * libfabric (also for iWARP and usNIC, which UCX does not drive). */
const char *smap_net_engine_choose(const char *want, const char **fallback, char *why,
                                   size_t whylen, char *err, size_t errlen);
/* Chooses (smap_net_engine_choose) and loads the plugin beside a library
 * in libdir, falling back to the other engine under auto: the dlopen
 * handle with the engine's *name, its file in path and its *entry; NULL
 * with a message in err (*name and path: the engine that failed, or
 * *name NULL when none was chosen). */
void *smap_net_engine_find(const char *want, const char *libdir, const char **name, char *path,
                           size_t pathlen, smap_net_engine_entry_fn **entry, char *why,
                           size_t whylen, char *err, size_t errlen);
/* The plugin file of engine `name` beside a library in directory libdir. */
void smap_net_engine_file(const char *libdir, const char *name, char *out, size_t len);
/* The directory of the shared object that holds this code (libmpi_abi.so),
 * from dladdr: 0, or -1 when it cannot be told. */
int smap_net_engine_libdir(char *out, size_t len);
/* dlopen(path, RTLD_NOW | RTLD_LOCAL) and the entry point: the handle, or
 * NULL with a message naming the file and dlerror()'s reason. */
void *smap_net_engine_load(const char *path, smap_net_engine_entry_fn **entry, char *err,
                           size_t errlen);

#endif
