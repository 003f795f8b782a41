/* Moves main() below the anonymous top of the exposed stack (findings
 * §3.2, pitfall B).
 *
 * stack.c keeps the page(s) holding the argv/env strings anonymous so that
 * /proc/<pid>/cmdline stays readable.  The same page(s) also hold the first
 * frames below _start, so main's locals could land there and be invisible
 * to peers.  _start calls __libc_start_main through the PLT, so the
 * library's definition comes first; it passes glibc a wrapper that
 * allocas past the kept page before calling the program's main.  glibc
 * only: other C libraries start main differently and keep the old
 * behaviour (main's first frames may then be private). */
#define _GNU_SOURCE
#include "base/compiler.h"
#include "smap/smap.h"

#ifdef __GLIBC__
#include <alloca.h>
#include <dlfcn.h>
#include <stdlib.h>

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_main_fn)(main_fn, int, char **, void (*)(void), void (*)(void),
                             void (*)(void), void *);

static main_fn real_main;

/* Room left between the alloca'd block and the end of the shared part, for
 * the wrapper's own frame below the block. */
#define MAIN_MARGIN 256

SMAP_NOINLINE static int main_wrapper(int argc, char **argv, char **envp)
{
    const struct smap_region *st = smap_region_self(SMAP_REGION_STACK);
    uintptr_t here = SMAP_FRAME_ADDRESS();
    volatile char *pad = NULL;
    if (st->len && here >= st->base + st->len && here < st->base + st->len + ((size_t)1 << 20)) {
        /* main's frame starts below this block, i.e. in the shared part. */
        pad = alloca(here - (st->base + st->len) + MAIN_MARGIN);
        pad[0] = 0;
    }
    int rc = real_main(argc, argv, envp);
    if (pad)
        pad[0] = 1;   /* keeps the block (and this frame) alive across the call */
    return rc;
}

SMAP_EXPORT int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
                                  void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
    start_main_fn next = (start_main_fn)dlsym(RTLD_NEXT, "__libc_start_main");
    if (!next) {
        smap_early_warn("cannot find glibc's __libc_start_main");
        abort();
    }
    real_main = main;
    return next(main_wrapper, argc, argv, init, fini, rtld_fini, stack_end);
}
#endif
