/* libfabric's one costly start-up probe, skipped where it cannot matter.
 *
 * Debian's libfabric (1.17) initialises every built-in provider at the
 * first fi_getinfo, whatever FI_PROVIDER or the hints name, and its verbs
 * provider's initialisation reads all of /proc/kallsyms, twice, to learn
 * whether the kernel can register dmabuf and peer (GPU) memory.  On a
 * kernel where neither symbol is present it reads to the end: about 0.1 s
 * of kernel time per process, the same for each of a node's ranks, so 8
 * emulated hosts x 8 ranks started in 4.1-6.6 s with the reads and
 * 1.1-1.3 s without them (Open MPI: 3.1-4.2 s; 3 alternated rounds on 2
 * CPUs).  The answer only shapes how the verbs provider registers device
 * memory; where /sys/class/infiniband lists no device, there is no verbs
 * device to register with.  There, for the duration of the engine's first
 * fi_getinfo (smap_net_kallsyms_skip), an fopen of /proc/kallsyms fails
 * with EACCES, as it does for anyone on a kernel that hides it, and the
 * provider takes "not supported" as it then does.
 *
 * The fopen below is libmpi's, exported: in the process's global scope it
 * comes before libc's, so libfabric's call (loaded later by the engine
 * plugin) binds to it.  Every other open passes through to libc's fopen
 * unchanged.  Where libmpi is not in the global scope (a dlopen without
 * RTLD_GLOBAL), libc's fopen answers and the probe simply runs. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/tunables.h"
#include "net/engine.h"

static atomic_int skipping;    /* inside the window */
static atomic_int skipped;     /* opens refused, for the log and tests */

typedef FILE *fopen_fn(const char *, const char *);

static fopen_fn *libc_fopen(void)
{
    static _Atomic(fopen_fn *) real;
    fopen_fn *f = atomic_load_explicit(&real, memory_order_acquire);
    if (!f) {
        f = (fopen_fn *)dlsym(RTLD_NEXT, "fopen");
        atomic_store_explicit(&real, f, memory_order_release);
    }
    return f;
}

__attribute__((visibility("default"))) FILE *fopen(const char *path, const char *mode)
{
    if (__builtin_expect(atomic_load_explicit(&skipping, memory_order_relaxed), 0) && path &&
        !strcmp(path, "/proc/kallsyms")) {
        atomic_fetch_add_explicit(&skipped, 1, memory_order_relaxed);
        errno = EACCES;
        return NULL;
    }
    fopen_fn *f = libc_fopen();
    if (!f) {
        errno = ENOSYS;
        return NULL;
    }
    return f(path, mode);
}

int smap_net_kallsyms_skip(int on)
{
    if (!on) {
        atomic_store_explicit(&skipping, 0, memory_order_relaxed);
        return atomic_load_explicit(&skipped, memory_order_relaxed);
    }
    if (!smap_tun.net_ofi_skip_kallsyms ||
        smap_net_rdma_port_kind(SMAP_NET_IB_SYSFS, NULL, 0) != SMAP_NET_RDMA_NONE)
        return 0;
    atomic_store_explicit(&skipping, 1, memory_order_relaxed);
    return 1;
}
