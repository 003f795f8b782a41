/* The interface between libsmartmap_heap.so (src/smap/startup: the start-up
 * half of the SMARTMAP layer) and libmpi (everything else).
 *
 * libsmartmap_heap carries the interposers (the malloc family with the
 * vendored jemalloc, fork, _Fork, pthread_create, __libc_start_main) and the
 * start-up exposure of heap, globals and main stack.  It must be loaded
 * before the program starts: programs built with mpicc need it (DT_NEEDED),
 * smrun preloads it into programs that do not (interpreters).  libmpi never
 * depends on it: jemalloc's initial-exec TLS is too large for a library that
 * an interpreter dlopen's, and an allocator loaded that late could not serve
 * the process anyway.  So libmpi finds it at run time, by this one exported
 * symbol, and works without it (nothing exposed but its own regions).
 *
 * Both libraries are built from the same tree; the version guards against a
 * mix of two installations. */
#ifndef SMAP_SMAP_STARTUP_API_H
#define SMAP_SMAP_STARTUP_API_H

#include "smap/smap.h"

#define SMAP_STARTUP_API_VERSION 1
#define SMAP_STARTUP_API_SYMBOL "smartmap_startup_api"

struct smap_startup_api {
    int version;                        /* SMAP_STARTUP_API_VERSION */
    size_t region_size;                 /* sizeof(struct smap_region) */
    /* The process's region table (all kinds): libmpi registers its ctl and
     * coll regions here too, so that fork() privatises them in a child. */
    struct smap_region *regions;
    int (*heap_exposed)(void);
    size_t (*heap_used)(void);
    void (*heap_purge)(void);
    int (*is_fork_child)(void);
    /* Called in a fork child once the regions are private (peer views must
     * go: the child is no rank).  Must not allocate. */
    void (*set_fork_child_hook)(void (*hook)(void));
    struct smap_expose_stats *expose_stats;
};

/* Exported by libsmartmap_heap.so. */
const struct smap_startup_api *smartmap_startup_api(void);

/* In libmpi (startup_link.c): the start-up library of this process, or NULL
 * when it is not loaded (libmpi dlopen'ed without smrun's preload, or
 * another installation's). */
const struct smap_startup_api *smap_startup(void);

#endif
